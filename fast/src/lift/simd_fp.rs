//! Advanced SIMD floating point on vectors of singles (2S, 4S) and doubles (2D) as host vector operations, where
//! every lane's result is the Arm result, checked lane by lane with `fp_arith`'s tests; the reference in a cold
//! block otherwise (`host_or_reference`). Lanes of a 64-bit vector's upper half are no operands: they never send an
//! instruction to the reference.
//!
//! - Arithmetic (FADD, FSUB, FMUL, FDIV, FMLA, FMLS, by vector or by element; FADDP; the Newton-Raphson steps
//!   FRECPS, FRSQRTS, fused with their constant addends): FPCR in its default mode and
//!   FPSR.IXC already set (sticky: no lane's inexactness need be found then), every lane's operands normal (or zero
//!   for the fused ones, `fused_fits`) and its result above the smallest normal, or an exact zero where only one is
//!   possible (a sum of normal operands cannot cancel to anything tiny). No other exception can arise.
//! - Compares (FCMEQ, FCMGE, FCMGT, and with zero FCMLE, FCMLT) and FMAX, FMIN, FMAXNM, FMINNM: the host's ordered
//!   comparison, maximum or minimum (-0 below +0, as Arm orders them) where FPCR.FZ is clear (no input is flushed)
//!   and no lane holds a NaN (which raises Invalid, and is where the NM forms differ).
//! - FABS, FNEG: the sign bit, as the scalar forms (`simd_moves`).
//! - SCVTF, UCVTF, FCVTZS, FCVTZU on singles: as the scalar forms (`fp_arith`), with FPSR.IXC already set.
//! - FRECPE, FRSQRTE on singles: the manual's estimate tables computed in the lanes where the estimate is a normal
//!   number (`vector_estimate`).

use super::fp_arith::{Outputs, smallest_normal, truncation_bounds};
use super::{Flow, Lift, Lifter, Unlifted};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value, types};
use tandem_reference::interp::shared_decode::{fp_by_element_ok, indexed_element};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Arithmetic {
    Add,
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
    Max,
    Min,
}

/// Which lanes an instruction computes: a 64-bit (`q` 0) or 128-bit vector's, or a scalar's first.
#[derive(Clone, Copy)]
enum Shape {
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
        let (bits_type, _) = vector_types(double);
        let when_ordered = match (u, size >> 1, opcode) {
            (0, 0, 0b11100) => Some(Ordered::Compare(FloatCC::Equal)),
            (1, 0, 0b11100) => Some(Ordered::Compare(FloatCC::GreaterThanOrEqual)),
            (1, 1, 0b11100) => Some(Ordered::Compare(FloatCC::GreaterThan)),
            // FMAXNM and FMAX, FMINNM and FMIN: the same where no lane is a NaN.
            (0, 0, 0b11000 | 0b11110) => Some(Ordered::Max),
            (0, 1, 0b11000 | 0b11110) => Some(Ordered::Min),
            _ => None,
        };
        if let Some(operation) = when_ordered {
            let (n, m) = (self.vector(rn, bits_type), self.vector(rm, bits_type));
            self.vector_fp_when_ordered(operation, Shape::Vector { q }, double, n, m, rd, word);
            return Ok(Flow::Next);
        }
        if (u, size >> 1, opcode) == (1, 0, 0b11010) {
            // FADDP: the sums of adjacent lanes of the two operands side by side.
            let (first, second) = self.pairs(rn, rm, double, q);
            return self.vector_fp_arithmetic(Arithmetic::Add, Shape::Vector { q }, double, first, second, rd, word);
        }
        let operation = match (u, size >> 1, opcode) {
            (0, 0, 0b11010) => Arithmetic::Add,
            (0, 1, 0b11010) => Arithmetic::Sub,
            (1, 0, 0b11011) => Arithmetic::Mul,
            (1, 0, 0b11111) => Arithmetic::Div,
            (0, 0, 0b11001) => Arithmetic::MulAdd,
            (0, 1, 0b11001) => Arithmetic::MulSub,
            (0, 0, 0b11111) => Arithmetic::RecipStep,
            (0, 1, 0b11111) => Arithmetic::RSqrtStep,
            _ => return Err(Unlifted),
        };
        let (n, m) = (self.vector(rn, bits_type), self.vector(rm, bits_type));
        self.vector_fp_arithmetic(operation, Shape::Vector { q }, double, n, m, rd, word)
    }

    /// FMUL, FMLA, FMLS (by element; vector, or scalar when `q` is `None`), singles and doubles: the element in
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
        if u != 0 || !matches!(size, 0b10 | 0b11) || !fp_by_element_ok(size, l, q) {
            return Err(Unlifted);
        }
        let shape = q.map_or(Shape::Scalar, |q| Shape::Vector { q });
        let operation = match opcode {
            0b1001 => Arithmetic::Mul,
            0b0001 => Arithmetic::MulAdd,
            0b0101 => Arithmetic::MulSub,
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
        if (u, size >> 1, opcode) != (1, 0, 0b01101) {
            return Err(Unlifted);
        }
        let double = size & 1 == 1;
        // Lanes 0 and 1 are the first pair of the 128-bit arrangement.
        let (first, second) = self.pairs(rn, rn, double, 1);
        self.vector_fp_arithmetic(Arithmetic::Add, Shape::Scalar, double, first, second, rd, word)
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
        let double = size & 1 == 1;
        if double && q == 0 {
            return Err(Unlifted);
        }
        if opcode == 0b11101 && size >> 1 == 0 || opcode == 0b11011 && size >> 1 == 1 {
            return self.vector_convert(q, u == 0, size >> 1 == 0, double, rn, rd, word);
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
            (_, 0b11101) if !double => return self.vector_estimate(q, u == 1, rn, rd, word),
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

    /// SCVTF, UCVTF (`to_float`) and FCVTZS, FCVTZU (vector, integer; signed or not) on 32-bit lanes (the host has
    /// no 64-bit lane conversions): in the default FPCR mode with FPSR.IXC already set, integers convert with the
    /// host's rounding, and floats in the integers' range (so no NaN) truncate on the host.
    #[allow(clippy::too_many_arguments)]
    fn vector_convert(
        &mut self,
        q: u32,
        signed: bool,
        to_float: bool,
        double: bool,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let shape = Shape::Vector { q };
        if double {
            return Err(Unlifted);
        }
        let mut host_is_arm = self.default_fpcr_mode();
        let inexact_seen = self.inexact_seen();
        host_is_arm = self.b.ins().band(host_is_arm, inexact_seen);
        let value = self.vector(rn, types::I32X4);
        let result = if to_float {
            let result = if signed {
                self.b.ins().fcvt_from_sint(types::F32X4, value)
            } else {
                self.b.ins().fcvt_from_uint(types::F32X4, value)
            };
            self.b.ins().bitcast(types::I32X4, MemFlagsData::new(), result)
        } else {
            let a = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), value);
            let (low, high) = truncation_bounds(signed, 32);
            let [low, high] = [low, high].map(|bound| {
                let bound = self.b.ins().f32const(bound as f32);
                self.b.ins().splat(types::F32X4, bound)
            });
            let above = self.b.ins().fcmp(FloatCC::GreaterThan, a, low);
            let below = self.b.ins().fcmp(FloatCC::LessThan, a, high);
            let in_range = self.b.ins().band(above, below);
            let all_in_range = self.every_lane_in_use(in_range, shape);
            host_is_arm = self.b.ins().band(host_is_arm, all_in_range);
            if signed {
                self.b.ins().fcvt_to_sint_sat(types::I32X4, a)
            } else {
                self.b.ins().fcvt_to_uint_sat(types::I32X4, a)
            }
        };
        self.set_shaped_or_reference(host_is_arm, word, rd, result, shape);
        Ok(Flow::Next)
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
        let fused = !matches!(operation, Arithmetic::Add | Arithmetic::Sub | Arithmetic::Mul | Arithmetic::Div);
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
                Arithmetic::Mul => self.b.ins().fmul(n, m),
                _ => self.b.ins().fdiv(n, m),
            };
            let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
            let n_normal = self.is_finite_from(n_bits, double, smallest_normal);
            let m_normal = self.is_finite_from(m_bits, double, smallest_normal);
            let mut result_fits = self.is_finite_from(result_bits, double, smallest_normal + 1);
            if matches!(operation, Arithmetic::Add | Arithmetic::Sub) {
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

    /// `value` as the bits of a float in every lane of `bits_type` (I32X4 or I64X2).
    fn float_bits_splat(&mut self, bits_type: Type, value: f64) -> Value {
        let bits = if bits_type == types::I64X2 { value.to_bits() } else { u64::from((value as f32).to_bits()) };
        self.iconst(bits_type, bits)
    }

    /// FRECPE and FRSQRTE (`square_root`) on singles: the manual's estimate tables (`RecipEstimate`,
    /// `RecipSqrtEstimate`) computed in the lanes, for the operands whose estimate is a normal number made of the
    /// table's bits alone, which raise nothing whatever FPCR holds: FRECPE of a normal number below 2^126 in
    /// magnitude, FRSQRTE of a positive normal one; the reference in a cold block for the others (zeros,
    /// denormals, infinities, NaNs, negative square roots, reciprocals that would be denormal).
    ///
    /// The tables' integer quotients become float ones: RecipEstimate's b = 2^19 DIV d (d odd, 513..1023) is
    /// never within 1/d of an integer, far more than the division's rounding error of 2^-24 relative, so the
    /// truncated float quotient is b; RecipSqrtEstimate's loop ends at b = floor(sqrt(2^28 / a)) (never a square:
    /// a is odd or twice an odd number), and the float square root truncates to it for every one of the 256
    /// values a takes, which the fast path's tests run.
    fn vector_estimate(&mut self, q: u32, square_root: bool, rn: u32, rd: u32, word: u32) -> Lift {
        let shape = Shape::Vector { q };
        let x = self.vector(rn, types::I32X4);
        let exponent = self.b.ins().ushr_imm_u(x, 23);
        let exponent = self.and_const(exponent, 0xff);
        let (in_domain, bound) =
            if square_root { (x, 0x7f80_0000u64) } else { (self.and_const(x, 0x7fff_ffff), 253 << 23) };
        // A normal number below `bound` (and positive for the square root): one unsigned compare.
        let smallest_normal = self.iconst(types::I32X4, 0x0080_0000);
        let above = self.b.ins().isub(in_domain, smallest_normal);
        let span = self.iconst(types::I32X4, bound - 0x0080_0000);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, above, span);
        let host_is_arm = self.every_lane_in_use(fits, shape);
        // The table's operand a (9 or 10 bits) from the fraction's top bits, and the quotient it starts from.
        let (divisor, dividend) = if square_root {
            // Odd exponents (scaled 128..255): a = 2 scaled + 1 = 2 f7 + 257; even ones (256..511, their bottom
            // bit dropped): a = 4 f7 + 514; f7 the fraction's top 7 bits.
            let top7 = self.b.ins().ushr_imm_u(x, 16);
            let top7 = self.and_const(top7, 0x7f);
            let odd = self.and_const(exponent, 1);
            let zero = self.iconst(types::I32X4, 0);
            let odd = self.b.ins().icmp(IntCC::NotEqual, odd, zero);
            let twice = self.b.ins().ishl_imm_u(top7, 1);
            let four_times = self.b.ins().ishl_imm_u(top7, 2);
            let [from_odd, from_even] = [(twice, 257), (four_times, 514)].map(|(scaled, offset)| {
                let offset = self.iconst(types::I32X4, offset);
                self.b.ins().iadd(scaled, offset)
            });
            (self.b.ins().bitselect(odd, from_odd, from_even), (1u64 << 28) as f32)
        } else {
            // a = 2 (256 + f8) + 1, f8 the fraction's top 8 bits.
            let top8 = self.b.ins().ushr_imm_u(x, 15);
            let top8 = self.and_const(top8, 0xff);
            let twice = self.b.ins().ishl_imm_u(top8, 1);
            let offset = self.iconst(types::I32X4, 513);
            (self.b.ins().iadd(twice, offset), (1u64 << 19) as f32)
        };
        let divisor = self.b.ins().fcvt_from_sint(types::F32X4, divisor);
        let dividend = self.b.ins().f32const(dividend);
        let dividend = self.b.ins().splat(types::F32X4, dividend);
        let mut quotient = self.b.ins().fdiv(dividend, divisor);
        if square_root {
            quotient = self.b.ins().sqrt(quotient);
        }
        let b = self.b.ins().fcvt_to_sint_sat(types::I32X4, quotient);
        // (b + 1) DIV 2, whose low 8 bits are the result's fraction's top ones.
        let one = self.iconst(types::I32X4, 1);
        let estimate = self.b.ins().iadd(b, one);
        let estimate = self.b.ins().ushr_imm_u(estimate, 1);
        let estimate = self.and_const(estimate, 0xff);
        let fraction = self.b.ins().ishl_imm_u(estimate, 15);
        // The result's exponent: 253 - exp, or (380 - exp) DIV 2; the sign is the operand's (positive for the root).
        let result_exponent = if square_root {
            let base = self.iconst(types::I32X4, 380);
            let doubled = self.b.ins().isub(base, exponent);
            self.b.ins().ushr_imm_u(doubled, 1)
        } else {
            let base = self.iconst(types::I32X4, 253);
            self.b.ins().isub(base, exponent)
        };
        let result_exponent = self.b.ins().ishl_imm_u(result_exponent, 23);
        let mut result = self.b.ins().bor(result_exponent, fraction);
        if !square_root {
            let sign = self.and_const(x, 0x8000_0000);
            result = self.b.ins().bor(result, sign);
        }
        self.set_shaped_or_reference(host_is_arm, word, rd, result, shape);
        Ok(Flow::Next)
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
            Shape::Scalar => {
                let first = self.b.ins().extractlane(result, 0);
                self.set_v(rd, first);
            }
        }
    }
}
