//! Texture memory: how the GPU lays surfaces out in memory (and later their formats and decoders).

pub mod block_linear;
pub mod format;
pub mod surface;
