//! The reference back end's textures: for each texture a stage's translation binds, the handle from the stage's
//! texture constant buffer, its header and sampler from the pools, read when the draw runs (Maxwell behaviour
//! 2.4); the texels of the levels the view names decoded on the CPU (`texture::texel`: every format the same
//! way, whatever the host supports) into four 32-bit numbers a texel; the sampler mapped to Vulkan's.

use super::{NAME, ReferenceBackend};
use crate::backend::{BackendError, ConstantBuffer, GpuMemory};
use crate::shader::ir::{MAX_SWITCHED_POOL_PAIRS, PoolView, TextureBinding, TextureDim, TextureHandle, TextureView};
use crate::texture::descriptor::{
    AddressMode, Comparison, DESCRIPTOR_BYTES, Filter, Handle, MipFilter, Pools, Sampler, TextureHeader, TextureType,
};
use crate::texture::format::NumberKind;
use crate::texture::layout::level_surfaces;
use crate::texture::surface::Surface;
use crate::texture::texel::{self, TextureFormat, sampled_kind};
use crate::vulkan::{Sampling, TexelBuffer, Texture, TexturePool, TextureSlot};
use ash::vk;

fn unimplemented(what: impl Into<String>) -> BackendError {
    BackendError::Unimplemented { backend: NAME, what: what.into() }
}

fn bad_texture(what: impl std::fmt::Display) -> BackendError {
    BackendError::BadTexture(what.to_string())
}

/// What a translation's texture binding takes: one texture, or for handles known only at run time the pools,
/// every header decoded as the binding's shape (a placeholder of zeros where one cannot be: another shape, an
/// empty or undecodable header, and past the last) and every sampler (a default one past the last).
pub(super) enum DecodedSlot {
    Texture(DecodedTexture),
    /// A 1D buffer's texels, four 32-bit numbers each.
    Buffer {
        kind: NumberKind,
        texels: Vec<u8>,
    },
    Pool {
        images: Vec<DecodedTexture>,
        samplers: Vec<Sampling>,
        view: TextureView,
    },
}

impl DecodedSlot {
    /// What the translation needs to know of it.
    pub(super) fn view(&self) -> TextureView {
        match self {
            DecodedSlot::Texture(texture) => texture.view(),
            &DecodedSlot::Buffer { kind, .. } => {
                TextureView { kind, dim: TextureDim::D1, array: false, pool: None, buffer: true }
            }
            DecodedSlot::Pool { view, .. } => *view,
        }
    }

    /// What the device binds of it: a pool's images all as FP32 views of their 32-bit words (or depths), which
    /// one float array holds whatever their number kind.
    pub(super) fn slot(&self) -> TextureSlot<'_> {
        match self {
            DecodedSlot::Texture(texture) => TextureSlot::Texture(texture.texture()),
            DecodedSlot::Buffer { kind, texels } => {
                TextureSlot::Buffer(TexelBuffer { format: texel_format(*kind, false), texels })
            }
            DecodedSlot::Pool { images, samplers, .. } => TextureSlot::Pool(TexturePool {
                images: images
                    .iter()
                    .map(|image| Texture {
                        format: if image.compared { vk::Format::D32_SFLOAT } else { vk::Format::R32G32B32A32_SFLOAT },
                        ..image.texture()
                    })
                    .collect(),
                samplers: samplers.clone(),
            }),
        }
    }
}

/// A texture decoded for the device: what `vulkan::Texture` borrows.
impl DecodedTexture {
    /// What the translation needs to know of it: its number kind and shape.
    pub(super) fn view(&self) -> TextureView {
        let (dim, array) = match self.view_type {
            vk::ImageViewType::TYPE_1D => (TextureDim::D1, false),
            vk::ImageViewType::TYPE_1D_ARRAY => (TextureDim::D1, true),
            vk::ImageViewType::TYPE_2D_ARRAY => (TextureDim::D2, true),
            vk::ImageViewType::CUBE => (TextureDim::Cube, false),
            vk::ImageViewType::CUBE_ARRAY => (TextureDim::Cube, true),
            vk::ImageViewType::TYPE_3D => (TextureDim::D3, false),
            _ => (TextureDim::D2, false),
        };
        TextureView { kind: self.kind, dim, array, pool: None, buffer: false }
    }
}

pub(super) struct DecodedTexture {
    pub kind: NumberKind,
    texels: Vec<u8>,
    view_type: vk::ImageViewType,
    width: u32,
    height: u32,
    /// A 3D texture's slices (1 otherwise).
    depth: u32,
    layers: u32,
    levels: u32,
    sampling: Sampling,
    /// The texels are depths (one FP32 each) that samples compare with.
    compared: bool,
}

impl DecodedTexture {
    /// A placeholder of zeros, one texel a layer, shaped as `binding` reads it.
    fn placeholder(binding: &TextureBinding) -> DecodedTexture {
        let layers = match (binding.dim, binding.array) {
            (TextureDim::Cube, array) => 6 * (1 + u32::from(array)),
            (_, array) => 1 + u32::from(array),
        };
        let texel_bytes = if binding.depth_compare { 4 } else { 16 };
        DecodedTexture {
            kind: NumberKind::Float,
            texels: vec![0; (texel_bytes * layers) as usize],
            view_type: crate::vulkan::view_type(binding.dim, binding.array),
            width: 1,
            height: 1,
            depth: 1,
            layers,
            levels: 1,
            sampling: Sampling::NEAREST_CLAMP,
            compared: binding.depth_compare,
        }
    }

    pub fn texture(&self) -> Texture<'_> {
        Texture {
            format: texel_format(self.kind, self.compared),
            bytes_per_texel: if self.compared { 4 } else { 16 },
            view_type: self.view_type,
            width: self.width,
            height: self.height,
            depth: self.depth,
            layers: self.layers,
            levels: self.levels,
            texels: &self.texels,
            sampling: self.sampling,
        }
    }
}

/// The host format of decoded texels of `kind` (depths where they are `compared`).
fn texel_format(kind: NumberKind, compared: bool) -> vk::Format {
    match kind {
        _ if compared => vk::Format::D32_SFLOAT,
        NumberKind::Float => vk::Format::R32G32B32A32_SFLOAT,
        NumberKind::Uint => vk::Format::R32G32B32A32_UINT,
        NumberKind::Sint => vk::Format::R32G32B32A32_SINT,
    }
}

/// The most texel bytes the pools may decode to for one binding of handles known only at run time.
const MAX_POOL_BYTES: u64 = 1 << 30;
/// The most one texture may decode to (an 8192 x 8192 texture's 16-byte texels with all its levels).
const MAX_TEXTURE_BYTES: u64 = 2 << 30;

/// The shape a header's texture type stores (`None`: a 1D buffer, which is no image).
fn stored_dim(texture_type: TextureType) -> Option<TextureDim> {
    Some(match texture_type {
        TextureType::OneD | TextureType::OneDArray => TextureDim::D1,
        TextureType::TwoD | TextureType::TwoDArray | TextureType::TwoDNoMipmap => TextureDim::D2,
        TextureType::Cubemap | TextureType::CubemapArray => TextureDim::Cube,
        TextureType::ThreeD => TextureDim::D3,
        TextureType::OneDBuffer => return None,
    })
}

/// Names the header (`kind`: "texture" or "surface") an unimplemented feature was met in.
/// The guest bytes one layer of `surface` spans, which the reference back end reads at once: bounded, as a pitch
/// header's pitch and height can make it far larger than the texels it holds.
fn layer_span(surface: &Surface) -> Result<u64, BackendError> {
    let span = surface.layer_bytes().ok_or_else(|| bad_texture("a level whose size overflows"))?;
    if span > MAX_TEXTURE_BYTES {
        return Err(unimplemented(format!(
            "a texture layer spanning {span} bytes of memory, more than the {} MiB the reference back end reads for one",
            MAX_TEXTURE_BYTES >> 20
        )));
    }
    Ok(span)
}

pub(super) fn in_header(kind: &'static str, index: u32) -> impl Fn(BackendError) -> BackendError + Copy {
    move |error| match error {
        BackendError::Unimplemented { backend, what } => {
            BackendError::Unimplemented { backend, what: format!("{kind} header {index}: {what}") }
        }
        other => other,
    }
}

/// The sampler a pool's headers are decoded through: sRGB headers decoded as sRGB (the conversion every sampler
/// NVN makes asks for), normalised coordinates, and for a depth compare, depths (the pool's own samplers sample
/// them).
fn pool_decoding(binding: &TextureBinding) -> Sampler {
    Sampler {
        address: [AddressMode::ClampToEdge; 3],
        compare: binding.depth_compare.then_some(Comparison::Never),
        srgb: true,
        max_anisotropy: 1,
        mag: Filter::Nearest,
        min: Filter::Nearest,
        anisotropic: false,
        mip: MipFilter::Nearest,
        lod_bias: 0.0,
        min_lod: 0.0,
        max_lod: 0.0,
        reduction: 0,
        seamless_cube: false,
        force_unnormalized: false,
        border: [0; 4],
        srgb_border: [0; 3],
    }
}

pub(super) fn read_descriptor(memory: &GpuMemory, address: u64) -> Result<[u32; 8], BackendError> {
    let mut bytes = [0u8; DESCRIPTOR_BYTES as usize];
    memory.read(address, &mut bytes)?;
    Ok(std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("four bytes"))))
}

/// Where a program's texture instructions find their textures when it runs: the handles in its constant
/// buffers (those of bound instructions in slot `texture_buffer`), the headers and samplers in the pools.
pub(super) struct TextureSource<'a> {
    /// The program's GPU address (for errors).
    pub program: u64,
    pub constant_buffers: &'a [Option<ConstantBuffer>],
    pub texture_buffer: usize,
    pub pools: Pools,
}

impl TextureSource<'_> {
    /// The handle (header index in bits 19:0, sampler index in 31:20) that `handle` names, read from the
    /// constant buffers.
    pub(super) fn handle(&self, handle: TextureHandle, memory: &GpuMemory) -> Result<u32, BackendError> {
        match handle {
            TextureHandle::Bound(offset) => self.handle_word(self.texture_buffer, offset, memory),
            TextureHandle::Pool => Err(bad_texture(format!(
                "the shader at {:#x} reads the pools through handles known only at run time: no one handle",
                self.program
            ))),
            TextureHandle::Traced(parts) => parts.iter().flatten().try_fold(0, |raw, part| {
                let word = self.handle_word(usize::from(part.bank), part.offset, memory)?;
                Ok::<u32, BackendError>(raw | part.apply(word))
            }),
        }
    }

    /// The word at byte `offset` of constant buffer `slot`, where a texture handle (or part of one) is.
    fn handle_word(&self, slot: usize, offset: u32, memory: &GpuMemory) -> Result<u32, BackendError> {
        let buffer = self.constant_buffers.get(slot).copied().flatten().ok_or_else(|| {
            bad_texture(format!(
                "the shader at {:#x} reads a texture handle from c[{slot:#x}], which is not bound",
                self.program
            ))
        })?;
        if u64::from(offset) + 4 > u64::from(buffer.size) {
            return Err(bad_texture(format!(
                "a texture handle at c[{slot:#x}][{offset:#x}], past the buffer's {} bytes",
                buffer.size
            )));
        }
        let mut raw = [0u8; 4];
        memory.read(buffer.address + u64::from(offset), &mut raw)?;
        Ok(u32::from_le_bytes(raw))
    }
}

impl ReferenceBackend {
    /// The textures `bindings` name, found through `source` (the pools, for handles known only at run time).
    pub(super) fn textures(
        &self,
        source: &TextureSource,
        bindings: &[TextureBinding],
        memory: &GpuMemory,
    ) -> Result<Vec<DecodedSlot>, BackendError> {
        bindings
            .iter()
            .map(|binding| match binding.handle {
                TextureHandle::Pool => self.pool(source, binding, memory),
                _ => self.texture(source, binding, memory),
            })
            .collect()
    }

    /// The pools as `binding` reads them through handles known only at run time: every header of its shape
    /// decoded (sRGB ones as sRGB: `pool_decoding`), and every sampler; an entry that cannot be read so is a
    /// placeholder (logged, unless it is all zeros, an unused entry, or a header of another shape).
    fn pool(
        &self,
        source: &TextureSource,
        binding: &TextureBinding,
        memory: &GpuMemory,
    ) -> Result<DecodedSlot, BackendError> {
        let pools = &source.pools;
        let headers = pools.header_maximum + 1;
        let sampler_maximum = if pools.sampler_via_header { pools.header_maximum } else { pools.sampler_maximum };
        let samplers = sampler_maximum + 1;
        let indexed = self.device.features().sampled_image_array_non_uniform_indexing;
        let pairs = (u64::from(headers) + 1) * (u64::from(samplers) + 1);
        if !indexed && pairs > u64::from(MAX_SWITCHED_POOL_PAIRS) {
            return Err(unimplemented(format!(
                "handles known only at run time into pools of {headers} headers and {samplers} samplers on {}, which \
                 cannot index descriptor arrays (shaderSampledImageArrayNonUniformIndexing): {pairs} pairs to switch \
                 between, more than {MAX_SWITCHED_POOL_PAIRS}; run on a device with descriptor indexing",
                self.device.name()
            )));
        }
        let skipped = |what: &str, index: u32, why: &dyn std::fmt::Display| {
            tracing::warn!(program = source.program, index, %why, "{what} left out of the pools run-time handles read");
        };
        let mut images = Vec::with_capacity(headers as usize + 1);
        let mut srgb_headers = false;
        let mut decoded_bytes = 0u64;
        for index in 0..headers {
            let words = read_descriptor(memory, pools.headers + u64::from(index) * DESCRIPTOR_BYTES)?;
            let image = match TextureHeader::parse(index, words) {
                Ok(header) if stored_dim(header.texture_type) == Some(binding.dim) => {
                    srgb_headers |= header.srgb;
                    self.decode(&header, &pool_decoding(binding), binding, memory).unwrap_or_else(|why| {
                        skipped("texture header", index, &why);
                        DecodedTexture::placeholder(binding)
                    })
                }
                Ok(header) if header.texture_type == TextureType::OneDBuffer && binding.dim == TextureDim::D1 => {
                    self.buffer_as_image(&header, binding, memory).unwrap_or_else(|why| {
                        skipped("1D buffer", index, &why);
                        DecodedTexture::placeholder(binding)
                    })
                }
                Ok(_) => DecodedTexture::placeholder(binding),
                Err(why) => {
                    if words != [0; 8] {
                        skipped("texture header", index, &why);
                    }
                    DecodedTexture::placeholder(binding)
                }
            };
            decoded_bytes += image.texels.len() as u64;
            if decoded_bytes > MAX_POOL_BYTES {
                return Err(unimplemented(format!(
                    "the pools that run-time handles read: their textures decode to more than {} MiB by header {index} \
                     (the reference back end binds every one of them for each draw)",
                    MAX_POOL_BYTES >> 20
                )));
            }
            images.push(image);
        }
        images.push(DecodedTexture::placeholder(binding));
        let placeholder =
            Sampling { compare: binding.depth_compare.then_some(vk::CompareOp::NEVER), ..Sampling::NEAREST_CLAMP };
        let mut sampler_list = Vec::with_capacity(samplers as usize + 1);
        for index in 0..samplers {
            let words = read_descriptor(memory, pools.samplers + u64::from(index) * DESCRIPTOR_BYTES)?;
            let sampling = Sampler::parse(index, words).map_err(bad_texture).and_then(|sampler| {
                if srgb_headers && !sampler.srgb {
                    skipped("sampler without sRGB conversion", index, &"run-time handles decode sRGB headers as sRGB");
                }
                let compare = match (binding.depth_compare, sampler.compare) {
                    (false, _) => None,
                    (true, Some(comparison)) => Some(crate::vulkan::compare_op(comparison)),
                    (true, None) => {
                        return Err(unimplemented("a depth compare through a sampler whose DEPTH_COMPARE is off"));
                    }
                };
                // One Vulkan sampler serves every header here, so its border is BORDER_COLOR's, sRGB or not.
                Ok(Sampling { compare, ..self.sampling(&sampler, NumberKind::Float, false)? })
            });
            sampler_list.push(match sampling {
                Ok(sampling) => sampling,
                Err(why) => {
                    if words != [0; 8] {
                        skipped("sampler", index, &why);
                    }
                    placeholder
                }
            });
        }
        sampler_list.push(placeholder);
        let pool = PoolView { headers, samplers, sampler_via_header: pools.sampler_via_header, indexed };
        let view = TextureView {
            kind: NumberKind::Float,
            dim: binding.dim,
            array: binding.array,
            pool: Some(pool),
            buffer: false,
        };
        Ok(DecodedSlot::Pool { images, samplers: sampler_list, view })
    }

    /// The texture a binding of a handle known when translating reads: a 1D buffer's texels, or an image
    /// sampled through the handle's sampler.
    fn texture(
        &self,
        source: &TextureSource,
        binding: &TextureBinding,
        memory: &GpuMemory,
    ) -> Result<DecodedSlot, BackendError> {
        let raw = source.handle(binding.handle, memory)?;
        let handle = Handle::split(raw, source.pools.sampler_via_header);
        let header_address = source.pools.header_address(handle.header).map_err(bad_texture)?;
        let header =
            TextureHeader::parse(handle.header, read_descriptor(memory, header_address)?).map_err(bad_texture)?;
        if header.texture_type == TextureType::OneDBuffer {
            return self.decode_buffer(&header, binding, memory).map_err(in_header("texture", handle.header));
        }
        let sampler_address = source.pools.sampler_address(handle.sampler).map_err(bad_texture)?;
        let sampler = Sampler::parse(handle.sampler, read_descriptor(memory, sampler_address)?).map_err(bad_texture)?;
        self.decode(&header, &sampler, binding, memory)
            .map(DecodedSlot::Texture)
            .map_err(in_header("texture", handle.header))
    }

    /// A 1D buffer texture through the pools of run-time handles, whose images are all images: a 1D image of its
    /// texels, where it fits the device's 1D images, for a plain 1D binding (a fetch reads texel x of it, a size
    /// query its width and one level; what a sample of a buffer does is documented nowhere).
    fn buffer_as_image(
        &self,
        header: &TextureHeader,
        binding: &TextureBinding,
        memory: &GpuMemory,
    ) -> Result<DecodedTexture, BackendError> {
        if binding.array || binding.depth_compare || binding.multisample {
            return Err(unimplemented("a 1D buffer read through the pools as other than a plain 1D texture"));
        }
        let (kind, texels) =
            self.buffer_texels(header, (self.device.features().max_image_dimension_1d, "1D images"), memory)?;
        Ok(DecodedTexture {
            kind,
            texels,
            view_type: vk::ImageViewType::TYPE_1D,
            width: header.width,
            height: 1,
            depth: 1,
            layers: 1,
            levels: 1,
            sampling: Sampling::NEAREST_CLAMP,
            compared: false,
        })
    }

    /// A 1D buffer texture: its texels, a row of its format from its address, decoded as a texture's are (no
    /// sampler reads one: TLD fetches it, TXQ measures it, and nothing converts sRGB).
    fn decode_buffer(
        &self,
        header: &TextureHeader,
        binding: &TextureBinding,
        memory: &GpuMemory,
    ) -> Result<DecodedSlot, BackendError> {
        let fetched = binding.fetch && (binding.dim, binding.array) == (TextureDim::D1, false);
        if !(fetched || binding.query) {
            return Err(unimplemented(format!(
                "a 1D buffer texture read other than by a 1D texel fetch or a size query (as {:?}{}, by {})",
                binding.dim,
                if binding.array { " array" } else { "" },
                if binding.fetch { "a fetch" } else { "a sample, gather or level query" }
            )));
        }
        let (kind, texels) =
            self.buffer_texels(header, (self.device.features().max_texel_buffer_elements, "texel buffers"), memory)?;
        Ok(DecodedSlot::Buffer { kind, texels })
    }

    /// A 1D buffer's texels (four 32-bit words each) and their number kind, for a host object that holds at most
    /// `limit.0` texels (`limit.1`: what it is, for the error).
    fn buffer_texels(
        &self,
        header: &TextureHeader,
        limit: (u32, &str),
        memory: &GpuMemory,
    ) -> Result<(NumberKind, Vec<u8>), BackendError> {
        let (most, holder) = limit;
        if header.width > most {
            return Err(unimplemented(format!(
                "a 1D buffer of {} texels on {}, whose {holder} hold at most {most}",
                header.width,
                self.device.name()
            )));
        }
        if header.srgb {
            return Err(unimplemented("an sRGB 1D buffer texture (no sampler says whether to convert)"));
        }
        let format = TextureFormat::from_code(header.components)
            .ok_or_else(|| unimplemented(format!("texture format {:#04x} (COMPONENTS)", header.components)))?;
        if format.storage.element().0 != 1 || format.storage.element().1 != 1 {
            return Err(bad_texture(format!("a 1D buffer of {}, whose blocks span several texels", format.name)));
        }
        let surfaces = level_surfaces(header, format.storage.element())
            .ok_or_else(|| bad_texture(format!("a 1D buffer of {} texels, whose size overflows", header.width)))?;
        let span = surfaces[0].layer_bytes().ok_or_else(|| bad_texture("a 1D buffer whose size overflows"))?;
        let mut bytes = vec![0u8; span as usize];
        memory.read(header.address, &mut bytes)?;
        let values = texel::decode(header, false, header.width, 1, &bytes).map_err(|e| unimplemented(e.to_string()))?;
        let texels = values.iter().flatten().flat_map(|word| word.to_le_bytes()).collect();
        Ok((sampled_kind(header), texels))
    }

    fn decode(
        &self,
        header: &TextureHeader,
        sampler: &Sampler,
        binding: &TextureBinding,
        memory: &GpuMemory,
    ) -> Result<DecodedTexture, BackendError> {
        match (binding.multisample, header.multisample) {
            (true, _) => return self.decode_multisampled(header, sampler, binding, memory),
            (false, 0) => {}
            (false, mode) => {
                return Err(unimplemented(format!(
                    "a multisampled texture (MULTI_SAMPLE_COUNT {mode:#x}) read other than by sample (TLD.MS, TLDS)"
                )));
            }
        }
        if binding.gather_offsets && !self.device.features().image_gather_extended {
            return Err(unimplemented(format!(
                "gathers with offsets from registers on {}, which lacks shaderImageGatherExtended",
                self.device.name()
            )));
        }
        if !header.normalized_coords || sampler.force_unnormalized {
            return Err(unimplemented("unnormalised texture coordinates"));
        }
        let stored_dim = stored_dim(header.texture_type).ok_or_else(|| unimplemented("1D buffer textures"))?;
        // A size query (TXQ) has no target: it takes the header's own shape (a cube array's third component counts
        // cubes, as Vulkan's query does: deko3d writes cubes into DEPTH, `gpu/research/tmml-lc.md` §3).
        let shaped;
        let binding = if binding.query {
            let array = matches!(
                header.texture_type,
                TextureType::OneDArray | TextureType::TwoDArray | TextureType::CubemapArray
            );
            shaped = TextureBinding { dim: stored_dim, array, ..*binding };
            &shaped
        } else {
            binding
        };
        // The instruction decides the shape (behaviour 2.8): a cube may be read as a cube array, a 2D sample of an
        // array reads layer 0; a read of another dimension reads zeros, as on a Tegra X1 (nxgpucatch's tex.cpp and
        // texs.cpp, `tests/sm53_hardware/texture.rs`).
        if stored_dim != binding.dim {
            tracing::debug!(texture_type = ?header.texture_type, dim = ?binding.dim, "a texture read as another dimension: zeros");
            return Ok(DecodedTexture::placeholder(binding));
        }
        let layers = match (binding.dim, binding.array) {
            (_, true) => header.layers(),
            (TextureDim::Cube, false) => 6,
            _ => 1,
        };
        let view_type = crate::vulkan::view_type(binding.dim, binding.array);
        if view_type == vk::ImageViewType::CUBE_ARRAY && !self.device.features().image_cube_array {
            return Err(unimplemented(format!("cube arrays on {}, which lacks imageCubeArray", self.device.name())));
        }
        let format = TextureFormat::from_code(header.components)
            .ok_or_else(|| unimplemented(format!("texture format {:#04x} (COMPONENTS)", header.components)))?;
        let surfaces = level_surfaces(header, format.storage.element()).ok_or_else(|| {
            bad_texture(format!(
                "a texture of {}x{} ({:?}) whose size overflows",
                header.width, header.height, header.layout
            ))
        })?;
        let (first, last) = header.view_levels;
        let last = last.min(surfaces.len() as u32 - 1);
        if first > last {
            return Err(bad_texture(format!("a view of levels {first} to {last}: none")));
        }
        // Levels past the 1x1 one (a header may count more): a Vulkan image holds the mip chain at most.
        let (width, height, depth) = crate::texture::layout::level_size(header, first);
        let largest = width.max(height).max(if stored_dim == TextureDim::D3 { depth } else { 1 });
        let last = last.min(first + (u32::BITS - largest.max(1).leading_zeros()) - 1);
        if binding.dim == TextureDim::Cube && width != height {
            return Err(bad_texture(format!("a cube of {width}x{height} faces (faces are square)")));
        }
        if binding.dim == TextureDim::D1 && height != 1 {
            return Err(unimplemented(format!("a 1D texture {height} texels high")));
        }
        // Texels decode to 16 bytes each: bound what a header's sizes make the host hold before decoding.
        let decoded = (first..=last).try_fold(0u64, |total, level| {
            let (width, height, depth) = crate::texture::layout::level_size(header, level);
            let slices = if stored_dim == TextureDim::D3 { u64::from(depth) } else { u64::from(layers) };
            total.checked_add(u64::from(width).checked_mul(u64::from(height))?.checked_mul(slices)?.checked_mul(16)?)
        });
        if decoded.is_none_or(|bytes| bytes > MAX_TEXTURE_BYTES) {
            return Err(unimplemented(format!(
                "a texture of {}x{}x{} ({} layers, levels {first}-{last}) decoding to more than the {} MiB the \
                 reference back end decodes for one",
                header.width,
                header.height,
                header.depth,
                layers,
                MAX_TEXTURE_BYTES >> 20
            )));
        }
        let kind = sampled_kind(header);
        // A depth compare (Maxwell behaviour 2.12) compares the reference with each texel's first component, as
        // the sampler's DEPTH_COMPARE_FUNC says, before filtering.
        let compare = match (binding.depth_compare, sampler.compare) {
            (false, _) => None,
            (true, Some(comparison)) if kind == NumberKind::Float => Some(crate::vulkan::compare_op(comparison)),
            (true, Some(_)) => return Err(unimplemented("a depth compare of an integer texture")),
            (true, None) => return Err(unimplemented("a depth compare through a sampler whose DEPTH_COMPARE is off")),
        };
        let mut texels = Vec::new();
        for level in first..=last {
            let surface = &surfaces[level as usize];
            let (width, height, depth) = crate::texture::layout::level_size(header, level);
            // A layer's bytes (or a volume's, whose slices interleave), read once for its slices.
            let slices = if stored_dim == TextureDim::D3 { depth } else { 1 };
            for layer in 0..layers {
                let span = layer_span(surface)?;
                let start =
                    surface.texel_address(0, 0, layer).ok_or_else(|| bad_texture("a layer past the texture's"))?;
                let mut bytes = vec![0u8; span as usize];
                memory.read(start, &mut bytes)?;
                for slice in 0..slices {
                    // The surface's third coordinate: the layer, or a volume's slice.
                    let index = if slices > 1 { slice } else { layer };
                    // The slice's elements, row by row.
                    let element = surface.bytes_per_texel as usize;
                    let mut elements = Vec::with_capacity(surface.width as usize * surface.height as usize * element);
                    for y in 0..surface.height {
                        for x in 0..surface.width {
                            // (A pitch header has one slice: a pitch 3D texture's others are past it.)
                            let element_bytes = surface
                                .texel_address(x, y, index)
                                .and_then(|address| address.checked_sub(start))
                                .and_then(|at| bytes.get(at as usize..)?.get(..element))
                                .ok_or_else(|| bad_texture(format!("texel ({x}, {y}, {index}) past the texture's")))?;
                            elements.extend_from_slice(element_bytes);
                        }
                    }
                    let values = texel::decode(header, sampler.srgb, width, height, &elements)
                        .map_err(|e| unimplemented(e.to_string()))?;
                    if compare.is_some() {
                        // Depth images hold [0, 1] (what depth formats decode to; ZF32 beyond it is clamped).
                        let depth = |texel: &[u32; 4]| f32::from_bits(texel[0]).clamp(0.0, 1.0).to_le_bytes();
                        texels.extend(values.iter().flat_map(depth));
                    } else {
                        texels.extend(values.iter().flatten().flat_map(|word| word.to_le_bytes()));
                    }
                }
            }
        }
        let (width, height, depth) = crate::texture::layout::level_size(header, first);
        let cube = matches!(header.texture_type, TextureType::Cubemap | TextureType::CubemapArray);
        if cube && !sampler.seamless_cube && !self.device.features().non_seamless_cube_map {
            tracing::warn!(
                device = %self.device.name(),
                "a cube map sampled without seamless filtering (TSC CUBEMAP_INTERFACE_FILTERING USE_WRAP) on a \
                 device without VK_EXT_non_seamless_cube_map: filtered across its faces' edges instead"
            );
        }
        Ok(DecodedTexture {
            kind,
            texels,
            view_type,
            width,
            height,
            depth,
            layers,
            levels: last - first + 1,
            sampling: Sampling { compare, ..self.sampling(sampler, kind, header.srgb)? },
            compared: compare.is_some(),
        })
    }

    /// A multisampled 2D texture fetched by sample, as a 2D array of one layer a sample: its memory is the
    /// enlarged surface (each pixel a block of texels, as a multisampled target's: `engine::multisample`), decoded
    /// as a plain 2D texture of that size, each sample's texels then gathered into its layer.
    fn decode_multisampled(
        &self,
        header: &TextureHeader,
        sampler: &Sampler,
        binding: &TextureBinding,
        memory: &GpuMemory,
    ) -> Result<DecodedTexture, BackendError> {
        if header.texture_type != TextureType::TwoD {
            return Err(unimplemented(format!("{:?} multisampled textures", header.texture_type)));
        }
        if binding.depth_compare {
            return Err(unimplemented("depth compares of multisampled textures"));
        }
        let ((sx, sy), offsets) = crate::engine::multisample::sample_layout(header.multisample).ok_or_else(|| {
            unimplemented(format!(
                "multisampled textures of MULTI_SAMPLE_COUNT {:#x} (its sample order is not known)",
                header.multisample
            ))
        })?;
        let enlarged = TextureHeader {
            width: header.width * sx,
            height: header.height * sy,
            multisample: 0,
            max_mip_level: 0,
            view_levels: (0, 0),
            ..*header
        };
        let plain = TextureBinding { array: false, multisample: false, ..*binding };
        let whole = self.decode(&enlarged, sampler, &plain, memory)?;
        let (width, height) = (header.width as usize, header.height as usize);
        let texel_bytes = whole.texels.len() / (width * sx as usize * height * sy as usize);
        let mut texels = Vec::with_capacity(whole.texels.len());
        for &(bx, by) in offsets {
            for y in 0..height {
                for x in 0..width {
                    let (i, j) = (x * sx as usize + bx as usize, y * sy as usize + by as usize);
                    let at = (j * width * sx as usize + i) * texel_bytes;
                    texels.extend_from_slice(&whole.texels[at..at + texel_bytes]);
                }
            }
        }
        Ok(DecodedTexture {
            texels,
            view_type: vk::ImageViewType::TYPE_2D_ARRAY,
            width: header.width,
            height: header.height,
            depth: 1,
            layers: offsets.len() as u32,
            levels: 1,
            ..whole
        })
    }

    /// A TSC sampler as Vulkan's, for a texture whose texels are sRGB-decoded or not (`srgb_texture`: the
    /// border colour it reads, `Sampler::border`).
    fn sampling(&self, sampler: &Sampler, kind: NumberKind, srgb_texture: bool) -> Result<Sampling, BackendError> {
        let features = &self.device.features();
        // Integer textures cannot be filtered; the hardware takes the nearest texel.
        let filter = |filter: Filter| match (filter, kind) {
            (Filter::Linear, NumberKind::Float) => vk::Filter::LINEAR,
            _ => vk::Filter::NEAREST,
        };
        let nearest_only = sampler.mag == Filter::Nearest && sampler.min == Filter::Nearest;
        let address = sampler.address.map(|mode| match mode {
            AddressMode::Wrap => Ok(vk::SamplerAddressMode::REPEAT),
            AddressMode::Mirror => Ok(vk::SamplerAddressMode::MIRRORED_REPEAT),
            AddressMode::ClampToEdge => Ok(vk::SamplerAddressMode::CLAMP_TO_EDGE),
            AddressMode::Border => Ok(vk::SamplerAddressMode::CLAMP_TO_BORDER),
            // OpenGL's GL_CLAMP takes the edge texel wherever nearest filtering reads one.
            AddressMode::ClampOgl if nearest_only => Ok(vk::SamplerAddressMode::CLAMP_TO_EDGE),
            AddressMode::MirrorOnceClampToEdge if features.sampler_mirror_clamp_to_edge => {
                Ok(vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE)
            }
            other => {
                Err(unimplemented(format!("the {other:?} address mode with these filters on {}", self.device.name())))
            }
        });
        let [u, v, w] = address;
        let (mipmap_mode, min_lod, max_lod) = match sampler.mip {
            // The base level only: Vulkan's equivalent of no mipmapping (its specification's note on GL's).
            MipFilter::None => (vk::SamplerMipmapMode::NEAREST, 0.0, 0.25),
            MipFilter::Nearest => (vk::SamplerMipmapMode::NEAREST, sampler.min_lod, sampler.max_lod),
            MipFilter::Linear if kind == NumberKind::Float => {
                (vk::SamplerMipmapMode::LINEAR, sampler.min_lod, sampler.max_lod)
            }
            MipFilter::Linear => (vk::SamplerMipmapMode::NEAREST, sampler.min_lod, sampler.max_lod),
        };
        let anisotropy = match (sampler.anisotropic && sampler.max_anisotropy > 1, features.sampler_anisotropy) {
            (true, Some(most)) => Some((sampler.max_anisotropy as f32).min(most)),
            (true, None) => {
                tracing::warn!(device = %self.device.name(), "anisotropic filtering without samplerAnisotropy: filtering linearly");
                None
            }
            (false, _) => None,
        };
        let reduction = match sampler.reduction {
            0 => vk::SamplerReductionMode::WEIGHTED_AVERAGE,
            reduction if !features.sampler_filter_minmax => {
                return Err(unimplemented(format!(
                    "reduction filter {reduction} on {}, which lacks samplerFilterMinmax",
                    self.device.name()
                )));
            }
            1 => vk::SamplerReductionMode::MIN,
            _ => vk::SamplerReductionMode::MAX,
        };
        if sampler.address.contains(&AddressMode::Border) && !features.custom_border_colors {
            return Err(unimplemented(format!(
                "border colours on {}, which lacks VK_EXT_custom_border_color",
                self.device.name()
            )));
        }
        let bound = features.max_sampler_lod_bias;
        Ok(Sampling {
            mag: filter(sampler.mag),
            min: filter(sampler.min),
            mipmap_mode,
            address: [u?, v?, w?],
            lod_bias: sampler.lod_bias.clamp(-bound, bound),
            min_lod,
            max_lod,
            anisotropy,
            reduction,
            border: sampler.border(srgb_texture),
            compare: None,
            // Where the device cannot filter faces alone, seamless (logged where a cube map is decoded).
            seamless_cube: sampler.seamless_cube || !features.non_seamless_cube_map,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::surface::Layout;

    #[test]
    fn a_pitch_layer_spanning_more_than_the_bound_is_refused_before_it_is_read() {
        // One texel a row, the widest pitch a header gives (PITCH_BITS20TO5 all ones) and 65536 rows: 128 GiB
        // of memory for 256 KiB of texels.
        let tall = Surface::single_layer(0, 1, 65536, 4, Layout::Pitch { pitch: 0xffff << 5 });
        let error = layer_span(&tall).unwrap_err().to_string();
        assert!(error.contains("spanning 137434759204 bytes"), "{error}");
        let fits = Surface::single_layer(0, 256, 256, 4, Layout::Pitch { pitch: 1024 });
        assert_eq!(layer_span(&fits).unwrap(), 255 * 1024 + 1024);
    }
}
