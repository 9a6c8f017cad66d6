//! What the interpreter and the translator share of Maxwell's video instructions (VADD, VABSDIFF, VMNMX, VSHL,
//! VSHR, VSET): the mode that follows the operation.

/// The modes after the operation (the `mode` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The result's low half (byte) replaces c's high or low half (byte 0 or 2).
    MergeHighHalf,
    MergeLowHalf,
    MergeByte0,
    MergeByte2,
    /// c added to the result.
    Accumulate,
    /// The smaller (larger) of the result and c.
    Min,
    Max,
    /// The result alone.
    None,
}

impl Mode {
    pub fn from_field(mode: u64) -> Self {
        [
            Mode::MergeHighHalf,
            Mode::MergeLowHalf,
            Mode::MergeByte0,
            Mode::MergeByte2,
            Mode::Accumulate,
            Mode::Min,
            Mode::Max,
            Mode::None,
        ][mode as usize & 7]
    }

    /// The width saturation clamps to: the merged part's, else the word's.
    pub fn width(self) -> u32 {
        match self {
            Mode::MergeHighHalf | Mode::MergeLowHalf => 16,
            Mode::MergeByte0 | Mode::MergeByte2 => 8,
            _ => 32,
        }
    }
}
