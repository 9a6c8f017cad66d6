//! nxgpucatch's texture tests (tex.cpp, texs.cpp, txq.cpp): each thread samples or queries a texture and stores
//! R0-R3, which must be the four words the hardware left. nxgpucatch's textures are RGBA8 texels of 0 or 255,
//! which RGBA32F texels of 0.0 and 1.0 stand for exactly under nearest sampling; where a test's content is uniform
//! over a level or layer, the texture here is smaller than the hardware's (sampling at normalized coordinates
//! reads the same colour), and where only its shape matters it holds `RunTexture::texels`' fill. Textures bind
//! at handle slot 0x52 (c[0][0x148]) rather than nxgpucatch's 0x28; c[2][0] is 0, the handle TEX.B reads.
//! `gpu/research/nxgpucatch-textures.md` plans the rest of the port.

use super::{common, hex, set};
use tandem_gpu::sass::corpus::{Placement, RunTexture, dispatch, interpret};
use tandem_gpu::sass::programs::vector_program;
use tandem_gpu::shader::ir::TextureDim;

const ONE: u32 = 0x3f80_0000;
const HALF: u32 = 0x3f00_0000;

/// Runs `body` (which leaves R0-R3) on both paths with `textures` bound and c[2] = [0], and checks every
/// thread's four words against `expected`.
fn check4(name: &str, body: &str, textures: Vec<(RunTexture, Vec<u8>)>, expected: [u32; 4]) {
    let zero_bank = vec![(2, vec![0u8; 16])];
    let program = vector_program(name, body, textures, zero_bank, expected).unwrap_or_else(|e| panic!("{name}: {e}"));
    let run = program.run();
    let each_thread = |buffers: &[u8], path: &str| {
        for (thread, words) in program.words(buffers).chunks(4).enumerate() {
            assert_eq!(hex(words.to_vec()), hex(expected.to_vec()), "{name}: thread {thread}, {path}");
        }
    };
    let interpreted = interpret(&run, &program.kernel, &program.input()).unwrap_or_else(|e| panic!("{name}: {e}"));
    each_thread(&interpreted, "the interpreter");
    let translated = dispatch(common::device(), &run, &program.kernel, &program.input(), Placement::Device)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    each_thread(&translated.buffers, "the translation");
}

/// The texels of `texture` in `RunTexture::texels`' order, texel (x, y, z) of `layer` at `level` being
/// `colour(level, layer, [x, y, z])` (RGBA).
fn painted(texture: &RunTexture, colour: impl Fn(u32, u32, [u32; 3]) -> [f32; 4]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for level in 0..texture.levels {
        let [w, h, d] = texture.extent(level);
        for layer in 0..texture.image_layers() {
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        bytes.extend(colour(level, layer, [x, y, z]).iter().flat_map(|c| c.to_le_bytes()));
                    }
                }
            }
        }
    }
    bytes
}

fn texture(dim: TextureDim, size: [u32; 3], layers: u32, levels: u32) -> RunTexture {
    RunTexture { dim, size, layers, levels }
}

/// A texture of `RunTexture::texels`' fill, for queries.
fn shaped(dim: TextureDim, size: [u32; 3], layers: u32, levels: u32) -> Vec<(RunTexture, Vec<u8>)> {
    vec![(texture(dim, size, layers, levels), Vec::new())]
}

/// texs.cpp's and tex.cpp's 2D texture: four levels of one colour each, (1,1,0,1), (0,1,0,0), (0,0,1,0) and
/// (1,1,1,1); 512 x 512 on the hardware. `black_origin`: tex.cpp's, level 0 (1,0,0,0) but texel (0,0) black.
fn levels_of_colours(black_origin: bool) -> Vec<(RunTexture, Vec<u8>)> {
    let shape = texture(TextureDim::D2, [16, 16, 1], 1, 4);
    let texels = painted(&shape, |level, _, [x, y, _]| match level {
        0 if black_origin => [if x == 0 && y == 0 { 0.0 } else { 1.0 }, 0.0, 0.0, 0.0],
        0 => [1.0, 1.0, 0.0, 1.0],
        1 => [0.0, 1.0, 0.0, 0.0],
        2 => [0.0, 0.0, 1.0, 0.0],
        _ => [1.0; 4],
    });
    vec![(shape, texels)]
}

/// txq.cpp: TEX_HEADER_DIMENSION of a level (R0-R7 hold 0-7; ra names the level's register) gives width,
/// height, depth (or layers) and the texture's levels; past the last level, zeros and the levels. A 1D array's
/// layers are its height; the mask compacts the chosen components into R0 upwards.
#[test]
fn queries_give_each_level_its_dimensions() {
    let presets = set(&(0..8).map(|n| (n, n)).collect::<Vec<_>>());
    let query = |level: u32, mask: u32| format!("{presets}TXQ rd=0 ra={level} query=1 mask={mask} tex=0x52");
    let plane = || shaped(TextureDim::D2, [512, 256, 1], 1, 4);
    check4("txq_2d_level0", &query(0, 15), plane(), [512, 256, 0, 4]);
    check4("txq_2d_level1", &query(1, 15), plane(), [256, 128, 0, 4]);
    check4("txq_2d_past_the_last", &query(4, 15), plane(), [0, 0, 0, 4]);
    let volume = || shaped(TextureDim::D3, [32, 16, 16], 1, 3);
    check4("txq_3d_level1", &query(1, 15), volume(), [16, 8, 8, 3]);
    check4("txq_3d_height", &query(1, 2), volume(), [8, 1, 2, 3]);
    // TXQ.B R0, R0, TEX_HEADER_DIMENSION, 0xc: the handle in R0 (c[2][0], 0), the level in R1.
    let bindless = format!("{presets}MOV.cbuf rd=0 cb_bank=2 cb_offset=0 lanes=15\nTXQ.B rd=0 ra=0 query=1 mask=12");
    check4("txq_b_3d", &bindless, volume(), [8, 3, 2, 3]);
    check4("txq_1d_array", &query(1, 15), shaped(TextureDim::D1, [512, 1, 1], 4, 6), [256, 4, 0, 6]);
}

/// texs.cpp "TEXS swizzle": with rd2 RZ, codes 0-7 write R, G, B, A, RG, RA, GA or BA into rd and rd + 1; with
/// rd2, codes 0-4 write RGB, RGA, RBA, GBA or RGBA, the first two into rd and rd + 1, the rest into rd2 and
/// rd2 + 1. TEXS.LZ at (0.5, 0.5) of level 0, (1,1,0,1); FP16 results pack two components a register.
#[test]
fn scalar_samples_write_their_swizzle() {
    let presets = set(&[(0, 0), (1, 0), (2, 0), (3, 0), (4, HALF), (5, HALF)]);
    let lz = |rd2: u32, swizzle: u32, f32: u32| {
        format!("{presets}TEXS rd=0 ra=4 rb=5 rd2={rd2} tex=0x52 mode=2 swizzle={swizzle} f32={f32}")
    };
    for (name, rd2, swizzle, expected) in [
        ("g", 255, 1, [ONE, 0, 0, 0]),
        ("ba", 255, 7, [0, ONE, 0, 0]),
        ("ra", 255, 5, [ONE, ONE, 0, 0]),
        ("rga", 2, 1, [ONE, ONE, ONE, 0]),
        ("gba", 2, 3, [ONE, 0, ONE, 0]),
        ("rgba", 2, 4, [ONE, ONE, 0, ONE]),
    ] {
        check4(&format!("texs_lz_{name}"), &lz(rd2, swizzle, 1), levels_of_colours(false), expected);
    }
    check4("texs_lz_rgba_fp16", &lz(1, 4, 0), levels_of_colours(false), [0x3c00_3c00, 0x3c00_0000, 0, 0]);
}

/// texs.cpp "TEXS 2D" and "TEXS 2D LL": an explicit level (from rb) picks its colour; without one, a compute
/// shader samples level 0.
#[test]
fn scalar_samples_read_the_level_they_name() {
    for (lod, expected) in [(ONE, [0, ONE, 0, 0]), (0x4040_0000, [ONE; 4])] {
        let presets = set(&[(4, HALF), (5, HALF), (6, lod)]);
        let body = format!("{presets}TEXS rd=0 ra=4 rb=6 rd2=2 tex=0x52 mode=3 swizzle=4 f32=1");
        check4(&format!("texs_ll_{lod:#x}"), &body, levels_of_colours(false), expected);
    }
    let presets = set(&[(4, HALF), (5, HALF)]);
    let body = format!("{presets}TEXS rd=0 ra=4 rb=5 rd2=2 tex=0x52 mode=1 swizzle=4 f32=1");
    check4("texs_2d", &body, levels_of_colours(false), [ONE, ONE, 0, ONE]);
}

/// tex.cpp "TEX Bindless" with masks: TEX.B.LL reads its handle from rb (c[2][0], 0) and the level after it;
/// mask 0xa writes G and A into R0 and R1, 0x3 R and G, the rest of R0-R3 kept. "TEX 2D Lod zero": level 0.
#[test]
fn samples_write_the_components_their_mask_names() {
    let handle = "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15";
    for (r2, r3, mask, expected) in
        [(0, HALF, 10, [ONE, ONE, 0, HALF]), (0x4040_0000, 0, 3, [ONE, ONE, 0x4040_0000, 0])]
    {
        let presets = set(&[(0, 0), (1, 0), (2, r2), (3, r3), (5, 0x4040_0000)]);
        let body = format!("{presets}{handle}\nTEX.B rd=0 ra=0 rb=4 target=2 mask={mask} lod=3");
        check4(&format!("tex_b_ll_mask{mask}"), &body, levels_of_colours(true), expected);
    }
    let body = format!("{}TEX rd=0 ra=0 rb=255 target=2 mask=15 tex=0x52 lod=1", set(&[(0, HALF), (1, HALF)]));
    check4("tex_lz", &body, levels_of_colours(true), [ONE, 0, 0, 0]);
}

/// tex.cpp "TEX 2D array conversion": the layer register of a TEX ARRAY_2D is an integer (F2I.U16 of 1.0 here),
/// picking layer 1 of six, (0,1,0,1).
#[test]
fn array_samples_take_an_integer_layer() {
    let shape = texture(TextureDim::D2, [16, 16, 1], 6, 1);
    let colours = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
    let texels = painted(&shape, |_, layer, _| colours.get(layer as usize).copied().unwrap_or_default());
    let body = format!(
        "{}F2I.reg rd=0 rb=0 dst=1 src=2 ftz=1\nTEX rd=0 ra=0 rb=255 target=3 mask=15 tex=0x52 lod=1",
        set(&[(0, ONE), (1, HALF), (2, HALF)])
    );
    check4("tex_array_2d_f2i_layer", &body, vec![(shape, texels)], [0, ONE, 0, ONE]);
}

/// texs.cpp "TEXS ARRAY_2D": the layer is the low 16 bits of its register, so 0x3f800000 reads layer 0, whose
/// texel (0,0) is black (layer 3's is red).
#[test]
fn array_layers_are_the_low_16_bits_of_their_register() {
    let shape = texture(TextureDim::D2, [16, 16, 1], 4, 1);
    let texels = painted(&shape, |_, layer, [x, y, _]| match layer == 0 && x == 0 && y == 0 {
        true => [0.0; 4],
        false => [1.0, 0.0, 0.0, 1.0],
    });
    let body = format!("{}TEXS rd=0 ra=4 rb=6 rd2=2 tex=0x52 mode=7 swizzle=4 f32=1", set(&[(4, ONE), (5, 0), (6, 0)]));
    check4("texs_array_2d_layer_bits", &body, vec![(shape, texels)], [0; 4]);
}
