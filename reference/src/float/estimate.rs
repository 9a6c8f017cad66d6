//! Estimates: FPRecipEstimate (FRECPE), FPRSqrtEstimate (FRSQRTE), FPRecpX (FRECPX), and the integer
//! UnsignedRecipEstimate (URECPE) and UnsignedRSqrtEstimate (URSQRTE), all built on the manual's 8-bit tables
//! RecipEstimate and RecipSqrtEstimate.
//!
//! These are bit manipulations, not roundings: the manual defines the exact result bits.

use super::unpack::{FpType, fp_process_nan, fp_unpack};
use super::{
    FpCr, FpExc, FpRounding, Fpsr, Width, fp_default_nan, fp_infinity, fp_max_normal, fp_process_exception,
    fp_rounding_mode, fp_zero, ones, pack,
};

/// `RecipEstimate(a)`: for `a` in 256..512, a 9-bit fixed-point number in [0.5, 1.0), the reciprocal in 256..512,
/// meaning [1.0, 2.0). Other inputs are outside the pseudocode's domain (it asserts); they are clamped into it.
#[allow(clippy::manual_div_ceil)] // The pseudocode's `(b+1) DIV 2`, a rounding to nearest.
pub fn recip_estimate(a: u32) -> u32 {
    let a = a.clamp(256, 511);
    // Round to nearest.
    let a = a * 2 + 1;
    let b = (1 << 19) / a;
    // Round to nearest.
    (b + 1) / 2
}

/// `RecipSqrtEstimate(a)`: for `a` in 128..512, a 9-bit fixed-point number in [0.25, 1.0), the reciprocal square
/// root in 256..512, meaning [1.0, 2.0). Other inputs are clamped into the domain.
#[allow(clippy::manual_div_ceil)] // The pseudocode's `(b+1) DIV 2`, a rounding to nearest.
pub fn recip_sqrt_estimate(a: u32) -> u32 {
    let a = a.clamp(128, 511);
    let a = if a < 256 {
        // 0.25 .. 0.5: a in units of 1/512, rounded to nearest.
        a * 2 + 1
    } else {
        // 0.5 .. 1.0: discard the bottom bit, a in units of 1/256 rounded to nearest.
        let a = (a >> 1) << 1;
        (a + 1) * 2
    };
    // b = the largest b such that b < 2^14 / sqrt(a).
    let mut b: u64 = 512;
    while a as u64 * (b + 1) * (b + 1) < 1 << 28 {
        b += 1;
    }
    // Round to nearest.
    ((b + 1) / 2) as u32
}

/// The operand's fraction and biased exponent, the fraction widened to 52 bits (a double's) as the estimates use it.
fn fraction_and_exp(n: Width, operand: u64) -> (u64, i64) {
    let fraction = (operand & ones(n.f())) << (52 - n.f());
    let exp = (operand >> n.f() & ones(n.e())) as i64;
    (fraction, exp)
}

/// `FPRecipEstimate(operand, fpcr)`: FRECPE, an estimate of 1/operand good to about 8 bits.
pub fn fp_recip_estimate(n: Width, operand: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let operand = operand & n.mask();
    let (fptype, sign, value) = fp_unpack(n, operand, fpcr, fpsr);
    let flush = if n == Width::H { fpcr.fz16 } else { fpcr.fz };
    // The magnitude's exponent, for the two range tests below.
    let exponent = if value.is_zero() { 0 } else { value.abs().exponent() };

    match fptype {
        FpType::SNaN | FpType::QNaN => fp_process_nan(n, fptype, operand, fpcr, fpsr),
        FpType::Infinity => fp_zero(n, sign),
        FpType::Zero => {
            fp_process_exception(FpExc::DivideByZero, fpsr);
            fp_infinity(n, sign)
        }
        // Abs(value) < 2^-16 (H), 2^-128 (S), 2^-1024 (D): the reciprocal overflows.
        _ if exponent < n.minimum_exp() - 2 => {
            let overflow_to_inf = match fp_rounding_mode(fpcr) {
                FpRounding::TieEven => true,
                FpRounding::PosInf => !sign,
                FpRounding::NegInf => sign,
                _ => false,
            };
            fp_process_exception(FpExc::Overflow, fpsr);
            fp_process_exception(FpExc::Inexact, fpsr);
            if overflow_to_inf { fp_infinity(n, sign) } else { fp_max_normal(n, sign) }
        }
        // Abs(value) >= 2^14 (H), 2^126 (S), 2^1022 (D) under flush-to-zero: the result would be denormal, so it
        // is flushed to zero of correct sign (UFC, and no Inexact).
        _ if flush && exponent >= -n.minimum_exp() => {
            fpsr.0 |= Fpsr::UFC;
            fp_zero(n, sign)
        }
        _ => {
            // Scale to a fixed point value in the range 0.5 <= x < 1.0 in steps of 1/512, and calculate the result
            // exponent. The scaled value has the fraction of a double with exponent -1.
            let (mut fraction, mut exp) = fraction_and_exp(n, operand);
            if exp == 0 {
                if fraction >> 51 & 1 == 0 {
                    exp = -1;
                    fraction = (fraction & ones(50)) << 2;
                } else {
                    fraction = (fraction & ones(51)) << 1;
                }
            }

            let scaled = (1 << 8 | fraction >> 44 & 0xff) as u32;

            // 29 - exp (H), 253 - exp (S), 2045 - exp (D): in the range -1 .. 2^E - 2.
            let mut result_exp = 2 * n.bias() - 1 - exp;

            // `scaled` is in 256..511 for [0.5, 1.0); the estimate is in 256..511 for [1.0, 2.0).
            let estimate = recip_estimate(scaled);

            // Convert to a scaled floating-point result with copied sign bit, high-order bits from the estimate,
            // and the exponent calculated above (denormal when that is 0 or -1).
            let mut fraction = (estimate as u64 & 0xff) << 44;
            if result_exp == 0 {
                fraction = 1 << 51 | fraction >> 1;
            } else if result_exp == -1 {
                fraction = 1 << 50 | fraction >> 2;
                result_exp = 0;
            }
            pack(n, sign, result_exp as u64, fraction >> (52 - n.f()))
        }
    }
}

/// `FPRSqrtEstimate(operand, fpcr)`: FRSQRTE, an estimate of 1/sqrt(operand) good to about 8 bits.
pub fn fp_rsqrt_estimate(n: Width, operand: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let operand = operand & n.mask();
    let (fptype, sign, _) = fp_unpack(n, operand, fpcr, fpsr);

    match fptype {
        FpType::SNaN | FpType::QNaN => fp_process_nan(n, fptype, operand, fpcr, fpsr),
        FpType::Zero => {
            fp_process_exception(FpExc::DivideByZero, fpsr);
            fp_infinity(n, sign)
        }
        _ if sign => {
            fp_process_exception(FpExc::InvalidOp, fpsr);
            fp_default_nan(n)
        }
        FpType::Infinity => fp_zero(n, false),
        FpType::Nonzero => {
            // Scale to a fixed-point value in the range 0.25 <= x < 1.0 in steps of 1/512, with the evenness or
            // oddness of the exponent unchanged, and calculate the result exponent.
            let (mut fraction, mut exp) = fraction_and_exp(n, operand);
            if exp == 0 {
                // Normalise a denormal; the loop ends because a denormal's fraction is not zero.
                while fraction >> 51 & 1 == 0 && fraction != 0 {
                    fraction = (fraction & ones(51)) << 1;
                    exp -= 1;
                }
                fraction = (fraction & ones(51)) << 1;
            }

            let scaled = if exp & 1 == 0 {
                (1 << 8 | fraction >> 44 & 0xff) as u32
            } else {
                (1 << 7 | fraction >> 45 & 0x7f) as u32
            };

            // (44 - exp) DIV 2 (H), (380 - exp) DIV 2 (S), (3068 - exp) DIV 2 (D).
            let result_exp = (3 * n.bias() - 1 - exp).div_euclid(2);

            let estimate = recip_sqrt_estimate(scaled);

            // The estimate's high-order bits as the fraction, and the exponent calculated above.
            let fraction = (estimate as u64 & 0xff) << 44;
            pack(n, false, result_exp as u64, fraction >> (52 - n.f()))
        }
    }
}

/// `FPRecpX(op, fpcr)`: FRECPX, the reciprocal exponent: the exponent field inverted (the largest finite
/// exponent for zeros and denormals), fraction zero; NaNs are processed as usual.
pub fn fp_recp_x(n: Width, op: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let op = op & n.mask();
    let exp = op >> n.f() & ones(n.e());
    let max_exp = ones(n.e()) - 1;

    // Unpacked for its NaN type and its Input Denormal exception.
    let (fptype, sign, _) = fp_unpack(n, op, fpcr, fpsr);
    if fptype.is_nan() {
        fp_process_nan(n, fptype, op, fpcr, fpsr)
    } else if exp == 0 {
        // Zero and denormals.
        pack(n, sign, max_exp, 0)
    } else {
        // Infinities and normals.
        pack(n, sign, !exp & ones(n.e()), 0)
    }
}

/// `UnsignedRecipEstimate(operand)`: URECPE on a 32-bit fixed-point fraction (the binary point above bit 31).
pub fn unsigned_recip_estimate(operand: u32) -> u32 {
    if operand >> 31 == 0 {
        // Operands <= 0x7FFFFFFF produce 0xFFFFFFFF.
        u32::MAX
    } else {
        // operand<31:23> is in 256..511, [0.5, 1.0); the estimate is in 256..511, [1.0, 2.0).
        recip_estimate(operand >> 23) << 23
    }
}

/// `UnsignedRSqrtEstimate(operand)`: URSQRTE on a 32-bit fixed-point fraction (the binary point above bit 31).
pub fn unsigned_rsqrt_estimate(operand: u32) -> u32 {
    if operand >> 30 == 0 {
        // Operands <= 0x3FFFFFFF produce 0xFFFFFFFF.
        u32::MAX
    } else {
        // operand<31:23> is in 128..511, [0.25, 1.0); the estimate is in 256..511, [1.0, 2.0).
        recip_sqrt_estimate(operand >> 23) << 23
    }
}
