//! Threads: CreateThread, StartThread, ExitThread, SleepThread (and its yields), the priority and core mask calls,
//! GetCurrentProcessorNumber, GetThreadId, SetThreadActivity and GetThreadContext3.

use super::super::scheduler::LOWEST_PRIORITY;
use super::super::thread::{ThreadState, Wait};
use super::super::{Kernel, RunOutcome};
use super::{KernelResult, Svc};

/// CreateThread's and SetThreadCoreMask's core id meaning "the process's ideal core".
const IDEAL_CORE_USE_PROCESS_VALUE: i32 = -2;
/// SetThreadCoreMask's core id meaning "keep the ideal core".
const IDEAL_CORE_NO_UPDATE: i32 = -3;
/// SetThreadCoreMask's core id meaning "no ideal core".
const IDEAL_CORE_DONT_CARE: i32 = -1;
/// Core ids are below this (Horizon's virtual cores).
const VIRTUAL_CORES: i32 = 64;
/// SleepThread's special values: yields.
const YIELD_WITHOUT_CORE_MIGRATION: i64 = 0;
const YIELD_WITH_CORE_MIGRATION: i64 = -1;
const YIELD_TO_ANY_THREAD: i64 = -2;
/// GetThreadContext3's ThreadContext: x0-x28, fp, lr, sp, pc, pstate + padding, v0-v31, fpcr, fpsr, tpidr.
const THREAD_CONTEXT_SIZE: usize = 0x320;

impl Kernel {
    /// Whether the program's NPDM lets it use `priority`.
    fn priority_allowed(&self, priority: i32) -> bool {
        (0..=i32::from(LOWEST_PRIORITY)).contains(&priority) && self.limits.priority_mask >> priority & 1 != 0
    }

    /// CreateThread(-, entry, argument, stack top, priority, core) -> (result, handle). The thread starts with X0 =
    /// the argument, SP = the stack top (the program's memory; Horizon does not check it), and its own
    /// thread-local region.
    pub(super) fn svc_create_thread(&mut self) -> Result<(), KernelResult> {
        let (entry, argument, stack_top) = (self.arg(1), self.arg(2), self.arg(3));
        let (priority, mut core) = (self.arg32(4) as i32, self.arg32(5) as i32);
        if core == IDEAL_CORE_USE_PROCESS_VALUE {
            core = self.limits.ideal_core as i32;
        }
        if !(0..VIRTUAL_CORES).contains(&core) || self.limits.core_mask >> core & 1 == 0 {
            return Err(KernelResult::InvalidCoreId);
        }
        if !self.priority_allowed(priority) {
            return Err(KernelResult::InvalidPriority);
        }
        let creator = self.current_thread();
        let (_, handle) =
            self.create_thread(entry, argument, stack_top, priority as u8, core as usize, Some(creator))?;
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// StartThread(handle): a created thread becomes runnable.
    pub(super) fn svc_start_thread(&mut self) -> Result<(), KernelResult> {
        let id = self.thread_from_handle(self.arg32(0))?;
        if self.threads[&id].state != ThreadState::Initialized {
            return Err(KernelResult::InvalidState);
        }
        self.start_thread(id);
        Ok(())
    }

    /// ExitThread(): the last running thread's exit ends the process.
    pub(super) fn svc_exit_thread(&mut self) -> Svc {
        let id = self.current_thread();
        if self.exit_thread(id) { Svc::End(RunOutcome::Exited) } else { Svc::Later }
    }

    /// SleepThread(ns): sleeps for a positive time; 0, -1 and -2 yield (to threads of the same priority on this
    /// core; the same, also pulling one from another core; to any thread, leaving the core); other values do
    /// nothing.
    pub(super) fn sleep_thread(&mut self) -> Svc {
        let ns = self.arg(0) as i64;
        let id = self.current_thread();
        match ns {
            YIELD_WITHOUT_CORE_MIGRATION => self.scheduler.yield_without_core_migration(id),
            YIELD_WITH_CORE_MIGRATION => self.scheduler.yield_with_core_migration(id),
            YIELD_TO_ANY_THREAD => self.scheduler.yield_to_any_thread(id),
            _ if ns > 0 => {
                let deadline = self.deadline(ns);
                self.begin_wait(id, Wait::Sleep, deadline);
            }
            _ => {}
        }
        Svc::Later
    }

    /// GetThreadPriority(-, handle) -> (result, priority): the effective priority (inheritance included).
    pub(super) fn get_thread_priority(&mut self) -> Result<(), KernelResult> {
        let id = self.thread_from_handle(self.arg32(1))?;
        self.set_output(1, u64::from(self.scheduler.priority(id)));
        Ok(())
    }

    /// SetThreadPriority(handle, priority): the base priority; the effective one may stay raised by inheritance.
    pub(super) fn set_thread_priority(&mut self) -> Result<(), KernelResult> {
        let (id, priority) = (self.thread_from_handle(self.arg32(0))?, self.arg32(1) as i32);
        if !self.priority_allowed(priority) {
            return Err(KernelResult::InvalidPriority);
        }
        self.thread_mut(id).base_priority = priority as u8;
        self.restore_priority(id);
        Ok(())
    }

    /// GetThreadCoreMask(-, -, handle) -> (result, ideal core, affinity mask).
    pub(super) fn get_thread_core_mask(&mut self) -> Result<(), KernelResult> {
        let id = self.thread_from_handle(self.arg32(2))?;
        let thread = &self.threads[&id];
        let (ideal, affinity) = (thread.ideal_core, thread.affinity);
        self.set_output(1, u64::from(ideal as u32));
        self.set_output(2, affinity);
        Ok(())
    }

    /// SetThreadCoreMask(handle, ideal core, affinity mask). The ideal core may be -1 (none), -2 (the process's,
    /// with a mask of just that core) or -3 (keep it); a thread whose core leaves the mask moves.
    pub(super) fn set_thread_core_mask(&mut self) -> Result<(), KernelResult> {
        let id = self.thread_from_handle(self.arg32(0))?;
        let (mut core, mut affinity) = (self.arg32(1) as i32, self.arg(2));
        if core == IDEAL_CORE_USE_PROCESS_VALUE {
            core = self.limits.ideal_core as i32;
            affinity = 1 << core;
        } else {
            if affinity | self.limits.core_mask != self.limits.core_mask {
                return Err(KernelResult::InvalidCoreId);
            }
            if affinity == 0 {
                return Err(KernelResult::InvalidCombination);
            }
            if (0..VIRTUAL_CORES).contains(&core) {
                if affinity >> core & 1 == 0 {
                    return Err(KernelResult::InvalidCombination);
                }
            } else if core != IDEAL_CORE_NO_UPDATE && core != IDEAL_CORE_DONT_CARE {
                return Err(KernelResult::InvalidCoreId);
            }
        }
        let thread = self.thread_mut(id);
        if core == IDEAL_CORE_NO_UPDATE {
            core = thread.ideal_core;
            if core >= 0 && affinity >> core & 1 == 0 {
                return Err(KernelResult::InvalidCombination);
            }
        }
        thread.ideal_core = core;
        thread.affinity = affinity;
        self.scheduler.set_affinity(id, usize::try_from(core).ok(), affinity);
        Ok(())
    }

    /// GetCurrentProcessorNumber() -> core.
    pub(super) fn get_current_processor_number(&mut self) -> Svc {
        let core = self.current.map_or(0, |(core, _)| core);
        self.set_output(0, core as u64);
        Svc::Later
    }

    /// GetThreadId(-, handle) -> (result, thread id).
    pub(super) fn get_thread_id(&mut self) -> Result<(), KernelResult> {
        let id = self.thread_from_handle(self.arg32(1))?;
        self.set_output(1, id);
        Ok(())
    }

    /// SetThreadActivity(handle, 0 = runnable | 1 = paused), for another thread that is running or waiting: a
    /// paused thread is not scheduled (a wait may still end meanwhile) until resumed.
    pub(super) fn set_thread_activity(&mut self) -> Result<(), KernelResult> {
        let activity = self.arg32(1);
        if activity > 1 {
            return Err(KernelResult::InvalidEnumValue);
        }
        let id = self.thread_from_handle(self.arg32(0))?;
        if id == self.current_thread() {
            return Err(KernelResult::Busy);
        }
        let thread = self.thread_mut(id);
        let pause = activity == 1;
        if !thread.is_alive() || thread.paused == pause {
            return Err(KernelResult::InvalidState);
        }
        thread.paused = pause;
        let schedulable = thread.is_schedulable();
        self.scheduler.set_queued(id, schedulable);
        Ok(())
    }

    /// GetThreadContext3(context *, handle): the registers of a paused thread of this process. For a thread inside
    /// a blocking SVC, X0-X18 read as 0 and PC is the SVC instruction, as Horizon reports them.
    pub(super) fn get_thread_context3(&mut self) -> Result<(), KernelResult> {
        let out = self.arg(0);
        let id = self.thread_from_handle(self.arg32(1))?;
        if id == self.current_thread() {
            return Err(KernelResult::Busy);
        }
        let thread = &self.threads[&id];
        if !thread.paused {
            return Err(KernelResult::InvalidState);
        }
        let (cpu, in_svc) = (&thread.cpu, thread.state == ThreadState::Waiting);
        let mut context = Vec::with_capacity(THREAD_CONTEXT_SIZE);
        for (n, x) in cpu.x.iter().enumerate() {
            let value = if in_svc && n < 19 { 0 } else { *x };
            context.extend_from_slice(&value.to_le_bytes());
        }
        let pc = if in_svc { cpu.pc.wrapping_sub(4) } else { cpu.pc };
        context.extend_from_slice(&cpu.sp.to_le_bytes());
        context.extend_from_slice(&pc.to_le_bytes());
        context.extend_from_slice(&cpu.nzcv.to_le_bytes());
        context.extend_from_slice(&0u32.to_le_bytes());
        for v in cpu.v {
            context.extend_from_slice(&v.to_le_bytes());
        }
        context.extend_from_slice(&cpu.fpcr.to_le_bytes());
        context.extend_from_slice(&cpu.fpsr.to_le_bytes());
        context.extend_from_slice(&cpu.tpidr_el0.to_le_bytes());
        debug_assert_eq!(context.len(), THREAD_CONTEXT_SIZE);
        self.memory.write(out, &context).map_err(|_| KernelResult::InvalidPointer)
    }
}
