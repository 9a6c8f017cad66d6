//! `ComputeDevice::draw`: one draw into colour targets whose texels come from the caller and go back to it. The
//! reference back end's draws are this: upload the targets, build the pipeline, draw, read the targets back,
//! destroy it all (no caches, no state carried from one draw to the next).
//!
//! The interface the shaders meet: the vertex stage's storage buffers at set 0, the fragment stage's at set 1
//! (binding = index), then each stage's texture slots in the same set from binding (the number of buffers) on
//! (`sampled::slot_descriptors`: a combined image sampler a texture, two arrays for the pools), then its storage
//! images (uploaded, kept in GENERAL, read back into `Drawn::images`), a push constant block for the vertex stage,
//! colour output `Location` i for target i. No vertex input state: vertex shaders fetch their own attributes.

use super::image::{READING, UNDEFINED, WRITING, first_layers, transition};
use super::multisample::{self, Grid, Multisampling, RawDepth, RawTarget};
use super::sampled::{SampledSlot, TextureSlot, slot_descriptors, slot_pool_sizes, slot_uploads};
use super::storage::StorageImage;
use super::{Buffer, ComputeDevice, VulkanError};
use ash::vk;
use std::ffi::CString;

/// A colour target: its texels before the draw, row by row from the top with no padding (multisampled: each
/// pixel's samples in order).
#[derive(Clone, Debug)]
pub struct ColorTarget<'a> {
    pub format: vk::Format,
    pub bytes_per_texel: u64,
    pub texels: &'a [u8],
    /// Components the draw may write.
    pub write_mask: vk::ColorComponentFlags,
    pub blend: Option<Blend>,
}

/// One target's blending: colour and alpha each `source * src_factor OP destination * dst_factor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blend {
    pub color: (vk::BlendFactor, vk::BlendFactor, vk::BlendOp),
    pub alpha: (vk::BlendFactor, vk::BlendFactor, vk::BlendOp),
}

impl Blend {
    /// Whether a factor reads the fragment's second colour (dual-source blending).
    pub fn reads_second_source(&self) -> bool {
        use vk::BlendFactor as F;
        [self.color.0, self.color.1, self.alpha.0, self.alpha.1].into_iter().any(|factor| {
            matches!(factor, F::SRC1_COLOR | F::ONE_MINUS_SRC1_COLOR | F::SRC1_ALPHA | F::ONE_MINUS_SRC1_ALPHA)
        })
    }
}

/// The depth/stencil attachment of a draw: its texels before the draw, per aspect as buffer copies lay them out
/// for `format` (depth 2 or 4 bytes a texel, stencil 1; empty for an aspect the format lacks), rows from the top,
/// and the tests.
#[derive(Clone, Debug)]
pub struct DepthAttachment<'a> {
    pub format: vk::Format,
    pub depth: &'a [u8],
    pub stencil: &'a [u8],
    /// The depth test's comparison (`None`: off) and whether passing samples write depth.
    pub depth_test: Option<vk::CompareOp>,
    pub depth_write: bool,
    /// Front and back faces' stencil tests (`None`: off).
    pub stencil_test: Option<[vk::StencilOpState; 2]>,
    /// Depth bias (`None`: off) as vkCmdSetDepthBias takes it: constant factor, clamp, slope factor.
    pub bias: Option<[f32; 3]>,
    /// The depth bounds test's range (`None`: off).
    pub bounds: Option<[f32; 2]>,
}

impl DepthAttachment<'_> {
    /// The aspects the format has, with the bytes a texel of each takes in a buffer copy.
    fn aspects(&self) -> Vec<(vk::ImageAspectFlags, u64)> {
        use vk::Format as F;
        let depth = match self.format {
            F::D16_UNORM | F::D16_UNORM_S8_UINT => Some(2),
            F::S8_UINT => None,
            _ => Some(4),
        };
        let stencil =
            matches!(self.format, F::S8_UINT | F::D16_UNORM_S8_UINT | F::D24_UNORM_S8_UINT | F::D32_SFLOAT_S8_UINT);
        depth
            .map(|bytes| (vk::ImageAspectFlags::DEPTH, bytes))
            .into_iter()
            .chain(stencil.then_some((vk::ImageAspectFlags::STENCIL, 1)))
            .collect()
    }
}

/// What a draw leaves: each colour target's texels, and the depth attachment's depth and stencil texels.
#[derive(Clone, Debug, Default)]
pub struct Drawn {
    pub targets: Vec<Vec<u8>>,
    pub depth: Vec<u8>,
    pub stencil: Vec<u8>,
    /// With `DrawJob::count_samples`: the samples that passed.
    pub samples_passed: u64,
    /// With `DrawJob::statistics`: each statistic's count, in the order of their flags' bits.
    pub statistics: Vec<u64>,
    /// With `DrawJob::count_primitives_generated`: the primitives the last stage before the rasteriser made.
    pub primitives_generated: u64,
    /// The storage images' texels after the draw, stage after stage in `DrawJob::stages` order.
    pub images: Vec<Vec<u8>>,
}

/// Everything a draw needs.
#[derive(Clone, Debug)]
pub struct DrawJob<'a> {
    /// The programmable stages, in the order the pipeline runs them (vertex, tessellation, geometry, fragment).
    pub stages: Vec<DrawStage<'a>>,
    /// Control points of each patch, for a draw of patches (through tessellation programs).
    pub patch_vertices: Option<u32>,
    /// The push constants of the vertex stage and of a geometry stage, which both read them.
    pub push_constants: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub targets: Vec<ColorTarget<'a>>,
    pub depth: Option<DepthAttachment<'a>>,
    pub topology: vk::PrimitiveTopology,
    pub vertex_count: u32,
    pub instance_count: u32,
    /// One viewport and scissor, or several (as many each) that the vertex shader's `ViewportIndex` picks from.
    pub viewports: Vec<vk::Viewport>,
    pub scissors: Vec<vk::Rect2D>,
    pub cull_mode: vk::CullModeFlags,
    /// How triangles are drawn: filled, as their edges (lines, by `lines`) or as their vertices (points).
    pub polygon_mode: vk::PolygonMode,
    pub front_face: vk::FrontFace,
    pub blend_constants: [f32; 4],
    /// A logic op on every colour target instead of blending (normalised and integer formats only).
    pub logic_op: Option<vk::LogicOp>,
    /// Depth clamped to the viewport's depth range rather than primitives clipped there.
    pub depth_clamp: bool,
    /// Count the samples that pass the depth and stencil tests (a precise occlusion query).
    pub count_samples: bool,
    /// The pipeline statistics to count (a pipeline statistics query; empty for none).
    pub statistics: vk::QueryPipelineStatisticFlags,
    /// Count the primitives the last stage before the rasteriser makes (a primitives generated query).
    pub count_primitives_generated: bool,
    /// How a draw of lines rasterises them (`None` for other primitives).
    pub lines: Option<LineRasterization>,
    /// Primitives stop before the rasteriser: only the vertex stage runs.
    pub rasterizer_discard: bool,
    /// Conservative rasterisation (overestimating), with this much extra overestimation in pixels.
    pub conservative: Option<f32>,
    /// Layers of the targets (their texels layer after layer), which the vertex stage's `Layer` picks from.
    pub layers: u32,
    /// Multisampled colour targets (`None`: one sample a pixel).
    pub multisample: Option<Multisampling>,
}

impl DrawJob<'_> {
    /// The stages that see the push constants: the vertex stage and a geometry stage.
    fn push_constant_stages(&self) -> vk::ShaderStageFlags {
        let readers = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::GEOMETRY;
        self.stages
            .iter()
            .map(|stage| stage.stage & readers)
            .fold(vk::ShaderStageFlags::empty(), |all, stage| all | stage)
    }
}

/// One programmable stage of a draw: its SPIR-V module (entry point `main`) and what it binds in descriptor set
/// `set` (the translator's `Stage::descriptor_set`), in binding order: its constant buffers, its texture slots,
/// then its storage images (its surfaces).
#[derive(Clone, Copy, Debug)]
pub struct DrawStage<'a> {
    pub stage: vk::ShaderStageFlags,
    pub set: u32,
    pub spirv: &'a [u32],
    pub buffers: &'a [&'a Buffer],
    pub textures: &'a [TextureSlot<'a>],
    pub images: StageImages<'a>,
}

impl<'a> DrawStage<'a> {
    /// A stage that binds nothing, in set `set`.
    pub fn unbound(stage: vk::ShaderStageFlags, set: u32, spirv: &'a [u32]) -> DrawStage<'a> {
        DrawStage { stage, set, spirv, buffers: &[], textures: &[], images: StageImages::default() }
    }
}

/// A stage's storage images, and which image each of its storage image bindings is (one image may be bound more
/// than once).
#[derive(Clone, Copy, Debug, Default)]
pub struct StageImages<'a> {
    pub images: &'a [StorageImage],
    pub bindings: &'a [usize],
}

/// Lines' width and VK_EXT_line_rasterization's mode for them (DEFAULT: the device's own lines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineRasterization {
    pub width: f32,
    pub mode: vk::LineRasterizationModeEXT,
    /// The stipple's factor (1 to 256) and pattern, when lines are stippled.
    pub stipple: Option<(u32, u16)>,
}

impl ComputeDevice {
    /// Runs `job` and returns each target's texels after it, as they were given.
    /// `Ok` when the device has a feature (`has`), else the error naming it and what needs it.
    fn require(&self, has: bool, feature: &'static str, needed_by: &'static str) -> Result<(), VulkanError> {
        if has { Ok(()) } else { Err(VulkanError::MissingFeature { device: self.name.clone(), feature, needed_by }) }
    }

    pub fn draw(&self, job: &DrawJob) -> Result<Drawn, VulkanError> {
        if !self.features.draws {
            return Err(VulkanError::NoDraws(self.name.clone()));
        }
        if let Some(depth) = &job.depth {
            if depth.bias.is_some_and(|[_, clamp, _]| clamp != 0.0) {
                self.require(self.features.depth_bias_clamp, "depthBiasClamp", "polygon offset with a clamp")?;
            }
            if depth.bounds.is_some() {
                self.require(self.features.depth_bounds, "depthBounds", "the depth bounds test")?;
            }
        }
        if job.targets.windows(2).any(|pair| (pair[0].write_mask, pair[0].blend) != (pair[1].write_mask, pair[1].blend))
        {
            self.require(
                self.features.independent_blend,
                "independentBlend",
                "targets that blend or mask differently",
            )?;
        }
        if job.targets.iter().filter_map(|target| target.blend).any(|blend| blend.reads_second_source()) {
            self.require(self.features.dual_src_blend, "dualSrcBlend", "blending with SRC1 factors")?;
        }
        for buffer in job.stages.iter().flat_map(|stage| stage.buffers) {
            self.owns(buffer)?;
        }
        for stage in &job.stages {
            let (feature, needed_by) = match stage.stage {
                vk::ShaderStageFlags::FRAGMENT => (self.features.fragment_stores, "fragmentStoresAndAtomics"),
                _ => (self.features.vertex_stores, "vertexPipelineStoresAndAtomics"),
            };
            let images = &stage.images;
            if !images.bindings.is_empty() {
                self.require(feature, needed_by, "a graphics program that reaches surfaces")?;
            }
            if let Some(&index) = images.bindings.iter().find(|&&index| index >= images.images.len()) {
                return Err(VulkanError::OutOfBounds {
                    offset: index as u64,
                    len: 1,
                    size: images.images.len() as u64,
                });
            }
            if stage.stage == vk::ShaderStageFlags::GEOMETRY {
                self.require(
                    self.features.geometry_shader.is_some(),
                    "geometryShader",
                    "a draw with a geometry program",
                )?;
            }
            if stage.stage == vk::ShaderStageFlags::TESSELLATION_CONTROL {
                self.require(self.features.tessellation_shader, "tessellationShader", "a draw of patches")?;
            }
        }
        use vk::PrimitiveTopology as T;
        if matches!(
            job.topology,
            T::LINE_LIST_WITH_ADJACENCY
                | T::LINE_STRIP_WITH_ADJACENCY
                | T::TRIANGLE_LIST_WITH_ADJACENCY
                | T::TRIANGLE_STRIP_WITH_ADJACENCY
        ) {
            self.require(self.features.geometry_shader.is_some(), "geometryShader", "primitives with adjacency")?;
        }
        let extent = vk::Extent3D { width: job.width.max(1), height: job.height.max(1), depth: 1 };
        let target_layers = job.layers.max(1);
        if target_layers > 1 {
            self.require(self.features.output_layer, "shaderOutputLayer", "a vertex program that picks the layer")?;
        }
        let samples = job.multisample.map_or(1, |multisample| multisample.samples);
        let texels = u64::from(extent.width) * u64::from(extent.height) * u64::from(target_layers) * u64::from(samples);
        if let Some(multisample) = &job.multisample {
            self.require(
                self.features.multisampling,
                "sampleRateShading and standardSampleLocations",
                "multisampled targets",
            )?;
            if let Some(depth) = &job.depth {
                if !multisample::depth_through_float(depth.format) {
                    return Err(VulkanError::UnsupportedFormat(format!(
                        "{:?} (as a multisampled depth target: its depth does not survive FP32 copies on every device; \
                         D32_SFLOAT does)",
                        depth.format
                    )));
                }
                if !self.depth_sample_counts(depth.format).contains(multisample.count()) {
                    return Err(VulkanError::UnsupportedFormat(format!(
                        "{:?} (as a depth target of {} samples a pixel)",
                        depth.format, multisample.samples
                    )));
                }
            }
            for target in &job.targets {
                if !self.color_sample_counts(target.format).contains(multisample.count())
                    || multisample::raw_format(target.bytes_per_texel).is_none()
                {
                    return Err(VulkanError::UnsupportedFormat(format!(
                        "{:?} (as a colour target of {} samples a pixel)",
                        target.format, multisample.samples
                    )));
                }
            }
        }
        let mut transfers = Vec::new();
        for target in &job.targets {
            let size = texels * target.bytes_per_texel;
            if target.texels.len() as u64 != size {
                return Err(VulkanError::OutOfBounds { offset: 0, len: target.texels.len() as u64, size });
            }
            let wanted = vk::FormatFeatureFlags::COLOR_ATTACHMENT
                | vk::FormatFeatureFlags::TRANSFER_SRC
                | vk::FormatFeatureFlags::TRANSFER_DST;
            if !self.format_features(target.format).contains(wanted) {
                return Err(VulkanError::UnsupportedFormat(format!("{:?} (as a colour target)", target.format)));
            }
            // Multisampled targets' samples go through shaders, a word or more each.
            let bytes = match job.multisample {
                Some(_) => multisample::widen(target.texels, target.bytes_per_texel),
                None => target.texels.to_vec(),
            };
            let buffer = self.buffer((bytes.len() as u64).max(1))?;
            self.write(&buffer, 0, &bytes)?;
            transfers.push(buffer);
        }

        // The depth attachment's aspects, each with its buffer (uploaded, then read back into).
        let mut depth_buffers = Vec::new();
        if let Some(depth) = &job.depth {
            let wanted = vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT
                | vk::FormatFeatureFlags::TRANSFER_SRC
                | vk::FormatFeatureFlags::TRANSFER_DST;
            if !self.format_features(depth.format).contains(wanted) {
                return Err(VulkanError::UnsupportedFormat(format!("{:?} (as a depth target)", depth.format)));
            }
            for (aspect, bytes) in depth.aspects() {
                let data = if aspect == vk::ImageAspectFlags::DEPTH { depth.depth } else { depth.stencil };
                let size = texels * bytes;
                if data.len() as u64 != size {
                    return Err(VulkanError::OutOfBounds { offset: 0, len: data.len() as u64, size });
                }
                // Multisampled depth goes through shaders as FP32 bits, stencil as words.
                let contents = match (job.multisample, aspect) {
                    (None, _) => data.to_vec(),
                    (Some(_), vk::ImageAspectFlags::DEPTH) => multisample::depth_to_float(depth.format, bytes, data),
                    (Some(_), _) => multisample::widen(data, 1),
                };
                let buffer = self.buffer((contents.len() as u64).max(1))?;
                self.write(&buffer, 0, &contents)?;
                depth_buffers.push((aspect, bytes, buffer));
            }
        }
        let uploads = self.texture_uploads(job.stages.iter().flat_map(|stage| slot_uploads(stage.textures)))?;
        let storage_transfers = job
            .stages
            .iter()
            .map(|stage| self.storage_transfers(stage.images.images))
            .collect::<Result<Vec<_>, _>>()?;
        // Where the occlusion query's result lands (dropped after the queue lock: dropping a buffer takes it).
        let samples_buffer = if job.count_samples { Some(self.buffer(8)?) } else { None };
        let statistics_count = u64::from(job.statistics.as_raw().count_ones());
        let statistics_buffer = if statistics_count > 0 { Some(self.buffer(8 * statistics_count)?) } else { None };
        let generated_buffer = if job.count_primitives_generated { Some(self.buffer(8)?) } else { None };
        let mut queue = self.shared.ready()?;
        let mut objects = self.objects(queue.pool);
        let device = &self.shared.device;
        let images = job
            .targets
            .iter()
            .map(|target| match &job.multisample {
                None => {
                    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT;
                    objects.layered_image_for(target.format, extent.width, extent.height, target_layers, usage)
                }
                // Seen through raw views too, which the passes that copy its samples render to and sample.
                Some(multisample) => objects.image_with(
                    vk::ImageCreateInfo::default()
                        .flags(vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::EXTENDED_USAGE)
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(target.format)
                        .extent(extent)
                        .mip_levels(1)
                        .array_layers(target_layers)
                        .samples(multisample.count())
                        .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED),
                ),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let color = vk::ImageAspectFlags::COLOR;
        // SAFETY (every call below): the create infos and what they point to outlive each call; every handle was
        // made from this device and lives until `objects` is dropped, after the work has finished.
        let all_layers =
            |aspect| vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(target_layers);
        let view_type = if target_layers > 1 { vk::ImageViewType::TYPE_2D_ARRAY } else { vk::ImageViewType::TYPE_2D };
        let mut views = Vec::new();
        for (&image, target) in images.iter().zip(&job.targets) {
            views.push(objects.view(image, view_type, target.format, all_layers(color))?);
        }
        let depth_aspects =
            depth_buffers.iter().fold(vk::ImageAspectFlags::empty(), |aspects, (aspect, _, _)| aspects | *aspect);
        let depth_image = match &job.depth {
            Some(depth) => {
                let info = vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(depth.format)
                    .extent(extent)
                    .mip_levels(1)
                    .array_layers(target_layers);
                let info = match &job.multisample {
                    None => info.usage(
                        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                            | vk::ImageUsageFlags::TRANSFER_SRC
                            | vk::ImageUsageFlags::TRANSFER_DST,
                    ),
                    // Its samples are read by sampling each aspect.
                    Some(multisample) => info
                        .samples(multisample.count())
                        .usage(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED),
                };
                let image = objects.image_with(info)?;
                let view = objects.view(image, view_type, depth.format, all_layers(depth_aspects))?;
                Some((image, view))
            }
            None => None,
        };
        let mut raw_targets = Vec::new();
        let sample_copies = match &job.multisample {
            None => None,
            Some(multisample) => {
                let colors = images.iter().zip(&job.targets).zip(&transfers);
                for ((&image, target), buffer) in colors {
                    raw_targets.push(RawTarget::new(
                        &mut objects,
                        image,
                        target.bytes_per_texel,
                        buffer,
                        target_layers,
                    )?);
                }
                let raw_depth = match (&job.depth, depth_image) {
                    (Some(depth), Some((image, _))) => {
                        let buffer =
                            |wanted| depth_buffers.iter().find(|(aspect, _, _)| *aspect == wanted).map(|(_, _, b)| b);
                        let buffers = (buffer(vk::ImageAspectFlags::DEPTH), buffer(vk::ImageAspectFlags::STENCIL));
                        Some(RawDepth::new(&mut objects, image, depth.format, buffers, target_layers)?)
                    }
                    _ => None,
                };
                let grid = Grid { width: extent.width, height: extent.height, samples: multisample.samples };
                Some(self.sample_copies(&mut objects, &raw_targets, raw_depth.as_ref(), grid)?)
            }
        };
        let mut modules = Vec::new();
        for stage in &job.stages {
            let info = vk::ShaderModuleCreateInfo::default().code(stage.spirv);
            let module = unsafe { device.create_shader_module(&info, None) }
                .map_err(VulkanError::call("vkCreateShaderModule"))?;
            objects.modules.push(module);
            modules.push(module);
        }
        let mut stage_sampled = Vec::new();
        let mut uploads = uploads.as_slice();
        for stage in &job.stages {
            let (these, rest) = uploads.split_at(slot_uploads(stage.textures).count());
            stage_sampled.push(self.texture_slots(&mut objects, stage.textures, these)?);
            uploads = rest;
        }
        let stored = job
            .stages
            .iter()
            .zip(&storage_transfers)
            .map(|(stage, transfers)| self.storage_images(&mut objects, stage.images.images, transfers))
            .collect::<Result<Vec<_>, _>>()?;
        // Each stage's texture descriptors after its buffers, then its storage images.
        let stage_descriptors: Vec<_> = job
            .stages
            .iter()
            .zip(&stage_sampled)
            .zip(&stored)
            .map(|((stage, sampled), stored)| {
                let mut descriptors = slot_descriptors(sampled, stage.buffers.len() as u32);
                let first_image = stage.buffers.len() as u32 + descriptors.len() as u32;
                descriptors.extend(
                    stage
                        .images
                        .bindings
                        .iter()
                        .enumerate()
                        .map(|(k, &index)| stored[index].descriptor(first_image + k as u32)),
                );
                descriptors
            })
            .collect();
        // One layout a set, up to the last any stage binds: the stage's, or an empty one for a set no stage takes.
        let sets_bound = job.stages.iter().map(|stage| stage.set + 1).max().unwrap_or(0);
        for set in 0..sets_bound {
            let stage = job.stages.iter().position(|stage| stage.set == set);
            let bindings: Vec<_> = stage
                .into_iter()
                .flat_map(|index| {
                    let stage = &job.stages[index];
                    (0..stage.buffers.len() as u32)
                        .map(|binding| {
                            vk::DescriptorSetLayoutBinding::default()
                                .binding(binding)
                                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                                .descriptor_count(1)
                                .stage_flags(stage.stage)
                        })
                        .chain(stage_descriptors[index].iter().map(|descriptor| descriptor.layout(stage.stage)))
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            let layout = unsafe { device.create_descriptor_set_layout(&info, None) }
                .map_err(VulkanError::call("vkCreateDescriptorSetLayout"))?;
            objects.set_layouts.push(layout);
        }
        let push_ranges = [vk::PushConstantRange::default()
            .stage_flags(job.push_constant_stages())
            .size(job.push_constants.len() as u32)];
        let push_ranges: &[vk::PushConstantRange] = if job.push_constants.is_empty() { &[] } else { &push_ranges };
        let layout_info =
            vk::PipelineLayoutCreateInfo::default().set_layouts(&objects.set_layouts).push_constant_ranges(push_ranges);
        objects.pipeline_layout = unsafe { device.create_pipeline_layout(&layout_info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;

        let main = CString::new("main").expect("no NUL");
        let shader_stages: Vec<_> = modules
            .iter()
            .zip(&job.stages)
            .map(|(&module, stage)| {
                vk::PipelineShaderStageCreateInfo::default().stage(stage.stage).module(module).name(&main)
            })
            .collect();
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(job.topology);
        if job.viewports.len() > 1 {
            self.require(
                self.features.viewport_index,
                "multiViewport and shaderOutputViewportIndex",
                "a vertex program that writes the viewport index",
            )?;
        }
        let viewport_state =
            vk::PipelineViewportStateCreateInfo::default().viewports(&job.viewports).scissors(&job.scissors);
        if job.polygon_mode != vk::PolygonMode::FILL {
            self.require(self.features.fill_mode_non_solid, "fillModeNonSolid", "triangles drawn as lines or points")?;
        }
        let mut raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(job.polygon_mode)
            .cull_mode(job.cull_mode)
            .front_face(job.front_face)
            .rasterizer_discard_enable(job.rasterizer_discard)
            .line_width(1.0);
        if job.depth_clamp {
            self.require(self.features.depth_clamp, "depthClamp", "depth clamping (SET_VIEWPORT_CLIP_CONTROL)")?;
            raster = raster.depth_clamp_enable(true);
        }
        let mut conservative_state = vk::PipelineRasterizationConservativeStateCreateInfoEXT::default();
        if let Some(extra) = job.conservative {
            let [_, most] = self.features.conservative_rasterization.ok_or_else(|| VulkanError::MissingFeature {
                device: self.name.clone(),
                feature: "VK_EXT_conservative_rasterization",
                needed_by: "conservative rasterisation (SET_CONSERVATIVE_RASTER)",
            })?;
            self.require(extra <= most, "maxExtraPrimitiveOverestimationSize", "the extra overestimation asked for")?;
            conservative_state = conservative_state
                .conservative_rasterization_mode(vk::ConservativeRasterizationModeEXT::OVERESTIMATE)
                .extra_primitive_overestimation_size(extra);
            raster = raster.push_next(&mut conservative_state);
        }
        let mut line_state = vk::PipelineRasterizationLineStateCreateInfoEXT::default();
        if let Some(lines) = job.lines {
            if lines.width != 1.0 {
                self.require(self.features.wide_lines.is_some(), "wideLines", "lines wider than one pixel")?;
            }
            raster = raster.line_width(lines.width);
            use vk::LineRasterizationModeEXT as Mode;
            match lines.mode {
                Mode::BRESENHAM => self.require(self.features.bresenham_lines, "bresenhamLines", "aliased lines")?,
                Mode::RECTANGULAR_SMOOTH => {
                    self.require(self.features.smooth_lines, "smoothLines", "anti-aliased lines")?
                }
                _ => {}
            }
            if let Some((factor, pattern)) = lines.stipple {
                match lines.mode {
                    Mode::BRESENHAM => self.require(
                        self.features.stippled_bresenham_lines,
                        "stippledBresenhamLines",
                        "stippled aliased lines",
                    )?,
                    Mode::RECTANGULAR_SMOOTH => self.require(
                        self.features.stippled_smooth_lines,
                        "stippledSmoothLines",
                        "stippled anti-aliased lines",
                    )?,
                    // Lines drawn as the device draws them (no Bresenham lines) have no stipple to ask for.
                    _ => self.require(false, "bresenhamLines", "stippled lines")?,
                }
                line_state =
                    line_state.stippled_line_enable(true).line_stipple_factor(factor).line_stipple_pattern(pattern);
            }
            if lines.mode != Mode::DEFAULT {
                line_state = line_state.line_rasterization_mode(lines.mode);
                raster = raster.push_next(&mut line_state);
            }
        }
        if let Some([constant, clamp, slope]) = job.depth.as_ref().and_then(|depth| depth.bias) {
            raster = raster
                .depth_bias_enable(true)
                .depth_bias_constant_factor(constant)
                .depth_bias_clamp(clamp)
                .depth_bias_slope_factor(slope);
        }
        let sample_mask = [job.multisample.map_or(1, |multisample| multisample.mask)];
        let mut multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(job.multisample.map_or(vk::SampleCountFlags::TYPE_1, |m| m.count()))
            .sample_mask(&sample_mask);
        if let Some(fraction) = job.multisample.and_then(|multisample| multisample.min_sample_shading) {
            multisample = multisample.sample_shading_enable(true).min_sample_shading(fraction);
        }
        if let Some(state) = job.multisample {
            if state.alpha_to_one {
                self.require(self.features.alpha_to_one, "alphaToOne", "alpha-to-one (SET_ANTI_ALIAS_ALPHA_CONTROL)")?;
            }
            multisample =
                multisample.alpha_to_coverage_enable(state.alpha_to_coverage).alpha_to_one_enable(state.alpha_to_one);
        }
        let attachments: Vec<_> = job
            .targets
            .iter()
            .map(|target| {
                let state = vk::PipelineColorBlendAttachmentState::default().color_write_mask(target.write_mask);
                match target.blend {
                    None => state,
                    Some(blend) => state
                        .blend_enable(true)
                        .src_color_blend_factor(blend.color.0)
                        .dst_color_blend_factor(blend.color.1)
                        .color_blend_op(blend.color.2)
                        .src_alpha_blend_factor(blend.alpha.0)
                        .dst_alpha_blend_factor(blend.alpha.1)
                        .alpha_blend_op(blend.alpha.2),
                }
            })
            .collect();
        let mut blend_state = vk::PipelineColorBlendStateCreateInfo::default()
            .attachments(&attachments)
            .blend_constants(job.blend_constants);
        if let Some(op) = job.logic_op {
            self.require(self.features.logic_op, "logicOp", "a logic op on colour targets")?;
            blend_state = blend_state.logic_op_enable(true).logic_op(op);
        }
        let formats: Vec<_> = job.targets.iter().map(|target| target.format).collect();
        let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let mut depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default();
        if let Some(depth) = &job.depth {
            if depth_aspects.contains(vk::ImageAspectFlags::DEPTH) {
                rendering = rendering.depth_attachment_format(depth.format);
            }
            if depth_aspects.contains(vk::ImageAspectFlags::STENCIL) {
                rendering = rendering.stencil_attachment_format(depth.format);
            }
            if let Some(compare) = depth.depth_test {
                depth_stencil = depth_stencil
                    .depth_test_enable(true)
                    .depth_compare_op(compare)
                    .depth_write_enable(depth.depth_write);
            }
            if let Some([front, back]) = depth.stencil_test {
                depth_stencil = depth_stencil.stencil_test_enable(true).front(front).back(back);
            }
            if let Some([min, max]) = depth.bounds {
                depth_stencil =
                    depth_stencil.depth_bounds_test_enable(true).min_depth_bounds(min).max_depth_bounds(max);
            }
        }
        let tessellation =
            vk::PipelineTessellationStateCreateInfo::default().patch_control_points(job.patch_vertices.unwrap_or(1));
        let pipeline = vk::GraphicsPipelineCreateInfo::default();
        let pipeline = if job.patch_vertices.is_some() { pipeline.tessellation_state(&tessellation) } else { pipeline };
        let pipeline_info = [pipeline
            .stages(&shader_stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport_state)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth_stencil)
            .color_blend_state(&blend_state)
            .layout(objects.pipeline_layout)
            .push_next(&mut rendering)];
        objects.pipeline =
            match unsafe { device.create_graphics_pipelines(vk::PipelineCache::null(), &pipeline_info, None) } {
                Ok(pipelines) => pipelines[0],
                Err((pipelines, result)) => {
                    for pipeline in pipelines {
                        unsafe { device.destroy_pipeline(pipeline, None) };
                    }
                    return Err(VulkanError::Pipeline { entry: "main (graphics)".into(), result });
                }
            };

        let buffer_count = job.stages.iter().map(|stage| stage.buffers.len() as u32).sum::<u32>();
        let mut sets = Vec::new();
        if buffer_count > 0 || stage_descriptors.iter().any(|descriptors| !descriptors.is_empty()) {
            let mut sizes = slot_pool_sizes(stage_descriptors.iter().flatten());
            if buffer_count > 0 {
                sizes.push(vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: buffer_count,
                });
            }
            let pool_info = vk::DescriptorPoolCreateInfo::default().max_sets(sets_bound).pool_sizes(&sizes);
            objects.descriptor_pool = unsafe { device.create_descriptor_pool(&pool_info, None) }
                .map_err(VulkanError::call("vkCreateDescriptorPool"))?;
            let allocate = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(objects.descriptor_pool)
                .set_layouts(&objects.set_layouts);
            sets = unsafe { device.allocate_descriptor_sets(&allocate) }
                .map_err(VulkanError::call("vkAllocateDescriptorSets"))?;
            let buffer_infos: Vec<(vk::DescriptorSet, u32, [vk::DescriptorBufferInfo; 1])> = job
                .stages
                .iter()
                .flat_map(|stage| {
                    let set = sets[stage.set as usize];
                    stage.buffers.iter().enumerate().map(move |(binding, buffer)| {
                        (
                            set,
                            binding as u32,
                            [vk::DescriptorBufferInfo { buffer: buffer.handle, offset: 0, range: vk::WHOLE_SIZE }],
                        )
                    })
                })
                .collect();
            let writes: Vec<_> = buffer_infos
                .iter()
                .map(|(set, binding, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(*set)
                        .dst_binding(*binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .chain(job.stages.iter().zip(&stage_descriptors).flat_map(|(stage, descriptors)| {
                    let set = sets[stage.set as usize];
                    descriptors.iter().map(move |descriptor| descriptor.write(set))
                }))
                .collect();
            unsafe { device.update_descriptor_sets(&writes, &[]) };
        }

        if job.count_samples {
            self.require(self.features.occlusion_query_precise, "occlusionQueryPrecise", "a sample counter report")?;
            let info = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::OCCLUSION).query_count(1);
            objects.query_pool =
                unsafe { device.create_query_pool(&info, None) }.map_err(VulkanError::call("vkCreateQueryPool"))?;
        }
        if !job.statistics.is_empty() {
            self.require(
                self.features.pipeline_statistics_query,
                "pipelineStatisticsQuery",
                "a shader counter report",
            )?;
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::PIPELINE_STATISTICS)
                .query_count(1)
                .pipeline_statistics(job.statistics);
            objects.statistics_pool =
                unsafe { device.create_query_pool(&info, None) }.map_err(VulkanError::call("vkCreateQueryPool"))?;
        }
        if job.count_primitives_generated {
            let needed_by = "a VTG_PRIMITIVES_OUT report";
            self.require(self.features.primitives_generated_query, "primitivesGeneratedQuery", needed_by)?;
            if job.rasterizer_discard {
                let feature = "primitivesGeneratedQueryWithRasterizerDiscard";
                self.require(self.features.primitives_generated_with_discard, feature, needed_by)?;
            }
            let info =
                vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::PRIMITIVES_GENERATED_EXT).query_count(1);
            objects.generated_pool =
                unsafe { device.create_query_pool(&info, None) }.map_err(VulkanError::call("vkCreateQueryPool"))?;
        }
        let (query_pool, statistics_pool, generated_pool) =
            (objects.query_pool, objects.statistics_pool, objects.generated_pool);
        let (pipeline, pipeline_layout) = (objects.pipeline, objects.pipeline_layout);
        let rendered = (extent.width, extent.height);
        let shaders = job.stages.iter().fold(vk::PipelineStageFlags::empty(), |stages, stage| {
            stages
                | match stage.stage {
                    vk::ShaderStageFlags::VERTEX => vk::PipelineStageFlags::VERTEX_SHADER,
                    vk::ShaderStageFlags::GEOMETRY => vk::PipelineStageFlags::GEOMETRY_SHADER,
                    vk::ShaderStageFlags::TESSELLATION_CONTROL => vk::PipelineStageFlags::TESSELLATION_CONTROL_SHADER,
                    vk::ShaderStageFlags::TESSELLATION_EVALUATION => {
                        vk::PipelineStageFlags::TESSELLATION_EVALUATION_SHADER
                    }
                    _ => vk::PipelineStageFlags::FRAGMENT_SHADER,
                }
        });
        objects.run(&mut queue, |device, commands| {
            let none = vk::DependencyFlags::empty();
            let transfer = vk::PipelineStageFlags::TRANSFER;
            let output = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
            let attachment = (
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::AccessFlags::COLOR_ATTACHMENT_WRITE | vk::AccessFlags::COLOR_ATTACHMENT_READ,
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(first_layers(color, target_layers))
                .image_extent(extent);
            // SAFETY: commands on objects of this device, recorded into a buffer being recorded.
            unsafe {
                for image in stored.iter().flatten() {
                    image.record_upload(device, commands, shaders);
                }
                for texture in stage_sampled.iter().flatten().flat_map(SampledSlot::images) {
                    texture.record_upload(device, commands, shaders);
                }
                let depth_layout = (
                    vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
                    vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
                );
                let tests = vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
                // Multisampled targets' images (colour and depth) in and out of their attachment layouts.
                let multisampled = |from_color, to_color, from_depth, to_depth| -> Vec<vk::ImageMemoryBarrier> {
                    images
                        .iter()
                        .map(|&image| transition(image, color, from_color, to_color))
                        .chain(depth_image.map(|(image, _)| transition(image, depth_aspects, from_depth, to_depth)))
                        .collect()
                };
                match &sample_copies {
                    None => {
                        let barriers: Vec<_> =
                            images.iter().map(|&image| transition(image, color, UNDEFINED, WRITING)).collect();
                        device.cmd_pipeline_barrier(
                            commands,
                            vk::PipelineStageFlags::TOP_OF_PIPE,
                            transfer,
                            none,
                            &[],
                            &[],
                            &barriers,
                        );
                        for (&image, upload) in images.iter().zip(&transfers) {
                            device.cmd_copy_buffer_to_image(commands, upload.handle, image, WRITING.0, &[region]);
                        }
                        let barriers: Vec<_> =
                            images.iter().map(|&image| transition(image, color, WRITING, attachment)).collect();
                        device.cmd_pipeline_barrier(commands, transfer, output, none, &[], &[], &barriers);
                    }
                    Some(copies) => {
                        let barriers = multisampled(UNDEFINED, attachment, UNDEFINED, depth_layout);
                        let top = vk::PipelineStageFlags::TOP_OF_PIPE;
                        device.cmd_pipeline_barrier(commands, top, output | tests, none, &[], &[], &barriers);
                        copies.record_load(device, commands);
                        let barriers = multisampled(attachment, attachment, depth_layout, depth_layout);
                        device.cmd_pipeline_barrier(
                            commands,
                            output | tests,
                            output | tests,
                            none,
                            &[],
                            &[],
                            &barriers,
                        );
                    }
                }
                if let (Some((image, _)), None) = (depth_image, &sample_copies) {
                    let to_write = [transition(image, depth_aspects, UNDEFINED, WRITING)];
                    device.cmd_pipeline_barrier(
                        commands,
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        transfer,
                        none,
                        &[],
                        &[],
                        &to_write,
                    );
                    for (aspect, _, buffer) in &depth_buffers {
                        let region = vk::BufferImageCopy::default()
                            .image_subresource(first_layers(*aspect, target_layers))
                            .image_extent(extent);
                        device.cmd_copy_buffer_to_image(commands, buffer.handle, image, WRITING.0, &[region]);
                    }
                    let to_test = [transition(image, depth_aspects, WRITING, depth_layout)];
                    device.cmd_pipeline_barrier(commands, transfer, tests, none, &[], &[], &to_test);
                }
                let color_attachments: Vec<_> = views
                    .iter()
                    .map(|&view| {
                        vk::RenderingAttachmentInfo::default()
                            .image_view(view)
                            .image_layout(attachment.0)
                            .load_op(vk::AttachmentLoadOp::LOAD)
                            .store_op(vk::AttachmentStoreOp::STORE)
                    })
                    .collect();
                if job.count_samples {
                    device.cmd_reset_query_pool(commands, query_pool, 0, 1);
                }
                if statistics_buffer.is_some() {
                    device.cmd_reset_query_pool(commands, statistics_pool, 0, 1);
                }
                if generated_buffer.is_some() {
                    device.cmd_reset_query_pool(commands, generated_pool, 0, 1);
                }
                let area = vk::Rect2D {
                    offset: vk::Offset2D::default(),
                    extent: vk::Extent2D { width: rendered.0, height: rendered.1 },
                };
                let depth_attachment = depth_image.map(|(_, view)| {
                    vk::RenderingAttachmentInfo::default()
                        .image_view(view)
                        .image_layout(depth_layout.0)
                        .load_op(vk::AttachmentLoadOp::LOAD)
                        .store_op(vk::AttachmentStoreOp::STORE)
                });
                let mut rendering = vk::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(target_layers)
                    .color_attachments(&color_attachments);
                if let Some(attachment) = &depth_attachment {
                    if depth_aspects.contains(vk::ImageAspectFlags::DEPTH) {
                        rendering = rendering.depth_attachment(attachment);
                    }
                    if depth_aspects.contains(vk::ImageAspectFlags::STENCIL) {
                        rendering = rendering.stencil_attachment(attachment);
                    }
                }
                device.cmd_begin_rendering(commands, &rendering);
                device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::GRAPHICS, pipeline);
                if !sets.is_empty() {
                    device.cmd_bind_descriptor_sets(
                        commands,
                        vk::PipelineBindPoint::GRAPHICS,
                        pipeline_layout,
                        0,
                        &sets,
                        &[],
                    );
                }
                if !job.push_constants.is_empty() {
                    device.cmd_push_constants(
                        commands,
                        pipeline_layout,
                        job.push_constant_stages(),
                        0,
                        job.push_constants,
                    );
                }
                if job.count_samples {
                    device.cmd_begin_query(commands, query_pool, 0, vk::QueryControlFlags::PRECISE);
                }
                if statistics_buffer.is_some() {
                    device.cmd_begin_query(commands, statistics_pool, 0, vk::QueryControlFlags::empty());
                }
                if generated_buffer.is_some() {
                    device.cmd_begin_query(commands, generated_pool, 0, vk::QueryControlFlags::empty());
                }
                device.cmd_draw(commands, job.vertex_count, job.instance_count, 0, 0);
                if generated_buffer.is_some() {
                    device.cmd_end_query(commands, generated_pool, 0);
                }
                if statistics_buffer.is_some() {
                    device.cmd_end_query(commands, statistics_pool, 0);
                }
                if job.count_samples {
                    device.cmd_end_query(commands, query_pool, 0);
                }
                device.cmd_end_rendering(commands);
                // Outside the rendering, as Vulkan wants the copy.
                if let Some(buffer) = &samples_buffer {
                    let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT;
                    device.cmd_copy_query_pool_results(commands, query_pool, 0, 1, buffer.handle, 0, 8, flags);
                }
                if let Some(buffer) = &statistics_buffer {
                    let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT;
                    let size = 8 * statistics_count;
                    device.cmd_copy_query_pool_results(commands, statistics_pool, 0, 1, buffer.handle, 0, size, flags);
                }
                if let Some(buffer) = &generated_buffer {
                    let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT;
                    device.cmd_copy_query_pool_results(commands, generated_pool, 0, 1, buffer.handle, 0, 8, flags);
                }
                for image in stored.iter().flatten() {
                    image.record_readback(device, commands, shaders);
                }
                match &sample_copies {
                    None => {
                        let barriers: Vec<_> =
                            images.iter().map(|&image| transition(image, color, attachment, READING)).collect();
                        device.cmd_pipeline_barrier(commands, output, transfer, none, &[], &[], &barriers);
                        for (&image, readback) in images.iter().zip(&transfers) {
                            device.cmd_copy_image_to_buffer(commands, image, READING.0, readback.handle, &[region]);
                        }
                    }
                    Some(copies) => {
                        let sampled = (vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL, vk::AccessFlags::SHADER_READ);
                        let barriers = multisampled(attachment, sampled, depth_layout, sampled);
                        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
                        device.cmd_pipeline_barrier(commands, output | tests, compute, none, &[], &[], &barriers);
                        copies.record_store(device, commands);
                    }
                }
                if let (Some((image, _)), None) = (depth_image, &sample_copies) {
                    let to_read = [transition(image, depth_aspects, depth_layout, READING)];
                    device.cmd_pipeline_barrier(commands, tests, transfer, none, &[], &[], &to_read);
                    for (aspect, _, buffer) in &depth_buffers {
                        let region = vk::BufferImageCopy::default()
                            .image_subresource(first_layers(*aspect, target_layers))
                            .image_extent(extent);
                        device.cmd_copy_image_to_buffer(commands, image, READING.0, buffer.handle, &[region]);
                    }
                }
            }
        })?;
        drop(queue);
        let mut drawn = Drawn::default();
        for (stage, transfers) in job.stages.iter().zip(&storage_transfers) {
            for (image, transfer) in stage.images.images.iter().zip(transfers) {
                let mut texels = self.read(transfer)?;
                texels.truncate(image.texels.len());
                drawn.images.push(texels);
            }
        }
        let counts = |buffer: &Option<Buffer>, count: u64| -> Result<Vec<u64>, VulkanError> {
            let Some(buffer) = buffer else { return Ok(Vec::new()) };
            let bytes = self.read_exactly(buffer, 8 * count)?;
            Ok(bytes.chunks_exact(8).map(|count| u64::from_le_bytes(count.try_into().expect("eight bytes"))).collect())
        };
        drawn.samples_passed = counts(&samples_buffer, 1)?.first().copied().unwrap_or_default();
        drawn.statistics = counts(&statistics_buffer, statistics_count)?;
        drawn.primitives_generated = counts(&generated_buffer, 1)?.first().copied().unwrap_or_default();
        for (target, buffer) in job.targets.iter().zip(&transfers) {
            drawn.targets.push(match job.multisample {
                None => self.read_exactly(buffer, texels * target.bytes_per_texel)?,
                Some(_) => {
                    let words = multisample::words_per_sample(target.bytes_per_texel);
                    multisample::narrow(&self.read_exactly(buffer, texels * words * 4)?, target.bytes_per_texel)
                }
            });
        }
        for (aspect, bytes, buffer) in &depth_buffers {
            let texels = match (job.multisample, *aspect, &job.depth) {
                (None, ..) => self.read_exactly(buffer, texels * bytes)?,
                (Some(_), vk::ImageAspectFlags::DEPTH, Some(depth)) => {
                    multisample::depth_from_float(depth.format, &self.read_exactly(buffer, texels * 4)?)
                }
                (Some(_), ..) => multisample::narrow(&self.read_exactly(buffer, texels * 4)?, 1),
            };
            if *aspect == vk::ImageAspectFlags::DEPTH {
                drawn.depth = texels;
            } else {
                drawn.stencil = texels;
            }
        }
        Ok(drawn)
    }
}
