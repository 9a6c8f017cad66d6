//! The GPU's memory management unit: GPU virtual addresses to guest addresses, in 4 KiB pages. The driver (hle's
//! `nvhost-as-gpu`) decides what is mapped where; the front end reads pushbuffers and resources through here.
//!
//! The GPU knows no CPU: guest memory is reached through [`GuestMemory`], which the emulator implements over its
//! guest address space.

use std::collections::BTreeMap;

/// Bytes of a GPU page: mappings start and end on these.
pub const PAGE_SIZE: u64 = 0x1000;

/// Guest memory as the GPU sees it.
pub trait GuestMemory {
    /// Fills `buffer` from `address`; `false` where the guest has nothing mapped.
    fn read(&self, address: u64, buffer: &mut [u8]) -> bool;
    /// Writes `data` at `address`; `false` where the guest has nothing mapped (or nothing writable).
    fn write(&self, address: u64, data: &[u8]) -> bool;
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum MmuError {
    #[error("GPU address {va:#x} (size {size:#x}) is not page-aligned")]
    Misaligned { va: u64, size: u64 },
    #[error("GPU range {va:#x}+{size:#x} overlaps a mapping")]
    Overlap { va: u64, size: u64 },
    #[error("nothing is mapped at GPU address {va:#x}")]
    Unmapped { va: u64 },
    #[error("GPU address {va:#x} maps guest address {guest:#x}, where the guest has nothing")]
    GuestFault { va: u64, guest: u64 },
}

/// The mappings of one GPU address space.
#[derive(Default, Debug)]
pub struct Mmu {
    /// Start -> (size, guest address of the first byte); ranges never overlap.
    ranges: BTreeMap<u64, (u64, u64)>,
    /// Sparse ranges, start -> size (never overlapping): where nothing is mapped inside one, reads give zeros and
    /// writes go nowhere, as the GPU's sparse page table entries make them; elsewhere an unmapped access faults.
    sparse: BTreeMap<u64, u64>,
}

/// Where a piece of an access lands.
#[derive(Clone, Copy)]
enum Piece {
    Guest(u64),
    Sparse,
}

impl Mmu {
    /// The range holding `va`: (start, size, guest start).
    fn range_of(&self, va: u64) -> Option<(u64, u64, u64)> {
        let (&start, &(size, guest)) = self.ranges.range(..=va).next_back()?;
        (va < start + size).then_some((start, size, guest))
    }

    /// The mapped GPU address ranges `(start, size)` in address order, ranges that touch merged into one.
    pub fn windows(&self) -> Vec<(u64, u64)> {
        let mut windows: Vec<(u64, u64)> = Vec::new();
        for (&start, &(size, _)) in &self.ranges {
            match windows.last_mut() {
                Some((last, last_size)) if *last + *last_size == start => *last_size += size,
                _ => windows.push((start, size)),
            }
        }
        windows
    }

    /// Maps `size` bytes at `va` to the guest's `guest`; all three page-aligned, and `va` free.
    pub fn map(&mut self, va: u64, guest: u64, size: u64) -> Result<(), MmuError> {
        let aligned = [va, guest, size].iter().all(|n| n.is_multiple_of(PAGE_SIZE));
        if !aligned || size == 0 || va.checked_add(size).is_none() || guest.checked_add(size).is_none() {
            return Err(MmuError::Misaligned { va, size });
        }
        let overlaps = self.ranges.range(..va + size).next_back().is_some_and(|(&s, &(len, _))| s + len > va);
        if overlaps {
            return Err(MmuError::Overlap { va, size });
        }
        self.ranges.insert(va, (size, guest));
        Ok(())
    }

    /// Unmaps whatever is mapped in `va..va + size` (page-aligned), keeping the parts of mappings outside it.
    pub fn unmap(&mut self, va: u64, size: u64) -> Result<(), MmuError> {
        if !va.is_multiple_of(PAGE_SIZE) || !size.is_multiple_of(PAGE_SIZE) || va.checked_add(size).is_none() {
            return Err(MmuError::Misaligned { va, size });
        }
        let end = va + size;
        let touched: Vec<(u64, (u64, u64))> = self
            .ranges
            .range(..end)
            .filter(|(start, (length, _))| *start + length > va)
            .map(|(&start, &range)| (start, range))
            .collect();
        for (start, (length, guest)) in touched {
            self.ranges.remove(&start);
            if start < va {
                self.ranges.insert(start, (va - start, guest));
            }
            if start + length > end {
                self.ranges.insert(end, (start + length - end, guest + (end - start)));
            }
        }
        Ok(())
    }

    /// Makes `va..va + size` (page-aligned) sparse: its unmapped pages read as zeros and drop writes.
    pub fn set_sparse(&mut self, va: u64, size: u64) -> Result<(), MmuError> {
        if !va.is_multiple_of(PAGE_SIZE) || !size.is_multiple_of(PAGE_SIZE) || va.checked_add(size).is_none() {
            return Err(MmuError::Misaligned { va, size });
        }
        self.clear_sparse(va, size)?;
        self.sparse.insert(va, size);
        Ok(())
    }

    /// Ends sparseness in `va..va + size` (page-aligned): unmapped pages there fault again.
    pub fn clear_sparse(&mut self, va: u64, size: u64) -> Result<(), MmuError> {
        if !va.is_multiple_of(PAGE_SIZE) || !size.is_multiple_of(PAGE_SIZE) || va.checked_add(size).is_none() {
            return Err(MmuError::Misaligned { va, size });
        }
        let end = va + size;
        let touched: Vec<(u64, u64)> =
            self.sparse.range(..end).filter(|(start, length)| *start + *length > va).map(|(&s, &l)| (s, l)).collect();
        for (start, length) in touched {
            self.sparse.remove(&start);
            if start < va {
                self.sparse.insert(start, va - start);
            }
            if start + length > end {
                self.sparse.insert(end, start + length - end);
            }
        }
        Ok(())
    }

    /// The guest address `va` maps to.
    pub fn translate(&self, va: u64) -> Option<u64> {
        self.range_of(va).map(|(start, _, guest)| guest + (va - start))
    }

    /// Runs `step(va, piece, length)` over the pieces of `va..va + length`, in order: mapped ones and unmapped
    /// ones in sparse ranges; fails at the first byte that is neither.
    fn for_each_piece(
        &self,
        va: u64,
        length: usize,
        mut step: impl FnMut(u64, Piece, usize) -> Result<(), MmuError>,
    ) -> Result<(), MmuError> {
        let mut done = 0;
        while done < length {
            let at = va + done as u64;
            let (piece, end) = match self.range_of(at) {
                Some((start, size, guest)) => (Piece::Guest(guest + (at - start)), start + size),
                None => {
                    let (&start, &size) = self.sparse.range(..=at).next_back().ok_or(MmuError::Unmapped { va: at })?;
                    if at >= start + size {
                        return Err(MmuError::Unmapped { va: at });
                    }
                    // Up to the sparse range's end or the next mapping inside it.
                    let next_mapping = self.ranges.range(at..).next().map_or(u64::MAX, |(&s, _)| s);
                    (Piece::Sparse, (start + size).min(next_mapping))
                }
            };
            let piece_length = ((end - at) as usize).min(length - done);
            step(at, piece, piece_length)?;
            done += piece_length;
        }
        Ok(())
    }

    /// Fills `buffer` from GPU address `va`, across mappings.
    pub fn read(&self, memory: &dyn GuestMemory, va: u64, buffer: &mut [u8]) -> Result<(), MmuError> {
        let mut offset = 0;
        self.for_each_piece(va, buffer.len(), |va, piece, length| {
            let part = &mut buffer[offset..offset + length];
            match piece {
                Piece::Guest(guest) if !memory.read(guest, part) => return Err(MmuError::GuestFault { va, guest }),
                Piece::Guest(_) => {}
                Piece::Sparse => part.fill(0),
            }
            offset += length;
            Ok(())
        })
    }

    /// Writes `data` at GPU address `va`, across mappings; at an unmapped byte it stops with the bytes before it
    /// written.
    pub fn write(&self, memory: &dyn GuestMemory, va: u64, data: &[u8]) -> Result<(), MmuError> {
        let mut offset = 0;
        self.for_each_piece(va, data.len(), |va, piece, length| {
            if let Piece::Guest(guest) = piece
                && !memory.write(guest, &data[offset..offset + length])
            {
                return Err(MmuError::GuestFault { va, guest });
            }
            offset += length;
            Ok(())
        })
    }
}

/// Guest memory for tests: one flat run of bytes.
#[cfg(test)]
pub(crate) mod testing {
    use super::GuestMemory;
    use std::cell::RefCell;

    /// Where the run starts in guest addresses.
    pub const GUEST_BASE: u64 = 0x10_0000;

    pub struct FlatMemory(pub RefCell<Vec<u8>>);

    impl FlatMemory {
        pub fn new(bytes: Vec<u8>) -> FlatMemory {
            FlatMemory(RefCell::new(bytes))
        }

        fn range(&self, address: u64, length: usize) -> Option<std::ops::Range<usize>> {
            let start = usize::try_from(address.checked_sub(GUEST_BASE)?).ok()?;
            let end = start.checked_add(length)?;
            (end <= self.0.borrow().len()).then_some(start..end)
        }
    }

    impl GuestMemory for FlatMemory {
        fn read(&self, address: u64, buffer: &mut [u8]) -> bool {
            let Some(range) = self.range(address, buffer.len()) else { return false };
            buffer.copy_from_slice(&self.0.borrow()[range]);
            true
        }

        fn write(&self, address: u64, data: &[u8]) -> bool {
            let Some(range) = self.range(address, data.len()) else { return false };
            self.0.borrow_mut()[range].copy_from_slice(data);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{FlatMemory, GUEST_BASE};
    use super::*;
    use std::collections::HashMap;

    /// Random maps and unmaps against a page-by-page model: every page translates as the model says, and reads
    /// across pages gather the right guest bytes.
    #[test]
    fn mappings_translate_as_a_page_model_does() {
        let memory = FlatMemory::new((0..64 * PAGE_SIZE).map(|a| a as u8 ^ (a >> 12) as u8).collect());
        let mut mmu = Mmu::default();
        let mut model: HashMap<u64, u64> = HashMap::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (va_page, pages) = (seed % 96, (seed >> 8) % 8 + 1);
            let va = 0x4000_0000 + va_page * PAGE_SIZE;
            if seed >> 62 == 0 {
                mmu.unmap(va, pages * PAGE_SIZE).unwrap();
                for p in 0..pages {
                    model.remove(&(va + p * PAGE_SIZE));
                }
            } else {
                let guest = GUEST_BASE + (seed >> 16) % (64 - pages) * PAGE_SIZE;
                let free = (0..pages).all(|p| !model.contains_key(&(va + p * PAGE_SIZE)));
                let mapped = mmu.map(va, guest, pages * PAGE_SIZE);
                assert_eq!(mapped.is_ok(), free, "map {va:#x}+{pages} pages");
                if free {
                    for p in 0..pages {
                        model.insert(va + p * PAGE_SIZE, guest + p * PAGE_SIZE);
                    }
                }
            }
        }
        for page in 0..104 {
            let va = 0x4000_0000 + page * PAGE_SIZE;
            assert_eq!(mmu.translate(va + 0x123), model.get(&va).map(|g| g + 0x123), "page {page}");
        }
        // A read across every mapped page of a run gathers each page's guest bytes.
        let start = (0..104).map(|p| 0x4000_0000 + p * PAGE_SIZE).find(|va| model.contains_key(va)).unwrap();
        let run = (0..).take_while(|p| model.contains_key(&(start + p * PAGE_SIZE))).count() as u64;
        let mut bytes = vec![0u8; (run * PAGE_SIZE - 0x10) as usize];
        mmu.read(&memory, start + 0x10, &mut bytes).unwrap();
        for (i, byte) in bytes.iter().enumerate() {
            let va = start + 0x10 + i as u64;
            let guest = model[&(va & !(PAGE_SIZE - 1))] + (va & (PAGE_SIZE - 1));
            let mut expected = [0u8];
            assert!(memory.read(guest, &mut expected));
            assert_eq!(*byte, expected[0], "byte at {va:#x}");
        }
        let past = start + run * PAGE_SIZE;
        assert_eq!(mmu.read(&memory, past - 1, &mut [0; 2]), Err(MmuError::Unmapped { va: past }));
    }

    /// In a sparse range, pages with nothing mapped read as zeros and swallow writes; mapped pages inside it are
    /// ordinary, and outside every sparse range an unmapped page faults again.
    #[test]
    fn sparse_ranges_read_zeros_where_nothing_is_mapped() {
        let memory = FlatMemory::new(vec![0x55; 4 * PAGE_SIZE as usize]);
        let mut mmu = Mmu::default();
        let base = 0x40_0000_0000;
        mmu.set_sparse(base, 8 * PAGE_SIZE).unwrap();
        mmu.map(base + 2 * PAGE_SIZE, GUEST_BASE, PAGE_SIZE).unwrap();
        let mut bytes = vec![0xaa; 4 * PAGE_SIZE as usize];
        mmu.read(&memory, base + PAGE_SIZE, &mut bytes).unwrap();
        let page = PAGE_SIZE as usize;
        assert!(bytes[..page].iter().all(|&b| b == 0), "sparse before the mapping");
        assert!(bytes[page..2 * page].iter().all(|&b| b == 0x55), "the mapped page");
        assert!(bytes[2 * page..].iter().all(|&b| b == 0), "sparse after it");
        mmu.write(&memory, base + 2 * PAGE_SIZE - 2, &[1, 2, 3, 4]).unwrap();
        assert_eq!(memory.0.borrow()[..2], [3, 4], "the mapped part of a write lands");
        assert!(memory.0.borrow()[2..].iter().all(|&b| b == 0x55));
        mmu.clear_sparse(base + 4 * PAGE_SIZE, 4 * PAGE_SIZE).unwrap();
        assert_eq!(
            mmu.read(&memory, base + 4 * PAGE_SIZE, &mut [0; 4]),
            Err(MmuError::Unmapped { va: base + 4 * PAGE_SIZE })
        );
        assert_eq!(
            mmu.read(&memory, base + 8 * PAGE_SIZE, &mut [0; 4]),
            Err(MmuError::Unmapped { va: base + 8 * PAGE_SIZE })
        );
        mmu.read(&memory, base, &mut [0; 4]).unwrap();
    }

    #[test]
    fn writes_reach_the_guest_and_bad_ranges_are_refused() {
        let memory = FlatMemory::new(vec![0; 4 * PAGE_SIZE as usize]);
        let mut mmu = Mmu::default();
        mmu.map(0x10_0000_0000, GUEST_BASE + PAGE_SIZE, PAGE_SIZE).unwrap();
        assert_eq!(mmu.write(&memory, 0x10_0000_0fff, &[7, 7]), Err(MmuError::Unmapped { va: 0x10_0000_1000 }));
        mmu.write(&memory, 0x10_0000_0ffc, &[1, 2, 3, 4]).unwrap();
        assert_eq!(memory.0.borrow()[0x1ffc..0x2000], [1, 2, 3, 4]);
        assert_eq!(
            mmu.map(0x10_0000_0800, GUEST_BASE, PAGE_SIZE),
            Err(MmuError::Misaligned { va: 0x10_0000_0800, size: PAGE_SIZE })
        );
        assert!(matches!(mmu.map(0x10_0000_0000, GUEST_BASE, PAGE_SIZE), Err(MmuError::Overlap { .. })));
        mmu.map(0x20_0000_0000, 0x7000_0000, PAGE_SIZE).unwrap();
        assert_eq!(
            mmu.read(&memory, 0x20_0000_0000, &mut [0; 4]),
            Err(MmuError::GuestFault { va: 0x20_0000_0000, guest: 0x7000_0000 })
        );
    }
}
