//! `ComputeDevice::draw`: one draw into colour targets whose texels come from the caller and go back to it. The
//! reference back end's draws are this: upload the targets, build the pipeline, draw, read the targets back,
//! destroy it all (no caches, no state carried from one draw to the next).
//!
//! The interface the shaders meet: the vertex stage's storage buffers at set 0, the fragment stage's at set 1
//! (binding = index), a push constant block for the vertex stage, colour output `Location` i for target i.
//! No vertex input state: vertex shaders fetch their own attributes.

use super::image::{READING, UNDEFINED, WRITING, layers, transition};
use super::{Buffer, ComputeDevice, VulkanError};
use ash::vk;
use std::ffi::CString;

/// A colour target: its texels before the draw, row by row from the top with no padding.
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

/// Everything a draw needs.
#[derive(Clone, Debug)]
pub struct DrawJob<'a> {
    /// SPIR-V modules with a `main` entry point each.
    pub vertex_shader: &'a [u32],
    pub fragment_shader: &'a [u32],
    pub vertex_buffers: &'a [&'a Buffer],
    pub fragment_buffers: &'a [&'a Buffer],
    /// The vertex stage's push constants.
    pub push_constants: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub targets: Vec<ColorTarget<'a>>,
    pub topology: vk::PrimitiveTopology,
    pub vertex_count: u32,
    pub instance_count: u32,
    pub viewport: vk::Viewport,
    pub scissor: vk::Rect2D,
    pub cull_mode: vk::CullModeFlags,
    pub front_face: vk::FrontFace,
    pub blend_constants: [f32; 4],
}

impl ComputeDevice {
    /// Runs `job` and returns each target's texels after it, as they were given.
    pub fn draw(&self, job: &DrawJob) -> Result<Vec<Vec<u8>>, VulkanError> {
        if !self.features.draws {
            return Err(VulkanError::NoDraws(self.name.clone()));
        }
        for buffer in job.vertex_buffers.iter().chain(job.fragment_buffers) {
            self.owns(buffer)?;
        }
        let extent = vk::Extent3D { width: job.width.max(1), height: job.height.max(1), depth: 1 };
        let texels = u64::from(extent.width) * u64::from(extent.height);
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
            let buffer = self.buffer(size.max(1))?;
            self.write(&buffer, 0, target.texels)?;
            transfers.push(buffer);
        }

        let mut queue = self.shared.ready()?;
        let mut objects = self.objects(queue.pool);
        let device = &self.shared.device;
        let images = job
            .targets
            .iter()
            .map(|target| {
                objects.image_for(target.format, extent.width, extent.height, vk::ImageUsageFlags::COLOR_ATTACHMENT)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let color = vk::ImageAspectFlags::COLOR;
        // SAFETY (every call below): the create infos and what they point to outlive each call; every handle was
        // made from this device and lives until `objects` is dropped, after the work has finished.
        for (&image, target) in images.iter().zip(&job.targets) {
            let info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(target.format)
                .subresource_range(vk::ImageSubresourceRange::default().aspect_mask(color).level_count(1).layer_count(1));
            let view = unsafe { device.create_image_view(&info, None) }.map_err(VulkanError::call("vkCreateImageView"))?;
            objects.views.push(view);
        }
        for code in [job.vertex_shader, job.fragment_shader] {
            let info = vk::ShaderModuleCreateInfo::default().code(code);
            let module =
                unsafe { device.create_shader_module(&info, None) }.map_err(VulkanError::call("vkCreateShaderModule"))?;
            objects.modules.push(module);
        }
        let stages = [vk::ShaderStageFlags::VERTEX, vk::ShaderStageFlags::FRAGMENT];
        for (buffers, &stage) in [job.vertex_buffers, job.fragment_buffers].iter().zip(&stages) {
            let bindings: Vec<_> = (0..buffers.len() as u32)
                .map(|binding| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(stage)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            let layout = unsafe { device.create_descriptor_set_layout(&info, None) }
                .map_err(VulkanError::call("vkCreateDescriptorSetLayout"))?;
            objects.set_layouts.push(layout);
        }
        let push_ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::VERTEX)
            .size(job.push_constants.len() as u32)];
        let push_ranges: &[vk::PushConstantRange] = if job.push_constants.is_empty() { &[] } else { &push_ranges };
        let layout_info =
            vk::PipelineLayoutCreateInfo::default().set_layouts(&objects.set_layouts).push_constant_ranges(push_ranges);
        objects.pipeline_layout = unsafe { device.create_pipeline_layout(&layout_info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;

        let main = CString::new("main").expect("no NUL");
        let shader_stages: Vec<_> = objects
            .modules
            .iter()
            .zip(stages)
            .map(|(&module, stage)| {
                vk::PipelineShaderStageCreateInfo::default().stage(stage).module(module).name(&main)
            })
            .collect();
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(job.topology);
        let viewports = [job.viewport];
        let scissors = [job.scissor];
        let viewport_state = vk::PipelineViewportStateCreateInfo::default().viewports(&viewports).scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(job.cull_mode)
            .front_face(job.front_face)
            .line_width(1.0);
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
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
        let blend_state = vk::PipelineColorBlendStateCreateInfo::default()
            .attachments(&attachments)
            .blend_constants(job.blend_constants);
        let formats: Vec<_> = job.targets.iter().map(|target| target.format).collect();
        let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default();
        let pipeline_info = [vk::GraphicsPipelineCreateInfo::default()
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

        let buffer_count = (job.vertex_buffers.len() + job.fragment_buffers.len()) as u32;
        let mut sets = Vec::new();
        if buffer_count > 0 {
            let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: buffer_count }];
            let pool_info = vk::DescriptorPoolCreateInfo::default().max_sets(2).pool_sizes(&sizes);
            objects.descriptor_pool = unsafe { device.create_descriptor_pool(&pool_info, None) }
                .map_err(VulkanError::call("vkCreateDescriptorPool"))?;
            let allocate = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(objects.descriptor_pool)
                .set_layouts(&objects.set_layouts);
            sets = unsafe { device.allocate_descriptor_sets(&allocate) }
                .map_err(VulkanError::call("vkAllocateDescriptorSets"))?;
            let infos: Vec<(vk::DescriptorSet, u32, [vk::DescriptorBufferInfo; 1])> = [job.vertex_buffers, job.fragment_buffers]
                .iter()
                .zip(&sets)
                .flat_map(|(buffers, &set)| {
                    buffers.iter().enumerate().map(move |(binding, buffer)| {
                        (set, binding as u32, [vk::DescriptorBufferInfo { buffer: buffer.handle, offset: 0, range: vk::WHOLE_SIZE }])
                    })
                })
                .collect();
            let writes: Vec<_> = infos
                .iter()
                .map(|(set, binding, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(*set)
                        .dst_binding(*binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            unsafe { device.update_descriptor_sets(&writes, &[]) };
        }

        let views = objects.views.clone();
        let (pipeline, pipeline_layout) = (objects.pipeline, objects.pipeline_layout);
        let rendered = (extent.width, extent.height);
        objects.run(&mut queue, |device, commands| {
            let none = vk::DependencyFlags::empty();
            let transfer = vk::PipelineStageFlags::TRANSFER;
            let output = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
            let attachment = (vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL, vk::AccessFlags::COLOR_ATTACHMENT_WRITE | vk::AccessFlags::COLOR_ATTACHMENT_READ);
            let region = vk::BufferImageCopy::default().image_subresource(layers(color)).image_extent(extent);
            // SAFETY: commands on objects of this device, recorded into a buffer being recorded.
            unsafe {
                let barriers: Vec<_> = images.iter().map(|&image| transition(image, color, UNDEFINED, WRITING)).collect();
                device.cmd_pipeline_barrier(commands, vk::PipelineStageFlags::TOP_OF_PIPE, transfer, none, &[], &[], &barriers);
                for (&image, upload) in images.iter().zip(&transfers) {
                    device.cmd_copy_buffer_to_image(commands, upload.handle, image, WRITING.0, &[region]);
                }
                let barriers: Vec<_> = images.iter().map(|&image| transition(image, color, WRITING, attachment)).collect();
                device.cmd_pipeline_barrier(commands, transfer, output, none, &[], &[], &barriers);
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
                let area = vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: rendered.0, height: rendered.1 } };
                let rendering = vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&color_attachments);
                device.cmd_begin_rendering(commands, &rendering);
                device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::GRAPHICS, pipeline);
                if !sets.is_empty() {
                    device.cmd_bind_descriptor_sets(commands, vk::PipelineBindPoint::GRAPHICS, pipeline_layout, 0, &sets, &[]);
                }
                if !job.push_constants.is_empty() {
                    device.cmd_push_constants(commands, pipeline_layout, vk::ShaderStageFlags::VERTEX, 0, job.push_constants);
                }
                device.cmd_draw(commands, job.vertex_count, job.instance_count, 0, 0);
                device.cmd_end_rendering(commands);
                let barriers: Vec<_> = images.iter().map(|&image| transition(image, color, attachment, READING)).collect();
                device.cmd_pipeline_barrier(commands, output, transfer, none, &[], &[], &barriers);
                for (&image, readback) in images.iter().zip(&transfers) {
                    device.cmd_copy_image_to_buffer(commands, image, READING.0, readback.handle, &[region]);
                }
            }
        })?;
        drop(queue);
        job.targets.iter().zip(&transfers).map(|(target, buffer)| self.read_exactly(buffer, texels * target.bytes_per_texel)).collect()
    }
}
