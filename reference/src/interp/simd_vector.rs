//! C4.1.96 Advanced SIMD vector data processing: the classes "three same" (and its FP16 and "three-register
//! extension" neighbours), "three different", "two-register miscellaneous" (and FP16), "across lanes", "modified
//! immediate", "shift by immediate" and "vector x indexed element".
//!
//! Each class handler is the class's table of the encoding index: it applies the decode section's UNDEFINED rules
//! of the page it selects and runs that page's operation, most of which `simd_ops.rs` shares with the scalar
//! classes.

use super::pseudocode::{
    adv_simd_expand_imm, elem, highest_set_bit, int, ones, ones128, polynomial_mult, replicate128, vfp_expand_imm,
};
use super::simd_ops::{
    Accumulate, Comparison, FpOp, FpThreeSame, IntegerOp, IntegerUnaryOp, Saturation, Shape, ShiftImmediate, broadcast,
    fp_by_element_esize, fp_by_element_ok, fp_three_same, fp_two_reg_misc, fp_width, indexed_element, map_elements,
    reduce, shift_by_immediate_same_size, shift_right_narrow_op,
};
use super::{Exec, Step};
use crate::float::{FpRounding, fp_convert, fp_rounding_mode};

/// `size:Q != '110'`: the 1D arrangement, which most integer instructions reject.
fn not_1d(size: u32, q: u32) -> bool {
    !(size == 0b11 && q == 0)
}

/// `sz:Q != '10'`: the 1D arrangement of the single/double-precision instructions (sz is size<0>).
fn fp_arrangement_ok(size: u32, q: u32) -> bool {
    !(size & 1 == 1 && q == 0)
}

/// The datasize of a vector: 64 bits (q = 0) or 128 (q = 1).
fn vector_datasize(q: u32) -> u32 {
    64 << q
}

/// How an integer "three same" instruction combines its operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntegerForm {
    Elementwise,
    /// SABA, UABA, MLA, MLS: the result accumulated into the destination.
    Accumulating(Accumulate),
    /// ADDP, SMAXP, UMAXP, SMINP, UMINP (vector).
    Pairwise,
}

/// The integer forms of "Advanced SIMD vector x indexed element" the interpreter and the fast path share (halfword
/// and word elements only): the operation, how it accumulates into V[rd], and whether it is long (V[rn]'s half
/// widened: SMULL, UMULL, SMLAL, UMLAL, SMLSL, UMLSL); `None` for the others (FP, the saturating doubling long and
/// accumulating forms, the dot products, unallocated encodings).
pub fn indexed_integer(u: u32, size: u32, opcode: u32) -> Option<(IntegerOp, Accumulate, bool)> {
    use IntegerOp::*;
    if size != 0b01 && size != 0b10 {
        return None;
    }
    Some(match (u, opcode) {
        (_, 0b0010) => (Multiply, Accumulate::Add, true),   // SMLAL, UMLAL
        (_, 0b0110) => (Multiply, Accumulate::Sub, true),   // SMLSL, UMLSL
        (_, 0b1010) => (Multiply, Accumulate::None, true),  // SMULL, UMULL
        (0, 0b1000) => (Multiply, Accumulate::None, false), // MUL
        (1, 0b0000) => (Multiply, Accumulate::Add, false),  // MLA
        (1, 0b0100) => (Multiply, Accumulate::Sub, false),  // MLS
        (0, 0b1100 | 0b1101) => (SaturatingDoublingMultiplyHigh { round: opcode == 0b1101 }, Accumulate::None, false), // SQDMULH, SQRDMULH
        _ => return None,
    })
}

/// SQDMLAL, SQDMLSL, SQDMULL (U 0, halfword and word elements): what the doubled product does to the destination,
/// from the opcode of "three different" (1001, 1011, 1101) or, `by_element`, of "x indexed element" (0011, 0111,
/// 1011), vector or scalar alike; `None` for every other instruction.
pub fn doubling_multiply_long(by_element: bool, u: u32, size: u32, opcode: u32) -> Option<Accumulate> {
    if u != 0 || !(size == 0b01 || size == 0b10) {
        return None;
    }
    Some(match (by_element, opcode) {
        (false, 0b1001) | (true, 0b0011) => Accumulate::Add,
        (false, 0b1011) | (true, 0b0111) => Accumulate::Sub,
        (false, 0b1101) | (true, 0b1011) => Accumulate::None,
        _ => return None,
    })
}

/// SQRDMLAH, SQRDMLSH (FEAT_RDM; U 1, halfword and word elements): whether the rounded doubled product's high half
/// is subtracted, from the opcode of "three-register extension" and "scalar three same extra" (0000, 0001) or,
/// `by_element`, of "x indexed element" (1101, 1111), vector or scalar alike; `None` for every other instruction.
pub fn rounding_doubling_accumulate(by_element: bool, u: u32, size: u32, opcode: u32) -> Option<bool> {
    if u != 1 || !(size == 0b01 || size == 0b10) {
        return None;
    }
    match (by_element, opcode) {
        (false, 0b0000) | (true, 0b1101) => Some(false),
        (false, 0b0001) | (true, 0b1111) => Some(true),
        _ => None,
    }
}

/// SDOT, UDOT (FEAT_DotProd: word lanes of four bytes): whether `opcode` of "three-register extension" (0010) or,
/// `by_element`, of "x indexed element" (1110) is one at `size`.
pub fn dot_product(by_element: bool, size: u32, opcode: u32) -> bool {
    size == 0b10 && opcode == if by_element { 0b1110 } else { 0b0010 }
}

/// The integer instructions of "three same" (every opcode but 00011, the bitwise ones, and 11xxx, the
/// floating-point ones), with whether `size` and `q` are allowed; `None` for the unallocated opcodes.
pub fn three_same_integer(q: u32, u: u32, size: u32, opcode: u32) -> Option<(IntegerOp, IntegerForm, bool)> {
    use IntegerForm::*;
    use IntegerOp::*;
    let no_d = size != 0b11;
    let any_but_1d = not_1d(size, q);
    let s_or_h = size == 0b01 || size == 0b10;
    let shift = |round, saturate| ShiftByRegister { round, saturate };
    Some(match (u, opcode) {
        (_, 0b00000) => (HalvingAdd { round: false }, Elementwise, no_d), // SHADD, UHADD
        (_, 0b00001) => (SaturatingAdd, Elementwise, any_but_1d),         // SQADD, UQADD
        (_, 0b00010) => (HalvingAdd { round: true }, Elementwise, no_d),  // SRHADD, URHADD
        (_, 0b00100) => (HalvingSub, Elementwise, no_d),                  // SHSUB, UHSUB
        (_, 0b00101) => (SaturatingSub, Elementwise, any_but_1d),         // SQSUB, UQSUB
        (_, 0b00110) => (CompareGreater, Elementwise, any_but_1d),        // CMGT, CMHI (register)
        (_, 0b00111) => (CompareGreaterOrEqual, Elementwise, any_but_1d), // CMGE, CMHS (register)
        (_, 0b01000) => (shift(false, false), Elementwise, any_but_1d),   // SSHL, USHL
        (_, 0b01001) => (shift(false, true), Elementwise, any_but_1d),    // SQSHL, UQSHL (register)
        (_, 0b01010) => (shift(true, false), Elementwise, any_but_1d),    // SRSHL, URSHL
        (_, 0b01011) => (shift(true, true), Elementwise, any_but_1d),     // SQRSHL, UQRSHL
        (_, 0b01100) => (Max, Elementwise, no_d),                         // SMAX, UMAX
        (_, 0b01101) => (Min, Elementwise, no_d),                         // SMIN, UMIN
        (_, 0b01110) => (AbsoluteDifference, Elementwise, no_d),          // SABD, UABD
        (_, 0b01111) => (AbsoluteDifference, Accumulating(Accumulate::Add), no_d), // SABA, UABA
        (0, 0b10000) => (Add, Elementwise, any_but_1d),                   // ADD (vector)
        (1, 0b10000) => (Sub, Elementwise, any_but_1d),                   // SUB (vector)
        (0, 0b10001) => (TestBits, Elementwise, any_but_1d),              // CMTST
        (1, 0b10001) => (CompareEqual, Elementwise, any_but_1d),          // CMEQ (register)
        (0, 0b10010) => (Multiply, Accumulating(Accumulate::Add), no_d),  // MLA (vector)
        (1, 0b10010) => (Multiply, Accumulating(Accumulate::Sub), no_d),  // MLS (vector)
        (0, 0b10011) => (Multiply, Elementwise, no_d),                    // MUL (vector)
        (1, 0b10011) => (PolynomialMultiply, Elementwise, size == 0b00),  // PMUL
        (_, 0b10100) => (Max, Pairwise, no_d),                            // SMAXP, UMAXP
        (_, 0b10101) => (Min, Pairwise, no_d),                            // SMINP, UMINP
        (_, 0b10110) => (SaturatingDoublingMultiplyHigh { round: u == 1 }, Elementwise, s_or_h), // SQDMULH, SQRDMULH
        (0, 0b10111) => (Add, Pairwise, any_but_1d),                      // ADDP (vector)
        _ => return None,
    })
}

/// What the modified immediate class's `op:cmode:o2` selects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ImmediateOp {
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
pub fn modified_immediate_op(q: u32, op: u32, cmode: u32, o2: u32) -> Option<ImmediateOp> {
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
        let datasize = vector_datasize(q);
        let (operand1, operand2) = (self.v(rn, datasize), self.v(rm, datasize));
        if opcode >> 3 == 0b11 {
            // The single and double-precision instructions: size<1> is part of the opcode, sz = size<0>.
            let Some(op) = fp_three_same(u, size >> 1, opcode).filter(|_| fp_arrangement_ok(size, q)) else {
                return self.unallocated(word);
            };
            self.fp_three_same(op, Shape { esize: 32 << (size & 1), datasize }, operand1, operand2, rd);
            return Ok(());
        }
        let Some((op, form, true)) = three_same_integer(q, u, size, opcode) else {
            return self.unallocated(word);
        };
        let (shape, unsigned) = (Shape::vector(size, q), u == 1);
        match form {
            IntegerForm::Elementwise => {
                self.integer_elementwise(op, Accumulate::None, shape, unsigned, operand1, operand2, rd)
            }
            IntegerForm::Accumulating(accumulate) => {
                self.integer_elementwise(op, accumulate, shape, unsigned, operand1, operand2, rd)
            }
            IntegerForm::Pairwise => self.integer_pairwise(op, shape, unsigned, operand1, operand2, rd),
        }
        Ok(())
    }

    /// A floating-point "three same" instruction of any precision.
    fn fp_three_same(&mut self, op: FpThreeSame, shape: Shape, operand1: u128, operand2: u128, d: u32) {
        match op {
            FpThreeSame::Elementwise(op) => self.fp_elementwise(op, shape, operand1, operand2, d),
            FpThreeSame::Pairwise(op) => self.fp_pairwise(op, shape, operand1, operand2, d),
            FpThreeSame::MultiplyAccumulate { subtract } => {
                self.fp_multiply_accumulate(subtract, shape, operand1, operand2, d)
            }
        }
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
    pub(super) fn advanced_simd_three_same_fp16(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        a: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(op) = fp_three_same(u, a, opcode) else { return self.unallocated(word) };
        let shape = Shape::vector(1, q);
        let (operand1, operand2) = (self.v(rn, shape.datasize), self.v(rm, shape.datasize));
        self.fp_three_same(op, shape, operand1, operand2, rd);
        Ok(())
    }

    /// The class "Advanced SIMD three-register extension": SDOT, UDOT (vector) and SQRDMLAH, SQRDMLSH (vector).
    /// FCMLA and FCADD (FEAT_FCMA), the BFloat16 and the int8 matrix instructions are not in the Cortex-A78C and
    /// stay unallocated.
    pub(super) fn advanced_simd_three_reg_extension(
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
        let shape = Shape::vector(size, q);
        let (operand1, operand2) = (self.v(rn, shape.datasize), self.v(rm, shape.datasize));
        if let Some(subtract) = rounding_doubling_accumulate(false, u, size, opcode) {
            self.saturating_rounding_doubling_multiply_accumulate_high(subtract, shape, operand1, operand2, rd);
        } else if dot_product(false, size, opcode) {
            self.dot_product(u == 1, shape, operand1, operand2, rd);
        } else {
            return self.unallocated(word);
        }
        Ok(())
    }

    /// The class "Advanced SIMD three different".
    pub(super) fn advanced_simd_three_different(
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
        use IntegerOp::*;
        let no_d = size != 0b11;
        let (esize, part, unsigned) = (8 << size, q, u == 1);
        let (operand1, operand2) = (self.vpart(rn, part, 64), self.vpart(rm, part, 64));
        if let Some(accumulate) = doubling_multiply_long(false, u, size, opcode) {
            self.saturating_doubling_multiply_long(accumulate, esize, 64 / esize, operand1, operand2, rd);
            return Ok(());
        }
        let (op, accumulate) = match (u, opcode) {
            (_, 0b0001 | 0b0011) if no_d => {
                // SADDW, UADDW, SSUBW, USUBW: the first operand has the wide elements already.
                let op = if opcode == 0b0001 { Add } else { Sub };
                let wide = self.v(rn, 128);
                let operand2 = widen(operand2, esize, unsigned);
                let shape = Shape { esize: 2 * esize, datasize: 128 };
                self.integer_elementwise(op, Accumulate::None, shape, unsigned, wide, operand2, rd);
                return Ok(());
            }
            (_, 0b0100 | 0b0110) if no_d => {
                // ADDHN, RADDHN, SUBHN, RSUBHN.
                self.add_sub_high_narrow(opcode == 0b0110, u == 1, esize, part, rn, rm, rd);
                return Ok(());
            }
            (0, 0b1110) if size == 0b00 || size == 0b11 => {
                self.polynomial_multiply_long(esize, operand1, operand2, rd);
                return Ok(());
            }
            (_, 0b0000) if no_d => (Add, Accumulate::None), // SADDL, UADDL
            (_, 0b0010) if no_d => (Sub, Accumulate::None), // SSUBL, USUBL
            (_, 0b0101) if no_d => (AbsoluteDifference, Accumulate::Add), // SABAL, UABAL
            (_, 0b0111) if no_d => (AbsoluteDifference, Accumulate::None), // SABDL, UABDL
            (_, 0b1000) if no_d => (Multiply, Accumulate::Add), // SMLAL, UMLAL (vector)
            (_, 0b1010) if no_d => (Multiply, Accumulate::Sub), // SMLSL, UMLSL (vector)
            (_, 0b1100) if no_d => (Multiply, Accumulate::None), // SMULL, UMULL (vector)
            _ => return self.unallocated(word),
        };
        self.long_elementwise(op, accumulate, esize, unsigned, operand1, operand2, rd);
        Ok(())
    }

    /// The lengthening integer instructions of "three different" and "vector x indexed element": the operation of
    /// `2 * esize`-bit elements made from the `esize`-bit elements of `operand1` and `operand2` (64 bits each),
    /// `Int(element, unsigned)` extended, into `V[d]` (128 bits).
    fn long_elementwise(
        &mut self,
        op: IntegerOp,
        accumulate: Accumulate,
        esize: u32,
        unsigned: bool,
        operand1: u128,
        operand2: u128,
        d: u32,
    ) {
        let shape = Shape { esize: 2 * esize, datasize: 128 };
        let (operand1, operand2) = (widen(operand1, esize, unsigned), widen(operand2, esize, unsigned));
        self.integer_elementwise(op, accumulate, shape, unsigned, operand1, operand2, d);
    }

    /// ADDHN, RADDHN (`subtract` false), SUBHN, RSUBHN: the high halves of the sums or differences of the
    /// `2 * esize`-bit elements, into `Vpart[d, part]`.
    fn add_sub_high_narrow(&mut self, subtract: bool, round: bool, esize: u32, part: u32, n: u32, m: u32, d: u32) {
        let (operand1, operand2) = (self.v(n, 128), self.v(m, 128));
        let round_const = if round { 1u64 << (esize - 1) } else { 0 };
        let result = map_elements(esize, 64 / esize, |e| {
            let (element1, element2) = (elem(operand1, e, 2 * esize), elem(operand2, e, 2 * esize));
            let sum = if subtract { element1.wrapping_sub(element2) } else { element1.wrapping_add(element2) };
            (sum.wrapping_add(round_const) & ones(2 * esize)) >> esize
        });
        self.set_vpart(d, part, result, 64);
    }

    /// PMULL, PMULL2: the polynomial products of 8-bit elements (16-bit results) or of one 64-bit element (a
    /// 128-bit result, FEAT_PMULL).
    fn polynomial_multiply_long(&mut self, esize: u32, operand1: u128, operand2: u128, d: u32) {
        let result = (0..64 / esize).fold(0u128, |result, e| {
            let product = polynomial_mult(elem(operand1, e, esize), elem(operand2, e, esize), esize);
            result | product << (2 * esize * e)
        });
        self.set_v(d, result, 128);
    }

    /// The class "Advanced SIMD two-register miscellaneous".
    pub(super) fn advanced_simd_two_reg_misc(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        use Comparison::*;
        use IntegerUnaryOp::*;
        let no_d = size != 0b11;
        let any_but_1d = not_1d(size, q);
        let (shape, unsigned, part) = (Shape::vector(size, q), u == 1, q);
        let operand = self.v(rn, shape.datasize);
        let esize = shape.esize;
        let unary = match (u, opcode) {
            // REV64, REV16, REV32: UInt(U:o0) + UInt(size) < 3.
            (0, 0b00000) if size < 3 => return self.reverse(64, shape, operand, rd),
            (0, 0b00001) if size < 1 => return self.reverse(16, shape, operand, rd),
            (1, 0b00000) if size < 2 => return self.reverse(32, shape, operand, rd),
            (_, 0b00010 | 0b00110) if no_d => {
                // SADDLP, UADDLP, SADALP, UADALP.
                self.add_long_pairwise(opcode == 0b00110, unsigned, shape, operand, rd);
                return Ok(());
            }
            (_, 0b00011) if any_but_1d => {
                self.saturating_accumulate(unsigned, shape, operand, rd); // SUQADD, USQADD
                return Ok(());
            }
            (0, 0b00100) if no_d => CountLeadingSignBits,
            (1, 0b00100) if no_d => CountLeadingZeroBits,
            (0, 0b00101) if size == 0b00 => CountBits,
            (1, 0b00101) if size == 0b00 => Not,
            // RBIT works on bytes; size = 01 selects it.
            (1, 0b00101) if size == 0b01 => {
                self.integer_unary_elementwise(ReverseBits, Shape::vector(0, q), operand, rd);
                return Ok(());
            }
            (0, 0b00111) if any_but_1d => SaturatingAbs,
            (1, 0b00111) if any_but_1d => SaturatingNeg,
            (0, 0b01000) if any_but_1d => CompareWithZero(Gt),
            (1, 0b01000) if any_but_1d => CompareWithZero(Ge),
            (0, 0b01001) if any_but_1d => CompareWithZero(Eq),
            (1, 0b01001) if any_but_1d => CompareWithZero(Le),
            (0, 0b01010) if any_but_1d => CompareWithZero(Lt),
            (0, 0b01011) if any_but_1d => Abs,
            (1, 0b01011) if any_but_1d => Neg,
            (_, 0b10010 | 0b10100) if no_d => {
                // XTN, SQXTN, SQXTUN, UQXTN.
                let saturation = match (u, opcode) {
                    (0, 0b10010) => Saturation::new(true, None),
                    (0, _) => Saturation::new(false, Some(false)),
                    (1, 0b10010) => Saturation::new(false, Some(true)),
                    _ => Saturation::new(true, Some(true)),
                };
                let wide = self.v(rn, 128);
                self.narrow_elements(saturation, esize, 64 / esize, part, wide, rd, |element| element);
                return Ok(());
            }
            (1, 0b10011) if no_d => {
                // SHLL, SHLL2: each element shifted left by its size into a double-width one.
                let operand = widen(self.vpart(rn, part, 64), esize, true);
                let result = map_elements(2 * esize, 64 / esize, |e| elem(operand, e, 2 * esize) << esize);
                self.set_v(rd, result, 128);
                return Ok(());
            }
            // FCVTN, FCVTXN (rounding to odd), FCVTL.
            (0, 0b10110) if size >> 1 == 0 => return self.fp_convert_narrow(None, size, part, rn, rd),
            (1, 0b10110) if size == 0b01 => return self.fp_convert_narrow(Some(FpRounding::Odd), size, part, rn, rd),
            (0, 0b10111) if size >> 1 == 0 => return self.fp_convert_long(size, part, rn, rd),
            // URECPE and URSQRTE take 32-bit elements only (sz = 0).
            (0, 0b11100) if size == 0b10 => UnsignedReciprocalEstimate,
            (1, 0b11100) if size == 0b10 => UnsignedReciprocalSqrtEstimate,
            _ => {
                let fp_op = fp_two_reg_misc(u, size >> 1, opcode).filter(|op| op.has_vector_form());
                let Some(fp_op) = fp_op.filter(|_| fp_arrangement_ok(size, q)) else {
                    return self.unallocated(word);
                };
                let shape = Shape { esize: 32 << (size & 1), datasize: shape.datasize };
                self.fp_unary_elementwise(fp_op, shape, operand, rd);
                return Ok(());
            }
        };
        self.integer_unary_elementwise(unary, shape, operand, rd);
        Ok(())
    }

    /// REV16, REV32, REV64 (vector): the order of the elements reversed within each `container_size`-bit
    /// container.
    fn reverse(&mut self, container_size: u32, shape: Shape, operand: u128, d: u32) -> Step {
        let elements_per_container = container_size / shape.esize;
        let result = map_elements(shape.esize, shape.elements(), |e| {
            elem(operand, e ^ (elements_per_container - 1), shape.esize)
        });
        self.set_v(d, result, shape.datasize);
        Ok(())
    }

    /// SADDLP, UADDLP (`accumulate` false), SADALP, UADALP: the sums of adjacent pairs of elements as elements
    /// twice as wide, added to the destination's for SADALP, UADALP.
    fn add_long_pairwise(&mut self, accumulate: bool, unsigned: bool, shape: Shape, operand: u128, d: u32) {
        let esize = shape.esize;
        let operand2 = if accumulate { self.v(d, shape.datasize) } else { 0 };
        let result = map_elements(2 * esize, shape.datasize / (2 * esize), |e| {
            let sum = int(elem(operand, 2 * e, esize), esize, unsigned)
                + int(elem(operand, 2 * e + 1, esize), esize, unsigned);
            elem(operand2, e, 2 * esize).wrapping_add(sum as u64)
        });
        self.set_v(d, result, shape.datasize);
    }

    /// FCVTN, FCVTN2 (`rounding` None: FPCR's) and FCVTXN, FCVTXN2 (round to odd): the `2 * esize`-bit elements of
    /// `V[n]` converted to `esize` bits (sz = size<0>: 32 to 16, 64 to 32) into `Vpart[d, part]`.
    pub(super) fn fp_convert_narrow(
        &mut self,
        rounding: Option<FpRounding>,
        size: u32,
        part: u32,
        n: u32,
        d: u32,
    ) -> Step {
        let esize = 16 << (size & 1);
        self.fp_convert_elements(rounding, esize, 2 * esize, part, 64 / esize, n, d);
        Ok(())
    }

    /// FCVTL, FCVTL2: the `esize`-bit elements of `Vpart[n, part]` converted to `2 * esize` bits (sz = size<0>: 16
    /// to 32, 32 to 64).
    fn fp_convert_long(&mut self, size: u32, part: u32, n: u32, d: u32) -> Step {
        let esize = 16 << (size & 1);
        let operand = self.vpart(n, part, 64);
        let (m, from) = (fp_width(2 * esize), fp_width(esize));
        let result = self.with_simd_fp_status(|fpcr, fpsr| {
            map_elements(2 * esize, 64 / esize, |e| {
                fp_convert(m, from, elem(operand, e, esize), fpcr, fp_rounding_mode(fpcr), fpsr)
            })
        });
        self.set_v(d, result, 128);
        Ok(())
    }

    /// The class "Advanced SIMD two-register miscellaneous (FP16)".
    pub(super) fn advanced_simd_two_reg_misc_fp16(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        a: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(op) = fp_two_reg_misc(u, a, opcode).filter(|op| op.has_vector_form()) else {
            return self.unallocated(word);
        };
        let shape = Shape::vector(1, q);
        let operand = self.v(rn, shape.datasize);
        self.fp_unary_elementwise(op, shape, operand, rd);
        Ok(())
    }

    /// The class "Advanced SIMD across lanes".
    pub(super) fn advanced_simd_across_lanes(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let shape = Shape::vector(size, q);
        let operand = self.v(rn, shape.datasize);
        let (esize, elements, unsigned) = (shape.esize, shape.elements(), u == 1);
        // The integer reductions need at least four lanes: no 2S, no D.
        let integer_ok = size != 0b11 && !(size == 0b10 && q == 0);
        let (op, wide) = match (u, opcode) {
            (_, 0b00011) if integer_ok => (IntegerOp::Add, true), // SADDLV, UADDLV
            (_, 0b01010) if integer_ok => (IntegerOp::Max, false), // SMAXV, UMAXV
            (_, 0b11010) if integer_ok => (IntegerOp::Min, false), // SMINV, UMINV
            (0, 0b11011) if integer_ok => (IntegerOp::Add, false), // ADDV
            (_, 0b01100 | 0b01111) => {
                // FMAXNMV, FMINNMV, FMAXV, FMINV: half precision (U = 0, sz = 0, any Q) or single precision (U = 1,
                // sz = 0, Q = 1); size<1> picks the minimum.
                if size & 1 == 1 || (u == 1 && q == 0) {
                    return self.unallocated(word);
                }
                let esize = if u == 0 { 16 } else { 32 };
                let op = match (opcode, size >> 1) {
                    (0b01100, 0) => FpOp::MaxNumber,
                    (0b01100, _) => FpOp::MinNumber,
                    (_, 0) => FpOp::Max,
                    _ => FpOp::Min,
                };
                self.fp_reduce(op, esize, shape.datasize / esize, operand, rd);
                return Ok(());
            }
            _ => return self.unallocated(word),
        };
        // The long sum adds the elements as integers of twice their size.
        let lane_size = if wide { 2 * esize } else { esize };
        let lanes: Vec<u64> =
            (0..elements).map(|e| int(elem(operand, e, esize), esize, unsigned) as u64 & ones(lane_size)).collect();
        let result = reduce(&lanes, &mut |lo, hi| op.apply(lo, hi, lane_size, unsigned).0);
        self.set_v(rd, result.into(), lane_size);
        Ok(())
    }

    /// The class "Advanced SIMD shift by immediate" (`immh` is never 0000 here: that is the modified immediate
    /// class).
    pub(super) fn advanced_simd_shift_by_immediate(
        &mut self,
        word: u32,
        q: u32,
        u: u32,
        immh: u32,
        immb: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(highest) = highest_set_bit(immh.into()) else { return self.unallocated(word) };
        let esize = 8 << highest;
        let immhb = immh << 3 | immb;
        let (shape, unsigned, part) = (Shape { esize, datasize: vector_datasize(q) }, u == 1, q);
        // immh<3> = 1 is 64-bit elements: no 1D arrangement, no narrowing or lengthening.
        let same_ok = !(immh >> 3 == 1 && q == 0);
        let narrow_ok = immh >> 3 == 0;
        if let Some(op) = shift_by_immediate_same_size(u, opcode) {
            // The fixed-point conversions: 16-bit (FEAT_FP16), 32-bit and 64-bit elements.
            let fixed = matches!(op, ShiftImmediate::FixedToFp | ShiftImmediate::FpToFixed);
            if !same_ok || (fixed && esize == 8) {
                return self.unallocated(word);
            }
            self.shift_by_immediate(op, shape, unsigned, immhb, rn, rd);
        } else if let Some((saturation, round)) = shift_right_narrow_op(u, opcode).filter(|_| narrow_ok) {
            self.shift_right_narrow(saturation, round, esize, 64 / esize, 2 * esize - immhb, part, rn, rd);
        } else if opcode == 0b10100 && narrow_ok {
            // SSHLL, USHLL (SXTL, UXTL): each element extended to twice its size and shifted left.
            let shift = immhb - esize;
            let operand = widen(self.vpart(rn, part, 64), esize, unsigned);
            let result =
                map_elements(2 * esize, 64 / esize, |e| elem(operand, e, 2 * esize) << shift & ones(2 * esize));
            self.set_v(rd, result, 128);
        } else {
            return self.unallocated(word);
        }
        Ok(())
    }

    /// The class "Advanced SIMD vector x indexed element". FMLAL/FMLSL (FEAT_FHM) and the BFloat16 and int8 dot
    /// products are not in the Cortex-A78C and stay unallocated.
    pub(super) fn advanced_simd_vector_indexed_element(
        &mut self,
        word: u32,
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
    ) -> Step {
        let fp_ok = fp_by_element_ok(size, l, Some(q));
        let (index, rm) = indexed_element(size, h, l, m, rm);
        let datasize = vector_datasize(q);
        let (unsigned, part) = (u == 1, q);
        let vm = self.v(rm, 128);
        let operand1 = self.v(rn, datasize);
        // The integer forms: the indexed element of `esize` bits in every lane of `datasize` bits.
        let esize = 8 << size;
        let shape = Shape { esize, datasize };
        let element = broadcast(elem(vm, index, esize), esize, datasize);
        let long_operand1 = self.vpart(rn, part, 64);
        let long_element = broadcast(elem(vm, index, esize), esize, 64);
        if let Some(accumulate) = doubling_multiply_long(true, u, size, opcode) {
            self.saturating_doubling_multiply_long(accumulate, esize, 64 / esize, long_operand1, long_element, rd);
            return Ok(());
        }
        if let Some(subtract) = rounding_doubling_accumulate(true, u, size, opcode) {
            self.saturating_rounding_doubling_multiply_accumulate_high(subtract, shape, operand1, element, rd);
            return Ok(());
        }
        if let Some((op, accumulate, long)) = indexed_integer(u, size, opcode) {
            if long {
                self.long_elementwise(op, accumulate, esize, unsigned, long_operand1, long_element, rd);
            } else {
                self.integer_elementwise(op, accumulate, shape, false, operand1, element, rd);
            }
            return Ok(());
        }
        match (u, opcode) {
            (0, 0b0001 | 0b0101 | 0b1001) | (1, 0b1001) if fp_ok => {
                let esize = fp_by_element_esize(size);
                let shape = Shape { esize, datasize };
                let element = broadcast(elem(vm, index, esize), esize, datasize);
                match (u, opcode) {
                    (0, 0b0001) => self.fp_multiply_accumulate(false, shape, operand1, element, rd), // FMLA
                    (0, 0b0101) => self.fp_multiply_accumulate(true, shape, operand1, element, rd),  // FMLS
                    (0, _) => self.fp_elementwise(FpOp::Multiply, shape, operand1, element, rd),     // FMUL
                    _ => self.fp_elementwise(FpOp::MultiplyExtended, shape, operand1, element, rd),  // FMULX
                }
            }
            _ if dot_product(true, size, opcode) => {
                // SDOT, UDOT (by element): the indexed group of four bytes in every 32-bit lane.
                self.dot_product(unsigned, shape, operand1, element, rd);
            }
            _ => return self.unallocated(word),
        }
        Ok(())
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

/// The `esize`-bit elements of the 64-bit `operand`, each `Int(element, unsigned)` as a `2 * esize`-bit element
/// of the 128-bit result: the operands of the lengthening instructions.
fn widen(operand: u128, esize: u32, unsigned: bool) -> u128 {
    map_elements(2 * esize, 64 / esize, |e| int(elem(operand, e, esize), esize, unsigned) as u64)
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
    fn integer_decode_follows_the_decode_sections() {
        assert_eq!(three_same_integer(1, 0, 0b11, 0b10000), Some((IntegerOp::Add, IntegerForm::Elementwise, true)));
        assert_eq!(three_same_integer(0, 0, 0b11, 0b10000).map(|t| t.2), Some(false)); // ADD .1d
        assert_eq!(three_same_integer(1, 1, 0b01, 0b10011).map(|t| t.2), Some(false)); // PMUL .8h
        assert_eq!(three_same_integer(1, 1, 0b00, 0b10111), None); // U = 1 ADDP
        assert_eq!(shift_by_immediate_same_size(0, 0b01000), None); // SRI is U = 1 only
        assert_eq!(shift_right_narrow_op(1, 0b10001).map(|t| t.1), Some(true)); // SQRSHRUN rounds
    }
}
