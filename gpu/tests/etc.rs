//! Tandem's ETC2 and EAC decoder (`texture::etc`) against an independent one, the `texture2ddecoder` crate (a port
//! of AssetStudio's decoders), on random blocks: random bits reach every mode (individual, differential, and the
//! T, H and planar modes that differential sums outside 0..31 select; opaque and transparent punch-through
//! blocks). Colours and alpha must be the same 8-bit values, except that the crate keeps a transparent
//! punch-through texel's colour where the specification makes it black. Its R11 decoder reads the indices in the
//! wrong byte order, so EAC is held to its ETC2 alpha decoder, which shares EAC's tables and index layout: with a
//! multiplier other than 0, an unsigned R11 value is 8 x that alpha + 4, clamped to 0..2047. Signed R11 and a
//! multiplier of 0 are checked against the specification's formulas in `texture::etc`'s own tests.

use tandem_gpu::texture::etc::{Etc, decode_block};

/// A xorshift stream: the same blocks every run.
fn random_blocks(count: usize, bytes: usize, mut seed: u64) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            (0..bytes)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        })
        .collect()
}

/// The other decoder's texels of one block: (R, G, B, A) bytes, row by row.
fn oracle(decode: fn(&[u8], &mut [u32]), block: &[u8]) -> Vec<[u8; 4]> {
    let mut texels = [0u32; 16];
    decode(block, &mut texels);
    texels
        .iter()
        .map(|&bgra| {
            let [b, g, r, a] = bgra.to_le_bytes();
            [r, g, b, a]
        })
        .collect()
}

fn bytes(value: f32, scale: f32) -> u8 {
    (value * scale).round() as u8
}

#[test]
fn colour_blocks_decode_as_the_independent_decoder_does() {
    let formats: [(Etc, fn(&[u8], &mut [u32])); 3] = [
        (Etc::Rgb, texture2ddecoder::decode_etc2_rgb_block),
        (Etc::RgbPunchThrough, texture2ddecoder::decode_etc2_rgba1_block),
        (Etc::Rgba, texture2ddecoder::decode_etc2_rgba8_block),
    ];
    for (format, decode) in formats {
        for (n, block) in random_blocks(20_000, format.block_bytes(), 0x9e37_79b9_7f4a_7c15).iter().enumerate() {
            let theirs = oracle(decode, block);
            for (texel, (ours, theirs)) in decode_block(format, block).iter().zip(&theirs).enumerate() {
                let ours = ours.map(|c| bytes(c, 255.0));
                // A transparent punch-through texel is black.
                let theirs = match (format, theirs[3]) {
                    (Etc::RgbPunchThrough, 0) => [0; 4],
                    _ => *theirs,
                };
                assert_eq!(ours, theirs, "{format:?} block {n} texel {texel}: {block:02x?}");
            }
        }
    }
}

#[test]
fn unsigned_eac_blocks_are_eight_times_the_alpha_decoders_values() {
    for (n, block) in random_blocks(20_000, 8, 0x2545_f491_4f6c_dd1d).iter().enumerate() {
        if block[1] >> 4 == 0 {
            continue;
        }
        let alpha = oracle(texture2ddecoder::decode_etc2_a8_block, block);
        for (texel, ours) in decode_block(Etc::R11 { signed: false }, block).iter().enumerate() {
            // Alpha clamps base + modifier x multiplier to 0..255 where R11 clamps 8 times it, plus 4, to 0..2047:
            // at the ends, an alpha of 0 is an R11 of 0 or 4, one of 255 an R11 of 2044 or 2047.
            let value = (ours[0] * 2047.0).round() as i32;
            let expected: &[i32] = match alpha[texel][3] {
                0 => &[0, 4],
                255 => &[2044, 2047],
                a => &[8 * i32::from(a) + 4],
            };
            assert!(expected.contains(&value), "block {n} texel {texel}: {value}, not {expected:?}: {block:02x?}");
        }
    }
}
