//! Scalar FADD, FSUB, FMUL and FDIV in single and double precision as host float operations (and the fused
//! multiply-adds, conversions and FMOV immediate below, each with its own conditions), where the host's
//! IEEE 754 result is the Arm result: FPCR in its default mode (round to nearest even, no flush to zero, no
//! default NaN, no trap enabled), both operands normal and the result normal and larger than the smallest normal
//! (or an exact zero from an addition), with room above the subnormal range for the error terms below. Then no exception but Inexact can arise, and whether the result is inexact
//! is found exactly from the operation's error (an error-free transformation). Anything else (NaNs, infinities,
//! zeros, subnormals, results that may underflow or overflow, other FPCR modes) runs on the reference in place,
//! in a cold block, which is therefore what decides every special case.
//!
//! The errors: for a sum, Knuth's TwoSum (exact under round to nearest without overflow); for a single-precision
//! product, the double-precision product (exact: 24 + 24 bits); for a single-precision quotient `q`, the remainder
//! `a - q * b` computed in double precision (exact: `q * b` has 48 bits and lies next to `a`); for double
//! precision, the fused multiply-add (`a * b - p`, `a - q * b`), only where the host has one (Cranelift would
//! otherwise call a library function, which compiled code cannot).

use super::fp_half::FPCR_FZ16;
use super::simd_fp::{Rounding, Shape};
use super::{Flow, Lift, Lifter, Unlifted, cpu_offset_of_register};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{BlockArg, InstBuilder, MemFlagsData, Type, Value, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::float::Width;
use tandem_reference::interp::pseudocode::vfp_expand_imm;
use tandem_reference::interp::shared_decode::fp_width;

/// FPCR bits that must be clear for the host's arithmetic to be the Arm arithmetic: AHP, DN, FZ, RMode and the
/// trap enables.
const FPCR_NON_DEFAULT: u32 = 1 << 26 | 1 << 25 | 1 << 24 | 0b11 << 22 | 0xff00;

/// FPCR.AHP: the alternative half-precision format (no infinities or NaNs).
pub(super) const FPCR_AHP: u32 = 1 << 26;

/// FPCR.FZ: flush subnormal inputs and results to zero.
const FPCR_FZ: u32 = 1 << 24;

/// FPSR.IXC, the cumulative Inexact flag.
const FPSR_IXC: u32 = 1 << 4;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Operation {
    Mul,
    Div,
    Add,
    Sub,
}

impl Lifter<'_> {
    /// FMUL, FDIV, FADD, FSUB, FNMUL (scalar) of the class "Floating-point data-processing (2 source)". FNMUL is
    /// FMUL's result negated (round to nearest is symmetric: the same as rounding the negated product).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_arithmetic(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let operation = match opcode {
            0b0000 => Operation::Mul,
            0b0001 => Operation::Div,
            0b0010 => Operation::Add,
            0b0011 => Operation::Sub,
            0b1000 => Operation::Mul,
            _ => return Err(Unlifted),
        };
        let negated = opcode == 0b1000;
        if (m, s, ftype) == (0, 0, 0b11) {
            return self.half_arithmetic(operation, negated, rm, rn, rd, word);
        }
        let width = single_or_double(m, s, ftype)?;
        let double = width == Width::D;
        if double && matches!(operation, Operation::Mul | Operation::Div) && !self.host_has_fma {
            return Err(Unlifted);
        }
        let (bits_type, float_type) = float_types(width);
        let (a_bits, b_bits) = (self.v_low(rn, bits_type), self.v_low(rm, bits_type));
        let a = self.b.ins().bitcast(float_type, MemFlagsData::new(), a_bits);
        let b = self.b.ins().bitcast(float_type, MemFlagsData::new(), b_bits);
        let result = match operation {
            Operation::Mul => self.b.ins().fmul(a, b),
            Operation::Div => self.b.ins().fdiv(a, b),
            Operation::Add => self.b.ins().fadd(a, b),
            Operation::Sub => self.b.ins().fsub(a, b),
        };
        let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
        let inexact = self.inexact(operation, a, b, result);

        // Whether the host's result is the Arm result, with Inexact the only exception.
        let default_mode = self.default_fpcr_mode();
        let smallest_normal = smallest_normal(double);
        // The fused multiply-add's error terms are exact only while they stay above the subnormal range: 53
        // binades of room in double precision, for the product and for the dividend.
        let exact_errors = 54u64 << 52;
        let double_product_or_quotient = double && matches!(operation, Operation::Mul | Operation::Div);
        let a_low =
            if double_product_or_quotient && operation == Operation::Div { exact_errors } else { smallest_normal };
        let result_low = if double_product_or_quotient && operation == Operation::Mul {
            exact_errors
        } else {
            // Above the smallest normal: a result that rounded up to it may be tiny to Arm, which judges tininess
            // before rounding.
            smallest_normal + 1
        };
        let a_normal = self.is_finite_from(a_bits, double, a_low);
        let b_normal = self.is_finite_from(b_bits, double, smallest_normal);
        let mut result_fits = self.is_finite_from(result_bits, double, result_low);
        if matches!(operation, Operation::Add | Operation::Sub) {
            // Normal operands that cancel give +0, exactly, on both.
            let zero = self.is_zero(result_bits, double);
            result_fits = self.b.ins().bor(result_fits, zero);
        }
        let operands = self.b.ins().band(a_normal, b_normal);
        let host_is_arm = self.b.ins().band(default_mode, operands);
        let host_is_arm = self.b.ins().band(host_is_arm, result_fits);

        let result_bits = if negated {
            let sign = self.iconst(bits_type, sign_bit(double));
            self.b.ins().bxor(result_bits, sign)
        } else {
            result_bits
        };
        self.set_v_inexact_or_reference(host_is_arm, word, rd, result_bits, inexact);
        Ok(Flow::Next)
    }

    /// FCMP and FCMPE (scalar, single and double precision, with a register or zero): the host's ordered
    /// comparison gives NZCV when FPCR.FZ is clear (no input is flushed) and neither operand is a NaN (no
    /// exception is possible); the reference decides the rest.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_compare(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        op: u32,
        rn: u32,
        opcode2: u32,
        word: u32,
    ) -> Lift {
        if op != 0 || opcode2 & 0b111 != 0 {
            return Err(Unlifted);
        }
        let with_zero = opcode2 & 0b01000 != 0;
        let (a, b, host_is_arm) = if (m, s, ftype) == (0, 0, 0b11) {
            // Half precision: widened exactly where each operand is normal or a zero (with FPCR.FZ16 clear,
            // nothing is flushed; no NaN raises anything).
            let (a, a_normal, a_zero) = self.half_as_single(rn);
            let (b, b_normal, b_zero) = match with_zero {
                true => {
                    (self.float_zero(types::F32), self.b.ins().iconst(types::I8, 1), self.b.ins().iconst(types::I8, 1))
                }
                false => self.half_as_single(rm),
            };
            let mut host_is_arm = self.fpcr_bit_clear(FPCR_FZ16);
            for (normal, zero) in [(a_normal, a_zero), (b_normal, b_zero)] {
                let exact = self.b.ins().bor(normal, zero);
                host_is_arm = self.b.ins().band(host_is_arm, exact);
            }
            (a, b, host_is_arm)
        } else {
            let width = single_or_double(m, s, ftype)?;
            let float_type = float_types(width).1;
            let a = self.float_register(rn, width);
            let b = if with_zero { self.float_zero(float_type) } else { self.float_register(rm, width) };
            (a, b, self.host_compares(a, b))
        };
        let flags =
            self.host_or_reference(host_is_arm, word, &[], Outputs::Flags, |lifter| vec![lifter.compare_flags(a, b)]);
        self.set_flags_packed(flags[0]);
        Ok(Flow::Next)
    }

    /// FCCMP and FCCMPE (scalar, single and double precision): NZCV = the comparison's flags (as FCMP's) where the
    /// condition holds, `nzcv` otherwise. On the host where the condition fails (nothing is compared, nothing
    /// raised) or FCMP's host case holds (no NaN: FCCMPE's signalling comparison raises nothing either).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_conditional_compare(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        cond: u32,
        rn: u32,
        nzcv: u32,
        word: u32,
    ) -> Lift {
        let width = single_or_double(m, s, ftype)?;
        let (a, b) = (self.float_register(rn, width), self.float_register(rm, width));
        let holds = self.condition_holds(cond);
        let compares = self.host_compares(a, b);
        let fails = self.b.ins().icmp_imm_s(IntCC::Equal, holds, 0);
        let host_is_arm = self.b.ins().bor(compares, fails);
        let flags = self.host_or_reference(host_is_arm, word, &[], Outputs::Flags, |lifter| {
            let compared = lifter.compare_flags(a, b);
            let given = lifter.b.ins().iconst(types::I32, i64::from(nzcv << 28));
            vec![lifter.b.ins().select(holds, compared, given)]
        });
        self.set_flags_packed(flags[0]);
        Ok(Flow::Next)
    }

    /// V[n]'s low bits as a float of `width`.
    fn float_register(&mut self, n: u32, width: Width) -> Value {
        let (bits_type, float_type) = float_types(width);
        let bits = self.v_low(n, bits_type);
        self.b.ins().bitcast(float_type, MemFlagsData::new(), bits)
    }

    /// Whether the host's comparison of `a` and `b` is Arm's (an i8 boolean): FPCR.FZ clear (no input is flushed)
    /// and neither a NaN (no exception is possible).
    fn host_compares(&mut self, a: Value, b: Value) -> Value {
        let no_flush = self.no_flush();
        let ordered = self.b.ins().fcmp(FloatCC::Ordered, a, b);
        self.b.ins().band(no_flush, ordered)
    }

    /// NZCV, packed, of comparing the ordered `a` and `b`: equal sets Z and C, less N, greater C.
    fn compare_flags(&mut self, a: Value, b: Value) -> Value {
        let equal = self.b.ins().fcmp(FloatCC::Equal, a, b);
        let less = self.b.ins().fcmp(FloatCC::LessThan, a, b);
        let greater_or_equal = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, a, b);
        let mut packed = self.b.ins().iconst(types::I32, 0);
        for (flag, bit) in [(less, 31), (equal, 30), (greater_or_equal, 29)] {
            let wide = self.b.ins().uextend(types::I32, flag);
            let shifted = self.b.ins().ishl_imm_u(wide, bit);
            packed = self.b.ins().bor(packed, shifted);
        }
        packed
    }

    /// FMADD, FMSUB, FNMADD, FNMSUB (scalar, single and double precision): the host's fused multiply-add of the
    /// operands with their signs flipped as the instruction says (flipping a sign is exact), where that is the
    /// Arm result: the default FPCR mode, every operand normal or zero, the result zero (exact cancellation or
    /// zeros: both take IEEE 754's signs, as FPMulAdd does) or finite above the smallest normal, and FPSR.IXC
    /// already set. IXC is sticky, so whether this result is inexact changes nothing then; finding it exactly
    /// would cost an error-free fused multiply-add. The reference decides the rest, and the first inexact ones.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_multiply_add(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        o1: u32,
        rm: u32,
        o0: u32,
        ra: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let width = single_or_double(m, s, ftype)?;
        if !self.host_has_fma {
            return Err(Unlifted);
        }
        let double = width == Width::D;
        let (bits_type, float_type) = float_types(width);
        let operands = [rn, rm, ra].map(|register| self.v_low(register, bits_type));
        let [n, m, a] = operands.map(|bits| self.b.ins().bitcast(float_type, MemFlagsData::new(), bits));
        // FMADD: a + n*m; FMSUB: a - n*m; FNMADD: -a - n*m; FNMSUB: -a + n*m.
        let n = if o0 != o1 { self.b.ins().fneg(n) } else { n };
        let a = if o1 == 1 { self.b.ins().fneg(a) } else { a };
        let result = self.b.ins().fma(n, m, a);
        let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);

        let mut host_is_arm = self.default_fpcr_mode();
        let inexact_seen = self.inexact_seen();
        host_is_arm = self.b.ins().band(host_is_arm, inexact_seen);
        let fits = self.fused_fits(operands, n, m, result_bits, double);
        host_is_arm = self.b.ins().band(host_is_arm, fits);
        self.set_v_or_reference(host_is_arm, word, rd, result_bits);
        Ok(Flow::Next)
    }

    /// Whether a fused multiply-add's host result is the Arm result, given a default FPCR mode and IXC already
    /// set (`fp_multiply_add`), from the bits of its operands `[n, m, a]`, its product's factors (signed as
    /// used) and the result's bits: scalars or lanes alike.
    pub(super) fn fused_fits(
        &mut self,
        operands: [Value; 3],
        n: Value,
        m: Value,
        result_bits: Value,
        double: bool,
    ) -> Value {
        let smallest_normal = smallest_normal(double);
        let mut fits = self.is_zero_or_finite_from(operands[0], double, smallest_normal);
        for bits in [operands[1], operands[2]] {
            let operand_fits = self.is_zero_or_finite_from(bits, double, smallest_normal);
            fits = self.b.ins().band(fits, operand_fits);
        }
        // A result above the smallest normal (one that rounded up to it may be tiny to Arm, which judges tininess
        // before rounding), or a zero that is the exact result (a tiny one that rounded to zero underflowed): the
        // product has a zero factor (then the addend is zero too), or is large enough that its bits lie above the
        // smallest subnormal, as the addend's do (at least 2^-100 in single precision, whose products have 48
        // bits; 2^-968 in double, 106), so that a sum that rounds to zero is zero.
        let mut result_fits = self.is_finite_from(result_bits, double, smallest_normal + 1);
        let zero_result = self.is_zero(result_bits, double);
        let product = self.b.ins().fmul(n, m);
        let bits_type = self.b.func.dfg.value_type(result_bits);
        let product_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), product);
        let product_on_grid = self.is_finite_from(product_bits, double, if double { 56 << 52 } else { 28 << 23 });
        let zero_factor = [operands[0], operands[1]].map(|bits| self.is_zero(bits, double));
        let exact_zero = self.b.ins().bor(zero_factor[0], zero_factor[1]);
        let exact_zero = self.b.ins().bor(exact_zero, product_on_grid);
        let exact_zero = self.b.ins().band(zero_result, exact_zero);
        result_fits = self.b.ins().bor(result_fits, exact_zero);
        self.b.ins().band(fits, result_fits)
    }

    /// Whether FPSR.IXC is set (an i8 boolean).
    pub(super) fn inexact_seen(&mut self) -> Value {
        let fpsr = self.cpu_field(types::I32, offset_of!(CpuState, fpsr));
        let inexact_seen = self.b.ins().band_imm_u(fpsr, i64::from(FPSR_IXC));
        self.b.ins().icmp_imm_s(IntCC::NotEqual, inexact_seen, 0)
    }

    /// FSQRT, FCVT (between single and double precision; between half and single as `vector_convert_precision`'s
    /// first lane) and FRINTN, FRINTP, FRINTM, FRINTZ, FRINTA, FRINTX,
    /// FRINTI (scalar), where the host's result is the Arm result:
    /// - FSQRT of a positive normal number (whose root is normal) in the default FPCR mode with FPSR.IXC already
    ///   set (as `fp_multiply_add`);
    /// - FCVT from single to double precision of a number that is not a NaN, FPCR.FZ clear (exact);
    /// - FCVT from double to single precision in the default mode, the result finite above the smallest normal, or
    ///   zero from a zero; inexact when it differs from the operand;
    /// - FRINT of a number that is not a NaN, FPCR.FZ clear: exact, no exception (the rounding keeps the sign of a
    ///   zero result, on both); FRINTX and FRINTI round as FPCR.RMode says, so only in the default mode (to
    ///   nearest), and FRINTX raises Inexact where the value changed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_unary(&mut self, m: u32, s: u32, ftype: u32, opcode: u32, rn: u32, rd: u32, word: u32) -> Lift {
        // FCVT between half and single precision: the first lane of FCVTL and FCVTN; between half and double.
        match (m, s, ftype, opcode) {
            (0, 0, 0b11, 0b000100) => return self.vector_convert_precision(Shape::Scalar, false, None, rn, rd, word),
            (0, 0, 0b00, 0b000111) => {
                let narrowing = Some(Rounding::ToNearest);
                return self.vector_convert_precision(Shape::Scalar, false, narrowing, rn, rd, word);
            }
            (0, 0, 0b11, 0b000101) => return self.half_to_double(rn, rd, word),
            (0, 0, 0b01, 0b000111) => return self.double_to_half(rn, rd, word),
            _ => {}
        }
        let width = single_or_double(m, s, ftype)?;
        let double = width == Width::D;
        let (bits_type, float_type) = float_types(width);
        let smallest_normal = smallest_normal(double);
        match opcode {
            0b000011 => {
                let a_bits = self.v_low(rn, bits_type);
                let a = self.b.ins().bitcast(float_type, MemFlagsData::new(), a_bits);
                let root = self.b.ins().sqrt(a);
                let root_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), root);
                let positive_normal = self.is_positive_finite_from(a_bits, double, smallest_normal);
                let mut host_is_arm = self.default_fpcr_mode();
                let inexact_seen = self.inexact_seen();
                host_is_arm = self.b.ins().band(host_is_arm, inexact_seen);
                host_is_arm = self.b.ins().band(host_is_arm, positive_normal);
                self.set_v_or_reference(host_is_arm, word, rd, root_bits);
            }
            0b000100 | 0b000101 => {
                let to_double = opcode == 0b000101;
                if to_double == double {
                    return Err(Unlifted);
                }
                let a_bits = self.v_low(rn, bits_type);
                let a = self.b.ins().bitcast(float_type, MemFlagsData::new(), a_bits);
                if to_double {
                    let result = self.b.ins().fpromote(types::F64, a);
                    let result_bits = self.b.ins().bitcast(types::I64, MemFlagsData::new(), result);
                    let not_nan = self.b.ins().fcmp(FloatCC::Ordered, a, a);
                    let no_flush = self.no_flush();
                    let host_is_arm = self.b.ins().band(no_flush, not_nan);
                    self.set_v_or_reference(host_is_arm, word, rd, result_bits);
                } else {
                    let result = self.b.ins().fdemote(types::F32, a);
                    let result_bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), result);
                    let normal = self.is_finite_from(result_bits, false, (1 << 23) + 1);
                    let zero_result = self.is_zero(result_bits, false);
                    let zero_operand = self.is_zero(a_bits, true);
                    let exact_zero = self.b.ins().band(zero_result, zero_operand);
                    let result_fits = self.b.ins().bor(normal, exact_zero);
                    let default_mode = self.default_fpcr_mode();
                    let host_is_arm = self.b.ins().band(default_mode, result_fits);
                    let back = self.b.ins().fpromote(types::F64, result);
                    let inexact = self.b.ins().fcmp(FloatCC::NotEqual, back, a);
                    self.set_v_inexact_or_reference(host_is_arm, word, rd, result_bits, inexact);
                }
            }
            0b001000..=0b001100 | 0b001110 | 0b001111 => {
                let rounding = match opcode {
                    0b001001 => IntegralRounding::Up,
                    0b001010 => IntegralRounding::Down,
                    0b001011 => IntegralRounding::Zero,
                    0b001100 => IntegralRounding::TiesAway,
                    _ => IntegralRounding::TiesToEven,
                };
                let a = self.float_register(rn, width);
                let result = self.round_to_integral(a, rounding);
                let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
                let not_nan = self.b.ins().fcmp(FloatCC::Ordered, a, a);
                let mode_fits = if opcode >= 0b001110 { self.default_fpcr_mode() } else { self.no_flush() };
                let host_is_arm = self.b.ins().band(mode_fits, not_nan);
                if opcode == 0b001110 {
                    let inexact = self.b.ins().fcmp(FloatCC::NotEqual, result, a);
                    self.set_v_inexact_or_reference(host_is_arm, word, rd, result_bits, inexact);
                } else {
                    self.set_v_or_reference(host_is_arm, word, rd, result_bits);
                }
            }
            _ => return Err(Unlifted),
        }
        Ok(Flow::Next)
    }

    /// FMAX, FMIN, FMAXNM, FMINNM (scalar): the host's maximum or minimum (-0 below +0, as Arm orders them) where
    /// neither operand is a NaN (the only case in which they differ from each other, and raise exceptions) and
    /// FPCR.FZ is clear.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_min_max(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let width = single_or_double(m, s, ftype)?;
        if !(0b0100..=0b0111).contains(&opcode) {
            return Err(Unlifted);
        }
        let (bits_type, float_type) = float_types(width);
        let [a, b] = [rn, rm].map(|register| {
            let bits = self.v_low(register, bits_type);
            self.b.ins().bitcast(float_type, MemFlagsData::new(), bits)
        });
        let result = if opcode & 1 == 0 { self.b.ins().fmax(a, b) } else { self.b.ins().fmin(a, b) };
        let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
        let ordered = self.b.ins().fcmp(FloatCC::Ordered, a, b);
        let no_flush = self.no_flush();
        let host_is_arm = self.b.ins().band(no_flush, ordered);
        self.set_v_or_reference(host_is_arm, word, rd, result_bits);
        Ok(Flow::Next)
    }

    /// FCSEL: V[rd] = the condition holds ? V[rn] : V[rm], bit for bit.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_conditional_select(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        cond: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let width = single_or_double(m, s, ftype)?;
        let (bits_type, _) = float_types(width);
        let holds = self.condition_holds(cond);
        let (n, m) = (self.v_low(rn, bits_type), self.v_low(rm, bits_type));
        let result = self.b.ins().select(holds, n, m);
        self.set_v(rd, result);
        Ok(Flow::Next)
    }

    /// Whether the FPCR bit `bit` is clear (an i8 boolean).
    pub(super) fn fpcr_bit_clear(&mut self, bit: u32) -> Value {
        let fpcr = self.cpu_field(types::I32, offset_of!(CpuState, fpcr));
        let set = self.b.ins().band_imm_u(fpcr, i64::from(bit));
        self.b.ins().icmp_imm_s(IntCC::Equal, set, 0)
    }

    /// Whether FPCR.FZ is clear (an i8 boolean): no input or result is flushed to zero.
    pub(super) fn no_flush(&mut self) -> Value {
        self.fpcr_bit_clear(FPCR_FZ)
    }

    /// FMOV (scalar, immediate), single and double precision: the expanded constant.
    pub(super) fn fp_move_immediate(&mut self, m: u32, s: u32, ftype: u32, imm8: u32, imm5: u32, rd: u32) -> Lift {
        let width = single_or_double(m, s, ftype)?;
        if imm5 != 0 {
            return Err(Unlifted);
        }
        let (bits_type, _) = float_types(width);
        let constant = self.iconst(bits_type, vfp_expand_imm(imm8, width.n()));
        self.set_v(rd, constant);
        Ok(Flow::Next)
    }

    /// SCVTF, UCVTF, FCVTZS, FCVTZU (scalar, fixed-point: the integer counts units of 2^-fbits, fbits being 64 -
    /// `scale`), as the integer forms with the float scaled by 2^fbits or 2^-fbits (exact: a power of two, and
    /// where a result overflows the integer is out of range).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_fixed_convert(
        &mut self,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        scale: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        // A 32-bit integer takes at most 32 fraction bits; the other scales are unallocated.
        let allocated = matches!((rmode, opcode), (0b00, 0b010 | 0b011) | (0b11, 0b000 | 0b001));
        if !allocated || (sf == 0 && scale < 32) {
            return Err(Unlifted);
        }
        self.fp_convert(sf, s, ftype, rmode, opcode, 64 - scale, rn, rd, word)
    }

    /// SCVTF, UCVTF (from a general-purpose register) and FCVTNS, FCVTPS, FCVTMS, FCVTZS, FCVTAS and their
    /// unsigned forms (to one), scalar, single and double precision (`convert_to_float`, `convert_to_integer`);
    /// `fbits` 0 for the integer forms.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_convert(
        &mut self,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        fbits: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let Some(width) = fp_width(ftype).filter(|&width| s == 0 && width != Width::H) else {
            return Err(Unlifted);
        };
        let integer_bits = if sf == 1 { 64 } else { 32 };
        match (rmode, opcode) {
            (0b00, 0b010 | 0b011) => {
                let value = self.x(rn, integer_bits);
                self.convert_to_float(opcode == 0b010, value, width, fbits, &[rn], rd, word);
            }
            (_, 0b000 | 0b001) | (0b00, 0b100 | 0b101) => {
                let rounding = match (rmode, opcode >> 2) {
                    (_, 1) => IntegralRounding::TiesAway,
                    (0b00, _) => IntegralRounding::TiesToEven,
                    (0b01, _) => IntegralRounding::Up,
                    (0b10, _) => IntegralRounding::Down,
                    _ => IntegralRounding::Zero,
                };
                let signed = opcode & 1 == 0;
                let place = Place::General(rd);
                self.convert_to_integer(signed, rounding, fbits, rn, width, integer_bits, place, word)
            }
            _ => return Err(Unlifted),
        }
        Ok(Flow::Next)
    }

    /// SCVTF, UCVTF and FCVTNS, FCVTPS, FCVTMS, FCVTZS, FCVTAS and their unsigned forms (vector, integer) in their
    /// scalar forms (Advanced SIMD scalar two-register miscellaneous), single and double precision: the integer is
    /// the element in the SIMD&FP register, as wide as the float; otherwise as `fp_convert`. FCVTXN, FRECPE and
    /// FRSQRTE as their vector forms on the first lane.
    pub(super) fn simd_scalar_two_reg_misc(
        &mut self,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        if (u, size, opcode) == (1, 0b01, 0b10110) {
            // FCVTXN Sd, Dn: the first lane of the vector form.
            return self.vector_convert_precision(Shape::Scalar, true, Some(Rounding::ToOdd), rn, rd, word);
        }
        let width = if size & 1 == 1 { Width::D } else { Width::S };
        let integer_bits = width.n();
        let signed = u == 0;
        if let Some(rounding) = conversion_rounding(size >> 1, opcode) {
            let place = Place::Vector(rd);
            self.convert_to_integer(signed, rounding, 0, rn, width, integer_bits, place, word);
            return Ok(Flow::Next);
        }
        match (size >> 1, opcode) {
            (0, 0b11101) => {
                let (bits_type, _) = float_types(width);
                let value = self.v_low(rn, bits_type);
                self.convert_to_float(signed, value, width, 0, &[], rd, word);
            }
            // FRECPE, FRSQRTE: the first lane of the vector forms.
            (1, 0b11101) => return self.vector_estimate(Shape::Scalar, width == Width::D, u == 1, rn, rd, word),
            _ => return Err(Unlifted),
        }
        Ok(Flow::Next)
    }

    /// V[rd] = the integer `value` (signed or not; in units of 2^-fbits) as a float of `width`, in the default FPCR
    /// mode: with the host's rounding (the same, round to nearest), inexact when its significant bits do not fit the
    /// format.
    /// `reads`: the general-purpose registers the reference reads (`host_or_reference`).
    #[allow(clippy::too_many_arguments)]
    fn convert_to_float(
        &mut self,
        signed: bool,
        value: Value,
        width: Width,
        fbits: u32,
        reads: &[u32],
        rd: u32,
        word: u32,
    ) {
        let (bits_type, float_type) = float_types(width);
        let value = match (self.b.func.dfg.value_type(value).bits(), signed) {
            (64, _) => value,
            (_, true) => self.b.ins().sextend(types::I64, value),
            (_, false) => self.b.ins().uextend(types::I64, value),
        };
        let result = if signed {
            self.b.ins().fcvt_from_sint(float_type, value)
        } else {
            self.b.ins().fcvt_from_uint(float_type, value)
        };
        // Fixed point: scaled after rounding, exactly (no integer but zero lies below 1, so no result is tiny).
        let result = match fbits {
            0 => result,
            _ => {
                let scale = self.float_constant(float_type, (-f64::from(fbits)).exp2());
                self.b.ins().fmul(result, scale)
            }
        };
        let result_bits = self.b.ins().bitcast(bits_type, MemFlagsData::new(), result);
        // The significant bits of |value| (for a signed one) must fit the format's precision.
        let magnitude = if signed {
            let negated = self.b.ins().ineg(value);
            let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, value, 0);
            self.b.ins().select(negative, negated, value)
        } else {
            value
        };
        let trailing = self.b.ins().ctz(magnitude);
        let significant = self.b.ins().ushr(magnitude, trailing);
        let precision = if width == Width::D { 53 } else { 24 };
        let inexact = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, significant, 1i64 << precision);
        let default_mode = self.default_fpcr_mode();
        self.host_or_reference(default_mode, word, reads, Outputs::None, |lifter| {
            lifter.set_v(rd, result_bits);
            lifter.raise_inexact(inexact);
            vec![]
        });
    }

    /// `destination` = V[rn] (a float of `width`, times 2^fbits) rounded as `rounding` says to an integer of
    /// `integer_bits`, signed or not, in the default FPCR mode where the rounded float lies in the integer's range
    /// (and is not a NaN): rounded and converted on the host, inexact when the integer is not the float. Values out
    /// of range and NaNs (which saturate and raise Invalid) go to the reference.
    #[allow(clippy::too_many_arguments)]
    fn convert_to_integer(
        &mut self,
        signed: bool,
        rounding: IntegralRounding,
        fbits: u32,
        rn: u32,
        width: Width,
        integer_bits: u32,
        destination: Place,
        word: u32,
    ) {
        let float_type = float_types(width).1;
        let a = self.float_register(rn, width);
        // Fixed point: the float in units of 2^-fbits, exactly (an overflow to infinity is out of range).
        let a = match fbits {
            0 => a,
            _ => {
                let scale = self.float_constant(float_type, f64::from(fbits).exp2());
                self.b.ins().fmul(a, scale)
            }
        };
        // The host's conversion truncates: other roundings first round to an integral float, which then
        // truncates to itself (so the truncation bounds hold for it too).
        let rounded = match rounding {
            IntegralRounding::Zero => a,
            _ => self.round_to_integral(a, rounding),
        };
        let (low, high) = truncation_bounds(signed, integer_bits);
        let (low, high) = (self.float_constant(float_type, low), self.float_constant(float_type, high));
        let above = self.b.ins().fcmp(FloatCC::GreaterThan, rounded, low);
        let below = self.b.ins().fcmp(FloatCC::LessThan, rounded, high);
        let in_range = self.b.ins().band(above, below);
        let default_mode = self.default_fpcr_mode();
        let host_is_arm = self.b.ins().band(default_mode, in_range);
        let integer_type = if integer_bits == 64 { types::I64 } else { types::I32 };
        let outputs = match destination {
            Place::General(rd) => Outputs::Register(rd),
            Place::Vector(_) => Outputs::None,
        };
        let written = self.host_or_reference(host_is_arm, word, &[], outputs, |lifter| {
            let (result, back) = if signed {
                let result = lifter.b.ins().fcvt_to_sint_sat(integer_type, rounded);
                (result, lifter.b.ins().fcvt_from_sint(float_type, result))
            } else {
                let result = lifter.b.ins().fcvt_to_uint_sat(integer_type, rounded);
                (result, lifter.b.ins().fcvt_from_uint(float_type, result))
            };
            let inexact = lifter.b.ins().fcmp(FloatCC::NotEqual, back, a);
            lifter.raise_inexact(inexact);
            match destination {
                Place::General(_) if integer_bits == 64 => vec![result],
                Place::General(_) => vec![lifter.b.ins().uextend(types::I64, result)],
                Place::Vector(rd) => {
                    lifter.set_v(rd, result);
                    vec![]
                }
            }
        });
        if let Place::General(rd) = destination {
            self.set_x(rd, written[0]);
        }
    }

    /// Whether FPCR is in its default mode (an i8 boolean): the host's arithmetic is the Arm arithmetic then.
    pub(super) fn default_fpcr_mode(&mut self) -> Value {
        let fpcr = self.cpu_field(types::I32, offset_of!(CpuState, fpcr));
        let mode = self.b.ins().band_imm_u(fpcr, i64::from(FPCR_NON_DEFAULT));
        self.b.ins().icmp_imm_s(IntCC::Equal, mode, 0)
    }

    /// Emits `host` (which must return `outputs`' values) where `host_is_arm` holds, and the reference's run of
    /// `word` in a cold block otherwise; both go on in a block that receives the outputs as parameters. The
    /// reference reads the `CpuState`, so the general-purpose registers in `reads` are stored there first (the
    /// block may hold newer values); what it writes of `outputs` is read back from there. It touches nothing else
    /// the block keeps in SSA form. When it does not retire the instruction, the block leaves before it.
    pub(super) fn host_or_reference(
        &mut self,
        host_is_arm: Value,
        word: u32,
        reads: &[u32],
        outputs: Outputs,
        host: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Vec<Value> {
        let native = self.b.create_block();
        let reference = self.b.create_block();
        let join = self.b.create_block();
        let output_type = match outputs {
            Outputs::None => None,
            Outputs::Register(_) => Some(types::I64),
            Outputs::Flags => Some(types::I32),
        };
        if let Some(ty) = output_type {
            self.b.append_block_param(join, ty);
        }
        self.b.ins().brif(host_is_arm, native, &[], reference, &[]);
        self.b.set_cold_block(reference);

        self.b.switch_to_block(native);
        let values: Vec<BlockArg> = host(self).into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &values);

        self.b.switch_to_block(reference);
        if let Outputs::Flags = outputs {
            // An instruction that sets NZCV may read it too (FCCMP's condition).
            let packed = self.compute_packed_flags();
            self.store_packed_flags(packed);
        }
        for &register in reads {
            // A register the block has not read is still current in the `CpuState`.
            if let Some(value) = self.registers.get(register as usize).copied().flatten().filter(|_| register != 31) {
                self.set_cpu_field(value, cpu_offset_of_register(register) as usize);
            }
        }
        self.call_interpret(word);
        let values: Vec<BlockArg> = match outputs {
            Outputs::None => vec![],
            Outputs::Register(register) if register == 31 => vec![self.b.ins().iconst(types::I64, 0)],
            Outputs::Register(register) => vec![self.cpu_field(types::I64, cpu_offset_of_register(register) as usize)],
            Outputs::Flags => vec![self.cpu_field(types::I32, offset_of!(CpuState, nzcv))],
        }
        .into_iter()
        .map(BlockArg::Value)
        .collect();
        self.b.ins().jump(join, &values);

        self.b.switch_to_block(join);
        self.b.block_params(join).to_vec()
    }

    /// V[rd] = `value` where `host_is_arm` holds, the reference's run of `word` otherwise (`host_or_reference`).
    pub(super) fn set_v_or_reference(&mut self, host_is_arm: Value, word: u32, rd: u32, value: Value) {
        self.host_or_reference(host_is_arm, word, &[], Outputs::None, |lifter| {
            lifter.set_v(rd, value);
            vec![]
        });
    }

    /// `set_v_or_reference`, raising Inexact where `inexact` holds (an i8 boolean) on the host.
    pub(super) fn set_v_inexact_or_reference(
        &mut self,
        host_is_arm: Value,
        word: u32,
        rd: u32,
        value: Value,
        inexact: Value,
    ) {
        self.host_or_reference(host_is_arm, word, &[], Outputs::None, |lifter| {
            lifter.set_v(rd, value);
            lifter.raise_inexact(inexact);
            vec![]
        });
    }

    /// FPSR.IXC |= `inexact` (an i8 boolean).
    pub(super) fn raise_inexact(&mut self, inexact: Value) {
        let fpsr = self.cpu_field(types::I32, offset_of!(CpuState, fpsr));
        let flag = self.b.ins().uextend(types::I32, inexact);
        let flag = self.b.ins().ishl_imm_u(flag, i64::from(FPSR_IXC.trailing_zeros()));
        let fpsr = self.b.ins().bor(fpsr, flag);
        self.set_cpu_field(fpsr, offset_of!(CpuState, fpsr));
    }

    /// `a` (a float, or a vector of them) rounded to an integral value as `rounding` says. Ties away from zero:
    /// the truncation, one further from zero where the part it dropped (exact: a float's fraction is a float) is
    /// at least a half; no fraction is left where adding one could round.
    pub(super) fn round_to_integral(&mut self, a: Value, rounding: IntegralRounding) -> Value {
        match rounding {
            IntegralRounding::TiesToEven => self.b.ins().nearest(a),
            IntegralRounding::Up => self.b.ins().ceil(a),
            IntegralRounding::Down => self.b.ins().floor(a),
            IntegralRounding::Zero => self.b.ins().trunc(a),
            IntegralRounding::TiesAway => {
                let ty = self.b.func.dfg.value_type(a);
                let truncated = self.b.ins().trunc(a);
                let dropped = self.b.ins().fsub(a, truncated);
                let dropped = self.b.ins().fabs(dropped);
                let [half, one] = [0.5, 1.0].map(|constant| {
                    let lane = self.float_constant(ty.lane_type(), constant);
                    if ty.is_vector() { self.b.ins().splat(ty, lane) } else { lane }
                });
                let away = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, dropped, half);
                if ty.is_vector() {
                    // One with each lane's sign: the sign bit (that of -0.0) from `a`, the rest from one.
                    let sign = self.float_constant(ty.lane_type(), -0.0);
                    let sign = self.b.ins().splat(ty, sign);
                    let step = self.b.ins().bitselect(sign, a, one);
                    let further = self.b.ins().fadd(truncated, step);
                    let mask = self.b.ins().bitcast(ty, MemFlagsData::new(), away);
                    self.b.ins().bitselect(mask, further, truncated)
                } else {
                    let step = self.b.ins().fcopysign(one, a);
                    let further = self.b.ins().fadd(truncated, step);
                    self.b.ins().select(away, further, truncated)
                }
            }
        }
    }

    fn float_zero(&mut self, ty: Type) -> Value {
        self.float_constant(ty, 0.0)
    }

    fn float_constant(&mut self, ty: Type, value: f64) -> Value {
        if ty == types::F32 { self.b.ins().f32const(value as f32) } else { self.b.ins().f64const(value) }
    }

    /// Whether `a (operation) b` rounded to `result` lost anything, as an i8 boolean (valid when the operands
    /// are normal and the result finite; see the module's comment).
    pub(super) fn inexact(&mut self, operation: Operation, a: Value, b: Value, result: Value) -> Value {
        let ty = self.b.func.dfg.value_type(result);
        let single = ty == types::F32;
        let error = match operation {
            Operation::Add | Operation::Sub => {
                let b = if operation == Operation::Sub { self.b.ins().fneg(b) } else { b };
                // TwoSum: the exact error of result = a + b.
                let b_virtual = self.b.ins().fsub(result, a);
                let a_virtual = self.b.ins().fsub(result, b_virtual);
                let b_round = self.b.ins().fsub(b, b_virtual);
                let a_round = self.b.ins().fsub(a, a_virtual);
                let error = self.b.ins().fadd(a_round, b_round);
                return self.nonzero(error);
            }
            Operation::Mul if single => {
                let (a, b) = (self.b.ins().fpromote(types::F64, a), self.b.ins().fpromote(types::F64, b));
                let exact = self.b.ins().fmul(a, b);
                let rounded = self.b.ins().fpromote(types::F64, result);
                self.b.ins().fsub(exact, rounded)
            }
            Operation::Mul => {
                let negated = self.b.ins().fneg(result);
                self.b.ins().fma(a, b, negated)
            }
            Operation::Div if single => {
                let (a, b) = (self.b.ins().fpromote(types::F64, a), self.b.ins().fpromote(types::F64, b));
                let quotient = self.b.ins().fpromote(types::F64, result);
                let product = self.b.ins().fmul(quotient, b);
                self.b.ins().fsub(a, product)
            }
            Operation::Div => {
                let negated = self.b.ins().fneg(result);
                self.b.ins().fma(negated, b, a)
            }
        };
        self.nonzero(error)
    }

    fn nonzero(&mut self, value: Value) -> Value {
        let ty: Type = self.b.func.dfg.value_type(value);
        let zero = self.float_zero(ty);
        self.b.ins().fcmp(FloatCC::NotEqual, value, zero)
    }

    /// Whether the float with these bits is finite with a magnitude (its bits without the sign) of at least `low`.
    /// Bits of a vector type give a lane mask (so do the tests below).
    pub(super) fn is_finite_from(&mut self, bits: Value, double: bool, low: u64) -> Value {
        let magnitude = self.and_const(bits, sign_bit(double) - 1);
        let ty = self.b.func.dfg.value_type(bits);
        let low_value = self.iconst(ty, low);
        let offset = self.b.ins().isub(magnitude, low_value);
        let limit = self.iconst(ty, infinity(double) - low);
        self.b.ins().icmp(IntCC::UnsignedLessThan, offset, limit)
    }

    /// Whether the float with these bits (or each lane) is positive and finite, at least the float whose bits are
    /// `low`: with the sign bit clear, the bits themselves lie in that range.
    pub(super) fn is_positive_finite_from(&mut self, bits: Value, double: bool, low: u64) -> Value {
        let ty = self.b.func.dfg.value_type(bits);
        let low_value = self.iconst(ty, low);
        let offset = self.b.ins().isub(bits, low_value);
        let span = self.iconst(ty, infinity(double) - low);
        self.b.ins().icmp(IntCC::UnsignedLessThan, offset, span)
    }

    /// Whether the float with these bits is a zero, or finite with a magnitude of at least `low`.
    pub(super) fn is_zero_or_finite_from(&mut self, bits: Value, double: bool, low: u64) -> Value {
        let finite = self.is_finite_from(bits, double, low);
        let zero = self.is_zero(bits, double);
        self.b.ins().bor(finite, zero)
    }

    /// Whether the float with these bits is +0 or -0.
    pub(super) fn is_zero(&mut self, bits: Value, double: bool) -> Value {
        let magnitude = self.and_const(bits, sign_bit(double) - 1);
        let zero = self.iconst(self.b.func.dfg.value_type(bits), 0);
        self.b.ins().icmp(IntCC::Equal, magnitude, zero)
    }
}

/// How FRINT* and the conversions to integers round a float to an integral value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum IntegralRounding {
    TiesToEven,
    Up,
    Down,
    Zero,
    TiesAway,
}

/// The rounding of FCVTNS, FCVTMS, FCVTAS, FCVTPS, FCVTZS and their unsigned forms (vector, integer; vector and
/// scalar) from their size field's upper bit and opcode; `None` for other instructions of the classes.
pub(super) fn conversion_rounding(size_high: u32, opcode: u32) -> Option<IntegralRounding> {
    Some(match (size_high, opcode) {
        (0, 0b11010) => IntegralRounding::TiesToEven,
        (0, 0b11011) => IntegralRounding::Down,
        (0, 0b11100) => IntegralRounding::TiesAway,
        (1, 0b11010) => IntegralRounding::Up,
        (1, 0b11011) => IntegralRounding::Zero,
        _ => return None,
    })
}

/// Where a conversion's integer goes: X[n] or V[n].
#[derive(Clone, Copy)]
enum Place {
    General(u32),
    Vector(u32),
}

/// What the reference writes that a block keeps in SSA form (`host_or_reference`).
#[derive(Clone, Copy)]
pub(super) enum Outputs {
    None,
    /// X[n], as an i64.
    Register(u32),
    /// NZCV, packed.
    Flags,
}

/// The width of a scalar FP instruction whose M and S fields are 0 (the others are unallocated) and whose type is
/// single or double precision, the ones lifted here.
fn single_or_double(m: u32, s: u32, ftype: u32) -> Result<Width, Unlifted> {
    fp_width(ftype).filter(|&width| m == 0 && s == 0 && width != Width::H).ok_or(Unlifted)
}

/// The integer and float types of a width (single or double precision).
fn float_types(width: Width) -> (Type, Type) {
    if width == Width::D { (types::I64, types::F64) } else { (types::I32, types::F32) }
}

/// The open interval of the floats that truncate into the range of an integer of `integer_bits`, signed or not.
/// Bounds a float format cannot hold exactly round inwards when converted to it: values there go to the reference.
pub(super) fn truncation_bounds(signed: bool, integer_bits: u32) -> (f64, f64) {
    let bits = integer_bits as i32;
    if signed { (-(2f64.powi(bits - 1)) - 1.0, 2f64.powi(bits - 1)) } else { (-1.0, 2f64.powi(bits)) }
}

/// The bits of the smallest normal number, single or double precision.
pub(super) fn smallest_normal(double: bool) -> u64 {
    if double { 1 << 52 } else { 1 << 23 }
}

/// The bits of +infinity, single or double precision.
fn infinity(double: bool) -> u64 {
    if double { 0x7ff << 52 } else { 0xff << 23 }
}

fn sign_bit(double: bool) -> u64 {
    if double { 1 << 63 } else { 1 << 31 }
}
