//! C4.1.92 Data processing -- immediate.

use super::pseudocode::{add_with_carry, datasize, decode_bit_masks, ones, replicate, ror, sign_extend};
use super::{Exec, Step};
use crate::state::Flags;

impl Exec<'_> {
    /// ADR, ADRP.
    pub(super) fn adr(&mut self, op: u32, immlo: u32, immhi: u32, rd: u32) -> Step {
        let page = op == 1;
        let mut imm = sign_extend(u64::from(immhi << 2 | immlo), 21);
        let mut base = self.pc;
        if page {
            imm <<= 12;
            base &= !0xfff;
        }
        self.set_x(rd, base.wrapping_add(imm), 64);
        Ok(())
    }

    /// ADD, ADDS, SUB, SUBS (immediate).
    pub(super) fn add_sub_immediate(
        &mut self,
        sf: u32,
        op: u32,
        s: u32,
        sh: u32,
        imm12: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let n = datasize(sf);
        let (sub_op, setflags) = (op == 1, s == 1);
        let imm = if sh == 1 { u64::from(imm12) << 12 } else { u64::from(imm12) };
        let operand1 = self.x_or_sp(rn, n);
        let (operand2, carry_in) = if sub_op { (!imm, true) } else { (imm, false) };
        let (result, flags) = add_with_carry(operand1, operand2, carry_in, n);
        if setflags {
            self.set_flags(flags);
            self.set_x(rd, result, n);
        } else {
            self.set_x_or_sp(rd, result, n);
        }
        Ok(())
    }

    /// AND, ORR, EOR, ANDS (immediate).
    pub(super) fn logical_immediate(
        &mut self,
        word: u32,
        sf: u32,
        opc: u32,
        n: u32,
        immr: u32,
        imms: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if sf == 0 && n != 0 {
            return self.unallocated(word);
        }
        let Some((imm, _)) = decode_bit_masks(n, imms, immr, true, size) else {
            return self.unallocated(word);
        };
        let operand1 = self.x(rn, size);
        let result = match opc {
            0b00 | 0b11 => operand1 & imm,
            0b01 => operand1 | imm,
            _ => operand1 ^ imm,
        };
        if opc == 0b11 {
            self.set_flags(logical_flags(result, size));
            self.set_x(rd, result, size);
        } else {
            self.set_x_or_sp(rd, result, size);
        }
        Ok(())
    }

    /// MOVN, MOVZ, MOVK.
    pub(super) fn move_wide(&mut self, word: u32, sf: u32, opc: u32, hw: u32, imm16: u32, rd: u32) -> Step {
        let size = datasize(sf);
        if opc == 0b01 || (sf == 0 && hw & 0b10 != 0) {
            return self.unallocated(word);
        }
        let pos = hw << 4;
        let imm = u64::from(imm16) << pos;
        let result = match opc {
            0b00 => !imm,                                     // MOVN
            0b10 => imm,                                      // MOVZ
            _ => (self.x(rd, size) & !(0xffff << pos)) | imm, // MOVK
        };
        self.set_x(rd, result, size);
        Ok(())
    }

    /// SBFM, BFM, UBFM.
    pub(super) fn bitfield(
        &mut self,
        word: u32,
        sf: u32,
        opc: u32,
        n: u32,
        immr: u32,
        imms: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        let (inzero, extend) = match opc {
            0b00 => (true, true),   // SBFM
            0b01 => (false, false), // BFM
            0b10 => (true, false),  // UBFM
            _ => return self.unallocated(word),
        };
        if sf == 1 && n != 1 {
            return self.unallocated(word);
        }
        if sf == 0 && (n != 0 || immr & 0x20 != 0 || imms & 0x20 != 0) {
            return self.unallocated(word);
        }
        let Some((wmask, tmask)) = decode_bit_masks(n, imms, immr, false, size) else {
            return self.unallocated(word);
        };
        let dst = if inzero { 0 } else { self.x(rd, size) };
        let src = self.x(rn, size);
        // Perform bitfield move on low bits.
        let bot = (dst & !wmask) | (ror(src, immr, size) & wmask);
        // Determine extension bits (sign, zero or dest register).
        let top = if extend { replicate(src >> imms & 1, 1, size) } else { dst };
        // Combine extension bits and result bits.
        self.set_x(rd, (top & !tmask) | (bot & tmask), size);
        Ok(())
    }

    /// EXTR.
    pub(super) fn extract(
        &mut self,
        word: u32,
        sf: u32,
        op21: u32,
        n: u32,
        o0: u32,
        rm: u32,
        imms: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if op21 != 0 || o0 != 0 || n != sf || (sf == 0 && imms & 0x20 != 0) {
            return self.unallocated(word);
        }
        let lsb = imms;
        let concat = u128::from(self.x(rn, size)) << size | u128::from(self.x(rm, size));
        self.set_x(rd, (concat >> lsb) as u64 & ones(size), size);
        Ok(())
    }
}

/// NZCV after a logical operation with flags: N and Z from the result, C and V cleared.
pub(super) fn logical_flags(result: u64, size: u32) -> Flags {
    Flags { n: result >> (size - 1) & 1 == 1, z: result == 0, c: false, v: false }
}
