//! Textures in the emitter: each of the program's `TextureBinding`s is a combined image sampler in the stage's
//! descriptor set, after its constant banks, whose sampled type is the number kind the back end says the texture
//! holds; a pool binding (`TextureHandle::Pool`) is two bindings: an array of sampled images (FP32, the pool's
//! headers and a placeholder) and an array of samplers (the pool's and a placeholder), which each op indexes
//! with its handle's fields, clamped to the placeholders, as possibly different in every invocation
//! (NonUniform), or on devices without descriptor indexing picks from by a switch (`Emitter::with_sampled`).
//! A binding whose view is a 1D buffer's (`TextureView::buffer`) is a uniform texel buffer. Bindings follow in the
//! order of the program's textures. Samples and fetches give the texel as four U32 (FP32 bits or integers).

use super::{Emitter, Types};
use crate::shader::ir::{Lod, PoolView, TextureBinding, TextureDim, TextureHandle, TextureRef, TextureView, Value};
use crate::texture::format::NumberKind;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{Capability, Decoration, Dim, ImageFormat, ImageOperands, SelectionControl, StorageClass, Word};

/// A texture's variable and types.
#[derive(Clone, Copy)]
pub(super) struct TextureVariable {
    /// The combined image sampler, for a pool the array of images, for a buffer the texel buffer.
    variable: Word,
    /// What the variable holds: the combined image sampler's type (a buffer's image type).
    sampled_image: Word,
    image: Word,
    /// The component type of the sampled result (the texture's number kind).
    component: Word,
    /// The components of the image's size (OpImageQuerySizeLod): its coordinates, and its layers for arrays.
    size_components: u32,
    /// How many of them halve from level to level (all but the layers).
    level_components: u32,
    pool: Option<PoolVariables>,
    /// A uniform texel buffer (its `image`'s Dim is Buffer).
    buffer: bool,
}

/// A pool binding's arrays and how handles index them.
#[derive(Clone, Copy)]
struct PoolVariables {
    image_pointer: Word,
    samplers: Word,
    sampler: Word,
    sampler_pointer: Word,
    view: PoolView,
}

/// The first pool binding of `textures` whose view names no pools: the program cannot be emitted with `views`.
pub(crate) fn missing_pools(textures: &[TextureBinding], views: &[TextureView]) -> Option<usize> {
    textures.iter().enumerate().position(|(index, texture)| {
        texture.handle == TextureHandle::Pool && views.get(index).is_none_or(|view| view.pool.is_none())
    })
}

/// Declares the textures of a program whose constant banks take the first `first_binding` bindings of `set`
/// (a size query's image takes the shape its view says); the next free binding after them.
pub(super) fn declare_textures(
    b: &mut Builder,
    t: &Types,
    textures: &[TextureBinding],
    views: &[TextureView],
    set: u32,
    first_binding: u32,
    interface: &mut Vec<Word>,
) -> (Vec<TextureVariable>, u32) {
    let shapes: Vec<(TextureDim, bool)> = textures
        .iter()
        .enumerate()
        .map(|(index, texture)| match views.get(index) {
            Some(view) if texture.query && texture.handle != TextureHandle::Pool => (view.dim, view.array),
            _ => (texture.dim, texture.array),
        })
        .collect();
    let buffers: Vec<bool> = textures
        .iter()
        .zip(&shapes)
        .enumerate()
        .map(|(index, (texture, &shape))| {
            let buffer_use = (texture.fetch || texture.query) && texture.handle != TextureHandle::Pool;
            buffer_use && shape == (TextureDim::D1, false) && views.get(index).is_some_and(|view| view.buffer)
        })
        .collect();
    if shapes.iter().zip(&buffers).any(|(&(dim, _), &buffer)| dim == TextureDim::D1 && !buffer) {
        b.capability(Capability::Sampled1D);
    }
    if buffers.contains(&true) {
        // A buffer's fetches measure it to stay inside (`buffer_fetch`).
        b.capability(Capability::SampledBuffer);
        b.capability(Capability::ImageQuery);
    }
    if shapes.contains(&(TextureDim::Cube, true)) {
        b.capability(Capability::SampledCubeArray);
    }
    let indexed_pool = |(index, texture): (usize, &TextureBinding)| {
        texture.handle == TextureHandle::Pool && views.get(index).and_then(|view| view.pool).is_some_and(|p| p.indexed)
    };
    if textures.iter().enumerate().any(indexed_pool) {
        b.capability(Capability::ShaderNonUniform);
        b.capability(Capability::SampledImageArrayNonUniformIndexing);
    }
    let mut next_binding = first_binding;
    let mut declare = |b: &mut Builder, pointer: Word| {
        let variable = b.variable(pointer, None, StorageClass::UniformConstant, None);
        b.decorate(variable, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
        b.decorate(variable, Decoration::Binding, [Operand::LiteralBit32(next_binding)]);
        next_binding += 1;
        interface.push(variable);
        variable
    };
    let variables = textures
        .iter()
        .zip(shapes)
        .zip(buffers)
        .enumerate()
        .map(|(index, ((texture, (dim, array)), buffer))| {
            let view = views.get(index);
            let pool = view.and_then(|view| view.pool).filter(|_| texture.handle == TextureHandle::Pool);
            let kind = match pool {
                Some(_) => NumberKind::Float,
                None => view.map_or(NumberKind::Float, |view| view.kind),
            };
            let component = match kind {
                NumberKind::Float => t.f32,
                NumberKind::Uint => t.u32,
                NumberKind::Sint => b.type_int(32, 1),
            };
            let level_components = match dim {
                TextureDim::D1 => 1,
                TextureDim::D2 | TextureDim::Cube => 2,
                TextureDim::D3 => 3,
            };
            let size_components = level_components + u32::from(array && dim != TextureDim::D3);
            let dim = match dim {
                _ if buffer => Dim::DimBuffer,
                TextureDim::D1 => Dim::Dim1D,
                TextureDim::D2 => Dim::Dim2D,
                TextureDim::D3 => Dim::Dim3D,
                TextureDim::Cube => Dim::DimCube,
            };
            let depth = u32::from(texture.depth_compare);
            let image = b.type_image(component, dim, depth, u32::from(array), 0, 1, ImageFormat::Unknown, None);
            let sampled_image = if buffer { image } else { b.type_sampled_image(image) };
            let (variable, pool) = match pool {
                None => {
                    let pointer = b.type_pointer(None, StorageClass::UniformConstant, sampled_image);
                    (declare(b, pointer), None)
                }
                Some(view) => {
                    // Each array ends with its placeholder.
                    let mut array_of = |b: &mut Builder, element: Word, count: u32| {
                        let length = b.constant_bit32(t.u32, count + 1);
                        let array = b.type_array(element, length);
                        let pointer = b.type_pointer(None, StorageClass::UniformConstant, array);
                        declare(b, pointer)
                    };
                    let images = array_of(b, image, view.headers);
                    let sampler = b.type_sampler();
                    let samplers = array_of(b, sampler, view.samplers);
                    let image_pointer = b.type_pointer(None, StorageClass::UniformConstant, image);
                    let sampler_pointer = b.type_pointer(None, StorageClass::UniformConstant, sampler);
                    (images, Some(PoolVariables { image_pointer, samplers, sampler, sampler_pointer, view }))
                }
            };
            TextureVariable {
                variable,
                sampled_image,
                image,
                component,
                size_components,
                level_components,
                pool,
                buffer,
            }
        })
        .collect();
    (variables, next_binding)
}

impl Emitter<'_> {
    /// `op` (which gives a U32x4) on the sampled image `texture` names: its binding's, or for a pool the header
    /// and sampler its handle picks (each index clamped to its array's placeholder): indexed in every invocation
    /// (`PoolView::indexed`), or where the device cannot index, chosen by a switch with one case for each pair of
    /// header and sampler, whose results merge.
    fn with_sampled(&mut self, texture: TextureRef, mut op: impl FnMut(&mut Self, Word) -> Word) -> Word {
        let variable = self.textures[usize::from(texture.binding)];
        let (Some(pool), Some(handle)) = (variable.pool, texture.handle) else {
            let sampled = self.b.load(variable.sampled_image, None, variable.variable, None, []).expect("in a block");
            return op(self, sampled);
        };
        let u32_ = self.t.u32;
        let handle = self.values[&handle];
        let header_mask = self.u32_const(0xf_ffff);
        let header = self.b.bitwise_and(u32_, None, handle, header_mask).expect("in a block");
        let sampler = if pool.view.sampler_via_header {
            header
        } else {
            let twenty = self.u32_const(20);
            self.b.shift_right_logical(u32_, None, handle, twenty).expect("in a block")
        };
        let clamp = |e: &mut Self, index: Word, placeholder: u32| {
            let placeholder = e.u32_const(placeholder);
            e.glsl(u32_, super::glsl::U_MIN, &[index, placeholder])
        };
        let (header, sampler) = (clamp(self, header, pool.view.headers), clamp(self, sampler, pool.view.samplers));
        let element = |e: &mut Self, array: Word, pointer: Word, ty: Word, index: Word| {
            let at = e.b.access_chain(pointer, None, array, [index]).expect("in a block");
            let loaded = e.b.load(ty, None, at, None, []).expect("in a block");
            (at, loaded)
        };
        let combined = |e: &mut Self, header: Word, sampler: Word| {
            let image = element(e, variable.variable, pool.image_pointer, variable.image, header);
            let sampler = element(e, pool.samplers, pool.sampler_pointer, pool.sampler, sampler);
            let sampled = e.b.sampled_image(variable.sampled_image, None, image.1, sampler.1).expect("in a block");
            (sampled, [image.0, image.1, sampler.0, sampler.1, sampled])
        };
        if pool.view.indexed {
            let (sampled, words) = combined(self, header, sampler);
            for word in [header, sampler].into_iter().chain(words) {
                self.b.decorate(word, Decoration::NonUniform, []);
            }
            return op(self, sampled);
        }
        let samplers = self.u32_const(pool.view.samplers + 1);
        let row = self.b.i_mul(u32_, None, header, samplers).expect("in a block");
        let pair = self.b.i_add(u32_, None, row, sampler).expect("in a block");
        let pairs: Vec<(u32, u32)> =
            (0..=pool.view.headers).flat_map(|h| (0..=pool.view.samplers).map(move |s| (h, s))).collect();
        let labels: Vec<Word> = pairs.iter().map(|_| self.b.id()).collect();
        let merge = self.b.id();
        self.b.selection_merge(merge, SelectionControl::NONE).expect("in a block");
        let cases: Vec<(Operand, Word)> =
            labels.iter().enumerate().map(|(k, &label)| (Operand::LiteralBit32(k as u32), label)).collect();
        // The indices are clamped: the last pair (the placeholders) stands for any other.
        let last = *labels.last().expect("a pool has its placeholders");
        self.b.switch(pair, last, cases).expect("in a block");
        let mut results = Vec::new();
        for (&(h, s), &label) in pairs.iter().zip(&labels) {
            self.b.begin_block(Some(label)).expect("in a function");
            let (h, s) = (self.u32_const(h), self.u32_const(s));
            let (sampled, _) = combined(self, h, s);
            results.push((op(self, sampled), label));
            self.b.branch(merge).expect("in a block");
        }
        self.b.begin_block(Some(merge)).expect("in a function");
        let v4u32 = self.v4u32();
        self.b.phi(v4u32, None, results).expect("in a block")
    }

    /// The image of `sampled` (of the texture `texture` names, as `with_sampled` gave it: a buffer's is itself).
    fn image_of(&mut self, texture: TextureRef, sampled: Word) -> Word {
        let variable = self.textures[usize::from(texture.binding)];
        if variable.buffer {
            return sampled;
        }
        let image = self.b.image(variable.image, None, sampled).expect("in a block");
        if variable.pool.is_some_and(|pool| pool.view.indexed) {
            self.b.decorate(image, Decoration::NonUniform, []);
        }
        image
    }

    /// `values` (U32 each) as a vector of `component`s (bitcast), or the scalar when there is one.
    fn vector_of(&mut self, component: Word, values: &[Word]) -> Word {
        let converted: Vec<Word> =
            values.iter().map(|&value| self.b.bitcast(component, None, value).expect("in a block")).collect();
        if let [scalar] = converted[..] {
            return scalar;
        }
        let vector = self.b.type_vector(component, converted.len() as u32);
        self.b.composite_construct(vector, None, converted).expect("in a block")
    }

    /// The coordinates, then the layer of an array access (the low 16 bits of its register; converted to FP32
    /// for samples), as one vector of `component`s.
    fn coordinate(&mut self, component: Word, coordinates: &[Value], layer: Option<Value>) -> Word {
        let mut words: Vec<Word> = coordinates.iter().map(|value| self.values[value]).collect();
        if let Some(layer) = layer {
            let mask = self.u32_const(0xffff);
            let layer = self.b.bitwise_and(self.t.u32, None, self.values[&layer], mask).expect("in a block");
            words.push(if component == self.t.f32 {
                let float = self.b.convert_u_to_f(self.t.f32, None, layer).expect("in a block");
                self.b.bitcast(self.t.u32, None, float).expect("in a block")
            } else {
                layer
            });
        }
        self.vector_of(component, &words)
    }

    /// The texel a sample or fetch returned (of `component`s), as four U32.
    fn texel_bits(&mut self, component: Word, texel: Word) -> Word {
        if component == self.t.u32 {
            return texel;
        }
        let v4u32 = self.v4u32();
        self.b.bitcast(v4u32, None, texel).expect("in a block")
    }

    pub(super) fn texture_sample(
        &mut self,
        texture: TextureRef,
        coordinates: &[Value],
        layer: Option<Value>,
        lod: Lod,
        reference: Option<Value>,
        offset: Option<[i8; 3]>,
    ) -> Word {
        let component = self.textures[usize::from(texture.binding)].component;
        let coordinate = self.coordinate(self.t.f32, coordinates, layer);
        let fragment = self.is_fragment();
        let float = |e: &mut Self, value: Value| {
            let bits = e.values[&value];
            e.b.bitcast(e.t.f32, None, bits).expect("in a block")
        };
        // Stages without derivatives sample level 0 where the fragment stage would compute one, whatever the bias:
        // a Tegra X1's TEX.LB and TEX.LBA in compute read level 0 (nxgpucatch's tex.cpp), the level of detail of a
        // quad without derivatives being -inf.
        let (operands, implicit) = match lod {
            Lod::Implicit if fragment => (None, true),
            Lod::Bias(bias) if fragment => (Some((ImageOperands::BIAS, vec![float(self, bias)])), true),
            Lod::Implicit | Lod::Bias(_) | Lod::Zero => {
                (Some((ImageOperands::LOD, vec![self.b.constant_bit32(self.t.f32, 0)])), false)
            }
            Lod::Level(value) => (Some((ImageOperands::LOD, vec![float(self, value)])), false),
            Lod::Gradients { x, y } => {
                let count = coordinates.len();
                let mut derivatives = |values: [Value; 2]| {
                    let words: Vec<Word> = values[..count].iter().map(|value| self.values[value]).collect();
                    self.vector_of(self.t.f32, &words)
                };
                let (x, y) = (derivatives(x), derivatives(y));
                (Some((ImageOperands::GRAD, vec![x, y])), false)
            }
        };
        let (mut mask, mut operands): (Option<ImageOperands>, Vec<Operand>) = match operands {
            Some((mask, operands)) => (Some(mask), operands.into_iter().map(Operand::IdRef).collect()),
            None => (None, Vec::new()),
        };
        if let Some(offset) = offset {
            // ConstOffset's bit (0x8) is above those of Bias, Lod and Grad, so its operand follows theirs.
            let i32_ = self.b.type_int(32, 1);
            let words: Vec<Word> = offset[..coordinates.len()]
                .iter()
                .map(|&texels| self.b.constant_bit32(i32_, i32::from(texels) as u32))
                .collect();
            let constant = match words[..] {
                [scalar] => scalar,
                _ => {
                    let vector = self.b.type_vector(i32_, words.len() as u32);
                    self.b.constant_composite(vector, words)
                }
            };
            mask = Some(mask.unwrap_or(ImageOperands::NONE) | ImageOperands::CONST_OFFSET);
            operands.push(Operand::IdRef(constant));
        }
        let reference = reference.map(|reference| float(self, reference));
        self.with_sampled(texture, |e, sampled| {
            let operands = operands.clone();
            let Some(reference) = reference else {
                let result = e.b.type_vector(component, 4);
                let texel = if implicit {
                    e.b.image_sample_implicit_lod(result, None, sampled, coordinate, mask, operands)
                } else {
                    let mask = mask.expect("an explicit level");
                    e.b.image_sample_explicit_lod(result, None, sampled, coordinate, mask, operands)
                }
                .expect("in a block");
                return e.texel_bits(component, texel);
            };
            let f32_ = e.t.f32;
            let compared = if implicit {
                e.b.image_sample_dref_implicit_lod(f32_, None, sampled, coordinate, reference, mask, operands)
            } else {
                let mask = mask.expect("an explicit level");
                e.b.image_sample_dref_explicit_lod(f32_, None, sampled, coordinate, reference, mask, operands)
            }
            .expect("in a block");
            let one = e.b.constant_bit32(f32_, 1.0f32.to_bits());
            let vector = e.b.type_vector(f32_, 4);
            // (r, r, r, 1), as yuzu gives it (Ryujinx puts r in all four; no source says what the hardware does).
            let texel = e.b.composite_construct(vector, None, [compared, compared, compared, one]).expect("in a block");
            e.texel_bits(f32_, texel)
        })
    }

    pub(super) fn texture_gather(
        &mut self,
        texture: TextureRef,
        coordinates: &[Value],
        layer: Option<Value>,
        component: u8,
        reference: Option<Value>,
        offsets: Option<Value>,
    ) -> Word {
        let kind = self.textures[usize::from(texture.binding)].component;
        let coordinate = self.coordinate(self.t.f32, coordinates, layer);
        let result = self.b.type_vector(kind, 4);
        let (mask, operands) = match offsets {
            Some(offsets) => {
                self.b.capability(Capability::ImageGatherExtended);
                let i32_ = self.b.type_int(32, 1);
                let packed = self.b.bitcast(i32_, None, self.values[&offsets]).expect("in a block");
                let six = self.u32_const(6);
                let [x, y] = [0u32, 8].map(|low| {
                    let low = self.u32_const(low);
                    self.b.bit_field_s_extract(i32_, None, packed, low, six).expect("in a block")
                });
                let vector = self.b.type_vector(i32_, 2);
                let offset = self.b.composite_construct(vector, None, [x, y]).expect("in a block");
                (Some(ImageOperands::OFFSET), vec![Operand::IdRef(offset)])
            }
            None => (None, Vec::new()),
        };
        let reference =
            reference.map(|reference| self.b.bitcast(self.t.f32, None, self.values[&reference]).expect("in a block"));
        let component = self.u32_const(u32::from(component));
        self.with_sampled(texture, |e, sampled| {
            let operands = operands.clone();
            let texels = match reference {
                Some(reference) => e.b.image_dref_gather(result, None, sampled, coordinate, reference, mask, operands),
                None => e.b.image_gather(result, None, sampled, coordinate, component, mask, operands),
            }
            .expect("in a block");
            e.texel_bits(kind, texels)
        })
    }

    pub(super) fn texture_fetch(
        &mut self,
        texture: TextureRef,
        coordinates: &[Value],
        layer: Option<Value>,
        level: Value,
    ) -> Word {
        let TextureVariable { component, buffer, .. } = self.textures[usize::from(texture.binding)];
        let i32_ = self.b.type_int(32, 1);
        let coordinate = self.coordinate(i32_, coordinates, layer);
        if buffer {
            return self.buffer_fetch(texture, component, coordinate);
        }
        let level = self.b.bitcast(i32_, None, self.values[&level]).expect("in a block");
        let result = self.b.type_vector(component, 4);
        self.with_sampled(texture, |e, sampled| {
            let image = e.image_of(texture, sampled);
            let operands = [Operand::IdRef(level)];
            let texel =
                e.b.image_fetch(result, None, image, coordinate, Some(ImageOperands::LOD), operands)
                    .expect("in a block");
            e.texel_bits(component, texel)
        })
    }

    /// A 1D buffer binding's image, and its texels (U32).
    fn buffer_and_texels(&mut self, texture: TextureRef) -> (Word, Word) {
        let variable = self.textures[usize::from(texture.binding)];
        let i32_ = self.b.type_int(32, 1);
        let image = self.b.load(variable.image, None, variable.variable, None, []).expect("in a block");
        let texels = self.b.image_query_size(i32_, None, image).expect("in a block");
        (image, self.b.bitcast(self.t.u32, None, texels).expect("in a block"))
    }

    /// A 1D buffer's texel `x` (an I32), whose level a fetch ignores (a buffer has one); zeros past the last
    /// texel, D3D's rule for a buffer read out of range (what Maxwell returns there is not documented), with the
    /// fetch itself kept inside the buffer (Vulkan leaves one past it undefined).
    fn buffer_fetch(&mut self, texture: TextureRef, component: Word, x: Word) -> Word {
        let (u32_, i32_) = (self.t.u32, self.b.type_int(32, 1));
        let (image, texels) = self.buffer_and_texels(texture);
        let x = self.b.bitcast(u32_, None, x).expect("in a block");
        let inside = self.b.u_less_than(self.t.bool, None, x, texels).expect("in a block");
        let zero = self.u32_const(0);
        let x = self.b.select(u32_, None, inside, x, zero).expect("in a block");
        let x = self.b.bitcast(i32_, None, x).expect("in a block");
        let result = self.b.type_vector(component, 4);
        let texel = self.b.image_fetch(result, None, image, x, None, []).expect("in a block");
        let texel = self.texel_bits(component, texel);
        let v4u32 = self.v4u32();
        let zeros = self.b.constant_composite(v4u32, [zero; 4]);
        let v4bool = self.b.type_vector(self.t.bool, 4);
        let inside = self.b.composite_construct(v4bool, None, [inside; 4]).expect("in a block");
        self.b.select(v4u32, None, inside, texel, zeros).expect("in a block")
    }

    /// TXQ TEX_HEADER_DIMENSION of a 1D buffer: its texels, zeros, zeros and its one level at level 0; zeros
    /// past it (as for the other textures' levels).
    fn buffer_query(&mut self, texture: TextureRef, level: Word) -> Word {
        let (_, texels) = self.buffer_and_texels(texture);
        let (zero, one) = (self.u32_const(0), self.u32_const(1));
        let v4u32 = self.v4u32();
        let size = self.b.composite_construct(v4u32, None, [texels, zero, zero, one]).expect("in a block");
        let zeros = self.b.constant_composite(v4u32, [zero; 4]);
        let base = self.b.i_equal(self.t.bool, None, level, zero).expect("in a block");
        let v4bool = self.b.type_vector(self.t.bool, 4);
        let base = self.b.composite_construct(v4bool, None, [base; 4]).expect("in a block");
        self.b.select(v4u32, None, base, size, zeros).expect("in a block")
    }

    /// TXQ TEX_HEADER_DIMENSION (`Op::TextureQuery`): the size of level `level` (the last level's when past it,
    /// so that the query stays defined, then zeros), padded with zeros to three, and the levels.
    pub(super) fn texture_query(&mut self, texture: TextureRef, level: Value) -> Word {
        let TextureVariable { size_components, level_components, buffer, .. } =
            self.textures[usize::from(texture.binding)];
        let level = self.values[&level];
        if buffer {
            return self.buffer_query(texture, level);
        }
        self.with_sampled(texture, |e, sampled| {
            let image = e.image_of(texture, sampled);
            let u32_ = e.t.u32;
            let i32_ = e.b.type_int(32, 1);
            let levels = e.b.image_query_levels(i32_, None, image).expect("in a block");
            let levels = e.b.bitcast(u32_, None, levels).expect("in a block");
            let in_range = e.b.u_less_than(e.t.bool, None, level, levels).expect("in a block");
            let one = e.u32_const(1);
            let last = e.b.i_sub(u32_, None, levels, one).expect("in a block");
            let lod = e.b.select(u32_, None, in_range, level, last).expect("in a block");
            let lod = e.b.bitcast(i32_, None, lod).expect("in a block");
            let size_type = match size_components {
                1 => i32_,
                n => e.b.type_vector(i32_, n),
            };
            // Level `lod`'s size from level 0's, each coordinate halved `lod` times down to 1, as Vulkan sizes a
            // mip chain: lavapipe (Mesa 22.3) answers a query at any level with level 0's size.
            let base = e.b.constant_bit32(i32_, 0);
            let size = e.b.image_query_size_lod(size_type, None, image, base).expect("in a block");
            let one = e.u32_const(1);
            let zero = e.u32_const(0);
            let mut components: Vec<Word> = (0..3)
                .map(|k| {
                    if k >= size_components {
                        return zero;
                    }
                    let value = if size_components == 1 {
                        size
                    } else {
                        e.b.composite_extract(i32_, None, size, [k]).expect("in a block")
                    };
                    let mut value = e.b.bitcast(u32_, None, value).expect("in a block");
                    if k < level_components {
                        let halved = e.b.shift_right_logical(u32_, None, value, lod).expect("in a block");
                        value = e.glsl(u32_, super::glsl::U_MAX, &[halved, one]);
                    }
                    e.b.select(u32_, None, in_range, value, zero).expect("in a block")
                })
                .collect();
            components.push(levels);
            let v4u32 = e.v4u32();
            e.b.composite_construct(v4u32, None, components).expect("in a block")
        })
    }

    /// TMML (`Op::TextureLodQuery`): OpImageQueryLod's computed level (its y) as signed 8.8 fixed point, clamped
    /// to 16 bits, in component 0, and its accessed level (its x) as unsigned 8.8 in component 1, each
    /// truncated toward zero as Ryujinx converts them.
    pub(super) fn texture_lod_query(&mut self, texture: TextureRef, coordinates: &[Value]) -> Word {
        let (u32_, f32_) = (self.t.u32, self.t.f32);
        let i32_ = self.b.type_int(32, 1);
        let coordinate = self.coordinate(f32_, coordinates, None);
        self.with_sampled(texture, |e, sampled| {
            let v2f32 = e.b.type_vector(f32_, 2);
            let lod = e.b.image_query_lod(v2f32, None, sampled, coordinate).expect("in a block");
            let scale = e.b.constant_bit32(f32_, 256.0f32.to_bits());
            let [accessed, computed] = [0, 1].map(|component| {
                let value = e.b.composite_extract(f32_, None, lod, [component]).expect("in a block");
                e.b.f_mul(f32_, None, value, scale).expect("in a block")
            });
            let [low, high] = [i16::MIN, i16::MAX].map(|bound| e.b.constant_bit32(f32_, f32::from(bound).to_bits()));
            let computed = e.glsl(f32_, super::glsl::N_CLAMP, &[computed, low, high]);
            let computed = e.b.convert_f_to_s(i32_, None, computed).expect("in a block");
            let computed = e.b.bitcast(u32_, None, computed).expect("in a block");
            let mask = e.u32_const(0xffff);
            let computed = e.b.bitwise_and(u32_, None, computed, mask).expect("in a block");
            let accessed = e.b.convert_f_to_u(u32_, None, accessed).expect("in a block");
            let zero = e.u32_const(0);
            let v4u32 = e.v4u32();
            e.b.composite_construct(v4u32, None, [computed, accessed, zero, zero]).expect("in a block")
        })
    }
}
