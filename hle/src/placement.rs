//! Mapping a loaded module into guest memory, page by page: each page gets the union of the permissions of the
//! segments on it, and the bss (after the last segment) those of the last segment. Both personalities place
//! modules this way.

use crate::loader::{Module, Permissions};
use tandem_reference::memory::{GuestMemory, MapError, PAGE_SIZE, Perm};

/// Maps `image` (a module's flat image, relocated as needed) at `base`; returns each mapped page and its
/// permission. Pages no segment touches stay unmapped.
pub fn map_module(
    memory: &mut GuestMemory,
    module: &Module,
    image: &[u8],
    base: u64,
) -> Result<Vec<(u64, Perm)>, MapError> {
    let bss_perm = module.segments.last().map_or(Perm::RW, |s| perm(s.permissions));
    let last_segment_end = module.segments.iter().map(|s| s.mem_end()).max().unwrap_or(0);
    let mut pages = Vec::new();
    for (index, bytes) in image.chunks(PAGE_SIZE as usize).enumerate() {
        let (start, end) = (index as u64 * PAGE_SIZE, (index as u64 + 1) * PAGE_SIZE);
        let mut page_perm = module
            .segments
            .iter()
            .filter(|s| s.mem_offset < end && s.mem_end() > start)
            .fold(Perm::NONE, |p, s| p | perm(s.permissions));
        if end > last_segment_end {
            page_perm = page_perm | bss_perm;
        }
        if page_perm == Perm::NONE {
            continue;
        }
        let address = base + start;
        memory.map(address, PAGE_SIZE, page_perm)?;
        memory.write_privileged(address, bytes).map_err(|_| MapError::NotMapped { page: address })?;
        pages.push((address, page_perm));
    }
    Ok(pages)
}

/// A segment's permissions as guest page permissions.
pub fn perm(permissions: Permissions) -> Perm {
    let mut perm = Perm::NONE;
    if permissions.read {
        perm = perm | Perm::READ;
    }
    if permissions.write {
        perm = perm | Perm::WRITE;
    }
    if permissions.execute {
        perm = perm | Perm::EXECUTE;
    }
    perm
}
