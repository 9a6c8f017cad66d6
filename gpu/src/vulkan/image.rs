//! Images for the reference back end: what the device itself makes of a clear, read back tightly packed. The
//! device encodes the clear value in the image's format (its rounding, its float conversions), which is the
//! point: the bytes are a real GPU's.
//!
//! Like `dispatch`, each call builds what it needs, waits for the device, and destroys it all.

use super::device::{State, lock};
use super::{ComputeDevice, VulkanError};
use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use std::time::Duration;

/// How long one clear may take before the device is judged hung.
const TIMEOUT: Duration = Duration::from_secs(20);

/// What a clear writes.
#[derive(Clone, Copy)]
enum Clear {
    Color(vk::ClearColorValue),
    Depth(vk::ClearDepthStencilValue),
}

/// The objects of one call, destroyed in reverse order however it ends; null handles are skipped.
struct ImageObjects<'a> {
    device: &'a ComputeDevice,
    image: vk::Image,
    allocation: Option<Allocation>,
    command_buffer: vk::CommandBuffer,
    pool: vk::CommandPool,
    fence: vk::Fence,
}

impl Drop for ImageObjects<'_> {
    fn drop(&mut self) {
        let shared = &self.device.shared;
        let device = &shared.device;
        // SAFETY: the work has finished (the fence was waited on), failed before submitting, or lost the device;
        // a timed-out call forgets its objects instead. Destroying a null handle does nothing.
        unsafe {
            device.destroy_fence(self.fence, None);
            if self.command_buffer != vk::CommandBuffer::null() {
                device.free_command_buffers(self.pool, &[self.command_buffer]);
            }
            device.destroy_image(self.image, None);
        }
        if let Some(allocation) = self.allocation.take()
            && let Some(allocator) = lock(&shared.allocator).as_mut()
        {
            let _ = allocator.free(allocation);
        }
    }
}

impl ComputeDevice {
    /// Whether the device can clear and copy images of `format` with optimal tiling.
    pub fn supports_transfer_format(&self, format: vk::Format) -> bool {
        let wanted = vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST;
        self.shared.format_features(format).contains(wanted)
    }

    /// A `width` x `height` image of `format` cleared to `value` by the device, its texels read back row by row
    /// with no padding (`bytes_per_texel` each).
    pub fn clear_color_image(
        &self,
        format: vk::Format,
        width: u32,
        height: u32,
        bytes_per_texel: u64,
        value: vk::ClearColorValue,
    ) -> Result<Vec<u8>, VulkanError> {
        self.clear_image(format, width, height, bytes_per_texel, Clear::Color(value))
    }

    /// A `width` x `height` image of the depth-only `format` cleared to `depth` by the device, its texels read
    /// back (the depth aspect, as Vulkan lays it out in buffers: D16 in 2 bytes, X8_D24 and D32F in 4).
    pub fn clear_depth_image(
        &self,
        format: vk::Format,
        width: u32,
        height: u32,
        bytes_per_texel: u64,
        depth: f32,
    ) -> Result<Vec<u8>, VulkanError> {
        let value = vk::ClearDepthStencilValue { depth, stencil: 0 };
        self.clear_image(format, width, height, bytes_per_texel, Clear::Depth(value))
    }

    fn clear_image(
        &self,
        format: vk::Format,
        width: u32,
        height: u32,
        bytes_per_texel: u64,
        value: Clear,
    ) -> Result<Vec<u8>, VulkanError> {
        let aspect = match value {
            Clear::Color(_) => vk::ImageAspectFlags::COLOR,
            Clear::Depth(_) => vk::ImageAspectFlags::DEPTH,
        };
        if !self.supports_transfer_format(format) {
            return Err(VulkanError::UnsupportedFormat(format!("{format:?}")));
        }
        let size = u64::from(width) * u64::from(height) * bytes_per_texel;
        let readback = self.buffer(size.max(1))?;
        let shared = &self.shared;
        let device = &shared.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width, height, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let mut queue = shared.ready()?;
        let mut objects = ImageObjects {
            device: self,
            image: vk::Image::null(),
            allocation: None,
            command_buffer: vk::CommandBuffer::null(),
            pool: queue.pool,
            fence: vk::Fence::null(),
        };
        // SAFETY (this block): valid create infos; every object is destroyed by `objects` after the fence.
        unsafe {
            objects.image = device.create_image(&info, None).map_err(VulkanError::call("vkCreateImage"))?;
            let requirements = device.get_image_memory_requirements(objects.image);
            let description = AllocationCreateDesc {
                name: "tandem reference clear",
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            };
            let allocation = lock(&shared.allocator)
                .as_mut()
                .ok_or(VulkanError::Unusable)?
                .allocate(&description)
                .map_err(|source| VulkanError::Allocation { size: requirements.size, source })?;
            let (memory, offset) = (allocation.memory(), allocation.offset());
            objects.allocation = Some(allocation);
            device.bind_image_memory(objects.image, memory, offset).map_err(VulkanError::call("vkBindImageMemory"))?;

            let allocate = vk::CommandBufferAllocateInfo::default()
                .command_pool(queue.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let commands =
                device.allocate_command_buffers(&allocate).map_err(VulkanError::call("vkAllocateCommandBuffers"))?[0];
            objects.command_buffer = commands;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            device.begin_command_buffer(commands, &begin).map_err(VulkanError::call("vkBeginCommandBuffer"))?;
            let range = vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(1);
            let to_clear = vk::ImageMemoryBarrier::default()
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(objects.image)
                .subresource_range(range);
            device.cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_clear],
            );
            match &value {
                Clear::Color(color) => device.cmd_clear_color_image(
                    commands,
                    objects.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    color,
                    &[range],
                ),
                Clear::Depth(depth) => device.cmd_clear_depth_stencil_image(
                    commands,
                    objects.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    depth,
                    &[range],
                ),
            }
            let to_copy = to_clear
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
            device.cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_copy],
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers::default().aspect_mask(aspect).layer_count(1))
                .image_extent(vk::Extent3D { width, height, depth: 1 });
            device.cmd_copy_image_to_buffer(
                commands,
                objects.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                readback.handle,
                &[region],
            );
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            device.cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
            device.end_command_buffer(commands).map_err(VulkanError::call("vkEndCommandBuffer"))?;
            objects.fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(VulkanError::call("vkCreateFence"))?;
            let command_buffers = [commands];
            let submits = [vk::SubmitInfo::default().command_buffers(&command_buffers)];
            device.queue_submit(queue.queue, &submits, objects.fence).map_err(VulkanError::call("vkQueueSubmit"))?;
            match device.wait_for_fences(&[objects.fence], true, TIMEOUT.as_nanos() as u64) {
                Ok(()) => {}
                Err(vk::Result::ERROR_DEVICE_LOST) => return Err(VulkanError::DeviceLost("vkWaitForFences")),
                Err(result) => {
                    queue.state = State::Wedged;
                    std::mem::forget(objects);
                    return Err(if result == vk::Result::TIMEOUT {
                        VulkanError::Timeout(TIMEOUT)
                    } else {
                        VulkanError::call("vkWaitForFences")(result)
                    });
                }
            }
        }
        drop(objects);
        drop(queue);
        let mut bytes = self.read(&readback)?;
        bytes.truncate(size as usize);
        Ok(bytes)
    }
}
