//! Arm-specific behaviour, hand-written from the Arm ARM pseudocode (shared/functions/float/*), one table per
//! topic. Each row: operation, width, operands, FPCR, expected result, expected FPSR.

use super::*;
use Op::*;
use Width::{D, H, S};

const IOC: u32 = Fpsr::IOC;
const DZC: u32 = Fpsr::DZC;
const OFC: u32 = Fpsr::OFC;
const UFC: u32 = Fpsr::UFC;
const IXC: u32 = Fpsr::IXC;
const IDC: u32 = Fpsr::IDC;

const ONE_S: u64 = 0x3F80_0000;
const TWO_S: u64 = 0x4000_0000;
const INF_S: u64 = 0x7F80_0000;
const NEG_INF_S: u64 = 0xFF80_0000;
const MAX_S: u64 = 0x7F7F_FFFF;
const MIN_NORMAL_S: u64 = 0x0080_0000;
const QNAN_S: u64 = 0x7FC0_0001;
const SNAN_S: u64 = 0x7F80_0002;
const ONE_D: u64 = 0x3FF0_0000_0000_0000;

const TIE_EVEN: FpRounding = FpRounding::TieEven;
const TIE_AWAY: FpRounding = FpRounding::TieAway;

/// FPDefaultNaN: positive, quiet, zero payload, for every invalid operation (x86 would give a negative one).
#[test]
fn default_nan() {
    assert_eq!((fp_default_nan(H), fp_default_nan(S), fp_default_nan(D)), (0x7E00, 0x7FC0_0000, 0x7FF8_0000_0000_0000));
    check_all(
        "default NaN",
        [
            case(Sub, S, &[INF_S, INF_S], RNE, 0x7FC0_0000, IOC),
            case(Mul, D, &[0, 0xFFF0_0000_0000_0000], RNE, 0x7FF8_0000_0000_0000, IOC),
            case(Div, H, &[0x8000, 0], RNE, 0x7E00, IOC),
            case(Sqrt, S, &[0xBF80_0000], RNE, 0x7FC0_0000, IOC),
            case(MulAdd, S, &[NEG_INF_S, INF_S, ONE_S], RNE, 0x7FC0_0000, IOC),
            // DN replaces propagated NaNs too; a quiet one raises nothing.
            case(Add, S, &[0xFFC0_1234, ONE_S], DN, 0x7FC0_0000, 0),
            case(Add, S, &[0xFF80_1234, ONE_S], DN, 0x7FC0_0000, IOC),
            case(Convert { from: S, rounding: TIE_EVEN }, D, &[0xFFC0_1234], DN, 0x7FF8_0000_0000_0000, 0),
        ],
    );
}

/// FPProcessNaNs: signalling NaNs before quiet ones, then the first operand; a signalling NaN is quietened
/// (FPProcessNaN sets the top fraction bit) and raises Invalid Operation.
#[test]
fn nan_propagation() {
    check_all(
        "NaN propagation",
        [
            case(Add, S, &[QNAN_S, SNAN_S], RNE, 0x7FC0_0002, IOC),
            case(Add, S, &[0xFF80_0005, SNAN_S], RNE, 0xFFC0_0005, IOC),
            case(Add, S, &[QNAN_S, 0xFFC0_0002], RNE, QNAN_S, 0),
            case(Mul, S, &[ONE_S, 0xFFC0_0002], RNE, 0xFFC0_0002, 0),
            case(Div, D, &[0x7FF0_0000_0000_0001, 0x7FF8_0000_0000_0002], RNE, 0x7FF8_0000_0000_0001, IOC),
            case(Sub, H, &[0x7E05, 0x7C01], RNE, 0x7E01, IOC),
            // FPMax/FPMin propagate NaNs like arithmetic (IEEE 754-2008 max/min would not).
            case(Max, S, &[QNAN_S, ONE_S], RNE, QNAN_S, 0),
            case(Min, S, &[ONE_S, SNAN_S], RNE, 0x7FC0_0002, IOC),
            // Single-operand functions.
            case(Sqrt, S, &[SNAN_S], RNE, 0x7FC0_0002, IOC),
            case(
                RoundInt { rounding: TIE_EVEN, exact: true },
                D,
                &[0xFFF0_0000_0000_00FF],
                RNE,
                0xFFF8_0000_0000_00FF,
                IOC,
            ),
            case(RecipEstimate, S, &[0xFF80_0003], RNE, 0xFFC0_0003, IOC),
            case(RSqrtEstimate, H, &[0x7D00], RNE, 0x7F00, IOC),
            case(RecpX, S, &[SNAN_S], RNE, 0x7FC0_0002, IOC),
            // FPNeg flips the sign of NaNs too (no FPCR.AH in Armv8.2), and FPRecipStepFused/FPRSqrtStepFused negate
            // op1 before processing NaNs: a NaN first operand comes back with its sign flipped.
            case(RecipStepFused, S, &[QNAN_S, ONE_S], RNE, 0xFFC0_0001, 0),
            case(RSqrtStepFused, S, &[ONE_S, QNAN_S], RNE, QNAN_S, 0),
            case(RSqrtStepFused, D, &[0xFFF0_0000_0000_0001, ONE_D], RNE, 0x7FF8_0000_0000_0001, IOC),
        ],
    );
    assert_eq!(fp_neg(S, QNAN_S), 0xFFC0_0001);
    assert_eq!(fp_abs(S, 0xFFC0_0001), QNAN_S);
}

/// FPMulAdd: FPProcessNaNs3 takes the addend first, then op1, op2 (signalling before quiet); but a quiet NaN
/// addend with `0 * inf` gives the default NaN and Invalid Operation.
#[test]
fn fused_multiply_add_nans() {
    let zero = 0;
    check_all(
        "FMA NaNs",
        [
            case(MulAdd, S, &[QNAN_S, SNAN_S, ONE_S], RNE, 0x7FC0_0002, IOC),
            case(MulAdd, S, &[0x7F80_0003, SNAN_S, ONE_S], RNE, 0x7FC0_0003, IOC),
            case(MulAdd, S, &[0x7FC0_000A, 0x7FC0_000B, ONE_S], RNE, 0x7FC0_000A, 0),
            case(MulAdd, S, &[ONE_S, 0x7FC0_000B, 0x7FC0_000C], RNE, 0x7FC0_000B, 0),
            case(MulAdd, S, &[ONE_S, ONE_S, 0x7F80_000C], RNE, 0x7FC0_000C, IOC),
            case(MulAdd, S, &[QNAN_S, zero, INF_S], RNE, 0x7FC0_0000, IOC),
            case(
                MulAdd,
                D,
                &[0xFFF8_0000_0000_0001, 0xFFF0_0000_0000_0000, 0x8000_0000_0000_0000],
                RNE,
                0x7FF8_0000_0000_0000,
                IOC,
            ),
            case(MulAdd, H, &[0x7E05, 0x7C00, 0], DN, 0x7E00, IOC),
            // A signalling addend is processed as usual, even with 0 * inf.
            case(MulAdd, S, &[SNAN_S, zero, INF_S], RNE, 0x7FC0_0002, IOC),
            // A NaN multiplicand makes no 0 * inf.
            case(MulAdd, S, &[QNAN_S, zero, 0x7FC0_0009], RNE, QNAN_S, 0),
        ],
    );
}

/// FPMaxNum/FPMinNum: a single quiet NaN is replaced by -inf/+inf before FPMax/FPMin, so the number wins;
/// signalling NaNs and pairs of quiet NaNs propagate.
#[test]
fn max_min_num() {
    check_all(
        "maxNum/minNum",
        [
            case(MaxNum, S, &[QNAN_S, ONE_S], RNE, ONE_S, 0),
            case(MaxNum, S, &[0xBF80_0000, QNAN_S], RNE, 0xBF80_0000, 0),
            case(MaxNum, S, &[QNAN_S, NEG_INF_S], RNE, NEG_INF_S, 0),
            case(MinNum, S, &[QNAN_S, INF_S], RNE, INF_S, 0),
            case(MinNum, D, &[ONE_D, 0x7FF8_0000_0000_0000], RNE, ONE_D, 0),
            case(MaxNum, S, &[QNAN_S, SNAN_S], RNE, 0x7FC0_0002, IOC),
            case(MaxNum, S, &[SNAN_S, ONE_S], RNE, 0x7FC0_0002, IOC),
            case(MaxNum, S, &[0x7FC0_0005, 0x7FC0_0006], RNE, 0x7FC0_0005, 0),
            case(MaxNum, H, &[0x7E00, 0x0001], FZ16, 0x0000, 0),
            // Zeros: max prefers +0, min prefers -0, in either order.
            case(Max, S, &[0x8000_0000, 0], RNE, 0, 0),
            case(Max, S, &[0, 0x8000_0000], RNE, 0, 0),
            case(Min, S, &[0, 0x8000_0000], RNE, 0x8000_0000, 0),
            case(MinNum, S, &[0x8000_0000, 0], RNE, 0x8000_0000, 0),
            // A flushed denormal is a zero of its sign.
            case(Max, S, &[0x8000_0001, 0xBF80_0000], FZ, 0x8000_0000, IDC),
        ],
    );
}

/// FPRecipEstimate and FPRSqrtEstimate: the manual's 8-bit tables (RecipEstimate, RecipSqrtEstimate) and their
/// special cases. 1.0 gives 511/512 (0x3F7F8000) from both, as on hardware.
#[test]
fn estimates() {
    // Table entries: RecipEstimate(256) = 511 (1/0.5 just below 2), RecipEstimate(511) = 257.
    assert_eq!((recip_estimate(256), recip_estimate(384), recip_estimate(511)), (511, 341, 256));
    assert_eq!((recip_sqrt_estimate(128), recip_sqrt_estimate(256), recip_sqrt_estimate(511)), (511, 361, 256));
    let max_d = 0x7FEF_FFFF_FFFF_FFFF;
    check_all(
        "estimates",
        [
            case(RecipEstimate, S, &[ONE_S], RNE, 0x3F7F_8000, 0),
            case(RecipEstimate, S, &[TWO_S], RNE, 0x3EFF_8000, 0),
            // 3.0: scaled = 384, estimate 341 = 0x155: 2^-2 * 1.33203125.
            case(RecipEstimate, S, &[0x4040_0000], RNE, 0x3EAA_8000, 0),
            case(RecipEstimate, S, &[0xBF80_0000], RNE, 0xBF7F_8000, 0),
            case(RecipEstimate, H, &[0x3C00], RNE, 0x3BFC, 0),
            case(RecipEstimate, D, &[ONE_D], RNE, 0x3FEF_F000_0000_0000, 0),
            case(RecipEstimate, S, &[0], RNE, INF_S, DZC),
            case(RecipEstimate, S, &[0x8000_0000], RNE, NEG_INF_S, DZC),
            case(RecipEstimate, S, &[INF_S], RNE, 0, 0),
            case(RecipEstimate, S, &[NEG_INF_S], RNE, 0x8000_0000, 0),
            // Below 2^-128 the reciprocal overflows: infinity or the largest normal by rounding mode.
            case(RecipEstimate, S, &[1], RNE, INF_S, OFC | IXC),
            case(RecipEstimate, S, &[1], RZ, MAX_S, OFC | IXC),
            case(RecipEstimate, S, &[1], RM, MAX_S, OFC | IXC),
            case(RecipEstimate, S, &[0x8000_0001], RP, 0x8000_0000 | MAX_S, OFC | IXC),
            case(RecipEstimate, D, &[1], RP, 0x7FF0_0000_0000_0000, OFC | IXC),
            case(RecipEstimate, H, &[0x0003], RZ, 0x7BFF, OFC | IXC),
            // 2^-128 exactly: a denormal operand, normal result 2^127 * 1.99609375.
            case(RecipEstimate, S, &[0x0020_0000], RNE, 0x7F7F_8000, 0),
            // 2^126: a denormal result, or with FZ a zero with UFC only.
            case(RecipEstimate, S, &[0x7E80_0000], RNE, 0x007F_C000, 0),
            case(RecipEstimate, S, &[0x7E80_0000], FZ, 0, UFC),
            case(RecipEstimate, D, &[max_d], FZ, 0, UFC),
            case(RecipEstimate, H, &[0x7800], FZ16, 0, UFC),
            // FZ flushes a denormal operand first: a zero, so infinity and DZC (and IDC).
            case(RecipEstimate, S, &[0x0000_0001], FZ, INF_S, DZC | IDC),
            case(RSqrtEstimate, S, &[ONE_S], RNE, 0x3F7F_8000, 0),
            case(RSqrtEstimate, S, &[TWO_S], RNE, 0x3F34_8000, 0),
            case(RSqrtEstimate, S, &[0x4080_0000], RNE, 0x3EFF_8000, 0),
            case(RSqrtEstimate, H, &[0x3C00], RNE, 0x3BFC, 0),
            case(RSqrtEstimate, D, &[ONE_D], RNE, 0x3FEF_F000_0000_0000, 0),
            // The smallest denormal, 2^-149: normalised, exponent -22 (even): 2^74 * 1.41015625.
            case(RSqrtEstimate, S, &[1], RNE, 0x64B4_8000, 0),
            case(RSqrtEstimate, S, &[0xBF80_0000], RNE, 0x7FC0_0000, IOC),
            case(RSqrtEstimate, S, &[NEG_INF_S], RNE, 0x7FC0_0000, IOC),
            case(RSqrtEstimate, S, &[0x8000_0000], RNE, NEG_INF_S, DZC),
            case(RSqrtEstimate, S, &[INF_S], RNE, 0, 0),
            case(RSqrtEstimate, S, &[0x8000_0001], FZ, NEG_INF_S, DZC | IDC),
        ],
    );
    // URECPE/URSQRTE: the same tables on fixed-point fractions.
    assert_eq!(unsigned_recip_estimate(0x8000_0000), 511 << 23);
    assert_eq!(unsigned_recip_estimate(0x7FFF_FFFF), u32::MAX);
    assert_eq!(unsigned_rsqrt_estimate(0x4000_0000), 511 << 23);
    assert_eq!(unsigned_rsqrt_estimate(0x3FFF_FFFF), u32::MAX);
    assert_eq!(unsigned_rsqrt_estimate(0xFFFF_FFFF), 256 << 23);
}

/// The estimates are good to about 8 bits everywhere in the normal range: |estimate * x - 1| < 2^-7 for FRECPE
/// and |estimate * sqrt(x) - 1| < 2^-7 for FRSQRTE, with the host as judge.
#[test]
fn estimates_are_close() {
    let mut rng = rng(7);
    let mut fpsr = Fpsr::default();
    for i in 0..100_000u32 {
        let x = if i < 1 << 16 { 0x3F80_0000 | i << 7 } else { rng.gen_range(0x0080_0000..0x7E80_0000u32) };
        let v = f32::from_bits(x) as f64;
        let r = f32::from_bits(fp_recip_estimate(S, x as u64, FpCr::default(), &mut fpsr) as u32) as f64;
        assert!((r * v - 1.0).abs() < 2f64.powi(-7), "FRECPE {x:#x}: {r}");
        let r = f32::from_bits(fp_rsqrt_estimate(S, x as u64, FpCr::default(), &mut fpsr) as u32) as f64;
        assert!((r * v.sqrt() - 1.0).abs() < 2f64.powi(-7), "FRSQRTE {x:#x}: {r}");
    }
    assert_eq!(fpsr, Fpsr::default());
}

/// FPRecipEstimate and FPRSqrtEstimate normalise denormal operands exactly: a denormal's estimate is the estimate
/// of the same number scaled by 2^(2F) into the normal range, scaled back (by 2^(2F) and 2^F respectively).
#[test]
fn estimates_of_denormals() {
    let mut rng = rng(11);
    let mut checked = 0;
    for n in [H, S, D] {
        let f = n.f() as u64;
        for i in 0..3000u64 {
            let frac = if n == H { i % 1023 + 1 } else { rng.gen_range(1..1u64 << f) };
            // x = frac * 2^(minimum_exp - F); y = x * 2^(2F), a normal number with exponent field 1 + F + p.
            let p = 63 - frac.leading_zeros() as u64;
            let x = frac;
            let y = bits(n, false, 1 + f + p, (frac - (1 << p)) << (f - p));
            let exponent = |r: u64| r >> n.f() & ones(n.e());
            type Estimate = fn(Width, u64, FpCr, &mut Fpsr) -> u64;
            let estimates: [(Estimate, u64); 2] = [(fp_recip_estimate, 2 * f), (fp_rsqrt_estimate, f)];
            for (estimate, shift) in estimates {
                let mut fpsr = Fpsr::default();
                let rx = estimate(n, x, FpCr::default(), &mut fpsr);
                let ry = estimate(n, y, FpCr::default(), &mut fpsr);
                if fpsr.0 != 0 || exponent(rx) == 0 || exponent(ry) == 0 {
                    continue; // overflowed, or a denormal result, which loses fraction bits
                }
                let expected = (exponent(ry) + shift, ry & ones(n.f()));
                assert_eq!((exponent(rx), rx & ones(n.f())), expected, "{n:?} {x:#x} vs {y:#x}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} estimates compared");
}

/// FPToFixedJS (FJCVTZS): ToInt32 of JavaScript, and Z set only for an exact, in-range, not negative-zero
/// conversion. Results are in bits 31..0, Z in bit 32.
#[test]
fn fjcvtzs() {
    const Z: u64 = 1 << 32;
    check_all(
        "FJCVTZS",
        [
            case(ToFixedJs, D, &[ONE_D], RNE, 1 | Z, 0),
            case(ToFixedJs, D, &[0], RNE, Z, 0),
            case(ToFixedJs, D, &[0x8000_0000_0000_0000], RNE, 0, 0),
            case(ToFixedJs, D, &[0x3FF8_0000_0000_0000], RNE, 1, IXC),
            case(ToFixedJs, D, &[0xBFF8_0000_0000_0000], RNE, 0xFFFF_FFFF, IXC),
            // Out of range: wrapped modulo 2^32, Invalid Operation.
            case(ToFixedJs, D, &[0x41E0_0000_0000_0000], RNE, 0x8000_0000, IOC),
            case(ToFixedJs, D, &[0x41F0_0000_0050_0000], RNE, 5, IOC),
            case(ToFixedJs, D, &[0xC1E0_0000_0000_0000], RNE, 0x8000_0000 | Z, 0),
            // Always round towards zero, whatever FPCR.RMode says.
            case(ToFixedJs, D, &[0xBFF8_0000_0000_0000], RM, 0xFFFF_FFFF, IXC),
            case(ToFixedJs, D, &[0x7FF8_0000_0000_0000], RNE, 0, IOC),
            case(ToFixedJs, D, &[0xFFF0_0000_0000_0000], RNE, 0, IOC),
            // A denormal: inexact without FZ; with FZ a zero that still clears Z (the pseudocode tests op<51:0>).
            case(ToFixedJs, D, &[1], RNE, 0, IXC),
            case(ToFixedJs, D, &[1], FZ, 0, IDC),
            case(ToFixedJs, D, &[0x8000_0000_0000_0001], FZ, 0, IDC),
        ],
    );
}

/// FPToFixed: rounding by the given mode, saturation with Invalid Operation (and then no Inexact), NaN to 0.
#[test]
fn to_fixed_saturation() {
    let to =
        |from: Width, fbits: u32, unsigned: bool, rounding: FpRounding| ToFixed { from, fbits, unsigned, rounding };
    let rz = FpRounding::Zero;
    check_all(
        "FPToFixed",
        [
            case(to(S, 0, false, rz), S, &[0x4F32_D05E], RNE, 0x7FFF_FFFF, IOC),
            case(to(S, 0, true, rz), S, &[0xBF80_0000], RNE, 0, IOC),
            // -0.5 rounds to zero first, so it is only inexact, even unsigned.
            case(to(S, 0, true, rz), S, &[0xBF00_0000], RNE, 0, IXC),
            case(to(S, 0, true, TIE_EVEN), S, &[0xBF00_0000], RNE, 0, IXC),
            case(to(S, 0, true, TIE_EVEN), S, &[0xBF40_0000], RNE, 0, IOC),
            case(to(S, 0, false, rz), S, &[QNAN_S], RNE, 0, IOC),
            case(to(S, 0, false, rz), D, &[INF_S], RNE, 0x7FFF_FFFF_FFFF_FFFF, IOC),
            case(to(S, 0, false, rz), S, &[NEG_INF_S], RNE, 0x8000_0000, IOC),
            case(to(D, 0, false, rz), D, &[0x43E0_0000_0000_0000], RNE, 0x7FFF_FFFF_FFFF_FFFF, IOC),
            case(to(D, 0, false, rz), D, &[0xC3E0_0000_0000_0000], RNE, 0x8000_0000_0000_0000, 0),
            case(to(D, 0, true, rz), D, &[0x43EF_FFFF_FFFF_FFFF], RNE, 0xFFFF_FFFF_FFFF_F800, 0),
            // Fixed point: 1.5 * 2 = 3; 1.25 * 2 = 2.5, a tie.
            case(to(S, 1, false, rz), S, &[0x3FC0_0000], RNE, 3, 0),
            case(to(S, 1, false, TIE_EVEN), S, &[0x3FA0_0000], RNE, 2, IXC),
            case(to(S, 1, false, TIE_AWAY), S, &[0x3FA0_0000], RNE, 3, IXC),
            case(to(S, 1, false, TIE_AWAY), S, &[0xBFA0_0000], RNE, 0xFFFF_FFFD, IXC),
            // Half-precision integers.
            case(to(H, 0, false, rz), H, &[0x7BFF], RNE, 0x7FFF, IOC),
            case(to(H, 0, false, rz), H, &[0xF800], RNE, 0x8000, 0),
            case(to(H, 0, true, rz), H, &[0x7BFF], RNE, 0xFFE0, 0),
        ],
    );
}

/// FPConvert of NaNs: FPConvertNaN keeps the sign and the top of the payload and sets the quiet bit, so a
/// signalling NaN comes out quiet (with Invalid Operation).
#[test]
fn nan_conversions() {
    let cv = |from: Width| Convert { from, rounding: TIE_EVEN };
    check_all(
        "NaN conversions",
        [
            case(cv(S), D, &[0x7F80_0001], RNE, 0x7FF8_0000_2000_0000, IOC),
            case(cv(D), S, &[0x7FF0_0000_0000_0001], RNE, 0x7FC0_0000, IOC),
            case(cv(D), S, &[0xFFF8_0000_2000_0000], RNE, 0xFFC0_0001, 0),
            case(cv(H), S, &[0x7C01], RNE, 0x7FC0_2000, IOC),
            case(cv(D), H, &[0xFFF4_0400_0000_0000], RNE, 0xFF01, IOC),
            case(cv(S), H, &[0x7F80_0002], DN, 0x7E00, IOC),
        ],
    );
}

/// Alternative half precision (FPCR.AHP): conversions only. No infinities or NaNs: the top exponent is a normal
/// one (up to 131008); NaNs convert to zero and infinities or overflow saturate, all with Invalid Operation.
#[test]
fn alternative_half_precision() {
    let cv = |from: Width| Convert { from, rounding: TIE_EVEN };
    check_all(
        "AHP",
        [
            case(cv(H), S, &[0x7C00], AHP, 0x4780_0000, 0),
            case(cv(H), S, &[0x7FFF], AHP, 0x47FF_E000, 0),
            case(cv(H), D, &[0x7E00], AHP, 0x40F8_0000_0000_0000, 0),
            case(cv(S), H, &[0x4780_0000], AHP, 0x7C00, 0),
            case(cv(S), H, &[0x47FF_E000], AHP, 0x7FFF, 0),
            // 2^17 overflows: saturated, Invalid Operation, no Inexact.
            case(cv(S), H, &[0x4800_0000], AHP, 0x7FFF, IOC),
            // 131040 is the tie between 131008 (odd) and 2^17: rounds up, so saturates.
            case(cv(S), H, &[0x47FF_F000], AHP, 0x7FFF, IOC),
            case(Convert { from: S, rounding: FpRounding::Zero }, H, &[0x47FF_F000], AHP, 0x7FFF, IXC),
            case(cv(S), H, &[INF_S], AHP, 0x7FFF, IOC),
            case(cv(S), H, &[NEG_INF_S], AHP, 0xFFFF, IOC),
            // Even a quiet NaN is invalid, and becomes a zero of its sign.
            case(cv(S), H, &[0xFFC0_0000], AHP, 0x8000, IOC),
            case(cv(D), H, &[0x7FF8_0000_0000_0000], AHP | DN, 0x0000, IOC),
            // IEEE halves without AHP.
            case(cv(S), H, &[0x4780_0000], RNE, 0x7C00, OFC | IXC),
            case(cv(H), S, &[0x7C00], RNE, INF_S, 0),
            // Arithmetic ignores AHP (FPUnpack, FPRound): 0x7C00 is infinity.
            case(Add, H, &[0x7C00, 0x3C00], AHP, 0x7C00, 0),
            case(Mul, H, &[0x7BFF, 0x4000], AHP, 0x7C00, OFC | IXC),
        ],
    );
}

/// Flush-to-zero: FZ flushes single and double denormal inputs (IDC) and tiny results before rounding (UFC, not
/// IXC); FZ16 does the same for halves but raises nothing on input. Conversions never flush halves (FPUnpackCV,
/// FPRoundCV clear FZ16) but do flush singles and doubles.
#[test]
fn flush_to_zero() {
    let cv = |from: Width| Convert { from, rounding: TIE_EVEN };
    check_all(
        "flush to zero",
        [
            case(Add, S, &[1, 0], FZ, 0, IDC),
            case(Add, S, &[0x8000_0001, 0x8000_0000], FZ, 0x8000_0000, IDC),
            case(Mul, S, &[MIN_NORMAL_S, 0x3F00_0000], FZ, 0, UFC),
            case(Mul, S, &[0x8080_0000, 0x3F00_0000], FZ, 0x8000_0000, UFC),
            // Tiny before rounding, although it would round to the smallest normal: flushed.
            case(Mul, S, &[MIN_NORMAL_S, 0x3F7F_FFFF], FZ, 0, UFC),
            case(Mul, S, &[MIN_NORMAL_S, 0x3F7F_FFFF], RNE, MIN_NORMAL_S, UFC | IXC),
            // Exact denormal results are flushed too.
            case(Sub, D, &[0x0010_0000_0000_0001, 0x0010_0000_0000_0000], FZ, 0, UFC),
            case(Sub, D, &[0x0010_0000_0000_0001, 0x0010_0000_0000_0000], RNE, 1, 0),
            case(Add, H, &[0x0001, 0], FZ16, 0, 0),
            case(Mul, H, &[0x0400, 0x3800], FZ16, 0, UFC),
            case(Add, H, &[0x0001, 0], FZ, 0x0001, 0),
            case(Add, S, &[1, 0], FZ16, 1, 0),
            case(cv(S), H, &[0x3580_0000], FZ16, 0x0010, 0),
            case(cv(H), S, &[0x0001], FZ16, 0x3380_0000, 0),
            case(cv(D), S, &[0x3730_0000_0000_0000], FZ, 0, UFC),
            case(cv(D), S, &[0x3730_0000_0000_0000], RNE, 0x0000_0200, 0),
            case(cv(S), D, &[1], FZ, 0, IDC),
            // The flags accumulate: a flushed input and a flushed output.
            case(Mul, S, &[1, 0x7F00_0000], FZ, 0, IDC),
            case(Div, S, &[ONE_S, 1], FZ, INF_S, IDC | DZC),
            case(RecpX, S, &[1], FZ, 0x7F00_0000, IDC),
            case(Compare { signal_nans: false }, S, &[1, 0x8000_0000], FZ, 0b0110, IDC),
        ],
    );
}

/// Underflow is signalled only for tiny (before rounding) and inexact results (FPRoundBase: `biased_exp == 0 &&
/// error != 0.0`); exact denormal results raise nothing.
#[test]
fn underflow_only_when_inexact() {
    check_all(
        "underflow",
        [
            case(Sub, S, &[MIN_NORMAL_S, 1], RNE, 0x007F_FFFF, 0),
            case(Mul, S, &[MIN_NORMAL_S, 0x3F00_0000], RNE, 0x0040_0000, 0),
            case(Mul, S, &[3, 0x3F00_0000], RNE, 2, UFC | IXC),
            case(Mul, S, &[3, 0x3F00_0000], RP, 2, UFC | IXC),
            case(Mul, S, &[3, 0x3F00_0000], RZ, 1, UFC | IXC),
            case(Div, D, &[1, 0x4000_0000_0000_0000], RNE, 0, UFC | IXC),
            case(Div, D, &[1, 0x4000_0000_0000_0000], RP, 1, UFC | IXC),
            case(Mul, H, &[0x0001, 0x3800], RNE, 0, UFC | IXC),
            case(Mul, H, &[0x0003, 0x3800], RNE, 0x0002, UFC | IXC),
        ],
    );
}

/// Rounding modes, worked from FPRoundBase's definition where the host cannot follow (Rust runs in nearest-even
/// only; `host.rs` covers the modes through error-free transformations, these rows state the reasoning).
#[test]
fn rounding_modes() {
    // 1 + 2^-24 lies exactly halfway between 1.0 and 1.0 + 2^-23 (error = 0.5 ulp): ties to even go down, only
    // towards +inf rounds up. Negated, only towards -inf goes away from zero.
    let half_ulp = 0x3380_0000;
    let neg = |x: u64| x | 0x8000_0000;
    // 1 + 1.5 * 2^-24: error = 0.75 ulp, above the tie: nearest and +inf round up; zero and -inf down.
    let three_quarters = 0x33C0_0000;
    // MAX + 2^103 = 2^128 - 2^103: error = 0.5 ulp of MAX, whose fraction is odd, so nearest rounds up to 2^128
    // and overflows; towards zero it stays MAX, inexact but not overflowing (below 2^128 before rounding).
    let max_half_ulp = 0x7300_0000;
    check_all(
        "rounding modes",
        [
            case(Add, S, &[ONE_S, half_ulp], RNE, ONE_S, IXC),
            case(Add, S, &[ONE_S, half_ulp], RP, ONE_S + 1, IXC),
            case(Add, S, &[ONE_S, half_ulp], RM, ONE_S, IXC),
            case(Add, S, &[ONE_S, half_ulp], RZ, ONE_S, IXC),
            case(Add, S, &[neg(ONE_S), neg(half_ulp)], RM, neg(ONE_S + 1), IXC),
            case(Add, S, &[neg(ONE_S), neg(half_ulp)], RP, neg(ONE_S), IXC),
            case(Add, S, &[ONE_S, three_quarters], RNE, ONE_S + 1, IXC),
            case(Add, S, &[ONE_S, three_quarters], RP, ONE_S + 1, IXC),
            case(Add, S, &[ONE_S, three_quarters], RZ, ONE_S, IXC),
            case(Add, S, &[ONE_S, three_quarters], RM, ONE_S, IXC),
            case(Add, S, &[MAX_S, max_half_ulp], RNE, INF_S, OFC | IXC),
            case(Add, S, &[MAX_S, max_half_ulp], RZ, MAX_S, IXC),
            case(Add, S, &[MAX_S, max_half_ulp], RM, MAX_S, IXC),
            case(Add, S, &[MAX_S, max_half_ulp], RP, INF_S, OFC | IXC),
            // MAX + MAX = 2^129 is beyond 2^128 before rounding: overflow in every mode, MAX when not to infinity.
            case(Add, S, &[MAX_S, MAX_S], RZ, MAX_S, OFC | IXC),
            case(Add, S, &[neg(MAX_S), neg(MAX_S)], RP, neg(MAX_S), OFC | IXC),
            case(Add, S, &[neg(MAX_S), neg(MAX_S)], RM, NEG_INF_S, OFC | IXC),
            // An exact zero sum is -0 only when rounding towards -inf; same-signed zeros keep their sign.
            case(Sub, S, &[ONE_S, ONE_S], RNE, 0, 0),
            case(Sub, S, &[ONE_S, ONE_S], RM, 0x8000_0000, 0),
            case(Add, S, &[0, 0x8000_0000], RNE, 0, 0),
            case(Add, S, &[0, 0x8000_0000], RM, 0x8000_0000, 0),
            case(Add, S, &[0x8000_0000, 0x8000_0000], RP, 0x8000_0000, 0),
            case(MulAdd, S, &[0xBF80_0000, ONE_S, ONE_S], RM, 0x8000_0000, 0),
            case(MulAdd, S, &[0x8000_0000, 0, 0x8000_0000], RNE, 0x8000_0000, 0),
            case(RecipStepFused, S, &[TWO_S, ONE_S], RM, 0x8000_0000, 0),
            // FPRoundInt: ties even or away; results of zero keep the operand's sign.
            case(RoundInt { rounding: TIE_EVEN, exact: false }, S, &[0x4020_0000], RNE, TWO_S, 0),
            case(RoundInt { rounding: TIE_EVEN, exact: true }, S, &[0x4020_0000], RNE, TWO_S, IXC),
            case(RoundInt { rounding: TIE_AWAY, exact: true }, S, &[0x4020_0000], RNE, 0x4040_0000, IXC),
            case(RoundInt { rounding: TIE_AWAY, exact: true }, S, &[0xC020_0000], RNE, 0xC040_0000, IXC),
            case(RoundInt { rounding: FpRounding::PosInf, exact: false }, S, &[0xBF00_0000], RNE, 0x8000_0000, 0),
            case(RoundInt { rounding: FpRounding::NegInf, exact: false }, S, &[0x3F00_0000], RNE, 0, 0),
            case(RoundInt { rounding: FpRounding::Zero, exact: false }, S, &[0xBF00_0000], RNE, 0x8000_0000, 0),
            case(RoundInt { rounding: FpRounding::NegInf, exact: true }, S, &[0xBF00_0000], RNE, 0xBF80_0000, IXC),
            // Round to odd (FCVTXN): an inexact result gets its lowest bit set, and overflow goes to MAX.
            case(Convert { from: D, rounding: FpRounding::Odd }, S, &[0x3FF0_0000_0040_0000], RNE, ONE_S + 1, IXC),
            case(Convert { from: D, rounding: FpRounding::Odd }, S, &[0x3FF0_0000_2040_0000], RNE, ONE_S + 1, IXC),
            case(Convert { from: D, rounding: FpRounding::Odd }, S, &[0x3FF0_0000_4040_0000], RNE, ONE_S + 3, IXC),
            case(Convert { from: D, rounding: FpRounding::Odd }, S, &[0x3FF8_0000_0000_0000], RNE, 0x3FC0_0000, 0),
            case(Convert { from: D, rounding: FpRounding::Odd }, S, &[0x7FEF_FFFF_FFFF_FFFF], RNE, MAX_S, OFC | IXC),
        ],
    );
}

/// FPRoundIntN (FRINT32/64): out of range, NaN and infinity give the most negative integer of the size with
/// Invalid Operation and no Inexact.
#[test]
fn round_int_n() {
    let rz = |intsize: Width| RoundIntN { rounding: FpRounding::Zero, intsize };
    let rne = |intsize: Width| RoundIntN { rounding: TIE_EVEN, intsize };
    check_all(
        "FRINT32/64",
        [
            case(rz(S), S, &[0x4F00_0000], RNE, 0xCF00_0000, IOC),
            case(rz(S), S, &[0xCF00_0000], RNE, 0xCF00_0000, 0),
            case(rz(S), S, &[0x4EFF_FFFF], RNE, 0x4EFF_FFFF, 0),
            case(rz(S), S, &[QNAN_S], RNE, 0xCF00_0000, IOC),
            case(rz(S), S, &[NEG_INF_S], RNE, 0xCF00_0000, IOC),
            case(rz(D), D, &[0x43E0_0000_0000_0000], RNE, 0xC3E0_0000_0000_0000, IOC),
            case(rz(D), S, &[0x5F00_0000], RNE, 0xDF00_0000, IOC),
            // 2^31 - 0.5 rounds to 2^31 (out of range: no Inexact) or down to 2^31 - 1 (in range, inexact).
            case(rne(S), D, &[0x41DF_FFFF_FFE0_0000], RNE, 0xC1E0_0000_0000_0000, IOC),
            case(rz(S), D, &[0x41DF_FFFF_FFE0_0000], RNE, 0x41DF_FFFF_FFC0_0000, IXC),
            case(rz(S), D, &[0xBFE0_0000_0000_0000], RNE, 0x8000_0000_0000_0000, IXC),
        ],
    );
}

/// The remaining special cases: FPMulX, the step functions' `0 * inf`, FPRecpX, comparisons, FixedToFP.
#[test]
fn special_cases() {
    let fixed = |from: Width, fbits: u32, unsigned: bool| FixedToFp { from, fbits, unsigned, rounding: TIE_EVEN };
    check_all(
        "special cases",
        [
            case(MulX, S, &[0, INF_S], RNE, TWO_S, 0),
            case(MulX, S, &[0x8000_0000, INF_S], RNE, 0xC000_0000, 0),
            case(MulX, S, &[INF_S, TWO_S], RNE, INF_S, 0),
            case(MulX, S, &[0x8000_0001, NEG_INF_S], FZ, TWO_S, IDC),
            case(RecipStepFused, S, &[0, NEG_INF_S], RNE, TWO_S, 0),
            case(RecipStepFused, S, &[ONE_S, 0x3F00_0000], RNE, 0x3FC0_0000, 0),
            case(RecipStepFused, S, &[INF_S, TWO_S], RNE, NEG_INF_S, 0),
            case(RSqrtStepFused, S, &[INF_S, 0x8000_0000], RNE, 0x3FC0_0000, 0),
            case(RSqrtStepFused, S, &[ONE_S, ONE_S], RNE, ONE_S, 0),
            case(RSqrtStepFused, H, &[0x3C00, 0x4200], RNE, 0, 0),
            case(RecpX, S, &[ONE_S], RNE, TWO_S, 0),
            case(RecpX, S, &[0x4040_0000], RNE, ONE_S, 0),
            case(RecpX, S, &[0], RNE, 0x7F00_0000, 0),
            case(RecpX, S, &[0x8000_0005], RNE, 0xFF00_0000, 0),
            case(RecpX, S, &[NEG_INF_S], RNE, 0x8000_0000, 0),
            case(RecpX, H, &[0x3C00], RNE, 0x4000, 0),
            case(RecpX, D, &[ONE_D], RNE, 0x4000_0000_0000_0000, 0),
            case(Compare { signal_nans: false }, S, &[QNAN_S, ONE_S], RNE, 0b0011, 0),
            case(Compare { signal_nans: true }, S, &[QNAN_S, ONE_S], RNE, 0b0011, IOC),
            case(Compare { signal_nans: false }, S, &[ONE_S, SNAN_S], RNE, 0b0011, IOC),
            case(Compare { signal_nans: false }, S, &[0x8000_0000, 0], RNE, 0b0110, 0),
            case(Compare { signal_nans: false }, S, &[NEG_INF_S, MAX_S], RNE, 0b1000, 0),
            case(Compare { signal_nans: false }, D, &[ONE_D, 0], RNE, 0b0010, 0),
            case(CompareEq, S, &[QNAN_S, QNAN_S], RNE, 0, 0),
            case(CompareEq, S, &[SNAN_S, ONE_S], RNE, 0, IOC),
            case(CompareGe, S, &[QNAN_S, ONE_S], RNE, 0, IOC),
            case(CompareGt, S, &[ONE_S, 0x8000_0000], RNE, 1, 0),
            case(fixed(D, 0, true), S, &[u64::MAX], RNE, 0x5F80_0000, IXC),
            case(fixed(D, 0, false), D, &[1 << 63], RNE, 0xC3E0_0000_0000_0000, 0),
            case(fixed(D, 64, true), S, &[1], RNE, 0x1F80_0000, 0),
            case(fixed(S, 0, true), S, &[0xFFFF_FFFF], RNE, 0x4F80_0000, IXC),
            case(fixed(S, 0, false), S, &[0xFFFF_FFFF], RNE, 0xBF80_0000, 0),
            case(fixed(D, 64, true), H, &[1], FZ16, 0, UFC),
            case(fixed(D, 64, true), H, &[1], RNE, 0, UFC | IXC),
            case(fixed(S, 0, false), H, &[70_000], RNE, 0x7C00, OFC | IXC),
        ],
    );
}

/// The FPSR accumulates: functions only ever set cumulative bits, never clear one, and leave other bits alone.
#[test]
fn fpsr_accumulates() {
    let mut fpsr = Fpsr(0x0800_0000 | Fpsr::IXC); // QC and an earlier Inexact
    fp_div(S, ONE_S, 0, FpCr::default(), &mut fpsr);
    fp_add(S, ONE_S, ONE_S, FpCr::default(), &mut fpsr);
    assert_eq!(fpsr.0, 0x0800_0000 | Fpsr::IXC | Fpsr::DZC);
    let fpcr = FpCr::from_bits(0x07C8_0000);
    assert_eq!(fpcr, FpCr { ahp: true, dn: true, fz: true, rmode: 3, fz16: true });
    assert_eq!(fpcr.to_bits(), 0x07C8_0000);
    assert_eq!(fp_rounding_mode(FpCr::from_bits(RP)), FpRounding::PosInf);
}

/// No input bits make any function panic: bits above N are ignored, and out-of-domain parameters are handled.
#[test]
fn no_panics_on_any_bits() {
    let mut rng = rng(99);
    let mut fpsr = Fpsr::default();
    for _ in 0..20_000 {
        let [a, b, c]: [u64; 3] = rng.r#gen();
        let fpcr = FpCr::from_bits(rng.r#gen());
        let n = [H, S, D][rng.gen_range(0..3)];
        let m = [H, S, D][rng.gen_range(0..3)];
        let rounding = [
            FpRounding::TieEven,
            FpRounding::PosInf,
            FpRounding::NegInf,
            FpRounding::Zero,
            FpRounding::TieAway,
            FpRounding::Odd,
        ][rng.gen_range(0..6)];
        let f = &mut fpsr;
        let results = [
            fp_add(n, a, b, fpcr, f),
            fp_mul_add(n, a, b, c, fpcr, f),
            fp_div(n, a, b, fpcr, f),
            fp_sqrt(n, a, fpcr, f),
            fp_round(n, Real::new(rng.r#gen(), rng.r#gen(), rng.gen_range(-3000..3000)), fpcr, rounding, f),
            fp_round(
                n,
                Real::new(rng.r#gen(), rng.r#gen(), [i64::MIN, i64::MAX][rng.gen_range(0..2)]),
                fpcr,
                rounding,
                f,
            ),
            fp_round_int(n, a, fpcr, rounding, true, f),
            fp_round_int_n(n, a, fpcr, rounding, m, f),
            fp_convert(m, n, a, fpcr, rounding, f),
            fp_to_fixed(m, n, a, rng.gen_range(0..200), rng.r#gen(), fpcr, rounding, f),
            fixed_to_fp(n, m, a, rng.gen_range(0..200), rng.r#gen(), fpcr, rounding, f),
            fp_recip_estimate(n, a, fpcr, f),
            fp_rsqrt_estimate(n, a, fpcr, f),
            fp_recip_step_fused(n, a, b, fpcr, f),
            fp_rsqrt_step_fused(n, a, b, fpcr, f),
            fp_recp_x(n, a, fpcr, f),
        ];
        for (i, r) in results.iter().enumerate() {
            let width = if i == 8 || i == 9 { m } else { n };
            assert_eq!(r & !width.mask(), 0, "result {i} has bits above N");
        }
        fp_to_fixed_js(a, fpcr, f);
        fp_compare(n, a, b, rng.r#gen(), fpcr, f);
        recip_estimate(rng.r#gen());
        recip_sqrt_estimate(rng.r#gen());
    }
}
