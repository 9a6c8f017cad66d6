//! Guest memory: two host views of 2^39 bytes each of the same pages, plus a table of guest permissions per
//! 4 KiB page.
//!
//! Invariants (this module and its `shared` are the only places with `unsafe` in the reference path):
//! - `base` and `guarded` each point to a view of `ADDRESS_SPACE_SIZE` bytes; guest address `a` lives at
//!   `base + a` and, the same bytes, at `guarded + a`.
//! - Pages are the `backing` file at their own address, except the runs listed in `shared`: views of other
//!   `SharedPages` placed over both views, which other guest addresses may view too (page aliasing). Unmapping
//!   a run puts the backing back in its place, its contents dropped.
//! - In `base`, a page is host read/write exactly when its permission byte has `Perm::MAPPED`; every other page
//!   is `PROT_NONE`. So a checked access (every page of the access mapped) never touches a host page that is
//!   absent.
//! - In `guarded`, a page is host readable exactly when the guest may read it, and writable exactly when the
//!   guest may read and write it (`guarded_prot`); every other page is `PROT_NONE`. So an access through it
//!   that the host allows is one the guest's permissions allow: the fast path accesses memory there unchecked
//!   and turns the host's faults into the reference's (`tandem_fast::fault`).
//! - Guest permissions are checked here for every checked access; the kernel's privileged accessors only check
//!   that the pages are mapped.
//! - Mapping changes need `&mut self`, so no engine runs while the map changes. Data reads and writes take `&self`
//!   because the CPU paths and the GPU all read the same bytes.
//! - Every change of a page's mapping, permission or sharing is counted and its range kept (the last
//!   `RECENT_LAYOUT_CHANGES`), so that engines keeping translations of code drop those of changed pages on their
//!   own; privileged writes are not: whoever writes code that way tells the engines (`Engine::invalidate`).

mod shared;

pub use shared::SharedPages;
use std::collections::BTreeMap;
use std::fmt;
use std::ptr::NonNull;

/// The smallest privileged write that goes through the backing file rather than the views (`write_privileged`).
const FILE_WRITE_THRESHOLD: u64 = 64 * 1024;

/// Guest addresses are 39 bits wide (Horizon's largest address space).
pub const ADDRESS_SPACE_BITS: u32 = 39;
pub const ADDRESS_SPACE_SIZE: u64 = 1 << ADDRESS_SPACE_BITS;
pub const PAGE_SIZE: u64 = 0x1000;
/// Entries of the page-permission table: one per page of the address space.
pub const PAGE_COUNT: usize = (ADDRESS_SPACE_SIZE / PAGE_SIZE) as usize;
/// Inaccessible bytes before and after each host view of the address space: an access within this many bytes
/// of a guest address inside the space faults on the host where it leaves the space (the fast path checks a base
/// register once and then accesses at small offsets from it unchecked).
pub const VIEW_GUARD: u64 = 0x10_0000;
/// Bytes of each view's reservation: the guard, the view, the guard.
const VIEW_SIZE: usize = (VIEW_GUARD + ADDRESS_SPACE_SIZE + VIEW_GUARD) as usize;

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
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
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

/// Guest pages that are a view of shared pages, as `GuestMemory::shared_runs` lists them.
#[derive(Clone, Debug)]
pub struct SharedRun {
    pub address: u64,
    pub size: u64,
    pub pages: SharedPages,
    /// Where in `pages` the run's first page is.
    pub offset: u64,
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
    guarded: NonNull<u8>,
    /// The pages that are not views of other shared pages, at offset = guest address.
    backing: SharedPages,
    /// One byte per page: `Perm` bits plus `Perm::MAPPED`. A sparse anonymous mapping: untouched parts cost nothing.
    perms: NonNull<u8>,
    /// Mapped ranges (start page address -> end), kept merged, so that listing and hashing need not scan `perms`.
    mapped: BTreeMap<u64, u64>,
    /// The runs that are views of shared pages, by start address (never overlapping).
    shared: BTreeMap<u64, SharedRun>,
    /// Also written by privileged writes (through `&self`) that change executable pages.
    layout_changes: std::cell::RefCell<LayoutChanges>,
}

/// The changes to what guest addresses hold (mapped, unmapped, reprotected, made shared, or executable pages
/// written by the kernel, a loader or the GPU), counted, so that an engine keeping translations of guest code can
/// drop those of the pages that changed (`layout_changes_since`).
#[derive(Default)]
struct LayoutChanges {
    /// Changes ever made; the last `recent.len()` of them (at most `RECENT_LAYOUT_CHANGES`) are kept.
    count: u64,
    recent: std::collections::VecDeque<(u64, u64)>,
}

const RECENT_LAYOUT_CHANGES: usize = 256;

// SAFETY: the reservation is owned by this value and freed only in Drop; moving it between threads is sound.
unsafe impl Send for GuestMemory {}

impl GuestMemory {
    /// Reserves the whole guest address space (no host memory is committed until pages are written).
    pub fn new() -> Result<GuestMemory, MapError> {
        let backing = SharedPages::new(ADDRESS_SPACE_SIZE)?;
        let base = view_of(&backing)?;
        let guarded = view_of(&backing).inspect_err(|_| free_view(base))?;
        let perms = reserve(PAGE_COUNT, libc::PROT_READ | libc::PROT_WRITE).inspect_err(|_| {
            free_view(base);
            free_view(guarded);
        })?;
        Ok(GuestMemory {
            base,
            guarded,
            backing,
            perms,
            mapped: BTreeMap::new(),
            shared: BTreeMap::new(),
            layout_changes: Default::default(),
        })
    }

    /// Host pointer to guest address 0, for engines that access memory directly (Unicorn).
    pub fn host_base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// Host pointer to guest address 0 in the view whose host protections are the guest's data permissions (see
    /// the module's invariants), for the fast path's unchecked accesses.
    pub fn guarded_base(&self) -> *mut u8 {
        self.guarded.as_ptr()
    }

    /// Maps zero-filled pages with `perm`. The range must be page aligned and not mapped yet.
    pub fn map(&mut self, address: u64, size: u64, perm: Perm) -> Result<(), MapError> {
        let pages = page_range(address, size)?;
        self.require_unmapped(pages.clone())?;
        self.host_protect(address, size, libc::PROT_READ | libc::PROT_WRITE)?;
        self.mark_mapped(pages, perm)
    }

    /// Maps `size` bytes of `pages` from `offset` at `address` with `perm`: the guest sees what every other view
    /// of those pages sees. The range must be page aligned and not mapped yet.
    pub fn map_shared(
        &mut self,
        address: u64,
        size: u64,
        perm: Perm,
        pages: &SharedPages,
        offset: u64,
    ) -> Result<(), MapError> {
        let range = page_range(address, size)?;
        if !offset.is_multiple_of(PAGE_SIZE) || offset.checked_add(size).is_none_or(|end| end > pages.size()) {
            return Err(MapError::OutOfRange { address: offset, size });
        }
        self.require_unmapped(range.clone())?;
        self.place_view(SharedRun { address, size, pages: pages.clone(), offset })?;
        self.mark_mapped(range, perm)
    }

    /// Maps the pages at `source..source + size` a second time, at `alias` with `perm`: both addresses then hold
    /// the same bytes. Pages of `source` that no other address shares become shared pages first, contents kept.
    /// `source` must be mapped and `alias` not.
    pub fn map_alias(&mut self, alias: u64, source: u64, size: u64, perm: Perm) -> Result<(), MapError> {
        let alias_pages = page_range(alias, size)?;
        let source_pages = page_range(source, size)?;
        self.require_mapped(source_pages)?;
        self.require_unmapped(alias_pages.clone())?;
        // The source's pages are shared pages now.
        self.record_layout_change(source, size);
        for run in self.share(source, size)? {
            self.place_view(SharedRun { address: alias + (run.address - source), ..run })?;
        }
        self.mark_mapped(alias_pages, perm)
    }

    /// Makes the mapped range's pages shared pages, in place, contents kept: a fork's child then shares them
    /// (`private_copy` leaves them out), as Linux's MAP_SHARED anonymous mappings are shared.
    pub fn make_range_shared(&mut self, address: u64, size: u64) -> Result<(), MapError> {
        self.require_mapped(page_range(address, size)?)?;
        self.record_layout_change(address, size);
        self.share(address, size).map(drop)
    }

    /// How many changes of layout (mappings, permissions, sharing, privileged writes of code) this memory has had.
    pub fn layout_change_count(&self) -> u64 {
        self.layout_changes.borrow().count
    }

    /// The ranges (address, size) whose layout changed since this memory had had `seen` changes, oldest first;
    /// `None` where they are no longer all known (too many since, or `seen` counts changes this memory never
    /// had): then any page may have changed.
    pub fn layout_changes_since(&self, seen: u64) -> Option<Vec<(u64, u64)>> {
        let changes = self.layout_changes.borrow();
        let since = usize::try_from(changes.count.checked_sub(seen)?).ok()?;
        let kept = changes.recent.len();
        (since <= kept).then(|| changes.recent.iter().skip(kept - since).copied().collect())
    }

    fn record_layout_change(&self, address: u64, size: u64) {
        let mut changes = self.layout_changes.borrow_mut();
        if changes.recent.len() == RECENT_LAYOUT_CHANGES {
            changes.recent.pop_front();
        }
        changes.recent.push_back((address, size));
        changes.count += 1;
    }

    /// Changes the permission of mapped pages.
    pub fn protect(&mut self, address: u64, size: u64, perm: Perm) -> Result<(), MapError> {
        let pages = page_range(address, size)?;
        self.require_mapped(pages.clone())?;
        for page in pages {
            self.set_page_byte(page, perm.0 | Perm::MAPPED);
        }
        self.record_layout_change(address, size);
        self.guard(address, size)
    }

    /// Unmaps pages, dropping their contents. Every page must be mapped.
    pub fn unmap(&mut self, address: u64, size: u64) -> Result<(), MapError> {
        let pages = page_range(address, size)?;
        self.require_mapped(pages.clone())?;
        for run in self.shared_runs_in(address, address + size) {
            self.place_backing(run.address, run.size)?;
        }
        self.forget_shared(address, address + size);
        self.backing.discard(address, size)?;
        self.host_protect(address, size, libc::PROT_NONE)?;
        for page in pages {
            self.set_page_byte(page, 0);
        }
        self.remove_mapped(address, address + size);
        self.record_layout_change(address, size);
        self.guard(address, size)
    }

    /// The guest permission of the page holding `address`, or `None` if it is not mapped.
    pub fn perm_at(&self, address: u64) -> Option<Perm> {
        if address >= ADDRESS_SPACE_SIZE {
            return None;
        }
        let byte = self.page_byte(address / PAGE_SIZE);
        (byte & Perm::MAPPED != 0).then_some(Perm(byte & !Perm::MAPPED))
    }

    /// The runs of guest pages that are views of shared pages, in address order.
    pub fn shared_runs(&self) -> Vec<SharedRun> {
        self.shared.values().cloned().collect()
    }

    /// Whether the page holding `address` is a view of shared pages (another address may change its bytes).
    pub fn is_shared(&self, address: u64) -> bool {
        self.shared.range(..=address).next_back().is_some_and(|(_, run)| address < run.address + run.size)
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

    /// Writes for the kernel, loaders and the GPU: the pages must be mapped; guest permissions do not apply. A
    /// write to executable pages (which no guest store can change) counts as a change of their layout, so that
    /// engines drop what they translated from them.
    pub fn write_privileged(&self, address: u64, data: &[u8]) -> Result<(), MemoryFault> {
        self.check_pages(address, data.len() as u64, Access::Write, Perm::NONE)?;
        let len = data.len() as u64;
        if len > 0 {
            let pages = address / PAGE_SIZE..=(address + len - 1) / PAGE_SIZE;
            if pages.into_iter().any(|page| Perm(self.page_byte(page)).contains(Perm::EXECUTE)) {
                self.record_layout_change(address, len);
            }
        }
        // Large writes into the backing go through the file: the kernel fills its pages without faulting them
        // into the views one by one (loaders write whole executables).
        if len >= FILE_WRITE_THRESHOLD
            && self.shared_runs_in(address, address + len).is_empty()
            && self.backing.write(address, data).is_ok()
        {
            return Ok(());
        }
        self.copy_in(address, data);
        Ok(())
    }

    /// Every mapped page in address order: its address, permissions and bytes.
    pub fn visit_pages(&self, mut visit: impl FnMut(u64, Perm, &[u8])) {
        let mut page = vec![0u8; PAGE_SIZE as usize];
        for region in self.regions() {
            for address in (region.address..region.address + region.size).step_by(PAGE_SIZE as usize) {
                self.copy_out(address, &mut page);
                visit(address, region.perm, &page);
            }
        }
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

    fn require_unmapped(&self, mut pages: std::ops::Range<u64>) -> Result<(), MapError> {
        match pages.find(|&page| self.page_byte(page) & Perm::MAPPED != 0) {
            Some(page) => Err(MapError::AlreadyMapped { page: page * PAGE_SIZE }),
            None => Ok(()),
        }
    }

    fn mark_mapped(&mut self, pages: std::ops::Range<u64>, perm: Perm) -> Result<(), MapError> {
        let (start, end) = (pages.start * PAGE_SIZE, pages.end * PAGE_SIZE);
        for page in pages {
            self.set_page_byte(page, perm.0 | Perm::MAPPED);
        }
        self.insert_mapped(start, end);
        self.record_layout_change(start, end - start);
        self.guard(start, end - start)
    }

    /// Gives the pages of `address..address + size` their protections in the guarded view (`guarded_prot`).
    fn guard(&self, address: u64, size: u64) -> Result<(), MapError> {
        let mut run_start = address;
        let mut run_prot = None;
        for page in address / PAGE_SIZE..(address + size) / PAGE_SIZE {
            let prot = guarded_prot(self.page_byte(page));
            if run_prot != Some(prot) {
                if let Some(prot) = run_prot {
                    protect_view(self.guarded, run_start, page * PAGE_SIZE - run_start, prot)?;
                }
                (run_start, run_prot) = (page * PAGE_SIZE, Some(prot));
            }
        }
        match run_prot {
            Some(prot) => protect_view(self.guarded, run_start, address + size - run_start, prot),
            None => Ok(()),
        }
    }

    /// For a fork: a copy of the private pages (every mapped page no shared run covers), for the child to take
    /// with `take_private_copy`. Shared runs are not copied: like Linux's MAP_SHARED mappings, parent and child
    /// keep seeing each other's writes there. Only the parts of the backing holding data are copied (a hole reads
    /// as zero in both).
    pub fn private_copy(&self) -> Result<SharedPages, MapError> {
        let copy = SharedPages::new(ADDRESS_SPACE_SIZE)?;
        for (&start, &end) in &self.mapped {
            let mut private = Vec::new();
            let mut at = start;
            for run in self.shared_runs_in(start, end) {
                private.push((at, run.address));
                at = run.address + run.size;
            }
            private.push((at, end));
            for (part_start, part_end) in private {
                for (from, to) in self.backing.data_extents(part_start, part_end)? {
                    // SAFETY: `from..to` lies in mapped pages, which the base view holds readable.
                    let bytes = unsafe {
                        std::slice::from_raw_parts(self.base.as_ptr().add(from as usize), (to - from) as usize)
                    };
                    copy.write(from, bytes)?;
                }
            }
        }
        Ok(copy)
    }

    /// In a forked child: `copy` (made by `private_copy` before the fork) becomes the private pages, so that
    /// this process's writes and its parent's no longer meet. Both views are put back together over it: the
    /// mapped private pages with their protections, the shared runs as they were.
    pub fn take_private_copy(&mut self, copy: SharedPages) -> Result<(), MapError> {
        self.backing = copy;
        for view in [self.base, self.guarded] {
            // SAFETY: the view's own range, mapped again over the new backing as `view_of` mapped it; nothing
            // refers to the old pages (the engines read guest memory only through these views).
            let pointer = unsafe {
                libc::mmap(
                    view.as_ptr().cast(),
                    ADDRESS_SPACE_SIZE as usize,
                    libc::PROT_NONE,
                    libc::MAP_SHARED | libc::MAP_NORESERVE | libc::MAP_FIXED,
                    self.backing.raw_fd(),
                    0,
                )
            };
            if pointer != view.as_ptr().cast() {
                return Err(MapError::Host(format!(
                    "mmap of a forked address space: {}",
                    std::io::Error::last_os_error()
                )));
            }
        }
        let mapped: Vec<(u64, u64)> = self.mapped.iter().map(|(&start, &end)| (start, end)).collect();
        for (start, end) in mapped {
            self.host_protect(start, end - start, libc::PROT_READ | libc::PROT_WRITE)?;
            self.guard(start, end - start)?;
        }
        let shared: Vec<SharedRun> = self.shared.values().cloned().collect();
        for run in shared {
            self.place(run.address, run.size, &run.pages, run.offset)?;
        }
        Ok(())
    }

    /// The shared runs of `start..end`, clipped to it.
    fn shared_runs_in(&self, start: u64, end: u64) -> Vec<SharedRun> {
        let first = self.shared.range(..=start).next_back().map_or(start, |(&address, _)| address);
        self.shared
            .range(first..end)
            .map(|(_, run)| run)
            .filter(|run| run.address + run.size > start)
            .map(|run| {
                let address = run.address.max(start);
                let size = (run.address + run.size).min(end) - address;
                SharedRun { address, size, pages: run.pages.clone(), offset: run.offset + (address - run.address) }
            })
            .collect()
    }

    /// Drops the shared runs' records of `start..end` (keeping the parts of runs outside it).
    fn forget_shared(&mut self, start: u64, end: u64) {
        let first = self.shared.range(..=start).next_back().map_or(start, |(&address, _)| address);
        let overlapping: Vec<u64> = self
            .shared
            .range(first..end)
            .filter(|(_, run)| run.address + run.size > start)
            .map(|(&address, _)| address)
            .collect();
        for address in overlapping {
            let run = self.shared.remove(&address).expect("listed above");
            let run_end = run.address + run.size;
            if run.address < start {
                let head = SharedRun { size: start - run.address, pages: run.pages.clone(), ..run };
                self.shared.insert(head.address, head);
            }
            if run_end > end {
                let tail =
                    SharedRun { address: end, size: run_end - end, offset: run.offset + (end - run.address), ..run };
                self.shared.insert(end, tail);
            }
        }
    }

    /// The mapped range `address..address + size` as shared runs, making its private pages shared first.
    fn share(&mut self, address: u64, size: u64) -> Result<Vec<SharedRun>, MapError> {
        let end = address + size;
        let mut runs = Vec::new();
        let mut at = address;
        for run in self.shared_runs_in(address, end) {
            if run.address > at {
                runs.push(self.make_shared(at, run.address - at)?);
            }
            at = run.address + run.size;
            runs.push(run);
        }
        if at < end {
            runs.push(self.make_shared(at, end - at)?);
        }
        Ok(runs)
    }

    /// Moves mapped private pages into new shared pages, in place, contents kept.
    fn make_shared(&mut self, address: u64, size: u64) -> Result<SharedRun, MapError> {
        let pages = SharedPages::new(size)?;
        let mut page = vec![0u8; PAGE_SIZE as usize];
        for offset in (0..size).step_by(PAGE_SIZE as usize) {
            self.copy_out(address + offset, &mut page);
            // Untouched pages stay unallocated in the new pages too.
            if page.iter().any(|&byte| byte != 0) {
                pages.write(offset, &page)?;
            }
        }
        let run = SharedRun { address, size, pages, offset: 0 };
        self.place_view(run.clone())?;
        self.backing.discard(address, size)?;
        Ok(run)
    }

    /// Puts host views of `run.pages` at `run.address` (read-write in `base`, with the pages' guarded protections
    /// in `guarded`) and records it.
    fn place_view(&mut self, run: SharedRun) -> Result<(), MapError> {
        self.place(run.address, run.size, &run.pages, run.offset)?;
        self.shared.insert(run.address, run);
        Ok(())
    }

    /// Puts the backing file's own pages back at `address..address + size` in both views.
    fn place_backing(&self, address: u64, size: u64) -> Result<(), MapError> {
        self.place(address, size, &self.backing, address)
    }

    /// Maps `size` bytes of `pages` from `offset` at `address` in both views.
    fn place(&self, address: u64, size: u64, pages: &SharedPages, offset: u64) -> Result<(), MapError> {
        for (view, prot) in [(self.base, libc::PROT_READ | libc::PROT_WRITE), (self.guarded, libc::PROT_NONE)] {
            let at = view.as_ptr().wrapping_add(address as usize);
            // SAFETY: the range is page aligned and inside the view (callers check with `page_range`), and
            // nothing refers to the host pages it replaces (the guest pages there are unmapped, or `make_shared`
            // copied them out first).
            let pointer = unsafe {
                libc::mmap(
                    at.cast(),
                    size as usize,
                    prot,
                    libc::MAP_SHARED | libc::MAP_FIXED | libc::MAP_NORESERVE,
                    pages.raw_fd(),
                    offset as libc::off_t,
                )
            };
            if pointer != at.cast() {
                return Err(MapError::Host(format!("mmap of shared pages: {}", std::io::Error::last_os_error())));
            }
        }
        self.guard(address, size)
    }

    fn require_mapped(&self, mut pages: std::ops::Range<u64>) -> Result<(), MapError> {
        match pages.find(|&page| self.page_byte(page) & Perm::MAPPED == 0) {
            Some(page) => Err(MapError::NotMapped { page: page * PAGE_SIZE }),
            None => Ok(()),
        }
    }

    /// Sets the host protection of `address..address + size` in `base`.
    fn host_protect(&self, address: u64, size: u64, prot: libc::c_int) -> Result<(), MapError> {
        protect_view(self.base, address, size, prot)
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
        free_view(self.base);
        free_view(self.guarded);
        // SAFETY: the range came from `reserve` with this size and nothing refers to it after drop.
        unsafe { libc::munmap(self.perms.as_ptr().cast(), PAGE_COUNT) };
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

/// A view of all of `backing` (`ADDRESS_SPACE_SIZE` bytes) between two `VIEW_GUARD`s of reserved bytes, all
/// inaccessible until pages are mapped; the pointer is to the view's start.
fn view_of(backing: &SharedPages) -> Result<NonNull<u8>, MapError> {
    let reservation = reserve(VIEW_SIZE, libc::PROT_NONE)?;
    // SAFETY: `VIEW_GUARD` bytes into the reservation just made, which is larger.
    let view = unsafe { reservation.add(VIEW_GUARD as usize) };
    // SAFETY: a shared mapping of a file this process owns, over the reservation just made, after its first guard.
    let pointer = unsafe {
        libc::mmap(
            view.as_ptr().cast(),
            ADDRESS_SPACE_SIZE as usize,
            libc::PROT_NONE,
            libc::MAP_SHARED | libc::MAP_NORESERVE | libc::MAP_FIXED,
            backing.raw_fd(),
            0,
        )
    };
    if pointer != view.as_ptr().cast() {
        let error = std::io::Error::last_os_error();
        free_view(view);
        return Err(MapError::Host(format!("mmap of the guest address space: {error}")));
    }
    Ok(view)
}

/// Unmaps a view `view_of` made, with its guards; nothing may use it after this.
fn free_view(view: NonNull<u8>) {
    // SAFETY: `view` is `VIEW_GUARD` bytes into a reservation of `VIEW_SIZE` bytes (`view_of`).
    unsafe { libc::munmap(view.as_ptr().sub(VIEW_GUARD as usize).cast(), VIEW_SIZE) };
}

/// Sets the host protection of `address..address + size` in `view`.
fn protect_view(view: NonNull<u8>, address: u64, size: u64, prot: libc::c_int) -> Result<(), MapError> {
    // SAFETY: the range is page aligned and inside the view (callers derive it from `page_range`).
    let result = unsafe { libc::mprotect(view.as_ptr().add(address as usize).cast(), size as usize, prot) };
    if result != 0 {
        return Err(MapError::Host(std::io::Error::last_os_error().to_string()));
    }
    Ok(())
}

/// The host protection of a page in the guarded view, from its permission byte: the host cannot make a page
/// writable but not readable, so a page the guest may write but not read is inaccessible there.
fn guarded_prot(byte: u8) -> libc::c_int {
    let perm = Perm(byte);
    match (byte & Perm::MAPPED != 0, perm.contains(Perm::READ), perm.contains(Perm::WRITE)) {
        (true, true, true) => libc::PROT_READ | libc::PROT_WRITE,
        (true, true, false) => libc::PROT_READ,
        _ => libc::PROT_NONE,
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

    #[test]
    fn aliases_share_bytes_both_ways_and_outlive_each_other() {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x10000, 0x3000, Perm::RW).unwrap();
        memory.write(0x11008, &[7; 8]).unwrap();
        memory.map_alias(0x40000, 0x10000, 0x3000, Perm::RX).unwrap();
        assert_eq!(memory.read_le(0x41008, 1).unwrap(), 7, "the alias shows the source's bytes");
        memory.write(0x12000, &[1, 2]).unwrap();
        assert_eq!(memory.read_le(0x42000, 2).unwrap(), 0x0201, "a write through one address shows at the other");
        assert_eq!(memory.write(0x40000, &[0]).unwrap_err().reason, FaultReason::Permission);
        memory.write_privileged(0x40000, &[9]).unwrap();
        assert_eq!(memory.read_le(0x10000, 1).unwrap(), 9);
        assert!(memory.is_shared(0x42fff) && memory.is_shared(0x10000) && !memory.is_shared(0x13000));

        // Unmapping the middle page of the alias keeps the rest of both, and the source's middle page.
        memory.unmap(0x41000, 0x1000).unwrap();
        assert_eq!(memory.read_le(0x11008, 1).unwrap(), 7);
        memory.write(0x10001, &[5]).unwrap();
        assert_eq!(memory.read_le(0x40001, 1).unwrap(), 5);
        assert_eq!(memory.shared_runs().len(), 3, "source (one run) and the alias's two pieces");
        // The source goes; the alias keeps the bytes; a new mapping where the alias was is private and zero.
        memory.unmap(0x10000, 0x3000).unwrap();
        assert_eq!(memory.read_le(0x42000, 2).unwrap(), 0x0201);
        memory.map(0x41000, 0x1000, Perm::RW).unwrap();
        memory.write(0x41000, &[3]).unwrap();
        memory.map(0x10000, 0x3000, Perm::RW).unwrap();
        assert_eq!(memory.read_le(0x10000, 8).unwrap(), 0, "a fresh mapping is zero filled, not the old view");
        assert!(!memory.is_shared(0x41000) && !memory.is_shared(0x10000));
    }

    #[test]
    fn shared_pages_show_in_every_mapping_and_in_their_own_accessors() {
        let mut memory = GuestMemory::new().unwrap();
        let pages = SharedPages::new(0x2000).unwrap();
        pages.write(0x1ffc, &[1, 2, 3, 4]).unwrap();
        memory.map_shared(0x20000, 0x2000, Perm::RW, &pages, 0).unwrap();
        memory.map_shared(0x30000, 0x1000, Perm::READ, &pages, 0x1000).unwrap();
        assert_eq!(memory.read_le(0x21ffc, 4).unwrap(), 0x0403_0201);
        assert_eq!(memory.read_le(0x30ffc, 4).unwrap(), 0x0403_0201);
        memory.write(0x21000, &[8]).unwrap();
        assert_eq!(memory.read_le(0x30000, 1).unwrap(), 8);
        let mut byte = [0];
        pages.read(0x1000, &mut byte).unwrap();
        assert_eq!(byte, [8]);
        assert!(pages.write(0x1fff, &[0, 0]).is_err(), "writes past the end are refused");
        assert!(memory.map_shared(0x50000, 0x2000, Perm::RW, &pages, 0x1000).is_err());
        assert_eq!(
            memory.map_shared(0x21000, 0x1000, Perm::RW, &pages, 0),
            Err(MapError::AlreadyMapped { page: 0x21000 })
        );
        // Aliasing a range that is partly a view already maps the view's pages, not a copy.
        memory.map(0x22000, 0x1000, Perm::RW).unwrap();
        memory.map_alias(0x60000, 0x21000, 0x2000, Perm::RW).unwrap();
        pages.write(0x1000, &[6]).unwrap();
        assert_eq!(memory.read_le(0x60000, 1).unwrap(), 6);
        memory.write(0x61000, &[4]).unwrap();
        assert_eq!(memory.read_le(0x22000, 1).unwrap(), 4);
    }

    /// Privileged writes large enough to go through the backing file land where smaller ones do: in every view
    /// (the checked accessors, the guarded view), over read-only and code pages, and through an alias's shared
    /// pages where the range holds some; unmapped pages refuse them before anything is written.
    #[test]
    fn large_privileged_writes_land_in_every_view() {
        let mut memory = GuestMemory::new().unwrap();
        let size = 4 * FILE_WRITE_THRESHOLD;
        memory.map(0x100000, size, Perm::RX).unwrap();
        let data: Vec<u8> = (0..size).map(|i| (i * 7 + i / 4096) as u8).collect();
        memory.write_privileged(0x100000, &data).unwrap();
        let mut back = vec![0; size as usize];
        memory.read(0x100000, &mut back).unwrap();
        assert!(back == data, "the checked view differs");
        let guarded = memory.guarded_base().wrapping_add(0x100000);
        // SAFETY: the range is mapped readable, so the guarded view holds it for reading.
        let through_guarded = unsafe { std::slice::from_raw_parts(guarded.cast_const(), size as usize) };
        assert!(through_guarded == data.as_slice(), "the guarded view differs");

        // Part of the range shared with an alias: the write goes through the views, and the alias sees it.
        memory.map_alias(0x400000, 0x100000 + FILE_WRITE_THRESHOLD, 0x1000, Perm::READ).unwrap();
        let ones = vec![1u8; size as usize];
        memory.write_privileged(0x100000, &ones).unwrap();
        memory.read(0x100000, &mut back).unwrap();
        assert!(back == ones);
        assert_eq!(memory.read_le(0x400ff8, 8).unwrap(), 0x0101_0101_0101_0101);

        let past_the_end = memory.write_privileged(0x100000 + size - 0x1000, &data);
        assert_eq!(past_the_end.unwrap_err().address, 0x100000 + size);
        memory.read(0x100000 + size - 0x1000, &mut back[..0x1000]).unwrap();
        assert!(back[..0x1000].iter().all(|&byte| byte == 1), "a refused write changed bytes before the hole");
    }

    /// The host protection ("rw", "r-" or "--") of the page at `pointer`, from the kernel's own list of this
    /// process's mappings.
    fn host_protection(pointer: *const u8) -> String {
        let address = pointer as u64;
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        for line in maps.lines() {
            let (range, rest) = line.split_once(' ').unwrap();
            let (start, end) = range.split_once('-').unwrap();
            let (start, end) = (u64::from_str_radix(start, 16).unwrap(), u64::from_str_radix(end, 16).unwrap());
            if (start..end).contains(&address) {
                return rest[..2].to_string();
            }
        }
        panic!("{address:#x} is in no mapping");
    }

    #[test]
    fn the_guarded_view_has_the_guests_data_permissions_and_the_same_bytes() {
        let mut memory = GuestMemory::new().unwrap();
        let (guarded_base, host_base) = (memory.guarded_base(), memory.host_base());
        let guarded = |address: u64| guarded_base.wrapping_add(address as usize).cast_const();
        let base = |address: u64| host_base.wrapping_add(address as usize).cast_const();
        memory.map(0x10000, 0x5000, Perm::RW).unwrap();
        memory.write(0x10008, &[7]).unwrap();
        memory.protect(0x11000, 0x1000, Perm::READ).unwrap();
        memory.protect(0x12000, 0x1000, Perm::EXECUTE).unwrap();
        memory.protect(0x13000, 0x1000, Perm::WRITE).unwrap();
        memory.protect(0x14000, 0x1000, Perm::NONE).unwrap();
        let expected = [(0x10000, "rw"), (0x11000, "r-"), (0x12000, "--"), (0x13000, "--"), (0x14000, "--")];
        for (address, protection) in expected {
            assert_eq!(host_protection(guarded(address)), protection, "guarded view at {address:#x}");
            assert_eq!(host_protection(base(address)), "rw", "privileged view at {address:#x}");
        }
        assert_eq!(host_protection(guarded(0x15000)), "--", "unmapped");
        // SAFETY: the page is guest readable, so host readable in the guarded view (checked above).
        assert_eq!(unsafe { *guarded(0x10008) }, 7);

        // Aliases and shared pages show the same bytes there, with the alias's own permissions.
        memory.map_alias(0x40000, 0x10000, 0x2000, Perm::READ).unwrap();
        assert_eq!(host_protection(guarded(0x40000)), "r-");
        memory.write(0x10009, &[9]).unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { *guarded(0x40009) }, 9);

        // Unmapping drops the bytes (a new mapping reads zero) and makes the pages inaccessible in both views.
        memory.unmap(0x10000, 0x5000).unwrap();
        assert_eq!(host_protection(guarded(0x10000)), "--");
        assert_eq!(host_protection(base(0x10000)), "--");
        assert_eq!(memory.read_le(0x40009, 1).unwrap(), 9, "the alias keeps the pages");
        memory.map(0x10000, 0x1000, Perm::RW).unwrap();
        assert_eq!(memory.read_le(0x10008, 1).unwrap(), 0);
    }

    #[test]
    fn a_private_copy_holds_the_private_pages_and_leaves_the_shared_ones_shared() {
        let mut memory = GuestMemory::new().unwrap();
        let (guarded_base, host_base) = (memory.guarded_base(), memory.host_base());
        let guarded = |address: u64| guarded_base.wrapping_add(address as usize).cast_const();
        let base = |address: u64| host_base.wrapping_add(address as usize).cast_const();
        memory.map(0x10000, 0x4000, Perm::RW).unwrap();
        memory.write(0x10008, &[7]).unwrap();
        memory.write(0x12000, &[8]).unwrap();
        memory.protect(0x11000, 0x1000, Perm::READ).unwrap();
        let shared = SharedPages::new(0x1000).unwrap();
        memory.map_shared(0x20000, 0x1000, Perm::RW, &shared, 0).unwrap();
        memory.write(0x20004, &[5]).unwrap();
        let before = memory.backing.clone();

        let copy = memory.private_copy().unwrap();
        memory.take_private_copy(copy).unwrap();
        // The same bytes and the same protections in both views.
        let byte = |memory: &GuestMemory, address| memory.read_le(address, 1).unwrap();
        assert_eq!([byte(&memory, 0x10008), byte(&memory, 0x12000), byte(&memory, 0x20004)], [7, 8, 5]);
        let expected = [(0x10000, "rw", "rw"), (0x11000, "r-", "rw"), (0x14000, "--", "--"), (0x20000, "rw", "rw")];
        for (address, in_guarded, in_base) in expected {
            assert_eq!(host_protection(guarded(address)), in_guarded, "guarded view at {address:#x}");
            assert_eq!(host_protection(base(address)), in_base, "privileged view at {address:#x}");
        }
        // Writes to private pages no longer reach the pages before the copy; the shared run still meets its pages.
        memory.write(0x10008, &[1]).unwrap();
        let mut old = [0];
        before.read(0x10008, &mut old).unwrap();
        assert_eq!(old, [7]);
        shared.write(4, &[6]).unwrap();
        assert_eq!(byte(&memory, 0x20004), 6);
        memory.write(0x20005, &[3]).unwrap();
        shared.read(5, &mut old).unwrap();
        assert_eq!(old, [3]);
    }
}
