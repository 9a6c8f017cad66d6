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

use super::Emitter;
use crate::shader::sph::{Interpolation, ProgramHeader, attribute};
use crate::texture::descriptor::Comparison;
use crate::texture::format::NumberKind;
use rspirv::spirv::{StorageClass, Word};

mod declare;
mod fragment;
mod vertex;

pub(super) use declare::{
    declare_fragment_io, declare_geometry_io, declare_tess_control_io, declare_tess_eval_io, declare_vertex_io,
};

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

// What every stage's prologue and epilogue reads and writes: the attribute spaces.
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

    /// The first `count` components of the float vector of `size` components in `variable`, as bits, into the
    /// attribute space's words from `address` (FragCoord at the position, TessCoord's u and v); the vector.
    fn store_float_components(&mut self, variable: Word, size: u32, count: u32, address: u32) -> Word {
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let vector = self.b.type_vector(f32_, size);
        let value = self.b.load(vector, None, variable, None, []).expect("in a block");
        for c in 0..count {
            let component = self.b.composite_extract(f32_, None, value, [c]).expect("in a block");
            let bits = self.b.bitcast(u32_, None, component).expect("in a block");
            self.store_attribute(false, address + 4 * c, bits);
        }
        value
    }

    fn io(&self) -> &StageIo {
        self.io.as_ref().expect("a graphics stage has its interface")
    }
}
