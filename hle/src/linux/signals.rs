//! Signals, as Linux delivers them to an aarch64 program (arch/arm64/kernel/signal.c): the handler runs on a
//! frame pushed on the stack (`struct rt_sigframe`: a siginfo, then a ucontext whose sigcontext holds X0-X30, SP,
//! PC, PSTATE and an fpsimd record), with X0 the signal number, X1 and X2 the siginfo and the ucontext, X29 a
//! frame record and X30 the handler's `sa_restorer` (the C library's call of rt_sigreturn, which puts the frame's
//! state back; without SA_RESTORER, a page doing the same, as the vDSO's trampoline). Signals come from the program itself (kill, tkill, tgkill to its own process), from other
//! processes through the host (`FORWARDED`: a host handler notes them) and, once it has forked, as SIGCHLD when a
//! child ends. They are delivered before the guest runs on: after the system call that raised or unblocked
//! them, or at the next quantum.
//!
//! Not done: an alternate signal stack (sigaltstack reports none), queued real-time signals (a pending signal
//! is a bit), the sender's pid of a signal from another process, and restarting interrupted calls (none is
//! interrupted: the host's handlers restart them).

use super::LinuxProcess;
use super::syscalls::{Errno, Flow, SysResult};
use crate::report::StopReason;
use std::sync::atomic::{AtomicU64, Ordering};
use tandem_reference::memory::Perm;
use tandem_reference::state::{ExclusiveMonitor, PSTATE_SSBS};

/// siginfo's si_code for kill, and for tkill and tgkill.
pub const SI_USER: i32 = 0;
pub const SI_TKILL: i32 = -6;

const SIGKILL: u64 = 9;
const SIGSTOP: u64 = 19;
const SIGCHLD: u64 = 17;
const SIG_DFL: u64 = 0;
const SIG_IGN: u64 = 1;
const SA_ONSTACK: u64 = 0x0800_0000;
const SA_RESTORER: u64 = 0x0400_0000;
const SA_NODEFER: u64 = 0x4000_0000;
const SA_RESETHAND: u64 = 0x8000_0000;
/// Signals no mask blocks.
const UNBLOCKABLE: u64 = bit(SIGKILL) | bit(SIGSTOP);

/// struct rt_sigframe: siginfo (128 bytes), then the ucontext; the ucontext's fields by offset.
const SIGINFO_SIZE: u64 = 128;
const UC_SIGMASK: usize = 40;
const UC_MCONTEXT: usize = 176;
/// In the sigcontext: fault_address, regs[31], sp, pc, pstate, then the records (`__reserved`, 4096 bytes).
const SC_REGS: usize = 8;
const SC_SP: usize = 256;
const SC_PC: usize = 264;
const SC_PSTATE: usize = 272;
const SC_RESERVED: usize = 288;
const UCONTEXT_SIZE: usize = UC_MCONTEXT + SC_RESERVED + 4096;
const FRAME_SIZE: u64 = SIGINFO_SIZE + UCONTEXT_SIZE as u64;
/// The fpsimd record: a header (magic, size), FPSR, FPCR, then V0-V31 from 16 bytes in.
/// Where the ucontext's uc_stack lies (a stack_t: ss_sp, ss_flags, ss_size).
const UC_STACK: usize = 16;
/// sigaltstack's flags, and the least size it takes on arm64.
const SS_ONSTACK: u32 = 1;
const SS_DISABLE: u32 = 2;
const SS_AUTODISARM: u32 = 1 << 31;
const MINSIGSTKSZ: u64 = 5120;

const FPSIMD_MAGIC: u32 = 0x4650_8001;
const FPSIMD_SIZE: usize = 16 + 32 * 16;

const fn bit(signal: u64) -> u64 {
    1 << (signal - 1)
}

/// Signals other processes (or the terminal) may send that reach the guest through the host: where the guest
/// handles one, so does Tandem's process, noting it for the guest; where it ignores one, so does the host; by
/// default the host's default action ends Tandem as it would end the program. Fault signals, which the fast
/// path's memory accesses raise, SIGCHLD (noted once the program forks) and the C library's own real-time
/// signals are not among them.
const FORWARDED: [u64; 10] = [1, 2, 3, 10, 12, 13, 14, 15, 23, 28];
const SIGPIPE: u64 = 13;

/// Signals the host delivered to this process, for the guest (bit n - 1 for signal n).
static HOST_PENDING: AtomicU64 = AtomicU64::new(0);

extern "C" fn note_host_signal(signal: libc::c_int) {
    HOST_PENDING.fetch_or(bit(signal as u64), Ordering::SeqCst);
}

/// Sets the host's action for `signal`: noting it for the guest, ignoring it or the default. SA_RESTART: the
/// host calls the guest is blocked in (wait4, read) go on rather than fail with EINTR.
fn set_host_action(signal: u64, handler: u64) {
    // SAFETY: a zeroed sigaction is valid; the handler only does an atomic or, which is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = match handler {
            SIG_DFL => libc::SIG_DFL,
            SIG_IGN => libc::SIG_IGN,
            _ => note_host_signal as *const () as usize,
        };
        action.sa_flags = libc::SA_RESTART | if signal == SIGCHLD { libc::SA_NOCLDSTOP } else { 0 };
        libc::sigaction(signal as libc::c_int, &action, std::ptr::null_mut());
    }
}

/// Has the host note each child's end (once a program forks).
pub fn note_child_endings() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| set_host_action(SIGCHLD, u64::MAX));
}

/// In a forked child: the signals noted so far were the parent's.
pub fn forget_host_signals() {
    HOST_PENDING.store(0, Ordering::SeqCst);
}

/// Waits until the host delivers one of `signals` (or one is noted already). They are blocked from before the
/// last look at `HOST_PENDING` until sigsuspend unblocks them, so one that comes in between is not lost.
fn wait_for_host_signal(signals: u64) {
    // SAFETY: plain signal-mask calls on sets this function owns.
    unsafe {
        let (mut awaited, mut before): (libc::sigset_t, libc::sigset_t) = (std::mem::zeroed(), std::mem::zeroed());
        libc::sigemptyset(&mut awaited);
        for signal in (1..=64).filter(|&signal| signals & bit(signal) != 0) {
            libc::sigaddset(&mut awaited, signal as libc::c_int);
        }
        libc::sigprocmask(libc::SIG_BLOCK, &awaited, &mut before);
        if HOST_PENDING.load(Ordering::SeqCst) & signals == 0 {
            let mut waiting = before;
            for signal in (1..=64).filter(|&signal| signals & bit(signal) != 0) {
                libc::sigdelset(&mut waiting, signal as libc::c_int);
            }
            libc::sigsuspend(&waiting);
        }
        libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
    }
}

/// Ends this process by `signal` (its default action, without a core dump), as Linux ends a program by one, so
/// that a parent's wait sees it; a signal the host will not end it by falls through, for the caller's exit.
pub fn end_by_signal(signal: i32) {
    let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain calls on this process's limits, signal actions and mask; the process is ending.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let mut only: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        libc::raise(signal);
    }
}

/// What a pending signal's siginfo says: si_code, and si_pid and si_status (a SIGCHLD's child and its status).
#[derive(Clone, Copy, Debug)]
pub struct Raised {
    code: i32,
    pid: i32,
    status: i32,
}

/// A siginfo_t: si_signo, si_errno, si_code, then (kill and SIGCHLD alike) si_pid, si_uid, si_status.
fn siginfo(signal: u64, raised: Raised) -> [u8; SIGINFO_SIZE as usize] {
    let mut info = [0u8; SIGINFO_SIZE as usize];
    let mut put = |at: usize, bytes: &[u8]| info[at..at + bytes.len()].copy_from_slice(bytes);
    put(0, &(signal as i32).to_le_bytes());
    put(8, &raised.code.to_le_bytes());
    put(16, &raised.pid.to_le_bytes());
    // SAFETY: getuid cannot fail.
    put(20, &unsafe { libc::getuid() }.to_le_bytes());
    put(24, &raised.status.to_le_bytes());
    info
}

/// The child whose end the host noted, with si_code and si_status, looked at without reaping it (waitid's
/// WNOWAIT).
fn ended_child() -> (u64, i32, i32) {
    // SAFETY: a zeroed siginfo_t is a valid buffer for waitid, which fills it (or leaves it zero with WNOHANG).
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::waitid(libc::P_ALL, 0, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT);
        (info.si_pid() as u64, info.si_code, info.si_status())
    }
}

/// struct sigaction as aarch64 lays it out (handler, flags, restorer, mask).
#[derive(Clone, Copy)]
struct Action {
    handler: u64,
    flags: u64,
    restorer: u64,
    mask: u64,
}

impl Action {
    fn from_bytes(bytes: &[u8; 32]) -> Action {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        Action { handler: word(0), flags: word(8), restorer: word(16), mask: word(24) }
    }
}

/// Whether a signal's default action leaves the process alone (SIGCHLD, SIGCONT, SIGURG, SIGWINCH).
fn ignored_by_default(signal: u64) -> bool {
    [17, 18, 23, 28].contains(&signal)
}

impl LinuxProcess {
    fn action(&self, signal: u64) -> Action {
        Action::from_bytes(&self.signal_actions.get(&signal).copied().unwrap_or([0; 32]))
    }

    /// Whether sending `signal` (1-64) does nothing: its handler is SIG_IGN, or it is SIG_DFL and the default
    /// action ignores it.
    fn ignores(&self, signal: u64) -> bool {
        let handler = self.action(signal).handler;
        handler == SIG_IGN || (handler == SIG_DFL && ignored_by_default(signal))
    }

    /// The program sends itself `signal` (1-64): ignored, made pending (delivered as the call returns, once
    /// unblocked), or, with the default action of ending the process and not blocked, the run stops here.
    pub(super) fn raise(&mut self, signal: u64, code: i32) -> Option<StopReason> {
        if self.ignores(signal) {
            None
        } else if self.action(signal).handler == SIG_DFL && self.signal_mask & bit(signal) == 0 {
            Some(StopReason::Signal { number: signal })
        } else {
            self.pending_signals |= bit(signal);
            self.signal_info.insert(signal, Raised { code, pid: self.pid as i32, status: 0 });
            None
        }
    }

    /// Takes the signals the host noted as pending ones, where the program handles them (a SIGCHLD's siginfo
    /// names the child).
    fn collect_host_signals(&mut self) {
        let noted = HOST_PENDING.swap(0, Ordering::SeqCst);
        let handled: Vec<u64> = (1..=64).filter(|&signal| noted & bit(signal) != 0 && !self.ignores(signal)).collect();
        for signal in handled {
            let raised = match signal {
                SIGCHLD => {
                    let (pid, code, status) = ended_child();
                    Raised { code, pid: self.guest_pid(pid) as i32, status }
                }
                _ => Raised { code: SI_USER, pid: 0, status: 0 },
            };
            self.pending_signals |= bit(signal);
            self.signal_info.insert(signal, raised);
        }
    }

    /// Sets `signal`'s action to SIG_IGN.
    fn ignore(&mut self, signal: u64) {
        let mut ignored = [0; 32];
        ignored[..8].copy_from_slice(&SIG_IGN.to_le_bytes());
        self.signal_actions.insert(signal, ignored);
    }

    /// The signals this process ignores (bit n - 1 for signal n), which an exec keeps ignored.
    pub(super) fn ignored_signals(&self) -> u64 {
        (1..=64).filter(|&signal| self.action(signal).handler == SIG_IGN).fold(0, |set, signal| set | bit(signal))
    }

    /// After an exec: the mask, the pending signals and the ignored ones of the program before.
    pub(super) fn take_signals_across_exec(&mut self, state: &super::ExecState) {
        (self.signal_mask, self.pending_signals) = (state.signal_mask, state.pending_signals);
        for signal in (1..=64).filter(|&signal| state.ignored_signals & bit(signal) != 0) {
            self.ignore(signal);
        }
    }

    /// At the start of a run: the host's actions become the program's, where an exec did not carry them. A
    /// signal ignored by whoever started the program stays ignored (as exec keeps it: `nohup`), except SIGPIPE,
    /// which Rust's runtime ignores in every process it starts: that one, like the rest, starts with its default
    /// action, on the host too.
    pub(super) fn adopt_host_signal_actions(&mut self) {
        for signal in FORWARDED {
            // SAFETY: reads the current action into a zeroed sigaction.
            let current = unsafe {
                let mut current: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal as libc::c_int, std::ptr::null(), &mut current);
                current.sa_sigaction
            };
            if !self.signal_actions.contains_key(&signal) && current == libc::SIG_IGN && signal != SIGPIPE {
                self.ignore(signal);
            }
            set_host_action(signal, self.action(signal).handler);
        }
    }

    /// Delivers the lowest pending signal that is not blocked, if any: the guest's next instruction is then its
    /// handler's first. A stop when it cannot be delivered (no restorer, a stack the frame cannot be written to).
    pub(super) fn deliver_pending(&mut self) -> Option<StopReason> {
        self.collect_host_signals();
        let ready = self.pending_signals & !self.signal_mask;
        if ready == 0 {
            return None;
        }
        let signal = u64::from(ready.trailing_zeros()) + 1;
        self.pending_signals &= !bit(signal);
        self.deliver(signal, self.signal_mask)
    }

    /// Runs `signal`'s handler, `saved_mask` being the mask rt_sigreturn puts back.
    fn deliver(&mut self, signal: u64, saved_mask: u64) -> Option<StopReason> {
        let action = self.action(signal);
        match action.handler {
            SIG_IGN => return None,
            SIG_DFL if ignored_by_default(signal) => return None,
            SIG_DFL => return Some(StopReason::Signal { number: signal }),
            _ => {}
        }
        let restorer = match action.flags & SA_RESTORER {
            0 => match self.sigreturn_trampoline() {
                Some(address) => address,
                None => return Some(StopReason::Signal { number: 11 }),
            },
            _ => action.restorer,
        };
        let raised = self.signal_info.remove(&signal).unwrap_or(Raised { code: SI_USER, pid: 0, status: 0 });
        // Below the stack, or at the top of the alternate one (SA_ONSTACK, unless already on it): a frame record
        // (X29, X30), then the rt_sigframe, each 16-byte aligned.
        // The frame keeps the stack as it was set (Linux's __save_altstack); SS_AUTODISARM then takes it away until
        // rt_sigreturn puts that back.
        let uc_stack = self.alt_stack;
        let top = match action.flags & SA_ONSTACK != 0 && self.alt_stack.state(self.cpu.sp) == 0 {
            true => self.alt_stack.base.wrapping_add(self.alt_stack.size),
            false => self.cpu.sp,
        };
        if self.alt_stack.flags & SS_AUTODISARM != 0 {
            self.alt_stack = AltStack::default();
        }
        let record = (top.wrapping_sub(16)) & !15;
        let frame = record.wrapping_sub(FRAME_SIZE) & !15;
        let bytes = self.signal_frame(signal, raised, saved_mask, uc_stack);
        let mut frame_record = self.cpu.x[29].to_le_bytes().to_vec();
        frame_record.extend(self.cpu.x[30].to_le_bytes());
        if self.memory.write(frame, &bytes).is_err() || self.memory.write(record, &frame_record).is_err() {
            // Linux ends the process with SIGSEGV.
            return Some(StopReason::Signal { number: 11 });
        }
        self.cpu.x[0] = signal;
        self.cpu.x[1] = frame;
        self.cpu.x[2] = frame + SIGINFO_SIZE;
        self.cpu.x[29] = record;
        self.cpu.x[30] = restorer;
        self.cpu.sp = frame;
        self.cpu.pc = action.handler;
        // An exception return clears the exclusive monitor.
        self.cpu.exclusive = ExclusiveMonitor::default();
        let deferred = if action.flags & SA_NODEFER != 0 { 0 } else { bit(signal) };
        self.signal_mask = (self.signal_mask | action.mask | deferred) & !UNBLOCKABLE;
        if action.flags & SA_RESETHAND != 0 {
            self.signal_actions.remove(&signal);
        }
        None
    }

    /// Where a handler without SA_RESTORER returns to: Linux's vDSO `__kernel_rt_sigreturn` (`mov x8, #139;
    /// svc #0`, which glibc on aarch64 relies on), in a page of its own mapped at the first such delivery.
    fn sigreturn_trampoline(&mut self) -> Option<u64> {
        const MOV_X8_139: u32 = 0xd280_1168;
        const SVC_0: u32 = 0xd400_0001;
        if self.sigreturn_page.is_none() {
            let page = self.map.map_anywhere(&mut self.memory, 0, 0x1000, Perm::READ | Perm::EXECUTE).ok()?;
            let code: Vec<u8> = [MOV_X8_139, SVC_0].iter().flat_map(|word| word.to_le_bytes()).collect();
            self.memory.write_privileged(page, &code).ok()?;
            self.sigreturn_page = Some(page);
        }
        self.sigreturn_page
    }

    /// The rt_sigframe's bytes: the siginfo, and the ucontext with the state the handler interrupts.
    fn signal_frame(&self, signal: u64, raised: Raised, saved_mask: u64, uc_stack: AltStack) -> Vec<u8> {
        let mut frame = vec![0u8; FRAME_SIZE as usize];
        frame[..SIGINFO_SIZE as usize].copy_from_slice(&siginfo(signal, raised));
        let mut put = |at: usize, bytes: &[u8]| frame[at..at + bytes.len()].copy_from_slice(bytes);
        let uc = SIGINFO_SIZE as usize;
        put(uc + UC_STACK, &uc_stack.base.to_le_bytes());
        put(uc + UC_STACK + 8, &uc_stack.flags.to_le_bytes());
        put(uc + UC_STACK + 16, &uc_stack.size.to_le_bytes());
        put(uc + UC_SIGMASK, &saved_mask.to_le_bytes());
        let context = uc + UC_MCONTEXT;
        for (index, value) in self.cpu.x.iter().enumerate() {
            put(context + SC_REGS + 8 * index, &value.to_le_bytes());
        }
        put(context + SC_SP, &self.cpu.sp.to_le_bytes());
        put(context + SC_PC, &self.cpu.pc.to_le_bytes());
        put(context + SC_PSTATE, &u64::from(self.cpu.nzcv | self.cpu.ssbs).to_le_bytes());
        let fpsimd = context + SC_RESERVED;
        put(fpsimd, &FPSIMD_MAGIC.to_le_bytes());
        put(fpsimd + 4, &(FPSIMD_SIZE as u32).to_le_bytes());
        put(fpsimd + 8, &self.cpu.fpsr.to_le_bytes());
        put(fpsimd + 12, &self.cpu.fpcr.to_le_bytes());
        for (index, value) in self.cpu.v.iter().enumerate() {
            put(fpsimd + 16 + 16 * index, &value.to_le_bytes());
        }
        // The terminating record (magic 0, size 0) follows, already zero.
        frame
    }

    /// rt_sigreturn: the state the frame at SP holds comes back (X0 included: the call returns nothing of its
    /// own). A frame without its fpsimd record, or one not readable, ends the process with SIGSEGV, as on Linux.
    pub(super) fn rt_sigreturn(&mut self) -> Flow {
        let frame = match self.read_bytes(self.cpu.sp, FRAME_SIZE) {
            Ok(frame) => frame,
            Err(_) => return Flow::Stop(StopReason::Signal { number: 11 }),
        };
        let word = |at: usize| u64::from_le_bytes(frame[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(frame[at..at + 4].try_into().expect("4 bytes"));
        let context = SIGINFO_SIZE as usize + UC_MCONTEXT;
        let fpsimd = context + SC_RESERVED;
        if half(fpsimd) != FPSIMD_MAGIC || half(fpsimd + 4) as usize != FPSIMD_SIZE {
            return Flow::Stop(StopReason::Signal { number: 11 });
        }
        for index in 0..31 {
            self.cpu.x[index] = word(context + SC_REGS + 8 * index);
        }
        self.cpu.sp = word(context + SC_SP);
        self.cpu.pc = word(context + SC_PC);
        let pstate = word(context + SC_PSTATE) as u32;
        (self.cpu.nzcv, self.cpu.ssbs) = (pstate & 0xf000_0000, pstate & PSTATE_SSBS);
        (self.cpu.fpsr, self.cpu.fpcr) = (half(fpsimd + 8), half(fpsimd + 12));
        for index in 0..32 {
            let at = fpsimd + 16 + 16 * index;
            self.cpu.v[index] = u128::from_le_bytes(frame[at..at + 16].try_into().expect("16 bytes"));
        }
        self.cpu.exclusive = ExclusiveMonitor::default();
        self.signal_mask = word(SIGINFO_SIZE as usize + UC_SIGMASK) & !UNBLOCKABLE;
        // The alternate stack as the frame says (Linux's restore_altstack: one SS_AUTODISARM took away returns);
        // like Linux, a frame's stack that cannot be set (on it, or invalid) is passed over.
        let uc_stack = SIGINFO_SIZE as usize + UC_STACK;
        if !self.alt_stack.holds(self.cpu.sp) {
            let _ = self.set_alt_stack(word(uc_stack), half(uc_stack + 8), word(uc_stack + 16));
        }
        Flow::Continue
    }

    /// For a call that waits with `mask` (rt_sigsuspend, ppoll): when a signal the mask lets through is pending,
    /// the call ends with EINTR and the signal's handler runs, its frame saving the mask from before the call.
    pub(super) fn interrupt_with_pending(&mut self, mask: u64) -> Option<Flow> {
        self.collect_host_signals();
        let ready = self.pending_signals & !mask;
        if ready == 0 {
            return None;
        }
        let signal = u64::from(ready.trailing_zeros()) + 1;
        self.pending_signals &= !bit(signal);
        let before = self.signal_mask;
        // The handler's mask is built on the call's (a signal that came to be ignored meanwhile runs nothing).
        if !matches!(self.action(signal).handler, SIG_DFL | SIG_IGN) {
            self.signal_mask = mask;
        }
        self.cpu.x[0] = (-i64::from(Errno::EINTR.0)) as u64;
        Some(self.deliver(signal, before).map_or(Flow::Continue, Flow::Stop))
    }

    /// rt_sigsuspend(mask, size): waits with `mask` until a signal it lets through comes, runs its handler, and
    /// returns EINTR; the handler's rt_sigreturn puts the mask from before the call back. With nothing that could
    /// send one (no children, no handled signal another process could send), the wait would never end: the run
    /// stops.
    pub(super) fn rt_sigsuspend(&mut self, set: u64, size: u64) -> Flow {
        if size != 8 {
            return self.answer(Err(Errno::EINVAL));
        }
        let mask = match self.read_u64(set) {
            Ok(mask) => mask & !UNBLOCKABLE,
            Err(errno) => return self.answer(Err(errno)),
        };
        loop {
            if let Some(interrupted) = self.interrupt_with_pending(mask) {
                return interrupted;
            }
            if self.threads.several() {
                // Another thread may send it: this one waits while they run (`next_turn` ends the call).
                self.suspend_thread(!mask, None);
                return Flow::Continue;
            }
            let awaited = self.signals_from_outside() & !mask;
            if awaited == 0 {
                return Flow::Stop(StopReason::Deadlock("rt_sigsuspend with no signal that could come"));
            }
            wait_for_host_signal(awaited);
        }
    }

    /// rt_sigtimedwait(set, info, timeout, size) (sigwait, sigtimedwait): takes a pending signal of `set`, blocked
    /// or not, without running its handler: its number, and its siginfo at `info` where given. With none pending
    /// it waits (while other threads run, or on the host for another process's), for at most `timeout` (then
    /// EAGAIN; a zero timeout only looks).
    pub(super) fn rt_sigtimedwait(&mut self, set: u64, info: u64, timeout: u64, size: u64) -> Flow {
        const EAGAIN: Errno = Errno::EAGAIN;
        if size != 8 {
            return self.answer(Err(Errno::EINVAL));
        }
        let wanted = match self.read_u64(set) {
            Ok(set) => set & !UNBLOCKABLE,
            Err(errno) => return self.answer(Err(errno)),
        };
        let timeout = match timeout {
            0 => None,
            _ => match self.read_timespec(timeout) {
                Ok(time) => Some(time),
                Err(errno) => return self.answer(Err(errno)),
            },
        };
        self.collect_host_signals();
        let ready = self.pending_signals & wanted;
        if ready != 0 {
            let signal = u64::from(ready.trailing_zeros()) + 1;
            self.pending_signals &= !bit(signal);
            let raised = self.signal_info.remove(&signal).unwrap_or(Raised { code: SI_USER, pid: 0, status: 0 });
            if info != 0 && self.write_bytes(info, &siginfo(signal, raised)).is_err() {
                return self.answer(Err(Errno::EFAULT));
            }
            return self.answer(Ok(signal));
        }
        if self.threads.several() && timeout != Some(0) {
            // The call runs again once one of them is pending, or ends with EAGAIN at the deadline.
            let deadline = timeout.map(|time| self.guest_nanoseconds().saturating_add(time));
            self.take_signal_later(wanted, deadline, (-i64::from(EAGAIN.0)) as u64);
            return Flow::Continue;
        }
        match timeout {
            Some(time) => {
                self.pass_time(time);
                self.answer(Err(EAGAIN))
            }
            None if self.signals_from_outside() & wanted != 0 => {
                self.wait_for_signal_from_outside(self.signals_from_outside() & wanted);
                self.cpu.pc -= 4;
                Flow::Continue
            }
            None => Flow::Stop(StopReason::Deadlock("rt_sigtimedwait for signals nothing can bring")),
        }
    }

    /// The signals that other processes could still send that the program handles: a child's end, and those
    /// forwarded from the host that it has a handler for.
    pub(super) fn signals_from_outside(&self) -> u64 {
        let mut awaited = FORWARDED
            .iter()
            .filter(|&&signal| !self.ignores(signal) && self.action(signal).handler != SIG_DFL)
            .fold(0, |set, &signal| set | bit(signal));
        if !self.children.is_empty() {
            awaited |= bit(SIGCHLD);
        }
        awaited
    }

    /// Waits on the host until one of `signals` comes from another process, and makes it pending.
    pub(super) fn wait_for_signal_from_outside(&mut self, signals: u64) {
        wait_for_host_signal(signals);
        self.collect_host_signals();
    }

    /// rt_sigaction: the new action is read before the old one is written (they may be the same memory).
    pub(super) fn rt_sigaction(&mut self, signal: u64, action: u64, old: u64) -> SysResult {
        if !(1..=64).contains(&signal) || (action != 0 && UNBLOCKABLE & bit(signal) != 0) {
            return Err(Errno::EINVAL);
        }
        let new: Option<[u8; 32]> = match action {
            0 => None,
            _ => Some(self.read_bytes(action, 32)?.try_into().map_err(|_| Errno::EFAULT)?),
        };
        if old != 0 {
            let previous = self.signal_actions.get(&signal).copied().unwrap_or([0; 32]);
            self.write_bytes(old, &previous)?;
        }
        if let Some(new) = new {
            if FORWARDED.contains(&signal) {
                set_host_action(signal, Action::from_bytes(&new).handler);
            }
            self.signal_actions.insert(signal, new);
        }
        Ok(0)
    }

    /// rt_sigprocmask: the new set is read before the old one is written (they may be the same memory).
    pub(super) fn rt_sigprocmask(&mut self, how: u64, set: u64, old: u64) -> SysResult {
        let new = match set {
            0 => None,
            _ => {
                let mask = self.read_u64(set)?;
                Some(match how {
                    0 => self.signal_mask | mask,
                    1 => self.signal_mask & !mask,
                    2 => mask,
                    _ => return Err(Errno::EINVAL),
                })
            }
        };
        if old != 0 {
            self.write_words(old, &[self.signal_mask])?;
        }
        self.signal_mask = new.unwrap_or(self.signal_mask);
        Ok(0)
    }

    /// sigaltstack(new, old): the new stack_t is read first, the old one (as it was) written last.
    pub(super) fn sigaltstack(&mut self, new: u64, old: u64) -> SysResult {
        let before = AltStack {
            flags: self.alt_stack.state(self.cpu.sp) | self.alt_stack.flags & SS_AUTODISARM,
            ..self.alt_stack
        };
        if new != 0 {
            let (base, flags, size) = (self.read_u64(new)?, self.read_u64(new + 8)? as u32, self.read_u64(new + 16)?);
            if self.alt_stack.holds(self.cpu.sp) {
                return Err(Errno::EPERM);
            }
            self.set_alt_stack(base, flags, size)?;
        }
        if old != 0 {
            self.write_words(old, &[before.base, u64::from(before.flags), before.size])?;
        }
        Ok(0)
    }

    /// Sets the running thread's alternate signal stack as sigaltstack's stack_t gives it: SS_DISABLE (the rest
    /// ignored), or 0 or SS_ONSTACK, with SS_AUTODISARM or not, and at least MINSIGSTKSZ bytes.
    fn set_alt_stack(&mut self, base: u64, flags: u32, size: u64) -> Result<(), Errno> {
        self.alt_stack = match flags & !SS_AUTODISARM {
            SS_DISABLE => AltStack { flags, ..AltStack::default() },
            0 | SS_ONSTACK if size < MINSIGSTKSZ => return Err(Errno::ENOMEM),
            0 | SS_ONSTACK => AltStack { base, size, flags },
            _ => return Err(Errno::EINVAL),
        };
        Ok(())
    }
}

/// A thread's alternate signal stack (sigaltstack), as Linux keeps it: `size` 0 and `flags` SS_DISABLE when it has
/// none, else the flags it was set with (0 or SS_ONSTACK, with SS_AUTODISARM or not).
#[derive(Clone, Copy, Debug)]
pub struct AltStack {
    pub base: u64,
    pub size: u64,
    pub flags: u32,
}

impl Default for AltStack {
    fn default() -> AltStack {
        AltStack { base: 0, size: 0, flags: SS_DISABLE }
    }
}

impl AltStack {
    /// Whether the stack pointer `sp` is on it (Linux's on_sig_stack, for stacks that grow down; never with
    /// SS_AUTODISARM, whose handlers may nest on it).
    fn holds(&self, sp: u64) -> bool {
        self.flags & SS_AUTODISARM == 0 && sp > self.base && sp - self.base <= self.size
    }

    /// Linux's sas_ss_flags: SS_DISABLE without one, SS_ONSTACK while on it, else 0 (a handler may move to it).
    fn state(&self, sp: u64) -> u32 {
        match self.size {
            0 => SS_DISABLE,
            _ if self.holds(sp) => SS_ONSTACK,
            _ => 0,
        }
    }
}
