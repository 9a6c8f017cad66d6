//! Shared memory (CreateSharedMemory, MapSharedMemory, UnmapSharedMemory) and transfer memory
//! (CreateTransferMemory), with Horizon's checks in Horizon's order.
//!
//! A shared memory object holds its bytes while unmapped and lends them to its one mapping while mapped (one
//! process, and Tandem's guest memory has no page aliasing, so a second simultaneous mapping stops the run with a
//! report). Transfer memory locks heap pages with the permission the owner keeps, until its last handle closes;
//! host services read it where it is.

use super::super::address_space::{
    ALIAS_REGION, ASLR_REGION, Block, HEAP_REGION, MemoryAttribute, MemoryState, STACK_REGION,
};
use super::super::{Kernel, KernelObject, StopReason};
use super::memory::check_range;
use super::{KernelResult, Svc};
use crate::service::ServiceSharedMemory;
use tandem_reference::memory::Perm;

/// CreateSharedMemory's remote permission meaning "whatever the mapper asks".
const DONT_CARE: u32 = 0x1000_0000;
/// The largest shared memory object: the application pool.
const MAX_SHARED_MEMORY: u64 = super::super::address_space::TOTAL_MEMORY;

/// A shared memory object.
#[derive(Debug)]
pub struct SharedMemory {
    /// The most permissive mapping this process may make: the creator's (CreateSharedMemory), or read-only for
    /// memory a service owns.
    owner_perm: Perm,
    /// A service's (hid's): the system's memory, not the application's, and kept in step with the service's bytes.
    service_owned: bool,
    /// Its bytes while unmapped and once written (`None`: all zero, nothing allocated; while mapped, the mapping
    /// holds them).
    bytes: Option<Vec<u8>>,
    size: u64,
    mapped_at: Option<u64>,
    /// Handles to it.
    references: u32,
}

/// A transfer memory object: heap pages locked while it lives.
#[derive(Debug)]
pub struct TransferMemory {
    address: u64,
    size: u64,
    references: u32,
}

/// `r--` or `rw-` from a permission argument.
fn read_or_read_write(perm: u32) -> Option<Perm> {
    match perm {
        1 => Some(Perm::READ),
        3 => Some(Perm::RW),
        _ => None,
    }
}

impl Kernel {
    /// CreateSharedMemory(size, owner permission, remote permission) -> (result, handle).
    pub(super) fn create_shared_memory(&mut self) -> Result<(), KernelResult> {
        let (size, owner_perm, remote_perm) = (self.arg(1), self.arg32(2), self.arg32(3));
        if size == 0 || !size.is_multiple_of(tandem_reference::memory::PAGE_SIZE) || size > MAX_SHARED_MEMORY {
            return Err(KernelResult::InvalidSize);
        }
        let owner_perm = read_or_read_write(owner_perm).ok_or(KernelResult::InvalidNewMemoryPermission)?;
        if read_or_read_write(remote_perm).is_none() && remote_perm != DONT_CARE {
            return Err(KernelResult::InvalidNewMemoryPermission);
        }
        // The objects' memory counts against the application's, with the heap, as Horizon's resource limit counts.
        if self.shared_memory_size() + self.heap_size + size > MAX_SHARED_MEMORY {
            return Err(KernelResult::LimitReached);
        }
        let id = self.next_memory_object;
        let handle = self.handles.add(KernelObject::SharedMemory(id)).ok_or(KernelResult::OutOfHandles)?;
        self.next_memory_object += 1;
        let object =
            SharedMemory { owner_perm, service_owned: false, bytes: None, size, mapped_at: None, references: 1 };
        self.shared_memories.insert(id, object);
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// The bytes of every shared memory object.
    pub(super) fn shared_memory_size(&self) -> u64 {
        self.shared_memories.values().filter(|object| !object.service_owned).map(|object| object.size).sum()
    }

    /// A handle to the kernel object behind a service's shared memory, made when first given out.
    pub(crate) fn service_shared_memory_handle(&mut self, memory: &ServiceSharedMemory) -> Option<u32> {
        let existing = memory.state().kernel_object.filter(|id| self.shared_memories.contains_key(id));
        let id = existing.unwrap_or_else(|| {
            let id = self.next_memory_object;
            self.next_memory_object += 1;
            let mut state = memory.state();
            let object = SharedMemory {
                owner_perm: Perm::READ,
                service_owned: true,
                bytes: Some(state.bytes.clone()),
                size: state.bytes.len() as u64,
                mapped_at: None,
                references: 0,
            };
            self.shared_memories.insert(id, object);
            state.kernel_object = Some(id);
            state.dirty = false;
            self.service_shared_memories.push(memory.clone());
            id
        });
        let handle = self.handles.add(KernelObject::SharedMemory(id))?;
        self.shared_memories.get_mut(&id).expect("made above").references += 1;
        Some(handle)
    }

    /// Copies what services wrote into their shared memory objects: into the guest's mapping, or the object's
    /// bytes while unmapped.
    pub(crate) fn sync_service_shared_memories(&mut self) {
        let mut memories = std::mem::take(&mut self.service_shared_memories);
        // Objects whose last handle and mapping are gone were dropped; a new handle makes another.
        memories.retain(|memory| memory.state().kernel_object.is_some_and(|id| self.shared_memories.contains_key(&id)));
        for memory in &memories {
            let mut state = memory.state();
            if !state.dirty {
                continue;
            }
            state.dirty = false;
            let Some(object) = state.kernel_object.and_then(|id| self.shared_memories.get_mut(&id)) else { continue };
            match object.mapped_at {
                Some(address) => self.memory.write_privileged(address, &state.bytes).expect("the mapping is there"),
                None => object.bytes = Some(state.bytes.clone()),
            }
        }
        self.service_shared_memories = memories;
    }

    /// The shared memory a handle names.
    fn shared_memory_of(&self, handle: u32) -> Result<u64, KernelResult> {
        match self.handles.get(handle) {
            Some(KernelObject::SharedMemory(id)) => Ok(id),
            _ => Err(KernelResult::InvalidHandle),
        }
    }

    /// Where shared memory may go: inside the ASLR region, outside the heap, alias and stack regions.
    fn check_shared_memory_region(address: u64, size: u64) -> Result<(), KernelResult> {
        let overlaps =
            |region: super::super::address_space::Region| address < region.end() && address + size > region.base;
        if !ASLR_REGION.contains(address, size) || [HEAP_REGION, ALIAS_REGION, STACK_REGION].into_iter().any(overlaps) {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        Ok(())
    }

    /// MapSharedMemory(handle, address, size, permission).
    pub(super) fn map_shared_memory(&mut self) -> Result<Svc, KernelResult> {
        let (handle, address, size, perm) = (self.arg32(0), self.arg(1), self.arg(2), self.arg32(3));
        check_range(address, size)?;
        let perm = read_or_read_write(perm).ok_or(KernelResult::InvalidNewMemoryPermission)?;
        let id = self.shared_memory_of(handle)?;
        Self::check_shared_memory_region(address, size)?;
        let object = &self.shared_memories[&id];
        if size != object.size {
            return Err(KernelResult::InvalidSize);
        }
        if !object.owner_perm.contains(perm) {
            return Err(KernelResult::InvalidNewMemoryPermission);
        }
        self.uniform_block(address, size, 0, |block| block == Block::FREE)?;
        if object.mapped_at.is_some() {
            let what = "mapping one shared memory object at two addresses (Tandem's guest memory has no aliasing)";
            return Ok(Svc::End(self.stop_at_svc(StopReason::Unsupported(what))));
        }
        self.memory.map(address, size, perm).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        let object = self.shared_memories.get_mut(&id).expect("checked above");
        let bytes = object.bytes.take();
        object.mapped_at = Some(address);
        if let Some(bytes) = bytes {
            self.memory.write_privileged(address, &bytes).expect("mapped just now");
        }
        self.map.insert(address, size, MemoryState::Shared, perm);
        Ok(Svc::Return(KernelResult::Success))
    }

    /// UnmapSharedMemory(handle, address, size): the object takes its bytes back.
    pub(super) fn unmap_shared_memory(&mut self) -> Result<(), KernelResult> {
        let (handle, address, size) = (self.arg32(0), self.arg(1), self.arg(2));
        check_range(address, size)?;
        let id = self.shared_memory_of(handle)?;
        Self::check_shared_memory_region(address, size)?;
        let object = &self.shared_memories[&id];
        if object.mapped_at != Some(address) || object.size != size {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        self.unmap_shared(id);
        Ok(())
    }

    fn unmap_shared(&mut self, id: u64) {
        let object = self.shared_memories.get_mut(&id).expect("callers check the id");
        let Some(address) = object.mapped_at.take() else { return };
        let mut bytes = vec![0; object.size as usize];
        self.memory.read_privileged(address, &mut bytes).expect("the mapping is there");
        object.bytes = Some(bytes);
        let size = object.size;
        self.memory.unmap(address, size).expect("the mapping is there");
        self.map.remove(address, size);
    }

    /// A handle to a shared memory object is gone; the object goes with the last (its mapping stays mapped until
    /// unmapped, as the mapping holds a reference in Horizon too).
    pub(super) fn release_shared_memory(&mut self, id: u64) {
        let object = self.shared_memories.get_mut(&id).expect("a handle keeps its object");
        object.references -= 1;
        if object.references == 0 && object.mapped_at.is_none() {
            self.shared_memories.remove(&id);
        }
    }

    /// CreateTransferMemory(address, size, permission kept by the owner) -> (result, handle): read-write heap with
    /// no attribute becomes Locked with that permission (---, r-- or rw-).
    pub(super) fn create_transfer_memory(&mut self) -> Result<(), KernelResult> {
        let (address, size, perm) = (self.arg(1), self.arg(2), self.arg32(3));
        check_range(address, size)?;
        let perm = match perm {
            0 => Perm::NONE,
            perm => read_or_read_write(perm).ok_or(KernelResult::InvalidNewMemoryPermission)?,
        };
        if !HEAP_REGION.contains(address, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        self.uniform_block(address, size, 0, |block| {
            block.state == MemoryState::Heap && block.perm == Perm::RW && block.attr == MemoryAttribute::NONE
        })?;
        let id = self.next_memory_object;
        let handle = self.handles.add(KernelObject::TransferMemory(id)).ok_or(KernelResult::OutOfHandles)?;
        self.next_memory_object += 1;
        self.memory.protect(address, size, perm).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        self.map.update(address, size, |block| Block { perm, attr: MemoryAttribute::LOCKED, ..block });
        self.transfer_memories.insert(id, TransferMemory { address, size, references: 1 });
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// A handle to transfer memory is gone; with the last, the pages are the owner's again (read-write, unlocked).
    pub(super) fn release_transfer_memory(&mut self, id: u64) {
        let object = self.transfer_memories.get_mut(&id).expect("a handle keeps its object");
        object.references -= 1;
        if object.references > 0 {
            return;
        }
        let TransferMemory { address, size, .. } = self.transfer_memories.remove(&id).expect("present");
        self.memory.protect(address, size, Perm::RW).expect("transfer memory stays mapped");
        self.map.update(address, size, |block| Block { perm: Perm::RW, attr: MemoryAttribute::NONE, ..block });
    }
}
