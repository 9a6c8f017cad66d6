//! Supervisor calls, by Horizon's numbers and register conventions (switchbrew "SVC").

use super::address_space::{
    ALIAS_REGION, ASLR_REGION, HEAP_REGION, HEAP_SIZE_ALIGNMENT, MemoryState, STACK_REGION, TOTAL_MEMORY,
};
use super::{Kernel, RunOutcome, StopReason};
use tandem_reference::memory::Perm;

/// Horizon result codes (module 1, the kernel): `description << 9 | 1`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum KernelResult {
    Success = 0,
    InvalidSize = 101 << 9 | 1,
    OutOfMemory = 104 << 9 | 1,
    InvalidCurrentMemory = 106 << 9 | 1,
    InvalidHandle = 114 << 9 | 1,
    InvalidCombination = 116 << 9 | 1,
    InvalidEnumValue = 120 << 9 | 1,
}

/// The pseudo-handle for the current process.
const CURRENT_PROCESS: u64 = 0xffff_8001;
/// MemoryInfo as QueryMemory writes it: addr, size, type, attr, perm, ipc_refcount, device_refcount, padding.
const MEMORY_INFO_SIZE: usize = 0x28;
/// Break's reason bit 31: a notification for a debugger, after which the program goes on.
const BREAK_NOTIFICATION_ONLY: u64 = 1 << 31;
/// OutputDebugString reads at most this much (longer strings are refused rather than read without bound).
const MAX_DEBUG_STRING: u64 = 1 << 20;

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
        tracing::trace!(svc = svc_name(number), pc = format_args!("{:#x}", self.thread.cpu.pc), "svc");
        let result = match number {
            0x01 => self.set_heap_size(),
            0x06 => self.query_memory(),
            0x07 => return Some(RunOutcome::Exited),
            0x1e => {
                let ticks = tandem_reference::GuestClock { instructions_before: self.retired }.counter(0);
                self.thread.cpu.x[0] = ticks;
                return None;
            }
            0x26 => return self.break_(),
            0x27 => self.output_debug_string(),
            0x29 => self.get_info(),
            _ => return Some(self.stop_at_svc(StopReason::UnhandledSvc(number))),
        };
        self.thread.cpu.x[0] = result as u64;
        None
    }

    /// Stops with the PC on the SVC instruction itself (the engine left it after the SVC).
    fn stop_at_svc(&mut self, reason: StopReason) -> RunOutcome {
        self.thread.cpu.pc -= 4;
        let word = self.word_at_pc();
        self.stop(reason, word)
    }

    /// SetHeapSize(size) -> (result, heap address).
    fn set_heap_size(&mut self) -> KernelResult {
        let size = self.thread.cpu.x[1];
        if !size.is_multiple_of(HEAP_SIZE_ALIGNMENT) || size > HEAP_REGION.size {
            return KernelResult::InvalidSize;
        }
        if size > TOTAL_MEMORY {
            return KernelResult::OutOfMemory;
        }
        let base = HEAP_REGION.base;
        let current = self.heap_size;
        let outcome = if size > current {
            self.memory.map(base + current, size - current, Perm::RW).map(|_| {
                self.map.insert(base + current, size - current, MemoryState::Heap, Perm::RW);
            })
        } else if size < current {
            self.memory.unmap(base + size, current - size).map(|_| self.map.remove(base + size, current - size))
        } else {
            Ok(())
        };
        if let Err(error) = outcome {
            tracing::warn!(%error, "SetHeapSize could not change the heap mapping");
            return KernelResult::OutOfMemory;
        }
        self.heap_size = size;
        self.thread.cpu.x[1] = base;
        KernelResult::Success
    }

    /// QueryMemory(MemoryInfo *out, -, address) -> (result, page info).
    fn query_memory(&mut self) -> KernelResult {
        let (out, address) = (self.thread.cpu.x[0], self.thread.cpu.x[2]);
        let info = self.map.query(address);
        let mut bytes = [0u8; MEMORY_INFO_SIZE];
        bytes[0..8].copy_from_slice(&info.base.to_le_bytes());
        bytes[8..16].copy_from_slice(&info.size.to_le_bytes());
        bytes[16..20].copy_from_slice(&(info.state as u32).to_le_bytes());
        bytes[24..28].copy_from_slice(&u32::from(info.perm.bits()).to_le_bytes());
        if self.memory.write(out, &bytes).is_err() {
            return KernelResult::InvalidCurrentMemory;
        }
        self.thread.cpu.x[1] = 0;
        KernelResult::Success
    }

    /// Break(reason, arg, size): stops the program unless bit 31 marks it a notification.
    fn break_(&mut self) -> Option<RunOutcome> {
        let [reason, arg, size] = [self.thread.cpu.x[0], self.thread.cpu.x[1], self.thread.cpu.x[2]];
        if reason & BREAK_NOTIFICATION_ONLY != 0 {
            self.thread.cpu.x[0] = KernelResult::Success as u64;
            return None;
        }
        Some(self.stop_at_svc(StopReason::Break { reason, arg, size }))
    }

    /// OutputDebugString(string, length).
    fn output_debug_string(&mut self) -> KernelResult {
        let (address, length) = (self.thread.cpu.x[0], self.thread.cpu.x[1]);
        if length > MAX_DEBUG_STRING {
            return KernelResult::InvalidSize;
        }
        let mut text = vec![0u8; length as usize];
        if self.memory.read(address, &mut text).is_err() {
            return KernelResult::InvalidCurrentMemory;
        }
        (self.output)(&text);
        KernelResult::Success
    }

    /// GetInfo(-, info id, handle, sub id) -> (result, value).
    fn get_info(&mut self) -> KernelResult {
        let (id, handle, sub_id) = (self.thread.cpu.x[1], self.thread.cpu.x[2], self.thread.cpu.x[3]);
        // As Horizon checks them: an unknown id, then a sub id other than 0 (InvalidCombination), then the handle.
        let used = self.memory.regions().iter().map(|r| r.size).sum::<u64>();
        let process_value = match id {
            0 => Some(0b1111),                // CoreMask: cores 0-3.
            1 => Some(0xffff_ffff_ffff_fff8), // PriorityMask: 3-63.
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
            16 | 17 => Some(0), // SystemResourceSize total / used.
            18 => Some(self.program_id),
            23 => Some(1), // IsApplication.
            _ => None,
        };
        let value = match (process_value, id) {
            (Some(_), _) if sub_id != 0 => Err(KernelResult::InvalidCombination),
            (Some(_), _) if handle != CURRENT_PROCESS => Err(KernelResult::InvalidHandle),
            (Some(value), _) => Ok(value),
            (None, 8) if sub_id == 0 => Ok(0), // DebuggerAttached.
            (None, 11) if sub_id <= 3 => Ok(random_entropy(self.program_id, sub_id)),
            (None, 8 | 11) => Err(KernelResult::InvalidCombination),
            (None, _) => {
                tracing::warn!(id, sub_id, "GetInfo: unknown info id");
                Err(KernelResult::InvalidEnumValue)
            }
        };
        match value {
            Ok(value) => {
                self.thread.cpu.x[1] = value;
                KernelResult::Success
            }
            Err(result) => result,
        }
    }
}

/// GetInfo(RandomEntropy): deterministic per program, so that runs replay exactly (SplitMix64 of the id).
fn random_entropy(program_id: u64, index: u64) -> u64 {
    let mut z = program_id.wrapping_add((index + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
