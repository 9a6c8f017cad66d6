//! FP64 on the bits of U64 values, exact whatever the host's FP64 does: Vulkan lets a driver flush FP64
//! denormals, leave `OpFma` unfused and fold `x + 0.0`, and SPIR-V has no per-instruction rounding mode. So
//! arithmetic is integer arithmetic on the significands (one fused multiply-add function a module calls, which
//! rounds once in the mode it is given), comparisons compare integer keys and rounding to an integral value
//! masks fraction bits. Only MUFU's seeds (`FDiv`, `InverseSqrt` on U64) use the host's FP64: they are
//! approximations anyway.
//!
//! NaN operands give some NaN here; which one Maxwell returns is the lowering's business, as for FP32.

use super::{Emitter, glsl};
use crate::shader::ir::{BinOp, Cmp, FArith, Round, Type, UnOp};
use rspirv::spirv::{FunctionControl, Word};

const MAGNITUDE: u64 = !(1 << 63);
const INFINITY: u64 = 0x7ff0_0000_0000_0000;
const LARGEST: u64 = 0x7fef_ffff_ffff_ffff;
const ONE: u64 = 0x3ff0_0000_0000_0000;
const HALF: u64 = 0x3fe0_0000_0000_0000;
/// The NaN an invalid operation (infinity - infinity, 0 x infinity) gives.
const CANONICAL_NAN: u64 = 0x7fff_ffff_ffff_ffff;
/// The fused function's control word: the rounding mode in bits 1:0, and this bit for a product alone.
const PRODUCT_ONLY: u32 = 4;
/// Where the fused function keeps a significand's leading one in its 128-bit sums: room for a carry above it,
/// and 20 zero bits below a product, so that aligning by one bit loses nothing.
const LEADING_BIT: u32 = 125;

/// A 128-bit integer as its (high, low) U64 words.
type Wide = (Word, Word);

impl Emitter<'_> {
    /// FP64 `kind` on U64 bits, rounded once in `round`: a call of the module's fused multiply-add (an add is
    /// a x 1.0 + b, which rounds and signs zeros as the add does).
    pub(super) fn float64_arith(&mut self, kind: FArith, round: Round, [a, b, c]: [Word; 3]) -> Word {
        let function = match self.fused64 {
            Some(function) => function,
            None => *self.fused64.insert(self.b.id()),
        };
        let mode = round as u32;
        let (one, zero) = (self.u64_const(ONE), self.u64_const(0));
        let (a, b, c, control) = match kind {
            FArith::Add => (a, one, b, mode),
            FArith::Mul => (a, b, zero, mode | PRODUCT_ONLY),
            FArith::Fma => (a, b, c, mode),
        };
        let control = self.u32_const(control);
        self.b.function_call(self.t.u64, None, function, [a, b, c, control]).expect("in a block")
    }

    /// Emits the fused multiply-add function if the module calls it: `(a, b, c, control) -> a * b + c` (or
    /// `a * b` with PRODUCT_ONLY), the exact value rounded once. Outside any function.
    pub(super) fn emit_fused64(&mut self) {
        let Some(function) = self.fused64 else { return };
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let function_type = self.b.type_function(u64_, [u64_, u64_, u64_, u32_]);
        self.b.begin_function(u64_, Some(function), FunctionControl::NONE, function_type).expect("no function is open");
        let [a, b, c] = [0; 3].map(|_| self.b.function_parameter(u64_).expect("in a function"));
        let control = self.b.function_parameter(u32_).expect("in a function");
        self.b.begin_block(None).expect("in a function");
        let result = self.fused64_body(a, b, c, control);
        self.b.ret_value(result).expect("in a block");
        self.b.end_function().expect("the function is open");
    }

    fn fused64_body(&mut self, a: Word, b: Word, c: Word, control: Word) -> Word {
        use Type::{U32, U64};
        let mode = self.int(BinOp::And, U32, control, 3);
        let rn = self.int_cmp(Cmp::Eq, U32, mode, 0);
        let rm = self.int_cmp(Cmp::Eq, U32, mode, 1);
        let rp = self.int_cmp(Cmp::Eq, U32, mode, 2);
        let only_bit = self.int(BinOp::And, U32, control, u64::from(PRODUCT_ONLY));
        let product_only = self.int_cmp(Cmp::Ne, U32, only_bit, 0);

        let [(sa, za, ia, na), (sb, zb, ib, nb), (sc, zc, ic, nc)] = [a, b, c].map(|x| self.classify64(x));
        let sp = self.logical(BinOp::Xor, sa, sb);
        let zp = self.logical(BinOp::Or, za, zb);
        let ip = self.logical(BinOp::Or, ia, ib);
        let not_only = self.not(product_only);
        let c_counts = {
            let nonzero = self.not(zc);
            self.logical(BinOp::And, not_only, nonzero)
        };

        // The exact product: 106 bits from 53 x 53, its leading one moved to LEADING_BIT, and the exponent X
        // for which the value is R x 2^(X - 1023 - LEADING_BIT) (X is the biased exponent while the leading one
        // sits there).
        let (ma, ea) = self.normalized64(a);
        let (mb, eb) = self.normalized64(b);
        let (high, low) = self.product128(ma, mb);
        let top = self.int(BinOp::ShrU, U64, high, 41);
        let top_set = self.int_cmp(Cmp::Ne, U64, top, 0);
        let (twenty, twenty_one) = (self.u32_const(20), self.u32_const(21));
        let shift = self.select32(top_set, twenty, twenty_one);
        let product = self.shl128((high, low), shift);
        let exponents = self.op32(BinOp::Add, ea, eb);
        let (bias_top, bias) = (self.u32_const(1022), self.u32_const(1023));
        let bias = self.select32(top_set, bias_top, bias);
        let xp = self.op32(BinOp::Sub, exponents, bias);
        // The addend at the same place: 53 bits moved up by LEADING_BIT - 52.
        let (mc, xc) = self.normalized64(c);
        let c_high = self.int(BinOp::Shl, U64, mc, u64::from(LEADING_BIT - 52 - 64));
        let zero64 = self.u64_const(0);
        let addend = (self.select64(c_counts, c_high, zero64), zero64);

        // The larger magnitude first; the other aligned to it, the bits shifted out kept as a sticky bit.
        let greater_exponent = self.compare(Cmp::GtS, U32, xp, xc);
        let equal_exponent = self.compare(Cmp::Eq, U32, xp, xc);
        let not_less = self.wide_not_less(product, addend);
        let p_first = self.logical(BinOp::And, equal_exponent, not_less);
        let p_first = self.logical(BinOp::Or, greater_exponent, p_first);
        let no_c = self.not(c_counts);
        let p_first = self.logical(BinOp::Or, no_c, p_first);
        let big = self.select_wide(p_first, product, addend);
        let small = self.select_wide(p_first, addend, product);
        let x = self.select32(p_first, xp, xc);
        let x_small = self.select32(p_first, xc, xp);
        let sign = self.b.select(self.t.bool, None, p_first, sp, sc).expect("in a block");
        let small_sign = self.b.select(self.t.bool, None, p_first, sc, sp).expect("in a block");
        let distance = self.op32(BinOp::Sub, x, x_small);
        let aligned = self.shr128(small, distance);
        let lost = self.low_bits_nonzero(small, distance);
        let one64 = self.u64_const(1);
        let jam = self.select64(lost, one64, zero64);
        let aligned = (aligned.0, self.op64(BinOp::Or, aligned.1, jam));
        let subtract = self.b.logical_not_equal(self.t.bool, None, sign, small_sign).expect("in a block");
        let sum = self.add128(big, aligned);
        let difference = self.sub128(big, aligned);
        let r = self.select_wide(subtract, difference, sum);
        let general = self.round_pack64(r, x, sign, [rn, rm, rp]);

        // Zeros, infinities and NaNs.
        let sign_bit = |e: &mut Self, s: Word| {
            let (negative, positive) = (e.u64_const(1 << 63), e.u64_const(0));
            e.select64(s, negative, positive)
        };
        let sp_bits = sign_bit(self, sp);
        let r_zero = {
            let either = self.op64(BinOp::Or, r.0, r.1);
            self.int_cmp(Cmp::Eq, U64, either, 0)
        };
        // An exact cancellation is +0, -0 when rounding down.
        let cancelled = sign_bit(self, rm);
        let mut result = self.select64(r_zero, cancelled, general);
        // A zero product: the addend itself, a zero of the product's sign alone, or (both zeros) the sign both
        // share, else that of an exact cancellation.
        let shared = self.b.logical_equal(self.t.bool, None, sp, sc).expect("in a block");
        let zeros_sign = self.select64(shared, sp_bits, cancelled);
        let with_zero_c = self.select64(zc, zeros_sign, c);
        let zero_product = self.select64(product_only, sp_bits, with_zero_c);
        result = self.select64(zp, zero_product, result);
        let infinity = self.u64_const(INFINITY);
        let c_infinite = self.logical(BinOp::And, not_only, ic);
        result = self.select64(c_infinite, c, result);
        let nan = self.u64_const(CANONICAL_NAN);
        let p_infinity = self.op64(BinOp::Or, sp_bits, infinity);
        let opposite = self.b.logical_not_equal(self.t.bool, None, sp, sc).expect("in a block");
        let cancelling = self.logical(BinOp::And, c_infinite, opposite);
        let infinite_result = self.select64(cancelling, nan, p_infinity);
        result = self.select64(ip, infinite_result, result);
        let invalid = self.logical(BinOp::And, ip, zp);
        let c_nan = self.logical(BinOp::And, not_only, nc);
        let any_nan = self.logical(BinOp::Or, na, nb);
        let any_nan = self.logical(BinOp::Or, any_nan, c_nan);
        let invalid = self.logical(BinOp::Or, invalid, any_nan);
        self.select64(invalid, nan, result)
    }

    /// A nonzero exact value R x 2^(x - 1023 - LEADING_BIT) of sign `negative`, rounded to FP64 bits in the mode
    /// ([rn, rm, rp] say which; none is toward zero): 53 bits kept below the leading one, fewer for a denormal
    /// result, the rest deciding the rounding; past the largest finite value, infinity or the largest by mode.
    fn round_pack64(&mut self, r: Wide, x: Word, negative: Word, [rn, rm, rp]: [Word; 3]) -> Word {
        use Type::{U32, U64};
        let (u64_, bool_) = (self.t.u64, self.t.bool);
        let leading = self.msb128(r);
        // The biased exponent of the result, and the bits to drop: 52 below the leading one, more for a
        // denormal (field 0, its unit that of exponent 1).
        let sum = self.op32(BinOp::Add, leading, x);
        let field = self.int(BinOp::Sub, U32, sum, u64::from(LEADING_BIT));
        let one = self.u32_const(1);
        let below_normal = self.op32(BinOp::Sub, one, field);
        let zero = self.u32_const(0);
        let extra = self.op32(BinOp::MaxS, below_normal, zero);
        let base_drop = self.int(BinOp::Sub, U32, leading, 52);
        let drop = self.op32(BinOp::Add, base_drop, extra);
        // A value of fewer than 53 bits moves up instead, exactly (it fits the low word then).
        let grows = self.compare(Cmp::LtS, U32, drop, zero);
        let up_by = self.op32(BinOp::Sub, zero, drop);
        let grown = self.op64(BinOp::Shl, r.1, up_by);
        let kept = self.shr128(r, drop).1;
        let kept = self.select64(grows, grown, kept);
        let below_drop = self.op32(BinOp::Sub, drop, one);
        let round_bits = self.shr128(r, below_drop).1;
        let round_bit = self.int(BinOp::And, U64, round_bits, 1);
        let round_bit = self.int_cmp(Cmp::Ne, U64, round_bit, 0);
        let sticky = self.low_bits_nonzero(r, below_drop);
        let no = self.b.constant_false(bool_);
        let round_bit = self.b.select(bool_, None, grows, no, round_bit).expect("in a block");
        let sticky = self.b.select(bool_, None, grows, no, sticky).expect("in a block");
        let inexact = self.logical(BinOp::Or, round_bit, sticky);
        let odd = self.int(BinOp::And, U64, kept, 1);
        let odd = self.int_cmp(Cmp::Ne, U64, odd, 0);
        let tie_or_above = self.logical(BinOp::Or, sticky, odd);
        let nearest_up = self.logical(BinOp::And, round_bit, tie_or_above);
        let positive = self.not(negative);
        let up_positive = self.logical(BinOp::And, inexact, positive);
        let up_negative = self.logical(BinOp::And, inexact, negative);
        let directed = self.b.select(bool_, None, rp, up_positive, no).expect("in a block");
        let directed = self.b.select(bool_, None, rm, up_negative, directed).expect("in a block");
        let up = self.b.select(bool_, None, rn, nearest_up, directed).expect("in a block");
        let one64 = self.u64_const(1);
        let zero64 = self.u64_const(0);
        let increment = self.select64(up, one64, zero64);
        let kept = self.op64(BinOp::Add, kept, increment);
        // A normal result's kept bits carry the leading one at 52, so adding (field - 1) << 52 places it, and a
        // carry out of the significand moves into the exponent; a denormal's field is 0, and rounding up to
        // 2^52 makes the smallest normal.
        let normal = self.compare(Cmp::GeS, U32, field, one);
        let field_less_one = self.op32(BinOp::Sub, field, one);
        let field_less_one = self.b.u_convert(u64_, None, field_less_one).expect("in a block");
        let placed = self.int(BinOp::Shl, U64, field_less_one, 52);
        let packed = self.op64(BinOp::Add, placed, kept);
        let magnitude = self.select64(normal, packed, kept);
        let limit = self.u32_const(2047);
        let too_big = self.compare(Cmp::GeS, U32, field, limit);
        let beyond = self.int_cmp(Cmp::GeU, U64, magnitude, INFINITY);
        let overflow = self.logical(BinOp::Or, too_big, beyond);
        let to_infinity_directed = self.b.select(bool_, None, rp, positive, no).expect("in a block");
        let to_infinity_directed = self.b.select(bool_, None, rm, negative, to_infinity_directed).expect("in a block");
        let to_infinity = self.logical(BinOp::Or, rn, to_infinity_directed);
        let (infinity, largest) = (self.u64_const(INFINITY), self.u64_const(LARGEST));
        let overflowed = self.select64(to_infinity, infinity, largest);
        let magnitude = self.select64(overflow, overflowed, magnitude);
        let sign = self.u64_const(1 << 63);
        let sign = self.select64(negative, sign, zero64);
        self.op64(BinOp::Or, sign, magnitude)
    }

    /// (sign, zero, infinite, NaN) of FP64 bits.
    fn classify64(&mut self, x: Word) -> (Word, Word, Word, Word) {
        use Type::U64;
        let sign = self.int(BinOp::ShrU, U64, x, 63);
        let sign = self.int_cmp(Cmp::Ne, U64, sign, 0);
        let magnitude = self.int(BinOp::And, U64, x, MAGNITUDE);
        let zero = self.int_cmp(Cmp::Eq, U64, magnitude, 0);
        let infinite = self.int_cmp(Cmp::Eq, U64, magnitude, INFINITY);
        let nan = self.int_cmp(Cmp::GtU, U64, magnitude, INFINITY);
        (sign, zero, infinite, nan)
    }

    /// A finite nonzero FP64's significand with its leading one at bit 52, and the biased exponent that goes
    /// with it (below 1 for a denormal): the value is m x 2^(e - 1075).
    fn normalized64(&mut self, x: Word) -> (Word, Word) {
        use Type::{U32, U64};
        let u32_ = self.t.u32;
        let fraction = self.int(BinOp::And, U64, x, (1 << 52) - 1);
        let shifted = self.int(BinOp::ShrU, U64, x, 52);
        let field = self.b.u_convert(u32_, None, shifted).expect("in a block");
        let field = self.int(BinOp::And, U32, field, 0x7ff);
        let denormal = self.int_cmp(Cmp::Eq, U32, field, 0);
        let implicit = self.int(BinOp::Or, U64, fraction, 1 << 52);
        let significand = self.select64(denormal, fraction, implicit);
        let one = self.u32_const(1);
        let field = self.b.select(u32_, None, denormal, one, field).expect("in a block");
        let leading = self.msb64(significand);
        let fifty_two = self.u32_const(52);
        let shift = self.op32(BinOp::Sub, fifty_two, leading);
        let significand = self.op64(BinOp::Shl, significand, shift);
        (significand, self.op32(BinOp::Sub, field, shift))
    }

    /// The 128-bit product of two U64 below 2^53, from 32-bit halves.
    fn product128(&mut self, a: Word, b: Word) -> Wide {
        use Type::U64;
        let u64_ = self.t.u64;
        let halves = |e: &mut Self, x: Word| {
            let low = e.int(BinOp::And, U64, x, 0xffff_ffffu64);
            (low, e.int(BinOp::ShrU, U64, x, 32))
        };
        let ((a0, a1), (b0, b1)) = (halves(self, a), halves(self, b));
        let mul = |e: &mut Self, x: Word, y: Word| e.binary(BinOp::Mul, U64, u64_, x, y);
        let (p00, p01, p10, p11) = (mul(self, a0, b0), mul(self, a0, b1), mul(self, a1, b0), mul(self, a1, b1));
        // The high halves are below 2^21, so the cross terms' sum fits 64 bits.
        let middle = self.op64(BinOp::Add, p01, p10);
        let middle_low = self.int(BinOp::Shl, U64, middle, 32);
        let middle_high = self.int(BinOp::ShrU, U64, middle, 32);
        self.add128((p11, p00), (middle_high, middle_low))
    }

    fn add128(&mut self, (ah, al): Wide, (bh, bl): Wide) -> Wide {
        use Type::U64;
        let low = self.op64(BinOp::Add, al, bl);
        let carried = self.compare(Cmp::LtU, U64, low, al);
        let (one, zero) = (self.u64_const(1), self.u64_const(0));
        let carry = self.select64(carried, one, zero);
        let high = self.op64(BinOp::Add, ah, bh);
        (self.op64(BinOp::Add, high, carry), low)
    }

    fn sub128(&mut self, (ah, al): Wide, (bh, bl): Wide) -> Wide {
        use Type::U64;
        let low = self.op64(BinOp::Sub, al, bl);
        let borrowed = self.compare(Cmp::LtU, U64, al, bl);
        let (one, zero) = (self.u64_const(1), self.u64_const(0));
        let borrow = self.select64(borrowed, one, zero);
        let high = self.op64(BinOp::Sub, ah, bh);
        (self.op64(BinOp::Sub, high, borrow), low)
    }

    /// `a >= b` as 128-bit unsigned integers.
    fn wide_not_less(&mut self, (ah, al): Wide, (bh, bl): Wide) -> Word {
        use Type::U64;
        let high_greater = self.compare(Cmp::GtU, U64, ah, bh);
        let high_equal = self.compare(Cmp::Eq, U64, ah, bh);
        let low_not_less = self.compare(Cmp::GeU, U64, al, bl);
        let low_decides = self.logical(BinOp::And, high_equal, low_not_less);
        self.logical(BinOp::Or, high_greater, low_decides)
    }

    /// Shifts by any amount (U32; 128 and past give 0), as the IR's shifts are.
    fn shr128(&mut self, (high, low): Wide, amount: Word) -> Wide {
        use Type::U32;
        let sixty_four = self.u32_const(64);
        let within = self.compare(Cmp::LtU, U32, amount, sixty_four);
        let across = self.op32(BinOp::Sub, sixty_four, amount);
        let from_high = self.op64(BinOp::Shl, high, across);
        let low_part = self.op64(BinOp::ShrU, low, amount);
        let near = self.op64(BinOp::Or, low_part, from_high);
        let past = self.op32(BinOp::Sub, amount, sixty_four);
        let far = self.op64(BinOp::ShrU, high, past);
        let low = self.select64(within, near, far);
        (self.op64(BinOp::ShrU, high, amount), low)
    }

    fn shl128(&mut self, (high, low): Wide, amount: Word) -> Wide {
        use Type::U32;
        let sixty_four = self.u32_const(64);
        let within = self.compare(Cmp::LtU, U32, amount, sixty_four);
        let across = self.op32(BinOp::Sub, sixty_four, amount);
        let from_low = self.op64(BinOp::ShrU, low, across);
        let high_part = self.op64(BinOp::Shl, high, amount);
        let near = self.op64(BinOp::Or, high_part, from_low);
        let past = self.op32(BinOp::Sub, amount, sixty_four);
        let far = self.op64(BinOp::Shl, low, past);
        let high = self.select64(within, near, far);
        (high, self.op64(BinOp::Shl, low, amount))
    }

    /// Whether any of the low `count` bits (U32, any amount) of a 128-bit value is set.
    fn low_bits_nonzero(&mut self, value: Wide, count: Word) -> Word {
        use Type::{U32, U64};
        let limit = self.u32_const(128);
        let all = self.compare(Cmp::GeU, U32, count, limit);
        let rest = self.op32(BinOp::Sub, limit, count);
        let (high, low) = self.shl128(value, rest);
        let moved = self.op64(BinOp::Or, high, low);
        let moved = self.int_cmp(Cmp::Ne, U64, moved, 0);
        let whole = self.op64(BinOp::Or, value.0, value.1);
        let whole = self.int_cmp(Cmp::Ne, U64, whole, 0);
        self.b.select(self.t.bool, None, all, whole, moved).expect("in a block")
    }

    /// The index of a U64's highest set bit (garbage for 0).
    fn msb64(&mut self, x: Word) -> Word {
        use Type::{U32, U64};
        let u32_ = self.t.u32;
        let high = self.int(BinOp::ShrU, U64, x, 32);
        let high = self.b.u_convert(u32_, None, high).expect("in a block");
        let low = self.b.u_convert(u32_, None, x).expect("in a block");
        let high_msb = self.glsl(u32_, glsl::FIND_U_MSB, &[high]);
        let high_msb = self.int(BinOp::Add, U32, high_msb, 32);
        let low_msb = self.glsl(u32_, glsl::FIND_U_MSB, &[low]);
        let in_high = self.int_cmp(Cmp::Ne, U32, high, 0);
        self.b.select(u32_, None, in_high, high_msb, low_msb).expect("in a block")
    }

    fn msb128(&mut self, (high, low): Wide) -> Word {
        use Type::{U32, U64};
        let high_msb = self.msb64(high);
        let high_msb = self.int(BinOp::Add, U32, high_msb, 64);
        let low_msb = self.msb64(low);
        let in_high = self.int_cmp(Cmp::Ne, U64, high, 0);
        self.b.select(self.t.u32, None, in_high, high_msb, low_msb).expect("in a block")
    }

    /// An FP64 comparison of U64 bits (`cmp` one of the float comparisons): on integer keys that order the
    /// values as signed integers (a negative value's key is minus its magnitude, so -0 and +0 are equal).
    pub(super) fn compare64(&mut self, cmp: Cmp, x: Word, y: Word) -> Word {
        use Type::U64;
        let u64_ = self.t.u64;
        let key = |e: &mut Self, x: Word| {
            let magnitude = e.int(BinOp::And, U64, x, MAGNITUDE);
            let zero = e.u64_const(0);
            let negated = e.binary(BinOp::Sub, U64, u64_, zero, magnitude);
            let negative = e.int_cmp(Cmp::LtS, U64, x, 0u64);
            let nan = e.int_cmp(Cmp::GtU, U64, magnitude, INFINITY);
            (e.select64(negative, negated, magnitude), nan)
        };
        let ((kx, nan_x), (ky, nan_y)) = (key(self, x), key(self, y));
        let unordered = self.logical(BinOp::Or, nan_x, nan_y);
        let (integer, unordered_holds) = match cmp {
            Cmp::FLt => (Cmp::LtS, false),
            Cmp::FLe => (Cmp::LeS, false),
            Cmp::FGt => (Cmp::GtS, false),
            Cmp::FGe => (Cmp::GeS, false),
            Cmp::FEq => (Cmp::Eq, false),
            Cmp::FNe => (Cmp::Ne, false),
            Cmp::FLtU => (Cmp::LtS, true),
            Cmp::FLeU => (Cmp::LeS, true),
            Cmp::FGtU => (Cmp::GtS, true),
            Cmp::FGeU => (Cmp::GeS, true),
            Cmp::FEqU => (Cmp::Eq, true),
            _ => (Cmp::Ne, true),
        };
        let holds = self.compare(integer, U64, kx, ky);
        if unordered_holds {
            self.logical(BinOp::Or, unordered, holds)
        } else {
            let ordered = self.not(unordered);
            self.logical(BinOp::And, ordered, holds)
        }
    }

    /// FP64 bits rounded to an integral value (`op` RoundEven, Floor, Ceil or Trunc) by clearing fraction bits
    /// and stepping one unit: exact, the operand's sign kept on a zero result; infinities and NaNs unchanged.
    fn round_integral64(&mut self, op: UnOp, x: Word) -> Word {
        use Type::{U32, U64};
        let (u32_, u64_, bool_) = (self.t.u32, self.t.u64, self.t.bool);
        let negative = self.int_cmp(Cmp::LtS, U64, x, 0);
        let positive = self.not(negative);
        let magnitude = self.int(BinOp::And, U64, x, MAGNITUDE);
        let nonzero = self.int_cmp(Cmp::Ne, U64, magnitude, 0);
        let shifted = self.int(BinOp::ShrU, U64, x, 52);
        let field = self.b.u_convert(u32_, None, shifted).expect("in a block");
        let field = self.int(BinOp::And, U32, field, 0x7ff);
        let sign = self.int(BinOp::And, U64, x, 1 << 63);
        let signed_one = self.int(BinOp::Or, U64, sign, ONE);
        // Below 1: a zero of the operand's sign, or one unit away from zero.
        let away_from_zero = match op {
            UnOp::Floor => self.logical(BinOp::And, negative, nonzero),
            UnOp::Ceil => self.logical(BinOp::And, positive, nonzero),
            UnOp::RoundEven => self.int_cmp(Cmp::GtU, U64, magnitude, HALF),
            _ => self.b.constant_false(bool_),
        };
        let small = self.select64(away_from_zero, signed_one, sign);
        // From 1 to 2^52: the fraction bits below the unit 2^(1075 - field).
        let limit = self.u32_const(1075);
        let unit_shift = self.op32(BinOp::Sub, limit, field);
        let one64 = self.u64_const(1);
        let unit = self.op64(BinOp::Shl, one64, unit_shift);
        let fraction_mask = self.op64(BinOp::Sub, unit, one64);
        let fraction = self.op64(BinOp::And, x, fraction_mask);
        let inexact = self.int_cmp(Cmp::Ne, U64, fraction, 0);
        let kept_mask = self.b.not(u64_, None, fraction_mask).expect("in a block");
        let truncated = self.op64(BinOp::And, x, kept_mask);
        let step = match op {
            UnOp::Floor => self.logical(BinOp::And, negative, inexact),
            UnOp::Ceil => self.logical(BinOp::And, positive, inexact),
            UnOp::RoundEven => {
                let half = self.int(BinOp::ShrU, U64, unit, 1);
                let above = self.compare(Cmp::GtU, U64, fraction, half);
                let tie = self.compare(Cmp::Eq, U64, fraction, half);
                // The unit's own bit is the integer's lowest: odd when set (at 2^0 it is the exponent field's
                // lowest bit, set for [1, 2), whose integer 1 is odd).
                let odd = self.op64(BinOp::And, truncated, unit);
                let odd = self.int_cmp(Cmp::Ne, U64, odd, 0);
                let tie_to_even = self.logical(BinOp::And, tie, odd);
                self.logical(BinOp::Or, above, tie_to_even)
            }
            _ => self.b.constant_false(bool_),
        };
        let stepped = self.op64(BinOp::Add, truncated, unit);
        let middle = self.select64(step, stepped, truncated);
        let below_one = self.int_cmp(Cmp::LtU, U32, field, 1023);
        let integral = self.int_cmp(Cmp::GeU, U32, field, 1075);
        let value = self.select64(below_one, small, middle);
        self.select64(integral, x, value)
    }

    /// The float operations of `UnOp` on FP64 bits.
    pub(super) fn unary64(&mut self, op: UnOp, x: Word) -> Word {
        match op {
            UnOp::IsNan => {
                let magnitude = self.int(BinOp::And, Type::U64, x, MAGNITUDE);
                self.int_cmp(Cmp::GtU, Type::U64, magnitude, INFINITY)
            }
            UnOp::RoundEven | UnOp::Floor | UnOp::Ceil | UnOp::Trunc => self.round_integral64(op, x),
            UnOp::InverseSqrt => self.float64_inverse_sqrt(x),
            _ => unreachable!("{op:?} is not an FP64 operation"),
        }
    }

    /// MUFU's FP64 seeds on the host's FP64: 1 / x (`FDiv` of U64 bits) and 1 / sqrt(x).
    pub(super) fn float64_divide(&mut self, x: Word, y: Word) -> Word {
        let f64_ = self.t.f64;
        let (x, y) = (self.b.bitcast(f64_, None, x), self.b.bitcast(f64_, None, y));
        let (x, y) = (x.expect("in a block"), y.expect("in a block"));
        let quotient = self.b.f_div(f64_, None, x, y).expect("in a block");
        self.b.bitcast(self.t.u64, None, quotient).expect("in a block")
    }

    fn float64_inverse_sqrt(&mut self, x: Word) -> Word {
        let f64_ = self.t.f64;
        let x = self.b.bitcast(f64_, None, x).expect("in a block");
        let result = self.glsl(f64_, glsl::INVERSE_SQRT, &[x]);
        self.b.bitcast(self.t.u64, None, result).expect("in a block")
    }

    pub(super) fn u64_const(&mut self, value: u64) -> Word {
        self.b.constant_bit64(self.t.u64, value)
    }

    /// An integer operation with a constant second operand (a U32 for shifts, whatever the shifted type).
    fn int(&mut self, op: BinOp, ty: Type, x: Word, constant: u64) -> Word {
        let shift = matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS);
        let y = if shift || ty == Type::U32 { self.u32_const(constant as u32) } else { self.u64_const(constant) };
        let rt = if ty == Type::U64 { self.t.u64 } else { self.t.u32 };
        self.binary(op, ty, rt, x, y)
    }

    fn op64(&mut self, op: BinOp, x: Word, y: Word) -> Word {
        self.binary(op, Type::U64, self.t.u64, x, y)
    }

    fn op32(&mut self, op: BinOp, x: Word, y: Word) -> Word {
        self.binary(op, Type::U32, self.t.u32, x, y)
    }

    fn int_cmp(&mut self, cmp: Cmp, ty: Type, x: Word, constant: u64) -> Word {
        let y = if ty == Type::U64 { self.u64_const(constant) } else { self.u32_const(constant as u32) };
        self.compare(cmp, ty, x, y)
    }

    fn logical(&mut self, op: BinOp, x: Word, y: Word) -> Word {
        let bool_ = self.t.bool;
        match op {
            BinOp::And => self.b.logical_and(bool_, None, x, y),
            BinOp::Or => self.b.logical_or(bool_, None, x, y),
            _ => self.b.logical_not_equal(bool_, None, x, y),
        }
        .expect("in a block")
    }

    fn not(&mut self, x: Word) -> Word {
        self.b.logical_not(self.t.bool, None, x).expect("in a block")
    }

    fn select32(&mut self, condition: Word, x: Word, y: Word) -> Word {
        self.b.select(self.t.u32, None, condition, x, y).expect("in a block")
    }

    fn select64(&mut self, condition: Word, x: Word, y: Word) -> Word {
        self.b.select(self.t.u64, None, condition, x, y).expect("in a block")
    }

    fn select_wide(&mut self, condition: Word, x: Wide, y: Wide) -> Wide {
        (self.select64(condition, x.0, y.0), self.select64(condition, x.1, y.1))
    }
}
