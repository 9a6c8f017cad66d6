//! nxgpucatch's texel fetches (tld.cpp, tlds.cpp): TLD and TLDS of random RGBA8 textures (`deko3d`), each thread
//! storing R0-R3, which must be the four words the hardware left. The textures here are the hardware's top-left
//! corners (`DkTexture::corner`), which hold every texel the vectors read. Left out: reads past nxgpucatch's
//! memory block (TLD.LL of levels 4 and 5 at (2,1) of the 512 x 256 texture, TLDS.LL of level 2 of the 1D one),
//! TLD of x = -1 (undefined in Vulkan without robustImageAccess2) and multisampled fetches.

use super::deko3d::{DkTexture, Kind};
use super::set;
use super::texture::check4;

const ONE: u32 = 0x3f80_0000;

/// RGBA of 0.0 and 1.0 from nxgpucatch's `Color{...}` of 0s and 1s.
fn colour(rgba: [u8; 4]) -> [u32; 4] {
    rgba.map(|c| if c == 1 { ONE } else { 0 })
}

/// `texture`'s corner of `corner` texels filled by `fill` (its seed), and each vector: the registers it sets,
/// its fetch, and the colour it reads.
fn run(name: &str, texture: DkTexture, corner: [u32; 3], heap: Vec<u8>, vectors: &[(&[(u32, u32)], &str, [u8; 4])]) {
    let bound = texture.corner(&heap, corner);
    for (index, (registers, fetch, expected)) in vectors.iter().enumerate() {
        let body = format!("{}{fetch}", set(registers));
        check4(&format!("{name}_{index}"), &body, vec![bound.clone()], colour(*expected));
    }
}

/// tld.cpp: TLD.LZ and TLD.LL of 1D, 1D array, 2D, 2D array and 3D textures (the layer first, then x, y, z;
/// TLD.LL's level after them in rb), TLD.B (the handle first in rb) and AOFFI's 4-bit offsets (x in bits 3:0,
/// y in 7:4) after the level.
#[test]
fn texel_fetches_read_the_hardware_texels() {
    let tld =
        |target: u32, rb: u32, extra: &str| format!("TLD rd=0 ra=0 rb={rb} target={target} mask=15 tex=0x52 {extra}");
    let line = DkTexture { kind: Kind::D1, width: 512, height: 1, depth: 1, levels: 4, samples: 1 };
    let heap = line.random_bytes(129_034);
    run(
        "tld_1d",
        line,
        [64, 1, 1],
        heap,
        &[(&[(0, 3)], &tld(0, 255, ""), [0, 0, 0, 0]), (&[(0, 17)], &tld(0, 255, ""), [1, 0, 0, 1])],
    );
    let lines = || DkTexture { kind: Kind::D1Array, width: 512, height: 17, depth: 1, levels: 4, samples: 1 };
    let array_1d: &[(&[(u32, u32)], &str, [u8; 4])] = &[
        (&[(0, 3), (1, 5)], &tld(1, 255, ""), [1, 0, 0, 1]),
        (&[(0, 3), (1, 6)], &tld(1, 255, ""), [0, 1, 1, 1]),
        (&[(0, 3), (1, 7)], &tld(1, 255, ""), [0, 0, 0, 1]),
    ];
    run("tld_array_1d", lines(), [64, 1, 1], lines().random_bytes(129_034), array_1d);
    let handle = "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nTLD.B rd=0 ra=0 rb=4 target=1 mask=15";
    let bindless: &[(&[(u32, u32)], &str, [u8; 4])] =
        &[(&[(0, 3), (1, 5)], handle, [1, 0, 0, 1]), (&[(0, 3), (1, 6)], handle, [0, 1, 1, 1])];
    run("tld_b_array_1d", lines(), [64, 1, 1], lines().random_bytes(129_034), bindless);
    let plane = DkTexture { kind: Kind::D2, width: 512, height: 256, depth: 1, levels: 6, samples: 1 };
    let heap = plane.random_bytes(129_034);
    let at = |x: u32, y: u32| [(0, x), (1, y), (2, 4)];
    run(
        "tld_2d",
        plane,
        [64, 32, 1],
        heap,
        &[
            (&at(3, 5), &tld(2, 255, ""), [1, 0, 1, 1]),
            (&at(6, 7), &tld(2, 255, ""), [1, 0, 0, 1]),
            (&at(4, 8), &tld(2, 255, ""), [1, 1, 0, 1]),
            (&at(2, 1), &tld(2, 255, ""), [0, 1, 1, 0]),
            (&[(0, 2), (1, 1), (2, 3)], &tld(2, 2, "lod=1"), [1, 0, 1, 0]),
        ],
    );
    let layers = DkTexture { kind: Kind::D2Array, width: 512, height: 256, depth: 8, levels: 6, samples: 1 };
    let heap = layers.random_bytes(4142);
    run(
        "tld_array_2d",
        layers,
        [64, 32, 1],
        heap,
        &[
            (&at(3, 5), &tld(3, 255, ""), [0, 0, 0, 0]),
            (&at(6, 7), &tld(3, 255, ""), [0, 0, 1, 0]),
            (&at(4, 8), &tld(3, 255, ""), [1, 1, 0, 1]),
            (&[(0, 2), (1, 1), (2, 5)], &tld(3, 255, ""), [0, 0, 1, 0]),
        ],
    );
    let volume = DkTexture { kind: Kind::D3, width: 32, height: 32, depth: 32, levels: 6, samples: 1 };
    let heap = volume.random_bytes(4142);
    run(
        "tld_3d",
        volume,
        [32, 32, 32],
        heap,
        &[
            (&at(3, 5), &tld(4, 255, ""), [0, 1, 0, 1]),
            (&at(6, 7), &tld(4, 255, ""), [1, 0, 0, 0]),
            (&at(4, 8), &tld(4, 255, ""), [0, 0, 1, 0]),
            (&[(0, 2), (1, 1), (2, 5)], &tld(4, 255, ""), [0, 1, 1, 0]),
        ],
    );
    let square = DkTexture { kind: Kind::D2, width: 512, height: 512, depth: 1, levels: 6, samples: 1 };
    let heap = square.random_bytes(1);
    let offset = |packed: u32| [(0, 32), (1, 32), (4, packed)];
    let with_level = |level: u32| [(0, 32), (1, 32), (4, level), (5, 3)];
    run(
        "tld_aoffi",
        square,
        [256, 256, 1],
        heap,
        &[
            (&offset(0), &tld(2, 4, "aoffi=1"), [0, 1, 0, 0]),
            (&offset(0xff), &tld(2, 4, "aoffi=1"), [1, 0, 0, 0]),
            (&offset(3), &tld(2, 4, "aoffi=1"), [1, 0, 0, 1]),
            (&with_level(0), &tld(2, 4, "aoffi=1 lod=1"), [1, 0, 0, 1]),
            (&with_level(1), &tld(2, 4, "aoffi=1 lod=1"), [1, 1, 1, 0]),
            (&with_level(2), &tld(2, 4, "aoffi=1 lod=1"), [1, 0, 1, 0]),
        ],
    );
}

/// tld.cpp "TLD Mask": the mask's components go to R0 upwards (R of texel (3,0) is 0, G 1, B 0, A 1; the
/// hardware's vectors name R0, and R1 of mask 0x5), the other registers kept. "TLD Sparse": TLD.B's fault
/// predicate of a resident texture is cleared (here with mask 0x1, where nxgpucatch's writes all four and checks
/// R0 alone).
#[test]
fn fetch_masks_and_fault_predicates() {
    let plane = DkTexture { kind: Kind::D2, width: 512, height: 256, depth: 1, levels: 6, samples: 1 };
    let heap = plane.random_bytes(123);
    let masked = |mask: u32| format!("TLD rd=0 ra=0 rb=255 target=2 mask={mask} tex=0x52");
    let (m1, m2, m4, m8, m5) = (masked(1), masked(2), masked(4), masked(8), masked(5));
    let at: &[(u32, u32)] = &[(0, 3), (1, 0)];
    run(
        "tld_mask",
        plane,
        [64, 32, 1],
        heap,
        &[
            (at, &m1, [0, 0, 0, 0]),
            (at, &m2, [1, 0, 0, 0]),
            (at, &m4, [0, 0, 0, 0]),
            (at, &m8, [1, 0, 0, 0]),
            (at, &m5, [0, 0, 0, 0]),
        ],
    );
    let lines = DkTexture { kind: Kind::D1Array, width: 512, height: 17, depth: 1, levels: 4, samples: 1 };
    let bound = lines.corner(&lines.random_bytes(42), [64, 1, 1]);
    let body = format!(
        "{}MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15
ISETP.reg pd=3 pq=7 ra=255 rb=255 cmp=7 signed=1
TLD.B fault=3 rd=0 ra=0 rb=4 target=1 mask=1
FADD.imm rd=0 ra=255 imm20=0x40000 ftz=1 pg=3
FADD.imm rd=0 ra=255 imm20=0x40800 ftz=1 pg=3 pg_not=1",
        set(&[(0, 3), (1, 5)])
    );
    check4("tld_b_fault_predicate", &body, vec![bound], [0x4080_0000, 5, 0, 0]);
}

/// tlds.cpp: TLDS of a 1D texture (mode 0: x in ra), of a 2D array's layer 0 (mode 2: x in ra, y in rb; 4 with
/// AOFFI's offsets in rb; 5 and 12 with the level in rb, then the offsets), of a layer (mode 8: the layer in ra,
/// x and y in rb and rb + 1) and of a 3D texture (mode 7: x, y in ra, ra + 1, z in rb). Texels from one draw
/// each (`DkTexture::random_bits`).
#[test]
fn scalar_fetches_read_the_hardware_texels() {
    let tlds =
        |ra: u32, rb: u32, mode: u32| format!("TLDS rd=0 ra={ra} rb={rb} rd2=2 tex=0x52 mode={mode} swizzle=4 f32=1");
    let line = DkTexture { kind: Kind::D1, width: 256, height: 1, depth: 1, levels: 4, samples: 1 };
    let heap = line.random_bits(534);
    run("tlds_1d", line, [64, 1, 1], heap, &[(&[(0, 3), (1, 2)], &tlds(0, 255, 0), [0, 1, 1, 1])]);
    let layers = DkTexture { kind: Kind::D2Array, width: 1024, height: 1024, depth: 4, levels: 5, samples: 1 };
    let heap = layers.random_bits(450);
    run(
        "tlds_2d",
        layers,
        [64, 64, 1],
        heap,
        &[
            (&[(0, 3), (1, 2)], &tlds(0, 1, 2), [0, 1, 0, 0]),
            (&[(0, 3), (1, 2), (2, 0xffff)], &tlds(0, 2, 4), [1, 1, 1, 0]),
            (&[(0, 3), (1, 2), (2, 4)], &tlds(0, 2, 5), [1, 1, 1, 0]),
            (&[(0, 3), (1, 2), (2, 4), (3, 0xff)], &tlds(0, 2, 12), [0, 0, 1, 0]),
            (&[(0, 3), (1, 2), (2, 1)], &tlds(2, 0, 8), [1, 0, 0, 1]),
        ],
    );
    let volume = DkTexture { kind: Kind::D3, width: 32, height: 32, depth: 32, levels: 2, samples: 1 };
    let heap = volume.random_bits(49);
    run(
        "tlds_3d",
        volume,
        [32, 32, 32],
        heap,
        &[
            (&[(0, 3), (1, 2), (2, 7)], &tlds(0, 2, 7), [1, 1, 0, 1]),
            (&[(0, 19), (1, 5), (2, 3)], &tlds(0, 2, 7), [1, 0, 1, 1]),
        ],
    );
}

/// tlds.cpp "TLDS 2D MS" and tld.cpp "TLD Multisample": the eight samples of texel (3,2) of a 256 x 256 texture
/// (TLDS.MS, mode 6: x, y in ra, ra + 1, the sample in rb) and two of (3,5) of a 64 x 64 one (TLD.B.MS: the
/// handle, then the sample, in rb). Each pixel's samples lie in a 4x2 block in the order Tandem's table of
/// 4X2_D3D gives, which these vectors check.
#[test]
fn multisample_fetches_read_each_sample() {
    let texture = DkTexture { kind: Kind::D2, width: 256, height: 256, depth: 1, levels: 1, samples: 8 };
    let heap = texture.random_bits(534);
    let tlds = "TLDS rd=0 ra=0 rb=2 rd2=2 tex=0x52 mode=6 swizzle=4 f32=1";
    let expected = [
        [1, 0, 0, 0],
        [1, 0, 1, 1],
        [0, 1, 0, 1],
        [0, 1, 0, 0],
        [1, 1, 1, 0],
        [0, 1, 1, 1],
        [0, 0, 0, 0],
        [0, 1, 1, 0],
    ];
    let registers: Vec<[(u32, u32); 3]> = (0..8).map(|sample| [(0, 3), (1, 2), (2, sample)]).collect();
    let vectors: Vec<(&[(u32, u32)], &str, [u8; 4])> =
        registers.iter().zip(expected).map(|(registers, colour)| (registers.as_slice(), tlds, colour)).collect();
    run("tlds_ms", texture, [16, 16, 1], heap, &vectors);
    let texture = DkTexture { kind: Kind::D2, width: 64, height: 64, depth: 1, levels: 1, samples: 8 };
    let heap = texture.random_bytes(46);
    let tld = "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nTLD.B rd=0 ra=0 rb=4 target=2 mask=15 ms=1";
    run(
        "tld_ms",
        texture,
        [16, 16, 1],
        heap,
        &[(&[(5, 0), (0, 3), (1, 5)], tld, [1, 1, 0, 0]), (&[(5, 4), (0, 3), (1, 5)], tld, [0, 1, 1, 0])],
    );
}

/// suldst.cpp "SULD": loads of texel (1,3) (R4, R5) of a random 128 x 128 RGBA8 surface, bound (slot 0x52) or
/// through a register holding its handle (c[2][0], 0). Formatted (SULD.P: R, RG, RGBA) the texel's components
/// come as FP32 numbers, bound here as the 32-bit channels of an RGBA32 surface holding them (what a formatted
/// load leaves, as RGBA32F textures stand for RGBA8 ones); direct (SULD.D.32) its four bytes as they are.
#[test]
fn surface_loads_read_the_hardware_texels() {
    use tandem_gpu::sass::corpus::RunSurface;
    use tandem_gpu::sass::exec::SurfaceFormat;
    use tandem_gpu::shader::ir::TextureDim;
    let plane = DkTexture { kind: Kind::D2, width: 128, height: 128, depth: 1, levels: 1, samples: 1 };
    let heap = plane.random_bytes(73);
    let corner = [8, 8, 1];
    let surface = |channels: u32| RunSurface {
        dim: TextureDim::D2,
        size: corner,
        layers: 1,
        format: SurfaceFormat { channels, channel_bytes: 4 },
    };
    let formatted = (surface(4), plane.corner(&heap, corner).1);
    let direct = (surface(1), plane.raw_corner(&heap, corner));
    let presets = set(&[(0, 0), (1, 0), (2, 0), (3, 0), (4, 1), (5, 3), (6, 0), (7, 0)]);
    let handle = "MOV.cbuf rd=6 cb_bank=2 cb_offset=0 lanes=15\n";
    let load = |size: u32, d: u32| format!("SULD rd=0 ra=4 size={size} target=3 surf=0x52 clamp=0 d={d}");
    let load_by = |size: u32, d: u32| format!("{handle}SULD.B rd=0 ra=4 size={size} target=3 rc=6 clamp=0 d={d}");
    for (name, body, bound, expected) in [
        ("p_r", load(1, 0), &formatted, [ONE, 0, 0, 0]),
        ("p_rg", load(3, 0), &formatted, [ONE, 0, 0, 0]),
        ("p_rgba", load(15, 0), &formatted, [ONE, 0, 0, 0]),
        ("p_rgba_other_registers", format!("{}{}", set(&[(0, 3), (1, 8)]), load(15, 0)), &formatted, [ONE, 0, 0, 0]),
        ("p_r_register_handle", load_by(1, 0), &formatted, [ONE, 0, 0, 0]),
        ("d_32", load(4, 1), &direct, [0xff, 0, 0, 0]),
        ("d_32_register_handle", load_by(4, 1), &direct, [0xff, 0, 0, 0]),
    ] {
        let body = format!("{presets}{body}");
        super::texture::check_with_surfaces(&format!("suld_{name}"), &body, Vec::new(), vec![bound.clone()], expected);
    }
}
