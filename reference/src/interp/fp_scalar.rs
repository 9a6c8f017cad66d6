//! C4.1.96 Scalar floating point: the classes "Conversion between floating-point and fixed-point", "Conversion
//! between floating-point and integer", "Floating-point data-processing (1 source)", "Floating-point compare",
//! "Floating-point immediate", "Floating-point conditional compare", "Floating-point data-processing (2 source)",
//! "Floating-point conditional select" and "Floating-point data-processing (3 source)".
//!
//! Implemented: the instructions that only move bits, which need no floating-point arithmetic: FMOV (general),
//! FMOV (register), FMOV (scalar, immediate) and FCSEL. Every other instruction is decoded as its page's decode
//! section says and stops as not implemented under its page's name (the arithmetic waits for the soft-float
//! core); combinations a page calls UNDEFINED stop as unallocated.

use super::pseudocode::{condition_holds, datasize, vfp_expand_imm};
use super::{Exec, Step};

/// The register size of a scalar floating-point instruction from `ftype`: 32, 64, or 16 (FEAT_FP16); `None` for
/// ftype = 10, which only FMOV (general) to and from the upper half of a vector (`V<n>.D[1]`) uses.
fn fp_datasize(ftype: u32) -> Option<u32> {
    match ftype {
        0b00 => Some(32),
        0b01 => Some(64),
        0b11 => Some(16),
        _ => None,
    }
}

/// The page of a floating-point to or from fixed-point conversion.
fn fixed_conversion_page(sf: u32, s: u32, ftype: u32, rmode: u32, opcode: u32, scale: u32) -> Option<&'static str> {
    // A 32-bit integer has at most 32 fraction bits (scale = 64 - fbits).
    if s == 1 || fp_datasize(ftype).is_none() || (sf == 0 && scale >> 5 == 0) {
        return None;
    }
    match (rmode, opcode) {
        (0b00, 0b010) => Some("SCVTF (scalar, fixed-point)"),
        (0b00, 0b011) => Some("UCVTF (scalar, fixed-point)"),
        (0b11, 0b000) => Some("FCVTZS (scalar, fixed-point)"),
        (0b11, 0b001) => Some("FCVTZU (scalar, fixed-point)"),
        _ => None,
    }
}

/// The page of a floating-point to or from integer conversion other than FMOV (opcode 11x).
fn integer_conversion_page(rmode: u32, opcode: u32) -> Option<&'static str> {
    let unsigned = opcode & 1;
    Some(match (opcode >> 1, rmode, unsigned) {
        (0b00, 0b00, 0) => "FCVTNS (scalar)",
        (0b00, 0b00, _) => "FCVTNU (scalar)",
        (0b00, 0b01, 0) => "FCVTPS (scalar)",
        (0b00, 0b01, _) => "FCVTPU (scalar)",
        (0b00, 0b10, 0) => "FCVTMS (scalar)",
        (0b00, 0b10, _) => "FCVTMU (scalar)",
        (0b00, _, 0) => "FCVTZS (scalar, integer)",
        (0b00, _, _) => "FCVTZU (scalar, integer)",
        (0b01, 0b00, 0) => "SCVTF (scalar, integer)",
        (0b01, 0b00, _) => "UCVTF (scalar, integer)",
        (0b10, 0b00, 0) => "FCVTAS (scalar)",
        (0b10, 0b00, _) => "FCVTAU (scalar)",
        _ => return None,
    })
}

/// The page of a floating-point data-processing (1 source) instruction other than FMOV (register).
fn data_processing_1_source_page(ftype: u32, opcode: u32) -> Option<&'static str> {
    Some(match opcode {
        0b000001 => "FABS (scalar)",
        0b000010 => "FNEG (scalar)",
        0b000011 => "FSQRT (scalar)",
        // FCVT to single (opc 00), double (01) or half (11) precision, from another one.
        0b000100 | 0b000101 | 0b000111 if opcode & 0b11 != ftype => "FCVT",
        0b001000 => "FRINTN (scalar)",
        0b001001 => "FRINTP (scalar)",
        0b001010 => "FRINTM (scalar)",
        0b001011 => "FRINTZ (scalar)",
        0b001100 => "FRINTA (scalar)",
        0b001110 => "FRINTX (scalar)",
        0b001111 => "FRINTI (scalar)",
        // 0100xx is FRINT32*/FRINT64* (FEAT_FRINTTS) and 000110 with ftype 01 BFCVT (FEAT_BF16): not in the
        // Cortex-A78C.
        _ => return None,
    })
}

/// The page of a floating-point data-processing (2 source) instruction.
fn data_processing_2_source_page(opcode: u32) -> Option<&'static str> {
    Some(match opcode {
        0b0000 => "FMUL (scalar)",
        0b0001 => "FDIV (scalar)",
        0b0010 => "FADD (scalar)",
        0b0011 => "FSUB (scalar)",
        0b0100 => "FMAX (scalar)",
        0b0101 => "FMIN (scalar)",
        0b0110 => "FMAXNM (scalar)",
        0b0111 => "FMINNM (scalar)",
        0b1000 => "FNMUL (scalar)",
        _ => return None,
    })
}

impl Exec<'_> {
    /// The class "Conversion between floating-point and fixed-point".
    pub(super) fn conversion_between_fp_and_fixed_point(
        &mut self,
        word: u32,
        sf: u32,
        s: u32,
        ftype: u32,
        rmode: u32,
        opcode: u32,
        scale: u32,
    ) -> Step {
        self.not_implemented_page(word, fixed_conversion_page(sf, s, ftype, rmode, opcode, scale))
    }

    /// The class "Conversion between floating-point and integer": FMOV (general) here, the conversions refused as
    /// not implemented. The decode follows the pages' shared decode section.
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
        let intsize = datasize(sf);
        let is_fmov = opcode >> 1 == 0b11;
        let fltsize = match fp_datasize(ftype) {
            Some(size) => size,
            // ftype = 10: only FMOV Xd, Vn.D[1] and FMOV Vd.D[1], Xn.
            None if is_fmov && rmode == 0b01 => 128,
            None => return self.unallocated(word),
        };
        match (is_fmov, rmode) {
            (false, _) => self.not_implemented_page(word, integer_conversion_page(rmode, opcode)),
            (true, 0b00) if fltsize == 16 || fltsize == intsize => {
                self.fmov_general(opcode & 1 == 1, 0, fltsize, intsize, rn, rd)
            }
            (true, 0b01) if intsize == 64 && fltsize == 128 => self.fmov_general(opcode & 1 == 1, 1, 64, 64, rn, rd),
            // Also FJCVTZS (rmode 11), FEAT_JSCVT, which the Cortex-A78C does not have.
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

    /// The class "Floating-point data-processing (1 source)": FMOV (register) here, the rest not implemented.
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
        let Some(datasize) = fp_datasize(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        if opcode == 0 {
            // FMOV (register).
            self.set_v(rd, self.v(rn, datasize), datasize);
            return Ok(());
        }
        self.not_implemented_page(word, data_processing_1_source_page(ftype, opcode))
    }

    /// The class "Floating-point compare": FCMP, FCMPE.
    pub(super) fn fp_compare(&mut self, word: u32, m: u32, s: u32, ftype: u32, op: u32, opcode2: u32) -> Step {
        if m == 1 || s == 1 || fp_datasize(ftype).is_none() || op != 0 || opcode2 & 0b111 != 0 {
            return self.unallocated(word);
        }
        self.not_implemented(word, if opcode2 & 0b10000 == 0 { "FCMP" } else { "FCMPE" })
    }

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
        let Some(datasize) = fp_datasize(ftype).filter(|_| m == 0 && s == 0 && imm5 == 0) else {
            return self.unallocated(word);
        };
        self.set_v(rd, u128::from(vfp_expand_imm(imm8, datasize)), datasize);
        Ok(())
    }

    /// The class "Floating-point conditional compare": FCCMP, FCCMPE.
    pub(super) fn fp_conditional_compare(&mut self, word: u32, m: u32, s: u32, ftype: u32, op: u32) -> Step {
        if m == 1 || s == 1 || fp_datasize(ftype).is_none() {
            return self.unallocated(word);
        }
        self.not_implemented(word, if op == 0 { "FCCMP" } else { "FCCMPE" })
    }

    /// The class "Floating-point data-processing (2 source)".
    pub(super) fn fp_data_processing_2_source(&mut self, word: u32, m: u32, s: u32, ftype: u32, opcode: u32) -> Step {
        if m == 1 || s == 1 || fp_datasize(ftype).is_none() {
            return self.unallocated(word);
        }
        self.not_implemented_page(word, data_processing_2_source_page(opcode))
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
        let Some(datasize) = fp_datasize(ftype).filter(|_| m == 0 && s == 0) else {
            return self.unallocated(word);
        };
        let result = if condition_holds(cond, self.flags()) { self.v(rn, datasize) } else { self.v(rm, datasize) };
        self.set_v(rd, result, datasize);
        Ok(())
    }

    /// The class "Floating-point data-processing (3 source)": FMADD, FMSUB, FNMADD, FNMSUB.
    pub(super) fn fp_data_processing_3_source(
        &mut self,
        word: u32,
        m: u32,
        s: u32,
        ftype: u32,
        o1: u32,
        o0: u32,
    ) -> Step {
        if m == 1 || s == 1 || fp_datasize(ftype).is_none() {
            return self.unallocated(word);
        }
        self.not_implemented(word, ["FMADD", "FMSUB", "FNMADD", "FNMSUB"][(o1 << 1 | o0) as usize & 3])
    }
}
