//! Unicorn (QEMU's A64 translator, `max` CPU) configured as the EL0 environment Horizon gives a program, used as
//! the oracle for the reference interpreter.

use crate::layout::{Layout, PAGE};
use crate::unicorn_engine::protection;
use tandem_reference::memory::Access;
use tandem_reference::state::{CpuState, PSTATE_SSBS};
use unicorn_engine::unicorn_const::{Arch, HookType, MemType, Mode, Prot, uc_error};
use unicorn_engine::{Arm64CpuModel, RegisterARM64, RegisterARM64CP, Unicorn};

/// How Unicorn's run ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum OracleStop {
    /// The instruction budget was spent.
    Completed,
    Svc,
    Brk,
    Undefined,
    /// A data abort raised inside QEMU's translation (alignment), which Unicorn reports without an address.
    DataAbort,
    Fault {
        access: Access,
        address: u64,
    },
    /// Any other exception number, or an error Unicorn reported.
    Other(u32),
}

/// What the stop hooks saw: the first exception and the first invalid memory access of a run.
#[derive(Default)]
pub(crate) struct StopLog {
    pub interrupt: Option<u32>,
    pub fault: Option<(Access, u64)>,
}

/// Unicorn's hook data, for the hooks `new_el0_unicorn` installs.
pub(crate) trait HasStopLog {
    fn stop_log(&mut self) -> &mut StopLog;
}

#[derive(Default)]
struct Log {
    /// Instructions started (the code hook runs before each).
    started: u64,
    stop: StopLog,
    /// Start addresses of pages written during the run.
    written_pages: Vec<u64>,
}

// QEMU's exception numbers (target/arm/cpu.h).
const EXCP_UDEF: u32 = 1;
const EXCP_SWI: u32 = 2;
const EXCP_DATA_ABORT: u32 = 4;
const EXCP_BKPT: u32 = 7;

const Q_REGISTERS: [RegisterARM64; 32] = {
    use RegisterARM64::*;
    [
        Q0, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11, Q12, Q13, Q14, Q15, Q16, Q17, Q18, Q19, Q20, Q21, Q22, Q23,
        Q24, Q25, Q26, Q27, Q28, Q29, Q30, Q31,
    ]
};

const X_REGISTERS: [RegisterARM64; 31] = {
    use RegisterARM64::*;
    [
        X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15, X16, X17, X18, X19, X20, X21, X22, X23,
        X24, X25, X26, X27, X28, X29, X30,
    ]
};

// SCTLR_EL1 bits for EL0 as Horizon configures it: cache maintenance, CTR_EL0 and DC ZVA allowed at EL0
// (UCI, UCT, DZE), WFE/WFI not trapped (nTWE, nTWI), pointer authentication keys disabled (EnIA, EnIB, EnDA, EnDB
// clear), MMU off (Unicorn maps guest addresses flat).
const SCTLR_UCI: u64 = 1 << 26;
const SCTLR_NTWE: u64 = 1 << 18;
const SCTLR_NTWI: u64 = 1 << 16;
const SCTLR_UCT: u64 = 1 << 15;
const SCTLR_DZE: u64 = 1 << 14;
/// CPACR_EL1.FPEN = 0b11: FP and SIMD do not trap at EL0.
const CPACR_FPEN: u64 = 3 << 20;
/// SCR_EL3.API: pointer authentication instructions do not trap to EL3, as the reference models Horizon's EL0. (QEMU
/// 5.0 still traps PACGA, to EL2: see the ledger's `oracle-pacga-trapped-to-el2`.)
const SCR_API: u64 = 1 << 17;

/// A page only the oracle maps, far from every case's addresses, holding CLREX: Unicorn keeps its exclusive monitor
/// between runs and offers no register for it, so every run first executes this to start from an open monitor.
const CLREX_PAGE: u64 = 0x7f_ffff_f000;
const CLREX: u32 = 0xd503_3f5f;

pub struct UnicornOracle {
    uc: Unicorn<'static, Log>,
    /// SCTLR_EL1 as configured, written again at every run (see `load_state`).
    sctlr: RegisterARM64CP,
}

#[derive(Debug, thiserror::Error)]
#[error("unicorn: {0:?}")]
pub struct OracleError(pub unicorn_engine::unicorn_const::uc_error);

impl From<unicorn_engine::unicorn_const::uc_error> for OracleError {
    fn from(error: unicorn_engine::unicorn_const::uc_error) -> Self {
        OracleError(error)
    }
}

impl HasStopLog for Log {
    fn stop_log(&mut self) -> &mut StopLog {
        &mut self.stop
    }
}

impl UnicornOracle {
    pub fn new(layout: &Layout) -> Result<UnicornOracle, OracleError> {
        let (mut uc, sctlr) = new_el0_unicorn(Log::default())?;
        for region in &layout.regions {
            uc.mem_map(region.address, region.size, protection(region.perm))?;
        }
        uc.mem_map(CLREX_PAGE, PAGE, Prot::READ | Prot::EXEC)?;
        uc.mem_write(CLREX_PAGE, &CLREX.to_le_bytes())?;
        uc.add_code_hook(1, 0, |uc, _address, _size| uc.get_data_mut().started += 1)?;
        uc.add_mem_hook(HookType::MEM_WRITE, 1, 0, |uc, _kind, address, size, _value| {
            let log = uc.get_data_mut();
            for page in [address & !(PAGE - 1), address.wrapping_add(size.max(1) as u64 - 1) & !(PAGE - 1)] {
                if !log.written_pages.contains(&page) {
                    log.written_pages.push(page);
                }
            }
            true
        })?;
        Ok(UnicornOracle { uc, sctlr })
    }

    /// Writes bytes into Unicorn's memory (ignoring guest permissions) and drops translations of them.
    pub fn write_memory(&mut self, address: u64, bytes: &[u8]) -> Result<(), OracleError> {
        self.uc.mem_write(address, bytes)?;
        self.uc.ctl_remove_cache(address, address + bytes.len() as u64)?;
        Ok(())
    }

    pub fn read_memory(&self, address: u64, buf: &mut [u8]) -> Result<(), OracleError> {
        self.uc.mem_read(address, buf)?;
        Ok(())
    }

    /// Runs at most `count` instructions from `state`; returns the stop and the pages written.
    pub fn run(&mut self, state: &mut CpuState, count: usize) -> Result<(OracleStop, Vec<u64>), OracleError> {
        load_state(&mut self.uc, &self.sctlr, state)?;
        self.uc.emu_start(CLREX_PAGE, CLREX_PAGE + 4, 0, 0)?;
        *self.uc.get_data_mut() = Log::default();
        let mut result = self.uc.emu_start(state.pc, u64::MAX, 0, count);
        // WFI and WFE make Unicorn leave its loop as if the run were over; carry on with what is left.
        loop {
            let log = self.uc.get_data();
            let started = log.started as usize;
            if result.is_err() || log.stop.interrupt.is_some() || log.stop.fault.is_some() || started >= count {
                break;
            }
            let pc = self.uc.pc_read()?;
            result = self.uc.emu_start(pc, u64::MAX, 0, count - started);
        }
        store_state(&self.uc, state)?;
        let log = std::mem::take(self.uc.get_data_mut());
        let stop = match (log.stop.interrupt, log.stop.fault, result) {
            // Unicorn fetches the instruction after the last one it counts before it stops: a fetch fault there
            // is not part of the run.
            (None, Some((Access::Execute, address)), _) if log.started == count as u64 && address == state.pc => {
                OracleStop::Completed
            }
            (Some(EXCP_SWI), _, _) => OracleStop::Svc,
            (Some(EXCP_BKPT), _, _) => OracleStop::Brk,
            (Some(EXCP_UDEF), _, _) => OracleStop::Undefined,
            (Some(EXCP_DATA_ABORT), _, _) => OracleStop::DataAbort,
            (Some(other), _, _) => OracleStop::Other(other),
            (None, Some((access, address)), _) => OracleStop::Fault { access, address },
            (None, None, Ok(())) => OracleStop::Completed,
            (None, None, Err(error)) => OracleStop::Other(1000 + error as u32),
        };
        Ok((stop, log.written_pages))
    }
}

/// A Unicorn A64 `max` CPU configured as the EL0 environment Horizon gives a program, with hooks that record the
/// first exception and the first invalid memory access of a run and stop it. Also returns the SCTLR_EL1 to write
/// after every PSTATE change (see `load_state`).
pub(crate) fn new_el0_unicorn<D: HasStopLog + 'static>(
    data: D,
) -> Result<(Unicorn<'static, D>, RegisterARM64CP), OracleError> {
    let mut uc = Unicorn::new_with_data(Arch::ARM64, Mode::ARM, data)?;
    uc.ctl_set_cpu_model(Arm64CpuModel::MAX as i32)?;
    uc.add_intr_hook(|uc, number| {
        uc.get_data_mut().stop_log().interrupt = Some(number);
        let _ = uc.emu_stop();
    })?;
    uc.add_mem_hook(HookType::MEM_INVALID, 1, 0, |uc, kind, address, _size, _value| {
        let access = match kind {
            MemType::WRITE_UNMAPPED | MemType::WRITE_PROT => Access::Write,
            MemType::FETCH_UNMAPPED | MemType::FETCH_PROT => Access::Execute,
            _ => Access::Read,
        };
        uc.get_data_mut().stop_log().fault.get_or_insert((access, address));
        false
    })?;
    let sctlr = configure_el0(&mut uc)?;
    Ok((uc, sctlr))
}

/// Configures Unicorn's system registers as Horizon sets them for EL0; returns SCTLR_EL1.
fn configure_el0<D>(uc: &mut Unicorn<'static, D>) -> Result<RegisterARM64CP, OracleError> {
    let mut sctlr = RegisterARM64CP::new().op0(3).op1(0).crn(1).crm(0).op2(0);
    uc.reg_read_arm64_coproc(&mut sctlr)?;
    sctlr.val = (sctlr.val | SCTLR_UCI | SCTLR_NTWE | SCTLR_NTWI | SCTLR_UCT | SCTLR_DZE)
        & !(1 << 31 | 1 << 30 | 1 << 27 | 1 << 13 | 1);
    uc.reg_write(RegisterARM64::CPACR_EL1, CPACR_FPEN)?;
    let mut scr = scr_el3();
    uc.reg_read_arm64_coproc(&mut scr)?;
    uc.reg_write_arm64_coproc(&scr.val(scr.val | SCR_API))?;
    // CNTKCTL_EL1.EL0VCTEN and EL0PCTEN: EL0 reads the counters and CNTFRQ_EL0, as Horizon allows.
    uc.reg_write_arm64_coproc(&RegisterARM64CP::new().op0(3).op1(0).crn(14).crm(1).op2(0).val(0b11))?;
    Ok(sctlr)
}

/// SCR_EL3's encoding.
fn scr_el3() -> RegisterARM64CP {
    RegisterARM64CP::new().op0(3).op1(6).crn(1).crm(1).op2(0)
}

/// Loads a thread's state into Unicorn, at EL0.
pub(crate) fn load_state<D>(
    uc: &mut Unicorn<'static, D>,
    sctlr: &RegisterARM64CP,
    state: &CpuState,
) -> Result<(), OracleError> {
    // EL0t first (with PSTATE.SSBS in bit 12, as SPSR holds it), so that SP names SP_EL0; then SCTLR_EL1, which
    // makes Unicorn notice the new EL (it rebuilds its cached translation flags only when a system register is
    // written). QEMU 5.0 has no FEAT_SSBS: it keeps the bit, and none of its instructions changes it.
    uc.reg_write(RegisterARM64::PSTATE, u64::from(state.ssbs & PSTATE_SSBS))?;
    uc.reg_write_arm64_coproc(sctlr)?;
    for (register, value) in X_REGISTERS.iter().zip(state.x) {
        uc.reg_write(*register, value)?;
    }
    for (register, value) in Q_REGISTERS.iter().zip(state.v) {
        uc.reg_write_long(*register, &value.to_le_bytes())?;
    }
    uc.reg_write(RegisterARM64::SP, state.sp)?;
    uc.reg_write(RegisterARM64::PC, state.pc)?;
    uc.reg_write(RegisterARM64::NZCV, u64::from(state.nzcv))?;
    uc.reg_write(RegisterARM64::FPCR, u64::from(state.fpcr))?;
    uc.reg_write(RegisterARM64::FPSR, u64::from(state.fpsr))?;
    uc.reg_write(RegisterARM64::TPIDR_EL0, state.tpidr_el0)?;
    uc.reg_write(RegisterARM64::TPIDRRO_EL0, state.tpidrro_el0)?;
    Ok(())
}

/// Reads the registers a run may change back from Unicorn.
pub(crate) fn store_state<D>(uc: &Unicorn<'static, D>, state: &mut CpuState) -> Result<(), OracleError> {
    for (slot, register) in state.x.iter_mut().zip(X_REGISTERS) {
        *slot = uc.reg_read(register)?;
    }
    for (slot, register) in state.v.iter_mut().zip(Q_REGISTERS) {
        let bytes = uc.reg_read_long(register)?;
        let value: [u8; 16] = bytes.get(..16).and_then(|b| b.try_into().ok()).ok_or(OracleError(uc_error::ARG))?;
        *slot = u128::from_le_bytes(value);
    }
    state.sp = uc.reg_read(RegisterARM64::SP)?;
    state.pc = uc.reg_read(RegisterARM64::PC)?;
    state.nzcv = uc.reg_read(RegisterARM64::NZCV)? as u32;
    state.ssbs = uc.reg_read(RegisterARM64::PSTATE)? as u32 & PSTATE_SSBS;
    state.fpcr = uc.reg_read(RegisterARM64::FPCR)? as u32;
    state.fpsr = uc.reg_read(RegisterARM64::FPSR)? as u32;
    state.tpidr_el0 = uc.reg_read(RegisterARM64::TPIDR_EL0)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use tandem_reference::Interpreter;
    use tandem_reference::engine::{Engine, Exit, GuestClock};
    use tandem_reference::memory::{GuestMemory, Perm};
    use tandem_reference::sysreg::{CpuIdentity, PointerAuthKeys};

    const CODE: u64 = 0x1000_0000;
    /// `pacga x0, x1, x2` and `pacga x3, x4, sp`.
    const PACGA: [u32; 2] = [0x9ac2_3020, 0x9adf_3083];
    // SCR_EL3.NS and RW, HCR_EL2.RW and API.
    const SCR_NS: u64 = 1;
    const SCR_RW: u64 = 1 << 10;
    const HCR_RW: u64 = 1 << 31;
    const HCR_API: u64 = 1 << 41;

    /// PACGA, that is ComputePAC, against QEMU's, with random keys and operands. The suite cannot ask: in the Secure
    /// state its oracle runs in, QEMU 5.0 traps PACGA to EL2 (the ledger's `oracle-pacga-trapped-to-el2`). This
    /// Unicorn runs Non-secure with EL2 and EL1 in AArch64 and HCR_EL2.API set, where QEMU computes the code; the
    /// suite cannot run so, as QEMU then takes an Address size fault for every address above PAMax (the checks of
    /// an MMU-off EL1&0 regime) where the reference reports a translation fault.
    #[test]
    fn pacga_matches_qemu_in_non_secure_state() {
        let (mut uc, sctlr) = new_el0_unicorn(Log::default()).unwrap();
        uc.mem_map(CODE, PAGE, Prot::READ | Prot::EXEC).unwrap();
        let code: Vec<u8> = PACGA.iter().flat_map(|w| w.to_le_bytes()).collect();
        uc.mem_write(CODE, &code).unwrap();
        let mut scr = scr_el3();
        uc.reg_read_arm64_coproc(&mut scr).unwrap();
        uc.reg_write_arm64_coproc(&scr.val(scr.val | SCR_NS | SCR_RW)).unwrap();
        let mut hcr = RegisterARM64CP::new().op0(3).op1(4).crn(1).crm(1).op2(0);
        uc.reg_read_arm64_coproc(&mut hcr).unwrap();
        uc.reg_write_arm64_coproc(&hcr.val(hcr.val | HCR_RW | HCR_API)).unwrap();
        let mut memory = GuestMemory::new().unwrap();
        memory.map(CODE, PAGE, Perm::RX).unwrap();
        memory.write_privileged(CODE, &code).unwrap();

        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x9ac2_3020);
        for case in 0..400 {
            let apga: u128 = if case == 0 { 0 } else { rng.r#gen() };
            // APGAKeyLo_EL1, APGAKeyHi_EL1.
            uc.reg_write_arm64_coproc(&RegisterARM64CP::new().op0(3).op1(0).crn(2).crm(3).op2(0).val(apga as u64))
                .unwrap();
            uc.reg_write_arm64_coproc(
                &RegisterARM64CP::new().op0(3).op1(0).crn(2).crm(3).op2(1).val((apga >> 64) as u64),
            )
            .unwrap();
            let mut state = CpuState { pc: CODE + 4 * (case % 2), ..CpuState::default() };
            for x in &mut state.x[..5] {
                *x = rng.r#gen();
            }
            state.sp = rng.r#gen();
            let mut oracle = state.clone();
            load_state(&mut uc, &sctlr, &oracle).unwrap();
            uc.emu_start(oracle.pc, u64::MAX, 0, 1).unwrap();
            store_state(&uc, &mut oracle).unwrap();
            assert_eq!(uc.get_data().stop.interrupt, None, "QEMU trapped PACGA");

            let mut interpreter = Interpreter::new(CpuIdentity::CORTEX_A78C, PointerAuthKeys { apga });
            let run = interpreter.run(&mut state, &memory, 1, GuestClock::default());
            assert_eq!(run.exit, Exit::BudgetSpent);
            assert_eq!(state, oracle, "key {apga:#034x}, {:#010x}", PACGA[case as usize % 2]);
        }
    }
}
