//! C4.1.93 Branches (the exception-generating and system parts are in `system.rs`).

use super::pac::{PacKey, auth};
use super::pseudocode::{condition_holds, sign_extend};
use super::{Exec, Step};

impl Exec<'_> {
    /// B.cond.
    pub(super) fn branch_conditional(&mut self, word: u32, o1: u32, imm19: u32, o0: u32, cond: u32) -> Step {
        if o1 != 0 || o0 != 0 {
            return self.unallocated(word);
        }
        let offset = sign_extend(u64::from(imm19) << 2, 21);
        if condition_holds(cond, self.flags()) {
            self.branch_to(self.pc.wrapping_add(offset));
        }
        Ok(())
    }

    /// B, BL.
    pub(super) fn branch_immediate(&mut self, op: u32, imm26: u32) -> Step {
        let offset = sign_extend(u64::from(imm26) << 2, 28);
        if op == 1 {
            self.set_x(30, self.pc.wrapping_add(4), 64);
        }
        self.branch_to(self.pc.wrapping_add(offset));
        Ok(())
    }

    /// BR, BLR, RET, and the pointer-authenticating BRAA, BRAAZ, BRAB, BRABZ, BLRAA, BLRAAZ, BLRAB, BLRABZ, RETAA,
    /// RETAB; the EL1 returns (ERET, ERETAA, ERETAB, DRPS) are refused.
    pub(super) fn branch_register(&mut self, word: u32, opc: u32, op2: u32, op3: u32, rn: u32, op4: u32) -> Step {
        if op2 != 0b11111 {
            return self.unallocated(word);
        }
        // op3 = 00001M: authenticated with key A (M = 0) or B; op4 is Rm, the modifier.
        let authenticated = op3 == 0b000010 || op3 == 0b000011;
        let key = PacKey::decode(false, op3 & 1 == 1);
        match (opc, op3, rn, op4) {
            // BR, BLR, RET.
            (0b0000..=0b0010, 0, _, 0) => {
                let target = self.x(rn, 64);
                self.branch_register_to(opc & 1 == 1, target);
                Ok(())
            }
            // BRAAZ, BRABZ, BLRAAZ, BLRABZ (Z = 0, Rm = 11111: `X[m]` is the zero register).
            (0b0000 | 0b0001, _, _, 0b11111) if authenticated => {
                let target = auth(key, self.x(rn, 64), 0);
                self.branch_register_to(opc == 0b0001, target);
                Ok(())
            }
            // RETAA, RETAB: X[30] authenticated with SP as the modifier.
            (0b0010, _, 0b11111, 0b11111) if authenticated => {
                let target = auth(key, self.x(30, 64), self.cpu.sp);
                self.branch_register_to(false, target);
                Ok(())
            }
            // BRAA, BRAB, BLRAA, BLRAB (Z = 1: Rm = 31 is SP).
            (0b1000 | 0b1001, _, _, _) if authenticated => {
                let target = auth(key, self.x(rn, 64), self.x_or_sp(op4, 64));
                self.branch_register_to(opc == 0b1001, target);
                Ok(())
            }
            // ERET, DRPS, ERETAA/ERETAB.
            (0b0100 | 0b0101, 0, 0b11111, 0) => self.not_at_el0(word),
            (0b0100, _, 0b11111, 0b11111) if authenticated => self.not_at_el0(word),
            _ => self.unallocated(word),
        }
    }

    /// The end of the register branches: `if branch_type == BranchType_INDCALL then X[30] = PC[] + 4;` then
    /// `BranchTo(target)`. The target was read before X[30] is written (`BLR X30` branches to the old X30).
    fn branch_register_to(&mut self, link: bool, target: u64) {
        if link {
            self.set_x(30, self.pc.wrapping_add(4), 64);
        }
        self.branch_to(target);
    }

    /// CBZ, CBNZ.
    pub(super) fn compare_and_branch(&mut self, sf: u32, op: u32, imm19: u32, rt: u32) -> Step {
        let size = if sf == 1 { 64 } else { 32 };
        let iszero = op == 0;
        let offset = sign_extend(u64::from(imm19) << 2, 21);
        let operand1 = self.x(rt, size);
        if (operand1 == 0) == iszero {
            self.branch_to(self.pc.wrapping_add(offset));
        }
        Ok(())
    }

    /// TBZ, TBNZ.
    pub(super) fn test_and_branch(&mut self, b5: u32, op: u32, b40: u32, imm14: u32, rt: u32) -> Step {
        let bit_pos = b5 << 5 | b40;
        let bit_val = op;
        let offset = sign_extend(u64::from(imm14) << 2, 16);
        let operand = self.x(rt, 64);
        if (operand >> bit_pos & 1) as u32 == bit_val {
            self.branch_to(self.pc.wrapping_add(offset));
        }
        Ok(())
    }
}
