//! Inline-to-memory: data carried in the pushbuffer itself, written to a pitch or block-linear surface. The
//! `KEPLER_INLINE_TO_MEMORY_B` class (A140) is this alone; the 3D and compute classes have the same methods at the
//! same offsets (`LINE_LENGTH_IN` 0x180 to `LOAD_INLINE_DATA` 0x1b4).

use super::{Class, Context, EngineError, Method};
use crate::texture::block_linear::BlockLinear;

pub const LINE_LENGTH_IN: u32 = 0x180;
pub const LINE_COUNT: u32 = 0x184;
pub const OFFSET_OUT_UPPER: u32 = 0x188;
pub const OFFSET_OUT: u32 = 0x18c;
pub const PITCH_OUT: u32 = 0x190;
pub const SET_DST_BLOCK_SIZE: u32 = 0x194;
pub const SET_DST_WIDTH: u32 = 0x198;
pub const SET_DST_HEIGHT: u32 = 0x19c;
pub const SET_DST_DEPTH: u32 = 0x1a0;
pub const SET_DST_LAYER: u32 = 0x1a4;
pub const SET_DST_ORIGIN_BYTES_X: u32 = 0x1a8;
pub const SET_DST_ORIGIN_SAMPLES_Y: u32 = 0x1ac;
pub const LAUNCH_DMA: u32 = 0x1b0;
pub const LOAD_INLINE_DATA: u32 = 0x1b4;

/// The methods' range (byte offsets), the same in every class that has them.
pub const METHODS: std::ops::RangeInclusive<u32> = LINE_LENGTH_IN..=LOAD_INLINE_DATA;

/// The unit's registers and the transfer under way.
#[derive(Default, Clone, Debug)]
pub struct InlineToMemory {
    registers: [u32; 14],
    /// Bytes received since `LAUNCH_DMA`, while a transfer is open.
    data: Option<Vec<u8>>,
}

impl InlineToMemory {
    fn register(&self, offset: u32) -> u32 {
        self.registers[((offset - LINE_LENGTH_IN) / 4) as usize]
    }

    /// Bytes the launched transfer takes: a line length for each line.
    fn total_bytes(&self) -> u64 {
        u64::from(self.register(LINE_LENGTH_IN)) * u64::from(self.register(LINE_COUNT))
    }

    /// One of the unit's methods (`offset` in [`METHODS`]) of `class`.
    pub fn call(&mut self, class: Class, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = Method { class, offset };
        match offset {
            LAUNCH_DMA => {
                // COMPLETION_TYPE 5:4 other than FLUSH_DISABLE/FLUSH_ONLY asks for a semaphore release after the copy.
                if argument >> 4 & 3 == 2 {
                    return Err(method.unimplemented("completion by semaphore release"));
                }
                self.registers[((offset - LINE_LENGTH_IN) / 4) as usize] = argument;
                self.data = Some(Vec::new());
                self.finish_if_complete(method, context)
            }
            LOAD_INLINE_DATA => {
                let Some(data) = &mut self.data else {
                    return Err(method.bad_argument(argument, "inline data with no LAUNCH_DMA before it"));
                };
                data.extend_from_slice(&argument.to_le_bytes());
                self.finish_if_complete(method, context)
            }
            _ => {
                self.registers[((offset - LINE_LENGTH_IN) / 4) as usize] = argument;
                Ok(())
            }
        }
    }

    /// Writes the data once all of it has come (the last word's padding bytes are dropped).
    fn finish_if_complete(&mut self, method: Method, context: &mut Context) -> Result<(), EngineError> {
        let total = self.total_bytes();
        let Some(data) = self.data.take_if(|data| data.len() as u64 >= total) else { return Ok(()) };
        let (line_length, lines) = (self.register(LINE_LENGTH_IN) as usize, self.register(LINE_COUNT) as usize);
        let base = u64::from(self.register(OFFSET_OUT_UPPER) & 0x1ff_ffff) << 32 | u64::from(self.register(OFFSET_OUT));
        // DST_MEMORY_LAYOUT 0:0: 1 pitch, 0 block-linear.
        if self.register(LAUNCH_DMA) & 1 == 1 {
            let pitch = u64::from(self.register(PITCH_OUT));
            for (line, bytes) in data.chunks(line_length.max(1)).take(lines).enumerate() {
                context.write(base + line as u64 * pitch, bytes).map_err(|e| method.memory(e))?;
            }
            return Ok(());
        }
        let block_size = self.register(SET_DST_BLOCK_SIZE);
        let layout = BlockLinear::new(
            self.register(SET_DST_WIDTH),
            self.register(SET_DST_HEIGHT),
            self.register(SET_DST_DEPTH).max(1),
            block_size >> 4 & 0xf,
            block_size >> 8 & 0xf,
        )
        .ok_or_else(|| method.bad_argument(block_size, "block height or depth above 32 GOBs"))?;
        let (x, y) =
            (self.register(SET_DST_ORIGIN_BYTES_X) & 0x1f_ffff, self.register(SET_DST_ORIGIN_SAMPLES_Y) & 0x1_ffff);
        let z = self.register(SET_DST_LAYER);
        for (line, bytes) in data.chunks(line_length.max(1)).take(lines).enumerate() {
            for (column, &byte) in bytes.iter().enumerate() {
                let offset = layout
                    .offset(x + column as u32, y + line as u32, z)
                    .ok_or_else(|| method.bad_argument(x + column as u32, "write outside the destination surface"))?;
                let at = base
                    .checked_add(offset)
                    .ok_or_else(|| method.bad_argument(z, "write past the end of the GPU's addresses"))?;
                context.write(at, &[byte]).map_err(|e| method.memory(e))?;
            }
        }
        Ok(())
    }
}
