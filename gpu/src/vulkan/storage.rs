//! Storage images a dispatch or draw reads and writes (what the translator makes of surfaces): uploaded before the
//! grid or draw runs, held in the GENERAL layout while it runs, and copied back after it.

use super::image::{ImageObjects, READING, UNDEFINED, WRITING, record_writes_to_host, transition};
use super::{Buffer, ComputeDevice, VulkanError};
use ash::vk;

/// A single-level storage image: texels of `bytes_per_texel` bytes, layers (or a 3D image's slices), rows from
/// the top and texels in order, packed; after a dispatch, what the dispatch left.
#[derive(Clone, Debug, Default)]
pub struct StorageImage {
    pub format: vk::Format,
    pub bytes_per_texel: u64,
    pub view_type: vk::ImageViewType,
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

/// A storage image on the device, with the buffer its texels come from and go back to.
pub(super) struct Stored {
    image: vk::Image,
    view: vk::ImageView,
    region: vk::BufferImageCopy,
    /// The caller's buffer (dropped after the queue's lock: dropping one takes it).
    transfer: vk::Buffer,
}

const GENERAL: (vk::ImageLayout, vk::AccessFlags) = (
    vk::ImageLayout::GENERAL,
    vk::AccessFlags::from_raw(vk::AccessFlags::SHADER_READ.as_raw() | vk::AccessFlags::SHADER_WRITE.as_raw()),
);

impl Stored {
    /// What a storage image descriptor of it holds.
    pub(super) fn descriptor(&self) -> vk::DescriptorImageInfo {
        vk::DescriptorImageInfo { sampler: vk::Sampler::null(), image_view: self.view, image_layout: GENERAL.0 }
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
                &[transition(self.image, color, UNDEFINED, WRITING)],
            );
            device.cmd_copy_buffer_to_image(commands, self.transfer, self.image, WRITING.0, &[self.region]);
            device.cmd_pipeline_barrier(
                commands,
                transfer,
                shaders,
                none,
                &[],
                &[],
                &[transition(self.image, color, WRITING, GENERAL)],
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
                &[transition(self.image, color, GENERAL, READING)],
            );
            device.cmd_copy_image_to_buffer(commands, self.image, READING.0, self.transfer, &[self.region]);
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
                Ok(Stored { image, view, region: storage.copy_region(), transfer: transfer.handle })
            })
            .collect()
    }
}
