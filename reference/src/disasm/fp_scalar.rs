//! Disassembly of scalar floating-point instructions (FP data-processing, compares, conditional compares, conversions).
//!
//! FMOV (general, register and immediate) and FCSEL are printed by `simd_fp.rs`; this file returns `None` for them.

use super::{Printer, cond, imm, inst, r};
use crate::decode::Inst;

/// The scalar register of a floating-point instruction's `ftype` (`None` for ftype = 10).
fn fp_register(n: u32, ftype: u32) -> Option<String> {
    let letter = match ftype {
        0b00 => "s",
        0b01 => "d",
        0b11 => "h",
        _ => return None,
    };
    Some(format!("{letter}{n}"))
}

impl Printer {
    /// Text for an instruction of this file's classes that is spelled out: `None` for every other instruction (the
    /// next printer in `disassemble` tries it), `Some(None)` for a combination the architecture leaves unallocated.
    pub(super) fn print_fp_scalar(&self, _word: u32, decoded: Inst) -> Option<Option<String>> {
        use Inst::*;
        Some(match decoded {
            FpFixedConversion { sf, s, ftype, rmode, opcode, scale, rn, rd } => {
                fixed_conversion(sf, s, ftype, rmode, opcode, scale, rn, rd)
            }
            // FMOV (general): simd_fp.rs.
            FpIntegerConversion { s: 0, opcode: 0b110 | 0b111, .. } => return None,
            FpIntegerConversion { sf, s, ftype, rmode, opcode, rn, rd } => {
                integer_conversion(sf, s, ftype, rmode, opcode, rn, rd)
            }
            // FMOV (register): simd_fp.rs.
            FpDataProcessing1 { m: 0, s: 0, opcode: 0, .. } => return None,
            FpDataProcessing1 { m, s, ftype, opcode, rn, rd } => data_processing_1_source(m, s, ftype, opcode, rn, rd),
            FpCompare { m, s, ftype, rm, op, rn, opcode2 } => {
                let allocated = m == 0 && s == 0 && op == 0 && opcode2 & 0b111 == 0;
                let mnemonic = if opcode2 & 0b10000 == 0 { "fcmp" } else { "fcmpe" };
                let operand2 = if opcode2 & 0b01000 != 0 { Some("#0.0".to_string()) } else { fp_register(rm, ftype) };
                fp_register(rn, ftype)
                    .zip(operand2)
                    .filter(|_| allocated)
                    .map(|(n, operand2)| inst(mnemonic, &[n, operand2]))
            }
            FpCondCompare { m, s, ftype, rm, cond: c, rn, op, nzcv } => {
                let mnemonic = if op == 0 { "fccmp" } else { "fccmpe" };
                fp_register(rn, ftype)
                    .zip(fp_register(rm, ftype))
                    .filter(|_| m == 0 && s == 0)
                    .map(|(n, m_register)| inst(mnemonic, &[n, m_register, imm(nzcv), cond(c).into()]))
            }
            FpDataProcessing2 { m, s, ftype, rm, opcode, rn, rd } => {
                let mnemonics = ["fmul", "fdiv", "fadd", "fsub", "fmax", "fmin", "fmaxnm", "fminnm", "fnmul"];
                let registers = [fp_register(rd, ftype), fp_register(rn, ftype), fp_register(rm, ftype)];
                match (mnemonics.get(opcode as usize), registers) {
                    (Some(mnemonic), [Some(d), Some(n), Some(m_register)]) if m == 0 && s == 0 => {
                        Some(inst(mnemonic, &[d, n, m_register]))
                    }
                    _ => None,
                }
            }
            FpDataProcessing3 { m, s, ftype, o1, rm, o0, ra, rn, rd } => {
                let mnemonic = ["fmadd", "fmsub", "fnmadd", "fnmsub"][(o1 << 1 | o0) as usize & 3];
                let registers =
                    [fp_register(rd, ftype), fp_register(rn, ftype), fp_register(rm, ftype), fp_register(ra, ftype)];
                match registers {
                    [Some(d), Some(n), Some(m_register), Some(a)] if m == 0 && s == 0 => {
                        Some(inst(mnemonic, &[d, n, m_register, a]))
                    }
                    _ => None,
                }
            }
            _ => return None,
        })
    }
}

/// The class "Conversion between floating-point and fixed-point": FCVTZS, FCVTZU, SCVTF, UCVTF with `#fbits`.
#[allow(clippy::too_many_arguments)] // the fields of the encoding
fn fixed_conversion(
    sf: u32,
    s: u32,
    ftype: u32,
    rmode: u32,
    opcode: u32,
    scale: u32,
    rn: u32,
    rd: u32,
) -> Option<String> {
    if s == 1 || (sf == 0 && scale >> 5 == 0) {
        return None;
    }
    let fbits = imm(64 - scale);
    match (rmode, opcode) {
        (0b11, 0b000 | 0b001) => {
            let mnemonic = if opcode == 0 { "fcvtzs" } else { "fcvtzu" };
            Some(inst(mnemonic, &[r(rd, sf), fp_register(rn, ftype)?, fbits]))
        }
        (0b00, 0b010 | 0b011) => {
            let mnemonic = if opcode == 0b010 { "scvtf" } else { "ucvtf" };
            Some(inst(mnemonic, &[fp_register(rd, ftype)?, r(rn, sf), fbits]))
        }
        _ => None,
    }
}

/// The class "Conversion between floating-point and integer" but FMOV (general): FCVT<r>S, FCVT<r>U, SCVTF, UCVTF.
fn integer_conversion(sf: u32, s: u32, ftype: u32, rmode: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    if s == 1 {
        return None;
    }
    let unsigned = opcode & 1;
    let signedness = if unsigned == 1 { "u" } else { "s" };
    match (opcode >> 1, rmode) {
        (0b00, _) | (0b10, 0b00) => {
            let rounding = if opcode >> 1 == 0b10 { "a" } else { ["n", "p", "m", "z"][rmode as usize & 3] };
            Some(inst(&format!("fcvt{rounding}{signedness}"), &[r(rd, sf), fp_register(rn, ftype)?]))
        }
        (0b01, 0b00) => {
            let mnemonic = if unsigned == 1 { "ucvtf" } else { "scvtf" };
            Some(inst(mnemonic, &[fp_register(rd, ftype)?, r(rn, sf)]))
        }
        _ => None,
    }
}

/// The class "Floating-point data-processing (1 source)" but FMOV (register): FABS, FNEG, FSQRT, FCVT, FRINT<r>.
fn data_processing_1_source(m: u32, s: u32, ftype: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    if m == 1 || s == 1 {
        return None;
    }
    let n = fp_register(rn, ftype)?;
    let mnemonic = match opcode {
        0b000001 => "fabs",
        0b000010 => "fneg",
        0b000011 => "fsqrt",
        0b000100 | 0b000101 | 0b000111 if opcode & 0b11 != ftype => {
            return Some(inst("fcvt", &[fp_register(rd, opcode & 0b11)?, n]));
        }
        0b001000 => "frintn",
        0b001001 => "frintp",
        0b001010 => "frintm",
        0b001011 => "frintz",
        0b001100 => "frinta",
        0b001110 => "frintx",
        0b001111 => "frinti",
        _ => return None,
    };
    Some(inst(mnemonic, &[fp_register(rd, ftype)?, n]))
}
