//! Supervisor calls, by Horizon's numbers and register conventions (switchbrew "SVC"), grouped as mesosphère groups
//! them: threads (`thread.rs`), handles, events and waits (`sync.rs`), mutexes, condition variables and address
//! arbiters (`lock.rs`), memory (`memory.rs`), and the process's queries and debugging calls here.
//!
//! Arguments are read from the calling thread's registers and results written back to them: W0 the result code,
//! then the outputs in X1, X2... A handler that blocks the thread leaves its registers alone; the end of the wait
//! writes them.

mod ipc;
mod lock;
mod memory;
mod memory_objects;

pub(super) use ipc::MAX_MESSAGE_SIZE;
pub use memory_objects::{CodeMemory, SharedMemory, TransferMemory};
mod sync;
mod thread;

use super::address_space::{
    ALIAS_REGION, ASLR_REGION, Block, HEAP_REGION, HEAP_SIZE_ALIGNMENT, MemoryAttribute, MemoryState, STACK_REGION,
    TOTAL_MEMORY,
};
use super::handle_table::CURRENT_PROCESS;
use super::{Kernel, KernelObject, PROCESS_ID, RunOutcome, StopReason, ThreadId, split_mix};
use tandem_reference::engine::COUNTER_FREQUENCY_HZ;
use tandem_reference::memory::Perm;

/// Horizon result codes (module 1, the kernel): `description << 9 | 1`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum KernelResult {
    Success = 0,
    InvalidSize = 101 << 9 | 1,
    InvalidAddress = 102 << 9 | 1,
    OutOfResource = 103 << 9 | 1,
    OutOfMemory = 104 << 9 | 1,
    OutOfHandles = 105 << 9 | 1,
    InvalidCurrentMemory = 106 << 9 | 1,
    InvalidNewMemoryPermission = 108 << 9 | 1,
    InvalidMemoryRegion = 110 << 9 | 1,
    InvalidPriority = 112 << 9 | 1,
    InvalidCoreId = 113 << 9 | 1,
    InvalidHandle = 114 << 9 | 1,
    InvalidPointer = 115 << 9 | 1,
    InvalidCombination = 116 << 9 | 1,
    TimedOut = 117 << 9 | 1,
    Cancelled = 118 << 9 | 1,
    OutOfRange = 119 << 9 | 1,
    InvalidEnumValue = 120 << 9 | 1,
    NotFound = 121 << 9 | 1,
    OutOfSessions = 7 << 9 | 1,
    Busy = 122 << 9 | 1,
    SessionClosed = 123 << 9 | 1,
    InvalidState = 125 << 9 | 1,
    LimitReached = 132 << 9 | 1,
    MessageTooLarge = 260 << 9 | 1,
}

/// What a handler leaves for the calling thread.
enum Svc {
    /// W0 = this result (outputs, if any, are already in their registers).
    Return(KernelResult),
    /// Nothing to write now: the thread blocked (the wait's end writes W0), or the SVC returns nothing.
    Later,
    /// The run is over.
    End(RunOutcome),
}

impl From<Result<(), KernelResult>> for Svc {
    fn from(result: Result<(), KernelResult>) -> Svc {
        Svc::Return(result.err().unwrap_or(KernelResult::Success))
    }
}

impl From<Result<Svc, KernelResult>> for Svc {
    fn from(result: Result<Svc, KernelResult>) -> Svc {
        result.unwrap_or_else(Svc::Return)
    }
}

/// MemoryInfo as QueryMemory writes it: addr, size, type, attr, perm, ipc_refcount, device_refcount, padding.
const MEMORY_INFO_SIZE: usize = 0x28;
/// Break's reason bit 31: a notification for a debugger, after which the program goes on.
const BREAK_NOTIFICATION_ONLY: u64 = 1 << 31;
/// OutputDebugString reads at most this much (longer strings are refused rather than read without bound).
const MAX_DEBUG_STRING: u64 = 1 << 20;

/// A timeout in nanoseconds as Horizon turns it into a deadline: rounded up to counter ticks, plus 2.
fn timeout_ticks(timeout_ns: i64) -> u64 {
    let ticks = (timeout_ns.max(0) as u128 * u128::from(COUNTER_FREQUENCY_HZ)).div_ceil(1_000_000_000);
    u64::try_from(ticks).unwrap_or(u64::MAX).saturating_add(2)
}

/// Names of Horizon's SVCs, for reports.
pub fn svc_name(number: u16) -> &'static str {
    const NAMES: &[(u16, &str)] = &[
        (0x01, "SetHeapSize"),
        (0x02, "SetMemoryPermission"),
        (0x03, "SetMemoryAttribute"),
        (0x04, "MapMemory"),
        (0x05, "UnmapMemory"),
        (0x06, "QueryMemory"),
        (0x07, "ExitProcess"),
        (0x08, "CreateThread"),
        (0x09, "StartThread"),
        (0x0a, "ExitThread"),
        (0x0b, "SleepThread"),
        (0x0c, "GetThreadPriority"),
        (0x0d, "SetThreadPriority"),
        (0x0e, "GetThreadCoreMask"),
        (0x0f, "SetThreadCoreMask"),
        (0x10, "GetCurrentProcessorNumber"),
        (0x11, "SignalEvent"),
        (0x12, "ClearEvent"),
        (0x13, "MapSharedMemory"),
        (0x14, "UnmapSharedMemory"),
        (0x15, "CreateTransferMemory"),
        (0x16, "CloseHandle"),
        (0x17, "ResetSignal"),
        (0x18, "WaitSynchronization"),
        (0x19, "CancelSynchronization"),
        (0x1a, "ArbitrateLock"),
        (0x1b, "ArbitrateUnlock"),
        (0x1c, "WaitProcessWideKeyAtomic"),
        (0x1d, "SignalProcessWideKey"),
        (0x1e, "GetSystemTick"),
        (0x1f, "ConnectToNamedPort"),
        (0x20, "SendSyncRequestLight"),
        (0x21, "SendSyncRequest"),
        (0x22, "SendSyncRequestWithUserBuffer"),
        (0x23, "SendAsyncRequestWithUserBuffer"),
        (0x24, "GetProcessId"),
        (0x25, "GetThreadId"),
        (0x26, "Break"),
        (0x27, "OutputDebugString"),
        (0x28, "ReturnFromException"),
        (0x29, "GetInfo"),
        (0x2a, "FlushEntireDataCache"),
        (0x2b, "FlushDataCache"),
        (0x2c, "MapPhysicalMemory"),
        (0x2d, "UnmapPhysicalMemory"),
        (0x2f, "GetLastThreadInfo"),
        (0x30, "GetResourceLimitLimitValue"),
        (0x31, "GetResourceLimitCurrentValue"),
        (0x32, "SetThreadActivity"),
        (0x33, "GetThreadContext3"),
        (0x34, "WaitForAddress"),
        (0x35, "SignalToAddress"),
        (0x36, "SynchronizePreemptionState"),
        (0x37, "GetResourceLimitPeakValue"),
        (0x40, "CreateSession"),
        (0x41, "AcceptSession"),
        (0x43, "ReplyAndReceive"),
        (0x44, "ReplyAndReceiveWithUserBuffer"),
        (0x45, "CreateEvent"),
        (0x4b, "CreateCodeMemory"),
        (0x4c, "ControlCodeMemory"),
        (0x50, "CreateSharedMemory"),
        (0x51, "MapTransferMemory"),
        (0x52, "UnmapTransferMemory"),
        (0x65, "GetProcessList"),
        (0x6f, "GetSystemInfo"),
        (0x70, "CreatePort"),
        (0x71, "ManageNamedPort"),
        (0x72, "ConnectToPort"),
        (0x73, "SetProcessMemoryPermission"),
        (0x74, "MapProcessMemory"),
        (0x75, "UnmapProcessMemory"),
        (0x76, "QueryProcessMemory"),
        (0x77, "MapProcessCodeMemory"),
        (0x78, "UnmapProcessCodeMemory"),
        (0x7c, "GetProcessInfo"),
        (0x7f, "CallSecureMonitor"),
    ];
    NAMES.iter().find(|(n, _)| *n == number).map_or("unknown", |(_, name)| name)
}

impl Kernel {
    /// Handles `SVC #number` for the current thread; `Some` when the run ends.
    pub(super) fn dispatch_svc(&mut self, number: u16) -> Option<RunOutcome> {
        if let Some(allowed) = &self.allowed_svcs
            && !allowed.allows(u32::from(number))
        {
            return Some(self.stop_at_svc(StopReason::SvcNotAllowed(number)));
        }
        tracing::trace!(svc = svc_name(number), pc = format_args!("{:#x}", self.cpu().pc), "svc");
        let outcome: Svc = match number {
            0x01 => self.set_heap_size().into(),
            0x02 => self.set_memory_permission().into(),
            0x03 => self.set_memory_attribute().into(),
            0x04 => self.map_memory().into(),
            0x05 => self.unmap_memory().into(),
            0x06 => self.query_memory().into(),
            0x07 => Svc::End(RunOutcome::Exited),
            0x08 => self.svc_create_thread().into(),
            0x09 => self.svc_start_thread().into(),
            0x0a => self.svc_exit_thread(),
            0x0b => self.sleep_thread(),
            0x0c => self.get_thread_priority().into(),
            0x0d => self.set_thread_priority().into(),
            0x0e => self.get_thread_core_mask().into(),
            0x0f => self.set_thread_core_mask().into(),
            0x10 => self.get_current_processor_number(),
            0x11 => self.signal_event().into(),
            0x13 => self.map_shared_memory().into(),
            0x14 => self.unmap_shared_memory().into(),
            0x15 => self.create_transfer_memory().into(),
            0x12 => self.clear_event().into(),
            0x16 => self.close_handle().into(),
            0x17 => self.reset_signal().into(),
            0x18 => self.wait_synchronization().into(),
            0x19 => self.cancel_synchronization().into(),
            0x1a => self.arbitrate_lock().into(),
            0x1b => self.arbitrate_unlock().into(),
            0x1c => self.wait_process_wide_key_atomic().into(),
            0x1d => self.signal_process_wide_key(),
            0x1f => self.connect_to_named_port().into(),
            0x21 => self.send_sync_request(),
            0x22 => self.send_sync_request_with_user_buffer(),
            0x1e => {
                let tick = self.tick();
                self.cpu().x[0] = tick;
                Svc::Later
            }
            0x24 => self.get_process_id().into(),
            0x25 => self.get_thread_id().into(),
            0x26 => self.break_(),
            0x27 => self.output_debug_string().into(),
            0x29 => self.get_info().into(),
            0x32 => self.set_thread_activity().into(),
            0x33 => self.get_thread_context3().into(),
            0x34 => self.wait_for_address().into(),
            0x35 => self.signal_to_address().into(),
            0x41 => self.accept_session().into(),
            0x43 => self.reply_and_receive().into(),
            0x45 => self.create_event().into(),
            0x2c => self.map_physical_memory().into(),
            0x2d => self.unmap_physical_memory().into(),
            0x4b => self.create_code_memory().into(),
            0x4c => self.control_code_memory().into(),
            0x50 => self.create_shared_memory().into(),
            0x51 => self.map_transfer_memory().into(),
            0x52 => self.unmap_transfer_memory().into(),
            0x71 => self.manage_named_port().into(),
            _ => Svc::End(self.stop_at_svc(StopReason::UnhandledSvc(number))),
        };
        match outcome {
            Svc::Return(result) => {
                self.cpu().x[0] = result as u64;
                None
            }
            Svc::Later => None,
            Svc::End(outcome) => Some(outcome),
        }
    }

    /// Argument register `n` of the current thread.
    fn arg(&self, n: usize) -> u64 {
        self.threads[&self.current_thread()].cpu.x[n]
    }

    /// A W register argument (a handle, a 32-bit value).
    fn arg32(&self, n: usize) -> u32 {
        self.arg(n) as u32
    }

    /// Writes output register `n` of the current thread.
    fn set_output(&mut self, n: usize, value: u64) {
        self.cpu().x[n] = value;
    }

    /// The deadline tick of a positive timeout; `None` for a negative one (no timeout). A timeout of 0 is the
    /// caller's to handle (it never waits).
    fn deadline(&self, timeout_ns: i64) -> Option<u64> {
        (timeout_ns > 0).then(|| self.tick().saturating_add(timeout_ticks(timeout_ns)))
    }

    /// The thread a handle names: the pseudo-handle 0xFFFF8000 is the caller.
    fn thread_from_handle(&self, handle: u32) -> Result<ThreadId, KernelResult> {
        if handle == super::handle_table::CURRENT_THREAD {
            return Ok(self.current_thread());
        }
        self.thread_from_real_handle(handle)
    }

    /// The thread a handle from the table names (no pseudo-handle).
    fn thread_from_real_handle(&self, handle: u32) -> Result<ThreadId, KernelResult> {
        match self.handles.get(handle) {
            Some(KernelObject::Thread(id)) => Ok(id),
            _ => Err(KernelResult::InvalidHandle),
        }
    }

    /// SetHeapSize(size) -> (result, heap address).
    fn set_heap_size(&mut self) -> Result<(), KernelResult> {
        /// The most memory a Switch has (mesosphère's MainMemorySizeMax).
        const MAIN_MEMORY_SIZE_MAX: u64 = 8 << 30;
        let size = self.arg(1);
        // mesosphère's order: the alignment and the 8 GiB main memory bound (InvalidSize), the heap region
        // (OutOfMemory), the process's memory limit (LimitReached), then the pages to grow into must be free.
        if !size.is_multiple_of(HEAP_SIZE_ALIGNMENT) || size >= MAIN_MEMORY_SIZE_MAX {
            return Err(KernelResult::InvalidSize);
        }
        if size > HEAP_REGION.size {
            return Err(KernelResult::OutOfMemory);
        }
        if size.saturating_add(self.shared_memory_size()) > TOTAL_MEMORY {
            return Err(KernelResult::LimitReached);
        }
        let base = HEAP_REGION.base;
        let current = self.heap_size;
        if size > current && self.map.blocks(base + current, size - current).iter().any(|&(_, _, b)| b != Block::FREE) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        if size > current {
            self.memory.map(base + current, size - current, Perm::RW).map_err(|error| {
                tracing::warn!(%error, "SetHeapSize could not grow the heap");
                KernelResult::OutOfMemory
            })?;
            self.map.insert(base + current, size - current, MemoryState::Heap, Perm::RW);
        } else if size < current {
            // Only heap the program has left as it was can go (not reprotected, not aliased by MapMemory).
            let untouched = self.map.blocks(base + size, current - size).iter().all(|(_, _, block)| {
                block.state == MemoryState::Heap && block.perm == Perm::RW && block.attr == MemoryAttribute::NONE
            });
            if !untouched {
                return Err(KernelResult::InvalidCurrentMemory);
            }
            self.memory.unmap(base + size, current - size).map_err(|_| KernelResult::InvalidCurrentMemory)?;
            self.map.remove(base + size, current - size);
        }
        self.heap_size = size;
        self.set_output(1, base);
        Ok(())
    }

    /// QueryMemory(MemoryInfo *out, -, address) -> (result, page info).
    fn query_memory(&mut self) -> Result<(), KernelResult> {
        let (out, address) = (self.arg(0), self.arg(2));
        let info = self.map.query(address);
        let mut bytes = [0u8; MEMORY_INFO_SIZE];
        bytes[0..8].copy_from_slice(&info.base.to_le_bytes());
        bytes[8..16].copy_from_slice(&info.size.to_le_bytes());
        bytes[16..20].copy_from_slice(&info.state.memory_type().to_le_bytes());
        bytes[20..24].copy_from_slice(&info.attr.0.to_le_bytes());
        bytes[24..28].copy_from_slice(&u32::from(info.perm.bits()).to_le_bytes());
        self.memory.write(out, &bytes).map_err(|_| KernelResult::InvalidPointer)?;
        self.set_output(1, 0);
        Ok(())
    }

    /// Break(reason, arg, size): stops the program unless bit 31 marks it a notification.
    fn break_(&mut self) -> Svc {
        let [reason, arg, size] = [self.arg(0), self.arg(1), self.arg(2)];
        if reason & BREAK_NOTIFICATION_ONLY != 0 {
            return Svc::Return(KernelResult::Success);
        }
        Svc::End(self.stop_at_svc(StopReason::Break { reason, arg, size }))
    }

    /// OutputDebugString(string, length).
    fn output_debug_string(&mut self) -> Result<(), KernelResult> {
        let (address, length) = (self.arg(0), self.arg(1));
        if length > MAX_DEBUG_STRING {
            return Err(KernelResult::InvalidSize);
        }
        let mut text = vec![0u8; length as usize];
        self.memory.read(address, &mut text).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        (self.output)(&text);
        Ok(())
    }

    /// GetProcessId(handle) -> (result, process id): the process pseudo-handle, or a thread's handle (its process).
    /// As in Horizon, the thread pseudo-handle is not accepted here.
    fn get_process_id(&mut self) -> Result<(), KernelResult> {
        let handle = self.arg32(1);
        match (handle, self.handles.get(handle)) {
            (CURRENT_PROCESS, _) | (_, Some(KernelObject::Thread(_))) => {
                self.set_output(1, PROCESS_ID);
                Ok(())
            }
            _ => Err(KernelResult::InvalidHandle),
        }
    }

    /// GetInfo(-, info id, handle, sub id) -> (result, value).
    fn get_info(&mut self) -> Result<(), KernelResult> {
        // The info type and the handle are 32-bit: their registers' upper halves are not read.
        let (id, handle, sub_id) = (self.arg32(1), self.arg32(2), self.arg(3));
        // As Horizon checks them: an unknown id, then a sub id other than 0 (InvalidCombination), then the handle.
        let aliased: u64 = self.aliases.values().map(|(size, _)| size).sum();
        let used = self.memory.regions().iter().map(|r| r.size).sum::<u64>() - aliased;
        let process_value = match id {
            0 => Some(self.limits.core_mask),
            1 => Some(self.limits.priority_mask),
            2 => Some(ALIAS_REGION.base),
            3 => Some(ALIAS_REGION.size),
            4 => Some(HEAP_REGION.base),
            5 => Some(HEAP_REGION.size),
            6 | 21 => Some(TOTAL_MEMORY),
            7 | 22 => Some(used),
            12 => Some(ASLR_REGION.base),
            13 => Some(ASLR_REGION.size),
            14 => Some(STACK_REGION.base),
            15 => Some(STACK_REGION.size),
            16 => Some(self.limits.system_resource_size),
            // SystemResourceSizeUsed: Tandem's kernel keeps its page tables outside guest memory.
            17 => Some(0),
            18 => Some(self.limits.program_id),
            20 => Some(self.process_local_region), // UserExceptionContextAddress.
            23 => Some(1),                         // IsApplication.
            28 => Some(0),                         // AliasRegionExtraSize: Tandem's alias region has none.
            _ => None,
        };
        let value = match (process_value, id) {
            (Some(_), _) if sub_id != 0 => Err(KernelResult::InvalidCombination),
            (Some(_), _) if handle != CURRENT_PROCESS => Err(KernelResult::InvalidHandle),
            (Some(value), _) => Ok(value),
            // DebuggerAttached and RandomEntropy take no handle (mesosphère's kern_svc_info.cpp).
            (None, 8 | 11) if handle != 0 => Err(KernelResult::InvalidHandle),
            (None, 8) if sub_id == 0 => Ok(0),
            (None, 11) if sub_id <= 3 => Ok(random_entropy(self.limits.program_id, sub_id)),
            (None, 8 | 11) => Err(KernelResult::InvalidCombination),
            (None, _) => {
                tracing::warn!(id, sub_id, "GetInfo: unknown info id");
                Err(KernelResult::InvalidEnumValue)
            }
        }?;
        self.set_output(1, value);
        Ok(())
    }
}

/// GetInfo(RandomEntropy): deterministic per program, so that runs replay exactly.
fn random_entropy(program_id: u64, index: u64) -> u64 {
    split_mix(program_id.wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}
