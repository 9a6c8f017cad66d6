//! Guest memory: one reserved host range of 2^39 bytes, plus a table of guest permissions per 4 KiB page.
//!
//! Invariants (this module is the only place with `unsafe` in the reference path):
//! - `base` points to a reservation of `ADDRESS_SPACE_SIZE` bytes; guest address `a` lives at `base + a`.
//! - A page is host read/write exactly when its permission byte has `Perm::MAPPED`; every other page is
//!   `PROT_NONE`. So a checked access (every page of the access mapped) never touches a host page that is absent.
//! - Guest permissions are checked here for every checked access; the kernel's privileged accessors only check
//!   that the pages are mapped.
//! - Mapping changes need `&mut self`, so no engine runs while the map changes. Data reads and writes take `&self`
//!   because the CPU paths and the GPU all read the same bytes.

use std::collections::BTreeMap;
use std::fmt;
use std::ptr::NonNull;

/// Guest addresses are 39 bits wide (Horizon's largest address space).
pub const ADDRESS_SPACE_BITS: u32 = 39;
pub const ADDRESS_SPACE_SIZE: u64 = 1 << ADDRESS_SPACE_BITS;
pub const PAGE_SIZE: u64 = 0x1000;
/// Entries of the page table `GuestMemory::host_page_table` points to.
pub const PAGE_COUNT: usize = (ADDRESS_SPACE_SIZE / PAGE_SIZE) as usize;
/// The bit of a page table entry that says the page is mapped; the low bits are its `Perm`.
pub const PAGE_MAPPED_BIT: u8 = Perm::MAPPED;

/// Guest page permissions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Perm(u8);

impl Perm {
    pub const NONE: Perm = Perm(0);
    pub const READ: Perm = Perm(1);
    pub const WRITE: Perm = Perm(2);
    pub const EXECUTE: Perm = Perm(4);
    pub const RW: Perm = Perm(3);
    pub const RX: Perm = Perm(5);
    pub const RWX: Perm = Perm(7);
    /// Internal: the page is mapped (possibly with no access).
    const MAPPED: u8 = 0x80;

    pub fn contains(self, other: Perm) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn bits(self) -> u8 {
        self.0
    }
}

impl std::ops::BitOr for Perm {
    type Output = Perm;
    fn bitor(self, other: Perm) -> Perm {
        Perm(self.0 | other.0)
    }
}

impl fmt::Debug for Perm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Perm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = |bit: Perm, c: char| if self.contains(bit) { c } else { '-' };
        write!(f, "{}{}{}", flag(Perm::READ, 'r'), flag(Perm::WRITE, 'w'), flag(Perm::EXECUTE, 'x'))
    }
}

/// The kind of access that faulted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Access {
    Read,
    Write,
    Execute,
}

impl Access {
    fn needs(self) -> Perm {
        match self {
            Access::Read => Perm::READ,
            Access::Write => Perm::WRITE,
            Access::Execute => Perm::EXECUTE,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FaultReason {
    /// No page is mapped there (or the address is outside the 39-bit space).
    Unmapped,
    /// The page is mapped without the permission the access needs.
    Permission,
    /// An access that must be aligned (exclusive, atomic, acquire/release) was not.
    Alignment,
}

/// A guest access the memory refused, as the CPU engines report it in `Exit::MemoryFault`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, thiserror::Error)]
#[error("{reason:?} fault on {access:?} at {address:#x}")]
pub struct MemoryFault {
    pub address: u64,
    pub access: Access,
    pub reason: FaultReason,
}

/// Errors of mapping operations (kernel and loader bugs or hostile requests, not guest faults).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MapError {
    #[error("range {address:#x}+{size:#x} is not page aligned")]
    Unaligned { address: u64, size: u64 },
    #[error("range {address:#x}+{size:#x} is outside the 39-bit guest address space")]
    OutOfRange { address: u64, size: u64 },
    #[error("page {page:#x} is already mapped")]
    AlreadyMapped { page: u64 },
    #[error("page {page:#x} is not mapped")]
    NotMapped { page: u64 },
    #[error("the host refused to reserve guest memory: {0}")]
    Host(String),
}

/// A run of mapped pages with one permission, as `GuestMemory::regions` lists them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Region {
    pub address: u64,
    pub size: u64,
    pub perm: Perm,
}

pub struct GuestMemory {
    base: NonNull<u8>,
    /// One byte per page: `Perm` bits plus `Perm::MAPPED`. A sparse anonymous mapping: untouched parts cost nothing.
    perms: NonNull<u8>,
    /// Mapped ranges (start page address -> end), kept merged, so that listing and hashing need not scan `perms`.
    mapped: BTreeMap<u64, u64>,
}

// SAFETY: the reservation is owned by this value and freed only in Drop; moving it between threads is sound.
unsafe impl Send for GuestMemory {}

impl GuestMemory {
    /// Reserves the whole guest address space (no host memory is committed until pages are mapped).
    pub fn new() -> Result<GuestMemory, MapError> {
        let base = reserve(ADDRESS_SPACE_SIZE as usize, libc::PROT_NONE)?;
        let perms = match reserve(PAGE_COUNT, libc::PROT_READ | libc::PROT_WRITE) {
            Ok(perms) => perms,
            Err(error) => {
                // SAFETY: `base` came from `reserve` with this size and is not used after this.
                unsafe { libc::munmap(base.as_ptr().cast(), ADDRESS_SPACE_SIZE as usize) };
                return Err(error);
            }
        };
        Ok(GuestMemory { base, perms, mapped: BTreeMap::new() })
    }

    /// Host pointer to guest address 0, for engines that access memory directly (the fast path).
    pub fn host_base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// Host pointer to the permission table, one byte per guest page (`PAGE_COUNT` bytes): the page's `Perm` bits,
    /// plus `PAGE_MAPPED_BIT` when it is mapped. For engines that check guest permissions inline (the fast path);
    /// valid as long as this `GuestMemory`, and it changes only through `&mut self`.
    pub fn host_page_table(&self) -> *const u8 {
        self.perms.as_ptr()
    }

    /// Maps zero-filled pages with `perm`. The range must be page aligned and not mapped yet.
    pub fn map(&mut self, address: u64, size: u64, perm: Perm) -> Result<(), MapError> {
        let pages = page_range(address, size)?;
        if let Some(page) = pages.clone().find(|&page| self.page_byte(page) & Perm::MAPPED != 0) {
            return Err(MapError::AlreadyMapped { page: page * PAGE_SIZE });
        }
        self.host_protect(address, size, libc::PROT_READ | libc::PROT_WRITE)?;
        for page in pages {
            self.set_page_byte(page, perm.0 | Perm::MAPPED);
        }
        self.insert_mapped(address, address + size);
        Ok(())
    }

    /// Changes the permission of mapped pages.
    pub fn protect(&mut self, address: u64, size: u64, perm: Perm) -> Result<(), MapError> {
        let pages = page_range(address, size)?;
        self.require_mapped(pages.clone())?;
        for page in pages {
            self.set_page_byte(page, perm.0 | Perm::MAPPED);
        }
        Ok(())
    }

    /// Unmaps pages, dropping their contents. Every page must be mapped.
    pub fn unmap(&mut self, address: u64, size: u64) -> Result<(), MapError> {
        let pages = page_range(address, size)?;
        self.require_mapped(pages.clone())?;
        // SAFETY: the range is inside the reservation (checked by `page_range`); MADV_DONTNEED on an anonymous
        // private mapping only drops its contents.
        unsafe { libc::madvise(self.base.as_ptr().add(address as usize).cast(), size as usize, libc::MADV_DONTNEED) };
        self.host_protect(address, size, libc::PROT_NONE)?;
        for page in pages {
            self.set_page_byte(page, 0);
        }
        self.remove_mapped(address, address + size);
        Ok(())
    }

    /// The guest permission of the page holding `address`, or `None` if it is not mapped.
    pub fn perm_at(&self, address: u64) -> Option<Perm> {
        if address >= ADDRESS_SPACE_SIZE {
            return None;
        }
        let byte = self.page_byte(address / PAGE_SIZE);
        (byte & Perm::MAPPED != 0).then_some(Perm(byte & !Perm::MAPPED))
    }

    /// The mapped memory as runs of equal permission, in address order.
    pub fn regions(&self) -> Vec<Region> {
        let mut regions: Vec<Region> = Vec::new();
        for (&start, &end) in &self.mapped {
            for page in start / PAGE_SIZE..end / PAGE_SIZE {
                let perm = Perm(self.page_byte(page) & !Perm::MAPPED);
                let address = page * PAGE_SIZE;
                match regions.last_mut() {
                    Some(last) if last.perm == perm && last.address + last.size == address => last.size += PAGE_SIZE,
                    _ => regions.push(Region { address, size: PAGE_SIZE, perm }),
                }
            }
        }
        regions
    }

    /// Checks that every byte of `address..address + len` is mapped with the permission `access` needs.
    pub fn check(&self, address: u64, len: u64, access: Access) -> Result<(), MemoryFault> {
        self.check_pages(address, len, access, access.needs())
    }

    /// Reads guest memory as the guest would (permissions checked).
    pub fn read(&self, address: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        self.check(address, buf.len() as u64, Access::Read)?;
        self.copy_out(address, buf);
        Ok(())
    }

    /// Writes guest memory as the guest would (permissions checked; nothing is written if any byte faults).
    pub fn write(&self, address: u64, data: &[u8]) -> Result<(), MemoryFault> {
        self.check(address, data.len() as u64, Access::Write)?;
        self.copy_in(address, data);
        Ok(())
    }

    /// Fetches an instruction word (execute permission checked).
    pub fn fetch(&self, address: u64) -> Result<u32, MemoryFault> {
        self.check(address, 4, Access::Execute)?;
        let mut word = [0; 4];
        self.copy_out(address, &mut word);
        Ok(u32::from_le_bytes(word))
    }

    /// Reads a little-endian value of `size` bytes (1, 2, 4, 8 or 16) as the guest would.
    pub fn read_le(&self, address: u64, size: usize) -> Result<u128, MemoryFault> {
        let mut bytes = [0u8; 16];
        self.read(address, &mut bytes[..size])?;
        Ok(u128::from_le_bytes(bytes))
    }

    /// Writes the low `size` bytes of `value` little-endian, as the guest would.
    pub fn write_le(&self, address: u64, size: usize, value: u128) -> Result<(), MemoryFault> {
        self.write(address, &value.to_le_bytes()[..size])
    }

    /// Reads for the kernel and loaders: the pages must be mapped; guest permissions do not apply.
    pub fn read_privileged(&self, address: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        self.check_pages(address, buf.len() as u64, Access::Read, Perm::NONE)?;
        self.copy_out(address, buf);
        Ok(())
    }

    /// Writes for the kernel and loaders: the pages must be mapped; guest permissions do not apply.
    pub fn write_privileged(&self, address: u64, data: &[u8]) -> Result<(), MemoryFault> {
        self.check_pages(address, data.len() as u64, Access::Write, Perm::NONE)?;
        self.copy_in(address, data);
        Ok(())
    }

    /// Feeds every mapped page (address, permission, bytes) into `sink` in address order, for state hashes.
    pub fn hash_into(&self, sink: &mut impl FnMut(&[u8])) {
        let mut page = vec![0u8; PAGE_SIZE as usize];
        for region in self.regions() {
            sink(&region.address.to_le_bytes());
            sink(&region.size.to_le_bytes());
            sink(&[region.perm.0]);
            for address in (region.address..region.address + region.size).step_by(PAGE_SIZE as usize) {
                self.copy_out(address, &mut page);
                sink(&page);
            }
        }
    }

    fn check_pages(&self, address: u64, len: u64, access: Access, needs: Perm) -> Result<(), MemoryFault> {
        if len == 0 {
            return Ok(());
        }
        let fault = |address, reason| MemoryFault { address, access, reason };
        let last = address.saturating_add(len - 1);
        if address < ADDRESS_SPACE_SIZE {
            for page in address / PAGE_SIZE..=last.min(ADDRESS_SPACE_SIZE - 1) / PAGE_SIZE {
                let byte = self.page_byte(page);
                let at = (page * PAGE_SIZE).max(address);
                if byte & Perm::MAPPED == 0 {
                    return Err(fault(at, FaultReason::Unmapped));
                }
                if !Perm(byte).contains(needs) {
                    return Err(fault(at, FaultReason::Permission));
                }
            }
        }
        if last >= ADDRESS_SPACE_SIZE {
            return Err(fault(address.max(ADDRESS_SPACE_SIZE), FaultReason::Unmapped));
        }
        Ok(())
    }

    fn copy_out(&self, address: u64, buf: &mut [u8]) {
        // SAFETY: callers checked that every page of the range is mapped, so it is inside the reservation and
        // host readable; `buf` is a distinct Rust allocation.
        unsafe { std::ptr::copy_nonoverlapping(self.base.as_ptr().add(address as usize), buf.as_mut_ptr(), buf.len()) }
    }

    fn copy_in(&self, address: u64, data: &[u8]) {
        // SAFETY: as in `copy_out`; mapped pages are host writable.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.as_ptr().add(address as usize), data.len()) }
    }

    fn page_byte(&self, page: u64) -> u8 {
        debug_assert!(page < PAGE_COUNT as u64);
        // SAFETY: `page` is below PAGE_COUNT (callers derive it from a checked address) and `perms` has PAGE_COUNT
        // bytes.
        unsafe { *self.perms.as_ptr().add(page as usize) }
    }

    fn set_page_byte(&mut self, page: u64, byte: u8) {
        debug_assert!(page < PAGE_COUNT as u64);
        // SAFETY: as in `page_byte`.
        unsafe { *self.perms.as_ptr().add(page as usize) = byte }
    }

    fn require_mapped(&self, mut pages: std::ops::Range<u64>) -> Result<(), MapError> {
        match pages.find(|&page| self.page_byte(page) & Perm::MAPPED == 0) {
            Some(page) => Err(MapError::NotMapped { page: page * PAGE_SIZE }),
            None => Ok(()),
        }
    }

    fn host_protect(&self, address: u64, size: u64, prot: libc::c_int) -> Result<(), MapError> {
        // SAFETY: the range is page aligned and inside the reservation (checked by `page_range`).
        let result = unsafe { libc::mprotect(self.base.as_ptr().add(address as usize).cast(), size as usize, prot) };
        if result != 0 {
            return Err(MapError::Host(std::io::Error::last_os_error().to_string()));
        }
        Ok(())
    }

    fn insert_mapped(&mut self, mut start: u64, mut end: u64) {
        if let Some((&before, &before_end)) = self.mapped.range(..=start).next_back()
            && before_end == start
        {
            start = before;
            self.mapped.remove(&before);
        }
        if let Some(after_end) = self.mapped.remove(&end) {
            end = after_end;
        }
        self.mapped.insert(start, end);
    }

    fn remove_mapped(&mut self, start: u64, end: u64) {
        let overlapping: Vec<(u64, u64)> =
            self.mapped.range(..end).filter(|&(_, &e)| e > start).map(|(&s, &e)| (s, e)).collect();
        for (s, e) in overlapping {
            self.mapped.remove(&s);
            if s < start {
                self.mapped.insert(s, start);
            }
            if e > end {
                self.mapped.insert(end, e);
            }
        }
    }
}

impl Drop for GuestMemory {
    fn drop(&mut self) {
        // SAFETY: both ranges came from `reserve` with these sizes and nothing refers to them after drop.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), ADDRESS_SPACE_SIZE as usize);
            libc::munmap(self.perms.as_ptr().cast(), PAGE_COUNT);
        }
    }
}

impl fmt::Debug for GuestMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuestMemory").field("regions", &self.regions()).finish()
    }
}

fn page_range(address: u64, size: u64) -> Result<std::ops::Range<u64>, MapError> {
    if !address.is_multiple_of(PAGE_SIZE) || !size.is_multiple_of(PAGE_SIZE) {
        return Err(MapError::Unaligned { address, size });
    }
    match address.checked_add(size) {
        Some(end) if end <= ADDRESS_SPACE_SIZE => Ok(address / PAGE_SIZE..end / PAGE_SIZE),
        _ => Err(MapError::OutOfRange { address, size }),
    }
}

fn reserve(len: usize, prot: libc::c_int) -> Result<NonNull<u8>, MapError> {
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing aliases nothing.
    let pointer = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            prot,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if pointer == libc::MAP_FAILED {
        return Err(MapError::Host(std::io::Error::last_os_error().to_string()));
    }
    NonNull::new(pointer.cast()).ok_or_else(|| MapError::Host("mmap returned null".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_read_write_and_faults() {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x10000, 0x2000, Perm::RW).unwrap();
        memory.write(0x10ffe, &[1, 2, 3, 4]).unwrap();
        let mut buf = [0; 4];
        memory.read(0x10ffe, &mut buf).unwrap();
        assert_eq!(buf, [1, 2, 3, 4]);
        let fault = memory.read(0x11ffe, &mut buf).unwrap_err();
        assert_eq!(fault, MemoryFault { address: 0x12000, access: Access::Read, reason: FaultReason::Unmapped });
        assert_eq!(memory.fetch(0x10000).unwrap_err().reason, FaultReason::Permission);
        memory.protect(0x10000, 0x1000, Perm::READ).unwrap();
        assert_eq!(memory.write(0x10000, &[0]).unwrap_err().reason, FaultReason::Permission);
        memory.write_privileged(0x10000, &[9]).unwrap();
        assert_eq!(memory.read_le(0x10000, 1).unwrap(), 9);
        assert_eq!(memory.map(0x11000, 0x1000, Perm::RW), Err(MapError::AlreadyMapped { page: 0x11000 }));
    }

    #[test]
    fn regions_merge_and_split() {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x1000, 0x1000, Perm::RX).unwrap();
        memory.map(0x2000, 0x2000, Perm::RW).unwrap();
        memory.unmap(0x2000, 0x1000).unwrap();
        assert_eq!(
            memory.regions(),
            vec![
                Region { address: 0x1000, size: 0x1000, perm: Perm::RX },
                Region { address: 0x3000, size: 0x1000, perm: Perm::RW }
            ]
        );
        let mut buf = [0xff; 8];
        memory.read(0x3000, &mut buf).unwrap();
        assert_eq!(buf, [0; 8], "a fresh mapping is zero filled");
    }

    #[test]
    fn out_of_range_addresses_fault_and_never_touch_the_host() {
        let memory = GuestMemory::new().unwrap();
        for address in [ADDRESS_SPACE_SIZE - 2, ADDRESS_SPACE_SIZE, u64::MAX - 1] {
            assert_eq!(memory.read_le(address, 4).unwrap_err().reason, FaultReason::Unmapped);
        }
    }
}
