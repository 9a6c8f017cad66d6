//! The seam between the kernel and a CPU path: `Engine::run` and the `Exit` it returns.

use crate::memory::{GuestMemory, MemoryFault};
use crate::state::CpuState;

/// The architectural timer frequency guest code sees in CNTFRQ_EL0 (the Switch's 19.2 MHz).
pub const COUNTER_FREQUENCY_HZ: u64 = 19_200_000;

/// Guest time advances one counter tick per this many retired instructions (about 1 GHz of guest work per second).
/// Deterministic runs derive every clock from retired instructions through this one constant.
pub const INSTRUCTIONS_PER_TICK: u64 = 50;

/// Guest time at the start of a run: the number of instructions the whole machine had retired before it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct GuestClock {
    pub instructions_before: u64,
}

impl GuestClock {
    /// CNTVCT_EL0 after `retired` more instructions of this run.
    pub fn counter(self, retired: u64) -> u64 {
        (self.instructions_before + retired) / INSTRUCTIONS_PER_TICK
    }
}

/// Why an instruction was not executed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum UndefinedReason {
    /// No encoding of the architecture (or of the cores we model) has this word.
    Unallocated,
    /// The encoding exists but is UNDEFINED at EL0 (HVC, SMC, EL1 system registers, ...).
    NotAtEl0,
    /// The architecture defines it and a Cortex-A78C executes it, but Tandem does not implement it yet.
    NotImplemented(&'static str),
}

/// How a run ended. The CPU state's PC says where.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Exit {
    /// `SVC #imm` retired; PC is the instruction after it.
    Svc(u16),
    /// `BRK #imm`; PC is the BRK itself (it did not retire).
    Brk(u16),
    /// An instruction that was not executed; PC is that instruction.
    Undefined { word: u32, reason: UndefinedReason },
    /// A fetch, load or store the memory refused; PC is the instruction (nothing of it retired or was written).
    MemoryFault(MemoryFault),
    /// Exactly `budget` instructions retired.
    BudgetSpent,
    /// The engine ended the run on its own: a lockstep harness found the two CPU paths disagreeing (it keeps the
    /// report). PC is where the run stopped.
    EngineStopped,
}

/// What `Engine::run` returns: the exit and how many instructions retired (at most the budget).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RunResult {
    pub exit: Exit,
    pub retired: u64,
}

/// A CPU path. Both the reference interpreter and the fast path implement this, with identical results.
///
/// Invariant: `retired` counts retired guest instructions exactly; a run stops after at most `budget` of them.
/// That makes every run deterministic and lets two engines run in lockstep.
pub trait Engine {
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult;

    /// Drops whatever the engine derived from guest code in this range: for code written with privileged writes.
    /// Changes of mappings and permissions reach engines without it (`GuestMemory::layout_changes_since`).
    fn invalidate(&mut self, address: u64, size: u64);

    /// Whether the host process running this engine may fork (a Linux guest's fork or vfork), or why not.
    fn can_fork(&self) -> Result<(), &'static str> {
        Ok(())
    }

    /// Called in the child of such a fork, before its first run: the engine's threads did not come with it.
    fn forked(&mut self) {}
}
