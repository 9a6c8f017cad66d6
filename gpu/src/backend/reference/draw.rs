//! The reference back end's draws: translate the stages (vertex, pixel, and geometry when enabled), upload the vertex records and the constant
//! buffers, read the colour targets out of guest memory, let the Vulkan device draw, and write back the texels
//! that changed. Every state the engine resolved maps to Vulkan's one to one; what has no such mapping yet is an
//! `Unimplemented` error naming it.

use super::surface::BoundSurfaces;
use super::target::{blend, filled_unused, fills_unused, guest_blend, marked_unused};
use super::texture::{DecodedSlot, TextureSource};
use super::{NAME, ReferenceBackend, failed, host_swizzle, vulkan_format};
use crate::backend::{
    BackendError, Captured, Cull, DepthStencil, Draw, Drawn, GpuMemory, LineStipple, Lines, PolygonMode, Rect,
    Topology, Viewport,
};
use crate::engine::counters::Statistic;
use crate::engine::draw::{Stage, VERTEX_RECORD_WORDS};
use crate::engine::multisample::Multisample;
use crate::sass::cubin::KernelImage;
use crate::shader::sph::{Interpolation, OutputTopology, ProgramHeader, attribute};
use crate::shader::{
    CapturedWords, FragmentInterface, GeometryInput, GeometryInterface, GlobalMemory, GuestWindows, PointSize,
    ProgramNeeds, Saturate, TessControlInterface, TessDomain, TessEvalInterface, TessOutput, TessSpacing, Tessellator,
    Translation, UNSWIZZLED, UserClip, VertexInterface, Warps, captured_words, translate_graphics,
    translate_graphics_with,
};
use crate::texture::format::{NumberKind, Unused};
use crate::texture::surface::Surface;
use crate::vulkan::{Buffer, ColorTarget, DrawJob, DrawStage, LineRasterization, Multisampling, StageImages};
use ash::vk;

pub(super) fn unimplemented(what: impl Into<String>) -> BackendError {
    BackendError::Unimplemented { backend: NAME, what: what.into() }
}

/// The host topology of a guest one, and the vertex order when the host lacks it (quads as triangle pairs, line
/// loops closed). A flat-shaded draw goes as a list whose primitives each start with their provoking vertex
/// (`flat_order`), so that Vulkan's first-vertex rule picks the vertex the guest's does.
fn topology(draw: &Draw, flat: bool) -> Result<(vk::PrimitiveTopology, Option<Vec<usize>>), BackendError> {
    let count = draw.vertices.len() / VERTEX_RECORD_WORDS;
    if flat {
        return flat_order(draw.topology, count, draw.provoking_last).map(|(topology, order)| (topology, Some(order)));
    }
    Ok(host_topology(draw.topology, count))
}

/// `topology`'s answer for a draw that is not flat-shaded, of `count` vertices.
fn host_topology(topology: Topology, count: usize) -> (vk::PrimitiveTopology, Option<Vec<usize>>) {
    use vk::PrimitiveTopology as T;
    match topology {
        Topology::Points => (T::POINT_LIST, None),
        Topology::Lines => (T::LINE_LIST, None),
        Topology::LineStrip => (T::LINE_STRIP, None),
        Topology::LineLoop => (T::LINE_STRIP, Some((0..count).chain((count > 0).then_some(0)).collect())),
        Topology::Triangles => (T::TRIANGLE_LIST, None),
        Topology::TriangleStrip => (T::TRIANGLE_STRIP, None),
        // A quad strip's quads are a triangle strip's pairs; an odd last vertex makes no quad (OpenGL's quad
        // strips), where the triangle strip would draw one more triangle with it.
        Topology::QuadStrip => (T::TRIANGLE_STRIP, (count % 2 == 1).then(|| (0..count - 1).collect())),
        Topology::TriangleFan | Topology::Polygon => (T::TRIANGLE_FAN, None),
        Topology::Quads => {
            let order = (0..count / 4).flat_map(|q| [0, 1, 2, 0, 2, 3].map(|k| 4 * q + k)).collect();
            (T::TRIANGLE_LIST, Some(order))
        }
        Topology::Patches => (T::PATCH_LIST, None),
        // Adjacent vertices reach a geometry program; without one they are skipped, on both.
        Topology::LinesAdjacency => (T::LINE_LIST_WITH_ADJACENCY, None),
        Topology::LineStripAdjacency => (T::LINE_STRIP_WITH_ADJACENCY, None),
        Topology::TrianglesAdjacency => (T::TRIANGLE_LIST_WITH_ADJACENCY, None),
        Topology::TriangleStripAdjacency => (T::TRIANGLE_STRIP_WITH_ADJACENCY, None),
    }
}

/// The per-patch words past the six tessellation levels a control program writes (its PerPatchAttributeCount).
fn patch_words(control: &ProgramHeader) -> u32 {
    control.per_patch_words().saturating_sub(6)
}

/// How SET_TESSELLATION_PARAMETERS has the tessellator cut patches: DOMAIN_TYPE 1:0 (ISOLINE, TRIANGLE,
/// QUAD), SPACING 5:4 (INTEGER, FRACTIONAL_ODD, FRACTIONAL_EVEN: open-gpu-doc, deko3d, yuzu and Mesa agree;
/// Ryujinx swaps the two fractional ones), OUTPUT_PRIMITIVES 9:8 (POINTS, LINES, TRIANGLES_CW, TRIANGLES_CCW).
fn tessellator(parameters: u32) -> Result<Tessellator, BackendError> {
    let field = |shift: u32| parameters >> shift & 0b11;
    let bad = |what: &str, value: u32| unimplemented(format!("SET_TESSELLATION_PARAMETERS {what} {value}"));
    Ok(Tessellator {
        domain: match field(0) {
            0 => TessDomain::Isolines,
            1 => TessDomain::Triangles,
            2 => TessDomain::Quads,
            other => return Err(bad("DOMAIN_TYPE", other)),
        },
        spacing: match field(4) {
            0 => TessSpacing::Equal,
            1 => TessSpacing::FractionalOdd,
            2 => TessSpacing::FractionalEven,
            other => return Err(bad("SPACING", other)),
        },
        output: match field(8) {
            0 => TessOutput::Points,
            1 => TessOutput::Lines,
            2 => TessOutput::TrianglesCw,
            _ => TessOutput::TrianglesCcw,
        },
    })
}

/// The primitives of `count` vertices of `topology` as a line or triangle list, each primitive's provoking vertex
/// first and its winding kept (OpenGL's table of provoking vertices, "Flatshading": the first or, with `last`, the
/// last vertex of each line, triangle and quad; a fan's triangle i provokes with vertex i + 1 or i + 2, a quad
/// strip's quad q with 2q or 2q + 3; a polygon always with its first).
fn flat_order(
    topology: Topology,
    count: usize,
    last: bool,
) -> Result<(vk::PrimitiveTopology, Vec<usize>), BackendError> {
    use vk::PrimitiveTopology as T;
    // A primitive, winding kept, rotated so that vertex `provoking` (an index into it) comes first.
    let rotate = |vertices: &[usize], provoking: usize| -> Vec<usize> {
        (0..vertices.len()).map(|k| vertices[(provoking + k) % vertices.len()]).collect()
    };
    let pick = |first: usize, last_index: usize| if last { last_index } else { first };
    let (host, primitives): (T, Vec<Vec<usize>>) = match topology {
        Topology::Points => (T::POINT_LIST, (0..count).map(|i| vec![i]).collect()),
        Topology::Lines => (T::LINE_LIST, (0..count / 2).map(|i| rotate(&[2 * i, 2 * i + 1], pick(0, 1))).collect()),
        Topology::LineStrip | Topology::LineLoop => {
            let segments = match (topology, count) {
                (_, 0 | 1) => 0,
                (Topology::LineLoop, _) => count,
                _ => count - 1,
            };
            (T::LINE_LIST, (0..segments).map(|i| rotate(&[i, (i + 1) % count], pick(0, 1))).collect())
        }
        Topology::Triangles => {
            (T::TRIANGLE_LIST, (0..count / 3).map(|i| rotate(&[3 * i, 3 * i + 1, 3 * i + 2], pick(0, 2))).collect())
        }
        Topology::TriangleStrip => {
            let triangles = count.saturating_sub(2);
            let triangle = |i: usize| {
                // Odd triangles wind the other way; the provoking vertex is i (first) or i + 2 (last).
                if i % 2 == 0 { rotate(&[i, i + 1, i + 2], pick(0, 2)) } else { rotate(&[i + 1, i, i + 2], pick(1, 2)) }
            };
            (T::TRIANGLE_LIST, (0..triangles).map(triangle).collect())
        }
        Topology::TriangleFan => {
            let triangles = count.saturating_sub(2);
            (T::TRIANGLE_LIST, (0..triangles).map(|i| rotate(&[0, i + 1, i + 2], pick(1, 2))).collect())
        }
        Topology::Polygon => {
            let triangles = count.saturating_sub(2);
            (T::TRIANGLE_LIST, (0..triangles).map(|i| vec![0, i + 1, i + 2]).collect())
        }
        Topology::Quads => {
            let quad = |q: usize| {
                let [a, b, c, d] = [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3];
                // Split from the provoking corner, both halves starting there.
                if last { [vec![d, a, b], vec![d, b, c]] } else { [vec![a, b, c], vec![a, c, d]] }
            };
            (T::TRIANGLE_LIST, (0..count / 4).flat_map(quad).collect())
        }
        Topology::QuadStrip => {
            let quad = |q: usize| {
                // Around the quad: 2q, 2q + 1, 2q + 3, 2q + 2; it provokes with 2q (first) or 2q + 3 (last).
                let [a, b, c, d] = [2 * q, 2 * q + 1, 2 * q + 3, 2 * q + 2];
                if last { [vec![c, d, a], vec![c, a, b]] } else { [vec![a, b, c], vec![a, c, d]] }
            };
            (T::TRIANGLE_LIST, (0..count.saturating_sub(2) / 2).flat_map(quad).collect())
        }
        other => return Err(unimplemented(format!("draw {other:?} primitives"))),
    };
    Ok((host, primitives.concat()))
}

/// A viewport and its scissor as Vulkan's. One that was never set (x scale 0) draws nothing: an empty scissor
/// over a placeholder viewport (Vulkan's may not be empty).
fn host_viewport(viewport: &Viewport, depth_zero_to_one: bool) -> Result<(vk::Viewport, vk::Rect2D), BackendError> {
    let [scale_x, scale_y, scale_z] = viewport.scale;
    let [offset_x, offset_y, offset_z] = viewport.offset;
    let scissor = |rect: Rect| vk::Rect2D {
        offset: vk::Offset2D { x: rect.x0 as i32, y: rect.y0 as i32 },
        extent: vk::Extent2D { width: rect.x1 - rect.x0, height: rect.y1 - rect.y0 },
    };
    if scale_x == 0.0 {
        let placeholder = vk::Viewport { width: 1.0, height: 1.0, max_depth: 1.0, ..Default::default() };
        return Ok((placeholder, scissor(Rect { x0: 0, y0: 0, x1: 0, y1: 0 })));
    }
    if scale_x < 0.0 || scale_x.is_nan() {
        return Err(unimplemented(format!("draw with a viewport x scale of {scale_x} (a mirrored viewport)")));
    }
    if viewport.scale.iter().chain(&viewport.offset).any(|value| !value.is_finite()) {
        // What the rasteriser makes of infinite or NaN coordinates is documented nowhere (Vulkan refuses them).
        return Err(unimplemented(format!(
            "draw with a viewport of scale {:?} and offset {:?}, not all finite",
            viewport.scale, viewport.offset
        )));
    }
    let (min_depth, max_depth) =
        if depth_zero_to_one { (offset_z, offset_z + scale_z) } else { (offset_z - scale_z, offset_z + scale_z) };
    let vulkan = vk::Viewport {
        x: offset_x - scale_x,
        y: offset_y - scale_y,
        width: 2.0 * scale_x,
        height: 2.0 * scale_y,
        min_depth: min_depth.clamp(0.0, 1.0),
        max_depth: max_depth.clamp(0.0, 1.0),
    };
    Ok((vulkan, scissor(viewport.scissor)))
}

/// A draw's texels of one target as the host holds them: `layers` layers from `first` of `width` x `height`
/// pixels, rows from the top, each pixel's samples in order (one, or `multisample`'s).
#[derive(Clone, Copy)]
struct TargetGrid<'a> {
    first: u32,
    layers: u32,
    width: u32,
    height: u32,
    multisample: Option<&'a Multisample>,
}

impl TargetGrid<'_> {
    fn samples(&self) -> usize {
        self.multisample.map_or(1, |multisample| multisample.offsets.len())
    }

    /// The surface's texel (x, y, layer) that host texel `index` is: sample s of pixel (x, y) is texel
    /// (x sx + offsets[s].0, y sy + offsets[s].1) of a multisampled target's enlarged surface.
    fn texel(&self, index: usize) -> (u32, u32, u32) {
        let (sample, pixel) = (index % self.samples(), index / self.samples());
        let (x, row) = ((pixel % self.width as usize) as u32, (pixel / self.width as usize) as u32);
        let (y, layer) = (row % self.height, self.first + row / self.height);
        match self.multisample {
            None => (x, y, layer),
            Some(multisample) => {
                let ((sx, sy), (bx, by)) = (multisample.block, multisample.offsets[sample]);
                (x * sx + bx, y * sy + by, layer)
            }
        }
    }
}

/// The most bytes a draw reads of one target (a 16384 x 16384 target of 4-byte texels).
const MAX_TARGET_BYTES: u64 = 1 << 30;

/// The texels of `surface` that `grid` names, in its order.
fn read_texels(surface: &Surface, grid: TargetGrid, memory: &GpuMemory) -> Result<Vec<u8>, BackendError> {
    let bytes = surface.bytes_per_texel as usize;
    let total = [grid.height, grid.width, grid.samples() as u32, surface.bytes_per_texel]
        .into_iter()
        .try_fold(u64::from(grid.layers), |total, n| total.checked_mul(u64::from(n)))
        .filter(|&total| total <= MAX_TARGET_BYTES)
        .ok_or_else(|| {
            unimplemented(format!(
                "a target of {} x {} x {} layers of {} samples and {bytes} bytes, more than the {} MiB the reference \
                 back end draws into",
                grid.width,
                grid.height,
                grid.layers,
                grid.samples(),
                MAX_TARGET_BYTES >> 20
            ))
        })?;
    let mut texels = vec![0u8; total as usize];
    for (index, texel) in texels.chunks_exact_mut(bytes).enumerate() {
        memory.read(texel_address(surface, &grid, index)?, texel)?;
    }
    Ok(texels)
}

/// Where host texel `index` of `grid` lies in `surface`; a typed error where the surface has no such texel (a
/// block shape no layout has, a layer past a pitch surface's one).
fn texel_address(surface: &Surface, grid: &TargetGrid, index: usize) -> Result<u64, BackendError> {
    let (x, y, layer) = grid.texel(index);
    surface.texel_address(x, y, layer).ok_or_else(|| {
        BackendError::BadTexture(format!("target texel ({x}, {y}, layer {layer}) lies outside its surface"))
    })
}

/// The bits of `after` that differ from `before` (the texels of `grid`, as `read_texels` gives them), into
/// `surface`; every other bit keeps what memory holds now.
/// A target's masked channels never change, so where two targets are one texture (Maxwell behaviour 1.10) each
/// writes only the channels it enabled, whatever the other wrote before it.
fn write_texels(
    surface: &Surface,
    grid: TargetGrid,
    before: &[u8],
    after: &[u8],
    memory: &GpuMemory,
) -> Result<(), BackendError> {
    let bytes = surface.bytes_per_texel as usize;
    let mut texel = vec![0u8; bytes];
    for (index, (old, new)) in before.chunks_exact(bytes).zip(after.chunks_exact(bytes)).enumerate() {
        if old != new {
            let address = texel_address(surface, &grid, index)?;
            memory.read(address, &mut texel)?;
            for ((now, old), new) in texel.iter_mut().zip(old).zip(new) {
                *now ^= (*now ^ new) & (old ^ new);
            }
            memory.write(address, &texel)?;
        }
    }
    Ok(())
}

/// Captured words stored per drawn vertex (`per_vertex` each, in the host's vertex order) as the guest's
/// vertices had them: vertex v's are those of the first host vertex that was v (`order` names them; `None`: the
/// same order). A vertex the host never drew is in no whole primitive, so stream output never writes its zeros.
fn in_vertex_order(words: &[u32], per_vertex: usize, order: Option<&[usize]>, vertices: usize) -> Vec<u32> {
    let Some(order) = order else { return words.to_vec() };
    let mut ordered = vec![0; vertices * per_vertex];
    let mut seen = vec![false; vertices];
    for (host, &vertex) in order.iter().enumerate() {
        if !std::mem::replace(&mut seen[vertex], true) {
            ordered[vertex * per_vertex..(vertex + 1) * per_vertex]
                .copy_from_slice(&words[host * per_vertex..(host + 1) * per_vertex]);
        }
    }
    ordered
}

/// The most bytes one draw's stream output records take on the device.
const MAX_CAPTURE_BYTES: u64 = 1 << 30;

/// The records a capturing geometry program has room for (`GeometryInterface::capture`) when it runs for at most
/// `primitives` input primitives.
fn geometry_records(primitives: u32, header: &ProgramHeader) -> u64 {
    u64::from(primitives) * u64::from(header.invocations()) * u64::from(header.max_output_vertices())
}

/// The strips a capturing geometry program emitted, from its records (`GeometryInterface::capture`): input
/// primitive after primitive, invocation after invocation, each invocation's strips in the order it began them
/// (each vertex stream's in the order it cut them).
fn emitted_strips(records: &[u32], per_vertex: usize, header: &ProgramHeader) -> Vec<Captured> {
    let topology = match header.output_topology() {
        Some(OutputTopology::Points) => Topology::Points,
        Some(OutputTopology::LineStrip) => Topology::LineStrip,
        // (A header naming no topology does not translate.)
        Some(OutputTopology::TriangleStrip) | None => Topology::TriangleStrip,
    };
    let record_words = 1 + per_vertex;
    let mut strips: Vec<Captured> = Vec::new();
    let max_vertices = header.max_output_vertices() as usize;
    for invocation in records.chunks_exact(record_words * max_vertices.max(1)) {
        // The strip each vertex stream's vertices go on: its number, and its place in `strips`.
        let mut open: [Option<(u32, usize)>; 4] = [None; 4];
        for record in invocation.chunks_exact(record_words).take_while(|record| record[0] != 0) {
            let (stream, number) = (record[0] >> 30, record[0] & 0x3fff_ffff);
            let place = match open[stream as usize] {
                Some((open_number, place)) if open_number == number => place,
                _ => {
                    strips.push(Captured { topology, stream: stream as u8, words: Vec::new() });
                    open[stream as usize] = Some((number, strips.len() - 1));
                    strips.len() - 1
                }
            };
            strips[place].words.extend_from_slice(&record[1..]);
        }
    }
    strips
}

impl ReferenceBackend {
    /// Lines as the device draws them (Maxwell behaviour 5.4): aliased ones by OpenGL's rule (Vulkan's Bresenham
    /// lines), the device's own lines where it lacks them, logged once; anti-aliased ones as smooth rectangles.
    /// A width the device cannot draw becomes the nearest it can, as in OpenGL.
    fn lines(&mut self, lines: Lines, stipple: Option<LineStipple>) -> LineRasterization {
        use vk::LineRasterizationModeEXT as Mode;
        let drawable = |width: f32| match self.device.features().wide_lines {
            Some([min, max]) => width.clamp(min, max),
            None => width,
        };
        let mut line = match lines {
            Lines::Aliased { width } => {
                let bresenham = self.device.features().bresenham_lines;
                if !bresenham && !std::mem::replace(&mut self.warned_about_lines, true) {
                    tracing::warn!(
                        device = %self.device.name(),
                        "no bresenhamLines (VK_EXT_line_rasterization): aliased lines drawn as the device draws lines"
                    );
                }
                let mode = if bresenham { Mode::BRESENHAM } else { Mode::DEFAULT };
                LineRasterization { width: width as f32, mode, stipple: None }
            }
            Lines::Smooth { width } => LineRasterization { width, mode: Mode::RECTANGULAR_SMOOTH, stipple: None },
        };
        line.stipple = stipple.map(|stipple| (stipple.factor, stipple.pattern));
        line.width = drawable(line.width);
        line
    }

    /// A geometry program's invocations, output vertices and their components within the device's limits (the
    /// components: position, four for each generic handed on, the layer and viewport index where written).
    fn geometry_fits(&self, geometry: &GeometryInterface) -> Result<(), BackendError> {
        let Some([invocations, vertices, components]) = self.device.features().geometry_shader else {
            return Err(unimplemented(format!(
                "geometry programs on {}, which lacks geometryShader",
                self.device.name()
            )));
        };
        let header = &geometry.header;
        let generics = (geometry.next_stage_reads | header.generics_written()).count_ones();
        let per_vertex =
            4 + 4 * generics + u32::from(geometry.layer) + u32::from(header.writes(attribute::VIEWPORT_INDEX));
        for (what, value, limit) in [
            ("invocations a primitive", header.invocations(), invocations),
            ("output vertices", header.max_output_vertices(), vertices),
            ("output components in all", header.max_output_vertices() * per_vertex, components),
        ] {
            if value > limit {
                return Err(unimplemented(format!(
                    "a geometry program of {value} {what} on {}, which draws {limit} at most",
                    self.device.name()
                )));
            }
        }
        Ok(())
    }

    /// A graphics stage translated, with the textures it reads decoded (their number kinds decide the
    /// translation's sampled types) and the surfaces it reaches read.
    fn translate_stage(
        &mut self,
        draw: &Draw,
        (stage, kernel, needs): (&Stage, &KernelImage, &ProgramNeeds),
        (interface, flag): (crate::shader::Stage, vk::ShaderStageFlags),
        global: &GlobalMemory,
        memory: &GpuMemory,
    ) -> Result<(Translation, Vec<DecodedSlot>, BoundSurfaces), BackendError> {
        let source = TextureSource {
            program: stage.address,
            constant_buffers: &stage.constant_buffers,
            texture_buffer: draw.texture_buffer,
            pools: draw.texture_pools,
        };
        let textures = self.textures(&source, &needs.textures, memory)?;
        let views: Vec<_> = textures.iter().map(|texture| texture.view()).collect();
        let local = stage.header.local_memory_bytes();
        let mut translation = translate_graphics(kernel, interface, local, global, &views)?;
        if translation.subgroup_votes && !self.device.features().vote_stages.contains(flag) {
            // The device has no subgroup votes in this stage: each invocation votes as a warp of its own.
            tracing::debug!("warp votes in a {flag:?} program on {}: each invocation alone", self.device.name());
            translation = translate_graphics_with(kernel, interface, local, global, &views, Warps::Lone)?;
        }
        let surfaces = self.surfaces(&source, &translation.surfaces, memory)?;
        Ok((translation, textures, surfaces))
    }

    /// Buffers holding the constant buffers a translation reads, in its binding order (a slot nothing is bound
    /// to reads zeros).
    fn stage_banks(
        &self,
        translation: &Translation,
        stage: &Stage,
        memory: &GpuMemory,
    ) -> Result<Vec<Buffer>, BackendError> {
        let mut banks = Vec::new();
        for &bank in &translation.constant_banks {
            let bound = stage.constant_buffers.get(usize::from(bank)).copied().flatten();
            let size = bound.map_or(16, |buffer| buffer.size.max(4)).next_multiple_of(4);
            let buffer = self.device.buffer(u64::from(size)).map_err(failed)?;
            if let Some(bound) = bound {
                let mut bytes = vec![0u8; bound.size as usize];
                memory.read(bound.address, &mut bytes)?;
                self.device.write(&buffer, 0, &bytes).map_err(failed)?;
            }
            banks.push(buffer);
        }
        Ok(banks)
    }

    pub(super) fn draw(&mut self, draw: &Draw, memory: &GpuMemory) -> Result<Drawn, BackendError> {
        let fragment_header = draw.fragment_shader.header;
        let mut targets = [None; 8];
        let mut swizzles = UNSWIZZLED;
        for target in &draw.targets {
            targets[target.output as usize] = Some(target.format.kind.number_kind());
            swizzles[target.output as usize] = host_swizzle(&target.format);
        }
        if draw.alpha_test.is_some() && targets[0].is_some_and(|kind| kind != NumberKind::Float) {
            return Err(unimplemented("draw with the alpha test on an integer render target 0"));
        }
        // Dual-source blending (Maxwell behaviour 5.6): colour output 1 is the second source of output 0's
        // target, the only one that may blend with it (Vulkan's maxFragmentDualSrcAttachments is 1 at least).
        let mut dual_source = false;
        for target in &draw.targets {
            let Some(state) = &target.blend else { continue };
            if !guest_blend(state)?.reads_second_source() {
                continue;
            }
            if target.output != 0 {
                return Err(unimplemented(format!("dual-source blending on colour output {}", target.output)));
            }
            if targets[1].is_some() {
                return Err(unimplemented("dual-source blending with a colour target at output 1"));
            }
            dual_source = true;
        }
        let mut fragment = FragmentInterface {
            header: fragment_header,
            targets,
            alpha_test: draw.alpha_test.map(|(comparison, reference)| (comparison, reference.to_bits())),
            saturate: Saturate::from_register(draw.ps_saturate),
            dual_source,
            swizzles,
            // Set below, once the rasteriser's primitives are known.
            point_coord: None,
            polygon_stipple: None,
            window_clip: draw.window_clip,
            sample_mask: draw.ps_sample_mask,
            early_fragment_tests: draw.early_fragment_tests,
            post_depth_coverage: draw.post_depth_coverage,
            quad_sample_masks: draw.multisample.and_then(|multisample| multisample.quad_masks),
        };
        let flat = (0..32).any(|g| (0..4).any(|c| fragment_header.interpolation(g, c) == Interpolation::Constant));
        // Geometry and tessellation programs see the primitives in the guest's order; the vertices they make
        // are provoked as Vulkan provokes them (the first of each), which the guest's rule is only when it is the
        // first too.
        let reshaped = draw.geometry_shader.is_some() || draw.tessellation.is_some();
        if flat && reshaped && draw.provoking_last {
            return Err(unimplemented(
                "flat-shaded inputs after a geometry or tessellation program with the provoking vertex last",
            ));
        }
        let (topology, order) = topology(draw, flat && !reshaped)?;
        let tessellator =
            draw.tessellation.as_ref().map(|tessellation| tessellator(tessellation.parameters)).transpose()?;
        let mut geometry = draw.geometry_shader.as_ref().map(|stage| GeometryInterface {
            header: stage.header,
            input: match (tessellator.map(|tessellator| tessellator.output), topology) {
                (Some(TessOutput::Points), _) | (None, vk::PrimitiveTopology::POINT_LIST) => GeometryInput::Points,
                (Some(TessOutput::Lines), _)
                | (None, vk::PrimitiveTopology::LINE_LIST | vk::PrimitiveTopology::LINE_STRIP) => GeometryInput::Lines,
                (
                    None,
                    vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY | vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY,
                ) => GeometryInput::LinesAdjacency,
                (
                    None,
                    vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY
                    | vk::PrimitiveTopology::TRIANGLE_STRIP_WITH_ADJACENCY,
                ) => GeometryInput::TrianglesAdjacency,
                _ => GeometryInput::Triangles,
            },
            next_stage_reads: fragment.generics_read(),
            depth_minus_one_to_one: !draw.depth_zero_to_one,
            user_clip: draw.user_clip,
            layer: draw.program_layer,
            // Set below, once the rasteriser's primitives are known.
            point_size: None,
            capture: draw.capture,
            raster_stream: draw.raster_stream,
        });
        if let Some(geometry) = &geometry {
            self.geometry_fits(geometry)?;
        }
        // What the rasteriser takes: the geometry program's output primitives, else the tessellator's, else the
        // draw's.
        let (points, lines) = match (geometry.as_ref().map(|g| g.header.output_topology()), tessellator) {
            (Some(output), _) => (output == Some(OutputTopology::Points), output == Some(OutputTopology::LineStrip)),
            (None, Some(tessellator)) => {
                (tessellator.output == TessOutput::Points, tessellator.output == TessOutput::Lines)
            }
            (None, None) => (
                topology == vk::PrimitiveTopology::POINT_LIST,
                matches!(
                    topology,
                    vk::PrimitiveTopology::LINE_LIST
                        | vk::PrimitiveTopology::LINE_STRIP
                        | vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY
                        | vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY
                ),
            ),
        };
        // Triangles in the line or point polygon mode rasterise as lines or points.
        let polygon_mode = match draw.polygon_mode {
            _ if points || lines => vk::PolygonMode::FILL,
            PolygonMode::Fill => vk::PolygonMode::FILL,
            PolygonMode::Line => vk::PolygonMode::LINE,
            PolygonMode::Point => vk::PolygonMode::POINT,
        };
        let rasterizes_points = points || polygon_mode == vk::PolygonMode::POINT;
        let rasterizes_lines = lines || polygon_mode == vk::PolygonMode::LINE;
        // Points take the program's size where it writes one and SET_ATTRIBUTE_POINT_SIZE says so, else
        // SET_POINT_SIZE (Maxwell behaviour 5.3); the host needs PointSize written either way.
        let last_header = match (&draw.geometry_shader, &draw.tessellation) {
            (Some(geometry), _) => geometry.header,
            (None, Some(tessellation)) => tessellation.evaluation.header,
            (None, None) => draw.vertex_shader.header,
        };
        let features = self.device.features();
        let (clip, cull) = (draw.user_clip.clip.count_ones(), draw.user_clip.cull.count_ones());
        if (clip > 0 && !features.clip_distances)
            || (cull > 0 && !features.cull_distances)
            || clip + cull > features.max_clip_and_cull_distances
        {
            return Err(unimplemented(format!(
                "{clip} user clip and {cull} cull planes on {} (shaderClipDistance, shaderCullDistance, \
                 maxCombinedClipAndCullDistances)",
                self.device.name()
            )));
        }
        if draw.conservative.is_some() && (rasterizes_points || rasterizes_lines) {
            return Err(unimplemented("conservative rasterisation of points and lines"));
        }
        if draw.smooth_points && rasterizes_points {
            return Err(unimplemented("anti-aliased points (SET_ANTI_ALIASED_POINT)"));
        }
        if polygon_mode == vk::PolygonMode::POINT && draw.point_sprite.is_some() {
            return Err(unimplemented("point sprites of triangles drawn in the point polygon mode"));
        }
        fragment.point_coord = draw.point_sprite.filter(|_| rasterizes_points);
        // The stipple is for filled triangles only.
        fragment.polygon_stipple = draw.polygon_stipple.filter(|_| !rasterizes_points && !rasterizes_lines);
        if draw.post_depth_coverage && !draw.early_fragment_tests {
            // As OpenGL's post_depth_coverage, which implies early tests; the hardware's rule is not documented.
            return Err(unimplemented(
                "the coverage after the depth and stencil tests (SET_POST_Z_PS_IMASK) with those tests after the \
                 pixel program (SET_API_MANDATED_EARLY_Z off)",
            ));
        }
        if draw.post_depth_coverage && !self.device.features().post_depth_coverage {
            return Err(unimplemented(format!(
                "the coverage after the depth and stencil tests (SET_POST_Z_PS_IMASK) on {}, which lacks \
                 VK_EXT_post_depth_coverage",
                self.device.name()
            )));
        }
        let fixed_function_kills = fragment.polygon_stipple.is_some()
            || fragment.window_clip.is_some()
            || fragment.quad_sample_masks.is_some();
        if draw.early_fragment_tests && fixed_function_kills {
            // The hardware's come before the tests; here the pixel program kills or masks, after early ones.
            return Err(unimplemented(
                "the polygon stipple, window clip rectangles or sample masks that differ within a quad with the depth \
                 and stencil tests before the pixel program (SET_API_MANDATED_EARLY_Z)",
            ));
        }
        let point_size = rasterizes_points.then(|| {
            if draw.program_point_size && last_header.writes(attribute::POINT_SIZE) {
                PointSize::Program
            } else {
                PointSize::Fixed(draw.point_size.to_bits())
            }
        });
        // Points from a geometry or tessellation program are 1 pixel unless the device lets those stages write
        // PointSize, which they then must.
        let sized_after_reshaping = self.device.features().tessellation_geometry_point_size;
        if point_size.is_some_and(|size| size != PointSize::Fixed(1.0f32.to_bits())) {
            if polygon_mode == vk::PolygonMode::POINT {
                // Vulkan sizes them by PointSize only where the device says so (`polygonModePointSize`).
                return Err(unimplemented(
                    "points of other sizes than 1 from triangles drawn in the point polygon mode",
                ));
            }
            if reshaped && !sized_after_reshaping {
                return Err(unimplemented(format!(
                    "points of other sizes than 1 from a geometry or tessellation program on {}, which lacks \
                     shaderTessellationAndGeometryPointSize",
                    self.device.name()
                )));
            }
            if !self.device.features().large_points {
                return Err(unimplemented(format!(
                    "points of other sizes than 1 on {}, which lacks largePoints",
                    self.device.name()
                )));
            }
        }
        let reshaped_point_size = point_size.filter(|_| sized_after_reshaping);
        if let Some(geometry) = &mut geometry {
            geometry.point_size = reshaped_point_size;
        }
        // Each stage hands on the generics the next one reads; the last before the rasteriser moves z into
        // Vulkan's clip range, sizes points and picks the layer.
        let reads = |header: &ProgramHeader| header.generics_read();
        let after_tessellation = geometry.as_ref().map_or(fragment.generics_read(), |g| reads(&g.header));
        let tessellation = match (&draw.tessellation, tessellator) {
            (Some(tessellation), Some(tessellator)) => Some((
                TessControlInterface {
                    header: tessellation.control.header,
                    patch_vertices: tessellation.patch_vertices,
                    next_stage_reads: reads(&tessellation.evaluation.header),
                    patch_words: patch_words(&tessellation.control.header),
                },
                TessEvalInterface {
                    header: tessellation.evaluation.header,
                    patch_vertices: tessellation.control.header.invocations(),
                    patch_words: patch_words(&tessellation.control.header),
                    tessellator,
                    next_stage_reads: after_tessellation,
                    depth_minus_one_to_one: geometry.is_none() && !draw.depth_zero_to_one,
                    layer: geometry.is_none() && draw.program_layer,
                    point_size: reshaped_point_size.filter(|_| geometry.is_none()),
                    user_clip: if geometry.is_none() { draw.user_clip } else { UserClip::default() },
                },
            )),
            _ => None,
        };
        let vertex = VertexInterface {
            header: draw.vertex_shader.header,
            next_stage_reads: match (&tessellation, &geometry) {
                (Some((control, _)), _) => reads(&control.header),
                (None, Some(geometry)) => reads(&geometry.header),
                (None, None) => fragment.generics_read(),
            },
            depth_minus_one_to_one: !reshaped && !draw.depth_zero_to_one,
            point_size: if reshaped { None } else { point_size },
            layer: !reshaped && draw.program_layer,
            // A geometry program captures what it emits instead.
            capture: if geometry.is_some() { CapturedWords::default() } else { draw.capture },
            user_clip: if reshaped { UserClip::default() } else { draw.user_clip },
        };
        // The stages in the order the pipeline runs them, with what each is translated for.
        use crate::shader::Stage as Interface;
        let mut stages = vec![(&draw.vertex_shader, Interface::Vertex(&vertex), vk::ShaderStageFlags::VERTEX)];
        if let (Some(programs), Some((control, evaluation))) = (&draw.tessellation, &tessellation) {
            let control_stage = vk::ShaderStageFlags::TESSELLATION_CONTROL;
            stages.push((&programs.control, Interface::TessControl(control), control_stage));
            let evaluation_stage = vk::ShaderStageFlags::TESSELLATION_EVALUATION;
            stages.push((&programs.evaluation, Interface::TessEval(evaluation), evaluation_stage));
        }
        if let (Some(stage), Some(geometry)) = (&draw.geometry_shader, &geometry) {
            stages.push((stage, Interface::Geometry(geometry), vk::ShaderStageFlags::GEOMETRY));
        }
        stages.push((&draw.fragment_shader, Interface::Fragment(&fragment), vk::ShaderStageFlags::FRAGMENT));
        let kernels: Vec<KernelImage> = stages
            .iter()
            .map(|(stage, ..)| KernelImage {
                name: format!("shader@{:#x}", stage.address),
                isa: stage.isa,
                code: stage.code.clone(),
                constants: Vec::new(),
                shared_bytes: 0,
                origin: stage.origin,
            })
            .collect();
        let needs = kernels.iter().map(|kernel| self.program_needs(kernel)).collect::<Result<Vec<_>, _>>()?;
        // Vulkan counts the primitives that reach the rasteriser, which are stream 0's only while the geometry
        // program emits on no other stream and the rasteriser takes stream 0.
        let geometry_streams = stages
            .iter()
            .zip(&needs)
            .find(|((_, interface, _), _)| matches!(interface, Interface::Geometry(_)))
            .map_or(0, |(_, needs)| needs.streams);
        let counts_streams = [Statistic::GeometryShaderPrimitives, Statistic::PrimitivesOut]
            .iter()
            .find(|statistic| draw.statistics.contains(statistic));
        if let Some(statistic) = counts_streams.filter(|_| geometry_streams & !1 != 0 || draw.raster_stream != 0) {
            return Err(unimplemented(format!(
                "counting {statistic:?} of a geometry program emitting on vertex streams {geometry_streams:#b} with \
                 the rasteriser taking stream {}",
                draw.raster_stream
            )));
        }
        // Programs that reach global memory (storage buffers, as NVN gives them) see the guest's mapped ranges,
        // as compute grids do; the bytes they change go back after the draw.
        let features = self.device.features();
        for (needs, (.., flag)) in needs.iter().zip(&stages) {
            let (has, feature) = match *flag {
                vk::ShaderStageFlags::FRAGMENT => (features.fragment_stores, "fragmentStoresAndAtomics"),
                _ => (features.vertex_stores, "vertexPipelineStoresAndAtomics"),
            };
            if needs.global_memory && !has {
                return Err(unimplemented(format!(
                    "graphics programs that reach global memory on {}, which lacks {feature}",
                    self.device.name()
                )));
            }
        }
        let captured_per_vertex = captured_words(&draw.capture).count();
        if captured_per_vertex > 0 && !features.vertex_stores {
            return Err(unimplemented(format!(
                "stream output on {}, which lacks vertexPipelineStoresAndAtomics (the vertex stage stores what it \
                 captures)",
                self.device.name()
            )));
        }
        let (mirrors, windows) = if needs.iter().any(|needs| needs.global_memory) {
            self.mirror_guest_memory(memory)?
        } else {
            (Vec::new(), Vec::new())
        };
        let fault = self.fault_buffer()?;
        let global = GlobalMemory::Guest(GuestWindows { windows, fault: fault.address() });
        let mut translated = Vec::new();
        for (((stage, interface, flag), kernel), needs) in stages.iter().zip(&kernels).zip(&needs) {
            let (translation, textures, surfaces) =
                self.translate_stage(draw, (stage, kernel, needs), (*interface, *flag), &global, memory)?;
            if translation.quad_operations && !self.device.features().fragment_quads {
                return Err(unimplemented(format!(
                    "a pixel program's quad operations (derivatives: SHFL within quads, FSWZADD) on {}, which has no \
                     subgroup quad operations in fragment shaders",
                    self.device.name()
                )));
            }
            let banks = self.stage_banks(&translation, stage, memory)?;
            translated.push((translation, textures, surfaces, banks));
        }

        let mut records = Vec::new();
        match &order {
            Some(order) => {
                for &vertex in order {
                    records.extend_from_slice(
                        &draw.vertices[vertex * VERTEX_RECORD_WORDS..(vertex + 1) * VERTEX_RECORD_WORDS],
                    );
                }
            }
            None => records.extend_from_slice(&draw.vertices),
        }
        let vertex_count = (records.len() / VERTEX_RECORD_WORDS) as u32;
        let record_bytes: Vec<u8> = records.iter().flat_map(|word| word.to_le_bytes()).collect();
        let record_buffer = self.device.buffer(record_bytes.len().max(4) as u64).map_err(failed)?;
        self.device.write(&record_buffer, 0, &record_bytes).map_err(failed)?;

        let (width, height) = (draw.width, draw.height);
        let grid = |first: u32| TargetGrid {
            first,
            layers: draw.layers,
            width,
            height,
            multisample: draw.multisample.as_ref(),
        };
        let mut befores = Vec::new();
        for target in &draw.targets {
            befores.push(read_texels(&target.surface, grid(target.layer), memory)?);
        }
        // A Z or O format's unused bits (the host's alpha) go up as ones, and every fragment that writes the
        // texel makes them zeros (`fills_unused`): what comes back says which texels the draw wrote.
        let uploads: Vec<Vec<u8>> = draw
            .targets
            .iter()
            .zip(&befores)
            .map(|(target, before)| match target.format.unused {
                Unused::Kept => before.clone(),
                _ => marked_unused(&target.format, before),
            })
            .collect();
        let mut color_targets = Vec::new();
        for (target, texels) in draw.targets.iter().zip(&uploads) {
            let format = vulkan_format(&target.format)
                .ok_or_else(|| unimplemented(format!("draw to render targets of format {}", target.format.name)))?;
            // Components the shader does not output keep their texels (Maxwell behaviour 1.1), as do an X
            // format's unused bits.
            let written = fragment_header.target_components(target.output);
            let swizzle = host_swizzle(&target.format);
            let mut write_mask = vk::ColorComponentFlags::empty();
            for (host, flag) in [
                vk::ColorComponentFlags::R,
                vk::ColorComponentFlags::G,
                vk::ColorComponentFlags::B,
                vk::ColorComponentFlags::A,
            ]
            .into_iter()
            .enumerate()
            {
                let c = usize::from(swizzle[host]);
                if target.write[c] && written[c] && target.format.channels[c].1 > 0 {
                    write_mask |= flag;
                }
            }
            let mut blend = blend(target.blend.as_ref(), &target.format)?;
            if target.format.unused != Unused::Kept && !write_mask.is_empty() {
                write_mask |= vk::ColorComponentFlags::A;
                blend = Some(fills_unused(blend));
            }
            color_targets.push(ColorTarget {
                format,
                bytes_per_texel: u64::from(target.format.bytes),
                texels,
                write_mask,
                blend,
            });
        }
        // The depth bounds test on a device without depthBounds is done here: where the draw writes no depth
        // or stencil and counts no samples, a sample the test discards would change nothing, and the depth it
        // tests is the one stored before the draw, so putting back each texel outside the bounds is the test.
        let bounds_here = match &draw.depth_stencil {
            Some(zeta) if zeta.bounds.is_some() && !self.device.features().depth_bounds => {
                if zeta.depth_write || zeta.stencil.is_some() || draw.count_samples {
                    return Err(unimplemented(format!(
                        "draw with the depth bounds test and depth writes, the stencil test or sample counting on \
                         {}, which lacks depthBounds",
                        self.device.name()
                    )));
                }
                zeta.bounds
            }
            _ => None,
        };
        let zeta = match draw.depth_stencil {
            Some(zeta) => {
                let before = read_texels(&zeta.surface, grid(zeta.layer), memory)?;
                let host = self.split_depth(&zeta, &before, draw.multisample.is_some())?;
                let on_host = DepthStencil { bounds: if bounds_here.is_some() { None } else { zeta.bounds }, ..zeta };
                Some((on_host, before, host))
            }
            None => None,
        };
        let mut viewports = Vec::new();
        let mut scissors = Vec::new();
        for viewport in &draw.viewports {
            let (vulkan, scissor) = host_viewport(viewport, draw.depth_zero_to_one)?;
            viewports.push(vulkan);
            scissors.push(scissor);
        }
        let bindings: Vec<Vec<&Buffer>> = translated.iter().map(|(.., banks)| banks.iter().collect()).collect();
        // The records' address, then where the last stage before the rasteriser stores the words stream output
        // captures: a record a vertex, or a geometry program's records (`GeometryInterface::capture`) for as
        // many input primitives as there are vertices, which is at least as many as there are primitives.
        let capture_bytes = match &geometry {
            _ if captured_per_vertex == 0 => 0,
            Some(geometry) => geometry_records(vertex_count, &geometry.header) * 4 * (1 + captured_per_vertex as u64),
            None => u64::from(vertex_count) * 4 * captured_per_vertex as u64,
        };
        if capture_bytes > MAX_CAPTURE_BYTES {
            return Err(unimplemented(format!(
                "stream output of {capture_bytes} bytes of vertices in one draw (at most {MAX_CAPTURE_BYTES})"
            )));
        }
        let capture_buffer =
            if capture_bytes == 0 { None } else { Some(self.device.buffer(capture_bytes).map_err(failed)?) };
        let mut push_constants = record_buffer.address().to_le_bytes().to_vec();
        if let Some(buffer) = &capture_buffer {
            push_constants.extend_from_slice(&buffer.address().to_le_bytes());
        }
        let slots: Vec<Vec<_>> =
            translated.iter().map(|(_, textures, ..)| textures.iter().map(DecodedSlot::slot).collect()).collect();
        let job = DrawJob {
            stages: translated
                .iter()
                .zip(&bindings)
                .zip(&slots)
                .zip(&stages)
                .map(|((((translation, _, surfaces, _), buffers), slots), (_, interface, stage))| DrawStage {
                    stage: *stage,
                    set: interface.descriptor_set(),
                    spirv: &translation.spirv,
                    buffers,
                    textures: slots,
                    images: StageImages { images: &surfaces.images, bindings: &surfaces.bindings },
                })
                .collect(),
            push_constants: &push_constants,
            width,
            height,
            targets: color_targets,
            depth: match &zeta {
                Some((zeta, _, host)) => Some(self.depth_attachment(zeta, host)?),
                None => None,
            },
            topology,
            patch_vertices: draw.tessellation.as_ref().map(|tessellation| tessellation.patch_vertices),
            vertex_count,
            instance_count: 1,
            viewports,
            scissors,
            cull_mode: match draw.cull {
                Cull::None => vk::CullModeFlags::NONE,
                Cull::Front => vk::CullModeFlags::FRONT,
                Cull::Back => vk::CullModeFlags::BACK,
                Cull::Both => vk::CullModeFlags::FRONT_AND_BACK,
            },
            polygon_mode,
            front_face: if draw.front_ccw { vk::FrontFace::COUNTER_CLOCKWISE } else { vk::FrontFace::CLOCKWISE },
            blend_constants: draw.blend_constant,
            logic_op: draw.logic_op.map(|op| vk::LogicOp::from_raw(i32::from(op.0))),
            depth_clamp: draw.depth_clamp,
            count_samples: draw.count_samples,
            statistics: draw
                .statistics
                .iter()
                .filter_map(|&statistic| pipeline_statistic(statistic))
                .fold(vk::QueryPipelineStatisticFlags::empty(), |flags, flag| flags | flag),
            count_primitives_generated: draw.statistics.contains(&Statistic::PrimitivesOut),
            lines: rasterizes_lines.then(|| self.lines(draw.lines, draw.line_stipple)),
            rasterizer_discard: !draw.rasterize,
            conservative: draw.conservative,
            layers: draw.layers,
            multisample: draw.multisample.map(|multisample| Multisampling {
                alpha_to_coverage: multisample.alpha_to_coverage,
                alpha_to_one: multisample.alpha_to_one,
                samples: multisample.samples(),
                mask: multisample.mask,
                min_sample_shading: multisample.min_sample_shading,
            }),
        };
        let drawn = self.device.draw(&job).map_err(failed)?;
        if self.faulted(fault)? {
            // The first stage that reaches global memory.
            let faulting = needs.iter().position(|needs| needs.global_memory).unwrap_or(0);
            return Err(BackendError::ShaderFault { program: stages[faulting].0.address });
        }
        self.write_back_mirrors(&mirrors, memory)?;
        // The surfaces' texels the stages changed, in pipeline order (a texel several store to ends as the last
        // of them left it).
        let mut after = drawn.images.into_iter();
        for (_, _, surfaces, ..) in &mut translated {
            for (image, texels) in surfaces.images.iter_mut().zip(after.by_ref()) {
                image.texels = texels;
            }
        }
        for (_, _, surfaces, _) in &translated {
            self.write_back_surfaces(surfaces, memory)?;
        }
        let outside = match (bounds_here, &zeta) {
            (Some(bounds), Some((zeta, before, _))) => Some(super::depth::outside_bounds(&zeta.format, before, bounds)),
            _ => None,
        };
        for ((target, before), after) in draw.targets.iter().zip(&befores).zip(&drawn.targets) {
            let filled;
            let after = match target.format.unused {
                Unused::Kept => after,
                _ => {
                    filled = filled_unused(&target.format, before, after);
                    &filled
                }
            };
            match &outside {
                Some(outside) => {
                    let bytes = target.format.bytes as usize;
                    let mut kept = after.clone();
                    for (texel, _) in outside.iter().enumerate().filter(|(_, outside)| **outside) {
                        let at = texel * bytes..(texel + 1) * bytes;
                        kept[at.clone()].copy_from_slice(&before[at]);
                    }
                    write_texels(&target.surface, grid(target.layer), before, &kept, memory)?;
                }
                None => write_texels(&target.surface, grid(target.layer), before, after, memory)?,
            }
        }
        if let Some((zeta, before, host)) = &zeta {
            let after = super::depth::merge(&zeta.format, host.format, before, &drawn.depth, &drawn.stencil);
            write_texels(&zeta.surface, grid(zeta.layer), before, &after, memory)?;
        }
        let captured = match &capture_buffer {
            Some(buffer) => {
                let bytes = self.device.read(buffer).map_err(failed)?;
                let words: Vec<u32> =
                    bytes.chunks_exact(4).map(|word| u32::from_le_bytes(word.try_into().expect("four"))).collect();
                match &geometry {
                    Some(geometry) => emitted_strips(&words, captured_per_vertex, &geometry.header),
                    None => vec![Captured {
                        topology: draw.topology,
                        stream: 0,
                        words: in_vertex_order(
                            &words,
                            captured_per_vertex,
                            order.as_deref(),
                            draw.vertices.len() / VERTEX_RECORD_WORDS,
                        ),
                    }],
                }
            }
            None => Vec::new(),
        };
        let mut pipeline_statistics = drawn.statistics.into_iter();
        let statistics = draw
            .statistics
            .iter()
            .map(|&statistic| match statistic {
                Statistic::PrimitivesOut => drawn.primitives_generated,
                // GS_INVOCATIONS is the geometry program's input primitives times its invocations (Vulkan's
                // definition, which lavapipe departs from: it counts each input primitive once). Without
                // tessellation the input primitives are the draw's own, so the count is made here, the same on
                // every device.
                Statistic::GeometryShaderInvocations if draw.tessellation.is_none() => {
                    let host = pipeline_statistics.next().unwrap_or_default();
                    let primitives = draw.topology.primitives((draw.vertices.len() / VERTEX_RECORD_WORDS) as u64);
                    geometry.as_ref().map_or(host, |geometry| primitives * u64::from(geometry.header.invocations()))
                }
                _ => pipeline_statistics.next().unwrap_or_default(),
            })
            .collect();
        Ok(Drawn { samples_passed: drawn.samples_passed, statistics, captured })
    }
}

/// Vulkan's pipeline statistic that is `statistic` (whose flags' order is `Statistic::ALL`'s, so that a query's
/// counts come in `Draw::statistics`' order), if it is one.
fn pipeline_statistic(statistic: Statistic) -> Option<vk::QueryPipelineStatisticFlags> {
    use vk::QueryPipelineStatisticFlags as Flag;
    Some(match statistic {
        Statistic::VertexShaderInvocations => Flag::VERTEX_SHADER_INVOCATIONS,
        Statistic::GeometryShaderInvocations => Flag::GEOMETRY_SHADER_INVOCATIONS,
        Statistic::GeometryShaderPrimitives => Flag::GEOMETRY_SHADER_PRIMITIVES,
        Statistic::ClipperInvocations => Flag::CLIPPING_INVOCATIONS,
        Statistic::ClipperPrimitives => Flag::CLIPPING_PRIMITIVES,
        Statistic::PixelShaderInvocations => Flag::FRAGMENT_SHADER_INVOCATIONS,
        Statistic::TessellationInitInvocations => Flag::TESSELLATION_CONTROL_SHADER_PATCHES,
        Statistic::TessellationShaderInvocations => Flag::TESSELLATION_EVALUATION_SHADER_INVOCATIONS,
        Statistic::PrimitivesOut => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each primitive starts with the vertex OpenGL's provoking-vertex table names (0-based here), and the
    /// triangles wind as the guest's do (a rotation of each, strips' odd ones turned).
    #[test]
    fn flat_primitives_start_with_their_provoking_vertex() {
        let order = |topology, count, last| flat_order(topology, count, last).unwrap().1;
        assert_eq!(order(Topology::Triangles, 6, true), [2, 0, 1, 5, 3, 4]);
        assert_eq!(order(Topology::Triangles, 3, false), [0, 1, 2]);
        assert_eq!(order(Topology::TriangleStrip, 5, true), [2, 0, 1, 3, 2, 1, 4, 2, 3]);
        assert_eq!(order(Topology::TriangleStrip, 4, false), [0, 1, 2, 1, 3, 2]);
        assert_eq!(order(Topology::TriangleFan, 4, false), [1, 2, 0, 2, 3, 0]);
        assert_eq!(order(Topology::TriangleFan, 4, true), [2, 0, 1, 3, 0, 2]);
        assert_eq!(order(Topology::Quads, 4, true), [3, 0, 1, 3, 1, 2]);
        assert_eq!(order(Topology::QuadStrip, 4, true), [3, 2, 0, 3, 0, 1]);
        assert_eq!(order(Topology::QuadStrip, 4, false), [0, 1, 3, 0, 3, 2]);
        assert_eq!(order(Topology::Polygon, 5, true), [0, 1, 2, 0, 2, 3, 0, 3, 4]);
        assert_eq!(order(Topology::LineLoop, 3, true), [1, 0, 2, 1, 0, 2]);
        assert_eq!(order(Topology::LineStrip, 3, false), [0, 1, 1, 2]);
    }

    /// A quad strip of n vertices has (n - 2) / 2 quads (OpenGL 4.6 compatibility, 10.1.10): an odd last vertex
    /// draws nothing, and three vertices no quad at all.
    #[test]
    fn quad_strips_leave_an_odd_last_vertex_out() {
        assert_eq!(host_topology(Topology::QuadStrip, 4).1, None);
        assert_eq!(host_topology(Topology::QuadStrip, 5).1, Some(vec![0, 1, 2, 3]));
        assert_eq!(host_topology(Topology::QuadStrip, 3).1, Some(vec![0, 1]));
    }
}
