//! C4.1.96 Advanced SIMD scalar data processing: the classes "scalar three same" (and FP16 and "extra"), "scalar
//! three different", "scalar two-register miscellaneous" (and FP16), "scalar pairwise", "scalar shift by immediate"
//! and "scalar x indexed element". ("Advanced SIMD scalar copy" is with the other copies in `simd_permute.rs`.)
//!
//! The scalar forms share their pages, and so their operations, with the vector forms: each class handler applies
//! the UNDEFINED rules of the scalar encodings and runs the operation of `simd_ops.rs` on one element (the tables
//! the encoding index lays out alike for both, floating point and shifts, are there too).

use super::pseudocode::{elem, highest_set_bit};
use super::simd_ops::{
    Accumulate, Comparison, FpOp, FpThreeSame, IntegerOp, IntegerUnaryOp, Saturation, Shape, fp_by_element_esize,
    fp_by_element_ok, fp_three_same, fp_two_reg_misc, indexed_element, shift_by_immediate_same_size,
    shift_right_narrow_op,
};
use super::simd_vector::{doubling_multiply_long, rounding_doubling_accumulate};
use super::{Exec, Step};
use crate::float::FpRounding;

impl Exec<'_> {
    /// The class "Advanced SIMD scalar three same".
    pub(super) fn advanced_simd_scalar_three_same(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        use IntegerOp::*;
        if opcode >> 3 == 0b11 {
            // Floating point: sz = size<0> is the precision (any), size<1> part of the opcode.
            let esize = 32 << (size & 1);
            return self.scalar_fp_three_same(word, fp_three_same(u, size >> 1, opcode), esize, rm, rn, rd);
        }
        let d_only = size == 0b11;
        let s_or_h = size == 0b01 || size == 0b10;
        let shift = |round, saturate| ShiftByRegister { round, saturate };
        let (op, allowed) = match (u, opcode) {
            (_, 0b00001) => (SaturatingAdd, true),           // SQADD, UQADD
            (_, 0b00101) => (SaturatingSub, true),           // SQSUB, UQSUB
            (_, 0b00110) => (CompareGreater, d_only),        // CMGT, CMHI (register)
            (_, 0b00111) => (CompareGreaterOrEqual, d_only), // CMGE, CMHS (register)
            (_, 0b01000) => (shift(false, false), d_only),   // SSHL, USHL
            (_, 0b01001) => (shift(false, true), true),      // SQSHL, UQSHL (register)
            (_, 0b01010) => (shift(true, false), d_only),    // SRSHL, URSHL
            (_, 0b01011) => (shift(true, true), true),       // SQRSHL, UQRSHL
            (0, 0b10000) => (Add, d_only),                   // ADD (vector)
            (1, 0b10000) => (Sub, d_only),                   // SUB (vector)
            (0, 0b10001) => (TestBits, d_only),              // CMTST
            (1, 0b10001) => (CompareEqual, d_only),          // CMEQ (register)
            (_, 0b10110) => (SaturatingDoublingMultiplyHigh { round: u == 1 }, s_or_h), // SQDMULH, SQRDMULH
            _ => return self.unallocated(word),
        };
        if !allowed {
            return self.unallocated(word);
        }
        let shape = Shape::scalar(8 << size);
        let (operand1, operand2) = (self.v(rn, shape.datasize), self.v(rm, shape.datasize));
        self.integer_elementwise(op, Accumulate::None, shape, u == 1, operand1, operand2, rd);
        Ok(())
    }

    /// A floating-point instruction of "scalar three same" or "scalar three same FP16" on `esize`-bit scalars.
    fn scalar_fp_three_same(
        &mut self,
        word: u32,
        op: Option<FpThreeSame>,
        esize: u32,
        rm: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(FpThreeSame::Elementwise(op)) = op.filter(|op| op.has_scalar_form()) else {
            return self.unallocated(word);
        };
        let shape = Shape::scalar(esize);
        let (operand1, operand2) = (self.v(rn, esize), self.v(rm, esize));
        self.fp_elementwise(op, shape, operand1, operand2, rd);
        Ok(())
    }

    /// The class "Advanced SIMD scalar three same FP16".
    pub(super) fn advanced_simd_scalar_three_same_fp16(
        &mut self,
        word: u32,
        u: u32,
        a: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        self.scalar_fp_three_same(word, fp_three_same(u, a, opcode), 16, rm, rn, rd)
    }

    /// The class "Advanced SIMD scalar three same extra": SQRDMLAH, SQRDMLSH (FEAT_RDM).
    pub(super) fn advanced_simd_scalar_three_same_extra(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(subtract) = rounding_doubling_accumulate(false, u, size, opcode) else {
            return self.unallocated(word);
        };
        let shape = Shape::scalar(8 << size);
        let (operand1, operand2) = (self.v(rn, shape.datasize), self.v(rm, shape.datasize));
        self.saturating_rounding_doubling_multiply_accumulate_high(subtract, shape, operand1, operand2, rd);
        Ok(())
    }

    /// The class "Advanced SIMD scalar two-register miscellaneous".
    pub(super) fn advanced_simd_scalar_two_reg_misc(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        use Comparison::*;
        use IntegerUnaryOp::*;
        let d_only = size == 0b11;
        let no_d = size != 0b11;
        let esize = 8 << size;
        let shape = Shape::scalar(esize);
        let operand = self.v(rn, esize);
        let (op, allowed) = match (u, opcode) {
            (_, 0b00011) => {
                self.saturating_accumulate(u == 1, shape, operand, rd); // SUQADD, USQADD
                return Ok(());
            }
            (0, 0b00111) => (SaturatingAbs, true),         // SQABS
            (1, 0b00111) => (SaturatingNeg, true),         // SQNEG
            (0, 0b01000) => (CompareWithZero(Gt), d_only), // CMGT (zero)
            (1, 0b01000) => (CompareWithZero(Ge), d_only), // CMGE (zero)
            (0, 0b01001) => (CompareWithZero(Eq), d_only), // CMEQ (zero)
            (1, 0b01001) => (CompareWithZero(Le), d_only), // CMLE (zero)
            (0, 0b01010) => (CompareWithZero(Lt), d_only), // CMLT (zero)
            (0, 0b01011) => (Abs, d_only),                 // ABS
            (1, 0b01011) => (Neg, d_only),                 // NEG (vector)
            (0, 0b10100) | (1, 0b10010 | 0b10100) if no_d => {
                // SQXTN, SQXTUN, UQXTN: one element of twice the size, narrowed.
                let saturation = match (u, opcode) {
                    (0, _) => Saturation::new(false, Some(false)),
                    (1, 0b10010) => Saturation::new(false, Some(true)),
                    _ => Saturation::new(true, Some(true)),
                };
                let wide = self.v(rn, 2 * esize);
                self.narrow_elements(saturation, esize, 1, 0, wide, rd, |element| element);
                return Ok(());
            }
            (1, 0b10110) if size == 0b01 => {
                // FCVTXN: a double to a single, rounding to odd.
                self.fp_convert_elements(Some(FpRounding::Odd), 32, 64, 0, 1, rn, rd);
                return Ok(());
            }
            _ => return self.scalar_fp_two_reg_misc(word, u, size >> 1, opcode, 32 << (size & 1), rn, rd),
        };
        if !allowed {
            return self.unallocated(word);
        }
        self.integer_unary_elementwise(op, shape, operand, rd);
        Ok(())
    }

    /// A floating-point instruction of "scalar two-register miscellaneous" or its FP16 form on `esize`-bit
    /// scalars.
    fn scalar_fp_two_reg_misc(&mut self, word: u32, u: u32, a: u32, opcode: u32, esize: u32, rn: u32, rd: u32) -> Step {
        let Some(op) = fp_two_reg_misc(u, a, opcode).filter(|op| op.has_scalar_form()) else {
            return self.unallocated(word);
        };
        let operand = self.v(rn, esize);
        self.fp_unary_elementwise(op, Shape::scalar(esize), operand, rd);
        Ok(())
    }

    /// The class "Advanced SIMD scalar two-register miscellaneous FP16".
    pub(super) fn advanced_simd_scalar_two_reg_misc_fp16(
        &mut self,
        word: u32,
        u: u32,
        a: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        self.scalar_fp_two_reg_misc(word, u, a, opcode, 16, rn, rd)
    }

    /// The class "Advanced SIMD scalar pairwise": ADDP of the two doublewords, and the floating-point reductions
    /// of two elements (U = 0: half precision, size<0> = 0; U = 1: single and double precision by size<0>).
    pub(super) fn advanced_simd_scalar_pairwise(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if u == 0 && opcode == 0b11011 {
            // ADDP (scalar).
            if size != 0b11 {
                return self.unallocated(word);
            }
            let operand = self.v(rn, 128);
            let sum = elem(operand, 0, 64).wrapping_add(elem(operand, 1, 64));
            self.set_v(rd, sum.into(), 64);
            return Ok(());
        }
        if u == 0 && size & 1 == 1 {
            return self.unallocated(word);
        }
        let minimum = size >> 1 == 1;
        let op = match (opcode, minimum) {
            (0b01100, false) => FpOp::MaxNumber, // FMAXNMP (scalar)
            (0b01100, true) => FpOp::MinNumber,  // FMINNMP (scalar)
            (0b01101, false) => FpOp::Add,       // FADDP (scalar)
            (0b01111, false) => FpOp::Max,       // FMAXP (scalar)
            (0b01111, true) => FpOp::Min,        // FMINP (scalar)
            _ => return self.unallocated(word),
        };
        let esize = if u == 0 { 16 } else { 32 << (size & 1) };
        let operand = self.v(rn, 2 * esize);
        self.fp_reduce(op, esize, 2, operand, rd);
        Ok(())
    }

    /// The class "Advanced SIMD scalar three different": SQDMLAL, SQDMLSL, SQDMULL of one element.
    pub(super) fn advanced_simd_scalar_three_different(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(accumulate) = doubling_multiply_long(false, u, size, opcode) else {
            return self.unallocated(word);
        };
        let esize = 8 << size;
        let (operand1, operand2) = (self.v(rn, esize), self.v(rm, esize));
        self.saturating_doubling_multiply_long(accumulate, esize, 1, operand1, operand2, rd);
        Ok(())
    }

    /// The class "Advanced SIMD scalar shift by immediate".
    pub(super) fn advanced_simd_scalar_shift_by_immediate(
        &mut self,
        word: u32,
        u: u32,
        immh: u32,
        immb: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        // immh = 0000 is unallocated throughout.
        let Some(highest) = highest_set_bit(immh.into()) else { return self.unallocated(word) };
        let esize = 8 << highest;
        let immhb = immh << 3 | immb;
        let d_only = esize == 64;
        if let Some(op) = shift_by_immediate_same_size(u, opcode) {
            use super::simd_ops::ShiftImmediate::*;
            // The plain shifts and inserts need the 64-bit element; the saturating ones take any; the fixed-point
            // conversions take 16-bit (FEAT_FP16), 32-bit and 64-bit elements.
            let allowed = match op {
                Right { .. } | Left | InsertRight | InsertLeft => d_only,
                SaturatingLeft(_) => true,
                FixedToFp | FpToFixed => esize != 8,
            };
            if !allowed {
                return self.unallocated(word);
            }
            self.shift_by_immediate(op, Shape::scalar(esize), u == 1, immhb, rn, rd);
        } else if let Some((saturation, round)) = shift_right_narrow_op(u, opcode) {
            // SQSHRN, SQRSHRN, UQSHRN, UQRSHRN, SQSHRUN, SQRSHRUN: the 64-bit element cannot be narrowed, and the
            // scalar class has no SHRN, RSHRN.
            if d_only || saturation.saturate_unsigned.is_none() {
                return self.unallocated(word);
            }
            self.shift_right_narrow(saturation, round, esize, 1, 2 * esize - immhb, 0, rn, rd);
        } else {
            return self.unallocated(word);
        }
        Ok(())
    }

    /// The class "Advanced SIMD scalar x indexed element".
    pub(super) fn advanced_simd_scalar_indexed_element(
        &mut self,
        word: u32,
        u: u32,
        size: u32,
        l: u32,
        m: u32,
        rm: u32,
        opcode: u32,
        h: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let integer_ok = size == 0b01 || size == 0b10;
        let fp_ok = fp_by_element_ok(size, l, None);
        let (index, rm) = indexed_element(size, h, l, m, rm);
        let vm = self.v(rm, 128);
        if let Some(accumulate) = doubling_multiply_long(true, u, size, opcode) {
            // SQDMLAL, SQDMLSL, SQDMULL (by element).
            let esize = 8 << size;
            let (operand1, element) = (self.v(rn, esize), elem(vm, index, esize).into());
            self.saturating_doubling_multiply_long(accumulate, esize, 1, operand1, element, rd);
            return Ok(());
        }
        if let Some(subtract) = rounding_doubling_accumulate(true, u, size, opcode) {
            // SQRDMLAH, SQRDMLSH (by element).
            let shape = Shape::scalar(8 << size);
            let (operand1, element) = (self.v(rn, shape.esize), elem(vm, index, shape.esize).into());
            self.saturating_rounding_doubling_multiply_accumulate_high(subtract, shape, operand1, element, rd);
            return Ok(());
        }
        match (u, opcode) {
            (0, 0b0001 | 0b0101 | 0b1001) | (1, 0b1001) if fp_ok => {
                let esize = fp_by_element_esize(size);
                let shape = Shape::scalar(esize);
                let (operand1, element) = (self.v(rn, esize), elem(vm, index, esize).into());
                match (u, opcode) {
                    (0, 0b0001) => self.fp_multiply_accumulate(false, shape, operand1, element, rd), // FMLA
                    (0, 0b0101) => self.fp_multiply_accumulate(true, shape, operand1, element, rd),  // FMLS
                    (0, _) => self.fp_elementwise(FpOp::Multiply, shape, operand1, element, rd),     // FMUL
                    _ => self.fp_elementwise(FpOp::MultiplyExtended, shape, operand1, element, rd),  // FMULX
                }
            }
            (0, 0b1100 | 0b1101) if integer_ok => {
                // SQDMULH, SQRDMULH (by element).
                let esize = 8 << size;
                let shape = Shape::scalar(esize);
                let (operand1, element) = (self.v(rn, esize), elem(vm, index, esize).into());
                let op = IntegerOp::SaturatingDoublingMultiplyHigh { round: opcode == 0b1101 };
                self.integer_elementwise(op, Accumulate::None, shape, false, operand1, element, rd);
            }
            _ => return self.unallocated(word),
        }
        Ok(())
    }
}
