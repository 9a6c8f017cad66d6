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
        if layer >= self.layers {
            return None;
        }
        Some(self.address + u64::from(layer) * self.layer_stride + self.texel_offset(x, y)?)
    }

    /// Where texel (`x`, `y`) lies from the start of its layer; `None` outside the surface.
    pub fn texel_offset(&self, x: u32, y: u32) -> Option<u64> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let column = x.checked_mul(self.bytes_per_texel)?;
        match self.layout {
            Layout::Pitch { pitch } => Some(u64::from(y) * u64::from(pitch) + u64::from(column)),
            Layout::BlockLinear { .. } => self.block_linear()?.offset(column, y, 0),
        }
    }

    /// The bytes one layer spans, from its first texel's address to its last texel's end.
    pub fn layer_bytes(&self) -> Option<u64> {
        match self.layout {
            Layout::Pitch { pitch } => {
                let row = u64::from(self.width.checked_mul(self.bytes_per_texel)?);
                Some(u64::from(self.height.checked_sub(1)?) * u64::from(pitch) + row)
            }
            Layout::BlockLinear { .. } => Some(self.block_linear()?.size()),
        }
    }

    fn block_linear(&self) -> Option<BlockLinear> {
        let Layout::BlockLinear { block_height, block_depth } = self.layout else { return None };
        BlockLinear::new(self.width.checked_mul(self.bytes_per_texel)?, self.height, 1, block_height, block_depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A texel's offset is its column's plus its row's, in both layouts, for sizes that are not whole GOBs or
    /// blocks: what lets a reader precompute columns and rows.
    #[test]
    fn texel_offsets_add_up() {
        for (width, height, bytes_per_texel, layout) in [
            (37, 29, 4, Layout::BlockLinear { block_height: 2, block_depth: 0 }),
            (130, 70, 2, Layout::BlockLinear { block_height: 4, block_depth: 0 }),
            (17, 9, 16, Layout::BlockLinear { block_height: 0, block_depth: 0 }),
            (50, 20, 4, Layout::Pitch { pitch: 256 }),
        ] {
            let surface = Surface { address: 0, width, height, layers: 1, bytes_per_texel, layout, layer_stride: 0 };
            for y in 0..height {
                for x in 0..width {
                    let sum = surface.texel_offset(x, 0).unwrap() + surface.texel_offset(0, y).unwrap();
                    assert_eq!(surface.texel_offset(x, y), Some(sum), "({x}, {y}) of {layout:?}");
                }
            }
            let last = surface.texel_offset(width - 1, height - 1).unwrap() + u64::from(bytes_per_texel);
            assert!(last <= surface.layer_bytes().unwrap(), "{layout:?}: the last texel inside the span");
        }
    }
}
