//! Surfaces in the emitter: each of the program's `SurfaceBinding`s is a storage image (a 1D buffer's: a storage
//! texel buffer) in the stage's descriptor set after its textures (binding = the number of banks + the number of textures + the surface's index), of
//! unsigned integer channels in the binding's format (R8ui, R16ui, R32ui, Rg32ui, Rgba32ui; formatted accesses:
//! Rgba32ui, a texel's four components as the back end converted them), read and written as four U32, and
//! changed with the image atomics.

use super::Emitter;
use crate::shader::ir::{Reduction, SurfaceBinding, TextureDim, Value};
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{Capability, Decoration, Dim, ImageFormat, StorageClass, Word};

/// A surface's variable and image type.
#[derive(Clone, Copy)]
pub(super) struct SurfaceVariable {
    variable: Word,
    image: Word,
    /// The coordinates OpImageQuerySize gives (its coordinates and, for arrays, its layers).
    size_components: u32,
}

/// Declares the surfaces of a program whose constant banks and textures take the first `first_binding`
/// bindings of `set`.
pub(super) fn declare_surfaces(
    b: &mut Builder,
    u32_: Word,
    surfaces: &[SurfaceBinding],
    set: u32,
    first_binding: u32,
    interface: &mut Vec<Word>,
) -> Vec<SurfaceVariable> {
    if surfaces.is_empty() {
        return Vec::new();
    }
    b.capability(Capability::ImageQuery);
    if surfaces.iter().any(|surface| surface.dim == TextureDim::D1 && !surface.buffer) {
        b.capability(Capability::Image1D);
    }
    if surfaces.iter().any(|surface| surface.buffer) {
        b.capability(Capability::ImageBuffer);
    }
    if surfaces.iter().any(|surface| matches!(surface.texel_bytes, 1 | 2 | 8)) {
        b.capability(Capability::StorageImageExtendedFormats);
    }
    surfaces
        .iter()
        .enumerate()
        .map(|(index, surface)| {
            let format = match surface.texel_bytes {
                1 => ImageFormat::R8ui,
                2 => ImageFormat::R16ui,
                8 => ImageFormat::Rg32ui,
                16 | 0 => ImageFormat::Rgba32ui,
                _ => ImageFormat::R32ui,
            };
            let dim = match surface.dim {
                _ if surface.buffer => Dim::DimBuffer,
                TextureDim::D1 => Dim::Dim1D,
                TextureDim::D3 => Dim::Dim3D,
                _ => Dim::Dim2D,
            };
            let image = b.type_image(u32_, dim, 0, u32::from(surface.array), 0, 2, format, None);
            let pointer = b.type_pointer(None, StorageClass::UniformConstant, image);
            let variable = b.variable(pointer, None, StorageClass::UniformConstant, None);
            b.decorate(variable, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
            b.decorate(variable, Decoration::Binding, [Operand::LiteralBit32(first_binding + index as u32)]);
            interface.push(variable);
            let size_components = surface.dim.coordinates() as u32 + u32::from(surface.array);
            SurfaceVariable { variable, image, size_components }
        })
        .collect()
}

impl Emitter<'_> {
    /// The coordinates as the image takes them: one U32, or a vector of them.
    fn surface_coordinate(&mut self, coordinates: &[Value]) -> Word {
        let words: Vec<Word> = coordinates.iter().map(|value| self.values[value]).collect();
        if let [scalar] = words[..] {
            return scalar;
        }
        let vector = self.b.type_vector(self.t.u32, words.len() as u32);
        self.b.composite_construct(vector, None, words).expect("in a block")
    }

    pub(super) fn surface_load(&mut self, surface: u16, coordinates: &[Value]) -> Word {
        let SurfaceVariable { variable, image, .. } = self.surfaces[usize::from(surface)];
        let coordinate = self.surface_coordinate(coordinates);
        let loaded = self.b.load(image, None, variable, None, []).expect("in a block");
        let v4u32 = self.v4u32();
        self.b.image_read(v4u32, None, loaded, coordinate, None, []).expect("in a block")
    }

    pub(super) fn surface_store(&mut self, surface: u16, coordinates: &[Value], channels: &[Value]) {
        let SurfaceVariable { variable, image, .. } = self.surfaces[usize::from(surface)];
        let coordinate = self.surface_coordinate(coordinates);
        let zero = self.u32_const(0);
        let mut words: Vec<Word> = channels.iter().map(|value| self.values[value]).collect();
        words.resize(4, zero);
        let v4u32 = self.v4u32();
        let texel = self.b.composite_construct(v4u32, None, words).expect("in a block");
        let loaded = self.b.load(image, None, variable, None, []).expect("in a block");
        self.b.image_write(loaded, coordinate, texel, None, []).expect("in a block");
    }

    /// A pointer to the R32 texel at `coordinates`, for the image atomics.
    fn surface_texel(&mut self, surface: u16, coordinates: &[Value]) -> Word {
        let SurfaceVariable { variable, .. } = self.surfaces[usize::from(surface)];
        let coordinate = self.surface_coordinate(coordinates);
        let pointer = self.b.type_pointer(None, StorageClass::Image, self.t.u32);
        let sample = self.u32_const(0);
        self.b.image_texel_pointer(pointer, None, variable, coordinate, sample).expect("in a block")
    }

    pub(super) fn surface_atomic(
        &mut self,
        surface: u16,
        coordinates: &[Value],
        reduction: Reduction,
        value: Value,
    ) -> Word {
        let texel = self.surface_texel(surface, coordinates);
        // Device scope, relaxed: a surface atomic orders nothing by itself.
        let (scope, semantics) = (self.u32_const(1), self.u32_const(0));
        let (u32_, value) = (self.t.u32, self.values[&value]);
        let b = &mut self.b;
        match reduction {
            Reduction::Add => b.atomic_i_add(u32_, None, texel, scope, semantics, value),
            Reduction::MinU => b.atomic_u_min(u32_, None, texel, scope, semantics, value),
            Reduction::MinS => b.atomic_s_min(u32_, None, texel, scope, semantics, value),
            Reduction::MaxU => b.atomic_u_max(u32_, None, texel, scope, semantics, value),
            Reduction::MaxS => b.atomic_s_max(u32_, None, texel, scope, semantics, value),
            Reduction::And => b.atomic_and(u32_, None, texel, scope, semantics, value),
            Reduction::Or => b.atomic_or(u32_, None, texel, scope, semantics, value),
            Reduction::Xor => b.atomic_xor(u32_, None, texel, scope, semantics, value),
            Reduction::Exchange => b.atomic_exchange(u32_, None, texel, scope, semantics, value),
        }
        .expect("in a block")
    }

    pub(super) fn surface_compare_swap(
        &mut self,
        surface: u16,
        coordinates: &[Value],
        compare: Value,
        value: Value,
    ) -> Word {
        let texel = self.surface_texel(surface, coordinates);
        let (scope, semantics) = (self.u32_const(1), self.u32_const(0));
        let (u32_, compare, value) = (self.t.u32, self.values[&compare], self.values[&value]);
        self.b
            .atomic_compare_exchange(u32_, None, texel, scope, semantics, semantics, value, compare)
            .expect("in a block")
    }

    /// `Op::SurfaceSize`: OpImageQuerySize's components, then zeros, as four U32.
    pub(super) fn surface_size(&mut self, surface: u16) -> Word {
        let SurfaceVariable { variable, image, size_components } = self.surfaces[usize::from(surface)];
        let loaded = self.b.load(image, None, variable, None, []).expect("in a block");
        let u32_ = self.t.u32;
        let size_type = if size_components == 1 { u32_ } else { self.b.type_vector(u32_, size_components) };
        let size = self.b.image_query_size(size_type, None, loaded).expect("in a block");
        let zero = self.u32_const(0);
        let components: Vec<Word> = (0..4)
            .map(|k| match (size_components, k) {
                (1, 0) => size,
                (_, k) if k < size_components => self.b.composite_extract(u32_, None, size, [k]).expect("in a block"),
                _ => zero,
            })
            .collect();
        let v4u32 = self.v4u32();
        self.b.composite_construct(v4u32, None, components).expect("in a block")
    }
}
