//! Load/store exclusive, acquire/release and the LSE atomics (single registers; the pair forms stay with the
//! reference).
//!
//! Guest cores take turns on one host thread, so every access completes in program order and no other core runs
//! between two instructions: plain host loads and stores give exactly the guest's ordering and atomicity, and the
//! exclusive monitor is the `CpuState`'s, as in the reference. Every inline check an instruction makes, and the
//! host fault of its first access, happens before it changes anything; then the block leaves to the reference,
//! which reports the fault the pseudocode's order of checks gives.

use super::{Flow, Lift, Lifter, Unlifted, access_type};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::memory::Perm;
use tandem_reference::state::ExclusiveMonitor;

const MONITOR_ADDRESS: usize = offset_of!(CpuState, exclusive) + offset_of!(ExclusiveMonitor, address);
const MONITOR_SIZE: usize = offset_of!(CpuState, exclusive) + offset_of!(ExclusiveMonitor, size);

impl Lifter<'_> {
    /// The low `bytes` of `X[n]` as a value of the access type.
    fn narrow_x(&mut self, n: u32, bytes: u32) -> Value {
        let value = self.x(n, 64);
        let ty = access_type(bytes);
        if ty == types::I64 { value } else { self.b.ins().ireduce(ty, value) }
    }

    /// Writes a loaded value of the access type to `X[t]`, zero-extended.
    fn set_x_loaded(&mut self, t: u32, value: Value) {
        let value = if self.b.func.dfg.value_type(value) == types::I64 {
            value
        } else {
            self.b.ins().uextend(types::I64, value)
        };
        self.set_x(t, value);
    }

    /// LDXR, LDAXR: `AArch64.SetExclusiveMonitors` marks the access.
    pub(super) fn load_exclusive(&mut self, size: u32, rn: u32, rt: u32) -> Lift {
        let bytes = 1 << size;
        let address = self.x_or_sp(rn, 64);
        let host = self.aligned_guest_address(address, bytes, Perm::READ);
        let data = self.host_load(access_type(bytes), host);
        self.set_cpu_field(address, MONITOR_ADDRESS);
        let size_value = self.iconst(types::I64, u64::from(bytes));
        self.set_cpu_field(size_value, MONITOR_SIZE);
        self.set_x_loaded(rt, data);
        Ok(Flow::Next)
    }

    /// STXR, STLXR: alignment, then the monitor, then (only when it passes) the store; the monitor clears either
    /// way. A monitor that marks this address with another size is CONSTRAINED UNPREDICTABLE: the reference's.
    pub(super) fn store_exclusive(&mut self, size: u32, rs: u32, rn: u32, rt: u32) -> Lift {
        if rs == rt || (rs == rn && rn != 31) {
            return Err(Unlifted);
        }
        let bytes = 1 << size;
        let address = self.x_or_sp(rn, 64);
        let data = self.narrow_x(rt, bytes);
        let marked_address = self.cpu_field(types::I64, MONITOR_ADDRESS);
        let marked_size = self.cpu_field(types::I64, MONITOR_SIZE);
        let misalignment = self.b.ins().band_imm_u(address, i64::from(bytes - 1));
        let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, misalignment, 0);
        let open = self.b.ins().icmp_imm_s(IntCC::Equal, marked_size, 0);
        let same_address = self.b.ins().icmp(IntCC::Equal, marked_address, address);
        let marked = self.b.ins().band_not(same_address, open);
        let same_size = self.b.ins().icmp_imm_s(IntCC::Equal, marked_size, i64::from(bytes));
        let size_mismatch = self.b.ins().band_not(marked, same_size);
        let defined = self.b.ins().band_not(aligned, size_mismatch);
        self.side_exit_unless(defined);
        let passes = self.b.ins().band(marked, same_size);
        // The replay point comes before the branch: what it stores must hold on both sides.
        let host = self.guest_address(address, bytes, Perm::WRITE);

        let store = self.b.create_block();
        let join = self.b.create_block();
        let status = self.b.append_block_param(join, types::I32);
        let failed = self.iconst(types::I32, 1);
        self.b.ins().brif(passes, store, &[], join, &[failed.into()]);
        self.b.switch_to_block(store);
        self.host_store(data, host, 0);
        let stored = self.iconst(types::I32, 0);
        self.b.ins().jump(join, &[stored.into()]);
        self.b.switch_to_block(join);

        let zero = self.iconst(types::I64, 0);
        self.set_cpu_field(zero, MONITOR_ADDRESS);
        self.set_cpu_field(zero, MONITOR_SIZE);
        self.set_x(rs, status);
        Ok(Flow::Next)
    }

    /// LDAR, LDLAR, LDAPR.
    pub(super) fn load_acquire(&mut self, size: u32, rn: u32, rt: u32) -> Lift {
        let bytes = 1 << size;
        let address = self.x_or_sp(rn, 64);
        let host = self.aligned_guest_address(address, bytes, Perm::READ);
        let data = self.host_load(access_type(bytes), host);
        self.set_x_loaded(rt, data);
        Ok(Flow::Next)
    }

    /// STLR, STLLR.
    pub(super) fn store_release(&mut self, size: u32, rn: u32, rt: u32) -> Lift {
        let bytes = 1 << size;
        let address = self.x_or_sp(rn, 64);
        let data = self.narrow_x(rt, bytes);
        let host = self.aligned_guest_address(address, bytes, Perm::WRITE);
        self.host_store(data, host, 0);
        Ok(Flow::Next)
    }

    /// LDADD, LDCLR, LDEOR, LDSET, LDSMAX, LDSMIN, LDUMAX, LDUMIN (`opc`), or SWP (`None`): the old value to
    /// `X[t]`, the new one to memory, compared at the access size.
    pub(super) fn atomic_memory_op(&mut self, size: u32, rs: u32, opc: Option<u32>, rn: u32, rt: u32) -> Lift {
        let bytes = 1 << size;
        let address = self.x_or_sp(rn, 64);
        let value = self.narrow_x(rs, bytes);
        // The read and the write are both checked before either happens.
        let host = self.aligned_guest_address(address, bytes, Perm::RW);
        let old = self.host_load(access_type(bytes), host);
        let new = match opc {
            None => value,
            Some(0b000) => self.b.ins().iadd(old, value),
            Some(0b001) => self.b.ins().band_not(old, value),
            Some(0b010) => self.b.ins().bxor(old, value),
            Some(0b011) => self.b.ins().bor(old, value),
            Some(opc) => {
                let keep_old = match opc {
                    0b100 => IntCC::SignedGreaterThanOrEqual,
                    0b101 => IntCC::SignedLessThanOrEqual,
                    0b110 => IntCC::UnsignedGreaterThanOrEqual,
                    _ => IntCC::UnsignedLessThanOrEqual,
                };
                let keep = self.b.ins().icmp(keep_old, old, value);
                self.b.ins().select(keep, old, value)
            }
        };
        self.host_store(new, host, 0);
        self.set_x_loaded(rt, old);
        Ok(Flow::Next)
    }

    /// CAS, CASA, CASL, CASAL: the old value to `X[s]`; memory gets the new value when the old one equals the
    /// compare value (otherwise it is written back unchanged: no other core can see the difference).
    pub(super) fn compare_and_swap(&mut self, size: u32, rs: u32, rn: u32, rt: u32) -> Lift {
        let bytes = 1 << size;
        let address = self.x_or_sp(rn, 64);
        let compare = self.narrow_x(rs, bytes);
        let new = self.narrow_x(rt, bytes);
        let host = self.aligned_guest_address(address, bytes, Perm::RW);
        let old = self.host_load(access_type(bytes), host);
        let equal = self.b.ins().icmp(IntCC::Equal, old, compare);
        let stored = self.b.ins().select(equal, new, old);
        self.host_store(stored, host, 0);
        self.set_x_loaded(rs, old);
        Ok(Flow::Next)
    }
}
