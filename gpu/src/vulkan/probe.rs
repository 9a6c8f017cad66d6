//! Measurements of what Vulkan leaves to the implementation and the guest pins down, made by drawing on the
//! device itself.
//!
//! Depth bias: Vulkan lets an implementation's minimum resolvable difference r of a fixed-point depth format be
//! anything from 2^-n to 2 x 2^-n (lavapipe and NVIDIA's driver on the H200 both use 2^-23 for 24-bit depth;
//! NVK 2^-24), where Maxwell's register counts steps of 2^-n. `depth_bias_steps` measures it, so that a back end
//! can scale the units it asks for.

use super::draw::{DepthAttachment, DrawJob, DrawStage};
use super::{ComputeDevice, VulkanError};
use ash::vk;
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Error, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl, MemoryModel,
    StorageClass,
};

/// The units of constant bias the probe draws with: many, so that rounding to whole steps leaves the ratio exact
/// to a few parts in ten thousand.
const PROBE_UNITS: f32 = 1024.0;
/// The probe's depth: 0.25 x (2^n - 1) is a quarter step off a whole one for n = 16 and 24, so rounding decides
/// nothing.
const PROBE_DEPTH: f32 = 0.25;

fn builder() -> Builder {
    let mut b = Builder::new();
    b.set_version(1, 0);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    b
}

/// A vertex shader whose three vertices (by index: (-1, -1), (3, -1), (-1, 3)) cover the viewport at depth `z`.
fn covering_triangle(z: f32) -> Result<Vec<u32>, Error> {
    let mut b = builder();
    let void = b.type_void();
    let main_type = b.type_function(void, []);
    let (float, int, boolean) = (b.type_float(32, None), b.type_int(32, 1), b.type_bool());
    let vec4 = b.type_vector(float, 4);
    let input = b.type_pointer(None, StorageClass::Input, int);
    let output = b.type_pointer(None, StorageClass::Output, vec4);
    let vertex_index = b.variable(input, None, StorageClass::Input, None);
    b.decorate(vertex_index, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::VertexIndex)]);
    let position = b.variable(output, None, StorageClass::Output, None);
    b.decorate(position, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::Position)]);
    let [one_index, two_index] = [1, 2].map(|value| b.constant_bit32(int, value));
    let [low, high, depth, one] = [-1.0f32, 3.0, z, 1.0].map(|value| b.constant_bit32(float, value.to_bits()));
    let main = b.begin_function(void, None, FunctionControl::NONE, main_type)?;
    b.begin_block(None)?;
    let index = b.load(int, None, vertex_index, None, [])?;
    let is_one = b.i_equal(boolean, None, index, one_index)?;
    let is_two = b.i_equal(boolean, None, index, two_index)?;
    let x = b.select(float, None, is_one, high, low)?;
    let y = b.select(float, None, is_two, high, low)?;
    let value = b.composite_construct(vec4, None, [x, y, depth, one])?;
    b.store(position, value, None, [])?;
    b.ret()?;
    b.end_function()?;
    b.entry_point(ExecutionModel::Vertex, main, "main", [vertex_index, position]);
    Ok(b.module().assemble())
}

/// A fragment shader that writes nothing.
pub(super) fn no_outputs() -> Result<Vec<u32>, Error> {
    let mut b = builder();
    let void = b.type_void();
    let main_type = b.type_function(void, []);
    let main = b.begin_function(void, None, FunctionControl::NONE, main_type)?;
    b.begin_block(None)?;
    b.ret()?;
    b.end_function()?;
    b.entry_point(ExecutionModel::Fragment, main, "main", []);
    b.execution_mode(main, ExecutionMode::OriginUpperLeft, []);
    Ok(b.module().assemble())
}

pub(super) fn built(module: Result<Vec<u32>, Error>) -> Result<Vec<u32>, VulkanError> {
    module.map_err(|error| VulkanError::InvalidSpirv { at: 0, reason: format!("the probe's module: {error}") })
}

impl ComputeDevice {
    /// How many steps of `format` (D16_UNORM, X8_D24_UNORM_PACK32 or D24_UNORM_S8_UINT) one unit of constant
    /// depth bias moves a flat primitive on this device: 1.0 where r is 2^-n, up to 2.0.
    pub fn depth_bias_steps(&self, format: vk::Format) -> Result<f64, VulkanError> {
        let (bytes, bits) = match format {
            vk::Format::D16_UNORM => (2, 16),
            vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D24_UNORM_S8_UINT => (4, 24),
            other => return Err(VulkanError::UnsupportedFormat(format!("{other:?} (to measure depth bias on)"))),
        };
        let vertex = built(covering_triangle(PROBE_DEPTH))?;
        let fragment = built(no_outputs())?;
        let far = vec![0xffu8; bytes];
        let stencil = if format == vk::Format::D24_UNORM_S8_UINT { vec![0u8] } else { Vec::new() };
        let depth_after = |bias: Option<[f32; 3]>| -> Result<u32, VulkanError> {
            let job = DrawJob {
                stages: vec![
                    DrawStage::unbound(vk::ShaderStageFlags::VERTEX, 0, &vertex),
                    DrawStage::unbound(vk::ShaderStageFlags::FRAGMENT, 1, &fragment),
                ],
                patch_vertices: None,
                push_constants: &[],
                width: 1,
                height: 1,
                targets: Vec::new(),
                depth: Some(DepthAttachment {
                    format,
                    depth: &far,
                    stencil: &stencil,
                    depth_test: Some(vk::CompareOp::ALWAYS),
                    depth_write: true,
                    stencil_test: None,
                    bias,
                    bounds: None,
                }),
                topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                vertex_count: 3,
                instance_count: 1,
                viewports: vec![vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: 1.0,
                    height: 1.0,
                    min_depth: 0.0,
                    max_depth: 1.0,
                }],
                scissors: vec![vk::Rect2D {
                    offset: vk::Offset2D { x: 0, y: 0 },
                    extent: vk::Extent2D { width: 1, height: 1 },
                }],
                cull_mode: vk::CullModeFlags::NONE,
                polygon_mode: vk::PolygonMode::FILL,
                front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                blend_constants: [0.0; 4],
                logic_op: None,
                depth_clamp: false,
                count_samples: false,
                statistics: vk::QueryPipelineStatisticFlags::empty(),
                count_primitives_generated: false,
                lines: None,
                rasterizer_discard: false,
                conservative: None,
                layers: 1,
                multisample: None,
            };
            let drawn = self.draw(&job)?;
            let mut texel = [0u8; 4];
            let drawn_texel = drawn.depth.get(..bytes).ok_or(VulkanError::OutOfBounds {
                offset: 0,
                len: bytes as u64,
                size: drawn.depth.len() as u64,
            })?;
            texel[..bytes].copy_from_slice(drawn_texel);
            Ok(u32::from_le_bytes(texel) & ((1u64 << bits) - 1) as u32)
        };
        let flat = depth_after(None)?;
        let biased = depth_after(Some([PROBE_UNITS, 0.0, 0.0]))?;
        let steps = f64::from(biased) - f64::from(flat);
        tracing::debug!(?format, flat, biased, "depth bias probe");
        Ok(steps / f64::from(PROBE_UNITS))
    }
}
