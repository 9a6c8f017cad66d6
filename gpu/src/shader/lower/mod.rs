//! What lowering any instruction set into the IR shares: the builder (`Lower`: values, statements, places)
//! and the operations whose meaning does not depend on the encoding (LOP3 tables, byte permutes, funnel
//! shifts, NVIDIA's FP32 finishing rules, comparisons, MIN/MAX), each ISA's lowering (`sm86`, `sm5x`) builds on.
//! Its parts: `warp` (the exchanges between lanes), `fp64`, `half` (FP16 pairs), `graphics` (attributes and the
//! graphics stages' own instructions).

use super::ir::{
    BinOp, Block, Cmp, Conv, FArith, HalfFormat, Op, Program, Round, Space, Special, Stmt, Terminator, Type, UnOp,
    Value,
};
use crate::sass::cubin::KernelImage;
use crate::sass::swizzle_add::QuadSigns;
use crate::sass::text::View;
use std::collections::HashMap;

mod fp64;
mod graphics;
mod half;
mod warp;
pub(super) use graphics::OutStream;
pub(super) use half::HalfSource;
pub(super) use warp::quad_shuffle;

pub(super) struct Lower<'k> {
    pub(super) program: Program,
    /// The statement lists being filled, innermost last.
    pub(super) stmts: Vec<Vec<Stmt>>,
    /// How many of the innermost `stmts` are the bodies of guards (`guarded`) rather than blocks of their own.
    /// Invariant: lists that become blocks of their own are opened only outside guards, so the last
    /// `open_guards + 1` lists are one block's statements up to this point, outermost first.
    pub(super) open_guards: usize,
    pub(super) kernel_name: &'k str,
    /// The run-time texture handles' uses so far (`Lower::settle_pool_queries`).
    pub(super) pools: super::texture::PoolUses,
    /// Where each pop of the stack of returns and reconvergence points goes, by its offset, when
    /// `stack::static_pops` could follow the stack through the code.
    pub(super) pops: Option<HashMap<u32, u32>>,
    /// The program is a graphics stage's: shuffles confined to quads (`quad_shuffle`) and FSWZADD's place in the
    /// quad are the host's quad operations instead of warp exchanges, which graphics stages do not have.
    pub(super) graphics: bool,
    /// Set while a predicated instruction with no effect but its register and predicate writes runs outside its
    /// guard (a sample taking implicit derivatives, which Vulkan defines only in uniform control flow): its writes
    /// keep the old value where this condition is false.
    pub(super) selected_writes: Option<Value>,
}

/// Why the 64-bit shared atomics other than compare-and-swap (ATOMS .U64: add, min, max, inc, dec, and, or, xor,
/// exch) are refused: lowered as the other atomics are (a compare-and-swap loop), they give SPIR-V that lavapipe
/// runs right but NVIDIA's compiler rejects ("NVVM compilation failed" on an H200). ptxas builds such updates from
/// ATOMS.CAS.64 loops itself, and those translate.
pub(super) const SHARED_UPDATE64: &str =
    "a 64-bit shared atomic other than compare-and-swap, whose translation NVIDIA's compiler rejects";

impl<'k> Lower<'k> {
    /// Starts lowering `kernel` with `local_bytes` of local memory a thread.
    pub(super) fn new(kernel: &'k KernelImage, local_bytes: u32, graphics: bool) -> Self {
        let program = Program { shared_bytes: kernel.shared_bytes, local_bytes, ..Program::default() };
        Lower {
            program,
            stmts: Vec::new(),
            open_guards: 0,
            kernel_name: &kernel.name,
            pools: Default::default(),
            pops: None,
            graphics,
            selected_writes: None,
        }
    }

    /// The program, once its blocks are lowered. Err: why it cannot be translated.
    pub(super) fn finish(mut self) -> Result<Program, String> {
        self.settle_pool_queries()?;
        self.program.constant_banks.sort_unstable();
        self.program.constant_banks.dedup();
        Ok(self.program)
    }
}

impl Lower<'_> {
    pub(super) fn op(&mut self, op: Op) -> Value {
        let value = self.program.new_value(&op);
        self.stmts.last_mut().expect("inside a block").push(Stmt::Op(value, op));
        value
    }

    pub(super) fn type_of(&self, value: Value) -> Type {
        self.program.types[value.0 as usize]
    }

    /// A load or store of `size` (the memory instructions' size field on both ISAs: 0 U8, 1 S8, 2 U16, 3 S16,
    /// 4 one word, 5 two, 6 four) between registers from `register` and `address` (U64 for global memory).
    pub(super) fn memory_access(&mut self, space: Space, address: Value, size: u64, load: bool, register: u64) {
        let missing = match space {
            Space::Shared => self.program.shared_bytes == 0,
            Space::Local => self.program.local_bytes == 0,
            Space::Global | Space::Attribute | Space::Output | Space::VertexAttribute => false,
        };
        if missing {
            // No memory there (the hardware would fault the access): loads give zeros, stores go nowhere.
            if load {
                self.zero_registers(register, size);
            }
            return;
        }
        if size < 4 {
            let bytes = if size < 2 { 1 } else { 2 };
            if load {
                let value = self.op(Op::LoadSub { space, address, bytes });
                let value = if size & 1 == 1 {
                    let unused = self.const32(32 - 8 * u32::from(bytes));
                    let up = self.bin(BinOp::Shl, value, unused);
                    self.bin(BinOp::ShrS, up, unused)
                } else {
                    value
                };
                self.set_reg(register, value);
            } else {
                let value = self.reg(register);
                self.op(Op::StoreSub { space, address, bytes, value });
            }
            return;
        }
        for i in 0..[1, 2, 4][size.min(6) as usize - 4] {
            let step = if space == Space::Global { self.const64(4 * i) } else { self.const32(4 * i as u32) };
            let at = self.bin(BinOp::Add, address, step);
            if load {
                let word = self.op(Op::Load { space, address: at });
                self.set_reg(register + i, word);
            } else {
                let value = self.reg(register + i);
                self.op(Op::Store { space, address: at, value });
            }
        }
    }

    /// S2R's value of special register `sr`, as the interpreter models the machine (one SM running one CTA:
    /// its configuration reads 0; clocks that only increase), or `None` where it has no model. The ISAs share
    /// the numbering; `machine` lists the ISA's configuration registers that read 0.
    pub(super) fn special_register(&mut self, sr: u64, machine: &[u64]) -> Option<Value> {
        let special = |l: &mut Self, special| l.op(Op::Special(special));
        Some(match sr {
            0 => special(self, Special::LaneId),
            33..=35 => special(self, Special::ThreadId(sr as u8 - 33)),
            // SR_TID: x in bits 15:0, y in 25:16, z in 31:26 (the interpreter's `packed_thread_id`).
            32 => {
                let mut packed = special(self, Special::ThreadId(0));
                for (axis, shift) in [(1, 16), (2, 26)] {
                    let index = special(self, Special::ThreadId(axis));
                    let shift = self.const32(shift);
                    let moved = self.bin(BinOp::Shl, index, shift);
                    packed = self.bin(BinOp::Or, packed, moved);
                }
                packed
            }
            37..=39 => special(self, Special::CtaId(sr as u8 - 37)),
            // The EQ, LT, LE, GT, GE masks of the lane.
            56..=60 => {
                let lane = special(self, Special::LaneId);
                let one = self.const32(1);
                let bit = self.bin(BinOp::Shl, one, lane);
                let below = self.bin(BinOp::Sub, bit, one);
                let all = self.const32(u32::MAX);
                match sr {
                    56 => bit,
                    57 => below,
                    58 => self.bin(BinOp::Or, below, bit),
                    59 => {
                        let at_or_below = self.bin(BinOp::Or, below, bit);
                        self.bin(BinOp::Xor, at_or_below, all)
                    }
                    _ => self.bin(BinOp::Xor, below, all),
                }
            }
            50 => self.const32(self.program.shared_bytes),
            17 => special(self, Special::InvocationId),
            29 => special(self, Special::InvocationInfo),
            1 | 80 | 82 => {
                let clock = special(self, Special::Clock);
                self.un(UnOp::Truncate, clock)
            }
            81 | 83 => {
                let clock = special(self, Special::Clock);
                self.un(UnOp::High, clock)
            }
            255 => self.const32(0),
            _ if machine.contains(&sr) => self.const32(0),
            _ => return None,
        })
    }

    /// A read-modify-write of the word at `address` (atomics and reductions: `op` 0 ADD, 1 MIN, 2 MAX, 3 INC,
    /// 4 DEC, 5 AND, 6 OR, 7 XOR, 8 EXCH on `ty` 0 U32, 1 S32, 2 U64, 3 F32.FTZ.RN, 4 F16x2.RN (ADD), 5 S64, as the interpreter's
    /// `atomic_op`; 64 bits in global memory only) with the value of register `operand` (a pair for 64 bits),
    /// the old word into `result`: a block of its own at
    /// `offset + 1` loads the word, computes the new one and compare-and-swaps it, again until no other thread
    /// came between; then on to `next`. `address` is computed in that block (its registers stay as they were
    /// until the swap succeeds). Entered where `guard` holds.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic_update(
        &mut self,
        offset: usize,
        next: u32,
        guard: Option<Value>,
        space: Space,
        address: &dyn Fn(&mut Self) -> Value,
        (op, ty): (u64, u64),
        operand: u64,
        result: Option<u64>,
    ) -> Terminator {
        let update = offset as u32 + 1;
        let wide = matches!(ty, 2 | 5 | 6);
        self.stmts.push(Vec::new());
        let at = address(self);
        let (old, b) = if wide {
            let low = self.op(Op::Load { space, address: at });
            let four = self.const64(4);
            let next_word = self.bin(BinOp::Add, at, four);
            let high = self.op(Op::Load { space, address: next_word });
            (self.pair(low, high), self.reg64(operand))
        } else {
            (self.op(Op::Load { space, address: at }), self.reg(operand))
        };
        let constant = |l: &mut Self, value: u64| if wide { l.const64(value) } else { l.const32(value as u32) };
        let signed = matches!(ty, 1 | 5);
        let new = match op {
            0 if ty == 4 => {
                // F16x2.RN: each half added, no flushing (the interpreter's half_arith).
                let zero = self.const32(0);
                let (x, y) = (self.half_pair(old, 0, false, false), self.half_pair(b, 0, false, false));
                let [low, high] = [0, 1]
                    .map(|i| self.half_arith(HalfFormat::F16, FArith::Add, [x[i], y[i], zero], (false, false, false)));
                self.pack_halves(low, high)
            }
            // F64.RN; a NaN operand passes on as it is, the added value's first (the interpreter's `atomic_op`).
            0 if ty == 6 => {
                let sum = self.double_arith(FArith::Add, 0, [old, b, b], [old, b, b]);
                let (old_nan, b_nan) = (self.un(UnOp::IsNan, old), self.un(UnOp::IsNan, b));
                let either = self.select(old_nan, old, sum);
                self.select(b_nan, b, either)
            }
            0 if ty == 3 => {
                let (x, y) = (self.flush(old, true), self.flush(b, true));
                let zero = self.const32(0);
                let sum = self.op(Op::FArith(FArith::Add, Round::NearestEven, [x, y, zero]));
                self.finish_float(sum, true, false)
            }
            0 => self.bin(BinOp::Add, old, b),
            1 => self.bin(if signed { BinOp::MinS } else { BinOp::MinU }, old, b),
            2 => self.bin(if signed { BinOp::MaxS } else { BinOp::MaxU }, old, b),
            3 => {
                let (zero, one) = (constant(self, 0), constant(self, 1));
                let wraps = self.cmp(Cmp::GeU, old, b);
                let next_value = self.bin(BinOp::Add, old, one);
                self.select(wraps, zero, next_value)
            }
            4 => {
                let (zero, one) = (constant(self, 0), constant(self, 1));
                let is_zero = self.cmp(Cmp::Eq, old, zero);
                let above = self.cmp(Cmp::GtU, old, b);
                let t = self.bool(true);
                let reload = self.select(is_zero, t, above);
                let lower = self.bin(BinOp::Sub, old, one);
                self.select(reload, b, lower)
            }
            5 => self.bin(BinOp::And, old, b),
            6 => self.bin(BinOp::Or, old, b),
            7 => self.bin(BinOp::Xor, old, b),
            _ => b,
        };
        let seen = self.op(Op::AtomicCas { space, address: at, compare: old, value: new });
        let swapped = self.cmp(Cmp::Eq, seen, old);
        if let Some(rd) = result {
            self.guarded(Some(swapped), |l| if wide { l.set_reg64(rd, old) } else { l.set_reg(rd, old) });
        }
        let body = self.stmts.pop().expect("pushed above");
        self.program.blocks.push(Block { start: update, body, terminator: Terminator::Branch(swapped, next, update) });
        match guard {
            Some(condition) => Terminator::Branch(condition, update, next),
            None => Terminator::Jump(update),
        }
    }

    /// LDC: `size` (0 U8, 1 S8, 2 U16, 3 S16, 4 a word, 5 two) from bank `bank` at byte `index + offset` into
    /// registers from `rd`; a byte or half comes from the word that holds it, extended.
    pub(super) fn constant_register_load(&mut self, bank: u64, index: Value, offset: i64, size: u64, rd: u64) {
        self.program.constant_banks.push(bank as u8);
        let offset = self.const32(offset as u32);
        let address = self.bin(BinOp::Add, index, offset);
        let bank = bank as u8;
        if size < 4 {
            let aligned_mask = self.const32(!3);
            let aligned = self.bin(BinOp::And, address, aligned_mask);
            let word = self.op(Op::ConstantLoad { bank, offset: aligned });
            let (three, eight) = (self.const32(3), self.const32(8));
            let byte = self.bin(BinOp::And, address, three);
            let shift = self.bin(BinOp::Mul, byte, eight);
            let moved = self.bin(BinOp::ShrU, word, shift);
            let value = self.extend_part(moved, size);
            self.set_reg(rd, value);
            return;
        }
        for i in 0..if size == 5 { 2 } else { 1 } {
            let step = self.const32(4 * i);
            let at = self.bin(BinOp::Add, address, step);
            let word = self.op(Op::ConstantLoad { bank, offset: at });
            self.set_reg(rd + u64::from(i), word);
        }
    }

    /// One compare-and-swap of the word (`wide`: pair) at `address`: register (pair) `value` stored where it holds
    /// register (pair) `compare`; the old contents into `rd`, or with `cast` whether it stored (1 or 0).
    pub(super) fn compare_and_swap(
        &mut self,
        space: Space,
        address: Value,
        wide: bool,
        (compare, value, rd): (u64, u64, u64),
        cast: bool,
    ) {
        let (compare, value) =
            if wide { (self.reg64(compare), self.reg64(value)) } else { (self.reg(compare), self.reg(value)) };
        let old = self.op(Op::AtomicCas { space, address, compare, value });
        let answer = if cast {
            let stored = self.cmp(Cmp::Eq, old, compare);
            let bit = self.un(UnOp::BoolToU32, stored);
            if wide { self.un(UnOp::ExtendU, bit) } else { bit }
        } else {
            old
        };
        if wide {
            self.set_reg64(rd, answer);
        } else {
            self.set_reg(rd, answer);
        }
    }

    /// BAR (both ISAs: `mode` 0 SYNC, 1 ARV, 2 RED with `red` 0 POPC, 1 AND, 2 OR of `predicate`). Every
    /// barrier is the phase loop's: a thread that syncs pauses until every thread of the workgroup has paused or
    /// exited, whatever the barrier's number and count (more waiting than the hardware's, the same results for
    /// code without races); ARV does not wait. A reduction publishes the predicate and, in a block of its own at
    /// `offset + 1`, keeps the reduction of what the workgroup published for B2R.RESULT. `None`: the instruction
    /// does not end its block (ARV).
    pub(super) fn barrier(
        &mut self,
        offset: usize,
        next: u32,
        guard: Option<Value>,
        (mode, red): (u64, u64),
        predicate: &dyn Fn(&mut Self) -> Value,
    ) -> Option<Terminator> {
        let after = offset as u32 + 1;
        match mode {
            1 => None,
            0 => Some(match guard {
                // Lanes whose guard fails go on; the others pause in a block of their own.
                Some(condition) => {
                    self.program.blocks.push(Block {
                        start: after,
                        body: Vec::new(),
                        terminator: Terminator::Barrier(next),
                    });
                    Terminator::Branch(condition, after, next)
                }
                None => Terminator::Barrier(next),
            }),
            _ => {
                self.guarded(guard, |l| {
                    let p = predicate(l);
                    let value = l.un(UnOp::BoolToU32, p);
                    l.op(Op::WarpPublish(vec![value]));
                });
                self.stmts.push(Vec::new());
                let result = self.op(Op::BlockReduce(red as u8));
                self.op(Op::SetBarrierResult(result));
                let body = self.stmts.pop().expect("pushed above");
                self.program.blocks.push(Block { start: after, body, terminator: Terminator::Jump(next) });
                Some(Terminator::Barrier(after))
            }
        }
    }

    /// B2R.RESULT: the last barrier reduction's result, and whether it is non-zero.
    pub(super) fn barrier_result(&mut self, rd: u64, pd: u64) {
        let result = self.op(Op::GetBarrierResult);
        self.set_reg(rd, result);
        let zero = self.const32(0);
        let set = self.cmp(Cmp::Ne, result, zero);
        self.set_pred(pd, set);
    }

    /// A generic access (LD, ST): by the window the 64-bit address falls in, shared memory, local memory or
    /// global memory (the windows the driver announces in constant bank 0: `exec::SHARED_WINDOW`,
    /// `LOCAL_WINDOW`).
    pub(super) fn generic_memory_access(&mut self, address: Value, size: u64, load: bool, register: u64) {
        use crate::sass::exec::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_BYTES};
        let bytes = self.const64(WINDOW_BYTES);
        let mut inside = Vec::new();
        for (space, base) in [(Space::Shared, SHARED_WINDOW), (Space::Local, LOCAL_WINDOW)] {
            let base = self.const64(base);
            let offset = self.bin(BinOp::Sub, address, base);
            let within = self.cmp(Cmp::LtU, offset, bytes);
            let offset = self.un(UnOp::Truncate, offset);
            inside.push(within);
            self.guarded(Some(within), |l| l.memory_access(space, offset, size, load, register));
        }
        let t = self.bool(true);
        let in_window = self.select(inside[0], t, inside[1]);
        let global = self.un(UnOp::LogicalNot, in_window);
        self.guarded(Some(global), |l| l.memory_access(Space::Global, address, size, load, register));
    }

    /// Runs `lower` into an `If` on `guard`, or directly without one.
    pub(super) fn guarded(&mut self, guard: Option<Value>, lower: impl FnOnce(&mut Self)) {
        let Some(condition) = guard else { return lower(self) };
        self.open_guard();
        lower(self);
        self.close_guard(condition);
    }

    /// Starts the body of a guard, which `close_guard` ends.
    pub(super) fn open_guard(&mut self) {
        self.stmts.push(Vec::new());
        self.open_guards += 1;
    }

    /// Ends the body `open_guard` started as an `If` on `condition`.
    pub(super) fn close_guard(&mut self, condition: Value) {
        self.open_guards -= 1;
        let body = self.stmts.pop().expect("opened by open_guard");
        self.stmts.last_mut().expect("inside a block").push(Stmt::If(condition, body));
    }

    /// Zeros in the registers a load of `size` (the memory instructions' size field) writes from `register`.
    pub(super) fn zero_registers(&mut self, register: u64, size: u64) {
        let zero = self.const32(0);
        for i in 0..[1, 1, 1, 1, 1, 2, 4][size.min(6) as usize] {
            self.set_reg(register + i, zero);
        }
    }

    pub(super) fn const32(&mut self, value: u32) -> Value {
        self.op(Op::Const(Type::U32, u64::from(value)))
    }

    pub(super) fn const64(&mut self, value: u64) -> Value {
        self.op(Op::Const(Type::U64, value))
    }

    pub(super) fn bool(&mut self, value: bool) -> Value {
        self.op(Op::Const(Type::Bool, u64::from(value)))
    }

    pub(super) fn bin(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        self.op(Op::Binary(op, a, b))
    }

    pub(super) fn un(&mut self, op: UnOp, a: Value) -> Value {
        self.op(Op::Unary(op, a))
    }

    pub(super) fn cmp(&mut self, cmp: Cmp, a: Value, b: Value) -> Value {
        self.op(Op::Compare(cmp, a, b))
    }

    pub(super) fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        self.op(Op::Select(cond, a, b))
    }

    pub(super) fn reg(&mut self, index: u64) -> Value {
        if index >= 255 { self.const32(0) } else { self.op(Op::GetReg(index as u8)) }
    }

    pub(super) fn set_reg(&mut self, index: u64, value: Value) {
        if index < 255 {
            let value = self.selected_write(value, |l| l.reg(index));
            self.op(Op::SetReg(index as u8, value));
        }
    }

    /// A register pair as a U64 (RZ reads 0).
    pub(super) fn reg64(&mut self, index: u64) -> Value {
        if index >= 255 {
            return self.const64(0);
        }
        let (low, high) = (self.reg(index), self.reg(index + 1));
        self.pair(low, high)
    }

    pub(super) fn pair(&mut self, low: Value, high: Value) -> Value {
        let low = self.un(UnOp::ExtendU, low);
        let high = self.un(UnOp::ExtendU, high);
        let thirty_two = self.const32(32);
        let high = self.bin(BinOp::Shl, high, thirty_two);
        self.bin(BinOp::Or, low, high)
    }

    pub(super) fn set_reg64(&mut self, index: u64, value: Value) {
        let low = self.un(UnOp::Truncate, value);
        let high = self.un(UnOp::High, value);
        self.set_reg(index, low);
        self.set_reg(index + 1, high);
    }

    pub(super) fn pred(&mut self, index: u64) -> Value {
        if index >= 7 { self.bool(true) } else { self.op(Op::GetPred(index as u8)) }
    }

    /// What a write of `value` leaves: `value`, or under `selected_writes` the old value (`old` reads it) where
    /// the condition is false.
    fn selected_write(&mut self, value: Value, old: impl FnOnce(&mut Self) -> Value) -> Value {
        match self.selected_writes {
            Some(condition) => {
                let old = old(self);
                self.select(condition, value, old)
            }
            None => value,
        }
    }

    pub(super) fn set_pred(&mut self, index: u64, value: Value) {
        if index < 7 {
            let value = self.selected_write(value, |l| l.pred(index));
            self.op(Op::SetPred(index as u8, value));
        }
    }

    /// Uniform predicates UP0-UP6 (UPT = 7 reads true), kept after the predicates' places (8-14).
    pub(super) fn upred(&mut self, index: u64) -> Value {
        if index >= 7 { self.bool(true) } else { self.op(Op::GetPred(8 + index as u8)) }
    }

    pub(super) fn set_upred(&mut self, index: u64, value: Value) {
        if index < 7 {
            self.op(Op::SetPred(8 + index as u8, value));
        }
    }

    pub(super) fn ureg(&mut self, index: u64) -> Value {
        if index >= 63 { self.const32(0) } else { self.op(Op::GetUReg(index as u8)) }
    }

    pub(super) fn set_ureg(&mut self, index: u64, value: Value) {
        if index < 63 {
            self.op(Op::SetUReg(index as u8, value));
        }
    }

    /// A predicate source with its negation (`ps` and `ps_not`); PT when the form has none.
    pub(super) fn pred_src(&mut self, v: &View, field: &str) -> Value {
        if !v.has(field) {
            return self.bool(true);
        }
        let p = self.pred(v.get(field));
        if v.flag(&format!("{field}_not")) { self.un(UnOp::LogicalNot, p) } else { p }
    }

    pub(super) fn constant(&mut self, bank: u64, offset: u64) -> Value {
        self.program.constant_banks.push(bank as u8);
        let offset = self.const32(offset as u32);
        self.op(Op::ConstantLoad { bank: bank as u8, offset })
    }

    pub(super) fn float_modifiers(&mut self, value: Value, v: &View, neg: &str, abs: &str) -> Value {
        let mut value = value;
        if v.flag(abs) {
            let mask = self.const32(0x7fff_ffff);
            value = self.bin(BinOp::And, value, mask);
        }
        if v.flag(neg) {
            let sign = self.const32(0x8000_0000);
            value = self.bin(BinOp::Xor, value, sign);
        }
        value
    }

    /// An integer term of an add: two's complement negation, or (extended adds) bitwise inversion, as U64.
    pub(super) fn term(&mut self, value: Value, negated: bool, extended: bool) -> Value {
        let wide = self.un(UnOp::ExtendU, value);
        if !negated {
            return wide;
        }
        let inverted = {
            let all = self.const32(u32::MAX);
            let inverted = self.bin(BinOp::Xor, value, all);
            self.un(UnOp::ExtendU, inverted)
        };
        if extended {
            inverted
        } else {
            let one = self.const64(1);
            self.bin(BinOp::Add, inverted, one)
        }
    }

    /// Bit `bit` of a U64 as a Bool.
    pub(super) fn bit(&mut self, value: Value, bit: u32) -> Value {
        let shift = self.const32(bit);
        let shifted = self.bin(BinOp::ShrU, value, shift);
        let word = self.un(UnOp::Truncate, shifted);
        let one = self.const32(1);
        let masked = self.bin(BinOp::And, word, one);
        let zero = self.const32(0);
        self.cmp(Cmp::Ne, masked, zero)
    }

    pub(super) fn flush(&mut self, value: Value, ftz: bool) -> Value {
        if ftz { self.un(UnOp::FlushDenormal, value) } else { value }
    }

    /// FSWZADD of both ISAs (`sass::swizzle_add`): a and b with the signs of the lane's place in its quad (lane id
    /// & 3, or the host's quad in a graphics stage), added as FADD adds them; `None` for a swizzle with a lane
    /// that moves b alone.
    pub(super) fn swizzle_add(
        &mut self,
        isa: crate::sass::Isa,
        swizzle: u32,
        (a, b): (Value, Value),
        rnd: u64,
        ftz: bool,
    ) -> Option<Value> {
        // Bit q of each mask: whether quad lane q negates that operand.
        let (mut negate_a, mut negate_b) = (0u32, 0u32);
        for lane in 0..4 {
            let (a, b) = QuadSigns::of_lane(isa, swizzle, lane).negations()?;
            negate_a |= u32::from(a) << lane;
            negate_b |= u32::from(b) << lane;
        }
        let quad_lane = if self.graphics {
            self.op(Op::Special(Special::QuadLane))
        } else {
            let lane = self.op(Op::Special(Special::LaneId));
            let three = self.const32(3);
            self.bin(BinOp::And, lane, three)
        };
        let [a, b] = [(a, negate_a), (b, negate_b)].map(|(operand, negations)| {
            let negations = self.const32(negations);
            let negated = self.bin(BinOp::ShrU, negations, quad_lane);
            let one = self.const32(1);
            let negated = self.bin(BinOp::And, negated, one);
            let thirty_one = self.const32(31);
            let sign = self.bin(BinOp::Shl, negated, thirty_one);
            let signed = self.bin(BinOp::Xor, operand, sign);
            self.flush(signed, ftz)
        });
        let result = self.op(Op::FArith(FArith::Add, Round::from_field(rnd), [a, b, b]));
        Some(self.finish_float(result, ftz, false))
    }

    /// NaN results become the canonical NaN; `.FTZ` flushes, `.SAT` clamps to [0, 1] (NaN and -0 to +0).
    pub(super) fn finish_float(&mut self, result: Value, ftz: bool, sat: bool) -> Value {
        let nan = self.un(UnOp::IsNan, result);
        let canonical = self.const32(0x7fff_ffff);
        let mut result = self.select(nan, canonical, result);
        result = self.flush(result, ftz);
        if sat {
            let (zero, one) = (self.const32(0), self.const32(0x3f80_0000));
            let positive = self.cmp(Cmp::FGt, result, zero);
            let above = self.cmp(Cmp::FGt, result, one);
            let clamped = self.select(above, one, result);
            result = self.select(positive, clamped, zero);
        }
        result
    }

    pub(super) fn find_leading_one(&mut self, value: Value, signed: bool, shift_amount: bool) -> Value {
        let value = if signed {
            let thirty_one = self.const32(31);
            let sign = self.bin(BinOp::ShrS, value, thirty_one);
            self.bin(BinOp::Xor, value, sign)
        } else {
            value
        };
        let msb = self.un(UnOp::FindMsbU, value);
        if !shift_amount {
            return msb;
        }
        let zero = self.const32(0);
        let none = self.cmp(Cmp::Eq, value, zero);
        let thirty_one = self.const32(31);
        let amount = self.bin(BinOp::Sub, thirty_one, msb);
        let all = self.const32(u32::MAX);
        self.select(none, all, amount)
    }

    pub(super) fn boolean(&mut self, op: u64, x: Value, y: Value) -> Value {
        match op {
            0 => {
                let f = self.bool(false);
                self.select(x, y, f)
            }
            1 => {
                let t = self.bool(true);
                self.select(x, t, y)
            }
            _ => self.cmp(Cmp::Ne, x, y),
        }
    }

    /// LOP3's lookup table as a sum of products over a, b and c (weights 0xf0, 0xcc, 0xaa).
    pub(super) fn lop3(&mut self, lut: u8, a: Value, b: Value, c: Value) -> Value {
        let all = self.const32(u32::MAX);
        let not = [a, b, c].map(|x| self.bin(BinOp::Xor, x, all));
        let mut result = self.const32(0);
        for index in 0..8 {
            if lut >> index & 1 == 0 {
                continue;
            }
            let pick = |bit: u32, i: usize| if index >> bit & 1 != 0 { [a, b, c][i] } else { not[i] };
            let (x, y, z) = (pick(2, 0), pick(1, 1), pick(0, 2));
            let term = self.bin(BinOp::And, x, y);
            let term = self.bin(BinOp::And, term, z);
            result = self.bin(BinOp::Or, result, term);
        }
        result
    }

    pub(super) fn predicate_lut(&mut self, lut: u8, a: Value, b: Value, c: Value) -> Value {
        // On booleans: widen to 0/1 words, use the same table, test bit 0.
        let words = [a, b, c].map(|x| self.un(UnOp::BoolToU32, x));
        let result = self.lop3(lut, words[0], words[1], words[2]);
        let one = self.const32(1);
        let bit = self.bin(BinOp::And, result, one);
        let zero = self.const32(0);
        self.cmp(Cmp::Ne, bit, zero)
    }

    /// PRMT: bytes of the pair {c, a} (a is bytes 0-3) picked by the selector's nibbles (bit 3 of a nibble
    /// replicates the byte's sign), or by one of the modes from the selector's low two bits.
    pub(super) fn permute(&mut self, a: Value, selector: Value, c: Value, mode: u64) -> Value {
        let pair = self.pair(a, c);
        let mut result = self.const32(0);
        let three = self.const32(3);
        let sel = self.bin(BinOp::And, selector, three);
        for i in 0..4u32 {
            let index = match mode {
                0 => {
                    let shift = self.const32(4 * i);
                    let nibble = self.bin(BinOp::ShrU, selector, shift);
                    let fifteen = self.const32(15);
                    self.bin(BinOp::And, nibble, fifteen)
                }
                1 | 2 => {
                    let i = self.const32(i);
                    let index = if mode == 1 { self.bin(BinOp::Add, sel, i) } else { self.bin(BinOp::Sub, sel, i) };
                    let seven = self.const32(7);
                    self.bin(BinOp::And, index, seven)
                }
                3 => sel,
                4 | 5 => {
                    let i = self.const32(i);
                    self.bin(if mode == 4 { BinOp::MaxU } else { BinOp::MinU }, i, sel)
                }
                _ => {
                    let one = self.const32(1);
                    let odd = self.bin(BinOp::And, sel, one);
                    let base = self.bin(BinOp::Add, odd, odd);
                    let low = self.const32(i & 1);
                    self.bin(BinOp::Add, base, low)
                }
            };
            let seven = self.const32(7);
            let byte_index = self.bin(BinOp::And, index, seven);
            let eight = self.const32(8);
            let shift = self.bin(BinOp::Mul, byte_index, eight);
            let shifted = self.bin(BinOp::ShrU, pair, shift);
            let word = self.un(UnOp::Truncate, shifted);
            let ff = self.const32(0xff);
            let mut byte = self.bin(BinOp::And, word, ff);
            if mode == 0 {
                // A nibble with bit 3 set gives the byte's sign, replicated.
                let (eight, zero) = (self.const32(8), self.const32(0));
                let replicate = self.bin(BinOp::And, index, eight);
                let replicate = self.cmp(Cmp::Ne, replicate, zero);
                let sign_bit = self.const32(0x80);
                let sign = self.bin(BinOp::And, byte, sign_bit);
                let negative = self.cmp(Cmp::Ne, sign, zero);
                let filled = self.select(negative, ff, zero);
                byte = self.select(replicate, filled, byte);
            }
            let position = self.const32(8 * i);
            let placed = self.bin(BinOp::Shl, byte, position);
            result = self.bin(BinOp::Or, result, placed);
        }
        result
    }

    /// P0-P6 (UP0-UP6 when `uniform`) as bits 0-6 (what P2R and UP2UR pack).
    pub(super) fn predicate_bits(&mut self, uniform: bool) -> Value {
        let mut bits = self.const32(0);
        for i in 0..7 {
            let p = if uniform { self.upred(i) } else { self.pred(i) };
            let bit = self.un(UnOp::BoolToU32, p);
            let shift = self.const32(i as u32);
            let bit = self.bin(BinOp::Shl, bit, shift);
            bits = self.bin(BinOp::Or, bits, bit);
        }
        bits
    }

    /// P2R as the interpreter's `predicates_into`: `bits` into byte `byte` of a under the mask's low byte.
    pub(super) fn predicates_into(&mut self, a: Value, bits: Value, mask: Value, byte: u64) -> Value {
        let (shift, low_byte) = (self.const32(8 * byte as u32), self.const32(0xff));
        let mask = self.bin(BinOp::And, mask, low_byte);
        let inserted = self.bin(BinOp::And, bits, mask);
        let inserted = self.bin(BinOp::Shl, inserted, shift);
        let cleared = self.bin(BinOp::Shl, mask, shift);
        let all = self.const32(u32::MAX);
        let kept = self.bin(BinOp::Xor, cleared, all);
        let a = self.bin(BinOp::And, a, kept);
        self.bin(BinOp::Or, a, inserted)
    }

    /// R2P (UR2UP when `uniform`) as the interpreter's `predicates_from`: bit i of a's byte `byte` into P_i (UP_i)
    /// where mask bit i is set.
    pub(super) fn predicates_from(&mut self, a: Value, mask: Value, byte: u64, uniform: bool) {
        let shift = self.const32(8 * byte as u32);
        let value = self.bin(BinOp::ShrU, a, shift);
        for i in 0..7 {
            let (bit, zero) = (self.const32(1 << i), self.const32(0));
            let selected = self.bin(BinOp::And, mask, bit);
            let selected = self.cmp(Cmp::Ne, selected, zero);
            let set = self.bin(BinOp::And, value, bit);
            let set = self.cmp(Cmp::Ne, set, zero);
            let old = if uniform { self.upred(i) } else { self.pred(i) };
            let new = self.select(selected, set, old);
            if uniform { self.set_upred(i, new) } else { self.set_pred(i, new) }
        }
    }

    /// A count of bit positions as SGXT, BMSK and the video shifts read one: wrapped to 0-31, or clamped at 32.
    pub(super) fn bit_count(&mut self, count: Value, wrap: bool) -> Value {
        if wrap {
            let mask = self.const32(31);
            self.bin(BinOp::And, count, mask)
        } else {
            let limit = self.const32(32);
            self.bin(BinOp::MinU, count, limit)
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn funnel_shift(
        &mut self,
        a: Value,
        amount: Value,
        c: Value,
        ty: u64,
        wrap: bool,
        right: bool,
        high: bool,
    ) -> Value {
        let width = if ty >= 4 { 32 } else { 64 };
        let signed = matches!(ty, 0 | 1 | 4 | 5);
        let amount = if wrap {
            let mask = self.const32(width - 1);
            self.bin(BinOp::And, amount, mask)
        } else {
            let limit = self.const32(width);
            self.bin(BinOp::MinU, amount, limit)
        };
        // The pair {c, a}, c's sign extended above it when signed: 64 bits hold all a right shift keeps of a
        // 96-bit value's low 64 once the amount is at most 64, except the sign fill, which ShrS provides.
        let pair = self.pair(a, c);
        let shifted = match (right, signed) {
            (false, _) => self.bin(BinOp::Shl, pair, amount),
            (true, false) => self.bin(BinOp::ShrU, pair, amount),
            (true, true) => self.bin(BinOp::ShrS, pair, amount),
        };
        if high { self.un(UnOp::High, shifted) } else { self.un(UnOp::Truncate, shifted) }
    }

    pub(super) fn float_compare(&mut self, a: Value, b: Value, cmp: u64) -> Value {
        let cmp = match cmp {
            0 => return self.bool(false),
            1 => Cmp::FLt,
            2 => Cmp::FEq,
            3 => Cmp::FLe,
            4 => Cmp::FGt,
            5 => Cmp::FNe,
            6 => Cmp::FGe,
            7 | 8 => {
                let (nan_a, nan_b) = (self.un(UnOp::IsNan, a), self.un(UnOp::IsNan, b));
                let t = self.bool(true);
                let either = self.select(nan_a, t, nan_b);
                return if cmp == 8 { either } else { self.un(UnOp::LogicalNot, either) };
            }
            9 => Cmp::FLtU,
            10 => Cmp::FEqU,
            11 => Cmp::FLeU,
            12 => Cmp::FGtU,
            13 => Cmp::FNeU,
            14 => Cmp::FGeU,
            _ => return self.bool(true),
        };
        self.cmp(cmp, a, b)
    }

    /// FMNMX: NaN loses to a number (both NaN: the canonical NaN), -0 < +0; `min` picks the minimum.
    pub(super) fn float_min_max(&mut self, a: Value, b: Value, min: Value) -> Value {
        let (nan_a, nan_b) = (self.un(UnOp::IsNan, a), self.un(UnOp::IsNan, b));
        let less = self.cmp(Cmp::FLt, a, b);
        let greater = self.cmp(Cmp::FGt, a, b);
        let smaller = self.select(less, a, b);
        let larger = self.select(greater, a, b);
        let ordered = self.select(min, smaller, larger);
        // Equal values differ only in the sign of zero: min takes the negative one, max the positive.
        let (either_sign, both_signs) = (self.bin(BinOp::Or, a, b), self.bin(BinOp::And, a, b));
        let equal_pick = self.select(min, either_sign, both_signs);
        let equal = self.cmp(Cmp::FEq, a, b);
        let number = self.select(equal, equal_pick, ordered);
        let canonical = self.const32(0x7fff_ffff);
        let when_a_nan = self.select(nan_b, canonical, b);
        let when_a_number = self.select(nan_b, a, number);
        self.select(nan_a, when_a_nan, when_a_number)
    }

    /// HMNMX2's half (the interpreter's `min_max16`): NaN loses to a number (both NaN: the canonical 0x7fff), -0
    /// is below +0, and the result is the chosen operand's own bits.
    pub(super) fn half_min_max(&mut self, a: Value, b: Value, min: Value, ftz: bool, format: HalfFormat) -> Value {
        let (a, b) = (self.flush_half(a, ftz), self.flush_half(b, ftz));
        // Compared as FP32: a BF16 is an FP32's top half.
        let widen = |l: &mut Self, h: Value| match format {
            HalfFormat::F16 => l.un(UnOp::HalfToF32, h),
            HalfFormat::Bf16 => {
                let sixteen = l.const32(16);
                l.bin(BinOp::Shl, h, sixteen)
            }
        };
        let (x, y) = (widen(self, a), widen(self, b));
        let (nan_a, nan_b) = (self.un(UnOp::IsNan, x), self.un(UnOp::IsNan, y));
        let less = self.cmp(Cmp::FLt, x, y);
        let greater = self.cmp(Cmp::FGt, x, y);
        // Equal: a first when it is the negative one (-0 before +0).
        let sign = self.const32(0x8000);
        let a_sign = self.bin(BinOp::And, a, sign);
        let zero = self.const32(0);
        let a_negative = self.cmp(Cmp::Ne, a_sign, zero);
        let f = self.bool(false);
        let not_greater = self.select(greater, f, a_negative);
        let t = self.bool(true);
        let a_first = self.select(less, t, not_greater);
        let pick_a = self.cmp(Cmp::Eq, a_first, min);
        let number = self.select(pick_a, a, b);
        let canonical = self.const32(0x7fff);
        let when_a_nan = self.select(nan_b, canonical, b);
        let when_a_number = self.select(nan_b, a, number);
        self.select(nan_a, when_a_nan, when_a_number)
    }

    /// FCHK.DIVIDE: whether a / b needs the exact slow path (the interpreter's rule,
    /// `float::division_needs_slow_path`).
    pub(super) fn division_needs_slow_path(&mut self, a: Value, b: Value) -> Value {
        let exponent = |e: &mut Self, x: Value| {
            let shift = e.const32(23);
            let shifted = e.bin(BinOp::ShrU, x, shift);
            let mask = e.const32(0xff);
            e.bin(BinOp::And, shifted, mask)
        };
        let (ea, eb) = (exponent(self, a), exponent(self, b));
        let mut slow = self.bool(false);
        let t = self.bool(true);
        let (zero, all) = (self.const32(0), self.const32(0xff));
        for e in [ea, eb] {
            let denormal = self.cmp(Cmp::Eq, e, zero);
            let special = self.cmp(Cmp::Eq, e, all);
            slow = self.select(denormal, t, slow);
            slow = self.select(special, t, slow);
        }
        let bias = self.const32(125);
        let difference = self.bin(BinOp::Sub, ea, eb);
        let shifted = self.bin(BinOp::Add, difference, bias);
        let range = self.const32(250);
        let out_of_range = self.cmp(Cmp::GtU, shifted, range);
        let (b_limit, a_limit, low) = (self.const32(253), self.const32(252), self.const32(24));
        let b_high = self.cmp(Cmp::GeU, eb, b_limit);
        let a_high = self.cmp(Cmp::GeU, ea, a_limit);
        let a_low = self.cmp(Cmp::LeU, ea, low);
        for condition in [out_of_range, b_high, a_high, a_low] {
            slow = self.select(condition, t, slow);
        }
        slow
    }

    /// MUFU's functions in the order of its `func` field (0 COS, 1 SIN, 2 EX2, 3 LG2, 4 RCP, 5 RSQ, 8 SQRT, 9 TANH),
    /// on flushed operands, flushed, and the FP64 seeds (6 RCP64H, 7 RSQ64H); `None` for the others.
    pub(super) fn special_function(&mut self, func: u64, x: Value) -> Option<Value> {
        if matches!(func, 6 | 7) {
            return self.special_function64h(func, x);
        }
        let x = self.un(UnOp::FlushDenormal, x);
        let result = match func {
            0 => self.un(UnOp::CosTurns, x),
            1 => self.un(UnOp::SinTurns, x),
            2 => self.un(UnOp::Exp2, x),
            3 => self.un(UnOp::Log2, x),
            4 => {
                let one = self.const32(0x3f80_0000);
                self.bin(BinOp::FDiv, one, x)
            }
            5 => self.un(UnOp::InverseSqrt, x),
            8 => self.un(UnOp::Sqrt, x),
            9 => self.un(UnOp::Tanh, x),
            _ => return None,
        };
        let result = self.special_function_edges(func, x, result);
        Some(self.finish_float(result, true, false))
    }

    /// The values the host's functions leave undefined (GLSL.std.450: Log2 and InverseSqrt of x <= 0, Sqrt of x < 0;
    /// OpFDiv's precision only for divisors of magnitude 2^-126 to 2^126) chosen as the unit gives them (nxgpucatch
    /// `mufu.cpp` "MUFU NAN", run on a Tegra X1): LG2(±0) -inf, RCP and RSQ of ±0 the infinity of its sign, SQRT(±0)
    /// itself, RCP of a magnitude past 2^126 the zero of its sign (its reciprocal flushed), and LG2, RSQ and SQRT of a
    /// negative number NaN. `x` is flushed.
    fn special_function_edges(&mut self, func: u64, x: Value, result: Value) -> Value {
        let (sign_bit, magnitude_bits) = (self.const32(0x8000_0000), self.const32(0x7fff_ffff));
        let sign = self.bin(BinOp::And, x, sign_bit);
        let magnitude = self.bin(BinOp::And, x, magnitude_bits);
        let zero = self.const32(0);
        let is_zero = self.cmp(Cmp::Eq, magnitude, zero);
        let negative = self.cmp(Cmp::FLt, x, zero);
        let infinity = self.const32(0x7f80_0000);
        let signed_infinity = self.bin(BinOp::Or, sign, infinity);
        let nan = self.const32(0x7fff_ffff);
        match func {
            3 => {
                let minus_infinity = self.const32(0xff80_0000);
                let result = self.select(is_zero, minus_infinity, result);
                self.select(negative, nan, result)
            }
            4 => {
                let result = self.select(is_zero, signed_infinity, result);
                let (past, limit) = (self.const32(0x7e80_0000), infinity);
                let above = self.cmp(Cmp::GtU, magnitude, past);
                let not_nan = self.cmp(Cmp::LeU, magnitude, limit);
                let tiny = self.select(above, not_nan, above);
                self.select(tiny, sign, result)
            }
            5 => {
                let result = self.select(is_zero, signed_infinity, result);
                self.select(negative, nan, result)
            }
            8 => {
                let result = self.select(is_zero, x, result);
                self.select(negative, nan, result)
            }
            _ => result,
        }
    }

    /// A 64-bit integer (already extended) to FP32 (FP64, as a U64, with `double`) in rounding mode `rnd`
    /// (nearest, down, up, toward zero). Directed rounding steps one unit from the nearest where the nearest went
    /// the other way; the result is integral, so converting it back compares exactly, except at 2^64 (2^63
    /// signed), which only rounding up reaches.
    pub(super) fn integer_to_float(&mut self, wide: Value, signed: bool, rnd: u64, double: bool) -> Value {
        let conversion = match (signed, double) {
            (false, false) => Conv::UToF,
            (true, false) => Conv::SToF,
            (false, true) => Conv::UToF64,
            (true, true) => Conv::SToF64,
        };
        let converted = self.op(Op::Convert(conversion, wide));
        if rnd == 0 {
            return converted;
        }
        let float = |l: &mut Self, bits32: u32, bits64: u64| if double { l.const64(bits64) } else { l.const32(bits32) };
        let limit = if signed {
            float(self, 0x5f00_0000, 0x43e0_0000_0000_0000)
        } else {
            float(self, 0x5f80_0000, 0x43f0_0000_0000_0000)
        };
        let at_limit = self.cmp(Cmp::FGe, converted, limit);
        let back = self.op(Op::Convert(if signed { Conv::FToS64 } else { Conv::FToU64 }, converted));
        let (greater, less) = if signed { (Cmp::GtS, Cmp::LtS) } else { (Cmp::GtU, Cmp::LtU) };
        let above = self.cmp(greater, back, wide);
        let t = self.bool(true);
        let above = self.select(at_limit, t, above);
        let below = self.cmp(less, back, wide);
        let f = self.bool(false);
        let below = self.select(at_limit, f, below);
        let (one, zero) = (float(self, 1, 1), float(self, 0, 0));
        let (plus, minus) = (self.bin(BinOp::Add, converted, one), self.bin(BinOp::Sub, converted, one));
        let negative = self.cmp(Cmp::LtS, converted, zero);
        // One unit up (toward +inf) is one more in magnitude for a positive value, one less for a negative.
        let (up, down) = (self.select(negative, minus, plus), self.select(negative, plus, minus));
        match rnd {
            1 => self.select(above, down, converted),
            2 => self.select(below, up, converted),
            _ => {
                let magnitude_above = self.select(negative, below, above);
                self.select(magnitude_above, minus, converted)
            }
        }
    }

    /// FP32 (FP64, of a U64) rounded to an integral value in mode `rnd` (nearest even, floor, ceil, trunc).
    pub(super) fn round_integral(&mut self, x: Value, rnd: u64) -> Value {
        match rnd {
            0 => self.un(UnOp::RoundEven, x),
            1 => self.un(UnOp::Floor, x),
            2 => self.un(UnOp::Ceil, x),
            _ => self.un(UnOp::Trunc, x),
        }
    }

    /// An integer source of 8 << `size` bits extended to 64: register pair `rb`, or the `byte`-th part (in
    /// bytes) of register `rb`.
    pub(super) fn integer_source(&mut self, rb: u64, size: u64, byte: u64, signed: bool) -> Value {
        if size == 3 {
            return self.reg64(rb);
        }
        let b = self.reg(rb);
        self.integer_part(b, size, byte, signed)
    }

    /// The low byte (size code 0, 1) or half (2, 3) of `value`, sign-extended for the odd codes.
    pub(super) fn extend_part(&mut self, value: Value, size: u64) -> Value {
        let unused = self.const32(if size < 2 { 24 } else { 16 });
        let up = self.bin(BinOp::Shl, value, unused);
        self.bin(if size & 1 == 1 { BinOp::ShrS } else { BinOp::ShrU }, up, unused)
    }

    /// Byte `byte` on of the 32-bit `b`, `size` (0 8-bit, 1 16-bit, 2 32-bit) wide, extended to 64 bits.
    pub(super) fn integer_part(&mut self, b: Value, size: u64, byte: u64, signed: bool) -> Value {
        let shift = self.const32(8 * byte as u32);
        let part = self.bin(BinOp::ShrU, b, shift);
        let unused = self.const32(32 - (8u32 << size));
        let up = self.bin(BinOp::Shl, part, unused);
        let down = self.bin(if signed { BinOp::ShrS } else { BinOp::ShrU }, up, unused);
        self.un(if signed { UnOp::ExtendS } else { UnOp::ExtendU }, down)
    }

    /// I2F's result: the 64-bit integer (already extended) as a float of type `dst` (1 FP16, 2 FP32, 3 FP64) in
    /// mode `rnd`, into register `rd` (a pair for FP64). FP16 goes through FP32 rounded to nearest: exact for
    /// integers below 2^24, and those above are past FP16's range, whose result does not depend on FP32's rounding.
    pub(super) fn integer_result(&mut self, wide: Value, signed: bool, dst: u64, rnd: u64, rd: u64) {
        match dst {
            3 => {
                let value = self.integer_to_float(wide, signed, rnd, true);
                self.set_reg64(rd, value);
            }
            1 => {
                let single = self.integer_to_float(wide, signed, 0, false);
                let half = self.op(Op::F32ToHalf(Round::from_field(rnd), single));
                self.set_reg(rd, half);
            }
            _ => {
                let value = self.integer_to_float(wide, signed, rnd, false);
                self.set_reg(rd, value);
            }
        }
    }

    /// FP32 (FP64, of a U64) to an integer of `8 << size` bits, rounded in mode `rnd`, saturating (out-of-range
    /// conversions are undefined in SPIR-V, so the bounds, powers of two exact in both formats, are tested first).
    /// NaN gives 0, or the top bit alone from FP64 or to 64-bit integers (as the H200 does; sign-extended for
    /// signed bytes and halves). A U64 value for 64 bits, else U32.
    pub(super) fn float_to_integer(&mut self, x: Value, size: u64, signed: bool, rnd: u64) -> Value {
        let width = 8u32 << size;
        let double = self.type_of(x) == Type::U64;
        let rounded = self.round_integral(x, rnd);
        let power = |l: &mut Self, exponent: u32, negative: bool| {
            if double {
                l.const64(u64::from(negative) << 63 | u64::from(1023 + exponent) << 52)
            } else {
                l.const32(u32::from(negative) << 31 | (127 + exponent) << 23)
            }
        };
        let (low, high) = if signed {
            (power(self, width - 1, true), power(self, width - 1, false))
        } else {
            (if double { self.const64(0) } else { self.const32(0) }, power(self, width, false))
        };
        let below = self.cmp(Cmp::FLe, rounded, low);
        let above = self.cmp(Cmp::FGe, rounded, high);
        let nan = self.un(UnOp::IsNan, rounded);
        let max = |bits: u32| if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let (low_int, high_int) =
            if signed { ((1u64 << (width - 1)).wrapping_neg(), max(width - 1)) } else { (0, max(width)) };
        // A signed byte or half comes sign-extended, its NaN too.
        let top_bits = if signed { u64::MAX << (width - 1) } else { 1 << (width - 1) };
        let nan_bits = if double || width == 64 { top_bits } else { 0 };
        let (converted, low_int, high_int, nan_value) = if width == 64 {
            let converted = self.op(Op::Convert(if signed { Conv::FToS64 } else { Conv::FToU64 }, rounded));
            (converted, self.const64(low_int), self.const64(high_int), self.const64(nan_bits))
        } else {
            let converted = self.op(Op::Convert(if signed { Conv::FToS } else { Conv::FToU }, rounded));
            (converted, self.const32(low_int as u32), self.const32(high_int as u32), self.const32(nan_bits as u32))
        };
        let value = self.select(above, high_int, converted);
        let value = self.select(below, low_int, value);
        self.select(nan, nan_value, value)
    }
}
