//! nxgpucatch's floating-point, conversion, FP16-pair and flow tests (see the crate root's doc).

use super::*;

// ===============================================================================================================
// Helpers.

/// A constant bank holding `words`.
fn bank(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}

/// A constant bank holding FP64 `values`, one after another.
fn bank64(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

/// `MOV Rn, c[2][4i]` lines, word i of bank 2 into `registers[i]`: how nxgpucatch's tests load their inputs.
fn load(registers: &[u32]) -> String {
    registers.iter().enumerate().map(|(i, r)| format!("MOV.cbuf rd={r} cb_bank=2 cb_offset={i} lanes=15\n")).collect()
}

/// `set` of 64-bit values into register pairs (low word first).
fn set64(pairs: &[(u32, u64)]) -> String {
    pairs.iter().map(|&(n, value)| set(&[(n, value as u32), (n + 1, (value >> 32) as u32)])).collect()
}

/// `check` of a 64-bit result in R2:R3: its low word, then its high word (moved into R2).
fn check64(name: &str, body: &str, constants: Vec<(u32, Vec<u8>)>, expected: u64) {
    check(&format!("{name}_lo"), body, constants.clone(), each(expected as u32));
    let high = format!("{body}\nMOV.reg rd=2 rb=3 lanes=15");
    check(&format!("{name}_hi"), &high, constants, each((expected >> 32) as u32));
}

/// One program for many vectors: thread t loads row t mod `rows.len()` (up to four words, from bank 3 through its
/// index: LDC c[3][16t + 4i]) into R2, R3, ..., runs `body`, and must leave the row's word.
fn check_rows(name: &str, body: &str, rows: Vec<(Vec<u32>, u32)>) {
    assert!((1..=64).contains(&rows.len()) && rows.iter().all(|(words, _)| words.len() <= 4));
    let width = rows.iter().map(|(words, _)| words.len()).max().unwrap_or(0);
    let mut table = Vec::new();
    for t in 0..64 {
        let words = &rows[t % rows.len()].0;
        table.extend((0..4).map(|i| words.get(i).copied().unwrap_or(0)));
    }
    let loads: String =
        (0..width).map(|i| format!("LDC rd={} ra=1 offset={} cb_bank=3 mode=0 size=4\n", 2 + i, 4 * i)).collect();
    let words: Vec<u32> = rows.iter().map(|(_, word)| *word).collect();
    let body = format!("SHL.imm rd=1 ra=0 imm20=4\n{loads}{body}");
    check(name, &body, vec![(3, bank(&table))], move |t| words[t as usize % words.len()]);
}

/// A conversion `line` (R2 from R2, or from R2:R3) of each row's input, a row a thread, against the row's result:
/// with `mask` at most 32 bits, R2's masked bits (nxgpucatch reads 16 bits of an FP16 or 16-bit result, and compares
/// zeros without their sign); else both words of R2:R3.
fn check_conversions(name: &str, line: &str, mask: u64, rows: &[(u64, u64)]) {
    let table = |part: &dyn Fn(u64) -> u32| -> Vec<(Vec<u32>, u32)> {
        rows.iter().map(|&(input, result)| (vec![input as u32, (input >> 32) as u32], part(result))).collect()
    };
    if mask > u64::from(u32::MAX) {
        check_rows(&format!("{name}_lo"), line, table(&|result| result as u32));
        let high = format!("{line}\nMOV.reg rd=2 rb=3 lanes=15");
        check_rows(&format!("{name}_hi"), &high, table(&|result| (result >> 32) as u32));
    } else {
        let body = format!("{line}\nLOP32I rd=2 ra=2 imm32={mask:#x} op=0");
        check_rows(name, &body, table(&|result| (result & mask) as u32));
    }
}

/// The FP16 bits of `x`, a number FP16 holds exactly (normal, or zero).
fn h(x: f32) -> u32 {
    let bits = x.to_bits();
    let sign = bits >> 16 & 0x8000;
    if bits & 0x7fff_ffff == 0 {
        return sign;
    }
    let exponent = (bits >> 23 & 0xff) as i32 - 112;
    assert!((1..31).contains(&exponent) && bits & 0x1fff == 0, "{x} is not an FP16 number");
    sign | (exponent as u32) << 10 | (bits >> 13 & 0x3ff)
}

/// An FP16 pair's register: `lo` in H0, `hi` in H1.
fn pair(lo: f32, hi: f32) -> u32 {
    h(hi) << 16 | h(lo)
}

/// One half of the 10-bit immediate pairs (`imm_lo`, `imm_hi` of HADD2.imm, HFMA2.imm, HSET2.imm): the sign and
/// the top nine bits of the FP16 value. nxas writes such a pair high half first ("-4, 2" is H1 = -4, H0 = 2).
fn imm_half(x: f32) -> u32 {
    let bits = h(x);
    assert_eq!(bits & 0x3f, 0, "{x} is not a 10-bit immediate half");
    bits >> 15 << 9 | bits >> 6 & 0x1ff
}

/// The 20-bit immediate of an FP32 operand: its top bits (the low 12 must be clear).
fn imm20(x: f32) -> u32 {
    assert_eq!(x.to_bits() & 0xfff, 0, "{x} is not a 20-bit immediate");
    x.to_bits() >> 12
}

/// The 20-bit immediate of an FP64 operand: its top bits (the low 44 must be clear).
fn imm20_64(x: f64) -> u64 {
    assert_eq!(x.to_bits() & ((1 << 44) - 1), 0, "{x} is not a 20-bit immediate");
    x.to_bits() >> 44
}

/// All ones: a comparison that held.
const TRUE: u32 = u32::MAX;
/// R2 = all ones where R2 is an FP32 NaN (FSET.NAN of R2 with itself), else 0: nxgpucatch's `std::isnan`.
const IS_NAN: &str = "\nFSET.reg rd=2 ra=2 rb=2 cmp=8 ps=7";
/// The same of the FP64 in R2:R3 (DSET.NAN).
const IS_NAN64: &str = "\nDSET.reg rd=2 ra=2 rb=2 cmp=8 ps=7";
/// R2 without its sign: where nxgpucatch compares a result with 0.0 (which -0.0 equals) the hardware pins no sign.
const MAGNITUDE: &str = "\nLOP32I rd=2 ra=2 imm32=0x7fffffff op=0";
/// R2's sign bit alone: nxgpucatch's `std::signbit`.
const SIGN: &str = "\nLOP32I rd=2 ra=2 imm32=0x80000000 op=0";
/// R2 = all ones where R2 > 0.0 (no .FTZ: a denormal counts), else 0.
const POSITIVE: &str = "\nFSET.reg rd=2 ra=2 rb=255 cmp=4 ps=7";
/// R2 = 0x0f where P0 holds plus 0xf0 where P1 does (dsetp.cpp's SELs and IADD).
const PREDICATE_PAIR: &str = "\nSEL.imm rd=2 ra=255 imm20=0xf ps=0 ps_not=1\nSEL.imm rd=3 ra=255 imm20=0xf0 ps=1 ps_not=1\nIADD.reg rd=2 ra=2 rb=3";
/// R2 = all ones where P0 holds, else 0 (fsetp.cpp's `SEL R2, RZ, -1, !P0`).
const P0_WORD: &str = "\nSEL.imm rd=2 ra=255 imm20=0xfffff ps=0 ps_not=1";

/// R2 = all ones where |R2 - target| <= tolerance (R4, R5 scratch), else 0: nxgpucatch's `ThresholdCompare`.
fn within(target: f32, tolerance: f32) -> String {
    format!(
        "\n{}FADD.reg rd=2 ra=2 rb=4 neg_b=1\nFSET.reg rd=2 ra=2 rb=5 abs_a=1 cmp=3 ps=7",
        set(&[(4, target.to_bits()), (5, tolerance.to_bits())])
    )
}

/// `opcode` of a (R2) and b in the forms nxgpucatch's EvalBinaryImm runs and requires to agree: b in R4 (`.reg`),
/// at c[2][8] (`.cbuf`) and, where its low 12 bits are clear, as the 20-bit immediate (`.imm`; nxgpucatch's
/// EvalBinary, without Imm, runs the first two, with such b only). `after` turns R2 into the word compared.
fn binary32(name: &str, opcode: &str, fields: &str, (a, b): (f32, f32), after: &str, expected: u32) {
    let inputs = set(&[(2, a.to_bits()), (4, b.to_bits())]);
    let constants = vec![(2, bank(&[a.to_bits(), 0, b.to_bits(), 0]))];
    let mut forms = vec![("reg", "rb=4".to_string()), ("cbuf", "cb_bank=2 cb_offset=2".to_string())];
    if b.to_bits() & 0xfff == 0 {
        forms.push(("imm", format!("imm20={:#x}", imm20(b))));
    }
    for (form, operand) in forms {
        let body = format!("{inputs}{opcode}.{form} rd=2 ra=2 {operand} {fields}{after}");
        check(&format!("{name}_{form}"), &body, constants.clone(), each(expected));
    }
}

/// STG of R2 to the thread's word, as `straight_line` stores it, without the EXIT (for programs that store early).
const STORE: &str = "
SHL.imm rd=6 ra=0 imm20=2
IADD.cbuf rd=6 ra=6 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=7 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=2 ra=6 e=1 size=4
";

// ===============================================================================================================
// FP32 arithmetic.

/// fadd.cpp "FADD Simple", "FADD Saturate", "FADD NAN", "FADD INF": FADD.FTZ in its three forms, with each source's
/// negation and absolute value; .SAT clamps to [0, 1]; a NaN operand, and inf - inf, give NaN. FADD32I.FTZ of R2 = 5
/// and 3.0, R2 negated or not.
#[test]
fn fadd_follows_the_hardware() {
    let f = |x: f32| x.to_bits();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    for (i, (fields, a, b, after, expected)) in [
        ("", 5.0, 3.0, "", f(8.0)),
        ("", 1.0, 3.0, "", f(4.0)),
        ("", -1.0, 4.0, "", f(3.0)),
        ("neg_a=1", -1.0, 4.0, "", f(5.0)),
        ("neg_a=1 abs_a=1", -1.0, 4.0, "", f(3.0)),
        ("abs_a=1", -1.0, 4.0, "", f(5.0)),
        ("neg_b=1", 1.0, -2.0, "", f(3.0)),
        ("abs_b=1", 1.0, -2.0, "", f(3.0)),
        ("neg_b=1 abs_b=1", 1.0, -2.0, "", f(-1.0)),
        ("sat=1", 4.0, 2.0, "", f(1.0)),
        ("sat=1", -4.0, 2.0, MAGNITUDE, 0),
        ("sat=1", 0.5, 0.25, "", f(0.75)),
        ("", nan, 0.0, IS_NAN, TRUE),
        ("", 0.0, nan, IS_NAN, TRUE),
        ("", nan, nan, IS_NAN, TRUE),
        ("neg_a=1", nan, nan, IS_NAN, TRUE),
        ("", inf, 0.0, "", f(inf)),
        ("", 0.0, inf, "", f(inf)),
        ("neg_a=1", inf, inf, IS_NAN, TRUE),
        ("", -inf, inf, IS_NAN, TRUE),
    ]
    .into_iter()
    .enumerate()
    {
        binary32(&format!("fadd_{i}"), "FADD", &format!("ftz=1 {fields}"), (a, b), after, expected);
    }
    for (neg_a, expected) in [(0, 8.0f32), (1, -2.0)] {
        let body = format!("{}FADD32I rd=2 ra=2 imm32={:#x} ftz=1 neg_a={neg_a}", set(&[(2, f(5.0))]), f(3.0));
        check(&format!("fadd32i_{neg_a}"), &body, Vec::new(), each(expected.to_bits()));
    }
}

/// fadd.cpp "FADD Rounding" and "FADD Denorm" (EvalBinary: register and constant forms). 0.001f + 0.002f is a tie
/// in FP32 (25769805 x 2^-33): .RN (to even), .RZ and .RM give at most 0.003f, .RP more; of -0.001f + -0.002f .RM
/// gives less than -0.003f, the others not. Without .FTZ two denormals add exactly, with it they flush; FADD32I
/// with 0.0 keeps a denormal above zero, or with .FTZ flushes it.
#[test]
fn fadd_rounds_and_flushes_as_asked() {
    let limit = 0.003f32.to_bits();
    // (rnd: 0 RN, 1 RM, 2 RP, 3 RZ; negative sources; the comparison with ±0.003f that held: 1 LT, 3 LE, 4 GT, 6 GE)
    for (rnd, negative, cmp) in [
        (0, false, 3),
        (3, false, 3),
        (1, false, 3),
        (2, false, 4),
        (1, true, 1),
        (0, true, 6),
        (3, true, 6),
        (2, true, 6),
    ] {
        let sign = if negative { -1.0f32 } else { 1.0 };
        let after =
            format!("\n{}FSET.reg rd=2 ra=2 rb=5 cmp={cmp} ps=7", set(&[(5, limit ^ u32::from(negative) << 31)]));
        let name = format!("fadd_rnd_{rnd}_{negative}");
        binary32(&name, "FADD", &format!("ftz=1 rnd={rnd}"), (0.001 * sign, 0.002 * sign), &after, TRUE);
    }
    let denormal = 1e-40f32;
    binary32("fadd_denormals", "FADD", "", (denormal, denormal), "", (denormal + denormal).to_bits());
    binary32("fadd_denormals_ftz", "FADD", "ftz=1", (denormal, denormal), MAGNITUDE, 0);
    for (ftz, after, expected) in [(0, POSITIVE, TRUE), (1, MAGNITUDE, 0)] {
        let body = format!("{}FADD32I rd=2 ra=2 imm32=0 ftz={ftz}{after}", set(&[(2, denormal.to_bits())]));
        check(&format!("fadd32i_denormal_{ftz}"), &body, Vec::new(), each(expected));
    }
}

/// fmul.cpp "FMUL Simple", "FMUL SAT" (unscaled), "FMUL NAN" and "FMUL Denorm": FMUL.FTZ (fmz=1) in its three forms;
/// FMUL32I.FTZ of R2 = 1.5; NaN operands and 0 x inf give NaN, .SAT makes NaN 0; FMUL.FTZ R2 (1.5), c[2][0] of a
/// denormal flushes it, FMUL without .FTZ keeps the product above zero.
#[test]
fn fmul_follows_the_hardware() {
    let f = |x: f32| x.to_bits();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    for (i, (fields, a, b, after, expected)) in [
        ("", 1.0, 3.0, "", f(3.0)),
        ("", 2.0, 3.0, "", f(6.0)),
        ("", -2.0, 4.0, "", f(-8.0)),
        ("neg_b=1", 2.0, 3.0, "", f(-6.0)),
        ("sat=1", 2.0, 2.0, "", f(1.0)),
        ("", 2.0, inf, "", f(inf)),
        ("", nan, 2.0, IS_NAN, TRUE),
        ("", 2.0, nan, IS_NAN, TRUE),
        ("", nan, nan, IS_NAN, TRUE),
        ("", nan, 0.0, IS_NAN, TRUE),
        ("", nan, -0.0, IS_NAN, TRUE),
        ("", nan, inf, IS_NAN, TRUE),
        ("", 0.0, inf, IS_NAN, TRUE),
        ("sat=1", 2.0, nan, MAGNITUDE, 0),
        ("sat=1", -2.0, nan, MAGNITUDE, 0),
        ("sat=1", 2.0, inf, "", f(1.0)),
        ("sat=1", 2.0, -inf, MAGNITUDE, 0),
    ]
    .into_iter()
    .enumerate()
    {
        binary32(&format!("fmul_{i}"), "FMUL", &format!("fmz=1 {fields}"), (a, b), after, expected);
    }
    for (i, (b, sat, after, expected)) in
        [(1.0f32, 0, "", f(1.5)), (-2.0, 0, "", f(-3.0)), (-2.0, 1, MAGNITUDE, 0)].into_iter().enumerate()
    {
        let body = format!("{}FMUL32I rd=2 ra=2 imm32={:#x} fmz=1 sat={sat}{after}", set(&[(2, f(1.5))]), f(b));
        check(&format!("fmul32i_{i}"), &body, Vec::new(), each(expected));
    }
    let denormal = vec![(2, bank(&[1e-40f32.to_bits()]))];
    for (fmz, after, expected) in [(1, MAGNITUDE, 0), (0, POSITIVE, TRUE)] {
        let body = format!("{}FMUL.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 fmz={fmz}{after}", set(&[(2, f(1.5))]));
        check(&format!("fmul_denormal_{fmz}"), &body, denormal.clone(), each(expected));
    }
}

/// fmul.cpp "FMUL Scale" and "FMUL SAT": the scale field multiplies the product by a power of two before .SAT:
/// 1 .D2, 2 .D4, 3 .D8, 4 .M8, 5 .M4, 6 .M2 (FMUL.FTZ of 2 and 4; of 2 and 2 with .SAT).
#[test]
fn fmul_scales_the_product() {
    for (scale, product, saturated) in
        [(1, 4.0f32, 1.0f32), (2, 2.0, 1.0), (3, 1.0, 0.5), (4, 64.0, 1.0), (5, 32.0, 1.0), (6, 16.0, 1.0)]
    {
        let fields = format!("fmz=1 scale={scale}");
        binary32(&format!("fmul_scale_{scale}"), "FMUL", &fields, (2.0, 4.0), "", product.to_bits());
        let fields = format!("{fields} sat=1");
        binary32(&format!("fmul_scale_sat_{scale}"), "FMUL", &fields, (2.0, 2.0), "", saturated.to_bits());
    }
}

/// fmul.cpp "FMUL FMZ" and ffma.cpp "FFMA FMZ": with .FMZ (fmz=2) zero times anything, NaN and infinity included, is
/// +0 (and 2 x inf inf, NaN x 2 and NaN x inf NaN, .SAT of NaN 0); FFMA.FMZ R2, RZ, c[2][0], R2 of R2 = 1 is 1 for
/// c[2][0] NaN or inf.
#[test]
fn fmz_makes_zero_products_zero() {
    let f = |x: f32| x.to_bits();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    for (i, (fields, a, b, after, expected)) in [
        ("", 2.0, inf, "", f(inf)),
        ("", nan, 2.0, IS_NAN, TRUE),
        ("", 2.0, nan, IS_NAN, TRUE),
        ("", nan, nan, IS_NAN, TRUE),
        ("", nan, inf, IS_NAN, TRUE),
        ("", nan, 0.0, MAGNITUDE, 0),
        ("", 0.0, inf, "", 0),
        ("", -0.0, inf, SIGN, 0),
        ("sat=1", 2.0, nan, MAGNITUDE, 0),
        ("sat=1", -2.0, nan, MAGNITUDE, 0),
    ]
    .into_iter()
    .enumerate()
    {
        binary32(&format!("fmul_fmz_{i}"), "FMUL", &format!("fmz=2 {fields}"), (a, b), after, expected);
    }
    for value in [nan, inf] {
        let body =
            format!("{}FFMA.cbuf rd=2 ra=255 cb_bank=2 cb_offset=0 rc=2 fmz=2", set(&[(2, f(1.0)), (3, f(2.0))]));
        check(&format!("ffma_fmz_{:#x}", f(value)), &body, vec![(2, bank(&[f(value)]))], each(f(1.0)));
    }
}

/// ffma.cpp "FFMA Simple", "FFMA SAT", "FFMA NAN", "FFMA Denorm": R2 = 1, R3 = 2, c[2][0] the test's value;
/// FFMA.FTZ R2, R3, b, c with b and c from registers, the constant (as b: `.cbuf`, as c: `.cbuf_c`) or an
/// immediate, each negated or not, FFMA32I.FTZ (a negated), .SAT; NaN operands give NaN (0 with .SAT).
#[test]
fn ffma_follows_the_hardware() {
    let f = |x: f32| x.to_bits();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let reg = |m: &str| format!("FFMA.reg rd=2 ra=3 rb=3 rc=2 fmz=1 {m}");
    let cbuf_c = |m: &str| format!("FFMA.cbuf_c rd=2 ra=3 rb=3 cb_bank=2 cb_offset=0 fmz=1 {m}");
    let cbuf = |m: &str| format!("FFMA.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 rc=2 fmz=1 {m}");
    let imm = |b: f32, m: &str| format!("FFMA.imm rd=2 ra=3 imm20={:#x} rc=2 fmz=1 {m}", imm20(b));
    let fma32i = |m: &str| format!("FFMA32I rd=2 ra=3 imm32={:#x} fmz=1 {m}", f(2.0));
    let reload = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\n";
    for (i, (instruction, value, after, expected)) in [
        (reg(""), 0.0, "", f(5.0)),
        (reg("neg_b=1"), 0.0, "", f(-3.0)),
        (reg("neg_b=1 neg_c=1"), 0.0, "", f(-5.0)),
        (reg("neg_c=1"), 0.0, "", f(3.0)),
        (cbuf_c(""), 1.0, "", f(5.0)),
        (cbuf_c("neg_b=1"), 1.0, "", f(-3.0)),
        (cbuf_c("neg_b=1 neg_c=1"), 1.0, "", f(-5.0)),
        (cbuf_c("neg_c=1"), 1.0, "", f(3.0)),
        (cbuf(""), 2.0, "", f(5.0)),
        (cbuf("neg_b=1"), 2.0, "", f(-3.0)),
        (cbuf("neg_b=1 neg_c=1"), 2.0, "", f(-5.0)),
        (cbuf("neg_c=1"), 2.0, "", f(3.0)),
        (imm(2.0, ""), 0.0, "", f(5.0)),
        (imm(2.0, "neg_b=1"), 0.0, "", f(-3.0)),
        (imm(2.0, "neg_b=1 neg_c=1"), 0.0, "", f(-5.0)),
        (imm(2.0, "neg_c=1"), 0.0, "", f(3.0)),
        (imm(-2.0, "neg_b=1 neg_c=1"), 0.0, "", f(3.0)),
        (fma32i(""), 0.0, "", f(5.0)),
        (fma32i("neg_a=1"), 0.0, "", f(-3.0)),
        (fma32i("neg_a=1 neg_c=1"), 0.0, "", f(-5.0)),
        (reg("sat=1"), 0.0, "", f(1.0)),
        (imm(2.0, "sat=1"), 0.0, "", f(1.0)),
        (cbuf("sat=1"), 2.0, "", f(1.0)),
        (cbuf_c("sat=1"), 1.0, "", f(1.0)),
        (cbuf("sat=1"), nan, MAGNITUDE, 0),
        (cbuf(""), nan, IS_NAN, TRUE),
        (cbuf_c(""), nan, IS_NAN, TRUE),
        (format!("{reload}{}", cbuf("")), inf, "", f(inf)),
        (cbuf("sat=1"), inf, "", f(1.0)),
        (cbuf("sat=1"), -inf, MAGNITUDE, 0),
        (cbuf(""), inf, "", f(inf)),
        (cbuf(""), -inf, "", f(-inf)),
        // "FFMA.FTZ R2, R2, c[2][0], RZ" and "FFMA R2, R2, c[2][0], RZ" of a denormal.
        ("FFMA.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=255 fmz=1".to_string(), 1e-40, MAGNITUDE, 0),
        ("FFMA.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=255".to_string(), 1e-40, POSITIVE, TRUE),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}{instruction}{after}", set(&[(2, f(1.0)), (3, f(2.0))]));
        check(&format!("ffma_{i}"), &body, vec![(2, bank(&[f(value)]))], each(expected));
    }
}

// ===============================================================================================================
// FP32 comparisons, selection, minimum and maximum.

/// fset.cpp "FSET Simple", "FSET Combining", "FSET NAN" (the vectors `comparisons_and_saturation_with_nans` leaves
/// out) and "FSET Denorm": R2 = a, R3 = b from bank 2; FSET.cond.FTZ.AND R2, R2, b, PT is all ones where the
/// comparison holds (1.0 with .BF); .OR and .XOR with PT hold even for .F; inf compares as a number, 0 == -0; with
/// .FTZ a denormal is 0.
#[test]
fn fset_follows_the_hardware() {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let reg = |cmp: u32| format!("FSET.reg rd=2 ra=2 rb=3 ftz=1 ps=7 cmp={cmp}");
    for (i, (instruction, a, b, expected)) in [
        (reg(0), 2.0, 3.0, 0),
        (reg(1), 2.0, 3.0, TRUE),
        (reg(3), 3.0, 3.0, TRUE),
        (reg(2), 3.0, 3.0, TRUE),
        (reg(5), 2.0, 3.0, TRUE),
        (reg(4), 3.0, 2.0, TRUE),
        (reg(6), 3.0, 3.0, TRUE),
        (reg(15), 3.0, 2.0, TRUE),
        (format!("FSET.imm rd=2 ra=2 imm20={:#x} ftz=1 ps=7 cmp=2", imm20(3.0)), 3.0, 3.0, TRUE),
        ("FSET.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 ftz=1 ps=7 cmp=2".to_string(), 3.0, 3.0, TRUE),
        ("FSET.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 ftz=1 ps=7 cmp=2 bf=1".to_string(), 3.0, 3.0, 0x3f80_0000),
        (format!("{} bop=1", reg(0)), 2.0, 3.0, TRUE),
        (format!("{} bop=2", reg(0)), 2.0, 3.0, TRUE),
        (reg(3), 3.0, nan, 0),
        (reg(4), 3.0, nan, 0),
        (reg(6), 3.0, nan, 0),
        (reg(7), nan, nan, 0),
        (reg(8), nan, nan, TRUE),
        (reg(11), 3.0, nan, TRUE),
        (reg(10), 3.0, nan, TRUE),
        (reg(10), nan, nan, TRUE),
        (reg(13), 2.0, nan, TRUE),
        (reg(12), 3.0, nan, TRUE),
        (reg(14), 3.0, nan, TRUE),
        (reg(9), 2.0, 3.0, TRUE),
        (reg(11), 3.0, 3.0, TRUE),
        (reg(10), 3.0, 3.0, TRUE),
        (reg(13), 2.0, 3.0, TRUE),
        (reg(12), 3.0, 2.0, TRUE),
        (reg(14), 3.0, 3.0, TRUE),
        (reg(1), inf, nan, 0),
        (reg(1), 0.0, inf, TRUE),
        (reg(9), 0.0, inf, TRUE),
        (reg(3), inf, inf, TRUE),
        (reg(2), inf, inf, TRUE),
        (reg(1), inf, inf, 0),
        (reg(1), -inf, 0.0, TRUE),
        (reg(1), -inf, inf, TRUE),
        (reg(2), 0.0, -0.0, TRUE),
        (reg(4), 1e-40, 0.0, 0),
        ("FSET.reg rd=2 ra=2 rb=3 ps=7 cmp=4".to_string(), 1e-40, 0.0, TRUE),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}{instruction}", load(&[2, 3]));
        check(&format!("fset_{i}"), &body, vec![(2, bank(&[a.to_bits(), b.to_bits()]))], each(expected));
    }
}

/// fsetp.cpp "FSETP Simple" and "FSETP Denorm": FSETP.LT.FTZ P0, PT (or PT, P0: P0 then gets the negation) of
/// R2 = a, R3 = b, combined with PT (or !PT) by .AND, .OR, .XOR; then SEL R2, RZ, -1, !P0.
#[test]
fn fsetp_follows_the_hardware() {
    for (i, (fields, a, b, expected)) in [
        ("pd=0 pq=7 cmp=1 ftz=1", 2.0f32, 3.0f32, TRUE),
        ("pd=0 pq=7 cmp=1 ftz=1", 3.0, 2.0, 0),
        ("pd=0 pq=7 cmp=1 ftz=1 bop=2", 3.0, 2.0, TRUE),
        ("pd=0 pq=7 cmp=1 ftz=1 bop=1", 3.0, 2.0, TRUE),
        ("pd=7 pq=0 cmp=1 ftz=1 bop=1", 2.0, 3.0, TRUE),
        ("pd=7 pq=0 cmp=1 ftz=1", 2.0, 3.0, 0),
        ("pd=7 pq=0 cmp=1 ftz=1 bop=2 ps_not=1", 3.0, 2.0, TRUE),
        ("pd=0 pq=7 cmp=4 ftz=1", 1e-40, 0.0, 0),
        ("pd=0 pq=7 cmp=4", 1e-40, 0.0, TRUE),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}FSETP.reg ra=2 rb=3 ps=7 {fields}{P0_WORD}", load(&[2, 3]));
        check(&format!("fsetp_{i}"), &body, vec![(2, bank(&[a.to_bits(), b.to_bits()]))], each(expected));
    }
}

/// fcmp.cpp "FCMP Simple" (its constant and immediate b), "FCMP NAN" and "FCMP Denorm": FCMP.cond.FTZ R2, R3 (-2),
/// b, R2 gives R3 where R2 (c[2][0]'s value) compares true with 0.0, else b: a NaN holds for NAN, T and the
/// unordered comparisons only; with .FTZ a denormal is 0.
#[test]
fn fcmp_follows_the_hardware() {
    let minus_two = (-2i32) as u32;
    let one = 1.0f32.to_bits();
    let mut vectors = vec![
        ("FCMP.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 rc=2 cmp=1 ftz=1".to_string(), 1.0f32, one),
        (format!("FCMP.imm rd=2 ra=3 imm20={:#x} rc=2 cmp=1 ftz=1", imm20(1.0)), 1.0, one),
        ("FCMP.reg rd=2 ra=3 rb=255 rc=2 cmp=7 ftz=1".to_string(), 1.0, minus_two),
        ("FCMP.reg rd=2 ra=3 rb=255 rc=2 cmp=4 ftz=1".to_string(), 1e-40, 0),
        ("FCMP.reg rd=2 ra=3 rb=255 rc=2 cmp=4".to_string(), 1e-40, minus_two),
    ];
    for cmp in 0..16 {
        let holds = matches!(cmp, 8..=15);
        let instruction = format!("FCMP.reg rd=2 ra=3 rb=255 rc=2 cmp={cmp} ftz=1");
        vectors.push((instruction, f32::NAN, if holds { minus_two } else { 0 }));
    }
    for (i, (instruction, value, expected)) in vectors.into_iter().enumerate() {
        let body = format!("{}{}{instruction}", load(&[2]), set(&[(3, minus_two)]));
        check(&format!("fcmp_{i}"), &body, vec![(2, bank(&[value.to_bits()]))], each(expected));
    }
}

/// fmnmx.cpp "FMNMX Simple", "FMNMX NAN" (what `minimum_and_maximum_follow_the_hardware` leaves out) and "FMNMX
/// Denorm": FMNMX R2, a, b, PT (min) or !PT (max) of R2 = a, R3 = b, b also as 3.0 and as c[2][4], with each
/// source's modifiers; two NaNs give NaN, infinities order as numbers; with .FTZ denormals are zeros.
#[test]
fn fmnmx_follows_the_hardware() {
    let f = |x: f32| x.to_bits();
    let (nan, inf, denormal) = (f32::NAN, f32::INFINITY, 1e-40f32);
    let reg = |fields: &str| format!("FMNMX.reg rd=2 ra=2 rb=3 {fields}");
    for (i, (instruction, a, b, after, expected)) in [
        (reg("ftz=1"), 1.0, 3.0, "", f(1.0)),
        (reg("ftz=1"), 3.0, 1.0, "", f(1.0)),
        (reg("ftz=1 ps_not=1"), 1.0, 3.0, "", f(3.0)),
        (reg("ftz=1 ps_not=1"), 3.0, 1.0, "", f(3.0)),
        (format!("FMNMX.imm rd=2 ra=2 imm20={:#x} ftz=1 ps_not=1", imm20(3.0)), 1.0, 3.0, "", f(3.0)),
        (format!("FMNMX.imm rd=2 ra=2 imm20={:#x} ftz=1 ps_not=1", imm20(3.0)), 3.0, 1.0, "", f(3.0)),
        ("FMNMX.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 ftz=1 ps_not=1".to_string(), 1.0, 3.0, "", f(3.0)),
        ("FMNMX.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 ftz=1 ps_not=1".to_string(), 3.0, 1.0, "", f(3.0)),
        (reg("ftz=1 neg_a=1"), 1.0, 3.0, "", f(-1.0)),
        (reg("ftz=1 ps_not=1 neg_b=1"), 3.0, 1.0, "", f(3.0)),
        (reg("ftz=1 abs_a=1"), -1.0, -3.0, "", f(-3.0)),
        (reg("ftz=1 ps_not=1 abs_b=1"), -3.0, -1.0, "", f(1.0)),
        (reg("ftz=1 ps_not=1 neg_b=1 abs_b=1"), -3.0, -1.0, "", f(-1.0)),
        (reg("ftz=1 neg_a=1 abs_a=1 neg_b=1 abs_b=1"), -3.0, -1.0, "", f(-3.0)),
        (reg("ftz=1"), nan, nan, IS_NAN, TRUE),
        (reg("ftz=1 ps_not=1"), nan, nan, IS_NAN, TRUE),
        (reg("ftz=1"), inf, inf, "", f(inf)),
        (reg("ftz=1"), inf, -inf, "", f(-inf)),
        (reg("ftz=1 ps_not=1"), -inf, inf, "", f(inf)),
        (reg("ftz=1 ps_not=1"), -inf, -inf, "", f(-inf)),
        (reg("ftz=1"), inf, nan, "", f(inf)),
        (reg("ftz=1"), -inf, nan, "", f(-inf)),
        (reg("ftz=1"), 0.0, -denormal, MAGNITUDE, 0),
        (reg("ftz=1 ps_not=1"), 0.0, denormal, MAGNITUDE, 0),
        (reg("ftz=1 ps_not=1"), denormal, 0.0, MAGNITUDE, 0),
        (reg(""), 0.0, -denormal, "", f(-denormal)),
        (reg("ps_not=1"), 0.0, denormal, "", f(denormal)),
        (reg("ps_not=1"), denormal, 0.0, "", f(denormal)),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}{instruction}{after}", load(&[2, 3]));
        check(&format!("fmnmx_{i}"), &body, vec![(2, bank(&[f(a), f(b)]))], each(expected));
    }
}

// ===============================================================================================================
// The special function unit.

/// mufu.cpp's program: of c[2][0]'s value, RRO.SINCOS into R2 (for COS, SIN), RRO.EX2 into R3 (for EX2), the value
/// itself in R4 (for LG2, RCP, RSQ, SQRT); then MUFU R2 of the function's source (`fields`: func, sat).
fn mufu(name: &str, func: u32, fields: &str, x: f32, after: &str, expected: u32) {
    let source = match func {
        0 | 1 => 2,
        2 => 3,
        _ => 4,
    };
    let body = format!(
        "{}RRO.cbuf rd=2 cb_bank=2 cb_offset=0 mode=0\nRRO.cbuf rd=3 cb_bank=2 cb_offset=0 mode=1\n\
         MUFU rd=2 ra={source} func={func} {fields}{after}",
        load(&[4])
    );
    check(name, &body, vec![(2, bank(&[x.to_bits()]))], each(expected));
}

/// mufu.cpp "MUFU Simple" and "MUFU NAN" (what `special_functions_at_the_edges_of_their_domains` leaves out): EX2,
/// LG2, RCP and SQRT exact at powers of two, COS of a quarter turn exactly zero, COS, SIN and RSQ otherwise within
/// nxgpucatch's tolerances; denormals are zeros;
/// the functions of infinities, and of NaN NaN. Functions: 0 COS, 1 SIN, 2 EX2, 3 LG2, 4 RCP, 5 RSQ, 8 SQRT.
#[test]
fn special_functions_follow_the_hardware() {
    use std::f32::consts::PI;
    let f = |x: f32| x.to_bits();
    let (nan, inf, denormal) = (f32::NAN, f32::INFINITY, 1e-40f32);
    let near = |target: f32| within(target, 0.0001);
    let mut vectors = vec![
        (0, 0.0, near(1.0), TRUE),
        (0, PI, near(-1.0), TRUE),
        // "MUFU.COS R2, R2" of RRO.SINCOS(pi / 2): 0 exactly.
        (0, PI * 0.5, MAGNITUDE.to_string(), 0),
        (1, 0.0, MAGNITUDE.to_string(), 0),
        (1, PI * 0.5, near(1.0), TRUE),
        (1, PI, near(0.0), TRUE),
        (3, 1.0, MAGNITUDE.to_string(), 0),
        (5, 2.0, within(1.0 / 2.0f32.sqrt(), 0.25), TRUE),
        (5, 0.5, within(1.0 / 0.5f32.sqrt(), 0.25), TRUE),
        (8, 2.0, String::new(), f(2.0f32.sqrt())),
    ];
    for (func, x, y) in [
        (2, 0.0, 1.0),
        (2, 1.0, 2.0),
        (2, 2.0, 4.0),
        (2, 3.0, 8.0),
        (3, 2.0, 1.0),
        (3, 4.0, 2.0),
        (3, 8.0, 3.0),
        (4, 1.0, 1.0),
        (4, 2.0, 0.5),
        (4, 4.0, 0.25),
        (5, 1.0, 1.0),
        (8, 1.0, 1.0),
        (8, 4.0, 2.0),
        (2, -0.0, 1.0),
        (2, denormal, 1.0),
        (2, -denormal, 1.0),
        (2, inf, inf),
        (3, inf, inf),
        (4, denormal, inf),
        (4, -denormal, -inf),
        (5, denormal, inf),
        (5, -denormal, -inf),
        (8, inf, inf),
    ] {
        vectors.push((func, x, String::new(), f(y)));
    }
    for x in [0.0, -0.0, denormal, -denormal] {
        vectors.push((0, x, near(1.0), TRUE));
        vectors.push((1, x, MAGNITUDE.to_string(), 0));
    }
    for (func, x) in [(0, inf), (0, -inf), (0, nan), (1, inf), (1, -inf), (1, nan), (2, nan), (3, -inf), (3, nan)] {
        vectors.push((func, x, IS_NAN.to_string(), TRUE));
    }
    for (func, x) in [(4, nan), (5, -inf), (5, nan), (8, -inf), (8, nan)] {
        vectors.push((func, x, IS_NAN.to_string(), TRUE));
    }
    for (func, x, after, expected) in [
        (2, -inf, MAGNITUDE, 0),
        (4, inf, SIGN, 0),
        (5, inf, MAGNITUDE, 0),
        (8, 0.0, SIGN, 0),
        (8, denormal, SIGN, 0),
        (8, -denormal, SIGN, 0x8000_0000),
    ] {
        vectors.push((func, x, after.to_string(), expected));
    }
    for (i, (func, x, after, expected)) in vectors.into_iter().enumerate() {
        mufu(&format!("mufu_{i}"), func, "", x, &after, expected);
    }
}

/// mufu.cpp "MUFU SAT": MUFU.SQRT.SAT clamps (sqrt 2 to 1).
#[test]
fn special_functions_saturate() {
    for x in [2.0f32, 1.0] {
        mufu(&format!("mufu_sqrt_sat_{x}"), 8, "sat=1", x, "", 1.0f32.to_bits());
    }
}

// ===============================================================================================================
// FP64.

/// dadd.cpp "DADD Simple", "DADD NAN", "DADD Unaligned" (c[2][8]) and dmul.cpp "DMUL Simple", "DMUL NAN", "DMUL
/// Unaligned" (c[2][8]): R2:R3 = a, R4:R5 = b from bank 2 (b at c[2][8]); register, immediate (b's top 20 bits) and
/// constant forms with negation and absolute value; a NaN operand or inf - inf gives NaN, -inf x inf = -inf.
#[test]
fn double_add_and_multiply_follow_the_hardware() {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let small = 7.000001;
    let imm = |op: &str, b: f64, m: &str| format!("{op}.imm rd=2 ra=2 imm20={:#x} {m}", imm20_64(b));
    let mut vectors = vec![
        ("DADD.reg rd=2 ra=2 rb=4".to_string(), 4.0, 7.0, Some(11.0)),
        ("DADD.reg rd=2 ra=2 rb=4 neg_b=1".to_string(), 4.0, 7.0, Some(-3.0)),
        ("DADD.reg rd=2 ra=2 rb=4 abs_b=1".to_string(), 4.0, -7.0, Some(11.0)),
        ("DADD.reg rd=2 ra=2 rb=4 abs_a=1".to_string(), -4.0, 7.0, Some(11.0)),
        ("DADD.reg rd=2 ra=2 rb=4 neg_a=1".to_string(), 4.0, 7.0, Some(3.0)),
        (imm("DADD", 7.0, ""), 4.0, 7.0, Some(11.0)),
        (imm("DADD", 7.0, "neg_b=1"), 4.0, 7.0, Some(-3.0)),
        (imm("DADD", -7.0, "abs_b=1"), 4.0, 7.0, Some(11.0)),
        ("DADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2".to_string(), 4.0, 7.0, Some(11.0)),
        ("DADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2 neg_b=1".to_string(), 4.0, 7.0, Some(-3.0)),
        ("DADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2 abs_b=1".to_string(), 4.0, -7.0, Some(11.0)),
        ("DADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2".to_string(), 4.0, small, Some(4.0 + small)),
        ("DMUL.reg rd=2 ra=2 rb=4".to_string(), 4.0, 7.0, Some(28.0)),
        ("DMUL.reg rd=2 ra=2 rb=4 neg_b=1".to_string(), 4.0, 7.0, Some(-28.0)),
        (imm("DMUL", 7.0, ""), 4.0, 7.0, Some(28.0)),
        (imm("DMUL", 7.0, "neg_b=1"), 4.0, 7.0, Some(-28.0)),
        ("DMUL.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2".to_string(), 4.0, 7.0, Some(28.0)),
        ("DMUL.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2 neg_b=1".to_string(), 4.0, 7.0, Some(-28.0)),
        ("DMUL.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2".to_string(), 4.0, small, Some(4.0 * small)),
        ("DMUL.reg rd=2 ra=2 rb=4".to_string(), inf, -inf, Some(-inf)),
        ("DMUL.reg rd=2 ra=2 rb=4".to_string(), -inf, inf, Some(-inf)),
    ];
    for (a, b) in [(4.0, nan), (nan, nan), (inf, nan), (nan, inf), (inf, -inf), (-inf, inf)] {
        vectors.push(("DADD.reg rd=2 ra=2 rb=4".to_string(), a, b, None));
    }
    for (a, b) in [(4.0, nan), (nan, nan), (inf, nan), (nan, inf)] {
        vectors.push(("DMUL.reg rd=2 ra=2 rb=4".to_string(), a, b, None));
    }
    for (i, (instruction, a, b, expected)) in vectors.into_iter().enumerate() {
        let body = format!("{}{instruction}", load(&[2, 3, 4, 5]));
        let constants = vec![(2, bank64(&[a, b]))];
        match expected {
            Some(value) => check64(&format!("dadd_dmul_{i}"), &body, constants, value.to_bits()),
            None => check(&format!("dadd_dmul_{i}"), &format!("{body}{IS_NAN64}"), constants, each(TRUE)),
        }
    }
}

/// dfma.cpp "DFMA Simple" and "DFMA Unaligned" (its aligned operands): a in R2:R3, b in R4:R5, c in R8:R9 (the
/// hardware's R0, R2, R4), bank 2 holding a, b, c (b at c[2][8], c at c[2][16]); D = a x b + c with b or c from a
/// register, the constant or (b) an immediate, b or c negated.
#[test]
fn double_fused_multiply_add_follows_the_hardware() {
    let small = 7.00001f64;
    let imm = |b: f64, m: &str| format!("DFMA.imm rd=2 ra=2 imm20={:#x} rc=8 {m}", imm20_64(b));
    let (one_two_four, reg, cbuf, cbuf_c) = (
        [1.0, 2.0, 4.0],
        "DFMA.reg rd=2 ra=2 rb=4 rc=8",
        "DFMA.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2 rc=8",
        "DFMA.cbuf_c rd=2 ra=2 rb=4 cb_bank=2 cb_offset=4",
    );
    let mut vectors = Vec::new();
    for form in [reg, cbuf, cbuf_c] {
        vectors.push((form.to_string(), one_two_four, 6.0));
        vectors.push((format!("{form} neg_b=1"), one_two_four, 2.0));
        vectors.push((format!("{form} neg_c=1"), one_two_four, -2.0));
    }
    vectors.push((imm(2.0, ""), one_two_four, 6.0));
    vectors.push((imm(-2.0, ""), one_two_four, 2.0));
    vectors.push((imm(2.0, "neg_b=1"), one_two_four, 2.0));
    vectors.push((imm(2.0, "neg_c=1"), one_two_four, -2.0));
    vectors.push((cbuf.to_string(), [1.0, small, 1.0], 1.0f64.mul_add(small, 1.0)));
    vectors.push((cbuf_c.to_string(), [1.0, 2.0, small], 1.0f64.mul_add(2.0, small)));
    for (i, (instruction, [a, b, c], expected)) in vectors.into_iter().enumerate() {
        let body = format!("{}{instruction}", load(&[2, 3, 4, 5, 8, 9]));
        check64(&format!("dfma_{i}"), &body, vec![(2, bank64(&[a, b, c]))], expected.to_bits());
    }
}

/// dadd.cpp, dmul.cpp and dfma.cpp read 64-bit constants at c[2][12] and c[2][20], offsets 4 mod 8: the Tegra X1's
/// answers (DADD of 2 and c[2][12] over {4.0, 7.000001} is 11 exactly) fit c[o] as the high word with a low word
/// of either 0 or c[o + 4], which their vectors cannot tell apart, so both paths refuse such constants by name.
#[test]
fn double_constants_at_odd_words_are_refused() {
    for (name, body) in [
        ("dadd_c2_12", "DADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=3"),
        ("dmul_c2_12", "DMUL.cbuf rd=2 ra=2 cb_bank=2 cb_offset=3"),
        ("dfma_c2_12", "DFMA.cbuf rd=2 ra=2 cb_bank=2 cb_offset=3 rc=8"),
        ("dfma_c2_20", "DFMA.cbuf_c rd=2 ra=2 rb=4 cb_bank=2 cb_offset=5"),
    ] {
        let (interpreted, translated) = refusals(name, body);
        let opcode = &body[..4];
        assert!(interpreted.contains(opcode) && translated.contains(opcode), "{interpreted} / {translated}");
    }
}

/// dmnmx.cpp "DMNMX Simple": DMNMX R2, a, b, PT (min) or !PT (max) of R2:R3 = a, R4:R5 = b (bank 2 holds both), b
/// also at c[2][8] and as an immediate, with the modifiers; the predicate may be a computed one (!P0 of a false
/// P0: min).
#[test]
fn double_minimum_and_maximum_follow_the_hardware() {
    let imm = |b: f64, m: &str| format!("DMNMX.imm rd=2 ra=2 imm20={:#x} {m}", imm20_64(b));
    let mut vectors = Vec::new();
    for operand in ["DMNMX.reg rd=2 ra=2 rb=4", "DMNMX.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2"] {
        for (m, a, b, expected) in [
            ("", 3.0, 5.0, 3.0f64),
            ("ps_not=1", 3.0, 5.0, 5.0),
            ("neg_a=1", 3.0, 5.0, -3.0),
            ("neg_a=1 neg_b=1", 3.0, 5.0, -5.0),
            ("abs_a=1", -3.0, 5.0, 3.0),
            ("abs_b=1 ps_not=1", 3.0, -5.0, 5.0),
        ] {
            vectors.push((format!("{operand} {m}"), a, b, expected));
        }
    }
    for (instruction, a, expected) in [
        (imm(5.0, ""), 3.0, 3.0),
        (imm(5.0, "ps_not=1"), 3.0, 5.0),
        (imm(-5.0, "abs_b=1 ps_not=1"), 3.0, 5.0),
        (imm(5.0, "neg_a=1"), 3.0, -3.0),
        (imm(-5.0, "neg_a=1"), 3.0, -5.0),
        (imm(5.0, "neg_a=1 neg_b=1"), 3.0, -5.0),
        (imm(5.0, "abs_a=1"), -3.0, 3.0),
    ] {
        vectors.push((instruction, a, 5.0, expected));
    }
    vectors.push((
        "ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp=0 signed=1\nDMNMX.reg rd=2 ra=2 rb=4 ps=0 ps_not=1".to_string(),
        3.0,
        5.0,
        3.0,
    ));
    for (i, (instruction, a, b, expected)) in vectors.into_iter().enumerate() {
        let body = format!("{}{instruction}", load(&[2, 3, 4, 5]));
        check64(&format!("dmnmx_{i}"), &body, vec![(2, bank64(&[a, b]))], expected.to_bits());
    }
}

/// dset.cpp "DSET Simple", "DSET NAN" and dsetp.cpp "DSETP Simple", "DSETP NAN" (the same vectors): a in R2:R3, b in
/// R4:R5 (bank 2 holds both); DSET.cond.AND R2, R2, b, PT is all ones where the comparison holds, DSETP.cond.AND P0,
/// P1, R2, b, PT sets P0 to it and P1 to its negation (R2 = 0x0f for P0 plus 0xf0 for P1). b from a register, the
/// constant and an immediate; the modifiers; a NaN fails all but NAN, T and the unordered comparisons; .OR and .XOR
/// with PT; DSET.BF writes 1.0.
#[test]
fn double_comparisons_follow_the_hardware() {
    let nan = f64::NAN;
    // (cmp: 0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE, 6 GE, 7 NUM, 8 NAN, 9-14 the unordered LTU-GEU, 15 T; a, b, holds)
    let ordered = [
        (1, 2.0, 2.0, false),
        (1, 1.0, 2.0, true),
        (2, 1.0, 2.0, false),
        (2, 2.0, 2.0, true),
        (3, 2.0, 2.0, true),
        (3, 2.0, 3.0, true),
        (3, 3.0, 2.0, false),
        (4, 2.0, 2.0, false),
        (4, 3.0, 2.0, true),
        (5, 2.0, 2.0, false),
        (5, 2.0, 3.0, true),
        (6, 2.0, 2.0, true),
        (6, 3.0, 2.0, true),
        (6, 2.0, 3.0, false),
    ];
    let mut vectors = Vec::new();
    for (cmp, a, b, holds) in ordered {
        vectors.push(("rb=4".to_string(), cmp, "", a, b, holds));
        vectors.push(("cb_bank=2 cb_offset=2".to_string(), cmp, "", a, b, holds));
        vectors.push((format!("imm20={:#x}", imm20_64(b)), cmp, "", a, b, holds));
        vectors.push(("rb=4".to_string(), cmp + 8, "", a, b, holds));
    }
    for (cmp, m, a, b, holds) in [
        (0, "", 1.0, 2.0, false),
        (15, "", 1.0, 2.0, true),
        (1, "neg_a=1", 2.0, 2.0, true),
        (4, "abs_a=1", -3.0, 2.0, true),
        (4, "neg_b=1", 2.0, 2.0, true),
        (1, "abs_b=1", 2.0, -3.0, true),
        (7, "", 2.0, 2.0, true),
        (7, "", 2.0, nan, false),
        (7, "", nan, 2.0, false),
        (7, "", nan, nan, false),
        (8, "", 2.0, 2.0, false),
        (8, "", 2.0, nan, true),
        (8, "", nan, 2.0, true),
        (8, "", nan, nan, true),
    ] {
        vectors.push(("rb=4".to_string(), cmp, m, a, b, holds));
    }
    for cmp in (1..=6).chain(9..=14) {
        vectors.push(("rb=4".to_string(), cmp, "", 2.0, nan, cmp > 8));
    }
    let form_of = |operand: &str| {
        if operand.starts_with("rb") {
            "reg"
        } else if operand.starts_with("cb") {
            "cbuf"
        } else {
            "imm"
        }
    };
    for (i, (operand, cmp, m, a, b, holds)) in vectors.into_iter().enumerate() {
        let (inputs, constants) = (load(&[2, 3, 4, 5]), vec![(2, bank64(&[a, b]))]);
        let form = form_of(&operand);
        let dset = format!("{inputs}DSET.{form} rd=2 ra=2 {operand} cmp={cmp} ps=7 {m}");
        check(&format!("dset_{i}"), &dset, constants.clone(), each(if holds { TRUE } else { 0 }));
        let dsetp = format!("{inputs}DSETP.{form} pd=0 pq=1 ra=2 {operand} cmp={cmp} ps=7 {m}{PREDICATE_PAIR}");
        check(&format!("dsetp_{i}"), &dsetp, constants, each(if holds { 0x0f } else { 0xf0 }));
    }
    // LT of 2 and 2 (false) with PT: .OR and .XOR hold; DSET.BF writes 1.0; DSETP.OR sets both, DSETP.XOR P0 alone.
    let (inputs, constants) = (load(&[2, 3, 4, 5]), vec![(2, bank64(&[2.0, 2.0]))]);
    for (name, instruction, expected) in [
        ("dset_or", "DSET.reg rd=2 ra=2 rb=4 cmp=1 ps=7 bop=1".to_string(), TRUE),
        ("dset_xor", "DSET.reg rd=2 ra=2 rb=4 cmp=1 ps=7 bop=2".to_string(), TRUE),
        ("dset_bf_or", "DSET.reg rd=2 ra=2 rb=4 cmp=1 ps=7 bop=1 bf=1".to_string(), 0x3f80_0000),
        ("dsetp_or", format!("DSETP.reg pd=0 pq=1 ra=2 rb=4 cmp=1 ps=7 bop=1{PREDICATE_PAIR}"), 0xff),
        ("dsetp_xor", format!("DSETP.reg pd=0 pq=1 ra=2 rb=4 cmp=1 ps=7 bop=2{PREDICATE_PAIR}"), 0x0f),
    ] {
        check(name, &format!("{inputs}{instruction}"), constants.clone(), each(expected));
    }
}

// ===============================================================================================================
// Conversions.

/// The bits of `x` as float type `ty` (1 FP16, 2 FP32, 3 FP64); `x` must be exact in it.
fn float_bits(ty: u64, x: f64) -> u64 {
    match ty {
        1 => u64::from(h(x as f32)),
        2 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    }
}

/// What nxgpucatch reads of a float result of type `ty`: an FP16's 16 bits, an FP32's word, an FP64's two.
fn float_mask(ty: u64) -> u64 {
    match ty {
        1 => 0xffff,
        2 => 0xffff_ffff,
        _ => u64::MAX,
    }
}

/// f2f.cpp "F2F Simple": 8, -2 and 0 (a thread each) through each conversion the hardware runs (FP16 <-> FP64 kills
/// execution), F2F.FTZ.dst.src R2, R2.
#[test]
fn float_conversions_keep_exact_values() {
    for (dst, src) in [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3)] {
        let rows: Vec<(u64, u64)> =
            [8.0, -2.0, 0.0].iter().map(|&x| (float_bits(src, x), float_bits(dst, x))).collect();
        let line = format!("F2F.reg rd=2 rb=2 dst={dst} src={src} ftz=1");
        check_conversions(&format!("f2f_{dst}_{src}"), &line, float_mask(dst), &rows);
    }
}

/// f2f.cpp "F2F Saturate": .SAT clamps 8, -2 and 0 to [0, 1] in FP32 and FP16 results (F2F.FTZ.F32.F16.SAT,
/// F2F.FTZ.F32.F32.SAT, F2F.FTZ.F16.F16.SAT, F2F.FTZ.F16.F32.SAT; the zeros compared without their sign).
#[test]
fn float_conversions_saturate() {
    for (dst, src, magnitude) in [(2, 1, 0x7fff_ffff), (2, 2, 0x7fff_ffff), (1, 1, 0x7fff), (1, 2, 0x7fff)] {
        let rows: Vec<(u64, u64)> =
            [8.0, -2.0, 0.0].iter().map(|&x: &f64| (float_bits(src, x), float_bits(dst, x.clamp(0.0, 1.0)))).collect();
        let line = format!("F2F.reg rd=2 rb=2 dst={dst} src={src} ftz=1 sat=1");
        check_conversions(&format!("f2f_sat_{dst}_{src}"), &line, magnitude, &rows);
    }
}

/// f2f.cpp "F2F NAN": FP16 NaNs of either sign become 0x7fff, an FP32 NaN converted to FP16 too; the other NaN
/// conversions give NaN; infinities convert to the infinity of their sign.
#[test]
fn float_conversions_of_nans_and_infinities() {
    let (nan32, inf32) = (u64::from(f32::NAN.to_bits()), u64::from(f32::INFINITY.to_bits()));
    let (nan64, inf64) = (f64::NAN.to_bits(), f64::INFINITY.to_bits());
    let line = |dst: u64, src: u64| format!("F2F.reg rd=2 rb=2 dst={dst} src={src} ftz=1");
    for (i, (dst, src, input, expected)) in [
        (1, 1, 0xffff, 0x7fff),
        (1, 1, 0x7fff, 0x7fff),
        (1, 2, nan32, 0x7fff),
        (1, 1, 0x7c00, 0x7c00),
        (1, 1, 0xfc00, 0xfc00),
        (2, 1, 0x7c00, inf32),
        (2, 1, 0xfc00, inf32 | 1 << 31),
        (2, 2, inf32, inf32),
        (2, 3, inf64, inf32),
        (2, 2, inf32 | 1 << 31, inf32 | 1 << 31),
        (2, 3, inf64 | 1 << 63, inf32 | 1 << 31),
        (3, 2, inf32, inf64),
        (3, 3, inf64, inf64),
        (3, 2, inf32 | 1 << 31, inf64 | 1 << 63),
        (3, 3, inf64 | 1 << 63, inf64 | 1 << 63),
    ]
    .into_iter()
    .enumerate()
    {
        check_conversions(&format!("f2f_special_{i}"), &line(dst, src), float_mask(dst), &[(input, expected)]);
    }
    for (i, (dst, src, input)) in
        [(2, 1, 0xffff), (2, 1, 0x7fff), (2, 2, nan32), (2, 3, nan64), (3, 2, nan32), (3, 3, nan64)]
            .into_iter()
            .enumerate()
    {
        let test = if dst == 3 { IS_NAN64 } else { IS_NAN };
        check_conversions(
            &format!("f2f_nan_{i}"),
            &format!("{}{test}", line(dst, src)),
            0xffff_ffff,
            &[(input, 0xffff_ffff)],
        );
    }
}

/// The four integer roundings of F2F's round_int (and F2I's rnd): 0 to nearest even, 1 down, 2 up, 3 toward zero.
fn rounded(rnd: u64, x: f64) -> f64 {
    match rnd {
        0 => x.round_ties_even(),
        1 => x.floor(),
        2 => x.ceil(),
        _ => x.trunc(),
    }
}

/// f2f.cpp "F2F Rounding" (FP32 and FP64): .ROUND, .FLOOR, .CEIL and .TRUNC (round_int with rnd 0-3) of 2.5, 3.5,
/// -1.5 and -3.5, a thread each; and .RZ, .RP, .RM (rnd 3, 2, 1) of F2F.F16.F32 and F2F.F32.F64 leave 1.5 alone.
#[test]
fn float_conversions_round_to_integers() {
    for ty in [2, 3] {
        for rnd in 0..4 {
            let rows: Vec<(u64, u64)> =
                [2.5, 3.5, -1.5, -3.5].iter().map(|&x| (float_bits(ty, x), float_bits(ty, rounded(rnd, x)))).collect();
            let line = format!("F2F.reg rd=2 rb=2 dst={ty} src={ty} round_int=1 rnd={rnd} ftz=1");
            check_conversions(&format!("f2f_round_{ty}_{rnd}"), &line, float_mask(ty), &rows);
        }
    }
    for (dst, src) in [(1, 2), (2, 3)] {
        for rnd in 1..4 {
            let line = format!("F2F.reg rd=2 rb=2 dst={dst} src={src} rnd={rnd} ftz=1");
            let rows = [(float_bits(src, 1.5), float_bits(dst, 1.5))];
            check_conversions(&format!("f2f_rnd_{dst}_{src}_{rnd}"), &line, float_mask(dst), &rows);
        }
    }
}

/// f2f.cpp "F2F Rounding" (FP16): F2F.FTZ.F16.F16 .ROUND, .FLOOR, .CEIL, .TRUNC of 2.5, 3.5, -1.5 and -3.5.
#[test]
fn fp16_conversions_round_to_integers() {
    for rnd in 0..4 {
        let rows: Vec<(u64, u64)> =
            [2.5, 3.5, -1.5, -3.5].iter().map(|&x| (float_bits(1, x), float_bits(1, rounded(rnd, x)))).collect();
        let line = format!("F2F.reg rd=2 rb=2 dst=1 src=1 round_int=1 rnd={rnd} ftz=1");
        check_conversions(&format!("f2f_round_1_{rnd}"), &line, 0xffff, &rows);
    }
}

/// f2f.cpp "F2F Extract" and "F2F Modifiers" (the hardware read c[2][0]; F2F has only a register form in the table):
/// .H1 (half_b) takes an FP16 pair's high half, -x and |x| apply to the source.
#[test]
fn float_conversions_take_halves_and_modifiers() {
    let f = |x: f32| u64::from(x.to_bits());
    let pair37 = u64::from(pair(3.0, 7.0));
    for (i, (dst, src, fields, input, expected)) in [
        (1, 1, "", pair37, h(3.0)),
        (1, 1, "half_b=1", pair37, h(7.0)),
        (1, 1, "neg_b=1", pair37, h(-3.0)),
        (1, 1, "neg_b=1 half_b=1", pair37, h(-7.0)),
        (1, 2, "neg_b=1", f(3.0), h(-3.0)),
        (1, 2, "neg_b=1", f(4.0), h(-4.0)),
        (2, 2, "neg_b=1", f(3.0), (-3.0f32).to_bits()),
        (2, 2, "neg_b=1", f(4.0), (-4.0f32).to_bits()),
        (2, 3, "neg_b=1", 3.0f64.to_bits(), (-3.0f32).to_bits()),
        (2, 3, "neg_b=1", 4.0f64.to_bits(), (-4.0f32).to_bits()),
        (1, 2, "abs_b=1", f(-3.0), h(3.0)),
        (1, 2, "abs_b=1", f(-4.0), h(4.0)),
        (2, 2, "abs_b=1", f(-3.0), 3.0f32.to_bits()),
        (2, 2, "abs_b=1", f(-4.0), 4.0f32.to_bits()),
    ]
    .into_iter()
    .enumerate()
    {
        let line = format!("F2F.reg rd=2 rb=2 dst={dst} src={src} ftz=1 {fields}");
        check_conversions(&format!("f2f_parts_{i}"), &line, float_mask(dst), &[(input, u64::from(expected))]);
    }
}

/// f2i.cpp "F2I Simple", "F2I Modes", "F2I Clamp", "F2I NAN" and "F2I Denorm" (FP16 to 64 bits and FP64 to 16 bits
/// kill execution: no vectors): F2I.FTZ.dst.src R2, R2 rounds to nearest even, or .FLOOR, .CEIL, .TRUNC (rnd 1-3);
/// out-of-range values saturate (a signed 16-bit result sign-extended to the word); NaN gives 0, but the integer's
/// top bit alone from FP32 to 64 bits and from FP64 to 32 bits (of FP64 to 64 bits nxgpucatch reads the low word,
/// 0); with .FTZ a denormal is 0 before rounding.
#[test]
fn float_to_integer_conversions_follow_the_hardware() {
    let (f16, f32b, f64b) = (|x: f64| float_bits(1, x), |x: f64| u64::from((x as f32).to_bits()), |x: f64| x.to_bits());
    let word = 0xffff_ffffu64;
    let minus = |x: i64| x as u64;
    // (dst size 0-3 (8-64 bits), signed, src float type, rnd, ftz, input, mask, expected)
    let mut vectors = vec![
        (1, 0, 1, 0, 1, f16(5.0), word, 5),
        (1, 1, 1, 0, 1, f16(7.0), word, 7),
        (2, 0, 1, 0, 1, f16(5.0), word, 5),
        (2, 1, 1, 0, 1, f16(2.0), word, 2),
        (1, 0, 2, 0, 1, f32b(5.0), word, 5),
        (1, 1, 2, 0, 1, f32b(7.0), word, 7),
        (2, 0, 2, 0, 1, f32b(5.0), word, 5),
        (2, 1, 2, 0, 1, f32b(2.0), word, 2),
        (3, 0, 2, 0, 1, f32b(6.0), u64::MAX, 6),
        (3, 1, 2, 0, 1, f32b(2.0), u64::MAX, 2),
        (2, 0, 3, 0, 1, f64b(5.0), word, 5),
        (2, 1, 3, 0, 1, f64b(2.0), word, 2),
        (3, 0, 3, 0, 1, f64b(6.0), u64::MAX, 6),
        (3, 1, 3, 0, 1, f64b(2.0), u64::MAX, 2),
        // Clamp, from FP32.
        (1, 0, 2, 0, 1, f32b(65537.0), word, 0xffff),
        (1, 0, 2, 0, 1, f32b(-65536.0), word, 0),
        (1, 1, 2, 0, 1, f32b(65536.0), word, 0x7fff),
        (1, 1, 2, 0, 1, f32b(-65536.0), word, 0xffff_8000),
        (2, 0, 2, 0, 1, f32b(4294967296.0), word, 0xffff_ffff),
        (2, 0, 2, 0, 1, f32b(-4294967296.0), word, 0),
        (2, 1, 2, 0, 1, f32b(4294967296.0), word, 0x7fff_ffff),
        (2, 1, 2, 0, 1, f32b(-4294967296.0), word, 0x8000_0000),
        (3, 0, 2, 0, 1, u64::from(18446744073709551616.0f32.to_bits()), u64::MAX, u64::MAX),
        (3, 0, 2, 0, 1, u64::from((-18446744073709551616.0f32).to_bits()), u64::MAX, 0),
        (3, 1, 2, 0, 1, u64::from(18446744073709551616.0f32.to_bits()), u64::MAX, 0x7fff_ffff_ffff_ffff),
        (3, 1, 2, 0, 1, u64::from((-18446744073709551616.0f32).to_bits()), u64::MAX, 0x8000_0000_0000_0000),
        // NaN.
        (3, 0, 2, 0, 1, u64::from(f32::NAN.to_bits()), u64::MAX, 1 << 63),
        (3, 1, 2, 0, 1, u64::from(f32::NAN.to_bits()), u64::MAX, 1 << 63),
        (2, 0, 2, 0, 1, u64::from(f32::NAN.to_bits()), word, 0),
        (2, 1, 2, 0, 1, u64::from(f32::NAN.to_bits()), word, 0),
        (1, 0, 2, 0, 1, u64::from(f32::NAN.to_bits()), word, 0),
        (1, 1, 2, 0, 1, u64::from(f32::NAN.to_bits()), word, 0),
        (2, 0, 3, 0, 1, f64::NAN.to_bits(), word, 0x8000_0000),
        (2, 1, 3, 0, 1, f64::NAN.to_bits(), word, 0x8000_0000),
        (3, 0, 3, 0, 1, f64::NAN.to_bits(), word, 0),
        (3, 1, 3, 0, 1, f64::NAN.to_bits(), word, 0),
        // Denormals (.CEIL of 1e-40, .FLOOR of -1e-40).
        (2, 1, 2, 2, 1, f32b(1e-40), word, 0),
        (2, 1, 2, 2, 0, f32b(1e-40), word, 1),
        (2, 1, 2, 1, 1, f32b(-1e-40), word, 0),
        (2, 1, 2, 1, 0, f32b(-1e-40), word, 0xffff_ffff),
    ];
    // Modes, S32 from each float type: nearest even (1.5, 2.5, -1.5), .FLOOR, .CEIL, .TRUNC (1.8, -1.8). FP16
    // holds 1.8 as 0x3f33.
    for src in [1, 2, 3] {
        let bits = |x: f64| -> u64 {
            match src {
                1 if x == 1.8 => 0x3f33,
                1 if x == -1.8 => 0xbf33,
                1 => float_bits(1, x),
                2 => f32b(x),
                _ => f64b(x),
            }
        };
        for (rnd, x, expected) in [
            (0, 1.5, 2),
            (0, 2.5, 2),
            (0, -1.5, -2),
            (1, 1.8, 1),
            (1, -1.8, -2),
            (2, 1.8, 2),
            (2, -1.8, -1),
            (3, 1.8, 1),
            (3, -1.8, -1),
        ] {
            vectors.push((2, 1, src, rnd, 1, bits(x), word, minus(expected) & word));
        }
    }
    for (i, (size, signed, src, rnd, ftz, input, mask, expected)) in vectors.into_iter().enumerate() {
        let line = format!("F2I.reg rd=2 rb=2 dst={size} dst_signed={signed} src={src} rnd={rnd} ftz={ftz}");
        check_conversions(&format!("f2i_{i}"), &line, mask, &[(input, expected)]);
    }
}

/// The 7 values of i2f.cpp "I2F Simple", as the test's input type holds them (its low `width` bits), and what
/// converting that integer (signed or not) to float type `dst` gives.
fn i2f_rows(dst: u64, width: u32, signed: bool) -> Vec<(u64, u64)> {
    [0x17u64, 0x80, 0xde, 0xff, 0x170, 0x8000, 0xdee0]
        .iter()
        .map(|&value| {
            let input = if width < 64 { value & ((1u64 << width) - 1) } else { value };
            let x = if signed { ((input << (64 - width)) as i64) >> (64 - width) } else { input as i64 };
            (input, float_bits(dst, x as f64))
        })
        .collect()
}

/// i2f.cpp "I2F Simple": the test's 7 values (a thread each) from S8, U8, S16, U16 to FP16 and FP32, from S32, U32,
/// S64 (R2:R3), U64 to FP32 and FP64: all exact.
#[test]
fn integer_to_float_conversions_keep_exact_values() {
    let mut conversions = Vec::new();
    for src in [0, 1] {
        for dst in [1, 2] {
            conversions.push((dst, src));
        }
    }
    for src in [2, 3] {
        for dst in [2, 3] {
            conversions.push((dst, src));
        }
    }
    for (dst, src) in conversions {
        for signed in [true, false] {
            let rows = i2f_rows(dst, 8 << src, signed);
            let line = format!("I2F.reg rd=2 rb=2 dst={dst} src={src} src_signed={}", u32::from(signed));
            check_conversions(&format!("i2f_{dst}_{src}_{signed}"), &line, float_mask(dst), &rows);
        }
    }
}

/// i2f.cpp "I2F Simple" and "I2F Undefined" (the forms without .NEG): I2F.F32 R2, c[2][0] of a part of the word (.H1
/// is byte_b 2, .B1-.B3 byte_b 1-3) and |x|; a signed source's .ABS wraps in its width.
#[test]
fn integer_to_float_conversions_take_parts_and_absolute_values() {
    // (src size, signed, byte_b, abs, c[2][0], result)
    for (i, (src, signed, byte, abs, word, expected)) in [
        (1, 1, 0, 1, 0xffef, 17.0f32),
        (2, 1, 0, 1, (-17i32) as u32, 17.0),
        (1, 1, 2, 0, 0xffff_0000, -1.0),
        (0, 1, 1, 0, 0x0000_ff00, -1.0),
        (0, 1, 2, 0, 0x00ff_0000, -1.0),
        (0, 1, 3, 0, 0xff00_0000, -1.0),
        (0, 0, 1, 0, 0x0000_ff00, 255.0),
        (0, 0, 2, 0, 0x00ff_0000, 255.0),
        (0, 0, 3, 0, 0xff00_0000, 255.0),
        (1, 1, 0, 1, 0x9000, 28672.0),
        (2, 1, 0, 0, 0x8000_0000, -2147483648.0),
        (1, 0, 0, 1, 0x8000, 32768.0),
        (2, 0, 0, 0, 0x9000_0000, 2415919104.0),
        (2, 0, 0, 1, 0x9000_0000, 2415919104.0),
        (1, 0, 0, 1, 0x9000, 36864.0),
        (0, 0, 0, 1, 0x90, 144.0),
        (0, 1, 0, 1, 0x90, 112.0),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!(
            "I2F.cbuf rd=2 dst=2 src={src} src_signed={signed} byte_b={byte} abs_b={abs} cb_bank=2 cb_offset=0"
        );
        check(&format!("i2f_part_{i}"), &body, vec![(2, bank(&[word]))], each(expected.to_bits()));
    }
}

/// i2f.cpp "I2F Simple" and "I2F Undefined" (.NEG): I2F.F32 R2, -c[2][0] (and -|c[2][0]|); an unsigned source
/// negated gives a negative value; a signed one's -x wraps in its width (-(-32768) of an S16 is -32768), S64 too.
#[test]
fn integer_to_float_conversions_negate() {
    // (src size, signed, abs, c[2][0], result)
    for (i, (src, signed, abs, word, expected)) in [
        (1, 1, 0, 17, -17.0f32),
        (1, 0, 0, 17, -17.0),
        (1, 1, 0, 0x9000, 28672.0),
        (1, 1, 1, 0x9000, -28672.0),
        (1, 1, 0, 0x8000, -32768.0),
        (2, 1, 0, 0x8000_0000, -2147483648.0),
        (1, 0, 0, 0x8000, -32768.0),
        (1, 0, 0, 0x9000, -36864.0),
        (1, 0, 1, 0x9000, -36864.0),
        (0, 0, 0, 0x90, -144.0),
        (0, 0, 1, 0x90, -144.0),
        (0, 1, 0, 0x90, 112.0),
        (0, 1, 1, 0x90, -112.0),
        (0, 1, 0, 0x80, -128.0),
    ]
    .into_iter()
    .enumerate()
    {
        let body =
            format!("I2F.cbuf rd=2 dst=2 src={src} src_signed={signed} neg_b=1 abs_b={abs} cb_bank=2 cb_offset=0");
        check(&format!("i2f_neg_{i}"), &body, vec![(2, bank(&[word]))], each(expected.to_bits()));
    }
    // S64 in R2:R3 (the hardware read c[2][0]): -(-2^63) is -2^63, -(-2^63 + 1) is 2^63 - 1.
    let min = i64::MIN as u64;
    for (i, (value, expected)) in
        [(min, -9223372036854775808.0f32), (min + 1, 9223372036854775807i64 as f32)].into_iter().enumerate()
    {
        let body = format!("{}I2F.reg rd=2 rb=2 dst=2 src=3 src_signed=1 neg_b=1", set64(&[(2, value)]));
        check(&format!("i2f_neg_wide_{i}"), &body, Vec::new(), each(expected.to_bits()));
    }
}

/// i2f.cpp "I2F Simple", "I2F Rounding" and "I2F Undefined" for 64-bit sources, in R2:R3 (the hardware read
/// c[2][0]): U64 to FP32 rounded to nearest (0xffffffffffffffff is 2^64), .RM and .RZ down, .RP up; an S64's |x|
/// wraps (of -2^63 itself).
#[test]
fn wide_integers_convert_to_fp32() {
    let precise = 0xffff_ffff_ffff_ff00u64;
    let (top, below) = (18446744073709551616.0f32, 18446742974197923840.0f32);
    let min = i64::MIN as u64;
    // (signed, rnd, neg, abs, value, result)
    for (i, (signed, rnd, neg, abs, value, expected)) in [
        (0, 0, 0, 0, u64::MAX, top),
        (0, 0, 0, 0, 0xffff_cccc_ffff_dddd, 18446687998616535040.0),
        (0, 0, 0, 0, 0xffff_3333_aaaa_ffff, 18446518673825857536.0),
        (0, 0, 0, 0, precise, top),
        (0, 1, 0, 0, precise, below),
        (0, 2, 0, 0, precise, top),
        (0, 3, 0, 0, precise, below),
        (1, 0, 0, 1, min, -9223372036854775808.0),
        (1, 0, 0, 1, min + 1, 9223372036854775807i64 as f32),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!(
            "{}I2F.reg rd=2 rb=2 dst=2 src=3 src_signed={signed} rnd={rnd} neg_b={neg} abs_b={abs}",
            set64(&[(2, value)])
        );
        check(&format!("i2f_wide_{i}"), &body, Vec::new(), each(expected.to_bits()));
    }
}

/// i2f.cpp "I2F Simple" and "I2F Rounding", as the hardware ran them: I2F.F32.U64 R2, c[2][0] reads the pair
/// c[2][0], c[2][4]. (I2F.F32.U64 R2, 3 gives 3 x 2^32 there, and of -3 2^64: a 64-bit immediate is the high word,
/// its low word 0 or the immediate again, which those vectors cannot tell; both paths refuse it.)
#[test]
fn wide_integer_constants_convert() {
    let precise = 0xffff_ffff_ffff_ff00u64;
    let (top, below) = (18446744073709551616.0f32, 18446742974197923840.0f32);
    for (i, (rnd, value, expected)) in [
        (0, u64::MAX, top),
        (0, 0xffff_cccc_ffff_dddd, 18446687998616535040.0),
        (0, 0xffff_3333_aaaa_ffff, 18446518673825857536.0),
        (0, precise, top),
        (1, precise, below),
        (2, precise, top),
        (3, precise, below),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("I2F.cbuf rd=2 dst=2 src=3 rnd={rnd} cb_bank=2 cb_offset=0");
        let constants = vec![(2, bank(&[value as u32, (value >> 32) as u32]))];
        check(&format!("i2f_wide_cbuf_{i}"), &body, constants, each(expected.to_bits()));
    }
    let (interpreted, translated) = refusals("i2f_wide_imm", "I2F.imm rd=2 dst=2 src=3 imm20=0x3");
    assert!(interpreted.contains("I2F") && translated.contains("I2F"), "{interpreted} / {translated}");
}

// ===============================================================================================================
// FP16 pairs.

/// hadd2.cpp "HADD2 Simple" (register forms), "HADD2 Saturate", "HADD2 NAN": HADD2.FTZ R2, R3, R4 with R2 = 0;
/// swizzles H0_H0 (2), H1_H1 (3), F32 (1) of either source, either source negated or absolute; .SAT; inf + -inf
/// and NaN operands give 0x7fff (0 with .SAT). `mask` keeps the halves the test reads (.SAT's zeros without sign).
#[test]
fn hadd2_follows_the_hardware() {
    let (p, f) = (pair, |x: f32| x.to_bits());
    let (inf, ninf, nan) = (0x7c00u32, 0xfc00u32, 0x7fffu32);
    for (i, (fields, a, b, mask, expected)) in [
        ("", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(6.0, 10.0)),
        ("swz_a=2", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(6.0, 8.0)),
        ("swz_a=3", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(8.0, 10.0)),
        ("swz_b=2", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(6.0, 8.0)),
        ("swz_b=3", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(8.0, 10.0)),
        ("swz_b=1", p(1.0, 3.0), f(8.0), TRUE, p(9.0, 11.0)),
        ("neg_a=1", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(4.0, 4.0)),
        ("neg_a=1 swz_a=2", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(4.0, 6.0)),
        ("neg_a=1 swz_a=3", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(2.0, 4.0)),
        ("neg_b=1", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(-4.0, -4.0)),
        ("neg_b=1 swz_b=2", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(-4.0, -2.0)),
        ("neg_b=1 swz_b=3", p(1.0, 3.0), p(5.0, 7.0), TRUE, p(-6.0, -4.0)),
        ("neg_b=1 swz_b=1", p(1.0, 3.0), f(8.0), TRUE, p(-7.0, -5.0)),
        ("abs_a=1", p(-1.0, -3.0), p(5.0, 7.0), TRUE, p(6.0, 10.0)),
        ("abs_a=1 swz_a=2", p(-1.0, -3.0), p(5.0, 7.0), TRUE, p(6.0, 8.0)),
        ("abs_a=1 swz_a=3", p(-1.0, -3.0), p(5.0, 7.0), TRUE, p(8.0, 10.0)),
        ("abs_a=1 swz_a=1", f(-4.0), p(5.0, 7.0), TRUE, p(9.0, 11.0)),
        ("abs_b=1", p(1.0, 3.0), p(-5.0, -7.0), TRUE, p(6.0, 10.0)),
        ("abs_b=1 swz_b=2", p(1.0, 3.0), p(-5.0, -7.0), TRUE, p(6.0, 8.0)),
        ("abs_b=1 swz_b=3", p(1.0, 3.0), p(-5.0, -7.0), TRUE, p(8.0, 10.0)),
        ("abs_b=1 swz_b=1", p(1.0, 3.0), f(-8.0), TRUE, p(9.0, 11.0)),
        ("sat=1 neg_b=1", p(1.0, 3.0), p(5.0, 7.0), 0x7fff_7fff, 0),
        ("", inf << 16 | inf, inf << 16 | inf, TRUE, inf << 16 | inf),
        ("", inf << 16 | inf, ninf << 16 | inf, 0xffff_0000, 0x7fff_0000),
        ("", nan, nan, 0xffff, 0x7fff),
        ("", 0xffff, 0xffff, 0xffff, 0x7fff),
        ("", nan, 0xffff, 0xffff, 0x7fff),
        ("sat=1", nan, nan, 0xffff, 0),
        ("sat=1", inf, inf, 0xffff, 0x3c00),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!(
            "{}HADD2.reg rd=2 ra=3 rb=4 ftz=1 {fields}\nLOP32I rd=2 ra=2 imm32={mask:#x} op=0",
            set(&[(2, 0), (3, a), (4, b)])
        );
        check(&format!("hadd2_{i}"), &body, Vec::new(), each(expected));
    }
}

/// hadd2.cpp "HADD2 Simple" and "HADD2 Saturate" (immediate forms): HADD2.FTZ R2, R3, -4, 2 (H1 -4, H0 2) of R3 =
/// {1, 3} and R2 = {12, 12}, a negated; .F32 (out=1); .MRG_H0/H1 (out=2, 3); .SAT; HADD2_32I R2, R3 (with its
/// swizzles), -4, 2.
#[test]
fn hadd2_immediates_follow_the_hardware() {
    let (p, f) = (pair, |x: f32| x.to_bits());
    let imm = |hi: f32, lo: f32| format!("imm_hi={:#x} imm_lo={:#x}", imm_half(hi), imm_half(lo));
    let base = p(12.0, 12.0);
    for (i, (operand, fields, a, after, expected)) in [
        (imm(-4.0, 2.0), "", p(1.0, 3.0), "", p(3.0, -1.0)),
        (imm(-4.0, 2.0), "neg_a=1", p(1.0, 3.0), "", p(1.0, -7.0)),
        (imm(-4.0, 2.0), "out=1", p(1.0, 3.0), "", f(3.0)),
        (imm(-4.0, 2.0), "out=2", p(1.0, 3.0), "", p(3.0, 12.0)),
        (imm(-4.0, 2.0), "out=3", p(1.0, 3.0), "", p(12.0, -1.0)),
        (imm(-4.0, 2.0), "out=2 sat=1", p(1.0, 3.0), "", p(1.0, 12.0)),
        (imm(-4.0, 2.0), "out=1 sat=1", p(1.0, 3.0), "", f(1.0)),
        (imm(-4.0, -2.0), "out=1 sat=1", p(1.0, 3.0), MAGNITUDE, 0),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}HADD2.imm rd=2 ra=3 {operand} ftz=1 {fields}{after}", set(&[(2, base), (3, a)]));
        check(&format!("hadd2_imm_{i}"), &body, Vec::new(), each(expected));
    }
    for (i, (fields, a, expected)) in [
        ("", p(1.0, 3.0), p(3.0, -1.0)),
        ("swz_a=2", p(1.0, 3.0), p(3.0, -3.0)),
        ("swz_a=3", p(3.0, 1.0), p(3.0, -3.0)),
        ("swz_a=1", f(1.0), p(3.0, -3.0)),
        ("swz_a=1 neg_a=1", f(1.0), p(1.0, -5.0)),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}HADD2_32I rd=2 ra=3 imm32={:#x} {fields}", set(&[(2, 0), (3, a)]), p(2.0, -4.0));
        check(&format!("hadd2_32i_{i}"), &body, Vec::new(), each(expected));
    }
}

/// hmul2.cpp "HMUL2 Simple", "HMUL2 Saturate", "HMUL2 NAN": HMUL2.FTZ (fmz=1) R2, R3, R4 with R2 = 0 (the immediate
/// pair -4, 2 as R4 = {2, -4}, R2 = {12, 12} for .MRG_H0: the table has no HMUL2.imm); swizzles and modifiers as
/// HADD2's; inf x -inf is -inf, NaN operands 0x7fff (0 with .SAT); HMUL2_32I R2, R3, -4, 2 (and 4, -2).
#[test]
fn hmul2_follows_the_hardware() {
    let (p, f) = (pair, |x: f32| x.to_bits());
    let (inf, ninf, nan) = (0x7c00u32, 0xfc00u32, 0x7fffu32);
    let (zero, twelve, imm) = (0, p(12.0, 12.0), p(2.0, -4.0));
    for (i, (fields, base, a, b, mask, expected)) in [
        ("", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(5.0, 21.0)),
        ("swz_a=2", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(5.0, 7.0)),
        ("swz_a=3", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(15.0, 21.0)),
        ("swz_a=1", zero, f(4.0), p(5.0, 7.0), TRUE, p(20.0, 28.0)),
        ("swz_b=2", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(5.0, 15.0)),
        ("swz_b=3", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(7.0, 21.0)),
        ("swz_b=1", zero, p(1.0, 3.0), f(8.0), TRUE, p(8.0, 24.0)),
        ("neg_b=1", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(-5.0, -21.0)),
        ("neg_b=1 swz_b=2", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(-5.0, -15.0)),
        ("neg_b=1 swz_b=3", zero, p(1.0, 3.0), p(5.0, 7.0), TRUE, p(-7.0, -21.0)),
        ("neg_b=1 swz_b=1", zero, p(1.0, 3.0), f(8.0), TRUE, p(-8.0, -24.0)),
        ("abs_a=1", zero, p(-1.0, -3.0), p(5.0, 7.0), TRUE, p(5.0, 21.0)),
        ("abs_a=1 swz_a=2", zero, p(-1.0, -3.0), p(5.0, 7.0), TRUE, p(5.0, 7.0)),
        ("abs_a=1 swz_a=3", zero, p(-1.0, -3.0), p(5.0, 7.0), TRUE, p(15.0, 21.0)),
        ("abs_a=1 swz_a=1", zero, f(-4.0), p(5.0, 7.0), TRUE, p(20.0, 28.0)),
        ("abs_b=1", zero, p(1.0, 3.0), p(-5.0, -7.0), TRUE, p(5.0, 21.0)),
        ("abs_b=1 swz_b=2", zero, p(1.0, 3.0), p(-5.0, -7.0), TRUE, p(5.0, 15.0)),
        ("abs_b=1 swz_b=3", zero, p(1.0, 3.0), p(-5.0, -7.0), TRUE, p(7.0, 21.0)),
        ("abs_b=1 swz_b=1", zero, p(1.0, 3.0), f(-8.0), TRUE, p(8.0, 24.0)),
        ("", zero, p(1.0, 3.0), imm, TRUE, p(2.0, -12.0)),
        ("out=1", zero, p(1.0, 3.0), imm, TRUE, f(2.0)),
        ("out=2 sat=1", twelve, p(1.0, 3.0), imm, TRUE, p(1.0, 12.0)),
        ("sat=1 neg_b=1", zero, p(1.0, 3.0), p(5.0, 7.0), 0x7fff_7fff, 0),
        ("out=1 sat=1", zero, p(1.0, 3.0), imm, TRUE, f(1.0)),
        ("out=1 sat=1", zero, p(1.0, 3.0), p(-2.0, -4.0), 0x7fff_ffff, 0),
        ("", zero, inf << 16 | inf, inf << 16 | inf, TRUE, inf << 16 | inf),
        ("", zero, inf << 16 | inf, ninf << 16 | inf, 0xffff_0000, 0xfc00_0000),
        ("", zero, nan, nan, 0xffff, 0x7fff),
        ("", zero, 0xffff, 0xffff, 0xffff, 0x7fff),
        ("", zero, nan, 0xffff, 0xffff, 0x7fff),
        ("sat=1", zero, nan, nan, 0xffff, 0),
        ("sat=1", zero, inf, inf, 0xffff, 0x3c00),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!(
            "{}HMUL2.reg rd=2 ra=3 rb=4 fmz=1 {fields}\nLOP32I rd=2 ra=2 imm32={mask:#x} op=0",
            set(&[(2, base), (3, a), (4, b)])
        );
        check(&format!("hmul2_{i}"), &body, Vec::new(), each(expected));
    }
    for (i, (fields, a, imm, expected)) in [
        ("", p(1.0, 3.0), p(2.0, -4.0), p(2.0, -12.0)),
        ("swz_a=2", p(1.0, 3.0), p(2.0, -4.0), p(2.0, -4.0)),
        ("swz_a=3", p(3.0, 1.0), p(2.0, -4.0), p(2.0, -4.0)),
        ("swz_a=1", f(1.0), p(2.0, -4.0), p(2.0, -4.0)),
        ("swz_a=1", f(1.0), p(-2.0, 4.0), p(-2.0, 4.0)),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}HMUL2_32I rd=2 ra=3 imm32={imm:#x} {fields}", set(&[(2, 0), (3, a)]));
        check(&format!("hmul2_32i_{i}"), &body, Vec::new(), each(expected));
    }
}

/// hfma2.cpp "HFMA2 Simple" (register, immediate and 32-bit-immediate forms) and "HFMA2 Promotions": HFMA2.FTZ
/// (fmz=1) R2, R3, R4, R5 with R2 = 0; each source's swizzle (H0_H0 2, H1_H1 3, F32 1), b and c negated; .MRG_H0/H1,
/// .F32, .SAT; the immediate "1, 2" is H1 = 1, H0 = 2; HFMA2_32I adds R2 = {1, 2}.
#[test]
fn hfma2_follows_the_hardware() {
    let (p, f) = (pair, |x: f32| x.to_bits());
    let (a12, b21, c11) = (p(1.0, 2.0), p(2.0, 1.0), p(1.0, 1.0));
    for (i, (fields, a, b, c, after, expected)) in [
        ("", a12, b21, p(1.0, 2.0), "", p(3.0, 4.0)),
        ("", a12, b21, c11, "", p(3.0, 3.0)),
        ("neg_b=1", a12, b21, c11, "", p(-1.0, -1.0)),
        ("neg_c=1", a12, b21, c11, "", p(1.0, 1.0)),
        ("swz_a=2", a12, b21, c11, "", p(3.0, 2.0)),
        ("swz_a=3", a12, b21, c11, "", p(5.0, 3.0)),
        ("swz_a=1", f(1.0), b21, c11, "", p(3.0, 2.0)),
        ("swz_b=2", a12, b21, c11, "", p(3.0, 5.0)),
        ("swz_b=3", a12, b21, c11, "", p(2.0, 3.0)),
        ("swz_b=1", a12, f(1.0), c11, "", p(2.0, 3.0)),
        ("swz_c=2", a12, b21, p(1.0, 2.0), "", p(3.0, 3.0)),
        ("swz_c=3", a12, b21, p(2.0, 1.0), "", p(3.0, 3.0)),
        ("swz_c=1", a12, b21, f(1.0), "", p(3.0, 3.0)),
        ("out=2", a12, b21, c11, "", p(3.0, 0.0)),
        ("out=3", a12, b21, c11, "", p(0.0, 3.0)),
        ("out=1", a12, b21, c11, "", f(3.0)),
        ("out=1 sat=1", a12, b21, c11, "", f(1.0)),
        ("swz_a=1 swz_c=1", f(1.0), b21, f(1.0), "", p(3.0, 2.0)),
        ("swz_a=1 swz_b=1", f(1.0), f(1.0), p(1.0, 2.0), "", p(2.0, 3.0)),
        ("swz_a=1 swz_b=1 swz_c=1", f(1.0), f(1.0), f(1.0), "", p(2.0, 2.0)),
        ("out=1 swz_a=1 swz_b=1 swz_c=1", f(1.0), f(1.0), f(2.0), "", f(3.0)),
        ("out=1 sat=1 swz_a=1 swz_b=1 swz_c=1", f(1.0), f(1.0), f(2.0), "", f(1.0)),
        ("out=1 sat=1 swz_a=1 swz_b=1 swz_c=1 neg_b=1 neg_c=1", f(1.0), f(1.0), f(2.0), MAGNITUDE, 0),
    ]
    .into_iter()
    .enumerate()
    {
        let body =
            format!("{}HFMA2.reg rd=2 ra=3 rb=4 rc=5 fmz=1 {fields}{after}", set(&[(2, 0), (3, a), (4, b), (5, c)]));
        check(&format!("hfma2_{i}"), &body, Vec::new(), each(expected));
    }
    let imm = |hi: f32, lo: f32| format!("imm_hi={:#x} imm_lo={:#x}", imm_half(hi), imm_half(lo));
    for (i, (operand, fields, a, c, expected)) in [
        (imm(1.0, 2.0), "", a12, c11, p(3.0, 3.0)),
        (imm(-1.0, -2.0), "", a12, c11, p(-1.0, -1.0)),
        (imm(1.0, 2.0), "neg_c=1", a12, c11, p(1.0, 1.0)),
        (imm(1.0, 2.0), "swz_a=2", a12, c11, p(3.0, 2.0)),
        (imm(1.0, 2.0), "swz_a=3", a12, c11, p(5.0, 3.0)),
        (imm(1.0, 2.0), "swz_a=1", f(1.0), c11, p(3.0, 2.0)),
        (imm(1.0, 2.0), "swz_c=2", a12, p(1.0, 2.0), p(3.0, 3.0)),
        (imm(1.0, 2.0), "swz_c=3", a12, p(2.0, 1.0), p(3.0, 3.0)),
        (imm(1.0, 2.0), "swz_c=1", a12, f(1.0), p(3.0, 3.0)),
        (imm(1.0, 2.0), "out=2", a12, c11, p(3.0, 0.0)),
        (imm(1.0, 2.0), "out=3", a12, c11, p(0.0, 3.0)),
        (imm(1.0, 2.0), "out=1", a12, c11, f(3.0)),
        (imm(1.0, 2.0), "out=1 sat=1", a12, c11, f(1.0)),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}HFMA2.imm rd=2 ra=3 {operand} rc=5 fmz=1 {fields}", set(&[(2, 0), (3, a), (5, c)]));
        check(&format!("hfma2_imm_{i}"), &body, Vec::new(), each(expected));
    }
    for (i, (fields, a, expected)) in [
        ("", a12, p(3.0, 4.0)),
        ("neg_c=1", a12, p(1.0, 0.0)),
        ("swz_a=2", a12, p(3.0, 3.0)),
        ("swz_a=3", a12, p(5.0, 4.0)),
        ("swz_a=1", f(3.0), p(7.0, 5.0)),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}HFMA2_32I rd=2 ra=3 imm32={:#x} fmz=1 {fields}", set(&[(2, a12), (3, a)]), p(2.0, 1.0));
        check(&format!("hfma2_32i_{i}"), &body, Vec::new(), each(expected));
    }
}

/// hset2.cpp "HSET2 Simple" (register and immediate forms; what `fp32_swizzles_feed_both_lanes` leaves out) and
/// "HSET2 NAN": HSET2.cond.FTZ.AND R2, R2, b, PT of R2 = a, R3 = b: each half all ones where its comparison holds
/// (1.0, 0x3c00, with .BF); swizzles and modifiers of either source; the unordered comparisons hold for a NaN.
#[test]
fn hset2_follows_the_hardware() {
    let (p, f) = (pair, |x: f32| x.to_bits());
    let (one_nan, nan_nan, one_one, nan_one) = (0x7fff_3c00u32, 0x7fff_7fffu32, p(1.0, 1.0), 0x3c00_7fffu32);
    let mut vectors = Vec::new();
    // (cmp, fields, a, b, result), each also with the unordered comparison (cmp + 8, where cmp is 1-6).
    for (cmp, fields, a, b, expected) in [
        (1, "", p(1.0, 2.0), p(2.0, 2.0), 0x0000_ffff),
        (2, "", p(1.0, 2.0), p(2.0, 2.0), 0xffff_0000),
        (3, "", p(1.0, 2.0), p(2.0, 2.0), TRUE),
        (4, "", p(1.0, 3.0), p(2.0, 2.0), 0xffff_0000),
        (6, "", p(2.0, 3.0), p(2.0, 2.0), TRUE),
        (5, "", p(2.0, 3.0), p(2.0, 2.0), 0xffff_0000),
        (1, "neg_b=1", p(1.0, 2.0), p(2.0, 2.0), 0),
        (1, "abs_b=1", p(1.0, 2.0), p(-2.0, -2.0), 0x0000_ffff),
        (1, "neg_a=1", p(1.0, 2.0), p(2.0, 2.0), TRUE),
        (1, "abs_a=1", p(-1.0, -2.0), p(2.0, 2.0), 0x0000_ffff),
        (1, "swz_a=3", p(1.0, 2.0), p(2.0, 2.0), 0),
        (1, "swz_a=2", p(1.0, 2.0), p(2.0, 2.0), TRUE),
        (3, "swz_b=2", p(1.0, 2.0), p(1.0, 2.0), 0x0000_ffff),
        (1, "swz_b=3", p(1.0, 2.0), p(1.0, 2.0), 0x0000_ffff),
        (1, "bop=1", p(1.0, 2.0), p(2.0, 2.0), TRUE),
        (1, "bop=2", p(1.0, 2.0), p(2.0, 2.0), 0xffff_0000),
        (1, "bf=1", p(1.0, 2.0), p(2.0, 2.0), 0x0000_3c00),
    ] {
        vectors.push((cmp, fields, a, b, expected));
        vectors.push((cmp + 8, fields, a, b, expected));
    }
    vectors.push((0, "", p(1.0, 2.0), p(3.0, 2.0), 0));
    vectors.push((15, "", p(1.0, 2.0), p(3.0, 2.0), TRUE));
    vectors.push((9, "swz_a=1", f(3.0), p(2.0, 2.0), 0));
    vectors.push((9, "swz_b=1", p(1.0, 2.0), f(2.0), 0x0000_ffff));
    for cmp in 1..=14 {
        vectors.push((cmp, "", one_nan, nan_nan, if cmp >= 8 { TRUE } else { 0 }));
    }
    vectors.push((7, "", one_one, nan_nan, 0));
    vectors.push((7, "", nan_one, nan_one, 0xffff_0000));
    vectors.push((8, "", one_one, nan_nan, TRUE));
    vectors.push((8, "", one_nan, one_nan, 0xffff_0000));
    for (i, (cmp, fields, a, b, expected)) in vectors.into_iter().enumerate() {
        let body = format!("{}HSET2.reg rd=2 ra=2 rb=3 cmp={cmp} ftz=1 ps=7 {fields}", set(&[(2, a), (3, b)]));
        check(&format!("hset2_{i}"), &body, Vec::new(), each(expected));
    }
    // The immediate form: b is the pair (H1, H0) of the instruction.
    let imm = |hi: f32, lo: f32| format!("imm_hi={:#x} imm_lo={:#x}", imm_half(hi), imm_half(lo));
    for (i, (cmp, operand, fields, a, expected)) in [
        (0, imm(2.0, 3.0), "", p(1.0, 2.0), 0),
        (1, imm(2.0, 2.0), "", p(1.0, 2.0), 0x0000_ffff),
        (2, imm(2.0, 2.0), "", p(1.0, 2.0), 0xffff_0000),
        (3, imm(2.0, 2.0), "", p(1.0, 2.0), TRUE),
        (4, imm(2.0, 2.0), "", p(1.0, 3.0), 0xffff_0000),
        (6, imm(2.0, 2.0), "", p(2.0, 3.0), TRUE),
        (5, imm(2.0, 2.0), "", p(2.0, 3.0), 0xffff_0000),
        (1, imm(-2.0, -2.0), "", p(1.0, 2.0), 0),
        (1, imm(2.0, 2.0), "neg_a=1", p(1.0, 2.0), TRUE),
        (1, imm(2.0, 2.0), "abs_a=1", p(-1.0, -2.0), 0x0000_ffff),
        (1, imm(2.0, 2.0), "swz_a=3", p(1.0, 2.0), 0),
        (1, imm(2.0, 2.0), "swz_a=2", p(1.0, 2.0), TRUE),
        (1, imm(2.0, 2.0), "swz_a=1", f(3.0), 0),
        (1, imm(2.0, 2.0), "bop=1", p(1.0, 2.0), TRUE),
        (1, imm(2.0, 2.0), "bop=2", p(1.0, 2.0), 0xffff_0000),
        (1, imm(2.0, 2.0), "bf=1", p(1.0, 2.0), 0x0000_3c00),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!("{}HSET2.imm rd=2 ra=2 {operand} cmp={cmp} ftz=1 ps=7 {fields}", set(&[(2, a)]));
        check(&format!("hset2_imm_{i}"), &body, Vec::new(), each(expected));
    }
}

/// hsetp2.cpp "HSETP2 Simple" (register forms): HSETP2.cond.FTZ P0, P1, R2, R3, PT sets P0 from the low halves and
/// P1 from the high ones, or with .H_AND P0 where both hold and P1 its negation; then R2 = 0x0000ffff for P0 plus
/// 0xffff0000 for P1.
#[test]
fn hsetp2_follows_the_hardware() {
    let p = pair;
    let after =
        "\nMOV32I rd=2 imm32=0 lanes=15\nIADD32I rd=2 ra=2 imm32=0xffff pg=0\nIADD32I rd=2 ra=2 imm32=0xffff0000 pg=1";
    for (i, (cmp, fields, a, b, expected)) in [
        (1, "", p(3.0, 2.0), p(3.0, 3.0), 0xffff_0000u32),
        (6, "", p(3.0, 2.0), p(3.0, 3.0), 0x0000_ffff),
        (6, "bop=2", p(3.0, 2.0), p(3.0, 3.0), 0xffff_0000),
        (6, "bop=1", p(3.0, 2.0), p(3.0, 3.0), TRUE),
        (1, "h_and=1", p(2.0, 3.0), p(3.0, 4.0), 0x0000_ffff),
        (1, "h_and=1", p(6.0, 3.0), p(3.0, 4.0), 0xffff_0000),
        (1, "h_and=1", p(4.0, 5.0), p(3.0, 4.0), 0xffff_0000),
        (1, "neg_a=1", p(3.0, 2.0), p(3.0, 3.0), TRUE),
        (1, "neg_a=1 abs_a=1", p(-3.0, -2.0), p(3.0, 3.0), TRUE),
        (1, "neg_b=1", p(3.0, 2.0), p(-3.0, -3.0), 0xffff_0000),
        (1, "neg_b=1 abs_b=1", p(3.0, 2.0), p(-3.0, -3.0), 0),
        (1, "swz_a=3", p(3.0, 2.0), p(3.0, 4.0), TRUE),
        (1, "swz_a=2", p(3.0, 2.0), p(3.0, 4.0), 0xffff_0000),
        (1, "swz_b=3", p(3.0, 2.0), p(7.0, 3.0), 0xffff_0000),
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!(
            "{}ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=0 signed=1 ps=7 ps_not=1\n\
             HSETP2.reg pd=0 pq=1 ra=2 rb=3 cmp={cmp} ftz=1 ps=7 {fields}{after}",
            set(&[(2, a), (3, b)])
        );
        check(&format!("hsetp2_{i}"), &body, Vec::new(), each(expected));
    }
}

// ===============================================================================================================
// Control flow (flow.cpp and cal.cpp: one thread there, 64 here, all on the same path).

/// flow.cpp's setup: R2 = R3 = R4 = 0.
const FLOW: &str = "MOV32I rd=2 imm32=0 lanes=15\nMOV32I rd=3 imm32=0 lanes=15\nMOV32I rd=4 imm32=0 lanes=15\n";

/// flow.cpp (all but the condition-code tests of SYNC, BRK, CONT and EXIT): predicated moves, BRA (on a predicate or
/// on the condition code of IADD RZ.CC, RZ, RZ: Z), SSY/SYNC, PBK/BRK, PCNT/CONT under predicates, nested and in
/// loops, predicated EXIT after a store; `finish:` is where the program stores R2.
#[test]
fn control_flow_follows_the_hardware() {
    const T: &str = "ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp=7 signed=1\n";
    const F: &str = "ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp=0 signed=1\n";
    const T2: &str = "ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1\n";
    const ZERO: &str = "IADD.reg rd=255 ra=255 rb=255 cc=1\n";
    let mov = |r: u32, v: u32, guard: &str| format!("MOV32I rd={r} imm32={v} lanes=15 {guard}\n");
    let (p0, not_p0) = ("pg=0", "pg=0 pg_not=1");
    let stack = |push: &str, pop: &str, guard: &str| {
        format!("SSY offset={{finish}}\n{}{pop} {guard}\n{}{pop}\nfinish:\n", mov(2, 4, ""), mov(2, 7, ""))
            .replace("SSY", push)
    };
    let vectors: Vec<(String, u32)> = vec![
        (format!("{T}{}", mov(2, 3, p0)), 3),
        (format!("{T}{}", mov(2, 3, not_p0)), 0),
        (format!("{T}{}{}", mov(2, 3, not_p0), mov(2, 5, p0)), 5),
        (
            format!(
                "{T}{}{}{}{}{}{}{}",
                mov(2, 3, not_p0),
                mov(2, 5, p0),
                mov(2, 6, p0),
                mov(2, 7, p0),
                mov(2, 8, p0),
                mov(2, 9, p0),
                mov(2, 2, not_p0)
            ),
            9,
        ),
        (format!("{F}{}{}{}{}", mov(2, 4, not_p0), mov(2, 3, not_p0), mov(2, 5, p0), mov(3, 5, not_p0)), 3),
        (format!("{}BRA offset={{finish}}\n{}finish:\n", mov(2, 2, ""), mov(2, 3, "")), 2),
        (format!("{F}{}BRA offset={{finish}} {not_p0}\n{}finish:\n", mov(2, 2, ""), mov(2, 3, "")), 2),
        (format!("{F}{}BRA offset={{finish}} {p0}\n{}finish:\n", mov(2, 2, ""), mov(2, 3, "")), 3),
        (format!("{ZERO}{}BRA offset={{finish}} cc_test=2\n{}finish:\n", mov(2, 2, ""), mov(2, 3, "")), 2),
        (format!("{ZERO}{}BRA offset={{finish}} cc_test=5\n{}finish:\n", mov(2, 2, ""), mov(2, 3, "")), 3),
        (format!("{T}{}", stack("SSY", "SYNC", p0)), 4),
        (format!("{T}{}", stack("SSY", "SYNC", not_p0)), 7),
        (format!("{T}{}", stack("PBK", "BRK", p0)), 4),
        (format!("{T}{}", stack("PBK", "BRK", not_p0)), 7),
        (format!("{T}{}", stack("PCNT", "CONT", p0)), 4),
        (format!("{T}{}", stack("PCNT", "CONT", not_p0)), 7),
        // Nested break.
        (
            format!(
                "{T}PBK offset={{finish}}\n{}SSY offset={{merge}}\nBRA offset={{else}} pg=0\n{}SYNC\nelse:\n{}BRK\n\
                 merge:\n{}BRK\nfinish:\n",
                mov(2, 1, ""),
                mov(2, 3, ""),
                mov(2, 4, ""),
                mov(2, 2, "")
            ),
            4,
        ),
        (
            format!(
                "{T2}PBK offset={{finish}}\n{}SSY offset={{merge}}\nBRA offset={{else}} pg=0\n{}SYNC\nelse:\n{}\
                 BRK pg=1\nSYNC\nmerge:\n{}BRK\nfinish:\n",
                mov(2, 1, ""),
                mov(2, 3, ""),
                mov(2, 4, ""),
                mov(2, 2, "")
            ),
            2,
        ),
        (
            format!(
                "{T2}PBK offset={{finish}}\n{}SSY offset={{merge}}\nBRA offset={{else}} pg=0\n{}SYNC\nelse:\n{}\
                 BRK pg=1 pg_not=1\nSYNC\nmerge:\n{}BRK\nfinish:\n",
                mov(2, 1, ""),
                mov(2, 3, ""),
                mov(2, 4, ""),
                mov(2, 2, "")
            ),
            4,
        ),
        // Simple loops.
        (
            "loop:\nIADD.imm rd=2 ra=2 imm20=5\nIADD.imm rd=3 ra=3 imm20=1\n\
             ISETP.imm pd=0 pq=7 ra=3 imm20=10 cmp=1 signed=1\nBRA offset={loop} pg=0\n"
                .to_string(),
            50,
        ),
        (
            "loop:\nPCNT offset={loop}\nIADD.imm rd=2 ra=2 imm20=5\nIADD.imm rd=3 ra=3 imm20=1\n\
             ISETP.imm pd=0 pq=7 ra=3 imm20=10 cmp=1 signed=1\nCONT pg=0\n"
                .to_string(),
            50,
        ),
        (
            "PBK offset={finish}\nloop:\nIADD.imm rd=3 ra=3 imm20=1\nISETP.imm pd=0 pq=7 ra=3 imm20=10 cmp=4 signed=1\n\
             BRK pg=0\nIADD.imm rd=2 ra=2 imm20=5\nBRA offset={loop}\nfinish:\n"
                .to_string(),
            50,
        ),
        // Break inside a conditional, in one loop, in two, and with PBK in the outer loop.
        (
            "PBK offset={finish}\nloop:\nIADD.imm rd=3 ra=3 imm20=1\nSSY offset={merge}\n\
             ISETP.imm pd=0 pq=7 ra=3 imm20=20 cmp=1 signed=1\nSYNC pg=0\nIADD.imm rd=2 ra=2 imm20=10\nBRK\nmerge:\n\
             IADD.imm rd=2 ra=2 imm20=5\nBRA offset={loop}\nfinish:\n"
                .to_string(),
            105,
        ),
        (
            "upper_loop:\nPBK offset={almost_finish}\nloop:\nIADD.imm rd=3 ra=3 imm20=1\nSSY offset={merge}\n\
             ISETP.imm pd=0 pq=7 ra=3 imm20=20 cmp=1 signed=1\nSYNC pg=0\nIADD.imm rd=2 ra=2 imm20=10\nBRK\nmerge:\n\
             IADD.imm rd=2 ra=2 imm20=5\nBRA offset={loop}\nalmost_finish:\nIADD.imm rd=4 ra=4 imm20=1\n\
             ISETP.imm pd=0 pq=7 ra=4 imm20=3 cmp=1 signed=1\nBRA offset={upper_loop} pg=0\nfinish:\n"
                .to_string(),
            125,
        ),
        (
            "PBK offset={almost_finish}\nloop:\nIADD.imm rd=3 ra=3 imm20=1\nSSY offset={merge}\n\
             ISETP.imm pd=0 pq=7 ra=3 imm20=20 cmp=1 signed=1\nSYNC pg=0\nIADD.imm rd=2 ra=2 imm20=10\nBRK\nmerge:\n\
             IADD.imm rd=2 ra=2 imm20=5\nBRA offset={loop}\nalmost_finish:\nIADD.imm rd=4 ra=4 imm20=1\n\
             ISETP.imm pd=0 pq=7 ra=4 imm20=3 cmp=1 signed=1\nPBK offset={almost_finish}\nBRA offset={loop} pg=0\n\
             finish:\n"
                .to_string(),
            125,
        ),
        // A loop inside an SSY, entered past a SYNC not taken, and a branch into the loop's middle.
        (
            format!(
                "{T2}SSY offset={{finish}}\nSYNC pg=0 pg_not=1\nloop:\nIADD.imm rd=2 ra=2 imm20=5\nIADD.imm rd=3 ra=3 imm20=1\n\
                 ISETP.imm pd=1 pq=7 ra=3 imm20=10 cmp=1 signed=1\nBRA offset={{loop}} pg=1\nSYNC\nfinish:\n"
            ),
            50,
        ),
        (
            format!(
                "{T2}SSY offset={{finish}}\nBRA offset={{inside}} pg=1 pg_not=1\nSYNC pg=0 pg_not=1\nloop:\n\
                 IADD.imm rd=2 ra=2 imm20=5\ninside:\nIADD.imm rd=3 ra=3 imm20=1\n\
                 ISETP.imm pd=1 pq=7 ra=3 imm20=10 cmp=1 signed=1\nBRA offset={{loop}} pg=1\nSYNC\nfinish:\n"
            ),
            45,
        ),
        // "Flow early exit" with a predicate: R2 = 4 stored, then R2 = 7 and a predicated EXIT.
        (format!("{}{STORE}{T}{}EXIT {p0}\n", mov(2, 4, ""), mov(2, 7, "")), 4),
        (format!("{}{STORE}{T}{}EXIT {not_p0}\n", mov(2, 4, ""), mov(2, 7, "")), 7),
    ];
    for (i, (body, expected)) in vectors.into_iter().enumerate() {
        check(&format!("flow_{i}"), &format!("{FLOW}{body}"), Vec::new(), each(expected));
    }
}

/// flow.cpp "Flow SYNC", "Flow BRK", "Flow CONT" and "Flow early exit" (their condition-code forms): after IADD
/// RZ.CC, RZ, RZ (Z set), SYNC/BRK/CONT CC.EQ pop their entry and CC.NE do not; EXIT CC.EQ ends the thread (R2 = 4
/// stored before it) and CC.NE does not (R2 = 7 stored at the end), also under @P0.
#[test]
fn stack_pops_and_exits_test_the_condition_code() {
    const ZERO: &str = "IADD.reg rd=255 ra=255 rb=255 cc=1\n";
    let mut vectors = Vec::new();
    for (push, pop) in [("SSY", "SYNC"), ("PBK", "BRK"), ("PCNT", "CONT")] {
        for (test, expected) in [(2, 4), (5, 7)] {
            let body = format!(
                "{ZERO}{push} offset={{finish}}\nMOV32I rd=2 imm32=4 lanes=15\n{pop} cc_test={test}\n\
                 MOV32I rd=2 imm32=7 lanes=15\n{pop}\nfinish:\n"
            );
            vectors.push((body, expected));
        }
    }
    for (guard, test, expected) in [("", 5, 7), ("", 2, 4), ("pg=0", 5, 7), ("pg=0", 2, 4)] {
        let body = format!(
            "MOV32I rd=2 imm32=4 lanes=15\n{STORE}ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp=7 signed=1\n{ZERO}\
             MOV32I rd=2 imm32=7 lanes=15\nEXIT cc_test={test} {guard}\n"
        );
        vectors.push((body, expected));
    }
    for (i, (body, expected)) in vectors.into_iter().enumerate() {
        check(&format!("flow_cc_{i}"), &format!("{FLOW}{body}"), Vec::new(), each(expected));
    }
}

/// cal.cpp: CAL and RET, with the store in the caller or in the callee, an EXIT in the callee, a call inside an
/// SSY and inside a loop, loops inside the callee (to its own label), nested calls, repeated calls, a predicated
/// RET (early or not). The programs end as the hardware's do; what `straight_line` appends after them is not reached.
#[test]
fn calls_follow_the_hardware() {
    let foo_loop = "MOV32I rd=3 imm32=4 lanes=15\nMOV32I rd=2 imm32=0 lanes=15\nloop:\nIADD.imm rd=2 ra=2 imm20=13\n\
                    IADD.imm rd=3 ra=3 imm20=0xfffff\nISETP.reg pd=0 pq=7 ra=3 rb=255 cmp=5 signed=1\n";
    let early = |stop: u32| {
        format!(
            "CAL offset={{foo}}\n{STORE}EXIT\nfoo:\nMOV32I rd=3 imm32=14 lanes=15\nMOV32I rd=2 imm32=0 lanes=15\nloop:\n\
             ISETP.imm pd=0 pq=7 ra=3 imm20={stop} cmp=2 signed=1\nRET pg=0\nIADD.imm rd=2 ra=2 imm20=13\n\
             IADD.imm rd=3 ra=3 imm20=0xfffff\nISETP.reg pd=0 pq=7 ra=3 rb=255 cmp=5 signed=1\nBRA offset={{loop}} pg=0\nRET\n"
        )
    };
    for (i, (body, expected)) in [
        (format!("MOV32I rd=2 imm32=4 lanes=15\nCAL offset={{foo}}\n{STORE}EXIT\nfoo:\nMOV32I rd=2 imm32=7 lanes=15\nRET\n"), 7),
        (format!("MOV32I rd=2 imm32=4 lanes=15\nCAL offset={{foo}}\nEXIT\nfoo:\nMOV32I rd=2 imm32=78 lanes=15\n{STORE}RET\n"), 78),
        (
            format!(
                "MOV32I rd=2 imm32=4 lanes=15\nCAL offset={{foo}}\nMOV32I rd=2 imm32=3 lanes=15\n{STORE}EXIT\nfoo:\n\
                 MOV32I rd=2 imm32=79 lanes=15\n{STORE}EXIT\n"
            ),
            79,
        ),
        (
            format!(
                "MOV32I rd=2 imm32=4 lanes=15\nISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1\n\
                 MOV32I rd=2 imm32=3 lanes=15\nSSY offset={{merge}}\nSYNC pg=1\nCAL offset={{foo}}\nSYNC\nmerge:\n{STORE}EXIT\n\
                 foo:\nMOV32I rd=2 imm32=13 lanes=15\nRET\n"
            ),
            13,
        ),
        (
            format!(
                "MOV32I rd=3 imm32=4 lanes=15\nMOV32I rd=2 imm32=0 lanes=15\nloop:\nCAL offset={{foo}}\nBRA offset={{loop}} pg=0\n\
                 {STORE}EXIT\nfoo:\nIADD.imm rd=2 ra=2 imm20=13\nIADD.imm rd=3 ra=3 imm20=0xfffff\n\
                 ISETP.reg pd=0 pq=7 ra=3 rb=255 cmp=5 signed=1\nRET\n"
            ),
            52,
        ),
        (format!("CAL offset={{foo}}\n{STORE}EXIT\nfoo:\n{foo_loop}BRA offset={{loop}} pg=0\nRET\n"), 52),
        (
            format!(
                "MOV32I rd=3 imm32=4 lanes=15\nMOV32I rd=2 imm32=0 lanes=15\nCAL offset={{foo}}\n{STORE}EXIT\nfoo:\n\
                 IADD.imm rd=2 ra=2 imm20=13\nIADD.imm rd=3 ra=3 imm20=0xfffff\n\
                 ISETP.reg pd=0 pq=7 ra=3 rb=255 cmp=5 signed=1\nBRA offset={{foo}} pg=0\nRET\n"
            ),
            52,
        ),
        (
            format!(
                "MOV32I rd=2 imm32=4 lanes=15\nMOV32I rd=3 imm32=6 lanes=15\nCAL offset={{add_duplicate}}\n{STORE}EXIT\n\
                 add_duplicate:\nCAL offset={{add}}\nCAL offset={{duplicate}}\nRET\nadd:\nIADD.reg rd=2 ra=2 rb=3\nRET\n\
                 duplicate:\nIADD.reg rd=2 ra=2 rb=2\nRET\n"
            ),
            20,
        ),
        (
            format!(
                "MOV32I rd=2 imm32=4 lanes=15\nCAL offset={{duplicate}}\nCAL offset={{duplicate}}\nCAL offset={{duplicate}}\n\
                 CAL offset={{duplicate}}\n{STORE}EXIT\nduplicate:\nIADD.reg rd=2 ra=2 rb=2\nRET\n"
            ),
            64,
        ),
        (format!("CAL offset={{foo}}\n{STORE}EXIT\nfoo:\n{foo_loop}RET pg=0 pg_not=1\nBRA offset={{loop}}\n"), 52),
        (early(12), 26),
        (early(17), 182),
    ]
    .into_iter()
    .enumerate()
    {
        check(&format!("cal_{i}"), &body, Vec::new(), each(expected));
    }
}
