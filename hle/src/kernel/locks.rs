//! Mutexes with priority inheritance (Horizon's lock protocol), and the kernel's own accesses to the user words that
//! mutexes, condition variables and address arbiters live in.
//!
//! A mutex is a 32-bit word in guest memory: 0 when free, else the owner's handle, with bit 30 (the waiters bit)
//! set while threads wait in the kernel. A thread that finds the mutex taken sets the bit itself and calls
//! ArbitrateLock; the kernel records it as a waiter of the owner. The owner (while it has waiters) runs at the
//! highest priority among its own priority and its waiters' (recursively along chains of owners), and hands the
//! mutex to its best waiter on ArbitrateUnlock.

use super::thread::{HeldLock, Wait};
use super::{Kernel, ThreadId};
use tandem_reference::memory::Access;

/// Bit 30 of a mutex word: threads wait in the kernel for it.
pub const HANDLE_WAIT_MASK: u32 = 0x4000_0000;

impl Kernel {
    /// Reads a user word as the guest could (its permissions apply).
    pub(super) fn read_user_u32(&self, address: u64) -> Option<u32> {
        let mut bytes = [0; 4];
        self.memory.read(address, &mut bytes).ok().map(|_| u32::from_le_bytes(bytes))
    }

    pub(super) fn read_user_u64(&self, address: u64) -> Option<u64> {
        let mut bytes = [0; 8];
        self.memory.read(address, &mut bytes).ok().map(|_| u64::from_le_bytes(bytes))
    }

    /// Writes a user word as the guest could; `false` when the guest could not.
    pub(super) fn write_user_u32(&self, address: u64, value: u32) -> bool {
        self.memory.write(address, &value.to_le_bytes()).is_ok()
    }

    /// Whether the kernel may read-modify-write this word on the guest's behalf.
    pub(super) fn can_access_atomic(&self, address: u64) -> bool {
        self.memory.check(address, 4, Access::Read).is_ok() && self.memory.check(address, 4, Access::Write).is_ok()
    }

    /// The mutex handover value for `next`: its tag, with the waiters bit when others still wait.
    pub(super) fn lock_tag(&self, next: Option<ThreadId>, has_waiters: bool) -> u32 {
        next.map_or(0, |next| self.threads[&next].key_value | if has_waiters { HANDLE_WAIT_MASK } else { 0 })
    }

    /// `waiter` (its `address_key` set) waits for a mutex `owner` holds; `owner` inherits its priority if better.
    pub(super) fn add_lock_waiter(&mut self, owner: ThreadId, waiter: ThreadId) {
        self.link_lock_waiter(owner, waiter);
        if self.scheduler.priority(waiter) < self.scheduler.priority(owner) {
            self.restore_priority(owner);
        }
    }

    /// Takes `waiter` off `owner`'s mutex; `owner` drops the priority it may have inherited from it.
    pub(super) fn remove_lock_waiter(&mut self, owner: ThreadId, waiter: ThreadId) {
        self.unlink_lock_waiter(owner, waiter);
        let (owner_priority, waiter_priority) = (self.scheduler.priority(owner), self.scheduler.priority(waiter));
        if owner_priority == waiter_priority && owner_priority < self.threads[&owner].base_priority {
            self.restore_priority(owner);
        }
    }

    fn link_lock_waiter(&mut self, owner: ThreadId, waiter: ThreadId) {
        let address = self.threads[&waiter].address_key;
        let priority = self.scheduler.priority(waiter);
        let position_in = |kernel: &Kernel, waiters: &[ThreadId]| {
            waiters.iter().position(|&other| kernel.scheduler.priority(other) > priority).unwrap_or(waiters.len())
        };
        let lock = self.threads[&owner].held_locks.iter().position(|lock| lock.address == address);
        match lock {
            Some(index) => {
                let position = position_in(self, &self.threads[&owner].held_locks[index].waiters);
                self.thread_mut(owner).held_locks[index].waiters.insert(position, waiter);
            }
            None => self.thread_mut(owner).held_locks.push(HeldLock { address, waiters: vec![waiter] }),
        }
        self.thread_mut(waiter).lock_owner = Some(owner);
    }

    fn unlink_lock_waiter(&mut self, owner: ThreadId, waiter: ThreadId) {
        let address = self.threads[&waiter].address_key;
        let locks = &mut self.thread_mut(owner).held_locks;
        if let Some(index) = locks.iter().position(|lock| lock.address == address) {
            locks[index].waiters.retain(|&other| other != waiter);
            if locks[index].waiters.is_empty() {
                locks.remove(index);
            }
        }
        self.thread_mut(waiter).lock_owner = None;
    }

    /// Recomputes a thread's effective priority (its base priority, raised to its best mutex waiter's) and passes
    /// the change on to the owner of the mutex it waits for, and so on along the chain.
    pub(super) fn restore_priority(&mut self, start: ThreadId) {
        let mut next = Some(start);
        // A chain visits each thread at most once per change; a cycle (threads waiting on each other's mutexes)
        // settles within as many steps as there are threads.
        let mut steps = self.threads.len() * 2 + 1;
        while let Some(id) = next {
            if steps == 0 {
                break;
            }
            steps -= 1;
            let thread = &self.threads[&id];
            let inherited = thread.held_locks.iter().filter_map(|lock| lock.waiters.first());
            let priority = inherited.map(|&w| self.scheduler.priority(w)).fold(thread.base_priority, u8::min);
            if priority == self.scheduler.priority(id) {
                return;
            }
            let owner = thread.lock_owner;
            if let Some(owner) = owner {
                self.unlink_lock_waiter(owner, id);
            }
            let running = self.current.is_some_and(|(_, current)| current == id);
            self.scheduler.set_priority(id, priority, running);
            // A condition variable or address waiter moves behind the waiters of its new priority.
            match self.threads[&id].wait {
                Some(Wait::ConditionVariable) => move_to_back(&mut self.condition_waiters, id),
                Some(Wait::Address) => move_to_back(&mut self.address_waiters, id),
                _ => {}
            }
            if let Some(owner) = owner {
                self.link_lock_waiter(owner, id);
            }
            next = owner;
        }
    }

    /// `owner` lets go of the mutex at `address`: its best waiter becomes the owner and takes over the other
    /// waiters. Returns the new owner and whether others still wait.
    pub(super) fn remove_lock_waiter_by_key(&mut self, owner: ThreadId, address: u64) -> (Option<ThreadId>, bool) {
        let locks = &mut self.thread_mut(owner).held_locks;
        let Some(index) = locks.iter().position(|lock| lock.address == address) else { return (None, false) };
        let mut lock = locks.remove(index);
        let next = lock.waiters.remove(0);
        self.thread_mut(next).lock_owner = None;
        let has_waiters = !lock.waiters.is_empty();
        if has_waiters {
            for &waiter in &lock.waiters {
                self.thread_mut(waiter).lock_owner = Some(next);
            }
            self.thread_mut(next).held_locks.push(lock);
        }
        let (owner_priority, next_priority) = (self.scheduler.priority(owner), self.scheduler.priority(next));
        if owner_priority == next_priority && owner_priority < self.threads[&owner].base_priority {
            self.restore_priority(owner);
        }
        (Some(next), has_waiters)
    }

    /// Waiters of `list` whose key is `key`, in signal order: best priority first, then arrival.
    pub(super) fn waiters_in_order(&self, list: &[ThreadId], key: impl Fn(ThreadId) -> bool) -> Vec<ThreadId> {
        let mut waiters: Vec<ThreadId> = list.iter().copied().filter(|&id| key(id)).collect();
        waiters.sort_by_key(|&id| self.scheduler.priority(id));
        waiters
    }
}

fn move_to_back(list: &mut Vec<ThreadId>, id: ThreadId) {
    list.retain(|&other| other != id);
    list.push(id);
}
