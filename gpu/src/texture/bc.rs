//! BC1-BC7 block decoders, the reference back end's CPU path for compressed textures (Khronos Data Format
//! Specification, "S3TC", "RGTC" and "BPTC Compressed Texture Image Formats"; BC6H in `bc6h.rs`, BC7 in `bc7.rs`),
//! and the other 4 x 4 block formats' (ETC2 and EAC in `etc.rs`).
//! A block is 4 x 4 texels; a texel decodes to RGBA floats (normalised; SNORM formats to -1..1; BC6H to halves).
//!
//! Interpolated values are exact fractions here (e.g. (2 c0 + c1) / 3); hardware may round intermediate results,
//! within the tolerance the specification allows, so tests compare against a GPU with that tolerance.

/// The block-compressed formats decoded here.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bc {
    /// BC1 with 1-bit alpha (DXT1): 8 bytes.
    Bc1,
    /// BC2 (DXT3): explicit 4-bit alpha, then a BC1 colour block; 16 bytes.
    Bc2,
    /// BC3 (DXT5): a BC4 alpha block, then a BC1 colour block; 16 bytes.
    Bc3,
    /// BC4 (RGTC1): one channel, UNORM or SNORM; 8 bytes.
    Bc4 { signed: bool },
    /// BC5 (RGTC2): two BC4 blocks, red then green; 16 bytes.
    Bc5 { signed: bool },
    /// BC6H (BPTC float), unsigned or signed: fourteen modes of half-float end points (`bc6h.rs`); 16 bytes.
    Bc6h { signed: bool },
    /// BC7 (BPTC UNORM): eight modes of partitions and end points (`bc7.rs`); 16 bytes.
    Bc7,
    /// ETC2 and EAC (`etc.rs`).
    Etc(super::etc::Etc),
}

impl Bc {
    pub fn block_bytes(self) -> usize {
        match self {
            Bc::Bc1 | Bc::Bc4 { .. } => 8,
            Bc::Bc2 | Bc::Bc3 | Bc::Bc5 { .. } | Bc::Bc6h { .. } | Bc::Bc7 => 16,
            Bc::Etc(etc) => etc.block_bytes(),
        }
    }
}

/// A decoded block: texel (x, y) at index 4 y + x.
pub type Texels = [[f32; 4]; 16];

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// An RGB565 colour widened to 8 bits a channel by bit replication (as S3TC decoders do), as normalised floats.
fn rgb565(value: u16) -> [f32; 3] {
    let widen = |bits: u16, width: u32| {
        let wide = bits << (8 - width) | bits >> (2 * width - 8);
        f32::from(wide) / 255.0
    };
    [widen(value >> 11, 5), widen(value >> 5 & 0x3f, 6), widen(value & 0x1f, 5)]
}

fn mix(a: [f32; 3], b: [f32; 3], weight_a: f32, weight_b: f32, total: f32) -> [f32; 3] {
    std::array::from_fn(|c| (a[c] * weight_a + b[c] * weight_b) / total)
}

/// The colour block of BC1-3 (8 bytes): two RGB565 end points and 2-bit indices. `four_colours` forces the
/// four-colour mode (BC2 and BC3 always use it); otherwise c0 <= c1 selects three colours and transparent black.
fn colour_block(block: &[u8], four_colours: bool) -> [[f32; 4]; 16] {
    let (raw0, raw1) = (u16_at(block, 0), u16_at(block, 2));
    let (c0, c1) = (rgb565(raw0), rgb565(raw1));
    let palette: [[f32; 4]; 4] = if four_colours || raw0 > raw1 {
        let (c2, c3) = (mix(c0, c1, 2.0, 1.0, 3.0), mix(c0, c1, 1.0, 2.0, 3.0));
        [c0, c1, c2, c3].map(|[r, g, b]| [r, g, b, 1.0])
    } else {
        let c2 = mix(c0, c1, 1.0, 1.0, 2.0);
        [[c0[0], c0[1], c0[2], 1.0], [c1[0], c1[1], c1[2], 1.0], [c2[0], c2[1], c2[2], 1.0], [0.0; 4]]
    };
    let indices = u32::from_le_bytes(block[4..8].try_into().expect("four bytes"));
    std::array::from_fn(|texel| palette[(indices >> (2 * texel) & 3) as usize])
}

/// A BC4 block (8 bytes): two 8-bit end points and 3-bit indices into eight values (a0 > a1) or six and the two
/// extremes (a0 <= a1).
fn channel_block(block: &[u8], signed: bool) -> [f32; 16] {
    let (a0, a1) = if signed {
        // -128 reads as -127: both encode -1.0.
        let value = |byte: u8| f32::from((byte as i8).max(-127)) / 127.0;
        (value(block[0]), value(block[1]))
    } else {
        (f32::from(block[0]) / 255.0, f32::from(block[1]) / 255.0)
    };
    let (low, high) = if signed { (-1.0, 1.0) } else { (0.0, 1.0) };
    let greater = if signed { (block[0] as i8).max(-127) > (block[1] as i8).max(-127) } else { block[0] > block[1] };
    let palette: [f32; 8] = if greater {
        std::array::from_fn(|i| match i {
            0 => a0,
            1 => a1,
            _ => (a0 * (8 - i) as f32 + a1 * (i - 1) as f32) / 7.0,
        })
    } else {
        std::array::from_fn(|i| match i {
            0 => a0,
            1 => a1,
            6 => low,
            7 => high,
            _ => (a0 * (6 - i) as f32 + a1 * (i - 1) as f32) / 5.0,
        })
    };
    let mut bits = [0u8; 8];
    bits[..6].copy_from_slice(&block[2..8]);
    let indices = u64::from_le_bytes(bits);
    std::array::from_fn(|texel| palette[(indices >> (3 * texel) & 7) as usize])
}

/// Decodes one block of `format` (`block` holds at least its bytes).
pub fn decode_block(format: Bc, block: &[u8]) -> Texels {
    match format {
        Bc::Bc1 => colour_block(&block[..8], false),
        Bc::Bc2 => {
            let mut texels = colour_block(&block[8..16], true);
            let alpha = u64::from_le_bytes(block[..8].try_into().expect("eight bytes"));
            for (texel, value) in texels.iter_mut().enumerate() {
                value[3] = (alpha >> (4 * texel) & 0xf) as f32 / 15.0;
            }
            texels
        }
        Bc::Bc3 => {
            let mut texels = colour_block(&block[8..16], true);
            let alpha = channel_block(&block[..8], false);
            for (texel, value) in texels.iter_mut().enumerate() {
                value[3] = alpha[texel];
            }
            texels
        }
        Bc::Bc4 { signed } => channel_block(&block[..8], signed).map(|red| [red, 0.0, 0.0, 1.0]),
        Bc::Bc5 { signed } => {
            let (red, green) = (channel_block(&block[..8], signed), channel_block(&block[8..16], signed));
            std::array::from_fn(|texel| [red[texel], green[texel], 0.0, 1.0])
        }
        Bc::Bc6h { signed } => {
            let texels = super::bc6h::decode_block(block[..16].try_into().expect("sixteen bytes"), signed);
            texels.map(|texel| texel.map(|half| f32::from_bits(super::texel::half_to_f32(u32::from(half)))))
        }
        Bc::Bc7 => {
            let texels = super::bc7::decode_block(block[..16].try_into().expect("sixteen bytes"));
            texels.map(|texel| texel.map(|channel| f32::from(channel) / 255.0))
        }
        Bc::Etc(etc) => super::etc::decode_block(etc, block),
    }
}

/// Decodes a `width` x `height` image whose blocks lie row by row in `data` (its size is checked by the caller):
/// RGBA floats a texel, rows from the top.
pub fn decode_image(format: Bc, width: u32, height: u32, data: &[u8]) -> Option<Vec<[f32; 4]>> {
    let (blocks_across, blocks_down) = (width.div_ceil(4) as usize, height.div_ceil(4) as usize);
    let block_bytes = format.block_bytes();
    if data.len() < blocks_across * blocks_down * block_bytes {
        return None;
    }
    let mut texels = vec![[0.0; 4]; width as usize * height as usize];
    for block_y in 0..blocks_down {
        for block_x in 0..blocks_across {
            let at = (block_y * blocks_across + block_x) * block_bytes;
            let block = decode_block(format, &data[at..at + block_bytes]);
            for (index, value) in block.into_iter().enumerate() {
                let (x, y) = (block_x * 4 + index % 4, block_y * 4 + index / 4);
                if x < width as usize && y < height as usize {
                    texels[y * width as usize + x] = value;
                }
            }
        }
    }
    Some(texels)
}
