//! Storage images a dispatch or draw reads and writes (what the translator makes of surfaces): uploaded before the
//! grid or draw runs, held in the GENERAL layout while it runs, and copied back after it. A 1D buffer's surface is
//! a storage texel buffer instead: a view of the buffer its texels are written into, which the shaders change in
//! place.

use super::image::{ImageObjects, READING, UNDEFINED, WRITING, record_writes_to_host, transition};
use super::sampled::SlotDescriptor;
use super::{Buffer, ComputeDevice, VulkanError};
use ash::vk;

/// A single-level storage image: texels of `bytes_per_texel` bytes, layers (or a 3D image's slices), rows from
/// the top and texels in order, packed; after a dispatch, what the dispatch left. With `buffer`, a storage texel
/// buffer of `size[0]` texels (its `view_type` unused).
#[derive(Clone, Debug, Default)]
pub struct StorageImage {
    pub format: vk::Format,
    pub bytes_per_texel: u64,
    pub view_type: vk::ImageViewType,
    pub buffer: bool,
    /// Width, height and depth (a 3D image's slices, else 1).
    pub size: [u32; 3],
    pub layers: u32,
    pub texels: Vec<u8>,
}

impl StorageImage {
    fn bytes(&self) -> u64 {
        self.size.iter().map(|&n| u64::from(n)).product::<u64>() * u64::from(self.layers) * self.bytes_per_texel
    }

    fn extent(&self) -> vk::Extent3D {
        vk::Extent3D { width: self.size[0], height: self.size[1], depth: self.size[2] }
    }

    fn copy_region(&self) -> vk::BufferImageCopy {
        vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(self.layers),
            )
            .image_extent(self.extent())
    }
}

/// A storage image on the device, with the buffer its texels come from and go back to; or a view of that
/// buffer as a storage texel buffer.
pub(super) enum Stored {
    Image {
        image: vk::Image,
        view: vk::ImageView,
        region: vk::BufferImageCopy,
        /// The caller's buffer (dropped after the queue's lock: dropping one takes it).
        transfer: vk::Buffer,
    },
    TexelBuffer(vk::BufferView),
}

const GENERAL: (vk::ImageLayout, vk::AccessFlags) = (
    vk::ImageLayout::GENERAL,
    vk::AccessFlags::from_raw(vk::AccessFlags::SHADER_READ.as_raw() | vk::AccessFlags::SHADER_WRITE.as_raw()),
);

impl Stored {
    /// Its descriptor, at `binding`: a storage image, or a storage texel buffer.
    pub(super) fn descriptor(&self, binding: u32) -> SlotDescriptor {
        match *self {
            Stored::Image { view, .. } => {
                let info =
                    vk::DescriptorImageInfo { sampler: vk::Sampler::null(), image_view: view, image_layout: GENERAL.0 };
                SlotDescriptor::images(binding, vk::DescriptorType::STORAGE_IMAGE, vec![info])
            }
            Stored::TexelBuffer(view) => SlotDescriptor {
                texel_buffers: vec![view],
                ..SlotDescriptor::images(binding, vk::DescriptorType::STORAGE_TEXEL_BUFFER, Vec::new())
            },
        }
    }

    /// Copies the texels in and leaves the image in GENERAL for compute shaders.
    ///
    /// # Safety
    /// `commands` is being recorded on the device that made the image and the buffer.
    pub(super) unsafe fn record_upload(
        &self,
        device: &ash::Device,
        commands: vk::CommandBuffer,
        shaders: vk::PipelineStageFlags,
    ) {
        // A texel buffer's texels are in place: written by the host before the submission.
        let &Stored::Image { image, region, transfer: source, .. } = self else { return };
        let none = vk::DependencyFlags::empty();
        let (top, transfer) = (vk::PipelineStageFlags::TOP_OF_PIPE, vk::PipelineStageFlags::TRANSFER);
        let color = vk::ImageAspectFlags::COLOR;
        // SAFETY: as the caller promises.
        unsafe {
            device.cmd_pipeline_barrier(
                commands,
                top,
                transfer,
                none,
                &[],
                &[],
                &[transition(image, color, UNDEFINED, WRITING)],
            );
            device.cmd_copy_buffer_to_image(commands, source, image, WRITING.0, &[region]);
            device.cmd_pipeline_barrier(
                commands,
                transfer,
                shaders,
                none,
                &[],
                &[],
                &[transition(image, color, WRITING, GENERAL)],
            );
        }
    }

    /// Copies the texels the shaders of the `shaders` stages left back into the buffer, for the host to read after
    /// the fence.
    ///
    /// # Safety
    /// As `record_upload`; after the dispatch or draw.
    pub(super) unsafe fn record_readback(
        &self,
        device: &ash::Device,
        commands: vk::CommandBuffer,
        shaders: vk::PipelineStageFlags,
    ) {
        let &Stored::Image { image, region, transfer: destination, .. } = self else {
            // The shaders wrote the texel buffer's texels where the host reads them.
            // SAFETY: as the caller promises.
            unsafe { record_writes_to_host(device, commands, shaders, vk::AccessFlags::SHADER_WRITE) };
            return;
        };
        let none = vk::DependencyFlags::empty();
        let transfer = vk::PipelineStageFlags::TRANSFER;
        let color = vk::ImageAspectFlags::COLOR;
        // SAFETY: as the caller promises.
        unsafe {
            device.cmd_pipeline_barrier(
                commands,
                shaders,
                transfer,
                none,
                &[],
                &[],
                &[transition(image, color, GENERAL, READING)],
            );
            device.cmd_copy_image_to_buffer(commands, image, READING.0, destination, &[region]);
            record_writes_to_host(device, commands, transfer, vk::AccessFlags::TRANSFER_WRITE);
        }
    }
}

impl ComputeDevice {
    /// Buffers holding the texels of `images`, which take them back after the dispatch (made before the queue is
    /// taken: writing a buffer takes it).
    pub(super) fn storage_transfers(&self, images: &[StorageImage]) -> Result<Vec<Buffer>, VulkanError> {
        images
            .iter()
            .map(|image| {
                let size = image.bytes();
                if image.texels.len() as u64 != size {
                    return Err(VulkanError::OutOfBounds { offset: 0, len: image.texels.len() as u64, size });
                }
                let transfer = self.buffer(size.max(1))?;
                self.write(&transfer, 0, &image.texels)?;
                Ok(transfer)
            })
            .collect()
    }

    /// The images and views of `images`, their texels in `transfers`.
    pub(super) fn storage_images(
        &self,
        objects: &mut ImageObjects,
        images: &[StorageImage],
        transfers: &[Buffer],
    ) -> Result<Vec<Stored>, VulkanError> {
        images
            .iter()
            .zip(transfers)
            .map(|(storage, transfer)| {
                if storage.buffer {
                    return self.storage_texel_buffer(objects, storage, transfer);
                }
                let wanted = vk::FormatFeatureFlags::STORAGE_IMAGE
                    | vk::FormatFeatureFlags::TRANSFER_DST
                    | vk::FormatFeatureFlags::TRANSFER_SRC;
                if !self.format_features(storage.format).contains(wanted) {
                    return Err(VulkanError::UnsupportedFormat(format!("{:?} (as a storage image)", storage.format)));
                }
                let image_type = match storage.view_type {
                    vk::ImageViewType::TYPE_1D | vk::ImageViewType::TYPE_1D_ARRAY => vk::ImageType::TYPE_1D,
                    vk::ImageViewType::TYPE_3D => vk::ImageType::TYPE_3D,
                    _ => vk::ImageType::TYPE_2D,
                };
                let info = vk::ImageCreateInfo::default()
                    .image_type(image_type)
                    .format(storage.format)
                    .extent(storage.extent())
                    .mip_levels(1)
                    .array_layers(storage.layers)
                    .usage(
                        vk::ImageUsageFlags::STORAGE
                            | vk::ImageUsageFlags::TRANSFER_DST
                            | vk::ImageUsageFlags::TRANSFER_SRC,
                    );
                let image = objects.image_with(info)?;
                let range = vk::ImageSubresourceRange::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .level_count(1)
                    .layer_count(storage.layers);
                let view = objects.view(image, storage.view_type, storage.format, range)?;
                Ok(Stored::Image { image, view, region: storage.copy_region(), transfer: transfer.handle })
            })
            .collect()
    }

    /// A storage texel buffer view of `transfer`, which holds `storage`'s texels.
    fn storage_texel_buffer(
        &self,
        objects: &mut ImageObjects,
        storage: &StorageImage,
        transfer: &Buffer,
    ) -> Result<Stored, VulkanError> {
        // Every buffer may be a uniform texel buffer too (`ComputeDevice::buffer`), so a view's format must be
        // one of those as well.
        let needed = vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER | vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER;
        if !self.buffer_format_features(storage.format).contains(needed) {
            return Err(VulkanError::UnsupportedFormat(format!("{:?} (as a storage texel buffer)", storage.format)));
        }
        let most = self.features().max_texel_buffer_elements;
        if storage.size[0] > most {
            return Err(VulkanError::OutOfBounds { offset: 0, len: storage.size[0].into(), size: most.into() });
        }
        let info =
            vk::BufferViewCreateInfo::default().buffer(transfer.handle).format(storage.format).range(vk::WHOLE_SIZE);
        // SAFETY: a buffer of this device, made with STORAGE_TEXEL_BUFFER usage; `objects` destroys the view.
        let view = unsafe { self.shared.device.create_buffer_view(&info, None) }
            .map_err(VulkanError::call("vkCreateBufferView"))?;
        objects.buffer_views.push(view);
        Ok(Stored::TexelBuffer(view))
    }
}
