//! Advanced SIMD integer and bitwise operations on Cranelift vector types: the bitwise three-same group, every
//! integer operation of "three same" (elementwise, accumulating and pairwise; the shifts by register are
//! `simd_shift`'s), the modified immediates (MOVI, MVNI, ORR, BIC, FMOV (vector, immediate)), the reductions across
//! lanes (ADDV, SMAXV, UMAXV, SMINV, UMINV, SADDLV, UADDLV), the long and wide additions, subtractions, absolute
//! differences and multiplies, the saturating doubling long multiplies and the high-narrowing ADDHN, SUBHN, RADDHN,
//! RSUBHN of "three different", the two-register operations below (the long pairwise additions, SQABS, SQNEG, CLZ,
//! CLS, RBIT and the saturating narrowings among them), the integer forms by element; SQRDMLAH, SQRDMLSH, SDOT and
//! UDOT of "three-register extension"; the scalar three same and two-register classes' doubleword operations, as
//! the vector forms compute them. The saturating operations set FPSR.QC where a lane in use saturated. The decode is
//! the reference's (`interp::shared_decode`); anything else of these classes runs on the reference in place.

use super::simd_permute::{ByteSources, element_sources};
use super::{Flow, Lift, Lifter, Unlifted};
use crate::runtime::Runtime;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::interp::pseudocode::{adv_simd_expand_imm, replicate128, vfp_expand_imm};
use tandem_reference::interp::shared_decode::{
    Accumulate, ImmediateOp, IntegerForm, IntegerOp, dot_product, doubling_multiply_long, indexed_element,
    indexed_integer, modified_immediate_op, rounding_doubling_accumulate, three_same_integer,
};

fn v_offset(n: u32) -> i32 {
    (offset_of!(CpuState, v) + 16 * n as usize) as i32
}

/// The Cranelift vector type of `size` (8 << size bits per lane) over 128 bits.
pub(super) fn lanes(size: u32) -> Type {
    match size {
        0 => types::I8X16,
        1 => types::I16X8,
        2 => types::I32X4,
        _ => types::I64X2,
    }
}

/// The condition of CMGT, CMEQ, CMLT, CMGE, CMLE (zero) in the two-register classes, vector and scalar.
fn compare_with_zero(u: u32, opcode: u32) -> Option<IntCC> {
    Some(match (u, opcode) {
        (0, 0b01000) => IntCC::SignedGreaterThan,
        (0, 0b01001) => IntCC::Equal,
        (0, 0b01010) => IntCC::SignedLessThan,
        (1, 0b01000) => IntCC::SignedGreaterThanOrEqual,
        (1, 0b01001) => IntCC::SignedLessThanOrEqual,
        _ => return None,
    })
}

/// The ranges the saturating narrowing instructions clamp to.
#[derive(Clone, Copy)]
pub(super) enum Narrowing {
    /// SQXTN: signed to signed.
    Signed,
    /// UQXTN: unsigned to unsigned.
    Unsigned,
    /// SQXTUN: signed to unsigned.
    SignedToUnsigned,
}

/// FPSR.QC, the cumulative saturation flag.
const FPSR_QC: u64 = 1 << 27;

impl Lifter<'_> {
    /// All 128 bits of V[n] as `ty`.
    pub(super) fn vector(&mut self, n: u32, ty: Type) -> Value {
        self.b.ins().load(ty, super::host_flags(), self.cpu, v_offset(n))
    }

    /// The 128 bits of the vector `value` as another lane type (lanes numbered from the low end, as Arm's are).
    pub(super) fn lane_bitcast(&mut self, ty: Type, value: Value) -> Value {
        self.b.ins().bitcast(ty, MemFlagsData::new().with_endianness(Endianness::Little), value)
    }

    /// V[d] = lane 0 of the vector `value`, zero-extended: a scalar instruction's result.
    pub(super) fn set_first_lane(&mut self, d: u32, value: Value) {
        let first = self.b.ins().extractlane(value, 0);
        self.set_v(d, first);
    }

    /// V[d] = `value` (128 bits), or its low 64 bits zero-extended when `q` is 0; in one store either way (see
    /// `set_v`).
    pub(super) fn set_vector(&mut self, d: u32, value: Value, q: u32) {
        let value = if q == 0 {
            let low_half = [u64::MAX, 0].iter().flat_map(|half| half.to_le_bytes()).collect::<Vec<u8>>();
            let low_half = self.b.func.dfg.constants.insert(low_half.into());
            let mask = self.b.ins().vconst(types::I64X2, low_half);
            let doublewords = self.lane_bitcast(types::I64X2, value);
            self.b.ins().band(doublewords, mask)
        } else {
            value
        };
        self.set_cpu_field(value, v_offset(d) as usize);
    }

    /// The class "Advanced SIMD three same": the bitwise group and the integer operations but the rounding and
    /// saturating shifts by register and PMUL, elementwise, accumulating (SABA, UABA, MLA, MLS) and pairwise (ADDP,
    /// SMAXP, UMAXP, SMINP, UMINP).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_three_same(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if opcode == 0b00011 {
            return self.simd_bitwise(q, u, size, rm, rn, rd);
        }
        let Some((op, form, true)) = three_same_integer(q, u, size, opcode) else {
            return Err(Unlifted);
        };
        let unsigned = u == 1;
        let ty = lanes(size);
        let (a, b) = match form {
            IntegerForm::Pairwise => {
                let [first, second] = self.pair_halves(rn, rm, 1 << size, q);
                (self.lane_bitcast(ty, first), self.lane_bitcast(ty, second))
            }
            _ => (self.vector(rn, ty), self.vector(rm, ty)),
        };
        let result = self.integer_elementwise(op, unsigned, size, q, a, b);
        let result = match form {
            IntegerForm::Accumulating(accumulate) => self.accumulate(rd, result, accumulate),
            _ => result,
        };
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// The class "Advanced SIMD scalar three same", integer operations: of doublewords (every one but the doubling
    /// multiplies), and of bytes, halfwords and words the saturating ones (SQADD, UQADD, SQSUB, UQSUB, SQSHL,
    /// UQSHL, SQRSHL, UQRSHL; SQDMULH, SQRDMULH of halfwords and words). As the vector forms compute them (the
    /// decode is theirs: at size 3 the vector table allows exactly these among the elementwise operations) on
    /// lane 0 alone, lane 0 kept; FPSR.QC from it alone.
    pub(super) fn simd_scalar_three_same(&mut self, u: u32, size: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Lift {
        let any_size = matches!(opcode, 0b00001 | 0b00101 | 0b01001 | 0b01011)
            || (opcode == 0b10110 && matches!(size, 0b01 | 0b10));
        if (size != 0b11 && !any_size) || opcode >> 3 == 0b11 {
            return Err(Unlifted);
        }
        let Some((op, IntegerForm::Elementwise, true)) = three_same_integer(1, u, size, opcode) else {
            return Err(Unlifted);
        };
        let ty = lanes(size);
        let (a, b) = (self.vector(rn, ty), self.vector(rm, ty));
        let (a, b) = (self.first_lane_alone(a), self.first_lane_alone(b));
        let result = self.integer_elementwise(op, u == 1, size, 0, a, b);
        self.set_first_lane(rd, result);
        Ok(Flow::Next)
    }

    /// `op` on each pair of lanes of `a` and `b` (`lanes(size)`); only the lower half's lanes count when `q` is 0
    /// (the saturating operations' FPSR.QC looks at those alone).
    fn integer_elementwise(&mut self, op: IntegerOp, unsigned: bool, size: u32, q: u32, a: Value, b: Value) -> Value {
        let ty = lanes(size);
        let esize = 8i64 << size;
        match op {
            IntegerOp::Add => self.b.ins().iadd(a, b),
            IntegerOp::Sub => self.b.ins().isub(a, b),
            IntegerOp::CompareEqual => self.b.ins().icmp(IntCC::Equal, a, b),
            IntegerOp::TestBits => {
                let both = self.b.ins().band(a, b);
                let zero = self.iconst(ty, 0);
                self.b.ins().icmp(IntCC::NotEqual, both, zero)
            }
            IntegerOp::CompareGreater if unsigned => self.b.ins().icmp(IntCC::UnsignedGreaterThan, a, b),
            IntegerOp::CompareGreater => self.b.ins().icmp(IntCC::SignedGreaterThan, a, b),
            IntegerOp::CompareGreaterOrEqual if unsigned => self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, b),
            IntegerOp::CompareGreaterOrEqual => self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, a, b),
            IntegerOp::Max if unsigned => self.b.ins().umax(a, b),
            IntegerOp::Max => self.b.ins().smax(a, b),
            IntegerOp::Min if unsigned => self.b.ins().umin(a, b),
            IntegerOp::Min => self.b.ins().smin(a, b),
            // |a - b| = max - min, its low bits.
            IntegerOp::AbsoluteDifference => {
                let (high, low) = if unsigned {
                    (self.b.ins().umax(a, b), self.b.ins().umin(a, b))
                } else {
                    (self.b.ins().smax(a, b), self.b.ins().smin(a, b))
                };
                self.b.ins().isub(high, low)
            }
            // The sum or difference halved without the carry bit it needs: a + b = 2(a & b) + (a ^ b), and
            // a - b = (a ^ b) - 2(~a & b); the rounding sum is (a | b) - ((a ^ b) >> 1). The shift is arithmetic
            // for signed lanes.
            IntegerOp::HalvingAdd { round } => {
                let differing = self.b.ins().bxor(a, b);
                let half = self.lane_shift_right(differing, unsigned);
                if round {
                    let either = self.b.ins().bor(a, b);
                    self.b.ins().isub(either, half)
                } else {
                    let both = self.b.ins().band(a, b);
                    self.b.ins().iadd(both, half)
                }
            }
            IntegerOp::HalvingSub => {
                let differing = self.b.ins().bxor(a, b);
                let half = self.lane_shift_right(differing, unsigned);
                let borrow = self.b.ins().band_not(b, a);
                self.b.ins().isub(half, borrow)
            }
            IntegerOp::Multiply if size == 0 => {
                // No byte multiply on the host: the products of the 16-bit widened halves, their low bytes.
                let halves = [0, 1].map(|half| {
                    let (x, y) = if half == 0 {
                        (self.b.ins().uwiden_low(a), self.b.ins().uwiden_low(b))
                    } else {
                        (self.b.ins().uwiden_high(a), self.b.ins().uwiden_high(b))
                    };
                    let product = self.b.ins().imul(x, y);
                    self.lane_bitcast(types::I8X16, product)
                });
                let low_bytes: ByteSources = std::array::from_fn(|i| 2 * i as u8);
                self.shuffle_bytes(halves[0], halves[1], low_bytes)
            }
            IntegerOp::Multiply => self.b.ins().imul(a, b),
            IntegerOp::SaturatingAdd | IntegerOp::SaturatingSub => {
                let add = op == IntegerOp::SaturatingAdd;
                let wrapped = if add { self.b.ins().iadd(a, b) } else { self.b.ins().isub(a, b) };
                let saturated = match (size, add, unsigned) {
                    (0 | 1, true, true) => self.b.ins().uadd_sat(a, b),
                    (0 | 1, true, false) => self.b.ins().sadd_sat(a, b),
                    (0 | 1, false, true) => self.b.ins().usub_sat(a, b),
                    (0 | 1, false, false) => self.b.ins().ssub_sat(a, b),
                    // The host saturates bytes and halfwords only; wider lanes find their overflow in the
                    // wrapped result.
                    (_, true, true) => {
                        let carried = self.b.ins().icmp(IntCC::UnsignedLessThan, wrapped, a);
                        self.b.ins().bor(wrapped, carried)
                    }
                    (_, false, true) => {
                        let borrowed = self.b.ins().icmp(IntCC::UnsignedLessThan, a, b);
                        self.b.ins().band_not(wrapped, borrowed)
                    }
                    (_, _, false) => {
                        // Overflow: the operands' signs allow it (equal for a sum, different for a difference)
                        // and the result's differs from a's. It saturates towards a's sign.
                        let from_a = self.b.ins().bxor(wrapped, a);
                        let allowed = if add { self.b.ins().bxor(wrapped, b) } else { self.b.ins().bxor(a, b) };
                        let overflow = self.b.ins().band(from_a, allowed);
                        let overflow = self.b.ins().sshr_imm_u(overflow, esize - 1);
                        let sign = self.b.ins().sshr_imm_u(a, esize - 1);
                        let max = self.iconst(ty, (1u64 << (esize - 1)) - 1);
                        let limit = self.b.ins().bxor(sign, max);
                        self.b.ins().bitselect(overflow, limit, wrapped)
                    }
                };
                self.raise_saturation(wrapped, saturated, q);
                saturated
            }
            IntegerOp::ShiftByRegister { round, saturate } => {
                self.shift_by_register(a, b, unsigned, round, saturate, q)
            }
            IntegerOp::SaturatingDoublingMultiplyHigh { round } => self.doubling_multiply_high(a, b, size, q, round),
            IntegerOp::PolynomialMultiply => self.polynomial_multiply(types::I8X16, a, b),
        }
    }

    /// PMUL (bytes) and PMULL (bytes widened to halfwords, `ty`): each lane's carry-less product with the byte in
    /// `b`'s lane, kept to the lane's bits: the XOR of `a` shifted left by each bit position where `b` has a one.
    fn polynomial_multiply(&mut self, ty: Type, a: Value, b: Value) -> Value {
        let one = self.iconst(ty, 1);
        let mut product = self.iconst(ty, 0);
        for bit in 0..8 {
            let set = self.b.ins().ushr_imm_u(b, bit);
            let set = self.b.ins().band(set, one);
            let mask = self.b.ins().ineg(set);
            let shifted = self.b.ins().ishl_imm_u(a, bit);
            let term = self.b.ins().band(shifted, mask);
            product = self.b.ins().bxor(product, term);
        }
        product
    }

    /// SQDMULH, SQRDMULH (`round`) on halfword or word lanes: the high half of each 2ab (plus 2^(esize-1) when
    /// rounding), computed as (ab [+ 2^(esize-2)]) >> (esize-1) on lanes widened to twice their size, where it is
    /// exact. Only MIN x MIN overflows (to 2^(esize-1), whose low half is MIN): those lanes saturate to MAX.
    fn doubling_multiply_high(&mut self, a: Value, b: Value, size: u32, q: u32, round: bool) -> Value {
        let (ty, wide, esize) = (lanes(size), lanes(size + 1), 8u32 << size);
        let mut halves = [a; 2];
        for (half, upper) in halves.iter_mut().zip([false, true]) {
            let (a, b) = if upper {
                (self.b.ins().swiden_high(a), self.b.ins().swiden_high(b))
            } else {
                (self.b.ins().swiden_low(a), self.b.ins().swiden_low(b))
            };
            let mut product = self.b.ins().imul(a, b);
            if round {
                let rounding = self.iconst(wide, 1 << (esize - 2));
                product = self.b.ins().iadd(product, rounding);
            }
            let high = self.b.ins().sshr_imm_u(product, i64::from(esize - 1));
            *half = self.lane_bitcast(types::I8X16, high);
        }
        let wrapped = self.low_halves(halves, size);
        let min = self.iconst(ty, 1 << (esize - 1));
        let (a_min, b_min) = (self.b.ins().icmp(IntCC::Equal, a, min), self.b.ins().icmp(IntCC::Equal, b, min));
        let overflow = self.b.ins().band(a_min, b_min);
        let max = self.iconst(ty, (1 << (esize - 1)) - 1);
        let saturated = self.b.ins().bitselect(overflow, max, wrapped);
        self.raise_saturation(wrapped, saturated, q);
        saturated
    }

    /// SADDLP, UADDLP and (`accumulate`) SADALP, UADALP: each pair of adjacent lanes widened and added, into a lane
    /// of twice their size (added to V[rd]'s).
    fn add_long_pairwise(&mut self, q: u32, unsigned: bool, accumulate: bool, size: u32, rn: u32, rd: u32) -> Lift {
        let [first, second] = self.pair_halves(rn, rn, 1 << size, q);
        let [first, second] = [first, second].map(|half| {
            let half = self.lane_bitcast(lanes(size), half);
            if unsigned { self.b.ins().uwiden_low(half) } else { self.b.ins().swiden_low(half) }
        });
        let mut result = self.b.ins().iadd(first, second);
        if accumulate {
            let d = self.vector(rd, lanes(size + 1));
            result = self.b.ins().iadd(d, result);
        }
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// SQABS, SQNEG (`negate`): the absolute value or negation, the most negative number (the one lane value
    /// whose result wraps, to itself) saturating to the most positive.
    fn saturating_abs_neg(&mut self, q: u32, negate: bool, size: u32, rn: u32, rd: u32) -> Lift {
        let ty = lanes(size);
        let n = self.vector(rn, ty);
        let wrapped = if negate { self.b.ins().ineg(n) } else { self.b.ins().iabs(n) };
        let most_negative = self.iconst(ty, 1u64 << ((8 << size) - 1));
        let overflow = self.b.ins().icmp(IntCC::Equal, n, most_negative);
        // The most negative number with every bit flipped is the most positive.
        let saturated = self.b.ins().bxor(wrapped, overflow);
        self.raise_saturation(wrapped, saturated, q);
        self.set_vector(rd, saturated, q);
        Ok(Flow::Next)
    }

    /// SQXTN, UQXTN, SQXTUN and the saturating narrowing shifts (and their "2" forms): each lane of `n` (of
    /// 16 << `size` bits) clamped to the narrow lane's range, then narrowed as XTN does into V[rd]; FPSR.QC where a
    /// clamp changed a lane (all lanes of the source are in use).
    pub(super) fn saturating_narrow(&mut self, n: Value, kind: Narrowing, size: u32, q: u32, rd: u32) {
        let ty = lanes(size + 1);
        let bits = 8u32 << size;
        let clamped = match kind {
            Narrowing::Signed => {
                let high = self.iconst(ty, (1u64 << (bits - 1)) - 1);
                let low = self.iconst(ty, (1u64 << (bits - 1)).wrapping_neg());
                let below = self.b.ins().smin(n, high);
                self.b.ins().smax(below, low)
            }
            Narrowing::Unsigned => {
                let high = self.iconst(ty, (1u64 << bits) - 1);
                self.b.ins().umin(n, high)
            }
            Narrowing::SignedToUnsigned => {
                let high = self.iconst(ty, (1u64 << bits) - 1);
                let zero = self.iconst(ty, 0);
                let above = self.b.ins().smax(n, zero);
                self.b.ins().smin(above, high)
            }
        };
        self.raise_saturation(n, clamped, 1);
        let bytes = self.lane_bitcast(types::I8X16, clamped);
        self.narrow_into(bytes, size, q, rd);
    }

    /// Each lane shifted right by one, arithmetically unless `unsigned`.
    pub(super) fn lane_shift_right(&mut self, value: Value, unsigned: bool) -> Value {
        if unsigned { self.b.ins().ushr_imm_u(value, 1) } else { self.b.ins().sshr_imm_u(value, 1) }
    }

    /// FPSR.QC |= whether any lane in use (the lower half's when `q` is 0) saturated: its saturated result differs
    /// from the wrapped one exactly then (the wrapped one of an overflow lies on the other side of the range).
    pub(super) fn raise_saturation(&mut self, wrapped: Value, saturated: Value, q: u32) {
        let differ = self.b.ins().icmp(IntCC::NotEqual, wrapped, saturated);
        let differ = self.lane_bitcast(types::I64X2, differ);
        let differ = if q == 0 {
            let low = self.b.ins().extractlane(differ, 0);
            self.b.ins().icmp_imm_u(IntCC::NotEqual, low, 0)
        } else {
            self.b.ins().vany_true(differ)
        };
        let fpsr = self.cpu_field(types::I32, offset_of!(CpuState, fpsr));
        let qc = self.iconst(types::I32, FPSR_QC);
        let zero = self.iconst(types::I32, 0);
        let flag = self.b.ins().select(differ, qc, zero);
        let fpsr = self.b.ins().bor(fpsr, flag);
        self.set_cpu_field(fpsr, offset_of!(CpuState, fpsr));
    }

    /// The class "Advanced SIMD scalar two-register miscellaneous", its integer operations of doublewords (the size
    /// they take): ABS, NEG and the compares with zero, lane 0 of the vector forms' computation.
    pub(super) fn simd_scalar_integer_two_reg_misc(
        &mut self,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if size != 0b11 {
            return Err(Unlifted);
        }
        let n = self.vector(rn, types::I64X2);
        let result = match (u, opcode) {
            (0, 0b01011) => self.b.ins().iabs(n),
            (1, 0b01011) => self.b.ins().ineg(n),
            _ => {
                let condition = compare_with_zero(u, opcode).ok_or(Unlifted)?;
                let zero = self.iconst(types::I64X2, 0);
                self.b.ins().icmp(condition, n, zero)
            }
        };
        self.set_first_lane(rd, result);
        Ok(Flow::Next)
    }

    /// The integer operations of "Advanced SIMD two-register miscellaneous" that need only the lanes: REV64,
    /// REV32, REV16, XTN (`simd_permute`), CNT, NOT, CMGT, CMEQ, CMLT, CMGE, CMLE (with zero), ABS, NEG.
    pub(super) fn simd_integer_two_reg_misc(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let doubleword_elements = size == 0b11;
        let condition = match (u, opcode) {
            (0, 0b00000) => return self.simd_reverse(q, size, 8, rn, rd),
            (1, 0b00000) => return self.simd_reverse(q, size, 4, rn, rd),
            (0, 0b00001) => return self.simd_reverse(q, size, 2, rn, rd),
            (0, 0b10010) => return self.simd_extract_narrow(q, size, rn, rd),
            (_, 0b00101) if size == 0 => {
                let n = self.vector(rn, types::I8X16);
                let result = if u == 0 { self.b.ins().popcnt(n) } else { self.b.ins().bnot(n) };
                self.set_vector(rd, result, q);
                return Ok(Flow::Next);
            }
            (_, 0b00100) if !doubleword_elements => return self.count_leading(q, u == 1, size, rn, rd),
            (1, 0b00101) if size == 1 => return self.reverse_bits(q, rn, rd),
            (_, 0b01011) if !(doubleword_elements && q == 0) => {
                let n = self.vector(rn, lanes(size));
                let result = if u == 0 { self.b.ins().iabs(n) } else { self.b.ins().ineg(n) };
                self.set_vector(rd, result, q);
                return Ok(Flow::Next);
            }
            (_, 0b00010 | 0b00110) if !doubleword_elements => {
                return self.add_long_pairwise(q, u == 1, opcode == 0b00110, size, rn, rd);
            }
            (_, 0b00111) if !(doubleword_elements && q == 0) => {
                return self.saturating_abs_neg(q, u == 1, size, rn, rd);
            }
            (_, 0b10100) | (1, 0b10010) if !doubleword_elements => {
                // SQXTN, UQXTN; SQXTUN.
                let kind = match (u, opcode) {
                    (0, 0b10100) => Narrowing::Signed,
                    (1, 0b10100) => Narrowing::Unsigned,
                    _ => Narrowing::SignedToUnsigned,
                };
                let n = self.vector(rn, lanes(size + 1));
                self.saturating_narrow(n, kind, size, q, rd);
                return Ok(Flow::Next);
            }
            _ => compare_with_zero(u, opcode).ok_or(Unlifted)?,
        };
        if doubleword_elements && q == 0 {
            return Err(Unlifted);
        }
        let ty = lanes(size);
        let n = self.vector(rn, ty);
        let zero = self.iconst(ty, 0);
        let result = self.b.ins().icmp(condition, n, zero);
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// CLZ and (`zeros` false) CLS: each lane's leading zero bits, or the bits after its sign bit that equal it,
    /// counted lane by lane in 32 bits: the lane zero-extended (CLZ) or sign-extended (CLS, the count of
    /// x EOR (x >> 31) less one), less the bits the extension put on top.
    fn count_leading(&mut self, q: u32, zeros: bool, size: u32, rn: u32, rd: u32) -> Lift {
        let ty = lanes(size);
        let lane_type = ty.lane_type();
        let extension = i64::from(32 - lane_type.bits());
        let n = self.vector(rn, ty);
        let mut result = n;
        for lane in 0..ty.lane_count() as u8 {
            let x = self.b.ins().extractlane(n, lane);
            let wide = match (lane_type == types::I32, zeros) {
                (true, _) => x,
                (false, true) => self.b.ins().uextend(types::I32, x),
                (false, false) => self.b.ins().sextend(types::I32, x),
            };
            let count = if zeros {
                let leading = self.b.ins().clz(wide);
                self.b.ins().iadd_imm_s(leading, -extension)
            } else {
                let sign = self.b.ins().sshr_imm_u(wide, 31);
                let differing = self.b.ins().bxor(wide, sign);
                let leading = self.b.ins().clz(differing);
                self.b.ins().iadd_imm_s(leading, -1 - extension)
            };
            let count = if lane_type == types::I32 { count } else { self.b.ins().ireduce(lane_type, count) };
            result = self.b.ins().insertlane(result, count, lane);
        }
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// RBIT (vector): each byte's bits reversed, a nibble at a time through a table of the sixteen nibbles
    /// reversed (the host's byte shuffle): the low nibble's into the high one, the high one's into the low one.
    fn reverse_bits(&mut self, q: u32, rn: u32, rd: u32) -> Lift {
        let n = self.vector(rn, types::I8X16);
        let reversed: Vec<u8> = (0..16u8).map(|nibble| nibble.reverse_bits() >> 4).collect();
        let table = self.b.func.dfg.constants.insert(reversed.into());
        let table = self.b.ins().vconst(types::I8X16, table);
        let low_mask = self.iconst(types::I8X16, 0x0f);
        let low = self.b.ins().band(n, low_mask);
        let high = self.b.ins().ushr_imm_u(n, 4);
        let from_low = self.b.ins().swizzle(table, low);
        let from_low = self.b.ins().ishl_imm_u(from_low, 4);
        let from_high = self.b.ins().swizzle(table, high);
        let result = self.b.ins().bor(from_low, from_high);
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// ADDV, SMAXV, UMAXV, SMINV, UMINV (the class "Advanced SIMD across lanes"): the lanes combined pairwise, the
    /// upper half onto the lower one until one lane is left, into V[rd] zero-extended.
    pub(super) fn simd_across_lanes(&mut self, q: u32, u: u32, size: u32, opcode: u32, rn: u32, rd: u32) -> Lift {
        if size == 0b11 || (size == 0b10 && q == 0) {
            return Err(Unlifted);
        }
        let unsigned = u == 1;
        let lane_bytes = 1usize << size;
        let n = self.vector(rn, lanes(size));
        if opcode == 0b00011 {
            // SADDLV, UADDLV: the lanes widened to twice their size (no sum of them can overflow that), the upper
            // half's added to the lower's, then reduced like ADDV.
            let widen = |lifter: &mut Self, high: bool| match (unsigned, high) {
                (true, false) => lifter.b.ins().uwiden_low(n),
                (true, true) => lifter.b.ins().uwiden_high(n),
                (false, false) => lifter.b.ins().swiden_low(n),
                (false, true) => lifter.b.ins().swiden_high(n),
            };
            let mut wide = widen(self, false);
            if q == 1 {
                let high = widen(self, true);
                wide = self.b.ins().iadd(wide, high);
            }
            let sum = self.reduce_lanes(wide, IntegerOp::Add, unsigned, 8 / lane_bytes);
            self.set_v(rd, sum);
            return Ok(Flow::Next);
        }
        let combine = match (u, opcode) {
            (0, 0b11011) => IntegerOp::Add,
            (_, 0b01010) => IntegerOp::Max,
            (_, 0b11010) => IntegerOp::Min,
            _ => return Err(Unlifted),
        };
        let width = if q == 1 { 16 / lane_bytes } else { 8 / lane_bytes };
        let result = self.reduce_lanes(n, combine, unsigned, width);
        self.set_v(rd, result);
        Ok(Flow::Next)
    }

    /// The first `width` (a power of two) lanes of `vector` combined by `combine` (ADD, MAX or MIN) into one, by a
    /// tree of shuffles; its lane type's scalar.
    fn reduce_lanes(&mut self, vector: Value, combine: IntegerOp, unsigned: bool, mut width: usize) -> Value {
        let ty = self.b.func.dfg.value_type(vector);
        let lane_bytes = ty.lane_bits() as usize / 8;
        let mut combined = vector;
        while width > 1 {
            width /= 2;
            // Lanes [width, 2 width) moved down onto [0, width); the lanes above do not matter any more.
            let bytes = self.lane_bitcast(types::I8X16, combined);
            let sources: [u8; 16] = std::array::from_fn(|byte| ((byte + width * lane_bytes) % 16) as u8);
            let moved = self.shuffle_bytes(bytes, bytes, sources);
            let moved = self.lane_bitcast(ty, moved);
            combined = match (combine, unsigned) {
                (IntegerOp::Add, _) => self.b.ins().iadd(combined, moved),
                (IntegerOp::Max, true) => self.b.ins().umax(combined, moved),
                (IntegerOp::Max, false) => self.b.ins().smax(combined, moved),
                (_, true) => self.b.ins().umin(combined, moved),
                (_, false) => self.b.ins().smin(combined, moved),
            };
        }
        self.b.ins().extractlane(combined, 0)
    }

    /// SADDL, UADDL, SADDW, UADDW, SSUBL, USUBL, SSUBW, USUBW, SABAL, UABAL, SABDL, UABDL, SMLAL, UMLAL, SMLSL,
    /// UMLSL, SMULL, UMULL (and their "2" forms, on the upper halves) of the class "Advanced SIMD three different":
    /// the narrow operands extended to twice their size first, where every sum, difference and product is exact
    /// (modulo the wide size).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_three_different(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if let Some(accumulate) = doubling_multiply_long(false, u, size, opcode) {
            let (n, m) = (self.vector(rn, lanes(size)), self.vector(rm, lanes(size)));
            let (n, m) = (self.widen_half(n, false, q == 1), self.widen_half(m, false, q == 1));
            let result = self.saturating_doubling_multiply_long(n, m, size, accumulate, rd);
            self.set_vector(rd, result, 1);
            return Ok(Flow::Next);
        }
        if (u, opcode) == (0, 0b1110) {
            return self.polynomial_multiply_long(q, size, rm, rn, rd);
        }
        if size == 0b11 || !matches!(opcode, 0b0000..=0b1000 | 0b1010 | 0b1100) {
            return Err(Unlifted);
        }
        let (narrow, wide) = (lanes(size), lanes(size + 1));
        if matches!(opcode, 0b0100 | 0b0110) {
            // ADDHN, SUBHN and (U set) RADDHN, RSUBHN, and their "2" forms: the high half of each wide lane's sum
            // or difference (plus half its low half's range, rounding), narrowed as XTN does.
            let (n, m) = (self.vector(rn, wide), self.vector(rm, wide));
            let mut result = if opcode == 0b0100 { self.b.ins().iadd(n, m) } else { self.b.ins().isub(n, m) };
            let esize = 8u32 << size;
            if u == 1 {
                let round = self.iconst(wide, 1 << (esize - 1));
                result = self.b.ins().iadd(result, round);
            }
            let high = self.b.ins().ushr_imm_u(result, i64::from(esize));
            let bytes = self.lane_bitcast(types::I8X16, high);
            self.narrow_into(bytes, size, q, rd);
            return Ok(Flow::Next);
        }
        let widened = |lifter: &mut Self, register: u32| {
            let value = lifter.vector(register, narrow);
            lifter.widen_half(value, u == 1, q == 1)
        };
        // The "wide" forms (ADDW, SUBW) take V[rn] as it is.
        let n = if matches!(opcode, 0b0001 | 0b0011) { self.vector(rn, wide) } else { widened(self, rn) };
        let m = widened(self, rm);
        let result = match opcode {
            0b0000 | 0b0001 => self.b.ins().iadd(n, m),
            0b0010 | 0b0011 => self.b.ins().isub(n, m),
            0b1100 => self.b.ins().imul(n, m),
            // SABAL, UABAL, SABDL, UABDL: the difference of lanes widened is exact.
            0b0101 | 0b0111 => {
                let difference = self.b.ins().isub(n, m);
                let absolute = self.b.ins().iabs(difference);
                let accumulate = if opcode == 0b0101 { Accumulate::Add } else { Accumulate::None };
                self.accumulate(rd, absolute, accumulate)
            }
            _ => {
                let product = self.b.ins().imul(n, m);
                let accumulate = if opcode == 0b1000 { Accumulate::Add } else { Accumulate::Sub };
                self.accumulate(rd, product, accumulate)
            }
        };
        self.set_vector(rd, result, 1);
        Ok(Flow::Next)
    }

    /// PMULL, PMULL2: the bytes of the lower (upper) half widened to halfwords and multiplied there, where each
    /// carry-less product fits; or the 64-bit element's 128-bit product through the runtime (FEAT_PMULL), as
    /// Cranelift has no carry-less multiply. Sizes 1 and 2 are reserved: the reference's.
    fn polynomial_multiply_long(&mut self, q: u32, size: u32, rm: u32, rn: u32, rd: u32) -> Lift {
        let upper = q == 1;
        let product = match size {
            0 => {
                let (n, m) = (self.vector(rn, types::I8X16), self.vector(rm, types::I8X16));
                let (n, m) = (self.widen_half(n, true, upper), self.widen_half(m, true, upper));
                self.polynomial_multiply(types::I16X8, n, m)
            }
            0b11 => {
                let (n, m) = (self.vector(rn, types::I64X2), self.vector(rm, types::I64X2));
                let lane = u8::from(upper);
                let (n, m) = (self.b.ins().extractlane(n, lane), self.b.ins().extractlane(m, lane));
                let [low, high] = [offset_of!(Runtime, carry_less_low), offset_of!(Runtime, carry_less_high)]
                    .map(|helper| self.call_runtime(helper, &[types::I64; 2], types::I64, &[n, m]));
                let zero = self.iconst(types::I64X2, 0);
                let low = self.b.ins().insertlane(zero, low, 0);
                self.b.ins().insertlane(low, high, 1)
            }
            _ => return Err(Unlifted),
        };
        self.set_vector(rd, product, 1);
        Ok(Flow::Next)
    }

    /// `vector` with every lane but lane 0 zero: a scalar operand computed by the vector forms, whose other lanes
    /// then neither saturate (nor set FPSR.QC) nor change what they are added to.
    fn first_lane_alone(&mut self, vector: Value) -> Value {
        let ty = self.b.func.dfg.value_type(vector);
        let first = self.b.ins().extractlane(vector, 0);
        let zero = self.iconst(ty, 0);
        self.b.ins().insertlane(zero, first, 0)
    }

    /// SQDMLAL, SQDMLSL, SQDMULL (scalar): lane 0 of V[rn] and V[rm] alone (the other lanes zeros, whose products
    /// neither saturate nor set FPSR.QC, nor do they change V[rd]'s lanes) computed as the vector forms are; V[rd]
    /// takes lane 0 of the result, zero-extended.
    pub(super) fn simd_scalar_three_different(
        &mut self,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let accumulate = doubling_multiply_long(false, u, size, opcode).ok_or(Unlifted)?;
        let ty = lanes(size);
        let [n, m] = [rn, rm].map(|register| {
            let vector = self.vector(register, ty);
            let alone = self.first_lane_alone(vector);
            self.widen_half(alone, false, false)
        });
        let result = self.saturating_doubling_multiply_long(n, m, size, accumulate, rd);
        self.set_first_lane(rd, result);
        Ok(Flow::Next)
    }

    /// SQDMULL, SQDMLAL, SQDMLSL on lanes already widened (`n`, `m`: signed halfwords or words of `size` in lanes
    /// twice as wide): each product is exact there and doubled with saturation (only MIN x MIN overflows), then
    /// added to or subtracted from V[rd] with saturation; FPSR.QC from either step, as the reference sets it.
    fn saturating_doubling_multiply_long(
        &mut self,
        n: Value,
        m: Value,
        size: u32,
        accumulate: Accumulate,
        rd: u32,
    ) -> Value {
        let product = self.b.ins().imul(n, m);
        let doubled = self.integer_elementwise(IntegerOp::SaturatingAdd, false, size + 1, 1, product, product);
        match accumulate {
            Accumulate::None => doubled,
            Accumulate::Add | Accumulate::Sub => {
                let d = self.vector(rd, lanes(size + 1));
                let op =
                    if let Accumulate::Add = accumulate { IntegerOp::SaturatingAdd } else { IntegerOp::SaturatingSub };
                self.integer_elementwise(op, false, size + 1, 1, d, doubled)
            }
        }
    }

    /// SQRDMLAH, SQRDMLSH (`subtract`) on halfword or word lanes: each lane of V[rd] times 2^esize plus (minus) 2ab
    /// and 2^(esize-1), its high half saturated to the lane. Computed halved on lanes widened to twice their size,
    /// (d << (esize-1)) +- ab + 2^(esize-2), which fits there exactly, then shifted right by esize - 1 and clamped;
    /// FPSR.QC from the lanes in use that were clamped.
    fn rounding_doubling_multiply_accumulate_high(
        &mut self,
        a: Value,
        b: Value,
        size: u32,
        q: u32,
        subtract: bool,
        rd: u32,
    ) -> Value {
        let (ty, wide, esize) = (lanes(size), lanes(size + 1), 8u32 << size);
        let d = self.vector(rd, ty);
        let min = self.iconst(wide, (1u64 << (esize - 1)).wrapping_neg());
        let max = self.iconst(wide, (1u64 << (esize - 1)) - 1);
        let mut halves = [a; 2];
        for (half, upper) in halves.iter_mut().zip([false, true]) {
            let (a, b, d) =
                (self.widen_half(a, false, upper), self.widen_half(b, false, upper), self.widen_half(d, false, upper));
            let product = self.b.ins().imul(a, b);
            let scaled = self.b.ins().ishl_imm_u(d, i64::from(esize - 1));
            let sum = if subtract { self.b.ins().isub(scaled, product) } else { self.b.ins().iadd(scaled, product) };
            let rounding = self.iconst(wide, 1 << (esize - 2));
            let sum = self.b.ins().iadd(sum, rounding);
            let high = self.b.ins().sshr_imm_u(sum, i64::from(esize - 1));
            let below = self.b.ins().smin(high, max);
            let clamped = self.b.ins().smax(below, min);
            // The upper lanes are in use only in a 128-bit vector.
            if !upper || q == 1 {
                self.raise_saturation(high, clamped, 1);
            }
            *half = self.lane_bitcast(types::I8X16, clamped);
        }
        self.low_halves(halves, size)
    }

    /// The low half of each lane of two vectors of lanes twice `size`'s, the first's then the second's (UZP1), as
    /// lanes of `size`.
    fn low_halves(&mut self, wide: [Value; 2], size: u32) -> Value {
        let sources = element_sources(1 << size, 16, |element| element * 2);
        let narrowed = self.shuffle_bytes(wide[0], wide[1], sources);
        self.lane_bitcast(lanes(size), narrowed)
    }

    /// The class "Advanced SIMD three-register extension": SQRDMLAH, SQRDMLSH, SDOT, UDOT (vector).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_three_reg_extension(
        &mut self,
        q: u32,
        u: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let (n, m) = (self.vector(rn, lanes(size)), self.vector(rm, lanes(size)));
        if dot_product(false, size, opcode) {
            return self.dot_product(n, m, u == 1, q, rd);
        }
        let Some(subtract) = rounding_doubling_accumulate(false, u, size, opcode) else { return Err(Unlifted) };
        let result = self.rounding_doubling_multiply_accumulate_high(n, m, size, q, subtract, rd);
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// SDOT, UDOT (`unsigned`): each 32-bit lane of V[rd] plus the four products of its bytes in `a` and `b`: the
    /// bytes widened to halfwords, where their products are exact (as unsigned halfwords for UDOT), then widened to
    /// words and added up in pairs twice.
    fn dot_product(&mut self, a: Value, b: Value, unsigned: bool, q: u32, rd: u32) -> Lift {
        let (a, b) = (self.lane_bitcast(types::I8X16, a), self.lane_bitcast(types::I8X16, b));
        let mut pairs = [a; 2];
        for (pair, upper) in pairs.iter_mut().zip([false, true]) {
            let (x, y) = (self.widen_half(a, unsigned, upper), self.widen_half(b, unsigned, upper));
            let products = self.b.ins().imul(x, y);
            let (low, high) = (self.widen_half(products, unsigned, false), self.widen_half(products, unsigned, true));
            *pair = self.b.ins().iadd_pairwise(low, high);
        }
        let sums = self.b.ins().iadd_pairwise(pairs[0], pairs[1]);
        let d = self.vector(rd, types::I32X4);
        let result = self.b.ins().iadd(d, sums);
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// `value`, or V[rd] (as lanes of `value`'s type) plus or minus it.
    fn accumulate(&mut self, rd: u32, value: Value, accumulate: Accumulate) -> Value {
        if let Accumulate::None = accumulate {
            return value;
        }
        let ty = self.b.func.dfg.value_type(value);
        let d = self.vector(rd, ty);
        match accumulate {
            Accumulate::Add => self.b.ins().iadd(d, value),
            _ => self.b.ins().isub(d, value),
        }
    }

    /// The lower (or `upper`) half's lanes of `value` extended to twice their size, with zeros (`unsigned`) or
    /// their sign.
    pub(super) fn widen_half(&mut self, value: Value, unsigned: bool, upper: bool) -> Value {
        match (unsigned, upper) {
            (true, false) => self.b.ins().uwiden_low(value),
            (true, true) => self.b.ins().uwiden_high(value),
            (false, false) => self.b.ins().swiden_low(value),
            (false, true) => self.b.ins().swiden_high(value),
        }
    }

    /// The integer forms of "Advanced SIMD vector x indexed element" on halfword and word lanes: MUL, MLA, MLS,
    /// SQDMULH, SQRDMULH, and the long SMULL, UMULL, SMLAL, UMLAL, SMLSL, UMLSL (and their "2" forms): the
    /// element in every lane of the second operand, as the three-same and three-different forms compute them.
    /// Without `q`, the scalar forms ("scalar x indexed element": the doubling multiplies alone) on lane 0 of V[rn]
    /// alone (`first_lane_alone`), V[rd] taking lane 0 of the result.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_integer_indexed(
        &mut self,
        q: Option<u32>,
        u: u32,
        size: u32,
        l: u32,
        m: u32,
        rm: u32,
        opcode: u32,
        h: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        enum Form {
            DotProduct,
            DoublingLong(Accumulate),
            RoundingDoublingAccumulate { subtract: bool },
            Integer(IntegerOp, Accumulate, bool),
        }
        let form = if dot_product(true, size, opcode) {
            Form::DotProduct
        } else if let Some(accumulate) = doubling_multiply_long(true, u, size, opcode) {
            Form::DoublingLong(accumulate)
        } else if let Some(subtract) = rounding_doubling_accumulate(true, u, size, opcode) {
            Form::RoundingDoublingAccumulate { subtract }
        } else if let Some((op, accumulate, long)) = indexed_integer(u, size, opcode) {
            Form::Integer(op, accumulate, long)
        } else {
            return Err(Unlifted);
        };
        let scalar = match (q, &form) {
            (Some(_), _) => false,
            (None, Form::DoublingLong(_) | Form::RoundingDoublingAccumulate { .. }) => true,
            (None, Form::Integer(IntegerOp::SaturatingDoublingMultiplyHigh { .. }, ..)) => true,
            // MUL, MLA, the long multiplies and the dot products have no scalar forms.
            (None, _) => return Err(Unlifted),
        };
        let q = q.unwrap_or(0);
        let ty = lanes(size);
        let (index, register) = indexed_element(size, h, l, m, rm);
        let element_vector = self.vector(register, ty);
        let element = self.b.ins().extractlane(element_vector, index as u8);
        let element = self.b.ins().splat(ty, element);
        let mut n = self.vector(rn, ty);
        if scalar {
            n = self.first_lane_alone(n);
        }
        let store = |lifter: &mut Self, result: Value, q: u32| match scalar {
            true => lifter.set_first_lane(rd, result),
            false => lifter.set_vector(rd, result, q),
        };
        let (op, accumulate, long) = match form {
            Form::DotProduct => return self.dot_product(n, element, u == 1, q, rd),
            Form::DoublingLong(accumulate) => {
                let (n, element) = (self.widen_half(n, false, q == 1), self.widen_half(element, false, false));
                let result = self.saturating_doubling_multiply_long(n, element, size, accumulate, rd);
                store(self, result, 1);
                return Ok(Flow::Next);
            }
            Form::RoundingDoublingAccumulate { subtract } => {
                let result = self.rounding_doubling_multiply_accumulate_high(n, element, size, q, subtract, rd);
                store(self, result, q);
                return Ok(Flow::Next);
            }
            Form::Integer(op, accumulate, long) => (op, accumulate, long),
        };
        if long {
            // Only multiplies are long: the widened product is exact.
            let unsigned = u == 1;
            let n = self.widen_half(n, unsigned, q == 1);
            let element = self.widen_half(element, unsigned, false);
            let product = self.b.ins().imul(n, element);
            let result = self.accumulate(rd, product, accumulate);
            self.set_vector(rd, result, 1);
        } else {
            let product = self.integer_elementwise(op, false, size, q, n, element);
            let result = self.accumulate(rd, product, accumulate);
            store(self, result, q);
        }
        Ok(Flow::Next)
    }

    /// AND, BIC, ORR, ORN, EOR, BSL, BIT, BIF (vector), on the raw 128 bits.
    fn simd_bitwise(&mut self, q: u32, u: u32, size: u32, rm: u32, rn: u32, rd: u32) -> Lift {
        let ty = types::I64X2;
        let n = self.vector(rn, ty);
        let m = self.vector(rm, ty);
        let result = if u == 0 {
            match size {
                0b00 => self.b.ins().band(n, m),
                0b01 => self.b.ins().band_not(n, m),
                0b10 => self.b.ins().bor(n, m),
                _ => self.b.ins().bor_not(n, m),
            }
        } else if size == 0b00 {
            self.b.ins().bxor(n, m)
        } else {
            // V[d] = operand1 EOR ((operand2 EOR V[n]) AND operand3), as the reference computes BSL/BIT/BIF.
            let d = self.vector(rd, ty);
            let (op1, op2, op3) = match size {
                0b01 => (m, m, d),
                0b10 => (d, d, m),
                _ => (d, d, self.b.ins().bnot(m)),
            };
            let mixed = self.b.ins().bxor(op2, n);
            let selected = self.b.ins().band(mixed, op3);
            self.b.ins().bxor(op1, selected)
        };
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// MOVI, MVNI, ORR, BIC (vector, immediate) and FMOV (vector, immediate): the immediate is a constant.
    pub(super) fn simd_modified_immediate(
        &mut self,
        q: u32,
        op: u32,
        abc: u32,
        cmode: u32,
        o2: u32,
        defgh: u32,
        rd: u32,
    ) -> Lift {
        let Some(operation) = modified_immediate_op(q, op, cmode, o2) else { return Err(Unlifted) };
        let imm8 = abc << 5 | defgh;
        let imm = match operation {
            ImmediateOp::FmovHalf => replicate128(vfp_expand_imm(imm8, 16), 16, 128),
            _ => replicate128(adv_simd_expand_imm(op, cmode, imm8), 64, 128),
        };
        // Each 64-bit half on its own: the immediate is a constant, the operation bitwise.
        for half in 0..2 {
            let offset = v_offset(rd) + 8 * half;
            let bits = (imm >> (64 * half)) as u64;
            let value = if half == 1 && q == 0 {
                self.iconst(types::I64, 0)
            } else {
                match operation {
                    ImmediateOp::Movi | ImmediateOp::Fmov | ImmediateOp::FmovHalf => self.iconst(types::I64, bits),
                    ImmediateOp::Mvni => self.iconst(types::I64, !bits),
                    ImmediateOp::Orr => {
                        let old = self.b.ins().load(types::I64, super::host_flags(), self.cpu, offset);
                        let bits = self.iconst(types::I64, bits);
                        self.b.ins().bor(old, bits)
                    }
                    ImmediateOp::Bic => {
                        let old = self.b.ins().load(types::I64, super::host_flags(), self.cpu, offset);
                        let bits = self.iconst(types::I64, bits);
                        self.b.ins().band_not(old, bits)
                    }
                }
            };
            self.set_cpu_field(value, offset as usize);
        }
        Ok(Flow::Next)
    }
}
