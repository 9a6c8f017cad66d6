//! Advanced SIMD floating point on vectors of singles (2S, 4S) and doubles (2D) as host vector operations, where
//! every lane's result is the Arm result, checked lane by lane with `fp_arith`'s tests; the reference in a cold
//! block otherwise (`host_or_reference`). Lanes of a 64-bit vector's upper half are no operands: they never send an
//! instruction to the reference.
//!
//! - Arithmetic (FADD, FSUB, FABD, FMUL and FMULX, FDIV, FMLA, FMLS, by vector or by element; FADDP; the
//!   Newton-Raphson steps
//!   FRECPS, FRSQRTS, fused with their constant addends): FPCR in its default mode and
//!   FPSR.IXC already set (sticky: no lane's inexactness need be found then), every lane's operands normal (or zero
//!   for the fused ones, `fused_fits`) and its result above the smallest normal, or an exact zero where only one is
//!   possible (a sum of normal operands cannot cancel to anything tiny). No other exception can arise.
//! - Compares (FCMEQ, FCMGE, FCMGT, the absolute FACGE, FACGT, and with zero FCMLE, FCMLT) and FMAX, FMIN, FMAXNM,
//!   FMINNM (also pairwise, vector and scalar, and across the lanes of a 4S vector): the host's ordered
//!   comparison, maximum or minimum (-0 below +0, as Arm orders them) where FPCR.FZ is clear (no input is flushed)
//!   and no lane holds a NaN (which raises Invalid, and is where the NM forms differ).
//! - FABS, FNEG: the sign bit, as the scalar forms (`simd_moves`).
//! - The scalar three same forms (FABD, FMULX, FRECPS, FRSQRTS and the compares) as the vector forms' first lane.
//! - SCVTF, UCVTF and FCVTNS, FCVTMS, FCVTAS, FCVTPS, FCVTZS and their unsigned forms on singles and doubles: as
//!   the scalar forms (`fp_arith`), with FPSR.IXC already set.
//! - FRINTN, FRINTM, FRINTP, FRINTZ, FRINTA, FRINTX, FRINTI and FSQRT: as the scalar forms, lane by lane.
//! - FRECPE, FRSQRTE on singles and doubles, vector and scalar: the manual's estimate tables computed in the lanes
//!   where the estimate is a normal number (`vector_estimate`); URECPE, URSQRTE on every operand, from the same
//!   tables (`unsigned_estimate`).
//! - FCVTL, FCVTN and their "2" forms between half and single, single and double precision
//!   (`vector_convert_precision`): widening numbers exactly, narrowing to normal numbers with IXC already set;
//!   FCVTXN (round to odd, vector and scalar) likewise, in integer arithmetic.

use super::fp_arith::{FPCR_AHP, IntegralRounding, Outputs, conversion_rounding, smallest_normal, truncation_bounds};
use super::{Flow, Lift, Lifter, Unlifted};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value, types};
use tandem_reference::interp::shared_decode::{fp_by_element_ok, indexed_element};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Arithmetic {
    Add,
    /// FABD: |n - m|, the difference rounded then made positive (rounding to nearest is symmetric).
    AbsoluteDifference,
    Sub,
    Mul,
    Div,
    MulAdd,
    MulSub,
    /// FRECPS: 2 - n x m, fused.
    RecipStep,
    /// FRSQRTS: (3 - n x m) / 2, fused (the halving exact where the result stays normal).
    RSqrtStep,
}

/// The vector operations that are exact where no lane is a NaN (`vector_fp_when_ordered`).
#[derive(Clone, Copy)]
enum Ordered {
    Compare(FloatCC),
    /// FACGE, FACGT: the magnitudes compared.
    CompareAbsolute(FloatCC),
    Max,
    Min,
}

/// An operation of the three same classes: the first kind runs where the lanes are normal, the second where they
/// are ordered.
#[derive(Clone, Copy)]
enum FpOperation {
    Arithmetic(Arithmetic),
    Ordered(Ordered),
}

/// The operation of an FP instruction of "Advanced SIMD three same" (not pairwise) from its U bit, its size
/// field's upper bit and its opcode; the scalar class's instructions have the same fields.
fn three_same_operation(u: u32, size_high: u32, opcode: u32) -> Option<FpOperation> {
    let arithmetic = match (u, size_high, opcode) {
        (0, 0, 0b11010) => Arithmetic::Add,
        (0, 1, 0b11010) => Arithmetic::Sub,
        (1, 1, 0b11010) => Arithmetic::AbsoluteDifference,
        // FMUL, and FMULX: they differ only where an operand is zero or infinite, which is no normal number.
        (1, 0, 0b11011) | (0, 0, 0b11011) => Arithmetic::Mul,
        (1, 0, 0b11111) => Arithmetic::Div,
        (0, 0, 0b11001) => Arithmetic::MulAdd,
        (0, 1, 0b11001) => Arithmetic::MulSub,
        (0, 0, 0b11111) => Arithmetic::RecipStep,
        (0, 1, 0b11111) => Arithmetic::RSqrtStep,
        _ => {
            return Some(FpOperation::Ordered(match (u, size_high, opcode) {
                (0, 0, 0b11100) => Ordered::Compare(FloatCC::Equal),
                (1, 0, 0b11100) => Ordered::Compare(FloatCC::GreaterThanOrEqual),
                (1, 1, 0b11100) => Ordered::Compare(FloatCC::GreaterThan),
                (1, 0, 0b11101) => Ordered::CompareAbsolute(FloatCC::GreaterThanOrEqual),
                (1, 1, 0b11101) => Ordered::CompareAbsolute(FloatCC::GreaterThan),
                // FMAXNM and FMAX, FMINNM and FMIN: the same where no lane is a NaN.
                (0, 0, 0b11000 | 0b11110) => Ordered::Max,
                (0, 1, 0b11000 | 0b11110) => Ordered::Min,
                _ => return None,
            }));
        }
    };
    Some(FpOperation::Arithmetic(arithmetic))
}

/// The operation of FMAXNMP, FMAXP, FMINNMP, FMINP (scalar pairwise) and FMAXNMV, FMAXV, FMINNMV, FMINV (across
/// lanes) from their size field's upper bit and opcode: with no NaN, the NM forms are the others.
fn reduction_operation(size_high: u32, opcode: u32) -> Option<Ordered> {
    match (size_high, opcode) {
        (0, 0b01100 | 0b01111) => Some(Ordered::Max),
        (1, 0b01100 | 0b01111) => Some(Ordered::Min),
        _ => None,
    }
}

/// How a narrowing conversion rounds: FCVTN by FPCR (the host's nearest-even where FPCR is the default),
/// FCVTXN to odd.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Rounding {
    ToNearest,
    ToOdd,
}

/// Which lanes an instruction computes: a 64-bit (`q` 0) or 128-bit vector's, or a scalar's first.
#[derive(Clone, Copy)]
pub(super) enum Shape {
    Vector { q: u32 },
    Scalar,
}

/// The lane types of a vector of doubles or singles: its bits and its floats.
fn vector_types(double: bool) -> (Type, Type) {
    if double { (types::I64X2, types::F64X2) } else { (types::I32X4, types::F32X4) }
}

impl Lifter<'_> {
    /// The floating-point operations of the class "Advanced SIMD three same" named in the module's comment.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_fp_three_same(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let double = size & 1 == 1;
        if double && q == 0 {
            return Err(Unlifted);
        }
        let shape = Shape::Vector { q };
        let pairwise = match (u, size >> 1, opcode) {
            (1, 0, 0b11010) => Some(FpOperation::Arithmetic(Arithmetic::Add)),
            (1, 0, 0b11000 | 0b11110) => Some(FpOperation::Ordered(Ordered::Max)),
            (1, 1, 0b11000 | 0b11110) => Some(FpOperation::Ordered(Ordered::Min)),
            _ => None,
        };
        if let Some(operation) = pairwise {
            // FADDP, FMAXNMP, FMAXP, FMINNMP, FMINP: adjacent lanes of the two operands side by side.
            let (first, second) = self.pairs(rn, rm, double, q);
            return self.vector_fp_operation(operation, shape, double, first, second, rd, word);
        }
        let operation = three_same_operation(u, size >> 1, opcode).ok_or(Unlifted)?;
        let (bits_type, _) = vector_types(double);
        let (n, m) = (self.vector(rn, bits_type), self.vector(rm, bits_type));
        self.vector_fp_operation(operation, shape, double, n, m, rd, word)
    }

    /// The floating-point operations of the class "Advanced SIMD scalar three same": FABD, FMULX, FRECPS, FRSQRTS,
    /// the compares FCMEQ, FCMGE, FCMGT and the absolute ones FACGE, FACGT, on the first lane as their vector forms.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_fp_scalar_three_same(
        &mut self,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let scalar_forms = matches!(
            (u, size >> 1, opcode),
            (1, 1, 0b11010) | (0, 0, 0b11011) | (0, _, 0b11111) | (_, 0, 0b11100) | (1, 1, 0b11100) | (1, _, 0b11101)
        );
        let operation = three_same_operation(u, size >> 1, opcode).filter(|_| scalar_forms).ok_or(Unlifted)?;
        let double = size & 1 == 1;
        let (bits_type, _) = vector_types(double);
        let (n, m) = (self.vector(rn, bits_type), self.vector(rm, bits_type));
        self.vector_fp_operation(operation, Shape::Scalar, double, n, m, rd, word)
    }

    /// `vector_fp_arithmetic` or `vector_fp_when_ordered`, as the operation is.
    #[allow(clippy::too_many_arguments)]
    fn vector_fp_operation(
        &mut self,
        operation: FpOperation,
        shape: Shape,
        double: bool,
        n_bits: Value,
        m_bits: Value,
        rd: u32,
        word: u32,
    ) -> Lift {
        match operation {
            FpOperation::Arithmetic(arithmetic) => {
                self.vector_fp_arithmetic(arithmetic, shape, double, n_bits, m_bits, rd, word)
            }
            FpOperation::Ordered(ordered) => {
                self.vector_fp_when_ordered(ordered, shape, double, n_bits, m_bits, rd, word);
                Ok(Flow::Next)
            }
        }
    }

    /// FMUL, FMULX, FMLA, FMLS (by element; vector, or scalar when `q` is `None`), singles and doubles: the element in
    /// every lane of the second operand.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_fp_indexed(
        &mut self,
        q: Option<u32>,
        u: u32,
        size: u32,
        l: u32,
        m: u32,
        rm: u32,
        opcode: u32,
        h: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        if !matches!(size, 0b10 | 0b11) || !fp_by_element_ok(size, l, q) {
            return Err(Unlifted);
        }
        let shape = q.map_or(Shape::Scalar, |q| Shape::Vector { q });
        let operation = match (u, opcode) {
            // FMUL, and FMULX (U 1), the same on normal numbers.
            (_, 0b1001) => Arithmetic::Mul,
            (0, 0b0001) => Arithmetic::MulAdd,
            (0, 0b0101) => Arithmetic::MulSub,
            _ => return Err(Unlifted),
        };
        let double = size == 0b11;
        let (bits_type, _) = vector_types(double);
        let (index, register) = indexed_element(size, h, l, m, rm);
        let n = self.vector(rn, bits_type);
        let element_vector = self.vector(register, bits_type);
        let element = self.b.ins().extractlane(element_vector, index as u8);
        let element = self.b.ins().splat(bits_type, element);
        self.vector_fp_arithmetic(operation, shape, double, n, element, rd, word)
    }

    /// FADDP (scalar): the sum of the two lanes of a 2S or 2D vector.
    pub(super) fn simd_fp_scalar_pairwise(
        &mut self,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let operation = match (u, size >> 1, opcode) {
            (1, 0, 0b01101) => FpOperation::Arithmetic(Arithmetic::Add),
            (1, _, _) => FpOperation::Ordered(reduction_operation(size >> 1, opcode).ok_or(Unlifted)?),
            _ => return Err(Unlifted),
        };
        let double = size & 1 == 1;
        // Lanes 0 and 1 are the first pair of the 128-bit arrangement.
        let (first, second) = self.pairs(rn, rn, double, 1);
        self.vector_fp_operation(operation, Shape::Scalar, double, first, second, rd, word)
    }

    /// FMAXNMV, FMAXV, FMINNMV, FMINV (4S): the maximum or minimum of the first pair's and the second pair's, as
    /// Arm reduces, on the host where no lane is a NaN and FPCR.FZ is clear (as `vector_fp_when_ordered`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_fp_across_lanes(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let operation = reduction_operation(size >> 1, opcode).filter(|_| (q, u, size & 1) == (1, 1, 0));
        let operation = operation.ok_or(Unlifted)?;
        let n_bits = self.vector(rn, types::I32X4);
        let n = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), n_bits);
        let ordered = self.b.ins().fcmp(FloatCC::Ordered, n, n);
        let all_ordered = self.every_lane_in_use(ordered, Shape::Vector { q: 1 });
        let no_flush = self.no_flush();
        let host_is_arm = self.b.ins().band(no_flush, all_ordered);
        let lanes: Vec<Value> = (0..4).map(|lane| self.b.ins().extractlane(n, lane)).collect();
        let mut reduce = |a: Value, b: Value| match operation {
            Ordered::Max => self.b.ins().fmax(a, b),
            _ => self.b.ins().fmin(a, b),
        };
        let (low, high) = (reduce(lanes[0], lanes[1]), reduce(lanes[2], lanes[3]));
        let result = reduce(low, high);
        let result_bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), result);
        self.set_v_or_reference(host_is_arm, word, rd, result_bits);
        Ok(Flow::Next)
    }

    /// The first and second lanes of the pairs a pairwise operation combines (`pair_halves`) as FP bits.
    fn pairs(&mut self, rn: u32, rm: u32, double: bool, q: u32) -> (Value, Value) {
        let (bits_type, _) = vector_types(double);
        let [first, second] = self.pair_halves(rn, rm, if double { 8 } else { 4 }, q);
        (self.lane_bitcast(bits_type, first), self.lane_bitcast(bits_type, second))
    }

    /// FABS, FNEG (vector) and the compares with zero of the class "Advanced SIMD two-register miscellaneous".
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_fp_two_reg_misc(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        if u == 0 && size >> 1 == 0 && matches!(opcode, 0b10110 | 0b10111) {
            let narrowing = (opcode == 0b10110).then_some(Rounding::ToNearest);
            return self.vector_convert_precision(Shape::Vector { q }, size & 1 == 1, narrowing, rn, rd, word);
        }
        if u == 1 && size == 0b01 && opcode == 0b10110 {
            // FCVTXN, FCVTXN2.
            return self.vector_convert_precision(Shape::Vector { q }, true, Some(Rounding::ToOdd), rn, rd, word);
        }
        let double = size & 1 == 1;
        if double && q == 0 {
            return Err(Unlifted);
        }
        if opcode == 0b11101 && size >> 1 == 0 {
            return self.vector_convert(q, u == 0, None, double, rn, rd, word);
        }
        if let Some(rounding) = conversion_rounding(size >> 1, opcode) {
            return self.vector_convert(q, u == 0, Some(rounding), double, rn, rd, word);
        }
        let to_integral = match (u, size >> 1, opcode) {
            (0, 0, 0b11000) => Some(IntegralRounding::TiesToEven),
            (0, 0, 0b11001) => Some(IntegralRounding::Down),
            (0, 1, 0b11000) => Some(IntegralRounding::Up),
            (0, 1, 0b11001) => Some(IntegralRounding::Zero),
            (1, 0, 0b11000) => Some(IntegralRounding::TiesAway),
            // FRINTX, FRINTI: as FPCR.RMode says, the host's way in the default mode.
            (1, _, 0b11001) => Some(IntegralRounding::TiesToEven),
            _ => None,
        };
        if let Some(rounding) = to_integral {
            let by_fpcr = u == 1 && opcode == 0b11001;
            let raises_inexact = by_fpcr && size >> 1 == 0;
            return self.vector_round_to_integral(q, double, rounding, by_fpcr, raises_inexact, rn, rd, word);
        }
        if (u, size >> 1, opcode) == (1, 1, 0b11111) {
            return self.vector_square_root(q, double, rn, rd, word);
        }
        if size >> 1 != 1 {
            return Err(Unlifted);
        }
        let (bits_type, _) = vector_types(double);
        let sign = if double { 1u64 << 63 } else { 1 << 31 };
        let condition = match (u, opcode) {
            (0, 0b01111) => {
                let n = self.vector(rn, bits_type);
                let magnitude = self.and_const(n, !sign);
                self.set_vector(rd, magnitude, q);
                return Ok(Flow::Next);
            }
            (1, 0b01111) => {
                let n = self.vector(rn, bits_type);
                let sign = self.iconst(bits_type, sign);
                let negated = self.b.ins().bxor(n, sign);
                self.set_vector(rd, negated, q);
                return Ok(Flow::Next);
            }
            (_, 0b11101) => return self.vector_estimate(Shape::Vector { q }, double, u == 1, rn, rd, word),
            (_, 0b11100) if !double => return self.unsigned_estimate(q, u == 1, rn, rd),
            (0, 0b01100) => FloatCC::GreaterThan,
            (0, 0b01101) => FloatCC::Equal,
            (0, 0b01110) => FloatCC::LessThan,
            (1, 0b01100) => FloatCC::GreaterThanOrEqual,
            (1, 0b01101) => FloatCC::LessThanOrEqual,
            _ => return Err(Unlifted),
        };
        let n = self.vector(rn, bits_type);
        let zero = self.iconst(bits_type, 0);
        self.vector_fp_when_ordered(Ordered::Compare(condition), Shape::Vector { q }, double, n, zero, rd, word);
        Ok(Flow::Next)
    }

    /// SCVTF, UCVTF (`to_integer` `None`) and FCVTNS, FCVTMS, FCVTAS, FCVTPS, FCVTZS and their unsigned forms
    /// (vector, integer; signed or not; `to_integer` says how they round): in the default FPCR mode with FPSR.IXC
    /// already set, integers convert with the host's rounding, and floats whose rounded values lie in the
    /// integers' range (so no NaN) round and convert on the host. 32-bit lanes as vectors; 64-bit ones lane by
    /// lane, as the host has no vector conversions of them.
    #[allow(clippy::too_many_arguments)]
    fn vector_convert(
        &mut self,
        q: u32,
        signed: bool,
        to_integer: Option<IntegralRounding>,
        double: bool,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let shape = Shape::Vector { q };
        let to_float = to_integer.is_none();
        let mut host_is_arm = self.default_fpcr_mode();
        let inexact_seen = self.inexact_seen();
        host_is_arm = self.b.ins().band(host_is_arm, inexact_seen);
        let result = if double {
            let value = self.vector(rn, types::I64X2);
            let mut result = self.iconst(types::I64X2, 0);
            for lane in 0..2u8 {
                let bits = self.b.ins().extractlane(value, lane);
                let bits = self.rounded_for_conversion(bits, types::F64, to_integer);
                if !to_float {
                    let in_range = self.in_truncation_range(bits, signed, types::F64);
                    host_is_arm = self.b.ins().band(host_is_arm, in_range);
                }
                let converted = self.host_conversion(bits, to_float, signed, types::F64);
                result = self.b.ins().insertlane(result, converted, lane);
            }
            result
        } else {
            let value = self.vector(rn, types::I32X4);
            let value = self.rounded_for_conversion(value, types::F32X4, to_integer);
            if !to_float {
                let in_range = self.in_truncation_range(value, signed, types::F32X4);
                let all_in_range = self.every_lane_in_use(in_range, shape);
                host_is_arm = self.b.ins().band(host_is_arm, all_in_range);
            }
            self.host_conversion(value, to_float, signed, types::F32X4)
        };
        self.set_shaped_or_reference(host_is_arm, word, rd, result, shape);
        Ok(Flow::Next)
    }

    /// The floats whose bits are `bits` (`float_ty`'s) rounded to integral values as a conversion to integers rounds
    /// them, as bits: the host's conversion then truncates them to themselves. Unchanged where it truncates, or
    /// converts to floats (`None`).
    fn rounded_for_conversion(&mut self, bits: Value, float_ty: Type, to_integer: Option<IntegralRounding>) -> Value {
        match to_integer {
            None | Some(IntegralRounding::Zero) => bits,
            Some(rounding) => {
                let a = self.b.ins().bitcast(float_ty, MemFlagsData::new(), bits);
                let rounded = self.round_to_integral(a, rounding);
                let int_ty = self.b.func.dfg.value_type(bits);
                self.b.ins().bitcast(int_ty, MemFlagsData::new(), rounded)
            }
        }
    }

    /// FRINTN, FRINTP, FRINTM, FRINTZ, FRINTA and, rounding as FPCR says (`by_fpcr`), FRINTX and FRINTI (vector):
    /// as the scalar forms (`fp_unary`), where no lane in use is a NaN. FRINTX (`raises_inexact`) raises Inexact
    /// where a lane in use changed.
    #[allow(clippy::too_many_arguments)]
    fn vector_round_to_integral(
        &mut self,
        q: u32,
        double: bool,
        rounding: IntegralRounding,
        by_fpcr: bool,
        raises_inexact: bool,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let shape = Shape::Vector { q };
        let (bits_type, float_type) = vector_types(double);
        let n_bits = self.vector(rn, bits_type);
        let n = self.b.ins().bitcast(float_type, MemFlagsData::new(), n_bits);
        let result = self.round_to_integral(n, rounding);
        let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
        let ordered = self.b.ins().fcmp(FloatCC::Ordered, n, n);
        let all_ordered = self.every_lane_in_use(ordered, shape);
        let mode_fits = if by_fpcr { self.default_fpcr_mode() } else { self.no_flush() };
        let host_is_arm = self.b.ins().band(mode_fits, all_ordered);
        if !raises_inexact {
            self.set_shaped_or_reference(host_is_arm, word, rd, result_bits, shape);
            return Ok(Flow::Next);
        }
        let unchanged = self.b.ins().fcmp(FloatCC::Equal, result, n);
        let all_unchanged = self.every_lane_in_use(unchanged, shape);
        let inexact = self.b.ins().icmp_imm_s(IntCC::Equal, all_unchanged, 0);
        self.host_or_reference(host_is_arm, word, &[], Outputs::None, |lifter| {
            lifter.set_shaped(rd, result_bits, shape);
            lifter.raise_inexact(inexact);
            vec![]
        });
        Ok(Flow::Next)
    }

    /// FSQRT (vector): as the scalar form (`fp_unary`), where every lane in use is positive and normal.
    fn vector_square_root(&mut self, q: u32, double: bool, rn: u32, rd: u32, word: u32) -> Lift {
        let shape = Shape::Vector { q };
        let (bits_type, float_type) = vector_types(double);
        let n_bits = self.vector(rn, bits_type);
        let n = self.b.ins().bitcast(float_type, MemFlagsData::new(), n_bits);
        let root = self.b.ins().sqrt(n);
        let root_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), root);
        let positive_normal = self.is_positive_finite_from(n_bits, double, smallest_normal(double));
        let all_positive_normal = self.every_lane_in_use(positive_normal, shape);
        let mut host_is_arm = self.default_fpcr_mode();
        let inexact_seen = self.inexact_seen();
        host_is_arm = self.b.ins().band(host_is_arm, inexact_seen);
        host_is_arm = self.b.ins().band(host_is_arm, all_positive_normal);
        self.set_shaped_or_reference(host_is_arm, word, rd, root_bits, shape);
        Ok(Flow::Next)
    }

    /// Whether the floats whose bits are `bits` (of `float_ty`'s width) truncate to integers of that width, signed
    /// or not, without leaving their range (which no NaN does): lane by lane for vectors.
    fn in_truncation_range(&mut self, bits: Value, signed: bool, float_ty: Type) -> Value {
        let a = self.b.ins().bitcast(float_ty, MemFlagsData::new(), bits);
        let (low, high) = truncation_bounds(signed, float_ty.lane_bits());
        let [low, high] = [low, high].map(|bound| {
            let bound = match float_ty.lane_type() {
                types::F64 => self.b.ins().f64const(bound),
                _ => self.b.ins().f32const(bound as f32),
            };
            if float_ty.is_vector() { self.b.ins().splat(float_ty, bound) } else { bound }
        });
        let above = self.b.ins().fcmp(FloatCC::GreaterThan, a, low);
        let below = self.b.ins().fcmp(FloatCC::LessThan, a, high);
        self.b.ins().band(above, below)
    }

    /// The host's conversion of `bits` (`float_ty`'s width, lane by lane for vectors): integers, signed or not, to
    /// floats (`to_float`, rounding to nearest), or floats to integers, truncating; the result's bits.
    fn host_conversion(&mut self, bits: Value, to_float: bool, signed: bool, float_ty: Type) -> Value {
        let int_ty = self.b.func.dfg.value_type(bits);
        if to_float {
            let float = match signed {
                true => self.b.ins().fcvt_from_sint(float_ty, bits),
                false => self.b.ins().fcvt_from_uint(float_ty, bits),
            };
            self.b.ins().bitcast(int_ty, MemFlagsData::new(), float)
        } else {
            let a = self.b.ins().bitcast(float_ty, MemFlagsData::new(), bits);
            match signed {
                true => self.b.ins().fcvt_to_sint_sat(int_ty, a),
                false => self.b.ins().fcvt_to_uint_sat(int_ty, a),
            }
        }
    }

    /// V[rd] = `n` (operation) `m`, lane by lane, with the operands' bits given (for the fused operations, V[rd] is
    /// the addend).
    #[allow(clippy::too_many_arguments)]
    fn vector_fp_arithmetic(
        &mut self,
        operation: Arithmetic,
        shape: Shape,
        double: bool,
        n_bits: Value,
        m_bits: Value,
        rd: u32,
        word: u32,
    ) -> Lift {
        let fused = matches!(
            operation,
            Arithmetic::MulAdd | Arithmetic::MulSub | Arithmetic::RecipStep | Arithmetic::RSqrtStep
        );
        if fused && !self.host_has_fma {
            return Err(Unlifted);
        }
        let (bits_type, float_type) = vector_types(double);
        let [n, m] = [n_bits, m_bits].map(|bits| self.b.ins().bitcast(float_type, MemFlagsData::new(), bits));
        let smallest_normal = smallest_normal(double);
        let (result, lanes_fit) = if fused {
            // The addend: V[rd], or the step's constant.
            let d_bits = match operation {
                Arithmetic::RecipStep => self.float_bits_splat(bits_type, 2.0),
                Arithmetic::RSqrtStep => self.float_bits_splat(bits_type, 3.0),
                _ => self.vector(rd, bits_type),
            };
            let d = self.b.ins().bitcast(float_type, MemFlagsData::new(), d_bits);
            let n = if operation == Arithmetic::MulAdd { n } else { self.b.ins().fneg(n) };
            let result = self.b.ins().fma(n, m, d);
            let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
            let fits = self.fused_fits([n_bits, m_bits, d_bits], n, m, result_bits, double);
            if operation == Arithmetic::RSqrtStep {
                let half = self.float_bits_splat(bits_type, 0.5);
                let half = self.b.ins().bitcast(float_type, MemFlagsData::new(), half);
                let halved = self.b.ins().fmul(result, half);
                let halved_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), halved);
                let exact = self.is_zero_or_finite_from(halved_bits, double, smallest_normal);
                (halved_bits, self.b.ins().band(fits, exact))
            } else {
                (result_bits, fits)
            }
        } else {
            let result = match operation {
                Arithmetic::Add => self.b.ins().fadd(n, m),
                Arithmetic::Sub => self.b.ins().fsub(n, m),
                Arithmetic::AbsoluteDifference => {
                    let difference = self.b.ins().fsub(n, m);
                    self.b.ins().fabs(difference)
                }
                Arithmetic::Mul => self.b.ins().fmul(n, m),
                _ => self.b.ins().fdiv(n, m),
            };
            let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
            let n_normal = self.is_finite_from(n_bits, double, smallest_normal);
            let m_normal = self.is_finite_from(m_bits, double, smallest_normal);
            let mut result_fits = self.is_finite_from(result_bits, double, smallest_normal + 1);
            if matches!(operation, Arithmetic::Add | Arithmetic::Sub | Arithmetic::AbsoluteDifference) {
                let zero = self.is_zero(result_bits, double);
                result_fits = self.b.ins().bor(result_fits, zero);
            }
            let operands = self.b.ins().band(n_normal, m_normal);
            (result_bits, self.b.ins().band(operands, result_fits))
        };
        let all_lanes_fit = self.every_lane_in_use(lanes_fit, shape);
        let mut host_is_arm = self.default_fpcr_mode();
        let inexact_seen = self.inexact_seen();
        host_is_arm = self.b.ins().band(host_is_arm, inexact_seen);
        host_is_arm = self.b.ins().band(host_is_arm, all_lanes_fit);
        self.set_shaped_or_reference(host_is_arm, word, rd, result, shape);
        Ok(Flow::Next)
    }

    /// V[rd] = `n` (operation) `m` lane by lane, for the operations that are exact and raise nothing where no lane
    /// in use is a NaN and FPCR.FZ is clear.
    #[allow(clippy::too_many_arguments)]
    fn vector_fp_when_ordered(
        &mut self,
        operation: Ordered,
        shape: Shape,
        double: bool,
        n_bits: Value,
        m_bits: Value,
        rd: u32,
        word: u32,
    ) {
        let (bits_type, float_type) = vector_types(double);
        let [n, m] = [n_bits, m_bits].map(|bits| self.b.ins().bitcast(float_type, MemFlagsData::new(), bits));
        let ordered = self.b.ins().fcmp(FloatCC::Ordered, n, m);
        let all_ordered = self.every_lane_in_use(ordered, shape);
        let no_flush = self.no_flush();
        let host_is_arm = self.b.ins().band(no_flush, all_ordered);
        let result = match operation {
            // All ones in the lanes where the condition holds, zeros elsewhere.
            Ordered::Compare(condition) => self.b.ins().fcmp(condition, n, m),
            Ordered::CompareAbsolute(condition) => {
                let (n, m) = (self.b.ins().fabs(n), self.b.ins().fabs(m));
                self.b.ins().fcmp(condition, n, m)
            }
            Ordered::Max => {
                let maximum = self.b.ins().fmax(n, m);
                self.b.ins().bitcast(bits_type, MemFlagsData::new(), maximum)
            }
            Ordered::Min => {
                let minimum = self.b.ins().fmin(n, m);
                self.b.ins().bitcast(bits_type, MemFlagsData::new(), minimum)
            }
        };
        self.set_shaped_or_reference(host_is_arm, word, rd, result, shape);
    }

    /// FCVTL, FCVTL2 (widening: the lower or, for the "2" forms, upper half's lanes to twice their width) and FCVTN,
    /// FCVTN2 (`narrow`: to half the width, into the lower half with the upper zeroed, or into the upper half with
    /// the lower kept), between half and single precision, or single and double (`single_double`); with
    /// `Shape::Scalar`, the first lane alone (FCVTXN's scalar form, the scalar FCVT between half and single):
    /// - widening is exact for numbers (no rounding, no exception: a subnormal half is a normal single; a single
    ///   widens whatever FPCR.FZ is where no lane is subnormal), so it needs only that no lane is a NaN or infinity
    ///   (and for halves FPCR.AHP clear: the alternative format has neither);
    /// - narrowing rounds: in the default FPCR mode with FPSR.IXC already set, lanes that are zeros or whose
    ///   magnitude lies between the narrow format's smallest normal and its largest number round to a normal
    ///   number with no exception but Inexact. FCVTXN rounds to odd whatever FPCR.RMode says, and FPCR.FZ does
    ///   not reach those lanes, so FPSR.IXC alone decides.
    pub(super) fn vector_convert_precision(
        &mut self,
        shape: Shape,
        single_double: bool,
        narrowing: Option<Rounding>,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        // The wide format's lanes.
        let wide_type = if single_double { types::I64X2 } else { types::I32X4 };
        if let Some(rounding) = narrowing {
            let n = self.vector(rn, wide_type);
            let magnitude = self.and_const(n, if single_double { i64::MAX as u64 } else { i32::MAX as u64 });
            // Zeros, or the narrow format's normal numbers: 2^-126 ..= f32::MAX, 2^-14 ..= 65504.
            let (low, high) = if single_double {
                ((-126f64).exp2().to_bits(), f64::from(f32::MAX).to_bits())
            } else {
                (u64::from((-14f32).exp2().to_bits()), u64::from(65504f32.to_bits()))
            };
            let zero = self.iconst(wide_type, 0);
            let is_zero = self.b.ins().icmp(IntCC::Equal, magnitude, zero);
            let low = self.iconst(wide_type, low);
            let high = self.iconst(wide_type, high);
            let above = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, magnitude, low);
            let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, magnitude, high);
            let normal = self.b.ins().band(above, below);
            let fits = self.b.ins().bor(is_zero, normal);
            let lanes_in_use = if let Shape::Vector { .. } = shape { Shape::Vector { q: 1 } } else { shape };
            let all_fit = self.every_lane_in_use(fits, lanes_in_use);
            let mut host_is_arm = self.inexact_seen();
            if rounding == Rounding::ToNearest {
                let default_mode = self.default_fpcr_mode();
                host_is_arm = self.b.ins().band(host_is_arm, default_mode);
            }
            host_is_arm = self.b.ins().band(host_is_arm, all_fit);
            // The narrow lanes as the low 64 bits of a vector.
            let narrowed = if rounding == Rounding::ToOdd {
                // Truncate (rebias the exponent, 1023 - 127, and drop 29 fraction bits), then set the lowest kept
                // bit where a dropped one was set.
                let rebias = self.iconst(types::I64X2, 896 << 52);
                let rebiased = self.b.ins().isub(magnitude, rebias);
                let truncated = self.b.ins().ushr_imm_u(rebiased, 29);
                let dropped = self.and_const(magnitude, (1 << 29) - 1);
                let inexact = self.b.ins().icmp(IntCC::NotEqual, dropped, zero);
                let odd = self.and_const(inexact, 1);
                let rounded = self.b.ins().bor(truncated, odd);
                self.pack_narrowed(n, rounded, is_zero)
            } else if single_double {
                let f = self.b.ins().bitcast(types::F64X2, MemFlagsData::new(), n);
                let demoted = self.b.ins().fvdemote(f);
                self.lane_bitcast(types::I8X16, demoted)
            } else {
                // Round to nearest even: rebias the exponent (127 - 15), add half an ulp of the half's 10-bit
                // fraction less one plus the kept fraction's lowest bit, and keep the top bits.
                let rebias = self.iconst(types::I32X4, 112 << 23);
                let rebiased = self.b.ins().isub(magnitude, rebias);
                let lowest_kept = self.b.ins().ushr_imm_u(rebiased, 13);
                let lowest_kept = self.and_const(lowest_kept, 1);
                let half_ulp = self.iconst(types::I32X4, 0xfff);
                let rounded = self.b.ins().iadd(rebiased, half_ulp);
                let rounded = self.b.ins().iadd(rounded, lowest_kept);
                let rounded = self.b.ins().ushr_imm_u(rounded, 13);
                self.pack_narrowed(n, rounded, is_zero)
            };
            self.host_or_reference(host_is_arm, word, &[], Outputs::None, |lifter| {
                match shape {
                    Shape::Vector { q } => lifter.insert_low_half(narrowed, q, rd),
                    Shape::Scalar => {
                        let narrow_type = if single_double { types::I32X4 } else { types::I16X8 };
                        let narrowed = lifter.lane_bitcast(narrow_type, narrowed);
                        lifter.set_first_lane(rd, narrowed);
                    }
                }
                vec![]
            });
            return Ok(Flow::Next);
        }
        // Widening: the source lanes are the lower half's (q 0, and the scalar FCVT's first lane) or the upper
        // half's, moved down.
        let quads = self.vector(rn, types::I64X2);
        let source = if let Shape::Vector { q: 1 } = shape {
            let high = self.b.ins().extractlane(quads, 1);
            self.b.ins().scalar_to_vector(types::I64X2, high)
        } else {
            quads
        };
        let (fits, widened) = if single_double {
            let singles = self.lane_bitcast(types::I32X4, source);
            let fits = self.is_zero_or_finite_from(singles, false, smallest_normal(false));
            let f = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), singles);
            let promoted = self.b.ins().fvpromote_low(f);
            (fits, self.b.ins().bitcast(types::I64X2, MemFlagsData::new(), promoted))
        } else {
            let halves = self.lane_bitcast(types::I16X8, source);
            let h = self.b.ins().uwiden_low(halves);
            let exponent = self.b.ins().ushr_imm_u(h, 10);
            let exponent = self.and_const(exponent, 0x1f);
            let infinite_or_nan = self.iconst(types::I32X4, 0x1f);
            let fits = self.b.ins().icmp(IntCC::NotEqual, exponent, infinite_or_nan);
            let sign = self.and_const(h, 0x8000);
            let sign = self.b.ins().ishl_imm_u(sign, 16);
            let magnitude = self.and_const(h, 0x7fff);
            // Normal halves: the exponent rebiased (15 to 127), the fraction moved up.
            let normal = self.b.ins().ishl_imm_u(magnitude, 13);
            let rebias = self.iconst(types::I32X4, 112 << 23);
            let normal = self.b.ins().iadd(normal, rebias);
            // Zeros and subnormal halves: the fraction times 2^-24, exactly.
            let fraction = self.and_const(h, 0x3ff);
            let fraction = self.b.ins().fcvt_from_uint(types::F32X4, fraction);
            let scale = self.b.ins().f32const((-24f32).exp2());
            let scale = self.b.ins().splat(types::F32X4, scale);
            let small = self.b.ins().fmul(fraction, scale);
            let small = self.b.ins().bitcast(types::I32X4, MemFlagsData::new(), small);
            let zero = self.iconst(types::I32X4, 0);
            let subnormal = self.b.ins().icmp(IntCC::Equal, exponent, zero);
            let magnitude = self.b.ins().bitselect(subnormal, small, normal);
            let widened = self.b.ins().bor(magnitude, sign);
            (fits, widened)
        };
        // The lanes in use are the wide ones made of the source's lower 64 bits: all four halves, or two singles
        // (the first alone for the scalar FCVT).
        let fits_shape = match shape {
            Shape::Scalar => Shape::Scalar,
            _ if single_double => Shape::Vector { q: 0 },
            _ => Shape::Vector { q: 1 },
        };
        let mut host_is_arm = self.every_lane_in_use(fits, fits_shape);
        if !single_double {
            let ieee = self.fpcr_bit_clear(FPCR_AHP);
            host_is_arm = self.b.ins().band(host_is_arm, ieee);
        }
        let written_shape = if let Shape::Scalar = shape { shape } else { Shape::Vector { q: 1 } };
        self.set_shaped_or_reference(host_is_arm, word, rd, widened, written_shape);
        Ok(Flow::Next)
    }

    /// The narrowed lanes side by side in the low 64 bits of a vector (I8X16), the rest zero: each wide lane of `n`
    /// gives its `rounded` magnitude (in its low half; zero where `is_zero`) with the wide lane's sign on top.
    fn pack_narrowed(&mut self, n: Value, rounded: Value, is_zero: Value) -> Value {
        let wide_type = self.b.func.dfg.value_type(n);
        let narrow_bits = wide_type.lane_bits() / 2;
        let zero = self.iconst(wide_type, 0);
        let magnitude = self.b.ins().bitselect(is_zero, zero, rounded);
        let sign = self.b.ins().ushr_imm_u(n, i64::from(narrow_bits));
        let sign = self.and_const(sign, 1 << (narrow_bits - 1));
        let narrowed = self.b.ins().bor(magnitude, sign);
        let bytes = self.lane_bitcast(types::I8X16, narrowed);
        // Each lane's low bytes, side by side.
        let narrow_bytes = narrow_bits as usize / 8;
        let low_halves: [u8; 16] = std::array::from_fn(|byte| {
            if byte < 8 { (byte / narrow_bytes * 2 * narrow_bytes + byte % narrow_bytes) as u8 } else { 16 }
        });
        let zero_bytes = self.iconst(types::I8X16, 0);
        self.shuffle_bytes(bytes, zero_bytes, low_halves)
    }

    /// `value` as the bits of a float in every lane of `bits_type` (I32X4 or I64X2).
    fn float_bits_splat(&mut self, bits_type: Type, value: f64) -> Value {
        let bits = if bits_type == types::I64X2 { value.to_bits() } else { u64::from((value as f32).to_bits()) };
        self.iconst(bits_type, bits)
    }

    /// FRECPE and FRSQRTE (`square_root`) on singles or doubles, vector or scalar: the manual's estimate tables
    /// (`RecipEstimate`, `RecipSqrtEstimate`) computed in the lanes, for the operands whose estimate is a normal
    /// number made of the table's bits alone, which raise nothing whatever FPCR holds: FRECPE of a normal number
    /// whose reciprocal is normal (exponent below 2 bias - 1), FRSQRTE of a positive normal one; the reference in a
    /// cold block for the others (zeros, denormals, infinities, NaNs, negative square roots, reciprocals that would
    /// be denormal).
    pub(super) fn vector_estimate(
        &mut self,
        shape: Shape,
        double: bool,
        square_root: bool,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let (bits_type, _) = vector_types(double);
        // The exponent's position and width; the fraction's top bits the table reads start 8 below the exponent.
        let (exponent_at, exponent_mask, bias) = if double { (52, 0x7ff, 1023u64) } else { (23, 0xff, 127) };
        let fraction_top = exponent_at - 8;
        let x = self.vector(rn, bits_type);
        let exponent = self.b.ins().ushr_imm_u(x, i64::from(exponent_at));
        let exponent = self.and_const(exponent, exponent_mask);
        let sign = if double { 1u64 << 63 } else { 1 << 31 };
        // A normal number below `bound` (and positive for the square root): one unsigned compare.
        let (in_domain, bound) = if square_root {
            (x, exponent_mask << exponent_at)
        } else {
            (self.and_const(x, !sign), (2 * bias - 1) << exponent_at)
        };
        let smallest_normal = self.iconst(bits_type, 1 << exponent_at);
        let above = self.b.ins().isub(in_domain, smallest_normal);
        let span = self.iconst(bits_type, bound - (1 << exponent_at));
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, above, span);
        let host_is_arm = self.every_lane_in_use(fits, shape);
        // The table's operand: the fraction's top 8 bits below the implicit 1 for the reciprocal; for the square
        // root, odd exponents scale the fraction into 128..255 and even ones into 256..511, its top 7 bits either way.
        let table_operand = if square_root {
            let top7 = self.b.ins().ushr_imm_u(x, i64::from(fraction_top + 1));
            let top7 = self.and_const(top7, 0x7f);
            let odd = self.and_const(exponent, 1);
            let zero = self.iconst(bits_type, 0);
            let odd = self.b.ins().icmp(IntCC::NotEqual, odd, zero);
            let [scaled_odd, scaled_even] = [(0x80, 0), (0x100, 1)].map(|(base, shift)| {
                let top = self.b.ins().ishl_imm_u(top7, shift);
                self.or_const(top, base)
            });
            self.b.ins().bitselect(odd, scaled_odd, scaled_even)
        } else {
            let top8 = self.b.ins().ushr_imm_u(x, i64::from(fraction_top));
            let top8 = self.and_const(top8, 0xff);
            self.or_const(top8, 0x100)
        };
        // The tables run on 32-bit lanes: a double's operand (below 512) is the low half of its lane, the high half
        // zero, which the table takes to some estimate that the mask below drops.
        let table_operand = self.lane_bitcast(types::I32X4, table_operand);
        let estimate = self.table_estimate(table_operand, square_root);
        let estimate = self.lane_bitcast(bits_type, estimate);
        let estimate = self.and_const(estimate, 0xff);
        let fraction = self.b.ins().ishl_imm_u(estimate, i64::from(fraction_top));
        // The result's exponent: 2 bias - 1 - exp, or (3 bias - 1 - exp) DIV 2; the sign is the operand's
        // (positive for the root).
        let result_exponent = if square_root {
            let base = self.iconst(bits_type, 3 * bias - 1);
            let doubled = self.b.ins().isub(base, exponent);
            self.b.ins().ushr_imm_u(doubled, 1)
        } else {
            let base = self.iconst(bits_type, 2 * bias - 1);
            self.b.ins().isub(base, exponent)
        };
        let result_exponent = self.b.ins().ishl_imm_u(result_exponent, i64::from(exponent_at));
        let mut result = self.b.ins().bor(result_exponent, fraction);
        if !square_root {
            let sign = self.and_const(x, sign);
            result = self.b.ins().bor(result, sign);
        }
        self.set_shaped_or_reference(host_is_arm, word, rd, result, shape);
        Ok(Flow::Next)
    }

    /// URECPE and URSQRTE (`square_root`) on 32-bit lanes (`UnsignedRecipEstimate`, `UnsignedRSqrtEstimate`): the
    /// same tables on fixed-point fractions (the binary point above bit 31), whose top 9 bits are the table's
    /// operand; fractions below one half (one quarter for the square root) give all ones. Exact for every operand.
    fn unsigned_estimate(&mut self, q: u32, square_root: bool, rn: u32, rd: u32) -> Lift {
        let x = self.vector(rn, types::I32X4);
        let table_operand = self.b.ins().ushr_imm_u(x, 23);
        let estimate = self.table_estimate(table_operand, square_root);
        // The estimate is in 256..511: its implicit top bit is bit 31 of the result.
        let estimate = self.b.ins().ishl_imm_u(estimate, 23);
        let result = self.or_const(estimate, 0x8000_0000);
        let smallest = self.iconst(types::I32X4, if square_root { 0x4000_0000 } else { 0x8000_0000 });
        let in_domain = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, smallest);
        let all_ones = self.iconst(types::I32X4, u64::from(u32::MAX));
        let result = self.b.ins().bitselect(in_domain, result, all_ones);
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// `RecipEstimate(a)` (a in 256..511) or `RecipSqrtEstimate(a)` (`square_root`, a in 128..511) in each
    /// 32-bit lane, less its top bit: the low 8 bits of the 9-bit estimate.
    ///
    /// The tables' integer quotients become float ones: RecipEstimate's b = 2^19 DIV d (d = 2a + 1 odd,
    /// 513..1023) is never within 1/d of an integer, far more than the division's rounding error of 2^-24
    /// relative, so the truncated float quotient is b; RecipSqrtEstimate's loop ends at b = floor(sqrt(2^28 / d))
    /// (d = 2a + 1 below 256, else 4 (a DIV 2) + 2: never a square, being odd or twice an odd number), and the
    /// float square root truncates to it for every one of the 384 values a takes, which the fast path's tests
    /// run.
    fn table_estimate(&mut self, a: Value, square_root: bool) -> Value {
        let (divisor, dividend) = if square_root {
            let low = self.iconst(types::I32X4, 0x100);
            let below_half = self.b.ins().icmp(IntCC::UnsignedLessThan, a, low);
            let twice = self.b.ins().ishl_imm_u(a, 1);
            let from_quarter = self.or_const(twice, 1);
            let even = self.and_const(twice, !3);
            let from_half = self.or_const(even, 2);
            (self.b.ins().bitselect(below_half, from_quarter, from_half), (1u64 << 28) as f32)
        } else {
            let twice = self.b.ins().ishl_imm_u(a, 1);
            (self.or_const(twice, 1), (1u64 << 19) as f32)
        };
        let divisor = self.b.ins().fcvt_from_sint(types::F32X4, divisor);
        let dividend = self.b.ins().f32const(dividend);
        let dividend = self.b.ins().splat(types::F32X4, dividend);
        let mut quotient = self.b.ins().fdiv(dividend, divisor);
        if square_root {
            quotient = self.b.ins().sqrt(quotient);
        }
        let b = self.b.ins().fcvt_to_sint_sat(types::I32X4, quotient);
        // (b + 1) DIV 2, whose low 8 bits are the estimate's below its top bit.
        let one = self.iconst(types::I32X4, 1);
        let estimate = self.b.ins().iadd(b, one);
        let estimate = self.b.ins().ushr_imm_u(estimate, 1);
        self.and_const(estimate, 0xff)
    }

    /// Whether a lane mask holds in every lane the instruction uses: all of a 128-bit vector, the lower half of a
    /// 64-bit one, the first lane of a scalar.
    fn every_lane_in_use(&mut self, mask: Value, shape: Shape) -> Value {
        let ty = self.b.func.dfg.value_type(mask);
        let lane_bytes = ty.lane_bits() as usize / 8;
        let bytes_in_use = match shape {
            Shape::Vector { q: 1 } => 16,
            Shape::Vector { .. } => 8,
            Shape::Scalar => lane_bytes,
        };
        let mask = if bytes_in_use < 16 {
            let unused = (0..16).map(|byte| if byte < bytes_in_use { 0 } else { 0xff }).collect::<Vec<u8>>();
            let unused = self.b.func.dfg.constants.insert(unused.into());
            let unused = self.b.ins().vconst(ty, unused);
            self.b.ins().bor(mask, unused)
        } else {
            mask
        };
        self.b.ins().vall_true(mask)
    }

    /// `set_shaped` where `host_is_arm` holds, the reference's run of `word` otherwise (`host_or_reference`).
    fn set_shaped_or_reference(&mut self, host_is_arm: Value, word: u32, rd: u32, result: Value, shape: Shape) {
        self.host_or_reference(host_is_arm, word, &[], Outputs::None, |lifter| {
            lifter.set_shaped(rd, result, shape);
            vec![]
        });
    }

    /// V[rd] = the lanes of `result` the shape writes: the vector (its lower half zero-extended when 64-bit), or the
    /// first lane zero-extended.
    fn set_shaped(&mut self, rd: u32, result: Value, shape: Shape) {
        match shape {
            Shape::Vector { q } => self.set_vector(rd, result, q),
            Shape::Scalar => self.set_first_lane(rd, result),
        }
    }
}
