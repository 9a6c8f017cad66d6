//! Mapping a loaded module into guest memory: each page gets the union of the permissions of the segments on it,
//! and the bss (after the last segment) those of the last segment. Both personalities place modules this way.

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
    let page_count = image.len().div_ceil(PAGE_SIZE as usize) as u64;
    let pages: Vec<(u64, Perm)> = (0..page_count)
        .map(|index| {
            let (start, end) = (index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
            let mut page_perm = module
                .segments
                .iter()
                .filter(|s| s.mem_offset < end && s.mem_end() > start)
                .fold(Perm::NONE, |p, s| p | perm(s.permissions));
            if end > last_segment_end {
                page_perm = page_perm | bss_perm;
            }
            (index, page_perm)
        })
        .filter(|&(_, page_perm)| page_perm != Perm::NONE)
        .collect();
    // Runs of adjacent pages with one permission are mapped and written at once: a host call per run, not per page.
    for run in pages.chunk_by(|a, b| a.0 + 1 == b.0 && a.1 == b.1) {
        let (first, run_perm) = run[0];
        let start = first * PAGE_SIZE;
        let end = (start + run.len() as u64 * PAGE_SIZE).min(image.len() as u64);
        let address = base + start;
        memory.map(address, run.len() as u64 * PAGE_SIZE, run_perm)?;
        memory
            .write_privileged(address, &image[start as usize..end as usize])
            .map_err(|_| MapError::NotMapped { page: address })?;
    }
    Ok(pages.into_iter().map(|(index, page_perm)| (base + index * PAGE_SIZE, page_perm)).collect())
}

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
