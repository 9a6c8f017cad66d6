//! The shader translator: NVIDIA machine code to SPIR-V. Decode (the `sass` tables) -> IR (`ir`, one for both
//! instruction sets; `sm86` lowers into it) -> SPIR-V (`spirv`). The SASS interpreter (`sass::exec`) is the
//! executable spec the translation is checked against, on lavapipe and on NVIDIA hardware.
//!
//! So far: compute kernels of both instruction sets (SM5x lowered by `sm5x`, SM86 by `sm86`), with the
//! instructions those list; everything else is a `TranslateError` naming the instruction, the kernel and the
//! offset: `UnknownOpcode` for an opcode with no lowering, `Unimplemented` for a form of one that has.

pub mod ir;
mod lower;
mod sm5x;
mod sm86;
mod spirv;

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
}

/// A translated compute kernel and what a back end must bind for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub spirv: Vec<u32>,
    /// The constant banks the shader reads, in binding order: bank `constant_banks[i]` is the storage buffer
    /// at set 0, binding i.
    pub constant_banks: Vec<u8>,
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

/// Translates a compute kernel for a workgroup of `block` threads with `local_bytes` of local memory each.
pub fn translate_compute(
    kernel: &KernelImage,
    block: [u32; 3],
    local_bytes: u32,
    global: &GlobalMemory,
) -> Result<Translation, TranslateError> {
    let program = match kernel.isa {
        Isa::Sm86 => sm86::lower(kernel, local_bytes)?,
        Isa::Sm5x => sm5x::lower(kernel, local_bytes)?,
    };
    let constant_banks = program.constant_banks.clone();
    Ok(Translation { spirv: spirv::emit_compute(&program, block, global), constant_banks })
}
