//! `VulkanError`: every way the compute runner can fail, each saying what failed and, where there is one, what to do.

use ash::vk;
use std::fmt;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum VulkanError {
    #[error("the Vulkan device cannot clear and copy images of format {0}")]
    UnsupportedFormat(String),
    #[error(
        "the Vulkan device {0} cannot draw (it needs a graphics queue and Vulkan 1.3's dynamic rendering): pick another \
         with TANDEM_VULKAN_DEVICE, or update its driver"
    )]
    NoDraws(String),
    #[error(
        "the Vulkan device {device} lacks {feature}, which {needed_by} needs: pick another with TANDEM_VULKAN_DEVICE"
    )]
    MissingFeature { device: String, feature: &'static str, needed_by: &'static str },
    #[error(
        "no Vulkan loader found ({0}): install libvulkan1 and a driver: mesa-vulkan-drivers (lavapipe) or a GPU driver"
    )]
    NoLoader(String),
    #[error("the Vulkan loader is version {0}; Tandem needs 1.2 or newer: update libvulkan1")]
    OldLoader(String),
    #[error("no Vulkan driver found: install mesa-vulkan-drivers (lavapipe) or a GPU driver")]
    NoDevice,
    #[error(
        "no Vulkan device has what Tandem needs (Vulkan 1.2, bufferDeviceAddress, shaderInt64, a compute queue): {0}"
    )]
    NoSuitableDevice(String),
    #[error("TANDEM_VULKAN_DEVICE={wanted:?} names none of the suitable Vulkan devices: {available}")]
    NoMatchingDevice { wanted: String, available: String },
    #[error("{call} failed: {}", Described(*result))]
    Call { call: &'static str, result: vk::Result },
    #[error("creating the memory allocator failed: {0}")]
    Allocator(gpu_allocator::AllocationError),
    #[error("allocating {size} bytes of host-visible memory failed: {source}")]
    Allocation { size: u64, source: gpu_allocator::AllocationError },
    #[error("a buffer must hold at least one byte")]
    EmptyBuffer,
    #[error("{len} bytes at offset {offset} do not fit in a {size}-byte buffer")]
    OutOfBounds { offset: u64, len: u64, size: u64 },
    #[error("the buffer belongs to another ComputeDevice")]
    ForeignBuffer,
    #[error("invalid SPIR-V at word {at}: {reason}")]
    InvalidSpirv { at: usize, reason: String },
    #[error("the SPIR-V module is version {major}.{minor}, newer than Vulkan {vulkan} accepts (1.{accepted} at most)")]
    SpirvTooNew { major: u32, minor: u32, vulkan: String, accepted: u32 },
    #[error("the SPIR-V module has no compute entry point named {entry:?} (it has: {available})")]
    NoEntryPoint { entry: String, available: String },
    #[error("the shader declares capability {capability}, but the device lacks {feature}")]
    MissingCapability { capability: &'static str, feature: &'static str },
    #[error(
        "the shader's resource %{id} is {what}; the runner binds only storage buffers at set 0, bindings 0..{bound}"
    )]
    UnboundResource { id: u32, what: String, bound: usize },
    #[error(
        "the driver could not build a compute pipeline from entry point {entry:?}: {} (the module is probably invalid \
         or uses something the device lacks: check it with spirv-val, or run with TANDEM_VULKAN_VALIDATION=1)",
        Described(*result)
    )]
    Pipeline { entry: String, result: vk::Result },
    #[error("the device cannot run with subgroup size {size}: {reason}")]
    SubgroupSize { size: u32, reason: String },
    #[error("a dispatch of {groups:?} workgroups exceeds the device's limit of {limit:?}")]
    TooManyGroups { groups: [u32; 3], limit: [u32; 3] },
    #[error(
        "the module's workgroup of {size:?} invocations exceeds the device's limit of {limit:?} and {invocations} in all"
    )]
    WorkgroupTooLarge { size: [u32; 3], limit: [u32; 3], invocations: u32 },
    #[error("{count} storage buffers exceed the device's limit of {limit} per shader")]
    TooManyBindings { count: usize, limit: u32 },
    #[error(
        "buffer {index} holds {size} bytes, more than one storage-buffer binding may span ({limit}); reach it by address instead"
    )]
    BindingTooLarge { index: usize, size: u64, limit: u32 },
    #[error(
        "the dispatch did not finish within {0:?} (an endless loop in the shader?); Vulkan cannot cancel it, so this \
         device is unusable now and its memory stays allocated until the process ends"
    )]
    Timeout(Duration),
    #[error("the Vulkan device was lost (the driver reset it or crashed) during {0}; create a new ComputeDevice")]
    DeviceLost(&'static str),
    #[error(
        "this device is unusable after an earlier dispatch timed out or lost the device; create a new ComputeDevice"
    )]
    Unusable,
    #[error(
        "an image of {width}x{height}x{depth}, {layers} layers is past what the Vulkan device makes ({limit}); the \
         guest's surface is larger than any this device can hold"
    )]
    ImageTooLarge { width: u32, height: u32, depth: u32, layers: u32, limit: String },
}

impl VulkanError {
    /// The error for a failed Vulkan call; a lost device gets its own variant.
    pub(super) fn call(call: &'static str) -> impl FnOnce(vk::Result) -> VulkanError {
        move |result| match result {
            vk::Result::ERROR_DEVICE_LOST => VulkanError::DeviceLost(call),
            result => VulkanError::Call { call, result },
        }
    }
}

/// A `vk::Result` as its name and the specification's description ("ERROR_OUT_OF_DEVICE_MEMORY (A device memory
/// allocation has failed)").
struct Described(vk::Result);

impl fmt::Display for Described {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = format!("{:?}", self.0);
        let description = self.0.to_string();
        if description == name { write!(f, "{name}") } else { write!(f, "{name} ({description})") }
    }
}
