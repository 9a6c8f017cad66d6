//! Tandem's GPU. So far: `sass`, the two shader instruction sets, Maxwell SM5x (Switch) and Ampere SM86
//! (Switch 2), each decoded from one declarative table, disassembled as `nvdisasm` does, and run by the
//! SASS interpreter, the shader reference path; `shader`, the translator to SPIR-V; `vulkan`, the compute
//! runner the back ends will build on; `mmu`, GPU virtual addresses to guest memory.
//!
//! Architecture invariant: the translator knows nothing of Vulkan; it hands SPIR-V to a back end.

pub mod backend;
pub mod channel;
pub mod engine;
pub mod fifo;
pub mod front_end;
pub mod mmu;
pub mod sass;
pub mod shader;
pub mod syncpoint;
pub mod texture;
pub mod trace;
pub mod vulkan;
