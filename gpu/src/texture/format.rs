//! Render target colour formats: the values of `SET_COLOR_TARGET_FORMAT` (open-gpu-doc clb197.h,
//! `NVB197_SET_COLOR_TARGET_FORMAT_V_*`), what a texel takes in memory and where each channel's bits are.
//!
//! NVIDIA names packed formats from the most significant bits down, as Vulkan's `_PACK` formats do: `A8B8G8R8`
//! has R in bits 7:0 (so its bytes in memory are R, G, B, A). A texel is read as a little-endian integer.

/// How a channel's bits read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Float,
    /// UNORM with the sRGB transfer function.
    Srgb,
}

/// The numbers a shader exchanges with a texture or a render target: FP32, or 32-bit integers.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum NumberKind {
    Float,
    Uint,
    Sint,
}

impl Kind {
    pub fn number_kind(self) -> NumberKind {
        match self {
            Kind::Uint => NumberKind::Uint,
            Kind::Sint => NumberKind::Sint,
            _ => NumberKind::Float,
        }
    }
}

/// What a write leaves in the bits of a texel that no channel holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unused {
    /// What memory held (the X formats: nothing defines it, so writes keep it; and formats with no such bits).
    Kept,
    /// Zeros (the Z formats).
    Zeros,
    /// Ones (the O formats).
    Ones,
}

/// A render target format: its name in the class header, the bytes of a texel, the bit range of R, G, B and A
/// (low bit, width; width 0: absent), how the bits read, and what a write leaves in the bits no channel holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColorFormat {
    pub code: u32,
    pub name: &'static str,
    pub bytes: u32,
    pub channels: [(u32, u32); 4],
    pub kind: Kind,
    pub unused: Unused,
}

const fn format(code: u32, name: &'static str, bytes: u32, channels: [(u32, u32); 4], kind: Kind) -> ColorFormat {
    ColorFormat { code, name, bytes, channels, kind, unused: Unused::Kept }
}

/// An X format's layout whose unused bits a write fills (the Z and O formats).
const fn filled(format: ColorFormat, code: u32, name: &'static str, unused: Unused) -> ColorFormat {
    ColorFormat { code, name, unused, ..format }
}

const X1R5G5B5: ColorFormat = format(0xf8, "X1R5G5B5", 2, [(10, 5), (5, 5), (0, 5), (0, 0)], Kind::Unorm);
const X8R8G8B8: ColorFormat = format(0xe6, "X8R8G8B8", 4, BGRX8, Kind::Unorm);

/// Channels of `size` bits each, R first from bit 0, `count` of them.
const fn rgba(size: u32, count: u32) -> [(u32, u32); 4] {
    const fn width(index: u32, size: u32, count: u32) -> u32 {
        if index < count { size } else { 0 }
    }
    [
        (0, width(0, size, count)),
        (size, width(1, size, count)),
        (2 * size, width(2, size, count)),
        (3 * size, width(3, size, count)),
    ]
}

/// B, G, R, A bytes (the `A8R8G8B8` family).
const BGRA8: [(u32, u32); 4] = [(16, 8), (8, 8), (0, 8), (24, 8)];
/// B, G, R bytes and an unused one (`X8R8G8B8`).
const BGRX8: [(u32, u32); 4] = [(16, 8), (8, 8), (0, 8), (0, 0)];

pub const FORMATS: &[ColorFormat] = &[
    format(0xc0, "RF32_GF32_BF32_AF32", 16, rgba(32, 4), Kind::Float),
    format(0xc1, "RS32_GS32_BS32_AS32", 16, rgba(32, 4), Kind::Sint),
    format(0xc2, "RU32_GU32_BU32_AU32", 16, rgba(32, 4), Kind::Uint),
    format(0xc3, "RF32_GF32_BF32_X32", 16, rgba(32, 3), Kind::Float),
    format(0xc4, "RS32_GS32_BS32_X32", 16, rgba(32, 3), Kind::Sint),
    format(0xc5, "RU32_GU32_BU32_X32", 16, rgba(32, 3), Kind::Uint),
    format(0xc6, "R16_G16_B16_A16", 8, rgba(16, 4), Kind::Unorm),
    format(0xc7, "RN16_GN16_BN16_AN16", 8, rgba(16, 4), Kind::Snorm),
    format(0xc8, "RS16_GS16_BS16_AS16", 8, rgba(16, 4), Kind::Sint),
    format(0xc9, "RU16_GU16_BU16_AU16", 8, rgba(16, 4), Kind::Uint),
    format(0xca, "RF16_GF16_BF16_AF16", 8, rgba(16, 4), Kind::Float),
    format(0xcb, "RF32_GF32", 8, rgba(32, 2), Kind::Float),
    format(0xcc, "RS32_GS32", 8, rgba(32, 2), Kind::Sint),
    format(0xcd, "RU32_GU32", 8, rgba(32, 2), Kind::Uint),
    format(0xce, "RF16_GF16_BF16_X16", 8, rgba(16, 3), Kind::Float),
    format(0xcf, "A8R8G8B8", 4, BGRA8, Kind::Unorm),
    format(0xd0, "A8RL8GL8BL8", 4, BGRA8, Kind::Srgb),
    format(0xd1, "A2B10G10R10", 4, [(0, 10), (10, 10), (20, 10), (30, 2)], Kind::Unorm),
    format(0xd2, "AU2BU10GU10RU10", 4, [(0, 10), (10, 10), (20, 10), (30, 2)], Kind::Uint),
    format(0xd5, "A8B8G8R8", 4, rgba(8, 4), Kind::Unorm),
    format(0xd6, "A8BL8GL8RL8", 4, rgba(8, 4), Kind::Srgb),
    format(0xd7, "AN8BN8GN8RN8", 4, rgba(8, 4), Kind::Snorm),
    format(0xd8, "AS8BS8GS8RS8", 4, rgba(8, 4), Kind::Sint),
    format(0xd9, "AU8BU8GU8RU8", 4, rgba(8, 4), Kind::Uint),
    format(0xda, "R16_G16", 4, rgba(16, 2), Kind::Unorm),
    format(0xdb, "RN16_GN16", 4, rgba(16, 2), Kind::Snorm),
    format(0xdc, "RS16_GS16", 4, rgba(16, 2), Kind::Sint),
    format(0xdd, "RU16_GU16", 4, rgba(16, 2), Kind::Uint),
    format(0xde, "RF16_GF16", 4, rgba(16, 2), Kind::Float),
    format(0xdf, "A2R10G10B10", 4, [(20, 10), (10, 10), (0, 10), (30, 2)], Kind::Unorm),
    format(0xe0, "BF10GF11RF11", 4, [(0, 11), (11, 11), (22, 10), (0, 0)], Kind::Float),
    format(0xe3, "RS32", 4, rgba(32, 1), Kind::Sint),
    format(0xe4, "RU32", 4, rgba(32, 1), Kind::Uint),
    format(0xe5, "RF32", 4, rgba(32, 1), Kind::Float),
    X8R8G8B8,
    format(0xe7, "X8RL8GL8BL8", 4, BGRX8, Kind::Srgb),
    format(0xe8, "R5G6B5", 2, [(11, 5), (5, 6), (0, 5), (0, 0)], Kind::Unorm),
    format(0xe9, "A1R5G5B5", 2, [(10, 5), (5, 5), (0, 5), (15, 1)], Kind::Unorm),
    format(0xea, "G8R8", 2, rgba(8, 2), Kind::Unorm),
    format(0xeb, "GN8RN8", 2, rgba(8, 2), Kind::Snorm),
    format(0xec, "GS8RS8", 2, rgba(8, 2), Kind::Sint),
    format(0xed, "GU8RU8", 2, rgba(8, 2), Kind::Uint),
    format(0xee, "R16", 2, rgba(16, 1), Kind::Unorm),
    format(0xef, "RN16", 2, rgba(16, 1), Kind::Snorm),
    format(0xf0, "RS16", 2, rgba(16, 1), Kind::Sint),
    format(0xf1, "RU16", 2, rgba(16, 1), Kind::Uint),
    format(0xf2, "RF16", 2, rgba(16, 1), Kind::Float),
    format(0xf3, "R8", 1, rgba(8, 1), Kind::Unorm),
    format(0xf4, "RN8", 1, rgba(8, 1), Kind::Snorm),
    format(0xf5, "RS8", 1, rgba(8, 1), Kind::Sint),
    format(0xf6, "RU8", 1, rgba(8, 1), Kind::Uint),
    // 32 bits with no number kind: the program's output word stored as it is (NVK renders R32_UINT, R32_SINT
    // and R32_SFLOAT through it), which RU32's integer writes are.
    format(0xff, "R32", 4, rgba(32, 1), Kind::Uint),
    // The X formats: an A format's layout with the alpha bits unused. Nothing defines what a write leaves in
    // them (the class has Z and O variants that fill them with zeros or ones), so writes keep what memory holds.
    X1R5G5B5,
    format(0xf9, "X8B8G8R8", 4, rgba(8, 3), Kind::Unorm),
    format(0xfa, "X8BL8GL8RL8", 4, rgba(8, 3), Kind::Srgb),
    filled(X1R5G5B5, 0xfb, "Z1R5G5B5", Unused::Zeros),
    filled(X1R5G5B5, 0xfc, "O1R5G5B5", Unused::Ones),
    filled(X8R8G8B8, 0xfd, "Z8R8G8B8", Unused::Zeros),
    filled(X8R8G8B8, 0xfe, "O8R8G8B8", Unused::Ones),
    // Formats that hold alpha without R, G and B, or in other places (named from the most significant bits down,
    // or low word first where underscores part them).
    format(0xf7, "A8", 1, [(0, 0), (0, 0), (0, 0), (0, 8)], Kind::Unorm),
    format(0x40, "A16", 2, [(0, 0), (0, 0), (0, 0), (0, 16)], Kind::Unorm),
    format(0x41, "AF16", 2, [(0, 0), (0, 0), (0, 0), (0, 16)], Kind::Float),
    format(0x42, "AF32", 4, [(0, 0), (0, 0), (0, 0), (0, 32)], Kind::Float),
    format(0x43, "A8R8", 2, [(0, 8), (0, 0), (0, 0), (8, 8)], Kind::Unorm),
    format(0x44, "R16_A16", 4, [(0, 16), (0, 0), (0, 0), (16, 16)], Kind::Unorm),
    format(0x45, "RF16_AF16", 4, [(0, 16), (0, 0), (0, 0), (16, 16)], Kind::Float),
    format(0x46, "RF32_AF32", 8, [(0, 32), (0, 0), (0, 0), (32, 32)], Kind::Float),
    format(0x47, "B8G8R8A8", 4, [(8, 8), (16, 8), (24, 8), (0, 8)], Kind::Unorm),
];

impl ColorFormat {
    pub fn from_code(code: u32) -> Option<ColorFormat> {
        FORMATS.iter().copied().find(|format| format.code == code)
    }

    /// The bits of a texel (as a little-endian integer) that the channels enabled in `mask` (R, G, B, A) hold.
    pub fn channel_bits(&self, mask: [bool; 4]) -> u128 {
        self.channels
            .iter()
            .zip(mask)
            .filter(|&(&(_, width), enabled)| enabled && width > 0)
            .fold(0, |bits, (&(low, width), _)| bits | ((1u128 << width) - 1) << low)
    }

    /// Whether the format stores alpha (the X formats read it as 1.0).
    pub fn has_alpha(&self) -> bool {
        self.channels[3].1 > 0
    }

    /// Every bit of a texel.
    pub fn texel_bits(&self) -> u128 {
        bits_of_bytes(self.bytes as usize)
    }

    /// The bits of a texel that no channel holds.
    pub fn unused_bits(&self) -> u128 {
        self.texel_bits() & !self.channel_bits([true; 4])
    }

    /// A texel (`bits`, a little-endian integer) as a write leaves it: its unused bits zeros or ones where the
    /// format says so, else as they were.
    pub fn fill_unused(&self, bits: u128) -> u128 {
        match self.unused {
            Unused::Kept => bits,
            Unused::Zeros => bits & !self.unused_bits(),
            Unused::Ones => bits | self.unused_bits(),
        }
    }

    /// `fill_unused` on a texel's bytes.
    pub fn fill_unused_bytes(&self, texel: &mut [u8]) {
        set_texel_bits(texel, self.fill_unused(texel_bits(texel)));
    }
}

/// Every bit of `bytes` bytes (at most 16) as a mask.
pub fn bits_of_bytes(bytes: usize) -> u128 {
    if bytes >= 16 { u128::MAX } else { (1u128 << (8 * bytes)) - 1 }
}

/// A texel's bytes (at most 16) as a little-endian integer.
pub fn texel_bits(texel: &[u8]) -> u128 {
    let mut wide = [0u8; 16];
    wide[..texel.len()].copy_from_slice(texel);
    u128::from_le_bytes(wide)
}

/// Writes `bits` into a texel's bytes, little-endian.
pub fn set_texel_bits(texel: &mut [u8], bits: u128) {
    let bytes = texel.len();
    texel.copy_from_slice(&bits.to_le_bytes()[..bytes]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Z format writes zeros into the bits no channel holds, an O format ones, an X format leaves them (the
    /// class header's names for them); the colour bits pass either way.
    #[test]
    fn z_and_o_formats_fill_the_unused_bits() {
        let fill = |code: u32, bits: u128| ColorFormat::from_code(code).unwrap().fill_unused(bits);
        assert_eq!(fill(0xfd, 0xaabb_ccdd), 0x00bb_ccdd);
        assert_eq!(fill(0xfe, 0x11bb_ccdd), 0xffbb_ccdd);
        assert_eq!(fill(0xe6, 0xaabb_ccdd), 0xaabb_ccdd);
        assert_eq!(fill(0xfb, 0xffff), 0x7fff);
        assert_eq!(fill(0xfc, 0x1234), 0x9234);
        assert_eq!(fill(0xd5, 0xaabb_ccdd), 0xaabb_ccdd);
    }

    /// Channels never overlap and stay inside the texel.
    #[test]
    fn channels_fit_their_texel_apart() {
        for format in FORMATS {
            let mut seen = 0u128;
            for index in 0..4 {
                let mut mask = [false; 4];
                mask[index] = true;
                let bits = format.channel_bits(mask);
                assert_eq!(seen & bits, 0, "{} channel {index} overlaps", format.name);
                assert_eq!(bits & !format.texel_bits(), 0, "{} channel {index} leaves the texel", format.name);
                seen |= bits;
            }
        }
        assert_eq!(ColorFormat::from_code(0xd5).unwrap().channel_bits([true, false, true, false]), 0x00ff_00ff);
        assert_eq!(ColorFormat::from_code(0xcf).unwrap().channel_bits([true, false, false, false]), 0x00ff_0000);
    }
}

/// A depth/stencil (zeta) target format: `SET_ZT_FORMAT` (clb197.h `NVB197_SET_ZT_FORMAT_V_*`), the bytes of a
/// texel, the bits of depth (low bit, width; float when `float_depth`) and of stencil (width 0: none).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DepthFormat {
    pub code: u32,
    pub name: &'static str,
    pub bytes: u32,
    pub depth: (u32, u32),
    pub float_depth: bool,
    pub stencil: (u32, u32),
}

const fn depth_format(
    code: u32,
    name: &'static str,
    bytes: u32,
    depth: (u32, u32),
    float_depth: bool,
    stencil: (u32, u32),
) -> DepthFormat {
    DepthFormat { code, name, bytes, depth, float_depth, stencil }
}

pub const DEPTH_FORMATS: &[DepthFormat] = &[
    depth_format(0x0a, "ZF32", 4, (0, 32), true, (0, 0)),
    depth_format(0x13, "Z16", 2, (0, 16), false, (0, 0)),
    depth_format(0x14, "Z24S8", 4, (8, 24), false, (0, 8)),
    depth_format(0x15, "X8Z24", 4, (0, 24), false, (0, 0)),
    depth_format(0x16, "S8Z24", 4, (0, 24), false, (24, 8)),
    depth_format(0x17, "S8", 1, (0, 0), false, (0, 8)),
    depth_format(0x19, "ZF32_X24S8", 8, (0, 32), true, (32, 8)),
];

impl DepthFormat {
    pub fn from_code(code: u32) -> Option<DepthFormat> {
        DEPTH_FORMATS.iter().copied().find(|format| format.code == code)
    }
}
