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

/// HMMA.1688.F16 rounds the exact sum to nearest even, so that a term far below the others still breaks a tie:
/// row 0 of A is (2048, 1, 2^-24, 0...) and column c of B (1, 1, 2^-24, 0...), so that D's row 0 is
/// 2048 + 1 + 2^-48, just above the tie between 2048 and 2050: 2050 (0x6801), where an FP64 sum alone (2049)
/// would give 2048; with the tiny term negated, 2048. Interpreter and translation agree on every lane.
#[test]
fn half_matrix_products_break_ties_with_the_smallest_terms() {
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let encoding = tandem_gpu::sass::sm86::ENCODINGS.iter().find(|e| e.opcode == "HMMA").unwrap();
    let field = |name: &str, value: u64| encoding.field(name).unwrap().place(value);
    // HMMA.1688.F16 R0, R4, R6, R8: A in R4 (rows 0-7) and R5, B in R6, C in R8 and R9.
    let word = encoding.value | field("pg", 7) | field("rd", 0) | field("ra", 4) | field("rb", 6) | field("rc", 8);
    for (tiny, expected) in [(0x0001, 0x6801), (0x8001, 0x6800)] {
        // Lane t of each quad holds columns 2t and 2t + 1 of A's rows and rows 2t and 2t + 1 of B's columns.
        let registers = |thread: u32| {
            let mut r = [0; 16];
            match thread % 4 {
                0 => (r[4], r[6]) = (0x3c00_6800, 0x3c00_3c00),
                1 => (r[4], r[6]) = (tiny, 0x0001),
                _ => {}
            }
            r
        };
        let (out, differences) = differential::run_instance(Isa::Sm86, &device, word, registers).unwrap();
        assert!(differences.is_empty(), "{}", differences.join("\n"));
        // Lane 0's R0: D (0, 0) and D (0, 1).
        let d = u32::from_le_bytes(out[0..4].try_into().unwrap());
        assert_eq!(d, expected | expected << 16, "D's row 0 with a tiny term of {tiny:#06x}");
    }
}
