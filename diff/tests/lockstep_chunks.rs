//! Lockstep over a whole program, comparing often: what it does to the fast path's compiled code. (Its own test
//! binary: `lockstep.rs` arms a planted lifter bug, which is global to its process.)

use std::path::Path;
use tandem_diff::lockstep::LockstepEngine;
use tandem_hle::kernel::{Kernel, RunOutcome};
use tandem_hle::program::Program;

/// Comparing often does not make the fast path compile again: lockstep puts back into the shadow memory only
/// the pages that differ, so the code compiled from pages that did not change stays (and is what gets checked,
/// chained as in a plain run). Every 5 000 instructions (3 000 comparisons on the demo) compiles about as many
/// regions as every 100 000; rewriting every page dropped every region at each comparison.
#[test]
fn comparing_often_keeps_the_compiled_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin/demo.nro");
    let program = Program::open(&path, None).expect("the demo loads");
    let [often, seldom] = [5_000, 100_000].map(|every| {
        let mut engine = LockstepEngine::new(every).unwrap();
        let mut kernel = Kernel::new(&program, Box::new(|_: &[u8]| {})).unwrap();
        assert!(matches!(kernel.run(&mut engine), RunOutcome::Exited));
        assert!(engine.divergence().is_none());
        engine.stats()
    });
    assert!(often.runs > 10 * seldom.runs, "{often:?} {seldom:?}");
    assert!(often.regions < 2 * seldom.regions, "{often:?} {seldom:?}");
}
