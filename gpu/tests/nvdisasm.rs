//! The decoders, assemblers and disassemblers against NVIDIA's own tools, on the committed oracle data in
//! `tests/sass/` (kernels compiled by ptxas, disassembled by nvdisasm; `cargo xtask sass` regenerates it and
//! `cargo xtask sass --check` proves it came from them). No NVIDIA tool is needed to run this.
//!
//! For every instruction of every program: it decodes, the program encodes back to the same bytes, and our
//! listing line is nvdisasm's line (address column included, encoding comment excluded).

use tandem_gpu::sass::Isa;
use tandem_gpu::sass::corpus::Corpus;
use tandem_gpu::sass::coverage::{self, Oracle, Status};

fn check(isa: Isa) {
    let programs = Corpus::open(&Corpus::source_tree()).unwrap().listings(isa).unwrap();
    assert!(!programs.is_empty(), "no oracle programs for {isa}");
    let oracles: Vec<Oracle<'_>> =
        programs.iter().map(|(_, code, listing)| Oracle { code, nvdisasm: listing }).collect();
    let report = coverage::check(isa, &oracles).unwrap_or_else(|e| panic!("{isa}: {e}"));
    let mut failures = Vec::new();
    for &(program, byte) in &report.round_trip_failures {
        failures.push(format!("{}.bin: re-encoded bytes differ from byte {byte:#x}", programs[program].0));
    }
    for mismatch in report.mismatches.iter().take(60) {
        failures.push(format!(
            "{}.bin {:#06x} ({}):\n  nvdisasm: {}\n  ours:     {}",
            programs[mismatch.program].0,
            mismatch.offset,
            mismatch.opcode,
            mismatch.expected.trim(),
            mismatch.actual.trim()
        ));
    }
    let instructions: usize = report.opcodes.iter().map(|o| o.seen).sum();
    assert!(
        failures.is_empty(),
        "{} of {instructions} instructions differ from nvdisasm:\n{}\n{}",
        report.mismatches.len(),
        failures.join("\n"),
        report.summary()
    );
    // Every opcode the corpus contains is verified.
    for opcode in &report.opcodes {
        assert_eq!(opcode.status == Status::Verified, opcode.seen > 0, "{}", opcode.opcode);
    }
    eprintln!("{}  ({instructions} instructions, {} programs)", report.summary(), programs.len());
}

#[test]
fn sm53_matches_nvdisasm() {
    check(Isa::Sm5x);
}

#[test]
fn sm86_matches_nvdisasm() {
    check(Isa::Sm86);
}
