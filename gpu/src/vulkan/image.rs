//! Images for the reference back end and its tests: what the device itself makes of a clear, or of compressed
//! texels, read back tightly packed. The device encodes the clear value in the image's format (its rounding, its
//! float conversions) and decodes compressed blocks, which is the point: the bytes are a real GPU's.
//!
//! Like `dispatch`, each call builds what it needs, waits for the device, and destroys it all.

use super::device::{State, lock};
use super::{Buffer, ComputeDevice, VulkanError};
use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use std::time::Duration;

/// How long one operation may take before the device is judged hung.
const TIMEOUT: Duration = Duration::from_secs(20);

/// What a clear writes.
#[derive(Clone, Copy)]
enum Clear {
    Color(vk::ClearColorValue),
    Depth(vk::ClearDepthStencilValue),
}

/// Pipelines beside a call's own one, and what they use.
#[derive(Default)]
pub(super) struct Helpers {
    pub pipelines: Vec<vk::Pipeline>,
    pub pipeline_layouts: Vec<vk::PipelineLayout>,
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub descriptor_pools: Vec<vk::DescriptorPool>,
}

/// The objects of one call, destroyed in reverse order however it ends; null handles are skipped.
pub(super) struct ImageObjects<'a> {
    pub device: &'a ComputeDevice,
    images: Vec<vk::Image>,
    allocations: Vec<Allocation>,
    pub views: Vec<vk::ImageView>,
    pub buffer_views: Vec<vk::BufferView>,
    pub samplers: Vec<vk::Sampler>,
    pub modules: Vec<vk::ShaderModule>,
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub pipeline_layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
    pub descriptor_pool: vk::DescriptorPool,
    pub query_pool: vk::QueryPool,
    pub statistics_pool: vk::QueryPool,
    pub generated_pool: vk::QueryPool,
    /// What the passes around a draw's own use (`multisample`).
    pub helpers: Helpers,
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
            device.destroy_query_pool(self.query_pool, None);
            device.destroy_query_pool(self.statistics_pool, None);
            device.destroy_query_pool(self.generated_pool, None);
            let helpers = &self.helpers;
            for &pool in helpers.descriptor_pools.iter().rev() {
                device.destroy_descriptor_pool(pool, None);
            }
            for &pipeline in helpers.pipelines.iter().rev() {
                device.destroy_pipeline(pipeline, None);
            }
            for &layout in helpers.pipeline_layouts.iter().rev() {
                device.destroy_pipeline_layout(layout, None);
            }
            for &layout in helpers.set_layouts.iter().rev() {
                device.destroy_descriptor_set_layout(layout, None);
            }
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            for &layout in self.set_layouts.iter().rev() {
                device.destroy_descriptor_set_layout(layout, None);
            }
            for &module in self.modules.iter().rev() {
                device.destroy_shader_module(module, None);
            }
            for &sampler in self.samplers.iter().rev() {
                device.destroy_sampler(sampler, None);
            }
            for &view in self.views.iter().rev() {
                device.destroy_image_view(view, None);
            }
            for &view in self.buffer_views.iter().rev() {
                device.destroy_buffer_view(view, None);
            }
            for &image in self.images.iter().rev() {
                device.destroy_image(image, None);
            }
        }
        if let Some(allocator) = lock(&shared.allocator).as_mut() {
            for allocation in self.allocations.drain(..) {
                let _ = allocator.free(allocation);
            }
        }
    }
}

/// A barrier moving a whole single-level image from one layout to the next.
pub(super) fn transition<'a>(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    from: (vk::ImageLayout, vk::AccessFlags),
    to: (vk::ImageLayout, vk::AccessFlags),
) -> vk::ImageMemoryBarrier<'a> {
    let range =
        vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(vk::REMAINING_ARRAY_LAYERS);
    transition_range(image, range, from, to)
}

/// A barrier moving `range` of `image` from one layout to the next.
pub(super) fn transition_range<'a>(
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    from: (vk::ImageLayout, vk::AccessFlags),
    to: (vk::ImageLayout, vk::AccessFlags),
) -> vk::ImageMemoryBarrier<'a> {
    vk::ImageMemoryBarrier::default()
        .src_access_mask(from.1)
        .dst_access_mask(to.1)
        .old_layout(from.0)
        .new_layout(to.0)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range)
}

pub(super) const UNDEFINED: (vk::ImageLayout, vk::AccessFlags) = (vk::ImageLayout::UNDEFINED, vk::AccessFlags::empty());
pub(super) const WRITING: (vk::ImageLayout, vk::AccessFlags) =
    (vk::ImageLayout::TRANSFER_DST_OPTIMAL, vk::AccessFlags::TRANSFER_WRITE);
pub(super) const READING: (vk::ImageLayout, vk::AccessFlags) =
    (vk::ImageLayout::TRANSFER_SRC_OPTIMAL, vk::AccessFlags::TRANSFER_READ);

/// Records the barrier that makes compute shaders' writes visible to the host's reads after the fence (host
/// writes before the submit are visible to shaders without one: the memory is coherent and submission orders
/// them).
///
/// # Safety
/// `commands` is being recorded on `device`.
pub(super) unsafe fn record_shader_writes_to_host(device: &ash::Device, commands: vk::CommandBuffer) {
    // SAFETY: as the caller promises.
    unsafe {
        record_writes_to_host(device, commands, vk::PipelineStageFlags::COMPUTE_SHADER, vk::AccessFlags::SHADER_WRITE)
    }
}

/// Refuses an image past the device's limits (Vulkan's valid usage for vkCreateImage: its extent within
/// `maxImageDimension*` of its type, cubes within `maxImageDimensionCube`, its layers within `maxImageArrayLayers`).
pub(super) fn check_image_limits(features: &super::Features, info: &vk::ImageCreateInfo) -> Result<(), VulkanError> {
    let vk::Extent3D { width, height, depth } = info.extent;
    let cube = info.flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE);
    let (largest, name) = match info.image_type {
        vk::ImageType::TYPE_1D => (features.max_image_dimension_1d, "maxImageDimension1D"),
        vk::ImageType::TYPE_3D => (features.max_image_dimension_3d, "maxImageDimension3D"),
        _ if cube => (features.max_image_dimension_cube, "maxImageDimensionCube"),
        _ => (features.max_image_dimension_2d, "maxImageDimension2D"),
    };
    let limit = if width.max(height).max(depth) > largest {
        format!("{name} {largest}")
    } else if info.array_layers > features.max_image_array_layers {
        format!("maxImageArrayLayers {}", features.max_image_array_layers)
    } else {
        return Ok(());
    };
    Err(VulkanError::ImageTooLarge { width, height, depth, layers: info.array_layers, limit })
}

/// Records the barrier that makes `stage`'s `writes` visible to the host's reads after the fence.
///
/// # Safety
/// `commands` is being recorded on `device`.
pub(super) unsafe fn record_writes_to_host(
    device: &ash::Device,
    commands: vk::CommandBuffer,
    stage: vk::PipelineStageFlags,
    writes: vk::AccessFlags,
) {
    let barrier = vk::MemoryBarrier::default().src_access_mask(writes).dst_access_mask(vk::AccessFlags::HOST_READ);
    // SAFETY: as the caller promises.
    unsafe {
        device.cmd_pipeline_barrier(
            commands,
            stage,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        );
    }
}

pub(super) fn layers(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceLayers {
    first_layers(aspect, 1)
}

/// Layers 0 to `count` - 1 of level 0.
pub(super) fn first_layers(aspect: vk::ImageAspectFlags, count: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers::default().aspect_mask(aspect).layer_count(count)
}

impl ImageObjects<'_> {
    /// A new `width` x `height` image of `format` in device memory, for transfers (and blits).
    fn image(&mut self, format: vk::Format, width: u32, height: u32) -> Result<vk::Image, VulkanError> {
        self.image_for(format, width, height, vk::ImageUsageFlags::empty())
    }

    /// The same, for transfers and `usage`.
    pub fn image_for(
        &mut self,
        format: vk::Format,
        width: u32,
        height: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<vk::Image, VulkanError> {
        self.layered_image_for(format, width, height, 1, usage)
    }

    /// The same, of `layers` layers.
    pub fn layered_image_for(
        &mut self,
        format: vk::Format,
        width: u32,
        height: u32,
        layers: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<vk::Image, VulkanError> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width, height, depth: 1 })
            .mip_levels(1)
            .array_layers(layers)
            .usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC | usage);
        self.image_with(info)
    }

    /// An image as `info` describes it (optimal tiling, one sample unless it says otherwise, exclusive, undefined
    /// at first), in device memory.
    pub fn image_with(&mut self, info: vk::ImageCreateInfo) -> Result<vk::Image, VulkanError> {
        check_image_limits(self.device.features(), &info)?;
        let shared = &self.device.shared;
        let device = &shared.device;
        let samples = if info.samples.is_empty() { vk::SampleCountFlags::TYPE_1 } else { info.samples };
        let info = info
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: a valid create info; the image is destroyed by `self` after the work.
        let image = unsafe { device.create_image(&info, None) }.map_err(VulkanError::call("vkCreateImage"))?;
        self.images.push(image);
        // SAFETY: an image of this device.
        let requirements = unsafe { device.get_image_memory_requirements(image) };
        let description = AllocationCreateDesc {
            name: "tandem reference image",
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
        // Kept before binding, so that `self` frees it whether or not the binding succeeds.
        // SAFETY: the memory is only bound here, and freed (with the allocation) after the image is destroyed.
        let (memory, offset) = (unsafe { allocation.memory() }, allocation.offset());
        self.allocations.push(allocation);
        // SAFETY: memory allocated for this image's requirements, bound once.
        unsafe { device.bind_image_memory(image, memory, offset) }.map_err(VulkanError::call("vkBindImageMemory"))?;
        Ok(image)
    }

    /// A view of `range` of `image` (one of `self`'s), destroyed with `self`.
    pub fn view(
        &mut self,
        image: vk::Image,
        view_type: vk::ImageViewType,
        format: vk::Format,
        range: vk::ImageSubresourceRange,
    ) -> Result<vk::ImageView, VulkanError> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(view_type)
            .format(format)
            .subresource_range(range);
        // SAFETY: a valid create info for an image of this device; the view is destroyed by `self` after the work.
        let view = unsafe { self.device.shared.device.create_image_view(&info, None) }
            .map_err(VulkanError::call("vkCreateImageView"))?;
        self.views.push(view);
        Ok(view)
    }

    /// Records commands with `record`, submits them, and waits.
    pub fn run(
        mut self,
        queue: &mut super::device::Queue,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<(), VulkanError> {
        let device = &self.device.shared.device;
        // SAFETY (this block): valid infos; the command buffer and fence are destroyed by `self` after the wait.
        unsafe {
            let allocate = vk::CommandBufferAllocateInfo::default()
                .command_pool(queue.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let commands =
                device.allocate_command_buffers(&allocate).map_err(VulkanError::call("vkAllocateCommandBuffers"))?[0];
            self.command_buffer = commands;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            device.begin_command_buffer(commands, &begin).map_err(VulkanError::call("vkBeginCommandBuffer"))?;
            record(device, commands);
            // Whatever was copied into buffers, or written by shaders (stream output, the guest-memory mirrors, the
            // fault record), made visible to the host's reads after the fence.
            let writes = vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::SHADER_WRITE;
            record_writes_to_host(device, commands, vk::PipelineStageFlags::ALL_COMMANDS, writes);
            device.end_command_buffer(commands).map_err(VulkanError::call("vkEndCommandBuffer"))?;
            self.fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(VulkanError::call("vkCreateFence"))?;
            let command_buffers = [commands];
            let submits = [vk::SubmitInfo::default().command_buffers(&command_buffers)];
            if let Err(result) = device.queue_submit(queue.queue, &submits, self.fence) {
                if result == vk::Result::ERROR_DEVICE_LOST {
                    queue.state = State::Lost;
                }
                return Err(VulkanError::call("vkQueueSubmit")(result));
            }
            match device.wait_for_fences(&[self.fence], true, TIMEOUT.as_nanos() as u64) {
                Ok(()) => Ok(()),
                Err(vk::Result::ERROR_DEVICE_LOST) => {
                    // As a dispatch does: later work is refused at once instead of submitted to a lost device.
                    queue.state = State::Lost;
                    Err(VulkanError::DeviceLost("vkWaitForFences"))
                }
                Err(result) => {
                    queue.state = State::Wedged;
                    std::mem::forget(self);
                    Err(if result == vk::Result::TIMEOUT {
                        VulkanError::Timeout(TIMEOUT)
                    } else {
                        VulkanError::call("vkWaitForFences")(result)
                    })
                }
            }
        }
    }
}

impl ComputeDevice {
    /// What the device can do with images of `format` in optimal tiling.
    pub fn format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        self.shared.format_features(format)
    }

    /// What the device can do with texel buffers of `format`.
    pub fn buffer_format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        self.shared.buffer_format_features(format)
    }

    /// Whether the device can clear and copy images of `format` with optimal tiling.
    pub fn supports_transfer_format(&self, format: vk::Format) -> bool {
        let wanted = vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST;
        self.format_features(format).contains(wanted)
    }

    pub(super) fn objects(&self, pool: vk::CommandPool) -> ImageObjects<'_> {
        ImageObjects {
            device: self,
            images: Vec::new(),
            allocations: Vec::new(),
            views: Vec::new(),
            buffer_views: Vec::new(),
            samplers: Vec::new(),
            modules: Vec::new(),
            set_layouts: Vec::new(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            query_pool: vk::QueryPool::null(),
            statistics_pool: vk::QueryPool::null(),
            generated_pool: vk::QueryPool::null(),
            helpers: Helpers::default(),
            command_buffer: vk::CommandBuffer::null(),
            pool,
            fence: vk::Fence::null(),
        }
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
        let mut queue = self.shared.ready()?;
        let mut objects = self.objects(queue.pool);
        let image = objects.image(format, width, height)?;
        let range = vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(1);
        objects.run(&mut queue, |device, commands| {
            // SAFETY: commands on objects of this device, recorded into a buffer being recorded.
            unsafe {
                let barrier = transition(image, aspect, UNDEFINED, WRITING);
                let (top, transfer) = (vk::PipelineStageFlags::TOP_OF_PIPE, vk::PipelineStageFlags::TRANSFER);
                device.cmd_pipeline_barrier(
                    commands,
                    top,
                    transfer,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[barrier],
                );
                match &value {
                    Clear::Color(color) => device.cmd_clear_color_image(commands, image, WRITING.0, color, &[range]),
                    Clear::Depth(depth) => {
                        device.cmd_clear_depth_stencil_image(commands, image, WRITING.0, depth, &[range])
                    }
                }
                let barrier = transition(image, aspect, WRITING, READING);
                device.cmd_pipeline_barrier(
                    commands,
                    transfer,
                    transfer,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[barrier],
                );
                let region = vk::BufferImageCopy::default()
                    .image_subresource(layers(aspect))
                    .image_extent(vk::Extent3D { width, height, depth: 1 });
                device.cmd_copy_image_to_buffer(commands, image, READING.0, readback.handle, &[region]);
            }
        })?;
        drop(queue);
        self.read_exactly(&readback, size)
    }

    /// What the device makes of `width` x `height` texels of the block-compressed `format` (`blocks`, row by row):
    /// the image blitted, nearest-texel, to RGBA32F, read back as four floats a texel.
    pub fn decode_compressed_image(
        &self,
        format: vk::Format,
        width: u32,
        height: u32,
        blocks: &[u8],
    ) -> Result<Vec<[f32; 4]>, VulkanError> {
        let decoded = vk::Format::R32G32B32A32_SFLOAT;
        let can_blit = self.format_features(format).contains(vk::FormatFeatureFlags::BLIT_SRC)
            && self.format_features(decoded).contains(vk::FormatFeatureFlags::BLIT_DST);
        if !can_blit || !self.supports_transfer_format(format) {
            return Err(VulkanError::UnsupportedFormat(format!("{format:?}")));
        }
        let upload = self.buffer(blocks.len().max(1) as u64)?;
        self.write(&upload, 0, blocks)?;
        let size = u64::from(width) * u64::from(height) * 16;
        let readback = self.buffer(size.max(1))?;
        let mut queue = self.shared.ready()?;
        let mut objects = self.objects(queue.pool);
        let compressed = objects.image(format, width, height)?;
        let expanded = objects.image(decoded, width, height)?;
        let color = vk::ImageAspectFlags::COLOR;
        let extent = vk::Extent3D { width, height, depth: 1 };
        objects.run(&mut queue, |device, commands| {
            let transfer = vk::PipelineStageFlags::TRANSFER;
            let none = vk::DependencyFlags::empty();
            // SAFETY: commands on objects of this device, recorded into a buffer being recorded.
            unsafe {
                let barriers = [
                    transition(compressed, color, UNDEFINED, WRITING),
                    transition(expanded, color, UNDEFINED, WRITING),
                ];
                device.cmd_pipeline_barrier(
                    commands,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    transfer,
                    none,
                    &[],
                    &[],
                    &barriers,
                );
                let region = vk::BufferImageCopy::default().image_subresource(layers(color)).image_extent(extent);
                device.cmd_copy_buffer_to_image(commands, upload.handle, compressed, WRITING.0, &[region]);
                let barrier = transition(compressed, color, WRITING, READING);
                device.cmd_pipeline_barrier(commands, transfer, transfer, none, &[], &[], &[barrier]);
                let corners = [vk::Offset3D::default(), vk::Offset3D { x: width as i32, y: height as i32, z: 1 }];
                let blit = vk::ImageBlit::default()
                    .src_subresource(layers(color))
                    .src_offsets(corners)
                    .dst_subresource(layers(color))
                    .dst_offsets(corners);
                device.cmd_blit_image(
                    commands,
                    compressed,
                    READING.0,
                    expanded,
                    WRITING.0,
                    &[blit],
                    vk::Filter::NEAREST,
                );
                let barrier = transition(expanded, color, WRITING, READING);
                device.cmd_pipeline_barrier(commands, transfer, transfer, none, &[], &[], &[barrier]);
                let region = vk::BufferImageCopy::default().image_subresource(layers(color)).image_extent(extent);
                device.cmd_copy_image_to_buffer(commands, expanded, READING.0, readback.handle, &[region]);
            }
        })?;
        drop(queue);
        let bytes = self.read_exactly(&readback, size)?;
        Ok(bytes
            .chunks_exact(16)
            .map(|texel| std::array::from_fn(|c| f32::from_le_bytes(texel[4 * c..4 * c + 4].try_into().expect("four"))))
            .collect())
    }

    /// The first `size` bytes of `buffer`.
    pub(super) fn read_exactly(&self, buffer: &Buffer, size: u64) -> Result<Vec<u8>, VulkanError> {
        let mut bytes = self.read(buffer)?;
        bytes.truncate(size as usize);
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vulkan::ComputeDevice;

    /// Images past the device's limits are refused by name before the driver sees them (vkCreateImage's valid
    /// usage), and images at the limits pass.
    #[test]
    fn images_past_the_device_limits_are_refused() {
        let device = ComputeDevice::shared_for_tests();
        let features = device.features();
        let image = |width, height, layers, cube: bool| {
            let flags = if cube { vk::ImageCreateFlags::CUBE_COMPATIBLE } else { vk::ImageCreateFlags::empty() };
            vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .flags(flags)
                .extent(vk::Extent3D { width, height, depth: 1 })
                .array_layers(layers)
        };
        let largest = features.max_image_dimension_2d;
        assert!(check_image_limits(features, &image(largest, 1, 1, false)).is_ok());
        let error = check_image_limits(features, &image(1, largest + 1, 1, false)).unwrap_err().to_string();
        assert!(error.contains("maxImageDimension2D"), "{error}");
        let layers = features.max_image_array_layers + 1;
        let error = check_image_limits(features, &image(1, 1, layers, false)).unwrap_err().to_string();
        assert!(error.contains("maxImageArrayLayers"), "{error}");
        let side = features.max_image_dimension_cube + 1;
        let error = check_image_limits(features, &image(side, side, 6, true)).unwrap_err().to_string();
        assert!(error.contains("maxImageDimensionCube"), "{error}");
    }
}
