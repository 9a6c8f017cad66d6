//! FPUnpackBase and its wrappers (bits to type, sign and real value), and NaN propagation (FPProcessNaN(s)).

use super::real::Real;
use super::{FpCr, FpExc, Fpsr, Width, fp_default_nan, fp_process_exception, ones};

/// `FPType`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FpType {
    Nonzero,
    Zero,
    Infinity,
    QNaN,
    SNaN,
}

impl FpType {
    pub fn is_nan(self) -> bool {
        matches!(self, FpType::QNaN | FpType::SNaN)
    }
}

/// `FPUnpackBase(fpval, fpcr)`: the operand's type, sign bit and the real number it denotes.
///
/// The value is signed for numbers and infinities, `2^1000000` in magnitude for infinities and 0.0 for NaNs, as in
/// the pseudocode (these values keep comparisons and conversions simple). Denormals are flushed to zero under FZ
/// (single, double: raises Input Denormal) or FZ16 (half: raises nothing). With AHP, a half's all-ones exponent is
/// an ordinary exponent.
pub fn fp_unpack_base(n: Width, fpval: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> (FpType, bool, Real) {
    let (e, f) = (n.e(), n.f());
    let fpval = fpval & n.mask();
    let sign = fpval >> (n.n() - 1) & 1 == 1;
    let exp = fpval >> f & ones(e);
    let frac = fpval & ones(f);

    let (fptype, value) = if exp == 0 {
        // Produce zero if value is zero or flush-to-zero is selected.
        let flush = if n == Width::H { fpcr.fz16 } else { fpcr.fz };
        if frac == 0 || flush {
            // A flushed half-precision denormal raises nothing; single and double raise Input Denormal.
            if frac != 0 && n != Width::H {
                fp_process_exception(FpExc::InputDenorm, fpsr);
            }
            (FpType::Zero, Real::ZERO)
        } else {
            // 2^minimum_exp * (frac * 2^-F)
            (FpType::Nonzero, Real::new(false, frac as u128, n.minimum_exp() - f as i64))
        }
    } else if exp == ones(e) && !(n == Width::H && fpcr.ahp) {
        // Infinity or NaN in IEEE format.
        if frac == 0 {
            (FpType::Infinity, Real::power_of_two(false, 1_000_000))
        } else {
            let fptype = if frac >> (f - 1) & 1 == 1 { FpType::QNaN } else { FpType::SNaN };
            (fptype, Real::ZERO)
        }
    } else {
        // 2^(exp - bias) * (1.0 + frac * 2^-F)
        (FpType::Nonzero, Real::new(false, (1u128 << f) + frac as u128, exp as i64 - n.bias() - f as i64))
    };

    let value = if sign { -value } else { value };
    (fptype, sign, value)
}

/// `FPUnpack(fpval, fpcr)`: for data processing and integer/fixed-point conversions. Half precision ignores AHP
/// and observes FZ16.
pub fn fp_unpack(n: Width, fpval: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> (FpType, bool, Real) {
    let fpcr = FpCr { ahp: false, ..fpcr };
    fp_unpack_base(n, fpval, fpcr, fpsr)
}

/// `FPUnpackCV(fpval, fpcr)`: for conversions between floating-point formats. Half precision observes AHP and
/// is never flushed (FZ16 is ignored).
pub fn fp_unpack_cv(n: Width, fpval: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> (FpType, bool, Real) {
    let fpcr = FpCr { fz16: false, ..fpcr };
    fp_unpack_base(n, fpval, fpcr, fpsr)
}

/// `FPProcessNaN(fptype, op, fpcr)`: a signalling NaN is quietened (its top fraction bit set) and raises
/// Invalid Operation; with DN the result is the default NaN instead.
pub fn fp_process_nan(n: Width, fptype: FpType, op: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
    let topfrac = n.f() - 1;
    let mut result = op & n.mask();
    if fptype == FpType::SNaN {
        result |= 1 << topfrac;
        fp_process_exception(FpExc::InvalidOp, fpsr);
    }
    if fpcr.dn {
        // DefaultNaN requested.
        result = fp_default_nan(n);
    }
    result
}

/// `FPProcessNaNs(type1, type2, op1, op2, fpcr)`: `Some(result)` where the pseudocode returns `(TRUE, result)`.
///
/// Signalling NaNs come before quiet ones, and the first operand before the second.
pub fn fp_process_nans(
    n: Width,
    type1: FpType,
    type2: FpType,
    op1: u64,
    op2: u64,
    fpcr: FpCr,
    fpsr: &mut Fpsr,
) -> Option<u64> {
    if type1 == FpType::SNaN {
        Some(fp_process_nan(n, type1, op1, fpcr, fpsr))
    } else if type2 == FpType::SNaN {
        Some(fp_process_nan(n, type2, op2, fpcr, fpsr))
    } else if type1 == FpType::QNaN {
        Some(fp_process_nan(n, type1, op1, fpcr, fpsr))
    } else if type2 == FpType::QNaN {
        Some(fp_process_nan(n, type2, op2, fpcr, fpsr))
    } else {
        None
    }
}

/// `FPProcessNaNs3(type1, type2, type3, op1, op2, op3, fpcr)`: as `fp_process_nans`, over three operands.
#[allow(clippy::too_many_arguments)] // The pseudocode's parameters.
pub fn fp_process_nans3(
    n: Width,
    type1: FpType,
    type2: FpType,
    type3: FpType,
    op1: u64,
    op2: u64,
    op3: u64,
    fpcr: FpCr,
    fpsr: &mut Fpsr,
) -> Option<u64> {
    if type1 == FpType::SNaN {
        Some(fp_process_nan(n, type1, op1, fpcr, fpsr))
    } else if type2 == FpType::SNaN {
        Some(fp_process_nan(n, type2, op2, fpcr, fpsr))
    } else if type3 == FpType::SNaN {
        Some(fp_process_nan(n, type3, op3, fpcr, fpsr))
    } else if type1 == FpType::QNaN {
        Some(fp_process_nan(n, type1, op1, fpcr, fpsr))
    } else if type2 == FpType::QNaN {
        Some(fp_process_nan(n, type2, op2, fpcr, fpsr))
    } else if type3 == FpType::QNaN {
        Some(fp_process_nan(n, type3, op3, fpcr, fpsr))
    } else {
        None
    }
}
