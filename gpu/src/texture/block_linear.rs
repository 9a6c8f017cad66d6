//! Block-linear layout, the GPU's tiled surfaces (Tegra X1 TRM, "Block Linear" surfaces; envytools
//! `hw/memory/g80-surface`). A GOB (group of bytes) is 64 bytes wide and 8 rows tall, 512 bytes stored as 32
//! sectors of 16 bytes: within it, 32-byte halves of a row pair go in the order shown by [`gob_offset`]. GOBs
//! stack into blocks `2^block_height` GOBs tall and `2^block_depth` deep (one GOB wide); blocks go row by row,
//! then slice by slice.

/// Bytes of a GOB's row, rows of a GOB, bytes of a GOB.
pub const GOB_WIDTH: u32 = 64;
pub const GOB_HEIGHT: u32 = 8;
pub const GOB_SIZE: u64 = 512;

/// The byte of a GOB holding the byte at (`x`, `y`) of its 64 x 8 rectangle.
pub fn gob_offset(x: u32, y: u32) -> u64 {
    u64::from((x % 64) / 32 * 256 + (y % 8) / 2 * 64 + (x % 32) / 16 * 32 + (y % 2) * 16 + x % 16)
}

/// One block-linear surface: its size (width in bytes) and block shape.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BlockLinear {
    pub width_bytes: u32,
    pub height: u32,
    pub depth: u32,
    /// log2 of the block's height and depth in GOBs (0-5).
    pub block_height: u32,
    pub block_depth: u32,
}

impl BlockLinear {
    /// `None` when a block would be more than 32 GOBs tall or deep.
    pub fn new(width_bytes: u32, height: u32, depth: u32, block_height: u32, block_depth: u32) -> Option<BlockLinear> {
        (block_height <= 5 && block_depth <= 5).then_some(BlockLinear {
            width_bytes,
            height,
            depth,
            block_height,
            block_depth,
        })
    }

    /// Blocks in a row of blocks, and rows of blocks in a slab of block depth.
    fn blocks(&self) -> (u64, u64) {
        let across = self.width_bytes.div_ceil(GOB_WIDTH);
        let down = self.height.div_ceil(GOB_HEIGHT << self.block_height);
        (u64::from(across), u64::from(down))
    }

    fn block_size(&self) -> u64 {
        GOB_SIZE << (self.block_height + self.block_depth)
    }

    /// Bytes the surface takes (whole blocks); `None` past 2^64 (registers can describe 2^100 bytes).
    pub fn size(&self) -> Option<u64> {
        let (across, down) = self.blocks();
        let slabs = u64::from(self.depth.div_ceil(1 << self.block_depth));
        across.checked_mul(down)?.checked_mul(slabs)?.checked_mul(self.block_size())
    }

    /// Where byte `x` of row `y` of slice `z` lies from the surface's start; `None` outside the surface, or
    /// past 2^64 bytes.
    pub fn offset(&self, x: u32, y: u32, z: u32) -> Option<u64> {
        if x >= self.width_bytes || y >= self.height || z >= self.depth {
            return None;
        }
        let (across, down) = self.blocks();
        let gobs_tall = 1 << self.block_height;
        let row_of_blocks =
            u64::from(z >> self.block_depth).checked_mul(down)?.checked_add(u64::from(y / (GOB_HEIGHT * gobs_tall)))?;
        let block = row_of_blocks.checked_mul(across)?.checked_add(u64::from(x / GOB_WIDTH))?;
        let gob_in_block = (z & ((1 << self.block_depth) - 1)) * gobs_tall + (y / GOB_HEIGHT) % gobs_tall;
        block.checked_mul(self.block_size())?.checked_add(u64::from(gob_in_block) * GOB_SIZE + gob_offset(x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GOB's 16-byte sectors as the TRM draws them: rows 0-1 of bytes 0-15 are sectors 0-1, bytes 16-31
    /// sectors 2-3, then rows 2-3 (sectors 4-7), ..., and bytes 32-63 form the second 256-byte half.
    #[test]
    fn a_gob_is_sectors_of_two_row_pairs_then_the_right_half() {
        assert_eq!(gob_offset(0, 0), 0);
        assert_eq!(gob_offset(0, 1), 16);
        assert_eq!(gob_offset(16, 0), 32);
        assert_eq!(gob_offset(16, 1), 48);
        assert_eq!(gob_offset(0, 2), 64);
        assert_eq!(gob_offset(0, 7), 3 * 64 + 16);
        assert_eq!(gob_offset(32, 0), 256);
        assert_eq!(gob_offset(63, 7), 511);
        let mut seen = [false; 512];
        for y in 0..8 {
            for x in 0..64 {
                let offset = gob_offset(x, y) as usize;
                assert!(!seen[offset], "({x}, {y}) collides");
                seen[offset] = true;
            }
        }
    }

    /// Every byte of a surface lands on its own offset inside the surface's size.
    #[test]
    fn offsets_are_a_bijection_onto_the_surface() {
        for (width, height, depth, block_height, block_depth) in
            [(64, 8, 1, 0, 0), (200, 70, 1, 2, 0), (128, 40, 5, 1, 1)]
        {
            let layout = BlockLinear::new(width, height, depth, block_height, block_depth).unwrap();
            let mut seen = std::collections::HashSet::new();
            for z in 0..depth {
                for y in 0..height {
                    for x in 0..width {
                        let offset = layout.offset(x, y, z).unwrap();
                        assert!(offset < layout.size().unwrap());
                        assert!(seen.insert(offset));
                    }
                }
            }
        }
    }

    /// Surfaces as large as the registers can describe: their size and their last byte's offset are `None`,
    /// past 2^64, instead of wrapping.
    #[test]
    fn surfaces_past_2_to_the_64_bytes_have_no_size() {
        let layout = BlockLinear::new(u32::MAX, u32::MAX, u32::MAX, 0, 0).unwrap();
        assert_eq!(layout.size(), None);
        assert_eq!(layout.offset(u32::MAX - 1, u32::MAX - 1, u32::MAX - 1), None);
        assert_eq!(layout.offset(0, 0, 0), Some(0));
    }

    /// GOBs go down a block first, then blocks across the row.
    #[test]
    fn gobs_fill_a_block_downwards_before_the_next_block() {
        let layout = BlockLinear::new(128, 32, 1, 1, 0).unwrap();
        assert_eq!(layout.offset(0, 8, 0), Some(512), "the second GOB of the first block");
        assert_eq!(layout.offset(64, 0, 0), Some(1024), "the second block");
        assert_eq!(layout.offset(0, 16, 0), Some(2048), "the first block of the second row of blocks");
    }
}
