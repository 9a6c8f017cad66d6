//! Maxwell's video instructions (VADD, VABSDIFF, VMNMX, VSHL, VSHR, VSET, VSETP, VMAD), as PTX defines its scalar
//! video instructions, which ptxas makes them from: each source is a part of its register (a byte, a half or the
//! word, sign- or zero-extended), the operation is carried out on the exact values, then the result is saturated,
//! added to, compared with or merged into c.
//!
//! Which of this a real GPU confirms is in gpu/research/video.md: the forms of kernels/video.ptx match an H200 bit
//! for bit; the rest (saturation into merged parts, merges into the high half, secondary min/max of mixed
//! signedness) follows PTX's definition, which the H200's own build of those forms contradicts.

use crate::sass::video::Mode;

/// A source part: selector 0-3 a byte, 4-5 a half (4 for a 16-bit immediate), 6 the word.
pub(super) fn part(x: u32, selector: u64, signed: bool) -> i128 {
    let (shift, bits) = match selector {
        0..=3 => (8 * selector as u32, 8),
        4 | 5 => (16 * (selector as u32 - 4), 16),
        _ => (0, 32),
    };
    let raw = (u64::from(x) >> shift) & ((1u64 << bits) - 1);
    if signed { i128::from(((raw << (64 - bits)) as i64) >> (64 - bits)) } else { i128::from(raw) }
}

/// PTX's optSaturate: the value clamped to the signed or unsigned range of the destination's width.
pub(super) fn saturate(value: i128, signed: bool, mode: Mode) -> i128 {
    let bits = mode.width();
    let (low, high) =
        if signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    value.clamp(low, high)
}

/// The secondary operation or merge with c: `signed` is the destination's type, which c is read as for min/max.
pub(super) fn finish(value: i128, c: u32, signed: bool, mode: Mode) -> u32 {
    let c_value = if signed { i128::from(c as i32) } else { i128::from(c) };
    let low = value as u32;
    match mode {
        Mode::MergeHighHalf => (low << 16) | (c & 0xffff),
        Mode::MergeLowHalf => (low & 0xffff) | (c & 0xffff_0000),
        Mode::MergeByte0 => (low & 0xff) | (c & 0xffff_ff00),
        Mode::MergeByte2 => ((low & 0xff) << 16) | (c & 0xff00_ffff),
        Mode::Accumulate => low.wrapping_add(c),
        Mode::Min => value.min(c_value) as u32,
        Mode::Max => value.max(c_value) as u32,
        Mode::None => low,
    }
}

/// A shift's amount: b's part wrapped to 0-31 (.W) or clamped at 32.
pub(super) fn shift_amount(b: i128, wrap: bool) -> u32 {
    if wrap { (b & 31) as u32 } else { b.min(32) as u32 }
}

/// VMAD: a times b plus c, shifted right by 0, 7 or 15, saturated to the signed or unsigned word. `negate_product`
/// and `negate_c` are the instruction's two negations; both at once mean plus one (.PO). The result is signed when
/// either part is, or anything is negated.
#[allow(clippy::too_many_arguments)]
pub(super) fn multiply_add(
    a: i128,
    b: i128,
    c: u32,
    (signed_a, signed_b): (bool, bool),
    (negate_product, negate_c): (bool, bool),
    shift: u64,
    sat: bool,
) -> u32 {
    let plus_one = negate_product && negate_c;
    let signed = signed_a || signed_b || (negate_product != negate_c);
    let c = if signed { i128::from(c as i32) } else { i128::from(c) };
    // -(x) is !x + 1: PTX writes the negations as the inverse plus one, which is the same on exact values.
    let sum = match (plus_one, negate_product, negate_c) {
        (true, _, _) => a * b + c + 1,
        (false, true, _) => -(a * b) + c,
        (false, false, true) => a * b - c,
        (false, false, false) => a * b + c,
    };
    let shifted = sum >> [0, 7, 15, 0][shift as usize & 3];
    // PTX keeps the shifted value's low 64 bits before saturating.
    let shifted = i128::from(shifted as i64);
    let result = if !sat {
        shifted
    } else if signed {
        shifted.clamp(i128::from(i32::MIN), i128::from(i32::MAX))
    } else {
        shifted.clamp(0, i128::from(u32::MAX))
    };
    result as u32
}

/// VABSDIFF4's accumulating form: c plus the distances of a's and b's four bytes.
pub(super) fn byte_distances(a: u32, b: u32, c: u32, (signed_a, signed_b): (bool, bool)) -> u32 {
    let sum: i128 = (0..4).map(|i| (part(a, i, signed_a) - part(b, i, signed_b)).abs()).sum();
    (sum as u32).wrapping_add(c)
}
