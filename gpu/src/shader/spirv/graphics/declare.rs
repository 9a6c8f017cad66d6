//! Declaring each graphics stage's interface: its built-ins, locations and push constants (`StageIo`).

use super::{
    CapturedWords, FragmentInterface, GENERICS, GeometryCapture, GeometryInterface, POINT_COORD, PointSize, StageIo,
    TessControlInterface, TessEvalInterface, TessLevels, UserClip, VertexInputs, VertexInterface, VertexOutputs,
    captured_words, patch_locations,
};
use crate::shader::sph::{Interpolation, ProgramHeader, attribute};
use crate::shader::spirv::Types;
use crate::texture::format::NumberKind;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{BuiltIn, Capability, Decoration, StorageClass, Word};

fn variable(b: &mut Builder, class: StorageClass, ty: Word, interface: &mut Vec<Word>) -> Word {
    let pointer = b.type_pointer(None, class, ty);
    let variable = b.variable(pointer, None, class, None);
    interface.push(variable);
    variable
}

fn built_in(b: &mut Builder, variable: Word, which: BuiltIn) {
    b.decorate(variable, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
}

fn location(b: &mut Builder, variable: Word, location: u32) {
    b.decorate(variable, Decoration::Location, [Operand::LiteralBit32(location)]);
}

/// What the last stage before the rasteriser hands on, from `header`'s outputs: position, the point size of
/// point draws, the viewport index and layer where the program picks them, and the generics the next stage
/// reads or the program writes. Outside geometry programs (whose capability covers them), writing the viewport
/// index and layer needs capabilities of their own.
fn declare_vertex_outputs(
    b: &mut Builder,
    t: &Types,
    header: &ProgramHeader,
    next_stage_reads: u32,
    (point_size, layer, depth_minus_one_to_one, user_clip): (Option<PointSize>, bool, bool, UserClip),
    outside_geometry: bool,
    interface: &mut Vec<Word>,
) -> VertexOutputs {
    let v4f32 = b.type_vector(t.f32, 4);
    let position = variable(b, StorageClass::Output, v4f32, interface);
    built_in(b, position, BuiltIn::Position);
    b.decorate(position, Decoration::Invariant, []);
    let point_size = point_size.map(|size| {
        let output = variable(b, StorageClass::Output, t.f32, interface);
        built_in(b, output, BuiltIn::PointSize);
        (output, size)
    });
    let viewport_index = header.writes(attribute::VIEWPORT_INDEX).then(|| {
        if outside_geometry {
            b.capability(Capability::ShaderViewportIndex);
        }
        let int = b.type_int(32, 1);
        let output = variable(b, StorageClass::Output, int, interface);
        built_in(b, output, BuiltIn::ViewportIndex);
        output
    });
    let layer = layer.then(|| {
        if outside_geometry {
            b.capability(Capability::ShaderLayer);
        }
        let int = b.type_int(32, 1);
        let output = variable(b, StorageClass::Output, int, interface);
        built_in(b, output, BuiltIn::Layer);
        output
    });
    let handed_on = |g| next_stage_reads >> g & 1 == 1 || writes_generic(header, g);
    let generics = declare_generics(b, StorageClass::Output, v4f32, handed_on, interface);
    let mut distances = |planes: u8, capability: Capability, built_in_name: BuiltIn| {
        (planes != 0).then(|| {
            b.capability(capability);
            let count = b.constant_bit32(t.u32, planes.count_ones());
            let array = b.type_array(t.f32, count);
            let output = variable(b, StorageClass::Output, array, interface);
            built_in(b, output, built_in_name);
            (output, planes)
        })
    };
    let clip_distances = distances(user_clip.clip, Capability::ClipDistance, BuiltIn::ClipDistance);
    let cull_distances = distances(user_clip.cull, Capability::CullDistance, BuiltIn::CullDistance);
    VertexOutputs {
        position,
        point_size,
        viewport_index,
        layer,
        generics,
        depth_minus_one_to_one,
        clip_distances,
        cull_distances,
    }
}

pub(in crate::shader::spirv) fn declare_vertex_io(
    b: &mut Builder,
    t: &Types,
    vertex: &VertexInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    let vertex_index = variable(b, StorageClass::Input, t.u32, interface);
    built_in(b, vertex_index, BuiltIn::VertexIndex);
    let records = declare_push_constants(b, t, &vertex.capture, interface);
    let choices = (vertex.point_size, vertex.layer, vertex.depth_minus_one_to_one, vertex.user_clip);
    let outputs = declare_vertex_outputs(b, t, &vertex.header, vertex.next_stage_reads, choices, true, interface);
    StageIo::Vertex { vertex_index, records, outputs }
}

/// The push constant block of the stages before the rasteriser: the vertex records' address, then where captured
/// vertices go when stream output captures any.
fn declare_push_constants(b: &mut Builder, t: &Types, capture: &CapturedWords, interface: &mut Vec<Word>) -> Word {
    let capturing = captured_words(capture).next().is_some();
    let block = if capturing { b.type_struct([t.u64, t.u64]) } else { b.type_struct([t.u64]) };
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    if capturing {
        b.member_decorate(block, 1, Decoration::Offset, [Operand::LiteralBit32(8)]);
    }
    variable(b, StorageClass::PushConstant, block, interface)
}

/// A geometry program's inputs (each an array of a value per vertex of the primitive, the previous stage's
/// outputs), its invocation and primitive ids, and its outputs; `Capability::Geometry`.
pub(in crate::shader::spirv) fn declare_geometry_io(
    b: &mut Builder,
    t: &Types,
    geometry: &GeometryInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    b.capability(Capability::Geometry);
    let inputs = declare_vertex_inputs(b, t, &geometry.header, geometry.input.vertices(), interface);
    let words: Vec<u32> = captured_words(&geometry.capture).collect();
    // Captured vertices are placed by the primitive's number.
    let primitive_id = declare_primitive_id(b, &geometry.header, !words.is_empty(), interface);
    let int = b.type_int(32, 1);
    let invocation_id = variable(b, StorageClass::Input, int, interface);
    built_in(b, invocation_id, BuiltIn::InvocationId);
    if geometry.point_size.is_some() {
        b.capability(Capability::GeometryPointSize);
    }
    let choices = (geometry.point_size, geometry.layer, geometry.depth_minus_one_to_one, geometry.user_clip);
    let outputs = declare_vertex_outputs(b, t, &geometry.header, geometry.next_stage_reads, choices, false, interface);
    let max_vertices = geometry.header.max_output_vertices();
    let capture = (!words.is_empty()).then(|| GeometryCapture {
        push_constants: declare_push_constants(b, t, &geometry.capture, interface),
        words,
        invocations: geometry.header.invocations(),
    });
    let raster_stream = geometry.raster_stream;
    StageIo::Geometry { inputs, primitive_id, invocation_id, outputs, max_vertices, capture, raster_stream }
}

/// The `PrimitiveId` input where the header reads it (a[0x60]) or the stage `needs` it; a stage other than
/// geometry or tessellation needs `Capability::Geometry` for it.
fn declare_primitive_id(
    b: &mut Builder,
    header: &ProgramHeader,
    needs: bool,
    interface: &mut Vec<Word>,
) -> Option<Word> {
    (needs || header.reads(attribute::PRIMITIVE_ID)).then(|| {
        let int = b.type_int(32, 1);
        let input = variable(b, StorageClass::Input, int, interface);
        built_in(b, input, BuiltIn::PrimitiveId);
        input
    })
}

/// A variable of `ty` at `Location` g for each generic g that `wanted`.
fn declare_generics(
    b: &mut Builder,
    class: StorageClass,
    ty: Word,
    wanted: impl Fn(u32) -> bool,
    interface: &mut Vec<Word>,
) -> Vec<(u32, Word)> {
    (0..GENERICS)
        .filter(|&g| wanted(g))
        .map(|g| {
            let generic = variable(b, class, ty, interface);
            location(b, generic, g);
            (g, generic)
        })
        .collect()
}

/// Position and the generics `header` reads, for each of `count` vertices (the previous stage's outputs).
fn declare_vertex_inputs(
    b: &mut Builder,
    t: &Types,
    header: &ProgramHeader,
    count: u32,
    interface: &mut Vec<Word>,
) -> VertexInputs {
    let v4f32 = b.type_vector(t.f32, 4);
    let count = b.constant_bit32(t.u32, count);
    let per_vertex = b.type_array(v4f32, count);
    let positions = variable(b, StorageClass::Input, per_vertex, interface);
    built_in(b, positions, BuiltIn::Position);
    let generics = declare_generics(b, StorageClass::Input, per_vertex, |g| reads_generic(header, g), interface);
    VertexInputs { positions, generics }
}

/// The tessellation levels, patch variables of `class`.
fn declare_tess_levels(
    b: &mut Builder,
    t: &Types,
    class: StorageClass,
    patch_words: u32,
    interface: &mut Vec<Word>,
) -> TessLevels {
    let [outer, inner] = [(4, BuiltIn::TessLevelOuter), (2, BuiltIn::TessLevelInner)].map(|(length, which)| {
        let length = b.constant_bit32(t.u32, length);
        let array = b.type_array(t.f32, length);
        let levels = variable(b, class, array, interface);
        built_in(b, levels, which);
        b.decorate(levels, Decoration::Patch, []);
        levels
    });
    let words = (patch_words > 0).then(|| {
        let v4u32 = b.type_vector(t.u32, 4);
        let length = b.constant_bit32(t.u32, patch_words.div_ceil(4));
        let array = b.type_array(v4u32, length);
        let words = variable(b, class, array, interface);
        location(b, words, patch_locations(patch_words));
        b.decorate(words, Decoration::Patch, []);
        words
    });
    TessLevels { outer, inner, words }
}

/// A tessellation control program's control points in, its invocation, its output vertices (`header`'s
/// invocations of them) and the tessellation levels out; `Capability::Tessellation`.
pub(in crate::shader::spirv) fn declare_tess_control_io(
    b: &mut Builder,
    t: &Types,
    control: &TessControlInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    b.capability(Capability::Tessellation);
    let inputs = declare_vertex_inputs(b, t, &control.header, control.patch_vertices, interface);
    let primitive_id = declare_primitive_id(b, &control.header, false, interface);
    let int = b.type_int(32, 1);
    let invocation_id = variable(b, StorageClass::Input, int, interface);
    built_in(b, invocation_id, BuiltIn::InvocationId);
    let v4f32 = b.type_vector(t.f32, 4);
    let count = b.constant_bit32(t.u32, control.header.invocations());
    let per_vertex = b.type_array(v4f32, count);
    let positions = variable(b, StorageClass::Output, per_vertex, interface);
    built_in(b, positions, BuiltIn::Position);
    let handed_on = |g| control.next_stage_reads >> g & 1 == 1 || writes_generic(&control.header, g);
    let generics = declare_generics(b, StorageClass::Output, per_vertex, handed_on, interface);
    let levels = declare_tess_levels(b, t, StorageClass::Output, control.patch_words, interface);
    StageIo::TessControl { inputs, primitive_id, invocation_id, positions, generics, levels }
}

/// A tessellation evaluation program's control points, domain coordinate and levels in, and its outputs as a
/// vertex program's; `Capability::Tessellation`.
pub(in crate::shader::spirv) fn declare_tess_eval_io(
    b: &mut Builder,
    t: &Types,
    evaluation: &TessEvalInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    b.capability(Capability::Tessellation);
    let inputs = declare_vertex_inputs(b, t, &evaluation.header, evaluation.patch_vertices, interface);
    let primitive_id = declare_primitive_id(b, &evaluation.header, false, interface);
    let v3f32 = b.type_vector(t.f32, 3);
    let tess_coord = variable(b, StorageClass::Input, v3f32, interface);
    built_in(b, tess_coord, BuiltIn::TessCoord);
    let levels = declare_tess_levels(b, t, StorageClass::Input, evaluation.patch_words, interface);
    if evaluation.point_size.is_some() {
        b.capability(Capability::TessellationPointSize);
    }
    let choices = (evaluation.point_size, evaluation.layer, evaluation.depth_minus_one_to_one, evaluation.user_clip);
    let outputs =
        declare_vertex_outputs(b, t, &evaluation.header, evaluation.next_stage_reads, choices, true, interface);
    StageIo::TessEval { inputs, primitive_id, tess_coord, levels, outputs }
}

fn writes_generic(header: &ProgramHeader, generic: u32) -> bool {
    (0..4).any(|c| header.writes(attribute::GENERIC + 16 * generic + 4 * c))
}

pub(super) fn reads_generic(header: &ProgramHeader, generic: u32) -> bool {
    (0..4).any(|c| header.reads(attribute::GENERIC + 16 * generic + 4 * c))
}

pub(in crate::shader::spirv) fn declare_fragment_io(
    b: &mut Builder,
    t: &Types,
    fragment: &FragmentInterface,
    interface: &mut Vec<Word>,
) -> StageIo {
    let v4f32 = b.type_vector(t.f32, 4);
    let frag_coord = variable(b, StorageClass::Input, v4f32, interface);
    built_in(b, frag_coord, BuiltIn::FragCoord);
    let front_facing = variable(b, StorageClass::Input, t.bool, interface);
    built_in(b, front_facing, BuiltIn::FrontFacing);
    let primitive_id = declare_primitive_id(b, &fragment.header, false, interface);
    if let Some(input) = primitive_id {
        b.capability(Capability::Geometry);
        b.decorate(input, Decoration::Flat, []);
    }
    let mut flat_input = |address: u32, which: BuiltIn, capability: Capability| {
        fragment.header.reads(address).then(|| {
            b.capability(capability);
            let int = b.type_int(32, 1);
            let input = variable(b, StorageClass::Input, int, interface);
            built_in(b, input, which);
            b.decorate(input, Decoration::Flat, []);
            input
        })
    };
    let layer = flat_input(attribute::LAYER, BuiltIn::Layer, Capability::Geometry);
    let viewport_index = flat_input(attribute::VIEWPORT_INDEX, BuiltIn::ViewportIndex, Capability::MultiViewport);
    let reads_point_coord = fragment.header.pixel_system_inputs().iter().any(|address| POINT_COORD.contains(address));
    let point_coord = fragment.point_coord.filter(|_| reads_point_coord).map(|origin| {
        let v2f32 = b.type_vector(t.f32, 2);
        let input = variable(b, StorageClass::Input, v2f32, interface);
        built_in(b, input, BuiltIn::PointCoord);
        (input, origin)
    });
    let mut inputs = Vec::new();
    for g in 0..GENERICS {
        for c in 0..4 {
            let mode = fragment.header.interpolation(g, c);
            if mode == Interpolation::Unused {
                continue;
            }
            let input = variable(b, StorageClass::Input, t.f32, interface);
            location(b, input, g);
            b.decorate(input, Decoration::Component, [Operand::LiteralBit32(c)]);
            match mode {
                Interpolation::Constant => b.decorate(input, Decoration::Flat, []),
                Interpolation::ScreenLinear => b.decorate(input, Decoration::NoPerspective, []),
                _ => {}
            }
            inputs.push((g, c, input, mode));
        }
    }
    let registers = fragment.header.output_registers();
    let mut colors = Vec::new();
    for (target, first) in registers.targets.iter().enumerate() {
        let second_source = fragment.dual_source && target == 1;
        let kind = if second_source { fragment.targets[0] } else { fragment.targets[target] };
        let (Some(first), Some(kind)) = (*first, kind) else { continue };
        let element = match kind {
            NumberKind::Float => t.f32,
            NumberKind::Uint => t.u32,
            NumberKind::Sint => b.type_int(32, 1),
        };
        let vector = b.type_vector(element, 4);
        let output = variable(b, StorageClass::Output, vector, interface);
        if second_source {
            location(b, output, 0);
            b.decorate(output, Decoration::Index, [Operand::LiteralBit32(1)]);
        } else {
            let targets_before = fragment.targets[..target].iter().filter(|kind| kind.is_some()).count();
            location(b, output, targets_before as u32);
        }
        colors.push((target as u32, output, kind, first));
    }
    let depth = registers.depth.map(|register| {
        let output = variable(b, StorageClass::Output, t.f32, interface);
        built_in(b, output, BuiltIn::FragDepth);
        (output, register)
    });
    let program_mask = registers.sample_mask.filter(|_| fragment.sample_mask);
    let sample_mask = (program_mask.is_some() || fragment.quad_sample_masks.is_some()).then(|| {
        let int = b.type_int(32, 1);
        let one = b.constant_bit32(t.u32, 1);
        let array = b.type_array(int, one);
        let output = variable(b, StorageClass::Output, array, interface);
        built_in(b, output, BuiltIn::SampleMask);
        (output, program_mask)
    });
    StageIo::Fragment {
        frag_coord,
        front_facing,
        primitive_id,
        inputs,
        colors,
        depth,
        sample_mask,
        point_coord,
        layer,
        viewport_index,
    }
}
