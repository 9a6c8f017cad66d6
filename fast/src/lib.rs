//! Tandem's fast path: A64 lifted to host code through Cranelift, with exactly the reference's budgets and exits.
//!
//! Architecture invariants:
//! - `FastEngine` is an `Engine`: for any state, memory and budget it returns what `Interpreter` returns, with
//!   the same retired count. Whatever the lifter does not compile runs on the reference interpreter, one
//!   instruction at a time; a guest access the host refuses is rerun there from the last replay point (`fault`).
//! - Only `code_memory`, `fault` (the entry stub and the signal handler), the block call in `engine`, and the
//!   SSE4.2 helper in `runtime` are `unsafe`.
//! - Compiled code depends only on guest bytes of pages that are executable, not writable and not views of shared
//!   pages (which another, writable address may change: code memory); anything that changes such bytes or
//!   permissions must call `Engine::invalidate`. `lift::compilable` is the one test of it, for every page a
//!   region holds.
//! - Compile threads (`background`) see only lifted IR: they read no guest memory and no engine state, and what
//!   they return is installed on the engine's thread, only while its pages stand.

mod background;
pub mod code_cache;
mod code_memory;
pub mod edges;
mod engine;
mod fault;
pub mod lift;
mod profiling;
pub mod runtime;

/// A deliberate lifter bug, for the tests that prove the differential tools find and pinpoint one. Compiled only
/// with the `planted-bug` feature (the diff crate's tests enable it); inert until a test arms it.
#[cfg(feature = "planted-bug")]
pub mod planted_bug {
    use std::sync::atomic::{AtomicU32, Ordering};

    /// The destination register of ADD/SUB (immediate) #1 whose immediate the lifter gets wrong, or `u32::MAX`.
    static REGISTER: AtomicU32 = AtomicU32::new(u32::MAX);

    /// Makes every fast path of the process lift `ADD/SUB Rd, Rn, #1` with `Rd = register` as `#0`.
    pub fn arm(register: u32) {
        REGISTER.store(register, Ordering::SeqCst);
    }

    pub(crate) fn off_by_one(rd: u32, imm: u64) -> bool {
        imm == 1 && REGISTER.load(Ordering::SeqCst) == rd
    }
}

pub use engine::{BlockRun, CodeBytes, CompileStats, FastEngine, FastError, host_isa};
