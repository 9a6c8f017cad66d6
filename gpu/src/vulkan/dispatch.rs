//! `ComputeDevice::dispatch`: check the module against the device and the buffers, build a pipeline and a
//! descriptor set, run, wait, and destroy it all. The interface: storage buffer i at set 0, binding i, then
//! (`dispatch_sampling`) the texture slots from binding (number of buffers) on (`sampled::slot_descriptors`: a
//! combined image sampler a texture, two arrays for the pools), then (`dispatch_images`) storage image binding k
//! at binding (the next free one + k).

use super::device::{Features, Queue, State};
use super::sampled::{SampledSlot, slot_descriptors, slot_pool_sizes, slot_uploads, texture_bindings};
use super::spirv::{self, ResourceKind, capability};
use super::storage::StorageImage;
use super::{Buffer, ComputeDevice, TextureSlot, VulkanError};
use ash::vk;
use std::ffi::CString;
use std::time::Duration;

/// How to run a dispatch beyond the module, buffers and workgroup count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchOptions {
    /// Run with exactly this many invocations per subgroup (32: an NVIDIA warp). An error where the device cannot
    /// require it (`Features::can_require_subgroup_size`).
    pub subgroup_size: Option<u32>,
    /// Every subgroup full (`REQUIRE_FULL_SUBGROUPS`): the module's `LocalSize` X must be a multiple of the subgroup
    /// size (the required one, else the device's largest).
    pub full_subgroups: bool,
    /// How long to wait for the dispatch to finish before declaring the device unusable.
    pub timeout: Duration,
}

impl Default for DispatchOptions {
    /// Three minutes: a CPU device (lavapipe) on a loaded 2-core machine ran the corpus's ampere kernel (its
    /// matrix instructions emulated) past one minute while other tests ran beside it; only a shader that never
    /// ends takes longer.
    fn default() -> DispatchOptions {
        DispatchOptions { subgroup_size: None, full_subgroups: false, timeout: Duration::from_secs(180) }
    }
}

/// For a capability the device lacks the feature for: its name and the feature. `None` when the device has it, or
/// when the runner leaves the capability to the driver.
fn missing(number: u32, f: &Features) -> Option<(&'static str, &'static str)> {
    let subgroup = &f.subgroup_operations;
    let (name, feature, present) = match number {
        capability::FLOAT16 => ("Float16", "shaderFloat16", f.shader_float16),
        capability::FLOAT64 => ("Float64", "shaderFloat64", f.shader_float64),
        // Only FP32 is ever asked for (the translator's one use).
        capability::DENORM_PRESERVE => ("DenormPreserve", "shaderDenormPreserveFloat32", f.denorm_preserve_float32),
        capability::SIGNED_ZERO_INF_NAN_PRESERVE => (
            "SignedZeroInfNanPreserve",
            "shaderSignedZeroInfNanPreserveFloat32 and Float64",
            f.signed_zero_inf_nan_preserve,
        ),
        capability::INT16 => ("Int16", "shaderInt16", f.shader_int16),
        capability::INT8 => ("Int8", "shaderInt8", f.shader_int8),
        capability::STORAGE_IMAGE_EXTENDED_FORMATS => {
            ("StorageImageExtendedFormats", "shaderStorageImageExtendedFormats", f.storage_image_extended_formats)
        }
        capability::INT64_ATOMICS => (
            "Int64Atomics",
            "shaderBufferInt64Atomics or shaderSharedInt64Atomics",
            f.shader_buffer_int64_atomics || f.shader_shared_int64_atomics,
        ),
        capability::STORAGE_BUFFER_16BIT_ACCESS => {
            ("StorageBuffer16BitAccess", "storageBuffer16BitAccess", f.storage_buffer_16bit_access)
        }
        capability::STORAGE_BUFFER_8BIT_ACCESS => {
            ("StorageBuffer8BitAccess", "storageBuffer8BitAccess", f.storage_buffer_8bit_access)
        }
        capability::SAMPLED_IMAGE_ARRAY_NON_UNIFORM_INDEXING => (
            "SampledImageArrayNonUniformIndexing",
            "shaderSampledImageArrayDynamicIndexing and shaderSampledImageArrayNonUniformIndexing",
            f.sampled_image_array_non_uniform_indexing,
        ),
        capability::VULKAN_MEMORY_MODEL => ("VulkanMemoryModel", "vulkanMemoryModel", f.vulkan_memory_model),
        capability::VULKAN_MEMORY_MODEL_DEVICE_SCOPE => {
            ("VulkanMemoryModelDeviceScope", "vulkanMemoryModelDeviceScope", f.vulkan_memory_model_device_scope)
        }
        capability::GROUP_NON_UNIFORM => ("GroupNonUniform", "subgroups in compute shaders", subgroup.basic),
        capability::GROUP_NON_UNIFORM_VOTE => ("GroupNonUniformVote", "subgroup votes", subgroup.vote),
        capability::GROUP_NON_UNIFORM_ARITHMETIC => {
            ("GroupNonUniformArithmetic", "subgroup arithmetic", subgroup.arithmetic)
        }
        capability::GROUP_NON_UNIFORM_BALLOT => ("GroupNonUniformBallot", "subgroup ballots", subgroup.ballot),
        capability::GROUP_NON_UNIFORM_SHUFFLE => ("GroupNonUniformShuffle", "subgroup shuffles", subgroup.shuffle),
        capability::GROUP_NON_UNIFORM_SHUFFLE_RELATIVE => {
            ("GroupNonUniformShuffleRelative", "relative subgroup shuffles", subgroup.shuffle_relative)
        }
        capability::GROUP_NON_UNIFORM_CLUSTERED => {
            ("GroupNonUniformClustered", "clustered subgroup operations", subgroup.clustered)
        }
        capability::GROUP_NON_UNIFORM_QUAD => ("GroupNonUniformQuad", "subgroup quad operations", subgroup.quad),
        _ => return None,
    };
    (!present).then_some((name, feature))
}

impl ComputeDevice {
    /// Runs entry point `entry` of a SPIR-V compute module over `groups` workgroups, with `bindings[i]` bound as the
    /// storage buffer at set 0, binding i, and waits for it to finish (`DispatchOptions::default()`: any subgroup
    /// size, a 60-second limit).
    pub fn dispatch(
        &self,
        spirv: &[u32],
        entry: &str,
        bindings: &[&Buffer],
        groups: [u32; 3],
    ) -> Result<(), VulkanError> {
        self.dispatch_with(spirv, entry, bindings, groups, &DispatchOptions::default())
    }

    /// `dispatch` with a required subgroup size, full subgroups or another time limit.
    pub fn dispatch_with(
        &self,
        spirv: &[u32],
        entry: &str,
        bindings: &[&Buffer],
        groups: [u32; 3],
        options: &DispatchOptions,
    ) -> Result<(), VulkanError> {
        self.dispatch_sampling(spirv, entry, bindings, &[], groups, options)
    }

    /// `dispatch_with` with `textures` bound after the buffers, uploaded before the grid runs.
    pub fn dispatch_sampling(
        &self,
        spirv: &[u32],
        entry: &str,
        bindings: &[&Buffer],
        textures: &[TextureSlot],
        groups: [u32; 3],
        options: &DispatchOptions,
    ) -> Result<(), VulkanError> {
        self.dispatch_images(spirv, entry, bindings, textures, (&mut [], &[]), groups, options)
    }

    /// `dispatch_sampling` with storage images bound after the textures: binding k is `images[image_bindings[k]]`
    /// (an image may be bound more than once), uploaded before the grid runs and read back into its `texels`
    /// after it.
    #[allow(clippy::too_many_arguments)]
    pub fn dispatch_images(
        &self,
        spirv: &[u32],
        entry: &str,
        bindings: &[&Buffer],
        textures: &[TextureSlot],
        (images, image_bindings): (&mut [StorageImage], &[usize]),
        groups: [u32; 3],
        options: &DispatchOptions,
    ) -> Result<(), VulkanError> {
        if let Some(&index) = image_bindings.iter().find(|&&index| index >= images.len()) {
            return Err(VulkanError::OutOfBounds { offset: index as u64, len: 1, size: images.len() as u64 });
        }
        let local_size =
            self.check(spirv, entry, (bindings, texture_bindings(textures) + image_bindings.len()), groups, options)?;
        // Before the queue is taken: writing a buffer takes it.
        let uploads = self.texture_uploads(slot_uploads(textures))?;
        let transfers = self.storage_transfers(images)?;
        let mut queue = self.shared.ready()?;
        tracing::debug!(entry, ?groups, ?local_size, bindings = bindings.len(), textures = textures.len(), "dispatch");
        let resources = Resources { textures, uploads: &uploads, images, image_bindings, transfers: &transfers };
        let result = self.run(&mut queue, spirv, entry, bindings, &resources, groups, options);
        if let Err(VulkanError::DeviceLost(_)) = result {
            queue.state = State::Lost;
        }
        // The buffers are read and dropped after the queue's lock: both take it.
        drop(queue);
        result?;
        for (image, transfer) in images.iter_mut().zip(&transfers) {
            let mut texels = self.read(transfer)?;
            texels.truncate(image.texels.len());
            image.texels = texels;
        }
        Ok(())
    }

    /// Builds, runs and waits for a dispatch that `check` accepted; `queue` is the locked queue.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        queue: &mut Queue,
        spirv: &[u32],
        entry: &str,
        bindings: &[&Buffer],
        resources: &Resources,
        groups: [u32; 3],
        options: &DispatchOptions,
    ) -> Result<(), VulkanError> {
        let device = &self.shared.device;
        let mut objects = Objects::new(device, queue.pool);
        let mut images = self.objects(queue.pool);
        let sampled = self.texture_slots(&mut images, resources.textures, resources.uploads)?;
        let stored = self.storage_images(&mut images, resources.images, resources.transfers)?;

        // SAFETY (every call below): the create infos and the slices they point to outlive each call, and every
        // handle used was made from this device and is still alive (`objects` destroys them at the end).
        let module_info = vk::ShaderModuleCreateInfo::default().code(spirv);
        objects.module = unsafe { device.create_shader_module(&module_info, None) }
            .map_err(VulkanError::call("vkCreateShaderModule"))?;

        let buffer_count = bindings.len() as u32;
        // The texture slots after the buffers, the storage images after them.
        let mut descriptors = slot_descriptors(&sampled, buffer_count);
        let first_image = buffer_count + descriptors.len() as u32;
        descriptors.extend(
            resources
                .image_bindings
                .iter()
                .enumerate()
                .map(|(k, &index)| stored[index].descriptor(first_image + k as u32)),
        );
        let layout_bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..buffer_count)
            .map(|binding| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .chain(descriptors.iter().map(|descriptor| descriptor.layout(vk::ShaderStageFlags::COMPUTE)))
            .collect();
        let set_layout_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
        objects.set_layout = unsafe { device.create_descriptor_set_layout(&set_layout_info, None) }
            .map_err(VulkanError::call("vkCreateDescriptorSetLayout"))?;
        let set_layouts = [objects.set_layout];
        let pipeline_layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        objects.pipeline_layout = unsafe { device.create_pipeline_layout(&pipeline_layout_info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;

        // `check` found the entry point, so its name has no NUL inside.
        let name = CString::new(entry)
            .map_err(|_| VulkanError::NoEntryPoint { entry: entry.into(), available: String::new() })?;
        let mut flags = vk::PipelineShaderStageCreateFlags::empty();
        if options.full_subgroups {
            flags |= vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS;
        }
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(options.subgroup_size.unwrap_or(0));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .flags(flags)
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(objects.module)
            .name(&name);
        if options.subgroup_size.is_some() {
            stage = stage.push_next(&mut required);
        }
        let pipeline_info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(objects.pipeline_layout)];
        objects.pipeline =
            match unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) } {
                Ok(pipelines) => pipelines[0],
                Err((pipelines, result)) => {
                    for pipeline in pipelines {
                        unsafe { device.destroy_pipeline(pipeline, None) };
                    }
                    if result == vk::Result::ERROR_DEVICE_LOST {
                        return Err(VulkanError::DeviceLost("vkCreateComputePipelines"));
                    }
                    return Err(VulkanError::Pipeline { entry: entry.into(), result });
                }
            };

        let set = if layout_bindings.is_empty() {
            vk::DescriptorSet::null()
        } else {
            let mut sizes = slot_pool_sizes(&descriptors);
            if buffer_count > 0 {
                sizes.push(vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: buffer_count,
                });
            }
            let pool_info = vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes);
            objects.descriptor_pool = unsafe { device.create_descriptor_pool(&pool_info, None) }
                .map_err(VulkanError::call("vkCreateDescriptorPool"))?;
            let allocate_info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(objects.descriptor_pool)
                .set_layouts(&set_layouts);
            let set = unsafe { device.allocate_descriptor_sets(&allocate_info) }
                .map_err(VulkanError::call("vkAllocateDescriptorSets"))?[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
                .iter()
                .map(|buffer| [vk::DescriptorBufferInfo { buffer: buffer.handle, offset: 0, range: vk::WHOLE_SIZE }])
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = infos
                .iter()
                .enumerate()
                .map(|(binding, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(binding as u32)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .chain(descriptors.iter().map(|descriptor| descriptor.write(set)))
                .collect();
            unsafe { device.update_descriptor_sets(&writes, &[]) };
            set
        };

        let allocate_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(queue.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        objects.command_buffer = unsafe { device.allocate_command_buffers(&allocate_info) }
            .map_err(VulkanError::call("vkAllocateCommandBuffers"))?[0];
        let commands = objects.command_buffer;
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        unsafe { device.begin_command_buffer(commands, &begin) }.map_err(VulkanError::call("vkBeginCommandBuffer"))?;
        unsafe {
            for texture in sampled.iter().flat_map(SampledSlot::images) {
                texture.record_upload(device, commands, vk::PipelineStageFlags::COMPUTE_SHADER);
            }
            for image in &stored {
                image.record_upload(device, commands, vk::PipelineStageFlags::COMPUTE_SHADER);
            }
            device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::COMPUTE, objects.pipeline);
            if set != vk::DescriptorSet::null() {
                let sets = [set];
                device.cmd_bind_descriptor_sets(
                    commands,
                    vk::PipelineBindPoint::COMPUTE,
                    objects.pipeline_layout,
                    0,
                    &sets,
                    &[],
                );
            }
            device.cmd_dispatch(commands, groups[0], groups[1], groups[2]);
            super::image::record_shader_writes_to_host(device, commands);
            for image in &stored {
                image.record_readback(device, commands, vk::PipelineStageFlags::COMPUTE_SHADER);
            }
        }
        unsafe { device.end_command_buffer(commands) }.map_err(VulkanError::call("vkEndCommandBuffer"))?;

        objects.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(VulkanError::call("vkCreateFence"))?;
        let command_buffers = [commands];
        let submits = [vk::SubmitInfo::default().command_buffers(&command_buffers)];
        unsafe { device.queue_submit(queue.queue, &submits, objects.fence) }
            .map_err(VulkanError::call("vkQueueSubmit"))?;
        let timeout = u64::try_from(options.timeout.as_nanos()).unwrap_or(u64::MAX);
        match unsafe { device.wait_for_fences(&[objects.fence], true, timeout) } {
            Ok(()) => Ok(()),
            Err(vk::Result::ERROR_DEVICE_LOST) => Err(VulkanError::DeviceLost("vkWaitForFences")),
            Err(result) => {
                // The shader may still be running (or nobody can tell): nothing it uses may be destroyed.
                queue.state = State::Wedged;
                std::mem::forget(objects);
                std::mem::forget(images);
                if result == vk::Result::TIMEOUT {
                    tracing::error!(entry, ?groups, "a dispatch did not finish within {:?}", options.timeout);
                    Err(VulkanError::Timeout(options.timeout))
                } else {
                    Err(VulkanError::call("vkWaitForFences")(result))
                }
            }
        }
    }

    /// Everything about a dispatch that can be checked before the driver sees it; the module's `LocalSize`, if any.
    fn check(
        &self,
        words: &[u32],
        entry: &str,
        (bindings, textures): (&[&Buffer], usize),
        groups: [u32; 3],
        options: &DispatchOptions,
    ) -> Result<Option<[u32; 3]>, VulkanError> {
        let features = &self.features;
        let module = spirv::read(words)?;
        let (major, minor) = module.version;
        let accepted = if features.api_version >= (1, 3, 0) { 6 } else { 5 };
        if minor > accepted {
            let (vulkan_major, vulkan_minor, _) = features.api_version;
            return Err(VulkanError::SpirvTooNew {
                major,
                minor,
                vulkan: format!("{vulkan_major}.{vulkan_minor}"),
                accepted,
            });
        }
        let Some(entry_point) = module.entry_points.iter().find(|e| e.is_compute() && e.name == entry) else {
            let available: Vec<String> = module
                .entry_points
                .iter()
                .map(|e| if e.is_compute() { format!("{:?}", e.name) } else { format!("{:?} (not compute)", e.name) })
                .collect();
            let available = if available.is_empty() { "none".to_string() } else { available.join(", ") };
            return Err(VulkanError::NoEntryPoint { entry: entry.into(), available });
        };
        if let Some((capability, feature)) = module.capabilities.iter().find_map(|&number| missing(number, features)) {
            return Err(VulkanError::MissingCapability { capability, feature });
        }
        for resource in &module.resources {
            let what = match (resource.kind, resource.set, resource.binding) {
                (ResourceKind::StorageBuffer, Some(0), Some(binding)) if (binding as usize) < bindings.len() => {
                    continue;
                }
                (ResourceKind::StorageBuffer, set, binding) => {
                    format!("a storage buffer at set {}, binding {}", show(set), show(binding))
                }
                (ResourceKind::Opaque, Some(0), Some(binding))
                    if (bindings.len()..bindings.len() + textures).contains(&(binding as usize)) =>
                {
                    continue;
                }
                (ResourceKind::UniformBuffer, ..) => "a uniform buffer".to_string(),
                (ResourceKind::Opaque, ..) => "an image, sampler or other opaque resource".to_string(),
                (ResourceKind::PushConstant, ..) => "a push constant block".to_string(),
                (ResourceKind::Other, ..) => "a decorated variable the runner cannot bind".to_string(),
            };
            return Err(VulkanError::UnboundResource { id: resource.id, what, bound: bindings.len() });
        }

        for (index, buffer) in bindings.iter().enumerate() {
            self.owns(buffer)?;
            if buffer.size > u64::from(features.max_storage_buffer_range) {
                return Err(VulkanError::BindingTooLarge {
                    index,
                    size: buffer.size,
                    limit: features.max_storage_buffer_range,
                });
            }
        }
        if bindings.len() > features.max_storage_buffers as usize {
            return Err(VulkanError::TooManyBindings { count: bindings.len(), limit: features.max_storage_buffers });
        }
        if groups.iter().zip(features.max_workgroup_count).any(|(&count, limit)| count > limit) {
            return Err(VulkanError::TooManyGroups { groups, limit: features.max_workgroup_count });
        }
        let local_size = entry_point.local_size;
        if let Some(size) = local_size {
            let invocations = size.iter().try_fold(1u32, |product, &n| product.checked_mul(n));
            if size.iter().zip(features.max_workgroup_size).any(|(&n, limit)| n > limit)
                || invocations.is_none_or(|n| n > features.max_workgroup_invocations)
            {
                return Err(VulkanError::WorkgroupTooLarge {
                    size,
                    limit: features.max_workgroup_size,
                    invocations: features.max_workgroup_invocations,
                });
            }
        }

        let subgroup_error = |size: u32, reason: String| VulkanError::SubgroupSize { size, reason };
        if let Some(size) = options.subgroup_size {
            let (min, max) = features.subgroup_size_range;
            if !features.subgroup_size_control {
                return Err(subgroup_error(size, "it cannot require a subgroup size in compute shaders".into()));
            }
            if !features.can_require_subgroup_size(size) {
                return Err(subgroup_error(size, format!("its subgroups hold {min} to {max} invocations")));
            }
            if let Some(invocations) = local_size.map(|[x, y, z]| u64::from(x) * u64::from(y) * u64::from(z))
                && invocations > u64::from(size) * u64::from(features.max_compute_workgroup_subgroups)
            {
                let reason = format!(
                    "a workgroup of {invocations} invocations needs more than its {} subgroups",
                    features.max_compute_workgroup_subgroups
                );
                return Err(subgroup_error(size, reason));
            }
        }
        if options.full_subgroups {
            let size = options.subgroup_size.unwrap_or(features.subgroup_size_range.1);
            if !features.compute_full_subgroups {
                return Err(subgroup_error(size, "it cannot require full subgroups (computeFullSubgroups)".into()));
            }
            match local_size {
                Some([x, ..]) if x % size == 0 => {}
                Some([x, ..]) => {
                    let reason = format!("full subgroups need LocalSize X ({x}) to be a multiple of {size}");
                    return Err(subgroup_error(size, reason));
                }
                None => {
                    let reason = "full subgroups need the module to give its LocalSize as literals".to_string();
                    return Err(subgroup_error(size, reason));
                }
            }
        }
        Ok(local_size)
    }
}

/// What a dispatch binds besides its storage buffers: textures with their texels' upload buffers, storage images
/// with their transfer buffers, and which image each storage image binding is.
struct Resources<'r> {
    textures: &'r [TextureSlot<'r>],
    uploads: &'r [Buffer],
    images: &'r [StorageImage],
    image_bindings: &'r [usize],
    transfers: &'r [Buffer],
}

fn show(value: Option<u32>) -> String {
    value.map_or_else(|| "(none)".to_string(), |value| value.to_string())
}

/// The objects of one dispatch, destroyed (in reverse order of creation) when it ends, however it ends; null
/// handles are skipped.
struct Objects<'a> {
    device: &'a ash::Device,
    command_pool: vk::CommandPool,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    descriptor_pool: vk::DescriptorPool,
    command_buffer: vk::CommandBuffer,
    fence: vk::Fence,
}

impl<'a> Objects<'a> {
    fn new(device: &'a ash::Device, command_pool: vk::CommandPool) -> Objects<'a> {
        Objects {
            device,
            command_pool,
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            command_buffer: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
        }
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        // SAFETY: the dispatch has finished (the fence was waited on), failed before submitting, or lost the device;
        // a timed-out dispatch forgets its `Objects` instead. Destroying a null handle does nothing.
        unsafe {
            let device = self.device;
            device.destroy_fence(self.fence, None);
            if self.command_buffer != vk::CommandBuffer::null() {
                device.free_command_buffers(self.command_pool, &[self.command_buffer]);
            }
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
            device.destroy_shader_module(self.module, None);
        }
    }
}
