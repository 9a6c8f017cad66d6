//! Floating point as NVIDIA GPUs compute it, on an exact IEEE 754 implementation (`rustc_apfloat`, LLVM's
//! APFloat): every rounding mode, fused multiply-add, conversions. What the GPU adds on top lives here:
//! - an FP32 or FP16 NaN result is the canonical NaN (`0x7fffffff`), whatever the operands' payloads; FP64
//!   arithmetic passes the first NaN operand on, quieted;
//! - `.FTZ` flushes denormal operands and results to zero of the same sign;
//! - `.SAT` clamps to [0, 1], NaN to 0;
//! - `.FMZ` makes 0 times anything (infinity and NaN included) 0;
//! - MIN/MAX return the number when one operand is NaN, and order -0 below +0.

use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use std::cmp::Ordering;

/// The FP32 NaN every arithmetic instruction returns.
pub const CANONICAL_NAN32: u32 = 0x7fff_ffff;
/// The FP64 NaN every arithmetic instruction returns.
pub const CANONICAL_NAN64: u64 = 0x7fff_ffff_ffff_ffff;
/// The FP16 NaN.
pub const CANONICAL_NAN16: u16 = 0x7fff;

/// The rounding field of arithmetic (`.RN`, `.RM`, `.RP`, `.RZ`) and of conversions to integer (nearest even,
/// `.FLOOR`, `.CEIL`, `.TRUNC`): the same four modes in the same order.
pub fn rounding(field: u64) -> Round {
    match field & 3 {
        0 => Round::NearestTiesToEven,
        1 => Round::TowardNegative,
        2 => Round::TowardPositive,
        _ => Round::TowardZero,
    }
}

/// How an FP32 result is finished.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    pub round: Round,
    pub ftz: bool,
    pub sat: bool,
}

pub fn flush32(bits: u32) -> u32 {
    if bits & 0x7f80_0000 == 0 { bits & 0x8000_0000 } else { bits }
}

pub fn flush64(bits: u64) -> u64 {
    if bits & 0x7ff0_0000_0000_0000 == 0 { bits & 1 << 63 } else { bits }
}

fn single(bits: u32) -> Single {
    Single::from_bits(u128::from(bits))
}

fn double(bits: u64) -> Double {
    Double::from_bits(u128::from(bits))
}

/// An FP32 operand as the instruction reads it.
fn operand32(bits: u32, ftz: bool) -> Single {
    single(if ftz { flush32(bits) } else { bits })
}

fn finish32(result: Single, mode: Mode) -> u32 {
    let mut bits = if result.is_nan() { CANONICAL_NAN32 } else { result.to_bits() as u32 };
    if mode.ftz {
        bits = flush32(bits);
    }
    if mode.sat { saturate32(bits) } else { bits }
}

/// `.SAT`: clamps to [0, 1]; NaN and negative values (-0 too) give +0.
pub fn saturate32(bits: u32) -> u32 {
    let value = single(bits);
    if value.is_nan() || value.is_negative() {
        0
    } else if value > Single::from_u128(1).value {
        0x3f80_0000
    } else {
        bits
    }
}

pub fn add32(a: u32, b: u32, mode: Mode) -> u32 {
    finish32(operand32(a, mode.ftz).add_r(operand32(b, mode.ftz), mode.round).value, mode)
}

/// A product with `.FMZ`: zero when either factor is zero, whatever the other is.
fn fmz_zero(a: Single, b: Single) -> Option<Single> {
    (a.is_zero() || b.is_zero()).then_some(Single::ZERO)
}

/// `scale` multiplies the exact product by 2^scale before rounding (FMUL's `.D2`, `.M4`, ...).
pub fn mul32(a: u32, b: u32, scale: i32, fmz: bool, mode: Mode) -> u32 {
    let (a, b) = (operand32(a, mode.ftz), operand32(b, mode.ftz));
    if fmz && let Some(zero) = fmz_zero(a, b) {
        return finish32(zero, mode);
    }
    if scale == 0 {
        return finish32(a.mul_r(b, mode.round).value, mode);
    }
    // Exactly in FP64 (a product of two 24-bit significands has 48 bits; scaling by 2^-3..2^3 stays in range),
    // rounded to FP32 once: overflow and denormals come from the scaled product, not from a scaled factor.
    let (a, b): (Double, Double) = (a.convert(&mut false).value, b.convert(&mut false).value);
    let product = a.mul_r(b, Round::NearestTiesToEven).value.scalbn_r(scale, Round::NearestTiesToEven);
    finish32(product.convert_r(mode.round, &mut false).value, mode)
}

pub fn fma32(a: u32, b: u32, c: u32, fmz: bool, mode: Mode) -> u32 {
    let (a, b, c) = (operand32(a, mode.ftz), operand32(b, mode.ftz), operand32(c, mode.ftz));
    if fmz && fmz_zero(a, b).is_some() {
        return finish32(Single::ZERO.add_r(c, mode.round).value, mode);
    }
    finish32(a.mul_add_r(b, c, mode.round).value, mode)
}

/// FMNMX: the smaller (`min`) or larger of the two; NaN loses to a number; -0 < +0.
/// SM86's FMNMX: `min_max32`, then with `nan` (.NAN, PTX's min.NaN) a NaN operand gives the canonical NaN, and
/// with `xorsign` (.XORSIGN, PTX's max.xorsign.abs) the result takes the sign bit of those bits: the exclusive or
/// of the registers before the operands' modifiers.
pub fn fmnmx(a: u32, b: u32, min: bool, ftz: bool, nan: bool, xorsign: Option<u32>) -> u32 {
    let is_nan = |bits: u32| bits & 0x7fff_ffff > 0x7f80_0000;
    let value = if nan && (is_nan(a) || is_nan(b)) { CANONICAL_NAN32 } else { min_max32(a, b, min, ftz) };
    match xorsign {
        Some(signs) => value & 0x7fff_ffff | signs & 0x8000_0000,
        None => value,
    }
}

pub fn min_max32(a: u32, b: u32, min: bool, ftz: bool) -> u32 {
    let (a, b) = (if ftz { flush32(a) } else { a }, if ftz { flush32(b) } else { b });
    let (x, y) = (single(a), single(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN32,
        (true, false) => b,
        (false, true) => a,
        _ => {
            let a_first = match x.partial_cmp(&y) {
                Some(Ordering::Less) => true,
                Some(Ordering::Greater) => false,
                // Equal: only the signs of zeros can differ.
                _ => x.is_negative(),
            };
            if a_first == min { a } else { b }
        }
    }
}

/// The comparison field of FSETP, FSET and DSETP: F, LT, EQ, LE, GT, NE, GE, NUM, NAN, LTU, EQU, LEU, GTU,
/// NEU, GEU, T. The U forms are also true when either operand is NaN; the others are then false.
pub fn compare(order: Option<Ordering>, cmp: u64) -> bool {
    let Some(order) = order else {
        // Unordered: NAN, the U forms and T hold.
        return matches!(cmp, 8..=15);
    };
    match cmp & 7 {
        0 => false, // F, and NAN, which an ordered pair fails
        1 => order == Ordering::Less,
        2 => order == Ordering::Equal,
        3 => order != Ordering::Greater,
        4 => order == Ordering::Greater,
        5 => order != Ordering::Equal,
        6 => order != Ordering::Less,
        _ => true, // NUM and T
    }
}

pub fn order32(a: u32, b: u32, ftz: bool) -> Option<Ordering> {
    operand32(a, ftz).partial_cmp(&operand32(b, ftz))
}

pub fn order64(a: u64, b: u64) -> Option<Ordering> {
    double(a).partial_cmp(&double(b))
}

/// DSETP.MIN/.MAX: whether min (max) returns `a` (a number beats NaN, -0 is below +0), and whether both are NaN.
pub fn min_max64_choice(a: u64, b: u64, min: bool) -> (bool, bool) {
    let (x, y) = (double(a), double(b));
    let pick_a = match (x.is_nan(), y.is_nan()) {
        (true, _) => false,
        (false, true) => true,
        _ => match x.partial_cmp(&y) {
            Some(Ordering::Less) => min,
            Some(Ordering::Greater) => !min,
            _ => x.is_negative() == min,
        },
    };
    (pick_a, x.is_nan() && y.is_nan())
}

// ---------------------------------------------------------------------------------------------------------------
// FP64.

/// An FP64 result. Unlike FP32, FP64 arithmetic propagates NaN operands, as the registers hold them (before the
/// instruction's negate and absolute-value modifiers), quieted: the second operand's NaN first, then the
/// addend's of a fused multiply-add, then the first operand's (as an H200 does). Only a NaN the operation creates
/// (infinity minus infinity, zero times infinity) is the canonical one.
fn finish64(result: Double, raw_operands: &[u64]) -> u64 {
    if !result.is_nan() {
        return result.to_bits() as u64;
    }
    let preference = [1, 2, 0];
    let nan = preference.iter().filter_map(|&i| raw_operands.get(i)).find(|&&bits| double(bits).is_nan());
    nan.map_or(CANONICAL_NAN64, |&bits| bits | QUIET_BIT64)
}

const QUIET_BIT64: u64 = 1 << 51;

/// The FP64 operation on `operands` (after modifiers); `raw` are the same operands before them.
pub fn arith64(op: ArithOp, operands: [u64; 3], raw: [u64; 3], round: Round) -> u64 {
    let [a, b, c] = operands.map(double);
    let (result, count) = match op {
        ArithOp::Add => (a.add_r(b, round).value, 2),
        ArithOp::Mul => (a.mul_r(b, round).value, 2),
        ArithOp::Fma => (a.mul_add_r(b, c, round).value, 3),
    };
    finish64(result, &raw[..count])
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions. Float types are numbered as the instructions number them: 1 FP16, 2 FP32, 3 FP64.

/// A float of type `ty` from its bits.
#[derive(Debug, Clone, Copy)]
pub enum AnyFloat {
    F16(Half),
    F32(Single),
    F64(Double),
}

impl AnyFloat {
    pub fn from_bits(ty: u64, bits: u64, ftz: bool) -> AnyFloat {
        match ty {
            1 => AnyFloat::F16(Half::from_bits(u128::from(bits as u16))),
            3 => AnyFloat::F64(double(if ftz { flush64(bits) } else { bits })),
            _ => AnyFloat::F32(operand32(bits as u32, ftz)),
        }
    }

    fn is_nan(self) -> bool {
        match self {
            AnyFloat::F16(x) => x.is_nan(),
            AnyFloat::F32(x) => x.is_nan(),
            AnyFloat::F64(x) => x.is_nan(),
        }
    }

    fn to_int(self, width: usize, signed: bool, round: Round) -> u64 {
        let mut exact = false;
        macro_rules! convert {
            ($x:expr) => {
                if signed {
                    $x.to_i128_r(width, round, &mut exact).value as u64
                } else {
                    $x.to_u128_r(width, round, &mut exact).value as u64
                }
            };
        }
        match self {
            AnyFloat::F16(x) => convert!(x),
            AnyFloat::F32(x) => convert!(x),
            AnyFloat::F64(x) => convert!(x),
        }
    }

    /// The sign, and the payload's top bits aligned at bit 63, of a NaN.
    fn nan_parts(self) -> (bool, u64) {
        let (bits, mantissa_bits, width) = match self {
            AnyFloat::F16(x) => (x.to_bits() as u64, 10, 16),
            AnyFloat::F32(x) => (x.to_bits() as u64, 23, 32),
            AnyFloat::F64(x) => (x.to_bits() as u64, 52, 64),
        };
        let payload = bits & ((1 << mantissa_bits) - 1);
        (bits >> (width - 1) & 1 != 0, payload << (64 - mantissa_bits))
    }

    /// Converts to type `ty`, rounding with `round`. A NaN keeps its sign and the top of its payload, quieted,
    /// when FP64 is on either side; between FP16 and FP32 it becomes the canonical NaN.
    fn to_type(self, ty: u64, round: Round, ftz: bool) -> u64 {
        if self.is_nan() {
            let from_f64 = matches!(self, AnyFloat::F64(_));
            if !from_f64 && ty != 3 {
                return if ty == 1 { u64::from(CANONICAL_NAN16) } else { u64::from(CANONICAL_NAN32) };
            }
            let (negative, payload) = self.nan_parts();
            let (exponent_and_quiet, mantissa_bits, width) = match ty {
                1 => (0x7e00u64, 10, 16),
                3 => (0x7ff8_0000_0000_0000, 52, 64),
                _ => (0x7fc0_0000, 23, 32),
            };
            let sign = u64::from(negative) << (width - 1);
            return sign | exponent_and_quiet | payload >> (64 - mantissa_bits);
        }
        let mut loses = false;
        macro_rules! to {
            ($x:expr) => {
                match ty {
                    1 => {
                        let value: Half = $x.convert_r(round, &mut loses).value;
                        value.to_bits() as u64
                    }
                    3 => {
                        let value: Double = $x.convert_r(round, &mut loses).value;
                        let bits = value.to_bits() as u64;
                        if ftz { flush64(bits) } else { bits }
                    }
                    _ => {
                        let value: Single = $x.convert_r(round, &mut loses).value;
                        let bits = value.to_bits() as u32;
                        u64::from(if ftz { flush32(bits) } else { bits })
                    }
                }
            };
        }
        match self {
            AnyFloat::F16(x) => to!(x),
            AnyFloat::F32(x) => to!(x),
            AnyFloat::F64(x) => to!(x),
        }
    }
}

/// F2I: float of type `src` to an integer of `8 << size` bits, saturating. NaN gives the integer's top bit alone
/// when converting from FP64 or to 64 bits, and 0 otherwise (as an H200 does).
pub fn float_to_int(bits: u64, src: u64, size: u64, signed: bool, round: Round, ftz: bool) -> u64 {
    let value = AnyFloat::from_bits(src, bits, ftz);
    let width = 8usize << (size & 3);
    if value.is_nan() {
        return if src == 3 || width == 64 { 1 << (width - 1) } else { 0 };
    }
    let result = value.to_int(width, signed, round);
    if width == 64 { result } else { result & ((1u64 << width) - 1) }
}

/// I2F: an integer of `8 << size` bits (already extracted and extended to 64) to a float of type `dst`.
pub fn int_to_float(value: u64, signed: bool, dst: u64, round: Round) -> u64 {
    macro_rules! from {
        ($t:ty) => {{
            let result: $t = if signed {
                <$t>::from_i128_r(i128::from(value as i64), round).value
            } else {
                <$t>::from_u128_r(u128::from(value), round).value
            };
            result.to_bits() as u64
        }};
    }
    match dst {
        1 => from!(Half),
        3 => from!(Double),
        _ => from!(Single),
    }
}

/// F2F: float of type `src` to type `dst`.
pub fn float_to_float(bits: u64, src: u64, dst: u64, round: Round, ftz: bool) -> u64 {
    AnyFloat::from_bits(src, bits, ftz).to_type(dst, round, ftz)
}

/// FP32 to BF16 (the top half of an FP32), rounded; NaN gives the canonical BF16 NaN.
pub fn f32_to_bf16(bits: u32, round: Round) -> u16 {
    let value = single(bits);
    if value.is_nan() {
        return 0x7fff;
    }
    let mut loses = false;
    let result: BFloat = value.convert_r(round, &mut loses).value;
    result.to_bits() as u16
}

/// FRND: rounds to an integral value in the same type.
pub fn round_integral(bits: u64, ty: u64, round: Round, ftz: bool) -> u64 {
    match AnyFloat::from_bits(ty, bits, ftz) {
        AnyFloat::F16(x) if x.is_nan() => u64::from(CANONICAL_NAN16),
        AnyFloat::F32(x) if x.is_nan() => u64::from(CANONICAL_NAN32),
        AnyFloat::F64(x) if x.is_nan() => bits | QUIET_BIT64,
        AnyFloat::F16(x) => x.round_to_integral(round).value.to_bits() as u64,
        AnyFloat::F32(x) => {
            let bits = x.round_to_integral(round).value.to_bits() as u32;
            u64::from(if ftz { flush32(bits) } else { bits })
        }
        AnyFloat::F64(x) => x.round_to_integral(round).value.to_bits() as u64,
    }
}

/// One FP64 operand of a warp-wide instruction: its value after the modifiers, and the register's bits before them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Operand64 {
    pub value: u64,
    pub raw: u64,
}

/// DMMA.884 (mma.m8n8k4 of FP64) for a whole warp: lane l holds A[l / 4][l % 4], B[l % 4][l / 4] and C[l / 4][2 (l % 4)
/// + i] (i = 0, 1); D[r][c] is C[r][c] followed by the fused multiply-adds of A[r][k] x B[k][c] in k order, each
/// rounded in `round` with DFMA's NaN rules (an H200 gives exactly this chain). Lane l's two results, as C's.
pub fn dmma_884(a: &[Operand64; 32], b: &[Operand64; 32], c: &[[Operand64; 2]; 32], round: Round) -> [[u64; 2]; 32] {
    std::array::from_fn(|lane| {
        let row = lane / 4;
        std::array::from_fn(|i| {
            let column = 2 * (lane % 4) + i;
            (0..4)
                .fold(c[lane][i], |accumulator, k| {
                    let (x, y) = (a[4 * row + k], b[4 * column + k]);
                    let operands = [x.value, y.value, accumulator.value];
                    let value = arith64(ArithOp::Fma, operands, [x.raw, y.raw, accumulator.raw], round);
                    Operand64 { value, raw: value }
                })
                .value
        })
    })
}

// ---------------------------------------------------------------------------------------------------------------
// FP16 pairs (HADD2, HMUL2, HFMA2): each half computed exactly and rounded to nearest even once.

/// An arithmetic operation (FP16 pairs and FP64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Mul,
    Fma,
}

/// How a half result is finished: `.FTZ`, `.SAT` (clamped to [0, 1], NaN to +0), `.RELU` (negative results
/// become +0; NaN stays the canonical NaN, as an H200 gives it); `bf16`: the halves are BF16 (.BF16_V2), else
/// FP16.
#[derive(Debug, Clone, Copy)]
pub struct HalfMode {
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub bf16: bool,
}

pub fn flush16(bits: u16) -> u16 {
    if bits & 0x7c00 == 0 { bits & 0x8000 } else { bits }
}

fn half(bits: u16, ftz: bool) -> Half {
    Half::from_bits(u128::from(if ftz { flush16(bits) } else { bits }))
}

/// One half of HADD2, HMUL2 or HFMA2: exact, rounded to nearest even once (FP16, or BF16 with `mode.bf16`).
pub fn half_arith(op: ArithOp, a: u16, b: u16, c: u16, mode: HalfMode) -> u16 {
    if mode.bf16 {
        let value = |bits: u16| BFloat::from_bits(u128::from(bits));
        let result = arith(op, [value(a), value(b), value(c)]);
        finish_half(result, result.to_bits() as u16, BFloat::from_u128(1).value, 0x3f80, mode)
    } else {
        let result = arith(op, [a, b, c].map(|x| half(x, mode.ftz)));
        let bits = result.to_bits() as u16;
        finish_half(result, if mode.ftz { flush16(bits) } else { bits }, Half::from_u128(1).value, 0x3c00, mode)
    }
}

fn arith<F: Float>(op: ArithOp, [a, b, c]: [F; 3]) -> F {
    let round = Round::NearestTiesToEven;
    match op {
        ArithOp::Add => a.add_r(b, round).value,
        ArithOp::Mul => a.mul_r(b, round).value,
        ArithOp::Fma => a.mul_add_r(b, c, round).value,
    }
}

/// A half result's `bits` (of `result`) after NaN canonicalisation, .SAT and .RELU (`one`: 1.0, its bits).
fn finish_half<F: Float>(result: F, bits: u16, one: F, one_bits: u16, mode: HalfMode) -> u16 {
    if result.is_nan() {
        return if mode.sat { 0 } else { CANONICAL_NAN16 };
    }
    if (mode.sat || mode.relu) && result.is_negative() {
        return 0;
    }
    if mode.sat && result > one { one_bits } else { bits }
}

/// The same operation on the halves widened to FP32 (the `.F32` forms, which produce one FP32 result).
pub fn half_arith_to_f32(op: ArithOp, a: u16, b: u16, c: u16, mode: HalfMode) -> u32 {
    let widen = |bits: u16| {
        float_to_float(u64::from(if mode.ftz { flush16(bits) } else { bits }), 1, 2, Round::NearestTiesToEven, false)
            as u32
    };
    let f32_mode = Mode { round: Round::NearestTiesToEven, ftz: mode.ftz, sat: mode.sat };
    match op {
        ArithOp::Add => add32(widen(a), widen(b), f32_mode),
        ArithOp::Mul => mul32(widen(a), widen(b), 0, false, f32_mode),
        ArithOp::Fma => fma32(widen(a), widen(b), widen(c), false, f32_mode),
    }
}

pub fn order16(a: u16, b: u16, ftz: bool) -> Option<Ordering> {
    half(a, ftz).partial_cmp(&half(b, ftz))
}

/// HMNMX2 on one half: as [`min_max32`], on FP16.
pub fn min_max16(a: u16, b: u16, min: bool, ftz: bool, bf16: bool) -> u16 {
    let (a, b) = (if ftz { flush16(a) } else { a }, if ftz { flush16(b) } else { b });
    // Compared as FP32, exactly: a BF16 is an FP32's top half.
    let value = |bits: u16| -> Single {
        if bf16 { single(u32::from(bits) << 16) } else { half(bits, false).convert(&mut false).value }
    };
    let (x, y) = (value(a), value(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN16,
        (true, false) => b,
        (false, true) => a,
        _ => {
            let a_first = match x.partial_cmp(&y) {
                Some(Ordering::Less) => true,
                Some(Ordering::Greater) => false,
                _ => x.is_negative(),
            };
            if a_first == min { a } else { b }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// MUFU: the special function unit. Its results are approximations whose exact bits NVIDIA does not document;
// these return the correctly rounded value of the function, which is within the unit's stated error. Denormal
// operands and results are flushed, as the unit does.

/// MUFU's functions in the order of its `func` field.
pub fn special_function(func: u64, x: u32) -> Option<u32> {
    let value = f64::from(f32::from_bits(flush32(x)));
    let result = match func {
        0 | 1 => sin_cos_turns(value, func == 1),
        2 => value.exp2(),
        3 => value.log2(),
        4 => 1.0 / value,
        5 => 1.0 / value.sqrt(),
        8 => value.sqrt(),
        9 => value.tanh(),
        _ => return None,
    };
    let bits = (result as f32).to_bits();
    Some(if result.is_nan() { CANONICAL_NAN32 } else { flush32(bits) })
}

/// SIN (`sine`) or COS of an argument in turns, whose fraction alone matters (exactly computed, so that an
/// argument too large to have one gives the function of 0, as the unit does). The fraction is reduced to the
/// nearest quarter turn and a remainder within an eighth, so that whole quarter turns give exact zeros and ones:
/// a Tegra X1's MUFU.COS of RRO.SINCOS(pi/2) is 0 exactly (nxgpucatch's mufu.cpp).
fn sin_cos_turns(value: f64, sine: bool) -> f64 {
    let quarters = 4.0 * (value - value.trunc());
    let nearest = quarters.round_ties_even();
    let angle = (quarters - nearest) * std::f64::consts::FRAC_PI_2;
    // The quarter turns before the remainder, and the quadrant's function of it.
    let (cos, sin) = (angle.cos(), angle.sin());
    match (nearest as i64 + if sine { 3 } else { 0 }).rem_euclid(4) {
        0 => cos,
        1 => -sin,
        2 => -cos,
        _ => sin,
    }
}

/// MUFU's functions with .F16: of an FP16 value, the FP32 function's value rounded to FP16 (nearest even); NaN
/// gives the canonical 0x7fff.
pub fn special_function16(func: u64, x: u16) -> Option<u16> {
    let wide = float_to_float(u64::from(x), 1, 2, Round::NearestTiesToEven, false) as u32;
    let result = special_function(func, wide)?;
    if single(result).is_nan() {
        return Some(CANONICAL_NAN16);
    }
    Some(float_to_float(u64::from(result), 2, 1, Round::NearestTiesToEven, false) as u16)
}

/// MUFU.RCP64H and MUFU.RSQ64H: the high word of an FP64 reciprocal (square root) seed from the high word of
/// the operand; the low word of the result is zero.
pub fn special_function64h(func: u64, high: u32) -> Option<u32> {
    let value = f64::from_bits(u64::from(high) << 32);
    let result = match func {
        6 => 1.0 / value,
        7 => 1.0 / value.sqrt(),
        _ => return None,
    };
    Some(if result.is_nan() { (CANONICAL_NAN64 >> 32) as u32 } else { (result.to_bits() >> 32) as u32 })
}

/// FCHK.DIVIDE: whether `a / b` needs the exact slow path, which is taken for any operand that is not a normal
/// number and whenever the quotient or the intermediate reciprocal could leave the normal range. Taking the
/// slow path more often than the hardware changes no result (both paths are exact); taking it less would.
pub fn division_needs_slow_path(a: u32, b: u32) -> bool {
    let exponent = |bits: u32| (bits >> 23 & 0xff) as i32;
    let (ea, eb) = (exponent(a), exponent(b));
    let normal = |e: i32| e != 0 && e != 0xff;
    // A zero dividend too: the fast path's `a * (1/b) + 0` loses the sign of a zero quotient.
    if !normal(ea) || !normal(eb) {
        return true;
    }
    let difference = ea - eb;
    !(-125..=125).contains(&difference) || eb >= 253 || ea >= 252 || ea <= 24
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: Mode = Mode { round: Round::NearestTiesToEven, ftz: false, sat: false };

    #[test]
    fn directed_rounding_of_a_sum() {
        // 1 + 2^-30 is not representable: RN and RZ give 1, RP the next float up.
        let (one, tiny) = (1.0f32.to_bits(), 2f32.powi(-30).to_bits());
        assert_eq!(add32(one, tiny, RN), one);
        assert_eq!(add32(one, tiny, Mode { round: Round::TowardPositive, ..RN }), one + 1);
        assert_eq!(add32(one, tiny, Mode { round: Round::TowardZero, ..RN }), one);
    }

    #[test]
    fn nan_results_are_canonical_and_ftz_flushes() {
        assert_eq!(add32(f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits(), RN), CANONICAL_NAN32);
        assert_eq!(add32(0xffc0_1234, 0, RN), CANONICAL_NAN32);
        let denormal = 1;
        assert_eq!(add32(denormal, 0, RN), denormal);
        assert_eq!(add32(denormal, 0, Mode { ftz: true, ..RN }), 0);
        assert_eq!(add32(denormal | 1 << 31, 0x8000_0000, Mode { ftz: true, ..RN }), 0x8000_0000);
    }

    #[test]
    fn saturation_and_min_max() {
        assert_eq!(saturate32(CANONICAL_NAN32), 0);
        assert_eq!(saturate32((-0.0f32).to_bits()), 0);
        assert_eq!(saturate32(2.0f32.to_bits()), 1.0f32.to_bits());
        assert_eq!(min_max32(CANONICAL_NAN32, 3.0f32.to_bits(), true, false), 3.0f32.to_bits());
        assert_eq!(min_max32(0, 0x8000_0000, true, false), 0x8000_0000);
        assert_eq!(min_max32(0, 0x8000_0000, false, false), 0);
    }

    /// The ampere kernel's H200 results (`tests/sass/cuda/results/ampere.out`): for each of its 128 threads, the
    /// words of its input record (`in + 16 * thread`, then the FP32 operands at `+ 4096`) and the word at `offset`
    /// of its output record, which the PTX computed from them.
    fn ampere_results(offset: usize) -> Vec<([u32; 4], [u32; 4], u32)> {
        let path = crate::sass::corpus::Corpus::source_tree().join("cuda/results/ampere.out");
        let results = std::fs::read(path).unwrap();
        let word = |at: usize| u32::from_le_bytes(results[at..at + 4].try_into().unwrap());
        (0..128)
            .map(|t| {
                let input = 0x10000 + 16 * t;
                (
                    [0, 4, 8, 12].map(|i| word(input + i)),
                    [0, 4, 8, 12].map(|i| word(input + 4096 + i)),
                    word(512 * t + offset),
                )
            })
            .collect()
    }

    fn halves(word: u32) -> [u16; 2] {
        [word as u16, (word >> 16) as u16]
    }

    /// FMNMX.NAN and FMNMX.XORSIGN (ptxas's min.NaN.f32 and max.xorsign.abs.f32), NaNs among the operands.
    #[test]
    fn fmnmx_nan_and_xorsign_give_what_the_h200_gave() {
        for (_, [f1, f2, _, _], min_nan) in ampere_results(208) {
            assert_eq!(fmnmx(f1, f2, true, false, true, None), min_nan, "min.NaN of {f1:#x}, {f2:#x}");
        }
        for (_, [_, _, f3, f4], max_xorsign) in ampere_results(212) {
            let (a, b) = (f3 & 0x7fff_ffff, f4 & 0x7fff_ffff);
            assert_eq!(fmnmx(a, b, false, false, false, Some(f3 ^ f4)), max_xorsign, "xorsign of {f3:#x}, {f4:#x}");
        }
    }

    /// HFMA2.RELU (fma.rn.relu.f16x2: NaN stays NaN), HFMA2.BF16_V2 (fma.rn.bf16x2), HMNMX2 (min.f16x2),
    /// HMNMX2.NAN (max.NaN.f16x2) and HMNMX2.BF16_V2 (min.bf16x2), each half.
    #[test]
    fn packed_half_arithmetic_gives_what_the_h200_gave() {
        let mode = |relu: bool, bf16: bool| HalfMode { ftz: false, sat: false, relu, bf16 };
        let fma = |[a, b, c]: [u32; 3], i: usize, mode: HalfMode| {
            half_arith(ArithOp::Fma, halves(a)[i], halves(b)[i], halves(c)[i], mode)
        };
        check_halves(60, |[r2, r3, r4, _], i| fma([r2, r3, r4], i, mode(true, false)));
        check_halves(64, |[_, r3, r4, r5], i| fma([r3, r4, r5], i, mode(false, true)));
        check_halves(52, |[r2, r3, _, _], i| min_max16(halves(r2)[i], halves(r3)[i], true, false, false));
        check_halves(56, |[_, r3, r4, _], i| {
            let (x, y) = (halves(r3)[i], halves(r4)[i]);
            let nan = |h: u16| h & 0x7fff > 0x7c00;
            if nan(x) || nan(y) { CANONICAL_NAN16 } else { min_max16(x, y, false, false, false) }
        });
        check_halves(68, |[r2, _, _, r5], i| min_max16(halves(r2)[i], halves(r5)[i], true, false, true));
    }

    /// DMMA.884 (mma.m8n8k4.f64 of fd1 as A and C's first, fd2 as B and C's second, from in + 8192 + 16 * thread),
    /// every warp, NaNs among the operands, bit for bit.
    #[test]
    fn dmma_gives_what_the_h200_gave() {
        let path = crate::sass::corpus::Corpus::source_tree().join("cuda/results/ampere.out");
        let results = std::fs::read(path).unwrap();
        let double = |at: usize| u64::from_le_bytes(results[at..at + 8].try_into().unwrap());
        for warp in 0..4 {
            let thread = |lane: usize| 32 * warp + lane;
            let operand = |lane: usize, which: usize| {
                let bits = double(0x10000 + 8192 + 16 * thread(lane) + 8 * which);
                Operand64 { value: bits, raw: bits }
            };
            let (a, b) = (std::array::from_fn(|l| operand(l, 0)), std::array::from_fn(|l| operand(l, 1)));
            let c = std::array::from_fn(|l| [operand(l, 0), operand(l, 1)]);
            let d = dmma_884(&a, &b, &c, Round::NearestTiesToEven);
            for lane in 0..32 {
                let gpu = [0, 1].map(|i| double(512 * thread(lane) + 280 + 8 * i));
                assert_eq!(d[lane], gpu, "warp {warp} lane {lane}");
            }
        }
    }

    /// Each half of the word at `offset` of every thread's record against `expected` of its input words.
    fn check_halves(offset: usize, expected: impl Fn([u32; 4], usize) -> u16) {
        for (input, _, result) in ampere_results(offset) {
            for i in 0..2 {
                assert_eq!(expected(input, i), halves(result)[i], "out+{offset:#x}, half {i} of {input:x?}");
            }
        }
    }

    /// F2FP.RELU.BF16.PACK_AB (cvt.rn.relu.bf16x2.f32: negative results +0, NaN the canonical NaN) and
    /// F2FP.PACK_AB (cvt.rn.f16x2.f32); the first operand in the high half.
    #[test]
    fn packing_conversions_give_what_the_h200_gave() {
        let relu_bf16 = |x: u32| {
            let value = f32_to_bf16(x, Round::NearestTiesToEven);
            if value & 0x8000 != 0 { 0 } else { value }
        };
        for (_, [_, _, f3, f4], packed) in ampere_results(76) {
            assert_eq!([relu_bf16(f4), relu_bf16(f3)], halves(packed), "{f3:#x}, {f4:#x}");
        }
        let f16 = |x: u32| float_to_float(u64::from(x), 2, 1, Round::NearestTiesToEven, false) as u16;
        for (_, [f1, f2, _, _], packed) in ampere_results(72) {
            assert_eq!([f16(f2), f16(f1)], halves(packed), "{f1:#x}, {f2:#x}");
        }
    }

    #[test]
    fn conversions_saturate_and_map_nan_to_zero() {
        let round = Round::TowardZero;
        assert_eq!(float_to_int(u64::from(CANONICAL_NAN32), 2, 2, true, round, false), 0);
        assert_eq!(float_to_int(u64::from(3e10f32.to_bits()), 2, 2, true, round, false), 0x7fff_ffff);
        assert_eq!(float_to_int(u64::from((-3e10f32).to_bits()), 2, 2, true, round, false), 0x8000_0000);
        assert_eq!(float_to_int(u64::from((-1.5f32).to_bits()), 2, 2, false, round, false), 0);
        assert_eq!(int_to_float(u64::MAX, true, 2, Round::NearestTiesToEven), u64::from((-1.0f32).to_bits()));
    }
}
