//! The GPU as the driver sees it: address spaces, channels and syncpoints. The nvdrv service (hle) creates
//! them, maps memory and submits GPFIFO entries; the front end runs them at once, in submission order, and
//! says which channels wait.
//!
//! Invariant (determinism): channels run only when the driver calls in, in channel-id order, until none can
//! make progress; nothing depends on host timing.

use crate::channel::{Channel, ChannelError};
use crate::fifo::GpEntry;
use crate::mmu::{GuestMemory, Mmu};
use crate::syncpoint::Syncpoints;
use std::collections::BTreeMap;

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("GPU channel {channel}: {source}")]
pub struct GpuError {
    pub channel: u32,
    pub source: ChannelError,
}

#[derive(Default)]
pub struct Gpu {
    pub syncpoints: Syncpoints,
    address_spaces: BTreeMap<u32, Mmu>,
    channels: BTreeMap<u32, Channel>,
    next_id: u32,
    /// The GPU clock, in nanoseconds: reports and semaphore releases carry it. The driver sets it from guest time.
    pub timestamp: u64,
}

impl Gpu {
    fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    pub fn create_address_space(&mut self) -> u32 {
        let id = self.new_id();
        self.address_spaces.insert(id, Mmu::default());
        id
    }

    pub fn address_space_mut(&mut self, id: u32) -> Option<&mut Mmu> {
        self.address_spaces.get_mut(&id)
    }

    /// Drops an address space; channels bound to it fail when they next run.
    pub fn destroy_address_space(&mut self, id: u32) {
        self.address_spaces.remove(&id);
    }

    pub fn create_channel(&mut self) -> u32 {
        let id = self.new_id();
        self.channels.insert(id, Channel::default());
        id
    }

    pub fn channel_mut(&mut self, id: u32) -> Option<&mut Channel> {
        self.channels.get_mut(&id)
    }

    pub fn destroy_channel(&mut self, id: u32) {
        self.channels.remove(&id);
    }

    /// Queues `entries` on `channel` and runs every channel as far as it goes.
    pub fn submit(&mut self, channel: u32, entries: &[u64], memory: &dyn GuestMemory) -> Result<(), GpuError> {
        if let Some(target) = self.channels.get_mut(&channel) {
            target.submit(entries.iter().map(|&raw| GpEntry::decode(raw)));
        }
        self.run(memory)
    }

    /// Runs channels, in id order and again while any makes progress, until every one is idle or waiting.
    pub fn run(&mut self, memory: &dyn GuestMemory) -> Result<(), GpuError> {
        loop {
            let mut progressed = false;
            for (&id, channel) in &mut self.channels {
                if !channel.is_busy() {
                    continue;
                }
                let before = channel.position();
                let mmu = channel.address_space.and_then(|space| self.address_spaces.get(&space));
                channel
                    .run(mmu, memory, &mut self.syncpoints, self.timestamp)
                    .map_err(|source| GpuError { channel: id, source })?;
                progressed |= channel.position() != before;
            }
            if !progressed {
                return Ok(());
            }
        }
    }
}
