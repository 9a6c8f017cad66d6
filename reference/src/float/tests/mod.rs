//! Tests of the soft-float core: every case, hand-written or generated, goes through one driver, [`check_all`].
//!
//! - `host.rs`: generated operands judged by oracles built on the host FPU (`oracle.rs`), in all rounding modes,
//!   with FZ/FZ16 and DN, where IEEE 754 and Arm agree on the result; NaN results are judged by Arm's rules.
//! - `arm.rs`: hand-written tables of Arm-specific behaviour, each citing the pseudocode it follows.

mod arm;
mod host;
mod oracle;

use rand::Rng;

use super::*;

/// An operation under test, with the parameters the pseudocode passes besides the operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    /// args: addend, op1, op2.
    MulAdd,
    MulX,
    Div,
    Sqrt,
    Max,
    Min,
    MaxNum,
    MinNum,
    RecipStepFused,
    RSqrtStepFused,
    RecipEstimate,
    RSqrtEstimate,
    RecpX,
    /// Result: the NZCV nibble.
    Compare {
        signal_nans: bool,
    },
    /// Results: 0 or 1.
    CompareEq,
    CompareGe,
    CompareGt,
    RoundInt {
        rounding: FpRounding,
        exact: bool,
    },
    RoundIntN {
        rounding: FpRounding,
        intsize: Width,
    },
    /// The case's width is the result's; `from` the operand's.
    Convert {
        from: Width,
        rounding: FpRounding,
    },
    /// The case's width is the integer's (M); `from` the floating-point operand's.
    ToFixed {
        from: Width,
        fbits: u32,
        unsigned: bool,
        rounding: FpRounding,
    },
    /// The case's width is the floating-point result's; `from` the integer operand's (M).
    FixedToFp {
        from: Width,
        fbits: u32,
        unsigned: bool,
        rounding: FpRounding,
    },
    /// Result: the 32-bit value, with Z in bit 32.
    ToFixedJs,
}

/// One case: an operation on operand bits under an FPCR, and the result and FPSR it must give.
#[derive(Clone, Copy, Debug)]
pub(super) struct Case {
    pub op: Op,
    pub n: Width,
    pub args: [u64; 3],
    pub fpcr: u32,
    pub expect: u64,
    pub fpsr: u32,
    /// The FPSR bits the expectation is sure of (an oracle cannot always tell, e.g. Inexact of a host FMA).
    pub fpsr_mask: u32,
}

pub(super) const ALL_FLAGS: u32 = Fpsr::IOC | Fpsr::DZC | Fpsr::OFC | Fpsr::UFC | Fpsr::IXC | Fpsr::IDC;

/// A case whose flags are all known.
pub(super) fn case(op: Op, n: Width, args: &[u64], fpcr: u32, expect: u64, fpsr: u32) -> Case {
    let mut all = [0; 3];
    all[..args.len()].copy_from_slice(args);
    Case { op, n, args: all, fpcr, expect, fpsr, fpsr_mask: ALL_FLAGS }
}

/// Runs the case's operation: its result bits and the FPSR it accumulated from zero.
pub(super) fn run(c: &Case) -> (u64, u32) {
    let fpcr = FpCr::from_bits(c.fpcr);
    let mut fpsr = Fpsr::default();
    let [a, b, d] = c.args;
    let n = c.n;
    let f = &mut fpsr;
    let result = match c.op {
        Op::Add => fp_add(n, a, b, fpcr, f),
        Op::Sub => fp_sub(n, a, b, fpcr, f),
        Op::Mul => fp_mul(n, a, b, fpcr, f),
        Op::MulAdd => fp_mul_add(n, a, b, d, fpcr, f),
        Op::MulX => fp_mul_x(n, a, b, fpcr, f),
        Op::Div => fp_div(n, a, b, fpcr, f),
        Op::Sqrt => fp_sqrt(n, a, fpcr, f),
        Op::Max => fp_max(n, a, b, fpcr, f),
        Op::Min => fp_min(n, a, b, fpcr, f),
        Op::MaxNum => fp_max_num(n, a, b, fpcr, f),
        Op::MinNum => fp_min_num(n, a, b, fpcr, f),
        Op::RecipStepFused => fp_recip_step_fused(n, a, b, fpcr, f),
        Op::RSqrtStepFused => fp_rsqrt_step_fused(n, a, b, fpcr, f),
        Op::RecipEstimate => fp_recip_estimate(n, a, fpcr, f),
        Op::RSqrtEstimate => fp_rsqrt_estimate(n, a, fpcr, f),
        Op::RecpX => fp_recp_x(n, a, fpcr, f),
        Op::Compare { signal_nans } => fp_compare(n, a, b, signal_nans, fpcr, f) as u64,
        Op::CompareEq => fp_compare_eq(n, a, b, fpcr, f) as u64,
        Op::CompareGe => fp_compare_ge(n, a, b, fpcr, f) as u64,
        Op::CompareGt => fp_compare_gt(n, a, b, fpcr, f) as u64,
        Op::RoundInt { rounding, exact } => fp_round_int(n, a, fpcr, rounding, exact, f),
        Op::RoundIntN { rounding, intsize } => fp_round_int_n(n, a, fpcr, rounding, intsize, f),
        Op::Convert { from, rounding } => fp_convert(n, from, a, fpcr, rounding, f),
        Op::ToFixed { from, fbits, unsigned, rounding } => fp_to_fixed(n, from, a, fbits, unsigned, fpcr, rounding, f),
        Op::FixedToFp { from, fbits, unsigned, rounding } => {
            fixed_to_fp(n, from, a, fbits, unsigned, fpcr, rounding, f)
        }
        Op::ToFixedJs => {
            let (result, z) = fp_to_fixed_js(a, fpcr, f);
            result as u64 | (z as u64) << 32
        }
    };
    (result, fpsr.0)
}

/// Names the set FPSR bits.
fn flag_names(fpsr: u32) -> String {
    let names = [(Fpsr::IOC, "IOC"), (Fpsr::DZC, "DZC"), (Fpsr::OFC, "OFC"), (Fpsr::UFC, "UFC"), (Fpsr::IXC, "IXC")];
    let mut out: Vec<&str> = names.iter().filter(|(bit, _)| fpsr & bit != 0).map(|(_, name)| *name).collect();
    if fpsr & Fpsr::IDC != 0 {
        out.push("IDC");
    }
    if out.is_empty() { "-".to_string() } else { out.join("|") }
}

/// The driver: runs every case and fails with the first mismatches, described. Returns the number of cases.
pub(super) fn check_all(name: &str, cases: impl IntoIterator<Item = Case>) -> usize {
    let mut count = 0;
    let mut failures = Vec::new();
    let mut failed = 0;
    for c in cases {
        count += 1;
        let (result, fpsr) = run(&c);
        if result != c.expect || (fpsr ^ c.fpsr) & c.fpsr_mask != 0 {
            failed += 1;
            if failures.len() < 12 {
                failures.push(format!(
                    "{:?} {:?} args {:#x?} fpcr {:#x}: got {:#x} {}, expected {:#x} {} (checked {})",
                    c.op,
                    c.n,
                    &c.args,
                    c.fpcr,
                    result,
                    flag_names(fpsr),
                    c.expect,
                    flag_names(c.fpsr),
                    flag_names(c.fpsr_mask),
                ));
            }
        }
    }
    assert!(failed == 0, "{name}: {failed} of {count} cases failed:\n{}", failures.join("\n"));
    assert!(count > 0, "{name}: no cases");
    eprintln!("{name}: {count} cases");
    count
}

// ---- Operands ----

pub(super) const RNE: u32 = 0;
pub(super) const RP: u32 = 1 << 22;
pub(super) const RM: u32 = 2 << 22;
pub(super) const RZ: u32 = 3 << 22;
pub(super) const FZ: u32 = FpCr::FZ;
pub(super) const FZ16: u32 = FpCr::FZ16;
pub(super) const DN: u32 = FpCr::DN;
pub(super) const AHP: u32 = FpCr::AHP;

/// Bits of `sign : exp : frac`.
pub(super) fn bits(n: Width, sign: bool, exp: u64, frac: u64) -> u64 {
    pack(n, sign, exp, frac)
}

/// The operands every generated test starts from: zeros, denormals, normals at the edges, ties, integer limits,
/// infinities, quiet and signalling NaNs with and without payloads, in both signs.
pub(super) fn specials(n: Width) -> Vec<u64> {
    let (e, f) = (n.e(), n.f());
    let max_exp = ones(e) - 1;
    let bias = n.bias() as u64;
    let mut magnitudes = vec![
        0,
        1,                                      // smallest denormal
        2,                                      // a denormal with an even lowest bit
        ones(f),                                // largest denormal
        1 << (f - 1),                           // the middle denormal
        bits(n, false, 1, 0),                   // smallest normal
        bits(n, false, 1, 1),                   // just above
        bits(n, false, bias, 0),                // 1.0
        bits(n, false, bias, 1),                // 1.0 + ulp
        bits(n, false, bias - 1, ones(f)),      // the largest number below 1.0
        bits(n, false, bias - 1, 0),            // 0.5
        bits(n, false, bias, 1 << (f - 1)),     // 1.5
        bits(n, false, bias + 1, 1 << (f - 2)), // 2.5
        bits(n, false, bias + 1, 0),            // 2.0
        bits(n, false, bias + 1, 1 << (f - 1)), // 3.0
        bits(n, false, max_exp, ones(f)),       // largest normal
        bits(n, false, max_exp, ones(f) - 1),
        bits(n, false, max_exp, 0),
        bits(n, false, ones(e), 0),                   // infinity
        bits(n, false, ones(e), 1 << (f - 1)),        // default NaN
        bits(n, false, ones(e), 1 << (f - 1) | 0x15), // quiet NaN with payload
        bits(n, false, ones(e), 1),                   // signalling NaN
        bits(n, false, ones(e), 1 << (f - 2) | 0x2a), // signalling NaN with payload
    ];
    // Integer limits of 16, 32 and 64 bits and their neighbours, where the format holds them.
    for power in [15u64, 16, 31, 32, 52, 53, 63, 64] {
        if power + bias <= max_exp {
            let p = bits(n, false, bias + power, 0);
            magnitudes.extend([p, p - 1, p + 1]);
        }
    }
    let mut all = magnitudes.clone();
    all.extend(magnitudes.iter().map(|m| m | 1 << (n.n() - 1)));
    all
}

/// A random operand, biased towards the interesting parts of the format.
pub(super) fn random_operand(n: Width, rng: &mut impl Rng, specials: &[u64]) -> u64 {
    let (e, f) = (n.e(), n.f());
    let sign = rng.gen_bool(0.5);
    let bias = n.bias() as u64;
    let frac: u64 = rng.r#gen::<u64>() & ones(f);
    match rng.gen_range(0..10) {
        0 | 1 => rng.r#gen::<u64>() & n.mask(),
        2..=4 => bits(n, sign, bias - 8 + rng.gen_range(0..16), frac),
        5 => bits(n, sign, rng.gen_range(0..4), frac),
        6 => bits(n, sign, ones(e) - rng.gen_range(1..5), frac),
        7 => specials[rng.gen_range(0..specials.len())],
        8 => {
            // Few fraction bits: exact results, ties, carries.
            let few = if rng.gen_bool(0.5) { frac & !ones(f.saturating_sub(4)) } else { frac & 0xf };
            bits(n, sign, rng.gen_range(0..ones(e)), few)
        }
        _ => {
            // Many ones: carries out of the fraction.
            let many = ones(f) ^ ((1 << rng.gen_range(0..f)) * rng.gen_range(0..2u64));
            bits(n, sign, rng.gen_range(0..ones(e)), many)
        }
    }
}

/// A second operand near the first one, for cancellation and equal-exponent cases, or an independent one.
pub(super) fn related_operand(n: Width, a: u64, rng: &mut impl Rng, specials: &[u64]) -> u64 {
    match rng.gen_range(0..4) {
        0 => {
            // Same exponent (or one off), either sign, low bits changed.
            let exp = (a >> n.f() & ones(n.e())) as i64 + rng.gen_range(-1..=1);
            let exp = exp.clamp(0, ones(n.e()) as i64 - 1) as u64;
            let frac = (a & ones(n.f())) ^ (rng.r#gen::<u64>() & ones(rng.gen_range(1..=n.f())));
            bits(n, rng.gen_bool(0.5), exp, frac)
        }
        1 => a ^ 1 << (n.n() - 1) ^ rng.gen_range(0..4),
        _ => random_operand(n, rng, specials),
    }
}

/// The deterministic generator every generated test uses, seeded per test.
pub(super) fn rng(seed: u64) -> rand_chacha::ChaCha8Rng {
    use rand::SeedableRng;
    rand_chacha::ChaCha8Rng::seed_from_u64(seed)
}
