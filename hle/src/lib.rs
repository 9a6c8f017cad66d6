//! Tandem's Horizon layer: loaders for Switch executables and the kernel that runs them.

pub mod loader;
