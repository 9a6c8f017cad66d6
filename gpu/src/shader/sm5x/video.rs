//! Maxwell's video instructions, as the interpreter carries them out (`sass/exec/video.rs`): the parts of a and b
//! as 64-bit integers (every operation on them is exact there, but a shift by 32 of a word at or above 2^31, which
//! stands for itself as 2^40 wherever its size matters), then saturation, and c merged, added or compared.

use super::{Maxwell, Result};
use crate::sass::text::View;
use crate::sass::video::Mode;
use crate::shader::ir::{BinOp, Cmp, UnOp, Value};

impl Maxwell<'_, '_, '_> {
    /// VADD, VABSDIFF, VMNMX, VSHL, VSHR, VSET, VSETP, VMAD and VABSDIFF4's accumulating form.
    pub(super) fn video(&mut self, v: &View) -> Result {
        let opcode = v.encoding.opcode;
        if v.flag("cc") {
            return self.unimplemented(v, format!("{} (.CC)", Self::text(v)));
        }
        if opcode == "VABSDIFF4" {
            return self.byte_distances(v);
        }
        let a = self.reg(v.get("ra"));
        let a = self.video_part(a, v.get("sel_a"), v.flag("signed_a"));
        let (b, selector) = if v.has("imm16") {
            (self.const32(v.get("imm16") as u32), 4)
        } else {
            (self.reg(v.get("rb")), v.get("sel_b"))
        };
        let b = self.video_part(b, selector, v.flag("signed_b"));
        match opcode {
            "VSETP" => {
                let holds = self.integer_compare(a, b, v.get("cmp"), true, false);
                self.set_comparison(v, holds);
                return Ok(());
            }
            "VMAD" => return self.video_multiply_add(v, a, b, selector),
            _ => {}
        }
        // `sized`: the value where its size matters (saturation, min and max), `value` its low bits.
        let (value, sized) = match opcode {
            "VADD" => {
                let (neg_a, neg_b) = (v.flag("neg_a"), v.flag("neg_b"));
                let sum = if neg_a && neg_b {
                    // .PO: plus one.
                    let sum = self.bin(BinOp::Add, a, b);
                    let one = self.const64(1);
                    self.bin(BinOp::Add, sum, one)
                } else {
                    let a = if neg_a { self.negate64(a) } else { a };
                    let b = if neg_b { self.negate64(b) } else { b };
                    self.bin(BinOp::Add, a, b)
                };
                (sum, sum)
            }
            "VABSDIFF" => {
                let less = self.cmp(Cmp::LtS, a, b);
                let (forward, backward) = (self.bin(BinOp::Sub, a, b), self.bin(BinOp::Sub, b, a));
                let distance = self.select(less, backward, forward);
                (distance, distance)
            }
            "VMNMX" => {
                let extreme = self.bin(if v.flag("mx") { BinOp::MaxS } else { BinOp::MinS }, a, b);
                (extreme, extreme)
            }
            "VSHL" | "VSHR" => self.video_shift(v, a, b),
            _ => {
                let holds = self.integer_compare(a, b, v.get("cmp"), true, false);
                let bit = self.un(UnOp::BoolToU32, holds);
                let bit = self.un(UnOp::ExtendU, bit);
                (bit, bit)
            }
        };
        // VSET's result is unsigned and never saturated (it has neither field).
        let (signed, mode) = (v.flag("sd"), Mode::from_field(v.get("mode")));
        let (value, sized) = if v.flag("sat") {
            let bits = mode.width();
            let (low, high) =
                if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
            let (low, high) = (self.const64(low as u64), self.const64(high as u64));
            let clamped = self.bin(BinOp::MaxS, sized, low);
            let clamped = self.bin(BinOp::MinS, clamped, high);
            (clamped, clamped)
        } else {
            (value, sized)
        };
        let c = self.reg(v.get("rc"));
        let low = self.un(UnOp::Truncate, value);
        let merge = |l: &mut Self, keep_of_c: u32, width_mask: u32, shift: u32| {
            let mask = l.const32(width_mask);
            let part = l.bin(BinOp::And, low, mask);
            let amount = l.const32(shift);
            let part = l.bin(BinOp::Shl, part, amount);
            let keep = l.const32(keep_of_c);
            let kept = l.bin(BinOp::And, c, keep);
            l.bin(BinOp::Or, part, kept)
        };
        let result = match mode {
            Mode::MergeHighHalf => merge(self, 0xffff, 0xffff, 16),
            Mode::MergeLowHalf => merge(self, 0xffff_0000, 0xffff, 0),
            Mode::MergeByte0 => merge(self, 0xffff_ff00, 0xff, 0),
            Mode::MergeByte2 => merge(self, 0xff00_ffff, 0xff, 16),
            Mode::Accumulate => self.bin(BinOp::Add, low, c),
            Mode::Min | Mode::Max => {
                // c is read as the destination's type (and, where `vmnmx_wraps`, the result as its low word).
                let sized = if crate::sass::sm5x::vmnmx_wraps(v) { self.un(UnOp::ExtendS, low) } else { sized };
                let c = self.un(if signed { UnOp::ExtendS } else { UnOp::ExtendU }, c);
                let extreme = self.bin(if mode == Mode::Min { BinOp::MinS } else { BinOp::MaxS }, sized, c);
                self.un(UnOp::Truncate, extreme)
            }
            Mode::None => low,
        };
        self.set_reg(v.get("rd"), result);
        Ok(())
    }

    /// A source part as a 64-bit integer: selector 0-3 a byte, 4-5 a half, 6 the word, sign- or zero-extended.
    pub(super) fn video_part(&mut self, x: Value, selector: u64, signed: bool) -> Value {
        let (shift, bits) = match selector {
            0..=3 => (8 * selector as u32, 8),
            4 | 5 => (16 * (selector as u32 - 4), 16),
            _ => (0, 32),
        };
        let (right, extend) = if signed { (BinOp::ShrS, UnOp::ExtendS) } else { (BinOp::ShrU, UnOp::ExtendU) };
        let part = if bits == 32 {
            x
        } else {
            let up = self.const32(32 - bits - shift);
            let down = self.const32(32 - bits);
            let raised = self.bin(BinOp::Shl, x, up);
            self.bin(right, raised, down)
        };
        self.un(extend, part)
    }

    fn negate64(&mut self, x: Value) -> Value {
        let zero = self.const64(0);
        self.bin(BinOp::Sub, zero, x)
    }

    /// VSHL and VSHR: b wrapped to 0-31 (.W) or clamped at 32. Returns the shifted value and the value where
    /// its size matters: only a left shift by 32 of a word at or above 2^31 leaves 64 bits, and any value that
    /// large saturates and compares as 2^40 does.
    fn video_shift(&mut self, v: &View, a: Value, b: Value) -> (Value, Value) {
        // b is an unsigned part: its low word is all of it.
        let b = self.un(UnOp::Truncate, b);
        let amount = self.bit_count(b, v.flag("wrap"));
        if v.encoding.opcode == "VSHR" {
            let shifted = self.bin(BinOp::ShrS, a, amount);
            return (shifted, shifted);
        }
        let shifted = self.bin(BinOp::Shl, a, amount);
        let (thirty_two, word_top) = (self.const32(32), self.const64(0x7fff_ffff));
        let by_32 = self.cmp(Cmp::Eq, amount, thirty_two);
        let wide = self.cmp(Cmp::GtS, a, word_top);
        let past = self.select(by_32, wide, by_32);
        let large = self.const64(1 << 40);
        (shifted, self.select(past, large, shifted))
    }

    /// VMAD as the interpreter's `video::multiply_add`: exact in 64 bits unless both parts are words, whose
    /// product saturation would need more (refused by name); without .SAT only the low bits count, which 64
    /// bits keep.
    fn video_multiply_add(&mut self, v: &View, a: Value, b: Value, selector_b: u64) -> Result {
        let (negate_product, negate_c) = (v.flag("neg_ab"), v.flag("neg_c"));
        let plus_one = negate_product && negate_c;
        if v.flag("sat") && v.get("sel_a") == 6 && selector_b == 6 {
            return self.unimplemented(v, format!("{} (saturating the product of two words)", Self::text(v)));
        }
        let signed = v.flag("signed_a") || v.flag("signed_b") || (negate_product != negate_c);
        let c = self.reg(v.get("rc"));
        let c = self.un(if signed { UnOp::ExtendS } else { UnOp::ExtendU }, c);
        let product = self.bin(BinOp::Mul, a, b);
        let sum = if plus_one {
            let sum = self.bin(BinOp::Add, product, c);
            let one = self.const64(1);
            self.bin(BinOp::Add, sum, one)
        } else if negate_product {
            self.bin(BinOp::Sub, c, product)
        } else if negate_c {
            self.bin(BinOp::Sub, product, c)
        } else {
            self.bin(BinOp::Add, product, c)
        };
        let shift = self.const32([0, 7, 15, 0][v.get("shift") as usize & 3]);
        let mut result = self.bin(BinOp::ShrS, sum, shift);
        if v.flag("sat") {
            let (low, high) =
                if signed { (i64::from(i32::MIN), i64::from(i32::MAX)) } else { (0, i64::from(u32::MAX)) };
            let (low, high) = (self.const64(low as u64), self.const64(high as u64));
            result = self.bin(BinOp::MaxS, result, low);
            result = self.bin(BinOp::MinS, result, high);
        }
        let result = self.un(UnOp::Truncate, result);
        self.set_reg(v.get("rd"), result);
        Ok(())
    }

    /// VABSDIFF4.ACC: c plus the distances of a's and b's four bytes (other forms refused by name).
    fn byte_distances(&mut self, v: &View) -> Result {
        if v.get("mode") != 1 || v.flag("sat") || v.flag("sd") {
            return self.unimplemented(v, Self::text(v));
        }
        let (a, b) = (self.reg(v.get("ra")), self.reg(v.get("rb")));
        let mut sum = self.reg(v.get("rc"));
        for byte in 0..4 {
            let x = self.video_part(a, byte, v.flag("signed_a"));
            let y = self.video_part(b, byte, v.flag("signed_b"));
            let less = self.cmp(Cmp::LtS, x, y);
            let (forward, backward) = (self.bin(BinOp::Sub, x, y), self.bin(BinOp::Sub, y, x));
            let distance = self.select(less, backward, forward);
            let distance = self.un(UnOp::Truncate, distance);
            sum = self.bin(BinOp::Add, sum, distance);
        }
        self.set_reg(v.get("rd"), sum);
        Ok(())
    }
}
