//! Shared functions of the Arm ARM pseudocode (J1, "Shared pseudocode"), under their manual names in snake case.
//!
//! Bit vectors are `u64` values holding `n` significant bits (`n` <= 64); bits above `n` are zero on return. SIMD&FP
//! register values are `u128` (the pseudocode's `bits(128)`), element 0 in the least significant bits.

use crate::state::Flags;

/// `Ones(n)`.
pub fn ones(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// `Ones(n)` for a SIMD&FP value (`n` up to 128).
pub fn ones128(n: u32) -> u128 {
    if n >= 128 { u128::MAX } else { (1u128 << n) - 1 }
}

/// `SignExtend(x<bits-1:0>, 64)`.
pub fn sign_extend(x: u64, bits: u32) -> u64 {
    let shift = 64 - bits;
    (((x << shift) as i64) >> shift) as u64
}

/// The register or memory element size in bits for the usual `sf` bit.
pub fn datasize(sf: u32) -> u32 {
    if sf == 1 { 64 } else { 32 }
}

/// `ROR(x, shift)` on an `n`-bit value.
pub fn ror(x: u64, shift: u32, n: u32) -> u64 {
    let shift = shift % n;
    if shift == 0 { x & ones(n) } else { ((x >> shift) | (x << (n - shift))) & ones(n) }
}

/// `Replicate(x<esize-1:0>)` to fill `n` bits.
pub fn replicate(x: u64, esize: u32, n: u32) -> u64 {
    let mut result = 0;
    let mut position = 0;
    while position < n {
        result |= (x & ones(esize)) << position;
        position += esize;
    }
    result & ones(n)
}

/// `HighestSetBit(x)` of a `bits`-wide value, or `None` when x is zero (the pseudocode's -1).
pub fn highest_set_bit(x: u64) -> Option<u32> {
    if x == 0 { None } else { Some(63 - x.leading_zeros()) }
}

/// `AddWithCarry(x, y, carry_in)` on `n`-bit operands: the result and the NZCV it produces.
pub fn add_with_carry(x: u64, y: u64, carry_in: bool, n: u32) -> (u64, Flags) {
    let x = x & ones(n);
    let y = y & ones(n);
    let carry = carry_in as u128;
    let unsigned_sum = x as u128 + y as u128 + carry;
    let signed_sum = sign_extend(x, n) as i64 as i128 + sign_extend(y, n) as i64 as i128 + carry as i128;
    let result = (unsigned_sum as u64) & ones(n);
    let flags = Flags {
        n: result >> (n - 1) & 1 == 1,
        z: result == 0,
        c: result as u128 != unsigned_sum,
        v: sign_extend(result, n) as i64 as i128 != signed_sum,
    };
    (result, flags)
}

/// `ConditionHolds(cond)`.
pub fn condition_holds(cond: u32, flags: Flags) -> bool {
    let result = match cond >> 1 {
        0b000 => flags.z,
        0b001 => flags.c,
        0b010 => flags.n,
        0b011 => flags.v,
        0b100 => flags.c && !flags.z,
        0b101 => flags.n == flags.v,
        0b110 => flags.n == flags.v && !flags.z,
        _ => true,
    };
    // cond<0> inverts, except for 1111 which is "always" like 1110.
    if cond & 1 == 1 && cond != 0b1111 { !result } else { result }
}

/// `DecodeBitMasks(immN, imms, immr, immediate, M)`: `None` where the pseudocode says UNDEFINED.
pub fn decode_bit_masks(imm_n: u32, imms: u32, immr: u32, immediate: bool, m: u32) -> Option<(u64, u64)> {
    // Compute log2 of the element size; 2^len must be in the range [2, M].
    let len = highest_set_bit(u64::from(imm_n << 6 | (!imms & 0x3f)))?;
    if len < 1 || (1u32 << len) > m {
        return None;
    }
    let levels = ones(len) as u32;
    // For logical immediates an all-ones value of S is reserved since it would generate a useless all-ones result.
    if immediate && imms & levels == levels {
        return None;
    }
    let s = imms & levels;
    let r = immr & levels;
    let diff = s.wrapping_sub(r) & levels;
    let esize = 1u32 << len;
    let d = diff & levels;
    let welem = ones(s + 1);
    let telem = ones(d + 1);
    let wmask = replicate(ror(welem, r, esize), esize, m);
    let tmask = replicate(telem, esize, m);
    Some((wmask, tmask))
}

/// The shift types of `DecodeShift`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ShiftType {
    Lsl,
    Lsr,
    Asr,
    Ror,
}

impl ShiftType {
    /// `DecodeShift(op)`.
    pub fn decode(op: u32) -> ShiftType {
        match op & 3 {
            0 => ShiftType::Lsl,
            1 => ShiftType::Lsr,
            2 => ShiftType::Asr,
            _ => ShiftType::Ror,
        }
    }
}

/// `ShiftReg` on an `n`-bit value (the register read is the caller's).
pub fn shift_reg(value: u64, shift_type: ShiftType, amount: u32, n: u32) -> u64 {
    let value = value & ones(n);
    match shift_type {
        ShiftType::Lsl => value.checked_shl(amount).unwrap_or(0) & ones(n),
        ShiftType::Lsr => value.checked_shr(amount).unwrap_or(0),
        ShiftType::Asr => {
            let signed = sign_extend(value, n) as i64;
            (signed >> amount.min(63)) as u64 & ones(n)
        }
        ShiftType::Ror => ror(value, amount, n),
    }
}

/// The extend types of `DecodeRegExtend`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ExtendType {
    Uxtb,
    Uxth,
    Uxtw,
    Uxtx,
    Sxtb,
    Sxth,
    Sxtw,
    Sxtx,
}

impl ExtendType {
    /// `DecodeRegExtend(op)`.
    pub fn decode(op: u32) -> ExtendType {
        match op & 7 {
            0 => ExtendType::Uxtb,
            1 => ExtendType::Uxth,
            2 => ExtendType::Uxtw,
            3 => ExtendType::Uxtx,
            4 => ExtendType::Sxtb,
            5 => ExtendType::Sxth,
            6 => ExtendType::Sxtw,
            _ => ExtendType::Sxtx,
        }
    }

    fn is_unsigned(self) -> bool {
        matches!(self, ExtendType::Uxtb | ExtendType::Uxth | ExtendType::Uxtw | ExtendType::Uxtx)
    }

    fn len(self) -> u32 {
        match self {
            ExtendType::Uxtb | ExtendType::Sxtb => 8,
            ExtendType::Uxth | ExtendType::Sxth => 16,
            ExtendType::Uxtw | ExtendType::Sxtw => 32,
            ExtendType::Uxtx | ExtendType::Sxtx => 64,
        }
    }
}

/// `ExtendReg(reg, exttype, shift, N)` with the register already read as 64 bits.
pub fn extend_reg(value: u64, extend_type: ExtendType, shift: u32, n: u32) -> u64 {
    debug_assert!(shift <= 4);
    let len = extend_type.len().min(n - shift);
    let value = value & ones(len);
    let extended = if extend_type.is_unsigned() { value } else { sign_extend(value, len) };
    (extended << shift) & ones(n)
}

/// `CountLeadingZeroBits(x)` of an `n`-bit value.
pub fn count_leading_zero_bits(x: u64, n: u32) -> u32 {
    match highest_set_bit(x & ones(n)) {
        Some(bit) => n - 1 - bit,
        None => n,
    }
}

/// `CountLeadingSignBits(x)` of an `n`-bit value.
pub fn count_leading_sign_bits(x: u64, n: u32) -> u32 {
    let x = x & ones(n);
    count_leading_zero_bits((x >> 1) ^ (x & ones(n - 1)), n - 1)
}

/// `BitReverse(x<n-1:0>)`.
pub fn bit_reverse(x: u64, n: u32) -> u64 {
    (x & ones(n)).reverse_bits() >> (64 - n)
}

/// `Poly32Mod2(data<n-1:0>, poly<31:0>)`: the remainder of polynomial division over GF(2), for CRC32.
pub fn poly32_mod2(data: u128, poly: u32, n: u32) -> u32 {
    let mut data = data;
    let poly = u128::from(poly);
    for i in (32..n).rev() {
        if data >> i & 1 == 1 {
            data ^= poly << (i - 32);
        }
    }
    data as u32
}

/// `LowestSetBit(x)` of a `bits`-wide value, or `None` when x is zero (the pseudocode's `bits`).
pub fn lowest_set_bit(x: u64) -> Option<u32> {
    if x == 0 { None } else { Some(x.trailing_zeros()) }
}

/// `Elem[vector, e, size]` read: element `e` of `esize` bits (8, 16, 32 or 64).
pub fn elem(vector: u128, e: u32, esize: u32) -> u64 {
    (vector >> (e * esize)) as u64 & ones(esize)
}

/// `Elem[vector, e, size] = value`: replaces element `e` of `esize` bits, leaving the others.
pub fn set_elem(vector: &mut u128, e: u32, esize: u32, value: u64) {
    let mask = u128::from(ones(esize)) << (e * esize);
    *vector = (*vector & !mask) | (u128::from(value & ones(esize)) << (e * esize));
}

/// `Int(x<n-1:0>, unsigned)`: an element as an integer, zero- or sign-extended. The pseudocode's unbounded
/// `integer` is `i128` in the Advanced SIMD operations: wide enough for every sum, difference and product of
/// elements they form (products of 64-bit elements only occur as polynomials, see `polynomial_mult`).
pub fn int(x: u64, n: u32, unsigned: bool) -> i128 {
    if unsigned { i128::from(x & ones(n)) } else { i128::from(sign_extend(x & ones(n), n) as i64) }
}

/// `SatQ(i, N, unsigned)`: `i` saturated to an `n`-bit (at most 64) unsigned (`UnsignedSatQ`) or signed
/// (`SignedSatQ`) integer, as bits, and whether it saturated.
pub fn sat_q(i: i128, n: u32, unsigned: bool) -> (u64, bool) {
    let (min, max) = if unsigned { (0, (1i128 << n) - 1) } else { (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1) };
    let result = i.clamp(min, max);
    (result as u64 & ones(n), result != i)
}

/// `PolynomialMult(op1<n-1:0>, op2<n-1:0>)`: the product of two polynomials over GF(2), `2n` bits (n at most 64).
pub fn polynomial_mult(op1: u64, op2: u64, n: u32) -> u128 {
    let extended_op2 = u128::from(op2 & ones(n));
    (0..n).filter(|&i| op1 >> i & 1 == 1).fold(0, |result, i| result ^ extended_op2 << i)
}

/// `Replicate(x<esize-1:0>)` to fill `n` bits of a SIMD&FP value (`n` up to 128).
pub fn replicate128(x: u64, esize: u32, n: u32) -> u128 {
    let mut result = 0;
    for e in 0..n / esize {
        set_elem(&mut result, e, esize, x);
    }
    result
}

/// `AdvSIMDExpandImm(op, cmode, imm8)`: the 64-bit pattern of MOVI, MVNI, ORR, BIC and FMOV (vector, immediate).
pub fn adv_simd_expand_imm(op: u32, cmode: u32, imm8: u32) -> u64 {
    let imm8 = u64::from(imm8 & 0xff);
    match cmode >> 1 {
        0b000 => replicate(imm8, 32, 64),
        0b001 => replicate(imm8 << 8, 32, 64),
        0b010 => replicate(imm8 << 16, 32, 64),
        0b011 => replicate(imm8 << 24, 32, 64),
        0b100 => replicate(imm8, 16, 64),
        0b101 => replicate(imm8 << 8, 16, 64),
        0b110 if cmode & 1 == 0 => replicate(imm8 << 8 | 0xff, 32, 64),
        0b110 => replicate(imm8 << 16 | 0xffff, 32, 64),
        _ => match (cmode & 1, op & 1) {
            (0, 0) => replicate(imm8, 8, 64),
            // Each bit of imm8 becomes a byte of ones or zeros, imm8<7> the most significant.
            (0, _) => (0..8).fold(0, |acc, bit| acc | (replicate(imm8 >> bit & 1, 1, 8) << (8 * bit))),
            (_, 0) => {
                let b6 = imm8 >> 6 & 1;
                let imm32 = (imm8 >> 7) << 31 | (b6 ^ 1) << 30 | replicate(b6, 1, 5) << 25 | (imm8 & 0x3f) << 19;
                replicate(imm32, 32, 64)
            }
            _ => {
                let b6 = imm8 >> 6 & 1;
                (imm8 >> 7) << 63 | (b6 ^ 1) << 62 | replicate(b6, 1, 8) << 54 | (imm8 & 0x3f) << 48
            }
        },
    }
}

/// `VFPExpandImm(imm8)` for an `n`-bit floating-point format (16, 32 or 64): FMOV's 8-bit immediates.
pub fn vfp_expand_imm(imm8: u32, n: u32) -> u64 {
    let imm8 = u64::from(imm8 & 0xff);
    let e = match n {
        16 => 5,
        32 => 8,
        _ => 11,
    };
    let f = n - e - 1;
    let sign = imm8 >> 7;
    let b6 = imm8 >> 6 & 1;
    let exp = (b6 ^ 1) << (e - 1) | replicate(b6, 1, e - 3) << 2 | (imm8 >> 4 & 3);
    let frac = (imm8 & 0xf) << (f - 4);
    sign << (n - 1) | exp << f | frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_with_carry_flags() {
        // 0x7fffffff + 1 overflows into the sign bit: N and V set.
        let (r, f) = add_with_carry(0x7fff_ffff, 1, false, 32);
        assert_eq!((r, f), (0x8000_0000, Flags { n: true, z: false, c: false, v: true }));
        // x - x (x + NOT(x) + 1) is zero with carry set.
        let (r, f) = add_with_carry(5, !5, true, 64);
        assert_eq!((r, f), (0, Flags { n: false, z: true, c: true, v: false }));
    }

    #[test]
    fn bit_masks_from_the_manual() {
        // ORR x0, xzr, #0x5555555555555555 encodes N=0 immr=0 imms=0b111100.
        assert_eq!(decode_bit_masks(0, 0b111100, 0, true, 64).unwrap().0, 0x5555_5555_5555_5555);
        // AND w0, w0, #0xff: N=0 immr=0 imms=0b000111.
        assert_eq!(decode_bit_masks(0, 0b000111, 0, true, 32).unwrap().0, 0xff);
        // imms all ones within the element is reserved.
        assert!(decode_bit_masks(1, 0b111111, 0, true, 64).is_none());
    }

    #[test]
    fn leading_bits() {
        assert_eq!(count_leading_zero_bits(1, 32), 31);
        assert_eq!(count_leading_sign_bits(u64::MAX, 64), 63);
        assert_eq!(count_leading_sign_bits(0x4000_0000, 32), 0);
    }

    #[test]
    fn adv_simd_expand_imm_from_the_manual() {
        // The cmode cases of AdvSIMDExpandImm, each with imm8 = 0xab (op = 0 unless noted).
        let cases: &[(u32, u32, u64)] = &[
            (0, 0b0000, 0x0000_00ab_0000_00ab), // MOVI 32-bit, LSL #0
            (0, 0b0010, 0x0000_ab00_0000_ab00), // LSL #8
            (0, 0b0100, 0x00ab_0000_00ab_0000), // LSL #16
            (0, 0b0110, 0xab00_0000_ab00_0000), // LSL #24
            (0, 0b1000, 0x00ab_00ab_00ab_00ab), // MOVI 16-bit, LSL #0
            (0, 0b1010, 0xab00_ab00_ab00_ab00), // LSL #8
            (0, 0b1100, 0x0000_abff_0000_abff), // MSL #8: shifting ones
            (0, 0b1101, 0x00ab_ffff_00ab_ffff), // MSL #16
            (0, 0b1110, 0xabab_abab_abab_abab), // MOVI 8-bit
            (1, 0b1110, 0xff00_ff00_ff00_ffff), // MOVI 64-bit: 0xab = 1010_1011, a byte per bit
            (0, 0b1111, 0xc158_0000_c158_0000), // FMOV single: 0xab is -13.5
            (1, 0b1111, 0xc02b_0000_0000_0000), // FMOV double: -13.5
        ];
        for &(op, cmode, expected) in cases {
            assert_eq!(adv_simd_expand_imm(op, cmode, 0xab), expected, "op {op} cmode {cmode:04b}");
        }
        // The odd cmodes of the shifted forms give the same pattern as the even ones (they select ORR/BIC).
        assert_eq!(adv_simd_expand_imm(1, 0b0011, 0x12), 0x0000_1200_0000_1200);
    }

    #[test]
    fn vfp_expand_imm_from_the_manual() {
        // imm8 = 0x70 is 1.0, 0x00 is 2.0, 0x7f is 1.9375, 0xf0 is -1.0 (the Arm ARM's table of FMOV immediates).
        assert_eq!(vfp_expand_imm(0x70, 32), 0x3f80_0000);
        assert_eq!(vfp_expand_imm(0x00, 32), 0x4000_0000);
        assert_eq!(vfp_expand_imm(0x7f, 64), 0x3fff_0000_0000_0000);
        assert_eq!(vfp_expand_imm(0xf0, 16), 0xbc00);
        // 0x40 is 0.125 (the smallest magnitude), 0x3f is 31.0 (the largest), 0x1f is 7.75.
        assert_eq!(vfp_expand_imm(0x40, 16), 0x3000);
        assert_eq!(vfp_expand_imm(0x3f, 32), 0x41f8_0000);
        assert_eq!(vfp_expand_imm(0x1f, 32), 0x40f8_0000);
    }

    #[test]
    fn integers_and_saturation() {
        assert_eq!(int(0x80, 8, false), -128);
        assert_eq!(int(0x80, 8, true), 128);
        assert_eq!(int(u64::MAX, 64, true), i128::from(u64::MAX));
        assert_eq!(sat_q(128, 8, false), (0x7f, true));
        assert_eq!(sat_q(-129, 8, false), (0x80, true));
        assert_eq!(sat_q(-1, 16, true), (0, true));
        assert_eq!(sat_q(-1, 16, false), (0xffff, false));
        assert_eq!(sat_q(i128::from(u64::MAX) + 1, 64, true), (u64::MAX, true));
    }

    #[test]
    fn polynomial_products() {
        // (x + 1)(x + 1) = x^2 + 1 over GF(2).
        assert_eq!(polynomial_mult(0b11, 0b11, 8), 0b101);
        assert_eq!(polynomial_mult(0xff, 0xff, 8), 0x5555);
        assert_eq!(polynomial_mult(u64::MAX, 2, 64), u128::from(u64::MAX) << 1);
    }

    #[test]
    fn elements() {
        let mut v = 0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100u128;
        assert_eq!(elem(v, 5, 8), 0x05);
        assert_eq!(elem(v, 1, 64), 0x0f0e_0d0c_0b0a_0908);
        set_elem(&mut v, 3, 16, 0xbeef);
        assert_eq!(v, 0x0f0e_0d0c_0b0a_0908_beef_0504_0302_0100);
        assert_eq!(replicate128(0x1234, 16, 64), 0x1234_1234_1234_1234);
        assert_eq!(replicate128(0xab, 8, 128), u128::MAX / 0xff * 0xab);
    }
}
