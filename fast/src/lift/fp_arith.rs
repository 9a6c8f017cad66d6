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

use super::{Flow, Lift, Lifter, Unlifted, cpu_offset_of_register};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{BlockArg, InstBuilder, MemFlagsData, Type, Value, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::float::Width;
use tandem_reference::interp::shared_decode::fp_width;

/// FPCR bits that must be clear for the host's arithmetic to be the Arm arithmetic: AHP, DN, FZ, RMode and the
/// trap enables.
const FPCR_NON_DEFAULT: u32 = 1 << 26 | 1 << 25 | 1 << 24 | 0b11 << 22 | 0xff00;

/// FPCR.FZ: flush subnormal inputs and results to zero.
const FPCR_FZ: u32 = 1 << 24;

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

        self.host_or_reference(host_is_arm, word, &[], Outputs::None, |lifter| {
            lifter.set_v(rd, result_bits);
            lifter.raise_inexact(inexact);
            vec![]
        });
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
        let Some(width) = fp_width(ftype).filter(|&width| m == 0 && s == 0 && op == 0 && width != Width::H) else {
            return Err(Unlifted);
        };
        if opcode2 & 0b111 != 0 {
            return Err(Unlifted);
        }
        let (bits_type, float_type) = float_types(width);
        let a_bits = self.v_low(rn, bits_type);
        let a = self.b.ins().bitcast(float_type, MemFlagsData::new(), a_bits);
        let b = if opcode2 & 0b01000 != 0 {
            self.float_zero(float_type)
        } else {
            let b_bits = self.v_low(rm, bits_type);
            self.b.ins().bitcast(float_type, MemFlagsData::new(), b_bits)
        };
        let fpcr = self.cpu_field(types::I32, offset_of!(CpuState, fpcr));
        let flush = self.b.ins().band_imm_u(fpcr, i64::from(FPCR_FZ));
        let no_flush = self.b.ins().icmp_imm_s(IntCC::Equal, flush, 0);
        let ordered = self.b.ins().fcmp(FloatCC::Ordered, a, b);
        let host_is_arm = self.b.ins().band(no_flush, ordered);
        let flags = self.host_or_reference(host_is_arm, word, &[], Outputs::Flags, |lifter| {
            // Equal: Z and C; less: N; greater: C.
            let equal = lifter.b.ins().fcmp(FloatCC::Equal, a, b);
            let less = lifter.b.ins().fcmp(FloatCC::LessThan, a, b);
            let greater_or_equal = lifter.b.ins().fcmp(FloatCC::GreaterThanOrEqual, a, b);
            let mut packed = lifter.b.ins().iconst(types::I32, 0);
            for (flag, bit) in [(less, 31), (equal, 30), (greater_or_equal, 29)] {
                let wide = lifter.b.ins().uextend(types::I32, flag);
                let shifted = lifter.b.ins().ishl_imm_u(wide, bit);
                packed = lifter.b.ins().bor(packed, shifted);
            }
            vec![packed]
        });
        self.set_flags_packed(flags[0]);
        Ok(Flow::Next)
    }

    /// SCVTF, UCVTF (from a general-purpose register) and FCVTZS, FCVTZU (to one), scalar, single and double
    /// precision, in the default FPCR mode: an integer converts with the host's rounding (the same, round to
    /// nearest) and is inexact when its significant bits do not fit the format; a float in the destination's
    /// range (and not a NaN) truncates on the host and is inexact when the integer is not the float. Values
    /// out of range and NaNs (which saturate and raise Invalid) go to the reference.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fp_convert(
        &mut self,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        word: u32,
    ) -> Lift {
        let Some(width) = fp_width(ftype).filter(|&width| s == 0 && width != Width::H) else {
            return Err(Unlifted);
        };
        let (bits_type, float_type) = float_types(width);
        let integer_bits = if sf == 1 { 64 } else { 32 };
        let fpcr = self.cpu_field(types::I32, offset_of!(CpuState, fpcr));
        let mode = self.b.ins().band_imm_u(fpcr, i64::from(FPCR_NON_DEFAULT));
        let default_mode = self.b.ins().icmp_imm_s(IntCC::Equal, mode, 0);
        match (rmode, opcode) {
            (0b00, 0b010 | 0b011) => {
                let signed = opcode == 0b010;
                let value = self.x(rn, integer_bits);
                let value = match (integer_bits, signed) {
                    (64, _) => value,
                    (_, true) => self.b.ins().sextend(types::I64, value),
                    (_, false) => self.b.ins().uextend(types::I64, value),
                };
                let result = if signed {
                    self.b.ins().fcvt_from_sint(float_type, value)
                } else {
                    self.b.ins().fcvt_from_uint(float_type, value)
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
                let inexact =
                    self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, significant, 1i64 << precision);
                self.host_or_reference(default_mode, word, &[rn], Outputs::None, |lifter| {
                    lifter.set_v(rd, result_bits);
                    lifter.raise_inexact(inexact);
                    vec![]
                });
            }
            (0b11, 0b000 | 0b001) => {
                let signed = opcode == 0b000;
                let a_bits = self.v_low(rn, bits_type);
                let a = self.b.ins().bitcast(float_type, MemFlagsData::new(), a_bits);
                // The open interval whose values truncate into the destination's range (bounds the format
                // cannot hold exactly round inwards: values there go to the reference).
                let bits = integer_bits as i32;
                let (low, high) = match signed {
                    true => (-(2f64.powi(bits - 1)) - 1.0, 2f64.powi(bits - 1)),
                    false => (-1.0, 2f64.powi(bits)),
                };
                let (low, high) = (self.float_constant(float_type, low), self.float_constant(float_type, high));
                let above = self.b.ins().fcmp(FloatCC::GreaterThan, a, low);
                let below = self.b.ins().fcmp(FloatCC::LessThan, a, high);
                let in_range = self.b.ins().band(above, below);
                let host_is_arm = self.b.ins().band(default_mode, in_range);
                let integer_type = if sf == 1 { types::I64 } else { types::I32 };
                let outputs = Outputs::Register(rd);
                let written = self.host_or_reference(host_is_arm, word, &[], outputs, |lifter| {
                    let (result, back) = if signed {
                        let result = lifter.b.ins().fcvt_to_sint_sat(integer_type, a);
                        (result, lifter.b.ins().fcvt_from_sint(float_type, result))
                    } else {
                        let result = lifter.b.ins().fcvt_to_uint_sat(integer_type, a);
                        (result, lifter.b.ins().fcvt_from_uint(float_type, result))
                    };
                    let inexact = lifter.b.ins().fcmp(FloatCC::NotEqual, back, a);
                    lifter.raise_inexact(inexact);
                    let result = if sf == 1 { result } else { lifter.b.ins().uextend(types::I64, result) };
                    vec![result]
                });
                self.set_x(rd, written[0]);
            }
            _ => return Err(Unlifted),
        }
        Ok(Flow::Next)
    }

    /// Emits `host` (which must return `outputs`' values) where `host_is_arm` holds, and the reference's run of
    /// `word` in a cold block otherwise; both go on in a block that receives the outputs as parameters. The
    /// reference reads the `CpuState`, so the general-purpose registers in `reads` are stored there first (the
    /// block may hold newer values); what it writes of `outputs` is read back from there. It touches nothing else
    /// the block keeps in SSA form. When it does not retire the instruction, the block leaves before it.
    fn host_or_reference(
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

    /// FPSR.IXC |= `inexact` (an i8 boolean).
    fn raise_inexact(&mut self, inexact: Value) {
        let fpsr = self.cpu_field(types::I32, offset_of!(CpuState, fpsr));
        let flag = self.b.ins().uextend(types::I32, inexact);
        let flag = self.b.ins().ishl_imm_u(flag, i64::from(FPSR_IXC.trailing_zeros()));
        let fpsr = self.b.ins().bor(fpsr, flag);
        self.set_cpu_field(fpsr, offset_of!(CpuState, fpsr));
    }

    fn float_zero(&mut self, ty: Type) -> Value {
        self.float_constant(ty, 0.0)
    }

    fn float_constant(&mut self, ty: Type, value: f64) -> Value {
        if ty == types::F32 { self.b.ins().f32const(value as f32) } else { self.b.ins().f64const(value) }
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
        let zero = self.float_zero(ty);
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

/// What the reference writes that a block keeps in SSA form (`host_or_reference`).
#[derive(Clone, Copy)]
enum Outputs {
    None,
    /// X[n], as an i64.
    Register(u32),
    /// NZCV, packed.
    Flags,
}

/// The integer and float types of a width (single or double precision).
fn float_types(width: Width) -> (Type, Type) {
    if width == Width::D { (types::I64, types::F64) } else { (types::I32, types::F32) }
}

fn sign_bit(double: bool) -> u64 {
    if double { 1 << 63 } else { 1 << 31 }
}
