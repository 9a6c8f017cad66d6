//! What every nvdrv session shares: the GPU itself, nvmap's objects, which syncpoints channels own, and
//! nvhost-ctrl's event slots.

use super::{NvResult, ticks_to_gpu_ticks};
use crate::service::ServiceEvent;
use tandem_gpu::front_end::{Gpu, GpuError};
use tandem_gpu::syncpoint::{Fence, SYNCPOINT_COUNT};
use tandem_reference::memory::GuestMemory;

/// Syncpoints the system keeps for itself (the displays' vertical blanks), never given to a channel.
const RESERVED_SYNCPOINTS: [u32; 2] = [26, 27];

/// Guest memory as the GPU reaches it: whatever is mapped, whatever the CPU's permissions.
pub struct GpuView<'a>(pub &'a GuestMemory);

impl tandem_gpu::mmu::GuestMemory for GpuView<'_> {
    fn read(&self, address: u64, buffer: &mut [u8]) -> bool {
        self.0.read_privileged(address, buffer).is_ok()
    }

    fn write(&self, address: u64, data: &[u8]) -> bool {
        self.0.write_privileged(address, data).is_ok()
    }
}

/// One of nvhost-ctrl's event slots.
struct EventSlot {
    event: ServiceEvent,
    /// The syncpoint of the slot's latest wait (0 until one), which QueryEvent's id must name.
    syncpoint: u32,
    waiting: Option<Fence>,
}

pub struct GpuHost {
    pub gpu: Gpu,
    /// nvmap's objects: one namespace for the whole program, as Horizon's driver keeps them.
    pub nvmap: super::nvmap::NvMap,
    /// Syncpoints owned by a channel (or the system).
    owned: Vec<bool>,
    events: Vec<Option<EventSlot>>,
}

impl Default for GpuHost {
    fn default() -> GpuHost {
        let mut owned = vec![false; SYNCPOINT_COUNT as usize];
        owned[0] = true;
        for id in RESERVED_SYNCPOINTS {
            owned[id as usize] = true;
        }
        // The reference back end renders; it opens its Vulkan device when the program first gives the GPU work.
        let mut gpu = Gpu::default();
        gpu.set_backend_factory(tandem_gpu::backend::reference::factory());
        GpuHost {
            gpu,
            nvmap: super::nvmap::NvMap::default(),
            owned,
            events: (0..super::ctrl::EVENT_SLOTS).map(|_| None).collect(),
        }
    }
}

impl GpuHost {
    /// The lowest syncpoint no one owns (0 is never handed out).
    pub fn allocate_syncpoint(&mut self) -> Option<u32> {
        let id = self.owned.iter().position(|owned| !owned)?;
        self.owned[id] = true;
        Some(id as u32)
    }

    pub fn free_syncpoint(&mut self, id: u32) {
        if let Some(owned) = self.owned.get_mut(id as usize) {
            *owned = false;
        }
    }

    /// Runs the GPU's channels as far as they go at guest time `ticks`, then signals the events whose fences
    /// have been reached.
    pub fn run(&mut self, memory: &GuestMemory, ticks: u64) -> Result<(), GpuError> {
        self.gpu.timestamp = ticks_to_gpu_ticks(ticks);
        let result = self.gpu.run(&GpuView(memory));
        self.signal_reached();
        result
    }

    fn signal_reached(&mut self) {
        for slot in self.events.iter_mut().flatten() {
            if let Some(fence) = slot.waiting
                && self.gpu.syncpoints.is_signalled(fence).unwrap_or(false)
            {
                slot.waiting = None;
                slot.event.signal();
            }
        }
    }

    fn slot(&mut self, slot: u32) -> Result<&mut EventSlot, NvResult> {
        self.events.get_mut(slot as usize).and_then(Option::as_mut).ok_or(NvResult::BadParameter)
    }

    /// EventRegister: a fresh slot (registering again replaces it).
    pub fn register_event(&mut self, slot: u32) -> Result<(), NvResult> {
        let entry = self.events.get_mut(slot as usize).ok_or(NvResult::BadParameter)?;
        *entry = Some(EventSlot { event: ServiceEvent::default(), syncpoint: 0, waiting: None });
        Ok(())
    }

    /// EventUnregister: Busy while the slot's wait is armed.
    pub fn unregister_event(&mut self, slot: u32) -> Result<(), NvResult> {
        if self.slot(slot)?.waiting.is_some() {
            return Err(NvResult::Busy);
        }
        self.events[slot as usize] = None;
        Ok(())
    }

    /// EventSignal: the slot's wait is cancelled and its event cleared.
    pub fn cancel_event_wait(&mut self, slot: u32) -> Result<(), NvResult> {
        let entry = self.slot(slot)?;
        entry.waiting = None;
        entry.event.clear();
        Ok(())
    }

    /// Arms `slot` (EventWaitAsync), or one EventWait picks, to be signalled when `fence` is reached; the slot
    /// used. EventWait reuses a registered slot no wait holds, one of the same syncpoint first (its event is the
    /// one the program may hold already), else registers the lowest free slot, else takes any idle one (yuzu's
    /// `FindFreeNvEvent`): waits that end never use slots up.
    pub fn arm_event(&mut self, slot: Option<u32>, fence: Fence) -> Result<u32, NvResult> {
        let slot = match slot {
            Some(slot) => slot,
            None => {
                let idle = |entry: &Option<EventSlot>, syncpoint: Option<u32>| {
                    entry.as_ref().is_some_and(|e| e.waiting.is_none() && syncpoint.is_none_or(|id| e.syncpoint == id))
                };
                let same = self.events.iter().position(|entry| idle(entry, Some(fence.id)));
                let chosen = same
                    .or_else(|| self.events.iter().position(Option::is_none))
                    .or_else(|| self.events.iter().position(|entry| idle(entry, None)))
                    .ok_or(NvResult::InsufficientMemory)? as u32;
                if self.events[chosen as usize].is_none() {
                    self.register_event(chosen)?;
                }
                chosen
            }
        };
        let entry = self.slot(slot)?;
        if entry.waiting.is_some() {
            return Err(NvResult::BadParameter);
        }
        entry.syncpoint = fence.id;
        entry.waiting = Some(fence);
        entry.event.clear();
        Ok(slot)
    }

    /// QueryEvent on nvhost-ctrl: the event of a registered slot whose syncpoint is the one the id names.
    pub fn query_event(&mut self, slot: u32, syncpoint: u32) -> Option<ServiceEvent> {
        let entry = self.slot(slot).ok()?;
        (entry.syncpoint == syncpoint).then(|| entry.event.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// EventWaits whose fences are reached leave their slots idle, and later waits take them again: more waits
    /// than there are slots, one after another, all find one; while every slot waits, another finds none.
    #[test]
    fn event_waits_reuse_idle_slots() {
        let mut host = GpuHost::default();
        let syncpoint = host.allocate_syncpoint().unwrap();
        let mut slots = std::collections::BTreeSet::new();
        for value in 1..=2 * super::super::ctrl::EVENT_SLOTS {
            slots.insert(host.arm_event(None, Fence { id: syncpoint, value }).unwrap());
            host.gpu.increment_syncpoint(syncpoint).unwrap();
            host.signal_reached();
        }
        assert_eq!(slots.len(), 1, "one slot serves waits on one syncpoint one after another");
        let far = Fence { id: syncpoint, value: u32::MAX / 2 };
        for _ in 0..super::super::ctrl::EVENT_SLOTS {
            host.arm_event(None, far).unwrap();
        }
        assert_eq!(host.arm_event(None, far), Err(NvResult::InsufficientMemory));
    }
}
