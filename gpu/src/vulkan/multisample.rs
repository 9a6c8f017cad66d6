//! Multisampled targets of a draw. Vulkan copies no buffer into a multisampled image and none back, so each
//! target's samples go in through a pass that writes every sample from a buffer (`shaders/load_samples.frag`,
//! with sample shading) and come back through a compute pass that fetches each one (`shaders/store_samples.comp`).
//! Colour passes see the image through a view in an unsigned-integer format of the texel's size, so that the bits
//! go through unchanged whatever the format (Vulkan's compatible formats: one size class, the same bits). Depth
//! goes in as FragDepth and comes back sampled, as FP32 (exact for 16- and 32-bit depth, not for 24-bit:
//! `depth_through_float`); stencil goes in a bit a pass (`load_stencil.frag`: NVIDIA's driver has no
//! VK_EXT_shader_stencil_export) and comes back through the stencil aspect's view.
//!
//! The buffers hold pixel after pixel of a layer, rows from the top, each pixel's samples in order, each sample
//! one 32-bit word or more (`words_per_sample`; texels of 1 or 2 bytes zero-extended to a word).

use super::image::ImageObjects;
use super::{Buffer, ComputeDevice, VulkanError};
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
    /// Colour output 0's alpha picks the samples covered (the device's pattern), and is then replaced by 1.
    pub alpha_to_coverage: bool,
    pub alpha_to_one: bool,
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

const PUSH_BYTES: u32 = 24;

/// A multisampled colour target as the passes reach it: a raw view of each layer, and where its words are.
pub(super) struct RawTarget {
    pub views: Vec<vk::ImageView>,
    pub format: vk::Format,
    pub words_per_sample: u32,
    /// The device address of its buffer.
    pub address: u64,
}

impl RawTarget {
    /// `image`'s raw views, layer by layer, and `buffer` (its words) for a target of `bytes_per_texel`.
    pub fn new(
        objects: &mut ImageObjects,
        image: vk::Image,
        bytes_per_texel: u64,
        buffer: &Buffer,
        layers: u32,
    ) -> Result<RawTarget, VulkanError> {
        let format = raw_format(bytes_per_texel)
            .ok_or_else(|| VulkanError::UnsupportedFormat(format!("{bytes_per_texel}-byte texels, multisampled")))?;
        Ok(RawTarget {
            views: layer_views(objects, image, format, vk::ImageAspectFlags::COLOR, layers)?,
            format,
            words_per_sample: words_per_sample(bytes_per_texel) as u32,
            address: buffer.address(),
        })
    }
}

/// A view of each of the first `layers` layers of `image`, of `aspect`, in `format`.
fn layer_views(
    objects: &mut ImageObjects,
    image: vk::Image,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
    layers: u32,
) -> Result<Vec<vk::ImageView>, VulkanError> {
    (0..layers)
        .map(|layer| {
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(aspect)
                .base_array_layer(layer)
                .level_count(1)
                .layer_count(1);
            objects.view(image, vk::ImageViewType::TYPE_2D, format, range)
        })
        .collect()
}

/// A multisampled depth/stencil target as the passes reach it: per layer, a view of its aspects (to load) and
/// views of the depth and of the stencil aspect (to read), and where each aspect's words are (one a sample:
/// depth as FP32 bits, stencil zero-extended).
pub(super) struct RawDepth {
    pub format: vk::Format,
    pub attachments: Vec<vk::ImageView>,
    pub depth: Option<(Vec<vk::ImageView>, u64)>,
    pub stencil: Option<(Vec<vk::ImageView>, u64)>,
}

impl RawDepth {
    /// `image`'s views, layer by layer, with the buffers of its depth and stencil words (`None`: the format
    /// lacks that aspect).
    pub fn new(
        objects: &mut ImageObjects,
        image: vk::Image,
        format: vk::Format,
        (depth, stencil): (Option<&Buffer>, Option<&Buffer>),
        layers: u32,
    ) -> Result<RawDepth, VulkanError> {
        let present = |buffer: Option<&Buffer>, aspect| buffer.map(|_| aspect);
        let aspects = present(depth, vk::ImageAspectFlags::DEPTH).unwrap_or_default()
            | present(stencil, vk::ImageAspectFlags::STENCIL).unwrap_or_default();
        let mut aspect = |buffer: Option<&Buffer>, aspect| -> Result<_, VulkanError> {
            match buffer {
                Some(buffer) => Ok(Some((layer_views(objects, image, format, aspect, layers)?, buffer.address()))),
                None => Ok(None),
            }
        };
        let depth = aspect(depth, vk::ImageAspectFlags::DEPTH)?;
        let stencil = aspect(stencil, vk::ImageAspectFlags::STENCIL)?;
        let attachments = layer_views(objects, image, format, aspects, layers)?;
        Ok(RawDepth { format, attachments, depth, stencil })
    }
}

/// What one layer of one target's load pass renders to.
enum LoadTarget {
    Color(vk::ImageView),
    /// The depth pass (stencil cleared to 0), or with `stencil_bit` the pass that sets that bit of the stencil.
    DepthStencil {
        view: vk::ImageView,
        depth: bool,
        stencil: bool,
        stencil_bit: Option<u32>,
    },
}

struct LoadJob {
    pipeline: vk::Pipeline,
    target: LoadTarget,
    push: Vec<u8>,
}

struct StoreJob {
    pipeline: vk::Pipeline,
    set: vk::DescriptorSet,
    push: Vec<u8>,
}

/// The passes that copy a draw's multisampled targets in and out, made for one draw.
pub(super) struct SampleCopies {
    load_layout: vk::PipelineLayout,
    store_layout: vk::PipelineLayout,
    loads: Vec<LoadJob>,
    stores: Vec<StoreJob>,
    extent: vk::Extent2D,
}

/// Every target's grid: `width` x `height` pixels of `samples` samples.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
}

impl Grid {
    /// The byte offset of layer `layer`'s words in a buffer of `words` words a sample.
    fn layer_offset(&self, layer: usize, words: u32) -> u64 {
        layer as u64 * u64::from(self.width) * u64::from(self.height) * u64::from(self.samples) * u64::from(words) * 4
    }
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

    /// The sample counts a depth/stencil target of `format` may have, read back by sampling.
    pub(super) fn depth_sample_counts(&self, format: vk::Format) -> vk::SampleCountFlags {
        self.shared.image_sample_counts(
            format,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
            vk::ImageCreateFlags::empty(),
        )
    }

    /// The passes that copy the samples of `targets` and `depth` in and out.
    pub(super) fn sample_copies(
        &self,
        objects: &mut ImageObjects,
        targets: &[RawTarget],
        depth: Option<&RawDepth>,
        grid: Grid,
    ) -> Result<SampleCopies, VulkanError> {
        let device = &self.shared.device;
        let main = CString::new("main").expect("no NUL");
        let module = |objects: &mut ImageObjects, code: &[u32]| -> Result<vk::ShaderModule, VulkanError> {
            let info = vk::ShaderModuleCreateInfo::default().code(code);
            // SAFETY: SPIR-V that glslc made from shaders/ at build time.
            let module = unsafe { device.create_shader_module(&info, None) }
                .map_err(VulkanError::call("vkCreateShaderModule"))?;
            objects.modules.push(module);
            Ok(module)
        };
        let samples = vk::SampleCountFlags::from_raw(grid.samples);
        let push = |stages| [vk::PushConstantRange::default().stage_flags(stages).size(PUSH_BYTES)];
        let load_push = push(vk::ShaderStageFlags::FRAGMENT);
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&load_push);
        // SAFETY (every call below): valid create infos whose pointers outlive the call; what is made is destroyed
        // by `objects` after the work.
        let load_layout = unsafe { device.create_pipeline_layout(&info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;
        objects.helpers.pipeline_layouts.push(load_layout);

        // The load passes: a full-screen triangle, every sample shaded on its own (the shaders read SampleId,
        // which asks for it as well).
        let vertex = module(objects, &host_shader!("fullscreen.vert"))?;
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport_state = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(samples)
            .sample_shading_enable(true)
            .min_sample_shading(1.0);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let load_pipeline_with = |objects: &mut ImageObjects,
                                  fragment: vk::ShaderModule,
                                  rendering: &mut vk::PipelineRenderingCreateInfo,
                                  blend: &vk::PipelineColorBlendStateCreateInfo,
                                  depth_stencil: &vk::PipelineDepthStencilStateCreateInfo,
                                  dynamic: &vk::PipelineDynamicStateCreateInfo|
         -> Result<vk::Pipeline, VulkanError> {
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(vertex)
                    .name(&main),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(fragment)
                    .name(&main),
            ];
            let info = [vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport_state)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(blend)
                .depth_stencil_state(depth_stencil)
                .dynamic_state(dynamic)
                .layout(load_layout)
                .push_next(rendering)];
            helper_pipeline(objects, unsafe {
                device.create_graphics_pipelines(vk::PipelineCache::null(), &info, None)
            })
        };
        let load_pipeline = |objects: &mut ImageObjects,
                             fragment,
                             rendering: &mut vk::PipelineRenderingCreateInfo,
                             blend: &vk::PipelineColorBlendStateCreateInfo,
                             depth_stencil: &vk::PipelineDepthStencilStateCreateInfo| {
            load_pipeline_with(objects, fragment, rendering, blend, depth_stencil, &dynamic)
        };
        let mut loads = Vec::new();
        if !targets.is_empty() {
            let fragment = module(objects, &host_shader!("load_samples.frag"))?;
            let attachment =
                [vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA)];
            let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachment);
            for target in targets {
                let formats = [target.format];
                let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
                let none = vk::PipelineDepthStencilStateCreateInfo::default();
                let pipeline = load_pipeline(objects, fragment, &mut rendering, &blend, &none)?;
                for (layer, &view) in target.views.iter().enumerate() {
                    let address = target.address + grid.layer_offset(layer, target.words_per_sample);
                    let push = words(&[
                        address as u32,
                        (address >> 32) as u32,
                        grid.width,
                        grid.samples,
                        target.words_per_sample,
                        grid.height,
                    ]);
                    loads.push(LoadJob { pipeline, target: LoadTarget::Color(view), push });
                }
            }
        }
        if let Some(zeta) = depth {
            let (has_depth, has_stencil) = (zeta.depth.is_some(), zeta.stencil.is_some());
            let mut rendering = vk::PipelineRenderingCreateInfo::default();
            if has_depth {
                rendering = rendering.depth_attachment_format(zeta.format);
            }
            if has_stencil {
                rendering = rendering.stencil_attachment_format(zeta.format);
            }
            let blend = vk::PipelineColorBlendStateCreateInfo::default();
            // Depth: the shader's, every sample (stencil is cleared to 0 by the same pass's attachment).
            let depth_state = vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(has_depth)
                .depth_write_enable(has_depth)
                .depth_compare_op(vk::CompareOp::ALWAYS);
            let fragment = module(objects, &host_shader!("load_depth.frag"))?;
            let depth_pipeline = load_pipeline(objects, fragment, &mut rendering, &blend, &depth_state)?;
            // Stencil: a pass a bit, 0xFF through that bit of the write mask where the sample's bit is set.
            let stencil_pipeline = match has_stencil {
                false => None,
                true => {
                    let set_bit = vk::StencilOpState {
                        fail_op: vk::StencilOp::KEEP,
                        pass_op: vk::StencilOp::REPLACE,
                        depth_fail_op: vk::StencilOp::REPLACE,
                        compare_op: vk::CompareOp::ALWAYS,
                        compare_mask: 0xff,
                        write_mask: 0,
                        reference: 0xff,
                    };
                    let state = vk::PipelineDepthStencilStateCreateInfo::default()
                        .stencil_test_enable(true)
                        .front(set_bit)
                        .back(set_bit);
                    let fragment = module(objects, &host_shader!("load_stencil.frag"))?;
                    let mut dynamic_states = dynamic_states.to_vec();
                    dynamic_states.push(vk::DynamicState::STENCIL_WRITE_MASK);
                    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
                    Some(load_pipeline_with(objects, fragment, &mut rendering, &blend, &state, &dynamic)?)
                }
            };
            let layer_address = |aspect: &Option<(Vec<vk::ImageView>, u64)>, layer: usize| {
                aspect.as_ref().map_or(0, |(_, address)| address + grid.layer_offset(layer, 1))
            };
            for (layer, &view) in zeta.attachments.iter().enumerate() {
                let depth_address = layer_address(&zeta.depth, layer);
                let push = words(&[depth_address as u32, (depth_address >> 32) as u32, grid.width, grid.samples, 0, 0]);
                let target =
                    LoadTarget::DepthStencil { view, depth: has_depth, stencil: has_stencil, stencil_bit: None };
                loads.push(LoadJob { pipeline: depth_pipeline, target, push });
                if let Some(pipeline) = stencil_pipeline {
                    let address = layer_address(&zeta.stencil, layer);
                    for bit in 0..8 {
                        let push = words(&[address as u32, (address >> 32) as u32, grid.width, grid.samples, bit, 0]);
                        let target =
                            LoadTarget::DepthStencil { view, depth: has_depth, stencil: true, stencil_bit: Some(bit) };
                        loads.push(LoadJob { pipeline, target, push });
                    }
                }
            }
        }

        // The store passes: a compute grid a layer and aspect, fetching each sample of the image bound at 0.
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
        let compute_pipeline = |objects: &mut ImageObjects, code: &[u32]| -> Result<vk::Pipeline, VulkanError> {
            let compute = module(objects, code)?;
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(
                    vk::PipelineShaderStageCreateInfo::default()
                        .stage(vk::ShaderStageFlags::COMPUTE)
                        .module(compute)
                        .name(&main),
                )
                .layout(store_layout)];
            helper_pipeline(objects, unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &info, None) })
        };
        // (pipeline, view, the layer's address, words a sample) of each layer and aspect.
        let layers = |views: &[vk::ImageView], address: u64, words: u32| -> Vec<(vk::ImageView, u64, u32)> {
            views
                .iter()
                .enumerate()
                .map(|(layer, &view)| (view, address + grid.layer_offset(layer, words), words))
                .collect()
        };
        let mut raw_reads: Vec<_> =
            targets.iter().flat_map(|target| layers(&target.views, target.address, target.words_per_sample)).collect();
        if let Some((views, address)) = depth.and_then(|zeta| zeta.stencil.as_ref()) {
            raw_reads.extend(layers(views, *address, 1));
        }
        let mut reads = Vec::new();
        if !raw_reads.is_empty() {
            let pipeline = compute_pipeline(objects, &host_shader!("store_samples.comp"))?;
            reads.extend(raw_reads.into_iter().map(|(view, address, words)| (pipeline, view, address, words)));
        }
        if let Some((views, address)) = depth.and_then(|zeta| zeta.depth.as_ref()) {
            let pipeline = compute_pipeline(objects, &host_shader!("store_depth.comp"))?;
            reads.extend(
                layers(views, *address, 1).into_iter().map(|(view, address, words)| (pipeline, view, address, words)),
            );
        }
        let set_count = reads.len() as u32;
        let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::SAMPLED_IMAGE, descriptor_count: set_count }];
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(set_count).pool_sizes(&sizes);
        let pool = unsafe { device.create_descriptor_pool(&info, None) }
            .map_err(VulkanError::call("vkCreateDescriptorPool"))?;
        objects.helpers.descriptor_pools.push(pool);
        let layouts = vec![set_layout; reads.len()];
        let allocate = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        let sets = unsafe { device.allocate_descriptor_sets(&allocate) }
            .map_err(VulkanError::call("vkAllocateDescriptorSets"))?;
        let mut stores = Vec::new();
        for ((pipeline, view, address, words_per_sample), set) in reads.into_iter().zip(sets) {
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
            let push = words(&[
                address as u32,
                (address >> 32) as u32,
                grid.width,
                grid.samples,
                words_per_sample,
                grid.height,
            ]);
            stores.push(StoreJob { pipeline, set, push });
        }
        let extent = vk::Extent2D { width: grid.width, height: grid.height };
        Ok(SampleCopies { load_layout, store_layout, loads, stores, extent })
    }
}

fn words(values: &[u32; 6]) -> Vec<u8> {
    values.iter().flat_map(|word| word.to_le_bytes()).collect()
}

/// The one pipeline a create call made, kept by `objects` (as is any it made before failing).
fn helper_pipeline(
    objects: &mut ImageObjects,
    created: Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)>,
) -> Result<vk::Pipeline, VulkanError> {
    match created {
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

impl SampleCopies {
    /// Records the passes that write every sample of the targets (their images in COLOR_ATTACHMENT_OPTIMAL and
    /// DEPTH_STENCIL_ATTACHMENT_OPTIMAL) from their buffers.
    ///
    /// # Safety
    /// `commands` is being recorded on the device that made everything here.
    pub unsafe fn record_load(&self, device: &ash::Device, commands: vk::CommandBuffer) {
        let area = vk::Rect2D { offset: vk::Offset2D::default(), extent: self.extent };
        let viewport = vk::Viewport {
            width: self.extent.width as f32,
            height: self.extent.height as f32,
            max_depth: 1.0,
            ..Default::default()
        };
        for job in &self.loads {
            let attachment = |view, layout| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(layout)
                    .load_op(vk::AttachmentLoadOp::DONT_CARE)
                    .store_op(vk::AttachmentStoreOp::STORE)
            };
            let color;
            let (depth_attachment, stencil_attachment);
            let mut rendering = vk::RenderingInfo::default().render_area(area).layer_count(1);
            let mut stencil_write_mask = None;
            match job.target {
                LoadTarget::Color(view) => {
                    color = [attachment(view, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
                    rendering = rendering.color_attachments(&color);
                }
                LoadTarget::DepthStencil { view, depth, stencil, stencil_bit } => {
                    let layout = vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
                    // The depth pass writes every depth sample and clears stencil; the bit passes keep both.
                    let kept = attachment(view, layout).load_op(vk::AttachmentLoadOp::LOAD);
                    depth_attachment = if stencil_bit.is_some() { kept } else { attachment(view, layout) };
                    stencil_attachment =
                        match stencil_bit {
                            Some(_) => kept,
                            None => attachment(view, layout).load_op(vk::AttachmentLoadOp::CLEAR).clear_value(
                                vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth: 0.0, stencil: 0 } },
                            ),
                        };
                    if depth {
                        rendering = rendering.depth_attachment(&depth_attachment);
                    }
                    if stencil {
                        rendering = rendering.stencil_attachment(&stencil_attachment);
                    }
                    stencil_write_mask = stencil_bit.map(|bit| 1u32 << bit);
                }
            }
            // SAFETY: as the caller promises.
            unsafe {
                device.cmd_begin_rendering(commands, &rendering);
                device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::GRAPHICS, job.pipeline);
                device.cmd_set_viewport(commands, 0, &[viewport]);
                device.cmd_set_scissor(commands, 0, &[area]);
                if let Some(mask) = stencil_write_mask {
                    device.cmd_set_stencil_write_mask(commands, vk::StencilFaceFlags::FRONT_AND_BACK, mask);
                }
                device.cmd_push_constants(commands, self.load_layout, vk::ShaderStageFlags::FRAGMENT, 0, &job.push);
                device.cmd_draw(commands, 3, 1, 0, 0);
                device.cmd_end_rendering(commands);
            }
        }
    }

    /// Records the passes that read every sample of the targets (their images in SHADER_READ_ONLY_OPTIMAL) into
    /// their buffers, and makes the words visible to the host.
    ///
    /// # Safety
    /// As `record_load`.
    pub unsafe fn record_store(&self, device: &ash::Device, commands: vk::CommandBuffer) {
        let (width, height) = (self.extent.width, self.extent.height);
        // SAFETY: as the caller promises.
        unsafe {
            for job in &self.stores {
                device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::COMPUTE, job.pipeline);
                device.cmd_bind_descriptor_sets(
                    commands,
                    vk::PipelineBindPoint::COMPUTE,
                    self.store_layout,
                    0,
                    &[job.set],
                    &[],
                );
                device.cmd_push_constants(commands, self.store_layout, vk::ShaderStageFlags::COMPUTE, 0, &job.push);
                device.cmd_dispatch(commands, width.div_ceil(8), height.div_ceil(8), 1);
            }
            super::image::record_shader_writes_to_host(device, commands);
        }
    }
}

/// Whether depth of `format` goes in and out of a multisampled image exactly through FP32: not 24-bit depth,
/// which lavapipe's conversions leave a step off for some values (16-bit depth has margin to spare).
pub(super) fn depth_through_float(format: vk::Format) -> bool {
    !matches!(format, vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D24_UNORM_S8_UINT)
}

/// The depth texels of `format` as a buffer copy lays them out (`bytes` each: 2 or 4) as FP32 bits, one word
/// each: unsigned normalised depth as its value (d / (2^n - 1), rounded once), float depth as it is.
pub(super) fn depth_to_float(format: vk::Format, bytes: u64, texels: &[u8]) -> Vec<u8> {
    use vk::Format as F;
    let value = |texel: &[u8]| -> u32 {
        match format {
            F::D16_UNORM | F::D16_UNORM_S8_UINT => {
                (f64::from(u16::from_le_bytes([texel[0], texel[1]])) / 65535.0) as f32
            }
            F::X8_D24_UNORM_PACK32 | F::D24_UNORM_S8_UINT => {
                let raw = u32::from_le_bytes([texel[0], texel[1], texel[2], texel[3]]) & 0xff_ffff;
                (f64::from(raw) / f64::from(0xff_ffffu32)) as f32
            }
            _ => return u32::from_le_bytes([texel[0], texel[1], texel[2], texel[3]]),
        }
        .to_bits()
    };
    texels.chunks_exact(bytes as usize).flat_map(|texel| value(texel).to_le_bytes()).collect()
}

/// The inverse of `depth_to_float`: unsigned normalised depth rounded to the nearest step.
pub(super) fn depth_from_float(format: vk::Format, words: &[u8]) -> Vec<u8> {
    use vk::Format as F;
    words
        .chunks_exact(4)
        .flat_map(|word| {
            let bits = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let unorm = |max: f64| (f64::from(f32::from_bits(bits)).clamp(0.0, 1.0) * max).round() as u32;
            match format {
                F::D16_UNORM | F::D16_UNORM_S8_UINT => (unorm(65535.0) as u16).to_le_bytes().to_vec(),
                F::X8_D24_UNORM_PACK32 | F::D24_UNORM_S8_UINT => unorm(f64::from(0xff_ffffu32)).to_le_bytes().to_vec(),
                _ => bits.to_le_bytes().to_vec(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vulkan::{ColorTarget, DepthAttachment, DrawJob, DrawStage};

    fn random_bytes(seed: &mut u64, count: u64) -> Vec<u8> {
        (0..count)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                *seed as u8
            })
            .collect()
    }

    /// A draw of `width` x `height` pixels of `samples` samples that covers nothing, over `targets` and `depth`.
    fn draw_nothing<'a>(
        shaders: (&'a [u32], &'a [u32]),
        targets: Vec<ColorTarget<'a>>,
        depth: Option<DepthAttachment<'a>>,
        (width, height, samples): (u32, u32, u32),
    ) -> DrawJob<'a> {
        DrawJob {
            stages: vec![
                DrawStage::unbound(vk::ShaderStageFlags::VERTEX, 0, shaders.0),
                DrawStage::unbound(vk::ShaderStageFlags::FRAGMENT, 1, shaders.1),
            ],
            patch_vertices: None,
            push_constants: &[],
            width,
            height,
            targets,
            depth,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            vertex_count: 0,
            instance_count: 1,
            viewports: vec![vk::Viewport { width: 1.0, height: 1.0, max_depth: 1.0, ..Default::default() }],
            scissors: vec![vk::Rect2D::default()],
            cull_mode: vk::CullModeFlags::NONE,
            polygon_mode: vk::PolygonMode::FILL,
            front_face: vk::FrontFace::COUNTER_CLOCKWISE,
            blend_constants: [0.0; 4],
            logic_op: None,
            depth_clamp: false,
            count_samples: false,
            statistics: vk::QueryPipelineStatisticFlags::empty(),
            count_primitives_generated: false,
            lines: None,
            rasterizer_discard: false,
            conservative: None,
            layers: 1,
            multisample: Some(Multisampling {
                samples,
                mask: 0xff,
                min_sample_shading: None,
                alpha_to_coverage: false,
                alpha_to_one: false,
            }),
        }
    }

    /// A draw that covers nothing leaves every sample of multisampled colour and depth/stencil targets as they
    /// came in, whatever the texel size, depth format and sample count the device has (lavapipe: 4; NVIDIA: 2, 4
    /// and 8): the copies in and out move the bits unchanged (depth through FP32 exactly, stencil bit by bit), in
    /// the order the buffers lay out.
    #[test]
    fn samples_go_in_and_come_back_unchanged() {
        let device = ComputeDevice::shared_for_tests();
        let mut tried = 0;
        for count in [2, 4, 8] {
            tried += usize::from(copies_round_trip(&device, count));
        }
        assert!(tried > 0, "{} draws none of 2, 4 or 8 samples", device.name());
    }

    /// `samples_go_in_and_come_back_unchanged` at `count` samples a pixel; false when the device has no format
    /// at that count.
    fn copies_round_trip(device: &ComputeDevice, count: u32) -> bool {
        let vertex = host_shader!("fullscreen.vert");
        let fragment = super::super::probe::built(super::super::probe::no_outputs()).unwrap();
        let (width, height) = (5u32, 3u32);
        let samples = u64::from(width * height * count);
        let has = |counts: vk::SampleCountFlags| counts.contains(vk::SampleCountFlags::from_raw(count));
        let mut tried = false;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for (format, bytes) in [
            (vk::Format::R8_UNORM, 1u64),
            (vk::Format::R5G6B5_UNORM_PACK16, 2),
            (vk::Format::R8G8B8A8_UNORM, 4),
            (vk::Format::R16G16B16A16_SFLOAT, 8),
            (vk::Format::R32G32B32A32_UINT, 16),
        ] {
            if !has(device.color_sample_counts(format)) {
                continue;
            }
            tried = true;
            let texels = random_bytes(&mut seed, samples * bytes);
            let target = ColorTarget {
                format,
                bytes_per_texel: bytes,
                texels: &texels,
                write_mask: vk::ColorComponentFlags::empty(),
                blend: None,
            };
            let job = draw_nothing((&vertex, &fragment), vec![target], None, (width, height, count));
            let drawn = device.draw(&job).unwrap_or_else(|error| panic!("{format:?} x{count}: {error}"));
            assert_eq!(drawn.targets[0], texels, "{format:?} x{count}");
        }
        for format in [
            vk::Format::D16_UNORM,
            vk::Format::X8_D24_UNORM_PACK32,
            vk::Format::D24_UNORM_S8_UINT,
            vk::Format::D32_SFLOAT,
            vk::Format::D32_SFLOAT_S8_UINT,
        ] {
            if !has(device.depth_sample_counts(format)) {
                continue;
            }
            let depth_bytes = if format == vk::Format::D16_UNORM { 2 } else { 4 };
            let mut depth = random_bytes(&mut seed, samples * depth_bytes);
            for texel in depth.chunks_exact_mut(4) {
                match format {
                    // Depth within 0..1; the unused high byte of D24 zero, as copies give it back.
                    vk::Format::D32_SFLOAT | vk::Format::D32_SFLOAT_S8_UINT => {
                        let value = f32::from(texel[0]) / 255.0 + f32::from(texel[1]) / 65536.0;
                        texel.copy_from_slice(&value.min(1.0).to_bits().to_le_bytes());
                    }
                    vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D24_UNORM_S8_UINT => texel[3] = 0,
                    _ => {}
                }
            }
            if !depth_through_float(format) {
                let job = draw_nothing((&vertex, &fragment), Vec::new(), None, (width, height, count));
                let attachment = DepthAttachment {
                    format,
                    depth: &depth,
                    stencil: &[],
                    depth_test: None,
                    depth_write: false,
                    stencil_test: None,
                    bias: None,
                    bounds: None,
                };
                let error = device.draw(&DrawJob { depth: Some(attachment), ..job }).unwrap_err();
                assert!(error.to_string().contains("multisampled"), "{format:?}: {error}");
                continue;
            }
            let has_stencil = matches!(format, vk::Format::D24_UNORM_S8_UINT | vk::Format::D32_SFLOAT_S8_UINT);
            let stencil = if has_stencil { random_bytes(&mut seed, samples) } else { Vec::new() };
            let attachment = DepthAttachment {
                format,
                depth: &depth,
                stencil: &stencil,
                depth_test: None,
                depth_write: false,
                stencil_test: None,
                bias: None,
                bounds: None,
            };
            let job = draw_nothing((&vertex, &fragment), Vec::new(), Some(attachment), (width, height, count));
            let drawn = device.draw(&job).unwrap_or_else(|error| panic!("{format:?} x{count}: {error}"));
            assert_eq!(drawn.depth, depth, "{format:?} x{count} depth");
            assert_eq!(drawn.stencil, stencil, "{format:?} x{count} stencil");
        }
        tried
    }
}
