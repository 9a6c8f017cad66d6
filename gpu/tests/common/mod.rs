//! What several of the GPU test crates share (each includes it with `mod common;` and uses what it needs).
#![allow(dead_code)]

use std::process::Command;
use std::sync::OnceLock;
use tandem_gpu::vulkan::ComputeDevice;

/// Whether `spirv-val` accepts the module for Vulkan 1.3; Err: what it said, and where the module was kept.
pub fn spirv_val(name: &str, spirv: &[u32]) -> Result<(), String> {
    let path = std::env::temp_dir().join(format!("tandem-test-{}-{name}-{}.spv", std::process::id(), spirv.len()));
    std::fs::write(&path, spirv.iter().flat_map(|word| word.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let output = Command::new("spirv-val").args(["--target-env", "vulkan1.3"]).arg(&path).output();
    let output = output.unwrap_or_else(|e| panic!("spirv-val (apt install spirv-tools): {e}"));
    if !output.status.success() {
        return Err(format!("spirv-val rejects {}: {}", path.display(), String::from_utf8_lossy(&output.stderr)));
    }
    std::fs::remove_file(&path).unwrap();
    Ok(())
}

/// The one device a test crate's tests share: NVIDIA's driver (an H200's) hung now and then with several short
/// tests opening, dispatching on and closing devices of their own at once.
pub fn device() -> &'static ComputeDevice {
    static DEVICE: OnceLock<ComputeDevice> = OnceLock::new();
    DEVICE.get_or_init(|| ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)"))
}
