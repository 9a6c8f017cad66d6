//! The Linux process's address space inside Tandem's 39-bit guest memory: where things go, brk, and the page-level
//! work of mmap, munmap, mprotect and mremap.

use super::syscalls::Errno;
use tandem_reference::memory::{ADDRESS_SPACE_SIZE, GuestMemory, PAGE_SIZE, Perm};

/// The main thread's stack ends here (the top of the 39-bit space, less a guard page).
pub const STACK_TOP: u64 = ADDRESS_SPACE_SIZE - PAGE_SIZE;
/// Linux's default stack limit; mapped whole at start (Tandem does not grow stacks on faults).
pub const STACK_SIZE: u64 = 8 << 20;
/// mmap without an address searches downwards from here, below a gap for the stack.
pub const MMAP_TOP: u64 = STACK_TOP - STACK_SIZE - (1 << 30);
/// Where position-independent programs are placed (Linux uses 2/3 of the space; this is the 39-bit equivalent).
pub const PIE_BASE: u64 = 0x55_5555_0000;

#[derive(Default, Debug)]
pub struct MemoryMap {
    brk_start: u64,
    brk: u64,
}

pub fn page_align_up(value: u64) -> Option<u64> {
    value.checked_add(PAGE_SIZE - 1).map(|v| v & !(PAGE_SIZE - 1))
}

impl MemoryMap {
    /// The program break starts at `end`, the page-aligned end of the program's image.
    pub fn set_brk_start(&mut self, end: u64) {
        self.brk_start = end;
        self.brk = end;
    }

    /// brk(requested): moves the break if it can; returns the break (the old one on failure, as Linux does).
    pub fn brk(&mut self, memory: &mut GuestMemory, requested: u64) -> u64 {
        if requested < self.brk_start {
            return self.brk;
        }
        let (Some(old_end), Some(new_end)) = (page_align_up(self.brk), page_align_up(requested)) else {
            return self.brk;
        };
        if new_end > old_end {
            let free = memory.regions().iter().all(|r| r.address + r.size <= old_end || r.address >= new_end);
            if !free || new_end > MMAP_TOP || memory.map(old_end, new_end - old_end, Perm::RW).is_err() {
                return self.brk;
            }
        } else if new_end < old_end {
            unmap_range(memory, new_end, old_end - new_end);
        }
        self.brk = requested;
        self.brk
    }

    /// Maps `size` zeroed bytes at the highest free address below MMAP_TOP (or at `hint` when it is free).
    pub fn map_anywhere(&self, memory: &mut GuestMemory, hint: u64, size: u64, perm: Perm) -> Result<u64, Errno> {
        let size = page_align_up(size).ok_or(Errno::ENOMEM)?;
        let address = match find_free(memory, hint, size) {
            Some(address) => address,
            None => return Err(Errno::ENOMEM),
        };
        memory.map(address, size, perm).map_err(|_| Errno::ENOMEM)?;
        Ok(address)
    }

    /// MAP_FIXED: maps at `address`, replacing whatever was there.
    pub fn map_fixed(&self, memory: &mut GuestMemory, address: u64, size: u64, perm: Perm) -> Result<u64, Errno> {
        let size = page_align_up(size).ok_or(Errno::ENOMEM)?;
        if !address.is_multiple_of(PAGE_SIZE) || address.checked_add(size).is_none_or(|end| end > ADDRESS_SPACE_SIZE) {
            return Err(Errno::EINVAL);
        }
        unmap_range(memory, address, size);
        memory.map(address, size, perm).map_err(|_| Errno::ENOMEM)?;
        Ok(address)
    }

    /// munmap: whatever is mapped in the range goes; unmapped parts are fine.
    pub fn unmap(&self, memory: &mut GuestMemory, address: u64, size: u64) -> Result<(), Errno> {
        let size = page_align_up(size).ok_or(Errno::EINVAL)?;
        if !address.is_multiple_of(PAGE_SIZE) || size == 0 {
            return Err(Errno::EINVAL);
        }
        unmap_range(memory, address, size);
        Ok(())
    }

    /// mprotect: every page of the range must be mapped.
    pub fn protect(&self, memory: &mut GuestMemory, address: u64, size: u64, perm: Perm) -> Result<(), Errno> {
        let size = page_align_up(size).ok_or(Errno::ENOMEM)?;
        if !address.is_multiple_of(PAGE_SIZE) {
            return Err(Errno::EINVAL);
        }
        memory.protect(address, size, perm).map_err(|_| Errno::ENOMEM)
    }

    /// mremap: grows or shrinks in place when it can, else moves (MREMAP_MAYMOVE) with the contents. The old
    /// range must be mapped whole with one permission (one mapping, as Linux's single VMA: EFAULT otherwise).
    pub fn remap(
        &self,
        memory: &mut GuestMemory,
        address: u64,
        old_size: u64,
        new_size: u64,
        may_move: bool,
    ) -> Result<u64, Errno> {
        let (old_size, new_size) =
            (page_align_up(old_size).ok_or(Errno::EINVAL)?, page_align_up(new_size).ok_or(Errno::EINVAL)?);
        if !address.is_multiple_of(PAGE_SIZE) || old_size == 0 || new_size == 0 {
            return Err(Errno::EINVAL);
        }
        let old_end = address.checked_add(old_size).filter(|&end| end <= ADDRESS_SPACE_SIZE).ok_or(Errno::EFAULT)?;
        let perm = mapped_whole(memory, address, old_end).ok_or(Errno::EFAULT)?;
        if new_size <= old_size {
            unmap_range(memory, address + new_size, old_size - new_size);
            return Ok(address);
        }
        let grown = old_end.checked_add(new_size - old_size).is_some_and(|end| end <= MMAP_TOP);
        if grown && memory.map(old_end, new_size - old_size, perm).is_ok() {
            return Ok(address);
        }
        if !may_move {
            return Err(Errno::ENOMEM);
        }
        let new_address = self.map_anywhere(memory, 0, new_size, perm)?;
        // The contents move a piece at a time: the old range may be large.
        const PIECE: u64 = 1 << 20;
        let mut piece = vec![0u8; old_size.min(PIECE) as usize];
        for offset in (0..old_size).step_by(PIECE as usize) {
            let piece = &mut piece[..(old_size - offset).min(PIECE) as usize];
            memory.read_privileged(address + offset, piece).map_err(|_| Errno::EFAULT)?;
            memory.write_privileged(new_address + offset, piece).map_err(|_| Errno::EFAULT)?;
        }
        unmap_range(memory, address, old_size);
        Ok(new_address)
    }
}

/// The permission of `start..end` when every page of it is mapped with the same one.
fn mapped_whole(memory: &GuestMemory, start: u64, end: u64) -> Option<Perm> {
    let regions = memory.regions();
    let first = regions.iter().find(|r| r.address <= start && start < r.address + r.size)?;
    // `regions` merges neighbours of one permission, so one region holds the whole range or none does.
    (end <= first.address + first.size).then_some(first.perm)
}

/// Unmaps every mapped page in the range (page aligned).
pub fn unmap_range(memory: &mut GuestMemory, address: u64, size: u64) {
    let end = address.saturating_add(size);
    for region in memory.regions() {
        let (start, stop) = (region.address.max(address), (region.address + region.size).min(end));
        if start < stop {
            // The pages were just listed as mapped, so this cannot fail.
            let _ = memory.unmap(start, stop - start);
        }
    }
}

/// A free, page-aligned range of `size` bytes: at `hint` if that is free, else the highest below MMAP_TOP.
fn find_free(memory: &GuestMemory, hint: u64, size: u64) -> Option<u64> {
    let regions = memory.regions();
    let is_free = |start: u64| {
        start.is_multiple_of(PAGE_SIZE)
            && start.checked_add(size).is_some_and(|end| end <= MMAP_TOP)
            && regions.iter().all(|r| r.address + r.size <= start || r.address >= start + size)
    };
    if hint != 0 && is_free(hint) {
        return Some(hint);
    }
    let mut ceiling = MMAP_TOP;
    for region in regions.iter().rev() {
        if region.address >= ceiling {
            continue;
        }
        let region_end = region.address + region.size;
        if region_end <= ceiling && ceiling - region_end >= size {
            return Some(ceiling - size);
        }
        ceiling = ceiling.min(region.address);
    }
    (ceiling >= size + PAGE_SIZE).then(|| ceiling - size)
}
