//! What texels mean: the texture formats of a texture header (its COMPONENTS field, open-gpu-doc
//! `clb097tex.h` `NVB097_TEXHEAD_BL_COMPONENTS_SIZES_*`), and the conversions of a component's bits to the value a
//! shader reads (Vulkan's "Fixed-Point Data Conversions", IEEE 754 halves, the 11- and 10-bit floats), shared with
//! vertex fetch.
//!
//! NVIDIA names packed formats from the most significant bits down (`A8B8G8R8`: R in bits 7:0); components are
//! R, G, B, A in that order, and the header's data types and swizzle name them so, depth formats included: Z24S8
//! has its stencil (bits 7:0) as R and its depth as G, S8Z24 and the ZF32 formats their depth as R (deko3d's and
//! Mesa NIL's tables; drivers read depth or stencil by the swizzle).

use super::astc;
use super::bc::{self, Bc};
use super::descriptor::{DataType, Source, TextureHeader};
use super::etc::Etc;
use super::format::{NumberKind, texel_bits};

/// How a component's bits read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numeric {
    Snorm,
    Unorm,
    Sint,
    Uint,
    /// The integer as a float.
    Uscaled,
    Sscaled,
    Float,
}

/// The value a component of `width` bits (at most 32) holding `raw` reads as: FP32 bits, or the integer for
/// SINT (sign-extended) and UINT. `None` for a float width that is not 32, 16, 11 or 10.
pub fn convert(raw: u32, width: u32, numeric: Numeric) -> Option<u32> {
    let signed = if width == 32 { raw as i32 } else { ((raw << (32 - width)) as i32) >> (32 - width) };
    // Up to 24 bits both operands are exact FP32 values, so one FP32 division rounds the quotient correctly.
    let quotient = |numerator: f64, denominator: f64| {
        if width <= 24 { numerator as f32 / denominator as f32 } else { (numerator / denominator) as f32 }
    };
    Some(match numeric {
        Numeric::Snorm => quotient(f64::from(signed), f64::from((1u32 << (width - 1)) - 1)).max(-1.0).to_bits(),
        Numeric::Unorm => quotient(f64::from(raw), ((1u64 << width) - 1) as f64).to_bits(),
        Numeric::Sint => signed as u32,
        Numeric::Uint => raw,
        Numeric::Uscaled => (raw as f32).to_bits(),
        Numeric::Sscaled => (signed as f32).to_bits(),
        Numeric::Float => match width {
            32 => raw,
            16 => half_to_f32(raw),
            11 | 10 => small_float_to_f32(raw, width),
            _ => return None,
        },
    })
}

/// An unsigned float of `width` bits with a 5-bit exponent (FP16 without its sign, or the 11- and 10-bit floats
/// of B10G11R11) as FP32 bits, exactly.
pub fn small_float_to_f32(bits: u32, width: u32) -> u32 {
    let mantissa_bits = width - 5;
    let (exponent, mantissa) = (bits >> mantissa_bits & 0x1f, bits & ((1 << mantissa_bits) - 1));
    let shift = 23 - mantissa_bits;
    match exponent {
        0 if mantissa == 0 => 0,
        // A denormal: normalise.
        0 => {
            let top = 31 - mantissa.leading_zeros();
            let exponent = 127 - 15 - (mantissa_bits - top) + 1;
            exponent << 23 | (mantissa << (23 - top)) & 0x7f_ffff
        }
        0x1f => 0x7f80_0000 | mantissa << shift,
        _ => (exponent + 127 - 15) << 23 | mantissa << shift,
    }
}

/// A half (with its sign) as FP32 bits.
pub fn half_to_f32(bits: u32) -> u32 {
    (bits & 0x8000) << 16 | small_float_to_f32(bits & 0x7fff, 15)
}

/// FP32 bits rounded to the nearest FP16 value (ties to even; FP16's range and denormals), as FP32 bits: what the
/// FORCE_FP16 data types give (their normalised values are never NaN).
fn round_to_half_precision(bits: u32) -> u32 {
    half_to_f32(super::formatted::encode(bits, 16, Numeric::Float).expect("16-bit floats encode"))
}

/// The sRGB transfer function, decoding (the 8-bit value's linear intensity).
fn srgb_to_linear(bits: u32) -> u32 {
    let c = f64::from(f32::from_bits(bits));
    let linear = if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    (linear as f32).to_bits()
}

/// An sRGB-encoded byte's linear intensity (FP32 bits).
pub fn srgb_byte_to_linear(byte: u8) -> u32 {
    srgb_to_linear((f32::from(byte) / 255.0).to_bits())
}

/// How a texture format's texels are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `bytes` a texel, each component's (low bit, width) in R, G, B, A order (width 0: absent).
    Plain { bytes: u32, components: [(u32, u32); 4] },
    /// Two texels side by side in 4 bytes (the 4:2:2 formats, a texel's components as `Plain`'s each): the
    /// even texel's, then the odd one's.
    Pair { components: [[(u32, u32); 4]; 2] },
    /// E5B9G9R9: three 9-bit mantissas sharing a 5-bit exponent.
    SharedExponent,
    /// 4 x 4 blocks.
    Compressed(Bc),
    /// ASTC blocks of 16 bytes, `width` x `height` texels each.
    Astc { width: u32, height: u32 },
}

impl Storage {
    /// Texels a stored element covers (x, y), and the element's bytes.
    pub fn element(&self) -> (u32, u32, u32) {
        match self {
            Storage::Plain { bytes, .. } => (1, 1, *bytes),
            Storage::Pair { .. } => (2, 1, 4),
            Storage::SharedExponent => (1, 1, 4),
            Storage::Compressed(format) => (4, 4, format.block_bytes() as u32),
            Storage::Astc { width, height } => (*width, *height, 16),
        }
    }
}

/// A texture format: its COMPONENTS value, name and storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureFormat {
    pub code: u32,
    pub name: &'static str,
    pub storage: Storage,
}

const fn plain(code: u32, name: &'static str, bytes: u32, components: [(u32, u32); 4]) -> TextureFormat {
    TextureFormat { code, name, storage: Storage::Plain { bytes, components } }
}

/// Components of `size` bits each, R first from bit 0, `count` of them.
const fn sizes(size: u32, count: u32) -> [(u32, u32); 4] {
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

/// The formats Tandem reads. BC1-BC3, BC7, ETC2 and ASTC (LDR): UNORM (sRGB through the header's bit); BC4/BC5
/// and EAC signed by R's data type.
pub const TEXTURE_FORMATS: &[TextureFormat] = &[
    plain(0x01, "R32_G32_B32_A32", 16, sizes(32, 4)),
    plain(0x02, "R32_G32_B32", 12, sizes(32, 3)),
    plain(0x03, "R16_G16_B16_A16", 8, sizes(16, 4)),
    plain(0x04, "R32_G32", 8, sizes(32, 2)),
    plain(0x05, "R32_B24G8", 8, [(0, 32), (32, 8), (40, 24), (0, 0)]),
    plain(0x07, "X8B8G8R8", 4, sizes(8, 3)),
    plain(0x08, "A8B8G8R8", 4, sizes(8, 4)),
    plain(0x09, "A2B10G10R10", 4, [(0, 10), (10, 10), (20, 10), (30, 2)]),
    plain(0x0c, "R16_G16", 4, sizes(16, 2)),
    plain(0x0d, "G8R24", 4, [(0, 24), (24, 8), (0, 0), (0, 0)]),
    plain(0x0e, "G24R8", 4, [(0, 8), (8, 24), (0, 0), (0, 0)]),
    plain(0x0f, "R32", 4, sizes(32, 1)),
    TextureFormat { code: 0x10, name: "BC6H_SF16", storage: Storage::Compressed(Bc::Bc6h { signed: true }) },
    TextureFormat { code: 0x11, name: "BC6H_UF16", storage: Storage::Compressed(Bc::Bc6h { signed: false }) },
    plain(0x12, "A4B4G4R4", 2, sizes(4, 4)),
    plain(0x13, "A5B5G5R1", 2, [(0, 1), (1, 5), (6, 5), (11, 5)]),
    plain(0x14, "A1B5G5R5", 2, [(0, 5), (5, 5), (10, 5), (15, 1)]),
    plain(0x15, "B5G6R5", 2, [(0, 5), (5, 6), (11, 5), (0, 0)]),
    plain(0x16, "B6G5R5", 2, [(0, 5), (5, 5), (10, 6), (0, 0)]),
    TextureFormat { code: 0x17, name: "BC7U", storage: Storage::Compressed(Bc::Bc7) },
    plain(0x18, "G8R8", 2, sizes(8, 2)),
    plain(0x1b, "R16", 2, sizes(16, 1)),
    // The luma of video, one 8-bit component (the name says nothing else of it).
    plain(0x1c, "Y8_VIDEO", 1, sizes(8, 1)),
    plain(0x1d, "R8", 1, sizes(8, 1)),
    plain(0x1e, "G4R4", 1, sizes(4, 2)),
    TextureFormat { code: 0x20, name: "E5B9G9R9_SHAREDEXP", storage: Storage::SharedExponent },
    plain(0x21, "BF10GF11RF11", 4, [(0, 11), (11, 11), (22, 10), (0, 0)]),
    // 4:2:2: a pair of texels shares R and B and has a G each (bytes R, G0, B, G1 and G0, R, G1, B: Direct3D's
    // R8G8_B8G8 and G8R8_G8B8, which NVIDIA names from the top byte down).
    pair(0x22, "G8B8G8R8", [[(0, 8), (8, 8), (16, 8), (0, 0)], [(0, 8), (24, 8), (16, 8), (0, 0)]]),
    pair(0x23, "B8G8R8G8", [[(8, 8), (0, 8), (24, 8), (0, 0)], [(8, 8), (16, 8), (24, 8), (0, 0)]]),
    TextureFormat { code: 0x24, name: "DXT1", storage: Storage::Compressed(Bc::Bc1) },
    TextureFormat { code: 0x25, name: "DXT23", storage: Storage::Compressed(Bc::Bc2) },
    TextureFormat { code: 0x26, name: "DXT45", storage: Storage::Compressed(Bc::Bc3) },
    TextureFormat { code: 0x27, name: "DXN1", storage: Storage::Compressed(Bc::Bc4 { signed: false }) },
    TextureFormat { code: 0x28, name: "DXN2", storage: Storage::Compressed(Bc::Bc5 { signed: false }) },
    TextureFormat { code: 0x06, name: "ETC2_RGB", storage: Storage::Compressed(Bc::Etc(Etc::Rgb)) },
    TextureFormat { code: 0x0a, name: "ETC2_RGB_PTA", storage: Storage::Compressed(Bc::Etc(Etc::RgbPunchThrough)) },
    TextureFormat { code: 0x0b, name: "ETC2_RGBA", storage: Storage::Compressed(Bc::Etc(Etc::Rgba)) },
    TextureFormat { code: 0x19, name: "EAC", storage: Storage::Compressed(Bc::Etc(Etc::R11 { signed: false })) },
    TextureFormat { code: 0x1a, name: "EACX2", storage: Storage::Compressed(Bc::Etc(Etc::Rg11 { signed: false })) },
    plain(0x29, "Z24S8", 4, [(0, 8), (8, 24), (0, 0), (0, 0)]),
    plain(0x2a, "X8Z24", 4, [(0, 24), (0, 0), (0, 0), (0, 0)]),
    plain(0x2b, "S8Z24", 4, [(0, 24), (24, 8), (0, 0), (0, 0)]),
    plain(0x2f, "ZF32", 4, sizes(32, 1)),
    plain(0x30, "ZF32_X24S8", 8, [(0, 32), (32, 8), (0, 0), (0, 0)]),
    plain(0x3a, "Z16", 2, sizes(16, 1)),
    // Depth with virtual-coverage samples (V, VCAA): the depth and stencil read as the names place them, the
    // coverage not at all.
    plain(0x2c, "X4V4Z24__COV4R4V", 4, [(0, 24), (0, 0), (0, 0), (0, 0)]),
    plain(0x2d, "X4V4Z24__COV8R8V", 4, [(0, 24), (0, 0), (0, 0), (0, 0)]),
    plain(0x2e, "V8Z24__COV4R12V", 4, [(0, 24), (0, 0), (0, 0), (0, 0)]),
    plain(0x3b, "V8Z24__COV8R24V", 4, [(0, 24), (0, 0), (0, 0), (0, 0)]),
    plain(0x31, "X8Z24_X20V4S8__COV4R4V", 8, [(0, 24), (32, 8), (0, 0), (0, 0)]),
    plain(0x32, "X8Z24_X20V4S8__COV8R8V", 8, [(0, 24), (32, 8), (0, 0), (0, 0)]),
    plain(0x37, "X8Z24_X16V8S8__COV4R12V", 8, [(0, 24), (32, 8), (0, 0), (0, 0)]),
    plain(0x3c, "X8Z24_X16V8S8__COV8R24V", 8, [(0, 24), (32, 8), (0, 0), (0, 0)]),
    plain(0x33, "ZF32_X20V4X8__COV4R4V", 8, [(0, 32), (0, 0), (0, 0), (0, 0)]),
    plain(0x34, "ZF32_X20V4X8__COV8R8V", 8, [(0, 32), (0, 0), (0, 0), (0, 0)]),
    plain(0x38, "ZF32_X16V8X8__COV4R12V", 8, [(0, 32), (0, 0), (0, 0), (0, 0)]),
    plain(0x3d, "ZF32_X16V8X8__COV8R24V", 8, [(0, 32), (0, 0), (0, 0), (0, 0)]),
    plain(0x35, "ZF32_X20V4S8__COV4R4V", 8, [(0, 32), (32, 8), (0, 0), (0, 0)]),
    plain(0x36, "ZF32_X20V4S8__COV8R8V", 8, [(0, 32), (32, 8), (0, 0), (0, 0)]),
    plain(0x39, "ZF32_X16V8S8__COV4R12V", 8, [(0, 32), (32, 8), (0, 0), (0, 0)]),
    plain(0x3e, "ZF32_X16V8S8__COV8R24V", 8, [(0, 32), (32, 8), (0, 0), (0, 0)]),
    astc(0x40, "ASTC_2D_4X4", 4, 4),
    astc(0x50, "ASTC_2D_5X4", 5, 4),
    astc(0x41, "ASTC_2D_5X5", 5, 5),
    astc(0x51, "ASTC_2D_6X5", 6, 5),
    astc(0x42, "ASTC_2D_6X6", 6, 6),
    astc(0x55, "ASTC_2D_8X5", 8, 5),
    astc(0x52, "ASTC_2D_8X6", 8, 6),
    astc(0x44, "ASTC_2D_8X8", 8, 8),
    astc(0x56, "ASTC_2D_10X5", 10, 5),
    astc(0x57, "ASTC_2D_10X6", 10, 6),
    astc(0x53, "ASTC_2D_10X8", 10, 8),
    astc(0x45, "ASTC_2D_10X10", 10, 10),
    astc(0x54, "ASTC_2D_12X10", 12, 10),
    astc(0x46, "ASTC_2D_12X12", 12, 12),
];

const fn pair(code: u32, name: &'static str, components: [[(u32, u32); 4]; 2]) -> TextureFormat {
    TextureFormat { code, name, storage: Storage::Pair { components } }
}

const fn astc(code: u32, name: &'static str, width: u32, height: u32) -> TextureFormat {
    TextureFormat { code, name, storage: Storage::Astc { width, height } }
}

impl TextureFormat {
    pub fn from_code(code: u32) -> Option<TextureFormat> {
        TEXTURE_FORMATS.iter().copied().find(|format| format.code == code)
    }
}

/// The kind a texture samples as: that of the first component its swizzle reads, R's when it reads only constants
/// (integers stay integers, everything else is float). Depth and stencil views differ only in the swizzle:
/// deko3d reads a Z24S8 texture's depth (G, UNORM) or stencil (R, UINT) so.
pub fn sampled_kind(header: &TextureHeader) -> NumberKind {
    let read = header.swizzle.iter().find_map(|source| match *source {
        Source::Component(c) => Some(usize::from(c)),
        _ => None,
    });
    match header.data_types[read.unwrap_or(0)] {
        DataType::Uint => NumberKind::Uint,
        DataType::Sint => NumberKind::Sint,
        _ => NumberKind::Float,
    }
}

pub(crate) fn numeric(data_type: DataType) -> Numeric {
    match data_type {
        DataType::Snorm | DataType::SnormForceFp16 => Numeric::Snorm,
        DataType::Unorm | DataType::UnormForceFp16 => Numeric::Unorm,
        DataType::Sint => Numeric::Sint,
        DataType::Uint => Numeric::Uint,
        DataType::Float => Numeric::Float,
    }
}

/// A component of `width` bits holding `raw` as its data type reads it (`convert`, FORCE_FP16 types rounded to
/// half precision); `None` for a float width `convert` has no conversion for.
pub(crate) fn component_value(raw: u32, width: u32, data_type: DataType) -> Option<u32> {
    let value = convert(raw, width, numeric(data_type))?;
    Some(match data_type {
        DataType::SnormForceFp16 | DataType::UnormForceFp16 => round_to_half_precision(value),
        _ => value,
    })
}

/// Why texels cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TexelError {
    #[error("texture format {0:#04x} (COMPONENTS) is not implemented by Tandem yet")]
    UnknownFormat(u32),
    #[error("texture format {name}: a {width}-bit FLOAT component")]
    FloatWidth { name: &'static str, width: u32 },
    #[error("{got} bytes of texels for a {width} x {height} {name} image, which needs {needed}")]
    Short { name: &'static str, width: u32, height: u32, got: usize, needed: usize },
}

/// The values a sample of each texel of a `width` x `height` image returns, rows from the top: components
/// decoded by the header's data types, sRGB-decoded where the header and the sampler both say so (8-bit UNORM
/// colour components, never alpha), then swizzled. `data` holds the image's elements row by row (4 x 4 blocks
/// for compressed formats). Values are of `sampled_kind(header)`: FP32 bits, or integers; a component of the
/// other kind is converted (integers to their float value, floats truncated). Components a format lacks read 0
/// (alpha 1); the swizzle's constants are the bits they name (ONE_INT 1, ONE_FLOAT 1.0's bits), whatever the kind.
pub fn decode(
    header: &TextureHeader,
    sampler_srgb: bool,
    width: u32,
    height: u32,
    data: &[u8],
) -> Result<Vec<[u32; 4]>, TexelError> {
    let format = TextureFormat::from_code(header.components).ok_or(TexelError::UnknownFormat(header.components))?;
    let (element_width, element_height, element_bytes) = format.storage.element();
    let (across, down) = (width.div_ceil(element_width) as usize, height.div_ceil(element_height) as usize);
    let needed = across * down * element_bytes as usize;
    if data.len() < needed {
        return Err(TexelError::Short { name: format.name, width, height, got: data.len(), needed });
    }
    let kind = sampled_kind(header);
    let float_kind = kind == NumberKind::Float;
    let one = if float_kind { 1f32.to_bits() } else { 1 };
    // A texel's components in R, G, B, A order from its bits, each as its own data type reads it, and whether it
    // is float.
    let unpack = |packed: u128, components: &[(u32, u32); 4]| -> Result<[(u32, bool); 4], TexelError> {
        let mut texel = [(0, float_kind), (0, float_kind), (0, float_kind), (one, float_kind)];
        for (c, &(low, width)) in components.iter().enumerate() {
            if width == 0 {
                continue;
            }
            let raw = (packed >> low & ((1u128 << width) - 1)) as u32;
            let data_type = header.data_types[c];
            let mut value =
                component_value(raw, width, data_type).ok_or(TexelError::FloatWidth { name: format.name, width })?;
            if header.srgb && sampler_srgb && c < 3 && width == 8 && data_type == DataType::Unorm {
                value = srgb_to_linear(value);
            }
            texel[c] = (value, !data_type.is_integer());
        }
        Ok(texel)
    };
    let texels: Vec<[(u32, bool); 4]> = match format.storage {
        Storage::Plain { bytes, components } => data[..needed]
            .chunks_exact(bytes as usize)
            .map(|element| unpack(texel_bits(element), &components))
            .collect::<Result<_, _>>()?,
        Storage::Pair { components } => {
            let mut texels = Vec::with_capacity(width as usize * height as usize);
            for row in data[..needed].chunks_exact(4 * across) {
                for (x, element) in row.chunks_exact(4).enumerate() {
                    let packed = texel_bits(element);
                    texels.push(unpack(packed, &components[0])?);
                    if 2 * x + 1 < width as usize {
                        texels.push(unpack(packed, &components[1])?);
                    }
                }
            }
            texels
        }
        Storage::SharedExponent => data[..needed]
            .chunks_exact(4)
            .map(|element| {
                let packed = u32::from_le_bytes(element.try_into().expect("four bytes"));
                let scale = 2f64.powi((packed >> 27) as i32 - 15 - 9);
                let channel = |c: u32| ((f64::from(packed >> (9 * c) & 0x1ff) * scale) as f32).to_bits();
                [(channel(0), true), (channel(1), true), (channel(2), true), (1f32.to_bits(), true)]
            })
            .collect(),
        Storage::Astc { width: block_width, height: block_height } => {
            // Each texel's UNORM16 channels as the FP16 decode gives them; sRGB colour from their top 8 bits.
            let srgb = header.srgb && sampler_srgb;
            let magenta = [1f32, 0.0, 1.0, 1.0].map(|c| (c.to_bits(), true));
            let mut texels = vec![magenta; width as usize * height as usize];
            for (index, block) in data[..needed].chunks_exact(16).enumerate() {
                let (block_x, block_y) =
                    ((index % across) as u32 * block_width, (index / across) as u32 * block_height);
                let decoded =
                    astc::decode_block(block.try_into().expect("sixteen bytes"), block_width, block_height, srgb);
                for (k, texel) in decoded.into_iter().enumerate() {
                    let (x, y) = (block_x + k as u32 % block_width, block_y + k as u32 / block_width);
                    if x >= width || y >= height {
                        continue;
                    }
                    let Some(channels) = texel else { continue };
                    texels[(y * width + x) as usize] = std::array::from_fn(|c| {
                        let value = if srgb && c < 3 {
                            srgb_byte_to_linear((channels[c] >> 8) as u8)
                        } else if srgb {
                            (f32::from((channels[c] >> 8) as u8) / 255.0).to_bits()
                        } else {
                            astc::unorm16_to_f32(channels[c])
                        };
                        (value, true)
                    });
                }
            }
            texels
        }
        Storage::Compressed(compressed) => {
            let compressed = match compressed {
                Bc::Bc4 { .. } => Bc::Bc4 { signed: header.data_types[0] == DataType::Snorm },
                Bc::Bc5 { .. } => Bc::Bc5 { signed: header.data_types[0] == DataType::Snorm },
                Bc::Etc(Etc::R11 { .. }) => Bc::Etc(Etc::R11 { signed: header.data_types[0] == DataType::Snorm }),
                Bc::Etc(Etc::Rg11 { .. }) => Bc::Etc(Etc::Rg11 { signed: header.data_types[0] == DataType::Snorm }),
                other => other,
            };
            let decoded = bc::decode_image(compressed, width, height, &data[..needed]).expect("the size was checked");
            let srgb = header.srgb
                && sampler_srgb
                && !matches!(
                    compressed,
                    Bc::Bc4 { .. } | Bc::Bc5 { .. } | Bc::Bc6h { .. } | Bc::Etc(Etc::R11 { .. } | Etc::Rg11 { .. })
                );
            decoded
                .into_iter()
                .map(|texel| {
                    std::array::from_fn(|c| {
                        let value = texel[c].to_bits();
                        (if srgb && c < 3 { srgb_to_linear(value) } else { value }, true)
                    })
                })
                .collect()
        }
    };
    let (plain_width, plain_height) = match format.storage {
        Storage::Compressed(_) | Storage::Astc { .. } | Storage::Pair { .. } => (width as usize, height as usize),
        _ => (across, down),
    };
    debug_assert_eq!(texels.len(), plain_width * plain_height);
    let as_kind = |(value, is_float): (u32, bool)| match (float_kind, is_float) {
        (true, false) => match kind {
            NumberKind::Sint => (value as i32 as f32).to_bits(),
            _ => (value as f32).to_bits(),
        },
        (false, true) => match kind {
            NumberKind::Sint => f32::from_bits(value) as i32 as u32,
            _ => f32::from_bits(value) as u32,
        },
        _ => value,
    };
    Ok(texels
        .into_iter()
        .map(|texel| {
            header.swizzle.map(|source| match source {
                Source::Zero => 0,
                Source::Component(c) => as_kind(texel[usize::from(c)]),
                Source::OneInt => 1,
                Source::OneFloat => 1f32.to_bits(),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::descriptor::TextureType;
    use crate::texture::surface::Layout;

    fn header(components: u32, data_type: DataType, swizzle: [Source; 4]) -> TextureHeader {
        TextureHeader {
            components,
            data_types: [data_type; 4],
            swizzle,
            address: 0,
            layout: Layout::Pitch { pitch: 256 },
            width: 2,
            height: 1,
            depth: 1,
            texture_type: TextureType::TwoDNoMipmap,
            srgb: false,
            normalized_coords: true,
            max_mip_level: 0,
            view_levels: (0, 0),
            multisample: 0,
        }
    }

    const RGBA: [Source; 4] = [Source::Component(0), Source::Component(1), Source::Component(2), Source::Component(3)];

    /// Components convert as their formats define (UNORM c / (2^n - 1), SNORM clamped at -1, B5G6R5's R in the
    /// low bits), then the swizzle picks them or its constants.
    #[test]
    fn texels_decode_by_format_data_type_and_swizzle() {
        let f = |x: f32| x.to_bits();
        let rgba8 = decode(&header(0x08, DataType::Unorm, RGBA), false, 2, 1, &[0, 51, 255, 128, 1, 2, 3, 4]).unwrap();
        assert_eq!(rgba8[0], [f(0.0), f(0.2), f(1.0), f(128.0 / 255.0)]);
        // B5G6R5: R = 31 (bits 4:0), G = 0, B = 1 (bits 15:11); alpha absent reads 1.
        let texel = (31u16 | 1 << 11).to_le_bytes();
        let swizzle = [Source::Component(2), Source::Component(0), Source::Zero, Source::Component(3)];
        let b5g6r5 = decode(&header(0x15, DataType::Unorm, swizzle), false, 1, 1, &texel).unwrap();
        assert_eq!(b5g6r5[0], [f(1.0 / 31.0), f(1.0), 0, f(1.0)]);
        let signed = decode(&header(0x18, DataType::Snorm, RGBA), false, 1, 1, &[0x80, 0x7f]).unwrap();
        assert_eq!(signed[0], [f(-1.0), f(1.0), 0, f(1.0)]);
        let integers = [Source::Component(0), Source::OneInt, Source::OneFloat, Source::Component(3)];
        let uint = decode(&header(0x1d, DataType::Uint, integers), false, 1, 1, &[200]).unwrap();
        assert_eq!(uint[0], [200, 1, f(1.0), 1]);
        let short = decode(&header(0x08, DataType::Unorm, RGBA), false, 2, 1, &[0; 7]).unwrap_err();
        assert!(short.to_string().contains("needs 8"), "{short}");
        assert_eq!(
            decode(&header(0x1f, DataType::Unorm, RGBA), false, 1, 1, &[0; 16]),
            Err(TexelError::UnknownFormat(0x1f))
        );
    }

    /// The 4:2:2 formats by Direct3D's definitions of the same byte orders (R8G8_B8G8: R, G0, B, G1; G8R8_G8B8:
    /// G0, R, G1, B; each pair of texels sharing R and B, alpha absent), an odd width's last pair half used;
    /// Y8_VIDEO as its one component; a virtual-coverage depth format's depth and stencil where its name puts them.
    #[test]
    fn subsampled_video_and_coverage_formats_read_as_their_names_define() {
        let u = |x: u32| (x as f32 / 255.0).to_bits();
        let one = 1f32.to_bits();
        let bytes = [10, 20, 30, 40, 50, 60, 70, 80];
        let g8b8g8r8 = decode(&header(0x22, DataType::Unorm, RGBA), false, 3, 1, &bytes).unwrap();
        assert_eq!(g8b8g8r8, [[u(10), u(20), u(30), one], [u(10), u(40), u(30), one], [u(50), u(60), u(70), one]]);
        let b8g8r8g8 = decode(&header(0x23, DataType::Unorm, RGBA), false, 4, 1, &bytes).unwrap();
        assert_eq!(
            b8g8r8g8,
            [
                [u(20), u(10), u(40), one],
                [u(20), u(30), u(40), one],
                [u(60), u(50), u(80), one],
                [u(60), u(70), u(80), one]
            ]
        );
        let y8 = decode(&header(0x1c, DataType::Unorm, RGBA), false, 1, 1, &[51]).unwrap();
        assert_eq!(y8[0], [u(51), 0, 0, one]);
        let mut zf32_s8 = 0.5f32.to_le_bytes().to_vec();
        zf32_s8.extend(0xabcd_e512u32.to_le_bytes());
        let mut coverage = header(0x35, DataType::Float, RGBA);
        coverage.data_types[1] = DataType::Uint;
        let texel = decode(&coverage, false, 1, 1, &zf32_s8).unwrap();
        assert_eq!(texel[0][..2], [0.5f32.to_bits(), 18f32.to_bits()]);
    }

    /// ETC2 and EAC headers decode through `etc`: an individual-mode block's two sub-blocks (4-bit colours
    /// replicated to 8, plus table 0's 2 and table 7's 47, clamped), and EAC signed by R's data type.
    #[test]
    fn etc2_and_eac_headers_decode_their_blocks() {
        let f = |x: u32| (x as f32 / 255.0).to_bits();
        let block = [0xa5, 0x3c, 0x0f, 7 << 2, 0, 0, 0, 0];
        let texels = decode(&header(0x06, DataType::Unorm, RGBA), false, 4, 4, &block).unwrap();
        assert_eq!(texels[0], [f(0xaa + 2), f(0x33 + 2), f(2), f(255)]);
        assert_eq!(texels[3], [f(0x55 + 47), f(0xcc + 47), f(255), f(255)]);
        // EAC R11, base 0x80, multiplier 0, index 4 (table 0: +2): unsigned 1024 + 4 + 2, signed -1016 + 2.
        let eac = [0x80, 0x00, 0x92, 0x49, 0x24, 0x92, 0x49, 0x24];
        let unsigned = decode(&header(0x19, DataType::Unorm, RGBA), false, 4, 4, &eac).unwrap();
        assert_eq!(unsigned[0][0], (1030.0f32 / 2047.0).to_bits());
        let signed = decode(&header(0x19, DataType::Snorm, RGBA), false, 4, 4, &eac).unwrap();
        assert_eq!(signed[0][0], (-1014.0f32 / 1023.0).to_bits());
    }

    /// sRGB decoding (IEC 61966-2-1) applies to 8-bit UNORM colour only when both the header and the sampler ask.
    #[test]
    fn srgb_decodes_colour_when_header_and_sampler_agree() {
        let mut srgb = header(0x08, DataType::Unorm, RGBA);
        srgb.srgb = true;
        let texel = [188, 10, 255, 188];
        let decoded = decode(&srgb, true, 1, 1, &texel).unwrap()[0];
        let expected = ((188.0f64 / 255.0 + 0.055) / 1.055).powf(2.4) as f32;
        assert_eq!(f32::from_bits(decoded[0]), expected);
        assert_eq!(f32::from_bits(decoded[1]), (10.0f64 / 255.0 / 12.92) as f32);
        assert_eq!(f32::from_bits(decoded[3]), 188.0 / 255.0, "alpha is linear");
        assert_eq!(decode(&srgb, false, 1, 1, &texel).unwrap()[0][0], (188.0f32 / 255.0).to_bits());
    }

    /// FORCE_FP16 rounds to the nearest half; the shared-exponent format scales its mantissas by 2^(e - 24).
    #[test]
    fn half_precision_and_shared_exponent() {
        assert_eq!(f32::from_bits(round_to_half_precision(0.1f32.to_bits())), 0.099975586);
        assert_eq!(f32::from_bits(round_to_half_precision(70000f32.to_bits())), f32::INFINITY);
        let packed: u32 = 256 | 128 << 9 | 1 << 18 | 16 << 27;
        let texel = decode(&header(0x20, DataType::Float, RGBA), false, 1, 1, &packed.to_le_bytes()).unwrap()[0];
        assert_eq!(texel.map(f32::from_bits), [1.0, 0.5, 2f32.powi(-8), 1.0]);
    }
}
