//! Loads and stores of general-purpose and SIMD&FP registers (single, register offset, pair, literal, and the
//! Advanced SIMD structures: multiple and single, replicating or by lane).
//!
//! Each access is an unchecked host access in the guarded view of guest memory (`guest_address`): where the host
//! faults, the block leaves before the instruction (`fault`), and the reference performs it or reports the
//! fault. Constrained-unpredictable register overlaps are the reference's too.

use super::simd_integer::lanes;
use super::{Flow, Lift, Lifter, Unlifted, access_type};

/// The Cranelift IR type of a SIMD&FP register access of `bytes` bytes: a vector for a whole register, so that
/// the host moves it with one instruction.
fn vector_access_type(bytes: u32) -> cranelift_codegen::ir::Type {
    if bytes == 16 { types::I8X16 } else { access_type(bytes) }
}
use cranelift_codegen::ir::{InstBuilder, Value, types};
use tandem_reference::interp::pseudocode::sign_extend;
use tandem_reference::interp::shared_decode::{
    MemOp, decode_single, multiple_structures_decode, single_structure_decode, single_structure_registers,
};
use tandem_reference::memory::Perm;
use tandem_reference::sysreg::DC_ZVA_BLOCK_SIZE;

/// Where LD2-LD4's register `r` finds its bytes: byte i of the register (`register_bytes` of them, elements of
/// `element_bytes`) is memory byte (e selem + r) ebytes + b for its element e and byte b, one structure of `selem`
/// elements after another; `None` past the register.
fn interleaved(selem: u32, element_bytes: usize, r: u32, register_bytes: u32) -> impl Fn(usize) -> Option<usize> {
    move |byte| {
        let (element, b) = (byte / element_bytes, byte % element_bytes);
        (byte < register_bytes as usize).then_some((element * selem as usize + r as usize) * element_bytes + b)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Indexing {
    UnsignedOffset,
    Unscaled,
    PreIndex,
    PostIndex,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PairIndexing {
    Offset,
    /// LDNP/STNP: as `Offset`, except that LDPSW has no such form.
    NoAllocate,
    PreIndex,
    PostIndex,
}

impl Lifter<'_> {
    /// The base register plus the offset, and the value to write back (if any).
    fn indexed_address(&mut self, rn: u32, offset: u64, writeback: bool, postindex: bool) -> (Value, Option<Value>) {
        let base = self.x_or_sp(rn, 64);
        let offset_address = self.b.ins().iadd_imm_s(base, offset as i64);
        let address = if postindex { base } else { offset_address };
        (address, writeback.then_some(offset_address))
    }

    /// Loads `bytes` from the checked host address into general-purpose register `rt`: `regsize` bits, sign- or
    /// zero-extended.
    fn load_x(&mut self, host: Value, offset: i32, bytes: u32, rt: u32, regsize: u32, signed: bool) {
        let ty = access_type(bytes);
        let host = if offset == 0 { host } else { self.b.ins().iadd_imm_s(host, i64::from(offset)) };
        let data = self.host_load(ty, host);
        let value = match (signed, ty == Self::int_type(regsize)) {
            (_, true) => data,
            (true, false) => self.b.ins().sextend(Self::int_type(regsize), data),
            (false, false) => self.b.ins().uextend(types::I64, data),
        };
        self.set_x(rt, value);
    }

    /// Stores the low `bytes` of general-purpose register `rt`.
    fn store_x(&mut self, host: Value, offset: i32, bytes: u32, rt: u32) {
        let value = self.x(rt, 64);
        let ty = access_type(bytes);
        let value = if ty == types::I64 { value } else { self.b.ins().ireduce(ty, value) };
        self.host_store(value, host, offset);
    }

    /// Loads `bytes` into SIMD&FP registers `rt` (and the ones after, at `bytes` apart): every load happens
    /// before any register changes, since those live in the `CpuState`, which a faulting load must leave as it was.
    fn load_v(&mut self, host: Value, offset: i32, bytes: u32, registers: &[u32]) {
        let mut loaded = Vec::new();
        for (index, &register) in registers.iter().enumerate() {
            let offset = offset + (index as u32 * bytes) as i32;
            let host = if offset == 0 { host } else { self.b.ins().iadd_imm_s(host, i64::from(offset)) };
            loaded.push((register, self.host_load(vector_access_type(bytes), host)));
        }
        for (register, data) in loaded {
            self.set_v(register, data);
        }
    }

    fn store_v(&mut self, host: Value, offset: i32, bytes: u32, rt: u32) {
        let value = self.v_low(rt, vector_access_type(bytes));
        self.host_store(value, host, offset);
    }

    /// LDR/STR/LDRB/STRB/LDRH/STRH/LDRS*/PRFM and their SIMD&FP forms, with an immediate offset.
    pub(super) fn load_store_single(
        &mut self,
        indexing: Indexing,
        size: u32,
        opc: u32,
        imm: u32,
        rn: u32,
        rt: u32,
        simd_fp: bool,
    ) -> Lift {
        let scale = if simd_fp { (opc >> 1) << 2 | size } else { size };
        let offset = match indexing {
            Indexing::UnsignedOffset => u64::from(imm) << scale,
            _ => sign_extend(u64::from(imm), 9),
        };
        let (writeback, postindex) = match indexing {
            Indexing::UnsignedOffset | Indexing::Unscaled => (false, false),
            Indexing::PreIndex => (true, false),
            Indexing::PostIndex => (true, true),
        };
        let prefetch_allowed = !writeback;
        self.load_store_one(size, opc, rn, rt, simd_fp, prefetch_allowed, |lifter| {
            lifter.indexed_address(rn, offset, writeback, postindex)
        })
    }

    /// The register-offset forms: base plus `ExtendReg(m, option, s ? scale : 0)`.
    pub(super) fn load_store_register_offset(
        &mut self,
        size: u32,
        opc: u32,
        rm: u32,
        option: u32,
        s: u32,
        rn: u32,
        rt: u32,
        simd_fp: bool,
    ) -> Lift {
        if option & 0b010 == 0 {
            return Err(Unlifted);
        }
        let scale = if simd_fp { (opc >> 1) << 2 | size } else { size };
        let shift = if s == 1 { scale } else { 0 };
        self.load_store_one(size, opc, rn, rt, simd_fp, true, |lifter| {
            let base = lifter.x_or_sp(rn, 64);
            let index = lifter.extended_index(rm, option, shift);
            (lifter.b.ins().iadd(base, index), None)
        })
    }

    /// `ExtendReg(m, option, shift)` at 64 bits for an address (option is UXTW, LSL, SXTW or SXTX).
    fn extended_index(&mut self, rm: u32, option: u32, shift: u32) -> Value {
        let value = if option & 0b001 == 0 {
            let word = self.x(rm, 32);
            if option & 0b100 != 0 {
                self.b.ins().sextend(types::I64, word)
            } else {
                self.b.ins().uextend(types::I64, word)
            }
        } else {
            self.x(rm, 64)
        };
        if shift == 0 { value } else { self.b.ins().ishl_imm_u(value, i64::from(shift)) }
    }

    /// One register to or from memory; `address` computes the address and the writeback value.
    fn load_store_one(
        &mut self,
        size: u32,
        opc: u32,
        rn: u32,
        rt: u32,
        simd_fp: bool,
        prefetch_allowed: bool,
        address: impl FnOnce(&mut Self) -> (Value, Option<Value>),
    ) -> Lift {
        if simd_fp {
            let scale = (opc >> 1) << 2 | size;
            if scale > 4 {
                return Err(Unlifted);
            }
            let bytes = 1 << scale;
            let is_load = opc & 1 == 1;
            let (address, writeback) = address(self);
            let host = self.guest_address(address, bytes, if is_load { Perm::READ } else { Perm::WRITE });
            if is_load {
                self.load_v(host, 0, bytes, &[rt])
            } else {
                self.store_v(host, 0, bytes, rt)
            }
            if let Some(written) = writeback {
                self.set_x_or_sp(rn, written);
            }
            return Ok(Flow::Next);
        }
        let Some(decoded) = decode_single(size, opc, prefetch_allowed) else { return Err(Unlifted) };
        let (address, writeback) = address(self);
        if writeback.is_some() && rn == rt && rn != 31 {
            return Err(Unlifted);
        }
        let bytes = 1 << size;
        match decoded.memop {
            MemOp::Store => {
                let host = self.guest_address(address, bytes, Perm::WRITE);
                self.store_x(host, 0, bytes, rt);
            }
            MemOp::Load => {
                let host = self.guest_address(address, bytes, Perm::READ);
                self.load_x(host, 0, bytes, rt, decoded.regsize, decoded.signed);
            }
            // A hint: it never faults (and has no writeback form).
            MemOp::Prefetch => {}
        }
        if let Some(written) = writeback {
            self.set_x_or_sp(rn, written);
        }
        Ok(Flow::Next)
    }

    /// LDR (literal), LDRSW (literal), PRFM (literal) and LDR (literal, SIMD&FP).
    pub(super) fn load_literal(&mut self, opc: u32, imm19: u32, rt: u32, simd_fp: bool) -> Lift {
        let (bytes, signed) = match (simd_fp, opc) {
            (false, 0b11) => return Ok(Flow::Next), // PRFM: a hint.
            (true, 0b11) => return Err(Unlifted),
            (true, _) => (4 << opc, false),
            (false, 0b00) => (4, false),
            (false, 0b01) => (8, false),
            (false, _) => (4, true),
        };
        let address = self.iconst(types::I64, self.pc.wrapping_add(sign_extend(u64::from(imm19) << 2, 21)));
        let host = self.guest_address(address, bytes, Perm::READ);
        if simd_fp {
            self.load_v(host, 0, bytes, &[rt])
        } else {
            self.load_x(host, 0, bytes, rt, 64, signed)
        }
        Ok(Flow::Next)
    }

    /// LD1-LD4/ST1-ST4 (multiple structures), with and without post-index (`post_index` is the Rm field of the
    /// post-indexed form): consecutive memory, so one check covers it all. LD1/ST1 move whole registers; LD2-LD4
    /// and ST2-ST4 interleave the elements of their 2-4 registers, one structure after another (`interleaved`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn load_store_multiple(
        &mut self,
        q: u32,
        l: u32,
        post_index: Option<u32>,
        opcode: u32,
        size: u32,
        rn: u32,
        rt: u32,
    ) -> Lift {
        let Some((registers, selem)) = multiple_structures_decode(opcode, size, q) else { return Err(Unlifted) };
        let bytes = 8 << q;
        let registers = registers * selem;
        let total = registers * bytes;
        let address = self.x_or_sp(rn, 64);
        let is_load = l == 1;
        let host = self.structure_address(address, total, is_load, registers > 1);
        let targets: Vec<u32> = (0..registers).map(|register| (rt + register) % 32).collect();
        match (is_load, selem) {
            (true, 1) => self.load_v(host, 0, bytes, &targets),
            (false, 1) => {
                for (index, &t) in targets.iter().enumerate() {
                    self.store_v(host, (index as u32 * bytes) as i32, bytes, t);
                }
            }
            (true, _) => {
                let chunks = self.load_chunks(host, total, q);
                let results: Vec<Value> = (0..selem)
                    .map(|r| {
                        let layout = interleaved(selem, 1 << size, r, bytes);
                        self.gather_bytes(&chunks, |byte| layout(byte).map(|offset| (offset / 16, offset % 16)))
                    })
                    .collect();
                for (&t, result) in targets.iter().zip(results) {
                    self.set_vector(t, result, q);
                }
            }
            (false, _) => {
                let sources: Vec<Value> = targets.iter().map(|&t| self.vector(t, types::I8X16)).collect();
                let element_bytes = 1usize << size;
                for chunk in 0..total.div_ceil(16) as usize {
                    // Memory byte m is byte b of element e of register r, m = (e selem + r) ebytes + b.
                    let gathered = self.gather_bytes(&sources, |byte| {
                        let m = 16 * chunk + byte;
                        let (element, b) = (m / element_bytes, m % element_bytes);
                        (m < total as usize)
                            .then_some((element % selem as usize, element / selem as usize * element_bytes + b))
                    });
                    self.store_chunk(gathered, host, chunk, total);
                }
            }
        }
        self.structure_writeback(post_index, rn, address, total);
        Ok(Flow::Next)
    }

    /// The checked host address of a structure access of `total` bytes at `address`: a store made of several host
    /// stores (`in_parts`) that crosses a page probes the second page first (`Lifter::probe_last_page`), since its
    /// first part could otherwise land before the second faulted.
    fn structure_address(&mut self, address: Value, total: u32, is_load: bool, in_parts: bool) -> Value {
        match (is_load, in_parts) {
            (true, _) => self.guest_address(address, total, Perm::READ),
            (false, false) => self.guest_address(address, total, Perm::WRITE),
            (false, true) => self.guest_address_in_parts(address, total, Perm::WRITE),
        }
    }

    /// The write-back of the post-indexed structure forms (`post_index` their Rm field): X[rn] moves on by X[m],
    /// or by the bytes transferred when m is 31.
    fn structure_writeback(&mut self, post_index: Option<u32>, rn: u32, address: Value, total: u32) {
        if let Some(rm) = post_index {
            let step = if rm == 31 { self.iconst(types::I64, u64::from(total)) } else { self.x(rm, 64) };
            let written = self.b.ins().iadd(address, step);
            self.set_x_or_sp(rn, written);
        }
    }

    /// The `total` bytes at `host` as vectors of 16 (a 64-bit register's structures load 8 bytes at a time, never
    /// past the access: the last vector's upper half is zero then).
    fn load_chunks(&mut self, host: Value, total: u32, q: u32) -> Vec<Value> {
        if q == 1 {
            return (0..total / 16)
                .map(|chunk| {
                    let at = self.b.ins().iadd_imm_s(host, i64::from(16 * chunk));
                    self.host_load(types::I8X16, at)
                })
                .collect();
        }
        let halves: Vec<Value> = (0..total / 8)
            .map(|half| {
                let at = self.b.ins().iadd_imm_s(host, i64::from(8 * half));
                self.host_load(types::I64, at)
            })
            .collect();
        halves
            .chunks(2)
            .map(|pair| {
                let zero = self.iconst(types::I64X2, 0);
                let mut vector = self.b.ins().insertlane(zero, pair[0], 0);
                if let Some(&high) = pair.get(1) {
                    vector = self.b.ins().insertlane(vector, high, 1);
                }
                self.lane_bitcast(types::I8X16, vector)
            })
            .collect()
    }

    /// Stores vector `chunk` of an access of `total` bytes at `host`: 16 bytes, or the 8 left at the end.
    fn store_chunk(&mut self, chunk_value: Value, host: Value, chunk: usize, total: u32) {
        let offset = (16 * chunk) as i32;
        if total as usize - 16 * chunk >= 16 {
            self.host_store(chunk_value, host, offset);
        } else {
            let quads = self.lane_bitcast(types::I64X2, chunk_value);
            let low = self.b.ins().extractlane(quads, 0);
            self.host_store(low, host, offset);
        }
    }

    /// A vector whose byte i is byte `source(i)` = (k, j) of `vectors[k]`, or zero where `source` gives `None`: a
    /// swizzle of each vector (Cranelift's gives zero for indices past 15) ORed together.
    fn gather_bytes(&mut self, vectors: &[Value], source: impl Fn(usize) -> Option<(usize, usize)>) -> Value {
        let mut gathered: Option<Value> = None;
        for (k, &vector) in vectors.iter().enumerate() {
            let indices: Vec<u8> = (0..16)
                .map(|byte| match source(byte) {
                    Some((from, index)) if from == k => index as u8,
                    _ => 0x80,
                })
                .collect();
            if indices.iter().all(|&index| index == 0x80) {
                continue;
            }
            let indices = self.b.func.dfg.constants.insert(indices.into());
            let indices = self.b.ins().vconst(types::I8X16, indices);
            let picked = self.b.ins().swizzle(vector, indices);
            gathered = Some(match gathered {
                Some(other) => self.b.ins().bor(other, picked),
                None => picked,
            });
        }
        gathered.unwrap_or_else(|| self.iconst(types::I8X16, 0))
    }

    /// LD1-LD4 and ST1-ST4 (single structure: one lane of 1-4 consecutive registers, the other lanes kept) and
    /// LD1R-LD4R (one element replicated in every lane of each register, its lower half, the upper one zeroed, when
    /// `q` is 0), from consecutive memory; every load before any register changes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn load_store_single_structure(
        &mut self,
        q: u32,
        l: u32,
        r: u32,
        post_index: Option<u32>,
        opcode: u32,
        s: u32,
        size: u32,
        rn: u32,
        rt: u32,
    ) -> Lift {
        let Some(decoded) = single_structure_decode(q, l, opcode, s, size) else { return Err(Unlifted) };
        let selem = single_structure_registers(r, opcode);
        let element = 1u32 << decoded.scale;
        let total = element * selem;
        let address = self.x_or_sp(rn, 64);
        let is_load = l == 1;
        let host = self.structure_address(address, total, is_load, selem > 1);
        let ty = lanes(decoded.scale);
        let registers: Vec<u32> = (0..selem).map(|k| (rt + k) % 32).collect();
        if is_load {
            let values: Vec<Value> = (0..selem)
                .map(|k| {
                    let at = self.b.ins().iadd_imm_s(host, i64::from(k * element));
                    self.host_load(access_type(element), at)
                })
                .collect();
            for (&register, value) in registers.iter().zip(values) {
                if decoded.replicate {
                    let replicated = self.b.ins().splat(ty, value);
                    self.set_vector(register, replicated, q);
                } else {
                    let vector = self.vector(register, ty);
                    let inserted = self.b.ins().insertlane(vector, value, decoded.index as u8);
                    self.set_vector(register, inserted, 1);
                }
            }
        } else {
            for (k, &register) in registers.iter().enumerate() {
                let vector = self.vector(register, ty);
                let value = self.b.ins().extractlane(vector, decoded.index as u8);
                self.host_store(value, host, (k as u32 * element) as i32);
            }
        }
        self.structure_writeback(post_index, rn, address, total);
        Ok(Flow::Next)
    }

    /// DC ZVA: zeroes the naturally aligned block of `DC_ZVA_BLOCK_SIZE` bytes that holds X[t]'s address, with
    /// host stores of 16 bytes. The block lies in one page, so the first store faults where any would, with
    /// nothing written: the stores are one access as `guest_address` means it. A fault reruns the reference,
    /// which reports X[t]'s address.
    pub(super) fn zero_block(&mut self, rt: u32) -> Lift {
        let address = self.x(rt, 64);
        let block = self.and_const(address, !(DC_ZVA_BLOCK_SIZE - 1));
        let host = self.guest_address(block, DC_ZVA_BLOCK_SIZE as u32, Perm::WRITE);
        let zero = self.b.ins().iconst(types::I64, 0);
        let zero = self.b.ins().scalar_to_vector(types::I64X2, zero);
        for offset in (0..DC_ZVA_BLOCK_SIZE as i32).step_by(16) {
            self.host_store(zero, host, offset);
        }
        Ok(Flow::Next)
    }

    /// LDP, STP, LDPSW, LDNP, STNP and their SIMD&FP forms.
    pub(super) fn load_store_pair(
        &mut self,
        indexing: PairIndexing,
        opc: u32,
        l: u32,
        imm7: u32,
        rt2: u32,
        rn: u32,
        rt: u32,
        simd_fp: bool,
    ) -> Lift {
        let is_load = l == 1;
        let signed = !simd_fp && opc & 1 == 1;
        if opc == 0b11 || (signed && (!is_load || indexing == PairIndexing::NoAllocate)) || (is_load && rt == rt2) {
            return Err(Unlifted);
        }
        let (writeback, postindex) = match indexing {
            PairIndexing::Offset | PairIndexing::NoAllocate => (false, false),
            PairIndexing::PreIndex => (true, false),
            PairIndexing::PostIndex => (true, true),
        };
        if !simd_fp && writeback && (rt == rn || rt2 == rn) && rn != 31 {
            return Err(Unlifted);
        }
        let scale = if simd_fp { 2 + opc } else { 2 + (opc >> 1) };
        let bytes = 1u32 << scale;
        let offset = sign_extend(u64::from(imm7), 7) << scale;
        let (address, written) = self.indexed_address(rn, offset, writeback, postindex);
        let second = bytes as i32;
        if is_load {
            let host = self.guest_address(address, 2 * bytes, Perm::READ);
            if simd_fp {
                self.load_v(host, 0, bytes, &[rt, rt2]);
            } else {
                let regsize = if signed { 64 } else { 8 * bytes };
                self.load_x(host, 0, bytes, rt, regsize, signed);
                self.load_x(host, second, bytes, rt2, regsize, signed);
            }
        } else if bytes == 16 {
            let host = self.guest_address_in_parts(address, 2 * bytes, Perm::WRITE);
            self.store_v(host, 0, bytes, rt);
            self.store_v(host, second, bytes, rt2);
        } else {
            // One host store for both registers: all of it lands, or none.
            let ty = access_type(bytes);
            let (first, second) = if simd_fp {
                (self.v_low(rt, ty), self.v_low(rt2, ty))
            } else {
                let (first, second) = (self.x(rt, 64), self.x(rt2, 64));
                if bytes == 8 {
                    (first, second)
                } else {
                    (self.b.ins().ireduce(ty, first), self.b.ins().ireduce(ty, second))
                }
            };
            let pair = if bytes == 8 {
                let vector = self.b.ins().scalar_to_vector(types::I64X2, first);
                self.b.ins().insertlane(vector, second, 1)
            } else {
                let low = self.b.ins().uextend(types::I64, first);
                let high = self.b.ins().uextend(types::I64, second);
                let high = self.b.ins().ishl_imm_u(high, 32);
                self.b.ins().bor(low, high)
            };
            let host = self.guest_address(address, 2 * bytes, Perm::WRITE);
            self.host_store(pair, host, 0);
        }
        if let Some(written) = written {
            self.set_x_or_sp(rn, written);
        }
        Ok(Flow::Next)
    }
}
