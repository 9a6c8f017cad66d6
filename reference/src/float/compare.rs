//! Comparisons: FPCompare (FCMP/FCMPE), FPCompareEQ/GE/GT (FCMEQ/GE/GT...), FPMax, FPMin, FPMaxNum, FPMinNum.
//!
//! All non-NaN cases are decided on the values FPUnpack produces, so -0.0 == +0.0 and a flushed denormal is a
//! zero.

use std::cmp::Ordering;

use super::round::fp_round;
use super::unpack::{FpType, fp_process_nans, fp_unpack};
use super::{FpCr, FpExc, Fpsr, Width, fp_infinity, fp_process_exception, fp_rounding_mode, fp_zero};

/// `FPCompare(op1, op2, signal_nans, fpcr)`: the NZCV nibble (bits 3..0 = N, Z, C, V) FCMP and FCMPE set.
///
/// Unordered is `0011`; equal `0110`; less than `1000`; greater than `0010`. A signalling NaN always raises
/// Invalid Operation; a quiet NaN only when `signal_nans` (FCMPE).
pub fn fp_compare(n: Width, op1: u64, op2: u64, signal_nans: bool, fpcr: FpCr, fpsr: &mut Fpsr) -> u32 {
    let (type1, _, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, _, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if type1.is_nan() || type2.is_nan() {
        if type1 == FpType::SNaN || type2 == FpType::SNaN || signal_nans {
            fp_process_exception(FpExc::InvalidOp, fpsr);
        }
        0b0011
    } else {
        match value1.compare(&value2) {
            Ordering::Equal => 0b0110,
            Ordering::Less => 0b1000,
            Ordering::Greater => 0b0010,
        }
    }
}

/// `FPCompareEQ(op1, op2, fpcr)`: false for NaNs; only a signalling NaN raises Invalid Operation.
pub fn fp_compare_eq(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> bool {
    let (type1, _, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, _, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if type1.is_nan() || type2.is_nan() {
        if type1 == FpType::SNaN || type2 == FpType::SNaN {
            fp_process_exception(FpExc::InvalidOp, fpsr);
        }
        false
    } else {
        value1.compare(&value2) == Ordering::Equal
    }
}

/// `FPCompareGE(op1, op2, fpcr)`: false for NaNs, which always raise Invalid Operation.
pub fn fp_compare_ge(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> bool {
    let (type1, _, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, _, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if type1.is_nan() || type2.is_nan() {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        false
    } else {
        value1.compare(&value2) != Ordering::Less
    }
}

/// `FPCompareGT(op1, op2, fpcr)`: false for NaNs, which always raise Invalid Operation.
pub fn fp_compare_gt(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> bool {
    let (type1, _, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, _, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if type1.is_nan() || type2.is_nan() {
        fp_process_exception(FpExc::InvalidOp, fpsr);
        false
    } else {
        value1.compare(&value2) == Ordering::Greater
    }
}

/// `FPMax(op1, op2, fpcr)`: any NaN propagates (FPProcessNaNs); max(+0, -0) is +0.
pub fn fp_max(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (fptype, sign, value) =
        if value1.compare(&value2) == Ordering::Greater { (type1, sign1, value1) } else { (type2, sign2, value2) };
    match fptype {
        FpType::Infinity => fp_infinity(n, sign),
        // Use the most positive sign.
        FpType::Zero => fp_zero(n, sign1 && sign2),
        // FPRound re-encodes the value exactly (an unflushed denormal included).
        _ => fp_round(n, value, fpcr, fp_rounding_mode(fpcr), fpsr),
    }
}

/// `FPMin(op1, op2, fpcr)`: any NaN propagates (FPProcessNaNs); min(+0, -0) is -0.
pub fn fp_min(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, sign1, value1) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, sign2, value2) = fp_unpack(n, op2, fpcr, fpsr);
    if let Some(result) = fp_process_nans(n, type1, type2, op1, op2, fpcr, fpsr) {
        return result;
    }
    let (fptype, sign, value) =
        if value1.compare(&value2) == Ordering::Less { (type1, sign1, value1) } else { (type2, sign2, value2) };
    match fptype {
        FpType::Infinity => fp_infinity(n, sign),
        // Use the most negative sign.
        FpType::Zero => fp_zero(n, sign1 || sign2),
        _ => fp_round(n, value, fpcr, fp_rounding_mode(fpcr), fpsr),
    }
}

/// `FPMaxNum(op1, op2, fpcr)`: IEEE 754-2008 maxNum. A single quiet NaN is treated as -infinity, so the other
/// operand wins; two quiet NaNs, or any signalling NaN, propagate as in FPMax.
pub fn fp_max_num(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, _, _) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, _, _) = fp_unpack(n, op2, fpcr, fpsr);
    let (mut op1, mut op2) = (op1, op2);
    if type1 == FpType::QNaN && type2 != FpType::QNaN {
        op1 = fp_infinity(n, true);
    } else if type1 != FpType::QNaN && type2 == FpType::QNaN {
        op2 = fp_infinity(n, true);
    }
    fp_max(n, op1, op2, fpcr, fpsr)
}

/// `FPMinNum(op1, op2, fpcr)`: IEEE 754-2008 minNum. A single quiet NaN is treated as +infinity.
pub fn fp_min_num(n: Width, op1: u64, op2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let (type1, _, _) = fp_unpack(n, op1, fpcr, fpsr);
    let (type2, _, _) = fp_unpack(n, op2, fpcr, fpsr);
    let (mut op1, mut op2) = (op1, op2);
    if type1 == FpType::QNaN && type2 != FpType::QNaN {
        op1 = fp_infinity(n, false);
    } else if type1 != FpType::QNaN && type2 == FpType::QNaN {
        op2 = fp_infinity(n, false);
    }
    fp_min(n, op1, op2, fpcr, fpsr)
}
