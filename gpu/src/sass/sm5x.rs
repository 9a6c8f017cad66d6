//! Maxwell SM50-SM53 machine code: 32-byte bundles of a 64-bit scheduling word and three 64-bit instructions.
//!
//! The scheduling word holds 21 bits of [`Control`] per instruction (bits 0..21 for the first, 21..42, 42..63);
//! bit 63 is zero. Instructions are decoded by the generated `decode` from `sm5x.decode`.

use super::{BitRange, Control, DecodeError, EncodeError, Encoding, Family, Field, Instruction, Isa, Words, read_u64};

mod disasm;

pub use disasm::{listing, text};

include!(concat!(env!("OUT_DIR"), "/sm5x_decode.rs"));

/// Bytes in a bundle: the scheduling word and three instructions.
pub const BUNDLE_BYTES: usize = 32;

/// The byte offset of an operand's `c[cb_bank][cb_offset]` inside its bank: the 14-bit word offset unsigned, so
/// 0 to 0xFFFC. nvdisasm prints the upper half as negative (`c[0x2][-0x4]`), but the hardware reads the bank's
/// last words there (nxgpucatch's `ldc.cpp` "LDC Negative offsets", run on a Tegra X1; yuzu, Ryujinx and nak
/// read the field unsigned too).
pub(crate) fn constant_offset(v: &super::text::View) -> u64 {
    v.get("cb_offset") * 4
}

/// RRO.SINCOS's factor, 1 / (2 pi), as a pair of FP32 numbers whose sum carries it to about 48 bits: the unit
/// takes radians to turns with more than FP32's precision (a Tegra X1's MUFU.COS of RRO.SINCOS(pi / 2), pi / 2 in
/// FP32 a little above it, is 0 exactly, nxgpucatch's mufu.cpp, where FP32's 1 / (2 pi) makes the turns fall a
/// unit short of a quarter). Both paths compute `fma(x, HIGH, x * LOW)` rounded toward zero.
pub(crate) const TURNS_PER_RADIAN: [f32; 2] = {
    let high = (1.0 / std::f64::consts::TAU) as f32;
    [high, (1.0 / std::f64::consts::TAU - high as f64) as f32]
};

/// A 20-bit float immediate (bit 19 the sign, then the top bits of the rest) as the FP32 whose top bits it holds.
pub(crate) fn float_immediate(imm20: u64) -> u32 {
    ((imm20 >> 19) << 31 | (imm20 & 0x7ffff) << 12) as u32
}

/// A 20-bit float immediate as the FP64 whose top bits it holds.
pub(crate) fn double_immediate(imm20: u64) -> u64 {
    (imm20 >> 19) << 63 | (imm20 & 0x7ffff) << 44
}

/// FMUL's scale field as a power of two: 1-3 .D2, .D4, .D8; 4-6 .M8, .M4, .M2 (nvdisasm 11.8's names; nouveau's
/// `emitPDIV`); 7 is invalid.
pub(crate) fn fmul_scale(field: u64) -> Option<i32> {
    match field {
        0..=3 => Some(-(field as i32)),
        4..=6 => Some(7 - field as i32),
        _ => None,
    }
}

/// IADD3.CC where the hardware's flags are unknown: with .RS/.LS or a negation (nxgpucatch's `iadd3.cpp` "IADD3 CC"
/// shows, on a Tegra X1, Z and S of the result, O the carry out of a + b and C the carry out of adding c, only
/// for plain sums).
pub(crate) fn iadd3_cc_unknown(v: &super::text::View) -> bool {
    v.flag("cc") && (v.get("shift") != 0 || v.flag("neg_a") || v.flag("neg_b") || v.flag("neg_c"))
}

/// Whether `v` reads a 64-bit constant at an odd word (4 mod 8 bytes): nxgpucatch's `dadd.cpp`, `dmul.cpp` and
/// `dfma.cpp` show a Tegra X1 take c[o] as the high word there, with a low word of 0 or c[o + 4] (their vectors
/// cannot tell which). ptxas never emits one; both paths refuse it.
pub(crate) fn odd_wide_constant(v: &super::text::View) -> bool {
    let wide = match v.encoding.opcode {
        "DADD" | "DMUL" | "DFMA" | "DMNMX" | "DSET" | "DSETP" => true,
        "F2F" | "F2I" | "I2F" | "I2I" => v.get("src") == 3,
        _ => false,
    };
    wide && v.has("cb_offset") && v.get("cb_offset") % 2 == 1
}

/// Whether VMNMX's result is taken as its low word, signed, before the secondary min or max: into a signed
/// destination from two unsigned parts (nxgpucatch's `vmnmx.cpp` on a Tegra X1: the maximum 0x8a24c993 of a U32
/// pair, then .MIN with c = 0x9123064a into .SD, stays 0x8a24c993). With a signed part the exact result is
/// compared, as the H200's runs of ptxas's own Maxwell code for vmax.s32.u32.s32.max agree (`gpu/research/video.md`).
pub(crate) fn vmnmx_wraps(v: &super::text::View) -> bool {
    v.encoding.opcode == "VMNMX" && v.flag("sd") && !v.flag("signed_a") && !v.flag("signed_b")
}

/// Whether a Tegra X1 leaves the global atomic `op` of type `ty` (ATOM, RED) undone, memory unchanged: INC and
/// DEC of S32 and of U64, and ADD, INC, DEC, AND, OR and XOR of S64 (nxgpucatch's `atom.cpp` and `red.cpp`).
/// ptxas never emits them; both paths refuse them rather than carry them out.
pub(crate) fn atomic_left_undone(op: u64, ty: u64) -> bool {
    const ADD: u64 = 0;
    const INC: u64 = 3;
    const DEC: u64 = 4;
    const AND: u64 = 5;
    const XOR: u64 = 7;
    match ty {
        1 | 2 => matches!(op, INC | DEC),
        5 => matches!(op, ADD | INC | DEC | AND..=XOR),
        _ => false,
    }
}

/// Decodes a whole program (a code section or a raw shader without its header).
pub fn decode_program(code: &[u8]) -> Result<Vec<Instruction<Inst>>, DecodeError> {
    if !code.len().is_multiple_of(BUNDLE_BYTES) {
        return Err(DecodeError::Truncated { isa: Isa::Sm5x, len: code.len(), unit: BUNDLE_BYTES });
    }
    let mut program = Vec::with_capacity(code.len() / 8);
    for base in (0..code.len()).step_by(BUNDLE_BYTES) {
        let scheduling = read_u64(code, base);
        if scheduling >> 63 != 0 {
            return Err(DecodeError::BadSchedulingWord { isa: Isa::Sm5x, offset: base, word: scheduling });
        }
        for slot in 0..3 {
            let offset = base + 8 + slot * 8;
            let word = read_u64(code, offset);
            let inst = decode(word).ok_or(DecodeError::UnknownInstruction {
                isa: Isa::Sm5x,
                offset,
                words: Words::One(word),
            })?;
            let bits = (scheduling >> (slot as u32 * Control::BITS)) as u32 & ((1 << Control::BITS) - 1);
            program.push(Instruction { offset, inst, control: Control::from_bits(bits) });
        }
    }
    Ok(program)
}

/// Encodes instructions back into bundles (the assembler): the inverse of [`decode_program`].
pub fn encode_program(program: &[Instruction<Inst>]) -> Result<Vec<u8>, EncodeError> {
    if !program.len().is_multiple_of(3) {
        return Err(EncodeError::IncompleteBundle { count: program.len() });
    }
    let mut code = Vec::with_capacity(program.len() / 3 * BUNDLE_BYTES);
    for bundle in program.chunks(3) {
        let scheduling = bundle
            .iter()
            .enumerate()
            .fold(0u64, |word, (slot, i)| word | u64::from(i.control.to_bits()) << (slot as u32 * Control::BITS));
        code.extend_from_slice(&scheduling.to_le_bytes());
        for instruction in bundle {
            code.extend_from_slice(&instruction.inst.encode()?.to_le_bytes());
        }
    }
    Ok(code)
}

impl Inst {
    /// This instruction's line of the table.
    pub fn encoding(&self) -> &'static Encoding {
        &ENCODINGS[self.encoding_index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_do_not_overlap() {
        let clashes = super::super::overlapping_encodings(ENCODINGS);
        assert!(clashes.is_empty(), "encodings that can match the same word:\n{}", clashes.join("\n"));
    }

    #[test]
    fn every_encoding_decodes_to_itself_and_encodes_back() {
        for (index, encoding) in ENCODINGS.iter().enumerate() {
            let field_bits = encoding.fields.iter().fold(0u128, |bits, field| {
                field.parts.iter().fold(bits, |bits, part| bits | ((1u128 << part.width) - 1) << part.lsb)
            });
            for pattern in [0u64, u64::MAX, 0x5555_5555_5555_5555, 0xaaaa_aaaa_aaaa_aaaa, 0x1234_5678_9abc_def0] {
                let word = (encoding.value | u128::from(pattern) & field_bits) as u64;
                let inst = decode(word).unwrap_or_else(|| panic!("{} word {word:#018x} did not decode", encoding.name));
                assert_eq!(inst.encoding_index(), index, "{} word {word:#018x}", encoding.name);
                assert_eq!(inst.encode(), Ok(word), "{}", encoding.name);
                // The disassembler knows every line, and no field value makes it panic.
                let text = text(&Instruction { offset: 0x100, inst, control: Control::from_bits(0) });
                let mnemonic = text.split_whitespace().find(|token| !token.starts_with('@')).unwrap_or_default();
                assert!(mnemonic.starts_with(encoding.opcode), "{} word {word:#018x}: {text}", encoding.name);
            }
        }
    }

    #[test]
    fn unknown_words_name_the_isa_word_and_offset() {
        let mut code = [0u8; BUNDLE_BYTES];
        code[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        let error = decode_program(&code).unwrap_err();
        assert_eq!(error.to_string(), "sm5x: unknown instruction 0xffffffffffffffff at offset 0x8");
        assert!(matches!(decode_program(&code[..20]), Err(DecodeError::Truncated { len: 20, .. })));
    }
}
