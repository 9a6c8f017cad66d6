//! Disassembly of the cryptographic extension (AES, SHA1, SHA256).

use super::{Printer, inst};
use crate::decode::Inst;

/// `v<n>.16b`, the operand of the AES instructions.
fn bytes16(n: u32) -> String {
    format!("v{n}.16b")
}

/// `v<n>.4s`, the message schedule and word operands of the SHA instructions.
fn words4(n: u32) -> String {
    format!("v{n}.4s")
}

impl Printer {
    /// Text for an instruction of this file's classes that is spelled out: `None` for every other instruction (the
    /// next printer in `disassemble` tries it), `Some(None)` for a combination the architecture leaves unallocated.
    pub(super) fn print_crypto(&self, _word: u32, decoded: Inst) -> Option<Option<String>> {
        Some(match decoded {
            Inst::CryptoAes { size, opcode, rn, rd } => {
                let mnemonic = match opcode {
                    0b00100 => "aese",
                    0b00101 => "aesd",
                    0b00110 => "aesmc",
                    0b00111 => "aesimc",
                    _ => return Some(None),
                };
                (size == 0).then(|| inst(mnemonic, &[bytes16(rd), bytes16(rn)]))
            }
            Inst::CryptoThreeRegSha { size, rm, opcode, rn, rd } => {
                let (mnemonic, d, n) = match opcode {
                    0b000 => ("sha1c", format!("q{rd}"), format!("s{rn}")),
                    0b001 => ("sha1p", format!("q{rd}"), format!("s{rn}")),
                    0b010 => ("sha1m", format!("q{rd}"), format!("s{rn}")),
                    0b011 => ("sha1su0", words4(rd), words4(rn)),
                    0b100 => ("sha256h", format!("q{rd}"), format!("q{rn}")),
                    0b101 => ("sha256h2", format!("q{rd}"), format!("q{rn}")),
                    0b110 => ("sha256su1", words4(rd), words4(rn)),
                    _ => return Some(None),
                };
                (size == 0).then(|| inst(mnemonic, &[d, n, words4(rm)]))
            }
            Inst::CryptoTwoRegSha { size, opcode, rn, rd } => {
                let operands = match opcode {
                    0b00000 => ("sha1h", [format!("s{rd}"), format!("s{rn}")]),
                    0b00001 => ("sha1su1", [words4(rd), words4(rn)]),
                    0b00010 => ("sha256su0", [words4(rd), words4(rn)]),
                    _ => return Some(None),
                };
                (size == 0).then(|| inst(operands.0, &operands.1))
            }
            _ => return None,
        })
    }
}
