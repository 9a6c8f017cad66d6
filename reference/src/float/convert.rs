//! Conversions: FPConvert and FPConvertNaN (between half, single and double, AHP included), FPToFixed and
//! FixedToFP (integers and fixed point), FPToFixedJS (FJCVTZS).

use super::real::{Real, RoundingError};
use super::round::{fp_round, fp_round_cv, round_up_integer};
use super::unpack::{FpType, fp_unpack, fp_unpack_cv};
use super::{FpCr, FpExc, FpRounding, Fpsr, Width, fp_default_nan, fp_infinity, fp_process_exception, fp_zero, ones};

/// `FPConvert(op, fpcr, rounding)`: the width-`n` value `op` as a width-`m` value (FCVT, FCVTN, FCVTL, FCVTXN).
///
/// Half precision follows AHP on both sides and is never flushed. Converting to alternative half precision, NaNs
/// become zeros and infinities the largest magnitude, both with Invalid Operation. Otherwise a NaN keeps its sign
/// and the top of its payload and is quietened (a signalling NaN raises Invalid Operation), unless DN.
pub fn fp_convert(m: Width, n: Width, op: u64, fpcr: FpCr, rounding: FpRounding, fpsr: &mut Fpsr) -> u64 {
    // Unpack floating-point operand optionally with flush-to-zero.
    let (fptype, sign, value) = fp_unpack_cv(n, op, fpcr, fpsr);

    let alt_hp = m == Width::H && fpcr.ahp;

    match fptype {
        FpType::SNaN | FpType::QNaN => {
            let result = if alt_hp {
                fp_zero(m, sign)
            } else if fpcr.dn {
                fp_default_nan(m)
            } else {
                fp_convert_nan(m, n, op)
            };
            if fptype == FpType::SNaN || alt_hp {
                fp_process_exception(FpExc::InvalidOp, fpsr);
            }
            result
        }
        FpType::Infinity => {
            if alt_hp {
                fp_process_exception(FpExc::InvalidOp, fpsr);
                (sign as u64) << 15 | ones(15)
            } else {
                fp_infinity(m, sign)
            }
        }
        FpType::Zero => fp_zero(m, sign),
        FpType::Nonzero => fp_round_cv(m, value, fpcr, rounding, fpsr),
    }
}

/// `FPConvertNaN(op)`: the width-`n` NaN `op` as a width-`m` quiet NaN with the same sign and the top of its
/// payload (zeros appended when widening).
pub fn fp_convert_nan(m: Width, n: Width, op: u64) -> u64 {
    let sign = op >> (n.n() - 1) & 1;
    // The payload below the quiet bit, as 51 bits.
    let frac = (op & ones(n.f() - 1)) << (52 - n.f());
    // Repack the payload into the output NaN, with the quiet bit set (an SNaN becomes a QNaN).
    sign << (m.n() - 1) | ones(m.e() + 1) << (m.f() - 1) | frac >> (52 - m.f())
}

/// `FPToFixed(op, fbits, unsigned, fpcr, rounding)`: the width-`n` value `op` times `2^fbits`, rounded, as an
/// `m`-bit integer (`FCVT{N,P,M,Z,A}{S,U}`, fixed point included).
///
/// Out-of-range results saturate with Invalid Operation (and no Inexact); NaNs give 0 with Invalid Operation.
#[allow(clippy::too_many_arguments)] // The pseudocode's parameters.
pub fn fp_to_fixed(
    m: Width,
    n: Width,
    op: u64,
    fbits: u32,
    unsigned: bool,
    fpcr: FpCr,
    rounding: FpRounding,
    fpsr: &mut Fpsr,
) -> u64 {
    // Unpack using fpcr to determine if subnormals are flushed-to-zero.
    let (fptype, _, value) = fp_unpack(n, op, fpcr, fpsr);

    // If NaN, set cumulative flag (the value is 0.0).
    if fptype.is_nan() {
        fp_process_exception(FpExc::InvalidOp, fpsr);
    }

    // Scale by fractional bits and produce integer rounded towards minus-infinity.
    let value = value.scale(fbits as i64);
    let (mut int_result, error) = value.round_down();
    if round_up_integer(rounding, int_result, error) {
        int_result = int_result.plus_one();
    }

    // Generate saturated result and exceptions.
    let (result, overflow) = sat_q(int_result.to_i128_saturating(), m, unsigned);
    if overflow {
        fp_process_exception(FpExc::InvalidOp, fpsr);
    } else if error != RoundingError::Zero {
        fp_process_exception(FpExc::Inexact, fpsr);
    }
    result
}

/// `SatQ(i, N, unsigned)`: `i` saturated to an `n`-bit unsigned or signed integer, and whether it saturated.
fn sat_q(i: i128, n: Width, unsigned: bool) -> (u64, bool) {
    let bits = n.n();
    let (max, min) =
        if unsigned { ((1i128 << bits) - 1, 0) } else { ((1i128 << (bits - 1)) - 1, -(1i128 << (bits - 1))) };
    let (value, saturated) = if i > max {
        (max, true)
    } else if i < min {
        (min, true)
    } else {
        (i, false)
    };
    (value as u64 & n.mask(), saturated)
}

/// `FixedToFP(op, fbits, unsigned, fpcr, rounding)`: the `m`-bit integer `op` divided by `2^fbits`, rounded to
/// width `n` (SCVTF, UCVTF).
#[allow(clippy::too_many_arguments)] // The pseudocode's parameters.
pub fn fixed_to_fp(
    n: Width,
    m: Width,
    op: u64,
    fbits: u32,
    unsigned: bool,
    fpcr: FpCr,
    rounding: FpRounding,
    fpsr: &mut Fpsr,
) -> u64 {
    // Correct signed-ness.
    let op = op & m.mask();
    let int_operand = if unsigned || op >> (m.n() - 1) == 0 { op as i128 } else { op as i128 - (1i128 << m.n()) };

    // Scale by fractional bits and generate a real value.
    let real_operand = Real::from_i128(int_operand).scale(-(fbits as i64));

    if real_operand.is_zero() { fp_zero(n, false) } else { fp_round(n, real_operand, fpcr, rounding, fpsr) }
}

/// `FPToFixedJS(op, fpcr, Is64)`: FJCVTZS, a double to a 32-bit integer as JavaScript's ToInt32 does it: rounded
/// towards zero and taken modulo 2^32. Returns the result and the Z flag, which is set only when the conversion
/// was exact and in range and the operand was not -0.0 (nor a flushed denormal).
pub fn fp_to_fixed_js(op: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> (u32, bool) {
    // Unpack using fpcr to determine if subnormals are flushed-to-zero.
    let (fptype, sign, value) = fp_unpack(Width::D, op, fpcr, fpsr);

    let mut z = true;
    // If NaN, set cumulative flag.
    if fptype.is_nan() {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        z = false;
    }

    let (mut int_result, error) = value.round_down();

    // Round towards zero.
    if error != RoundingError::Zero && int_result.is_negative() {
        int_result = int_result.plus_one();
    }

    // result = int_result modulo 2^32 (two's complement), its low 32 bits.
    let int_value = int_result.to_i128_saturating();
    let mut result = int_value as u32;

    // Generate exceptions.
    if !(-(1i128 << 31)..(1i128 << 31)).contains(&int_value) {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        z = false;
    } else if error != RoundingError::Zero {
        fp_process_exception(FpExc::Inexact, fpsr);
        z = false;
    } else if value.is_zero() && (sign || op & ones(52) != 0) {
        // The pseudocode's two cases: -0.0 (or a negative flushed denormal), and a positive flushed denormal.
        z = false;
    }

    if fptype == FpType::Infinity {
        result = 0;
    }

    (result, z)
}
