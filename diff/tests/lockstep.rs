//! The lockstep tool on a fast path with a planted bug (`tandem-fast`'s `planted-bug` feature: ADD/SUB
//! (immediate) #1 into W9/X9 lifted as #0): it must stop the run and pinpoint the exact instruction, with both
//! states, the difference and the guilty block's Cranelift IR. The instruction and the expected values come from
//! the program's code and the reference, not from the tool.

use std::path::Path;
use tandem_diff::lockstep::LockstepEngine;
use tandem_hle::kernel::{Kernel, RunOutcome};
use tandem_hle::program::Program;
use tandem_hle::report::StopReason;

#[test]
fn lockstep_pinpoints_a_planted_lifter_bug() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin/demo.nro");
    let program = Program::open(&path, None).expect("the demo loads");

    // Unarmed, the paths agree on the whole demo.
    let mut clean = LockstepEngine::new(100_000).unwrap();
    let mut kernel = Kernel::new(&program, Box::new(|_: &[u8]| {})).unwrap();
    assert!(matches!(kernel.run(&mut clean), RunOutcome::Exited));
    assert!(clean.divergence().is_none());

    tandem_fast::planted_bug::arm(9);
    let mut engine = LockstepEngine::new(100_000).unwrap();
    let mut kernel = Kernel::new(&program, Box::new(|_: &[u8]| {})).unwrap();
    let outcome = kernel.run(&mut engine);
    let RunOutcome::Stopped(report) = outcome else { panic!("the run went on past the divergence") };
    assert_eq!(report.reason, StopReason::EngineStopped);
    let divergence = engine.divergence().expect("a divergence report");
    // The guilty instruction: the report's line names a W9/X9 ADD or SUB with #1, and how x9 differs by one.
    let instruction = divergence.lines().nth(1).expect("the instruction line");
    assert!(
        (instruction.contains("add\tw9,")
            || instruction.contains("sub\tw9,")
            || instruction.contains("add\tx9,")
            || instruction.contains("sub\tx9,"))
            && instruction.ends_with("#1"),
        "{divergence}"
    );
    let x9 = divergence.lines().find(|line| line.trim_start().starts_with("x9: ")).expect("x9 differs");
    let values: Vec<u64> = x9
        .trim_start()
        .trim_start_matches("x9: ")
        .split(" vs ")
        .map(|value| u64::from_str_radix(value.trim_start_matches("0x"), 16).unwrap())
        .collect();
    assert_eq!(values[0].abs_diff(values[1]), 1, "{x9}\n{divergence}");
    assert!(divergence.contains("; Cranelift IR") && divergence.contains("; host code"), "{divergence}");
}
