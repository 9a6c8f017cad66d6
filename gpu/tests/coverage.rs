//! The coverage report's evidence holds together: what it says of each opcode is what the interpreter and the
//! translator do with the oracle corpus's real kernels and the hand-built programs (run on lavapipe here and in
//! CI), so that the summary lines of `tandem shader coverage` can be trusted.

use tandem_gpu::sass::Isa;
use tandem_gpu::sass::corpus::Corpus;
use tandem_gpu::sass::coverage::{self, PathEvidence, Status};
use tandem_gpu::sass::programs;
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
    for kernel in &evidence.kernels {
        // A corpus kernel that matches the GPU verifies everything in it on its path; a hand-built program that
        // leaves its words, everything that no corpus kernel verifies.
        let (code, matched) = match kernel.entry.strip_prefix("program ") {
            Some(name) => (programs::named(name).unwrap().kernel.code, PathEvidence::Program),
            None => {
                let run = corpus.runs.iter().find(|run| run.entry == kernel.entry).unwrap();
                (corpus.kernel(isa, run).unwrap().unwrap().code, PathEvidence::Gpu)
            }
        };
        let name = kernel.entry.trim_start_matches("program ");
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
            if kernel.interpreter.is_ok() {
                assert!(find(opcode).interpreter >= matched, "{} {opcode}", kernel.entry);
            }
            if translator.is_ok() {
                assert_eq!(find(opcode).status(), Status::Verified, "{} {opcode}", kernel.entry);
                let verified_here = find(opcode).verified_by.iter().any(|entry| entry == name);
                assert!(verified_here || find(opcode).translator > matched, "{} {opcode}", kernel.entry);
            }
        }
        // A kernel stopped by an opcode a path does not know: the report calls it missing on that path. (The
        // probes decide for opcodes no kernel settles; this is the kernels' word on the same question.)
        if let Err(error) = &kernel.interpreter
            && let Some(opcode) = unknown(error)
        {
            assert_eq!(find(&opcode).interpreter, PathEvidence::Missing, "{error}");
        }
        if let Err(error) = translator
            && let Some(opcode) = unknown(error)
        {
            assert_eq!(find(&opcode).translator, PathEvidence::Missing, "{error}");
        }
    }
    eprintln!("{}", evidence.summary());
}

/// The opcode of an unknown-opcode message, as both paths write it: "...: OPCODE is not implemented in the SASS
/// interpreter: TEXT" or "...: OPCODE is not translated yet: TEXT"; `None` for other messages.
fn unknown(error: &str) -> Option<String> {
    let marked = [" is not implemented in the SASS interpreter: ", " is not translated yet: "];
    if !marked.iter().any(|mark| error.contains(mark)) {
        return None;
    }
    let before = error.split(" is not ").next()?;
    let opcode = before.rsplit(": ").next()?;
    (!opcode.contains(' ')).then(|| opcode.to_string())
}

/// The parsing above reads the paths' real unknown-opcode errors (the kernels may not stop at one any more).
#[test]
fn unknown_opcode_messages_name_the_opcode() {
    use tandem_gpu::sass::exec::ExecError;
    use tandem_gpu::shader::TranslateError;
    let interpreter = ExecError::UnknownOpcode {
        isa: Isa::Sm86,
        opcode: "IDP",
        text: "IDP.4A.U8.U8 R1, R2, R3, R4".into(),
        offset: 16,
    };
    let translator = TranslateError::UnknownOpcode {
        isa: Isa::Sm5x,
        opcode: "VOTE",
        text: "VOTE.ANY R1, PT, PT".into(),
        kernel: "k".into(),
        offset: 8,
    };
    assert_eq!(unknown(&interpreter.to_string()).as_deref(), Some("IDP"));
    assert_eq!(unknown(&format!("entry: {translator}")).as_deref(), Some("VOTE"));
    let form = ExecError::Unimplemented { isa: Isa::Sm86, what: "FMNMX.NAN/.XORSIGN".into(), offset: 0 };
    assert_eq!(unknown(&form.to_string()), None);
}

#[test]
fn sm53_evidence_agrees_with_the_kernels() {
    check(Isa::Sm5x);
}

#[test]
fn sm86_evidence_agrees_with_the_kernels() {
    check(Isa::Sm86);
}
