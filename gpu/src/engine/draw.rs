//! Draws of the 3D engine: what BEGIN, the draw launches and END mean, the state a draw reads (resolved from the
//! registers into a `backend::Draw`), constant buffer uploads and binds; vertex fetch is `vertex_fetch`'s. Facts
//! from open-gpu-doc clb197.h; semantics as NVIDIA's own 3D driver (open-gpu-kernel-modules, nvidia-3d), NVK and
//! deko3d program them.

use super::counters::{Counters, Statistic};
use super::maxwell_3d::Maxwell3D;
use super::multisample::Multisample;
use super::raster::SET_ANTI_ALIASED_POINT;
pub use super::raster::{LineStipple, Lines, PolygonMode};
use super::stream_out::{
    BUFFER_STRIDE as STREAM_OUT_BUFFER_STRIDE, DRAW_AUTO, SET_DRAW_AUTO_START, SET_DRAW_AUTO_STRIDE,
    SET_STREAM_OUT_BUFFER_LOAD_WRITE_POINTER, StreamOut, StreamOutState,
};
use super::{Context, EngineError, Method};
use crate::backend::{ConstantBuffer, Rect};
use crate::sass::Isa;
use crate::shader::sph::{ProgramHeader, attribute, header_bytes, parse_program_header};
use crate::shader::{PointOrigin, UserClip, WindowClip};
use crate::texture::descriptor::{Comparison, Pools};

pub const DRAW_VERTEX_ARRAY_START: u32 = 0x0d74;
pub const DRAW_VERTEX_ARRAY: u32 = 0x0d78;
pub const END: u32 = 0x1614;
pub const BEGIN: u32 = 0x1618;
pub const DRAW_VERTEX_ARRAY_BEGIN_END_INSTANCE_FIRST: u32 = 0x1214;
pub const DRAW_VERTEX_ARRAY_BEGIN_END_INSTANCE_SUBSEQUENT: u32 = 0x1218;
pub const SET_INDEX_BUFFER_A: u32 = 0x17c8;
pub const SET_INDEX_BUFFER_F: u32 = 0x17dc;
/// Ampere (C797): the index buffer's size in bytes (upper, lower), where Maxwell has its last byte's address.
pub const SET_INDEX_BUFFER_SIZE_A: u32 = 0x0238;
pub const DRAW_INDEX_BUFFER: u32 = 0x17e0;
/// DRAW_INDEX_BUFFER{32,16,8}_BEGIN_END_INSTANCE_{FIRST,SUBSEQUENT}: 0x17e4 to 0x17f8.
pub const DRAW_INDEX_BUFFER_BEGIN_END: std::ops::RangeInclusive<u32> = 0x17e4..=0x17f8;
/// Ampere (C797): a draw's BEGIN in a register (TOPOLOGY 3:0, PRIMITIVE_ID 4, INSTANCE_ID 6:5, SPLIT_MODE 8:7,
/// INSTANCE_ITERATE_ENABLE 9, IGNORE_GLOBAL_BASE_VERTEX_INDEX 10, _INSTANCE_INDEX 11), the instance count in B.
pub const SET_DRAW_CONTROL_A: u32 = 0x0260;
pub const SET_DRAW_CONTROL_B: u32 = 0x0264;
/// The most instances one SET_DRAW_CONTROL draw iterates: each is a draw of its own.
const MAX_ITERATED_INSTANCES: u32 = 1 << 16;
/// Ampere: one-method draws, the first index or vertex in A, the count in B, which launches (with
/// SET_DRAW_CONTROL_A's state, as BEGIN, the launch and END would).
pub const DRAW_INDEX_BUFFER_BEGIN_END_B: u32 = 0x026c;
pub const DRAW_VERTEX_ARRAY_BEGIN_END_B: u32 = 0x0274;
/// Indices in the pushbuffer: one 32-bit index, two 16-bit ones, four 8-bit ones a method.
pub const DRAW_INLINE_INDEX: u32 = 0x15e8;
pub const DRAW_INLINE_INDEX2X16: u32 = 0x15f0;
pub const DRAW_INLINE_INDEX4X8: u32 = 0x1304;
/// The packed forms' alignment: COUNT and START_ODD (2X16), COUNT and START (4X8).
pub const SET_INLINE_INDEX2X16_ALIGN: u32 = 0x15ec;
pub const SET_INLINE_INDEX4X8_ALIGN: u32 = 0x1300;
/// The most inline indices one draw collects (a broken pushbuffer should not exhaust the host's memory).
const MAX_INLINE_INDICES: usize = 1 << 20;
pub const SET_VERTEX_ATTRIBUTE_A: u32 = 0x1160;
pub const SET_VERTEX_STREAM_A_FORMAT: u32 = 0x1c00;
pub const SET_VERTEX_STREAM_LIMIT_A_A: u32 = 0x1f00;
/// Ampere (C797): a vertex stream's size in bytes (upper, lower), where Maxwell has its last byte's address.
pub const SET_VERTEX_STREAM_SIZE_A: u32 = 0x0600;
pub const SET_VERTEX_STREAM_INSTANCE_A: u32 = 0x1880;
pub const SET_ATTRIBUTE_DEFAULT: u32 = 0x1610;
pub const SET_GLOBAL_BASE_VERTEX_INDEX: u32 = 0x1434;
pub const SET_GLOBAL_BASE_INSTANCE_INDEX: u32 = 0x1438;
pub const SET_VERTEX_ID_BASE: u32 = 0x1118;
pub const SET_DA_OUTPUT: u32 = 0x164c;
pub const SET_DA_PRIMITIVE_RESTART: u32 = 0x1644;
pub const SET_DA_PRIMITIVE_RESTART_INDEX: u32 = 0x1648;
pub const SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY: u32 = 0x0de8;
pub const SET_DA_PRIMITIVE_RESTART_TOPOLOGY_CHANGE: u32 = 0x0748;
pub const SET_PROGRAM_REGION_A: u32 = 0x1608;
/// Ampere (C797): a pipeline slot's program address (upper byte, then lower word), where Maxwell has an offset into
/// the program region.
pub const SET_PIPELINE_PROGRAM_ADDRESS_A: u32 = 0x2014;
pub const SET_PIPELINE_SHADER: u32 = 0x2000;
pub const PIPELINE_STRIDE: u32 = 64;
pub const SET_CONSTANT_BUFFER_SELECTOR_A: u32 = 0x2380;
pub const LOAD_CONSTANT_BUFFER_OFFSET: u32 = 0x238c;
pub const LOAD_CONSTANT_BUFFER: std::ops::RangeInclusive<u32> = 0x2390..=0x23cc;
pub const BIND_GROUP_CONSTANT_BUFFER: u32 = 0x2410;
pub const BIND_GROUP_STRIDE: u32 = 32;
pub const SET_VIEWPORT_SCALE_X: u32 = 0x0a00;
pub const SET_VIEWPORT_OFFSET_X: u32 = 0x0a0c;
pub const SET_VIEWPORT_COORDINATE_SWIZZLE: u32 = 0x0a18;
/// SET_VIEWPORT_COORDINATE_SWIZZLE's X, Y, Z, W (bits 2:0, 6:4, 10:8, 14:12) as POS_X, POS_Y, POS_Z, POS_W.
pub const IDENTITY_SWIZZLE: u32 = 0x6420;
pub const SET_VIEWPORT_SCALE_OFFSET: u32 = 0x192c;
pub const SET_VIEWPORT_Z_CLIP: u32 = 0x0d7c;
pub const SET_VIEWPORT_CLIP_HORIZONTAL: u32 = 0x0c00;
pub const SET_VIEWPORT_CLIP_VERTICAL: u32 = 0x0c04;
pub const SET_SURFACE_CLIP_HORIZONTAL: u32 = 0x0ff4;
pub const SET_SURFACE_CLIP_VERTICAL: u32 = 0x0ff8;
pub const SET_WINDOW_ORIGIN: u32 = 0x13ac;
pub const SET_CT_WRITE: u32 = 0x1a00;
pub const SET_SINGLE_CT_WRITE_CONTROL: u32 = 0x0f90;
pub const SET_BLEND: u32 = 0x1360;
pub const SET_BLEND_STATE_PER_TARGET: u32 = 0x12e4;
pub const SET_BLEND_SEPARATE_FOR_ALPHA: u32 = 0x133c;
pub const SET_BLEND_COLOR_OP: u32 = 0x1340;
pub const SET_BLEND_PER_TARGET_SEPARATE_FOR_ALPHA: u32 = 0x1e00;
pub const SET_BLEND_CONST_RED: u32 = 0x131c;
pub const SET_DEPTH_TEST: u32 = 0x12cc;
pub const SET_DEPTH_WRITE: u32 = 0x12e8;
/// ENABLE_Z 0:0, ENABLE_STENCIL 4:4: the zeta target's depth or stencil marked read-only.
pub const SET_ZT_READ_ONLY: u32 = 0x07f8;
pub const SET_DEPTH_FUNC: u32 = 0x130c;
pub const SET_ALPHA_TEST: u32 = 0x12ec;
pub const SET_ALPHA_REF: u32 = 0x1310;
pub const SET_ALPHA_FUNC: u32 = 0x1314;
pub const SET_DEPTH_BOUNDS_TEST: u32 = 0x19bc;
/// Polygon offset for triangles drawn as points, as lines and filled.
pub const SET_POLY_OFFSET_POINT: u32 = 0x0dc0;
pub const SET_POLY_OFFSET_LINE: u32 = 0x0dc4;
pub const SET_POLY_OFFSET_FILL: u32 = 0x0dc8;
pub const SET_SLOPE_SCALE_DEPTH_BIAS: u32 = 0x156c;
pub const SET_DEPTH_BIAS: u32 = 0x15bc;
pub const SET_DEPTH_BIAS_CLAMP: u32 = 0x187c;
pub const SET_DEPTH_BIAS_CONTROL: u32 = 0x1110;
pub const SET_DEPTH_BOUNDS_MIN: u32 = 0x0f9c;
pub const SET_DEPTH_BOUNDS_MAX: u32 = 0x0fa0;
pub const SET_STENCIL_TEST: u32 = 0x1380;
pub const SET_STENCIL_OP_FAIL: u32 = 0x1384;
pub const SET_STENCIL_OP_ZFAIL: u32 = 0x1388;
pub const SET_STENCIL_OP_ZPASS: u32 = 0x138c;
pub const SET_STENCIL_FUNC: u32 = 0x1390;
pub const SET_STENCIL_FUNC_REF: u32 = 0x1394;
pub const SET_STENCIL_FUNC_MASK: u32 = 0x1398;
pub const SET_TWO_SIDED_STENCIL_TEST: u32 = 0x1594;
pub const SET_BACK_STENCIL_OP_FAIL: u32 = 0x1598;
pub const SET_BACK_STENCIL_OP_ZFAIL: u32 = 0x159c;
pub const SET_BACK_STENCIL_OP_ZPASS: u32 = 0x15a0;
pub const SET_BACK_STENCIL_FUNC: u32 = 0x15a4;
pub const SET_BACK_STENCIL_FUNC_REF: u32 = 0x0f54;
pub const SET_BACK_STENCIL_MASK: u32 = 0x0f58;
pub const SET_BACK_STENCIL_FUNC_MASK: u32 = 0x0f5c;
pub const OGL_SET_CULL: u32 = 0x1918;
pub const OGL_SET_FRONT_FACE: u32 = 0x191c;
pub const OGL_SET_CULL_FACE: u32 = 0x1920;
pub const SET_PROVOKING_VERTEX: u32 = 0x1684;
pub const SET_RASTER_ENABLE: u32 = 0x037c;
/// STREAM_SELECT 1:0: the vertex stream the rasteriser takes.
pub const SET_RASTER_INPUT: u32 = 0x0740;
pub const SET_RT_LAYER: u32 = 0x15cc;
pub const SET_TESSELLATION_PARAMETERS: u32 = 0x0320;
pub const SET_PATCH: u32 = 0x0dcc;
pub const SET_FRONT_POLYGON_MODE: u32 = 0x0dac;
pub const SET_TEX_SAMPLER_POOL_A: u32 = 0x155c;
pub const SET_TEX_HEADER_POOL_A: u32 = 0x1574;
pub const SET_SAMPLER_BINDING: u32 = 0x1234;
pub const SET_BINDLESS_TEXTURE: u32 = 0x2608;
pub const SET_ZPASS_PIXEL_COUNT: u32 = 0x1514;
pub const SET_STATISTICS_COUNTER: u32 = 0x0d68;
pub const SET_BACK_POLYGON_MODE: u32 = 0x0db0;
pub const SET_LOGIC_OP: u32 = 0x19c4;
pub const SET_LOGIC_OP_FUNC: u32 = 0x19c8;
pub const SET_PS_SATURATE: u32 = 0x13a8;
pub const SET_POINT_SIZE: u32 = 0x1518;
pub const SET_ATTRIBUTE_POINT_SIZE: u32 = 0x1910;
pub const SET_POINT_SPRITE: u32 = 0x1520;
pub const SET_POINT_SPRITE_SELECT: u32 = 0x1604;
pub const SET_VIEWPORT_CLIP_CONTROL: u32 = 0x193c;
/// V 16:0 (signed): added to window coordinates.
pub const SET_WINDOW_OFFSET_X: u32 = 0x0df8;
pub const SET_WINDOW_OFFSET_Y: u32 = 0x0dfc;
/// ENABLE 0:0: depth and stencil tested before the pixel program.
pub const SET_API_MANDATED_EARLY_Z: u32 = 0x0210;
/// ENABLE 0:0: the pixel program's coverage input taken after the early tests.
pub const SET_POST_Z_PS_IMASK: u32 = 0x0f1c;
/// Pixel centres (CENTER 0:0): AT_HALF_INTEGERS 0, AT_INTEGERS 1.
pub const SET_VIEWPORT_PIXEL: u32 = 0x1924;
pub const SET_LINE_WIDTH_FLOAT: u32 = 0x13b0;
pub const SET_ALIASED_LINE_WIDTH_FLOAT: u32 = 0x13b4;
pub const SET_ALIASED_LINE_WIDTH_ENABLE: u32 = 0x020c;
pub const SET_ANTI_ALIASED_LINE: u32 = 0x1570;

/// Constant buffer slots a shader stage has (c[0x0] to c[0x11]).
pub const CONSTANT_BUFFER_SLOTS: usize = 18;
/// Bind groups: vertex, tessellation control, tessellation evaluation, geometry, fragment.
pub const BIND_GROUPS: usize = 5;
/// The longest graphics program read (header included): a program's end is found by decoding.
const MAX_PROGRAM_BYTES: usize = 1 << 20;

/// BEGIN's OP field: the primitive topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Points,
    Lines,
    LineLoop,
    LineStrip,
    Triangles,
    TriangleStrip,
    TriangleFan,
    Quads,
    QuadStrip,
    Polygon,
    LinesAdjacency,
    LineStripAdjacency,
    TrianglesAdjacency,
    TriangleStripAdjacency,
    Patches,
}

impl Topology {
    pub fn from_op(op: u32) -> Option<Topology> {
        use Topology::*;
        [
            Points,
            Lines,
            LineLoop,
            LineStrip,
            Triangles,
            TriangleStrip,
            TriangleFan,
            Quads,
            QuadStrip,
            Polygon,
            LinesAdjacency,
            LineStripAdjacency,
            TrianglesAdjacency,
            TriangleStripAdjacency,
            Patches,
        ]
        .get(op as usize)
        .copied()
    }

    /// Each primitive takes its own vertices (no vertex is shared with the next primitive).
    pub fn is_list(self) -> bool {
        use Topology::*;
        matches!(self, Points | Lines | Triangles | Quads | LinesAdjacency | TrianglesAdjacency | Patches)
    }
}

/// A graphics shader stage as a draw runs it: its header and code (read from GPU memory) and its constant buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The GPU address of the program (its header).
    pub address: u64,
    /// Maxwell's (the 3D class B197) or SM86 (C797).
    pub isa: Isa,
    pub header: ProgramHeader,
    /// The instructions after the header.
    pub code: Vec<u8>,
    /// Where the instructions start in the program region (Maxwell; 0 on Ampere): see `KernelImage::origin`.
    pub origin: u32,
    pub constant_buffers: [Option<ConstantBuffer>; CONSTANT_BUFFER_SLOTS],
}

/// One colour target a draw renders to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawTarget {
    /// The fragment shader output (0-7) it takes.
    pub output: u32,
    pub surface: crate::texture::surface::Surface,
    pub format: crate::texture::format::ColorFormat,
    /// The layer (or depth slice) drawn into.
    pub layer: u32,
    /// R, G, B, A written.
    pub write: [bool; 4],
    pub blend: Option<BlendState>,
}

/// One target's blend equation, as the registers give it (OGL or D3D enum values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendState {
    /// Op, source coefficient, destination coefficient.
    pub color: [u32; 3],
    pub alpha: [u32; 3],
}

/// Which faces are dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cull {
    None,
    Front,
    Back,
    Both,
}

/// Everything a back end needs for one draw launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    pub topology: Topology,
    /// The vertices in the order the primitives take them (indices resolved), `VERTEX_RECORD_WORDS` each.
    pub vertices: Vec<u32>,
    pub vertex_shader: Stage,
    /// The tessellation programs after the vertex stage (pipeline slots 2 and 3), when the draw is of patches.
    pub tessellation: Option<Tessellation>,
    /// The geometry program before the pixel stage (pipeline slot 4), when it is enabled.
    pub geometry_shader: Option<Stage>,
    pub fragment_shader: Stage,
    pub targets: Vec<DrawTarget>,
    /// The size in pixels all targets share (the smallest of them).
    pub width: u32,
    pub height: u32,
    /// Viewport 0, or all 16 when the last program before the rasteriser writes the viewport index.
    pub viewports: Vec<Viewport>,
    /// z clipped at 0 (true) or at -w (false).
    pub depth_zero_to_one: bool,
    pub cull: Cull,
    /// The mode of the faces `cull` leaves (the front and back modes are one where both are drawn).
    pub polygon_mode: PolygonMode,
    /// Front faces wind counter-clockwise in window coordinates (y down).
    pub front_ccw: bool,
    pub provoking_last: bool,
    pub blend_constant: [f32; 4],
    /// Where the shaders' textures are: the pools, and the constant buffer slot of each stage that holds the
    /// handles of its bound texture instructions (SET_BINDLESS_TEXTURE).
    pub texture_pools: Pools,
    pub texture_buffer: usize,
    /// The zeta target and its tests, when a target is selected and a test is on.
    pub depth_stencil: Option<DepthStencil>,
    /// Count the samples that pass (SET_ZPASS_PIXEL_COUNT).
    pub count_samples: bool,
    /// The statistics to count (SET_STATISTICS_COUNTER), ascending.
    pub statistics: Vec<Statistic>,
    /// The alpha test (SET_ALPHA_TEST, _FUNC, _REF), when it is on: a sample whose colour output 0 has an alpha
    /// that fails `alpha comparison reference` is discarded.
    pub alpha_test: Option<(Comparison, f32)>,
    /// The logic op on the colour targets (SET_LOGIC_OP, _FUNC), when it is on.
    pub logic_op: Option<LogicOp>,
    /// SET_PS_SATURATE as the register holds it: bit 4n clamps colour output n, bit 4n + 1 to [-1, 1] rather
    /// than [0, 1].
    pub ps_saturate: u32,
    /// Points' size (SET_POINT_SIZE), unless `program_point_size` and the vertex program writes its own.
    pub point_size: f32,
    /// SET_ATTRIBUTE_POINT_SIZE: the vertex program's point size output, where it writes one, sizes points.
    pub program_point_size: bool,
    /// Point sprites (SET_POINT_SPRITE) and where their coordinate's t is 0 (SET_POINT_SPRITE_SELECT's ORIGIN,
    /// bit 2): what pixel programs read at 0x2e0 and 0x2e4 when points are rasterised.
    pub point_sprite: Option<PointOrigin>,
    /// Anti-aliased (round) points (SET_ANTI_ALIASED_POINT): not drawn by the reference.
    pub smooth_points: bool,
    /// Depth is clamped to the viewport's range, and primitives are not clipped there (SET_VIEWPORT_CLIP_CONTROL).
    pub depth_clamp: bool,
    pub lines: Lines,
    pub line_stipple: Option<LineStipple>,
    /// The polygon stipple's 32 rows (SET_POLYGON_STIPPLE_PATTERN), when filled triangles are stippled
    /// (SET_POLYGON_STIPPLE): `shader::FragmentInterface::polygon_stipple` says how a pixel picks its bit.
    pub polygon_stipple: Option<[u32; 32]>,
    /// The window clip rectangles (SET_WINDOW_CLIP_ENABLE): `shader::WindowClip`.
    pub window_clip: Option<WindowClip>,
    /// The pixel program's sample mask output limits its coverage (SET_PS_OUTPUT_SAMPLE_MASK_USAGE: ENABLE 0:0,
    /// and with QUALIFY_BY_ANTI_ALIAS_ENABLE 1:1 only while SET_ANTI_ALIAS_ENABLE is on).
    pub ps_sample_mask: bool,
    /// The user clip planes (SET_USER_CLIP_ENABLE, SET_USER_CLIP_OP: CULL in bit 4i for plane i).
    pub user_clip: UserClip,
    /// Conservative rasterisation (SET_CONSERVATIVE_RASTER), when it is on: a triangle covers every pixel it
    /// touches, grown by this many pixels more (Ampere's SET_CONSERVATIVE_RASTER_CONTROL EXTRA_PRIM_BLOAT).
    pub conservative: Option<f32>,
    /// The depth and stencil tests (and writes) come before the pixel program (SET_API_MANDATED_EARLY_Z, which NVK
    /// sets from a fragment shader's `early_fragment_tests`): `shader::FragmentInterface::early_fragment_tests`.
    pub early_fragment_tests: bool,
    /// The pixel program's coverage input is the coverage after those early tests (SET_POST_Z_PS_IMASK, which NVK
    /// sets from a fragment shader's `post_depth_coverage`).
    pub post_depth_coverage: bool,
    /// The output words stream output captures of each vertex (none when it is off), and whether primitives
    /// go on to the rasteriser (SET_RASTER_ENABLE): a draw may only capture.
    pub capture: crate::shader::CapturedWords,
    pub rasterize: bool,
    /// The vertex stream whose primitives the rasteriser takes (SET_RASTER_INPUT): a geometry program's other
    /// streams are only captured. Vertex and tessellation programs make stream 0's alone.
    pub raster_stream: u8,
    /// The last program before the rasteriser picks each primitive's layer among `layers` layers of every target,
    /// counted from its `layer` (SET_RT_LAYER); otherwise `layers` is 1.
    pub program_layer: bool,
    pub layers: u32,
    /// How the targets are multisampled (`None`: one sample a pixel). `width` and `height` count pixels; the
    /// targets' surfaces are the enlarged ones.
    pub multisample: Option<Multisample>,
}

/// A draw's tessellation: its programs, the control points of each patch (SET_PATCH) and how the tessellator
/// cuts the patches (SET_TESSELLATION_PARAMETERS: domain 1:0, spacing 5:4, output primitives 9:8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tessellation {
    pub control: Stage,
    pub evaluation: Stage,
    pub patch_vertices: u32,
    pub parameters: u32,
}

/// Viewports a draw may pick from (SET_VIEWPORT_SCALE_X(j) and the rest of viewport j's registers).
pub const VIEWPORTS: u32 = 16;

/// One viewport: window = ndc * scale + offset (x, y, z), and the pixels it may draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub scale: [f32; 3],
    pub offset: [f32; 3],
    /// Pixels outside it are not drawn: the targets' size, the viewport's clip rectangle, the surface clip and
    /// the viewport's scissor.
    pub scissor: Rect,
}

/// SET_LOGIC_OP_FUNC's operation, as its index in OpenGL's list (0x1500 CLEAR, AND, AND_REVERSE, COPY,
/// AND_INVERTED, NOOP, XOR, OR, NOR, EQUIV, INVERT, OR_REVERSE, COPY_INVERTED, OR_INVERTED, NAND, 0x150f SET),
/// which is also Vulkan's `VkLogicOp` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogicOp(pub u8);

/// SET_DEPTH_FUNC's and SET_STENCIL_FUNC's comparisons: OpenGL's values (0x200 NEVER to 0x207 ALWAYS) or D3D's
/// (1 to 8).
fn comparison(value: u32) -> Option<Comparison> {
    match value {
        0x200..=0x207 => Comparison::from_index(value - 0x200),
        1..=8 => Comparison::from_index(value - 1),
        _ => None,
    }
}

/// What the stencil test does to a sample's stencil value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementClamp,
    DecrementClamp,
    Invert,
    IncrementWrap,
    DecrementWrap,
}

impl StencilOp {
    /// SET_STENCIL_OP_*'s values, OpenGL's or D3D's.
    fn from_register(value: u32) -> Option<StencilOp> {
        use StencilOp::*;
        Some(match value {
            0x1e00 | 1 => Keep,
            0 | 2 => Zero,
            0x1e01 | 3 => Replace,
            0x1e02 | 4 => IncrementClamp,
            0x1e03 | 5 => DecrementClamp,
            0x150a | 6 => Invert,
            0x8507 | 7 => IncrementWrap,
            0x8508 | 8 => DecrementWrap,
            _ => return None,
        })
    }
}

/// One face's stencil test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub fail: StencilOp,
    pub depth_fail: StencilOp,
    pub pass: StencilOp,
    pub compare: Comparison,
    pub reference: u8,
    pub compare_mask: u8,
    pub write_mask: u8,
}

/// Polygon offset (SET_POLY_OFFSET_FILL, or _LINE or _POINT for the polygon mode drawn): a triangle's depth
/// moves by `slope_factor` times its largest depth slope plus `units` steps of the zeta format (2^-24 for D24,
/// 2^-16 for Z16, 2^(e - 23) for Z32F with e the triangle's largest exponent), limited to `clamp` when that is
/// not 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthBias {
    /// SET_DEPTH_BIAS, in steps of the format: twice the API's units (Maxwell behaviour 5.5), whose r NVIDIA's
    /// drivers make 2 x 2^-n (NVN, deko3d and NVIDIA's own drivers write `units * 2`; NVIDIA's Vulkan driver
    /// moves D24 depth two steps a unit on the H200).
    pub units: f32,
    pub slope_factor: f32,
    pub clamp: f32,
}

/// The zeta target a draw tests and writes, and the tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthStencil {
    pub surface: crate::texture::surface::Surface,
    pub format: crate::texture::format::DepthFormat,
    /// The layer drawn into.
    pub layer: u32,
    /// The depth test's comparison, when it is on; whether passing samples write their depth.
    pub depth_test: Option<Comparison>,
    pub depth_write: bool,
    /// Front and back faces' stencil tests, when it is on (the back takes the front's unless two-sided).
    pub stencil: Option<[StencilFace; 2]>,
    pub bias: Option<DepthBias>,
    /// The depth bounds test, when it is on: samples whose stored depth lies outside [min, max] are discarded.
    pub bounds: Option<[f32; 2]>,
}

/// The draw-related state the 3D engine keeps beyond its registers.
#[derive(Clone, Debug, Default)]
pub struct DrawState {
    /// Bind groups' constant buffer slots.
    pub bindings: [[Option<ConstantBuffer>; CONSTANT_BUFFER_SLOTS]; BIND_GROUPS],
    /// The instance counter BEGIN's INSTANCE_ID sets (FIRST), increments (SUBSEQUENT) or keeps.
    pub instance: u32,
    /// SET_DRAW_CONTROL_A's IGNORE_GLOBAL_BASE_VERTEX_INDEX and _INSTANCE_INDEX for the draw it launches: the
    /// global bases read as 0 (BEGIN clears them).
    pub ignore_global_bases: [bool; 2],
    pub topology: u32,
    /// The inline indices given since BEGIN, drawn at END.
    pub inline_indices: Vec<u32>,
    pub counters: Counters,
    pub stream_out: StreamOutState,
}

impl Topology {
    /// The primitives `vertices` vertices of this topology make.
    pub(crate) fn primitives(self, vertices: u64) -> u64 {
        use Topology::*;
        match self {
            Points | Patches => vertices,
            Lines => vertices / 2,
            LineStrip => vertices.saturating_sub(1),
            LineLoop if vertices >= 2 => vertices,
            LineLoop => 0,
            Triangles => vertices / 3,
            TriangleStrip | TriangleFan => vertices.saturating_sub(2),
            Quads => vertices / 4,
            QuadStrip => vertices.saturating_sub(2) / 2,
            Polygon => u64::from(vertices >= 3),
            LinesAdjacency => vertices / 4,
            LineStripAdjacency => vertices.saturating_sub(3),
            TrianglesAdjacency => vertices / 6,
            TriangleStripAdjacency => vertices.saturating_sub(4) / 2,
        }
    }
}

/// The pools SET_TEX_HEADER_POOL_A-C and SET_TEX_SAMPLER_POOL_A-C name, from a class's `register` (the 3D and
/// compute classes have them at the same offsets); whether handles pick samplers by their header index is
/// SET_SAMPLER_BINDING's (3D) or the QMD's SAMPLER_INDEX (compute).
pub(super) fn texture_pools(register: impl Fn(u32) -> u32, sampler_via_header: bool) -> Pools {
    Pools {
        headers: address(register(SET_TEX_HEADER_POOL_A), register(SET_TEX_HEADER_POOL_A + 4)),
        header_maximum: register(SET_TEX_HEADER_POOL_A + 8) & 0x3f_ffff,
        samplers: address(register(SET_TEX_SAMPLER_POOL_A), register(SET_TEX_SAMPLER_POOL_A + 4)),
        sampler_maximum: register(SET_TEX_SAMPLER_POOL_A + 8) & 0xf_ffff,
        sampler_via_header,
    }
}

pub fn address(upper: u32, lower: u32) -> u64 {
    u64::from(upper & 0xff) << 32 | u64::from(lower)
}

/// How a launch names its vertices.
#[derive(Clone, Copy, Debug)]
pub(super) enum Launch {
    Array {
        first: u32,
        count: u32,
    },
    Indexed {
        first: u32,
        count: u32,
    },
    /// The indices the pushbuffer gave since BEGIN (`DrawState::inline_indices`), `count` of them.
    Inline {
        count: u32,
    },
}

impl Maxwell3D {
    /// The draw methods: BEGIN, the launches (and their one-method BEGIN_END forms), constant buffer loads and
    /// binds. `Ok(false)` for any other method.
    pub(super) fn draw_method(
        &mut self,
        offset: u32,
        argument: u32,
        context: &mut Context,
    ) -> Result<bool, EngineError> {
        match offset {
            BEGIN => self.begin(offset, argument)?,
            // Inline indices are drawn as one launch when their END comes: a primitive may span methods.
            END if !self.draw.inline_indices.is_empty() => {
                let count = self.draw.inline_indices.len() as u32;
                let launched = self.launch(offset, Launch::Inline { count }, context);
                self.draw.inline_indices.clear();
                launched?;
            }
            END => {}
            DRAW_INLINE_INDEX => self.inline_indices(offset, argument, &[argument])?,
            DRAW_INLINE_INDEX2X16 => {
                self.inline_indices(offset, argument, &[argument & 0xffff, argument >> 16])?;
            }
            DRAW_INLINE_INDEX4X8 => {
                self.inline_indices(offset, argument, &argument.to_le_bytes().map(u32::from))?;
            }
            DRAW_VERTEX_ARRAY => {
                let first = self.register(DRAW_VERTEX_ARRAY_START);
                self.launch(offset, Launch::Array { first, count: argument }, context)?;
            }
            DRAW_INDEX_BUFFER => {
                let first = self.register(SET_INDEX_BUFFER_F);
                self.launch(offset, Launch::Indexed { first, count: argument }, context)?;
            }
            // BYTE_COUNT: the bytes stream output wrote (a report the driver points the method's data at), of
            // which the vertices past SET_DRAW_AUTO_START, SET_DRAW_AUTO_STRIDE bytes each, are drawn.
            DRAW_AUTO => {
                let stride = self.register(SET_DRAW_AUTO_STRIDE) & 0xfff;
                if stride == 0 {
                    return Err(self.method(offset).bad_argument(argument, "DRAW_AUTO with SET_DRAW_AUTO_STRIDE 0"));
                }
                let count = argument.saturating_sub(self.register(SET_DRAW_AUTO_START)) / stride;
                self.launch(offset, Launch::Array { first: 0, count }, context)?;
            }
            _ if (SET_STREAM_OUT_BUFFER_LOAD_WRITE_POINTER
                ..SET_STREAM_OUT_BUFFER_LOAD_WRITE_POINTER + 4 * STREAM_OUT_BUFFER_STRIDE)
                .contains(&offset)
                && (offset - SET_STREAM_OUT_BUFFER_LOAD_WRITE_POINTER) % STREAM_OUT_BUFFER_STRIDE == 0 =>
            {
                let buffer = ((offset - SET_STREAM_OUT_BUFFER_LOAD_WRITE_POINTER) / STREAM_OUT_BUFFER_STRIDE) as usize;
                self.draw.stream_out.write_pointers[buffer] = argument;
            }
            DRAW_VERTEX_ARRAY_BEGIN_END_INSTANCE_FIRST | DRAW_VERTEX_ARRAY_BEGIN_END_INSTANCE_SUBSEQUENT => {
                let subsequent = offset == DRAW_VERTEX_ARRAY_BEGIN_END_INSTANCE_SUBSEQUENT;
                self.begin(offset, argument >> 28 | u32::from(subsequent) << 26)?;
                let launch = Launch::Array { first: argument & 0xffff, count: argument >> 16 & 0xfff };
                self.launch(offset, launch, context)?;
            }
            DRAW_INDEX_BUFFER_BEGIN_END_B | DRAW_VERTEX_ARRAY_BEGIN_END_B if self.ampere() => {
                self.draw_control(offset, argument, context)?
            }
            _ if DRAW_INDEX_BUFFER_BEGIN_END.contains(&offset) => {
                let subsequent = offset >= 0x17f0;
                self.begin(offset, argument >> 28 | u32::from(subsequent) << 26)?;
                let launch = Launch::Indexed { first: argument & 0xffff, count: argument >> 16 & 0xfff };
                self.launch(offset, launch, context)?;
            }
            _ if LOAD_CONSTANT_BUFFER.contains(&offset) => self.load_constant(offset, argument, context)?,
            _ if (BIND_GROUP_CONSTANT_BUFFER..BIND_GROUP_CONSTANT_BUFFER + BIND_GROUP_STRIDE * BIND_GROUPS as u32)
                .contains(&offset)
                && (offset - BIND_GROUP_CONSTANT_BUFFER) % BIND_GROUP_STRIDE == 0 =>
            {
                let group = ((offset - BIND_GROUP_CONSTANT_BUFFER) / BIND_GROUP_STRIDE) as usize;
                self.bind_constant_buffer(offset, group, argument)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Ampere's DRAW_*_BEGIN_END_B: SET_DRAW_CONTROL_A's fields as BEGIN's (OP 15:0, PRIMITIVE_ID 24, INSTANCE_ID
    /// 27:26, SPLIT_MODE 30:29), then `count` vertices or indices from the first in A (the method before); with
    /// INSTANCE_ITERATE_ENABLE, SET_DRAW_CONTROL_B's instances of it, the counter moving on by one after each (as
    /// a draw with INSTANCE_ID SUBSEQUENT; NVK draws so, FIRST and the instance count), none for a count of 0;
    /// with IGNORE_GLOBAL_BASE_*, the global base vertex or instance read as 0.
    fn draw_control(&mut self, offset: u32, count: u32, context: &mut Context) -> Result<(), EngineError> {
        let control = self.register(SET_DRAW_CONTROL_A);
        self.begin(
            offset,
            control & 0xf | (control >> 4 & 1) << 24 | (control >> 5 & 3) << 26 | (control >> 7 & 3) << 29,
        )?;
        self.draw.ignore_global_bases = [control >> 10 & 1 == 1, control >> 11 & 1 == 1];
        let first = self.register(offset - 4);
        let launch = if offset == DRAW_VERTEX_ARRAY_BEGIN_END_B {
            Launch::Array { first, count }
        } else {
            Launch::Indexed { first, count }
        };
        let instances = if control >> 9 & 1 == 1 { self.register(SET_DRAW_CONTROL_B) } else { 1 };
        if instances > MAX_ITERATED_INSTANCES {
            return Err(self.method(offset).unimplemented(format!(
                "{instances} instances in one draw: the reference back end draws them one at a time, at most \
                 {MAX_ITERATED_INSTANCES}"
            )));
        }
        for instance in 0..instances {
            if instance > 0 {
                self.draw.instance = self.draw.instance.wrapping_add(1);
            }
            self.launch(offset, launch, context)?;
        }
        Ok(())
    }

    /// SET_GLOBAL_BASE_VERTEX_INDEX or _INSTANCE_INDEX (`register`) as the draw being launched reads it.
    pub(super) fn global_base(&self, register: u32) -> u32 {
        let ignored = match register {
            SET_GLOBAL_BASE_VERTEX_INDEX => self.draw.ignore_global_bases[0],
            _ => self.draw.ignore_global_bases[1],
        };
        if ignored { 0 } else { self.register(register) }
    }

    /// BEGIN: the topology, and the instance counter (INSTANCE_ID 27:26: FIRST resets it, SUBSEQUENT adds one).
    /// SPLIT_MODE 30:29 other than NORMAL_BEGIN_NORMAL_END joins launches into one primitive stream, which the
    /// reference back end's one draw a launch cannot do: it stops naming itself.
    fn begin(&mut self, offset: u32, argument: u32) -> Result<(), EngineError> {
        if argument >> 29 & 3 != 0 {
            return Err(self.method(offset).unimplemented(format!("BEGIN SPLIT_MODE {}", argument >> 29 & 3)));
        }
        self.draw.topology = argument & 0xffff;
        self.draw.inline_indices.clear();
        self.draw.ignore_global_bases = [false; 2];
        match argument >> 26 & 3 {
            0 => self.draw.instance = 0,
            1 => self.draw.instance = self.draw.instance.wrapping_add(1),
            _ => {}
        }
        Ok(())
    }

    /// DRAW_INLINE_INDEX (one 32-bit index), DRAW_INLINE_INDEX2X16 (EVEN 15:0 first, then ODD 31:16) and
    /// DRAW_INLINE_INDEX4X8 (INDEX0 7:0 first): indices given in the pushbuffer, collected in order until END,
    /// the forms mixed as nouveau sends them. The packed forms' SET_INLINE_INDEX*_ALIGN (a count and a first slot)
    /// is documented by its field names only: a packed index while one is set stops naming it.
    fn inline_indices(&mut self, offset: u32, argument: u32, indices: &[u32]) -> Result<(), EngineError> {
        let align = match offset {
            DRAW_INLINE_INDEX2X16 => Some(SET_INLINE_INDEX2X16_ALIGN),
            DRAW_INLINE_INDEX4X8 => Some(SET_INLINE_INDEX4X8_ALIGN),
            _ => None,
        };
        if let Some(align) = align
            && self.register(align) != 0
        {
            return Err(self.method(offset).unimplemented(format!(
                "packed inline indices after {} {:#x} (what its count and first slot do is documented nowhere)",
                if align == SET_INLINE_INDEX2X16_ALIGN {
                    "SET_INLINE_INDEX2X16_ALIGN"
                } else {
                    "SET_INLINE_INDEX4X8_ALIGN"
                },
                self.register(align)
            )));
        }
        if self.draw.inline_indices.len() + indices.len() > MAX_INLINE_INDICES {
            return Err(self
                .method(offset)
                .bad_argument(argument, "more inline indices in one draw than Tandem keeps (1 Mi)"));
        }
        self.draw.inline_indices.extend_from_slice(indices);
        Ok(())
    }

    /// LOAD_CONSTANT_BUFFER(i): the word goes to the selected buffer at the load offset, which moves on by 4.
    fn load_constant(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let size = self.register(SET_CONSTANT_BUFFER_SELECTOR_A) & 0x1_ffff;
        let base = address(
            self.register(SET_CONSTANT_BUFFER_SELECTOR_A + 4),
            self.register(SET_CONSTANT_BUFFER_SELECTOR_A + 8),
        );
        let at = self.register(LOAD_CONSTANT_BUFFER_OFFSET) & 0xffff;
        if at + 4 > size {
            return Err(self
                .method(offset)
                .bad_argument(argument, "constant buffer load past the selected buffer's size"));
        }
        context.write(base + u64::from(at), &argument.to_le_bytes()).map_err(|e| self.method(offset).memory(e))?;
        self.set_register(LOAD_CONSTANT_BUFFER_OFFSET, at + 4);
        Ok(())
    }

    /// BIND_GROUP_CONSTANT_BUFFER(group): VALID 0:0 binds the selected buffer to slot SHADER_SLOT 8:4, or empties it.
    fn bind_constant_buffer(&mut self, offset: u32, group: usize, argument: u32) -> Result<(), EngineError> {
        let slot = (argument >> 4 & 0x1f) as usize;
        let buffer = ConstantBuffer {
            address: address(
                self.register(SET_CONSTANT_BUFFER_SELECTOR_A + 4),
                self.register(SET_CONSTANT_BUFFER_SELECTOR_A + 8),
            ),
            size: self.register(SET_CONSTANT_BUFFER_SELECTOR_A) & 0x1_ffff,
        };
        let Some(entry) = self.draw.bindings[group].get_mut(slot) else {
            return Err(self.method(offset).bad_argument(argument, "constant buffer slot past c[0x11]"));
        };
        *entry = (argument & 1 == 1).then_some(buffer);
        Ok(())
    }

    pub(super) fn float(&self, offset: u32) -> f32 {
        f32::from_bits(self.register(offset))
    }

    /// The graphics stage in pipeline slot `slot` (1 vertex B, 4 geometry, 5 pixel) with bind group `group`'s
    /// constant buffers, read from GPU memory.
    fn stage(&self, at: Method, slot: u32, group: usize, context: &Context) -> Result<Stage, EngineError> {
        let shader = self.register(SET_PIPELINE_SHADER + PIPELINE_STRIDE * slot);
        if shader & 1 == 0 {
            return Err(at.unimplemented(format!("draws without a shader in pipeline slot {slot}")));
        }
        // Maxwell: an offset into the program region; Ampere: the program's own address.
        let (program, offset, isa) = if self.ampere() {
            let program_address = SET_PIPELINE_PROGRAM_ADDRESS_A + PIPELINE_STRIDE * slot;
            (address(self.register(program_address), self.register(program_address + 4)), None, Isa::Sm86)
        } else {
            let region = address(self.register(SET_PROGRAM_REGION_A), self.register(SET_PROGRAM_REGION_A + 4));
            let offset = self.register(SET_PIPELINE_SHADER + 4 + PIPELINE_STRIDE * slot);
            (region + u64::from(offset), Some(offset), Isa::Sm5x)
        };
        let mut header = vec![0u8; header_bytes(isa)];
        context.read(program, &mut header).map_err(|e| at.memory(e))?;
        let header = parse_program_header(isa, &header)
            .map_err(|problem| at.unimplemented(format!("the shader at {program:#x}: {problem}")))?;
        let code_start = program + header_bytes(isa) as u64;
        let origin = offset.map_or(0, |offset| offset.wrapping_add(header_bytes(isa) as u32));
        let read = |offset: usize, buffer: &mut [u8]| context.read(code_start + offset as u64, buffer).is_ok();
        let length = crate::sass::program_length(isa, read, origin as usize, MAX_PROGRAM_BYTES)
            .map_err(|error| at.unimplemented(format!("the shader at {program:#x}: {error}")))?;
        let mut code = vec![0u8; length];
        context.read(code_start, &mut code).map_err(|e| at.memory(e))?;
        Ok(Stage { address: program, isa, header, code, origin, constant_buffers: self.draw.bindings[group] })
    }
}

/// Words of a vertex record: the 32 generic attributes (4 words each), then the vertex id, the instance id and
/// two unused words.
pub const VERTEX_RECORD_WORDS: usize = 33 * 4;

impl Maxwell3D {
    /// A draw launch: resolve the state, fetch the vertices, and have the back end draw.
    fn launch(&mut self, offset: u32, launch: Launch, context: &mut Context) -> Result<(), EngineError> {
        let at = self.method(offset);
        if !self.render_enabled(at, context)? {
            return Ok(());
        }
        let multisample = self.multisample(at)?;
        if context.backend.is_none() {
            return Err(EngineError::NoBackend { method: at });
        }
        let topology = Topology::from_op(self.draw.topology)
            .ok_or_else(|| at.bad_argument(self.draw.topology, "BEGIN's topology is not one of the 15"))?;
        // The data assembler counts what it assembles, drawn or not.
        let (Launch::Array { count, .. } | Launch::Indexed { count, .. } | Launch::Inline { count }) = launch;
        let enabled = self.register(SET_STATISTICS_COUNTER);
        if enabled & 1 == 1 {
            self.draw.counters.vertices += u64::from(count);
        }
        if enabled >> 1 & 1 == 1 {
            self.draw.counters.primitives += topology.primitives(u64::from(count));
        }
        let statistics: Vec<Statistic> =
            Statistic::ALL.into_iter().filter(|statistic| enabled >> statistic.fields().enable_bit & 1 == 1).collect();
        let stream_out = StreamOut::from_registers(|offset| self.register(offset));
        let raster_stream = (self.register(SET_RASTER_INPUT) & 3) as u8;
        let rasterize = self.register(SET_RASTER_ENABLE) & 1 == 1;
        // Programs run when their output goes somewhere or is counted.
        if !rasterize && stream_out.is_none() && statistics.is_empty() {
            return Ok(());
        }
        let cull = self.cull(at)?;
        let polygon_mode = self.polygon_mode(at, topology, cull)?;
        self.refuse_undrawn_state(at)?;
        let vertex_shader = self.stage(at, 1, 0, context)?;
        let fragment_shader = self.stage(at, 5, 4, context)?;
        let geometry_shader = match self.register(SET_PIPELINE_SHADER + PIPELINE_STRIDE * 4) & 1 {
            1 => Some(self.stage(at, 4, 3, context)?),
            _ => None,
        };
        if self.register(SET_PIPELINE_SHADER) & 1 == 1 {
            return Err(at.unimplemented("draws with a shader in pipeline slot 0 (vertex A; gpu/research/vertex-a.md)"));
        }
        // Without a geometry program every vertex is stream 0's: a rasteriser taking another stream gets nothing.
        let rasterize = rasterize && (geometry_shader.is_some() || raster_stream == 0);
        let enabled = |slot: u32| self.register(SET_PIPELINE_SHADER + PIPELINE_STRIDE * slot) & 1 == 1;
        let tessellation = match (enabled(2), enabled(3), topology) {
            (false, false, Topology::Patches) => return Err(at.unimplemented("patches drawn without tessellation")),
            (false, false, _) => None,
            (true, true, Topology::Patches) => Some(Tessellation {
                control: self.stage(at, 2, 1, context)?,
                evaluation: self.stage(at, 3, 2, context)?,
                patch_vertices: self.register(SET_PATCH) & 0xff,
                parameters: self.register(SET_TESSELLATION_PARAMETERS),
            }),
            (true, true, _) => return Err(at.unimplemented(format!("tessellation of {topology:?} (not patches)"))),
            (control, _, _) => {
                return Err(at.unimplemented(format!(
                    "tessellation with only its {} program",
                    if control { "control" } else { "evaluation" }
                )));
            }
        };
        if tessellation.is_some() && stream_out.is_some() {
            // Neither Vulkan nor any source on Maxwell gives the order of the tessellator's primitives.
            return Err(at.unimplemented("stream output of tessellated primitives"));
        }
        // The outputs that reach the rasteriser are the last stage's before it.
        let last_header = match (&geometry_shader, &tessellation) {
            (Some(geometry), _) => geometry.header,
            (None, Some(tessellation)) => tessellation.evaluation.header,
            (None, None) => vertex_shader.header,
        };
        // SET_RT_LAYER: with CONTROL (16) GEOMETRY_SHADER_SELECTS_LAYER the program's layer output picks each
        // primitive's layer (layer 0 where it writes none), else V (15:0) is every primitive's.
        let rt_layer = self.register(SET_RT_LAYER);
        let program_layer = rt_layer >> 16 & 1 == 1 && last_header.writes(attribute::LAYER);
        let base_layer = if rt_layer >> 16 & 1 == 1 { 0 } else { rt_layer & 0xffff };
        let targets = self.targets(at, base_layer)?;
        let depth_stencil = self.depth_stencil(at, base_layer, polygon_mode)?;
        // A program that picks the layer reaches every layer all the targets have from their first on.
        let layers = match program_layer {
            false => 1,
            true => targets
                .iter()
                .map(|target| (&target.surface, target.layer))
                .chain(depth_stencil.as_ref().map(|zeta| (&zeta.surface, zeta.layer)))
                .map(|(surface, layer)| surface.layers - layer)
                .min()
                .unwrap_or(1),
        };
        // With no target at all the draw still runs, over viewport 0's clip rectangle (Maxwell behaviour 1.14):
        // its samples count, and its programs run. Multisampled targets count samples: pixels are blocks.
        let (sx, sy) = multisample.map_or((1, 1), |multisample| multisample.block);
        let (width, height) = targets
            .iter()
            .map(|target| &target.surface)
            .chain(depth_stencil.as_ref().map(|zeta| &zeta.surface))
            .map(|surface| (surface.width / sx, surface.height / sy))
            .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1)))
            .unwrap_or_else(|| {
                let end = |register: u32| (register & 0xffff) + (register >> 16);
                (end(self.register(SET_VIEWPORT_CLIP_HORIZONTAL)), end(self.register(SET_VIEWPORT_CLIP_VERTICAL)))
            });
        let runs = self.fetch_vertices(at, launch, topology, &vertex_shader.header, context)?;
        // FLIP_Y (4:4) turns the winding over.
        let front_ccw =
            (self.register(OGL_SET_FRONT_FACE) == 0x901) != (self.register(SET_WINDOW_ORIGIN) >> 4 & 1 == 1);
        if self.register(SET_WINDOW_ORIGIN) & 1 == 1 {
            return Err(at.unimplemented("draws with the window origin at the lower left"));
        }
        if self.register(SET_VIEWPORT_SCALE_OFFSET) & 1 == 0 {
            return Err(at.unimplemented("draws without the viewport transform (SET_VIEWPORT_SCALE_OFFSET FALSE)"));
        }
        // A program that writes the viewport index picks one of the 16 viewports per primitive.
        let viewport_count = if last_header.writes(attribute::VIEWPORT_INDEX) { VIEWPORTS } else { 1 };
        let viewports =
            (0..viewport_count).map(|j| self.viewport(at, j, width, height)).collect::<Result<Vec<_>, _>>()?;
        let mut draw = Draw {
            topology,
            vertices: Vec::new(),
            vertex_shader,
            tessellation,
            geometry_shader,
            fragment_shader,
            targets,
            width,
            height,
            viewports,
            depth_zero_to_one: self.register(SET_VIEWPORT_Z_CLIP) & 1 == 1,
            cull,
            polygon_mode,
            front_ccw,
            provoking_last: self.register(SET_PROVOKING_VERTEX) & 1 == 1,
            blend_constant: [0, 4, 8, 12].map(|at| self.float(SET_BLEND_CONST_RED + at)),
            texture_pools: self.texture_pools(),
            texture_buffer: (self.register(SET_BINDLESS_TEXTURE) & 0x1f) as usize,
            depth_stencil,
            count_samples: self.register(SET_ZPASS_PIXEL_COUNT) & 1 == 1,
            statistics,
            alpha_test: self.alpha_test(at)?,
            logic_op: self.logic_op(at)?,
            ps_saturate: self.register(SET_PS_SATURATE),
            point_size: self.float(SET_POINT_SIZE),
            program_point_size: self.register(SET_ATTRIBUTE_POINT_SIZE) & 1 == 1,
            point_sprite: (self.register(SET_POINT_SPRITE) & 1 == 1).then(|| {
                if self.register(SET_POINT_SPRITE_SELECT) >> 2 & 1 == 1 {
                    PointOrigin::Top
                } else {
                    PointOrigin::Bottom
                }
            }),
            smooth_points: self.register(SET_ANTI_ALIASED_POINT) & 1 == 1,
            depth_clamp: self.depth_clamp(at)?,
            lines: self.lines(at)?,
            polygon_stipple: self.polygon_stipple(at)?,
            window_clip: self.window_clip(at)?,
            conservative: self.conservative(at)?,
            early_fragment_tests: self.register(SET_API_MANDATED_EARLY_Z) & 1 == 1,
            post_depth_coverage: self.register(SET_POST_Z_PS_IMASK) & 1 == 1,
            ps_sample_mask: self.ps_sample_mask(),
            user_clip: self.user_clip(),
            line_stipple: self.line_stipple(),
            capture: stream_out.as_ref().map(|stream_out| stream_out.capture).unwrap_or_default(),
            rasterize,
            raster_stream,
            program_layer,
            layers,
            multisample,
        };
        if draw.viewports.iter().all(|viewport| viewport.scissor.is_empty()) {
            // Nothing to rasterise: the draw only captures or counts, if it does either.
            if stream_out.is_none() && draw.statistics.is_empty() {
                return Ok(());
            }
            draw.rasterize = false;
        }
        // Each run of vertices between primitive restarts is drawn on its own, in order.
        for vertices in runs.into_iter().filter(|run| !run.is_empty()) {
            draw.vertices = vertices;
            let (backend, memory) = Self::backend(at, context)?;
            let drawn = backend.draw(&draw, &memory).map_err(|source| EngineError::Backend { method: at, source })?;
            self.draw.counters.samples_passed += drawn.samples_passed;
            for (statistic, count) in draw.statistics.iter().zip(&drawn.statistics) {
                self.draw.counters.statistics[*statistic as usize] += count;
            }
            if let Some(stream_out) = &stream_out {
                let state = &mut self.draw.stream_out;
                for run in &drawn.captured {
                    stream_out.write(at, run, draw.provoking_last, state, context)?;
                }
            }
        }
        Ok(())
    }

    /// Viewport `j` (its registers 32 bytes apart, its clip rectangle and scissor 16 apart) over targets of
    /// `width` x `height`. A coordinate swizzle other than the identity, pixel centres at integers
    /// (SET_VIEWPORT_PIXEL CENTER 1, D3D9's rule, where Vulkan's are at half integers) and window offsets
    /// (SET_WINDOW_OFFSET_X/Y, which NVK and nouveau leave at 0) stop the draw naming them.
    fn viewport(&self, at: Method, j: u32, width: u32, height: u32) -> Result<Viewport, EngineError> {
        if self.register(SET_VIEWPORT_PIXEL) & 1 == 1 {
            return Err(at.unimplemented("SET_VIEWPORT_PIXEL CENTER_AT_INTEGERS (pixel centres at integers)"));
        }
        let offset = [SET_WINDOW_OFFSET_X, SET_WINDOW_OFFSET_Y].map(|method| self.register(method));
        if offset != [0, 0] {
            return Err(
                at.unimplemented(format!("the window offset ({}, {}) (SET_WINDOW_OFFSET_X/Y)", offset[0], offset[1]))
            );
        }
        let swizzle = self.register(SET_VIEWPORT_COORDINATE_SWIZZLE + 32 * j);
        if swizzle & 0x7777 != IDENTITY_SWIZZLE {
            return Err(at.unimplemented(format!("viewport {j}'s coordinate swizzle {swizzle:#x}")));
        }
        let span = |register: u32| (register & 0xffff, register >> 16);
        let rect =
            |(x, width): (u32, u32), (y, height): (u32, u32)| Rect { x0: x, y0: y, x1: x + width, y1: y + height };
        let mut scissor = Rect { x0: 0, y0: 0, x1: width, y1: height }
            .intersect(rect(
                span(self.register(SET_VIEWPORT_CLIP_HORIZONTAL + 16 * j)),
                span(self.register(SET_VIEWPORT_CLIP_VERTICAL + 16 * j)),
            ))
            .intersect(rect(
                span(self.register(SET_SURFACE_CLIP_HORIZONTAL)),
                span(self.register(SET_SURFACE_CLIP_VERTICAL)),
            ));
        if self.register(super::maxwell_3d::SET_SCISSOR_ENABLE + 16 * j) & 1 == 1 {
            let ((x0, x1), (y0, y1)) = (
                span(self.register(super::maxwell_3d::SET_SCISSOR_HORIZONTAL + 16 * j)),
                span(self.register(super::maxwell_3d::SET_SCISSOR_VERTICAL + 16 * j)),
            );
            scissor = scissor.intersect(Rect { x0, y0, x1, y1 });
        }
        Ok(Viewport {
            scale: [0, 4, 8].map(|at| self.float(SET_VIEWPORT_SCALE_X + 32 * j + at)),
            offset: [0, 4, 8].map(|at| self.float(SET_VIEWPORT_OFFSET_X + 32 * j + at)),
            scissor,
        })
    }

    /// The zeta target and the depth, stencil and depth bounds tests (SET_DEPTH_TEST, _WRITE, _FUNC;
    /// SET_STENCIL_*, the back face's with SET_TWO_SIDED_STENCIL_TEST; SET_DEPTH_BOUNDS_*) with polygon offset,
    /// or `None` when no target is selected or no test is on (then nothing reads or writes depth and stencil).
    ///
    /// SET_DEPTH_BIAS_CONTROL's DEPTH_FORMAT_DEPENDENT FALSE counts the units in 24-bit UNORM steps whatever the
    /// format (NVK programs it for VK_DEPTH_BIAS_REPRESENTATION_LEAST_REPRESENTABLE_VALUE_FORCE_UNORM_EXT): the
    /// same on D24 targets; on others it stops naming itself.
    fn depth_stencil(
        &self,
        at: Method,
        base_layer: u32,
        polygon_mode: PolygonMode,
    ) -> Result<Option<DepthStencil>, EngineError> {
        let depth_on = self.register(SET_DEPTH_TEST) & 1 == 1;
        let stencil_on = self.register(SET_STENCIL_TEST) & 1 == 1;
        let bounds_on = self.register(SET_DEPTH_BOUNDS_TEST) & 1 == 1;
        if !depth_on && !stencil_on && !bounds_on {
            return Ok(None);
        }
        let Some((surface, format, first_layer)) = self.zeta_target(at, "draws")? else { return Ok(None) };
        let layer = super::maxwell_3d::target_layer(at, &surface, first_layer, base_layer)?;
        let comparison_of = |register: u32| {
            let value = self.register(register);
            comparison(value).ok_or_else(|| at.bad_argument(value, "not a comparison function"))
        };
        let finite = |register: u32| {
            let value = self.float(register);
            if value.is_finite() {
                Ok(value)
            } else {
                Err(at.bad_argument(self.register(register), "an infinite or NaN depth bias or bound"))
            }
        };
        let operation = |register: u32| {
            let value = self.register(register);
            StencilOp::from_register(value).ok_or_else(|| at.bad_argument(value, "not a stencil operation"))
        };
        let face =
            |ops: [u32; 4], reference: u32, compare_mask: u32, write_mask: u32| -> Result<StencilFace, EngineError> {
                Ok(StencilFace {
                    fail: operation(ops[0])?,
                    depth_fail: operation(ops[1])?,
                    pass: operation(ops[2])?,
                    compare: comparison_of(ops[3])?,
                    reference: self.register(reference) as u8,
                    compare_mask: self.register(compare_mask) as u8,
                    write_mask: self.register(write_mask) as u8,
                })
            };
        let stencil = if stencil_on {
            let front = face(
                [SET_STENCIL_OP_FAIL, SET_STENCIL_OP_ZFAIL, SET_STENCIL_OP_ZPASS, SET_STENCIL_FUNC],
                SET_STENCIL_FUNC_REF,
                SET_STENCIL_FUNC_MASK,
                super::maxwell_3d::SET_STENCIL_MASK,
            )?;
            let back = if self.register(SET_TWO_SIDED_STENCIL_TEST) & 1 == 1 {
                face(
                    [
                        SET_BACK_STENCIL_OP_FAIL,
                        SET_BACK_STENCIL_OP_ZFAIL,
                        SET_BACK_STENCIL_OP_ZPASS,
                        SET_BACK_STENCIL_FUNC,
                    ],
                    SET_BACK_STENCIL_FUNC_REF,
                    SET_BACK_STENCIL_FUNC_MASK,
                    SET_BACK_STENCIL_MASK,
                )?
            } else {
                front
            };
            Some([front, back])
        } else {
            None
        };
        let depth_write = depth_on && self.register(SET_DEPTH_WRITE) & 1 == 1;
        // What a write does to a part of the target SET_ZT_READ_ONLY marks read-only is documented by the field
        // names only (NVK marks read-only attachments so): such a write stops naming it.
        let read_only = self.register(SET_ZT_READ_ONLY);
        let stencil_writes = stencil.is_some_and(|faces| {
            faces.iter().any(|face| {
                face.write_mask != 0 && [face.fail, face.depth_fail, face.pass].iter().any(|&op| op != StencilOp::Keep)
            })
        });
        if (read_only & 1 == 1 && depth_write) || (read_only >> 4 & 1 == 1 && stencil_writes) {
            return Err(at.unimplemented(format!(
                "depth or stencil writes to a zeta target that SET_ZT_READ_ONLY ({read_only:#x}) marks read-only"
            )));
        }
        Ok(Some(DepthStencil {
            surface,
            layer,
            format,
            depth_test: if depth_on { Some(comparison_of(SET_DEPTH_FUNC)?) } else { None },
            depth_write,
            stencil,
            bias: if self.register(match polygon_mode {
                PolygonMode::Fill => SET_POLY_OFFSET_FILL,
                PolygonMode::Line => SET_POLY_OFFSET_LINE,
                PolygonMode::Point => SET_POLY_OFFSET_POINT,
            }) & 1
                == 1
            {
                let d24 = format.depth.1 == 24 && !format.float_depth;
                if self.register(SET_DEPTH_BIAS_CONTROL) & 1 == 0 && !d24 {
                    return Err(at.unimplemented(format!(
                        "polygon offset in 24-bit UNORM steps (SET_DEPTH_BIAS_CONTROL FALSE) on a {} depth target",
                        format.name
                    )));
                }
                Some(DepthBias {
                    units: finite(SET_DEPTH_BIAS)?,
                    slope_factor: finite(SET_SLOPE_SCALE_DEPTH_BIAS)?,
                    clamp: finite(SET_DEPTH_BIAS_CLAMP)?,
                })
            } else {
                None
            },
            bounds: if bounds_on { Some([finite(SET_DEPTH_BOUNDS_MIN)?, finite(SET_DEPTH_BOUNDS_MAX)?]) } else { None },
        }))
    }

    /// Whether SET_VIEWPORT_CLIP_CONTROL clamps depth: its geometry clip (GEOMETRY_CLIP, bits 11-13) leaves z
    /// unclipped (every mode but FRUSTUM_XYZ_CLIP and FRUSTUM_Z_CLIP) and PIXEL_MIN_Z and PIXEL_MAX_Z (bits 3
    /// and 4) CLAMP. Where the geometry is clipped in z, or the pixel stage CLIPs (discards) both ends, depth
    /// outside the range never reaches a pixel: the host's clipping is the same.
    fn depth_clamp(&self, at: Method) -> Result<bool, EngineError> {
        let control = self.register(SET_VIEWPORT_CLIP_CONTROL);
        let (clamp_min, clamp_max) = (control >> 3 & 1 == 1, control >> 4 & 1 == 1);
        let z_clipped = matches!(control >> 11 & 7, 3 | 5);
        match (z_clipped, clamp_min, clamp_max) {
            (true, _, _) | (false, false, false) => Ok(false),
            (false, true, true) => Ok(true),
            _ => Err(at.unimplemented(format!(
                "SET_VIEWPORT_CLIP_CONTROL {control:#x}: depth clamped at one end of the range and clipped at the other"
            ))),
        }
    }

    /// SET_LOGIC_OP and SET_LOGIC_OP_FUNC (OpenGL's values only, as the class defines them).
    fn logic_op(&self, at: Method) -> Result<Option<LogicOp>, EngineError> {
        if self.register(SET_LOGIC_OP) & 1 == 0 {
            return Ok(None);
        }
        match self.register(SET_LOGIC_OP_FUNC) {
            function @ 0x1500..=0x150f => Ok(Some(LogicOp((function - 0x1500) as u8))),
            function => Err(at.bad_argument(function, "SET_LOGIC_OP_FUNC is not an OpenGL logic op (0x1500-0x150f)")),
        }
    }

    /// SET_ALPHA_TEST, SET_ALPHA_FUNC and SET_ALPHA_REF.
    fn alpha_test(&self, at: Method) -> Result<Option<(Comparison, f32)>, EngineError> {
        if self.register(SET_ALPHA_TEST) & 1 == 0 {
            return Ok(None);
        }
        let function = self.register(SET_ALPHA_FUNC);
        let comparison =
            comparison(function).ok_or_else(|| at.bad_argument(function, "SET_ALPHA_FUNC is not a comparison"))?;
        let reference = self.float(SET_ALPHA_REF);
        if reference.is_nan() {
            return Err(at.bad_argument(self.register(SET_ALPHA_REF), "SET_ALPHA_REF is NaN"));
        }
        Ok(Some((comparison, reference)))
    }

    /// SET_TEX_HEADER_POOL_A-C, SET_TEX_SAMPLER_POOL_A-C and SET_SAMPLER_BINDING.
    fn texture_pools(&self) -> Pools {
        texture_pools(|offset| self.register(offset), self.register(SET_SAMPLER_BINDING) & 1 == 1)
    }

    /// The colour targets of SET_CT_SELECT: output n to target TARGETn, with its write mask and blending.
    fn targets(&self, at: Method, base_layer: u32) -> Result<Vec<DrawTarget>, EngineError> {
        let select = self.register(super::maxwell_3d::SET_CT_SELECT);
        let single_write = self.register(SET_SINGLE_CT_WRITE_CONTROL) & 1 == 1;
        let per_target_blend = self.register(SET_BLEND_STATE_PER_TARGET) & 1 == 1;
        let mut targets = Vec::new();
        for output in 0..(select & 0xf).min(8) {
            let slot = select >> (4 + 3 * output) & 7;
            let Some((surface, format, first_layer)) = self.color_target(at, slot)? else { continue };
            let layer = super::maxwell_3d::target_layer(at, &surface, first_layer, base_layer)?;
            let write_register = self.register(SET_CT_WRITE + 4 * if single_write { 0 } else { output });
            let write = [0, 4, 8, 12].map(|bit| write_register >> bit & 1 == 1);
            let blend = (self.register(SET_BLEND + 4 * output) & 1 == 1).then(|| {
                if per_target_blend {
                    let base = SET_BLEND_PER_TARGET_SEPARATE_FOR_ALPHA + 32 * output;
                    let get = |k: u32| self.register(base + 4 * k);
                    BlendState { color: [get(1), get(2), get(3)], alpha: [get(4), get(5), get(6)] }
                } else {
                    let get = |register: u32| self.register(register);
                    let color = [get(SET_BLEND_COLOR_OP), get(SET_BLEND_COLOR_OP + 4), get(SET_BLEND_COLOR_OP + 8)];
                    // Without SEPARATE_FOR_ALPHA alpha blends as colour does (NVIDIA's driver writes only colour).
                    let alpha = if get(SET_BLEND_SEPARATE_FOR_ALPHA) & 1 == 1 {
                        [get(SET_BLEND_COLOR_OP + 12), get(SET_BLEND_COLOR_OP + 16), get(SET_BLEND_COLOR_OP + 24)]
                    } else {
                        color
                    };
                    BlendState { color, alpha }
                }
            });
            targets.push(DrawTarget { output, surface, format, layer, write, blend });
        }
        Ok(targets)
    }
}
