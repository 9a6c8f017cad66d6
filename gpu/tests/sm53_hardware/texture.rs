//! nxgpucatch's texture tests (tex.cpp, texs.cpp, txq.cpp): each thread samples or queries a texture and stores
//! R0-R3, which must be the four words the hardware left. nxgpucatch's textures are RGBA8 texels of 0 or 255,
//! which RGBA32F texels of 0.0 and 1.0 stand for exactly under nearest sampling; where a test's content is uniform
//! over a level or layer, the texture here is smaller than the hardware's (sampling at normalized coordinates
//! reads the same colour), and where only its shape matters it holds `RunTexture::texels`' fill. Textures bind
//! at handle slot 0x52 (c[0][0x148]) rather than nxgpucatch's 0x28; c[2][0] is 0, the handle TEX.B reads.
//! `gpu/research/nxgpucatch-textures.md` plans the rest of the port.

use super::{common, hex, set};
use tandem_gpu::sass::corpus::{Placement, RunSurface, RunTexture, dispatch, interpret};
use tandem_gpu::sass::programs::vector_program;
use tandem_gpu::shader::ir::TextureDim;

const ONE: u32 = 0x3f80_0000;
const HALF: u32 = 0x3f00_0000;

/// Runs `body` (which leaves R0-R3) on both paths with `textures` bound and c[2] = [0], and checks every
/// thread's four words against `expected`.
pub(super) fn check4(name: &str, body: &str, textures: Vec<(RunTexture, Vec<u8>)>, expected: [u32; 4]) {
    check_with_surfaces(name, body, textures, Vec::new(), expected);
}

/// `check4` with `surfaces` bound too (their handles after the textures').
pub(super) fn check_with_surfaces(
    name: &str,
    body: &str,
    textures: Vec<(RunTexture, Vec<u8>)>,
    surfaces: Vec<(RunSurface, Vec<u8>)>,
    expected: [u32; 4],
) {
    let zero_bank = vec![(2, vec![0u8; 16])];
    let program =
        vector_program(name, body, textures, surfaces, zero_bank, expected).unwrap_or_else(|e| panic!("{name}: {e}"));
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
    RunTexture { dim, size, layers, levels, array: layers > 1, depth: false }
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

/// A texture of one level of one colour.
fn uniform(dim: TextureDim, size: [u32; 3], layers: u32, colour: [f32; 4]) -> Vec<(RunTexture, Vec<u8>)> {
    uniform_of(texture(dim, size, layers, 1), colour)
}

fn uniform_of(shape: RunTexture, colour: [f32; 4]) -> Vec<(RunTexture, Vec<u8>)> {
    let texels = painted(&shape, |_, _, _| colour);
    vec![(shape, texels)]
}

/// txq.cpp: TEX_HEADER_DIMENSION of a level (R0-R7 hold 0-7; ra names the level's register) gives width,
/// height, depth (or layers; a cube array's cubes) and the texture's levels; past the last level, zeros and the
/// levels. A 1D array's layers are its height; the mask compacts the chosen components into R0 upwards. The
/// 1024 x 512 x 8 array of three levels is 89 MB as RGBA32F, so the query of its levels is left out.
#[test]
fn queries_give_each_level_its_dimensions() {
    let presets = set(&(0..8).map(|n| (n, n)).collect::<Vec<_>>());
    let query = |level: u32, mask: u32| format!("{presets}TXQ rd=0 ra={level} query=1 mask={mask} tex=0x52");
    let bindless = |mask: u32| {
        format!("{presets}MOV.cbuf rd=0 cb_bank=2 cb_offset=0 lanes=15\nTXQ.B rd=0 ra=0 query=1 mask={mask}")
    };
    type Shape = (&'static str, TextureDim, [u32; 3], u32, u32);
    let shapes: [(Shape, &[[u32; 4]]); 6] = [
        (
            ("1d", TextureDim::D1, [512, 1, 1], 1, 6),
            &[
                [512, 0, 0, 6],
                [256, 0, 0, 6],
                [128, 0, 0, 6],
                [64, 0, 0, 6],
                [32, 0, 0, 6],
                [16, 0, 0, 6],
                [0, 0, 0, 6],
            ],
        ),
        (
            ("array_1d", TextureDim::D1, [512, 1, 1], 4, 6),
            &[
                [512, 4, 0, 6],
                [256, 4, 0, 6],
                [128, 4, 0, 6],
                [64, 4, 0, 6],
                [32, 4, 0, 6],
                [16, 4, 0, 6],
                [0, 0, 0, 6],
            ],
        ),
        (
            ("2d", TextureDim::D2, [512, 256, 1], 1, 4),
            &[[512, 256, 0, 4], [256, 128, 0, 4], [128, 64, 0, 4], [64, 32, 0, 4], [0, 0, 0, 4]],
        ),
        (("3d", TextureDim::D3, [32, 16, 16], 1, 3), &[[32, 16, 16, 3], [16, 8, 8, 3], [8, 4, 4, 3], [0, 0, 0, 3]]),
        (("cube", TextureDim::Cube, [32, 32, 1], 1, 3), &[[32, 32, 0, 3], [16, 16, 0, 3], [8, 8, 0, 3], [0, 0, 0, 3]]),
        (
            ("array_cube", TextureDim::Cube, [32, 32, 1], 6, 3),
            &[[32, 32, 6, 3], [16, 16, 6, 3], [8, 8, 6, 3], [0, 0, 0, 3]],
        ),
    ];
    for ((name, dim, size, layers, levels), answers) in shapes {
        for (level, &expected) in answers.iter().enumerate() {
            let textures = shaped(dim, size, layers, levels);
            check4(&format!("txq_{name}_level{level}"), &query(level as u32, 15), textures, expected);
        }
    }
    let volume = || shaped(TextureDim::D3, [32, 16, 16], 1, 3);
    // Level 1 (R1) of the 3D texture, one component each; TXQ.B's handle in R0 (c[2][0], 0), the level in R1.
    for (mask, expected) in [(1, [16, 1, 2, 3]), (2, [8, 1, 2, 3]), (4, [8, 1, 2, 3]), (8, [3, 1, 2, 3])] {
        check4(&format!("txq_3d_mask{mask}"), &query(1, mask), volume(), expected);
    }
    for (mask, expected) in [(15, [16, 8, 8, 3]), (3, [16, 8, 2, 3]), (12, [8, 3, 2, 3])] {
        check4(&format!("txq_b_3d_mask{mask}"), &bindless(mask), volume(), expected);
    }
}

/// `TEXS rd2, rd, ra, rb, 0x52, MODE, SWIZZLE` after texs.cpp's presets (R0-R3 zero, R4 = R5 = 0.5) and `set`
/// (modes: 1 2D, 2 2D.LZ, 3 2D.LL, 7 ARRAY_2D, 8 ARRAY_2D.LZ, 10 3D, 11 3D.LZ, 12 CUBE, 13 CUBE.LL).
fn texs(set_first: &[(u32, u32)], rd2: u32, rb: u32, mode: u32, swizzle: u32, f32: bool) -> String {
    let presets = set(&[(0, 0), (1, 0), (2, 0), (3, 0), (4, HALF), (5, HALF)]);
    let f32 = u32::from(f32);
    format!(
        "{presets}{}TEXS rd=0 ra=4 rb={rb} rd2={rd2} tex=0x52 mode={mode} swizzle={swizzle} f32={f32}",
        set(set_first)
    )
}

/// texs.cpp "TEXS swizzle" and "TEXS fp16 swizzle": with rd2 RZ, codes 0-7 write R, G, B, A, RG, RA, GA or BA
/// into rd and rd + 1; with rd2, codes 0-4 write RGB, RGA, RBA, GBA or RGBA, the first two into rd and rd + 1,
/// the rest into rd2 and rd2 + 1. TEXS.LZ at (0.5, 0.5) of level 0, (1,1,0,1). FP16 results pack two components
/// a register, the first low, so rd2 is R1 there.
#[test]
fn scalar_samples_write_their_swizzle() {
    let (yes, no, h) = (ONE, 0, 0x3c00);
    for (name, rd2, swizzle, expected, halves) in [
        ("r", 255, 0, [yes, no, no, no], [h, 0]),
        ("g", 255, 1, [yes, no, no, no], [h, 0]),
        ("b", 255, 2, [no, no, no, no], [0, 0]),
        ("a", 255, 3, [yes, no, no, no], [h, 0]),
        ("rg", 255, 4, [yes, yes, no, no], [h | h << 16, 0]),
        ("ra", 255, 5, [yes, yes, no, no], [h | h << 16, 0]),
        ("ga", 255, 6, [yes, yes, no, no], [h | h << 16, 0]),
        ("ba", 255, 7, [no, yes, no, no], [h << 16, 0]),
        ("rgb", 2, 0, [yes, yes, no, no], [h | h << 16, 0]),
        ("rga", 2, 1, [yes, yes, yes, no], [h | h << 16, h]),
        ("rba", 2, 2, [yes, no, yes, no], [h, h]),
        ("gba", 2, 3, [yes, no, yes, no], [h, h]),
        ("rgba", 2, 4, [yes, yes, no, yes], [h | h << 16, h << 16]),
    ] {
        check4(&format!("texs_lz_{name}"), &texs(&[], rd2, 5, 2, swizzle, true), levels_of_colours(false), expected);
        let rd2 = if rd2 == 255 { 255 } else { 1 };
        let body = texs(&[], rd2, 5, 2, swizzle, false);
        check4(&format!("texs_lz_{name}_fp16"), &body, levels_of_colours(false), [halves[0], halves[1], 0, 0]);
    }
}

/// texs.cpp "TEXS 2D": an explicit level (TEXS.LL's rb) picks its colour; without one, a compute shader samples
/// level 0. "TEXS 3D" and "TEXS CUBE": x = y = z picks the +Z face (4), whose level 1 alone is blue (nxgpucatch
/// fills levels as if packed level after level, where a cube's faces hold all their levels one after another:
/// faces 0-3 are yellow throughout, face 5 blue).
#[test]
fn scalar_samples_read_the_level_they_name() {
    let rgba = |rd2, rb, mode, set_first: &[(u32, u32)]| texs(set_first, rd2, rb, mode, 4, true);
    check4("texs_2d", &rgba(2, 5, 1, &[]), levels_of_colours(false), [ONE, ONE, 0, ONE]);
    check4("texs_2d_lz", &rgba(2, 5, 2, &[]), levels_of_colours(false), [ONE, ONE, 0, ONE]);
    for (lod, expected) in
        [(0, [ONE, ONE, 0, ONE]), (ONE, [0, ONE, 0, 0]), (0x4000_0000, [0, 0, ONE, 0]), (0x4040_0000, [ONE; 4])]
    {
        check4(&format!("texs_ll_{lod:#x}"), &rgba(2, 6, 3, &[(6, lod)]), levels_of_colours(false), expected);
    }
    let yellow = [1.0, 1.0, 0.0, 1.0];
    for (name, mode) in [("texs_3d", 10), ("texs_3d_lz", 11)] {
        let volume = uniform(TextureDim::D3, [8, 8, 8], 1, yellow);
        check4(name, &rgba(2, 6, mode, &[(6, HALF)]), volume, [ONE, ONE, 0, ONE]);
    }
    let cube = texture(TextureDim::Cube, [16, 16, 1], 1, 2);
    let faces = painted(&cube, |level, face, _| match (face, level) {
        (0..4, _) | (4, 0) => yellow,
        _ => [0.0, 0.0, 1.0, 1.0],
    });
    let cube = || vec![(cube, faces.clone())];
    check4("texs_cube", &rgba(2, 6, 12, &[(6, HALF)]), cube(), [ONE, ONE, 0, ONE]);
    check4("texs_cube_ll0", &rgba(2, 6, 13, &[(6, HALF), (7, 0)]), cube(), [ONE, ONE, 0, ONE]);
    check4("texs_cube_ll1", &rgba(2, 6, 13, &[(6, HALF), (7, ONE)]), cube(), [0, 0, ONE, ONE]);
}

/// texs.cpp "TEXS ARRAY_2D": ra holds the layer and x, rb y. The layer is the low 16 bits of its register, so
/// 0x3f800000 reads layer 0, whose texel (0,0) is black (layer 3's is red).
#[test]
fn array_layers_are_the_low_16_bits_of_their_register() {
    let shape = texture(TextureDim::D2, [16, 16, 1], 4, 1);
    let texels = painted(&shape, |_, layer, [x, y, _]| match layer == 0 && x == 0 && y == 0 {
        true => [0.0; 4],
        false => [1.0, 0.0, 0.0, 0.0],
    });
    let red = [ONE, 0, 0, 0];
    for (name, mode, layer, x, y, expected) in [
        ("origin", 7, 0, 0, 0, [0; 4]),
        ("layer1", 7, 1, 0, 0, red),
        ("layer_bits", 7, ONE, 0, 0, [0; 4]),
        ("x", 7, 0, HALF, 0, red),
        ("y", 7, 0, 0, HALF, red),
        ("y_lz", 8, 0, 0, HALF, red),
    ] {
        let body = texs(&[(4, layer), (5, x), (6, y)], 2, 6, mode, 4, true);
        check4(&format!("texs_array_2d_{name}"), &body, vec![(shape, texels.clone())], expected);
    }
}

/// tex.cpp "TEX 2D": TEX.LL (the level after the coordinates) and TEX.LZ; TEX.B reads its handle from rb
/// (c[2][0], 0) and the level after it. The mask picks components that go to R0 upwards, the rest of R0-R3
/// kept.
#[test]
fn samples_write_the_components_their_mask_names() {
    let at_centre = set(&[(0, HALF), (1, HALF), (2, 0x4000_0000)]);
    let body = format!("{at_centre}TEX rd=0 ra=0 rb=2 target=2 mask=15 tex=0x52 lod=3");
    check4("tex_ll", &body, levels_of_colours(true), [0, 0, ONE, 0]);
    let body = format!("{at_centre}TEX rd=0 ra=0 rb=255 target=2 mask=15 tex=0x52 lod=1");
    check4("tex_lz", &body, levels_of_colours(true), [ONE, 0, 0, 0]);
    let handle = "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15";
    let body =
        format!("{at_centre}MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nTEX.B rd=0 ra=0 rb=2 target=2 mask=15 lod=1");
    check4("tex_b_lz", &body, levels_of_colours(true), [ONE, 0, 0, 0]);
    for (r2, r3, mask, expected) in [
        (0, 0, 15, [ONE; 4]),
        (0, 0, 7, [ONE, ONE, ONE, 0]),
        (0, HALF, 10, [ONE, ONE, 0, HALF]),
        (0, 0, 1, [ONE, 0, 0, 0]),
        (0x4040_0000, 0, 3, [ONE, ONE, 0x4040_0000, 0]),
    ] {
        let presets = set(&[(0, 0), (1, 0), (2, r2), (3, r3), (5, 0x4040_0000)]);
        let body = format!("{presets}{handle}\nTEX.B rd=0 ra=0 rb=4 target=2 mask={mask} lod=3");
        check4(&format!("tex_b_ll_mask{mask}"), &body, levels_of_colours(true), expected);
    }
}

/// tex.cpp "TEX 2D array regular conversion": the layer register of a TEX ARRAY_2D is an integer (F2I.U16 of
/// 1.0 and 2.0 here), picking layer 1 (0,1,0,1) or 2 (0,0,1,1) of six. "TEX Cube": the +Z face at x = y = z.
#[test]
fn array_and_cube_samples() {
    let shape = texture(TextureDim::D2, [16, 16, 1], 6, 1);
    let colours = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
    let texels = painted(&shape, |_, layer, _| colours.get(layer as usize).copied().unwrap_or_default());
    for (layer, expected) in [(ONE, [0, ONE, 0, ONE]), (0x4000_0000, [0, 0, ONE, ONE])] {
        let body = format!(
            "{}F2I.reg rd=0 rb=0 dst=1 src=2 ftz=1\nTEX rd=0 ra=0 rb=255 target=3 mask=15 tex=0x52 lod=1",
            set(&[(0, layer), (1, HALF), (2, HALF)])
        );
        check4(&format!("tex_array_2d_f2i_{layer:#x}"), &body, vec![(shape, texels.clone())], expected);
    }
    let magenta = uniform(TextureDim::Cube, [8, 8, 1], 1, [1.0, 0.0, 1.0, 1.0]);
    let body =
        format!("{}TEX rd=0 ra=0 rb=255 target=6 mask=15 tex=0x52 lod=1", set(&[(0, HALF), (1, HALF), (2, HALF)]));
    check4("tex_cube_lz", &body, magenta, [ONE, 0, ONE, ONE]);
}

/// tex.cpp "TEX 1D Array", "TEX 2D Array", "TEX 3D", "TEX Cube" and texs.cpp "TEXS 2D": the instruction's
/// dimension against the header's. A non-array read of an array reads layer 0, an array read of a non-array
/// texture its one layer (a cube read as a cube array, layer 0); a read of another dimension reads zeros.
#[test]
fn reads_of_another_shape_read_layer_0_or_zeros() {
    let yellow = [1.0, 1.0, 0.0, 1.0];
    let magenta = [1.0, 0.0, 1.0, 1.0];
    let tex = |target: u32, registers: &[(u32, u32)]| {
        format!("{}TEX rd=0 ra=0 rb=255 target={target} mask=15 tex=0x52 lod=1", set(registers))
    };
    let lines = || uniform(TextureDim::D1, [16, 1, 1], 4, yellow);
    check4("tex_1d_of_1d_array", &tex(0, &[(0, HALF), (1, 0)]), lines(), [ONE, ONE, 0, ONE]);
    check4("tex_array_1d_of_1d_array", &tex(1, &[(0, HALF), (1, 0)]), lines(), [ONE, ONE, 0, ONE]);
    check4("tex_2d_of_1d_array", &tex(2, &[(0, HALF), (1, 0)]), lines(), [0; 4]);
    let one_layer = || uniform_of(RunTexture { array: true, ..texture(TextureDim::D2, [16, 16, 1], 1, 1) }, yellow);
    check4("tex_2d_of_2d_array", &tex(2, &[(0, HALF), (1, HALF)]), one_layer(), [ONE, ONE, 0, ONE]);
    check4("tex_array_2d_of_2d_array", &tex(3, &[(0, 0), (1, HALF), (2, HALF)]), one_layer(), [ONE, ONE, 0, ONE]);
    check4("tex_cube_of_2d_array", &tex(6, &[(0, 0), (1, HALF), (2, HALF)]), one_layer(), [0; 4]);
    let volume = || uniform(TextureDim::D3, [8, 8, 8], 1, magenta);
    let centre = [(0, HALF), (1, HALF), (2, HALF)];
    check4("tex_3d", &tex(4, &centre), volume(), [ONE, 0, ONE, ONE]);
    check4("tex_2d_of_3d", &tex(2, &centre), volume(), [0; 4]);
    let cube = uniform(TextureDim::Cube, [8, 8, 1], 1, magenta);
    check4("tex_array_cube_of_cube", &tex(7, &[(0, 0), (1, HALF), (2, HALF), (3, HALF)]), cube, [ONE, 0, ONE, ONE]);
    let body = texs(&[], 2, 255, 0, 4, true);
    check4("texs_1d_of_2d", &body, levels_of_colours(false), [0; 4]);
}

/// tex.cpp "TEX 2D" "Lod explicit LLA", "Lod bias" and "Lod bias LBA": LLA reads the level it names as LL does;
/// a compute thread's bias is not applied (its quad has no derivatives: the implicit level is -inf), so LB and
/// LBA with a bias of 2 read level 0.
#[test]
fn compute_samples_ignore_their_bias() {
    for (name, lod, level, expected) in [
        ("tex_lla", 7, ONE, [0, ONE, 0, 0]),
        ("tex_lb", 2, 0x4000_0000, [ONE, 0, 0, 0]),
        ("tex_lba", 6, 0x4000_0000, [ONE, 0, 0, 0]),
    ] {
        let body = format!(
            "{}TEX rd=0 ra=0 rb=2 target=2 mask=15 tex=0x52 lod={lod}",
            set(&[(0, HALF), (1, HALF), (2, level)])
        );
        check4(name, &body, levels_of_colours(true), expected);
    }
}

/// tex.cpp "TEX 2D" with AOFFI: the offsets register (x in bits 3:0) follows the level, moving the sample one
/// texel right of the black (0,0) onto red; an ARRAY_2D read of the 2D texture (layer 0) does the same, a 3D
/// read reads zeros (then R3 + 1 is 1). Bindless: the handle, the level, then the offsets after rb. "Bindless +
/// sparse predicate": the fault predicate of a resident texture is cleared.
#[test]
fn samples_move_by_their_texel_offsets() {
    let offset =
        |target: u32, at: u32| format!("TEX rd=0 ra=0 rb={at} target={target} mask=15 tex=0x52 aoffi=1 lod=3\n");
    let zeros = [(0, 0), (1, 0), (2, 0), (3, 0)];
    let red = [ONE, 0, 0, 0];
    let body = format!("{}{}", set(&[(0, 0), (1, 0), (2, 0), (3, 1)]), offset(2, 2));
    check4("tex_aoffi_ll", &body, levels_of_colours(true), red);
    let presets = set(&[zeros.as_slice(), &[(4, 0), (5, 1)]].concat());
    check4("tex_aoffi_ll_array_2d", &format!("{presets}{}", offset(3, 4)), levels_of_colours(true), red);
    let body = format!("{presets}{}FADD.imm rd=3 ra=3 imm20=0x3f800 ftz=1", offset(4, 4));
    check4("tex_aoffi_ll_3d", &body, levels_of_colours(true), [0, 0, 0, ONE]);
    let bindless = format!(
        "{}MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nTEX.B rd=0 ra=0 rb=4 target=2 mask=15 aoffi=1 lod=3",
        set(&[(0, 0), (1, 0), (5, 0), (6, 1)])
    );
    check4("tex_b_aoffi_ll", &bindless, levels_of_colours(true), red);
    let sparse = format!(
        "{}MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15
ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp=7 signed=1
TEX.B fault=0 rd=0 ra=0 rb=4 target=2 mask=15 aoffi=1 lod=3
MOV32I rd=3 imm32=0x40400000 lanes=15 pg=0
MOV32I rd=3 imm32=0xc0400000 lanes=15 pg=0 pg_not=1",
        set(&[(0, 0), (1, 0), (5, 0), (6, 1)])
    );
    check4("tex_b_fault_predicate", &sparse, levels_of_colours(true), [ONE, 0, 0, 0xc040_0000]);
}

/// A depth texture (D32_SFLOAT, nxgpucatch's ZF32) whose texels at each level and layer are `depth(level, layer)`.
fn depths(shape: RunTexture, depth: impl Fn(u32, u32) -> f32) -> Vec<(RunTexture, Vec<u8>)> {
    let shape = RunTexture { depth: true, ..shape };
    let mut bytes = Vec::new();
    for level in 0..shape.levels {
        let [w, h, d] = shape.extent(level);
        for layer in 0..shape.image_layers() {
            bytes.extend(std::iter::repeat_n(depth(level, layer).to_le_bytes(), (w * h * d) as usize).flatten());
        }
    }
    vec![(shape, bytes)]
}

/// tex.cpp "TEX 2D DC" and "TEX Cube Array DC", texs.cpp "TEXS 2D DC" and "TEXS ARRAY_2D DC": a depth compare
/// (`reference < texel`, nxgpucatch's sampler) gives the result in R, G and B and 1.0 in A. The reference follows
/// the coordinates (TEX: after the level; TEXS.DC and LZ.DC: rb, the next register unused). Depths: 0.7 at level
/// 0 (of a cube array: its first cube), 0.3 at level 1 of the TEXS texture, zeros elsewhere.
#[test]
fn depth_compares_fill_rgb_with_the_result() {
    const O8: u32 = 0x3f4c_cccd; // 0.8
    const O6: u32 = 0x3f19_999a; // 0.6
    let (pass, fail) = ([ONE; 4], [0, 0, 0, ONE]);
    let level0 = |shape: RunTexture| depths(shape, |level, layer| if level == 0 && layer < 6 { 0.7 } else { 0.0 });
    let plane = || level0(texture(TextureDim::D2, [16, 16, 1], 1, 2));
    for (reference, expected) in [(HALF, pass), (ONE, fail)] {
        let presets = set(&[(0, reference), (1, 0), (2, ONE), (3, 0), (4, HALF), (5, HALF)]);
        let body = format!("{presets}TEX rd=0 ra=4 rb=0 target=2 mask=15 tex=0x52 dc=1 lod=1");
        check4(&format!("tex_dc_{reference:#x}"), &body, plane(), expected);
        let presets = set(&[(0, 0), (1, HALF), (2, HALF), (3, HALF), (4, reference)]);
        let body = format!("{presets}TEX rd=0 ra=0 rb=4 target=7 mask=15 tex=0x52 dc=1 lod=1");
        check4(
            &format!("tex_array_cube_dc_{reference:#x}"),
            &body,
            level0(texture(TextureDim::Cube, [8, 8, 1], 6, 1)),
            expected,
        );
    }
    let levels = || {
        let shape = texture(TextureDim::D2, [16, 16, 1], 1, 4);
        depths(shape, |level, _| [0.7, 0.3].get(level as usize).copied().unwrap_or(0.0))
    };
    for (name, mode, swizzle, registers, expected) in [
        ("texs_dc_0.8", 4, 4, [(6, O8), (7, 0)], fail),
        ("texs_dc_0.6", 4, 4, [(6, O6), (7, 0)], pass),
        ("texs_lz_dc_0.6", 6, 4, [(6, O6), (7, 0)], pass),
        ("texs_lz_dc_r6", 6, 4, [(6, ONE), (7, O6)], fail),
        ("texs_lz_dc_r7_zero", 6, 4, [(6, ONE), (7, 0)], fail),
        ("texs_lz_dc_gba", 6, 3, [(6, ONE), (7, O6)], [0, 0, ONE, 0]),
    ] {
        check4(name, &texs(&registers, 2, 6, mode, swizzle, true), levels(), expected);
    }
    let layers = || level0(texture(TextureDim::D2, [16, 16, 1], 4, 1));
    let body = texs(&[(6, HALF), (4, 0), (6, O8)], 2, 6, 4, 4, true);
    check4("texs_dc_of_array_0.8", &body, layers(), fail);
    let body = texs(&[(6, HALF), (4, 0), (7, O6)], 2, 6, 4, 4, true);
    check4("texs_dc_of_array_0.5", &body, layers(), pass);
}
