//! The process handle table, encoded as Horizon encodes handles (mesosphère's `KHandleTable`): bits 0-14 index the
//! table, bits 15-29 hold a linear id (1..=0x7fff, the next one for each handle made) that must match the slot's,
//! and bits 30-31 must be clear. A closed handle's slot gets a new linear id when reused, so a stale handle, a
//! forged one and the pseudo-handles all fail the lookup instead of reaching another object.

/// The pseudo-handle for the calling thread.
pub const CURRENT_THREAD: u32 = 0xffff_8000;
/// The pseudo-handle for the calling process.
pub const CURRENT_PROCESS: u32 = 0xffff_8001;
/// The largest table Horizon makes, and the size of a table whose NPDM asks for 0.
pub const MAX_TABLE_SIZE: usize = 1024;

const INDEX_BITS: u32 = 15;
const LINEAR_ID_MASK: u32 = 0x7fff;
const RESERVED_MASK: u32 = 0xc000_0000;

#[derive(Clone, Debug)]
enum Slot<T> {
    Free { next: Option<usize> },
    Used { linear_id: u32, object: T },
}

/// Handles to objects of type `T`.
#[derive(Clone, Debug)]
pub struct HandleTable<T> {
    slots: Vec<Slot<T>>,
    free_head: Option<usize>,
    next_linear_id: u32,
}

impl<T: Copy> HandleTable<T> {
    /// A table of `size` slots (0 or more than [`MAX_TABLE_SIZE`]: the largest). As in Horizon, the free list starts
    /// at the last slot, so the first handle is `(1 << 15) | (size - 1)`.
    pub fn new(size: usize) -> HandleTable<T> {
        let size = if size == 0 || size > MAX_TABLE_SIZE { MAX_TABLE_SIZE } else { size };
        let slots = (0..size).map(|index| Slot::Free { next: index.checked_sub(1) }).collect();
        HandleTable { slots, free_head: Some(size - 1), next_linear_id: 1 }
    }

    /// Adds `object`, or `None` when every slot is in use (Horizon's OutOfHandles).
    pub fn add(&mut self, object: T) -> Option<u32> {
        let index = self.free_head?;
        let Slot::Free { next } = self.slots[index] else { unreachable!("the free list holds only free slots") };
        self.free_head = next;
        let linear_id = self.next_linear_id;
        self.next_linear_id = if linear_id == LINEAR_ID_MASK { 1 } else { linear_id + 1 };
        self.slots[index] = Slot::Used { linear_id, object };
        Some(linear_id << INDEX_BITS | index as u32)
    }

    /// The object `handle` names, if it is a live handle of this table.
    pub fn get(&self, handle: u32) -> Option<T> {
        self.index_of(handle).map(|index| match self.slots[index] {
            Slot::Used { object, .. } => object,
            Slot::Free { .. } => unreachable!("index_of finds used slots only"),
        })
    }

    /// Closes `handle`, giving back the object it named.
    pub fn remove(&mut self, handle: u32) -> Option<T> {
        let index = self.index_of(handle)?;
        let slot = std::mem::replace(&mut self.slots[index], Slot::Free { next: self.free_head });
        self.free_head = Some(index);
        match slot {
            Slot::Used { object, .. } => Some(object),
            Slot::Free { .. } => unreachable!("index_of finds used slots only"),
        }
    }

    fn index_of(&self, handle: u32) -> Option<usize> {
        if handle & RESERVED_MASK != 0 {
            return None;
        }
        let index = (handle & ((1 << INDEX_BITS) - 1)) as usize;
        let linear_id = handle >> INDEX_BITS & LINEAR_ID_MASK;
        match self.slots.get(index) {
            Some(Slot::Used { linear_id: id, .. }) if linear_id != 0 && *id == linear_id => Some(index),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn handles_carry_index_and_linear_id() {
        let mut table = HandleTable::new(512);
        let first = table.add('a').unwrap();
        let second = table.add('b').unwrap();
        // The free list starts at the last slot; linear ids count from 1.
        assert_eq!(first, 1 << 15 | 511);
        assert_eq!(second, 2 << 15 | 510);
        assert_eq!((table.get(first), table.get(second)), (Some('a'), Some('b')));
    }

    #[test]
    fn stale_forged_and_pseudo_handles_find_nothing() {
        let mut table = HandleTable::new(4);
        let handle = table.add(1).unwrap();
        assert_eq!(table.remove(handle), Some(1));
        assert_eq!(table.get(handle), None, "a closed handle is stale");
        assert_eq!(table.remove(handle), None, "closing twice fails");
        let reused = table.add(2).unwrap();
        assert_eq!(reused & 0x7fff, handle & 0x7fff, "the slot is reused");
        assert_ne!(reused, handle, "with a new linear id");
        assert_eq!(table.get(handle), None);
        for forged in [0, reused & 0x7fff, reused | 1 << 30, reused ^ 1 << 15, CURRENT_THREAD, CURRENT_PROCESS] {
            assert_eq!(table.get(forged), None, "{forged:#x}");
        }
        assert_eq!(table.get(1 << 15 | 1000), None, "an index past the table");
    }

    #[test]
    fn a_full_table_refuses_more() {
        let mut table = HandleTable::new(3);
        let handles: Vec<u32> = (0..3).map(|i| table.add(i).unwrap()).collect();
        assert_eq!(table.add(9), None);
        table.remove(handles[1]);
        assert!(table.add(9).is_some());
    }

    #[test]
    fn linear_ids_wrap_to_one_not_zero() {
        let mut table = HandleTable::new(1);
        for _ in 0..LINEAR_ID_MASK {
            let handle = table.add(0).unwrap();
            table.remove(handle);
        }
        assert_eq!(table.add(0), Some(1 << 15), "after 0x7fff comes 1");
    }

    proptest! {
        /// Any sequence of adds, removes and arbitrary handle values: the table never panics, lookups of live
        /// handles return their objects, and every other value finds nothing.
        #[test]
        fn lookups_match_a_model(ops in proptest::collection::vec((0u8..3, any::<u32>()), 0..200)) {
            let mut table = HandleTable::new(8);
            let mut live: Vec<(u32, u32)> = Vec::new();
            for (op, value) in ops {
                match op {
                    0 => if let Some(handle) = table.add(value) { live.push((handle, value)); },
                    1 if !live.is_empty() => {
                        let (handle, object) = live.remove(value as usize % live.len());
                        prop_assert_eq!(table.remove(handle), Some(object));
                    }
                    _ => {
                        let expected = live.iter().find(|(h, _)| *h == value).map(|(_, o)| *o);
                        prop_assert_eq!(table.get(value), expected);
                    }
                }
            }
        }
    }
}
