//! The Linux process's address space inside Tandem's 39-bit guest memory: where things go, brk, and the page-level
//! work of mmap, munmap, mprotect, mremap and madvise(MADV_DONTNEED).
//!
//! Invariant: `MemoryMap::file_pages` names exactly the mapped pages whose bytes came from a file mapping (the
//! guest memory holds a copy of the file's bytes): every path that unmaps or moves pages goes through
//! `MemoryMap::unmap_pages` or `MemoryMap::remap`, which keep it so.

use super::syscalls::Errno;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;
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
    /// The pages of file mappings, by address: what MADV_DONTNEED reads back into them.
    file_pages: BTreeMap<u64, FilePage>,
}

/// Where a page of a file mapping came from: its file (kept open, as the kernel keeps a mapped file) and offset.
#[derive(Clone, Debug)]
struct FilePage {
    file: Arc<OwnedFd>,
    offset: u64,
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
            self.unmap_pages(memory, new_end, old_end - new_end);
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
    pub fn map_fixed(&mut self, memory: &mut GuestMemory, address: u64, size: u64, perm: Perm) -> Result<u64, Errno> {
        let size = page_align_up(size).ok_or(Errno::ENOMEM)?;
        if !address.is_multiple_of(PAGE_SIZE) || address.checked_add(size).is_none_or(|end| end > ADDRESS_SPACE_SIZE) {
            return Err(Errno::EINVAL);
        }
        self.unmap_pages(memory, address, size);
        memory.map(address, size, perm).map_err(|_| Errno::ENOMEM)?;
        Ok(address)
    }

    /// munmap: whatever is mapped in the range goes; unmapped parts are fine.
    pub fn unmap(&mut self, memory: &mut GuestMemory, address: u64, size: u64) -> Result<(), Errno> {
        let size = page_align_up(size).ok_or(Errno::EINVAL)?;
        if !address.is_multiple_of(PAGE_SIZE) || size == 0 {
            return Err(Errno::EINVAL);
        }
        self.unmap_pages(memory, address, size);
        Ok(())
    }

    /// Unmaps every mapped page in the range (page aligned), forgetting which came from files.
    fn unmap_pages(&mut self, memory: &mut GuestMemory, address: u64, size: u64) {
        self.take_file_pages(address, size);
        unmap_range(memory, address, size);
    }

    /// Removes and returns the file pages of the range.
    fn take_file_pages(&mut self, address: u64, size: u64) -> BTreeMap<u64, FilePage> {
        let mut taken = self.file_pages.split_off(&address);
        let mut after = taken.split_off(&address.saturating_add(size));
        self.file_pages.append(&mut after);
        taken
    }

    /// Notes that the `size` bytes mapped at `address` are a copy of `file` from `offset`.
    pub fn note_file_mapping(&mut self, address: u64, size: u64, file: OwnedFd, offset: u64) {
        let file = Arc::new(file);
        for page in (0..size).step_by(PAGE_SIZE as usize) {
            self.file_pages.insert(address + page, FilePage { file: file.clone(), offset: offset + page });
        }
    }

    /// madvise(MADV_DONTNEED) of a page-aligned range: its private pages read as their file again (zeros past
    /// the file's end), or as zeros where no file is behind them; shared memory keeps its bytes, which live in
    /// the shared object. Unmapped parts are skipped and make the call ENOMEM, after the rest is done (as Linux).
    pub fn drop_pages(&self, memory: &GuestMemory, address: u64, size: u64) -> Result<(), Errno> {
        let end = address.checked_add(size).ok_or(Errno::EINVAL)?;
        let mut page = vec![0u8; PAGE_SIZE as usize];
        let mut covered = address;
        for region in memory.regions() {
            let (start, stop) = (region.address.max(address), (region.address + region.size).min(end));
            if start >= stop {
                continue;
            }
            covered = if start == covered { stop } else { u64::MAX };
            for at in (start..stop).step_by(PAGE_SIZE as usize) {
                if memory.is_shared(at) {
                    continue;
                }
                page.fill(0);
                if let Some(source) = self.file_pages.get(&at) {
                    read_file_page(source, &mut page)?;
                }
                memory.write_privileged(at, &page).map_err(|_| Errno::EFAULT)?;
            }
        }
        if covered == end { Ok(()) } else { Err(Errno::ENOMEM) }
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
        &mut self,
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
            self.unmap_pages(memory, address + new_size, old_size - new_size);
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
        let moved = self.take_file_pages(address, old_size);
        unmap_range(memory, address, old_size);
        for (page, source) in moved {
            self.file_pages.insert(new_address + (page - address), source);
        }
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

/// Reads a file mapping's page back from its file, up to the file's end (the rest of `page` stays zero).
fn read_file_page(source: &FilePage, page: &mut [u8]) -> Result<(), Errno> {
    let mut done = 0;
    while done < page.len() {
        let at = (source.offset + done as u64) as i64;
        let rest = &mut page[done..];
        // SAFETY: `rest` is a live buffer of `rest.len()` bytes; the descriptor is owned by `source`.
        let read = unsafe { libc::pread(source.file.as_raw_fd(), rest.as_mut_ptr().cast(), rest.len(), at) };
        match read {
            0 => break,
            read if read > 0 => done += read as usize,
            _ => return Err(Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(5))),
        }
    }
    Ok(())
}

/// Unmaps every mapped page in the range (page aligned). Only for memory no file mapping can be in yet (the
/// loader's); the process's own calls go through `MemoryMap::unmap_pages`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn byte(memory: &GuestMemory, address: u64) -> u8 {
        let mut value = [0u8];
        memory.read_privileged(address, &mut value).unwrap();
        value[0]
    }

    /// madvise(2): "subsequent accesses of pages in the range will succeed, but will result in either
    /// repopulating the memory contents from the up-to-date contents of the underlying mapped file (for shared
    /// file mappings, shared anonymous mappings, and shmem-based techniques such as System V shared memory
    /// segments) or zero-fill-on-demand pages for anonymous private mappings"; a range with unmapped parts is
    /// ENOMEM (mm/madvise.c goes on over the mapped ones).
    #[test]
    fn dropped_pages_read_as_their_file_or_zeros_and_holes_are_enomem() {
        let mut memory = GuestMemory::new().unwrap();
        let mut map = MemoryMap::default();
        let file = file_holding(b"file bytes");
        let anonymous = map.map_anywhere(&mut memory, 0, 2 * PAGE_SIZE, Perm::RW).unwrap();
        let mapped = map.map_anywhere(&mut memory, 0, 2 * PAGE_SIZE, Perm::RW).unwrap();
        memory.write_privileged(mapped, b"file bytes").unwrap();
        map.note_file_mapping(mapped, 2 * PAGE_SIZE, file, 0);
        for address in [anonymous, anonymous + PAGE_SIZE, mapped, mapped + PAGE_SIZE + 7] {
            memory.write_privileged(address, b"X").unwrap();
        }

        assert_eq!(map.drop_pages(&memory, anonymous, PAGE_SIZE), Ok(()));
        assert_eq!((byte(&memory, anonymous), byte(&memory, anonymous + PAGE_SIZE)), (0, b'X'));
        assert_eq!(map.drop_pages(&memory, mapped, 2 * PAGE_SIZE), Ok(()));
        assert_eq!((byte(&memory, mapped), byte(&memory, mapped + PAGE_SIZE + 7)), (b'f', 0));

        // mremap moves the file's pages with the mapping; munmap forgets them.
        memory.write_privileged(mapped, b"Y").unwrap();
        let moved = map.remap(&mut memory, mapped, 2 * PAGE_SIZE, 8 * PAGE_SIZE, true).unwrap();
        assert_ne!(moved, mapped);
        assert_eq!(map.drop_pages(&memory, moved, PAGE_SIZE), Ok(()));
        assert_eq!(byte(&memory, moved), b'f');
        map.unmap(&mut memory, moved, PAGE_SIZE).unwrap();
        assert!(map.file_pages.range(moved..moved + PAGE_SIZE).next().is_none());

        memory.write_privileged(anonymous + PAGE_SIZE, b"Z").unwrap();
        map.unmap(&mut memory, anonymous, PAGE_SIZE).unwrap();
        assert_eq!(map.drop_pages(&memory, anonymous, 2 * PAGE_SIZE), Err(Errno::ENOMEM));
        assert_eq!(byte(&memory, anonymous + PAGE_SIZE), 0, "the mapped part is dropped all the same");
    }

    fn file_holding(bytes: &[u8]) -> OwnedFd {
        let path = std::env::temp_dir().join(format!("tandem-madvise-{}", std::process::id()));
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file.into()
    }
}
