//! The SM86 disassembler, spelling everything as CUDA 13's `nvdisasm -b SM86` does (checked instruction by
//! instruction against it by `tests/nvdisasm.rs`).
//!
//! One function per opcode, grouped as the table groups them. Fields are read by name through [`View`]; the
//! table names them after the operand slot they occupy, and each function prints the slots in the order its
//! form gives them.

use super::{DecodeError, Inst, Instruction, decode_program, is_uniform, operand_field};
use crate::sass::text::{View, float16, float32, float64, guard, hex, listing_line, pred, reg};

/// The program as `nvdisasm -b SM86` lists it, minus the encoding comments.
pub fn listing(code: &[u8]) -> Result<String, DecodeError> {
    let program = decode_program(code)?;
    let mut out = String::new();
    for instruction in &program {
        let (guard, body) = parts(instruction);
        out.push_str(&listing_line(instruction.offset, false, false, instruction.control, &guard, &body));
        out.push('\n');
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
        word: inst.encode().expect("a decoded instruction encodes"),
        control: instruction.control,
        offset: instruction.offset,
    };
    match inst.guard() {
        // The uniform datapath's guard is a uniform predicate, which nvdisasm lists as part of the body, not in
        // the guard's column.
        Some((p, negated)) if is_uniform(view.encoding.opcode) && (p != 7 || negated) => {
            (String::new(), format!("@{} {}", upred(u64::from(p), negated), body(&view)))
        }
        Some((p, negated)) => (guard(u64::from(p), negated), body(&view)),
        None => (String::new(), body(&view)),
    }
}

fn body(v: &View) -> String {
    let (mnemonic, operands) = match v.encoding.opcode {
        "FADD" => fadd(v),
        "FSWZADD" => fswzadd(v),
        "FMUL" => fmul(v),
        "FFMA" => ffma(v),
        "FMNMX" => fmnmx(v),
        "FSEL" => fsel(v),
        "FSET" => fset(v),
        "FSETP" => fsetp(v),
        "FCHK" => fchk(v),
        "MUFU" => mufu(v),
        "FRND" => frnd(v),
        "DADD" => dadd(v),
        "DMUL" => dmul(v),
        "DFMA" => dfma(v),
        "DSETP" => dsetp(v),
        "HADD2" | "HMUL2" | "HFMA2" => half_arithmetic(v),
        "HSETP2" | "HSET2" => half_set(v),
        "HMNMX2" => hmnmx2(v),
        "F2F" => f2f(v),
        "F2I" => f2i(v),
        "I2F" => i2f(v),
        "I2I" => i2i(v),
        "I2FP" => i2fp(v),
        "I2IP" => i2ip(v),
        "F2FP" => f2fp(v),
        "F2IP" => f2ip(v),
        "MOV" => mov(v),
        "S2R" => ("S2R".into(), vec![reg(v.get("rd"), 255), special_register(v.get("sr"))]),
        "S2UR" => ("S2UR".into(), vec![ureg(v.get("urd")), special_register(v.get("sr"))]),
        "CS2R" => cs2r(v),
        "IADD3" | "UIADD3" => iadd3(v),
        "IMAD" => imad(v),
        "LEA" | "ULEA" => lea(v),
        "IMNMX" => imnmx(v),
        "IABS" => ("IABS".into(), vec![reg(v.get("rd"), 255), register(v, "rb", 1)]),
        "IDP" => idp(v),
        "VABSDIFF" => vabsdiff(v),
        "VABSDIFF4" => vabsdiff4(v),
        "POPC" => popc(v),
        "FLO" => flo(v),
        "BREV" => ("BREV".into(), vec![reg(v.get("rd"), 255), register(v, "rb", 1)]),
        "BMSK" | "SGXT" | "UBMSK" | "USGXT" => bit_mask(v),
        "ISETP" | "UISETP" => isetp(v),
        "SEL" => sel(v),
        "LOP3" => lop3(v),
        "PLOP3" | "UPLOP3" => plop3(v),
        "PRMT" => prmt(v),
        "SHF" => shf(v),
        "LD" | "LDG" => global_load(v),
        "ST" | "STG" => global_store(v),
        "LDS" | "LDL" => local_load(v),
        "STS" | "STL" => local_store(v),
        "LDC" => ldc(v),
        "ULDC" => uldc(v),
        "ATOM" | "ATOMG" => atom(v),
        "ATOMS" => atoms(v),
        "RED" => red(v),
        "CCTL" => cctl(v),
        "MEMBAR" => membar(v),
        "ERRBAR" | "LDGDEPBAR" | "NOP" => (v.encoding.opcode.to_string(), Vec::new()),
        "YIELD" | "KILL" => {
            let mut operands = Vec::new();
            optional_pred_src(v, "ps", &mut operands);
            (v.encoding.opcode.to_string(), operands)
        }
        "QSPC" => qspc(v),
        "LDGSTS" => ldgsts(v),
        "LDSM" => ldsm(v),
        "DEPBAR" => depbar(v),
        "TEX" | "TLD" | "TLD4" | "TXD" | "TMML" => texture(v),
        "TXQ" => txq(v),
        "SULD" | "SUST" | "SURED" | "SUATOM" => surface(v),
        "ALD" | "AST" => attribute(v),
        "ISBEWR" => isbewr(v),
        "LDTRAM" => ldtram(v),
        "IPA" => ipa(v),
        "OUT" => out(v),
        "PIXLD" => pixld(v),
        "ISBERD" => isberd(v),
        "AL2P" => al2p(v),
        "BRA" => bra(v),
        "BRX" | "BRXU" | "JMX" | "JMXU" => indirect_branch(v),
        "JMP" => {
            const MODE: &[&str] = &["", ".U", ".DIV", ".CONV"];
            const INC_DEC: &[&str] = &["", ".INC", ".DEC", ".INVALID3"];
            let mut operands = Vec::new();
            optional_pred_src(v, "ps", &mut operands);
            operands.push(hex(v.get("address") as i64 * 4));
            (format!("JMP{}{}", pick(v, "inc_dec", INC_DEC), pick(v, "mode", MODE)), operands)
        }
        "BSSY" => bssy(v),
        "BSYNC" | "BREAK" => barrier_register(v),
        "CALL" => call(v),
        "RET" => ret(v),
        "EXIT" => exit(v),
        "PMTRIG" => {
            let mut operands = Vec::new();
            optional_pred_src(v, "ps", &mut operands);
            operands.push(hex(v.get("value") as i64));
            ("PMTRIG".into(), operands)
        }
        "CCTLL" => (format!("CCTLL{}", pick(v, "op", CCTL_OP)), vec![address(v, false)]),
        "CCTLT" => {
            const OP: &[&str] = &[".???0", ".IVTH", ".???2", ".???3"];
            (format!("CCTLT{}", pick(v, "op", OP)), vec![hex(v.get("bank") as i64), hex(v.get("tex") as i64)])
        }
        "BPT" => bpt(v),
        "LEPC" | "GETLMEMBASE" => (v.encoding.opcode.to_string(), vec![dst(v)]),
        "SETLMEMBASE" => ("SETLMEMBASE".into(), vec![register(v, "ra", 0)]),
        "SETCTAID" => (format!("SETCTAID{}", pick(v, "dim", &[".X", ".Y", ".Z", ""])), vec![register(v, "ra", 0)]),
        "RPCMOV" => rpcmov(v),
        "NANOSLEEP" => nanosleep(v),
        "WARPSYNC" => warpsync(v),
        "BMOV" => bmov(v),
        "BAR" => bar(v),
        "B2R" => b2r(v),
        "VOTE" | "VOTEU" => vote(v),
        "SHFL" => shfl(v),
        "MOVM" => {
            const SHAPE: &[&str] = &[".MT88", ".M832", ".M864"];
            (format!("MOVM.16{}", pick(v, "shape", SHAPE)), vec![dst(v), register(v, "ra", 0)])
        }
        "MATCH" => match_(v),
        "REDUX" => redux(v),
        "R2UR" => r2ur(v),
        "UIMAD" => uimad(v),
        "ULOP3" => ulop3(v),
        "UMOV" => ("UMOV".into(), vec![ureg(v.get("urd")), hex(v.get("imm32") as i64)]),
        "USHF" => ushf(v),
        "UPRMT" => uprmt(v),
        "UBREV" => ("UBREV".into(), vec![ureg(v.get("urd")), uniform_b(v)]),
        "UPOPC" => ("UPOPC".into(), vec![ureg(v.get("urd")), format!("{}{}", v.suffix("inv_b", "~"), uniform_b(v))]),
        "USEL" => {
            let ps = upred(v.get("ups"), v.flag("ups_not"));
            ("USEL".into(), vec![ureg(v.get("urd")), ureg(v.get("ura")), uniform_b(v), ps])
        }
        "P2R" => p2r(v),
        "UP2UR" => {
            let operands = vec![ureg(v.get("urd")), "UPR".into(), ureg(v.get("ura")), uniform_b(v)];
            (format!("UP2UR{}", pick(v, "byte", BYTE)), operands)
        }
        "UR2UP" => {
            let mut operands =
                vec!["UPR".into(), format!("{}{}", ureg(v.get("ura")), BYTE[v.get("byte") as usize & 3])];
            // An immediate mask of every predicate goes unprinted.
            if !(v.has("imm32") && v.get("imm32") == 0xff) {
                operands.push(uniform_b(v));
            }
            ("UR2UP".into(), operands)
        }
        "R2P" => r2p(v),
        "UFLO" => uflo(v),
        "HMMA" => hmma(v),
        "IMMA" => imma(v),
        "BMMA" => bmma(v),
        "DMMA" => dmma(v),
        opcode => (format!("?{opcode}"), Vec::new()),
    };
    if operands.is_empty() { mnemonic } else { format!("{mnemonic} {}", operands.join(", ")) }
}

type Parts = (String, Vec<String>);

// ---------------------------------------------------------------------------------------------------------------
// Names of field values, as nvdisasm spells them.

const ROUND: &[&str] = &["", ".RM", ".RP", ".RZ"];
const FLOAT_CMP: &[&str] = &[
    ".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".NUM", ".NAN", ".LTU", ".EQU", ".LEU", ".GTU", ".NEU", ".GEU",
    ".T",
];
const INT_CMP: &[&str] = &[".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".T"];
const BOOL_OP: &[&str] = &[".AND", ".OR", ".XOR", ".INVALID3"];
const SIZE: &[&str] = &[".U8", ".S8", ".U16", ".S16", "", ".64", ".128", ".INVALID7"];
const CACHE: &[&str] = &[".EF", "", ".EL", ".LU", ".EU", ".NA", ".INVALID6", ".INVALID7"];
/// Memory-model strength and scope of loads.
const LOAD_ORDER: &[&str] = &[
    "",
    ".CONSTANT.PRIVATE",
    ".CONSTANT.CTA",
    ".CONSTANT.CTA.PRIVATE",
    ".CONSTANT",
    ".STRONG.SM",
    ".STRONG.GPU.PRIVATE",
    ".STRONG.GPU",
    ".MMIO.GPU",
    ".CONSTANT.SM",
    ".STRONG.SYS",
    ".CONSTANT.SM.PRIVATE",
    ".MMIO.SYS",
    ".CONSTANT.VC",
    ".CONSTANT.VC.PRIVATE",
    ".CONSTANT.GPU",
];
/// Memory-model strength and scope of stores and atomics.
const STORE_ORDER: &[&str] = &[
    "",
    ".CONSTANT.PRIVATE",
    ".CONSTANT.CTA",
    ".CONSTANT.CTA.PRIVATE",
    ".STRONG.SM.PRIVATE",
    ".STRONG.SM",
    ".STRONG.GPU.PRIVATE",
    ".STRONG.GPU",
    ".MMIO.GPU",
    ".CONSTANT.SM",
    ".STRONG.SYS",
    ".CONSTANT.SM.PRIVATE",
    ".MMIO.SYS",
    ".CONSTANT.VC",
    ".CONSTANT.VC.PRIVATE",
    ".CONSTANT.GPU",
];
const ATOMIC_OP: &[&str] = &[".ADD", ".MIN", ".MAX", ".INC", ".DEC", ".AND", ".OR", ".XOR", ".EXCH"];
const ATOMIC_TYPE: &[&str] = &["", ".S32", ".64", ".F32.FTZ.RN", ".F16x2.RN", ".S64", ".F64.RN"];

/// `table[value]`, or nvdisasm's `INVALIDn` for values past its end.
fn name(table: &[&str], value: u64) -> String {
    table.get(value as usize).map_or_else(|| format!(".INVALID{value}"), |text| (*text).to_string())
}

fn pick(v: &View, field: &str, table: &[&str]) -> String {
    name(table, v.get(field))
}

// ---------------------------------------------------------------------------------------------------------------
// Operands.

fn ureg(number: u64) -> String {
    if number == 63 { "URZ".into() } else { format!("UR{number}") }
}

fn upred(number: u64, negated: bool) -> String {
    let name = if number == 7 { "UPT".to_string() } else { format!("UP{number}") };
    if negated { format!("!{name}") } else { name }
}

/// A register in a source slot (0 A, 1 B, 2 C for the reuse flags) with its modifiers and suffix:
/// `-|R5|.reuse.H0_H0`.
fn operand(v: &View, field: &str, slot: u32, neg: bool, abs: bool, suffix: &str) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    out.push_str(&reg(v.get(field), 255));
    if abs {
        out.push('|');
    }
    if v.control.reuses(slot) {
        out.push_str(".reuse");
    }
    out.push_str(suffix);
    out
}

/// A source register in the instruction's own register file (`sass::sm86::operand_field`).
fn register(v: &View, field: &str, slot: u32) -> String {
    if is_uniform(v.encoding.opcode) {
        ureg(v.get(&operand_field(v, field)))
    } else {
        operand(v, field, slot, false, false, "")
    }
}

fn with_modifiers(operand: String, neg: bool, abs: bool) -> String {
    match (neg, abs) {
        (false, false) => operand,
        (true, false) => format!("-{operand}"),
        (false, true) => format!("|{operand}|"),
        (true, true) => format!("-|{operand}|"),
    }
}

/// `c[bank][offset]`, the offset signed as nvdisasm prints it (`c[0x0][-0x8000]`).
fn cbuf(v: &View) -> String {
    format!("c[{:#x}][{}]", v.get("cb_bank"), hex(v.signed("cb_offset") * 4))
}

/// A float source of the A slot.
fn float_a(v: &View) -> String {
    operand(v, "ra", 0, v.flag("neg_a"), v.flag("abs_a"), "")
}

/// The operand in the 63:32 slot of a float instruction (register, immediate or constant buffer).
fn float_b(v: &View, wide: bool) -> String {
    float_b_reusing(v, wide, 1)
}

/// [`float_b`] for the instructions whose 63:32 register nvdisasm marks with the third reuse flag (FADD, DSETP,
/// HADD2, HSETP2: the adder's second input is the C port).
fn float_b_reusing(v: &View, wide: bool, slot: u32) -> String {
    let (neg, abs) = (v.flag("neg_b"), v.flag("abs_b"));
    if v.has("imm32") {
        let bits = v.get("imm32");
        if wide { float64(bits << 32) } else { float32(bits as u32) }
    } else if v.has("cb_bank") {
        with_modifiers(cbuf(v), neg, abs)
    } else {
        operand(v, "rb", slot, neg, abs, "")
    }
}

/// The register in the 71:64 slot of a float instruction; in `_c` forms it is the second source, and nvdisasm
/// marks it with the second reuse flag.
fn float_c(v: &View) -> String {
    let slot = if c_form(v) { 1 } else { 2 };
    operand(v, "rc", slot, v.flag("neg_c"), v.flag("abs_c"), "")
}

/// The operand of the 63:32 slot of an arithmetic instruction: register, signed immediate, constant buffer,
/// uniform register.
fn int_b(v: &View) -> String {
    slot_b(v, hex(v.get("imm32") as u32 as i32 as i64))
}

/// The operand of the 63:32 slot of a logic, move or bit-field instruction, whose immediate nvdisasm writes
/// unsigned.
fn bits_b(v: &View) -> String {
    slot_b(v, hex(v.get("imm32") as i64))
}

fn slot_b(v: &View, immediate: String) -> String {
    let neg = v.flag("neg_b");
    if v.has("imm32") {
        immediate
    } else if v.has("cb_bank") {
        with_modifiers(cbuf(v), neg, false)
    } else if v.has("urb") {
        format!("{}{}", if neg { "-" } else { "" }, ureg(v.get("urb")))
    } else {
        operand(v, "rb", 1, neg, false, "")
    }
}

/// RPCMOV.32: a half of the return PC (Rpc.LO, or .HI) from a register or an immediate, or into a register.
fn rpcmov(v: &View) -> Parts {
    let half = if v.flag("hi") { "Rpc.HI" } else { "Rpc.LO" }.to_string();
    let operands = match v.encoding.form() {
        "from" => vec![dst(v), half],
        "to_reg" => vec![half, register(v, "rb", 1)],
        _ => vec![half, hex(v.get("imm32") as i64)],
    };
    ("RPCMOV.32".into(), operands)
}

fn dst(v: &View) -> String {
    if is_uniform(v.encoding.opcode) { ureg(v.get("urd")) } else { reg(v.get("rd"), 255) }
}

/// A predicate in the instruction's own predicate file, negated by the field's `_not`.
fn pred_src(v: &View, field: &str) -> String {
    let field = operand_field(v, field);
    let negated = v.flag(&format!("{field}_not"));
    if is_uniform(v.encoding.opcode) { upred(v.get(&field), negated) } else { pred(v.get(&field), negated) }
}

/// A predicate destination printed only when the form has one and it is not PT.
fn optional_pred(v: &View, field: &str, operands: &mut Vec<String>) {
    let held = operand_field(v, field);
    if v.has(&held) && v.get(&held) != 7 {
        operands.push(pred_src(v, field));
    }
}

/// The form's slot order: in `_c` forms the 71:64 register is the second source and the wide slot the third.
fn c_form(v: &View) -> bool {
    v.encoding.form().ends_with("_c")
}

// ---------------------------------------------------------------------------------------------------------------
// 32-bit floating point.

fn fadd(v: &View) -> Parts {
    let m = format!("FADD{}{}{}", v.suffix("ftz", ".FTZ"), pick(v, "rnd", ROUND), v.suffix("sat", ".SAT"));
    (m, vec![dst(v), float_a(v), float_b_reusing(v, false, 2)])
}

fn fswzadd(v: &View) -> Parts {
    let m = format!("FSWZADD{}{}{}", v.suffix("ftz", ".FTZ"), pick(v, "rnd", ROUND), v.suffix("ndv", ".NDV"));
    let swizzle = crate::sass::swizzle_add::swizzle_text(crate::sass::Isa::Sm86, v.get("swizzle") as u32);
    (m, vec![dst(v), float_a(v), operand(v, "rc", 2, false, false, ""), swizzle])
}

fn fmul(v: &View) -> Parts {
    const SCALE: &[&str] = &[".INVALID0", ".D8", ".D4", ".D2", "", ".M2", ".M4", ".M8"];
    let fmz = match (v.flag("ftz"), v.flag("fmz")) {
        (false, false) => "",
        (false, true) => ".FMZ",
        (true, false) => ".FTZ",
        (true, true) => ".INVALID3",
    };
    let m = format!("FMUL{}{fmz}{}{}", pick(v, "scale", SCALE), pick(v, "rnd", ROUND), v.suffix("sat", ".SAT"));
    (m, vec![dst(v), float_a(v), float_b(v, false)])
}

fn fma_modifiers(v: &View) -> String {
    let fmz = match (v.flag("ftz"), v.flag("fmz")) {
        (false, false) => "",
        (false, true) => ".FMZ",
        (true, false) => ".FTZ",
        (true, true) => ".INVALID3",
    };
    format!("{fmz}{}{}", pick(v, "rnd", ROUND), v.suffix("sat", ".SAT"))
}

fn ffma(v: &View) -> Parts {
    let (b, c) = if c_form(v) { (float_c(v), float_b(v, false)) } else { (float_b(v, false), float_c(v)) };
    (format!("FFMA{}", fma_modifiers(v)), vec![dst(v), float_a(v), b, c])
}

fn fmnmx(v: &View) -> Parts {
    let m = format!("FMNMX{}{}{}", v.suffix("ftz", ".FTZ"), v.suffix("nan", ".NAN"), v.suffix("xorsign", ".XORSIGN"));
    (m, vec![dst(v), float_a(v), float_b(v, false), pred_src(v, "ps")])
}

fn fsel(v: &View) -> Parts {
    (format!("FSEL{}", v.suffix("ftz", ".FTZ")), vec![dst(v), float_a(v), float_b(v, false), pred_src(v, "ps")])
}

fn fset(v: &View) -> Parts {
    let m = format!("FSET.BF{}{}{}", pick(v, "cmp", FLOAT_CMP), v.suffix("ftz", ".FTZ"), pick(v, "bop", BOOL_OP));
    (m, vec![dst(v), float_a(v), float_b(v, false), pred_src(v, "ps")])
}

fn fsetp(v: &View) -> Parts {
    let m = format!("FSETP{}{}{}", pick(v, "cmp", FLOAT_CMP), v.suffix("ftz", ".FTZ"), pick(v, "bop", BOOL_OP));
    let operands =
        vec![pred(v.get("pd"), false), pred(v.get("pq"), false), float_a(v), float_b(v, false), pred_src(v, "ps")];
    (m, operands)
}

fn fchk(v: &View) -> Parts {
    ("FCHK".into(), vec![pred(v.get("pd"), false), float_a(v), float_b(v, false)])
}

fn mufu(v: &View) -> Parts {
    const FUNC: &[&str] = &[".COS", ".SIN", ".EX2", ".LG2", ".RCP", ".RSQ", ".RCP64H", ".RSQ64H", ".SQRT", ".TANH"];
    const HALF: &[&str] = &["", ".H1", ".INVALID2", ".INVALID3"];
    let m = format!("MUFU{}{}", pick(v, "func", FUNC), v.suffix("f16", ".F16"));
    let source = if v.has("imm32") {
        float32(v.get("imm32") as u32)
    } else {
        operand(v, "rb", 1, v.flag("neg_b"), v.flag("abs_b"), HALF[v.get("half_b") as usize])
    };
    (m, vec![dst(v), source])
}

fn frnd(v: &View) -> Parts {
    const INTEGER_ROUND: &[&str] = &["", ".FLOOR", ".CEIL", ".TRUNC"];
    let types = match (v.get("dst"), v.get("src")) {
        (2, 2) => String::new(),
        (3, 3) => ".F64".to_string(),
        (dst, src) => format!(".???{}", src * 4 + dst),
    };
    let m = format!("FRND{}{types}{}", v.suffix("ftz", ".FTZ"), pick(v, "rnd", INTEGER_ROUND));
    (m, vec![dst(v), float_b(v, false)])
}

// ---------------------------------------------------------------------------------------------------------------
// 64-bit floating point.

fn dadd(v: &View) -> Parts {
    // DADD's second source is the 71:64 register, or the immediate of the imm_c form.
    let b = if v.has("imm32") { float_b(v, true) } else { float_c(v) };
    (format!("DADD{}", pick(v, "rnd", ROUND)), vec![dst(v), float_a(v), b])
}

fn dmul(v: &View) -> Parts {
    (format!("DMUL{}", pick(v, "rnd", ROUND)), vec![dst(v), float_a(v), float_b(v, true)])
}

fn dfma(v: &View) -> Parts {
    let (b, c) = if c_form(v) { (float_c(v), float_b(v, true)) } else { (float_b(v, true), float_c(v)) };
    (format!("DFMA{}", pick(v, "rnd", ROUND)), vec![dst(v), float_a(v), b, c])
}

fn dsetp(v: &View) -> Parts {
    const CMP: &[&str] = &[
        ".MIN", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".NUM", ".NAN", ".LTU", ".EQU", ".LEU", ".GTU", ".NEU",
        ".GEU", ".MAX",
    ];
    let m = format!("DSETP{}{}", pick(v, "cmp", CMP), pick(v, "bop", BOOL_OP));
    let b = float_b_reusing(v, true, 2);
    let operands = vec![pred(v.get("pd"), false), pred(v.get("pq"), false), float_a(v), b, pred_src(v, "ps")];
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Pairs of halves.

const SWIZZLE: &[&str] = &["", ".F32", ".H0_H0", ".H1_H1"];

fn half(v: &View, field: &str, slot: u32, neg: &str, abs: &str, swizzle: &str) -> String {
    operand(v, field, slot, v.flag(neg), v.flag(abs), SWIZZLE[v.get(swizzle) as usize & 3])
}

fn half_immediates(v: &View) -> [String; 2] {
    [float16(v.get("imm_hi") as u16), float16(v.get("imm_lo") as u16)]
}

fn half_fmz(v: &View) -> &'static str {
    match (v.flag("ftz"), v.flag("fmz")) {
        (false, false) => "",
        (false, true) => ".FMZ",
        (true, false) => ".FTZ",
        (true, true) => ".INVALID3",
    }
}

/// HADD2, HMUL2 and HFMA2.
fn half_arithmetic(v: &View) -> Parts {
    let opcode = v.encoding.opcode;
    let m = format!(
        "{opcode}{}{}{}{}{}",
        v.suffix("f32", ".F32"),
        v.suffix("bf16", ".BF16_V2"),
        half_fmz(v),
        v.suffix("sat", ".SAT"),
        v.suffix("relu", ".RELU")
    );
    let mut operands = vec![dst(v), half(v, "ra", 0, "neg_a", "abs_a", "swz_a")];
    if v.has("imm_hi") {
        operands.extend(half_immediates(v));
    } else {
        let b_slot = if opcode == "HADD2" { 2 } else { 1 };
        operands.push(half(v, "rb", b_slot, "neg_b", "abs_b", "swz_b"));
    }
    if opcode == "HFMA2" {
        operands.push(half(v, "rc", 2, "neg_c", "abs_c", "swz_c"));
    }
    // Only the clamping form reads its predicate.
    if v.flag("relu") && (v.get("ps") != 7 || v.flag("ps_not")) {
        operands.push(pred_src(v, "ps"));
    }
    (m, operands)
}

/// `HSETP2.cmp[.FTZ][.H_AND].bop Pd, Pq, a, b, Ps` and `HSET2[.BF].cmp[.FTZ].bop Rd, a, b, Ps`.
fn half_set(v: &View) -> Parts {
    let predicates = v.encoding.opcode == "HSETP2";
    let bf = if predicates { "" } else { v.suffix("bf", ".BF") };
    let h_and = if predicates { v.suffix("h_and", ".H_AND") } else { "" };
    let m = format!(
        "{}{bf}{}{}{h_and}{}",
        v.encoding.opcode,
        pick(v, "cmp", FLOAT_CMP),
        v.suffix("ftz", ".FTZ"),
        pick(v, "bop", BOOL_OP)
    );
    let mut operands = if predicates { vec![pred(v.get("pd"), false), pred(v.get("pq"), false)] } else { vec![dst(v)] };
    operands.extend([
        half(v, "ra", 0, "neg_a", "abs_a", "swz_a"),
        half(v, "rb", 2, "neg_b", "abs_b", "swz_b"),
        pred_src(v, "ps"),
    ]);
    (m, operands)
}

fn hmnmx2(v: &View) -> Parts {
    let m = format!(
        "HMNMX2{}{}{}{}",
        v.suffix("f32", ".F32"),
        v.suffix("bf16", ".BF16_V2"),
        v.suffix("ftz", ".FTZ"),
        v.suffix("nan", ".NAN")
    );
    let operands = vec![
        dst(v),
        half(v, "ra", 0, "neg_a", "abs_a", "swz_a"),
        half(v, "rb", 1, "neg_b", "abs_b", "swz_b"),
        pred_src(v, "ps"),
    ];
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions and moves.

const FLOAT_TYPE: &[&str] = &[".INVALID0", ".F16", "", ".F64"];
const FLOAT_TYPE_SHOWN: &[&str] = &[".INVALID0", ".F16", ".F32", ".F64"];

fn int_type(v: &View, size: &str, signed: &str) -> &'static str {
    const UNSIGNED: &[&str] = &[".U8", ".U16", ".U32", ".U64"];
    const SIGNED: &[&str] = &[".S8", ".S16", "", ".S64"];
    (if v.flag(signed) { SIGNED } else { UNSIGNED })[v.get(size) as usize & 3]
}

fn f2f(v: &View) -> Parts {
    let dst_type = if v.flag("bf16") { ".BF16".to_string() } else { pick(v, "dst", FLOAT_TYPE_SHOWN) };
    let m = format!(
        "F2F{}{dst_type}{}{}",
        v.suffix("ftz", ".FTZ"),
        pick(v, "src", FLOAT_TYPE_SHOWN),
        pick(v, "rnd", ROUND)
    );
    (m, vec![dst(v), float_b(v, false)])
}

fn f2i(v: &View) -> Parts {
    const INTEGER_ROUND: &[&str] = &["", ".FLOOR", ".CEIL", ".TRUNC"];
    const HALF: &[&str] = &["", ".H1", ".INVALID2", ".INVALID3"];
    let m = format!(
        "F2I{}{}{}{}{}",
        v.suffix("ftz", ".FTZ"),
        int_type(v, "dst", "signed"),
        pick(v, "src", FLOAT_TYPE),
        pick(v, "rnd", INTEGER_ROUND),
        v.suffix("ntz", ".NTZ")
    );
    let source = operand(v, "rb", 1, v.flag("neg_b"), v.flag("abs_b"), HALF[v.get("half_b") as usize & 3]);
    (m, vec![dst(v), source])
}

/// A byte of a register: its suffix.
const BYTE: &[&str] = &["", ".B1", ".B2", ".B3"];

fn i2f(v: &View) -> Parts {
    let m = format!("I2F{}{}{}", pick(v, "dst", FLOAT_TYPE), int_type(v, "src", "signed"), pick(v, "rnd", ROUND));
    let source =
        if v.has("rb") { operand(v, "rb", 1, false, false, BYTE[v.get("byte_b") as usize & 3]) } else { bits_b(v) };
    (m, vec![dst(v), source])
}

fn i2i(v: &View) -> Parts {
    const TYPE: &[&str] = &[".U8", ".S8", ".U16", ".S16"];
    (format!("I2I{}.S32.SAT", pick(v, "dst", TYPE)), vec![dst(v), register(v, "rb", 1)])
}

/// `I2IP.dst.S32[.SAT|.SATRELU] Rd, Ra, Rb, Rc[.H1]`.
fn i2ip(v: &View) -> Parts {
    const DST: &[&str] = &[".U8", ".S8", ".U16", ".S16", ".U2", ".S2", ".U4", ".S4"];
    const SAT: &[&str] = &[".SAT", "", ".SATRELU", ".INVALID3"];
    const HALF: &[&str] = &["", ".H1", ".???2", ".???3"];
    let c = operand(v, "rc", 2, false, false, HALF[v.get("half_c") as usize & 3]);
    let m = format!("I2IP{}.S32{}", pick(v, "dst", DST), pick(v, "sat", SAT));
    (m, vec![dst(v), register(v, "ra", 0), register(v, "rb", 1), c])
}

fn i2fp(v: &View) -> Parts {
    let dst_type = match v.get("dst") {
        2 => ".F32".to_string(),
        other => format!(".???{other}"),
    };
    let src = if v.get("src") == 2 {
        if v.flag("signed") { ".S32" } else { ".U32" }.to_string()
    } else {
        ".???7".to_string()
    };
    (format!("I2FP{dst_type}{src}{}", pick(v, "rnd", ROUND)), vec![dst(v), register(v, "rb", 1)])
}

fn f2fp(v: &View) -> Parts {
    const KIND: &[&str] = &[
        ".PACK_AB",
        ".RELU.PACK_AB",
        ".BF16.PACK_AB",
        ".RELU.BF16.PACK_AB",
        ".SATFINITE.PACK_AB",
        ".SATFINITE.RELU.PACK_AB",
        ".SATFINITE.BF16.PACK_AB",
        ".SATFINITE.RELU.BF16.PACK_AB",
    ];
    let kind = if v.flag("merge_c") { ".MERGE_C".to_string() } else { pick(v, "kind", KIND) };
    let m = format!("F2FP{kind}{}", pick(v, "rnd", ROUND));
    let mut operands = vec![dst(v), register(v, "ra", 0), register(v, "rb", 1)];
    if v.flag("merge_c") {
        operands.push(register(v, "rc", 2));
    }
    (m, operands)
}

fn f2ip(v: &View) -> Parts {
    const INTEGER_ROUND: &[&str] = &["", ".FLOOR", ".CEIL", ".TRUNC"];
    let m = format!(
        "F2IP{}.F32{}{}{}",
        if v.flag("signed") { ".S8" } else { ".U8" },
        pick(v, "rnd", INTEGER_ROUND),
        v.suffix("ntz", ".NTZ"),
        v.suffix("relu", ".RELU")
    );
    (m, vec![dst(v), register(v, "ra", 0), register(v, "rb", 1), register(v, "rc", 2)])
}

fn mov(v: &View) -> Parts {
    let source = if v.has("urb") { ureg(v.get("urb")) } else { bits_b(v) };
    let mut operands = vec![dst(v), source];
    if v.get("lanes") != 15 {
        operands.push(hex(v.get("lanes") as i64));
    }
    ("MOV".into(), operands)
}

fn cs2r(v: &View) -> Parts {
    (format!("CS2R{}", if v.flag("bits64") { "" } else { ".32" }), vec![dst(v), special_register(v.get("sr"))])
}

/// Special registers by number, as nvdisasm names them (CUDA 13, every value enumerated); the performance
/// counters 100..=131 follow a pattern, the rest are `SR<n>`.
fn special_register(number: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (0, "SR_LANEID"),
        (1, "SR_CLOCK"),
        (2, "SR_VIRTCFG"),
        (3, "SR_VIRTID"),
        (15, "SR_ORDERING_TICKET"),
        (16, "SR_PRIM_TYPE"),
        (17, "SR_INVOCATION_ID"),
        (18, "SR_Y_DIRECTION"),
        (19, "SR_THREAD_KILL"),
        (20, "SM_SHADER_TYPE"),
        (21, "SR_DIRECTCBEWRITEADDRESSLOW"),
        (22, "SR_DIRECTCBEWRITEADDRESSHIGH"),
        (23, "SR_DIRECTCBEWRITEENABLED"),
        (24, "SR_SW_SCRATCH"),
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
        (37, "SR_CTAID.X"),
        (38, "SR_CTAID.Y"),
        (39, "SR_CTAID.Z"),
        (40, "SR_NTID"),
        (41, "SR_CirQueueIncrMinusOne"),
        (42, "SR_NLATC"),
        (44, "SR_SM_SPA_VERSION"),
        (45, "SR_MULTIPASSSHADERINFO"),
        (46, "SR_LWINHI"),
        (47, "SR_SWINHI"),
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
        (62, "SR_BARRIERALLOC"),
        (64, "SR_GLOBALERRORSTATUS"),
        (66, "SR_WARPERRORSTATUS"),
        (67, "SR_VIRTUALSMID"),
        (68, "SR_VIRTUALENGINEID"),
        (80, "SR_CLOCKLO"),
        (81, "SR_CLOCKHI"),
        (82, "SR_GLOBALTIMERLO"),
        (83, "SR_GLOBALTIMERHI"),
        (84, "SR_ESR_PC"),
        (85, "SR_ESR_PC_HI"),
        (96, "SR_HWTASKID"),
        (97, "SR_CIRCULARQUEUEENTRYINDEX"),
        (98, "SR_CIRCULARQUEUEENTRYADDRESSLOW"),
        (99, "SR_CIRCULARQUEUEENTRYADDRESSHIGH"),
    ];
    match number {
        100..=115 => format!("SR_PM{}{}", if number.is_multiple_of(2) { "" } else { "_HI" }, (number - 100) / 2),
        116..=131 => format!("SR_SNAP_PM{}{}", if number.is_multiple_of(2) { "" } else { "_HI" }, (number - 116) / 2),
        132 => "SR_VARIABLE_RATE".into(),
        133 => "__HIR0X000".into(),
        255 => "SRZ".into(),
        _ => {
            NAMES.iter().find(|(n, _)| *n == number).map_or_else(|| format!("SR{number}"), |(_, name)| name.to_string())
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Integer arithmetic.

/// A carry-in predicate pair printed by the .X forms.
fn carry_in(v: &View, operands: &mut Vec<String>) {
    operands.push(pred_src(v, "ps"));
    operands.push(pred_src(v, "px"));
}

fn iadd3(v: &View) -> Parts {
    let x = v.flag("x");
    // .X turns the negations into bitwise inversions.
    let sign = |neg: bool| match (neg, x) {
        (false, _) => "",
        (true, false) => "-",
        (true, true) => "~",
    };
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    optional_pred(v, "pq", &mut operands);
    operands.push(format!("{}{}", sign(v.flag("neg_a")), register(v, "ra", 0)));
    let b = if v.has("imm32") {
        hex(v.get("imm32") as u32 as i32 as i64)
    } else if v.has("cb_bank") {
        cbuf(v)
    } else if v.has("urb") {
        ureg(v.get("urb"))
    } else {
        register(v, "rb", 1)
    };
    operands.push(format!("{}{b}", sign(v.flag("neg_b"))));
    operands.push(format!("{}{}", sign(v.flag("neg_c")), register(v, "rc", 2)));
    if x {
        carry_in(v, &mut operands);
    }
    (format!("{}{}", v.encoding.opcode, v.suffix("x", ".X")), operands)
}

fn imad(v: &View) -> Parts {
    let form = v.encoding.form();
    let variant = if form.starts_with("WIDE") {
        ".WIDE"
    } else if form.starts_with("HI") {
        ".HI"
    } else {
        ""
    };
    let x = v.flag("x");
    let unsigned = if v.flag("signed") { "" } else { ".U32" };
    let (b_slot, c_slot) = if c_form(v) {
        (register(v, "rc", 2), int_b(v))
    } else {
        (int_b(v), format!("{}{}", if v.flag("neg_c") { if x { "~" } else { "-" } } else { "" }, register(v, "rc", 2)))
    };
    // nvdisasm names the plain IMAD after what it computes: a move when the product is zero or the sum is
    // just one factor, an add when multiplying by one, a shift when multiplying by a power of two.
    let alias = if variant.is_empty() && !x && !form.starts_with("ureg") {
        let a_zero = v.get("ra") == 255;
        let (b_zero, b_one, b_power) = if form == "imm" {
            let b = v.get("imm32");
            (b == 0, b == 1, b > 1 && b < 1 << 31 && b.is_power_of_two())
        } else if form == "reg" {
            (v.get("rb") == 255, false, false)
        } else if c_form(v) {
            (v.get("rc") == 255, false, false)
        } else {
            (false, false, false)
        };
        let c_zero = !c_form(v) && v.get("rc") == 255;
        if a_zero || b_zero || (b_one && c_zero) {
            ".MOV"
        } else if b_one {
            ".IADD"
        } else if b_power && c_zero {
            ".SHL"
        } else {
            ""
        }
    } else {
        ""
    };
    let m = format!("IMAD{variant}{alias}{unsigned}{}", v.suffix("x", ".X"));
    let mut operands = vec![dst(v)];
    if !variant.is_empty() {
        optional_pred(v, "pd", &mut operands);
    }
    operands.extend([register(v, "ra", 0), b_slot, c_slot]);
    if x {
        operands.push(pred_src(v, "ps"));
    }
    (m, operands)
}

fn lea(v: &View) -> Parts {
    let hi = v.flag("hi");
    let m = format!(
        "{}{}{}{}",
        v.encoding.opcode,
        if hi { ".HI" } else { "" },
        v.suffix("x", ".X"),
        v.suffix("sx32", ".SX32")
    );
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    operands.push(format!("{}{}", if v.flag("neg_a") { "-" } else { "" }, register(v, "ra", 0)));
    // .X turns b's negation into a bitwise inversion.
    let b = bits_b(v);
    operands.push(if v.flag("x") { b.replacen('-', "~", 1) } else { b });
    if hi && !v.flag("sx32") {
        operands.push(register(v, "rc", 2));
    }
    operands.push(hex(v.get("shift") as i64));
    if v.flag("x") {
        operands.push(pred_src(v, "ps"));
    }
    (m, operands)
}

fn imnmx(v: &View) -> Parts {
    let m = format!("IMNMX{}", if v.flag("signed") { "" } else { ".U32" });
    (m, vec![dst(v), register(v, "ra", 0), int_b(v), pred_src(v, "ps")])
}

fn idp(v: &View) -> Parts {
    let sign = |field: &str, wide: bool| match (v.flag(field), wide) {
        (false, false) => ".U8",
        (true, false) => ".S8",
        (false, true) => ".U16",
        (true, true) => ".S16",
    };
    let m = if v.flag("two") {
        format!(
            "IDP.2A{}{}{}",
            if v.flag("hi") { ".HI" } else { ".LO" },
            sign("signed_a", true),
            sign("signed_b", false)
        )
    } else {
        format!("IDP.4A{}{}", sign("signed_a", false), sign("signed_b", false))
    };
    let c = format!("{}{}", if v.flag("neg_c") { "-" } else { "" }, register(v, "rc", 2));
    (m, vec![dst(v), register(v, "ra", 0), register(v, "rb", 1), c])
}

fn vabsdiff(v: &View) -> Parts {
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    operands.extend([register(v, "ra", 0), register(v, "rb", 1), register(v, "rc", 2)]);
    (format!("VABSDIFF{}", if v.flag("signed") { "" } else { ".U32" }), operands)
}

/// `VABSDIFF4[.U8][.ACC] Rd[, Pd], Ra, Rb, Rc`: signed bytes print no type.
fn vabsdiff4(v: &View) -> Parts {
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    operands.extend([register(v, "ra", 0), register(v, "rb", 1), register(v, "rc", 2)]);
    let m = format!("VABSDIFF4{}{}", if v.flag("signed") { "" } else { ".U8" }, v.suffix("acc", ".ACC"));
    (m, operands)
}

fn popc(v: &View) -> Parts {
    let b = format!("{}{}", if v.flag("inv_b") { "~" } else { "" }, register(v, "rb", 1));
    ("POPC".into(), vec![dst(v), b])
}

fn flo(v: &View) -> Parts {
    let m = format!("FLO{}{}", if v.flag("signed") { "" } else { ".U32" }, v.suffix("sh", ".SH"));
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    operands.push(format!("{}{}", if v.flag("inv_b") { "~" } else { "" }, register(v, "rb", 1)));
    (m, operands)
}

/// BMSK and SGXT.
fn bit_mask(v: &View) -> Parts {
    let opcode = v.encoding.opcode;
    let signed = if opcode.ends_with("SGXT") && !v.flag("signed") { ".U32" } else { "" };
    let m = format!("{opcode}{}{signed}", v.suffix("wrap", ".W"));
    if v.has("urd") {
        return (m, vec![ureg(v.get("urd")), ureg(v.get("ura")), uniform_b(v)]);
    }
    (m, vec![dst(v), register(v, "ra", 0), bits_b(v)])
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison, selection and logic.

fn isetp(v: &View) -> Parts {
    // bop_ex packs the unsigned flag (bit 0), the boolean operation (2:1) and the comparison (5:3).
    let packed = v.get("bop_ex");
    let m = format!(
        "{}{}{}{}{}",
        v.encoding.opcode,
        name(INT_CMP, packed >> 3),
        if packed & 1 != 0 { "" } else { ".U32" },
        name(BOOL_OP, packed >> 1 & 3),
        v.suffix("ex", ".EX")
    );
    let mut operands = vec![pred_src(v, "pd"), pred_src(v, "pq"), register(v, "ra", 0), int_b(v)];
    operands.push(pred_src(v, "ps"));
    if v.flag("ex") {
        operands.push(pred_src(v, "px"));
    }
    (m, operands)
}

fn sel(v: &View) -> Parts {
    ("SEL".into(), vec![dst(v), register(v, "ra", 0), bits_b(v), pred_src(v, "ps")])
}

fn lop3(v: &View) -> Parts {
    let mut operands = Vec::new();
    if v.get("pd") != 7 {
        operands.push(pred(v.get("pd"), false));
    }
    operands.extend([
        dst(v),
        register(v, "ra", 0),
        bits_b(v),
        register(v, "rc", 2),
        hex(v.get("lut") as i64),
        pred_src(v, "ps"),
    ]);
    (format!("LOP3.LUT{}", v.suffix("pand", ".PAND")), operands)
}

fn plop3(v: &View) -> Parts {
    let mut operands = vec![pred_src(v, "pd"), pred_src(v, "pq")];
    if v.has("ra") {
        // The register form tests sign bits.
        operands.extend(["ra", "rb", "rc"].map(|r| format!("{}.SIGN", reg(v.get(r), 255))));
        operands.push(hex(v.get("lut") as i64));
    } else {
        operands.push(pred_src(v, "ps"));
        operands.push(pred_src(v, "pb"));
        let pc = if v.flag("pc_uniform") { upred(v.get("pc"), v.flag("pc_not")) } else { pred_src(v, "pc") };
        operands.push(pc);
        operands.push(hex(v.get("lut") as i64));
    }
    operands.push(hex(v.get("lut_hi") as i64));
    (format!("{}.LUT", v.encoding.opcode), operands)
}

fn prmt(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".F4E", ".B4E", ".RC8", ".ECL", ".ECR", ".RC16", ".INVALID7"];
    (format!("PRMT{}", pick(v, "mode", MODE)), vec![dst(v), register(v, "ra", 0), bits_b(v), register(v, "rc", 2)])
}

fn shift_type(v: &View) -> &'static str {
    [".S64", ".S64", ".U64", ".U64", ".S32", ".S32", ".U32", ".U32"][v.get("ty") as usize & 7]
}

fn shf(v: &View) -> Parts {
    let m = format!(
        "SHF{}{}{}{}",
        if v.flag("right") { ".R" } else { ".L" },
        v.suffix("wrap", ".W"),
        shift_type(v),
        v.suffix("hi", ".HI")
    );
    (m, vec![dst(v), register(v, "ra", 0), bits_b(v), register(v, "rc", 2)])
}

// ---------------------------------------------------------------------------------------------------------------
// Memory.

/// `[R2.64+UR4+0x10]`: base register, optional uniform register, offset. A 64-bit base is always written
/// (`[RZ.64+0x10]`); a 32-bit RZ base is left out and its offset, an absolute address, written unsigned.
fn address(v: &View, wide: bool) -> String {
    let mut parts = Vec::new();
    let base = v.get("ra");
    let uniform = v.has("no_ur") && !v.flag("no_ur");
    let offset = v.signed("offset");
    if wide || base != 255 || (offset == 0 && !uniform) {
        parts.push(format!("{}{}", reg(base, 255), if wide { ".64" } else { "" }));
    }
    if uniform {
        parts.push(ureg(v.get("ur")));
    }
    if offset != 0 {
        parts.push(if wide || base != 255 { hex(offset) } else { hex(v.get("offset") as i64) });
    }
    format!("[{}]", parts.join("+"))
}

/// `[base+offset]` with an unsigned offset: the base alone when the offset is 0 (RZ too), the offset alone when the
/// base is the zero register (RZ or URZ: `zero`).
fn unsigned_address(base: String, zero: bool, offset: u64) -> String {
    match (zero, offset) {
        (_, 0) => format!("[{base}]"),
        (true, _) => format!("[{offset:#x}]"),
        (false, _) => format!("[{base}+{offset:#x}]"),
    }
}

fn isbewr(v: &View) -> Parts {
    let m = format!(
        "ISBEWR{}{}{}{}",
        pick(v, "mode", &[".???0", ".O"]),
        pick(v, "kind", &["", ".INVALID1", ".INVALID2", ".ATTR"]),
        v.suffix("skew", ".SKEW"),
        pick(v, "size", &["", ".U16", ".32", ".INVALID3"])
    );
    let base = v.get("ra");
    let address = unsigned_address(reg(base, 255), base == 255, v.get("offset"));
    (m, vec![address, register(v, "rb", 1)])
}

fn ldtram(v: &View) -> Parts {
    let m = format!("LDTRAM{}", if v.flag("c") { ".C" } else { ".AB" });
    let ur = v.get("ur");
    let address = unsigned_address(ureg(ur), ur == 63, 4 * v.get("word_offset"));
    (m, vec![dst(v), format!("a{address}")])
}

fn global_load(v: &View) -> Parts {
    const LTC: &[&str] = &["", ".LTC64B", ".LTC128B", ".LTC256B"];
    let m = format!(
        "{}{}{}{}{}{}",
        v.encoding.opcode,
        v.suffix("e", ".E"),
        pick(v, "cache", CACHE),
        pick(v, "ltc", LTC),
        pick(v, "size", SIZE),
        pick(v, "order", LOAD_ORDER)
    );
    let mut operands = Vec::new();
    optional_pred(v, "pd", &mut operands);
    operands.extend([dst(v), address(v, v.flag("a64"))]);
    // The predicate is stored inverted: 0 is PT.
    let predicate = 7 ^ v.get("ps_xor7");
    if predicate != 7 || v.flag("ps_not") {
        operands.push(pred(predicate, v.flag("ps_not")));
    }
    (m, operands)
}

fn global_store(v: &View) -> Parts {
    let m = format!(
        "{}{}{}{}{}",
        v.encoding.opcode,
        v.suffix("e", ".E"),
        pick(v, "cache", CACHE),
        pick(v, "size", SIZE),
        pick(v, "order", STORE_ORDER)
    );
    // Stores always address with 64 bits (bit 91 fixed).
    (m, vec![address(v, true), register(v, "rb", 1)])
}

/// `[R96.X16+0x800]`: shared and local addresses, the shared ones possibly scaled. With an RZ base the offset
/// is an absolute address, written unsigned (and any scale dropped).
fn scaled_address(v: &View) -> String {
    const SCALE: &[&str] = &["", ".X4", ".X8", ".X16"];
    let offset = v.signed("offset");
    let base = v.get("ra");
    let scale = SCALE[v.get("scale") as usize & 3];
    match (base, offset) {
        (255, 0) => "[RZ]".into(),
        (255, _) => format!("[{}]", hex(v.get("offset") as i64)),
        (_, 0) => format!("[{}{scale}]", reg(base, 255)),
        _ => format!("[{}{scale}+{}]", reg(base, 255), hex(offset)),
    }
}

/// The eviction priority of the forms that have one.
fn cache(v: &View) -> String {
    if v.has("cache") { pick(v, "cache", CACHE) } else { String::new() }
}

fn local_load(v: &View) -> Parts {
    let m = format!("{}{}{}", v.encoding.opcode, cache(v), pick(v, "size", SIZE));
    (m, vec![dst(v), scaled_address(v)])
}

fn local_store(v: &View) -> Parts {
    let m = format!("{}{}{}", v.encoding.opcode, cache(v), pick(v, "size", SIZE));
    (m, vec![scaled_address(v), register(v, "rb", 1)])
}

fn ldc(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".IL", ".IS", ".ISL"];
    const SIZE: &[&str] = &[".U8", ".S8", ".U16", ".S16", "", ".64", ".INVALID6", ".INVALID7"];
    let offset = v.signed("offset");
    let index = match (v.get("ra"), offset) {
        (255, _) => hex(offset),
        (base, 0) => reg(base, 255),
        (base, _) => format!("{}+{}", reg(base, 255), hex(offset)),
    };
    let m = format!("LDC{}{}", pick(v, "size", SIZE), pick(v, "mode", MODE));
    (m, vec![dst(v), format!("c[{:#x}][{index}]", v.get("cb_bank"))])
}

fn uldc(v: &View) -> Parts {
    const SIZE: &[&str] = &[".U8", ".S8", ".U16", ".S16", "", ".64", ".INVALID6", ".INVALID7"];
    let m = format!("ULDC{}", pick(v, "size", SIZE));
    (m, vec![ureg(v.get("urd")), format!("c[{:#x}][{:#x}]", v.get("cb_bank"), v.get("offset"))])
}

fn atom(v: &View) -> Parts {
    let cas = v.encoding.form() == "CAS";
    let op = if cas { if v.flag("cast") { ".CAST".into() } else { ".CAS".into() } } else { pick(v, "op", ATOMIC_OP) };
    let m = format!(
        "{}{}{op}{}{}{}",
        v.encoding.opcode,
        v.suffix("e", ".E"),
        pick(v, "cache", CACHE),
        pick(v, "ty", ATOMIC_TYPE),
        pick(v, "order", STORE_ORDER)
    );
    // Compare-and-swap addresses with 32 bits; the others always with 64 (bit 91 fixed).
    let mut operands = vec![pred(v.get("pd"), false), dst(v), address(v, !cas), register(v, "rb", 1)];
    if cas {
        operands.push(register(v, "rc", 2));
    }
    (m, operands)
}

fn atoms(v: &View) -> Parts {
    const TYPE: &[&str] = &["", ".S32", ".64", ".INVALID3"];
    let cas = v.encoding.form() == "CAS";
    let op = if cas {
        format!("{}{}", if v.flag("cast") { ".CAST" } else { ".CAS" }, v.suffix("spin", ".SPIN"))
    } else {
        pick(v, "op", ATOMIC_OP)
    };
    let m = format!("ATOMS{op}{}", pick(v, "ty", TYPE));
    let mut operands = vec![dst(v), scaled_address(v), register(v, "rb", 1)];
    if cas {
        operands.push(register(v, "rc", 2));
    }
    (m, operands)
}

fn red(v: &View) -> Parts {
    let m = format!(
        "RED{}{}{}{}{}",
        v.suffix("e", ".E"),
        pick(v, "op", ATOMIC_OP),
        pick(v, "cache", CACHE),
        pick(v, "ty", ATOMIC_TYPE),
        pick(v, "order", STORE_ORDER)
    );
    (m, vec![address(v, v.flag("a64")), register(v, "rb", 1)])
}

/// CCTL's operations (and CCTLL's, the first six).
const CCTL_OP: &[&str] =
    &[".PF1", ".PF2", ".WB", ".IV", ".IVALL", ".RS", ".IVALLP", ".WBALL", ".WBALLP", ".PML2", ".DML2", ".RML2"];

fn cctl(v: &View) -> Parts {
    const LEVEL: &[&str] = &["", ".U", ".C", ".I"];
    let m = format!("CCTL{}{}{}", v.suffix("e", ".E"), pick(v, "level", LEVEL), pick(v, "op", CCTL_OP));
    // The whole-cache operations take no address.
    if matches!(v.get("op"), 4 | 6..=8) {
        return (m, Vec::new());
    }
    (m, vec![address(v, false)])
}

fn membar(v: &View) -> Parts {
    const SCOPE: &[&str] = &[".CTA", ".SM", ".GPU", ".SYS", ".INVALID4", ".VC", ".INVALID6", ".INVALID7"];
    const KIND: &[&str] = &[".SC", ".ALL", "", ".MMIO"];
    let scope = v.get("scope");
    (format!("MEMBAR{}{}", name(KIND, scope >> 3), name(SCOPE, scope & 7)), Vec::new())
}

fn qspc(v: &View) -> Parts {
    const SPACE: &[&str] = &[".G", ".E.G", ".L", ".E.L", ".S", ".E.S", ".INVALID3", ".E.INVALID3"];
    let offset = v.signed("offset");
    let address = if offset == 0 {
        format!("[{}]", reg(v.get("ra"), 255))
    } else {
        format!("[{}+{}]", reg(v.get("ra"), 255), hex(offset))
    };
    (format!("QSPC{}", pick(v, "space", SPACE)), vec![pred(v.get("pd"), false), dst(v), address])
}

fn ldgsts(v: &View) -> Parts {
    const LTC: &[&str] = &["", ".LTC64B", ".LTC128B", ".LTC256B"];
    const ORDER: &[&str] = &[
        "",
        ".CONSTANT.PRIVATE",
        ".CONSTANT.CTA",
        ".CONSTANT.CTA.PRIVATE",
        ".CONSTANT",
        ".MMIO.CTA",
        ".GPU.PRIVATE",
        ".MMIO.CTA.PRIVATE",
        ".MMIO.SM",
        ".CONSTANT.SM",
        ".MMIO.VC",
        ".CONSTANT.SM.PRIVATE",
        ".MMIO.GPU",
        ".CONSTANT.VC",
        ".CONSTANT.VC.PRIVATE",
        ".CONSTANT.GPU",
    ];
    let m = format!(
        "LDGSTS.E{}{}{}{}{}{}",
        if v.flag("no_bypass") { "" } else { ".BYPASS" },
        pick(v, "cache", CACHE),
        pick(v, "ltc", LTC),
        pick(v, "size", SIZE),
        pick(v, "order", ORDER),
        v.suffix("zfill", ".ZFILL")
    );
    let shared = {
        let offset = v.signed("offset_s");
        if offset == 0 {
            format!("[{}]", reg(v.get("rd"), 255))
        } else {
            format!("[{}+{}]", reg(v.get("rd"), 255), hex(offset))
        }
    };
    let global = {
        let mut parts = vec![format!("{}.64", reg(v.get("ra"), 255))];
        if !v.flag("no_ur") {
            parts.push(ureg(v.get("ur")));
        }
        let offset = v.signed("offset_g");
        if offset != 0 {
            parts.push(hex(offset));
        }
        format!("[{}]", parts.join("+"))
    };
    let mut operands = vec![shared, global];
    if v.get("ps") != 7 || v.flag("ps_not") {
        operands.push(pred_src(v, "ps"));
    }
    (m, operands)
}

fn ldsm(v: &View) -> Parts {
    const COUNT: &[&str] = &["", ".2", ".4", ".INVALID3"];
    const SHAPE: &[&str] = &[".M88", ".M832", ".M816", ".INVALID3"];
    let shape = pick(v, "shape", SHAPE).replace(".M", if v.flag("trans") { ".MT" } else { ".M" });
    let m = format!("LDSM.16{shape}{}", pick(v, "count", COUNT));
    let offset = v.signed("offset");
    let address = if offset == 0 {
        format!("[{}]", reg(v.get("ra"), 255))
    } else {
        format!("[{}+{}]", reg(v.get("ra"), 255), hex(offset))
    };
    (m, vec![dst(v), address])
}

fn depbar(v: &View) -> Parts {
    const SCOREBOARD: &[&str] = &["SB0", "SB1", "SB2", "SB3", "SB4", "SB5", "INVALID6", "INVALID7"];
    let mut operands = Vec::new();
    if v.flag("le") {
        operands.push(SCOREBOARD[v.get("sb") as usize & 7].to_string());
        operands.push(hex(v.get("count") as i64));
    }
    // Further scoreboards to wait for entirely, listed from the highest.
    let also = v.get("also");
    if also != 0 {
        let list: Vec<String> = (0..6).rev().filter(|bit| also >> bit & 1 != 0).map(|bit| bit.to_string()).collect();
        operands.push(format!("{{{}}}", list.join(",")));
    }
    (format!("DEPBAR{}", v.suffix("le", ".LE")), operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Textures and surfaces.

const TEX_TARGET: &[&str] = &["1D", "2D", "3D", "CUBE", "ARRAY_1D", "ARRAY_2D", "INVALID6", "ARRAY_CUBE"];

fn texture(v: &View) -> Parts {
    const SCR: &[&str] = &["", ".B", ".SCR", ".SCR.B"];
    const F16: &[&str] = &["", ".F16.RN", ".F16.RZ", ".INVALID3"];
    let opcode = v.encoding.opcode;
    let modifiers = match opcode {
        "TEX" => {
            const LOD: &[&str] = &["", ".LZ", ".LB", ".LL", ".LC", ".LB.LC", ".LC.FDV", ".INVALID7"];
            format!(
                "{}{}{}{}{}{}",
                pick(v, "scr", SCR),
                pick(v, "f16", F16),
                pick(v, "lod", LOD),
                v.suffix("aoffi", ".AOFFI"),
                v.suffix("dc", ".DC"),
                v.suffix("ndv", ".NDV")
            )
        }
        "TLD" => {
            const LOD: &[&str] =
                &[".INVALID0", ".LZ", ".INVALID2", ".LL", ".INVALID4", ".INVALID5", ".INVALID6", ".INVALID7"];
            format!(
                "{}{}{}{}{}{}",
                pick(v, "scr", SCR),
                pick(v, "f16", F16),
                pick(v, "lod", LOD),
                v.suffix("aoffi", ".AOFFI"),
                v.suffix("ms", ".MS"),
                v.suffix("cl", ".CL")
            )
        }
        "TLD4" => {
            const COMPONENT: &[&str] = &[".R", ".G", ".B", ".A"];
            const OFFSETS: &[&str] = &["", ".AOFFI", ".PTP", ".INVALID3"];
            let scr = pick(v, "scr", &["", "", ".SCR", ".SCR"]);
            let bindless = if v.get("scr") & 1 != 0 { ".B" } else { "" };
            format!(
                "{scr}{}{}{bindless}{}{}",
                pick(v, "f16", F16),
                pick(v, "component", COMPONENT),
                pick(v, "offsets", OFFSETS),
                v.suffix("dc", ".DC")
            )
        }
        // Always .LOD (its one query).
        "TMML" => format!("{}.LOD{}", v.suffix("bindless", ".B"), v.suffix("ndv", ".NDV")),
        _ => format!("{}{}{}", v.suffix("bindless", ".B"), pick(v, "f16", F16), v.suffix("aoffi", ".AOFFI")),
    };
    let m = format!("{opcode}{modifiers}{}", v.suffix("nodep", ".NODEP"));
    let mut operands = Vec::new();
    optional_pred(v, "fault", &mut operands);
    operands.extend([reg(v.get("rd2"), 255), dst(v), register(v, "ra", 0)]);
    // Only TXD writes an RZ second source.
    if v.get("rb") != 255 || opcode == "TXD" {
        operands.push(register(v, "rb", 1));
    }
    if v.has("tex") {
        operands.extend([hex(v.get("bank") as i64), hex(v.get("tex") as i64)]);
    }
    operands.push(pick(v, "target", TEX_TARGET));
    if v.get("mask") != 15 {
        operands.push(hex(v.get("mask") as i64));
    }
    (m, operands)
}

fn txq(v: &View) -> Parts {
    const QUERY: &[&str] = &["TEX_HEADER_DIMENSION", "TEX_HEADER_TEXTURE_TYPE", "TEX_HEADER_SAMPLER_POS", "INVALID3"];
    let m = format!("TXQ{}{}", v.suffix("bindless", ".B"), v.suffix("nodep", ".NODEP"));
    let mut operands =
        vec![reg(v.get("rc"), 255), dst(v), register(v, "ra", 0), QUERY[v.get("query") as usize & 3].to_string()];
    if v.has("tex") {
        operands.extend([hex(v.get("bank") as i64), hex(v.get("tex") as i64)]);
    }
    operands.push(hex(v.get("mask") as i64));
    (m, operands)
}

fn surface(v: &View) -> Parts {
    const TARGET: &[&str] = &[".1D", ".1D_BUFFER", ".1D_ARRAY", ".2D", ".2D_ARRAY", ".3D", ".INVALID6", ".INVALID7"];
    const CLAMP: &[&str] = &[".IGN", "", ".TRAP", ".INVALID3"];
    const ATOMIC_SURFACE_TYPE: &[&str] = &["", ".S32", ".U64", ".F32.FTZ.RN", ".F16x2.RN", ".S64", ".SD32", ".SD64"];
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
    let opcode = v.encoding.opcode;
    let formatted = v.encoding.form() == "P";
    let atomic = matches!(opcode, "SURED" | "SUATOM");
    let data = if atomic { v.get("ty") } else { v.get("size") };
    let kind = if formatted {
        ".P"
    } else if data & 1 != 0 {
        ".D.BA"
    } else {
        ".D"
    };
    let order = if opcode == "SULD" { LOAD_ORDER } else { STORE_ORDER };
    let middle = if atomic {
        let op = if v.encoding.form() == "CAS" { ".CAS".into() } else { pick(v, "op", ATOMIC_OP) };
        format!("{op}{}{}", pick(v, "cache", CACHE), name(ATOMIC_SURFACE_TYPE, data >> 1))
    } else if formatted {
        // A formatted load takes R, RG or all four components only.
        let components = match (opcode, data) {
            ("SULD", 1 | 3 | 15) | ("SUST", _) => name(COMPONENTS, data),
            _ => format!(".INVALID{data}"),
        };
        format!("{}{components}", pick(v, "cache", CACHE))
    } else {
        format!("{}{}", pick(v, "cache", CACHE), name(SIZE, data >> 1))
    };
    let clamp = pick(v, "clamp", CLAMP);
    let target = pick(v, "target", TARGET);
    let m = format!("{opcode}{kind}{target}{middle}{}{clamp}", name(order, v.get("order")));
    let address = format!("[{}]", reg(v.get("ra"), 255));
    let (bank, surface) = (hex(v.get("bank") as i64), hex(v.get("surf") as i64));
    let operands = if opcode == "SULD" || opcode == "SUATOM" {
        let mut operands = Vec::new();
        optional_pred(v, "pd", &mut operands);
        operands.push(dst(v));
        operands.push(address);
        if opcode == "SUATOM" {
            operands.push(register(v, "rb", 1));
        }
        operands.extend([bank, surface]);
        operands
    } else {
        vec![address, register(v, "rb", 1), bank, surface]
    };
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Graphics stages.

const VECTOR_SIZE: &[&str] = &["", ".64", ".96", ".128"];

/// An attribute address: `a[0x80]` (ra RZ: 10 bits unsigned), `a[R2+0x10]` or `a[R2+-0x1]` (a signed 11-bit
/// offset on ra, none printed when 0), `a[R2]` for .PHYS.
fn attribute_address(v: &View) -> String {
    let ra = if v.has("ra") { v.get("ra") } else { 255 };
    match (ra, v.has("address")) {
        (_, false) => format!("a[{}]", reg(ra, 255)),
        (255, true) => format!("a[{}]", hex((v.get("address") & 0x3ff) as i64)),
        (_, true) => match v.signed("address") {
            0 => format!("a[{}]", reg(ra, 255)),
            offset => format!("a[{}+{}]", reg(ra, 255), hex(offset)),
        },
    }
}

/// ALD and AST: `ALD[.O][.P|.PHYS][.64|.96|.128] Rd, a[...][, Rb]`, `AST[.P|.PHYS][...] a[...], Rs[, Rb]` (the
/// vertex register rb only when not RZ).
fn attribute(v: &View) -> Parts {
    let load = v.encoding.opcode == "ALD";
    let form = match v.encoding.form() {
        "" => String::new(),
        form => format!(".{form}"),
    };
    let size = if v.has("size") { pick(v, "size", VECTOR_SIZE) } else { String::new() };
    let m = format!("{}{}{form}{size}", v.encoding.opcode, if load { v.suffix("output", ".O") } else { "" });
    let mut operands =
        if load { vec![dst(v), attribute_address(v)] } else { vec![attribute_address(v), reg(v.get("rs"), 255)] };
    if v.has("rb") && v.get("rb") != 255 {
        operands.push(reg(v.get("rb"), 255));
    }
    (m, operands)
}

/// `IPA.mode[.CENTROID|.OFFSET] Rd[, Pd], a[0xADDR][, offset]`: the address in words, indexed by a uniform
/// register in the immediate form (bit 91); the offset (a register, an unsigned immediate or a constant) only
/// with .OFFSET.
fn ipa(v: &View) -> Parts {
    const MODE: &[&str] = &[".PASS", ".CONSTANT", ".STATE", ".INVALID3"];
    const SAMPLE: &[&str] = &["", ".CENTROID", ".OFFSET"];
    let offset_form = !v.has("sample");
    let sample = if offset_form { ".OFFSET".to_string() } else { pick(v, "sample", SAMPLE) };
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    let address = hex(4 * v.get("address") as i64);
    operands.push(match v.has("ur_valid") && v.flag("ur_valid") {
        false => format!("a[{address}]"),
        true if v.get("address") == 0 => format!("a[{}]", ureg(v.get("ur"))),
        true => format!("a[{}+{address}]", ureg(v.get("ur"))),
    });
    if v.has("imm32") {
        operands.push(hex(v.get("imm32") as i64));
    } else if v.has("cb_bank") {
        operands.push(cbuf(v));
    } else if sample == ".OFFSET" {
        operands.push(reg(v.get("rb"), 255));
    }
    (format!("IPA{}{sample}", pick(v, "mode", MODE)), operands)
}

/// `OUT.FINAL Ra`, `OUT.CUT Rd, Ra, RZ`, `OUT.EMIT[_THEN_CUT] Rd, Ra, Rb|imm` (the immediate signed).
fn out(v: &View) -> Parts {
    let ra = reg(v.get("ra"), 255);
    match v.encoding.form() {
        "final" => ("OUT.FINAL".into(), vec![ra]),
        "cut" => ("OUT.CUT".into(), vec![dst(v), ra, "RZ".into()]),
        _ => {
            let kind = if v.flag("cut") { "OUT.EMIT_THEN_CUT" } else { "OUT.EMIT" };
            let stream = if v.has("imm32") { hex(v.get("imm32") as u32 as i32 as i64) } else { reg(v.get("rb"), 255) };
            (kind.into(), vec![dst(v), ra, stream])
        }
    }
}

/// `PIXLD[.mode] Rd[, Pd]`.
fn pixld(v: &View) -> Parts {
    const MODE: &[&str] =
        &["", ".COVMASK", ".CENTROID_OFFSET", ".MY_INDEX", ".INNER_COVERAGE", ".???5", ".???6", ".???7"];
    let mut operands = vec![dst(v)];
    optional_pred(v, "pd", &mut operands);
    (format!("PIXLD{}", pick(v, "mode", MODE)), operands)
}

/// `ISBERD[.O][.PATCH|.PRIM|.ATTR][.SKEW][.U16|.32] Rd, [Ra+offset]` (`[RZ]`, `[0x10]` without a register).
fn isberd(v: &View) -> Parts {
    const SIZE: &[&str] = &["", ".U16", ".32", ".INVALID3"];
    const MODE: &[&str] = &["", ".PATCH", ".PRIM", ".ATTR"];
    let m = format!(
        "ISBERD{}{}{}{}",
        v.suffix("output", ".O"),
        pick(v, "mode", MODE),
        v.suffix("skew", ".SKEW"),
        pick(v, "size", SIZE)
    );
    let (ra, offset) = (v.get("ra"), v.get("offset") as i64);
    let address = match (ra, offset) {
        (_, 0) => format!("[{}]", reg(ra, 255)),
        (255, _) => format!("[{}]", hex(offset)),
        _ => format!("[{}+{}]", reg(ra, 255), hex(offset)),
    };
    (m, vec![dst(v), address])
}

/// `AL2P[.O][.64|.96|.128] Rd, Ra, offset` (a signed 11-bit offset), or `AL2P Rd, offset` (10 bits unsigned)
/// when ra is RZ.
fn al2p(v: &View) -> Parts {
    let m = format!("AL2P{}{}", v.suffix("output", ".O"), pick(v, "size", VECTOR_SIZE));
    let operands = match v.get("ra") {
        255 => vec![dst(v), hex((v.get("address") & 0x3ff) as i64)],
        ra => vec![dst(v), reg(ra, 255), hex(v.signed("address"))],
    };
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Control flow.

/// Absolute branch target: the signed word offset is from the next instruction.
fn target(v: &View) -> String {
    hex(v.offset as i64 + 16 + v.signed("offset") * 4)
}

/// A predicate source printed only when it is not PT.
fn optional_pred_src(v: &View, field: &str, operands: &mut Vec<String>) {
    if v.get(field) != 7 || v.flag(&format!("{field}_not")) {
        operands.push(pred_src(v, field));
    }
}

fn bra(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".INVALID1", ".DIV", ".CONV"];
    const INC_DEC: &[&str] = &["", ".INC", ".DEC", ".INVALID3"];
    let m = format!("BRA{}{}", pick(v, "inc_dec", INC_DEC), pick(v, "mode", MODE));
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    if v.flag("ur_valid") {
        operands.push(format!("{}{}", if v.flag("ur_not") { "~" } else { "" }, ureg(v.get("ur"))));
    }
    operands.push(target(v));
    (m, operands)
}

/// `BRX[.INC|.DEC] Ra [offset]` and `BRXU[.INC|.DEC][.mode] URa [offset]`.
fn indirect_branch(v: &View) -> Parts {
    const INC_DEC: &[&str] = &["", ".INC", ".DEC", ".INVALID3"];
    const MODE: &[&str] = &["", ".U", ".DIV", ".CONV"];
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    let register = if v.has("ur") { ureg(v.get("ur")) } else { reg(v.get("ra"), 255) };
    // nvdisasm writes the register and the raw byte offset (none when 0) without a comma between them.
    operands.push(match v.signed("offset") {
        0 => register,
        offset => format!("{register} {}", hex(offset * 4)),
    });
    let mode = if v.has("mode") { pick(v, "mode", MODE) } else { String::new() };
    (format!("{}{}{mode}", v.encoding.opcode, pick(v, "inc_dec", INC_DEC)), operands)
}

fn bssy(v: &View) -> Parts {
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    operands.extend([format!("B{}", v.get("bar")), target(v)]);
    ("BSSY".into(), operands)
}

fn barrier_register(v: &View) -> Parts {
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    operands.push(format!("B{}", v.get("bar")));
    (v.encoding.opcode.to_string(), operands)
}

fn call(v: &View) -> Parts {
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    let absolute = v.encoding.form().starts_with("abs");
    // Through a register, the register and the displacement make one operand, as RET's (CALL.ABS's displacement
    // is as encoded, omitted when 0).
    operands.push(match (absolute, v.has("ra")) {
        (true, true) if v.signed("offset") == 0 => reg(v.get("ra"), 255),
        (true, true) => format!("{} {}", reg(v.get("ra"), 255), hex(v.signed("offset") * 4)),
        (true, false) => hex(v.get("address") as i64 * 4),
        (false, true) => format!("{} {}", reg(v.get("ra"), 255), target(v)),
        (false, false) => target(v),
    });
    let kind = if absolute { ".ABS" } else { ".REL" };
    (format!("CALL{kind}{}", v.suffix("noinc", ".NOINC")), operands)
}

fn ret(v: &View) -> Parts {
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    let base = if v.flag("uniform") { ureg(v.get("ra")) } else { reg(v.get("ra"), 255) };
    // The absolute form writes its offset as it is.
    let offset = if v.flag("abs") { hex(v.signed("offset") * 4) } else { target(v) };
    operands.push(format!("{base} {offset}"));
    let m = format!("RET{}{}", if v.flag("abs") { ".ABS" } else { ".REL" }, v.suffix("nodec", ".NODEC"));
    (m, operands)
}

fn exit(v: &View) -> Parts {
    const MODE: &[&str] = &[
        "",
        ".KEEPREFCOUNT",
        ".PREEMPTED",
        ".INVALID3",
        ".NO_ATEXIT",
        ".KEEPREFCOUNT.NO_ATEXIT",
        ".PREEMPTED.NO_ATEXIT",
        ".INVALID3.NO_ATEXIT",
    ];
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    (format!("EXIT{}", pick(v, "mode", MODE)), operands)
}

fn bpt(v: &View) -> Parts {
    const MODE: &[&str] = &[".DRAIN", ".CAL", ".PAUSE", ".TRAP"];
    let operands = if v.get("imm") != 0 { vec![hex(v.get("imm") as i64)] } else { Vec::new() };
    (format!("BPT{}", pick(v, "mode", MODE)), operands)
}

fn nanosleep(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".WARP", ".RAND", ".RAND.WARP"];
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    operands.push(if v.has("imm32") { hex(v.get("imm32") as i64) } else { register(v, "rb", 1) });
    (format!("NANOSLEEP{}", pick(v, "mode", MODE)), operands)
}

fn warpsync(v: &View) -> Parts {
    let mut operands = Vec::new();
    optional_pred_src(v, "ps", &mut operands);
    operands.push(if v.has("imm32") { hex(v.get("imm32") as i64) } else { register(v, "rb", 1) });
    (format!("WARPSYNC{}", v.suffix("exclusive", ".EXCLUSIVE")), operands)
}

fn bmov(v: &View) -> Parts {
    if v.encoding.form() == "to_bar" {
        let m = format!("BMOV.32{}", v.suffix("pquad", ".PQUAD"));
        (m, vec![format!("B{}", v.get("bar")), register(v, "rb", 1)])
    } else {
        (format!("BMOV.32{}", v.suffix("clear", ".CLEAR")), vec![dst(v), format!("B{}", v.get("bar"))])
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Barriers, votes, shuffles and reductions.

fn bar(v: &View) -> Parts {
    const RED: &[&str] = &[".POPC", ".AND", ".OR", ".INVALID3"];
    let mode = match v.get("mode") {
        0 => ".SYNC".to_string(),
        1 => ".ARV".to_string(),
        2 => format!(".RED{}", pick(v, "red", RED)),
        _ => ".SYNCALL".to_string(),
    };
    let blocking = if v.get("mode") != 1 && v.flag("defer") { ".DEFER_BLOCKING" } else { "" };
    let mut operands = vec![if v.has("id") { hex(v.get("id") as i64) } else { register(v, "rb", 1) }];
    if v.get("count") != 0 {
        operands.push(hex(v.get("count") as i64));
    }
    if v.get("mode") == 2 {
        operands.push(pred_src(v, "ps"));
    }
    (format!("BAR{mode}{blocking}"), operands)
}

fn b2r(v: &View) -> Parts {
    const MODE: &[&str] = &["", ".RESULT", ".WARP", ".INVALID3"];
    let mut operands = vec![dst(v)];
    match v.get("mode") {
        0 => operands.push(hex(v.get("bar") as i64)),
        1 => optional_pred(v, "pd", &mut operands),
        _ => {}
    }
    (format!("B2R{}", pick(v, "mode", MODE)), operands)
}

fn vote(v: &View) -> Parts {
    const MODE: &[&str] = &[".ALL", ".ANY", ".EQ", ".INVALID3"];
    let uniform = v.encoding.opcode == "VOTEU";
    let m = format!("{}{}", v.encoding.opcode, pick(v, "mode", MODE));
    let mut operands = Vec::new();
    if uniform {
        operands.push(ureg(v.get("urd")));
        operands.push(upred(v.get("upd"), false));
    } else {
        if v.get("rd") != 255 {
            operands.push(dst(v));
        }
        operands.push(pred(v.get("pd"), false));
    }
    operands.push(pred_src(v, "ps"));
    (m, operands)
}

fn shfl(v: &View) -> Parts {
    const MODE: &[&str] = &[".IDX", ".UP", ".DOWN", ".BFLY"];
    let lane = if v.has("lane") { hex(v.get("lane") as i64) } else { register(v, "rb", 1) };
    let clamp = if v.has("clamp") { hex(v.get("clamp") as i64) } else { register(v, "rc", 2) };
    let operands = vec![pred(v.get("pd"), false), dst(v), register(v, "ra", 0), lane, clamp];
    (format!("SHFL{}", pick(v, "mode", MODE)), operands)
}

fn match_(v: &View) -> Parts {
    let m = format!("MATCH{}{}", if v.flag("any") { ".ANY" } else { ".ALL" }, v.suffix("wide", ".U64"));
    let mut operands = Vec::new();
    if !v.flag("any") {
        operands.push(pred(v.get("pd"), false));
    }
    operands.extend([dst(v), register(v, "ra", 0)]);
    (m, operands)
}

fn redux(v: &View) -> Parts {
    const OP: &[&str] = &["", ".OR", ".XOR", ".SUM", ".MIN", ".MAX", ".INVALID6", ".INVALID7"];
    let m = format!("REDUX{}{}", pick(v, "op", OP), v.suffix("signed", ".S32"));
    (m, vec![ureg(v.get("urd")), register(v, "ra", 0)])
}

fn r2ur(v: &View) -> Parts {
    let mut operands = Vec::new();
    optional_pred(v, "pd", &mut operands);
    operands.extend([ureg(v.get("urd")), register(v, "ra", 0)]);
    (format!("R2UR{}", v.suffix("or", ".OR")), operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Uniform datapath.

fn uimad(v: &View) -> Parts {
    let m = format!("UIMAD{}{}", if v.flag("signed") { "" } else { ".U32" }, v.suffix("x", ".X"));
    let operands =
        vec![ureg(v.get("urd")), ureg(v.get("ura")), ureg(v.get("urc")), hex(v.get("imm32") as u32 as i32 as i64)];
    (m, operands)
}

/// `P2R[.Bn] Rd, PR, Ra, mask`: the predicates into byte n of ra under the mask.
fn p2r(v: &View) -> Parts {
    (format!("P2R{}", pick(v, "byte", BYTE)), vec![dst(v), "PR".into(), register(v, "ra", 0), bits_b(v)])
}

/// `R2P PR, Ra[.Bn], mask`: the bits of ra's byte n under the mask into the predicates.
fn r2p(v: &View) -> Parts {
    let a = operand(v, "ra", 0, false, false, BYTE[v.get("byte") as usize & 3]);
    ("R2P".into(), vec!["PR".into(), a, bits_b(v)])
}

/// A uniform instruction's second source: urb, or the immediate.
fn uniform_b(v: &View) -> String {
    if v.has("imm32") { hex(v.get("imm32") as i64) } else { ureg(v.get("urb")) }
}

/// `UPRMT URd, URa, selector, URc`: PRMT's default mode on uniform registers (nvdisasm knows no other).
fn uprmt(v: &View) -> Parts {
    ("UPRMT".into(), vec![ureg(v.get("urd")), ureg(v.get("ura")), uniform_b(v), ureg(v.get("urc"))])
}

fn ulop3(v: &View) -> Parts {
    let mut operands = Vec::new();
    if v.get("upd") != 7 {
        operands.push(upred(v.get("upd"), false));
    }
    operands.extend([
        ureg(v.get("urd")),
        ureg(v.get("ura")),
        hex(v.get("imm32") as i64),
        ureg(v.get("urc")),
        hex(v.get("lut") as i64),
        upred(v.get("ups"), v.flag("ups_not")),
    ]);
    (format!("ULOP3.LUT{}", v.suffix("pand", ".PAND")), operands)
}

fn ushf(v: &View) -> Parts {
    let m = format!(
        "USHF{}{}{}{}",
        if v.flag("right") { ".R" } else { ".L" },
        v.suffix("wrap", ".W"),
        shift_type(v),
        v.suffix("hi", ".HI")
    );
    let operands = vec![ureg(v.get("urd")), ureg(v.get("ura")), hex(v.get("imm32") as i64), ureg(v.get("urc"))];
    (m, operands)
}

fn uflo(v: &View) -> Parts {
    let m = format!("UFLO{}{}", if v.flag("signed") { "" } else { ".U32" }, v.suffix("sh", ".SH"));
    let mut operands = vec![ureg(v.get("urd"))];
    if v.get("upd") != 7 {
        operands.push(upred(v.get("upd"), false));
    }
    operands.push(format!("{}{}", if v.flag("inv_b") { "~" } else { "" }, ureg(v.get("urb"))));
    (m, operands)
}

// ---------------------------------------------------------------------------------------------------------------
// Matrix multiply-accumulate.

/// The optional uniform predicate of the tensor instructions, stored inverted (0 is UPT).
fn tensor_predicate(v: &View, operands: &mut Vec<String>) {
    let predicate = 7 ^ v.get("ups_xor7");
    if predicate != 7 || v.flag("ups_not") {
        operands.push(upred(predicate, v.flag("ups_not")));
    }
}

fn hmma(v: &View) -> Parts {
    const SHAPE: &[&str] = &[".1688", ".16816", ".1684", ".INVALID3"];
    const AB_TYPE: &[&str] = &["", ".BF16", ".TF32", ".INVALID3"];
    let m = format!(
        "HMMA{}{}{}",
        pick(v, "shape", SHAPE),
        if v.flag("f32") { ".F32" } else { ".F16" },
        pick(v, "ab_type", AB_TYPE)
    );
    let mut operands = vec![
        dst(v),
        operand(v, "ra", 0, v.flag("neg_a"), false, ""),
        operand(v, "rb", 1, v.flag("neg_b"), false, ""),
        register(v, "rc", 2),
    ];
    tensor_predicate(v, &mut operands);
    (m, operands)
}

/// The integer and bit tensor instructions: A row-major (flag clear), B column-major (flag set); nvdisasm
/// writes `.???n` for the other layouts.
fn tensor_operands(v: &View) -> Vec<String> {
    let a_layout = if v.flag("col_a") { ".???1" } else { ".ROW" };
    let b_layout = if v.flag("col_b") { ".COL" } else { ".???0" };
    let mut operands = vec![
        dst(v),
        format!("{}{a_layout}", register(v, "ra", 0)),
        format!("{}{b_layout}", register(v, "rb", 1)),
        register(v, "rc", 2),
    ];
    tensor_predicate(v, &mut operands);
    operands
}

fn imma(v: &View) -> Parts {
    const SHAPE: &[&str] = &[".8816", ".INVALID1", ".8832", ".INVALID3", ".16816", ".16832", ".16864", ".INVALID7"];
    const TYPE: &[&str] = &[".U8", ".S8", ".INVALID2", ".INVALID3", ".U4", ".S4", ".INVALID6", ".INVALID7"];
    let m = format!(
        "IMMA{}{}{}{}",
        pick(v, "shape", SHAPE),
        pick(v, "a_type", TYPE),
        pick(v, "b_type", TYPE),
        v.suffix("sat", ".SAT")
    );
    (m, tensor_operands(v))
}

fn bmma(v: &View) -> Parts {
    const SHAPE: &[&str] = &[".88128", ".168128", ".168256", ".INVALID3"];
    const OP: &[&str] = &[".XOR", ".INVALID1", ".AND", ".INVALID3"];
    let popc = if v.flag("popc") { ".POPC" } else { ".???0" };
    (format!("BMMA{}{}{popc}", pick(v, "shape", SHAPE), pick(v, "op", OP)), tensor_operands(v))
}

fn dmma(v: &View) -> Parts {
    let operands = vec![dst(v), float_a(v), float_b(v, true), float_c(v)];
    (format!("DMMA.884{}", pick(v, "rnd", ROUND)), operands)
}
