//! Where guest control went while the reference interpreter ran code not yet compiled: for each instruction it
//! executed, the addresses that came next. The region builder keeps the edges seen inside a region, leaves the
//! ones an executed branch never took as exits (their room goes to the path the code takes), and follows the
//! calls and jumps it saw into other pages, so that a small function called from far away runs inside its
//! caller's region instead of two region changes away.
//!
//! Only an optimisation: a region is correct whatever the profile says. With an empty profile (code compiled
//! ahead of time, or tests that compile at first use) regions are what the page alone allows.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The successors seen of each instruction the interpreter executed, by address.
#[derive(Default)]
pub struct EdgeProfile {
    seen: HashMap<u64, Successors, BuildHasherDefault<PcHasher>>,
}

/// What the profile says of an edge from an instruction to an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// The instruction was never executed on the interpreter: nothing is known.
    Unknown,
    Taken,
    /// The instruction was executed and control never went there from it.
    NeverTaken,
}

/// Up to two successors (both ways of a conditional branch); an instruction seen going to more (an indirect
/// branch) counts as going anywhere.
#[derive(Clone, Copy)]
struct Successors {
    targets: [u64; 2],
    count: u8,
}

const ANYWHERE: u8 = u8::MAX;

impl EdgeProfile {
    /// Notes that control went from the instruction at `from` to `to`.
    pub fn record(&mut self, from: u64, to: u64) {
        let successors = self.seen.entry(from).or_insert(Successors { targets: [to, 0], count: 1 });
        let known = usize::from(successors.count.min(2));
        if successors.count == ANYWHERE || successors.targets[..known].contains(&to) {
            return;
        }
        if known < 2 {
            successors.targets[known] = to;
            successors.count += 1;
        } else {
            successors.count = ANYWHERE;
        }
    }

    pub fn edge(&self, from: u64, to: u64) -> Seen {
        match self.seen.get(&from) {
            None => Seen::Unknown,
            Some(successors)
                if successors.count == ANYWHERE
                    || successors.targets[..usize::from(successors.count)].contains(&to) =>
            {
                Seen::Taken
            }
            Some(_) => Seen::NeverTaken,
        }
    }

    /// Forgets the instructions in `range`, whose code changed.
    pub fn forget(&mut self, range: std::ops::Range<u64>) {
        self.seen.retain(|pc, _| !range.contains(pc));
    }
}

/// Hashes guest addresses for the engine's tables: one multiply (Fibonacci hashing), as good as SipHash for keys
/// the guest cannot choose to collide, and far cheaper.
#[derive(Default)]
pub(crate) struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        // The product's high half is the well-mixed one; the table indexes by the low bits.
        self.0.rotate_left(32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_known_taken_or_never_taken() {
        let mut profile = EdgeProfile::default();
        assert_eq!(profile.edge(0x1000, 0x2000), Seen::Unknown);
        profile.record(0x1000, 0x1004);
        assert_eq!(profile.edge(0x1000, 0x1004), Seen::Taken);
        assert_eq!(profile.edge(0x1000, 0x2000), Seen::NeverTaken);
        profile.record(0x1000, 0x2000);
        profile.record(0x1000, 0x1004);
        assert_eq!(profile.edge(0x1000, 0x2000), Seen::Taken);
        assert_eq!(profile.edge(0x1000, 0x3000), Seen::NeverTaken);
        // A third successor: an indirect branch, which may go anywhere.
        profile.record(0x1000, 0x3000);
        assert_eq!(profile.edge(0x1000, 0x5000), Seen::Taken);
        profile.forget(0x1000..0x1004);
        assert_eq!(profile.edge(0x1000, 0x2000), Seen::Unknown);
    }
}
