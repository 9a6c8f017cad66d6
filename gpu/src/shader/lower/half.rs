//! FP16 pairs: each half a U32 holding 16 bits (HADD2, HMUL2, HFMA2, HSET2, HSETP2, HMNMX2, BF16 conversion).

use super::Lower;
use crate::sass::text::View;
use crate::shader::ir::{BinOp, Cmp, FArith, HalfFormat, Op, Round, UnOp, Value};

/// A pair instruction's source that is not one of its registers.
#[derive(Clone, Copy)]
pub(in crate::shader) enum HalfSource {
    /// The second source is these halves (low first): an immediate form's.
    Immediate([u32; 2]),
    /// The second source is this constant, an FP32 rounded to FP16 for both lanes (the interpreter's `half_b`;
    /// `neg_b` and `abs_b` apply): Maxwell's `cbuf` forms.
    ConstantB(Value),
    /// The third source is this constant, as `ConstantB`'s (`neg_c` applies): Maxwell's HFMA2 `cbuf_c` form.
    ConstantC(Value),
}

impl Lower<'_> {
    /// A pair source's halves (low, high) after its swizzle (0 H1_H0, 1 F32: the value an FP32 rounded to FP16 for
    /// both lanes, as the interpreter's; 2 H0_H0, 3 H1_H1) and modifiers.
    pub(in crate::shader) fn half_pair(&mut self, value: Value, swizzle: u64, neg: bool, abs: bool) -> [Value; 2] {
        let (mask, sixteen) = (self.const32(0xffff), self.const32(16));
        let low = self.bin(BinOp::And, value, mask);
        let high = self.bin(BinOp::ShrU, value, sixteen);
        let pair = match swizzle {
            1 => [self.op(Op::F32ToHalf(Round::NearestEven, value)); 2],
            2 => [low, low],
            3 => [high, high],
            _ => [low, high],
        };
        pair.map(|half| {
            let half = if abs {
                let magnitude = self.const32(0x7fff);
                self.bin(BinOp::And, half, magnitude)
            } else {
                half
            };
            if neg {
                let sign = self.const32(0x8000);
                self.bin(BinOp::Xor, half, sign)
            } else {
                half
            }
        })
    }

    /// An FP16 denormal flushed to zero of the same sign.
    pub(in crate::shader) fn flush_half(&mut self, half: Value, ftz: bool) -> Value {
        if !ftz {
            return half;
        }
        let (exponent, sign, zero) = (self.const32(0x7c00), self.const32(0x8000), self.const32(0));
        let bits = self.bin(BinOp::And, half, exponent);
        let denormal = self.cmp(Cmp::Eq, bits, zero);
        let signed_zero = self.bin(BinOp::And, half, sign);
        self.select(denormal, signed_zero, half)
    }

    /// The first two operand pairs of a half instruction: a, and b (a register, the immediate's halves or a
    /// constant as `other` says), each with its swizzle and modifiers.
    pub(in crate::shader) fn half_sources(&mut self, v: &View, other: Option<HalfSource>) -> [[Value; 2]; 2] {
        let a = self.reg(v.get("ra"));
        let a = self.half_pair(a, v.get("swz_a"), v.flag("neg_a"), v.flag("abs_a"));
        let b = match other {
            Some(HalfSource::Immediate(halves)) => halves.map(|h| self.const32(h)),
            Some(HalfSource::ConstantB(constant)) => self.half_pair(constant, 1, v.flag("neg_b"), v.flag("abs_b")),
            _ => {
                let b = self.reg(v.get("rb"));
                self.half_pair(b, v.get("swz_b"), v.flag("neg_b"), v.flag("abs_b"))
            }
        };
        [a, b]
    }

    /// The operand pairs of HADD2, HMUL2 or HFMA2: `half_sources` and c (b again unless a fused multiply-add;
    /// HFMA2_32I adds its destination).
    pub(in crate::shader) fn half_operands(
        &mut self,
        v: &View,
        opcode: &str,
        other: Option<HalfSource>,
    ) -> [[Value; 2]; 3] {
        let [a, b] = self.half_sources(v, other);
        let c = match other {
            _ if FArith::of_half_opcode(opcode) != FArith::Fma => b,
            Some(HalfSource::ConstantC(constant)) => self.half_pair(constant, 1, v.flag("neg_c"), false),
            _ => {
                let c = self.reg(v.get(if v.has("rc") { "rc" } else { "rd" }));
                self.half_pair(c, v.get("swz_c"), v.flag("neg_c"), v.flag("abs_c"))
            }
        };
        [a, b, c]
    }

    /// The FP32 result of a half instruction's .F32 form: the low halves widened exactly, computed in FP32.
    pub(in crate::shader) fn half_arith_f32(
        &mut self,
        kind: FArith,
        halves: [Value; 3],
        ftz: bool,
        sat: bool,
    ) -> Value {
        let operands = halves.map(|h| {
            let h = self.flush_half(h, ftz);
            self.un(UnOp::HalfToF32, h)
        });
        let result = self.op(Op::FArith(kind, Round::NearestEven, operands));
        self.finish_float(result, ftz, sat)
    }

    /// A half's arithmetic, finished as NVIDIA does: the canonical NaN 0x7fff; .FTZ; .SAT and .RELU (negative
    /// results, -0 and NaN to +0; .SAT also caps at 1.0).
    /// One half of HADD2, HMUL2 or HFMA2 in `format`: NaN gives the canonical 0x7fff; `.FTZ` (FP16 only) flushes
    /// operands and result, `.SAT` clamps to [0, 1] (NaN to +0), `.RELU` makes negative results +0 (a NaN stays
    /// NaN: what an H200's fma.rn.relu gives).
    pub(in crate::shader) fn half_arith(
        &mut self,
        format: HalfFormat,
        kind: FArith,
        operands: [Value; 3],
        (ftz, sat, relu): (bool, bool, bool),
    ) -> Value {
        let operands = operands.map(|x| self.flush_half(x, ftz));
        let result = self.op(Op::HalfArith(format, kind, operands));
        let (magnitude_mask, infinity) = (self.const32(0x7fff), self.const32(format.infinity()));
        let magnitude = self.bin(BinOp::And, result, magnitude_mask);
        let nan = self.cmp(Cmp::GtU, magnitude, infinity);
        let canonical = self.const32(0x7fff);
        let mut result = self.select(nan, canonical, result);
        result = self.flush_half(result, ftz);
        if sat || relu {
            // The canonical NaN is not negative.
            let (sign, zero) = (self.const32(0x8000), self.const32(0));
            let sign_bit = self.bin(BinOp::And, result, sign);
            let negative = self.cmp(Cmp::Ne, sign_bit, zero);
            let drop = if sat {
                let t = self.bool(true);
                self.select(nan, t, negative)
            } else {
                negative
            };
            result = self.select(drop, zero, result);
            if sat {
                let one = self.const32(format.one());
                let above = self.cmp(Cmp::GtU, result, one);
                result = self.select(above, one, result);
            }
        }
        result
    }

    /// FP32 to BF16 (its top half) rounded in mode `rnd` (the interpreter's `f32_to_bf16`): the top half, one unit
    /// further from zero when the mode asks (a carry into the exponent makes infinity); NaN gives 0x7fff.
    pub(in crate::shader) fn f32_to_bf16(&mut self, x: Value, rnd: u64) -> Value {
        let sixteen = self.const32(16);
        let kept = self.bin(BinOp::ShrU, x, sixteen);
        let low_mask = self.const32(0xffff);
        let low = self.bin(BinOp::And, x, low_mask);
        let zero = self.const32(0);
        let inexact = self.cmp(Cmp::Ne, low, zero);
        let negative = self.cmp(Cmp::LtS, x, zero);
        let up = match rnd {
            0 => {
                let half = self.const32(0x8000);
                let above = self.cmp(Cmp::GtU, low, half);
                let tie = self.cmp(Cmp::Eq, low, half);
                let one = self.const32(1);
                let odd = self.bin(BinOp::And, kept, one);
                let odd = self.cmp(Cmp::Ne, odd, zero);
                let f = self.bool(false);
                let tie_up = self.select(tie, odd, f);
                let t = self.bool(true);
                self.select(above, t, tie_up)
            }
            1 => {
                let f = self.bool(false);
                self.select(negative, inexact, f)
            }
            2 => {
                let f = self.bool(false);
                self.select(negative, f, inexact)
            }
            _ => self.bool(false),
        };
        let step = self.un(UnOp::BoolToU32, up);
        let rounded = self.bin(BinOp::Add, kept, step);
        let nan = self.un(UnOp::IsNan, x);
        let canonical = self.const32(0x7fff);
        self.select(nan, canonical, rounded)
    }

    /// Two halves packed into a word.
    pub(in crate::shader) fn pack_halves(&mut self, low: Value, high: Value) -> Value {
        let sixteen = self.const32(16);
        let high = self.bin(BinOp::Shl, high, sixteen);
        self.bin(BinOp::Or, high, low)
    }

    /// A half comparison (the float comparison field), on the halves widened exactly to FP32.
    pub(in crate::shader) fn half_compare(&mut self, a: Value, b: Value, cmp: u64, ftz: bool) -> Value {
        let (a, b) = (self.flush_half(a, ftz), self.flush_half(b, ftz));
        let (a, b) = (self.un(UnOp::HalfToF32, a), self.un(UnOp::HalfToF32, b));
        self.float_compare(a, b, cmp)
    }

    /// HSET2 (the same fields in both ISAs; `other`: Maxwell's immediate pair or constant): each half all ones
    /// (1.0 with .BF) where its comparison, combined with the predicate, holds.
    pub(in crate::shader) fn hset2(&mut self, v: &View, other: Option<HalfSource>) {
        let [a, b] = self.half_sources(v, other);
        let ps = self.pred_src(v, "ps");
        let (one, zero) = (self.const32(if v.flag("bf") { 0x3c00 } else { 0xffff }), self.const32(0));
        let halves = [0, 1].map(|i| {
            let holds = self.half_compare(a[i], b[i], v.get("cmp"), v.flag("ftz"));
            let result = self.boolean(v.get("bop"), holds, ps);
            self.select(result, one, zero)
        });
        let value = self.pack_halves(halves[0], halves[1]);
        self.set_reg(v.get("rd"), value);
    }

    /// HSETP2 (the same fields in both ISAs; `other` as HSET2's): a comparison of each half, or of both together
    /// (.H_AND), combined with a predicate into two.
    pub(in crate::shader) fn hsetp2(&mut self, v: &View, other: Option<HalfSource>) {
        let [a, b] = self.half_sources(v, other);
        let (cmp, ftz) = (v.get("cmp"), v.flag("ftz"));
        let low = self.half_compare(a[0], b[0], cmp, ftz);
        let high = self.half_compare(a[1], b[1], cmp, ftz);
        let (first, second) = if v.flag("h_and") {
            let f = self.bool(false);
            let both = self.select(low, high, f);
            (both, self.un(UnOp::LogicalNot, both))
        } else {
            (low, high)
        };
        let ps = self.pred_src(v, "ps");
        let op = v.get("bop");
        let pd = self.boolean(op, first, ps);
        let pq = self.boolean(op, second, ps);
        self.set_pred(v.get("pd"), pd);
        self.set_pred(v.get("pq"), pq);
    }
}
