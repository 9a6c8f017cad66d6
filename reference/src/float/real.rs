//! The pseudocode's `real`: the numbers that unpacked operands denote and that arithmetic produces before
//! `FPRound` turns them back into bits.
//!
//! A `Real` is `±(mant + s)·2^exp` with `s = 0` when `sticky` is clear and some `0 < s < 1` when it is set.
//! - Exact (`sticky` clear): what FPUnpack makes (at most 53 significant bits), products of those (106 bits),
//!   scalings by powers of two and integers.
//! - Sticky where the exact value needs more bits: quotients and square roots (kept to 62 bits or more), and sums
//!   whose smaller operand reaches below the larger's 126-bit window (kept to over 120 bits).
//!
//! Why that is enough: `FPRound` needs `RoundDown(mantissa·2^F)` (at most 53 bits) and whether the rest,
//! `error`, is zero, below, at or above one half. Invariant: **when `sticky` is set, `mant >= 2^60`**, so the
//! unknown `s` sits at least 8 bits below the rounding point and the comparison is decided by `mant`'s bits.

use std::cmp::Ordering;

/// Exponents are kept within `±EXP_LIMIT`: far beyond every format's range (so clamping changes no rounding), and
/// small enough that exponent arithmetic cannot overflow.
const EXP_LIMIT: i64 = 1 << 40;

/// A real number as the pseudocode uses it (see the module documentation for the representation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Real {
    negative: bool,
    mant: u128,
    exp: i64,
    sticky: bool,
}

impl std::ops::Neg for Real {
    type Output = Real;

    fn neg(self) -> Real {
        Real { negative: !self.negative, ..self }
    }
}

/// How `error`, the part of a value below the integer the pseudocode rounds down to, compares with 0 and 1/2.
///
/// Ordered so that the pseudocode's tests read as written: `error > Half`, `error != Zero`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum RoundingError {
    Zero,
    BelowHalf,
    Half,
    AboveHalf,
}

/// The number of significant bits of `x` (0 for 0).
fn bit_length(x: u128) -> u32 {
    128 - x.leading_zeros()
}

/// `x >> shift` and whether any 1 bits were shifted out.
fn shift_right_sticky(x: u128, shift: u64) -> (u128, bool) {
    if shift == 0 {
        (x, false)
    } else if shift >= 128 {
        (0, x != 0)
    } else {
        (x >> shift, x & ((1u128 << shift) - 1) != 0)
    }
}

/// The integer square root of `x` and whether it was exact (digit-by-digit, two bits of `x` per result bit).
fn integer_sqrt(x: u128) -> (u128, bool) {
    let mut remainder = x;
    let mut root = 0u128;
    let mut bit = 1u128 << 126;
    while bit > remainder {
        bit >>= 2;
    }
    while bit != 0 {
        if remainder >= root + bit {
            remainder -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, remainder == 0)
}

impl Real {
    pub const ZERO: Real = Real { negative: false, mant: 0, exp: 0, sticky: false };

    /// `±mant·2^exp`, exactly.
    pub fn new(negative: bool, mant: u128, exp: i64) -> Real {
        Real { negative, mant, exp: exp.clamp(-EXP_LIMIT, EXP_LIMIT), sticky: false }
    }

    /// `±2.0^exp`.
    pub fn power_of_two(negative: bool, exp: i64) -> Real {
        Real::new(negative, 1, exp)
    }

    /// An integer, exactly.
    pub fn from_i128(value: i128) -> Real {
        Real::new(value < 0, value.unsigned_abs(), 0)
    }

    pub fn is_zero(&self) -> bool {
        self.mant == 0 && !self.sticky
    }

    /// True for values below zero (a zero may carry either sign; it compares equal to both).
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    pub fn abs(self) -> Real {
        Real { negative: false, ..self }
    }

    /// `self * 2.0^k`.
    pub fn scale(self, k: i64) -> Real {
        Real { exp: self.exp.saturating_add(k).clamp(-EXP_LIMIT, EXP_LIMIT), ..self }
    }

    /// The `exponent` of FPRoundBase for a non-zero value: `2^exponent <= Abs(self) < 2^(exponent+1)`.
    ///
    /// A sticky value lies strictly between `mant` and `mant + 1` units, so it has the exponent of `mant`.
    pub(crate) fn exponent(&self) -> i64 {
        self.exp + bit_length(self.mant) as i64 - 1
    }

    /// The same value with the top bit of `mant` at bit `top` (so `bit_length == top + 1`); bits shifted out to
    /// the right go to `sticky`, which the callers only allow where the module's invariant holds.
    fn with_top_bit_at(self, top: u32) -> Real {
        let length = bit_length(self.mant);
        if self.mant == 0 || length == top + 1 {
            self
        } else if length < top + 1 {
            let shift = top + 1 - length;
            Real { mant: self.mant << shift, exp: self.exp - shift as i64, ..self }
        } else {
            let shift = length - (top + 1);
            let (mant, lost) = shift_right_sticky(self.mant, shift as u64);
            Real { mant, exp: self.exp + shift as i64, sticky: self.sticky || lost, ..self }
        }
    }

    /// `self + other` for exact operands of at most 106 significant bits (a product of two significands).
    pub(crate) fn add(self, other: Real) -> Real {
        if other.is_zero() {
            return self;
        }
        if self.is_zero() {
            return other;
        }
        // Both with their top bit at 125: two bits of headroom for the carry of a sum.
        let a = self.with_top_bit_at(125);
        let b = other.with_top_bit_at(125);
        let (big, small) = if (a.exp, a.mant) >= (b.exp, b.mant) { (a, b) } else { (b, a) };
        let distance = big.exp.abs_diff(small.exp);
        // Aligned, `small` is `shifted + s` units of the larger's scale, with 0 < s < 1 when `lost`.
        let (shifted, lost) = shift_right_sticky(small.mant, distance);
        if big.negative == small.negative {
            Real { negative: big.negative, mant: big.mant + shifted, exp: big.exp, sticky: lost }
        } else {
            // big - (shifted + s) = (big - shifted - 1) + (1 - s), and 0 < 1 - s < 1. Bits are only lost when
            // `small` sits more than 20 bits below `big` (at most 106 bits, padded to 126), so the difference
            // keeps over 120 bits.
            let mant = big.mant - shifted - lost as u128;
            if mant == 0 && !lost {
                return Real::ZERO;
            }
            Real { negative: big.negative, mant, exp: big.exp, sticky: lost }
        }
    }

    /// `self - other`, for operands as `add` takes them.
    pub(crate) fn sub(self, other: Real) -> Real {
        self.add(-other)
    }

    /// `self * other` for exact operands; each is first cut to 64 significant bits, which loses nothing for
    /// unpacked values (at most 53).
    pub(crate) fn mul(self, other: Real) -> Real {
        let a = if bit_length(self.mant) > 64 { self.with_top_bit_at(63) } else { self };
        let b = if bit_length(other.mant) > 64 { other.with_top_bit_at(63) } else { other };
        Real {
            negative: a.negative != b.negative,
            mant: a.mant * b.mant,
            exp: a.exp + b.exp,
            sticky: a.sticky || b.sticky,
        }
    }

    /// `self / other` for exact operands with `other` non-zero and of at most 64 significant bits: a quotient of at
    /// least 62 bits, sticky when the remainder is not zero.
    pub(crate) fn div(self, other: Real) -> Real {
        let numerator = self.with_top_bit_at(126);
        let divisor = if bit_length(other.mant) > 64 { other.with_top_bit_at(63) } else { other };
        let negative = numerator.negative != divisor.negative;
        match (numerator.mant.checked_div(divisor.mant), numerator.mant.checked_rem(divisor.mant)) {
            (Some(quotient), Some(remainder)) => Real {
                negative,
                mant: quotient,
                exp: numerator.exp - divisor.exp,
                sticky: remainder != 0 || numerator.sticky,
            },
            // Division by zero: the callers handle zero divisors before dividing.
            _ => Real::ZERO,
        }
    }

    /// `Sqrt(self)` for an exact value >= 0: a root of at least 62 bits, sticky when the root is irrational.
    pub(crate) fn sqrt(self) -> Real {
        if self.is_zero() {
            return Real::ZERO;
        }
        // Put the top bit at 125 or 124 so that the exponent is even, then take the integer root.
        let mut a = self.with_top_bit_at(125);
        if a.exp % 2 != 0 {
            a = Real { mant: a.mant >> 1, exp: a.exp + 1, sticky: a.sticky || a.mant & 1 != 0, ..a };
        }
        let (root, exact) = integer_sqrt(a.mant);
        Real { negative: false, mant: root, exp: a.exp / 2, sticky: !exact || a.sticky }
    }

    /// The order of the values, for exact operands (a zero of either sign is 0.0).
    pub(crate) fn compare(&self, other: &Real) -> Ordering {
        let sign = |r: &Real| {
            if r.is_zero() {
                0
            } else if r.negative {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(self), sign(other));
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let magnitude = match self.exponent().cmp(&other.exponent()) {
            Ordering::Equal => {
                let (a, b) = (self.with_top_bit_at(127), other.with_top_bit_at(127));
                (a.mant, a.sticky).cmp(&(b.mant, b.sticky))
            }
            unequal => unequal,
        };
        if sa < 0 { magnitude.reverse() } else { magnitude }
    }

    /// `RoundDown(self)` (towards minus infinity) as an integer-valued `Real`, and how `error = self -
    /// RoundDown(self)` compares with 1/2. A sticky value must have its sticky part below the binary point
    /// (`exp < 0`), as every value FPRound rounds has.
    pub(crate) fn round_down(self) -> (Real, RoundingError) {
        if self.exp >= 0 {
            return (self, RoundingError::Zero);
        }
        // The integer part and the fraction `fraction/2^shift` of the magnitude (plus s/2^shift when sticky).
        let shift = self.exp.unsigned_abs();
        let (integer, fraction_bits_lost) = shift_right_sticky(self.mant, shift);
        let fraction = if shift >= 128 { self.mant } else { self.mant & ((1u128 << shift) - 1) };
        let half = if shift == 0 || shift > 128 { None } else { Some(1u128 << (shift - 1)) };
        let magnitude_error = if !fraction_bits_lost && !self.sticky {
            RoundingError::Zero
        } else {
            match half {
                // The magnitude's fraction is fraction + s units, 0 <= s < 1, compared with `half` units.
                Some(half) if fraction > half || (fraction == half && self.sticky) => RoundingError::AboveHalf,
                Some(half) if fraction == half => RoundingError::Half,
                _ => RoundingError::BelowHalf,
            }
        };
        if !self.negative || magnitude_error == RoundingError::Zero {
            return (Real::new(self.negative, integer, 0), magnitude_error);
        }
        // -(integer + fraction) = -(integer + 1) + (1 - fraction): the error mirrors around one half.
        let error = match magnitude_error {
            RoundingError::BelowHalf => RoundingError::AboveHalf,
            RoundingError::AboveHalf => RoundingError::BelowHalf,
            other => other,
        };
        (Real::new(true, integer + 1, 0), error)
    }

    /// An integer-valued `Real` as an `i128`, clamped to `±2^126`; the clamp changes no saturating conversion
    /// to 64 bits or less, and keeps the low 64 bits right (any larger integer an operand denotes is a multiple
    /// of 2^73).
    pub(crate) fn to_i128_saturating(self) -> i128 {
        let limit = 1u128 << 126;
        let magnitude = if self.mant == 0 {
            0
        } else if self.exp >= 0 {
            if self.exponent() >= 126 { limit } else { self.mant << self.exp }
        } else {
            shift_right_sticky(self.mant, self.exp.unsigned_abs()).0
        };
        let magnitude = magnitude.min(limit) as i128;
        if self.negative { -magnitude } else { magnitude }
    }

    /// `self + 1` for an integer-valued `Real` (`int_result + 1` in the pseudocode).
    pub(crate) fn plus_one(self) -> Real {
        self.add(Real::new(false, 1, 0))
    }
}
