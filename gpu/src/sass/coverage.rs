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
//! Later phases add their own evidence (the SASS interpreter, SPIR-V run on lavapipe, the device's GPU); this
//! module only knows the disassembler's.

use super::{DecodeError, Encoding, Family, Isa, sm5x, sm86};
use std::collections::BTreeMap;

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

    /// `sm50: opcodes T, verified V, implemented-only I, missing X` (`sm50` for the Maxwell line, as the
    /// shader translator's issue names it; `sm86` for Ampere).
    pub fn summary(&self) -> String {
        let name = match self.isa {
            Isa::Sm5x => "sm50",
            Isa::Sm86 => "sm86",
        };
        format!(
            "{name}: opcodes {}, verified {}, implemented-only {}, missing {}",
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

#[cfg(test)]
mod tests {
    use super::*;

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
