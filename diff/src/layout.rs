//! The guest memory layout every differential case runs in, identical for every engine.

use tandem_reference::memory::{GuestMemory, MapError, Perm};

pub const PAGE: u64 = 0x1000;

#[derive(Clone, Copy, Debug)]
pub struct LayoutRegion {
    pub address: u64,
    pub size: u64,
    pub perm: Perm,
}

/// Data below and above a code page, and a read-only page after them (stores there fault on permission).
#[derive(Clone, Debug)]
pub struct Layout {
    pub regions: Vec<LayoutRegion>,
    /// Where the instructions of a case go.
    pub code: u64,
    /// Where register values that are pointers point: the writable data around the code.
    pub data_start: u64,
    pub data_end: u64,
}

const DATA_LOW: u64 = 0x1000_0000;
const DATA_SIZE: u64 = 0x1_0000;

impl Layout {
    pub fn standard() -> Layout {
        let code = DATA_LOW + DATA_SIZE;
        let data_high = code + PAGE;
        let read_only = data_high + DATA_SIZE;
        Layout {
            regions: vec![
                LayoutRegion { address: DATA_LOW, size: DATA_SIZE, perm: Perm::RW },
                LayoutRegion { address: code, size: PAGE, perm: Perm::RX },
                LayoutRegion { address: data_high, size: DATA_SIZE, perm: Perm::RW },
                LayoutRegion { address: read_only, size: PAGE, perm: Perm::READ },
            ],
            code,
            data_start: DATA_LOW,
            data_end: data_high + DATA_SIZE,
        }
    }

    pub fn map_into(&self, memory: &mut GuestMemory) -> Result<(), MapError> {
        for region in &self.regions {
            memory.map(region.address, region.size, region.perm)?;
        }
        Ok(())
    }

    /// Every page of the layout, in address order.
    pub fn pages(&self) -> impl Iterator<Item = u64> + '_ {
        self.regions.iter().flat_map(|r| (r.address..r.address + r.size).step_by(PAGE as usize))
    }
}
