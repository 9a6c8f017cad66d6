//! The translator against the SASS interpreter, instruction by instruction (`sass::differential`): random
//! instances of every arithmetic, comparison, logic and conversion opcode of SM5x and SM86 on 768 random register and
//! predicate states, run on lavapipe (here and in CI) and on the interpreter, must agree bit for bit.
//! `TANDEM_DIFF_CASES` sets the instances compared per opcode (12 by default; thousands find more; a form a side
//! does not implement is drawn again, up to four times a case), `TANDEM_DIFF_OPCODE` runs one opcode's (the same
//! instances as in a whole run).

use tandem_gpu::sass::{Isa, differential};
use tandem_gpu::vulkan::ComputeDevice;

#[test]
fn sm5x_translations_compute_what_the_interpreter_computes() {
    check(Isa::Sm5x, 40);
}

#[test]
fn sm86_translations_compute_what_the_interpreter_computes() {
    check(Isa::Sm86, 25);
}

/// Runs the differential and fails on any difference, or when fewer than `least` opcodes were compared at all
/// (a side that stopped implementing them would otherwise compare nothing).
fn check(isa: Isa, least: usize) {
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let cases: u64 = std::env::var("TANDEM_DIFF_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(12);
    let only = std::env::var("TANDEM_DIFF_OPCODE").ok();
    let outcome = differential::run(isa, &device, cases, 0x5eed_0053, only.as_deref(), |_| {}).unwrap();
    let mut failures = Vec::new();
    for difference in &outcome.differences {
        let path = std::env::temp_dir().join(format!("tandem-differential-{:032x}.spv", difference.word));
        let bytes: Vec<u8> = difference.spirv.iter().flat_map(|word| word.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        failures.push(format!(
            "{} ({:#018x}): {} words differ, first {} (SPIR-V: {})",
            difference.text,
            difference.word,
            difference.differences.len(),
            difference.differences[0],
            path.display()
        ));
    }
    let summary: Vec<String> = outcome
        .tallies
        .iter()
        .map(|(opcode, t)| format!("{opcode} {}/{}", t.compared, t.compared + t.skipped))
        .collect();
    eprintln!("compared/cases per opcode: {}", summary.join(", "));
    for (opcode, tally) in &outcome.tallies {
        for (why, count) in &tally.skips {
            eprintln!("  {opcode}: {count} skipped: {why}");
        }
    }
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
    let compared = outcome.tallies.values().filter(|t| t.compared > 0).count();
    assert!(only.is_some() || compared >= least, "only {compared} opcodes compared: {}", summary.join(", "));
}
