//! Moves between general-purpose and SIMD&FP registers and between elements, and the bitwise scalar FP moves: no
//! FP arithmetic, so their results do not depend on FPCR and never raise exceptions (FMOV, FABS, FNEG, DUP
//! (general and element), INS (general and element), UMOV, SMOV).

use super::{Flow, Lift, Lifter, Unlifted, access_type};
use cranelift_codegen::ir::{InstBuilder, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::interp::shared_decode::{copy_index, copy_size, fp_width};

/// The offset in `CpuState` of byte `byte` of V[n].
fn v_offset(n: u32, byte: u32) -> usize {
    offset_of!(CpuState, v) + 16 * n as usize + byte as usize
}

impl Lifter<'_> {
    /// FMOV (register), FABS (scalar), FNEG (scalar): sign-bit operations on the raw bits.
    pub(super) fn fp_data_processing_1_source(
        &mut self,
        m: u32,
        s: u32,
        ftype: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0 && opcode <= 0b000010) else {
            return Err(Unlifted);
        };
        let bytes = width.n() / 8;
        let ty = access_type(bytes);
        let value = self.v_low(rn, ty);
        let sign = 1u64 << (8 * bytes - 1);
        let result = match opcode {
            0b000000 => value,
            0b000001 => self.and_const(value, !sign),
            _ => {
                let sign = self.iconst(ty, sign);
                self.b.ins().bxor(value, sign)
            }
        };
        self.set_v(rd, result);
        Ok(Flow::Next)
    }

    /// FMOV (general): the bit-exact moves of the class "Conversion between floating-point and integer".
    pub(super) fn fp_integer_conversion(
        &mut self,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if s != 0 || !matches!(opcode, 0b110 | 0b111) {
            return Err(Unlifted);
        }
        let to_general = opcode == 0b110;
        // (bytes moved, byte offset in V, whether V's other bits are kept)
        let (bytes, offset, keep_rest) = match (sf, ftype, rmode) {
            (0, 0b00, 0b00) => (4, 0, false),
            (1, 0b01, 0b00) => (8, 0, false),
            (_, 0b11, 0b00) => (2, 0, false),
            (1, 0b10, 0b01) => (8, 8, true),
            _ => return Err(Unlifted),
        };
        let ty = access_type(bytes);
        if to_general {
            let value = self.cpu_field(ty, v_offset(rn, offset));
            let value = if ty == types::I64 { value } else { self.b.ins().uextend(types::I64, value) };
            self.set_x(rd, value);
        } else {
            let general = self.x(rn, 64);
            let value = if ty == types::I64 { general } else { self.b.ins().ireduce(ty, general) };
            if keep_rest {
                self.set_cpu_field(value, v_offset(rd, offset));
            } else {
                self.set_v(rd, value);
            }
        }
        Ok(Flow::Next)
    }

    /// DUP (general), INS (general), UMOV, as the class "Advanced SIMD copy" decodes them.
    pub(super) fn simd_copy(&mut self, q: u32, op: u32, imm5: u32, imm4: u32, rn: u32, rd: u32) -> Lift {
        let Some(size) = copy_size(imm5) else { return Err(Unlifted) };
        let bytes = 1u32 << size;
        let ty = access_type(bytes);
        let index = copy_index(imm5, size);
        match (op, imm4) {
            (0, 0b0001) if size < 3 || q == 1 => {
                // Replicate the element over 64 bits by multiplying with 0x01..01 of its size, then over 128.
                let element = self.x(rn, 64);
                let element = self.and_const(element, u64::MAX >> (64 - 8 * bytes));
                let ones = u64::MAX / (u64::MAX >> (64 - 8 * bytes));
                let ones = self.iconst(types::I64, ones);
                let half = self.b.ins().imul(element, ones);
                if q == 1 {
                    let full = self.b.ins().splat(types::I64X2, half);
                    self.set_v(rd, full);
                } else {
                    self.set_v(rd, half);
                }
            }
            (0, 0b0011) if q == 1 => {
                let general = self.x(rn, 64);
                let value = if ty == types::I64 { general } else { self.b.ins().ireduce(ty, general) };
                self.set_cpu_field(value, v_offset(rd, index * bytes));
            }
            (0, 0b0111) if (size < 3 && q == 0) || (size == 3 && q == 1) => {
                let value = self.cpu_field(ty, v_offset(rn, index * bytes));
                let value = if ty == types::I64 { value } else { self.b.ins().uextend(types::I64, value) };
                self.set_x(rd, value);
            }
            // SMOV: the element sign-extended to 32 bits (Wd, zero-extended on) or to 64 (Xd).
            (0, 0b0101) if (q == 0 && size < 2) || (q == 1 && size < 3) => {
                let value = self.cpu_field(ty, v_offset(rn, index * bytes));
                let value = if q == 1 {
                    self.b.ins().sextend(types::I64, value)
                } else {
                    let word = self.b.ins().sextend(types::I32, value);
                    self.b.ins().uextend(types::I64, word)
                };
                self.set_x(rd, value);
            }
            // DUP (element): the element in every lane, the upper half zeros when Q is 0.
            (0, 0b0000) if size < 3 || q == 1 => {
                let value = self.cpu_field(ty, v_offset(rn, index * bytes));
                let lanes = super::simd_integer::lanes(size);
                let vector = self.b.ins().splat(lanes, value);
                self.set_vector(rd, vector, q);
            }
            // INS (element): element imm4<3:size> of V[rn] into element `index` of V[rd], the rest kept.
            (1, _) if q == 1 => {
                let value = self.cpu_field(ty, v_offset(rn, (imm4 >> size) * bytes));
                self.set_cpu_field(value, v_offset(rd, index * bytes));
            }
            _ => return Err(Unlifted),
        }
        Ok(Flow::Next)
    }
}
