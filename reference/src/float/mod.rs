//! The Arm ARM's floating-point pseudocode (`shared/functions/float/*`), as a soft-float core for the
//! interpreter's FP and Advanced SIMD instructions.
//!
//! Read it beside the manual: every public function is a pseudocode function under its snake-case name
//! (`FPRoundBase` is [`fp_round_base`], `FPProcessNaNs3` is [`fp_process_nans3`]), and the bodies follow the
//! pseudocode's order of tests, so that which exception is raised, and when, is the manual's.
//!
//! Conventions, the same for every function:
//! - **Operands are raw bit patterns** in a `u64` holding `N` significant bits, as in `interp::pseudocode`;
//!   bits above `N` are ignored on input and zero on output. `N` is a runtime [`Width`] (the pseudocode's
//!   `bits(N)`), passed first; conversions pass the result width, then the operand width (`M` before `N` for
//!   `FPConvert`, whose result is `bits(M)`).
//! - **Control** comes in as an [`FpCr`] by value (a view of the FPCR bits that matter: AHP, DN, FZ, RMode,
//!   FZ16). Functions that the pseudocode gives an explicit `rounding` take it as an [`FpRounding`].
//! - **Status** goes out through an explicit accumulator, `fpsr: &mut Fpsr`, last: `FPProcessException` sets a
//!   cumulative bit (IOC, DZC, OFC, UFC, IXC, IDC) and never clears one, exactly as the pseudocode writes
//!   `FPSR.<cumul> = '1'`. A handler reads
//!   `let mut fpsr = Fpsr(cpu.fpsr); ... fp_add(n, op1, op2, fpcr, &mut fpsr) ...; cpu.fpsr = fpsr.0;`.
//! - **Real numbers** (`real` in the pseudocode) are [`Real`]: exact for operands, products, integers and
//!   scalings; quotients, square roots and sums of far-apart operands keep 60 or more exact bits and a sticky bit
//!   (see `real.rs`), which decides every rounding as the exact value would. So rounding happens once, in
//!   [`fp_round_base`], as the manual specifies: tininess is detected before rounding, FZ/FZ16 flush outputs
//!   before rounding (setting UFC, not IXC).
//! - Floating-point traps are not modelled: the Cortex-A57 and A78C implement none (the FPCR enable bits are
//!   RAZ/WI), so `FPProcessException` only ever sets the cumulative bit.
//! - No function panics or reads host floating-point state; the host FPU appears only in tests, as an oracle.
//!
//! Scope: Armv8.2-A without FEAT_AFP (FPCR.AH, FIZ, NEP), FEAT_RPRES or BFloat16, which the modelled cores lack.
//! `FPRoundIntN` (Armv8.5 FRINT32/64) and round-to-odd (FCVTXN) are included because they are cheap.

mod arith;
mod compare;
mod convert;
mod estimate;
mod real;
mod round;
mod unpack;

#[cfg(test)]
mod tests;

pub use arith::{
    fp_add, fp_div, fp_mul, fp_mul_add, fp_mul_x, fp_recip_step_fused, fp_rsqrt_step_fused, fp_sqrt, fp_sub,
};
pub use compare::{fp_compare, fp_compare_eq, fp_compare_ge, fp_compare_gt, fp_max, fp_max_num, fp_min, fp_min_num};
pub use convert::{fixed_to_fp, fp_convert, fp_convert_nan, fp_to_fixed, fp_to_fixed_js};
pub use estimate::{
    fp_recip_estimate, fp_recp_x, fp_rsqrt_estimate, recip_estimate, recip_sqrt_estimate, unsigned_recip_estimate,
    unsigned_rsqrt_estimate,
};
pub use real::Real;
pub use round::{fp_round, fp_round_base, fp_round_cv, fp_round_int, fp_round_int_n};
pub use unpack::{FpType, fp_process_nan, fp_process_nans, fp_process_nans3, fp_unpack, fp_unpack_base, fp_unpack_cv};

/// The pseudocode's `N` for floating-point data: half, single or double precision.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Width {
    H,
    S,
    D,
}

impl Width {
    /// The width for an element size in bits (16, 32 or 64).
    pub fn from_bits(n: u32) -> Option<Width> {
        match n {
            16 => Some(Width::H),
            32 => Some(Width::S),
            64 => Some(Width::D),
            _ => None,
        }
    }

    /// `N`.
    pub fn n(self) -> u32 {
        match self {
            Width::H => 16,
            Width::S => 32,
            Width::D => 64,
        }
    }

    /// `E`, the number of exponent bits.
    pub fn e(self) -> u32 {
        match self {
            Width::H => 5,
            Width::S => 8,
            Width::D => 11,
        }
    }

    /// `F`, the number of fraction bits.
    pub fn f(self) -> u32 {
        self.n() - self.e() - 1
    }

    /// `minimum_exp` of FPRoundBase: the exponent of the smallest normal number.
    pub fn minimum_exp(self) -> i64 {
        2 - (1i64 << (self.e() - 1))
    }

    /// The exponent bias.
    pub fn bias(self) -> i64 {
        (1i64 << (self.e() - 1)) - 1
    }

    /// `Ones(N)`.
    pub fn mask(self) -> u64 {
        ones(self.n())
    }
}

/// `Ones(n)` for n <= 64.
fn ones(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// `sign : exp : frac` for a value of width `n`; each field is cut to its width.
fn pack(n: Width, sign: bool, exp: u64, frac: u64) -> u64 {
    (sign as u64) << (n.n() - 1) | (exp & ones(n.e())) << n.f() | frac & ones(n.f())
}

/// The FPCR bits the floating-point pseudocode reads (`FPCRType`), as named fields.
///
/// Trap enables are absent: see the module documentation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct FpCr {
    /// FPCR.AHP (bit 26): alternative half-precision format for conversions.
    pub ahp: bool,
    /// FPCR.DN (bit 25): NaN results are the default NaN.
    pub dn: bool,
    /// FPCR.FZ (bit 24): flush single and double denormals to zero.
    pub fz: bool,
    /// FPCR.RMode (bits 23:22).
    pub rmode: u32,
    /// FPCR.FZ16 (bit 19): flush half-precision denormals to zero (data processing only).
    pub fz16: bool,
}

impl FpCr {
    pub const AHP: u32 = 1 << 26;
    pub const DN: u32 = 1 << 25;
    pub const FZ: u32 = 1 << 24;
    pub const RMODE_SHIFT: u32 = 22;
    pub const FZ16: u32 = 1 << 19;

    /// The view of an FPCR value.
    pub fn from_bits(fpcr: u32) -> FpCr {
        FpCr {
            ahp: fpcr & FpCr::AHP != 0,
            dn: fpcr & FpCr::DN != 0,
            fz: fpcr & FpCr::FZ != 0,
            rmode: fpcr >> FpCr::RMODE_SHIFT & 0b11,
            fz16: fpcr & FpCr::FZ16 != 0,
        }
    }

    /// The FPCR bits this view holds; all others zero.
    pub fn to_bits(self) -> u32 {
        ((self.ahp as u32) * FpCr::AHP)
            | ((self.dn as u32) * FpCr::DN)
            | ((self.fz as u32) * FpCr::FZ)
            | ((self.rmode & 0b11) << FpCr::RMODE_SHIFT)
            | ((self.fz16 as u32) * FpCr::FZ16)
    }
}

/// `FPRounding`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FpRounding {
    TieEven,
    PosInf,
    NegInf,
    Zero,
    TieAway,
    Odd,
}

/// `FPDecodeRounding(rmode)`: the FPCR.RMode encoding (and the A64 `rmode` fields that share it).
pub fn fp_decode_rounding(rmode: u32) -> FpRounding {
    match rmode & 0b11 {
        0b00 => FpRounding::TieEven,
        0b01 => FpRounding::PosInf,
        0b10 => FpRounding::NegInf,
        _ => FpRounding::Zero,
    }
}

/// `FPRoundingMode(fpcr)`.
pub fn fp_rounding_mode(fpcr: FpCr) -> FpRounding {
    fp_decode_rounding(fpcr.rmode)
}

/// `FPExc`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FpExc {
    InvalidOp,
    DivideByZero,
    Overflow,
    Underflow,
    Inexact,
    InputDenorm,
}

/// The FPSR, as the floating-point pseudocode updates it: `FPProcessException` sets cumulative bits.
///
/// Holds a whole FPSR value so that a handler can wrap `CpuState::fpsr` directly; only the cumulative
/// exception bits are ever written here (QC and the AArch32 NZCV belong to other instructions).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Fpsr(pub u32);

impl Fpsr {
    pub const IOC: u32 = 1 << 0;
    pub const DZC: u32 = 1 << 1;
    pub const OFC: u32 = 1 << 2;
    pub const UFC: u32 = 1 << 3;
    pub const IXC: u32 = 1 << 4;
    pub const IDC: u32 = 1 << 7;

    /// The cumulative bit `FPProcessException` sets for `exception`.
    pub fn cumulative_bit(exception: FpExc) -> u32 {
        match exception {
            FpExc::InvalidOp => Fpsr::IOC,
            FpExc::DivideByZero => Fpsr::DZC,
            FpExc::Overflow => Fpsr::OFC,
            FpExc::Underflow => Fpsr::UFC,
            FpExc::Inexact => Fpsr::IXC,
            FpExc::InputDenorm => Fpsr::IDC,
        }
    }
}

/// `FPProcessException(exception, fpcr)` with traps disabled: set the cumulative bit.
pub fn fp_process_exception(exception: FpExc, fpsr: &mut Fpsr) {
    fpsr.0 |= Fpsr::cumulative_bit(exception);
}

/// `FPZero(sign)`.
pub fn fp_zero(n: Width, sign: bool) -> u64 {
    pack(n, sign, 0, 0)
}

/// `FPInfinity(sign)`.
pub fn fp_infinity(n: Width, sign: bool) -> u64 {
    pack(n, sign, ones(n.e()), 0)
}

/// `FPMaxNormal(sign)`: exponent `Ones(E-1):'0'`, fraction all ones.
pub fn fp_max_normal(n: Width, sign: bool) -> u64 {
    pack(n, sign, ones(n.e()) - 1, ones(n.f()))
}

/// `FPDefaultNaN()`: positive, quiet, zero payload (0x7E00, 0x7FC00000, 0x7FF8000000000000).
pub fn fp_default_nan(n: Width) -> u64 {
    pack(n, false, ones(n.e()), 1 << (n.f() - 1))
}

/// `FPTwo(sign)`: exponent `'1':Zeros(E-1)`, zero fraction.
pub fn fp_two(n: Width, sign: bool) -> u64 {
    pack(n, sign, 1 << (n.e() - 1), 0)
}

/// `FPThree(sign)`: exponent `'1':Zeros(E-1)`, fraction `'1':Zeros(F-1)`.
pub fn fp_three(n: Width, sign: bool) -> u64 {
    pack(n, sign, 1 << (n.e() - 1), 1 << (n.f() - 1))
}

/// `FPOnePointFive(sign)`: exponent `'0':Ones(E-1)`, fraction `'1':Zeros(F-1)`.
pub fn fp_one_point_five(n: Width, sign: bool) -> u64 {
    pack(n, sign, ones(n.e() - 1), 1 << (n.f() - 1))
}

/// `FPNeg(op)`: flip the sign bit, NaNs included (Armv8.2 has no FPCR.AH).
pub fn fp_neg(n: Width, op: u64) -> u64 {
    (op ^ 1 << (n.n() - 1)) & n.mask()
}

/// `FPAbs(op)`: clear the sign bit, NaNs included.
pub fn fp_abs(n: Width, op: u64) -> u64 {
    op & n.mask() >> 1
}
