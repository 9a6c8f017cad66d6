//! Unicorn as a whole-program `Engine`, sharing Tandem's guest memory (no copies): the baseline `tandem bench`
//! measures the reference against, and a second opinion on whole test programs.
//!
//! Unlike Tandem's engines it cannot stop after exactly `budget` instructions: it counts whole translation blocks
//! and stops at the first block boundary at or past the budget, so a quantum may overrun by one block. SVCs end
//! blocks, so the count is exact where the kernel looks at it. Never use it where exact budgets matter (lockstep).

use crate::unicorn::{HasStopLog, OracleError, StopLog, load_state, new_el0_unicorn, store_state};
use tandem_reference::engine::{Engine, Exit, GuestClock, RunResult, UndefinedReason};
use tandem_reference::memory::{FaultReason, GuestMemory, MemoryFault, Perm, Region};
use tandem_reference::state::CpuState;
use unicorn_engine::unicorn_const::Prot;
use unicorn_engine::{RegisterARM64CP, Unicorn};

#[derive(Default)]
struct Log {
    retired: u64,
    budget: u64,
    stop: StopLog,
}

impl HasStopLog for Log {
    fn stop_log(&mut self) -> &mut StopLog {
        &mut self.stop
    }
}

pub struct UnicornEngine {
    uc: Unicorn<'static, Log>,
    sctlr: RegisterARM64CP,
    /// The guest memory regions as last mapped into Unicorn.
    mapped: Vec<Region>,
}

impl UnicornEngine {
    pub fn new() -> Result<UnicornEngine, OracleError> {
        let (mut uc, sctlr) = new_el0_unicorn(Log::default())?;
        uc.add_block_hook(1, 0, |uc, _address, size| {
            let log = uc.get_data_mut();
            log.retired += u64::from(size / 4);
            if log.retired >= log.budget {
                let _ = uc.emu_stop();
            }
        })?;
        Ok(UnicornEngine { uc, sctlr, mapped: Vec::new() })
    }

    /// Maps the guest memory's host pages into Unicorn wherever the map changed since the last run.
    fn sync_mappings(&mut self, memory: &GuestMemory) -> Result<(), OracleError> {
        let regions = memory.regions();
        if regions == self.mapped {
            return Ok(());
        }
        for region in self.mapped.drain(..) {
            self.uc.mem_unmap(region.address, region.size)?;
        }
        for region in &regions {
            // SAFETY: `host_base() + address` is the start of `size` mapped, host-writable bytes of the guest memory
            // reservation, which outlives this engine's use of it within `run` (it is remapped at every run where
            // the map changed, before Unicorn touches it).
            unsafe {
                self.uc.mem_map_ptr(
                    region.address,
                    region.size,
                    protection(region.perm),
                    memory.host_base().add(region.address as usize).cast(),
                )?;
            }
        }
        self.mapped = regions;
        Ok(())
    }
}

impl Engine for UnicornEngine {
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, _clock: GuestClock) -> RunResult {
        let outcome = (|| -> Result<RunResult, OracleError> {
            self.sync_mappings(memory)?;
            load_state(&mut self.uc, &self.sctlr, cpu)?;
            *self.uc.get_data_mut() = Log { budget, ..Log::default() };
            let result = self.uc.emu_start(cpu.pc, u64::MAX, 0, 0);
            store_state(&self.uc, cpu)?;
            let log = std::mem::take(self.uc.get_data_mut());
            let exit = match (log.stop.interrupt, log.stop.fault, result) {
                (Some(2), _, _) => Exit::Svc(svc_immediate(memory, cpu.pc.wrapping_sub(4))),
                (Some(7), _, _) => Exit::Brk(0),
                (Some(_), _, _) => Exit::Undefined { word: 0, reason: UndefinedReason::Unallocated },
                (None, Some((access, address)), _) => {
                    Exit::MemoryFault(MemoryFault { address, access, reason: FaultReason::Unmapped })
                }
                (None, None, _) => Exit::BudgetSpent,
            };
            Ok(RunResult { exit, retired: log.retired })
        })();
        outcome.unwrap_or_else(|error| {
            tracing::error!(%error, "Unicorn failed");
            RunResult {
                exit: Exit::Undefined { word: 0, reason: UndefinedReason::NotImplemented("Unicorn error") },
                retired: 0,
            }
        })
    }

    fn invalidate(&mut self, address: u64, size: u64) {
        let _ = self.uc.ctl_remove_cache(address, address + size);
    }
}

fn svc_immediate(memory: &GuestMemory, address: u64) -> u16 {
    let mut word = [0u8; 4];
    let _ = memory.read_privileged(address, &mut word);
    (u32::from_le_bytes(word) >> 5) as u16
}

pub(crate) fn protection(perm: Perm) -> Prot {
    let mut prot = Prot::NONE;
    if perm.contains(Perm::READ) {
        prot |= Prot::READ;
    }
    if perm.contains(Perm::WRITE) {
        prot |= Prot::WRITE;
    }
    if perm.contains(Perm::EXECUTE) {
        prot |= Prot::EXEC;
    }
    prot
}
