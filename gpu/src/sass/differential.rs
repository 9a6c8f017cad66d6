//! The translator against the SASS interpreter, instruction by instruction (the first of the translator's three
//! checks): programs of one random instance of an opcode (every field random within what a register file of 16
//! registers and 7 predicates allows) run on 768 threads with random register and predicate inputs, once on the
//! interpreter and once translated on a Vulkan device; every register and predicate must come out the same, bit
//! for bit. A form either side does not implement is skipped and counted; approximations (MUFU, RRO) are left to
//! the corpus kernels, which compare them within the unit's error. SM5x so far.
//!
//! Each program: load R0-R15 and P0-P6 from the thread's 80-byte input record, set the condition code from R0 +
//! R1, run the instruction, store R0-R15 and P0-P6 to the thread's output record. Scratch registers R16-R23 are
//! recomputed after the instruction, so that whatever it writes (a 64- or 128-bit destination too) cannot
//! misplace the stores.

use super::corpus::{BUFFER_BYTES, CorpusError, Parameter, Placement, Run, compare, dispatch, interpret};
use super::cubin::KernelImage;
use super::{Control, Encoding, Instruction, Isa, sm5x};
use crate::vulkan::ComputeDevice;
use std::collections::BTreeMap;

const RECORD: usize = 80;
const BLOCK: u32 = 128;
const GRID: u32 = 6;

/// splitmix64: reproducible cases from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A register value: often one that instructions treat specially.
    fn value(&mut self) -> u32 {
        const SPECIAL: &[u32] = &[
            0,
            1,
            2,
            0xffff_ffff,
            0x8000_0000,
            0x7fff_ffff,
            0xffff,
            0x8000,
            0x7fff,
            0xff,
            0x80,
            31,
            32,
            33,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x4b00_0000,
            0x4f00_0000,
            0xcf00_0000,
            0x3c00_3c00,
            0x7c00_fc00,
            0x7e00_0001,
        ];
        match self.below(4) {
            0 => SPECIAL[self.below(SPECIAL.len() as u64) as usize],
            1 => self.below(64) as u32,
            _ => self.next() as u32,
        }
    }
}

fn encoding(name: &str) -> &'static Encoding {
    sm5x::ENCODINGS.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("no table line {name}"))
}

/// An instruction word of table line `name` with these fields (unnamed ones zero; the guard PT unless given).
fn word(name: &str, fields: &[(&str, u64)]) -> u64 {
    let encoding = encoding(name);
    let mut word = encoding.value;
    if !fields.iter().any(|(field, _)| *field == "pg") {
        word |= encoding.field("pg").expect("every line has a guard").place(7);
    }
    for (field, value) in fields {
        word |= encoding.field(field).unwrap_or_else(|| panic!("{name} has no field {field}")).place(*value);
    }
    word as u64
}

/// The thread's record address into R20/R21: `in` (parameter 0) or `out` (parameter 1).
fn record_address(parameter: u64) -> Vec<u64> {
    let word_offset = (0x140 + parameter * 8) / 4;
    vec![
        word("S2R", &[("rd", 16), ("sr", 33)]),
        word("S2R", &[("rd", 17), ("sr", 37)]),
        word("ISCADD.reg", &[("rd", 16), ("ra", 17), ("rb", 16), ("shift", 7)]),
        word("XMAD.imm", &[("rd", 18), ("ra", 16), ("imm16", RECORD as u64), ("rc", 255)]),
        word("IADD.cbuf", &[("rd", 20), ("ra", 18), ("cb_offset", word_offset), ("cc", 1)]),
        word("IADD.cbuf", &[("rd", 21), ("ra", 255), ("cb_offset", word_offset + 1), ("x", 1)]),
    ]
}

/// The program around `tested`.
fn program(tested: &[u64]) -> Vec<u8> {
    let mut words = record_address(0);
    for (register, offset) in [(0, 0), (4, 0x10), (8, 0x20), (12, 0x30)] {
        words.push(word("LDG", &[("rd", register), ("ra", 20), ("offset", offset), ("e", 1), ("size", 6)]));
    }
    words.push(word("LDG", &[("rd", 19), ("ra", 20), ("offset", 0x40), ("e", 1), ("size", 4)]));
    for predicate in 0..7 {
        words.push(word("LOP32I", &[("rd", 22), ("ra", 19), ("imm32", 1 << predicate), ("op", 0)]));
        // ISETP.NE.U32.AND Pn, PT, R22, RZ, PT
        words.push(word(
            "ISETP.reg",
            &[("pd", predicate), ("pq", 7), ("ra", 22), ("rb", 255), ("ps", 7), ("cmp", 5), ("bop", 0)],
        ));
    }
    // A condition code that depends on the inputs (the address arithmetic's would differ between the paths,
    // whose buffers lie at different addresses).
    words.push(word("IADD.reg", &[("rd", 255), ("ra", 0), ("rb", 1), ("cc", 1)]));
    words.extend_from_slice(tested);
    words.extend(record_address(1));
    for (register, offset) in [(0, 0), (4, 0x10), (8, 0x20), (12, 0x30)] {
        words.push(word("STG", &[("rs", register), ("ra", 20), ("offset", offset), ("e", 1), ("size", 6)]));
    }
    words.push(word("MOV32I", &[("rd", 22), ("imm32", 0), ("lanes", 0xf)]));
    for predicate in 0..7 {
        words.push(word("LOP32I", &[("rd", 22), ("ra", 22), ("imm32", 1 << predicate), ("op", 1), ("pg", predicate)]));
    }
    words.push(word("STG", &[("rs", 22), ("ra", 20), ("offset", 0x40), ("e", 1), ("size", 4)]));
    words.push(word("EXIT", &[("cc_test", 15)]));
    while !words.len().is_multiple_of(3) {
        words.push(word("NOP", &[("cc_test", 15)]));
    }
    let instructions: Vec<_> = words
        .iter()
        .enumerate()
        .map(|(i, &w)| Instruction {
            offset: (i / 3) * 32 + 8 + (i % 3) * 8,
            inst: sm5x::decode(w).unwrap_or_else(|| panic!("{w:#018x} does not decode")),
            control: Control::default(),
        })
        .collect();
    sm5x::encode_program(&instructions).unwrap()
}

/// A random instance of table line `encoding` that keeps to R0-R15 (or RZ), P0-P6 (or PT) and bank 0's launch
/// words.
fn random_instance(rng: &mut Rng, encoding: &Encoding) -> u64 {
    let mut word = encoding.value;
    for field in encoding.fields {
        let value = match field.name {
            "rd" | "ra" | "rb" | "rc" | "rs" => {
                if rng.below(8) == 0 {
                    255
                } else {
                    rng.below(16)
                }
            }
            "pg" => {
                if rng.below(2) == 0 {
                    7
                } else {
                    rng.below(7)
                }
            }
            "cb_bank" => 0,
            // The block and grid sizes (bank 0 from 0x8): the same for both paths.
            "cb_offset" => 2 + rng.below(6),
            _ => rng.next() & ((1u64 << field.width()) - 1),
        };
        word |= field.place(value);
    }
    word as u64
}

/// The opcodes under test: the arithmetic, comparison, logic and conversion families, without the
/// approximations and the instructions that read the machine (clocks, ids).
pub fn tested_opcodes() -> Vec<&'static str> {
    let families = ["fp32", "fp64", "fp16", "integer", "compare", "logic", "convert"];
    let excluded = ["MUFU", "RRO", "S2R", "CS2R", "B2R", "R2B", "P2R", "R2P", "NOP"];
    let mut opcodes: Vec<&str> = sm5x::ENCODINGS
        .iter()
        .filter(|e| families.contains(&sm5x::FAMILIES[e.family].name) && !excluded.contains(&e.opcode))
        .map(|e| e.opcode)
        .collect();
    opcodes.dedup();
    opcodes
}

/// How many instances of an opcode were compared, and how many were skipped (a form one side lacks).
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub compared: usize,
    pub skipped: usize,
}

/// An instance whose translation left different registers or predicates than the interpreter.
#[derive(Debug, Clone)]
pub struct Difference {
    pub opcode: &'static str,
    /// The instance as nvdisasm writes it, and its word.
    pub text: String,
    pub word: u64,
    pub differences: Vec<String>,
    pub spirv: Vec<u32>,
}

/// What a differential run found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub tallies: BTreeMap<&'static str, Tally>,
    pub differences: Vec<Difference>,
}

/// Runs `cases` random instances of every tested opcode (cycling through its table lines), reproducibly from
/// `seed`; `progress` hears each opcode as it starts.
pub fn run(
    device: &ComputeDevice,
    cases: u64,
    seed: u64,
    mut progress: impl FnMut(&str),
) -> Result<Outcome, CorpusError> {
    let mut rng = Rng(seed);
    let run = Run {
        file: "differential".into(),
        entry: "differential".into(),
        params: vec![Parameter::Buffer { index: 1, offset: 0 }, Parameter::Buffer { index: 0, offset: 0 }],
        block: [BLOCK, 1, 1],
        grid: [GRID, 1, 1],
        out_starts_as_input: false,
        stride: RECORD,
        approx: Default::default(),
        varies: Default::default(),
    };
    let mut outcome = Outcome::default();
    for opcode in tested_opcodes() {
        progress(opcode);
        let lines: Vec<&Encoding> = sm5x::ENCODINGS.iter().filter(|e| e.opcode == opcode).collect();
        for case in 0..cases {
            let line = lines[case as usize % lines.len()];
            let tested = random_instance(&mut rng, line);
            let mut input = vec![0u8; BUFFER_BYTES];
            for record in input.chunks_exact_mut(RECORD) {
                for register in record[..64].chunks_exact_mut(4) {
                    register.copy_from_slice(&rng.value().to_le_bytes());
                }
                record[64..68].copy_from_slice(&(rng.next() as u32 & 0x7f).to_le_bytes());
            }
            let kernel = KernelImage {
                name: format!("{} case {case}", line.name),
                isa: Isa::Sm5x,
                code: program(&[tested]),
                constants: Vec::new(),
                shared_bytes: 0,
            };
            let tally = outcome.tallies.entry(opcode).or_default();
            let Ok(expected) = interpret(&run, &kernel, &input) else {
                tally.skipped += 1;
                continue;
            };
            let translated = match dispatch(device, &run, &kernel, &input, Placement::Device) {
                Ok(translated) => translated,
                Err(CorpusError::Translate { .. }) => {
                    tally.skipped += 1;
                    continue;
                }
                Err(error) => return Err(error),
            };
            tally.compared += 1;
            let differences = compare(&run, &translated.buffers, &expected);
            if !differences.is_empty() {
                let inst = sm5x::decode(tested).expect("a table line decodes");
                let text = sm5x::text(&Instruction { offset: 0, inst, control: Control::default() });
                outcome.differences.push(Difference {
                    opcode,
                    text,
                    word: tested,
                    differences,
                    spirv: translated.spirv,
                });
            }
        }
    }
    Ok(outcome)
}
