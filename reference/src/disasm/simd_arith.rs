//! Disassembly of Advanced SIMD arithmetic, integer and floating point, vector and scalar, in LLVM's syntax and with
//! its aliases (MVN for NOT; but SSHLL, USHLL #0 rather than the Arm ARM's SXTL, UXTL, as LLVM 14 prints them).
//!
//! The tables follow the encoding index's class tables, and the sizes each instruction admits are its page's
//! decode section, as the interpreter applies them (`tests/shared_decode.rs` checks that the two agree on every
//! word the disassembler spells out, which `tests/disasm_llvm.rs` compares with LLVM).

use super::simd_fp::{element, scalar, vector};
use super::{Printer, imm, inst};
use crate::decode::Inst;
use crate::interp::pseudocode::highest_set_bit;

/// The sizes (and Q) an integer instruction admits, from its page's decode section.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sizes {
    Any,
    /// size != 11.
    NoD,
    /// size:Q != 110: no 1D arrangement.
    Not1d,
    /// size 01 or 10.
    HOrS,
    /// size 00.
    B,
    /// size 11 (the scalar forms of the non-saturating instructions).
    D,
}

impl Sizes {
    fn admit(self, size: u32, q: u32) -> bool {
        match self {
            Sizes::Any => true,
            Sizes::NoD => size != 0b11,
            Sizes::Not1d => !(size == 0b11 && q == 0),
            Sizes::HOrS => size == 0b01 || size == 0b10,
            Sizes::B => size == 0b00,
            Sizes::D => size == 0b11,
        }
    }
}

use Sizes::{Any, B, D, HOrS, NoD, Not1d};

/// The integer instructions of "three same" by opcode, U = 0 then U = 1 (an empty name is unallocated; opcode
/// 00011, the bitwise instructions, is `simd_fp.rs`'s).
const THREE_SAME: [[(&str, Sizes); 2]; 24] = [
    [("shadd", NoD), ("uhadd", NoD)],
    [("sqadd", Not1d), ("uqadd", Not1d)],
    [("srhadd", NoD), ("urhadd", NoD)],
    [("", Any), ("", Any)],
    [("shsub", NoD), ("uhsub", NoD)],
    [("sqsub", Not1d), ("uqsub", Not1d)],
    [("cmgt", Not1d), ("cmhi", Not1d)],
    [("cmge", Not1d), ("cmhs", Not1d)],
    [("sshl", Not1d), ("ushl", Not1d)],
    [("sqshl", Not1d), ("uqshl", Not1d)],
    [("srshl", Not1d), ("urshl", Not1d)],
    [("sqrshl", Not1d), ("uqrshl", Not1d)],
    [("smax", NoD), ("umax", NoD)],
    [("smin", NoD), ("umin", NoD)],
    [("sabd", NoD), ("uabd", NoD)],
    [("saba", NoD), ("uaba", NoD)],
    [("add", Not1d), ("sub", Not1d)],
    [("cmtst", Not1d), ("cmeq", Not1d)],
    [("mla", NoD), ("mls", NoD)],
    [("mul", NoD), ("pmul", B)],
    [("smaxp", NoD), ("umaxp", NoD)],
    [("sminp", NoD), ("uminp", NoD)],
    [("sqdmulh", HOrS), ("sqrdmulh", HOrS)],
    [("addp", Not1d), ("", Any)],
];

/// The sizes the scalar form of a "three same" integer instruction admits; `None` where it has none.
fn scalar_three_same_sizes(opcode: u32) -> Option<Sizes> {
    match opcode {
        // SQADD, SQSUB, SQSHL, SQRSHL and the unsigned forms.
        0b00001 | 0b00101 | 0b01001 | 0b01011 => Some(Any),
        // CMGT, CMGE, SSHL, SRSHL, ADD, CMTST and the U = 1 forms.
        0b00110 | 0b00111 | 0b01000 | 0b01010 | 0b10000 | 0b10001 => Some(D),
        0b10110 => Some(HOrS),
        _ => None,
    }
}

/// The floating-point instructions of "three same" and "three same (FP16)", by U, a (size<1>) and the low three
/// opcode bits (empty: unallocated).
const FP_THREE_SAME: [[[&str; 8]; 2]; 2] = [
    [
        ["fmaxnm", "fmla", "fadd", "fmulx", "fcmeq", "", "fmax", "frecps"],
        ["fminnm", "fmls", "fsub", "", "", "", "fmin", "frsqrts"],
    ],
    [
        ["fmaxnmp", "", "faddp", "fmul", "fcmge", "facge", "fmaxp", "fdiv"],
        ["fminnmp", "", "fabd", "", "fcmgt", "facgt", "fminp", ""],
    ],
];

/// The floating-point "three same" instructions that have scalar forms.
const FP_SCALAR_THREE_SAME: [&str; 9] =
    ["fmulx", "fcmeq", "frecps", "frsqrts", "fabd", "fcmge", "fcmgt", "facge", "facgt"];

fn fp_three_same_mnemonic(u: u32, a: u32, opcode: u32) -> Option<&'static str> {
    let mnemonic = FP_THREE_SAME[(u & 1) as usize][(a & 1) as usize][(opcode & 7) as usize];
    (!mnemonic.is_empty()).then_some(mnemonic)
}

/// The floating-point instructions of "two-register miscellaneous", its FP16 form and their scalar forms.
fn fp_two_reg_misc_mnemonic(u: u32, a: u32, opcode: u32) -> Option<&'static str> {
    Some(match (u, a, opcode) {
        (0, 1, 0b01100) => "fcmgt",
        (0, 1, 0b01101) => "fcmeq",
        (0, 1, 0b01110) => "fcmlt",
        (0, 1, 0b01111) => "fabs",
        (1, 1, 0b01100) => "fcmge",
        (1, 1, 0b01101) => "fcmle",
        (1, 1, 0b01111) => "fneg",
        (0, 0, 0b11000) => "frintn",
        (0, 1, 0b11000) => "frintp",
        (0, 0, 0b11001) => "frintm",
        (0, 1, 0b11001) => "frintz",
        (1, 0, 0b11000) => "frinta",
        (1, 0, 0b11001) => "frintx",
        (1, 1, 0b11001) => "frinti",
        (0, 0, 0b11010) => "fcvtns",
        (1, 0, 0b11010) => "fcvtnu",
        (0, 1, 0b11010) => "fcvtps",
        (1, 1, 0b11010) => "fcvtpu",
        (0, 0, 0b11011) => "fcvtms",
        (1, 0, 0b11011) => "fcvtmu",
        (0, 1, 0b11011) => "fcvtzs",
        (1, 1, 0b11011) => "fcvtzu",
        (0, 0, 0b11100) => "fcvtas",
        (1, 0, 0b11100) => "fcvtau",
        (0, 0, 0b11101) => "scvtf",
        (1, 0, 0b11101) => "ucvtf",
        (0, 1, 0b11101) => "frecpe",
        (1, 1, 0b11101) => "frsqrte",
        (0, 1, 0b11111) => "frecpx",
        (1, 1, 0b11111) => "fsqrt",
        _ => return None,
    })
}

/// Whether a floating-point two-register instruction compares with zero (and prints `#0.0`).
fn compares_with_zero(mnemonic: &str) -> bool {
    matches!(mnemonic, "fcmgt" | "fcmeq" | "fcmlt" | "fcmge" | "fcmle")
}

/// A two-register floating-point instruction: the compares with zero get their `#0.0`.
fn fp_two_reg(mnemonic: &str, d: String, n: String) -> String {
    if compares_with_zero(mnemonic) { inst(mnemonic, &[d, n, "#0.0".into()]) } else { inst(mnemonic, &[d, n]) }
}

/// The mnemonic with LLVM's `2` for the forms that work on the upper half (Q = 1).
fn upper(mnemonic: &str, q: u32) -> String {
    if q == 1 { format!("{mnemonic}2") } else { mnemonic.to_string() }
}

/// The arrangement of a single/double-precision vector: `sz` = size<0>.
fn fp_vector(n: u32, sz: u32, q: u32) -> String {
    vector(n, 2 + (sz & 1), q)
}

/// The shift-by-immediate instructions by U and opcode: same-size shifts, narrowing shifts (`Narrow`), lengthening
/// shifts (`Long`), fixed-point conversions (`Fixed`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ShiftKind {
    Right,
    Left,
    Narrow,
    Long,
    Fixed,
}

fn shift_mnemonic(u: u32, opcode: u32) -> Option<(&'static str, ShiftKind)> {
    use ShiftKind::*;
    let pick = |signed: &'static str, unsigned: &'static str| if u == 0 { signed } else { unsigned };
    Some(match (u, opcode) {
        (_, 0b00000) => (pick("sshr", "ushr"), Right),
        (_, 0b00010) => (pick("ssra", "usra"), Right),
        (_, 0b00100) => (pick("srshr", "urshr"), Right),
        (_, 0b00110) => (pick("srsra", "ursra"), Right),
        (1, 0b01000) => ("sri", Right),
        (0, 0b01010) => ("shl", Left),
        (1, 0b01010) => ("sli", Left),
        (1, 0b01100) => ("sqshlu", Left),
        (_, 0b01110) => (pick("sqshl", "uqshl"), Left),
        (_, 0b10000) => (pick("shrn", "sqshrun"), Narrow),
        (_, 0b10001) => (pick("rshrn", "sqrshrun"), Narrow),
        (_, 0b10010) => (pick("sqshrn", "uqshrn"), Narrow),
        (_, 0b10011) => (pick("sqrshrn", "uqrshrn"), Narrow),
        (_, 0b10100) => (pick("sshll", "ushll"), Long),
        (_, 0b11100) => (pick("scvtf", "ucvtf"), Fixed),
        (_, 0b11111) => (pick("fcvtzs", "fcvtzu"), Fixed),
        _ => return None,
    })
}

/// The element index and register of a by-element instruction (`indexed_element` of the interpreter).
fn indexed_element(size: u32, h: u32, l: u32, m: u32, rm: u32) -> (u32, u32) {
    match size {
        0b00 | 0b01 => (h << 2 | l << 1 | m, rm),
        0b10 => (h << 1 | l, m << 4 | rm),
        _ => (h, m << 4 | rm),
    }
}

/// The log2 element size in bytes of a by-element floating-point instruction's `size` (00 is half precision),
/// `None` where it admits none: size 01, and size 11 with L = 1 (or Q = 0 for a vector).
fn fp_by_element_size(size: u32, l: u32, q: Option<u32>) -> Option<u32> {
    match size {
        0b00 => Some(1),
        0b10 => Some(2),
        0b11 if l == 0 && q != Some(0) => Some(3),
        _ => None,
    }
}

impl Printer {
    /// Text for an instruction of this file's classes that is spelled out: `None` for every other instruction (the
    /// next printer in `disassemble` tries it), `Some(None)` for a combination the architecture leaves unallocated.
    pub(super) fn print_simd_arith(&self, _word: u32, decoded: Inst) -> Option<Option<String>> {
        use Inst::*;
        Some(match decoded {
            // The bitwise instructions are `simd_fp.rs`'s.
            SimdThreeSame { opcode: 0b00011, .. } => return None,
            SimdThreeSame { q, u, size, rm, opcode, rn, rd } => three_same(q, u, size, rm, opcode, rn, rd),
            SimdThreeSameFp16 { q, u, a, rm, opcode, rn, rd } => fp_three_same_mnemonic(u, a, opcode)
                .map(|mnemonic| inst(mnemonic, &[vector(rd, 1, q), vector(rn, 1, q), vector(rm, 1, q)])),
            SimdThreeRegExtension { q, u, size, rm, opcode, rn, rd } => {
                three_reg_extension(q, u, size, rm, opcode, rn, rd)
            }
            SimdThreeDifferent { q, u, size, rm, opcode, rn, rd } => three_different(q, u, size, rm, opcode, rn, rd),
            SimdTwoRegMisc { q, u, size, opcode, rn, rd } => two_reg_misc(q, u, size, opcode, rn, rd),
            SimdTwoRegMiscFp16 { q, u, a, opcode, rn, rd } => fp_two_reg_misc_mnemonic(u, a, opcode)
                .filter(|&mnemonic| mnemonic != "frecpx")
                .map(|mnemonic| fp_two_reg(mnemonic, vector(rd, 1, q), vector(rn, 1, q))),
            SimdAcrossLanes { q, u, size, opcode, rn, rd } => across_lanes(q, u, size, opcode, rn, rd),
            SimdShiftImm8 { q, u, immb, opcode, rn, rd } => shift_by_immediate(q, u, 0b0001, immb, opcode, rn, rd),
            SimdShiftImm16 { q, u, immh, immb, opcode, rn, rd } => {
                shift_by_immediate(q, u, 0b0010 | immh, immb, opcode, rn, rd)
            }
            SimdShiftImm32 { q, u, immh, immb, opcode, rn, rd } => {
                shift_by_immediate(q, u, 0b0100 | immh, immb, opcode, rn, rd)
            }
            SimdShiftImm64 { q, u, immh, immb, opcode, rn, rd } => {
                shift_by_immediate(q, u, 0b1000 | immh, immb, opcode, rn, rd)
            }
            SimdIndexed { q, u, size, l, m, rm, opcode, h, rn, rd } => {
                vector_indexed(q, u, size, l, m, rm, opcode, h, rn, rd)
            }

            SimdScalarThreeSame { u, size, rm, opcode, rn, rd } => scalar_three_same(u, size, rm, opcode, rn, rd),
            SimdScalarThreeSameFp16 { u, a, rm, opcode, rn, rd } => fp_three_same_mnemonic(u, a, opcode)
                .filter(|mnemonic| FP_SCALAR_THREE_SAME.contains(mnemonic))
                .map(|mnemonic| inst(mnemonic, &[scalar(rd, 1), scalar(rn, 1), scalar(rm, 1)])),
            SimdScalarThreeSameExtra { u, size, rm, opcode, rn, rd } => {
                let mnemonic = ["sqrdmlah", "sqrdmlsh"].get(opcode as usize).filter(|_| u == 1 && HOrS.admit(size, 1));
                mnemonic.map(|mnemonic| inst(mnemonic, &[scalar(rd, size), scalar(rn, size), scalar(rm, size)]))
            }
            SimdScalarTwoRegMisc { u, size, opcode, rn, rd } => scalar_two_reg_misc(u, size, opcode, rn, rd),
            SimdScalarTwoRegMiscFp16 { u, a, opcode, rn, rd } => fp_two_reg_misc_mnemonic(u, a, opcode)
                .filter(|&mnemonic| has_scalar_form(mnemonic))
                .map(|mnemonic| fp_two_reg(mnemonic, scalar(rd, 1), scalar(rn, 1))),
            SimdScalarPairwise { u, size, opcode, rn, rd } => scalar_pairwise(u, size, opcode, rn, rd),
            SimdScalarThreeDifferent { u, size, rm, opcode, rn, rd } => {
                let mnemonic = match opcode {
                    0b1001 => "sqdmlal",
                    0b1011 => "sqdmlsl",
                    0b1101 => "sqdmull",
                    _ => return Some(None),
                };
                (u == 0 && HOrS.admit(size, 1))
                    .then(|| inst(mnemonic, &[scalar(rd, size + 1), scalar(rn, size), scalar(rm, size)]))
            }
            SimdScalarShiftImm { u, immh, immb, opcode, rn, rd } => {
                scalar_shift_by_immediate(u, immh, immb, opcode, rn, rd)
            }
            SimdScalarIndexed { u, size, l, m, rm, opcode, h, rn, rd } => {
                scalar_indexed(u, size, l, m, rm, opcode, h, rn, rd)
            }
            _ => return None,
        })
    }
}

/// Whether the scalar classes have a floating-point two-register instruction (FABS, FNEG, FRINT* and FSQRT
/// have scalar floating-point forms instead).
fn has_scalar_form(mnemonic: &str) -> bool {
    !(matches!(mnemonic, "fabs" | "fneg" | "fsqrt") || mnemonic.starts_with("frint"))
}

fn three_same(q: u32, u: u32, size: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    if opcode >> 3 == 0b11 {
        let mnemonic = fp_three_same_mnemonic(u, size >> 1, opcode).filter(|_| !(size & 1 == 1 && q == 0))?;
        let sz = size & 1;
        return Some(inst(mnemonic, &[fp_vector(rd, sz, q), fp_vector(rn, sz, q), fp_vector(rm, sz, q)]));
    }
    let (mnemonic, sizes) = THREE_SAME[opcode as usize][u as usize & 1];
    (!mnemonic.is_empty() && sizes.admit(size, q))
        .then(|| inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), vector(rm, size, q)]))
}

fn scalar_three_same(u: u32, size: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    if opcode >> 3 == 0b11 {
        let mnemonic = fp_three_same_mnemonic(u, size >> 1, opcode).filter(|m| FP_SCALAR_THREE_SAME.contains(m))?;
        let scale = 2 + (size & 1);
        return Some(inst(mnemonic, &[scalar(rd, scale), scalar(rn, scale), scalar(rm, scale)]));
    }
    scalar_three_same_sizes(opcode).filter(|sizes| sizes.admit(size, 1))?;
    let (mnemonic, _) = THREE_SAME[opcode as usize][u as usize & 1];
    Some(inst(mnemonic, &[scalar(rd, size), scalar(rn, size), scalar(rm, size)]))
}

fn three_reg_extension(q: u32, u: u32, size: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    match (u, opcode) {
        (_, 0b0010) if size == 0b10 => {
            let mnemonic = if u == 0 { "sdot" } else { "udot" };
            Some(inst(mnemonic, &[vector(rd, 2, q), vector(rn, 0, q), vector(rm, 0, q)]))
        }
        (1, 0b0000 | 0b0001) if HOrS.admit(size, q) => {
            let mnemonic = if opcode == 0 { "sqrdmlah" } else { "sqrdmlsh" };
            Some(inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), vector(rm, size, q)]))
        }
        _ => None,
    }
}

fn three_different(q: u32, u: u32, size: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    // Operands: long (wide, narrow, narrow), wide (wide, wide, narrow), narrow (narrow, wide, wide).
    let wide = |n: u32| vector(n, size + 1, 1);
    let narrow = |n: u32| vector(n, size, q);
    let pick = |signed: &'static str, unsigned: &'static str| if u == 0 { signed } else { unsigned };
    let (mnemonic, operands) = match (u, opcode) {
        (0, 0b1110) if size == 0b11 => {
            return Some(inst(&upper("pmull", q), &[format!("v{rd}.1q"), vector(rn, 3, q), vector(rm, 3, q)]));
        }
        (0, 0b1110) if size == 0b00 => ("pmull", [wide(rd), narrow(rn), narrow(rm)]),
        _ if size == 0b11 => return None,
        (_, 0b0000) => (pick("saddl", "uaddl"), [wide(rd), narrow(rn), narrow(rm)]),
        (_, 0b0001) => (pick("saddw", "uaddw"), [wide(rd), wide(rn), narrow(rm)]),
        (_, 0b0010) => (pick("ssubl", "usubl"), [wide(rd), narrow(rn), narrow(rm)]),
        (_, 0b0011) => (pick("ssubw", "usubw"), [wide(rd), wide(rn), narrow(rm)]),
        (_, 0b0100) => (pick("addhn", "raddhn"), [narrow(rd), wide(rn), wide(rm)]),
        (_, 0b0101) => (pick("sabal", "uabal"), [wide(rd), narrow(rn), narrow(rm)]),
        (_, 0b0110) => (pick("subhn", "rsubhn"), [narrow(rd), wide(rn), wide(rm)]),
        (_, 0b0111) => (pick("sabdl", "uabdl"), [wide(rd), narrow(rn), narrow(rm)]),
        (_, 0b1000) => (pick("smlal", "umlal"), [wide(rd), narrow(rn), narrow(rm)]),
        (_, 0b1010) => (pick("smlsl", "umlsl"), [wide(rd), narrow(rn), narrow(rm)]),
        (_, 0b1100) => (pick("smull", "umull"), [wide(rd), narrow(rn), narrow(rm)]),
        (0, 0b1001 | 0b1011 | 0b1101) if size != 0b00 => {
            let mnemonic = ["sqdmlal", "sqdmlsl", "sqdmull"][(opcode >> 1 & 3) as usize];
            (mnemonic, [wide(rd), narrow(rn), narrow(rm)])
        }
        _ => return None,
    };
    Some(inst(&upper(mnemonic, q), &operands))
}

fn two_reg_misc(q: u32, u: u32, size: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    let same = |mnemonic: &str, sizes: Sizes| {
        sizes.admit(size, q).then(|| inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q)]))
    };
    let with_zero = |mnemonic: &str| {
        Not1d.admit(size, q).then(|| inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), "#0".into()]))
    };
    // XTN and friends: narrow destination (the `2` forms write the upper half), wide source.
    let narrowing = |mnemonic: &str| {
        NoD.admit(size, q).then(|| inst(&upper(mnemonic, q), &[vector(rd, size, q), vector(rn, size + 1, 1)]))
    };
    let pick = |signed: &'static str, unsigned: &'static str| if u == 0 { signed } else { unsigned };
    match (u, opcode) {
        // REV64, REV16, REV32: UInt(U:o0) + UInt(size) < 3.
        (0, 0b00000) => same("rev64", NoD),
        (0, 0b00001) => same("rev16", B),
        (1, 0b00000) => (size < 2).then(|| inst("rev32", &[vector(rd, size, q), vector(rn, size, q)])),
        (_, 0b00010 | 0b00110) => {
            let mnemonic = if opcode == 0b00010 { pick("saddlp", "uaddlp") } else { pick("sadalp", "uadalp") };
            NoD.admit(size, q).then(|| inst(mnemonic, &[vector(rd, size + 1, q), vector(rn, size, q)]))
        }
        (_, 0b00011) => same(pick("suqadd", "usqadd"), Not1d),
        (_, 0b00100) => same(pick("cls", "clz"), NoD),
        (0, 0b00101) => same("cnt", B),
        (1, 0b00101) if size == 0b00 => same("mvn", B),
        (1, 0b00101) => (size == 0b01).then(|| inst("rbit", &[vector(rd, 0, q), vector(rn, 0, q)])),
        (_, 0b00111) => same(pick("sqabs", "sqneg"), Not1d),
        (_, 0b01000) => with_zero(pick("cmgt", "cmge")),
        (_, 0b01001) => with_zero(pick("cmeq", "cmle")),
        (0, 0b01010) => with_zero("cmlt"),
        (_, 0b01011) => same(pick("abs", "neg"), Not1d),
        (0, 0b10010) => narrowing("xtn"),
        (1, 0b10010) => narrowing("sqxtun"),
        (_, 0b10100) => narrowing(pick("sqxtn", "uqxtn")),
        (1, 0b10011) => NoD.admit(size, q).then(|| {
            let shift = imm(8 << size);
            inst(&upper("shll", q), &[vector(rd, size + 1, 1), vector(rn, size, q), shift])
        }),
        // FCVTN (32 to 16, 64 to 32 bits), FCVTXN (64 to 32), FCVTL.
        (0, 0b10110) if size >> 1 == 0 => {
            Some(inst(&upper("fcvtn", q), &[vector(rd, 1 + size, q), vector(rn, 2 + size, 1)]))
        }
        (1, 0b10110) if size == 0b01 => Some(inst(&upper("fcvtxn", q), &[vector(rd, 2, q), vector(rn, 3, 1)])),
        (0, 0b10111) if size >> 1 == 0 => {
            Some(inst(&upper("fcvtl", q), &[vector(rd, 2 + size, 1), vector(rn, 1 + size, q)]))
        }
        (_, 0b11100) if size >> 1 == 1 => {
            (size == 0b10).then(|| inst(pick("urecpe", "ursqrte"), &[vector(rd, 2, q), vector(rn, 2, q)]))
        }
        _ => {
            let mnemonic = fp_two_reg_misc_mnemonic(u, size >> 1, opcode).filter(|&m| m != "frecpx")?;
            let sz = size & 1;
            (!(sz == 1 && q == 0)).then(|| fp_two_reg(mnemonic, fp_vector(rd, sz, q), fp_vector(rn, sz, q)))
        }
    }
}

fn scalar_two_reg_misc(u: u32, size: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    let same = |mnemonic: &str, sizes: Sizes| {
        sizes.admit(size, 1).then(|| inst(mnemonic, &[scalar(rd, size), scalar(rn, size)]))
    };
    let with_zero =
        |mnemonic: &str| (size == 0b11).then(|| inst(mnemonic, &[scalar(rd, size), scalar(rn, size), "#0".into()]));
    let narrowing =
        |mnemonic: &str| NoD.admit(size, 1).then(|| inst(mnemonic, &[scalar(rd, size), scalar(rn, size + 1)]));
    let pick = |signed: &'static str, unsigned: &'static str| if u == 0 { signed } else { unsigned };
    match (u, opcode) {
        (_, 0b00011) => same(pick("suqadd", "usqadd"), Any),
        (_, 0b00111) => same(pick("sqabs", "sqneg"), Any),
        (_, 0b01000) => with_zero(pick("cmgt", "cmge")),
        (_, 0b01001) => with_zero(pick("cmeq", "cmle")),
        (0, 0b01010) => with_zero("cmlt"),
        (_, 0b01011) => same(pick("abs", "neg"), D),
        (1, 0b10010) => narrowing("sqxtun"),
        (_, 0b10100) => narrowing(pick("sqxtn", "uqxtn")),
        (1, 0b10110) => (size == 0b01).then(|| inst("fcvtxn", &[scalar(rd, 2), scalar(rn, 3)])),
        _ => {
            let mnemonic = fp_two_reg_misc_mnemonic(u, size >> 1, opcode).filter(|&m| has_scalar_form(m))?;
            let scale = 2 + (size & 1);
            Some(fp_two_reg(mnemonic, scalar(rd, scale), scalar(rn, scale)))
        }
    }
}

fn across_lanes(q: u32, u: u32, size: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    // The integer reductions need at least four lanes: no 2S, no D.
    let integer_ok = size != 0b11 && !(size == 0b10 && q == 0);
    let pick = |signed: &'static str, unsigned: &'static str| if u == 0 { signed } else { unsigned };
    let (mnemonic, result_size) = match (u, opcode) {
        (_, 0b00011) if integer_ok => (pick("saddlv", "uaddlv"), size + 1),
        (_, 0b01010) if integer_ok => (pick("smaxv", "umaxv"), size),
        (_, 0b11010) if integer_ok => (pick("sminv", "uminv"), size),
        (0, 0b11011) if integer_ok => ("addv", size),
        (_, 0b01100 | 0b01111) if size & 1 == 0 && !(u == 1 && q == 0) => {
            let mnemonic = match (opcode, size >> 1) {
                (0b01100, 0) => "fmaxnmv",
                (0b01100, _) => "fminnmv",
                (_, 0) => "fmaxv",
                _ => "fminv",
            };
            // Half precision for U = 0, single for U = 1.
            let size = if u == 0 { 1 } else { 2 };
            return Some(inst(mnemonic, &[scalar(rd, size), vector(rn, size, q)]));
        }
        _ => return None,
    };
    Some(inst(mnemonic, &[scalar(rd, result_size), vector(rn, size, q)]))
}

fn scalar_pairwise(u: u32, size: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    if u == 0 && opcode == 0b11011 {
        return (size == 0b11).then(|| inst("addp", &[scalar(rd, 3), vector(rn, 3, 1)]));
    }
    if u == 0 && size & 1 == 1 {
        return None;
    }
    let mnemonic = match (opcode, size >> 1) {
        (0b01100, 0) => "fmaxnmp",
        (0b01100, _) => "fminnmp",
        (0b01101, 0) => "faddp",
        (0b01111, 0) => "fmaxp",
        (0b01111, _) => "fminp",
        _ => return None,
    };
    // U = 0: half precision (`v<n>.2h`); U = 1: single or double precision by size<0>.
    let (register, source) = if u == 0 {
        (scalar(rd, 1), format!("v{rn}.2h"))
    } else {
        (scalar(rd, 2 + (size & 1)), vector(rn, 2 + (size & 1), size & 1))
    };
    Some(inst(mnemonic, &[register, source]))
}

/// The element size (log2 bytes) of `immh`, and `immh:immb`.
fn shift_fields(immh: u32, immb: u32) -> Option<(u32, u32)> {
    let size = highest_set_bit(immh.into())?;
    Some((size, immh << 3 | immb))
}

fn shift_by_immediate(q: u32, u: u32, immh: u32, immb: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    let (size, immhb) = shift_fields(immh, immb)?;
    let esize = 8 << size;
    let (mnemonic, kind) = shift_mnemonic(u, opcode)?;
    let right = imm(2 * esize - immhb);
    let left = immhb - esize;
    match kind {
        ShiftKind::Right | ShiftKind::Left | ShiftKind::Fixed => {
            if (size == 3 && q == 0) || (kind == ShiftKind::Fixed && size == 0) {
                return None;
            }
            let amount = if kind == ShiftKind::Left { imm(left) } else { right };
            Some(inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), amount]))
        }
        ShiftKind::Narrow => {
            (size < 3).then(|| inst(&upper(mnemonic, q), &[vector(rd, size, q), vector(rn, size + 1, 1), right]))
        }
        // The Arm ARM prefers SXTL, UXTL for a shift by zero; LLVM 14 prints SSHLL, USHLL #0, and we follow it.
        ShiftKind::Long if size < 3 => {
            Some(inst(&upper(mnemonic, q), &[vector(rd, size + 1, 1), vector(rn, size, q), imm(left)]))
        }
        ShiftKind::Long => None,
    }
}

fn scalar_shift_by_immediate(u: u32, immh: u32, immb: u32, opcode: u32, rn: u32, rd: u32) -> Option<String> {
    let (size, immhb) = shift_fields(immh, immb)?;
    let esize = 8 << size;
    let (mnemonic, kind) = shift_mnemonic(u, opcode)?;
    let right = imm(2 * esize - immhb);
    let left = imm(immhb - esize);
    let saturating = matches!(mnemonic, "sqshl" | "uqshl" | "sqshlu");
    match kind {
        ShiftKind::Right if size == 3 => Some(inst(mnemonic, &[scalar(rd, 3), scalar(rn, 3), right])),
        ShiftKind::Left if size == 3 || saturating => Some(inst(mnemonic, &[scalar(rd, size), scalar(rn, size), left])),
        ShiftKind::Fixed if size > 0 => Some(inst(mnemonic, &[scalar(rd, size), scalar(rn, size), right])),
        // The scalar class has the saturating narrowing shifts only.
        ShiftKind::Narrow if size < 3 && !matches!(mnemonic, "shrn" | "rshrn") => {
            Some(inst(mnemonic, &[scalar(rd, size), scalar(rn, size + 1), right]))
        }
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)] // the fields of the encoding
fn vector_indexed(
    q: u32,
    u: u32,
    size: u32,
    l: u32,
    m: u32,
    rm: u32,
    opcode: u32,
    h: u32,
    rn: u32,
    rd: u32,
) -> Option<String> {
    let (index, rm) = indexed_element(size, h, l, m, rm);
    let integer_ok = size == 0b01 || size == 0b10;
    let pick = |signed: &'static str, unsigned: &'static str| if u == 0 { signed } else { unsigned };
    let fp = |mnemonic: &str| {
        let size = fp_by_element_size(size, l, Some(q))?;
        Some(inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), element(rm, size, index)]))
    };
    let same = |mnemonic: &str| {
        integer_ok.then(|| inst(mnemonic, &[vector(rd, size, q), vector(rn, size, q), element(rm, size, index)]))
    };
    let long = |mnemonic: &str| {
        integer_ok.then(|| {
            inst(&upper(mnemonic, q), &[vector(rd, size + 1, 1), vector(rn, size, q), element(rm, size, index)])
        })
    };
    match (u, opcode) {
        (0, 0b0001) => fp("fmla"),
        (0, 0b0101) => fp("fmls"),
        (_, 0b1001) => fp(pick("fmul", "fmulx")),
        (_, 0b0010) => long(pick("smlal", "umlal")),
        (_, 0b0110) => long(pick("smlsl", "umlsl")),
        (_, 0b1010) => long(pick("smull", "umull")),
        (0, 0b0011) => long("sqdmlal"),
        (0, 0b0111) => long("sqdmlsl"),
        (0, 0b1011) => long("sqdmull"),
        (0, 0b1000) => same("mul"),
        (1, 0b0000) => same("mla"),
        (1, 0b0100) => same("mls"),
        (0, 0b1100) => same("sqdmulh"),
        (0, 0b1101) => same("sqrdmulh"),
        (1, 0b1101) => same("sqrdmlah"),
        (1, 0b1111) => same("sqrdmlsh"),
        (_, 0b1110) if size == 0b10 => {
            Some(inst(pick("sdot", "udot"), &[vector(rd, 2, q), vector(rn, 0, q), format!("v{rm}.4b[{index}]")]))
        }
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)] // the fields of the encoding
fn scalar_indexed(u: u32, size: u32, l: u32, m: u32, rm: u32, opcode: u32, h: u32, rn: u32, rd: u32) -> Option<String> {
    let (index, rm) = indexed_element(size, h, l, m, rm);
    let integer_ok = size == 0b01 || size == 0b10;
    let fp = |mnemonic: &str| {
        let size = fp_by_element_size(size, l, None)?;
        Some(inst(mnemonic, &[scalar(rd, size), scalar(rn, size), element(rm, size, index)]))
    };
    let same = |mnemonic: &str| {
        integer_ok.then(|| inst(mnemonic, &[scalar(rd, size), scalar(rn, size), element(rm, size, index)]))
    };
    let long = |mnemonic: &str| {
        integer_ok.then(|| inst(mnemonic, &[scalar(rd, size + 1), scalar(rn, size), element(rm, size, index)]))
    };
    match (u, opcode) {
        (0, 0b0001) => fp("fmla"),
        (0, 0b0101) => fp("fmls"),
        (0, 0b1001) => fp("fmul"),
        (1, 0b1001) => fp("fmulx"),
        (0, 0b0011) => long("sqdmlal"),
        (0, 0b0111) => long("sqdmlsl"),
        (0, 0b1011) => long("sqdmull"),
        (0, 0b1100) => same("sqdmulh"),
        (0, 0b1101) => same("sqrdmulh"),
        (1, 0b1101) => same("sqrdmlah"),
        (1, 0b1111) => same("sqrdmlsh"),
        _ => None,
    }
}
