//! nxgpucatch's random textures as the Switch held them: deko3d's block-linear layout of RGBA8 textures (its tile
//! choices, `source/dk_image.cpp`), nxgpucatch's memory block (the layout's size rounded down to 4 KiB,
//! `src/resource.cpp`) and its fills from `std::mt19937`. Texels are found through Tandem's own layout code
//! (`texture::layout::level_surfaces` of the header deko3d would write), so every vector that reads one also
//! checks that code against the hardware.

use tandem_gpu::engine::multisample::sample_layout;
use tandem_gpu::sass::corpus::RunTexture;
use tandem_gpu::shader::ir::TextureDim;
use tandem_gpu::texture::descriptor::TextureHeader;
use tandem_gpu::texture::layout::level_surfaces;
use tandem_gpu::texture::surface::Surface;

/// C++'s `std::mt19937`: the 32-bit Mersenne Twister with its standard parameters.
pub struct Mt19937 {
    state: [u32; 624],
    index: usize,
}

impl Mt19937 {
    pub fn new(seed: u32) -> Mt19937 {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            state[i] = 1_812_433_253u32.wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30)).wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    pub fn next_u32(&mut self) -> u32 {
        if self.index == 624 {
            for i in 0..624 {
                let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
                let twisted = (y >> 1) ^ if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.state[i] = self.state[(i + 397) % 624] ^ twisted;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

/// deko3d's image types nxgpucatch's textures take.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    D1,
    D1Array,
    D2,
    D2Array,
    D3,
}

/// An RGBA8 block-linear texture as `Texture(width, height, depth, levels, type, false, samples)` makes it:
/// `depth` is a 3D texture's depth or an array's layers (a 1D array's come as `height`). A multisampled 2D
/// texture (8 samples: DkMsMode_8x, which deko3d writes as MULTI_SAMPLE_COUNT 4X2_D3D) has one level and is
/// stored as a 2D texture of its pixels' 4x2 blocks.
pub struct DkTexture {
    pub kind: Kind,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub levels: u32,
    pub samples: u32,
}

/// MULTI_SAMPLE_COUNT's 4X2_D3D: deko3d's eight samples.
const FOUR_BY_TWO_D3D: u32 = 4;

/// deko3d's `pickTileSize`: the block's GOBs (log2) for a dimension of `gobs`.
fn tile_size(gobs: u32) -> u32 {
    match gobs {
        16.. => 4,
        8.. => 3,
        4.. => 2,
        2.. => 1,
        _ => 0,
    }
}

impl DkTexture {
    /// Its layers: an array's, one otherwise.
    fn layers(&self) -> u32 {
        match self.kind {
            Kind::D1Array => self.height,
            Kind::D2Array => self.depth,
            _ => 1,
        }
    }

    /// The texture header deko3d writes for it (A8B8G8R8 UNORM, BLOCKLINEAR): its block height is
    /// `pickTileSize(ceil(1.5 h / 8))` GOBs for 2D kinds, its block depth `pickTileSize(1.5 d)` for 3D, one GOB
    /// otherwise.
    pub fn header(&self) -> TextureHeader {
        let (block_width, block_height) = self.sample_block();
        let (width, height) = (self.width * block_width, self.height * block_height);
        let (texture_type, height, depth) = match self.kind {
            Kind::D1 => (0, 1, 1),
            Kind::D1Array => (4, 1, self.height),
            Kind::D2 => (1, height, 1),
            Kind::D2Array => (5, height, self.depth),
            Kind::D3 => (2, height, self.depth),
        };
        let (block_height, block_depth) = match self.kind {
            Kind::D2 | Kind::D2Array => (tile_size((height + height / 2).div_ceil(8)), 0),
            Kind::D3 => (0, tile_size(depth + depth / 2)),
            Kind::D1 | Kind::D1Array => (0, 0),
        };
        let format = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
        let words = [
            format,
            0,
            3 << 21,
            block_height << 3 | block_depth << 6 | (self.levels - 1) << 28,
            (width - 1) | texture_type << 23,
            (height - 1) | (depth - 1) << 16 | 1 << 31,
            0,
            0,
        ];
        TextureHeader::parse(0, words).expect("a header deko3d writes")
    }

    /// The block of texels one pixel's samples take, and each sample's place in it (one sample: (1, 1), (0, 0)),
    /// from Tandem's table of the sample orders (`engine::multisample`).
    fn sample_block(&self) -> (u32, u32) {
        self.sample_layout().0
    }

    fn sample_layout(&self) -> ((u32, u32), &'static [(u32, u32)]) {
        match self.samples {
            1 => ((1, 1), &[(0, 0)]),
            8 => sample_layout(FOUR_BY_TWO_D3D).expect("4X2_D3D's sample order"),
            other => panic!("{other} samples: nxgpucatch's textures have 1 or 8"),
        }
    }

    /// The header of the texels as stored: a multisampled texture's blocks as a 2D texture.
    fn surfaces(&self) -> Vec<Surface> {
        level_surfaces(&self.header(), (1, 1, 4)).expect("a laid-out texture")
    }

    /// The bytes of nxgpucatch's memory block: the layout's size (an array's layers apart by the levels' total
    /// rounded to level 0's block) rounded down to 4 KiB.
    pub fn heap_bytes(&self) -> usize {
        let surfaces = self.surfaces();
        let last = surfaces.last().expect("a level");
        let levels_end = last.address + last.layer_bytes().expect("a sized level");
        let storage = match surfaces[0].slices {
            tandem_gpu::texture::surface::Slices::Layers { stride } if self.layers() > 1 => {
                stride * u64::from(self.layers())
            }
            _ => levels_end,
        };
        (storage & !0xfff) as usize
    }

    /// tld.cpp's `Randomize`: each byte 255 where a draw is odd, else 0.
    pub fn random_bytes(&self, seed: u32) -> Vec<u8> {
        let mut rng = Mt19937::new(seed);
        (0..self.heap_bytes()).map(|_| if rng.next_u32() % 2 != 0 { 255 } else { 0 }).collect()
    }

    /// tld4.cpp's and tld4s.cpp's `Randomize`: the even bytes (R and B) 255 where a draw is odd, else 0; the odd
    /// ones (G and A) stay 0.
    pub fn random_even(&self, seed: u32) -> Vec<u8> {
        let mut rng = Mt19937::new(seed);
        let mut bytes = vec![0; self.heap_bytes()];
        for byte in bytes.iter_mut().step_by(2) {
            *byte = if rng.next_u32() % 2 != 0 { 255 } else { 0 };
        }
        bytes
    }

    /// tlds.cpp's `Randomize`: one draw a texel, its bits 0-3 making R, G, B and A 255 or 0.
    pub fn random_bits(&self, seed: u32) -> Vec<u8> {
        let mut rng = Mt19937::new(seed);
        let mut bytes = Vec::with_capacity(self.heap_bytes());
        while bytes.len() < self.heap_bytes() {
            let draw = rng.next_u32();
            bytes.extend((0..4).map(|bit| if draw >> bit & 1 == 1 { 255 } else { 0 }));
        }
        bytes
    }

    /// The texture's top-left corner, `size` texels of level 0 (each level's own share of it), all its layers and
    /// levels, as RGBA32F texels of 0.0 and 1.0 for the interpreter and the device: exactly what a fetch within
    /// it reads on the hardware. A texel past the memory block is 0.5, which no vector expects.
    pub fn corner(&self, heap: &[u8], size: [u32; 3]) -> (RunTexture, Vec<u8>) {
        let (shape, texels) = self.corner_texels(size, |at| {
            let rgba =
                heap.get(at..at + 4).map_or([0.5; 4], |bytes| std::array::from_fn(|c| f32::from(bytes[c]) / 255.0));
            rgba.iter().flat_map(|c| c.to_le_bytes()).collect()
        });
        (shape, texels)
    }

    /// The corner's RGBA8 texels as the memory block holds them, four bytes each, in the same order.
    pub fn raw_corner(&self, heap: &[u8], size: [u32; 3]) -> Vec<u8> {
        self.corner_texels(size, |at| heap.get(at..at + 4).map_or(vec![0x80; 4], <[u8]>::to_vec)).1
    }

    /// tld4.cpp's and tld4s.cpp's `RandomizeShadow` of a ZF32 texture (4-byte texels, laid out as RGBA8's): the
    /// even words about -2048 (`draw % 4096 / 4096 - 2048`), the odd ones 0, as depths. What a compare gives
    /// depends only on a texel's word parity, so the depths here are mapped monotonically into [0, 1], which
    /// Vulkan's depth textures hold (it leaves copies of others undefined): -2048 + f to `BELOW` and 0 to `ZERO`;
    /// references must be mapped alike (between them: between -2048 and 0).
    pub fn shadow_corner(&self, size: [u32; 3]) -> (RunTexture, Vec<u8>) {
        let (shape, texels) = self.corner_texels(size, |at| {
            let depth = if at / 4 % 2 == 0 { SHADOW_BELOW } else { SHADOW_ZERO };
            depth.to_le_bytes().to_vec()
        });
        (RunTexture { depth: true, ..shape }, texels)
    }

    /// The corner's texels, each from `texel(byte address of its 4 bytes in the memory block)`.
    fn corner_texels(&self, size: [u32; 3], texel: impl Fn(usize) -> Vec<u8>) -> (RunTexture, Vec<u8>) {
        let (dim, array) = match self.kind {
            Kind::D1 => (TextureDim::D1, false),
            Kind::D1Array => (TextureDim::D1, true),
            Kind::D2 => (TextureDim::D2, false),
            Kind::D2Array => (TextureDim::D2, true),
            Kind::D3 => (TextureDim::D3, false),
        };
        // A multisampled texture is held as a 2D array of a layer a sample, as the translation reads one.
        let ((block_width, block_height), samples) = self.sample_layout();
        let layers = if self.samples > 1 { self.samples } else { self.layers() };
        let array = array || self.samples > 1;
        let shape = RunTexture { dim, size, layers, levels: self.levels, array, depth: false };
        let surfaces = self.surfaces();
        let mut texels = Vec::new();
        for level in 0..self.levels {
            let surface = &surfaces[level as usize];
            let [w, h, d] = shape.extent(level);
            for layer in 0..layers {
                let (sample, layer) = if self.samples > 1 { (samples[layer as usize], 0) } else { ((0, 0), layer) };
                for z in 0..d {
                    let slice = if self.kind == Kind::D3 { z } else { layer };
                    for y in 0..h {
                        for x in 0..w {
                            let (x, y) = (x * block_width + sample.0, y * block_height + sample.1);
                            let at = surface.texel_address(x, y, slice).expect("a texel of the texture");
                            texels.extend(texel(at as usize));
                        }
                    }
                }
            }
        }
        (shape, texels)
    }
}

/// `DkTexture::shadow_corner`'s depths: where nxgpucatch's are about -2048, and 0.
const SHADOW_BELOW: f32 = 0.125;
const SHADOW_ZERO: f32 = 0.5;
/// A reference between them (nxgpucatch's -1 and -0.5), as FP32 bits.
pub const SHADOW_BETWEEN: u32 = 0x3e80_0000;

/// [rand.predef]: the 10000th draw of a default-constructed `std::mt19937` (seed 5489) is 4123659995.
#[test]
fn the_mersenne_twister_is_cpps() {
    let mut rng = Mt19937::new(5489);
    let draws: Vec<u32> = (0..10_000).map(|_| rng.next_u32()).collect();
    assert_eq!((draws[0], draws[9999]), (3_499_211_612, 4_123_659_995));
}
