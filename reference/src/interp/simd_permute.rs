//! C4.1.96 Advanced SIMD data movement: the classes "Advanced SIMD copy" (DUP, INS, SMOV, UMOV), "Advanced SIMD
//! scalar copy" (DUP (element), scalar), "Advanced SIMD permute" (UZP1/2, TRN1/2, ZIP1/2), "Advanced SIMD extract"
//! (EXT) and "Advanced SIMD table lookup" (TBL, TBX).

use super::pseudocode::{elem, lowest_set_bit, ones128, replicate128, set_elem, sign_extend};
use super::{Exec, Step};

/// The element size of the copy instructions, `LowestSetBit(imm5)` as log2 of bytes; `None` when it exceeds 3
/// (imm5 = x0000), which every instruction of the class treats as UNDEFINED.
pub fn copy_size(imm5: u32) -> Option<u32> {
    lowest_set_bit(u64::from(imm5)).filter(|&size| size <= 3)
}

/// The element index `imm5<4:size+1>`.
pub fn copy_index(imm5: u32, size: u32) -> u32 {
    imm5 >> (size + 1)
}

/// `idxdsize`: the part of the source register an index into it can reach (64 or 128 bits).
fn index_datasize(top_bit: u32) -> u32 {
    if top_bit == 1 { 128 } else { 64 }
}

/// The operation of UZP1/UZP2, TRN1/TRN2 and ZIP1/ZIP2 on `elements` elements of `esize` bits; `part` is
/// opcode<2> (the "2" forms).
fn permute(opcode: u32, operand1: u128, operand2: u128, esize: u32, elements: u32) -> u128 {
    let part = opcode >> 2;
    let mut result = 0;
    match opcode & 0b11 {
        // UZP: the even (part 0) or odd (part 1) elements of operand2:operand1.
        0b01 => {
            for e in 0..elements {
                let i = 2 * e + part;
                let value = if i < elements { elem(operand1, i, esize) } else { elem(operand2, i - elements, esize) };
                set_elem(&mut result, e, esize, value);
            }
        }
        // TRN: element 2p+part of each operand, interleaved.
        0b10 => {
            for p in 0..elements / 2 {
                set_elem(&mut result, 2 * p, esize, elem(operand1, 2 * p + part, esize));
                set_elem(&mut result, 2 * p + 1, esize, elem(operand2, 2 * p + part, esize));
            }
        }
        // ZIP: the lower (part 0) or upper (part 1) halves, interleaved.
        _ => {
            let pairs = elements / 2;
            let base = part * pairs;
            for p in 0..pairs {
                set_elem(&mut result, 2 * p, esize, elem(operand1, base + p, esize));
                set_elem(&mut result, 2 * p + 1, esize, elem(operand2, base + p, esize));
            }
        }
    }
    result
}

/// The operation of TBL/TBX: each byte of `indices` selects a byte of `table` (`regs` registers, lowest first);
/// an index past the table leaves the byte of `result` as it was (zero for TBL, the destination for TBX).
fn table_lookup(table: &[u128], indices: u128, mut result: u128, elements: u32) -> u128 {
    for i in 0..elements {
        let index = elem(indices, i, 8) as usize;
        if let Some(register) = table.get(index / 16) {
            set_elem(&mut result, i, 8, elem(*register, (index % 16) as u32, 8));
        }
    }
    result
}

impl Exec<'_> {
    /// The class "Advanced SIMD copy": DUP (element), DUP (general), INS (general), SMOV, UMOV, INS (element).
    pub(super) fn advanced_simd_copy(
        &mut self,
        word: u32,
        q: u32,
        op: u32,
        imm5: u32,
        imm4: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        match (op, imm4) {
            (0, 0b0000) => self.dup_element(word, q, imm5, rn, rd),
            (0, 0b0001) => self.dup_general(word, q, imm5, rn, rd),
            (0, 0b0011) if q == 1 => self.ins_general(word, imm5, rn, rd),
            (0, 0b0101) => self.smov(word, q, imm5, rn, rd),
            (0, 0b0111) => self.umov(word, q, imm5, rn, rd),
            (1, _) if q == 1 => self.ins_element(word, imm5, imm4, rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// DUP (element), vector form.
    fn dup_element(&mut self, word: u32, q: u32, imm5: u32, rn: u32, rd: u32) -> Step {
        let Some(size) = copy_size(imm5) else { return self.unallocated(word) };
        if size == 3 && q == 0 {
            return self.unallocated(word);
        }
        let index = copy_index(imm5, size);
        let esize = 8 << size;
        let datasize = if q == 1 { 128 } else { 64 };
        let operand = self.v(rn, index_datasize(imm5 >> 4));
        let element = elem(operand, index, esize);
        self.set_v(rd, replicate128(element, esize, datasize), datasize);
        Ok(())
    }

    /// DUP (general).
    fn dup_general(&mut self, word: u32, q: u32, imm5: u32, rn: u32, rd: u32) -> Step {
        let Some(size) = copy_size(imm5) else { return self.unallocated(word) };
        if size == 3 && q == 0 {
            return self.unallocated(word);
        }
        let esize = 8 << size;
        let datasize = if q == 1 { 128 } else { 64 };
        let element = self.x(rn, esize);
        self.set_v(rd, replicate128(element, esize, datasize), datasize);
        Ok(())
    }

    /// INS (general).
    fn ins_general(&mut self, word: u32, imm5: u32, rn: u32, rd: u32) -> Step {
        let Some(size) = copy_size(imm5) else { return self.unallocated(word) };
        let index = copy_index(imm5, size);
        let esize = 8 << size;
        let element = self.x(rn, esize);
        let mut result = self.v(rd, 128);
        set_elem(&mut result, index, esize, element);
        self.set_v(rd, result, 128);
        Ok(())
    }

    /// INS (element).
    fn ins_element(&mut self, word: u32, imm5: u32, imm4: u32, rn: u32, rd: u32) -> Step {
        let Some(size) = copy_size(imm5) else { return self.unallocated(word) };
        let dst_index = copy_index(imm5, size);
        // imm4<size-1:0> is ignored.
        let src_index = imm4 >> size;
        let esize = 8 << size;
        let operand = self.v(rn, index_datasize(imm4 >> 3));
        let mut result = self.v(rd, 128);
        set_elem(&mut result, dst_index, esize, elem(operand, src_index, esize));
        self.set_v(rd, result, 128);
        Ok(())
    }

    /// SMOV: a signed element to a W (Q = 0) or X (Q = 1) register.
    fn smov(&mut self, word: u32, q: u32, imm5: u32, rn: u32, rd: u32) -> Step {
        let size = match copy_size(imm5) {
            Some(size @ (0 | 1)) => size,
            Some(2) if q == 1 => 2,
            _ => return self.unallocated(word),
        };
        let index = copy_index(imm5, size);
        let esize = 8 << size;
        let datasize = if q == 1 { 64 } else { 32 };
        let element = elem(self.v(rn, index_datasize(imm5 >> 4)), index, esize);
        self.set_x(rd, sign_extend(element, esize), datasize);
        Ok(())
    }

    /// UMOV: an element, zero-extended, to a W (Q = 0, elements up to 32 bits) or X (Q = 1, 64-bit element) register.
    fn umov(&mut self, word: u32, q: u32, imm5: u32, rn: u32, rd: u32) -> Step {
        let size = match (copy_size(imm5), q) {
            (Some(size @ 0..=2), 0) => size,
            (Some(3), 1) => 3,
            _ => return self.unallocated(word),
        };
        let index = copy_index(imm5, size);
        let esize = 8 << size;
        let datasize = if q == 1 { 64 } else { 32 };
        let element = elem(self.v(rn, index_datasize(imm5 >> 4)), index, esize);
        self.set_x(rd, element, datasize);
        Ok(())
    }

    /// The class "Advanced SIMD scalar copy": DUP (element), scalar form (the MOV alias).
    pub(super) fn advanced_simd_scalar_copy(
        &mut self,
        word: u32,
        op: u32,
        imm5: u32,
        imm4: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if op != 0 || imm4 != 0 {
            return self.unallocated(word);
        }
        let Some(size) = copy_size(imm5) else { return self.unallocated(word) };
        let index = copy_index(imm5, size);
        let esize = 8 << size;
        let operand = self.v(rn, index_datasize(imm5 >> 4));
        self.set_v(rd, u128::from(elem(operand, index, esize)), esize);
        Ok(())
    }

    /// The class "Advanced SIMD permute": UZP1, TRN1, ZIP1, UZP2, TRN2, ZIP2.
    pub(super) fn advanced_simd_permute(
        &mut self,
        word: u32,
        q: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if opcode & 0b11 == 0 || (size == 0b11 && q == 0) {
            return self.unallocated(word);
        }
        let esize = 8 << size;
        let datasize = if q == 1 { 128 } else { 64 };
        let operand1 = self.v(rn, datasize);
        let operand2 = self.v(rm, datasize);
        let result = permute(opcode, operand1, operand2, esize, datasize / esize);
        self.set_v(rd, result, datasize);
        Ok(())
    }

    /// The class "Advanced SIMD extract": EXT.
    pub(super) fn advanced_simd_extract(
        &mut self,
        word: u32,
        q: u32,
        op2: u32,
        rm: u32,
        imm4: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if op2 != 0 || (q == 0 && imm4 & 0b1000 != 0) {
            return self.unallocated(word);
        }
        let datasize = if q == 1 { 128 } else { 64 };
        let position = imm4 << 3;
        let hi = self.v(rm, datasize);
        let lo = self.v(rn, datasize);
        // concat<position+datasize-1:position> of hi:lo.
        let low_part = lo.checked_shr(position).unwrap_or(0);
        let high_part = hi.checked_shl(datasize - position).unwrap_or(0);
        self.set_v(rd, (low_part | high_part) & ones128(datasize), datasize);
        Ok(())
    }

    /// The class "Advanced SIMD table lookup": TBL, TBX (single to four register tables).
    pub(super) fn advanced_simd_table_lookup(
        &mut self,
        word: u32,
        q: u32,
        op2: u32,
        rm: u32,
        len: u32,
        op: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if op2 != 0 {
            return self.unallocated(word);
        }
        let datasize = if q == 1 { 128 } else { 64 };
        let is_tbl = op == 0;
        let table: Vec<u128> = (0..=len).map(|i| self.v((rn + i) % 32, 128)).collect();
        let indices = self.v(rm, datasize);
        let result = if is_tbl { 0 } else { self.v(rd, datasize) };
        let result = table_lookup(&table, indices, result, datasize / 8);
        self.set_v(rd, result, datasize);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes 0x00, 0x01, ... 0x0f as a register (element i is i).
    const A: u128 = 0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100;
    /// Bytes 0x10 ... 0x1f.
    const B: u128 = 0x1f1e_1d1c_1b1a_1918_1716_1514_1312_1110;

    fn bytes(value: u128, count: usize) -> Vec<u8> {
        value.to_le_bytes()[..count].to_vec()
    }

    #[test]
    fn permutes_of_bytes() {
        // The Arm ARM's diagrams with A = a0..a15 and B = b0..b15 (here 0x00.. and 0x10..).
        let cases: &[(u32, &[u8])] = &[
            (0b001, &[0, 2, 4, 6, 8, 10, 12, 14, 0x10, 0x12, 0x14, 0x16, 0x18, 0x1a, 0x1c, 0x1e]), // UZP1
            (0b101, &[1, 3, 5, 7, 9, 11, 13, 15, 0x11, 0x13, 0x15, 0x17, 0x19, 0x1b, 0x1d, 0x1f]), // UZP2
            (0b010, &[0, 0x10, 2, 0x12, 4, 0x14, 6, 0x16, 8, 0x18, 10, 0x1a, 12, 0x1c, 14, 0x1e]), // TRN1
            (0b110, &[1, 0x11, 3, 0x13, 5, 0x15, 7, 0x17, 9, 0x19, 11, 0x1b, 13, 0x1d, 15, 0x1f]), // TRN2
            (0b011, &[0, 0x10, 1, 0x11, 2, 0x12, 3, 0x13, 4, 0x14, 5, 0x15, 6, 0x16, 7, 0x17]),    // ZIP1
            (0b111, &[8, 0x18, 9, 0x19, 10, 0x1a, 11, 0x1b, 12, 0x1c, 13, 0x1d, 14, 0x1e, 15, 0x1f]), // ZIP2
        ];
        for &(opcode, expected) in cases {
            assert_eq!(bytes(permute(opcode, A, B, 8, 16), 16), expected, "opcode {opcode:03b}");
        }
        // UZP2 of 2S vectors (64-bit): the odd words of each.
        let a = 0x0000_0001_0000_0000u128;
        let b = 0x0000_0003_0000_0002u128;
        assert_eq!(permute(0b101, a, b, 32, 2), 0x0000_0003_0000_0001);
    }

    #[test]
    fn table_lookup_out_of_range_indices() {
        // Indices 0x1f (second table register, last byte), 0x20 (past a two-register table), 3.
        let indices = 0x03_20_1f;
        assert_eq!(table_lookup(&[A, B], indices, 0, 3), 0x03_00_1f);
        // TBX keeps the destination byte for the out-of-range index.
        assert_eq!(table_lookup(&[A, B], indices, 0xaa_bb_cc, 3), 0x03_bb_1f);
    }

    #[test]
    fn copy_fields() {
        // imm5 = 0b10110: halfword, index 5; imm5 = 0b01000: doubleword, index 0; x0000 is unallocated.
        assert_eq!(copy_size(0b10110), Some(1));
        assert_eq!(copy_index(0b10110, 1), 5);
        assert_eq!(copy_size(0b01000), Some(3));
        assert_eq!(copy_index(0b11000, 3), 1);
        assert_eq!(copy_size(0b10000), None);
    }
}
