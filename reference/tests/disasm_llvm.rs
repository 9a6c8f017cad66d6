//! Oracle test: `disasm::disassemble` against LLVM's disassembler (`llvm-mc --disassemble`).
//!
//! For every encoding of the decode table, `WORDS_PER_ENCODING` random words (fixed
//! seed), plus every combination of its non-register fields where there are few enough (see `enumerated_fields`),
//! go through ONE run of llvm-mc. Each of our lines must equal LLVM's after these normalisations, and no others:
//! - whitespace: LLVM indents and separates the mnemonic with tabs; runs of tabs and spaces compare as one space;
//! - PC-relative operands (b, bl, b.cond, cbz/cbnz, tbz/tbnz, adr, adrp, and the literal forms of ldr, ldrsw and
//!   prfm): LLVM prints `#offset` from the instruction (for adrp, the page offset in bytes); we print the absolute
//!   target, so LLVM's offset becomes the address it gives at pc = 0, `0x…` of the wrapped u64;
//! - a word LLVM rejects (`invalid instruction encoding` on stderr) must be one we print as `.inst 0x… //
//!   unallocated`, and a word we call unallocated must be one LLVM rejects. A word LLVM calls `potentially
//!   undefined` (CONSTRAINED UNPREDICTABLE register combinations such as `ldxp x1, x1, [x2]`) it still prints,
//!   and so do we.
//!
//! Floating-point and Advanced SIMD words the disassembler does not spell out yet print as `.inst 0x… //
//! <family>`. Those are judged by the interpreter's decode instead of by text: executed once, such a word must stop
//! as not implemented, under an Arm ARM page that names LLVM's mnemonic (or the instruction LLVM's alias stands
//! for, see `ALIASES`), when LLVM accepts it, and as unallocated when LLVM rejects it. So the decode of the whole
//! table is checked against LLVM, spelled out or not.
//!
//! Where LLVM and we still differ on purpose, an entry of `TOLERANCES` says which words and why; the test prints how
//! often each entry was used and fails when one matches nothing any more.
//!
//! Attribution: llvm-mc reads one word per line and reports each rejected word with its line number on stderr,
//! printing one line on stdout for each word it accepts, in order; the test checks that the counts add up.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use tandem_reference::decode::{ENCODINGS, Encoding, Field, decode};
use tandem_reference::disasm::disassemble;
use tandem_reference::{CpuState, Engine, Exit, GuestClock, GuestMemory, Interpreter, Perm, UndefinedReason};

const WORDS_PER_ENCODING: usize = 400;
const SEED: u64 = 0xd15a_5e3b;
const LLVM_MC: &str = "llvm-mc";
/// The Cortex-A78C's features as LLVM 14 names them: Armv8.2-A with LSE, RCpc, CRC32, RAS, FP16 arithmetic, dot
/// product, FlagM, RDM, pointer authentication, SSBS, and the AES (with PMULL) and SHA1/SHA256 instructions. With
/// +pauth LLVM names the hint-space PAC instructions (`paciasp`, `xpaclri`, ...); BTI (+bti) is not the A78C's, so
/// `hint #34` stays a number.
const LLVM_ARGS: &[&str] = &[
    "--disassemble",
    "-triple=aarch64",
    "-mattr=+v8.2a,+lse,+rcpc,+crc,+ras,+fullfp16,+dotprod,+flagm,+rdm,+pauth,+ssbs,+aes,+sha2",
];
/// Register fields of the table, biased toward 31 (sp/zr) and toward each other so that aliases get exercised.
const REGISTER_FIELDS: &[&str] = &["rd", "rn", "rm", "ra", "rt", "rt2", "rs"];
/// Immediate fields besides the `imm*` ones; the other fields are selectors (see `enumerated_fields`).
const IMMEDIATE_FIELDS: &[&str] = &["nzcv", "mask", "b40", "abc", "defgh", "scale"];
/// LLVM's preferred aliases among the instructions the disassembler does not spell out yet: the mnemonic LLVM
/// prints, and the Arm ARM page (the interpreter's not-implemented name) it stands for.
const ALIASES: &[(&str, &str)] =
    &[("sxtl", "sshll"), ("sxtl2", "sshll2"), ("uxtl", "ushll"), ("uxtl2", "ushll2"), ("mvn", "not")];
/// Where the interpreter runs the placeholder words.
const CODE_ADDRESS: u64 = 0x10000;
const MAX_ENUMERATED_BITS: u32 = 16;
/// Mismatches shown per encoding when the test fails.
const EXAMPLES_PER_ENCODING: usize = 12;

/// A documented disagreement: `accepts(word, ours, llvm)` says whether a word LLVM accepts, with both its lines
/// normalised, is this case.
struct Tolerance {
    name: &'static str,
    reason: &'static str,
    accepts: fn(word: u32, ours: &Line, llvm: &Line) -> bool,
}

static TOLERANCES: &[Tolerance] = &[
    Tolerance {
        name: "unnamed system register",
        reason: "LLVM names every system register of the architecture; our `sysreg` table names only the ones \
                 Tandem implements and prints the others as `S<op0>_<op1>_C<n>_C<m>_<op2>`. The register-name \
                 operand is not compared when ours is the generic form; the rest of the line is.",
        accepts: |_, ours, llvm| {
            matches!(ours.mnemonic.as_str(), "mrs" | "msr")
                && ours.mnemonic == llvm.mnemonic
                && ours.operands.len() == llvm.operands.len()
                && ours.operands.iter().any(|o| is_generic_sysreg(o))
                && ours
                    .operands
                    .iter()
                    .zip(&llvm.operands)
                    .all(|(o, l)| o == l || (is_generic_sysreg(o) && !is_generic_sysreg(l)))
        },
    },
    Tolerance {
        name: "op0 = 0 as MSR",
        reason: "LLVM decodes MSR (register) from all 16 bits op0:op1:CRn:CRm:op2, so the unallocated encodings of \
                 the hint, barrier and PSTATE spaces (op0 = 0, Rt = 31) print as `msr S0_<op1>_C<n>_C<m>_<op2>, \
                 xzr`. The Arm ARM gives MSR (register) only op0 = 1x; these words are unallocated, as we print.",
        accepts: |word, ours, llvm| {
            let (op1, crn, crm, op2) = (word >> 16 & 7, word >> 12 & 15, word >> 8 & 15, word >> 5 & 7);
            // Bits 31:19: the system instruction class with L = 0 and op0 = 0.
            word & 0xfff8_0000 == 0xd500_0000
                && ours.mnemonic == ".inst"
                && llvm.text() == format!("msr S0_{op1}_C{crn}_C{crm}_{op2}, xzr")
        },
    },
    Tolerance {
        name: "MSR SSBS with CRm<3:1> set",
        reason: "MSR (immediate) sets `PSTATE.SSBS = CRm<0>` whatever CRm<3:1> holds, so we print `msr SSBS, #<CRm>`; \
                 LLVM names SSBS only for CRm = 000x and prints the others as the generic `msr S0_3_C4_C<CRm>_1, xzr`.",
        accepts: |word, ours, llvm| {
            let crm = word >> 8 & 15;
            crm > 1 && ours.text() == format!("msr SSBS, #{crm}") && llvm.text() == format!("msr S0_3_C4_C{crm}_1, xzr")
        },
    },
    Tolerance {
        name: "AT and TLBI as SYS",
        reason: "Address translation and TLB maintenance are EL1-and-up operations Tandem does not model, so we print \
                 them as the SYS they alias (`sys #0, c8, c3, #0` for `tlbi vmalle1is`). The register must agree \
                 where LLVM prints one (LLVM 14 leaves out Rt of the operations that take none).",
        accepts: |_, ours, llvm| {
            let our_register = if ours.operands.len() == 5 { ours.operands[4].as_str() } else { "xzr" };
            ours.mnemonic == "sys"
                && matches!(llvm.mnemonic.as_str(), "at" | "tlbi")
                && llvm.operands.get(1).is_none_or(|register| register == our_register)
        },
    },
];

/// One line of disassembly split into mnemonic and operands (split at ", ", brackets and all).
#[derive(Debug, PartialEq, Eq)]
struct Line {
    mnemonic: String,
    operands: Vec<String>,
}

impl Line {
    fn parse(text: &str) -> Line {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let (mnemonic, rest) = text.split_once(' ').unwrap_or((&text, ""));
        let operands = if rest.is_empty() { Vec::new() } else { rest.split(", ").map(str::to_string).collect() };
        Line { mnemonic: mnemonic.to_string(), operands }
    }

    fn text(&self) -> String {
        if self.operands.is_empty() {
            self.mnemonic.clone()
        } else {
            format!("{} {}", self.mnemonic, self.operands.join(", "))
        }
    }
}

fn is_generic_sysreg(operand: &str) -> bool {
    let Some(rest) = operand.strip_prefix('S') else { return false };
    let parts: Vec<&str> = rest.split('_').collect();
    parts.len() == 5
        && parts[2].starts_with('C')
        && parts[3].starts_with('C')
        && parts.iter().all(|p| p.trim_start_matches('C').parse::<u32>().is_ok())
}

/// Rewrites LLVM's PC-relative `#offset` into the absolute target at pc = 0, as `disassemble(word, 0)` prints it.
fn absolute_targets(mut line: Line) -> Line {
    let pc_relative = match line.mnemonic.as_str() {
        "b" | "bl" | "cbz" | "cbnz" | "tbz" | "tbnz" | "adr" | "adrp" => true,
        m if m.starts_with("b.") => true,
        // The literal forms: no memory operand in brackets.
        "ldr" | "ldrsw" | "prfm" => !line.operands.iter().any(|o| o.starts_with('[')),
        _ => false,
    };
    if pc_relative && let Some(last) = line.operands.last_mut() {
        let offset: i64 = last
            .strip_prefix('#')
            .and_then(|o| o.parse().ok())
            .unwrap_or_else(|| panic!("PC-relative operand {last:?} of {:?}", line.mnemonic));
        *last = format!("{:#x}", offset as u64);
    }
    line
}

/// A random word of `encoding`; half the time register fields are 31 or copy another register field and
/// immediates are near zero or all ones, as aliases depend on exactly such values.
fn random_word(encoding: &Encoding, rng: &mut ChaCha8Rng) -> u32 {
    let mut word = encoding.word_from(rng.r#gen());
    if rng.gen_bool(0.5) {
        return word;
    }
    let mut registers = Vec::new();
    for field in encoding.fields {
        let current = field_value(word, field);
        let value = if REGISTER_FIELDS.contains(&field.name) {
            let value = match rng.gen_range(0..4) {
                0 => 31,
                1 if !registers.is_empty() => registers[rng.gen_range(0..registers.len())],
                _ => current,
            };
            registers.push(value);
            value
        } else if is_immediate(field) && rng.gen_bool(0.5) {
            let small = rng.gen_range(0..4u32);
            if rng.gen_bool(0.5) { small } else { field_mask(field).wrapping_sub(small) }
        } else {
            current
        };
        word = with_field(word, field, value);
    }
    word
}

/// The fields to enumerate for `encoding`: all but the register numbers where that makes at most
/// 2^`MAX_ENUMERATED_BITS` words (bitfield and logical immediates, whose aliases depend on immr and imms, ADD/SUB
/// immediate, MRS/MSR, SYS), else the selectors alone (neither registers nor immediates: `opc`, `sf`, `cond`, ...)
/// if they fit, else none. An encoding with nothing but an immediate (SVC, BRK, UDF, ...) gets random words only.
fn enumerated_fields(encoding: &Encoding) -> Vec<&Field> {
    let bits = |fields: &[&Field]| fields.iter().map(|f| u32::from(f.width)).sum::<u32>();
    let operation: Vec<&Field> = encoding.fields.iter().filter(|f| !REGISTER_FIELDS.contains(&f.name)).collect();
    let selectors: Vec<&Field> = operation.iter().copied().filter(|f| !is_immediate(f)).collect();
    if bits(&operation) <= MAX_ENUMERATED_BITS && !selectors.is_empty() {
        operation
    } else if bits(&selectors) <= MAX_ENUMERATED_BITS {
        selectors
    } else {
        Vec::new()
    }
}

fn is_immediate(field: &Field) -> bool {
    field.name.starts_with("imm") || IMMEDIATE_FIELDS.contains(&field.name)
}

fn field_mask(field: &Field) -> u32 {
    if field.width >= 32 { u32::MAX } else { (1u32 << field.width) - 1 }
}

fn field_value(word: u32, field: &Field) -> u32 {
    (word >> field.lsb) & field_mask(field)
}

fn with_field(word: u32, field: &Field, value: u32) -> u32 {
    (word & !(field_mask(field) << field.lsb)) | (value & field_mask(field)) << field.lsb
}

/// The words to compare: per encoding, `WORDS_PER_ENCODING` random words, and every combination of its
/// `enumerated_fields` (the other fields random), so that every system register, barrier, hint, condition, opcode
/// and bitmask is seen.
fn test_words() -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut words = Vec::new();
    for encoding in ENCODINGS.iter() {
        words.extend((0..WORDS_PER_ENCODING).map(|_| random_word(encoding, &mut rng)));
        let fields = enumerated_fields(encoding);
        let bits: u32 = fields.iter().map(|f| u32::from(f.width)).sum();
        for combination in 0..1u32 << bits {
            let mut word = random_word(encoding, &mut rng);
            let mut rest = combination;
            for field in &fields {
                word = with_field(word, field, rest);
                rest >>= field.width;
            }
            words.push(word);
        }
    }
    words
}

/// What llvm-mc says about the words: its text for each, `None` where it rejects the word.
struct LlvmOutput {
    lines: Vec<Option<String>>,
    /// Words it prints but warns are `potentially undefined`.
    potentially_undefined: usize,
}

fn llvm_disassemble(words: &[u32]) -> LlvmOutput {
    let input: String = words
        .iter()
        .map(|w| {
            let b = w.to_le_bytes();
            format!("{:#04x} {:#04x} {:#04x} {:#04x}\n", b[0], b[1], b[2], b[3])
        })
        .collect();
    let mut child = Command::new(LLVM_MC)
        .args(LLVM_ARGS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run {LLVM_MC} ({e}): install the `llvm` package (`cargo xtask setup` does it)")
        });
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("wait for llvm-mc");
    writer.join().unwrap().expect("write to llvm-mc");
    assert!(output.status.success(), "llvm-mc failed: {}", String::from_utf8_lossy(&output.stderr));

    // Each diagnostic is `<stdin>:LINE:1: warning: ...`, then the input line and a caret under it.
    let mut rejected = vec![false; words.len()];
    let mut potentially_undefined = 0;
    for line in String::from_utf8(output.stderr).unwrap().lines() {
        let Some(rest) = line.strip_prefix("<stdin>:") else {
            assert!(line.starts_with("0x") || line.trim() == "^", "unexpected llvm-mc output on stderr: {line}");
            continue;
        };
        let (line_no, message) = rest.split_once(':').unwrap();
        let index = line_no.parse::<usize>().unwrap() - 1;
        if message.ends_with("warning: invalid instruction encoding") {
            rejected[index] = true;
        } else if message.ends_with("warning: potentially undefined instruction encoding") {
            potentially_undefined += 1;
        } else {
            panic!("unexpected llvm-mc diagnostic for {:#010x}: {line}", words[index]);
        }
    }
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut printed = stdout.lines().filter(|l| l.trim() != ".text");
    let lines: Vec<Option<String>> =
        rejected.iter().map(|&r| if r { None } else { printed.next().map(str::to_string) }).collect();
    assert!(lines.iter().zip(&rejected).all(|(t, &r)| r || t.is_some()), "llvm-mc printed too few lines");
    assert!(printed.next().is_none(), "llvm-mc printed more lines than it accepted words");
    LlvmOutput { lines, potentially_undefined }
}

/// Runs one word at a time through the interpreter, for the words the disassembler leaves as placeholders.
struct Decoder {
    memory: GuestMemory,
    interpreter: Interpreter,
}

impl Decoder {
    fn new() -> Decoder {
        let mut memory = GuestMemory::new().expect("reserve guest memory");
        memory.map(CODE_ADDRESS, 0x1000, Perm::RX).expect("map the code page");
        Decoder { memory, interpreter: Interpreter::default() }
    }

    /// How the interpreter's run of `word` (from a zeroed state) ends.
    fn exit(&mut self, word: u32) -> Exit {
        self.memory.write_privileged(CODE_ADDRESS, &word.to_le_bytes()).expect("write the word");
        let mut cpu = CpuState { pc: CODE_ADDRESS, ..CpuState::default() };
        self.interpreter.run(&mut cpu, &self.memory, 1, GuestClock::default()).exit
    }
}

/// Whether `text` is the disassembler's placeholder for `word`: `.inst 0x… // <family>`.
fn is_placeholder(word: u32, text: &str) -> bool {
    decode(word).is_some_and(|inst| text == format!(".inst {word:#010x} // {}", inst.encoding().family().name))
}

/// Whether the interpreter's decode of a placeholder word agrees with LLVM: not implemented, under a page that
/// names LLVM's mnemonic, where LLVM prints an instruction; unallocated where LLVM rejects the word.
fn decode_agrees(exit: Exit, llvm: Option<&Line>) -> bool {
    match (exit, llvm) {
        (Exit::Undefined { reason: UndefinedReason::Unallocated, .. }, None) => true,
        (Exit::Undefined { reason: UndefinedReason::NotImplemented(page), .. }, Some(llvm)) => {
            page_names(page, &llvm.mnemonic)
        }
        _ => false,
    }
}

/// Whether the Arm ARM page titled `page` ("ADD (vector)", "SADDL, SADDL2") is the instruction LLVM prints as
/// `mnemonic`, directly or through one of `ALIASES`.
fn page_names(page: &str, mnemonic: &str) -> bool {
    let mnemonic = ALIASES.iter().find(|(alias, _)| *alias == mnemonic).map_or(mnemonic, |(_, name)| name);
    let title = page.split(" (").next().unwrap_or(page);
    title.split(", ").any(|name| name.to_lowercase() == mnemonic)
}

#[test]
fn disassembly_matches_llvm() {
    if Command::new(LLVM_MC).arg("--version").output().is_err() {
        panic!("{LLVM_MC} not found: install the `llvm` package (`cargo xtask setup` does it)");
    }
    let words = test_words();
    let llvm = llvm_disassemble(&words);

    let mut decoder = Decoder::new();
    let mut mismatches: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut tolerated: BTreeMap<&str, usize> = BTreeMap::new();
    let mut placeholders = 0;
    for (&word, llvm_text) in words.iter().zip(&llvm.lines) {
        let mut ours = disassemble(word, 0);
        let agree = match llvm_text {
            _ if is_placeholder(word, &ours) => {
                placeholders += 1;
                let exit = decoder.exit(word);
                ours = format!("{ours} (interpreter: {exit:?})");
                decode_agrees(exit, llvm_text.as_deref().map(Line::parse).as_ref())
            }
            None => ours == format!(".inst {word:#010x} // unallocated"),
            Some(text) => {
                let (ours, llvm) = (Line::parse(&ours), absolute_targets(Line::parse(text)));
                let tolerance = || TOLERANCES.iter().find(|t| (t.accepts)(word, &ours, &llvm));
                ours == llvm || tolerance().inspect(|t| *tolerated.entry(t.name).or_default() += 1).is_some()
            }
        };
        if !agree {
            let llvm_text = llvm_text.as_deref().map_or("(rejected)".into(), |t| Line::parse(t).text());
            let encoding = decode(word).unwrap().encoding().name;
            mismatches.entry(encoding).or_default().push(format!("{word:#010x}: ours {ours:?}, llvm {llvm_text:?}"));
        }
    }

    let rejected = llvm.lines.iter().filter(|t| t.is_none()).count();
    eprintln!(
        "compared {} words with llvm-mc: {rejected} rejected by it, {} potentially undefined, {placeholders} not \
         disassembled yet and judged by the interpreter's decode",
        words.len(),
        llvm.potentially_undefined
    );
    for t in TOLERANCES {
        eprintln!("tolerated {:>5} x {}: {}", tolerated.get(t.name).unwrap_or(&0), t.name, t.reason);
    }
    let total: usize = mismatches.values().map(Vec::len).sum();
    let report: Vec<String> = mismatches
        .iter()
        .map(|(encoding, list)| {
            let examples: Vec<&str> = list.iter().take(EXAMPLES_PER_ENCODING).map(String::as_str).collect();
            format!("{encoding}: {} mismatches\n  {}", list.len(), examples.join("\n  "))
        })
        .collect();
    assert!(total == 0, "{total} words disassemble differently from llvm-mc:\n{}", report.join("\n"));
    let unused: Vec<&str> = TOLERANCES.iter().map(|t| t.name).filter(|name| !tolerated.contains_key(name)).collect();
    assert!(unused.is_empty(), "tolerances that no longer match any word (remove them): {unused:?}");
}
