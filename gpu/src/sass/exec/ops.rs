//! What both instruction sets' semantics share: lane masks, memory access with its checks, the pure
//! operations (lookup tables, byte permutes, funnel shifts, atomics) whose meaning does not depend on the
//! encoding.

use super::float::{self, Mode};
use super::{
    ConstantBuffers, ExecError, GlobalMemory, LOCAL_WINDOW, Lane, SHARED_WINDOW, WARP_SIZE, WINDOW_BYTES, load, store,
};
use crate::sass::Isa;
use crate::sass::swizzle_add::QuadSigns;
use crate::sass::text::View;

type Result<T = ()> = std::result::Result<T, ExecError>;

/// The lanes of a mask, lowest first.
pub(super) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |i| mask >> i & 1 != 0)
}

/// The memories an instruction may touch, with the checks that turn a bad address into an error.
pub(super) struct Memories<'m> {
    pub(super) isa: Isa,
    pub(super) shared: &'m mut Vec<u8>,
    pub(super) global: &'m mut GlobalMemory,
    pub(super) offset: usize,
}

impl Memories<'_> {
    pub(super) fn access(&self, space: &'static str, kind: &'static str, address: u64, size: usize) -> Result {
        if !address.is_multiple_of(size.min(16) as u64) {
            return Err(ExecError::Misaligned { isa: self.isa, space, address, size, offset: self.offset });
        }
        let end = address.checked_add(size as u64);
        if end.is_none_or(|end| end > self.shared.len() as u64) {
            return Err(ExecError::Fault { isa: self.isa, space, kind, address, size, offset: self.offset });
        }
        Ok(())
    }

    pub(super) fn check_local(&self, local: &[u8], kind: &'static str, address: u64, size: usize) -> Result {
        if !address.is_multiple_of(size.min(16) as u64) {
            return Err(ExecError::Misaligned { isa: self.isa, space: "local", address, size, offset: self.offset });
        }
        if address.checked_add(size as u64).is_none_or(|end| end > local.len() as u64) {
            return Err(ExecError::Fault { isa: self.isa, space: "local", kind, address, size, offset: self.offset });
        }
        Ok(())
    }

    /// A generic address's window: shared, local (with the offset in it), or global.
    pub(super) fn window(address: u64) -> (&'static str, u64) {
        match address {
            _ if address.wrapping_sub(SHARED_WINDOW) < WINDOW_BYTES => ("shared", address - SHARED_WINDOW),
            _ if address.wrapping_sub(LOCAL_WINDOW) < WINDOW_BYTES => ("local", address - LOCAL_WINDOW),
            _ => ("global", address),
        }
    }

    pub(super) fn generic_load(&mut self, local: &[u8], address: u64, size: usize) -> Result<u128> {
        match Self::window(address) {
            ("shared", offset) => {
                self.access("shared", "load", offset, size)?;
                Ok(load(self.shared, offset, size).unwrap_or(0))
            }
            ("local", offset) => {
                self.check_local(local, "load", offset, size)?;
                Ok(load(local, offset, size).unwrap_or(0))
            }
            _ => self.global_load(address, size),
        }
    }

    pub(super) fn generic_store(&mut self, local: &mut [u8], address: u64, size: usize, value: u128) -> Result {
        match Self::window(address) {
            ("shared", offset) => {
                self.access("shared", "store", offset, size)?;
                store(self.shared, offset, size, value);
                Ok(())
            }
            ("local", offset) => {
                self.check_local(local, "store", offset, size)?;
                store(local, offset, size, value);
                Ok(())
            }
            _ => self.global_store(address, size, value),
        }
    }

    pub(super) fn global_load(&mut self, address: u64, size: usize) -> Result<u128> {
        if !address.is_multiple_of(size.min(16) as u64) {
            return Err(ExecError::Misaligned { isa: self.isa, space: "global", address, size, offset: self.offset });
        }
        let fault =
            ExecError::Fault { isa: self.isa, space: "global", kind: "load", address, size, offset: self.offset };
        let bytes = self.global.slice(address, size).ok_or(fault)?;
        Ok(load(bytes, 0, size).unwrap_or(0))
    }

    pub(super) fn global_store(&mut self, address: u64, size: usize, value: u128) -> Result {
        if !address.is_multiple_of(size.min(16) as u64) {
            return Err(ExecError::Misaligned { isa: self.isa, space: "global", address, size, offset: self.offset });
        }
        let fault =
            ExecError::Fault { isa: self.isa, space: "global", kind: "store", address, size, offset: self.offset };
        let bytes = self.global.slice(address, size).ok_or(fault)?;
        store(bytes, 0, size, value);
        Ok(())
    }
}

/// Bytes moved by a memory access of size code `size` (0 U8, 1 S8, 2 U16, 3 S16, 4 32, 5 64, 6 128).
pub(crate) fn access_bytes(size: u64) -> usize {
    match size {
        0 | 1 => 1,
        2 | 3 => 2,
        4 => 4,
        5 => 8,
        _ => 16,
    }
}

/// Zero- or sign-extends a loaded value of size code `size` to 32 bits.
pub(super) fn extend(value: u64, size: u64) -> u64 {
    match size {
        0 => value & 0xff,
        1 => value as u8 as i8 as i32 as u32 as u64,
        2 => value & 0xffff,
        3 => value as u16 as i16 as i32 as u32 as u64,
        _ => value & 0xffff_ffff,
    }
}

/// LDC (both ISAs): `size` (0 U8, 1 S8, 2 U16, 3 S16, 4 a word, 5 two) at byte `index + offset` (within the
/// bank's 64 KiB) of bank `cb_bank` into registers from rd; a byte or half comes from the word that holds it,
/// extended.
pub(super) fn constant_load(lane: &mut Lane, cbufs: &ConstantBuffers, v: &View, index: u32) {
    let address = u64::from(index).wrapping_add(v.signed("offset") as u64) & 0xffff;
    let bank = v.get("cb_bank");
    let low = u64::from(cbufs.read_u32(bank, address & !3) >> (8 * (address & 3)));
    match v.get("size") {
        5 => lane.set_reg64(v.get("rd"), low | u64::from(cbufs.read_u32(bank, address + 4)) << 32),
        size => lane.set_reg(v.get("rd"), extend(low, size) as u32),
    }
}

pub(super) fn write_loaded(lane: &mut Lane, rd: u64, size: u64, value: u128) {
    match size {
        0..=4 => lane.set_reg(rd, extend(value as u64, size) as u32),
        _ => {
            for i in 0..access_bytes(size) / 4 {
                lane.set_reg(rd + i as u64, (value >> (32 * i)) as u32);
            }
        }
    }
}

pub(super) fn stored_value(lane: &Lane, rb: u64, size: u64) -> u128 {
    (0..access_bytes(size).div_ceil(4)).fold(0u128, |value, i| value | u128::from(lane.reg(rb + i as u64)) << (32 * i))
}

pub(super) fn atomic_op(op: u64, ty: u64, old: u64, b: u64) -> u64 {
    let signed = matches!(ty, 1 | 5);
    let wide = matches!(ty, 2 | 5 | 6);
    let as_signed = |x: u64| if wide { x as i64 } else { i64::from(x as u32 as i32) };
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    (match (op, ty) {
        (0, 4) => {
            let mode = float::HalfMode { ftz: false, sat: false, relu: false, bf16: false };
            let half = |shift: u32| {
                let (x, y) = ((old >> shift) as u16, (b >> shift) as u16);
                u64::from(float::half_arith(float::ArithOp::Add, x, y, 0, mode)) << shift
            };
            half(0) | half(16)
        }
        (0, 3) => {
            u64::from(float::add32(old as u32, b as u32, Mode { round: float::rounding(0), ftz: true, sat: false }))
        }
        // The H200's FP64 atomic add passes a NaN operand on as it is, signalling ones unquieted, the added
        // value's before the one in memory.
        (0, 6) => match [b, old].into_iter().find(|&x| f64::from_bits(x).is_nan()) {
            Some(nan) => nan,
            None => float::arith64(float::ArithOp::Add, [old, b, 0], [old, b, 0], float::rounding(0)),
        },
        (0, _) => old.wrapping_add(b),
        (1, _) if signed => as_signed(old).min(as_signed(b)) as u64,
        (1, _) => old.min(b),
        (2, _) if signed => as_signed(old).max(as_signed(b)) as u64,
        (2, _) => old.max(b),
        (3, _) => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        (4, _) => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        (5, _) => old & b,
        (6, _) => old | b,
        (7, _) => old ^ b,
        _ => b,
    }) & mask
}

/// A boolean operation of the `bop` fields: AND, OR, XOR.
pub(super) fn boolean(op: u64, x: bool, y: bool) -> bool {
    match op {
        0 => x && y,
        1 => x || y,
        _ => x != y,
    }
}

/// LOP3's three-input lookup table: bit `(a << 2 | b << 1 | c)` of `lut`, for each bit position, with a, b and c
/// weighted 0xf0, 0xcc and 0xaa.
pub(super) fn lop3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..8).fold(0u32, |result, index| {
        if lut >> index & 1 == 0 {
            return result;
        }
        let pick = |bit: u32, x: u32| if index >> bit & 1 != 0 { x } else { !x };
        result | pick(2, a) & pick(1, b) & pick(0, c)
    })
}

pub(super) fn find_leading_one(value: u32, signed: bool, shift_amount: bool) -> u32 {
    // Signed: the highest bit that differs from the sign bit.
    let value = if signed && (value as i32) < 0 { !value } else { value };
    match (value, shift_amount) {
        (0, _) => u32::MAX,
        (_, false) => 31 - value.leading_zeros(),
        (_, true) => value.leading_zeros(),
    }
}

/// BMSK: `width` ones from bit `position` up, both wrapped to 0-31 (.W) or clamped at 32.
pub(super) fn bit_mask(position: u32, width: u32, wrap: bool) -> u32 {
    let (position, width) = if wrap { (position & 31, width & 31) } else { (position.min(32), width.min(32)) };
    let mask = if width >= 32 { u32::MAX } else { (1u32 << width) - 1 };
    mask.checked_shl(position).unwrap_or(0)
}

/// SGXT: the low `bits` bits of value (wrapped to 0-31 or clamped at 32), sign- or zero-extended; 0 bits give 0.
pub(super) fn extend_low_bits(value: u32, bits: u32, wrap: bool, signed: bool) -> u32 {
    match if wrap { bits & 31 } else { bits.min(32) } {
        0 => 0,
        32.. => value,
        bits if signed => ((value << (32 - bits)) as i32 >> (32 - bits)) as u32,
        bits => value & ((1 << bits) - 1),
    }
}

/// P2R: predicate bits (bit i for P_i) into byte `byte` of a, where the mask's low byte has a bit set.
pub(super) fn predicates_into(a: u32, predicates: u32, mask: u32, byte: u64) -> u32 {
    let (shift, mask) = (8 * byte as u32, mask & 0xff);
    a & !(mask << shift) | (predicates & mask) << shift
}

/// R2P: (i, bit i of a's byte `byte`) for each of P0-P6 whose mask bit is set.
pub(super) fn predicates_from(a: u32, mask: u32, byte: u64) -> impl Iterator<Item = (u64, bool)> {
    let value = a >> (8 * byte);
    (0..7).filter(move |&i| mask >> i & 1 == 1).map(move |i| (i, value >> i & 1 == 1))
}

/// PRMT: picks bytes of the pair {c, a} (a is bytes 0-3) by the selector's nibbles, or by one of the modes.
pub(super) fn permute(a: u32, selector: u32, c: u32, mode: u64) -> u32 {
    let bytes = u64::from(c) << 32 | u64::from(a);
    let byte = |index: u32| (bytes >> (8 * (index & 7))) as u8;
    let sel = selector & 3;
    (0..4u32).fold(0u32, |result, i| {
        let value = match mode {
            0 => {
                let nibble = selector >> (4 * i) & 0xf;
                let value = byte(nibble);
                if nibble & 8 != 0 { if value & 0x80 != 0 { 0xff } else { 0 } } else { value }
            }
            1 => byte(sel + i),
            2 => byte(sel.wrapping_sub(i)),
            3 => byte(sel),
            4 => byte(i.max(sel)),
            5 => byte(i.min(sel)),
            _ => byte((sel & 1) * 2 + (i & 1)),
        };
        result | u32::from(value) << (8 * i)
    })
}

/// SHF: shifts the 64-bit pair {c, a} (c high) and keeps the low or the high word.
pub(super) fn funnel_shift(a: u32, amount: u32, c: u32, ty: u64, wrap: bool, right: bool, high: bool) -> u32 {
    // Types: 0/1 S64, 2/3 U64, 4/5 S32, 6/7 U32.
    let width = if ty >= 4 { 32 } else { 64 };
    let signed = matches!(ty, 0 | 1 | 4 | 5);
    let amount = if wrap { amount & (width - 1) } else { amount.min(width) };
    let pair = if signed { i128::from(c as i32) << 32 | i128::from(a) } else { i128::from(c) << 32 | i128::from(a) };
    let shifted = if right { pair >> amount } else { pair << amount };
    if high { (shifted >> 32) as u32 } else { shifted as u32 }
}

/// SHFL's source lane for lane `index`: b is the lane or offset (5 bits), c packs the clamp (4:0) and the
/// segment mask (12:8); modes IDX, UP, DOWN, BFLY. Returns the source lane (the lane itself when out of range)
/// and whether it was in range.
pub(super) fn shuffle_source(index: u32, b: u32, c: u32, mode: u64) -> (usize, bool) {
    let (clamp, segment) = (c & 31, c >> 8 & 31);
    let max_lane = (index & segment) | (clamp & !segment);
    let min_lane = index & segment;
    let (source, valid) = match mode {
        0 => {
            let j = min_lane | (b & !segment);
            (j as i32, j <= max_lane)
        }
        1 => {
            let j = index as i32 - b as i32;
            (j, j >= max_lane as i32)
        }
        2 => {
            let j = index + b;
            (j as i32, j <= max_lane)
        }
        _ => {
            let j = index ^ b;
            (j as i32, j <= max_lane)
        }
    };
    (if valid { source as usize } else { index as usize }, valid)
}

/// HSET2 (both ISAs' fields): each half all ones (1.0 with .BF) where its comparison of `a` and `b`, combined
/// with the predicate `ps`, holds.
pub(super) fn hset2(v: &crate::sass::text::View, a: [u16; 2], b: [u16; 2], ps: bool) -> u32 {
    let half = |i: usize| {
        let holds = super::float::compare(super::float::order16(a[i], b[i], v.flag("ftz")), v.get("cmp"));
        match (boolean(v.get("bop"), holds, ps), v.flag("bf")) {
            (true, true) => 0x3c00,
            (true, false) => 0xffff,
            _ => 0,
        }
    };
    half(1) << 16 | half(0)
}

/// FSWZADD of one lane (`sass::swizzle_add`): a and b with the signs of the lane's place in its quad (lane id & 3),
/// added with FADD's rounding and flushing. A swizzle that moves b alone is refused before it comes here.
pub(super) fn swizzle_add(isa: Isa, swizzle: u32, lane: &Lane, a: u32, b: u32, mode: Mode) -> u32 {
    let signs = QuadSigns::of_lane(isa, swizzle, lane.linear_id % 4);
    let (negate_a, negate_b) = signs.negations().unwrap_or_default();
    float::add32(a ^ u32::from(negate_a) << 31, b ^ u32::from(negate_b) << 31, mode)
}

/// SR_TID (special register 32): the thread's index packed, x in bits 15:0, y in 25:16, z in 31:26 (nouveau's
/// `handleEXTBF_RDSV` unpacks it so; Ryujinx packs it so).
pub(super) fn packed_thread_id(tid: [u32; 3]) -> u32 {
    tid[0] | tid[1] << 16 | tid[2] << 26
}
