//! Tandem's GPU. Phase 1 of the shader translator: decoders, disassemblers and assemblers for the two shader
//! instruction sets, Maxwell SM5x (Switch) and Ampere SM86 (Switch 2), each generated from one declarative table
//! and checked against NVIDIA's `nvdisasm`.
//!
//! Architecture invariant: nothing here knows Vulkan; the translator hands SPIR-V to a back end.

pub mod sass;
pub mod shader;
pub mod vulkan;
