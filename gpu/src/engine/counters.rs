//! The 3D engine's counters: what the report semaphore reads and CLEAR_REPORT_VALUE zeroes (samples passed, the
//! data assembler's vertices and primitives, and the shader and clipper counters the back end has the host
//! count), with each counter's fields in open-gpu-doc clb197.h. Stream output keeps its own counters
//! (`stream_out::StreamOutState`).

/// The counters the report semaphore reads and CLEAR_REPORT_VALUE zeroes: samples that passed the depth and
/// stencil tests while SET_ZPASS_PIXEL_COUNT was on, and the data assembler's vertices and primitives and the
/// [`Statistic`]s (indexed by their order) while SET_STATISTICS_COUNTER's bits for them were.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub samples_passed: u64,
    pub vertices: u64,
    pub primitives: u64,
    pub statistics: [u64; Statistic::ALL.len()],
}

/// The 3D class's shader and clipper counters, which the back end has the host count for each draw. They are
/// Vulkan's pipeline statistics: NVK, a conformant Vulkan driver for these GPUs, reads each of Vulkan's from one
/// of them (`nvk_query_pool.c`), TI_INVOCATIONS for the tessellation control patches; and VTG_PRIMITIVES_OUT
/// (stream 0's) is what it reads for VK_EXT_primitives_generated_query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Statistic {
    VertexShaderInvocations,
    GeometryShaderInvocations,
    GeometryShaderPrimitives,
    ClipperInvocations,
    ClipperPrimitives,
    PixelShaderInvocations,
    TessellationInitInvocations,
    TessellationShaderInvocations,
    PrimitivesOut,
}

/// Where a [`Statistic`] lives in clb197.h: its SET_STATISTICS_COUNTER enable bit, its SET_REPORT_SEMAPHORE_D
/// REPORT and its CLEAR_REPORT_VALUE TYPE.
pub struct StatisticFields {
    pub enable_bit: u32,
    pub report: u32,
    pub clear: u32,
}

impl Statistic {
    /// The pipeline statistics in the order of Vulkan's flags for them, which is the order a query gives their
    /// counts in; then the primitives generated.
    pub const ALL: [Statistic; 9] = [
        Statistic::VertexShaderInvocations,
        Statistic::GeometryShaderInvocations,
        Statistic::GeometryShaderPrimitives,
        Statistic::ClipperInvocations,
        Statistic::ClipperPrimitives,
        Statistic::PixelShaderInvocations,
        Statistic::TessellationInitInvocations,
        Statistic::TessellationShaderInvocations,
        Statistic::PrimitivesOut,
    ];

    pub const fn fields(self) -> StatisticFields {
        let (enable_bit, report, clear) = match self {
            Statistic::VertexShaderInvocations => (2, 0x05, 0x15),
            Statistic::GeometryShaderInvocations => (3, 0x07, 0x1a),
            Statistic::GeometryShaderPrimitives => (4, 0x09, 0x1b),
            Statistic::ClipperInvocations => (7, 0x0f, 0x1c),
            Statistic::ClipperPrimitives => (8, 0x11, 0x1d),
            Statistic::PixelShaderInvocations => (9, 0x13, 0x1e),
            Statistic::TessellationInitInvocations => (11, 0x1b, 0x16),
            Statistic::TessellationShaderInvocations => (12, 0x1d, 0x17),
            Statistic::PrimitivesOut => (10, 0x12, 0x1f),
        };
        StatisticFields { enable_bit, report, clear }
    }
}
