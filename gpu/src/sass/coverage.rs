//! The coverage report's core: every opcode of a decode table with its status, judged against `nvdisasm`.
//!
//! Status of an opcode, for phase 1 of the shader translator (decoders and disassemblers):
//! - **verified**: the oracle programs contain it, and every instance decodes, encodes back to the same bits and
//!   disassembles to exactly nvdisasm's line (address column included, encoding comment excluded);
//! - **implemented-only**: the table has encodings for it and the disassembler spells it, but no oracle program
//!   contains it, or some instance's text differs from nvdisasm's (counted in `mismatched`);
//! - **missing**: the table lists it under `@unencoded`: an opcode of the instruction set with no encoding yet,
//!   which decodes as an unknown instruction.
//!
//! [`gather`] adds the later phases' evidence: each kernel of the corpus run on the SASS interpreter and,
//! translated, on a Vulkan device, against what the NVIDIA GPU computed; [`probe_program`]s for the opcodes no
//! kernel contains. The summary line's status is the translator's (see [`OpcodeEvidence::status`]).

use super::corpus::{Corpus, CorpusError, LOCAL_BYTES, Placement, compare, dispatch, interpret};
use super::cubin::KernelImage;
use super::exec::{self, ConstantBuffers, ExecError, Launch, run_compute_limited};
use super::programs;
use super::{Control, DecodeError, Encoding, Family, Instruction, Isa, differential, sm5x, sm86};
use crate::shader::{self, TranslateError, translate_compute};
use crate::vulkan::ComputeDevice;
use std::collections::{BTreeMap, BTreeSet};

/// One oracle program: raw code and nvdisasm's listing of it (`nvdisasm -b SMxx -hex`, verbatim).
pub struct Oracle<'a> {
    pub code: &'a [u8],
    pub nvdisasm: &'a str,
}

/// One instruction whose text differs from nvdisasm's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the oracle program in the list given to [`check`].
    pub program: usize,
    pub offset: usize,
    pub opcode: &'static str,
    /// nvdisasm's line (empty when nvdisasm has no line at this offset).
    pub expected: String,
    pub actual: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Verified,
    ImplementedOnly,
    Missing,
}

#[derive(Debug, Clone)]
pub struct OpcodeCoverage {
    pub opcode: &'static str,
    pub family: &'static str,
    /// Lines of the table for this opcode (0 for missing opcodes).
    pub encodings: usize,
    /// Instances in the oracle programs, and how many of them read exactly as nvdisasm reads them.
    pub seen: usize,
    pub mismatched: usize,
    pub status: Status,
}

/// The outcome of checking an instruction set against its oracle programs.
#[derive(Debug, Clone)]
pub struct Report {
    pub isa: Isa,
    pub opcodes: Vec<OpcodeCoverage>,
    pub mismatches: Vec<Mismatch>,
    /// Programs whose bytes did not survive decoding and encoding again: (program index, first differing byte).
    pub round_trip_failures: Vec<(usize, usize)>,
}

impl Report {
    pub fn count(&self, status: Status) -> usize {
        self.opcodes.iter().filter(|o| o.status == status).count()
    }

    /// `sm50 decoder: opcodes T, verified V, implemented-only I, missing X` (`sm50` for the Maxwell line, as
    /// the shader translator's issue names it; `sm86` for Ampere).
    pub fn summary(&self) -> String {
        format!(
            "{} decoder: opcodes {}, verified {}, implemented-only {}, missing {}",
            summary_name(self.isa),
            self.opcodes.len(),
            self.count(Status::Verified),
            self.count(Status::ImplementedOnly),
            self.count(Status::Missing)
        )
    }
}

/// Decodes, re-encodes and disassembles every oracle program, compares each line with nvdisasm's and reports
/// per opcode. Fails on the first program that does not decode.
pub fn check(isa: Isa, oracles: &[Oracle<'_>]) -> Result<Report, DecodeError> {
    let (encodings, families, unencoded) = match isa {
        Isa::Sm5x => (sm5x::ENCODINGS, sm5x::FAMILIES, sm5x::UNENCODED),
        Isa::Sm86 => (sm86::ENCODINGS, sm86::FAMILIES, sm86::UNENCODED),
    };
    let mut seen: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut mismatches = Vec::new();
    let mut round_trip_failures = Vec::new();
    for (index, oracle) in oracles.iter().enumerate() {
        let program = disassemble(isa, oracle.code)?;
        if program.reencoded != oracle.code {
            let first = program.reencoded.iter().zip(oracle.code).position(|(a, b)| a != b);
            round_trip_failures.push((index, first.unwrap_or(program.reencoded.len().min(oracle.code.len()))));
        }
        let expected = nvdisasm_lines(oracle.nvdisasm);
        for ((offset, opcode), actual) in program.opcodes.iter().zip(program.listing.lines()) {
            let expected = expected.get(offset).cloned().unwrap_or_default();
            let counts = seen.entry(opcode).or_default();
            counts.0 += 1;
            if expected != actual {
                counts.1 += 1;
                mismatches.push(Mismatch {
                    program: index,
                    offset: *offset,
                    opcode,
                    expected,
                    actual: actual.to_string(),
                });
            }
        }
    }
    let mut opcodes: Vec<OpcodeCoverage> = Vec::new();
    for encoding in encodings {
        if let Some(entry) = opcodes.iter_mut().find(|o| o.opcode == encoding.opcode) {
            entry.encodings += 1;
            continue;
        }
        let (seen, mismatched) = seen.get(encoding.opcode).copied().unwrap_or((0, 0));
        let status = if seen > 0 && mismatched == 0 { Status::Verified } else { Status::ImplementedOnly };
        opcodes.push(OpcodeCoverage {
            opcode: encoding.opcode,
            family: family_name(families, encoding),
            encodings: 1,
            seen,
            mismatched,
            status,
        });
    }
    for &(opcode, family) in unencoded {
        opcodes.push(OpcodeCoverage {
            opcode,
            family: families[family].name,
            encodings: 0,
            seen: 0,
            mismatched: 0,
            status: Status::Missing,
        });
    }
    Ok(Report { isa, opcodes, mismatches, round_trip_failures })
}

fn family_name(families: &[Family], encoding: &Encoding) -> &'static str {
    families[encoding.family].name
}

/// One program disassembled: each instruction's offset and opcode, the listing, and the code encoded again.
struct Disassembly {
    opcodes: Vec<(usize, &'static str)>,
    listing: String,
    reencoded: Vec<u8>,
}

fn disassemble(isa: Isa, code: &[u8]) -> Result<Disassembly, DecodeError> {
    // A decoded program always encodes: every field value came out of its field.
    const ENCODES: &str = "decoded instructions encode";
    Ok(match isa {
        Isa::Sm5x => {
            let program = sm5x::decode_program(code)?;
            Disassembly {
                opcodes: program.iter().map(|i| (i.offset, i.inst.encoding().opcode)).collect(),
                listing: sm5x::listing(code)?,
                reencoded: sm5x::encode_program(&program).expect(ENCODES),
            }
        }
        Isa::Sm86 => {
            let program = sm86::decode_program(code)?;
            Disassembly {
                opcodes: program.iter().map(|i| (i.offset, i.inst.encoding().opcode)).collect(),
                listing: sm86::listing(code)?,
                reencoded: sm86::encode_program(&program).expect(ENCODES),
            }
        }
    })
}

/// nvdisasm's instruction lines by offset, each without its encoding comment and trailing blanks.
fn nvdisasm_lines(listing: &str) -> BTreeMap<usize, String> {
    let mut lines = BTreeMap::new();
    for line in listing.lines() {
        let Some(rest) = line.trim_start().strip_prefix("/*") else { continue };
        let Some((address, _)) = rest.split_once("*/") else { continue };
        let Ok(offset) = usize::from_str_radix(address, 16) else { continue };
        let text = match line.rfind("/* 0x") {
            Some(comment) if comment > line.find("*/").unwrap_or(0) => &line[..comment],
            _ => line,
        };
        lines.insert(offset, text.trim_end().to_string());
    }
    lines
}

// -----------------------------------------------------------------------------------------------------------
// The whole report: decoder, interpreter and translator evidence per opcode.

/// What one path (the SASS interpreter or the translator) has for an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathEvidence {
    /// No semantics: the opcode is unencoded, or the path reports it as an unknown opcode.
    Missing,
    /// Semantics (for some or all of its forms), but no kernel that contains it was checked against the GPU.
    Implemented,
    /// (The translator's column.) Random instances translated and run on the Vulkan device left what the
    /// interpreter left (`sass::differential`), and no corpus kernel with it matched the GPU.
    MatchesInterpreter,
    /// (The translator's column.) A graphics test program whose shaders contain it drew, translated and run on
    /// the Vulkan device, what its own checks expect (values computed from the class and format documents'
    /// formulas: `Evidence::record_rendering`), and nothing above holds.
    Rendered,
    /// A hand-built program that contains it (`sass::programs`) left on this path the words its definition
    /// gives, and no corpus kernel with it matched the GPU.
    Program,
    /// A kernel that contains it ran on this path and left what the NVIDIA GPU left, bit for bit.
    Gpu,
}

/// One opcode's evidence: the decoder against nvdisasm, the interpreter and the translator against the GPU.
#[derive(Debug, Clone)]
pub struct OpcodeEvidence {
    pub decoder: OpcodeCoverage,
    pub interpreter: PathEvidence,
    pub translator: PathEvidence,
    /// The kernels whose runs verified the translator's semantics for it (through the translator column).
    pub verified_by: Vec<String>,
    /// Random instances compared with the interpreter, and how many of them differed (with a device).
    pub differential: Option<(usize, usize)>,
}

impl OpcodeEvidence {
    /// The opcode's place in the summary line: verified (the translation of a kernel that contains it was
    /// checked against the GPU), implemented-only (translated, not checked), or missing.
    pub fn status(&self) -> Status {
        match self.translator {
            PathEvidence::Gpu | PathEvidence::Program | PathEvidence::Rendered | PathEvidence::MatchesInterpreter => {
                Status::Verified
            }
            PathEvidence::Implemented => Status::ImplementedOnly,
            PathEvidence::Missing => Status::Missing,
        }
    }
}

/// How one kernel of the corpus fared on each path.
#[derive(Debug, Clone)]
pub struct KernelOutcome {
    pub entry: String,
    /// What its runs were held against: "the GPU" (a corpus kernel's recorded run) or "its definition" (a
    /// hand-built program's words).
    pub oracle: &'static str,
    pub interpreter: Result<(), String>,
    /// `None` when no Vulkan device ran translations.
    pub translator: Option<Result<(), String>>,
}

/// Every opcode of an instruction set with its evidence, and the kernels that gave it.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub isa: Isa,
    pub opcodes: Vec<OpcodeEvidence>,
    pub kernels: Vec<KernelOutcome>,
    /// Instructions of the oracle listings that differ from nvdisasm's (the decoder check's failures).
    pub decoder_mismatches: usize,
}

impl Evidence {
    pub fn count(&self, status: Status) -> usize {
        self.opcodes.iter().filter(|o| o.status() == status).count()
    }

    /// Counts a graphics test program that passed its own checks on the Vulkan device: the translator's column
    /// of each opcode in `code` (a shader's code, its header left out) becomes at least `Rendered`, naming
    /// `program`. Opcodes the translator has no semantics for stay missing.
    pub fn record_rendering(&mut self, program: &str, code: &[u8]) -> Result<(), DecodeError> {
        for opcode in kernel_opcodes(self.isa, code)? {
            let Some(evidence) = self.opcodes.iter_mut().find(|evidence| evidence.decoder.opcode == opcode) else {
                continue;
            };
            if evidence.translator == PathEvidence::Missing {
                continue;
            }
            if evidence.translator <= PathEvidence::Rendered {
                evidence.translator = PathEvidence::Rendered;
                if !evidence.verified_by.iter().any(|name| name == program) {
                    evidence.verified_by.push(program.to_string());
                }
            }
        }
        Ok(())
    }

    /// `sm50: opcodes T, verified V, implemented-only I, missing X` (`sm86: ...` for Ampere).
    pub fn summary(&self) -> String {
        format!(
            "{}: opcodes {}, verified {}, implemented-only {}, missing {}",
            summary_name(self.isa),
            self.opcodes.len(),
            self.count(Status::Verified),
            self.count(Status::ImplementedOnly),
            self.count(Status::Missing)
        )
    }
}

fn summary_name(isa: Isa) -> &'static str {
    match isa {
        Isa::Sm5x => "sm50",
        Isa::Sm86 => "sm86",
    }
}

/// Gathers the evidence for `isa` from the corpus: the decoder check on every listing, every kernel of the
/// manifest on the interpreter and (with a device) translated and run through Vulkan, each compared with the
/// GPU's results; `differential_cases` random instances of each opcode translated and compared with the
/// interpreter (with a device); and a probe of every encoding on both paths for the opcodes no kernel
/// contains.
pub fn gather(
    isa: Isa,
    corpus: &Corpus,
    device: Option<&ComputeDevice>,
    differential_cases: u64,
    mut progress: impl FnMut(&str),
) -> Result<Evidence, CorpusError> {
    let listings = corpus.listings(isa)?;
    let oracles: Vec<Oracle<'_>> =
        listings.iter().map(|(_, code, listing)| Oracle { code, nvdisasm: listing }).collect();
    let decoder = check(isa, &oracles).map_err(|source| CorpusError::Exec {
        entry: format!("{} listings", Corpus::folder(isa)),
        source: ExecError::Decode(source),
    })?;

    // Per opcode: the best evidence each path has from the kernels.
    let mut interpreter: BTreeMap<&'static str, PathEvidence> = BTreeMap::new();
    let mut translator: BTreeMap<&'static str, PathEvidence> = BTreeMap::new();
    let mut verified_by: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut kernels = Vec::new();
    for run in &corpus.runs {
        let Some(kernel) = corpus.kernel(isa, run)? else { continue };
        progress(&run.entry);
        let opcodes = kernel_opcodes(isa, &kernel.code)
            .map_err(|source| CorpusError::Exec { entry: run.entry.clone(), source: ExecError::Decode(source) })?;
        let expected = corpus.expected(run)?;
        let agrees = |got: &[u8]| {
            let differences = compare(run, isa, got, &expected);
            match differences.first() {
                None => Ok(()),
                Some(first) => Err(format!("{} words differ from the GPU's, first {first}", differences.len())),
            }
        };
        let on_interpreter =
            interpret(run, &kernel, &corpus.input).map_err(|e| e.to_string()).and_then(|got| agrees(&got));
        // A kernel that translates has every opcode it contains implemented, whatever its run gives.
        let (on_translator, translates) = match device {
            Some(device) => match dispatch(device, run, &kernel, &corpus.input, Placement::Device) {
                Ok(outcome) => (Some(agrees(&outcome.buffers)), true),
                Err(error) => {
                    let translated = !matches!(error, CorpusError::Translate { .. });
                    (Some(Err(error.to_string())), translated)
                }
            },
            None => {
                (None, translate_compute(&kernel, run.block, LOCAL_BYTES, &shader::GlobalMemory::Device, &[]).is_ok())
            }
        };
        for &opcode in &opcodes {
            if on_interpreter.is_ok() {
                interpreter.insert(opcode, PathEvidence::Gpu);
            }
            match &on_translator {
                Some(Ok(())) => {
                    translator.insert(opcode, PathEvidence::Gpu);
                    verified_by.entry(opcode).or_default().push(run.entry.clone());
                }
                _ if translates => {
                    translator.entry(opcode).or_insert(PathEvidence::Implemented);
                }
                _ => {}
            }
        }
        kernels.push(KernelOutcome {
            entry: run.entry.clone(),
            oracle: "the GPU",
            interpreter: on_interpreter,
            translator: on_translator,
        });
    }

    // The hand-built programs, against the words their definitions give.
    let programs = programs::all()?;
    for program in programs.iter().filter(|program| program.kernel.isa == isa) {
        let (run, kernel) = (program.run(), &program.kernel);
        progress(&kernel.name);
        let opcodes = kernel_opcodes(isa, &kernel.code)
            .map_err(|source| CorpusError::Exec { entry: kernel.name.clone(), source: ExecError::Decode(source) })?;
        let agrees = |buffers: &[u8]| match program.words(buffers) == program.expected {
            true => Ok(()),
            false => Err("the words differ from the program's".to_string()),
        };
        let on_interpreter =
            interpret(&run, kernel, &program.input()).map_err(|e| e.to_string()).and_then(|got| agrees(&got));
        let on_translator = device.map(|device| {
            dispatch(device, &run, kernel, &program.input(), Placement::Device)
                .map_err(|e| e.to_string())
                .and_then(|outcome| agrees(&outcome.buffers))
        });
        for &opcode in &opcodes {
            if on_interpreter.is_ok() {
                let evidence = interpreter.entry(opcode).or_insert(PathEvidence::Program);
                *evidence = (*evidence).max(PathEvidence::Program);
            }
            if let Some(Ok(())) = &on_translator {
                let evidence = translator.entry(opcode).or_insert(PathEvidence::Program);
                *evidence = (*evidence).max(PathEvidence::Program);
                if *evidence == PathEvidence::Program {
                    verified_by.entry(opcode).or_default().push(kernel.name.clone());
                }
            }
        }
        kernels.push(KernelOutcome {
            entry: format!("program {}", kernel.name),
            oracle: "its definition",
            interpreter: on_interpreter,
            translator: on_translator,
        });
    }

    let mut differential = match device {
        Some(device) if differential_cases > 0 => {
            let outcome = differential::run(isa, device, differential_cases, DIFFERENTIAL_SEED, None, |opcode| {
                progress(&format!("differential {opcode}"))
            })?;
            let mut per_opcode: BTreeMap<&'static str, (usize, usize)> =
                outcome.tallies.iter().map(|(opcode, tally)| (*opcode, (tally.compared, 0))).collect();
            for difference in &outcome.differences {
                per_opcode.entry(difference.opcode).or_default().1 += 1;
            }
            per_opcode
        }
        _ => BTreeMap::new(),
    };
    let opcodes = decoder
        .opcodes
        .iter()
        .map(|coverage| {
            let probe = |path: Path| match coverage.status {
                Status::Missing => PathEvidence::Missing,
                _ if probe_implements(isa, coverage.opcode, path) => PathEvidence::Implemented,
                _ => PathEvidence::Missing,
            };
            let interpreter = interpreter.get(coverage.opcode).copied().unwrap_or_else(|| probe(Path::Interpreter));
            let mut translator = translator.get(coverage.opcode).copied().unwrap_or_else(|| probe(Path::Translator));
            let differential = differential.remove(coverage.opcode);
            if let Some((compared, 0)) = differential
                && compared > 0
            {
                translator = translator.max(PathEvidence::MatchesInterpreter);
            }
            OpcodeEvidence {
                decoder: coverage.clone(),
                interpreter,
                translator,
                verified_by: verified_by.remove(coverage.opcode).unwrap_or_default(),
                differential,
            }
        })
        .collect();
    Ok(Evidence { isa, opcodes, kernels, decoder_mismatches: decoder.mismatches.len() })
}

/// The differential's seed in coverage reports (the test uses its own).
const DIFFERENTIAL_SEED: u64 = 0xc07e_4a6e;

/// The opcodes a kernel's code contains.
fn kernel_opcodes(isa: Isa, code: &[u8]) -> Result<BTreeSet<&'static str>, DecodeError> {
    Ok(match isa {
        Isa::Sm5x => sm5x::decode_program(code)?.iter().map(|i| i.inst.encoding().opcode).collect(),
        Isa::Sm86 => sm86::decode_program(code)?.iter().map(|i| i.inst.encoding().opcode).collect(),
    })
}

#[derive(Clone, Copy)]
enum Path {
    Interpreter,
    Translator,
}

/// Whether a path has semantics for some form of `opcode`: each of its table lines is tried as a program of
/// that one instruction and an EXIT, and only an unknown-opcode error counts against it (any other outcome,
/// a fault or an unimplemented form included, shows the path knows the opcode).
fn probe_implements(isa: Isa, opcode: &str, path: Path) -> bool {
    let encodings = match isa {
        Isa::Sm5x => sm5x::ENCODINGS,
        Isa::Sm86 => sm86::ENCODINGS,
    };
    encodings.iter().filter(|encoding| encoding.opcode == opcode).any(|encoding| {
        let code = probe_program(isa, encoding);
        match path {
            Path::Interpreter => {
                let launch = Launch { block: [1, 1, 1], grid: [1, 1, 1], shared_bytes: 0, local_bytes: 16 };
                let kernel = exec::Kernel { isa, code: &code, entry: 0, origin: 0 };
                let outcome = run_compute_limited(
                    kernel,
                    &launch,
                    &ConstantBuffers::new(),
                    &exec::Textures::default(),
                    &mut exec::GlobalMemory::new(),
                    PROBE_STEPS,
                );
                !matches!(outcome, Err(ExecError::UnknownOpcode { .. }))
            }
            Path::Translator => {
                let kernel = KernelImage {
                    name: format!("probe of {}", encoding.name),
                    isa,
                    code,
                    constants: Vec::new(),
                    shared_bytes: 0,
                    origin: 0,
                };
                let outcome = translate_compute(&kernel, [32, 1, 1], 16, &shader::GlobalMemory::Device, &[]);
                !matches!(outcome, Err(TranslateError::UnknownOpcode { .. }))
            }
        }
    })
}

/// Lane-instructions a probe may run (a branch to itself must stop).
const PROBE_STEPS: u64 = 64;

/// A program of the encoding with its guard and predicate source at PT (`pg`, `ps` = 7), a condition-code test
/// of "always" (`cc_test` = 15) and every other field zero, followed by an unconditional EXIT.
pub fn probe_program(isa: Isa, encoding: &Encoding) -> Vec<u8> {
    let word = |encoding: &Encoding| {
        let mut word = encoding.value;
        for (name, value) in [("pg", 7), ("ps", 7), ("cc_test", 15)] {
            if let Some(field) = encoding.field(name) {
                word |= field.place(value);
            }
        }
        word
    };
    let exit =
        |encodings: &'static [Encoding]| encodings.iter().find(|e| e.name == "EXIT").expect("both tables have EXIT");
    // Built from table lines, so they decode and encode; the scheduling bits stay zero.
    const FROM_TABLE: &str = "a table line encodes";
    match isa {
        Isa::Sm5x => {
            let nop = sm5x::ENCODINGS.iter().find(|e| e.name == "NOP").expect("the table has NOP");
            let program: Vec<_> = [word(encoding), word(exit(sm5x::ENCODINGS)), word(nop)]
                .iter()
                .enumerate()
                .map(|(i, &w)| Instruction {
                    offset: 8 + i * 8,
                    inst: sm5x::decode(w as u64).expect(FROM_TABLE),
                    control: Control::default(),
                })
                .collect();
            sm5x::encode_program(&program).expect(FROM_TABLE)
        }
        Isa::Sm86 => {
            let program: Vec<_> = [word(encoding), word(exit(sm86::ENCODINGS))]
                .iter()
                .enumerate()
                .map(|(i, &w)| Instruction {
                    offset: i * 16,
                    inst: sm86::decode(w).expect(FROM_TABLE),
                    control: Control::default(),
                })
                .collect();
            sm86::encode_program(&program).expect(FROM_TABLE)
        }
    }
}

/// The kernels that verified an opcode's translation, and the differential's count (`differential 4/4`, or
/// `differential 1 of 4 DIFFER`).
fn verified_by(opcode: &OpcodeEvidence) -> String {
    let mut parts = opcode.verified_by.clone();
    match opcode.differential {
        Some((compared, 0)) if compared > 0 => parts.push(format!("differential {compared}")),
        Some((compared, differing)) if differing > 0 => {
            parts.push(format!("differential {differing} of {compared} DIFFER"))
        }
        _ => {}
    }
    parts.join(",")
}

/// The report as `tandem shader coverage` prints it: a line per opcode, then the summary line.
pub fn render(evidence: &Evidence) -> String {
    let mut text = String::new();
    text.push_str(&format!(
        "{:<10} {:<12} {:<9} {:<11} {:<11} {:<16} {}\n",
        "family", "opcode", "decoder", "interpreter", "translator", "status", "verified by"
    ));
    for opcode in &evidence.opcodes {
        let decoder = match opcode.decoder.status {
            Status::Verified => "nvdisasm",
            Status::ImplementedOnly if opcode.decoder.mismatched > 0 => "DIFFERS",
            Status::ImplementedOnly => "table",
            Status::Missing => "-",
        };
        let path = |evidence: PathEvidence| match evidence {
            PathEvidence::Gpu => "gpu",
            PathEvidence::Program => "program",
            PathEvidence::Rendered => "rendered",
            PathEvidence::MatchesInterpreter => "interp",
            PathEvidence::Implemented => "yes",
            PathEvidence::Missing => "-",
        };
        let status = match opcode.status() {
            Status::Verified => "verified",
            Status::ImplementedOnly => "implemented-only",
            Status::Missing => "missing",
        };
        text.push_str(&format!(
            "{:<10} {:<12} {:<9} {:<11} {:<11} {:<16} {}\n",
            opcode.decoder.family,
            opcode.decoder.opcode,
            decoder,
            path(opcode.interpreter),
            path(opcode.translator),
            status,
            verified_by(opcode)
        ));
    }
    text.push_str(&evidence.summary());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_are_the_instruction_under_pt_then_an_unconditional_exit() {
        for (isa, encodings) in [(Isa::Sm5x, sm5x::ENCODINGS), (Isa::Sm86, sm86::ENCODINGS)] {
            for encoding in encodings {
                let code = probe_program(isa, encoding);
                let (listing, first) = match isa {
                    Isa::Sm5x => {
                        let program = sm5x::decode_program(&code).unwrap();
                        (sm5x::listing(&code).unwrap(), program[0].inst.encoding().name)
                    }
                    Isa::Sm86 => {
                        let program = sm86::decode_program(&code).unwrap();
                        (sm86::listing(&code).unwrap(), program[0].inst.encoding().name)
                    }
                };
                assert_eq!(first, encoding.name);
                let lines: Vec<&str> = listing.lines().collect();
                assert!(!lines[0].contains('@'), "{}: {}", encoding.name, lines[0]);
                let exit = lines[1].trim_end().trim_end_matches(';').trim_end();
                assert!(exit.ends_with("  EXIT"), "{}: {}", encoding.name, lines[1]);
            }
        }
    }

    #[test]
    fn nvdisasm_lines_lose_only_their_encoding_comments() {
        let listing = "\t.headerflags    @\"EF_CUDA_SM53\"\n\
            \x20                                                      /* 0x001cfc00e22007f6 */\n\
            \x20       /*0008*/                   MOV R1, c[0x0][0x20] ;                   /* 0x4c98078000870001 */\n\
            \x20       /*0070*/                   SSY 0x140         }\n";
        let lines = nvdisasm_lines(listing);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[&8], "        /*0008*/                   MOV R1, c[0x0][0x20] ;");
        assert_eq!(lines[&0x70], "        /*0070*/                   SSY 0x140         }");
    }
}
