//! Semaphore releases as the host, the 3D and compute engines' report semaphores and the compute QMD write them
//! (open-gpu-doc clb06f.h SEMAPHORED, clb197.h/clb1c0.h SET_REPORT_SEMAPHORE_D, the QMD's RELEASE structures):
//! the payload alone (one word), or a four-word report (the payload, a zero word, the 64-bit GPU timestamp); with a
//! reduction, the payload is combined with the word already in memory, as the matching atomic would.

use super::Context;
use crate::mmu::MmuError;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Release {
    pub address: u64,
    pub payload: u32,
    pub one_word: bool,
    pub reduction: Option<Reduction>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Reduction {
    pub op: ReductionOp,
    /// `REDUCTION_FORMAT` SIGNED_32 (min and max compare as signed); UNSIGNED_32 otherwise.
    pub signed: bool,
}

/// `REDUCTION_OP` in the order of its encoding (0 RED_ADD to 7 RED_XOR).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReductionOp {
    Add,
    Min,
    Max,
    /// Wrapping increment: 0 once the old value reaches the payload, else one more (CUDA's `atomicInc`).
    Inc,
    /// Wrapping decrement: the payload when the old value is 0 or above it, else one less (`atomicDec`).
    Dec,
    And,
    Or,
    Xor,
}

impl ReductionOp {
    pub fn from_bits(bits: u32) -> ReductionOp {
        use ReductionOp::*;
        [Add, Min, Max, Inc, Dec, And, Or, Xor][(bits & 7) as usize]
    }
}

/// The reduction a `SET_REPORT_SEMAPHORE_D` asks for (3D and compute alike): REDUCTION_ENABLE 3:3,
/// REDUCTION_OP 11:9, REDUCTION_FORMAT 18:17 (1 signed).
pub fn report_reduction(argument: u32) -> Option<Reduction> {
    (argument >> 3 & 1 == 1)
        .then(|| Reduction { op: ReductionOp::from_bits(argument >> 9), signed: argument >> 17 & 3 == 1 })
}

impl Reduction {
    /// The value memory holds after the reduction of `old` with `payload`.
    pub fn apply(self, old: u32, payload: u32) -> u32 {
        let ordered = |a: u32, b: u32| if self.signed { (a as i32).cmp(&(b as i32)) } else { a.cmp(&b) };
        match self.op {
            ReductionOp::Add => old.wrapping_add(payload),
            ReductionOp::Min => std::cmp::min_by(old, payload, |a, b| ordered(*a, *b)),
            ReductionOp::Max => std::cmp::max_by(old, payload, |a, b| ordered(*a, *b)),
            ReductionOp::Inc if old >= payload => 0,
            ReductionOp::Inc => old + 1,
            ReductionOp::Dec if old == 0 || old > payload => payload,
            ReductionOp::Dec => old - 1,
            ReductionOp::And => old & payload,
            ReductionOp::Or => old | payload,
            ReductionOp::Xor => old ^ payload,
        }
    }
}

impl Release {
    pub fn write(&self, context: &Context) -> Result<(), MmuError> {
        let value = match self.reduction {
            None => self.payload,
            Some(reduction) => {
                let mut old = [0u8; 4];
                context.read(self.address, &mut old)?;
                reduction.apply(u32::from_le_bytes(old), self.payload)
            }
        };
        if self.one_word {
            context.write(self.address, &value.to_le_bytes())
        } else {
            let mut report = [0u8; 16];
            report[..4].copy_from_slice(&value.to_le_bytes());
            report[8..].copy_from_slice(&context.timestamp.to_le_bytes());
            context.write(self.address, &report)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wrapping increment and decrement as the PTX ISA defines `atom.inc` and `atom.dec`, and signed against
    /// unsigned order.
    #[test]
    fn reductions_follow_the_atomics_they_name() {
        let unsigned = |op| Reduction { op, signed: false };
        assert_eq!(unsigned(ReductionOp::Inc).apply(4, 5), 5);
        assert_eq!(unsigned(ReductionOp::Inc).apply(5, 5), 0);
        assert_eq!(unsigned(ReductionOp::Inc).apply(9, 5), 0);
        assert_eq!(unsigned(ReductionOp::Dec).apply(0, 5), 5);
        assert_eq!(unsigned(ReductionOp::Dec).apply(6, 5), 5);
        assert_eq!(unsigned(ReductionOp::Dec).apply(3, 5), 2);
        assert_eq!(unsigned(ReductionOp::Add).apply(u32::MAX, 2), 1);
        assert_eq!(unsigned(ReductionOp::Min).apply(u32::MAX, 2), 2);
        assert_eq!(Reduction { op: ReductionOp::Min, signed: true }.apply(u32::MAX, 2), u32::MAX);
        assert_eq!(Reduction { op: ReductionOp::Max, signed: true }.apply(u32::MAX, 2), 2);
        assert_eq!(unsigned(ReductionOp::Xor).apply(0b1100, 0b1010), 0b0110);
        assert_eq!(ReductionOp::from_bits(7), ReductionOp::Xor);
    }
}
