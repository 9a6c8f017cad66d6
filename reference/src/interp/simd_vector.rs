//! C4.1.96 Advanced SIMD vector data processing: the classes "three same" (and its FP16 and "three-register
//! extension" neighbours), "three different", "two-register miscellaneous" (and FP16), "across lanes", "modified
//! immediate", "shift by immediate" and "vector x indexed element".
//!
//! Implemented: the bitwise instructions of "three same" (AND, BIC, ORR, ORN, EOR, BSL, BIT, BIF) and the whole
//! modified immediate class (MOVI, MVNI, ORR, BIC, FMOV (vector, immediate)). Every other instruction is decoded as
//! its page's decode section says, and stops as not implemented under its page's name; combinations a page calls
//! UNDEFINED stop as unallocated.

use super::pseudocode::{adv_simd_expand_imm, ones128, replicate128, vfp_expand_imm};
use super::{Exec, Step};

/// `size:Q != '110'`: the 1D arrangement, which most integer instructions reject.
fn not_1d(size: u32, q: u32) -> bool {
    !(size == 0b11 && q == 0)
}

/// `sz:Q != '10'`: the 1D arrangement of the single/double-precision instructions (sz is size<0>).
fn fp_arrangement_ok(size: u32, q: u32) -> bool {
    !(size & 1 == 1 && q == 0)
}

/// The page of an Advanced SIMD three same instruction other than the bitwise ones (opcode 00011); `None` where
/// the pages say UNDEFINED.
fn three_same_page(q: u32, u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let no_d = size != 0b11;
    let any_but_1d = not_1d(size, q);
    let s_or_h = size == 0b01 || size == 0b10;
    let (integer, allowed) = match (u, opcode) {
        (0, 0b00000) => ("SHADD", no_d),
        (0, 0b00001) => ("SQADD", any_but_1d),
        (0, 0b00010) => ("SRHADD", no_d),
        (0, 0b00100) => ("SHSUB", no_d),
        (0, 0b00101) => ("SQSUB", any_but_1d),
        (0, 0b00110) => ("CMGT (register)", any_but_1d),
        (0, 0b00111) => ("CMGE (register)", any_but_1d),
        (0, 0b01000) => ("SSHL", any_but_1d),
        (0, 0b01001) => ("SQSHL (register)", any_but_1d),
        (0, 0b01010) => ("SRSHL", any_but_1d),
        (0, 0b01011) => ("SQRSHL", any_but_1d),
        (0, 0b01100) => ("SMAX", no_d),
        (0, 0b01101) => ("SMIN", no_d),
        (0, 0b01110) => ("SABD", no_d),
        (0, 0b01111) => ("SABA", no_d),
        (0, 0b10000) => ("ADD (vector)", any_but_1d),
        (0, 0b10001) => ("CMTST", any_but_1d),
        (0, 0b10010) => ("MLA (vector)", no_d),
        (0, 0b10011) => ("MUL (vector)", no_d),
        (0, 0b10100) => ("SMAXP", no_d),
        (0, 0b10101) => ("SMINP", no_d),
        (0, 0b10110) => ("SQDMULH (vector)", s_or_h),
        (0, 0b10111) => ("ADDP (vector)", any_but_1d),
        (1, 0b00000) => ("UHADD", no_d),
        (1, 0b00001) => ("UQADD", any_but_1d),
        (1, 0b00010) => ("URHADD", no_d),
        (1, 0b00100) => ("UHSUB", no_d),
        (1, 0b00101) => ("UQSUB", any_but_1d),
        (1, 0b00110) => ("CMHI (register)", any_but_1d),
        (1, 0b00111) => ("CMHS (register)", any_but_1d),
        (1, 0b01000) => ("USHL", any_but_1d),
        (1, 0b01001) => ("UQSHL (register)", any_but_1d),
        (1, 0b01010) => ("URSHL", any_but_1d),
        (1, 0b01011) => ("UQRSHL", any_but_1d),
        (1, 0b01100) => ("UMAX", no_d),
        (1, 0b01101) => ("UMIN", no_d),
        (1, 0b01110) => ("UABD", no_d),
        (1, 0b01111) => ("UABA", no_d),
        (1, 0b10000) => ("SUB (vector)", any_but_1d),
        (1, 0b10001) => ("CMEQ (register)", any_but_1d),
        (1, 0b10010) => ("MLS (vector)", no_d),
        (1, 0b10011) => ("PMUL", size == 0),
        (1, 0b10100) => ("UMAXP", no_d),
        (1, 0b10101) => ("UMINP", no_d),
        (1, 0b10110) => ("SQRDMULH (vector)", s_or_h),
        _ => return three_same_fp_page(q, u, size, opcode),
    };
    allowed.then_some(integer)
}

/// The single/double-precision part of three same (opcode 11xxx): size<1> selects between two pages.
fn three_same_fp_page(q: u32, u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    if opcode >> 3 != 0b11 || !fp_arrangement_ok(size, q) {
        return None;
    }
    let (low, high) = match (u, opcode) {
        (0, 0b11000) => (Some("FMAXNM (vector)"), Some("FMINNM (vector)")),
        (0, 0b11001) => (Some("FMLA (vector)"), Some("FMLS (vector)")),
        (0, 0b11010) => (Some("FADD (vector)"), Some("FSUB (vector)")),
        (0, 0b11011) => (Some("FMULX"), None),
        (0, 0b11100) => (Some("FCMEQ (register)"), None),
        (0, 0b11110) => (Some("FMAX (vector)"), Some("FMIN (vector)")),
        (0, 0b11111) => (Some("FRECPS"), Some("FRSQRTS")),
        (1, 0b11000) => (Some("FMAXNMP (vector)"), Some("FMINNMP (vector)")),
        (1, 0b11010) => (Some("FADDP (vector)"), Some("FABD")),
        (1, 0b11011) => (Some("FMUL (vector)"), None),
        (1, 0b11100) => (Some("FCMGE (register)"), Some("FCMGT (register)")),
        (1, 0b11101) => (Some("FACGE"), Some("FACGT")),
        (1, 0b11110) => (Some("FMAXP (vector)"), Some("FMINP (vector)")),
        (1, 0b11111) => (Some("FDIV (vector)"), None),
        // 11101 (U = 0) and 11001 (U = 1) are FMLAL/FMLSL (FEAT_FHM), which the Cortex-A78C does not have.
        _ => (None, None),
    };
    if size >> 1 == 0 { low } else { high }
}

/// The page of an Advanced SIMD three same (FP16) instruction.
fn three_same_fp16_page(u: u32, a: u32, opcode: u32) -> Option<&'static str> {
    Some(match (u, a, opcode) {
        (0, 0, 0b000) => "FMAXNM (vector)",
        (0, 0, 0b001) => "FMLA (vector)",
        (0, 0, 0b010) => "FADD (vector)",
        (0, 0, 0b011) => "FMULX",
        (0, 0, 0b100) => "FCMEQ (register)",
        (0, 0, 0b110) => "FMAX (vector)",
        (0, 0, 0b111) => "FRECPS",
        (0, 1, 0b000) => "FMINNM (vector)",
        (0, 1, 0b001) => "FMLS (vector)",
        (0, 1, 0b010) => "FSUB (vector)",
        (0, 1, 0b110) => "FMIN (vector)",
        (0, 1, 0b111) => "FRSQRTS",
        (1, 0, 0b000) => "FMAXNMP (vector)",
        (1, 0, 0b010) => "FADDP (vector)",
        (1, 0, 0b011) => "FMUL (vector)",
        (1, 0, 0b100) => "FCMGE (register)",
        (1, 0, 0b101) => "FACGE",
        (1, 0, 0b110) => "FMAXP (vector)",
        (1, 0, 0b111) => "FDIV (vector)",
        (1, 1, 0b000) => "FMINNMP (vector)",
        (1, 1, 0b010) => "FABD",
        (1, 1, 0b100) => "FCMGT (register)",
        (1, 1, 0b101) => "FACGT",
        (1, 1, 0b110) => "FMINP (vector)",
        _ => return None,
    })
}

/// The page of an Advanced SIMD three-register extension instruction. FCMLA and FCADD (FEAT_FCMA), the BFloat16
/// and the int8 matrix instructions are not in the Cortex-A78C and stay unallocated.
fn three_reg_extension_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let s_or_h = size == 0b01 || size == 0b10;
    match (u, opcode) {
        (0, 0b0010) if size == 0b10 => Some("SDOT (vector)"),
        (1, 0b0010) if size == 0b10 => Some("UDOT (vector)"),
        (1, 0b0000) if s_or_h => Some("SQRDMLAH (vector)"),
        (1, 0b0001) if s_or_h => Some("SQRDMLSH (vector)"),
        _ => None,
    }
}

/// The page of an Advanced SIMD three different instruction.
fn three_different_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let no_d = size != 0b11;
    let s_or_h = size == 0b01 || size == 0b10;
    let (page, allowed) = match (u, opcode) {
        (0, 0b0000) => ("SADDL, SADDL2", no_d),
        (0, 0b0001) => ("SADDW, SADDW2", no_d),
        (0, 0b0010) => ("SSUBL, SSUBL2", no_d),
        (0, 0b0011) => ("SSUBW, SSUBW2", no_d),
        (0, 0b0100) => ("ADDHN, ADDHN2", no_d),
        (0, 0b0101) => ("SABAL, SABAL2", no_d),
        (0, 0b0110) => ("SUBHN, SUBHN2", no_d),
        (0, 0b0111) => ("SABDL, SABDL2", no_d),
        (0, 0b1000) => ("SMLAL, SMLAL2 (vector)", no_d),
        (0, 0b1001) => ("SQDMLAL, SQDMLAL2 (vector)", s_or_h),
        (0, 0b1010) => ("SMLSL, SMLSL2 (vector)", no_d),
        (0, 0b1011) => ("SQDMLSL, SQDMLSL2 (vector)", s_or_h),
        (0, 0b1100) => ("SMULL, SMULL2 (vector)", no_d),
        (0, 0b1101) => ("SQDMULL, SQDMULL2 (vector)", s_or_h),
        // 8-bit polynomials, or 64-bit ones (FEAT_PMULL, which the Cortex-A78C has).
        (0, 0b1110) => ("PMULL, PMULL2", size == 0b00 || size == 0b11),
        (1, 0b0000) => ("UADDL, UADDL2", no_d),
        (1, 0b0001) => ("UADDW, UADDW2", no_d),
        (1, 0b0010) => ("USUBL, USUBL2", no_d),
        (1, 0b0011) => ("USUBW, USUBW2", no_d),
        (1, 0b0100) => ("RADDHN, RADDHN2", no_d),
        (1, 0b0101) => ("UABAL, UABAL2", no_d),
        (1, 0b0110) => ("RSUBHN, RSUBHN2", no_d),
        (1, 0b0111) => ("UABDL, UABDL2", no_d),
        (1, 0b1000) => ("UMLAL, UMLAL2 (vector)", no_d),
        (1, 0b1010) => ("UMLSL, UMLSL2 (vector)", no_d),
        (1, 0b1100) => ("UMULL, UMULL2 (vector)", no_d),
        _ => return None,
    };
    allowed.then_some(page)
}

/// The page of an Advanced SIMD two-register miscellaneous instruction.
fn two_reg_misc_page(q: u32, u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let no_d = size != 0b11;
    let any_but_1d = not_1d(size, q);
    let (page, allowed) = match (u, opcode) {
        // REV16, REV32, REV64: UInt(U:o0) + UInt(size) < 3.
        (0, 0b00000) => ("REV64", size < 3),
        (0, 0b00001) => ("REV16 (vector)", size < 1),
        (1, 0b00000) => ("REV32 (vector)", size < 2),
        (0, 0b00010) => ("SADDLP", no_d),
        (0, 0b00011) => ("SUQADD", any_but_1d),
        (0, 0b00100) => ("CLS (vector)", no_d),
        (0, 0b00101) => ("CNT", size == 0),
        (0, 0b00110) => ("SADALP", no_d),
        (0, 0b00111) => ("SQABS", any_but_1d),
        (0, 0b01000) => ("CMGT (zero)", any_but_1d),
        (0, 0b01001) => ("CMEQ (zero)", any_but_1d),
        (0, 0b01010) => ("CMLT (zero)", any_but_1d),
        (0, 0b01011) => ("ABS", any_but_1d),
        (0, 0b10010) => ("XTN, XTN2", no_d),
        (0, 0b10100) => ("SQXTN, SQXTN2", no_d),
        (1, 0b00010) => ("UADDLP", no_d),
        (1, 0b00011) => ("USQADD", any_but_1d),
        (1, 0b00100) => ("CLZ (vector)", no_d),
        (1, 0b00101) if size == 0 => ("NOT", true),
        (1, 0b00101) => ("RBIT (vector)", size == 1),
        (1, 0b00110) => ("UADALP", no_d),
        (1, 0b00111) => ("SQNEG", any_but_1d),
        (1, 0b01000) => ("CMGE (zero)", any_but_1d),
        (1, 0b01001) => ("CMLE (zero)", any_but_1d),
        (1, 0b01011) => ("NEG (vector)", any_but_1d),
        (1, 0b10010) => ("SQXTUN, SQXTUN2", no_d),
        (1, 0b10011) => ("SHLL, SHLL2", no_d),
        (1, 0b10100) => ("UQXTN, UQXTN2", no_d),
        // The conversions between precisions take any Q (the "2" forms); FCVTXN needs sz = 1.
        (0, 0b10110) => ("FCVTN, FCVTN2", size >> 1 == 0),
        (0, 0b10111) => ("FCVTL, FCVTL2", size >> 1 == 0),
        (1, 0b10110) => ("FCVTXN, FCVTXN2", size == 0b01),
        // URECPE and URSQRTE take 32-bit elements only (sz = 0).
        (0, 0b11100) if size >> 1 == 1 => ("URECPE", size == 0b10),
        (1, 0b11100) if size >> 1 == 1 => ("URSQRTE", size == 0b10),
        _ => return two_reg_misc_fp_page(q, u, size, opcode),
    };
    allowed.then_some(page)
}

/// The single/double-precision part of two-register miscellaneous: size<1> selects between two pages.
fn two_reg_misc_fp_page(q: u32, u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    if !fp_arrangement_ok(size, q) {
        return None;
    }
    let (low, high) = match (u, opcode) {
        (0, 0b01100) => (None, Some("FCMGT (zero)")),
        (0, 0b01101) => (None, Some("FCMEQ (zero)")),
        (0, 0b01110) => (None, Some("FCMLT (zero)")),
        (0, 0b01111) => (None, Some("FABS (vector)")),
        (0, 0b11000) => (Some("FRINTN (vector)"), Some("FRINTP (vector)")),
        (0, 0b11001) => (Some("FRINTM (vector)"), Some("FRINTZ (vector)")),
        (0, 0b11010) => (Some("FCVTNS (vector)"), Some("FCVTPS (vector)")),
        (0, 0b11011) => (Some("FCVTMS (vector)"), Some("FCVTZS (vector, integer)")),
        (0, 0b11100) => (Some("FCVTAS (vector)"), None),
        (0, 0b11101) => (Some("SCVTF (vector, integer)"), Some("FRECPE")),
        (1, 0b01100) => (None, Some("FCMGE (zero)")),
        (1, 0b01101) => (None, Some("FCMLE (zero)")),
        (1, 0b01111) => (None, Some("FNEG (vector)")),
        (1, 0b11000) => (Some("FRINTA (vector)"), None),
        (1, 0b11001) => (Some("FRINTX (vector)"), Some("FRINTI (vector)")),
        (1, 0b11010) => (Some("FCVTNU (vector)"), Some("FCVTPU (vector)")),
        (1, 0b11011) => (Some("FCVTMU (vector)"), Some("FCVTZU (vector, integer)")),
        (1, 0b11100) => (Some("FCVTAU (vector)"), None),
        (1, 0b11101) => (Some("UCVTF (vector, integer)"), Some("FRSQRTE")),
        (1, 0b11111) => (None, Some("FSQRT (vector)")),
        // 1111x with size<1> = 0 is FRINT32*/FRINT64* (FEAT_FRINTTS), not in the Cortex-A78C.
        _ => (None, None),
    };
    if size >> 1 == 0 { low } else { high }
}

/// The page of an Advanced SIMD two-register miscellaneous (FP16) instruction.
fn two_reg_misc_fp16_page(u: u32, a: u32, opcode: u32) -> Option<&'static str> {
    Some(match (u, a, opcode) {
        (0, 0, 0b11000) => "FRINTN (vector)",
        (0, 0, 0b11001) => "FRINTM (vector)",
        (0, 0, 0b11010) => "FCVTNS (vector)",
        (0, 0, 0b11011) => "FCVTMS (vector)",
        (0, 0, 0b11100) => "FCVTAS (vector)",
        (0, 0, 0b11101) => "SCVTF (vector, integer)",
        (0, 1, 0b01100) => "FCMGT (zero)",
        (0, 1, 0b01101) => "FCMEQ (zero)",
        (0, 1, 0b01110) => "FCMLT (zero)",
        (0, 1, 0b01111) => "FABS (vector)",
        (0, 1, 0b11000) => "FRINTP (vector)",
        (0, 1, 0b11001) => "FRINTZ (vector)",
        (0, 1, 0b11010) => "FCVTPS (vector)",
        (0, 1, 0b11011) => "FCVTZS (vector, integer)",
        (0, 1, 0b11101) => "FRECPE",
        (1, 0, 0b11000) => "FRINTA (vector)",
        (1, 0, 0b11001) => "FRINTX (vector)",
        (1, 0, 0b11010) => "FCVTNU (vector)",
        (1, 0, 0b11011) => "FCVTMU (vector)",
        (1, 0, 0b11100) => "FCVTAU (vector)",
        (1, 0, 0b11101) => "UCVTF (vector, integer)",
        (1, 1, 0b01100) => "FCMGE (zero)",
        (1, 1, 0b01101) => "FCMLE (zero)",
        (1, 1, 0b01111) => "FNEG (vector)",
        (1, 1, 0b11001) => "FRINTI (vector)",
        (1, 1, 0b11010) => "FCVTPU (vector)",
        (1, 1, 0b11011) => "FCVTZU (vector, integer)",
        (1, 1, 0b11101) => "FRSQRTE",
        (1, 1, 0b11111) => "FSQRT (vector)",
        _ => return None,
    })
}

/// The page of an Advanced SIMD across lanes instruction.
fn across_lanes_page(q: u32, u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    // The integer reductions need at least four lanes: no 2S, no D.
    let integer_ok = size != 0b11 && !(size == 0b10 && q == 0);
    let (page, allowed) = match (u, opcode) {
        (0, 0b00011) => ("SADDLV", integer_ok),
        (0, 0b01010) => ("SMAXV", integer_ok),
        (0, 0b11010) => ("SMINV", integer_ok),
        (0, 0b11011) => ("ADDV", integer_ok),
        (1, 0b00011) => ("UADDLV", integer_ok),
        (1, 0b01010) => ("UMAXV", integer_ok),
        (1, 0b11010) => ("UMINV", integer_ok),
        // Half precision (U = 0, size<0> = 0, any Q); single precision (U = 1, size<0> = 0, Q = 1). size<1> picks
        // the minimum.
        (_, 0b01100 | 0b01111) if size & 1 == 1 || (u == 1 && q == 0) => return None,
        (_, 0b01100) => (if size == 0 { "FMAXNMV" } else { "FMINNMV" }, true),
        (_, 0b01111) => (if size == 0 { "FMAXV" } else { "FMINV" }, true),
        _ => return None,
    };
    allowed.then_some(page)
}

/// The page of an Advanced SIMD shift by immediate instruction (immh is never 0000 here: that is the modified
/// immediate class).
fn shift_by_immediate_page(q: u32, u: u32, immh: u32, opcode: u32) -> Option<&'static str> {
    // immh<3> = 1 is 64-bit elements: no 1D arrangement, no narrowing or lengthening.
    let same_ok = !(immh >> 3 == 1 && q == 0);
    let narrow_ok = immh >> 3 == 0;
    // The fixed-point conversions: 16-bit (FEAT_FP16), 32-bit and 64-bit elements.
    let fixed_ok = immh >> 1 != 0 && same_ok;
    let (page, allowed) = match (u, opcode) {
        (0, 0b00000) => ("SSHR", same_ok),
        (0, 0b00010) => ("SSRA", same_ok),
        (0, 0b00100) => ("SRSHR", same_ok),
        (0, 0b00110) => ("SRSRA", same_ok),
        (0, 0b01010) => ("SHL", same_ok),
        (0, 0b01110) => ("SQSHL (immediate)", same_ok),
        (0, 0b10000) => ("SHRN, SHRN2", narrow_ok),
        (0, 0b10001) => ("RSHRN, RSHRN2", narrow_ok),
        (0, 0b10010) => ("SQSHRN, SQSHRN2", narrow_ok),
        (0, 0b10011) => ("SQRSHRN, SQRSHRN2", narrow_ok),
        (0, 0b10100) => ("SSHLL, SSHLL2", narrow_ok),
        (0, 0b11100) => ("SCVTF (vector, fixed-point)", fixed_ok),
        (0, 0b11111) => ("FCVTZS (vector, fixed-point)", fixed_ok),
        (1, 0b00000) => ("USHR", same_ok),
        (1, 0b00010) => ("USRA", same_ok),
        (1, 0b00100) => ("URSHR", same_ok),
        (1, 0b00110) => ("URSRA", same_ok),
        (1, 0b01000) => ("SRI", same_ok),
        (1, 0b01010) => ("SLI", same_ok),
        (1, 0b01100) => ("SQSHLU", same_ok),
        (1, 0b01110) => ("UQSHL (immediate)", same_ok),
        (1, 0b10000) => ("SQSHRUN, SQSHRUN2", narrow_ok),
        (1, 0b10001) => ("SQRSHRUN, SQRSHRUN2", narrow_ok),
        (1, 0b10010) => ("UQSHRN, UQSHRN2", narrow_ok),
        (1, 0b10011) => ("UQRSHRN, UQRSHRN2", narrow_ok),
        (1, 0b10100) => ("USHLL, USHLL2", narrow_ok),
        (1, 0b11100) => ("UCVTF (vector, fixed-point)", fixed_ok),
        (1, 0b11111) => ("FCVTZU (vector, fixed-point)", fixed_ok),
        _ => return None,
    };
    allowed.then_some(page)
}

/// Whether a by-element floating-point instruction admits `size` (00 half precision; 10 single; 11 double, whose
/// index is H alone (L = 0) and which has no 1D arrangement); `q` is `None` for the scalar forms.
pub(super) fn fp_by_element_ok(size: u32, l: u32, q: Option<u32>) -> bool {
    match size {
        0b00 | 0b10 => true,
        0b11 => l == 0 && q != Some(0),
        _ => false,
    }
}

/// The page of an Advanced SIMD vector x indexed element instruction. FMLAL/FMLSL (FEAT_FHM) and the BFloat16 and
/// int8 dot products are not in the Cortex-A78C and stay unallocated.
fn indexed_element_page(q: u32, u: u32, size: u32, l: u32, opcode: u32) -> Option<&'static str> {
    let integer_ok = size == 0b01 || size == 0b10;
    let fp_ok = fp_by_element_ok(size, l, Some(q));
    let (page, allowed) = match (u, opcode) {
        (0, 0b0001) => ("FMLA (by element)", fp_ok),
        (0, 0b0101) => ("FMLS (by element)", fp_ok),
        (0, 0b1001) => ("FMUL (by element)", fp_ok),
        (1, 0b1001) => ("FMULX (by element)", fp_ok),
        (0, 0b0010) => ("SMLAL, SMLAL2 (by element)", integer_ok),
        (0, 0b0011) => ("SQDMLAL, SQDMLAL2 (by element)", integer_ok),
        (0, 0b0110) => ("SMLSL, SMLSL2 (by element)", integer_ok),
        (0, 0b0111) => ("SQDMLSL, SQDMLSL2 (by element)", integer_ok),
        (0, 0b1000) => ("MUL (by element)", integer_ok),
        (0, 0b1010) => ("SMULL, SMULL2 (by element)", integer_ok),
        (0, 0b1011) => ("SQDMULL, SQDMULL2 (by element)", integer_ok),
        (0, 0b1100) => ("SQDMULH (by element)", integer_ok),
        (0, 0b1101) => ("SQRDMULH (by element)", integer_ok),
        (0, 0b1110) => ("SDOT (by element)", size == 0b10),
        (1, 0b0000) => ("MLA (by element)", integer_ok),
        (1, 0b0010) => ("UMLAL, UMLAL2 (by element)", integer_ok),
        (1, 0b0100) => ("MLS (by element)", integer_ok),
        (1, 0b0110) => ("UMLSL, UMLSL2 (by element)", integer_ok),
        (1, 0b1010) => ("UMULL, UMULL2 (by element)", integer_ok),
        (1, 0b1101) => ("SQRDMLAH (by element)", integer_ok),
        (1, 0b1110) => ("UDOT (by element)", size == 0b10),
        (1, 0b1111) => ("SQRDMLSH (by element)", integer_ok),
        _ => return None,
    };
    allowed.then_some(page)
}

/// What the modified immediate class's `op:cmode:o2` selects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ImmediateOp {
    Movi,
    Mvni,
    Orr,
    Bic,
    /// FMOV (vector, immediate), single and double precision: AdvSIMDExpandImm makes the value, as for MOVI.
    Fmov,
    /// FMOV (vector, immediate), half precision (o2 = 1).
    FmovHalf,
}

/// The decode of the modified immediate class; `None` where UNDEFINED.
fn modified_immediate_op(q: u32, op: u32, cmode: u32, o2: u32) -> Option<ImmediateOp> {
    if o2 == 1 {
        return (op == 0 && cmode == 0b1111).then_some(ImmediateOp::FmovHalf);
    }
    // cmode 1111 is FMOV (vector, immediate): single (op = 0) or double (op = 1, 2D only).
    if cmode == 0b1111 {
        return (op == 0 || q == 1).then_some(ImmediateOp::Fmov);
    }
    let shifted = cmode >> 3 == 0 || cmode >> 2 == 0b10;
    Some(match (shifted, cmode & 1, op) {
        (true, 0, 0) => ImmediateOp::Movi,
        (true, 0, _) => ImmediateOp::Mvni,
        (true, _, 0) => ImmediateOp::Orr,
        (true, _, _) => ImmediateOp::Bic,
        // 110x: the "shifting ones" forms; 1110: MOVI of bytes (op = 0) or of a 64-bit mask (op = 1).
        (false, _, 1) if cmode >> 1 == 0b110 => ImmediateOp::Mvni,
        (false, ..) => ImmediateOp::Movi,
    })
}

impl Exec<'_> {
    /// The class "Advanced SIMD three same".
    pub(super) fn advanced_simd_three_same(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if opcode == 0b00011 {
            return self.simd_bitwise(q, u, size, rm, rn, rd);
        }
        self.not_implemented_page(word, three_same_page(q, u, size, opcode))
    }

    /// AND, BIC, ORR, ORN (vector, register) (U = 0) and EOR, BSL, BIT, BIF (U = 1); `size` is the operation.
    fn simd_bitwise(&mut self, q: u32, u: u32, size: u32, rm: u32, rn: u32, rd: u32) -> Step {
        let datasize = if q == 1 { 128 } else { 64 };
        let operand1 = self.v(rn, datasize);
        let result = if u == 0 {
            let invert = size & 1 == 1;
            let operand2 = if invert { !self.v(rm, datasize) } else { self.v(rm, datasize) };
            if size >> 1 == 0 { operand1 & operand2 } else { operand1 | operand2 }
        } else {
            // V[d] = operand1 EOR ((operand2 EOR operand4) AND operand3), operand4 being V[n].
            let (vm, vd) = (self.v(rm, datasize), self.v(rd, datasize));
            let (op1, op2, op3) = match size {
                0b00 => (vm, 0, ones128(datasize)), // EOR
                0b01 => (vm, vm, vd),               // BSL
                0b10 => (vd, vd, vm),               // BIT
                _ => (vd, vd, !vm),                 // BIF
            };
            op1 ^ ((op2 ^ operand1) & op3)
        };
        self.set_v(rd, result, datasize);
        Ok(())
    }

    /// The class "Advanced SIMD three same (FP16)".
    pub(super) fn advanced_simd_three_same_fp16(&mut self, word: u32, u: u32, a: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, three_same_fp16_page(u, a, opcode))
    }

    /// The class "Advanced SIMD three-register extension".
    pub(super) fn advanced_simd_three_reg_extension(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, three_reg_extension_page(u, size, opcode))
    }

    /// The class "Advanced SIMD three different".
    pub(super) fn advanced_simd_three_different(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, three_different_page(u, size, opcode))
    }

    /// The class "Advanced SIMD two-register miscellaneous".
    pub(super) fn advanced_simd_two_reg_misc(&mut self, word: u32, q: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, two_reg_misc_page(q, u, size, opcode))
    }

    /// The class "Advanced SIMD two-register miscellaneous (FP16)".
    pub(super) fn advanced_simd_two_reg_misc_fp16(&mut self, word: u32, u: u32, a: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, two_reg_misc_fp16_page(u, a, opcode))
    }

    /// The class "Advanced SIMD across lanes".
    pub(super) fn advanced_simd_across_lanes(&mut self, word: u32, q: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, across_lanes_page(q, u, size, opcode))
    }

    /// The class "Advanced SIMD shift by immediate".
    pub(super) fn advanced_simd_shift_by_immediate(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        immh: u32,
        opcode: u32,
    ) -> Step {
        self.not_implemented_page(word, shift_by_immediate_page(q, u, immh, opcode))
    }

    /// The class "Advanced SIMD vector x indexed element".
    pub(super) fn advanced_simd_vector_indexed_element(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        size: u32,
        l: u32,
        opcode: u32,
    ) -> Step {
        self.not_implemented_page(word, indexed_element_page(q, u, size, l, opcode))
    }

    /// The class "Advanced SIMD modified immediate": MOVI, MVNI, ORR (vector, immediate), BIC (vector, immediate)
    /// and FMOV (vector, immediate).
    pub(super) fn advanced_simd_modified_immediate(
        &mut self,
        word: u32,
        q: u32,
        op: u32,
        abc: u32,
        cmode: u32,
        o2: u32,
        defgh: u32,
        rd: u32,
    ) -> Step {
        let Some(operation) = modified_immediate_op(q, op, cmode, o2) else {
            return self.unallocated(word);
        };
        let datasize = if q == 1 { 128 } else { 64 };
        let imm8 = abc << 5 | defgh;
        let imm = match operation {
            ImmediateOp::FmovHalf => replicate128(vfp_expand_imm(imm8, 16), 16, datasize),
            _ => replicate128(adv_simd_expand_imm(op, cmode, imm8), 64, datasize),
        };
        let result = match operation {
            ImmediateOp::Movi | ImmediateOp::Fmov | ImmediateOp::FmovHalf => imm,
            ImmediateOp::Mvni => !imm,
            ImmediateOp::Orr => self.v(rd, datasize) | imm,
            ImmediateOp::Bic => self.v(rd, datasize) & !imm,
        };
        self.set_v(rd, result, datasize);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_immediate_operations() {
        use ImmediateOp::*;
        // The class table of the Arm ARM, row by row (q = 1 unless noted).
        let cases: &[(u32, u32, u32, u32, Option<ImmediateOp>)] = &[
            (1, 0, 0b0000, 0, Some(Movi)), // MOVI 32-bit shifted
            (1, 0, 0b0111, 0, Some(Orr)),  // ORR 32-bit
            (1, 0, 0b1000, 0, Some(Movi)), // MOVI 16-bit shifted
            (1, 0, 0b1011, 0, Some(Orr)),  // ORR 16-bit
            (1, 0, 0b1101, 0, Some(Movi)), // MOVI 32-bit shifting ones
            (1, 0, 0b1110, 0, Some(Movi)), // MOVI 8-bit
            (1, 0, 0b1111, 0, Some(Fmov)), // FMOV single
            (1, 0, 0b1111, 1, Some(FmovHalf)),
            (1, 0, 0b1110, 1, None),
            (1, 1, 0b0010, 0, Some(Mvni)), // MVNI 32-bit shifted
            (1, 1, 0b0101, 0, Some(Bic)),  // BIC 32-bit
            (1, 1, 0b1010, 0, Some(Mvni)), // MVNI 16-bit
            (1, 1, 0b1001, 0, Some(Bic)),  // BIC 16-bit
            (1, 1, 0b1100, 0, Some(Mvni)), // MVNI shifting ones
            (0, 1, 0b1110, 0, Some(Movi)), // MOVI Dd, #imm (64-bit)
            (1, 1, 0b1111, 0, Some(Fmov)), // FMOV double
            (0, 1, 0b1111, 0, None),
            (1, 1, 0b1111, 1, None),
        ];
        for &(q, op, cmode, o2, expected) in cases {
            assert_eq!(modified_immediate_op(q, op, cmode, o2), expected, "q {q} op {op} cmode {cmode:04b} o2 {o2}");
        }
    }

    #[test]
    fn pages_follow_the_decode_sections() {
        assert_eq!(three_same_page(1, 0, 0b11, 0b10000), Some("ADD (vector)"));
        assert_eq!(three_same_page(0, 0, 0b11, 0b10000), None); // ADD .1d
        assert_eq!(three_same_page(1, 1, 0b01, 0b10011), None); // PMUL .8h
        assert_eq!(three_same_page(0, 1, 0b01, 0b11111), None); // FDIV .1d
        assert_eq!(three_same_page(1, 1, 0b01, 0b11111), Some("FDIV (vector)"));
        assert_eq!(two_reg_misc_page(1, 1, 0b01, 0b00000), Some("REV32 (vector)"));
        assert_eq!(two_reg_misc_page(1, 1, 0b10, 0b00000), None);
        assert_eq!(across_lanes_page(0, 0, 0b10, 0b11011), None); // ADDV .2s
        assert_eq!(across_lanes_page(1, 1, 0b00, 0b01111), Some("FMAXV"));
        assert_eq!(shift_by_immediate_page(0, 0, 0b1000, 0b00000), None); // SSHR .1d
        assert_eq!(shift_by_immediate_page(1, 0, 0b0001, 0b11100), None); // SCVTF of bytes
        assert_eq!(indexed_element_page(1, 0, 0b11, 1, 0b1001), None); // FMUL .2d with L = 1
    }
}
