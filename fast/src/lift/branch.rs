//! Branches: every one ends the block with the PC it computes.

use super::{Flow, Lift, Lifter, Unlifted};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};
use tandem_reference::interp::pseudocode::{datasize, sign_extend};

impl Lifter<'_> {
    fn relative(&self, offset: u64) -> u64 {
        self.pc.wrapping_add(offset)
    }

    /// Leaves the region for `target` when `taken` holds; the region goes on with the next instruction.
    fn branch_if(&mut self, taken: Value, target: u64) -> Lift {
        self.successors.push(target);
        self.exit_if(taken, target);
        Ok(Flow::Next)
    }

    /// B, BL.
    pub(super) fn branch_immediate(&mut self, op: u32, imm26: u32) -> Lift {
        let target = self.relative(sign_extend(u64::from(imm26) << 2, 28));
        if op == 1 {
            self.link();
            self.note_call(target);
        }
        Ok(Flow::Jump(target))
    }

    /// B.cond (BC.cond is FEAT_HBC, which the Cortex-A78C lacks: the reference reports it).
    pub(super) fn branch_conditional(&mut self, o1: u32, imm19: u32, o0: u32, cond: u32) -> Lift {
        if o1 != 0 || o0 != 0 {
            return Err(Unlifted);
        }
        let holds = self.condition_holds(cond);
        self.branch_if(holds, self.relative(sign_extend(u64::from(imm19) << 2, 21)))
    }

    /// CBZ, CBNZ.
    pub(super) fn compare_and_branch(&mut self, sf: u32, op: u32, imm19: u32, rt: u32) -> Lift {
        let value = self.x(rt, datasize(sf));
        let condition = if op == 1 { IntCC::NotEqual } else { IntCC::Equal };
        let taken = self.b.ins().icmp_imm_s(condition, value, 0);
        self.branch_if(taken, self.relative(sign_extend(u64::from(imm19) << 2, 21)))
    }

    /// TBZ, TBNZ.
    pub(super) fn test_and_branch(&mut self, b5: u32, op: u32, b40: u32, imm14: u32, rt: u32) -> Lift {
        let value = self.x(rt, 64);
        let bit = self.and_const(value, 1 << (b5 << 5 | b40));
        let condition = if op == 1 { IntCC::NotEqual } else { IntCC::Equal };
        let taken = self.b.ins().icmp_imm_s(condition, bit, 0);
        self.branch_if(taken, self.relative(sign_extend(u64::from(imm14) << 2, 16)))
    }

    /// BR, BLR, RET (the authenticating forms and ERET/DRPS are the reference's). In a region lifted as a graph,
    /// RET goes on inside it when the target is the return address of a call the region holds.
    pub(super) fn branch_register(&mut self, opc: u32, op2: u32, op3: u32, rn: u32, op4: u32) -> Lift {
        if op2 != 0b11111 || op3 != 0 || op4 != 0 || opc > 0b0010 {
            return Err(Unlifted);
        }
        let target = self.x(rn, 64);
        if opc == 0b0001 {
            self.link();
        }
        if opc == 0b0010 {
            // RET: to a call's return address in the region, go on there (a label) instead of leaving.
            for return_address in self.predicted_returns() {
                let returns_there = self.b.ins().icmp_imm_s(IntCC::Equal, target, return_address as i64);
                self.exit_if(returns_there, return_address);
            }
        }
        self.end_block(target)
    }

    /// A call's X30 = the address after it, which is also where the code may go on next.
    fn link(&mut self) {
        let return_address = self.pc.wrapping_add(4);
        self.successors.push(return_address);
        let link = self.iconst(types::I64, return_address);
        self.set_x(30, link);
    }
}
