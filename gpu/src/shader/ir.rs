//! The translator's IR: one for both instruction sets. A program is a set of blocks named by the byte offset
//! where they start in the guest code; each block is a list of statements over typed values and ends in a
//! terminator. Guest registers are places the statements read and write (`GetReg`/`SetReg`), not SSA values:
//! the SPIR-V emitter gives each a function variable and the driver's compiler promotes them.
//!
//! Invariants:
//! - every `Value` is defined once, by the `Op` at its index, before it is used, in the same block or an
//!   enclosing statement list (values do not cross blocks: blocks communicate through registers);
//! - an `If` body is structured (it falls through to the statement after the `If`), so guarded guest
//!   instructions never branch inside one; guarded branches are terminators with a condition.

use std::fmt;

/// The type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Type {
    Bool,
    U32,
    U64,
    /// Four U32 (a texture op's result: FP32 bits or integers, by the texture's number kind).
    U32x4,
}

/// A value: the result of one op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// Operations on two values of the same type (the result has that type, except comparisons: Bool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    /// Shifts take the amount as a U32 and give 0 (or the sign) for amounts past the width: the emitter
    /// clamps, so that guest semantics never meet SPIR-V's undefined large shifts.
    Shl,
    ShrU,
    ShrS,
    /// The high 32 bits of the unsigned (signed) 64-bit product of two U32.
    MulHiU,
    MulHiS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    /// FP32 (FP64) divide on the bits of U32 (U64) values, as MUFU's reciprocals are built (not bit-exact:
    /// MUFU is an approximation).
    FDiv,
    /// FP64 add and multiply of U64 bits by the host's own instructions, which Vulkan rounds correctly to
    /// nearest even but may flush denormals: for steps that stay clear of the denormals (the matrix products'
    /// sums), where `FArith`'s exact emulation would only cost time.
    FAddHost64,
    FMulHost64,
}

/// Operations on one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    /// Bool negation.
    LogicalNot,
    PopCount,
    BitReverse,
    /// Index of the highest set bit, or u32::MAX for zero.
    FindMsbU,
    /// Zero-extend U32 to U64, sign-extend, truncate U64 to U32, the high word of a U64.
    ExtendU,
    ExtendS,
    Truncate,
    High,
    /// Bool to U32 (1 or 0).
    BoolToU32,
    /// FP32 special functions (MUFU), approximations.
    Sqrt,
    InverseSqrt,
    Exp2,
    Log2,
    Tanh,
    /// Of the argument in turns (SIN(x) is sin(2 pi x)).
    SinTurns,
    CosTurns,
    /// FP32 rounding to an integral value: to nearest even, floor, ceil, trunc.
    RoundEven,
    Floor,
    Ceil,
    Trunc,
    /// Flushes an FP32 denormal to zero of the same sign.
    FlushDenormal,
    /// An FP16 (low 16 bits) to FP32, exactly.
    HalfToF32,
    /// An FP16 (low 16 bits) to FP64 (a U64), exactly.
    HalfToF64,
    /// FP32 to FP64 (a U64), exactly (a NaN's payload moved up, not quieted: NaN rules are the lowering's).
    F32ToF64,
    IsNan,
}

impl UnOp {
    /// Whether the operation is FP64 on a U64 operand (IsNan, the roundings to integral values and
    /// InverseSqrt: MUFU's FP64 seed); the others take U64 as integers.
    pub fn is_float(self) -> bool {
        matches!(self, UnOp::IsNan | UnOp::RoundEven | UnOp::Floor | UnOp::Ceil | UnOp::Trunc | UnOp::InverseSqrt)
    }
}

/// FP32 operations with one rounding: a + b, a * b, a * b + c (fused). Unused operands are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FArith {
    Add,
    Mul,
    Fma,
}

impl FArith {
    /// The operation of a packed-half instruction: HADD2, HMUL2 or HFMA2.
    pub fn of_half_opcode(opcode: &str) -> FArith {
        match opcode {
            "HADD2" | "HADD2_32I" => FArith::Add,
            "HMUL2" | "HMUL2_32I" => FArith::Mul,
            _ => FArith::Fma,
        }
    }
}

/// The 16-bit float formats of the packed-half instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HalfFormat {
    F16,
    /// An FP32's top half (.BF16_V2).
    Bf16,
}

impl HalfFormat {
    /// The bits of infinity and of 1.0.
    pub fn infinity(self) -> u32 {
        match self {
            HalfFormat::F16 => 0x7c00,
            HalfFormat::Bf16 => 0x7f80,
        }
    }

    pub fn one(self) -> u32 {
        match self {
            HalfFormat::F16 => 0x3c00,
            HalfFormat::Bf16 => 0x3f80,
        }
    }
}

/// Rounding modes, in the order of the instructions' rounding fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    NearestEven,
    TowardNegative,
    TowardPositive,
    TowardZero,
}

impl Round {
    pub fn from_field(field: u64) -> Round {
        [Round::NearestEven, Round::TowardNegative, Round::TowardPositive, Round::TowardZero][field as usize & 3]
    }
}

/// Comparisons (the result is Bool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
    /// Float ordered comparisons (false when either is NaN) and unordered ones (true then): FP32 of U32
    /// operands, FP64 of U64 ones.
    FLt,
    FLe,
    FGt,
    FGe,
    FEq,
    FNe,
    FLtU,
    FLeU,
    FGtU,
    FGeU,
    FEqU,
    FNeU,
}

/// Conversions between integers and floats (FP32 as U32 bits, FP64 as U64 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv {
    /// U32/I32 or U64/I64 (by the operand's type) to FP32 (FP64), rounded to nearest even.
    UToF,
    SToF,
    UToF64,
    SToF64,
    /// FP32 (FP64, of a U64) to U32/I32 or to I64 (the caller has already rounded and saturated: out of range is
    /// undefined).
    FToU,
    FToS,
    FToS64,
    FToU64,
}

/// Memory spaces loads and stores reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// 64-bit addresses into global memory.
    Global,
    /// Byte offsets into the CTA's shared memory.
    Shared,
    /// Byte offsets into the thread's local memory.
    Local,
    /// Byte addresses of a graphics stage's input attributes (ALD, IPA: generics, position, vertex id...).
    Attribute,
    /// Byte addresses of a graphics stage's outputs (AST, ALD.O).
    Output,
    /// A geometry program's input attributes of its primitive's vertices (ALD with a vertex register): vertex
    /// `v`'s attribute at byte address `a` is at `v * VERTEX_ATTRIBUTE_BYTES + a`.
    VertexAttribute,
}

/// Bytes of one vertex's attributes in `Space::VertexAttribute`.
pub const VERTEX_ATTRIBUTE_BYTES: u32 = 0x400;

/// A texture's shape as an instruction samples it: the instruction decides, whatever the header says
/// (Maxwell behaviour 2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureDim {
    D1,
    D2,
    D3,
    Cube,
}

impl TextureDim {
    /// Coordinates a sample takes (a cube's direction has three).
    pub fn coordinates(self) -> usize {
        match self {
            TextureDim::D1 => 1,
            TextureDim::D2 => 2,
            TextureDim::D3 | TextureDim::Cube => 3,
        }
    }
}

/// Where a texture's handle (header index in bits 19:0, sampler index in 31:20) comes from when a draw runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureHandle {
    /// The word at this byte offset of the stage's texture constant buffer (SET_BINDLESS_TEXTURE's slot): the
    /// bound instructions' `tex` field.
    Bound(u32),
    /// A bindless instruction's handle register, traced back to constant-buffer words: the OR of its parts (a
    /// handle loaded whole is one part; NVN's separate texture and sampler handles are two).
    Traced([Option<HandlePart>; 2]),
    /// A bindless handle known only when the program runs (loaded from memory, computed): the binding is the
    /// whole header and sampler pools, and each op names its handle value (`TextureRef::handle`).
    Pool,
}

/// How an op names its texture: the program's binding, and for a `TextureHandle::Pool` binding the handle (a
/// U32: header index in bits 19:0, sampler index in 31:20) that picks the pools' entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureRef {
    pub binding: u16,
    pub handle: Option<Value>,
}

/// `(word & mask) << shift`, the word at byte `offset` of constant bank `bank` (`shift` past 31 gives 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandlePart {
    pub bank: u8,
    pub offset: u32,
    pub mask: u32,
    pub shift: u32,
}

impl fmt::Display for TextureHandle {
    /// `c[bindless][0x8]`, or the traced expression: `c[0x0][0x28]`, `(c[0x0][0x2c] & 0xfffff) | c[0x0][0x30] << 20`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = match self {
            TextureHandle::Bound(offset) => return write!(f, "c[bindless][{offset:#x}]"),
            TextureHandle::Pool => return write!(f, "pool"),
            TextureHandle::Traced(parts) => parts,
        };
        for (index, part) in parts.iter().flatten().enumerate() {
            if index > 0 {
                write!(f, " | ")?;
            }
            let word = format!("c[{:#x}][{:#x}]", part.bank, part.offset);
            match (part.mask, part.shift) {
                (u32::MAX, 0) => write!(f, "{word}")?,
                (u32::MAX, shift) => write!(f, "{word} << {shift}")?,
                (mask, 0) => write!(f, "({word} & {mask:#x})")?,
                (mask, shift) => write!(f, "({word} & {mask:#x}) << {shift}")?,
            }
        }
        Ok(())
    }
}

impl HandlePart {
    pub fn apply(&self, word: u32) -> u32 {
        (word & self.mask).checked_shl(self.shift).unwrap_or(0)
    }
}

/// A texture a program reads through `handle`, sampled as `dim` (an array when `array`). One binding per
/// distinct use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureBinding {
    pub handle: TextureHandle,
    pub dim: TextureDim,
    pub array: bool,
    /// Sampled with a depth compare (a depth texture, and a sampler that compares).
    pub depth_compare: bool,
    /// Gathered with offsets from a register (the host needs `shaderImageGatherExtended`).
    pub gather_offsets: bool,
    /// Fetched by sample (TLD.MS, TLDS's multisample mode) from a multisampled 2D texture, which the host holds
    /// as a 2D array of one layer a sample: the binding is `array`, and the sample index is the layer.
    pub multisample: bool,
    /// Queried for its size (TXQ), which has no target: the texture header's own dimension and arrayness, which
    /// only the back end knows (`TextureView`), decide the image's type; `dim` and `array` are placeholders.
    pub query: bool,
    /// Read by texel fetches (TLD, TLDS) alone, through a handle known when translating: the one use a 1D buffer
    /// texture, which has no sampler and no levels, may be put to (ptxas fetches buffers, CUDA's `tex1Dfetch`,
    /// with the TLD it fetches 1D textures with: only the header tells them apart).
    pub fetch: bool,
}

/// What the back end found a texture binding reads: its number kind, and its header's shape (which a size
/// query's image takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureView {
    pub kind: crate::texture::format::NumberKind,
    pub dim: TextureDim,
    pub array: bool,
    /// A `TextureHandle::Pool` binding's pools as the back end binds them (`None` for other bindings).
    pub pool: Option<PoolView>,
    /// The header is a 1D buffer's (a `fetch` or `query` binding's, `dim` D1): a uniform texel buffer, which
    /// fetches read without a level and size queries measure in texels.
    pub buffer: bool,
}

impl TextureView {
    /// FP32 numbers of `binding`'s own shape (what the emitter assumes of a binding with no view), through `pool`
    /// where the binding is of the pools.
    pub fn float(binding: &TextureBinding, pool: Option<PoolView>) -> TextureView {
        let pool = pool.filter(|_| binding.handle == TextureHandle::Pool);
        let kind = crate::texture::format::NumberKind::Float;
        TextureView { kind, dim: binding.dim, array: binding.array, pool, buffer: false }
    }
}

/// The pools a run-time handle indexes, as the back end binds them: `headers` textures (viewed as the binding's
/// shape, holding their texels' 32-bit words as FP32 bits: one float view for every number kind) and `samplers`
/// samplers, each array followed by one placeholder (a texture of zeros, a default sampler) that indices past
/// them read. With `sampler_via_header` (SET_SAMPLER_BINDING VIA_HEADER_BINDING) the header index picks the
/// sampler too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolView {
    pub headers: u32,
    pub samplers: u32,
    pub sampler_via_header: bool,
    /// The device indexes arrays of sampled images and samplers with values that differ between invocations
    /// (`shaderSampledImageArrayNonUniformIndexing`). Without it, each op picks its pair of header and sampler
    /// by a switch with a case for every pair, which `MAX_SWITCHED_POOL_PAIRS` bounds.
    pub indexed: bool,
}

/// The most pairs of header and sampler (placeholders included) a pool may have on a device that cannot index
/// descriptor arrays: each texture op through it becomes a switch with a case for each.
pub const MAX_SWITCHED_POOL_PAIRS: u32 = 256;

/// A surface a program loads, stores or reduces through `handle`, shaped `dim` (an array when `array`) and
/// viewed as texels of `texel_bytes` (1, 2, 4, 8 or 16: unsigned integer channels, R8, R16, R32, RG32 or RGBA32):
/// the size its direct accesses move, in which a byte-addressed x counts. 0 for formatted accesses (SULD.P,
/// SUST.P): the back end binds the surface as four 32-bit values a texel, each component as the surface's format
/// reads (`texture::formatted`), and writes the texels it changed back in that format. One binding per distinct
/// use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SurfaceBinding {
    pub handle: TextureHandle,
    pub dim: TextureDim,
    pub array: bool,
    /// A 1D buffer (`dim` D1): a storage texel buffer.
    pub buffer: bool,
    pub texel_bytes: u8,
}

/// The surface atomics' operations (SURED, SUATOM) as the host's image atomics have them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Add,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
    Exchange,
}

/// How a sample picks its level of detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lod {
    /// From the derivatives (fragment stage; other stages take level 0).
    Implicit,
    Zero,
    /// The implicit level plus an FP32 bias.
    Bias(Value),
    /// An FP32 level.
    Level(Value),
    /// From explicit derivatives: d/dx and d/dy of each coordinate (the first of each pair alone for 1D).
    Gradients {
        x: [Value; 2],
        y: [Value; 2],
    },
}

/// Special registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    ThreadId(u8),
    CtaId(u8),
    /// The thread's index in its warp of 32.
    LaneId,
    /// A U64 clock: the thread's own counter, increasing at every read (the SASS interpreter counts its warp's
    /// instructions; both only promise that it increases, as the hardware's does).
    Clock,
    /// A geometry program's invocation of its primitive (SR_INVOCATION_ID).
    InvocationId,
    /// SR_INVOCATION_INFO of a geometry program: the vertices of its input primitive in bits 23:16, the
    /// primitive's index in its batch in bits 7:0, which is 0 here (each invocation sees its own primitive, so
    /// the handles ISBERD reads are the vertices' numbers).
    InvocationInfo,
    /// A pixel's place in its quad (0 top left, 1 top right, 2 bottom left, 3 bottom right: a warp's lane id & 3
    /// on the hardware), in pixel programs, where the host's quads are the guest's.
    QuadLane,
    /// PIXLD.MY_INDEX: the sample a pixel program's invocation shades (reading it shades each sample on its own).
    SampleId,
    /// PIXLD.COVMASK: the samples of the pixel the invocation covers, one bit each.
    SampleMask,
}

/// What a subgroup vote asks of its invocations' Bools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    All,
    Any,
    /// All true or all false.
    Equal,
}

/// A shuffle inside each quad of a pixel program (SHFL confined to quads), done by the host's quad operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuadShuffle {
    /// The value of the quad's lane with this place XOR the pixel's (1 horizontal, 2 vertical, 3 diagonal).
    Swap(u8),
    /// The value of the quad's lane at this place.
    Broadcast(u8),
}

/// One operation. Its result (if any) is the `Value` of its index.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Const(Type, u64),
    GetReg(u8),
    SetReg(u8, Value),
    GetPred(u8),
    SetPred(u8, Value),
    GetUReg(u8),
    SetUReg(u8, Value),
    /// Maxwell's condition code (a U32 of flags: zero 1, sign 2, carry 4, overflow 8).
    GetCc,
    SetCc(Value),
    Binary(BinOp, Value, Value),
    Unary(UnOp, Value),
    /// cond ? a : b
    Select(Value, Value, Value),
    Compare(Cmp, Value, Value),
    Convert(Conv, Value),
    /// FP32 (FP64) arithmetic on the bits of U32 (U64) values, rounded once in the given mode (IEEE results:
    /// NVIDIA's NaN and flushing are the lowering's business; a NaN operand gives some NaN).
    FArith(FArith, Round, [Value; 3]),
    /// The same on FP16 or BF16 values (low 16 bits of U32s), rounded to nearest even.
    HalfArith(HalfFormat, FArith, [Value; 3]),
    /// FP32 (FP64, of a U64) to FP16 (low 16 bits), rounded in the mode (a NaN quieted, the top of its payload
    /// kept: NaN rules are the lowering's).
    F32ToHalf(Round, Value),
    /// FP64 (a U64) to FP32, rounded in the mode (NaN as for `F32ToHalf`).
    F64ToF32(Round, Value),
    /// A 32-bit word of a constant bank at a byte offset (U32, a multiple of 4).
    ConstantLoad {
        bank: u8,
        offset: Value,
    },
    /// A 32-bit word at a 4-aligned address (Global: U64, else U32).
    Load {
        space: Space,
        address: Value,
    },
    Store {
        space: Space,
        address: Value,
        value: Value,
    },
    /// A byte or half (`bytes` 1 or 2, at an address aligned to it), zero-extended to U32.
    LoadSub {
        space: Space,
        address: Value,
        bytes: u8,
    },
    /// The low `bytes` (1 or 2) of `value` at `address`; the rest of the word is left alone, also when other
    /// invocations store its other bytes at the same time.
    StoreSub {
        space: Space,
        address: Value,
        bytes: u8,
        value: Value,
    },
    Special(Special),
    /// Compare-and-swap of the word at `address` (Global: U64, Shared: U32), 32 or 64 bits as `value` is (64 in
    /// global memory only): stores `value` where it holds `compare`; the word it held, whichever happened.
    AtomicCas {
        space: Space,
        address: Value,
        compare: Value,
        value: Value,
    },
    /// Warp exchanges (SHFL, VOTE, MMA) at 32 lanes whatever the host's subgroups: a thread publishes values
    /// for its warp, the block ends at a `Barrier` (every thread meets there), and the block after it reads the
    /// values its warp's lanes published (`WarpRead`, 0 from a lane that did not: `WarpPresent` says which did).
    /// The values are words in order, a U64 two (its low word first).
    WarpPublish(Vec<Value>),
    /// Word `word` of what lane `lane` (U32, 0-31) of the thread's warp published before the last barrier.
    WarpRead {
        lane: Value,
        word: u8,
    },
    WarpPresent(Value),
    /// A value from another pixel of the quad (U32); pixel programs only.
    QuadShuffle(Value, QuadShuffle),
    /// A vote on a Bool among the invocations of the host's subgroup that run it (Bool); pixel programs only,
    /// where the host's subgroup stands for the warp (which pixels share a warp is the rasteriser's choice on
    /// either).
    SubgroupVote(Value, Vote),
    /// The invocations of the host's subgroup that run it with the Bool true, one bit each by their index in the
    /// subgroup (the ballot's low 32 bits, U32); pixel programs only.
    SubgroupBallot(Value),
    /// A barrier reduction over every thread of the workgroup that published in the previous phase: 0 the count
    /// of non-zero values, 1 whether all were non-zero, 2 whether any was (as 1 or 0).
    BlockReduce(u8),
    /// The result of the thread's last barrier reduction (what B2R.RESULT reads).
    GetBarrierResult,
    SetBarrierResult(Value),
    /// A filtered sample of texture binding `texture` at FP32 coordinates (`TextureDim::coordinates` of them)
    /// and, for arrays, the layer (a U32 whose low 16 bits count): the texel's four components (U32x4).
    TextureSample {
        texture: TextureRef,
        coordinates: Vec<Value>,
        layer: Option<Value>,
        lod: Lod,
        /// A depth compare's FP32 reference (the binding compares): the texel is the filtered result of the
        /// comparisons, 0.0 to 1.0, in components 0 to 2 (3 is 1.0).
        reference: Option<Value>,
        /// Texel offsets (x, y, z; as many as the coordinates), fixed when translating (AOFFI).
        offset: Option<[i8; 3]>,
    },
    /// One texel of level `level` (U32) at integer coordinates (and layer) of binding `texture`, unfiltered.
    TextureFetch {
        texture: TextureRef,
        coordinates: Vec<Value>,
        layer: Option<Value>,
        level: Value,
    },
    /// The 2x2 texels a bilinear sample of level 0 at FP32 coordinates would read, component `component` of
    /// each (with `reference`, the binding's comparisons with them instead), in the order (i0, j1), (i1, j1),
    /// (i1, j0), (i0, j0).
    TextureGather {
        texture: TextureRef,
        coordinates: Vec<Value>,
        layer: Option<Value>,
        component: u8,
        reference: Option<Value>,
        /// Texel offsets added to the 2x2 footprint: signed 6-bit x in bits 5:0, y in bits 13:8 (AOFFI).
        offsets: Option<Value>,
    },
    /// TXQ TEX_HEADER_DIMENSION of a `query` binding at level `level` (U32): width, then height or a 1D array's
    /// layers, then depth or a 2D array's layers (0 where the shape has none), then the levels; the first three
    /// 0 for a level past the last (nxgpucatch's hardware tests).
    TextureQuery {
        texture: TextureRef,
        level: Value,
    },
    /// TMML (fragment stage): the level of detail a sample of binding `texture` at FP32 `coordinates` would
    /// compute, as signed 8.8 fixed point in bits 15:0 of component 0, and the level it would access, unsigned
    /// 8.8 in component 1 (the reverse of SPIR-V's order: `gpu/research/tmml-lc.md`); components 2 and 3 are 0.
    TextureLodQuery {
        texture: TextureRef,
        coordinates: Vec<Value>,
    },
    /// The texel of surface binding `surface` at integer `coordinates` (x, then y, then z or the layer), inside
    /// the surface (the caller checks): its channels as four U32 (those the view lacks 0, 0, 1).
    SurfaceLoad {
        surface: u16,
        coordinates: Vec<Value>,
    },
    /// Writes `channels` (a U32 for each of the view's, or four for a formatted view) to the texel at
    /// `coordinates`, inside the surface.
    SurfaceStore {
        surface: u16,
        coordinates: Vec<Value>,
        channels: Vec<Value>,
    },
    /// An atomic operation on the texel (the view is R32) at `coordinates`, inside the surface, with U32 `value`:
    /// the value the texel held before (U32).
    SurfaceAtomic {
        surface: u16,
        coordinates: Vec<Value>,
        reduction: Reduction,
        value: Value,
    },
    /// Compare-and-swap of the texel (the view is R32) at `coordinates`, inside the surface: stores `value` where
    /// it holds `compare`; the value it held, whichever happened (U32).
    SurfaceCompareSwap {
        surface: u16,
        coordinates: Vec<Value>,
        compare: Value,
        value: Value,
    },
    /// The surface's size as U32x4: its width, its height (a 1D array's layers), its depth (a 2D array's
    /// layers), 0 where the shape has none.
    SurfaceSize {
        surface: u16,
    },
    /// Component 0-3 of a U32x4.
    Component(Value, u8),
    /// KIL: the fragment invocation becomes a helper (its outputs are dropped; it runs on, so that derivatives
    /// stay valid: Maxwell's discard).
    Demote,
    /// A geometry program's OUT.EMIT on a vertex stream (0-3): the outputs as they stand become the next vertex of
    /// the primitive that stream is making.
    EmitVertex(u8),
    /// A geometry program's OUT.CUT on a vertex stream: the primitive it is making ends; its next vertex starts
    /// another.
    EndPrimitive(u8),
    /// A per-patch attribute word at a byte address (ALD.P: a tessellation evaluation program reads its
    /// patch's, a tessellation control program the ones it wrote): U32.
    PatchLoad(u32),
    /// AST.P: a tessellation control program writes its patch's word at a byte address.
    PatchStore(u32, Value),
    /// IPA at another location than the pixel centre: the input attribute word at a byte address as the
    /// attribute space holds it (`spirv::graphics`), interpolated at the primitive's centroid in the pixel, or
    /// (`offset`: x in bits 15:0 and y in bits 31:16, signed 4.12 fixed point, pixels) that far from the centre.
    InterpolateAt {
        address: u32,
        offset: Option<Value>,
    },
}

impl Op {
    /// The type of the op's result, given its operands' types; `None` when it has none.
    pub fn result_type(&self, type_of: impl Fn(Value) -> Type) -> Option<Type> {
        use BinOp::*;
        Some(match self {
            Op::Const(ty, _) => *ty,
            Op::Special(Special::Clock) => Type::U64,
            Op::GetReg(_)
            | Op::GetUReg(_)
            | Op::GetCc
            | Op::Special(_)
            | Op::ConstantLoad { .. }
            | Op::PatchLoad(_)
            | Op::InterpolateAt { .. }
            | Op::Load { .. }
            | Op::LoadSub { .. }
            | Op::SurfaceAtomic { .. }
            | Op::SurfaceCompareSwap { .. } => Type::U32,
            Op::GetPred(_) | Op::Compare(..) | Op::WarpPresent(_) | Op::SubgroupVote(..) => Type::Bool,
            Op::TextureSample { .. }
            | Op::TextureFetch { .. }
            | Op::TextureGather { .. }
            | Op::TextureQuery { .. }
            | Op::TextureLodQuery { .. }
            | Op::SurfaceLoad { .. }
            | Op::SurfaceSize { .. } => Type::U32x4,
            Op::Component(..) => Type::U32,
            Op::AtomicCas { value, .. } => type_of(*value),
            Op::WarpRead { .. }
            | Op::QuadShuffle(..)
            | Op::SubgroupBallot(_)
            | Op::BlockReduce(_)
            | Op::GetBarrierResult => Type::U32,
            Op::SetReg(..)
            | Op::SetPred(..)
            | Op::SetUReg(..)
            | Op::SetCc(_)
            | Op::Store { .. }
            | Op::StoreSub { .. }
            | Op::WarpPublish(_)
            | Op::SetBarrierResult(_)
            | Op::SurfaceStore { .. }
            | Op::Demote
            | Op::EmitVertex(_)
            | Op::EndPrimitive(_)
            | Op::PatchStore(..) => {
                return None;
            }
            Op::Binary(MulHiU | MulHiS, _, _) => Type::U32,
            Op::Binary(_, a, _) => type_of(*a),
            Op::Unary(op, a) => match op {
                UnOp::ExtendU | UnOp::ExtendS | UnOp::F32ToF64 | UnOp::HalfToF64 => Type::U64,
                UnOp::Truncate | UnOp::High | UnOp::BoolToU32 | UnOp::PopCount | UnOp::FindMsbU => Type::U32,
                UnOp::IsNan => Type::Bool,
                _ => type_of(*a),
            },
            Op::Select(_, a, _) => type_of(*a),
            Op::Convert(Conv::FToS64 | Conv::FToU64 | Conv::UToF64 | Conv::SToF64, _) => Type::U64,
            Op::FArith(_, _, [a, ..]) => type_of(*a),
            Op::Convert(..) | Op::HalfArith(..) | Op::F32ToHalf(..) | Op::F64ToF32(..) => Type::U32,
        })
    }
}

/// A statement of a block.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Op(Value, Op),
    /// A guarded region: runs when the Bool holds.
    If(Value, Vec<Stmt>),
}

/// How a block ends. Targets are block names (byte offsets in the guest code).
#[derive(Debug, Clone, PartialEq)]
pub enum Terminator {
    Jump(u32),
    Branch(Value, u32, u32),
    /// To the block at this byte offset (a U32 value: returns, jump tables).
    JumpIndirect(Value),
    /// The thread ends; with a condition, only when it holds (else on to the block named).
    Exit(Option<(Value, u32)>),
    /// A CTA barrier (BAR.SYNC, with shared memory ordered across it), then the block named. A terminator so
    /// that the emitter can put every barrier in uniform control flow.
    Barrier(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Byte offset of the block's first guest instruction.
    pub start: u32,
    pub body: Vec<Stmt>,
    pub terminator: Terminator,
}

/// A translated program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    pub blocks: Vec<Block>,
    /// The type of every value, by index.
    pub types: Vec<Type>,
    pub entry: u32,
    /// Bytes of shared and of local memory per thread the program uses.
    pub shared_bytes: u32,
    pub local_bytes: u32,
    /// Constant banks the program reads.
    pub constant_banks: Vec<u8>,
    /// Textures it reads, by the index ops name them with.
    pub textures: Vec<TextureBinding>,
    /// Surfaces it loads, stores or reduces, by the index ops name them with.
    pub surfaces: Vec<SurfaceBinding>,
}

impl Program {
    /// A new value for the result of `op`, typed as `op` makes it (U32 for ops without a result).
    pub fn new_value(&mut self, op: &Op) -> Value {
        let types = &self.types;
        let ty = op.result_type(|v| types[v.0 as usize]).unwrap_or(Type::U32);
        self.types.push(ty);
        Value(self.types.len() as u32 - 1)
    }

    /// Whether any statement of any block is an op `wanted` picks.
    pub fn any_op(&self, wanted: &dyn Fn(&Op) -> bool) -> bool {
        fn visit(stmts: &[Stmt], wanted: &dyn Fn(&Op) -> bool) -> bool {
            stmts.iter().any(|stmt| match stmt {
                Stmt::Op(_, op) => wanted(op),
                Stmt::If(_, body) => visit(body, wanted),
            })
        }
        self.blocks.iter().any(|block| visit(&block.body, wanted))
    }

    /// The index of `binding` among the program's textures, added when it is new.
    pub fn texture(&mut self, binding: TextureBinding) -> u16 {
        let index = self.textures.iter().position(|b| *b == binding).unwrap_or_else(|| {
            self.textures.push(binding);
            self.textures.len() - 1
        });
        index as u16
    }

    /// The op whose result is `value`, wherever its statement is.
    pub fn op_mut(&mut self, value: Value) -> Option<&mut Op> {
        fn find(body: &mut [Stmt], value: Value) -> Option<&mut Op> {
            body.iter_mut().find_map(|stmt| match stmt {
                Stmt::Op(v, op) if *v == value => Some(op),
                Stmt::Op(..) => None,
                Stmt::If(_, inner) => find(inner, value),
            })
        }
        self.blocks.iter_mut().find_map(|block| find(&mut block.body, value))
    }

    /// The index of `binding` among the program's surfaces, added when it is new.
    pub fn surface(&mut self, binding: SurfaceBinding) -> u16 {
        let index = self.surfaces.iter().position(|b| *b == binding).unwrap_or_else(|| {
            self.surfaces.push(binding);
            self.surfaces.len() - 1
        });
        index as u16
    }
}

/// Building programs by hand, for tests.
#[cfg(test)]
pub(crate) mod build {
    use super::{BinOp, Block, Op, Program, Stmt, Terminator, Type, Value};

    /// Statements of one block.
    pub(crate) struct Body<'p> {
        pub(crate) program: &'p mut Program,
        pub(crate) stmts: Vec<Stmt>,
    }

    impl Body<'_> {
        pub(crate) fn op(&mut self, op: Op) -> Value {
            let value = self.program.new_value(&op);
            self.stmts.push(Stmt::Op(value, op));
            value
        }
        pub(crate) fn u32(&mut self, value: u32) -> Value {
            self.op(Op::Const(Type::U32, u64::from(value)))
        }
        pub(crate) fn binary(&mut self, op: BinOp, a: Value, b: Value) -> Value {
            self.op(Op::Binary(op, a, b))
        }
    }

    pub(crate) fn block(program: &mut Program, start: u32, fill: impl FnOnce(&mut Body) -> Terminator) {
        let mut body = Body { program, stmts: Vec::new() };
        let terminator = fill(&mut body);
        let stmts = body.stmts;
        program.blocks.push(Block { start, body: stmts, terminator });
    }
}
