//! A surface in GPU memory as a render target or copy names it: where its texels are.

use super::block_linear::BlockLinear;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layout {
    /// Rows `pitch` bytes apart.
    Pitch { pitch: u32 },
    /// Blocks `2^block_height` GOBs tall and `2^block_depth` deep.
    BlockLinear { block_height: u32, block_depth: u32 },
}

/// What a surface's third coordinate counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slices {
    /// Layers (of an array, or cube faces), each a whole 2D surface, `stride` bytes apart.
    Layers { stride: u64 },
    /// The depth slices of a block-linear volume: inside each block, GOBs stack `2^block_depth` deep, so the
    /// slices interleave (SET_COLOR_TARGET_MEMORY THIRD_DIMENSION_CONTROL DEFINES_DEPTH_SIZE).
    Depth,
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
    pub slices: Slices,
}

impl Surface {
    /// A 2D surface of one layer.
    pub fn single_layer(address: u64, width: u32, height: u32, bytes_per_texel: u32, layout: Layout) -> Surface {
        Surface { address, width, height, layers: 1, bytes_per_texel, layout, slices: Slices::Layers { stride: 0 } }
    }

    /// The GPU address of texel (`x`, `y`) of `layer` (a depth slice of a volume); `None` outside the surface.
    pub fn texel_address(&self, x: u32, y: u32, layer: u32) -> Option<u64> {
        if layer >= self.layers {
            return None;
        }
        match self.slices {
            Slices::Layers { stride } => Some(self.address + u64::from(layer) * stride + self.texel_offset(x, y)?),
            Slices::Depth => {
                Some(self.address + self.volume()?.offset(x.checked_mul(self.bytes_per_texel)?, y, layer)?)
            }
        }
    }

    /// Where texel (`x`, `y`) of the first layer (or slice) lies from the surface's address; `None` outside the
    /// surface.
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

    /// The bytes one layer spans, from its first texel's address to its last texel's end; a volume's slices
    /// interleave, so for one it is the whole volume's.
    pub fn layer_bytes(&self) -> Option<u64> {
        if self.slices == Slices::Depth {
            return self.volume()?.size();
        }
        match self.layout {
            Layout::Pitch { pitch } => {
                let row = u64::from(self.width.checked_mul(self.bytes_per_texel)?);
                Some(u64::from(self.height.checked_sub(1)?) * u64::from(pitch) + row)
            }
            Layout::BlockLinear { .. } => self.block_linear()?.size(),
        }
    }

    fn block_linear(&self) -> Option<BlockLinear> {
        self.block_linear_of_depth(1)
    }

    /// A volume's block-linear layout: `layers` slices deep.
    fn volume(&self) -> Option<BlockLinear> {
        self.block_linear_of_depth(self.layers)
    }

    fn block_linear_of_depth(&self, depth: u32) -> Option<BlockLinear> {
        let Layout::BlockLinear { block_height, block_depth } = self.layout else { return None };
        BlockLinear::new(self.width.checked_mul(self.bytes_per_texel)?, self.height, depth, block_height, block_depth)
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
            let surface = Surface::single_layer(0, width, height, bytes_per_texel, layout);
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
