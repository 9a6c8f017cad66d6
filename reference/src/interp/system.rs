//! C4.1.93 System instructions: hints, barriers, PSTATE, SYS (cache maintenance) and MRS/MSR, as EL0 sees them.

use super::pac::{PacKey, add_pac, auth, strip};
use super::{Exec, Step};
use crate::engine::COUNTER_FREQUENCY_HZ;
use crate::memory::{Access, MemoryFault};
use crate::state::PSTATE_SSBS;
use crate::sysreg::{DC_ZVA_BLOCK_SIZE, DCZID_EL0, SysReg, SysRegEncoding};

/// FPCR bits an implementation without floating-point exception trapping keeps: AHP, DN, FZ, RMode, Stride,
/// FZ16, Len (Stride and Len have no effect in AArch64 but exist because AArch32 does at EL0).
const FPCR_WRITABLE: u64 = 0x07ff_0000;
/// FPSR bits: N, Z, C, V (kept for AArch32, which the A78C has at EL0), QC and the cumulative exception flags
/// IDC, IXC, UFC, OFC, DZC, IOC.
const FPSR_WRITABLE: u64 = 0xf800_009f;

impl Exec<'_> {
    /// HINT space: NOP, YIELD, WFE, WFI, SEV, SEVL, DGH, ESB, CSDB, the pointer authentication hints (XPACLRI,
    /// PACIA1716, PACIB1716, AUTIA1716, AUTIB1716, PACIAZ, PACIASP, PACIBZ, PACIBSP, AUTIAZ, AUTIASP, AUTIBZ,
    /// AUTIBSP) and every unallocated hint.
    ///
    /// Only XPACLRI changes anything: one thread runs at a time, unallocated hints are NOPs, and with Horizon's keys
    /// disabled `AddPAC*` and `Auth*` return X30 or X17 unchanged (see `pac`), while `Strip` is not guarded by them.
    pub(super) fn hint(&mut self, crm: u32, op2: u32) -> Step {
        let bit = |n: u32| op2 >> n & 1 == 1;
        match (crm, op2) {
            // XPACLRI: `X[30] = Strip(X[30], FALSE)`.
            (0b0000, 0b111) => self.set_x(30, strip(self.x(30, 64)), 64),
            // PACIA1716, PACIB1716, AUTIA1716, AUTIB1716: X17 with X16 as the modifier.
            (0b0001, _) if !bit(0) => {
                let key = PacKey::decode(false, bit(1));
                let (pointer, modifier) = (self.x(17, 64), self.x(16, 64));
                let result = if bit(2) { auth(key, pointer, modifier) } else { add_pac(key, pointer, modifier) };
                self.set_x(17, result, 64);
            }
            // PACIAZ, PACIASP, PACIBZ, PACIBSP, AUTIAZ, AUTIASP, AUTIBZ, AUTIBSP: X30 with a zero or SP modifier.
            (0b0011, _) => {
                let key = PacKey::decode(false, bit(1));
                let pointer = self.x(30, 64);
                let modifier = if bit(0) { self.cpu.sp } else { 0 };
                let result = if bit(2) { auth(key, pointer, modifier) } else { add_pac(key, pointer, modifier) };
                self.set_x(30, result, 64);
            }
            _ => {}
        }
        Ok(())
    }

    /// CLREX, DSB (with SSBB/PSSBB), DMB, ISB, SB.
    pub(super) fn barrier(&mut self, word: u32, _crm: u32, op2: u32) -> Step {
        match op2 {
            0b010 => {
                self.cpu.exclusive.clear();
                Ok(())
            }
            // One thread runs at a time and every access completes in order: barriers have nothing to order.
            0b100..=0b110 => Ok(()),
            // SB (op2 = 0b111) is FEAT_SB, which the Cortex-A78C does not have.
            _ => self.unallocated(word),
        }
    }

    /// MSR (immediate) and the flag manipulation instructions of the PSTATE space (CFINV). EL0 may write SSBS
    /// (FEAT_SSBS); the other fields are EL1's.
    pub(super) fn msr_immediate(&mut self, word: u32, op1: u32, crm: u32, op2: u32) -> Step {
        match (op1, op2) {
            (0b000, 0b000) if crm == 0 => {
                // CFINV.
                let mut flags = self.flags();
                flags.c = !flags.c;
                self.set_flags(flags);
                Ok(())
            }
            // UAO, PAN, SPSel, DAIFSet, DAIFClr: EL1 only (SCTLR_EL1.UMA is clear under Horizon).
            (0b000, 0b011) | (0b000, 0b100) | (0b000, 0b101) | (0b011, 0b110) | (0b011, 0b111) => self.not_at_el0(word),
            // SSBS: `PSTATE.SSBS = CRm<0>`, whatever CRm<3:1> holds.
            (0b011, 0b001) => {
                self.cpu.ssbs = if crm & 1 == 1 { PSTATE_SSBS } else { 0 };
                Ok(())
            }
            _ => self.unallocated(word),
        }
    }

    /// SYS and SYSL: the cache maintenance EL0 may perform (DC ZVA/CVAC/CVAU/CVAP/CIVAC, IC IVAU).
    pub(super) fn system_instruction(
        &mut self,
        word: u32,
        l: u32,
        op1: u32,
        crn: u32,
        crm: u32,
        op2: u32,
        rt: u32,
    ) -> Step {
        if l == 1 || op1 != 3 || crn != 7 {
            return self.not_at_el0(word);
        }
        let address = self.x(rt, 64);
        match (crm, op2) {
            // DC ZVA: zero a naturally aligned block of DCZID_EL0's size. A fault reports the register's address.
            (4, 1) => {
                let block = address & !(DC_ZVA_BLOCK_SIZE - 1);
                self.memory
                    .write(block, &[0; DC_ZVA_BLOCK_SIZE as usize])
                    .map_err(|fault| Self::fault(MemoryFault { address, ..fault }))
            }
            // DC CVAC, DC CVAU, DC CVAP, DC CIVAC, IC IVAU: memory is coherent here, but a translation fault
            // still reports (the address must be mapped and readable).
            (10, 1) | (11, 1) | (12, 1) | (14, 1) | (5, 1) => self.mem_check(address, 1, Access::Read),
            _ => self.not_at_el0(word),
        }
    }

    /// MRS, MSR (register).
    pub(super) fn system_register_move(
        &mut self,
        word: u32,
        l: u32,
        o0: u32,
        op1: u32,
        crn: u32,
        crm: u32,
        op2: u32,
        rt: u32,
    ) -> Step {
        let encoding = SysRegEncoding::from_fields(o0, op1, crn, crm, op2);
        let Some(register) = SysReg::lookup(encoding) else {
            if l == 1 && encoding.in_id_space() {
                self.set_x(rt, 0, 64);
                return Ok(());
            }
            return self.not_at_el0(word);
        };
        if l == 1 {
            let value = self.read_system_register(register);
            self.set_x(rt, value, 64);
            return Ok(());
        }
        let value = self.x(rt, 64);
        match register {
            SysReg::Nzcv => self.cpu.nzcv = (value & 0xf000_0000) as u32,
            SysReg::Ssbs => self.cpu.ssbs = value as u32 & PSTATE_SSBS,
            SysReg::Fpcr => self.cpu.fpcr = (value & FPCR_WRITABLE) as u32,
            SysReg::Fpsr => self.cpu.fpsr = (value & FPSR_WRITABLE) as u32,
            SysReg::TpidrEl0 => self.cpu.tpidr_el0 = value,
            // The rest are read-only at EL0.
            _ => return self.not_at_el0(word),
        }
        Ok(())
    }

    fn read_system_register(&self, register: SysReg) -> u64 {
        let id = self.identity;
        match register {
            SysReg::Nzcv => u64::from(self.cpu.nzcv),
            SysReg::Ssbs => u64::from(self.cpu.ssbs),
            SysReg::Fpcr => u64::from(self.cpu.fpcr),
            SysReg::Fpsr => u64::from(self.cpu.fpsr),
            SysReg::TpidrEl0 => self.cpu.tpidr_el0,
            SysReg::TpidrroEl0 => self.cpu.tpidrro_el0,
            SysReg::CntfrqEl0 => COUNTER_FREQUENCY_HZ,
            SysReg::CntpctEl0 | SysReg::CntvctEl0 => self.clock.counter(self.retired),
            SysReg::DczidEl0 => DCZID_EL0,
            SysReg::CtrEl0 => id.ctr,
            SysReg::MidrEl1 => id.midr,
            // Aff0 = 0: the identification a single-core view gives; Horizon does not expose core numbers this way.
            SysReg::MpidrEl1 => 0x8000_0000,
            SysReg::RevidrEl1 => id.revidr,
            SysReg::IdAa64pfr0El1 => id.id_aa64pfr0,
            SysReg::IdAa64isar0El1 => id.id_aa64isar0,
            SysReg::IdAa64isar1El1 => id.id_aa64isar1,
        }
    }
}
