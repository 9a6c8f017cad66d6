//! Textures on the device, for draws and dispatches alike: what the caller gives (`Texture`, `Sampling`, a
//! `TexelBuffer`, and for run-time handles a whole `TexturePool`, in `TextureSlot`s in the order the translation
//! binds them), the images, views and samplers made of them (`SampledSlot`) and their descriptors: one combined
//! image sampler a texture, one uniform texel buffer a texel buffer; for a pool, an array of sampled images, then
//! an array of samplers (`SlotDescriptor`).

use super::image::{UNDEFINED, WRITING, transition_range};
use super::{Buffer, ComputeDevice, VulkanError};
use ash::vk;

/// A texture a draw samples, with texels the caller decoded: level after level, each level's layers (or a 3D
/// texture's slices) one after another, rows from the top, `bytes_per_texel` each.
#[derive(Clone, Debug)]
pub struct Texture<'a> {
    pub format: vk::Format,
    pub bytes_per_texel: u64,
    pub view_type: vk::ImageViewType,
    /// Level 0's size (depth: a 3D texture's slices, 1 otherwise).
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub layers: u32,
    pub levels: u32,
    pub texels: &'a [u8],
    pub sampling: Sampling,
}

impl Texture<'_> {
    /// Level `level`'s size.
    fn extent(&self, level: u32) -> vk::Extent3D {
        let size = |n: u32| (n >> level).max(1);
        vk::Extent3D { width: size(self.width), height: size(self.height), depth: size(self.depth) }
    }

    /// The bytes of level `level`, all layers.
    fn level_bytes(&self, level: u32) -> u64 {
        let extent = self.extent(level);
        u64::from(extent.width)
            * u64::from(extent.height)
            * u64::from(extent.depth)
            * u64::from(self.layers)
            * self.bytes_per_texel
    }
}

/// How a texture is sampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    pub mag: vk::Filter,
    pub min: vk::Filter,
    pub mipmap_mode: vk::SamplerMipmapMode,
    /// U, V, W.
    pub address: [vk::SamplerAddressMode; 3],
    pub lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    pub anisotropy: Option<f32>,
    pub reduction: vk::SamplerReductionMode,
    /// The border colour, as the texture's format holds numbers (FP32 bits or integers).
    pub border: [u32; 4],
    /// Samples compare their reference with the texels (a depth texture's): `reference OP texel`.
    pub compare: Option<vk::CompareOp>,
    /// Cube maps filter across face edges (Vulkan's default); otherwise each face alone, its edges addressed by
    /// `address` (`Features::non_seamless_cube_map` must be on).
    pub seamless_cube: bool,
}

impl Sampling {
    /// Nearest texels of every level, clamped to the edge: CUDA's point sampling, and what pools' placeholders
    /// sample with.
    pub const NEAREST_CLAMP: Sampling = Sampling {
        mag: vk::Filter::NEAREST,
        min: vk::Filter::NEAREST,
        mipmap_mode: vk::SamplerMipmapMode::NEAREST,
        address: [vk::SamplerAddressMode::CLAMP_TO_EDGE; 3],
        lod_bias: 0.0,
        min_lod: 0.0,
        max_lod: vk::LOD_CLAMP_NONE,
        anisotropy: None,
        reduction: vk::SamplerReductionMode::WEIGHTED_AVERAGE,
        border: [0; 4],
        compare: None,
        seamless_cube: true,
    };
}

/// The pools run-time texture handles index (`shader::ir::PoolView`): `images` as one array of sampled images
/// (their own `sampling` unused) and `samplers` as one array of samplers, each ending with the placeholder the
/// translation declared. The images share one format, which the samplers' border colours are given in.
#[derive(Clone, Debug)]
pub struct TexturePool<'a> {
    pub images: Vec<Texture<'a>>,
    pub samplers: Vec<Sampling>,
}

/// A texel buffer a draw fetches from (a 1D buffer texture): its texels, four 32-bit numbers each, which the
/// device reads as `format` (one of the R32G32B32A32 formats, which every device can read as a uniform texel
/// buffer).
#[derive(Clone, Debug)]
pub struct TexelBuffer<'a> {
    pub format: vk::Format,
    pub texels: &'a [u8],
}

/// Bytes of one of a texel buffer's texels.
const TEXEL_BUFFER_TEXEL: u64 = 16;

/// What one of a translation's texture bindings takes: a texture (one combined image sampler binding), a texel
/// buffer (one uniform texel buffer binding), or the pools (two bindings: the images, then the samplers).
#[derive(Clone, Debug)]
pub enum TextureSlot<'a> {
    Texture(Texture<'a>),
    Buffer(TexelBuffer<'a>),
    Pool(TexturePool<'a>),
}

impl<'a> TextureSlot<'a> {
    /// The bytes it uploads, one buffer each, in order, with the size each must have: each texture's texels
    /// (all their levels), or the texel buffer's.
    fn uploads(&self) -> Vec<(&'a [u8], u64)> {
        let texture = |texture: &Texture<'a>| -> (&'a [u8], u64) {
            let size: u64 = (0..texture.levels).map(|level| texture.level_bytes(level)).sum();
            (texture.texels, size)
        };
        match self {
            TextureSlot::Texture(one) => vec![texture(one)],
            TextureSlot::Buffer(buffer) => {
                vec![(buffer.texels, (buffer.texels.len() as u64).next_multiple_of(TEXEL_BUFFER_TEXEL))]
            }
            TextureSlot::Pool(pool) => pool.images.iter().map(texture).collect(),
        }
    }
}

/// The descriptor bindings `slots` take.
pub(super) fn texture_bindings(slots: &[TextureSlot]) -> usize {
    slots.iter().map(|slot| if matches!(slot, TextureSlot::Pool(_)) { 2 } else { 1 }).sum()
}

/// The bytes `slots` upload, one buffer each, in order, with the size each must have.
pub(super) fn slot_uploads<'s, 'a: 's>(slots: &'s [TextureSlot<'a>]) -> impl Iterator<Item = (&'a [u8], u64)> + 's {
    slots.iter().flat_map(TextureSlot::uploads)
}

/// A texture slot on the device.
pub(super) enum SampledSlot {
    Texture(Sampled),
    /// A view of the upload buffer's texels.
    Buffer(vk::BufferView),
    Pool {
        images: Vec<Sampled>,
        samplers: Vec<vk::Sampler>,
    },
}

impl SampledSlot {
    /// Its images, in upload order (a texel buffer's texels are in place once written).
    pub(super) fn images(&self) -> &[Sampled] {
        match self {
            SampledSlot::Texture(texture) => std::slice::from_ref(texture),
            SampledSlot::Buffer(_) => &[],
            SampledSlot::Pool { images, .. } => images,
        }
    }
}

/// One descriptor binding of texture slots: its number, type and contents (an array for a pool): image infos,
/// or for a uniform texel buffer, its view.
pub(super) struct SlotDescriptor {
    pub binding: u32,
    pub kind: vk::DescriptorType,
    pub infos: Vec<vk::DescriptorImageInfo>,
    pub texel_buffers: Vec<vk::BufferView>,
}

impl SlotDescriptor {
    /// A binding of images (or samplers).
    pub(super) fn images(binding: u32, kind: vk::DescriptorType, infos: Vec<vk::DescriptorImageInfo>) -> Self {
        SlotDescriptor { binding, kind, infos, texel_buffers: Vec::new() }
    }

    fn count(&self) -> u32 {
        (self.infos.len() + self.texel_buffers.len()) as u32
    }

    pub(super) fn layout(&self, stages: vk::ShaderStageFlags) -> vk::DescriptorSetLayoutBinding<'static> {
        vk::DescriptorSetLayoutBinding::default()
            .binding(self.binding)
            .descriptor_type(self.kind)
            .descriptor_count(self.count())
            .stage_flags(stages)
    }

    pub(super) fn write(&self, set: vk::DescriptorSet) -> vk::WriteDescriptorSet<'_> {
        let write = vk::WriteDescriptorSet::default().dst_set(set).dst_binding(self.binding).descriptor_type(self.kind);
        match self.kind {
            vk::DescriptorType::UNIFORM_TEXEL_BUFFER | vk::DescriptorType::STORAGE_TEXEL_BUFFER => {
                write.texel_buffer_view(&self.texel_buffers)
            }
            _ => write.image_info(&self.infos),
        }
    }
}

/// The descriptor bindings of `slots`, numbered one after another from `first`.
pub(super) fn slot_descriptors(slots: &[SampledSlot], first: u32) -> Vec<SlotDescriptor> {
    let mut binding = first;
    let mut next = |kind, infos| {
        binding += 1;
        SlotDescriptor::images(binding - 1, kind, infos)
    };
    slots
        .iter()
        .flat_map(|slot| match slot {
            SampledSlot::Texture(texture) => {
                vec![next(vk::DescriptorType::COMBINED_IMAGE_SAMPLER, vec![texture.descriptor()])]
            }
            &SampledSlot::Buffer(view) => vec![SlotDescriptor {
                texel_buffers: vec![view],
                ..next(vk::DescriptorType::UNIFORM_TEXEL_BUFFER, Vec::new())
            }],
            SampledSlot::Pool { images, samplers } => vec![
                next(vk::DescriptorType::SAMPLED_IMAGE, images.iter().map(Sampled::descriptor).collect()),
                next(
                    vk::DescriptorType::SAMPLER,
                    samplers.iter().map(|&sampler| vk::DescriptorImageInfo { sampler, ..Default::default() }).collect(),
                ),
            ],
        })
        .collect()
}

/// The pool sizes `descriptors` take, by type.
pub(super) fn slot_pool_sizes<'d>(
    descriptors: impl IntoIterator<Item = &'d SlotDescriptor>,
) -> Vec<vk::DescriptorPoolSize> {
    let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
    for descriptor in descriptors {
        let count = descriptor.count();
        match sizes.iter_mut().find(|size| size.ty == descriptor.kind) {
            Some(size) => size.descriptor_count += count,
            None => sizes.push(vk::DescriptorPoolSize { ty: descriptor.kind, descriptor_count: count }),
        }
    }
    sizes
}

/// A texture on the device: its image, view and sampler (null for a pool's images), and the buffer its texels
/// come from.
pub(super) struct Sampled {
    image: vk::Image,
    view: vk::ImageView,
    sampler: vk::Sampler,
    /// The upload buffer (owned by the caller, which keeps it past the queue lock: dropping one takes the lock).
    upload: vk::Buffer,
    /// (buffer offset, level, extent) of each level.
    regions: Vec<vk::BufferImageCopy>,
    range: vk::ImageSubresourceRange,
}

impl Sampled {
    /// What a combined image sampler (or sampled image) descriptor of it holds.
    pub(super) fn descriptor(&self) -> vk::DescriptorImageInfo {
        vk::DescriptorImageInfo {
            sampler: self.sampler,
            image_view: self.view,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }
    }

    /// Copies the texels in and leaves the image readable by the shaders of the `shaders` stages.
    ///
    /// # Safety
    /// `commands` is being recorded on the device that made the image and the buffer.
    pub(super) unsafe fn record_upload(
        &self,
        device: &ash::Device,
        commands: vk::CommandBuffer,
        shaders: vk::PipelineStageFlags,
    ) {
        let barrier = |from, to| transition_range(self.image, self.range, from, to);
        let none = vk::DependencyFlags::empty();
        let transfer = vk::PipelineStageFlags::TRANSFER;

        let readable = (vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL, vk::AccessFlags::SHADER_READ);
        // SAFETY: as the caller promises.
        unsafe {
            device.cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                transfer,
                none,
                &[],
                &[],
                &[barrier(UNDEFINED, WRITING)],
            );
            device.cmd_copy_buffer_to_image(commands, self.upload, self.image, WRITING.0, &self.regions);
            device.cmd_pipeline_barrier(commands, transfer, shaders, none, &[], &[], &[barrier(WRITING, readable)]);
        }
    }
}

impl ComputeDevice {
    /// Buffers holding the bytes of `uploads` (`slot_uploads`; before the queue is taken: writing a buffer takes
    /// it).
    pub(super) fn texture_uploads<'t>(
        &self,
        uploads: impl Iterator<Item = (&'t [u8], u64)>,
    ) -> Result<Vec<Buffer>, VulkanError> {
        uploads
            .map(|(bytes, size)| {
                if bytes.len() as u64 != size {
                    return Err(VulkanError::OutOfBounds { offset: 0, len: bytes.len() as u64, size });
                }
                let upload = self.buffer(size.max(1))?;
                self.write(&upload, 0, bytes)?;
                Ok(upload)
            })
            .collect()
    }

    /// The images, views and samplers of `slots`, their texels from `uploads` (`slot_uploads`' order).
    pub(super) fn texture_slots(
        &self,
        objects: &mut super::image::ImageObjects,
        slots: &[TextureSlot],
        uploads: &[Buffer],
    ) -> Result<Vec<SampledSlot>, VulkanError> {
        let mut uploads = uploads.iter();
        let mut next_upload = || uploads.next().ok_or(VulkanError::OutOfBounds { offset: 0, len: 1, size: 0 });
        slots
            .iter()
            .map(|slot| match slot {
                TextureSlot::Texture(texture) => {
                    let sampler = self.sampler(objects, &texture.sampling, texture.format)?;
                    Ok(SampledSlot::Texture(self.sampled_image(objects, texture, next_upload()?, sampler)?))
                }
                TextureSlot::Buffer(buffer) => {
                    let upload = next_upload()?;
                    let info = vk::BufferViewCreateInfo::default()
                        .buffer(upload.handle)
                        .format(buffer.format)
                        .range(vk::WHOLE_SIZE);
                    // SAFETY: a buffer of this device, made with UNIFORM_TEXEL_BUFFER usage; `objects` destroys
                    // the view.
                    let view = unsafe { self.shared.device.create_buffer_view(&info, None) }
                        .map_err(VulkanError::call("vkCreateBufferView"))?;
                    objects.buffer_views.push(view);
                    Ok(SampledSlot::Buffer(view))
                }
                TextureSlot::Pool(pool) => {
                    let images = pool
                        .images
                        .iter()
                        .map(|image| self.sampled_image(objects, image, next_upload()?, vk::Sampler::null()))
                        .collect::<Result<Vec<_>, _>>()?;
                    let format = pool.images.first().map_or(vk::Format::R32G32B32A32_SFLOAT, |image| image.format);
                    // One host sampler for each distinct sampling: pools list thousands of samplers, mostly alike,
                    // and a device makes a few thousand at most (maxSamplerAllocationCount).
                    let mut made: Vec<(Sampling, vk::Sampler)> = Vec::new();
                    let mut samplers = Vec::with_capacity(pool.samplers.len());
                    for sampling in &pool.samplers {
                        let sampler = match made.iter().find(|(other, _)| other == sampling) {
                            Some(&(_, sampler)) => sampler,
                            None => {
                                let sampler = self.sampler(objects, sampling, format)?;
                                made.push((*sampling, sampler));
                                sampler
                            }
                        };
                        samplers.push(sampler);
                    }
                    Ok(SampledSlot::Pool { images, samplers })
                }
            })
            .collect()
    }

    /// The image and view of `texture`, its texels from `upload`, sampled through `sampler`.
    fn sampled_image(
        &self,
        objects: &mut super::image::ImageObjects,
        texture: &Texture,
        upload: &Buffer,
        sampler: vk::Sampler,
    ) -> Result<Sampled, VulkanError> {
        let wanted = vk::FormatFeatureFlags::SAMPLED_IMAGE | vk::FormatFeatureFlags::TRANSFER_DST;
        if !self.format_features(texture.format).contains(wanted) {
            return Err(VulkanError::UnsupportedFormat(format!("{:?} (as a sampled texture)", texture.format)));
        }
        let cube = matches!(texture.view_type, vk::ImageViewType::CUBE | vk::ImageViewType::CUBE_ARRAY);
        let image_type = match texture.view_type {
            vk::ImageViewType::TYPE_1D | vk::ImageViewType::TYPE_1D_ARRAY => vk::ImageType::TYPE_1D,
            vk::ImageViewType::TYPE_3D => vk::ImageType::TYPE_3D,
            _ => vk::ImageType::TYPE_2D,
        };
        let info = vk::ImageCreateInfo::default()
            .flags(if cube { vk::ImageCreateFlags::CUBE_COMPATIBLE } else { vk::ImageCreateFlags::empty() })
            .image_type(image_type)
            .format(texture.format)
            .extent(texture.extent(0))
            .mip_levels(texture.levels)
            .array_layers(texture.layers)
            .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST);
        let image = objects.image_with(info)?;
        // A depth format's texels are its depth aspect (textures that compare are uploaded so).
        let aspect = if texture.format == vk::Format::D32_SFLOAT {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(aspect)
            .level_count(texture.levels)
            .layer_count(texture.layers);
        let view = objects.view(image, texture.view_type, texture.format, range)?;
        let mut offset = 0;
        let regions = (0..texture.levels)
            .map(|level| {
                let region = vk::BufferImageCopy::default()
                    .buffer_offset(offset)
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(aspect)
                            .mip_level(level)
                            .layer_count(texture.layers),
                    )
                    .image_extent(texture.extent(level));
                offset += texture.level_bytes(level);
                region
            })
            .collect();
        Ok(Sampled { image, view, sampler, upload: upload.handle, regions, range })
    }

    /// A sampler that samples as `sampling` says textures of `format` (in which its border colour is given).
    fn sampler(
        &self,
        objects: &mut super::image::ImageObjects,
        sampling: &Sampling,
        format: vk::Format,
    ) -> Result<vk::Sampler, VulkanError> {
        let mut border = vk::SamplerCustomBorderColorCreateInfoEXT::default()
            .custom_border_color(vk::ClearColorValue { uint32: sampling.border })
            .format(format);
        let mut reduction = vk::SamplerReductionModeCreateInfo::default().reduction_mode(sampling.reduction);
        let [u, v, w] = sampling.address;
        let flags = match sampling.seamless_cube {
            true => vk::SamplerCreateFlags::empty(),
            false => vk::SamplerCreateFlags::NON_SEAMLESS_CUBE_MAP_EXT,
        };
        let mut sampler_info = vk::SamplerCreateInfo::default()
            .flags(flags)
            .mag_filter(sampling.mag)
            .min_filter(sampling.min)
            .mipmap_mode(sampling.mipmap_mode)
            .address_mode_u(u)
            .address_mode_v(v)
            .address_mode_w(w)
            .mip_lod_bias(sampling.lod_bias)
            .anisotropy_enable(sampling.anisotropy.is_some())
            .max_anisotropy(sampling.anisotropy.unwrap_or(1.0))
            .min_lod(sampling.min_lod)
            // Vulkan wants max >= min; a TSC's MAX_LOD_CLAMP below its MIN_LOD_CLAMP pins the level at the min.
            .max_lod(sampling.max_lod.max(sampling.min_lod));
        if sampling.address.contains(&vk::SamplerAddressMode::CLAMP_TO_BORDER) {
            // The border's bits as they are, typed as the view's numbers are.
            let integer = matches!(format, vk::Format::R32G32B32A32_UINT | vk::Format::R32G32B32A32_SINT);
            let border_type = if integer { vk::BorderColor::INT_CUSTOM_EXT } else { vk::BorderColor::FLOAT_CUSTOM_EXT };
            sampler_info = sampler_info.border_color(border_type).push_next(&mut border);
        }
        if sampling.reduction != vk::SamplerReductionMode::WEIGHTED_AVERAGE {
            sampler_info = sampler_info.push_next(&mut reduction);
        }
        if let Some(compare) = sampling.compare {
            sampler_info = sampler_info.compare_enable(true).compare_op(compare);
        }
        // SAFETY: the create info and what it points to outlive the call; `objects` destroys the sampler.
        let sampler = unsafe { self.shared.device.create_sampler(&sampler_info, None) }
            .map_err(VulkanError::call("vkCreateSampler"))?;
        objects.samplers.push(sampler);
        Ok(sampler)
    }
}
