//! The back ends' side of the GPU: what the engines ask of them (clears, compute dispatches, presents; draws to
//! come), through a narrow trait, so that guest semantics stay in the engines (Dolphin's VideoCommon and
//! back ends). `reference` is the straightforward Vulkan one.

pub mod reference;

pub use crate::texture::descriptor::Comparison;

pub use crate::engine::draw::{
    BlendState, Cull, DepthStencil, Draw, DrawTarget, LineStipple, Lines, PolygonMode, Stage, StencilFace, StencilOp,
    Topology, Viewport,
};

use crate::mmu::{GuestMemory, Mmu, MmuError};
use crate::sass::cubin::KernelImage;
use crate::texture::format::{ColorFormat, DepthFormat};
use crate::texture::surface::Surface;

/// A rectangle of texels: `x0..x1`, `y0..y1`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Rect {
    pub fn intersect(self, other: Rect) -> Rect {
        let x0 = self.x0.max(other.x0);
        let y0 = self.y0.max(other.y0);
        Rect { x0, y0, x1: self.x1.min(other.x1).max(x0), y1: self.y1.min(other.y1).max(y0) }
    }

    pub fn is_empty(self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }
}

/// A colour clear: the texels of `rect` in `layer` of `target` take `value` in the channels `mask` enables.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColorClear {
    pub target: Surface,
    pub format: ColorFormat,
    pub rect: Rect,
    pub layer: u32,
    /// R, G, B, A.
    pub mask: [bool; 4],
    /// `SET_COLOR_CLEAR_VALUE(0..4)`: float bits for float and normalised formats, the integers for integer ones.
    pub value: [u32; 4],
}

/// A depth/stencil clear: the texels of `rect` in `layer` of `target` take `depth` (when `clear_depth`) and
/// `stencil` in the stencil bits `stencil_mask` enables.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DepthStencilClear {
    pub target: Surface,
    pub format: DepthFormat,
    pub rect: Rect,
    pub layer: u32,
    /// `SET_Z_CLEAR_VALUE`'s float bits, when the clear writes depth.
    pub depth: Option<u32>,
    pub stencil: u8,
    /// Stencil bits written (0: the clear leaves stencil alone).
    pub stencil_mask: u8,
}

/// Guest memory as a back end reaches it: through the channel's address space.
pub struct GpuMemory<'a> {
    pub guest: &'a dyn GuestMemory,
    pub mmu: &'a Mmu,
}

impl GpuMemory<'_> {
    pub fn read(&self, va: u64, buffer: &mut [u8]) -> Result<(), MmuError> {
        self.mmu.read(self.guest, va, buffer)
    }

    pub fn write(&self, va: u64, data: &[u8]) -> Result<(), MmuError> {
        self.mmu.write(self.guest, va, data)
    }
}

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum BackendError {
    #[error("the {backend} back end: {problem}")]
    Failed { backend: &'static str, problem: String },
    #[error("the {backend} back end cannot {what} yet")]
    Unimplemented { backend: &'static str, what: String },
    #[error("writing the result to GPU memory: {0}")]
    Memory(#[from] MmuError),
    #[error("translating the shader: {0}")]
    Translate(#[from] crate::shader::TranslateError),
    /// A texture the guest named is not there as named (an unbound handle buffer, an index past its pool, a
    /// malformed header or sampler).
    #[error("a texture: {0}")]
    BadTexture(String),
    #[error(
        "the shader at GPU address {program:#x} reached a GPU address nothing is mapped at (the hardware faults the \
         channel); run with `--cpu reference` and RUST_LOG=gpu=debug to see the launch"
    )]
    ShaderFault { program: u64 },
}

/// A frame the display shows: a surface in guest memory (`surface.address` is a guest address, not a GPU one:
/// the display reads memory directly).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Present {
    pub surface: Surface,
    pub format: ColorFormat,
}

/// A presented frame's pixels: RGBA, 8 bits a channel, rows from the top.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// A constant buffer a dispatch binds: `size` bytes at GPU address `address`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ConstantBuffer {
    pub address: u64,
    pub size: u32,
}

/// A compute grid: `grid` blocks of `block` threads running `kernel` (raw code, read from GPU memory), with
/// `local_bytes` of local memory a thread, the constant buffers bound by slot (bank) and the texture pools its
/// texture instructions read. The kernel's global addresses are GPU virtual addresses of the channel's address
/// space.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Dispatch {
    /// The GPU address of the kernel's code.
    pub program: u64,
    pub kernel: KernelImage,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub local_bytes: u32,
    pub constant_buffers: [Option<ConstantBuffer>; 8],
    pub texture_pools: crate::texture::descriptor::Pools,
    /// The constant buffer slot holding the handles of its bound texture instructions (SET_BINDLESS_TEXTURE).
    pub texture_buffer: usize,
}

/// What a draw gives back besides its targets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drawn {
    /// The samples that passed the depth and stencil tests when `draw.count_samples`, else 0.
    pub samples_passed: u64,
    /// The count of each of `draw.statistics`, in its order.
    pub statistics: Vec<u64>,
    /// What stream output captured (`draw.capture`), in the order its primitives come.
    pub captured: Vec<Captured>,
}

/// Vertices stream output captured: each vertex's words of `Draw::capture` (ascending), vertex after vertex, making
/// primitives of `topology` (the draw's for a vertex program's vertices; a geometry program's strips one by one)
/// on vertex stream `stream` (a vertex program's: 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    pub topology: Topology,
    pub stream: u8,
    pub words: Vec<u32>,
}

/// What a back end does for the engines.
pub trait Backend {
    fn name(&self) -> &'static str;
    fn clear_color(&mut self, clear: &ColorClear, memory: &GpuMemory) -> Result<(), BackendError>;
    fn clear_depth_stencil(&mut self, clear: &DepthStencilClear, memory: &GpuMemory) -> Result<(), BackendError>;
    /// Draws; what it renders is in the targets in guest memory afterwards.
    fn draw(&mut self, draw: &Draw, memory: &GpuMemory) -> Result<Drawn, BackendError>;
    /// Runs a compute grid to completion; what it writes is in guest memory afterwards.
    fn dispatch(&mut self, dispatch: &Dispatch, memory: &GpuMemory) -> Result<(), BackendError>;
    /// The pixels of a presented surface.
    fn present(&mut self, present: &Present, memory: &dyn GuestMemory) -> Result<Frame, BackendError>;
}
