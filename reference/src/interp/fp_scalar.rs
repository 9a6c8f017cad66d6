//! C4.1.96 Scalar floating point: the classes "Conversion between floating-point and fixed-point", "Conversion
//! between floating-point and integer", "Floating-point data-processing (1 source)", "Floating-point compare",
//! "Floating-point immediate", "Floating-point conditional compare", "Floating-point data-processing (2 source)",
//! "Floating-point conditional select" and "Floating-point data-processing (3 source)".
//!
//! Every instruction is decoded as its page's decode section says (combinations a page calls UNDEFINED stop as
//! unallocated) and executed with the soft-float core (`crate::float`), under the FPCR (rounding mode, FZ, FZ16,
//! DN, AHP), accumulating the cumulative exception flags into FPSR as the pseudocode's `FPProcessException` does.
//! Half precision (ftype = 11) is FEAT_FP16, which the Cortex-A78C has. FRINT32/FRINT64 (FEAT_FRINTTS), FJCVTZS
//! (FEAT_JSCVT) and BFCVT (FEAT_BF16) are not in the core: unallocated.
//!
//! Pages whose pseudocode differs only in what their decode section sets (the rounding of FRINT<r> and
//! FCVT<r><u>, the signedness of SCVTF/UCVTF, FCMPE's `signal_all_nans`) share one function, named after the
//! operation the older manual gave them all (`FPConvOp_CVT_FtoI`, ...); every other page has its own.

use super::pseudocode::{condition_holds, datasize, vfp_expand_imm};
use super::{Exec, Step};
use crate::float::{
    FpCr, FpRounding, Fpsr, Width, fixed_to_fp, fp_abs, fp_add, fp_compare, fp_convert, fp_decode_rounding, fp_div,
    fp_max, fp_max_num, fp_min, fp_min_num, fp_mul, fp_mul_add, fp_neg, fp_round_int, fp_rounding_mode, fp_sqrt,
    fp_sub, fp_to_fixed, fp_zero,
};
use crate::state::Flags;

/// The operand size of a scalar floating-point instruction from `ftype`: single, double or half precision
/// (FEAT_FP16); `None` for ftype = 10, which only FMOV (general) to and from `V<n>.D[1]` uses.
pub fn fp_width(ftype: u32) -> Option<Width> {
    match ftype {
        0b00 => Some(Width::S),
        0b01 => Some(Width::D),
        0b11 => Some(Width::H),
        _ => None,
    }
}

/// `intsize` of the conversions, as the width the soft-float core takes for an integer (32 or 64 bits).
fn int_width(sf: u32) -> Width {
    if sf == 1 { Width::D } else { Width::S }
}

impl Exec<'_> {
    // --- What every page shares ----------------------------------------------------------------------------

    /// `bits(N) operand = V[n]`: a floating-point scalar of width `width`.
    fn fp_reg(&self, n: u32, width: Width) -> u64 {
        self.v(n, width.n()) as u64
    }

    /// `V[d] = result` for a floating-point scalar: the bits above it are cleared.
    fn set_fp_reg(&mut self, d: u32, result: u64, width: Width) {
        self.set_v(d, u128::from(result), width.n());
    }

    /// Runs a soft-float function with the FPCR, accumulating the exceptions it raises into the FPSR.
    fn under_fpcr<T>(&mut self, operation: impl FnOnce(FpCr, &mut Fpsr) -> T) -> T {
        let fpcr = FpCr::from_bits(self.cpu.fpcr);
        let mut fpsr = Fpsr(self.cpu.fpsr);
        let result = operation(fpcr, &mut fpsr);
        self.cpu.fpsr = fpsr.0;
        result
    }

    /// `FPRoundingMode(FPCR)`, which the decode sections of SCVTF, UCVTF, FRINTX and FRINTI read.
    fn fpcr_rounding_mode(&self) -> FpRounding {
        fp_rounding_mode(FpCr::from_bits(self.cpu.fpcr))
    }

    // --- Conversion between floating-point and fixed-point ---------------------------------------------------

    /// The class "Conversion between floating-point and fixed-point": FCVTZS, FCVTZU, SCVTF and UCVTF (scalar,
    /// fixed-point).
    pub(super) fn conversion_between_fp_and_fixed_point(
        &mut self,
        word: u32,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        scale: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let intsize = int_width(sf);
        let Some(fltsize) = fp_width(ftype).filter(|_| s == 0) else {
            return self.unallocated(word);
        };
        if sf == 0 && scale >> 5 == 0 {
            return self.unallocated(word);
        }
        let fracbits = 64 - scale;
        let unsigned = opcode & 1 == 1;
        match (opcode >> 1, rmode) {
            // FCVTZS, FCVTZU (scalar, fixed-point).
            (0b00, 0b11) => self.fp_convert_to_int(fltsize, intsize, fracbits, unsigned, FpRounding::Zero, rn, rd),
            // SCVTF, UCVTF (scalar, fixed-point).
            (0b01, 0b00) => {
                let rounding = self.fpcr_rounding_mode();
                self.fp_convert_from_int(fltsize, intsize, fracbits, unsigned, rounding, rn, rd)
            }
            _ => self.unallocated(word),
        }
    }

    // --- Conversion between floating-point and integer -------------------------------------------------------

    /// The class "Conversion between floating-point and integer": FCVTNS, FCVTNU, FCVTPS, FCVTPU, FCVTMS, FCVTMU,
    /// FCVTZS, FCVTZU, FCVTAS, FCVTAU (scalar), SCVTF, UCVTF (scalar, integer) and FMOV (general), decoded as their
    /// pages' shared decode section does.
    pub(super) fn conversion_between_fp_and_integer(
        &mut self,
        word: u32,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if s == 1 {
            return self.unallocated(word);
        }
        let unsigned = opcode & 1 == 1;
        if opcode >> 1 == 0b11 {
            return self.fmov_general_decode(word, sf, ftype, rmode, opcode, rn, rd);
        }
        // ftype = 10 is only for FMOV (general) with V<n>.D[1].
        let Some(fltsize) = fp_width(ftype) else {
            return self.unallocated(word);
        };
        let intsize = int_width(sf);
        match (opcode >> 1, rmode) {
            // FCVT[NPMZ][SU]: the rounding is rmode's.
            (0b00, _) => self.fp_convert_to_int(fltsize, intsize, 0, unsigned, fp_decode_rounding(rmode), rn, rd),
            // SCVTF, UCVTF (scalar, integer).
            (0b01, 0b00) => {
                let rounding = self.fpcr_rounding_mode();
                self.fp_convert_from_int(fltsize, intsize, 0, unsigned, rounding, rn, rd)
            }
            // FCVTAS, FCVTAU (scalar).
            (0b10, 0b00) => self.fp_convert_to_int(fltsize, intsize, 0, unsigned, FpRounding::TieAway, rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// `FPConvOp_CVT_FtoI`, the operation of FCVT<r>S/FCVT<r>U (scalar) and FCVTZS/FCVTZU (scalar, fixed-point):
    /// `X[d] = FPToFixed(V[n], fracbits, unsigned, FPCR, rounding)`.
    fn fp_convert_to_int(
        &mut self,
        fltsize: Width,
        intsize: Width,
        fracbits: u32,
        unsigned: bool,
        rounding: FpRounding,
        n: u32,
        d: u32,
    ) -> Step {
        let fltval = self.fp_reg(n, fltsize);
        let intval = self
            .under_fpcr(|fpcr, fpsr| fp_to_fixed(intsize, fltsize, fltval, fracbits, unsigned, fpcr, rounding, fpsr));
        self.set_x(d, intval, intsize.n());
        Ok(())
    }

    /// `FPConvOp_CVT_ItoF`, the operation of SCVTF and UCVTF (scalar, integer and fixed-point):
    /// `V[d] = FixedToFP(X[n], fracbits, unsigned, FPCR, rounding)`.
    fn fp_convert_from_int(
        &mut self,
        fltsize: Width,
        intsize: Width,
        fracbits: u32,
        unsigned: bool,
        rounding: FpRounding,
        n: u32,
        d: u32,
    ) -> Step {
        let intval = self.x(n, intsize.n());
        let fltval = self
            .under_fpcr(|fpcr, fpsr| fixed_to_fp(fltsize, intsize, intval, fracbits, unsigned, fpcr, rounding, fpsr));
        self.set_fp_reg(d, fltval, fltsize);
        Ok(())
    }

    /// The decode of FMOV (general), opcode = 11x: `V[d]` and `X[n]` of the same size (or a half with either), or
    /// `V<d>.D[1]` and a 64-bit register. Also FJCVTZS (rmode 11, FEAT_JSCVT), which the Cortex-A78C lacks.
    fn fmov_general_decode(
        &mut self,
        word: u32,
        sf: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let intsize = datasize(sf);
        let to_fp = opcode & 1 == 1;
        match (rmode, fp_width(ftype)) {
            (0b00, Some(width)) if width == Width::H || width.n() == intsize => {
                self.fmov_general(to_fp, 0, width.n(), intsize, rn, rd)
            }
            (0b01, None) if intsize == 64 => self.fmov_general(to_fp, 1, 64, 64, rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// FMOV (general): `to_fp` is FPConvOp_MOV_ItoF, `part` selects the upper half of a vector (`V<n>.D[1]`).
    fn fmov_general(&mut self, to_fp: bool, part: u32, fltsize: u32, intsize: u32, rn: u32, rd: u32) -> Step {
        if to_fp {
            let intval = self.x(rn, intsize);
            self.set_vpart(rd, part, u128::from(intval), fltsize);
        } else {
            let fltval = self.vpart(rn, part, fltsize) as u64;
            self.set_x(rd, fltval, intsize);
        }
        Ok(())
    }

    // --- Floating-point data-processing (1 source) -----------------------------------------------------------

    /// The class "Floating-point data-processing (1 source)": FMOV (register), FABS, FNEG, FSQRT (scalar), FCVT and
    /// FRINTN, FRINTP, FRINTM, FRINTZ, FRINTA, FRINTX, FRINTI (scalar).
    pub(super) fn fp_data_processing_1_source(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        match opcode {
            0b000000 => self.fmov_register(width, rn, rd),
            0b000001 => self.fabs_scalar(width, rn, rd),
            0b000010 => self.fneg_scalar(width, rn, rd),
            0b000011 => self.fsqrt_scalar(width, rn, rd),
            // FCVT: opc (opcode<1:0>) is the destination's type, ftype the source's; 10 and equal types are
            // UNDEFINED. (000110 with ftype 01 is BFCVT, FEAT_BF16.)
            0b000100..=0b000111 => match fp_width(opcode & 0b11) {
                Some(dstsize) if dstsize != width => self.fcvt(dstsize, width, rn, rd),
                _ => self.unallocated(word),
            },
            // FRINT<r> (scalar): rmode is opcode<2:0>. (0100xx is FRINT32/64, FEAT_FRINTTS.)
            0b001000..=0b001111 => {
                let rmode = opcode & 0b111;
                let (rounding, exact) = match rmode {
                    0b000..=0b011 => (fp_decode_rounding(rmode), false), // FRINTN, FRINTP, FRINTM, FRINTZ
                    0b100 => (FpRounding::TieAway, false),               // FRINTA
                    0b110 => (self.fpcr_rounding_mode(), true),          // FRINTX
                    0b111 => (self.fpcr_rounding_mode(), false),         // FRINTI
                    _ => return self.unallocated(word),
                };
                self.frint_scalar(width, rounding, exact, rn, rd)
            }
            _ => self.unallocated(word),
        }
    }

    /// FMOV (register): `V[d] = V[n]`.
    fn fmov_register(&mut self, width: Width, n: u32, d: u32) -> Step {
        let operand = self.fp_reg(n, width);
        self.set_fp_reg(d, operand, width);
        Ok(())
    }

    /// FABS (scalar): `result = FPAbs(operand)`; NaNs included, nothing raised.
    fn fabs_scalar(&mut self, width: Width, n: u32, d: u32) -> Step {
        let operand = self.fp_reg(n, width);
        self.set_fp_reg(d, fp_abs(width, operand), width);
        Ok(())
    }

    /// FNEG (scalar): `result = FPNeg(operand)`; NaNs included, nothing raised.
    fn fneg_scalar(&mut self, width: Width, n: u32, d: u32) -> Step {
        let operand = self.fp_reg(n, width);
        self.set_fp_reg(d, fp_neg(width, operand), width);
        Ok(())
    }

    /// FSQRT (scalar): `result = FPSqrt(operand, FPCR)`.
    fn fsqrt_scalar(&mut self, width: Width, n: u32, d: u32) -> Step {
        let operand = self.fp_reg(n, width);
        let result = self.under_fpcr(|fpcr, fpsr| fp_sqrt(width, operand, fpcr, fpsr));
        self.set_fp_reg(d, result, width);
        Ok(())
    }

    /// FCVT: `result = FPConvert(operand, FPCR)`, between any two of half, single and double precision (half
    /// precision in the format FPCR.AHP selects).
    fn fcvt(&mut self, dstsize: Width, srcsize: Width, n: u32, d: u32) -> Step {
        let operand = self.fp_reg(n, srcsize);
        let rounding = self.fpcr_rounding_mode();
        let result = self.under_fpcr(|fpcr, fpsr| fp_convert(dstsize, srcsize, operand, fpcr, rounding, fpsr));
        self.set_fp_reg(d, result, dstsize);
        Ok(())
    }

    /// FRINTN, FRINTP, FRINTM, FRINTZ, FRINTA, FRINTX and FRINTI (scalar):
    /// `result = FPRoundInt(operand, FPCR, rounding, exact)`.
    fn frint_scalar(&mut self, width: Width, rounding: FpRounding, exact: bool, n: u32, d: u32) -> Step {
        let operand = self.fp_reg(n, width);
        let result = self.under_fpcr(|fpcr, fpsr| fp_round_int(width, operand, fpcr, rounding, exact, fpsr));
        self.set_fp_reg(d, result, width);
        Ok(())
    }

    // --- Floating-point compare and conditional compare -------------------------------------------------------

    /// The class "Floating-point compare": FCMP, FCMPE.
    pub(super) fn fp_compare(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        op: u32,
        rn: u32,
        opcode2: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0 && op == 0 && opcode2 & 0b111 == 0) else {
            return self.unallocated(word);
        };
        // opc is opcode2<4:3>: FCMPE signals quiet NaNs too; the "#0.0" forms compare with +0.0 (Rm ignored).
        let signal_all_nans = opcode2 >> 4 & 1 == 1;
        let cmp_with_zero = opcode2 >> 3 & 1 == 1;
        self.fcmp(width, signal_all_nans, cmp_with_zero, rm, rn)
    }

    /// FCMP and FCMPE: `PSTATE.<N,Z,C,V> = FPCompare(operand1, operand2, signal_all_nans, FPCR)`.
    fn fcmp(&mut self, width: Width, signal_all_nans: bool, cmp_with_zero: bool, m: u32, n: u32) -> Step {
        let operand1 = self.fp_reg(n, width);
        let operand2 = if cmp_with_zero { fp_zero(width, false) } else { self.fp_reg(m, width) };
        let nzcv = self.under_fpcr(|fpcr, fpsr| fp_compare(width, operand1, operand2, signal_all_nans, fpcr, fpsr));
        self.set_flags(Flags::from_imm4(nzcv));
        Ok(())
    }

    /// The class "Floating-point conditional compare": FCCMP, FCCMPE.
    pub(super) fn fp_conditional_compare(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        cond: u32,
        rn: u32,
        op: u32,
        nzcv: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        self.fccmp(width, op == 1, rm, cond, rn, nzcv)
    }

    /// FCCMP and FCCMPE: the flags of `FPCompare(operand1, operand2, signal_all_nans, FPCR)` if the condition
    /// holds (only then can it raise an exception), else the immediate `nzcv`.
    fn fccmp(&mut self, width: Width, signal_all_nans: bool, m: u32, cond: u32, n: u32, nzcv: u32) -> Step {
        let operand1 = self.fp_reg(n, width);
        let operand2 = self.fp_reg(m, width);
        let mut flags = nzcv;
        if condition_holds(cond, self.flags()) {
            flags = self.under_fpcr(|fpcr, fpsr| fp_compare(width, operand1, operand2, signal_all_nans, fpcr, fpsr));
        }
        self.set_flags(Flags::from_imm4(flags));
        Ok(())
    }

    // --- Floating-point immediate and conditional select --------------------------------------------------------

    /// The class "Floating-point immediate": FMOV (scalar, immediate).
    pub(super) fn fp_immediate(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        imm8: u32,
        imm5: u32,
        rd: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0 && imm5 == 0) else {
            return self.unallocated(word);
        };
        self.set_fp_reg(rd, vfp_expand_imm(imm8, width.n()), width);
        Ok(())
    }

    /// The class "Floating-point conditional select": FCSEL.
    pub(super) fn fp_conditional_select(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        cond: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        let result = if condition_holds(cond, self.flags()) { self.fp_reg(rn, width) } else { self.fp_reg(rm, width) };
        self.set_fp_reg(rd, result, width);
        Ok(())
    }

    // --- Floating-point data-processing (2 source) -----------------------------------------------------------

    /// The class "Floating-point data-processing (2 source)": FMUL, FDIV, FADD, FSUB, FMAX, FMIN, FMAXNM, FMINNM
    /// and FNMUL (scalar).
    pub(super) fn fp_data_processing_2_source(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        match opcode {
            0b0000 => self.fmul_scalar(width, rm, rn, rd),
            0b0001 => self.fdiv_scalar(width, rm, rn, rd),
            0b0010 => self.fadd_scalar(width, rm, rn, rd),
            0b0011 => self.fsub_scalar(width, rm, rn, rd),
            0b0100 => self.fmax_scalar(width, rm, rn, rd),
            0b0101 => self.fmin_scalar(width, rm, rn, rd),
            0b0110 => self.fmaxnm_scalar(width, rm, rn, rd),
            0b0111 => self.fminnm_scalar(width, rm, rn, rd),
            0b1000 => self.fnmul_scalar(width, rm, rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// The operation of the 2-source pages: `V[d] = op(V[n], V[m], FPCR)`.
    fn fp_2_source(
        &mut self,
        width: Width,
        m: u32,
        n: u32,
        d: u32,
        op: fn(Width, u64, u64, FpCr, &mut Fpsr) -> u64,
    ) -> Step {
        let operand1 = self.fp_reg(n, width);
        let operand2 = self.fp_reg(m, width);
        let result = self.under_fpcr(|fpcr, fpsr| op(width, operand1, operand2, fpcr, fpsr));
        self.set_fp_reg(d, result, width);
        Ok(())
    }

    /// FMUL (scalar): `result = FPMul(operand1, operand2, FPCR)`.
    fn fmul_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_mul)
    }

    /// FDIV (scalar): `result = FPDiv(operand1, operand2, FPCR)`.
    fn fdiv_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_div)
    }

    /// FADD (scalar): `result = FPAdd(operand1, operand2, FPCR)`.
    fn fadd_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_add)
    }

    /// FSUB (scalar): `result = FPSub(operand1, operand2, FPCR)`.
    fn fsub_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_sub)
    }

    /// FMAX (scalar): `result = FPMax(operand1, operand2, FPCR)`.
    fn fmax_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_max)
    }

    /// FMIN (scalar): `result = FPMin(operand1, operand2, FPCR)`.
    fn fmin_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_min)
    }

    /// FMAXNM (scalar): `result = FPMaxNum(operand1, operand2, FPCR)`.
    fn fmaxnm_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_max_num)
    }

    /// FMINNM (scalar): `result = FPMinNum(operand1, operand2, FPCR)`.
    fn fminnm_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, fp_min_num)
    }

    /// FNMUL (scalar): `result = FPNeg(FPMul(operand1, operand2, FPCR))`; a NaN product is negated too.
    fn fnmul_scalar(&mut self, width: Width, m: u32, n: u32, d: u32) -> Step {
        self.fp_2_source(width, m, n, d, |width, operand1, operand2, fpcr, fpsr| {
            fp_neg(width, fp_mul(width, operand1, operand2, fpcr, fpsr))
        })
    }

    // --- Floating-point data-processing (3 source) -----------------------------------------------------------

    /// The class "Floating-point data-processing (3 source)": FMADD, FMSUB, FNMADD, FNMSUB.
    pub(super) fn fp_data_processing_3_source(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        o1: u32,
        rm: u32,
        o0: u32,
        ra: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let Some(width) = fp_width(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        match (o1, o0) {
            (0, 0) => self.fmadd(width, rm, ra, rn, rd),
            (0, _) => self.fmsub(width, rm, ra, rn, rd),
            (_, 0) => self.fnmadd(width, rm, ra, rn, rd),
            _ => self.fnmsub(width, rm, ra, rn, rd),
        }
    }

    /// The operation of the 3-source pages once they have negated their operands:
    /// `V[d] = FPMulAdd(operanda, operand1, operand2, FPCR)`.
    fn fp_3_source(&mut self, width: Width, operanda: u64, operand1: u64, operand2: u64, d: u32) -> Step {
        let result = self.under_fpcr(|fpcr, fpsr| fp_mul_add(width, operanda, operand1, operand2, fpcr, fpsr));
        self.set_fp_reg(d, result, width);
        Ok(())
    }

    /// FMADD: `result = FPMulAdd(operanda, operand1, operand2, FPCR)`.
    fn fmadd(&mut self, width: Width, m: u32, a: u32, n: u32, d: u32) -> Step {
        let operanda = self.fp_reg(a, width);
        let operand1 = self.fp_reg(n, width);
        let operand2 = self.fp_reg(m, width);
        self.fp_3_source(width, operanda, operand1, operand2, d)
    }

    /// FMSUB: `operand1 = FPNeg(operand1)`, then as FMADD.
    fn fmsub(&mut self, width: Width, m: u32, a: u32, n: u32, d: u32) -> Step {
        let operanda = self.fp_reg(a, width);
        let operand1 = fp_neg(width, self.fp_reg(n, width));
        let operand2 = self.fp_reg(m, width);
        self.fp_3_source(width, operanda, operand1, operand2, d)
    }

    /// FNMADD: `operanda = FPNeg(operanda)`, `operand1 = FPNeg(operand1)`, then as FMADD.
    fn fnmadd(&mut self, width: Width, m: u32, a: u32, n: u32, d: u32) -> Step {
        let operanda = fp_neg(width, self.fp_reg(a, width));
        let operand1 = fp_neg(width, self.fp_reg(n, width));
        let operand2 = self.fp_reg(m, width);
        self.fp_3_source(width, operanda, operand1, operand2, d)
    }

    /// FNMSUB: `operanda = FPNeg(operanda)`, then as FMADD.
    fn fnmsub(&mut self, width: Width, m: u32, a: u32, n: u32, d: u32) -> Step {
        let operanda = fp_neg(width, self.fp_reg(a, width));
        let operand1 = self.fp_reg(n, width);
        let operand2 = self.fp_reg(m, width);
        self.fp_3_source(width, operanda, operand1, operand2, d)
    }
}

#[cfg(test)]
mod tests {
    //! Execution tests of corners the pseudocode decides (the words come from `llvm-mc -show-encoding`; the
    //! arithmetic itself is checked by the soft-float core's tests and the differential suite).

    use crate::engine::{Engine, Exit, GuestClock};
    use crate::float::{FpCr, Fpsr};
    use crate::interp::Interpreter;
    use crate::memory::{GuestMemory, Perm};
    use crate::state::CpuState;

    const CODE: u64 = 0x10000;
    const ONE: u128 = 0x3f80_0000;
    const TWO: u128 = 0x4000_0000;
    const QNAN: u128 = 0x7fc0_0001;
    const SNAN: u128 = 0x7f80_0001;
    /// Bits above a scalar that a write must clear.
    const GARBAGE: u128 = 0xdead_beef << 64;

    /// Runs `word` from `cpu` as one instruction, expects it to retire, and returns the state after it.
    fn step(mut cpu: CpuState, word: u32) -> CpuState {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(CODE, 0x1000, Perm::RX).unwrap();
        memory.write_privileged(CODE, &word.to_le_bytes()).unwrap();
        cpu.pc = CODE;
        let exit = Interpreter::default().run(&mut cpu, &memory, 1, GuestClock::default()).exit;
        assert_eq!(exit, Exit::BudgetSpent, "{word:#010x}");
        cpu
    }

    fn with_v(values: &[(usize, u128)], fpcr: u32) -> CpuState {
        let mut cpu = CpuState::default();
        for &(n, value) in values {
            cpu.v[n] = value;
        }
        cpu.fpcr = fpcr;
        cpu
    }

    #[test]
    fn fcmp_and_fcmpe_set_nzcv_and_signal_as_the_pseudocode_says() {
        const FCMP: u32 = 0x1e21_2000; // fcmp s0, s1
        const FCMPE: u32 = 0x1e21_2010; // fcmpe s0, s1
        // (operand1, operand2, NZCV, IOC from FCMP, IOC from FCMPE)
        let cases = [
            (ONE, TWO, 0b1000, false, false),
            (TWO, ONE, 0b0010, false, false),
            (ONE, ONE, 0b0110, false, false),
            (0x8000_0000, 0, 0b0110, false, false), // -0.0 == +0.0
            (QNAN, ONE, 0b0011, false, true),
            (ONE, SNAN, 0b0011, true, true),
        ];
        for (a, b, nzcv, fcmp_ioc, fcmpe_ioc) in cases {
            for (word, ioc) in [(FCMP, fcmp_ioc), (FCMPE, fcmpe_ioc)] {
                let after = step(with_v(&[(0, a), (1, b)], 0), word);
                assert_eq!(after.nzcv >> 28, nzcv, "{word:#010x} {a:#x} {b:#x}");
                assert_eq!(after.fpsr, if ioc { Fpsr::IOC } else { 0 }, "{word:#010x} {a:#x} {b:#x}");
            }
        }
    }

    #[test]
    fn fcmp_with_zero_ignores_rm() {
        // fcmp s0, #0.0 with Rm = 1 (a should-be-zero field): -0.0 equals +0.0 whatever V1 holds.
        let after = step(with_v(&[(0, 0x8000_0000), (1, ONE)], 0), 0x1e21_2008);
        assert_eq!(after.nzcv >> 28, 0b0110);
    }

    #[test]
    fn fccmp_with_a_failing_condition_takes_the_immediate_and_raises_nothing() {
        // fccmp s0, s1, #5, eq with Z clear: NZCV = 0101 and no Invalid Operation from the signalling NaN.
        let mut cpu = with_v(&[(0, SNAN), (1, ONE)], 0);
        cpu.nzcv = 0;
        let after = step(cpu.clone(), 0x1e21_0405);
        assert_eq!((after.nzcv >> 28, after.fpsr), (0b0101, 0));
        // With Z set the comparison happens: unordered, and the signalling NaN raises Invalid Operation.
        cpu.nzcv = 0b0100 << 28;
        let after = step(cpu, 0x1e21_0405);
        assert_eq!((after.nzcv >> 28, after.fpsr), (0b0011, Fpsr::IOC));
    }

    #[test]
    fn conversions_to_integers_round_saturate_and_clear_the_upper_half() {
        // fcvtzs w0, s1, #1: 2.75 * 2 = 5.5 rounds towards zero to 5, Inexact; X0's upper half cleared.
        let mut cpu = with_v(&[(1, 0x4030_0000)], 0);
        cpu.x[0] = u64::MAX;
        let after = step(cpu, 0x1e18_fc20);
        assert_eq!((after.x[0], after.fpsr), (5, Fpsr::IXC));
        // fcvtzs x0, s1 of -1e20: saturates to the most negative integer with Invalid Operation, no Inexact.
        let after = step(with_v(&[(1, 0xe0ad_78ec)], 0), 0x9e38_0020);
        assert_eq!((after.x[0], after.fpsr), (1 << 63, Fpsr::IOC));
        // fcvtau w0, d1 of 2.5: ties away from zero, 3.
        let after = step(with_v(&[(1, 0x4004_0000_0000_0000)], 0), 0x1e65_0020);
        assert_eq!((after.x[0], after.fpsr), (3, Fpsr::IXC));
    }

    #[test]
    fn scvtf_to_half_precision_overflows_by_the_rounding_mode() {
        // scvtf h0, w1 of 65520: just past the largest half (65504); to nearest it overflows to infinity, towards
        // zero it is the largest half.
        let mut cpu = with_v(&[(0, GARBAGE)], 0);
        cpu.x[1] = 65520;
        let after = step(cpu.clone(), 0x1ee2_0020);
        assert_eq!((after.v[0], after.fpsr), (0x7c00, Fpsr::OFC | Fpsr::IXC));
        cpu.fpcr = 0b11 << FpCr::RMODE_SHIFT;
        let after = step(cpu, 0x1ee2_0020);
        assert_eq!((after.v[0], after.fpsr), (0x7bff, Fpsr::IXC));
    }

    #[test]
    fn fcvt_to_alternative_half_precision() {
        // fcvt h0, s1 with FPCR.AHP: infinity becomes the largest magnitude, a NaN zero, both Invalid Operation.
        let after = step(with_v(&[(1, 0xff80_0000)], FpCr::AHP), 0x1e23_c020);
        assert_eq!((after.v[0], after.fpsr), (0xffff, Fpsr::IOC));
        let after = step(with_v(&[(1, QNAN)], FpCr::AHP), 0x1e23_c020);
        assert_eq!((after.v[0], after.fpsr), (0, Fpsr::IOC));
        // Without AHP 65536.0 overflows the IEEE half to infinity; with it, 65536 is a normal number.
        let after = step(with_v(&[(1, 0x4780_0000)], 0), 0x1e23_c020);
        assert_eq!((after.v[0], after.fpsr), (0x7c00, Fpsr::OFC | Fpsr::IXC));
        let after = step(with_v(&[(1, 0x4780_0000)], FpCr::AHP), 0x1e23_c020);
        assert_eq!((after.v[0], after.fpsr), (0x7c00, 0));
    }

    #[test]
    fn negating_instructions_negate_nans_too() {
        // fnmul s0, s1, s2 with DN: the default NaN of the product, negated (FPNeg(FPMul(...))).
        let after = step(with_v(&[(1, SNAN), (2, ONE)], FpCr::DN), 0x1e22_8820);
        assert_eq!((after.v[0], after.fpsr), (0xffc0_0000, Fpsr::IOC));
        // fmsub d0, d1, d2, d3 negates operand1 before FPMulAdd: a quiet NaN in D1 comes out with its sign flipped
        // when it is the NaN FPProcessNaNs3 picks (D3, the addend, is a number).
        let nan = 0x7ff8_0000_0000_0042;
        let after = step(with_v(&[(1, nan), (2, 0x3ff0_0000_0000_0000), (3, 0)], 0), 0x1f42_8c20);
        assert_eq!((after.v[0], after.fpsr), (nan | 1 << 63, 0));
    }

    #[test]
    fn frintx_of_a_half_raises_inexact() {
        // frintx h0, h1 of 2.5 (0x4100): to nearest even, 2.0, Inexact.
        let after = step(with_v(&[(1, 0x4100)], 0), 0x1ee7_4020);
        assert_eq!((after.v[0], after.fpsr), (0x4000, Fpsr::IXC));
    }
}
