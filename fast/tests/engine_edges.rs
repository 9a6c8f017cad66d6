//! Edge cases of the dispatcher and the region builder, each checked against the reference interpreter run on
//! the same state and memory.

use tandem_fast::FastEngine;
use tandem_reference::engine::{Engine, GuestClock};
use tandem_reference::memory::{GuestMemory, PAGE_SIZE, Perm};
use tandem_reference::{CpuState, Interpreter};

/// Runs both engines from `pc` with `budget` and asserts the same result and state.
fn assert_same(memory: &GuestMemory, pc: u64, budget: u64) {
    let start = CpuState { pc, ..CpuState::default() };
    let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
    let reference = Interpreter::default().run(&mut reference_cpu, memory, budget, GuestClock::default());
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let fast = fast_engine.run(&mut fast_cpu, memory, budget, GuestClock::default());
    assert_eq!(fast, reference, "pc {pc:#x}, budget {budget}");
    assert_eq!(fast_cpu, reference_cpu, "pc {pc:#x}, budget {budget}");
}

fn code_memory(pages: u64) -> GuestMemory {
    let mut memory = GuestMemory::new().unwrap();
    memory.map(0x10000, pages * PAGE_SIZE, Perm::RX).unwrap();
    memory
}

#[test]
fn budgets_past_bit_63_count_exactly() {
    let memory = code_memory(1);
    // add x0, x0, #1; add x0, x0, #1; svc #0
    let code: Vec<u8> = [0x9100_0400u32, 0x9100_0400, 0xd400_0001].iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    for budget in [u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) + 1, (1 << 63) - 1, 3, 2, 1] {
        assert_same(&memory, 0x10000, budget);
    }
}

#[test]
fn a_misaligned_pc_is_left_to_the_reference() {
    let memory = code_memory(2);
    // add x0, x0, #1 everywhere: a word fetched at a misaligned PC straddles two of them, and the page end.
    let code: Vec<u8> =
        std::iter::repeat_n(0x9100_0400u32, (2 * PAGE_SIZE / 4) as usize).flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    for pc in [0x10ffe, 0x10ffd, 0x10002] {
        assert_same(&memory, pc, 5);
    }
}
