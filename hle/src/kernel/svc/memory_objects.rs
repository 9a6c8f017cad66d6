//! Shared memory (CreateSharedMemory, MapSharedMemory, UnmapSharedMemory), transfer memory (CreateTransferMemory,
//! MapTransferMemory, UnmapTransferMemory) and code memory (CreateCodeMemory, ControlCodeMemory), with Horizon's
//! checks in Horizon's (mesosphère's) order.
//!
//! A shared memory object's bytes are `SharedPages`: every mapping of it is a view of the same pages, as many
//! as the program makes. Transfer and code memory lock heap pages and map them a second time (guest memory's
//! page aliasing), so the program's two addresses see each other's writes, as on the console: a JIT writes
//! through code memory's read-write view and runs what it wrote through the executable one. Host services read
//! transfer memory where it is.

use super::super::address_space::{
    ADDRESS_SPACE, ALIAS_REGION, ASLR_REGION, Block, HEAP_REGION, MemoryAttribute, MemoryState,
};
use super::super::{Kernel, KernelObject, StopReason};
use super::memory::check_range;
use super::{KernelResult, Svc};
use crate::service::ServiceSharedMemory;
use tandem_reference::memory::{PAGE_SIZE, Perm, SharedPages};

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
    pages: SharedPages,
    size: u64,
    /// Where the program has it mapped.
    mappings: Vec<u64>,
    /// Handles to it.
    references: u32,
}

/// A transfer memory object: heap pages locked while it lives, which the program may map once more.
#[derive(Debug)]
pub struct TransferMemory {
    address: u64,
    size: u64,
    /// What the creator kept of the pages (---, r-- or rw-); MapTransferMemory must name it.
    owner_perm: Perm,
    mapped_at: Option<u64>,
    references: u32,
}

/// A code memory object: heap pages locked (and filled with 0xFF) while it lives, mapped at most once
/// read-write (CodeOut, ControlCodeMemory's operation 0) and once read-only or executable (GeneratedCode,
/// operation 1).
#[derive(Debug)]
pub struct CodeMemory {
    address: u64,
    size: u64,
    writable_view: Option<u64>,
    executable_view: Option<u64>,
    references: u32,
}

/// ControlCodeMemory's operations (mesosphère's names; libnx calls 0 and 1 MapOwner and MapSlave).
const CODE_MEMORY_MAP: u32 = 0;
const CODE_MEMORY_MAP_TO_OWNER: u32 = 1;
const CODE_MEMORY_UNMAP: u32 = 2;
const CODE_MEMORY_UNMAP_FROM_OWNER: u32 = 3;

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
        if size == 0 || !size.is_multiple_of(PAGE_SIZE) || size > MAX_SHARED_MEMORY {
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
        let pages = SharedPages::new(size).map_err(|_| KernelResult::OutOfMemory)?;
        let id = self.next_memory_object;
        let handle = self.handles.add(KernelObject::SharedMemory(id)).ok_or(KernelResult::OutOfHandles)?;
        self.next_memory_object += 1;
        let object =
            SharedMemory { owner_perm, service_owned: false, pages, size, mappings: Vec::new(), references: 1 };
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
        let id = match existing {
            Some(id) => id,
            None => {
                let mut state = memory.state();
                let pages = SharedPages::new(state.bytes.len() as u64).ok()?;
                pages.write(0, &state.bytes).ok()?;
                let id = self.next_memory_object;
                self.next_memory_object += 1;
                let object = SharedMemory {
                    owner_perm: Perm::READ,
                    service_owned: true,
                    pages,
                    size: state.bytes.len() as u64,
                    mappings: Vec::new(),
                    references: 0,
                };
                self.shared_memories.insert(id, object);
                state.kernel_object = Some(id);
                state.dirty = false;
                self.service_shared_memories.push(memory.clone());
                id
            }
        };
        let handle = self.handles.add(KernelObject::SharedMemory(id))?;
        self.shared_memories.get_mut(&id).expect("made above").references += 1;
        Some(handle)
    }

    /// Copies what services wrote into their shared memory objects (and so into every mapping of them).
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
            let Some(object) = state.kernel_object.and_then(|id| self.shared_memories.get(&id)) else { continue };
            object.pages.write(0, &state.bytes).expect("the service's bytes are the object's size");
        }
        self.service_shared_memories = memories;
    }

    /// The memory object of `kind` (`KernelObject::SharedMemory`, ...) a handle names.
    fn memory_object_of(&self, handle: u32, kind: fn(u64) -> KernelObject) -> Result<u64, KernelResult> {
        match self.handles.get(handle) {
            Some(
                object @ (KernelObject::SharedMemory(id)
                | KernelObject::TransferMemory(id)
                | KernelObject::CodeMemory(id)),
            ) if object == kind(id) => Ok(id),
            _ => Err(KernelResult::InvalidHandle),
        }
    }

    /// Where shared, transfer and code memory views may go: inside the ASLR region, outside the heap and alias
    /// regions (mesosphere's CanContain; libnx's virtmemFindAslr avoids those two alone).
    fn check_view_region(address: u64, size: u64) -> Result<(), KernelResult> {
        let overlaps =
            |region: super::super::address_space::Region| address < region.end() && address + size > region.base;
        if !ASLR_REGION.contains(address, size) || [HEAP_REGION, ALIAS_REGION].into_iter().any(overlaps) {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        Ok(())
    }

    /// MapSharedMemory(handle, address, size, permission).
    pub(super) fn map_shared_memory(&mut self) -> Result<Svc, KernelResult> {
        let (handle, address, size, perm) = (self.arg32(0), self.arg(1), self.arg(2), self.arg32(3));
        check_range(address, size)?;
        let perm = read_or_read_write(perm).ok_or(KernelResult::InvalidNewMemoryPermission)?;
        let id = self.memory_object_of(handle, KernelObject::SharedMemory)?;
        Self::check_view_region(address, size)?;
        let object = &self.shared_memories[&id];
        if size != object.size {
            return Err(KernelResult::InvalidSize);
        }
        // The permission must be the object's own (mesosphère's KSharedMemory::Map): the owner's for the program's
        // objects, read-only for a service's (its remote permission).
        if perm != object.owner_perm {
            return Err(KernelResult::InvalidNewMemoryPermission);
        }
        self.uniform_block(address, size, 0, |block| block == Block::FREE)?;
        if let Err(error) = self.memory.map_shared(address, size, perm, &object.pages, 0) {
            return Ok(Svc::End(self.stop_at_svc(StopReason::HostMemory(error))));
        }
        self.shared_memories.get_mut(&id).expect("checked above").mappings.push(address);
        self.map.insert(address, size, MemoryState::Shared, perm);
        Ok(Svc::Return(KernelResult::Success))
    }

    /// UnmapSharedMemory(handle, address, size): the object takes its bytes back.
    pub(super) fn unmap_shared_memory(&mut self) -> Result<(), KernelResult> {
        let (handle, address, size) = (self.arg32(0), self.arg(1), self.arg(2));
        check_range(address, size)?;
        let id = self.memory_object_of(handle, KernelObject::SharedMemory)?;
        Self::check_view_region(address, size)?;
        let object = self.shared_memories.get_mut(&id).expect("a handle keeps its object");
        if object.size != size {
            return Err(KernelResult::InvalidSize);
        }
        let Some(at) = object.mappings.iter().position(|&mapping| mapping == address) else {
            return Err(KernelResult::InvalidCurrentMemory);
        };
        object.mappings.swap_remove(at);
        self.unmap_view(address, size);
        Ok(())
    }

    /// A handle to a shared memory object is gone; the object goes with the last (its mapping stays mapped until
    /// unmapped, as the mapping holds a reference in Horizon too).
    pub(super) fn release_shared_memory(&mut self, id: u64) {
        let object = self.shared_memories.get_mut(&id).expect("a handle keeps its object");
        object.references -= 1;
        if object.references == 0 && object.mappings.is_empty() {
            self.shared_memories.remove(&id);
        }
    }

    /// CreateTransferMemory(address, size, permission kept by the owner) -> (result, handle): read-write memory
    /// of a state that can be lent (the heap, and a module's data and bss: mesosphère's LockForTransferMemory),
    /// with no attribute, becomes Locked with that permission (---, r-- or rw-).
    pub(super) fn create_transfer_memory(&mut self) -> Result<(), KernelResult> {
        let (address, size, perm) = (self.arg(1), self.arg(2), self.arg32(3));
        check_range(address, size)?;
        let perm = match perm {
            0 => Perm::NONE,
            perm => read_or_read_write(perm).ok_or(KernelResult::InvalidNewMemoryPermission)?,
        };
        if !ADDRESS_SPACE.contains(address, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        self.uniform_block(address, size, 0, |block| {
            block.state.has(MemoryState::CAN_TRANSFER) && block.perm == Perm::RW && block.attr == MemoryAttribute::NONE
        })?;
        let id = self.next_memory_object;
        let handle = self.handles.add(KernelObject::TransferMemory(id)).ok_or(KernelResult::OutOfHandles)?;
        self.next_memory_object += 1;
        self.memory.protect(address, size, perm).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        self.map.update(address, size, |block| Block { perm, attr: MemoryAttribute::LOCKED, ..block });
        let object = TransferMemory { address, size, owner_perm: perm, mapped_at: None, references: 1 };
        self.transfer_memories.insert(id, object);
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// MapTransferMemory(handle, address, size, permission): the locked pages once more, read-write whatever the
    /// permission (which must be the one the creator kept): Transfered when the creator kept none, else
    /// SharedTransfered.
    pub(super) fn map_transfer_memory(&mut self) -> Result<Svc, KernelResult> {
        let (handle, address, size, perm) = (self.arg32(0), self.arg(1), self.arg(2), self.arg32(3));
        check_range(address, size)?;
        let perm = match perm {
            0 => Perm::NONE,
            perm => read_or_read_write(perm).ok_or(KernelResult::InvalidState)?,
        };
        let id = self.memory_object_of(handle, KernelObject::TransferMemory)?;
        Self::check_view_region(address, size)?;
        let object = &self.transfer_memories[&id];
        if size != object.size {
            return Err(KernelResult::InvalidSize);
        }
        if perm != object.owner_perm || object.mapped_at.is_some() {
            return Err(KernelResult::InvalidState);
        }
        self.uniform_block(address, size, 0, |block| block == Block::FREE)?;
        let state = if perm == Perm::NONE { MemoryState::Transfered } else { MemoryState::SharedTransfered };
        let source = object.address;
        if let Err(error) = self.memory.map_alias(address, source, size, Perm::RW) {
            return Ok(Svc::End(self.stop_at_svc(StopReason::HostMemory(error))));
        }
        self.transfer_memories.get_mut(&id).expect("checked above").mapped_at = Some(address);
        self.map.insert(address, size, state, Perm::RW);
        Ok(Svc::Return(KernelResult::Success))
    }

    /// UnmapTransferMemory(handle, address, size).
    pub(super) fn unmap_transfer_memory(&mut self) -> Result<(), KernelResult> {
        let (handle, address, size) = (self.arg32(0), self.arg(1), self.arg(2));
        check_range(address, size)?;
        let id = self.memory_object_of(handle, KernelObject::TransferMemory)?;
        Self::check_view_region(address, size)?;
        let object = &self.transfer_memories[&id];
        if size != object.size {
            return Err(KernelResult::InvalidSize);
        }
        let state =
            if object.owner_perm == Perm::NONE { MemoryState::Transfered } else { MemoryState::SharedTransfered };
        self.uniform_block(address, size, 0, |block| block.state == state && block.attr == MemoryAttribute::NONE)?;
        if object.mapped_at != Some(address) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        self.unmap_view(address, size);
        self.transfer_memories.get_mut(&id).expect("checked above").mapped_at = None;
        Ok(())
    }

    /// A handle to transfer memory is gone; with the last, the pages are the owner's again (read-write, unlocked)
    /// unless the program still maps them (then they stay locked, as in Horizon).
    pub(super) fn release_transfer_memory(&mut self, id: u64) {
        let object = self.transfer_memories.get_mut(&id).expect("a handle keeps its object");
        object.references -= 1;
        if object.references > 0 {
            return;
        }
        let TransferMemory { address, size, mapped_at, .. } = self.transfer_memories.remove(&id).expect("present");
        if mapped_at.is_none() {
            self.unlock_heap(address, size);
        }
    }

    /// CreateCodeMemory(address, size) -> (result, handle): read-write heap or module data with no attribute
    /// becomes Locked with no permission, filled with 0xFF.
    pub(super) fn create_code_memory(&mut self) -> Result<(), KernelResult> {
        let (address, size) = (self.arg(1), self.arg(2));
        check_range(address, size)?;
        if !ADDRESS_SPACE.contains(address, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        self.uniform_block(address, size, 0, |block| {
            matches!(block.state, MemoryState::Heap | MemoryState::CodeData)
                && block.perm == Perm::RW
                && block.attr == MemoryAttribute::NONE
        })?;
        let id = self.next_memory_object;
        let handle = self.handles.add(KernelObject::CodeMemory(id)).ok_or(KernelResult::OutOfHandles)?;
        self.next_memory_object += 1;
        let filled = [0xff; PAGE_SIZE as usize];
        for page in (address..address + size).step_by(PAGE_SIZE as usize) {
            self.memory.write_privileged(page, &filled).expect("checked mapped above");
        }
        self.memory.protect(address, size, Perm::NONE).expect("checked mapped above");
        self.map.update(address, size, |block| Block { perm: Perm::NONE, attr: MemoryAttribute::LOCKED, ..block });
        let object = CodeMemory { address, size, writable_view: None, executable_view: None, references: 1 };
        self.code_memories.insert(id, object);
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// ControlCodeMemory(handle, operation, address, size, permission): maps or unmaps the read-write view
    /// (operations 0 and 2, permission rw- and ---) or the read-only/executable one (1 and 3: r-- or r-x, ---).
    pub(super) fn control_code_memory(&mut self) -> Result<Svc, KernelResult> {
        let (handle, operation, address, size, perm) =
            (self.arg32(0), self.arg32(1), self.arg(2), self.arg(3), self.arg32(4));
        check_range(address, size)?;
        let id = self.memory_object_of(handle, KernelObject::CodeMemory)?;
        // The view's state and the permissions the operation accepts (--- only, to unmap).
        let (state, accepted): (MemoryState, &[u32]) = match operation {
            CODE_MEMORY_MAP => (MemoryState::CodeOut, &[3]),
            CODE_MEMORY_MAP_TO_OWNER => (MemoryState::GeneratedCode, &[1, 5]),
            CODE_MEMORY_UNMAP => (MemoryState::CodeOut, &[0]),
            CODE_MEMORY_UNMAP_FROM_OWNER => (MemoryState::GeneratedCode, &[0]),
            _ => return Err(KernelResult::InvalidEnumValue),
        };
        Self::check_view_region(address, size)?;
        if !accepted.contains(&perm) {
            return Err(KernelResult::InvalidNewMemoryPermission);
        }
        let object = &self.code_memories[&id];
        if size != object.size {
            return Err(KernelResult::InvalidSize);
        }
        let view = if state == MemoryState::CodeOut { object.writable_view } else { object.executable_view };
        if perm == 0 {
            self.uniform_block(address, size, 0, |block| block.state == state && block.attr == MemoryAttribute::NONE)?;
            if view != Some(address) {
                return Err(KernelResult::InvalidCurrentMemory);
            }
            self.unmap_view(address, size);
            self.set_code_memory_view(id, state, None);
            return Ok(Svc::Return(KernelResult::Success));
        }
        if view.is_some() {
            return Err(KernelResult::InvalidState);
        }
        self.uniform_block(address, size, 0, |block| block == Block::FREE)?;
        let perm = match perm {
            1 => Perm::READ,
            3 => Perm::RW,
            _ => Perm::RX,
        };
        if let Err(error) = self.memory.map_alias(address, object.address, size, perm) {
            return Ok(Svc::End(self.stop_at_svc(StopReason::HostMemory(error))));
        }
        self.set_code_memory_view(id, state, Some(address));
        self.map.insert(address, size, state, perm);
        Ok(Svc::Return(KernelResult::Success))
    }

    /// Another handle to a shared, transfer or code memory object (a handle copied in a message).
    pub(in super::super) fn reference_memory_object(&mut self, object: KernelObject) {
        let references = match object {
            KernelObject::SharedMemory(id) => self.shared_memories.get_mut(&id).map(|object| &mut object.references),
            KernelObject::TransferMemory(id) => {
                self.transfer_memories.get_mut(&id).map(|object| &mut object.references)
            }
            KernelObject::CodeMemory(id) => self.code_memories.get_mut(&id).map(|object| &mut object.references),
            _ => None,
        };
        *references.expect("a handle keeps its object") += 1;
    }

    fn set_code_memory_view(&mut self, id: u64, state: MemoryState, view: Option<u64>) {
        let object = self.code_memories.get_mut(&id).expect("callers check the id");
        match state {
            MemoryState::CodeOut => object.writable_view = view,
            _ => object.executable_view = view,
        }
    }

    /// A handle to code memory is gone; with the last, the pages are the owner's again (read-write, unlocked,
    /// with what the program wrote) if neither view is mapped (else they stay locked, as in Horizon).
    pub(super) fn release_code_memory(&mut self, id: u64) {
        let object = self.code_memories.get_mut(&id).expect("a handle keeps its object");
        object.references -= 1;
        if object.references > 0 {
            return;
        }
        let object = self.code_memories.remove(&id).expect("present");
        if object.writable_view.is_none() && object.executable_view.is_none() {
            self.unlock_heap(object.address, object.size);
        }
    }

    /// Unmaps a view of shared, transfer or code memory.
    fn unmap_view(&mut self, address: u64, size: u64) {
        self.memory.unmap(address, size).expect("the view is mapped");
        self.map.remove(address, size);
    }

    /// Heap pages that transfer or code memory locked are read-write and unlocked again.
    fn unlock_heap(&mut self, address: u64, size: u64) {
        self.memory.protect(address, size, Perm::RW).expect("locked memory stays mapped");
        self.map.update(address, size, |block| Block { perm: Perm::RW, attr: MemoryAttribute::NONE, ..block });
    }
}
