//! Host1x syncpoints: 32-bit counters the GPU increments as work completes and the CPU waits on (a fence is a
//! syncpoint id and the value it will reach). Values only grow (wrapping), so "reached" compares by the signed
//! difference, as the driver does.

/// How many syncpoints the Tegra X1's host1x has.
pub const SYNCPOINT_COUNT: u32 = 192;

/// A syncpoint and the value that marks some work done.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Fence {
    pub id: u32,
    pub value: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
#[error("syncpoint {0} does not exist (the host1x has {SYNCPOINT_COUNT})")]
pub struct NoSuchSyncpoint(pub u32);

/// Every syncpoint's current value and the highest value work already handed out will bring it to.
#[derive(Clone, Debug)]
pub struct Syncpoints {
    values: Vec<u32>,
    max: Vec<u32>,
}

impl Default for Syncpoints {
    fn default() -> Syncpoints {
        Syncpoints { values: vec![0; SYNCPOINT_COUNT as usize], max: vec![0; SYNCPOINT_COUNT as usize] }
    }
}

/// Whether a counter at `value` has reached `threshold`, across wrap-around.
pub fn has_reached(value: u32, threshold: u32) -> bool {
    value.wrapping_sub(threshold) as i32 >= 0
}

impl Syncpoints {
    fn index(id: u32) -> Result<usize, NoSuchSyncpoint> {
        if id < SYNCPOINT_COUNT { Ok(id as usize) } else { Err(NoSuchSyncpoint(id)) }
    }

    pub fn value(&self, id: u32) -> Result<u32, NoSuchSyncpoint> {
        Ok(self.values[Self::index(id)?])
    }

    /// The value the work handed out so far brings `id` to.
    pub fn max(&self, id: u32) -> Result<u32, NoSuchSyncpoint> {
        Ok(self.max[Self::index(id)?])
    }

    /// Counts `increments` more increments to come on `id`; the fence they complete.
    pub fn reserve(&mut self, id: u32, increments: u32) -> Result<Fence, NoSuchSyncpoint> {
        let index = Self::index(id)?;
        self.max[index] = self.max[index].wrapping_add(increments);
        Ok(Fence { id, value: self.max[index] })
    }

    /// One increment: by the GPU (a pushbuffer's syncpoint method) or the CPU (nvhost-ctrl SyncptIncr). An
    /// increment nobody reserved raises the max with it.
    pub fn increment(&mut self, id: u32) -> Result<u32, NoSuchSyncpoint> {
        let index = Self::index(id)?;
        self.values[index] = self.values[index].wrapping_add(1);
        if !has_reached(self.max[index], self.values[index]) {
            self.max[index] = self.values[index];
        }
        Ok(self.values[index])
    }

    /// Brings `id` to its max, as if every increment reserved had come: when the work that would have made them
    /// is dropped (a closed channel's; nvgpu's `set_min_eq_max` when it frees a channel's syncpoint), so that
    /// no fence waits for ever and the next owner's fences count from where this one stopped.
    pub fn complete(&mut self, id: u32) -> Result<u32, NoSuchSyncpoint> {
        let index = Self::index(id)?;
        self.values[index] = self.max[index];
        Ok(self.values[index])
    }

    /// Brings `id` to `value` unless it is there already (a replayed completion: the replay reserves nothing).
    pub fn raise_to(&mut self, id: u32, value: u32) -> Result<(), NoSuchSyncpoint> {
        let index = Self::index(id)?;
        if !has_reached(self.values[index], value) {
            self.values[index] = value;
        }
        if !has_reached(self.max[index], value) {
            self.max[index] = value;
        }
        Ok(())
    }

    pub fn is_signalled(&self, fence: Fence) -> Result<bool, NoSuchSyncpoint> {
        Ok(has_reached(self.value(fence.id)?, fence.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_complete_as_increments_arrive_even_across_wrap_around() {
        let mut syncpoints = Syncpoints::default();
        for _ in 0..5 {
            syncpoints.increment(7).unwrap();
        }
        assert_eq!(syncpoints.max(7), Ok(5), "unreserved increments raise the max");
        let fence = syncpoints.reserve(7, 2).unwrap();
        assert_eq!(fence, Fence { id: 7, value: 7 });
        syncpoints.increment(7).unwrap();
        assert!(!syncpoints.is_signalled(fence).unwrap());
        syncpoints.increment(7).unwrap();
        assert!(syncpoints.is_signalled(fence).unwrap());
        assert!(has_reached(3, u32::MAX - 2), "3 comes 6 increments after u32::MAX - 2");
        assert!(!has_reached(u32::MAX - 2, 3));
        assert_eq!(syncpoints.increment(SYNCPOINT_COUNT), Err(NoSuchSyncpoint(SYNCPOINT_COUNT)));
    }

    /// Completing a syncpoint reaches every fence reserved on it, and fences reserved after count on from there.
    #[test]
    fn completing_reaches_every_reserved_fence() {
        let mut syncpoints = Syncpoints::default();
        let fence = syncpoints.reserve(9, 3).unwrap();
        syncpoints.increment(9).unwrap();
        syncpoints.complete(9).unwrap();
        assert!(syncpoints.is_signalled(fence).unwrap());
        let next = syncpoints.reserve(9, 1).unwrap();
        assert_eq!(next.value, fence.value + 1);
        assert!(!syncpoints.is_signalled(next).unwrap());
    }
}
