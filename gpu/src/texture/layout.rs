//! Where a texture header's levels and layers lie in memory. Block-linear textures store their levels one after
//! another, each in whole blocks whose height (and depth) the texture unit shrinks to fit the level (envytools'
//! "auto-sizing"; Mesa nil's `Tiling::clamp`, "done by the hardware at each LOD"): a level's block is
//! `min(header's, ceil(log2(its height in GOBs)))` GOBs tall. Layers are the levels' total apart, rounded up to
//! level 0's (shrunk) block; a 3D texture's level is one volume whose slices lie inside its blocks. Pitch textures
//! have one level and one layer.

use super::block_linear::{BlockLinear, GOB_HEIGHT, GOB_SIZE};
use super::descriptor::{TextureHeader, TextureType};
use super::surface::{Layout, Slices, Surface};

/// ceil(log2(n)), 0 for n <= 1.
fn ceil_log2(n: u32) -> u32 {
    if n <= 1 { 0 } else { 32 - (n - 1).leading_zeros() }
}

/// Level `level`'s size in texels: (width, height, depth), each halved per level down to 1.
pub fn level_size(header: &TextureHeader, level: u32) -> (u32, u32, u32) {
    let depth = if header.texture_type == TextureType::ThreeD { header.depth } else { 1 };
    let size = |n: u32| (n >> level).max(1);
    (size(header.width), size(header.height), size(depth))
}

/// The surface of each level of a texture whose elements (texels, or compressed blocks) cover `element_width` x
/// `element_height` texels in `element_bytes`: the level's elements across and down, its layers with their
/// stride. `None` when a size overflows or the block shape is out of range.
pub fn level_surfaces(header: &TextureHeader, element: (u32, u32, u32)) -> Option<Vec<Surface>> {
    let (element_width, element_height, element_bytes) = element;
    let elements = |level: u32| {
        let (width, height, depth) = level_size(header, level);
        (width.div_ceil(element_width), height.div_ceil(element_height), depth)
    };
    match header.layout {
        Layout::Pitch { pitch } => {
            let (width, height, _) = elements(0);
            Some(vec![Surface::single_layer(header.address, width, height, element_bytes, Layout::Pitch { pitch })])
        }
        Layout::BlockLinear { block_height, block_depth } => {
            // Each level's block shape and size.
            let shapes: Vec<(u32, u32, u64)> = (0..header.levels())
                .map(|level| {
                    let (width, height, depth) = elements(level);
                    let level_height = block_height.min(ceil_log2(height.div_ceil(GOB_HEIGHT)));
                    let level_depth = block_depth.min(ceil_log2(depth));
                    let bytes =
                        BlockLinear::new(width.checked_mul(element_bytes)?, height, depth, level_height, level_depth)?;
                    Some((level_height, level_depth, bytes.size()?))
                })
                .collect::<Option<_>>()?;
            let total = shapes.iter().try_fold(0u64, |total, &(_, _, size)| total.checked_add(size))?;
            let (height0, depth0, _) = shapes[0];
            let layer_stride = total.checked_next_multiple_of(GOB_SIZE << (height0 + depth0))?;
            let mut offset = 0;
            let surfaces = shapes
                .iter()
                .enumerate()
                .map(|(level, &(level_height, level_depth, size))| {
                    let (width, height, depth) = elements(level as u32);
                    // A 3D texture's level is one volume, its slices inside the blocks.
                    let (layers, slices) = match header.texture_type {
                        TextureType::ThreeD => (depth, Slices::Depth),
                        _ => (header.layers(), Slices::Layers { stride: layer_stride }),
                    };
                    let surface = Surface {
                        address: header.address.checked_add(offset)?,
                        width,
                        height,
                        layers,
                        bytes_per_texel: element_bytes,
                        layout: Layout::BlockLinear { block_height: level_height, block_depth: level_depth },
                        slices,
                    };
                    offset += size;
                    Some(surface)
                })
                .collect();
            surfaces
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::descriptor::{DataType, Source};

    fn header(width: u32, height: u32, levels: u32, layers: u32, block_height: u32) -> TextureHeader {
        TextureHeader {
            components: 0x08,
            data_types: [DataType::Unorm; 4],
            swizzle: [Source::Zero; 4],
            address: 0x10_0000,
            layout: Layout::BlockLinear { block_height, block_depth: 0 },
            width,
            height,
            depth: layers,
            texture_type: TextureType::TwoDArray,
            srgb: false,
            normalized_coords: true,
            max_mip_level: levels - 1,
            view_levels: (0, levels - 1),
            multisample: 0,
        }
    }

    /// A 100 x 70 A8B8G8R8 array of 2 layers, 4 levels, 8-GOB blocks: levels of 57344, 16384, 4096 and 512 bytes
    /// (blocks of 8, 8, 4 and 1 GOBs: level 2's 17 rows are 3 GOBs, level 3's 8 rows one), layers 0x14000 apart
    /// (78336 bytes rounded up to a 4096-byte block) — the layout Ryujinx's `SizeCalculator`, yuzu's
    /// `CalculateLevelSizes` and Mesa nil compute for it.
    #[test]
    fn levels_shrink_their_blocks_and_layers_align_to_the_first() {
        let surfaces = level_surfaces(&header(100, 70, 4, 2, 3), (1, 1, 4)).unwrap();
        let offsets: Vec<u64> = surfaces.iter().map(|s| s.address - 0x10_0000).collect();
        assert_eq!(offsets, [0, 0xe000, 0x12000, 0x13000]);
        let heights: Vec<Layout> = surfaces.iter().map(|s| s.layout).collect();
        let block = |block_height| Layout::BlockLinear { block_height, block_depth: 0 };
        assert_eq!(heights, [block(3), block(3), block(2), block(0)]);
        assert_eq!(
            surfaces.iter().map(|s| (s.width, s.height)).collect::<Vec<_>>(),
            [(100, 70), (50, 35), (25, 17), (12, 8)]
        );
        assert!(surfaces.iter().all(|s| s.slices == Slices::Layers { stride: 0x14000 } && s.layers == 2));
    }

    /// BC1's 4 x 4 blocks: a 100-wide level 2 is 25 texels, 7 blocks.
    #[test]
    fn compressed_levels_count_blocks() {
        let surfaces = level_surfaces(&header(100, 100, 3, 1, 4), (4, 4, 8)).unwrap();
        assert_eq!(surfaces.iter().map(|s| (s.width, s.height)).collect::<Vec<_>>(), [(25, 25), (13, 13), (7, 7)]);
    }
}
