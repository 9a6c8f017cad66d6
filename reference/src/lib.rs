//! Tandem's reference path: the A64 decode table, the CPU state, guest memory and a readable interpreter.
//!
//! Architecture invariants:
//! - This crate knows nothing of Cranelift, Horizon or the GPU: it is the executable specification of an
//!   EL0 AArch64 core and the memory it sees.
//! - `decode` is generated from `a64.decode`; no other code tells instructions apart by testing bits.
//! - `unsafe` lives only in `memory`.

pub mod decode;
pub mod disasm;
pub mod engine;
pub mod float;
pub mod interp;
pub mod memory;
pub mod state;
pub mod sysreg;

pub use engine::{Engine, Exit, GuestClock, RunResult, UndefinedReason};
pub use interp::{Interpreter, Unpredictable};
pub use memory::{Access, FaultReason, GuestMemory, MemoryFault, Perm};
pub use state::{CpuState, Flags};
