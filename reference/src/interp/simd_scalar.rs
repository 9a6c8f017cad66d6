//! C4.1.96 Advanced SIMD scalar data processing: the classes "scalar three same" (and FP16 and "extra"), "scalar
//! three different", "scalar two-register miscellaneous" (and FP16), "scalar pairwise", "scalar shift by immediate"
//! and "scalar x indexed element". ("Advanced SIMD scalar copy" is with the other copies in `simd_permute.rs`.)
//!
//! None is implemented yet: each instruction is decoded as its page's decode section says and stops as not
//! implemented under its page's name; combinations a page calls UNDEFINED stop as unallocated.

use super::simd_vector::fp_by_element_ok;
use super::{Exec, Step};

/// The page of an Advanced SIMD scalar three same instruction. Scalar floating point takes sz = size<0> as the
/// precision (any), size<1> as the operation.
fn scalar_three_same_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let d_only = size == 0b11;
    let s_or_h = size == 0b01 || size == 0b10;
    let low = size >> 1 == 0;
    let (page, allowed) = match (u, opcode) {
        (0, 0b00001) => ("SQADD", true),
        (0, 0b00101) => ("SQSUB", true),
        (0, 0b00110) => ("CMGT (register)", d_only),
        (0, 0b00111) => ("CMGE (register)", d_only),
        (0, 0b01000) => ("SSHL", d_only),
        (0, 0b01001) => ("SQSHL (register)", true),
        (0, 0b01010) => ("SRSHL", d_only),
        (0, 0b01011) => ("SQRSHL", true),
        (0, 0b10000) => ("ADD (vector)", d_only),
        (0, 0b10001) => ("CMTST", d_only),
        (0, 0b10110) => ("SQDMULH (vector)", s_or_h),
        (0, 0b11011) => ("FMULX", low),
        (0, 0b11100) => ("FCMEQ (register)", low),
        (0, 0b11111) => (if low { "FRECPS" } else { "FRSQRTS" }, true),
        (1, 0b00001) => ("UQADD", true),
        (1, 0b00101) => ("UQSUB", true),
        (1, 0b00110) => ("CMHI (register)", d_only),
        (1, 0b00111) => ("CMHS (register)", d_only),
        (1, 0b01000) => ("USHL", d_only),
        (1, 0b01001) => ("UQSHL (register)", true),
        (1, 0b01010) => ("URSHL", d_only),
        (1, 0b01011) => ("UQRSHL", true),
        (1, 0b10000) => ("SUB (vector)", d_only),
        (1, 0b10001) => ("CMEQ (register)", d_only),
        (1, 0b10110) => ("SQRDMULH (vector)", s_or_h),
        (1, 0b11010) => ("FABD", !low),
        (1, 0b11100) => (if low { "FCMGE (register)" } else { "FCMGT (register)" }, true),
        (1, 0b11101) => (if low { "FACGE" } else { "FACGT" }, true),
        _ => return None,
    };
    allowed.then_some(page)
}

/// The page of an Advanced SIMD scalar three same FP16 instruction.
fn scalar_three_same_fp16_page(u: u32, a: u32, opcode: u32) -> Option<&'static str> {
    Some(match (u, a, opcode) {
        (0, 0, 0b011) => "FMULX",
        (0, 0, 0b100) => "FCMEQ (register)",
        (0, 0, 0b111) => "FRECPS",
        (0, 1, 0b111) => "FRSQRTS",
        (1, 0, 0b100) => "FCMGE (register)",
        (1, 0, 0b101) => "FACGE",
        (1, 1, 0b010) => "FABD",
        (1, 1, 0b100) => "FCMGT (register)",
        (1, 1, 0b101) => "FACGT",
        _ => return None,
    })
}

/// The page of an Advanced SIMD scalar three same extra instruction (FEAT_RDM).
fn scalar_three_same_extra_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let s_or_h = size == 0b01 || size == 0b10;
    match (u, opcode) {
        (1, 0b0000) if s_or_h => Some("SQRDMLAH (vector)"),
        (1, 0b0001) if s_or_h => Some("SQRDMLSH (vector)"),
        _ => None,
    }
}

/// The page of an Advanced SIMD scalar two-register miscellaneous instruction.
fn scalar_two_reg_misc_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    let d_only = size == 0b11;
    let no_d = size != 0b11;
    let low = size >> 1 == 0;
    let (page, allowed) = match (u, opcode) {
        (0, 0b00011) => ("SUQADD", true),
        (0, 0b00111) => ("SQABS", true),
        (0, 0b01000) => ("CMGT (zero)", d_only),
        (0, 0b01001) => ("CMEQ (zero)", d_only),
        (0, 0b01010) => ("CMLT (zero)", d_only),
        (0, 0b01011) => ("ABS", d_only),
        (0, 0b10100) => ("SQXTN, SQXTN2", no_d),
        (1, 0b00011) => ("USQADD", true),
        (1, 0b00111) => ("SQNEG", true),
        (1, 0b01000) => ("CMGE (zero)", d_only),
        (1, 0b01001) => ("CMLE (zero)", d_only),
        (1, 0b01011) => ("NEG (vector)", d_only),
        (1, 0b10010) => ("SQXTUN, SQXTUN2", no_d),
        (1, 0b10100) => ("UQXTN, UQXTN2", no_d),
        (1, 0b10110) => ("FCVTXN, FCVTXN2", size == 0b01),
        // Floating point: size<1> selects the page, sz = size<0> the precision.
        (0, 0b01100) => ("FCMGT (zero)", !low),
        (0, 0b01101) => ("FCMEQ (zero)", !low),
        (0, 0b01110) => ("FCMLT (zero)", !low),
        (0, 0b11010) => (if low { "FCVTNS (vector)" } else { "FCVTPS (vector)" }, true),
        (0, 0b11011) => (if low { "FCVTMS (vector)" } else { "FCVTZS (vector, integer)" }, true),
        (0, 0b11100) => ("FCVTAS (vector)", low),
        (0, 0b11101) => (if low { "SCVTF (vector, integer)" } else { "FRECPE" }, true),
        (0, 0b11111) => ("FRECPX", !low),
        (1, 0b01100) => ("FCMGE (zero)", !low),
        (1, 0b01101) => ("FCMLE (zero)", !low),
        (1, 0b11010) => (if low { "FCVTNU (vector)" } else { "FCVTPU (vector)" }, true),
        (1, 0b11011) => (if low { "FCVTMU (vector)" } else { "FCVTZU (vector, integer)" }, true),
        (1, 0b11100) => ("FCVTAU (vector)", low),
        (1, 0b11101) => (if low { "UCVTF (vector, integer)" } else { "FRSQRTE" }, true),
        _ => return None,
    };
    allowed.then_some(page)
}

/// The page of an Advanced SIMD scalar two-register miscellaneous FP16 instruction.
fn scalar_two_reg_misc_fp16_page(u: u32, a: u32, opcode: u32) -> Option<&'static str> {
    Some(match (u, a, opcode) {
        (0, 0, 0b11010) => "FCVTNS (vector)",
        (0, 0, 0b11011) => "FCVTMS (vector)",
        (0, 0, 0b11100) => "FCVTAS (vector)",
        (0, 0, 0b11101) => "SCVTF (vector, integer)",
        (0, 1, 0b01100) => "FCMGT (zero)",
        (0, 1, 0b01101) => "FCMEQ (zero)",
        (0, 1, 0b01110) => "FCMLT (zero)",
        (0, 1, 0b11010) => "FCVTPS (vector)",
        (0, 1, 0b11011) => "FCVTZS (vector, integer)",
        (0, 1, 0b11101) => "FRECPE",
        (0, 1, 0b11111) => "FRECPX",
        (1, 0, 0b11010) => "FCVTNU (vector)",
        (1, 0, 0b11011) => "FCVTMU (vector)",
        (1, 0, 0b11100) => "FCVTAU (vector)",
        (1, 0, 0b11101) => "UCVTF (vector, integer)",
        (1, 1, 0b01100) => "FCMGE (zero)",
        (1, 1, 0b01101) => "FCMLE (zero)",
        (1, 1, 0b11010) => "FCVTPU (vector)",
        (1, 1, 0b11011) => "FCVTZU (vector, integer)",
        (1, 1, 0b11101) => "FRSQRTE",
        _ => return None,
    })
}

/// The page of an Advanced SIMD scalar pairwise instruction: ADDP of the two doublewords, and the floating-point
/// reductions of two elements (U = 0 half precision with size<0> = 0; U = 1 single and double precision).
fn scalar_pairwise_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    if u == 0 && opcode == 0b11011 {
        return (size == 0b11).then_some("ADDP (scalar)");
    }
    if u == 0 && size & 1 == 1 {
        return None;
    }
    let low = size >> 1 == 0;
    match opcode {
        0b01100 => Some(if low { "FMAXNMP (scalar)" } else { "FMINNMP (scalar)" }),
        0b01101 if low => Some("FADDP (scalar)"),
        0b01111 => Some(if low { "FMAXP (scalar)" } else { "FMINP (scalar)" }),
        _ => None,
    }
}

/// The page of an Advanced SIMD scalar three different instruction.
fn scalar_three_different_page(u: u32, size: u32, opcode: u32) -> Option<&'static str> {
    if u != 0 || !(size == 0b01 || size == 0b10) {
        return None;
    }
    match opcode {
        0b1001 => Some("SQDMLAL, SQDMLAL2 (vector)"),
        0b1011 => Some("SQDMLSL, SQDMLSL2 (vector)"),
        0b1101 => Some("SQDMULL, SQDMULL2 (vector)"),
        _ => None,
    }
}

/// The page of an Advanced SIMD scalar shift by immediate instruction.
fn scalar_shift_by_immediate_page(u: u32, immh: u32, opcode: u32) -> Option<&'static str> {
    // immh = 0000 is unallocated throughout; immh<3> = 1 is the 64-bit element the plain shifts need and the
    // narrowing ones refuse; the fixed-point conversions take 16-bit (FEAT_FP16), 32-bit and 64-bit elements.
    let any = immh != 0;
    let d_only = immh >> 3 == 1;
    let narrow_ok = any && !d_only;
    let fixed_ok = immh >> 1 != 0;
    let (page, allowed) = match (u, opcode) {
        (0, 0b00000) => ("SSHR", d_only),
        (0, 0b00010) => ("SSRA", d_only),
        (0, 0b00100) => ("SRSHR", d_only),
        (0, 0b00110) => ("SRSRA", d_only),
        (0, 0b01010) => ("SHL", d_only),
        (0, 0b01110) => ("SQSHL (immediate)", any),
        (0, 0b10010) => ("SQSHRN, SQSHRN2", narrow_ok),
        (0, 0b10011) => ("SQRSHRN, SQRSHRN2", narrow_ok),
        (0, 0b11100) => ("SCVTF (vector, fixed-point)", fixed_ok),
        (0, 0b11111) => ("FCVTZS (vector, fixed-point)", fixed_ok),
        (1, 0b00000) => ("USHR", d_only),
        (1, 0b00010) => ("USRA", d_only),
        (1, 0b00100) => ("URSHR", d_only),
        (1, 0b00110) => ("URSRA", d_only),
        (1, 0b01000) => ("SRI", d_only),
        (1, 0b01010) => ("SLI", d_only),
        (1, 0b01100) => ("SQSHLU", any),
        (1, 0b01110) => ("UQSHL (immediate)", any),
        (1, 0b10000) => ("SQSHRUN, SQSHRUN2", narrow_ok),
        (1, 0b10001) => ("SQRSHRUN, SQRSHRUN2", narrow_ok),
        (1, 0b10010) => ("UQSHRN, UQSHRN2", narrow_ok),
        (1, 0b10011) => ("UQRSHRN, UQRSHRN2", narrow_ok),
        (1, 0b11100) => ("UCVTF (vector, fixed-point)", fixed_ok),
        (1, 0b11111) => ("FCVTZU (vector, fixed-point)", fixed_ok),
        _ => return None,
    };
    allowed.then_some(page)
}

/// The page of an Advanced SIMD scalar x indexed element instruction.
fn scalar_indexed_element_page(u: u32, size: u32, l: u32, opcode: u32) -> Option<&'static str> {
    let integer_ok = size == 0b01 || size == 0b10;
    let fp_ok = fp_by_element_ok(size, l, None);
    let (page, allowed) = match (u, opcode) {
        (0, 0b0001) => ("FMLA (by element)", fp_ok),
        (0, 0b0101) => ("FMLS (by element)", fp_ok),
        (0, 0b1001) => ("FMUL (by element)", fp_ok),
        (1, 0b1001) => ("FMULX (by element)", fp_ok),
        (0, 0b0011) => ("SQDMLAL, SQDMLAL2 (by element)", integer_ok),
        (0, 0b0111) => ("SQDMLSL, SQDMLSL2 (by element)", integer_ok),
        (0, 0b1011) => ("SQDMULL, SQDMULL2 (by element)", integer_ok),
        (0, 0b1100) => ("SQDMULH (by element)", integer_ok),
        (0, 0b1101) => ("SQRDMULH (by element)", integer_ok),
        (1, 0b1101) => ("SQRDMLAH (by element)", integer_ok),
        (1, 0b1111) => ("SQRDMLSH (by element)", integer_ok),
        _ => return None,
    };
    allowed.then_some(page)
}

impl Exec<'_> {
    /// The class "Advanced SIMD scalar three same".
    pub(super) fn advanced_simd_scalar_three_same(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_three_same_page(u, size, opcode))
    }

    /// The class "Advanced SIMD scalar three same FP16".
    pub(super) fn advanced_simd_scalar_three_same_fp16(&mut self, word: u32, u: u32, a: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_three_same_fp16_page(u, a, opcode))
    }

    /// The class "Advanced SIMD scalar three same extra".
    pub(super) fn advanced_simd_scalar_three_same_extra(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_three_same_extra_page(u, size, opcode))
    }

    /// The class "Advanced SIMD scalar two-register miscellaneous".
    pub(super) fn advanced_simd_scalar_two_reg_misc(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_two_reg_misc_page(u, size, opcode))
    }

    /// The class "Advanced SIMD scalar two-register miscellaneous FP16".
    pub(super) fn advanced_simd_scalar_two_reg_misc_fp16(&mut self, word: u32, u: u32, a: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_two_reg_misc_fp16_page(u, a, opcode))
    }

    /// The class "Advanced SIMD scalar pairwise".
    pub(super) fn advanced_simd_scalar_pairwise(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_pairwise_page(u, size, opcode))
    }

    /// The class "Advanced SIMD scalar three different".
    pub(super) fn advanced_simd_scalar_three_different(&mut self, word: u32, u: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, scalar_three_different_page(u, size, opcode))
    }

    /// The class "Advanced SIMD scalar shift by immediate".
    pub(super) fn advanced_simd_scalar_shift_by_immediate(
        &mut self,
        word: u32,
        u: u32,
        immh: u32,
        opcode: u32,
    ) -> Step {
        self.not_implemented_page(word, scalar_shift_by_immediate_page(u, immh, opcode))
    }

    /// The class "Advanced SIMD scalar x indexed element".
    pub(super) fn advanced_simd_scalar_indexed_element(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        l: u32,
        opcode: u32,
    ) -> Step {
        self.not_implemented_page(word, scalar_indexed_element_page(u, size, l, opcode))
    }
}
