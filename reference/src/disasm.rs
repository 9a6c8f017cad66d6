//! The A64 disassembler: text for every word of the decode table, in LLVM's syntax and with the Arm ARM's
//! preferred aliases (checked against `llvm-mc --disassemble` by `tests/disasm_llvm.rs`).
//!
//! One difference from llvm-mc on purpose: PC-relative targets print as absolute addresses (`b 0x7100001000`), as
//! objdump does, because that is what a person reading a dump needs.

use crate::decode::{Inst, decode};
use crate::interp::pseudocode::{decode_bit_masks, sign_extend};
use crate::sysreg::{SysReg, SysRegEncoding};

/// Disassembles one word at address `pc`. Unallocated words print as `.inst 0x... // unallocated`.
pub fn disassemble(word: u32, pc: u64) -> String {
    match decode(word) {
        Some(inst) => Printer { pc }.print(inst).unwrap_or_else(|| unallocated(word)),
        None => unallocated(word),
    }
}

fn unallocated(word: u32) -> String {
    format!(".inst {word:#010x} // unallocated")
}

/// General-purpose register name: `x`/`w` by width, register 31 as `xzr`/`wzr`.
fn r(n: u32, sf: u32) -> String {
    match (n, sf) {
        (31, 1) => "xzr".into(),
        (31, _) => "wzr".into(),
        (n, 1) => format!("x{n}"),
        (n, _) => format!("w{n}"),
    }
}

/// Register name where 31 means the stack pointer.
fn rsp(n: u32, sf: u32) -> String {
    match (n, sf) {
        (31, 1) => "sp".into(),
        (31, _) => "wsp".into(),
        _ => r(n, sf),
    }
}

const CONDITIONS: [&str; 16] =
    ["eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al", "nv"];
const SHIFTS: [&str; 4] = ["lsl", "lsr", "asr", "ror"];
const EXTENDS: [&str; 8] = ["uxtb", "uxth", "uxtw", "uxtx", "sxtb", "sxth", "sxtw", "sxtx"];

fn cond(c: u32) -> &'static str {
    CONDITIONS[(c & 15) as usize]
}

fn invert(c: u32) -> u32 {
    c ^ 1
}

/// `#imm` as LLVM prints signed decimal immediates.
fn simm(value: i64) -> String {
    format!("#{value}")
}

/// Joins a mnemonic and its operands with LLVM's tab.
fn inst(mnemonic: &str, operands: &[String]) -> String {
    if operands.is_empty() { mnemonic.to_string() } else { format!("{mnemonic}\t{}", operands.join(", ")) }
}

/// A memory operand `[base{, #offset}]`, `[base, #offset]!` or `[base], #offset`.
fn address(base: u32, offset: i64, mode: AddressMode) -> String {
    let base = rsp(base, 1);
    match mode {
        AddressMode::Offset if offset == 0 => format!("[{base}]"),
        AddressMode::Offset => format!("[{base}, #{offset}]"),
        AddressMode::PreIndex => format!("[{base}, #{offset}]!"),
        AddressMode::PostIndex => format!("[{base}], #{offset}"),
    }
}

#[derive(Clone, Copy)]
enum AddressMode {
    Offset,
    PreIndex,
    PostIndex,
}

struct Printer {
    pc: u64,
}

impl Printer {
    fn target(&self, offset: u64) -> String {
        format!("{:#x}", self.pc.wrapping_add(offset))
    }

    /// Text for a decoded instruction; `None` for combinations the architecture leaves unallocated.
    fn print(&self, decoded: Inst) -> Option<String> {
        use Inst::*;
        Some(match decoded {
            Udf { imm16 } => inst("udf", &[format!("#{imm16}")]),
            Adr { op, immlo, immhi, rd } => {
                let imm = sign_extend(u64::from(immhi << 2 | immlo), 21);
                if op == 1 {
                    inst("adrp", &[r(rd, 1), format!("{:#x}", (self.pc & !0xfff).wrapping_add(imm << 12))])
                } else {
                    inst("adr", &[r(rd, 1), self.target(imm)])
                }
            }
            AddSubImm { sf, op, s, sh, imm12, rn, rd } => {
                let imm = if sh == 1 { format!("#{imm12}, lsl #12") } else { format!("#{imm12}") };
                let mnemonic = ["add", "adds", "sub", "subs"][(op << 1 | s) as usize];
                match (op, s) {
                    (0, 0) if sh == 0 && imm12 == 0 && (rd == 31 || rn == 31) => {
                        inst("mov", &[rsp(rd, sf), rsp(rn, sf)])
                    }
                    (_, 1) if rd == 31 => inst(if op == 1 { "cmp" } else { "cmn" }, &[rsp(rn, sf), imm]),
                    (_, 1) => inst(mnemonic, &[r(rd, sf), rsp(rn, sf), imm]),
                    _ => inst(mnemonic, &[rsp(rd, sf), rsp(rn, sf), imm]),
                }
            }
            LogicalImm { sf, opc, n, immr, imms, rn, rd } => {
                if sf == 0 && n != 0 {
                    return None;
                }
                let size = if sf == 1 { 64 } else { 32 };
                let (imm, _) = decode_bit_masks(n, imms, immr, true, size)?;
                let hex = format!("#{imm:#x}");
                match opc {
                    0b01 if rn == 31 && !move_wide_preferred(sf, n, imms, immr) => {
                        let value = if sf == 1 { imm as i64 } else { imm as u32 as i64 };
                        inst("mov", &[rsp(rd, sf), format!("#{value}")])
                    }
                    0b11 if rd == 31 => inst("tst", &[r(rn, sf), hex]),
                    0b11 => inst("ands", &[r(rd, sf), r(rn, sf), hex]),
                    _ => inst(["and", "orr", "eor"][opc as usize], &[rsp(rd, sf), r(rn, sf), hex]),
                }
            }
            MoveWide { sf, opc, hw, imm16, rd } => {
                if opc == 0b01 || (sf == 0 && hw & 2 != 0) {
                    return None;
                }
                let shift = hw * 16;
                let shifted = |m: &str| {
                    let mut ops = vec![r(rd, sf), format!("#{imm16}")];
                    if shift != 0 {
                        ops.push(format!("lsl #{shift}"));
                    }
                    inst(m, &ops)
                };
                match opc {
                    0b00 => {
                        let value = !(u64::from(imm16) << shift);
                        let mov_alias = !(imm16 == 0 && hw != 0) && !(sf == 0 && imm16 == 0xffff);
                        if mov_alias {
                            let value = if sf == 1 { value as i64 } else { value as u32 as i32 as i64 };
                            inst("mov", &[r(rd, sf), simm(value)])
                        } else {
                            shifted("movn")
                        }
                    }
                    0b10 if !(imm16 == 0 && hw != 0) => {
                        inst("mov", &[r(rd, sf), format!("#{}", u64::from(imm16) << shift)])
                    }
                    0b10 => shifted("movz"),
                    _ => shifted("movk"),
                }
            }
            Bitfield { sf, opc, n, immr, imms, rn, rd } => self.bitfield(sf, opc, n, immr, imms, rn, rd)?,
            Extr { sf, op21, n, o0, rm, imms, rn, rd } => {
                if op21 != 0 || o0 != 0 || n != sf || (sf == 0 && imms & 0x20 != 0) {
                    return None;
                }
                if rn == rm {
                    inst("ror", &[r(rd, sf), r(rn, sf), format!("#{imms}")])
                } else {
                    inst("extr", &[r(rd, sf), r(rn, sf), r(rm, sf), format!("#{imms}")])
                }
            }
            BCond { o1, imm19, o0, cond: c } => {
                if o1 != 0 || o0 != 0 {
                    return None;
                }
                inst(&format!("b.{}", cond(c)), &[self.target(sign_extend(u64::from(imm19) << 2, 21))])
            }
            Svc { imm16 } => inst("svc", &[format!("#{imm16:#x}")]),
            Hvc { imm16 } => inst("hvc", &[format!("#{imm16:#x}")]),
            Smc { imm16 } => inst("smc", &[format!("#{imm16:#x}")]),
            Brk { imm16 } => inst("brk", &[format!("#{imm16:#x}")]),
            Hlt { imm16 } => inst("hlt", &[format!("#{imm16:#x}")]),
            Dcps { imm16, ll } => {
                if ll == 0 {
                    return None;
                }
                let mnemonic = format!("dcps{ll}");
                if imm16 == 0 { mnemonic } else { inst(&mnemonic, &[format!("#{imm16:#x}")]) }
            }
            Hint { crm, op2 } => match crm << 3 | op2 {
                0 => "nop".into(),
                1 => "yield".into(),
                2 => "wfe".into(),
                3 => "wfi".into(),
                4 => "sev".into(),
                5 => "sevl".into(),
                16 => "esb".into(),
                20 => "csdb".into(),
                imm => inst("hint", &[format!("#{imm}")]),
            },
            Barrier { crm, op2 } => match op2 {
                0b010 if crm == 15 => "clrex".into(),
                0b010 => inst("clrex", &[format!("#{crm}")]),
                0b100 if crm == 0 => "ssbb".into(),
                0b100 if crm == 4 => "pssbb".into(),
                0b100 => inst("dsb", &[barrier_option(crm)]),
                0b101 => inst("dmb", &[barrier_option(crm)]),
                0b110 if crm == 15 => "isb".into(),
                0b110 => inst("isb", &[format!("#{crm}")]),
                _ => return None,
            },
            MsrImm { op1: 0, crm: 0, op2: 0 } => "cfinv".into(),
            MsrImm { op1, crm, op2 } => {
                let field = match (op1, op2) {
                    (0b000, 0b011) => "UAO",
                    (0b000, 0b100) => "PAN",
                    (0b000, 0b101) => "SPSel",
                    (0b011, 0b001) => "SSBS",
                    (0b011, 0b110) => "DAIFSet",
                    (0b011, 0b111) => "DAIFClr",
                    _ => return None,
                };
                inst("msr", &[field.to_string(), format!("#{crm}")])
            }
            Sys { l, op1, crn, crm, op2, rt } => {
                let named = match (l, op1, crn, crm, op2) {
                    (0, 3, 7, 4, 1) => Some("dc\tzva"),
                    (0, 3, 7, 10, 1) => Some("dc\tcvac"),
                    (0, 3, 7, 11, 1) => Some("dc\tcvau"),
                    (0, 3, 7, 12, 1) => Some("dc\tcvap"),
                    (0, 3, 7, 14, 1) => Some("dc\tcivac"),
                    (0, 3, 7, 5, 1) => Some("ic\tivau"),
                    _ => None,
                };
                match named {
                    Some(name) => format!("{name}, {}", r(rt, 1)),
                    None if l == 1 => inst(
                        "sysl",
                        &[r(rt, 1), format!("#{op1}"), format!("c{crn}"), format!("c{crm}"), format!("#{op2}")],
                    ),
                    None => {
                        let mut ops = vec![format!("#{op1}"), format!("c{crn}"), format!("c{crm}"), format!("#{op2}")];
                        if rt != 31 {
                            ops.push(r(rt, 1));
                        }
                        inst("sys", &ops)
                    }
                }
            }
            MsrMrs { l, o0, op1, crn, crm, op2, rt } => {
                let encoding = SysRegEncoding::from_fields(o0, op1, crn, crm, op2);
                let name = match SysReg::lookup(encoding) {
                    Some(register) => register.name().to_uppercase(),
                    None => format!("S{}_{}_C{}_C{}_{}", encoding.op0, op1, crn, crm, op2),
                };
                if l == 1 { inst("mrs", &[r(rt, 1), name]) } else { inst("msr", &[name, r(rt, 1)]) }
            }
            BranchReg { opc, op2, op3, rn, op4 } => {
                if op2 != 31 || op3 != 0 || op4 != 0 {
                    return None;
                }
                match opc {
                    0b0000 => inst("br", &[r(rn, 1)]),
                    0b0001 => inst("blr", &[r(rn, 1)]),
                    0b0010 if rn == 30 => "ret".into(),
                    0b0010 => inst("ret", &[r(rn, 1)]),
                    0b0100 if rn == 31 => "eret".into(),
                    0b0101 if rn == 31 => "drps".into(),
                    _ => return None,
                }
            }
            BBl { op, imm26 } => {
                inst(if op == 1 { "bl" } else { "b" }, &[self.target(sign_extend(u64::from(imm26) << 2, 28))])
            }
            CbzCbnz { sf, op, imm19, rt } => inst(
                if op == 1 { "cbnz" } else { "cbz" },
                &[r(rt, sf), self.target(sign_extend(u64::from(imm19) << 2, 21))],
            ),
            TbzTbnz { b5, op, b40, imm14, rt } => inst(
                if op == 1 { "tbnz" } else { "tbz" },
                &[r(rt, b5), format!("#{}", b5 << 5 | b40), self.target(sign_extend(u64::from(imm14) << 2, 16))],
            ),

            Stxr { size, rs, o0, rn, rt } => {
                let mnemonic = format!("{}{}", if o0 == 1 { "stlxr" } else { "stxr" }, size_suffix(size));
                inst(&mnemonic, &[r(rs, 0), r(rt, (size == 3) as u32), format!("[{}]", rsp(rn, 1))])
            }
            Ldxr { size, o0, rn, rt } => {
                let mnemonic = format!("{}{}", if o0 == 1 { "ldaxr" } else { "ldxr" }, size_suffix(size));
                inst(&mnemonic, &[r(rt, (size == 3) as u32), format!("[{}]", rsp(rn, 1))])
            }
            Stxp { sz, rs, o0, rt2, rn, rt } => inst(
                if o0 == 1 { "stlxp" } else { "stxp" },
                &[r(rs, 0), r(rt, sz), r(rt2, sz), format!("[{}]", rsp(rn, 1))],
            ),
            Ldxp { sz, o0, rt2, rn, rt } => {
                inst(if o0 == 1 { "ldaxp" } else { "ldxp" }, &[r(rt, sz), r(rt2, sz), format!("[{}]", rsp(rn, 1))])
            }
            Stlr { size, o0, rn, rt } => {
                let mnemonic = format!("{}{}", if o0 == 1 { "stlr" } else { "stllr" }, size_suffix(size));
                inst(&mnemonic, &[r(rt, (size == 3) as u32), format!("[{}]", rsp(rn, 1))])
            }
            Ldar { size, o0, rn, rt } => {
                let mnemonic = format!("{}{}", if o0 == 1 { "ldar" } else { "ldlar" }, size_suffix(size));
                inst(&mnemonic, &[r(rt, (size == 3) as u32), format!("[{}]", rsp(rn, 1))])
            }
            Ldapr { size, rn, rt } => {
                inst(&format!("ldapr{}", size_suffix(size)), &[r(rt, (size == 3) as u32), format!("[{}]", rsp(rn, 1))])
            }
            Cas { size, l, rs, o0, rn, rt } => {
                let mnemonic = format!("cas{}{}", ordering(l, o0), size_suffix(size));
                let sf = (size == 3) as u32;
                inst(&mnemonic, &[r(rs, sf), r(rt, sf), format!("[{}]", rsp(rn, 1))])
            }
            Casp { sz, l, rs, o0, rn, rt } => {
                if rs & 1 == 1 || rt & 1 == 1 {
                    return None;
                }
                inst(
                    &format!("casp{}", ordering(l, o0)),
                    &[r(rs, sz), r(rs + 1, sz), r(rt, sz), r(rt + 1, sz), format!("[{}]", rsp(rn, 1))],
                )
            }
            LdrLiteral { opc, imm19, rt } => {
                let target = self.target(sign_extend(u64::from(imm19) << 2, 21));
                match opc {
                    0b00 => inst("ldr", &[r(rt, 0), target]),
                    0b01 => inst("ldr", &[r(rt, 1), target]),
                    0b10 => inst("ldrsw", &[r(rt, 1), target]),
                    _ => inst("prfm", &[prefetch_op(rt), target]),
                }
            }
            LdstPairNoAlloc { opc, l, imm7, rt2, rn, rt } => {
                pair("np", opc, l, imm7, rt2, rn, rt, AddressMode::Offset)?
            }
            LdstPairPost { opc, l, imm7, rt2, rn, rt } => pair("p", opc, l, imm7, rt2, rn, rt, AddressMode::PostIndex)?,
            LdstPairOffset { opc, l, imm7, rt2, rn, rt } => pair("p", opc, l, imm7, rt2, rn, rt, AddressMode::Offset)?,
            LdstPairPre { opc, l, imm7, rt2, rn, rt } => pair("p", opc, l, imm7, rt2, rn, rt, AddressMode::PreIndex)?,
            LdstUnscaled { size, opc, imm9, rn, rt } => {
                let offset = sign_extend(u64::from(imm9), 9) as i64;
                single(size, opc, "u", true, rt, address(rn, offset, AddressMode::Offset))?
            }
            LdstImmPost { size, opc, imm9, rn, rt } => {
                let offset = sign_extend(u64::from(imm9), 9) as i64;
                single(size, opc, "", false, rt, address(rn, offset, AddressMode::PostIndex))?
            }
            LdstUnprivileged { size, opc, imm9, rn, rt } => {
                let offset = sign_extend(u64::from(imm9), 9) as i64;
                single(size, opc, "t", false, rt, address(rn, offset, AddressMode::Offset))?
            }
            LdstImmPre { size, opc, imm9, rn, rt } => {
                let offset = sign_extend(u64::from(imm9), 9) as i64;
                single(size, opc, "", false, rt, address(rn, offset, AddressMode::PreIndex))?
            }
            LdstUnsigned { size, opc, imm12, rn, rt } => {
                let offset = i64::from(imm12) << size;
                single(size, opc, "", true, rt, address(rn, offset, AddressMode::Offset))?
            }
            LdstRegister { size, opc, rm, option, s, rn, rt } => {
                if option & 0b010 == 0 {
                    return None;
                }
                let index = if option & 1 == 1 { r(rm, 1) } else { r(rm, 0) };
                let shift = if s == 1 { format!(" #{size}") } else { String::new() };
                let extend = match option {
                    0b011 if s == 1 => format!(", lsl{shift}"),
                    0b011 => String::new(),
                    _ => format!(", {}{shift}", EXTENDS[option as usize]),
                };
                single(size, opc, "", true, rt, format!("[{}, {index}{extend}]", rsp(rn, 1)))?
            }
            LdAtomic { size, a, r: rel, rs, opc, rn, rt } => {
                const OPS: [&str; 8] = ["add", "clr", "eor", "set", "smax", "smin", "umax", "umin"];
                let sf = (size == 3) as u32;
                if rt == 31 && a == 0 {
                    let mnemonic =
                        format!("st{}{}{}", OPS[opc as usize], if rel == 1 { "l" } else { "" }, size_suffix(size));
                    inst(&mnemonic, &[r(rs, sf), format!("[{}]", rsp(rn, 1))])
                } else {
                    let mnemonic = format!("ld{}{}{}", OPS[opc as usize], ordering(a, rel), size_suffix(size));
                    inst(&mnemonic, &[r(rs, sf), r(rt, sf), format!("[{}]", rsp(rn, 1))])
                }
            }
            Swp { size, a, r: rel, rs, rn, rt } => {
                let sf = (size == 3) as u32;
                inst(
                    &format!("swp{}{}", ordering(a, rel), size_suffix(size)),
                    &[r(rs, sf), r(rt, sf), format!("[{}]", rsp(rn, 1))],
                )
            }

            Dp2src { sf, s, rm, opcode, rn, rd } => {
                if s == 1 {
                    return None;
                }
                let mnemonic = match (opcode, sf) {
                    (0b000010, _) => "udiv",
                    (0b000011, _) => "sdiv",
                    (0b001000, _) => "lsl",
                    (0b001001, _) => "lsr",
                    (0b001010, _) => "asr",
                    (0b001011, _) => "ror",
                    (0b010000, 0) => "crc32b",
                    (0b010001, 0) => "crc32h",
                    (0b010010, 0) => "crc32w",
                    (0b010011, 1) => "crc32x",
                    (0b010100, 0) => "crc32cb",
                    (0b010101, 0) => "crc32ch",
                    (0b010110, 0) => "crc32cw",
                    (0b010111, 1) => "crc32cx",
                    _ => return None,
                };
                let operand2 = if opcode & 0b010000 != 0 { r(rm, (opcode & 3 == 3) as u32) } else { r(rm, sf) };
                let sf_d = if opcode & 0b010000 != 0 { 0 } else { sf };
                inst(mnemonic, &[r(rd, sf_d), r(rn, sf_d), operand2])
            }
            Dp1src { sf, s, opcode2, opcode, rn, rd } => {
                if s == 1 || opcode2 != 0 {
                    return None;
                }
                let mnemonic = match (opcode, sf) {
                    (0b000000, _) => "rbit",
                    (0b000001, _) => "rev16",
                    (0b000010, 0) | (0b000011, 1) => "rev",
                    (0b000010, 1) => "rev32",
                    (0b000100, _) => "clz",
                    (0b000101, _) => "cls",
                    _ => return None,
                };
                inst(mnemonic, &[r(rd, sf), r(rn, sf)])
            }
            LogicalShifted { sf, opc, shift, n, rm, imm6, rn, rd } => {
                if sf == 0 && imm6 & 0x20 != 0 {
                    return None;
                }
                let operand2 = shifted(r(rm, sf), shift, imm6);
                match (opc, n) {
                    (0b01, 0) if rn == 31 && shift == 0 && imm6 == 0 => inst("mov", &[r(rd, sf), r(rm, sf)]),
                    (0b01, 1) if rn == 31 => inst("mvn", &[r(rd, sf), operand2]),
                    (0b11, 0) if rd == 31 => inst("tst", &[r(rn, sf), operand2]),
                    _ => {
                        let mnemonic =
                            ["and", "bic", "orr", "orn", "eor", "eon", "ands", "bics"][(opc << 1 | n) as usize];
                        inst(mnemonic, &[r(rd, sf), r(rn, sf), operand2])
                    }
                }
            }
            AddSubShifted { sf, op, s, shift, rm, imm6, rn, rd } => {
                if shift == 3 || (sf == 0 && imm6 & 0x20 != 0) {
                    return None;
                }
                let operand2 = shifted(r(rm, sf), shift, imm6);
                match (op, s) {
                    (_, 1) if rd == 31 => inst(if op == 1 { "cmp" } else { "cmn" }, &[r(rn, sf), operand2]),
                    (1, _) if rn == 31 => inst(if s == 1 { "negs" } else { "neg" }, &[r(rd, sf), operand2]),
                    _ => {
                        inst(["add", "adds", "sub", "subs"][(op << 1 | s) as usize], &[r(rd, sf), r(rn, sf), operand2])
                    }
                }
            }
            AddSubExtended { sf, op, s, opt, rm, option, imm3, rn, rd } => {
                if opt != 0 || imm3 > 4 {
                    return None;
                }
                let index = r(rm, (option & 3 == 3) as u32);
                let uses_sp = rn == 31 || (rd == 31 && s == 0);
                // LSL is the preferred spelling of UXTX (UXTW for 32-bit) when SP is involved.
                let is_lsl = uses_sp && option == if sf == 1 { 0b011 } else { 0b010 };
                let extend = match (is_lsl, imm3) {
                    (true, 0) => String::new(),
                    (true, amount) => format!(", lsl #{amount}"),
                    (false, 0) => format!(", {}", EXTENDS[option as usize]),
                    (false, amount) => format!(", {} #{amount}", EXTENDS[option as usize]),
                };
                let operand2 = format!("{index}{extend}");
                match (op, s) {
                    (_, 1) if rd == 31 => inst(if op == 1 { "cmp" } else { "cmn" }, &[rsp(rn, sf), operand2]),
                    (_, 1) => inst(["adds", "subs"][op as usize], &[r(rd, sf), rsp(rn, sf), operand2]),
                    _ => inst(["add", "sub"][op as usize], &[rsp(rd, sf), rsp(rn, sf), operand2]),
                }
            }
            AdcSbc { sf, op, s, rm, rn, rd } => match (op, rn) {
                (1, 31) => inst(if s == 1 { "ngcs" } else { "ngc" }, &[r(rd, sf), r(rm, sf)]),
                _ => inst(["adc", "adcs", "sbc", "sbcs"][(op << 1 | s) as usize], &[r(rd, sf), r(rn, sf), r(rm, sf)]),
            },
            Rmif { imm6, rn, mask } => inst("rmif", &[r(rn, 1), format!("#{imm6}"), format!("#{mask}")]),
            Setf { sz, rn } => inst(if sz == 1 { "setf16" } else { "setf8" }, &[r(rn, 0)]),
            CcmpReg { sf, op, s, rm, cond: c, o2, rn, o3, nzcv } => {
                if s != 1 || o2 != 0 || o3 != 0 {
                    return None;
                }
                inst(if op == 1 { "ccmp" } else { "ccmn" }, &[r(rn, sf), r(rm, sf), format!("#{nzcv}"), cond(c).into()])
            }
            CcmpImm { sf, op, s, imm5, cond: c, o2, rn, o3, nzcv } => {
                if s != 1 || o2 != 0 || o3 != 0 {
                    return None;
                }
                inst(
                    if op == 1 { "ccmp" } else { "ccmn" },
                    &[r(rn, sf), format!("#{imm5}"), format!("#{nzcv}"), cond(c).into()],
                )
            }
            Csel { sf, op, s, rm, cond: c, op2, rn, rd } => {
                if s == 1 || op2 & 2 != 0 {
                    return None;
                }
                let invertible = c >> 1 != 0b111;
                match (op, op2 & 1) {
                    (0, 1) if rn == 31 && rm == 31 && invertible => inst("cset", &[r(rd, sf), cond(invert(c)).into()]),
                    (0, 1) if rn == rm && rn != 31 && invertible => {
                        inst("cinc", &[r(rd, sf), r(rn, sf), cond(invert(c)).into()])
                    }
                    (1, 0) if rn == 31 && rm == 31 && invertible => inst("csetm", &[r(rd, sf), cond(invert(c)).into()]),
                    (1, 0) if rn == rm && rn != 31 && invertible => {
                        inst("cinv", &[r(rd, sf), r(rn, sf), cond(invert(c)).into()])
                    }
                    (1, 1) if rn == rm && invertible => inst("cneg", &[r(rd, sf), r(rn, sf), cond(invert(c)).into()]),
                    _ => {
                        let mnemonic = ["csel", "csinc", "csinv", "csneg"][(op << 1 | (op2 & 1)) as usize];
                        inst(mnemonic, &[r(rd, sf), r(rn, sf), r(rm, sf), cond(c).into()])
                    }
                }
            }
            Dp3src { sf, op54, op31, rm, o0, ra, rn, rd } => {
                if op54 != 0 || (sf == 0 && op31 != 0) {
                    return None;
                }
                let (mnemonic, alias, wide_sources) = match (op31, o0) {
                    (0b000, 0) => ("madd", "mul", false),
                    (0b000, 1) => ("msub", "mneg", false),
                    (0b001, 0) => ("smaddl", "smull", true),
                    (0b001, 1) => ("smsubl", "smnegl", true),
                    (0b101, 0) => ("umaddl", "umull", true),
                    (0b101, 1) => ("umsubl", "umnegl", true),
                    (0b010, 0) => return Some(inst("smulh", &[r(rd, 1), r(rn, 1), r(rm, 1)])),
                    (0b110, 0) => return Some(inst("umulh", &[r(rd, 1), r(rn, 1), r(rm, 1)])),
                    _ => return None,
                };
                let source_sf = if wide_sources { 0 } else { sf };
                if ra == 31 {
                    inst(alias, &[r(rd, sf), r(rn, source_sf), r(rm, source_sf)])
                } else {
                    inst(mnemonic, &[r(rd, sf), r(rn, source_sf), r(rm, source_sf), r(ra, sf)])
                }
            }
            SimdFpData { .. } | SimdFpLoadStore { .. } => return None,
        })
    }

    fn bitfield(&self, sf: u32, opc: u32, n: u32, immr: u32, imms: u32, rn: u32, rd: u32) -> Option<String> {
        if opc == 0b11 || (sf == 1 && n != 1) || (sf == 0 && (n != 0 || immr & 0x20 != 0 || imms & 0x20 != 0)) {
            return None;
        }
        let size = if sf == 1 { 64 } else { 32 };
        let all = size - 1;
        let (rd_name, rn_name) = (r(rd, sf), r(rn, sf));
        let lsb_width =
            |lsb: u32, width: u32| [rd_name.clone(), rn_name.clone(), format!("#{lsb}"), format!("#{width}")];
        // An insertion (imms < immr) puts bits 0..=imms at -immr mod size.
        let insert_lsb = (size - immr) % size;
        Some(match opc {
            0b00 => {
                if imms == all {
                    inst("asr", &[rd_name, rn_name, format!("#{immr}")])
                } else if imms < immr {
                    inst("sbfiz", &lsb_width(insert_lsb, imms + 1))
                } else if bfx_preferred(sf, 0, imms, immr) {
                    inst("sbfx", &lsb_width(immr, imms - immr + 1))
                } else if immr == 0 && matches!(imms, 7 | 15 | 31) {
                    let mnemonic = match imms {
                        7 => "sxtb",
                        15 => "sxth",
                        _ => "sxtw",
                    };
                    inst(mnemonic, &[rd_name, r(rn, 0)])
                } else {
                    inst("sbfm", &[rd_name, rn_name, format!("#{immr}"), format!("#{imms}")])
                }
            }
            0b01 => {
                if imms < immr && rn == 31 {
                    inst("bfc", &[rd_name, format!("#{insert_lsb}"), format!("#{}", imms + 1)])
                } else if imms < immr {
                    inst("bfi", &lsb_width(insert_lsb, imms + 1))
                } else {
                    inst("bfxil", &lsb_width(immr, imms - immr + 1))
                }
            }
            _ => {
                if imms != all && imms + 1 == immr {
                    inst("lsl", &[rd_name, rn_name, format!("#{}", all - imms)])
                } else if imms == all {
                    inst("lsr", &[rd_name, rn_name, format!("#{immr}")])
                } else if imms < immr {
                    inst("ubfiz", &lsb_width(insert_lsb, imms + 1))
                } else if bfx_preferred(sf, 1, imms, immr) {
                    inst("ubfx", &lsb_width(immr, imms - immr + 1))
                } else if immr == 0 && sf == 0 && matches!(imms, 7 | 15) {
                    inst(if imms == 7 { "uxtb" } else { "uxth" }, &[rd_name, r(rn, 0)])
                } else {
                    inst("ubfm", &[rd_name, rn_name, format!("#{immr}"), format!("#{imms}")])
                }
            }
        })
    }
}

/// `MoveWidePreferred(sf, immN, imms, immr)` from the Arm ARM: whether MOVZ/MOVN can produce a bitmask immediate.
fn move_wide_preferred(sf: u32, imm_n: u32, imms: u32, immr: u32) -> bool {
    let (s, r) = (imms as i32, immr as i32);
    let width = if sf == 1 { 64 } else { 32 };
    // The element size must equal the total immediate size.
    if sf == 1 && imm_n != 1 {
        return false;
    }
    if sf == 0 && !(imm_n == 0 && imms & 0x20 == 0) {
        return false;
    }
    // For MOVZ it must contain no more than 16 ones, not spanning a halfword boundary when rotated.
    if s < 16 {
        return (-r).rem_euclid(16) <= 15 - s;
    }
    // For MOVN it must contain no more than 16 zeros, likewise.
    if s >= width - 15 {
        return r % 16 <= s - (width - 15);
    }
    false
}

/// `BFXPreferred(sf, uns, imms, immr)` from the Arm ARM.
fn bfx_preferred(sf: u32, uns: u32, imms: u32, immr: u32) -> bool {
    if imms < immr {
        return false;
    }
    if imms == if sf == 1 { 63 } else { 31 } {
        return false;
    }
    if immr == 0 {
        if sf == 0 && matches!(imms, 7 | 15) {
            return false;
        }
        if sf == 1 && uns == 0 && matches!(imms, 7 | 15 | 31) {
            return false;
        }
    }
    true
}

fn shifted(register: String, shift: u32, amount: u32) -> String {
    if amount == 0 && shift == 0 { register } else { format!("{register}, {} #{amount}", SHIFTS[shift as usize]) }
}

fn size_suffix(size: u32) -> &'static str {
    ["b", "h", "", ""][size as usize & 3]
}

/// The acquire/release letters of CAS, LD<op> and SWP: "", "a", "l", "al".
fn ordering(acquire: u32, release: u32) -> &'static str {
    ["", "l", "a", "al"][(acquire << 1 | release) as usize & 3]
}

fn barrier_option(crm: u32) -> String {
    const OPTIONS: [&str; 16] =
        ["", "oshld", "oshst", "osh", "", "nshld", "nshst", "nsh", "", "ishld", "ishst", "ish", "", "ld", "st", "sy"];
    match OPTIONS[crm as usize & 15] {
        "" => format!("#{crm}"),
        name => name.into(),
    }
}

/// PRFM's `<prfop>`: PLD/PLI/PST, L1-L3, KEEP/STRM, or the number.
fn prefetch_op(rt: u32) -> String {
    let kind = match rt >> 3 {
        0 => "pld",
        1 => "pli",
        2 => "pst",
        _ => return format!("#{rt}"),
    };
    let level = (rt >> 1) & 3;
    if level == 3 {
        return format!("#{rt}");
    }
    format!("{kind}l{}{}", level + 1, if rt & 1 == 1 { "strm" } else { "keep" })
}

/// Single-register loads and stores: `kind` is "" (LDR), "u" (LDUR) or "t" (LDTR); `prefetch` whether PRFM exists.
fn single(size: u32, opc: u32, kind: &str, prefetch: bool, rt: u32, operand: String) -> Option<String> {
    let (base, rt_sf) = match (opc, size) {
        (0b00, _) => ("str", (size == 3) as u32),
        (0b01, _) => ("ldr", (size == 3) as u32),
        (0b10, 3) if prefetch => return Some(inst(&format!("prf{}m", kind), &[prefetch_op(rt), operand])),
        (0b10, 0..=2) => ("ldrs", 1),
        (0b11, 0..=1) => ("ldrs", 0),
        _ => return None,
    };
    // LDR/STR become LDUR/STUR and LDTR/STTR; the size letter follows.
    let size_letter = match (base, size) {
        ("ldrs", 2) => "w",
        (_, 0) => "b",
        (_, 1) => "h",
        _ => "",
    };
    let mnemonic = match base {
        "str" => format!("st{kind}r{size_letter}"),
        "ldr" => format!("ld{kind}r{size_letter}"),
        _ => format!("ld{kind}rs{size_letter}"),
    };
    Some(inst(&mnemonic, &[r(rt, rt_sf), operand]))
}

#[allow(clippy::too_many_arguments)] // the fields of the encoding
/// Pair loads and stores: `kind` is "p" or "np".
fn pair(kind: &str, opc: u32, l: u32, imm7: u32, rt2: u32, rn: u32, rt: u32, mode: AddressMode) -> Option<String> {
    if opc == 0b11 || (opc == 0b01 && (l == 0 || kind == "np")) {
        return None;
    }
    let scale = 2 + (opc >> 1);
    let offset = (sign_extend(u64::from(imm7), 7) as i64) << scale;
    let mnemonic = match (l, opc) {
        (1, 0b01) => "ldpsw".to_string(),
        (1, _) => format!("ld{kind}"),
        _ => format!("st{kind}"),
    };
    let sf = (opc != 0) as u32;
    Some(inst(&mnemonic, &[r(rt, sf), r(rt2, sf), address(rn, offset, mode)]))
}
