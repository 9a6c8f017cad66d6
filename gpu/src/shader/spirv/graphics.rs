//! The graphics stages' side of the emitter: where a vertex or pixel program's attributes come from and where
//! its outputs go. A program reads and writes attributes by byte address (ALD, AST, IPA), so each stage keeps
//! two arrays of 256 words, one per attribute space, filled before the dispatcher runs (the prologue) and read
//! after it (the epilogue):
//!
//! - vertex: the attributes come from the vertex record the engine fetched (`engine::draw`, one per vertex,
//!   reached through the push constant's address, indexed by `VertexIndex`); the outputs start as (0, 0, 0, 1)
//!   per vector (Maxwell behaviour 1.2) and go to `Position` (declared `Invariant`: behaviour 1.8) and to one
//!   `vec4` at `Location` i for generic i;
//! - pixel: position is `FragCoord` (x, y at the pixel centre; w is 1/w_clip, as on the hardware), front facing
//!   all ones or zero, and each generic component the header names is one float input (`Location` i, `Component`
//!   c) interpolated as the header says. The hardware interpolates attribute / w for perspective inputs (the
//!   program multiplies by w itself, IPA's multiply mode); the host gives the perspective-correct value, so a
//!   perspective input is stored multiplied by FragCoord.w. At EXIT the registers the header assigns go to the
//!   colour outputs and to `FragDepth`. Colour output t is `Location` n, n the number of outputs before it that
//!   have a target: the host's attachments are the draw's targets, in output order, with no gaps.
//! - tessellation control: the control points in the attribute space as a geometry program's vertices; each
//!   invocation's outputs go to its own element of the per-vertex output arrays at EXIT (`InvocationId`), and
//!   AST.P writes the tessellation levels (`TessLevelOuter`, `TessLevelInner`) as it comes;
//! - tessellation evaluation: the control points likewise, `TessCoord`'s u and v at 0x2f0 and 0x2f4, ALD.P
//!   reads the levels; its outputs go on as a vertex program's;
//! - geometry: the attribute space holds every vertex of the input primitive, 256 words each (vertex v's at
//!   word 256 v: what `Space::VertexAttribute` addresses; a plain ALD reads vertex 0's), filled from the
//!   previous stage's `Position` and generics; OUT.EMIT hands the outputs on as the vertex stage's epilogue
//!   does, then `OpEmitVertex`, while the invocation has emitted fewer vertices than the header's
//!   MaxOutputVertexCount (the hardware drops the OUTs past it).

use super::{Emitter, Types};
use crate::shader::sph::{Interpolation, ProgramHeader, attribute};
use crate::texture::descriptor::Comparison;
use crate::texture::format::NumberKind;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{BuiltIn, Capability, Decoration, StorageClass, Word};

/// Words of each attribute space.
pub const ATTRIBUTE_WORDS: u32 = attribute::END / 4;
/// Words of a vertex record (`engine::draw::VERTEX_RECORD_WORDS`): 32 generics, then vertex and instance ids.
const RECORD_WORDS: u32 = 33 * 4;
const RECORD_VERTEX_ID: u32 = 128;
const RECORD_INSTANCE_ID: u32 = 129;
const GENERICS: u32 = 32;
const ONE: u32 = 0x3f80_0000;
/// The point sprite coordinate's words, s then t.
pub const POINT_COORD: std::ops::Range<u32> = 0x2e0..0x2e8;

/// What a translation is for.
#[derive(Clone, Copy, Debug)]
pub enum Stage<'a> {
    Compute { local_size: [u32; 3] },
    Vertex(&'a VertexInterface),
    TessControl(&'a TessControlInterface),
    TessEval(&'a TessEvalInterface),
    Geometry(&'a GeometryInterface),
    Fragment(&'a FragmentInterface),
}

impl Stage<'_> {
    /// The stage's name in messages.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Compute { .. } => "compute",
            Stage::Vertex(_) => "vertex",
            Stage::TessControl(_) => "tessellation control",
            Stage::TessEval(_) => "tessellation evaluation",
            Stage::Geometry(_) => "geometry",
            Stage::Fragment(_) => "pixel",
        }
    }

    /// The descriptor set the stage's resources are bound in: one per graphics stage, so that a draw's stages
    /// bind theirs side by side (vertex 0, fragment 1, geometry 2, tessellation control 3 and evaluation 4; a
    /// compute kernel's are set 0).
    pub fn descriptor_set(&self) -> u32 {
        match self {
            Stage::Compute { .. } | Stage::Vertex(_) => 0,
            Stage::Fragment(_) => 1,
            Stage::Geometry(_) => 2,
            Stage::TessControl(_) => 3,
            Stage::TessEval(_) => 4,
        }
    }
}

/// A tessellation control program's interface: it runs once for each of its header's output vertices
/// (ThreadsPerInputPrimitive) of every patch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TessControlInterface {
    pub header: ProgramHeader,
    /// The control points of each input patch (SET_PATCH).
    pub patch_vertices: u32,
    /// The generics the evaluation program reads (bit i: generic i).
    pub next_stage_reads: u32,
    /// Per-patch words past the tessellation levels (from byte address 0x18) the control program hands on: its
    /// header's PerPatchAttributeCount less the six levels.
    pub patch_words: u32,
}

/// How the tessellator cuts a patch's domain (SET_TESSELLATION_PARAMETERS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tessellator {
    pub domain: TessDomain,
    pub spacing: TessSpacing,
    pub output: TessOutput,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessDomain {
    Isolines,
    Triangles,
    Quads,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessSpacing {
    Equal,
    FractionalOdd,
    FractionalEven,
}

/// The tessellator's primitives: points, lines (isolines), or triangles wound clockwise or counter-clockwise in
/// the domain as Vulkan places it (its default upper-left origin: NVK programs the hardware's TRIANGLES_CW for
/// Vulkan's clockwise order there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessOutput {
    Points,
    Lines,
    TrianglesCw,
    TrianglesCcw,
}

/// The user clip planes of the last stage before the rasteriser (SET_USER_CLIP_ENABLE, SET_USER_CLIP_OP): bit i
/// of `clip` sends clip distance i (output word 0x2c0 + 4i) to `ClipDistance` (the primitive is clipped where it
/// is negative), of `cull` to `CullDistance` (the primitive is dropped where every vertex's is negative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UserClip {
    pub clip: u8,
    pub cull: u8,
}

/// The window clip rectangles (SET_WINDOW_CLIP_ENABLE, _TYPE, _HORIZONTAL and _VERTICAL): a pixel is inside when
/// one of `rects` (x0, y0, x1, y1: x0 <= x < x1, y0 <= y < y1, in the targets' pixels as scissors are) holds
/// it; the draw keeps the pixels inside (INCLUSIVE), or outside (EXCLUSIVE). CLIPALL keeps none: INCLUSIVE of no
/// rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowClip {
    pub exclusive: bool,
    pub rects: [[u16; 4]; 8],
}

/// A tessellation evaluation program's interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TessEvalInterface {
    pub header: ProgramHeader,
    /// The control points of each patch: the control program's output vertices.
    pub patch_vertices: u32,
    /// As `TessControlInterface::patch_words`, the control program's.
    pub patch_words: u32,
    pub tessellator: Tessellator,
    /// As `GeometryInterface`'s, which they are when no geometry program follows.
    pub next_stage_reads: u32,
    pub depth_minus_one_to_one: bool,
    pub layer: bool,
    /// As `GeometryInterface::point_size`.
    pub point_size: Option<PointSize>,
    /// Its clip and cull distances, when it is the last stage before the rasteriser.
    pub user_clip: UserClip,
}

/// The primitives a geometry program takes in: the draw's (strips, loops and fans give their primitives one
/// by one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeometryInput {
    Points,
    Lines,
    LinesAdjacency,
    Triangles,
    TrianglesAdjacency,
}

impl GeometryInput {
    /// The vertices of each primitive.
    pub fn vertices(self) -> u32 {
        match self {
            GeometryInput::Points => 1,
            GeometryInput::Lines => 2,
            GeometryInput::LinesAdjacency => 4,
            GeometryInput::Triangles => 3,
            GeometryInput::TrianglesAdjacency => 6,
        }
    }
}

/// A geometry program's interface; its output topology, vertex count and invocations are its header's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GeometryInterface {
    pub header: ProgramHeader,
    pub input: GeometryInput,
    /// The generics the next stage reads (bit i: generic i), as `VertexInterface::next_stage_reads`.
    pub next_stage_reads: u32,
    /// As `VertexInterface::depth_minus_one_to_one`: the geometry stage is the last before the rasteriser.
    pub depth_minus_one_to_one: bool,
    /// The program's layer output picks the targets' layer: it goes to `Layer`.
    pub layer: bool,
    /// The size of the points it emits, as `VertexInterface::point_size` (`GeometryPointSize`, which needs the
    /// device's `shaderTessellationAndGeometryPointSize`; without, points from here are 1 pixel).
    pub point_size: Option<PointSize>,
    /// The output words stream output captures of each emitted vertex, as `VertexInterface::capture`. Each
    /// invocation has room for the header's most vertices (on all streams together) at the capture address:
    /// input primitive p's invocation i's vertex k is record (p x invocations + i) x max vertices + k, of a word
    /// (the vertex stream in bits 31:30, and in 29:0 the number of the strip it belongs to, counting the
    /// invocation's cuts on that stream from 1; 0 in records no vertex reached) and then the captured words.
    pub capture: CapturedWords,
    /// The vertex stream whose vertices reach the rasteriser (SET_RASTER_INPUT); the others' are only captured.
    pub raster_stream: u8,
    /// Its clip and cull distances.
    pub user_clip: UserClip,
}

/// A vertex program's interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexInterface {
    pub header: ProgramHeader,
    /// The generics the next stage reads (bit i: generic i): declared as outputs whether or not the program writes
    /// them, so that they read (0, 0, 0, 1) there.
    pub next_stage_reads: u32,
    /// z is clipped at -w (SET_VIEWPORT_Z_CLIP NEGATIVE_W_TO_POSITIVE_W): Vulkan clips at 0, so the position's z
    /// becomes (z + w) / 2 and the back end doubles the depth range's scale.
    pub depth_minus_one_to_one: bool,
    /// For point draws (the host needs `PointSize` written then): where the points' size comes from.
    pub point_size: Option<PointSize>,
    /// The program's layer output (0x64) picks the targets' layer (SET_RT_LAYER's CONTROL says so): it goes to
    /// `Layer`.
    pub layer: bool,
    /// The output attribute words stream output captures (bit w of word w / 32: the word at byte address 4w),
    /// all zero when it captures none. Each vertex stores them, in ascending order, at the capture address (the
    /// push constant's second member) plus its `VertexIndex` times their size, as the program left them: before
    /// the epilogue moves z for the host's clip range.
    pub capture: CapturedWords,
    /// Its clip and cull distances, when it is the last stage before the rasteriser.
    pub user_clip: UserClip,
}

/// A set of output attribute words (bit w of element w / 32: the word at byte address 4w).
pub type CapturedWords = [u32; ATTRIBUTE_WORDS as usize / 32];

/// The words of `capture`, ascending: a captured vertex's layout.
pub fn captured_words(capture: &CapturedWords) -> impl Iterator<Item = u32> + '_ {
    (0..ATTRIBUTE_WORDS).filter(|&w| capture[(w / 32) as usize] >> (w % 32) & 1 == 1)
}

/// A point draw's point size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointSize {
    /// What the program writes to its point size attribute (0x6c).
    Program,
    /// A fixed size (float bits): SET_POINT_SIZE.
    Fixed(u32),
}

/// A pixel program's interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FragmentInterface {
    pub header: ProgramHeader,
    /// The render target each output goes to, by its numeric type; `None`: no target takes it. The targets are
    /// the host's attachments in this order.
    pub targets: [Option<NumberKind>; 8],
    /// The alpha test, with the reference's float bits: the invocation is killed unless colour output 0's alpha
    /// (0.0 when the program has no output 0) passes `alpha comparison reference`. Vulkan has no fixed-function
    /// alpha test, so it is here.
    pub alpha_test: Option<(Comparison, u32)>,
    /// The colour outputs the fixed function clamps on their way to float targets (SET_PS_SATURATE), and to
    /// what: each component to [0, 1] or [-1, 1], NaN to the low end (as .SAT does).
    pub saturate: [Option<Saturate>; 8],
    /// Target 0 blends with two sources (SRC1 factors): colour output 1 is its second source (`Location` 0,
    /// `Index` 1), of target 0's type, and no target takes it.
    pub dual_source: bool,
    /// By colour output: the output component (R, G, B, A: 0-3) each component of its target takes, for targets
    /// that keep a channel elsewhere than the host format does (an A8 target held as R8 takes A in R).
    pub swizzles: [[u8; 4]; 8],
    /// Where the point sprite coordinate (0x2e0 s, 0x2e4 t) has t = 0, when the draw rasterises points with
    /// point sprites on (SET_POINT_SPRITE, SET_POINT_SPRITE_SELECT's ORIGIN); otherwise the words read 0.
    pub point_coord: Option<PointOrigin>,
    /// The polygon stipple (SET_POLYGON_STIPPLE_PATTERN), when filled triangles are stippled: an invocation is
    /// killed unless pixel (x, y)'s bit is set, bit 8 (x / 8) + 7 - x % 8 of word y, both taken mod 32 (OpenGL's
    /// pattern bytes, each's most significant bit the leftmost pixel, read as little-endian words; rows from
    /// the targets' first).
    pub polygon_stipple: Option<[u32; 32]>,
    /// The window clip rectangles: an invocation is killed where they do not keep its pixel.
    pub window_clip: Option<WindowClip>,
    /// The program's sample mask output (header bit 608: the register after the targets') limits the samples it
    /// covers, as `SampleMask` (SET_PS_OUTPUT_SAMPLE_MASK_USAGE's ENABLE, qualified by the multisample enable
    /// where it says so); otherwise it is not read.
    pub sample_mask: bool,
    /// The depth and stencil tests run before the program (`EarlyFragmentTests`): an invocation it kills has
    /// written depth and stencil already, and a depth it writes is not used.
    pub early_fragment_tests: bool,
    /// With `early_fragment_tests`, the coverage the program reads (`SampleMask`) is what those tests left
    /// (`PostDepthCoverage`, SPV_KHR_post_depth_coverage).
    pub post_depth_coverage: bool,
    /// The samples each pixel of a 2 x 2 quad may write (X0_Y0, X1_Y0, X0_Y1, X1_Y1 by the parities of the
    /// pixel's x and y), when they differ: ANDed into `SampleMask`.
    pub quad_sample_masks: Option<[u16; 4]>,
}

/// The edge of a point where its sprite coordinate t is 0: the one towards the targets' first row (TOP, which
/// is Vulkan's `PointCoord`, as NVK programs it), or the other (BOTTOM).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointOrigin {
    Top,
    Bottom,
}

/// Every output component where the host format has it.
pub const UNSWIZZLED: [[u8; 4]; 8] = [[0, 1, 2, 3]; 8];

/// SET_PS_SATURATE's clamp range of one colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Saturate {
    ZeroToOne,
    MinusOneToOne,
}

impl Saturate {
    /// The outputs SET_PS_SATURATE clamps: bit 4n for output n, and bit 4n + 1 for [-1, 1] rather than [0, 1].
    pub fn from_register(value: u32) -> [Option<Saturate>; 8] {
        std::array::from_fn(|n| match value >> (4 * n) & 0b11 {
            0b01 => Some(Saturate::ZeroToOne),
            0b11 => Some(Saturate::MinusOneToOne),
            _ => None,
        })
    }
}

impl FragmentInterface {
    /// The generics the program reads (bit i: generic i).
    pub fn generics_read(&self) -> u32 {
        (0..GENERICS)
            .filter(|&g| (0..4).any(|c| self.header.interpolation(g, c) != Interpolation::Unused))
            .fold(0, |mask, g| mask | 1 << g)
    }
}

/// The inputs of a stage that sees several vertices (geometry, tessellation): arrays of a vector a vertex, of
/// `Position` and of generic i.
#[derive(Clone)]
pub(super) struct VertexInputs {
    positions: Word,
    generics: Vec<(u32, Word)>,
}

/// The per-patch variables, outputs of a control program and inputs of an evaluation program: `TessLevelOuter`
/// (float[4]), `TessLevelInner` (float[2]), and the words past them as a uvec4 array at the locations just below
/// `PATCH_LOCATIONS_END` (`patch_locations`), word w of them component w % 4 of element w / 4.
#[derive(Clone, Copy)]
pub(super) struct TessLevels {
    outer: Word,
    inner: Word,
    words: Option<Word>,
}

/// One past the last location the per-patch words take: every Vulkan device has at least 16 locations for
/// per-vertex and per-patch variables (`maxTessellationControlPerVertexOutputComponents` is 64 at least), so the
/// words take the top of those, below the generics' where they do not meet (`translate_graphics` checks).
pub const PATCH_LOCATIONS_END: u32 = 16;

/// The first location of `words` per-patch words past the tessellation levels.
pub fn patch_locations(words: u32) -> u32 {
    PATCH_LOCATIONS_END - words.div_ceil(4)
}

/// Where a geometry program's emitted vertices are captured for stream output (`GeometryInterface::capture`).
#[derive(Clone, Debug)]
pub(super) struct GeometryCapture {
    /// The push constant block holding the capture address (its second member).
    push_constants: Word,
    /// The output words captured, ascending.
    words: Vec<u32>,
    /// The header's invocations of each input primitive.
    invocations: u32,
}

/// The outputs of the last stage before the rasteriser (vertex, tessellation evaluation or geometry).
#[derive(Clone)]
pub(super) struct VertexOutputs {
    position: Word,
    /// The `PointSize` output of point draws, and the size it takes.
    point_size: Option<(Word, PointSize)>,
    /// The `ViewportIndex` output of a program that writes the viewport index.
    viewport_index: Option<Word>,
    /// The `Layer` output of a program whose layer output picks the layer.
    layer: Option<Word>,
    /// Generic i's output vector.
    generics: Vec<(u32, Word)>,
    depth_minus_one_to_one: bool,
    /// The `ClipDistance` and `CullDistance` arrays, and the clip distances (bit i: word 0x2c0 + 4i) each takes
    /// in ascending order.
    clip_distances: Option<(Word, u8)>,
    cull_distances: Option<(Word, u8)>,
}

/// The interface variables of a graphics stage.
pub(super) enum StageIo {
    Vertex {
        vertex_index: Word,
        /// The push constant block holding the vertex records' address.
        records: Word,
        outputs: VertexOutputs,
    },
    TessControl {
        inputs: VertexInputs,
        primitive_id: Option<Word>,
        invocation_id: Word,
        /// The output vertices' `Position`s and generic i's vectors (arrays of a vector a vertex).
        positions: Word,
        generics: Vec<(u32, Word)>,
        levels: TessLevels,
    },
    TessEval {
        inputs: VertexInputs,
        primitive_id: Option<Word>,
        tess_coord: Word,
        levels: TessLevels,
        outputs: VertexOutputs,
    },
    Geometry {
        inputs: VertexInputs,
        primitive_id: Option<Word>,
        invocation_id: Word,
        outputs: VertexOutputs,
        /// The most vertices an invocation emits (`Emitter::emitted` counts them).
        max_vertices: u32,
        capture: Option<GeometryCapture>,
        raster_stream: u8,
    },
    Fragment {
        frag_coord: Word,
        front_facing: Word,
        primitive_id: Option<Word>,
        /// Generic i component c's input, and how it is interpolated.
        inputs: Vec<(u32, u32, Word, Interpolation)>,
        /// Target t's output, its type and its first register.
        colors: Vec<(u32, Word, NumberKind, u8)>,
        /// `PointCoord`, where the program reads the point sprite coordinate and the draw's points give it.
        point_coord: Option<(Word, PointOrigin)>,
        /// `Layer` and `ViewportIndex`, where the program reads the layer (0x64) or the viewport index (0x68).
        layer: Option<Word>,
        viewport_index: Option<Word>,
        depth: Option<(Word, u8)>,
        /// `SampleMask` (an array of one word), and the register the program leaves its sample mask in.
        sample_mask: Option<(Word, Option<u8>)>,
    },
}

fn variable(b: &mut Builder, class: StorageClass, ty: Word, interface: &mut Vec<Word>) -> Word {
    let pointer = b.type_pointer(None, class, ty);
    let variable = b.variable(pointer, None, class, None);
    interface.push(variable);
    variable
}

fn built_in(b: &mut Builder, variable: Word, which: BuiltIn) {
    b.decorate(variable, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
}

fn location(b: &mut Builder, variable: Word, location: u32) {
    b.decorate(variable, Decoration::Location, [Operand::LiteralBit32(location)]);
}

/// What the last stage before the rasteriser hands on, from `header`'s outputs: position, the point size of
/// point draws, the viewport index and layer where the program picks them, and the generics the next stage
/// reads or the program writes. Outside geometry programs (whose capability covers them), writing the viewport
/// index and layer needs capabilities of their own.
fn declare_vertex_outputs(
    b: &mut Builder,
    t: &Types,
    header: &ProgramHeader,
    next_stage_reads: u32,
    (point_size, layer, depth_minus_one_to_one, user_clip): (Option<PointSize>, bool, bool, UserClip),
    outside_geometry: bool,
    interface: &mut Vec<Word>,
) -> VertexOutputs {
    let v4f32 = b.type_vector(t.f32, 4);
    let position = variable(b, StorageClass::Output, v4f32, interface);
    built_in(b, position, BuiltIn::Position);
    b.decorate(position, Decoration::Invariant, []);
    let point_size = point_size.map(|size| {
        let output = variable(b, StorageClass::Output, t.f32, interface);
        built_in(b, output, BuiltIn::PointSize);
        (output, size)
    });
    let viewport_index = header.writes(attribute::VIEWPORT_INDEX).then(|| {
        if outside_geometry {
            b.capability(Capability::ShaderViewportIndex);
        }
        let int = b.type_int(32, 1);
        let output = variable(b, StorageClass::Output, int, interface);
        built_in(b, output, BuiltIn::ViewportIndex);
        output
    });
    let layer = layer.then(|| {
        if outside_geometry {
            b.capability(Capability::ShaderLayer);
        }
        let int = b.type_int(32, 1);
        let output = variable(b, StorageClass::Output, int, interface);
        built_in(b, output, BuiltIn::Layer);
        output
    });
    let handed_on = |g| next_stage_reads >> g & 1 == 1 || writes_generic(header, g);
    let generics = declare_generics(b, StorageClass::Output, v4f32, handed_on, interface);
    let mut distances = |planes: u8, capability: Capability, built_in_name: BuiltIn| {
        (planes != 0).then(|| {
            b.capability(capability);
            let count = b.constant_bit32(t.u32, planes.count_ones());
            let array = b.type_array(t.f32, count);
            let output = variable(b, StorageClass::Output, array, interface);
            built_in(b, output, built_in_name);
            (output, planes)
        })
    };
    let clip_distances = distances(user_clip.clip, Capability::ClipDistance, BuiltIn::ClipDistance);
    let cull_distances = distances(user_clip.cull, Capability::CullDistance, BuiltIn::CullDistance);
    VertexOutputs {
        position,
        point_size,
        viewport_index,
        layer,
        generics,
        depth_minus_one_to_one,
        clip_distances,
        cull_distances,
    }
}

pub(super) fn declare_vertex_io(
    b: &mut Builder,
    t: &Types,
    vertex: &VertexInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    let vertex_index = variable(b, StorageClass::Input, t.u32, interface);
    built_in(b, vertex_index, BuiltIn::VertexIndex);
    let records = declare_push_constants(b, t, &vertex.capture, interface);
    let choices = (vertex.point_size, vertex.layer, vertex.depth_minus_one_to_one, vertex.user_clip);
    let outputs = declare_vertex_outputs(b, t, &vertex.header, vertex.next_stage_reads, choices, true, interface);
    StageIo::Vertex { vertex_index, records, outputs }
}

/// The push constant block of the stages before the rasteriser: the vertex records' address, then where captured
/// vertices go when stream output captures any.
fn declare_push_constants(b: &mut Builder, t: &Types, capture: &CapturedWords, interface: &mut Vec<Word>) -> Word {
    let capturing = captured_words(capture).next().is_some();
    let block = if capturing { b.type_struct([t.u64, t.u64]) } else { b.type_struct([t.u64]) };
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    if capturing {
        b.member_decorate(block, 1, Decoration::Offset, [Operand::LiteralBit32(8)]);
    }
    variable(b, StorageClass::PushConstant, block, interface)
}

/// A geometry program's inputs (each an array of a value per vertex of the primitive, the previous stage's
/// outputs), its invocation and primitive ids, and its outputs; `Capability::Geometry`.
pub(super) fn declare_geometry_io(
    b: &mut Builder,
    t: &Types,
    geometry: &GeometryInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    b.capability(Capability::Geometry);
    let inputs = declare_vertex_inputs(b, t, &geometry.header, geometry.input.vertices(), interface);
    let words: Vec<u32> = captured_words(&geometry.capture).collect();
    // Captured vertices are placed by the primitive's number.
    let primitive_id = declare_primitive_id(b, &geometry.header, !words.is_empty(), interface);
    let int = b.type_int(32, 1);
    let invocation_id = variable(b, StorageClass::Input, int, interface);
    built_in(b, invocation_id, BuiltIn::InvocationId);
    if geometry.point_size.is_some() {
        b.capability(Capability::GeometryPointSize);
    }
    let choices = (geometry.point_size, geometry.layer, geometry.depth_minus_one_to_one, geometry.user_clip);
    let outputs = declare_vertex_outputs(b, t, &geometry.header, geometry.next_stage_reads, choices, false, interface);
    let max_vertices = geometry.header.max_output_vertices();
    let capture = (!words.is_empty()).then(|| GeometryCapture {
        push_constants: declare_push_constants(b, t, &geometry.capture, interface),
        words,
        invocations: geometry.header.invocations(),
    });
    let raster_stream = geometry.raster_stream;
    StageIo::Geometry { inputs, primitive_id, invocation_id, outputs, max_vertices, capture, raster_stream }
}

/// The `PrimitiveId` input where the header reads it (a[0x60]) or the stage `needs` it; a stage other than
/// geometry or tessellation needs `Capability::Geometry` for it.
fn declare_primitive_id(
    b: &mut Builder,
    header: &ProgramHeader,
    needs: bool,
    interface: &mut Vec<Word>,
) -> Option<Word> {
    (needs || header.reads(attribute::PRIMITIVE_ID)).then(|| {
        let int = b.type_int(32, 1);
        let input = variable(b, StorageClass::Input, int, interface);
        built_in(b, input, BuiltIn::PrimitiveId);
        input
    })
}

/// A variable of `ty` at `Location` g for each generic g that `wanted`.
fn declare_generics(
    b: &mut Builder,
    class: StorageClass,
    ty: Word,
    wanted: impl Fn(u32) -> bool,
    interface: &mut Vec<Word>,
) -> Vec<(u32, Word)> {
    (0..GENERICS)
        .filter(|&g| wanted(g))
        .map(|g| {
            let generic = variable(b, class, ty, interface);
            location(b, generic, g);
            (g, generic)
        })
        .collect()
}

/// Position and the generics `header` reads, for each of `count` vertices (the previous stage's outputs).
fn declare_vertex_inputs(
    b: &mut Builder,
    t: &Types,
    header: &ProgramHeader,
    count: u32,
    interface: &mut Vec<Word>,
) -> VertexInputs {
    let v4f32 = b.type_vector(t.f32, 4);
    let count = b.constant_bit32(t.u32, count);
    let per_vertex = b.type_array(v4f32, count);
    let positions = variable(b, StorageClass::Input, per_vertex, interface);
    built_in(b, positions, BuiltIn::Position);
    let generics = declare_generics(b, StorageClass::Input, per_vertex, |g| reads_generic(header, g), interface);
    VertexInputs { positions, generics }
}

/// The tessellation levels, patch variables of `class`.
fn declare_tess_levels(
    b: &mut Builder,
    t: &Types,
    class: StorageClass,
    patch_words: u32,
    interface: &mut Vec<Word>,
) -> TessLevels {
    let [outer, inner] = [(4, BuiltIn::TessLevelOuter), (2, BuiltIn::TessLevelInner)].map(|(length, which)| {
        let length = b.constant_bit32(t.u32, length);
        let array = b.type_array(t.f32, length);
        let levels = variable(b, class, array, interface);
        built_in(b, levels, which);
        b.decorate(levels, Decoration::Patch, []);
        levels
    });
    let words = (patch_words > 0).then(|| {
        let v4u32 = b.type_vector(t.u32, 4);
        let length = b.constant_bit32(t.u32, patch_words.div_ceil(4));
        let array = b.type_array(v4u32, length);
        let words = variable(b, class, array, interface);
        location(b, words, patch_locations(patch_words));
        b.decorate(words, Decoration::Patch, []);
        words
    });
    TessLevels { outer, inner, words }
}

/// A tessellation control program's control points in, its invocation, its output vertices (`header`'s
/// invocations of them) and the tessellation levels out; `Capability::Tessellation`.
pub(super) fn declare_tess_control_io(
    b: &mut Builder,
    t: &Types,
    control: &TessControlInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    b.capability(Capability::Tessellation);
    let inputs = declare_vertex_inputs(b, t, &control.header, control.patch_vertices, interface);
    let primitive_id = declare_primitive_id(b, &control.header, false, interface);
    let int = b.type_int(32, 1);
    let invocation_id = variable(b, StorageClass::Input, int, interface);
    built_in(b, invocation_id, BuiltIn::InvocationId);
    let v4f32 = b.type_vector(t.f32, 4);
    let count = b.constant_bit32(t.u32, control.header.invocations());
    let per_vertex = b.type_array(v4f32, count);
    let positions = variable(b, StorageClass::Output, per_vertex, interface);
    built_in(b, positions, BuiltIn::Position);
    let handed_on = |g| control.next_stage_reads >> g & 1 == 1 || writes_generic(&control.header, g);
    let generics = declare_generics(b, StorageClass::Output, per_vertex, handed_on, interface);
    let levels = declare_tess_levels(b, t, StorageClass::Output, control.patch_words, interface);
    StageIo::TessControl { inputs, primitive_id, invocation_id, positions, generics, levels }
}

/// A tessellation evaluation program's control points, domain coordinate and levels in, and its outputs as a
/// vertex program's; `Capability::Tessellation`.
pub(super) fn declare_tess_eval_io(
    b: &mut Builder,
    t: &Types,
    evaluation: &TessEvalInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    b.capability(Capability::Tessellation);
    let inputs = declare_vertex_inputs(b, t, &evaluation.header, evaluation.patch_vertices, interface);
    let primitive_id = declare_primitive_id(b, &evaluation.header, false, interface);
    let v3f32 = b.type_vector(t.f32, 3);
    let tess_coord = variable(b, StorageClass::Input, v3f32, interface);
    built_in(b, tess_coord, BuiltIn::TessCoord);
    let levels = declare_tess_levels(b, t, StorageClass::Input, evaluation.patch_words, interface);
    if evaluation.point_size.is_some() {
        b.capability(Capability::TessellationPointSize);
    }
    let choices = (evaluation.point_size, evaluation.layer, evaluation.depth_minus_one_to_one, evaluation.user_clip);
    let outputs =
        declare_vertex_outputs(b, t, &evaluation.header, evaluation.next_stage_reads, choices, true, interface);
    StageIo::TessEval { inputs, primitive_id, tess_coord, levels, outputs }
}

fn writes_generic(header: &ProgramHeader, generic: u32) -> bool {
    (0..4).any(|c| header.writes(attribute::GENERIC + 16 * generic + 4 * c))
}

fn reads_generic(header: &ProgramHeader, generic: u32) -> bool {
    (0..4).any(|c| header.reads(attribute::GENERIC + 16 * generic + 4 * c))
}

pub(super) fn declare_fragment_io(
    b: &mut Builder,
    t: &Types,
    fragment: &FragmentInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    let v4f32 = b.type_vector(t.f32, 4);
    let frag_coord = variable(b, StorageClass::Input, v4f32, interface);
    built_in(b, frag_coord, BuiltIn::FragCoord);
    let front_facing = variable(b, StorageClass::Input, t.bool, interface);
    built_in(b, front_facing, BuiltIn::FrontFacing);
    let primitive_id = declare_primitive_id(b, &fragment.header, false, interface);
    if let Some(input) = primitive_id {
        b.capability(Capability::Geometry);
        b.decorate(input, Decoration::Flat, []);
    }
    let mut flat_input = |address: u32, which: BuiltIn, capability: Capability| {
        fragment.header.reads(address).then(|| {
            b.capability(capability);
            let int = b.type_int(32, 1);
            let input = variable(b, StorageClass::Input, int, interface);
            built_in(b, input, which);
            b.decorate(input, Decoration::Flat, []);
            input
        })
    };
    let layer = flat_input(attribute::LAYER, BuiltIn::Layer, Capability::Geometry);
    let viewport_index = flat_input(attribute::VIEWPORT_INDEX, BuiltIn::ViewportIndex, Capability::MultiViewport);
    let reads_point_coord = fragment.header.pixel_system_inputs().iter().any(|address| POINT_COORD.contains(address));
    let point_coord = fragment.point_coord.filter(|_| reads_point_coord).map(|origin| {
        let v2f32 = b.type_vector(t.f32, 2);
        let input = variable(b, StorageClass::Input, v2f32, interface);
        built_in(b, input, BuiltIn::PointCoord);
        (input, origin)
    });
    let mut inputs = Vec::new();
    for g in 0..GENERICS {
        for c in 0..4 {
            let mode = fragment.header.interpolation(g, c);
            if mode == Interpolation::Unused {
                continue;
            }
            let input = variable(b, StorageClass::Input, t.f32, interface);
            location(b, input, g);
            b.decorate(input, Decoration::Component, [Operand::LiteralBit32(c)]);
            match mode {
                Interpolation::Constant => b.decorate(input, Decoration::Flat, []),
                Interpolation::ScreenLinear => b.decorate(input, Decoration::NoPerspective, []),
                _ => {}
            }
            inputs.push((g, c, input, mode));
        }
    }
    let registers = fragment.header.output_registers();
    let mut colors = Vec::new();
    for (target, first) in registers.targets.iter().enumerate() {
        let second_source = fragment.dual_source && target == 1;
        let kind = if second_source { fragment.targets[0] } else { fragment.targets[target] };
        let (Some(first), Some(kind)) = (*first, kind) else { continue };
        let element = match kind {
            NumberKind::Float => t.f32,
            NumberKind::Uint => t.u32,
            NumberKind::Sint => b.type_int(32, 1),
        };
        let vector = b.type_vector(element, 4);
        let output = variable(b, StorageClass::Output, vector, interface);
        if second_source {
            location(b, output, 0);
            b.decorate(output, Decoration::Index, [Operand::LiteralBit32(1)]);
        } else {
            let targets_before = fragment.targets[..target].iter().filter(|kind| kind.is_some()).count();
            location(b, output, targets_before as u32);
        }
        colors.push((target as u32, output, kind, first));
    }
    let depth = registers.depth.map(|register| {
        let output = variable(b, StorageClass::Output, t.f32, interface);
        built_in(b, output, BuiltIn::FragDepth);
        (output, register)
    });
    let program_mask = registers.sample_mask.filter(|_| fragment.sample_mask);
    let sample_mask = (program_mask.is_some() || fragment.quad_sample_masks.is_some()).then(|| {
        let int = b.type_int(32, 1);
        let one = b.constant_bit32(t.u32, 1);
        let array = b.type_array(int, one);
        let output = variable(b, StorageClass::Output, array, interface);
        built_in(b, output, BuiltIn::SampleMask);
        (output, program_mask)
    });
    StageIo::Fragment {
        frag_coord,
        front_facing,
        primitive_id,
        inputs,
        colors,
        depth,
        sample_mask,
        point_coord,
        layer,
        viewport_index,
    }
}

impl Emitter<'_> {
    /// A pointer to word `address / 4` of an attribute space.
    fn attribute_word(&mut self, array: Word, address: u32) -> Word {
        let pointer = self.b.type_pointer(None, StorageClass::Function, self.t.u32);
        let index = self.u32_const(address / 4);
        self.b.access_chain(pointer, None, array, [index]).expect("in a block")
    }

    fn attribute_space(&self, output: bool) -> Word {
        if output { self.outputs } else { self.attributes }.expect("a graphics stage declares its attribute spaces")
    }

    fn store_attribute(&mut self, output: bool, address: u32, value: Word) {
        let array = self.attribute_space(output);
        let pointer = self.attribute_word(array, address);
        self.b.store(pointer, value, None, []).expect("in a block");
    }

    fn load_attribute(&mut self, output: bool, address: u32) -> Word {
        let array = self.attribute_space(output);
        let pointer = self.attribute_word(array, address);
        self.b.load(self.t.u32, None, pointer, None, []).expect("in a block")
    }

    fn io(&self) -> &StageIo {
        self.io.as_ref().expect("a graphics stage has its interface")
    }

    /// The vertex's record into the attribute space; the outputs to (0, 0, 0, 1).
    pub(super) fn vertex_prologue(&mut self, vertex: &VertexInterface) {
        let &StageIo::Vertex { vertex_index, records, .. } = self.io() else { unreachable!("a vertex stage") };
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let record = self.vertex_element(records, 0, vertex_index, u64::from(RECORD_WORDS * 4));
        let copy = |e: &mut Self, word: u32, address: u32| {
            let at = e.b.constant_bit64(u64_, u64::from(word * 4));
            let address_of = e.b.i_add(u64_, None, record, at).expect("in a block");
            let pointer = e.b.convert_u_to_ptr(e.t.ptr_psb_u32, None, address_of).expect("in a block");
            let access = [Operand::LiteralBit32(4)];
            let value = e.b.load(u32_, None, pointer, Some(rspirv::spirv::MemoryAccess::ALIGNED), access);
            let value = value.expect("in a block");
            e.store_attribute(false, address, value);
        };
        for g in (0..GENERICS).filter(|&g| reads_generic(&vertex.header, g)) {
            for c in 0..4 {
                copy(self, 4 * g + c, attribute::GENERIC + 16 * g + 4 * c);
            }
        }
        if vertex.header.reads(attribute::VERTEX_ID) {
            copy(self, RECORD_VERTEX_ID, attribute::VERTEX_ID);
        }
        if vertex.header.reads(attribute::INSTANCE_ID) {
            copy(self, RECORD_INSTANCE_ID, attribute::INSTANCE_ID);
        }
        self.clear_outputs();
    }

    /// Position's and the generics' w to 1.0 in the output space (Maxwell behaviour 1.2: unwritten outputs are
    /// (0, 0, 0, 1)).
    fn clear_outputs(&mut self) {
        let one = self.u32_const(ONE);
        self.store_attribute(true, attribute::POSITION + 12, one);
        for g in 0..GENERICS {
            self.store_attribute(true, attribute::GENERIC + 16 * g + 12, one);
        }
    }

    /// Every vertex of the input primitive into the attribute space, 256 words each: position and the generics
    /// the header reads from the previous stage, and the primitive id in each; the outputs to (0, 0, 0, 1).
    pub(super) fn geometry_prologue(&mut self, geometry: &GeometryInterface) {
        let StageIo::Geometry { inputs, primitive_id, .. } = self.io() else { unreachable!("a geometry stage") };
        let (inputs, primitive_id) = (inputs.clone(), *primitive_id);
        self.fill_vertex_inputs(&inputs);
        self.fill_primitive_id(primitive_id, geometry.input.vertices());
        self.clear_outputs();
    }

    /// The primitive's number, where the program reads it, into a[0x60] of each of the input attribute
    /// space's `vertices`.
    fn fill_primitive_id(&mut self, input: Option<Word>, vertices: u32) {
        let Some(input) = input else { return };
        let int = self.b.type_int(32, 1);
        let id = self.b.load(int, None, input, None, []).expect("in a block");
        let id = self.b.bitcast(self.t.u32, None, id).expect("in a block");
        for v in 0..vertices {
            self.store_attribute(false, v * ATTRIBUTE_WORDS * 4 + attribute::PRIMITIVE_ID, id);
        }
    }

    /// Each input vertex's position and generics into its 256 words of the attribute space.
    fn fill_vertex_inputs(&mut self, inputs: &VertexInputs) {
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v4f32 = self.b.type_vector(f32_, 4);
        let pointer = self.b.type_pointer(None, StorageClass::Input, v4f32);
        for v in 0..self.input_vertices {
            let base = v * ATTRIBUTE_WORDS * 4;
            let index = self.u32_const(v);
            let arrays = std::iter::once((attribute::POSITION, inputs.positions))
                .chain(inputs.generics.iter().map(|&(g, input)| (attribute::GENERIC + 16 * g, input)));
            for (address, input) in arrays {
                let element = self.b.access_chain(pointer, None, input, [index]).expect("in a block");
                let vector = self.b.load(v4f32, None, element, None, []).expect("in a block");
                for c in 0..4 {
                    let component = self.b.composite_extract(f32_, None, vector, [c]).expect("in a block");
                    let bits = self.b.bitcast(u32_, None, component).expect("in a block");
                    self.store_attribute(false, base + address + 4 * c, bits);
                }
            }
        }
    }

    /// A tessellation control program's control points into the attribute space; its outputs to (0, 0, 0, 1).
    pub(super) fn tess_control_prologue(&mut self) {
        let StageIo::TessControl { inputs, primitive_id, .. } = self.io() else {
            unreachable!("a tessellation control stage")
        };
        let (inputs, primitive_id) = (inputs.clone(), *primitive_id);
        self.fill_vertex_inputs(&inputs);
        self.fill_primitive_id(primitive_id, self.input_vertices);
        self.clear_outputs();
    }

    /// The invocation's output vertex: position and generics to its element of the output arrays.
    pub(super) fn tess_control_epilogue(&mut self) {
        let StageIo::TessControl { invocation_id, positions, generics, .. } = self.io() else {
            unreachable!("a tessellation control stage")
        };
        let (invocation_id, positions, generics) = (*invocation_id, *positions, generics.clone());
        let int = self.b.type_int(32, 1);
        let index = self.b.load(int, None, invocation_id, None, []).expect("in a block");
        let v4f32 = self.b.type_vector(self.t.f32, 4);
        let pointer = self.b.type_pointer(None, StorageClass::Output, v4f32);
        let arrays = std::iter::once((attribute::POSITION, positions))
            .chain(generics.iter().map(|&(g, output)| (attribute::GENERIC + 16 * g, output)));
        for (address, output) in arrays.collect::<Vec<_>>() {
            let value = self.attribute_vector(true, address);
            let element = self.b.access_chain(pointer, None, output, [index]).expect("in a block");
            self.b.store(element, value, None, []).expect("in a block");
        }
    }

    /// A tessellation evaluation program's control points, and its domain coordinate's u and v (0x2f0, 0x2f4),
    /// into the attribute space; its outputs to (0, 0, 0, 1).
    pub(super) fn tess_eval_prologue(&mut self) {
        let StageIo::TessEval { inputs, primitive_id, tess_coord, .. } = self.io() else {
            unreachable!("a tessellation evaluation stage")
        };
        let (inputs, primitive_id, tess_coord) = (inputs.clone(), *primitive_id, *tess_coord);
        self.fill_vertex_inputs(&inputs);
        self.fill_primitive_id(primitive_id, self.input_vertices);
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v3f32 = self.b.type_vector(f32_, 3);
        let coordinate = self.b.load(v3f32, None, tess_coord, None, []).expect("in a block");
        for c in 0..2 {
            let component = self.b.composite_extract(f32_, None, coordinate, [c]).expect("in a block");
            let bits = self.b.bitcast(u32_, None, component).expect("in a block");
            self.store_attribute(false, attribute::TESS_COORD + 4 * c, bits);
        }
        self.clear_outputs();
    }

    /// A tessellation evaluation program's outputs on, as a vertex program's.
    pub(super) fn tess_eval_epilogue(&mut self) {
        let StageIo::TessEval { outputs, .. } = self.io() else { unreachable!("a tessellation evaluation stage") };
        let outputs = outputs.clone();
        self.write_vertex_outputs(&outputs);
    }

    /// A pointer to the per-patch word at a byte address (`translate_graphics` refuses those past the patch's
    /// words) of a control program's outputs or an evaluation program's inputs, and its type: a tessellation
    /// level's float, or a word's U32.
    fn patch_word(&mut self, address: u32) -> (Word, Word) {
        let (levels, class) = match self.io() {
            StageIo::TessControl { levels, .. } => (*levels, StorageClass::Output),
            StageIo::TessEval { levels, .. } => (*levels, StorageClass::Input),
            _ => unreachable!("per-patch words are refused outside tessellation programs"),
        };
        let (variable, indices, ty) = match address {
            attribute::TESS_LEVELS_END.. => {
                let word = (address - attribute::TESS_LEVELS_END) / 4;
                let words = levels.words.expect("translate_graphics refuses words past the patch's");
                (words, vec![word / 4, word % 4], self.t.u32)
            }
            attribute::TESS_LEVEL_INNER.. => {
                (levels.inner, vec![(address - attribute::TESS_LEVEL_INNER) / 4], self.t.f32)
            }
            _ => (levels.outer, vec![address / 4], self.t.f32),
        };
        let indices: Vec<Word> = indices.into_iter().map(|index| self.u32_const(index)).collect();
        let pointer = self.b.type_pointer(None, class, ty);
        (self.b.access_chain(pointer, None, variable, indices).expect("in a block"), ty)
    }

    /// ALD.P: a per-patch word's bits.
    pub(super) fn patch_load(&mut self, address: u32) -> Word {
        let (pointer, ty) = self.patch_word(address);
        let value = self.b.load(ty, None, pointer, None, []).expect("in a block");
        if ty == self.t.u32 { value } else { self.b.bitcast(self.t.u32, None, value).expect("in a block") }
    }

    /// AST.P: a control program sets a per-patch word.
    pub(super) fn patch_store(&mut self, address: u32, bits: Word) {
        let (pointer, ty) = self.patch_word(address);
        let value = if ty == self.t.u32 { bits } else { self.b.bitcast(ty, None, bits).expect("in a block") };
        self.b.store(pointer, value, None, []).expect("in a block");
    }

    /// OUT.EMIT on `stream`: while the invocation has emitted fewer vertices than its header allows, the outputs as
    /// they stand become a vertex: the rasteriser's when the stream is the one it takes, and a stream output
    /// record when the program captures.
    pub(super) fn emit_vertex(&mut self, stream: u8) {
        let StageIo::Geometry { outputs, max_vertices, capture, raster_stream, .. } = self.io() else {
            unreachable!("OUT is refused outside geometry programs")
        };
        let (outputs, max_vertices, capture) = (outputs.clone(), *max_vertices, capture.clone());
        let rasterized = stream == *raster_stream;
        let u32_ = self.t.u32;
        let emitted = self.b.load(u32_, None, self.emitted, None, []).expect("in a block");
        let limit = self.u32_const(max_vertices);
        let room = self.b.u_less_than(self.t.bool, None, emitted, limit).expect("in a block");
        let (emit, merge) = (self.b.id(), self.b.id());
        self.b.selection_merge(merge, rspirv::spirv::SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(room, emit, merge, []).expect("in a block");
        self.b.begin_block(Some(emit)).expect("in a function");
        if let Some(capture) = &capture {
            self.store_emitted_record(capture, emitted, max_vertices, stream);
        }
        if rasterized {
            self.write_vertex_outputs(&outputs);
            self.b.emit_vertex().expect("in a block");
        }
        let one = self.u32_const(1);
        let more = self.b.i_add(u32_, None, emitted, one).expect("in a block");
        self.b.store(self.emitted, more, None, []).expect("in a block");
        self.b.branch(merge).expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
    }

    /// OUT.CUT on `stream`: its strip ends; a capturing invocation's next vertices on it belong to the next strip.
    pub(super) fn end_primitive(&mut self, stream: u8) {
        let &StageIo::Geometry { raster_stream, ref capture, .. } = self.io() else {
            unreachable!("OUT is refused outside geometry programs")
        };
        let capturing = capture.is_some();
        if stream == raster_stream {
            self.b.end_primitive().expect("in a block");
        }
        if capturing {
            let (u32_, strip) = (self.t.u32, self.strips[usize::from(stream)]);
            let number = self.b.load(u32_, None, strip, None, []).expect("in a block");
            let one = self.u32_const(1);
            let next = self.b.i_add(u32_, None, number, one).expect("in a block");
            self.b.store(strip, next, None, []).expect("in a block");
        }
    }

    /// The emitted vertex's stream output record (`GeometryInterface::capture`): its stream and strip's number,
    /// then the captured words as the program left them.
    fn store_emitted_record(&mut self, capture: &GeometryCapture, emitted: Word, max_vertices: u32, stream: u8) {
        let StageIo::Geometry { primitive_id: Some(primitive_id), .. } = self.io() else {
            unreachable!("a capturing geometry stage reads its primitive's number")
        };
        let primitive_id = *primitive_id;
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let int = self.b.type_int(32, 1);
        let primitive = self.b.load(int, None, primitive_id, None, []).expect("in a block");
        let primitive = self.b.bitcast(u32_, None, primitive).expect("in a block");
        let invocation = self.invocation_id();
        let invocations = self.u32_const(capture.invocations);
        let first = self.b.i_mul(u32_, None, primitive, invocations).expect("in a block");
        let slot = self.b.i_add(u32_, None, first, invocation).expect("in a block");
        let limit = self.u32_const(max_vertices);
        let first = self.b.i_mul(u32_, None, slot, limit).expect("in a block");
        let record = self.b.i_add(u32_, None, first, emitted).expect("in a block");
        let record = self.b.u_convert(u64_, None, record).expect("in a block");
        let record_bytes = self.b.constant_bit64(u64_, 4 * (1 + capture.words.len() as u64));
        let offset = self.b.i_mul(u64_, None, record, record_bytes).expect("in a block");
        let base = self.push_constant_address(capture.push_constants, 1);
        let record = self.b.i_add(u64_, None, base, offset).expect("in a block");
        let strip = self.b.load(u32_, None, self.strips[usize::from(stream)], None, []).expect("in a block");
        let stream = self.u32_const(u32::from(stream) << 30);
        let strip = self.b.bitwise_or(u32_, None, strip, stream).expect("in a block");
        let words: Vec<Word> = capture.words.iter().map(|&word| self.load_attribute(true, 4 * word)).collect();
        for (k, value) in std::iter::once(strip).chain(words).enumerate() {
            self.store_u32(record, 4 * k as u64, value);
        }
    }

    /// Member `member` (an address) of the push constant block `block`.
    fn push_constant_address(&mut self, block: Word, member: u32) -> Word {
        let u64_ = self.t.u64;
        let pointer = self.b.type_pointer(None, StorageClass::PushConstant, u64_);
        let member = self.u32_const(member);
        let member = self.b.access_chain(pointer, None, block, [member]).expect("in a block");
        self.b.load(u64_, None, member, None, []).expect("in a block")
    }

    /// `value` to the word at `base` + `offset` through a physical storage buffer pointer.
    fn store_u32(&mut self, base: Word, offset: u64, value: Word) {
        let u64_ = self.t.u64;
        let at = self.b.constant_bit64(u64_, offset);
        let address = self.b.i_add(u64_, None, base, at).expect("in a block");
        let pointer = self.b.convert_u_to_ptr(self.t.ptr_psb_u32, None, address).expect("in a block");
        let access = [Operand::LiteralBit32(4)];
        self.b.store(pointer, value, Some(rspirv::spirv::MemoryAccess::ALIGNED), access).expect("in a block");
    }

    /// A geometry or tessellation control program's invocation (`Special::InvocationId`).
    pub(super) fn invocation_id(&mut self) -> Word {
        let (&StageIo::Geometry { invocation_id, .. } | &StageIo::TessControl { invocation_id, .. }) = self.io() else {
            unreachable!("invocation registers are refused outside geometry and tessellation control programs")
        };
        let int = self.b.type_int(32, 1);
        let id = self.b.load(int, None, invocation_id, None, []).expect("in a block");
        self.b.bitcast(self.t.u32, None, id).expect("in a block")
    }

    /// Four words of an attribute space as a vec4 of floats.
    fn attribute_vector(&mut self, output: bool, address: u32) -> Word {
        let f32_ = self.t.f32;
        let words: Vec<Word> = (0..4)
            .map(|c| {
                let word = self.load_attribute(output, address + 4 * c);
                self.b.bitcast(f32_, None, word).expect("in a block")
            })
            .collect();
        let v4f32 = self.b.type_vector(f32_, 4);
        self.b.composite_construct(v4f32, None, words).expect("in a block")
    }

    /// The captured words to the capture address, then the outputs on.
    pub(super) fn vertex_epilogue(&mut self, vertex: &VertexInterface) {
        let StageIo::Vertex { vertex_index, records, outputs } = self.io() else { unreachable!("a vertex stage") };
        let (vertex_index, records, outputs) = (*vertex_index, *records, outputs.clone());
        self.store_captured_words(&vertex.capture, vertex_index, records);
        self.write_vertex_outputs(&outputs);
    }

    /// Position (z moved into Vulkan's clip range when the guest clips at -w), a point draw's size, the
    /// viewport index, the layer, the clip and cull distances and the generics from the output space to the
    /// stage's outputs.
    fn write_vertex_outputs(&mut self, outputs: &VertexOutputs) {
        if let Some(output) = outputs.layer {
            // The word as written (RT_ARRAY_INDEX counts layers from the targets' first).
            let word = self.load_attribute(true, attribute::LAYER);
            let int = self.b.type_int(32, 1);
            let value = self.b.bitcast(int, None, word).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some(output) = outputs.viewport_index {
            // The low four bits pick one of the 16 viewports (the host has exactly 16, so any index is defined).
            let word = self.load_attribute(true, attribute::VIEWPORT_INDEX);
            let mask = self.u32_const(0xf);
            let index = self.b.bitwise_and(self.t.u32, None, word, mask).expect("in a block");
            let int = self.b.type_int(32, 1);
            let value = self.b.bitcast(int, None, index).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some((output, size)) = outputs.point_size {
            let bits = match size {
                PointSize::Program => self.load_attribute(true, attribute::POINT_SIZE),
                PointSize::Fixed(bits) => self.u32_const(bits),
            };
            let value = self.b.bitcast(self.t.f32, None, bits).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        let mut value = self.attribute_vector(true, attribute::POSITION);
        if outputs.depth_minus_one_to_one {
            let f32_ = self.t.f32;
            let z = self.b.composite_extract(f32_, None, value, [2]).expect("in a block");
            let w = self.b.composite_extract(f32_, None, value, [3]).expect("in a block");
            let sum = self.b.f_add(f32_, None, z, w).expect("in a block");
            let half = self.b.constant_bit32(f32_, 0.5f32.to_bits());
            let z = self.b.f_mul(f32_, None, sum, half).expect("in a block");
            let v4f32 = self.b.type_vector(f32_, 4);
            value = self.b.composite_insert(v4f32, None, z, value, [2]).expect("in a block");
        }
        self.b.store(outputs.position, value, None, []).expect("in a block");
        for (array, planes) in [outputs.clip_distances, outputs.cull_distances].into_iter().flatten() {
            let pointer = self.b.type_pointer(None, StorageClass::Output, self.t.f32);
            for (k, plane) in (0..8u32).filter(|plane| planes >> plane & 1 == 1).enumerate() {
                let bits = self.load_attribute(true, attribute::CLIP_DISTANCE + 4 * plane);
                let value = self.b.bitcast(self.t.f32, None, bits).expect("in a block");
                let index = self.u32_const(k as u32);
                let element = self.b.access_chain(pointer, None, array, [index]).expect("in a block");
                self.b.store(element, value, None, []).expect("in a block");
            }
        }
        for &(g, output) in &outputs.generics {
            let value = self.attribute_vector(true, attribute::GENERIC + 16 * g);
            self.b.store(output, value, None, []).expect("in a block");
        }
    }

    /// The address of this vertex's element of the array of `size`-byte elements whose address is member
    /// `member` of the push constant block: the address plus `VertexIndex` x `size`.
    fn vertex_element(&mut self, records: Word, member: u32, vertex_index: Word, size: u64) -> Word {
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let base = self.push_constant_address(records, member);
        let index = self.b.load(u32_, None, vertex_index, None, []).expect("in a block");
        let index = self.b.u_convert(u64_, None, index).expect("in a block");
        let size = self.b.constant_bit64(u64_, size);
        let offset = self.b.i_mul(u64_, None, index, size).expect("in a block");
        self.b.i_add(u64_, None, base, offset).expect("in a block")
    }

    /// Stream output's words of this vertex to the capture address + `VertexIndex` x their size.
    fn store_captured_words(&mut self, capture: &CapturedWords, vertex_index: Word, records: Word) {
        let words: Vec<u32> = captured_words(capture).collect();
        if words.is_empty() {
            return;
        }
        let vertex_base = self.vertex_element(records, 1, vertex_index, 4 * words.len() as u64);
        for (k, word) in words.into_iter().enumerate() {
            let value = self.load_attribute(true, 4 * word);
            self.store_u32(vertex_base, 4 * k as u64, value);
        }
    }

    /// FragCoord, front facing, the primitive's number, the layer and viewport index, the point sprite coordinate
    /// and the interpolated generics into the attribute space.
    pub(super) fn fragment_prologue(&mut self, fragment: &FragmentInterface) {
        let StageIo::Fragment {
            frag_coord,
            front_facing,
            primitive_id,
            inputs,
            point_coord,
            layer,
            viewport_index,
            ..
        } = self.io()
        else {
            unreachable!("a fragment stage")
        };
        let (frag_coord, front_facing, primitive_id, inputs, point_coord) =
            (*frag_coord, *front_facing, *primitive_id, inputs.clone(), *point_coord);
        let flat_inputs = [(*layer, attribute::LAYER), (*viewport_index, attribute::VIEWPORT_INDEX)];
        self.fill_primitive_id(primitive_id, 1);
        for (input, address) in flat_inputs {
            let Some(input) = input else { continue };
            let int = self.b.type_int(32, 1);
            let value = self.b.load(int, None, input, None, []).expect("in a block");
            let bits = self.b.bitcast(self.t.u32, None, value).expect("in a block");
            self.store_attribute(false, address, bits);
        }
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v4f32 = self.b.type_vector(f32_, 4);
        let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
        for c in 0..4 {
            let component = self.b.composite_extract(f32_, None, coord, [c]).expect("in a block");
            let bits = self.b.bitcast(u32_, None, component).expect("in a block");
            self.store_attribute(false, attribute::POSITION + 4 * c, bits);
        }
        let front = self.b.load(self.t.bool, None, front_facing, None, []).expect("in a block");
        let (all, none) = (self.u32_const(u32::MAX), self.u32_const(0));
        let facing = self.b.select(u32_, None, front, all, none).expect("in a block");
        self.store_attribute(false, attribute::FRONT_FACING, facing);
        if let Some((input, origin)) = point_coord {
            let v2f32 = self.b.type_vector(f32_, 2);
            let st = self.b.load(v2f32, None, input, None, []).expect("in a block");
            for (c, address) in POINT_COORD.step_by(4).enumerate() {
                let mut value = self.b.composite_extract(f32_, None, st, [c as u32]).expect("in a block");
                if c == 1 && origin == PointOrigin::Bottom {
                    let one = self.b.constant_bit32(f32_, ONE);
                    value = self.b.f_sub(f32_, None, one, value).expect("in a block");
                }
                let bits = self.b.bitcast(u32_, None, value).expect("in a block");
                self.store_attribute(false, address, bits);
            }
        }
        if let Some(pattern) = fragment.polygon_stipple {
            self.polygon_stipple(coord, &pattern);
        }
        if let Some(clip) = fragment.window_clip {
            self.window_clip(coord, &clip);
        }
        let w = self.b.composite_extract(f32_, None, coord, [3]).expect("in a block");
        for (g, c, input, mode) in inputs {
            let mut value = self.b.load(f32_, None, input, None, []).expect("in a block");
            if mode == Interpolation::Perspective {
                value = self.b.f_mul(f32_, None, value, w).expect("in a block");
            }
            let bits = self.b.bitcast(u32_, None, value).expect("in a block");
            self.store_attribute(false, attribute::GENERIC + 16 * g + 4 * c, bits);
        }
    }

    /// IPA away from the pixel centre: the attribute word at `address`, interpolated at the centroid (`None`) or
    /// at the packed offset from the centre (x in bits 15:0, y in 31:16, signed 4.12 fixed point, clamped to
    /// [-0.5, 0.4375] as Vulkan guarantees that range and NVIDIA's compilers pack no other), as the prologue
    /// would hold it there. A perspective input is multiplied by the centre's FragCoord.w, as the prologue does,
    /// and Position's w (1/w) reads the centre's too: programs divide by their own read of it at the same
    /// location, so the two cancel as they do on the hardware. Position's x and y move by the offset (the
    /// centroid's reads the centre's); flat inputs and every other word are the prologue's.
    pub(super) fn interpolate_at(&mut self, address: u32, offset: Option<Word>) -> Word {
        let StageIo::Fragment { frag_coord, inputs, .. } = self.io() else {
            unreachable!("IPA is refused outside pixel programs")
        };
        let (frag_coord, inputs) = (*frag_coord, inputs.clone());
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v2f32 = self.b.type_vector(f32_, 2);
        let offset = offset.map(|packed| {
            let int = self.b.type_int(32, 1);
            let packed = self.b.bitcast(int, None, packed).expect("in a block");
            let sixteen = self.u32_const(16);
            let low = self.b.shift_left_logical(int, None, packed, sixteen).expect("in a block");
            let halves =
                [low, packed].map(|half| self.b.shift_right_arithmetic(int, None, half, sixteen).expect("in a block"));
            let scale = self.b.constant_bit32(f32_, (1.0f32 / 4096.0).to_bits());
            let (low, high) =
                (self.b.constant_bit32(f32_, (-0.5f32).to_bits()), self.b.constant_bit32(f32_, 0.4375f32.to_bits()));
            let [x, y] = halves.map(|half| {
                let value = self.b.convert_s_to_f(f32_, None, half).expect("in a block");
                let value = self.b.f_mul(f32_, None, value, scale).expect("in a block");
                self.glsl(f32_, super::glsl::N_CLAMP, &[value, low, high])
            });
            self.b.composite_construct(v2f32, None, [x, y]).expect("in a block")
        });
        let v4f32 = self.b.type_vector(f32_, 4);
        let generic = (attribute::GENERIC..attribute::GENERIC_END).contains(&address).then(|| {
            let (g, c) = ((address - attribute::GENERIC) / 16, (address - attribute::GENERIC) % 16 / 4);
            inputs.iter().find(|&&(ig, ic, ..)| (ig, ic) == (g, c)).copied()
        });
        let value = match (generic, address) {
            (Some(Some((_, _, input, mode))), _) if mode != Interpolation::Constant => {
                let mut value = match offset {
                    None => self.glsl(f32_, super::glsl::INTERPOLATE_AT_CENTROID, &[input]),
                    Some(offset) => self.glsl(f32_, super::glsl::INTERPOLATE_AT_OFFSET, &[input, offset]),
                };
                if mode == Interpolation::Perspective {
                    let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
                    let w = self.b.composite_extract(f32_, None, coord, [3]).expect("in a block");
                    value = self.b.f_mul(f32_, None, value, w).expect("in a block");
                }
                value
            }
            (None, x_or_y)
                if offset.is_some() && (x_or_y == attribute::POSITION || x_or_y == attribute::POSITION + 4) =>
            {
                let component = (x_or_y - attribute::POSITION) / 4;
                let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
                let centre = self.b.composite_extract(f32_, None, coord, [component]).expect("in a block");
                let moved =
                    self.b.composite_extract(f32_, None, offset.expect("an offset"), [component]).expect("in a block");
                self.b.f_add(f32_, None, centre, moved).expect("in a block")
            }
            _ => return self.load_attribute(false, address),
        };
        self.b.bitcast(u32_, None, value).expect("in a block")
    }

    /// A guest register's value at the end (0 if the program never touches it).
    fn final_register(&mut self, register: u8) -> Word {
        match self.registers.get(&register) {
            Some(&variable) => self.b.load(self.t.u32, None, variable, None, []).expect("in a block"),
            None => self.u32_const(0),
        }
    }

    /// The pixel's x and y as U32 (`coord`: FragCoord, at the pixel's centre).
    fn pixel_position(&mut self, coord: Word) -> [Word; 2] {
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        [0, 1].map(|c| {
            let component = self.b.composite_extract(f32_, None, coord, [c]).expect("in a block");
            self.b.convert_f_to_u(u32_, None, component).expect("in a block")
        })
    }

    /// The polygon stipple (`FragmentInterface::polygon_stipple`), as a branch to OpKill where the pixel's bit
    /// is clear: the row's word picked by a chain of selects, then the bit.
    fn polygon_stipple(&mut self, coord: Word, pattern: &[u32; 32]) {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let [x, y] = self.pixel_position(coord);
        let (thirty_one, seven, one) = (self.u32_const(31), self.u32_const(7), self.u32_const(1));
        let row = self.b.bitwise_and(u32_, None, y, thirty_one).expect("in a block");
        let word = self.pick_constant(row, pattern);
        // Bit 8 (x / 8) + 7 - x % 8 of x mod 32: the byte's bits counted from the top, i.e. bit (x & 31) ^ 7.
        let column = self.b.bitwise_and(u32_, None, x, thirty_one).expect("in a block");
        let bit = self.b.bitwise_xor(u32_, None, column, seven).expect("in a block");
        let shifted = self.b.shift_right_logical(u32_, None, word, bit).expect("in a block");
        let set = self.b.bitwise_and(u32_, None, shifted, one).expect("in a block");
        let pass = self.b.i_equal(bool_, None, set, one).expect("in a block");
        self.kill_unless(pass);
    }

    /// The window clip (`FragmentInterface::window_clip`), as a branch to OpKill where it does not keep the
    /// pixel: its x and y compared with each rectangle that holds any pixel.
    fn window_clip(&mut self, coord: Word, clip: &WindowClip) {
        let bool_ = self.t.bool;
        let [x, y] = self.pixel_position(coord);
        let within = |e: &mut Self, value: Word, low: u16, high: u16| {
            let (low, high) = (e.u32_const(low.into()), e.u32_const(high.into()));
            let above = e.b.u_greater_than_equal(bool_, None, value, low).expect("in a block");
            let below = e.b.u_less_than(bool_, None, value, high).expect("in a block");
            e.b.logical_and(bool_, None, above, below).expect("in a block")
        };
        let mut inside = self.b.constant_false(bool_);
        for &[x0, y0, x1, y1] in clip.rects.iter().filter(|[x0, y0, x1, y1]| x0 < x1 && y0 < y1) {
            let (across, down) = (within(self, x, x0, x1), within(self, y, y0, y1));
            let here = self.b.logical_and(bool_, None, across, down).expect("in a block");
            inside = self.b.logical_or(bool_, None, inside, here).expect("in a block");
        }
        let pass = if clip.exclusive { self.b.logical_not(bool_, None, inside).expect("in a block") } else { inside };
        self.kill_unless(pass);
    }

    /// The sample mask of this invocation's pixel among a quad's `masks` (by the parities of its x and y).
    fn quad_sample_mask(&mut self, masks: &[u16; 4]) -> Word {
        let StageIo::Fragment { frag_coord, .. } = self.io() else { unreachable!("a fragment stage") };
        let frag_coord = *frag_coord;
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v4f32 = self.b.type_vector(f32_, 4);
        let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
        let one = self.u32_const(1);
        let [x, y] =
            self.pixel_position(coord).map(|whole| self.b.bitwise_and(u32_, None, whole, one).expect("in a block"));
        let row = self.b.shift_left_logical(u32_, None, y, one).expect("in a block");
        let index = self.b.bitwise_or(u32_, None, x, row).expect("in a block");
        self.pick_constant(index, &masks.map(u32::from))
    }

    /// `values[index]` (`index` below their count) as a chain of selects, the constants being few.
    fn pick_constant(&mut self, index: Word, values: &[u32]) -> Word {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let mut value = self.u32_const(values[0]);
        for (k, &bits) in values.iter().enumerate().skip(1) {
            let (k, bits) = (self.u32_const(k as u32), self.u32_const(bits));
            let here = self.b.i_equal(bool_, None, index, k).expect("in a block");
            value = self.b.select(u32_, None, here, bits, value).expect("in a block");
        }
        value
    }

    /// A branch to OpKill unless `pass` holds.
    fn kill_unless(&mut self, pass: Word) {
        let (kill, merge) = (self.b.id(), self.b.id());
        self.b.selection_merge(merge, rspirv::spirv::SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(pass, merge, kill, []).expect("in a block");
        self.b.begin_block(Some(kill)).expect("in a function");
        self.b.kill().expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
    }

    /// The alpha test, as a branch to OpKill when it fails.
    fn alpha_test(&mut self, fragment: &FragmentInterface) {
        let Some((comparison, reference)) = fragment.alpha_test else { return };
        let (f32_, bool_) = (self.t.f32, self.t.bool);
        let alpha = match fragment.header.output_registers().targets[0] {
            Some(first) => {
                let bits = self.final_register(first + 3);
                self.b.bitcast(f32_, None, bits).expect("in a block")
            }
            None => self.b.constant_bit32(f32_, 0),
        };
        let reference = self.b.constant_bit32(f32_, reference);
        let b = &mut self.b;
        let pass = match comparison {
            Comparison::Always => return,
            Comparison::Never => b.constant_false(bool_),
            Comparison::Less => b.f_ord_less_than(bool_, None, alpha, reference).expect("in a block"),
            Comparison::Equal => b.f_ord_equal(bool_, None, alpha, reference).expect("in a block"),
            Comparison::LessOrEqual => b.f_ord_less_than_equal(bool_, None, alpha, reference).expect("in a block"),
            Comparison::Greater => b.f_ord_greater_than(bool_, None, alpha, reference).expect("in a block"),
            Comparison::NotEqual => b.f_unord_not_equal(bool_, None, alpha, reference).expect("in a block"),
            Comparison::GreaterOrEqual => {
                b.f_ord_greater_than_equal(bool_, None, alpha, reference).expect("in a block")
            }
        };
        self.kill_unless(pass);
    }

    /// The alpha test, then the registers the header names into the colour outputs, depth and the sample mask.
    pub(super) fn fragment_epilogue(&mut self, fragment: &FragmentInterface) {
        self.alpha_test(fragment);
        let StageIo::Fragment { colors, depth, sample_mask, .. } = self.io() else { unreachable!("a fragment stage") };
        let (colors, depth, sample_mask) = (colors.clone(), *depth, *sample_mask);
        for (target, output, kind, first) in colors {
            let element = match kind {
                NumberKind::Float => self.t.f32,
                NumberKind::Uint => self.t.u32,
                NumberKind::Sint => self.b.type_int(32, 1),
            };
            let clamp = fragment.saturate[target as usize].filter(|_| kind == NumberKind::Float).map(|range| {
                let low = if range == Saturate::ZeroToOne { 0.0f32 } else { -1.0 };
                (self.b.constant_bit32(self.t.f32, low.to_bits()), self.b.constant_bit32(self.t.f32, 1.0f32.to_bits()))
            });
            let components: Vec<Word> = (0..4)
                .map(|c| {
                    let bits = self.final_register(first + c);
                    if kind == NumberKind::Uint {
                        return bits;
                    }
                    let value = self.b.bitcast(element, None, bits).expect("in a block");
                    match clamp {
                        Some((low, high)) => self.glsl(self.t.f32, super::glsl::N_CLAMP, &[value, low, high]),
                        None => value,
                    }
                })
                .collect();
            let swizzle = fragment.swizzles[target as usize];
            let components = swizzle.map(|c| components[c as usize]);
            let vector = self.b.type_vector(element, 4);
            let value = self.b.composite_construct(vector, None, components).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some((output, register)) = depth {
            let bits = self.final_register(register);
            let value = self.b.bitcast(self.t.f32, None, bits).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some((output, register)) = sample_mask {
            let u32_ = self.t.u32;
            let all = self.u32_const(u32::MAX);
            let mut bits = register.map_or(all, |register| self.final_register(register));
            if let Some(masks) = fragment.quad_sample_masks {
                let quad = self.quad_sample_mask(&masks);
                bits = self.b.bitwise_and(u32_, None, bits, quad).expect("in a block");
            }
            let int = self.b.type_int(32, 1);
            let value = self.b.bitcast(int, None, bits).expect("in a block");
            let pointer = self.b.type_pointer(None, StorageClass::Output, int);
            let zero = self.u32_const(0);
            let element = self.b.access_chain(pointer, None, output, [zero]).expect("in a block");
            self.b.store(element, value, None, []).expect("in a block");
        }
    }
}
