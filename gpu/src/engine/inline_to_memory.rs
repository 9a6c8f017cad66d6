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
///
/// Invariant: data is written as it comes, each byte to its place in the destination (lines are consecutive in
/// the data, LINE_LENGTH_IN bytes each), so nothing is buffered and a transfer cut short by a new LAUNCH_DMA
/// leaves what came of it, as the hardware's streaming does.
#[derive(Default, Clone, Debug)]
pub struct InlineToMemory {
    registers: [u32; 14],
    /// Bytes of the open transfer received so far (`None`: no transfer open).
    received: Option<u64>,
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
                self.received = (self.total_bytes() > 0).then_some(0);
                Ok(())
            }
            LOAD_INLINE_DATA => {
                let Some(received) = self.received else {
                    return Err(method.bad_argument(argument, "inline data with no LAUNCH_DMA before it"));
                };
                // The last word's bytes past the transfer are padding.
                let total = self.total_bytes();
                let bytes = &argument.to_le_bytes()[..(total - received).min(4) as usize];
                self.write(method, received, bytes, context)?;
                let received = received + bytes.len() as u64;
                self.received = (received < total).then_some(received);
                Ok(())
            }
            _ => {
                self.registers[((offset - LINE_LENGTH_IN) / 4) as usize] = argument;
                Ok(())
            }
        }
    }

    /// Writes `bytes`, the transfer's bytes from `position` on, each run within one line at once.
    fn write(&self, method: Method, position: u64, bytes: &[u8], context: &mut Context) -> Result<(), EngineError> {
        let line_length = u64::from(self.register(LINE_LENGTH_IN));
        let mut done = 0;
        while done < bytes.len() {
            let at = position + done as u64;
            let (line, column) = (at / line_length, at % line_length);
            let run = (bytes.len() - done).min((line_length - column) as usize);
            self.write_run(method, (line, column), &bytes[done..done + run], context)?;
            done += run;
        }
        Ok(())
    }

    /// Writes bytes of line `line` from byte `column` on.
    fn write_run(
        &self,
        method: Method,
        (line, column): (u64, u64),
        bytes: &[u8],
        context: &mut Context,
    ) -> Result<(), EngineError> {
        let base = u64::from(self.register(OFFSET_OUT_UPPER) & 0x1ff_ffff) << 32 | u64::from(self.register(OFFSET_OUT));
        // DST_MEMORY_LAYOUT 0:0: 1 pitch, 0 block-linear.
        if self.register(LAUNCH_DMA) & 1 == 1 {
            let pitch = u64::from(self.register(PITCH_OUT));
            let at = base.wrapping_add(line * pitch).wrapping_add(column);
            return context.write(at, bytes).map_err(|e| method.memory(e));
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
        for (index, &byte) in bytes.iter().enumerate() {
            let (column, line) = (u64::from(x) + column + index as u64, u64::from(y) + line);
            let place = u32::try_from(column).ok().zip(u32::try_from(line).ok());
            let offset = place
                .and_then(|(column, line)| layout.offset(column, line, z))
                .ok_or_else(|| method.bad_argument(column as u32, "write outside the destination surface"))?;
            let at = base
                .checked_add(offset)
                .ok_or_else(|| method.bad_argument(z, "write past the end of the GPU's addresses"))?;
            context.write(at, &[byte]).map_err(|e| method.memory(e))?;
        }
        Ok(())
    }
}
