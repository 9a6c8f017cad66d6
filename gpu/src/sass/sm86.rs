//! Ampere SM86 machine code: 128-bit instructions, the opcode in the low bits, scheduling in bits 105..=125.

use super::{BitRange, Control, DecodeError, EncodeError, Encoding, Family, Field, Instruction, Isa, Words, read_u64};

mod disasm;

pub use disasm::{listing, text};

include!(concat!(env!("OUT_DIR"), "/sm86_decode.rs"));

/// The uniform datapath's instructions: once per warp, on the uniform registers, under a uniform predicate's
/// guard (nvdisasm prints `@UP3`).
pub const UNIFORM_DATAPATH: &[&str] = &[
    "UIADD3", "UIMAD", "ULOP3", "UMOV", "USHF", "UFLO", "UPRMT", "S2UR", "UBREV", "UPOPC", "USEL", "UBMSK", "USGXT",
    "UP2UR", "UR2UP", "UISETP", "ULEA", "UPLOP3", "ULDC",
];

/// Whether `opcode` runs on the uniform datapath.
pub fn is_uniform(opcode: &str) -> bool {
    UNIFORM_DATAPATH.contains(&opcode)
}

/// The field holding operand `field` of `v`: the uniform datapath's twins of vector instructions (UIADD3,
/// UISETP, ULEA, UPLOP3) name their operands after the vector ones' with a `u` in front (`ura` for `ra`, `upd`
/// for `pd`, `ups_not` for `ps_not`).
pub(crate) fn operand_field<'f>(v: &super::text::View, field: &'f str) -> std::borrow::Cow<'f, str> {
    if is_uniform(v.encoding.opcode) { format!("u{field}").into() } else { field.into() }
}

/// Bytes in an instruction.
pub const INSTRUCTION_BYTES: usize = 16;

/// Where the scheduling bits sit in an instruction.
const CONTROL_SHIFT: u32 = 105;

/// Decodes a whole program (a code section or a raw shader without its header).
pub fn decode_program(code: &[u8]) -> Result<Vec<Instruction<Inst>>, DecodeError> {
    if !code.len().is_multiple_of(INSTRUCTION_BYTES) {
        return Err(DecodeError::Truncated { isa: Isa::Sm86, len: code.len(), unit: INSTRUCTION_BYTES });
    }
    (0..code.len())
        .step_by(INSTRUCTION_BYTES)
        .map(|offset| {
            let (low, high) = (read_u64(code, offset), read_u64(code, offset + 8));
            let word = u128::from(low) | u128::from(high) << 64;
            let inst = decode(word).ok_or(DecodeError::UnknownInstruction {
                isa: Isa::Sm86,
                offset,
                words: Words::Two(low, high),
            })?;
            let control = Control::from_bits((word >> CONTROL_SHIFT) as u32 & ((1 << Control::BITS) - 1));
            Ok(Instruction { offset, inst, control })
        })
        .collect()
}

/// Encodes instructions back into code (the assembler): the inverse of [`decode_program`].
pub fn encode_program(program: &[Instruction<Inst>]) -> Result<Vec<u8>, EncodeError> {
    let mut code = Vec::with_capacity(program.len() * INSTRUCTION_BYTES);
    for instruction in program {
        let word = instruction.inst.encode()? | u128::from(instruction.control.to_bits()) << CONTROL_SHIFT;
        code.extend_from_slice(&word.to_le_bytes());
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
            for pattern in
                [0u128, u128::MAX, 0x5555_5555_5555_5555_5555_5555_5555_5555, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210]
            {
                let word = encoding.value | pattern & field_bits;
                let inst = decode(word).unwrap_or_else(|| panic!("{} word {word:#034x} did not decode", encoding.name));
                assert_eq!(inst.encoding_index(), index, "{} word {word:#034x}", encoding.name);
                assert_eq!(inst.encode(), Ok(word), "{}", encoding.name);
                // The disassembler knows every line, and no field value makes it panic.
                let text = text(&Instruction { offset: 0x100, inst, control: Control::from_bits(0) });
                let mnemonic = text.split_whitespace().find(|token| !token.starts_with('@')).unwrap_or_default();
                assert!(mnemonic.starts_with(encoding.opcode), "{} word {word:#034x}: {text}", encoding.name);
            }
        }
    }

    #[test]
    fn unknown_words_name_the_isa_words_and_offset() {
        let code = [0xffu8; 32];
        let error = decode_program(&code).unwrap_err();
        assert_eq!(error.to_string(), "sm86: unknown instruction 0xffffffffffffffff 0xffffffffffffffff at offset 0x0");
    }
}

/// Whether a global load or store takes its address from a register pair: STG and ST always, the uniform forms
/// with .64 (`a64`), and LDG's register form with .E (ptxas's sm_86 code builds a 64-bit pointer for
/// `LDG.E R6, [R2]` in R2:R3, and uses the same pair for ATOMG.E).
pub(crate) fn wide_global_address(v: &crate::sass::text::View) -> bool {
    v.flag("a64")
        || matches!(v.encoding.opcode, "STG" | "ST" | "LDGSTS")
        || (v.encoding.opcode == "LDG" && v.encoding.form() == "reg" && v.flag("e"))
}
