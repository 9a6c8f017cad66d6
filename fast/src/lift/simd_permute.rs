//! Advanced SIMD permutes: UZP1/2, TRN1/2, ZIP1/2, EXT, REV16/32/64 and XTN/XTN2, as one byte shuffle of two
//! registers each, and the table lookups TBL/TBX as swizzles.
//! They move bits and nothing else, so the host's result is always the Arm result. Each instruction's element
//! mapping is written as the Arm ARM's pseudocode states it, over the elements of `n` followed by those of `m`.

use super::{Flow, Lift, Lifter, Unlifted};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

/// Where result byte i comes from: an index into the 32 bytes of V[n] followed by V[m] (Cranelift's `shuffle`).
pub(super) type ByteSources = [u8; 16];

/// The byte sources of a result whose element e (of `element_bytes`) is source element `source(e)`, where source
/// elements count through the operands' used bytes, `n`'s first (`register_bytes` of each: 8 or 16). Elements past
/// the result's `register_bytes` are left as byte 0 (a 64-bit result's upper half, which is zeroed).
pub(super) fn element_sources(
    element_bytes: usize,
    register_bytes: usize,
    source: impl Fn(usize) -> usize,
) -> ByteSources {
    let mut bytes = [0; 16];
    let elements = register_bytes / element_bytes;
    for element in 0..elements {
        let from = source(element);
        // Source elements of `m` start at byte 16 of the shuffle's input, whatever `register_bytes` is.
        let (register, index) = (from / elements, from % elements);
        for byte in 0..element_bytes {
            bytes[element * element_bytes + byte] = (register * 16 + index * element_bytes + byte) as u8;
        }
    }
    bytes
}

impl Lifter<'_> {
    /// UZP1, TRN1, ZIP1, UZP2, TRN2, ZIP2 (the class "Advanced SIMD permute").
    pub(super) fn simd_permute(&mut self, q: u32, size: u32, rm: u32, opcode: u32, rn: u32, rd: u32) -> Lift {
        if size == 0b11 && q == 0 {
            return Err(Unlifted);
        }
        let element_bytes = 1usize << size;
        let register_bytes = if q == 1 { 16 } else { 8 };
        let elements = register_bytes / element_bytes;
        let part = (opcode >> 2) as usize;
        let sources = match opcode & 0b11 {
            // UZP: the even (UZP1) or odd (UZP2) elements of n then m.
            0b01 => element_sources(element_bytes, register_bytes, |e| 2 * e + part),
            // TRN: n's and m's even (TRN1) or odd (TRN2) elements, alternately.
            0b10 => element_sources(element_bytes, register_bytes, |e| {
                let pair = e / 2;
                let from_m = e % 2;
                from_m * elements + 2 * pair + part
            }),
            // ZIP: n's and m's elements of the lower (ZIP1) or upper (ZIP2) half, interleaved.
            0b11 => element_sources(element_bytes, register_bytes, |e| {
                let index = part * elements / 2 + e / 2;
                (e % 2) * elements + index
            }),
            _ => return Err(Unlifted),
        };
        self.shuffle_registers(rn, rm, sources, rd, q);
        Ok(Flow::Next)
    }

    /// EXT: the bytes of m:n from byte `imm4` on.
    pub(super) fn simd_extract(&mut self, q: u32, op2: u32, rm: u32, imm4: u32, rn: u32, rd: u32) -> Lift {
        if op2 != 0 || (q == 0 && imm4 >= 8) {
            return Err(Unlifted);
        }
        let register_bytes = if q == 1 { 16 } else { 8 };
        let sources = element_sources(1, register_bytes, |byte| imm4 as usize + byte);
        self.shuffle_registers(rn, rm, sources, rd, q);
        Ok(Flow::Next)
    }

    /// REV64, REV32, REV16 (vector): the order of the elements reversed in each 64-, 32- or 16-bit container.
    pub(super) fn simd_reverse(&mut self, q: u32, size: u32, container_bytes: usize, rn: u32, rd: u32) -> Lift {
        let element_bytes = 1usize << size;
        if element_bytes >= container_bytes {
            return Err(Unlifted);
        }
        let mut sources = [0; 16];
        for (position, source) in sources.iter_mut().enumerate() {
            let (container, within) = (position / container_bytes, position % container_bytes);
            let (element, byte) = (within / element_bytes, within % element_bytes);
            let reversed = container_bytes / element_bytes - 1 - element;
            *source = (container * container_bytes + reversed * element_bytes + byte) as u8;
        }
        self.shuffle_registers(rn, rn, sources, rd, q);
        Ok(Flow::Next)
    }

    /// XTN, XTN2: each element of V[rn] truncated to half its size (`narrow_into`).
    pub(super) fn simd_extract_narrow(&mut self, q: u32, size: u32, rn: u32, rd: u32) -> Lift {
        if size == 0b11 {
            return Err(Unlifted);
        }
        let n = self.vector(rn, types::I8X16);
        self.narrow_into(n, size, q, rd);
        Ok(Flow::Next)
    }

    /// V[rd] = each element of `wide` (bytes, I8X16, of elements of 16 << `size` bits) truncated to half its size,
    /// into the lower half of V[rd] with the upper one zeroed, or (`q` 1, the "2" forms) into its upper half with
    /// the lower one kept.
    pub(super) fn narrow_into(&mut self, wide: Value, size: u32, q: u32, rd: u32) {
        let element_bytes = 1usize << size;
        // The even elements at the narrow size are the low halves of the wide ones: the first 8 bytes.
        let narrowed = element_sources(element_bytes, 16, |element| element * 2);
        self.place_half(wide, narrowed[..8].try_into().expect("8 bytes"), q, rd);
    }

    /// V[rd] = the low 64 bits of `narrowed` (I8X16) as `narrow_into` places them.
    pub(super) fn insert_low_half(&mut self, narrowed: Value, q: u32, rd: u32) {
        self.place_half(narrowed, std::array::from_fn(|byte| byte as u8), q, rd);
    }

    /// V[rd] = the bytes of `source` (I8X16) that `selection` names, in its lower half with the upper one zeroed,
    /// or (`q` 1) in its upper half with the lower one kept: one shuffle.
    fn place_half(&mut self, source: Value, selection: [u8; 8], q: u32, rd: u32) {
        let mut sources = [0; 16];
        if q == 0 {
            sources[..8].copy_from_slice(&selection);
        } else {
            // V[rd]'s lower half (bytes 16-23 of the shuffle's input), then the selected bytes.
            for (byte, source) in sources.iter_mut().enumerate().take(8) {
                *source = (16 + byte) as u8;
            }
            sources[8..].copy_from_slice(&selection);
        }
        let d = self.vector(rd, types::I8X16);
        let result = self.shuffle_bytes(source, d, sources);
        self.set_vector(rd, result, q);
    }

    /// TBL, TBX: each byte of V[rm] indexes the table of the `len` + 1 registers from V[rn] (wrapping after V31);
    /// an index past the table gives 0 (TBL) or leaves V[rd]'s byte (TBX). Cranelift's `swizzle` gives 0 for
    /// indices past its 16 bytes, so each register of the table is one swizzle of the indices less its offset,
    /// and at most one of them is not 0 for each byte.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_table_lookup(&mut self, q: u32, op2: u32, rm: u32, len: u32, op: u32, rn: u32, rd: u32) -> Lift {
        if op2 != 0 {
            return Err(Unlifted);
        }
        let indices = self.vector(rm, types::I8X16);
        let mut result = None;
        for register in 0..=len {
            let table = self.vector((rn + register) % 32, types::I8X16);
            let offset = self.iconst(types::I8X16, u64::from(16 * register));
            let relative = self.b.ins().isub(indices, offset);
            let looked_up = self.b.ins().swizzle(table, relative);
            result = Some(match result {
                None => looked_up,
                Some(earlier) => self.b.ins().bor(earlier, looked_up),
            });
        }
        let mut result = result.expect("a table has at least one register");
        if op == 1 {
            let table_bytes = self.iconst(types::I8X16, u64::from(16 * (len + 1)));
            let past_table = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, indices, table_bytes);
            let kept = self.vector(rd, types::I8X16);
            result = self.b.ins().bitselect(past_table, kept, result);
        }
        self.set_vector(rd, result, q);
        Ok(Flow::Next)
    }

    /// V[rd] = the bytes of V[rn]:V[rm] that `sources` names (its lower half zero-extended when `q` is 0).
    fn shuffle_registers(&mut self, rn: u32, rm: u32, sources: ByteSources, rd: u32, q: u32) {
        let (n, m) = (self.vector(rn, types::I8X16), self.vector(rm, types::I8X16));
        let result = self.shuffle_bytes(n, m, sources);
        self.set_vector(rd, result, q);
    }

    /// The bytes of `n` (indices 0-15) and `m` (16-31), both I8X16, that `sources` names.
    /// The first and second lanes of the pairs a pairwise operation on `element_bytes` lanes combines, as bytes:
    /// lane i of the result pairs lanes 2i and 2i + 1 of V[rn]'s lanes followed by V[rm]'s (both registers' lower
    /// halves when `q` is 0), which is what UZP1 and UZP2 gather.
    pub(super) fn pair_halves(&mut self, rn: u32, rm: u32, element_bytes: usize, q: u32) -> [Value; 2] {
        let register_bytes = if q == 1 { 16 } else { 8 };
        let (n, m) = (self.vector(rn, types::I8X16), self.vector(rm, types::I8X16));
        [0, 1].map(|half| {
            let sources = element_sources(element_bytes, register_bytes, |element| 2 * element + half);
            self.shuffle_bytes(n, m, sources)
        })
    }

    pub(super) fn shuffle_bytes(&mut self, n: Value, m: Value, sources: ByteSources) -> Value {
        let mask = self.b.func.dfg.immediates.push(sources.to_vec().into());
        self.b.ins().shuffle(n, m, mask)
    }
}
