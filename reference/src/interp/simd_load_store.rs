//! C4.1.94 Loads and stores, SIMD&FP registers: LDR/STR/LDUR/STUR of B, H, S, D and Q registers in every
//! addressing form, LDR (literal), LDP/STP/LDNP/STNP, and the structure loads and stores LD1-LD4/ST1-ST4 (multiple
//! structures and single structure) and LD1R-LD4R.
//!
//! As in the general-purpose loads and stores, nothing is written (memory or register) before every access of the
//! instruction has been checked, so a faulting instruction changes nothing. A load writes `V[t]` at the access
//! size, which clears the rest of the register (`LDR b0` leaves bits 127:8 zero).

use super::pseudocode::{ExtendType, elem, extend_reg, replicate128, set_elem, sign_extend};
use super::{Exec, Indexing, PairIndexing, Step, Unpredictable};
use crate::engine::Exit;
use crate::memory::Access;

/// One element transfer of a structure load or store: the memory address, the register and the lane, in the order
/// the pseudocode's loops visit them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Transfer {
    address: u64,
    register: u32,
    element: u32,
}

/// The decode of LD1-LD4/ST1-ST4 (multiple structures): `(rpt, selem)` for `opcode`, `None` where UNDEFINED.
pub fn multiple_structures_decode(opcode: u32, size: u32, q: u32) -> Option<(u32, u32)> {
    let (rpt, selem) = match opcode {
        0b0000 => (1, 4), // LD4/ST4 (4 registers)
        0b0010 => (4, 1), // LD1/ST1 (4 registers)
        0b0100 => (1, 3), // LD3/ST3 (3 registers)
        0b0110 => (3, 1), // LD1/ST1 (3 registers)
        0b0111 => (1, 1), // LD1/ST1 (1 register)
        0b1000 => (1, 2), // LD2/ST2 (2 registers)
        0b1010 => (2, 1), // LD1/ST1 (2 registers)
        _ => return None,
    };
    // The .1D arrangement is only permitted with LD1 and ST1.
    if size == 0b11 && q == 0 && selem != 1 {
        return None;
    }
    Some((rpt, selem))
}

/// What the single-structure decode finds: the element size, whether the load replicates, and the lane.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SingleStructure {
    /// log2 of the element size in bytes.
    pub scale: u32,
    pub replicate: bool,
    pub index: u32,
}

/// The decode of LD1-LD4/ST1-ST4 (single structure) and LD1R-LD4R; `None` where UNDEFINED.
pub fn single_structure_decode(q: u32, l: u32, opcode: u32, s: u32, size: u32) -> Option<SingleStructure> {
    let decoded = match opcode >> 1 {
        // Load and replicate.
        3 => {
            if l == 0 || s == 1 {
                return None;
            }
            SingleStructure { scale: size, replicate: true, index: 0 }
        }
        // B[0-15].
        0 => SingleStructure { scale: 0, replicate: false, index: q << 3 | s << 2 | size },
        // H[0-7].
        1 => {
            if size & 1 == 1 {
                return None;
            }
            SingleStructure { scale: 1, replicate: false, index: q << 2 | s << 1 | size >> 1 }
        }
        _ => {
            if size & 0b10 != 0 {
                return None;
            }
            if size & 1 == 0 {
                // S[0-3].
                SingleStructure { scale: 2, replicate: false, index: q << 1 | s }
            } else {
                // D[0-1].
                if s == 1 {
                    return None;
                }
                SingleStructure { scale: 3, replicate: false, index: q }
            }
        }
    };
    Some(decoded)
}

/// The registers a single-structure instruction (or LD1R-LD4R) transfers: `selem` = opcode<0>:R + 1.
pub fn single_structure_registers(r: u32, opcode: u32) -> u32 {
    ((opcode & 1) << 1 | r) + 1
}

/// The element transfers of LD1-LD4/ST1-ST4 (multiple structures), in the pseudocode's order: for each of `rpt`
/// register groups, for each element, one element of each of the `selem` registers of the structure.
fn multiple_structures_transfers(
    address: u64,
    rt: u32,
    rpt: u32,
    selem: u32,
    elements: u32,
    ebytes: u64,
) -> Vec<Transfer> {
    let mut transfers = Vec::new();
    let mut offs = 0u64;
    for r in 0..rpt {
        for e in 0..elements {
            let mut tt = (rt + r) % 32;
            for _ in 0..selem {
                transfers.push(Transfer { address: address.wrapping_add(offs), register: tt, element: e });
                offs += ebytes;
                tt = (tt + 1) % 32;
            }
        }
    }
    transfers
}

/// The element transfers of the single-structure forms: lane `index` of `selem` consecutive registers.
fn single_structure_transfers(address: u64, rt: u32, selem: u32, index: u32, ebytes: u64) -> Vec<Transfer> {
    (0..selem)
        .map(|s| Transfer {
            address: address.wrapping_add(u64::from(s) * ebytes),
            register: (rt + s) % 32,
            element: index,
        })
        .collect()
}

impl Exec<'_> {
    /// LDR/STR (immediate, SIMD&FP) with post-index, pre-index and unsigned offset, and LDUR/STUR (SIMD&FP).
    pub(super) fn load_store_simd_fp_immediate(
        &mut self,
        word: u32,
        indexing: Indexing,
        size: u32,
        opc: u32,
        imm: u32,
        rn: u32,
        rt: u32,
    ) -> Step {
        let scale = (opc >> 1) << 2 | size;
        if scale > 4 {
            return self.unallocated(word);
        }
        let offset = match indexing {
            Indexing::UnsignedOffset => u64::from(imm) << scale,
            _ => sign_extend(u64::from(imm), 9),
        };
        let wback = matches!(indexing, Indexing::PostIndex | Indexing::PreIndex);
        let postindex = indexing == Indexing::PostIndex;
        self.load_store_simd_fp_register(scale, opc & 1 == 1, wback, postindex, offset, rn, rt)
    }

    /// LDR/STR (register, SIMD&FP).
    pub(super) fn load_store_simd_fp_register_offset(
        &mut self,
        word: u32,
        size: u32,
        opc: u32,
        rm: u32,
        option: u32,
        s: u32,
        rn: u32,
        rt: u32,
    ) -> Step {
        let scale = (opc >> 1) << 2 | size;
        if scale > 4 || option & 0b010 == 0 {
            return self.unallocated(word);
        }
        let shift = if s == 1 { scale } else { 0 };
        let offset = extend_reg(self.x(rm, 64), ExtendType::decode(option), shift, 64);
        self.load_store_simd_fp_register(scale, opc & 1 == 1, false, false, offset, rn, rt)
    }

    /// The operation shared by the single-register SIMD&FP loads and stores.
    fn load_store_simd_fp_register(
        &mut self,
        scale: u32,
        is_load: bool,
        wback: bool,
        postindex: bool,
        offset: u64,
        rn: u32,
        rt: u32,
    ) -> Step {
        let bytes = 1usize << scale;
        let datasize = 8 * bytes as u32;
        let mut address = self.x_or_sp(rn, 64);
        if !postindex {
            address = address.wrapping_add(offset);
        }
        if is_load {
            let data = self.mem_read(address, bytes)?;
            self.set_v(rt, data, datasize);
        } else {
            self.mem_write(address, bytes, self.v(rt, datasize))?;
        }
        if wback {
            if postindex {
                address = address.wrapping_add(offset);
            }
            self.set_x_or_sp(rn, address, 64);
        }
        Ok(())
    }

    /// LDR (literal, SIMD&FP).
    pub(super) fn load_simd_fp_literal(&mut self, word: u32, opc: u32, imm19: u32, rt: u32) -> Step {
        if opc == 0b11 {
            return self.unallocated(word);
        }
        let bytes = 4usize << opc;
        let offset = sign_extend(u64::from(imm19) << 2, 21);
        let address = self.pc.wrapping_add(offset);
        let data = self.mem_read(address, bytes)?;
        self.set_v(rt, data, 8 * bytes as u32);
        Ok(())
    }

    /// LDP, STP, LDNP, STNP (SIMD&FP).
    pub(super) fn load_store_simd_fp_pair(
        &mut self,
        word: u32,
        indexing: PairIndexing,
        opc: u32,
        l: u32,
        imm7: u32,
        rt2: u32,
        rn: u32,
        rt: u32,
    ) -> Step {
        if opc == 0b11 {
            return self.unallocated(word);
        }
        let (wback, postindex) = match indexing {
            PairIndexing::NoAllocate | PairIndexing::Offset => (false, false),
            PairIndexing::PostIndex => (true, true),
            PairIndexing::PreIndex => (true, false),
        };
        let is_load = l == 1;
        let scale = 2 + opc;
        let bytes = 1usize << scale;
        let datasize = 8 * bytes as u32;
        let offset = sign_extend(u64::from(imm7), 7) << scale;
        if is_load && rt == rt2 {
            self.constrain_unpredictable(Unpredictable::LoadPairSameRegister);
        }
        let mut address = self.x_or_sp(rn, 64);
        if !postindex {
            address = address.wrapping_add(offset);
        }
        let address2 = address.wrapping_add(bytes as u64);
        if is_load {
            let data1 = self.mem_read(address, bytes)?;
            let data2 = self.mem_read(address2, bytes)?;
            self.set_v(rt, data1, datasize);
            self.set_v(rt2, data2, datasize);
        } else {
            self.mem_check(address, bytes, Access::Write)?;
            self.mem_check(address2, bytes, Access::Write)?;
            self.mem_write(address, bytes, self.v(rt, datasize))?;
            self.mem_write(address2, bytes, self.v(rt2, datasize))?;
        }
        if wback {
            if postindex {
                address = address.wrapping_add(offset);
            }
            self.set_x_or_sp(rn, address, 64);
        }
        Ok(())
    }

    /// LD1, LD2, LD3, LD4, ST1, ST2, ST3, ST4 (multiple structures), with and without post-index (`post_index` is
    /// the `Rm` field of the post-indexed forms).
    pub(super) fn load_store_multiple_structures(
        &mut self,
        word: u32,
        q: u32,
        l: u32,
        post_index: Option<u32>,
        opcode: u32,
        size: u32,
        rn: u32,
        rt: u32,
    ) -> Step {
        let Some((rpt, selem)) = multiple_structures_decode(opcode, size, q) else {
            return self.unallocated(word);
        };
        let datasize = if q == 1 { 128 } else { 64 };
        let esize = 8 << size;
        let elements = datasize / esize;
        let ebytes = u64::from(esize / 8);
        let address = self.x_or_sp(rn, 64);
        let transfers = multiple_structures_transfers(address, rt, rpt, selem, elements, ebytes);
        if l == 1 {
            let values = self.read_elements(&transfers, ebytes)?;
            for (transfer, value) in transfers.iter().zip(values) {
                // `V[tt] = rval` at datasize bits: a 64-bit arrangement clears the upper half.
                let mut rval = self.v(transfer.register, datasize);
                set_elem(&mut rval, transfer.element, esize, value);
                self.set_v(transfer.register, rval, datasize);
            }
        } else {
            self.write_elements(&transfers, esize)?;
        }
        let offs = ebytes * transfers.len() as u64;
        self.structure_writeback(post_index, rn, address, offs);
        Ok(())
    }

    /// LD1, LD2, LD3, LD4, ST1, ST2, ST3, ST4 (single structure) and LD1R, LD2R, LD3R, LD4R, with and without
    /// post-index (`post_index` is the `Rm` field of the post-indexed forms).
    pub(super) fn load_store_single_structure(
        &mut self,
        word: u32,
        q: u32,
        l: u32,
        r: u32,
        post_index: Option<u32>,
        opcode: u32,
        s: u32,
        size: u32,
        rn: u32,
        rt: u32,
    ) -> Step {
        let Some(decoded) = single_structure_decode(q, l, opcode, s, size) else {
            return self.unallocated(word);
        };
        let selem = single_structure_registers(r, opcode);
        let datasize = if q == 1 { 128 } else { 64 };
        let esize = 8 << decoded.scale;
        let ebytes = u64::from(esize / 8);
        let address = self.x_or_sp(rn, 64);
        let transfers = single_structure_transfers(address, rt, selem, decoded.index, ebytes);
        if decoded.replicate {
            // Load and replicate to all elements of a 64- or 128-bit register.
            let values = self.read_elements(&transfers, ebytes)?;
            for (transfer, value) in transfers.iter().zip(values) {
                self.set_v(transfer.register, replicate128(value, esize, datasize), datasize);
            }
        } else if l == 1 {
            // Insert into one lane of the 128-bit register: the other lanes stay.
            let values = self.read_elements(&transfers, ebytes)?;
            for (transfer, value) in transfers.iter().zip(values) {
                let mut rval = self.v(transfer.register, 128);
                set_elem(&mut rval, transfer.element, esize, value);
                self.set_v(transfer.register, rval, 128);
            }
        } else {
            self.write_elements(&transfers, esize)?;
        }
        let offs = ebytes * transfers.len() as u64;
        self.structure_writeback(post_index, rn, address, offs);
        Ok(())
    }

    /// Reads every element of a structure load, in order, before any register is written.
    fn read_elements(&self, transfers: &[Transfer], ebytes: u64) -> Result<Vec<u64>, Exit> {
        transfers.iter().map(|t| Ok(self.mem_read(t.address, ebytes as usize)? as u64)).collect()
    }

    /// Stores every element of a structure store, in order, after checking all of them.
    fn write_elements(&self, transfers: &[Transfer], esize: u32) -> Step {
        let ebytes = esize as usize / 8;
        for t in transfers {
            self.mem_check(t.address, ebytes, Access::Write)?;
        }
        for t in transfers {
            let value = elem(self.v(t.register, 128), t.element, esize);
            self.mem_write(t.address, ebytes, u128::from(value))?;
        }
        Ok(())
    }

    /// The write-back of the post-indexed structure forms: by `X[m]`, or by the bytes transferred when m is 31.
    fn structure_writeback(&mut self, post_index: Option<u32>, rn: u32, address: u64, transferred: u64) {
        if let Some(rm) = post_index {
            let offs = if rm == 31 { transferred } else { self.x(rm, 64) };
            self.set_x_or_sp(rn, address.wrapping_add(offs), 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ld3_element_order() {
        // LD3 {v1.4s-v3.4s}: memory holds x0 y0 z0 x1 y1 z1 ...; element e of each register comes from structure e.
        let transfers = multiple_structures_transfers(0x1000, 1, 1, 3, 4, 4);
        let order: Vec<(u64, u32, u32)> = transfers.iter().map(|t| (t.address, t.register, t.element)).collect();
        assert_eq!(
            order,
            [
                (0x1000, 1, 0),
                (0x1004, 2, 0),
                (0x1008, 3, 0),
                (0x100c, 1, 1),
                (0x1010, 2, 1),
                (0x1014, 3, 1),
                (0x1018, 1, 2),
                (0x101c, 2, 2),
                (0x1020, 3, 2),
                (0x1024, 1, 3),
                (0x1028, 2, 3),
                (0x102c, 3, 3),
            ]
        );
    }

    #[test]
    fn st4_registers_wrap_and_ld1_multiple_is_register_by_register() {
        // ST4 {v30.2d, v31.2d, v0.2d, v1.2d}: the list wraps from V31 to V0; two structures of four doublewords.
        let transfers = multiple_structures_transfers(0, 30, 1, 4, 2, 8);
        let order: Vec<(u32, u32)> = transfers.iter().map(|t| (t.register, t.element)).collect();
        assert_eq!(order, [(30, 0), (31, 0), (0, 0), (1, 0), (30, 1), (31, 1), (0, 1), (1, 1)]);
        assert_eq!(transfers.last().unwrap().address, 56);
        // LD1 {v4.8b, v5.8b} (two registers): all of v4, then all of v5.
        let transfers = multiple_structures_transfers(0, 4, 2, 1, 8, 1);
        let registers: Vec<u32> = transfers.iter().map(|t| t.register).collect();
        assert_eq!(registers, [4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5]);
        assert_eq!(transfers[9].address, 9);
    }

    #[test]
    fn multiple_structures_decode_table() {
        assert_eq!(multiple_structures_decode(0b0000, 0, 1), Some((1, 4)));
        assert_eq!(multiple_structures_decode(0b0111, 3, 0), Some((1, 1))); // LD1 {v0.1d}
        assert_eq!(multiple_structures_decode(0b1000, 3, 0), None); // LD2 {v0.1d, v1.1d}
        assert_eq!(multiple_structures_decode(0b1000, 3, 1), Some((1, 2))); // LD2 {v0.2d, v1.2d}
        assert_eq!(multiple_structures_decode(0b0001, 0, 1), None);
    }

    #[test]
    fn single_structure_lanes() {
        let lane = |q, l, opcode, s, size| single_structure_decode(q, l, opcode, s, size);
        // LD1 {v0.b}[15]: Q:S:size = 1111.
        assert_eq!(lane(1, 1, 0b000, 1, 0b11), Some(SingleStructure { scale: 0, replicate: false, index: 15 }));
        // ST2 {v0.h, v1.h}[5]: Q:S:size<1> = 101.
        assert_eq!(lane(1, 0, 0b010, 0, 0b10), Some(SingleStructure { scale: 1, replicate: false, index: 5 }));
        assert_eq!(lane(1, 0, 0b010, 0, 0b01), None);
        // LD3 {v0.s-v2.s}[3] and LD4 {v0.d-v3.d}[1].
        assert_eq!(lane(1, 1, 0b101, 1, 0b00), Some(SingleStructure { scale: 2, replicate: false, index: 3 }));
        assert_eq!(lane(1, 1, 0b101, 0, 0b01), Some(SingleStructure { scale: 3, replicate: false, index: 1 }));
        assert_eq!(lane(1, 1, 0b101, 1, 0b01), None);
        // LD4R {v0.8h-v3.8h}; no store form, no S = 1.
        assert_eq!(lane(1, 1, 0b111, 0, 0b01), Some(SingleStructure { scale: 1, replicate: true, index: 0 }));
        assert_eq!(lane(1, 0, 0b111, 0, 0b01), None);
        assert_eq!(lane(1, 1, 0b110, 1, 0b01), None);
        // LD2 {v7.s, v8.s}[1] at 0x100: lane 1 of v7 then of v8.
        let transfers = single_structure_transfers(0x100, 7, 2, 1, 4);
        assert_eq!(
            transfers,
            [
                Transfer { address: 0x100, register: 7, element: 1 },
                Transfer { address: 0x104, register: 8, element: 1 }
            ]
        );
    }
}
