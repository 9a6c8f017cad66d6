//! Memory: SetMemoryPermission, SetMemoryAttribute, MapMemory, UnmapMemory, Map/UnmapPhysicalMemory (SetHeapSize
//! and QueryMemory are in `mod.rs`; shared and transfer memory in `memory_objects.rs`). The checks follow Horizon's order: alignment and size, then the range, then the state of every block
//! in it (all blocks of a range must agree, else InvalidCurrentMemory).
//!
//! MapMemory makes heap memory reachable at a second address in the stack region while the original becomes
//! unusable (no permission, Locked) until UnmapMemory. Since only one of the two addresses is ever accessible, the
//! kernel moves the bytes rather than sharing pages: MapMemory copies them to the alias, UnmapMemory copies them
//! back.

use super::super::Kernel;
use super::super::address_space::{
    ADDRESS_SPACE, ALIAS_REGION, Block, MemoryAttribute, MemoryState, STACK_REGION, TOTAL_MEMORY,
};
use super::KernelResult;
use tandem_reference::memory::{PAGE_SIZE, Perm};

/// Bytes moved at a time between a MapMemory alias and its source.
const COPY_CHUNK: usize = 0x10000;

/// The address and size checks of every call here.
pub(super) fn check_range(address: u64, size: u64) -> Result<(), KernelResult> {
    if !address.is_multiple_of(PAGE_SIZE) {
        return Err(KernelResult::InvalidAddress);
    }
    if size == 0 || !size.is_multiple_of(PAGE_SIZE) {
        return Err(KernelResult::InvalidSize);
    }
    if address.checked_add(size).is_none() {
        return Err(KernelResult::InvalidCurrentMemory);
    }
    Ok(())
}

impl Kernel {
    /// The one block every page of the range has (attributes compared outside `ignored_attr`), if `accept` takes
    /// it; else InvalidCurrentMemory.
    pub(super) fn uniform_block(
        &self,
        address: u64,
        size: u64,
        ignored_attr: u32,
        accept: impl Fn(Block) -> bool,
    ) -> Result<Block, KernelResult> {
        let blocks = self.map.blocks(address, size);
        let (_, _, first) = blocks[0];
        let same = |block: &Block| {
            block.state == first.state
                && block.perm == first.perm
                && block.attr.0 & !ignored_attr == first.attr.0 & !ignored_attr
        };
        if blocks.iter().all(|(_, _, block)| same(block) && accept(*block)) {
            Ok(first)
        } else {
            Err(KernelResult::InvalidCurrentMemory)
        }
    }

    /// SetMemoryPermission(address, size, permission): ---, r-- or rw- on memory whose state allows reprotecting
    /// (heap, module data) and that carries no attribute.
    pub(super) fn set_memory_permission(&mut self) -> Result<(), KernelResult> {
        let (address, size, perm) = (self.arg(0), self.arg(1), self.arg32(2));
        check_range(address, size)?;
        let perm = match perm {
            0 => Perm::NONE,
            1 => Perm::READ,
            3 => Perm::RW,
            _ => return Err(KernelResult::InvalidNewMemoryPermission),
        };
        if !ADDRESS_SPACE.contains(address, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        let block = self.uniform_block(address, size, 0, |block| {
            block.state.has(MemoryState::CAN_REPROTECT) && block.attr == MemoryAttribute::NONE
        })?;
        if block.perm != perm {
            self.memory.protect(address, size, perm).map_err(|_| KernelResult::InvalidCurrentMemory)?;
            self.map.update(address, size, |block| Block { perm, ..block });
        }
        Ok(())
    }

    /// SetMemoryAttribute(address, size, mask, attribute): sets or clears Uncached (where the state allows it) and
    /// sets PermissionLocked (once set, never cleared; where the state allows it) on memory that is neither Locked
    /// nor IpcLocked.
    pub(super) fn set_memory_attribute(&mut self) -> Result<(), KernelResult> {
        let (address, size, mask, attr) = (self.arg(0), self.arg(1), self.arg32(2), self.arg32(3));
        check_range(address, size)?;
        let settable = MemoryAttribute::UNCACHED.0 | MemoryAttribute::PERMISSION_LOCKED.0;
        let locked = MemoryAttribute::PERMISSION_LOCKED.0;
        if mask | attr != mask || (mask | attr) & !settable != 0 || mask & locked != attr & locked {
            return Err(KernelResult::InvalidCombination);
        }
        if !ADDRESS_SPACE.contains(address, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        let mut needs = 0;
        if mask & MemoryAttribute::UNCACHED.0 != 0 {
            needs |= MemoryState::CAN_CHANGE_ATTRIBUTE;
        }
        if mask & locked != 0 {
            needs |= MemoryState::CAN_PERMISSION_LOCK;
        }
        let ignored = settable | MemoryAttribute::DEVICE_SHARED.0;
        self.uniform_block(address, size, ignored, |block| block.state.has(needs) && block.attr.0 & !ignored == 0)?;
        self.map.update(address, size, |block| Block { attr: MemoryAttribute(block.attr.0 & !mask | attr), ..block });
        Ok(())
    }

    /// MapMemory(destination, source, size): aliases read-write heap (or module data) into free memory of the stack
    /// region; the source becomes Locked with no permission.
    pub(super) fn map_memory(&mut self) -> Result<(), KernelResult> {
        let (destination, source, size) = (self.arg(0), self.arg(1), self.arg(2));
        check_range(destination, PAGE_SIZE)?;
        check_range(source, size)?;
        check_range(destination, size)?;
        if !ADDRESS_SPACE.contains(source, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        if !STACK_REGION.contains(destination, size) {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        let source_block = self.uniform_block(source, size, 0, |block| {
            block.state.has(MemoryState::CAN_ALIAS) && block.perm == Perm::RW && block.attr == MemoryAttribute::NONE
        })?;
        self.uniform_block(destination, size, 0, |block| block == Block::FREE)?;
        self.memory.map(destination, size, Perm::RW).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        self.move_bytes(source, destination, size);
        self.memory.protect(source, size, Perm::NONE).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        self.map.set(source, size, Block { perm: Perm::NONE, attr: MemoryAttribute::LOCKED, ..source_block });
        self.map.set(destination, size, Block::new(MemoryState::Stack, Perm::RW));
        self.map.set_head(destination);
        self.aliases.insert(destination, (size, source));
        Ok(())
    }

    /// UnmapMemory(destination, source, size): undoes MapMemory (the whole alias or a part of it, at the same
    /// offsets); the source gets its contents and read-write permission back.
    pub(super) fn unmap_memory(&mut self) -> Result<(), KernelResult> {
        let (destination, source, size) = (self.arg(0), self.arg(1), self.arg(2));
        check_range(destination, PAGE_SIZE)?;
        check_range(source, size)?;
        check_range(destination, size)?;
        if !ADDRESS_SPACE.contains(source, size) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        if !STACK_REGION.contains(destination, size) {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        self.uniform_block(source, size, 0, |block| {
            block.state.has(MemoryState::CAN_ALIAS) && block.perm == Perm::NONE && block.attr == MemoryAttribute::LOCKED
        })?;
        self.uniform_block(destination, size, 0, |block| {
            block.state == MemoryState::Stack && block.attr == MemoryAttribute::NONE
        })?;
        if !self.is_alias_of(destination, source, size) {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        self.memory.protect(source, size, Perm::RW).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        self.move_bytes(destination, source, size);
        self.memory.unmap(destination, size).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        self.map.update(source, size, |block| Block { perm: Perm::RW, attr: MemoryAttribute::NONE, ..block });
        self.map.remove(destination, size);
        self.cut_aliases(destination, size);
        Ok(())
    }

    /// Whether every page of `destination..+size` is MapMemory's alias of the page at the same offset from `source`.
    fn is_alias_of(&self, destination: u64, source: u64, size: u64) -> bool {
        let mut address = destination;
        while address < destination + size {
            let alias =
                self.aliases.range(..=address).next_back().filter(|(start, (length, _))| address < *start + length);
            let Some((&start, &(length, from))) = alias else { return false };
            if from + (address - start) != source + (address - destination) {
                return false;
            }
            address = start + length;
        }
        true
    }

    /// Forgets the aliasing of `destination..+size`, keeping the parts of aliases outside it.
    fn cut_aliases(&mut self, destination: u64, size: u64) {
        let end = destination + size;
        let touched: Vec<(u64, (u64, u64))> = self
            .aliases
            .range(..end)
            .filter(|(start, (length, _))| *start + length > destination)
            .map(|(start, alias)| (*start, *alias))
            .collect();
        for (start, (length, source)) in touched {
            self.aliases.remove(&start);
            if start < destination {
                self.aliases.insert(start, (destination - start, source));
            }
            if start + length > end {
                self.aliases.insert(end, (start + length - end, source + (end - start)));
            }
        }
    }

    /// Copies `size` bytes of mapped memory from `from` to `to` (permissions do not apply: this is the kernel).
    fn move_bytes(&self, from: u64, to: u64, size: u64) {
        let mut buffer = vec![0u8; COPY_CHUNK];
        let mut offset = 0;
        while offset < size {
            let length = (size - offset).min(COPY_CHUNK as u64) as usize;
            let chunk = &mut buffer[..length];
            let copied = self
                .memory
                .read_privileged(from + offset, chunk)
                .and_then(|_| self.memory.write_privileged(to + offset, chunk));
            debug_assert!(copied.is_ok(), "both ranges are mapped");
            offset += length as u64;
        }
    }

    /// The checks MapPhysicalMemory and UnmapPhysicalMemory share, in Horizon's order; then the blocks of the
    /// range.
    fn physical_memory_range(&self) -> Result<Vec<(u64, u64, Block)>, KernelResult> {
        let (address, size) = (self.arg(0), self.arg(1));
        if !address.is_multiple_of(PAGE_SIZE) {
            return Err(KernelResult::InvalidAddress);
        }
        if size == 0 || !size.is_multiple_of(PAGE_SIZE) {
            return Err(KernelResult::InvalidSize);
        }
        if address.checked_add(size).is_none() {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        if self.limits.system_resource_size == 0 {
            return Err(KernelResult::InvalidState);
        }
        if !ALIAS_REGION.contains(address, size) {
            return Err(KernelResult::InvalidMemoryRegion);
        }
        Ok(self.map.blocks(address, size))
    }

    /// MapPhysicalMemory(address, size): the free pages of a range of the alias region become read-write memory
    /// (pages already mapped stay as they are, whatever their state: mesosphère counts every block that is not
    /// Free as mapped). Needs a system resource (the NPDM's).
    pub(super) fn map_physical_memory(&mut self) -> Result<(), KernelResult> {
        let blocks = self.physical_memory_range()?;
        let free: Vec<(u64, u64)> =
            blocks.iter().filter(|(_, _, b)| *b == Block::FREE).map(|&(a, s, _)| (a, s)).collect();
        let adding: u64 = free.iter().map(|(_, size)| size).sum();
        let used: u64 = self.memory.regions().iter().map(|region| region.size).sum();
        if used + adding > TOTAL_MEMORY {
            return Err(KernelResult::LimitReached);
        }
        for (address, size) in free {
            self.memory.map(address, size, Perm::RW).map_err(|_| KernelResult::OutOfMemory)?;
            self.map.insert(address, size, MemoryState::Heap, Perm::RW);
        }
        Ok(())
    }

    /// UnmapPhysicalMemory(address, size): the mapped pages of the range go; each must be Normal memory with no
    /// attribute, whatever its permission (mesosphère's UnmapPhysicalMemory).
    pub(super) fn unmap_physical_memory(&mut self) -> Result<(), KernelResult> {
        let blocks = self.physical_memory_range()?;
        let unmappable = |block: &Block| {
            *block == Block::FREE || (block.state == MemoryState::Heap && block.attr == MemoryAttribute::NONE)
        };
        if !blocks.iter().all(|(_, _, block)| unmappable(block)) {
            return Err(KernelResult::InvalidCurrentMemory);
        }
        for (address, size, block) in blocks {
            if block != Block::FREE {
                self.memory.unmap(address, size).map_err(|_| KernelResult::InvalidCurrentMemory)?;
                self.map.remove(address, size);
            }
        }
        Ok(())
    }
}
