//! Data processing (immediate and register), hints and barriers. Encodings the reference treats as unallocated
//! are left to it (`Unlifted`), so the UNDEFINED exit comes from one place.

use super::flags::LazyFlags;
use super::{Flow, Lift, Lifter, Operand, Unlifted};
use crate::runtime::Runtime;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Type, Value, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::interp::pseudocode::{datasize, decode_bit_masks, ones, sign_extend};
use tandem_reference::sysreg::{SysReg, SysRegEncoding};

/// `ShiftReg`'s shift types, by `shift` field value.
const LSL: u32 = 0;
const LSR: u32 = 1;
const ASR: u32 = 2;

impl Lifter<'_> {
    /// `ShiftReg(X[m], shift_type, amount)`.
    fn shifted(&mut self, m: u32, width: u32, shift_type: u32, amount: u32) -> Value {
        let value = self.x(m, width);
        if amount == 0 {
            return value;
        }
        let amount = i64::from(amount);
        match shift_type {
            LSL => self.b.ins().ishl_imm_u(value, amount),
            LSR => self.b.ins().ushr_imm_u(value, amount),
            ASR => self.b.ins().sshr_imm_u(value, amount),
            _ => self.b.ins().rotr_imm_u(value, amount),
        }
    }

    /// `ExtendReg(m, extend_type, shift)` at `width` bits.
    fn extended(&mut self, m: u32, option: u32, shift: u32, width: u32) -> Value {
        let value = self.x(m, 64);
        let source_type = match option & 0b11 {
            0b00 => types::I8,
            0b01 => types::I16,
            0b10 => types::I32,
            _ => types::I64,
        };
        let extended = if source_type == types::I64 {
            value
        } else {
            let narrow = self.b.ins().ireduce(source_type, value);
            if option & 0b100 != 0 {
                self.b.ins().sextend(types::I64, narrow)
            } else {
                self.b.ins().uextend(types::I64, narrow)
            }
        };
        let shifted = if shift == 0 { extended } else { self.b.ins().ishl_imm_u(extended, i64::from(shift)) };
        if width == 32 { self.b.ins().ireduce(types::I32, shifted) } else { shifted }
    }

    /// The common tail of ADD/ADDS/SUB/SUBS: the operation, the flags, the destination.
    fn add_sub(&mut self, sub: bool, set_flags: bool, a: Value, b: Value, rd: u32, rd_may_be_sp: bool) -> Lift {
        let result = if sub { self.b.ins().isub(a, b) } else { self.b.ins().iadd(a, b) };
        if set_flags {
            if sub {
                self.set_flags_sub(a, b, result);
            } else {
                self.set_flags_add(a, b, result);
            }
        }
        if rd_may_be_sp && !set_flags {
            self.set_x_or_sp(rd, result)
        } else {
            self.set_x(rd, result)
        }
        Ok(Flow::Next)
    }

    pub(super) fn adr(&mut self, op: u32, immlo: u32, immhi: u32, rd: u32) -> Lift {
        let imm = sign_extend(u64::from(immhi << 2 | immlo), 21);
        let result = if op == 1 { (self.pc & !0xfff).wrapping_add(imm << 12) } else { self.pc.wrapping_add(imm) };
        let value = self.iconst(types::I64, result);
        self.set_x(rd, value);
        Ok(Flow::Next)
    }

    pub(super) fn add_sub_immediate(
        &mut self,
        sf: u32,
        op: u32,
        s: u32,
        sh: u32,
        imm12: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let width = datasize(sf);
        let a = self.x_or_sp(rn, width);
        let imm = u64::from(imm12) << (12 * sh);
        #[cfg(feature = "planted-bug")]
        let imm = imm ^ u64::from(crate::planted_bug::off_by_one(rd, imm));
        let b = self.iconst(Self::int_type(width), imm);
        self.add_sub(op == 1, s == 1, a, b, rd, true)
    }

    pub(super) fn add_sub_shifted(
        &mut self,
        sf: u32,
        op: u32,
        s: u32,
        shift: u32,
        rm: u32,
        imm6: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let width = datasize(sf);
        if shift == 0b11 || imm6 >= width {
            return Err(Unlifted);
        }
        let b = self.shifted(rm, width, shift, imm6);
        let a = self.x(rn, width);
        self.add_sub(op == 1, s == 1, a, b, rd, false)
    }

    pub(super) fn add_sub_extended(
        &mut self,
        sf: u32,
        op: u32,
        s: u32,
        opt: u32,
        rm: u32,
        option: u32,
        imm3: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if opt != 0 || imm3 > 4 {
            return Err(Unlifted);
        }
        let width = datasize(sf);
        let a = self.x_or_sp(rn, width);
        let b = self.extended(rm, option, imm3, width);
        self.add_sub(op == 1, s == 1, a, b, rd, true)
    }

    /// ADC, ADCS, SBC, SBCS: `AddWithCarry(X[n], X[m] or NOT(X[m]), PSTATE.C)`.
    pub(super) fn add_sub_carry(&mut self, sf: u32, op: u32, s: u32, rm: u32, rn: u32, rd: u32) -> Lift {
        let width = datasize(sf);
        let ty = Self::int_type(width);
        let a = self.x(rn, width);
        let m = self.x(rm, width);
        let b = if op == 1 { self.b.ins().bnot(m) } else { m };
        let packed = self.packed_flags();
        let carry_bit = self.b.ins().ushr_imm_u(packed, 29);
        let carry_bit = self.b.ins().band_imm_u(carry_bit, 1);
        let carry = if ty == types::I64 { self.b.ins().uextend(types::I64, carry_bit) } else { carry_bit };
        let partial = self.b.ins().iadd(a, b);
        let result = self.b.ins().iadd(partial, carry);
        if s == 1 {
            // Carry out of a + b + c: out of a + b, or out of adding c to that.
            let first = self.b.ins().icmp(IntCC::UnsignedLessThan, partial, a);
            let second = self.b.ins().icmp(IntCC::UnsignedLessThan, result, partial);
            let c = self.b.ins().bor(first, second);
            let v = self.signed_overflow_add(a, b, result);
            let packed = self.pack_flags(result, c, v);
            self.set_flags_packed(packed);
        }
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    pub(super) fn logical_immediate(
        &mut self,
        sf: u32,
        opc: u32,
        n: u32,
        immr: u32,
        imms: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let width = datasize(sf);
        if sf == 0 && n != 0 {
            return Err(Unlifted);
        }
        let Some((imm, _)) = decode_bit_masks(n, imms, immr, true, width) else { return Err(Unlifted) };
        let a = self.x(rn, width);
        let b = self.iconst(Self::int_type(width), imm);
        let result = self.logical(opc, a, b);
        // AND, ORR and EOR (immediate) may write SP; ANDS writes XZR.
        if opc == 0b11 {
            self.set_x(rd, result)
        } else {
            self.set_x_or_sp(rd, result)
        }
        Ok(Flow::Next)
    }

    pub(super) fn logical_shifted(
        &mut self,
        sf: u32,
        opc: u32,
        shift: u32,
        n: u32,
        rm: u32,
        imm6: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let width = datasize(sf);
        if imm6 >= width {
            return Err(Unlifted);
        }
        let shifted = self.shifted(rm, width, shift, imm6);
        let b = if n == 1 { self.b.ins().bnot(shifted) } else { shifted };
        let a = self.x(rn, width);
        let result = self.logical(opc, a, b);
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// AND, ORR, EOR, ANDS by `opc`; ANDS sets the flags.
    fn logical(&mut self, opc: u32, a: Value, b: Value) -> Value {
        match opc {
            0b00 => self.b.ins().band(a, b),
            0b01 => self.b.ins().bor(a, b),
            0b10 => self.b.ins().bxor(a, b),
            _ => {
                let result = self.b.ins().band(a, b);
                self.set_flags_logic(result);
                result
            }
        }
    }

    pub(super) fn move_wide(&mut self, sf: u32, opc: u32, hw: u32, imm16: u32, rd: u32) -> Lift {
        let width = datasize(sf);
        if opc == 0b01 || (sf == 0 && hw >= 2) {
            return Err(Unlifted);
        }
        let ty = Self::int_type(width);
        let position = hw * 16;
        let imm = u64::from(imm16) << position;
        let result = match opc {
            0b00 => self.iconst(ty, !imm & ones(width)),
            0b10 => self.iconst(ty, imm),
            _ => {
                let old = self.x(rd, width);
                let kept = self.and_const(old, !(0xffff << position));
                let inserted = self.iconst(ty, imm);
                self.b.ins().bor(kept, inserted)
            }
        };
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// SBFM and UBFM as shifts and extensions (`extend_or_shift_field`); BFM as the pseudocode computes it from
    /// `DecodeBitMasks`.
    pub(super) fn bitfield(&mut self, sf: u32, opc: u32, n: u32, immr: u32, imms: u32, rn: u32, rd: u32) -> Lift {
        let width = datasize(sf);
        if opc == 0b11 || n != sf || immr >= width || imms >= width {
            return Err(Unlifted);
        }
        let Some((wmask, tmask)) = decode_bit_masks(n, imms, immr, false, width) else { return Err(Unlifted) };
        let src = self.x(rn, width);
        if opc != 0b01 {
            let result = self.extend_or_shift_field(src, opc == 0b00, width, immr, imms);
            self.set_x(rd, result);
            return Ok(Flow::Next);
        }
        // BFM: bot = (dst AND NOT(wmask)) OR (ROR(src, R) AND wmask); top = dst.
        let dst = self.x(rd, width);
        let rotated = if immr == 0 { src } else { self.b.ins().rotr_imm_u(src, i64::from(immr)) };
        let kept = self.and_const(dst, !wmask);
        let inserted = self.and_const(rotated, wmask);
        let bot = self.b.ins().bor(kept, inserted);
        // result = (top AND NOT(tmask)) OR (bot AND tmask)
        let high = self.and_const(dst, !tmask);
        let low = self.and_const(bot, tmask);
        let result = self.b.ins().bor(high, low);
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// SBFM (`signed`) and UBFM as the shifts and extensions their aliases are (ASR, LSR, LSL, SXTB/H/W, UXTB/H,
    /// SBFX, UBFX, SBFIZ, UBFIZ): what the pseudocode's masks give, in one to three host instructions. With
    /// `imms >= immr` bits `imms..immr` go to the bottom (the field's top bit brought to the register's top by a
    /// left shift, then down with sign or zero fill); otherwise bits `imms..0` go to bit `width - immr` (extended
    /// in place first, then shifted there).
    fn extend_or_shift_field(&mut self, src: Value, signed: bool, width: u32, immr: u32, imms: u32) -> Value {
        let right = |lifter: &mut Self, value: Value, amount: u32| match (amount, signed) {
            (0, _) => value,
            (_, true) => lifter.b.ins().sshr_imm_u(value, i64::from(amount)),
            (_, false) => lifter.b.ins().ushr_imm_u(value, i64::from(amount)),
        };
        let top = width - 1 - imms;
        if imms >= immr {
            if immr == 0 && matches!(imms, 7 | 15 | 31) && imms < width - 1 {
                let narrow_type = Type::int((imms + 1) as u16).expect("8, 16 or 32 bits");
                let narrow = self.b.ins().ireduce(narrow_type, src);
                let ty = Self::int_type(width);
                return if signed { self.b.ins().sextend(ty, narrow) } else { self.b.ins().uextend(ty, narrow) };
            }
            let at_top = if top == 0 { src } else { self.b.ins().ishl_imm_u(src, i64::from(top)) };
            return right(self, at_top, top + immr);
        }
        let at_top = self.b.ins().ishl_imm_u(src, i64::from(top));
        let field = right(self, at_top, top);
        self.b.ins().ishl_imm_u(field, i64::from(width - immr))
    }

    pub(super) fn extract(
        &mut self,
        sf: u32,
        op21: u32,
        n: u32,
        o0: u32,
        rm: u32,
        imms: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let width = datasize(sf);
        if op21 != 0 || o0 != 0 || n != sf || imms >= width {
            return Err(Unlifted);
        }
        let low = self.x(rm, width);
        let result = if imms == 0 {
            low
        } else {
            let high = self.x(rn, width);
            let low_part = self.b.ins().ushr_imm_u(low, i64::from(imms));
            let high_part = self.b.ins().ishl_imm_u(high, i64::from(width - imms));
            self.b.ins().bor(low_part, high_part)
        };
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// CSEL, CSINC, CSINV, CSNEG.
    pub(super) fn conditional_select(
        &mut self,
        sf: u32,
        op: u32,
        s: u32,
        rm: u32,
        cond: u32,
        op2: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if s != 0 || op2 >= 0b10 {
            return Err(Unlifted);
        }
        let width = datasize(sf);
        let holds = self.condition_holds(cond);
        let taken = self.x(rn, width);
        let other = self.x(rm, width);
        let other = match (op, op2) {
            (0, 0) => other,
            (0, _) => self.b.ins().iadd_imm_s(other, 1),
            (_, 0) => self.b.ins().bnot(other),
            _ => self.b.ins().ineg(other),
        };
        let result = self.b.ins().select(holds, taken, other);
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// CCMN, CCMP (register and immediate): the flags of the comparison if the condition holds, else `nzcv`.
    pub(super) fn conditional_compare(
        &mut self,
        sf: u32,
        op: u32,
        s: u32,
        operand: Operand,
        cond: u32,
        o2: u32,
        rn: u32,
        o3: u32,
        nzcv: u32,
    ) -> Lift {
        if s != 1 || o2 != 0 || o3 != 0 {
            return Err(Unlifted);
        }
        let width = datasize(sf);
        let holds = self.condition_holds(cond);
        let a = self.x(rn, width);
        let b = match operand {
            Operand::Register(m) => self.x(m, width),
            Operand::Immediate(imm) => self.iconst(Self::int_type(width), u64::from(imm)),
        };
        let subtract = op == 1;
        let result = if subtract { self.b.ins().isub(a, b) } else { self.b.ins().iadd(a, b) };
        // Kept lazy: a condition that reads it is a select between the compare's and the constant's.
        self.set_lazy_flags(LazyFlags::Select { holds, subtract, a, b, result, otherwise: nzcv });
        Ok(Flow::Next)
    }

    /// RBIT, REV16, REV32, REV, CLZ, CLS.
    pub(super) fn data_processing_1_source(
        &mut self,
        sf: u32,
        s: u32,
        opcode2: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if s != 0 || opcode2 != 0 || opcode > 0b101 || (sf == 0 && opcode == 0b011) {
            return Err(Unlifted);
        }
        let width = datasize(sf);
        let x = self.x(rn, width);
        let result = match opcode {
            0b000 => self.b.ins().bitrev(x),
            0b001 => {
                let mask = ones(width) / 0xffff * 0x00ff;
                let high = self.b.ins().ushr_imm_u(x, 8);
                let high = self.and_const(high, mask);
                let low = self.and_const(x, mask);
                let low = self.b.ins().ishl_imm_u(low, 8);
                self.b.ins().bor(high, low)
            }
            0b010 if sf == 1 => {
                let swapped = self.b.ins().bswap(x);
                self.b.ins().rotr_imm_u(swapped, 32)
            }
            0b010 | 0b011 => self.b.ins().bswap(x),
            0b100 => self.b.ins().clz(x),
            _ => {
                // CountLeadingSignBits(x) = CountLeadingZeroBits(x<N-1:1> EOR x<N-2:0>).
                let shifted = self.b.ins().ishl_imm_u(x, 1);
                let differences = self.b.ins().bxor(x, shifted);
                let differences = self.b.ins().bor_imm_u(differences, 1);
                self.b.ins().clz(differences)
            }
        };
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// UDIV, SDIV (division by zero gives zero, the most negative number divided by -1 gives itself), LSLV,
    /// LSRV, ASRV, RORV (the amount is taken modulo the width, as Cranelift's shifts do).
    pub(super) fn data_processing_2_source(&mut self, sf: u32, s: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Lift {
        if s == 0 && opcode >> 3 == 0b010 {
            return self.crc32(sf, opcode, rm, rn, rd);
        }
        if s != 0 || !matches!(opcode, 0b000010 | 0b000011 | 0b001000..=0b001011) {
            return Err(Unlifted);
        }
        let width = datasize(sf);
        let ty = Self::int_type(width);
        let a = self.x(rn, width);
        let b = self.x(rm, width);
        let result = match opcode {
            0b000010 | 0b000011 => {
                let signed = opcode == 0b000011;
                let by_zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let one = self.iconst(ty, 1);
                let zero = self.iconst(ty, 0);
                let trapping = if signed {
                    let most_negative = self.iconst(ty, 1 << (width - 1));
                    let a_min = self.b.ins().icmp(IntCC::Equal, a, most_negative);
                    let minus_one = self.iconst(ty, u64::MAX);
                    let b_minus_one = self.b.ins().icmp(IntCC::Equal, b, minus_one);
                    let overflow = self.b.ins().band(a_min, b_minus_one);
                    self.b.ins().bor(by_zero, overflow)
                } else {
                    by_zero
                };
                let divisor = self.b.ins().select(trapping, one, b);
                let quotient = if signed { self.b.ins().sdiv(a, divisor) } else { self.b.ins().udiv(a, divisor) };
                self.b.ins().select(by_zero, zero, quotient)
            }
            0b001000 => self.b.ins().ishl(a, b),
            0b001001 => self.b.ins().ushr(a, b),
            0b001010 => self.b.ins().sshr(a, b),
            _ => self.b.ins().rotr(a, b),
        };
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// CRC32B/H/W/X and CRC32CB/CH/CW/CX, through the runtime's helpers.
    fn crc32(&mut self, sf: u32, opcode: u32, rm: u32, rn: u32, rd: u32) -> Lift {
        let sz = opcode & 0b11;
        if (sf == 1) != (sz == 0b11) {
            return Err(Unlifted);
        }
        let helper = if opcode & 0b100 != 0 { offset_of!(Runtime, crc32c) } else { offset_of!(Runtime, crc32) };
        let acc = self.x(rn, 32);
        let data = self.x(rm, 64);
        let bytes = self.iconst(types::I32, 1 << sz);
        let result = self.call_runtime(helper, &[types::I32, types::I64, types::I32], types::I32, &[acc, data, bytes]);
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// MADD, MSUB, SMADDL, SMSUBL, SMULH, UMADDL, UMSUBL, UMULH.
    pub(super) fn data_processing_3_source(
        &mut self,
        sf: u32,
        op54: u32,
        op31: u32,
        rm: u32,
        o0: u32,
        ra: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let subtract = o0 == 1;
        let result = match (sf, op54, op31, o0) {
            (_, 0, 0b000, _) => {
                let width = datasize(sf);
                let product = {
                    let n = self.x(rn, width);
                    let m = self.x(rm, width);
                    self.b.ins().imul(n, m)
                };
                let addend = self.x(ra, width);
                if subtract { self.b.ins().isub(addend, product) } else { self.b.ins().iadd(addend, product) }
            }
            (1, 0, 0b001 | 0b101, _) => {
                let signed = op31 == 0b001;
                let extend = |lifter: &mut Self, r: u32| {
                    let w = lifter.x(r, 32);
                    if signed { lifter.b.ins().sextend(types::I64, w) } else { lifter.b.ins().uextend(types::I64, w) }
                };
                let n = extend(self, rn);
                let m = extend(self, rm);
                let product = self.b.ins().imul(n, m);
                let addend = self.x(ra, 64);
                if subtract { self.b.ins().isub(addend, product) } else { self.b.ins().iadd(addend, product) }
            }
            (1, 0, 0b010 | 0b110, 0) => {
                let n = self.x(rn, 64);
                let m = self.x(rm, 64);
                if op31 == 0b010 { self.b.ins().smulhi(n, m) } else { self.b.ins().umulhi(n, m) }
            }
            _ => return Err(Unlifted),
        };
        self.set_x(rd, result);
        Ok(Flow::Next)
    }

    /// Hints without architectural effect at EL0 under Horizon (NOP, YIELD, WFE, WFI, SEV, SEVL, ESB, CSDB, BTI,
    /// ...); the pointer authentication hints are the reference's.
    pub(super) fn hint(&mut self, crm: u32, op2: u32) -> Lift {
        let pointer_authentication =
            (crm == 0b0000 && op2 == 0b111) || (crm == 0b0001 && op2 & 1 == 0) || crm == 0b0011;
        if pointer_authentication {
            return Err(Unlifted);
        }
        Ok(Flow::Next)
    }

    /// MRS and MSR of the registers EL0 code uses all the time: NZCV, FPCR and FPSR (reads; writes change the FP
    /// mode and stay with the reference), TPIDR_EL0 and TPIDRRO_EL0. The rest are the reference's.
    pub(super) fn system_register_move(
        &mut self,
        l: u32,
        o0: u32,
        op1: u32,
        crn: u32,
        crm: u32,
        op2: u32,
        rt: u32,
    ) -> Lift {
        let register = SysReg::lookup(SysRegEncoding::from_fields(o0, op1, crn, crm, op2)).ok_or(Unlifted)?;
        if l == 1 {
            let value = match register {
                SysReg::Nzcv => {
                    let packed = self.packed_flags();
                    self.b.ins().uextend(types::I64, packed)
                }
                SysReg::Fpcr | SysReg::Fpsr => {
                    let offset =
                        if register == SysReg::Fpcr { offset_of!(CpuState, fpcr) } else { offset_of!(CpuState, fpsr) };
                    let value = self.cpu_field(types::I32, offset);
                    self.b.ins().uextend(types::I64, value)
                }
                SysReg::TpidrEl0 => self.cpu_field(types::I64, offset_of!(CpuState, tpidr_el0)),
                SysReg::TpidrroEl0 => self.cpu_field(types::I64, offset_of!(CpuState, tpidrro_el0)),
                _ => return Err(Unlifted),
            };
            self.set_x(rt, value);
            return Ok(Flow::Next);
        }
        match register {
            SysReg::Nzcv => {
                let value = self.x(rt, 32);
                let packed = self.and_const(value, 0xf000_0000);
                self.set_flags_packed(packed);
            }
            SysReg::TpidrEl0 => {
                let value = self.x(rt, 64);
                self.set_cpu_field(value, offset_of!(CpuState, tpidr_el0));
            }
            _ => return Err(Unlifted),
        }
        Ok(Flow::Next)
    }

    /// DSB, DMB, ISB: one thread runs at a time and every access completes in program order, so they order
    /// nothing (as in the reference). CLREX and the rest are the reference's.
    pub(super) fn barrier(&mut self, op2: u32) -> Lift {
        if (0b100..=0b110).contains(&op2) { Ok(Flow::Next) } else { Err(Unlifted) }
    }
}
