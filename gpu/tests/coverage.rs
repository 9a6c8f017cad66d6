//! The coverage report's evidence holds together: what it says of each opcode is what the interpreter and the
//! translator do with the oracle corpus's real kernels (run on lavapipe here and in CI), so that the summary lines
//! of `tandem shader coverage` can be trusted.

use tandem_gpu::sass::Isa;
use tandem_gpu::sass::corpus::Corpus;
use tandem_gpu::sass::coverage::{self, PathEvidence, Status};
use tandem_gpu::vulkan::ComputeDevice;

fn check(isa: Isa) {
    let corpus = Corpus::open(&Corpus::source_tree()).unwrap();
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let evidence = coverage::gather(isa, &corpus, Some(&device), 2, |_| {}).unwrap();
    let find = |opcode: &str| evidence.opcodes.iter().find(|o| o.decoder.opcode == opcode).unwrap();
    assert_eq!(evidence.decoder_mismatches, 0);
    let counts = [Status::Verified, Status::ImplementedOnly, Status::Missing].map(|s| evidence.count(s));
    assert_eq!(counts.iter().sum::<usize>(), evidence.opcodes.len());
    let name = if isa == Isa::Sm5x { "sm50" } else { "sm86" };
    assert_eq!(
        evidence.summary(),
        format!(
            "{name}: opcodes {}, verified {}, implemented-only {}, missing {}",
            evidence.opcodes.len(),
            counts[0],
            counts[1],
            counts[2]
        )
    );
    let mut unknown_opcodes_seen = 0;
    for kernel in &evidence.kernels {
        let run = corpus.runs.iter().find(|run| run.entry == kernel.entry).unwrap();
        let code = corpus.kernel(isa, run).unwrap().unwrap().code;
        let opcodes: Vec<&str> = match isa {
            Isa::Sm5x => tandem_gpu::sass::sm5x::decode_program(&code)
                .unwrap()
                .iter()
                .map(|i| i.inst.encoding().opcode)
                .collect(),
            Isa::Sm86 => tandem_gpu::sass::sm86::decode_program(&code)
                .unwrap()
                .iter()
                .map(|i| i.inst.encoding().opcode)
                .collect(),
        };
        let translator = kernel.translator.as_ref().expect("a device ran the translations");
        for opcode in &opcodes {
            // A kernel that matches the GPU verifies everything in it, on its path.
            if kernel.interpreter.is_ok() {
                assert_eq!(find(opcode).interpreter, PathEvidence::Gpu, "{} {opcode}", kernel.entry);
            }
            if translator.is_ok() {
                assert_eq!(find(opcode).status(), Status::Verified, "{} {opcode}", kernel.entry);
                assert!(find(opcode).verified_by.contains(&kernel.entry), "{} {opcode}", kernel.entry);
            }
        }
        // A kernel stopped by an opcode a path does not know: the report calls it missing on that path. (The
        // probes decide for opcodes no kernel settles; this is the kernels' word on the same question.)
        // "...: OPCODE is not implemented in the SASS interpreter: TEXT" or "...: OPCODE is not translated yet: TEXT".
        let unknown = |error: &str| {
            let before = error.split(" is not ").next()?;
            let opcode = before.rsplit(": ").next()?;
            (!opcode.contains(' ')).then(|| opcode.to_string())
        };
        if let Err(error) = &kernel.interpreter
            && let Some(opcode) = unknown(error).filter(|_| error.contains("not implemented in the SASS interpreter:"))
        {
            assert_eq!(find(&opcode).interpreter, PathEvidence::Missing, "{error}");
            unknown_opcodes_seen += 1;
        }
        if let Err(error) = translator
            && let Some(opcode) = unknown(error).filter(|_| error.contains(" is not translated yet: "))
        {
            assert_eq!(find(&opcode).translator, PathEvidence::Missing, "{error}");
            unknown_opcodes_seen += 1;
        }
    }
    // The corpus has kernels that stop at unknown opcodes on both ISAs (sm53's memory at LD, sm86's ampere at
    // IDP, ...): the check above must have had something to say.
    assert!(unknown_opcodes_seen > 0, "no kernel stopped at an unknown opcode: is the error text still parsed?");
    eprintln!("{}", evidence.summary());
}

#[test]
fn sm53_evidence_agrees_with_the_kernels() {
    check(Isa::Sm5x);
}

#[test]
fn sm86_evidence_agrees_with_the_kernels() {
    check(Isa::Sm86);
}
