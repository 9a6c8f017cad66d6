//! Tandem's fast path: A64 lifted to host code through Cranelift, with exactly the reference's budgets and exits.
//!
//! Architecture invariants:
//! - `FastEngine` is an `Engine`: for any state, memory and budget it returns what `Interpreter` returns, with
//!   the same retired count. Whatever the lifter does not compile (or cannot check inline) runs on the reference
//!   interpreter, one instruction at a time.
//! - Only `code_memory`, the block call and entry-point cast in `engine`, and the SSE4.2 helper in `runtime` are
//!   `unsafe`.
//! - Compiled code depends only on guest bytes of pages that are executable and not writable; anything that
//!   changes such bytes or permissions must call `Engine::invalidate`.

pub mod code_cache;
mod code_memory;
mod engine;
pub mod lift;
pub mod runtime;

pub use engine::{BlockRun, CompileStats, FastEngine, FastError, host_isa};
