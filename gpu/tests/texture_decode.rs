//! The CPU decoders of block-compressed formats (`texture::bc`) against a GPU's own decoding: random blocks (and
//! blocks steered into each mode) uploaded as Vulkan BC images and blitted to RGBA32F on the Vulkan device
//! (lavapipe in CI; `TANDEM_VULKAN_DEVICE=NVIDIA` on the device machine).

use ash::vk;
use tandem_gpu::texture::bc::{Bc, decode_image};
use tandem_gpu::vulkan::ComputeDevice;

/// Hardware approximates the interpolations, which the CPU decoders compute exactly: lavapipe weighs BC1's thirds
/// as 85/256 and 170/256 and truncates (up to 1.4 steps of 8 bits off); the H200 weighs them as 5/16 and 11/16 (up
/// to |c1 - c0| / 48 off: 5.3 steps at most) and lands up to 6.5 steps off in BC4's six-value mode. The comparison
/// allows eight steps of the format (1/255 UNORM, 1/127 SNORM): over 16384 random texels a wrong mode, index or end
/// point is off by far more somewhere.
fn tolerance(format: Bc) -> f32 {
    match format {
        // BC6H and BC7 are exact: halves, and 8-bit results of integer arithmetic (the GPU's UNORM conversion may
        // round the last bit of the float).
        Bc::Bc6h { .. } => return 0.0,
        Bc::Bc7 => return 1e-6,
        _ => {}
    }
    let step =
        if matches!(format, Bc::Bc4 { signed: true } | Bc::Bc5 { signed: true }) { 1.0 / 127.0 } else { 1.0 / 255.0 };
    8.0 * step + 1e-6
}

fn blocks(format: Bc, count: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut data = Vec::new();
    for index in 0..count {
        let mut block: Vec<u8> = (0..format.block_bytes()).map(|_| next() as u8).collect();
        if format == Bc::Bc7 {
            // Each mode in turn (mode m: m zero bits, then a one), and now and then the reserved mode (byte 0 zero).
            let mode = index % 9;
            block[0] = if mode == 8 { 0 } else { (block[0] & !((2u8 << mode).wrapping_sub(1))) | 1 << mode };
            data.extend(block);
            continue;
        }
        if let Bc::Bc6h { .. } = format {
            // Each of the 14 modes and the 4 reserved ones in turn: two mode bits for modes 0 and 1, five otherwise.
            const MODES: [u8; 18] = [0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31];
            let mode = MODES[index % MODES.len()];
            block[0] = if mode < 2 { (block[0] & !3) | mode } else { (block[0] & !0x1f) | mode };
            data.extend(block);
            continue;
        }
        // Every other block swaps its end points, so that both modes of BC1 and BC4/5 (and their SNORM forms) come up.
        let end_points = match format {
            Bc::Bc1 | Bc::Bc4 { .. } => vec![0],
            Bc::Bc2 | Bc::Bc3 => vec![8],
            Bc::Bc5 { .. } => vec![0, 8],
            Bc::Bc6h { .. } | Bc::Bc7 => unreachable!("BC6H and BC7 blocks are steered above"),
            Bc::Etc(_) => unreachable!("no Vulkan device here decodes ETC2: gpu/tests/etc.rs checks it"),
        };
        if index % 2 == 1 {
            for at in end_points {
                let width = if matches!(format, Bc::Bc1 | Bc::Bc2 | Bc::Bc3) { 2 } else { 1 };
                for i in 0..width {
                    block.swap(at + i, at + width + i);
                }
            }
        }
        data.extend(block);
    }
    data
}

#[test]
fn bc1_to_bc7_decode_as_the_gpu_decodes() {
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let formats = [
        (Bc::Bc1, vk::Format::BC1_RGBA_UNORM_BLOCK),
        (Bc::Bc2, vk::Format::BC2_UNORM_BLOCK),
        (Bc::Bc3, vk::Format::BC3_UNORM_BLOCK),
        (Bc::Bc4 { signed: false }, vk::Format::BC4_UNORM_BLOCK),
        (Bc::Bc4 { signed: true }, vk::Format::BC4_SNORM_BLOCK),
        (Bc::Bc5 { signed: false }, vk::Format::BC5_UNORM_BLOCK),
        (Bc::Bc5 { signed: true }, vk::Format::BC5_SNORM_BLOCK),
        (Bc::Bc6h { signed: false }, vk::Format::BC6H_UFLOAT_BLOCK),
        (Bc::Bc6h { signed: true }, vk::Format::BC6H_SFLOAT_BLOCK),
        (Bc::Bc7, vk::Format::BC7_UNORM_BLOCK),
    ];
    let (width, height) = (128, 128);
    for (seed, (format, vulkan)) in formats.into_iter().enumerate() {
        let data = blocks(format, (width / 4 * height / 4) as usize, 0x9e37_79b9 + seed as u64);
        let gpu = device.decode_compressed_image(vulkan, width, height, &data).unwrap();
        let cpu = decode_image(format, width, height, &data).unwrap();
        let mut worst = 0.0f32;
        for (index, (ours, theirs)) in cpu.iter().zip(&gpu).enumerate() {
            for channel in 0..4 {
                let difference = (ours[channel] - theirs[channel]).abs();
                worst = worst.max(difference);
                assert!(
                    difference <= tolerance(format),
                    "{format:?} texel ({}, {}) channel {channel}: ours {}, the GPU's {}",
                    index % width as usize,
                    index / width as usize,
                    ours[channel],
                    theirs[channel]
                );
            }
        }
        // Agreement on a few constant colours would prove nothing: random blocks decode to more than two distinct texels a block on average.
        let mut distinct: Vec<[u32; 4]> = cpu.iter().map(|texel| texel.map(f32::to_bits)).collect();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > cpu.len() / 8, "{format:?}: only {} distinct texels", distinct.len());
        eprintln!("{format:?}: largest difference {worst} ({} texels, {} distinct)", cpu.len(), distinct.len());
    }
}
