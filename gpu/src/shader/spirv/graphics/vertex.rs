//! The prologues and epilogues of the stages before the rasteriser: vertex, tessellation and geometry programs.

use super::declare::reads_generic;
use super::{
    ATTRIBUTE_WORDS, CapturedWords, GENERICS, GeometryCapture, GeometryInterface, ONE, PointSize, RECORD_INSTANCE_ID,
    RECORD_VERTEX_ID, RECORD_WORDS, StageIo, VertexInputs, VertexInterface, VertexOutputs, captured_words,
};
use crate::shader::sph::attribute;
use crate::shader::spirv::Emitter;
use rspirv::dr::Operand;
use rspirv::spirv::{StorageClass, Word};

impl Emitter<'_> {
    pub(in crate::shader::spirv) fn vertex_prologue(&mut self, vertex: &VertexInterface) {
        let &StageIo::Vertex { vertex_index, records, .. } = self.io() else { unreachable!("a vertex stage") };
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let record = self.vertex_element(records, 0, vertex_index, u64::from(RECORD_WORDS * 4));
        let copy = |e: &mut Self, word: u32, address: u32| {
            let at = e.b.constant_bit64(u64_, u64::from(word * 4));
            let address_of = e.b.i_add(u64_, None, record, at).expect("in a block");
            let pointer = e.b.convert_u_to_ptr(e.t.ptr_psb_u32, None, address_of).expect("in a block");
            let access = [Operand::LiteralBit32(4)];
            let value = e.b.load(u32_, None, pointer, Some(rspirv::spirv::MemoryAccess::ALIGNED), access);
            let value = value.expect("in a block");
            e.store_attribute(false, address, value);
        };
        for g in (0..GENERICS).filter(|&g| reads_generic(&vertex.header, g)) {
            for c in 0..4 {
                copy(self, 4 * g + c, attribute::GENERIC + 16 * g + 4 * c);
            }
        }
        if vertex.header.reads(attribute::VERTEX_ID) {
            copy(self, RECORD_VERTEX_ID, attribute::VERTEX_ID);
        }
        if vertex.header.reads(attribute::INSTANCE_ID) {
            copy(self, RECORD_INSTANCE_ID, attribute::INSTANCE_ID);
        }
        self.clear_outputs();
    }

    /// Position's and the generics' w to 1.0 in the output space (Maxwell behaviour 1.2: unwritten outputs are
    /// (0, 0, 0, 1)).
    fn clear_outputs(&mut self) {
        let one = self.u32_const(ONE);
        self.store_attribute(true, attribute::POSITION + 12, one);
        for g in 0..GENERICS {
            self.store_attribute(true, attribute::GENERIC + 16 * g + 12, one);
        }
    }

    /// Every vertex of the input primitive into the attribute space, 256 words each: position and the generics
    /// the header reads from the previous stage, and the primitive id in each; the outputs to (0, 0, 0, 1).
    pub(in crate::shader::spirv) fn geometry_prologue(&mut self, geometry: &GeometryInterface) {
        let StageIo::Geometry { inputs, primitive_id, .. } = self.io() else { unreachable!("a geometry stage") };
        let (inputs, primitive_id) = (inputs.clone(), *primitive_id);
        self.fill_vertex_inputs(&inputs);
        self.fill_primitive_id(primitive_id, geometry.input.vertices());
        self.clear_outputs();
    }

    /// The primitive's number, where the program reads it, into a[0x60] of each of the input attribute
    /// space's `vertices`.
    pub(super) fn fill_primitive_id(&mut self, input: Option<Word>, vertices: u32) {
        let Some(input) = input else { return };
        let int = self.b.type_int(32, 1);
        let id = self.b.load(int, None, input, None, []).expect("in a block");
        let id = self.b.bitcast(self.t.u32, None, id).expect("in a block");
        for v in 0..vertices {
            self.store_attribute(false, v * ATTRIBUTE_WORDS * 4 + attribute::PRIMITIVE_ID, id);
        }
    }

    /// Each input vertex's position and generics into its 256 words of the attribute space.
    fn fill_vertex_inputs(&mut self, inputs: &VertexInputs) {
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v4f32 = self.b.type_vector(f32_, 4);
        let pointer = self.b.type_pointer(None, StorageClass::Input, v4f32);
        for v in 0..self.input_vertices {
            let base = v * ATTRIBUTE_WORDS * 4;
            let index = self.u32_const(v);
            let arrays = std::iter::once((attribute::POSITION, inputs.positions))
                .chain(inputs.generics.iter().map(|&(g, input)| (attribute::GENERIC + 16 * g, input)));
            for (address, input) in arrays {
                let element = self.b.access_chain(pointer, None, input, [index]).expect("in a block");
                let vector = self.b.load(v4f32, None, element, None, []).expect("in a block");
                for c in 0..4 {
                    let component = self.b.composite_extract(f32_, None, vector, [c]).expect("in a block");
                    let bits = self.b.bitcast(u32_, None, component).expect("in a block");
                    self.store_attribute(false, base + address + 4 * c, bits);
                }
            }
        }
    }

    /// A tessellation control program's control points into the attribute space; its outputs to (0, 0, 0, 1).
    pub(in crate::shader::spirv) fn tess_control_prologue(&mut self) {
        let StageIo::TessControl { inputs, primitive_id, .. } = self.io() else {
            unreachable!("a tessellation control stage")
        };
        let (inputs, primitive_id) = (inputs.clone(), *primitive_id);
        self.fill_vertex_inputs(&inputs);
        self.fill_primitive_id(primitive_id, self.input_vertices);
        self.clear_outputs();
    }

    /// The invocation's output vertex: position and generics to its element of the output arrays.
    pub(in crate::shader::spirv) fn tess_control_epilogue(&mut self) {
        let StageIo::TessControl { invocation_id, positions, generics, .. } = self.io() else {
            unreachable!("a tessellation control stage")
        };
        let (invocation_id, positions, generics) = (*invocation_id, *positions, generics.clone());
        let int = self.b.type_int(32, 1);
        let index = self.b.load(int, None, invocation_id, None, []).expect("in a block");
        let v4f32 = self.b.type_vector(self.t.f32, 4);
        let pointer = self.b.type_pointer(None, StorageClass::Output, v4f32);
        let arrays = std::iter::once((attribute::POSITION, positions))
            .chain(generics.iter().map(|&(g, output)| (attribute::GENERIC + 16 * g, output)));
        for (address, output) in arrays.collect::<Vec<_>>() {
            let value = self.attribute_vector(true, address);
            let element = self.b.access_chain(pointer, None, output, [index]).expect("in a block");
            self.b.store(element, value, None, []).expect("in a block");
        }
    }

    /// A tessellation evaluation program's control points, and its domain coordinate's u and v (0x2f0, 0x2f4),
    /// into the attribute space; its outputs to (0, 0, 0, 1).
    pub(in crate::shader::spirv) fn tess_eval_prologue(&mut self) {
        let StageIo::TessEval { inputs, primitive_id, tess_coord, .. } = self.io() else {
            unreachable!("a tessellation evaluation stage")
        };
        let (inputs, primitive_id, tess_coord) = (inputs.clone(), *primitive_id, *tess_coord);
        self.fill_vertex_inputs(&inputs);
        self.fill_primitive_id(primitive_id, self.input_vertices);
        let _ = self.store_float_components(tess_coord, 3, 2, attribute::TESS_COORD);
        self.clear_outputs();
    }

    /// A tessellation evaluation program's outputs on, as a vertex program's.
    pub(in crate::shader::spirv) fn tess_eval_epilogue(&mut self) {
        let StageIo::TessEval { outputs, .. } = self.io() else { unreachable!("a tessellation evaluation stage") };
        let outputs = outputs.clone();
        self.write_vertex_outputs(&outputs);
    }

    /// A pointer to the per-patch word at a byte address (`translate_graphics` refuses those past the patch's
    /// words) of a control program's outputs or an evaluation program's inputs, and its type: a tessellation
    /// level's float, or a word's U32.
    fn patch_word(&mut self, address: u32) -> (Word, Word) {
        let (levels, class) = match self.io() {
            StageIo::TessControl { levels, .. } => (*levels, StorageClass::Output),
            StageIo::TessEval { levels, .. } => (*levels, StorageClass::Input),
            _ => unreachable!("per-patch words are refused outside tessellation programs"),
        };
        let (variable, indices, ty) = match address {
            attribute::TESS_LEVELS_END.. => {
                let word = (address - attribute::TESS_LEVELS_END) / 4;
                let words = levels.words.expect("translate_graphics refuses words past the patch's");
                (words, vec![word / 4, word % 4], self.t.u32)
            }
            attribute::TESS_LEVEL_INNER.. => {
                (levels.inner, vec![(address - attribute::TESS_LEVEL_INNER) / 4], self.t.f32)
            }
            _ => (levels.outer, vec![address / 4], self.t.f32),
        };
        let indices: Vec<Word> = indices.into_iter().map(|index| self.u32_const(index)).collect();
        let pointer = self.b.type_pointer(None, class, ty);
        (self.b.access_chain(pointer, None, variable, indices).expect("in a block"), ty)
    }

    /// ALD.P: a per-patch word's bits.
    pub(in crate::shader::spirv) fn patch_load(&mut self, address: u32) -> Word {
        let (pointer, ty) = self.patch_word(address);
        let value = self.b.load(ty, None, pointer, None, []).expect("in a block");
        if ty == self.t.u32 { value } else { self.b.bitcast(self.t.u32, None, value).expect("in a block") }
    }

    /// AST.P: a control program sets a per-patch word.
    pub(in crate::shader::spirv) fn patch_store(&mut self, address: u32, bits: Word) {
        let (pointer, ty) = self.patch_word(address);
        let value = if ty == self.t.u32 { bits } else { self.b.bitcast(ty, None, bits).expect("in a block") };
        self.b.store(pointer, value, None, []).expect("in a block");
    }

    /// OUT.EMIT on `stream`: while the invocation has emitted fewer vertices than its header allows, the outputs as
    /// they stand become a vertex: the rasteriser's when the stream is the one it takes, and a stream output
    /// record when the program captures.
    pub(in crate::shader::spirv) fn emit_vertex(&mut self, stream: u8) {
        let StageIo::Geometry { outputs, max_vertices, capture, raster_stream, .. } = self.io() else {
            unreachable!("OUT is refused outside geometry programs")
        };
        let (outputs, max_vertices, capture) = (outputs.clone(), *max_vertices, capture.clone());
        let rasterized = stream == *raster_stream;
        let u32_ = self.t.u32;
        let emitted = self.b.load(u32_, None, self.emitted, None, []).expect("in a block");
        let limit = self.u32_const(max_vertices);
        let room = self.b.u_less_than(self.t.bool, None, emitted, limit).expect("in a block");
        let (emit, merge) = (self.b.id(), self.b.id());
        self.b.selection_merge(merge, rspirv::spirv::SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(room, emit, merge, []).expect("in a block");
        self.b.begin_block(Some(emit)).expect("in a function");
        if let Some(capture) = &capture {
            self.store_emitted_record(capture, emitted, max_vertices, stream);
        }
        if rasterized {
            self.write_vertex_outputs(&outputs);
            self.b.emit_vertex().expect("in a block");
        }
        let one = self.u32_const(1);
        let more = self.b.i_add(u32_, None, emitted, one).expect("in a block");
        self.b.store(self.emitted, more, None, []).expect("in a block");
        self.b.branch(merge).expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
    }

    /// OUT.CUT on `stream`: its strip ends; a capturing invocation's next vertices on it belong to the next strip.
    pub(in crate::shader::spirv) fn end_primitive(&mut self, stream: u8) {
        let &StageIo::Geometry { raster_stream, ref capture, .. } = self.io() else {
            unreachable!("OUT is refused outside geometry programs")
        };
        let capturing = capture.is_some();
        if stream == raster_stream {
            self.b.end_primitive().expect("in a block");
        }
        if capturing {
            let (u32_, strip) = (self.t.u32, self.strips[usize::from(stream)]);
            let number = self.b.load(u32_, None, strip, None, []).expect("in a block");
            let one = self.u32_const(1);
            let next = self.b.i_add(u32_, None, number, one).expect("in a block");
            self.b.store(strip, next, None, []).expect("in a block");
        }
    }

    /// The emitted vertex's stream output record (`GeometryInterface::capture`): its stream and strip's number,
    /// then the captured words as the program left them.
    fn store_emitted_record(&mut self, capture: &GeometryCapture, emitted: Word, max_vertices: u32, stream: u8) {
        let StageIo::Geometry { primitive_id: Some(primitive_id), .. } = self.io() else {
            unreachable!("a capturing geometry stage reads its primitive's number")
        };
        let primitive_id = *primitive_id;
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let int = self.b.type_int(32, 1);
        let primitive = self.b.load(int, None, primitive_id, None, []).expect("in a block");
        let primitive = self.b.bitcast(u32_, None, primitive).expect("in a block");
        let invocation = self.invocation_id();
        let invocations = self.u32_const(capture.invocations);
        let first = self.b.i_mul(u32_, None, primitive, invocations).expect("in a block");
        let slot = self.b.i_add(u32_, None, first, invocation).expect("in a block");
        let limit = self.u32_const(max_vertices);
        let first = self.b.i_mul(u32_, None, slot, limit).expect("in a block");
        let record = self.b.i_add(u32_, None, first, emitted).expect("in a block");
        let record = self.b.u_convert(u64_, None, record).expect("in a block");
        let record_bytes = self.b.constant_bit64(u64_, 4 * (1 + capture.words.len() as u64));
        let offset = self.b.i_mul(u64_, None, record, record_bytes).expect("in a block");
        let base = self.push_constant_address(capture.push_constants, 1);
        let record = self.b.i_add(u64_, None, base, offset).expect("in a block");
        let strip = self.b.load(u32_, None, self.strips[usize::from(stream)], None, []).expect("in a block");
        let stream = self.u32_const(u32::from(stream) << 30);
        let strip = self.b.bitwise_or(u32_, None, strip, stream).expect("in a block");
        let words: Vec<Word> = capture.words.iter().map(|&word| self.load_attribute(true, 4 * word)).collect();
        for (k, value) in std::iter::once(strip).chain(words).enumerate() {
            self.store_u32(record, 4 * k as u64, value);
        }
    }

    /// Member `member` (an address) of the push constant block `block`.
    fn push_constant_address(&mut self, block: Word, member: u32) -> Word {
        let u64_ = self.t.u64;
        let pointer = self.b.type_pointer(None, StorageClass::PushConstant, u64_);
        let member = self.u32_const(member);
        let member = self.b.access_chain(pointer, None, block, [member]).expect("in a block");
        self.b.load(u64_, None, member, None, []).expect("in a block")
    }

    /// `value` to the word at `base` + `offset` through a physical storage buffer pointer.
    fn store_u32(&mut self, base: Word, offset: u64, value: Word) {
        let u64_ = self.t.u64;
        let at = self.b.constant_bit64(u64_, offset);
        let address = self.b.i_add(u64_, None, base, at).expect("in a block");
        let pointer = self.b.convert_u_to_ptr(self.t.ptr_psb_u32, None, address).expect("in a block");
        let access = [Operand::LiteralBit32(4)];
        self.b.store(pointer, value, Some(rspirv::spirv::MemoryAccess::ALIGNED), access).expect("in a block");
    }

    /// A geometry or tessellation control program's invocation (`Special::InvocationId`).
    pub(in crate::shader::spirv) fn invocation_id(&mut self) -> Word {
        let (&StageIo::Geometry { invocation_id, .. } | &StageIo::TessControl { invocation_id, .. }) = self.io() else {
            unreachable!("invocation registers are refused outside geometry and tessellation control programs")
        };
        let int = self.b.type_int(32, 1);
        let id = self.b.load(int, None, invocation_id, None, []).expect("in a block");
        self.b.bitcast(self.t.u32, None, id).expect("in a block")
    }

    /// Four words of an attribute space as a vec4 of floats.
    fn attribute_vector(&mut self, output: bool, address: u32) -> Word {
        let f32_ = self.t.f32;
        let words: Vec<Word> = (0..4)
            .map(|c| {
                let word = self.load_attribute(output, address + 4 * c);
                self.b.bitcast(f32_, None, word).expect("in a block")
            })
            .collect();
        let v4f32 = self.b.type_vector(f32_, 4);
        self.b.composite_construct(v4f32, None, words).expect("in a block")
    }

    /// The captured words to the capture address, then the outputs on.
    pub(in crate::shader::spirv) fn vertex_epilogue(&mut self, vertex: &VertexInterface) {
        let StageIo::Vertex { vertex_index, records, outputs } = self.io() else { unreachable!("a vertex stage") };
        let (vertex_index, records, outputs) = (*vertex_index, *records, outputs.clone());
        self.store_captured_words(&vertex.capture, vertex_index, records);
        self.write_vertex_outputs(&outputs);
    }

    /// Position (z moved into Vulkan's clip range when the guest clips at -w), a point draw's size, the
    /// viewport index, the layer, the clip and cull distances and the generics from the output space to the
    /// stage's outputs.
    fn write_vertex_outputs(&mut self, outputs: &VertexOutputs) {
        if let Some(output) = outputs.layer {
            // The word as written (RT_ARRAY_INDEX counts layers from the targets' first).
            let word = self.load_attribute(true, attribute::LAYER);
            let int = self.b.type_int(32, 1);
            let value = self.b.bitcast(int, None, word).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some(output) = outputs.viewport_index {
            // The low four bits pick one of the 16 viewports (the host has exactly 16, so any index is defined).
            let word = self.load_attribute(true, attribute::VIEWPORT_INDEX);
            let mask = self.u32_const(0xf);
            let index = self.b.bitwise_and(self.t.u32, None, word, mask).expect("in a block");
            let int = self.b.type_int(32, 1);
            let value = self.b.bitcast(int, None, index).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some((output, size)) = outputs.point_size {
            let bits = match size {
                PointSize::Program => self.load_attribute(true, attribute::POINT_SIZE),
                PointSize::Fixed(bits) => self.u32_const(bits),
            };
            let value = self.b.bitcast(self.t.f32, None, bits).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        let mut value = self.attribute_vector(true, attribute::POSITION);
        if outputs.depth_minus_one_to_one {
            let f32_ = self.t.f32;
            let z = self.b.composite_extract(f32_, None, value, [2]).expect("in a block");
            let w = self.b.composite_extract(f32_, None, value, [3]).expect("in a block");
            let sum = self.b.f_add(f32_, None, z, w).expect("in a block");
            let half = self.b.constant_bit32(f32_, 0.5f32.to_bits());
            let z = self.b.f_mul(f32_, None, sum, half).expect("in a block");
            let v4f32 = self.b.type_vector(f32_, 4);
            value = self.b.composite_insert(v4f32, None, z, value, [2]).expect("in a block");
        }
        self.b.store(outputs.position, value, None, []).expect("in a block");
        for (array, planes) in [outputs.clip_distances, outputs.cull_distances].into_iter().flatten() {
            let pointer = self.b.type_pointer(None, StorageClass::Output, self.t.f32);
            for (k, plane) in (0..8u32).filter(|plane| planes >> plane & 1 == 1).enumerate() {
                let bits = self.load_attribute(true, attribute::CLIP_DISTANCE + 4 * plane);
                let value = self.b.bitcast(self.t.f32, None, bits).expect("in a block");
                let index = self.u32_const(k as u32);
                let element = self.b.access_chain(pointer, None, array, [index]).expect("in a block");
                self.b.store(element, value, None, []).expect("in a block");
            }
        }
        for &(g, output) in &outputs.generics {
            let value = self.attribute_vector(true, attribute::GENERIC + 16 * g);
            self.b.store(output, value, None, []).expect("in a block");
        }
    }

    /// The address of this vertex's element of the array of `size`-byte elements whose address is member
    /// `member` of the push constant block: the address plus `VertexIndex` x `size`.
    fn vertex_element(&mut self, records: Word, member: u32, vertex_index: Word, size: u64) -> Word {
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let base = self.push_constant_address(records, member);
        let index = self.b.load(u32_, None, vertex_index, None, []).expect("in a block");
        let index = self.b.u_convert(u64_, None, index).expect("in a block");
        let size = self.b.constant_bit64(u64_, size);
        let offset = self.b.i_mul(u64_, None, index, size).expect("in a block");
        self.b.i_add(u64_, None, base, offset).expect("in a block")
    }

    /// Stream output's words of this vertex to the capture address + `VertexIndex` x their size.
    fn store_captured_words(&mut self, capture: &CapturedWords, vertex_index: Word, records: Word) {
        let words: Vec<u32> = captured_words(capture).collect();
        if words.is_empty() {
            return;
        }
        let vertex_base = self.vertex_element(records, 1, vertex_index, 4 * words.len() as u64);
        for (k, word) in words.into_iter().enumerate() {
            let value = self.load_attribute(true, 4 * word);
            self.store_u32(vertex_base, 4 * k as u64, value);
        }
    }
}
