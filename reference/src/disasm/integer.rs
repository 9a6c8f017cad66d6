//! The general-purpose instructions: data processing, branches, system instructions, and the loads and stores of
//! general-purpose registers.

use super::{AddressMode, EXTENDS, Printer, address, base, cond, hex, imm, inst, r, rsp, simm9, with_comment};
use crate::decode::Inst;
use crate::interp::pseudocode::{decode_bit_masks, sign_extend};
use crate::sysreg::{SysReg, SysRegEncoding};

const SHIFTS: [&str; 4] = ["lsl", "lsr", "asr", "ror"];

fn invert(c: u32) -> u32 {
    c ^ 1
}

/// `mov`'s immediate: LLVM prints the register-sized value as a signed decimal.
fn mov_imm(value: u64, sf: u32) -> String {
    imm(if sf == 1 { value as i64 } else { i64::from(value as u32 as i32) })
}

/// The `sf` of a load/store's data register: X for doublewords, W otherwise.
fn size_sf(size: u32) -> u32 {
    (size == 3) as u32
}

impl Printer {
    /// Text for a general-purpose instruction; `None` for combinations the architecture leaves unallocated.
    pub(super) fn print_integer(&self, decoded: Inst) -> Option<String> {
        use Inst::*;
        Some(match decoded {
            Udf { imm16 } => inst("udf", &[imm(imm16)]),
            Adr { op, immlo, immhi, rd } => {
                let offset = sign_extend(u64::from(immhi << 2 | immlo), 21);
                if op == 1 {
                    inst("adrp", &[r(rd, 1), format!("{:#x}", (self.pc & !0xfff).wrapping_add(offset << 12))])
                } else {
                    inst("adr", &[r(rd, 1), self.target(offset)])
                }
            }
            AddSubImm { sf, op, s, sh, imm12, rn, rd } => {
                let operand = if sh == 1 { format!("#{imm12}, lsl #12") } else { imm(imm12) };
                let mnemonic = ["add", "adds", "sub", "subs"][(op << 1 | s) as usize];
                let text = match (op, s) {
                    (0, 0) if sh == 0 && imm12 == 0 && (rd == 31 || rn == 31) => {
                        inst("mov", &[rsp(rd, sf), rsp(rn, sf)])
                    }
                    (_, 1) if rd == 31 => inst(if op == 1 { "cmp" } else { "cmn" }, &[rsp(rn, sf), operand]),
                    (_, 1) => inst(mnemonic, &[r(rd, sf), rsp(rn, sf), operand]),
                    _ => inst(mnemonic, &[rsp(rd, sf), rsp(rn, sf), operand]),
                };
                // LLVM adds the shifted value as a comment.
                if sh == 1 { with_comment(text, &format!("={}", imm12 << 12)) } else { text }
            }
            LogicalImm { sf, opc, n, immr, imms, rn, rd } => {
                if sf == 0 && n != 0 {
                    return None;
                }
                let size = if sf == 1 { 64 } else { 32 };
                let (mask, _) = decode_bit_masks(n, imms, immr, true, size)?;
                match opc {
                    0b01 if rn == 31 && !move_wide_can_make(mask, sf) => inst("mov", &[rsp(rd, sf), mov_imm(mask, sf)]),
                    0b11 if rd == 31 => inst("tst", &[r(rn, sf), hex(mask)]),
                    0b11 => inst("ands", &[r(rd, sf), r(rn, sf), hex(mask)]),
                    _ => inst(["and", "orr", "eor"][opc as usize], &[rsp(rd, sf), r(rn, sf), hex(mask)]),
                }
            }
            MoveWide { sf, opc, hw, imm16, rd } => {
                if opc == 0b01 || (sf == 0 && hw & 2 != 0) {
                    return None;
                }
                let shift = hw * 16;
                let value = u64::from(imm16) << shift;
                let shifted = |mnemonic: &str| {
                    let mut operands = vec![r(rd, sf), imm(imm16)];
                    if shift != 0 {
                        operands.push(format!("lsl #{shift}"));
                    }
                    inst(mnemonic, &operands)
                };
                // MOV is preferred unless a zero immediate is shifted, or (32-bit MOVN of 0xffff) MOVZ makes the value.
                let mov_alias = !(imm16 == 0 && hw != 0);
                match opc {
                    0b00 if mov_alias && !(sf == 0 && imm16 == 0xffff) => {
                        inst("mov", &[r(rd, sf), mov_imm(!value, sf)])
                    }
                    0b00 => shifted("movn"),
                    0b10 if mov_alias => inst("mov", &[r(rd, sf), mov_imm(value, sf)]),
                    0b10 => shifted("movz"),
                    _ => shifted("movk"),
                }
            }
            Bitfield { sf, opc, n, immr, imms, rn, rd } => bitfield(sf, opc, n, immr, imms, rn, rd)?,
            Extr { sf, op21, n, o0, rm, imms, rn, rd } => {
                if op21 != 0 || o0 != 0 || n != sf || (sf == 0 && imms & 0x20 != 0) {
                    return None;
                }
                if rn == rm {
                    inst("ror", &[r(rd, sf), r(rn, sf), imm(imms)])
                } else {
                    inst("extr", &[r(rd, sf), r(rn, sf), r(rm, sf), imm(imms)])
                }
            }
            BCond { o1, imm19, o0, cond: c } => {
                if o1 != 0 || o0 != 0 {
                    return None;
                }
                inst(&format!("b.{}", cond(c)), &[self.branch(imm19, 19)])
            }
            Svc { imm16 } => inst("svc", &[hex(imm16.into())]),
            Hvc { imm16 } => inst("hvc", &[hex(imm16.into())]),
            Smc { imm16 } => inst("smc", &[hex(imm16.into())]),
            Brk { imm16 } => inst("brk", &[hex(imm16.into())]),
            Hlt { imm16 } => inst("hlt", &[hex(imm16.into())]),
            Dcps { imm16, ll } => {
                if ll == 0 {
                    return None;
                }
                let mnemonic = format!("dcps{ll}");
                if imm16 == 0 { mnemonic } else { inst(&mnemonic, &[hex(imm16.into())]) }
            }
            Hint { crm, op2 } => match crm << 3 | op2 {
                0 => "nop".into(),
                1 => "yield".into(),
                2 => "wfe".into(),
                3 => "wfi".into(),
                4 => "sev".into(),
                5 => "sevl".into(),
                // FEAT_DGH; LLVM names it whatever the target's features.
                6 => "dgh".into(),
                // FEAT_PAuth.
                7 => "xpaclri".into(),
                8 => "pacia1716".into(),
                10 => "pacib1716".into(),
                12 => "autia1716".into(),
                14 => "autib1716".into(),
                16 => "esb".into(),
                20 => "csdb".into(),
                24..=31 => ["paciaz", "paciasp", "pacibz", "pacibsp", "autiaz", "autiasp", "autibz", "autibsp"]
                    [(op2 & 7) as usize]
                    .into(),
                // BTI (hint #32 to #38) is FEAT_BTI, which the Cortex-A78C lacks: LLVM names it only with +bti.
                number => inst("hint", &[imm(number)]),
            },
            Barrier { crm, op2 } => match op2 {
                0b010 if crm == 15 => "clrex".into(),
                0b010 => inst("clrex", &[imm(crm)]),
                0b100 if crm == 0 => "ssbb".into(),
                0b100 if crm == 4 => "pssbb".into(),
                0b100 => inst("dsb", &[barrier_option(crm)]),
                0b101 => inst("dmb", &[barrier_option(crm)]),
                0b110 if crm == 15 => "isb".into(),
                0b110 => inst("isb", &[imm(crm)]),
                _ => return None,
            },
            MsrImm { op1: 0, crm: 0, op2: 0 } => "cfinv".into(),
            MsrImm { op1, crm, op2 } => {
                // The one-bit fields take CRm = 000x; SPSel and the DAIF ones take all of CRm. SSBS takes CRm<0>
                // whatever CRm<3:1> holds (`PSTATE.SSBS = CRm<0>`); LLVM names it only for CRm = 000x.
                let field = match (op1, op2) {
                    (0b000, 0b011) if crm <= 1 => "UAO",
                    (0b000, 0b100) if crm <= 1 => "PAN",
                    (0b000, 0b101) => "SPSel",
                    (0b011, 0b001) => "SSBS",
                    (0b011, 0b110) => "DAIFSet",
                    (0b011, 0b111) => "DAIFClr",
                    _ => return None,
                };
                inst("msr", &[field.to_string(), imm(crm)])
            }
            Sys { l: 1, op1, crn, crm, op2, rt } => {
                inst("sysl", &[vec![r(rt, 1)], sys_operands(op1, crn, crm, op2)].concat())
            }
            Sys { op1, crn, crm, op2, rt, .. } => cache_op(op1, crn, crm, op2, rt).unwrap_or_else(|| {
                let mut operands = sys_operands(op1, crn, crm, op2);
                if rt != 31 {
                    operands.push(r(rt, 1));
                }
                inst("sys", &operands)
            }),
            MsrMrs { l, o0, op1, crn, crm, op2, rt } => {
                let name = sysreg_name(SysRegEncoding::from_fields(o0, op1, crn, crm, op2), l == 0);
                if l == 1 { inst("mrs", &[r(rt, 1), name]) } else { inst("msr", &[name, r(rt, 1)]) }
            }
            BranchReg { opc, op2, op3, rn, op4 } => {
                if op2 != 31 {
                    return None;
                }
                // op3 = 00001M: authenticated with key A (M = 0) or B.
                let key = match op3 {
                    0b000010 => "a",
                    0b000011 => "b",
                    _ => "",
                };
                match (opc, op3, rn, op4) {
                    (0b0000, 0, _, 0) => inst("br", &[r(rn, 1)]),
                    (0b0001, 0, _, 0) => inst("blr", &[r(rn, 1)]),
                    (0b0010, 0, 30, 0) => "ret".into(),
                    (0b0010, 0, _, 0) => inst("ret", &[r(rn, 1)]),
                    (0b0100, 0, 31, 0) => "eret".into(),
                    (0b0101, 0, 31, 0) => "drps".into(),
                    _ if key.is_empty() => return None,
                    (0b0000, _, _, 31) => inst(&format!("bra{key}z"), &[r(rn, 1)]),
                    (0b0001, _, _, 31) => inst(&format!("blra{key}z"), &[r(rn, 1)]),
                    (0b0010, _, 31, 31) => format!("reta{key}"),
                    (0b0100, _, 31, 31) => format!("ereta{key}"),
                    (0b1000, ..) => inst(&format!("bra{key}"), &[r(rn, 1), rsp(op4, 1)]),
                    (0b1001, ..) => inst(&format!("blra{key}"), &[r(rn, 1), rsp(op4, 1)]),
                    _ => return None,
                }
            }
            BBl { op, imm26 } => inst(if op == 1 { "bl" } else { "b" }, &[self.branch(imm26, 26)]),
            CbzCbnz { sf, op, imm19, rt } => {
                inst(if op == 1 { "cbnz" } else { "cbz" }, &[r(rt, sf), self.branch(imm19, 19)])
            }
            TbzTbnz { b5, op, b40, imm14, rt } => {
                inst(if op == 1 { "tbnz" } else { "tbz" }, &[r(rt, b5), imm(b5 << 5 | b40), self.branch(imm14, 14)])
            }

            Stxr { size, rs, o0, rn, rt } => {
                let mnemonic = format!("{}{}", if o0 == 1 { "stlxr" } else { "stxr" }, size_suffix(size));
                inst(&mnemonic, &[r(rs, 0), r(rt, size_sf(size)), base(rn)])
            }
            Ldxr { size, o0, rn, rt } => one_register(if o0 == 1 { "ldaxr" } else { "ldxr" }, size, rt, rn),
            Stxp { sz, rs, o0, rt2, rn, rt } => {
                inst(if o0 == 1 { "stlxp" } else { "stxp" }, &[r(rs, 0), r(rt, sz), r(rt2, sz), base(rn)])
            }
            Ldxp { sz, o0, rt2, rn, rt } => {
                inst(if o0 == 1 { "ldaxp" } else { "ldxp" }, &[r(rt, sz), r(rt2, sz), base(rn)])
            }
            Stlr { size, o0, rn, rt } => one_register(if o0 == 1 { "stlr" } else { "stllr" }, size, rt, rn),
            Ldar { size, o0, rn, rt } => one_register(if o0 == 1 { "ldar" } else { "ldlar" }, size, rt, rn),
            Ldapr { size, rn, rt } => one_register("ldapr", size, rt, rn),
            Cas { size, l, rs, o0, rn, rt } => {
                let mnemonic = format!("cas{}{}", ordering(l, o0), size_suffix(size));
                let sf = size_sf(size);
                inst(&mnemonic, &[r(rs, sf), r(rt, sf), base(rn)])
            }
            Casp { sz, l, rs, o0, rn, rt } => {
                if rs & 1 == 1 || rt & 1 == 1 {
                    return None;
                }
                inst(
                    &format!("casp{}", ordering(l, o0)),
                    &[r(rs, sz), r(rs + 1, sz), r(rt, sz), r(rt + 1, sz), base(rn)],
                )
            }
            LdrLiteral { opc, imm19, rt } => {
                let target = self.branch(imm19, 19);
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
                single(size, opc, "u", true, rt, address(rn, simm9(imm9), AddressMode::Offset))?
            }
            LdstImmPost { size, opc, imm9, rn, rt } => {
                single(size, opc, "", false, rt, address(rn, simm9(imm9), AddressMode::PostIndex))?
            }
            LdstUnprivileged { size, opc, imm9, rn, rt } => {
                single(size, opc, "t", false, rt, address(rn, simm9(imm9), AddressMode::Offset))?
            }
            LdstImmPre { size, opc, imm9, rn, rt } => {
                single(size, opc, "", false, rt, address(rn, simm9(imm9), AddressMode::PreIndex))?
            }
            LdstUnsigned { size, opc, imm12, rn, rt } => {
                let offset = i64::from(imm12) << size;
                single(size, opc, "", true, rt, address(rn, offset, AddressMode::Offset))?
            }
            LdstRegister { size, opc, rm, option, s, rn, rt } => {
                if option & 0b010 == 0 {
                    return None;
                }
                let index = r(rm, option & 1);
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
                let sf = size_sf(size);
                if rt == 31 && a == 0 {
                    let mnemonic =
                        format!("st{}{}{}", OPS[opc as usize], if rel == 1 { "l" } else { "" }, size_suffix(size));
                    inst(&mnemonic, &[r(rs, sf), base(rn)])
                } else {
                    let mnemonic = format!("ld{}{}{}", OPS[opc as usize], ordering(a, rel), size_suffix(size));
                    acquire_note(inst(&mnemonic, &[r(rs, sf), r(rt, sf), base(rn)]), a, rt)
                }
            }
            Swp { size, a, r: rel, rs, rn, rt } => {
                let sf = size_sf(size);
                let mnemonic = format!("swp{}{}", ordering(a, rel), size_suffix(size));
                acquire_note(inst(&mnemonic, &[r(rs, sf), r(rt, sf), base(rn)]), a, rt)
            }

            Dp2src { sf, s, rm, opcode, rn, rd } => {
                if s == 1 {
                    return None;
                }
                if (opcode, sf) == (0b001100, 1) {
                    return Some(inst("pacga", &[r(rd, 1), r(rn, 1), rsp(rm, 1)]));
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
            Dp1src { sf: 1, s: 0, opcode2: 0b00001, opcode, rn, rd } => pointer_authentication(opcode, rn, rd)?,
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
                // The Arm ARM names an X register for UXTX/SXTX even when sf = 0; LLVM always a W register then.
                let index = r(rm, sf & (option & 3 == 3) as u32);
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
            Rmif { imm6, rn, mask } => inst("rmif", &[r(rn, 1), imm(imm6), imm(mask)]),
            Setf { sz, rn } => inst(if sz == 1 { "setf16" } else { "setf8" }, &[r(rn, 0)]),
            CcmpReg { sf, op, s, rm, cond: c, o2, rn, o3, nzcv } => {
                if s != 1 || o2 != 0 || o3 != 0 {
                    return None;
                }
                inst(if op == 1 { "ccmp" } else { "ccmn" }, &[r(rn, sf), r(rm, sf), imm(nzcv), cond(c).into()])
            }
            CcmpImm { sf, op, s, imm5, cond: c, o2, rn, o3, nzcv } => {
                if s != 1 || o2 != 0 || o3 != 0 {
                    return None;
                }
                inst(if op == 1 { "ccmp" } else { "ccmn" }, &[r(rn, sf), imm(imm5), imm(nzcv), cond(c).into()])
            }
            Csel { sf, op, s, rm, cond: c, op2, rn, rd } => {
                if s == 1 || op2 & 2 != 0 {
                    return None;
                }
                // The aliases (with the inverted condition) exist for conditions other than AL and NV.
                let invertible = c >> 1 != 0b111;
                let inverted = cond(invert(c)).to_string();
                match (op, op2 & 1) {
                    (0, 1) if rn == 31 && rm == 31 && invertible => inst("cset", &[r(rd, sf), inverted]),
                    (0, 1) if rn == rm && rn != 31 && invertible => inst("cinc", &[r(rd, sf), r(rn, sf), inverted]),
                    (1, 0) if rn == 31 && rm == 31 && invertible => inst("csetm", &[r(rd, sf), inverted]),
                    (1, 0) if rn == rm && rn != 31 && invertible => inst("cinv", &[r(rd, sf), r(rn, sf), inverted]),
                    (1, 1) if rn == rm && invertible => inst("cneg", &[r(rd, sf), r(rn, sf), inverted]),
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
            LdstPac { m, s, imm9, w, rn, rt } => {
                let offset = (sign_extend(u64::from(s << 9 | imm9), 10) as i64) << 3;
                let mode = if w == 1 { AddressMode::PreIndex } else { AddressMode::Offset };
                inst(if m == 1 { "ldrab" } else { "ldraa" }, &[r(rt, 1), address(rn, offset, mode)])
            }
            // Floating point and Advanced SIMD: `simd_fp.rs`, which `disassemble` asks first.
            _ => return None,
        })
    }
}

/// SBFM, BFM and UBFM, or the alias the Arm ARM and LLVM prefer (asr, lsl, lsr, sbfiz, sbfx, sxt*, bfc, bfi, bfxil,
/// ubfiz, ubfx, uxt*).
fn bitfield(sf: u32, opc: u32, n: u32, immr: u32, imms: u32, rn: u32, rd: u32) -> Option<String> {
    if opc == 0b11 || (sf == 1 && n != 1) || (sf == 0 && (n != 0 || immr & 0x20 != 0 || imms & 0x20 != 0)) {
        return None;
    }
    let size = if sf == 1 { 64 } else { 32 };
    let all = size - 1;
    let (rd_name, rn_name) = (r(rd, sf), r(rn, sf));
    let lsb_width = |lsb: u32, width: u32| [rd_name.clone(), rn_name.clone(), imm(lsb), imm(width)];
    // An insertion (imms < immr) puts bits 0..=imms at -immr mod size.
    let insert_lsb = (size - immr) % size;
    Some(match opc {
        0b00 => {
            if imms == all {
                inst("asr", &[rd_name, rn_name, imm(immr)])
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
                inst("sbfm", &[rd_name, rn_name, imm(immr), imm(imms)])
            }
        }
        0b01 => {
            // LLVM prints BFC also for BFXIL from the zero register at bit 0 (immr = 0), where the Arm ARM,
            // which takes BFC only for imms < immr, would print BFXIL.
            if rn == 31 && (imms < immr || immr == 0) {
                inst("bfc", &[rd_name, imm(insert_lsb), imm(imms + 1)])
            } else if imms < immr {
                inst("bfi", &lsb_width(insert_lsb, imms + 1))
            } else {
                inst("bfxil", &lsb_width(immr, imms - immr + 1))
            }
        }
        _ => {
            if imms != all && imms + 1 == immr {
                inst("lsl", &[rd_name, rn_name, imm(all - imms)])
            } else if imms == all {
                inst("lsr", &[rd_name, rn_name, imm(immr)])
            } else if imms < immr {
                inst("ubfiz", &lsb_width(insert_lsb, imms + 1))
            } else if bfx_preferred(sf, 1, imms, immr) {
                inst("ubfx", &lsb_width(immr, imms - immr + 1))
            } else if immr == 0 && sf == 0 && matches!(imms, 7 | 15) {
                inst(if imms == 7 { "uxtb" } else { "uxth" }, &[rd_name, r(rn, 0)])
            } else {
                inst("ubfm", &[rd_name, rn_name, imm(immr), imm(imms)])
            }
        }
    })
}

/// The PAC*, AUT* and XPAC* forms of data-processing (1 source): opcode = 00 Z A D B, or 01000 D.
fn pointer_authentication(opcode: u32, rn: u32, rd: u32) -> Option<String> {
    const NAMES: [&str; 8] = ["pacia", "pacib", "pacda", "pacdb", "autia", "autib", "autda", "autdb"];
    Some(match opcode {
        0b000000..=0b000111 => inst(NAMES[opcode as usize], &[r(rd, 1), rsp(rn, 1)]),
        // The zero-modifier forms: `paciza` ..., Rn = 11111.
        0b001000..=0b001111 if rn == 31 => {
            let name = NAMES[(opcode & 7) as usize];
            inst(&format!("{}z{}", &name[..4], &name[4..]), &[r(rd, 1)])
        }
        0b010000 if rn == 31 => inst("xpaci", &[r(rd, 1)]),
        0b010001 if rn == 31 => inst("xpacd", &[r(rd, 1)]),
        _ => return None,
    })
}

/// SYS's `#op1, Cn, Cm, #op2`.
fn sys_operands(op1: u32, crn: u32, crm: u32, op2: u32) -> Vec<String> {
    vec![imm(op1), format!("c{crn}"), format!("c{crm}"), imm(op2)]
}

/// DC and IC, the SYS aliases of Armv8.2 that LLVM names (DC CVAP is FEAT_DPB): op1, CRm and op2 (CRn is 7), the
/// text, and whether the operation takes a register. AT and TLBI, which only EL1 and up may execute, print as SYS.
static CACHE_OPS: &[(u32, u32, u32, &str, bool)] = &[
    (0, 1, 0, "ic\tialluis", false),
    (0, 5, 0, "ic\tiallu", false),
    (3, 5, 1, "ic\tivau", true),
    (0, 6, 1, "dc\tivac", true),
    (0, 6, 2, "dc\tisw", true),
    (0, 10, 2, "dc\tcsw", true),
    (0, 14, 2, "dc\tcisw", true),
    (3, 4, 1, "dc\tzva", true),
    (3, 10, 1, "dc\tcvac", true),
    (3, 11, 1, "dc\tcvau", true),
    (3, 12, 1, "dc\tcvap", true),
    (3, 14, 1, "dc\tcivac", true),
];

/// The DC/IC text for a SYS instruction, if it is one. LLVM 14 leaves out the register of the operations that take
/// none whatever Rt is (the architecture ignores it there).
fn cache_op(op1: u32, crn: u32, crm: u32, op2: u32, rt: u32) -> Option<String> {
    let &(.., text, takes_register) =
        CACHE_OPS.iter().find(|&&(o1, m, o2, ..)| crn == 7 && (o1, m, o2) == (op1, crm, op2))?;
    Some(if takes_register { format!("{text}, {}", r(rt, 1)) } else { text.to_string() })
}

/// MRS/MSR's register operand: the name where it is readable (MRS) or writable (MSR), as LLVM names only those,
/// otherwise the generic `S<op0>_<op1>_C<n>_C<m>_<op2>`.
fn sysreg_name(encoding: SysRegEncoding, write: bool) -> String {
    match SysReg::lookup(encoding) {
        Some(register) if !(write && read_only(register)) => register.name().to_uppercase(),
        _ => {
            let SysRegEncoding { op0, op1, crn, crm, op2 } = encoding;
            format!("S{op0}_{op1}_C{crn}_C{crm}_{op2}")
        }
    }
}

fn read_only(register: SysReg) -> bool {
    use SysReg::*;
    match register {
        Nzcv | Ssbs | Fpcr | Fpsr | TpidrEl0 | TpidrroEl0 | CntfrqEl0 => false,
        CntpctEl0 | CntvctEl0 | DczidEl0 | CtrEl0 | MidrEl1 | MpidrEl1 | RevidrEl1 | IdAa64pfr0El1 | IdAa64isar0El1
        | IdAa64isar1El1 => true,
    }
}

/// Whether MOVZ or MOVN can make `value` in a register of width `sf`; ORR's MOV alias is preferred only where
/// they cannot. LLVM decides this from the value; the Arm ARM's MoveWidePreferred, which decides it from the
/// fields, misses some rotations (it would print `orr w0, wzr, #0xfffffffe`, MOVN's `mov w0, #-2`, as MOV too).
fn move_wide_can_make(value: u64, sf: u32) -> bool {
    let (width, mask) = if sf == 1 { (64, u64::MAX) } else { (32, 0xffff_ffff) };
    let one_halfword = |v: u64| (0..width).step_by(16).any(|shift| v & !(0xffff << shift) == 0);
    one_halfword(value & mask) || one_halfword(!value & mask)
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

/// LLVM's note on LD<op>A/SWPA to the zero register: an acquire needs a load that something reads (see the Arm
/// ARM's note on these instructions).
fn acquire_note(text: String, acquire: u32, rt: u32) -> String {
    if acquire == 1 && rt == 31 {
        with_comment(text, "acquire semantics dropped since destination is zero")
    } else {
        text
    }
}

/// The acquire/release letters of CAS, LD<op> and SWP: "", "a", "l", "al".
fn ordering(acquire: u32, release: u32) -> &'static str {
    ["", "l", "a", "al"][(acquire << 1 | release) as usize & 3]
}

fn barrier_option(crm: u32) -> String {
    const OPTIONS: [&str; 16] =
        ["", "oshld", "oshst", "osh", "", "nshld", "nshst", "nsh", "", "ishld", "ishst", "ish", "", "ld", "st", "sy"];
    match OPTIONS[crm as usize & 15] {
        "" => imm(crm),
        name => name.into(),
    }
}

/// PRFM's `<prfop>`: PLD/PLI/PST, L1-L3, KEEP/STRM, or the number.
fn prefetch_op(rt: u32) -> String {
    let kind = match rt >> 3 {
        0 => "pld",
        1 => "pli",
        2 => "pst",
        _ => return imm(rt),
    };
    let level = (rt >> 1) & 3;
    if level == 3 {
        return imm(rt);
    }
    format!("{kind}l{}{}", level + 1, if rt & 1 == 1 { "strm" } else { "keep" })
}

/// The exclusive, ordered and RCpc loads and stores of one register: `ldxrb w0, [x1]`.
fn one_register(mnemonic: &str, size: u32, rt: u32, rn: u32) -> String {
    inst(&format!("{mnemonic}{}", size_suffix(size)), &[r(rt, size_sf(size)), base(rn)])
}

/// Single-register loads and stores: `kind` is "" (LDR), "u" (LDUR) or "t" (LDTR); `prefetch` whether PRFM exists.
fn single(size: u32, opc: u32, kind: &str, prefetch: bool, rt: u32, operand: String) -> Option<String> {
    let (base, rt_sf) = match (opc, size) {
        (0b00, _) => ("str", size_sf(size)),
        (0b01, _) => ("ldr", size_sf(size)),
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
