//! The copy engines, `MAXWELL_DMA_COPY_A` (B0B5, open-gpu-doc `classes/dma-copy/clb0b5.h`) and the Switch 2's
//! `AMPERE_DMA_COPY_B` (C7B5, `clc7b5.h`: the same methods at the same offsets, LAUNCH_DMA with a few more
//! fields): copies between pitch and block-linear surfaces in GPU memory, with an optional component remap (which
//! also makes it the driver's memset: every destination component from a constant), then an optional semaphore
//! release.
//!
//! Units: without remap an element is one byte; with it, a source element is `NUM_SRC_COMPONENTS` components of
//! `COMPONENT_SIZE` bytes and a destination element `NUM_DST_COMPONENTS` of them, and `LINE_LENGTH_IN`, the
//! surfaces' widths and origins' X count elements.

use super::{Class, Context, EngineError, Method};
use crate::mmu::MmuError;
use crate::texture::block_linear::BlockLinear;

pub const SET_SEMAPHORE_A: u32 = 0x240;
pub const SET_SEMAPHORE_B: u32 = 0x244;
pub const SET_SEMAPHORE_PAYLOAD: u32 = 0x248;
pub const LAUNCH_DMA: u32 = 0x300;
pub const OFFSET_IN_UPPER: u32 = 0x400;
pub const OFFSET_IN_LOWER: u32 = 0x404;
pub const OFFSET_OUT_UPPER: u32 = 0x408;
pub const OFFSET_OUT_LOWER: u32 = 0x40c;
pub const PITCH_IN: u32 = 0x410;
pub const PITCH_OUT: u32 = 0x414;
pub const LINE_LENGTH_IN: u32 = 0x418;
pub const LINE_COUNT: u32 = 0x41c;
pub const SET_REMAP_CONST_A: u32 = 0x700;
pub const SET_REMAP_CONST_B: u32 = 0x704;
pub const SET_REMAP_COMPONENTS: u32 = 0x708;
pub const SET_DST_BLOCK_SIZE: u32 = 0x70c;
pub const SET_SRC_BLOCK_SIZE: u32 = 0x728;

/// Offsets of a surface's registers from its SET_*_BLOCK_SIZE: width, height, depth, layer, origin.
const WIDTH: u32 = 4;
const HEIGHT: u32 = 8;
const DEPTH: u32 = 12;
const LAYER: u32 = 16;
const ORIGIN: u32 = 20;

/// The engine's registers (its method space up to the source surface's origin).
pub struct CopyEngine {
    /// `Class::Copy` (Maxwell) or `Class::AmpereCopy`.
    class: Class,
    registers: Vec<u32>,
}

impl Default for CopyEngine {
    fn default() -> CopyEngine {
        CopyEngine::new(Class::Copy)
    }
}

/// The most bytes one launch moves (a bad size should not exhaust the host's memory or time).
const MAX_COPY_BYTES: u64 = 1 << 30;

/// How many elements of a line a copy between block-linear or remapped surfaces moves at a time: their bytes are
/// read and written in runs of consecutive GPU addresses, one MMU walk a run (a GOB row holds 16 in a run).
const CHUNK_ELEMENTS: u64 = 4096;

/// One side of a copy: where its elements are.
enum Surface {
    Pitch { base: u64, pitch: u64 },
    BlockLinear { base: u64, layout: BlockLinear, origin: (u32, u32), layer: u32 },
}

impl Surface {
    /// The GPU address of byte `byte` of element `x` of line `y`; `None` outside a block-linear surface, or past
    /// 2^64.
    fn address(&self, x: u64, y: u64, element_size: u64, byte: u64) -> Option<u64> {
        match *self {
            Surface::Pitch { base, pitch } => {
                base.checked_add(y.checked_mul(pitch)?)?.checked_add(x * element_size + byte)
            }
            Surface::BlockLinear { base, layout, origin, layer } => {
                let column = u32::try_from((u64::from(origin.0) + x) * element_size + byte).ok()?;
                let row = u32::try_from(u64::from(origin.1) + y).ok()?;
                base.checked_add(layout.offset(column, row, layer)?)
            }
        }
    }
}

impl CopyEngine {
    fn register(&self, offset: u32) -> u32 {
        self.registers.get(offset as usize / 4).copied().unwrap_or(0)
    }

    fn address(&self, upper: u32) -> u64 {
        u64::from(self.register(upper) & 0xff) << 32 | u64::from(self.register(upper + 4))
    }

    pub fn new(class: Class) -> CopyEngine {
        CopyEngine { class, registers: vec![0; 0x740 / 4] }
    }

    pub fn call(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = Method { class: self.class, offset };
        if let Some(register) = self.registers.get_mut(offset as usize / 4) {
            *register = argument;
        }
        match offset {
            LAUNCH_DMA => self.launch(method, argument, context),
            // NOP, PM_TRIGGER: nothing to do.
            0x100 | 0x140 => Ok(()),
            _ if (offset as usize / 4) < self.registers.len() => Ok(()),
            _ => Err(method.unimplemented("")),
        }
    }

    /// The surface of one side: `block_size` is its SET_*_BLOCK_SIZE register, `base` its address.
    fn surface(
        &self,
        method: Method,
        pitch_layout: bool,
        base: u64,
        pitch: u32,
        block_size_register: u32,
        element_size: u64,
    ) -> Result<Surface, EngineError> {
        if pitch_layout {
            return Ok(Surface::Pitch { base, pitch: u64::from(pitch) });
        }
        let block_size = self.register(block_size_register);
        // WIDTH 3:0 must be one GOB; GOB_HEIGHT 15:12 must be Fermi's 8 rows (Tesla's 4 is another chip's).
        if block_size & 0xf != 0 || block_size >> 12 & 0xf != 1 {
            return Err(method.unimplemented(format!("block shape {block_size:#x} (only one-GOB-wide, 8-row GOBs)")));
        }
        let width = u64::from(self.register(block_size_register + WIDTH)) * element_size;
        let layout = BlockLinear::new(
            u32::try_from(width).map_err(|_| method.bad_argument(block_size, "surface wider than 4 GiB"))?,
            self.register(block_size_register + HEIGHT),
            self.register(block_size_register + DEPTH).max(1),
            block_size >> 4 & 0xf,
            block_size >> 8 & 0xf,
        )
        .ok_or_else(|| method.bad_argument(block_size, "block height or depth above 32 GOBs"))?;
        let origin = self.register(block_size_register + ORIGIN);
        Ok(Surface::BlockLinear {
            base,
            layout,
            origin: (origin & 0xffff, origin >> 16),
            layer: self.register(block_size_register + LAYER),
        })
    }

    /// LAUNCH_DMA: DATA_TRANSFER_TYPE 1:0 (0: none), SEMAPHORE_TYPE 4:3, SRC/DST_MEMORY_LAYOUT 7, 8 (1 pitch),
    /// MULTI_LINE_ENABLE 9, REMAP_ENABLE 10, SRC/DST_TYPE 12, 13 (1 physical), SEMAPHORE_REDUCTION_ENABLE 19;
    /// C7B5's VPRMODE 23:22 (protected memory) and SEMAPHORE_PAYLOAD_SIZE 27 (64 bits) are refused by name, its
    /// flush and L2 hints (FLUSH_TYPE 25, DISABLE_PLC 26) change nothing here.
    fn launch(&mut self, method: Method, launch: u32, context: &mut Context) -> Result<(), EngineError> {
        if launch >> 12 & 3 != 0 {
            return Err(method.unimplemented("physical addresses (SRC_TYPE/DST_TYPE)"));
        }
        if self.class == Class::AmpereCopy && launch >> 22 & 3 != 0 {
            return Err(method.unimplemented("copies of protected memory (VPRMODE)"));
        }
        if self.class == Class::AmpereCopy && launch >> 27 & 1 != 0 {
            return Err(method.unimplemented("64-bit semaphore payloads (SEMAPHORE_PAYLOAD_SIZE)"));
        }
        // SEMAPHORE_TYPE 4:3 (NONE 0), with SEMAPHORE_REDUCTION_ENABLE 19: refused before the copy runs.
        let semaphore = launch >> 3 & 3;
        if semaphore != 0 && launch >> 19 & 1 == 1 {
            return Err(method.unimplemented("semaphore reductions"));
        }
        if semaphore == 3 && self.class == Class::AmpereCopy {
            return Err(method.unimplemented("SEMAPHORE_TYPE RELEASE_CONDITIONAL_INTR_SEMAPHORE"));
        }
        if launch & 3 != 0 {
            self.copy(method, launch, context)?;
        }
        let (address, payload) = (self.address(SET_SEMAPHORE_A), self.register(SET_SEMAPHORE_PAYLOAD));
        let written = match semaphore {
            0 => return Ok(()),
            1 => context.write(address, &payload.to_le_bytes()),
            2 => {
                let mut report = [0u8; 16];
                report[..4].copy_from_slice(&payload.to_le_bytes());
                report[8..].copy_from_slice(&context.timestamp.to_le_bytes());
                context.write(address, &report)
            }
            _ => return Err(method.bad_argument(launch, "SEMAPHORE_TYPE 3 does not exist")),
        };
        written.map_err(|e| method.memory(e))
    }

    fn copy(&self, method: Method, launch: u32, context: &mut Context) -> Result<(), EngineError> {
        let remap = launch >> 10 & 1 == 1;
        let components = self.register(SET_REMAP_COMPONENTS);
        let component_size = u64::from(components >> 16 & 3) + 1;
        let (source_components, destination_components) =
            (u64::from(components >> 20 & 3) + 1, u64::from(components >> 24 & 3) + 1);
        let (source_element, destination_element) =
            if remap { (component_size * source_components, component_size * destination_components) } else { (1, 1) };
        let (line_length, lines) = (u64::from(self.register(LINE_LENGTH_IN)), u64::from(self.register(LINE_COUNT)));
        let lines = if launch >> 9 & 1 == 1 { lines } else { 1 };
        let moved = line_length.saturating_mul(lines).saturating_mul(source_element.max(destination_element));
        if moved > MAX_COPY_BYTES {
            return Err(method.bad_argument(self.register(LINE_LENGTH_IN), "a copy of more than Tandem copies (1 GiB)"));
        }
        let source = self.surface(
            method,
            launch >> 7 & 1 == 1,
            self.address(OFFSET_IN_UPPER),
            self.register(PITCH_IN),
            SET_SRC_BLOCK_SIZE,
            source_element,
        )?;
        let destination = self.surface(
            method,
            launch >> 8 & 1 == 1,
            self.address(OFFSET_OUT_UPPER),
            self.register(PITCH_OUT),
            SET_DST_BLOCK_SIZE,
            destination_element,
        )?;
        if let (false, Surface::Pitch { .. }, Surface::Pitch { .. }) = (remap, &source, &destination) {
            // Pitch to pitch, byte for byte: a line at a time.
            let mut line = vec![0u8; line_length as usize];
            for y in 0..lines {
                let (from, to) = (source.address(0, y, 1, 0), destination.address(0, y, 1, 0));
                let (Some(from), Some(to)) = (from, to) else {
                    return Err(method.bad_argument(launch, "a line past the end of the GPU's addresses"));
                };
                context.read(from, &mut line).map_err(|e| method.memory(e))?;
                context.write(to, &line).map_err(|e| method.memory(e))?;
            }
            return Ok(());
        }
        let outside = |what| method.bad_argument(launch, what);
        let constants = [self.register(SET_REMAP_CONST_A), self.register(SET_REMAP_CONST_B)];
        let (mut from, mut bytes, mut to, mut written) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for y in 0..lines {
            for first in (0..line_length).step_by(CHUNK_ELEMENTS as usize) {
                let elements = first..line_length.min(first + CHUNK_ELEMENTS);
                from.clear();
                for x in elements.clone() {
                    for byte in 0..source_element {
                        from.push(
                            source.address(x, y, source_element, byte).ok_or(outside("a read outside the source"))?,
                        );
                    }
                }
                bytes.resize(from.len(), 0);
                for_each_run(&from, |at, run| context.read(at, &mut bytes[run])).map_err(|e| method.memory(e))?;
                (to.clear(), written.clear());
                for (x, element) in elements.zip(bytes.chunks_exact(source_element as usize)) {
                    if !remap {
                        to.push(destination.address(x, y, 1, 0).ok_or(outside("a write outside the destination"))?);
                        written.push(element[0]);
                        continue;
                    }
                    for component in 0..destination_components {
                        // DST_X 2:0, DST_Y 6:4, DST_Z 10:8, DST_W 14:12: source X-W (0-3), CONST_A, CONST_B, NO_WRITE.
                        let value = match components >> (4 * component) & 7 {
                            select @ 0..=3 if u64::from(select) < source_components => {
                                let start = (u64::from(select) * component_size) as usize;
                                &element[start..start + component_size as usize]
                            }
                            select @ (4 | 5) => {
                                &constants[select as usize - 4].to_le_bytes()[..component_size as usize]
                            }
                            6 => continue,
                            _ => {
                                return Err(
                                    method.bad_argument(components, "a remap naming a component the source lacks")
                                );
                            }
                        };
                        for (byte, value) in value.iter().enumerate() {
                            let at = destination.address(
                                x,
                                y,
                                destination_element,
                                component * component_size + byte as u64,
                            );
                            to.push(at.ok_or(outside("a write outside the destination"))?);
                            written.push(*value);
                        }
                    }
                }
                for_each_run(&to, |at, run| context.write(at, &written[run])).map_err(|e| method.memory(e))?;
            }
        }
        Ok(())
    }
}

/// Calls `access` with each run of consecutive addresses in `addresses`, in order: its first address and where
/// it lies in `addresses`.
fn for_each_run(
    addresses: &[u64],
    mut access: impl FnMut(u64, std::ops::Range<usize>) -> Result<(), MmuError>,
) -> Result<(), MmuError> {
    let mut start = 0;
    while start < addresses.len() {
        let mut end = start + 1;
        while end < addresses.len() && Some(addresses[end]) == addresses[end - 1].checked_add(1) {
            end += 1;
        }
        access(addresses[start], start..end)?;
        start = end;
    }
    Ok(())
}
