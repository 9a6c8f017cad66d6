//! The Horizon kernel, minimum: one process with one thread, its address space, and the SVCs a single-threaded
//! program needs. It runs the thread on whichever `Engine` it is given, a quantum at a time, and never knows which
//! CPU path that is.

pub mod address_space;
mod svc;

pub use crate::report::{StopReason, StopReport};
pub use svc::svc_name;

use crate::loader::{LoadError, Module};
use crate::placement::map_module;
use crate::program::Program;
use address_space::{CODE_BASE, MemoryMap, MemoryState, STACK_REGION, TLS_BASE};
use sha2::{Digest, Sha256};
use tandem_reference::engine::{Engine, Exit, GuestClock};
use tandem_reference::memory::{GuestMemory, MapError, PAGE_SIZE, Perm};
use tandem_reference::state::CpuState;

/// Instructions a thread runs before the kernel looks at it again.
pub const QUANTUM: u64 = 100_000;
/// The main thread's stack when no NPDM says otherwise.
pub const DEFAULT_STACK_SIZE: u64 = 0x10_0000;
/// The handle value the main thread starts with in X1.
pub const MAIN_THREAD_HANDLE: u64 = 0x8001;

/// A module as placed in the address space.
#[derive(Clone, Debug)]
pub struct LoadedModule {
    pub name: String,
    pub base: u64,
    pub size: u64,
    pub build_id: [u8; 32],
}

pub struct Thread {
    pub cpu: CpuState,
    pub tls: u64,
}

/// Where guest text (OutputDebugString) goes.
pub type OutputSink = Box<dyn FnMut(&[u8])>;

/// How a run ended.
#[derive(Debug)]
pub enum RunOutcome {
    /// The program called ExitProcess.
    Exited,
    /// The program stopped for a reason that needs a person's attention.
    Stopped(Box<StopReport>),
}

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("cannot place module {module} at {base:#x}: {error}")]
    Placement { module: String, base: u64, error: MapError },
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("setting up the address space: {0}")]
    Memory(#[from] MapError),
    #[error("module {module} is linked at {base:#x}, outside the 39-bit address space")]
    OutOfAddressSpace { module: String, base: u64 },
}

pub struct Kernel {
    pub memory: GuestMemory,
    map: MemoryMap,
    pub modules: Vec<LoadedModule>,
    pub thread: Thread,
    heap_size: u64,
    allowed_svcs: Option<crate::loader::npdm::SvcSet>,
    program_id: u64,
    /// Instructions retired by the whole process: guest time.
    retired: u64,
    max_instructions: Option<u64>,
    output: OutputSink,
}

impl Kernel {
    /// Creates the process: places the modules as Horizon's loader does (one after another from the code base,
    /// execution at the first), maps the main thread's stack and thread-local page.
    pub fn new(program: &Program, output: OutputSink) -> Result<Kernel, KernelError> {
        let mut memory = GuestMemory::new()?;
        let mut map = MemoryMap::default();
        let mut modules = Vec::new();
        let mut next_base = CODE_BASE;
        for module in &program.modules {
            let base = match module.link_base {
                Some(base) if base < CODE_BASE || base >= address_space::ASLR_REGION.end() => {
                    return Err(KernelError::OutOfAddressSpace { module: module.name.clone(), base });
                }
                Some(base) => base,
                None => next_base,
            };
            place_module(&mut memory, &mut map, module, base)?;
            next_base = base + module.image_size();
            modules.push(LoadedModule {
                name: module.name.clone(),
                base,
                size: module.image_size(),
                build_id: module.build_id,
            });
        }

        let stack_size = program.npdm.as_ref().map_or(DEFAULT_STACK_SIZE, |npdm| {
            u64::from(npdm.main_thread_stack_size).next_multiple_of(PAGE_SIZE).max(PAGE_SIZE)
        });
        let stack_base = STACK_REGION.base;
        memory.map(stack_base, stack_size, Perm::RW)?;
        map.insert(stack_base, stack_size, MemoryState::Stack, Perm::RW);
        memory.map(TLS_BASE, PAGE_SIZE, Perm::RW)?;
        map.insert(TLS_BASE, PAGE_SIZE, MemoryState::ThreadLocal, Perm::RW);

        let mut cpu = CpuState::default();
        let entry =
            modules.first().map_or(CODE_BASE, |m| m.base) + program.modules.first().map_or(0, Module::entry_offset);
        cpu.pc = entry;
        cpu.sp = stack_base + stack_size;
        cpu.x[1] = MAIN_THREAD_HANDLE;
        cpu.tpidrro_el0 = TLS_BASE;
        tracing::debug!(entry = format_args!("{entry:#x}"), modules = modules.len(), "process created");

        Ok(Kernel {
            memory,
            map,
            modules,
            thread: Thread { cpu, tls: TLS_BASE },
            heap_size: 0,
            allowed_svcs: program.npdm.as_ref().map(|npdm| npdm.aci.kernel.allowed_svcs),
            program_id: program.npdm.as_ref().map_or(0, |npdm| npdm.aci.program_id),
            retired: 0,
            max_instructions: None,
            output,
        })
    }

    /// Stops the run (with a report) once this many instructions have retired.
    pub fn set_max_instructions(&mut self, limit: Option<u64>) {
        self.max_instructions = limit;
    }

    /// Instructions the process has retired so far.
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Runs the process on `engine` until it exits or stops.
    pub fn run(&mut self, engine: &mut dyn Engine) -> RunOutcome {
        loop {
            let budget = match self.max_instructions {
                Some(limit) if self.retired >= limit => {
                    return self.stop(StopReason::InstructionLimit(limit), None);
                }
                Some(limit) => QUANTUM.min(limit - self.retired),
                None => QUANTUM,
            };
            let clock = GuestClock { instructions_before: self.retired };
            let result = engine.run(&mut self.thread.cpu, &self.memory, budget, clock);
            self.retired += result.retired;
            match result.exit {
                Exit::BudgetSpent => {}
                Exit::Svc(number) => {
                    if let Some(outcome) = self.dispatch_svc(number) {
                        return outcome;
                    }
                }
                Exit::Brk(immediate) => return self.stop(StopReason::Brk(immediate), self.word_at_pc()),
                Exit::Undefined { word, reason } => return self.stop(StopReason::Undefined(reason), Some(word)),
                Exit::MemoryFault(fault) => return self.stop(StopReason::MemoryFault(fault), self.word_at_pc()),
            }
        }
    }

    fn word_at_pc(&self) -> Option<u32> {
        let mut word = [0; 4];
        self.memory.read_privileged(self.thread.cpu.pc, &mut word).ok().map(|_| u32::from_le_bytes(word))
    }

    fn stop(&self, reason: StopReason, word: Option<u32>) -> RunOutcome {
        let pc = self.thread.cpu.pc;
        let location = self.locate(pc);
        RunOutcome::Stopped(Box::new(StopReport { reason, pc, word, cpu: self.thread.cpu.clone(), location }))
    }

    /// The module and offset an address belongs to.
    pub fn locate(&self, address: u64) -> Option<(String, u64)> {
        self.modules
            .iter()
            .find(|m| (m.base..m.base + m.size).contains(&address))
            .map(|m| (m.name.clone(), address - m.base))
    }

    /// SHA-256 over every thread's CPU state and all mapped guest memory, for comparing runs.
    pub fn state_hash(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        let mut sink = |bytes: &[u8]| hasher.update(bytes);
        self.thread.cpu.hash_into(&mut sink);
        self.memory.hash_into(&mut sink);
        hasher.finalize().into()
    }
}

/// Maps a module at `base` with its relocations applied, recording the memory states Horizon's loader sets.
fn place_module(memory: &mut GuestMemory, map: &mut MemoryMap, module: &Module, base: u64) -> Result<(), KernelError> {
    let mut image = module.image();
    if !module.relocations.is_empty() {
        module.relocate(&mut image, base)?;
    }
    let pages = map_module(memory, module, &image, base).map_err(|error| KernelError::Placement {
        module: module.name.clone(),
        base,
        error,
    })?;
    for (address, perm) in pages {
        let state = if perm.contains(Perm::WRITE) { MemoryState::CodeData } else { MemoryState::Code };
        map.insert(address, PAGE_SIZE, state, perm);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::npdm;
    use tandem_reference::Interpreter;

    fn hello_exefs(npdm: Option<npdm::Npdm>) -> Program {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin/hello.nro");
        let mut program = Program::open(&path, None).expect("the test program loads");
        program.npdm = npdm;
        program
    }

    /// Descriptor "EnableSystemCalls", index 0 (SVCs 0x00-0x17), allowing exactly SetHeapSize and ExitProcess.
    const ONLY_HEAP_AND_EXIT: u32 = 0b1111 | (1 << 0x01 | 1 << 0x07) << 5;

    #[test]
    fn svcs_outside_the_npdm_list_stop_the_program() {
        let npdm = npdm::read("main.npdm", &npdm::tests::build(&[], &[ONLY_HEAP_AND_EXIT])).unwrap();
        let mut kernel = Kernel::new(&hello_exefs(Some(npdm)), Box::new(|_| {})).unwrap();
        match kernel.run(&mut Interpreter::default()) {
            RunOutcome::Stopped(report) => {
                // hello's first SVC is OutputDebugString (0x27); the report points at the SVC instruction itself.
                assert_eq!(report.reason, StopReason::SvcNotAllowed(0x27));
                assert_eq!(report.word.map(|w| w & 0xffe0_001f), Some(0xd400_0001), "an SVC instruction");
            }
            RunOutcome::Exited => panic!("the program ran an SVC its NPDM does not allow"),
        }
    }

    #[test]
    fn the_main_thread_gets_the_npdm_stack_size() {
        let npdm = npdm::read("main.npdm", &npdm::tests::build(&[], &[])).unwrap();
        let stack_size = u64::from(npdm.main_thread_stack_size);
        let kernel = Kernel::new(&hello_exefs(Some(npdm)), Box::new(|_| {})).unwrap();
        assert_eq!(kernel.thread.cpu.sp, STACK_REGION.base + stack_size);
        let info = kernel.map.query(STACK_REGION.base);
        assert_eq!((info.base, info.size, info.state), (STACK_REGION.base, stack_size, MemoryState::Stack));
    }

    #[test]
    fn modules_are_placed_from_the_code_base_with_segment_permissions() {
        let kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
        let module = &kernel.modules[0];
        assert_eq!(module.base, CODE_BASE);
        assert_eq!(kernel.thread.cpu.pc, CODE_BASE);
        assert_eq!(kernel.memory.perm_at(CODE_BASE), Some(Perm::RX));
        assert_eq!(kernel.map.query(CODE_BASE).state, MemoryState::Code);
        let data = kernel.memory.regions().into_iter().find(|r| r.perm == Perm::RW && r.address < STACK_REGION.base);
        assert!(data.is_some_and(|r| kernel.map.query(r.address).state == MemoryState::CodeData));
    }
}
