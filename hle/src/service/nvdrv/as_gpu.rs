//! `/dev/nvhost-as-gpu`: one GPU address space per open file (argument layouts as libnx's
//! `nvioctlNvhostAsGpu_*` pass them). Its 40-bit virtual addresses (the GM20B's `gpu_va_bit_count`) hold ranges
//! the program reserves (AllocSpace) and mappings of allocated nvmap objects (MapBufferEx), which the GPU's MMU
//! will translate.
//!
//! The layout is Tandem's: small pages (4 KiB) from 16 MiB up to 16 GiB, big pages (the size InitializeEx picks,
//! 128 KiB by default) from there to the top; GetVaRegions reports it, and ranges are handed out lowest first, so
//! runs repeat.

use super::nvmap::NvMap;
use super::{IoctlResult, NvResult};
use std::collections::BTreeMap;
use tandem_gpu::front_end::Gpu;
const ALLOC_SPACE: u32 = 0xc018_4102;
const FREE_SPACE: u32 = 0xc010_4103;
const UNMAP_BUFFER: u32 = 0xc008_4105;
const MAP_BUFFER_EX: u32 = 0xc028_4106;
pub const GET_VA_REGIONS: u32 = 0xc040_4108;
const INITIALIZE_EX: u32 = 0x4028_4109;
/// Remap: direction in/out, group 'A', number 0x14; its size is that of the entries sent.
const REMAP_NUMBER: u32 = 0x14;
const REMAP_ENTRY: usize = 0x14;
/// Remap counts offsets and sizes in 64 KiB units.
const REMAP_PAGE_SHIFT: u32 = 16;

const SMALL_PAGE: u64 = 0x1000;
const SMALL_REGION: (u64, u64) = (0x100_0000, 0x4_0000_0000);
const VA_END: u64 = 1 << 40;
/// The big page sizes the GPU has (its `available_big_page_sizes`), and the default.
const BIG_PAGE_SIZES: [u32; 2] = [0x10000, 0x20000];
const DEFAULT_BIG_PAGE: u32 = 0x20000;
/// The reservations and mappings one address space may hold at once.
const MAX_RANGES: usize = 0x10000;
/// AllocSpace and MapBufferEx flag: the caller names the address.
const FIXED_OFFSET: u32 = 1;
/// MapBufferEx flag: re-establish part of the mapping that starts at the given offset (yuzu's and Skyline's
/// `Remap` flag), rather than make a new one.
const REMAP_SUB_RANGE: u32 = 0x100;
/// AllocSpace flag: a sparse reservation (reads of its unmapped pages give zeros), the only kind Remap maps into.
const SPARSE: u32 = 2;

fn u32_at(argument: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(argument[offset..offset + 4].try_into().expect("the argument has the ioctl's size"))
}

fn u64_at(argument: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(argument[offset..offset + 8].try_into().expect("the argument has the ioctl's size"))
}

fn put(argument: &mut [u8], offset: usize, bytes: &[u8]) {
    argument[offset..offset + bytes.len()].copy_from_slice(bytes);
}

/// A mapping of an nvmap object's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub size: u64,
    /// The guest address the mapping's first byte is.
    pub guest_address: u64,
    pub kind: u32,
}

pub struct AddressSpace {
    /// The address space in the GPU, whose MMU holds the mappings.
    pub gpu_space: u32,
    /// InitializeEx's big page size (0: not initialised yet).
    big_page_size: u32,
    /// Reserved ranges: start -> (size, page size, sparse).
    reserved: BTreeMap<u64, (u64, u32, bool)>,
    pub mappings: BTreeMap<u64, Mapping>,
}

impl AddressSpace {
    pub fn new(gpu_space: u32) -> AddressSpace {
        AddressSpace { gpu_space, big_page_size: 0, reserved: BTreeMap::new(), mappings: BTreeMap::new() }
    }

    /// Runs `request`; `None` for an ioctl this device does not have. Mappings go into `gpu`'s MMU.
    pub fn ioctl(&mut self, request: u32, argument: &[u8], nvmap: &NvMap, gpu: &mut Gpu) -> Option<IoctlResult> {
        let mut argument = argument.to_vec();
        let result = match request {
            INITIALIZE_EX => self.initialize(&argument),
            _ if self.big_page_size == 0 => Err(NvResult::NotInitialized),
            ALLOC_SPACE => self.alloc_space(&mut argument, gpu),
            FREE_SPACE => self.free_space(&argument, gpu),
            MAP_BUFFER_EX => self.map_buffer(&mut argument, nvmap, gpu),
            UNMAP_BUFFER => self.unmap_buffer(&argument, gpu),
            GET_VA_REGIONS => {
                self.va_regions(&mut argument);
                Ok(())
            }
            _ if request & 0xc000_ffff == 0xc000_4100 | REMAP_NUMBER => self.remap(&argument, nvmap, gpu),
            _ => return None,
        };
        Some(result.map(|()| argument))
    }

    /// InitializeEx {big page size (0: default), as fd, flags, reserved, three u64s}.
    fn initialize(&mut self, argument: &[u8]) -> Result<(), NvResult> {
        if self.big_page_size != 0 {
            return Err(NvResult::InvalidState);
        }
        let size = match u32_at(argument, 0) {
            0 => DEFAULT_BIG_PAGE,
            size if BIG_PAGE_SIZES.contains(&size) => size,
            _ => return Err(NvResult::BadValue),
        };
        self.big_page_size = size;
        Ok(())
    }

    /// The region pages of `page_size` come from.
    fn region(&self, page_size: u64) -> Option<(u64, u64)> {
        match page_size {
            SMALL_PAGE => Some(SMALL_REGION),
            size if size == u64::from(self.big_page_size) => Some((SMALL_REGION.1, VA_END)),
            _ => None,
        }
    }

    /// Whether `start..start + size` overlaps a reservation or a mapping outside one.
    fn is_free(&self, start: u64, size: u64) -> bool {
        let end = start + size;
        let reserved = self.reserved.range(..end).next_back().is_some_and(|(&s, &(len, ..))| s + len > start);
        let mapped = self.mappings.range(..end).next_back().is_some_and(|(&s, m)| s + m.size > start);
        !reserved && !mapped
    }

    /// The taken ranges (start, end) of `map` that end past `from`, by start (the ranges of one map never
    /// overlap, so only the last to start before `from` can reach past it).
    fn taken_from<'a, V>(
        map: &'a BTreeMap<u64, V>,
        from: u64,
        length: impl Fn(&V) -> u64 + 'a,
    ) -> std::iter::Peekable<impl Iterator<Item = (u64, u64)> + 'a> {
        let before = map.range(..from).next_back();
        before
            .into_iter()
            .chain(map.range(from..))
            .map(move |(&start, value)| (start, start + length(value)))
            .peekable()
    }

    /// The lowest free range of `size` bytes in `region`, aligned to `align`: one walk over the reservations and
    /// mappings from the region's start, by start.
    fn find_free(&self, region: (u64, u64), size: u64, align: u64) -> Option<u64> {
        let mut candidate = region.0.next_multiple_of(align);
        let mut reserved = Self::taken_from(&self.reserved, candidate, |&(length, ..)| length);
        let mut mapped = Self::taken_from(&self.mappings, candidate, |mapping| mapping.size);
        loop {
            let end = candidate.checked_add(size)?;
            if end > region.1 {
                return None;
            }
            let next = match (reserved.peek(), mapped.peek()) {
                (Some(a), Some(b)) if a.0 <= b.0 => reserved.next(),
                (_, Some(_)) => mapped.next(),
                (Some(_), None) => reserved.next(),
                (None, None) => return Some(candidate),
            };
            let (start, stop) = next.expect("peeked");
            if start >= end {
                return Some(candidate);
            }
            if stop > candidate {
                candidate = stop.next_multiple_of(align);
            }
        }
    }

    /// Room for another reservation or mapping (each is host state: there is a limit).
    fn check_room(&self) -> Result<(), NvResult> {
        if self.reserved.len() + self.mappings.len() >= MAX_RANGES {
            return Err(NvResult::InsufficientMemory);
        }
        Ok(())
    }

    /// AllocSpace {pages, page size, flags, padding, in alignment or fixed offset / out offset}.
    fn alloc_space(&mut self, argument: &mut [u8], gpu: &mut Gpu) -> Result<(), NvResult> {
        let (pages, page_size, flags) = (u32_at(argument, 0), u32_at(argument, 4), u32_at(argument, 8));
        let region = self.region(u64::from(page_size)).ok_or(NvResult::BadValue)?;
        let size = u64::from(pages) * u64::from(page_size);
        if pages == 0 {
            return Err(NvResult::BadValue);
        }
        self.check_room()?;
        let offset = if flags & FIXED_OFFSET != 0 {
            let offset = u64_at(argument, 16);
            let inside = offset >= region.0 && offset.checked_add(size).is_some_and(|end| end <= region.1);
            if !offset.is_multiple_of(u64::from(page_size)) || !inside || !self.is_free(offset, size) {
                return Err(NvResult::BadValue);
            }
            offset
        } else {
            let align = u64_at(argument, 16).max(u64::from(page_size));
            if !align.is_power_of_two() {
                return Err(NvResult::BadValue);
            }
            self.find_free(region, size, align).ok_or(NvResult::InsufficientMemory)?
        };
        let sparse = flags & SPARSE != 0;
        if sparse {
            gpu.set_sparse(self.gpu_space, offset, size, true).expect("reservations are page-aligned");
        }
        self.reserved.insert(offset, (size, page_size, sparse));
        put(argument, 16, &offset.to_le_bytes());
        Ok(())
    }

    /// FreeSpace {offset, pages, page size}: exactly a reservation; its mappings go with it.
    fn free_space(&mut self, argument: &[u8], gpu: &mut Gpu) -> Result<(), NvResult> {
        let (offset, pages, page_size) = (u64_at(argument, 0), u32_at(argument, 8), u32_at(argument, 12));
        let size = u64::from(pages) * u64::from(page_size);
        let Some(&(_, _, sparse)) = self.reserved.get(&offset).filter(|&&(s, p, _)| (s, p) == (size, page_size)) else {
            return Err(NvResult::BadValue);
        };
        self.reserved.remove(&offset);
        self.mappings.retain(|&va, _| va < offset || va >= offset + size);
        gpu.unmap(self.gpu_space, offset, size).expect("reservations are page-aligned");
        if sparse {
            gpu.set_sparse(self.gpu_space, offset, size, false).expect("reservations are page-aligned");
        }
        Ok(())
    }

    /// The reservation `start..start + size` lies in, if any.
    fn reservation_holding(&self, start: u64, size: u64) -> Option<(u64, u64, u32, bool)> {
        let (&base, &(length, page_size, sparse)) = self.reserved.range(..=start).next_back()?;
        (start.checked_add(size)? <= base + length).then_some((base, length, page_size, sparse))
    }

    /// MapBufferEx {flags, kind, nvmap handle, page size (in/out), buffer offset, mapping size (0: the rest of the
    /// object), offset (in when fixed, out)}: a fixed mapping goes inside a reservation, others anywhere free.
    fn map_buffer(&mut self, argument: &mut [u8], nvmap: &NvMap, gpu: &mut Gpu) -> Result<(), NvResult> {
        let (flags, kind, handle) = (u32_at(argument, 0), u32_at(argument, 4), u32_at(argument, 8));
        let (buffer_offset, mapping_size) = (u64_at(argument, 16), u64_at(argument, 24));
        if flags & REMAP_SUB_RANGE != 0 {
            return self.remap_sub_range(u64_at(argument, 32), buffer_offset, mapping_size);
        }
        let (address, object_size) = nvmap.allocation(handle).ok_or(NvResult::BadValue)?;
        let size = if mapping_size == 0 { object_size.saturating_sub(buffer_offset) } else { mapping_size };
        let inside_object = buffer_offset.checked_add(size).is_some_and(|end| end <= object_size);
        if size == 0 || !inside_object || !buffer_offset.is_multiple_of(SMALL_PAGE) {
            return Err(NvResult::BadValue);
        }
        let size = size.next_multiple_of(SMALL_PAGE);
        self.check_room()?;
        let (offset, page_size) = if flags & FIXED_OFFSET != 0 {
            let offset = u64_at(argument, 32);
            let (_, _, page_size, _) = self.reservation_holding(offset, size).ok_or(NvResult::BadValue)?;
            let overlaps = self.mappings.range(..offset + size).next_back().is_some_and(|(&s, m)| s + m.size > offset);
            if !offset.is_multiple_of(SMALL_PAGE) || overlaps {
                return Err(NvResult::BadValue);
            }
            (offset, page_size)
        } else {
            let offset = self.find_free(SMALL_REGION, size, SMALL_PAGE).ok_or(NvResult::InsufficientMemory)?;
            (offset, SMALL_PAGE as u32)
        };
        let guest_address = address + buffer_offset;
        // Remap's pages are the MMU's alone (not `mappings`): a fixed mapping over them is refused here.
        gpu.map(self.gpu_space, offset, guest_address, size).map_err(|_| NvResult::BadValue)?;
        self.mappings.insert(offset, Mapping { size, guest_address, kind });
        put(argument, 12, &page_size.to_le_bytes());
        put(argument, 32, &offset.to_le_bytes());
        Ok(())
    }

    /// MapBufferEx with REMAP_SUB_RANGE: `size` bytes at `buffer_offset` into the mapping that starts at `offset`
    /// map that mapping's memory again. A mapping's pages can only be unmapped whole, so they still hold that
    /// memory and the MMU has nothing to change (it keeps no per-page kind); what is checked is that the range
    /// lies inside the mapping.
    fn remap_sub_range(&self, offset: u64, buffer_offset: u64, size: u64) -> Result<(), NvResult> {
        let mapping = self.mappings.get(&offset).ok_or(NvResult::BadValue)?;
        let inside = buffer_offset.checked_add(size).is_some_and(|end| end <= mapping.size);
        if size == 0 || !inside || !buffer_offset.is_multiple_of(SMALL_PAGE) {
            return Err(NvResult::BadValue);
        }
        Ok(())
    }

    /// UnmapBuffer {offset}: exactly a mapping's start.
    fn unmap_buffer(&mut self, argument: &[u8], gpu: &mut Gpu) -> Result<(), NvResult> {
        let offset = u64_at(argument, 0);
        let mapping = self.mappings.remove(&offset).ok_or(NvResult::BadValue)?;
        gpu.unmap(self.gpu_space, offset, mapping.size).expect("mappings are page-aligned");
        Ok(())
    }

    /// Remap: entries of {u16 flags, u16 kind, u32 nvmap handle (0: unmap), u32 object offset, u32 GPU offset,
    /// u32 size}, offsets and size in 64 KiB units (Ryujinx's `Remap` reads them so), each inside a sparse
    /// reservation. A mapped entry replaces what was there; an unmapped one leaves the pages sparse. Every entry is
    /// checked before any takes effect.
    fn remap(&mut self, argument: &[u8], nvmap: &NvMap, gpu: &mut Gpu) -> Result<(), NvResult> {
        if argument.is_empty() || !argument.len().is_multiple_of(REMAP_ENTRY) {
            return Err(NvResult::InvalidSize);
        }
        let mut plan = Vec::new();
        for entry in argument.chunks_exact(REMAP_ENTRY) {
            let handle = u32_at(entry, 4);
            let [object_offset, gpu_offset, size] =
                [8, 12, 16].map(|at| u64::from(u32_at(entry, at)) << REMAP_PAGE_SHIFT);
            let over_mapping = self
                .mappings
                .range(..gpu_offset.saturating_add(size))
                .next_back()
                .is_some_and(|(&start, mapping)| start + mapping.size > gpu_offset);
            if size == 0 || over_mapping || !matches!(self.reservation_holding(gpu_offset, size), Some((.., true))) {
                return Err(NvResult::BadValue);
            }
            let guest = match handle {
                0 => None,
                _ => {
                    let (address, object_size) = nvmap.allocation(handle).ok_or(NvResult::BadValue)?;
                    if object_offset.checked_add(size).is_none_or(|end| end > object_size) {
                        return Err(NvResult::BadValue);
                    }
                    Some(address + object_offset)
                }
            };
            plan.push((gpu_offset, size, guest));
        }
        for (gpu_offset, size, guest) in plan {
            gpu.unmap(self.gpu_space, gpu_offset, size).expect("64 KiB units are page-aligned");
            if let Some(guest) = guest {
                gpu.map(self.gpu_space, gpu_offset, guest, size).expect("unmapped just before, page-aligned");
            }
        }
        Ok(())
    }

    /// GetVaRegions {unused, buffer size (in/out), padding, two regions {offset, page size, padding, pages}}.
    fn va_regions(&self, argument: &mut [u8]) {
        put(argument, 8, &0x30u32.to_le_bytes());
        let big = u64::from(self.big_page_size);
        for (n, (start, end, page)) in
            [(SMALL_REGION.0, SMALL_REGION.1, SMALL_PAGE), (SMALL_REGION.1, VA_END, big)].into_iter().enumerate()
        {
            let at = 16 + 0x18 * n;
            put(argument, at, &start.to_le_bytes());
            put(argument, at + 8, &(page as u32).to_le_bytes());
            put(argument, at + 16, &((end - start) / page).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alloc(space: &mut AddressSpace, gpu: &mut Gpu, pages: u32, page_size: u32, align: u64) -> Result<u64, NvResult> {
        let mut argument = vec![0u8; 0x18];
        put(&mut argument, 0, &pages.to_le_bytes());
        put(&mut argument, 4, &page_size.to_le_bytes());
        put(&mut argument, 16, &align.to_le_bytes());
        space.alloc_space(&mut argument, gpu).map(|()| u64_at(&argument, 16))
    }

    /// An initialised address space, and an nvmap object of `size` bytes allocated at guest 0x10_0000 (its handle).
    fn space_and_object(size: u64) -> (Gpu, AddressSpace, NvMap, u32) {
        let mut gpu = Gpu::default();
        let mut space = AddressSpace::new(gpu.create_address_space());
        space.initialize(&[0; 0x28]).unwrap();
        let mut nvmap = NvMap::default();
        let created = nvmap.ioctl(0xc008_0101, &size.to_le_bytes()).unwrap().unwrap();
        let handle = u32_at(&created, 4);
        let mut alloc = vec![0u8; 0x20];
        put(&mut alloc, 0, &handle.to_le_bytes());
        put(&mut alloc, 24, &0x10_0000u64.to_le_bytes());
        nvmap.ioctl(0xc020_0104, &alloc).unwrap().unwrap();
        (gpu, space, nvmap, handle)
    }

    /// Reservations of mixed sizes and alignments and mappings placed anywhere, some reservations freed between:
    /// each lies in its page size's region, aligned, and apart from every other.
    #[test]
    fn reservations_and_mappings_are_aligned_inside_their_region_and_apart() {
        let (mut gpu, mut space, nvmap, handle) = space_and_object(0x40000);
        let mut live: Vec<(u64, u64, u32)> = Vec::new();
        let mut mapped: Vec<(u64, u64)> = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for step in 0..600 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let apart = |offset: u64, size: u64| {
                live.iter()
                    .map(|&(o, s, _)| (o, s))
                    .chain(mapped.iter().copied())
                    .all(|(o, s)| offset + size <= o || o + s <= offset)
            };
            if step % 3 == 2 {
                // Part of the object (a multiple of pages, up to all of it), mapped anywhere.
                let size = ((seed >> 8) % 64 + 1) * SMALL_PAGE;
                let mut map = vec![0u8; 0x28];
                put(&mut map, 8, &handle.to_le_bytes());
                put(&mut map, 24, &size.to_le_bytes());
                space.map_buffer(&mut map, &nvmap, &mut gpu).unwrap();
                let offset = u64_at(&map, 32);
                assert!(offset >= SMALL_REGION.0 && offset + size <= SMALL_REGION.1 && offset % SMALL_PAGE == 0);
                assert!(apart(offset, size), "mapping overlaps at step {step}");
                mapped.push((offset, size));
                continue;
            }
            if step % 5 == 4 && !live.is_empty() {
                let (offset, size, page) = live.swap_remove(seed as usize % live.len());
                let mut argument = vec![0u8; 0x10];
                put(&mut argument, 0, &offset.to_le_bytes());
                put(&mut argument, 8, &((size / u64::from(page)) as u32).to_le_bytes());
                put(&mut argument, 12, &page.to_le_bytes());
                space.free_space(&argument, &mut gpu).unwrap();
                continue;
            }
            let page = if seed & 1 == 0 { 0x1000 } else { DEFAULT_BIG_PAGE };
            let (pages, align) = ((seed >> 8) as u32 % 64 + 1, 1u64 << ((seed >> 20) % 20));
            let offset = alloc(&mut space, &mut gpu, pages, page, align).unwrap();
            let size = u64::from(pages) * u64::from(page);
            let region = space.region(u64::from(page)).unwrap();
            assert!(offset >= region.0 && offset + size <= region.1);
            assert_eq!(offset % align.max(u64::from(page)), 0);
            assert!(apart(offset, size), "overlap at step {step}");
            live.push((offset, size, page));
        }
    }

    /// A fixed MapBufferEx over pages that Remap mapped (which `mappings` does not hold) is refused, not a panic.
    #[test]
    fn a_fixed_mapping_over_remapped_pages_is_refused() {
        let (mut gpu, mut space, nvmap, handle) = space_and_object(0x20000);
        // A fixed sparse reservation of four big pages at the big pages' region.
        let start = SMALL_REGION.1;
        let mut reserve = vec![0u8; 0x18];
        put(&mut reserve, 0, &4u32.to_le_bytes());
        put(&mut reserve, 4, &DEFAULT_BIG_PAGE.to_le_bytes());
        put(&mut reserve, 8, &(FIXED_OFFSET | SPARSE).to_le_bytes());
        put(&mut reserve, 16, &start.to_le_bytes());
        space.alloc_space(&mut reserve, &mut gpu).unwrap();
        // Remap: the object's first 64 KiB at the reservation's start.
        let mut remap = vec![0u8; REMAP_ENTRY];
        put(&mut remap, 4, &handle.to_le_bytes());
        put(&mut remap, 12, &((start >> REMAP_PAGE_SHIFT) as u32).to_le_bytes());
        put(&mut remap, 16, &1u32.to_le_bytes());
        space.remap(&remap, &nvmap, &mut gpu).unwrap();
        let mut map = vec![0u8; 0x28];
        put(&mut map, 0, &FIXED_OFFSET.to_le_bytes());
        put(&mut map, 8, &handle.to_le_bytes());
        put(&mut map, 24, &0x10000u64.to_le_bytes());
        put(&mut map, 32, &start.to_le_bytes());
        assert_eq!(space.map_buffer(&mut map, &nvmap, &mut gpu), Err(NvResult::BadValue));
    }

    #[test]
    fn page_sizes_other_than_the_two_are_refused() {
        let mut gpu = Gpu::default();
        let mut space = AddressSpace::new(gpu.create_address_space());
        space.initialize(&[0; 0x28]).unwrap();
        let gpu = &mut gpu;
        assert_eq!(alloc(&mut space, gpu, 1, 0x10000, 0), Err(NvResult::BadValue), "64 KiB is not the big page chosen");
        assert_eq!(alloc(&mut space, gpu, 1, 0x2000, 0), Err(NvResult::BadValue));
        assert_eq!(alloc(&mut space, gpu, 0, 0x1000, 0), Err(NvResult::BadValue));
    }
}
