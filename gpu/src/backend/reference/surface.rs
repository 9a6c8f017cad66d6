//! The reference back end's surfaces: for each surface a kernel's translation binds (`SurfaceBinding`), the handle
//! from the launch's constant buffers and the header from the header pool, read when the grid starts; level 0's
//! texels put into a storage image, and after the grid the texels it changed written back where they came from,
//! in the header's layout (pitch or block-linear). Direct accesses move bytes, whatever the format: their image
//! holds the texels as they are, as unsigned texels of the same size. Formatted accesses (SULD.P, SUST.P) read and
//! write components: their image holds each texel's four components as a formatted load gives them
//! (`texture::formatted`, on the CPU), and a texel the grid changed is converted back into the format.

use super::texture::{TextureSource, in_header, read_descriptor};
use super::{NAME, ReferenceBackend};
use crate::backend::{BackendError, GpuMemory};
use crate::shader::ir::{SurfaceBinding, TextureDim};
use crate::texture::descriptor::{TextureHeader, TextureType};
use crate::texture::formatted::FormattedTexels;
use crate::texture::layout::{level_size, level_surfaces};
use crate::texture::surface::Surface;
use crate::texture::texel::{Storage, TextureFormat};
use crate::vulkan::StorageImage;
use ash::vk;

fn unimplemented(what: impl Into<String>) -> BackendError {
    BackendError::Unimplemented { backend: NAME, what: what.into() }
}

fn bad_texel(error: crate::texture::texel::TexelError) -> BackendError {
    BackendError::BadTexture(error.to_string())
}

/// The most bytes one surface's storage image may take (an 8192 x 8192 surface of 16-byte texels).
const MAX_SURFACE_BYTES: u64 = 1 << 30;

/// The storage images a grid's surfaces are, which image each binding is (two bindings of one header and one
/// kind of access share it), and where each image's texels came from.
#[derive(Default)]
pub(super) struct BoundSurfaces {
    pub images: Vec<StorageImage>,
    pub bindings: Vec<usize>,
    places: Vec<Place>,
}

/// Where a storage image's texels lie.
struct Place {
    header: u32,
    /// Level 0's surface, and its slices (layers, or a volume's depth slices).
    surface: Surface,
    slices: u32,
    /// The image's texels as uploaded.
    uploaded: Vec<u8>,
    /// For formatted accesses: how the components convert, and the guest's texels as read.
    formatted: Option<(FormattedTexels, Vec<u8>)>,
}

impl ReferenceBackend {
    /// The surfaces `bindings` name, found through `source`, their texels read from guest memory.
    pub(super) fn surfaces(
        &self,
        source: &TextureSource,
        bindings: &[SurfaceBinding],
        memory: &GpuMemory,
    ) -> Result<BoundSurfaces, BackendError> {
        let mut bound = BoundSurfaces::default();
        for binding in bindings {
            let index = source.handle(binding.handle, memory)? & 0xf_ffff;
            // A surface has no sampler: only the header's place in its pool matters.
            let address = source.pools.header_address(index).map_err(|e| BackendError::BadTexture(e.to_string()))?;
            let header = TextureHeader::parse(index, read_descriptor(memory, address)?)
                .map_err(|e| BackendError::BadTexture(e.to_string()))?;
            let named = in_header("surface", index);
            // Every binding's access is checked against the header, also where an earlier one bound its image.
            let (format, bytes) = accessed_format(&header, binding).map_err(named)?;
            let formatted = binding.texel_bytes == 0;
            if let Some(image) = bound.places.iter().position(|place| place.header == index) {
                if bound.places[image].formatted.is_some() != formatted {
                    // One image cannot hold both the texels and their components.
                    return Err(named(unimplemented("formatted (.P) and direct (.D) accesses in one program")));
                }
                bound.bindings.push(image);
                continue;
            }
            let (image, place) = self.surface(index, &header, format, bytes, binding, memory).map_err(named)?;
            bound.bindings.push(bound.images.len());
            bound.images.push(image);
            bound.places.push(place);
        }
        Ok(bound)
    }

    /// The storage image of `header`'s level 0 (of `format`, `bytes` a texel) that `binding` reaches, and where its
    /// texels lie.
    fn surface(
        &self,
        index: u32,
        header: &TextureHeader,
        format: TextureFormat,
        bytes: u32,
        binding: &SurfaceBinding,
        memory: &GpuMemory,
    ) -> Result<(StorageImage, Place), BackendError> {
        let formatted = match binding.texel_bytes {
            0 => Some(FormattedTexels::new(format, header.data_types).expect("a plain format")),
            _ => None,
        };
        let image_bytes = if formatted.is_some() { 16 } else { bytes };
        let vk_format = match image_bytes {
            1 => vk::Format::R8_UINT,
            2 => vk::Format::R16_UINT,
            4 => vk::Format::R32_UINT,
            8 => vk::Format::R32G32_UINT,
            16 => vk::Format::R32G32B32A32_UINT,
            _ => return Err(unimplemented(format!("a surface of {} ({bytes} bytes a texel)", format.name))),
        };
        let (stored_dim, array) = match header.texture_type {
            TextureType::OneD | TextureType::OneDBuffer => (TextureDim::D1, false),
            TextureType::OneDArray => (TextureDim::D1, true),
            TextureType::TwoD | TextureType::TwoDNoMipmap => (TextureDim::D2, false),
            TextureType::TwoDArray => (TextureDim::D2, true),
            TextureType::ThreeD => (TextureDim::D3, false),
            other => return Err(unimplemented(format!("a {other:?} surface"))),
        };
        let buffer = header.texture_type == TextureType::OneDBuffer;
        if (stored_dim, array, buffer) != (binding.dim, binding.array, binding.buffer) {
            return Err(unimplemented(format!(
                "a {:?} surface accessed as {:?}{}{}",
                header.texture_type,
                binding.dim,
                if binding.array { " array" } else { "" },
                if binding.buffer { " buffer" } else { "" }
            )));
        }
        let level = level_surfaces(header, format.storage.element())
            .and_then(|levels| levels.into_iter().next())
            .ok_or_else(|| {
                BackendError::BadTexture(format!(
                    "a surface of {}x{} whose size overflows",
                    header.width, header.height
                ))
            })?;
        let (width, height, depth) = level_size(header, 0);
        let layers = if array { header.layers() } else { 1 };
        let slices = if stored_dim == TextureDim::D3 { depth } else { layers };
        if buffer && width > self.device.features().max_texel_buffer_elements {
            return Err(unimplemented(format!(
                "a 1D buffer surface of {width} texels on {}, whose texel buffers hold at most {}",
                self.device.name(),
                self.device.features().max_texel_buffer_elements
            )));
        }
        let texels = u64::from(width) * u64::from(height) * u64::from(slices);
        if texels * u64::from(image_bytes) > MAX_SURFACE_BYTES {
            return Err(unimplemented(format!(
                "a surface of {width} x {height} x {slices} texels of {image_bytes} bytes, more than the {} MiB the \
                 reference back end uploads for one",
                MAX_SURFACE_BYTES >> 20
            )));
        }
        let mut read = Vec::with_capacity((texels * u64::from(bytes)) as usize);
        let mut texel = vec![0u8; bytes as usize];
        for slice in 0..slices {
            for y in 0..height {
                for x in 0..width {
                    let address = level.texel_address(x, y, slice).ok_or_else(|| {
                        BackendError::BadTexture(format!("texel ({x}, {y}, {slice}) past the surface"))
                    })?;
                    memory.read(address, &mut texel)?;
                    read.extend_from_slice(&texel);
                }
            }
        }
        let (uploaded, formatted) = match formatted {
            None => (read, None),
            Some(texels) => {
                let mut components = Vec::with_capacity(read.len() / bytes as usize * 16);
                for texel in read.chunks_exact(bytes as usize) {
                    components.extend(texels.load(texel).map_err(bad_texel)?.iter().flat_map(|c| c.to_le_bytes()));
                }
                (components, Some((texels, read)))
            }
        };
        let image = StorageImage {
            format: vk_format,
            bytes_per_texel: u64::from(image_bytes),
            view_type: crate::vulkan::view_type(stored_dim, array),
            buffer,
            size: [width, height, depth],
            layers,
            texels: uploaded.clone(),
        };
        Ok((image, Place { header: index, surface: level, slices, uploaded, formatted }))
    }

    /// Writes back the texels the grid changed (the others stay as the guest may have changed them meanwhile).
    pub(super) fn write_back_surfaces(&self, bound: &BoundSurfaces, memory: &GpuMemory) -> Result<(), BackendError> {
        for (image, place) in bound.images.iter().zip(&bound.places) {
            let image_bytes = image.bytes_per_texel as usize;
            let guest_bytes = place.surface.bytes_per_texel as usize;
            let (mut at, mut texel) = (0, 0);
            for slice in 0..place.slices {
                for y in 0..place.surface.height {
                    for x in 0..place.surface.width {
                        let (written, before) =
                            (&image.texels[at..at + image_bytes], &place.uploaded[at..at + image_bytes]);
                        if written != before {
                            let address = place.surface.texel_address(x, y, slice).expect("inside the surface");
                            match &place.formatted {
                                None => memory.write(address, written)?,
                                Some((texels, read)) => {
                                    // Only the components the grid changed: the others keep their bits, which
                                    // their value may not give back (SNORM's -128 and -127 are both -1.0).
                                    let word = |texel: &[u8], c: usize| {
                                        u32::from_le_bytes(texel[4 * c..4 * c + 4].try_into().expect("a word"))
                                    };
                                    let values = std::array::from_fn(|c| word(written, c));
                                    let changed = std::array::from_fn(|c| word(written, c) != word(before, c));
                                    let mut stored = read[texel * guest_bytes..(texel + 1) * guest_bytes].to_vec();
                                    texels.store(values, changed, &mut stored).map_err(bad_texel)?;
                                    memory.write(address, &stored)?;
                                }
                            }
                        }
                        at += image_bytes;
                        texel += 1;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The format of `header`, and its bytes a texel, when `binding`'s accesses can reach it: direct ones of its
/// texel size, formatted ones of any plain format.
fn accessed_format(header: &TextureHeader, binding: &SurfaceBinding) -> Result<(TextureFormat, u32), BackendError> {
    let format = TextureFormat::from_code(header.components)
        .ok_or_else(|| unimplemented(format!("texture format {:#04x} (COMPONENTS)", header.components)))?;
    let Storage::Plain { bytes, .. } = format.storage else {
        return Err(unimplemented(format!("a surface of {}, whose texels are not a component per field", format.name)));
    };
    if binding.texel_bytes != 0 && u32::from(binding.texel_bytes) != bytes {
        return Err(unimplemented(format!(
            "accesses of {} bytes to a surface of {} ({bytes} bytes a texel)",
            binding.texel_bytes, format.name
        )));
    }
    Ok((format, bytes))
}
