//! Opening a device: the instance (with the validation layer on request), the choice of physical device, what it
//! offers (`Features`), the logical device with one compute queue, the allocator and the command pool; and `Shared`,
//! which owns them all and releases them in reverse order.

use super::VulkanError;
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::{AllocationSizes, AllocatorDebugSettings};
use std::collections::HashSet;
use std::ffi::{CStr, c_void};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// How to open a device. `ComputeDevice::new` reads these from the environment (`from_env`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceOptions {
    /// Use the first suitable device whose name contains this (ignoring case), instead of the best one.
    pub device: Option<String>,
    /// Enable the Khronos validation layer, if installed, and send its messages to `tracing`.
    pub validation: bool,
}

impl DeviceOptions {
    /// `TANDEM_VULKAN_DEVICE` (a part of the device name) and `TANDEM_VULKAN_VALIDATION=1`.
    pub fn from_env() -> DeviceOptions {
        DeviceOptions {
            device: std::env::var("TANDEM_VULKAN_DEVICE").ok().filter(|name| !name.is_empty()),
            validation: std::env::var("TANDEM_VULKAN_VALIDATION").is_ok_and(|value| value == "1"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceType {
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    /// A CPU implementation such as lavapipe.
    Cpu,
    Other,
}

/// What the chosen device offers beyond the requirements (Vulkan 1.2, `bufferDeviceAddress`, `shaderInt64`). Every
/// optional feature listed here that the device has is enabled.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// The device's Vulkan version: (major, minor, patch).
    pub api_version: (u32, u32, u32),
    pub device_type: DeviceType,
    /// The driver's name and description ("llvmpipe", "Mesa 22.3.6 (LLVM 15.0.6)").
    pub driver: String,

    pub shader_float64: bool,
    pub shader_float16: bool,
    pub shader_int16: bool,
    pub shader_int8: bool,
    pub storage_buffer_16bit_access: bool,
    pub storage_buffer_8bit_access: bool,
    pub shader_buffer_int64_atomics: bool,
    pub shader_shared_int64_atomics: bool,
    pub vulkan_memory_model: bool,
    pub vulkan_memory_model_device_scope: bool,

    /// Invocations per subgroup when none is required.
    pub subgroup_size: u32,
    /// The sizes a compute shader may require (min, max); (subgroup_size, subgroup_size) without size control.
    pub subgroup_size_range: (u32, u32),
    /// A compute pipeline may require a subgroup size (`subgroupSizeControl` with the compute stage listed in
    /// `requiredSubgroupSizeStages`).
    pub subgroup_size_control: bool,
    /// A compute pipeline may require full subgroups (`computeFullSubgroups`).
    pub compute_full_subgroups: bool,
    /// The most subgroups one workgroup may hold when a size is required.
    pub max_compute_workgroup_subgroups: u32,
    /// The subgroup operations compute shaders may use.
    pub subgroup_operations: SubgroupOperations,
    /// Fragment shaders may use subgroup quad operations (a pixel program's derivatives).
    pub fragment_quads: bool,
    /// The stages whose shaders may use subgroup votes and ballots (a graphics program's VOTE).
    pub vote_stages: vk::ShaderStageFlags,
    /// Subgroup operations on 8-, 16- and 64-bit types (`shaderSubgroupExtendedTypes`).
    pub shader_subgroup_extended_types: bool,

    /// 32-bit float controls a shader may ask for (denormals kept or flushed, round-to-nearest-even or to-zero).
    pub denorm_preserve_float32: bool,
    pub denorm_flush_to_zero_float32: bool,
    pub rounding_mode_rte_float32: bool,
    pub rounding_mode_rtz_float32: bool,
    /// -0, infinities and NaNs kept through FP32 and FP64 arithmetic when a shader asks.
    pub signed_zero_inf_nan_preserve: bool,

    pub max_workgroup_size: [u32; 3],
    pub max_workgroup_invocations: u32,
    pub max_workgroup_count: [u32; 3],
    /// Bytes of workgroup-shared memory.
    pub max_shared_memory: u32,
    /// Storage buffers one shader may bind.
    pub max_storage_buffers: u32,
    /// Bytes one storage-buffer binding may span (addresses reach past it).
    pub max_storage_buffer_range: u32,
    /// Texels a texel buffer view may span (`maxTexelBufferElements`).
    pub max_texel_buffer_elements: u32,
    /// Texels a 1D image may span (`maxImageDimension1D`).
    pub max_image_dimension_1d: u32,
    /// The largest 2D, 3D and cube images and the most layers (`maxImageDimension2D`, `3D`, `Cube`,
    /// `maxImageArrayLayers`): images past them are refused by name, not handed to the driver.
    pub max_image_dimension_2d: u32,
    pub max_image_dimension_3d: u32,
    pub max_image_dimension_cube: u32,
    pub max_image_array_layers: u32,

    /// The queue draws too (a graphics queue) and the device has dynamic rendering (Vulkan 1.3): what
    /// `ComputeDevice::draw` needs.
    pub draws: bool,
    /// Fragment shaders may demote an invocation to a helper (KIL: `shaderDemoteToHelperInvocation`).
    pub demote_to_helper: bool,

    /// Samplers: anisotropic filtering (with its largest ratio), MIRROR_CLAMP_TO_EDGE, minimum/maximum
    /// reduction, any border colour (VK_EXT_custom_border_color, enabled when present), the largest LOD bias;
    /// cube arrays.
    pub sampler_anisotropy: Option<f32>,
    pub sampler_mirror_clamp_to_edge: bool,
    pub sampler_filter_minmax: bool,
    pub custom_border_colors: bool,
    pub max_sampler_lod_bias: f32,
    pub image_cube_array: bool,
    /// Occlusion queries count samples exactly (`occlusionQueryPrecise`): the 3D class's ZPASS_PIXEL_CNT.
    pub occlusion_query_precise: bool,
    /// Pipeline statistics queries (`pipelineStatisticsQuery`): the 3D class's shader and clipper counters.
    pub pipeline_statistics_query: bool,
    /// Polygon offset's clamp, and the depth bounds test.
    pub depth_bias_clamp: bool,
    pub depth_bounds: bool,
    /// Logic ops on colour targets.
    pub logic_op: bool,
    /// Blending with a second source (SRC1 factors).
    pub dual_src_blend: bool,
    /// Colour output 0's alpha replaced by 1 after multisample coverage (`alphaToOne`).
    pub alpha_to_one: bool,
    /// Colour targets that blend (or mask channels) differently (`independentBlend`).
    pub independent_blend: bool,
    /// Gathers with offsets that are not constants (`shaderImageGatherExtended`).
    pub image_gather_extended: bool,
    /// Arrays of sampled images and samplers indexed by values that may differ between invocations
    /// (`shaderSampledImageArrayDynamicIndexing` and `shaderSampledImageArrayNonUniformIndexing`): the pools that
    /// texture handles known only at run time index.
    pub sampled_image_array_non_uniform_indexing: bool,
    /// Storage images of the extended formats (R8ui, R16ui, Rg32ui...).
    pub storage_image_extended_formats: bool,
    /// Vertex and fragment shaders may store to memory (`vertexPipelineStoresAndAtomics`,
    /// `fragmentStoresAndAtomics`).
    pub vertex_stores: bool,
    pub fragment_stores: bool,
    /// Several viewports in a draw, picked by the vertex shader's `ViewportIndex` (`multiViewport`,
    /// `shaderOutputViewportIndex`).
    pub viewport_index: bool,
    /// The vertex shader's `Layer` picks a layer of the targets (`shaderOutputLayer`).
    pub output_layer: bool,
    /// Points of other sizes than 1.
    pub large_points: bool,
    /// Triangles drawn as their edges or vertices (`fillModeNonSolid`).
    pub fill_mode_non_solid: bool,
    /// User clip and cull distances (`shaderClipDistance`, `shaderCullDistance`), and how many a stage may write
    /// in all (`maxCombinedClipAndCullDistances`).
    pub clip_distances: bool,
    pub cull_distances: bool,
    pub max_clip_and_cull_distances: u32,
    /// Geometry and tessellation evaluation shaders may write `PointSize` (`shaderTessellationAndGeometryPointSize`).
    pub tessellation_geometry_point_size: bool,
    /// Geometry programs (`geometryShader`), with the most invocations a primitive, vertices an invocation
    /// emits, and components those vertices hold in all (`maxGeometryShaderInvocations`,
    /// `maxGeometryOutputVertices`, `maxGeometryTotalOutputComponents`).
    pub geometry_shader: Option<[u32; 3]>,
    /// Tessellation programs (`tessellationShader`).
    pub tessellation_shader: bool,
    /// Multisampled targets as the reference back end draws them: sample shading (`sampleRateShading`, which
    /// copies each sample in) and the samples at the standard locations (`standardSampleLocations`).
    pub multisampling: bool,
    /// Depth clamped to the viewport's range instead of clipped.
    pub depth_clamp: bool,
    /// VK_EXT_conservative_rasterization (enabled when present): triangles cover every pixel they touch, grown
    /// by `primitiveOverestimationSize`, and by at most `maxExtraPrimitiveOverestimationSize` more on request.
    pub conservative_rasterization: Option<[f32; 2]>,
    /// VK_EXT_post_depth_coverage (enabled when present): a fragment shader's `SampleMask` input may hold the
    /// coverage after the early depth and stencil tests (`PostDepthCoverage`).
    pub post_depth_coverage: bool,
    /// Lines wider than one pixel (`wideLines`), with the widths the device draws (`lineWidthRange`).
    pub wide_lines: Option<[f32; 2]>,
    /// VK_EXT_line_rasterization (enabled when present): OpenGL's aliased lines (`bresenhamLines`) and
    /// anti-aliased ones (`smoothLines`).
    pub bresenham_lines: bool,
    pub smooth_lines: bool,
    /// ... and those lines stippled (`stippledBresenhamLines`, `stippledSmoothLines`).
    pub stippled_bresenham_lines: bool,
    pub stippled_smooth_lines: bool,
    /// VK_EXT_primitives_generated_query (enabled, with VK_EXT_transform_feedback, when both are present): the
    /// primitives the last stage before the rasteriser hands on (`primitivesGeneratedQuery`), the 3D class's
    /// VTG_PRIMITIVES_OUT.
    pub primitives_generated_query: bool,
    /// ... and counted with the rasteriser discarding them (`primitivesGeneratedQueryWithRasterizerDiscard`).
    pub primitives_generated_with_discard: bool,
    /// Samplers that filter each cube face on its own, with their address modes at the face's edges
    /// (VK_EXT_non_seamless_cube_map), as a TSC's CUBEMAP_INTERFACE_FILTERING USE_WRAP asks.
    pub non_seamless_cube_map: bool,
}

impl Features {
    /// Whether a compute dispatch may require `size` invocations per subgroup (32: an NVIDIA warp).
    pub fn can_require_subgroup_size(&self, size: u32) -> bool {
        let (min, max) = self.subgroup_size_range;
        self.subgroup_size_control && size.is_power_of_two() && (min..=max).contains(&size)
    }
}

/// The subgroup operation classes available to compute shaders (`VkSubgroupFeatureFlags`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupOperations {
    pub basic: bool,
    pub vote: bool,
    pub arithmetic: bool,
    pub ballot: bool,
    pub shuffle: bool,
    pub shuffle_relative: bool,
    pub clustered: bool,
    pub quad: bool,
}

/// The Vulkan objects behind a `ComputeDevice` and its buffers; buffers hold it too, so it lives until the last of
/// them is gone.
pub(super) struct Shared {
    pub device: ash::Device,
    pub queue: Mutex<Queue>,
    /// `None` only while `Shared` is dropped. Locked after `queue` when both are needed.
    pub allocator: Mutex<Option<Allocator>>,
    pub physical: vk::PhysicalDevice,
    instance: &'static Instance,
}

/// The one queue and its command pool. Whoever holds this lock may submit, touch buffer memory or free buffers.
pub(super) struct Queue {
    pub queue: vk::Queue,
    pub pool: vk::CommandPool,
    pub state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    Ready,
    /// The driver reported the device lost: no more work, but objects may still be destroyed.
    Lost,
    /// A dispatch timed out and may still be running: nothing it might use may be freed, ever.
    Wedged,
}

impl Shared {
    /// What the device can do with images of `format` in optimal tiling.
    pub fn format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        // SAFETY: a physical device of this instance.
        unsafe { self.instance.instance.get_physical_device_format_properties(self.physical, format) }
            .optimal_tiling_features
    }

    /// What the device can do with texel buffers of `format`.
    pub fn buffer_format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        // SAFETY: a physical device of this instance.
        unsafe { self.instance.instance.get_physical_device_format_properties(self.physical, format) }.buffer_features
    }

    /// The sample counts 2D images of `format` with `usage` and `flags` may have (none where they cannot exist).
    pub fn image_sample_counts(
        &self,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> vk::SampleCountFlags {
        // SAFETY: a physical device of this instance.
        unsafe {
            self.instance.instance.get_physical_device_image_format_properties(
                self.physical,
                format,
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                flags,
            )
        }
        .map_or(vk::SampleCountFlags::empty(), |properties| properties.sample_counts)
    }

    /// The queue, if the device can still take work.
    pub fn ready(&self) -> Result<MutexGuard<'_, Queue>, VulkanError> {
        let queue = lock(&self.queue);
        if queue.state == State::Ready { Ok(queue) } else { Err(VulkanError::Unusable) }
    }
}

/// A lock whose holder panicked is still usable: every critical section leaves its data consistent.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Drop for Shared {
    fn drop(&mut self) {
        let state = self.queue.get_mut().unwrap_or_else(PoisonError::into_inner).state;
        if state == State::Wedged {
            // A shader may still be running on this memory: leak it all rather than free it under the shader.
            std::mem::forget(self.allocator.get_mut().unwrap_or_else(PoisonError::into_inner).take());
            tracing::warn!("leaking a Vulkan device whose dispatch never finished");
            return;
        }
        let pool = self.queue.get_mut().unwrap_or_else(PoisonError::into_inner).pool;
        // SAFETY: no buffer is left (they hold this `Shared`), no dispatch runs (they borrow the `ComputeDevice`), and
        // a lost device's objects may be destroyed all the same.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(pool, None);
        }
        // The allocator frees its memory blocks through the device, so it goes first.
        drop(self.allocator.get_mut().unwrap_or_else(PoisonError::into_inner).take());
        // SAFETY: every object made from the device is gone.
        unsafe { self.device.destroy_device(None) };
    }
}

/// The instance and, with validation on, the messenger that routes the layer's messages to `tracing`.
struct Instance {
    /// Keeps the loader library open.
    _entry: ash::Entry,
    instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
}

/// The process's instance with and without validation, made when first wanted and never destroyed: destroying
/// the last instance lets the loader unload the driver, and NVIDIA's leaves thread-exit handlers behind that then
/// crash the process (SIGSEGV as a thread that used the driver ends: two tests' devices in one process on an H200).
fn process_instance(validation: bool) -> Result<&'static Instance, VulkanError> {
    static INSTANCES: Mutex<[Option<&'static Instance>; 2]> = Mutex::new([None, None]);
    let mut instances = lock(&INSTANCES);
    let slot = &mut instances[usize::from(validation)];
    if slot.is_none() {
        *slot = Some(Box::leak(Box::new(Instance::new(validation)?)));
    }
    Ok(slot.expect("made above"))
}

impl Instance {
    fn new(validation: bool) -> Result<Instance, VulkanError> {
        // SAFETY: loading the system's Vulkan loader runs its initialisers, which is what it is for.
        let entry = unsafe { ash::Entry::load() }.map_err(|error| VulkanError::NoLoader(error.to_string()))?;
        // SAFETY: a global command with no arguments.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(VulkanError::call("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_2 {
            return Err(VulkanError::OldLoader(version_string(version)));
        }
        let validation = validation && validation_available(&entry);
        let layers = if validation { vec![VALIDATION_LAYER.as_ptr()] } else { Vec::new() };
        let extensions = if validation { vec![ash::ext::debug_utils::NAME.as_ptr()] } else { Vec::new() };
        let application = vk::ApplicationInfo::default()
            .application_name(c"tandem")
            .engine_name(c"tandem")
            .api_version(vk::API_VERSION_1_3);
        let mut instance_messages = messenger_info();
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&application)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if validation {
            info = info.push_next(&mut instance_messages);
        }
        // SAFETY: `info` and everything it points to live across the call.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|result| match result {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => VulkanError::NoDevice,
            result => VulkanError::call("vkCreateInstance")(result),
        })?;
        let mut this = Instance { _entry: entry, instance, messenger: None };
        if validation {
            let loader = ash::ext::debug_utils::Instance::new(&this._entry, &this.instance);
            // SAFETY: the instance enabled VK_EXT_debug_utils; the callback is a plain function.
            let messenger = unsafe { loader.create_debug_utils_messenger(&messenger_info(), None) }
                .map_err(VulkanError::call("vkCreateDebugUtilsMessengerEXT"))?;
            this.messenger = Some((loader, messenger));
            tracing::info!("Vulkan validation layer enabled");
        }
        Ok(this)
    }
}

/// Whether the validation layer and the debug-utils extension to hear it are installed; says why not when not.
fn validation_available(entry: &ash::Entry) -> bool {
    // SAFETY: global commands with no arguments.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
    if !layers.iter().any(|layer| layer.layer_name_as_c_str() == Ok(VALIDATION_LAYER)) {
        tracing::warn!(
            "TANDEM_VULKAN_VALIDATION=1, but VK_LAYER_KHRONOS_validation is not installed (Debian: \
             vulkan-validationlayers); running without it"
        );
        return false;
    }
    // SAFETY: as above; the layer name is a valid C string.
    let extensions = unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }
        .unwrap_or_default()
        .into_iter()
        .chain(unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap_or_default());
    let debug_utils = extensions.into_iter().any(|e| e.extension_name_as_c_str() == Ok(ash::ext::debug_utils::NAME));
    if !debug_utils {
        tracing::warn!("TANDEM_VULKAN_VALIDATION=1, but VK_EXT_debug_utils is missing; running without validation");
    }
    debug_utils
}

fn messenger_info() -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    use vk::DebugUtilsMessageSeverityFlagsEXT as Severity;
    use vk::DebugUtilsMessageTypeFlagsEXT as Kind;
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(Severity::ERROR | Severity::WARNING | Severity::INFO | Severity::VERBOSE)
        .message_type(Kind::GENERAL | Kind::VALIDATION | Kind::PERFORMANCE)
        .pfn_user_callback(Some(on_message))
}

/// The validation layer's messages, as `tracing` events (errors as errors, warnings as warnings, the rest as trace).
unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    use vk::DebugUtilsMessageSeverityFlagsEXT as Severity;
    // SAFETY: the layer passes valid data, or null, for the duration of the call.
    let data = unsafe { data.as_ref() };
    let message = match data.filter(|data| !data.p_message.is_null()) {
        // SAFETY: `p_message` is a NUL-terminated string the layer owns for the duration of the call.
        Some(data) => unsafe { CStr::from_ptr(data.p_message) }.to_string_lossy(),
        None => "(no message)".into(),
    };
    if severity.contains(Severity::ERROR) {
        tracing::error!(target: "tandem_gpu::vulkan::validation", "{message}");
    } else if severity.contains(Severity::WARNING) {
        tracing::warn!(target: "tandem_gpu::vulkan::validation", "{message}");
    } else {
        // The loader's and the layer's chatter (manifests found, layers inserted).
        tracing::trace!(target: "tandem_gpu::vulkan::validation", "{message}");
    }
    vk::FALSE
}

/// A physical device that meets the requirements, with what it offers.
struct Candidate {
    physical: vk::PhysicalDevice,
    name: String,
    queue_family: u32,
    /// The device needs VK_EXT_subgroup_size_control enabled (Vulkan 1.2 with the extension).
    size_control_extension: bool,
    /// The device has subgroup size control at all (Vulkan 1.3, or the extension).
    size_control: bool,
    features: Features,
}

/// Whether a feature structure's flag is set.
fn on(flag: vk::Bool32) -> bool {
    flag != vk::FALSE
}

/// Everything `ComputeDevice::new` sets up.
pub(super) struct Opened {
    pub shared: Arc<Shared>,
    pub name: String,
    pub features: Features,
}

pub(super) fn open(options: &DeviceOptions) -> Result<Opened, VulkanError> {
    let instance = process_instance(options.validation)?;
    // SAFETY: a valid instance.
    let physicals = unsafe { instance.instance.enumerate_physical_devices() }
        .map_err(VulkanError::call("vkEnumeratePhysicalDevices"))?;
    if physicals.is_empty() {
        return Err(VulkanError::NoDevice);
    }
    let mut candidates = Vec::new();
    let mut rejected = Vec::new();
    for physical in physicals {
        match examine(&instance.instance, physical) {
            Ok(candidate) => {
                tracing::debug!(device = %candidate.name, "suitable Vulkan device");
                candidates.push(candidate);
            }
            Err(why) => {
                tracing::debug!("unsuitable Vulkan device: {why}");
                rejected.push(why);
            }
        }
    }
    if candidates.is_empty() {
        return Err(VulkanError::NoSuitableDevice(rejected.join("; ")));
    }
    let candidate = match &options.device {
        Some(wanted) => {
            let lowered = wanted.to_lowercase();
            let Some(index) = candidates.iter().position(|c| c.name.to_lowercase().contains(&lowered)) else {
                let available: Vec<&str> = candidates.iter().map(|c| c.name.as_str()).collect();
                return Err(VulkanError::NoMatchingDevice { wanted: wanted.clone(), available: available.join(", ") });
            };
            candidates.swap_remove(index)
        }
        None => {
            // Stable: the first of the best kind.
            candidates.sort_by_key(|c| preference(c.features.device_type));
            candidates.swap_remove(0)
        }
    };
    let shared = create_device(instance, &candidate)?;
    let (major, minor, patch) = candidate.features.api_version;
    tracing::info!(
        device = %candidate.name,
        kind = ?candidate.features.device_type,
        vulkan = %format_args!("{major}.{minor}.{patch}"),
        driver = %candidate.features.driver,
        "Vulkan compute device"
    );
    Ok(Opened { shared, name: candidate.name, features: candidate.features })
}

/// Lower is better: discrete GPUs, then integrated, virtual, unknown, and CPU implementations last.
fn preference(kind: DeviceType) -> u8 {
    match kind {
        DeviceType::DiscreteGpu => 0,
        DeviceType::IntegratedGpu => 1,
        DeviceType::VirtualGpu => 2,
        DeviceType::Other => 3,
        DeviceType::Cpu => 4,
    }
}

/// The device's offer, or why it does not qualify.
fn examine(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Result<Candidate, String> {
    // SAFETY (every call here): `physical` came from this instance, and each chain holds structures that outlive it.
    let properties = unsafe { instance.get_physical_device_properties(physical) };
    let name = properties.device_name_as_c_str().map_or_else(|_| "(unnamed)".into(), |n| n.to_string_lossy().into());
    if properties.api_version < vk::API_VERSION_1_2 {
        return Err(format!("{name}: Vulkan {}, not 1.2", version_string(properties.api_version)));
    }
    let extensions: HashSet<Vec<u8>> = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(|result| format!("{name}: vkEnumerateDeviceExtensionProperties failed: {result:?}"))?
        .iter()
        .filter_map(|e| e.extension_name_as_c_str().ok().map(|n| n.to_bytes().to_vec()))
        .collect();
    let size_control_extension = properties.api_version < vk::API_VERSION_1_3
        && extensions.contains(ash::ext::subgroup_size_control::NAME.to_bytes());
    let size_control = properties.api_version >= vk::API_VERSION_1_3 || size_control_extension;

    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut control = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    let mut border = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default();
    let mut line = vk::PhysicalDeviceLineRasterizationFeaturesEXT::default();
    let mut generated = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT::default();
    let mut non_seamless = vk::PhysicalDeviceNonSeamlessCubeMapFeaturesEXT::default();
    let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut v11).push_next(&mut v12);
    let border_extension = extensions.contains(ash::ext::custom_border_color::NAME.to_bytes());
    if border_extension {
        query = query.push_next(&mut border);
    }
    let line_extension = extensions.contains(ash::ext::line_rasterization::NAME.to_bytes());
    if line_extension {
        query = query.push_next(&mut line);
    }
    // The extension needs VK_EXT_transform_feedback enabled beside it (none of whose features it needs).
    let generated_extension = extensions.contains(ash::ext::primitives_generated_query::NAME.to_bytes())
        && extensions.contains(ash::ext::transform_feedback::NAME.to_bytes());
    if generated_extension {
        query = query.push_next(&mut generated);
    }
    let non_seamless_extension = extensions.contains(ash::ext::non_seamless_cube_map::NAME.to_bytes());
    if non_seamless_extension {
        query = query.push_next(&mut non_seamless);
    }
    // Vulkan 1.3 has subgroup size control among its own features (the extension's structure may not be chained
    // beside them).
    let vulkan_1_3 = properties.api_version >= vk::API_VERSION_1_3;
    if vulkan_1_3 {
        query = query.push_next(&mut v13);
    } else if size_control {
        query = query.push_next(&mut control);
    }
    unsafe { instance.get_physical_device_features2(physical, &mut query) };
    let base = query.features;
    if vulkan_1_3 {
        control.subgroup_size_control = v13.subgroup_size_control;
        control.compute_full_subgroups = v13.compute_full_subgroups;
    }

    let mut v11_properties = vk::PhysicalDeviceVulkan11Properties::default();
    let mut v12_properties = vk::PhysicalDeviceVulkan12Properties::default();
    let mut control_properties = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut conservative_properties = vk::PhysicalDeviceConservativeRasterizationPropertiesEXT::default();
    let mut query =
        vk::PhysicalDeviceProperties2::default().push_next(&mut v11_properties).push_next(&mut v12_properties);
    if size_control {
        query = query.push_next(&mut control_properties);
    }
    let conservative_extension = extensions.contains(ash::ext::conservative_rasterization::NAME.to_bytes());
    if conservative_extension {
        query = query.push_next(&mut conservative_properties);
    }
    unsafe { instance.get_physical_device_properties2(physical, &mut query) };

    if v12.buffer_device_address == vk::FALSE {
        return Err(format!("{name}: no bufferDeviceAddress"));
    }
    if base.shader_int64 == vk::FALSE {
        return Err(format!("{name}: no shaderInt64"));
    }
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    // A family that draws as well where there is one.
    let usable = |family: &&vk::QueueFamilyProperties, flags: vk::QueueFlags| {
        family.queue_flags.contains(flags) && family.queue_count > 0
    };
    let graphics =
        families.iter().position(|family| usable(&family, vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS));
    let queue_family = graphics
        .or_else(|| families.iter().position(|family| usable(&family, vk::QueueFlags::COMPUTE)))
        .ok_or_else(|| format!("{name}: no compute queue"))? as u32;

    let compute_subgroups = v11_properties.subgroup_supported_stages.contains(vk::ShaderStageFlags::COMPUTE);
    let operations = v11_properties.subgroup_supported_operations;
    let has = |operation: vk::SubgroupFeatureFlags| compute_subgroups && operations.contains(operation);
    let subgroup_size_control = size_control
        && on(control.subgroup_size_control)
        && control_properties.required_subgroup_size_stages.contains(vk::ShaderStageFlags::COMPUTE);
    let driver = [v12_properties.driver_name_as_c_str(), v12_properties.driver_info_as_c_str()]
        .into_iter()
        .filter_map(|part| part.ok().map(|part| part.to_string_lossy().into_owned()))
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let limits = &properties.limits;
    let features = Features {
        api_version: (
            vk::api_version_major(properties.api_version),
            vk::api_version_minor(properties.api_version),
            vk::api_version_patch(properties.api_version),
        ),
        device_type: match properties.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
            vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
            _ => DeviceType::Other,
        },
        driver,
        shader_float64: on(base.shader_float64),
        shader_float16: on(v12.shader_float16),
        shader_int16: on(base.shader_int16),
        shader_int8: on(v12.shader_int8),
        storage_buffer_16bit_access: on(v11.storage_buffer16_bit_access),
        storage_buffer_8bit_access: on(v12.storage_buffer8_bit_access),
        shader_buffer_int64_atomics: on(v12.shader_buffer_int64_atomics),
        shader_shared_int64_atomics: on(v12.shader_shared_int64_atomics),
        vulkan_memory_model: on(v12.vulkan_memory_model),
        vulkan_memory_model_device_scope: on(v12.vulkan_memory_model_device_scope),
        subgroup_size: v11_properties.subgroup_size,
        subgroup_size_range: if subgroup_size_control {
            (control_properties.min_subgroup_size, control_properties.max_subgroup_size)
        } else {
            (v11_properties.subgroup_size, v11_properties.subgroup_size)
        },
        subgroup_size_control,
        compute_full_subgroups: size_control && on(control.compute_full_subgroups),
        max_compute_workgroup_subgroups: if size_control {
            control_properties.max_compute_workgroup_subgroups
        } else {
            0
        },
        subgroup_operations: SubgroupOperations {
            basic: has(vk::SubgroupFeatureFlags::BASIC),
            vote: has(vk::SubgroupFeatureFlags::VOTE),
            arithmetic: has(vk::SubgroupFeatureFlags::ARITHMETIC),
            ballot: has(vk::SubgroupFeatureFlags::BALLOT),
            shuffle: has(vk::SubgroupFeatureFlags::SHUFFLE),
            shuffle_relative: has(vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE),
            clustered: has(vk::SubgroupFeatureFlags::CLUSTERED),
            quad: has(vk::SubgroupFeatureFlags::QUAD),
        },
        fragment_quads: v11_properties.subgroup_supported_stages.contains(vk::ShaderStageFlags::FRAGMENT)
            && operations.contains(vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::QUAD),
        vote_stages: if operations.contains(
            vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::VOTE | vk::SubgroupFeatureFlags::BALLOT,
        ) {
            v11_properties.subgroup_supported_stages
        } else {
            vk::ShaderStageFlags::empty()
        },
        shader_subgroup_extended_types: on(v12.shader_subgroup_extended_types),
        denorm_preserve_float32: on(v12_properties.shader_denorm_preserve_float32),
        denorm_flush_to_zero_float32: on(v12_properties.shader_denorm_flush_to_zero_float32),
        rounding_mode_rte_float32: on(v12_properties.shader_rounding_mode_rte_float32),
        rounding_mode_rtz_float32: on(v12_properties.shader_rounding_mode_rtz_float32),
        signed_zero_inf_nan_preserve: on(v12_properties.shader_signed_zero_inf_nan_preserve_float32)
            && on(v12_properties.shader_signed_zero_inf_nan_preserve_float64),
        max_workgroup_size: limits.max_compute_work_group_size,
        max_workgroup_invocations: limits.max_compute_work_group_invocations,
        max_workgroup_count: limits.max_compute_work_group_count,
        max_shared_memory: limits.max_compute_shared_memory_size,
        max_storage_buffers: limits.max_per_stage_descriptor_storage_buffers,
        max_storage_buffer_range: limits.max_storage_buffer_range,
        max_texel_buffer_elements: limits.max_texel_buffer_elements,
        max_image_dimension_1d: limits.max_image_dimension1_d,
        max_image_dimension_2d: limits.max_image_dimension2_d,
        max_image_dimension_3d: limits.max_image_dimension3_d,
        max_image_dimension_cube: limits.max_image_dimension_cube,
        max_image_array_layers: limits.max_image_array_layers,
        draws: graphics.is_some() && vulkan_1_3 && on(v13.dynamic_rendering),
        demote_to_helper: vulkan_1_3 && on(v13.shader_demote_to_helper_invocation),
        sampler_anisotropy: on(base.sampler_anisotropy).then_some(limits.max_sampler_anisotropy),
        sampler_mirror_clamp_to_edge: on(v12.sampler_mirror_clamp_to_edge),
        sampler_filter_minmax: on(v12.sampler_filter_minmax),
        custom_border_colors: border_extension && on(border.custom_border_colors),
        max_sampler_lod_bias: limits.max_sampler_lod_bias,
        image_cube_array: on(base.image_cube_array),
        occlusion_query_precise: on(base.occlusion_query_precise),
        pipeline_statistics_query: on(base.pipeline_statistics_query),
        depth_bias_clamp: on(base.depth_bias_clamp),
        depth_bounds: on(base.depth_bounds),
        logic_op: on(base.logic_op),
        dual_src_blend: on(base.dual_src_blend),
        alpha_to_one: on(base.alpha_to_one),
        independent_blend: on(base.independent_blend),
        image_gather_extended: on(base.shader_image_gather_extended),
        sampled_image_array_non_uniform_indexing: on(base.shader_sampled_image_array_dynamic_indexing)
            && on(v12.shader_sampled_image_array_non_uniform_indexing),
        storage_image_extended_formats: on(base.shader_storage_image_extended_formats),
        vertex_stores: on(base.vertex_pipeline_stores_and_atomics),
        fragment_stores: on(base.fragment_stores_and_atomics),
        viewport_index: on(base.multi_viewport) && on(v12.shader_output_viewport_index),
        output_layer: on(v12.shader_output_layer),
        large_points: on(base.large_points),
        fill_mode_non_solid: on(base.fill_mode_non_solid),
        clip_distances: on(base.shader_clip_distance),
        cull_distances: on(base.shader_cull_distance),
        max_clip_and_cull_distances: limits.max_combined_clip_and_cull_distances,
        tessellation_geometry_point_size: on(base.shader_tessellation_and_geometry_point_size),
        tessellation_shader: on(base.tessellation_shader),
        geometry_shader: on(base.geometry_shader).then_some([
            limits.max_geometry_shader_invocations,
            limits.max_geometry_output_vertices,
            limits.max_geometry_total_output_components,
        ]),
        multisampling: on(base.sample_rate_shading) && on(limits.standard_sample_locations),
        depth_clamp: on(base.depth_clamp),
        conservative_rasterization: conservative_extension.then_some([
            conservative_properties.primitive_overestimation_size,
            conservative_properties.max_extra_primitive_overestimation_size,
        ]),
        post_depth_coverage: extensions.contains(ash::ext::post_depth_coverage::NAME.to_bytes()),
        wide_lines: on(base.wide_lines).then_some(limits.line_width_range),
        bresenham_lines: line_extension && on(line.bresenham_lines),
        smooth_lines: line_extension && on(line.smooth_lines),
        stippled_bresenham_lines: line_extension && on(line.bresenham_lines) && on(line.stippled_bresenham_lines),
        stippled_smooth_lines: line_extension && on(line.smooth_lines) && on(line.stippled_smooth_lines),
        primitives_generated_query: generated_extension && on(generated.primitives_generated_query),
        primitives_generated_with_discard: generated_extension
            && on(generated.primitives_generated_query_with_rasterizer_discard),
        non_seamless_cube_map: non_seamless_extension && on(non_seamless.non_seamless_cube_map),
    };
    Ok(Candidate { physical, name, queue_family, size_control_extension, size_control, features })
}

/// The logical device with every feature `Features` reports, its queue, command pool and allocator.
fn create_device(instance: &'static Instance, candidate: &Candidate) -> Result<Arc<Shared>, VulkanError> {
    let f = &candidate.features;
    let base = vk::PhysicalDeviceFeatures::default()
        .shader_int64(true)
        .shader_float64(f.shader_float64)
        .shader_int16(f.shader_int16)
        .sampler_anisotropy(f.sampler_anisotropy.is_some())
        .image_cube_array(f.image_cube_array)
        .occlusion_query_precise(f.occlusion_query_precise)
        .pipeline_statistics_query(f.pipeline_statistics_query)
        .depth_bias_clamp(f.depth_bias_clamp)
        .depth_bounds(f.depth_bounds)
        .logic_op(f.logic_op)
        .dual_src_blend(f.dual_src_blend)
        .alpha_to_one(f.alpha_to_one)
        .independent_blend(f.independent_blend)
        .shader_image_gather_extended(f.image_gather_extended)
        .shader_sampled_image_array_dynamic_indexing(f.sampled_image_array_non_uniform_indexing)
        .shader_storage_image_extended_formats(f.storage_image_extended_formats)
        .vertex_pipeline_stores_and_atomics(f.vertex_stores)
        .fragment_stores_and_atomics(f.fragment_stores)
        .multi_viewport(f.viewport_index)
        .large_points(f.large_points)
        .fill_mode_non_solid(f.fill_mode_non_solid)
        .shader_clip_distance(f.clip_distances)
        .shader_cull_distance(f.cull_distances)
        .shader_tessellation_and_geometry_point_size(f.tessellation_geometry_point_size)
        .geometry_shader(f.geometry_shader.is_some())
        .tessellation_shader(f.tessellation_shader)
        .sample_rate_shading(f.multisampling)
        .depth_clamp(f.depth_clamp)
        .wide_lines(f.wide_lines.is_some());
    let mut v11 =
        vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(f.storage_buffer_16bit_access);
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(true)
        .shader_sampled_image_array_non_uniform_indexing(f.sampled_image_array_non_uniform_indexing)
        .shader_float16(f.shader_float16)
        .shader_int8(f.shader_int8)
        .storage_buffer8_bit_access(f.storage_buffer_8bit_access)
        .shader_buffer_int64_atomics(f.shader_buffer_int64_atomics)
        .shader_shared_int64_atomics(f.shader_shared_int64_atomics)
        .vulkan_memory_model(f.vulkan_memory_model)
        .vulkan_memory_model_device_scope(f.vulkan_memory_model_device_scope)
        .shader_subgroup_extended_types(f.shader_subgroup_extended_types)
        .sampler_mirror_clamp_to_edge(f.sampler_mirror_clamp_to_edge)
        .sampler_filter_minmax(f.sampler_filter_minmax)
        .shader_output_viewport_index(f.viewport_index)
        .shader_output_layer(f.output_layer);
    let mut border = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default().custom_border_colors(true);
    let mut control = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
        .subgroup_size_control(f.subgroup_size_control)
        .compute_full_subgroups(f.compute_full_subgroups);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
        .subgroup_size_control(f.subgroup_size_control)
        .compute_full_subgroups(f.compute_full_subgroups)
        .dynamic_rendering(f.draws)
        .shader_demote_to_helper_invocation(f.demote_to_helper);
    let mut features = vk::PhysicalDeviceFeatures2::default().features(base).push_next(&mut v11).push_next(&mut v12);
    if f.api_version >= (1, 3, 0) {
        features = features.push_next(&mut v13);
    } else if candidate.size_control {
        features = features.push_next(&mut control);
    }
    let mut extensions = Vec::new();
    if candidate.size_control_extension {
        extensions.push(ash::ext::subgroup_size_control::NAME.as_ptr());
    }
    if f.custom_border_colors {
        extensions.push(ash::ext::custom_border_color::NAME.as_ptr());
        features = features.push_next(&mut border);
    }
    if f.conservative_rasterization.is_some() {
        extensions.push(ash::ext::conservative_rasterization::NAME.as_ptr());
    }
    if f.post_depth_coverage {
        extensions.push(ash::ext::post_depth_coverage::NAME.as_ptr());
    }
    let mut line = vk::PhysicalDeviceLineRasterizationFeaturesEXT::default()
        .bresenham_lines(f.bresenham_lines)
        .smooth_lines(f.smooth_lines)
        .stippled_bresenham_lines(f.stippled_bresenham_lines)
        .stippled_smooth_lines(f.stippled_smooth_lines);
    if f.bresenham_lines || f.smooth_lines {
        extensions.push(ash::ext::line_rasterization::NAME.as_ptr());
        features = features.push_next(&mut line);
    }
    let mut generated = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT::default()
        .primitives_generated_query(f.primitives_generated_query)
        .primitives_generated_query_with_rasterizer_discard(f.primitives_generated_with_discard);
    if f.primitives_generated_query {
        extensions.push(ash::ext::primitives_generated_query::NAME.as_ptr());
        extensions.push(ash::ext::transform_feedback::NAME.as_ptr());
        features = features.push_next(&mut generated);
    }
    let mut non_seamless = vk::PhysicalDeviceNonSeamlessCubeMapFeaturesEXT::default().non_seamless_cube_map(true);
    if f.non_seamless_cube_map {
        extensions.push(ash::ext::non_seamless_cube_map::NAME.as_ptr());
        features = features.push_next(&mut non_seamless);
    }
    let priorities = [1.0];
    let queues =
        [vk::DeviceQueueCreateInfo::default().queue_family_index(candidate.queue_family).queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .push_next(&mut features);
    // SAFETY: the features enabled are the ones the device reported; `info` outlives the call. From here on
    // `Shared::drop` releases what exists (a null pool and a missing allocator are fine).
    let device = unsafe { instance.instance.create_device(candidate.physical, &info, None) }
        .map_err(VulkanError::call("vkCreateDevice"))?;
    // SAFETY: the family and index were created above.
    let queue = unsafe { device.get_device_queue(candidate.queue_family, 0) };
    let mut shared = Shared {
        device,
        queue: Mutex::new(Queue { queue, pool: vk::CommandPool::null(), state: State::Ready }),
        allocator: Mutex::new(None),
        physical: candidate.physical,
        instance,
    };
    let pool_info = vk::CommandPoolCreateInfo::default()
        .flags(vk::CommandPoolCreateFlags::TRANSIENT)
        .queue_family_index(candidate.queue_family);
    // SAFETY: a valid device and create info.
    let pool = unsafe { shared.device.create_command_pool(&pool_info, None) }
        .map_err(VulkanError::call("vkCreateCommandPool"))?;
    shared.queue.get_mut().unwrap_or_else(PoisonError::into_inner).pool = pool;
    const MIB: u64 = 1 << 20;
    let allocator = Allocator::new(&AllocatorCreateDesc {
        instance: shared.instance.instance.clone(),
        device: shared.device.clone(),
        physical_device: candidate.physical,
        debug_settings: AllocatorDebugSettings::default(),
        buffer_device_address: true,
        allocation_sizes: AllocationSizes::new(16 * MIB, 16 * MIB)
            .with_max_device_memblock_size(256 * MIB)
            .with_max_host_memblock_size(256 * MIB),
    })
    .map_err(VulkanError::Allocator)?;
    *shared.allocator.get_mut().unwrap_or_else(PoisonError::into_inner) = Some(allocator);
    Ok(Arc::new(shared))
}

fn version_string(version: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(version), vk::api_version_minor(version), vk::api_version_patch(version))
}
