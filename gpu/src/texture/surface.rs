//! A surface in GPU memory as a render target or copy names it: where its texels are.

use super::block_linear::BlockLinear;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layout {
    /// Rows `pitch` bytes apart.
    Pitch { pitch: u32 },
    /// Blocks `2^block_height` GOBs tall and `2^block_depth` deep.
    BlockLinear { block_height: u32, block_depth: u32 },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Surface {
    /// GPU address of the first layer's first texel.
    pub address: u64,
    /// Size in texels, and layers (or slices of a 3D surface).
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    pub bytes_per_texel: u32,
    pub layout: Layout,
    /// Bytes from one layer to the next.
    pub layer_stride: u64,
}

impl Surface {
    /// The GPU address of texel (`x`, `y`) of `layer`; `None` outside the surface.
    pub fn texel_address(&self, x: u32, y: u32, layer: u32) -> Option<u64> {
        if x >= self.width || y >= self.height || layer >= self.layers {
            return None;
        }
        let layer_start = self.address + u64::from(layer) * self.layer_stride;
        let column = x.checked_mul(self.bytes_per_texel)?;
        match self.layout {
            Layout::Pitch { pitch } => Some(layer_start + u64::from(y) * u64::from(pitch) + u64::from(column)),
            Layout::BlockLinear { block_height, block_depth } => {
                let width_bytes = self.width.checked_mul(self.bytes_per_texel)?;
                let layout = BlockLinear::new(width_bytes, self.height, 1, block_height, block_depth)?;
                Some(layer_start + layout.offset(column, y, 0)?)
            }
        }
    }
}
