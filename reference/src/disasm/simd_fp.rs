//! Floating point and Advanced SIMD: the SIMD&FP loads and stores, and the data-processing classes.
//!
//! Spelled out so far (in LLVM's syntax and aliases): every SIMD&FP load and store, the copies (DUP, INS, SMOV,
//! UMOV and their MOV aliases), the permutes, EXT, TBL/TBX, the modified immediates (MOVI, MVNI, ORR, BIC,
//! FMOV (vector, immediate)), the bitwise three-same instructions (AND, BIC, ORR and its MOV alias, ORN, EOR, BSL,
//! BIT, BIF), FMOV (general, register and scalar immediate) and FCSEL. The arithmetic is `simd_arith.rs`'s (Advanced
//! SIMD), `fp_scalar.rs`'s and `crypto.rs`'s.

use super::{AddressMode, EXTENDS, Printer, address, cond, imm, inst, r, rsp, simm9};
use crate::decode::Inst;
use crate::interp::pseudocode::{adv_simd_expand_imm, sign_extend, vfp_expand_imm};

/// The arrangement specifier of a vector of `8 << size`-bit elements, 64-bit (q = 0) or 128-bit (q = 1).
pub(super) fn arrangement(size: u32, q: u32) -> &'static str {
    ["8b", "16b", "4h", "8h", "2s", "4s", "1d", "2d"][((size & 3) << 1 | (q & 1)) as usize]
}

/// The element letter of `8 << size`-bit elements.
pub(super) fn element_letter(size: u32) -> &'static str {
    ["b", "h", "s", "d"][(size & 3) as usize]
}

/// `v<n>.<arrangement>`.
pub(super) fn vector(n: u32, size: u32, q: u32) -> String {
    format!("v{n}.{}", arrangement(size, q))
}

/// `v<n>.<b|h|s|d>[index]`.
pub(super) fn element(n: u32, size: u32, index: u32) -> String {
    format!("v{n}.{}[{index}]", element_letter(size))
}

/// A scalar SIMD&FP register of `8 << scale` bits: `b`, `h`, `s`, `d` or `q`.
pub(super) fn scalar(n: u32, scale: u32) -> String {
    format!("{}{n}", ["b", "h", "s", "d", "q"][scale.min(4) as usize])
}

/// The scalar register of a floating-point instruction's `ftype` (`None` for ftype = 10).
fn fp_register(n: u32, ftype: u32) -> Option<String> {
    let scale = match ftype {
        0b00 => 2,
        0b01 => 3,
        0b11 => 1,
        _ => return None,
    };
    Some(scalar(n, scale))
}

/// A register list `{ v0.16b, v1.16b }` of `count` consecutive registers (wrapping from V31 to V0), each named
/// with `suffix` (an arrangement, or an element letter for the single-structure forms).
fn register_list(first: u32, count: u32, suffix: &str) -> String {
    let registers: Vec<String> = (0..count).map(|i| format!("v{}.{suffix}", (first + i) % 32)).collect();
    format!("{{ {} }}", registers.join(", "))
}

/// FMOV's immediate as LLVM prints it: the value with eight decimals.
fn fp_immediate(imm8: u32) -> String {
    format!("#{:.8}", f64::from_bits(vfp_expand_imm(imm8, 64)))
}

/// The post-index operand of the structure loads and stores: `#<bytes transferred>` when Rm is 31, else `x<m>`.
fn post_index(rm: u32, bytes: u32) -> String {
    if rm == 31 { imm(bytes) } else { r(rm, 1) }
}

impl Printer {
    /// Text for a floating-point or Advanced SIMD instruction: `None` when `decoded` is a general-purpose one
    /// (`integer.rs` prints it), `Some(None)` for a combination the architecture leaves unallocated.
    pub(super) fn print_simd_fp(&self, decoded: Inst) -> Option<Option<String>> {
        use Inst::*;
        Some(match decoded {
            SimdLdstMultiple { q, l, opcode, size, rn, rt } => multiple_structures(q, l, None, opcode, size, rn, rt),
            SimdLdstMultiplePost { q, l, rm, opcode, size, rn, rt } => {
                multiple_structures(q, l, Some(rm), opcode, size, rn, rt)
            }
            SimdLdstSingle { q, l, r, opcode, s, size, rn, rt } => {
                single_structure(q, l, r, None, opcode, s, size, rn, rt)
            }
            SimdLdstSinglePost { q, l, r, rm, opcode, s, size, rn, rt } => {
                single_structure(q, l, r, Some(rm), opcode, s, size, rn, rt)
            }
            LdrLiteralSimdFp { opc, imm19, rt } => {
                (opc != 0b11).then(|| inst("ldr", &[scalar(rt, 2 + opc), self.branch(imm19, 19)]))
            }
            LdstPairNoAllocSimdFp { opc, l, imm7, rt2, rn, rt } => {
                pair("np", opc, l, imm7, rt2, rn, rt, AddressMode::Offset)
            }
            LdstPairPostSimdFp { opc, l, imm7, rt2, rn, rt } => {
                pair("p", opc, l, imm7, rt2, rn, rt, AddressMode::PostIndex)
            }
            LdstPairOffsetSimdFp { opc, l, imm7, rt2, rn, rt } => {
                pair("p", opc, l, imm7, rt2, rn, rt, AddressMode::Offset)
            }
            LdstPairPreSimdFp { opc, l, imm7, rt2, rn, rt } => {
                pair("p", opc, l, imm7, rt2, rn, rt, AddressMode::PreIndex)
            }
            LdstUnscaledSimdFp { size, opc, imm9, rn, rt } => {
                single_register(size, opc, "u", rt, |_| address(rn, simm9(imm9), AddressMode::Offset))
            }
            LdstImmPostSimdFp { size, opc, imm9, rn, rt } => {
                single_register(size, opc, "", rt, |_| address(rn, simm9(imm9), AddressMode::PostIndex))
            }
            LdstImmPreSimdFp { size, opc, imm9, rn, rt } => {
                single_register(size, opc, "", rt, |_| address(rn, simm9(imm9), AddressMode::PreIndex))
            }
            LdstUnsignedSimdFp { size, opc, imm12, rn, rt } => {
                single_register(size, opc, "", rt, |scale| address(rn, i64::from(imm12) << scale, AddressMode::Offset))
            }
            LdstRegisterSimdFp { size, opc, rm, option, s, rn, rt } => {
                if option & 0b010 == 0 {
                    return Some(None);
                }
                single_register(size, opc, "", rt, |scale| {
                    let index = r(rm, option & 1);
                    let shift = if s == 1 { format!(" #{scale}") } else { String::new() };
                    let extend = match option {
                        0b011 if s == 1 => format!(", lsl{shift}"),
                        0b011 => String::new(),
                        _ => format!(", {}{shift}", EXTENDS[option as usize]),
                    };
                    format!("[{}, {index}{extend}]", rsp(rn, 1))
                })
            }

            SimdCopy { q, op, imm5, imm4, rn, rd } => copy(q, op, imm5, imm4, rn, rd),
            SimdScalarCopy { op, imm5, imm4, rn, rd } => {
                let size = copy_size(imm5).filter(|_| op == 0 && imm4 == 0);
                size.map(|size| inst("mov", &[scalar(rd, size), element(rn, size, imm5 >> (size + 1))]))
            }
            SimdPermute { q, size, rm, opcode, rn, rd } => {
                let mnemonic = ["", "uzp1", "trn1", "zip1", "", "uzp2", "trn2", "zip2"][opcode as usize & 7];
                let allocated = !mnemonic.is_empty() && (size << 1 | q) != 0b110;
                allocated.then(|| inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), vector(rm, size, q)]))
            }
            SimdExtract { q, op2, rm, imm4, rn, rd } => (op2 == 0 && !(q == 0 && imm4 & 0b1000 != 0))
                .then(|| inst("ext", &[vector(rd, 0, q), vector(rn, 0, q), vector(rm, 0, q), imm(imm4)])),
            SimdTableLookup { q, op2, rm, len, op, rn, rd } => (op2 == 0).then(|| {
                let table = register_list(rn, len + 1, "16b");
                inst(if op == 0 { "tbl" } else { "tbx" }, &[vector(rd, 0, q), table, vector(rm, 0, q)])
            }),
            SimdModifiedImm { q, op, abc, cmode, o2, defgh, rd } => {
                modified_immediate(q, op, cmode, o2, abc << 5 | defgh, rd)
            }
            SimdThreeSame { q, u, size, rm, opcode: 0b00011, rn, rd } => {
                let operands = [vector(rd, 0, q), vector(rn, 0, q), vector(rm, 0, q)];
                if u == 0 && size == 0b10 && rn == rm {
                    Some(inst("mov", &operands[..2]))
                } else {
                    let mnemonics = ["and", "bic", "orr", "orn", "eor", "bsl", "bit", "bif"];
                    Some(inst(mnemonics[(u << 2 | size) as usize & 7], &operands))
                }
            }

            FpIntegerConversion { sf, s, ftype, rmode, opcode, rn, rd } if s == 0 && opcode >> 1 == 0b11 => {
                fmov_general(sf, ftype, rmode, opcode & 1, rn, rd)
            }
            FpDataProcessing1 { m: 0, s: 0, ftype, opcode: 0, rn, rd } => {
                fp_register(rd, ftype).zip(fp_register(rn, ftype)).map(|(d, n)| inst("fmov", &[d, n]))
            }
            FpImmediate { m, s, ftype, imm8, imm5, rd } => fp_register(rd, ftype)
                .filter(|_| m == 0 && s == 0 && imm5 == 0)
                .map(|d| inst("fmov", &[d, fp_immediate(imm8)])),
            FpCondSelect { m, s, ftype, rm, cond: c, rn, rd } => {
                let registers = [fp_register(rd, ftype), fp_register(rn, ftype), fp_register(rm, ftype)];
                match registers {
                    [Some(d), Some(n), Some(m_register)] if m == 0 && s == 0 => {
                        Some(inst("fcsel", &[d, n, m_register, cond(c).into()]))
                    }
                    _ => None,
                }
            }

            // The general-purpose instructions: `integer.rs`.
            _ => return None,
        })
    }
}

/// LDR/STR/LDUR/STUR (SIMD&FP) of one register: `kind` is "" or "u" (LDUR/STUR); `operand` makes the memory
/// operand from the access size's log2 (`scale`).
fn single_register(size: u32, opc: u32, kind: &str, rt: u32, operand: impl Fn(u32) -> String) -> Option<String> {
    let scale = (opc >> 1) << 2 | size;
    if scale > 4 {
        return None;
    }
    let mnemonic = if opc & 1 == 1 { format!("ld{kind}r") } else { format!("st{kind}r") };
    Some(inst(&mnemonic, &[scalar(rt, scale), operand(scale)]))
}

#[allow(clippy::too_many_arguments)] // the fields of the encoding
/// LDP/STP/LDNP/STNP (SIMD&FP): `kind` is "p" or "np".
fn pair(kind: &str, opc: u32, l: u32, imm7: u32, rt2: u32, rn: u32, rt: u32, mode: AddressMode) -> Option<String> {
    if opc == 0b11 {
        return None;
    }
    let scale = 2 + opc;
    let offset = (sign_extend(u64::from(imm7), 7) as i64) << scale;
    let mnemonic = if l == 1 { format!("ld{kind}") } else { format!("st{kind}") };
    Some(inst(&mnemonic, &[scalar(rt, scale), scalar(rt2, scale), address(rn, offset, mode)]))
}

/// LD1-LD4/ST1-ST4 (multiple structures), with the post-index register `Rm` where there is one.
fn multiple_structures(q: u32, l: u32, rm: Option<u32>, opcode: u32, size: u32, rn: u32, rt: u32) -> Option<String> {
    let (registers, selem) = match opcode {
        0b0000 => (4, 4),
        0b0010 => (4, 1),
        0b0100 => (3, 3),
        0b0110 => (3, 1),
        0b0111 => (1, 1),
        0b1000 => (2, 2),
        0b1010 => (2, 1),
        _ => return None,
    };
    if size == 0b11 && q == 0 && selem != 1 {
        return None;
    }
    let mnemonic = format!("{}{selem}", if l == 1 { "ld" } else { "st" });
    let mut operands = vec![register_list(rt, registers, arrangement(size, q)), format!("[{}]", rsp(rn, 1))];
    if let Some(rm) = rm {
        operands.push(post_index(rm, registers * (8 << q)));
    }
    Some(inst(&mnemonic, &operands))
}

#[allow(clippy::too_many_arguments)] // the fields of the encoding
/// LD1-LD4/ST1-ST4 (single structure) and LD1R-LD4R, with the post-index register `Rm` where there is one.
fn single_structure(
    q: u32,
    l: u32,
    r: u32,
    rm: Option<u32>,
    opcode: u32,
    s: u32,
    size: u32,
    rn: u32,
    rt: u32,
) -> Option<String> {
    let selem = ((opcode & 1) << 1 | r) + 1;
    let prefix = if l == 1 { "ld" } else { "st" };
    let (mnemonic, list, esize_log2) = match opcode >> 1 {
        3 => {
            if l == 0 || s == 1 {
                return None;
            }
            (format!("ld{selem}r"), register_list(rt, selem, arrangement(size, q)), size)
        }
        0 => (format!("{prefix}{selem}"), format!("{}[{}]", register_list(rt, selem, "b"), q << 3 | s << 2 | size), 0),
        1 if size & 1 == 0 => {
            let index = q << 2 | s << 1 | size >> 1;
            (format!("{prefix}{selem}"), format!("{}[{index}]", register_list(rt, selem, "h")), 1)
        }
        2 if size == 0b00 => {
            (format!("{prefix}{selem}"), format!("{}[{}]", register_list(rt, selem, "s"), q << 1 | s), 2)
        }
        2 if size == 0b01 && s == 0 => {
            (format!("{prefix}{selem}"), format!("{}[{q}]", register_list(rt, selem, "d")), 3)
        }
        _ => return None,
    };
    let mut operands = vec![list, format!("[{}]", rsp(rn, 1))];
    if let Some(rm) = rm {
        operands.push(post_index(rm, selem << esize_log2));
    }
    Some(inst(&mnemonic, &operands))
}

/// `LowestSetBit(imm5)` of the copy instructions, `None` for imm5 = x0000.
fn copy_size(imm5: u32) -> Option<u32> {
    (imm5 & 0xf != 0).then(|| imm5.trailing_zeros())
}

/// The class "Advanced SIMD copy": DUP (element, general), INS (general, element) as MOV, SMOV, UMOV (MOV for 32-
/// and 64-bit elements).
fn copy(q: u32, op: u32, imm5: u32, imm4: u32, rn: u32, rd: u32) -> Option<String> {
    let size = copy_size(imm5)?;
    let index = imm5 >> (size + 1);
    let general = |n: u32| r(n, (size == 3) as u32);
    Some(match (op, imm4) {
        (0, 0b0000) if !(size == 3 && q == 0) => inst("dup", &[vector(rd, size, q), element(rn, size, index)]),
        (0, 0b0001) if !(size == 3 && q == 0) => inst("dup", &[vector(rd, size, q), general(rn)]),
        (0, 0b0011) if q == 1 => inst("mov", &[element(rd, size, index), general(rn)]),
        (0, 0b0101) if size < 2 || (size == 2 && q == 1) => inst("smov", &[r(rd, q), element(rn, size, index)]),
        (0, 0b0111) if (size < 3 && q == 0) || (size == 3 && q == 1) => {
            let mnemonic = if size >= 2 { "mov" } else { "umov" };
            inst(mnemonic, &[r(rd, q), element(rn, size, index)])
        }
        (1, _) if q == 1 => inst("mov", &[element(rd, size, index), element(rn, size, imm4 >> size)]),
        _ => return None,
    })
}

/// The class "Advanced SIMD modified immediate": MOVI, MVNI, ORR, BIC, FMOV (vector, immediate).
fn modified_immediate(q: u32, op: u32, cmode: u32, o2: u32, imm8: u32, rd: u32) -> Option<String> {
    if o2 == 1 {
        return (op == 0 && cmode == 0b1111).then(|| inst("fmov", &[vector(rd, 1, q), fp_immediate(imm8)]));
    }
    let shifted = |mnemonic: &str, size: u32, amount: u32| {
        let mut operands = vec![vector(rd, size, q), imm(imm8)];
        if amount != 0 {
            operands.push(format!("lsl #{amount}"));
        }
        inst(mnemonic, &operands)
    };
    let cmode_shift = 8 * (cmode >> 1 & 0b11);
    Some(match (cmode, op) {
        // 32-bit shifted immediate (0xx0 MOVI/MVNI, 0xx1 ORR/BIC).
        (0b0000..=0b0111, _) => {
            let mnemonic = ["movi", "mvni", "orr", "bic"][((cmode & 1) << 1 | op) as usize];
            shifted(mnemonic, 2, cmode_shift)
        }
        // 16-bit shifted immediate.
        (0b1000..=0b1011, _) => {
            let mnemonic = ["movi", "mvni", "orr", "bic"][((cmode & 1) << 1 | op) as usize];
            shifted(mnemonic, 1, 8 * (cmode >> 1 & 1))
        }
        // 32-bit shifting ones.
        (0b1100 | 0b1101, _) => {
            let amount = if cmode & 1 == 0 { 8 } else { 16 };
            inst(["movi", "mvni"][op as usize & 1], &[vector(rd, 2, q), imm(imm8), format!("msl #{amount}")])
        }
        (0b1110, 0) => inst("movi", &[vector(rd, 0, q), imm(imm8)]),
        (0b1110, _) => {
            let value = adv_simd_expand_imm(1, 0b1110, imm8);
            // LLVM prints the mask with C's "%#016llx", which leaves out the 0x of zero.
            let text = if value == 0 { format!("#{:016}", 0) } else { format!("#{value:#016x}") };
            let register = if q == 1 { vector(rd, 3, 1) } else { scalar(rd, 3) };
            inst("movi", &[register, text])
        }
        (_, 0) => inst("fmov", &[vector(rd, 2, q), fp_immediate(imm8)]),
        _ if q == 1 => inst("fmov", &[vector(rd, 3, 1), fp_immediate(imm8)]),
        _ => return None,
    })
}

/// FMOV (general): between a general-purpose register and a scalar (or `V<n>.D[1]`); `to_fp` is opcode<0>.
fn fmov_general(sf: u32, ftype: u32, rmode: u32, to_fp: u32, rn: u32, rd: u32) -> Option<String> {
    let (fp, general) = match (sf, ftype, rmode) {
        (0, 0b00, 0b00) | (_, 0b11, 0b00) | (1, 0b01, 0b00) => {
            let fp = if to_fp == 1 { rd } else { rn };
            (fp_register(fp, ftype)?, if to_fp == 1 { r(rn, sf) } else { r(rd, sf) })
        }
        (1, 0b10, 0b01) => {
            let fp = if to_fp == 1 { rd } else { rn };
            (format!("v{fp}.d[1]"), if to_fp == 1 { r(rn, 1) } else { r(rd, 1) })
        }
        _ => return None,
    };
    Some(if to_fp == 1 { inst("fmov", &[fp, general]) } else { inst("fmov", &[general, fp]) })
}
