//! Tandem's ASTC decoder against ARM's astcenc (Debian's `astcenc`, the reference codec): blocks astcenc
//! compresses from a picture at every footprint, and random blocks (most of them illegal: the error colour), are
//! decoded by both. Where Tandem decodes a texel, astcenc's FP16 output (`-dH`, to KTX) must hold the same value
//! bit for bit; where Tandem gives the error colour, astcenc's LDR output (`-dl`, to PNG) must be magenta (or
//! (254, 0, 254, 254), astcenc's colour for HDR endpoints in the LDR profile). Decoded for sRGB, each channel's top
//! 8 bits must be what astcenc's sRGB output (`-ds`) holds.

use std::path::Path;
use std::process::Command;
use tandem_gpu::texture::astc::{FOOTPRINTS, decode_block, unorm16_to_f32};
use tandem_gpu::texture::texel::half_to_f32;

fn astcenc(args: &[&str]) {
    let output = Command::new("astcenc").args(args).output();
    let output = output.unwrap_or_else(|e| panic!("astcenc (apt install astcenc): {e}"));
    assert!(output.status.success(), "astcenc {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// An .astc file of `blocks` for a `columns` x `rows` grid of `width` x `height` blocks.
fn astc_file(width: u32, height: u32, columns: u32, rows: u32, blocks: &[[u8; 16]]) -> Vec<u8> {
    let mut file = vec![0x13, 0xab, 0xa1, 0x5c, width as u8, height as u8, 1];
    for size in [columns * width, rows * height, 1] {
        file.extend_from_slice(&size.to_le_bytes()[..3]);
    }
    file.extend(blocks.iter().flatten());
    file
}

/// The blocks of an .astc file.
fn blocks_of(file: &[u8]) -> Vec<[u8; 16]> {
    file[16..].chunks_exact(16).map(|block| block.try_into().unwrap()).collect()
}

/// A KTX file's texels as RGBA halves (astcenc writes 1 to 4 channels, by the picture's content).
fn read_ktx_halves(path: &Path) -> Vec<[u16; 4]> {
    let bytes = std::fs::read(path).unwrap();
    let word = |i: usize| u32::from_le_bytes(bytes[12 + 4 * i..16 + 4 * i].try_into().unwrap());
    assert_eq!(word(1), 0x140b, "GL_HALF_FLOAT texels");
    let channels = match word(3) {
        0x1903 => 1,
        0x8227 => 2,
        0x1907 => 3,
        0x1908 => 4,
        other => panic!("a KTX format {other:#x}"),
    };
    let start = 12 + 13 * 4 + word(12) as usize + 4;
    let (width, height) = (word(6) as usize, word(7) as usize);
    let one = 0x3c00u16;
    (0..width * height)
        .map(|texel| {
            let half = |c: usize| {
                let at = start + 2 * (channels * texel + c);
                u16::from_le_bytes([bytes[at], bytes[at + 1]])
            };
            match channels {
                1 => [half(0), half(0), half(0), one],
                2 => [half(0), half(0), half(0), half(1)],
                3 => [half(0), half(1), half(2), one],
                _ => [half(0), half(1), half(2), half(3)],
            }
        })
        .collect()
}

fn read_png(path: &Path) -> Vec<[u8; 4]> {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buffer[..info.buffer_size()].chunks_exact(4).map(|texel| texel.try_into().unwrap()).collect()
}

/// A picture astcenc compresses: gradients, stripes and noise, alpha varying, as an uncompressed TGA.
fn picture_tga(width: u32, height: u32) -> Vec<u8> {
    let mut tga = vec![0u8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    tga.extend_from_slice(&(width as u16).to_le_bytes());
    tga.extend_from_slice(&(height as u16).to_le_bytes());
    tga.extend_from_slice(&[32, 8 | 0x20]);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for y in 0..height {
        for x in 0..width {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let noise = (seed >> 24) as u8;
            let (r, g) = ((x * 255 / width) as u8, (y * 255 / height) as u8);
            let b = if (x / 3 + y / 5) % 2 == 0 { noise } else { r / 2 + g / 2 };
            let a = if x > width / 2 { 255 } else { (x * 8 + y) as u8 };
            tga.extend_from_slice(&[b, g, r, a]);
        }
    }
    tga
}

/// Decodes `blocks` (a `columns` x `rows` grid of one footprint) with both, and compares.
fn compare(
    dir: &Path,
    name: &str,
    (width, height): (u32, u32),
    columns: u32,
    rows: u32,
    blocks: &[[u8; 16]],
) -> (usize, usize) {
    let input = dir.join(format!("{name}.astc"));
    std::fs::write(&input, astc_file(width, height, columns, rows, blocks)).unwrap();
    let (halves, bytes) = (dir.join(format!("{name}.ktx")), dir.join(format!("{name}.png")));
    let srgb_bytes = dir.join(format!("{name}-srgb.png"));
    astcenc(&["-dH", input.to_str().unwrap(), halves.to_str().unwrap(), "-silent"]);
    astcenc(&["-dl", input.to_str().unwrap(), bytes.to_str().unwrap(), "-silent"]);
    astcenc(&["-ds", input.to_str().unwrap(), srgb_bytes.to_str().unwrap(), "-silent"]);
    let (halves, bytes, srgb_bytes) = (read_ktx_halves(&halves), read_png(&bytes), read_png(&srgb_bytes));
    let image_width = (columns * width) as usize;
    let (mut decoded, mut errors) = (0, 0);
    for (index, block) in blocks.iter().enumerate() {
        let (column, row) = (index as u32 % columns, index as u32 / columns);
        let srgb = decode_block(block, width, height, true);
        for (k, texel) in decode_block(block, width, height, false).into_iter().enumerate() {
            let (x, y) = ((column * width + k as u32 % width) as usize, (row * height + k as u32 / width) as usize);
            let at = y * image_width + x;
            match texel {
                Some(channels) => {
                    let ours = channels.map(|c| f32::from_bits(unorm16_to_f32(c)));
                    let theirs = halves[at].map(|h| f32::from_bits(half_to_f32(u32::from(h))));
                    assert_eq!(ours, theirs, "{name}: block {index} {block:02x?}, texel ({x}, {y})");
                    let ours_srgb = srgb[k].expect("legal for sRGB too").map(|c| (c >> 8) as u8);
                    assert_eq!(ours_srgb, srgb_bytes[at], "{name}: block {index} {block:02x?}, texel ({x}, {y}), sRGB");
                    decoded += 1;
                }
                None => {
                    let magenta = [[255, 0, 255, 255], [254, 0, 254, 254]];
                    assert!(
                        magenta.contains(&bytes[at]),
                        "{name}: block {index} {block:02x?}: astcenc decodes texel ({x}, {y}) as {:?}",
                        bytes[at]
                    );
                    errors += 1;
                }
            }
        }
    }
    (decoded, errors)
}

#[test]
fn blocks_decode_as_astcenc_decodes_them() {
    let dir = std::env::temp_dir().join(format!("tandem-astc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let picture = dir.join("picture.tga");
    std::fs::write(&picture, picture_tga(60, 60)).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut decoded, mut errors) = (0, 0);
    for footprint @ (width, height) in FOOTPRINTS {
        // The picture as astcenc compresses it: every kind of block its search picks.
        let compressed = dir.join(format!("{width}x{height}.astc"));
        let size = format!("{width}x{height}");
        astcenc(&["-cl", picture.to_str().unwrap(), compressed.to_str().unwrap(), &size, "-medium", "-silent"]);
        let blocks = blocks_of(&std::fs::read(&compressed).unwrap());
        let (columns, rows) = (60u32.div_ceil(width), 60u32.div_ceil(height));
        let (d, e) = compare(&dir, &format!("picture-{size}"), footprint, columns, rows, &blocks);
        assert!(d > 0 && e == 0, "{size}: astcenc's own blocks are legal");
        decoded += d;
        // Random blocks, and random blocks with a legal-looking mode (bits 0-10 from the picture's blocks).
        let random_blocks: Vec<[u8; 16]> = (0..256)
            .map(|k| {
                let mut block = [0u8; 16];
                block[..8].copy_from_slice(&random().to_le_bytes());
                block[8..].copy_from_slice(&random().to_le_bytes());
                if k % 2 == 0 {
                    let mode = u16::from_le_bytes([blocks[k % blocks.len()][0], blocks[k % blocks.len()][1]]) & 0x7ff;
                    let low = u16::from_le_bytes([block[0], block[1]]) & !0x7ff | mode;
                    block[..2].copy_from_slice(&low.to_le_bytes());
                }
                block
            })
            .collect();
        let (d, e) = compare(&dir, &format!("random-{size}"), footprint, 16, 16, &random_blocks);
        decoded += d;
        errors += e;
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(decoded > 80_000 && errors > 10_000, "decoded {decoded} texels, {errors} of the error colour");
}
