//! The FP and Advanced SIMD instructions the fast path computes natively (`lift::fp_arith`, `simd_fp`,
//! `simd_integer`, `simd_permute` and the structure loads and stores of `load_store`), instruction by instruction
//! on random and chosen operands, each checked against the reference interpreter run on the same state and memory.

use tandem_fast::FastEngine;
use tandem_reference::engine::{Engine, GuestClock};
use tandem_reference::memory::{GuestMemory, PAGE_SIZE, Perm};
use tandem_reference::{CpuState, Interpreter};

mod common;
use common::{code_memory, xorshift};

/// Puts `word` then SVC #0 at 0x10000, dropping what the engine compiled there.
fn place_instruction(memory: &GuestMemory, fast_engine: &mut FastEngine, word: u32) {
    let code: Vec<u8> = [word, 0xd400_0001].iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    fast_engine.invalidate(0x10000, PAGE_SIZE);
}
/// Runs the instruction `place_instruction` put at 0x10000 from `start` on both paths (a budget of 2: it and the
/// SVC) and asserts the same result and state, from a block the compiler took.
fn assert_instruction_matches(memory: &GuestMemory, fast_engine: &mut FastEngine, start: CpuState, what: &str) {
    let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
    let reference = Interpreter::default().run(&mut reference_cpu, memory, 2, GuestClock::default());
    let fast = fast_engine.run(&mut fast_cpu, memory, 2, GuestClock::default());
    assert_eq!(fast, reference, "{what}");
    assert_eq!(fast_cpu, reference_cpu, "{what}");
    assert_eq!(fast_engine.stats().rejected, 0, "the compiler rejected {what}");
}

/// The scalar FP instructions the fast path computes with host float operations where they give the Arm result
/// (`lift::fp_arith`: FADD, FSUB, FMUL, FDIV, FNMUL, FMADD, FMSUB, FNMADD, FNMSUB, FCMP, FCMPE, FCCMP, FCCMPE, FMOV
/// (immediate), FSQRT, FCVT (between single, double and half precision), FRINTN/P/M/Z/A/X/I, FMAX, FMIN, FMAXNM, FMINNM, FCSEL, FCVTNS/PS/MS/AS and their
/// unsigned forms to general-purpose registers, SCVTF, UCVTF, FCVTZS, FCVTZU to and from general-purpose registers
/// (integer and fixed point) and in SIMD&FP registers, single and
/// double precision; on vectors of them FADD, FSUB, FMUL, FDIV, FMLA, FMLS (by vector and by element), FCMEQ,
/// FCMGE, FCMGT (with a vector or zero), FCMLE, FCMLT (with zero), FABD, FABS, FNEG, FMAX, FMIN, FMAXNM, FMINNM, SCVTF,
/// UCVTF, FCVTNS/MS/AS/PS/ZS and their unsigned forms (vector and scalar), FRINTN/M/P/Z/A/X/I, FSQRT, FADDP (vector and scalar), FRECPS, FRSQRTS, FRECPE, FRSQRTE, FCVTN, FCVTXN, FCVTL and their
/// "2" forms between half, single and double precision), against the reference on operands of every kind: random bits, normal numbers near one,
/// near the ends of the range (where results overflow, underflow or round to the smallest normal) and near the
/// integer formats' bounds, zeros, infinities, NaNs and subnormals, integers of every size, addends that cancel
/// the product; FPCR mostly in its default mode, and in the others (flush to zero, default NaN, directed
/// rounding); FPSR.IXC set or not. Results, NZCV, FPSR flags and all.
#[test]
fn fp_arithmetic_matches_the_reference() {
    let memory = code_memory(1);
    let mut random = 0x2545_f491_4f6c_dd1du64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for ftype in [0b00u32, 0b01] {
        let (exponent_bits, mantissa_bits) = if ftype == 0b01 { (11, 52) } else { (8, 23) };
        // An operand of each kind: a sign, then a biased exponent and a mantissa chosen by kind.
        let operand = |random: &mut u64, kind: u64| -> u64 {
            let bits = xorshift(random);
            let sign = bits >> 63;
            let mantissa = bits & ((1 << mantissa_bits) - 1);
            let max_exponent = (1u64 << exponent_bits) - 1;
            let exponent = match kind % 8 {
                0 => return bits & (u64::MAX >> (63 - exponent_bits - mantissa_bits)),
                1 => (max_exponent >> 1) + (bits >> 40) % 5 - 2,
                2 => 1 + (bits >> 40) % 3,
                3 => max_exponent - 1 - (bits >> 40) % 3,
                4 => return sign << (exponent_bits + mantissa_bits),
                5 => max_exponent,
                6 => 0,
                // From 2^-4 to 2^66: the integer formats' bounds, with few or many fraction bits.
                _ => (max_exponent >> 1) + (bits >> 40) % 71 - 4,
            };
            let mantissa = if bits >> 32 & 1 == 0 { mantissa } else { mantissa & !((1 << (bits >> 33) % 60) - 1) };
            (sign << exponent_bits | exponent) << mantissa_bits | mantissa & ((1 << mantissa_bits) - 1)
        };
        let integer = |random: &mut u64, kind: u64| -> u64 {
            let bits = xorshift(random);
            match kind % 4 {
                0 => bits,
                1 => (bits % 2001).wrapping_sub(1000),
                // Near the formats' precision (2^24, 2^53) and beyond, of either sign.
                2 => (1u64 << [24, 25, 53, 54, 31, 63][(bits % 6) as usize]) + (bits >> 8) % 5 - 2,
                _ => (bits >> 40 | 1) << (bits % 40),
            }
            .wrapping_mul(if bits >> 62 & 1 == 1 { u64::MAX } else { 1 })
        };
        let mut words = Vec::new();
        // FMUL/FDIV/FADD/FSUB/FNMUL V0, V1, V2.
        words.extend([0u32, 1, 2, 3, 8].map(|opcode| 0x1e20_0800 | ftype << 22 | 2 << 16 | opcode << 12 | 1 << 5));
        // FCMP/FCMPE V1, V2 and V1, #0.0.
        words.extend(
            [0, 0b10000, 0b01000, 0b11000].map(|opcode2| 0x1e20_2000 | ftype << 22 | 2 << 16 | 1 << 5 | opcode2),
        );
        // FCCMP/FCCMPE V1, V2, #nzcv, cond on EQ, NE, HS, MI, VS, HI, GE, GT, AL.
        for (cond, nzcv) in [(0u32, 0b0110u32), (1, 0b1001), (2, 0b0000), (4, 0b1111), (6, 0b0010), (8, 0b0100)] {
            words.extend([0, 1].map(|op| 0x1e20_0400 | ftype << 22 | 2 << 16 | cond << 12 | 1 << 5 | op << 4 | nzcv));
        }
        words.extend([10u32, 12, 14].map(|cond| 0x1e20_0410 | ftype << 22 | 2 << 16 | cond << 12 | 1 << 5 | 0b1010));
        // SCVTF/UCVTF V0, W1/X1 and FCVTNS/NU/PS/PU/MS/MU/ZS/ZU/AS/AU W0/X0, V1.
        for sf in [0u32, 1] {
            let conversions = [(0b00u32, 0b010u32), (0b00, 0b011), (0b00, 0b000), (0b00, 0b001), (0b01, 0b000)]
                .into_iter()
                .chain([(0b01, 0b001), (0b10, 0b000), (0b10, 0b001), (0b11, 0b000), (0b11, 0b001), (0b00, 0b100)])
                .chain([(0b00, 0b101)]);
            for (rmode, opcode) in conversions {
                words.push(0x1e20_0000 | sf << 31 | ftype << 22 | rmode << 19 | opcode << 16 | 1 << 5);
            }
        }
        // SCVTF/UCVTF V0, W1/X1, #fbits and FCVTZS/FCVTZU W0/X0, V1, #fbits (fixed point).
        for (sf, fbits) in [(0u32, 1u32), (0, 16), (0, 32), (1, 1), (1, 24), (1, 64)] {
            for (rmode, opcode) in [(0b00u32, 0b010u32), (0b00, 0b011), (0b11, 0b000), (0b11, 0b001)] {
                let scale = 64 - fbits;
                words.push(0x1e00_0000 | sf << 31 | ftype << 22 | rmode << 19 | opcode << 16 | scale << 10 | 1 << 5);
            }
        }
        // FMADD/FMSUB/FNMADD/FNMSUB V0, V1, V2, V3.
        words.extend(
            (0..4u32).map(|o| 0x1f00_0000 | ftype << 22 | (o >> 1) << 21 | 2 << 16 | (o & 1) << 15 | 3 << 10 | 1 << 5),
        );
        // FSQRT, FCVT (to the other precision), FRINTN, FRINTP, FRINTM, FRINTZ, FRINTA, FRINTX, FRINTI V0, V1.
        let fcvt = if ftype == 0b01 { 0b000100 } else { 0b000101 };
        words.extend(
            [0b000011u32, fcvt, 0b001000, 0b001001, 0b001010, 0b001011, 0b001100, 0b001110, 0b001111]
                .map(|opcode| 0x1e20_4000 | ftype << 22 | opcode << 15 | 1 << 5),
        );
        // FMAX, FMIN, FMAXNM, FMINNM V0, V1, V2.
        words.extend((0b0100..=0b0111u32).map(|opcode| 0x1e20_0800 | ftype << 22 | 2 << 16 | opcode << 12 | 1 << 5));
        // FCSEL V0, V1, V2 on EQ, NE, HS, MI, VS, HI, GE, GT, AL.
        words.extend(
            [0u32, 1, 2, 4, 6, 8, 10, 12, 14].map(|cond| 0x1e20_0c00 | ftype << 22 | 2 << 16 | cond << 12 | 1 << 5),
        );
        // FMUL V0, V1, V2.S[i] / V2.D[i] and FMLA, FMLS V3, V1, V2.S[i] / V2.D[i] (scalar), at the first and last index.
        for (h, l) in if ftype == 0b01 { [(0u32, 0u32), (1, 0)] } else { [(0, 0), (1, 1)] } {
            let by_element = |opcode: u32, rd: u32| {
                0x5f00_0000 | (0b10 | ftype & 1) << 22 | l << 21 | 2 << 16 | opcode << 12 | h << 11 | 1 << 5 | rd
            };
            words.extend([by_element(0b1001, 0), by_element(0b0001, 3), by_element(0b0101, 3)]);
            words.push(by_element(0b1001, 0) | 1 << 29);
        }
        // FADDP, FMAXNMP, FMAXP, FMINNMP, FMINP V0, V1.2S / V1.2D (scalar).
        words.push(0x7e30_d820 | (ftype & 1) << 22);
        for (a, opcode) in [(0u32, 0b01100u32), (0, 0b01111), (1, 0b01100), (1, 0b01111)] {
            words.push(0x7e30_0820 | (a << 1 | ftype & 1) << 22 | opcode << 12);
        }
        // FMULX, FCMEQ, FRECPS, FRSQRTS, FCMGE, FACGE, FABD, FCMGT, FACGT V0, V1, V2 (scalar).
        let scalar_three_same = [(0u32, 0u32, 0b11011u32), (0, 0, 0b11100), (0, 0, 0b11111), (0, 1, 0b11111)]
            .into_iter()
            .chain([(1, 0, 0b11100), (1, 0, 0b11101), (1, 1, 0b11010), (1, 1, 0b11100), (1, 1, 0b11101)]);
        for (u, a, opcode) in scalar_three_same {
            words.push(0x5e20_0400 | u << 29 | (a << 1 | ftype & 1) << 22 | 2 << 16 | opcode << 11 | 1 << 5);
        }
        if ftype == 0 {
            // FCVT S0, H1 and FCVT H0, S1.
            words.extend([0x1ee2_4020u32, 0x1e23_c020]);
        } else {
            // FCVT D0, H1 and FCVT H0, D1.
            words.extend([0x1ee2_c020u32, 0x1e63_c020]);
        }
        if ftype == 0 {
            // FMAXNMV, FMAXV, FMINNMV, FMINV S0, V1.4S.
            for (a, opcode) in [(0u32, 0b01100u32), (0, 0b01111), (1, 0b01100), (1, 0b01111)] {
                words.push(0x6e30_0820 | a << 23 | opcode << 12);
            }
        }
        // FMOV V0, #imm (2.0, 1.0, -0.125, 31.0, 1.9375).
        words.extend([0x00u32, 0x70, 0xc0, 0x3f, 0x7f].map(|imm8| 0x1e20_1000 | ftype << 22 | imm8 << 13));
        // SCVTF/UCVTF V0, V4 and FCVTNS/MS/AS/PS/ZS and their unsigned forms V0, V1 (scalar, in SIMD&FP registers).
        let sz = ftype & 1;
        words.extend([0x5e21_d880u32, 0x7e21_d880].map(|base| base | sz << 22));
        for (a, opcode) in [(0u32, 0b11010u32), (0, 0b11011), (0, 0b11100), (1, 0b11010), (1, 0b11011)] {
            words.extend([0, 1].map(|u: u32| 0x5e21_0820 | u << 29 | (a << 1 | sz) << 22 | opcode << 12));
        }
        // FCVTXN S0, D1 (sz 1; sz 0 is unallocated); FRECPE, FRSQRTE S0/D0, S1/D1.
        words.extend([0x7e21_6820u32, 0x5ea1_d820, 0x7ea1_d820].map(|base| base | sz << 22));
        // FCVTN(2), FCVTL(2) V0, V1: half and single precision (sz 0), single and double (sz 1); FCVTXN(2) V0, V1
        // (sz 1; sz 0 is reserved).
        for q in 0..2u32 {
            words.extend([0x0e21_6820u32, 0x0e21_7820, 0x2e21_6820].map(|base| base | q << 30 | sz << 22));
        }
        // FADD, FSUB, FMUL, FDIV V0, V1, V2 and FMLA, FMLS V3, V1, V2 (vector: 2S, 4S, 2D).
        for q in if sz == 1 { vec![1u32] } else { vec![0, 1] } {
            let three_same = |u: u32, a: u32, opcode: u32, rd: u32| {
                0x0e20_0400 | q << 30 | u << 29 | (a << 1 | sz) << 22 | 2 << 16 | opcode << 11 | 1 << 5 | rd
            };
            words.extend([
                three_same(0, 0, 0b11010, 0),
                three_same(0, 1, 0b11010, 0),
                three_same(1, 0, 0b11011, 0),
                three_same(1, 0, 0b11111, 0),
                three_same(0, 0, 0b11001, 3),
                three_same(0, 1, 0b11001, 3),
                // FRECPS, FRSQRTS.
                three_same(0, 0, 0b11111, 0),
                three_same(0, 1, 0b11111, 0),
                // FCMEQ, FCMGE, FCMGT.
                three_same(0, 0, 0b11100, 0),
                three_same(1, 0, 0b11100, 0),
                three_same(1, 1, 0b11100, 0),
                // FADDP, FABD, FMULX, FACGE, FACGT, FMAXNMP, FMINNMP, FMAXP, FMINP.
                three_same(1, 0, 0b11010, 0),
                three_same(1, 1, 0b11010, 0),
                three_same(0, 0, 0b11011, 0),
                three_same(1, 0, 0b11101, 0),
                three_same(1, 1, 0b11101, 0),
                three_same(1, 0, 0b11000, 0),
                three_same(1, 1, 0b11000, 0),
                three_same(1, 0, 0b11110, 0),
                three_same(1, 1, 0b11110, 0),
                // FMAXNM, FMINNM, FMAX, FMIN.
                three_same(0, 0, 0b11000, 0),
                three_same(0, 1, 0b11000, 0),
                three_same(0, 0, 0b11110, 0),
                three_same(0, 1, 0b11110, 0),
            ]);
            // FABS, FNEG V0, V1, FCMGT, FCMEQ, FCMLT, FCMGE, FCMLE V0, V1, #0.0 and FRECPE, FRSQRTE, URECPE, URSQRTE V0, V1.
            let two_reg_misc =
                |u: u32, opcode: u32| 0x0e20_0800 | q << 30 | u << 29 | (0b10 | sz) << 22 | opcode << 12 | 1 << 5;
            words.extend(
                [
                    (0, 0b01111),
                    (1, 0b01111),
                    (0, 0b01100),
                    (0, 0b01101),
                    (0, 0b01110),
                    (1, 0b01100),
                    (1, 0b01101),
                    (0, 0b11101),
                    (1, 0b11101),
                    (0, 0b11100),
                    (1, 0b11100),
                ]
                .map(|(u, opcode)| two_reg_misc(u, opcode)),
            );
            // SCVTF, UCVTF V0, V1 (the lanes as integers), FCVTNS/MS/AS/PS/ZS and their unsigned forms, FRINTN/M/P/Z/A/X/I
            // and FSQRT V0, V1.
            let convert = |u: u32, a: u32, opcode: u32| {
                0x0e20_0800 | q << 30 | u << 29 | (a << 1 | sz) << 22 | opcode << 12 | 1 << 5
            };
            words.extend([convert(0, 0, 0b11101), convert(1, 0, 0b11101)]);
            for (a, opcode) in [(0u32, 0b11010u32), (0, 0b11011), (0, 0b11100), (1, 0b11010), (1, 0b11011)] {
                words.extend([convert(0, a, opcode), convert(1, a, opcode)]);
            }
            words.extend(
                [(0, 0, 0b11000), (0, 0, 0b11001), (0, 1, 0b11000), (0, 1, 0b11001), (1, 0, 0b11000)]
                    .map(|(u, a, opcode)| convert(u, a, opcode)),
            );
            words.extend([convert(1, 0, 0b11001), convert(1, 1, 0b11001), convert(1, 1, 0b11111)]);
            // FMUL V0, V1, V2.S[i] / V2.D[i] and FMLA, FMLS V3, V1, V2.S[i] / V2.D[i], at the first and last index.
            for (h, l) in if sz == 1 { vec![(0u32, 0u32), (1, 0)] } else { vec![(0, 0), (1, 1)] } {
                let by_element = |opcode: u32, rd: u32| {
                    0x0f00_0000 | q << 30 | (0b10 | sz) << 22 | l << 21 | 2 << 16 | opcode << 12 | h << 11 | 1 << 5 | rd
                };
                words.extend([by_element(0b1001, 0), by_element(0b0001, 3), by_element(0b0101, 3)]);
                words.push(by_element(0b1001, 0) | 1 << 29);
            }
        }
        for word in words {
            place_instruction(&memory, &mut fast_engine, word);
            for case in 0..3000u64 {
                // Every lane of V1, V2 and V3 an operand (scalar instructions read the first).
                let (lanes, lane_bits) = if ftype == 0b01 { (2, 64) } else { (4, 32) };
                let (mut v1, mut v2, mut v3) = (0u128, 0u128, 0u128);
                for lane in 0..lanes {
                    let (a, b) = (operand(&mut random, case + lane), operand(&mut random, case / 8 + case * 5 + lane));
                    // An addend that cancels the product, exactly when the product is exact.
                    let c = if case % 7 == 6 {
                        if ftype == 0b01 {
                            (-(f64::from_bits(a) * f64::from_bits(b))).to_bits()
                        } else {
                            u64::from((-(f32::from_bits(a as u32) * f32::from_bits(b as u32))).to_bits())
                        }
                    } else {
                        operand(&mut random, case / 3 + lane)
                    };
                    let shift = lane * lane_bits;
                    (v1, v2, v3) =
                        (v1 | u128::from(a) << shift, v2 | u128::from(b) << shift, v3 | u128::from(c) << shift);
                }
                let fpcr = match case % 16 {
                    13 => 1 << 24,
                    14 => 1 << 25,
                    15 => (xorshift(&mut random) as u32 % 3 + 1) << 22,
                    _ => 0,
                };
                let fpsr = (xorshift(&mut random) & 0x9f) as u32;
                let nzcv = (xorshift(&mut random) as u32 & 0xf) << 28;
                let mut start = CpuState { pc: 0x10000, fpcr, fpsr, nzcv, ..CpuState::default() };
                start.v[1] = v1;
                // Equal operands in every lane now and then, for the compares.
                start.v[2] = if case % 5 == 4 { v1 } else { v2 };
                start.v[3] = v3;
                start.v[0] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
                start.x[0] = xorshift(&mut random);
                start.x[1] = integer(&mut random, case);
                start.v[4] = u128::from(integer(&mut random, case / 4));
                let what = format!(
                    "{word:#010x} on {v1:#x}, {:#x}, {v3:#x}, x1 {:#x}, v4 {:#x}, FPCR {fpcr:#x}, FPSR {fpsr:#x}",
                    start.v[2], start.x[1], start.v[4]
                );
                assert_instruction_matches(&memory, &mut fast_engine, start, &what);
            }
        }
    }
}

/// FADD, FSUB, FMUL, FDIV, FNMUL (`lift::fp_arith::half_arithmetic`: through single precision), FCMP and FCMPE on
/// half precision, against the reference on halves of every kind (normal near one, near the format's ends where results
/// overflow, underflow or round to the smallest normal, ties of the rounding to a half, zeros, infinities, NaNs,
/// subnormals), FPCR mostly in its default mode and in the others (FZ16, FZ, default NaN, directed rounding), FPSR.IXC
/// set or not.
#[test]
fn half_precision_arithmetic_matches_the_reference() {
    let memory = code_memory(1);
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let half = |random: &mut u64, kind: u64| -> u64 {
        let bits = xorshift(random);
        let (sign, fraction) = (bits >> 63 & 1, bits & 0x3ff);
        let exponent = match kind % 7 {
            0 => return bits & 0xffff,
            1 => 15 + (bits >> 20) % 5 - 2,
            2 => 1 + (bits >> 20) % 3,
            3 => 30 - (bits >> 20) % 3,
            4 => return sign << 15,
            5 => 31,
            _ => 0,
        };
        sign << 15 | exponent << 10 | fraction
    };
    // FMUL, FDIV, FADD, FSUB, FNMUL H0, H1, H2; FCMP, FCMPE H1, H2 and H1, #0.0.
    let arithmetic = [0u32, 1, 2, 3, 8].map(|opcode| 0x1ee0_0800 | 2 << 16 | opcode << 12 | 1 << 5);
    let compares = [0u32, 0b10000, 0b01000, 0b11000].map(|opcode2| 0x1ee0_2000 | 2 << 16 | 1 << 5 | opcode2);
    for word in arithmetic.into_iter().chain(compares) {
        place_instruction(&memory, &mut fast_engine, word);
        for case in 0..6000u64 {
            let fpcr = match case % 16 {
                12 => 1 << 19,
                13 => 1 << 24,
                14 => 1 << 25,
                15 => (xorshift(&mut random) as u32 % 3 + 1) << 22,
                _ => 0,
            };
            let fpsr = (xorshift(&mut random) & 0x9f) as u32;
            let nzcv = (xorshift(&mut random) as u32 & 0xf) << 28;
            let mut start = CpuState { pc: 0x10000, fpcr, fpsr, nzcv, ..CpuState::default() };
            start.v[0] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
            start.v[1] = u128::from(half(&mut random, case)) | u128::from(xorshift(&mut random)) << 64;
            // Equal operands now and then, for the compares.
            start.v[2] = match case % 9 {
                8 => start.v[1] & 0xffff,
                _ => u128::from(half(&mut random, case / 7 + case * 3)),
            } | 0xffff_0000;
            let what = format!("{word:#010x} on {:#x}, {:#x}, FPCR {fpcr:#x}, FPSR {fpsr:#x}", start.v[1], start.v[2]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
}

/// Every encoding of the Advanced SIMD structure loads and stores (LD1-LD4/ST1-ST4 multiple and single structure,
/// LD1R-LD4R; both widths, every element size, lane and register count, reserved ones included), without and with
/// post-index (by the transfer size and by a register), from registers that wrap past V31, on random registers and
/// memory, at addresses anywhere in two pages, across them, and running into the unmapped page after them: the
/// same state and memory as the reference's.
#[test]
fn structure_loads_and_stores_match_the_reference() {
    const DATA: u64 = 0x20000;
    let mut memory = code_memory(1);
    memory.map(DATA, 2 * PAGE_SIZE, Perm::RW).unwrap();
    let mut random = 0x853c_49e6_748f_ea9bu64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let mut interpreter = Interpreter::default();
    let mut words = Vec::new();
    for (post, rm) in [(0u32, 0u32), (1, 31), (1, 7)] {
        for q in 0..2u32 {
            for l in 0..2u32 {
                for size in 0..4u32 {
                    for opcode in [0b0000u32, 0b0010, 0b0100, 0b0110, 0b0111, 0b1000, 0b1010] {
                        words.push(0x0c00_0000 | q << 30 | post << 23 | l << 22 | rm << 16 | opcode << 12 | size << 10);
                    }
                    for (r, opcode, s) in
                        (0..2u32).flat_map(|r| (0..8u32).flat_map(move |opcode| (0..2u32).map(move |s| (r, opcode, s))))
                    {
                        words.push(
                            0x0d00_0000
                                | q << 30
                                | post << 23
                                | l << 22
                                | r << 21
                                | rm << 16
                                | opcode << 13
                                | s << 12
                                | size << 10,
                        );
                    }
                }
            }
        }
    }
    for (index, word) in words.into_iter().enumerate() {
        // Base X5; the first register V0, or V30 (so that 3 and 4 registers wrap past V31).
        let word = word | 5 << 5 | if index % 2 == 0 { 0 } else { 30 };
        place_instruction(&memory, &mut fast_engine, word);
        for case in 0..12u64 {
            let data: Vec<u8> = (0..2 * PAGE_SIZE / 8).flat_map(|_| xorshift(&mut random).to_le_bytes()).collect();
            memory.write_privileged(DATA, &data).unwrap();
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for register in 0..32 {
                start.v[register] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
            }
            // Anywhere in the two pages, across from the first into the second, or into the unmapped third.
            start.x[5] = match case % 4 {
                0 => DATA + PAGE_SIZE - 1 - xorshift(&mut random) % 40,
                1 => DATA + 2 * PAGE_SIZE - 1 - xorshift(&mut random) % 40,
                _ => DATA + xorshift(&mut random) % (2 * PAGE_SIZE - 64),
            };
            start.x[7] = xorshift(&mut random) % 256;
            let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
            let reference = interpreter.run(&mut reference_cpu, &memory, 2, GuestClock::default());
            let mut reference_data = vec![0; 2 * PAGE_SIZE as usize];
            memory.read_privileged(DATA, &mut reference_data).unwrap();
            memory.write_privileged(DATA, &data).unwrap();
            let fast = fast_engine.run(&mut fast_cpu, &memory, 2, GuestClock::default());
            let mut fast_data = vec![0; 2 * PAGE_SIZE as usize];
            memory.read_privileged(DATA, &mut fast_data).unwrap();
            let what = format!("{word:#010x} at {:#x}", reference_cpu.x[5]);
            assert_eq!(fast, reference, "{what}");
            assert_eq!(fast_cpu, reference_cpu, "{what}");
            assert!(fast_data == reference_data, "{what}: memory differs");
            assert_eq!(fast_engine.stats().rejected, 0, "the compiler rejected {what}");
        }
    }
}

/// FCVTXN, FCVTXN2 and scalar FCVTXN (double to single, rounding to odd) on the values where rounding decides:
/// singles exactly, with the lowest dropped bit set, with only the highest set, with the kept bit odd; the largest
/// single and the numbers just past it, the smallest normal single and the number just below it, zeros; FPSR.IXC
/// set and clear.
#[test]
fn narrowing_to_odd_sets_the_lowest_kept_bit() {
    let largest = f64::from(f32::MAX).to_bits();
    let smallest_normal = (-126f64).exp2().to_bits();
    let mut values =
        vec![0u64, 1 << 63, largest, largest + 1, largest + (1 << 29), smallest_normal, smallest_normal - 1];
    for exponent in [897u64, 1023, 1100] {
        for kept in [0u64, 1] {
            for dropped in [0u64, 1, 1 << 28, (1 << 29) - 1] {
                let bits = exponent << 52 | (0x2a_aaaa << 30 | kept << 29) | dropped;
                values.extend([bits, bits | 1 << 63]);
            }
        }
    }
    narrowings_match_the_reference(&[0x2e61_6820, 0x6e61_6820, 0x7e61_6820], &values, 64);
}

/// Each narrowing `word` (V0 from V1) on `values`, lanes of `lane_bits`, a vector at a time, with FPSR.IXC set
/// on two runs in three and clear on the third, against the reference.
fn narrowings_match_the_reference(words: &[u32], values: &[u64], lane_bits: usize) {
    let memory = code_memory(1);
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for &word in words {
        place_instruction(&memory, &mut fast_engine, word);
        for (index, lanes) in values.chunks(128 / lane_bits).enumerate() {
            let mut start =
                CpuState { pc: 0x10000, fpsr: if index % 3 == 2 { 0 } else { 1 << 4 }, ..CpuState::default() };
            start.v[0] = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;
            for (lane, &bits) in lanes.iter().enumerate() {
                start.v[1] |= u128::from(bits) << (lane_bits * lane);
            }
            let what = format!("{word:#010x} on {:#x}", start.v[1]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
}

/// FCVTN and FCVTN2 from single to half precision on the values where rounding decides: fractions just below,
/// at and just above half a half's ulp with the kept bit even and odd (ties go to even), the largest half and the
/// numbers just past it, the smallest normal half and the number just below it, zeros; FPSR.IXC set and clear.
/// FCVT Hd, Dn rounds once, to nearest even: ties either way, and the values that rounding through single
/// precision first would round twice (a single's rounding making a tie of a value just below or above one).
#[test]
fn double_to_half_rounds_once_to_nearest_even() {
    let mut values = vec![0u64, 1 << 63, 65504f64.to_bits(), 65505f64.to_bits(), 65520f64.to_bits()];
    values.extend([(-14f64).exp2().to_bits(), (-14f64).exp2().to_bits() - 1, (-25f64).exp2().to_bits()]);
    for exponent in [1009u64, 1023, 1036] {
        for kept in [0u64, 1] {
            let half_ulp = 1u64 << 41;
            for dropped in [0, 1, half_ulp - 1, half_ulp, half_ulp + 1, half_ulp - (1 << 28), half_ulp + (1 << 28)] {
                let bits = exponent << 52 | (0x155 << 43 | kept << 42) | dropped;
                values.extend([bits, bits | 1 << 63]);
            }
        }
    }
    narrowings_match_the_reference(&[0x1e63_c020], &values, 64);
}

#[test]
fn half_precision_narrowing_rounds_ties_to_even() {
    let mut values = vec![0u32, 0x8000_0000, 65504f32.to_bits(), 65505f32.to_bits(), 65520f32.to_bits()];
    values.extend([(-14f32).exp2().to_bits(), (-14f32).exp2().to_bits() - 1]);
    for exponent in [113u32, 127, 140] {
        for kept in [0u32, 1] {
            for low in [0x0fff_u32, 0x1000, 0x1001, 0x1fff, 0] {
                let bits = exponent << 23 | (0x155 << 14 | kept << 13) | low;
                values.extend([bits, bits | 0x8000_0000]);
            }
        }
    }
    let values: Vec<u64> = values.into_iter().map(u64::from).collect();
    narrowings_match_the_reference(&[0x0e21_6820, 0x4e21_6820], &values, 32);
}

/// FRECPE and FRSQRTE (4S, 2D and scalar) on every entry of the manual's estimate tables: each top 8 bits of the
/// fraction with exponents of both parities (the square root's table depends on it), signs of both kinds; URECPE
/// and URSQRTE on every entry and below; against the reference.
#[test]
fn estimates_match_the_reference_at_every_table_entry() {
    let memory = code_memory(1);
    let mut random = 0x2545_f491_4f6c_dd1du64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for word in [0x4ea1_d820u32, 0x6ea1_d820] {
        place_instruction(&memory, &mut fast_engine, word);
        for first in (0..1024u32).step_by(4) {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for lane in 0..4 {
                // Entry: the fraction's top 8 bits, then the exponent's parity, then (for a quarter of the runs)
                // the sign; exponents anywhere in the range whose estimates are normal, the low bits random.
                let entry = first + lane;
                let (top, parity, negative) = (entry & 0xff, entry >> 8 & 1, entry >> 9 == 1 && entry & 3 == 0);
                let exponent = (xorshift(&mut random) as u32 % 125) * 2 + 2 + parity;
                let low = xorshift(&mut random) as u32 & 0x7fff;
                let bits = u32::from(negative) << 31 | exponent << 23 | top << 15 | low;
                start.v[1] |= u128::from(bits) << (32 * lane);
            }
            let what = format!("{word:#010x} on {:#x}", start.v[1]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
    // The same on doubles (2D) and on scalars (S, D: the first lane).
    for word in [0x4ee1_d820u32, 0x6ee1_d820, 0x5ea1_d820, 0x7ea1_d820, 0x5ee1_d820, 0x7ee1_d820] {
        let double = word & 1 << 22 != 0;
        place_instruction(&memory, &mut fast_engine, word);
        for first in (0..1024u32).step_by(if double { 2 } else { 4 }) {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for lane in 0..if double { 2 } else { 4 } {
                let entry = u64::from(first + lane);
                let (top, parity, negative) = (entry & 0xff, entry >> 8 & 1, entry >> 9 == 1 && entry & 3 == 0);
                start.v[1] |= if double {
                    let exponent = (xorshift(&mut random) % 1021) * 2 + 2 + parity;
                    let low = xorshift(&mut random) & ((1 << 44) - 1);
                    u128::from(u64::from(negative) << 63 | exponent << 52 | top << 44 | low) << (64 * lane)
                } else {
                    let exponent = (xorshift(&mut random) % 125) * 2 + 2 + parity;
                    let low = xorshift(&mut random) & 0x7fff;
                    u128::from(u64::from(negative) << 31 | exponent << 23 | top << 15 | low) << (32 * lane)
                };
            }
            let what = format!("{word:#010x} on {:#x}", start.v[1]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
    // URECPE and URSQRTE (4S): every value of the top 9 bits (the table's operand, and those below its domain),
    // the low bits random.
    for word in [0x4ea1_c820u32, 0x6ea1_c820] {
        place_instruction(&memory, &mut fast_engine, word);
        for first in (0..512u32).step_by(4) {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for lane in 0..4 {
                let bits = (first + lane) << 23 | xorshift(&mut random) as u32 & 0x7f_ffff;
                start.v[1] |= u128::from(bits) << (32 * lane);
            }
            let what = format!("{word:#010x} on {:#x}", start.v[1]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
}

/// UZP1/2, TRN1/2, ZIP1/2 (every element size, 64 and 128 bits) and EXT (every byte offset), which the fast path
/// lifts to byte shuffles (`lift::simd_permute`, with REV16/32/64 and XTN/XTN2), and the shifts by immediate
/// (every element size and width, shifts by 0, 1, the whole element and between) and integer two-register
/// operations and reductions it lifts (`lift::simd_integer`: SHRN, RSHRN, the rounding and saturating shifts by
/// immediate, SLI, SRI, CNT, NOT, ABS, NEG, SQABS, SQNEG, compares with zero, the long pairwise additions, the
/// saturating narrowings, ADDV, SMAXV, UMAXV, SMINV, UMINV, SADDLV, UADDLV, the long, wide, absolute-difference and
/// polynomial operations of "three different" and the scalar ones, the integer forms by element, and every integer operation of "three same":
/// elementwise, accumulating and pairwise, the saturating ones with FPSR.QC clear or set and on the lanes where
/// they saturate; the scalar three same, shift by immediate and two-register classes), TBL and
/// TBX (tables of one to four registers, wrapping after V31, indices in and past them), on random registers (with
/// zero lanes now and then): the same registers and FPSR as the reference's, the reserved encodings included (the
/// reference's UNDEFINED on both).
#[test]
fn simd_integer_operations_match_the_reference() {
    let memory = code_memory(1);
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let mut words = Vec::new();
    for q in 0..2u32 {
        for size in 0..4u32 {
            for opcode in [0b001u32, 0b010, 0b011, 0b101, 0b110, 0b111] {
                // UZP/TRN/ZIP V0, V1, V2.
                words.push(0x0e00_0800 | q << 30 | size << 22 | 2 << 16 | opcode << 12 | 1 << 5);
            }
        }
        for imm4 in 0..16u32 {
            // EXT V0, V1, V2, #imm4.
            words.push(0x2e00_0000 | q << 30 | 2 << 16 | imm4 << 11 | 1 << 5);
        }
        // TBL, TBX V0, {V1...} and {V30, V31, V0...} (the table wraps after V31), V2.
        for (len, op, rn) in (0..4u32).flat_map(|len| [(len, 0u32, 1u32), (len, 1, 1), (len, 0, 30), (len, 1, 31)]) {
            words.push(0x0e00_0000 | q << 30 | 2 << 16 | len << 13 | op << 12 | rn << 5);
        }
        // [SU]ADDL, [SU]ADDW, [SU]SUBL, [SU]SUBW, (R)ADDHN, (R)SUBHN, [SU]ABAL, [SU]ABDL, [SU]MLAL, [SU]MLSL,
        // [SU]MULL, SQDMLAL, SQDMLSL, SQDMULL, PMULL (bytes and 1Q) (and the "2" forms) V0, V1, V2.
        for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
            for opcode in 0..=0b1110u32 {
                words.push(0x0e20_0000 | q << 30 | u << 29 | size << 22 | 2 << 16 | opcode << 12 | 1 << 5);
            }
            // The scalar SQDMLAL, SQDMLSL, SQDMULL (Sd, Hn, Hm and Dd, Sn, Sm) and the reserved encodings beside.
            for opcode in [0b1001u32, 0b1011, 0b1101, 0b0000].into_iter().filter(|_| q == 0) {
                words.push(0x5e20_0000 | u << 29 | size << 22 | 2 << 16 | opcode << 12 | 1 << 5);
            }
        }
        // The integer forms by element: MUL, MLA, MLS, SQDMULH, SQRDMULH, [SU]MULL, [SU]MLAL, [SU]MLSL, SQDMULL,
        // SQDMLAL, SQDMLSL, SQRDMLAH, SQRDMLSH, SDOT, UDOT (and the "2" forms) V0, V1, V2.H[i] or V(m:2).S[i], every
        // index, the scalar forms, and the forms left to the reference.
        for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
            for opcode in [
                0b0000u32, 0b0010, 0b0011, 0b0100, 0b0110, 0b0111, 0b1000, 0b1010, 0b1011, 0b1100, 0b1101, 0b1110,
                0b1111,
            ] {
                for (h, l, m) in [(0u32, 0u32, 0u32), (0, 0, 1), (0, 1, 0), (1, 1, 1)] {
                    let fields = u << 29 | size << 22 | l << 21 | m << 20 | 2 << 16 | opcode << 12 | h << 11 | 1 << 5;
                    words.push(0x0f00_0000 | q << 30 | fields);
                    if q == 0 {
                        // The scalar form (SQDMULH S0, S1, V2.S[i]; the opcodes with none are reserved).
                        words.push(0x5f00_0000 | fields);
                    }
                }
            }
        }
        // SQRDMLAH, SQRDMLSH, SDOT, UDOT and the rest of "three-register extension" V0, V1, V2.
        for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
            for opcode in 0..16u32 {
                words.push(0x0e00_8400 | q << 30 | u << 29 | size << 22 | 2 << 16 | opcode << 11 | 1 << 5);
            }
        }
        // Every integer opcode of "three same" V0, V1, V2.
        for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
            for opcode in (0..0b11000u32).filter(|&opcode| opcode != 0b00011) {
                words.push(0x0e20_0400 | q << 30 | u << 29 | size << 22 | 2 << 16 | opcode << 11 | 1 << 5);
            }
        }
        // Scalar three same (the integer opcodes, every size: D is the one most take) and scalar shifts by
        // immediate (every immh, the same-size opcodes and the others) D0, D1, D2.
        if q == 0 {
            for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
                for opcode in 0..0b11000u32 {
                    words.push(0x5e20_0400 | u << 29 | size << 22 | 2 << 16 | opcode << 11 | 1 << 5);
                }
            }
            // Scalar two-register: ABS, NEG, CMGT/CMEQ/CMLT/CMGE/CMLE #0, SQABS, SQNEG, every size.
            for size in 0..4u32 {
                for (u, opcode) in [
                    (0u32, 0b01011u32),
                    (1, 0b01011),
                    (0, 0b01000),
                    (0, 0b01001),
                    (0, 0b01010),
                    (1, 0b01000),
                    (1, 0b01001),
                    (0, 0b00111),
                    (1, 0b00111),
                ] {
                    words.push(0x5e20_0800 | u << 29 | size << 22 | opcode << 12 | 1 << 5);
                }
            }
            for (u, immh) in (0..2u32).flat_map(|u| (1..16u32).map(move |immh| (u, immh))) {
                for immb in [0u32, 1, 7] {
                    for opcode in [0b00000u32, 0b00010, 0b00100, 0b00110, 0b01000, 0b01010, 0b01100, 0b01110, 0b10010] {
                        words.push(0x5f00_0400 | u << 29 | immh << 19 | immb << 16 | opcode << 11 | 1 << 5);
                    }
                }
            }
        }
        // ADDV, SMAXV, UMAXV, SMINV, UMINV V0, V1.
        for size in 0..4u32 {
            for (u, opcode) in
                [(0u32, 0b11011u32), (0, 0b01010), (1, 0b01010), (0, 0b11010), (1, 0b11010), (0, 0b00011), (1, 0b00011)]
            {
                words.push(0x0e30_0800 | q << 30 | u << 29 | size << 22 | opcode << 12 | 1 << 5);
            }
        }
        // REV64, REV32, REV16, XTN/XTN2, CNT, NOT, RBIT, ABS, NEG, CMGT/CMEQ/CMLT/CMGE/CMLE (zero), CLS, CLZ and
        // the rest V0, V1.
        for size in 0..4u32 {
            for (u, opcode) in [
                (0u32, 0b00000u32),
                (1, 0b00000),
                (0, 0b00001),
                (0, 0b10010),
                (0, 0b00101),
                (1, 0b00101),
                (0, 0b01011),
                (1, 0b01011),
                (0, 0b01000),
                (0, 0b01001),
                (0, 0b01010),
                (1, 0b01000),
                (1, 0b01001),
                // CLS, CLZ (RBIT is NOT's opcode at size 1).
                (0, 0b00100),
                (1, 0b00100),
                // SADDLP, UADDLP, SADALP, UADALP, SQABS, SQNEG, SQXTN, UQXTN, SQXTUN.
                (0, 0b00010),
                (1, 0b00010),
                (0, 0b00110),
                (1, 0b00110),
                (0, 0b00111),
                (1, 0b00111),
                (0, 0b10100),
                (1, 0b10100),
                (1, 0b10010),
            ] {
                words.push(0x0e20_0800 | q << 30 | u << 29 | size << 22 | opcode << 12 | 1 << 5);
            }
        }
        for u in 0..2u32 {
            // SSHR/USHR, SSRA/USRA, SHL, SSHLL/USHLL V0, V1, #shift: every element size, shifts at both ends
            // and in the middle.
            for immh in 1..16u32 {
                for immb in [0u32, 1, 3, 7] {
                    // (SSHR, SSRA, SRSHR, SRSRA, SHL, SQSHL, SSHLL, SHRN, RSHRN, SQSHRN, SQRSHRN, and with U: SRI,
                    // SLI, SQSHLU, UQSHL, SQSHRUN, SQRSHRUN, UQSHRN, UQRSHRN.)
                    for opcode in [
                        0b00000u32, 0b00010, 0b00100, 0b00110, 0b01010, 0b01100, 0b01110, 0b10100, 0b10000, 0b10001,
                        0b01000, 0b10010, 0b10011,
                    ] {
                        words.push(0x0f00_0400 | q << 30 | u << 29 | immh << 19 | immb << 16 | opcode << 11 | 1 << 5);
                    }
                }
            }
        }
    }
    for word in words {
        place_instruction(&memory, &mut fast_engine, word);
        for _ in 0..20 {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for register in 0..32 {
                start.v[register] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
            }
            // Table indices within four registers, or within eight (past the table) now and then.
            match xorshift(&mut random) % 3 {
                0 => start.v[2] &= u128::from_ne_bytes([0x3f; 16]),
                1 => start.v[2] &= u128::from_ne_bytes([0x7f; 16]),
                _ => {}
            }
            // Zero lanes of every size now and then, for the compares with zero; small lanes, which saturate
            // nothing; FPSR.QC already set.
            match xorshift(&mut random) % 7 {
                0 => start.v[1] &= 0xffff_ffff_0000_0000_ff00_ff00_0000_ffff,
                1 => {
                    (start.v[1], start.v[2]) =
                        (start.v[1] & u128::from_ne_bytes([0x1f; 16]), start.v[2] & u128::from_ne_bytes([0x1f; 16]))
                }
                // Lanes of every size that narrow without saturating.
                2 => start.v[1] &= 0x7f_0000_0000_0000_007f,
                // Shift amounts (the low byte of each of V2's lanes) from -40 to 40.
                3 => {
                    let amounts: [u8; 16] =
                        std::array::from_fn(|_| ((xorshift(&mut random) % 81) as u8).wrapping_sub(40));
                    start.v[2] = u128::from_le_bytes(amounts);
                }
                // The most negative halfwords and words in both operands: SQDMULH's one overflow.
                4 => {
                    let extremes = 0x8000_0000_8000_8000_8000_0000_7fff_8000;
                    (start.v[1], start.v[2]) = (extremes, extremes ^ 0xffff << 64);
                }
                // Bytes whose saturating shift left by 3 (0x90) or 7 (0xfd) wraps to the limit it saturates to.
                5 => start.v[1] = 0x90fd_90fd_90fd_90fd_90fd_90fd_90fd_90fd,
                _ => {}
            }
            if xorshift(&mut random) % 3 == 0 {
                start.fpsr |= 1 << 27;
            }
            assert_instruction_matches(&memory, &mut fast_engine, start, &format!("{word:#010x}"));
        }
    }
}

/// The class "Advanced SIMD copy", every encoding (Q, op, imm5, imm4): DUP (element and general), INS (element
/// and general), SMOV and UMOV, which the fast path moves natively (`lift::simd_moves`), and the reserved
/// encodings beside them (the reference's UNDEFINED on both), on random vector and general-purpose registers.
#[test]
fn simd_copies_match_the_reference() {
    let memory = code_memory(1);
    let mut random = 0x853c_49e6_748f_ea9bu64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for (q, op) in [(0u32, 0u32), (1, 0), (0, 1), (1, 1)] {
        for imm5 in 0..32u32 {
            for imm4 in 0..16u32 {
                // V3 (or X3, W3) from V5 (or X5), then V5 (X5) from itself.
                for (rn, rd) in [(5u32, 3u32), (5, 5)] {
                    let word = 0x0e00_0400 | q << 30 | op << 29 | imm5 << 16 | imm4 << 11 | rn << 5 | rd;
                    place_instruction(&memory, &mut fast_engine, word);
                    for _ in 0..3 {
                        let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
                        for register in 0..31 {
                            start.v[register] =
                                u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
                            start.x[register] = xorshift(&mut random);
                        }
                        assert_instruction_matches(&memory, &mut fast_engine, start, &format!("{word:#010x}"));
                    }
                }
            }
        }
    }
}

/// Sets the host's MXCSR and returns the one it replaced.
fn swap_mxcsr(value: u32) -> u32 {
    let mut old = 0u32;
    // SAFETY: reads and writes the calling thread's SSE control register through a local.
    unsafe {
        std::arch::asm!("stmxcsr [{old}]", "ldmxcsr [{new}]", old = in(reg) &mut old, new = in(reg) &value);
    }
    old
}

/// Compiled code computes FP natively, so it runs under the default MXCSR whatever the calling thread left there
/// (a Vulkan driver may set flush-to-zero on its threads): with the caller's MXCSR flushing denormals and
/// rounding towards zero, FADD of a subnormal and a rounding sum still give the reference's results, and the
/// caller's MXCSR is back afterwards.
#[test]
fn compiled_code_ignores_the_callers_mxcsr() {
    const FLUSH_AND_ROUND_TO_ZERO: u32 = 0x1f80 | 0x8000 | 0x0040 | 0x6000;
    let memory = code_memory(1);
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    // fadd s0, s1, s2; fmul s0, s1, s2; fcmp s1, #0.0; frintp s0, s1; fsqrt s0, s1
    for word in [0x1e22_2820u32, 0x1e22_0820, 0x1e20_2028, 0x1e24_c020, 0x1e21_c020] {
        place_instruction(&memory, &mut fast_engine, word);
        for (a, b) in [(1u32, 0u32), (0x3f80_0000, 0x3340_0000), (0x0000_0003, 0x8000_0001), (0x0000_0003, 0x3f80_0000)]
        {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            (start.v[1], start.v[2]) = (u128::from(a), u128::from(b));
            let caller = swap_mxcsr(FLUSH_AND_ROUND_TO_ZERO);
            let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
            let fast = fast_engine.run(&mut fast_cpu, &memory, 2, GuestClock::default());
            let after = swap_mxcsr(caller);
            let reference = Interpreter::default().run(&mut reference_cpu, &memory, 2, GuestClock::default());
            assert_eq!((fast, &fast_cpu), (reference, &reference_cpu), "{word:#x} of {a:#x} and {b:#x}");
            assert_eq!(after, FLUSH_AND_ROUND_TO_ZERO, "the caller's MXCSR is back");
        }
    }
    assert_eq!(fast_engine.stats().rejected, 0);
}
