//! The SM5x disassembler, spelling everything as `nvdisasm -b SM53` does (checked instruction by instruction
//! against it by `tests/nvdisasm.rs`).
//!
//! One function per opcode, grouped as the table groups them; each reads its line's fields by name through
//! [`View`], so it serves every form of the opcode (register, constant buffer, immediate).

use super::{DecodeError, Inst, Instruction, decode_program};
use crate::sass::text::{self, View, float32, float64, guard, hex, listing_line, pred, reg};

/// The program as `nvdisasm -b SM53` lists it, minus the encoding comments: one line per instruction with its
/// address, dual-issue braces and guard.
pub fn listing(code: &[u8]) -> Result<String, DecodeError> {
    let program = decode_program(code)?;
    let mut out = String::new();
    let mut pair_open = false;
    for instruction in &program {
        // A zero stall with the yield bit dual-issues the instruction with the next one: nvdisasm braces the pair.
        let opens = !pair_open && instruction.control.stall == 0 && instruction.control.yield_hint;
        let (guard, body) = parts(instruction);
        out.push_str(&listing_line(instruction.offset, opens, pair_open, instruction.control, &guard, &body));
        out.push('\n');
        pair_open = opens;
    }
    Ok(out)
}

/// One instruction's text: `@P0 FADD R1, R2, R3`.
pub fn text(instruction: &Instruction<Inst>) -> String {
    match parts(instruction) {
        (guard, body) if guard.is_empty() => body,
        (guard, body) => format!("{guard} {body}"),
    }
}

fn parts(instruction: &Instruction<Inst>) -> (String, String) {
    let inst = &instruction.inst;
    let view = View {
        encoding: inst.encoding(),
        word: u128::from(inst.encode().expect("a decoded instruction encodes")),
        control: instruction.control,
        offset: instruction.offset,
    };
    let guard = inst.guard().map_or(String::new(), |(p, negated)| guard(u64::from(p), negated));
    (guard, body(&view))
}

fn body(v: &View) -> String {
    let (mnemonic, operands) = match v.encoding.opcode {
        "FADD" => fadd(v),
        "FSWZADD" => fswzadd(v),
        "FADD32I" => fadd32i(v),
        "FMUL" => fmul(v),
        "FMUL32I" => fmul32i(v),
        "FFMA" => ffma(v),
        "FFMA32I" => ffma32i(v),
        "FMNMX" => fmnmx(v),
        "FSET" => fset(v),
        "FSETP" => fsetp(v),
        "FCMP" => fcmp(v),
        "FCHK" => fchk(v),
        "MUFU" => mufu(v),
        "RRO" => rro(v),
        "DADD" => dadd(v),
        "DMUL" => dmul(v),
        "DFMA" => dfma(v),
        "DMNMX" => dmnmx(v),
        "DSETP" => dsetp(v),
        "DSET" => dset(v),
        "HADD2" => hadd2(v),
        "HMUL2" => hmul2(v),
        "HFMA2" => hfma2(v),
        "HSETP2" => hsetp2(v),
        "HSET2" => hset2(v),
        "HADD2_32I" | "HMUL2_32I" | "HFMA2_32I" => half_arithmetic_32i(v),
        "IADD" => iadd(v),
        "IADD3" => iadd3(v),
        "IADD32I" => iadd32i(v),
        "ISCADD" => iscadd(v),
        "ISCADD32I" => iscadd32i(v),
        "XMAD" => xmad(v),
        "IMUL" | "IMUL32I" | "IMAD" | "IMAD32I" => integer_multiply(v),
        "IMADSP" => imadsp(v),
        "IMNMX" => imnmx(v),
        "LEA" => lea(v),
        "POPC" => popc(v),
        "FLO" => flo(v),
        "VADD" | "VABSDIFF" | "VMNMX" | "VSHL" | "VSHR" => video(v),
        "VMAD" => vmad(v),
        "VSET" => vset(v),
        "VSETP" => vsetp(v),
        "VABSDIFF4" => vabsdiff4(v),
        "ISETP" => isetp(v),
        "ISET" => iset(v),
        "ICMP" => icmp(v),
        "SEL" => sel(v),
        "PSETP" => psetp(v),
        "CSETP" => csetp(v),
        "CSET" => cset(v),
        "PSET" => pset(v),
        "LOP" => lop(v),
        "LOP32I" => lop32i(v),
        "LOP3" => lop3(v),
        "SHL" => shl(v),
        "SHR" => shr(v),
        "SHF" => shf(v),
        "BFE" => bfe(v),
        "BFI" => bfi(v),
        "PRMT" => prmt(v),
        "F2F" => f2f(v),
        "F2I" => f2i(v),
        "I2F" => i2f(v),
        "I2I" => i2i(v),
        "MOV" => mov(v),
        "MOV32I" => mov32i(v),
        "P2R" => p2r(v),
        "R2P" => r2p(v),
        "S2R" | "CS2R" => (v.encoding.opcode.to_string(), vec![reg(v.get("rd"), 255), special_register(v.get("sr"))]),
        "LD" => ld(v),
        "ST" => st(v),
        "LDG" | "LDL" | "LDS" => load(v),
        "STG" | "STL" | "STS" => store(v),
        "LDC" => ldc(v),
        "ATOM" => atom(v),
        "ATOMS" => atoms(v),
        "RED" => red(v),
        "CCTL" => cctl(v),
        "CCTLL" => cctll(v),
        "CCTLT" => cctlt(v),
        "MEMBAR" => membar(v),
        "TEX" => tex(v),
        "TEXS" | "TLDS" => texs(v),
        "TLD" => tld(v),
        "TLD4" => tld4(v),
        "TLD4S" => tld4s(v),
        "TXD" => txd(v),
        "TXQ" => txq(v),
        "TXA" => (
            format!("TXA{}{}", v.suffix("ndv", ".NDV"), v.suffix("nodep", ".NODEP")),
            vec![reg(v.get("rd"), 255), reg(v.get("ra"), 255), hex(v.get("tex") as i64), hex(v.get("mask") as i64)],
        ),
        "STP" => (format!("STP{}", v.suffix("wait", ".WAIT")), vec![hex(v.get("imm8") as i64)]),
        "R2B" => (
            format!("R2B{}", v.choice("mode", &["", ".RESULT", ".WARP", ".INVALID"])),
            vec![hex(v.get("bar") as i64), reg(v.get("rb"), 255)],
        ),
        "TMML" => tmml(v),
        "SULD" | "SUST" | "SURED" => surface(v),
        "SUATOM" => surface_atomic(v),
        "BRA" | "JMP" => bra(v),
        "BRX" | "JMX" => brx(v),
        "CAL" | "JCAL" | "PRET" | "PLONGJMP" | "PEXIT" | "SSY" | "PBK" | "PCNT" => target_only(v),
        "GETCRSPTR" | "GETLMEMBASE" | "LEPC" => (v.encoding.opcode.to_string(), vec![reg(v.get("rd"), 255)]),
        "SETCRSPTR" | "SETLMEMBASE" => (v.encoding.opcode.to_string(), vec![reg(v.get("ra"), 255)]),
        "RTT" => (format!("RTT{}", v.choice("mode", &["", ".TERMINATE", ".FALLTHROUGH", ".PREEMPTED"])), Vec::new()),
        "SAM" | "RAM" => (v.encoding.opcode.to_string(), Vec::new()),
        "SYNC" | "BRK" | "CONT" | "RET" | "LONGJMP" | "EXIT" | "KIL" => flow(v),
        "BPT" => bpt(v),
        // nvdisasm names only the enabling form.
        "IDE" => (format!("IDE{}", if v.flag("disable") { "" } else { ".EN" }), vec![hex(v.get("imm16") as i64)]),
        "NOP" => nop(v),
        "DEPBAR" => depbar(v),
        "BAR" => bar(v),
        "B2R" => b2r(v),
        "VOTE" => vote(v),
        "SHFL" => shfl(v),
        "ALD" | "AST" => attribute(v),
        "IPA" => ipa(v),
        "OUT" => out(v),
        "ISBERD" => isberd(v),
        "PIXLD" => pixld(v),
        "AL2P" => al2p(v),
        opcode => (format!("?{opcode}"), Vec::new()),
    };
    if operands.is_empty() { mnemonic } else { format!("{mnemonic} {}", operands.join(", ")) }
}

type Parts = (String, Vec<String>);

// ---------------------------------------------------------------------------------------------------------------
// Names of field values, as nvdisasm spells them.

const ROUND: &[&str] = &["", ".RM", ".RP", ".RZ"];
const FTZ_FMZ: &[&str] = &["", ".FTZ", ".FMZ", ".INVALIDFMZ3"];
const FLOAT_CMP: &[&str] = &[
    ".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".NUM", ".NAN", ".LTU", ".EQU", ".LEU", ".GTU", ".NEU", ".GEU",
    ".T",
];
const INT_CMP: &[&str] = &[".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".T"];
const BOOL_OP: &[&str] = &[".AND", ".OR", ".XOR", ".INVALIDBOP3"];
const CC_TEST: &[&str] = &[
    "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T", "OFF", "LO",
    "SFF", "LS", "HI", "SFT", "HS", "OFT", "CSM_TA", "CSM_TR", "CSM_MX", "FCSM_TA", "FCSM_TR", "FCSM_MX", "RLE", "RGT",
];
const HALF_SWIZZLE: &[&str] = &["", ".F32", ".H0_H0", ".H1_H1"];
const HALF_OUTPUT: &[&str] = &["", ".F32", ".MRG_H0", ".MRG_H1"];

// ---------------------------------------------------------------------------------------------------------------
// Operands.

/// How an immediate second source is read.
#[derive(Clone, Copy)]
enum Imm {
    /// The top 20 bits of an FP32 value (bit 56 is the sign).
    F32,
    /// The top 20 bits of an FP64 value.
    F64,
    /// A 20-bit two's-complement integer.
    Signed,
    /// A 20-bit unsigned integer.
    Unsigned,
}

/// The operand form of the line: the last part of its name (`reg`, `cbuf`, `imm`, `cbuf_c`, `CAS`).
fn form(v: &View) -> &'static str {
    v.encoding.form().rsplit('.').next().unwrap_or("")
}

fn register_operand(v: &View, field: &str, slot: u32, neg: bool, abs: bool, suffix: &str) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    out.push_str(&reg(v.get(field), 255));
    out.push_str(suffix);
    if abs {
        out.push('|');
    }
    if v.control.reuses(slot) {
        out.push_str(".reuse");
    }
    out
}

fn cbuf(v: &View) -> String {
    format!("c[{:#x}][{}]", v.get("cb_bank"), hex(v.signed("cb_offset") * 4))
}

fn with_modifiers(operand: String, neg: bool, abs: bool) -> String {
    match (neg, abs) {
        (false, false) => operand,
        (true, false) => format!("-{operand}"),
        (false, true) => format!("|{operand}|"),
        (true, true) => format!("-|{operand}|"),
    }
}

fn immediate(v: &View, kind: Imm) -> String {
    let raw = v.get("imm20");
    match kind {
        Imm::F32 => float32(super::float_immediate(raw)),
        Imm::F64 => float64(super::double_immediate(raw)),
        Imm::Signed => hex(v.signed("imm20")),
        Imm::Unsigned => hex(raw as i64),
    }
}

/// Immediates carry their modifiers as suffixes (`1.NEG`, `0x2.INV`), the way nvdisasm prints them.
fn immediate_with(v: &View, kind: Imm, neg: bool, abs: bool) -> String {
    format!("{}{}{}", immediate(v, kind), if neg { ".NEG" } else { "" }, if abs { ".ABS" } else { "" })
}

fn src_a(v: &View) -> String {
    register_operand(v, "ra", 0, v.flag("neg_a"), v.flag("abs_a"), "")
}

/// The reuse-flag slot of the second source: the adders read it through the third port.
fn slot_b(v: &View) -> u32 {
    if matches!(v.encoding.opcode, "FADD" | "DADD" | "HADD2") { 2 } else { 1 }
}

/// The second source in whatever form the line has.
fn src_b(v: &View, kind: Imm) -> String {
    let (neg, abs) = (v.flag("neg_b"), v.flag("abs_b"));
    match form(v) {
        "cbuf" => with_modifiers(cbuf(v), neg, abs),
        "imm" => immediate_with(v, kind, neg, abs),
        _ => register_operand(v, "rb", slot_b(v), neg, abs, ""),
    }
}

/// The third source: `rc`, or the constant buffer in `cbuf_c` forms.
fn src_c(v: &View) -> String {
    let neg = v.flag("neg_c");
    if form(v) == "cbuf_c" { with_modifiers(cbuf(v), neg, false) } else { register_operand(v, "rc", 2, neg, false, "") }
}

fn dst(v: &View) -> String {
    format!("{}{}", reg(v.get("rd"), 255), v.suffix("cc", ".CC"))
}

fn pred_src(v: &View, field: &str) -> String {
    pred(v.get(field), v.flag(&format!("{field}_not")))
}

fn pred_dst(v: &View, field: &str) -> String {
    pred(v.get(field), false)
}

/// Operands printed only when they are not the default: an optional predicate destination.
fn optional_pred(v: &View, field: &str, operands: &mut Vec<String>) {
    if v.get(field) != 7 {
        operands.push(pred_dst(v, field));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// 32-bit floating point.

fn fadd(v: &View) -> Parts {
    let m = format!("FADD{}{}{}", v.suffix("ftz", ".FTZ"), v.choice("rnd", ROUND), v.suffix("sat", ".SAT"));
    (m, vec![dst(v), src_a(v), src_b(v, Imm::F32)])
}

fn fswzadd(v: &View) -> Parts {
    let m = format!("FSWZADD{}{}{}", v.suffix("ftz", ".FTZ"), v.choice("rnd", ROUND), v.suffix("ndv", ".NDV"));
    let swizzle = crate::sass::swizzle_add::swizzle_text(crate::sass::Isa::Sm5x, v.get("swizzle") as u32);
    (m, vec![dst(v), src_a(v), register_operand(v, "rb", 1, false, false, ""), swizzle])
}

fn fadd32i(v: &View) -> Parts {
    let b = format!("{}{}{}", float32(v.get("imm32") as u32), v.suffix("neg_b", ".NEG"), v.suffix("abs_b", ".ABS"));
    (format!("FADD32I{}", v.suffix("ftz", ".FTZ")), vec![dst(v), src_a(v), b])
}

fn fmul(v: &View) -> Parts {
    const SCALE: &[&str] = &["", ".D2", ".D4", ".D8", ".M8", ".M4", ".M2", ".INVALIDSCALE37"];
    let m = format!(
        "FMUL{}{}{}{}",
        v.choice("fmz", FTZ_FMZ),
        v.choice("scale", SCALE),
        v.choice("rnd", ROUND),
        v.suffix("sat", ".SAT")
    );
    (m, vec![dst(v), src_a(v), src_b(v, Imm::F32)])
}

fn fmul32i(v: &View) -> Parts {
    let m = format!("FMUL32I{}{}", v.choice("fmz", FTZ_FMZ), v.suffix("sat", ".SAT"));
    (m, vec![dst(v), src_a(v), float32(v.get("imm32") as u32)])
}

fn ffma(v: &View) -> Parts {
    let m = format!("FFMA{}{}{}", v.choice("fmz", FTZ_FMZ), v.choice("rnd", ROUND), v.suffix("sat", ".SAT"));
    (m, vec![dst(v), src_a(v), src_b(v, Imm::F32), src_c(v)])
}

/// FFMA32I: the addend is the destination register.
fn ffma32i(v: &View) -> Parts {
    let m = format!("FFMA32I{}{}", v.choice("fmz", FTZ_FMZ), v.suffix("sat", ".SAT"));
    let c = register_operand(v, "rd", 2, v.flag("neg_c"), false, "");
    (m, vec![dst(v), src_a(v), float32(v.get("imm32") as u32), c])
}

fn fmnmx(v: &View) -> Parts {
    (format!("FMNMX{}", v.suffix("ftz", ".FTZ")), vec![dst(v), src_a(v), src_b(v, Imm::F32), pred_src(v, "ps")])
}

fn fset(v: &View) -> Parts {
    let m = format!(
        "FSET{}{}{}{}",
        v.suffix("bf", ".BF"),
        v.choice("cmp", FLOAT_CMP),
        v.suffix("ftz", ".FTZ"),
        v.choice("bop", BOOL_OP)
    );
    (m, vec![dst(v), src_a(v), src_b(v, Imm::F32), pred_src(v, "ps")])
}

fn fsetp(v: &View) -> Parts {
    let m = format!("FSETP{}{}{}", v.choice("cmp", FLOAT_CMP), v.suffix("ftz", ".FTZ"), v.choice("bop", BOOL_OP));
    (m, vec![pred_dst(v, "pd"), pred_dst(v, "pq"), src_a(v), src_b(v, Imm::F32), pred_src(v, "ps")])
}

fn fcmp(v: &View) -> Parts {
    let m = format!("FCMP{}{}", v.choice("cmp", FLOAT_CMP), v.suffix("ftz", ".FTZ"));
    (m, vec![dst(v), src_a(v), src_b(v, Imm::F32), src_c(v)])
}

fn fchk(v: &View) -> Parts {
    let mode = match v.get("mode") {
        0 => ".DIVIDE".to_string(),
        other => format!(".INVALIDCHKMODE{other}"),
    };
    (format!("FCHK{mode}"), vec![pred_dst(v, "pd"), src_a(v), src_b(v, Imm::F32)])
}

fn mufu(v: &View) -> Parts {
    const FUNC: &[&str] = &[".COS", ".SIN", ".EX2", ".LG2", ".RCP", ".RSQ", ".RCP64H", ".RSQ64H", ".SQRT"];
    (format!("MUFU{}{}", v.choice("func", FUNC), v.suffix("sat", ".SAT")), vec![reg(v.get("rd"), 255), src_a(v)])
}

fn rro(v: &View) -> Parts {
    let m = if v.flag("mode") { "RRO.EX2" } else { "RRO.SINCOS" };
    (m.to_string(), vec![reg(v.get("rd"), 255), src_b(v, Imm::F32)])
}

// ---------------------------------------------------------------------------------------------------------------
// 64-bit floating point.

fn dadd(v: &View) -> Parts {
    (format!("DADD{}", v.choice("rnd", ROUND)), vec![dst(v), src_a(v), src_b(v, Imm::F64)])
}

fn dmul(v: &View) -> Parts {
    (format!("DMUL{}", v.choice("rnd", ROUND)), vec![dst(v), src_a(v), src_b(v, Imm::F64)])
}

fn dfma(v: &View) -> Parts {
    (format!("DFMA{}", v.choice("rnd", ROUND)), vec![dst(v), src_a(v), src_b(v, Imm::F64), src_c(v)])
}

fn dmnmx(v: &View) -> Parts {
    ("DMNMX".into(), vec![dst(v), src_a(v), src_b(v, Imm::F64), pred_src(v, "ps")])
}

fn dsetp(v: &View) -> Parts {
    let m = format!("DSETP{}{}", v.choice("cmp", FLOAT_CMP), v.choice("bop", BOOL_OP));
    (m, vec![pred_dst(v, "pd"), pred_dst(v, "pq"), src_a(v), src_b(v, Imm::F64), pred_src(v, "ps")])
}

fn dset(v: &View) -> Parts {
    let m = format!("DSET{}{}{}", v.suffix("bf", ".BF"), v.choice("cmp", FLOAT_CMP), v.choice("bop", BOOL_OP));
    (m, vec![dst(v), src_a(v), src_b(v, Imm::F64), pred_src(v, "ps")])
}

// ---------------------------------------------------------------------------------------------------------------
// Pairs of halves.

fn half_operand(v: &View, field: &str, slot: u32, neg: &str, abs: &str, swizzle: &str) -> String {
    let suffix = HALF_SWIZZLE.get(v.get(swizzle) as usize).copied().unwrap_or("");
    register_operand(v, field, slot, v.flag(neg), v.flag(abs), suffix)
}

/// The two 10-bit immediates of the `imm` forms: each is a sign and the top nine bits of an FP16 value.
fn half_immediates(v: &View) -> [String; 2] {
    let half = |raw: u64| text::float16(((raw >> 9) << 15 | (raw & 0x1ff) << 6) as u16);
    [half(v.get("imm_hi")), half(v.get("imm_lo"))]
}

/// The second source of a pair instruction: two immediate halves, a constant (which has no swizzle), or a register.
fn half_b(v: &View) -> Vec<String> {
    match form(v) {
        "imm" => half_immediates(v).to_vec(),
        "cbuf" => vec![with_modifiers(cbuf(v), v.flag("neg_b"), v.flag("abs_b"))],
        _ => vec![half_operand(v, "rb", slot_b(v), "neg_b", "abs_b", "swz_b")],
    }
}

fn hadd2(v: &View) -> Parts {
    let m = format!("HADD2{}{}{}", v.choice("out", HALF_OUTPUT), v.suffix("ftz", ".FTZ"), v.suffix("sat", ".SAT"));
    let mut operands = vec![reg(v.get("rd"), 255), half_operand(v, "ra", 0, "neg_a", "abs_a", "swz_a")];
    operands.extend(half_b(v));
    (m, operands)
}

fn hmul2(v: &View) -> Parts {
    let m = format!("HMUL2{}{}{}", v.choice("out", HALF_OUTPUT), v.choice("fmz", FTZ_FMZ), v.suffix("sat", ".SAT"));
    let mut operands = vec![reg(v.get("rd"), 255), half_operand(v, "ra", 0, "neg_a", "abs_a", "swz_a")];
    operands.extend(half_b(v));
    (m, operands)
}

fn hfma2(v: &View) -> Parts {
    let m = format!("HFMA2{}{}{}", v.choice("out", HALF_OUTPUT), v.choice("fmz", FTZ_FMZ), v.suffix("sat", ".SAT"));
    let mut operands = vec![reg(v.get("rd"), 255), half_operand(v, "ra", 0, "neg_a", "abs_a", "swz_a")];
    operands.extend(half_b(v));
    operands.push(if form(v) == "cbuf_c" {
        with_modifiers(cbuf(v), v.flag("neg_c"), false)
    } else {
        half_operand(v, "rc", 2, "neg_c", "abs_c", "swz_c")
    });
    (m, operands)
}

/// HADD2_32I, HMUL2_32I and HFMA2_32I: the immediate's two halves, the high one first; HFMA2_32I adds the
/// destination register.
fn half_arithmetic_32i(v: &View) -> Parts {
    let opcode = v.encoding.opcode;
    let modifiers = if v.has("fmz") { v.choice("fmz", FTZ_FMZ) } else { v.suffix("ftz", ".FTZ").to_string() };
    let m = format!("{opcode}{modifiers}{}", v.suffix("sat", ".SAT"));
    let imm = v.get("imm32");
    let mut operands = vec![
        reg(v.get("rd"), 255),
        half_operand(v, "ra", 0, "neg_a", "abs_a", "swz_a"),
        text::float16((imm >> 16) as u16),
        text::float16(imm as u16),
    ];
    if opcode == "HFMA2_32I" {
        operands.push(register_operand(v, "rd", 2, v.flag("neg_c"), false, ""));
    }
    (m, operands)
}

fn hset2(v: &View) -> Parts {
    let m = format!(
        "HSET2{}{}{}{}",
        v.suffix("bf", ".BF"),
        v.choice("cmp", FLOAT_CMP),
        v.suffix("ftz", ".FTZ"),
        v.choice("bop", BOOL_OP)
    );
    let mut operands = vec![reg(v.get("rd"), 255), half_operand(v, "ra", 0, "neg_a", "abs_a", "swz_a")];
    operands.extend(half_b(v));
    operands.push(pred_src(v, "ps"));
    (m, operands)
}

fn hsetp2(v: &View) -> Parts {
    let m = format!(
        "HSETP2{}{}{}{}",
        v.choice("cmp", FLOAT_CMP),
        v.suffix("h_and", ".H_AND"),
        v.suffix("ftz", ".FTZ"),
        v.choice("bop", BOOL_OP)
    );
    let mut operands = vec![pred_dst(v, "pd"), pred_dst(v, "pq"), half_operand(v, "ra", 0, "neg_a", "abs_a", "swz_a")];
    operands.extend(half_b(v));
    operands.push(pred_src(v, "ps"));
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Integer arithmetic.

fn iadd(v: &View) -> Parts {
    // Both negations at once is the .PO (plus one) form.
    let po = v.flag("neg_a") && v.flag("neg_b");
    let m = format!("IADD{}{}{}", if po { ".PO" } else { "" }, v.suffix("sat", ".SAT"), v.suffix("x", ".X"));
    let a = register_operand(v, "ra", 0, v.flag("neg_a") && !po, false, "");
    let b = match form(v) {
        "cbuf" => with_modifiers(cbuf(v), v.flag("neg_b") && !po, false),
        "imm" => immediate_with(v, Imm::Signed, v.flag("neg_b") && !po, false),
        _ => register_operand(v, "rb", 1, v.flag("neg_b") && !po, false, ""),
    };
    (m, vec![dst(v), a, b])
}

fn iadd3(v: &View) -> Parts {
    const SHIFT: &[&str] = &["", ".RS", ".LS", ".INVALIDSHIFT3"];
    const HALF: &[&str] = &["", ".H0", ".H1", ".INVALIDHALF3"];
    let half = |name: &str| HALF[v.get(name) as usize];
    let m = format!("IADD3{}{}", v.choice("shift", SHIFT), v.suffix("x", ".X"));
    let a = register_operand(v, "ra", 0, v.flag("neg_a"), false, half("half_a"));
    let b = match form(v) {
        "cbuf" => with_modifiers(cbuf(v), v.flag("neg_b"), false),
        "imm" => immediate_with(v, Imm::Unsigned, v.flag("neg_b"), false),
        _ => register_operand(v, "rb", 1, v.flag("neg_b"), false, half("half_b")),
    };
    let c = register_operand(v, "rc", 2, v.flag("neg_c"), false, half("half_c"));
    (m, vec![dst(v), a, b, c])
}

fn iadd32i(v: &View) -> Parts {
    let m = format!("IADD32I{}{}", v.suffix("sat", ".SAT"), v.suffix("x", ".X"));
    (m, vec![dst(v), src_a(v), hex(v.get("imm32") as u32 as i32 as i64)])
}

fn iscadd(v: &View) -> Parts {
    let po = v.flag("neg_a") && v.flag("neg_b");
    let a = register_operand(v, "ra", 0, v.flag("neg_a") && !po, false, "");
    let b = match form(v) {
        "cbuf" => with_modifiers(cbuf(v), v.flag("neg_b") && !po, false),
        "imm" => immediate_with(v, Imm::Signed, v.flag("neg_b") && !po, false),
        _ => register_operand(v, "rb", 1, v.flag("neg_b") && !po, false, ""),
    };
    (format!("ISCADD{}", if po { ".PO" } else { "" }), vec![dst(v), a, b, hex(v.get("shift") as i64)])
}

fn iscadd32i(v: &View) -> Parts {
    let imm = hex(v.get("imm32") as u32 as i32 as i64);
    ("ISCADD32I".into(), vec![dst(v), src_a(v), imm, hex(v.get("shift") as i64)])
}

fn xmad(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".CLO", ".CHI", ".CSFU", ".CBCC", ".???5", ".???6", ".???7"];
    let signs = match (v.flag("signed_a"), v.flag("signed_b")) {
        (false, false) => "",
        (true, false) => ".S16.U16",
        (false, true) => ".U16.S16",
        (true, true) => ".S16.S16",
    };
    let m = format!(
        "XMAD{signs}{}{}{}{}",
        v.suffix("psl", ".PSL"),
        v.choice("mode", MODE),
        v.suffix("mrg", ".MRG"),
        v.suffix("x", ".X")
    );
    let h1 = |name: &str| if v.flag(name) { ".H1" } else { "" };
    let a = register_operand(v, "ra", 0, false, false, h1("half_a"));
    let (b, c) = match form(v) {
        // XMAD alone spells a constant-buffer operand with a space, to make room for the half selector.
        "cbuf" => (
            format!("c[{:#x}] [{}]{}", v.get("cb_bank"), hex(v.signed("cb_offset") * 4), h1("half_b")),
            register_operand(v, "rc", 2, false, false, ""),
        ),
        "cbuf_c" => (register_operand(v, "rb", 1, false, false, h1("half_b")), cbuf(v)),
        // A signed b's immediate is printed signed.
        "imm" => {
            let imm = v.get("imm16");
            let b = if v.flag("signed_b") { hex(imm as u16 as i16 as i64) } else { hex(imm as i64) };
            (b, register_operand(v, "rc", 2, false, false, ""))
        }
        _ => (register_operand(v, "rb", 1, false, false, h1("half_b")), register_operand(v, "rc", 2, false, false, "")),
    };
    (m, vec![dst(v), a, b, c])
}

fn imnmx(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".XLO", ".XMED", ".XHI"];
    let m = format!("IMNMX{}{}", if v.flag("signed") { "" } else { ".U32" }, v.choice("mode", MODE));
    (m, vec![dst(v), src_a(v), src_b(v, Imm::Signed), pred_src(v, "ps")])
}

fn lea(v: &View) -> Parts {
    let hi = v.encoding.form().starts_with("HI");
    let mut operands = Vec::new();
    optional_pred(v, "pd", &mut operands);
    operands.push(dst(v));
    operands.push(src_a(v));
    operands.push(src_b(v, Imm::Signed));
    if hi {
        operands.push(register_operand(v, "rc", 2, false, false, ""));
    }
    if v.get("shift") != 0 {
        operands.push(hex(v.get("shift") as i64));
    }
    (format!("LEA{}{}", if hi { ".HI" } else { "" }, v.suffix("x", ".X")), operands)
}

fn inverted_b(v: &View) -> String {
    let inv = v.flag("inv_b");
    match form(v) {
        "cbuf" => format!("{}{}", if inv { "~" } else { "" }, cbuf(v)),
        "imm" => format!("{}{}", immediate(v, Imm::Signed), if inv { ".INV" } else { "" }),
        _ => format!("{}{}", if inv { "~" } else { "" }, register_operand(v, "rb", 1, false, false, "")),
    }
}

fn popc(v: &View) -> Parts {
    ("POPC".into(), vec![reg(v.get("rd"), 255), inverted_b(v)])
}

fn flo(v: &View) -> Parts {
    let m = format!("FLO{}{}", if v.flag("signed") { "" } else { ".U32" }, v.suffix("sh", ".SH"));
    (m, vec![dst(v), inverted_b(v)])
}

// The video instructions. a and b are parts of their registers, named by their type (`U8`, `S16`...) and a
// register suffix (`.B1`, `.H1`); an immediate b is 16 bits. The types are left out when both are the signed word
// (an immediate, signed or a shift amount, counts as one).

const VIDEO_MODE: &[&str] = &[".MRG_16H", ".MRG_16L", ".MRG_8B0", ".MRG_8B2", ".ACC", ".MIN", ".MAX", ""];

/// A register part's type and suffix from its selector (bytes 0-3, halves 4-5, the word 6).
fn video_part(signed: bool, selector: u64) -> (String, &'static str) {
    let sign = if signed { "S" } else { "U" };
    match selector {
        0 => (format!("{sign}8"), ""),
        1..=3 => (format!("{sign}8"), [".B1", ".B2", ".B3"][selector as usize - 1]),
        4 => (format!("{sign}16"), ""),
        5 => (format!("{sign}16"), ".H1"),
        6 => (format!("{sign}32"), ""),
        _ => (format!("INVALIDSEL{}", if signed { 7 } else { 6 }), ""),
    }
}

/// The types' text and the operands a and b (with a's negation, if any, for VADD and VMAD).
fn video_sources(v: &View, neg_a: bool, neg_b: bool) -> (String, String, String) {
    let shift = matches!(v.encoding.opcode, "VSHL" | "VSHR");
    let (type_a, suffix_a) = video_part(v.flag("signed_a"), v.get("sel_a"));
    let a = register_operand(v, "ra", 0, neg_a, false, suffix_a);
    let b_signed = v.flag("signed_b") && !shift;
    let (type_b, b, b_default) = if form(v) == "imm" {
        // A signed immediate prints as a negative number, but where a minus sign means negation (VADD, VMAD).
        let imm = if b_signed && !v.has("neg_b") && v.encoding.opcode != "VMAD" {
            hex(v.signed("imm16"))
        } else {
            format!("{}{:#x}", if neg_b { "-" } else { "" }, v.get("imm16"))
        };
        (format!("{}16", if b_signed { "S" } else { "U" }), imm, b_signed || shift)
    } else {
        let (type_b, suffix_b) = video_part(b_signed, v.get("sel_b"));
        let b = register_operand(v, "rb", 1, neg_b, false, suffix_b);
        (type_b, b, v.get("sel_b") == 6 && (b_signed || shift))
    };
    let types = if type_a == "S32" && b_default { String::new() } else { format!(".{type_a}.{type_b}") };
    (types, a, b)
}

/// `VADD`, `VABSDIFF`, `VMNMX`, `VSHL`, `VSHR`: `[.UD|.SD]` (VABSDIFF names a signed result, the others an
/// unsigned one), the types, `.PO` (VADD's two negations at once: plus one), `.MX` (VMNMX's maximum), `.W` (a
/// shift's wrapped amount), `.SAT`, the mode.
fn video(v: &View) -> Parts {
    let signedness = match v.encoding.opcode {
        "VABSDIFF" => v.suffix("sd", ".SD"),
        _ if v.flag("sd") => "",
        _ => ".UD",
    };
    let plus_one = v.flag("neg_a") && v.flag("neg_b");
    let (types, a, b) = video_sources(v, v.flag("neg_a") && !plus_one, v.flag("neg_b") && !plus_one);
    let m = format!(
        "{}{signedness}{types}{}{}{}{}{}",
        v.encoding.opcode,
        if plus_one { ".PO" } else { "" },
        v.suffix("mx", ".MX"),
        v.suffix("wrap", ".W"),
        v.suffix("sat", ".SAT"),
        v.choice("mode", VIDEO_MODE)
    );
    (m, vec![dst(v), a, b, register_operand(v, "rc", 2, false, false, "")])
}

/// `VMAD[types][.PO][.SHR_7|.SHR_15][.SAT] Rd, [-]a, b, [-]c`: both negations at once are `.PO` (plus one).
fn vmad(v: &View) -> Parts {
    const SHIFT: &[&str] = &["", ".SHR_7", ".SHR_15", ".INVALIDVMADSCALE3"];
    let plus_one = v.flag("neg_ab") && v.flag("neg_c");
    let (types, a, b) = video_sources(v, v.flag("neg_ab") && !plus_one, false);
    let m = format!(
        "VMAD{types}{}{}{}",
        if plus_one { ".PO" } else { "" },
        v.choice("shift", SHIFT),
        v.suffix("sat", ".SAT")
    );
    let c = register_operand(v, "rc", 2, v.flag("neg_c") && !plus_one, false, "");
    (m, vec![dst(v), a, b, c])
}

fn vset(v: &View) -> Parts {
    let (types, a, b) = video_sources(v, false, false);
    let m = format!("VSET{}{types}{}", v.choice("cmp", INT_CMP), v.choice("mode", VIDEO_MODE));
    (m, vec![dst(v), a, b, register_operand(v, "rc", 2, false, false, "")])
}

fn vsetp(v: &View) -> Parts {
    let (types, a, b) = video_sources(v, false, false);
    let m = format!("VSETP{}{types}{}", v.choice("cmp", INT_CMP), v.choice("bop", BOOL_OP));
    (m, vec![pred_dst(v, "pd"), pred_dst(v, "pq"), a, b, pred_src(v, "ps")])
}

/// `VABSDIFF4[.SD][types][.SAT][.ACC]`: the types (bytes) are left out when both are signed.
fn vabsdiff4(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".ACC", ".INVALIDRED2", ".INVALIDRED3"];
    let byte = |signed: bool| if signed { "S8" } else { "U8" };
    let (signed_a, signed_b) = (v.flag("signed_a"), v.flag("signed_b"));
    let types = if signed_a && signed_b { String::new() } else { format!(".{}.{}", byte(signed_a), byte(signed_b)) };
    let m = format!("VABSDIFF4{}{types}{}{}", v.suffix("sd", ".SD"), v.suffix("sat", ".SAT"), v.choice("mode", MODE));
    let (a, b) = (src_a(v), register_operand(v, "rb", 1, false, false, ""));
    (m, vec![dst(v), a, b, register_operand(v, "rc", 2, false, false, "")])
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison and selection.

fn isetp(v: &View) -> Parts {
    let m = format!(
        "ISETP{}{}{}{}",
        v.choice("cmp", INT_CMP),
        if v.flag("signed") { "" } else { ".U32" },
        v.suffix("x", ".X"),
        v.choice("bop", BOOL_OP)
    );
    (m, vec![pred_dst(v, "pd"), pred_dst(v, "pq"), src_a(v), src_b(v, Imm::Signed), pred_src(v, "ps")])
}

fn iset(v: &View) -> Parts {
    let m = format!(
        "ISET{}{}{}{}{}",
        v.suffix("bf", ".BF"),
        v.choice("cmp", INT_CMP),
        if v.flag("signed") { "" } else { ".U32" },
        v.suffix("x", ".X"),
        v.choice("bop", BOOL_OP)
    );
    (m, vec![dst(v), src_a(v), src_b(v, Imm::Signed), pred_src(v, "ps")])
}

fn icmp(v: &View) -> Parts {
    let m = format!("ICMP{}{}", v.choice("cmp", INT_CMP), if v.flag("signed") { "" } else { ".U32" });
    (m, vec![dst(v), src_a(v), src_b(v, Imm::Signed), src_c(v)])
}

fn sel(v: &View) -> Parts {
    ("SEL".into(), vec![dst(v), src_a(v), src_b(v, Imm::Signed), pred_src(v, "ps")])
}

fn psetp(v: &View) -> Parts {
    let m = format!("PSETP{}{}", v.choice("bop_ab", BOOL_OP), v.choice("bop", BOOL_OP));
    (m, vec![pred_dst(v, "pd"), pred_dst(v, "pq"), pred_src(v, "pa"), pred_src(v, "pb"), pred_src(v, "ps")])
}

fn cset(v: &View) -> Parts {
    let m = format!("CSET{}.{}{}", v.suffix("bf", ".BF"), v.choice("cc_test", CC_TEST), v.choice("bop", BOOL_OP));
    (m, vec![dst(v), "CC".into(), pred_src(v, "ps")])
}

fn pset(v: &View) -> Parts {
    let m = format!("PSET{}{}{}", v.suffix("bf", ".BF"), v.choice("bop_ab", BOOL_OP), v.choice("bop", BOOL_OP));
    (m, vec![dst(v), pred_src(v, "pa"), pred_src(v, "pb"), pred_src(v, "ps")])
}

fn csetp(v: &View) -> Parts {
    let m = format!("CSETP.{}{}", v.choice("cc_test", CC_TEST), v.choice("bop", BOOL_OP));
    (m, vec![pred_dst(v, "pd"), pred_dst(v, "pq"), "CC".into(), pred_src(v, "ps")])
}

// ---------------------------------------------------------------------------------------------------------------
// Logic, shifts and bit fields.

const PRED_OP: &[&str] = &["", ".T", ".Z", ".NZ"];

fn lop(v: &View) -> Parts {
    const OP: &[&str] = &[".AND", ".OR", ".XOR", ".PASS_B"];
    let m = format!("LOP{}{}{}", v.choice("op", OP), v.suffix("x", ".X"), v.choice("pred_op", PRED_OP));
    let mut operands = Vec::new();
    if v.get("pd") != 7 || v.get("pred_op") != 0 {
        operands.push(pred_dst(v, "pd"));
    }
    let a = format!("{}{}", if v.flag("inv_a") { "~" } else { "" }, register_operand(v, "ra", 0, false, false, ""));
    operands.extend([dst(v), a, inverted_b(v)]);
    (m, operands)
}

/// IMUL, IMUL32I, IMAD and IMAD32I: the operand types, omitted when both are signed; a 32-bit immediate prints
/// signed; the multiply-adds' negations (of a, of c, or both: .PO) and their addend (IMAD32I's is rd).
fn integer_multiply(v: &View) -> Parts {
    let types = match (v.flag("signed_a"), v.flag("signed_b")) {
        (true, true) => "",
        (true, false) => ".S32.U32",
        (false, true) => ".U32.S32",
        (false, false) => ".U32.U32",
    };
    let plus_one = v.flag("neg_ab") && v.flag("neg_c");
    let m = format!(
        "{}{types}{}{}{}{}",
        v.encoding.opcode,
        v.suffix("hi", ".HI"),
        v.suffix("x", ".X"),
        v.suffix("sat", ".SAT"),
        if plus_one { ".PO" } else { "" }
    );
    let a = register_operand(v, "ra", 0, v.flag("neg_ab") && !plus_one, false, "");
    let b = if v.has("imm32") { hex(i64::from(v.get("imm32") as u32 as i32)) } else { src_b(v, Imm::Signed) };
    let mut operands = vec![dst(v), a, b];
    if v.encoding.opcode.starts_with("IMAD") {
        let c_field = if v.has("rc") { "rc" } else { "rd" };
        let c = if form(v) == "cbuf_c" {
            cbuf(v)
        } else {
            register_operand(v, c_field, 2, v.flag("neg_c") && !plus_one, false, "")
        };
        operands.push(c);
    }
    (m, operands)
}

/// IMADSP: its selectors of a, b and c; c's signedness is a's or b's.
fn imadsp(v: &View) -> Parts {
    const A: &[&str] = &[".U32", ".S32", ".U24", ".S24", ".U16H0", ".S16H0", ".U16H1", ".S16H1"];
    const B: &[&str] = &[".U24", ".S24", ".U16H0", ".S16H0"];
    const C: &[&str] = &["32", "24", "16H0", "???3"];
    let signed_c = (v.get("a_sel") | v.get("b_sel")) & 1 == 1;
    let m = format!(
        "IMADSP{}{}.{}{}",
        v.choice("a_sel", A),
        v.choice("b_sel", B),
        if signed_c { "S" } else { "U" },
        v.choice("c_sel", C)
    );
    (m, vec![dst(v), src_a(v), src_b(v, Imm::Signed), src_c(v)])
}

fn lop32i(v: &View) -> Parts {
    const OP: &[&str] = &[".AND", ".OR", ".XOR", ".PASS_B"];
    let m = format!("LOP32I{}{}", v.choice("op", OP), v.suffix("x", ".X"));
    let a = format!("{}{}", if v.flag("inv_a") { "~" } else { "" }, register_operand(v, "ra", 0, false, false, ""));
    let b = format!("{}{}", hex(v.get("imm32") as i64), v.suffix("inv_b", ".INV"));
    (m, vec![dst(v), a, b])
}

fn lop3(v: &View) -> Parts {
    let m = format!("LOP3.LUT{}{}", v.suffix("x", ".X"), v.choice("pred_op", PRED_OP));
    let mut operands = Vec::new();
    if v.get("pd") != 7 && v.has("pd") || v.get("pred_op") != 0 {
        operands.push(pred_dst(v, "pd"));
    }
    operands.extend([dst(v), src_a(v), src_b(v, Imm::Signed), src_c(v), hex(v.get("lut") as i64)]);
    (m, operands)
}

fn shl(v: &View) -> Parts {
    (format!("SHL{}{}", v.suffix("w", ".W"), v.suffix("x", ".X")), vec![dst(v), src_a(v), src_b(v, Imm::Signed)])
}

fn shr(v: &View) -> Parts {
    const X: &[&str] = &["", ".INVALIDSHRXMODE1", ".X", ".XHI"];
    let m = format!(
        "SHR{}{}{}{}",
        if v.flag("signed") { "" } else { ".U32" },
        v.suffix("w", ".W"),
        v.suffix("brev", ".BREV"),
        v.choice("x", X)
    );
    (m, vec![dst(v), src_a(v), src_b(v, Imm::Signed)])
}

fn shf(v: &View) -> Parts {
    const TYPE: &[&str] = &["", ".INVALIDMAXSHIFT1", ".U64", ".S64"];
    const X: &[&str] = &["", ".HI", ".X", ".XHI"];
    let direction = if v.encoding.form().starts_with('L') { "L" } else { "R" };
    let m = format!("SHF.{direction}{}{}{}", v.suffix("w", ".W"), v.choice("ty", TYPE), v.choice("x", X));
    let b = match form(v) {
        "imm" => hex(v.get("imm6") as i64),
        _ => register_operand(v, "rb", 1, false, false, ""),
    };
    (m, vec![dst(v), src_a(v), b, register_operand(v, "rc", 2, false, false, "")])
}

fn bfe(v: &View) -> Parts {
    let m = format!("BFE{}{}", if v.flag("signed") { "" } else { ".U32" }, v.suffix("brev", ".BREV"));
    (m, vec![dst(v), src_a(v), src_b(v, Imm::Signed)])
}

fn bfi(v: &View) -> Parts {
    ("BFI".into(), vec![dst(v), src_a(v), src_b(v, Imm::Signed), src_c(v)])
}

fn prmt(v: &View) -> Parts {
    const MODE: &[&str] = &[
        "", ".F4E", ".B4E", ".RC8", ".ECL", ".ECR", ".RC16", ".???7", ".???8", ".???9", ".???10", ".???11", ".???12",
        ".???13", ".???14", ".???15",
    ];
    (format!("PRMT{}", v.choice("mode", MODE)), vec![reg(v.get("rd"), 255), src_a(v), src_b(v, Imm::Signed), src_c(v)])
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions and moves.

const FLOAT_TYPE: &[&str] = &[".INVALIDFPTYPE0", ".F16", ".F32", ".F64"];

fn int_type(v: &View, size: &str, signed: &str) -> &'static str {
    const UNSIGNED: &[&str] = &[".U8", ".U16", ".U32", ".U64"];
    const SIGNED: &[&str] = &[".S8", ".S16", ".S32", ".S64"];
    let table = if v.flag(signed) { SIGNED } else { UNSIGNED };
    table[v.get(size) as usize & 3]
}

/// The converted source with its half or byte selector and modifiers, as nvdisasm spells it: the constant with a
/// space (`c[B] [O]`) except F2F's from FP32 or FP64; `.H1` on F2I's source and on an FP16 source of F2F; a 16-bit
/// integer's selector `.H1`; an F2F or F2I immediate is a float of the source's width (an FP16 in bits 35:20),
/// with `.NEG`, `.ABS` and the selector after it.
fn convert_source(v: &View, selector: &str) -> String {
    const BYTE: &[&str] = &["", ".B1", ".B2", ".B3"];
    const HALF_OF_16: &[&str] = &["", ".INVALIDSIZE1", ".H1", ".INVALIDSIZE3"];
    let (opcode, src) = (v.encoding.opcode, v.get("src"));
    let suffix = match selector {
        "half_b" if v.flag("half_b") && (opcode == "F2I" || src == 1) => ".H1",
        "byte_b" if src == 1 => HALF_OF_16[v.get("byte_b") as usize & 3],
        "byte_b" => BYTE[v.get("byte_b") as usize & 3],
        _ => "",
    };
    let (neg, abs) = (v.flag("neg_b"), v.flag("abs_b"));
    match form(v) {
        "reg" => register_operand(v, "rb", 1, neg, abs, suffix),
        "cbuf" => {
            let constant = if opcode != "F2F" || src == 1 {
                format!("c[{:#x}] [{}]", v.get("cb_bank"), hex(v.signed("cb_offset") * 4))
            } else {
                cbuf(v)
            };
            with_modifiers(format!("{constant}{suffix}"), neg, abs)
        }
        _ => {
            let value = match (opcode, src) {
                ("F2F" | "F2I", 1) => text::float16(v.get("imm20") as u16),
                ("F2F" | "F2I", 3) => immediate(v, Imm::F64),
                ("F2F" | "F2I", _) => immediate(v, Imm::F32),
                _ => immediate(v, Imm::Signed),
            };
            format!("{value}{}{}{suffix}", if neg { ".NEG" } else { "" }, if abs { ".ABS" } else { "" })
        }
    }
}

fn f2f(v: &View) -> Parts {
    const INTEGER_ROUND: &[&str] = &[".ROUND", ".FLOOR", ".CEIL", ".TRUNC"];
    let rnd = v.get("rnd");
    let rounding = if v.flag("round_int") {
        INTEGER_ROUND[rnd as usize]
    } else if v.get("dst") == v.get("src") && rnd == 3 {
        ".PASS"
    } else {
        ROUND[rnd as usize]
    };
    let m = format!(
        "F2F{}{}{}{rounding}{}",
        v.suffix("ftz", ".FTZ"),
        v.choice("dst", FLOAT_TYPE),
        v.choice("src", FLOAT_TYPE),
        v.suffix("sat", ".SAT")
    );
    (m, vec![dst(v), convert_source(v, "half_b")])
}

fn f2i(v: &View) -> Parts {
    const INTEGER_ROUND: &[&str] = &["", ".FLOOR", ".CEIL", ".TRUNC"];
    let m = format!(
        "F2I{}{}{}{}",
        v.suffix("ftz", ".FTZ"),
        int_type(v, "dst", "dst_signed"),
        v.choice("src", FLOAT_TYPE),
        v.choice("rnd", INTEGER_ROUND)
    );
    (m, vec![dst(v), convert_source(v, "half_b")])
}

fn i2f(v: &View) -> Parts {
    let m = format!("I2F{}{}{}", v.choice("dst", FLOAT_TYPE), int_type(v, "src", "src_signed"), v.choice("rnd", ROUND));
    (m, vec![dst(v), convert_source(v, "byte_b")])
}

fn i2i(v: &View) -> Parts {
    let m = format!(
        "I2I{}{}{}",
        int_type(v, "dst", "dst_signed"),
        int_type(v, "src", "src_signed"),
        v.suffix("sat", ".SAT")
    );
    (m, vec![dst(v), convert_source(v, "byte_b")])
}

fn mov(v: &View) -> Parts {
    let mut operands = vec![reg(v.get("rd"), 255), src_b(v, Imm::Signed)];
    if v.get("lanes") != 15 {
        operands.push(hex(v.get("lanes") as i64));
    }
    ("MOV".into(), operands)
}

const BYTE: &[&str] = &["", ".B1", ".B2", ".B3"];

/// P2R: the predicates (or the condition code) into byte `byte` of ra's value under the mask.
fn p2r(v: &View) -> Parts {
    let source = if v.flag("cc_mode") { "CC" } else { "PR" };
    (
        format!("P2R{}", v.choice("byte", BYTE)),
        vec![reg(v.get("rd"), 255), source.into(), src_a(v), src_b(v, Imm::Signed)],
    )
}

/// R2P: the bits of ra's byte `byte` under the mask into the predicates (or the condition code).
fn r2p(v: &View) -> Parts {
    let target = if v.flag("cc_mode") { "CC" } else { "PR" };
    let a = register_operand(v, "ra", 0, false, false, BYTE[v.get("byte") as usize & 3]);
    ("R2P".into(), vec![target.into(), a, src_b(v, Imm::Unsigned)])
}

fn mov32i(v: &View) -> Parts {
    let mut operands = vec![reg(v.get("rd"), 255), hex(v.get("imm32") as i64)];
    if v.get("lanes") != 15 {
        operands.push(hex(v.get("lanes") as i64));
    }
    ("MOV32I".into(), operands)
}

fn special_register(number: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (0, "SR_LANEID"),
        (1, "SR_CLOCK"),
        (2, "SR_VIRTCFG"),
        (3, "SR_VIRTID"),
        (4, "SR_PM0"),
        (5, "SR_PM1"),
        (6, "SR_PM2"),
        (7, "SR_PM3"),
        (8, "SR_PM4"),
        (9, "SR_PM5"),
        (10, "SR_PM6"),
        (11, "SR_PM7"),
        (15, "SR_ORDERING_TICKET"),
        (16, "SR_PRIM_TYPE"),
        (17, "SR_INVOCATION_ID"),
        (18, "SR_Y_DIRECTION"),
        (19, "SR_THREAD_KILL"),
        (20, "SM_SHADER_TYPE"),
        (21, "SR_DIRECTCBEWRITEADDRESSLOW"),
        (22, "SR_DIRECTCBEWRITEADDRESSHIGH"),
        (23, "SR_DIRECTCBEWRITEENABLED"),
        (24, "SR_MACHINE_ID_0"),
        (25, "SR_MACHINE_ID_1"),
        (26, "SR_MACHINE_ID_2"),
        (27, "SR_MACHINE_ID_3"),
        (28, "SR_AFFINITY"),
        (29, "SR_INVOCATION_INFO"),
        (30, "SR_WSCALEFACTOR_XY"),
        (31, "SR_WSCALEFACTOR_Z"),
        (32, "SR_TID"),
        (33, "SR_TID.X"),
        (34, "SR_TID.Y"),
        (35, "SR_TID.Z"),
        (36, "SR_CTA_PARAM"),
        (37, "SR_CTAID.X"),
        (38, "SR_CTAID.Y"),
        (39, "SR_CTAID.Z"),
        (40, "SR_NTID"),
        (41, "SR_CirQueueIncrMinusOne"),
        (42, "SR_NLATC"),
        (48, "SR_SWINLO"),
        (49, "SR_SWINSZ"),
        (50, "SR_SMEMSZ"),
        (51, "SR_SMEMBANKS"),
        (52, "SR_LWINLO"),
        (53, "SR_LWINSZ"),
        (54, "SR_LMEMLOSZ"),
        (55, "SR_LMEMHIOFF"),
        (56, "SR_EQMASK"),
        (57, "SR_LTMASK"),
        (58, "SR_LEMASK"),
        (59, "SR_GTMASK"),
        (60, "SR_GEMASK"),
        (61, "SR_REGALLOC"),
        (62, "SR_CTXADDR"),
        (64, "SR_GLOBALERRORSTATUS"),
        (66, "SR_WARPERRORSTATUS"),
        (67, "SR_WARPERRORSTATUSCLEAR"),
        (72, "SR_PM_HI0"),
        (73, "SR_PM_HI1"),
        (74, "SR_PM_HI2"),
        (75, "SR_PM_HI3"),
        (76, "SR_PM_HI4"),
        (77, "SR_PM_HI5"),
        (78, "SR_PM_HI6"),
        (79, "SR_PM_HI7"),
        (80, "SR_CLOCKLO"),
        (81, "SR_CLOCKHI"),
        (82, "SR_GLOBALTIMERLO"),
        (83, "SR_GLOBALTIMERHI"),
        (96, "SR_HWTASKID"),
        (97, "SR_CIRCULARQUEUEENTRYINDEX"),
        (98, "SR_CIRCULARQUEUEENTRYADDRESSLOW"),
        (99, "SR_CIRCULARQUEUEENTRYADDRESSHIGH"),
    ];
    NAMES.iter().find(|(n, _)| *n == number).map_or_else(|| format!("SR{number}"), |(_, name)| name.to_string())
}

// ---------------------------------------------------------------------------------------------------------------
// Memory.

/// `[R2+0x10]`, `[R2]`, `[0x10]` (no register), `[R62+-0x100]`, `[RZ]` (neither).
fn address(v: &View, offset: i64) -> String {
    let base = v.get("ra");
    match (base, offset) {
        (255, 0) => "[RZ]".to_string(),
        (255, _) => format!("[{}]", hex(offset)),
        (_, 0) => format!("[{}]", reg(base, 255)),
        _ => format!("[{}+{}]", reg(base, 255), hex(offset)),
    }
}

const SIZE: &[&str] = &[".U8", ".S8", ".U16", ".S16", "", ".64", ".128", ".U.128"];

fn load_cache(v: &View) -> String {
    let table: &[&str] = match v.encoding.opcode {
        "LDL" => &["", ".LU", ".CI", ".CV"],
        "LDG" | "LD" => &["", ".CG", ".CI", ".CV"],
        _ => &["", ".CG", ".CS", ".WT"],
    };
    v.choice("cache", table)
}

fn load(v: &View) -> Parts {
    let size = if v.flag("u") {
        // LDS.U spells the 32-bit size.
        format!(".U{}", if v.get("size") == 4 { ".32" } else { SIZE[v.get("size") as usize] })
    } else {
        v.choice("size", SIZE)
    };
    let m = format!("{}{}{}{size}", v.encoding.opcode, v.suffix("e", ".E"), load_cache(v));
    (m, vec![reg(v.get("rd"), 255), address(v, v.signed("offset"))])
}

fn store(v: &View) -> Parts {
    let m = format!("{}{}{}{}", v.encoding.opcode, v.suffix("e", ".E"), load_cache(v), v.choice("size", SIZE));
    (m, vec![address(v, v.signed("offset")), reg(v.get("rs"), 255)])
}

fn ld(v: &View) -> Parts {
    let m = format!("LD{}{}{}", v.suffix("e", ".E"), load_cache(v), v.choice("size", SIZE));
    (m, vec![reg(v.get("rd"), 255), address(v, v.signed("offset")), pred_dst(v, "ps")])
}

fn st(v: &View) -> Parts {
    let m = format!("ST{}{}{}", v.suffix("e", ".E"), load_cache(v), v.choice("size", SIZE));
    (m, vec![address(v, v.signed("offset")), reg(v.get("rs"), 255), pred_dst(v, "ps")])
}

fn ldc(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".IL", ".IS", ".ISL"];
    let m = format!("LDC{}{}", v.choice("mode", MODE), v.choice("size", SIZE));
    let offset = v.signed("offset");
    let index = match (v.get("ra"), offset) {
        (255, _) => hex(offset),
        (base, 0) => reg(base, 255),
        (base, _) => format!("{}+{}", reg(base, 255), hex(offset)),
    };
    (m, vec![reg(v.get("rd"), 255), format!("c[{:#x}][{index}]", v.get("cb_bank"))])
}

const ATOMIC_OP: &[&str] =
    &[".ADD", ".MIN", ".MAX", ".INC", ".DEC", ".AND", ".OR", ".XOR", ".EXCH", ".?9", ".SAFEADD", ".?11"];
const ATOMIC_TYPE: &[&str] = &["", ".S32", ".U64", ".F32.FTZ.RN", ".F16x2.FTZ.RN", ".S64", ".?6", ".?7"];

fn atom(v: &View) -> Parts {
    if form(v) == "CAS" {
        let step = if v.flag("wide") { 2 } else { 1 };
        let m = format!("ATOM{}.CAS{}", v.suffix("e", ".E"), v.suffix("wide", ".64"));
        let rb = v.get("rb");
        return (m, vec![reg(v.get("rd"), 255), address(v, v.signed("offset")), reg(rb, 255), reg(rb + step, 255)]);
    }
    let m = format!("ATOM{}{}{}", v.suffix("e", ".E"), v.choice("op", ATOMIC_OP), v.choice("ty", ATOMIC_TYPE));
    (m, vec![reg(v.get("rd"), 255), address(v, v.signed("offset")), reg(v.get("rb"), 255)])
}

fn atoms(v: &View) -> Parts {
    let offset = v.signed("offset") * 4;
    if form(v) == "CAS" {
        let step = if v.flag("wide") { 2 } else { 1 };
        let rb = v.get("rb");
        const MODE: &[&str] = &[".CAST", ".CAST.SPIN", ".CAS", ".INVALIDCASMODE3"];
        let m = format!("ATOMS{}{}", v.choice("mode", MODE), v.suffix("wide", ".64"));
        return (m, vec![reg(v.get("rd"), 255), address(v, offset), reg(rb, 255), reg(rb + step, 255)]);
    }
    let m = format!("ATOMS{}{}", v.choice("op", ATOMIC_OP), v.choice("ty", ATOMIC_TYPE));
    (m, vec![reg(v.get("rd"), 255), address(v, offset), reg(v.get("rb"), 255)])
}

fn red(v: &View) -> Parts {
    let m = format!("RED{}{}{}", v.suffix("e", ".E"), v.choice("op", ATOMIC_OP), v.choice("ty", ATOMIC_TYPE));
    (m, vec![address(v, v.signed("offset")), reg(v.get("rs"), 255)])
}

fn cctl(v: &View) -> Parts {
    const OP: &[&str] =
        &[".QRY1", ".PF1", ".PF1_5", ".PF2", ".WB", ".IV", ".IVALL", ".RS", ".?8", ".RSLB", ".?10", ".?11"];
    let m = format!("CCTL{}{}", v.suffix("e", ".E"), v.choice("op", OP));
    (m, vec![address(v, v.signed("offset") * 4)])
}

/// `CCTLL[.cache].op [address]`: the local memory cache control (its operation names past RSLB are nvdisasm's
/// INVALIDCCTLOPn).
fn cctll(v: &View) -> Parts {
    const CACHE: &[&str] = &["", ".???1", ".INVALIDLCACHETYPE2", ".INVALIDLCACHETYPE3"];
    const OP: &[&str] = &["", ".PF1", ".PF1.5", ".PF2", ".WB", ".IV", "", ".RS", "", ".RSLB"];
    let op = match OP.get(v.get("op") as usize) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => format!(".INVALIDCCTLOP{}", v.get("op")),
    };
    (format!("CCTLL{}{op}", v.choice("cache", CACHE)), vec![address(v, v.signed("offset") * 4)])
}

/// `CCTLT.IVALL`, `CCTLT.IVTH index`: the texture cache control.
fn cctlt(v: &View) -> Parts {
    match v.get("op") {
        0 => ("CCTLT.IVALL".into(), Vec::new()),
        1 => ("CCTLT.IVTH".into(), vec![hex(v.get("tex") as i64)]),
        op => (format!("CCTLT.INVALIDCCTLTOP{op}"), vec![hex(v.get("tex") as i64)]),
    }
}

fn membar(v: &View) -> Parts {
    const LEVEL: &[&str] = &[".CTA", ".GL", ".SYS", ".VC"];
    const IVAL: &[&str] = &["", ".IVALLD", ".IVALLT", ".IVALLTD"];
    (format!("MEMBAR{}{}", v.choice("level", LEVEL), v.choice("ival", IVAL)), Vec::new())
}

// ---------------------------------------------------------------------------------------------------------------
// Textures and surfaces.

/// The component a gather (TLD4, TLD4S) reads.
const GATHER_COMPONENT: &[&str] = &[".R", ".G", ".B", ".A"];
const TEX_TARGET: &[&str] = &["1D", "ARRAY_1D", "2D", "ARRAY_2D", "3D", "ARRAY_3D", "CUBE", "ARRAY_CUBE"];

/// `.T` or `.P`: texture instructions keep the texture phase in the scheduling word's reuse bits.
fn phase(v: &View) -> &'static str {
    match v.control.reuse & 3 {
        1 => ".T",
        2 => ".P",
        _ => "",
    }
}

/// `.B` for the bindless forms, which take the handle from a register (their `tex` reads 0).
fn bindless(v: &View) -> &'static str {
    if form(v) == "B" { ".B" } else { "" }
}

/// Source registers of a texture instruction: the second is left out when it is RZ.
fn tex_sources(v: &View) -> Vec<String> {
    let mut operands = vec![reg(v.get("ra"), 255)];
    if v.get("rb") != 255 {
        operands.push(reg(v.get("rb"), 255));
    }
    operands
}

/// The operands of TEX, TLD, TLD4 and TXD: the fault predicate unless it is PT, rd, the sources, then the
/// texture, target and mask.
fn vector_texture_operands(v: &View) -> Vec<String> {
    let mut operands: Vec<String> = crate::sass::texture::fault(v).map(|pd| pred(pd, false)).into_iter().collect();
    operands.push(reg(v.get("rd"), 255));
    operands.extend(tex_sources(v));
    operands.extend(texture_target_mask(v));
    operands
}

/// The texture (`0x0` for the bindless forms), the target and the write mask.
fn texture_target_mask(v: &View) -> [String; 3] {
    [hex(v.get("tex") as i64), v.choice("target", TEX_TARGET), hex(v.get("mask") as i64)]
}

fn tex(v: &View) -> Parts {
    const LOD: &[&str] = &["", ".LZ", ".LB", ".LL", ".INVALIDBLOD4", ".INVALIDBLOD5", ".LBA", ".LLA"];
    let m = format!(
        "TEX{}{}{}{}{}{}{}",
        bindless(v),
        v.choice("lod", LOD),
        v.suffix("aoffi", ".AOFFI"),
        v.suffix("dc", ".DC"),
        v.suffix("ndv", ".NDV"),
        v.suffix("nodep", ".NODEP"),
        phase(v)
    );
    (m, vector_texture_operands(v))
}

fn tld(v: &View) -> Parts {
    let m = format!(
        "TLD{}{}{}{}{}{}{}",
        bindless(v),
        if v.flag("lod") { ".LL" } else { ".LZ" },
        v.suffix("aoffi", ".AOFFI"),
        v.suffix("ms", ".MS"),
        v.suffix("cl", ".CL"),
        v.suffix("nodep", ".NODEP"),
        phase(v)
    );
    (m, vector_texture_operands(v))
}

fn txd(v: &View) -> Parts {
    let m = format!("TXD{}{}{}{}", bindless(v), v.suffix("aoffi", ".AOFFI"), v.suffix("nodep", ".NODEP"), phase(v));
    (m, vector_texture_operands(v))
}

/// TMML (always `.LOD`): rd, ra, then the bindless form's rb, the texture, target and mask.
fn tmml(v: &View) -> Parts {
    let m = format!("TMML{}.LOD{}{}{}", bindless(v), v.suffix("ndv", ".NDV"), v.suffix("nodep", ".NODEP"), phase(v));
    let mut operands = vec![reg(v.get("rd"), 255), reg(v.get("ra"), 255)];
    if form(v) == "B" {
        operands.push(reg(v.get("rb"), 255));
    }
    operands.extend(texture_target_mask(v));
    (m, operands)
}

fn txq(v: &View) -> Parts {
    let query = match v.get("query") {
        1 => "TEX_HEADER_DIMENSION".to_string(),
        2 => "TEX_HEADER_TEXTURE_TYPE".to_string(),
        5 => "TEX_HEADER_SAMPLER_POS".to_string(),
        16 => "TEX_SAMPLER_FILTER".to_string(),
        18 => "TEX_SAMPLER_LOD".to_string(),
        20 => "TEX_SAMPLER_WRAP".to_string(),
        22 => "TEX_SAMPLER_BORDER_COLOR".to_string(),
        other => format!("INVALID{other}"),
    };
    let m = format!("TXQ{}{}{}", bindless(v), v.suffix("nodep", ".NODEP"), phase(v));
    let operands =
        vec![reg(v.get("rd"), 255), reg(v.get("ra"), 255), query, hex(v.get("tex") as i64), hex(v.get("mask") as i64)];
    (m, operands)
}

/// TEXS and TLDS: the scalar forms with two destinations; `mode` packs the LOD mode and the target.
fn texs(v: &View) -> Parts {
    const TEXS_MODE: &[(&str, &str)] = &[
        (".LZ", "1D"),
        ("", "2D"),
        (".LZ", "2D"),
        (".LL", "2D"),
        (".DC", "2D"),
        (".LL.DC", "2D"),
        (".LZ.DC", "2D"),
        ("", "ARRAY_2D"),
        (".LZ", "ARRAY_2D"),
        (".LZ.DC", "ARRAY_2D"),
        ("", "3D"),
        (".LZ", "3D"),
        ("", "CUBE"),
        (".LL", "CUBE"),
    ];
    const TLDS_MODE: &[(&str, &str)] = &[
        (".LZ", "1D"),
        (".LL", "1D"),
        (".LZ", "2D"),
        ("", "?3"),
        (".LZ.AOFFI", "2D"),
        (".LL", "2D"),
        (".LZ.MS", "2D"),
        (".LZ", "3D"),
        (".LZ", "ARRAY_2D"),
        ("", "?9"),
        ("", "?10"),
        ("", "?11"),
        (".LL.AOFFI", "2D"),
    ];
    let table = if v.encoding.opcode == "TEXS" { TEXS_MODE } else { TLDS_MODE };
    let (lod, target) = table.get(v.get("mode") as usize).copied().unwrap_or(("", "?"));
    let two_registers = v.get("rd2") != 255;
    const ONE: &[&str] = &["R", "G", "B", "A", "RG", "RA", "GA", "BA"];
    const TWO: &[&str] = &["RGB", "RGA", "RBA", "GBA", "RGBA", "INVALID5", "INVALID6", "INVALID7"];
    let swizzle = v.choice("swizzle", if two_registers { TWO } else { ONE });
    let m = format!(
        "{}{}{lod}{}{}",
        v.encoding.opcode,
        if v.flag("f32") { "" } else { ".F16" },
        v.suffix("nodep", ".NODEP"),
        phase(v)
    );
    let mut operands = vec![reg(v.get("rd2"), 255), reg(v.get("rd"), 255)];
    operands.extend(tex_sources(v));
    operands.extend([hex(v.get("tex") as i64), target.to_string(), swizzle]);
    (m, operands)
}

fn tld4(v: &View) -> Parts {
    let m = format!(
        "TLD4{}{}{}{}{}{}{}",
        v.choice("component", GATHER_COMPONENT),
        bindless(v),
        v.choice("offsets", &["", ".AOFFI", ".PTP", ".INVALIDBTOFF03"]),
        v.suffix("dc", ".DC"),
        v.suffix("ndv", ".NDV"),
        v.suffix("nodep", ".NODEP"),
        phase(v)
    );
    (m, vector_texture_operands(v))
}

fn tld4s(v: &View) -> Parts {
    let m = format!(
        "TLD4S{}{}{}{}{}{}",
        v.suffix("f16", ".F16"),
        v.choice("component", GATHER_COMPONENT),
        v.suffix("aoffi", ".AOFFI"),
        v.suffix("dc", ".DC"),
        v.suffix("nodep", ".NODEP"),
        phase(v)
    );
    let mut operands = vec![reg(v.get("rd2"), 255), reg(v.get("rd"), 255)];
    operands.extend(tex_sources(v));
    operands.push(hex(v.get("tex") as i64));
    (m, operands)
}

const SURFACE_TARGET: &[&str] =
    &[".1D", ".1D_BUFFER", ".1D_ARRAY", ".2D", ".2D_ARRAY", ".3D", ".INVALIDSURFACEDIM6", ".INVALIDSURFACEDIM7"];
const SURFACE_CLAMP: &[&str] = &[".IGN", "", ".TRAP", ".INVALIDSURFACECLAMP3"];

fn surface(v: &View) -> Parts {
    const SIZE: &[&str] = &[".U8", ".S8", ".U16", ".S16", "", ".64", ".128", ".INVALIDSIZE7"];
    const COMPONENTS: &[&str] = &[
        ".INVALID0",
        ".R",
        ".G",
        ".RG",
        ".B",
        ".RB",
        ".GB",
        ".RGB",
        ".A",
        ".RA",
        ".GA",
        ".RGA",
        ".BA",
        ".RBA",
        ".GBA",
        "",
    ];
    const CACHE_LOAD: &[&str] = &["", ".CG", ".CI", ".CV"];
    const CACHE_STORE: &[&str] = &["", ".CG", ".CS", ".WT"];
    let opcode = v.encoding.opcode;
    // Direct (.D) accesses have a size, with bit 3 set for byte addressing (.BA); formatted (.P) ones a
    // component mask.
    let data = if opcode == "SURED" { v.get("ty") } else { v.get("size") };
    let kind = match (v.flag("d"), data & 8 != 0) {
        (true, true) => ".D.BA",
        (true, false) => ".D",
        (false, _) => ".P",
    };
    let middle = if opcode == "SURED" {
        format!("{}{}", v.choice("op", ATOMIC_OP), ATOMIC_TYPE[data as usize & 7])
    } else {
        let data = if v.flag("d") { SIZE[data as usize & 7] } else { COMPONENTS[data as usize] };
        let cache = v.choice("cache", if opcode == "SULD" { CACHE_LOAD } else { CACHE_STORE });
        format!("{cache}{data}")
    };
    let m = format!("{opcode}{kind}{}{middle}{}", v.choice("target", SURFACE_TARGET), v.choice("clamp", SURFACE_CLAMP));
    let address = format!("[{}]", reg(v.get("ra"), 255));
    // The bindless forms' handle register, or the bound forms' slot.
    let surface = if form(v) == "B" { reg(v.get("rc"), 255) } else { hex(v.get("surf") as i64) };
    let operands = if opcode == "SULD" {
        let mut operands = Vec::new();
        // SULD keeps its predicate destination exclusive-ored with 7, so that zero is PT.
        if v.get("pd_xor7") != 0 {
            operands.push(pred(7 ^ v.get("pd_xor7"), false));
        }
        operands.extend([reg(v.get("rd"), 255), address, surface]);
        operands
    } else {
        vec![address, reg(v.get("rs"), 255), surface]
    };
    (m, operands)
}

/// `SUATOM.D[.BA].target.op[.type][.clamp] [Pd,] Rd, [Ra], Rb, surface` (the CAS form's predicate destination
/// kept exclusive-ored with 7, as SULD's; its operation names past EXCH are nvdisasm's INVALIDATOMSOPn).
fn surface_atomic(v: &View) -> Parts {
    const TYPE: &[&str] = &["", ".S32", ".U64", ".F32.FTZ.RN", ".F16x2.FTZ.RN", ".S64", ".SD32", ".SD64"];
    let op = if v.encoding.form() == "CAS" {
        ".CAS".to_string()
    } else {
        match v.get("op") {
            op @ 0..=8 => ATOMIC_OP[op as usize].to_string(),
            op => format!(".INVALIDATOMSOP{op}"),
        }
    };
    let m = format!(
        "SUATOM.D{}{}{op}{}{}",
        if v.flag("ba") { ".BA" } else { "" },
        v.choice("target", SURFACE_TARGET),
        TYPE[v.get("ty") as usize],
        v.choice("clamp", SURFACE_CLAMP)
    );
    let mut operands = Vec::new();
    if v.has("pd_xor7") && v.get("pd_xor7") != 0 {
        operands.push(pred(7 ^ v.get("pd_xor7"), false));
    }
    operands.extend([
        reg(v.get("rd"), 255),
        format!("[{}]", reg(v.get("ra"), 255)),
        reg(v.get("rb"), 255),
        hex(v.get("surf") as i64),
    ]);
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Graphics stages.

/// `a[0xADDR]`, or `a[Ra]` for a physical (indexed) address.
fn attribute_operand(v: &View, physical: bool) -> String {
    if physical { format!("a[{}]", reg(v.get("ra"), 255)) } else { format!("a[{}]", hex(v.get("address") as i64)) }
}

/// ALD and AST: `ALD[.O][.P][.PHYS][.64|.96|.128] Rd, a[...][, Rb]`, `AST[.P]... a[...], Rs[, Rb]` (AST's bit 32
/// prints nothing).
fn attribute(v: &View) -> Parts {
    const SIZE: &[&str] = &["", ".64", ".96", ".128"];
    let load = v.encoding.opcode == "ALD";
    let physical = v.get("ra") != 255;
    let m = format!(
        "{}{}{}{}{}",
        v.encoding.opcode,
        if load { v.suffix("output", ".O") } else { "" },
        v.suffix("patch", ".P"),
        if physical { ".PHYS" } else { "" },
        v.choice("size", SIZE)
    );
    let mut operands = if load {
        vec![reg(v.get("rd"), 255), attribute_operand(v, physical)]
    } else {
        vec![attribute_operand(v, physical), reg(v.get("rs"), 255)]
    };
    if v.get("rb") != 255 {
        operands.push(reg(v.get("rb"), 255));
    }
    (m, operands)
}

/// `OUT.EMIT|.CUT|.EMIT_THEN_CUT Rd, Ra, stream` (the stream a register, a signed immediate or a constant).
fn out(v: &View) -> Parts {
    const KIND: &[&str] = &[".INVALIDOUTSTYPE0", ".EMIT", ".CUT", ".EMIT_THEN_CUT"];
    let stream = match form(v) {
        "imm" => immediate(v, Imm::Signed),
        "cbuf" => cbuf(v),
        _ => reg(v.get("rb"), 255),
    };
    (format!("OUT{}", v.choice("kind", KIND)), vec![reg(v.get("rd"), 255), reg(v.get("ra"), 255), stream])
}

/// `ISBERD[.O][.PATCH|.PRIM|.ATTR][.SKEW][.U16|.32] Rd, [Ra]`.
fn isberd(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".PATCH", ".PRIM", ".ATTR"];
    const SIZE: &[&str] = &["", ".U16", ".32", ".???3"];
    let m = format!(
        "ISBERD{}{}{}{}",
        v.suffix("output", ".O"),
        v.choice("mode", MODE),
        v.suffix("skew", ".SKEW"),
        v.choice("size", SIZE)
    );
    (m, vec![reg(v.get("rd"), 255), format!("[{}]", reg(v.get("ra"), 255))])
}

/// `AL2P[.O][.64|.96|.128] [Pd, ]Rd, Ra, offset` (the predicate unless PT; a signed 11-bit offset), or
/// `... Rd, offset` (10 bits unsigned) when ra is RZ.
fn al2p(v: &View) -> Parts {
    const SIZE: &[&str] = &["", ".64", ".96", ".128"];
    let mut operands = Vec::new();
    if v.get("pd") != 7 {
        operands.push(pred(v.get("pd"), false));
    }
    operands.push(reg(v.get("rd"), 255));
    match v.get("ra") {
        255 => operands.push(hex((v.get("address") & 0x3ff) as i64)),
        ra => operands.extend([reg(ra, 255), hex(v.signed("address"))]),
    }
    (format!("AL2P{}{}", v.suffix("output", ".O"), v.choice("size", SIZE)), operands)
}

/// `PIXLD[.value] Rd[, Pd], [Ra+offset]`.
fn pixld(v: &View) -> Parts {
    const VALUE: &[&str] =
        &["", ".COVMASK", ".COVERED", ".OFFSET", ".CENTROID_OFFSET", ".MY_INDEX", ".INVALID0", ".INVALID1"];
    let mut operands = vec![reg(v.get("rd"), 255)];
    if v.get("pd") != 7 {
        operands.push(pred(v.get("pd"), false));
    }
    operands.push(address(v, v.signed("offset")));
    (format!("PIXLD{}", v.choice("mode", VALUE)), operands)
}

/// `IPA[.IDX][.PASS|.CONSTANT|.SC][.CENTROID|.OFFSET][.SAT] Rd, a[...], Rb[, Rc][, Pp]`: the multiply mode has no
/// suffix; the predicate operand shows unless it is PT (always in the indexed form).
fn ipa(v: &View) -> Parts {
    const MODE: &[&str] = &[".PASS", "", ".CONSTANT", ".SC"];
    const SAMPLE: &[&str] = &["", ".CENTROID", ".OFFSET", ".???3"];
    let indexed = v.flag("idx");
    let m = format!(
        "IPA{}{}{}{}",
        if indexed { ".IDX" } else { "" },
        v.choice("mode", MODE),
        v.choice("sample", SAMPLE),
        v.suffix("sat", ".SAT")
    );
    let mut operands = vec![reg(v.get("rd"), 255), attribute_operand(v, indexed), reg(v.get("rb"), 255)];
    if v.get("rc") != 255 {
        operands.push(reg(v.get("rc"), 255));
    }
    if indexed || v.get("ps") != 7 || v.flag("ps_not") {
        operands.push(pred(v.get("ps"), v.flag("ps_not")));
    }
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Control flow.

/// The condition-code test operand, printed unless it is "always".
fn cc_test(v: &View, operands: &mut Vec<String>) {
    if v.get("cc_test") != 15 {
        operands.push(format!("CC.{}", v.choice("cc_test", CC_TEST)));
    }
}

/// Branch targets: the signed offset is from the next instruction.
/// A branch's target: its absolute address as encoded, or the address its offset gives from the next instruction.
fn target(v: &View) -> String {
    if v.has("address") { hex(v.get("address") as i64) } else { hex(v.offset as i64 + 8 + v.signed("offset")) }
}

fn bra(v: &View) -> Parts {
    let m = format!("{}{}{}", v.encoding.opcode, v.suffix("u", ".U"), v.suffix("lmt", ".LMT"));
    let mut operands = Vec::new();
    cc_test(v, &mut operands);
    operands.push(target(v));
    (m, operands)
}

fn brx(v: &View) -> Parts {
    let mut operands = Vec::new();
    cc_test(v, &mut operands);
    // nvdisasm writes the register and the raw offset without a comma between them.
    operands.push(format!("{} {}", reg(v.get("ra"), 255), hex(v.signed("offset"))));
    (format!("{}{}", v.encoding.opcode, v.suffix("lmt", ".LMT")), operands)
}

fn target_only(v: &View) -> Parts {
    // CAL's, JCAL's and PRET's bit 6 set means "increment" (the usual call); nvdisasm marks its absence.
    let noinc = v.has("inc") && !v.flag("inc");
    (format!("{}{}", v.encoding.opcode, if noinc { ".NOINC" } else { "" }), vec![target(v)])
}

fn flow(v: &View) -> Parts {
    let mut operands = Vec::new();
    cc_test(v, &mut operands);
    (format!("{}{}", v.encoding.opcode, v.suffix("keep_ref_count", ".KEEPREFCOUNT")), operands)
}

fn bpt(v: &View) -> Parts {
    const MODE: &[&str] = &[".DRAIN", ".CAL", ".PAUSE", ".TRAP", ".INT", ".DRAIN_ILLEGAL", ".???6", ".???7"];
    let operands = if v.get("imm20") != 0 { vec![hex(v.get("imm20") as i64)] } else { Vec::new() };
    (format!("BPT{}", v.choice("mode", MODE)), operands)
}

fn nop(v: &View) -> Parts {
    let mut operands = Vec::new();
    cc_test(v, &mut operands);
    if v.get("imm16") != 0 {
        operands.push(hex(v.get("imm16") as i64));
    }
    (format!("NOP{}", v.suffix("trig", ".TRIG")), operands)
}

fn depbar(v: &View) -> Parts {
    let mut operands = Vec::new();
    if v.flag("le") {
        operands.push(format!("SB{}", v.get("sb")));
        operands.push(hex(v.get("count") as i64));
    }
    let also = v.get("also");
    if also != 0 {
        let list: Vec<String> = (0..6).filter(|bit| also >> bit & 1 != 0).map(|bit| bit.to_string()).collect();
        operands.push(format!("{{{}}}", list.join(",")));
    }
    (format!("DEPBAR{}", v.suffix("le", ".LE")), operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Barriers, votes and shuffles.

fn bar(v: &View) -> Parts {
    const RED: &[&str] = &[".POPC", ".AND", ".OR", ".INVALIDRED3"];
    let mode = match v.get("mode") {
        0 => ".SYNC".to_string(),
        1 => ".ARV".to_string(),
        2 => format!(".RED{}", v.choice("red", RED)),
        _ => ".SCAN".to_string(),
    };
    let mut operands =
        vec![if v.flag("a_imm") { hex(v.get("ra") as i64) } else { register_operand(v, "ra", 0, false, false, "") }];
    let count = v.get("rb");
    if !v.flag("b_imm") {
        operands.push(register_operand(v, "rb", 1, false, false, ""));
    } else if count != 0 {
        operands.push(hex(count as i64));
    }
    if v.get("mode") == 2 {
        operands.push(pred_src(v, "ps"));
    }
    (format!("BAR{mode}"), operands)
}

fn b2r(v: &View) -> Parts {
    let mut operands = vec![reg(v.get("rd"), 255)];
    optional_pred(v, "pd", &mut operands);
    let mode = if v.get("mode") == 1 { ".RESULT" } else { "" };
    (format!("B2R{mode}"), operands)
}

fn vote(v: &View) -> Parts {
    const MODE: &[&str] = &[".ALL", ".ANY", ".EQ", ".INVALIDVMODE3"];
    (format!("VOTE{}", v.choice("mode", MODE)), vec![reg(v.get("rd"), 255), pred_dst(v, "pd"), pred_src(v, "ps")])
}

fn shfl(v: &View) -> Parts {
    const MODE: &[&str] = &[".IDX", ".UP", ".DOWN", ".BFLY"];
    let lane = if v.has("imm5") { hex(v.get("imm5") as i64) } else { register_operand(v, "rb", 1, false, false, "") };
    let clamp =
        if v.has("imm13") { hex(v.get("imm13") as i64) } else { register_operand(v, "rc", 2, false, false, "") };
    let operands =
        vec![pred_dst(v, "pd"), reg(v.get("rd"), 255), register_operand(v, "ra", 0, false, false, ""), lane, clamp];
    (format!("SHFL{}", v.choice("mode", MODE)), operands)
}
