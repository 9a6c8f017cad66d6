//! Tandem's Horizon layer: loaders for Switch executables, the program formats users hand Tandem, and the kernel
//! that runs them.
//!
//! Architecture invariant: nothing here knows which CPU path runs the guest; the kernel drives any
//! `tandem_reference::Engine`.

pub mod input_log;
pub mod ipc;
pub mod kernel;
pub mod linux;
pub mod loader;
pub mod placement;
pub mod program;
pub mod report;
pub mod service;

/// Lower-case hex of `bytes`, for digests and ids in messages.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
