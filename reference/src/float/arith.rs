//! Arithmetic: FPAdd, FPSub, FPMul, FPMulAdd (fused), FPMulX, FPDiv, FPSqrt, FPRecipStepFused, FPRSqrtStepFused.
//!
//! Each computes the exact real result (or, for FPDiv and FPSqrt, enough of it plus a sticky bit) and rounds it
//! once with `FPRound`.

use super::real::Real;
use super::round::fp_round;
use super::unpack::{FpType, fp_process_nan, fp_process_nans, fp_process_nans3, fp_unpack};
use super::{
    FpCr, FpExc, FpRounding, Fpsr, Width, fp_default_nan, fp_infinity, fp_neg, fp_one_point_five, fp_process_exception,
    fp_rounding_mode, fp_two, fp_zero,
};

/// The sign of an exact zero sum: `-0.0` only when rounding towards minus infinity.
fn exact_zero_sign(rounding: FpRounding) -> bool {
    rounding == FpRounding::NegInf
}

/// `FPAdd(op1, op2, fpcr)`.
pub fn fp_add(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let rounding = fp_rounding_mode(fpcr);
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if inf1 && inf2 && sign1 != sign2 {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        fp_default_nan(n)
    } else if (inf1 && !sign1) || (inf2 && !sign2) {
        fp_infinity(n, false)
    } else if (inf1 && sign1) || (inf2 && sign2) {
        fp_infinity(n, true)
    } else if zero1 && zero2 && sign1 == sign2 {
        fp_zero(n, sign1)
    } else {
        let result_value = value1.add(value2);
        if result_value.is_zero() {
            // Sign of exact zero result depends on rounding mode.
            fp_zero(n, exact_zero_sign(rounding))
        } else {
            fp_round(n, result_value, fpcr, rounding, fpsr)
        }
    }
}

/// `FPSub(op1, op2, fpcr)`.
pub fn fp_sub(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let rounding = fp_rounding_mode(fpcr);
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if inf1 && inf2 && sign1 == sign2 {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        fp_default_nan(n)
    } else if (inf1 && !sign1) || (inf2 && sign2) {
        fp_infinity(n, false)
    } else if (inf1 && sign1) || (inf2 && !sign2) {
        fp_infinity(n, true)
    } else if zero1 && zero2 && sign1 != sign2 {
        fp_zero(n, sign1)
    } else {
        let result_value = value1.sub(value2);
        if result_value.is_zero() {
            // Sign of exact zero result depends on rounding mode.
            fp_zero(n, exact_zero_sign(rounding))
        } else {
            fp_round(n, result_value, fpcr, rounding, fpsr)
        }
    }
}

/// `FPMul(op1, op2, fpcr)`.
pub fn fp_mul(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if (inf1 && zero2) || (zero1 && inf2) {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        fp_default_nan(n)
    } else if inf1 || inf2 {
        fp_infinity(n, sign1 != sign2)
    } else if zero1 || zero2 {
        fp_zero(n, sign1 != sign2)
    } else {
        fp_round(n, value1.mul(value2), fpcr, fp_rounding_mode(fpcr), fpsr)
    }
}

/// `FPMulAdd(addend, op1, op2, fpcr)`: `addend + op1 * op2` with a single rounding (FMADD, FMLA).
///
/// NaNs are chosen by FPProcessNaNs3 in the order addend, op1, op2; but `0 * inf + qNaN` is the default NaN with
/// Invalid Operation, since the product alone is invalid.
pub fn fp_mul_add(n: Width, addend: u64, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let rounding = fp_rounding_mode(fpcr);
    let (type_a, sign_a, value_a) = fp_unpack(n, addend, fpcr, fpsr);
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    let (inf1, zero1) = (type1 == FpType::Infinity, type1 == FpType::Zero);
    let (inf2, zero2) = (type2 == FpType::Infinity, type2 == FpType::Zero);
    let nans = fp_process_nans3(n, type_a, type1, type2, addend, op1, op2, fpcr, fpsr);

    if type_a == FpType::QNaN && ((inf1 && zero2) || (zero1 && inf2)) {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        return fp_default_nan(n);
    }
    if let Some(result) = nans {
        return result;
    }

    let (inf_a, zero_a) = (type_a == FpType::Infinity, type_a == FpType::Zero);

    // Determine sign and type product will have if it does not cause an Invalid Operation.
    let sign_p = sign1 != sign2;
    let inf_p = inf1 || inf2;
    let zero_p = zero1 || zero2;

    if (inf1 && zero2) || (zero1 && inf2) || (inf_a && inf_p && sign_a != sign_p) {
        // Non SNaN-generated Invalid Operation cases are multiplies of zero by infinity and additions of
        // opposite-signed infinities.
        fp_process_exception(FpExc::InvalidOp, fpsr);
        fp_default_nan(n)
    } else if (inf_a && !sign_a) || (inf_p && !sign_p) {
        // Other cases involving infinities produce an infinity of the same sign.
        fp_infinity(n, false)
    } else if (inf_a && sign_a) || (inf_p && sign_p) {
        fp_infinity(n, true)
    } else if zero_a && zero_p && sign_a == sign_p {
        // Cases where the result is exactly zero and its sign is not determined by the rounding mode are
        // additions of same-signed zeros.
        fp_zero(n, sign_a)
    } else {
        // Otherwise calculate numerical result and round it.
        let result_value = value_a.add(value1.mul(value2));
        if result_value.is_zero() {
            // Sign of exact zero result depends on rounding mode.
            fp_zero(n, exact_zero_sign(rounding))
        } else {
            fp_round(n, result_value, fpcr, rounding, fpsr)
        }
    }
}

/// `FPMulX(op1, op2, fpcr)`: FPMul, except that `0 * inf` is 2.0 with the product's sign (FMULX).
pub fn fp_mul_x(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if (inf1 && zero2) || (zero1 && inf2) {
        fp_two(n, sign1 != sign2)
    } else if inf1 || inf2 {
        fp_infinity(n, sign1 != sign2)
    } else if zero1 || zero2 {
        fp_zero(n, sign1 != sign2)
    } else {
        fp_round(n, value1.mul(value2), fpcr, fp_rounding_mode(fpcr), fpsr)
    }
}

/// `FPDiv(op1, op2, fpcr)`.
pub fn fp_div(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if (inf1 && inf2) || (zero1 && zero2) {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        fp_default_nan(n)
    } else if inf1 || zero2 {
        // Division by zero is signalled only for a finite dividend.
        if !inf1 {
            fp_process_exception(FpExc::DivideByZero, fpsr);
        }
        fp_infinity(n, sign1 != sign2)
    } else if zero1 || inf2 {
        fp_zero(n, sign1 != sign2)
    } else {
        fp_round(n, value1.div(value2), fpcr, fp_rounding_mode(fpcr), fpsr)
    }
}

/// `FPSqrt(op, fpcr)`.
pub fn fp_sqrt(n: Width, op: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (fptype, sign, value) = fp_unpack(n, op, fpcr, fpsr);
    match fptype {
        FpType::SNaN | FpType::QNaN => fp_process_nan(n, fptype, op, fpcr, fpsr),
        // The square root of -0.0 is -0.0.
        FpType::Zero => fp_zero(n, sign),
        FpType::Infinity if !sign => fp_infinity(n, sign),
        _ if sign => {
            fp_process_exception(FpExc::InvalidOp, fpsr);
            fp_default_nan(n)
        }
        _ => fp_round(n, value.sqrt(), fpcr, fp_rounding_mode(fpcr), fpsr),
    }
}

/// `FPRecipStepFused(op1, op2)`: `2.0 - op1 * op2` with a single rounding (FRECPS), reading the FPCR as `fpcr`.
///
/// As the pseudocode does, op1 is negated (FPNeg) before anything else, so a NaN first operand comes back with
/// its sign flipped. `0 * inf` gives 2.0 without an exception.
pub fn fp_recip_step_fused(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let rounding = fp_rounding_mode(fpcr);
    let op1 = fp_neg(n, op1);
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if (inf1 && zero2) || (zero1 && inf2) {
        fp_two(n, false)
    } else if inf1 || inf2 {
        fp_infinity(n, sign1 != sign2)
    } else {
        // Fully fused multiply-add.
        let result_value = Real::new(false, 2, 0).add(value1.mul(value2));
        if result_value.is_zero() {
            // Sign of exact zero result depends on rounding mode.
            fp_zero(n, exact_zero_sign(rounding))
        } else {
            fp_round(n, result_value, fpcr, rounding, fpsr)
        }
    }
}

/// `FPRSqrtStepFused(op1, op2)`: `(3.0 - op1 * op2) / 2.0` with a single rounding (FRSQRTS), reading the FPCR as
/// `fpcr`.
///
/// As in FPRecipStepFused, op1 is negated first (NaNs included). `0 * inf` gives 1.5 without an exception.
pub fn fp_rsqrt_step_fused(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let rounding = fp_rounding_mode(fpcr);
    let op1 = fp_neg(n, op1);
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (inf1, inf2) = (type1 == FpType::Infinity, type2 == FpType::Infinity);
    let (zero1, zero2) = (type1 == FpType::Zero, type2 == FpType::Zero);
    if (inf1 && zero2) || (zero1 && inf2) {
        fp_one_point_five(n, false)
    } else if inf1 || inf2 {
        fp_infinity(n, sign1 != sign2)
    } else {
        // Fully fused multiply-add and halve.
        let result_value = Real::new(false, 3, 0).add(value1.mul(value2)).scale(-1);
        if result_value.is_zero() {
            // Sign of exact zero result depends on rounding mode.
            fp_zero(n, exact_zero_sign(rounding))
        } else {
            fp_round(n, result_value, fpcr, rounding, fpsr)
        }
    }
}
