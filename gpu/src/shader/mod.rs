//! The shader translator: NVIDIA machine code to SPIR-V. Decode (the `sass` tables) -> IR (`ir`, one for both
//! instruction sets; `sm86` lowers into it) -> SPIR-V (`spirv`). The SASS interpreter (`sass::exec`) is the
//! executable spec the translation is checked against, on lavapipe and on NVIDIA hardware.
//!
//! So far: compute kernels of both instruction sets (SM5x lowered by `sm5x`, SM86 by `sm86`), with the
//! instructions those list; everything else is a `TranslateError` naming the instruction, the kernel and the
//! offset: `UnknownOpcode` for an opcode with no lowering, `Unimplemented` for a form of one that has.

pub mod ir;
mod known;
mod lower;
mod mma;
mod sm5x;
mod sm86;
pub mod sph;
mod spirv;
mod stack;
pub mod structure;
mod surface;
mod texture;
mod uniformity;

pub use crate::texture::format::NumberKind;
pub use ir::TextureView;
pub use spirv::{
    CapturedWords, FragmentInterface, GeometryInput, GeometryInterface, PointOrigin, PointSize, Saturate, Stage,
    TessControlInterface, TessDomain, TessEvalInterface, TessOutput, TessSpacing, Tessellator, UNSWIZZLED, UserClip,
    VertexInterface, WindowClip, captured_words,
};

use crate::sass::cubin::KernelImage;
use crate::sass::{DecodeError, Isa};

/// Why a shader could not be translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("{isa}: {what} is not translated yet (kernel {kernel}, offset {offset:#x})")]
    Unimplemented { isa: Isa, what: String, kernel: String, offset: usize },
    /// An opcode the translator has no lowering for at all (`Unimplemented` is a form of one it has).
    #[error("{isa}: {opcode} is not translated yet: {text} (kernel {kernel}, offset {offset:#x})")]
    UnknownOpcode { isa: Isa, opcode: &'static str, text: String, kernel: String, offset: usize },
    #[error(
        "{isa}: the absolute branch at offset {offset:#x} of kernel {kernel} goes to {address:#x}, outside the code, \
         which starts at {origin:#x} in its code segment: check where the program sits in its program region"
    )]
    OutsideCode { isa: Isa, kernel: String, offset: usize, address: u32, origin: u32 },
}

/// A translated compute kernel and what a back end must bind for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub spirv: Vec<u32>,
    /// The constant banks the shader reads, in binding order: bank `constant_banks[i]` is the storage buffer
    /// at set 0, binding i.
    pub constant_banks: Vec<u8>,
    /// The textures it reads, bound after the banks: texture i at binding `constant_banks.len() + i`.
    pub textures: Vec<ir::TextureBinding>,
    /// The surfaces it reaches, bound after the textures: surface i at binding `constant_banks.len() +
    /// textures.len() + i`, a storage image.
    pub surfaces: Vec<ir::SurfaceBinding>,
    /// How the SPIR-V lays out the program's control flow: structured constructs, or a dispatcher loop and why.
    pub control_flow: structure::ControlFlow,
    /// A pixel program that exchanges values in its quads (derivatives: SHFL within quads, FSWZADD), which needs
    /// subgroup quad operations in fragment shaders.
    pub quad_operations: bool,
    /// A graphics program that votes (VOTE), which needs subgroup vote and ballot operations in its stage: the
    /// host's subgroup is its warp.
    pub subgroup_votes: bool,
}

/// What a kernel's global addresses are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GlobalMemory {
    /// The device's own (buffer device addresses): kernels launched as CUDA launches them, in the tests.
    Device,
    /// The guest's GPU virtual addresses, in windows a back end mirrors into device memory.
    Guest(GuestWindows),
}

/// Where the guest's GPU memory lies on the device for one dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestWindows {
    pub windows: Vec<Window>,
    /// The device address of a [`FAULT_BYTES`] buffer: an access outside every window reaches its
    /// [`FaultWord::Sink`] word instead and sets [`FaultWord::Flag`] to 1 (the hardware would fault the channel).
    pub fault: u64,
}

/// `size` bytes from GPU address `gpu` are at device address `device`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub gpu: u64,
    pub size: u64,
    pub device: u64,
}

/// The words of the fault buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultWord {
    /// 1 once any access fell outside every window.
    Flag = 0,
    /// What such accesses read and write.
    Sink = 1,
    /// Where accesses inside a window store their "no fault" (a store each keeps the translation free of
    /// control flow).
    Spare = 2,
}

pub const FAULT_BYTES: u64 = 16;

/// The version of what the emitter and the shared lowering produce: bump it when a change there alters
/// translations (it is part of every [`cache_key`]). 2: identical constants merged (every translation changed).
/// 3: texel fetches through handles known when translating bind apart from samples (`TextureBinding::fetch`).
/// 4: constant reads past a bank's size give 0; shared and local accesses past their arrays stay inside them.
pub const EMITTER_VERSION: u32 = 4;

/// Opcodes whose lowering changed since the emitter's version was last bumped, with their own versions (every
/// other opcode is at 1): bump an opcode's entry (add it at 2) when only its translation changes, so that a
/// translator change invalidates only the cached translations of the kernels that contain that opcode.
const LOWERING_VERSIONS: &[(Isa, &str, u32)] = &[
    // 2: SM5x stack entries keep their kind in bits 31:28 (five kinds, with PLONGJMP's), not 31:30.
    (Isa::Sm5x, "SSY", 2),
    (Isa::Sm5x, "PBK", 2),
    (Isa::Sm5x, "PCNT", 2),
    (Isa::Sm5x, "CAL", 2),
    // 3: a pop that finds the stack empty ends the thread (it read below the stack and could loop for ever).
    (Isa::Sm5x, "SYNC", 3),
    (Isa::Sm5x, "BRK", 3),
    (Isa::Sm5x, "CONT", 3),
    (Isa::Sm5x, "RET", 3),
    (Isa::Sm5x, "LONGJMP", 2),
];

/// The version of the lowering of `opcode` in `isa` (see [`LOWERING_VERSIONS`]).
pub fn lowering_version(isa: Isa, opcode: &str) -> u32 {
    LOWERING_VERSIONS.iter().find(|&&(i, o, _)| i == isa && o == opcode).map_or(1, |&(_, _, version)| version)
}

/// What identifies a translation: SHA-256 of the emitter's version, the kernel's instruction set and the
/// versions of the lowering of each opcode it contains, its code and origin, shared memory, the workgroup size, local memory
/// where global memory is (with the guest windows' addresses, which a translation builds in) and what its
/// textures hold.
pub fn cache_key(
    kernel: &KernelImage,
    block: [u32; 3],
    local_bytes: u32,
    global: &GlobalMemory,
    texture_views: &[TextureView],
) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"tandem shader translation\0");
    hash.update(EMITTER_VERSION.to_le_bytes());
    hash.update(kernel.isa.to_string().as_bytes());
    // The opcodes' versions (code that does not decode fails to translate whatever its key).
    let opcodes: std::collections::BTreeSet<&str> = match kernel.isa {
        Isa::Sm5x => crate::sass::sm5x::decode_program(&kernel.code)
            .map(|program| program.iter().map(|i| i.inst.encoding().opcode).collect())
            .unwrap_or_default(),
        Isa::Sm86 => crate::sass::sm86::decode_program(&kernel.code)
            .map(|program| program.iter().map(|i| i.inst.encoding().opcode).collect())
            .unwrap_or_default(),
    };
    for opcode in opcodes {
        hash.update(opcode.as_bytes());
        hash.update(lowering_version(kernel.isa, opcode).to_le_bytes());
    }
    hash.update((kernel.code.len() as u64).to_le_bytes());
    hash.update(&kernel.code);
    hash.update(kernel.shared_bytes.to_le_bytes());
    hash.update(kernel.origin.to_le_bytes());
    for n in block {
        hash.update(n.to_le_bytes());
    }
    hash.update(local_bytes.to_le_bytes());
    for view in texture_views {
        hash.update(format!("{view:?};").as_bytes());
    }
    match global {
        GlobalMemory::Device => hash.update(b"device"),
        GlobalMemory::Guest(guest) => {
            hash.update(b"guest");
            hash.update(guest.fault.to_le_bytes());
            for window in &guest.windows {
                for value in [window.gpu, window.size, window.device] {
                    hash.update(value.to_le_bytes());
                }
            }
        }
    }
    hash.finalize().into()
}

/// Translates a compute kernel for a workgroup of `block` threads with `local_bytes` of local memory each;
/// texture i (of `ProgramNeeds::textures`) is what `texture_views[i]` says, as for `translate_graphics`.
pub fn translate_compute(
    kernel: &KernelImage,
    block: [u32; 3],
    local_bytes: u32,
    global: &GlobalMemory,
    texture_views: &[TextureView],
) -> Result<Translation, TranslateError> {
    translate_compute_laid_out(kernel, block, local_bytes, global, texture_views, Layout::default())
}

/// The most threads a block has on Maxwell and Ampere.
const MAX_BLOCK_THREADS: u64 = 1024;

/// How a translation lays out the program's control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// Structured constructs where `structure` finds them, else the dispatcher loop.
    #[default]
    Constructs,
    /// The dispatcher loop whatever the CFG (`tandem bench shaders` compares the two).
    Dispatcher,
}

/// `translate_compute` with the control flow laid out as `layout` says.
pub fn translate_compute_laid_out(
    kernel: &KernelImage,
    block: [u32; 3],
    local_bytes: u32,
    global: &GlobalMemory,
    texture_views: &[TextureView],
    layout: Layout,
) -> Result<Translation, TranslateError> {
    let threads = block.iter().try_fold(1u64, |threads, &size| (size >= 1).then(|| threads * u64::from(size)));
    if threads.is_none_or(|threads| threads > MAX_BLOCK_THREADS) {
        return Err(TranslateError::Unimplemented {
            isa: kernel.isa,
            what: format!("a block of {block:?} threads (a block holds 1 to {MAX_BLOCK_THREADS})"),
            kernel: kernel.name.clone(),
            offset: 0,
        });
    }
    let program = lower(kernel, local_bytes, false)?;
    let graphics_only = |op: &ir::Op| match op {
        ir::Op::Demote => true,
        ir::Op::Load { space, .. }
        | ir::Op::Store { space, .. }
        | ir::Op::LoadSub { space, .. }
        | ir::Op::StoreSub { space, .. } => {
            matches!(space, ir::Space::Attribute | ir::Space::Output | ir::Space::VertexAttribute)
        }
        op => out_of_stage(&Stage::Compute { local_size: [1, 1, 1] }, op).is_some(),
    };
    if program.any_op(&graphics_only) {
        return Err(TranslateError::Unimplemented {
            isa: kernel.isa,
            what: "attributes, outputs or KIL in a compute kernel (they belong to graphics stages)".into(),
            kernel: kernel.name.clone(),
            offset: 0,
        });
    }
    refuse_lod_queries(kernel, &program, "a compute kernel")?;
    require_pools(kernel, &program, texture_views)?;
    let (spirv, control_flow) =
        spirv::emit(&program, &Stage::Compute { local_size: block }, global, texture_views, layout);
    Ok(Translation {
        spirv,
        constant_banks: program.constant_banks,
        textures: program.textures,
        surfaces: program.surfaces,
        control_flow,
        quad_operations: false,
        subgroup_votes: false,
    })
}

/// The most vertices a geometry program's invocation may emit here: Vulkan devices offer at least 256
/// (`maxGeometryOutputVertices`), NVIDIA's 1024, the header's field holds up to 4095.
pub const MAX_GEOMETRY_OUTPUT_VERTICES: u32 = 1024;

/// The most control points a patch has, and output vertices a tessellation control program makes: what every
/// Vulkan device offers (`maxTessellationPatchSize`), and Maxwell's SET_PATCH.
pub const MAX_PATCH_VERTICES: u32 = 32;

/// Why `op` cannot be in a program of `stage` (`None`: it can). Geometry and tessellation programs see several
/// vertices; only geometry programs emit them; tessellation programs have per-patch words, of which only the
/// tessellation levels are translated.
fn out_of_stage(stage: &Stage, op: &ir::Op) -> Option<&'static str> {
    use ir::{Op, Space, Special};
    let geometry = matches!(stage, Stage::Geometry(_));
    let control = matches!(stage, Stage::TessControl(_));
    let evaluation = matches!(stage, Stage::TessEval(_));
    match op {
        Op::EmitVertex(_) | Op::EndPrimitive(_) if !geometry => Some("OUT outside a geometry program"),
        Op::Load { space: Space::VertexAttribute, .. }
        | Op::LoadSub { space: Space::VertexAttribute, .. }
        | Op::Special(Special::InvocationInfo)
            if !(geometry || control || evaluation) =>
        {
            Some(
                "other vertices' attributes (ALD with a vertex register) or SR_INVOCATION_INFO outside geometry and \
                  tessellation programs",
            )
        }
        Op::Special(Special::InvocationId) if !(geometry || control) => {
            Some("SR_INVOCATION_ID outside geometry and tessellation control programs")
        }
        Op::PatchStore(..) if !control => Some("per-patch outputs (AST.P) outside a tessellation control program"),
        Op::InterpolateAt { .. } if !matches!(stage, Stage::Fragment(_)) => {
            Some("IPA away from the pixel centre outside a pixel program")
        }
        Op::PatchLoad(_) if !(control || evaluation) => Some("per-patch words (ALD.P) outside tessellation programs"),
        Op::Special(Special::SampleId | Special::SampleMask) if !matches!(stage, Stage::Fragment(_)) => {
            Some("the pixel's sample and coverage (PIXLD) outside a pixel program")
        }
        Op::QuadShuffle(..) | Op::Special(Special::QuadLane) if !matches!(stage, Stage::Fragment(_)) => {
            Some("quad operations (SHFL within quads, FSWZADD) outside a pixel program")
        }
        Op::PatchLoad(address) | Op::PatchStore(address, _) if *address >= patch_end(stage) => {
            Some("per-patch words past the header's PerPatchAttributeCount")
        }
        _ => None,
    }
}

/// Rewrites the subgroup votes and ballots of `stmts` for an invocation that is its warp's only lane: ALL and ANY
/// are its predicate, EQ holds, the ballot is lane 0's bit where the predicate holds.
fn vote_alone<'a>(stmts: &mut dyn Iterator<Item = &'a mut ir::Stmt>) {
    for stmt in stmts {
        match stmt {
            ir::Stmt::Op(_, op) => match *op {
                ir::Op::SubgroupVote(p, ir::Vote::All | ir::Vote::Any) => *op = ir::Op::Select(p, p, p),
                ir::Op::SubgroupVote(_, ir::Vote::Equal) => *op = ir::Op::Const(ir::Type::Bool, 1),
                ir::Op::SubgroupBallot(p) => *op = ir::Op::Unary(ir::UnOp::BoolToU32, p),
                _ => {}
            },
            ir::Stmt::If(_, body) => vote_alone(&mut body.iter_mut()),
        }
    }
}

/// Whether `words` per-patch words fit below `spirv::PATCH_LOCATIONS_END` above the `generics` a tessellation
/// program hands on or reads (bit i: generic i), which share the locations with them.
fn patch_words_fit(words: u32, generics: u32) -> Result<(), String> {
    if words == 0 {
        return Ok(());
    }
    let highest = 32 - generics.leading_zeros();
    if words.div_ceil(4) + highest > spirv::PATCH_LOCATIONS_END {
        return Err(format!(
            "{words} per-patch words past the tessellation levels with generics up to {highest} (they share {} \
             locations)",
            spirv::PATCH_LOCATIONS_END
        ));
    }
    Ok(())
}

/// One past the last per-patch byte address a tessellation program reaches: the levels', then the words its
/// interface says the control program hands on.
fn patch_end(stage: &Stage) -> u32 {
    let words = match stage {
        Stage::TessControl(control) => control.patch_words,
        Stage::TessEval(evaluation) => evaluation.patch_words,
        _ => 0,
    };
    sph::attribute::TESS_LEVELS_END + 4 * words
}

/// The first input word a vertex or pixel program's header says it reads that its prologue does not fill in (it
/// would read 0 there): a vertex program gets its generics and vertex and instance ids, a pixel program its
/// generics, position, primitive id, layer, viewport index and point sprite coordinate (0 where the draw's points
/// do not give it).
fn unprovided_input(stage: &Stage) -> Option<u32> {
    use sph::attribute::*;
    match stage {
        Stage::Vertex(vertex) => (PRIMITIVE_ID..0x3c0).step_by(4).find(|&address| {
            vertex.header.reads(address)
                && !(GENERIC..GENERIC_END).contains(&address)
                && ![VERTEX_ID, INSTANCE_ID].contains(&address)
        }),
        Stage::Fragment(fragment) => fragment.header.pixel_system_inputs().into_iter().find(|&address| {
            ![PRIMITIVE_ID, LAYER, VIEWPORT_INDEX].contains(&address)
                && !(POSITION..GENERIC).contains(&address)
                && !spirv::POINT_COORD.contains(&address)
        }),
        _ => None,
    }
}

/// The first reason `out_of_stage` gives for an op of `program`.
fn first_out_of_stage(program: &ir::Program, stage: &Stage) -> Option<&'static str> {
    let found = std::cell::Cell::new(None);
    program.any_op(&|op| {
        found.set(out_of_stage(stage, op));
        found.get().is_some()
    });
    found.get()
}

/// A level-of-detail query needs the derivatives only the fragment stage has: elsewhere it is refused.
fn refuse_lod_queries(kernel: &KernelImage, program: &ir::Program, stage: &str) -> Result<(), TranslateError> {
    if program.any_op(&|op| matches!(op, ir::Op::TextureLodQuery { .. })) {
        return Err(TranslateError::Unimplemented {
            isa: kernel.isa,
            what: format!("TMML in {stage} (no derivatives: what it gives there is unknown)"),
            kernel: kernel.name.clone(),
            offset: 0,
        });
    }
    Ok(())
}

/// A binding of the pools (a handle known only at run time) needs the back end's `PoolView` of them, and pools a
/// switch picks from stay small enough (`ir::MAX_SWITCHED_POOL_PAIRS`).
fn require_pools(kernel: &KernelImage, program: &ir::Program, views: &[TextureView]) -> Result<(), TranslateError> {
    let refuse = |what: String| {
        Err(TranslateError::Unimplemented { isa: kernel.isa, what, kernel: kernel.name.clone(), offset: 0 })
    };
    if let Some(index) = spirv::missing_pools(&program.textures, views) {
        return refuse(format!(
            "texture {index} takes its handle at run time: the texture and sampler pools must be bound whole, and \
             this caller binds no pools"
        ));
    }
    for view in views {
        let Some(pool) = view.pool.filter(|pool| !pool.indexed) else { continue };
        let pairs = (u64::from(pool.headers) + 1) * (u64::from(pool.samplers) + 1);
        if pairs > u64::from(ir::MAX_SWITCHED_POOL_PAIRS) {
            return refuse(format!(
                "handles known only at run time into pools of {} headers and {} samplers on a device that cannot \
                 index descriptor arrays (shaderSampledImageArrayNonUniformIndexing): {pairs} pairs to switch \
                 between, more than {}; run on a device with descriptor indexing",
                pool.headers,
                pool.samplers,
                ir::MAX_SWITCHED_POOL_PAIRS
            ));
        }
    }
    Ok(())
}

/// The most local memory a thread has on Maxwell and Ampere (CUDA's limit per thread): more, from a QMD or a
/// program header, is no program the hardware runs.
const MAX_LOCAL_BYTES: u32 = 512 << 10;

/// `kernel` in IR; `graphics` for a graphics stage's program (`Lower::graphics`).
fn lower(kernel: &KernelImage, local_bytes: u32, graphics: bool) -> Result<ir::Program, TranslateError> {
    if local_bytes > MAX_LOCAL_BYTES {
        return Err(TranslateError::Unimplemented {
            isa: kernel.isa,
            what: format!("{local_bytes:#x} bytes of local memory a thread (the hardware has {MAX_LOCAL_BYTES:#x})"),
            kernel: kernel.name.clone(),
            offset: 0,
        });
    }
    match kernel.isa {
        Isa::Sm86 => sm86::lower(kernel, local_bytes, graphics),
        Isa::Sm5x => sm5x::lower(kernel, local_bytes, graphics),
    }
}

/// What a graphics program needs from its back end before it is translated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProgramNeeds {
    /// The textures it reads, in the order `translate_graphics` binds them (the back end resolves each handle,
    /// header and sampler).
    pub textures: Vec<ir::TextureBinding>,
    /// The surfaces it loads, stores or reduces, in the order the translation binds them after the textures.
    pub surfaces: Vec<ir::SurfaceBinding>,
    /// It loads, stores or updates global memory (the back end mirrors the guest's mapped ranges for it).
    pub global_memory: bool,
    /// The vertex streams a geometry program emits on (bit s: stream s).
    pub streams: u8,
}

pub fn program_needs(kernel: &KernelImage) -> Result<ProgramNeeds, TranslateError> {
    let program = lower(kernel, 0, false)?;
    let global = |op: &ir::Op| {
        use ir::Op::*;
        matches!(
            op,
            Load { space: ir::Space::Global, .. }
                | Store { space: ir::Space::Global, .. }
                | LoadSub { space: ir::Space::Global, .. }
                | StoreSub { space: ir::Space::Global, .. }
                | AtomicCas { space: ir::Space::Global, .. }
        )
    };
    let global_memory = program.any_op(&global);
    let emits_on = |stream: u8| program.any_op(&|op: &ir::Op| matches!(op, ir::Op::EmitVertex(s) if *s == stream));
    let streams = (0..4u8).filter(|&stream| emits_on(stream)).fold(0, |mask, stream| mask | 1 << stream);
    Ok(ProgramNeeds { textures: program.textures, surfaces: program.surfaces, global_memory, streams })
}

/// Translates a vertex or pixel program (`kernel.code`: the instructions after its header) for `stage`, with
/// `local_bytes` of local memory a thread; texture i (of `ProgramNeeds::textures`) is what `texture_views[i]`
/// says (FP32 numbers of the binding's own shape where the slice ends).
pub fn translate_graphics(
    kernel: &KernelImage,
    stage: Stage,
    local_bytes: u32,
    global: &GlobalMemory,
    texture_views: &[TextureView],
) -> Result<Translation, TranslateError> {
    translate_graphics_with(kernel, stage, local_bytes, global, texture_views, Warps::HostSubgroups)
}

/// What a graphics program's warp is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Warps {
    /// The host's subgroup (votes are the host's subgroup votes and ballots).
    HostSubgroups,
    /// Each invocation alone, for a host without subgroup votes and ballots in the stage: one of the groupings a
    /// Maxwell warp may have (a vote is the invocation's own predicate, its ballot lane 0's bit), so that
    /// `Translation::subgroup_votes` is false.
    Lone,
}

/// `translate_graphics` with the warps `warps` says.
pub fn translate_graphics_with(
    kernel: &KernelImage,
    stage: Stage,
    local_bytes: u32,
    global: &GlobalMemory,
    texture_views: &[TextureView],
    warps: Warps,
) -> Result<Translation, TranslateError> {
    let mut program = lower(kernel, local_bytes, true)?;
    if warps == Warps::Lone {
        vote_alone(&mut program.blocks.iter_mut().flat_map(|block| block.body.iter_mut()));
    }
    let compute_only = |op: &ir::Op| {
        matches!(
            op,
            ir::Op::WarpPublish(_)
                | ir::Op::BlockReduce(_)
                | ir::Op::Special(ir::Special::ThreadId(_) | ir::Special::CtaId(_) | ir::Special::LaneId)
        )
    };
    if program.blocks.iter().any(|block| matches!(block.terminator, ir::Terminator::Barrier(_)))
        || program.any_op(&compute_only)
    {
        return Err(TranslateError::Unimplemented {
            isa: kernel.isa,
            what: "barriers, warp exchanges (SHFL, VOTE...), lane ids (S2R SR_LANEID, FSWZADD's place in its quad) or \
                   thread and block ids in a graphics stage"
                .into(),
            kernel: kernel.name.clone(),
            offset: 0,
        });
    }
    let unimplemented =
        |what: String| TranslateError::Unimplemented { isa: kernel.isa, what, kernel: kernel.name.clone(), offset: 0 };
    if let Some(why) = first_out_of_stage(&program, &stage) {
        return Err(unimplemented(why.into()));
    }
    if let Some(address) = unprovided_input(&stage) {
        return Err(unimplemented(format!(
            "a {} program reading {} (attribute {address:#x}), which its prologue does not provide",
            stage.name(),
            sph::attribute::name(address)
        )));
    }
    match stage {
        Stage::Geometry(geometry) => {
            let header = &geometry.header;
            if header.output_topology().is_none() {
                return Err(unimplemented(format!(
                    "a geometry program whose header names no output topology (word 3 bits 27:24 are {})",
                    header.words[3] >> 24 & 0xf
                )));
            }
            if !(1..=MAX_GEOMETRY_OUTPUT_VERTICES).contains(&header.max_output_vertices()) {
                return Err(unimplemented(format!(
                    "a geometry program of {} output vertices (1 to {MAX_GEOMETRY_OUTPUT_VERTICES} are drawn)",
                    header.max_output_vertices()
                )));
            }
        }
        Stage::TessControl(control) => {
            for (what, count) in
                [("control points a patch", control.patch_vertices), ("output vertices", control.header.invocations())]
            {
                if !(1..=MAX_PATCH_VERTICES).contains(&count) {
                    return Err(unimplemented(format!(
                        "a tessellation control program of {count} {what} (1 to {MAX_PATCH_VERTICES} are drawn)"
                    )));
                }
            }
            let generics = control.next_stage_reads | control.header.generics_written();
            patch_words_fit(control.patch_words, generics).map_err(unimplemented)?;
        }
        Stage::TessEval(evaluation) => {
            let generics = evaluation.header.generics_read();
            patch_words_fit(evaluation.patch_words, generics).map_err(unimplemented)?;
        }
        _ => {}
    }
    if !matches!(stage, Stage::Fragment(_)) {
        refuse_lod_queries(kernel, &program, "a stage before the rasteriser")?;
    }
    require_pools(kernel, &program, texture_views)?;
    let (spirv, control_flow) = spirv::emit(&program, &stage, global, texture_views, Layout::default());
    let quad_operations =
        program.any_op(&|op| matches!(op, ir::Op::QuadShuffle(..) | ir::Op::Special(ir::Special::QuadLane)));
    let subgroup_votes = program.any_op(&|op| matches!(op, ir::Op::SubgroupVote(..) | ir::Op::SubgroupBallot(_)));
    Ok(Translation {
        spirv,
        constant_banks: program.constant_banks,
        textures: program.textures,
        surfaces: program.surfaces,
        control_flow,
        quad_operations,
        subgroup_votes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key names everything a translation depends on, and nothing else.
    #[test]
    fn cache_keys_change_with_what_the_translation_depends_on() {
        // EXIT, NOP: one SM86 program.
        let exit = 0x000f_ea00_0380_0000_0000_0000_0000_794du128;
        let nop = 0x000f_c000_0000_0000_0000_0000_0000_7918u128;
        let kernel = |words: &[u128]| KernelImage {
            name: "k".into(),
            isa: Isa::Sm86,
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            constants: Vec::new(),
            shared_bytes: 0,
            origin: 0,
        };
        let guest = |device: u64| {
            GlobalMemory::Guest(GuestWindows {
                windows: vec![Window { gpu: 0x10_0000, size: 0x1000, device }],
                fault: 8,
            })
        };
        let uint_2d = TextureView {
            kind: crate::texture::format::NumberKind::Uint,
            dim: ir::TextureDim::D2,
            array: false,
            pool: None,
            buffer: false,
        };
        let key = cache_key(&kernel(&[nop, exit]), [32, 1, 1], 16, &guest(0x1000), &[]);
        assert_eq!(key, cache_key(&kernel(&[nop, exit]), [32, 1, 1], 16, &guest(0x1000), &[]));
        for other in [
            cache_key(&kernel(&[exit, nop]), [32, 1, 1], 16, &guest(0x1000), &[]),
            cache_key(&kernel(&[nop, exit]), [64, 1, 1], 16, &guest(0x1000), &[]),
            cache_key(&kernel(&[nop, exit]), [32, 1, 1], 32, &guest(0x1000), &[]),
            cache_key(&kernel(&[nop, exit]), [32, 1, 1], 16, &guest(0x2000), &[]),
            cache_key(&kernel(&[nop, exit]), [32, 1, 1], 16, &GlobalMemory::Device, &[]),
            cache_key(&kernel(&[nop, exit]), [32, 1, 1], 16, &guest(0x1000), &[uint_2d]),
            cache_key(&KernelImage { origin: 0x60, ..kernel(&[nop, exit]) }, [32, 1, 1], 16, &guest(0x1000), &[]),
        ] {
            assert_ne!(key, other);
        }
        assert_eq!(lowering_version(Isa::Sm86, "NOP"), 1);
    }
}
