//! NZCV inside a region: kept lazily as what it is computed from (the operands of the last SUBS/ADDS, the result
//! of the last ANDS, a packed value, or "still in the `CpuState`"), packed only where an instruction reads it
//! whole or an exit stores it, and read by conditions straight from the operands where it can be. Labels of a
//! region lifted as a graph carry it in a fixed `FlagsShape`, or not at all where no run reads it before setting
//! it (`FlagsShape::Unread`: every read goes through `Lifter::note_flags_read`, which learns where NZCV is live
//! and voids a lifting that reads it where the plan said it is not).

use super::{Lifter, constant_value, host_flags};
use crate::fault::{FlagsRecord, flags_kind};
use crate::runtime::{RUNTIME_AT, Runtime};
use cranelift_codegen::ir::condcodes::{CondCode, IntCC};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Type, Value, types};
use cranelift_frontend::FunctionBuilder;
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::interp::pseudocode::condition_holds;
use tandem_reference::state::Flags;

/// NZCV as the block knows it.
#[derive(Clone, Copy)]
pub(super) enum FlagsState {
    /// Still in `CpuState::nzcv`, unread.
    InCpu,
    /// Computed in the block, kept lazily.
    Lazy(LazyFlags),
    /// At a label of a region lifted as a graph (`region`): still in the `CpuState` when `in_cpu` (an i8) holds,
    /// otherwise `carried` from the edge that came there.
    AtLabel { in_cpu: Value, carried: LazyFlags },
    /// At a label where, by the plan, no run reads NZCV before an instruction sets it (`RegionPlan::flags_unread`):
    /// nothing is carried there. Reading it voids the lifting (`Lifter::note_flags_read`).
    Unread,
}

/// NZCV computed in the block, kept as what it is computed from.
#[derive(Clone, Copy)]
pub(super) enum LazyFlags {
    /// The packed NZCV value (bits 31..28).
    Packed(Value),
    /// Flags of `a - b` (SUBS, CMP), with its result; operands are i32 or i64.
    Sub { a: Value, b: Value, result: Value },
    /// Flags of `a + b` (ADDS, CMN).
    Add { a: Value, b: Value, result: Value },
    /// Flags of a logical operation (ANDS, BICS, TST): N and Z from the result, C and V clear.
    Logic { result: Value },
    /// Flags of a conditional compare (CCMP, CCMN): those of `a - b` (`subtract`) or `a + b` when `holds` (an
    /// i8) is set, the instruction's constant NZCV (bits 3..0) otherwise.
    Select { holds: Value, subtract: bool, a: Value, b: Value, result: Value, otherwise: u32 },
}

impl LazyFlags {
    pub(super) fn values(self) -> Vec<Value> {
        match self {
            LazyFlags::Packed(packed) => vec![packed],
            LazyFlags::Sub { a, b, result } | LazyFlags::Add { a, b, result } => vec![a, b, result],
            LazyFlags::Logic { result } => vec![result],
            // Labels carry these packed (`flags_shape`).
            LazyFlags::Select { .. } => unreachable!("a conditional compare's flags are carried packed"),
        }
    }
}

/// The kind of NZCV a label of a region lifted as a graph carries, and the types of what it is computed from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FlagsShape {
    InCpu,
    Packed,
    Sub(Type),
    Add(Type),
    Logic(Type),
    Unread,
}

impl FlagsShape {
    /// The block parameters of a label that carry these flags: `in_cpu`, then the lazy flags' values.
    pub(super) fn parameter_types(self) -> Vec<Type> {
        match self {
            FlagsShape::InCpu | FlagsShape::Unread => vec![],
            FlagsShape::Packed => vec![types::I8, types::I32],
            FlagsShape::Sub(ty) | FlagsShape::Add(ty) => vec![types::I8, ty, ty, ty],
            FlagsShape::Logic(ty) => vec![types::I8, ty],
        }
    }

    /// The flags at a label from its parameters (as `parameter_types` lists them).
    pub(super) fn at_label(self, parameters: &[Value]) -> FlagsState {
        let carried = match (self, parameters) {
            (FlagsShape::InCpu, _) => return FlagsState::InCpu,
            (FlagsShape::Unread, _) => return FlagsState::Unread,
            (FlagsShape::Packed, &[_, packed]) => LazyFlags::Packed(packed),
            (FlagsShape::Sub(_), &[_, a, b, result]) => LazyFlags::Sub { a, b, result },
            (FlagsShape::Add(_), &[_, a, b, result]) => LazyFlags::Add { a, b, result },
            (FlagsShape::Logic(_), &[_, result]) => LazyFlags::Logic { result },
            _ => unreachable!("a label has the parameters its flags' shape lists"),
        };
        FlagsState::AtLabel { in_cpu: parameters[0], carried }
    }
}

impl Lifter<'_> {
    pub(crate) fn set_flags_sub(&mut self, a: Value, b: Value, result: Value) {
        self.set_lazy_flags(LazyFlags::Sub { a, b, result });
    }

    pub(crate) fn set_flags_add(&mut self, a: Value, b: Value, result: Value) {
        self.set_lazy_flags(LazyFlags::Add { a, b, result });
    }

    pub(crate) fn set_flags_logic(&mut self, result: Value) {
        self.set_lazy_flags(LazyFlags::Logic { result });
    }

    pub(crate) fn set_flags_packed(&mut self, packed: Value) {
        self.set_lazy_flags(LazyFlags::Packed(packed));
    }

    /// NZCV is now `flags`, to be written back at exits and recorded at the next replay point.
    pub(super) fn set_lazy_flags(&mut self, flags: LazyFlags) {
        self.flags = FlagsState::Lazy(flags);
        self.flags_segment.clear();
        self.flags_dirty = true;
        self.recorded.flags = false;
    }

    /// NZCV in the state `flags` as a `fault::FlagsRecord` holds it: the kind (an i32, `fault::flags_kind`) and
    /// the values `a` and `b` it names, zero-extended to i64 (`None`: not needed).
    fn flags_record(&mut self, flags: FlagsState) -> (Value, Option<Value>, Option<Value>) {
        self.note_flags_read();
        let (in_cpu, lazy) = match flags {
            FlagsState::InCpu | FlagsState::Unread => {
                return (self.b.ins().iconst(types::I32, i64::from(flags_kind::IN_CPU)), None, None);
            }
            FlagsState::Lazy(lazy) => (None, lazy),
            FlagsState::AtLabel { in_cpu, carried } => (Some(in_cpu), carried),
        };
        let wide = |lifter: &mut Self, value: Value| {
            if lifter.b.func.dfg.value_type(value) == types::I64 {
                value
            } else {
                lifter.b.ins().uextend(types::I64, value)
            }
        };
        let is64 = |lifter: &Self, value: Value| lifter.b.func.dfg.value_type(value) == types::I64;
        let (kind, a, b) = match lazy {
            LazyFlags::Packed(packed) => (flags_kind::PACKED, packed, None),
            LazyFlags::Select { .. } => (flags_kind::PACKED, self.pack_lazy_flags(lazy), None),
            LazyFlags::Sub { a, b, .. } => {
                (if is64(self, a) { flags_kind::SUB64 } else { flags_kind::SUB32 }, a, Some(b))
            }
            LazyFlags::Add { a, b, .. } => {
                (if is64(self, a) { flags_kind::ADD64 } else { flags_kind::ADD32 }, a, Some(b))
            }
            LazyFlags::Logic { result } => {
                (if is64(self, result) { flags_kind::LOGIC64 } else { flags_kind::LOGIC32 }, result, None)
            }
        };
        let mut kind = self.b.ins().iconst(types::I32, i64::from(kind));
        if let Some(in_cpu) = in_cpu {
            let stored = self.b.ins().iconst(types::I32, i64::from(flags_kind::IN_CPU));
            kind = self.b.ins().select(in_cpu, stored, kind);
        }
        let a = wide(self, a);
        let b = b.map(|b| wide(self, b));
        (kind, Some(a), b)
    }

    /// NZCV packed in bits 31..28 of an i32, remembered for the rest of the block.
    pub(crate) fn packed_flags(&mut self) -> Value {
        let packed = self.compute_packed_flags();
        self.flags = FlagsState::Lazy(LazyFlags::Packed(packed));
        packed
    }

    /// NZCV packed in bits 31..28 of an i32, emitted at the current point and not remembered (exits use it: what
    /// they emit does not dominate the rest of the block).
    pub(super) fn compute_packed_flags(&mut self) -> Value {
        self.note_flags_read();
        match self.flags {
            FlagsState::InCpu | FlagsState::Unread => self.stored_flags(),
            FlagsState::Lazy(lazy) => self.pack_lazy_flags(lazy),
            FlagsState::AtLabel { in_cpu, carried } => {
                self.where_carried(in_cpu, types::I32, |lifter, carried_here| {
                    if carried_here { lifter.pack_lazy_flags(carried) } else { lifter.stored_flags() }
                })
            }
        }
    }

    /// What `value` gives at a label whose NZCV is still as the region found it when `in_cpu` holds (reading that
    /// may call the runtime) and `carried` otherwise: computed on the side that holds only.
    fn where_carried(&mut self, in_cpu: Value, ty: Type, mut value: impl FnMut(&mut Self, bool) -> Value) -> Value {
        let (stored, carried, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let result = self.b.append_block_param(join, ty);
        self.b.ins().brif(in_cpu, stored, &[], carried, &[]);
        for (block, carried_here) in [(stored, false), (carried, true)] {
            self.b.switch_to_block(block);
            let side = value(self, carried_here);
            self.b.ins().jump(join, &[BlockArg::Value(side)]);
        }
        self.b.switch_to_block(join);
        result
    }

    /// NZCV as the region found it: in the `CpuState`, or as the exit before left it (`Runtime::exit_flags`),
    /// which the runtime settles in the `CpuState` first.
    fn stored_flags(&mut self) -> Value {
        let exit_kind = (RUNTIME_AT + offset_of!(Runtime, exit_flags) + offset_of!(FlagsRecord, kind)) as i32;
        let kind = self.b.ins().load(types::I32, host_flags(), self.cpu, exit_kind);
        let (in_cpu, settle, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let nzcv = self.b.append_block_param(join, types::I32);
        let unpacked = self.b.ins().icmp_imm_s(IntCC::NotEqual, kind, i64::from(flags_kind::IN_CPU));
        self.b.ins().brif(unpacked, settle, &[], in_cpu, &[]);
        self.b.set_cold_block(settle);
        self.b.switch_to_block(settle);
        let runtime = self.b.ins().iadd_imm_s(self.cpu, RUNTIME_AT as i64);
        let settled = self.call_runtime(
            offset_of!(Runtime, settle_flags),
            &[types::I64, types::I64],
            types::I32,
            &[runtime, self.cpu],
        );
        self.b.ins().jump(join, &[BlockArg::Value(settled)]);
        self.b.switch_to_block(in_cpu);
        let stored = self.b.ins().load(types::I32, host_flags(), self.cpu, offset_of!(CpuState, nzcv) as i32);
        self.b.ins().jump(join, &[BlockArg::Value(stored)]);
        self.b.switch_to_block(join);
        nzcv
    }

    /// Puts packed NZCV in the `CpuState`, which then holds it for whatever reads it next (`Runtime::exit_flags`
    /// says so: an exit before may have left it unpacked).
    pub(super) fn store_packed_flags(&mut self, packed: Value) {
        self.set_cpu_field(packed, offset_of!(CpuState, nzcv));
        let in_cpu = self.b.ins().iconst(types::I32, i64::from(flags_kind::IN_CPU));
        self.set_cpu_field(in_cpu, RUNTIME_AT + offset_of!(Runtime, exit_flags) + offset_of!(FlagsRecord, kind));
    }

    /// Stores NZCV in the state `flags` in the `FlagsRecord` at `record` (an offset in the `Context`): unpacked
    /// where it is computed from an operation.
    pub(super) fn store_flags_record(&mut self, record: usize, flags: FlagsState) {
        let (kind, a, b) = self.flags_record(flags);
        let fields = [
            (Some(kind), offset_of!(FlagsRecord, kind)),
            (a, offset_of!(FlagsRecord, a)),
            (b, offset_of!(FlagsRecord, b)),
        ];
        for (value, field) in fields {
            if let Some(value) = value {
                self.b.ins().store(host_flags(), value, self.cpu, (record + field) as i32);
            }
        }
    }

    fn pack_lazy_flags(&mut self, lazy: LazyFlags) -> Value {
        match lazy {
            LazyFlags::Packed(packed) => packed,
            LazyFlags::Sub { a, b, result } => self.flags_of_sub(a, b, result),
            LazyFlags::Add { a, b, result } => self.flags_of_add(a, b, result),
            LazyFlags::Logic { result } => {
                let zero = self.b.ins().iconst(types::I8, 0);
                self.pack_flags(result, zero, zero)
            }
            LazyFlags::Select { holds, subtract, a, b, result, otherwise } => {
                let compared = if subtract { self.flags_of_sub(a, b, result) } else { self.flags_of_add(a, b, result) };
                let otherwise = self.b.ins().iconst(types::I32, i64::from(otherwise) << 28);
                self.b.ins().select(holds, compared, otherwise)
            }
        }
    }

    /// The shape of NZCV as the block knows it now, as a loop would carry it.
    pub(super) fn flags_shape(&self) -> FlagsShape {
        let ty = |value: Value| self.b.func.dfg.value_type(value);
        let lazy = match self.flags {
            FlagsState::InCpu => return FlagsShape::InCpu,
            FlagsState::Unread => return FlagsShape::Unread,
            FlagsState::Lazy(lazy) | FlagsState::AtLabel { carried: lazy, .. } => lazy,
        };
        match lazy {
            LazyFlags::Packed(_) => FlagsShape::Packed,
            LazyFlags::Sub { result, .. } => FlagsShape::Sub(ty(result)),
            LazyFlags::Add { result, .. } => FlagsShape::Add(ty(result)),
            LazyFlags::Logic { result } => FlagsShape::Logic(ty(result)),
            LazyFlags::Select { .. } => FlagsShape::Packed,
        }
    }

    /// Notes a read of NZCV as the block knows it: NZCV is live into the instructions since the last that set
    /// it (what `RegionPlan::flags_unread` is learnt from); and, where the plan said no run reads it at this
    /// run's label, that this lifting is void (`lift_block` lifts the region again, every label carrying NZCV).
    pub(super) fn note_flags_read(&mut self) {
        if let Some(graph) = &mut self.graph {
            graph.flags_read.extend(self.flags_segment.drain(..));
            if matches!(self.flags, FlagsState::Unread) {
                graph.unread_flags_read.extend(graph.current);
            }
        }
    }

    /// Packed NZCV of `a - b = result` (`AddWithCarry(a, NOT(b), 1)`).
    pub(crate) fn flags_of_sub(&mut self, a: Value, b: Value, result: Value) -> Value {
        let c = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, b);
        let overflow = self.signed_overflow_sub(a, b, result);
        self.pack_flags(result, c, overflow)
    }

    /// Packed NZCV of `a + b = result`.
    pub(crate) fn flags_of_add(&mut self, a: Value, b: Value, result: Value) -> Value {
        let c = self.b.ins().icmp(IntCC::UnsignedLessThan, result, a);
        let overflow = self.signed_overflow_add(a, b, result);
        self.pack_flags(result, c, overflow)
    }

    /// V of `a + b = result`: the operands agree in sign and the result does not.
    pub(crate) fn signed_overflow_add(&mut self, a: Value, b: Value, result: Value) -> Value {
        let ra = self.b.ins().bxor(result, a);
        let rb = self.b.ins().bxor(result, b);
        let both = self.b.ins().band(ra, rb);
        self.b.ins().icmp_imm_s(IntCC::SignedLessThan, both, 0)
    }

    /// V of `a - b = result`: the operands differ in sign and the result's sign differs from `a`'s.
    fn signed_overflow_sub(&mut self, a: Value, b: Value, result: Value) -> Value {
        let ab = self.b.ins().bxor(a, b);
        let ar = self.b.ins().bxor(a, result);
        let both = self.b.ins().band(ab, ar);
        self.b.ins().icmp_imm_s(IntCC::SignedLessThan, both, 0)
    }

    /// NZCV from a result (N and Z) and the C and V booleans.
    pub(crate) fn pack_flags(&mut self, result: Value, c: Value, v: Value) -> Value {
        let n = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, result, 0);
        let z = self.b.ins().icmp_imm_s(IntCC::Equal, result, 0);
        let mut packed = self.b.ins().iconst(types::I32, 0);
        for (flag, bit) in [(n, 31), (z, 30), (c, 29), (v, 28)] {
            let wide = self.b.ins().uextend(types::I32, flag);
            let shifted = self.b.ins().ishl_imm_u(wide, bit);
            packed = self.b.ins().bor(packed, shifted);
        }
        packed
    }

    /// `ConditionHolds(cond)` as an i8 boolean, straight from the last flag-setting operation where it can.
    pub(crate) fn condition_holds(&mut self, cond: u32) -> Value {
        if cond >> 1 == 0b111 {
            return self.b.ins().iconst(types::I8, 1);
        }
        self.note_flags_read();
        let invert = cond & 1 == 1;
        let holds = match self.flags {
            FlagsState::Lazy(LazyFlags::Select { holds, subtract, a, b, result, otherwise }) => {
                // Either side straight from what it is computed from: the compare's operands, or a constant.
                let compared = if subtract { LazyFlags::Sub { a, b, result } } else { LazyFlags::Add { a, b, result } };
                let compared = match self.direct_condition(compared, cond & !1) {
                    Some(holds) => holds,
                    None => {
                        let packed = self.pack_lazy_flags(compared);
                        self.condition_from_packed(packed, cond >> 1)
                    }
                };
                // The pseudocode's own ConditionHolds, on the constant, while lifting (cond<0> inverts below).
                let constant = condition_holds(cond & !1, Flags::from_imm4(otherwise));
                let constant = self.b.ins().iconst(types::I8, i64::from(constant));
                Some(self.b.ins().select(holds, compared, constant))
            }
            FlagsState::Lazy(lazy) => {
                // Inverted already, so that the host branches on the compare itself.
                if let Some(holds) = self.direct_condition(lazy, cond) {
                    return holds;
                }
                None
            }
            // A loop's label: the condition on each side (the carried compare's, or the stored NZCV's) and the
            // one that holds picked, rather than NZCV packed from either.
            FlagsState::AtLabel { in_cpu, carried } => {
                if self.direct_condition(carried, cond).is_some() {
                    return self.where_carried(in_cpu, types::I8, |lifter, carried_here| {
                        if carried_here {
                            lifter.direct_condition(carried, cond).expect("a direct condition, as above")
                        } else {
                            lifter.condition_as_found(cond)
                        }
                    });
                }
                None
            }
            FlagsState::InCpu | FlagsState::Unread => return self.condition_as_found(cond),
        };
        let holds = holds.unwrap_or_else(|| {
            let packed = self.packed_flags();
            self.condition_from_packed(packed, cond >> 1)
        });
        if invert { self.b.ins().bxor_imm_u(holds, 1) } else { holds }
    }

    /// `ConditionHolds(cond)` on NZCV as the region found it. Where the exit before left it as a compare's operands
    /// or a test's result (`Runtime::exit_flags`: a region that ends between a CMP or TST and its B.cond, or at
    /// the B.cond's target where another condition of the same flags is read), straight from those, as one host
    /// compare; otherwise from NZCV packed (`stored_flags`, settling the record where it holds another kind).
    fn condition_as_found(&mut self, cond: u32) -> Value {
        let invert = cond & 1 == 1;
        let from_stored = |lifter: &mut Self| {
            let stored = lifter.stored_flags();
            let holds = lifter.condition_from_packed(stored, cond >> 1);
            if invert { lifter.b.ins().bxor_imm_u(holds, 1) } else { holds }
        };
        // V alone (VS, VC) has no single compare of the operands.
        if cond >> 1 == 0b011 {
            return from_stored(self);
        }
        let record = RUNTIME_AT + offset_of!(Runtime, exit_flags);
        let field = |name: usize| (record + name) as i32;
        let kind = self.b.ins().load(types::I32, host_flags(), self.cpu, field(offset_of!(FlagsRecord, kind)));
        let join = self.b.create_block();
        let holds = self.b.append_block_param(join, types::I8);
        let kinds = [
            (flags_kind::SUB64, types::I64, false),
            (flags_kind::SUB32, types::I32, false),
            (flags_kind::LOGIC64, types::I64, true),
            (flags_kind::LOGIC32, types::I32, true),
        ];
        for (recorded, ty, logic) in kinds {
            let (compare, next) = (self.b.create_block(), self.b.create_block());
            let is_kind = self.b.ins().icmp_imm_s(IntCC::Equal, kind, i64::from(recorded));
            self.b.ins().brif(is_kind, compare, &[], next, &[]);
            self.b.switch_to_block(compare);
            // The values as `store_flags_record` wrote them: zero-extended, little-endian.
            let a = self.b.ins().load(ty, host_flags(), self.cpu, field(offset_of!(FlagsRecord, a)));
            let recorded = if logic {
                LazyFlags::Logic { result: a }
            } else {
                let b = self.b.ins().load(ty, host_flags(), self.cpu, field(offset_of!(FlagsRecord, b)));
                LazyFlags::Sub { a, b, result: self.b.ins().isub(a, b) }
            };
            let compared = self.direct_condition(recorded, cond);
            let compared = compared.expect("every condition but VS and VC is one compare of these operations'");
            self.b.ins().jump(join, &[BlockArg::Value(compared)]);
            self.b.switch_to_block(next);
        }
        let stored = from_stored(self);
        self.b.ins().jump(join, &[BlockArg::Value(stored)]);
        self.b.switch_to_block(join);
        holds
    }

    /// `ConditionHolds(cond)` straight from what `lazy` is computed from, where it can be: one compare.
    fn direct_condition(&mut self, lazy: LazyFlags, cond: u32) -> Option<Value> {
        // cond<0> inverts: the complementary compare.
        let invert = cond & 1 == 1;
        let cc = |cc: IntCC| if invert { cc.complement() } else { cc };
        let b = &mut self.b;
        match lazy {
            LazyFlags::Sub { a, b: subtrahend, result } => match cond >> 1 {
                0b000 => Some(b.ins().icmp(cc(IntCC::Equal), a, subtrahend)),
                0b001 => Some(b.ins().icmp(cc(IntCC::UnsignedGreaterThanOrEqual), a, subtrahend)),
                0b010 => Some(b.ins().icmp_imm_s(cc(IntCC::SignedLessThan), result, 0)),
                0b100 => Some(b.ins().icmp(cc(IntCC::UnsignedGreaterThan), a, subtrahend)),
                0b101 => Some(b.ins().icmp(cc(IntCC::SignedGreaterThanOrEqual), a, subtrahend)),
                0b110 => Some(b.ins().icmp(cc(IntCC::SignedGreaterThan), a, subtrahend)),
                _ => None,
            },
            LazyFlags::Add { a, b: addend, result } => match cond >> 1 {
                0b000 => Some(b.ins().icmp_imm_s(cc(IntCC::Equal), result, 0)),
                // The carry out of the addition: the result wrapped below an operand.
                0b001 => Some(b.ins().icmp(cc(IntCC::UnsignedLessThan), result, a)),
                0b010 => Some(b.ins().icmp_imm_s(cc(IntCC::SignedLessThan), result, 0)),
                // N == V: the sum without overflow is not negative, `a >= -addend`; `-addend` is an operand of
                // the type's unless the addend is its minimum (CMN with a constant, as compilers write it).
                0b101 | 0b110 => {
                    let negated = constant_value(&b.func.dfg, addend)?.checked_neg()?;
                    if b.func.dfg.value_type(a) == types::I32 && i32::try_from(negated).is_err() {
                        return None;
                    }
                    let cc =
                        cc(if cond >> 1 == 0b101 { IntCC::SignedGreaterThanOrEqual } else { IntCC::SignedGreaterThan });
                    Some(b.ins().icmp_imm_s(cc, a, negated))
                }
                _ => None,
            },
            LazyFlags::Logic { result } => {
                // C and V are clear: HS and VS never hold, HI never, GE is N clear, GT is N and Z clear.
                match cond >> 1 {
                    0b000 => Some(b.ins().icmp_imm_s(cc(IntCC::Equal), result, 0)),
                    0b001 | 0b011 | 0b100 => Some(b.ins().iconst(types::I8, i64::from(invert))),
                    0b010 => Some(b.ins().icmp_imm_s(cc(IntCC::SignedLessThan), result, 0)),
                    0b101 => Some(b.ins().icmp_imm_s(cc(IntCC::SignedGreaterThanOrEqual), result, 0)),
                    0b110 => Some(b.ins().icmp_imm_s(cc(IntCC::SignedGreaterThan), result, 0)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `ConditionHolds` on packed NZCV for `cond<3:1>`.
    fn condition_from_packed(&mut self, packed: Value, base: u32) -> Value {
        let bit = |b: &mut FunctionBuilder, n: i64| {
            let shifted = b.ins().ushr_imm_u(packed, n);
            let one = b.ins().band_imm_u(shifted, 1);
            b.ins().icmp_imm_s(IntCC::NotEqual, one, 0)
        };
        let b = &mut self.b;
        match base {
            0b000 => bit(b, 30),
            0b001 => bit(b, 29),
            0b010 => bit(b, 31),
            0b011 => bit(b, 28),
            0b100 => {
                let c = bit(b, 29);
                let z = bit(b, 30);
                b.ins().band_not(c, z)
            }
            _ => {
                let n = bit(b, 31);
                let v = bit(b, 28);
                let n_equals_v = b.ins().icmp(IntCC::Equal, n, v);
                if base == 0b101 {
                    n_equals_v
                } else {
                    let z = bit(b, 30);
                    b.ins().band_not(n_equals_v, z)
                }
            }
        }
    }
}
