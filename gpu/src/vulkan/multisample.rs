//! Multisampled colour targets of a draw. Vulkan copies no buffer into a multisampled image and none back, so
//! each target's samples go in through a pass that writes every sample from a buffer (`shaders/load_samples.frag`,
//! with sample shading) and come back through a compute pass that fetches each one (`shaders/store_samples.comp`).
//! Both see the image through a view in an unsigned-integer format of the texel's size, so that the bits go
//! through unchanged whatever the format (Vulkan's compatible formats: one size class, the same bits).
//!
//! The buffers hold pixel after pixel of a layer, rows from the top, each pixel's samples in order, each sample
//! one 32-bit word or more (`words_per_sample`; texels of 1 or 2 bytes zero-extended to a word).

use super::image::ImageObjects;
use super::{ComputeDevice, VulkanError};
use ash::vk;
use std::ffi::CString;

/// Samples a pixel, the samples a draw may write, and how many are shaded separately.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multisampling {
    pub samples: u32,
    /// Bit s: sample s may be written.
    pub mask: u32,
    /// Vulkan's minSampleShading, when sample shading is on.
    pub min_sample_shading: Option<f32>,
}

impl Multisampling {
    pub(super) fn count(&self) -> vk::SampleCountFlags {
        vk::SampleCountFlags::from_raw(self.samples)
    }
}

/// SPIR-V words of a host shader `build.rs` compiled (`$OUT_DIR/<file>.spv`).
macro_rules! host_shader {
    ($file:literal) => {{
        let bytes: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/", $file, ".spv"));
        bytes.chunks_exact(4).map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]])).collect::<Vec<u32>>()
    }};
}

/// 32-bit words a sample of `bytes_per_texel` bytes takes in the buffers.
pub(super) fn words_per_sample(bytes_per_texel: u64) -> u64 {
    bytes_per_texel.div_ceil(4)
}

/// The unsigned-integer format whose texels are `bytes` bytes: the views the samples go through.
pub(super) fn raw_format(bytes: u64) -> Option<vk::Format> {
    use vk::Format as F;
    Some(match bytes {
        1 => F::R8_UINT,
        2 => F::R16_UINT,
        4 => F::R32_UINT,
        8 => F::R32G32_UINT,
        16 => F::R32G32B32A32_UINT,
        _ => return None,
    })
}

/// Texels of `bytes` bytes each as the buffers hold samples: one word or more each.
pub(super) fn widen(texels: &[u8], bytes: u64) -> Vec<u8> {
    match bytes {
        1 | 2 => texels
            .chunks_exact(bytes as usize)
            .flat_map(|texel| {
                let mut word = [0u8; 4];
                word[..texel.len()].copy_from_slice(texel);
                word
            })
            .collect(),
        _ => texels.to_vec(),
    }
}

/// The inverse of `widen`.
pub(super) fn narrow(words: &[u8], bytes: u64) -> Vec<u8> {
    match bytes {
        1 | 2 => words.chunks_exact(4).flat_map(|word| word[..bytes as usize].to_vec()).collect(),
        _ => words.to_vec(),
    }
}

/// The push constants both passes take: the layer's first word's address, the width, the samples and the
/// words a sample (and the height, which the fragment pass does not read).
fn grid(address: u64, width: u32, samples: u32, words: u32, height: u32) -> Vec<u8> {
    [address as u32, (address >> 32) as u32, width, samples, words, height]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

const PUSH_BYTES: u32 = 24;

/// A multisampled colour target as the two passes reach it: a raw view of each layer, and where its words are.
pub(super) struct RawTarget {
    pub views: Vec<vk::ImageView>,
    pub format: vk::Format,
    pub words_per_sample: u32,
    /// The device address of its buffer.
    pub address: u64,
}

/// The pipelines of the two passes and the descriptor sets of the second, made for one draw.
pub(super) struct SampleCopies {
    loads: Vec<vk::Pipeline>,
    load_layout: vk::PipelineLayout,
    store: vk::Pipeline,
    store_layout: vk::PipelineLayout,
    /// Per target, per layer.
    sets: Vec<Vec<vk::DescriptorSet>>,
}

impl ComputeDevice {
    /// The sample counts a colour target of `format` may have, seen through raw views.
    pub(super) fn color_sample_counts(&self, format: vk::Format) -> vk::SampleCountFlags {
        self.shared.image_sample_counts(
            format,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
            vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::EXTENDED_USAGE,
        )
    }

    /// The pipelines and descriptor sets that copy `targets`' samples in and out at `samples` a pixel.
    pub(super) fn sample_copies(
        &self,
        objects: &mut ImageObjects,
        targets: &[RawTarget],
        samples: vk::SampleCountFlags,
    ) -> Result<SampleCopies, VulkanError> {
        let device = &self.shared.device;
        let main = CString::new("main").expect("no NUL");
        let module = |objects: &mut ImageObjects, code: &[u32]| -> Result<vk::ShaderModule, VulkanError> {
            let info = vk::ShaderModuleCreateInfo::default().code(code);
            // SAFETY: SPIR-V glslc made and spirv-val accepts (the build compiles it, `graphics_programs` validates).
            let module = unsafe { device.create_shader_module(&info, None) }
                .map_err(VulkanError::call("vkCreateShaderModule"))?;
            objects.modules.push(module);
            Ok(module)
        };
        let vertex = module(objects, &host_shader!("fullscreen.vert"))?;
        let fragment = module(objects, &host_shader!("load_samples.frag"))?;
        let compute = module(objects, &host_shader!("store_samples.comp"))?;

        let push = |stages| [vk::PushConstantRange::default().stage_flags(stages).size(PUSH_BYTES)];
        let load_push = push(vk::ShaderStageFlags::FRAGMENT);
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&load_push);
        // SAFETY (every call below): valid create infos whose pointers outlive the call; what is made is destroyed
        // by `objects` after the work.
        let load_layout = unsafe { device.create_pipeline_layout(&info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;
        objects.helpers.pipeline_layouts.push(load_layout);
        let stages = [
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::VERTEX).module(vertex).name(&main),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fragment)
                .name(&main),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport_state = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        // Every sample shaded on its own (the shader reads SampleId, which asks for it as well).
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(samples)
            .sample_shading_enable(true)
            .min_sample_shading(1.0);
        let attachment =
            [vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachment);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let mut loads = Vec::new();
        for target in targets {
            let formats = [target.format];
            let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
            let info = [vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport_state)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blend)
                .dynamic_state(&dynamic)
                .layout(load_layout)
                .push_next(&mut rendering)];
            let pipeline =
                self.helper_pipeline(objects, |cache| unsafe { device.create_graphics_pipelines(cache, &info, None) })?;
            loads.push(pipeline);
        }

        let binding = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&binding);
        let set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
            .map_err(VulkanError::call("vkCreateDescriptorSetLayout"))?;
        objects.helpers.set_layouts.push(set_layout);
        let store_push = push(vk::ShaderStageFlags::COMPUTE);
        let set_layouts = [set_layout];
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts).push_constant_ranges(&store_push);
        let store_layout = unsafe { device.create_pipeline_layout(&info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;
        objects.helpers.pipeline_layouts.push(store_layout);
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(compute)
                    .name(&main),
            )
            .layout(store_layout)];
        let store =
            self.helper_pipeline(objects, |cache| unsafe { device.create_compute_pipelines(cache, &info, None) })?;

        let set_count: u32 = targets.iter().map(|target| target.views.len() as u32).sum();
        let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::SAMPLED_IMAGE, descriptor_count: set_count }];
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(set_count).pool_sizes(&sizes);
        let pool = unsafe { device.create_descriptor_pool(&info, None) }
            .map_err(VulkanError::call("vkCreateDescriptorPool"))?;
        objects.helpers.descriptor_pools.push(pool);
        let layouts = vec![set_layout; set_count as usize];
        let allocate = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        let mut all_sets = unsafe { device.allocate_descriptor_sets(&allocate) }
            .map_err(VulkanError::call("vkAllocateDescriptorSets"))?
            .into_iter();
        let mut sets = Vec::new();
        for target in targets {
            let target_sets: Vec<_> = all_sets.by_ref().take(target.views.len()).collect();
            for (&set, &view) in target_sets.iter().zip(&target.views) {
                let image = [vk::DescriptorImageInfo {
                    sampler: vk::Sampler::null(),
                    image_view: view,
                    image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                }];
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                    .image_info(&image);
                unsafe { device.update_descriptor_sets(&[write], &[]) };
            }
            sets.push(target_sets);
        }
        Ok(SampleCopies { loads, load_layout, store, store_layout, sets })
    }

    /// One pipeline made by `create`, kept by `objects`.
    fn helper_pipeline(
        &self,
        objects: &mut ImageObjects,
        create: impl FnOnce(vk::PipelineCache) -> Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)>,
    ) -> Result<vk::Pipeline, VulkanError> {
        match create(vk::PipelineCache::null()) {
            Ok(pipelines) => {
                objects.helpers.pipelines.extend(&pipelines);
                Ok(pipelines[0])
            }
            Err((pipelines, result)) => {
                objects.helpers.pipelines.extend(pipelines.into_iter().filter(|p| *p != vk::Pipeline::null()));
                Err(VulkanError::Pipeline { entry: "main (a multisampled target's copy)".into(), result })
            }
        }
    }
}

impl SampleCopies {
    /// Records the pass that writes every sample of `targets` (each layer's images in COLOR_ATTACHMENT_OPTIMAL)
    /// from their buffers; `width` x `height` pixels a layer.
    ///
    /// # Safety
    /// `commands` is being recorded on the device that made everything here.
    pub unsafe fn record_load(
        &self,
        device: &ash::Device,
        commands: vk::CommandBuffer,
        targets: &[RawTarget],
        (width, height, samples): (u32, u32, u32),
    ) {
        let extent = vk::Extent2D { width, height };
        let area = vk::Rect2D { offset: vk::Offset2D::default(), extent };
        let viewport =
            vk::Viewport { width: width as f32, height: height as f32, max_depth: 1.0, ..Default::default() };
        for (target, &pipeline) in targets.iter().zip(&self.loads) {
            let layer_words =
                u64::from(width) * u64::from(height) * u64::from(samples) * u64::from(target.words_per_sample);
            for (layer, &view) in target.views.iter().enumerate() {
                let attachment = [vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::DONT_CARE)
                    .store_op(vk::AttachmentStoreOp::STORE)];
                let rendering =
                    vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&attachment);
                let address = target.address + layer as u64 * layer_words * 4;
                let push = grid(address, width, samples, target.words_per_sample, height);
                // SAFETY: as the caller promises.
                unsafe {
                    device.cmd_begin_rendering(commands, &rendering);
                    device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::GRAPHICS, pipeline);
                    device.cmd_set_viewport(commands, 0, &[viewport]);
                    device.cmd_set_scissor(commands, 0, &[area]);
                    device.cmd_push_constants(commands, self.load_layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
                    device.cmd_draw(commands, 3, 1, 0, 0);
                    device.cmd_end_rendering(commands);
                }
            }
        }
    }

    /// Records the pass that reads every sample of `targets` (their images in SHADER_READ_ONLY_OPTIMAL) into
    /// their buffers, and makes the words visible to the host.
    ///
    /// # Safety
    /// As `record_load`.
    pub unsafe fn record_store(
        &self,
        device: &ash::Device,
        commands: vk::CommandBuffer,
        targets: &[RawTarget],
        (width, height, samples): (u32, u32, u32),
    ) {
        // SAFETY: as the caller promises.
        unsafe {
            device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::COMPUTE, self.store);
            for (target, layer_sets) in targets.iter().zip(&self.sets) {
                let layer_words =
                    u64::from(width) * u64::from(height) * u64::from(samples) * u64::from(target.words_per_sample);
                for (layer, &set) in layer_sets.iter().enumerate() {
                    let address = target.address + layer as u64 * layer_words * 4;
                    let push = grid(address, width, samples, target.words_per_sample, height);
                    device.cmd_bind_descriptor_sets(
                        commands,
                        vk::PipelineBindPoint::COMPUTE,
                        self.store_layout,
                        0,
                        &[set],
                        &[],
                    );
                    device.cmd_push_constants(commands, self.store_layout, vk::ShaderStageFlags::COMPUTE, 0, &push);
                    device.cmd_dispatch(commands, width.div_ceil(8), height.div_ceil(8), 1);
                }
            }
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            device.cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vulkan::{ColorTarget, DrawJob};

    /// A draw that covers nothing leaves every sample of a multisampled target as it came in, whatever the texel
    /// size: the copies in and out move the bits unchanged, in the order the buffers lay out.
    #[test]
    fn samples_go_in_and_come_back_unchanged() {
        let device = match ComputeDevice::new() {
            Ok(device) => device,
            Err(error) => panic!("a Vulkan device (cargo xtask setup installs lavapipe): {error}"),
        };
        let vertex = host_shader!("fullscreen.vert");
        let fragment = super::super::probe::built(super::super::probe::no_outputs()).unwrap();
        let (width, height, samples) = (5u32, 3u32, 4u32);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for (format, bytes) in [
            (vk::Format::R8_UNORM, 1u64),
            (vk::Format::R5G6B5_UNORM_PACK16, 2),
            (vk::Format::R8G8B8A8_UNORM, 4),
            (vk::Format::R16G16B16A16_SFLOAT, 8),
            (vk::Format::R32G32B32A32_UINT, 16),
        ] {
            let texels: Vec<u8> = (0..u64::from(width * height * samples) * bytes)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let job = DrawJob {
                vertex_shader: &vertex,
                fragment_shader: &fragment,
                vertex_buffers: &[],
                fragment_buffers: &[],
                vertex_textures: &[],
                fragment_textures: &[],
                push_constants: &[],
                width,
                height,
                targets: vec![ColorTarget {
                    format,
                    bytes_per_texel: bytes,
                    texels: &texels,
                    write_mask: vk::ColorComponentFlags::empty(),
                    blend: None,
                }],
                depth: None,
                topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                vertex_count: 0,
                instance_count: 1,
                viewports: vec![vk::Viewport { width: 1.0, height: 1.0, max_depth: 1.0, ..Default::default() }],
                scissors: vec![vk::Rect2D::default()],
                cull_mode: vk::CullModeFlags::NONE,
                front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                blend_constants: [0.0; 4],
                logic_op: None,
                depth_clamp: false,
                count_samples: false,
                lines: None,
                rasterizer_discard: false,
                layers: 1,
                multisample: Some(Multisampling { samples, mask: 0xf, min_sample_shading: None }),
            };
            let drawn = device.draw(&job).unwrap_or_else(|error| panic!("{format:?}: {error}"));
            assert_eq!(drawn.targets[0], texels, "{format:?}");
        }
    }
}
