//! Advanced SIMD arithmetic shared by the vector and the scalar classes (`simd_vector.rs`, `simd_scalar.rs`): the
//! element operations of the instruction pages, each written once whichever class decodes to it, and the loops
//! over elements the pages' pseudocode writes around them.
//!
//! A scalar form runs its page's pseudocode with one element (`datasize = esize`), as the pages say. A by-element
//! form is its vector operation with the indexed element in every lane (the pages read `Elem[operand2, index,
//! esize]` for each e), so the operations here take operand values, and the class decoders read the registers.
//!
//! The pseudocode's unbounded `integer` is `i128` (see `pseudocode::int`); left shifts, which could leave that
//! range, go through `shift_left_int`.

use super::Exec;
use super::pseudocode::{
    bit_reverse, count_leading_sign_bits, count_leading_zero_bits, elem, int, ones, ones128, polynomial_mult, sat_q,
    set_elem, sign_extend,
};
use crate::float::{
    FpCr, FpRounding, Fpsr, Width, fixed_to_fp, fp_abs, fp_add, fp_compare_eq, fp_compare_ge, fp_compare_gt,
    fp_convert, fp_div, fp_max, fp_max_num, fp_min, fp_min_num, fp_mul, fp_mul_add, fp_mul_x, fp_neg,
    fp_recip_estimate, fp_recip_step_fused, fp_recp_x, fp_round_int, fp_rounding_mode, fp_rsqrt_estimate,
    fp_rsqrt_step_fused, fp_sqrt, fp_sub, fp_to_fixed, fp_zero, unsigned_recip_estimate, unsigned_rsqrt_estimate,
};

/// FPSR.QC, the cumulative saturation bit.
const FPSR_QC: u32 = 1 << 27;

/// The elements an instruction works on: `esize` bits each, `datasize` bits in all.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Shape {
    pub(super) esize: u32,
    /// 64 or 128 for a vector; `esize` for a scalar.
    pub(super) datasize: u32,
}

impl Shape {
    /// A vector of `8 << size`-bit elements, 64 bits (q = 0) or 128 (q = 1).
    pub(super) fn vector(size: u32, q: u32) -> Shape {
        Shape { esize: 8 << size, datasize: 64 << q }
    }

    /// A scalar: one element of `esize` bits.
    pub(super) fn scalar(esize: u32) -> Shape {
        Shape { esize, datasize: esize }
    }

    pub(super) fn elements(self) -> u32 {
        self.datasize / self.esize
    }

    /// The floating-point format of the elements (16, 32 or 64 bits wide, as every FP decode makes them).
    pub(super) fn width(self) -> Width {
        fp_width(self.esize)
    }
}

/// The floating-point format of `esize`-bit elements: half, single or double precision.
pub(super) fn fp_width(esize: u32) -> Width {
    match esize {
        16 => Width::H,
        32 => Width::S,
        _ => Width::D,
    }
}

/// A value of `elements` elements of `esize` bits, element e being `f(e)`.
pub(super) fn map_elements(esize: u32, elements: u32, mut f: impl FnMut(u32) -> u64) -> u128 {
    let mut result = 0;
    for e in 0..elements {
        set_elem(&mut result, e, esize, f(e));
    }
    result
}

/// Element `i` of `operand2:operand1` (`concat` in the pairwise pages), where each operand holds `elements`.
fn concat_elem(operand1: u128, operand2: u128, i: u32, esize: u32, elements: u32) -> u64 {
    if i < elements { elem(operand1, i, esize) } else { elem(operand2, i - elements, esize) }
}

/// `Reduce(op, input, esize)` over the elements of `input`: the upper and lower halves reduced, then combined as
/// `op(lo, hi)`.
pub(super) fn reduce(elements: &[u64], op: &mut impl FnMut(u64, u64) -> u64) -> u64 {
    if elements.len() <= 1 {
        return elements.first().copied().unwrap_or(0);
    }
    let half = elements.len() / 2;
    let hi = reduce(&elements[half..], op);
    let lo = reduce(&elements[..half], op);
    op(lo, hi)
}

/// `value << shift` for an integer of the pseudocode, exact while the result stays within 2^100 in magnitude and
/// clamped to +/-2^100 beyond: every `SatQ` of at most 64 bits treats those alike.
fn shift_left_int(value: i128, shift: u32) -> i128 {
    const LIMIT: u32 = 100;
    let bits = 128 - value.unsigned_abs().leading_zeros();
    if value == 0 {
        0
    } else if bits + shift > LIMIT {
        value.signum() << LIMIT
    } else {
        value << shift
    }
}

/// `(value + round_const) >> shift` with `round_const = 1 << (shift - 1)` when `round`, for an integer that came
/// from an element of at most 64 bits (shifts past 66 give the same result as 66 then, and are taken as such).
fn shift_right_int(value: i128, shift: u32, round: bool) -> i128 {
    let shift = shift.min(66);
    let round_const = if round && shift > 0 { 1i128 << (shift - 1) } else { 0 };
    (value + round_const) >> shift
}

/// SSHL, USHL, SRSHL, URSHL, SQSHL, UQSHL (register), SQRSHL, UQRSHL on one element: `element` shifted by
/// `SInt(shift_element<7:0>)` (negative: right), rounded and saturated as asked; the result and whether it
/// saturated.
fn shift_by_register(
    element: i128,
    shift_element: u64,
    esize: u32,
    unsigned: bool,
    round: bool,
    saturate: bool,
) -> (u64, bool) {
    let shift = sign_extend(shift_element & 0xff, 8) as i64;
    let shifted = if shift < 0 {
        shift_right_int(element, shift.unsigned_abs() as u32, round)
    } else if saturate {
        shift_left_int(element, shift as u32)
    } else {
        // Only element<esize-1:0> is kept: the low bits of the exact product.
        return ((element as u128).checked_shl(shift as u32).unwrap_or(0) as u64 & ones(esize), false);
    };
    if saturate { sat_q(shifted, esize, unsigned) } else { (shifted as u64 & ones(esize), false) }
}

/// The comparisons with zero of CMGT, CMGE, CMEQ, CMLE, CMLT (zero) and their floating-point forms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Comparison {
    Gt,
    Ge,
    Eq,
    Le,
    Lt,
}

/// All ones (true) or zeros of `esize` bits, as the compare instructions write them.
fn mask_if(test: bool, esize: u32) -> u64 {
    if test { ones(esize) } else { 0 }
}

/// The integer operations of two elements of one size that the "three same" pages (vector and scalar) and the
/// by-element pages compute, named by their signed mnemonics; the U bit (`unsigned`) selects the other.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntegerOp {
    /// SHADD, UHADD; SRHADD, URHADD when `round`.
    HalvingAdd { round: bool },
    /// SHSUB, UHSUB.
    HalvingSub,
    /// SQADD, UQADD.
    SaturatingAdd,
    /// SQSUB, UQSUB.
    SaturatingSub,
    /// CMGT, CMHI (register).
    CompareGreater,
    /// CMGE, CMHS (register).
    CompareGreaterOrEqual,
    /// SSHL, USHL; SRSHL, URSHL; SQSHL, UQSHL (register); SQRSHL, UQRSHL.
    ShiftByRegister { round: bool, saturate: bool },
    /// SMAX, UMAX, and the pairwise SMAXP, UMAXP and SMAXV, UMAXV.
    Max,
    /// SMIN, UMIN, SMINP, UMINP, SMINV, UMINV.
    Min,
    /// SABD, UABD (SABA, UABA accumulate it).
    AbsoluteDifference,
    /// ADD (vector), ADDP.
    Add,
    /// SUB (vector).
    Sub,
    /// CMTST.
    TestBits,
    /// CMEQ (register).
    CompareEqual,
    /// MUL (vector, by element) (MLA, MLS accumulate it).
    Multiply,
    /// PMUL.
    PolynomialMultiply,
    /// SQDMULH; SQRDMULH when `round` (vector, by element): always signed.
    SaturatingDoublingMultiplyHigh { round: bool },
}

impl IntegerOp {
    /// The result element and whether it saturated.
    pub(super) fn apply(self, element1: u64, element2: u64, esize: u32, unsigned: bool) -> (u64, bool) {
        use IntegerOp::*;
        let (a, b) = (int(element1, esize, unsigned), int(element2, esize, unsigned));
        let bits = |value: i128| (value as u64 & ones(esize), false);
        match self {
            HalvingAdd { round } => bits((a + b + i128::from(round)) >> 1),
            HalvingSub => bits((a - b) >> 1),
            SaturatingAdd => sat_q(a + b, esize, unsigned),
            SaturatingSub => sat_q(a - b, esize, unsigned),
            CompareGreater => (mask_if(a > b, esize), false),
            CompareGreaterOrEqual => (mask_if(a >= b, esize), false),
            ShiftByRegister { round, saturate } => shift_by_register(a, element2, esize, unsigned, round, saturate),
            Max => bits(a.max(b)),
            Min => bits(a.min(b)),
            AbsoluteDifference => bits((a - b).abs()),
            Add => bits(a + b),
            Sub => bits(a - b),
            TestBits => (mask_if(element1 & element2 & ones(esize) != 0, esize), false),
            CompareEqual => (mask_if(a == b, esize), false),
            Multiply => bits(a.wrapping_mul(b)),
            PolynomialMultiply => (polynomial_mult(element1, element2, esize) as u64 & ones(esize), false),
            SaturatingDoublingMultiplyHigh { round } => {
                let (a, b) = (int(element1, esize, false), int(element2, esize, false));
                let round_const = if round { 1i128 << (esize - 1) } else { 0 };
                sat_q((2 * a * b + round_const) >> esize, esize, false)
            }
        }
    }
}

/// The floating-point operations of two elements of one format ("three same" and its FP16 and scalar forms, by
/// element, pairwise and across lanes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FpOp {
    /// FADD (vector), FADDP.
    Add,
    /// FSUB (vector).
    Sub,
    /// FMUL (vector, by element).
    Multiply,
    /// FMULX (and by element).
    MultiplyExtended,
    /// FDIV (vector).
    Divide,
    /// FMAX (vector), FMAXP, FMAXV.
    Max,
    /// FMIN (vector), FMINP, FMINV.
    Min,
    /// FMAXNM (vector), FMAXNMP, FMAXNMV.
    MaxNumber,
    /// FMINNM (vector), FMINNMP, FMINNMV.
    MinNumber,
    /// FABD.
    AbsoluteDifference,
    /// FCMEQ (register).
    CompareEqual,
    /// FCMGE (register).
    CompareGreaterOrEqual,
    /// FCMGT (register).
    CompareGreater,
    /// FACGE.
    AbsoluteCompareGreaterOrEqual,
    /// FACGT.
    AbsoluteCompareGreater,
    /// FRECPS.
    ReciprocalStep,
    /// FRSQRTS.
    ReciprocalSqrtStep,
}

impl FpOp {
    pub(super) fn apply(self, n: Width, element1: u64, element2: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
        use FpOp::*;
        let mask = |test: bool| mask_if(test, n.n());
        match self {
            Add => fp_add(n, element1, element2, fpcr, fpsr),
            Sub => fp_sub(n, element1, element2, fpcr, fpsr),
            Multiply => fp_mul(n, element1, element2, fpcr, fpsr),
            MultiplyExtended => fp_mul_x(n, element1, element2, fpcr, fpsr),
            Divide => fp_div(n, element1, element2, fpcr, fpsr),
            Max => fp_max(n, element1, element2, fpcr, fpsr),
            Min => fp_min(n, element1, element2, fpcr, fpsr),
            MaxNumber => fp_max_num(n, element1, element2, fpcr, fpsr),
            MinNumber => fp_min_num(n, element1, element2, fpcr, fpsr),
            AbsoluteDifference => fp_abs(n, fp_sub(n, element1, element2, fpcr, fpsr)),
            CompareEqual => mask(fp_compare_eq(n, element1, element2, fpcr, fpsr)),
            CompareGreaterOrEqual => mask(fp_compare_ge(n, element1, element2, fpcr, fpsr)),
            CompareGreater => mask(fp_compare_gt(n, element1, element2, fpcr, fpsr)),
            AbsoluteCompareGreaterOrEqual => {
                mask(fp_compare_ge(n, fp_abs(n, element1), fp_abs(n, element2), fpcr, fpsr))
            }
            AbsoluteCompareGreater => mask(fp_compare_gt(n, fp_abs(n, element1), fp_abs(n, element2), fpcr, fpsr)),
            ReciprocalStep => fp_recip_step_fused(n, element1, element2, fpcr, fpsr),
            ReciprocalSqrtStep => fp_rsqrt_step_fused(n, element1, element2, fpcr, fpsr),
        }
    }
}

/// The integer operations of one element of the "two-register miscellaneous" pages (vector and scalar).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum IntegerUnaryOp {
    /// CLS (vector).
    CountLeadingSignBits,
    /// CLZ (vector).
    CountLeadingZeroBits,
    /// CNT.
    CountBits,
    /// NOT.
    Not,
    /// RBIT (vector).
    ReverseBits,
    /// ABS.
    Abs,
    /// NEG (vector).
    Neg,
    /// SQABS.
    SaturatingAbs,
    /// SQNEG.
    SaturatingNeg,
    /// CMGT, CMGE, CMEQ, CMLE, CMLT (zero).
    CompareWithZero(Comparison),
    /// URECPE.
    UnsignedReciprocalEstimate,
    /// URSQRTE.
    UnsignedReciprocalSqrtEstimate,
}

impl IntegerUnaryOp {
    /// The result element and whether it saturated.
    pub(super) fn apply(self, element: u64, esize: u32) -> (u64, bool) {
        use IntegerUnaryOp::*;
        let signed = int(element, esize, false);
        let bits = |value: i128| (value as u64 & ones(esize), false);
        match self {
            CountLeadingSignBits => bits(count_leading_sign_bits(element, esize).into()),
            CountLeadingZeroBits => bits(count_leading_zero_bits(element, esize).into()),
            CountBits => bits((element & ones(esize)).count_ones().into()),
            Not => (!element & ones(esize), false),
            ReverseBits => (bit_reverse(element, esize), false),
            Abs => bits(signed.abs()),
            Neg => bits(-signed),
            SaturatingAbs => sat_q(signed.abs(), esize, false),
            SaturatingNeg => sat_q(-signed, esize, false),
            CompareWithZero(comparison) => {
                let test = match comparison {
                    Comparison::Gt => signed > 0,
                    Comparison::Ge => signed >= 0,
                    Comparison::Eq => signed == 0,
                    Comparison::Le => signed <= 0,
                    Comparison::Lt => signed < 0,
                };
                (mask_if(test, esize), false)
            }
            UnsignedReciprocalEstimate => (unsigned_recip_estimate(element as u32).into(), false),
            UnsignedReciprocalSqrtEstimate => (unsigned_rsqrt_estimate(element as u32).into(), false),
        }
    }
}

/// The floating-point operations of one element ("two-register miscellaneous" and its FP16 and scalar forms, and
/// the fixed-point conversions of "shift by immediate").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FpUnaryOp {
    /// FABS (vector).
    Abs,
    /// FNEG (vector).
    Neg,
    /// FSQRT (vector).
    Sqrt,
    /// FRECPE.
    ReciprocalEstimate,
    /// FRSQRTE.
    ReciprocalSqrtEstimate,
    /// FRECPX.
    ReciprocalExponent,
    /// FRINTN, FRINTP, FRINTM, FRINTZ, FRINTA; FRINTX and FRINTI (`rounding` None: FPCR's), inexact results
    /// signalled when `exact` (FRINTX).
    RoundToIntegral { rounding: Option<FpRounding>, exact: bool },
    /// FCVTNS, FCVTNU, FCVTPS, ... FCVTAU (vector), FCVTZS, FCVTZU (vector, integer and fixed-point).
    ToFixed { fbits: u32, unsigned: bool, rounding: FpRounding },
    /// SCVTF, UCVTF (vector, integer and fixed-point), rounding as FPCR says.
    FromFixed { fbits: u32, unsigned: bool },
    /// FCMGT, FCMGE, FCMEQ, FCMLE, FCMLT (zero).
    CompareWithZero(Comparison),
}

impl FpUnaryOp {
    pub(super) fn apply(self, n: Width, element: u64, fpcr: FpCr, fpsr: &mut Fpsr) -> u64 {
        use FpUnaryOp::*;
        match self {
            Abs => fp_abs(n, element),
            Neg => fp_neg(n, element),
            Sqrt => fp_sqrt(n, element, fpcr, fpsr),
            ReciprocalEstimate => fp_recip_estimate(n, element, fpcr, fpsr),
            ReciprocalSqrtEstimate => fp_rsqrt_estimate(n, element, fpcr, fpsr),
            ReciprocalExponent => fp_recp_x(n, element, fpcr, fpsr),
            RoundToIntegral { rounding, exact } => {
                let rounding = rounding.unwrap_or_else(|| fp_rounding_mode(fpcr));
                fp_round_int(n, element, fpcr, rounding, exact, fpsr)
            }
            ToFixed { fbits, unsigned, rounding } => fp_to_fixed(n, n, element, fbits, unsigned, fpcr, rounding, fpsr),
            FromFixed { fbits, unsigned } => {
                fixed_to_fp(n, n, element, fbits, unsigned, fpcr, fp_rounding_mode(fpcr), fpsr)
            }
            CompareWithZero(comparison) => {
                let zero = fp_zero(n, false);
                let test = match comparison {
                    Comparison::Gt => fp_compare_gt(n, element, zero, fpcr, fpsr),
                    Comparison::Ge => fp_compare_ge(n, element, zero, fpcr, fpsr),
                    Comparison::Eq => fp_compare_eq(n, element, zero, fpcr, fpsr),
                    Comparison::Le => fp_compare_ge(n, zero, element, fpcr, fpsr),
                    Comparison::Lt => fp_compare_gt(n, zero, element, fpcr, fpsr),
                };
                mask_if(test, n.n())
            }
        }
    }
}

/// How a result element is combined with the destination's element: MLA, SABA, SMLAL... add the operation's
/// result to it, MLS, SMLSL... subtract it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Accumulate {
    None,
    Add,
    Sub,
}

/// How the saturating (and narrowing) instructions make a result element of an integer: the source elements are
/// read as `Int(x, source_unsigned)`, and the result is `SatQ(i, esize, unsigned)` for `saturate_unsigned =
/// Some(unsigned)` (SQXTN, UQXTN, SQXTUN, SQSHL, UQSHL, SQSHLU, SQSHRN...), or the low bits of the integer for
/// `None` (XTN, SHRN, RSHRN).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Saturation {
    pub(super) source_unsigned: bool,
    pub(super) saturate_unsigned: Option<bool>,
}

impl Saturation {
    pub(super) fn new(source_unsigned: bool, saturate_unsigned: Option<bool>) -> Saturation {
        Saturation { source_unsigned, saturate_unsigned }
    }

    /// The `esize`-bit result of an integer of the wide elements, and whether it saturated.
    fn apply(self, value: i128, esize: u32) -> (u64, bool) {
        match self.saturate_unsigned {
            Some(unsigned) => sat_q(value, esize, unsigned),
            None => (value as u64 & ones(esize), false),
        }
    }
}

/// How a floating-point "three same" instruction combines its operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FpThreeSame {
    Elementwise(FpOp),
    /// FADDP, FMAXP, FMAXNMP, FMINP, FMINNMP (vector).
    Pairwise(FpOp),
    /// FMLA (vector) (`subtract` false), FMLS (vector).
    MultiplyAccumulate {
        subtract: bool,
    },
}

impl FpThreeSame {
    /// Whether the scalar classes ("scalar three same" and its FP16 form) have this instruction: FMULX, FCMEQ,
    /// FCMGE, FCMGT, FACGE, FACGT, FABD, FRECPS and FRSQRTS (the others are scalar floating-point instructions).
    pub(super) fn has_scalar_form(self) -> bool {
        use FpOp::*;
        matches!(
            self,
            FpThreeSame::Elementwise(
                MultiplyExtended
                    | CompareEqual
                    | CompareGreaterOrEqual
                    | CompareGreater
                    | AbsoluteCompareGreaterOrEqual
                    | AbsoluteCompareGreater
                    | AbsoluteDifference
                    | ReciprocalStep
                    | ReciprocalSqrtStep
            )
        )
    }
}

/// The floating-point instructions of "three same" (opcode 11xxx, `a` = size<1>), of "three same (FP16)" and of
/// their scalar forms, which the encoding index lays out alike: `opcode` is the low three bits. FMLAL and FMLSL
/// (FEAT_FHM, opcode 11101 with U = 0, 11001 with U = 1) are not in the Cortex-A78C: `None`, as the unallocated
/// combinations.
pub(super) fn fp_three_same(u: u32, a: u32, opcode: u32) -> Option<FpThreeSame> {
    use FpOp::*;
    use FpThreeSame::{Elementwise, MultiplyAccumulate, Pairwise};
    Some(match (u, a, opcode & 0b111) {
        (0, 0, 0b000) => Elementwise(MaxNumber),                     // FMAXNM
        (0, 1, 0b000) => Elementwise(MinNumber),                     // FMINNM
        (0, _, 0b001) => MultiplyAccumulate { subtract: a == 1 },    // FMLA, FMLS
        (0, 0, 0b010) => Elementwise(Add),                           // FADD
        (0, 1, 0b010) => Elementwise(Sub),                           // FSUB
        (0, 0, 0b011) => Elementwise(MultiplyExtended),              // FMULX
        (0, 0, 0b100) => Elementwise(CompareEqual),                  // FCMEQ
        (0, 0, 0b110) => Elementwise(Max),                           // FMAX
        (0, 1, 0b110) => Elementwise(Min),                           // FMIN
        (0, 0, 0b111) => Elementwise(ReciprocalStep),                // FRECPS
        (0, 1, 0b111) => Elementwise(ReciprocalSqrtStep),            // FRSQRTS
        (1, 0, 0b000) => Pairwise(MaxNumber),                        // FMAXNMP
        (1, 1, 0b000) => Pairwise(MinNumber),                        // FMINNMP
        (1, 0, 0b010) => Pairwise(Add),                              // FADDP
        (1, 1, 0b010) => Elementwise(AbsoluteDifference),            // FABD
        (1, 0, 0b011) => Elementwise(Multiply),                      // FMUL
        (1, 0, 0b100) => Elementwise(CompareGreaterOrEqual),         // FCMGE
        (1, 1, 0b100) => Elementwise(CompareGreater),                // FCMGT
        (1, 0, 0b101) => Elementwise(AbsoluteCompareGreaterOrEqual), // FACGE
        (1, 1, 0b101) => Elementwise(AbsoluteCompareGreater),        // FACGT
        (1, 0, 0b110) => Pairwise(Max),                              // FMAXP
        (1, 1, 0b110) => Pairwise(Min),                              // FMINP
        (1, 0, 0b111) => Elementwise(Divide),                        // FDIV
        _ => return None,
    })
}

/// The floating-point instructions of "two-register miscellaneous" (`a` = size<1>), of its FP16 form and of
/// their scalar forms, which the encoding index lays out alike. FRECPX is scalar only; FRINT*, FABS, FNEG and
/// FSQRT are vector only (the scalar floating-point classes have their own); FRINT32*/FRINT64* (FEAT_FRINTTS)
/// are not in the Cortex-A78C.
pub(super) fn fp_two_reg_misc(u: u32, a: u32, opcode: u32) -> Option<FpUnaryOp> {
    use Comparison::*;
    use FpRounding::*;
    use FpUnaryOp::*;
    let round = |rounding| RoundToIntegral { rounding: Some(rounding), exact: false };
    let unsigned = u == 1;
    let convert = |rounding| ToFixed { fbits: 0, unsigned, rounding };
    Some(match (u, a, opcode) {
        (0, 1, 0b01100) => CompareWithZero(Gt), // FCMGT (zero)
        (0, 1, 0b01101) => CompareWithZero(Eq), // FCMEQ (zero)
        (0, 1, 0b01110) => CompareWithZero(Lt), // FCMLT (zero)
        (0, 1, 0b01111) => Abs,                 // FABS
        (1, 1, 0b01100) => CompareWithZero(Ge), // FCMGE (zero)
        (1, 1, 0b01101) => CompareWithZero(Le), // FCMLE (zero)
        (1, 1, 0b01111) => Neg,                 // FNEG
        (0, 0, 0b11000) => round(TieEven),      // FRINTN
        (0, 1, 0b11000) => round(PosInf),       // FRINTP
        (0, 0, 0b11001) => round(NegInf),       // FRINTM
        (0, 1, 0b11001) => round(Zero),         // FRINTZ
        (1, 0, 0b11000) => round(TieAway),      // FRINTA
        (1, 0, 0b11001) => RoundToIntegral { rounding: None, exact: true }, // FRINTX
        (1, 1, 0b11001) => RoundToIntegral { rounding: None, exact: false }, // FRINTI
        (_, 0, 0b11010) => convert(TieEven),    // FCVTNS, FCVTNU
        (_, 1, 0b11010) => convert(PosInf),     // FCVTPS, FCVTPU
        (_, 0, 0b11011) => convert(NegInf),     // FCVTMS, FCVTMU
        (_, 1, 0b11011) => convert(Zero),       // FCVTZS, FCVTZU
        (_, 0, 0b11100) => convert(TieAway),    // FCVTAS, FCVTAU
        (_, 0, 0b11101) => FromFixed { fbits: 0, unsigned }, // SCVTF, UCVTF
        (0, 1, 0b11101) => ReciprocalEstimate,  // FRECPE
        (1, 1, 0b11101) => ReciprocalSqrtEstimate, // FRSQRTE
        (0, 1, 0b11111) => ReciprocalExponent,  // FRECPX
        (1, 1, 0b11111) => Sqrt,                // FSQRT
        _ => return None,
    })
}

impl FpUnaryOp {
    /// Whether the scalar classes have this instruction (see `fp_two_reg_misc`).
    pub(super) fn has_scalar_form(self) -> bool {
        !matches!(self, FpUnaryOp::Abs | FpUnaryOp::Neg | FpUnaryOp::Sqrt | FpUnaryOp::RoundToIntegral { .. })
    }

    /// Whether the vector classes have this instruction (see `fp_two_reg_misc`).
    pub(super) fn has_vector_form(self) -> bool {
        self != FpUnaryOp::ReciprocalExponent
    }
}

/// The element index and register of a by-element instruction: `H:L:M` with `Rm` of V0-V15 for 16-bit elements
/// (`size` 01, or 00 for half precision), `H:L` with `M:Rm` for 32-bit ones, `H` with `M:Rm` for 64-bit ones (whose
/// L the decode has checked is 0).
pub fn indexed_element(size: u32, h: u32, l: u32, m: u32, rm: u32) -> (u32, u32) {
    match size {
        0b00 | 0b01 => (h << 2 | l << 1 | m, rm),
        0b10 => (h << 1 | l, m << 4 | rm),
        _ => (h, m << 4 | rm),
    }
}

/// Whether a by-element floating-point instruction admits `size` (00 half precision; 10 single; 11 double, whose
/// index is H alone (L = 0) and which has no 1D arrangement); `q` is `None` for the scalar forms.
pub fn fp_by_element_ok(size: u32, l: u32, q: Option<u32>) -> bool {
    match size {
        0b00 | 0b10 => true,
        0b11 => l == 0 && q != Some(0),
        _ => false,
    }
}

/// The element size of a by-element floating-point instruction's `size` (00 is half precision).
pub(super) fn fp_by_element_esize(size: u32) -> u32 {
    if size == 0b00 { 16 } else { 8 << size }
}

/// The instructions of "shift by immediate" whose operand and result have the same element size (the class's
/// shifts right, with and without rounding and accumulation, and the left shifts and inserts) and their scalar
/// forms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ShiftImmediate {
    /// SSHR, USHR, SRSHR, URSHR, SSRA, USRA, SRSRA, URSRA.
    Right { round: bool, accumulate: bool },
    /// SHL.
    Left,
    /// SQSHL, UQSHL, SQSHLU (immediate).
    SaturatingLeft(Saturation),
    /// SRI.
    InsertRight,
    /// SLI.
    InsertLeft,
    /// SCVTF, UCVTF (vector, fixed-point).
    FixedToFp,
    /// FCVTZS, FCVTZU (vector, fixed-point).
    FpToFixed,
}

/// The same-size instructions of "shift by immediate" and "scalar shift by immediate", which the encoding index
/// lays out alike; `None` for the others.
pub(super) fn shift_by_immediate_same_size(u: u32, opcode: u32) -> Option<ShiftImmediate> {
    use ShiftImmediate::*;
    let unsigned = u == 1;
    Some(match (u, opcode) {
        (_, 0b00000) => Right { round: false, accumulate: false }, // SSHR, USHR
        (_, 0b00010) => Right { round: false, accumulate: true },  // SSRA, USRA
        (_, 0b00100) => Right { round: true, accumulate: false },  // SRSHR, URSHR
        (_, 0b00110) => Right { round: true, accumulate: true },   // SRSRA, URSRA
        (0, 0b01010) => Left,                                      // SHL
        (1, 0b01000) => InsertRight,                               // SRI
        (1, 0b01010) => InsertLeft,                                // SLI
        (_, 0b01110) => SaturatingLeft(Saturation::new(unsigned, Some(unsigned))), // SQSHL, UQSHL (immediate)
        (1, 0b01100) => SaturatingLeft(Saturation::new(false, Some(true))), // SQSHLU
        (_, 0b11100) => FixedToFp,                                 // SCVTF, UCVTF (vector, fixed-point)
        (_, 0b11111) => FpToFixed,                                 // FCVTZS, FCVTZU (vector, fixed-point)
        _ => return None,
    })
}

/// The narrowing shifts right of "shift by immediate" and "scalar shift by immediate": the saturation and whether
/// they round.
pub(super) fn shift_right_narrow_op(u: u32, opcode: u32) -> Option<(Saturation, bool)> {
    let round = opcode & 1 == 1;
    Some(match (u, opcode) {
        (0, 0b10000 | 0b10001) => (Saturation::new(true, None), round), // SHRN, RSHRN
        (0, 0b10010 | 0b10011) => (Saturation::new(false, Some(false)), round), // SQSHRN, SQRSHRN
        (1, 0b10000 | 0b10001) => (Saturation::new(false, Some(true)), round), // SQSHRUN, SQRSHRUN
        (1, 0b10010 | 0b10011) => (Saturation::new(true, Some(true)), round), // UQSHRN, UQRSHRN
        _ => return None,
    })
}

impl Exec<'_> {
    /// Runs `operation` with `FPCR[]` and the FPSR, whose cumulative exception bits it may set.
    pub(super) fn with_simd_fp_status<T>(&mut self, operation: impl FnOnce(FpCr, &mut Fpsr) -> T) -> T {
        let fpcr = FpCr::from_bits(self.cpu.fpcr);
        let mut fpsr = Fpsr(self.cpu.fpsr);
        let result = operation(fpcr, &mut fpsr);
        self.cpu.fpsr = fpsr.0;
        result
    }

    /// `if sat then FPSR.QC = '1'`.
    fn set_qc_if(&mut self, saturated: bool) {
        if saturated {
            self.cpu.fpsr |= FPSR_QC;
        }
    }

    /// `V[d] = result` of `shape`, element e being `f(e)`, with FPSR.QC set when an element saturated.
    fn write_saturating_elements(&mut self, d: u32, shape: Shape, mut f: impl FnMut(u32) -> (u64, bool)) {
        let mut saturated = false;
        let result = map_elements(shape.esize, shape.elements(), |e| {
            let (value, sat) = f(e);
            saturated |= sat;
            value
        });
        self.set_v(d, result, shape.datasize);
        self.set_qc_if(saturated);
    }

    /// The integer "three same" and by-element operations: `V[d] = op(operand1, operand2)` element by element,
    /// accumulated into the destination's elements for MLA, MLS, SABA, UABA.
    pub(super) fn integer_elementwise(
        &mut self,
        op: IntegerOp,
        accumulate: Accumulate,
        shape: Shape,
        unsigned: bool,
        operand1: u128,
        operand2: u128,
        d: u32,
    ) {
        let esize = shape.esize;
        let operand3 = self.v(d, shape.datasize);
        self.write_saturating_elements(d, shape, |e| {
            let (value, sat) = op.apply(elem(operand1, e, esize), elem(operand2, e, esize), esize, unsigned);
            let accumulated = match accumulate {
                Accumulate::None => value,
                Accumulate::Add => elem(operand3, e, esize).wrapping_add(value),
                Accumulate::Sub => elem(operand3, e, esize).wrapping_sub(value),
            };
            (accumulated & ones(esize), sat)
        });
    }

    /// The pairwise integer operations (ADDP, SMAXP, UMAXP, SMINP, UMINP (vector)): `op` of adjacent elements of
    /// `operand2:operand1`.
    pub(super) fn integer_pairwise(
        &mut self,
        op: IntegerOp,
        shape: Shape,
        unsigned: bool,
        operand1: u128,
        operand2: u128,
        d: u32,
    ) {
        let (esize, elements) = (shape.esize, shape.elements());
        let pair = |i: u32| concat_elem(operand1, operand2, i, esize, elements);
        self.write_saturating_elements(d, shape, |e| op.apply(pair(2 * e), pair(2 * e + 1), esize, unsigned));
    }

    /// The floating-point "three same" and by-element operations: `V[d] = op(operand1, operand2)` element by
    /// element.
    pub(super) fn fp_elementwise(&mut self, op: FpOp, shape: Shape, operand1: u128, operand2: u128, d: u32) {
        let (n, esize) = (shape.width(), shape.esize);
        let result = self.with_simd_fp_status(|fpcr, fpsr| {
            map_elements(esize, shape.elements(), |e| {
                op.apply(n, elem(operand1, e, esize), elem(operand2, e, esize), fpcr, fpsr)
            })
        });
        self.set_v(d, result, shape.datasize);
    }

    /// The pairwise floating-point operations (FADDP, FMAXP, FMAXNMP, FMINP, FMINNMP (vector)).
    pub(super) fn fp_pairwise(&mut self, op: FpOp, shape: Shape, operand1: u128, operand2: u128, d: u32) {
        let (n, esize, elements) = (shape.width(), shape.esize, shape.elements());
        let pair = |i: u32| concat_elem(operand1, operand2, i, esize, elements);
        let result = self.with_simd_fp_status(|fpcr, fpsr| {
            map_elements(esize, elements, |e| op.apply(n, pair(2 * e), pair(2 * e + 1), fpcr, fpsr))
        });
        self.set_v(d, result, shape.datasize);
    }

    /// FMLA, FMLS (vector, by element): `FPMulAdd(Elem[operand3, e], element1, element2)`, element1 negated for
    /// FMLS.
    pub(super) fn fp_multiply_accumulate(
        &mut self,
        subtract: bool,
        shape: Shape,
        operand1: u128,
        operand2: u128,
        d: u32,
    ) {
        let (n, esize) = (shape.width(), shape.esize);
        let operand3 = self.v(d, shape.datasize);
        let result = self.with_simd_fp_status(|fpcr, fpsr| {
            map_elements(esize, shape.elements(), |e| {
                let element1 = elem(operand1, e, esize);
                let element1 = if subtract { fp_neg(n, element1) } else { element1 };
                fp_mul_add(n, elem(operand3, e, esize), element1, elem(operand2, e, esize), fpcr, fpsr)
            })
        });
        self.set_v(d, result, shape.datasize);
    }

    /// SQRDMLAH, SQRDMLSH (vector, by element): the rounded doubled product's high half added to (subtracted
    /// from) the destination element, saturated.
    pub(super) fn saturating_rounding_doubling_multiply_accumulate_high(
        &mut self,
        subtract: bool,
        shape: Shape,
        operand1: u128,
        operand2: u128,
        d: u32,
    ) {
        let esize = shape.esize;
        let operand3 = self.v(d, shape.datasize);
        let rounding_const = 1i128 << (esize - 1);
        self.write_saturating_elements(d, shape, |e| {
            let element1 = int(elem(operand1, e, esize), esize, false);
            let element2 = int(elem(operand2, e, esize), esize, false);
            let element3 = int(elem(operand3, e, esize), esize, false);
            let product = 2 * (element1 * element2);
            let accum = if subtract {
                (element3 << esize) - product + rounding_const
            } else {
                (element3 << esize) + product + rounding_const
            };
            sat_q(accum >> esize, esize, false)
        });
    }

    /// SDOT, UDOT (vector, by element): each 32-bit element accumulates the dot product of its four bytes.
    pub(super) fn dot_product(&mut self, unsigned: bool, shape: Shape, operand1: u128, operand2: u128, d: u32) {
        let operand3 = self.v(d, shape.datasize);
        let result = map_elements(32, shape.elements(), |e| {
            let sum: i128 = (0..4)
                .map(|i| {
                    int(elem(operand1, 4 * e + i, 8), 8, unsigned) * int(elem(operand2, 4 * e + i, 8), 8, unsigned)
                })
                .sum();
            elem(operand3, e, 32).wrapping_add(sum as u64)
        });
        self.set_v(d, result, shape.datasize);
    }

    /// The integer "two-register miscellaneous" operations of one element.
    pub(super) fn integer_unary_elementwise(&mut self, op: IntegerUnaryOp, shape: Shape, operand: u128, d: u32) {
        let esize = shape.esize;
        self.write_saturating_elements(d, shape, |e| op.apply(elem(operand, e, esize), esize));
    }

    /// The floating-point "two-register miscellaneous" operations of one element, and the fixed-point conversions.
    pub(super) fn fp_unary_elementwise(&mut self, op: FpUnaryOp, shape: Shape, operand: u128, d: u32) {
        let (n, esize) = (shape.width(), shape.esize);
        let result = self.with_simd_fp_status(|fpcr, fpsr| {
            map_elements(esize, shape.elements(), |e| op.apply(n, elem(operand, e, esize), fpcr, fpsr))
        });
        self.set_v(d, result, shape.datasize);
    }

    /// SUQADD (`unsigned` false) and USQADD: the source element, read with the other signedness, added to the
    /// destination element with saturation.
    pub(super) fn saturating_accumulate(&mut self, unsigned: bool, shape: Shape, operand: u128, d: u32) {
        let esize = shape.esize;
        let operand2 = self.v(d, shape.datasize);
        self.write_saturating_elements(d, shape, |e| {
            let op1 = int(elem(operand, e, esize), esize, !unsigned);
            let op2 = int(elem(operand2, e, esize), esize, unsigned);
            sat_q(op1 + op2, esize, unsigned)
        });
    }

    /// XTN, SQXTN, UQXTN, SQXTUN and the narrowing shifts: the `2 * esize`-bit elements of `operand`, each given
    /// to `value` as an integer, narrowed to `esize` bits into `Vpart[d, part]` (the scalar forms: part 0, one
    /// element).
    pub(super) fn narrow_elements(
        &mut self,
        saturation: Saturation,
        esize: u32,
        elements: u32,
        part: u32,
        operand: u128,
        d: u32,
        value: impl Fn(i128) -> i128,
    ) {
        let mut saturated = false;
        let result = map_elements(esize, elements, |e| {
            let element = int(elem(operand, e, 2 * esize), 2 * esize, saturation.source_unsigned);
            let (result, sat) = saturation.apply(value(element), esize);
            saturated |= sat;
            result
        });
        self.set_vpart(d, part, result, esize * elements);
        self.set_qc_if(saturated);
    }

    /// SQDMULL, SQDMLAL, SQDMLSL (vector, by element, scalar): `2 * element1 * element2` saturated to
    /// `2 * esize` bits, then added to (subtracted from) the destination element with saturation. `operand1` and
    /// `operand2` hold `elements` elements of `esize` bits.
    pub(super) fn saturating_doubling_multiply_long(
        &mut self,
        accumulate: Accumulate,
        esize: u32,
        elements: u32,
        operand1: u128,
        operand2: u128,
        d: u32,
    ) {
        let shape = Shape { esize: 2 * esize, datasize: 2 * esize * elements };
        let operand3 = self.v(d, shape.datasize);
        self.write_saturating_elements(d, shape, |e| {
            let element1 = int(elem(operand1, e, esize), esize, false);
            let element2 = int(elem(operand2, e, esize), esize, false);
            let (product, sat1) = sat_q(2 * element1 * element2, 2 * esize, false);
            let product = int(product, 2 * esize, false);
            let element3 = int(elem(operand3, e, 2 * esize), 2 * esize, false);
            let accum = match accumulate {
                Accumulate::None => return (product as u64 & ones(2 * esize), sat1),
                Accumulate::Add => element3 + product,
                Accumulate::Sub => element3 - product,
            };
            let (result, sat2) = sat_q(accum, 2 * esize, false);
            (result, sat1 || sat2)
        });
    }

    /// The shifts right by immediate (SSHR, USHR, SRSHR, URSHR, SSRA, USRA, SRSRA, URSRA): `shift` is
    /// `(2 * esize) - UInt(immh:immb)`, 1 to esize.
    pub(super) fn shift_right(
        &mut self,
        shape: Shape,
        shift: u32,
        unsigned: bool,
        round: bool,
        accumulate: bool,
        n: u32,
        d: u32,
    ) {
        let esize = shape.esize;
        let operand = self.v(n, shape.datasize);
        let operand2 = if accumulate { self.v(d, shape.datasize) } else { 0 };
        let result = map_elements(esize, shape.elements(), |e| {
            let element = shift_right_int(int(elem(operand, e, esize), esize, unsigned), shift, round);
            elem(operand2, e, esize).wrapping_add(element as u64)
        });
        self.set_v(d, result, shape.datasize);
    }

    /// SHL (`saturation` None) and SQSHL, UQSHL, SQSHLU (immediate), which read the source as `source_unsigned`
    /// and saturate as `saturate_unsigned` says: `shift` is `UInt(immh:immb) - esize`, 0 to esize - 1.
    pub(super) fn shift_left(&mut self, shape: Shape, shift: u32, saturation: Option<Saturation>, n: u32, d: u32) {
        let esize = shape.esize;
        let operand = self.v(n, shape.datasize);
        self.write_saturating_elements(d, shape, |e| match saturation {
            None => (elem(operand, e, esize) << shift & ones(esize), false),
            Some(saturation) => {
                let element = int(elem(operand, e, esize), esize, saturation.source_unsigned);
                saturation.apply(shift_left_int(element, shift), esize)
            }
        });
    }

    /// SRI (`left` false) and SLI: the shifted element inserted into the destination element, whose bits outside
    /// the shifted value stay.
    pub(super) fn shift_insert(&mut self, left: bool, shape: Shape, shift: u32, n: u32, d: u32) {
        let esize = shape.esize;
        let operand = self.v(n, shape.datasize);
        let operand2 = self.v(d, shape.datasize);
        let shifted = |x: u64| if left { x.checked_shl(shift).unwrap_or(0) } else { x.checked_shr(shift).unwrap_or(0) };
        let mask = shifted(ones(esize)) & ones(esize);
        let result = map_elements(esize, shape.elements(), |e| {
            (elem(operand2, e, esize) & !mask) | (shifted(elem(operand, e, esize)) & mask)
        });
        self.set_v(d, result, shape.datasize);
    }

    /// The narrowing shifts right (SHRN, RSHRN, SQSHRN, SQRSHRN, UQSHRN, UQRSHRN, SQSHRUN, SQRSHRUN): `shift` is
    /// `(2 * esize) - UInt(immh:immb)`, 1 to esize.
    pub(super) fn shift_right_narrow(
        &mut self,
        saturation: Saturation,
        round: bool,
        esize: u32,
        elements: u32,
        shift: u32,
        part: u32,
        n: u32,
        d: u32,
    ) {
        let operand = self.v(n, 2 * esize * elements);
        self.narrow_elements(saturation, esize, elements, part, operand, d, |element| {
            shift_right_int(element, shift, round)
        });
    }

    /// `V[d] = Reduce(op, operand, esize)` of the floating-point across-lanes and scalar pairwise instructions.
    pub(super) fn fp_reduce(&mut self, op: FpOp, esize: u32, elements: u32, operand: u128, d: u32) {
        let n = fp_width(esize);
        let lanes: Vec<u64> = (0..elements).map(|e| elem(operand, e, esize)).collect();
        let result =
            self.with_simd_fp_status(|fpcr, fpsr| reduce(&lanes, &mut |lo, hi| op.apply(n, lo, hi, fpcr, fpsr)));
        self.set_v(d, result.into(), esize);
    }

    /// The same-size shifts by immediate, vector and scalar: `immhb` is `immh:immb`, `esize` the element size it
    /// gives.
    pub(super) fn shift_by_immediate(
        &mut self,
        op: ShiftImmediate,
        shape: Shape,
        unsigned: bool,
        immhb: u32,
        n: u32,
        d: u32,
    ) {
        let esize = shape.esize;
        let right_shift = 2 * esize - immhb;
        let left_shift = immhb - esize;
        let operand = self.v(n, shape.datasize);
        match op {
            ShiftImmediate::Right { round, accumulate } => {
                self.shift_right(shape, right_shift, unsigned, round, accumulate, n, d)
            }
            ShiftImmediate::Left => self.shift_left(shape, left_shift, None, n, d),
            ShiftImmediate::SaturatingLeft(saturation) => self.shift_left(shape, left_shift, Some(saturation), n, d),
            ShiftImmediate::InsertRight => self.shift_insert(false, shape, right_shift, n, d),
            ShiftImmediate::InsertLeft => self.shift_insert(true, shape, left_shift, n, d),
            ShiftImmediate::FixedToFp => {
                self.fp_unary_elementwise(FpUnaryOp::FromFixed { fbits: right_shift, unsigned }, shape, operand, d)
            }
            ShiftImmediate::FpToFixed => {
                let op = FpUnaryOp::ToFixed { fbits: right_shift, unsigned, rounding: FpRounding::Zero };
                self.fp_unary_elementwise(op, shape, operand, d)
            }
        }
    }

    /// The narrowing conversions: `elements` elements of `from` bits of `V[n]` converted to `to` bits into
    /// `Vpart[d, part]` (the scalar FCVTXN: part 0, one element).
    pub(super) fn fp_convert_elements(
        &mut self,
        rounding: Option<FpRounding>,
        to: u32,
        from: u32,
        part: u32,
        elements: u32,
        n: u32,
        d: u32,
    ) {
        let operand = self.v(n, from * elements);
        let result = self.with_simd_fp_status(|fpcr, fpsr| {
            let rounding = rounding.unwrap_or_else(|| fp_rounding_mode(fpcr));
            map_elements(to, elements, |e| {
                fp_convert(fp_width(to), fp_width(from), elem(operand, e, from), fpcr, rounding, fpsr)
            })
        });
        self.set_vpart(d, part, result, to * elements);
    }
}

/// The value of a register whose every `esize`-bit element, over `datasize` bits, is `value`: the indexed
/// element of a by-element instruction in every lane.
pub(super) fn broadcast(value: u64, esize: u32, datasize: u32) -> u128 {
    map_elements(esize, datasize / esize, |_| value) & ones128(datasize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_by_register() {
        let shl = |element: u64, shift: i8, esize: u32, unsigned: bool, round: bool, saturate: bool| {
            let op = IntegerOp::ShiftByRegister { round, saturate };
            op.apply(element, shift as u8 as u64, esize, unsigned)
        };
        // SSHL by -1 is an arithmetic shift right; by 8 or more of a byte, zero.
        assert_eq!(shl(0x80, -1, 8, false, false, false), (0xc0, false));
        assert_eq!(shl(0x81, 8, 8, false, false, false), (0, false));
        assert_eq!(shl(0x81, 127, 64, true, false, false), (0, false));
        // USHL by -128 of a 64-bit element is zero; SSHL keeps the sign.
        assert_eq!(shl(u64::MAX, -128, 64, true, false, false), (0, false));
        assert_eq!(shl(u64::MAX, -128, 64, false, false, false), (u64::MAX, false));
        // SRSHL rounds: -1 >> 1 rounded is 0; URSHL of the top bit by -64 rounds up to 1.
        assert_eq!(shl(0xff, -1, 8, false, true, false), (0, false));
        assert_eq!(shl(1 << 63, -64, 64, true, true, false), (1, false));
        assert_eq!(shl(1 << 63, -65, 64, true, true, false), (0, false));
        // UQSHL of anything non-zero by 64 saturates; of zero it does not.
        assert_eq!(shl(1, 64, 64, true, false, true), (u64::MAX, true));
        assert_eq!(shl(0, 127, 64, true, false, true), (0, false));
        assert_eq!(shl(u64::MAX, 63, 64, true, false, true), (u64::MAX, true));
        // SQSHL of -1 by 7 in a byte is -128 exactly; by 8 it saturates.
        assert_eq!(shl(0xff, 7, 8, false, false, true), (0x80, false));
        assert_eq!(shl(0xff, 8, 8, false, false, true), (0x80, true));
        // SQRSHL by -1 of 127 rounds to 64.
        assert_eq!(shl(127, -1, 8, false, true, true), (64, false));
    }

    #[test]
    fn doubling_multiply_high_saturates_only_the_most_negative_square() {
        let op = IntegerOp::SaturatingDoublingMultiplyHigh { round: false };
        assert_eq!(op.apply(0x8000, 0x8000, 16, false), (0x7fff, true));
        assert_eq!(op.apply(0x8000, 0x7fff, 16, false), (0x8001, false));
        let rounding = IntegerOp::SaturatingDoublingMultiplyHigh { round: true };
        // 2 * 0x4000 * 1 = 0x8000, rounded: (0x8000 + 0x8000) >> 16 = 1.
        assert_eq!(rounding.apply(0x4000, 1, 16, false), (1, false));
    }

    #[test]
    fn reduce_combines_halves_lower_first() {
        let mut order = Vec::new();
        let result = reduce(&[1, 2, 3, 4], &mut |lo, hi| {
            order.push((lo, hi));
            lo * 100 + hi
        });
        assert_eq!(result, 10504);
        assert_eq!(order, [(3, 4), (1, 2), (102, 304)]);
    }
}
