//! Mutexes, condition variables and address arbiters: ArbitrateLock, ArbitrateUnlock, WaitProcessWideKeyAtomic,
//! SignalProcessWideKey, WaitForAddress, SignalToAddress. The protocols are in `locks.rs`.

use super::super::locks::HANDLE_WAIT_MASK;
use super::super::thread::Wait;
use super::super::{Kernel, ThreadId};
use super::{KernelResult, Svc};

/// Where the kernel's half of the address space starts; user words there are refused before anything else.
const KERNEL_ADDRESS_SPACE_BASE: u64 = 0xffff_ff80_0000_0000;

/// WaitForAddress's arbitration types.
const WAIT_IF_LESS_THAN: u32 = 0;
const DECREMENT_AND_WAIT_IF_LESS_THAN: u32 = 1;
const WAIT_IF_EQUAL: u32 = 2;
const WAIT_IF_EQUAL_64: u32 = 3;
/// SignalToAddress's signal types.
const SIGNAL: u32 = 0;
const SIGNAL_AND_INCREMENT_IF_EQUAL: u32 = 1;
const SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL: u32 = 2;

/// The checks every call here starts with: not a kernel address, aligned to `alignment`.
fn check_user_word(address: u64, alignment: u64) -> Result<(), KernelResult> {
    if address >= KERNEL_ADDRESS_SPACE_BASE {
        return Err(KernelResult::InvalidCurrentMemory);
    }
    if !address.is_multiple_of(alignment) {
        return Err(KernelResult::InvalidAddress);
    }
    Ok(())
}

impl Kernel {
    /// ArbitrateLock(owner handle, mutex address, own tag): if the mutex word still holds the owner's handle with
    /// the waiters bit, waits until the owner hands the mutex over (then the word holds this thread's tag);
    /// otherwise returns at once so that the caller tries again.
    pub(super) fn arbitrate_lock(&mut self) -> Result<Svc, KernelResult> {
        let (owner_handle, address, tag) = (self.arg32(0), self.arg(1), self.arg32(2));
        check_user_word(address, 4)?;
        let word = self.read_user_u32(address).ok_or(KernelResult::InvalidCurrentMemory)?;
        if word != owner_handle | HANDLE_WAIT_MASK {
            return Ok(Svc::Return(KernelResult::Success));
        }
        let owner = self.thread_from_real_handle(owner_handle)?;
        let id = self.current_thread();
        let thread = self.thread_mut(id);
        (thread.address_key, thread.key_value) = (address, tag);
        self.add_lock_waiter(owner, id);
        self.begin_wait(id, Wait::Lock, None);
        Ok(Svc::Later)
    }

    /// ArbitrateUnlock(mutex address): hands the mutex to the best waiter (the word gets its tag, with the waiters
    /// bit if others still wait) or frees it (0).
    pub(super) fn arbitrate_unlock(&mut self) -> Result<(), KernelResult> {
        let address = self.arg(0);
        check_user_word(address, 4)?;
        let id = self.current_thread();
        self.release_lock(id, address)
    }

    /// The current owner `id` lets go of the mutex at `address`; the next owner wakes with the outcome.
    fn release_lock(&mut self, id: ThreadId, address: u64) -> Result<(), KernelResult> {
        let (next, has_waiters) = self.remove_lock_waiter_by_key(id, address);
        let tag = self.lock_tag(next, has_waiters);
        let result =
            if self.write_user_u32(address, tag) { KernelResult::Success } else { KernelResult::InvalidCurrentMemory };
        if let Some(next) = next {
            self.end_wait(next, Some(result));
        }
        match result {
            KernelResult::Success => Ok(()),
            error => Err(error),
        }
    }

    /// WaitProcessWideKeyAtomic(mutex address, condition variable key, own tag, timeout ns): releases the mutex,
    /// marks the condition variable as having waiters (its word = 1) and waits for a signal; a signalled waiter
    /// takes the mutex back before it returns (waiting for it if another thread holds it).
    pub(super) fn wait_process_wide_key_atomic(&mut self) -> Result<Svc, KernelResult> {
        let (address, key, tag, timeout) = (self.arg(0), self.arg(1) & !3, self.arg32(2), self.arg(3) as i64);
        check_user_word(address, 4)?;
        let deadline = self.deadline(timeout);
        let id = self.current_thread();
        let (next, has_waiters) = self.remove_lock_waiter_by_key(id, address);
        let tag_for_next = self.lock_tag(next, has_waiters);
        if let Some(next) = next {
            self.end_wait(next, Some(KernelResult::Success));
        }
        self.write_user_u32(key, 1);
        if !self.write_user_u32(address, tag_for_next) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        if timeout == 0 {
            return Err(KernelResult::TimedOut);
        }
        let thread = self.thread_mut(id);
        (thread.cv_key, thread.address_key, thread.key_value) = (key, address, tag);
        self.condition_waiters.push(id);
        self.begin_wait(id, Wait::ConditionVariable, deadline);
        Ok(Svc::Later)
    }

    /// SignalProcessWideKey(condition variable key, count): wakes up to `count` waiters (all when `count` <= 0), best
    /// priority first; each takes its mutex back or queues for it. With no waiters left the word becomes 0.
    pub(super) fn signal_process_wide_key(&mut self) -> Svc {
        let (key, count) = (self.arg(0) & !3, self.arg32(1) as i32);
        let waiters = self.waiters_in_order(&self.condition_waiters, |id| self.threads[&id].cv_key == key);
        let taken = if count > 0 { waiters.len().min(count as usize) } else { waiters.len() };
        for &waiter in &waiters[..taken] {
            self.condition_waiters.retain(|&other| other != waiter);
            self.reacquire_mutex(waiter);
        }
        if taken == waiters.len() {
            self.write_user_u32(key, 0);
        }
        Svc::Later
    }

    /// A signalled condition variable waiter takes its mutex: free (0) -> it owns it and returns; held -> the waiters
    /// bit is set and it waits for the owner; held by no thread of ours -> InvalidState.
    fn reacquire_mutex(&mut self, waiter: ThreadId) {
        let thread = &self.threads[&waiter];
        let (address, tag) = (thread.address_key, thread.key_value);
        let word = if self.can_access_atomic(address) { self.read_user_u32(address) } else { None };
        let Some(word) = word else {
            self.end_wait(waiter, Some(KernelResult::InvalidCurrentMemory));
            return;
        };
        self.write_user_u32(address, if word == 0 { tag } else { word | HANDLE_WAIT_MASK });
        if word == 0 {
            self.end_wait(waiter, Some(KernelResult::Success));
            return;
        }
        match self.thread_from_real_handle(word & !HANDLE_WAIT_MASK) {
            Ok(owner) => {
                self.thread_mut(waiter).wait = Some(Wait::Lock);
                self.add_lock_waiter(owner, waiter);
            }
            Err(_) => self.end_wait(waiter, Some(KernelResult::InvalidState)),
        }
    }

    /// WaitForAddress(address, type, value, timeout ns): waits for SignalToAddress on the address if its word is
    /// less than the value (type 0; type 1 also decrements it then) or equal to it (type 2; type 3 compares 64
    /// bits). Otherwise InvalidState.
    pub(super) fn wait_for_address(&mut self) -> Result<Svc, KernelResult> {
        let (address, kind, value, timeout) = (self.arg(0), self.arg32(1), self.arg(2), self.arg(3) as i64);
        check_user_word(address, if kind == WAIT_IF_EQUAL_64 { 8 } else { 4 })?;
        let value32 = value as u32 as i32;
        let waits = match kind {
            WAIT_IF_LESS_THAN | WAIT_IF_EQUAL => {
                let word = self.read_user_u32(address).ok_or(KernelResult::InvalidCurrentMemory)? as i32;
                if kind == WAIT_IF_EQUAL { word == value32 } else { word < value32 }
            }
            DECREMENT_AND_WAIT_IF_LESS_THAN => {
                let word = self.atomic_word(address)?;
                if word < value32 {
                    self.write_user_u32(address, word.wrapping_sub(1) as u32);
                }
                word < value32
            }
            WAIT_IF_EQUAL_64 => self.read_user_u64(address).ok_or(KernelResult::InvalidCurrentMemory)? == value,
            _ => return Err(KernelResult::InvalidEnumValue),
        };
        if !waits {
            return Err(KernelResult::InvalidState);
        }
        if timeout == 0 {
            return Err(KernelResult::TimedOut);
        }
        let deadline = self.deadline(timeout);
        let id = self.current_thread();
        self.thread_mut(id).arbiter_address = address;
        self.address_waiters.push(id);
        self.begin_wait(id, Wait::Address, deadline);
        Ok(Svc::Later)
    }

    /// A word the kernel reads and may update on the guest's behalf (it must be writable).
    fn atomic_word(&self, address: u64) -> Result<i32, KernelResult> {
        match self.can_access_atomic(address) {
            true => self.read_user_u32(address).map(|word| word as i32).ok_or(KernelResult::InvalidCurrentMemory),
            false => Err(KernelResult::InvalidCurrentMemory),
        }
    }

    /// SignalToAddress(address, type, value, count): wakes up to `count` waiters on the address (all when `count`
    /// <= 0), best priority first. Type 1 first requires the word to equal the value and increments it; type 2
    /// requires it to equal the value and sets it to value + 1 when nobody waits, value - 1 when every waiter wakes,
    /// and leaves it when some stay.
    pub(super) fn signal_to_address(&mut self) -> Result<(), KernelResult> {
        let (address, kind, value, count) = (self.arg(0), self.arg32(1), self.arg32(2) as i32, self.arg32(3) as i32);
        check_user_word(address, 4)?;
        if kind > SIGNAL_AND_MODIFY_BY_WAITING_COUNT_IF_EQUAL {
            return Err(KernelResult::InvalidEnumValue);
        }
        let waiters = self.waiters_in_order(&self.address_waiters, |id| self.threads[&id].arbiter_address == address);
        let taken = if count > 0 { waiters.len().min(count as usize) } else { waiters.len() };
        let new_value = match kind {
            SIGNAL => None,
            SIGNAL_AND_INCREMENT_IF_EQUAL => Some(value.wrapping_add(1)),
            _ if waiters.is_empty() => Some(value.wrapping_add(1)),
            _ if taken == waiters.len() => Some(value.wrapping_sub(1)),
            _ => Some(value),
        };
        if let Some(new_value) = new_value {
            let word = if new_value == value {
                self.read_user_u32(address).map(|word| word as i32).ok_or(KernelResult::InvalidCurrentMemory)?
            } else {
                self.atomic_word(address)?
            };
            if word != value {
                return Err(KernelResult::InvalidState);
            }
            if new_value != value {
                self.write_user_u32(address, new_value as u32);
            }
        }
        for &waiter in &waiters[..taken] {
            self.end_wait(waiter, Some(KernelResult::Success));
        }
        Ok(())
    }
}
