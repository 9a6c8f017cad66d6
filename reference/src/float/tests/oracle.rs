//! Oracles: the expected result and FPSR of a case, computed from the host FPU and exact integer arithmetic,
//! independently of the code under test.
//!
//! How the host serves as an oracle in every rounding mode although Rust only runs in round-to-nearest-even:
//! for a finite non-zero exact result the oracle needs the round-to-nearest-even result `r` (the host's) and
//! `sigma`, the sign of `exact - r`. Then round-up, round-down and round-to-zero are `r` or its neighbour,
//! tininess (before rounding, as Arm detects it) is `|exact| < MIN_NORMAL`, and inexactness is `sigma != 0`.
//! - single/double: `sigma` comes from error-free transformations: TwoSum for sums (exact without overflow), and
//!   for products, quotients and square roots a fused multiply-add on operands scaled to [1, 4), whose correctly
//!   rounded result has the sign of the exact residual. The host FMA has no such transformation, so FMA is
//!   checked in round-to-nearest-even only, with Inexact and Underflow not judged.
//! - half: every operation's exact result can be compared with any half (or midpoint) exactly in double
//!   precision, so `r` is found by binary search over the 63,489 finite halves, for every operation.
//!
//! Where IEEE leaves a choice or Arm departs from IEEE, the oracle states Arm's rule (NaN selection and payloads,
//! default NaN, flush-to-zero, tininess before rounding, AHP): those parts are the rule restated, not the host.

use std::cmp::Ordering;
use std::sync::OnceLock;

use super::*;

// ---- Formats, in the test's own terms ----

fn sign_bit(n: Width) -> u64 {
    1 << (n.n() - 1)
}

fn is_negative(n: Width, x: u64) -> bool {
    x & sign_bit(n) != 0
}

fn magnitude(n: Width, x: u64) -> u64 {
    x & (sign_bit(n) - 1)
}

fn infinity(n: Width) -> u64 {
    ones(n.e()) << n.f()
}

fn min_normal(n: Width) -> u64 {
    1 << n.f()
}

pub(super) fn is_nan(n: Width, x: u64) -> bool {
    magnitude(n, x) > infinity(n)
}

pub(super) fn is_snan(n: Width, x: u64) -> bool {
    is_nan(n, x) && x & quiet_bit(n) == 0
}

fn is_qnan(n: Width, x: u64) -> bool {
    is_nan(n, x) && x & quiet_bit(n) != 0
}

fn quiet_bit(n: Width) -> u64 {
    1 << (n.f() - 1)
}

fn is_denormal(n: Width, x: u64) -> bool {
    let m = magnitude(n, x);
    m != 0 && m < min_normal(n)
}

/// The default NaN as Arm defines it: positive, quiet, zero payload.
pub(super) fn default_nan(n: Width) -> u64 {
    match n {
        Width::H => 0x7E00,
        Width::S => 0x7FC0_0000,
        Width::D => 0x7FF8_0000_0000_0000,
    }
}

fn zero(n: Width, negative: bool) -> u64 {
    if negative { sign_bit(n) } else { 0 }
}

/// The next value towards plus infinity (IEEE nextUp) of a non-NaN.
fn next_up(n: Width, x: u64) -> u64 {
    if magnitude(n, x) == 0 {
        1
    } else if is_negative(n, x) {
        x - 1
    } else {
        x + 1
    }
}

fn next_down(n: Width, x: u64) -> u64 {
    next_up(n, x ^ sign_bit(n)) ^ sign_bit(n)
}

/// The value of a half (IEEE, or AHP where the top exponent is an ordinary one) as a double, exactly.
fn half_value(x: u64, ahp: bool) -> f64 {
    let sign = if x & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (x >> 10 & 0x1f) as i32;
    let frac = (x & 0x3ff) as f64;
    let magnitude = match exp {
        0 => frac * 2f64.powi(-24),
        31 if !ahp => {
            if frac == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1024.0 + frac) * 2f64.powi(exp - 25),
    };
    sign * magnitude
}

/// The value of an operand as a double, exactly (NaNs as NaN).
pub(super) fn value(n: Width, x: u64) -> f64 {
    match n {
        Width::H => half_value(x, false),
        Width::S => f32::from_bits(x as u32) as f64,
        Width::D => f64::from_bits(x),
    }
}

/// The finite halves in increasing order of magnitude, with one more entry past the end at the next power of
/// two: 65536 (where IEEE rounds to infinity) or, with AHP, 131072 (where AHP saturates).
fn half_table(ahp: bool) -> &'static [f64] {
    static IEEE: OnceLock<Vec<f64>> = OnceLock::new();
    static ALTERNATIVE: OnceLock<Vec<f64>> = OnceLock::new();
    let build = |ahp: bool| {
        let last = if ahp { 0x7FFF } else { 0x7BFF };
        let mut table: Vec<f64> = (0..=last).map(|x| half_value(x, ahp)).collect();
        table.push(if ahp { 131072.0 } else { 65536.0 });
        table
    };
    if ahp { ALTERNATIVE.get_or_init(|| build(true)) } else { IEEE.get_or_init(|| build(false)) }
}

/// The exact `x` (a representable value) in format `n`.
fn exact_bits(n: Width, x: f64) -> u64 {
    match n {
        Width::D => x.to_bits(),
        Width::S => (x as f32).to_bits() as u64,
        Width::H if x.is_infinite() => infinity(n) | zero(n, x < 0.0),
        Width::H => {
            let table = half_table(false);
            let m = table.partition_point(|v| *v < x.abs()) as u64;
            m | if x.is_sign_negative() { 0x8000 } else { 0 }
        }
    }
}

/// Round-to-nearest-even of a non-zero exact value to half precision, found by binary search with `cmp_mag(h)
/// = sign(|exact| - h)`: the result's magnitude bits (the entry past the end when it overflows), `sign(|exact| -
/// result)` and whether |exact| reaches the entry past the end.
fn half_rne(ahp: bool, cmp_mag: &dyn Fn(f64) -> Ordering) -> (u64, Ordering, bool) {
    let table = half_table(ahp);
    // The largest entry <= |exact|.
    let lo = table.partition_point(|v| cmp_mag(*v) != Ordering::Less) - 1;
    let r = if cmp_mag(table[lo]) == Ordering::Equal || lo == table.len() - 1 {
        lo
    } else {
        let mid = (table[lo] + table[lo + 1]) / 2.0;
        match cmp_mag(mid) {
            Ordering::Less => lo,
            Ordering::Greater => lo + 1,
            // Ties to the even encoding.
            Ordering::Equal => lo + lo % 2,
        }
    };
    let beyond = cmp_mag(table[table.len() - 1]) != Ordering::Less;
    (r as u64, cmp_mag(table[r]), beyond)
}

/// `half_rne` for an IEEE half result with the sign applied: `Rounded` for `compose`.
fn half_rounded(negative: bool, cmp_mag: &dyn Fn(f64) -> Ordering) -> Rounded {
    let (mag, sigma_mag, beyond) = half_rne(false, cmp_mag);
    let sigma = if negative { sigma_mag.reverse() } else { sigma_mag };
    Rounded { r: mag | zero(Width::H, negative), sigma: Some(sigma), beyond: Some(beyond) }
}

// ---- Exact residual signs for singles and doubles ----

/// `x = m * 2^e` with `1 <= |m| < 2`, exactly, for a finite non-zero double.
fn frexp(x: f64) -> (f64, i32) {
    let b = x.to_bits();
    let exp = (b >> 52 & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    (f64::from_bits(b & !(0x7ffu64 << 52) | 1023u64 << 52), exp - 1023)
}

/// `x * 2^k`, exactly when the result is a normal number or the scaling is upwards.
fn ldexp(mut x: f64, mut k: i32) -> f64 {
    let power = |k: i32| f64::from_bits(((1023 + k) as u64) << 52);
    while k > 1000 {
        x *= power(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= power(-1000);
        k += 1000;
    }
    x * power(k)
}

/// The exact sign of `x * y - z` for finite doubles (the host FMA on operands scaled to about [1, 4), where the
/// residual cannot underflow, rounds to a value of the residual's sign).
fn sign_of_mul_sub(x: f64, y: f64, z: f64) -> Ordering {
    if x == 0.0 || y == 0.0 {
        return 0.0f64.partial_cmp(&z).unwrap_or(Ordering::Equal);
    }
    let (mx, ex) = frexp(x);
    let (my, ey) = frexp(y);
    let zs = ldexp(z, -(ex + ey));
    mx.mul_add(my, -zs).partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// The host's round-to-nearest-even result of an arithmetic operation in single or double precision, and, when an
/// error-free transformation gives it, `sigma`.
fn host_rne(op: Op, n: Width, x: &[f64; 3]) -> (u64, Option<Ordering>) {
    macro_rules! two_sum {
        ($a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            let s = a + b;
            let bb = s - a;
            let err = (a - (s - bb)) + (b - bb);
            (s, err.partial_cmp(&0.0))
        }};
    }
    let (r, sigma_add): (f64, Option<Ordering>) = match (n, op) {
        (Width::S, Op::Add) => {
            let (s, e) = two_sum!(x[0] as f32, x[1] as f32);
            (s as f64, e)
        }
        (Width::S, Op::Sub) => {
            let (s, e) = two_sum!(x[0] as f32, -(x[1] as f32));
            (s as f64, e)
        }
        (Width::S, Op::Mul) => ((x[0] as f32 * x[1] as f32) as f64, None),
        (Width::S, Op::Div) => ((x[0] as f32 / x[1] as f32) as f64, None),
        (Width::S, Op::Sqrt) => ((x[0] as f32).sqrt() as f64, None),
        (Width::S, Op::MulAdd) => ((x[1] as f32).mul_add(x[2] as f32, x[0] as f32) as f64, None),
        (_, Op::Add) => two_sum!(x[0], x[1]),
        (_, Op::Sub) => two_sum!(x[0], -x[1]),
        (_, Op::Mul) => (x[0] * x[1], None),
        (_, Op::Div) => (x[0] / x[1], None),
        (_, Op::Sqrt) => (x[0].sqrt(), None),
        (_, Op::MulAdd) => (x[1].mul_add(x[2], x[0]), None),
        _ => unreachable!("not an arithmetic operation: {op:?}"),
    };
    let bits = if n == Width::S { (r as f32).to_bits() as u64 } else { r.to_bits() };
    if !r.is_finite() {
        return (bits, None);
    }
    let sigma = match op {
        Op::Add | Op::Sub => sigma_add,
        // sign(x*y - r)
        Op::Mul => Some(sign_of_mul_sub(x[0], x[1], r)),
        // sign(x/y - r) = sign(x - r*y) * sign(y)
        Op::Div => {
            let s = sign_of_mul_sub(r, x[1], x[0]).reverse();
            Some(if x[1] < 0.0 { s.reverse() } else { s })
        }
        // sign(sqrt(x) - r) = sign(x - r*r) for r >= 0
        Op::Sqrt => Some(sign_of_mul_sub(r, r, x[0]).reverse()),
        _ => None,
    };
    (bits, sigma)
}

/// `cmp(h) = sign(exact - h)` for the exact result of an arithmetic operation on halves, exact in double
/// precision for any half or midpoint between halves `h` (see each line).
fn half_cmp(op: Op, x: [f64; 3]) -> impl Fn(f64) -> Ordering {
    move |h: f64| {
        let d = match op {
            // Sums of halves and midpoints need at most 42 bits.
            Op::Add => (x[0] + x[1]) - h,
            Op::Sub => (x[0] - x[1]) - h,
            // A product of halves has 22 bits; the subtraction rounds but keeps its sign.
            Op::Mul => x[0] * x[1] - h,
            Op::MulAdd => x[1] * x[2] + (x[0] - h),
            Op::Div => (x[0] - h * x[1]) * x[1].signum(),
            Op::Sqrt => {
                if h < 0.0 {
                    1.0
                } else {
                    x[0] - h * h
                }
            }
            _ => unreachable!(),
        };
        d.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
    }
}

// ---- From the round-to-nearest-even result to any mode, with flush-to-zero ----

/// What an oracle knows about a finite non-zero exact result: its round-to-nearest-even bits `r` (infinity on
/// overflow), `sigma = sign(exact - r)` if known, and whether |exact| >= 2^(emax+1) if known.
struct Rounded {
    r: u64,
    sigma: Option<Ordering>,
    beyond: Option<bool>,
}

/// The expected result and flags of rounding the exact value in `rounded` in `rounding`, with output
/// flush-to-zero if `flush`: `(bits, fpsr, fpsr_mask)`, or `None` when the oracle cannot tell.
fn compose(n: Width, rounded: Rounded, rounding: FpRounding, flush: bool) -> Option<(u64, u32, u32)> {
    let Rounded { r, sigma, beyond } = rounded;
    let negative = is_negative(n, r);
    let mag = magnitude(n, r);
    let mut mask = ALL_FLAGS;
    // |exact| < MIN_NORMAL, which is Arm's tininess (before rounding).
    let tiny = match mag.cmp(&min_normal(n)) {
        Ordering::Less => Some(true),
        Ordering::Greater => Some(false),
        Ordering::Equal => sigma.map(|s| s == if negative { Ordering::Greater } else { Ordering::Less }),
    };
    if flush {
        match tiny {
            Some(true) => return Some((zero(n, negative), Fpsr::UFC, mask)),
            Some(false) => {}
            None => return None,
        }
    }
    if mag == infinity(n) {
        // Overflow in round-to-nearest-even: exact >= MAX + ulp/2.
        let to_infinity = match rounding {
            FpRounding::TieEven => true,
            FpRounding::PosInf => !negative,
            FpRounding::NegInf => negative,
            _ => false,
        };
        if to_infinity {
            return Some((r, Fpsr::OFC | Fpsr::IXC, mask));
        }
        // The largest normal; it overflowed only if the exact value reaches 2^(emax+1).
        let flags = match beyond {
            Some(true) => Fpsr::OFC | Fpsr::IXC,
            Some(false) => Fpsr::IXC,
            None => {
                mask &= !Fpsr::OFC;
                Fpsr::IXC
            }
        };
        return Some((r - 1, flags, mask));
    }
    let Some(sigma) = sigma else {
        // Only round-to-nearest-even is known, and not whether it was exact.
        if rounding != FpRounding::TieEven {
            return None;
        }
        mask &= !(Fpsr::IXC | Fpsr::UFC);
        let ufc = if tiny == Some(false) { 0 } else { Fpsr::UFC };
        return Some((r, ufc, if tiny == Some(false) { mask | Fpsr::UFC } else { mask }));
    };
    if sigma == Ordering::Equal {
        return Some((r, 0, mask));
    }
    let away_from_zero = (sigma == Ordering::Greater) != negative;
    let result = match rounding {
        FpRounding::PosInf if sigma == Ordering::Greater => next_up(n, r),
        FpRounding::NegInf if sigma == Ordering::Less => next_down(n, r),
        FpRounding::Zero if !away_from_zero => r - 1,
        _ => r,
    };
    let mut flags = Fpsr::IXC;
    if magnitude(n, result) == infinity(n) {
        flags |= Fpsr::OFC;
    }
    if tiny == Some(true) {
        flags |= Fpsr::UFC;
    }
    Some((result, flags, mask))
}

// ---- Case builders ----

/// The FPSR bits for flushing denormal inputs (`FPUnpack`): the flushed operands and IDC (never for halves).
fn flush_inputs(n: Width, args: &[u64], fpcr: FpCr) -> (Vec<u64>, u32) {
    let flush = if n == Width::H { fpcr.fz16 } else { fpcr.fz };
    let mut fpsr = 0;
    let flushed = args
        .iter()
        .map(|&x| {
            if flush && is_denormal(n, x) {
                if n != Width::H {
                    fpsr |= Fpsr::IDC;
                }
                zero(n, is_negative(n, x))
            } else {
                x
            }
        })
        .collect();
    (flushed, fpsr)
}

/// Arm's NaN propagation (FPProcessNaNs/FPProcessNaNs3), restated: signalling before quiet, then operand order;
/// a signalling NaN is quietened and raises Invalid Operation; DN gives the default NaN.
pub(super) fn arm_nan(n: Width, operands: &[u64], dn: bool) -> Option<(u64, u32)> {
    let chosen = operands.iter().find(|&&x| is_snan(n, x)).or_else(|| operands.iter().find(|&&x| is_qnan(n, x)))?;
    let fpsr = if is_snan(n, *chosen) { Fpsr::IOC } else { 0 };
    Some((if dn { default_nan(n) } else { *chosen | quiet_bit(n) }, fpsr))
}

fn make(op: Op, n: Width, args: &[u64], fpcr: u32, (expect, fpsr, fpsr_mask): (u64, u32, u32)) -> Case {
    let mut c = case(op, n, args, fpcr, expect, fpsr);
    c.fpsr_mask = fpsr_mask;
    c
}

/// The expectation for FPAdd, FPSub, FPMul, FPDiv, FPSqrt and FPMulAdd (args: addend, op1, op2), or `None`
/// where the oracle cannot tell.
pub(super) fn arithmetic(op: Op, n: Width, args: &[u64], fpcr_bits: u32) -> Option<Case> {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let rounding = fp_rounding_mode(fpcr);
    let (flushed, idc) = flush_inputs(n, args, fpcr);
    let done = |(bits, fpsr): (u64, u32)| Some(make(op, n, args, fpcr_bits, (bits, fpsr | idc, ALL_FLAGS)));

    // NaN operands; FPMulAdd's 0 * inf + qNaN is the default NaN and invalid (FPMulAdd, after FPProcessNaNs3).
    let x: Vec<f64> = flushed.iter().map(|&b| value(n, b)).collect();
    if op == Op::MulAdd && is_qnan(n, args[0]) {
        let (p1, p2) = (x[1], x[2]);
        if (p1.is_infinite() && p2 == 0.0) || (p1 == 0.0 && p2.is_infinite()) {
            return done((default_nan(n), Fpsr::IOC));
        }
    }
    if let Some(nan) = arm_nan(n, args, fpcr.dn) {
        return done(nan);
    }

    let x3 = [x[0], x.get(1).copied().unwrap_or(0.0), x.get(2).copied().unwrap_or(0.0)];
    let host = match op {
        Op::Add => x3[0] + x3[1],
        Op::Sub => x3[0] - x3[1],
        Op::Mul => x3[0] * x3[1],
        Op::Div => x3[0] / x3[1],
        Op::Sqrt => x3[0].sqrt(),
        Op::MulAdd => x3[1].mul_add(x3[2], x3[0]),
        _ => unreachable!(),
    };
    // Invalid operations: the host makes a NaN; Arm's result is the default NaN.
    if host.is_nan() {
        return done((default_nan(n), Fpsr::IOC));
    }
    // Infinite operands give exact infinities or zeros.
    if x3.iter().any(|v| v.is_infinite()) {
        return done((exact_bits(n, host), 0));
    }
    if op == Op::Div && x3[1] == 0.0 {
        return done((exact_bits(n, host), Fpsr::DZC));
    }

    // Exact zeros: the sign of a sum of opposite signs is + except when rounding towards minus infinity.
    let negative_bit = |i: usize| is_negative(n, flushed[i]);
    let mode_sign = rounding == FpRounding::NegInf;
    let exact_zero = match op {
        Op::Add => (x3[0] == -x3[1])
            .then(|| if x3[0] == 0.0 && negative_bit(0) == negative_bit(1) { negative_bit(0) } else { mode_sign }),
        Op::Sub => (x3[0] == x3[1])
            .then(|| if x3[0] == 0.0 && negative_bit(0) != negative_bit(1) { negative_bit(0) } else { mode_sign }),
        Op::Mul => (x3[0] == 0.0 || x3[1] == 0.0).then(|| negative_bit(0) != negative_bit(1)),
        Op::Div => (x3[0] == 0.0).then(|| negative_bit(0) != negative_bit(1)),
        Op::Sqrt => (x3[0] == 0.0).then(|| negative_bit(0)),
        Op::MulAdd => {
            let product_sign = negative_bit(1) != negative_bit(2);
            if x3[1] == 0.0 || x3[2] == 0.0 {
                (x3[0] == 0.0).then(|| if negative_bit(0) == product_sign { product_sign } else { mode_sign })
            } else {
                (sign_of_mul_sub(x3[1], x3[2], -x3[0]) == Ordering::Equal).then_some(mode_sign)
            }
        }
        _ => unreachable!(),
    };
    if let Some(negative) = exact_zero {
        return done((zero(n, negative), 0));
    }

    let rounded = if n == Width::H {
        let cmp = half_cmp(op, x3);
        let negative = cmp(0.0) == Ordering::Less;
        half_rounded(negative, &|h| if negative { cmp(-h).reverse() } else { cmp(h) })
    } else {
        let (r, sigma) = host_rne(op, n, &x3);
        Rounded { r, sigma, beyond: None }
    };
    let flush = if n == Width::H { fpcr.fz16 } else { fpcr.fz };
    let (bits, fpsr, mask) = compose(n, rounded, rounding, flush)?;
    Some(make(op, n, args, fpcr_bits, (bits, fpsr | idc, mask)))
}

/// FPRecipStepFused (`2 - op1 * op2`) and FPRSqrtStepFused (`(3 - op1 * op2) / 2`) as FPMulAdd of FPNeg(op1),
/// after their own `0 * inf` rule; in round-to-nearest-even when the oracle rests on the host FMA.
pub(super) fn step(op: Op, n: Width, a: u64, b: u64, fpcr_bits: u32) -> Option<Case> {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let neg_a = a ^ sign_bit(n);
    let (flushed, idc) = flush_inputs(n, &[neg_a, b], fpcr);
    let (x1, x2) = (value(n, flushed[0]), value(n, flushed[1]));
    let special = if op == Op::RecipStepFused {
        bits(n, false, n.bias() as u64 + 1, 0)
    } else {
        bits(n, false, n.bias() as u64, quiet_bit(n))
    };
    let nan = arm_nan(n, &[neg_a, b], fpcr.dn);
    if nan.is_none() && ((x1.is_infinite() && x2 == 0.0) || (x1 == 0.0 && x2.is_infinite())) {
        return Some(make(op, n, &[a, b], fpcr_bits, (special, idc, ALL_FLAGS)));
    }
    let mut c = if op == Op::RecipStepFused {
        arithmetic(Op::MulAdd, n, &[bits(n, false, n.bias() as u64 + 1, 0), neg_a, b], fpcr_bits)?
    } else {
        // (3 - a*b)/2 = 1.5 + (-a/2)*b, one rounding, where halving is exact and stays normal (or zero).
        let half = |x: u64| {
            let exp = x >> n.f() & ones(n.e());
            (exp >= 2 && exp != ones(n.e())).then(|| x - (1 << n.f()))
        };
        let args = if nan.is_some() || x1 == 0.0 || x1.is_infinite() {
            [bits(n, false, n.bias() as u64, quiet_bit(n)), neg_a, b]
        } else if let Some(h) = half(flushed[0]) {
            [bits(n, false, n.bias() as u64, quiet_bit(n)), h, b]
        } else {
            [bits(n, false, n.bias() as u64, quiet_bit(n)), neg_a, half(flushed[1])?]
        };
        // The product's Input Denormal flag belongs to the original operands.
        let mut c = arithmetic(Op::MulAdd, n, &args, fpcr_bits)?;
        c.fpsr = c.fpsr & !Fpsr::IDC | idc;
        c
    };
    c.op = op;
    c.args = [a, b, 0];
    Some(c)
}

/// FPMax, FPMin, FPMaxNum, FPMinNum.
pub(super) fn max_min(op: Op, n: Width, a: u64, b: u64, fpcr_bits: u32) -> Case {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let (flushed, idc) = flush_inputs(n, &[a, b], fpcr);
    let (mut p, mut q) = (flushed[0], flushed[1]);
    // maxNum/minNum: a single quiet NaN loses to any other operand.
    let infinity_sign = op == Op::MaxNum;
    if matches!(op, Op::MaxNum | Op::MinNum) {
        if is_qnan(n, p) && !is_qnan(n, q) {
            p = infinity(n) | zero(n, infinity_sign);
        } else if !is_qnan(n, p) && is_qnan(n, q) {
            q = infinity(n) | zero(n, infinity_sign);
        }
    }
    let (bits, fpsr) = if let Some(nan) = arm_nan(n, &[p, q], fpcr.dn) {
        nan
    } else {
        let (vp, vq) = (value(n, p), value(n, q));
        let want_max = matches!(op, Op::Max | Op::MaxNum);
        let first = if want_max { vp > vq } else { vp < vq };
        let chosen = if first { p } else { q };
        if vp == 0.0 && vq == 0.0 {
            // +0 is the larger zero.
            let negative =
                if want_max { is_negative(n, p) && is_negative(n, q) } else { is_negative(n, p) || is_negative(n, q) };
            (zero(n, negative), 0)
        } else {
            (chosen, 0)
        }
    };
    make(op, n, &[a, b], fpcr_bits, (bits, fpsr | idc, ALL_FLAGS))
}

/// FPCompare, FPCompareEQ, FPCompareGE, FPCompareGT.
pub(super) fn compare(op: Op, n: Width, a: u64, b: u64, fpcr_bits: u32) -> Case {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let (flushed, idc) = flush_inputs(n, &[a, b], fpcr);
    let (va, vb) = (value(n, flushed[0]), value(n, flushed[1]));
    let any_snan = is_snan(n, a) || is_snan(n, b);
    let (bits, fpsr) = match va.partial_cmp(&vb) {
        None => {
            let signals = match op {
                Op::Compare { signal_nans } => any_snan || signal_nans,
                Op::CompareEq => any_snan,
                _ => true,
            };
            let result = if matches!(op, Op::Compare { .. }) { 0b0011 } else { 0 };
            (result, if signals { Fpsr::IOC } else { 0 })
        }
        Some(order) => {
            let result = match op {
                Op::Compare { .. } => match order {
                    Ordering::Equal => 0b0110,
                    Ordering::Less => 0b1000,
                    Ordering::Greater => 0b0010,
                },
                Op::CompareEq => (order == Ordering::Equal) as u64,
                Op::CompareGe => (order != Ordering::Less) as u64,
                _ => (order == Ordering::Greater) as u64,
            };
            (result, 0)
        }
    };
    make(op, n, &[a, b], fpcr_bits, (bits, fpsr | idc, ALL_FLAGS))
}

/// A NaN converted between widths as Arm does (FPConvertNaN): sign kept, quietened, payload below the quiet bit
/// aligned at the top and cut or extended with zeros.
fn convert_nan(to: Width, from: Width, x: u64) -> u64 {
    let payload = x & (quiet_bit(from) - 1);
    let payload = if to.f() >= from.f() { payload << (to.f() - from.f()) } else { payload >> (from.f() - to.f()) };
    zero(to, is_negative(from, x)) | infinity(to) | quiet_bit(to) | payload
}

/// FPConvert from `from` to the case's width `to`.
pub(super) fn convert(to: Width, from: Width, a: u64, fpcr_bits: u32, rounding: FpRounding) -> Option<Case> {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let op = Op::Convert { from, rounding };
    let ahp = fpcr.ahp;
    let alt_hp = to == Width::H && ahp;
    // FPUnpackCV: FZ for single and double, FZ16 never; a half source follows AHP.
    let flush_in = from != Width::H && fpcr.fz;
    let (x, idc) =
        if flush_in && is_denormal(from, a) { (zero(from, is_negative(from, a)), Fpsr::IDC) } else { (a, 0) };
    let done = |(bits, fpsr, mask): (u64, u32, u32)| Some(make(op, to, &[a], fpcr_bits, (bits, fpsr | idc, mask)));
    let source_is_ahp = from == Width::H && ahp;
    let v = if source_is_ahp { half_value(x, true) } else { value(from, x) };
    let negative = is_negative(from, x);

    if v.is_nan() {
        let bits = if alt_hp {
            zero(to, negative)
        } else if fpcr.dn {
            default_nan(to)
        } else {
            convert_nan(to, from, x)
        };
        let ioc = if is_snan(from, x) || alt_hp { Fpsr::IOC } else { 0 };
        return done((bits, ioc, ALL_FLAGS));
    }
    if v.is_infinite() {
        return if alt_hp {
            done((zero(to, negative) | 0x7FFF, Fpsr::IOC, ALL_FLAGS))
        } else {
            done((infinity(to) | zero(to, negative), 0, ALL_FLAGS))
        };
    }
    if v == 0.0 {
        return done((zero(to, negative), 0, ALL_FLAGS));
    }
    let rounded = match to {
        Width::D => Rounded { r: v.to_bits(), sigma: Some(Ordering::Equal), beyond: Some(false) },
        Width::S => {
            let r = v as f32;
            Rounded {
                r: r.to_bits() as u64,
                sigma: v.partial_cmp(&(r as f64)),
                beyond: Some(v.abs() >= 2f64.powi(128)),
            }
        }
        Width::H => {
            let cmp_mag = |h: f64| v.abs().partial_cmp(&h).unwrap_or(Ordering::Equal);
            if alt_hp {
                return done(compose_ahp(negative, &cmp_mag, rounding));
            }
            half_rounded(negative, &cmp_mag)
        }
    };
    // FPRoundCV: FZ flushes single and double results; half results are never flushed.
    let flush_out = to != Width::H && fpcr.fz;
    done(compose(to, rounded, rounding, flush_out)?)
}

/// Rounding to alternative half precision: no infinities; a result that rounds to 2^17 or beyond saturates to
/// the largest magnitude with Invalid Operation and no Inexact (FPRoundBase's AHP branch).
fn compose_ahp(negative: bool, cmp_mag: &dyn Fn(f64) -> Ordering, rounding: FpRounding) -> (u64, u32, u32) {
    let (mag, sigma_mag, _) = half_rne(true, cmp_mag);
    let sentinel = 0x8000;
    let towards_zero = match rounding {
        FpRounding::PosInf => negative,
        FpRounding::NegInf => !negative,
        FpRounding::Zero => true,
        _ => false,
    };
    let result_mag = match sigma_mag {
        Ordering::Greater if rounding != FpRounding::TieEven && !towards_zero => mag + 1,
        Ordering::Less if towards_zero => mag - 1,
        _ => mag,
    };
    let sign = zero(Width::H, negative);
    if result_mag >= sentinel {
        return (sign | 0x7FFF, Fpsr::IOC, ALL_FLAGS);
    }
    let mut fpsr = 0;
    if sigma_mag != Ordering::Equal {
        fpsr |= Fpsr::IXC;
        // Tiny before rounding: |exact| < 2^-14.
        if mag < 0x400 || (mag == 0x400 && sigma_mag == Ordering::Less) {
            fpsr |= Fpsr::UFC;
        }
    }
    (sign | result_mag, fpsr, ALL_FLAGS)
}

/// `RoundDown`-based integer rounding of a double in `rounding`, as IEEE's roundToIntegral functions.
fn round_integral(v: f64, rounding: FpRounding) -> f64 {
    match rounding {
        FpRounding::TieEven => v.round_ties_even(),
        FpRounding::PosInf => v.ceil(),
        FpRounding::NegInf => v.floor(),
        FpRounding::Zero => v.trunc(),
        FpRounding::TieAway => v.round(),
        FpRounding::Odd => unreachable!(),
    }
}

/// FPToFixed from `from` to the case's integer width.
pub(super) fn to_fixed(
    m: Width,
    from: Width,
    a: u64,
    fbits: u32,
    unsigned: bool,
    fpcr_bits: u32,
    rounding: FpRounding,
) -> Case {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let (flushed, idc) = flush_inputs(from, &[a], fpcr);
    let v = value(from, flushed[0]);
    let op = Op::ToFixed { from, fbits, unsigned, rounding };
    let (bits, fpsr) = if v.is_nan() {
        (0, Fpsr::IOC)
    } else {
        let scaled = v * 2f64.powi(fbits as i32);
        let rounded = round_integral(scaled, rounding);
        let bits_m = m.n() as i32;
        let (max, min) =
            if unsigned { (2f64.powi(bits_m), 0.0) } else { (2f64.powi(bits_m - 1), -(2f64.powi(bits_m - 1))) };
        // max is one past the largest integer; min is the smallest.
        if rounded >= max {
            let top = if unsigned { ones(m.n()) } else { ones(m.n() - 1) };
            (top, Fpsr::IOC)
        } else if rounded < min {
            (if unsigned { 0 } else { 1 << (m.n() - 1) }, Fpsr::IOC)
        } else {
            let int = rounded as i128;
            let fpsr = if rounded != scaled { Fpsr::IXC } else { 0 };
            (int as u64 & ones(m.n()), fpsr)
        }
    };
    make(op, m, &[a], fpcr_bits, (bits, fpsr | idc, ALL_FLAGS))
}

/// `sign(i / 2^fbits - h)`, exactly, for an integer `i` and a finite double `h`.
fn cmp_scaled_integer(i: i128, fbits: u32, h: f64) -> Ordering {
    if h == 0.0 {
        return i.cmp(&0);
    }
    let negative_h = h < 0.0;
    if (i < 0) != negative_h || i == 0 {
        return if i == 0 { 0.0f64.partial_cmp(&h).unwrap_or(Ordering::Equal) } else { i.cmp(&0) };
    }
    // Same sign: compare |i| with |h| * 2^fbits = hm * 2^(he + fbits), hm an integer of 53 bits.
    let (m, e) = frexp(h.abs());
    let hm = (m * 2f64.powi(52)) as u128;
    let k = e - 52 + fbits as i32;
    let magnitude = i.unsigned_abs();
    let order = if k >= 0 {
        if k > 75 { Ordering::Less } else { magnitude.cmp(&(hm << k)) }
    } else if -k >= 64 {
        // hm * 2^k < 2^53 * 2^-64 < 1 <= magnitude
        Ordering::Greater
    } else {
        (magnitude << -k).cmp(&hm)
    };
    if negative_h { order.reverse() } else { order }
}

/// FixedToFP from an integer of width `from` to the case's width.
pub(super) fn fixed_to_fp(
    n: Width,
    from: Width,
    a: u64,
    fbits: u32,
    unsigned: bool,
    fpcr_bits: u32,
    rounding: FpRounding,
) -> Option<Case> {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let op = Op::FixedToFp { from, fbits, unsigned, rounding };
    let a = a & ones(from.n());
    let i: i128 = if unsigned || a >> (from.n() - 1) == 0 { a as i128 } else { a as i128 - (1i128 << from.n()) };
    if i == 0 {
        return Some(make(op, n, &[a], fpcr_bits, (0, 0, ALL_FLAGS)));
    }
    let scale = 2f64.powi(-(fbits as i32));
    let rounded = match n {
        Width::D => {
            let r = (i as f64) * scale;
            Rounded { r: r.to_bits(), sigma: Some(cmp_scaled_integer(i, fbits, r)), beyond: Some(false) }
        }
        Width::S => {
            let r = (i as f32) * scale as f32;
            Rounded { r: r.to_bits() as u64, sigma: Some(cmp_scaled_integer(i, fbits, r as f64)), beyond: Some(false) }
        }
        Width::H => {
            let negative = i < 0;
            let cmp_mag = |h: f64| {
                let c = cmp_scaled_integer(i, fbits, if negative { -h } else { h });
                if negative { c.reverse() } else { c }
            };
            half_rounded(negative, &cmp_mag)
        }
    };
    let flush = if n == Width::H { fpcr.fz16 } else { fpcr.fz };
    Some(make(op, n, &[a], fpcr_bits, compose(n, rounded, rounding, flush)?))
}

/// FPRoundInt and FPRoundIntN.
pub(super) fn round_int(op: Op, n: Width, a: u64, fpcr_bits: u32) -> Case {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let (flushed, idc) = flush_inputs(n, &[a], fpcr);
    let x = flushed[0];
    let v = value(n, x);
    let (rounding, exact, intsize) = match op {
        Op::RoundInt { rounding, exact } => (rounding, exact, None),
        Op::RoundIntN { rounding, intsize } => (rounding, true, Some(intsize)),
        _ => unreachable!(),
    };
    let most_negative = |intsize: Width| exact_bits(n, -(2f64.powi(intsize.n() as i32 - 1)));
    let (bits, fpsr) = match intsize {
        Some(size) if !v.is_finite() => (most_negative(size), Fpsr::IOC),
        _ if v.is_nan() => arm_nan(n, &[a], fpcr.dn).unwrap_or_default(),
        _ if v.is_infinite() || v == 0.0 => (x, 0),
        _ => {
            let rounded = round_integral(v, rounding);
            let limit = intsize.map(|size| 2f64.powi(size.n() as i32 - 1));
            match limit {
                Some(limit) if rounded >= limit || rounded < -limit => (most_negative(intsize.unwrap()), Fpsr::IOC),
                _ => {
                    // A zero result keeps the operand's sign, as the host's roundings do.
                    let fpsr = if exact && rounded != v { Fpsr::IXC } else { 0 };
                    (exact_bits(n, rounded), fpsr)
                }
            }
        }
    };
    make(op, n, &[a], fpcr_bits, (bits, fpsr | idc, ALL_FLAGS))
}

/// FPToFixedJS, with Z in bit 32.
pub(super) fn to_fixed_js(a: u64, fpcr_bits: u32) -> Case {
    let fpcr = FpCr::from_bits(fpcr_bits);
    let n = Width::D;
    let (flushed, idc) = flush_inputs(n, &[a], fpcr);
    let v = value(n, flushed[0]);
    let negative = is_negative(n, a);
    let (result, z, fpsr) = if !v.is_finite() {
        // NaNs and infinities: 0, Invalid Operation.
        (0, false, Fpsr::IOC)
    } else {
        let t = v.trunc();
        // ToInt32: the integer modulo 2^32, as its two's complement low bits.
        let low = t.rem_euclid(2f64.powi(32)) as u64 as u32;
        if t < -(2f64.powi(31)) || t > 2f64.powi(31) - 1.0 {
            (low, false, Fpsr::IOC)
        } else if t != v {
            (low, false, Fpsr::IXC)
        } else {
            // Z is clear for -0.0 and for any flushed denormal.
            let z = !(v == 0.0 && (negative || a & ones(52) != 0));
            (low, z, 0)
        }
    };
    make(Op::ToFixedJs, n, &[a], fpcr_bits, (result as u64 | (z as u64) << 32, fpsr | idc, ALL_FLAGS))
}
