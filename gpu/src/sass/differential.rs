//! The translator against the SASS interpreter, instruction by instruction (the first of the translator's three
//! checks): programs of one random instance of an opcode (every field random within what a register file of 16
//! registers and 7 predicates allows) run on 768 threads with random register and predicate inputs, once on the
//! interpreter and once translated on a Vulkan device; every register and predicate must come out the same, bit
//! for bit. A form either side does not implement is skipped and counted; approximations (MUFU, RRO) are left to
//! the corpus kernels, which compare them within the unit's error. Both instruction sets (SM5x: the condition
//! code too, set from R0 + R1 before the instruction).
//!
//! Each program: load R0-R15 and P0-P6 from the thread's 160-byte input record, fill the thread's 16-byte shared
//! slot (at R24) from R0-R3, set the condition code from R0 + R1 (SM5x) or UR0-UR15 to random values of the
//! program's (SM86), run the instruction, store R0-R15, P0-P6, UR0-UR15, UP0-UP6 and the shared slot to the
//! thread's output record. Scratch registers R16-R24 are out of the instruction's reach or recomputed after it, so that
//! whatever it writes (a 64- or 128-bit destination too) cannot misplace the stores.

use super::corpus::{BUFFER_BYTES, CorpusError, Parameter, Placement, Run, compare, dispatch, interpret};
use super::cubin::KernelImage;
use super::exec::mma::Product;
use super::exec::{ExecError, parameter_offset};
use super::text::View;
use super::{Control, Encoding, Family, Instruction, Isa, sm5x, sm86};
use crate::shader::TranslateError;
use crate::vulkan::ComputeDevice;
use std::collections::BTreeMap;

const RECORD: usize = 160;
/// Shared memory a thread owns (at its thread index times this, in R24).
const SHARED_SLOT: u64 = 16;
const BLOCK: u32 = 128;
/// Instances drawn at most per case, the ones before the last being forms a side does not implement.
const DRAWS: u64 = 4;
const GRID: u32 = 3;

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

impl Rng {
    /// A register of two FP16 halves for the matrix products: in tie-prone cases mostly zeros (so that a sum
    /// has few terms) and otherwise few values whose sums land on FP16 ties (2048 + 1 lies halfway between 2048
    /// and 2050) that a term of 2^-48 breaks, cancel exactly or overflow; else the register values of `value`.
    fn half_pair(&mut self, tie_prone: bool) -> u32 {
        const HALVES: &[u16] = &[
            0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x3800, 0x6800, 0xe800, 0x1400, 0x7bff, 0xfbff, 0x7c00,
            0x0400,
        ];
        if !tie_prone {
            return self.value();
        }
        let mut half = || {
            if self.below(8) < 5 { 0 } else { u32::from(HALVES[self.below(HALVES.len() as u64) as usize]) }
        };
        half() | half() << 16
    }

    /// An FP64 register pair's value: often a special one (zeros, denormals, the ends of the normal range,
    /// infinities, NaNs), or one of few significant bits or an exponent near 1's or the range's ends, so that
    /// sums cancel, products land on ties and results overflow or turn denormal.
    fn double(&mut self) -> u64 {
        const SPECIAL: &[u64] = &[
            0,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0x3ff0_0000_0000_0000,
            0x3fe0_0000_0000_0000,
            0x3ff8_0000_0000_0000,
            0x4330_0000_0000_0000,
        ];
        const EXPONENTS: &[u64] = &[1, 2, 52, 54, 1000, 1022, 1023, 1024, 1075, 2000, 2045, 2046];
        let sign = (self.next() & 1) << 63;
        let exponent = EXPONENTS[self.below(EXPONENTS.len() as u64) as usize];
        let fraction = self.next() & ((1 << 52) - 1);
        match self.below(5) {
            0 => sign | SPECIAL[self.below(SPECIAL.len() as u64) as usize],
            1 => sign | exponent << 52 | fraction,
            2 => sign | exponent << 52 | fraction & !((1u64 << self.below(53)) - 1),
            3 => sign | fraction >> self.below(52),
            _ => self.next(),
        }
    }
}

fn tables(isa: Isa) -> (&'static [Encoding], &'static [Family]) {
    match isa {
        Isa::Sm5x => (sm5x::ENCODINGS, sm5x::FAMILIES),
        Isa::Sm86 => (sm86::ENCODINGS, sm86::FAMILIES),
    }
}

/// An instruction word of table line `name` with these fields (unnamed ones zero; the guard PT unless given).
fn word(isa: Isa, name: &str, fields: &[(&str, u64)]) -> u128 {
    let encoding = tables(isa).0.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("no {isa} line {name}"));
    let mut word = encoding.value;
    if !fields.iter().any(|(field, _)| *field == "pg") {
        word |= encoding.field("pg").expect("every line has a guard").place(7);
    }
    for (field, value) in fields {
        word |= encoding.field(field).unwrap_or_else(|| panic!("{name} has no field {field}")).place(*value);
    }
    word
}

/// The thread's record address into R20/R21: `in` (parameter 0) or `out` (parameter 1).
fn record_address(isa: Isa, parameter: u64) -> Vec<u128> {
    let w = |name, fields: &[(&str, u64)]| word(isa, name, fields);
    let tid = [w("S2R", &[("rd", 16), ("sr", 33)]), w("S2R", &[("rd", 17), ("sr", 37)])];
    match isa {
        Isa::Sm5x => {
            let word_offset = (parameter_offset(isa) as u64 + parameter * 8) / 4;
            let mut words = tid.to_vec();
            words.extend([
                w("ISCADD.reg", &[("rd", 16), ("ra", 17), ("rb", 16), ("shift", 7)]),
                w("XMAD.imm", &[("rd", 18), ("ra", 16), ("imm16", RECORD as u64), ("rc", 255)]),
                w("IADD.cbuf", &[("rd", 20), ("ra", 18), ("cb_offset", word_offset), ("cc", 1)]),
                w("IADD.cbuf", &[("rd", 21), ("ra", 255), ("cb_offset", word_offset + 1), ("x", 1)]),
            ]);
            words
        }
        Isa::Sm86 => {
            let word_offset = (parameter_offset(isa) as u64 + parameter * 8) / 4;
            // No carry in, no carry out: ps = !PT, pd = PT.
            let plain = [("pd", 7), ("ps", 7), ("ps_not", 1)];
            let mut words = tid.to_vec();
            words.extend([
                w(
                    "IMAD.imm",
                    &[&[("rd", 16), ("ra", 17), ("imm32", u64::from(BLOCK)), ("rc", 16)], &plain[..]].concat(),
                ),
                w("MOV.imm", &[("rd", 18), ("imm32", RECORD as u64), ("lanes", 0xf)]),
                // IMAD.WIDE.U32 R20, R16, R18, c[0x0][parameter]
                w(
                    "IMAD.WIDE.cbuf_c",
                    &[&[("rd", 20), ("ra", 16), ("rc", 18), ("cb_offset", word_offset)], &plain[..]].concat(),
                ),
            ]);
            words
        }
    }
}

/// `LDG`/`STG` of `size` (4: 32 bits, 6: 128) between registers from `register` and [R20.64 + offset].
fn global_access(isa: Isa, store: bool, register: u64, offset: u64, size: u64) -> u128 {
    let data = match (isa, store) {
        (Isa::Sm5x, true) => "rs",
        (Isa::Sm86, true) => "rb",
        (_, false) => "rd",
    };
    let common = [(data, register), ("ra", 20), ("offset", offset), ("e", 1), ("size", size)];
    match (isa, store) {
        (Isa::Sm5x, true) => word(isa, "STG", &common),
        (Isa::Sm5x, false) => word(isa, "LDG", &common),
        // As ptxas writes them: no uniform register, the default cache policy.
        (Isa::Sm86, true) => word(isa, "STG", &[&common[..], &[("ur", 4), ("no_ur", 1), ("cache", 1)]].concat()),
        (Isa::Sm86, false) => word(
            isa,
            "LDG.imm",
            &[&common[..], &[("ur", 4), ("no_ur", 1), ("a64", 1), ("cache", 1), ("pd", 7)]].concat(),
        ),
    }
}

/// `LDS`/`STS` of `size` between registers from `register` and [R24].
fn shared_access(isa: Isa, store: bool, register: u64, size: u64) -> u128 {
    let data = match (isa, store) {
        (Isa::Sm5x, true) => "rs",
        (Isa::Sm86, true) => "rb",
        (_, false) => "rd",
    };
    word(isa, if store { "STS" } else { "LDS" }, &[(data, register), ("ra", 24), ("size", size)])
}

/// R22 = R19 & mask (`or`: R22 | mask), under guard `pg`.
fn logic_immediate(isa: Isa, source: u64, mask: u64, or: bool, pg: u64) -> u128 {
    match isa {
        Isa::Sm5x => {
            word(isa, "LOP32I", &[("rd", 22), ("ra", source), ("imm32", mask), ("op", u64::from(or)), ("pg", pg)])
        }
        Isa::Sm86 => {
            let lut = if or { 0xfc } else { 0xc0 };
            let fields = [
                ("rd", 22),
                ("ra", source),
                ("imm32", mask),
                ("rc", 255),
                ("lut", lut),
                ("pd", 7),
                ("ps", 7),
                ("ps_not", 1),
                ("pg", pg),
            ];
            word(isa, "LOP3.imm", &fields)
        }
    }
}

/// Pn = R22 != 0.
fn predicate_from_r22(isa: Isa, predicate: u64) -> u128 {
    match isa {
        // ISETP.NE.U32.AND Pn, PT, R22, RZ, PT
        Isa::Sm5x => word(
            isa,
            "ISETP.reg",
            &[("pd", predicate), ("pq", 7), ("ra", 22), ("rb", 255), ("ps", 7), ("cmp", 5), ("bop", 0)],
        ),
        Isa::Sm86 => word(
            isa,
            "ISETP.reg",
            &[("pd", predicate), ("pq", 7), ("ra", 22), ("rb", 255), ("ps", 7), ("px", 7), ("bop_ex", 40)],
        ),
    }
}

/// The program around `tested`; `uniforms` are UR0-UR15's values before it (SM86: the uniform registers are
/// the warp's, so each program gives its own, the same for every thread), UR15's low bits also UP0-UP6's.
fn program(isa: Isa, tested: &[u128], uniforms: &[u32; 16]) -> Vec<u8> {
    let mut words = record_address(isa, 0);
    for (register, offset) in [(0, 0), (4, 0x10), (8, 0x20), (12, 0x30)] {
        words.push(global_access(isa, false, register, offset, 6));
    }
    words.push(global_access(isa, false, 19, 0x40, 4));
    for predicate in 0..7 {
        words.push(logic_immediate(isa, 19, 1 << predicate, false, 7));
        words.push(predicate_from_r22(isa, predicate));
    }
    // The thread's shared slot: R24 = tid.x * 16, filled from R0-R3 (shared memory starts undefined).
    words.push(word(isa, "S2R", &[("rd", 24), ("sr", 33)]));
    words.push(match isa {
        Isa::Sm5x => word(isa, "XMAD.imm", &[("rd", 24), ("ra", 24), ("imm16", SHARED_SLOT), ("rc", 255)]),
        Isa::Sm86 => word(
            isa,
            "IMAD.imm",
            &[("rd", 24), ("ra", 24), ("imm32", SHARED_SLOT), ("rc", 255), ("pd", 7), ("ps", 7), ("ps_not", 1)],
        ),
    });
    words.push(shared_access(isa, true, 0, 6));
    match isa {
        // A condition code that depends on the inputs (the address arithmetic's would differ between the
        // paths, whose buffers lie at different addresses).
        Isa::Sm5x => words.push(word(isa, "IADD.reg", &[("rd", 255), ("ra", 0), ("rb", 1), ("cc", 1)])),
        Isa::Sm86 => {
            for (register, value) in uniforms.iter().enumerate() {
                words.push(word(isa, "UMOV.imm", &[("urd", register as u64), ("imm32", u64::from(*value))]));
            }
            // UP0-UP6 from UR15's low bits.
            words.push(word(isa, "UR2UP.imm", &[("ura", 15), ("imm32", 0x7f)]));
        }
    }
    words.extend_from_slice(tested);
    words.extend(record_address(isa, 1));
    for (register, offset) in [(0, 0), (4, 0x10), (8, 0x20), (12, 0x30)] {
        words.push(global_access(isa, true, register, offset, 6));
    }
    words.push(match isa {
        Isa::Sm5x => word(isa, "MOV32I", &[("rd", 22), ("imm32", 0), ("lanes", 0xf)]),
        Isa::Sm86 => word(isa, "MOV.imm", &[("rd", 22), ("imm32", 0), ("lanes", 0xf)]),
    });
    for predicate in 0..7 {
        words.push(logic_immediate(isa, 22, 1 << predicate, true, predicate));
    }
    words.push(global_access(isa, true, 22, 0x40, 4));
    // The shared slot after the instruction, through R0-R3 (already stored), at 0x90.
    words.push(shared_access(isa, false, 0, 6));
    words.push(global_access(isa, true, 0, 0x90, 6));
    if isa == Isa::Sm86 {
        // UR0-UR15 after the instruction, through R0-R15 (already stored), at 0x50.
        for register in 0..16 {
            words.push(word(isa, "MOV.ureg", &[("rd", register), ("urb", register), ("lanes", 0xf)]));
        }
        for (register, offset) in [(0, 0x50), (4, 0x60), (8, 0x70), (12, 0x80)] {
            words.push(global_access(isa, true, register, offset, 6));
        }
        // UP0-UP6 after the instruction, packed into UR0 and stored through R0 at 0x44.
        words.push(word(isa, "UP2UR.imm", &[("urd", 0), ("ura", 63), ("imm32", 0x7f)]));
        words.push(word(isa, "MOV.ureg", &[("rd", 0), ("urb", 0), ("lanes", 0xf)]));
        words.push(global_access(isa, true, 0, 0x44, 4));
    }
    match isa {
        Isa::Sm5x => {
            words.push(word(isa, "EXIT", &[("cc_test", 15)]));
            while !words.len().is_multiple_of(3) {
                words.push(word(isa, "NOP", &[("cc_test", 15)]));
            }
            let instructions: Vec<_> = words
                .iter()
                .enumerate()
                .map(|(i, &w)| Instruction {
                    offset: (i / 3) * 32 + 8 + (i % 3) * 8,
                    inst: sm5x::decode(w as u64).unwrap_or_else(|| panic!("{w:#018x} does not decode")),
                    control: Control::default(),
                })
                .collect();
            sm5x::encode_program(&instructions).expect("table lines encode")
        }
        Isa::Sm86 => {
            words.push(word(isa, "EXIT", &[("ps", 7)]));
            let instructions: Vec<_> = words
                .iter()
                .enumerate()
                .map(|(i, &w)| Instruction {
                    offset: i * 16,
                    inst: sm86::decode(w).unwrap_or_else(|| panic!("{w:#034x} does not decode")),
                    control: Control::default(),
                })
                .collect();
            sm86::encode_program(&instructions).expect("table lines encode")
        }
    }
}

/// A random instance of table line `encoding` that keeps to R0-R15 (or RZ), P0-P6 (or PT), uniform registers
/// UR0-UR15 (or URZ) and bank 0's launch words; a matrix product's is one of the products both sides run (few
/// of its field values are: drawing until one is keeps the skips down).
fn random_instance(rng: &mut Rng, isa: Isa, encoding: &'static Encoding) -> u128 {
    let matrix_product = matches!(encoding.opcode, "HMMA" | "IMMA" | "BMMA" | "DMMA");
    let mut word = random_fields(rng, isa, encoding);
    for _ in 0..1000 {
        let view = View { encoding, word, control: Control::default(), offset: 0 };
        if !matrix_product || Product::of(&view).is_ok() {
            break;
        }
        word = random_fields(rng, isa, encoding);
    }
    word
}

fn random_fields(rng: &mut Rng, isa: Isa, encoding: &Encoding) -> u128 {
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
            "urd" | "ura" | "urb" | "urc" => {
                if rng.below(8) == 0 {
                    63
                } else {
                    rng.below(16)
                }
            }
            // The matrix products are the whole warp's: neither side runs one that some lanes skip.
            "pg" if matches!(encoding.opcode, "HMMA" | "IMMA" | "BMMA" | "DMMA") => 7,
            "pg" => {
                if rng.below(2) == 0 {
                    7
                } else {
                    rng.below(7)
                }
            }
            "cb_bank" => 0,
            // S2UR: the special registers every lane shares (the block's id, the shared memory size, SRZ).
            "sr" if encoding.opcode == "S2UR" => [37, 38, 39, 50, 255][rng.below(5) as usize],
            // The block and grid sizes (bank 0 from 0x8 on SM5x, 0x0 on SM86): the same for both paths.
            "cb_offset" => match isa {
                Isa::Sm5x => 2 + rng.below(6),
                Isa::Sm86 => rng.below(6),
            },
            _ => u64::try_from(u128::from(rng.next()) & ((1u128 << field.width()) - 1)).expect("at most 64 bits"),
        };
        word |= field.place(value);
    }
    if matches!(encoding.opcode, "LDG" | "STG" | "LD" | "ST" | "RED" | "ATOM" | "ATOMG") {
        word = memory_instance(rng, isa, encoding, word, false);
    }
    if matches!(encoding.opcode, "LDS" | "STS" | "ATOMS") {
        word = memory_instance(rng, isa, encoding, word, true);
    }
    word
}

/// A load, store or atomic of the thread's own memory: global ones of its input record ([R20.64 + an offset]
/// within 0x44 bytes), shared ones of its 16-byte slot ([R24 + an offset]); offsets and data registers aligned to
/// the size; the other fields stay random (a form a side lacks is skipped).
fn memory_instance(rng: &mut Rng, isa: Isa, encoding: &Encoding, mut word: u128, shared: bool) -> u128 {
    let mut set = |name: &str, value: u64| {
        if let Some(field) = encoding.field(name) {
            word = word & !field.place(u64::MAX) | field.place(value);
        }
    };
    let size = if encoding.field("size").is_some() { rng.below(7) } else { 5 };
    let bytes = [1, 1, 2, 2, 4, 8, 16][size as usize];
    set("size", size);
    let span = if shared {
        set("ra", 24);
        set("scale", 0);
        SHARED_SLOT
    } else {
        set("ra", 20);
        set("e", 1);
        set("a64", 1);
        // Atomics: the uniform register left out (its value is the program's, not an address).
        set("no_ur", 1);
        0x44
    };
    // SM5x's ATOMS counts its offset in words.
    let unit = if isa == Isa::Sm5x && encoding.opcode == "ATOMS" { 4 } else { 1 };
    set("offset", rng.below(span / bytes) * bytes / unit);
    let registers = (bytes / 4).max(1);
    let register = rng.below(16 / registers) * registers;
    for data in ["rd", "rs", "rb"] {
        set(data, register);
    }
    word
}

/// The instance as nvdisasm writes it.
fn text(isa: Isa, word: u128) -> String {
    match isa {
        Isa::Sm5x => {
            let inst = sm5x::decode(word as u64).expect("a table line decodes");
            sm5x::text(&Instruction { offset: 0, inst, control: Control::default() })
        }
        Isa::Sm86 => {
            let inst = sm86::decode(word).expect("a table line decodes");
            sm86::text(&Instruction { offset: 0, inst, control: Control::default() })
        }
    }
}

/// The opcodes under test: the arithmetic, comparison, logic and conversion families, without the
/// approximations and the instructions that read the machine (clocks, ids); global and generic loads, stores and
/// atomics (of the thread's own record) and shared ones (of its own slot); QSPC; the fences and hints (which must
/// change nothing); and the warp exchanges whose results land in registers (SHFL, VOTE, VOTEU, MATCH, REDUX,
/// R2UR, the matrix products: every warp of the launch is whole, its lanes in step).
pub fn tested_opcodes(isa: Isa) -> Vec<&'static str> {
    let families = ["fp32", "fp64", "fp16", "integer", "compare", "logic", "convert", "uniform"];
    let excluded = ["MUFU", "RRO", "S2R", "CS2R", "B2R", "R2B", "NOP"];
    let (encodings, family_table) = tables(isa);
    let mut opcodes: Vec<&str> = encodings
        .iter()
        .filter(|e| {
            let family = family_table[e.family].name;
            (families.contains(&family) && !excluded.contains(&e.opcode))
                || matches!(
                    e.opcode,
                    "LDG" | "STG" | "LD" | "ST" | "RED" | "ATOM" | "ATOMG" | "QSPC" | "LDS" | "STS" | "ATOMS"
                        | "SHFL" | "VOTE" | "VOTEU" | "MATCH" | "REDUX" | "R2UR"
                        | "HMMA" | "IMMA" | "BMMA" | "DMMA"
                        // Fences and hints: nothing may change.
                        | "MEMBAR" | "ERRBAR" | "CCTL" | "CCTLL" | "CCTLT" | "PMTRIG" | "DEPBAR" | "NANOSLEEP" | "LDGDEPBAR"
                        | "YIELD" | "IDE"
                )
        })
        .map(|e| e.opcode)
        .collect();
    opcodes.dedup();
    opcodes
}

/// How many instances of an opcode were compared, and how many were skipped (a form one side lacks).
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub compared: usize,
    pub skipped: usize,
    /// Why instances were skipped: the side and what it does not implement, with counts.
    pub skips: BTreeMap<String, usize>,
}

impl Tally {
    fn skip(&mut self, why: String) {
        self.skipped += 1;
        *self.skips.entry(why).or_default() += 1;
    }
}

/// An instance whose translation left different registers or predicates than the interpreter.
#[derive(Debug, Clone)]
pub struct Difference {
    pub opcode: &'static str,
    /// The instance as nvdisasm writes it, and its word.
    pub text: String,
    pub word: u128,
    pub differences: Vec<String>,
    pub spirv: Vec<u32>,
}

/// What a differential run found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub tallies: BTreeMap<&'static str, Tally>,
    pub differences: Vec<Difference>,
}

/// The launch every instance runs in: out and in, `RECORD` bytes a thread.
fn launch() -> Run {
    Run {
        file: "differential".into(),
        entry: "differential".into(),
        params: vec![Parameter::Buffer { index: 1, offset: 0 }, Parameter::Buffer { index: 0, offset: 0 }],
        block: [BLOCK, 1, 1],
        grid: [GRID, 1, 1],
        out_starts_as_input: false,
        stride: RECORD,
        approx: Default::default(),
        approx16: Default::default(),
        varies: Default::default(),
        nan: Vec::new(),
        ..Run::default()
    }
}

/// The kernel that runs instance `tested` with UR0-UR15 `uniforms` (`program`).
fn instance_kernel(isa: Isa, name: String, tested: u128, uniforms: &[u32; 16]) -> KernelImage {
    KernelImage {
        name,
        isa,
        code: program(isa, &[tested], uniforms),
        constants: Vec::new(),
        shared_bytes: (u64::from(BLOCK) * SHARED_SLOT) as u32,
        origin: 0,
    }
}

/// Runs instance `tested` (zero uniform registers) on chosen registers instead of random ones: `registers`
/// gives each thread's R0-R15 (and sets no predicate). The out buffer the interpreter leaves (each thread's
/// `RECORD` bytes start with its R0-R15 after the instance), and the words where the translation's differs.
pub fn run_instance(
    isa: Isa,
    device: &ComputeDevice,
    tested: u128,
    registers: impl Fn(u32) -> [u32; 16],
) -> Result<(Vec<u8>, Vec<String>), CorpusError> {
    let run = launch();
    let mut input = vec![0u8; BUFFER_BYTES];
    for (thread, record) in input.chunks_exact_mut(RECORD).enumerate() {
        for (word, value) in record[..64].chunks_exact_mut(4).zip(registers(thread as u32)) {
            word.copy_from_slice(&value.to_le_bytes());
        }
    }
    let kernel = instance_kernel(isa, text(isa, tested), tested, &[0; 16]);
    let expected =
        interpret(&run, &kernel, &input).map_err(|source| CorpusError::Exec { entry: kernel.name.clone(), source })?;
    let translated = dispatch(device, &run, &kernel, &input, Placement::Device)?;
    let differences = compare(&run, isa, &translated.buffers, &expected);
    Ok((expected[..BUFFER_BYTES].to_vec(), differences))
}

/// Runs `cases` random instances of every tested opcode (cycling through its table lines), or only of
/// `only`, reproducibly from `seed` (each opcode's cases depend only on the seed and the opcode, so that a
/// difference found in a whole run comes back with `only`); `progress` hears each opcode as it starts.
pub fn run(
    isa: Isa,
    device: &ComputeDevice,
    cases: u64,
    seed: u64,
    only: Option<&str>,
    mut progress: impl FnMut(&str),
) -> Result<Outcome, CorpusError> {
    let run = launch();
    let mut outcome = Outcome::default();
    for opcode in tested_opcodes(isa).into_iter().filter(|opcode| only.is_none_or(|only| only == *opcode)) {
        progress(opcode);
        let mut rng =
            Rng(opcode.bytes().fold(seed, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)));
        let lines: Vec<&Encoding> = tables(isa).0.iter().filter(|e| e.opcode == opcode).collect();
        // FP64 instructions read register pairs: they get FP64-shaped values, and so do every other case of the
        // conversions (which read FP64 sources in some forms).
        let fp64 = lines.iter().any(|line| tables(isa).1[line.family].name == "fp64") || opcode == "DMMA";
        let conversion = matches!(opcode, "F2F" | "F2I" | "I2F" | "FRND");
        // A form one side does not implement is skipped, and another instance of the case's line drawn in its
        // place (at most DRAWS in all), so that opcodes with many such forms are still compared `cases` times.
        for case in 0..cases {
            for _ in 0..DRAWS {
                let line = lines[case as usize % lines.len()];
                let fp64 = fp64 || (conversion && case % 2 == 1);
                let tested = random_instance(&mut rng, isa, line);
                let mut input = vec![0u8; BUFFER_BYTES];
                for record in input.chunks_exact_mut(RECORD) {
                    if fp64 {
                        for pair in record[..64].chunks_exact_mut(8) {
                            pair.copy_from_slice(&rng.double().to_le_bytes());
                        }
                    } else if opcode == "HMMA" {
                        for register in record[..64].chunks_exact_mut(4) {
                            register.copy_from_slice(&rng.half_pair(case % 2 == 0).to_le_bytes());
                        }
                    } else {
                        for register in record[..64].chunks_exact_mut(4) {
                            register.copy_from_slice(&rng.value().to_le_bytes());
                        }
                    }
                    record[64..68].copy_from_slice(&(rng.next() as u32 & 0x7f).to_le_bytes());
                }
                let uniforms = std::array::from_fn(|_| rng.value());
                let kernel = instance_kernel(isa, format!("{} case {case}", line.name), tested, &uniforms);
                let tally = outcome.tallies.entry(opcode).or_default();
                let expected = match interpret(&run, &kernel, &input) {
                    Ok(expected) => expected,
                    Err(ExecError::Unimplemented { what, .. }) => {
                        tally.skip(format!("interpreter: {what}"));
                        continue;
                    }
                    Err(ExecError::UnknownOpcode { opcode, .. }) => {
                        tally.skip(format!("interpreter: {opcode}"));
                        continue;
                    }
                    Err(source) => return Err(CorpusError::Exec { entry: kernel.name, source }),
                };
                let translated = match dispatch(device, &run, &kernel, &input, Placement::Device) {
                    Ok(translated) => translated,
                    Err(CorpusError::Translate { source: TranslateError::Unimplemented { what, .. }, .. }) => {
                        tally.skip(format!("translator: {what}"));
                        continue;
                    }
                    Err(CorpusError::Translate { source: TranslateError::UnknownOpcode { opcode, .. }, .. }) => {
                        tally.skip(format!("translator: {opcode}"));
                        continue;
                    }
                    Err(error) => return Err(error),
                };
                tally.compared += 1;
                let differences = compare(&run, isa, &translated.buffers, &expected);
                if !differences.is_empty() {
                    let text = text(isa, tested);
                    outcome.differences.push(Difference {
                        opcode,
                        text,
                        word: tested,
                        differences,
                        spirv: translated.spirv,
                    });
                }
                break;
            }
        }
    }
    Ok(outcome)
}
