//! The interpreter's surface unit: what SULD, SUST, SURED and SUATOM (`sass::surface::SurfaceInstruction`) do for one
//! lane, on surfaces whose texels lie packed in global memory (layers, slices, rows and texels in order), so that
//! stores land where the launch's other accesses and its caller see them.

use super::ops::{access_bytes, atomic_op, stored_value, write_loaded};
use crate::sass::surface::{Edge, SurfaceData, SurfaceInstruction, SurfaceOperation};
use crate::shader::ir::TextureDim;

/// A surface's texel format: unsigned integer channels of one width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceFormat {
    pub channels: u32,
    pub channel_bytes: u32,
}

impl SurfaceFormat {
    pub fn texel_bytes(self) -> u32 {
        self.channels * self.channel_bytes
    }
}

/// A surface a launch reaches: its shape and where its texels are.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    pub dim: TextureDim,
    /// Width, height and depth in texels (1 where the shape has no such coordinate).
    pub size: [u32; 3],
    pub layers: u32,
    pub format: SurfaceFormat,
    /// The global memory address of its first texel.
    pub address: u64,
}

/// Runs `s` on the `active` lanes of `step`'s warp, lane by lane in order, and moves them to the next instruction
/// (a failure stops the launch, the lanes still at the instruction).
pub(super) fn run_warp(s: &SurfaceInstruction, step: &mut super::Step, active: u32) -> Result<(), String> {
    for i in super::ops::lanes(active) {
        let lane = &mut step.warp.lanes[i];
        let handle = super::texture::handle(s.handle, step.textures, step.cbufs, lane);
        let surface = step
            .textures
            .surfaces
            .get((handle & 0xf_ffff) as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| format!("surface header {:#x}, which the launch does not bind", handle & 0xf_ffff))?;
        run_lane(s, surface, step.memory, lane)?;
    }
    for i in super::ops::lanes(active) {
        step.warp.lanes[i].pc += 1;
    }
    Ok(())
}

/// Bytes one access moves.
fn access_size(s: &SurfaceInstruction, format: SurfaceFormat) -> u64 {
    match s.data {
        SurfaceData::Raw { size } => access_bytes(size) as u64,
        SurfaceData::Formatted { .. } => u64::from(format.texel_bytes()),
    }
}

/// The address of the lane's access, or `None` when `Edge::Zero` drops it.
fn address(s: &SurfaceInstruction, surface: &Surface, lane: &super::Lane) -> Result<Option<u64>, String> {
    let texel = u64::from(surface.format.texel_bytes());
    let bytes = access_size(s, surface.format);
    let row = u64::from(surface.size[0]) * texel;
    let coordinate = |k: usize| i64::from(lane.reg(s.coordinates[k]) as i32);
    let x = if s.byte_addressed { coordinate(0) } else { coordinate(0) * texel as i64 };
    // Each coordinate's range: x in bytes (the whole access inside the row), then y, z or the layer.
    let mut ranges = vec![(x, row.saturating_sub(bytes) as i64)];
    let shape = s.dim.coordinates();
    for k in 1..shape {
        ranges.push((coordinate(k), i64::from(surface.size[k]) - 1));
    }
    if s.array {
        ranges.push((coordinate(shape), i64::from(surface.layers) - 1));
    }
    let mut position = [0u64; 4];
    for (k, &(value, last)) in ranges.iter().enumerate() {
        if (0..=last).contains(&value) {
            position[k] = value as u64;
            continue;
        }
        match s.edge {
            Edge::Zero => return Ok(None),
            Edge::Clamp => position[k] = value.clamp(0, last.max(0)) as u64,
            Edge::Trap => return Err("an access past the surface's edge with .TRAP, which faults on the GPU".into()),
        }
    }
    let [x, y, third, layer] = match (s.dim, s.array) {
        (TextureDim::D1, true) => [position[0], 0, 0, position[1]],
        (_, true) => [position[0], position[1], 0, position[2]],
        _ => position,
    };
    let [_, height, depth] = surface.size.map(u64::from);
    let slices = layer * depth + third;
    Ok(Some(surface.address + (slices * height + y) * row + x))
}

/// One lane's access.
fn run_lane(
    s: &SurfaceInstruction,
    surface: &Surface,
    memory: &mut super::GlobalMemory,
    lane: &mut super::Lane,
) -> Result<(), String> {
    let bytes = access_size(s, surface.format) as usize;
    let Some(at) = address(s, surface, lane)? else {
        // Dropped: loads and atomics read zeros.
        match s.operation {
            SurfaceOperation::Load => {
                for k in 0..s.data_registers() {
                    lane.set_reg(s.data_register + k, 0);
                }
            }
            SurfaceOperation::Atomic { result: Some(result), .. } | SurfaceOperation::CompareSwap { result } => {
                lane.set_reg(result, 0);
            }
            _ => {}
        }
        return Ok(());
    };
    let outside = || format!("surface texels at {at:#x}, outside global memory");
    let texels = memory.slice(at, bytes).ok_or_else(outside)?;
    match (s.operation, s.data) {
        (SurfaceOperation::Load, SurfaceData::Raw { size }) => {
            write_loaded(lane, s.data_register, size, super::load(texels, 0, bytes).ok_or_else(outside)?);
        }
        (SurfaceOperation::Store, SurfaceData::Raw { size }) => {
            super::store(texels, 0, bytes, stored_value(lane, s.data_register, size));
        }
        (SurfaceOperation::Store, SurfaceData::Formatted { mask }) => {
            if surface.format.channel_bytes != 4 {
                return Err("formatted stores to channels narrower than 32 bits".into());
            }
            // Component i from the next register of the mask's, into channel i if the format has one.
            let components = (0..4).filter(|c| mask >> c & 1 == 1);
            for (register, component) in (s.data_register..).zip(components) {
                if component < surface.format.channels {
                    let at = 4 * u64::from(component);
                    super::store(texels, at, 4, u128::from(lane.reg(register)));
                }
            }
        }
        (SurfaceOperation::Atomic { op, signed, result }, _) => {
            let old = super::load(texels, 0, 4).ok_or_else(outside)? as u64;
            let new = atomic_op(op, u64::from(signed), old, u64::from(lane.reg(s.data_register)));
            super::store(texels, 0, 4, u128::from(new));
            if let Some(result) = result {
                lane.set_reg(result, old as u32);
            }
        }
        (SurfaceOperation::CompareSwap { result }, _) => {
            let old = super::load(texels, 0, 4).ok_or_else(outside)? as u32;
            if old == lane.reg(s.data_register) {
                super::store(texels, 0, 4, u128::from(lane.reg(s.data_register + 1)));
            }
            lane.set_reg(result, old);
        }
        (SurfaceOperation::Load, SurfaceData::Formatted { mask }) => {
            // Component i of the mask's into the next register: channel i, zero-extended (the channels are
            // unsigned integers); 0 where the format has no such channel, alpha 1, as Vulkan's reads give them.
            let format = surface.format;
            let components = (0..4).filter(|c| mask >> c & 1 == 1);
            for (register, component) in (s.data_register..).zip(components) {
                let value = match component {
                    c if c < format.channels => {
                        let at = u64::from(c * format.channel_bytes);
                        super::load(texels, at, format.channel_bytes as usize).ok_or_else(outside)? as u32
                    }
                    3 => 1,
                    _ => 0,
                };
                lane.set_reg(register, value);
            }
        }
    }
    Ok(())
}
