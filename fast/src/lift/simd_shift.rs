//! Advanced SIMD shifts on Cranelift vector types: by register (SSHL, USHL, SRSHL, URSHL, SQSHL, UQSHL, SQRSHL,
//! UQRSHL, vector and D: lane by lane, the host having no shifts by a vector of amounts) and by immediate (SHL,
//! SSHR, USHR, SSRA, USRA, their rounding forms, SLI, SRI, SQSHL, UQSHL, SQSHLU, SSHLL, USHLL, SHRN, RSHRN,
//! SQSHRN, SQRSHRN, UQSHRN, UQRSHRN, SQSHRUN, SQRSHRUN, vector, and the scalar class's doubleword forms). The
//! saturating ones set FPSR.QC from the lanes in use that saturated. The decode is the reference's; anything else of
//! these classes runs on the reference in place.

use super::simd_integer::{Narrowing, lanes};
use super::{Flow, Lift, Lifter, Unlifted};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

impl Lifter<'_> {
    /// SSHL, USHL and (`round`) SRSHL, URSHL, and (`saturate`) SQSHL, UQSHL, SQRSHL, UQRSHL: each lane of `a`
    /// shifted by the signed low byte of `b`'s: left where it is positive, right (arithmetically for the signed
    /// forms) where negative; a shift by the whole lane or more leaves 0, or the sign bits of a signed right shift.
    /// Rounding adds 2^(r-1) before a right shift by r, which is adding the last bit shifted out (bit r-1: the sign
    /// bit past the lane of a signed one, 0 of an unsigned one), with no overflow. Saturating left shifts give the
    /// limit of the lane's sign wherever shifting back does not give the lane again (or, by the whole lane or
    /// more, wherever it is not 0), and FPSR.QC from those lanes; right shifts never saturate. The host has no
    /// shifts by a vector of amounts: lane by lane, amounts checked (its shifts take them modulo the lane size).
    pub(super) fn shift_by_register(
        &mut self,
        a: Value,
        b: Value,
        unsigned: bool,
        round: bool,
        saturate: bool,
        q: u32,
    ) -> Value {
        let ty = self.b.func.dfg.value_type(a);
        let lane_type = ty.lane_type();
        let esize = i64::from(lane_type.bits());
        let mut result = a;
        let zeros = self.iconst(ty, 0);
        let mut saturated_lanes = zeros;
        for lane in 0..ty.lane_count() as u8 {
            let x = self.b.ins().extractlane(a, lane);
            let m = self.b.ins().extractlane(b, lane);
            let low_byte = if lane_type == types::I8 { m } else { self.b.ins().ireduce(types::I8, m) };
            let amount = self.b.ins().sextend(types::I32, low_byte);
            let zero = self.iconst(lane_type, 0);
            let wrapped = self.b.ins().ishl(x, amount);
            let left_fits = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, amount, esize);
            let mut left = self.b.ins().select(left_fits, wrapped, zero);
            let leftwards = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, amount, 0);
            if saturate {
                let back =
                    if unsigned { self.b.ins().ushr(wrapped, amount) } else { self.b.ins().sshr(wrapped, amount) };
                let changed = self.b.ins().icmp(IntCC::NotEqual, back, x);
                let nonzero = self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0);
                let lost = self.b.ins().select(left_fits, changed, nonzero);
                let limit = if unsigned {
                    self.iconst(lane_type, u64::MAX)
                } else {
                    let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                    let (min, max) =
                        (self.iconst(lane_type, 1 << (esize - 1)), self.iconst(lane_type, u64::MAX >> (65 - esize)));
                    self.b.ins().select(negative, min, max)
                };
                left = self.b.ins().select(lost, limit, left);
                let saturated = self.b.ins().band(lost, leftwards);
                let all_ones = self.iconst(lane_type, u64::MAX);
                let flag = self.b.ins().select(saturated, all_ones, zero);
                saturated_lanes = self.b.ins().insertlane(saturated_lanes, flag, lane);
            }
            let right_amount = self.b.ins().ineg(amount);
            let shift_right = |lifter: &mut Self, amount: Value| {
                if unsigned {
                    let shifted = lifter.b.ins().ushr(x, amount);
                    let fits = lifter.b.ins().icmp_imm_s(IntCC::SignedLessThan, amount, esize);
                    lifter.b.ins().select(fits, shifted, zero)
                } else {
                    let most = lifter.iconst(types::I32, esize as u64 - 1);
                    let clamped = lifter.b.ins().smin(amount, most);
                    lifter.b.ins().sshr(x, clamped)
                }
            };
            let mut right = shift_right(self, right_amount);
            if round {
                let last_out = self.b.ins().iadd_imm_s(right_amount, -1);
                let last_out = shift_right(self, last_out);
                let rounding = self.b.ins().band_imm_u(last_out, 1);
                right = self.b.ins().iadd(right, rounding);
            }
            let shifted = self.b.ins().select(leftwards, left, right);
            result = self.b.ins().insertlane(result, shifted, lane);
        }
        if saturate {
            self.raise_saturation(saturated_lanes, zeros, q);
        }
        result
    }

    /// Each lane of `n` (`esize` bits) shifted right by `shift` (1 to esize) with rounding, arithmetically unless
    /// `unsigned`: (n + 2^(shift - 1)) >> shift without the carry it needs, as (n >> shift) + bit shift - 1 of n.
    /// Cranelift takes shift amounts modulo the lane size: a whole-lane shift is 0, or the sign as one by one less.
    pub(super) fn rounding_shift_right(&mut self, n: Value, unsigned: bool, esize: u32, shift: u32) -> Value {
        let ty = self.b.func.dfg.value_type(n);
        let shifted = match (unsigned, shift == esize) {
            (true, true) => self.iconst(ty, 0),
            (true, false) => self.b.ins().ushr_imm_u(n, i64::from(shift)),
            (false, _) => self.b.ins().sshr_imm_u(n, i64::from(shift.min(esize - 1))),
        };
        let round = self.b.ins().ushr_imm_u(n, i64::from(shift - 1));
        let round = self.and_const(round, 1);
        self.b.ins().iadd(shifted, round)
    }

    /// The class "Advanced SIMD shift by immediate" (`immh` whole: its highest set bit gives the element size): the
    /// same-size shifts (`shift_immediate_same_size`), SHRN, RSHRN, the saturating narrowing shifts and SSHLL,
    /// USHLL (SXTL, UXTL).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_shift_immediate(
        &mut self,
        q: u32,
        u: u32,
        immh: u32,
        immb: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        let highest = 31 - immh.leading_zeros();
        let esize = 8u32 << highest;
        let immhb = immh << 3 | immb;
        let doubleword_elements = immh >> 3 == 1;
        match (u, opcode) {
            (0, 0b10000 | 0b10001) if !doubleword_elements => {
                // SHRN, RSHRN (and the "2" forms): each element of twice esize shifted right by 1 to esize
                // (rounding for RSHRN), then truncated.
                let n = self.vector(rn, lanes(highest + 1));
                let shift = 2 * esize - immhb;
                let shifted = if opcode == 0b10001 {
                    self.rounding_shift_right(n, true, 2 * esize, shift)
                } else {
                    self.b.ins().ushr_imm_u(n, i64::from(shift))
                };
                let bytes = self.lane_bitcast(types::I8X16, shifted);
                self.narrow_into(bytes, highest, q, rd);
                Ok(Flow::Next)
            }
            (_, 0b10000..=0b10011) if !doubleword_elements => {
                // SQSHRN, SQRSHRN, UQSHRN, UQRSHRN, SQSHRUN, SQRSHRUN (and the "2" forms): shifted as SHRN and
                // RSHRN shift (arithmetically from a signed source), then narrowed with saturation.
                let kind = match (u, opcode) {
                    (0, _) => Narrowing::Signed,
                    (_, 0b10000 | 0b10001) => Narrowing::SignedToUnsigned,
                    _ => Narrowing::Unsigned,
                };
                let unsigned = matches!(kind, Narrowing::Unsigned);
                let n = self.vector(rn, lanes(highest + 1));
                let shift = 2 * esize - immhb;
                let shifted = match (opcode & 1 == 1, unsigned) {
                    (true, _) => self.rounding_shift_right(n, unsigned, 2 * esize, shift),
                    (false, true) => self.b.ins().ushr_imm_u(n, i64::from(shift)),
                    (false, false) => self.b.ins().sshr_imm_u(n, i64::from(shift)),
                };
                self.saturating_narrow(shifted, kind, highest, q, rd);
                Ok(Flow::Next)
            }
            (_, 0b10100) if !doubleword_elements => {
                // SSHLL, USHLL: the lower (or, for the "2" forms, upper) half's elements extended to twice their
                // size, then shifted left by 0 to esize - 1; always a 128-bit result.
                let n = self.vector(rn, lanes(highest));
                let widened = self.widen_half(n, u == 1, q == 1);
                let shifted = self.b.ins().ishl_imm_u(widened, i64::from(immhb - esize));
                self.set_vector(rd, shifted, 1);
                Ok(Flow::Next)
            }
            // The 1D arrangement is reserved.
            _ if doubleword_elements && q == 0 => Err(Unlifted),
            _ => {
                let result = self.shift_immediate_same_size(u, immh, immb, opcode, rn, rd, q)?;
                self.set_vector(rd, result, q);
                Ok(Flow::Next)
            }
        }
    }

    /// The class "Advanced SIMD scalar shift by immediate": its same-size shifts of a doubleword (the only size
    /// they take), computed as the vector forms are, lane 0 kept.
    pub(super) fn simd_scalar_shift_immediate(
        &mut self,
        u: u32,
        immh: u32,
        immb: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Lift {
        if immh >> 3 != 1 {
            return Err(Unlifted);
        }
        // q = 0: lane 0, the one in use, for the saturating shifts' FPSR.QC.
        let result = self.shift_immediate_same_size(u, immh, immb, opcode, rn, rd, 0)?;
        self.set_first_lane(rd, result);
        Ok(Flow::Next)
    }

    /// SSHR, USHR, SSRA, USRA, their rounding forms, SHL, SLI, SRI, SQSHL, UQSHL and SQSHLU on all 128 bits of
    /// V[rn] (and V[rd], for the ones that accumulate or insert); `q` as for `raise_saturation`.
    #[allow(clippy::too_many_arguments)]
    fn shift_immediate_same_size(
        &mut self,
        u: u32,
        immh: u32,
        immb: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
        q: u32,
    ) -> Result<Value, Unlifted> {
        let highest = 31 - immh.leading_zeros();
        let esize = 8u32 << highest;
        let immhb = immh << 3 | immb;
        let ty = lanes(highest);
        Ok(match (u, opcode) {
            (_, 0b00000 | 0b00010) => {
                // SSHR, USHR, SSRA, USRA: by 1 to esize. Cranelift takes shift amounts modulo the lane size, so a
                // shift by all of it is the zero (unsigned) or the sign (signed, as a shift by one less).
                let shift = 2 * esize - immhb;
                let n = self.vector(rn, ty);
                let shifted = match (u, shift == esize) {
                    (1, true) => self.iconst(ty, 0),
                    (1, false) => self.b.ins().ushr_imm_u(n, i64::from(shift)),
                    _ => self.b.ins().sshr_imm_u(n, i64::from(shift.min(esize - 1))),
                };
                if opcode == 0b00010 {
                    let accumulator = self.vector(rd, ty);
                    self.b.ins().iadd(accumulator, shifted)
                } else {
                    shifted
                }
            }
            (_, 0b00100 | 0b00110) => {
                // SRSHR, URSHR, SRSRA, URSRA: by 1 to esize, rounding.
                let n = self.vector(rn, ty);
                let shifted = self.rounding_shift_right(n, u == 1, esize, 2 * esize - immhb);
                if opcode == 0b00110 {
                    let accumulator = self.vector(rd, ty);
                    self.b.ins().iadd(accumulator, shifted)
                } else {
                    shifted
                }
            }
            (1, 0b01000 | 0b01010) => {
                // SRI (by 1 to esize), SLI (by 0 to esize - 1): the shifted element over V[rd]'s, whose bits the
                // shift vacated stay (all of them for SRI by esize).
                let n = self.vector(rn, ty);
                let d = self.vector(rd, ty);
                let all_ones = u64::MAX >> (64 - esize);
                let (shifted, kept) = if opcode == 0b01000 {
                    let shift = 2 * esize - immhb;
                    if shift == esize {
                        return Ok(d);
                    }
                    (self.b.ins().ushr_imm_u(n, i64::from(shift)), !(all_ones >> shift) & all_ones)
                } else {
                    let shift = immhb - esize;
                    (self.b.ins().ishl_imm_u(n, i64::from(shift)), !(all_ones << shift) & all_ones)
                };
                let kept = self.iconst(ty, kept);
                let kept = self.b.ins().band(d, kept);
                self.b.ins().bor(shifted, kept)
            }
            (0, 0b01010) => {
                // SHL: by 0 to esize - 1.
                let n = self.vector(rn, ty);
                self.b.ins().ishl_imm_u(n, i64::from(immhb - esize))
            }
            (_, 0b01110) | (1, 0b01100) => self.saturating_shift_left(u == 1, opcode == 0b01100, esize, immhb, rn, q),
            _ => return Err(Unlifted),
        })
    }

    /// SQSHL, UQSHL (`unsigned`) and SQSHLU (`to_unsigned`) by immediate (0 to esize - 1): a lane whose shift
    /// loses bits takes the limit of its side of the range, and for SQSHLU a negative lane is 0; FPSR.QC where a
    /// lane in use saturated (from the lanes that did: a saturated lane may equal its wrapped shift).
    fn saturating_shift_left(
        &mut self,
        unsigned: bool,
        to_unsigned: bool,
        esize: u32,
        immhb: u32,
        rn: u32,
        q: u32,
    ) -> Value {
        let ty = lanes(esize.trailing_zeros() - 3);
        let shift = i64::from(immhb - esize);
        let n = self.vector(rn, ty);
        let wrapped = self.b.ins().ishl_imm_u(n, shift);
        let zero = self.iconst(ty, 0);
        let negative = self.b.ins().icmp(IntCC::SignedLessThan, n, zero);
        let (saturated, saturating) = if unsigned {
            let back = self.b.ins().ushr_imm_u(wrapped, shift);
            let overflow = self.b.ins().icmp(IntCC::NotEqual, back, n);
            let max = self.iconst(ty, u64::MAX);
            let result = self.b.ins().bitselect(overflow, max, wrapped);
            if to_unsigned {
                (self.b.ins().bitselect(negative, zero, result), self.b.ins().bor(overflow, negative))
            } else {
                (result, overflow)
            }
        } else {
            let back = self.b.ins().sshr_imm_u(wrapped, shift);
            let overflow = self.b.ins().icmp(IntCC::NotEqual, back, n);
            let (max, min) = (self.iconst(ty, u64::MAX >> (65 - esize)), self.iconst(ty, 1 << (esize - 1)));
            let limit = self.b.ins().bitselect(negative, min, max);
            (self.b.ins().bitselect(overflow, limit, wrapped), overflow)
        };
        self.raise_saturation(saturating, zero, q);
        saturated
    }
}
