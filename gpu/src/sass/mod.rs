//! SASS, NVIDIA's shader machine code: the decode tables of both instruction sets and what is built on them
//! (decoders, the assembler, the disassemblers, the coverage report).
//!
//! - Maxwell SM50-SM53 (`sm5x`): 64-bit instructions, three to a 32-byte bundle behind a 64-bit scheduling word.
//! - Ampere SM86 (`sm86`): 128-bit instructions, opcode in the low bits, scheduling in bits 105..=125.
//!
//! Each instruction set has one table (`sm5x.decode`, `sm86.decode`) from which `build.rs` generates the typed
//! instructions (`Inst`), `decode` and `Inst::encode`. Nothing else tells instructions apart by their bits.

pub mod assemble;
pub mod corpus;
pub mod coverage;
pub mod cubin;
pub mod differential;
pub mod exec;
pub mod programs;
pub mod sm5x;
pub mod sm86;
pub mod surface;
pub mod swizzle_add;
pub mod texture;
pub mod video;

pub(crate) mod text;

use std::fmt;

/// A shader instruction set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Maxwell SM50, SM52 and SM53 (the Switch's Tegra X1), which share one encoding.
    Sm5x,
    /// Ampere SM86, the Switch 2's encoding.
    Sm86,
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Isa::Sm5x => "sm5x",
            Isa::Sm86 => "sm86",
        })
    }
}

impl Isa {
    /// The bytes decoded together: SM5x's 32-byte bundles (a scheduling word and three instructions), SM86's
    /// 16-byte instructions.
    pub fn fetch_unit(self) -> usize {
        match self {
            Isa::Sm5x => sm5x::BUNDLE_BYTES,
            Isa::Sm86 => sm86::INSTRUCTION_BYTES,
        }
    }
}

/// The length of a raw program whose size nothing records (a program in GPU memory): up to the end of the fetch
/// unit holding an unconditional `EXIT`, `BRA` or `JMP` that no branch, call or stack entry before it (SM5x: BRA,
/// JMP, SSY, PBK, PCNT, CAL, JCAL, PRET, PLONGJMP; SM86: BRA, BSSY, CALL) targets past; and where code follows it
/// up to a branch to itself, to that branch: ptxas and NVN's compiler end every program with one, and put the
/// functions called only through pointers (whose targets no instruction names) between the last `EXIT` and it.
/// `read(offset, buffer)` fills `buffer` (one fetch unit) from `offset`, false where nothing is readable; at most
/// `limit` bytes. `origin` is where the program starts in its code segment (`KernelImage::origin`), for absolute
/// targets.
pub fn program_length(
    isa: Isa,
    mut read: impl FnMut(usize, &mut [u8]) -> bool,
    origin: usize,
    limit: usize,
) -> Result<usize, DecodeError> {
    let unit = isa.fetch_unit();
    let mut buffer = vec![0u8; unit];
    let mut furthest_target = 0;
    for base in (0..limit).step_by(unit) {
        if !read(base, &mut buffer) {
            return Err(DecodeError::NoEnd { isa, offset: base });
        }
        let mut ends = false;
        for view in &unit_views(isa, &buffer, base)? {
            let opcode = view.encoding.opcode;
            if isa == Isa::Sm5x && matches!(opcode, "JMP" | "JCAL") {
                let target = view.get("address") as i64 - origin as i64;
                furthest_target = furthest_target.max(target.max(0) as usize);
            }
            if matches!(opcode, "BRA" | "SSY" | "PBK" | "PCNT" | "CAL" | "PRET" | "PLONGJMP" | "BSSY" | "CALL") {
                furthest_target = furthest_target.max(relative_target(isa, view).max(0) as usize);
            }
            if matches!(opcode, "EXIT" | "BRA" | "JMP") && unconditional(view) && view.offset >= furthest_target {
                ends = true;
            }
        }
        if ends {
            let end = base + unit;
            return Ok(self_branch_after(isa, &mut read, end, limit).unwrap_or(end));
        }
    }
    Err(DecodeError::NoEnd { isa, offset: limit })
}

/// The end of the fetch unit holding the first branch to itself from `from` on, where everything up to it is
/// readable and decodes; `None` otherwise.
fn self_branch_after(
    isa: Isa,
    read: &mut impl FnMut(usize, &mut [u8]) -> bool,
    from: usize,
    limit: usize,
) -> Option<usize> {
    let unit = isa.fetch_unit();
    let mut buffer = vec![0u8; unit];
    for base in (from..limit).step_by(unit) {
        if !read(base, &mut buffer) {
            return None;
        }
        let views = unit_views(isa, &buffer, base).ok()?;
        let to_itself = |view: &text::View| {
            // On SM5x a bundle's start stands for its first instruction.
            let own = [view.offset as i64, (view.offset - view.offset % unit) as i64];
            view.encoding.opcode == "BRA" && unconditional(view) && own.contains(&relative_target(isa, view))
        };
        if views.iter().any(to_itself) {
            return Some(base + unit);
        }
    }
    None
}

/// The instructions of the fetch unit `buffer`, read at `base`.
fn unit_views(isa: Isa, buffer: &[u8], base: usize) -> Result<Vec<text::View>, DecodeError> {
    Ok(match isa {
        Isa::Sm5x => sm5x::decode_program(buffer)?
            .iter()
            .map(|i| text::View {
                encoding: i.inst.encoding(),
                word: u128::from(i.inst.encode().expect("a decoded instruction encodes")),
                control: i.control,
                offset: base + i.offset,
            })
            .collect(),
        Isa::Sm86 => sm86::decode_program(buffer)?
            .iter()
            .map(|i| text::View {
                encoding: i.inst.encoding(),
                word: i.inst.encode().expect("a decoded instruction encodes"),
                control: i.control,
                offset: base + i.offset,
            })
            .collect(),
    })
}

/// Where a relative branch, call or stack entry goes: from the next instruction, in bytes on SM5x, in words on
/// SM86.
fn relative_target(isa: Isa, view: &text::View) -> i64 {
    match isa {
        Isa::Sm5x => view.offset as i64 + 8 + view.signed("offset"),
        Isa::Sm86 => view.offset as i64 + 16 + 4 * view.signed("offset"),
    }
}

/// Whether an instruction's guard and condition always hold.
fn unconditional(view: &text::View) -> bool {
    let always = |field: &str| !view.has(field) || view.get(field) == 7 && !view.flag(&format!("{field}_not"));
    always("pg") && always("ps") && (!view.has("cc_test") || view.get("cc_test") == 15)
}

/// An instruction family of a table (`@family`): the unit the coverage report groups opcodes by.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub title: &'static str,
}

/// Bits `lsb..lsb + width` of an instruction word.
#[derive(Debug)]
pub struct BitRange {
    pub lsb: u8,
    pub width: u8,
}

/// A named field of an encoding; its parts are concatenated, most significant first.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub parts: &'static [BitRange],
}

/// One line of a decode table.
#[derive(Debug)]
pub struct Encoding {
    /// `OPCODE` or `OPCODE.form` (`FADD.imm`).
    pub name: &'static str,
    /// The mnemonic, the part of `name` before the dot: the unit of the coverage report.
    pub opcode: &'static str,
    /// Index into the table's `FAMILIES`.
    pub family: usize,
    pub source_line: u32,
    /// The fixed bits: a word matches when `word & mask == value`. Bits that are neither fixed by the table nor
    /// part of a field are fixed at zero, so every bit a decoded word holds is understood.
    pub mask: u128,
    pub value: u128,
    /// Lines in the same ordered group may overlap; the first in table order wins.
    pub group: Option<usize>,
    pub fields: &'static [Field],
}

impl Encoding {
    pub fn matches(&self, word: u128) -> bool {
        word & self.mask == self.value
    }

    /// Whether some word matches both `self` and `other`: they agree on every bit both fix.
    pub fn overlaps(&self, other: &Encoding) -> bool {
        let both = self.mask & other.mask;
        self.value & both == other.value & both
    }

    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|field| field.name == name)
    }

    /// The part of the name after the opcode (`reg`, `imm`, `HI.cbuf`), empty for single-form opcodes.
    pub fn form(&self) -> &'static str {
        self.name.split_once('.').map_or("", |(_, form)| form)
    }
}

impl Field {
    pub fn width(&self) -> u32 {
        self.parts.iter().map(|part| u32::from(part.width)).sum()
    }

    /// The field's value in `word`.
    pub fn extract(&self, word: u128) -> u64 {
        self.parts.iter().fold(0, |value, part| {
            let bits = (word >> part.lsb) as u64 & ((1u64 << part.width) - 1);
            value << part.width | bits
        })
    }

    /// The bits of a word whose field holds `value` (the inverse of [`Field::extract`]; bits of `value` beyond
    /// the field's width are dropped).
    pub fn place(&self, value: u64) -> u128 {
        let mut rest = value;
        let mut word = 0u128;
        for part in self.parts.iter().rev() {
            word |= u128::from(rest & ((1u64 << part.width) - 1)) << part.lsb;
            rest = rest.checked_shr(u32::from(part.width)).unwrap_or(0);
        }
        word
    }
}

/// Pairs of lines of `encodings` that can match the same word outside an ordered group (each a message).
pub fn overlapping_encodings(encodings: &[Encoding]) -> Vec<String> {
    let mut clashes = Vec::new();
    for (i, a) in encodings.iter().enumerate() {
        for b in &encodings[i + 1..] {
            let same_group = a.group.is_some() && a.group == b.group;
            if !same_group && a.overlaps(b) {
                clashes.push(format!("{} (line {}) and {} (line {})", a.name, a.source_line, b.name, b.source_line));
            }
        }
    }
    clashes
}

/// Scheduling information of one instruction (the same 21 bits on both instruction sets: SM5x keeps three of them
/// in each bundle's scheduling word, SM86 keeps them in bits 105..=125 of the instruction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Control {
    /// Cycles to wait before issuing the next instruction.
    pub stall: u8,
    pub yield_hint: bool,
    /// Scoreboard set when the result is written (7: none).
    pub write_barrier: u8,
    /// Scoreboard set when the sources have been read (7: none).
    pub read_barrier: u8,
    /// Scoreboards waited on before issuing.
    pub wait_mask: u8,
    /// Operand reuse-cache flags, one per source slot (bit 0: first source).
    pub reuse: u8,
}

impl Control {
    pub const BITS: u32 = 21;

    pub fn from_bits(bits: u32) -> Control {
        Control {
            stall: (bits & 0xf) as u8,
            yield_hint: bits >> 4 & 1 != 0,
            write_barrier: (bits >> 5 & 7) as u8,
            read_barrier: (bits >> 8 & 7) as u8,
            wait_mask: (bits >> 11 & 0x3f) as u8,
            reuse: (bits >> 17 & 0xf) as u8,
        }
    }

    pub fn to_bits(self) -> u32 {
        u32::from(self.stall & 0xf)
            | u32::from(self.yield_hint) << 4
            | u32::from(self.write_barrier & 7) << 5
            | u32::from(self.read_barrier & 7) << 8
            | u32::from(self.wait_mask & 0x3f) << 11
            | u32::from(self.reuse & 0xf) << 17
    }

    /// Whether source slot `slot` (0-based) carries the reuse flag (`.reuse` in the disassembly).
    pub fn reuses(self, slot: u32) -> bool {
        self.reuse >> slot & 1 != 0
    }
}

/// A decoded instruction of a program: where it is, what it is, and its scheduling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction<I> {
    /// Byte offset in the code.
    pub offset: usize,
    pub inst: I,
    pub control: Control,
}

/// Code that does not decode. Every variant names the instruction set, the bytes and where they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("{isa}: unknown instruction {words} at offset {offset:#x}")]
    UnknownInstruction { isa: Isa, offset: usize, words: Words },
    #[error("{isa}: scheduling word {word:#018x} at offset {offset:#x} has bit 63 set")]
    BadSchedulingWord { isa: Isa, offset: usize, word: u64 },
    #[error("{isa}: code of {len} bytes is not a whole number of {unit}-byte units")]
    Truncated { isa: Isa, len: usize, unit: usize },
    #[error(
        "{isa}: the code reaches offset {offset:#x} with no end (an EXIT or branch that every path stops at) before \
         unreadable memory or the size limit"
    )]
    NoEnd { isa: Isa, offset: usize },
}

/// The 64-bit words of an instruction as `nvdisasm` lists them (low word first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    One(u64),
    Two(u64, u64),
}

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Words::One(word) => write!(f, "{word:#018x}"),
            Words::Two(low, high) => write!(f, "{low:#018x} {high:#018x}"),
        }
    }
}

/// An instruction that cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A field value that does not fit its field (an instruction built by hand, not by `decode`).
    #[error("field {field} = {value:#x} does not fit in {width} bits")]
    FieldTooWide { field: &'static str, value: u64, width: u32 },
    /// SM5x code is whole bundles of three instructions.
    #[error("{count} instructions do not fill whole bundles of three")]
    IncompleteBundle { count: usize },
}

fn read_u64(code: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(code[offset..offset + 8].try_into().expect("caller checked the length"))
}

#[cfg(test)]
mod tests {
    use super::{Isa, program_length};
    use crate::sass::programs::assemble_with_labels;

    /// `program_length` over `code`, nothing readable past it.
    fn length(isa: Isa, code: &[u8]) -> usize {
        let read = |offset: usize, buffer: &mut [u8]| {
            code.get(offset..offset + buffer.len()).map(|bytes| buffer.copy_from_slice(bytes)).is_some()
        };
        program_length(isa, read, 0, 1 << 16).unwrap()
    }

    /// Code after the last EXIT belongs to the program up to a branch to itself; with none before what is
    /// readable ends, the program ends at the EXIT.
    #[test]
    fn a_program_ends_at_its_branch_to_itself_or_else_its_exit() {
        let after_exit = "EXIT\nMOV.imm rd=2 imm32=7 lanes=15\nMOV.imm rd=3 imm32=8 lanes=15\n";
        let closed =
            assemble_with_labels(Isa::Sm86, &format!("{after_exit}loop:\nBRA offset={{loop}}\nEXIT\n")).unwrap();
        assert_eq!(length(Isa::Sm86, &closed), 4 * 16);
        let open = assemble_with_labels(Isa::Sm86, after_exit).unwrap();
        assert_eq!(length(Isa::Sm86, &open), 16);
    }
}
