//! Texture and sampler descriptors: the 32-byte texture headers (TIC) and samplers (TSC) of the pools the 3D and
//! compute classes point at (SET_TEX_HEADER_POOL, SET_TEX_SAMPLER_POOL), and the handles shaders name them by.
//!
//! Layouts from open-gpu-doc's `clb097tex.h`/`clb197tex.h` (`NVB097_TEXHEAD_{BL,PITCH,1D}_*`,
//! `NVB097_TEXSAMP*`): Maxwell B reads only these "Maxwell" headers (envytools: GM20x ignores
//! SET_SELECT_MAXWELL_TEXTURE_HEADERS), selected by HEADER_VERSION. `Wn[hi:lo]` below is word n's bits.

use super::surface::Layout;

/// Bytes of a texture header or a sampler.
pub const DESCRIPTOR_BYTES: u64 = 32;

/// Why a descriptor cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DescriptorError {
    #[error("texture header {index} is past the header pool's maximum index {maximum}")]
    HeaderPastPool { index: u32, maximum: u32 },
    #[error("sampler {index} is past the sampler pool's maximum index {maximum}")]
    SamplerPastPool { index: u32, maximum: u32 },
    #[error("texture header {index}: {problem}")]
    BadHeader { index: u32, problem: String },
    #[error("sampler {index}: {problem}")]
    BadSampler { index: u32, problem: String },
}

/// A texture handle as a constant buffer or register holds it: the header's index in bits 19:0, the sampler's in
/// bits 31:20.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    pub header: u32,
    pub sampler: u32,
}

impl Handle {
    /// `via_header`: SET_SAMPLER_BINDING VIA_HEADER_BINDING, where the sampler has the header's index and the
    /// handle's sampler field is ignored.
    pub fn split(raw: u32, via_header: bool) -> Handle {
        let header = raw & 0xf_ffff;
        Handle { header, sampler: if via_header { header } else { raw >> 20 } }
    }
}

/// The two pools and how handles pick samplers: what SET_TEX_HEADER_POOL_A-C, SET_TEX_SAMPLER_POOL_A-C and
/// SET_SAMPLER_BINDING hold when a draw or dispatch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pools {
    pub headers: u64,
    /// The highest valid index (inclusive).
    pub header_maximum: u32,
    pub samplers: u64,
    pub sampler_maximum: u32,
    pub sampler_via_header: bool,
}

impl Pools {
    /// Where header `index` lies, checked against the pool's maximum index.
    pub fn header_address(&self, index: u32) -> Result<u64, DescriptorError> {
        if index > self.header_maximum {
            return Err(DescriptorError::HeaderPastPool { index, maximum: self.header_maximum });
        }
        Ok(self.headers + u64::from(index) * DESCRIPTOR_BYTES)
    }

    /// Where sampler `index` lies, checked against its pool's maximum index (the header pool's with
    /// VIA_HEADER_BINDING, where `index` is a header's).
    pub fn sampler_address(&self, index: u32) -> Result<u64, DescriptorError> {
        let maximum = if self.sampler_via_header { self.header_maximum } else { self.sampler_maximum };
        if index > maximum {
            return Err(DescriptorError::SamplerPastPool { index, maximum });
        }
        Ok(self.samplers + u64::from(index) * DESCRIPTOR_BYTES)
    }
}

/// Bits `hi..=lo` of a word.
fn bits(word: u32, hi: u32, lo: u32) -> u32 {
    (word >> lo) & (u32::MAX >> (31 - (hi - lo)))
}

/// How a component's bits read (R_DATA_TYPE and the others, W0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    Snorm,
    Unorm,
    Sint,
    Uint,
    /// Normalised, then rounded to FP16 precision.
    SnormForceFp16,
    UnormForceFp16,
    Float,
}

impl DataType {
    fn from_field(value: u32) -> Option<DataType> {
        use DataType::*;
        [
            None,
            Some(Snorm),
            Some(Unorm),
            Some(Sint),
            Some(Uint),
            Some(SnormForceFp16),
            Some(UnormForceFp16),
            Some(Float),
        ][value as usize]
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Sint | DataType::Uint)
    }
}

/// Where a sampled component comes from (X_SOURCE and the others, W0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Zero,
    /// Component 0-3 (R, G, B, A) of the texel.
    Component(u8),
    OneInt,
    OneFloat,
}

impl Source {
    fn from_field(value: u32) -> Option<Source> {
        Some(match value {
            0 => Source::Zero,
            2..=5 => Source::Component(value as u8 - 2),
            6 => Source::OneInt,
            7 => Source::OneFloat,
            _ => return None,
        })
    }
}

/// TEXTURE_TYPE (W4[26:23]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureType {
    OneD,
    TwoD,
    ThreeD,
    Cubemap,
    OneDArray,
    TwoDArray,
    OneDBuffer,
    TwoDNoMipmap,
    CubemapArray,
}

impl TextureType {
    fn from_field(value: u32) -> Option<TextureType> {
        use TextureType::*;
        [OneD, TwoD, ThreeD, Cubemap, OneDArray, TwoDArray, OneDBuffer, TwoDNoMipmap, CubemapArray]
            .get(value as usize)
            .copied()
    }
}

/// A texture header (TIC entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureHeader {
    /// COMPONENTS (W0[6:0]): the texel's layout, `texture::texel` gives its meaning.
    pub components: u32,
    /// R, G, B, A.
    pub data_types: [DataType; 4],
    /// X, Y, Z, W: what the sampled vector's components are.
    pub swizzle: [Source; 4],
    pub address: u64,
    pub layout: Layout,
    pub width: u32,
    pub height: u32,
    /// Slices of a 3D texture, layers of an array (cubes: six layers a cube).
    pub depth: u32,
    pub texture_type: TextureType,
    /// S_R_G_B_CONVERSION: decode 8-bit UNORM colour components from sRGB (when the sampler agrees).
    pub srgb: bool,
    pub normalized_coords: bool,
    /// MAX_MIP_LEVEL: the texture has levels 0..=max_mip_level.
    pub max_mip_level: u32,
    /// RES_VIEW_MIN/MAX_MIP_LEVEL: the levels the view samples.
    pub view_levels: (u32, u32),
    /// MULTI_SAMPLE_COUNT (0: one sample).
    pub multisample: u32,
}

impl TextureHeader {
    /// Reads a header of a pitch, block-linear or 1D buffer texture; the others (colour keys) and undefined field
    /// values are errors naming the field. `index` is the header's pool index, for the errors.
    ///
    /// A 1D buffer (`NVB097_TEXHEAD_1D_*`) keeps W0-W2 and TEXTURE_TYPE where the others have them, and its
    /// 32-bit WIDTH_MINUS_ONE in W3[15:0] (high half) and W4[15:0] (low half); it has no levels, layers or
    /// height, and reads as one pitch row (whose pitch nothing uses).
    pub fn parse(index: u32, words: [u32; 8]) -> Result<TextureHeader, DescriptorError> {
        let bad = |problem: String| DescriptorError::BadHeader { index, problem };
        let w = words;
        let version = bits(w[2], 23, 21);
        let address_high = u64::from(bits(w[2], 15, 0)) << 32;
        let layout = match version {
            0 | 2 => Layout::Pitch { pitch: if version == 0 { 0 } else { bits(w[3], 15, 0) << 5 } },
            3 => {
                if bits(w[3], 2, 0) != 0 {
                    return Err(bad(format!("GOBS_PER_BLOCK_WIDTH {} (only ONE_GOB is defined)", bits(w[3], 2, 0))));
                }
                let (block_height, block_depth) = (bits(w[3], 5, 3), bits(w[3], 8, 6));
                if block_height > 5 || block_depth > 5 {
                    return Err(bad(format!(
                        "GOBS_PER_BLOCK_HEIGHT {block_height}, GOBS_PER_BLOCK_DEPTH {block_depth} (0-5 are defined)"
                    )));
                }
                // A sparse texture's tile width widens its rows of blocks and aligns its layers (deko3d's and
                // Ryujinx's layouts): not implemented.
                if bits(w[3], 12, 10) != 0 {
                    return Err(bad(format!(
                        "TILE_WIDTH_IN_GOBS {} (sparse texture tiles) is not implemented by Tandem yet",
                        bits(w[3], 12, 10)
                    )));
                }
                Layout::BlockLinear { block_height, block_depth }
            }
            1 | 4 => {
                return Err(bad(format!(
                    "a colour-key texture (HEADER_VERSION {version}) is not implemented by Tandem yet"
                )));
            }
            _ => return Err(bad(format!("HEADER_VERSION {version} is undefined"))),
        };
        let data_type = |hi, lo, name: &str| {
            DataType::from_field(bits(w[0], hi, lo)).ok_or_else(|| bad(format!("{name}_DATA_TYPE 0 is undefined")))
        };
        let source = |hi, lo, name: &str| {
            let value = bits(w[0], hi, lo);
            Source::from_field(value).ok_or_else(|| bad(format!("{name}_SOURCE {value} is undefined")))
        };
        // W1's low bits are address bits only in a 1D buffer's header (ADDRESS_BITS31TO0): a pitch header has
        // ADDRESS_BITS31TO5, a block-linear one ADDRESS_BITS31TO9 with GOB_DEPTH_OFFSET in 6:5 (clb097tex.h).
        let address_low = match version {
            3 if bits(w[1], 6, 5) != 0 => {
                return Err(bad(format!("GOB_DEPTH_OFFSET {} is not implemented by Tandem yet", bits(w[1], 6, 5))));
            }
            3 => w[1] & !0x1ff,
            2 => w[1] & !0x1f,
            _ => w[1],
        };
        let texture_type = TextureType::from_field(bits(w[4], 26, 23))
            .ok_or_else(|| bad(format!("TEXTURE_TYPE {} is undefined", bits(w[4], 26, 23))))?;
        if (version == 0) != (texture_type == TextureType::OneDBuffer) {
            return Err(bad(format!("HEADER_VERSION {version} with TEXTURE_TYPE {texture_type:?}")));
        }
        let common = TextureHeader {
            components: bits(w[0], 6, 0),
            data_types: [
                data_type(9, 7, "R")?,
                data_type(12, 10, "G")?,
                data_type(15, 13, "B")?,
                data_type(18, 16, "A")?,
            ],
            swizzle: [source(21, 19, "X")?, source(24, 22, "Y")?, source(27, 25, "Z")?, source(30, 28, "W")?],
            address: address_high | u64::from(address_low),
            layout,
            width: bits(w[4], 15, 0) + 1,
            height: bits(w[5], 15, 0) + 1,
            depth: bits(w[5], 29, 16) + 1,
            texture_type,
            srgb: bits(w[4], 22, 22) == 1,
            normalized_coords: bits(w[5], 31, 31) == 1,
            max_mip_level: bits(w[3], 31, 28),
            view_levels: (bits(w[7], 3, 0), bits(w[7], 7, 4)),
            multisample: bits(w[7], 11, 8),
        };
        if version != 0 {
            return Ok(common);
        }
        let width = (bits(w[3], 15, 0) << 16 | bits(w[4], 15, 0))
            .checked_add(1)
            .ok_or_else(|| bad("a 1D buffer of 2^32 texels".into()))?;
        Ok(TextureHeader {
            width,
            height: 1,
            depth: 1,
            normalized_coords: false,
            max_mip_level: 0,
            view_levels: (0, 0),
            multisample: 0,
            ..common
        })
    }

    /// Array layers: `depth` for arrays, six a cube for cubes, one otherwise (3D textures have slices instead).
    pub fn layers(&self) -> u32 {
        match self.texture_type {
            TextureType::OneDArray | TextureType::TwoDArray => self.depth,
            TextureType::Cubemap => 6,
            TextureType::CubemapArray => 6 * self.depth,
            _ => 1,
        }
    }

    /// Mip levels stored (pitch textures have one).
    pub fn levels(&self) -> u32 {
        match (self.layout, self.texture_type) {
            (Layout::Pitch { .. }, _) | (_, TextureType::TwoDNoMipmap) => 1,
            _ => self.max_mip_level + 1,
        }
    }
}

/// ADDRESS_U/V/P (TSC W0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Mirror,
    ClampToEdge,
    Border,
    /// OpenGL's GL_CLAMP: half border, half edge under linear filtering.
    ClampOgl,
    MirrorOnceClampToEdge,
    MirrorOnceBorder,
    MirrorOnceClampOgl,
}

impl AddressMode {
    fn from_field(value: u32) -> AddressMode {
        use AddressMode::*;
        [Wrap, Mirror, ClampToEdge, Border, ClampOgl, MirrorOnceClampToEdge, MirrorOnceBorder, MirrorOnceClampOgl]
            [value as usize]
    }
}

/// Magnification and minification filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    Nearest,
    Linear,
}

/// Filtering between mip levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MipFilter {
    /// The view's base level only.
    None,
    Nearest,
    Linear,
}

/// A comparison: a sampler's depth compare (DEPTH_COMPARE_FUNC), and the 3D class's depth and stencil tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

impl Comparison {
    /// By its index in OpenGL's order (NEVER 0 to ALWAYS 7), which every comparison field of these classes
    /// follows.
    pub fn from_index(index: u32) -> Option<Comparison> {
        use Comparison::*;
        [Never, Less, Equal, LessOrEqual, Greater, NotEqual, GreaterOrEqual, Always].get(index as usize).copied()
    }
}

/// A sampler (TSC entry).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// U, V, P.
    pub address: [AddressMode; 3],
    pub compare: Option<Comparison>,
    /// S_R_G_B_CONVERSION: the header's sRGB decode happens only when this is set too.
    pub srgb: bool,
    /// MAX_ANISOTROPY as a ratio (1 to 16).
    pub max_anisotropy: u32,
    pub mag: Filter,
    pub min: Filter,
    pub anisotropic: bool,
    pub mip: MipFilter,
    pub lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    /// REDUCTION_FILTER: 0 the weighted average, 1 minimum, 2 maximum (3 is undefined and refused).
    pub reduction: u32,
    /// CUBEMAP_INTERFACE_FILTERING's high bit (AUTO_SPAN_SEAM, AUTO_CROSS_SEAM: what NVK, nouveau and deko3d set
    /// for seamless cube maps): filtering crosses cube faces' edges; clear (USE_WRAP), each face is filtered alone
    /// with the address modes at its edges.
    pub seamless_cube: bool,
    /// FLOAT_COORD_NORMALIZATION FORCE_UNNORMALIZED_COORDS: overrides the header's NORMALIZED_COORDS.
    pub force_unnormalized: bool,
    /// BORDER_COLOR_R-A: float bits, or the integers for integer textures.
    pub border: [u32; 4],
    /// SRGB_BORDER_COLOR_R, G, B: the border's colour sRGB-encoded in 8 bits (drivers encode BORDER_COLOR's).
    pub srgb_border: [u8; 3],
}

impl Sampler {
    /// Reads a sampler; undefined filter values are errors naming the field.
    pub fn parse(index: u32, words: [u32; 8]) -> Result<Sampler, DescriptorError> {
        let bad = |problem: String| DescriptorError::BadSampler { index, problem };
        let w = words;
        let address = [bits(w[0], 2, 0), bits(w[0], 5, 3), bits(w[0], 8, 6)].map(AddressMode::from_field);
        let compare = (bits(w[0], 9, 9) == 1).then(|| Comparison::from_index(bits(w[0], 12, 10))).flatten();
        let mag = match bits(w[1], 2, 0) {
            1 => Filter::Nearest,
            2 => Filter::Linear,
            other => return Err(bad(format!("MAG_FILTER {other} (VCAA filters are not implemented by Tandem yet)"))),
        };
        let (min, anisotropic) = match bits(w[1], 5, 4) {
            1 => (Filter::Nearest, false),
            2 => (Filter::Linear, false),
            3 => (Filter::Linear, true),
            _ => return Err(bad("MIN_FILTER 0 is undefined".into())),
        };
        let mip = match bits(w[1], 7, 6) {
            1 => MipFilter::None,
            2 => MipFilter::Nearest,
            3 => MipFilter::Linear,
            _ => return Err(bad("MIP_FILTER 0 is undefined".into())),
        };
        let reduction = bits(w[1], 11, 10);
        if reduction == 3 {
            return Err(bad("REDUCTION_FILTER 3 is undefined (RED_NONE 0, RED_MINIMUM 1, RED_MAXIMUM 2)".into()));
        }
        // Fixed point with 8 fraction bits: the bias signed in 13 bits, the clamps unsigned in 12.
        let lod_bias = ((bits(w[1], 24, 12) << 19) as i32 >> 19) as f32 / 256.0;
        Ok(Sampler {
            address,
            compare,
            srgb: bits(w[0], 13, 13) == 1,
            max_anisotropy: [1, 2, 4, 6, 8, 10, 12, 16][bits(w[0], 22, 20) as usize],
            mag,
            min,
            anisotropic,
            mip,
            lod_bias,
            min_lod: bits(w[2], 11, 0) as f32 / 256.0,
            max_lod: bits(w[2], 23, 12) as f32 / 256.0,
            reduction,
            seamless_cube: bits(w[1], 9, 9) == 1,
            force_unnormalized: bits(w[1], 25, 25) == 1,
            border: [w[4], w[5], w[6], w[7]],
            srgb_border: [bits(w[2], 31, 24), bits(w[3], 19, 12), bits(w[3], 27, 20)].map(|byte| byte as u8),
        })
    }

    /// The border colour a texture sampled through this sampler reads: where the texture's texels are decoded
    /// from sRGB (the header's sRGB and this S_R_G_B_CONVERSION), R, G and B are the SRGB_BORDER_COLOR bytes
    /// decoded, as texels are (deko3d, NVK and nouveau fill those fields with the border's colour encoded, which
    /// only such a decode needs); otherwise, and always for alpha, BORDER_COLOR's words.
    pub fn border(&self, srgb_texture: bool) -> [u32; 4] {
        match srgb_texture && self.srgb {
            true => {
                let [r, g, b] = self.srgb_border.map(crate::texture::texel::srgb_byte_to_linear);
                [r, g, b, self.border[3]]
            }
            false => self.border,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block-linear header as Mesa's `gm107_create_texture_view` and deko3d's `tic_generate` fill one, field by
    /// field at the bits clb097tex.h names (`NVB097_TEXHEAD_BL_*`).
    #[test]
    fn block_linear_headers_read_as_the_class_header_lays_them_out() {
        let mut w = [0u32; 8];
        w[0] = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 7 << 28;
        w[1] = 0x3456_7e00;
        w[2] = 0x12 | 3 << 21;
        w[3] = 4 << 3 | 1 << 6 | 9 << 28;
        w[4] = 99 | 1 << 22 | 5 << 23 | 7 << 29;
        w[5] = 69 | 5 << 16 | 1 << 31;
        w[7] = 2 | 8 << 4;
        let header = TextureHeader::parse(7, w).unwrap();
        assert_eq!(header.components, 0x08);
        assert_eq!(header.data_types, [DataType::Unorm; 4]);
        use Source::*;
        assert_eq!(header.swizzle, [Component(0), Component(1), Component(2), OneFloat]);
        assert_eq!(header.address, 0x12_3456_7e00);
        assert_eq!(header.layout, Layout::BlockLinear { block_height: 4, block_depth: 1 });
        assert_eq!((header.width, header.height, header.depth), (100, 70, 6));
        assert_eq!(header.texture_type, TextureType::TwoDArray);
        assert_eq!(header.layers(), 6);
        assert!(header.srgb && header.normalized_coords);
        assert_eq!((header.levels(), header.view_levels), (10, (2, 8)));
    }

    /// A pitch header's pitch is PITCH_BITS20TO5 << 5 (W3[15:0]); only block-linear and pitch layouts read.
    #[test]
    fn pitch_headers_and_refusals() {
        let mut w = [0u32; 8];
        w[0] = 0x15 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16;
        w[1] = 0x2_0000;
        w[2] = 2 << 21;
        w[3] = 0x300 >> 5;
        w[4] = 63 | 7 << 23;
        w[5] = 31 | 1 << 31;
        let header = TextureHeader::parse(0, w).unwrap();
        assert_eq!(header.layout, Layout::Pitch { pitch: 0x300 });
        assert_eq!((header.texture_type, header.levels()), (TextureType::TwoDNoMipmap, 1));
        let error = |w| TextureHeader::parse(3, w).unwrap_err().to_string();
        let mut buffer_version = w;
        buffer_version[2] = 0;
        assert_eq!(error(buffer_version), "texture header 3: HEADER_VERSION 0 with TEXTURE_TYPE TwoDNoMipmap");
        let mut colour_key = w;
        colour_key[2] = 1 << 21;
        assert!(error(colour_key).contains("colour-key"), "{}", error(colour_key));
        let mut bad_type = w;
        bad_type[0] &= !(7 << 7);
        assert_eq!(error(bad_type), "texture header 3: R_DATA_TYPE 0 is undefined");
        // Block-linear: block sizes past THIRTYTWO_GOBS are undefined; sparse tiles are not implemented.
        let mut block_linear = w;
        block_linear[2] = 3 << 21;
        block_linear[3] = 6 << 3;
        assert!(error(block_linear).contains("GOBS_PER_BLOCK_HEIGHT 6"), "{}", error(block_linear));
        block_linear[3] = 7 << 6;
        assert!(error(block_linear).contains("GOBS_PER_BLOCK_DEPTH 7"), "{}", error(block_linear));
        block_linear[3] = 2 << 10;
        assert!(error(block_linear).contains("TILE_WIDTH_IN_GOBS 2"), "{}", error(block_linear));
        // W1's bits below the address: reserved ones are not address bits, GOB_DEPTH_OFFSET is refused.
        block_linear[3] = 0;
        block_linear[1] = 0x2_0000 | 0x9f;
        assert_eq!(TextureHeader::parse(3, block_linear).unwrap().address, 0x2_0000);
        block_linear[1] = 0x2_0000 | 1 << 5;
        assert!(error(block_linear).contains("GOB_DEPTH_OFFSET 1"), "{}", error(block_linear));
        let mut pitch_low_bits = w;
        pitch_low_bits[1] = 0x2_0000 | 0x1f;
        assert_eq!(TextureHeader::parse(3, pitch_low_bits).unwrap().address, 0x2_0000);
    }

    /// A 1D buffer header as NVK's `nvb097_nil_fill_buffer_tic` fills one (clb097tex.h `NVB097_TEXHEAD_1D_*`):
    /// the width's halves in W4[15:0] (low) and W3[15:0] (high), sector promotion in W4[28:27] ignored.
    #[test]
    fn one_d_buffer_headers_read_as_the_class_header_lays_them_out() {
        let mut w = [0u32; 8];
        w[0] = 0x08 | 4 << 7 | 4 << 10 | 4 << 13 | 4 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
        w[1] = 0x8000_0040;
        w[2] = 0x3;
        w[3] = 0x2;
        w[4] = 0x3456 | 6 << 23 | 2 << 27;
        let header = TextureHeader::parse(4, w).unwrap();
        assert_eq!(header.texture_type, TextureType::OneDBuffer);
        assert_eq!(header.address, 0x3_8000_0040);
        assert_eq!((header.width, header.height, header.depth), (0x2_3457, 1, 1));
        assert_eq!(header.data_types, [DataType::Uint; 4]);
        assert_eq!((header.layers(), header.levels()), (1, 1));
        let mut most = w;
        most[3] = 0xffff;
        most[4] |= 0xffff;
        assert_eq!(
            TextureHeader::parse(4, most).unwrap_err().to_string(),
            "texture header 4: a 1D buffer of 2^32 texels"
        );
        let mut two_d = w;
        two_d[4] = 1 << 23;
        assert!(
            TextureHeader::parse(4, two_d).unwrap_err().to_string().contains("HEADER_VERSION 0 with TEXTURE_TYPE TwoD")
        );
    }

    /// Samplers as NVK's `nvk_sampler.c` fills them (clb097tex.h `NVB097_TEXSAMP*`): fixed-point LODs with 8
    /// fraction bits, the bias signed.
    #[test]
    fn samplers_read_as_the_class_header_lays_them_out() {
        let mut w = [0u32; 8];
        w[0] = 3 | 2 << 3 | 6 << 6 | 1 << 9 | 3 << 10 | 1 << 13 | 4 << 20;
        w[1] = 2 | 3 << 4 | 3 << 6 | 1 << 9 | ((-384i32 as u32) & 0x1fff) << 12;
        w[2] = 64 | (12 * 256) << 12;
        w[4..8].copy_from_slice(&[0x3f00_0000, 0, 0x3f80_0000, 1]);
        w[2] |= 255 << 24;
        w[3] = 188 << 20;
        let sampler = Sampler::parse(0, w).unwrap();
        // The sRGB border (255, 0, 188) decoded by the sRGB transfer function: 188 / 255 -> 0.50288648 (FP32
        // 0x3f00bd2b); alpha stays BORDER_COLOR_A's.
        assert_eq!(sampler.srgb_border, [255, 0, 188]);
        assert_eq!(sampler.border(true), [0x3f80_0000, 0, 0x3f00_bd2b, 1]);
        assert_eq!(sampler.border(false), [0x3f00_0000, 0, 0x3f80_0000, 1]);
        assert_eq!(sampler.address, [AddressMode::Border, AddressMode::ClampToEdge, AddressMode::MirrorOnceBorder]);
        assert_eq!(sampler.compare, Some(Comparison::LessOrEqual));
        assert!(sampler.srgb && sampler.seamless_cube && sampler.anisotropic);
        assert_eq!(sampler.max_anisotropy, 8);
        assert_eq!((sampler.mag, sampler.min, sampler.mip), (Filter::Linear, Filter::Linear, MipFilter::Linear));
        assert_eq!((sampler.lod_bias, sampler.min_lod, sampler.max_lod), (-1.5, 0.25, 12.0));
        assert_eq!(sampler.border, [0x3f00_0000, 0, 0x3f80_0000, 1]);
        // REDUCTION_FILTER's values (NVB197_TEXSAMP1_REDUCTION_FILTER_*); 3 is none of them.
        for (value, reduction) in [(0, Ok(0)), (1, Ok(1)), (2, Ok(2)), (3, Err(()))] {
            let parsed = Sampler::parse(0, [0, 0x51 | value << 10, 0, 0, 0, 0, 0, 0]);
            assert_eq!(parsed.map(|sampler| sampler.reduction).map_err(|_| ()), reduction, "value {value}");
        }
    }

    /// Handles: header in bits 19:0, sampler in 31:20, or the header's index under VIA_HEADER_BINDING; indices
    /// past a pool's maximum are refused.
    #[test]
    fn handles_pick_entries_within_their_pools() {
        assert_eq!(Handle::split(0x0030_0005, false), Handle { header: 5, sampler: 3 });
        assert_eq!(Handle::split(0x0030_0005, true), Handle { header: 5, sampler: 5 });
        let pools = Pools {
            headers: 0x1000,
            header_maximum: 7,
            samplers: 0x2000,
            sampler_maximum: 3,
            sampler_via_header: false,
        };
        assert_eq!((pools.header_address(5), pools.sampler_address(3)), (Ok(0x10a0), Ok(0x2060)));
        assert!(matches!(pools.header_address(8), Err(DescriptorError::HeaderPastPool { .. })));
        assert!(matches!(pools.sampler_address(4), Err(DescriptorError::SamplerPastPool { .. })));
        let via_header = Pools { sampler_via_header: true, ..pools };
        assert_eq!(via_header.sampler_address(7), Ok(0x20e0));
    }
}
