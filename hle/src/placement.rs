//! Mapping a loaded module into guest memory: each page gets the union of the permissions of the segments on it,
//! and the bss (after the last segment) those of the last segment. Both personalities place modules this way.

use crate::loader::{Module, Permissions};
use tandem_reference::memory::{GuestMemory, MapError, PAGE_SIZE, Perm};

/// What `map_module` writes into the pages it maps (fresh pages read zero).
#[derive(Clone, Copy)]
pub enum Contents<'a> {
    /// The segments' own bytes: no flat copy of the module is made.
    Segments,
    /// A flat image of the module (`Module::image`) that relocation changed: written page run by page run, so
    /// that whatever relocation wrote lands wherever it lies.
    Image(&'a [u8]),
}

/// Maps the module at `base` and writes `contents` there; returns each mapped page and its permission. Pages no
/// segment touches stay unmapped.
pub fn map_module(
    memory: &mut GuestMemory,
    module: &Module,
    base: u64,
    contents: Contents,
) -> Result<Vec<(u64, Perm)>, MapError> {
    let bss_perm = module.segments.last().map_or(Perm::RW, |s| perm(s.permissions));
    let last_segment_end = module.segments.iter().map(|s| s.mem_end()).max().unwrap_or(0);
    let page_count = module.image_size().div_ceil(PAGE_SIZE);
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
        let (start, end) = (first * PAGE_SIZE, (first + run.len() as u64) * PAGE_SIZE);
        memory.map(base + start, end - start, run_perm)?;
        match contents {
            Contents::Image(image) => {
                let bytes = &image[start.min(image.len() as u64) as usize..end.min(image.len() as u64) as usize];
                write(memory, base + start, bytes)?;
            }
            Contents::Segments => {
                for segment in &module.segments {
                    // The zero tail is the mapping's own zeros.
                    let (from, to) = (segment.mem_offset.max(start), segment.bytes_end().min(end));
                    if from < to {
                        let bytes =
                            &segment.bytes[(from - segment.mem_offset) as usize..(to - segment.mem_offset) as usize];
                        write(memory, base + from, bytes)?;
                    }
                }
            }
        }
    }
    Ok(pages.into_iter().map(|(index, page_perm)| (base + index * PAGE_SIZE, page_perm)).collect())
}

fn write(memory: &GuestMemory, address: u64, bytes: &[u8]) -> Result<(), MapError> {
    memory.write_privileged(address, bytes).map_err(|_| MapError::NotMapped { page: address & !(PAGE_SIZE - 1) })
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
