//! Texture memory: how the GPU lays surfaces out in memory, their formats, and the CPU decoders of compressed
//! formats the reference back end uses.

pub mod astc;
pub mod bc;
pub mod bc6h;
pub mod bc7;
pub mod block_linear;
pub mod descriptor;
pub mod etc;
pub mod format;
pub mod formatted;
pub mod layout;
pub mod surface;
pub mod texel;
