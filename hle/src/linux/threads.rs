//! Threads of one Linux process: clone with CLONE_THREAD, futexes, thread exit, and the scheduler that runs them.
//!
//! All threads run on the one host thread that runs the process, a slice of `SLICE` retired instructions at a
//! time (counted across its system calls), in the order they were created (round robin), so that a run repeats
//! exactly, as everywhere in Tandem. A thread also gives way where Linux would block it: a futex wait, a sleep,
//! rt_sigsuspend or pause (ppoll of nothing), sched_yield, its exit. A signal it does not block ends a futex
//! wait or sleep with EINTR, and a signal of rt_sigsuspend's mask its wait. When every thread waits, guest time skips to the earliest deadline among them; without one, Tandem waits
//! on the host for a signal from another process that one of them waits for; with none, the process is
//! deadlocked and stops saying so.
//!
//! The running thread's registers are `LinuxProcess::cpu`, its signal mask `signal_mask` and its alternate
//! signal stack `alt_stack` (signals, handlers
//! and pending signals are the process's, delivered to whichever thread runs with the signal unblocked); the
//! others wait in `threads`. Invariants:
//! - A thread that is not running has its whole state in its `Thread`, its local exclusive monitor cleared (as
//!   the exception return of a context switch clears it on Arm), so a store-exclusive that straddles a switch
//!   fails and its loop tries again.
//! - Deadlines are guest time (`guest_nanoseconds`), which every thread's instructions move on.
//!
//! Not modelled: signals sent to one thread (tgkill names the process's thread, and the signal is the
//! process's: whichever thread runs with it unblocked takes it), per-thread CPU clocks (CLOCK_THREAD_CPUTIME_ID
//! reads the process's), and host calls that block (a read of an empty pipe that another guest thread would
//! fill waits on the host forever). When every thread waits, a deadline passes before a signal from another
//! process is looked for.

use super::LinuxProcess;
use super::signals::AltStack;
use super::syscalls::{Errno, Flow, SysResult};
use crate::report::StopReason;
use std::collections::VecDeque;
use tandem_reference::state::CpuState;

/// Instructions a thread runs before the next one's turn, while the process has several (the Horizon kernel's
/// quantum).
pub(super) const SLICE: u64 = crate::kernel::QUANTUM;

const ETIMEDOUT: Errno = Errno(110);

/// A thread that is not running.
pub(super) struct Thread {
    tid: u64,
    cpu: CpuState,
    signal_mask: u64,
    alt_stack: AltStack,
    clear_child_tid: u64,
    wait: Option<Wait>,
}

/// Thread ids start above Linux's largest pid (pid_max's limit, 2^22), so that no host process has one: a kill
/// of a thread id is the process's own.
const FIRST_TID: u64 = 1 << 22;

/// What a thread waits for. Its X0 still holds the system call's first argument; the wait's end writes the result.
#[derive(Clone, Copy, Default)]
pub(super) struct Wait {
    /// A futex wake at this address for these bits (FUTEX_WAIT_BITSET's; all for FUTEX_WAIT), which returns 0;
    /// none for a sleep.
    futex: Option<(u64, u32)>,
    /// The signals whose coming ends the wait: those the thread does not block, or rt_sigsuspend's and ppoll's
    /// mask's.
    signals: u64,
    /// How a signal ends it.
    on_signal: SignalEnd,
    /// When the wait ends by itself, in guest nanoseconds, and X0 then (-ETIMEDOUT for a futex, 0 for a sleep).
    deadline: Option<(u64, u64)>,
}

/// How a signal of a `Wait`'s ends it.
#[derive(Clone, Copy, Default)]
enum SignalEnd {
    /// The call returns EINTR and the handler runs as the thread goes on (futex waits, sleeps).
    #[default]
    Interrupts,
    /// As rt_sigsuspend ends: the handler runs on the call's mask (`next_turn`), and the call returns EINTR.
    Suspends,
    /// The call runs again, to take the signal (rt_sigtimedwait).
    Restarts,
}

/// The process's threads other than the running one, and the running one's identity.
#[derive(Default)]
pub(super) struct Threads {
    pub tid: u64,
    /// Where the running thread's exit writes 0 and wakes a futex (CLONE_CHILD_CLEARTID, set_tid_address).
    pub clear_child_tid: u64,
    /// Set by a system call that makes the running thread wait: it gives way once the call returns.
    wait: Option<Wait>,
    /// Set by a system call after which the running thread gives way (sched_yield, a wake).
    give_way: bool,
    /// Set by the running thread's exit.
    exited: bool,
    /// Instructions left of the running thread's turn.
    slice_left: u64,
    /// The status the first thread (whose id is the process's) exited with while others ran on: the process's
    /// when the last one exits (exit, not exit_group).
    leader_status: Option<i32>,
    others: VecDeque<Thread>,
    /// Thread ids given so far.
    created: u64,
}

impl Threads {
    /// The threads of a process whose one thread has id `tid`.
    pub fn new(tid: u64) -> Threads {
        Threads { tid, slice_left: SLICE, ..Default::default() }
    }

    /// The budget of the running thread's next run, at most `quantum`.
    pub fn budget(&self, quantum: u64) -> u64 {
        if self.several() { quantum.min(self.slice_left) } else { quantum }
    }

    pub fn several(&self) -> bool {
        !self.others.is_empty()
    }

    /// Forgets every thread but the running one (the child of a fork has only the thread that forked, known by the
    /// child's pid, with its CLONE_CHILD_CLEARTID word).
    pub fn keep_only_running(&mut self, pid: u64, clear_child_tid: u64) {
        self.others.clear();
        (self.tid, self.clear_child_tid, self.leader_status) = (pid, clear_child_tid, None);
    }

    /// Feeds the waiting threads' registers, in their order, to a state hash.
    pub fn hash_waiting(&self, sink: &mut impl FnMut(&[u8])) {
        for thread in &self.others {
            sink(&thread.tid.to_le_bytes());
            thread.cpu.hash_into(sink);
        }
    }
}

impl LinuxProcess {
    /// clone with CLONE_THREAD: a thread sharing everything, on `stack`, with `tls` in TPIDR_EL0 where
    /// CLONE_SETTLS says so. The parent gets its thread id; the new thread starts after the SVC with X0 = 0.
    pub(super) fn clone_thread(&mut self, flags: u64, stack: u64, parent_tid: u64, tls: u64, child_tid: u64) -> Flow {
        const CLONE_SETTLS: u64 = 0x8_0000;
        const CLONE_PARENT_SETTID: u64 = 0x10_0000;
        const CLONE_CHILD_CLEARTID: u64 = 0x20_0000;
        const CLONE_CHILD_SETTID: u64 = 0x100_0000;
        let tid = FIRST_TID + self.threads.created;
        self.threads.created += 1;
        let mut cpu = self.cpu.clone();
        cpu.x[0] = 0;
        if stack != 0 {
            cpu.sp = stack;
        }
        if flags & CLONE_SETTLS != 0 {
            cpu.tpidr_el0 = tls;
        }
        cpu.exclusive.clear();
        // Linux passes over an id it cannot write.
        for (flag, address) in [(CLONE_PARENT_SETTID, parent_tid), (CLONE_CHILD_SETTID, child_tid)] {
            if flags & flag != 0 {
                let _ = self.memory.write_le(address, 4, tid.into());
            }
        }
        let clear_child_tid = if flags & CLONE_CHILD_CLEARTID != 0 { child_tid } else { 0 };
        // The new thread has no alternate signal stack (clone(2): CLONE_VM without CLONE_VFORK clears it).
        let (signal_mask, alt_stack) = (self.signal_mask, AltStack::default());
        self.threads.others.push_back(Thread { tid, cpu, signal_mask, alt_stack, clear_child_tid, wait: None });
        tracing::debug!(tid, "thread created");
        self.answer(Ok(tid))
    }

    /// futex(address, op, value, timeout, second, bitset): waits and wakes between the process's threads
    /// (`threads`), private or not (there is one process). A wait whose word still holds `value` lasts until a
    /// wake, or until its timeout (ETIMEDOUT). Requeues and WAKE_OP as futex(2) gives them; the
    /// priority-inheritance operations stop the run naming themselves. Linux's order: the timeout is read and checked first (WAIT's is relative,
    /// WAIT_BITSET's an absolute time on CLOCK_MONOTONIC, or CLOCK_REALTIME with FUTEX_CLOCK_REALTIME), then a
    /// zero bitset is EINVAL, then the word.
    pub(super) fn futex(&mut self, address: u64, op: u64, value: u64, timeout: u64, second: u64, bitset: u64) -> Flow {
        const WAIT: u64 = 0;
        const WAKE: u64 = 1;
        const REQUEUE: u64 = 3;
        const CMP_REQUEUE: u64 = 4;
        const WAKE_OP: u64 = 5;
        const LOCK_PI: u64 = 6;
        const TRYLOCK_PI: u64 = 8;
        const WAIT_BITSET: u64 = 9;
        const WAKE_BITSET: u64 = 10;
        const WAIT_REQUEUE_PI: u64 = 11;
        const LOCK_PI2: u64 = 13;
        // CMP_REQUEUE's expected value comes in the bitset's place.
        let compared = bitset;
        const CLOCK_REALTIME: u64 = 256;
        let command = op & 0x7f;
        let bitset = match command {
            WAIT | WAKE => u32::MAX,
            _ => bitset as u32,
        };
        // A count of threads to wake, as futex(2)'s loops count them: at least one.
        let at_least_one = |count: u64| (count as i32).max(1) as u64;
        let result = match command {
            _ if !address.is_multiple_of(4) => Err(Errno::EINVAL),
            WAKE_BITSET if bitset == 0 => Err(Errno::EINVAL),
            WAIT | WAIT_BITSET => {
                // FUTEX_WAIT's timeout is relative, on CLOCK_MONOTONIC; FUTEX_WAIT_BITSET's absolute, on
                // CLOCK_REALTIME where the op says so.
                let deadline = match timeout {
                    0 => None,
                    _ => match self.read_timespec(timeout) {
                        Ok(time) if command == WAIT => Some(self.guest_nanoseconds().saturating_add(time)),
                        Ok(time) => match self.clock_now(if op & CLOCK_REALTIME != 0 { 0 } else { 1 }) {
                            Ok(now) => Some(self.guest_nanoseconds().saturating_add(time.saturating_sub(now))),
                            Err(errno) => return self.answer(Err(errno)),
                        },
                        Err(errno) => return self.answer(Err(errno)),
                    },
                };
                match self.memory.read_le(address, 4) {
                    _ if bitset == 0 => Err(Errno::EINVAL),
                    Err(_) => Err(Errno::EFAULT),
                    Ok(current) if current as u64 != value & 0xffff_ffff => Err(Errno::EAGAIN),
                    Ok(_) => return self.futex_wait(address, bitset, deadline),
                }
            }
            WAKE | WAKE_BITSET => Ok(self.futex_wake(address, bitset, at_least_one(value))),
            // The count of threads to move comes in the timeout's place.
            REQUEUE | CMP_REQUEUE if (value as i32) < 0 || (timeout as i32) < 0 => Err(Errno::EINVAL),
            REQUEUE | CMP_REQUEUE => match self.memory.read_le(address, 4) {
                Err(_) => Err(Errno::EFAULT),
                Ok(_) if self.memory.read_le(second, 4).is_err() => Err(Errno::EFAULT),
                Ok(current) if command == CMP_REQUEUE && current as u32 != compared as u32 => Err(Errno::EAGAIN),
                Ok(_) => Ok(self.futex_requeue(address, value as u32 as u64, timeout as u32 as u64, second)),
            },
            WAKE_OP => {
                let counts = (at_least_one(value), at_least_one(timeout));
                self.futex_wake_op(address, counts, second, compared as u32)
            }
            LOCK_PI..=TRYLOCK_PI | WAIT_REQUEUE_PI..=LOCK_PI2 => {
                return Flow::Stop(StopReason::Unsupported("priority-inheritance futexes (FUTEX_*_PI)"));
            }
            _ => Err(Errno::ENOSYS),
        };
        self.answer(result)
    }

    /// FUTEX_WAKE_OP: changes the word at `second` by the operation encoded in `encoded` (SET, ADD, OR, ANDN, XOR,
    /// of a 12-bit signed operand or 1 shifted by it), wakes up to `wake` waiters on `address`, and, when the
    /// word's old value compares as encoded (EQ, NE, LT, LE, GT, GE against a 12-bit signed operand), up to
    /// `wake_second` waiters on `second`; how many were woken.
    fn futex_wake_op(&mut self, address: u64, (wake, wake_second): (u64, u64), second: u64, encoded: u32) -> SysResult {
        let signed_12 = |field: u32| (((field & 0xfff) << 20) as i32) >> 20;
        let (operation, comparison) = (encoded >> 28 & 7, encoded >> 24 & 15);
        let mut operand = signed_12(encoded >> 12);
        let compared = signed_12(encoded);
        if encoded >> 28 & 8 != 0 {
            // FUTEX_OP_OPARG_SHIFT: Linux masks a shift out of 0..31 to its low five bits.
            operand = 1i32.wrapping_shl((operand & 31) as u32);
        }
        let old = self.memory.read_le(second, 4).map_err(|_| Errno::EFAULT)? as u32 as i32;
        let new = match operation {
            0 => operand,
            1 => old.wrapping_add(operand),
            2 => old | operand,
            3 => old & !operand,
            4 => old ^ operand,
            _ => return Err(Errno::ENOSYS),
        };
        let holds = match comparison {
            0 => old == compared,
            1 => old != compared,
            2 => old < compared,
            3 => old <= compared,
            4 => old > compared,
            5 => old >= compared,
            _ => return Err(Errno::ENOSYS),
        };
        self.memory.write_le(second, 4, u128::from(new as u32)).map_err(|_| Errno::EFAULT)?;
        let woken = self.futex_wake(address, u32::MAX, wake);
        Ok(woken + if holds { self.futex_wake(second, u32::MAX, wake_second) } else { 0 })
    }

    /// futex(2)'s FUTEX_WAIT and FUTEX_WAIT_BITSET once the word holds the expected value: the running thread
    /// waits for a wake, a signal it does not block (EINTR) or its timeout (`deadline`, guest nanoseconds).
    pub(super) fn futex_wait(&mut self, address: u64, bitset: u32, deadline: Option<u64>) -> Flow {
        let deadline = self.reachable(deadline).map(|at| (at, (-i64::from(ETIMEDOUT.0)) as u64));
        let signals = !self.signal_mask;
        self.threads.wait = Some(Wait { futex: Some((address, bitset)), deadline, signals, ..Wait::default() });
        Flow::Continue
    }

    /// A deadline guest time can reach: one past what its counters hold is none.
    fn reachable(&self, deadline: Option<u64>) -> Option<u64> {
        deadline.filter(|&at| at < super::syscalls::nanoseconds_of(u64::MAX / 2))
    }

    /// FUTEX_WAKE and FUTEX_WAKE_BITSET: ends the waits of up to `count` threads on `address` whose bits meet
    /// `bitset`, oldest first; the number woken.
    pub(super) fn futex_wake(&mut self, address: u64, bitset: u32, count: u64) -> u64 {
        let mut woken = 0;
        for thread in &mut self.threads.others {
            if woken == count {
                break;
            }
            if let Some(Wait { futex: Some((at, bits)), .. }) = thread.wait
                && at == address
                && bits & bitset != 0
            {
                thread.cpu.x[0] = 0;
                thread.wait = None;
                woken += 1;
            }
        }
        if woken > 0 {
            self.threads.give_way = true;
        }
        woken
    }

    /// Whether `tid` is one of the process's threads.
    pub(super) fn is_thread(&self, tid: u64) -> bool {
        tid == self.threads.tid || self.threads.others.iter().any(|thread| thread.tid == tid)
    }

    /// FUTEX_REQUEUE and FUTEX_CMP_REQUEUE (once the word is checked): wakes up to `wake` threads waiting on
    /// `address` and moves up to `requeue` of the others to wait on `target`; how many were woken and moved.
    pub(super) fn futex_requeue(&mut self, address: u64, wake: u64, requeue: u64, target: u64) -> u64 {
        let woken = self.futex_wake(address, u32::MAX, wake);
        let mut moved = 0;
        for thread in &mut self.threads.others {
            if moved == requeue {
                break;
            }
            if let Some(wait @ Wait { futex: Some((at, bits)), .. }) = thread.wait
                && at == address
            {
                thread.wait = Some(Wait { futex: Some((target, bits)), ..wait });
                moved += 1;
            }
        }
        woken + moved
    }

    /// A sleep of the running thread until guest time `deadline`, while other threads run; a signal it does not
    /// block ends it early (EINTR).
    pub(super) fn sleep_thread_until(&mut self, deadline: u64) {
        let deadline = self.reachable(Some(deadline)).map(|at| (at, 0));
        self.threads.wait = Some(Wait { deadline, signals: !self.signal_mask, ..Wait::default() });
    }

    /// The running thread waits, while others run, until one of `signals` is pending (rt_sigsuspend, and ppoll of
    /// no descriptors: pause), or until `deadline` (then the call returns 0).
    pub(super) fn suspend_thread(&mut self, signals: u64, deadline: Option<u64>) {
        let deadline = self.reachable(deadline).map(|at| (at, 0));
        self.threads.wait = Some(Wait { signals, on_signal: SignalEnd::Suspends, deadline, futex: None });
    }

    /// The running thread waits, while others run, until one of `signals` is pending (its rt_sigtimedwait then
    /// runs again and takes it), or until `deadline`, when the call returns `timed_out`.
    pub(super) fn take_signal_later(&mut self, signals: u64, deadline: Option<u64>, timed_out: u64) {
        let deadline = self.reachable(deadline).map(|at| (at, timed_out));
        self.threads.wait = Some(Wait { signals, on_signal: SignalEnd::Restarts, deadline, futex: None });
    }

    pub(super) fn give_way(&mut self) {
        self.threads.give_way = true;
    }

    /// exit: the running thread ends (its CLONE_CHILD_CLEARTID word cleared and woken, as a pthread_join waits
    /// for); the process ends with the last thread.
    pub(super) fn exit_thread(&mut self, status: i32) -> Flow {
        if !self.threads.several() {
            return Flow::Exit(self.threads.leader_status.unwrap_or(status));
        }
        if self.threads.tid == self.pid {
            self.threads.leader_status = Some(status);
        }
        let address = self.threads.clear_child_tid;
        if address != 0 && self.memory.write_le(address, 4, 0).is_ok() {
            self.futex_wake(address, u32::MAX, 1);
        }
        tracing::debug!(tid = self.threads.tid, "thread exited");
        self.threads.exited = true;
        Flow::Continue
    }

    /// After a run of the running thread that retired `retired` instructions: switches to the next thread that can
    /// run when the running one has exited or waits, or gives way or has spent its slice while another can run. A
    /// stop when none ever will.
    pub(super) fn next_turn(&mut self, retired: u64) -> Result<(), StopReason> {
        self.threads.slice_left = self.threads.slice_left.saturating_sub(retired);
        let slice_spent = self.threads.slice_left == 0;
        let give_way = std::mem::take(&mut self.threads.give_way);
        let exited = std::mem::take(&mut self.threads.exited);
        let waiting = self.threads.wait.take();
        if !exited && waiting.is_none() && !(self.threads.several() && (slice_spent || give_way)) {
            return Ok(());
        }
        self.threads.slice_left = SLICE;
        if !exited {
            let mut outgoing = Thread {
                tid: self.threads.tid,
                cpu: self.cpu.clone(),
                signal_mask: self.signal_mask,
                alt_stack: self.alt_stack,
                clear_child_tid: self.threads.clear_child_tid,
                wait: waiting,
            };
            outgoing.cpu.exclusive.clear();
            self.threads.others.push_back(outgoing);
        }
        loop {
            let now = self.guest_nanoseconds();
            for thread in &mut self.threads.others {
                if let Some(Wait { deadline: Some((at, result)), .. }) = thread.wait
                    && at <= now
                {
                    thread.cpu.x[0] = result;
                    thread.wait = None;
                }
            }
            let pending = self.pending_signals;
            let runnable = |thread: &Thread| thread.wait.is_none_or(|wait| wait.signals & pending != 0);
            if let Some(index) = self.threads.others.iter().position(runnable) {
                let mut next = self.threads.others.remove(index).expect("found");
                let interrupted = next.wait.take();
                self.become_thread(next);
                match interrupted.map(|wait| (wait.on_signal, wait.signals)) {
                    // rt_sigsuspend (and pause) end as they would have on the spot: the handler runs on the call's
                    // mask, and the call returns EINTR.
                    Some((SignalEnd::Suspends, signals)) => match self.interrupt_with_pending(!signals) {
                        Some(Flow::Stop(reason)) => return Err(reason),
                        Some(_) => {}
                        // Taken meanwhile by another thread: the call runs again, and waits again.
                        None => self.cpu.pc -= 4,
                    },
                    Some((SignalEnd::Restarts, _)) => self.cpu.pc -= 4,
                    // A futex wait or sleep returns EINTR; the run loop delivers the signal next.
                    Some((SignalEnd::Interrupts, _)) => self.cpu.x[0] = (-i64::from(Errno::EINTR.0)) as u64,
                    None => {}
                }
                return Ok(());
            }
            // Every thread waits: time passes to the first deadline, or a signal from another process comes, or
            // nothing will ever wake them.
            let deadlines = self.threads.others.iter().filter_map(|thread| thread.wait?.deadline);
            if let Some(first) = deadlines.map(|(at, _)| at).min() {
                self.pass_time(first - now);
                continue;
            }
            let awaited =
                self.threads.others.iter().filter_map(|thread| thread.wait).fold(0, |all, wait| all | wait.signals);
            let from_outside = self.signals_from_outside() & awaited;
            if from_outside != 0 {
                self.wait_for_signal_from_outside(from_outside);
                continue;
            }
            // The report shows the thread that ran last, at its SVC.
            let last = if exited { self.threads.others.pop_front() } else { self.threads.others.pop_back() };
            self.become_thread(last.expect("a waiting thread"));
            self.cpu.pc -= 4;
            return Err(StopReason::Deadlock("every thread waits on a futex or a signal that nothing can bring"));
        }
    }

    /// Makes `thread` the running one.
    fn become_thread(&mut self, thread: Thread) {
        self.cpu = thread.cpu;
        (self.signal_mask, self.alt_stack) = (thread.signal_mask, thread.alt_stack);
        (self.threads.tid, self.threads.clear_child_tid) = (thread.tid, thread.clear_child_tid);
        self.threads.wait = thread.wait;
    }
}
