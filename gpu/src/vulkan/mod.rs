//! A small Vulkan compute runner: a device, host-visible storage buffers with device addresses, and dispatches of
//! SPIR-V compute modules. It exists to run what the shader translator makes (compute modules translated from
//! SASS) so that tests can compare the results with the SASS interpreter, on lavapipe (Mesa's CPU Vulkan) and on
//! NVIDIA GPUs alike; it is also the first piece of the Vulkan plumbing the back ends will share.
//!
//! Invariants:
//! - One device and one queue (the first family with compute). One lock guards the queue, and everything that
//!   touches device memory from the host (`write`, `read`, zeroing a new buffer, freeing a buffer) holds it, so the
//!   host never touches memory while a dispatch runs.
//! - Buffers are host-visible, host-coherent storage buffers with a device address (256-byte aligned), zeroed at
//!   creation: no staging copies, no flushes.
//! - `dispatch` builds everything it needs (module, layouts, pipeline, descriptors, command buffer, fence), submits,
//!   waits for completion and destroys it all: no caches, no state carried from one dispatch to the next.
//! - No panics: every failure is a `VulkanError`. A module is checked (`spirv.rs`) for what a driver could crash on
//!   before the driver sees it: structure, entry point, capabilities against features, bindings against buffers.
//! - Everything is released in reverse order of creation, by `Drop`. The one exception is a dispatch that timed
//!   out: Vulkan cannot cancel it, so its device and memory are leaked rather than freed under a running shader.

mod device;
mod dispatch;
mod draw;
mod error;
mod image;
mod multisample;
mod probe;
mod sampled;
mod spirv;
mod storage;

pub use device::{DeviceOptions, DeviceType, Features, SubgroupOperations};
pub use dispatch::DispatchOptions;
pub use draw::{Blend, ColorTarget, DepthAttachment, DrawJob, DrawStage, Drawn, LineRasterization, StageImages};
pub use error::VulkanError;
pub use multisample::Multisampling;
pub use sampled::{Sampling, TexelBuffer, Texture, TexturePool, TextureSlot};
pub use storage::StorageImage;

use ash::vk;
use device::{Shared, State, lock};
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use std::fmt;
use std::sync::Arc;

/// The image view type of an image of `dim`, an array when `array` (a 3D image is never one).
pub fn view_type(dim: crate::shader::ir::TextureDim, array: bool) -> vk::ImageViewType {
    use crate::shader::ir::TextureDim;
    match (dim, array) {
        (TextureDim::D1, false) => vk::ImageViewType::TYPE_1D,
        (TextureDim::D1, true) => vk::ImageViewType::TYPE_1D_ARRAY,
        (TextureDim::D2, false) => vk::ImageViewType::TYPE_2D,
        (TextureDim::D2, true) => vk::ImageViewType::TYPE_2D_ARRAY,
        (TextureDim::Cube, false) => vk::ImageViewType::CUBE,
        (TextureDim::Cube, true) => vk::ImageViewType::CUBE_ARRAY,
        (TextureDim::D3, _) => vk::ImageViewType::TYPE_3D,
    }
}

/// The Vulkan comparison of a guest one (the 3D class's depth, stencil and alpha tests, samplers' compares).
pub fn compare_op(comparison: crate::texture::descriptor::Comparison) -> vk::CompareOp {
    use crate::texture::descriptor::Comparison;
    use vk::CompareOp as C;
    match comparison {
        Comparison::Never => C::NEVER,
        Comparison::Less => C::LESS,
        Comparison::Equal => C::EQUAL,
        Comparison::LessOrEqual => C::LESS_OR_EQUAL,
        Comparison::Greater => C::GREATER,
        Comparison::NotEqual => C::NOT_EQUAL,
        Comparison::GreaterOrEqual => C::GREATER_OR_EQUAL,
        Comparison::Always => C::ALWAYS,
    }
}

/// Every buffer's device address is a multiple of this, whatever the driver's own alignment.
pub const ADDRESS_ALIGNMENT: u64 = 256;

/// A Vulkan device that runs compute shaders. Buffers may outlive it (they keep its objects alive). It is `Send` and
/// `Sync`; dispatches from several threads take turns. A clone is another handle to the same device.
#[derive(Clone)]
pub struct ComputeDevice {
    shared: Arc<Shared>,
    name: String,
    features: Features,
}

impl fmt::Debug for ComputeDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ComputeDevice").field("name", &self.name).finish_non_exhaustive()
    }
}

impl ComputeDevice {
    /// Opens a device: the one `TANDEM_VULKAN_DEVICE` names (a part of its name) if set, else the first discrete GPU,
    /// integrated GPU, ..., CPU implementation (lavapipe), among those with Vulkan 1.2, `bufferDeviceAddress`,
    /// `shaderInt64` and a compute queue. `TANDEM_VULKAN_VALIDATION=1` enables the validation layer when installed.
    pub fn new() -> Result<ComputeDevice, VulkanError> {
        ComputeDevice::with_options(&DeviceOptions::from_env())
    }

    /// The device the crate's unit tests share, opened once: many devices opened at once by parallel tests hung
    /// NVIDIA's driver (threads waiting on each other inside it), and one is all the integration tests use.
    #[cfg(test)]
    pub(crate) fn shared_for_tests() -> ComputeDevice {
        static DEVICE: std::sync::OnceLock<ComputeDevice> = std::sync::OnceLock::new();
        DEVICE
            .get_or_init(|| ComputeDevice::new().expect("a Vulkan device (cargo xtask setup installs lavapipe)"))
            .clone()
    }

    pub fn with_options(options: &DeviceOptions) -> Result<ComputeDevice, VulkanError> {
        let opened = device::open(options)?;
        Ok(ComputeDevice { shared: opened.shared, name: opened.name, features: opened.features })
    }

    /// The device's name, as the driver gives it ("llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H200").
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn features(&self) -> &Features {
        &self.features
    }

    /// A new buffer of `size` bytes, all zero, that shaders reach as a storage buffer or through its address.
    pub fn buffer(&self, size: u64) -> Result<Buffer, VulkanError> {
        if size == 0 {
            return Err(VulkanError::EmptyBuffer);
        }
        drop(self.shared.ready()?);
        let device = &self.shared.device;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                    | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                    | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid create info. From here on `Buffer::drop` releases what exists.
        let handle = unsafe { device.create_buffer(&info, None) }.map_err(VulkanError::call("vkCreateBuffer"))?;
        let mut buffer = Buffer { shared: self.shared.clone(), handle, allocation: None, size, address: 0 };

        // SAFETY: a buffer of this device.
        let mut requirements = unsafe { device.get_buffer_memory_requirements(handle) };
        requirements.alignment = requirements.alignment.max(ADDRESS_ALIGNMENT);
        let description = AllocationCreateDesc {
            name: "tandem compute buffer",
            requirements,
            // Host-visible and coherent; device-local as well where the device has such memory (resizable BAR).
            location: MemoryLocation::CpuToGpu,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        };
        let allocation = lock(&self.shared.allocator)
            .as_mut()
            .ok_or(VulkanError::Unusable)?
            .allocate(&description)
            .map_err(|source| VulkanError::Allocation { size, source })?;
        // SAFETY: the memory is only bound to this buffer, which `Buffer::drop` destroys before freeing it.
        let (memory, offset) = (unsafe { allocation.memory() }, allocation.offset());
        let mapped = allocation.mapped_ptr();
        buffer.allocation = Some(allocation);
        let Some(mapped) = mapped else {
            let source = gpu_allocator::AllocationError::FailedToMap("the memory is not mapped".into());
            return Err(VulkanError::Allocation { size, source });
        };
        // SAFETY: the memory was allocated for this buffer's requirements and is not bound yet.
        unsafe { device.bind_buffer_memory(handle, memory, offset) }
            .map_err(VulkanError::call("vkBindBufferMemory"))?;
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS and is bound to memory allocated with
        // DEVICE_ADDRESS (the allocator's `buffer_device_address`).
        buffer.address =
            unsafe { device.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(handle)) };
        let _queue = self.shared.ready()?;
        // SAFETY: the mapping spans at least `size` bytes, and no dispatch runs while the queue lock is held.
        unsafe { std::ptr::write_bytes(mapped.as_ptr().cast::<u8>(), 0, size as usize) };
        Ok(buffer)
    }

    /// Copies `bytes` into `buffer` at `offset`.
    pub fn write(&self, buffer: &Buffer, offset: u64, bytes: &[u8]) -> Result<(), VulkanError> {
        let at = self.host_range(buffer, offset, bytes.len() as u64)?;
        let _queue = self.shared.ready()?;
        // SAFETY: `host_range` checked that the range lies within the mapping; the lock keeps dispatches out.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, bytes.len()) };
        Ok(())
    }

    /// The whole content of `buffer`.
    pub fn read(&self, buffer: &Buffer) -> Result<Vec<u8>, VulkanError> {
        let at = self.host_range(buffer, 0, buffer.size)?;
        let mut bytes = vec![0; buffer.size as usize];
        let _queue = self.shared.ready()?;
        // SAFETY: as in `write`.
        unsafe { std::ptr::copy_nonoverlapping(at, bytes.as_mut_ptr(), bytes.len()) };
        Ok(bytes)
    }

    /// The host address of `len` bytes at `offset` in `buffer`, once they are known to lie inside it.
    fn host_range(&self, buffer: &Buffer, offset: u64, len: u64) -> Result<*mut u8, VulkanError> {
        self.owns(buffer)?;
        if offset.checked_add(len).is_none_or(|end| end > buffer.size) {
            return Err(VulkanError::OutOfBounds { offset, len, size: buffer.size });
        }
        let mapped = buffer.allocation.as_ref().and_then(Allocation::mapped_ptr).ok_or(VulkanError::Unusable)?;
        // SAFETY: `offset` lies within the mapping, which spans the buffer.
        Ok(unsafe { mapped.as_ptr().cast::<u8>().add(offset as usize) })
    }

    fn owns(&self, buffer: &Buffer) -> Result<(), VulkanError> {
        if Arc::ptr_eq(&self.shared, &buffer.shared) { Ok(()) } else { Err(VulkanError::ForeignBuffer) }
    }
}

/// A storage buffer in host-visible memory with a device address. Dropping it frees it (once no dispatch runs).
pub struct Buffer {
    shared: Arc<Shared>,
    handle: vk::Buffer,
    /// `None` only while the buffer is being made.
    allocation: Option<Allocation>,
    size: u64,
    address: u64,
}

impl Buffer {
    /// The address shaders reach it at (`PhysicalStorageBuffer`, GL_EXT_buffer_reference).
    pub fn address(&self) -> u64 {
        self.address
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer {{ address: {:#x}, size: {} }}", self.address, self.size)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let queue = lock(&self.shared.queue);
        if queue.state == State::Wedged {
            // A shader that never finished may still use this memory.
            std::mem::forget(self.allocation.take());
            return;
        }
        // SAFETY: the queue lock is held, so no dispatch is running; none is pending either (dispatches wait).
        unsafe { self.shared.device.destroy_buffer(self.handle, None) };
        if let Some(allocation) = self.allocation.take()
            && let Some(allocator) = lock(&self.shared.allocator).as_mut()
            && let Err(error) = allocator.free(allocation)
        {
            tracing::warn!("freeing a Vulkan buffer's memory failed: {error}");
        }
    }
}
