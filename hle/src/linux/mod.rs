//! A small Linux user-mode personality: runs ordinary static (and, with a sysroot, dynamic) aarch64 Linux programs
//! on either CPU path, with their arguments, environment, standard streams and exit code passed through.
//!
//! Paths and file descriptors are the host's (these are the user's own programs), reached only through the system
//! calls the program makes. Time comes from retired instructions, as everywhere in Tandem, so runs repeat exactly;
//! sleeps move it on by what they ask for.
//! An unknown system call stops the program with its number, name and arguments (`enosys` turns that into ENOSYS).

mod exec;
mod files;
mod memory_map;
mod process;
mod relaunch;
mod signals;
mod syscalls;
mod threads;

pub use relaunch::ExecState;
pub use signals::end_by_signal;

use crate::loader::LoadError;
use crate::report::{StopReason, StopReport};
use files::FileTable;
use memory_map::MemoryMap;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tandem_reference::engine::{Engine, Exit, GuestClock};
use tandem_reference::memory::{GuestMemory, MapError};
use tandem_reference::state::CpuState;

/// Instructions between two looks at the process while it has one thread (only the instruction limit needs it).
const QUANTUM: u64 = 1_000_000;

/// How to start a Linux program.
#[derive(Clone, Debug, Default)]
pub struct LinuxOptions {
    /// argv, program name first.
    pub args: Vec<String>,
    /// The environment as NAME=value strings.
    pub env: Vec<String>,
    /// Where the ELF interpreter (PT_INTERP) and its libraries are found, for dynamically linked programs.
    pub sysroot: Option<PathBuf>,
    /// Answer unknown system calls with ENOSYS instead of stopping.
    pub enosys: bool,
    /// Stop after this many guest instructions.
    pub max_instructions: Option<u64>,
    /// The Tandem arguments that run a program as this one runs (`linux --cpu ...`, the program's path to
    /// follow), for execve; empty where a program cannot exec another (lockstep, benchmarks).
    pub relaunch: Vec<String>,
}

/// How a run ended.
#[derive(Debug)]
pub enum LinuxOutcome {
    /// exit or exit_group, with the status (0-255).
    Exited(i32),
    Stopped(Box<StopReport>),
}

#[derive(Debug, thiserror::Error)]
pub enum LinuxError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("setting up the address space: {0}")]
    Memory(#[from] MapError),
    #[error("{program} needs the ELF interpreter {interpreter}; give the folder that holds it with --sysroot")]
    NeedsSysroot { program: String, interpreter: String },
    #[error("{0}")]
    Layout(String),
}

/// A mapped ELF file, for reports (module and offset of an address).
#[derive(Clone, Debug)]
struct MappedImage {
    name: String,
    base: u64,
    size: u64,
}

pub struct LinuxProcess {
    pub memory: GuestMemory,
    pub cpu: CpuState,
    map: MemoryMap,
    files: FileTable,
    images: Vec<MappedImage>,
    /// The program's own path, for /proc/self/exe.
    executable: PathBuf,
    options: LinuxOptions,
    /// Instructions retired: the CPU time the program has used.
    retired: u64,
    /// Guest time that sleeps and timed-out waits skipped, in instructions' worth: the clocks read `retired +
    /// slept`, so a program that sleeps sees its time pass, and runs still repeat exactly.
    slept: u64,
    /// State of the deterministic getrandom stream.
    random_state: u64,
    /// rt_sigprocmask's mask and rt_sigaction's handlers, recorded so that programs read back what they set.
    signal_mask: u64,
    signal_actions: std::collections::BTreeMap<u64, [u8; 32]>,
    /// Signals raised and not yet delivered (bit n - 1 for signal n), with what each one's siginfo says.
    pending_signals: u64,
    signal_info: std::collections::BTreeMap<u64, signals::Raised>,
    /// The running thread's alternate signal stack.
    alt_stack: signals::AltStack,
    /// The page holding the return to rt_sigreturn of handlers without a restorer, once one has run.
    sigreturn_page: Option<u64>,
    /// The guest's process id and its parent's: fixed for the first process, the host's for a forked child.
    pid: u64,
    parent_pid: u64,
    /// The host pid of the program's first process (whose guest pid is fixed), for calls that pass pids through.
    first_host_pid: u32,
    /// Whether this is the program's first process (not one it forked), which reports the run.
    first_process: bool,
    /// Whether it has forked: its sleeps then take host time too.
    has_forked: bool,
    /// Children forked and not yet waited for (host processes; the guest sees their host pids).
    children: std::collections::BTreeSet<i32>,
    /// In a vfork child: the pipe end whose closing (at exec or exit) lets the parent go on.
    vfork_done: Option<std::os::fd::OwnedFd>,
    /// The running thread's identity and the threads that wait their turn.
    threads: threads::Threads,
}

impl LinuxProcess {
    /// Loads `path` (and its interpreter) and builds the initial stack as Linux's exec does.
    pub fn new(path: &Path, options: LinuxOptions) -> Result<LinuxProcess, LinuxError> {
        let mut memory = GuestMemory::new()?;
        let mut map = MemoryMap::default();
        let loaded = exec::load(path, &options, &mut memory, &mut map)?;
        Ok(LinuxProcess {
            memory,
            cpu: loaded.cpu,
            map,
            files: FileTable::new(),
            images: loaded.images,
            executable: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            options,
            retired: 0,
            slept: 0,
            random_state: 0x7a4d_e11a_5eed,
            signal_mask: 0,
            signal_actions: Default::default(),
            pending_signals: 0,
            signal_info: Default::default(),
            alt_stack: Default::default(),
            sigreturn_page: None,
            pid: syscalls::FIRST_PID,
            parent_pid: syscalls::FIRST_PID - 1,
            first_host_pid: std::process::id(),
            first_process: true,
            has_forked: false,
            children: Default::default(),
            vfork_done: None,
            threads: threads::Threads::new(syscalls::FIRST_PID),
        })
    }

    /// Where the loaded ELF files (the program and its interpreter) start: where their code may begin.
    pub fn image_bases(&self) -> Vec<u64> {
        self.images.iter().map(|image| image.base).collect()
    }

    /// Takes over the process state an execve carried from the Tandem process that ran the program before:
    /// the process ids, the clocks and the descriptors that survived.
    pub fn take_exec_state(&mut self, state: &ExecState) {
        (self.pid, self.parent_pid, self.slept) = (state.pid, state.parent_pid, state.clock);
        self.threads.tid = state.pid;
        (self.first_host_pid, self.first_process, self.has_forked) =
            (state.first_host_pid, state.first_process, state.has_forked);
        self.take_signals_across_exec(state);
        self.files = FileTable::inherited(&state.fds);
    }

    /// Whether this is a child the guest forked (a host process of its own): it ends with the guest's exit,
    /// reporting nothing for the whole run.
    pub fn is_forked_child(&self) -> bool {
        !self.first_process
    }

    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Runs until the program exits or stops.
    pub fn run(&mut self, engine: &mut dyn Engine) -> LinuxOutcome {
        self.adopt_host_signal_actions();
        loop {
            let budget = match self.options.max_instructions {
                Some(limit) if self.retired >= limit => return self.stop(StopReason::InstructionLimit(limit), None),
                Some(limit) => self.threads.budget(QUANTUM.min(limit - self.retired)),
                None => self.threads.budget(QUANTUM),
            };
            if let Some(reason) = self.deliver_pending() {
                return self.stop(reason, None);
            }
            let clock = GuestClock { instructions_before: self.retired.saturating_add(self.slept) };
            let result = engine.run(&mut self.cpu, &self.memory, budget, clock);
            self.retired += result.retired;
            match result.exit {
                Exit::BudgetSpent => {}
                // Linux ignores the SVC immediate.
                Exit::Svc(_) => match self.syscall(engine) {
                    syscalls::Flow::Continue => {}
                    syscalls::Flow::Exit(status) => return LinuxOutcome::Exited(status),
                    syscalls::Flow::Stop(reason) => {
                        // Report the SVC instruction itself.
                        self.cpu.pc -= 4;
                        let word = self.word_at_pc();
                        return self.stop(reason, word);
                    }
                },
                Exit::Brk(immediate) => return self.stop(StopReason::Brk(immediate), self.word_at_pc()),
                Exit::Undefined { word, reason } => return self.stop(StopReason::Undefined(reason), Some(word)),
                Exit::MemoryFault(fault) => return self.stop(StopReason::MemoryFault(fault), self.word_at_pc()),
                Exit::EngineStopped => return self.stop(StopReason::EngineStopped, self.word_at_pc()),
            }
            if let Err(reason) = self.next_turn(result.retired) {
                return self.stop(reason, self.word_at_pc());
            }
        }
    }

    fn word_at_pc(&self) -> Option<u32> {
        let mut word = [0; 4];
        self.memory.read_privileged(self.cpu.pc, &mut word).ok().map(|_| u32::from_le_bytes(word))
    }

    fn stop(&self, reason: StopReason, word: Option<u32>) -> LinuxOutcome {
        let pc = self.cpu.pc;
        let location = self
            .images
            .iter()
            .find(|image| (image.base..image.base + image.size).contains(&pc))
            .map(|image| (image.name.clone(), pc - image.base));
        LinuxOutcome::Stopped(Box::new(StopReport { reason, pc, word, cpu: self.cpu.clone(), location, thread: None }))
    }

    /// SHA-256 over the CPU state and all mapped guest memory.
    pub fn state_hash(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        let mut sink = |bytes: &[u8]| hasher.update(bytes);
        self.cpu.hash_into(&mut sink);
        self.threads.hash_waiting(&mut sink);
        self.memory.hash_into(&mut sink);
        hasher.finalize().into()
    }
}
