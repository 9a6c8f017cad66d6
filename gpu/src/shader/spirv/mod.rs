//! IR to SPIR-V (through rspirv), for compute shaders.
//!
//! The shape of every module: guest registers, predicates and uniform registers are function variables (zero
//! at the start: registers read before they are written read 0, as on the hardware); the guest's control flow
//! becomes SPIR-V's constructs where `structure` lays it out (`structured`), else one loop around a switch on
//! the current block's offset (a dispatcher), which is structured whatever the guest's CFG looks like, and
//! takes returns and jump tables (indirect jumps) as they come. Guarded instructions are selection constructs.
//!
//! FP32 never goes through the host's FP32 arithmetic where the host could differ from NVIDIA's: arithmetic
//! is done in FP64 and rounded once, in integer arithmetic, in the instruction's mode; operands are widened
//! and compared without FP32 conversions. Hosts may flush FP32 denormals (NVIDIA's own Vulkan driver does,
//! and cannot be asked not to on an H200) and may not fuse Fma (lavapipe does not); neither changes a result.
//!
//! Barriers must be met in uniform control flow, which a dispatcher is not (threads take different numbers of
//! iterations to reach one). A structured program whose barriers every thread meets (`uniformity`) has them
//! where they stand; any other program with barriers runs in phases: the dispatcher loop runs each thread
//! until it exits or reaches a barrier (its block ends there), and the phase loop around it, which every
//! thread runs in step, then executes the barrier and goes on while any thread of the workgroup has not
//! exited. Whether any has not is a workgroup flag each paused thread sets before the barrier and every
//! thread reads after it; three flags in rotation let a flag be cleared two phases before its next use, with
//! a barrier in between, so no clearing races a setting.
//!
//! The resource interface (what a back end binds): constant bank N is a storage buffer of words at
//! descriptor set 0, binding = its index in `Translation::constant_banks`; global memory is reached through
//! 64-bit physical storage buffer addresses (Vulkan's buffer device address); shared memory is a workgroup
//! array, local memory a private array of the thread.

mod float64;
mod graphics;
mod memory;
mod structured;
mod surface;
mod texture;

use crate::shader::ir::TextureView;
use crate::shader::sph::OutputTopology;
use graphics::{
    ATTRIBUTE_WORDS, StageIo, declare_fragment_io, declare_geometry_io, declare_tess_control_io, declare_tess_eval_io,
    declare_vertex_io,
};
pub use graphics::{
    CapturedWords, FragmentInterface, GeometryInput, GeometryInterface, PATCH_LOCATIONS_END, POINT_COORD, PointOrigin,
    PointSize, Saturate, Stage, TessControlInterface, TessDomain, TessEvalInterface, TessOutput, TessSpacing,
    Tessellator, UNSWIZZLED, UserClip, VertexInterface, WindowClip, captured_words,
};
use surface::{SurfaceVariable, declare_surfaces};
pub(crate) use texture::missing_pools;
use texture::{TextureVariable, declare_textures};

use super::ir::{
    BinOp, Block, Cmp, Conv, FArith, HalfFormat, Op, Program, QuadShuffle, Round, Space, Special, Stmt, Terminator,
    Type, UnOp, Value, Vote,
};
use super::structure::{ControlFlow, structurise};
use super::{GlobalMemory, Layout};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl,
    MemoryModel, SelectionControl, StorageClass, Word,
};
use std::collections::{BTreeSet, HashMap};
use structured::Structured;

/// GLSL.std.450 extended instructions used.
mod glsl {
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const TANH: u32 = 21;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const U_MIN: u32 = 38;
    pub const U_MAX: u32 = 41;
    pub const FIND_U_MSB: u32 = 75;
    pub const N_CLAMP: u32 = 81;
    pub const INTERPOLATE_AT_CENTROID: u32 = 76;
    pub const INTERPOLATE_AT_OFFSET: u32 = 78;
}

/// A binary floating-point format narrower than FP64: FP32, FP16 or BF16 (bits in the low end of a U32).
#[derive(Clone, Copy)]
struct Format {
    mantissa: u32,
    exponent_bits: u32,
}

const F32: Format = Format { mantissa: 23, exponent_bits: 8 };
const F16: Format = Format { mantissa: 10, exponent_bits: 5 };
const BF16: Format = Format { mantissa: 7, exponent_bits: 8 };

impl Format {
    fn bias(self) -> u32 {
        (1 << (self.exponent_bits - 1)) - 1
    }

    fn max_exponent(self) -> u32 {
        (1 << self.exponent_bits) - 1
    }

    fn sign_bit(self) -> u32 {
        self.mantissa + self.exponent_bits
    }
}

/// The FP64 operations of the error-free transformations.
#[derive(Clone, Copy)]
enum FloatOp {
    Add,
    Sub,
    Mul,
}

/// Memory semantics of BAR.SYNC: acquire-release on workgroup memory.
const BARRIER_SEMANTICS: u32 = 0x8 | 0x100;
/// Scope::Workgroup.
const WORKGROUP_SCOPE: u32 = 2;
/// The fewest words a warp exchange slot holds: a U64's two (then the phase tag).
const WARP_SLOT_VALUE_WORDS: u32 = 2;
/// Scope Device: atomics on global memory.
const DEVICE_SCOPE: u32 = 1;

struct Types {
    void: Word,
    bool: Word,
    u32: Word,
    u64: Word,
    f32: Word,
    f64: Word,
    v3u32: Word,
    ptr_function_u32: Word,
    ptr_function_bool: Word,
    ptr_psb_u32: Word,
}

/// Where the phase loop keeps its flags and its count.
struct Phases {
    /// Workgroup `uint[3]`: a thread still runs, for the phase (count % 3).
    running: Word,
    /// Function `uint`: the phase count.
    count: Word,
    /// Function `bool`: the thread stopped at a barrier in this phase.
    paused: Word,
}

struct Emitter<'p> {
    b: Builder,
    t: Types,
    glsl: Word,
    program: &'p Program,
    global: &'p GlobalMemory,
    values: HashMap<Value, Word>,
    registers: HashMap<u8, Word>,
    predicates: HashMap<u8, Word>,
    uniforms: HashMap<u8, Word>,
    banks: HashMap<u8, Word>,
    shared: Option<Word>,
    /// Shared memory is an array of 64-bit words (`shared_word`): the program has 64-bit shared atomics, which
    /// need 64-bit atomic words (a host without VK_KHR_workgroup_memory_explicit_layout, lavapipe, cannot view
    /// one array both ways).
    shared_wide: bool,
    local: Option<Word>,
    local_invocation_id: Word,
    workgroup_id: Word,
    local_invocation_index: Word,
    /// `SubgroupLocalInvocationId`, in pixel programs that read their place in the quad.
    subgroup_invocation: Option<Word>,
    /// `SampleId` and `SampleMask` (an array of one word), in pixel programs that read them.
    sample_id: Option<Word>,
    sample_mask: Option<Word>,
    /// The dispatcher's current block and whether the thread has stopped.
    block_id: Word,
    done: Word,
    /// How the program's blocks are laid out; a structured layout's state as it is emitted, and its variable
    /// for multi-level exits (`structured`).
    control_flow: ControlFlow,
    structured: Option<Structured>,
    pending: Word,
    phases: Option<Phases>,
    /// Maxwell's condition code.
    cc: Word,
    /// The thread's clock (`Special::Clock`).
    clock: Word,
    /// The warp exchanges' workgroup array, the words of a thread's slot in it (the values published, then
    /// the phase tag), and the threads of the workgroup.
    warp: Option<Word>,
    warp_slot_words: u32,
    threads: u32,
    /// The last barrier reduction's result, and the counters of the reduction loop.
    barrier_result: Word,
    reduce_counters: [Word; 3],
    /// A graphics stage's interface variables, and its attribute spaces (function arrays of words by byte
    /// address / 4): what the stage reads (ALD, IPA) and what it writes (AST; ALD.O reads it back).
    io: Option<StageIo>,
    attributes: Option<Word>,
    outputs: Option<Word>,
    /// The vertices whose attributes the input attribute space holds: a geometry program's primitive's, else 1.
    input_vertices: u32,
    /// The vertices a geometry program's invocation has emitted (a function variable).
    emitted: Word,
    /// The number of the strip each vertex stream's vertices go on, from 1 (function variables; cuts count them).
    strips: [Word; 4],
    /// The program's textures, by index.
    textures: Vec<TextureVariable>,
    /// The program's surfaces, by index.
    surfaces: Vec<SurfaceVariable>,
    /// The FP64 fused multiply-add function, once a statement calls it (`float64`).
    fused64: Option<Word>,
}

/// Emits the SPIR-V of a shader of `stage`; texture i is what `texture_views[i]` says (FP32 numbers of the
/// binding's own shape when absent). Returns it and how its control flow is laid out.
pub fn emit(
    program: &Program,
    stage: &Stage,
    global: &GlobalMemory,
    texture_views: &[TextureView],
    layout: Layout,
) -> (Vec<u32>, ControlFlow) {
    let local_size = match stage {
        Stage::Compute { local_size } => *local_size,
        _ => [1, 1, 1],
    };
    let compute = matches!(stage, Stage::Compute { .. });
    let mut b = Builder::new();
    b.set_version(1, 5);
    for capability in [
        Capability::Shader,
        Capability::Int64,
        Capability::Float64,
        Capability::PhysicalStorageBufferAddresses,
        Capability::SignedZeroInfNanPreserve,
    ] {
        b.capability(capability);
    }
    let fragment = matches!(stage, Stage::Fragment(_));
    if program.any_op(&|op| matches!(op, Op::Demote))
        || (fragment && program.any_op(&|op| matches!(op, Op::AtomicCas { space: Space::Global, .. })))
    {
        b.capability(Capability::DemoteToHelperInvocation);
        b.extension("SPV_EXT_demote_to_helper_invocation");
    }
    if program.any_op(&|op| matches!(op, Op::TextureQuery { .. } | Op::TextureLodQuery { .. })) {
        b.capability(Capability::ImageQuery);
    }
    if program.any_op(&|op| matches!(op, Op::InterpolateAt { .. })) {
        b.capability(Capability::InterpolationFunction);
    }
    if program.any_op(&|op| matches!(op, Op::QuadShuffle(..))) {
        b.capability(Capability::GroupNonUniformQuad);
    }
    if program.any_op(&|op| matches!(op, Op::SubgroupVote(..))) {
        b.capability(Capability::GroupNonUniformVote);
    }
    if program.any_op(&|op| matches!(op, Op::SubgroupBallot(_))) {
        b.capability(Capability::GroupNonUniformBallot);
    }
    b.memory_model(AddressingModel::PhysicalStorageBuffer64, MemoryModel::GLSL450);
    let glsl = b.ext_inst_import("GLSL.std.450");
    let void = b.type_void();
    let bool = b.type_bool();
    let u32_ = b.type_int(32, 0);
    let u64_ = b.type_int(64, 0);
    let f32_ = b.type_float(32, None);
    let f64_ = b.type_float(64, None);
    let v3u32 = b.type_vector(u32_, 3);
    let t = Types {
        void,
        bool,
        u32: u32_,
        u64: u64_,
        f32: f32_,
        f64: f64_,
        v3u32,
        ptr_function_u32: b.type_pointer(None, StorageClass::Function, u32_),
        ptr_function_bool: b.type_pointer(None, StorageClass::Function, bool),
        ptr_psb_u32: b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32_),
    };

    // Interface: constant banks, shared memory, built-ins.
    let mut interface = Vec::new();
    let mut banks = HashMap::new();
    let set = stage.descriptor_set();
    if !program.constant_banks.is_empty() {
        let words = b.type_runtime_array(u32_);
        b.decorate(words, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        let block = b.type_struct([words]);
        b.decorate(block, Decoration::Block, []);
        b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        b.member_decorate(block, 0, Decoration::NonWritable, []);
        let pointer = b.type_pointer(None, StorageClass::StorageBuffer, block);
        for (binding, &bank) in program.constant_banks.iter().enumerate() {
            let variable = b.variable(pointer, None, StorageClass::StorageBuffer, None);
            b.decorate(variable, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
            b.decorate(variable, Decoration::Binding, [Operand::LiteralBit32(binding as u32)]);
            banks.insert(bank, variable);
            interface.push(variable);
        }
    }
    let first_texture_binding = program.constant_banks.len() as u32;
    let (textures, first_surface_binding) =
        declare_textures(&mut b, &t, &program.textures, texture_views, set, first_texture_binding, &mut interface);
    let surfaces = declare_surfaces(&mut b, u32_, &program.surfaces, set, first_surface_binding, &mut interface);
    let shared_wide = program.any_op(
        &|op| matches!(op, Op::AtomicCas { space: Space::Shared, value, .. } if program.types[value.0 as usize] == Type::U64),
    );
    let shared = (program.shared_bytes > 0).then(|| {
        let (word, bytes) = if shared_wide { (u64_, 8) } else { (u32_, 4) };
        let length = b.constant_bit32(u32_, program.shared_bytes.div_ceil(bytes));
        let array = b.type_array(word, length);
        let pointer = b.type_pointer(None, StorageClass::Workgroup, array);
        let variable = b.variable(pointer, None, StorageClass::Workgroup, None);
        interface.push(variable);
        variable
    });
    let builtin = |b: &mut Builder, ty: Word, which: BuiltIn, interface: &mut Vec<Word>| {
        let pointer = b.type_pointer(None, StorageClass::Input, ty);
        let variable = b.variable(pointer, None, StorageClass::Input, None);
        b.decorate(variable, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
        interface.push(variable);
        variable
    };
    let has_barriers = program.blocks.iter().any(|block| matches!(block.terminator, Terminator::Barrier(_)));
    let control_flow = match layout {
        Layout::Constructs => structurise(program),
        Layout::Dispatcher => ControlFlow::Dispatcher("asked for"),
    };
    let threads = local_size.iter().product::<u32>();
    // Two buffers (by phase parity) of (values, phase tag) per thread, for warp exchanges.
    let warp_slot_words = warp_slot_words(program);
    let warp = program.any_op(&|op| matches!(op, Op::WarpPublish(_) | Op::BlockReduce(_))).then(|| {
        let length = b.constant_bit32(u32_, 2 * warp_slot_words * threads);
        let array = b.type_array(u32_, length);
        let pointer = b.type_pointer(None, StorageClass::Workgroup, array);
        let variable = b.variable(pointer, None, StorageClass::Workgroup, None);
        interface.push(variable);
        variable
    });
    // Barriers in a structured program are met where they stand; elsewhere the phase loop takes them.
    let phased = has_barriers && matches!(control_flow, ControlFlow::Dispatcher(_));
    let running = phased.then(|| {
        let three = b.constant_bit32(u32_, 3);
        let array = b.type_array(u32_, three);
        let pointer = b.type_pointer(None, StorageClass::Workgroup, array);
        let variable = b.variable(pointer, None, StorageClass::Workgroup, None);
        interface.push(variable);
        variable
    });
    let (local_invocation_id, workgroup_id, local_invocation_index) = if compute {
        (
            builtin(&mut b, v3u32, BuiltIn::LocalInvocationId, &mut interface),
            builtin(&mut b, v3u32, BuiltIn::WorkgroupId, &mut interface),
            builtin(&mut b, u32_, BuiltIn::LocalInvocationIndex, &mut interface),
        )
    } else {
        (0, 0, 0)
    };
    // A pixel's place in its quad is its subgroup invocation's low two bits (Vulkan's quad layout).
    let subgroup_invocation = program.any_op(&|op| matches!(op, Op::Special(Special::QuadLane))).then(|| {
        b.capability(Capability::GroupNonUniform);
        let variable = builtin(&mut b, u32_, BuiltIn::SubgroupLocalInvocationId, &mut interface);
        b.decorate(variable, Decoration::Flat, []);
        variable
    });
    let sample_id = program.any_op(&|op| matches!(op, Op::Special(Special::SampleId))).then(|| {
        b.capability(Capability::SampleRateShading);
        let variable = builtin(&mut b, u32_, BuiltIn::SampleId, &mut interface);
        b.decorate(variable, Decoration::Flat, []);
        variable
    });
    let sample_mask = program.any_op(&|op| matches!(op, Op::Special(Special::SampleMask))).then(|| {
        let one = b.constant_bit32(u32_, 1);
        let words = b.type_array(u32_, one);
        let variable = builtin(&mut b, words, BuiltIn::SampleMask, &mut interface);
        b.decorate(variable, Decoration::Flat, []);
        variable
    });
    let io = match stage {
        Stage::Compute { .. } => None,
        Stage::Vertex(vertex) => Some(declare_vertex_io(&mut b, &t, vertex, &mut interface)),
        Stage::Geometry(geometry) => Some(declare_geometry_io(&mut b, &t, geometry, &mut interface)),
        Stage::TessControl(control) => Some(declare_tess_control_io(&mut b, &t, control, &mut interface)),
        Stage::TessEval(evaluation) => Some(declare_tess_eval_io(&mut b, &t, evaluation, &mut interface)),
        Stage::Fragment(fragment) => Some(declare_fragment_io(&mut b, &t, fragment, &mut interface)),
    };

    let function_type = b.type_function(void, []);
    let main = b.begin_function(void, None, FunctionControl::NONE, function_type).expect("no function is open");
    b.begin_block(None).expect("a function is open");
    let mut e = Emitter {
        b,
        t,
        glsl,
        program,
        global,
        values: HashMap::new(),
        registers: HashMap::new(),
        predicates: HashMap::new(),
        uniforms: HashMap::new(),
        banks,
        shared,
        shared_wide,
        local: None,
        local_invocation_id,
        workgroup_id,
        local_invocation_index,
        subgroup_invocation,
        sample_id,
        sample_mask,
        block_id: 0,
        done: 0,
        control_flow,
        structured: None,
        pending: 0,
        phases: None,
        cc: 0,
        clock: 0,
        warp,
        warp_slot_words,
        threads,
        barrier_result: 0,
        reduce_counters: [0; 3],
        io,
        attributes: None,
        outputs: None,
        input_vertices: match stage {
            Stage::Geometry(geometry) => geometry.input.vertices(),
            Stage::TessControl(control) => control.patch_vertices,
            Stage::TessEval(evaluation) => evaluation.patch_vertices,
            _ => 1,
        },
        emitted: 0,
        strips: [0; 4],
        textures,
        surfaces,
        fused64: None,
    };
    e.declare_variables();
    if let Some(running) = running {
        let zero = e.u32_const(0);
        let false_ = e.b.constant_false(e.t.bool);
        let count = e.b.variable(e.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
        let paused = e.b.variable(e.t.ptr_function_bool, None, StorageClass::Function, Some(false_));
        e.phases = Some(Phases { running, count, paused });
    }
    e.body(stage);
    e.b.end_function().expect("the function is open");
    e.emit_fused64();
    match stage {
        Stage::Compute { .. } => {
            e.b.entry_point(ExecutionModel::GLCompute, main, "main", interface);
            e.b.execution_mode(main, ExecutionMode::LocalSize, local_size);
        }
        Stage::Vertex(_) => e.b.entry_point(ExecutionModel::Vertex, main, "main", interface),
        Stage::Geometry(geometry) => {
            e.b.entry_point(ExecutionModel::Geometry, main, "main", interface);
            let input = match geometry.input {
                GeometryInput::Points => ExecutionMode::InputPoints,
                GeometryInput::Lines => ExecutionMode::InputLines,
                GeometryInput::LinesAdjacency => ExecutionMode::InputLinesAdjacency,
                GeometryInput::Triangles => ExecutionMode::Triangles,
                GeometryInput::TrianglesAdjacency => ExecutionMode::InputTrianglesAdjacency,
            };
            let output = match geometry.header.output_topology() {
                Some(OutputTopology::Points) => ExecutionMode::OutputPoints,
                Some(OutputTopology::LineStrip) => ExecutionMode::OutputLineStrip,
                Some(OutputTopology::TriangleStrip) => ExecutionMode::OutputTriangleStrip,
                None => unreachable!("translate_graphics refuses a geometry header without an output topology"),
            };
            for mode in [input, output] {
                e.b.execution_mode(main, mode, []);
            }
            e.b.execution_mode(main, ExecutionMode::Invocations, [geometry.header.invocations()]);
            e.b.execution_mode(main, ExecutionMode::OutputVertices, [geometry.header.max_output_vertices()]);
        }
        Stage::TessControl(control) => {
            e.b.entry_point(ExecutionModel::TessellationControl, main, "main", interface);
            e.b.execution_mode(main, ExecutionMode::OutputVertices, [control.header.invocations()]);
        }
        Stage::TessEval(evaluation) => {
            e.b.entry_point(ExecutionModel::TessellationEvaluation, main, "main", interface);
            let tessellator = evaluation.tessellator;
            let domain = match tessellator.domain {
                TessDomain::Isolines => ExecutionMode::Isolines,
                TessDomain::Triangles => ExecutionMode::Triangles,
                TessDomain::Quads => ExecutionMode::Quads,
            };
            let spacing = match tessellator.spacing {
                TessSpacing::Equal => ExecutionMode::SpacingEqual,
                TessSpacing::FractionalOdd => ExecutionMode::SpacingFractionalOdd,
                TessSpacing::FractionalEven => ExecutionMode::SpacingFractionalEven,
            };
            let order = match tessellator.output {
                TessOutput::TrianglesCcw => ExecutionMode::VertexOrderCcw,
                _ => ExecutionMode::VertexOrderCw,
            };
            for mode in [domain, spacing, order] {
                e.b.execution_mode(main, mode, []);
            }
            if tessellator.output == TessOutput::Points {
                e.b.execution_mode(main, ExecutionMode::PointMode, []);
            }
        }
        Stage::Fragment(fragment) => {
            e.b.entry_point(ExecutionModel::Fragment, main, "main", interface);
            e.b.execution_mode(main, ExecutionMode::OriginUpperLeft, []);
            if fragment.early_fragment_tests {
                e.b.execution_mode(main, ExecutionMode::EarlyFragmentTests, []);
                if fragment.post_depth_coverage {
                    e.b.capability(Capability::SampleMaskPostDepthCoverage);
                    e.b.extension("SPV_KHR_post_depth_coverage");
                    e.b.execution_mode(main, ExecutionMode::PostDepthCoverage, []);
                }
            }
        }
    }
    // The exact arithmetic needs -0, infinities and NaNs kept: without this a driver may fold x + 0.0 to x
    // (lavapipe does) and 0.0 * x to 0.0.
    for width in [32, 64] {
        e.b.execution_mode(main, ExecutionMode::SignedZeroInfNanPreserve, [width]);
    }
    let control_flow = e.control_flow;
    let mut module = e.b.module();
    merge_constants(&mut module);
    (module.assemble(), control_flow)
}

/// Words of a warp exchange slot: the most words a `WarpPublish` of `program` publishes (at least
/// `WARP_SLOT_VALUE_WORDS`), and the phase tag.
fn warp_slot_words(program: &Program) -> u32 {
    fn visit(stmts: &[Stmt], types: &[Type]) -> u32 {
        stmts
            .iter()
            .map(|stmt| match stmt {
                Stmt::Op(_, Op::WarpPublish(values)) => {
                    values.iter().map(|value| if types[value.0 as usize] == Type::U64 { 2 } else { 1 }).sum()
                }
                Stmt::Op(..) => 0,
                Stmt::If(_, body) => visit(body, types),
            })
            .max()
            .unwrap_or(0)
    }
    let most = program.blocks.iter().map(|block| visit(&block.body, &program.types)).max().unwrap_or(0);
    most.max(WARP_SLOT_VALUE_WORDS) + 1
}

/// The guest state a program touches: registers, predicates, uniform registers, local memory (the condition
/// code is declared whenever there is local memory or not: see `declare_variables`).
fn places(program: &Program) -> (BTreeSet<u8>, BTreeSet<u8>, BTreeSet<u8>, bool) {
    let (mut r, mut p, mut u, mut local) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new(), false);
    fn visit(stmts: &[Stmt], r: &mut BTreeSet<u8>, p: &mut BTreeSet<u8>, u: &mut BTreeSet<u8>, local: &mut bool) {
        for stmt in stmts {
            match stmt {
                Stmt::Op(_, Op::GetReg(i) | Op::SetReg(i, _)) => {
                    r.insert(*i);
                }
                Stmt::Op(_, Op::GetPred(i) | Op::SetPred(i, _)) => {
                    p.insert(*i);
                }
                Stmt::Op(_, Op::GetUReg(i) | Op::SetUReg(i, _)) => {
                    u.insert(*i);
                }
                Stmt::Op(
                    _,
                    Op::Load { space: Space::Local, .. }
                    | Op::Store { space: Space::Local, .. }
                    | Op::LoadSub { space: Space::Local, .. }
                    | Op::StoreSub { space: Space::Local, .. },
                ) => {
                    *local = true;
                }
                Stmt::Op(..) => {}
                Stmt::If(_, body) => visit(body, r, p, u, local),
            }
        }
    }
    for block in &program.blocks {
        visit(&block.body, &mut r, &mut p, &mut u, &mut local);
    }
    (r, p, u, local)
}

impl Emitter<'_> {
    fn u32_const(&mut self, value: u32) -> Word {
        self.b.constant_bit32(self.t.u32, value)
    }

    /// Function variables (all in the entry block, as SPIR-V requires), zero-initialised.
    fn declare_variables(&mut self) {
        let (registers, predicates, uniforms, local) = places(self.program);
        let zero = self.u32_const(0);
        let false_ = self.b.constant_false(self.t.bool);
        for r in registers {
            let variable = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
            self.registers.insert(r, variable);
        }
        for u in uniforms {
            let variable = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
            self.uniforms.insert(u, variable);
        }
        for p in predicates {
            let variable = self.b.variable(self.t.ptr_function_bool, None, StorageClass::Function, Some(false_));
            self.predicates.insert(p, variable);
        }
        if local {
            let length = self.u32_const(self.program.local_bytes.div_ceil(4).max(1));
            let array = self.b.type_array(self.t.u32, length);
            let pointer = self.b.type_pointer(None, StorageClass::Function, array);
            self.local = Some(self.b.variable(pointer, None, StorageClass::Function, None));
        }
        if self.io.is_some() {
            let array = |e: &mut Self, words: u32| {
                let length = e.u32_const(words);
                let array = e.b.type_array(e.t.u32, length);
                let pointer = e.b.type_pointer(None, StorageClass::Function, array);
                let null = e.b.constant_null(array);
                e.b.variable(pointer, None, StorageClass::Function, Some(null))
            };
            self.attributes = Some(array(self, ATTRIBUTE_WORDS * self.input_vertices));
            self.outputs = Some(array(self, ATTRIBUTE_WORDS));
        }
        if matches!(self.io, Some(StageIo::Geometry { .. })) {
            self.emitted = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
            let one = self.u32_const(1);
            self.strips =
                [(); 4].map(|_| self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(one)));
        }
        if let ControlFlow::Structured(_) = self.control_flow {
            self.pending = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
        } else {
            let entry = self.u32_const(self.program.entry);
            self.block_id = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(entry));
            self.done = self.b.variable(self.t.ptr_function_bool, None, StorageClass::Function, Some(false_));
        }
        self.cc = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
        let ptr_function_u64 = self.b.type_pointer(None, StorageClass::Function, self.t.u64);
        let zero64 = self.b.constant_bit64(self.t.u64, 0);
        self.clock = self.b.variable(ptr_function_u64, None, StorageClass::Function, Some(zero64));
        self.barrier_result = self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero));
        self.reduce_counters =
            std::array::from_fn(|_| self.b.variable(self.t.ptr_function_u32, None, StorageClass::Function, Some(zero)));
    }

    /// The function body: the dispatcher, inside the phase loop when the program has barriers; graphics stages
    /// fill their attribute inputs before it and hand their outputs on after it.
    fn body(&mut self, stage: &Stage) {
        let Some(phases) = &self.phases else {
            match stage {
                Stage::Compute { .. } => self.blocks(),
                Stage::Vertex(vertex) => {
                    self.vertex_prologue(vertex);
                    self.blocks();
                    self.vertex_epilogue(vertex);
                }
                Stage::Geometry(geometry) => {
                    self.geometry_prologue(geometry);
                    self.blocks();
                }
                Stage::TessControl(_) => {
                    self.tess_control_prologue();
                    self.blocks();
                    self.tess_control_epilogue();
                }
                Stage::TessEval(_) => {
                    self.tess_eval_prologue();
                    self.blocks();
                    self.tess_eval_epilogue();
                }
                Stage::Fragment(fragment) => {
                    self.fragment_prologue(fragment);
                    self.blocks();
                    self.fragment_epilogue(fragment);
                }
            }
            self.b.ret().expect("in a block");
            return;
        };
        let (running, count, paused) = (phases.running, phases.count, phases.paused);
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let pointer = self.b.type_pointer(None, StorageClass::Workgroup, u32_);
        let flag = |e: &mut Self, index: Word| e.b.access_chain(pointer, None, running, [index]).expect("in a block");
        let (zero, one, two, three) = (self.u32_const(0), self.u32_const(1), self.u32_const(2), self.u32_const(3));
        let (scope, semantics) = (self.u32_const(WORKGROUP_SCOPE), self.u32_const(BARRIER_SEMANTICS));
        // Workgroup memory starts undefined: clear the flags, in step, and tag the warp exchange slots as
        // published in no phase.
        for index in [zero, one, two] {
            let pointer = flag(self, index);
            self.b.store(pointer, zero, None, []).expect("in a block");
        }
        if self.warp.is_some() {
            let never = self.u32_const(u32::MAX);
            for buffer in [zero, one] {
                let (_, tag) = self.warp_slot_of_thread(buffer);
                self.b.store(tag, never, None, []).expect("in a block");
            }
        }
        self.b.control_barrier(scope, scope, semantics).expect("in a block");
        let (header, continue_, merge) = self.open_loop();
        self.dispatcher();
        // After the phase: say whether this thread goes on, meet at the barrier, read whether any does.
        let phase = self.b.load(u32_, None, count, None, []).expect("in a block");
        let slot = self.b.u_mod(u32_, None, phase, three).expect("in a block");
        let done = self.b.load(bool_, None, self.done, None, []).expect("in a block");
        let value = self.b.select(u32_, None, done, zero, one).expect("in a block");
        let this_flag = flag(self, slot);
        let device_scope = self.u32_const(WORKGROUP_SCOPE);
        let relaxed = self.u32_const(0);
        self.b.atomic_or(u32_, None, this_flag, device_scope, relaxed, value).expect("in a block");
        let false_ = self.b.constant_false(bool_);
        self.b.store(paused, false_, None, []).expect("in a block");
        self.b.control_barrier(scope, scope, semantics).expect("in a block");
        let any = self.b.load(u32_, None, this_flag, None, []).expect("in a block");
        let later = self.b.i_add(u32_, None, phase, two).expect("in a block");
        let later_slot = self.b.u_mod(u32_, None, later, three).expect("in a block");
        let later_flag = flag(self, later_slot);
        self.b.store(later_flag, zero, None, []).expect("in a block");
        let next_phase = self.b.i_add(u32_, None, phase, one).expect("in a block");
        self.b.store(count, next_phase, None, []).expect("in a block");
        let again = self.b.i_not_equal(bool_, None, any, zero).expect("in a block");
        self.b.branch(continue_).expect("in a block");
        self.b.begin_block(Some(continue_)).expect("in a function");
        self.b.branch_conditional(again, header, merge, []).expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
        self.b.ret().expect("in a block");
    }

    /// The program's blocks, as `control_flow` lays them out. Leaves the builder in the block after them.
    fn blocks(&mut self) {
        match &self.control_flow {
            ControlFlow::Structured(code) => {
                let code = code.clone();
                self.structured = Some(Structured::new(self.program));
                self.structured(&code);
            }
            ControlFlow::Dispatcher(_) => self.dispatcher(),
        }
    }

    /// loop { switch (block) { case OFFSET: ...; } } until the thread exits (or, in a phase, pauses at a
    /// barrier). Leaves the builder in the block after the loop.
    fn dispatcher(&mut self) {
        let (header, dispatch, merge, continue_, switch_merge, default) =
            (self.b.id(), self.b.id(), self.b.id(), self.b.id(), self.b.id(), self.b.id());
        let check = self.b.id();
        self.b.branch(header).expect("in a block");
        self.b.begin_block(Some(header)).expect("in a function");
        self.b.loop_merge(merge, continue_, spirv::LoopControl::NONE, []).expect("in a block");
        self.b.branch(check).expect("in a block");
        // A thread that has exited, or paused at a barrier, runs nothing more in this phase.
        self.b.begin_block(Some(check)).expect("in a function");
        let stop = self.stopped();
        self.b.branch_conditional(stop, merge, dispatch, []).expect("in a block");
        self.b.begin_block(Some(dispatch)).expect("in a function");
        let current = self.b.load(self.t.u32, None, self.block_id, None, []).expect("in a block");
        self.b.selection_merge(switch_merge, SelectionControl::NONE).expect("in a block");
        let labels: Vec<Word> = self.program.blocks.iter().map(|_| self.b.id()).collect();
        let cases =
            self.program.blocks.iter().zip(&labels).map(|(block, &label)| (Operand::LiteralBit32(block.start), label));
        self.b.switch(current, default, cases.collect::<Vec<_>>()).expect("in a block");
        for (block, &label) in self.program.blocks.iter().zip(&labels) {
            self.b.begin_block(Some(label)).expect("in a function");
            self.block(block);
            self.b.branch(switch_merge).expect("in a block");
        }
        // A jump to an offset where no block starts: the thread stops.
        self.b.begin_block(Some(default)).expect("in a function");
        let true_ = self.b.constant_true(self.t.bool);
        self.b.store(self.done, true_, None, []).expect("in a block");
        self.b.branch(switch_merge).expect("in a block");
        self.b.begin_block(Some(switch_merge)).expect("in a function");
        self.b.branch(continue_).expect("in a block");
        self.b.begin_block(Some(continue_)).expect("in a function");
        self.b.branch(header).expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
    }

    /// Whether the thread has exited or paused.
    fn stopped(&mut self) -> Word {
        let bool_ = self.t.bool;
        let done = self.b.load(bool_, None, self.done, None, []).expect("in a block");
        let Some(phases) = &self.phases else { return done };
        let paused = phases.paused;
        let paused = self.b.load(bool_, None, paused, None, []).expect("in a block");
        self.b.logical_or(bool_, None, done, paused).expect("in a block")
    }

    fn block(&mut self, block: &Block) {
        self.stmts(&block.body);
        let next = |e: &mut Self, target: u32| e.u32_const(target);
        match &block.terminator {
            Terminator::Jump(target) => {
                let target = next(self, *target);
                self.b.store(self.block_id, target, None, []).expect("in a block");
            }
            Terminator::Branch(cond, taken, not_taken) => {
                let (taken, not_taken) = (next(self, *taken), next(self, *not_taken));
                let cond = self.values[cond];
                let target = self.b.select(self.t.u32, None, cond, taken, not_taken).expect("in a block");
                self.b.store(self.block_id, target, None, []).expect("in a block");
            }
            Terminator::JumpIndirect(target) => {
                let target = self.values[target];
                self.b.store(self.block_id, target, None, []).expect("in a block");
            }
            Terminator::Exit(None) => {
                let true_ = self.b.constant_true(self.t.bool);
                self.b.store(self.done, true_, None, []).expect("in a block");
            }
            Terminator::Barrier(after) => {
                let after = next(self, *after);
                self.b.store(self.block_id, after, None, []).expect("in a block");
                let paused = self.phases.as_ref().expect("a program with barriers has phases").paused;
                let true_ = self.b.constant_true(self.t.bool);
                self.b.store(paused, true_, None, []).expect("in a block");
            }
            Terminator::Exit(Some((cond, otherwise))) => {
                let cond = self.values[cond];
                self.b.store(self.done, cond, None, []).expect("in a block");
                let otherwise = next(self, *otherwise);
                self.b.store(self.block_id, otherwise, None, []).expect("in a block");
            }
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            match stmt {
                Stmt::Op(value, op) => {
                    if let Some(id) = self.op(op) {
                        self.values.insert(*value, id);
                    }
                }
                Stmt::If(cond, body) => {
                    let cond = self.values[cond];
                    let (then, merge) = (self.b.id(), self.b.id());
                    self.b.selection_merge(merge, SelectionControl::NONE).expect("in a block");
                    self.b.branch_conditional(cond, then, merge, []).expect("in a block");
                    self.b.begin_block(Some(then)).expect("in a function");
                    self.stmts(body);
                    self.b.branch(merge).expect("in a block");
                    self.b.begin_block(Some(merge)).expect("in a function");
                }
            }
        }
    }

    fn type_of(&self, value: Value) -> Type {
        self.program.types[value.0 as usize]
    }

    fn spirv_type(&mut self, ty: Type) -> Word {
        match ty {
            Type::Bool => self.t.bool,
            Type::U32 => self.t.u32,
            Type::U64 => self.t.u64,
            Type::U32x4 => self.v4u32(),
        }
    }

    fn v4u32(&mut self) -> Word {
        self.b.type_vector(self.t.u32, 4)
    }

    fn is_fragment(&self) -> bool {
        matches!(self.io, Some(StageIo::Fragment { .. }))
    }

    fn float(&mut self, bits: Word) -> Word {
        self.b.bitcast(self.t.f32, None, bits).expect("in a block")
    }

    fn bits(&mut self, float: Word) -> Word {
        self.b.bitcast(self.t.u32, None, float).expect("in a block")
    }

    fn glsl(&mut self, ty: Word, instruction: u32, operands: &[Word]) -> Word {
        let operands = operands.iter().map(|&id| Operand::IdRef(id)).collect::<Vec<_>>();
        self.b.ext_inst(ty, None, self.glsl, instruction, operands).expect("in a block")
    }

    /// A shift whose amount may reach the width: 0 (or the sign for arithmetic shifts) past it.
    fn shift(&mut self, op: BinOp, ty: Type, value: Word, amount: Word) -> Word {
        let width = if ty == Type::U64 { 64 } else { 32 };
        let t = self.spirv_type(ty);
        let limit = self.u32_const(width);
        let within = self.b.u_less_than(self.t.bool, None, amount, limit).expect("in a block");
        let last = self.u32_const(width - 1);
        let safe_amount = self.b.select(self.t.u32, None, within, amount, last).expect("in a block");
        let shifted = match op {
            BinOp::Shl => self.b.shift_left_logical(t, None, value, safe_amount),
            BinOp::ShrU => self.b.shift_right_logical(t, None, value, safe_amount),
            _ => self.b.shift_right_arithmetic(t, None, value, safe_amount),
        }
        .expect("in a block");
        let beyond = if op == BinOp::ShrS {
            shifted // value >> (width - 1): the sign fill.
        } else if ty == Type::U64 {
            self.b.constant_bit64(self.t.u64, 0)
        } else {
            self.u32_const(0)
        };
        self.b.select(t, None, within, shifted, beyond).expect("in a block")
    }

    fn op(&mut self, op: &Op) -> Option<Word> {
        let v = |e: &Self, x: &Value| e.values[x];
        let result_type = op.result_type(|x| self.type_of(x));
        let result_type = result_type.map(|ty| self.spirv_type(ty));
        let rt = result_type.unwrap_or(self.t.void);
        let b = &mut self.b;
        Some(match op {
            Op::Const(Type::Bool, x) => {
                if *x != 0 {
                    b.constant_true(self.t.bool)
                } else {
                    b.constant_false(self.t.bool)
                }
            }
            Op::Const(Type::U32, x) => b.constant_bit32(self.t.u32, *x as u32),
            Op::Const(Type::U64, x) => b.constant_bit64(self.t.u64, *x),
            // Each component the low word (no lowering makes one yet).
            Op::Const(Type::U32x4, x) => {
                let word = b.constant_bit32(self.t.u32, *x as u32);
                b.constant_composite(rt, [word; 4])
            }
            Op::GetReg(i) => b.load(self.t.u32, None, self.registers[i], None, []).expect("in a block"),
            Op::GetUReg(i) => b.load(self.t.u32, None, self.uniforms[i], None, []).expect("in a block"),
            Op::GetPred(i) => b.load(self.t.bool, None, self.predicates[i], None, []).expect("in a block"),
            Op::GetCc => b.load(self.t.u32, None, self.cc, None, []).expect("in a block"),
            Op::SetCc(x) => {
                let x = v(self, x);
                self.b.store(self.cc, x, None, []).expect("in a block");
                return None;
            }
            Op::SetReg(i, x) => {
                let x = v(self, x);
                self.b.store(self.registers[i], x, None, []).expect("in a block");
                return None;
            }
            Op::SetUReg(i, x) => {
                let x = v(self, x);
                self.b.store(self.uniforms[i], x, None, []).expect("in a block");
                return None;
            }
            Op::SetPred(i, x) => {
                let x = v(self, x);
                self.b.store(self.predicates[i], x, None, []).expect("in a block");
                return None;
            }
            Op::Binary(op, x, y) => {
                let ty = self.type_of(*x);
                let (x, y) = (v(self, x), v(self, y));
                return Some(self.binary(*op, ty, rt, x, y));
            }
            Op::Unary(op, x) => {
                let double = self.type_of(*x) == Type::U64;
                let x = v(self, x);
                if double && op.is_float() {
                    return Some(self.unary64(*op, x));
                }
                return Some(self.unary(*op, rt, x));
            }
            Op::Select(c, x, y) => {
                let (c, x, y) = (v(self, c), v(self, x), v(self, y));
                self.b.select(rt, None, c, x, y).expect("in a block")
            }
            Op::Compare(cmp, x, y) => {
                let ty = self.type_of(*x);
                let (x, y) = (v(self, x), v(self, y));
                return Some(self.compare(*cmp, ty, x, y));
            }
            Op::Convert(conv, x) => {
                let double = self.type_of(*x) == Type::U64;
                let x = v(self, x);
                return Some(self.convert(*conv, x, double));
            }
            Op::FArith(kind, round, operands) => {
                let double = self.type_of(operands[0]) == Type::U64;
                let operands = operands.map(|x| v(self, &x));
                if double {
                    return Some(self.float64_arith(*kind, *round, operands));
                }
                return Some(self.float_arith(*kind, *round, operands, F32));
            }
            Op::F32ToHalf(round, x) => {
                let double = self.type_of(*x) == Type::U64;
                let x = v(self, x);
                let wide =
                    if double { self.b.bitcast(self.t.f64, None, x).expect("in a block") } else { self.widen(x) };
                return Some(self.narrow_format(wide, *round, F16));
            }
            Op::F64ToF32(round, x) => {
                let x = v(self, x);
                let wide = self.b.bitcast(self.t.f64, None, x).expect("in a block");
                return Some(self.narrow_format(wide, *round, F32));
            }
            Op::HalfArith(format, kind, operands) => {
                let operands = operands.map(|x| v(self, &x));
                let format = if *format == HalfFormat::Bf16 { BF16 } else { F16 };
                return Some(self.float_arith(*kind, Round::NearestEven, operands, format));
            }
            Op::ConstantLoad { bank, offset } => {
                // Past the bank's bound size a read gives 0, as on the hardware (and no access outside the
                // buffer: word 0 is read instead, and dropped).
                let offset = v(self, offset);
                let two = self.u32_const(2);
                let index = self.b.shift_right_logical(self.t.u32, None, offset, two).expect("in a block");
                let zero = self.u32_const(0);
                let words = self.b.array_length(self.t.u32, None, self.banks[bank], 0).expect("in a block");
                let inside = self.b.u_less_than(self.t.bool, None, index, words).expect("in a block");
                let index = self.b.select(self.t.u32, None, inside, index, zero).expect("in a block");
                let pointer_type = self.b.type_pointer(None, StorageClass::StorageBuffer, self.t.u32);
                let pointer =
                    self.b.access_chain(pointer_type, None, self.banks[bank], [zero, index]).expect("in a block");
                let word = self.b.load(self.t.u32, None, pointer, None, []).expect("in a block");
                self.b.select(self.t.u32, None, inside, word, zero).expect("in a block")
            }
            Op::Load { space: Space::Shared, address } if self.shared_wide => {
                let address = v(self, address);
                self.load_sub(Space::Shared, address, 4)
            }
            Op::Load { space, address } => {
                let address = v(self, address);
                let (pointer, access) = self.pointer(*space, address);
                self.b.load(self.t.u32, None, pointer, access.0, access.1).expect("in a block")
            }
            Op::Store { space: Space::Shared, address, value } if self.shared_wide => {
                let (address, value) = (v(self, address), v(self, value));
                self.store_sub(Space::Shared, address, 4, value);
                return None;
            }
            Op::Store { space, address, value } => {
                let (address, value) = (v(self, address), v(self, value));
                let (pointer, access) = self.pointer(*space, address);
                self.b.store(pointer, value, access.0, access.1).expect("in a block");
                return None;
            }
            Op::LoadSub { space, address, bytes } => {
                let address = v(self, address);
                self.load_sub(*space, address, *bytes)
            }
            Op::StoreSub { space, address, bytes, value } => {
                let (address, value) = (v(self, address), v(self, value));
                self.store_sub(*space, address, *bytes, value);
                return None;
            }
            Op::AtomicCas { space, address, compare, value: new } => {
                let wide = self.type_of(*new) == Type::U64;
                let (address, compare, value) = (v(self, address), v(self, compare), v(self, new));
                if *space == Space::Shared && self.shared_wide {
                    return Some(self.shared_swap(address, compare, value, wide));
                }
                let (ty, pointer) = if wide {
                    // A 64-bit word of global memory (shared memory's are `shared_wide`).
                    self.b.capability(Capability::Int64Atomics);
                    let address = match self.global {
                        GlobalMemory::Device => address,
                        GlobalMemory::Guest(windows) => self.guest_address(windows, address),
                    };
                    let pointer_type = self.b.type_pointer(None, StorageClass::PhysicalStorageBuffer, self.t.u64);
                    (self.t.u64, self.b.convert_u_to_ptr(pointer_type, None, address).expect("in a block"))
                } else {
                    (self.t.u32, self.pointer(*space, address).0)
                };
                let scope = self.u32_const(if *space == Space::Global { DEVICE_SCOPE } else { WORKGROUP_SCOPE });
                let relaxed = self.u32_const(0);
                let held = self
                    .b
                    .atomic_compare_exchange(ty, None, pointer, scope, relaxed, relaxed, value, compare)
                    .expect("in a block");
                if !self.is_fragment() || *space != Space::Global {
                    return Some(held);
                }
                // A helper invocation's atomics change nothing (on Maxwell too) and return undefined values
                // (Vulkan): it gets `compare`, as if its swap succeeded, so that a compare-and-swap loop ends.
                let helper = self.b.is_helper_invocation_ext(self.t.bool, None).expect("in a block");
                self.b.select(ty, None, helper, compare, held).expect("in a block")
            }
            Op::WarpPublish(values) => {
                let mut words = Vec::new();
                for value_id in values {
                    let value = v(self, value_id);
                    if self.type_of(*value_id) == Type::U64 {
                        let thirty_two = self.u32_const(32);
                        let shifted =
                            self.b.shift_right_logical(self.t.u64, None, value, thirty_two).expect("in a block");
                        words.push(self.b.u_convert(self.t.u32, None, value).expect("in a block"));
                        words.push(self.b.u_convert(self.t.u32, None, shifted).expect("in a block"));
                    } else {
                        words.push(value);
                    }
                }
                let phase = self.phase();
                let one = self.u32_const(1);
                let buffer = self.b.bitwise_and(self.t.u32, None, phase, one).expect("in a block");
                let index = self.b.load(self.t.u32, None, self.local_invocation_index, None, []).expect("in a block");
                let base = self.warp_slot_base(buffer, index);
                for (word, value) in words.into_iter().enumerate() {
                    let pointer = self.warp_slot_word(base, word as u32);
                    self.b.store(pointer, value, None, []).expect("in a block");
                }
                let tag = self.warp_slot_word(base, self.warp_slot_words - 1);
                self.b.store(tag, phase, None, []).expect("in a block");
                return None;
            }
            Op::QuadShuffle(value, shuffle) => {
                let value = v(self, value);
                let subgroup = self.u32_const(rspirv::spirv::Scope::Subgroup as u32);
                match *shuffle {
                    QuadShuffle::Swap(xor) => {
                        // Directions: 0 horizontal (XOR 1), 1 vertical (XOR 2), 2 diagonal (XOR 3).
                        let direction = self.u32_const(u32::from(xor) - 1);
                        self.b.group_non_uniform_quad_swap(self.t.u32, None, subgroup, value, direction)
                    }
                    QuadShuffle::Broadcast(lane) => {
                        let lane = self.u32_const(u32::from(lane));
                        self.b.group_non_uniform_quad_broadcast(self.t.u32, None, subgroup, value, lane)
                    }
                }
                .expect("in a block")
            }
            Op::SubgroupVote(p, vote) => {
                let p = v(self, p);
                let subgroup = self.u32_const(rspirv::spirv::Scope::Subgroup as u32);
                match vote {
                    Vote::All => self.b.group_non_uniform_all(self.t.bool, None, subgroup, p),
                    Vote::Any => self.b.group_non_uniform_any(self.t.bool, None, subgroup, p),
                    Vote::Equal => self.b.group_non_uniform_all_equal(self.t.bool, None, subgroup, p),
                }
                .expect("in a block")
            }
            Op::SubgroupBallot(p) => {
                let p = v(self, p);
                let subgroup = self.u32_const(rspirv::spirv::Scope::Subgroup as u32);
                let v4u32 = self.b.type_vector(self.t.u32, 4);
                let ballot = self.b.group_non_uniform_ballot(v4u32, None, subgroup, p).expect("in a block");
                self.b.composite_extract(self.t.u32, None, ballot, [0]).expect("in a block")
            }
            Op::WarpRead { lane, word } => {
                let lane = v(self, lane);
                let (present, base) = self.warp_lane(lane);
                let slot = self.warp_slot_word(base, u32::from(*word));
                let value = self.b.load(self.t.u32, None, slot, None, []).expect("in a block");
                let zero = self.u32_const(0);
                self.b.select(self.t.u32, None, present, value, zero).expect("in a block")
            }
            Op::BlockReduce(kind) => self.block_reduce(*kind),
            Op::GetBarrierResult => self.b.load(self.t.u32, None, self.barrier_result, None, []).expect("in a block"),
            Op::SetBarrierResult(value) => {
                let value = v(self, value);
                self.b.store(self.barrier_result, value, None, []).expect("in a block");
                return None;
            }
            Op::TextureSample { texture, coordinates, layer, lod, reference, offset } => {
                self.texture_sample(*texture, coordinates, *layer, *lod, *reference, *offset)
            }
            Op::TextureFetch { texture, coordinates, layer, level } => {
                self.texture_fetch(*texture, coordinates, *layer, *level)
            }
            Op::TextureGather { texture, coordinates, layer, component, reference, offsets } => {
                self.texture_gather(*texture, coordinates, *layer, *component, *reference, *offsets)
            }
            Op::TextureQuery { texture, level } => self.texture_query(*texture, *level),
            Op::TextureLodQuery { texture, coordinates } => self.texture_lod_query(*texture, coordinates),
            Op::SurfaceLoad { surface, coordinates } => self.surface_load(*surface, coordinates),
            Op::SurfaceStore { surface, coordinates, channels } => {
                self.surface_store(*surface, coordinates, channels);
                return None;
            }
            Op::SurfaceAtomic { surface, coordinates, reduction, value } => {
                self.surface_atomic(*surface, coordinates, *reduction, *value)
            }
            Op::SurfaceCompareSwap { surface, coordinates, compare, value } => {
                self.surface_compare_swap(*surface, coordinates, *compare, *value)
            }
            Op::SurfaceSize { surface } => self.surface_size(*surface),
            Op::Component(texel, component) => {
                let texel = v(self, texel);
                self.b.composite_extract(self.t.u32, None, texel, [u32::from(*component)]).expect("in a block")
            }
            Op::EmitVertex(stream) => {
                self.emit_vertex(*stream);
                return None;
            }
            Op::EndPrimitive(stream) => {
                self.end_primitive(*stream);
                return None;
            }
            Op::PatchLoad(address) => self.patch_load(*address),
            Op::InterpolateAt { address, offset } => {
                let offset = offset.map(|offset| v(self, &offset));
                self.interpolate_at(*address, offset)
            }
            Op::PatchStore(address, value) => {
                let value = v(self, value);
                self.patch_store(*address, value);
                return None;
            }
            Op::Demote => {
                // Not a terminator (the invocation runs on as a helper), though rspirv 0.13's builder ends the
                // block at it: insert it as a plain instruction.
                let demote = rspirv::dr::Instruction::new(spirv::Op::DemoteToHelperInvocation, None, None, vec![]);
                self.b.insert_into_block(rspirv::dr::InsertPoint::End, demote).expect("in a block");
                return None;
            }
            Op::WarpPresent(lane) => {
                let lane = v(self, lane);
                self.warp_lane(lane).0
            }
            Op::Special(Special::Clock) => {
                // Every read moves the clock on: loops that wait on it end.
                let u64_ = self.t.u64;
                let now = self.b.load(u64_, None, self.clock, None, []).expect("in a block");
                let step = self.b.constant_bit64(u64_, 16);
                let later = self.b.i_add(u64_, None, now, step).expect("in a block");
                self.b.store(self.clock, later, None, []).expect("in a block");
                later
            }
            Op::Special(Special::InvocationId) => self.invocation_id(),
            Op::Special(Special::InvocationInfo) => self.u32_const(self.input_vertices << 16),
            Op::Special(Special::QuadLane) => {
                let variable = self.subgroup_invocation.expect("declared for the programs that read QuadLane");
                let index = self.b.load(self.t.u32, None, variable, None, []).expect("in a block");
                let three = self.u32_const(3);
                self.b.bitwise_and(self.t.u32, None, index, three).expect("in a block")
            }
            Op::Special(Special::SampleId) => {
                let variable = self.sample_id.expect("declared for the programs that read SampleId");
                self.b.load(self.t.u32, None, variable, None, []).expect("in a block")
            }
            Op::Special(Special::SampleMask) => {
                let variable = self.sample_mask.expect("declared for the programs that read SampleMask");
                let pointer = self.b.type_pointer(None, StorageClass::Input, self.t.u32);
                let first = self.u32_const(0);
                let word = self.b.access_chain(pointer, None, variable, [first]).expect("in a block");
                self.b.load(self.t.u32, None, word, None, []).expect("in a block")
            }
            Op::Special(special) => {
                let (variable, component) = match special {
                    Special::ThreadId(i) => (self.local_invocation_id, Some(*i)),
                    Special::CtaId(i) => (self.workgroup_id, Some(*i)),
                    Special::LaneId => (self.local_invocation_index, None),
                    Special::Clock
                    | Special::InvocationId
                    | Special::InvocationInfo
                    | Special::QuadLane
                    | Special::SampleId
                    | Special::SampleMask => {
                        unreachable!("the arms above read them")
                    }
                };
                match component {
                    Some(i) => {
                        let vector = self.b.load(self.t.v3u32, None, variable, None, []).expect("in a block");
                        self.b.composite_extract(self.t.u32, None, vector, [u32::from(i)]).expect("in a block")
                    }
                    None => {
                        let index = self.b.load(self.t.u32, None, variable, None, []).expect("in a block");
                        let mask = self.u32_const(31);
                        self.b.bitwise_and(self.t.u32, None, index, mask).expect("in a block")
                    }
                }
            }
        })
    }

    /// FP32 arithmetic rounded once in any mode, whatever the host's own FP32 does (lavapipe's Fma is two
    /// roundings; SPIR-V has no per-instruction rounding mode). In FP64 the product of two FP32 is exact and
    /// the sum is made exact-or-odd (round to odd, from the error a two-sum gives); rounding that value to FP32
    /// in the wanted mode is then the correctly rounded result.
    fn float_arith(&mut self, kind: FArith, round: Round, operands: [Word; 3], format: Format) -> Word {
        let [a, b, c] = operands;
        let (f64_, u64_, bool_) = (self.t.f64, self.t.u64, self.t.bool);
        let widen = |e: &mut Self, x: Word| e.widen_format(x, format);
        let zero = self.b.constant_bit64(f64_, 0);
        let exact = match kind {
            FArith::Mul => {
                let (a, b) = (widen(self, a), widen(self, b));
                self.exact_op(FloatOp::Mul, a, b)
            }
            FArith::Add | FArith::Fma => {
                let (x, y) = if kind == FArith::Add {
                    (widen(self, a), widen(self, b))
                } else {
                    let (a, b, c) = (widen(self, a), widen(self, b), widen(self, c));
                    (self.exact_op(FloatOp::Mul, a, b), c)
                };
                let sum = self.exact_op(FloatOp::Add, x, y);
                // Two-sum: the exact sum is sum + error.
                let y_part = self.exact_op(FloatOp::Sub, sum, x);
                let x_part = self.exact_op(FloatOp::Sub, sum, y_part);
                let x_error = self.exact_op(FloatOp::Sub, x, x_part);
                let y_error = self.exact_op(FloatOp::Sub, y, y_part);
                let error = self.exact_op(FloatOp::Add, x_error, y_error);
                // Round to odd: when inexact, the value truncated toward zero with its last bit set.
                let inexact = self.b.f_ord_not_equal(bool_, None, error, zero).expect("in a block");
                let bits = self.b.bitcast(u64_, None, sum).expect("in a block");
                let sum_negative = self.b.f_ord_less_than(bool_, None, sum, zero).expect("in a block");
                let error_negative = self.b.f_ord_less_than(bool_, None, error, zero).expect("in a block");
                let rounded_away =
                    self.b.logical_not_equal(bool_, None, sum_negative, error_negative).expect("in a block");
                let one = self.b.constant_bit64(u64_, 1);
                let toward_zero = self.b.i_sub(u64_, None, bits, one).expect("in a block");
                let truncated = self.b.select(u64_, None, rounded_away, toward_zero, bits).expect("in a block");
                let odd = self.b.bitwise_or(u64_, None, truncated, one).expect("in a block");
                let odd = self.b.bitcast(f64_, None, odd).expect("in a block");
                let finite = self.finite64(sum);
                let adjust = self.b.logical_and(bool_, None, inexact, finite).expect("in a block");
                self.b.select(f64_, None, adjust, odd, sum).expect("in a block")
            }
        };
        let exact = self.exceptional_cases(kind, round, operands, format, exact);
        self.narrow_format(exact, round, format)
    }

    /// The IEEE results of zeros, infinities and NaNs, decided on the operands' bits: drivers fold `x + 0.0` to
    /// `x` and `0.0 * x` to `0.0` when an operand is a constant (lavapipe does, even with
    /// SignedZeroInfNanPreserve), which loses a zero's sign and the NaN of 0 x infinity. A zero result takes its
    /// sign from the addends (both negative, or either when rounding down; a product's sign is its factors'
    /// exclusive or); 0 x infinity, infinity - infinity and NaN operands give NaN.
    fn exceptional_cases(
        &mut self,
        kind: FArith,
        round: Round,
        operands: [Word; 3],
        format: Format,
        value: Word,
    ) -> Word {
        let (u32_, f64_, bool_) = (self.t.u32, self.t.f64, self.t.bool);
        let magnitude_mask = self.u32_const((1 << format.sign_bit()) - 1);
        let infinity = self.u32_const(format.max_exponent() << format.mantissa);
        let (zero32, one32) = (self.u32_const(0), self.u32_const(1));
        let sign_shift = self.u32_const(format.sign_bit());
        // (sign bit, zero, infinity, NaN) of an operand.
        let classify = |e: &mut Self, x: Word| {
            let magnitude = e.b.bitwise_and(u32_, None, x, magnitude_mask).expect("in a block");
            let sign = e.b.shift_right_logical(u32_, None, x, sign_shift).expect("in a block");
            let sign = e.b.bitwise_and(u32_, None, sign, one32).expect("in a block");
            let zero = e.b.i_equal(bool_, None, magnitude, zero32).expect("in a block");
            let inf = e.b.i_equal(bool_, None, magnitude, infinity).expect("in a block");
            let nan = e.b.u_greater_than(bool_, None, magnitude, infinity).expect("in a block");
            (sign, zero, inf, nan)
        };
        let or = |e: &mut Self, x: Word, y: Word| e.b.logical_or(bool_, None, x, y).expect("in a block");
        let and = |e: &mut Self, x: Word, y: Word| e.b.logical_and(bool_, None, x, y).expect("in a block");
        let [a, b, c] = operands;
        let (sa, za, ia, na) = classify(self, a);
        let (sb, zb, ib, nb) = classify(self, b);
        // The first addend (the product for Mul and Fma) and the second (b for Add, c for Fma).
        let (first, second) = match kind {
            FArith::Add => ((sa, za, ia, na), Some((sb, zb, ib, nb))),
            FArith::Mul | FArith::Fma => {
                let sign = self.b.bitwise_xor(u32_, None, sa, sb).expect("in a block");
                let zero = or(self, za, zb);
                let infinite = or(self, ia, ib);
                let zero_times_infinite = and(self, zero, infinite);
                let nan = or(self, na, nb);
                let nan = or(self, nan, zero_times_infinite);
                let second = (kind == FArith::Fma).then(|| classify(self, c));
                ((sign, zero, infinite, nan), second)
            }
        };
        let (sx, _, ix, nx) = first;
        let (sign, nan) = match second {
            None => (sx, nx),
            Some((sy, _, iy, ny)) => {
                let opposite = self.b.i_not_equal(bool_, None, sx, sy).expect("in a block");
                let infinities = and(self, ix, iy);
                let cancelling = and(self, infinities, opposite);
                let nan = or(self, nx, ny);
                let nan = or(self, nan, cancelling);
                let sign = if round == Round::TowardNegative {
                    self.b.bitwise_or(u32_, None, sx, sy)
                } else {
                    self.b.bitwise_and(u32_, None, sx, sy)
                }
                .expect("in a block");
                (sign, nan)
            }
        };
        let zero64 = self.b.constant_bit64(f64_, 0);
        let negative_zero = self.b.constant_bit64(f64_, (-0.0f64).to_bits());
        let negative = self.b.i_not_equal(bool_, None, sign, zero32).expect("in a block");
        let signed_zero = self.b.select(f64_, None, negative, negative_zero, zero64).expect("in a block");
        let is_zero = self.b.f_ord_equal(bool_, None, value, zero64).expect("in a block");
        let value = self.b.select(f64_, None, is_zero, signed_zero, value).expect("in a block");
        let quiet_nan = self.b.constant_bit64(f64_, f64::NAN.to_bits());
        self.b.select(f64_, None, nan, quiet_nan, value).expect("in a block")
    }

    /// An FP64 operation the driver must not rewrite (NoContraction: no fusing, no reassociation), as error-free
    /// transformations need.
    fn exact_op(&mut self, op: FloatOp, x: Word, y: Word) -> Word {
        let f64_ = self.t.f64;
        let result = match op {
            FloatOp::Add => self.b.f_add(f64_, None, x, y),
            FloatOp::Sub => self.b.f_sub(f64_, None, x, y),
            FloatOp::Mul => self.b.f_mul(f64_, None, x, y),
        }
        .expect("in a block");
        self.b.decorate(result, Decoration::NoContraction, []);
        result
    }

    fn finite64(&mut self, x: Word) -> Word {
        let bool_ = self.t.bool;
        let infinite = self.b.is_inf(bool_, None, x).expect("in a block");
        let nan = self.b.is_nan(bool_, None, x).expect("in a block");
        let special = self.b.logical_or(bool_, None, infinite, nan).expect("in a block");
        self.b.logical_not(bool_, None, special).expect("in a block")
    }

    /// FP32 bits widened to FP64, exactly and without FP32 arithmetic (a host that flushes FP32 denormals, as
    /// NVIDIA's Vulkan driver does, would flush them in a conversion).
    /// FP64 `x` rounded to the nearest integral value, ties to even, from its floor: exact, as a difference
    /// of an FP64 value and its floor is. (GLSL's RoundEven on FP64 is not used: lavapipe in Mesa
    /// 22.3.6-1+deb12u2 rounds 3.5 to 3.0 with it and drops the sign of -0.3's zero.)
    fn round_even_f64(&mut self, x: Word) -> Word {
        let (f64_, bool_) = (self.t.f64, self.t.bool);
        let floor = self.glsl(f64_, glsl::FLOOR, &[x]);
        let fraction = self.b.f_sub(f64_, None, x, floor).expect("in a block");
        let (half, one) = (self.b.constant_bit64(f64_, 0.5f64.to_bits()), self.b.constant_bit64(f64_, 1f64.to_bits()));
        let above = self.b.f_ord_greater_than(bool_, None, fraction, half).expect("in a block");
        let tie = self.b.f_ord_equal(bool_, None, fraction, half).expect("in a block");
        // The floor is odd when half of it is not integral.
        let halved = self.b.f_mul(f64_, None, floor, half).expect("in a block");
        let halved_floor = self.glsl(f64_, glsl::FLOOR, &[halved]);
        let odd = self.b.f_ord_not_equal(bool_, None, halved, halved_floor).expect("in a block");
        let tie_to_even = self.b.logical_and(bool_, None, tie, odd).expect("in a block");
        let up = self.b.logical_or(bool_, None, above, tie_to_even).expect("in a block");
        let next = self.b.f_add(f64_, None, floor, one).expect("in a block");
        self.b.select(f64_, None, up, next, floor).expect("in a block")
    }

    fn widen(&mut self, x: Word) -> Word {
        self.widen_format(x, F32)
    }

    /// Bits of `format` widened to FP64 exactly: the fields are moved, and a denormal is its mantissa times the
    /// smallest denormal, a normal FP64 number.
    fn widen_format(&mut self, x: Word, format: Format) -> Word {
        let (u32_, u64_, f64_, bool_) = (self.t.u32, self.t.u64, self.t.f64, self.t.bool);
        let c32 = |e: &mut Self, v: u32| e.u32_const(v);
        let (mantissa_bits, exponent_mask, mantissa_mask) =
            (c32(self, format.mantissa), c32(self, format.max_exponent()), c32(self, (1 << format.mantissa) - 1));
        let shifted = self.b.shift_right_logical(u32_, None, x, mantissa_bits).expect("in a block");
        let exponent = self.b.bitwise_and(u32_, None, shifted, exponent_mask).expect("in a block");
        let mantissa = self.b.bitwise_and(u32_, None, x, mantissa_mask).expect("in a block");
        let sign_shift = c32(self, format.sign_bit());
        let sign = self.b.shift_right_logical(u32_, None, x, sign_shift).expect("in a block");
        let one = c32(self, 1);
        let sign = self.b.bitwise_and(u32_, None, sign, one).expect("in a block");
        let sign64 = self.b.u_convert(u64_, None, sign).expect("in a block");
        let sixty_three = c32(self, 63);
        let sign64 = self.b.shift_left_logical(u64_, None, sign64, sixty_three).expect("in a block");
        // Normal and special (all-ones exponent -> 2047) numbers: rebias the exponent, move the mantissa up.
        let special = self.b.i_equal(bool_, None, exponent, exponent_mask).expect("in a block");
        let rebias = c32(self, 1023 - format.bias());
        let rebiased = self.b.i_add(u32_, None, exponent, rebias).expect("in a block");
        let max_exponent = c32(self, 0x7ff);
        let exponent64 = self.b.select(u32_, None, special, max_exponent, rebiased).expect("in a block");
        let exponent64 = self.b.u_convert(u64_, None, exponent64).expect("in a block");
        let fifty_two = c32(self, 52);
        let exponent64 = self.b.shift_left_logical(u64_, None, exponent64, fifty_two).expect("in a block");
        let mantissa64 = self.b.u_convert(u64_, None, mantissa).expect("in a block");
        let move_up = c32(self, 52 - format.mantissa);
        let mantissa64 = self.b.shift_left_logical(u64_, None, mantissa64, move_up).expect("in a block");
        let magnitude = self.b.bitwise_or(u64_, None, exponent64, mantissa64).expect("in a block");
        let normal = self.b.bitwise_or(u64_, None, magnitude, sign64).expect("in a block");
        let normal = self.b.bitcast(f64_, None, normal).expect("in a block");
        // Zero and denormals: mantissa times the smallest denormal, signed.
        let smallest = 2f64.powi(1 - format.bias() as i32 - format.mantissa as i32);
        let scale = self.b.constant_bit64(f64_, smallest.to_bits());
        let mantissa_value = self.b.convert_u_to_f(f64_, None, mantissa).expect("in a block");
        let scaled = self.exact_op(FloatOp::Mul, mantissa_value, scale);
        let scaled_bits = self.b.bitcast(u64_, None, scaled).expect("in a block");
        let signed = self.b.bitwise_or(u64_, None, scaled_bits, sign64).expect("in a block");
        let small = self.b.bitcast(f64_, None, signed).expect("in a block");
        let zero = c32(self, 0);
        let tiny = self.b.i_equal(bool_, None, exponent, zero).expect("in a block");
        self.b.select(f64_, None, tiny, small, normal).expect("in a block")
    }

    /// An FP64 value (exact, or odd-rounded with bits to spare) rounded to FP32 bits in `round`, in integer
    /// arithmetic (so denormal results survive a host that flushes FP32 denormals): the nearest even, then for
    /// the directed modes one unit toward the mode where the nearest went the other way.
    fn narrow(&mut self, x: Word, round: Round) -> Word {
        self.narrow_format(x, round, F32)
    }

    /// The same for any narrower format (FP16 results in the low bits).
    fn narrow_format(&mut self, x: Word, round: Round, format: Format) -> Word {
        let (u32_, u64_, bool_) = (self.t.u32, self.t.u64, self.t.bool);
        let c32 = |e: &mut Self, v: u32| e.u32_const(v);
        let c64 = |e: &mut Self, v: u64| e.b.constant_bit64(u64_, v);
        let zero32 = c32(self, 0);
        let bits = self.b.bitcast(u64_, None, x).expect("in a block");
        let (fifty_two, sixty_three) = (c32(self, 52), c32(self, 63));
        let sign = self.b.shift_right_logical(u64_, None, bits, sixty_three).expect("in a block");
        let sign = self.b.u_convert(u32_, None, sign).expect("in a block");
        let sign_shift = c32(self, format.sign_bit());
        let sign = self.b.shift_left_logical(u32_, None, sign, sign_shift).expect("in a block");
        let exponent = self.b.shift_right_logical(u64_, None, bits, fifty_two).expect("in a block");
        let exponent = self.b.u_convert(u32_, None, exponent).expect("in a block");
        let exponent_mask = c32(self, 0x7ff);
        let exponent = self.b.bitwise_and(u32_, None, exponent, exponent_mask).expect("in a block");
        let mantissa_mask = c64(self, (1 << 52) - 1);
        let mantissa = self.b.bitwise_and(u64_, None, bits, mantissa_mask).expect("in a block");
        let implicit = c64(self, 1 << 52);
        let significand = self.b.bitwise_or(u64_, None, mantissa, implicit).expect("in a block");
        // Bits to drop: 52 less the format's mantissa for a normal result, more below the smallest normal
        // (capped where all is sticky).
        let (min_normal, twenty_nine, cap) =
            (c32(self, 1023 - (format.bias() - 1)), c32(self, 52 - format.mantissa), c32(self, 62));
        let below = self.b.u_less_than(bool_, None, exponent, min_normal).expect("in a block");
        let deficit = self.b.i_sub(u32_, None, min_normal, exponent).expect("in a block");
        let extra = self.b.select(u32_, None, below, deficit, zero32).expect("in a block");
        let drop = self.b.i_add(u32_, None, twenty_nine, extra).expect("in a block");
        let drop = self.b.select(u32_, None, below, drop, twenty_nine).expect("in a block");
        let too_far = self.b.u_greater_than(bool_, None, drop, cap).expect("in a block");
        let drop = self.b.select(u32_, None, too_far, cap, drop).expect("in a block");
        let kept = self.b.shift_right_logical(u64_, None, significand, drop).expect("in a block");
        let one64 = c64(self, 1);
        let unit = self.b.shift_left_logical(u64_, None, one64, drop).expect("in a block");
        let remainder_mask = self.b.i_sub(u64_, None, unit, one64).expect("in a block");
        let remainder = self.b.bitwise_and(u64_, None, significand, remainder_mask).expect("in a block");
        let one32 = c32(self, 1);
        let half_shift = self.b.i_sub(u32_, None, drop, one32).expect("in a block");
        let half = self.b.shift_left_logical(u64_, None, one64, half_shift).expect("in a block");
        let kept_odd = self.b.bitwise_and(u64_, None, kept, one64).expect("in a block");
        let zero64 = c64(self, 0);
        let odd = self.b.i_not_equal(bool_, None, kept_odd, zero64).expect("in a block");
        let above_half = self.b.u_greater_than(bool_, None, remainder, half).expect("in a block");
        let at_half = self.b.i_equal(bool_, None, remainder, half).expect("in a block");
        let tie_up = self.b.logical_and(bool_, None, at_half, odd).expect("in a block");
        let round_up = self.b.logical_or(bool_, None, above_half, tie_up).expect("in a block");
        let inexact = self.b.i_not_equal(bool_, None, remainder, zero64).expect("in a block");
        let kept = self.b.u_convert(u32_, None, kept).expect("in a block");
        let bumped = self.b.i_add(u32_, None, kept, one32).expect("in a block");
        let rounded = self.b.select(u32_, None, round_up, bumped, kept).expect("in a block");
        // Normal results: the kept significand carries the implicit bit at 23, so adding (exponent - 1) << 23
        // places it (and a carry out of the significand moves into the exponent). Denormals: exponent field 0.
        let rebias = c32(self, 1023 - (format.bias() - 1));
        let field = self.b.i_sub(u32_, None, exponent, rebias).expect("in a block");
        let field = self.b.select(u32_, None, below, zero32, field).expect("in a block");
        let mantissa_bits = c32(self, format.mantissa);
        let field = self.b.shift_left_logical(u32_, None, field, mantissa_bits).expect("in a block");
        let magnitude = self.b.i_add(u32_, None, field, rounded).expect("in a block");
        // Past the largest finite FP32: infinity (the directed step below brings RZ and friends back).
        let infinity = c32(self, format.max_exponent() << format.mantissa);
        let overflow_limit = c32(self, 1023 + format.bias() + 1);
        let overflows = self.b.u_greater_than_equal(bool_, None, exponent, overflow_limit).expect("in a block");
        let big = self.b.u_greater_than_equal(bool_, None, magnitude, infinity).expect("in a block");
        let overflows = self.b.logical_or(bool_, None, overflows, big).expect("in a block");
        let magnitude = self.b.select(u32_, None, overflows, infinity, magnitude).expect("in a block");
        let inexact = self.b.logical_or(bool_, None, inexact, overflows).expect("in a block");
        let nearest = self.b.bitwise_or(u32_, None, sign, magnitude).expect("in a block");
        // Zero, infinity and NaN inputs map directly (an FP64 denormal, far below the format's, is rounded from a
        // significand whose bits are all sticky).
        let zero_exponent = self.b.i_equal(bool_, None, exponent, zero32).expect("in a block");
        let zero_mantissa = self.b.i_equal(bool_, None, mantissa, zero64).expect("in a block");
        let zero_input = self.b.logical_and(bool_, None, zero_exponent, zero_mantissa).expect("in a block");
        let special_input = self.b.i_equal(bool_, None, exponent, exponent_mask).expect("in a block");
        let nan = self.b.i_not_equal(bool_, None, mantissa, zero64).expect("in a block");
        let nan = self.b.logical_and(bool_, None, special_input, nan).expect("in a block");
        let quiet_nan = c32(self, format.max_exponent() << format.mantissa | 1 << (format.mantissa - 1));
        let special_value = self.b.select(u32_, None, nan, quiet_nan, infinity).expect("in a block");
        let special_value = self.b.bitwise_or(u32_, None, sign, special_value).expect("in a block");
        let nearest = self.b.select(u32_, None, special_input, special_value, nearest).expect("in a block");
        let nearest = self.b.select(u32_, None, zero_input, sign, nearest).expect("in a block");
        if round == Round::NearestEven {
            return nearest;
        }
        let direct = self.b.logical_or(bool_, None, zero_input, special_input).expect("in a block");
        let stepping = self.b.logical_not(bool_, None, direct).expect("in a block");
        let inexact = self.b.logical_and(bool_, None, inexact, stepping).expect("in a block");
        // The nearest went up in magnitude when it rounded up (or overflowed), else down.
        let grew = self.b.logical_or(bool_, None, round_up, overflows).expect("in a block");
        let grew = self.b.logical_and(bool_, None, grew, inexact).expect("in a block");
        let not_grew = self.b.logical_not(bool_, None, grew).expect("in a block");
        let shrank = self.b.logical_and(bool_, None, inexact, not_grew).expect("in a block");
        let negative = self.b.i_not_equal(bool_, None, sign, zero32).expect("in a block");
        let (plus, minus) = (
            self.b.i_add(u32_, None, nearest, one32).expect("in a block"),
            self.b.i_sub(u32_, None, nearest, one32).expect("in a block"),
        );
        // In value: a positive result that grew went up; a negative one that grew went down.
        let (went_up, went_down) = (
            self.b.select(bool_, None, negative, shrank, grew).expect("in a block"),
            self.b.select(bool_, None, negative, grew, shrank).expect("in a block"),
        );
        // A unit toward +inf is one more in magnitude for a positive value and one less for a negative one.
        let up = self.b.select(u32_, None, negative, minus, plus).expect("in a block");
        let down = self.b.select(u32_, None, negative, plus, minus).expect("in a block");
        let (condition, step) = match round {
            Round::TowardPositive => (went_down, up),
            Round::TowardNegative => (went_up, down),
            _ => (grew, minus),
        };
        self.b.select(u32_, None, condition, step, nearest).expect("in a block")
    }

    /// Ends the block with a structured loop and starts its body: the loop's header, continue target and merge
    /// block (the caller begins the last two).
    fn open_loop(&mut self) -> (Word, Word, Word) {
        let (header, body, continue_, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(header).expect("in a block");
        self.b.begin_block(Some(header)).expect("in a function");
        self.b.loop_merge(merge, continue_, spirv::LoopControl::NONE, []).expect("in a block");
        self.b.branch(body).expect("in a block");
        self.b.begin_block(Some(body)).expect("in a function");
        (header, continue_, merge)
    }

    /// The phase number (the warp exchanges' tag).
    fn phase(&mut self) -> Word {
        let count = self.phases.as_ref().expect("a program with warp exchanges has phases").count;
        self.b.load(self.t.u32, None, count, None, []).expect("in a block")
    }

    /// The index of the first word of warp exchange slot `thread` (a local invocation index) in `buffer` (a U32
    /// word, 0 or 1).
    fn warp_slot_base(&mut self, buffer: Word, thread: Word) -> Word {
        let u32_ = self.t.u32;
        let threads = self.u32_const(self.threads);
        let words = self.u32_const(self.warp_slot_words);
        let row = self.b.i_mul(u32_, None, buffer, threads).expect("in a block");
        let index = self.b.i_add(u32_, None, row, thread).expect("in a block");
        self.b.i_mul(u32_, None, index, words).expect("in a block")
    }

    /// A pointer to word `word` of the slot whose first word is at `base` (the last word is the phase tag).
    fn warp_slot_word(&mut self, base: Word, word: u32) -> Word {
        let index = if word == 0 {
            base
        } else {
            let word = self.u32_const(word);
            self.b.i_add(self.t.u32, None, base, word).expect("in a block")
        };
        let pointer = self.b.type_pointer(None, StorageClass::Workgroup, self.t.u32);
        let array = self.warp.expect("the program has warp exchanges");
        self.b.access_chain(pointer, None, array, [index]).expect("in a block")
    }

    /// Pointers to the first value word and the tag of slot `thread` in `buffer`.
    fn warp_slot(&mut self, buffer: Word, thread: Word) -> (Word, Word) {
        let base = self.warp_slot_base(buffer, thread);
        (self.warp_slot_word(base, 0), self.warp_slot_word(base, self.warp_slot_words - 1))
    }

    /// This thread's slot in `buffer` (a U32 word).
    fn warp_slot_of_thread(&mut self, buffer: Word) -> (Word, Word) {
        let index = self.b.load(self.t.u32, None, self.local_invocation_index, None, []).expect("in a block");
        self.warp_slot(buffer, index)
    }

    /// A barrier reduction (`Op::BlockReduce`): a loop over the workgroup's slots of the previous phase.
    fn block_reduce(&mut self, kind: u8) -> Word {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let [index, count, participants] = self.reduce_counters;
        let (zero, one) = (self.u32_const(0), self.u32_const(1));
        for counter in [index, count, participants] {
            self.b.store(counter, zero, None, []).expect("in a block");
        }
        let phase = self.phase();
        let published = self.b.i_sub(u32_, None, phase, one).expect("in a block");
        let buffer = self.b.bitwise_and(u32_, None, published, one).expect("in a block");
        let work = self.b.id();
        let (header, continue_, merge) = self.open_loop();
        let i = self.b.load(u32_, None, index, None, []).expect("in a block");
        let threads = self.u32_const(self.threads);
        let more = self.b.u_less_than(bool_, None, i, threads).expect("in a block");
        self.b.branch_conditional(more, work, merge, []).expect("in a block");
        self.b.begin_block(Some(work)).expect("in a function");
        let (value, tag) = self.warp_slot(buffer, i);
        let (value, tag) = (
            self.b.load(u32_, None, value, None, []).expect("in a block"),
            self.b.load(u32_, None, tag, None, []).expect("in a block"),
        );
        let present = self.b.i_equal(bool_, None, tag, published).expect("in a block");
        let set = self.b.i_not_equal(bool_, None, value, zero).expect("in a block");
        let counted = self.b.logical_and(bool_, None, present, set).expect("in a block");
        for (counter, condition) in [(count, counted), (participants, present)] {
            let old = self.b.load(u32_, None, counter, None, []).expect("in a block");
            let step = self.b.select(u32_, None, condition, one, zero).expect("in a block");
            let new = self.b.i_add(u32_, None, old, step).expect("in a block");
            self.b.store(counter, new, None, []).expect("in a block");
        }
        self.b.branch(continue_).expect("in a block");
        self.b.begin_block(Some(continue_)).expect("in a function");
        let next = self.b.i_add(u32_, None, i, one).expect("in a block");
        self.b.store(index, next, None, []).expect("in a block");
        self.b.branch(header).expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
        let count = self.b.load(u32_, None, count, None, []).expect("in a block");
        let participants = self.b.load(u32_, None, participants, None, []).expect("in a block");
        let holds = match kind {
            0 => return count,
            1 => self.b.i_equal(bool_, None, count, participants),
            _ => self.b.i_not_equal(bool_, None, count, zero),
        }
        .expect("in a block");
        self.b.select(u32_, None, holds, one, zero).expect("in a block")
    }

    /// Whether lane `lane` (0-31) of this thread's warp published in the previous phase, and the index of its
    /// slot's first word.
    fn warp_lane(&mut self, lane: Word) -> (Word, Word) {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let phase = self.phase();
        let one = self.u32_const(1);
        let published = self.b.i_sub(u32_, None, phase, one).expect("in a block");
        let buffer = self.b.bitwise_and(u32_, None, published, one).expect("in a block");
        let index = self.b.load(u32_, None, self.local_invocation_index, None, []).expect("in a block");
        let warp_mask = self.u32_const(!31);
        let warp_base = self.b.bitwise_and(u32_, None, index, warp_mask).expect("in a block");
        let thirty_one = self.u32_const(31);
        let lane = self.b.bitwise_and(u32_, None, lane, thirty_one).expect("in a block");
        let thread = self.b.i_add(u32_, None, warp_base, lane).expect("in a block");
        let threads = self.u32_const(self.threads);
        let exists = self.b.u_less_than(bool_, None, thread, threads).expect("in a block");
        let thread = self.b.select(u32_, None, exists, thread, index).expect("in a block");
        let base = self.warp_slot_base(buffer, thread);
        let tag = self.warp_slot_word(base, self.warp_slot_words - 1);
        let tag = self.b.load(u32_, None, tag, None, []).expect("in a block");
        let current = self.b.i_equal(bool_, None, tag, published).expect("in a block");
        let present = self.b.logical_and(bool_, None, exists, current).expect("in a block");
        (present, base)
    }

    fn binary(&mut self, op: BinOp, ty: Type, rt: Word, x: Word, y: Word) -> Word {
        let b = &mut self.b;
        match op {
            BinOp::Add => b.i_add(rt, None, x, y),
            BinOp::Sub => b.i_sub(rt, None, x, y),
            BinOp::Mul => b.i_mul(rt, None, x, y),
            BinOp::And => b.bitwise_and(rt, None, x, y),
            BinOp::Or => b.bitwise_or(rt, None, x, y),
            BinOp::Xor => b.bitwise_xor(rt, None, x, y),
            BinOp::Shl | BinOp::ShrU | BinOp::ShrS => return self.shift(op, ty, x, y),
            BinOp::MulHiU | BinOp::MulHiS => {
                let pair = b.type_struct([self.t.u32, self.t.u32]);
                let product = if op == BinOp::MulHiU {
                    b.u_mul_extended(pair, None, x, y)
                } else {
                    b.s_mul_extended(pair, None, x, y)
                }
                .expect("in a block");
                b.composite_extract(self.t.u32, None, product, [1])
            }
            BinOp::MinU | BinOp::MinS | BinOp::MaxU | BinOp::MaxS => {
                let less = match op {
                    BinOp::MinU | BinOp::MaxU => b.u_less_than(self.t.bool, None, x, y),
                    _ => b.s_less_than(self.t.bool, None, x, y),
                }
                .expect("in a block");
                let (first, second) = if matches!(op, BinOp::MinU | BinOp::MinS) { (x, y) } else { (y, x) };
                b.select(rt, None, less, first, second)
            }
            BinOp::FAddHost64 | BinOp::FMulHost64 => {
                let f64_ = self.t.f64;
                let [x, y] = [x, y].map(|bits| self.b.bitcast(f64_, None, bits).expect("in a block"));
                let kind = if op == BinOp::FAddHost64 { FloatOp::Add } else { FloatOp::Mul };
                let result = self.exact_op(kind, x, y);
                self.b.bitcast(self.t.u64, None, result)
            }
            BinOp::FDiv if ty == Type::U64 => return self.float64_divide(x, y),
            BinOp::FDiv => {
                let (x, y) = (self.float(x), self.float(y));
                let f32_ = self.t.f32;
                let result = self.b.f_div(f32_, None, x, y).expect("in a block");
                return self.bits(result);
            }
        }
        .expect("in a block")
    }

    fn unary(&mut self, op: UnOp, rt: Word, x: Word) -> Word {
        let f32_ = self.t.f32;
        let float_function = |e: &mut Self, instruction: u32, x: Word| {
            let f = e.float(x);
            let result = e.glsl(f32_, instruction, &[f]);
            e.bits(result)
        };
        match op {
            UnOp::Not => self.b.not(rt, None, x).expect("in a block"),
            UnOp::LogicalNot => self.b.logical_not(rt, None, x).expect("in a block"),
            UnOp::PopCount => self.b.bit_count(rt, None, x).expect("in a block"),
            UnOp::BitReverse => self.b.bit_reverse(rt, None, x).expect("in a block"),
            UnOp::FindMsbU => self.glsl(rt, glsl::FIND_U_MSB, &[x]),
            UnOp::ExtendU => self.b.u_convert(self.t.u64, None, x).expect("in a block"),
            UnOp::ExtendS => {
                // Shifts, not OpSConvert: Mesa 22's SPIR-V front end zero-extends an OpSConvert whose operand
                // has an unsigned type (all of ours), which the differential test caught on lavapipe.
                let wide = self.b.u_convert(self.t.u64, None, x).expect("in a block");
                let thirty_two = self.u32_const(32);
                let high = self.b.shift_left_logical(self.t.u64, None, wide, thirty_two).expect("in a block");
                self.b.shift_right_arithmetic(self.t.u64, None, high, thirty_two).expect("in a block")
            }
            UnOp::Truncate => self.b.u_convert(self.t.u32, None, x).expect("in a block"),
            UnOp::High => {
                let thirty_two = self.u32_const(32);
                let high = self.b.shift_right_logical(self.t.u64, None, x, thirty_two).expect("in a block");
                self.b.u_convert(self.t.u32, None, high).expect("in a block")
            }
            UnOp::BoolToU32 => {
                let (one, zero) = (self.u32_const(1), self.u32_const(0));
                self.b.select(self.t.u32, None, x, one, zero).expect("in a block")
            }
            UnOp::Sqrt => float_function(self, glsl::SQRT, x),
            UnOp::InverseSqrt => float_function(self, glsl::INVERSE_SQRT, x),
            UnOp::Exp2 => float_function(self, glsl::EXP2, x),
            UnOp::Log2 => float_function(self, glsl::LOG2, x),
            UnOp::Tanh => float_function(self, glsl::TANH, x),
            UnOp::RoundEven | UnOp::Floor | UnOp::Ceil | UnOp::Trunc => {
                // In FP64 from the exact widening, so that denormal operands are not flushed; the integral
                // result is exact in FP32.
                let wide = self.widen(x);
                let f64_ = self.t.f64;
                let rounded = match op {
                    UnOp::RoundEven => self.round_even_f64(wide),
                    UnOp::Floor => self.glsl(f64_, glsl::FLOOR, &[wide]),
                    UnOp::Ceil => self.glsl(f64_, glsl::CEIL, &[wide]),
                    _ => self.glsl(f64_, glsl::TRUNC, &[wide]),
                };
                let narrowed = self.narrow(rounded, Round::NearestEven);
                // Rounding to an integral value keeps the operand's sign, a zero result's too (-0.3 rounds to
                // -0.0, as NVIDIA's GPUs give it), which additions in FP64 do not keep: a zero result takes the
                // operand's sign bit.
                let (u32_, bool_) = (self.t.u32, self.t.bool);
                let (magnitude_mask, sign_mask) = (self.u32_const(0x7fff_ffff), self.u32_const(0x8000_0000));
                let magnitude = self.b.bitwise_and(u32_, None, narrowed, magnitude_mask).expect("in a block");
                let zero = self.u32_const(0);
                let is_zero = self.b.i_equal(bool_, None, magnitude, zero).expect("in a block");
                let sign = self.b.bitwise_and(u32_, None, x, sign_mask).expect("in a block");
                self.b.select(u32_, None, is_zero, sign, narrowed).expect("in a block")
            }
            UnOp::SinTurns | UnOp::CosTurns => {
                // As the interpreter's `sin_cos_turns`: the fraction of the turns to the nearest quarter turn and
                // a remainder within an eighth, whole quarter turns giving exact zeros and ones.
                let f = self.float(x);
                let whole = self.glsl(f32_, glsl::TRUNC, &[f]);
                let turns = self.b.f_sub(f32_, None, f, whole).expect("in a block");
                let four = self.b.constant_bit32(f32_, 4.0f32.to_bits());
                let quarters = self.b.f_mul(f32_, None, turns, four).expect("in a block");
                let nearest = self.glsl(f32_, glsl::ROUND_EVEN, &[quarters]);
                let remainder = self.b.f_sub(f32_, None, quarters, nearest).expect("in a block");
                let quarter = self.b.constant_bit32(f32_, std::f32::consts::FRAC_PI_2.to_bits());
                let angle = self.b.f_mul(f32_, None, remainder, quarter).expect("in a block");
                let (cos, sin) = (self.glsl(f32_, glsl::COS, &[angle]), self.glsl(f32_, glsl::SIN, &[angle]));
                let (minus_cos, minus_sin) = (
                    self.b.f_negate(f32_, None, cos).expect("in a block"),
                    self.b.f_negate(f32_, None, sin).expect("in a block"),
                );
                // The quadrant: the quarter turns (a sine's a quarter behind), modulo 4.
                let u32_ = self.t.u32;
                let count = self.b.convert_f_to_s(u32_, None, nearest).expect("in a block");
                let shift = self.u32_const(if op == UnOp::SinTurns { 3 } else { 0 });
                let count = self.b.i_add(u32_, None, count, shift).expect("in a block");
                let three = self.u32_const(3);
                let quadrant = self.b.bitwise_and(u32_, None, count, three).expect("in a block");
                let mut result = sin;
                for (index, value) in [(2, minus_cos), (1, minus_sin), (0, cos)] {
                    let at = self.u32_const(index);
                    let here = self.b.i_equal(self.t.bool, None, quadrant, at).expect("in a block");
                    result = self.b.select(f32_, None, here, value, result).expect("in a block");
                }
                self.bits(result)
            }
            UnOp::FlushDenormal => {
                let exponent = self.u32_const(0x7f80_0000);
                let sign = self.u32_const(0x8000_0000);
                let zero = self.u32_const(0);
                let bits = self.b.bitwise_and(self.t.u32, None, x, exponent).expect("in a block");
                let denormal = self.b.i_equal(self.t.bool, None, bits, zero).expect("in a block");
                let signed_zero = self.b.bitwise_and(self.t.u32, None, x, sign).expect("in a block");
                self.b.select(self.t.u32, None, denormal, signed_zero, x).expect("in a block")
            }
            UnOp::HalfToF32 => {
                let wide = self.widen_format(x, F16);
                self.narrow(wide, Round::NearestEven)
            }
            UnOp::F32ToF64 => {
                let wide = self.widen(x);
                self.b.bitcast(self.t.u64, None, wide).expect("in a block")
            }
            UnOp::HalfToF64 => {
                let wide = self.widen_format(x, F16);
                self.b.bitcast(self.t.u64, None, wide).expect("in a block")
            }
            UnOp::IsNan => {
                let magnitude_mask = self.u32_const(0x7fff_ffff);
                let magnitude = self.b.bitwise_and(self.t.u32, None, x, magnitude_mask).expect("in a block");
                let infinity = self.u32_const(0x7f80_0000);
                self.b.u_greater_than(self.t.bool, None, magnitude, infinity).expect("in a block")
            }
        }
    }

    fn compare(&mut self, cmp: Cmp, ty: Type, x: Word, y: Word) -> Word {
        let bool_ = self.t.bool;
        if ty == Type::Bool {
            return match cmp {
                Cmp::Eq => self.b.logical_equal(bool_, None, x, y),
                _ => self.b.logical_not_equal(bool_, None, x, y),
            }
            .expect("in a block");
        }
        let is_float = matches!(
            cmp,
            Cmp::FLt
                | Cmp::FLe
                | Cmp::FGt
                | Cmp::FGe
                | Cmp::FEq
                | Cmp::FNe
                | Cmp::FLtU
                | Cmp::FLeU
                | Cmp::FGtU
                | Cmp::FGeU
                | Cmp::FEqU
                | Cmp::FNeU
        );
        if is_float && ty == Type::U64 {
            return self.compare64(cmp, x, y);
        }
        // Floats are compared in FP64 after the exact widening: a host that flushes FP32 denormals would
        // compare them as zeros.
        let (x, y) = if is_float { (self.widen(x), self.widen(y)) } else { (x, y) };
        let b = &mut self.b;
        match cmp {
            Cmp::Eq => b.i_equal(bool_, None, x, y),
            Cmp::Ne => b.i_not_equal(bool_, None, x, y),
            Cmp::LtU => b.u_less_than(bool_, None, x, y),
            Cmp::LeU => b.u_less_than_equal(bool_, None, x, y),
            Cmp::GtU => b.u_greater_than(bool_, None, x, y),
            Cmp::GeU => b.u_greater_than_equal(bool_, None, x, y),
            Cmp::LtS => b.s_less_than(bool_, None, x, y),
            Cmp::LeS => b.s_less_than_equal(bool_, None, x, y),
            Cmp::GtS => b.s_greater_than(bool_, None, x, y),
            Cmp::GeS => b.s_greater_than_equal(bool_, None, x, y),
            Cmp::FLt => b.f_ord_less_than(bool_, None, x, y),
            Cmp::FLe => b.f_ord_less_than_equal(bool_, None, x, y),
            Cmp::FGt => b.f_ord_greater_than(bool_, None, x, y),
            Cmp::FGe => b.f_ord_greater_than_equal(bool_, None, x, y),
            Cmp::FEq => b.f_ord_equal(bool_, None, x, y),
            Cmp::FNe => b.f_ord_not_equal(bool_, None, x, y),
            Cmp::FLtU => b.f_unord_less_than(bool_, None, x, y),
            Cmp::FLeU => b.f_unord_less_than_equal(bool_, None, x, y),
            Cmp::FGtU => b.f_unord_greater_than(bool_, None, x, y),
            Cmp::FGeU => b.f_unord_greater_than_equal(bool_, None, x, y),
            Cmp::FEqU => b.f_unord_equal(bool_, None, x, y),
            Cmp::FNeU => b.f_unord_not_equal(bool_, None, x, y),
        }
        .expect("in a block")
    }

    /// `conv` of `x`; `double` says a float operand is FP64 (U64 bits).
    fn convert(&mut self, conv: Conv, x: Word, double: bool) -> Word {
        let (f32_, f64_) = (self.t.f32, self.t.f64);
        match conv {
            Conv::UToF | Conv::SToF => {
                let f = if conv == Conv::UToF {
                    self.b.convert_u_to_f(f32_, None, x)
                } else {
                    self.b.convert_s_to_f(f32_, None, x)
                }
                .expect("in a block");
                self.bits(f)
            }
            Conv::UToF64 | Conv::SToF64 => {
                let f = if conv == Conv::UToF64 {
                    self.b.convert_u_to_f(f64_, None, x)
                } else {
                    self.b.convert_s_to_f(f64_, None, x)
                }
                .expect("in a block");
                self.b.bitcast(self.t.u64, None, f).expect("in a block")
            }
            Conv::FToU | Conv::FToS | Conv::FToS64 | Conv::FToU64 => {
                // The caller converts integral values in range only, never FP64 denormals.
                let f = if double { self.b.bitcast(f64_, None, x).expect("in a block") } else { self.widen(x) };
                match conv {
                    Conv::FToU => self.b.convert_f_to_u(self.t.u32, None, f),
                    Conv::FToS => self.b.convert_f_to_s(self.t.u32, None, f),
                    Conv::FToU64 => self.b.convert_f_to_u(self.t.u64, None, f),
                    _ => self.b.convert_f_to_s(self.t.u64, None, f),
                }
                .expect("in a block")
            }
        }
    }
}

/// Merges identical constants: rspirv's builder makes a new one at every call, and the emitter asks for the same
/// few again and again (tens of thousands in a large kernel). Every OpConstant, OpConstantTrue, OpConstantFalse,
/// OpConstantNull and OpConstantComposite (of constituents already merged: they come first) of the type and value
/// of an earlier one is dropped, and its uses name the earlier one.
fn merge_constants(module: &mut rspirv::dr::Module) {
    use rspirv::spirv::Op;
    let mut kept: HashMap<String, Word> = HashMap::new();
    let mut renamed: HashMap<Word, Word> = HashMap::new();
    module.types_global_values.retain_mut(|instruction| {
        rename_operands(instruction, &renamed);
        let constant = matches!(
            instruction.class.opcode,
            Op::Constant | Op::ConstantTrue | Op::ConstantFalse | Op::ConstantNull | Op::ConstantComposite
        );
        let (true, Some(id)) = (constant, instruction.result_id) else { return true };
        let key = format!("{:?} {:?} {:?}", instruction.class.opcode, instruction.result_type, instruction.operands);
        match kept.get(&key) {
            Some(&first) => {
                renamed.insert(id, first);
                false
            }
            None => {
                kept.insert(key, id);
                true
            }
        }
    });
    for instruction in module.all_inst_iter_mut() {
        rename_operands(instruction, &renamed);
    }
}

/// Points `instruction`'s id operands at what `renamed` maps them to.
fn rename_operands(instruction: &mut rspirv::dr::Instruction, renamed: &HashMap<Word, Word>) {
    for operand in &mut instruction.operands {
        if let Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) = operand
            && let Some(&first) = renamed.get(id)
        {
            *id = first;
        }
    }
}
