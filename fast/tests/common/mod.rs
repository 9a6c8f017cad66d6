//! What the fast path's engine tests share.

use tandem_reference::memory::{GuestMemory, PAGE_SIZE, Perm};

/// Guest memory with `pages` pages of code (RX) at 0x10000.
pub fn code_memory(pages: u64) -> GuestMemory {
    let mut memory = GuestMemory::new().unwrap();
    memory.map(0x10000, pages * PAGE_SIZE, Perm::RX).unwrap();
    memory
}

/// The next number of a xorshift generator (the tests' random operands, the same every run).
pub fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
