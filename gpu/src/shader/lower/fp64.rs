//! FP64: U64 values (register pairs, the low word first), with NVIDIA's modifiers, MIN/MAX, conversions and the
//! special functions' high-word forms.

use super::Lower;
use crate::sass::text::View;
use crate::shader::ir::{BinOp, Cmp, FArith, Op, Round, UnOp, Value};

impl Lower<'_> {
    /// `.ABS` then `.NEG` of FP64 bits: the sign bit.
    pub(in crate::shader) fn float64_modifiers(&mut self, value: Value, neg: bool, abs: bool) -> Value {
        let mut value = value;
        if abs {
            let mask = self.const64(!(1 << 63));
            value = self.bin(BinOp::And, value, mask);
        }
        if neg {
            let sign = self.const64(1 << 63);
            value = self.bin(BinOp::Xor, value, sign);
        }
        value
    }

    /// DADD, DMUL and DFMA (the interpreter's `arith64`): the IEEE result rounded in mode `rnd`, except that a
    /// NaN operand passes on, quieted, as the register held it before the modifiers: b's first, then the
    /// addend's, then a's. A NaN the operation makes (infinity - infinity, 0 x infinity) is the canonical one.
    pub(in crate::shader) fn double_arith(
        &mut self,
        kind: FArith,
        rnd: u64,
        operands: [Value; 3],
        raw: [Value; 3],
    ) -> Value {
        let mut value = self.op(Op::FArith(kind, Round::from_field(rnd), operands));
        let quiet = self.const64(1 << 51);
        // The least preferred first, so that the most preferred NaN is selected last.
        for index in [0, 2, 1] {
            if index == 2 && kind != FArith::Fma {
                continue;
            }
            let nan = self.un(UnOp::IsNan, raw[index]);
            let quieted = self.bin(BinOp::Or, raw[index], quiet);
            value = self.select(nan, quieted, value);
        }
        value
    }

    /// DMNMX's choice (the interpreter's `min_max64_choice`): whether min (`min` holds) or max returns `a` (a
    /// number beats NaN, -0 is below +0), and whether both are NaN.
    pub(in crate::shader) fn double_min_max_choice(&mut self, a: Value, b: Value, min: Value) -> (Value, Value) {
        let (nan_a, nan_b) = (self.un(UnOp::IsNan, a), self.un(UnOp::IsNan, b));
        let less = self.cmp(Cmp::FLt, a, b);
        let greater = self.cmp(Cmp::FGt, a, b);
        let zero = self.const64(0);
        let a_negative = self.cmp(Cmp::LtS, a, zero);
        let equal_pick = self.cmp(Cmp::Eq, a_negative, min);
        let max = self.un(UnOp::LogicalNot, min);
        let ordered_pick = self.select(greater, max, equal_pick);
        let pick = self.select(less, min, ordered_pick);
        let (t, f) = (self.bool(true), self.bool(false));
        let pick = self.select(nan_b, t, pick);
        let pick = self.select(nan_a, f, pick);
        let both_nan = self.select(nan_a, nan_b, f);
        (pick, both_nan)
    }

    /// DMNMX: the chosen operand; both NaN give the canonical NaN.
    pub(in crate::shader) fn double_min_max(&mut self, a: Value, b: Value, min: Value) -> Value {
        let (pick_a, both_nan) = self.double_min_max_choice(a, b, min);
        let chosen = self.select(pick_a, a, b);
        let canonical = self.const64(0x7fff_ffff_ffff_ffff);
        self.select(both_nan, canonical, chosen)
    }

    /// MUFU.RCP64H (func 6) and MUFU.RSQ64H (7): the high word of 1/x (1/sqrt(x)) for the FP64 x whose high word
    /// is `high` and low word 0, a seed for the Newton iterations ptxas writes after it (the host's FP64, as the
    /// unit is an approximation too); NaN gives 0x7fffffff.
    pub(in crate::shader) fn special_function64h(&mut self, func: u64, high: Value) -> Option<Value> {
        let zero = self.const32(0);
        let x = self.pair(zero, high);
        let result = match func {
            6 => {
                let one = self.const64(1f64.to_bits());
                self.bin(BinOp::FDiv, one, x)
            }
            7 => self.un(UnOp::InverseSqrt, x),
            _ => return None,
        };
        let nan = self.un(UnOp::IsNan, result);
        let high = self.un(UnOp::High, result);
        let canonical = self.const32(0x7fff_ffff);
        Some(self.select(nan, canonical, high))
    }

    /// F2F between FP64 and FP16 (1), FP32 (2) or FP64 (3) (the interpreter's `float_to_float`): `x` a U32 (FP16
    /// in the low bits, FP32) or U64, rounded in mode `rnd`; `.FTZ` flushes FP32 and FP64 operands and results. A
    /// NaN keeps its sign and the top of its payload, quieted.
    pub(in crate::shader) fn float64_conversion(&mut self, x: Value, src: u64, dst: u64, rnd: u64, ftz: bool) -> Value {
        // The invalid type 0 reads as FP32, as in the interpreter.
        let float_type = |ty: u64| if ty == 0 { 2 } else { ty };
        let (src, dst) = (float_type(src), float_type(dst));
        let x = match src {
            3 => self.flush64(x, ftz),
            2 => self.flush(x, ftz),
            _ => x,
        };
        let round = Round::from_field(rnd);
        let value = match (src, dst) {
            (1, _) => {
                let single = self.un(UnOp::HalfToF32, x);
                self.un(UnOp::F32ToF64, single)
            }
            (2, _) => self.un(UnOp::F32ToF64, x),
            (_, 1) => self.op(Op::F32ToHalf(round, x)),
            (_, 2) => {
                let single = self.op(Op::F64ToF32(round, x));
                self.flush(single, ftz)
            }
            _ => self.flush64(x, ftz),
        };
        // (mantissa bits, exponent and quiet bit, width) of each format.
        let format = |ty: u64| match ty {
            1 => (10u32, 0x7e00u64, 16u32),
            3 => (52, 0x7ff8_0000_0000_0000, 64),
            _ => (23, 0x7fc0_0000, 32),
        };
        let ((from_bits, _, from_width), (to_bits, quiet, to_width)) = (format(src), format(dst));
        let wide = if src == 3 { x } else { self.un(UnOp::ExtendU, x) };
        let sign_shift = self.const32(from_width - 1);
        let sign = self.bin(BinOp::ShrU, wide, sign_shift);
        let one = self.const64(1);
        let sign = self.bin(BinOp::And, sign, one);
        let to_sign_shift = self.const32(to_width - 1);
        let sign = self.bin(BinOp::Shl, sign, to_sign_shift);
        let payload_mask = self.const64((1 << from_bits) - 1);
        let payload = self.bin(BinOp::And, wide, payload_mask);
        let payload = if to_bits >= from_bits {
            let up = self.const32(to_bits - from_bits);
            self.bin(BinOp::Shl, payload, up)
        } else {
            let down = self.const32(from_bits - to_bits);
            self.bin(BinOp::ShrU, payload, down)
        };
        let quiet = self.const64(quiet);
        let nan_bits = self.bin(BinOp::Or, sign, quiet);
        let nan_bits = self.bin(BinOp::Or, nan_bits, payload);
        let nan_bits = if dst == 3 { nan_bits } else { self.un(UnOp::Truncate, nan_bits) };
        let nan = if src == 1 {
            let (magnitude, infinity) = (self.const32(0x7fff), self.const32(0x7c00));
            let magnitude = self.bin(BinOp::And, x, magnitude);
            self.cmp(Cmp::GtU, magnitude, infinity)
        } else {
            self.un(UnOp::IsNan, x)
        };
        self.select(nan, nan_bits, value)
    }

    /// F2I's source `raw` as FP32 (the invalid type 0 too, as the interpreter reads it) or, with `double`, FP64
    /// (a pair), after `.ABS`/`.NEG` (abs_b, neg_b) and `.FTZ`.
    pub(in crate::shader) fn float_source(&mut self, v: &View, raw: Value, double: bool) -> Value {
        let (neg, abs, ftz) = (v.flag("neg_b"), v.flag("abs_b"), v.flag("ftz"));
        if double {
            let b = self.float64_modifiers(raw, neg, abs);
            self.flush64(b, ftz)
        } else {
            let b = self.float_modifiers(raw, v, "neg_b", "abs_b");
            self.flush(b, ftz)
        }
    }

    /// `.FTZ` of FP64 bits: a denormal becomes the zero of its sign.
    pub(in crate::shader) fn flush64(&mut self, x: Value, ftz: bool) -> Value {
        if !ftz {
            return x;
        }
        let exponent = self.const64(0x7ff0_0000_0000_0000);
        let field = self.bin(BinOp::And, x, exponent);
        let zero = self.const64(0);
        let denormal = self.cmp(Cmp::Eq, field, zero);
        let sign = self.const64(1 << 63);
        let signed_zero = self.bin(BinOp::And, x, sign);
        self.select(denormal, signed_zero, x)
    }

    /// FP64 rounded to an integral value in mode `rnd` (nearest even, floor, ceil, trunc), after flushing a
    /// denormal operand with `ftz`; a NaN passes on quieted.
    pub(in crate::shader) fn round_integral64(&mut self, x: Value, rnd: u64, ftz: bool) -> Value {
        let x = self.flush64(x, ftz);
        let rounded = self.round_integral(x, rnd);
        let nan = self.un(UnOp::IsNan, x);
        let quiet = self.const64(1 << 51);
        let quieted = self.bin(BinOp::Or, x, quiet);
        self.select(nan, quieted, rounded)
    }
}
