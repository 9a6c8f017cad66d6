//! FSWZADD, the quad operation both instruction sets build screen-space derivatives from (with SHFL.BFLY moving
//! a neighbour's value into one operand): each lane of a quad adds its two operands with the signs its two bits
//! of the 8-bit swizzle name, lane 0 (the quad's first, lane id & 3) in the highest two. What each value means
//! differs between the ISAs; nvdisasm spells each lane as the signs it gives a and b (P, N, or Z for zero),
//! lane 0 first, which every value of the field was read back for (`nvdisasm -b SM50` of CUDA 11.8, `-b SM86` of
//! CUDA 13). Which lane takes which bits, and that the letters are a's sign then b's, are nouveau's reading
//! (nv50_ir's QUADOP in the GM107 lowering of derivatives: SUB, SUBR, SUB, SUBR from lane 0 for dFdx, its value
//! 2 "SUB" a - b) and Mesa NAK's (its SM70 encoder's first lane in the highest bits, value 1 a - b there); with
//! them both drivers' derivatives (a the neighbour, b the lane's own value) come out as right - left and bottom
//! - top. No NVIDIA GPU has run it here: ptxas never emits it.

use super::Isa;

/// The signs one lane gives its operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum QuadSigns {
    /// a + b.
    Add,
    /// b - a.
    SubtractA,
    /// a - b.
    SubtractB,
    /// b alone (nouveau's MOV2, nvdisasm's "ZP"): whether that is b + 0, 0 x a + b or b itself, which differ for
    /// infinite and NaN operands and under FTZ, no source says.
    MoveB,
}

impl QuadSigns {
    /// The signs of the quad's lane `lane` (0-3) in `swizzle`.
    pub fn of_lane(isa: Isa, swizzle: u32, lane: u32) -> QuadSigns {
        match (isa, swizzle >> (6 - 2 * (lane & 3)) & 3) {
            (_, 0) => QuadSigns::Add,
            (Isa::Sm5x, 1) | (Isa::Sm86, 2) => QuadSigns::SubtractA,
            (Isa::Sm5x, 2) | (Isa::Sm86, 1) => QuadSigns::SubtractB,
            _ => QuadSigns::MoveB,
        }
    }

    /// Which of a and b the lane negates before adding them; `None` for `MoveB`.
    pub fn negations(self) -> Option<(bool, bool)> {
        match self {
            QuadSigns::Add => Some((false, false)),
            QuadSigns::SubtractA => Some((true, false)),
            QuadSigns::SubtractB => Some((false, true)),
            QuadSigns::MoveB => None,
        }
    }

    /// nvdisasm's letters for the lane: a's sign, then b's.
    fn text(self) -> &'static str {
        match self {
            QuadSigns::Add => "PP",
            QuadSigns::SubtractA => "NP",
            QuadSigns::SubtractB => "PN",
            QuadSigns::MoveB => "ZP",
        }
    }
}

/// The swizzle as nvdisasm writes it: the four lanes' letters, lane 0 first.
pub fn swizzle_text(isa: Isa, swizzle: u32) -> String {
    (0..4).map(|lane| QuadSigns::of_lane(isa, swizzle, lane).text()).collect()
}

/// Whether any lane of `swizzle` moves b alone (`QuadSigns::MoveB`), which nothing here computes.
pub fn moves_b(isa: Isa, swizzle: u32) -> bool {
    (0..4).any(|lane| QuadSigns::of_lane(isa, swizzle, lane) == QuadSigns::MoveB)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nvdisasm's text of a few swizzles (CUDA 11.8 `-b SM50`, CUDA 13 `-b SM86`, read from raw words).
    #[test]
    fn swizzles_read_as_nvdisasm_writes_them() {
        assert_eq!(swizzle_text(Isa::Sm5x, 0x99), "PNNPPNNP");
        assert_eq!(swizzle_text(Isa::Sm5x, 0xa5), "PNPNNPNP");
        assert_eq!(swizzle_text(Isa::Sm5x, 0x1b), "PPNPPNZP");
        assert_eq!(swizzle_text(Isa::Sm5x, 0xe4), "ZPPNNPPP");
        assert_eq!(swizzle_text(Isa::Sm86, 0x99), "NPPNNPPN");
        assert_eq!(swizzle_text(Isa::Sm86, 0x66), "PNNPPNNP");
        assert_eq!(swizzle_text(Isa::Sm86, 0x1b), "PPPNNPZP");
        assert_eq!(swizzle_text(Isa::Sm86, 0xe4), "ZPNPPNPP");
    }
}
