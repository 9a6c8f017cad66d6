//! Random cases from the decode table: instruction words of one encoding and register states biased toward the
//! values that find bugs (pointers into the layout, zero, all ones, sign boundaries, small numbers).

use crate::layout::Layout;
use rand::Rng;
use tandem_reference::decode::Encoding;
use tandem_reference::state::{CpuState, PSTATE_SSBS};

/// A word of `encoding`: fixed and should-be bits from the table, fields random. Immediate fields are biased
/// toward small magnitudes half of the time, so that offsets land near their base.
pub fn random_word(encoding: &Encoding, rng: &mut impl Rng) -> u32 {
    let mut word = encoding.word_from(rng.r#gen());
    for field in encoding.fields {
        if !field.name.starts_with("imm") || rng.gen_bool(0.5) {
            continue;
        }
        let mask = if field.width >= 32 { u32::MAX } else { (1u32 << field.width) - 1 };
        let small = rng.gen_range(0..16u32);
        let value = if rng.gen_bool(0.5) { small } else { mask.wrapping_sub(small) } & mask;
        word = (word & !(mask << field.lsb)) | value << field.lsb;
    }
    word
}

/// A register value: a pointer into the data of `layout`, a boundary value, a small number or anything.
pub fn random_value(layout: &Layout, rng: &mut impl Rng) -> u64 {
    match rng.gen_range(0..10) {
        0..=3 => {
            let pointer = rng.gen_range(layout.data_start..layout.data_end);
            if rng.gen_bool(0.5) { pointer & !7 } else { pointer }
        }
        4 => {
            const BOUNDARIES: [u64; 8] =
                [0, u64::MAX, 1 << 63, (1 << 63) - 1, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 1];
            BOUNDARIES[rng.gen_range(0..BOUNDARIES.len())]
        }
        5..=6 => rng.gen_range(0..256),
        7 => (rng.gen_range(0..256u64)).wrapping_neg(),
        _ => rng.r#gen(),
    }
}

/// FPCR.AHP, DN, FZ, RMode, FZ16.
const FPCR_MODE_BITS: u32 = 0x07c8_0000;
/// FPSR.QC, IDC, IXC, UFC, OFC, DZC, IOC.
const FPSR_FLAG_BITS: u32 = 0x0800_009f;

/// A thread state at the code address of `layout`, with SP a 16-aligned pointer into its data.
pub fn random_state(layout: &Layout, rng: &mut impl Rng) -> CpuState {
    let mut state = CpuState::default();
    for x in state.x.iter_mut() {
        *x = random_value(layout, rng);
    }
    for v in state.v.iter_mut() {
        *v = random_vector(layout, rng);
    }
    state.sp = rng.gen_range(layout.data_start..layout.data_end) & !15;
    state.pc = layout.code;
    state.nzcv = rng.gen_range(0..16u32) << 28;
    state.ssbs = if rng.gen_bool(0.5) { PSTATE_SSBS } else { 0 };
    // Half the cases in the default FP mode, half in a random one (rounding, FZ, FZ16, DN, AHP); random
    // cumulative FPSR flags, which no instruction may clear.
    state.fpcr = if rng.gen_bool(0.5) { 0 } else { rng.r#gen::<u32>() & FPCR_MODE_BITS };
    state.fpsr = rng.r#gen::<u32>() & FPSR_FLAG_BITS;
    state.tpidr_el0 = rng.r#gen();
    state.tpidrro_el0 = rng.r#gen();
    state
}

/// A SIMD&FP register value: lanes of one width (16, 32 or 64 bits), each a floating-point value chosen to hit the
/// hard cases (NaNs quiet and signalling, infinities, zeros, denormals, extremes, values near 1 and near integer
/// limits) or, half of the time, whatever an integer register could hold.
pub fn random_vector(layout: &Layout, rng: &mut impl Rng) -> u128 {
    if rng.gen_bool(0.5) {
        return u128::from(random_value(layout, rng)) | u128::from(random_value(layout, rng)) << 64;
    }
    let width = [16u32, 32, 64][rng.gen_range(0..3)];
    let mut value = 0u128;
    for lane in 0..128 / width {
        value |= u128::from(random_float_bits(width, rng)) << (lane * width);
    }
    value
}

/// A floating-point bit pattern of `width` bits, biased toward special values.
pub fn random_float_bits(width: u32, rng: &mut impl Rng) -> u64 {
    let (exponent_bits, fraction_bits) = match width {
        16 => (5, 10),
        32 => (8, 23),
        _ => (11, 52),
    };
    let sign = u64::from(rng.gen_bool(0.5)) << (width - 1);
    let max_exponent = (1u64 << exponent_bits) - 1;
    let fraction_mask = (1u64 << fraction_bits) - 1;
    let bias = max_exponent >> 1;
    let with = |exponent: u64, fraction: u64| sign | exponent << fraction_bits | (fraction & fraction_mask);
    match rng.gen_range(0..10) {
        0 => with(max_exponent, 1 << (fraction_bits - 1) | rng.r#gen::<u64>()), // quiet NaN
        1 => with(max_exponent, rng.r#gen::<u64>() & (fraction_mask >> 1) | 1), // signalling NaN
        2 => with(max_exponent, 0),                                             // infinity
        3 => with(0, 0),                                                        // zero
        4 => with(0, rng.r#gen::<u64>() | 1),                                   // denormal
        5 => with(if rng.gen_bool(0.5) { 1 } else { max_exponent - 1 }, rng.r#gen()), // extremes
        6 => with(bias + rng.gen_range(0..3) - 1, rng.r#gen::<u64>() & 0xf),    // near 1, few fraction bits
        7 => with(bias + [15u64, 31, 63][rng.gen_range(0..3)].min(max_exponent - 1 - bias), rng.r#gen()), // near 2^n
        _ => with(bias - 8 + rng.gen_range(0..24).min(max_exponent - bias + 7), rng.r#gen()),
    }
}
