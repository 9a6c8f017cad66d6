//! Multisampled targets (Maxwell behaviour 1.19; `gpu/research/msaa.md` has the sources). One mode,
//! SET_ANTI_ALIAS, applies to every target: a target's WIDTH and HEIGHT count samples, and each pixel owns a
//! block of `sx` x `sy` texels of that enlarged surface, sample s at the block's texel `offsets[s]`. A resolve is
//! the 2D engine's blit of the enlarged surface, so nothing else in the GPU needs to know about samples.
//!
//! The engine draws the modes whose sample positions are Vulkan's standard ones (2X1_D3D, 2X2, 4X2_D3D: what
//! NVN, deko3d and NVK program); the others stop naming themselves. Clears fill the pixels' blocks whatever
//! the mode, as the block's shape is all they need.

use super::Method;
use super::draw::SET_WINDOW_ORIGIN;
use super::maxwell_3d::{Maxwell3D, SET_ANTI_ALIAS};
use crate::engine::EngineError;

/// SET_ANTI_ALIAS_ENABLE: multisample rasterisation (V 0:0).
pub const SET_ANTI_ALIAS_ENABLE: u32 = 0x1534;
/// SET_ANTI_ALIAS_SAMPLE_POSITIONS(0..4): 16 slots of a byte, X in the low nibble, Y in the high one, in
/// sixteenths of a pixel from its top-left corner.
pub const SET_ANTI_ALIAS_SAMPLE_POSITIONS: u32 = 0x11e0;
/// SET_SAMPLE_MASK_X0_Y0, X1_Y0, X0_Y1, X1_Y1: the samples written, for each pixel of a 2 x 2 quad.
pub const SET_SAMPLE_MASK_X0_Y0: u32 = 0x0fbc;
/// SET_ANTI_ALIAS_ALPHA_CONTROL: ALPHA_TO_COVERAGE 0:0, ALPHA_TO_ONE 4:4.
pub const SET_ANTI_ALIAS_ALPHA_CONTROL: u32 = 0x153c;
/// SET_HYBRID_ANTI_ALIAS_CONTROL: PASSES 3:0, CENTROID 4:4, PASSES_EXTENDED 5:5 (sample shading).
pub const SET_HYBRID_ANTI_ALIAS_CONTROL: u32 = 0x0754;
/// SET_TIR: target-independent rasterisation (MODE 1:0).
pub const SET_TIR: u32 = 0x0fb4;

/// A mode's sample layout.
struct Mode {
    code: u32,
    name: &'static str,
    /// The block of texels one pixel owns (sx, sy).
    block: (u32, u32),
    /// Each sample's texel in the block (hardware order; NIL's `SampleLayout`, envytools' surface tables).
    offsets: &'static [(u32, u32)],
    /// Each sample's position in sixteenths of a pixel, when they are Vulkan's standard locations for the count.
    standard_positions: Option<&'static [(u32, u32)]>,
}

const MODES: &[Mode] = &[
    Mode { code: 1, name: "2X1", block: (2, 1), offsets: &[(0, 0), (1, 0)], standard_positions: None },
    Mode {
        code: 5,
        name: "2X1_D3D",
        block: (2, 1),
        offsets: &[(1, 0), (0, 0)],
        standard_positions: Some(&[(12, 12), (4, 4)]),
    },
    Mode {
        code: 2,
        name: "2X2",
        block: (2, 2),
        offsets: &[(0, 0), (1, 0), (0, 1), (1, 1)],
        standard_positions: Some(&[(6, 2), (14, 6), (2, 10), (10, 14)]),
    },
    Mode {
        code: 3,
        name: "4X2",
        block: (4, 2),
        offsets: &[(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 0), (2, 1), (3, 1)],
        standard_positions: None,
    },
    Mode {
        code: 4,
        name: "4X2_D3D",
        block: (4, 2),
        offsets: &[(2, 0), (1, 1), (3, 1), (1, 0), (0, 1), (0, 0), (2, 1), (3, 0)],
        standard_positions: Some(&[(9, 5), (7, 11), (13, 9), (5, 3), (3, 13), (1, 7), (11, 15), (15, 1)]),
    },
    // The sample order of these is not known: only their blocks.
    Mode { code: 6, name: "4X4", block: (4, 4), offsets: &[], standard_positions: None },
    Mode { code: 8, name: "2X2_VC_4", block: (2, 2), offsets: &[], standard_positions: None },
    Mode { code: 9, name: "2X2_VC_12", block: (2, 2), offsets: &[], standard_positions: None },
    Mode { code: 0xa, name: "4X2_VC_8", block: (4, 2), offsets: &[], standard_positions: None },
    Mode { code: 0xb, name: "4X2_VC_24", block: (4, 2), offsets: &[], standard_positions: None },
];

/// How a draw's targets are multisampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multisample {
    /// The block of texels of the enlarged surface one pixel owns (sx, sy).
    pub block: (u32, u32),
    /// Sample s of pixel (x, y) is texel (x sx + offsets[s].0, y sy + offsets[s].1); the sample count is its
    /// length. The samples lie at Vulkan's standard locations for the count.
    pub offsets: &'static [(u32, u32)],
    /// The samples a draw may write (SET_SAMPLE_MASK_*), bit s for sample s: one mask for every pixel, or
    /// (`quad_masks`) one for each pixel of a 2 x 2 quad (X0_Y0, X1_Y0, X0_Y1, X1_Y1: x and y even or odd,
    /// rows counted from the targets' first), which the pixel program applies.
    pub mask: u32,
    pub quad_masks: Option<[u16; 4]>,
    /// The fraction of the samples shaded separately (SET_HYBRID_ANTI_ALIAS_CONTROL's passes / samples), when
    /// more than one pass runs.
    pub min_sample_shading: Option<f32>,
    /// SET_ANTI_ALIAS_ALPHA_CONTROL: colour output 0's alpha picks the samples a pixel covers
    /// (ALPHA_TO_COVERAGE; which ones, and the dither SET_ALPHA_TO_COVERAGE_DITHER_CONTROL picks, are the
    /// host's: Maxwell's pattern is documented nowhere), and is then replaced by 1 (ALPHA_TO_ONE).
    pub alpha_to_coverage: bool,
    pub alpha_to_one: bool,
}

impl Multisample {
    pub fn samples(&self) -> u32 {
        self.offsets.len() as u32
    }
}

/// The block one pixel owns and each sample's texel in it, for a mode code (SET_ANTI_ALIAS's, or a texture
/// header's MULTI_SAMPLE_COUNT) whose sample order is known.
pub fn sample_layout(code: u32) -> Option<((u32, u32), &'static [(u32, u32)])> {
    MODES.iter().find(|mode| mode.code == code && !mode.offsets.is_empty()).map(|mode| (mode.block, mode.offsets))
}

impl Maxwell3D {
    fn anti_alias_mode(&self, at: Method) -> Result<Option<&'static Mode>, EngineError> {
        match self.register(SET_ANTI_ALIAS) & 0xf {
            0 => Ok(None),
            code => MODES
                .iter()
                .find(|mode| mode.code == code)
                .map(Some)
                .ok_or_else(|| at.bad_argument(code, "SET_ANTI_ALIAS SAMPLES is not a mode")),
        }
    }

    /// The block of texels of the enlarged surface one pixel owns: (1, 1) unless SET_ANTI_ALIAS names a mode.
    pub(super) fn sample_block(&self, at: Method) -> Result<(u32, u32), EngineError> {
        Ok(self.anti_alias_mode(at)?.map_or((1, 1), |mode| mode.block))
    }

    /// How a draw's targets are multisampled (`None`: single-sampled). What the reference cannot draw stops the
    /// draw naming it: modes whose sample order or positions are not Vulkan's standard ones, positions other than
    /// the mode's, multisample rasterisation off over multisampled targets, masks that differ between the
    /// pixels of a quad under FLIP_Y, target-independent rasterisation.
    pub(super) fn multisample(&self, at: Method) -> Result<Option<Multisample>, EngineError> {
        let Some(mode) = self.anti_alias_mode(at)? else { return Ok(None) };
        let Some(positions) = mode.standard_positions else {
            return Err(at.unimplemented(format!(
                "draws to {} multisampled targets (its sample order or positions are not Vulkan's standard ones)",
                mode.name
            )));
        };
        if self.register(SET_ANTI_ALIAS_ENABLE) & 1 == 0 {
            return Err(at.unimplemented(format!(
                "draws to {} multisampled targets with multisample rasterisation off (SET_ANTI_ALIAS_ENABLE)",
                mode.name
            )));
        }
        // The 16 slots hold the positions of as many pixels' samples as fit (NVK's order); the pattern repeats.
        for slot in 0..16u32 {
            let byte = self.register(SET_ANTI_ALIAS_SAMPLE_POSITIONS + slot / 4 * 4) >> (slot % 4 * 8) & 0xff;
            let (x, y) = positions[slot as usize % positions.len()];
            if byte != x | y << 4 {
                return Err(at.unimplemented(format!(
                    "{} sample positions other than the standard ones (slot {slot}: {byte:#04x}, not {:#04x})",
                    mode.name,
                    x | y << 4
                )));
            }
        }
        let masks = [0, 4, 8, 12].map(|at| self.register(SET_SAMPLE_MASK_X0_Y0 + at) & 0xffff);
        let differ = masks.iter().any(|&mask| mask != masks[0]);
        // Which row is Y0 when FLIP_Y turns the window over is documented nowhere.
        if differ && self.register(SET_WINDOW_ORIGIN) >> 4 & 1 == 1 {
            return Err(at.unimplemented(format!(
                "sample masks that differ within a quad ({masks:#06x?}) with SET_WINDOW_ORIGIN's FLIP_Y"
            )));
        }
        let alpha = self.register(SET_ANTI_ALIAS_ALPHA_CONTROL);
        if self.register(SET_TIR) & 3 != 0 {
            return Err(at.unimplemented("target-independent rasterisation (SET_TIR)"));
        }
        // PASSES_EXTENDED with PASSES 0 is 16 passes (deko3d's per-sample setting, 0x30).
        let control = self.register(SET_HYBRID_ANTI_ALIAS_CONTROL);
        let passes = (control & 0xf) + (control >> 5 & 1) * 16;
        let samples = mode.offsets.len() as u32;
        Ok(Some(Multisample {
            block: mode.block,
            offsets: mode.offsets,
            mask: if differ { 0xffff } else { masks[0] },
            quad_masks: differ.then(|| masks.map(|mask| mask as u16)),
            min_sample_shading: (passes > 1).then(|| passes.min(samples) as f32 / samples as f32),
            alpha_to_coverage: alpha & 1 == 1,
            alpha_to_one: alpha >> 4 & 1 == 1,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each sample lies in the texel of its block that its position falls in when the pixel is scaled to the
    /// block (NAK's rule for the supersampled layout), and each texel holds one sample.
    #[test]
    fn samples_lie_where_their_positions_fall() {
        for mode in MODES.iter().filter(|mode| !mode.offsets.is_empty()) {
            let (sx, sy) = mode.block;
            assert_eq!(mode.offsets.len() as u32, sx * sy, "{}", mode.name);
            let mut seen = std::collections::HashSet::new();
            for &offset in mode.offsets {
                assert!(seen.insert(offset), "{}: two samples in {offset:?}", mode.name);
            }
            if let Some(positions) = mode.standard_positions {
                for (s, &(x, y)) in positions.iter().enumerate() {
                    assert_eq!(mode.offsets[s], (x * sx / 16, y * sy / 16), "{} sample {s}", mode.name);
                }
            }
        }
    }
}
