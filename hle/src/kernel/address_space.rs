//! The process address space: Horizon's 39-bit layout and the memory map QueryMemory reports.
//!
//! Placement is fixed (no ASLR) so that runs are deterministic: the same program lands at the same addresses on
//! every run and on both CPU paths.

use std::collections::BTreeMap;
use tandem_reference::memory::Perm;

/// The whole 39-bit address space of a 64-bit application: QueryMemory reports Free (not Inaccessible) inside it.
pub const ADDRESS_SPACE: Region = Region { base: 0, size: 1 << 39 };
/// Where the loader may place code, as GetInfo's AslrRegion reports it.
pub const ASLR_REGION: Region = Region { base: 0x800_0000, size: 0x7f_f800_0000 };
/// Where modules are placed, one after another.
pub const CODE_BASE: u64 = 0x800_0000;
pub const ALIAS_REGION: Region = Region { base: 0x10_0000_0000, size: 0x10_0000_0000 };
pub const HEAP_REGION: Region = Region { base: 0x20_0000_0000, size: 0x1_8000_0000 };
pub const STACK_REGION: Region = Region { base: 0x30_0000_0000, size: 0x8000_0000 };
/// Thread-local pages, one per thread, in the stack region above the stacks.
pub const TLS_BASE: u64 = STACK_REGION.base + STACK_REGION.size - 0x10_0000;
/// Memory an application may use (heap plus code plus stacks), as GetInfo's TotalMemorySize reports it: the
/// Switch's 3.2 GiB application pool.
pub const TOTAL_MEMORY: u64 = 0xcd50_0000;
/// SetHeapSize takes multiples of this.
pub const HEAP_SIZE_ALIGNMENT: u64 = 0x20_0000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Region {
    pub base: u64,
    pub size: u64,
}

impl Region {
    pub fn end(self) -> u64 {
        self.base + self.size
    }
}

/// Horizon's memory states, as the low byte of MemoryInfo.type reports them (switchbrew "SVC", MemoryType).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum MemoryState {
    Free = 0x00,
    /// A module's code and read-only data.
    Code = 0x03,
    /// A module's writable data and bss.
    CodeData = 0x04,
    /// The heap (SetHeapSize).
    Heap = 0x05,
    Stack = 0x0b,
    ThreadLocal = 0x0c,
    /// Outside the address space.
    Inaccessible = 0x10,
}

/// One entry of QueryMemory's answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MemoryInfo {
    pub base: u64,
    pub size: u64,
    pub state: MemoryState,
    pub perm: Perm,
}

/// What the process has mapped, by state and permission; everything else inside the address space is Free.
#[derive(Default, Debug)]
pub struct MemoryMap {
    /// base -> (size, state, perm); entries never overlap.
    entries: BTreeMap<u64, (u64, MemoryState, Perm)>,
}

impl MemoryMap {
    /// Records a mapping; the range must not overlap an existing one (the kernel checks before mapping).
    pub fn insert(&mut self, base: u64, size: u64, state: MemoryState, perm: Perm) {
        debug_assert!(self.overlapping(base, size).is_empty(), "{base:#x}+{size:#x} overlaps");
        self.entries.insert(base, (size, state, perm));
    }

    /// Forgets every mapping inside `base..base + size` (whole entries only: callers remove what they inserted).
    pub fn remove(&mut self, base: u64, size: u64) {
        for start in self.overlapping(base, size) {
            self.entries.remove(&start);
        }
    }

    fn overlapping(&self, base: u64, size: u64) -> Vec<u64> {
        let end = base + size;
        self.entries.range(..end).filter(|(start, (len, _, _))| **start + len > base).map(|(start, _)| *start).collect()
    }

    /// The largest run of equal state and permission containing `address`, as QueryMemory answers.
    pub fn query(&self, address: u64) -> MemoryInfo {
        if address >= ADDRESS_SPACE.end() {
            let size = 0u64.wrapping_sub(ADDRESS_SPACE.end());
            return MemoryInfo { base: ADDRESS_SPACE.end(), size, state: MemoryState::Inaccessible, perm: Perm::NONE };
        }
        let containing =
            self.entries.range(..=address).next_back().filter(|(start, (len, _, _))| address < **start + len);
        let (mut base, mut end, state, perm) = match containing {
            Some((&start, &(len, state, perm))) => (start, start + len, state, perm),
            None => {
                // A free gap between the neighbouring entries (or the region's edges).
                let base = self.entries.range(..address).next_back().map_or(ADDRESS_SPACE.base, |(s, (l, _, _))| s + l);
                let end = self.entries.range(address..).next().map_or(ADDRESS_SPACE.end(), |(s, _)| *s);
                (base, end, MemoryState::Free, Perm::NONE)
            }
        };
        if state != MemoryState::Free {
            // Merge neighbours with the same state and permission, as Horizon's block manager coalesces them.
            while let Some((&start, &(len, s, p))) = self.entries.range(..base).next_back() {
                if start + len != base || s != state || p != perm {
                    break;
                }
                base = start;
            }
            while let Some(&(len, s, p)) = self.entries.get(&end) {
                if s != state || p != perm {
                    break;
                }
                end += len;
            }
        }
        MemoryInfo { base, size: end - base, state, perm }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_merges_equal_neighbours_and_reports_gaps() {
        let mut map = MemoryMap::default();
        map.insert(CODE_BASE, 0x1000, MemoryState::Code, Perm::RX);
        map.insert(CODE_BASE + 0x1000, 0x1000, MemoryState::Code, Perm::RX);
        map.insert(CODE_BASE + 0x2000, 0x1000, MemoryState::CodeData, Perm::RW);
        assert_eq!(
            map.query(CODE_BASE + 0x1800),
            MemoryInfo { base: CODE_BASE, size: 0x2000, state: MemoryState::Code, perm: Perm::RX }
        );
        let gap = map.query(CODE_BASE + 0x5000);
        assert_eq!((gap.base, gap.state), (CODE_BASE + 0x3000, MemoryState::Free));
        assert_eq!(gap.base + gap.size, ADDRESS_SPACE.end());
        let low = map.query(0x1000);
        assert_eq!((low.base, low.size, low.state), (0, CODE_BASE, MemoryState::Free));
        let above = map.query(u64::MAX);
        assert_eq!((above.base, above.base.wrapping_add(above.size)), (ADDRESS_SPACE.end(), 0));
        assert_eq!(above.state, MemoryState::Inaccessible);
    }
}
