//! The interpreter and the disassembler decode the Advanced SIMD arithmetic classes alike.
//!
//! For every combination of the non-register fields of these classes' encodings (the registers random), a word the
//! disassembler prints as `.inst … // unallocated` must stop the interpreter as unallocated, and every other word
//! must execute, from a random state (random lanes, FPCR modes and FPSR flags), without stopping or panicking.
//! `disasm_llvm.rs` checks the disassembler's answers against LLVM with the Cortex-A78C's features; this test
//! carries that check over to the interpreter, whose unallocated words the differential suite cannot give Unicorn.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tandem_reference::decode::{ENCODINGS, Encoding, Field};
use tandem_reference::disasm::disassemble;
use tandem_reference::{CpuState, Engine, Exit, GuestClock, GuestMemory, Interpreter, Perm, UndefinedReason};

/// The families of the Advanced SIMD arithmetic classes.
const FAMILIES: &[&str] = &[
    "simd_scalar_three_same_fp16",
    "simd_scalar_two_reg_misc_fp16",
    "simd_scalar_three_same_extra",
    "simd_scalar_two_reg_misc",
    "simd_scalar_pairwise",
    "simd_scalar_three_different",
    "simd_scalar_three_same",
    "simd_scalar_shift_imm",
    "simd_scalar_indexed",
    "simd_three_same_fp16",
    "simd_two_reg_misc_fp16",
    "simd_three_reg_extension",
    "simd_two_reg_misc",
    "simd_across_lanes",
    "simd_three_different",
    "simd_three_same",
    "simd_shift_imm",
    "simd_indexed",
];
/// Register fields, left random (the 4-bit `rm` of the by-element classes is part of the index: enumerated).
const REGISTER_FIELDS: &[&str] = &["rd", "rn", "rm"];
const CODE: u64 = 0x10000;
const SEED: u64 = 0x51_3d_de_c0;

fn enumerated_fields(encoding: &Encoding) -> Vec<&Field> {
    encoding.fields.iter().filter(|f| !(REGISTER_FIELDS.contains(&f.name) && f.width == 5)).collect()
}

fn with_field(word: u32, field: &Field, value: u32) -> u32 {
    let mask = (1u32 << field.width) - 1;
    (word & !(mask << field.lsb)) | (value & mask) << field.lsb
}

fn random_state(rng: &mut ChaCha8Rng) -> CpuState {
    let mut cpu = CpuState::default();
    for v in cpu.v.iter_mut() {
        *v = rng.r#gen();
    }
    // AHP, DN, FZ, RMode, FZ16; the cumulative flags and QC.
    cpu.fpcr = rng.r#gen::<u32>() & 0x07c8_0000;
    cpu.fpsr = rng.r#gen::<u32>() & 0x0800_009f;
    cpu.pc = CODE;
    cpu
}

#[test]
fn interpreter_and_disassembler_agree_on_unallocated_words() {
    let mut memory = GuestMemory::new().expect("reserve guest memory");
    memory.map(CODE, 0x1000, Perm::RX).expect("map the code page");
    let mut interpreter = Interpreter::default();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut disagreements = Vec::new();
    let (mut words, mut executed) = (0, 0);
    for encoding in ENCODINGS.iter().filter(|e| FAMILIES.contains(&e.family().name)) {
        let fields = enumerated_fields(encoding);
        let bits: u32 = fields.iter().map(|f| u32::from(f.width)).sum();
        for combination in 0..1u32 << bits {
            let mut word = encoding.word_from(rng.r#gen());
            let mut rest = combination;
            for field in &fields {
                word = with_field(word, field, rest);
                rest >>= field.width;
            }
            memory.write_privileged(CODE, &word.to_le_bytes()).expect("write the word");
            let mut cpu = random_state(&mut rng);
            let exit = interpreter.run(&mut cpu, &memory, 1, GuestClock::default()).exit;
            let text = disassemble(word, CODE);
            let unallocated = text == format!(".inst {word:#010x} // unallocated");
            let agrees = match exit {
                Exit::Undefined { reason: UndefinedReason::Unallocated, .. } => unallocated,
                Exit::BudgetSpent => {
                    executed += 1;
                    !unallocated
                }
                _ => false,
            };
            if !agrees && disagreements.len() < 40 {
                disagreements.push(format!("{word:#010x} `{text}`: interpreter {exit:?}"));
            }
            words += 1;
        }
    }
    eprintln!("{words} words, {executed} executed");
    assert!(disagreements.is_empty(), "the interpreter and the disassembler disagree:\n{}", disagreements.join("\n"));
}
