//! The reference back end's surfaces: for each surface a kernel's translation binds (`SurfaceBinding`), the handle
//! from the launch's constant buffers and the header from the header pool, read when the grid starts; level 0's
//! texels copied as they are (a surface access moves bytes, whatever the format) into a storage image of unsigned
//! texels of the same size, and after the grid the texels it changed written back where they came from, in the
//! header's layout (pitch or block-linear).

use super::texture::{TextureSource, read_descriptor};
use super::{NAME, ReferenceBackend};
use crate::backend::{BackendError, GpuMemory};
use crate::shader::ir::{SurfaceBinding, TextureDim};
use crate::texture::descriptor::{Handle, TextureHeader, TextureType};
use crate::texture::format::NumberKind;
use crate::texture::layout::{level_size, level_surfaces};
use crate::texture::surface::Surface;
use crate::texture::texel::{Storage, TextureFormat, sampled_kind};
use crate::vulkan::StorageImage;
use ash::vk;

fn unimplemented(what: impl Into<String>) -> BackendError {
    BackendError::Unimplemented { backend: NAME, what: what.into() }
}

/// The storage images a grid's surfaces are, which image each binding is (two bindings of one header share it),
/// and where each image's texels came from.
#[derive(Default)]
pub(super) struct BoundSurfaces {
    pub images: Vec<StorageImage>,
    pub bindings: Vec<usize>,
    /// Each image's header index, level 0 and its slices (layers, or a volume's depth slices), texels as read.
    places: Vec<(u32, Surface, u32, Vec<u8>)>,
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
            let handle = Handle { header: index, sampler: 0 };
            let (address, _) = source.pools.addresses(handle).map_err(|e| BackendError::BadTexture(e.to_string()))?;
            let header = TextureHeader::parse(index, read_descriptor(memory, address)?)
                .map_err(|e| BackendError::BadTexture(e.to_string()))?;
            let named = |error| match error {
                BackendError::Unimplemented { backend, what } => {
                    BackendError::Unimplemented { backend, what: format!("surface header {index}: {what}") }
                }
                other => other,
            };
            // Every binding's access is checked against the header, also where an earlier one bound its image.
            let (format, bytes) = accessed_format(&header, binding).map_err(named)?;
            if let Some(image) = bound.places.iter().position(|place| place.0 == index) {
                bound.bindings.push(image);
                continue;
            }
            let (image, place) = surface(&header, format, bytes, binding, memory).map_err(named)?;
            bound.bindings.push(bound.images.len());
            bound.images.push(image);
            bound.places.push((index, place.0, place.1, place.2));
        }
        Ok(bound)
    }

    /// Writes back the texels the grid changed (the others stay as the guest may have changed them meanwhile).
    pub(super) fn write_back_surfaces(&self, bound: &BoundSurfaces, memory: &GpuMemory) -> Result<(), BackendError> {
        for (image, (_, surface, slices, before)) in bound.images.iter().zip(&bound.places) {
            let bytes = surface.bytes_per_texel as usize;
            let mut at = 0;
            for slice in 0..*slices {
                for y in 0..surface.height {
                    for x in 0..surface.width {
                        let texel = &image.texels[at..at + bytes];
                        if texel != &before[at..at + bytes] {
                            let address = surface.texel_address(x, y, slice).expect("inside the surface");
                            memory.write(address, texel)?;
                        }
                        at += bytes;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Where a storage image's texels lie: level 0's surface, its slices, and the texels as read.
type Place = (Surface, u32, Vec<u8>);

/// The format of `header`, and its bytes a texel, when `binding`'s accesses can reach it: direct ones of its
/// texel size, formatted stores of all its channels (32-bit integers, which the stores write as U32).
fn accessed_format(header: &TextureHeader, binding: &SurfaceBinding) -> Result<(TextureFormat, u32), BackendError> {
    let format = TextureFormat::from_code(header.components)
        .ok_or_else(|| unimplemented(format!("texture format {:#04x} (COMPONENTS)", header.components)))?;
    let Storage::Plain { bytes, components } = format.storage else {
        return Err(unimplemented(format!("a surface of {}, a compressed format", format.name)));
    };
    if binding.texel_bytes == 0 {
        let integers = sampled_kind(header) != NumberKind::Float;
        let channels = components.iter().filter(|&&(_, width)| width != 0).count();
        if !integers
            || components.iter().any(|&(_, width)| !matches!(width, 0 | 32))
            || channels > usize::from(binding.formatted_channels)
        {
            return Err(unimplemented(format!(
                "formatted stores (SUST.P) of {} channels to a surface of {}",
                binding.formatted_channels, format.name
            )));
        }
    } else if u32::from(binding.texel_bytes) != bytes {
        return Err(unimplemented(format!(
            "accesses of {} bytes to a surface of {} ({bytes} bytes a texel)",
            binding.texel_bytes, format.name
        )));
    }
    Ok((format, bytes))
}

/// The storage image of `header`'s level 0 (of `format`, `bytes` a texel) that `binding` reaches, and where its
/// texels lie: the level's surface, its slices and the texels as read.
fn surface(
    header: &TextureHeader,
    format: TextureFormat,
    bytes: u32,
    binding: &SurfaceBinding,
    memory: &GpuMemory,
) -> Result<(StorageImage, Place), BackendError> {
    let vk_format = match bytes {
        1 => vk::Format::R8_UINT,
        2 => vk::Format::R16_UINT,
        4 => vk::Format::R32_UINT,
        8 => vk::Format::R32G32_UINT,
        16 => vk::Format::R32G32B32A32_UINT,
        _ => return Err(unimplemented(format!("a surface of {} ({bytes} bytes a texel)", format.name))),
    };
    let (stored_dim, array) = match header.texture_type {
        TextureType::OneD => (TextureDim::D1, false),
        TextureType::OneDArray => (TextureDim::D1, true),
        TextureType::TwoD | TextureType::TwoDNoMipmap => (TextureDim::D2, false),
        TextureType::TwoDArray => (TextureDim::D2, true),
        TextureType::ThreeD => (TextureDim::D3, false),
        other => return Err(unimplemented(format!("a {other:?} surface"))),
    };
    if (stored_dim, array) != (binding.dim, binding.array) {
        return Err(unimplemented(format!(
            "a {:?} surface accessed as {:?}{}",
            header.texture_type,
            binding.dim,
            if binding.array { " array" } else { "" }
        )));
    }
    let level = level_surfaces(header, format.storage.element())
        .and_then(|levels| levels.into_iter().next())
        .ok_or_else(|| {
            BackendError::BadTexture(format!("a surface of {}x{} whose size overflows", header.width, header.height))
        })?;
    let (width, height, depth) = level_size(header, 0);
    let layers = if array { header.layers() } else { 1 };
    let slices = if stored_dim == TextureDim::D3 { depth } else { layers };
    let mut texels = Vec::with_capacity((width * height * slices * bytes) as usize);
    let mut texel = vec![0u8; bytes as usize];
    for slice in 0..slices {
        for y in 0..height {
            for x in 0..width {
                let address = level
                    .texel_address(x, y, slice)
                    .ok_or_else(|| BackendError::BadTexture(format!("texel ({x}, {y}, {slice}) past the surface")))?;
                memory.read(address, &mut texel)?;
                texels.extend_from_slice(&texel);
            }
        }
    }
    let image = StorageImage {
        format: vk_format,
        bytes_per_texel: u64::from(bytes),
        view_type: crate::vulkan::view_type(stored_dim, array),
        size: [width, height, depth],
        layers,
        texels: texels.clone(),
    };
    Ok((image, (level, slices, texels)))
}
