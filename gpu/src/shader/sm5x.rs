//! Maxwell SM5x to IR: each instruction's meaning in IR operations, as the interpreter (`sass::exec::sm5x`,
//! which the translation is checked against) defines it.
//!
//! Two pieces of Maxwell state become IR places: the condition code (`GetCc`/`SetCc`: zero 1, sign 2, carry 4,
//! overflow 8), and the per-thread stack SSY, PBK, PCNT, CAL, PRET and PLONGJMP push and SYNC, BRK, CONT, RET and
//! LONGJMP pop, kept at the top of
//! local memory (its depth in the first word). Popping to an entry of a kind is a small block of its own (named
//! by the popping instruction's offset with bit 30 set) that pops one entry and jumps to its target, or to
//! itself again when the entry was of another kind.

mod texture;
mod video;

use super::TranslateError;
use super::ir::{BinOp, Block, Cmp, FArith, HalfFormat, Op, Program, Round, Space, Special, Terminator, UnOp, Value};
use super::lower::{HalfSource, Lower, SHARED_UPDATE64, quad_shuffle};
use super::stack::{Effect, static_pops};
use crate::sass::Isa;
use crate::sass::cubin::KernelImage;
use crate::sass::sm5x::{
    decode_program, double_immediate, float_immediate, fmul_scale, iadd3_cc_unknown, odd_wide_constant,
};
use crate::sass::text::View;
use std::collections::BTreeSet;
use std::ops::{Deref, DerefMut};

type Result<T = ()> = std::result::Result<T, TranslateError>;

/// Bytes of local memory the reconvergence and call stack takes (its depth word and 127 entries).
const STACK_BYTES: u32 = 512;
/// Marks a block that pops the stack (bit 30 of a block name; guest offsets stay far below).
const POP_BLOCK: u32 = 1 << 30;
/// A target where no block starts: the dispatcher ends the thread there.
const NO_BLOCK: u32 = u32::MAX;
/// Entry kinds, in bits 31:KIND_SHIFT of an entry (the target below).
const SYNC_KIND: u32 = 0;
const BREAK_KIND: u32 = 1;
const CALL_KIND: u32 = 2;
const CONTINUE_KIND: u32 = 3;
const LONG_JUMP_KIND: u32 = 4;
const KIND_SHIFT: u32 = 28;

/// Condition code bits.
const ZERO: u32 = 1;
const SIGN: u32 = 2;
const CARRY: u32 = 4;
const OVERFLOW: u32 = 8;

pub fn lower(kernel: &KernelImage, local_bytes: u32, graphics: bool) -> Result<Program> {
    let decoded = decode_program(&kernel.code)?;
    let views: Vec<View> = decoded
        .iter()
        .map(|instruction| View {
            encoding: instruction.inst.encoding(),
            word: u128::from(instruction.inst.encode().expect("a decoded instruction encodes")),
            control: instruction.control,
            offset: instruction.offset,
        })
        .collect();
    // The stack is followed through the code when every instruction meets one stack (then pops are jumps and
    // the control flow can be structured); otherwise it lives in local memory, above the program's own.
    let next = |i: usize| views.get(i + 1).map_or(views[i].offset as u32 + 8, |v| v.offset as u32);
    let origin = kernel.origin;
    let pops = static_pops(&views, (STACK_BYTES / 4 - 2) as usize, next, |v, next| stack_effect(v, next, origin));
    let stack_base = local_bytes.next_multiple_of(4);
    let stack_bytes = if pops.is_some() { 0 } else { STACK_BYTES };
    let mut lower = Lower::new(kernel, stack_base + stack_bytes, graphics);
    lower.pops = pops;
    let mut maxwell = Maxwell { l: &mut lower, stack_base, views: &views, origin };
    let leaders = maxwell.leaders();
    let starts: Vec<usize> = leaders.iter().copied().collect();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(views.len());
        let block = maxwell.block(start, end)?;
        maxwell.l.program.blocks.push(block);
    }
    if maxwell.pops.is_some() {
        lower.program.entry = views.first().map_or(0, |v| v.offset as u32);
    } else {
        // The entry clears the stack depth: a block in front of the code's first.
        let entry = maxwell.entry_block();
        maxwell.l.program.blocks.insert(0, entry);
        lower.program.entry = ENTRY_BLOCK;
    }
    lower.finish().map_err(|what| TranslateError::Unimplemented {
        isa: Isa::Sm5x,
        what,
        kernel: kernel.name.clone(),
        offset: 0,
    })
}

struct Maxwell<'l, 'k, 'v> {
    l: &'l mut Lower<'k>,
    stack_base: u32,
    views: &'v [View],
    /// Where the code starts in its code segment (`KernelImage::origin`), for absolute branches.
    origin: u32,
}

/// The kind of stack entry an instruction pushes or pops.
fn stack_kind(opcode: &str) -> Option<u32> {
    match opcode {
        "SSY" | "SYNC" => Some(SYNC_KIND),
        "PBK" | "BRK" => Some(BREAK_KIND),
        "PCNT" | "CONT" => Some(CONTINUE_KIND),
        "CAL" | "PRET" | "RET" => Some(CALL_KIND),
        "PLONGJMP" | "LONGJMP" => Some(LONG_JUMP_KIND),
        _ => None,
    }
}

/// Whether an instruction's predicate or condition-code test may turn it off.
fn conditional(v: &View) -> bool {
    let predicated = v.has("pg") && (v.get("pg") != 7 || v.flag("pg_not"));
    predicated || (v.has("cc_test") && v.get("cc_test") != 15)
}

/// A branch's, call's or stack entry's target offset in the code: an absolute address in the code segment (JMP,
/// JCAL), which starts `origin` bytes before the code, or an offset from the next instruction. A bundle's start
/// stands for its first instruction.
fn target(v: &View, origin: u32) -> u32 {
    let target = if v.has("address") {
        (v.get("address") as u32).wrapping_sub(origin)
    } else {
        (v.offset as i64 + 8 + v.signed("offset")) as u32
    };
    if target.is_multiple_of(32) { target + 8 } else { target }
}

/// What an instruction does to the control flow and the reconvergence and call stack.
fn stack_effect(v: &View, next: u32, origin: u32) -> Effect {
    let opcode = v.encoding.opcode;
    let conditional = conditional(v);
    match opcode {
        "SSY" | "PBK" | "PCNT" | "PRET" | "PLONGJMP" => Effect::Push {
            kind: stack_kind(opcode).expect("a stack instruction"),
            entry: target(v, origin),
            then: next,
        },
        "CAL" | "JCAL" => Effect::Push { kind: CALL_KIND, entry: next, then: target(v, origin) },
        "SYNC" | "BRK" | "CONT" | "RET" | "LONGJMP" => {
            Effect::Pop { kind: stack_kind(opcode).expect("a stack instruction"), conditional }
        }
        "BRA" | "JMP" => Effect::Branch { target: target(v, origin), conditional },
        "EXIT" | "BPT" => Effect::Exit { conditional },
        "BRX" | "JMX" => Effect::Unknown,
        _ => Effect::Next,
    }
}

impl<'k> Deref for Maxwell<'_, 'k, '_> {
    type Target = Lower<'k>;
    fn deref(&self) -> &Lower<'k> {
        self.l
    }
}

impl DerefMut for Maxwell<'_, '_, '_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.l
    }
}

/// A global address: ra (a register pair with .E) plus the signed offset.
fn global_address(l: &mut Lower, v: &View) -> Value {
    let base = if v.flag("e") {
        l.reg64(v.get("ra"))
    } else {
        let base = l.reg(v.get("ra"));
        l.un(UnOp::ExtendU, base)
    };
    let offset = l.const64(v.signed("offset") as u64);
    l.bin(BinOp::Add, base, offset)
}

/// The name of the entry block (in front of the code: no guest offset is this large).
const ENTRY_BLOCK: u32 = POP_BLOCK - 1;

impl Maxwell<'_, '_, '_> {
    fn unimplemented<T>(&self, v: &View, what: impl Into<String>) -> Result<T> {
        Err(TranslateError::Unimplemented {
            isa: Isa::Sm5x,
            what: what.into(),
            kernel: self.l.kernel_name.to_string(),
            offset: v.offset,
        })
    }

    fn text(v: &View) -> String {
        let inst = crate::sass::sm5x::decode(v.word as u64).expect("the view was decoded");
        crate::sass::sm5x::text(&crate::sass::Instruction { offset: v.offset, inst, control: v.control })
    }

    fn next_offset(&self, index: usize) -> u32 {
        self.views.get(index + 1).map_or((self.views[index].offset + 8) as u32, |v| v.offset as u32)
    }

    fn leaders(&self) -> BTreeSet<usize> {
        let mut leaders = BTreeSet::from([0]);
        let indirect = self.views.iter().any(|v| matches!(v.encoding.opcode, "BRX" | "JMX"));
        for (i, v) in self.views.iter().enumerate() {
            if indirect {
                leaders.insert(i);
                continue;
            }
            if matches!(
                v.encoding.opcode,
                "BRA"
                    | "JMP"
                    | "CAL"
                    | "JCAL"
                    | "EXIT"
                    | "RET"
                    | "SYNC"
                    | "BRK"
                    | "CONT"
                    | "LONGJMP"
                    | "BPT"
                    | "BAR"
                    | "RED"
                    | "ATOM"
                    | "ATOMS"
            ) || Lower::exchanges_lanes(v, self.l.graphics)
            {
                leaders.insert(i + 1);
            }
            if matches!(
                v.encoding.opcode,
                "BRA" | "JMP" | "CAL" | "JCAL" | "SSY" | "PBK" | "PCNT" | "PRET" | "PLONGJMP"
            ) {
                let target = target(v, self.origin) as usize;
                if let Some(index) = self.views.iter().position(|w| w.offset == target) {
                    leaders.insert(index);
                }
            }
        }
        leaders.retain(|&i| i < self.views.len());
        leaders
    }

    fn entry_block(&mut self) -> Block {
        self.stmts.push(Vec::new());
        let zero = self.const32(0);
        let stack_base = self.stack_base;
        let depth_address = self.const32(stack_base);
        self.op(Op::Store { space: Space::Local, address: depth_address, value: zero });
        let body = self.stmts.pop().expect("pushed above");
        let first = self.views.first().map_or(0, |v| v.offset as u32);
        Block { start: ENTRY_BLOCK, body, terminator: Terminator::Jump(first) }
    }

    fn block(&mut self, start: usize, end: usize) -> Result<Block> {
        let name = self.views[start].offset as u32;
        self.stmts.push(Vec::new());
        let mut terminator = None;
        for index in start..end {
            if let Some(end) = self.instruction(index)? {
                terminator = Some(end);
                break;
            }
        }
        let body = self.stmts.pop().expect("pushed above");
        let terminator = match terminator {
            Some(terminator) => terminator,
            None if end < self.views.len() => Terminator::Jump(self.views[end].offset as u32),
            None => Terminator::Exit(None),
        };
        Ok(Block { start: name, body, terminator })
    }

    // -----------------------------------------------------------------------------------------------------------
    // The stack.

    fn push(&mut self, kind: u32, target: u32) {
        let stack_base = self.stack_base;
        let depth_address = self.const32(stack_base);
        let depth = self.op(Op::Load { space: Space::Local, address: depth_address });
        let (four, base) = (self.const32(4), self.const32(stack_base + 4));
        let slot = self.bin(BinOp::Mul, depth, four);
        let address = self.bin(BinOp::Add, base, slot);
        let entry = self.const32(kind << KIND_SHIFT | target);
        self.op(Op::Store { space: Space::Local, address, value: entry });
        let one = self.const32(1);
        let deeper = self.bin(BinOp::Add, depth, one);
        // Deeper than the stack holds: the last entry is overwritten (ptxas never nests this deep).
        let limit = self.const32(STACK_BYTES / 4 - 2);
        let deeper = self.bin(BinOp::MinU, deeper, limit);
        self.op(Op::Store { space: Space::Local, address: depth_address, value: deeper });
    }

    /// The block that pops to the nearest entry of `kind` for the instruction at `offset`. A pop that finds the
    /// stack empty (no entry of `kind` on it: a program the hardware faults on) ends the thread, at a target no
    /// block starts.
    fn pop_block(&mut self, offset: u32, kind: u32) -> Block {
        self.stmts.push(Vec::new());
        let stack_base = self.stack_base;
        let depth_address = self.const32(stack_base);
        let depth = self.op(Op::Load { space: Space::Local, address: depth_address });
        let (zero, one) = (self.const32(0), self.const32(1));
        let empty = self.cmp(Cmp::Eq, depth, zero);
        let below = self.bin(BinOp::Sub, depth, one);
        let top = self.select(empty, zero, below);
        let (four, base) = (self.const32(4), self.const32(stack_base + 4));
        let slot = self.bin(BinOp::Mul, top, four);
        let address = self.bin(BinOp::Add, base, slot);
        let entry = self.op(Op::Load { space: Space::Local, address });
        self.op(Op::Store { space: Space::Local, address: depth_address, value: top });
        let shift = self.const32(KIND_SHIFT);
        let entry_kind = self.bin(BinOp::ShrU, entry, shift);
        let wanted = self.const32(kind);
        let matches = self.cmp(Cmp::Eq, entry_kind, wanted);
        let mask = self.const32((1 << KIND_SHIFT) - 1);
        let target = self.bin(BinOp::And, entry, mask);
        let again = self.const32(offset | POP_BLOCK);
        let next = self.select(matches, target, again);
        let nowhere = self.const32(NO_BLOCK);
        let next = self.select(empty, nowhere, next);
        let body = self.stmts.pop().expect("pushed above");
        Block { start: offset | POP_BLOCK, body, terminator: Terminator::JumpIndirect(next) }
    }

    // -----------------------------------------------------------------------------------------------------------
    // Operands.

    fn form(v: &View) -> &'static str {
        v.encoding.form().rsplit('.').next().unwrap_or("")
    }

    fn cbuf(&mut self, v: &View) -> Value {
        let offset = crate::sass::sm5x::constant_offset(v);
        self.constant(v.get("cb_bank"), offset)
    }

    /// The second source as an integer.
    fn b(&mut self, v: &View) -> Value {
        if v.has("imm32") {
            self.const32(v.get("imm32") as u32)
        } else if v.has("imm20") {
            self.const32(v.signed("imm20") as u32)
        } else if v.has("imm16") {
            self.const32(v.get("imm16") as u32)
        } else if v.has("cb_offset") && Self::form(v) != "cbuf_c" {
            self.cbuf(v)
        } else {
            self.reg(v.get("rb"))
        }
    }

    /// The third source: `rc`, or the constant in `cbuf_c` forms; the 32-bit-immediate forms (FFMA32I) add
    /// their destination.
    fn c(&mut self, v: &View) -> Value {
        match Self::form(v) {
            "cbuf_c" => self.cbuf(v),
            _ if v.has("rc") => self.reg(v.get("rc")),
            _ => self.reg(v.get("rd")),
        }
    }

    fn float_a(&mut self, v: &View) -> Value {
        let a = self.reg(v.get("ra"));
        self.float_modifiers(a, v, "neg_a", "abs_a")
    }

    fn float_b(&mut self, v: &View) -> Value {
        let b = if v.has("imm20") { self.const32(float_immediate(v.get("imm20"))) } else { self.b(v) };
        self.float_modifiers(b, v, "neg_b", "abs_b")
    }

    fn float_c(&mut self, v: &View) -> Value {
        let c = self.c(v);
        self.float_modifiers(c, v, "neg_c", "abs_c")
    }

    /// The second source as FP64 bits, before its modifiers: a register pair, a constant pair, or the 20-bit
    /// immediate's sign and the top 19 bits of the rest.
    fn double_b(&mut self, v: &View) -> Value {
        if v.has("imm20") {
            self.const64(double_immediate(v.get("imm20")))
        } else if v.has("cb_offset") && Self::form(v) != "cbuf_c" {
            self.constant_pair(v)
        } else {
            self.reg64(v.get("rb"))
        }
    }

    fn double_c(&mut self, v: &View) -> Value {
        if Self::form(v) == "cbuf_c" { self.constant_pair(v) } else { self.reg64(v.get("rc")) }
    }

    /// A conversion's source bits before its selector and modifiers (the interpreter's `convert_raw`): a register
    /// (pair for FP64), a constant (pair), or an F2F/F2I immediate: an FP32's top bits, an FP64's for an FP64
    /// source, for an FP16 source the FP16 in bits 35:20.
    fn convert_raw(&mut self, v: &View) -> Value {
        let (src, imm) = (v.get("src"), v.get("imm20"));
        match (Self::form(v), src) {
            ("reg", 3) => self.reg64(v.get("rb")),
            ("reg", _) => self.reg(v.get("rb")),
            ("cbuf", 3) => self.constant_pair(v),
            ("cbuf", _) => self.cbuf(v),
            (_, 3) => self.const64(double_immediate(imm)),
            (_, 1) => self.const32((imm & 0xffff) as u32),
            _ => self.const32(float_immediate(imm)),
        }
    }

    /// A pair instruction's immediate halves or constant, by its form.
    fn half_source(&mut self, v: &View) -> Option<HalfSource> {
        match (immediate_halves(v), Self::form(v)) {
            (Some(halves), _) => Some(HalfSource::Immediate(halves)),
            (None, "cbuf") => Some(HalfSource::ConstantB(self.cbuf(v))),
            (None, "cbuf_c") => Some(HalfSource::ConstantC(self.cbuf(v))),
            _ => None,
        }
    }

    fn constant_pair(&mut self, v: &View) -> Value {
        let offset = crate::sass::sm5x::constant_offset(v);
        let low = self.constant(v.get("cb_bank"), offset);
        let high = self.constant(v.get("cb_bank"), offset.saturating_add(4));
        self.pair(low, high)
    }

    fn flag_set(&mut self, flags: Value, bit: u32) -> Value {
        let mask = self.const32(bit);
        let masked = self.bin(BinOp::And, flags, mask);
        let zero = self.const32(0);
        self.cmp(Cmp::Ne, masked, zero)
    }

    /// An add as Maxwell computes it, with the condition code it produces (see the interpreter's `add`).
    ///
    /// Both negations together are .PO, plus one: a + b + 1 (nxgpucatch `iadd.cpp`, `iscadd.cpp`, run on a Tegra
    /// X1); the callers refuse it with .X.
    fn add(&mut self, a: Value, negate_a: bool, b: Value, negate_b: bool, extended: bool) -> (Value, Value) {
        let plus_one = negate_a && negate_b;
        let (negate_a, negate_b) = (negate_a && !plus_one, negate_b && !plus_one);
        let (ta, tb) = (self.term(a, negate_a, extended), self.term(b, negate_b, extended));
        let mut sum = self.bin(BinOp::Add, ta, tb);
        if plus_one {
            let one = self.const64(1);
            sum = self.bin(BinOp::Add, sum, one);
        }
        let cc_in = if extended { Some(self.op(Op::GetCc)) } else { None };
        if let Some(cc) = cc_in {
            let carry = self.flag_set(cc, CARRY);
            let carry = self.un(UnOp::BoolToU32, carry);
            let carry = self.un(UnOp::ExtendU, carry);
            sum = self.bin(BinOp::Add, sum, carry);
        }
        let result = self.un(UnOp::Truncate, sum);
        let carry_out = self.bit(sum, 32);
        let sign_of = |l: &mut Self, x: Value| {
            let word = l.un(UnOp::Truncate, x);
            let zero = l.const32(0);
            l.cmp(Cmp::LtS, word, zero)
        };
        let (sa, sb) = (sign_of(self, ta), sign_of(self, tb));
        let zero = self.const32(0);
        let sr = self.cmp(Cmp::LtS, result, zero);
        let same_inputs = self.cmp(Cmp::Eq, sa, sb);
        let flipped = self.cmp(Cmp::Ne, sr, sa);
        let f = self.bool(false);
        let overflow = self.select(same_inputs, flipped, f);
        let mut is_zero = self.cmp(Cmp::Eq, result, zero);
        if let Some(cc) = cc_in {
            // An extended add's zero flag also needs the lower part's.
            let was_zero = self.flag_set(cc, ZERO);
            is_zero = self.select(was_zero, is_zero, f);
        }
        let flags = self.flags(is_zero, sr, carry_out, overflow);
        (result, flags)
    }

    /// Packs the four flags into a condition code value.
    fn flags(&mut self, zero: Value, sign: Value, carry: Value, overflow: Value) -> Value {
        let mut cc = self.const32(0);
        for (flag, bit) in [(zero, ZERO), (sign, SIGN), (carry, CARRY), (overflow, OVERFLOW)] {
            let (set, clear) = (self.const32(bit), self.const32(0));
            let value = self.select(flag, set, clear);
            cc = self.bin(BinOp::Or, cc, value);
        }
        cc
    }

    // -----------------------------------------------------------------------------------------------------------
    // Instructions.

    fn instruction(&mut self, index: usize) -> Result<Option<Terminator>> {
        let views = self.views;
        let v = &views[index];
        let opcode = v.encoding.opcode;
        let guard = if v.has("pg") && (v.get("pg") != 7 || v.flag("pg_not")) {
            let p = self.pred(v.get("pg"));
            Some(if v.flag("pg_not") { self.un(UnOp::LogicalNot, p) } else { p })
        } else {
            None
        };
        let next = self.next_offset(index);
        let cc_test = v.has("cc_test") && v.get("cc_test") != 15 && !matches!(opcode, "NOP" | "CSETP" | "CSET");
        // A condition-code test on a branch, a stack pop or an exit joins its guard.
        if cc_test && !matches!(opcode, "BRA" | "SYNC" | "BRK" | "CONT" | "EXIT") {
            return self.unimplemented(v, format!("{} (a condition-code test)", Self::text(v)));
        }
        let guard = if cc_test {
            let cc = self.op(Op::GetCc);
            let Some(holds) = self.cc_holds(cc, v.get("cc_test")) else {
                return self.unimplemented(v, Self::text(v));
            };
            Some(match guard {
                Some(g) => {
                    let f = self.bool(false);
                    self.select(g, holds, f)
                }
                None => holds,
            })
        } else {
            guard
        };
        let branch = |target: u32| match guard {
            Some(cond) => Terminator::Branch(cond, target, next),
            None => Terminator::Jump(target),
        };
        if opcode == "ATOMS" {
            // Shared: [ra + offset * 4]; types 0 U32, 1 S32, 2 U64; CAS modes 0 CAST and 1 CAST.SPIN (whether it
            // stored) and 2 CAS (the old word), .64 comparing rb's pair and storing the pair after it.
            let cas = v.encoding.form() == "CAS";
            let (op, ty) = if cas { (8, 0) } else { (v.get("op"), v.get("ty")) };
            if op > 8 || ty > 2 || (cas && v.get("mode") > 2) {
                return self.unimplemented(v, Self::text(v));
            }
            if ty == 2 {
                return self.unimplemented(v, format!("{} ({SHARED_UPDATE64})", Self::text(v)));
            }
            if self.program.shared_bytes == 0 {
                return self.unimplemented(v, "a shared atomic in a kernel without shared memory (a fault)");
            }
            let address = |l: &mut Lower| {
                let base = l.reg(v.get("ra"));
                let offset = l.const32((v.signed("offset") * 4) as u32);
                l.bin(BinOp::Add, base, offset)
            };
            if cas {
                let (rb, wide) = (v.get("rb"), v.flag("wide"));
                let registers = (rb, if rb == 255 { 255 } else { rb + if wide { 2 } else { 1 } }, v.get("rd"));
                self.guarded(guard, |l| {
                    let at = address(l);
                    l.compare_and_swap(Space::Shared, at, wide, registers, v.get("mode") < 2);
                });
                return Ok(Some(Terminator::Jump(next)));
            }
            let result = Some(v.get("rd"));
            let terminator =
                self.l.atomic_update(v.offset, next, guard, Space::Shared, &address, (op, ty), v.get("rb"), result);
            return Ok(Some(terminator));
        }
        if opcode == "ATOM" && v.encoding.form() == "CAS" {
            // rb + 1 (the pair after rb's for .64) where the word holds rb; the old word into rd.
            let wide = v.flag("wide");
            let rb = v.get("rb");
            let registers = (rb, if rb == 255 { 255 } else { rb + if wide { 2 } else { 1 } }, v.get("rd"));
            self.guarded(guard, |l| {
                let at = global_address(l, v);
                l.compare_and_swap(Space::Global, at, wide, registers, false);
            });
            return Ok(Some(Terminator::Jump(next)));
        }
        if matches!(opcode, "RED" | "ATOM") {
            let (op, ty) = (v.get("op"), v.get("ty"));
            if !matches!((op, ty), (0..=8, 0 | 1 | 2 | 5) | (0, 3)) {
                return self.unimplemented(v, "an atomic other than an integer operation or FP32 add");
            }
            if crate::sass::sm5x::atomic_left_undone(op, ty) {
                return self.unimplemented(v, "an atomic the hardware leaves undone");
            }
            let address = |l: &mut Lower| global_address(l, v);
            let (operand, result) =
                if opcode == "RED" { (v.get("rs"), None) } else { (v.get("rb"), Some(v.get("rd"))) };
            let terminator =
                self.l.atomic_update(v.offset, next, guard, Space::Global, &address, (op, ty), operand, result);
            return Ok(Some(terminator));
        }
        if Lower::exchanges_lanes(v, self.l.graphics) {
            let (pg, pg_not) = (v.get("pg"), v.flag("pg_not"));
            let guard = move |l: &mut Lower| {
                (pg != 7 || pg_not).then(|| {
                    let p = l.pred(pg);
                    if pg_not { l.un(UnOp::LogicalNot, p) } else { p }
                })
            };
            return Ok(Some(self.l.warp_exchange(v, next, &guard)));
        }
        match opcode {
            "JMP" | "JCAL" if !self.views.iter().any(|w| w.offset as u32 == target(v, self.origin)) => {
                return Err(TranslateError::OutsideCode {
                    isa: Isa::Sm5x,
                    kernel: self.l.kernel_name.to_string(),
                    offset: v.offset,
                    address: v.get("address") as u32,
                    origin: self.origin,
                });
            }
            "BRA" | "JMP" => {
                if v.flag("u") || v.flag("lmt") {
                    return self.unimplemented(v, Self::text(v));
                }
                return Ok(Some(branch(target(v, self.origin))));
            }
            "EXIT" => return Ok(Some(Terminator::Exit(guard.map(|cond| (cond, next))))),
            "BRX" | "JMX" => {
                // To ra + offset from the next instruction (BRX: a jump table's entry) or from the code segment's
                // start (JMX).
                let base = match opcode {
                    "JMX" => (v.signed("offset") as u32).wrapping_sub(self.origin),
                    _ => (v.offset as i64 + 8 + v.signed("offset")) as u32,
                };
                let ra = self.reg(v.get("ra"));
                let base = self.const32(base);
                let target = self.bin(BinOp::Add, ra, base);
                // A bundle's start stands for its first instruction.
                let (thirty_one, zero, eight) = (self.const32(31), self.const32(0), self.const32(8));
                let within = self.bin(BinOp::And, target, thirty_one);
                let at_start = self.cmp(Cmp::Eq, within, zero);
                let skip = self.select(at_start, eight, zero);
                let target = self.bin(BinOp::Add, target, skip);
                let target = match guard {
                    Some(cond) => {
                        let fall_through = self.const32(next);
                        self.select(cond, target, fall_through)
                    }
                    None => target,
                };
                return Ok(Some(Terminator::JumpIndirect(target)));
            }
            "BPT" if v.get("mode") == 3 => return Ok(Some(Terminator::Exit(guard.map(|cond| (cond, next))))),
            "SSY" | "PBK" | "PCNT" | "PRET" | "PLONGJMP" => {
                if self.pops.is_none() {
                    let kind = stack_kind(opcode).expect("a stack instruction");
                    let target = target(v, self.origin);
                    if target >= 1 << KIND_SHIFT {
                        // (A negative offset before the program wraps; an entry keeps 28 bits of target.)
                        return self.unimplemented(v, format!("a stack entry for target {target:#x}, past the code"));
                    }
                    self.push(kind, target);
                }
                return Ok(None);
            }
            "CAL" | "JCAL" => {
                if guard.is_some() {
                    return self.unimplemented(v, "a predicated CAL");
                }
                if self.pops.is_none() {
                    self.push(CALL_KIND, next);
                }
                return Ok(Some(Terminator::Jump(target(v, self.origin))));
            }
            "SYNC" | "BRK" | "CONT" | "RET" | "LONGJMP" => {
                if let Some(pops) = &self.pops {
                    // Code that no thread reaches (static_pops followed every path) pops nothing.
                    let target = pops.get(&(v.offset as u32));
                    return Ok(Some(target.map_or(Terminator::Exit(None), |&target| branch(target))));
                }
                let offset = v.offset as u32;
                let pop = self.pop_block(offset, stack_kind(opcode).expect("a stack instruction"));
                self.program.blocks.push(pop);
                return Ok(Some(branch(offset | POP_BLOCK)));
            }
            "BAR" => {
                // Modes 0 SYNC, 1 ARV, 2 RED (0 POPC, 1 AND, 2 OR); with a register thread count the
                // interpreter stops too.
                let (mode, red) = (v.get("mode"), v.get("red"));
                if mode > 2 || (mode == 2 && red > 2) || (v.get("rb") != 0 && !v.flag("b_imm")) {
                    return self.unimplemented(v, Self::text(v));
                }
                let predicate = |l: &mut Lower| l.pred_src(v, "ps");
                match self.l.barrier(v.offset, next, guard, (mode, red), &predicate) {
                    Some(terminator) => return Ok(Some(terminator)),
                    None => return Ok(None),
                }
            }
            _ => {}
        }
        // Samples that take implicit derivatives (a pixel program's TEX, TEXS, TLD4, TLD4S and TMML) run outside
        // their guard: derivatives are defined only in uniform control flow.
        let derivatives = self.graphics && matches!(opcode, "TEX" | "TEXS" | "TLD4" | "TLD4S" | "TMML");
        match guard {
            Some(cond) if derivatives => {
                self.selected_writes = Some(cond);
                let ran = self.body(v);
                self.selected_writes = None;
                ran?
            }
            Some(cond) => {
                self.open_guard();
                self.body(v)?;
                self.close_guard(cond);
            }
            None => self.body(v)?,
        }
        Ok(None)
    }

    fn body(&mut self, v: &View) -> Result {
        let opcode = v.encoding.opcode;
        let writes_cc = v.flag("cc");
        let cc_writers = [
            "IADD", "IADD32I", "ISCADD", "FSET", "ISET", "DSET", "CSET", "PSET", "LEA", "I2I", "LOP", "LOP32I", "LOP3",
            "IMNMX", "IADD3", "BFE", "BFI",
        ];
        if writes_cc && !cc_writers.contains(&opcode) {
            return self.unimplemented(v, format!("{} writing the condition code", Self::text(v)));
        }
        if odd_wide_constant(v) {
            return self.unimplemented(v, format!("{} (a 64-bit constant at an odd word)", Self::text(v)));
        }
        match opcode {
            // CCTL, CCTLL, CCTLT: cache prefetches and invalidations, which change nothing in coherent memory; IDE:
            // whether a trap handler may interrupt, which no program here has.
            "NOP" | "DEPBAR" | "MEMBAR" | "CCTL" | "CCTLL" | "CCTLT" | "IDE" => {
                if v.has("cc_test") && v.get("cc_test") != 15 && opcode == "NOP" {
                    return self.unimplemented(v, Self::text(v));
                }
            }
            "MOV" | "MOV32I" => {
                let value = self.b(v);
                self.set_reg(v.get("rd"), value);
            }
            "PIXLD" => {
                // Values 1 COVMASK and 5 MY_INDEX; the others (the sample count, coverage, offsets), an address
                // or a predicate destination stop by name.
                let special = match v.get("mode") {
                    1 => Special::SampleMask,
                    5 => Special::SampleId,
                    _ => return self.unimplemented(v, Self::text(v)),
                };
                if v.get("ra") != 255 || v.get("offset") != 0 || v.get("pd") != 7 {
                    return self.unimplemented(v, Self::text(v));
                }
                let value = self.op(Op::Special(special));
                self.set_reg(v.get("rd"), value);
            }
            "S2R" | "CS2R" => {
                // The SM's configuration and counters, 2-11, 67 and 68, read 0 (the interpreter's model).
                let machine = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 67, 68];
                let Some(value) = self.special_register(v.get("sr"), &machine) else {
                    return self.unimplemented(v, format!("special register {}", v.get("sr")));
                };
                self.set_reg(v.get("rd"), value);
            }
            "IADD" | "IADD32I" | "ISCADD" if v.flag("neg_a") && v.flag("neg_b") && (v.flag("x") || v.flag("sat")) => {
                // .PO with .X aborts on the hardware (nxgpucatch `iadd.cpp`); with .SAT no source says.
                return self.unimplemented(v, Self::text(v));
            }
            "IADD" | "IADD32I" if v.flag("sat") => {
                if v.flag("x") || writes_cc {
                    return self.unimplemented(v, Self::text(v));
                }
                // .SAT: the exact signed sum, clamped to 32 bits.
                let term = |l: &mut Self, slot: Value, negate: bool| {
                    let wide = l.un(UnOp::ExtendS, slot);
                    if negate {
                        let zero = l.const64(0);
                        l.bin(BinOp::Sub, zero, wide)
                    } else {
                        wide
                    }
                };
                let (a, b) = (self.reg(v.get("ra")), self.b(v));
                let (ta, tb) = (term(self, a, v.flag("neg_a")), term(self, b, v.flag("neg_b")));
                let exact = self.bin(BinOp::Add, ta, tb);
                let (high, low) = (self.const64(i32::MAX as u64), self.const64(i64::from(i32::MIN) as u64));
                let clamped = self.bin(BinOp::MinS, exact, high);
                let clamped = self.bin(BinOp::MaxS, clamped, low);
                let value = self.un(UnOp::Truncate, clamped);
                self.set_reg(v.get("rd"), value);
            }
            "IADD" | "IADD32I" | "ISCADD" | "ISCADD32I" => {
                if v.flag("sat") {
                    return self.unimplemented(v, Self::text(v));
                }
                let mut a = self.reg(v.get("ra"));
                let mut negate_a = v.flag("neg_a");
                if opcode.starts_with("ISCADD") {
                    // -a is negated before the shift, unless with -b it is .PO.
                    if negate_a && !v.flag("neg_b") {
                        let zero = self.const32(0);
                        a = self.bin(BinOp::Sub, zero, a);
                        negate_a = false;
                    }
                    let shift = self.const32(v.get("shift") as u32);
                    a = self.bin(BinOp::Shl, a, shift);
                }
                let b = self.b(v);
                let (sum, flags) = self.add(a, negate_a, b, v.flag("neg_b"), v.flag("x"));
                self.set_reg(v.get("rd"), sum);
                if writes_cc {
                    self.op(Op::SetCc(flags));
                }
            }
            "LEA" => {
                // (a << shift) + b, or for .HI the high word of ({c, a} << shift) + b; .X adds the carry. The
                // predicate result (the interpreter's): for .HI whether the address is outside the shared window
                // (Plg, which generic LD/ST/ATOM take), else the carry out.
                let mut a = self.reg(v.get("ra"));
                if v.flag("neg_a") {
                    a = if v.flag("x") {
                        let all = self.const32(u32::MAX);
                        self.bin(BinOp::Xor, a, all)
                    } else {
                        let zero = self.const32(0);
                        self.bin(BinOp::Sub, zero, a)
                    };
                }
                let shift = self.const32(v.get("shift") as u32);
                let shifted = if v.encoding.form().starts_with("HI") {
                    let high = self.reg(v.get("rc"));
                    let pair = self.pair(a, high);
                    let moved = self.bin(BinOp::Shl, pair, shift);
                    self.un(UnOp::High, moved)
                } else {
                    self.bin(BinOp::Shl, a, shift)
                };
                let b = self.b(v);
                let (sum, flags) = self.add(shifted, false, b, false, v.flag("x"));
                self.set_reg(v.get("rd"), sum);
                if writes_cc {
                    self.op(Op::SetCc(flags));
                }
                if v.get("pd") != 7 {
                    let predicate = if v.encoding.form().starts_with("HI") {
                        let window = self.const32((crate::sass::exec::SHARED_WINDOW >> 32) as u32);
                        self.cmp(Cmp::Ne, sum, window)
                    } else {
                        self.flag_set(flags, CARRY)
                    };
                    self.set_pred(v.get("pd"), predicate);
                }
            }
            "IADD3" => {
                let halves = [v.get("half_a"), v.get("half_b"), v.get("half_c")];
                // .RS of a negated first sum: whether the negation is of 32 bits (yuzu) or of the 33-bit sum is
                // settled by no hardware vector (nxgpucatch's iadd3.cpp has none).
                let shifted_negation = v.get("shift") == 1 && (v.flag("neg_a") || v.flag("neg_b"));
                if v.get("shift") == 3 || halves.contains(&3) || v.flag("x") || shifted_negation || iadd3_cc_unknown(v)
                {
                    return self.unimplemented(v, Self::text(v));
                }
                let sources = [self.reg(v.get("ra")), self.b(v), self.c(v)];
                let mut terms = Vec::new();
                for ((source, half), neg) in sources.into_iter().zip(halves).zip(["neg_a", "neg_b", "neg_c"]) {
                    let part = match half {
                        1 => {
                            let mask = self.const32(0xffff);
                            self.bin(BinOp::And, source, mask)
                        }
                        2 => {
                            let sixteen = self.const32(16);
                            self.bin(BinOp::ShrU, source, sixteen)
                        }
                        _ => source,
                    };
                    let wide = self.un(UnOp::ExtendU, part);
                    terms.push(if v.flag(neg) {
                        let zero = self.const64(0);
                        self.bin(BinOp::Sub, zero, wide)
                    } else {
                        wide
                    });
                }
                let first = self.bin(BinOp::Add, terms[0], terms[1]);
                let sixteen = self.const32(16);
                let first = match v.get("shift") {
                    1 => self.bin(BinOp::ShrU, first, sixteen),
                    2 => self.bin(BinOp::Shl, first, sixteen),
                    _ => first,
                };
                let first_word = self.un(UnOp::Truncate, first);
                let first_word = self.un(UnOp::ExtendU, first_word);
                let sum = self.bin(BinOp::Add, first_word, terms[2]);
                let value = self.un(UnOp::Truncate, sum);
                self.set_reg(v.get("rd"), value);
                if v.flag("cc") {
                    // The interpreter's two carries: V from a + b, C from adding c to that sum's word (plain sums
                    // only, so every term is below 2^32 and each carry is bit 32).
                    let (sum_carry, c_carry) = (self.un(UnOp::High, first), self.un(UnOp::High, sum));
                    let zero = self.const32(0);
                    let (sum_carry, c_carry) = (self.cmp(Cmp::Ne, sum_carry, zero), self.cmp(Cmp::Ne, c_carry, zero));
                    let (is_zero, negative) = (self.cmp(Cmp::Eq, value, zero), self.cmp(Cmp::LtS, value, zero));
                    let flags = self.flags(is_zero, negative, c_carry, sum_carry);
                    self.op(Op::SetCc(flags));
                }
            }
            "XMAD" => {
                // Modes: 0 C, 1 CLO, 2 CHI, 3 CSFU, 4 CBCC.
                if v.get("mode") > 4 || v.flag("x") {
                    return self.unimplemented(v, Self::text(v));
                }
                let (a, b, c) = (self.reg(v.get("ra")), self.b(v), self.c(v));
                let half = |l: &mut Self, x: Value, high: bool, signed: bool| {
                    let shift = l.const32(16);
                    let bits = if high {
                        l.bin(BinOp::ShrU, x, shift)
                    } else {
                        let mask = l.const32(0xffff);
                        l.bin(BinOp::And, x, mask)
                    };
                    if signed {
                        let up = l.bin(BinOp::Shl, bits, shift);
                        l.bin(BinOp::ShrS, up, shift)
                    } else {
                        bits
                    }
                };
                let fa = half(self, a, v.flag("half_a"), v.flag("signed_a"));
                let fb = half(self, b, v.flag("half_b"), v.flag("signed_b"));
                let mut product = self.bin(BinOp::Mul, fa, fb);
                let sixteen = self.const32(16);
                if v.flag("psl") {
                    product = self.bin(BinOp::Shl, product, sixteen);
                }
                let addend = match v.get("mode") {
                    1 => {
                        let mask = self.const32(0xffff);
                        self.bin(BinOp::And, c, mask)
                    }
                    2 => self.bin(BinOp::ShrU, c, sixteen),
                    3 => {
                        // CSFU: C less 2^16 for each signed factor whose half is negative while the other
                        // factor's unselected half is not zero (the interpreter's rule, which the H200 bears out).
                        let mut fixes = self.const32(0);
                        for (factor, signed, other, other_high) in [
                            (fa, v.flag("signed_a"), b, v.flag("half_b")),
                            (fb, v.flag("signed_b"), a, v.flag("half_a")),
                        ] {
                            if !signed {
                                continue;
                            }
                            let zero = self.const32(0);
                            let negative = self.cmp(Cmp::LtS, factor, zero);
                            let unselected = half(self, other, !other_high, false);
                            let counts = self.cmp(Cmp::Ne, unselected, zero);
                            let f = self.bool(false);
                            let fix = self.select(negative, counts, f);
                            let fix = self.un(UnOp::BoolToU32, fix);
                            fixes = self.bin(BinOp::Add, fixes, fix);
                        }
                        let fixes = self.bin(BinOp::Shl, fixes, sixteen);
                        self.bin(BinOp::Sub, c, fixes)
                    }
                    4 => {
                        let shifted = self.bin(BinOp::Shl, b, sixteen);
                        self.bin(BinOp::Add, c, shifted)
                    }
                    _ => c,
                };
                let sum = self.bin(BinOp::Add, product, addend);
                let value = if v.flag("mrg") {
                    let mask = self.const32(0xffff);
                    let low = self.bin(BinOp::And, sum, mask);
                    let high = self.bin(BinOp::Shl, b, sixteen);
                    self.bin(BinOp::Or, low, high)
                } else {
                    sum
                };
                self.set_reg(v.get("rd"), value);
            }
            "SEL" => {
                let p = self.pred_src(v, "ps");
                let (a, b) = (self.reg(v.get("ra")), self.b(v));
                let value = self.select(p, a, b);
                self.set_reg(v.get("rd"), value);
            }
            "LOP" | "LOP32I" | "LOP3" => {
                if v.flag("x") {
                    return self.unimplemented(v, Self::text(v));
                }
                let (mut a, mut b) = (self.reg(v.get("ra")), self.b(v));
                let all = self.const32(u32::MAX);
                if v.flag("inv_a") {
                    a = self.bin(BinOp::Xor, a, all);
                }
                if v.flag("inv_b") {
                    b = self.bin(BinOp::Xor, b, all);
                }
                let result = if opcode == "LOP3" {
                    let c = self.c(v);
                    self.lop3(v.get("lut") as u8, a, b, c)
                } else {
                    match v.get("op") {
                        0 => self.bin(BinOp::And, a, b),
                        1 => self.bin(BinOp::Or, a, b),
                        2 => self.bin(BinOp::Xor, a, b),
                        _ => b,
                    }
                };
                self.set_reg(v.get("rd"), result);
                self.result_flags(v, result);
                // pred_op F writes false, as the interpreter's `logic_predicate`.
                if v.has("pd") {
                    let zero = self.const32(0);
                    let predicate = match v.get("pred_op") {
                        0 => self.bool(false),
                        1 => self.bool(true),
                        2 => self.cmp(Cmp::Eq, result, zero),
                        _ => self.cmp(Cmp::Ne, result, zero),
                    };
                    self.set_pred(v.get("pd"), predicate);
                }
            }
            "SHL" | "SHR" => {
                if (opcode == "SHR" && v.get("x") != 0) || (opcode == "SHL" && v.flag("x")) {
                    return self.unimplemented(v, Self::text(v));
                }
                // SHR.BREV: a's bits reversed first (the interpreter's SHR).
                let a = self.reg(v.get("ra"));
                let a = if v.flag("brev") { self.un(UnOp::BitReverse, a) } else { a };
                let amount = self.b(v);
                let amount = if v.flag("w") {
                    let mask = self.const32(31);
                    self.bin(BinOp::And, amount, mask)
                } else {
                    amount
                };
                let op = match (opcode, v.flag("signed")) {
                    ("SHL", _) => BinOp::Shl,
                    (_, true) => BinOp::ShrS,
                    _ => BinOp::ShrU,
                };
                let value = self.bin(op, a, amount);
                self.set_reg(v.get("rd"), value);
            }
            "SHF" => {
                if v.get("x") != 0 || v.get("ty") == 1 {
                    return self.unimplemented(v, Self::text(v));
                }
                let (a, c) = (self.reg(v.get("ra")), self.reg(v.get("rc")));
                let amount = if v.has("imm6") { self.const32(v.get("imm6") as u32) } else { self.reg(v.get("rb")) };
                let right = v.encoding.form().starts_with('R');
                // The shared funnel's type numbering: 0/1 S64, 2/3 U64, 4/5 S32, 6/7 U32.
                let ty = match v.get("ty") {
                    2 => 2,
                    3 => 0,
                    _ => 6,
                };
                // A left funnel keeps the high word, a right one the low word.
                let value = self.funnel_shift(a, amount, c, ty, v.flag("w"), right, !right);
                self.set_reg(v.get("rd"), value);
            }
            "BFE" => {
                let (mut a, b) = (self.reg(v.get("ra")), self.b(v));
                // .BREV reverses the source's bits first.
                if v.flag("brev") {
                    a = self.un(UnOp::BitReverse, a);
                }
                let value = self.bit_field_extract(a, b, v.flag("signed"));
                self.set_reg(v.get("rd"), value);
                self.result_flags(v, value);
            }
            "PRMT" => {
                if v.get("mode") > 6 {
                    return self.unimplemented(v, Self::text(v));
                }
                let (a, b, c) = (self.reg(v.get("ra")), self.b(v), self.c(v));
                let value = self.permute(a, b, c, v.get("mode"));
                self.set_reg(v.get("rd"), value);
            }
            "ISETP" | "ISET" => {
                let (a, b) = (self.reg(v.get("ra")), self.b(v));
                let holds = self.integer_compare(a, b, v.get("cmp"), v.flag("signed"), v.flag("x"));
                self.set_comparison(v, holds);
            }
            "P2R" => {
                // P0-P6 (or the condition code's four flags) into byte `byte` of a, under the mask's low byte.
                let bits = if v.flag("cc_mode") { self.op(Op::GetCc) } else { self.predicate_bits(false) };
                let (a, mask) = (self.reg(v.get("ra")), self.b(v));
                let value = self.predicates_into(a, bits, mask, v.get("byte"));
                self.set_reg(v.get("rd"), value);
            }
            "R2P" => {
                // Bit i of a's byte `byte` into P_i (or flag i) where mask bit i is set.
                let a = self.reg(v.get("ra"));
                let mask = self.b(v);
                if v.flag("cc_mode") {
                    let shift = self.const32(8 * v.get("byte") as u32);
                    let value = self.bin(BinOp::ShrU, a, shift);
                    let flags = self.const32(0xf);
                    let mask = self.bin(BinOp::And, mask, flags);
                    let taken = self.bin(BinOp::And, value, mask);
                    let all = self.const32(u32::MAX);
                    let unmasked = self.bin(BinOp::Xor, mask, all);
                    let cc = self.op(Op::GetCc);
                    let kept = self.bin(BinOp::And, cc, unmasked);
                    let cc = self.bin(BinOp::Or, kept, taken);
                    self.op(Op::SetCc(cc));
                } else {
                    self.predicates_from(a, mask, v.get("byte"), false);
                }
            }
            "IMUL" | "IMUL32I" | "IMAD" | "IMAD32I" => {
                // The interpreter's: the 64-bit product of the operands, each widened by its signedness (exact:
                // it fits in 64 bits), negated with neg_ab; its low or high word, then (IMAD) + c, negated with
                // neg_c (both: .PO, plus one), + the carry flag with .X.
                if v.flag("sat") || (v.flag("hi") && v.flag("neg_ab")) {
                    return self.unimplemented(v, Self::text(v));
                }
                let widen =
                    |l: &mut Self, x: Value, signed: bool| l.un(if signed { UnOp::ExtendS } else { UnOp::ExtendU }, x);
                let a = self.reg(v.get("ra"));
                let a = widen(self, a, v.flag("signed_a"));
                let b = self.b(v);
                let b = widen(self, b, v.flag("signed_b"));
                let mut product = self.bin(BinOp::Mul, a, b);
                let plus_one = v.flag("neg_ab") && v.flag("neg_c");
                if v.flag("neg_ab") && !plus_one {
                    let zero = self.const64(0);
                    product = self.bin(BinOp::Sub, zero, product);
                }
                let mut value = self.un(if v.flag("hi") { UnOp::High } else { UnOp::Truncate }, product);
                if opcode.starts_with("IMAD") {
                    let mut c = self.c(v);
                    if v.flag("neg_c") && !plus_one {
                        let zero = self.const32(0);
                        c = self.bin(BinOp::Sub, zero, c);
                    }
                    value = self.bin(BinOp::Add, value, c);
                }
                if plus_one {
                    let one = self.const32(1);
                    value = self.bin(BinOp::Add, value, one);
                }
                if v.flag("x") {
                    let cc = self.op(Op::GetCc);
                    let carry = self.flag_set(cc, CARRY);
                    let carry = self.un(UnOp::BoolToU32, carry);
                    value = self.bin(BinOp::Add, value, carry);
                }
                self.set_reg(v.get("rd"), value);
            }
            "ICMP" => {
                let c = self.c(v);
                let zero = self.const32(0);
                let holds = self.integer_compare(c, zero, v.get("cmp"), v.flag("signed"), false);
                let (a, b) = (self.reg(v.get("ra")), self.b(v));
                let value = self.select(holds, a, b);
                self.set_reg(v.get("rd"), value);
            }
            "IMNMX" => {
                // Modes: 0 one 32-bit pair; a 64-bit minimum or maximum is 3 XHI on the high words, whose .CC
                // tells XLO (1, on the low words, unsigned) how they compared: the interpreter's encoding of
                // that comparison in the flags (ZERO: equal, SIGN: a below b).
                let mode = v.get("mode");
                if mode == 2 || (mode != 3 && writes_cc) {
                    return self.unimplemented(v, Self::text(v));
                }
                let (a, b) = (self.reg(v.get("ra")), self.b(v));
                let below = self.cmp(if v.flag("signed") { Cmp::LtS } else { Cmp::LtU }, a, b);
                let a_less = if mode == 1 {
                    let cc = self.op(Op::GetCc);
                    let (equal_high, below_high) = (self.flag_set(cc, ZERO), self.flag_set(cc, SIGN));
                    let below_low = self.cmp(Cmp::LtU, a, b);
                    self.select(equal_high, below_low, below_high)
                } else {
                    below
                };
                if writes_cc {
                    let equal = self.cmp(Cmp::Eq, a, b);
                    let f = self.bool(false);
                    let flags = self.flags(equal, below, f, f);
                    self.op(Op::SetCc(flags));
                }
                let minimum = self.pred_src(v, "ps");
                let a_more = self.un(UnOp::LogicalNot, a_less);
                let choose_a = self.select(minimum, a_less, a_more);
                let value = self.select(choose_a, a, b);
                self.set_reg(v.get("rd"), value);
            }
            "CSETP" | "CSET" => {
                let cc = self.op(Op::GetCc);
                let Some(holds) = self.cc_holds(cc, v.get("cc_test")) else {
                    return self.unimplemented(v, Self::text(v));
                };
                self.set_comparison(v, holds);
            }
            // PSETP's second destination combines !pa with pb (the interpreter's PSETP).
            "PSETP" => {
                let (a, b, ps) = (self.pred_src(v, "pa"), self.pred_src(v, "pb"), self.pred_src(v, "ps"));
                let (bop_ab, bop) = (v.get("bop_ab"), v.get("bop"));
                let first = self.boolean(bop_ab, a, b);
                let not_a = self.un(UnOp::LogicalNot, a);
                let second = self.boolean(bop_ab, not_a, b);
                let (first, second) = (self.boolean(bop, first, ps), self.boolean(bop, second, ps));
                self.set_pred(v.get("pd"), first);
                self.set_pred(v.get("pq"), second);
            }
            "PSET" => {
                let (a, b) = (self.pred_src(v, "pa"), self.pred_src(v, "pb"));
                let first = self.boolean(v.get("bop_ab"), a, b);
                self.set_comparison(v, first);
            }
            "B2R" if v.get("mode") == 1 => self.barrier_result(v.get("rd"), v.get("pd")),
            "VADD" | "VABSDIFF" | "VMNMX" | "VSHL" | "VSHR" | "VSET" | "VSETP" | "VMAD" | "VABSDIFF4" => {
                self.video(v)?
            }
            "POPC" | "FLO" => {
                let mut b = self.b(v);
                if v.flag("inv_b") {
                    let all = self.const32(u32::MAX);
                    b = self.bin(BinOp::Xor, b, all);
                }
                let value = if opcode == "POPC" {
                    self.un(UnOp::PopCount, b)
                } else {
                    self.find_leading_one(b, v.flag("signed"), v.flag("sh"))
                };
                self.set_reg(v.get("rd"), value);
            }
            // Warp exchanges but in a graphics stage's quads (`lower::quad_shuffle`) and subgroup.
            "VOTE" => self.l.subgroup_vote_result(v),
            "SHFL" => {
                let Some(shuffle) = quad_shuffle(v) else { unreachable!("warp exchanges end their block") };
                self.l.quad_shuffle_result(v, shuffle);
            }
            "FSWZADD" => {
                if v.flag("cc") {
                    return self.unimplemented(v, format!("{} (.CC)", Self::text(v)));
                }
                let operands = (self.reg(v.get("ra")), self.reg(v.get("rb")));
                let swizzle = v.get("swizzle") as u32;
                let Some(value) = self.swizzle_add(Isa::Sm5x, swizzle, operands, v.get("rnd"), v.flag("ftz")) else {
                    return self.unimplemented(v, format!("{} (a lane moving b alone: MOV2)", Self::text(v)));
                };
                self.set_reg(v.get("rd"), value);
            }
            "FADD" | "FADD32I" | "FMUL" | "FMUL32I" | "FFMA" | "FFMA32I" => {
                let Some(scale) = fmul_scale(v.get("scale")).filter(|_| v.get("fmz") < 3) else {
                    return self.unimplemented(v, format!("{} (an invalid FMZ or scale)", Self::text(v)));
                };
                let ftz = v.flag("ftz") || v.get("fmz") == 1;
                let a = self.float_a(v);
                let mut a = self.flush(a, ftz);
                let b = self.float_b(v);
                let mut b = self.flush(b, ftz);
                if v.get("fmz") == 2 {
                    // .FMZ: a product with a zero factor is +0 whatever the other (NaN and infinity too), as the
                    // interpreter's `fmz_zero`; FFMA then adds c to it.
                    let (magnitude, zero) = (self.const32(0x7fff_ffff), self.const32(0));
                    let (a_magnitude, b_magnitude) =
                        (self.bin(BinOp::And, a, magnitude), self.bin(BinOp::And, b, magnitude));
                    let (a_zero, b_zero) = (self.cmp(Cmp::Eq, a_magnitude, zero), self.cmp(Cmp::Eq, b_magnitude, zero));
                    let t = self.bool(true);
                    let either = self.select(a_zero, t, b_zero);
                    a = self.select(either, zero, a);
                    b = self.select(either, zero, b);
                }
                let round = Round::from_field(v.get("rnd"));
                let (kind, c) = match opcode {
                    "FADD" | "FADD32I" => (FArith::Add, b),
                    "FMUL" | "FMUL32I" => (FArith::Mul, b),
                    _ => {
                        let c = self.float_c(v);
                        (FArith::Fma, self.flush(c, ftz))
                    }
                };
                let result = if scale == 0 {
                    self.op(Op::FArith(kind, round, [a, b, c]))
                } else {
                    // As the interpreter's `mul32`: the product exact in FP64, scaled exactly, rounded once.
                    let (a, b) = (self.un(UnOp::F32ToF64, a), self.un(UnOp::F32ToF64, b));
                    let product = self.op(Op::FArith(FArith::Mul, Round::NearestEven, [a, b, b]));
                    let factor = self.const64(2f64.powi(scale).to_bits());
                    let scaled = self.op(Op::FArith(FArith::Mul, Round::NearestEven, [product, factor, factor]));
                    self.op(Op::F64ToF32(round, scaled))
                };
                let value = self.finish_float(result, ftz, v.flag("sat"));
                self.set_reg(v.get("rd"), value);
            }
            "DADD" | "DMUL" | "DFMA" => {
                if v.flag("cc") {
                    return self.unimplemented(v, format!("{} (.CC)", Self::text(v)));
                }
                let raw_a = self.reg64(v.get("ra"));
                let raw_b = self.double_b(v);
                let raw_c = if opcode == "DFMA" { self.double_c(v) } else { raw_b };
                let a = self.float64_modifiers(raw_a, v.flag("neg_a"), v.flag("abs_a"));
                let b = self.float64_modifiers(raw_b, v.flag("neg_b"), v.flag("abs_b"));
                let c = self.float64_modifiers(raw_c, v.flag("neg_c"), false);
                let kind = match opcode {
                    "DADD" => FArith::Add,
                    "DMUL" => FArith::Mul,
                    _ => FArith::Fma,
                };
                let value = self.double_arith(kind, v.get("rnd"), [a, b, c], [raw_a, raw_b, raw_c]);
                self.set_reg64(v.get("rd"), value);
            }
            "DMNMX" => {
                if v.flag("cc") {
                    return self.unimplemented(v, format!("{} (.CC)", Self::text(v)));
                }
                let a = self.reg64(v.get("ra"));
                let a = self.float64_modifiers(a, v.flag("neg_a"), v.flag("abs_a"));
                let b = self.double_b(v);
                let b = self.float64_modifiers(b, v.flag("neg_b"), v.flag("abs_b"));
                let min = self.pred_src(v, "ps");
                let value = self.double_min_max(a, b, min);
                self.set_reg64(v.get("rd"), value);
            }
            "DSETP" | "DSET" => {
                let a = self.reg64(v.get("ra"));
                let a = self.float64_modifiers(a, v.flag("neg_a"), v.flag("abs_a"));
                let b = self.double_b(v);
                let b = self.float64_modifiers(b, v.flag("neg_b"), v.flag("abs_b"));
                let holds = self.float_compare(a, b, v.get("cmp"));
                self.set_comparison(v, holds);
            }
            "FMNMX" => {
                let ftz = v.flag("ftz");
                let a = self.float_a(v);
                let a = self.flush(a, ftz);
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let p = self.pred_src(v, "ps");
                let value = self.float_min_max(a, b, p);
                self.set_reg(v.get("rd"), value);
            }
            "FSETP" | "FSET" => {
                let ftz = v.flag("ftz");
                let a = self.float_a(v);
                let a = self.flush(a, ftz);
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let holds = self.float_compare(a, b, v.get("cmp"));
                self.set_comparison(v, holds);
            }
            "FCMP" => {
                let c = self.c(v);
                let c = self.flush(c, v.flag("ftz"));
                let zero = self.const32(0);
                let holds = self.float_compare(c, zero, v.get("cmp"));
                let (a, b) = (self.reg(v.get("ra")), self.float_b(v));
                let value = self.select(holds, a, b);
                self.set_reg(v.get("rd"), value);
            }
            "LD" | "ST" | "LDG" | "STG" | "LDS" | "STS" | "LDL" | "STL" => self.memory(v)?,
            "ALD" | "AST" => self.attribute_access(v)?,
            "OUT" => self.out(v)?,
            "AL2P" => {
                if self.attribute_to_physical(v).is_none() {
                    return self.unimplemented(v, Self::text(v));
                }
            }
            "ISBERD" => {
                if self.vertex_handle(v).is_none() {
                    return self.unimplemented(v, Self::text(v));
                }
            }
            "IPA" => self.interpolate(v)?,
            "TEXS" | "TLDS" | "TEX" | "TLD" | "TXD" | "TLD4" | "TXQ" | "TLD4S" => {
                self.through_unit(v, crate::sass::texture::sm5x, Lower::texture_instruction)?
            }
            "SULD" | "SUST" | "SURED" | "SUATOM" => {
                self.through_unit(v, crate::sass::surface::sm5x, Lower::surface_instruction)?
            }
            "TMML" => self.texture_lod_query(v)?,
            "KIL" => {
                if v.get("cc_test") != 15 {
                    return self.unimplemented(v, Self::text(v));
                }
                self.op(Op::Demote);
            }
            "LDC" => {
                if v.get("mode") != 0 || v.get("size") > 5 {
                    return self.unimplemented(v, Self::text(v));
                }
                let index = self.reg(v.get("ra"));
                self.constant_register_load(v.get("cb_bank"), index, v.signed("offset"), v.get("size"), v.get("rd"));
            }
            "I2F" => {
                // A part of a 32- or 64-bit integer: ptxas never asks, and what the hardware does is not known.
                if v.get("dst") == 0 || (v.get("src") >= 2 && v.get("byte_b") != 0) {
                    return self.unimplemented(v, Self::text(v));
                }
                // .ABS and .NEG on a signed source wrap in the source's width: |-128| of an S8 is -128 again
                // (nxgpucatch `i2f.cpp` "I2F Undefined", run on a Tegra X1); a negated unsigned source converts as
                // the signed 64-bit value it becomes (the interpreter's).
                let signed = v.flag("src_signed");
                let wide = match (Self::form(v), v.get("src")) {
                    ("reg", src) => self.integer_source(v.get("rb"), src, v.get("byte_b"), signed),
                    // A 64-bit constant is the pair at its offset (nxgpucatch's `i2f.cpp` on a Tegra X1); what a
                    // 20-bit immediate makes of 64 bits is not settled by its vectors.
                    ("cbuf", 3) => self.constant_pair(v),
                    (_, 3) => return self.unimplemented(v, Self::text(v)),
                    (_, src) => {
                        let b = self.b(v);
                        self.integer_part(b, src, v.get("byte_b"), signed)
                    }
                };
                let unused = self.const32(64 - (8u32 << v.get("src")));
                let zero = self.const64(0);
                let wrap = |l: &mut Self, value: Value| {
                    let up = l.bin(BinOp::Shl, value, unused);
                    l.bin(BinOp::ShrS, up, unused)
                };
                let wide = if v.flag("abs_b") && signed {
                    let negative = self.cmp(Cmp::LtS, wide, zero);
                    let negated = self.bin(BinOp::Sub, zero, wide);
                    let absolute = self.select(negative, negated, wide);
                    wrap(self, absolute)
                } else {
                    wide
                };
                let wide = match (v.flag("neg_b"), signed) {
                    (false, _) => wide,
                    (true, false) => self.bin(BinOp::Sub, zero, wide),
                    (true, true) => {
                        let negated = self.bin(BinOp::Sub, zero, wide);
                        wrap(self, negated)
                    }
                };
                let signed = signed || v.flag("neg_b");
                self.integer_result(wide, signed, v.get("dst"), v.get("rnd"), v.get("rd"));
            }
            // What the hardware makes of .H1 on an immediate, or of an FP16 immediate's bits above the half
            // (which nvdisasm ignores), is not known.
            "F2F" | "F2I"
                if Self::form(v) == "imm" && (v.flag("half_b") || v.get("src") == 1 && v.get("imm20") >> 16 != 0) =>
            {
                return self.unimplemented(v, Self::text(v));
            }
            "F2I" => {
                let raw = self.convert_raw(v);
                let b = match v.get("src") {
                    // FP16 exactly in FP32 (an FP16 is never an FP32 denormal).
                    1 => {
                        let b = raw;
                        let (neg, abs) = (v.flag("neg_b"), v.flag("abs_b"));
                        let half = self.half_pair(b, if v.flag("half_b") { 3 } else { 0 }, neg, abs)[0];
                        self.un(UnOp::HalfToF32, half)
                    }
                    src => self.float_source(v, raw, src == 3),
                };
                let (size, signed) = (v.get("dst"), v.flag("dst_signed"));
                let value = self.float_to_integer(b, size, signed, v.get("rnd"));
                if size == 3 {
                    self.set_reg64(v.get("rd"), value);
                } else {
                    self.set_reg(v.get("rd"), value);
                }
            }
            "I2I" => {
                // 8/16/32-bit sources (a register's byte_b-th part) to 8/16/32-bit destinations, with .SAT
                // clamping, .ABS/.NEG on the source.
                if v.get("src") == 3 || v.get("dst") == 3 || (v.get("src") == 2 && v.get("byte_b") != 0) {
                    return self.unimplemented(v, Self::text(v));
                }
                let (src_signed, dst_signed, size) = (v.flag("src_signed"), v.flag("dst_signed"), v.get("dst"));
                let (src, byte) = (v.get("src"), v.get("byte_b"));
                let mut wide = if Self::form(v) == "reg" {
                    self.integer_source(v.get("rb"), src, byte, src_signed)
                } else {
                    let b = self.b(v);
                    self.integer_part(b, src, byte, src_signed)
                };
                let zero = self.const64(0);
                if v.flag("abs_b") {
                    let negative = self.cmp(Cmp::LtS, wide, zero);
                    let negated = self.bin(BinOp::Sub, zero, wide);
                    wide = self.select(negative, negated, wide);
                }
                if v.flag("neg_b") {
                    wide = self.bin(BinOp::Sub, zero, wide);
                }
                let width = 8u32 << size;
                let value = if v.flag("sat") {
                    let (low, high) = if dst_signed {
                        ((-(1i64 << (width - 1))) as u64, ((1i64 << (width - 1)) - 1) as u64)
                    } else {
                        (0, (1u64 << width) - 1)
                    };
                    let (low, high) = (self.const64(low), self.const64(high));
                    // Signed comparisons on the 64-bit value (a 32-bit source never reaches the sign bit of 64).
                    let below = self.cmp(Cmp::LtS, wide, low);
                    let above = self.cmp(Cmp::GtS, wide, high);
                    let clamped = self.select(above, high, wide);
                    self.select(below, low, clamped)
                } else {
                    wide
                };
                let word = self.un(UnOp::Truncate, value);
                // Below 32 bits the result is zero-extended, but sign-extended when saturated to a signed width
                // (nxgpucatch `i2i.cpp`, run on a Tegra X1); .CC sees the sign of a 32-bit result only.
                let (word, flagged) = if width < 32 {
                    let unused = self.const32(32 - width);
                    let up = self.bin(BinOp::Shl, word, unused);
                    let zero_extended = self.bin(BinOp::ShrU, up, unused);
                    let word =
                        if dst_signed && v.flag("sat") { self.bin(BinOp::ShrS, up, unused) } else { zero_extended };
                    (word, zero_extended)
                } else {
                    (word, word)
                };
                self.set_reg(v.get("rd"), word);
                self.result_flags(v, flagged);
            }
            "F2F" if v.get("src") == 1 && v.get("dst") == 2 && !v.flag("round_int") => {
                // FP16 (the half_b-th half) to FP32: exact; a NaN gives the canonical FP32 NaN. (.FTZ is about
                // FP32 denormals in all three conversions: FP16 ones are kept, as the interpreter keeps them.)
                let b = self.convert_raw(v);
                let half = self.half_pair(b, if v.flag("half_b") { 3 } else { 0 }, v.flag("neg_b"), v.flag("abs_b"))[0];
                let wide = self.un(UnOp::HalfToF32, half);
                let value = self.finish_float(wide, v.flag("ftz"), v.flag("sat"));
                self.set_reg(v.get("rd"), value);
            }
            "F2F" if v.get("src") == 2 && v.get("dst") == 1 && !v.flag("round_int") => {
                // FP32 to FP16 in the rounding mode; a NaN gives the canonical 0x7fff. .SAT may clamp before the
                // rounding: 0 and 1 are FP16 values, and a NaN goes to +0 either way.
                let b = self.convert_raw(v);
                let b = self.float_modifiers(b, v, "neg_b", "abs_b");
                let b = self.flush(b, v.flag("ftz"));
                let b = if v.flag("sat") { self.finish_float(b, false, true) } else { b };
                let half = self.op(Op::F32ToHalf(Round::from_field(v.get("rnd")), b));
                let nan = self.un(UnOp::IsNan, b);
                let canonical = self.const32(0x7fff);
                let value = self.select(nan, canonical, half);
                self.set_reg(v.get("rd"), value);
            }
            "F2F" if v.get("src") == 1 && v.get("dst") == 1 => {
                // FP16 to FP16: the half with its modifiers, rounded to an integral value with .ROUND/.FLOOR/
                // .CEIL/.TRUNC and clamped with .SAT, both exactly in FP32 (every FP16 is an FP32, and so is every
                // result); a NaN gives the canonical 0x7fff (+0 with .SAT).
                let b = self.convert_raw(v);
                let mut half =
                    self.half_pair(b, if v.flag("half_b") { 3 } else { 0 }, v.flag("neg_b"), v.flag("abs_b"))[0];
                if v.flag("round_int") || v.flag("sat") {
                    let wide = self.un(UnOp::HalfToF32, half);
                    let wide = if v.flag("round_int") { self.round_integral(wide, v.get("rnd")) } else { wide };
                    let wide = if v.flag("sat") { self.finish_float(wide, false, true) } else { wide };
                    half = self.op(Op::F32ToHalf(Round::NearestEven, wide));
                }
                let (magnitude_mask, infinity) = (self.const32(0x7fff), self.const32(0x7c00));
                let magnitude = self.bin(BinOp::And, half, magnitude_mask);
                let nan = self.cmp(Cmp::GtU, magnitude, infinity);
                let value = self.select(nan, magnitude_mask, half);
                self.set_reg(v.get("rd"), value);
            }
            "HADD2" | "HMUL2" | "HFMA2" | "HADD2_32I" | "HMUL2_32I" | "HFMA2_32I" => {
                if v.get("fmz") > 1 {
                    return self.unimplemented(v, Self::text(v));
                }
                let other = self.half_source(v);
                let [a, b, c] = self.half_operands(v, opcode, other);
                let (ftz, sat) = (v.flag("ftz") || v.get("fmz") == 1, v.flag("sat"));
                let (kind, rd) = (FArith::of_half_opcode(opcode), v.get("rd"));
                let value = match v.get("out") {
                    1 => self.half_arith_f32(kind, [a[0], b[0], c[0]], ftz, sat),
                    out => {
                        let finish = (ftz, sat, false);
                        let low = self.half_arith(HalfFormat::F16, kind, [a[0], b[0], c[0]], finish);
                        let high = self.half_arith(HalfFormat::F16, kind, [a[1], b[1], c[1]], finish);
                        // MRG_H0: the low result into the low half; MRG_H1: the high result into the high half; the
                        // other half kept (nxgpucatch `hadd2.cpp`, run on a Tegra X1).
                        let old = self.reg(rd);
                        let (low_mask, high_mask, sixteen) =
                            (self.const32(0xffff), self.const32(0xffff_0000), self.const32(16));
                        match out {
                            2 => {
                                let kept = self.bin(BinOp::And, old, high_mask);
                                self.bin(BinOp::Or, kept, low)
                            }
                            3 => {
                                let kept = self.bin(BinOp::And, old, low_mask);
                                let moved = self.bin(BinOp::Shl, high, sixteen);
                                self.bin(BinOp::Or, kept, moved)
                            }
                            _ => self.pack_halves(low, high),
                        }
                    }
                };
                self.set_reg(rd, value);
            }
            "HSETP2" => {
                let other = self.half_source(v);
                self.hsetp2(v, other);
            }
            "HSET2" => {
                let other = self.half_source(v);
                self.hset2(v, other);
            }
            "F2F" if (v.get("src") == 3 || v.get("dst") == 3) && !v.flag("round_int") => {
                let (src, dst) = (v.get("src"), v.get("dst"));
                let (neg, abs) = (v.flag("neg_b"), v.flag("abs_b"));
                let raw = self.convert_raw(v);
                let b = match src {
                    3 => self.float64_modifiers(raw, neg, abs),
                    1 => self.half_pair(raw, if v.flag("half_b") { 3 } else { 0 }, neg, abs)[0],
                    _ => self.float_modifiers(raw, v, "neg_b", "abs_b"),
                };
                // .FTZ is ignored when either side is FP64 (nxgpucatch `f2f.cpp` "F2F Denorm", run on a Tegra X1).
                let value = self.float64_conversion(b, src, dst, v.get("rnd"), false);
                if dst == 3 {
                    self.set_reg64(v.get("rd"), value);
                } else {
                    let value = if v.flag("sat") && dst == 2 { self.finish_float(value, false, true) } else { value };
                    self.set_reg(v.get("rd"), value);
                }
            }
            "F2F" if v.get("src") == 3 && v.get("dst") == 3 && v.flag("round_int") && !v.flag("sat") => {
                let b = self.convert_raw(v);
                let b = self.float64_modifiers(b, v.flag("neg_b"), v.flag("abs_b"));
                let value = self.round_integral64(b, v.get("rnd"), false);
                self.set_reg64(v.get("rd"), value);
            }
            "F2F" => {
                // FP32 to FP32 only: rounding to an integral value (.ROUND), or a copy with .FTZ/.SAT.
                if v.get("src") != 2 || v.get("dst") != 2 {
                    return self.unimplemented(v, Self::text(v));
                }
                let ftz = v.flag("ftz");
                let b = self.convert_raw(v);
                let b = self.float_modifiers(b, v, "neg_b", "abs_b");
                let b = self.flush(b, ftz);
                let result = if v.flag("round_int") { self.round_integral(b, v.get("rnd")) } else { b };
                let value = self.finish_float(result, ftz, v.flag("sat"));
                self.set_reg(v.get("rd"), value);
            }
            "MUFU" => {
                let x = self.float_a(v);
                let (func, sat) = (v.get("func"), v.flag("sat"));
                let Some(value) = self.special_function(func, x).filter(|_| !(sat && matches!(func, 6 | 7))) else {
                    return self.unimplemented(v, Self::text(v));
                };
                // .SAT clamps to [0, 1], NaN to +0, as the interpreter's.
                let value = if sat { self.finish_float(value, false, true) } else { value };
                self.set_reg(v.get("rd"), value);
            }
            "RRO" => {
                // SINCOS: radians to turns (the product rounded toward zero, as the unit truncates, with 1 / (2 pi)
                // to about 48 bits: `sass::sm5x::TURNS_PER_RADIAN`); EX2: the value as it is.
                let x = self.float_b(v);
                let value = if v.flag("mode") {
                    x
                } else {
                    let [high, low] = crate::sass::sm5x::TURNS_PER_RADIAN.map(|c| self.const32(c.to_bits()));
                    let x = self.un(UnOp::FlushDenormal, x);
                    let x_low = self.op(Op::FArith(FArith::Mul, Round::NearestEven, [x, low, low]));
                    let x_low = self.finish_float(x_low, true, false);
                    let product = self.op(Op::FArith(FArith::Fma, Round::TowardZero, [x, high, x_low]));
                    self.finish_float(product, true, false)
                };
                self.set_reg(v.get("rd"), value);
            }
            "FCHK" => {
                let (a, b) = (self.float_a(v), self.float_b(v));
                let slow = self.division_needs_slow_path(a, b);
                self.set_pred(v.get("pd"), slow);
            }
            "BFI" => {
                // a's low bits into c at b's position (7:0) for b's length (15:8).
                let (a, b, c) = (self.reg(v.get("ra")), self.b(v), self.c(v));
                let (mask8, eight) = (self.const32(0xff), self.const32(8));
                let position = self.bin(BinOp::And, b, mask8);
                let shifted_b = self.bin(BinOp::ShrU, b, eight);
                let length = self.bin(BinOp::And, shifted_b, mask8);
                let thirty_two = self.const32(32);
                let room = self.bin(BinOp::Sub, thirty_two, position);
                let zero = self.const32(0);
                let room = self.bin(BinOp::MaxS, room, zero);
                let length = self.bin(BinOp::MinU, length, room);
                let (one, all) = (self.const32(1), self.const32(u32::MAX));
                let power = self.bin(BinOp::Shl, one, length);
                let low_mask = self.bin(BinOp::Sub, power, one);
                let full = self.cmp(Cmp::GeU, length, thirty_two);
                let low_mask = self.select(full, all, low_mask);
                let mask = self.bin(BinOp::Shl, low_mask, position);
                let inserted = self.bin(BinOp::Shl, a, position);
                let inserted = self.bin(BinOp::And, inserted, mask);
                let kept_mask = self.bin(BinOp::Xor, mask, all);
                let kept = self.bin(BinOp::And, c, kept_mask);
                let value = self.bin(BinOp::Or, kept, inserted);
                self.set_reg(v.get("rd"), value);
                self.result_flags(v, value);
            }
            opcode => {
                let (text, kernel, offset) = (Self::text(v), self.l.kernel_name.to_string(), v.offset);
                return Err(TranslateError::UnknownOpcode { isa: Isa::Sm5x, opcode, text, kernel, offset });
            }
        }
        Ok(())
    }

    /// `.CC` on an instruction with a 32-bit result: the zero and sign flags of the result.
    /// The interpreter's `set_comparison`: the outcome combined with the predicate source by the boolean op, as
    /// a register for the SET forms (all ones, or 1.0 with .BF, where it holds, else 0; .CC's flags of that
    /// value) or as two predicates for the SETP forms (the outcome's and its negation's).
    fn set_comparison(&mut self, v: &View, holds: Value) {
        let (op, ps) = (v.get("bop"), self.pred_src(v, "ps"));
        if !v.has("rd") {
            let not_holds = self.un(UnOp::LogicalNot, holds);
            let first = self.boolean(op, holds, ps);
            let second = self.boolean(op, not_holds, ps);
            self.set_pred(v.get("pd"), first);
            self.set_pred(v.get("pq"), second);
            return;
        }
        let result = self.boolean(op, holds, ps);
        let one = self.const32(if v.flag("bf") { 0x3f80_0000 } else { u32::MAX });
        let zero = self.const32(0);
        let value = self.select(result, one, zero);
        self.set_reg(v.get("rd"), value);
        self.result_flags(v, value);
    }

    fn result_flags(&mut self, v: &View, value: Value) {
        if v.flag("cc") {
            let zero = self.const32(0);
            let is_zero = self.cmp(Cmp::Eq, value, zero);
            let negative = self.cmp(Cmp::LtS, value, zero);
            let f = self.bool(false);
            let flags = self.flags(is_zero, negative, f, f);
            self.op(Op::SetCc(flags));
        }
    }

    /// A condition-code test (the interpreter's `cc_holds`); `None` for the tests not implemented.
    fn cc_holds(&mut self, cc: Value, test: u64) -> Option<Value> {
        let zero = self.flag_set(cc, ZERO);
        let sign = self.flag_set(cc, SIGN);
        let carry = self.flag_set(cc, CARRY);
        let overflow = self.flag_set(cc, OVERFLOW);
        let less = self.cmp(Cmp::Ne, sign, overflow);
        let t = self.bool(true);
        let f = self.bool(false);
        // As the interpreter's `cc_holds` (a Tegra X1's truth table): S and Z together are none of LT, EQ, LE.
        let not_sign = self.un(UnOp::LogicalNot, sign);
        let not_zero = self.un(UnOp::LogicalNot, zero);
        Some(match test {
            0 => f,
            1 => {
                let negative = self.select(sign, not_zero, f);
                self.cmp(Cmp::Ne, negative, overflow)
            }
            2 => self.select(not_sign, zero, f),
            3 => {
                let zero_or_overflow = self.select(zero, t, overflow);
                self.cmp(Cmp::Ne, sign, zero_or_overflow)
            }
            4 => {
                let either = self.select(less, t, zero);
                self.un(UnOp::LogicalNot, either)
            }
            5 => not_zero,
            6 => self.un(UnOp::LogicalNot, less),
            7 => {
                let nan = self.select(sign, zero, f);
                self.un(UnOp::LogicalNot, nan)
            }
            8 => self.select(sign, zero, f),
            9 => less,
            10 => zero,
            11 => self.select(less, t, zero),
            12 => {
                let zero_or_overflow = self.select(zero, t, overflow);
                self.cmp(Cmp::Eq, sign, zero_or_overflow)
            }
            13 => self.select(sign, t, not_zero),
            14 => {
                let either = self.select(not_sign, t, zero);
                self.cmp(Cmp::Ne, either, overflow)
            }
            15 => t,
            16 => self.un(UnOp::LogicalNot, overflow),
            17 => self.un(UnOp::LogicalNot, carry),
            18 => self.un(UnOp::LogicalNot, sign),
            19 => {
                let not_carry = self.un(UnOp::LogicalNot, carry);
                self.select(not_carry, t, zero)
            }
            20 => self.select(carry, not_zero, f),
            21 => sign,
            22 => carry,
            23 => overflow,
            30 => self.select(sign, t, zero),
            31 => self.select(not_sign, not_zero, f),
            _ => return None,
        })
    }

    /// ISETP's comparison; with .X, of the high words with the borrow of the low words' subtraction from the
    /// condition code (and its zero flag), as the interpreter defines it.
    fn integer_compare(&mut self, a: Value, b: Value, cmp: u64, signed: bool, extended: bool) -> Value {
        let (less, equal) = if extended {
            let (_, flags) = self.add(a, false, b, true, true);
            let zero = self.flag_set(flags, ZERO);
            let less = if signed {
                let (sign, overflow) = (self.flag_set(flags, SIGN), self.flag_set(flags, OVERFLOW));
                self.cmp(Cmp::Ne, sign, overflow)
            } else {
                let carry = self.flag_set(flags, CARRY);
                self.un(UnOp::LogicalNot, carry)
            };
            (less, zero)
        } else {
            let less = self.cmp(if signed { Cmp::LtS } else { Cmp::LtU }, a, b);
            (less, self.cmp(Cmp::Eq, a, b))
        };
        let t = self.bool(true);
        let f = self.bool(false);
        let less_or_equal = self.select(less, t, equal);
        match cmp {
            0 => f,
            1 => less,
            2 => equal,
            3 => less_or_equal,
            4 => self.un(UnOp::LogicalNot, less_or_equal),
            5 => self.un(UnOp::LogicalNot, equal),
            6 => self.un(UnOp::LogicalNot, less),
            _ => t,
        }
    }

    /// BFE: b holds the position (7:0) and the length (15:8); a signed field's top bit extends.
    fn bit_field_extract(&mut self, a: Value, b: Value, signed: bool) -> Value {
        let (mask8, eight) = (self.const32(0xff), self.const32(8));
        let position = self.bin(BinOp::And, b, mask8);
        let shifted_b = self.bin(BinOp::ShrU, b, eight);
        let length = self.bin(BinOp::And, shifted_b, mask8);
        let shift = if signed { BinOp::ShrS } else { BinOp::ShrU };
        let moved = self.bin(shift, a, position);
        // Keep `length` bits: shift them to the top and back down (sign-extending when signed).
        let thirty_two = self.const32(32);
        let spare = self.bin(BinOp::Sub, thirty_two, length);
        let up = self.bin(BinOp::Shl, moved, spare);
        let down = self.bin(shift, up, spare);
        let zero = self.const32(0);
        let empty = self.cmp(Cmp::Eq, length, zero);
        let whole = self.cmp(Cmp::GeU, length, thirty_two);
        let field = self.select(whole, moved, down);
        self.select(empty, zero, field)
    }

    /// ALD and AST: 1-4 words between registers from rd (rs) and the attribute space at the immediate or
    /// physical address (ALD.O reads the stage's own outputs), of the vertex rb names (`Lower::attribute_words`).
    /// Indexed per-patch addresses and other vertices' outputs (tessellation control programs) are not
    /// translated.
    fn attribute_access(&mut self, v: &View) -> Result {
        let load = v.encoding.opcode == "ALD";
        if (v.flag("patch") && v.get("ra") != 255) || (load && v.flag("output") && v.get("rb") != 255) {
            return self.unimplemented(v, Self::text(v));
        }
        self.attribute_words(v);
        Ok(())
    }

    /// OUT: EMIT (kind 1), CUT (2) or both (3), on the vertex stream rb or the immediate names (`out_stream`;
    /// one from a constant buffer is refused).
    fn out(&mut self, v: &View) -> Result {
        let stream = match v.encoding.form() {
            "reg" => self.out_stream(Some(v.get("rb")), None),
            "imm" => self.out_stream(None, Some(v.get("imm20"))),
            _ => None,
        };
        let kind = v.get("kind");
        let Some(stream) = stream.filter(|_| kind != 0) else {
            return self.unimplemented(v, Self::text(v));
        };
        self.geometry_output(kind & 1 == 1, kind & 2 == 2, v.get("rd"), v.get("ra"), stream);
        Ok(())
    }

    /// IPA: the attribute as the pixel's interpolation gives it (see `spirv::graphics`), at the immediate address
    /// or (.IDX) the physical one in ra, at the pixel centre, the centroid or (.OFFSET) rc's offset from the
    /// centre, times rb in the multiply mode, clamped with .SAT. Indexed addresses away from the centre and the SC
    /// mode are not translated.
    fn interpolate(&mut self, v: &View) -> Result {
        let sample = v.get("sample");
        if sample == 3 || (sample != 0 && v.flag("idx")) || v.get("mode") == 3 || v.get("ps") != 7 || v.flag("ps_not") {
            return self.unimplemented(v, Self::text(v));
        }
        let mut value = match v.flag("idx") {
            true => {
                let address = self.reg(v.get("ra"));
                self.attribute(address)
            }
            false => self.attribute_at(v.get("address") as u32, sample, |l| l.reg(v.get("rc"))),
        };
        if v.get("mode") == 1 {
            let multiplier = self.reg(v.get("rb"));
            let product = self.op(Op::FArith(FArith::Mul, Round::NearestEven, [value, multiplier, multiplier]));
            value = self.finish_float(product, false, false);
        }
        if v.flag("sat") {
            value = self.finish_float(value, false, true);
        }
        self.set_reg(v.get("rd"), value);
        Ok(())
    }

    fn memory(&mut self, v: &View) -> Result {
        let opcode = v.encoding.opcode;
        let size = v.get("size");
        if size > 6 {
            return self.unimplemented(v, Self::text(v));
        }
        let load = opcode.starts_with("LD");
        let register = if load { v.get("rd") } else { v.get("rs") };
        if matches!(opcode, "LD" | "ST") {
            // Generic addresses: the window the address falls in decides (the ps operand only hints at it).
            let address = global_address(self.l, v);
            self.generic_memory_access(address, size, load, register);
            return Ok(());
        }
        let space = match opcode {
            "LDG" | "STG" => Space::Global,
            "LDS" | "STS" => Space::Shared,
            _ => Space::Local,
        };
        let address = if space == Space::Global {
            global_address(self.l, v)
        } else {
            let base = self.reg(v.get("ra"));
            let offset = self.const32(v.signed("offset") as u32);
            self.bin(BinOp::Add, base, offset)
        };
        self.memory_access(space, address, size, load, register);
        Ok(())
    }
}

/// The FP16 pair an immediate form holds (low half first): the 32-bit forms' two halves, or the 10-bit forms'
/// signs and top nine bits of each; `None` for a register form.
fn immediate_halves(v: &View) -> Option<[u32; 2]> {
    if v.has("imm32") {
        let imm = v.get("imm32") as u32;
        Some([imm & 0xffff, imm >> 16])
    } else if v.has("imm_lo") {
        let half = |raw: u64| ((raw >> 9) << 15 | (raw & 0x1ff) << 6) as u32;
        Some([half(v.get("imm_lo")), half(v.get("imm_hi"))])
    } else {
        None
    }
}
