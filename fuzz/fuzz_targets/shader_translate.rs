//! The shader translator on any code: random SM5x or SM86 instruction words translate as a compute kernel, and
//! SM5x words after a random program header as the vertex or pixel stage that header names, or stop with a typed
//! error naming what and where: never a panic.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tandem_gpu::sass::Isa;
use tandem_gpu::sass::cubin::KernelImage;
use tandem_gpu::shader::ir::{PoolView, TextureDim};
use tandem_gpu::shader::sph::{HEADER_BYTES, ProgramHeader, ShaderType};
use tandem_gpu::shader::{
    FragmentInterface, GlobalMemory, GuestWindows, NumberKind, PointOrigin, Stage, TextureView, UNSWIZZLED, UserClip,
    VertexInterface, WindowClip, translate_compute, translate_graphics,
};

#[derive(Arbitrary, Debug)]
struct Input {
    sm86: bool,
    header: [u8; HEADER_BYTES],
    local_bytes: u16,
    /// Shared memory (none, as in graphics stages, is the case that refuses shared accesses) and the block's
    /// sizes, as a QMD gives them.
    shared_bytes: u16,
    block: [u16; 3],
    /// Where the code sits in its code segment, for absolute branches.
    origin: u16,
    words: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let isa = if input.sm86 { Isa::Sm86 } else { Isa::Sm5x };
    let code: Vec<u8> = input.words.iter().take(256).flat_map(|word| word.to_le_bytes()).collect();
    let origin = u32::from(input.origin);
    let shared_bytes = u32::from(input.shared_bytes);
    let kernel = KernelImage { name: "fuzz".into(), isa, code, constants: Vec::new(), shared_bytes, origin };
    let global = GlobalMemory::Guest(GuestWindows { windows: Vec::new(), fault: 0x1000 });
    let local_bytes = u32::from(input.local_bytes);
    let _ = translate_compute(&kernel, input.block.map(u32::from), local_bytes, &global, &[]);
    let kernel = KernelImage { shared_bytes: 0, ..kernel };
    if input.sm86 {
        return;
    }
    let Ok(header) = ProgramHeader::parse(&input.header) else { return };
    // Pools for the first two bindings, should their handles be known only at run time: switched, then indexed.
    let pool = |indexed| Some(PoolView { headers: 3, samplers: 2, sampler_via_header: indexed, indexed });
    let views = [
        TextureView { kind: NumberKind::Float, dim: TextureDim::D2, array: true, pool: pool(false), buffer: false },
        TextureView { kind: NumberKind::Uint, dim: TextureDim::D1, array: false, pool: pool(true), buffer: false },
        TextureView { kind: NumberKind::Sint, dim: TextureDim::D3, array: false, pool: None, buffer: false },
        // A 1D buffer, whatever the fourth binding is.
        TextureView { kind: NumberKind::Uint, dim: TextureDim::D1, array: false, pool: None, buffer: true },
    ];
    match header.shader_type() {
        Some(ShaderType::Vertex) => {
            let vertex = VertexInterface {
                header,
                next_stage_reads: u32::MAX,
                depth_minus_one_to_one: true,
                point_size: None,
                layer: true,
                capture: Default::default(),
                user_clip: UserClip { clip: 0b0011_0101, cull: 0b1100_0000 },
            };
            let _ = translate_graphics(&kernel, Stage::Vertex(&vertex), local_bytes, &global, &views);
        }
        Some(ShaderType::Pixel) => {
            let fragment = FragmentInterface {
                header,
                targets: [Some(NumberKind::Float); 8],
                alpha_test: None,
                saturate: [None; 8],
                dual_source: false,
                swizzles: UNSWIZZLED,
                // As for points with sprites on: a header that reads the sprite coordinate gets `PointCoord`.
                point_coord: Some(PointOrigin::Bottom),
                polygon_stipple: Some(std::array::from_fn(|row| 0x5a5a_a5a5_u32.rotate_left(row as u32))),
                window_clip: Some(WindowClip { exclusive: false, rects: [[0, 0, 16, 16]; 8] }),
                sample_mask: true,
                quad_sample_masks: Some([1, 2, 4, 8]),
                early_fragment_tests: true,
                post_depth_coverage: true,
            };
            let _ = translate_graphics(&kernel, Stage::Fragment(&fragment), local_bytes, &global, &views);
        }
        _ => {}
    }
});
