//! Shared functions of the Arm ARM pseudocode (J1, "Shared pseudocode"), under their manual names in snake case.
//!
//! Bit vectors are `u64` values holding `n` significant bits (`n` <= 64); bits above `n` are zero on return.

use crate::state::Flags;

/// `Ones(n)`.
pub fn ones(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
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
}
