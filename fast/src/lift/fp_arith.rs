//! Scalar FADD, FSUB, FMUL and FDIV in single and double precision as host float operations, where the host's
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

use super::{Flow, Lift, Lifter, Unlifted};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::float::Width;
use tandem_reference::interp::shared_decode::fp_width;

/// FPCR bits that must be clear for the host's arithmetic to be the Arm arithmetic: AHP, DN, FZ, RMode and the
/// trap enables.
const FPCR_NON_DEFAULT: u32 = 1 << 26 | 1 << 25 | 1 << 24 | 0b11 << 22 | 0xff00;

/// FPSR.IXC, the cumulative Inexact flag.
const FPSR_IXC: u32 = 1 << 4;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operation {
    Mul,
    Div,
    Add,
    Sub,
}

impl Lifter<'_> {
    /// FMUL, FDIV, FADD, FSUB (scalar) of the class "Floating-point data-processing (2 source)".
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
        let Some(width) = fp_width(ftype).filter(|&width| m == 0 && s == 0 && width != Width::H) else {
            return Err(Unlifted);
        };
        let operation = match opcode {
            0b0000 => Operation::Mul,
            0b0001 => Operation::Div,
            0b0010 => Operation::Add,
            0b0011 => Operation::Sub,
            _ => return Err(Unlifted),
        };
        let double = width == Width::D;
        if double && matches!(operation, Operation::Mul | Operation::Div) && !self.host_has_fma {
            return Err(Unlifted);
        }
        let (bits_type, float_type) = if double { (types::I64, types::F64) } else { (types::I32, types::F32) };
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
        let fpcr = self.cpu_field(types::I32, offset_of!(CpuState, fpcr));
        let mode = self.b.ins().band_imm_u(fpcr, i64::from(FPCR_NON_DEFAULT));
        let default_mode = self.b.ins().icmp_imm_s(IntCC::Equal, mode, 0);
        let smallest_normal = if double { 1u64 << 52 } else { 1 << 23 };
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
            let magnitude = self.and_const(result_bits, sign_bit(double) - 1);
            let zero = self.b.ins().icmp_imm_s(IntCC::Equal, magnitude, 0);
            result_fits = self.b.ins().bor(result_fits, zero);
        }
        let operands = self.b.ins().band(a_normal, b_normal);
        let host_is_arm = self.b.ins().band(default_mode, operands);
        let host_is_arm = self.b.ins().band(host_is_arm, result_fits);

        let native = self.b.create_block();
        let reference = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(host_is_arm, native, &[], reference, &[]);
        self.b.set_cold_block(reference);

        self.b.switch_to_block(native);
        self.set_v(rd, result_bits);
        let fpsr = self.cpu_field(types::I32, offset_of!(CpuState, fpsr));
        let flag = self.b.ins().uextend(types::I32, inexact);
        let flag = self.b.ins().ishl_imm_u(flag, i64::from(FPSR_IXC.trailing_zeros()));
        let fpsr = self.b.ins().bor(fpsr, flag);
        self.set_cpu_field(fpsr, offset_of!(CpuState, fpsr));
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(reference);
        self.interpret_in_place(word)?;
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(join);
        Ok(Flow::Next)
    }

    /// Whether `a (operation) b` rounded to `result` lost anything, as an i8 boolean (valid when the operands
    /// are normal and the result finite; see the module's comment).
    fn inexact(&mut self, operation: Operation, a: Value, b: Value, result: Value) -> Value {
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
        let zero = if ty == types::F32 { self.b.ins().f32const(0.0) } else { self.b.ins().f64const(0.0) };
        self.b.ins().fcmp(FloatCC::NotEqual, value, zero)
    }

    /// Whether the float with these bits is finite with a magnitude (its bits without the sign) of at least `low`.
    fn is_finite_from(&mut self, bits: Value, double: bool, low: u64) -> Value {
        let infinity = if double { 0x7ffu64 << 52 } else { 0xff << 23 };
        let magnitude = self.and_const(bits, sign_bit(double) - 1);
        let offset = self.b.ins().iadd_imm_s(magnitude, -(low as i64));
        let span = self.b.func.dfg.value_type(bits);
        let limit = self.iconst(span, infinity - low);
        self.b.ins().icmp(IntCC::UnsignedLessThan, offset, limit)
    }
}

fn sign_bit(double: bool) -> u64 {
    if double { 1 << 63 } else { 1 << 31 }
}
