//! What a user sees when a guest stops: why, where (address, module and offset), the instruction and the
//! registers, and what to do next.

use crate::kernel::svc_name;
use std::fmt;
use tandem_reference::disasm::disassemble;
use tandem_reference::engine::UndefinedReason;
use tandem_reference::memory::MemoryFault;
use tandem_reference::state::CpuState;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The program called Break (a panic or abort in the guest).
    Break {
        reason: u64,
        arg: u64,
        size: u64,
    },
    /// A BRK instruction.
    Brk(u16),
    Undefined(UndefinedReason),
    MemoryFault(MemoryFault),
    /// An SVC the kernel does not implement yet.
    UnhandledSvc(u16),
    /// An SVC the program's NPDM does not allow.
    SvcNotAllowed(u16),
    /// `--max-instructions` was reached.
    InstructionLimit(u64),
    /// The engine stopped the run (`tandem diff lockstep` found the CPU paths disagreeing; it prints why).
    EngineStopped,
    /// A Linux system call the personality does not implement.
    UnknownSyscall {
        number: u64,
        name: &'static str,
        args: [u64; 6],
    },
    /// A Linux program sent itself a signal whose default action ends it (abort() raises SIGABRT).
    Signal {
        number: u64,
    },
    /// A Linux program waits for something that can never happen (every thread waits on a futex or a signal that nothing can bring).
    Deadlock(&'static str),
    /// Every Horizon thread waits and no timer is pending: what each one waits for.
    AllThreadsBlocked(Vec<String>),
    /// Something Horizon allows that Tandem cannot do yet (named in the text).
    Unsupported(&'static str),
    /// The host refused memory the guest's request needs (a shared memory file or mapping).
    HostMemory(tandem_reference::memory::MapError),
    /// A service command (or a whole service) Tandem does not implement yet.
    UnimplementedService {
        interface: &'static str,
        command_id: u32,
        what: Option<String>,
    },
    /// The GPU stopped a channel: a method Tandem does not implement yet, or a malformed command stream.
    Gpu(tandem_gpu::front_end::GpuError),
}

/// A stopped program: everything needed to find the instruction that stopped it.
#[derive(Debug, Clone)]
pub struct StopReport {
    pub reason: StopReason,
    pub pc: u64,
    /// The instruction word at `pc`, when it could be read.
    pub word: Option<u32>,
    pub cpu: CpuState,
    /// Module name and offset of `pc`.
    pub location: Option<(String, u64)>,
    /// The thread whose registers these are, when the personality has thread ids.
    pub thread: Option<u64>,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Break { reason, arg, size } => {
                write!(f, "the program called Break (reason {reason:#x}, argument {arg:#x}, size {size:#x})")
            }
            StopReason::Brk(immediate) => write!(f, "breakpoint instruction BRK #{immediate:#x}"),
            StopReason::Undefined(UndefinedReason::Unallocated) => {
                write!(f, "undefined instruction (unallocated encoding)")
            }
            StopReason::Undefined(UndefinedReason::NotAtEl0) => {
                write!(f, "undefined instruction (the encoding exists but is not available to EL0 programs)")
            }
            StopReason::Undefined(UndefinedReason::NotImplemented(what)) => {
                write!(f, "instruction not implemented by Tandem yet: {what}")
            }
            StopReason::MemoryFault(fault) => write!(
                f,
                "memory fault: {:?} of {:#x} ({})",
                fault.access,
                fault.address,
                match fault.reason {
                    tandem_reference::memory::FaultReason::Unmapped => "nothing is mapped there",
                    tandem_reference::memory::FaultReason::Permission => "the page does not allow it",
                    tandem_reference::memory::FaultReason::Alignment => "misaligned for an access that must be aligned",
                }
            ),
            StopReason::UnhandledSvc(number) => {
                write!(f, "SVC {number:#x} ({}) is not implemented by Tandem's kernel yet", svc_name(*number))
            }
            StopReason::SvcNotAllowed(number) => {
                write!(f, "SVC {number:#x} ({}) is not in the program's NPDM allowed list", svc_name(*number))
            }
            StopReason::InstructionLimit(limit) => write!(f, "the instruction limit ({limit}) was reached"),
            StopReason::EngineStopped => write!(f, "the CPU engine stopped the run"),
            StopReason::UnknownSyscall { number, name, args } => write!(
                f,
                "Linux system call {number} ({name}) is not implemented by Tandem's Linux personality; arguments \
                 {:#x}, {:#x}, {:#x}, {:#x}, {:#x}, {:#x}",
                args[0], args[1], args[2], args[3], args[4], args[5]
            ),
            StopReason::Signal { number } => write!(f, "the program sent itself signal {number} (default action: end)"),
            StopReason::Deadlock(what) => write!(f, "deadlock: {what}"),
            StopReason::AllThreadsBlocked(threads) => {
                write!(f, "deadlock: every thread waits and no timer can wake one")?;
                for thread in threads {
                    write!(f, "\n    {thread}")?;
                }
                Ok(())
            }
            StopReason::Unsupported(what) => write!(f, "not supported by Tandem yet: {what}"),
            StopReason::HostMemory(error) => write!(f, "the host refused memory the program asked for: {error}"),
            StopReason::Gpu(error) => write!(f, "the GPU stopped: {error}"),
            StopReason::UnimplementedService { interface, command_id, what } => {
                write!(f, "service `{interface}` command {command_id} is not implemented by Tandem yet")?;
                match what {
                    Some(what) => write!(f, ": {what}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl StopReason {
    /// A hint for the person reading the report.
    fn next_step(&self) -> &'static str {
        match self {
            StopReason::Break { .. } => "the guest itself gave up; its debug output above usually says why",
            StopReason::Brk(_) => "the guest hit a breakpoint or a compiler trap (__builtin_trap)",
            StopReason::Undefined(UndefinedReason::NotImplemented(_))
            | StopReason::UnhandledSvc(_)
            | StopReason::UnimplementedService { .. }
            | StopReason::Unsupported(_) => {
                "this is a gap in Tandem, not in the program: please report it with this output"
            }
            StopReason::Undefined(_) | StopReason::MemoryFault(_) => {
                "rerun with --cpu reference to compare paths, or `tandem disasm` around the address to see the code"
            }
            StopReason::SvcNotAllowed(_) => "check the title's main.npdm; Horizon refuses this call too",
            StopReason::HostMemory(_) => "the host ran out of memory or file descriptors: free some and rerun",
            StopReason::InstructionLimit(_) => "raise --max-instructions, or check the program for an endless loop",
            StopReason::EngineStopped => "read the divergence report above it",
            StopReason::UnknownSyscall { .. } => {
                "a gap in Tandem, not in the program: please report it; --enosys answers unknown calls with ENOSYS"
            }
            StopReason::Signal { .. } => "the program ended itself; its output above usually says why",
            StopReason::Deadlock(_) => {
                "the program would hang here on Linux: its threads wait on each other (the registers are those of \
                 the thread that ran last, at its futex wait)"
            }
            StopReason::AllThreadsBlocked(_) => {
                "the threads above wait on each other (or on nothing); the registers are those of the first"
            }
            StopReason::Gpu(error) if error.is_unimplemented() => {
                "this is a gap in Tandem, not in the program: please report it with this output"
            }
            StopReason::Gpu(_) => {
                "the program's command stream is malformed at the address named (the GPU would fault the channel)"
            }
        }
    }
}

impl fmt::Display for StopReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "guest stopped: {}", self.reason)?;
        if let Some(thread) = self.thread {
            writeln!(f, "  thread {thread}")?;
        }
        write!(f, "  at {:#018x}", self.pc)?;
        match &self.location {
            Some((module, offset)) => writeln!(f, " ({module}+{offset:#x})")?,
            None => writeln!(f, " (outside every module)")?,
        }
        match self.word {
            Some(word) => writeln!(f, "  instruction {word:#010x}  {}", disassemble(word, self.pc).replace('\t', " "))?,
            None => writeln!(f, "  instruction: unreadable")?,
        }
        writeln!(f, "  registers:")?;
        for row in self.cpu.x.chunks(4).enumerate() {
            let (index, values) = row;
            write!(f, "   ")?;
            for (column, value) in values.iter().enumerate() {
                let name = format!("x{}", index * 4 + column);
                write!(f, " {name:>4} {value:#018x}")?;
            }
            writeln!(f)?;
        }
        let flags = self.cpu.flags();
        let flag = |on: bool, c: char| if on { c } else { '-' };
        writeln!(
            f,
            "      sp {:#018x}   pc {:#018x}   nzcv {}{}{}{}   tpidr_el0 {:#x}",
            self.cpu.sp,
            self.cpu.pc,
            flag(flags.n, 'N'),
            flag(flags.z, 'Z'),
            flag(flags.c, 'C'),
            flag(flags.v, 'V'),
            self.cpu.tpidr_el0
        )?;
        write!(f, "  next: {}", self.reason.next_step())
    }
}
