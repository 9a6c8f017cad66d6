//! Half precision (FEAT_FP16) on host floats: the scalar arithmetic and compares through single precision, and
//! the conversions between half and double precision, each where its host result is Arm's (the reference in a
//! cold block otherwise, as in `fp_arith`). Half to single conversions are `simd_fp::vector_convert_precision`'s
//! first lane.

use super::fp_arith::{FPCR_AHP, Operation};
use super::{Flow, Lift, Lifter};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};

/// FPCR.FZ16: flush half-precision subnormal inputs and results to zero.
pub(super) const FPCR_FZ16: u32 = 1 << 19;

impl Lifter<'_> {
    /// FADD, FSUB, FMUL, FDIV, FNMUL on half precision (FEAT_FP16): the operands widened to single precision
    /// (exact), the operation there, and its result rounded to a half (to nearest even: single precision has 24
    /// bits, at least twice a half's 11 plus 2, so rounding twice gives the once-rounded result for these
    /// operations). On the host in the default FPCR mode with FPCR.FZ16 clear, normal operands, and a result
    /// above the smallest normal half and at most the largest (or an exact zero from an addition): Inexact where
    /// the single-precision operation was (`inexact`) or the rounding to a half dropped bits.
    pub(super) fn half_arithmetic(
        &mut self,
        operation: Operation,
        negated: bool,
        rm: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let [(a, a_normal, _), (b, b_normal, _)] = [rn, rm].map(|n| self.half_as_single(n));
        let result = match operation {
            Operation::Mul => self.b.ins().fmul(a, b),
            Operation::Div => self.b.ins().fdiv(a, b),
            Operation::Add => self.b.ins().fadd(a, b),
            Operation::Sub => self.b.ins().fsub(a, b),
        };
        let single_inexact = self.inexact(operation, a, b, result);
        let result = self.b.ins().bitcast(types::I32, MemFlagsData::new(), result);
        let magnitude = self.and_const(result, 0x7fff_ffff);
        // Above the smallest normal half (one that rounded up to it may be tiny to Arm, which judges tininess
        // before rounding), at most the largest; or zero, exactly, from normal operands that cancel.
        let low = (-14f32).exp2().to_bits();
        let offset = self.b.ins().iadd_imm_s(magnitude, -i64::from(low + 1));
        let in_range =
            self.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, offset, i64::from(65504f32.to_bits() - low - 1));
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, magnitude, 0);
        let result_fits = match operation {
            Operation::Add | Operation::Sub => self.b.ins().bor(in_range, zero),
            _ => in_range,
        };
        let (rounded, narrowing_inexact) = self.round_to_half(magnitude, false);
        let zero_bits = self.iconst(types::I32, 0);
        let rounded = self.b.ins().select(zero, zero_bits, rounded);
        let sign = self.b.ins().ushr_imm_u(result, 16);
        let sign = self.and_const(sign, 0x8000);
        let sign = if negated { self.b.ins().bxor_imm_u(sign, 0x8000) } else { sign };
        let half = self.b.ins().bor(rounded, sign);
        let half = self.b.ins().ireduce(types::I16, half);
        let inexact = self.b.ins().bor(single_inexact, narrowing_inexact);
        let default_mode = self.default_fpcr_mode();
        let no_flush16 = self.fpcr_bit_clear(FPCR_FZ16);
        let mut host_is_arm = self.b.ins().band(default_mode, no_flush16);
        for condition in [a_normal, b_normal, result_fits] {
            host_is_arm = self.b.ins().band(host_is_arm, condition);
        }
        self.set_v_inexact_or_reference(host_is_arm, word, rd, half, inexact);
        Ok(Flow::Next)
    }

    /// The half in V[n] as a single, exact where it is a normal number or a zero (the exponent rebiased, 15 to 127,
    /// the fraction moved up), with whether it is normal and whether it is a zero (i8 booleans).
    pub(super) fn half_as_single(&mut self, n: u32) -> (Value, Value, Value) {
        let h = self.v_low(n, types::I16);
        let h = self.b.ins().uextend(types::I32, h);
        let magnitude = self.and_const(h, 0x7fff);
        let offset = self.b.ins().iadd_imm_s(magnitude, -0x400);
        let normal = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, offset, 0x7c00 - 0x400);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, magnitude, 0);
        let moved = self.b.ins().ishl_imm_u(magnitude, 13);
        let rebiased = self.b.ins().iadd_imm_s(moved, 112 << 23);
        let magnitude = self.b.ins().select(zero, magnitude, rebiased);
        let sign = self.and_const(h, 0x8000);
        let sign = self.b.ins().ishl_imm_u(sign, 16);
        let bits = self.b.ins().bor(magnitude, sign);
        (self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits), normal, zero)
    }

    /// FCVT Dd, Hn: exact for a number (a subnormal half is a normal double), so on the host where the half is no
    /// NaN or infinity and FPCR.AHP is clear (the alternative format has neither): the exponent rebiased (15 to
    /// 1023) and the fraction moved up; a zero or subnormal half is its fraction times 2^-24, exactly.
    pub(super) fn half_to_double(&mut self, rn: u32, rd: u32, word: u32) -> Lift {
        let h = self.v_low(rn, types::I16);
        let h = self.b.ins().uextend(types::I64, h);
        let exponent = self.b.ins().ushr_imm_u(h, 10);
        let exponent = self.and_const(exponent, 0x1f);
        let finite = self.b.ins().icmp_imm_s(IntCC::NotEqual, exponent, 0x1f);
        let ieee = self.fpcr_bit_clear(FPCR_AHP);
        let host_is_arm = self.b.ins().band(finite, ieee);
        let magnitude = self.and_const(h, 0x7fff);
        let normal = self.b.ins().ishl_imm_u(magnitude, 42);
        let normal = self.b.ins().iadd_imm_s(normal, (1023 - 15) << 52);
        let fraction = self.and_const(h, 0x3ff);
        let fraction = self.b.ins().fcvt_from_uint(types::F64, fraction);
        let scale = self.b.ins().f64const((-24f64).exp2());
        let small = self.b.ins().fmul(fraction, scale);
        let small = self.b.ins().bitcast(types::I64, MemFlagsData::new(), small);
        let subnormal = self.b.ins().icmp_imm_s(IntCC::Equal, exponent, 0);
        let magnitude = self.b.ins().select(subnormal, small, normal);
        let sign = self.and_const(h, 0x8000);
        let sign = self.b.ins().ishl_imm_u(sign, 48);
        let result = self.b.ins().bor(magnitude, sign);
        self.set_v_or_reference(host_is_arm, word, rd, result);
        Ok(Flow::Next)
    }

    /// FCVT Hd, Dn, rounded once to nearest even (not through single precision, which could round twice): in the
    /// default FPCR mode, a zero, or a number whose magnitude lies between the half format's smallest normal and
    /// its largest number (which rounds to a normal half, no exception but Inexact): the exponent rebiased (1023
    /// to 15), the 42 dropped fraction bits rounded into the kept ones; inexact where a dropped bit was set.
    pub(super) fn double_to_half(&mut self, rn: u32, rd: u32, word: u32) -> Lift {
        let a = self.v_low(rn, types::I64);
        let magnitude = self.and_const(a, i64::MAX as u64);
        let is_zero = self.b.ins().icmp_imm_s(IntCC::Equal, magnitude, 0);
        let low = self.iconst(types::I64, (-14f64).exp2().to_bits());
        let high = self.iconst(types::I64, 65504f64.to_bits());
        let above = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, magnitude, low);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, magnitude, high);
        let normal = self.b.ins().band(above, below);
        let fits = self.b.ins().bor(is_zero, normal);
        let default_mode = self.default_fpcr_mode();
        let host_is_arm = self.b.ins().band(default_mode, fits);
        let (rounded, inexact) = self.round_to_half(magnitude, true);
        let zero = self.iconst(types::I64, 0);
        let rounded = self.b.ins().select(is_zero, zero, rounded);
        let sign = self.b.ins().ushr_imm_u(a, 48);
        let sign = self.and_const(sign, 0x8000);
        let result = self.b.ins().bor(rounded, sign);
        let result = self.b.ins().ireduce(types::I16, result);
        self.set_v_inexact_or_reference(host_is_arm, word, rd, result, inexact);
        Ok(Flow::Next)
    }

    /// The bits of a positive single or double (`double`) in the half format's normal range rounded to nearest
    /// even as a half's: the exponent rebiased, half an ulp less one plus the lowest kept bit added to the dropped
    /// fraction bits, the top bits kept. Also whether a dropped bit was set (an i8 boolean).
    fn round_to_half(&mut self, magnitude: Value, double: bool) -> (Value, Value) {
        let (dropped_bits, rebias) = if double { (42, (1023 - 15) << 52) } else { (13, (127 - 15) << 23) };
        let rebiased = self.b.ins().iadd_imm_s(magnitude, -rebias);
        let lowest_kept = self.b.ins().ushr_imm_u(rebiased, dropped_bits);
        let lowest_kept = self.and_const(lowest_kept, 1);
        let rounded = self.b.ins().iadd_imm_s(rebiased, (1 << (dropped_bits - 1)) - 1);
        let rounded = self.b.ins().iadd(rounded, lowest_kept);
        let rounded = self.b.ins().ushr_imm_u(rounded, dropped_bits);
        let dropped = self.and_const(magnitude, (1 << dropped_bits) - 1);
        (rounded, self.b.ins().icmp_imm_s(IntCC::NotEqual, dropped, 0))
    }
}
