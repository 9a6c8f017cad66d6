//! Generated operands, judged by the host oracles of `oracle.rs`: boundary operands crossed with each other,
//! then random ones biased towards denormals, extremes, ties and cancellation, under every rounding mode and
//! with FZ, FZ16, DN and AHP.

use super::oracle;
use super::*;
use Width::{D, H, S};

/// Rounding modes and controls every generated test runs under. FZ and FZ16 go together and apart, to show
/// that each governs only its own widths.
const CONFIGS: [u32; 10] =
    [RNE, RP, RM, RZ, RNE | FZ | FZ16, RZ | FZ, RP | FZ16, RM | FZ | FZ16, RNE | DN, RZ | DN | FZ];

/// Configurations for the crossed boundary operands (the most expensive part).
const CROSSED_CONFIGS: [u32; 4] = [RNE, RZ | FZ, RP | FZ16, RM | FZ | FZ16 | DN];

const RANDOM_PER_CONFIG: usize = 3000;

const ROUNDINGS: [FpRounding; 5] =
    [FpRounding::TieEven, FpRounding::PosInf, FpRounding::NegInf, FpRounding::Zero, FpRounding::TieAway];

/// Pairs of operands for a two-operand test of width `n`: all boundary pairs, then random ones.
fn pairs(n: Width, seed: u64, crossed: bool) -> Vec<(u64, u64)> {
    let specials = specials(n);
    let mut out = Vec::new();
    if crossed {
        for &a in &specials {
            for &b in &specials {
                out.push((a, b));
            }
        }
    }
    let mut rng = rng(seed);
    for _ in 0..RANDOM_PER_CONFIG {
        let a = random_operand(n, &mut rng, &specials);
        let b = related_operand(n, a, &mut rng, &specials);
        out.push((a, b));
    }
    out
}

fn singles(n: Width, seed: u64) -> Vec<u64> {
    let specials = specials(n);
    let mut rng = rng(seed);
    let mut out = specials.clone();
    // Every exponent with a few fractions, for integer rounding and conversions.
    for exp in 0..=ones(n.e()) {
        for frac in [0, 1, 1 << (n.f() - 1), ones(n.f())] {
            out.push(bits(n, exp % 2 == 1, exp, frac));
        }
    }
    out.extend((0..RANDOM_PER_CONFIG).map(|_| random_operand(n, &mut rng, &specials)));
    out
}

fn seed_of(op: Op, n: Width, fpcr: u32) -> u64 {
    let text = format!("{op:?}{n:?}{fpcr}");
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

#[test]
fn add_sub_mul_div_against_host() {
    for n in [H, S, D] {
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            let mut cases = Vec::new();
            for fpcr in CONFIGS {
                let crossed = CROSSED_CONFIGS.contains(&fpcr);
                for (a, b) in pairs(n, seed_of(op, n, fpcr), crossed) {
                    cases.extend(oracle::arithmetic(op, n, &[a, b], fpcr));
                }
            }
            check_all(&format!("{op:?} {n:?}"), cases);
        }
    }
}

#[test]
fn sqrt_against_host() {
    for n in [H, S, D] {
        let mut cases = Vec::new();
        for fpcr in CONFIGS {
            for a in singles(n, seed_of(Op::Sqrt, n, fpcr)) {
                cases.extend(oracle::arithmetic(Op::Sqrt, n, &[a], fpcr));
            }
            // Squares of random values, and their neighbours: exact roots and roots next to ties.
            let mut rng = rng(seed_of(Op::Sqrt, n, fpcr) ^ 1);
            for _ in 0..1000 {
                let root = bits(n, false, n.bias() as u64 + rng.gen_range(0..8), rng.r#gen::<u64>() & ones(n.f() / 2));
                let square = fp_mul(n, root, root, FpCr::default(), &mut Fpsr::default());
                for a in [square, square + 1, square - 1] {
                    cases.extend(oracle::arithmetic(Op::Sqrt, n, &[a], fpcr));
                }
            }
        }
        check_all(&format!("Sqrt {n:?}"), cases);
    }
}

#[test]
fn fused_multiply_add_against_host() {
    for n in [H, S, D] {
        let specials = specials(n);
        let mut cases = Vec::new();
        for fpcr in CONFIGS {
            let mut rng = rng(seed_of(Op::MulAdd, n, fpcr));
            for i in 0..3 * RANDOM_PER_CONFIG {
                let (a, b, c) = if i % 4 == 0 {
                    let pick = |rng: &mut rand_chacha::ChaCha8Rng| specials[rng.gen_range(0..specials.len())];
                    (pick(&mut rng), pick(&mut rng), pick(&mut rng))
                } else {
                    let b = random_operand(n, &mut rng, &specials);
                    let c = random_operand(n, &mut rng, &specials);
                    // An addend near the product, for cancellation, or anywhere.
                    let product = fp_mul(n, b, c, FpCr::default(), &mut Fpsr::default());
                    let a = if i % 2 == 0 {
                        related_operand(n, product ^ sign_bit_of(n), &mut rng, &specials)
                    } else {
                        random_operand(n, &mut rng, &specials)
                    };
                    (a, b, c)
                };
                cases.extend(oracle::arithmetic(Op::MulAdd, n, &[a, b, c], fpcr));
            }
        }
        check_all(&format!("MulAdd {n:?}"), cases);
    }
}

fn sign_bit_of(n: Width) -> u64 {
    1 << (n.n() - 1)
}

#[test]
fn step_functions_against_host() {
    for n in [H, S, D] {
        for op in [Op::RecipStepFused, Op::RSqrtStepFused] {
            let mut cases = Vec::new();
            for fpcr in CONFIGS {
                let crossed = CROSSED_CONFIGS.contains(&fpcr);
                for (a, b) in pairs(n, seed_of(op, n, fpcr), crossed) {
                    cases.extend(oracle::step(op, n, a, b, fpcr));
                }
            }
            check_all(&format!("{op:?} {n:?}"), cases);
        }
    }
}

#[test]
fn max_min_against_host() {
    for n in [H, S, D] {
        for op in [Op::Max, Op::Min, Op::MaxNum, Op::MinNum] {
            let mut cases = Vec::new();
            for fpcr in CONFIGS {
                for (a, b) in pairs(n, seed_of(op, n, fpcr), CROSSED_CONFIGS.contains(&fpcr)) {
                    cases.push(oracle::max_min(op, n, a, b, fpcr));
                }
            }
            check_all(&format!("{op:?} {n:?}"), cases);
        }
    }
}

#[test]
fn compare_against_host() {
    let ops = [
        Op::Compare { signal_nans: false },
        Op::Compare { signal_nans: true },
        Op::CompareEq,
        Op::CompareGe,
        Op::CompareGt,
    ];
    for n in [H, S, D] {
        for op in ops {
            let mut cases = Vec::new();
            for fpcr in [RNE, FZ | FZ16, FZ, FZ16] {
                for (a, b) in pairs(n, seed_of(op, n, fpcr), true) {
                    cases.push(oracle::compare(op, n, a, b, fpcr));
                }
            }
            check_all(&format!("{op:?} {n:?}"), cases);
        }
    }
}

#[test]
fn conversions_between_widths_against_host() {
    for from in [H, S, D] {
        for to in [H, S, D] {
            if from == to {
                continue;
            }
            let mut cases = Vec::new();
            for fpcr in CONFIGS.iter().copied().chain([AHP, AHP | RZ, AHP | RP | FZ, AHP | DN | RM]) {
                let rounding = fp_rounding_mode(FpCr::from_bits(fpcr));
                let op = Op::Convert { from, rounding };
                for a in singles(from, seed_of(op, to, fpcr)) {
                    cases.extend(oracle::convert(to, from, a, fpcr, rounding));
                }
                // Round to odd (FCVTXN) is not an IEEE mode; `arm.rs` has its cases.
            }
            check_all(&format!("Convert {from:?} to {to:?}"), cases);
        }
    }
}

#[test]
fn to_fixed_against_host() {
    for from in [H, S, D] {
        for m in [H, S, D] {
            let mut cases = Vec::new();
            for unsigned in [false, true] {
                for fbits in [0, 1, 7, 16, 31, 32, 52, 63, 64].into_iter().filter(|&f| f <= m.n()) {
                    for rounding in ROUNDINGS {
                        let fpcr = if fbits % 2 == 1 { FZ | FZ16 } else { RNE };
                        let op = Op::ToFixed { from, fbits, unsigned, rounding };
                        let operands = singles(from, seed_of(op, m, fpcr));
                        for &a in operands.iter().step_by(3) {
                            cases.push(oracle::to_fixed(m, from, a, fbits, unsigned, fpcr, rounding));
                        }
                    }
                }
            }
            check_all(&format!("ToFixed {from:?} to {m:?}"), cases);
        }
    }
}

#[test]
fn fixed_to_fp_against_host() {
    for from in [H, S, D] {
        for n in [H, S, D] {
            let mut cases = Vec::new();
            let mut rng =
                rng(seed_of(Op::FixedToFp { from, fbits: 0, unsigned: false, rounding: FpRounding::TieEven }, n, 0));
            let mut integers: Vec<u64> = vec![0, 1, 2, 3, ones(from.n()), ones(from.n() - 1), 1 << (from.n() - 1)];
            for power in 1..from.n() {
                let p = 1u64 << power;
                integers.extend([p - 1, p + 1, p | p >> 1, p | 1 << power.saturating_sub(25), (p - 1).wrapping_neg()]);
            }
            integers.extend((0..500).map(|_| rng.r#gen::<u64>() >> rng.gen_range(0..64)));
            for unsigned in [false, true] {
                for fbits in [0, 1, 10, 24, 32, 53, 64].into_iter().filter(|&f| f <= from.n()) {
                    for rounding in ROUNDINGS.into_iter().take(4) {
                        let fpcr = if fbits > 20 { FZ16 | FZ } else { RNE };
                        for &a in &integers {
                            cases.extend(oracle::fixed_to_fp(n, from, a, fbits, unsigned, fpcr, rounding));
                        }
                    }
                }
            }
            check_all(&format!("FixedToFp {from:?} to {n:?}"), cases);
        }
    }
}

#[test]
fn round_int_against_host() {
    for n in [H, S, D] {
        let mut cases = Vec::new();
        for fpcr in [RNE, FZ | FZ16, DN, RP] {
            for rounding in ROUNDINGS {
                for exact in [false, true] {
                    let op = Op::RoundInt { rounding, exact };
                    for a in singles(n, seed_of(op, n, fpcr)) {
                        cases.push(oracle::round_int(op, n, a, fpcr));
                    }
                }
                if n != H {
                    for intsize in [S, D] {
                        let op = Op::RoundIntN { rounding, intsize };
                        for a in singles(n, seed_of(op, n, fpcr)) {
                            cases.push(oracle::round_int(op, n, a, fpcr));
                        }
                    }
                }
            }
        }
        check_all(&format!("RoundInt {n:?}"), cases);
    }
}

#[test]
fn to_fixed_js_against_host() {
    let mut cases = Vec::new();
    for fpcr in [RNE, FZ, RP | DN] {
        for a in singles(D, seed_of(Op::ToFixedJs, D, fpcr)) {
            cases.push(oracle::to_fixed_js(a, fpcr));
        }
        // Around the 32-bit range and beyond it, where the result wraps.
        for power in 28..90 {
            let p = bits(D, false, 1023 + power, 0);
            for a in [p, p + 1, p - 1, p | 1 << 40, p | 1 << 20] {
                cases.push(oracle::to_fixed_js(a, fpcr));
                cases.push(oracle::to_fixed_js(a | 1 << 63, fpcr));
            }
        }
    }
    check_all("ToFixedJs", cases);
}
