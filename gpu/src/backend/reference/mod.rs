//! The reference back end: straightforward and obviously right. Each operation reads what it needs from guest
//! memory, has the Vulkan device do the work, and writes the result back to guest memory at once, in the
//! layout the guest's GPU uses. What is kept between operations only saves work: the device buffers mirroring
//! the guest's mapped GPU ranges (their contents written anew at every dispatch) and the kernels' translations,
//! by `shader::cache_key`.
//!
//! Clears: the device clears a one-texel image of the target's format to the clear value (so the encoding —
//! rounding, float conversion, sRGB — is the device's), and every texel of the rectangle takes those bytes in
//! the channels the clear enables.

mod depth;
mod draw;
mod surface;
mod target;
mod texture;

use super::{
    Backend, BackendError, ColorClear, DepthStencilClear, Dispatch, Draw, Drawn, Frame, GpuMemory, Present, Rect,
};
use crate::mmu::GuestMemory;
use crate::sass::Isa;
use crate::sass::cubin::KernelImage;
use crate::shader::{
    FAULT_BYTES, FaultWord, GlobalMemory, GuestWindows, ProgramNeeds, Translation, Window, cache_key, program_needs,
    translate_compute,
};
use crate::texture::format::{ColorFormat, Kind, Unused, bits_of_bytes, texel_bits};
use crate::texture::surface::Surface;
use crate::vulkan::{Buffer, ComputeDevice, VulkanError};
use ash::vk;
use std::collections::HashMap;
use texture::TextureSource;

pub struct ReferenceBackend {
    device: ComputeDevice,
    /// Device buffers that mirror the guest's mapped ranges, kept from one dispatch to the next (their contents
    /// written anew each time) so that a kernel's translation, which builds their addresses in, can be reused.
    mirrors: HashMap<(u64, u64), Buffer>,
    fault: Option<Buffer>,
    /// Translations by `shader::cache_key`, and how many were made.
    translations: HashMap<[u8; 32], Translation>,
    /// What each program needs (its textures, whether it reaches global memory), by instruction set and code:
    /// known before the translation cache can be consulted, whose keys name the textures' views.
    needs: HashMap<(Isa, Vec<u8>), ProgramNeeds>,
    translated: usize,
    /// The device's depth bias steps a unit by fixed-point host depth format (`ComputeDevice::depth_bias_steps`),
    /// measured at the first polygon offset on each.
    bias_steps: HashMap<ash::vk::Format, f64>,
    /// Whether the device's lack of OpenGL's aliased lines has been logged.
    warned_about_lines: bool,
}

const NAME: &str = "reference";
/// Translations kept at most.
const MAX_TRANSLATIONS: usize = 256;
/// The largest frame a present reads: 8K RGBA64.
const MAX_FRAME_BYTES: u64 = 7680 * 4320 * 8;
/// The most GPU-mapped memory a compute dispatch copies to the device: the console's 4 GiB of memory.
const MAX_MIRROR_BYTES: u64 = 4 << 30;

fn failed(error: VulkanError) -> BackendError {
    BackendError::Failed { backend: NAME, problem: error.to_string() }
}

/// The Vulkan format with the same bits in the same places as a render target format (an X format's unused bits
/// where the host format keeps alpha).
pub fn vulkan_format(format: &ColorFormat) -> Option<vk::Format> {
    use vk::Format as F;
    Some(match format.name {
        "RF32_GF32_BF32_X32" => F::R32G32B32A32_SFLOAT,
        "RS32_GS32_BS32_X32" => F::R32G32B32A32_SINT,
        "RU32_GU32_BU32_X32" => F::R32G32B32A32_UINT,
        "RF16_GF16_BF16_X16" => F::R16G16B16A16_SFLOAT,
        "X8R8G8B8" | "Z8R8G8B8" | "O8R8G8B8" => F::B8G8R8A8_UNORM,
        "X8RL8GL8BL8" => F::B8G8R8A8_SRGB,
        "X1R5G5B5" | "Z1R5G5B5" | "O1R5G5B5" => F::A1R5G5B5_UNORM_PACK16,
        "X8B8G8R8" => F::R8G8B8A8_UNORM,
        "X8BL8GL8RL8" => F::R8G8B8A8_SRGB,
        "RF32_GF32_BF32_AF32" => F::R32G32B32A32_SFLOAT,
        "RS32_GS32_BS32_AS32" => F::R32G32B32A32_SINT,
        "RU32_GU32_BU32_AU32" => F::R32G32B32A32_UINT,
        "R16_G16_B16_A16" => F::R16G16B16A16_UNORM,
        "RN16_GN16_BN16_AN16" => F::R16G16B16A16_SNORM,
        "RS16_GS16_BS16_AS16" => F::R16G16B16A16_SINT,
        "RU16_GU16_BU16_AU16" => F::R16G16B16A16_UINT,
        "RF16_GF16_BF16_AF16" => F::R16G16B16A16_SFLOAT,
        "RF32_GF32" => F::R32G32_SFLOAT,
        "RS32_GS32" => F::R32G32_SINT,
        "RU32_GU32" => F::R32G32_UINT,
        "A8R8G8B8" => F::B8G8R8A8_UNORM,
        "A8RL8GL8BL8" => F::B8G8R8A8_SRGB,
        "A2B10G10R10" => F::A2B10G10R10_UNORM_PACK32,
        "AU2BU10GU10RU10" => F::A2B10G10R10_UINT_PACK32,
        "A8B8G8R8" => F::R8G8B8A8_UNORM,
        "A8BL8GL8RL8" => F::R8G8B8A8_SRGB,
        "AN8BN8GN8RN8" => F::R8G8B8A8_SNORM,
        "AS8BS8GS8RS8" => F::R8G8B8A8_SINT,
        "AU8BU8GU8RU8" => F::R8G8B8A8_UINT,
        "R16_G16" => F::R16G16_UNORM,
        "RN16_GN16" => F::R16G16_SNORM,
        "RS16_GS16" => F::R16G16_SINT,
        "RU16_GU16" => F::R16G16_UINT,
        "RF16_GF16" => F::R16G16_SFLOAT,
        "A2R10G10B10" => F::A2R10G10B10_UNORM_PACK32,
        "BF10GF11RF11" => F::B10G11R11_UFLOAT_PACK32,
        "RS32" => F::R32_SINT,
        "RU32" | "R32" => F::R32_UINT,
        "RF32" => F::R32_SFLOAT,
        "R5G6B5" => F::R5G6B5_UNORM_PACK16,
        "A1R5G5B5" => F::A1R5G5B5_UNORM_PACK16,
        "G8R8" => F::R8G8_UNORM,
        "GN8RN8" => F::R8G8_SNORM,
        "GS8RS8" => F::R8G8_SINT,
        "GU8RU8" => F::R8G8_UINT,
        "R16" => F::R16_UNORM,
        "RN16" => F::R16_SNORM,
        "RS16" => F::R16_SINT,
        "RU16" => F::R16_UINT,
        "RF16" => F::R16_SFLOAT,
        "R8" => F::R8_UNORM,
        "RN8" => F::R8_SNORM,
        "RS8" => F::R8_SINT,
        "RU8" => F::R8_UINT,
        // Alpha in the host's R (and R in R, A in G; or A, R, G, B in R, G, B, A): `host_swizzle` says which
        // channel each host component holds.
        "A8" => F::R8_UNORM,
        "A16" => F::R16_UNORM,
        "AF16" => F::R16_SFLOAT,
        "AF32" => F::R32_SFLOAT,
        "A8R8" => F::R8G8_UNORM,
        "R16_A16" => F::R16G16_UNORM,
        "RF16_AF16" => F::R16G16_SFLOAT,
        "RF32_AF32" => F::R32G32_SFLOAT,
        "B8G8R8A8" => F::R8G8B8A8_UNORM,
        _ => return None,
    })
}

/// The channel (R, G, B, A: 0-3) each component of `vulkan_format`'s host format holds: itself, but where the
/// format keeps alpha in another place. The components a host format lacks repeat alpha, which blend factors
/// read as the source's alpha.
pub fn host_swizzle(format: &ColorFormat) -> [u8; 4] {
    match format.name {
        "A8" | "A16" | "AF16" | "AF32" => [3, 3, 3, 3],
        "A8R8" | "R16_A16" | "RF16_AF16" | "RF32_AF32" => [0, 3, 3, 3],
        "B8G8R8A8" => [3, 0, 1, 2],
        _ => [0, 1, 2, 3],
    }
}

/// Makes the reference back end on the Vulkan device `TANDEM_VULKAN_DEVICE` names, else the best one (lavapipe on
/// machines without a GPU), when the GPU first needs it.
pub fn factory() -> crate::front_end::BackendFactory {
    Box::new(|| {
        let device = ComputeDevice::new().map_err(|error| error.to_string())?;
        tracing::info!(device = device.name(), "the reference GPU back end renders on this Vulkan device");
        Ok(Box::new(ReferenceBackend::new(device)) as Box<dyn Backend>)
    })
}

impl ReferenceBackend {
    pub fn new(device: ComputeDevice) -> ReferenceBackend {
        ReferenceBackend {
            device,
            mirrors: HashMap::new(),
            fault: None,
            translations: HashMap::new(),
            needs: HashMap::new(),
            translated: 0,
            bias_steps: HashMap::new(),
            warned_about_lines: false,
        }
    }

    /// What `kernel` needs, lowered once per program.
    fn program_needs(&mut self, kernel: &KernelImage) -> Result<ProgramNeeds, BackendError> {
        let key = (kernel.isa, kernel.code.clone());
        if let Some(needs) = self.needs.get(&key) {
            return Ok(needs.clone());
        }
        if self.needs.len() >= MAX_TRANSLATIONS {
            self.needs.clear();
        }
        let needs = program_needs(kernel)?;
        self.needs.insert(key, needs.clone());
        Ok(needs)
    }

    /// Kernels translated so far (a launch of a kernel already translated for the same memory reuses it).
    pub fn translations_made(&self) -> usize {
        self.translated
    }

    pub fn device(&self) -> &ComputeDevice {
        &self.device
    }

    /// A texel of `format` holding `value`, as the device encodes it.
    fn encode(&self, format: &ColorFormat, value: [u32; 4]) -> Result<Vec<u8>, BackendError> {
        let vulkan = vulkan_format(format).ok_or_else(|| BackendError::Unimplemented {
            backend: NAME,
            what: format!("clear render targets of format {} ({:#x})", format.name, format.code),
        })?;
        let swizzle = host_swizzle(format);
        let value: [u32; 4] = std::array::from_fn(|c| value[swizzle[c] as usize]);
        let clear = match format.kind {
            Kind::Uint => vk::ClearColorValue { uint32: value },
            Kind::Sint => vk::ClearColorValue { int32: value.map(|v| v as i32) },
            _ => vk::ClearColorValue { float32: value.map(f32::from_bits) },
        };
        self.device.clear_color_image(vulkan, 1, 1, u64::from(format.bytes), clear).map_err(failed)
    }
}

/// Guest memory as shaders reach it: each mapped range's bytes as read before the work, at its GPU address.
type Mirrors = Vec<(u64, Vec<u8>)>;

impl ReferenceBackend {
    /// The guest's mapped GPU ranges copied into device buffers (each range keeps its buffer while it stays
    /// mapped, so that translations that build the addresses in stay valid), with the windows shaders reach them
    /// through.
    fn mirror_guest_memory(&mut self, memory: &GpuMemory) -> Result<(Mirrors, Vec<Window>), BackendError> {
        let mut mirrors = Vec::new();
        let mut windows = Vec::new();
        let ranges = memory.mmu.windows();
        let total = ranges.iter().try_fold(0u64, |total, &(_, size)| total.checked_add(size));
        if total.is_none_or(|total| total > MAX_MIRROR_BYTES) {
            return Err(BackendError::Unimplemented {
                backend: NAME,
                what: format!(
                    "mirroring GPU mappings of more than {} GiB in all (the reference back end copies every mapping \
                     for a compute dispatch)",
                    MAX_MIRROR_BYTES >> 30
                ),
            });
        }
        self.mirrors.retain(|range, _| ranges.contains(range));
        for (gpu, size) in ranges {
            let mut bytes = vec![0u8; size as usize];
            memory.read(gpu, &mut bytes)?;
            let buffer = match self.mirrors.entry((gpu, size)) {
                std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(self.device.buffer(size).map_err(failed)?)
                }
            };
            self.device.write(buffer, 0, &bytes).map_err(failed)?;
            windows.push(Window { gpu, size, device: buffer.address() });
            mirrors.push((gpu, bytes));
        }
        Ok((mirrors, windows))
    }

    /// The bytes the work changed in the mirrors, into guest memory.
    fn write_back_mirrors(&self, mirrors: &Mirrors, memory: &GpuMemory) -> Result<(), BackendError> {
        for (gpu, before) in mirrors {
            let buffer = &self.mirrors[&(*gpu, before.len() as u64)];
            let after = self.device.read(buffer).map_err(failed)?;
            write_changes(memory, *gpu, before, &after)?;
        }
        Ok(())
    }

    /// The buffer accesses outside every window land in, zeroed (one kept between uses).
    fn fault_buffer(&mut self) -> Result<Buffer, BackendError> {
        let fault = match self.fault.take() {
            Some(fault) => fault,
            None => self.device.buffer(FAULT_BYTES).map_err(failed)?,
        };
        self.device.write(&fault, 0, &[0; FAULT_BYTES as usize]).map_err(failed)?;
        Ok(fault)
    }

    /// Whether an access missed every window (the hardware would fault the channel); the buffer is kept.
    fn faulted(&mut self, fault: Buffer) -> Result<bool, BackendError> {
        let flag = FaultWord::Flag as usize * 4;
        let faulted = self.device.read(&fault).map_err(failed)?[flag..flag + 4] != [0; 4];
        self.fault = Some(fault);
        Ok(faulted)
    }
}

/// A clear's writes: `value`'s bits under `written` into each `bytes`-byte texel of `rect` in `layer` of `target`,
/// the other bits kept (texels written whole are not read).
fn merge_into_texels(
    target: &Surface,
    rect: &Rect,
    layer: u32,
    bytes: usize,
    value: u128,
    written: u128,
    memory: &GpuMemory,
) -> Result<(), BackendError> {
    if written == 0 {
        return Ok(());
    }
    let texel = bits_of_bytes(bytes);
    let whole = written & texel == texel;
    let mut old = [0u8; 16];
    for y in rect.y0..rect.y1 {
        for x in rect.x0..rect.x1 {
            let Some(address) = target.texel_address(x, y, layer) else { continue };
            let merged = match whole {
                true => value,
                false => {
                    memory.read(address, &mut old[..bytes])?;
                    (texel_bits(&old[..bytes]) & !written) | (value & written)
                }
            };
            memory.write(address, &merged.to_le_bytes()[..bytes])?;
        }
    }
    Ok(())
}

impl Backend for ReferenceBackend {
    fn name(&self) -> &'static str {
        NAME
    }

    fn clear_color(&mut self, clear: &ColorClear, memory: &GpuMemory) -> Result<(), BackendError> {
        let texel = self.encode(&clear.format, clear.value)?;
        let bytes = clear.format.bytes as usize;
        let mut written = clear.format.channel_bits(clear.mask);
        // Writing any channel of a Z or O format's texel fills its unused bits.
        if written != 0 && clear.format.unused != Unused::Kept {
            written |= clear.format.unused_bits();
        }
        let value = clear.format.fill_unused(texel_bits(&texel));
        merge_into_texels(&clear.target, &clear.rect, clear.layer, bytes, value, written, memory)
    }

    /// Depth as the device encodes it (a one-texel depth image of the same precision, read back) and stencil as
    /// given, merged into each texel of the rectangle under the stencil mask. A float depth target takes the value's
    /// bits as they are, whatever the value (a device clear outside [0, 1] is undefined in Vulkan without
    /// VK_EXT_depth_range_unrestricted); a UNORM one takes it clamped to [0, 1], and refuses a NaN by name.
    fn clear_depth_stencil(&mut self, clear: &DepthStencilClear, memory: &GpuMemory) -> Result<(), BackendError> {
        let format = &clear.format;
        let (depth_low, depth_width) = format.depth;
        let (stencil_low, stencil_width) = format.stencil;
        let mut value = 0u128;
        let mut written = 0u128;
        if let Some(depth) = clear.depth.filter(|_| depth_width > 0) {
            let bits = (1u128 << depth_width) - 1;
            let texel = if format.float_depth {
                u128::from(depth)
            } else {
                let depth = f32::from_bits(depth);
                if depth.is_nan() {
                    return Err(draw::unimplemented("a depth clear of NaN into a UNORM depth format"));
                }
                let (vulkan, bytes) =
                    if depth_width == 16 { (vk::Format::D16_UNORM, 2) } else { (vk::Format::X8_D24_UNORM_PACK32, 4) };
                let depth = depth.clamp(0.0, 1.0);
                if self.device.supports_transfer_format(vulkan) {
                    let texel = self.device.clear_depth_image(vulkan, 1, 1, bytes, depth).map_err(failed)?;
                    texel_bits(&texel[..bytes as usize])
                } else {
                    tracing::debug!(device = %self.device.name(), "{vulkan:?} cannot be cleared there: converted on the CPU");
                    u128::from(depth::unorm_depth(depth, depth_width))
                }
            };
            value |= (texel & bits) << depth_low;
            written |= bits << depth_low;
        }
        if stencil_width > 0 && clear.stencil_mask != 0 {
            value |= u128::from(clear.stencil) << stencil_low;
            written |= u128::from(clear.stencil_mask) << stencil_low;
        }
        merge_into_texels(&clear.target, &clear.rect, clear.layer, format.bytes as usize, value, written, memory)
    }

    fn draw(&mut self, draw: &Draw, memory: &GpuMemory) -> Result<Drawn, BackendError> {
        ReferenceBackend::draw(self, draw, memory)
    }

    /// Mirrors every mapped range of the address space into a device buffer, translates the kernel to reach the
    /// guest's GPU addresses there, binds the constant buffers, textures and surfaces the kernel reaches, runs the
    /// grid, and writes back the bytes the grid changed (the surfaces' texels too).
    fn dispatch(&mut self, dispatch: &Dispatch, memory: &GpuMemory) -> Result<(), BackendError> {
        let program = &dispatch.kernel.name;
        // Maxwell gives a block up to 48 KiB of shared memory; a Vulkan device may offer less.
        let limit = self.device.features().max_shared_memory;
        if dispatch.kernel.shared_bytes > limit {
            return Err(BackendError::Failed {
                backend: NAME,
                problem: format!(
                    "{program} needs {} bytes of shared memory a block, and the Vulkan device {} offers {limit} \
                     (maxComputeSharedMemorySize); pick another with TANDEM_VULKAN_DEVICE",
                    dispatch.kernel.shared_bytes,
                    self.device.name()
                ),
            });
        }
        // The textures, read as the grid starts.
        let source = TextureSource {
            program: dispatch.program,
            constant_buffers: &dispatch.constant_buffers,
            texture_buffer: dispatch.texture_buffer,
            pools: dispatch.texture_pools,
        };
        let needs = self.program_needs(&dispatch.kernel)?;
        let textures = self.textures(&source, &needs.textures, memory)?;
        let mut surfaces = self.surfaces(&source, &needs.surfaces, memory)?;
        let views: Vec<_> = textures.iter().map(|texture| texture.view()).collect();
        let (mirrors, windows) = self.mirror_guest_memory(memory)?;
        let fault = self.fault_buffer()?;
        let global = GlobalMemory::Guest(GuestWindows { windows, fault: fault.address() });
        let key = cache_key(&dispatch.kernel, dispatch.block, dispatch.local_bytes, &global, &views);
        if !self.translations.contains_key(&key) {
            // Keys change with the mapped ranges too: keep the cache from growing without end.
            if self.translations.len() >= MAX_TRANSLATIONS {
                self.translations.clear();
            }
            let translation =
                translate_compute(&dispatch.kernel, dispatch.block, dispatch.local_bytes, &global, &views)?;
            self.translated += 1;
            self.translations.insert(key, translation);
        }
        let translation = &self.translations[&key];
        let mut banks = Vec::new();
        for &bank in &translation.constant_banks {
            let Some(buffer) = dispatch.constant_buffers.get(usize::from(bank)).copied().flatten() else {
                return Err(BackendError::Failed {
                    backend: NAME,
                    problem: format!("{program} reads constant buffer {bank}, which the launch does not bind"),
                });
            };
            let mut bytes = vec![0u8; buffer.size as usize];
            memory.read(buffer.address, &mut bytes)?;
            let bound = self.device.buffer(u64::from(buffer.size.max(4)).next_multiple_of(4)).map_err(failed)?;
            self.device.write(&bound, 0, &bytes).map_err(failed)?;
            banks.push(bound);
        }
        let bindings: Vec<_> = banks.iter().collect();
        let sampled: Vec<_> = textures.iter().map(texture::DecodedSlot::slot).collect();
        let storage = (&mut surfaces.images[..], &surfaces.bindings[..]);
        self.device
            .dispatch_images(
                &translation.spirv,
                "main",
                &bindings,
                &sampled,
                storage,
                dispatch.grid,
                &Default::default(),
            )
            .map_err(failed)?;
        if self.faulted(fault)? {
            return Err(BackendError::ShaderFault { program: dispatch.program });
        }
        self.write_back_mirrors(&mirrors, memory)?;
        self.write_back_surfaces(&surfaces, memory)
    }

    /// Reads every texel and widens it to RGBA8 (UNORM formats whose channels are 8 bits or fewer; a channel a
    /// format lacks reads as 0, alpha as 255).
    fn present(&mut self, present: &Present, memory: &dyn GuestMemory) -> Result<Frame, BackendError> {
        let format = &present.format;
        let displayable =
            matches!(format.kind, Kind::Unorm | Kind::Srgb) && format.channels.iter().all(|&(_, w)| w <= 8);
        if !displayable {
            return Err(BackendError::Unimplemented {
                backend: NAME,
                what: format!("present frames of format {} ({:#x})", format.name, format.code),
            });
        }
        let surface = &present.surface;
        let bytes = format.bytes as usize;
        let failed = |problem: String| BackendError::Failed { backend: NAME, problem };
        if surface.bytes_per_texel != format.bytes {
            return Err(failed(format!(
                "a frame of {}-byte texels in format {}, whose texels are {} bytes",
                surface.bytes_per_texel, format.name, format.bytes
            )));
        }
        // The whole layer at once (a read per texel would cost more than the rest of the present).
        let pixels = u64::from(surface.width) * u64::from(surface.height) * 4;
        let span = surface
            .layer_bytes()
            .filter(|&span| span <= MAX_FRAME_BYTES && pixels <= MAX_FRAME_BYTES)
            .ok_or_else(|| {
                failed(format!("a frame of {}x{} texels is larger than Tandem shows", surface.width, surface.height))
            })?;
        let mut image = vec![0u8; span as usize];
        if !memory.read(surface.address, &mut image) {
            return Err(BackendError::Failed {
                backend: NAME,
                problem: format!("the frame at guest address {:#x} (+{span:#x}) is not all mapped", surface.address),
            });
        }
        // A texel's offset is its column's plus its row's (block-linear addresses add up too: the GOB swizzle puts
        // x and y bits in different places; `texel_offsets_add_up` holds Surface to it).
        let offsets = |count: u32, at: &dyn Fn(u32) -> Option<u64>| -> Result<Vec<usize>, BackendError> {
            (0..count)
                .map(|i| at(i).map(|offset| offset as usize))
                .collect::<Option<_>>()
                .filter(|offsets: &Vec<usize>| !offsets.is_empty())
                .ok_or_else(|| BackendError::Failed {
                    backend: NAME,
                    problem: format!("a frame of {}x{} texels has no such layout", surface.width, surface.height),
                })
        };
        let columns = offsets(surface.width, &|x| surface.texel_offset(x, 0))?;
        let rows = offsets(surface.height, &|y| surface.texel_offset(0, y))?;
        // Offsets add up, so the largest texel's end is the largest row's plus the largest column's.
        let last = rows.iter().max().zip(columns.iter().max()).map(|(row, column)| row + column + bytes);
        if last.is_none_or(|end| end as u64 > span) {
            return Err(failed(format!("a frame of {}x{} texels past its own layout", surface.width, surface.height)));
        }
        // Each channel's widening to 8 bits, as a table over its raw values.
        let widen: Vec<(u32, u64, Vec<u8>)> = format
            .channels
            .iter()
            .enumerate()
            .map(|(index, &(low, width))| {
                let table = match width {
                    0 if index == 3 => vec![255],
                    0 => vec![0],
                    // An n-bit UNORM widened to 8 bits as the value's fraction of its maximum, rounded.
                    _ => {
                        let max = (1u32 << width) - 1;
                        (0..=max).map(|raw| ((raw * 255 * 2 + max) / (2 * max)) as u8).collect()
                    }
                };
                (low, (1u64 << width) - 1, table)
            })
            .collect();
        let mut rgba = Vec::with_capacity(surface.width as usize * surface.height as usize * 4);
        // R, G, B, A in 8 bits each, in that byte order: the texel is the pixel.
        let rgba8 = format.channels == [(0, 8), (8, 8), (16, 8), (24, 8)];
        let mut texel = [0u8; 8];
        for &row in &rows {
            if rgba8 {
                for &column in &columns {
                    rgba.extend_from_slice(&image[row + column..row + column + 4]);
                }
                continue;
            }
            for &column in &columns {
                let at = row + column;
                texel[..bytes].copy_from_slice(&image[at..at + bytes]);
                let value = u64::from_le_bytes(texel);
                for (low, mask, table) in &widen {
                    rgba.push(table[((value >> low) & mask) as usize]);
                }
            }
        }
        Ok(Frame { width: surface.width, height: surface.height, rgba })
    }
}

/// Writes back the runs of bytes a grid changed in a mirrored window (only those: the guest's other bytes stay
/// as they are, whatever the device holds). Pages that did not change are skipped whole.
fn write_changes(memory: &GpuMemory, gpu: u64, before: &[u8], after: &[u8]) -> Result<(), BackendError> {
    const PAGE: usize = 4096;
    for (page, (old, new)) in before.chunks(PAGE).zip(after.chunks(PAGE)).enumerate() {
        if old == new {
            continue;
        }
        let mut at = 0;
        while at < old.len() {
            if old[at] == new[at] {
                at += 1;
                continue;
            }
            let end = (at..old.len()).find(|&i| old[i] == new[i]).unwrap_or(old.len());
            memory.write(gpu + (page * PAGE + at) as u64, &new[at..end])?;
            at = end;
        }
    }
    Ok(())
}
