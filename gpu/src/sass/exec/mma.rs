//! The warp's matrix instructions (Ampere): where each element of the operands of `mma.sync` lives in the 32
//! lanes' registers, and the integer and bit products (IMMA, BMMA). The layouts are the PTX ISA's fragment tables
//! (one rule for every m16n8 shape, and the m8n8k16 one: `gpu/research/mma.md` §3), checked bit for bit against
//! what an H200 gave for the oracle kernel `ampere.ptx`.

use super::WARP_SIZE;
use crate::sass::text::View;

/// The shape of a product D (M x 8) = A (M x K) · B (K x 8) + C, with `bits` per element of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) bits: u32,
}

/// What an SM86 matrix instruction computes, as its fields say: the interpreter and the translator both take
/// it from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Product {
    /// IMMA: A row-major and B column-major, of 8- or 4-bit integers, signed or not per operand; `saturate`
    /// clamps D to the signed 32-bit range.
    Integer { shape: Shape, signed: (bool, bool), saturate: bool },
    /// HMMA: A and B in `inputs`, C and D in FP32 (`f32_accumulator`) or FP16.
    Float { shape: Shape, inputs: Format, f32_accumulator: bool },
    /// BMMA .POPC: bit products by AND (`and`) or XOR.
    Bit { shape: Shape, and: bool },
    /// DMMA.884 (`float::dmma_884`).
    Double,
}

impl Product {
    /// The shape of an IMMA, HMMA or BMMA (DMMA's is fixed: `float::dmma_884`).
    pub(crate) fn shape(self) -> Option<Shape> {
        match self {
            Product::Integer { shape, .. } | Product::Float { shape, .. } | Product::Bit { shape, .. } => Some(shape),
            Product::Double => None,
        }
    }

    /// The product `v` (an IMMA, HMMA, BMMA or DMMA) computes; Err: the form neither path implements.
    pub(crate) fn of(v: &View) -> Result<Product, String> {
        Ok(match v.encoding.opcode {
            "IMMA" => {
                let (a_type, b_type) = (v.get("a_type"), v.get("b_type"));
                let four_bit = a_type & 4 != 0;
                if v.flag("col_a") || !v.flag("col_b") || (a_type | b_type) & 2 != 0 || (b_type & 4 != 0) != four_bit {
                    return Err(format!("IMMA with a_type {a_type}, b_type {b_type} or A not .ROW, B not .COL"));
                }
                let bits = if four_bit { 4 } else { 8 };
                // PTX's shapes: m8n8k16 and m16n8k16 of 8-bit elements, m16n8k32 of either, m16n8k64 of 4-bit.
                let shape = match (v.get("shape"), bits) {
                    (0, 8) => Shape { m: 8, k: 16, bits },
                    (4, 8) => Shape { m: 16, k: 16, bits },
                    (5, _) => Shape { m: 16, k: 32, bits },
                    (6, 4) => Shape { m: 16, k: 64, bits },
                    (other, _) => return Err(format!("IMMA shape {other} with {bits}-bit elements")),
                };
                Product::Integer { shape, signed: (a_type & 1 != 0, b_type & 1 != 0), saturate: v.flag("sat") }
            }
            "HMMA" => {
                let f32_accumulator = v.flag("f32");
                let (inputs, bits) = match v.get("ab_type") {
                    0 => (F16, 16),
                    1 if f32_accumulator => (BF16, 16),
                    2 if f32_accumulator => (F32, 32),
                    other => return Err(format!("HMMA of element type {other} (f32 {f32_accumulator})")),
                };
                let k = match (v.get("shape"), bits) {
                    (0, _) => 8,
                    (1, 16) => 16,
                    (shape, _) => return Err(format!("HMMA shape {shape} with {bits}-bit elements")),
                };
                if v.flag("neg_a") || v.flag("neg_b") {
                    return Err("HMMA with a negated operand".into());
                }
                Product::Float { shape: Shape { m: 16, k, bits }, inputs, f32_accumulator }
            }
            "BMMA" => {
                if v.get("shape") != 2
                    || !v.flag("popc")
                    || !matches!(v.get("op"), 0 | 2)
                    || v.flag("col_a")
                    || !v.flag("col_b")
                {
                    return Err(format!(
                        "BMMA shape {} op {} without .POPC or other layouts",
                        v.get("shape"),
                        v.get("op")
                    ));
                }
                Product::Bit { shape: Shape { m: 16, k: 256, bits: 1 }, and: v.get("op") == 2 }
            }
            "DMMA" => Product::Double,
            other => return Err(format!("{other} is not a matrix product")),
        })
    }
}

/// Each lane's registers of one operand, lowest first (at most 4).
pub(super) type WarpRegisters = [[u32; 4]; WARP_SIZE];

impl Shape {
    /// Registers of A, of B, and of a 32-bit C or D, per lane.
    pub(crate) fn a_registers(self) -> usize {
        self.m * self.k * self.bits as usize / 1024
    }

    pub(crate) fn b_registers(self) -> usize {
        self.k * 8 * self.bits as usize / 1024
    }

    pub(crate) fn c_registers(self) -> usize {
        self.m * 8 * 32 / 1024
    }

    /// Elements per register.
    pub(crate) fn per_register(self) -> usize {
        32 / self.bits as usize
    }

    /// Where element `n` of register `i` of `lane` holds an element of A: (row, column).
    pub(crate) fn a_position(self, lane: usize, i: usize, n: usize) -> (usize, usize) {
        let (g, t, e) = (lane / 4, lane % 4, self.per_register());
        if self.m == 8 { (g, e * t + n) } else { (g + 8 * (i & 1), e * t + n + self.k / 2 * (i >> 1)) }
    }

    /// Where element `n` of register `i` of `lane` holds an element of B: (row, column).
    pub(crate) fn b_position(self, lane: usize, i: usize, n: usize) -> (usize, usize) {
        let (g, t, e) = (lane / 4, lane % 4, self.per_register());
        (e * t + n + self.k / 2 * i, g)
    }

    /// A as M rows of K raw elements.
    pub(super) fn matrix_a(self, registers: &WarpRegisters) -> Vec<Vec<u32>> {
        let mut a = vec![vec![0; self.k]; self.m];
        for (lane, held) in registers.iter().enumerate() {
            for (i, &register) in held.iter().enumerate().take(self.a_registers()) {
                for n in 0..self.per_register() {
                    let (row, column) = self.a_position(lane, i, n);
                    a[row][column] = self.element(register, n);
                }
            }
        }
        a
    }

    /// B as K rows of 8 raw elements.
    pub(super) fn matrix_b(self, registers: &WarpRegisters) -> Vec<[u32; 8]> {
        let mut b = vec![[0; 8]; self.k];
        for (lane, held) in registers.iter().enumerate() {
            for (i, &register) in held.iter().enumerate().take(self.b_registers()) {
                for n in 0..self.per_register() {
                    let (row, column) = self.b_position(lane, i, n);
                    b[row][column] = self.element(register, n);
                }
            }
        }
        b
    }

    /// Element `n` of a register: bits [n·bits, (n + 1)·bits).
    fn element(self, register: u32, n: usize) -> u32 {
        let shifted = register >> (n as u32 * self.bits);
        if self.bits == 32 { shifted } else { shifted & ((1 << self.bits) - 1) }
    }

    /// Where register `i` of a lane holds a 32-bit element of C or D: (row, column).
    pub(crate) fn c_position(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, t) = (lane / 4, lane % 4);
        if self.m == 8 { (g, 2 * t + i) } else { (g + 8 * (i >> 1), 2 * t + (i & 1)) }
    }

    /// C or D (M x 8 words) from its registers.
    pub(super) fn matrix_c(self, registers: &WarpRegisters) -> Vec<[u32; 8]> {
        let mut c = vec![[0; 8]; self.m];
        for (lane, held) in registers.iter().enumerate() {
            for (i, &register) in held.iter().enumerate().take(self.c_registers()) {
                let (row, column) = self.c_position(lane, i);
                c[row][column] = register;
            }
        }
        c
    }

    /// The registers that hold D (M x 8 words).
    pub(super) fn registers_of_d(self, d: &[[u32; 8]]) -> WarpRegisters {
        let mut registers = [[0; 4]; WARP_SIZE];
        for (lane, held) in registers.iter_mut().enumerate() {
            for (i, register) in held.iter_mut().enumerate().take(self.c_registers()) {
                let (row, column) = self.c_position(lane, i);
                *register = d[row][column];
            }
        }
        registers
    }
}

/// IMMA: D = C + A·B over integers of `shape.bits` bits (signed or not per operand), summed exactly, then wrapped
/// to 32 bits, or clamped to the signed 32-bit range with `saturate` (PTX's .satfinite).
pub(super) fn integer_mma(
    shape: Shape,
    a: &[Vec<u32>],
    b: &[[u32; 8]],
    c: &[[u32; 8]],
    (a_signed, b_signed): (bool, bool),
    saturate: bool,
) -> Vec<[u32; 8]> {
    let value = |raw: u32, signed: bool| {
        let unused = 32 - shape.bits;
        if signed { i64::from((raw << unused) as i32 >> unused) } else { i64::from(raw) }
    };
    (0..shape.m)
        .map(|row| {
            std::array::from_fn(|column| {
                let products: i64 =
                    (0..shape.k).map(|k| value(a[row][k], a_signed) * value(b[k][column], b_signed)).sum();
                let sum = i64::from(c[row][column] as i32) + products;
                if saturate { sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u32 } else { sum as u32 }
            })
        })
        .collect()
}

/// BMMA.168256 .POPC: D = C + popcount(row of A `op` column of B) over K bits, wrapping; `op` is XOR or AND.
pub(super) fn bit_mma(shape: Shape, a: &[Vec<u32>], b: &[[u32; 8]], c: &[[u32; 8]], and: bool) -> Vec<[u32; 8]> {
    (0..shape.m)
        .map(|row| {
            std::array::from_fn(|column| {
                let ones: u32 =
                    (0..shape.k).map(|k| if and { a[row][k] & b[k][column] } else { a[row][k] ^ b[k][column] }).sum();
                c[row][column].wrapping_add(ones)
            })
        })
        .collect()
}

/// LDSM .M88 (.MT88 with `transpose`): lane l's word j from matrix j's 8 rows of 16 bytes (`rows[8j + r]`, row r
/// as lane 8j + r addressed it). Untransposed, the word is row l/4's bytes 4(l%4)..; transposed, its halves are
/// column l/4 of rows 2(l%4) and 2(l%4) + 1.
pub(super) fn matrix_word(rows: &[[u8; 16]], j: usize, lane: usize, transpose: bool) -> u32 {
    let (g, t) = (lane / 4, lane % 4);
    let half = |row: &[u8; 16], column: usize| u32::from(u16::from_le_bytes([row[2 * column], row[2 * column + 1]]));
    if transpose {
        half(&rows[8 * j + 2 * t], g) | half(&rows[8 * j + 2 * t + 1], g) << 16
    } else {
        u32::from_le_bytes(rows[8 * j + g][4 * t..4 * t + 4].try_into().expect("four bytes"))
    }
}

impl Shape {
    /// Registers of a C or D of FP16 pairs, per lane.
    pub(crate) fn c16_registers(self) -> usize {
        self.m * 8 * 16 / 1024
    }

    /// Where half `h` of register `i` of a lane holds an FP16 element of C or D: (row, column).
    pub(crate) fn c16_position(lane: usize, i: usize, h: usize) -> (usize, usize) {
        (lane / 4 + 8 * i, 2 * (lane % 4) + h)
    }

    /// C (M x 8 FP16 elements) from its registers of pairs.
    pub(super) fn matrix_c16(self, registers: &WarpRegisters) -> Vec<[u32; 8]> {
        let mut c = vec![[0; 8]; self.m];
        for (lane, held) in registers.iter().enumerate() {
            for (i, &register) in held.iter().enumerate().take(self.c16_registers()) {
                for h in 0..2 {
                    let (row, column) = Self::c16_position(lane, i, h);
                    c[row][column] = register >> (16 * h) & 0xffff;
                }
            }
        }
        c
    }

    /// The registers of pairs that hold D (M x 8 FP16 elements).
    pub(super) fn registers_of_d16(self, d: &[[u32; 8]]) -> WarpRegisters {
        let mut registers = [[0; 4]; WARP_SIZE];
        for (lane, held) in registers.iter_mut().enumerate() {
            for (i, register) in held.iter_mut().enumerate().take(self.c16_registers()) {
                let [low, high] = [0, 1].map(|h| {
                    let (row, column) = Self::c16_position(lane, i, h);
                    d[row][column]
                });
                *register = low | high << 16;
            }
        }
        registers
    }
}

/// A floating-point format of HMMA's operands: exponent and fraction bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    exponent: u32,
    fraction: u32,
}

pub(crate) const F16: Format = Format { exponent: 5, fraction: 10 };
pub(crate) const BF16: Format = Format { exponent: 8, fraction: 7 };
/// TF32 operands are FP32 words of which only the top 19 bits count (the rest is ignored, not rounded).
pub(crate) const F32: Format = Format { exponent: 8, fraction: 23 };

/// A value as HMMA sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Nan,
    Infinity {
        negative: bool,
    },
    /// ±`mantissa`·2^`exponent`.
    Finite {
        negative: bool,
        mantissa: u128,
        exponent: i32,
    },
}

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exponent - 1)) - 1
    }

    fn decode(self, bits: u32) -> Value {
        let negative = bits >> (self.exponent + self.fraction) & 1 != 0;
        let field = (bits >> self.fraction) & ((1 << self.exponent) - 1);
        let fraction = u128::from(bits & ((1 << self.fraction) - 1));
        let lowest = 1 - self.bias() - self.fraction as i32;
        match field {
            0 => Value::Finite { negative, mantissa: fraction, exponent: lowest },
            _ if field == (1 << self.exponent) - 1 => {
                if fraction == 0 {
                    Value::Infinity { negative }
                } else {
                    Value::Nan
                }
            }
            _ => {
                Value::Finite { negative, mantissa: fraction | 1 << self.fraction, exponent: lowest + field as i32 - 1 }
            }
        }
    }

    /// ±`magnitude`·2^`exponent` in this format, rounded toward zero or to nearest even; overflow gives the
    /// largest finite value toward zero and infinity to nearest.
    fn round(self, negative: bool, magnitude: u128, exponent: i32, toward_zero: bool) -> u32 {
        let sign = u32::from(negative) << (self.exponent + self.fraction);
        if magnitude == 0 {
            return sign;
        }
        let width = 128 - magnitude.leading_zeros() as i32;
        let floor = exponent + width - 1;
        let lowest = 1 - self.bias() - self.fraction as i32;
        let mut unit = (floor - self.fraction as i32).max(lowest);
        let shift = unit - exponent;
        let mut mantissa = if shift <= 0 {
            magnitude << -shift
        } else if shift >= 128 {
            // Far below the smallest subnormal (products of the formats here never get there).
            0
        } else {
            let kept = magnitude >> shift;
            let rest = magnitude & ((1 << shift) - 1);
            let half = 1 << (shift - 1);
            let up = !toward_zero && (rest > half || (rest == half && kept & 1 == 1));
            kept + u128::from(up)
        };
        if mantissa >> (self.fraction + 1) != 0 {
            mantissa >>= 1;
            unit += 1;
        }
        if mantissa >> self.fraction == 0 {
            return sign | mantissa as u32;
        }
        let field = unit + self.fraction as i32 + self.bias();
        let infinity = (1u32 << self.exponent) - 1;
        if field >= infinity as i32 {
            let largest = (infinity - 1) << self.fraction | ((1 << self.fraction) - 1);
            return sign | if toward_zero { largest } else { infinity << self.fraction };
        }
        sign | (field as u32) << self.fraction | (mantissa as u32 & ((1 << self.fraction) - 1))
    }
}

/// HMMA: D = C + A·B with A and B in `inputs` (TF32 read from FP32 words), C and D in `accumulator` (FP32 or
/// FP16), as an H200 computes it (`gpu/research/mma.md` §5-6): a NaN, Inf·0 or infinities of both signs give the
/// canonical NaN, another infinity wins; products are exact; an FP16 D is the exact sum rounded to nearest even;
/// an FP32 D aligns every term to 2^(E-25), E the largest term's exponent, truncating, and rounds the exact sum
/// of those toward zero.
pub(super) fn float_mma(
    shape: Shape,
    a: &[Vec<u32>],
    b: &[[u32; 8]],
    c: &[[u32; 8]],
    inputs: Format,
    accumulator: Format,
) -> Vec<[u32; 8]> {
    let input = |raw: u32| inputs.decode(if inputs == F32 { raw & 0xffff_e000 } else { raw });
    let nan = if accumulator == F32 { 0x7fff_ffff } else { 0x7fff };
    (0..shape.m)
        .map(|row| {
            std::array::from_fn(|column| {
                let mut terms = vec![accumulator.decode(c[row][column])];
                for k in 0..shape.k {
                    terms.push(match (input(a[row][k]), input(b[k][column])) {
                        (Value::Nan, _) | (_, Value::Nan) => Value::Nan,
                        (Value::Infinity { .. }, Value::Finite { mantissa: 0, .. })
                        | (Value::Finite { mantissa: 0, .. }, Value::Infinity { .. }) => Value::Nan,
                        (Value::Infinity { negative: x }, Value::Infinity { negative: y })
                        | (Value::Infinity { negative: x }, Value::Finite { negative: y, .. })
                        | (Value::Finite { negative: x, .. }, Value::Infinity { negative: y }) => {
                            Value::Infinity { negative: x != y }
                        }
                        (
                            Value::Finite { negative: x, mantissa: m, exponent: e },
                            Value::Finite { negative: y, mantissa: n, exponent: f },
                        ) => Value::Finite { negative: x != y, mantissa: m * n, exponent: e + f },
                    });
                }
                sum(&terms, accumulator, nan)
            })
        })
        .collect()
}

/// The sum of `terms` in `format` (see `float_mma`).
fn sum(terms: &[Value], format: Format, nan: u32) -> u32 {
    let infinities: Vec<bool> = terms
        .iter()
        .filter_map(|term| if let Value::Infinity { negative } = term { Some(*negative) } else { None })
        .collect();
    if terms.contains(&Value::Nan) || (infinities.contains(&true) && infinities.contains(&false)) {
        return nan;
    }
    if let Some(&negative) = infinities.first() {
        return format.round(negative, 1, 1 << 12, false);
    }
    let finite: Vec<(bool, u128, i32)> = terms
        .iter()
        .filter_map(|term| match *term {
            Value::Finite { negative, mantissa, exponent } if mantissa != 0 => Some((negative, mantissa, exponent)),
            _ => None,
        })
        .collect();
    if finite.is_empty() {
        // Zeros only: -0 when every one is -0, as IEEE adds them.
        let all_negative = terms.iter().all(|term| matches!(term, Value::Finite { negative: true, .. }));
        return format.round(all_negative, 0, 0, true);
    }
    let toward_zero = format == F32;
    let grid = if toward_zero {
        // Aligned to 26 bits below the top of the largest term, truncating.
        finite.iter().map(|&(_, m, e)| e + 127 - m.leading_zeros() as i32).max().expect("a term") - 25
    } else {
        finite.iter().map(|&(_, _, e)| e).min().expect("a term")
    };
    let total: i128 = finite
        .iter()
        .map(|&(negative, mantissa, exponent)| {
            let shift = exponent - grid;
            let aligned = if shift >= 0 {
                mantissa << shift
            } else if -shift >= 128 {
                0
            } else {
                mantissa >> -shift
            };
            if negative { -(aligned as i128) } else { aligned as i128 }
        })
        .sum();
    format.round(total < 0, total.unsigned_abs(), grid, toward_zero)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::Control;
    use crate::sass::sm86::ENCODINGS;

    /// An IMMA of `shape` with both operands of `a_type` (0 U8, 4 U4), A .ROW and B .COL.
    fn imma(shape: u64, a_type: u64) -> Result<Product, String> {
        let encoding = ENCODINGS.iter().find(|e| e.opcode == "IMMA").expect("an IMMA line");
        let field = |name: &str, value: u64| encoding.field(name).expect("an IMMA field").place(value);
        let word = encoding.value
            | field("shape", shape)
            | field("a_type", a_type)
            | field("b_type", a_type)
            | field("col_b", 1);
        Product::of(&View { encoding, word, control: Control::default(), offset: 0 })
    }

    #[test]
    fn integer_products_have_ptx_shapes_only() {
        assert_eq!(imma(4, 0).map(|p| p.shape()), Ok(Some(Shape { m: 16, k: 16, bits: 8 })));
        assert_eq!(imma(6, 4).map(|p| p.shape()), Ok(Some(Shape { m: 16, k: 64, bits: 4 })));
        // m16n8k64 of bytes and m16n8k16 of nibbles would read past B or leave A's rows half-filled.
        assert!(imma(6, 0).is_err());
        assert!(imma(4, 4).is_err());
    }

    #[test]
    fn rounding_gives_the_formats_values() {
        // 1.0, the largest FP16 and FP32 values, the smallest subnormals, ties to even, and toward zero.
        assert_eq!(F16.round(false, 1, 0, false), 0x3c00);
        assert_eq!(F16.round(true, 65504, 0, false), 0xfbff);
        assert_eq!(F16.round(false, 65520, 0, false), 0x7c00, "rounds up to infinity");
        assert_eq!(F16.round(false, 1, -24, false), 0x0001);
        assert_eq!(F16.round(false, 1, -25, false), 0x0000, "a tie rounds to the even zero");
        assert_eq!(F16.round(false, 3, -25, false), 0x0002, "a tie rounds to even");
        assert_eq!(F16.round(false, 2049, 0, false), 0x6800, "2049 rounds to 2048");
        assert_eq!(F32.round(false, (1 << 25) - 1, 0, true), 0x4bff_ffff, "toward zero");
        assert_eq!(F32.round(true, 1, 200, true), 0xff7f_ffff, "overflow toward zero");
        assert_eq!(F32.round(false, 1, -149, true), 0x0000_0001);
        for bits in [0x3c00u32, 0x0001, 0x7bff, 0x8400] {
            let Value::Finite { negative, mantissa, exponent } = F16.decode(bits) else { panic!() };
            assert_eq!(F16.round(negative, mantissa, exponent, false), bits);
        }
        assert_eq!(BF16.decode(0x3f80), Value::Finite { negative: false, mantissa: 0x80, exponent: -7 });
    }
}
