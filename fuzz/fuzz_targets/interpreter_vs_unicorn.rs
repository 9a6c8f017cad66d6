//! Random blocks of instructions drawn from the decode table, from random states: the reference interpreter and
//! Unicorn must agree on every register, flag, memory byte and stop, unless the ledger explains the difference;
//! the fast path must agree with the reference exactly (the harness compares it first).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use tandem_diff::a64::{Harness, Verdict};
use tandem_reference::decode::ENCODINGS;
use tandem_reference::state::{CpuState, PSTATE_SSBS};

thread_local! {
    static HARNESS: RefCell<Harness> = RefCell::new(Harness::new().expect("the harness starts"));
}

fn block(u: &mut Unstructured, layout_start: u64, layout_end: u64) -> arbitrary::Result<(Vec<u32>, CpuState)> {
    let length = u.int_in_range(1..=8)?;
    let mut code = Vec::with_capacity(length);
    for _ in 0..length {
        let encoding = &ENCODINGS[u.choose_index(ENCODINGS.len())?];
        code.push(encoding.word_from(u32::arbitrary(u)?));
    }
    let mut state = CpuState::default();
    for x in state.x.iter_mut() {
        *x = if bool::arbitrary(u)? { u.int_in_range(layout_start..=layout_end - 1)? } else { u64::arbitrary(u)? };
    }
    state.sp = u.int_in_range(layout_start..=layout_end - 1)? & !15;
    state.nzcv = u32::from(u.int_in_range(0..=15u8)?) << 28;
    state.ssbs = if bool::arbitrary(u)? { PSTATE_SSBS } else { 0 };
    Ok((code, state))
}

fuzz_target!(|data: &[u8]| {
    HARNESS.with(|harness| {
        let mut harness = harness.borrow_mut();
        let layout = harness.layout().clone();
        let mut u = Unstructured::new(data);
        let Ok((code, mut state)) = block(&mut u, layout.data_start, layout.data_end) else { return };
        state.pc = layout.code;
        match harness.check(&code, &state).expect("the oracle runs") {
            Verdict::Mismatch(description) => panic!("reference and Unicorn differ:\n{description}"),
            Verdict::FastMismatch(description) => panic!("the fast path and the reference differ:\n{description}"),
            Verdict::Agree { .. } | Verdict::Ledgered(_) => {}
        }
    });
});
