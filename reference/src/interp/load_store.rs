//! C4.1.94 Loads and stores (general-purpose registers).
//!
//! SP alignment checking (SCTLR_EL1.SA0) is not modelled, as QEMU does not model it either. Accesses that the
//! architecture requires to be aligned (exclusives, acquire/release, atomics) fault when they are not. Multi-part
//! accesses check every byte before they write any.

use super::pac::{PacKey, auth};
use super::pseudocode::{ExtendType, extend_reg, sign_extend};
use super::{Exec, Indexing, PairIndexing, Step, Unpredictable};
use crate::memory::Access;

/// `MemOp` of the pseudocode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MemOp {
    Load,
    Store,
    Prefetch,
}

/// The shared decode of LDR/STR/LDRS*/PRFM from `size` and `opc`.
#[derive(Clone, Copy, Debug)]
pub struct SingleDecode {
    pub memop: MemOp,
    /// log2 of the access size in bytes.
    pub scale: u32,
    pub regsize: u32,
    pub signed: bool,
}

/// The decode section shared by the single-register loads and stores; `None` is UNDEFINED.
pub fn decode_single(size: u32, opc: u32, prefetch_allowed: bool) -> Option<SingleDecode> {
    let scale = size;
    if opc & 0b10 == 0 {
        // Store or zero-extending load.
        let memop = if opc & 1 == 1 { MemOp::Load } else { MemOp::Store };
        let regsize = if size == 0b11 { 64 } else { 32 };
        return Some(SingleDecode { memop, scale, regsize, signed: false });
    }
    if size == 0b11 {
        // Prefetch memory.
        if opc & 1 == 1 || !prefetch_allowed {
            return None;
        }
        return Some(SingleDecode { memop: MemOp::Prefetch, scale, regsize: 64, signed: false });
    }
    // Sign-extending load.
    if size == 0b10 && opc & 1 == 1 {
        return None;
    }
    let regsize = if opc & 1 == 1 { 32 } else { 64 };
    Some(SingleDecode { memop: MemOp::Load, scale, regsize, signed: true })
}

impl Exec<'_> {
    /// LDR/STR/LDRB/STRB/LDRH/STRH/LDRS*/PRFM with an immediate offset: unscaled (LDUR...), pre- and post-indexed,
    /// unprivileged (LDTR..., as EL0 executes them: like the plain forms) and unsigned offset.
    pub(super) fn load_store_immediate(
        &mut self,
        word: u32,
        indexing: Indexing,
        size: u32,
        opc: u32,
        imm: u32,
        rn: u32,
        rt: u32,
    ) -> Step {
        let (wback, postindex, offset) = match indexing {
            Indexing::Unscaled | Indexing::Unprivileged => (false, false, sign_extend(u64::from(imm), 9)),
            Indexing::PostIndex => (true, true, sign_extend(u64::from(imm), 9)),
            Indexing::PreIndex => (true, false, sign_extend(u64::from(imm), 9)),
            Indexing::UnsignedOffset => (false, false, u64::from(imm) << size),
        };
        let prefetch_allowed = matches!(indexing, Indexing::Unscaled | Indexing::UnsignedOffset);
        let Some(decoded) = decode_single(size, opc, prefetch_allowed) else {
            return self.unallocated(word);
        };
        self.load_store_single(decoded, wback, postindex, offset, rn, rt)
    }

    /// LDR/STR/LDRB/... (register offset).
    pub(super) fn load_store_register_offset(
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
        if option & 0b010 == 0 {
            // Sub-word index.
            return self.unallocated(word);
        }
        let Some(decoded) = decode_single(size, opc, true) else {
            return self.unallocated(word);
        };
        let shift = if s == 1 { decoded.scale } else { 0 };
        let offset = extend_reg(self.x(rm, 64), ExtendType::decode(option), shift, 64);
        self.load_store_single(decoded, false, false, offset, rn, rt)
    }

    fn load_store_single(
        &mut self,
        decoded: SingleDecode,
        wback: bool,
        postindex: bool,
        offset: u64,
        rn: u32,
        rt: u32,
    ) -> Step {
        if decoded.memop == MemOp::Prefetch {
            // A hint: never faults.
            return Ok(());
        }
        if wback && rn == rt && rn != 31 {
            self.constrain_unpredictable(Unpredictable::WritebackOverlapsTransfer);
        }
        let bytes = 1usize << decoded.scale;
        let datasize = 8 * bytes as u32;
        let mut address = self.x_or_sp(rn, 64);
        if !postindex {
            address = address.wrapping_add(offset);
        }
        match decoded.memop {
            MemOp::Store => {
                let data = self.x(rt, datasize);
                self.mem_write(address, bytes, u128::from(data))?;
            }
            _ => {
                let data = self.mem_read(address, bytes)? as u64;
                let value = if decoded.signed { sign_extend(data, datasize) } else { data };
                self.set_x(rt, value, decoded.regsize);
            }
        }
        if wback {
            if postindex {
                address = address.wrapping_add(offset);
            }
            self.set_x_or_sp(rn, address, 64);
        }
        Ok(())
    }

    /// LDRAA, LDRAB: a doubleword load from the base authenticated with a data key and the zero register as the
    /// modifier, plus a scaled 10-bit signed offset, with optional pre-index writeback of that address.
    pub(super) fn load_register_pac(&mut self, m: u32, s: u32, imm9: u32, w: u32, rn: u32, rt: u32) -> Step {
        let wback = w == 1;
        let key = PacKey::decode(true, m == 1);
        let offset = sign_extend(u64::from(s << 9 | imm9), 10) << 3;
        if wback && rn == rt && rn != 31 {
            self.constrain_unpredictable(Unpredictable::WritebackOverlapsTransfer);
        }
        let address = auth(key, self.x_or_sp(rn, 64), 0).wrapping_add(offset);
        let data = self.mem_read(address, 8)? as u64;
        self.set_x(rt, data, 64);
        if wback {
            self.set_x_or_sp(rn, address, 64);
        }
        Ok(())
    }

    /// LDR (literal), LDRSW (literal), PRFM (literal).
    pub(super) fn load_literal(&mut self, opc: u32, imm19: u32, rt: u32) -> Step {
        let offset = sign_extend(u64::from(imm19) << 2, 21);
        let (bytes, signed) = match opc {
            0b00 => (4, false),
            0b01 => (8, false),
            0b10 => (4, true),
            _ => return Ok(()), // PRFM: a hint.
        };
        let address = self.pc.wrapping_add(offset);
        let data = self.mem_read(address, bytes)? as u64;
        let value = if signed { sign_extend(data, 32) } else { data };
        self.set_x(rt, value, 64);
        Ok(())
    }

    /// LDP, STP, LDPSW, LDNP, STNP.
    pub(super) fn load_store_pair(
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
        let (wback, postindex) = match indexing {
            PairIndexing::NoAllocate | PairIndexing::Offset => (false, false),
            PairIndexing::PostIndex => (true, true),
            PairIndexing::PreIndex => (true, false),
        };
        let is_load = l == 1;
        // opc<0> is LDPSW, which has no store (that encoding is STGP, a tagging instruction) and no
        // non-temporal form; opc == 11 is unallocated.
        if opc == 0b11 || (opc & 1 == 1 && (!is_load || indexing == PairIndexing::NoAllocate)) {
            return self.unallocated(word);
        }
        let signed = opc & 1 == 1;
        let scale = 2 + (opc >> 1);
        let bytes = 1usize << scale;
        let datasize = 8 * bytes as u32;
        let offset = sign_extend(u64::from(imm7), 7) << scale;
        if is_load && rt == rt2 {
            self.constrain_unpredictable(Unpredictable::LoadPairSameRegister);
        }
        if wback && (rt == rn || rt2 == rn) && rn != 31 {
            self.constrain_unpredictable(Unpredictable::WritebackOverlapsTransfer);
        }
        let mut address = self.x_or_sp(rn, 64);
        if !postindex {
            address = address.wrapping_add(offset);
        }
        if is_load {
            let both = self.mem_read(address, 2 * bytes)?;
            let (data1, data2) = split_pair(both, datasize);
            let extend = |data| if signed { sign_extend(data, datasize) } else { data };
            let regsize = if signed { 64 } else { datasize };
            self.set_x(rt, extend(data1), regsize);
            self.set_x(rt2, extend(data2), regsize);
        } else {
            let both = join_pair(self.x(rt, datasize), self.x(rt2, datasize), datasize);
            self.mem_write(address, 2 * bytes, both)?;
        }
        if wback {
            if postindex {
                address = address.wrapping_add(offset);
            }
            self.set_x_or_sp(rn, address, 64);
        }
        Ok(())
    }

    // --- Exclusives and acquire/release -------------------------------------------------------------------

    /// The monitor part of `AArch64.ExclusiveMonitorsPass`: the local monitor marks exactly this access.
    fn exclusive_monitors_pass(&mut self, address: u64, bytes: usize) -> bool {
        let monitor = self.cpu.exclusive;
        if monitor.is_open() || monitor.address != address {
            return false;
        }
        if monitor.size != bytes as u64 {
            self.constrain_unpredictable(Unpredictable::ExclusiveSizeMismatch);
            return false;
        }
        true
    }

    /// `AArch64.SetExclusiveMonitors`.
    fn set_exclusive_monitors(&mut self, address: u64, bytes: usize) {
        self.cpu.exclusive.address = address;
        self.cpu.exclusive.size = bytes as u64;
    }

    /// STXR, STLXR (all sizes).
    pub(super) fn store_exclusive(&mut self, size: u32, rs: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        if rs == rt || (rs == rn && rn != 31) {
            self.constrain_unpredictable(Unpredictable::ExclusiveStatusOverlaps);
        }
        let address = self.x_or_sp(rn, 64);
        let data = self.x(rt, 8 * bytes as u32);
        self.store_exclusive_common(address, bytes, u128::from(data), rs)
    }

    /// STXP, STLXP.
    pub(super) fn store_exclusive_pair(&mut self, sz: u32, rs: u32, rt2: u32, rn: u32, rt: u32) -> Step {
        let elsize = 32 << sz;
        let bytes = 2 * elsize as usize / 8;
        if rs == rt || rs == rt2 || (rs == rn && rn != 31) {
            self.constrain_unpredictable(Unpredictable::ExclusiveStatusOverlaps);
        }
        let address = self.x_or_sp(rn, 64);
        let data = join_pair(self.x(rt, elsize), self.x(rt2, elsize), elsize);
        self.store_exclusive_common(address, bytes, data, rs)
    }

    /// The common part of STXR/STXP. As `AArch64.ExclusiveMonitorsPass` orders it: the alignment check, then the
    /// monitor, then (only when the monitor passes) the translation and permission checks.
    fn store_exclusive_common(&mut self, address: u64, bytes: usize, data: u128, rs: u32) -> Step {
        self.check_alignment(address, bytes, Access::Write)?;
        let status = if self.exclusive_monitors_pass(address, bytes) {
            self.mem_write(address, bytes, data)?;
            0
        } else {
            1
        };
        self.cpu.exclusive.clear();
        self.set_x(rs, status, 32);
        Ok(())
    }

    /// LDXR, LDAXR (all sizes).
    pub(super) fn load_exclusive(&mut self, size: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        let address = self.x_or_sp(rn, 64);
        self.check_alignment(address, bytes, Access::Read)?;
        let data = self.mem_read(address, bytes)?;
        self.set_exclusive_monitors(address, bytes);
        self.set_x(rt, data as u64, 64);
        Ok(())
    }

    /// LDXP, LDAXP.
    pub(super) fn load_exclusive_pair(&mut self, sz: u32, rt2: u32, rn: u32, rt: u32) -> Step {
        let elsize = 32 << sz;
        let bytes = 2 * elsize as usize / 8;
        if rt == rt2 {
            self.constrain_unpredictable(Unpredictable::LoadPairSameRegister);
        }
        let address = self.x_or_sp(rn, 64);
        self.check_alignment(address, bytes, Access::Read)?;
        let data = self.mem_read(address, bytes)?;
        self.set_exclusive_monitors(address, bytes);
        let (data1, data2) = split_pair(data, elsize);
        self.set_x(rt, data1, elsize);
        self.set_x(rt2, data2, elsize);
        Ok(())
    }

    /// STLR, STLLR (all sizes).
    pub(super) fn store_release(&mut self, size: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        let address = self.x_or_sp(rn, 64);
        self.check_alignment(address, bytes, Access::Write)?;
        let data = self.x(rt, 8 * bytes as u32);
        self.mem_write(address, bytes, u128::from(data))
    }

    /// LDAR, LDLAR, LDAPR (all sizes).
    pub(super) fn load_acquire(&mut self, size: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        let address = self.x_or_sp(rn, 64);
        self.check_alignment(address, bytes, Access::Read)?;
        let data = self.mem_read(address, bytes)?;
        self.set_x(rt, data as u64, 64);
        Ok(())
    }

    // --- LSE atomics --------------------------------------------------------------------------------------------

    /// Reads the old value of an atomic read-modify-write: alignment, then the read, then the write permission
    /// (a fault reports the first access that fails, as the read comes first).
    fn atomic_read(&self, address: u64, bytes: usize) -> Result<u128, crate::engine::Exit> {
        self.check_alignment(address, bytes, Access::Write)?;
        let old = self.mem_read(address, bytes)?;
        self.mem_check(address, bytes, Access::Write)?;
        Ok(old)
    }

    /// CAS, CASA, CASL, CASAL (all sizes).
    pub(super) fn compare_and_swap(&mut self, size: u32, rs: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        let datasize = 8 * bytes as u32;
        let address = self.x_or_sp(rn, 64);
        let compare_value = u128::from(self.x(rs, datasize));
        let new_value = u128::from(self.x(rt, datasize));
        let old = self.atomic_read(address, bytes)?;
        if old == compare_value {
            self.mem_write(address, bytes, new_value)?;
        }
        self.set_x(rs, old as u64, 64);
        Ok(())
    }

    /// CASP, CASPA, CASPL, CASPAL.
    pub(super) fn compare_and_swap_pair(&mut self, word: u32, sz: u32, rs: u32, rn: u32, rt: u32) -> Step {
        if rs & 1 == 1 || rt & 1 == 1 {
            return self.unallocated(word);
        }
        let elsize = 32 << sz;
        let bytes = 2 * elsize as usize / 8;
        let address = self.x_or_sp(rn, 64);
        let compare_value = join_pair(self.x(rs, elsize), self.x(rs + 1, elsize), elsize);
        let new_value = join_pair(self.x(rt, elsize), self.x(rt + 1, elsize), elsize);
        let old = self.atomic_read(address, bytes)?;
        if old == compare_value {
            self.mem_write(address, bytes, new_value)?;
        }
        let (old1, old2) = split_pair(old, elsize);
        self.set_x(rs, old1, elsize);
        self.set_x(rs + 1, old2, elsize);
        Ok(())
    }

    /// LDADD, LDCLR, LDEOR, LDSET, LDSMAX, LDSMIN, LDUMAX, LDUMIN (all sizes and orderings; ST* aliases).
    pub(super) fn atomic_memory_op(&mut self, size: u32, rs: u32, opc: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        let datasize = 8 * bytes as u32;
        let address = self.x_or_sp(rn, 64);
        let value = self.x(rs, datasize);
        let old = self.atomic_read(address, bytes)? as u64;
        let signed = |v| sign_extend(v, datasize) as i64;
        let new = match opc {
            0b000 => old.wrapping_add(value),
            0b001 => old & !value,
            0b010 => old ^ value,
            0b011 => old | value,
            0b100 => {
                if signed(old) >= signed(value) {
                    old
                } else {
                    value
                }
            }
            0b101 => {
                if signed(old) <= signed(value) {
                    old
                } else {
                    value
                }
            }
            0b110 => old.max(value),
            _ => old.min(value),
        };
        self.mem_write(address, bytes, u128::from(new))?;
        self.set_x(rt, old, datasize);
        Ok(())
    }

    /// SWP, SWPA, SWPL, SWPAL (all sizes).
    pub(super) fn swap(&mut self, size: u32, rs: u32, rn: u32, rt: u32) -> Step {
        let bytes = 1usize << size;
        let datasize = 8 * bytes as u32;
        let address = self.x_or_sp(rn, 64);
        let value = self.x(rs, datasize);
        let old = self.atomic_read(address, bytes)? as u64;
        self.mem_write(address, bytes, u128::from(value))?;
        self.set_x(rt, old, datasize);
        Ok(())
    }
}

/// A pair of `elsize`-bit elements as one little-endian memory value: the first at the lower address.
fn join_pair(first: u64, second: u64, elsize: u32) -> u128 {
    u128::from(second) << elsize | u128::from(first)
}

fn split_pair(value: u128, elsize: u32) -> (u64, u64) {
    let mask = (1u128 << elsize) - 1;
    ((value & mask) as u64, (value >> elsize & mask) as u64)
}
