//! `/dev/nvmap`: memory objects that the GPU's address spaces map (switchbrew "NV services", nvmap; argument
//! layouts as libnx's `nvioctlNvmap_*` pass them). An object is created with a size, then allocated over guest
//! memory at an address; handles name objects, ids name them across files (FromId makes another handle); an
//! object lives until Free has closed its last handle.

use super::{IoctlResult, NvResult};
use std::collections::BTreeMap;
use tandem_reference::memory::{ADDRESS_SPACE_SIZE, PAGE_SIZE};

/// Handles the program may hold at once.
const MAX_HANDLES: usize = 0x10000;
const CREATE: u32 = 0xc008_0101;
const FROM_ID: u32 = 0xc008_0103;
const ALLOC: u32 = 0xc020_0104;
const FREE: u32 = 0xc018_0105;
const PARAM: u32 = 0xc00c_0109;
const GET_ID: u32 = 0xc008_010e;

/// Free's flag for an object other handles still hold.
const NOT_FREED_YET: u32 = 1;
/// The heap Param answers for every allocated object (switchbrew).
const HEAP: u32 = 0x4000_0000;

/// Where an allocated object lies, and how.
#[derive(Clone, Copy, Debug)]
struct Allocation {
    address: u64,
    align: u32,
    kind: u8,
}

#[derive(Debug)]
struct Object {
    size: u32,
    allocation: Option<Allocation>,
}

#[derive(Default)]
pub struct NvMap {
    /// Objects by id.
    objects: BTreeMap<u32, Object>,
    /// Handle -> object id.
    handles: BTreeMap<u32, u32>,
    last_id: u32,
    last_handle: u32,
}

fn word(argument: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(argument[offset..offset + 4].try_into().expect("the argument has the ioctl's size"))
}

fn with_word(mut argument: Vec<u8>, offset: usize, value: u32) -> Vec<u8> {
    argument[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
    argument
}

impl NvMap {
    /// The guest address and size of the object a handle names, once allocated.
    pub fn allocation(&self, handle: u32) -> Option<(u64, u64)> {
        let (_, object) = self.object_of(handle).ok()?;
        object.allocation.map(|a| (a.address, u64::from(object.size)))
    }

    /// The guest address and size of the object with `id` (ids name objects across files and services: the
    /// display finds frames by them), once allocated.
    pub fn allocation_of_id(&self, id: u32) -> Option<(u64, u64)> {
        let object = self.objects.get(&id)?;
        object.allocation.map(|a| (a.address, u64::from(object.size)))
    }

    /// Runs `request` on its argument (the ioctl's size); `None` for an ioctl this device does not have.
    pub fn ioctl(&mut self, request: u32, argument: &[u8]) -> Option<IoctlResult> {
        let argument = argument.to_vec();
        Some(match request {
            CREATE => self.create(argument),
            FROM_ID => self.handle_from_id(argument),
            ALLOC => self.alloc(argument),
            FREE => self.free(argument),
            PARAM => self.param(argument),
            GET_ID => self.get_id(argument),
            _ => return None,
        })
    }

    /// Room for another handle (each names host state, so there is a limit).
    fn check_room(&self) -> Result<(), NvResult> {
        if self.handles.len() >= MAX_HANDLES {
            return Err(NvResult::InsufficientMemory);
        }
        Ok(())
    }

    fn new_handle(&mut self, id: u32) -> u32 {
        self.last_handle += 1;
        self.handles.insert(self.last_handle, id);
        self.last_handle
    }

    fn object_of(&self, handle: u32) -> Result<(u32, &Object), NvResult> {
        let id = *self.handles.get(&handle).ok_or(NvResult::BadValue)?;
        Ok((id, &self.objects[&id]))
    }

    /// Create {in size, out handle}.
    fn create(&mut self, argument: Vec<u8>) -> IoctlResult {
        let size = word(&argument, 0);
        if size == 0 {
            return Err(NvResult::BadValue);
        }
        self.check_room()?;
        self.last_id += 1;
        self.objects.insert(self.last_id, Object { size, allocation: None });
        let handle = self.new_handle(self.last_id);
        Ok(with_word(argument, 4, handle))
    }

    /// FromId {in id, out handle}: another handle to an object.
    fn handle_from_id(&mut self, argument: Vec<u8>) -> IoctlResult {
        let id = word(&argument, 0);
        if !self.objects.contains_key(&id) {
            return Err(NvResult::BadValue);
        }
        self.check_room()?;
        let handle = self.new_handle(id);
        Ok(with_word(argument, 4, handle))
    }

    /// Alloc {handle, heap mask, flags, align, kind (u8), padding, address (u64)}: the object's memory is the
    /// guest's at the address, page-aligned; an alignment is a power of two, at least a page.
    fn alloc(&mut self, argument: Vec<u8>) -> IoctlResult {
        // The heap mask and the flags (cacheability) change nothing Tandem emulates.
        let (handle, align) = (word(&argument, 0), word(&argument, 12));
        let kind = argument[16];
        let address = u64::from(word(&argument, 24)) | u64::from(word(&argument, 28)) << 32;
        let (id, object) = self.object_of(handle)?;
        if object.allocation.is_some() {
            return Err(NvResult::AlreadyAllocated);
        }
        // The object's pages lie inside the guest's address space.
        let end = address.checked_add(u64::from(object.size).next_multiple_of(PAGE_SIZE));
        if (align != 0 && !align.is_power_of_two())
            || address == 0
            || !address.is_multiple_of(PAGE_SIZE)
            || end.is_none_or(|end| end > ADDRESS_SPACE_SIZE)
        {
            return Err(NvResult::BadValue);
        }
        let align = align.max(PAGE_SIZE as u32);
        let allocation = Allocation { address, align, kind };
        self.objects.get_mut(&id).expect("handles name live objects").allocation = Some(allocation);
        Ok(argument)
    }

    /// Free {in handle, padding, out u64 address, out size, out flags}: closes the handle. The object goes with
    /// its last handle, answering its address and flags 0; while other handles hold it, address 0 and flags
    /// NOT_FREED_YET (1) (switchbrew's layout; the answers as Ryujinx's `NvMapDeviceFile.Free` gives them).
    fn free(&mut self, argument: Vec<u8>) -> IoctlResult {
        let handle = word(&argument, 0);
        let (id, object) = self.object_of(handle)?;
        let size = object.size;
        self.handles.remove(&handle);
        let (address, flags) = if self.handles.values().any(|&other| other == id) {
            (0, NOT_FREED_YET)
        } else {
            let object = self.objects.remove(&id).expect("handles name live objects");
            (object.allocation.map_or(0, |a| a.address), 0)
        };
        let mut argument = argument;
        argument[8..16].copy_from_slice(&address.to_le_bytes());
        let argument = with_word(argument, 16, size);
        Ok(with_word(argument, 20, flags))
    }

    /// Param {in handle, in parameter, out value}: 1 size, 2 alignment, 4 heap (0x4000_0000, whatever Alloc
    /// gave), 5 kind, 6 compression (unused: 0); 3, the base address, is refused (switchbrew: "returns
    /// error"). An object not allocated yet has only its size.
    fn param(&mut self, argument: Vec<u8>) -> IoctlResult {
        let (_, object) = self.object_of(word(&argument, 0))?;
        let allocation = object.allocation;
        let value = match (word(&argument, 4), allocation) {
            (1, _) => object.size,
            (2, Some(a)) => a.align,
            (4, Some(_)) => HEAP,
            (5, Some(a)) => u32::from(a.kind),
            (6, Some(_)) => 0,
            (2 | 4..=6, None) => 0,
            _ => return Err(NvResult::BadValue),
        };
        Ok(with_word(argument, 8, value))
    }

    /// GetId {out id, in handle}.
    fn get_id(&mut self, argument: Vec<u8>) -> IoctlResult {
        let (id, _) = self.object_of(word(&argument, 4))?;
        Ok(with_word(argument, 0, id))
    }
}
