//! The engines a channel's subchannels are bound to, each a class of NVIDIA's (open-gpu-doc `classes/`): their
//! state and what their methods do. Guest semantics live here; drawing goes through a back end.

pub mod compute;
pub mod copy;
pub mod counters;
pub mod draw;
pub mod inline_to_memory;
pub mod maxwell_3d;
pub mod methods;
pub mod mme;
pub mod multisample;
pub mod raster;
pub mod semaphore;
pub mod stream_out;
pub mod twod;
mod vertex_fetch;

use crate::mmu::{GuestMemory, Mmu, MmuError};
use crate::syncpoint::Syncpoints;

/// The classes a subchannel can be bound to (`SET_OBJECT`'s class id).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Class {
    /// `MAXWELL_B` (B197): 3D.
    Maxwell3D,
    /// `MAXWELL_COMPUTE_B` (B1C0).
    Compute,
    /// `MAXWELL_DMA_COPY_A` (B0B5).
    Copy,
    /// `FERMI_TWOD_A` (902D).
    TwoD,
    /// `KEPLER_INLINE_TO_MEMORY_B` (A140).
    InlineToMemory,
    /// `AMPERE_COMPUTE_B` (C7C0): the Switch 2's compute class.
    AmpereCompute,
    /// `AMPERE_DMA_COPY_B` (C7B5): the Switch 2's copy class.
    AmpereCopy,
    /// `AMPERE_B` (C797): the Switch 2's 3D class. Maxwell B's methods at the same offsets, but programs by address
    /// (SM86 behind version 4 headers), vertex streams and index buffers by size.
    Ampere3D,
}

impl Class {
    pub const ALL: [Class; 8] = [
        Class::Maxwell3D,
        Class::Compute,
        Class::Copy,
        Class::TwoD,
        Class::InlineToMemory,
        Class::AmpereCompute,
        Class::AmpereCopy,
        Class::Ampere3D,
    ];

    pub fn id(self) -> u32 {
        match self {
            Class::Maxwell3D => 0xb197,
            Class::Compute => 0xb1c0,
            Class::Copy => 0xb0b5,
            Class::TwoD => 0x902d,
            Class::InlineToMemory => 0xa140,
            Class::AmpereCompute => 0xc7c0,
            Class::AmpereCopy => 0xc7b5,
            Class::Ampere3D => 0xc797,
        }
    }

    pub fn from_id(id: u32) -> Option<Class> {
        Class::ALL.into_iter().find(|class| class.id() == id)
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Maxwell3D => "MAXWELL_B",
            Class::Compute => "MAXWELL_COMPUTE_B",
            Class::Copy => "MAXWELL_DMA_COPY_A",
            Class::TwoD => "FERMI_TWOD_A",
            Class::InlineToMemory => "KEPLER_INLINE_TO_MEMORY_B",
            Class::AmpereCompute => "AMPERE_COMPUTE_B",
            Class::AmpereCopy => "AMPERE_DMA_COPY_B",
            Class::Ampere3D => "AMPERE_B",
        }
    }
}

/// What an engine's method may reach: guest memory through the channel's address space, the syncpoints, and the
/// back end that renders.
pub struct Context<'a> {
    pub memory: &'a dyn GuestMemory,
    pub mmu: &'a Mmu,
    pub syncpoints: &'a mut Syncpoints,
    /// The GPU timer now, in 614.4 MHz ticks (reports carry it).
    pub timestamp: u64,
    /// `None`: the GPU runs without one (tests of the front end alone); work that needs one stops the channel.
    pub backend: Option<&'a mut (dyn crate::backend::Backend + 'static)>,
}

impl Context<'_> {
    pub fn read(&self, va: u64, buffer: &mut [u8]) -> Result<(), MmuError> {
        self.mmu.read(self.memory, va, buffer)
    }

    pub fn write(&self, va: u64, data: &[u8]) -> Result<(), MmuError> {
        self.mmu.write(self.memory, va, data)
    }
}

/// One method of a class: where method errors and traces point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Method {
    pub class: Class,
    /// Byte offset in the class's method space.
    pub offset: u32,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = methods::table(Some(self.class)).name(self.offset);
        write!(f, "{} method {:#06x} ({})", self.class.name(), self.offset, name.as_deref().unwrap_or("unnamed"))
    }
}

/// Why a method could not be carried out.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{method} is not implemented by Tandem yet{detail}")]
    Unimplemented { method: Method, detail: String },
    #[error("{method}: {source}")]
    Memory { method: Method, source: MmuError },
    #[error("{method} with argument {argument:#x}: {problem}")]
    BadArgument { method: Method, argument: u32, problem: &'static str },
    #[error("{0}")]
    Macro(#[from] mme::MacroError),
    #[error("{method}: {source}")]
    Backend { method: Method, source: crate::backend::BackendError },
    #[error("{method} needs a GPU back end, and this GPU runs without one")]
    NoBackend { method: Method },
}

impl Method {
    pub fn unimplemented(self, detail: impl Into<String>) -> EngineError {
        let detail = detail.into();
        let detail = if detail.is_empty() { detail } else { format!(": {detail}") };
        EngineError::Unimplemented { method: self, detail }
    }

    pub fn memory(self, source: MmuError) -> EngineError {
        EngineError::Memory { method: self, source }
    }

    pub fn bad_argument(self, argument: u32, problem: &'static str) -> EngineError {
        EngineError::BadArgument { method: self, argument, problem }
    }
}

/// Conditional rendering's registers, at the same offsets in the 3D and compute classes (clb197.h, clb1c0.h,
/// clc797.h, clc7c0.h).
pub const SET_RENDER_ENABLE_A: u32 = 0x1550;
pub const SET_RENDER_ENABLE_C: u32 = 0x1558;
pub const SET_RENDER_ENABLE_OVERRIDE: u32 = 0x1944;

/// Whether a clear, draw or launch happens: SET_RENDER_ENABLE_OVERRIDE (always, never, or as SET_RENDER_ENABLE_C
/// says), whose modes compare the two 64-bit values at the address in A and B and 16 bytes on. `register` reads
/// the engine's registers.
pub(crate) fn render_enabled(
    register: impl Fn(u32) -> u32,
    method: Method,
    context: &Context,
) -> Result<bool, EngineError> {
    match register(SET_RENDER_ENABLE_OVERRIDE) & 3 {
        1 => return Ok(true),
        2 => return Ok(false),
        _ => {}
    }
    let mode = register(SET_RENDER_ENABLE_C) & 7;
    let address = u64::from(register(SET_RENDER_ENABLE_A) & 0xff) << 32 | u64::from(register(SET_RENDER_ENABLE_A + 4));
    let values = || -> Result<(u64, u64), EngineError> {
        let mut bytes = [0u8; 24];
        context.read(address, &mut bytes).map_err(|e| method.memory(e))?;
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
        Ok((word(0), word(16)))
    };
    match mode {
        0 => Ok(false),
        1 => Ok(true),
        3 => values().map(|(a, b)| a == b),
        4 => values().map(|(a, b)| a != b),
        _ => Err(method.unimplemented(format!("render enable mode {mode} (CONDITIONAL)"))),
    }
}
