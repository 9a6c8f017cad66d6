//! The warp's matrix products (SM86 IMMA, HMMA, BMMA, DMMA) as warp exchanges: every lane publishes its
//! registers of A and B; after the barrier each lane reads the rows of A and the columns of B that its elements
//! of D need from the lanes holding them (the layouts are the interpreter's, `sass::exec::mma`), and computes
//! those elements as the interpreter does, bit for bit.
//!
//! HMMA's sums are the H200's (`gpu/research/mma.md` §5-6) built from exact FP64 steps: A and B elements and
//! their products are exact in FP64 (at most 11-bit significands; BF16 and TF32 products stay within FP64's
//! range), so that the alignment of an FP32 sum and the exact sum of an FP16 one are FP64 operations that do
//! not round.

use super::ir::{BinOp, Cmp, FArith, Op, Round, Special, UnOp, Value};
use super::lower::Lower;
use crate::sass::exec::mma::{BF16, F16, F32, Format, Product, Shape};
use crate::sass::text::View;

impl Lower<'_> {
    /// What a matrix product publishes: its registers of A, then those of B (DMMA's: one pair each).
    pub(super) fn matrix_operands(&mut self, v: &View) -> Vec<Value> {
        let product = Product::of(v).expect("checked when the instruction was lowered");
        let Some(shape) = product.shape() else {
            return vec![self.reg64(v.get("ra")), self.reg64(v.get("rb"))];
        };
        let mut values = Vec::new();
        for (first, count) in [(v.get("ra"), shape.a_registers()), (v.get("rb"), shape.b_registers())] {
            for i in 0..count as u64 {
                values.push(self.reg(first + i));
            }
        }
        values
    }

    /// The lane's elements of D: rows g (and g + 8), columns 2t and 2t + 1, g and t the lane's index / 4 and % 4.
    pub(super) fn matrix_product_result(&mut self, v: &View) {
        let product = Product::of(v).expect("checked when the instruction was lowered");
        let lane = self.op(Op::Special(Special::LaneId));
        let (two, three) = (self.const32(2), self.const32(3));
        let g = self.bin(BinOp::ShrU, lane, two);
        let t = self.bin(BinOp::And, lane, three);
        let Some(shape) = product.shape() else {
            return self.double_product(v, g, t);
        };
        let (a, b) = self.product_operands(shape, g, t);
        // Each element decoded once (integers extended, floats as FP64), then used by two of D's.
        let decode = |l: &mut Self, rows: Vec<Vec<Value>>, decode: &dyn Fn(&mut Self, Value, usize) -> Value| {
            let per_word = shape.per_register();
            rows.into_iter()
                .map(|words| {
                    words.into_iter().flat_map(|word| (0..per_word).map(move |n| (word, n))).collect::<Vec<_>>()
                })
                .map(|elements| elements.into_iter().map(|(word, n)| decode(l, word, n)).collect())
                .collect::<Vec<Vec<Value>>>()
        };
        let (a, b) = match product {
            Product::Integer { signed: (a_signed, b_signed), .. } => (
                decode(self, a, &|l, word, n| l.element(word, n, shape.bits, a_signed)),
                decode(self, b, &|l, word, n| l.element(word, n, shape.bits, b_signed)),
            ),
            Product::Float { inputs, .. } => (
                decode(self, a, &|l, word, n| l.input_f64(word, n, inputs)),
                decode(self, b, &|l, word, n| l.input_f64(word, n, inputs)),
            ),
            _ => (a, b),
        };
        // C is read whole before D is written: they may share registers.
        if let Product::Float { f32_accumulator: false, .. } = product {
            let c: Vec<Value> = (0..shape.c16_registers() as u64).map(|i| self.reg(v.get("rc") + i)).collect();
            let d: Vec<Value> = (0..shape.c16_registers())
                .map(|i| {
                    let [low, high] = [0, 1].map(|h| {
                        let (row, column) = Shape::c16_position(0, i, h);
                        let sixteen = self.const32(16 * h as u32);
                        let half = self.bin(BinOp::ShrU, c[i], sixteen);
                        let half = self.un(UnOp::HalfToF64, half);
                        self.float_sum(&a[row / 8], &b[column], half, false)
                    });
                    let sixteen = self.const32(16);
                    let high = self.bin(BinOp::Shl, high, sixteen);
                    self.bin(BinOp::Or, low, high)
                })
                .collect();
            for (i, value) in d.into_iter().enumerate() {
                self.set_reg(v.get("rd") + i as u64, value);
            }
            return;
        }
        let c: Vec<Value> = (0..shape.c_registers() as u64).map(|i| self.reg(v.get("rc") + i)).collect();
        let d: Vec<Value> = (0..shape.c_registers())
            .map(|i| {
                let (row, column) = shape.c_position(0, i);
                let (a, b) = (&a[row / 8], &b[column]);
                match product {
                    Product::Integer { saturate, .. } => self.integer_sum(a, b, c[i], saturate),
                    Product::Bit { and, .. } => self.bit_sum(a, b, c[i], and),
                    Product::Float { .. } => {
                        let c = self.un(UnOp::F32ToF64, c[i]);
                        self.float_sum(a, b, c, true)
                    }
                    Product::Double => unreachable!("DMMA has no shape"),
                }
            })
            .collect();
        for (i, value) in d.into_iter().enumerate() {
            self.set_reg(v.get("rd") + i as u64, value);
        }
    }

    /// The words of A's rows g and g + 8 (one row when M is 8) and of B's columns 2t and 2t + 1, each in K
    /// order (a word holds `shape.per_register()` elements, the first in its low bits), from the lanes that
    /// published them: A's row g + 8r from lanes 4g.., B's column c from lanes 4c...
    fn product_operands(&mut self, shape: Shape, g: Value, t: Value) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
        let per_register = shape.per_register();
        let words = shape.k / per_register;
        let mut a = vec![vec![None; words]; shape.m / 8];
        let mut b = vec![vec![None; words]; 2];
        let four = self.const32(4);
        let row_lanes = self.bin(BinOp::Mul, g, four);
        let eight = self.const32(8);
        let column_lanes = self.bin(BinOp::Mul, t, eight);
        for source in 0..4 {
            for i in 0..shape.a_registers() {
                let (row, column) = shape.a_position(source, i, 0);
                let offset = self.const32(source as u32);
                let lane = self.bin(BinOp::Add, row_lanes, offset);
                a[row / 8][column / per_register] = Some(self.op(Op::WarpRead { lane, word: i as u8 }));
            }
            for i in 0..shape.b_registers() {
                let (k, _) = shape.b_position(source, i, 0);
                for (j, column) in b.iter_mut().enumerate() {
                    let offset = self.const32((4 * j + source) as u32);
                    let lane = self.bin(BinOp::Add, column_lanes, offset);
                    let word = (shape.a_registers() + i) as u8;
                    column[k / per_register] = Some(self.op(Op::WarpRead { lane, word }));
                }
            }
        }
        let complete = |rows: Vec<Vec<Option<Value>>>| -> Vec<Vec<Value>> {
            rows.into_iter().map(|row| row.into_iter().map(|w| w.expect("every word has a lane")).collect()).collect()
        };
        (complete(a), complete(b))
    }

    /// Element `n` of `word`, of `bits` bits, sign-extended when `signed`.
    fn element(&mut self, word: Value, n: usize, bits: u32, signed: bool) -> Value {
        let top = self.const32(32 - bits * (n as u32 + 1));
        let moved = self.bin(BinOp::Shl, word, top);
        let bottom = self.const32(32 - bits);
        self.bin(if signed { BinOp::ShrS } else { BinOp::ShrU }, moved, bottom)
    }

    /// IMMA's element (the interpreter's `mma::integer_mma`): C + the exact sum of the products of the
    /// extended elements, wrapped to 32 bits or clamped to the signed range.
    fn integer_sum(&mut self, a: &[Value], b: &[Value], c: Value, saturate: bool) -> Value {
        let mut products = self.const32(0);
        for (&x, &y) in a.iter().zip(b) {
            let product = self.bin(BinOp::Mul, x, y);
            products = self.bin(BinOp::Add, products, product);
        }
        // At most 64 products of 8 bits by 8: the sum of the products fits in 32 bits.
        if !saturate {
            return self.bin(BinOp::Add, c, products);
        }
        let (c, products) = (self.un(UnOp::ExtendS, c), self.un(UnOp::ExtendS, products));
        let sum = self.bin(BinOp::Add, c, products);
        let lowest = self.const64(i64::from(i32::MIN) as u64);
        let highest = self.const64(i32::MAX as u64);
        let sum = self.bin(BinOp::MaxS, sum, lowest);
        let sum = self.bin(BinOp::MinS, sum, highest);
        self.un(UnOp::Truncate, sum)
    }

    /// BMMA's element (`mma::bit_mma`): C + the ones of row AND (or XOR) column.
    fn bit_sum(&mut self, a: &[Value], b: &[Value], c: Value, and: bool) -> Value {
        let mut sum = c;
        for (&x, &y) in a.iter().zip(b) {
            let bits = self.bin(if and { BinOp::And } else { BinOp::Xor }, x, y);
            let ones = self.un(UnOp::PopCount, bits);
            sum = self.bin(BinOp::Add, sum, ones);
        }
        sum
    }

    /// An element of A or B in `inputs` as FP64 (TF32 reads an FP32 word's top 19 bits).
    fn input_f64(&mut self, word: Value, n: usize, inputs: Format) -> Value {
        let single = if inputs == F16 {
            let sixteen = self.const32(16 * n as u32);
            let half = self.bin(BinOp::ShrU, word, sixteen);
            return self.un(UnOp::HalfToF64, half);
        } else if inputs == BF16 {
            if n == 0 {
                let sixteen = self.const32(16);
                self.bin(BinOp::Shl, word, sixteen)
            } else {
                let mask = self.const32(0xffff_0000);
                self.bin(BinOp::And, word, mask)
            }
        } else {
            debug_assert_eq!(inputs, F32);
            let mask = self.const32(0xffff_e000);
            self.bin(BinOp::And, word, mask)
        };
        self.un(UnOp::F32ToF64, single)
    }

    fn add64(&mut self, x: Value, y: Value) -> Value {
        self.bin(BinOp::FAddHost64, x, y)
    }

    fn mul64(&mut self, x: Value, y: Value) -> Value {
        self.bin(BinOp::FMulHost64, x, y)
    }

    fn negate64(&mut self, x: Value) -> Value {
        let sign = self.const64(1 << 63);
        self.bin(BinOp::Xor, x, sign)
    }

    /// `x` rounded down to a multiple of 2^-8 (exact).
    fn floor_to_eighth_bits(&mut self, x: Value) -> Value {
        let (up, down) = (self.const64(256f64.to_bits()), self.const64((1.0f64 / 256.0).to_bits()));
        let scaled = self.mul64(x, up);
        let floor = self.un(UnOp::Floor, scaled);
        self.mul64(floor, down)
    }

    /// HMMA's element (`mma::float_mma`): C + the products of row `a` and column `b` (all FP64), as FP32 bits
    /// or FP16 bits.
    fn float_sum(&mut self, a: &[Value], b: &[Value], c: Value, f32_accumulator: bool) -> Value {
        let mut terms = vec![c];
        for (&x, &y) in a.iter().zip(b) {
            terms.push(self.mul64(x, y));
        }
        // NaN (a NaN, 0 x infinity, infinities of both signs), infinity, and zeros alone: the FP64 sum's.
        let mut raw_sum = terms[0];
        for &term in &terms[1..] {
            raw_sum = self.add64(raw_sum, term);
        }
        let magnitude_mask = self.const64(!(1 << 63));
        let mut largest = self.const64(0);
        for &term in &terms {
            let magnitude = self.bin(BinOp::And, term, magnitude_mask);
            largest = self.bin(BinOp::MaxU, largest, magnitude);
        }
        let sum_magnitude = self.bin(BinOp::And, raw_sum, magnitude_mask);
        let infinity = self.const64(0x7ff0 << 48);
        let special = self.cmp(Cmp::GeU, sum_magnitude, infinity);
        let zero = self.const64(0);
        let zeros = self.cmp(Cmp::Eq, largest, zero);
        let t = self.bool(true);
        let unusual = self.select(special, t, zeros);
        let sum = if f32_accumulator {
            // Infinities and zeros are exact whatever the rounding.
            let aligned = self.aligned_sum(&terms, largest);
            let wide = self.select(unusual, raw_sum, aligned);
            self.op(Op::F64ToF32(Round::TowardZero, wide))
        } else {
            self.nearest_half_sum(&terms, unusual, raw_sum)
        };
        let nan = self.un(UnOp::IsNan, raw_sum);
        let canonical = self.const32(if f32_accumulator { 0x7fff_ffff } else { 0x7fff });
        self.select(nan, canonical, sum)
    }

    /// An FP32 sum before its rounding toward zero: every term truncated to a multiple of 2^(E-25), E the
    /// exponent of the `largest` (the magnitude's bits), then the exact sum of those (FP64).
    fn aligned_sum(&mut self, terms: &[Value], largest: Value) -> Value {
        let fifty_two = self.const32(52);
        let exponent = self.bin(BinOp::ShrU, largest, fifty_two);
        // 2^(25-E) and 2^(E-25) (biased: 1023 + 25 - E is 2071 - the field), in range for every finite term.
        let [scale, grid] = [(true, 2071), (false, 25)].map(|(from_constant, k)| {
            let k = self.const64(k);
            let field =
                if from_constant { self.bin(BinOp::Sub, k, exponent) } else { self.bin(BinOp::Sub, exponent, k) };
            self.bin(BinOp::Shl, field, fifty_two)
        });
        let mut total = self.const64(0);
        for &term in terms {
            // Below 2^26 in units of the grid: 17 of them add exactly.
            let scaled = self.mul64(term, scale);
            let aligned = self.un(UnOp::Trunc, scaled);
            total = self.add64(total, aligned);
        }
        self.mul64(total, grid)
    }

    /// An FP16 sum: the exact sum of `terms` (multiples of 2^-48 below 2^33) rounded to nearest even. Each term
    /// splits exactly into a multiple of 2^-8 and a rest in [0, 2^-8); the two sums are exact, and after moving
    /// the rest's whole eighths over, their FP64 sum and its error (TwoSum) say on which side of a tie the
    /// exact sum lies. `unusual`: `raw_sum` (an infinity or a zero) is the result, rounded.
    fn nearest_half_sum(&mut self, terms: &[Value], unusual: Value, raw_sum: Value) -> Value {
        let (mut high, mut low) = (self.const64(0), self.const64(0));
        for &term in terms {
            let whole = self.floor_to_eighth_bits(term);
            let negated = self.negate64(whole);
            let rest = self.add64(term, negated);
            high = self.add64(high, whole);
            low = self.add64(low, rest);
        }
        let carried = self.floor_to_eighth_bits(low);
        let high = self.add64(high, carried);
        let negated = self.negate64(carried);
        let low = self.add64(low, negated);
        let sum = self.add64(high, low);
        let negated_high = self.negate64(high);
        let low_part = self.add64(sum, negated_high);
        let negated_low_part = self.negate64(low_part);
        let high_part = self.add64(sum, negated_low_part);
        let negated_high_part = self.negate64(high_part);
        let high_error = self.add64(high, negated_high_part);
        let low_error = self.add64(low, negated_low_part);
        let error = self.add64(high_error, low_error);
        // The FP16 values either side of the FP64 sum (beyond the largest, 2^16: where a tie rounds to infinity).
        let below = self.op(Op::F32ToHalf(Round::TowardNegative, sum));
        let above = self.op(Op::F32ToHalf(Round::TowardPositive, sum));
        let [below_value, above_value] = [(below, -65536.0), (above, 65536.0)].map(|(half, beyond)| {
            let value = self.un(UnOp::HalfToF64, half);
            let mask = self.const32(0x7fff);
            let magnitude = self.bin(BinOp::And, half, mask);
            let infinity = self.const32(0x7c00);
            let overflows = self.cmp(Cmp::Eq, magnitude, infinity);
            let beyond = self.const64(f64::to_bits(beyond));
            self.select(overflows, beyond, value)
        });
        let both = self.add64(below_value, above_value);
        let half = self.const64(0.5f64.to_bits());
        let middle = self.mul64(both, half);
        let at_middle = self.cmp(Cmp::FEq, middle, sum);
        let between = self.cmp(Cmp::Ne, below, above);
        let f = self.bool(false);
        let tie = self.select(between, at_middle, f);
        let zero = self.const64(0);
        let (up, down) = (self.cmp(Cmp::FGt, error, zero), self.cmp(Cmp::FLt, error, zero));
        let rounded = self.select(unusual, raw_sum, sum);
        let nearest = self.op(Op::F32ToHalf(Round::NearestEven, rounded));
        let f = self.bool(false);
        let tie = self.select(unusual, f, tie);
        let down_or_nearest = self.select(down, below, nearest);
        let broken = self.select(up, above, down_or_nearest);
        self.select(tie, broken, nearest)
    }

    /// DMMA.884 (`float::dmma_884`): the lane's elements (g, 2t) and (g, 2t + 1), each C's with the products
    /// of k = 0..3 added in order by fused multiply-adds; A's element (r, k) comes from lane 4r + k, B's (k, c)
    /// from lane 4c + k.
    fn double_product(&mut self, v: &View, g: Value, t: Value) {
        let four = self.const32(4);
        let row_lanes = self.bin(BinOp::Mul, g, four);
        let eight = self.const32(8);
        let column_lanes = self.bin(BinOp::Mul, t, eight);
        let c_raw: Vec<Value> = [0, 2].iter().map(|i| self.reg64(v.get("rc") + i)).collect();
        let mut d = Vec::new();
        for (i, &raw) in c_raw.iter().enumerate() {
            let mut accumulator = self.float64_modifiers(raw, v.flag("neg_c"), v.flag("abs_c"));
            let mut accumulator_raw = raw;
            for k in 0..4u32 {
                let a_lane = {
                    let k = self.const32(k);
                    self.bin(BinOp::Add, row_lanes, k)
                };
                let b_lane = {
                    let offset = self.const32(4 * i as u32 + k);
                    self.bin(BinOp::Add, column_lanes, offset)
                };
                let [a_raw, b_raw] = [(a_lane, 0), (b_lane, 2)].map(|(lane, word)| {
                    let low = self.op(Op::WarpRead { lane, word });
                    let high = self.op(Op::WarpRead { lane, word: word + 1 });
                    self.pair(low, high)
                });
                let a = self.float64_modifiers(a_raw, v.flag("neg_a"), v.flag("abs_a"));
                let b = self.float64_modifiers(b_raw, v.flag("neg_b"), v.flag("abs_b"));
                accumulator =
                    self.double_arith(FArith::Fma, v.get("rnd"), [a, b, accumulator], [a_raw, b_raw, accumulator_raw]);
                accumulator_raw = accumulator;
            }
            d.push(accumulator);
        }
        for (i, value) in d.into_iter().enumerate() {
            self.set_reg64(v.get("rd") + 2 * i as u64, value);
        }
    }
}
