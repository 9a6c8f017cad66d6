//! Executable host memory for compiled regions: append-only chunks mapped read/write/execute.
//!
//! Invariants (this module and `engine::call_block` are the fast path's only `unsafe`):
//! - A chunk is one anonymous private mapping owned by `CodeMemory` and unmapped only in `Drop`, so a pointer
//!   `install` returned stays valid, and its bytes unchanged, for as long as the `CodeMemory` lives.
//! - Bytes are only appended after the chunk's last installed code, never over it.
//!
//! Code dropped by invalidation is reclaimed by moving what is still live into a fresh `CodeMemory`
//! (`install_copy`) and dropping the old one, which compiled code allows: it is relocation-free (it reaches
//! everything through its context argument and the chain table, never by address), so its bytes run the same
//! anywhere. The engine does that only where no compiled code runs (`FastEngine::reclaim_code`).

use std::ptr::NonNull;

/// Chunk size: large enough that most programs need one or two.
const CHUNK_SIZE: usize = 8 << 20;
/// Start of every region, as the host's instruction fetch likes it.
const CODE_ALIGNMENT: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum CodeMemoryError {
    #[error("the host refused executable memory ({size} bytes): {error}")]
    Host { size: usize, error: std::io::Error },
    #[error("no code of {length} bytes is installed at {start:#x} to copy")]
    NotInstalled { start: u64, length: usize },
}

struct Chunk {
    base: NonNull<u8>,
    size: usize,
    used: usize,
}

#[derive(Default)]
pub struct CodeMemory {
    chunks: Vec<Chunk>,
}

// SAFETY: the chunks are owned mappings; nothing else aliases them mutably.
unsafe impl Send for CodeMemory {}

impl CodeMemory {
    /// Copies `code` into executable memory and returns where it starts.
    pub fn install(&mut self, code: &[u8]) -> Result<*const u8, CodeMemoryError> {
        let fits = |chunk: &Chunk| chunk.used.next_multiple_of(CODE_ALIGNMENT) + code.len() <= chunk.size;
        if !self.chunks.last().is_some_and(fits) {
            let size = CHUNK_SIZE.max(code.len().next_multiple_of(4096));
            // SAFETY: a fresh anonymous mapping; the result is checked before use.
            let address = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    size,
                    libc::PROT_READ | libc::PROT_WRITE | libc::PROT_EXEC,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if address == libc::MAP_FAILED {
                return Err(CodeMemoryError::Host { size, error: std::io::Error::last_os_error() });
            }
            let base = NonNull::new(address.cast()).expect("mmap does not return null on success");
            self.chunks.push(Chunk { base, size, used: 0 });
        }
        let chunk = self.chunks.last_mut().expect("a chunk with room was just ensured");
        let offset = chunk.used.next_multiple_of(CODE_ALIGNMENT);
        // SAFETY: `offset + code.len() <= size` (checked by `fits`), and these bytes are past every installed region.
        let start = unsafe {
            let start = chunk.base.as_ptr().add(offset);
            std::ptr::copy_nonoverlapping(code.as_ptr(), start, code.len());
            start
        };
        chunk.used = offset + code.len();
        Ok(start)
    }

    /// Copies the `length` bytes of code that `from` installed at `start` into this memory, and returns where
    /// the copy starts.
    pub fn install_copy(&mut self, from: &CodeMemory, start: u64, length: usize) -> Result<*const u8, CodeMemoryError> {
        let holds = |chunk: &&Chunk| {
            let base = chunk.base.as_ptr() as u64;
            start >= base && start.checked_add(length as u64).is_some_and(|end| end <= base + chunk.used as u64)
        };
        if !from.chunks.iter().any(|chunk| holds(&chunk)) {
            return Err(CodeMemoryError::NotInstalled { start, length });
        }
        // SAFETY: the bytes lie inside the installed part of one of `from`'s chunks (checked above), which stays
        // mapped and unchanged while `from` is borrowed.
        let code = unsafe { std::slice::from_raw_parts(start as *const u8, length) };
        self.install(code)
    }

    /// Bytes of host memory mapped for code.
    pub fn mapped_bytes(&self) -> usize {
        self.chunks.iter().map(|chunk| chunk.size).sum()
    }

    /// Bytes of code installed, the alignment between regions included.
    pub fn installed_bytes(&self) -> usize {
        self.chunks.iter().map(|chunk| chunk.used).sum()
    }
}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        for chunk in &self.chunks {
            // SAFETY: each chunk is a mapping of `size` bytes made by `install`; no pointer into it is used after
            // the engine that owns this `CodeMemory` is gone.
            unsafe { libc::munmap(chunk.base.as_ptr().cast(), chunk.size) };
        }
    }
}
