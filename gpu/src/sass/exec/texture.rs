//! The interpreter's texture unit: what TEX, TLD, TLD4, TXD and TXQ (`sass::texture::TextureInstruction`) give
//! one lane, from textures of four 32-bit numbers a texel, as the Vulkan specification's texel selection
//! describes it (nearest texels, nearest levels, cube face selection, gather footprints, texel offsets, clamped
//! or repeating addressing, depth compares). What it does not do yet (linear filtering, unnormalized coordinates,
//! other addressing, multisample fetches of arrays) stops the launch naming it. A multisampled texture is a 2D
//! array of a layer a sample.

use crate::sass::texture::{HandleSource, Level, Operation, TextureInstruction};
use crate::shader::ir::TextureDim;
use crate::texture::descriptor::Comparison;

/// The textures a launch reads, by the handle's header index (bits 19:0), and the samplers by its sampler index
/// (bits 31:20).
#[derive(Debug, Default, Clone)]
pub struct Textures {
    pub headers: Vec<Option<TextureImage>>,
    pub samplers: Vec<Option<Sampler>>,
    /// The constant bank bound instructions (Maxwell's `Slot` handles) read: compute grids' texture buffer.
    pub slot_bank: u8,
    /// The surfaces surface instructions reach, by the handle's header index (bits 19:0).
    pub surfaces: Vec<Option<super::Surface>>,
}

/// A texture's texels: levels in order, each level's layers (a cube's six faces a layer), slices, rows and
/// texels in order, four 32-bit numbers each.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureImage {
    pub dim: TextureDim,
    /// Level 0's width, height and depth (1 but for 3D).
    pub size: [u32; 3],
    /// The header is an array's (of one layer or more).
    pub array: bool,
    /// Layers as the image holds them (a cube's faces included).
    pub layers: u32,
    pub levels: u32,
    pub texels: Vec<[u32; 4]>,
}

/// How a texture is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampler {
    pub linear: bool,
    pub wrap: Wrap,
    /// Depth-compare samples compare their reference with the texel so (`reference OP texel`).
    pub compare: Option<Comparison>,
    pub normalized: bool,
}

/// Where coordinates outside the texture land, on every axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    ClampToEdge,
    Repeat,
}

/// CUDA's point sampling.
impl Default for Sampler {
    fn default() -> Sampler {
        Sampler::POINT_CLAMP
    }
}

impl Sampler {
    /// Point filtering, nearest levels, clamped to the edge, normalized coordinates: CUDA's point sampling.
    pub const POINT_CLAMP: Sampler =
        Sampler { linear: false, wrap: Wrap::ClampToEdge, compare: None, normalized: true };
    /// nxgpucatch's: deko3d's default sampler with nearest filters and levels: repeating, normalized, comparing
    /// `reference < texel` (it enables the compare for depth textures only).
    pub const NXGPUCATCH: Sampler =
        Sampler { linear: false, wrap: Wrap::Repeat, compare: Some(Comparison::Less), normalized: true };

    /// The texel index `n` (which may lie outside) of an axis of `size` texels lands on: a cube's faces clamp to
    /// their edges whatever the sampler says, as Vulkan's cube maps do.
    fn wrap(&self, dim: TextureDim, n: i64, size: u32) -> i64 {
        match self.wrap {
            Wrap::Repeat if dim != TextureDim::Cube => n.rem_euclid(i64::from(size)),
            _ => n.clamp(0, i64::from(size) - 1),
        }
    }
}

/// Whether `reference OP texel` holds.
fn compares(comparison: Comparison, reference: f32, texel: f32) -> bool {
    match comparison {
        Comparison::Never => false,
        Comparison::Less => reference < texel,
        Comparison::Equal => reference == texel,
        Comparison::LessOrEqual => reference <= texel,
        Comparison::Greater => reference > texel,
        Comparison::NotEqual => reference != texel,
        Comparison::GreaterOrEqual => reference >= texel,
        Comparison::Always => true,
    }
}

impl TextureImage {
    fn extent(&self, level: u32) -> [u32; 3] {
        self.size.map(|n| (n >> level).max(1))
    }

    /// The texel at (x, y, z) of layer `layer` of level `level`, or `None` outside the image.
    fn texel(&self, level: u32, layer: u32, [x, y, z]: [i64; 3]) -> Option<[u32; 4]> {
        let [w, h, d] = self.extent(level);
        let inside = |n: i64, size: u32| (0..i64::from(size)).contains(&n);
        if level >= self.levels || layer >= self.layers || !inside(x, w) || !inside(y, h) || !inside(z, d) {
            return None;
        }
        let level_start: u64 = (0..level)
            .map(|l| self.extent(l).iter().map(|&n| u64::from(n)).product::<u64>() * u64::from(self.layers))
            .sum();
        let slice = u64::from(w) * u64::from(h);
        let index = level_start
            + u64::from(layer) * slice * u64::from(d)
            + z as u64 * slice
            + y as u64 * u64::from(w)
            + x as u64;
        self.texels.get(index as usize).copied()
    }
}

/// What one lane's texture instruction gives: the chosen components in order.
fn execute(t: &TextureInstruction, textures: &Textures, handle: u32, operands: &[u32]) -> Result<Vec<u32>, String> {
    let image = textures
        .headers
        .get((handle & 0xf_ffff) as usize)
        .and_then(Option::as_ref)
        .ok_or_else(|| format!("texture header {:#x}, which the launch does not bind", handle & 0xf_ffff))?;
    let sampler = *textures
        .samplers
        .get((handle >> 20) as usize)
        .and_then(Option::as_ref)
        .ok_or_else(|| format!("sampler {:#x}, which the launch does not bind", handle >> 20))?;
    if sampler.linear || !sampler.normalized {
        return Err("samplers other than point filtering with normalized coordinates".into());
    }
    let count = t.dim.coordinates();
    // The layer of an array: the low 16 bits of its first operand (TXD's comes after the coordinates), as a
    // Tegra X1 reads TEXS ARRAY_2D with layer 0x3f800000 from layer 0 (nxgpucatch's texs.cpp).
    let layer = t.array.then(|| operands[0] & 0xffff);
    let texel = match t.operation {
        // A read of another dimension than the header's reads zeros, as on a Tegra X1 (nxgpucatch's tex.cpp and
        // texs.cpp: 2D of a 1D array or of a 3D texture, a cube of a 2D array, 1D of a 2D texture).
        _ if t.dim != image.dim && !matches!(t.operation, Operation::Size) => [0; 4],
        Operation::Read { fetch: true, level, offsets, last, .. } => {
            if last && t.array {
                return Err("multisample fetches of arrays".into());
            }
            let first = usize::from(t.array);
            let mut rest = operands[first + count..].iter().copied();
            // A level past the last reads zeros, as TLD.CL does on an H200 (`TextureImage::texel`).
            let level = if level == Level::Explicit { rest.next().unwrap_or(0) } else { 0 };
            let packed = if offsets { rest.next().unwrap_or(0) } else { 0 };
            let offsets = texel_offsets(packed, count);
            let mut position = [0i64; 3];
            for k in 0..count {
                position[k] = i64::from(operands[first + k] as i32) + offsets[k];
            }
            // A multisampled texture is held as a 2D array of a layer a sample (as the translation reads one):
            // the sample index, last, is the layer.
            let layer = if last { rest.next().unwrap_or(0) } else { layer.unwrap_or(0) };
            image.texel(level, layer, position).unwrap_or([0; 4])
        }
        Operation::Read { fetch: false, level, offsets, last, .. } => {
            let first = usize::from(t.array);
            let mut rest = operands[first + count..].iter().copied();
            // A compute thread's quad has no derivatives: its implicit level of detail is -inf, whatever the bias
            // (a Tegra X1 samples level 0 for TEX.LB and TEX.LBA with a bias of 2, nxgpucatch's tex.cpp).
            let lod = match level {
                Level::Implicit | Level::Zero => 0.0,
                Level::Bias => {
                    rest.next();
                    0.0
                }
                Level::Explicit => f32::from_bits(rest.next().unwrap_or(0)),
            };
            let packed = if offsets { rest.next().unwrap_or(0) } else { 0 };
            let coordinates: Vec<f32> = operands[first..first + count].iter().map(|&c| f32::from_bits(c)).collect();
            let level = nearest_level(image, lod);
            let texel = sample(image, &sampler, t.dim, layer, &coordinates, level, texel_offsets(packed, count));
            if last {
                // A depth compare gives the comparison's 1.0 or 0.0 in R, G and B, and 1.0 in A, as a Tegra X1's
                // TEX.DC and TEXS.DC do (nxgpucatch's tex.cpp and texs.cpp).
                let comparison =
                    sampler.compare.ok_or("a depth-compare sample through a sampler that does not compare")?;
                let reference = f32::from_bits(rest.next().unwrap_or(0));
                let passed = compares(comparison, reference, f32::from_bits(texel[0]));
                let c = if passed { 1.0f32 } else { 0.0 }.to_bits();
                [c, c, c, 1.0f32.to_bits()]
            } else {
                texel
            }
        }
        Operation::Gather { component, offset_registers, compare } => {
            let first = usize::from(t.array);
            let coordinates: Vec<f32> = operands[first..first + count].iter().map(|&c| f32::from_bits(c)).collect();
            let rest = &operands[first + count..];
            let offsets = match offset_registers {
                0 => GatherOffsets::One([0, 0]),
                1 => GatherOffsets::One(gather_offset(rest[0])),
                // PTP: pair k in word k / 2, the high half for odd k.
                _ => GatherOffsets::PerTexel(std::array::from_fn(|k| gather_offset(rest[k / 2] >> (16 * (k % 2))))),
            };
            let texels = gather(image, &sampler, t.dim, layer, &coordinates, offsets)?;
            match compare {
                // A compare gathers the depths' comparisons, whatever the component (nxgpucatch's tld4.cpp).
                true => {
                    let comparison =
                        sampler.compare.ok_or("a depth-compare gather through a sampler that does not compare")?;
                    let reference = f32::from_bits(rest[offset_registers]);
                    texels.map(|texel| {
                        if compares(comparison, reference, f32::from_bits(texel[0])) { 1.0f32 } else { 0.0 }.to_bits()
                    })
                }
                false => texels.map(|texel| texel[usize::from(component)]),
            }
        }
        Operation::Gradients => {
            if !matches!(t.dim, TextureDim::D1 | TextureDim::D2) {
                return Err("gradients on 3D and cube textures".into());
            }
            let coordinates: Vec<f32> = operands[..count].iter().map(|&c| f32::from_bits(c)).collect();
            let layer = t.array.then(|| operands[count] & 0xffff);
            let derivatives: Vec<f32> =
                operands[count + usize::from(t.array)..].iter().map(|&c| f32::from_bits(c)).collect();
            // Vulkan's scale factor: the longer of the footprint's x and y steps, in texels of level 0.
            let [w, h, _] = image.extent(0);
            let step = |y: usize| {
                let du = derivatives[y] * w as f32;
                let dv = if count > 1 { derivatives[2 + y] * h as f32 } else { 0.0 };
                (du * du + dv * dv).sqrt()
            };
            let lod = step(0).max(step(1)).log2();
            sample(image, &sampler, t.dim, layer, &coordinates, nearest_level(image, lod), [0; 3])
        }
        Operation::Size => {
            let level = operands[0];
            if level >= image.levels {
                [0, 0, 0, image.levels]
            } else {
                let [w, h, d] = image.extent(level);
                // The coordinates the texture has, then its layers (a 1D array's in y), as a Tegra X1 answers
                // (nxgpucatch's txq.cpp) and the translation's size query gives it.
                let (w, h, third) = match image.dim {
                    TextureDim::D1 if image.array => (w, image.layers, 0),
                    TextureDim::D1 => (w, 0, 0),
                    TextureDim::D3 => (w, h, d),
                    TextureDim::Cube => (w, h, if image.array { image.layers / 6 } else { 0 }),
                    TextureDim::D2 => (w, h, if image.array { image.layers } else { 0 }),
                };
                [w, h, third, image.levels]
            }
        }
    };
    Ok((0..4).filter(|c| t.mask >> c & 1 == 1).map(|c| texel[c]).collect())
}

/// The level a sample at level of detail `lod` reads: the nearest (a tie rounds down, as Vulkan's
/// `ceil(lod + 0.5) - 1`), clamped to the texture's levels.
fn nearest_level(image: &TextureImage, lod: f32) -> u32 {
    let lod = lod.clamp(0.0, image.levels.saturating_sub(1) as f32);
    ((lod + 0.5).ceil() - 1.0).max(0.0) as u32
}

/// Where normalized coordinates land: the image layer (a cube's face included) and the coordinates on it.
fn place(image: &TextureImage, dim: TextureDim, layer: Option<u32>, coordinates: &[f32]) -> (u32, Vec<f32>) {
    let layer = layer.unwrap_or(0);
    if dim != TextureDim::Cube {
        return (layer.min(image.layers.saturating_sub(1)), coordinates.to_vec());
    }
    // Vulkan's cube map face selection: the major axis picks the face; sc and tc over it give the coordinates.
    let [x, y, z] = [coordinates[0], coordinates[1], coordinates[2]];
    let (face, sc, tc, major) = if z.abs() >= x.abs() && z.abs() >= y.abs() {
        if z >= 0.0 { (4, x, -y, z) } else { (5, -x, -y, z) }
    } else if y.abs() >= x.abs() {
        if y >= 0.0 { (2, x, z, y) } else { (3, x, -z, y) }
    } else if x >= 0.0 {
        (0, -z, -y, x)
    } else {
        (1, z, -y, x)
    };
    let major = major.abs();
    let faces = image.layers / 6;
    (6 * layer.min(faces.saturating_sub(1)) + face, vec![0.5 * (sc / major) + 0.5, 0.5 * (tc / major) + 0.5])
}

/// AOFFI's texel offsets of `count` coordinates: 4-bit signed x, y and z in bits 3:0, 7:4 and 11:8 of `packed`.
fn texel_offsets(packed: u32, count: usize) -> [i64; 3] {
    std::array::from_fn(|k| if k < count { i64::from(((packed << (28 - 4 * k)) as i32) >> 28) } else { 0 })
}

/// A point sample of level `level`, `offsets` texels from where the coordinates land (before wrapping, as
/// Vulkan's ConstOffset).
fn sample(
    image: &TextureImage,
    sampler: &Sampler,
    dim: TextureDim,
    layer: Option<u32>,
    coordinates: &[f32],
    level: u32,
    offsets: [i64; 3],
) -> [u32; 4] {
    let (layer, coordinates) = place(image, dim, layer, coordinates);
    let extent = image.extent(level);
    let mut position = [0i64; 3];
    for (k, &c) in coordinates.iter().enumerate() {
        let size = extent[k];
        position[k] = sampler.wrap(dim, (c * size as f32).floor() as i64 + offsets[k], size);
    }
    image.texel(level, layer, position).unwrap_or([0; 4])
}

/// Where a gather's texels come from: one footprint moved by offsets (none: zero), or per texel (PTP) the
/// (i0, j0) texel of the footprint moved by that texel's offsets (GLSL's textureGatherOffsets).
enum GatherOffsets {
    One([i64; 2]),
    PerTexel([[i64; 2]; 4]),
}

/// A gather offset pair: signed 6-bit x and y in bits 5:0 and 13:8.
fn gather_offset(pair: u32) -> [i64; 2] {
    [pair as u8 as i8, (pair >> 8) as u8 as i8].map(|o| i64::from((o << 2) >> 2))
}

/// A gather from level 0's 2x2 footprint around the coordinates: the texels (i0, j1), (i1, j1), (i1, j0),
/// (i0, j0), each wrapped as the sampler says.
fn gather(
    image: &TextureImage,
    sampler: &Sampler,
    dim: TextureDim,
    layer: Option<u32>,
    coordinates: &[f32],
    offsets: GatherOffsets,
) -> Result<[[u32; 4]; 4], String> {
    if !matches!(dim, TextureDim::D2 | TextureDim::Cube) {
        return Err("1D and 3D gathers".into());
    }
    let (layer, coordinates) = place(image, dim, layer, coordinates);
    let [w, h, _] = image.extent(0);
    let corner = |c: f32, size: u32, offset: i64| (c * size as f32 - 0.5).floor() as i64 + offset;
    // Texel k of the footprint moved by `offset`.
    let texel = |k: usize, [di, dj]: [i64; 2]| {
        let (i0, j0) = (corner(coordinates[0], w, di), corner(coordinates[1], h, dj));
        let (i, j) = [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)][k];
        let position = [sampler.wrap(dim, i, w), sampler.wrap(dim, j, h), 0];
        image.texel(0, layer, position).unwrap_or([0; 4])
    };
    Ok(match offsets {
        GatherOffsets::One(offset) => std::array::from_fn(|k| texel(k, offset)),
        GatherOffsets::PerTexel(offsets) => offsets.map(|offset| texel(3, offset)),
    })
}

/// Runs `t` on the `active` lanes of `step`'s warp and moves them to the next instruction (a failure stops the
/// launch, the lanes still at the instruction).
pub(super) fn run_warp(t: &TextureInstruction, step: &mut super::Step, active: u32) -> Result<(), String> {
    for i in super::ops::lanes(active) {
        run_lane(t, step.textures, step.cbufs, &mut step.warp.lanes[i])?;
    }
    for i in super::ops::lanes(active) {
        step.warp.lanes[i].pc += 1;
    }
    Ok(())
}

/// Runs `t` for one lane: its operands and handle from the lane's registers and the constant buffers, the
/// results into its registers. Err: what the texture unit does not do.
fn run_lane(
    t: &TextureInstruction,
    textures: &Textures,
    cbufs: &super::ConstantBuffers,
    lane: &mut super::Lane,
) -> Result<(), String> {
    let operands: Vec<u32> = t.sources.iter().map(|&r| lane.reg(r)).collect();
    let values = execute(t, textures, handle(t.handle, textures, cbufs, lane), &operands)?;
    if let Some(fault) = t.fault {
        lane.set_pred(fault, false);
    }
    if t.half {
        let words = half_pairs(&values);
        for (value, register) in words.into_iter().zip([t.destinations[0], t.destinations[2]]) {
            lane.set_reg(register, value);
        }
    } else {
        for (value, register) in values.into_iter().zip(t.destinations) {
            lane.set_reg(register, value);
        }
    }
    Ok(())
}

/// The handle a lane's texture or surface instruction names.
pub(super) fn handle(
    source: HandleSource,
    textures: &Textures,
    cbufs: &super::ConstantBuffers,
    lane: &super::Lane,
) -> u32 {
    match source {
        HandleSource::Constant { bank, offset } => cbufs.read_u32(u64::from(bank), u64::from(offset)),
        HandleSource::Slot(offset) => cbufs.read_u32(u64::from(textures.slot_bank), u64::from(offset)),
        HandleSource::Register(register) => lane.reg(register),
    }
}

/// FP32 values as FP16 (to nearest even), packed in pairs, the first in the low half (a missing high half 0).
fn half_pairs(values: &[u32]) -> Vec<u32> {
    let half = |bits: u32| {
        super::float::float_to_float(u64::from(bits), 2, 1, super::float::rounding(0), false) as u32 & 0xffff
    };
    values.chunks(2).map(|pair| half(pair[0]) | pair.get(1).map_or(0, |&high| half(high) << 16)).collect()
}
