//! The decoders, assemblers and disassemblers against NVIDIA's own tools, on the committed oracle data in
//! `tests/sass/` (kernels compiled by ptxas, disassembled by nvdisasm; `cargo xtask sass` regenerates it and
//! `cargo xtask sass --check` proves it came from them). No NVIDIA tool is needed to run this.
//!
//! For every instruction of every program: it decodes, the program encodes back to the same bytes, and our
//! listing line is nvdisasm's line (address column included, encoding comment excluded).

use std::path::Path;
use tandem_gpu::sass::Isa;
use tandem_gpu::sass::coverage::{self, Oracle, Status};

/// The oracle programs of one folder: (name, code, nvdisasm's listing).
fn corpus(folder: &str) -> Vec<(String, Vec<u8>, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sass").join(folder);
    let mut programs = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "bin") {
            let code = std::fs::read(&path).unwrap();
            let listing = std::fs::read_to_string(path.with_extension("sass")).unwrap();
            programs.push((path.file_stem().unwrap().to_string_lossy().into_owned(), code, listing));
        }
    }
    programs.sort();
    assert!(!programs.is_empty(), "no oracle programs in {}", dir.display());
    programs
}

fn check(isa: Isa, folder: &str) {
    let programs = corpus(folder);
    let oracles: Vec<Oracle<'_>> =
        programs.iter().map(|(_, code, listing)| Oracle { code, nvdisasm: listing }).collect();
    let report = coverage::check(isa, &oracles).unwrap_or_else(|e| panic!("{folder}: {e}"));
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
    check(Isa::Sm5x, "sm53");
}

#[test]
fn sm86_matches_nvdisasm() {
    check(Isa::Sm86, "sm86");
}
