//! FPRoundBase and its wrappers (real number to bits), FPRoundInt and FPRoundIntN (round to an integral value).

use super::real::{Real, RoundingError};
use super::unpack::{FpType, fp_process_nan, fp_unpack};
use super::{
    FpCr, FpExc, FpRounding, Fpsr, Width, fp_infinity, fp_max_normal, fp_process_exception, fp_zero, ones, pack,
};

/// `FPRoundBase(op, fpcr, rounding)`: the one place where a real number becomes a floating-point value.
///
/// The pseudocode asserts `op != 0.0` and `rounding != FPRounding_TIEAWAY`; here a zero gives `FPZero` of its
/// sign and TIEAWAY rounds ties away from zero, so that no input can fail. `FPRounding_ODD` (FCVTXN) is the
/// pseudocode's.
pub fn fp_round_base(n: Width, op: Real, fpcr: FpCr, rounding: FpRounding, fpsr: &mut Fpsr) -> u64 {
    if op.is_zero() {
        return fp_zero(n, op.is_negative());
    }
    let (minimum_exp, e, f) = (n.minimum_exp(), n.e(), n.f());

    // Split value into sign, unrounded mantissa and exponent: 1.0 <= mantissa < 2.0.
    let sign = op.is_negative();
    let exponent = op.exponent();

    // Flush-to-zero happens on the unrounded value, sets UFC (never IXC) and takes no trap.
    let flush = if n == Width::H { fpcr.fz16 } else { fpcr.fz };
    if flush && exponent < minimum_exp {
        fpsr.0 |= Fpsr::UFC;
        return fp_zero(n, sign);
    }

    // Bias the exponent so that the minimum exponent becomes 1, lower values 0 (possible underflow), and get the
    // unrounded mantissa as an integer of F+1 bits (F bits when biased_exp == 0) with the rounding `error`.
    let mut biased_exp = (exponent - minimum_exp + 1).max(0);
    let lsb_exp = exponent.max(minimum_exp) - f as i64;
    let (int_mant, error) = op.abs().scale(-lsb_exp).round_down();
    let mut int_mant = int_mant.to_i128_saturating() as u64;

    // Underflow: tiny before rounding (biased_exp == 0) and inexact (no trap is ever enabled).
    if biased_exp == 0 && error != RoundingError::Zero {
        fp_process_exception(FpExc::Underflow, fpsr);
    }

    let (round_up, overflow_to_inf) = match rounding {
        FpRounding::TieEven => {
            (error > RoundingError::Half || (error == RoundingError::Half && int_mant & 1 == 1), true)
        }
        FpRounding::PosInf => (error != RoundingError::Zero && !sign, !sign),
        FpRounding::NegInf => (error != RoundingError::Zero && sign, sign),
        FpRounding::Zero | FpRounding::Odd => (false, false),
        // Outside the pseudocode (it asserts); ties away from zero, as FPRoundInt's TIEAWAY.
        FpRounding::TieAway => (error >= RoundingError::Half, true),
    };

    if round_up {
        int_mant += 1;
        if int_mant == 1 << f {
            // Rounded up from denormalized to normalized.
            biased_exp = 1;
        }
        if int_mant == 1 << (f + 1) {
            // Rounded up to the next exponent.
            biased_exp += 1;
            int_mant >>= 1;
        }
    }

    // Round to odd (von Neumann): an inexact result gets its lowest bit set.
    if error != RoundingError::Zero && rounding == FpRounding::Odd {
        int_mant |= 1;
    }

    let mut inexact = error != RoundingError::Zero;
    let result;
    if n != Width::H || !fpcr.ahp {
        // Single, double or IEEE half precision.
        if biased_exp >= (1 << e) - 1 {
            result = if overflow_to_inf { fp_infinity(n, sign) } else { fp_max_normal(n, sign) };
            fp_process_exception(FpExc::Overflow, fpsr);
            // Overflow is always inexact.
            inexact = true;
        } else {
            result = pack(n, sign, biased_exp as u64, int_mant);
        }
    } else {
        // Alternative half precision: no infinities, the largest exponent is a normal one, and overflow is an
        // Invalid Operation that saturates (and is not inexact).
        if biased_exp >= 1 << e {
            result = pack(n, sign, ones(e), ones(f));
            fp_process_exception(FpExc::InvalidOp, fpsr);
            inexact = false;
        } else {
            result = pack(n, sign, biased_exp as u64, int_mant);
        }
    }

    if inexact {
        fp_process_exception(FpExc::Inexact, fpsr);
    }
    result
}

/// `FPRound(op, fpcr, rounding)`: for data processing and integer/fixed-point conversions. Half precision ignores
/// AHP (always IEEE) and observes FZ16.
pub fn fp_round(n: Width, op: Real, fpcr: FpCr, rounding: FpRounding, fpsr: &mut Fpsr) -> u64 {
    let fpcr = FpCr { ahp: false, ..fpcr };
    fp_round_base(n, op, fpcr, rounding, fpsr)
}

/// `FPRoundCV(op, fpcr, rounding)`: for conversions between floating-point formats. Half precision observes
/// AHP and never flushes (FZ16 is ignored).
pub fn fp_round_cv(n: Width, op: Real, fpcr: FpCr, rounding: FpRounding, fpsr: &mut Fpsr) -> u64 {
    let fpcr = FpCr { fz16: false, ..fpcr };
    fp_round_base(n, op, fpcr, rounding, fpsr)
}

/// The `case rounding of ... round_up = ...` shared by FPRoundInt, FPRoundIntN, FPToFixed: whether
/// `int_result = RoundDown(value)` must be incremented, given `error = value - int_result`.
///
/// The pseudocode asserts `rounding != FPRounding_ODD` in these functions; here ODD picks whichever of the two
/// neighbouring integers is odd, so that no input can fail.
pub(crate) fn round_up_integer(rounding: FpRounding, int_result: Real, error: RoundingError) -> bool {
    let int_result_odd = int_result.to_i128_saturating() & 1 == 1;
    let int_result_negative = int_result.to_i128_saturating() < 0;
    match rounding {
        FpRounding::TieEven => error > RoundingError::Half || (error == RoundingError::Half && int_result_odd),
        FpRounding::PosInf => error != RoundingError::Zero,
        FpRounding::NegInf => false,
        FpRounding::Zero => error != RoundingError::Zero && int_result_negative,
        FpRounding::TieAway => error > RoundingError::Half || (error == RoundingError::Half && !int_result_negative),
        FpRounding::Odd => error != RoundingError::Zero && !int_result_odd,
    }
}

/// `FPRoundInt(op, fpcr, rounding, exact)`: FRINTN/P/M/Z/A/X/I. `exact` makes an inexact result raise Inexact.
pub fn fp_round_int(n: Width, op: u64, fpcr: FpCr, rounding: FpRounding, exact: bool, fpsr: &mut Fpsr) -> u64 {
    // Unpack using FPCR to determine if subnormals are flushed-to-zero.
    let (fptype, sign, value) = fp_unpack(n, op, fpcr, fpsr);

    match fptype {
        FpType::SNaN | FpType::QNaN => fp_process_nan(n, fptype, op, fpcr, fpsr),
        FpType::Infinity => fp_infinity(n, sign),
        FpType::Zero => fp_zero(n, sign),
        FpType::Nonzero => {
            // Extract the integer component and round it.
            let (mut int_result, error) = value.round_down();
            if round_up_integer(rounding, int_result, error) {
                int_result = int_result.plus_one();
            }

            // Re-encode as a floating-point value; the result is always exact, and a zero keeps the operand's
            // sign (-0.4 rounds to -0.0).
            let result = if int_result.is_zero() {
                fp_zero(n, sign)
            } else {
                fp_round(n, int_result, fpcr, FpRounding::Zero, fpsr)
            };

            if error != RoundingError::Zero && exact {
                fp_process_exception(FpExc::Inexact, fpsr);
            }
            result
        }
    }
}

/// `FPRoundIntN(op, fpcr, rounding, intsize)`: FRINT32Z/X, FRINT64Z/X (Armv8.5), for `intsize` = S (32) or D (64).
///
/// NaNs, infinities and results outside the `intsize`-bit signed range give the most negative such integer,
/// `-2^(intsize-1)`, and Invalid Operation (not Inexact). The pseudocode has no half-precision form; for `n` = H,
/// where `-2^(intsize-1)` does not fit, those cases give minus infinity.
pub fn fp_round_int_n(n: Width, op: u64, fpcr: FpCr, rounding: FpRounding, intsize: Width, fpsr: &mut Fpsr) -> u64 {
    let intsize_bits = intsize.n() as i64;
    // '1' : exp : Zeros(F) with exp = bias - 1 + intsize, i.e. -2^(intsize-1); a half cannot hold it.
    let exp = n.bias() - 1 + intsize_bits;
    let most_negative = if exp < ones(n.e()) as i64 { pack(n, true, exp as u64, 0) } else { fp_infinity(n, true) };

    // Unpack using FPCR to determine if subnormals are flushed-to-zero.
    let (fptype, sign, value) = fp_unpack(n, op, fpcr, fpsr);

    match fptype {
        FpType::SNaN | FpType::QNaN | FpType::Infinity => {
            fp_process_exception(FpExc::InvalidOp, fpsr);
            most_negative
        }
        FpType::Zero => fp_zero(n, sign),
        FpType::Nonzero => {
            let (mut int_result, mut error) = value.round_down();
            if round_up_integer(rounding, int_result, error) {
                int_result = int_result.plus_one();
            }
            let int_value = int_result.to_i128_saturating();
            let overflow = int_value > (1i128 << (intsize_bits - 1)) - 1 || int_value < -(1i128 << (intsize_bits - 1));

            let result = if overflow {
                fp_process_exception(FpExc::InvalidOp, fpsr);
                // This case does not set Inexact.
                error = RoundingError::Zero;
                most_negative
            } else if int_result.is_zero() {
                fp_zero(n, sign)
            } else {
                fp_round(n, int_result, fpcr, FpRounding::Zero, fpsr)
            };

            if error != RoundingError::Zero {
                fp_process_exception(FpExc::Inexact, fpsr);
            }
            result
        }
    }
}
