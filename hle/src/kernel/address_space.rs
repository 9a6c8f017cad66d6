//! The process address space: Horizon's 39-bit layout and the memory map QueryMemory reports.
//!
//! Placement is fixed (no ASLR) so that runs are deterministic: the same program lands at the same addresses on
//! every run and on both CPU paths.

use std::collections::{BTreeMap, BTreeSet};
use tandem_reference::memory::Perm;

/// The whole 39-bit address space of a 64-bit application: QueryMemory reports Free (not Inaccessible) inside it.
pub const ADDRESS_SPACE: Region = Region { base: 0, size: 1 << 39 };
/// Where the loader may place code, as GetInfo's AslrRegion reports it.
pub const ASLR_REGION: Region = Region { base: 0x800_0000, size: 0x7f_f800_0000 };
/// Where modules are placed, one after another.
pub const CODE_BASE: u64 = 0x800_0000;
pub const ALIAS_REGION: Region = Region { base: 0x10_0000_0000, size: 0x10_0000_0000 };
pub const HEAP_REGION: Region = Region { base: 0x20_0000_0000, size: 0x1_8000_0000 };
/// Thread stacks, and where MapMemory places its aliases.
pub const STACK_REGION: Region = Region { base: 0x30_0000_0000, size: 0x8000_0000 };
/// Thread-local regions, eight 0x200-byte regions per page, one region per thread, at the top of the stack region.
pub const TLS_AREA: Region = Region { base: STACK_REGION.base + STACK_REGION.size - 0x10_0000, size: 0x10_0000 };
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

    /// Whether `address..address + size` lies inside the region (`size` > 0, no wrap-around).
    pub fn contains(self, address: u64, size: u64) -> bool {
        address >= self.base && address.checked_add(size).is_some_and(|end| end <= self.end())
    }
}

/// Horizon's memory states (switchbrew "SVC", MemoryState): the low byte is the type QueryMemory reports, the bits
/// above say what the kernel lets a program do with such memory (mesosphère's `KMemoryState` values).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum MemoryState {
    Free = 0x0000_0000,
    /// A module's code and read-only data.
    Code = 0x04dc_7e03,
    /// A module's writable data and bss.
    CodeData = 0x0ffe_bd04,
    /// The heap (SetHeapSize); Horizon calls this state Normal.
    Heap = 0x077e_bd05,
    /// A thread stack, or MapMemory's alias of heap memory.
    Stack = 0x045c_3c0b,
    ThreadLocal = 0x0400_000c,
    /// A shared memory object's mapping (MapSharedMemory).
    Shared = 0x0440_2006,
    /// Transfer memory mapped by MapTransferMemory when its creator kept no access, and when it kept some.
    Transfered = 0x055c_3c0d,
    SharedTransfered = 0x045c_380e,
    /// Code memory's read-only or executable view (ControlCodeMemory operation 1), and its read-write one (0).
    GeneratedCode = 0x0440_2214,
    CodeOut = 0x0440_2015,
    /// Outside the address space.
    Inaccessible = 0x0000_0010,
}

impl MemoryState {
    /// SetMemoryPermission may change the permission.
    pub const CAN_REPROTECT: u32 = 1 << 8;
    /// MapMemory may alias it into the stack region.
    pub const CAN_ALIAS: u32 = 1 << 15;
    /// CreateTransferMemory may lend it (the heap, a module's data and bss).
    pub const CAN_TRANSFER: u32 = 1 << 17;
    /// SetMemoryAttribute may change the Uncached attribute.
    pub const CAN_CHANGE_ATTRIBUTE: u32 = 1 << 24;
    /// SetMemoryAttribute may set the PermissionLocked attribute.
    pub const CAN_PERMISSION_LOCK: u32 = 1 << 27;

    /// The type QueryMemory reports (MemoryInfo.type).
    pub fn memory_type(self) -> u32 {
        self as u32 & 0xff
    }

    pub fn has(self, flags: u32) -> bool {
        self as u32 & flags == flags
    }
}

/// Horizon's memory attributes (switchbrew "SVC", MemoryAttribute).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct MemoryAttribute(pub u32);

impl MemoryAttribute {
    pub const NONE: MemoryAttribute = MemoryAttribute(0);
    /// The source of a MapMemory alias: neither usable nor changeable until UnmapMemory.
    pub const LOCKED: MemoryAttribute = MemoryAttribute(1);
    pub const IPC_LOCKED: MemoryAttribute = MemoryAttribute(2);
    pub const DEVICE_SHARED: MemoryAttribute = MemoryAttribute(4);
    pub const UNCACHED: MemoryAttribute = MemoryAttribute(8);
    /// The permission can no longer change (set once, never cleared).
    pub const PERMISSION_LOCKED: MemoryAttribute = MemoryAttribute(0x10);
}

/// What the kernel knows about one run of pages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Block {
    pub state: MemoryState,
    pub perm: Perm,
    pub attr: MemoryAttribute,
}

impl Block {
    pub const FREE: Block = Block { state: MemoryState::Free, perm: Perm::NONE, attr: MemoryAttribute::NONE };

    pub fn new(state: MemoryState, perm: Perm) -> Block {
        Block { state, perm, attr: MemoryAttribute::NONE }
    }
}

/// One entry of QueryMemory's answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MemoryInfo {
    pub base: u64,
    pub size: u64,
    pub state: MemoryState,
    pub perm: Perm,
    pub attr: MemoryAttribute,
}

/// What the process has mapped, by state, permission and attribute; everything else inside the address space is
/// Free.
#[derive(Default, Debug)]
pub struct MemoryMap {
    /// base -> (size, block); entries never overlap and never describe Free memory.
    entries: BTreeMap<u64, (u64, Block)>,
    /// Addresses where QueryMemory does not merge equal neighbours: the start of a mapping that Horizon keeps apart
    /// from what precedes it (its "disable merge" head), such as a MapMemory alias next to a thread stack.
    heads: BTreeSet<u64>,
}

impl MemoryMap {
    /// Records a mapping of a Free range (the kernel checks before mapping).
    pub fn insert(&mut self, base: u64, size: u64, state: MemoryState, perm: Perm) {
        debug_assert!(self.blocks(base, size).iter().all(|(_, _, b)| *b == Block::FREE), "{base:#x}+{size:#x} in use");
        self.set(base, size, Block::new(state, perm));
    }

    /// Makes `base..base + size` Free again.
    pub fn remove(&mut self, base: u64, size: u64) {
        self.set(base, size, Block::FREE);
        let inside: Vec<u64> = self.heads.range(base..base + size).copied().collect();
        for head in inside {
            self.heads.remove(&head);
        }
    }

    /// Keeps the block starting at `address` apart from its left neighbour in QueryMemory's answers.
    pub fn set_head(&mut self, address: u64) {
        self.heads.insert(address);
    }

    /// Describes every page of `base..base + size` with `block`.
    pub fn set(&mut self, base: u64, size: u64, block: Block) {
        self.update(base, size, |_| block);
    }

    /// Replaces the block of every page of `base..base + size` (Free pages included) with `change(block)`.
    pub fn update(&mut self, base: u64, size: u64, change: impl Fn(Block) -> Block) {
        let end = base + size;
        let pieces = self.blocks(base, size);
        self.split_at(base);
        self.split_at(end);
        let inside: Vec<u64> = self.entries.range(base..end).map(|(start, _)| *start).collect();
        for start in inside {
            self.entries.remove(&start);
        }
        for (start, length, block) in pieces {
            let block = change(block);
            if block.state != MemoryState::Free {
                self.entries.insert(start, (length, block));
            }
        }
    }

    /// Cuts the entry that spans `address` (if any) in two at `address`.
    fn split_at(&mut self, address: u64) {
        let spanning = self.entries.range(..address).next_back().map(|(start, (size, block))| (*start, *size, *block));
        if let Some((start, size, block)) = spanning
            && start + size > address
        {
            self.entries.insert(start, (address - start, block));
            self.entries.insert(address, (start + size - address, block));
        }
    }

    /// The blocks covering `base..base + size`, clipped to it, Free gaps included, in address order.
    pub fn blocks(&self, base: u64, size: u64) -> Vec<(u64, u64, Block)> {
        let end = base + size;
        let mut pieces = Vec::new();
        let mut cursor = base;
        let first = self.entries.range(..=base).next_back().map_or(base, |(start, _)| *start);
        for (&start, &(length, block)) in self.entries.range(first..end) {
            let (from, to) = (start.max(base), (start + length).min(end));
            if to <= from {
                continue;
            }
            if from > cursor {
                pieces.push((cursor, from - cursor, Block::FREE));
            }
            pieces.push((from, to - from, block));
            cursor = to;
        }
        if cursor < end {
            pieces.push((cursor, end - cursor, Block::FREE));
        }
        pieces
    }

    /// The largest run of equal blocks containing `address`, as QueryMemory answers.
    pub fn query(&self, address: u64) -> MemoryInfo {
        if address >= ADDRESS_SPACE.end() {
            let size = 0u64.wrapping_sub(ADDRESS_SPACE.end());
            return MemoryInfo {
                base: ADDRESS_SPACE.end(),
                size,
                state: MemoryState::Inaccessible,
                perm: Perm::NONE,
                attr: MemoryAttribute::NONE,
            };
        }
        let containing = self.entries.range(..=address).next_back().filter(|(start, (len, _))| address < **start + len);
        let (mut base, mut end, block) = match containing {
            Some((&start, &(len, block))) => (start, start + len, block),
            None => {
                // A free gap between the neighbouring entries (or the region's edges).
                let base = self.entries.range(..address).next_back().map_or(ADDRESS_SPACE.base, |(s, (l, _))| s + l);
                let end = self.entries.range(address..).next().map_or(ADDRESS_SPACE.end(), |(s, _)| *s);
                (base, end, Block::FREE)
            }
        };
        if block.state != MemoryState::Free {
            // Merge neighbours with the same block, as Horizon's block manager coalesces them.
            while let Some((&start, &(len, b))) = self.entries.range(..base).next_back() {
                if start + len != base || b != block || self.heads.contains(&base) {
                    break;
                }
                base = start;
            }
            while let Some(&(len, b)) = self.entries.get(&end) {
                if b != block || self.heads.contains(&end) {
                    break;
                }
                end += len;
            }
        }
        MemoryInfo { base, size: end - base, state: block.state, perm: block.perm, attr: block.attr }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(base: u64, size: u64, state: MemoryState, perm: Perm) -> MemoryInfo {
        MemoryInfo { base, size, state, perm, attr: MemoryAttribute::NONE }
    }

    #[test]
    fn query_merges_equal_neighbours_and_reports_gaps() {
        let mut map = MemoryMap::default();
        map.insert(CODE_BASE, 0x1000, MemoryState::Code, Perm::RX);
        map.insert(CODE_BASE + 0x1000, 0x1000, MemoryState::Code, Perm::RX);
        map.insert(CODE_BASE + 0x2000, 0x1000, MemoryState::CodeData, Perm::RW);
        assert_eq!(map.query(CODE_BASE + 0x1800), info(CODE_BASE, 0x2000, MemoryState::Code, Perm::RX));
        let gap = map.query(CODE_BASE + 0x5000);
        assert_eq!((gap.base, gap.state), (CODE_BASE + 0x3000, MemoryState::Free));
        assert_eq!(gap.base + gap.size, ADDRESS_SPACE.end());
        let low = map.query(0x1000);
        assert_eq!((low.base, low.size, low.state), (0, CODE_BASE, MemoryState::Free));
        let above = map.query(u64::MAX);
        assert_eq!((above.base, above.base.wrapping_add(above.size)), (ADDRESS_SPACE.end(), 0));
        assert_eq!(above.state, MemoryState::Inaccessible);
    }

    #[test]
    fn updates_split_blocks_and_removal_is_exact() {
        let base = HEAP_REGION.base;
        let mut map = MemoryMap::default();
        map.insert(base, 0x4000, MemoryState::Heap, Perm::RW);
        map.update(base + 0x1000, 0x1000, |b| Block { perm: Perm::READ, ..b });
        assert_eq!(map.query(base), info(base, 0x1000, MemoryState::Heap, Perm::RW));
        assert_eq!(map.query(base + 0x1000), info(base + 0x1000, 0x1000, MemoryState::Heap, Perm::READ));
        assert_eq!(map.query(base + 0x3000), info(base + 0x2000, 0x2000, MemoryState::Heap, Perm::RW));
        // Setting it back merges the three pieces into one block again.
        map.update(base + 0x1000, 0x1000, |b| Block { perm: Perm::RW, ..b });
        assert_eq!(map.query(base + 0x3000), info(base, 0x4000, MemoryState::Heap, Perm::RW));
        // Removing the upper half leaves the lower half mapped.
        map.remove(base + 0x2000, 0x2000);
        assert_eq!(map.query(base), info(base, 0x2000, MemoryState::Heap, Perm::RW));
        assert_eq!(map.query(base + 0x2000).state, MemoryState::Free);
        let blocks = map.blocks(base + 0x1000, 0x2000);
        let heap = Block::new(MemoryState::Heap, Perm::RW);
        assert_eq!(blocks, [(base + 0x1000, 0x1000, heap), (base + 0x2000, 0x1000, Block::FREE)]);
    }

    #[test]
    fn a_head_keeps_equal_neighbours_apart() {
        let base = STACK_REGION.base;
        let mut map = MemoryMap::default();
        map.insert(base, 0x2000, MemoryState::Stack, Perm::RW);
        map.insert(base + 0x2000, 0x1000, MemoryState::Stack, Perm::RW);
        map.set_head(base + 0x2000);
        assert_eq!(map.query(base), info(base, 0x2000, MemoryState::Stack, Perm::RW));
        assert_eq!(map.query(base + 0x2000), info(base + 0x2000, 0x1000, MemoryState::Stack, Perm::RW));
        map.remove(base + 0x2000, 0x1000);
        map.insert(base + 0x2000, 0x1000, MemoryState::Stack, Perm::RW);
        assert_eq!(map.query(base), info(base, 0x3000, MemoryState::Stack, Perm::RW), "removal drops the head");
    }
}
