//! What the surface instructions (SULD, SUST, SURED, SUATOM) mean in IR, once `sass::surface` has read an
//! instruction's fields: a storage image viewed as texels of the access's size (`SurfaceBinding`), a byte-
//! addressed x turned into texels of that size, and the edge mode carried out against the image's size.
//!
//! Past the edge, .IGN loads zeros and drops stores and atomics (SUATOM reads zero then, as loads do), the default mode clamps each coordinate to
//! the nearest texel inside (an H200 does both: `gpu/tests/sass/kernels/surfaces.ptx`), and .TRAP, which faults
//! the GPU, drops the access as .IGN does: the host has no fault to raise (the interpreter stops the launch).

use super::ir::{BinOp, Cmp, Op, Reduction, SurfaceBinding, Value};
use super::lower::Lower;
use crate::sass::exec::access_bytes;
use crate::sass::surface::{Edge, SurfaceData, SurfaceInstruction, SurfaceOperation};

impl Lower<'_> {
    /// Carries out `s`. Err: why it cannot be translated.
    pub(super) fn surface_instruction(&mut self, s: &SurfaceInstruction) -> Result<(), String> {
        let handle = self.texture_handle(s.handle);
        if handle.value.is_some() {
            return Err("a surface handle known only at run time (surfaces bind by traced handles alone)".into());
        }
        let handle = handle.handle;
        // A formatted access's image holds each texel's four components as 32-bit values.
        let (size, texel_bytes) = match s.data {
            SurfaceData::Raw { size } => (size, access_bytes(size) as u8),
            SurfaceData::Formatted { .. } => (4, 0),
        };
        let reduction = match s.operation {
            SurfaceOperation::Atomic { op, signed, .. } => Some(match (op, signed) {
                (0, _) => Reduction::Add,
                (1, false) => Reduction::MinU,
                (1, true) => Reduction::MinS,
                (2, false) => Reduction::MaxU,
                (2, true) => Reduction::MaxS,
                (5, _) => Reduction::And,
                (6, _) => Reduction::Or,
                (7, _) => Reduction::Xor,
                (8, _) => Reduction::Exchange,
                _ => return Err("surface atomics INC and DEC, which no host image atomic has".into()),
            }),
            _ => None,
        };
        let binding = SurfaceBinding { handle, dim: s.dim, array: s.array, buffer: s.buffer, texel_bytes };
        let surface = self.program.surface(binding);
        let mut coordinates: Vec<Value> = s.coordinates.iter().map(|&r| self.reg(r)).collect();
        if s.byte_addressed && texel_bytes > 1 {
            let shift = self.const32(texel_bytes.trailing_zeros());
            coordinates[0] = self.bin(BinOp::ShrS, coordinates[0], shift);
        }
        // The size's components line up with the coordinates: width, height or a 1D array's layers, depth or a
        // 2D array's layers.
        let size_of = self.op(Op::SurfaceSize { surface });
        let limits: Vec<Value> = (0..coordinates.len() as u8).map(|k| self.op(Op::Component(size_of, k))).collect();
        let inside = match s.edge {
            Edge::Clamp => {
                let (zero, one) = (self.const32(0), self.const32(1));
                for (coordinate, &limit) in coordinates.iter_mut().zip(&limits) {
                    let last = self.bin(BinOp::Sub, limit, one);
                    let above = self.bin(BinOp::MaxS, *coordinate, zero);
                    *coordinate = self.bin(BinOp::MinS, above, last);
                }
                None
            }
            Edge::Zero | Edge::Trap => {
                // Unsigned, so that a negative coordinate is outside too.
                let mut inside = self.bool(true);
                for (&coordinate, &limit) in coordinates.iter().zip(&limits) {
                    let within = self.cmp(Cmp::LtU, coordinate, limit);
                    let no = self.bool(false);
                    inside = self.select(within, inside, no);
                }
                Some(inside)
            }
        };
        // The texel's components the data registers hold, in order: the mask's, or as many as the size takes.
        let components: Vec<u8> = match s.data {
            SurfaceData::Formatted { mask } => (0..4).filter(|c| mask >> c & 1 == 1).collect(),
            SurfaceData::Raw { .. } => (0..(texel_bytes as u8).div_ceil(4)).collect(),
        };
        let data = s.data_register;
        match (s.operation, reduction) {
            (SurfaceOperation::Load, _) => {
                if inside.is_some() {
                    let zero = self.const32(0);
                    for k in 0..components.len() as u64 {
                        self.set_reg(data + k, zero);
                    }
                }
                self.guarded(inside, |l| {
                    let texel = l.op(Op::SurfaceLoad { surface, coordinates });
                    for (k, &component) in (0..).zip(&components) {
                        let channel = l.op(Op::Component(texel, component));
                        // A byte or half, extended as its size code says (the view's channel is zero-extended).
                        let value = if size < 4 { l.extend_part(channel, size) } else { channel };
                        l.set_reg(data + k, value);
                    }
                });
            }
            (SurfaceOperation::Store, _) => {
                let mut channels: Vec<Value> = (0..components.len() as u64).map(|k| self.reg(data + k)).collect();
                if (1..4).contains(&texel_bytes) {
                    let mask = self.const32((1u32 << (8 * texel_bytes)) - 1);
                    channels[0] = self.bin(BinOp::And, channels[0], mask);
                }
                let partial = texel_bytes == 0 && components.len() < 4;
                self.guarded(inside, |l| {
                    if partial {
                        // The components the mask leaves out keep what the texel holds.
                        let texel = l.op(Op::SurfaceLoad { surface, coordinates: coordinates.clone() });
                        let mut stored = channels.into_iter();
                        channels = (0..4)
                            .map(|c| match components.contains(&c) {
                                true => stored.next().expect("a register for each masked component"),
                                false => l.op(Op::Component(texel, c)),
                            })
                            .collect();
                    }
                    l.op(Op::SurfaceStore { surface, coordinates, channels });
                });
            }
            (SurfaceOperation::Atomic { result, .. }, Some(reduction)) => {
                let value = self.reg(data);
                let atomic = Op::SurfaceAtomic { surface, coordinates, reduction, value };
                self.surface_atomic_result(atomic, result, inside);
            }
            (SurfaceOperation::CompareSwap { result }, _) => {
                let (compare, value) = (self.reg(data), self.reg(data + 1));
                let atomic = Op::SurfaceCompareSwap { surface, coordinates, compare, value };
                self.surface_atomic_result(atomic, Some(result), inside);
            }
            (SurfaceOperation::Atomic { .. }, None) => unreachable!("an atomic has its reduction"),
        }
        Ok(())
    }

    /// Carries out `atomic` where `inside` holds (always without it), the value the texel held going to `result`
    /// (zero where the access is dropped).
    fn surface_atomic_result(&mut self, atomic: Op, result: Option<u64>, inside: Option<Value>) {
        if let (Some(result), Some(_)) = (result, inside) {
            let zero = self.const32(0);
            self.set_reg(result, zero);
        }
        self.guarded(inside, |l| {
            let old = l.op(atomic);
            if let Some(result) = result {
                l.set_reg(result, old);
            }
        });
    }
}
