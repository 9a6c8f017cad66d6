//! The test programs' shaders (`tests/programs/shaders/*.sasm`, assembled by `sass::assemble` into the `.bin`
//! files the C programs include; `.cs` ones are compute kernels): each `.bin` is what its source assembles to
//! (`TANDEM_BLESS=1` rewrites them), decodes to the source's instructions, and translates, as its stage, to
//! SPIR-V that `spirv-val` accepts for Vulkan 1.3 (pixel programs also with the alpha test, which the translation
//! adds, and with output 1 as target 0's second blend source; vertex programs also with stream output capturing
//! some of their words; geometry programs after triangles, capturing some of what they emit, and after lines with
//! adjacency picking the layer;
//! tessellation programs for patches of three control points, evaluation programs also into quad domains' points).

mod common;

use std::path::Path;
use tandem_gpu::sass::Isa;
use tandem_gpu::sass::assemble;
use tandem_gpu::sass::cubin::KernelImage;
use tandem_gpu::shader::ir::{PoolView, TextureDim};
use tandem_gpu::shader::sph::{HEADER_BYTES, ProgramHeader, ShaderType, header_bytes, parse_program_header};
use tandem_gpu::shader::{
    FragmentInterface, GeometryInput, GeometryInterface, GlobalMemory, GuestWindows, NumberKind, PointSize, Stage,
    TessControlInterface, TessDomain, TessEvalInterface, TessOutput, TessSpacing, Tessellator, TextureView,
    Translation, UNSWIZZLED, UserClip, VertexInterface, Warps, WindowClip, program_needs, translate_compute,
    translate_graphics, translate_graphics_with,
};
use tandem_gpu::texture::descriptor::Comparison;

fn spirv_val(name: &str, spirv: &[u32]) {
    common::spirv_val(name, spirv).unwrap_or_else(|problem| panic!("{name}: {problem}"));
}

/// An assembled graphics program's header and its code as a kernel to translate: SM86 code behind a version 4
/// header, Maxwell's behind version 3.
fn graphics_kernel(name: &str, program: &[u8]) -> (ProgramHeader, KernelImage) {
    let version = ProgramHeader::parse(program[..HEADER_BYTES].try_into().unwrap()).unwrap().version();
    let isa = if version == 4 { Isa::Sm86 } else { Isa::Sm5x };
    let header = parse_program_header(isa, program).unwrap();
    let kernel = KernelImage {
        name: name.to_string(),
        isa,
        code: program[header_bytes(isa)..].to_vec(),
        constants: Vec::new(),
        shared_bytes: 0,
        origin: 0,
    };
    (header, kernel)
}

#[test]
fn shaders_assemble_to_their_binaries_and_translate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/shaders");
    let bless = std::env::var_os("TANDEM_BLESS").is_some();
    let mut sources: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    sources.retain(|path| path.extension().is_some_and(|e| e == "sasm"));
    sources.sort();
    assert!(!sources.is_empty());
    for source in &sources {
        let name = source.file_name().unwrap().to_string_lossy().into_owned();
        let program =
            assemble::program(&std::fs::read_to_string(source).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let binary = source.with_extension("bin");
        if bless {
            std::fs::write(&binary, &program).unwrap();
        }
        let committed = std::fs::read(&binary).unwrap_or_default();
        assert!(committed == program, "{name}: the .bin is not what it assembles to; TANDEM_BLESS=1 rewrites it");

        let global = GlobalMemory::Guest(GuestWindows { windows: Vec::new(), fault: 0x1000 });
        if name.ends_with(".cs.sasm") {
            let kernel = KernelImage {
                name: name.clone(),
                isa: Isa::Sm5x,
                code: program,
                constants: Vec::new(),
                shared_bytes: 0,
                origin: 0,
            };
            let translation =
                translate_compute(&kernel, [64, 1, 1], 0, &global, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
            spirv_val(&name, &translation.spirv);
            continue;
        }
        let (header, kernel) = graphics_kernel(&name, &program);
        let vertex = VertexInterface {
            header,
            next_stage_reads: 1,
            depth_minus_one_to_one: true,
            point_size: None,
            layer: false,
            capture: Default::default(),
            user_clip: Default::default(),
        };
        // Stream output capturing position and generic 0's x and y (words 28-33) and the viewport index (26).
        let mut capture = [0u32; 8];
        capture[0] = 0xfc00_0000 | 1 << 26;
        capture[1] = 0b11;
        // And with the layer output picking the layer (layer.vs writes it).
        let capturing = VertexInterface { capture, layer: header.writes(0x64), ..vertex };
        // And with clip distances 0 and 2 clipping and 1 culling.
        let clipping = VertexInterface { user_clip: UserClip { clip: 0b101, cull: 0b10 }, ..vertex };
        let fragment = |alpha_test, dual_source| FragmentInterface {
            header,
            targets: [Some(NumberKind::Float); 8],
            alpha_test,
            saturate: [None; 8],
            dual_source,
            swizzles: UNSWIZZLED,
            point_coord: None,
            polygon_stipple: None,
            window_clip: None,
            sample_mask: false,
            early_fragment_tests: false,
            post_depth_coverage: false,
            quad_sample_masks: None,
        };
        let fragments = [
            fragment(None, false),
            fragment(Some((Comparison::Greater, 0.5f32.to_bits())), false),
            fragment(Some((Comparison::Never, 0)), false),
            fragment(None, true),
            FragmentInterface {
                polygon_stipple: Some(std::array::from_fn(|row| 0x0f0f_0f0f_u32.rotate_left(row as u32))),
                window_clip: Some(WindowClip {
                    exclusive: true,
                    rects: [[1, 2, 30, 40], [0; 4], [5, 5, 5, 9], [0; 4], [0; 4], [0; 4], [0; 4], [8, 0, 9, 65535]],
                }),
                sample_mask: true,
                quad_sample_masks: Some([1, 2, 4, 8]),
                early_fragment_tests: true,
                post_depth_coverage: true,
                ..fragment(None, false)
            },
        ];
        // Geometry programs: after a vertex stage drawing triangles, and (picking the layer) lines with adjacency.
        let geometry = GeometryInterface {
            header,
            input: GeometryInput::Triangles,
            next_stage_reads: 1,
            depth_minus_one_to_one: true,
            layer: false,
            point_size: None,
            capture: Default::default(),
            raster_stream: 0,
            user_clip: Default::default(),
        };
        let layered = GeometryInterface {
            input: GeometryInput::LinesAdjacency,
            layer: true,
            point_size: Some(PointSize::Program),
            ..geometry
        };
        // And capturing what it emits for stream output, with the rasteriser taking stream 1.
        let captured = GeometryInterface { capture, raster_stream: 1, ..geometry };
        // Tessellation programs: patches of three control points into triangles, and (evaluation programs)
        // into the points of a quad domain cut with fractional odd spacing, picking the layer.
        // The control programs hand on four per-patch words past the levels.
        let control = TessControlInterface { header, patch_vertices: 3, next_stage_reads: 1, patch_words: 4 };
        let triangles =
            Tessellator { domain: TessDomain::Triangles, spacing: TessSpacing::Equal, output: TessOutput::TrianglesCw };
        let evaluation = TessEvalInterface {
            header,
            patch_vertices: 3,
            patch_words: 4,
            tessellator: triangles,
            next_stage_reads: 1,
            depth_minus_one_to_one: true,
            layer: false,
            point_size: None,
            user_clip: Default::default(),
        };
        let points =
            Tessellator { domain: TessDomain::Quads, spacing: TessSpacing::FractionalOdd, output: TessOutput::Points };
        let quads = TessEvalInterface {
            tessellator: points,
            layer: true,
            point_size: Some(PointSize::Fixed(3.0f32.to_bits())),
            ..evaluation
        };
        let stages: Vec<Stage> = match header.shader_type() {
            Some(ShaderType::Vertex) => {
                vec![Stage::Vertex(&vertex), Stage::Vertex(&capturing), Stage::Vertex(&clipping)]
            }
            Some(ShaderType::Geometry) => {
                vec![Stage::Geometry(&geometry), Stage::Geometry(&layered), Stage::Geometry(&captured)]
            }
            Some(ShaderType::TessellationInit) => vec![Stage::TessControl(&control)],
            Some(ShaderType::Tessellation) => vec![Stage::TessEval(&evaluation), Stage::TessEval(&quads)],
            Some(ShaderType::Pixel) => fragments.iter().map(Stage::Fragment).collect(),
            other => panic!("{name}: a {other:?} program"),
        };
        // Handles known only at run time read pools as gpu-draw.c's (8 headers, 5 samplers), switched between as
        // on lavapipe; every other texture holds FP32 numbers of its binding's shape.
        let pool = PoolView { headers: 8, samplers: 5, sampler_via_header: false, indexed: false };
        let views: Vec<TextureView> = program_needs(&kernel)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .textures
            .iter()
            .map(|binding| TextureView::float(binding, Some(pool)))
            .collect();
        for stage in stages {
            let translation =
                translate_graphics(&kernel, stage, 0, &global, &views).unwrap_or_else(|e| panic!("{name}: {e}"));
            spirv_val(&name, &translation.spirv);
            // A pixel program's global compare-and-swap (count.ps's RED becomes a loop of them) must not spin in
            // helper invocations, whose atomics do nothing: NVIDIA's driver hung there until they were told
            // apart (OpIsHelperInvocationEXT).
            if name == "count.ps.sasm" {
                const IS_HELPER_INVOCATION: u32 = 5381;
                assert!(
                    translation.spirv.iter().any(|&word| word == (3 << 16 | IS_HELPER_INVOCATION)),
                    "{name}: helper invocations are not told apart"
                );
            }
        }
    }
}

/// The pixel program `body` (after a header and generic 0's (x, y) in R0, R1) translated for target 0.
fn translate_pixel_body(body: &str) -> Result<Translation, String> {
    translate_pixel_body_with(body, &[])
}

/// `translate_pixel_body` with the texture bindings viewed as `views` say.
fn translate_pixel_body_with(body: &str, views: &[TextureView]) -> Result<Translation, String> {
    translate_pixel_source(
        &format!(
            ".stage pixel\n.interpolate 0 xy linear\n.target 0 rgba\nIPA rd=0 address=0x80\nIPA rd=1 address=0x84\n\
             {body}\nEXIT\n"
        ),
        views,
    )
}

/// The pixel program `source` (assembler text) translated for target 0, its textures viewed as `views` say.
fn translate_pixel_source(source: &str, views: &[TextureView]) -> Result<Translation, String> {
    let program = assemble::program(source).map_err(|e| e.to_string())?;
    let (header, kernel) = graphics_kernel("pixel", &program);
    let global = GlobalMemory::Guest(GuestWindows { windows: Vec::new(), fault: 0x1000 });
    let fragment = FragmentInterface {
        header,
        targets: [Some(NumberKind::Float); 8],
        alpha_test: None,
        saturate: [None; 8],
        dual_source: false,
        swizzles: UNSWIZZLED,
        point_coord: None,
        polygon_stipple: None,
        window_clip: None,
        sample_mask: false,
        early_fragment_tests: false,
        post_depth_coverage: false,
        quad_sample_masks: None,
    };
    translate_graphics(&kernel, Stage::Fragment(&fragment), 0, &global, views).map_err(|e| e.to_string())
}

/// Vulkan takes a sample's texel offsets (TEX.AOFFI) only as constants: offsets the translator can follow to an
/// immediate in the same block become ConstOffset; offsets it cannot (a guarded write between, a constant
/// buffer) stop the translation naming the instruction and why, instead of being dropped.
#[test]
fn sample_offsets_must_be_known_when_translating() {
    const TEX: &str = "TEX rd=0 ra=0 rb=2 target=2 mask=15 lod=1 tex=0 aoffi=1";
    const CONST_OFFSET: u32 = 0x8;
    let known = translate_pixel_body(&format!(
        "MOV32I rd=2 imm32=0x000000f1 lanes=15\nMOV32I rd=3 imm32=0x00000011 lanes=15 pg=0\n{TEX}"
    ))
    .unwrap()
    .spirv;
    spirv_val("offsets", &known);
    // The instructions after the module's five-word header, each its word count in the high half of its first.
    const IMAGE_SAMPLE_EXPLICIT_LOD: u32 = 88;
    let mut at = 5;
    let mut image_operands = None;
    while at < known.len() {
        if known[at] & 0xffff == IMAGE_SAMPLE_EXPLICIT_LOD {
            image_operands = Some(known[at + 5]);
        }
        at += (known[at] >> 16).max(1) as usize;
    }
    let image_operands = image_operands.expect("a sample");
    assert_eq!(image_operands & CONST_OFFSET, CONST_OFFSET, "the offsets are a ConstOffset operand");

    for body in [
        format!("MOV32I rd=2 imm32=0x000000f1 lanes=15\nMOV32I rd=2 imm32=0x00000011 lanes=15 pg=0\n{TEX}"),
        format!("MOV.cbuf rd=2 cb_offset=8 cb_bank=0 lanes=15\n{TEX}"),
    ] {
        let error = translate_pixel_body(&body).unwrap_err();
        assert!(error.contains("TEX.LZ.AOFFI") && error.contains("run time"), "{error}");
    }
}

/// A predicated sample with implicit derivatives runs outside any selection (derivatives are defined only in
/// uniform control flow), its writes selected by the predicate: no OpSelectionMerge comes before it.
#[test]
fn predicated_implicit_samples_stay_in_uniform_control_flow() {
    const SELECTION_MERGE: u32 = 247;
    const IMAGE_SAMPLE_IMPLICIT_LOD: u32 = 87;
    let spirv = translate_pixel_body("TEX rd=0 ra=0 rb=2 target=2 mask=15 lod=0 tex=0 pg=0").unwrap().spirv;
    spirv_val("predicated-sample", &spirv);
    let (mut at, mut merges_before) = (5, None);
    let mut merges = 0;
    while at < spirv.len() {
        match spirv[at] & 0xffff {
            SELECTION_MERGE => merges += 1,
            IMAGE_SAMPLE_IMPLICIT_LOD => merges_before = Some(merges),
            _ => {}
        }
        at += (spirv[at] >> 16).max(1) as usize;
    }
    assert_eq!(merges_before, Some(0), "the sample is in no selection");
}

/// A bindless instruction's handle is traced back to the constant-buffer words it was made of (NVN's shapes: a
/// word loaded whole, or separate texture and sampler handles masked, shifted and ORed), which the back end reads
/// when the draw runs; a handle made any other way is known only at run time and indexes the whole pools, which
/// the caller must bind (indexed per invocation, or through a switch on devices that cannot index, for small
/// pools only).
#[test]
fn bindless_handles_trace_to_constant_buffer_words() {
    const TEX: &str = "TEX.B rd=0 ra=0 rb=2 target=2 mask=15 lod=1";
    let traced = |body: String| {
        let translation = translate_pixel_body(&format!("{body}\n{TEX}")).unwrap();
        spirv_val("bindless", &translation.spirv);
        translation.textures.iter().map(|texture| texture.handle.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(traced("MOV.cbuf rd=2 cb_offset=10 cb_bank=3 lanes=15".into()), ["c[0x3][0x28]"]);
    let pair = "MOV.cbuf rd=2 cb_offset=11 cb_bank=0 lanes=15\nLOP32I rd=2 ra=2 imm32=0x000fffff op=0\n\
                MOV.cbuf rd=3 cb_offset=12 cb_bank=0 lanes=15\nSHL.imm rd=3 ra=3 imm20=20\nLOP.reg rd=2 ra=2 rb=3 op=1";
    assert_eq!(traced(pair.into()), ["(c[0x0][0x2c] & 0xfffff) | c[0x0][0x30] << 20"]);

    let pools = |headers, samplers, indexed| {
        let pool = PoolView { headers, samplers, sampler_via_header: false, indexed };
        [TextureView { kind: NumberKind::Float, dim: TextureDim::D2, array: false, pool: Some(pool), buffer: false }]
    };
    for body in [
        // An interpolated attribute, and an immediate handle (no constant-buffer word to read).
        "IPA rd=2 address=0x88",
        "MOV32I rd=2 imm32=0x00100001 lanes=15",
    ] {
        let source = format!("{body}\n{TEX}");
        let error = translate_pixel_body(&source).unwrap_err();
        assert!(error.contains("run time") && error.contains("binds no pools"), "{error}");
        for indexed in [true, false] {
            let translation = translate_pixel_body_with(&source, &pools(3, 2, indexed)).unwrap();
            spirv_val("pools", &translation.spirv);
            assert_eq!(translation.textures[0].handle.to_string(), "pool");
        }
        let error = translate_pixel_body_with(&source, &pools(300, 0, false)).unwrap_err();
        assert!(error.contains("shaderSampledImageArrayNonUniformIndexing"), "{error}");
    }
}

/// SM86's TMML reads its operands as TEX does (the coordinates from ra, the handle from c[bank][4 tex] or, for
/// TMML.B, rb) and translates, in a pixel program, to the host's level-of-detail query (OpImageQueryLod), as
/// Maxwell's does (whose results `gpu-draw` checks).
#[test]
fn sm86_level_of_detail_queries_translate_in_pixel_programs() {
    const IMAGE_QUERY_LOD: u32 = 105;
    for (tmml, handle) in [
        ("TMML rd=4 ra=0 rb=255 target=1 rd2=255 tex=0x5a bank=3 mask=3", "c[0x3][0x168]"),
        (
            "MOV.cbuf rd=6 cb_offset=8 cb_bank=0\nTMML.B rd=4 ra=0 rb=6 bindless=1 target=1 rd2=255 mask=3",
            "c[0x0][0x20]",
        ),
    ] {
        let source = format!(
            ".isa sm86\n.stage pixel\n.interpolate 0 xy linear\n.target 0 rgba\nIPA.reg rd=0 address=0x20 pd=7\n\
             IPA.reg rd=1 address=0x21 pd=7\n{tmml}\nEXIT\n"
        );
        let translation = translate_pixel_source(&source, &[]).unwrap_or_else(|e| panic!("{tmml}: {e}"));
        spirv_val("tmml86", &translation.spirv);
        assert!(translation.spirv.iter().any(|&word| word & 0xffff == IMAGE_QUERY_LOD), "{tmml}: no OpImageQueryLod");
        assert_eq!(translation.textures[0].handle.to_string(), handle, "{tmml}");
    }
}

/// What only geometry programs do (OUT, reading other vertices through handles, the invocation registers) is
/// refused by name in any other stage: copies.gs's code translated as a vertex program.
#[test]
fn geometry_instructions_are_refused_outside_geometry_programs() {
    let error = translate_as_vertex_program("copies.gs").unwrap_err();
    assert!(error.contains("outside geometry and tessellation programs") && error.contains("copies.gs"), "{error}");
}

/// An input whose word the stage's prologue does not fill in would read 0: a program whose header says it reads
/// one is refused naming it (bit numbers from NVIDIA's Shader Program Header specification: a pixel program's
/// ImapPointSpriteS at 472, ImapColor's first pair at 448; a vertex program's read of word w at 160 + w).
#[test]
fn inputs_no_prologue_provides_are_refused() {
    let pixel = |directive: &str| {
        translate_pixel_source(
            &format!(".stage pixel\n{directive}\n.target 0 rgba\nIPA rd=0 address=0x2e0\nEXIT\n"),
            &[],
        )
    };
    let error = pixel(".bit 474").unwrap_err();
    assert!(error.contains("pixel program reading the fog coordinate (attribute 0x2e8)"), "{error}");
    let error = pixel(".bit 449").unwrap_err();
    assert!(error.contains("a fixed-function colour (attribute 0x280)"), "{error}");
    assert!(pixel(".interpolate 0 x linear").is_ok() && pixel(".bit 472").is_ok());

    let vertex = |reads: &str| {
        let source =
            format!(".stage vertex\n.reads 0x80-0x84\n.reads {reads}\nALD rd=0 ra=255 address=0x80 size=0\nEXIT\n");
        let (header, kernel) = graphics_kernel("vertex", &assemble::program(&source).unwrap());
        translate_vertex(header, &kernel, Warps::HostSubgroups)
    };
    let error = vertex("0x2c0-0x2c0").unwrap_err();
    assert!(error.contains("vertex program reading a clip distance (attribute 0x2c0)"), "{error}");
    assert!(vertex("0x2fc-0x2fc").is_ok());
}

/// The code of `tests/programs/shaders/NAME.bin` translated as a vertex program's, or why it cannot be.
fn translate_as_vertex_program(name: &str) -> Result<Translation, String> {
    translate_vertex_program_with(name, Warps::HostSubgroups)
}

/// `translate_as_vertex_program` with the warps `warps` says.
fn translate_vertex_program_with(name: &str, warps: Warps) -> Result<Translation, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/shaders");
    let program = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
    let (mut header, kernel) = graphics_kernel(name, &program);
    header.words[0] = ProgramHeader::new(ShaderType::Vertex).words[0];
    translate_vertex(header, &kernel, warps)
}

/// `kernel` translated as a vertex program of `header` whose next stage reads generic 0, with the warps `warps`
/// says.
fn translate_vertex(header: ProgramHeader, kernel: &KernelImage, warps: Warps) -> Result<Translation, String> {
    let vertex = VertexInterface {
        header,
        next_stage_reads: 1,
        depth_minus_one_to_one: false,
        point_size: None,
        layer: false,
        capture: Default::default(),
        user_clip: Default::default(),
    };
    let global = GlobalMemory::Guest(GuestWindows { windows: Vec::new(), fault: 0x1000 });
    translate_graphics_with(kernel, Stage::Vertex(&vertex), 0, &global, &[], warps).map_err(|error| error.to_string())
}

/// Tessellation programs of `header` for patches of three control points into triangles, no per-patch words,
/// the next stage reading `next_stage_reads`' generics.
fn patch_interfaces(header: ProgramHeader, next_stage_reads: u32) -> (TessControlInterface, TessEvalInterface) {
    let triangles =
        Tessellator { domain: TessDomain::Triangles, spacing: TessSpacing::Equal, output: TessOutput::TrianglesCw };
    let control = TessControlInterface { header, patch_vertices: 3, next_stage_reads, patch_words: 0 };
    let evaluation = TessEvalInterface {
        header,
        patch_vertices: 3,
        patch_words: 0,
        tessellator: triangles,
        next_stage_reads,
        depth_minus_one_to_one: false,
        layer: false,
        point_size: None,
        user_clip: Default::default(),
    };
    (control, evaluation)
}

/// A tessellation control program's per-patch outputs are refused by name in an evaluation program, and per-patch
/// words past the tessellation levels in either (they are not translated yet).
#[test]
fn per_patch_words_are_refused_where_they_are_not_translated() {
    let global = GlobalMemory::Guest(GuestWindows { windows: Vec::new(), fault: 0x1000 });
    let translate = |source: &str, stage: ShaderType| {
        let program = assemble::program(source).unwrap();
        let (mut header, kernel) = graphics_kernel("patches", &program);
        header.words[0] = ProgramHeader::new(stage).words[0];
        let (control, evaluation) = patch_interfaces(header, 0);
        let stage = match stage {
            ShaderType::TessellationInit => Stage::TessControl(&control),
            _ => Stage::TessEval(&evaluation),
        };
        translate_graphics(&kernel, stage, 0, &global, &[]).map(|_| ()).map_err(|e| e.to_string())
    };
    let levels = ".stage tess_control\n.vertices 3\nAST rs=0 address=0x0 size=3 patch=1\nEXIT\n";
    assert_eq!(translate(levels, ShaderType::TessellationInit), Ok(()));
    let error = translate(levels, ShaderType::Tessellation).unwrap_err();
    assert!(error.contains("per-patch outputs (AST.P) outside a tessellation control program"), "{error}");
    let generic = ".stage tess_control\n.vertices 3\nAST rs=0 address=0x20 size=0 patch=1\nEXIT\n";
    let error = translate(generic, ShaderType::TessellationInit).unwrap_err();
    assert!(error.contains("per-patch words past the header's PerPatchAttributeCount"), "{error}");
}

/// Tessellation programs read the primitive's number (a[0x60], Vulkan's PrimitiveId) as geometry and pixel
/// programs do; the modules pass spirv-val for their stages.
#[test]
fn tessellation_programs_read_the_primitive_number() {
    let global = GlobalMemory::Guest(GuestWindows { windows: Vec::new(), fault: 0x1000 });
    for stage in ["tess_control", "tess_eval"] {
        let source = format!(
            ".stage {stage}\n.vertices 3\n.reads 0x60-0x60\n.writes 0x80-0x80\nALD rd=0 address=0x60 size=0\nAST rs=0 address=0x80 size=0\nEXIT\n"
        );
        let program = assemble::program(&source).unwrap();
        let (header, kernel) = graphics_kernel(stage, &program);
        assert!(header.reads(0x60), "{stage}: the header reads a[0x60]");
        let (control, evaluation) = patch_interfaces(header, 1);
        let stage_of = match stage {
            "tess_control" => Stage::TessControl(&control),
            _ => Stage::TessEval(&evaluation),
        };
        let translation = translate_graphics(&kernel, stage_of, 0, &global, &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(stage, &translation.spirv);
        const PRIMITIVE_ID: u32 = 7;
        const DECORATE_BUILT_IN: [u32; 2] = [4 << 16 | 71, 11];
        let declared = translation
            .spirv
            .windows(4)
            .any(|w| [w[0], w[2], w[3]] == [DECORATE_BUILT_IN[0], DECORATE_BUILT_IN[1], PRIMITIVE_ID]);
        assert!(declared, "{stage}: no PrimitiveId input");
    }
}

/// The words of each instruction of a SPIR-V module, after its header.
fn instructions(spirv: &[u32]) -> Vec<&[u32]> {
    let mut at = 5;
    let mut found = Vec::new();
    while at < spirv.len() {
        let length = (spirv[at] >> 16).max(1) as usize;
        found.push(&spirv[at..(at + length).min(spirv.len())]);
        at += length;
    }
    found
}

/// PIXLD's COVMASK and MY_INDEX read the host's SampleMask (its first word) and SampleId in pixel programs of both
/// ISAs (`tests/programs/gpu-draw.c` checks what they give); its other values stop the translation by name.
#[test]
fn pixel_programs_read_their_sample_and_coverage() {
    // OpDecorate BuiltIn SampleId, SampleMask.
    const DECORATE: u32 = 71;
    const BUILT_IN: u32 = 11;
    let sm5x = translate_pixel_body("PIXLD rd=2 ra=255 mode=1 pd=7\nPIXLD rd=3 ra=255 mode=5 pd=7").unwrap();
    let sm86 = translate_pixel_source(
        ".isa sm86\n.stage pixel\n.target 0 rgba\nPIXLD rd=0 mode=1 pd=7\nPIXLD rd=1 mode=3 pd=7\nEXIT\n",
        &[],
    )
    .unwrap();
    for (name, translation) in [("sm5x", &sm5x), ("sm86", &sm86)] {
        spirv_val(name, &translation.spirv);
        let built_ins: Vec<u32> = instructions(&translation.spirv)
            .into_iter()
            .filter(|words| words[0] & 0xffff == DECORATE && words.get(2) == Some(&BUILT_IN))
            .map(|words| words[3])
            .collect();
        for built_in in [rspirv::spirv::BuiltIn::SampleId, rspirv::spirv::BuiltIn::SampleMask] {
            assert!(built_ins.contains(&(built_in as u32)), "{name}: no {built_in:?}");
        }
    }
    for (body, value) in [("PIXLD rd=2 ra=255 mode=0 pd=7", "PIXLD "), ("PIXLD rd=2 ra=255 mode=3 pd=7", "OFFSET")] {
        let error = translate_pixel_body(body).unwrap_err();
        assert!(error.contains(value), "{body}: {error}");
    }
}

/// A graphics program's VOTE (both ISAs, and SM86's VOTEU) is the host's subgroup vote and ballot
/// (OpGroupNonUniformAll/Any/AllEqual, OpGroupNonUniformBallot), which the translation says it needs, in pixel
/// and vertex programs alike (`tests/programs/gpu-draw.c` checks what the votes give in both).
#[test]
fn graphics_programs_vote_in_the_host_subgroup() {
    // OpGroupNonUniformAll, Any, AllEqual and Ballot.
    const ALL: u32 = 334;
    const ANY: u32 = 335;
    const ALL_EQUAL: u32 = 336;
    const BALLOT: u32 = 339;
    let opcodes = |spirv: &[u32]| -> Vec<u32> { instructions(spirv).iter().map(|words| words[0] & 0xffff).collect() };
    let sm5x = translate_pixel_body(
        "VOTE rd=2 pd=0 ps=7 mode=0\nVOTE rd=3 pd=1 ps=0 mode=1\nVOTE rd=4 pd=2 ps=1 ps_not=1 mode=2",
    )
    .unwrap();
    let sm86 = translate_pixel_source(
        ".isa sm86\n.stage pixel\n.target 0 rgba\nVOTE rd=0 pd=0 ps=7 mode=0\nVOTEU urd=1 upd=1 ps=0 mode=1\nEXIT\n",
        &[],
    )
    .unwrap();
    let vertex = translate_as_vertex_program("votes.vs").unwrap();
    for (name, translation) in [("sm5x", &sm5x), ("sm86", &sm86), ("votes.vs", &vertex)] {
        spirv_val(name, &translation.spirv);
        assert!(translation.subgroup_votes && !translation.quad_operations, "{name}");
        let found = opcodes(&translation.spirv);
        for opcode in [ALL, ANY, BALLOT] {
            assert!(found.contains(&opcode), "{name}: no opcode {opcode}");
        }
    }
    assert!(opcodes(&sm5x.spirv).contains(&ALL_EQUAL) && opcodes(&vertex.spirv).contains(&ALL_EQUAL));

    // Where the host has no votes in the stage, each invocation is a warp of its own: no subgroup operation.
    let alone = translate_vertex_program_with("votes.vs", Warps::Lone).unwrap();
    spirv_val("votes.vs alone", &alone.spirv);
    assert!(!alone.subgroup_votes);
    assert!(opcodes(&alone.spirv).iter().all(|opcode| ![ALL, ANY, ALL_EQUAL, BALLOT].contains(opcode)));
}
