//! SM86 to IR: each instruction's meaning in IR operations, reading fields by name as the disassembler and the
//! interpreter (`sass::exec::sm86`, the executable spec this is checked against) do.

use super::TranslateError;
use super::ir::{BinOp, Block, Cmp, FArith, HalfFormat, Op, Program, Round, Space, Special, Terminator, UnOp, Value};
use super::lower::{HalfSource, Lower, OutStream, SHARED_UPDATE64, quad_shuffle};
use super::stack::{Effect, static_pops};
use super::texture::LodQuery;
use crate::sass::Isa;
use crate::sass::cubin::KernelImage;
use crate::sass::exec::mma::Product;
use crate::sass::sm86::{INSTRUCTION_BYTES, decode_program, is_uniform, operand_field};
use crate::sass::text::View;
use crate::sass::texture::HandleSource;
use std::collections::BTreeSet;

/// Lowers a kernel's code into IR.
pub fn lower(kernel: &KernelImage, local_bytes: u32, graphics: bool) -> Result<Program, TranslateError> {
    let decoded = decode_program(&kernel.code)?;
    let views: Vec<View> = decoded
        .iter()
        .map(|instruction| View {
            encoding: instruction.inst.encoding(),
            word: instruction.inst.encode().expect("a decoded instruction encodes"),
            control: instruction.control,
            offset: instruction.offset,
        })
        .collect();
    let leaders = leaders(&views, graphics);
    let mut lower = Lower::new(kernel, local_bytes, graphics);
    let next = |i: usize| (views[i].offset + INSTRUCTION_BYTES) as u32;
    lower.pops = static_pops(&views, MAX_CALL_DEPTH, next, stack_effect);
    let starts: Vec<usize> = leaders.iter().copied().collect();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(views.len());
        let block = lower.block(&views[start..end], end < views.len())?;
        lower.program.blocks.push(block);
    }
    lower.finish().map_err(|what| TranslateError::Unimplemented {
        isa: Isa::Sm86,
        what,
        kernel: kernel.name.clone(),
        offset: 0,
    })
}

/// Calls nest no deeper than this for `static_pops` (deeper, or recursive, code returns through the dispatcher).
const MAX_CALL_DEPTH: usize = 64;

/// What an instruction does to the control flow and the stack of return addresses (CALL pushes the address
/// after it, RET returns there).
fn stack_effect(v: &View, next: u32) -> Effect {
    let target = (v.offset as i64 + INSTRUCTION_BYTES as i64 + v.signed("offset") * 4) as u32;
    let predicated = |field: &str| v.has(field) && (v.get(field) != 7 || v.flag(&format!("{field}_not")));
    let conditional = predicated("pg") || predicated("ps");
    match v.encoding.opcode {
        "CALL" if conditional || v.has("ra") || v.has("address") => Effect::Unknown,
        "CALL" => Effect::Push { kind: 0, entry: next, then: target },
        "RET" if v.flag("abs") || v.flag("uniform") => Effect::Unknown,
        "RET" => Effect::Pop { kind: 0, conditional },
        "BRA" if !branch_may_be_taken(v).unwrap_or(true) => Effect::Next,
        "BRA" => Effect::Branch { target, conditional },
        "EXIT" | "BPT" => Effect::Exit { conditional },
        "BRX" | "BRXU" => Effect::Unknown,
        _ => Effect::Next,
    }
}

/// Whether a BRA may be taken, by its convergence mode; `None` for modes not translated. .DIV (2) is taken when
/// some lane of the mask is elsewhere, .CONV (3) when none is: either way the program computes the same, the
/// branch only picks a faster path. A thread here cannot see its warp, so it always takes the path for a
/// diverged warp, which is right in every case.
fn branch_may_be_taken(v: &View) -> Option<bool> {
    match (v.get("mode"), v.flag("ur_valid")) {
        (0, false) | (2, true) => Some(true),
        (3, true) => Some(false),
        _ => None,
    }
}

/// Where blocks start: the entry, branch and call targets, what follows a branch, call or exit. Code that jumps
/// through registers (BRX jump tables) gets a block per instruction, since any of them may be a target.
fn leaders(views: &[View], graphics: bool) -> BTreeSet<usize> {
    let mut leaders = BTreeSet::from([0]);
    let indirect = views.iter().any(|v| matches!(v.encoding.opcode, "BRX" | "BRXU") || v.encoding.form() == "CALL.reg");
    for (i, v) in views.iter().enumerate() {
        if indirect {
            leaders.insert(i);
            continue;
        }
        if matches!(
            v.encoding.opcode,
            "BRA" | "CALL" | "EXIT" | "RET" | "BPT" | "BAR" | "RED" | "ATOM" | "ATOMG" | "ATOMS"
        ) || Lower::exchanges_lanes(v, graphics)
        {
            leaders.insert(i + 1);
        }
        if matches!(v.encoding.opcode, "BRA" | "CALL") {
            let target =
                (v.offset as i64 + INSTRUCTION_BYTES as i64 + v.signed("offset") * 4) / INSTRUCTION_BYTES as i64;
            if (0..views.len() as i64).contains(&target) {
                leaders.insert(target as usize);
            }
        }
    }
    leaders.retain(|&i| i < views.len());
    leaders
}

impl Lower<'_> {
    fn block(&mut self, views: &[View], has_next: bool) -> Result<Block, TranslateError> {
        let start = views[0].offset as u32;
        let next = views.last().map_or(start, |v| (v.offset + INSTRUCTION_BYTES) as u32);
        self.stmts.push(Vec::new());
        let mut terminator = None;
        for v in views {
            if let Some(end) = self.instruction(v)? {
                terminator = Some(end);
                break;
            }
        }
        let body = self.stmts.pop().expect("pushed above");
        let terminator = match terminator {
            Some(terminator) => terminator,
            None if has_next => Terminator::Jump(next),
            // Falling off the end of the code: the hardware would run whatever follows; stop instead.
            None => Terminator::Exit(None),
        };
        Ok(Block { start, body, terminator })
    }

    /// The instruction as nvdisasm prints it, for errors.
    fn text(v: &View) -> String {
        let inst = crate::sass::sm86::decode(v.word).expect("the view was decoded");
        crate::sass::sm86::text(&crate::sass::Instruction { offset: v.offset, inst, control: v.control })
    }

    fn unimplemented<T>(&self, v: &View, what: impl Into<String>) -> Result<T, TranslateError> {
        Err(TranslateError::Unimplemented {
            isa: Isa::Sm86,
            what: what.into(),
            kernel: self.kernel_name.to_string(),
            offset: v.offset,
        })
    }

    // -----------------------------------------------------------------------------------------------------------
    // Building.

    /// Operand `field` (`ra`, `rd`) in the instruction's own register file: the uniform registers for the
    /// uniform datapath's twins of vector instructions (`sass::sm86::operand_field`).
    fn file_reg(&mut self, v: &View, field: &str) -> Value {
        let index = v.get(&operand_field(v, field));
        if is_uniform(v.encoding.opcode) { self.ureg(index) } else { self.reg(index) }
    }

    fn set_file_reg(&mut self, v: &View, field: &str, value: Value) {
        let index = v.get(&operand_field(v, field));
        if is_uniform(v.encoding.opcode) { self.set_ureg(index, value) } else { self.set_reg(index, value) }
    }

    /// Source predicate `field` (`ps`, with its `_not`) in the instruction's own predicate file.
    fn file_pred(&mut self, v: &View, field: &str) -> Value {
        let field = operand_field(v, field);
        let p = if is_uniform(v.encoding.opcode) { self.upred(v.get(&field)) } else { self.pred(v.get(&field)) };
        if v.flag(&format!("{field}_not")) { self.un(UnOp::LogicalNot, p) } else { p }
    }

    fn set_file_pred(&mut self, v: &View, field: &str, value: Value) {
        let index = v.get(&operand_field(v, field));
        if is_uniform(v.encoding.opcode) { self.set_upred(index, value) } else { self.set_pred(index, value) }
    }

    /// The 63:32 slot: immediate, constant, uniform register or register.
    fn wide_slot(&mut self, v: &View) -> Value {
        if v.has("imm32") {
            self.const32(v.get("imm32") as u32)
        } else if v.has("cb_offset") {
            self.constant(v.get("cb_bank"), v.get("cb_offset") * 4)
        } else if v.has("urb") {
            self.ureg(v.get("urb"))
        } else {
            self.reg(v.get("rb"))
        }
    }

    /// The same slot as 64 bits (for IMAD.WIDE/.HI's addend): a pair, or an extended immediate.
    fn wide_slot64(&mut self, v: &View, signed: bool) -> Value {
        if v.has("imm32") {
            let imm = v.get("imm32") as u32;
            self.const64(if signed { imm as i32 as i64 as u64 } else { u64::from(imm) })
        } else if v.has("cb_offset") {
            let offset = v.get("cb_offset") * 4;
            let low = self.constant(v.get("cb_bank"), offset);
            let high = self.constant(v.get("cb_bank"), offset + 4);
            self.pair(low, high)
        } else if v.has("urb") {
            let low = self.ureg(v.get("urb"));
            let high = self.ureg(v.get("urb") + 1);
            self.pair(low, high)
        } else {
            self.reg64(v.get("rb"))
        }
    }

    fn c_form(v: &View) -> bool {
        v.encoding.form().ends_with("_c") && v.has("rc")
    }

    fn slot_b(&mut self, v: &View) -> Value {
        if Self::c_form(v) { self.reg(v.get("rc")) } else { self.wide_slot(v) }
    }

    fn slot_c(&mut self, v: &View) -> Value {
        if Self::c_form(v) { self.wide_slot(v) } else { self.reg(v.get("rc")) }
    }

    fn negated(v: &View, slot: char) -> bool {
        match (slot, Self::c_form(v)) {
            ('b', false) | ('c', true) => v.flag("neg_b"),
            _ => v.flag("neg_c"),
        }
    }

    fn float_a(&mut self, v: &View) -> Value {
        let a = self.reg(v.get("ra"));
        self.float_modifiers(a, v, "neg_a", "abs_a")
    }

    fn float_b(&mut self, v: &View) -> Value {
        if Self::c_form(v) {
            let b = self.reg(v.get("rc"));
            self.float_modifiers(b, v, "neg_c", "abs_c")
        } else {
            let b = self.wide_slot(v);
            self.float_modifiers(b, v, "neg_b", "abs_b")
        }
    }

    fn float_c(&mut self, v: &View) -> Value {
        if Self::c_form(v) {
            let c = self.wide_slot(v);
            self.float_modifiers(c, v, "neg_b", "abs_b")
        } else {
            let c = self.reg(v.get("rc"));
            self.float_modifiers(c, v, "neg_c", "abs_c")
        }
    }

    /// The 63:32 slot as FP64 bits: a register, constant or uniform pair, or an immediate holding the high word.
    fn wide_slot_double(&mut self, v: &View) -> Value {
        if v.has("imm32") { self.const64(v.get("imm32") << 32) } else { self.wide_slot64(v, false) }
    }

    /// FP64 a (its register pair, with its modifiers).
    fn double_a(&mut self, v: &View) -> Value {
        let a = self.reg64(v.get("ra"));
        self.float64_modifiers(a, v.flag("neg_a"), v.flag("abs_a"))
    }

    /// FP64 b and c as (value after the modifiers, register bits before them); the `_c` forms swap the slots,
    /// as for FP32.
    fn double_b(&mut self, v: &View) -> (Value, Value) {
        let (raw, neg, abs) = if Self::c_form(v) {
            (self.reg64(v.get("rc")), "neg_c", "abs_c")
        } else {
            (self.wide_slot_double(v), "neg_b", "abs_b")
        };
        (self.float64_modifiers(raw, v.flag(neg), v.flag(abs)), raw)
    }

    fn double_c(&mut self, v: &View) -> (Value, Value) {
        let (raw, neg, abs) = if Self::c_form(v) {
            (self.wide_slot_double(v), "neg_b", "abs_b")
        } else {
            (self.reg64(v.get("rc")), "neg_c", "abs_c")
        };
        (self.float64_modifiers(raw, v.flag(neg), v.flag(abs)), raw)
    }

    // -----------------------------------------------------------------------------------------------------------
    // Instructions.

    /// Lowers one instruction; a terminator ends the block.
    fn instruction(&mut self, v: &View) -> Result<Option<Terminator>, TranslateError> {
        let opcode = v.encoding.opcode;
        let (pg, pg_not) = (v.get("pg"), v.flag("pg_not"));
        let guarded = pg != 7 || pg_not;
        let guard = if guarded {
            // The uniform datapath's guard is a uniform predicate.
            let p = if is_uniform(opcode) { self.upred(pg) } else { self.pred(pg) };
            Some(if pg_not { self.un(UnOp::LogicalNot, p) } else { p })
        } else {
            None
        };
        let own_next = (v.offset + INSTRUCTION_BYTES) as u32;
        if opcode == "BAR" {
            // Modes 0 SYNC, 1 ARV, 2 RED (0 POPC, 1 AND, 2 OR).
            let (mode, red) = (v.get("mode"), v.get("red"));
            if mode > 2 || (mode == 2 && red > 2) {
                return self.unimplemented(v, format!("BAR mode {mode}"));
            }
            let predicate = |l: &mut Lower| l.pred_src(v, "ps");
            return Ok(self.barrier(v.offset, own_next, guard, (mode, red), &predicate));
        }
        if matches!(opcode, "BRA" | "EXIT" | "CALL" | "RET" | "BRX" | "BRXU" | "BPT") {
            return self.control(v, guard, own_next).map(Some);
        }
        if matches!(opcode, "RED" | "ATOM" | "ATOMG" | "ATOMS") {
            let cas = v.encoding.form() == "CAS";
            let shared = opcode == "ATOMS";
            let (op, ty) = (if cas { 8 } else { v.get("op") }, v.get("ty"));
            // Types: 0 U32, 1 S32, 2 U64, 3 F32.FTZ.RN, 4 F16x2.RN, 5 S64, 6 F64.RN (ATOMS: 0 U32, 1 S32, 2 U64).
            if !matches!((op, ty), (0..=8, 0 | 1 | 2 | 5) | (0, 3 | 4 | 6)) || (shared && ty > 2) || (cas && ty >= 3) {
                return self.unimplemented(
                    v,
                    "an atomic other than an integer operation or an FP32, F16x2 or FP64 add (shared: an integer one)",
                );
            }
            if shared && !cas && ty == 2 {
                return self.unimplemented(v, SHARED_UPDATE64);
            }
            if shared && self.program.shared_bytes == 0 {
                return self.unimplemented(v, "a shared atomic in a kernel without shared memory (a fault)");
            }
            // The interpreter's addresses: shared ones ra * scale + offset in 32 bits; global ones 64 bits for
            // .E, A64 and ATOMG, a uniform register's low word added.
            let shared_address = |l: &mut Lower| {
                let scale = [1, 4, 8, 16][v.get("scale") as usize & 3];
                let base = l.reg(v.get("ra"));
                let factor = l.const32(scale);
                let scaled = l.bin(BinOp::Mul, base, factor);
                let offset = l.const32(v.signed("offset") as u32);
                l.bin(BinOp::Add, scaled, offset)
            };
            let global_address = |l: &mut Lower| {
                let wide = v.flag("a64") || v.flag("e") || v.encoding.opcode == "ATOMG";
                let base = if wide {
                    l.reg64(v.get("ra"))
                } else {
                    let base = l.reg(v.get("ra"));
                    l.un(UnOp::ExtendU, base)
                };
                let mut address = base;
                if v.has("no_ur") && !v.flag("no_ur") {
                    let uniform = l.ureg(v.get("ur"));
                    let uniform = l.un(UnOp::ExtendU, uniform);
                    address = l.bin(BinOp::Add, address, uniform);
                }
                let offset = l.const64(v.signed("offset") as u64);
                l.bin(BinOp::Add, address, offset)
            };
            let (space, address): (Space, &dyn Fn(&mut Lower) -> Value) =
                if shared { (Space::Shared, &shared_address) } else { (Space::Global, &global_address) };
            let result = (opcode != "RED").then(|| v.get("rd"));
            if cas {
                // rc where the word holds rb; the old word into rd, or for CAST whether it stored.
                let wide = matches!(ty, 2 | 5);
                let registers = (v.get("rb"), v.get("rc"), v.get("rd"));
                let body = |l: &mut Lower| {
                    let at = address(l);
                    l.compare_and_swap(space, at, wide, registers, v.flag("cast"));
                };
                self.guarded(guard, body);
                return Ok(Some(Terminator::Jump(own_next)));
            }
            let terminator =
                self.atomic_update(v.offset, own_next, guard, space, address, (op, ty), v.get("rb"), result);
            return Ok(Some(terminator));
        }
        if Lower::exchanges_lanes(v, self.graphics) {
            if opcode == "REDUX" && v.get("op") > 5 {
                return self.unimplemented(v, format!("REDUX operation {}", v.get("op")));
            }
            if opcode == "MOVM" && v.get("shape") != 0 {
                return self.unimplemented(v, "MOVM of a shape other than .MT88");
            }
            if opcode == "LDSM" && (v.get("shape") != 0 || v.get("count") > 2) {
                return self.unimplemented(v, format!("LDSM shape {} count {}", v.get("shape"), v.get("count")));
            }
            if opcode == "LDSM" && self.program.shared_bytes == 0 {
                return self.unimplemented(v, "LDSM in a kernel without shared memory (a fault)");
            }
            if Lower::is_matrix_product(opcode)
                && let Err(what) = Product::of(v)
            {
                return self.unimplemented(v, what);
            }
            let guard = move |l: &mut Lower| {
                guarded.then(|| {
                    let p = l.pred(pg);
                    if pg_not { l.un(UnOp::LogicalNot, p) } else { p }
                })
            };
            return Ok(Some(self.warp_exchange(v, own_next, &guard)));
        }
        // Samples that take implicit derivatives run outside their guard, their writes selected (as SM5x's).
        let derivatives = self.graphics && matches!(v.encoding.opcode, "TEX" | "TLD4" | "TMML");
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

    fn control(&mut self, v: &View, guard: Option<Value>, own_next: u32) -> Result<Terminator, TranslateError> {
        let target = (v.offset as i64 + INSTRUCTION_BYTES as i64 + v.signed("offset") * 4) as u32;
        let mut condition = guard;
        // A predicate source other than PT joins the guard (PT would make an edge no thread takes).
        let ps_always = v.has("ps") && v.get("ps") == 7 && !v.flag("ps_not");
        if matches!(v.encoding.opcode, "BRA" | "EXIT" | "CALL" | "RET" | "BRX" | "BRXU") && v.has("ps") && !ps_always {
            let ps = self.pred_src(v, "ps");
            condition = Some(match condition {
                Some(guard) => {
                    let f = self.bool(false);
                    self.select(guard, ps, f)
                }
                None => ps,
            });
        }
        Ok(match v.encoding.opcode {
            "BRA" => {
                let Some(may_take) = branch_may_be_taken(v) else {
                    return self.unimplemented(v, "BRA with this convergence mode");
                };
                match (condition, may_take) {
                    (_, false) => Terminator::Jump(own_next),
                    (Some(cond), true) => Terminator::Branch(cond, target, own_next),
                    (None, true) => Terminator::Jump(target),
                }
            }
            // The return address is already in a register (ptxas writes it with MOV): a call is a jump.
            "CALL" if v.encoding.form().starts_with("abs") => {
                return self
                    .unimplemented(v, "CALL.ABS (a call into code outside the program: the driver's vprintf, malloc)");
            }
            "CALL" if !v.has("ra") => match condition {
                Some(cond) => Terminator::Branch(cond, target, own_next),
                None => Terminator::Jump(target),
            },
            // Where the stack was followed, a return goes back after its call.
            "RET" if self.pops.is_some() && !(v.flag("abs") || v.flag("uniform")) => {
                match (self.pops.as_ref().and_then(|pops| pops.get(&(v.offset as u32))), condition) {
                    (Some(&site), Some(cond)) => Terminator::Branch(cond, site, own_next),
                    (Some(&site), None) => Terminator::Jump(site),
                    // Code that no thread reaches (static_pops followed every path).
                    (None, _) => Terminator::Exit(None),
                }
            }
            "RET" | "BRX" | "BRXU" | "CALL" => {
                if v.flag("abs") || v.flag("uniform") {
                    return self.unimplemented(v, format!("{}.ABS or a uniform return address", v.encoding.opcode));
                }
                if v.has("mode") && v.get("mode") > 1 {
                    return self.unimplemented(v, "BRXU.DIV or .CONV (an indirect branch's convergence mode)");
                }
                // To base + ra (BRXU: + ur), where the encoded displacement takes this instruction back to the
                // code's start.
                let base = (v.offset as i64 + INSTRUCTION_BYTES as i64 + v.signed("offset") * 4) as u32;
                let ra = if v.has("ur") { self.ureg(v.get("ur")) } else { self.reg(v.get("ra")) };
                let base = self.const32(base);
                let target = self.bin(BinOp::Add, ra, base);
                let target = match condition {
                    Some(cond) => {
                        let fall_through = self.const32(own_next);
                        self.select(cond, target, fall_through)
                    }
                    None => target,
                };
                Terminator::JumpIndirect(target)
            }
            "EXIT" => Terminator::Exit(condition.map(|cond| (cond, own_next))),
            // A shader cannot stop the dispatch: a trap (BPT.TRAP, what __trap() compiles to) ends the thread.
            // The interpreter, the reference, stops the launch with a report instead.
            _ if v.get("mode") == 3 => Terminator::Exit(condition.map(|cond| (cond, own_next))),
            _ => return self.unimplemented(v, "BPT other than .TRAP (a breakpoint)"),
        })
    }

    fn body(&mut self, v: &View) -> Result<(), TranslateError> {
        let opcode = v.encoding.opcode;
        match opcode {
            // Cache controls and performance monitor triggers change nothing a program can read.
            "NOP" | "BSSY" | "BSYNC" | "WARPSYNC" | "DEPBAR" | "CCTL" | "CCTLL" | "CCTLT" | "PMTRIG" | "ERRBAR"
            | "NANOSLEEP" | "LDGDEPBAR" | "YIELD" => {}
            "KILL" => {
                let p = self.pred_src(v, "ps");
                self.guarded(Some(p), |l| {
                    l.op(Op::Demote);
                });
            }
            // Every guest memory access is coherent in the emitted SPIR-V; a fence adds nothing.
            "MEMBAR" => {}
            "MOV" => {
                let value = if v.has("urb") { self.ureg(v.get("urb")) } else { self.slot_b(v) };
                self.set_reg(v.get("rd"), value);
            }
            "PIXLD" => {
                // Values 1 COVMASK and 3 MY_INDEX; the others (the sample count, centroid offset, inner coverage)
                // or a predicate destination stop by name.
                let special = match v.get("mode") {
                    1 => Special::SampleMask,
                    3 => Special::SampleId,
                    _ => return self.unimplemented(v, Self::text(v)),
                };
                if v.get("pd") != 7 {
                    return self.unimplemented(v, Self::text(v));
                }
                let value = self.op(Op::Special(special));
                self.set_reg(v.get("rd"), value);
            }
            "S2R" | "CS2R" => {
                let (sr, rd) = (v.get("sr"), v.get("rd"));
                if opcode == "CS2R" && v.flag("bits64") && matches!(sr, 1 | 80 | 82) {
                    // A 64-bit clock read.
                    let clock = self.op(Op::Special(Special::Clock));
                    self.set_reg64(rd, clock);
                    return Ok(());
                }
                // The SM's configuration (2, 3, 67, 68) and performance counters (100-115) read 0.
                let machine: Vec<u64> = [2, 3, 67, 68].into_iter().chain(100..=115).collect();
                let Some(value) = self.special_register(sr, &machine) else {
                    return self.unimplemented(v, format!("special register {sr}"));
                };
                self.set_reg(rd, value);
                if opcode == "CS2R" && v.flag("bits64") {
                    let zero = self.const32(0);
                    self.set_reg(rd + 1, zero);
                }
            }
            "ULDC" => {
                if !matches!(v.get("size"), 4 | 5) {
                    return self.unimplemented(v, "ULDC of a byte or half");
                }
                let offset = v.signed("offset") as u64;
                let low = self.constant(v.get("cb_bank"), offset);
                self.set_ureg(v.get("urd"), low);
                if v.get("size") == 5 {
                    let high = self.constant(v.get("cb_bank"), offset.saturating_add(4));
                    self.set_ureg(v.get("urd") + 1, high);
                }
            }
            "LDC" => {
                if v.get("mode") != 0 || v.get("size") > 5 {
                    return self.unimplemented(v, "LDC with an indexed bank or of 128 bits");
                }
                let index = self.reg(v.get("ra"));
                self.constant_register_load(v.get("cb_bank"), index, v.signed("offset"), v.get("size"), v.get("rd"));
            }
            "SEL" => {
                let p = self.pred_src(v, "ps");
                let (a, b) = (self.reg(v.get("ra")), self.slot_b(v));
                let value = self.select(p, a, b);
                self.set_reg(v.get("rd"), value);
            }
            "IADD3" => self.iadd3(v),
            "IMAD" => self.imad(v),
            "LEA" => self.lea(v),
            "IMNMX" => {
                let (a, b) = (self.reg(v.get("ra")), self.slot_b(v));
                let min_op = if v.flag("signed") { BinOp::MinS } else { BinOp::MinU };
                let max_op = if v.flag("signed") { BinOp::MaxS } else { BinOp::MaxU };
                let (min, max) = (self.bin(min_op, a, b), self.bin(max_op, a, b));
                let p = self.pred_src(v, "ps");
                let value = self.select(p, min, max);
                self.set_reg(v.get("rd"), value);
            }
            "IDP" => {
                // The interpreter's: c + the products of a's and b's bytes (dp4a), or of a's halves and b's low or
                // high byte pair (dp2a), each part extended as the form says; the sum wraps.
                let (a, b) = (self.reg(v.get("ra")), self.reg(v.get("rb")));
                let part = |l: &mut Self, x: Value, index: u32, bits: u32, signed: bool| {
                    let up = l.const32(32 - bits - index * bits);
                    let down = l.const32(32 - bits);
                    let raised = l.bin(BinOp::Shl, x, up);
                    l.bin(if signed { BinOp::ShrS } else { BinOp::ShrU }, raised, down)
                };
                let (signed_a, signed_b) = (v.flag("signed_a"), v.flag("signed_b"));
                let c = self.reg(v.get("rc"));
                let mut sum = if v.flag("neg_c") {
                    let zero = self.const32(0);
                    self.bin(BinOp::Sub, zero, c)
                } else {
                    c
                };
                let pairs: Vec<(u32, u32, u32)> = if v.flag("two") {
                    let first_byte = if v.flag("hi") { 2 } else { 0 };
                    (0..2).map(|i| (i, 16, first_byte + i)).collect()
                } else {
                    (0..4).map(|i| (i, 8, i)).collect()
                };
                for (index_a, bits_a, index_b) in pairs {
                    let x = part(self, a, index_a, bits_a, signed_a);
                    let y = part(self, b, index_b, 8, signed_b);
                    let product = self.bin(BinOp::Mul, x, y);
                    sum = self.bin(BinOp::Add, sum, product);
                }
                self.set_reg(v.get("rd"), sum);
            }
            "IABS" => {
                let b = self.reg(v.get("rb"));
                let zero = self.const32(0);
                let negative = self.cmp(Cmp::LtS, b, zero);
                let negated = self.bin(BinOp::Sub, zero, b);
                let value = self.select(negative, negated, b);
                self.set_reg(v.get("rd"), value);
            }
            "POPC" | "BREV" | "FLO" => {
                let mut b = self.reg(v.get("rb"));
                if v.flag("inv_b") {
                    let all = self.const32(u32::MAX);
                    b = self.bin(BinOp::Xor, b, all);
                }
                let value = match opcode {
                    "POPC" => self.un(UnOp::PopCount, b),
                    "BREV" => self.un(UnOp::BitReverse, b),
                    _ => self.find_leading_one(b, v.flag("signed"), v.flag("sh")),
                };
                self.set_reg(v.get("rd"), value);
            }
            "ISETP" => self.isetp(v),
            // c plus the four bytes' distances (the interpreter's VABSDIFF4; the accumulating form alone).
            "VABSDIFF4" => {
                if !v.flag("acc") || v.get("pd") != 7 {
                    return self.unimplemented(v, "VABSDIFF4 without .ACC or with a predicate result");
                }
                let (a, b) = (self.reg(v.get("ra")), self.reg(v.get("rb")));
                let mut sum = self.reg(v.get("rc"));
                let signed = v.flag("signed");
                for k in 0..4 {
                    let [x, y] = [a, b].map(|word| {
                        let up = self.const32(24 - 8 * k);
                        let down = self.const32(24);
                        let top = self.bin(BinOp::Shl, word, up);
                        self.bin(if signed { BinOp::ShrS } else { BinOp::ShrU }, top, down)
                    });
                    let (high, low) = (self.bin(BinOp::MaxS, x, y), self.bin(BinOp::MinS, x, y));
                    let distance = self.bin(BinOp::Sub, high, low);
                    sum = self.bin(BinOp::Add, sum, distance);
                }
                self.set_reg(v.get("rd"), sum);
            }
            // a and b saturated into 8- or 16-bit lanes, a above b; two bytes leave the upper half to c's low half
            // (the interpreter's I2IP; .SAT into 8 or 16 bits alone).
            "I2IP" => {
                let dst = v.get("dst");
                if v.get("sat") != 0 || dst > 3 || v.get("half_c") != 0 {
                    return self.unimplemented(v, "I2IP other than .SAT into 8 or 16 bits of c's low half");
                }
                let bits = if dst < 2 { 8 } else { 16 };
                let (low, high) = if dst & 1 == 1 {
                    (-(1i32 << (bits - 1)), (1i32 << (bits - 1)) - 1)
                } else {
                    (0, (1i32 << bits) - 1)
                };
                let [a, b] = [v.get("ra"), v.get("rb")].map(|register| {
                    let value = self.reg(register);
                    let (low, high) = (self.const32(low as u32), self.const32(high as u32));
                    let above = self.bin(BinOp::MaxS, value, low);
                    let clamped = self.bin(BinOp::MinS, above, high);
                    let mask = self.const32((1u32 << bits) - 1);
                    self.bin(BinOp::And, clamped, mask)
                });
                let shift = self.const32(bits);
                let upper = self.bin(BinOp::Shl, a, shift);
                let mut packed = self.bin(BinOp::Or, upper, b);
                if bits == 8 {
                    let c = self.reg(v.get("rc"));
                    let sixteen = self.const32(16);
                    let c_low = self.bin(BinOp::Shl, c, sixteen);
                    packed = self.bin(BinOp::Or, packed, c_low);
                }
                self.set_reg(v.get("rd"), packed);
            }
            "VABSDIFF" => {
                if v.get("pd") != 7 {
                    return self.unimplemented(v, "VABSDIFF with a predicate result");
                }
                let (a, b, c) = (self.reg(v.get("ra")), self.reg(v.get("rb")), self.reg(v.get("rc")));
                let less = self.cmp(if v.flag("signed") { Cmp::LtS } else { Cmp::LtU }, a, b);
                let (forward, backward) = (self.bin(BinOp::Sub, a, b), self.bin(BinOp::Sub, b, a));
                let difference = self.select(less, backward, forward);
                let value = self.bin(BinOp::Add, difference, c);
                self.set_reg(v.get("rd"), value);
            }
            "SGXT" | "BMSK" => {
                let (a, b) = (self.reg(v.get("ra")), self.slot_b(v));
                let value = self.bit_field(v, a, b);
                self.set_reg(v.get("rd"), value);
            }
            "PRMT" => {
                let (a, selector, c) = (self.reg(v.get("ra")), self.slot_b(v), self.reg(v.get("rc")));
                let value = self.permute(a, selector, c, v.get("mode"));
                self.set_reg(v.get("rd"), value);
            }
            "LOP3" => {
                let (a, b, c) = (self.reg(v.get("ra")), self.slot_b(v), self.reg(v.get("rc")));
                let value = self.lop3(v.get("lut") as u8, a, b, c);
                self.set_reg(v.get("rd"), value);
                if v.get("pd") != 7 {
                    // Whether the result is non-zero, combined with the predicate source.
                    let zero = self.const32(0);
                    let nonzero = self.cmp(Cmp::Ne, value, zero);
                    let ps = self.pred_src(v, "ps");
                    let f = self.bool(false);
                    let t = self.bool(true);
                    let combined =
                        if v.flag("pand") { self.select(nonzero, ps, f) } else { self.select(nonzero, t, ps) };
                    self.set_pred(v.get("pd"), combined);
                }
            }
            "BREAK" => {}
            "BMOV" => {
                // Convergence barrier registers mean nothing to a thread of SPIR-V; a saved one reads 0.
                if v.encoding.form() != "to_bar" {
                    let zero = self.const32(0);
                    self.set_reg(v.get("rd"), zero);
                }
            }
            "PLOP3" | "UPLOP3" => {
                let (a, b, c) = if v.has("ra") {
                    // The register form tests sign bits.
                    let zero = self.const32(0);
                    let mut sign = |field: &str| {
                        let r = self.reg(v.get(field));
                        self.cmp(Cmp::LtS, r, zero)
                    };
                    (sign("ra"), sign("rb"), sign("rc"))
                } else {
                    let c = if v.flag("pc_uniform") {
                        let p = self.upred(v.get("pc"));
                        if v.flag("pc_not") { self.un(UnOp::LogicalNot, p) } else { p }
                    } else {
                        self.file_pred(v, "pc")
                    };
                    (self.file_pred(v, "ps"), self.file_pred(v, "pb"), c)
                };
                for (field, lut) in [("pd", v.get("lut")), ("pq", v.get("lut_hi"))] {
                    let value = self.predicate_lut(lut as u8, a, b, c);
                    self.set_file_pred(v, field, value);
                }
            }
            "SHF" => {
                let (a, amount, c) = (self.reg(v.get("ra")), self.slot_b(v), self.reg(v.get("rc")));
                let value = self.funnel_shift(a, amount, c, v.get("ty"), v.flag("wrap"), v.flag("right"), v.flag("hi"));
                self.set_reg(v.get("rd"), value);
            }
            // Warp exchanges but in a graphics stage's quads (`lower::quad_shuffle`) and subgroup.
            "VOTE" | "VOTEU" => self.subgroup_vote_result(v),
            "SHFL" => {
                let Some(shuffle) = quad_shuffle(v) else { unreachable!("warp exchanges end their block") };
                self.quad_shuffle_result(v, shuffle);
            }
            "FSWZADD" => {
                let operands = (self.reg(v.get("ra")), self.reg(v.get("rc")));
                let swizzle = v.get("swizzle") as u32;
                let Some(value) = self.swizzle_add(Isa::Sm86, swizzle, operands, v.get("rnd"), v.flag("ftz")) else {
                    return self.unimplemented(v, format!("{opcode} (a lane moving b alone: MOV2)"));
                };
                self.set_reg(v.get("rd"), value);
            }
            "FADD" | "FMUL" | "FFMA" => {
                if v.flag("fmz") || v.get("scale") & 7 != 0 && v.get("scale") != 4 {
                    return self.unimplemented(v, format!("{opcode}.FMZ or a scale"));
                }
                let ftz = v.flag("ftz");
                let a = self.float_a(v);
                let a = self.flush(a, ftz);
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let (kind, c) = match opcode {
                    "FADD" => (FArith::Add, b),
                    "FMUL" => (FArith::Mul, b),
                    _ => {
                        let c = self.float_c(v);
                        (FArith::Fma, self.flush(c, ftz))
                    }
                };
                let result = self.op(Op::FArith(kind, Round::from_field(v.get("rnd")), [a, b, c]));
                let value = self.finish_float(result, ftz, v.flag("sat"));
                self.set_reg(v.get("rd"), value);
            }
            "DADD" | "DMUL" | "DFMA" => {
                let raw_a = self.reg64(v.get("ra"));
                let a = self.float64_modifiers(raw_a, v.flag("neg_a"), v.flag("abs_a"));
                // DADD's second operand sits in the C slot.
                let (kind, (b, raw_b), (c, raw_c)) = match opcode {
                    "DADD" => {
                        let b = self.double_c(v);
                        (FArith::Add, b, b)
                    }
                    "DMUL" => {
                        let b = self.double_b(v);
                        (FArith::Mul, b, b)
                    }
                    _ => (FArith::Fma, self.double_b(v), self.double_c(v)),
                };
                let value = self.double_arith(kind, v.get("rnd"), [a, b, c], [raw_a, raw_b, raw_c]);
                self.set_reg64(v.get("rd"), value);
            }
            "DSETP" => {
                let a = self.double_a(v);
                let (b, _) = self.double_b(v);
                let (first, second) = match v.get("cmp") {
                    // .MIN and .MAX (in place of .F and .T) pick the operand min/max.f64 returns: the first
                    // predicate says "the first operand", the second "both are NaN".
                    cmp @ (0 | 15) => {
                        let min = self.bool(cmp == 0);
                        self.double_min_max_choice(a, b, min)
                    }
                    cmp => {
                        let holds = self.float_compare(a, b, cmp);
                        (holds, self.un(UnOp::LogicalNot, holds))
                    }
                };
                let (op, ps) = (v.get("bop"), self.pred_src(v, "ps"));
                let first = self.boolean(op, first, ps);
                let second = self.boolean(op, second, ps);
                self.set_pred(v.get("pd"), first);
                self.set_pred(v.get("pq"), second);
            }
            "HADD2" | "HMUL2" | "HFMA2" => {
                // BF16 (.BF16_V2) without .FTZ or .F32, as the interpreter takes it.
                let odd_bf16 = v.flag("bf16") && (v.flag("ftz") || v.flag("f32"));
                if odd_bf16 || [v.get("swz_a"), v.get("swz_b"), v.get("swz_c")].contains(&1) {
                    return self.unimplemented(v, format!("{opcode} with an FP32 operand, or BF16 with .FTZ or .F32"));
                }
                let format = if v.flag("bf16") { HalfFormat::Bf16 } else { HalfFormat::F16 };
                let immediate = v.has("imm_lo").then(|| [v.get("imm_lo") as u32, v.get("imm_hi") as u32]);
                let [a, b, c] = self.half_operands(v, opcode, immediate.map(HalfSource::Immediate));
                let (ftz, sat, relu) = (v.flag("ftz"), v.flag("sat"), v.flag("relu"));
                let kind = FArith::of_half_opcode(opcode);
                let value = if v.flag("f32") {
                    self.half_arith_f32(kind, [a[0], b[0], c[0]], ftz, sat)
                } else {
                    let finish = (ftz, sat, relu);
                    let low = self.half_arith(format, kind, [a[0], b[0], c[0]], finish);
                    let high = self.half_arith(format, kind, [a[1], b[1], c[1]], finish);
                    self.pack_halves(low, high)
                };
                self.set_reg(v.get("rd"), value);
            }
            // .F32 sources (swizzle 1) are refused on SM86 until a hardware run says what they read there (BF16
            // forms would not convert to FP16).
            "HSETP2" | "HMNMX2" if [v.get("swz_a"), v.get("swz_b")].contains(&1) => {
                return self.unimplemented(v, "an .F32 pair source");
            }
            "HSETP2" => self.hsetp2(v, None),
            // F32 operands (swizzle 1) are HADD2's and HMUL2's, not a comparison's.
            "HSET2" if [v.get("swz_a"), v.get("swz_b")].contains(&1) => {
                return self.unimplemented(v, "HSET2 of an F32 operand");
            }
            "HSET2" => self.hset2(v, None),
            "F2F" if !v.flag("bf16") && (v.get("src") == 3 || v.get("dst") == 3) => {
                let (src, dst) = (v.get("src"), v.get("dst"));
                let b = match src {
                    3 => {
                        let b = self.wide_slot_double(v);
                        self.float64_modifiers(b, v.flag("neg_b"), v.flag("abs_b"))
                    }
                    // The modifiers act on the whole register, as for FP32 (the interpreter's `f2f`).
                    1 => {
                        let b = self.float_b(v);
                        let mask = self.const32(0xffff);
                        self.bin(BinOp::And, b, mask)
                    }
                    _ => self.float_b(v),
                };
                let value = self.float64_conversion(b, src, dst, v.get("rnd"), v.flag("ftz"));
                if dst == 3 {
                    self.set_reg64(v.get("rd"), value);
                } else {
                    self.set_reg(v.get("rd"), value);
                }
            }
            "F2F" if v.flag("bf16") => {
                // FP32 to BF16 in the low half (the interpreter's `f2f`: the modifiers on the whole register).
                if v.get("src") != 2 || v.get("dst") == 3 {
                    return self.unimplemented(v, "F2F to BF16 from a float other than FP32, or into a pair");
                }
                let b = self.float_b(v);
                let value = self.f32_to_bf16(b, v.get("rnd"));
                self.set_reg(v.get("rd"), value);
            }
            "F2F" => {
                // FP16 (the low half) and FP32 to each other (the interpreter's `f2f`: the source's modifiers act
                // on the whole register, as for FP32).
                let (src, dst) = (v.get("src"), v.get("dst"));
                if v.encoding.form() != "reg" || !matches!((src, dst), (1, 2) | (2, 1) | (2, 2)) {
                    return self.unimplemented(v, "F2F from FP16 to FP16, or of the invalid float type 0");
                }
                let ftz = v.flag("ftz");
                let b = self.float_b(v);
                let value = match (src, dst) {
                    (1, _) => {
                        let mask = self.const32(0xffff);
                        let half = self.bin(BinOp::And, b, mask);
                        let wide = self.un(UnOp::HalfToF32, half);
                        self.finish_float(wide, ftz, false)
                    }
                    (_, 1) => {
                        let b = self.flush(b, ftz);
                        let half = self.op(Op::F32ToHalf(Round::from_field(v.get("rnd")), b));
                        let nan = self.un(UnOp::IsNan, b);
                        let canonical = self.const32(0x7fff);
                        self.select(nan, canonical, half)
                    }
                    _ => {
                        let b = self.flush(b, ftz);
                        self.finish_float(b, ftz, false)
                    }
                };
                self.set_reg(v.get("rd"), value);
            }
            "F2IP" => {
                // The single-value form ptxas emits for cvt.sat to 8 bits (the interpreter's): FP32 to a 64-bit
                // integer, then saturated to a byte.
                if v.get("ra") != 255 || v.get("rc") != 255 || v.flag("relu") {
                    return self.unimplemented(v, "F2IP with a second value, a merge or .RELU");
                }
                let b = self.reg(v.get("rb"));
                let wide = self.float_to_integer(b, 3, true, v.get("rnd"));
                let (low, high) = if v.flag("signed") { (-128i64, 127i64) } else { (0, 255) };
                let (low, high) = (self.const64(low as u64), self.const64(high as u64));
                let clamped = self.bin(BinOp::MaxS, wide, low);
                let clamped = self.bin(BinOp::MinS, clamped, high);
                let value = self.un(UnOp::Truncate, clamped);
                self.set_reg(v.get("rd"), value);
            }
            "HMNMX2" => {
                if (v.flag("bf16") && v.flag("ftz")) || v.flag("f32") {
                    return self.unimplemented(v, "HMNMX2 .F32, or of BF16 with .FTZ");
                }
                let format = if v.flag("bf16") { HalfFormat::Bf16 } else { HalfFormat::F16 };
                let a = self.reg(v.get("ra"));
                let a = self.half_pair(a, v.get("swz_a"), v.flag("neg_a"), v.flag("abs_a"));
                let b = self.reg(v.get("rb"));
                let b = self.half_pair(b, v.get("swz_b"), v.flag("neg_b"), v.flag("abs_b"));
                let min = self.pred_src(v, "ps");
                let ftz = v.flag("ftz");
                let [low, high] = [0, 1].map(|i| {
                    let value = self.half_min_max(a[i], b[i], min, ftz, format);
                    if !v.flag("nan") {
                        return value;
                    }
                    // .NAN: a NaN operand gives the canonical NaN.
                    let (magnitude, infinity) = (self.const32(0x7fff), self.const32(format.infinity()));
                    let nan = |l: &mut Self, h: Value| {
                        let m = l.bin(BinOp::And, h, magnitude);
                        l.cmp(Cmp::GtU, m, infinity)
                    };
                    let (nan_a, nan_b) = (nan(self, a[i]), nan(self, b[i]));
                    let t = self.bool(true);
                    let either = self.select(nan_a, t, nan_b);
                    self.select(either, magnitude, value)
                });
                let value = self.pack_halves(low, high);
                self.set_reg(v.get("rd"), value);
            }
            "F2FP" => {
                // Kinds: 0 PACK_AB (FP16), 2 BF16.PACK_AB, 3 RELU.BF16.PACK_AB (negative results +0).
                let kind = v.get("kind");
                if v.flag("merge_c") || !matches!(kind, 0 | 2 | 3) {
                    return self.unimplemented(v, "F2FP other than PACK_AB to FP16 or BF16");
                }
                // Two FP32 to a pair: a in the high half, b in the low; a NaN gives the canonical 0x7fff.
                let halves = [v.get("rb"), v.get("ra")].map(|r| {
                    let x = self.reg(r);
                    if kind == 0 {
                        let nan = self.un(UnOp::IsNan, x);
                        let half = self.op(Op::F32ToHalf(Round::from_field(v.get("rnd")), x));
                        let canonical = self.const32(0x7fff);
                        return self.select(nan, canonical, half);
                    }
                    let value = self.f32_to_bf16(x, v.get("rnd"));
                    if kind == 2 {
                        return value;
                    }
                    let (sign, zero) = (self.const32(0x8000), self.const32(0));
                    let sign_bit = self.bin(BinOp::And, value, sign);
                    let negative = self.cmp(Cmp::Ne, sign_bit, zero);
                    self.select(negative, zero, value)
                });
                let value = self.pack_halves(halves[0], halves[1]);
                self.set_reg(v.get("rd"), value);
            }
            "FSET" => {
                let ftz = v.flag("ftz");
                let a = self.float_a(v);
                let a = self.flush(a, ftz);
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let holds = self.float_compare(a, b, v.get("cmp"));
                let ps = self.pred_src(v, "ps");
                let result = self.boolean(v.get("bop"), holds, ps);
                let (one, zero) = (self.const32(0x3f80_0000), self.const32(0));
                let value = self.select(result, one, zero);
                self.set_reg(v.get("rd"), value);
            }
            "FCHK" => {
                let (a, b) = (self.float_a(v), self.float_b(v));
                let slow = self.division_needs_slow_path(a, b);
                self.set_pred(v.get("pd"), slow);
            }
            "FRND" if v.get("src") == 3 => {
                // The interpreter's: the register pair as it is (FRND.F64 has no modifiers).
                let b = self.wide_slot_double(v);
                let value = self.round_integral64(b, v.get("rnd"), v.flag("ftz"));
                self.set_reg64(v.get("rd"), value);
            }
            "FRND" => {
                if v.get("src") != 2 || v.get("dst") != 2 {
                    return self.unimplemented(v, "FRND other than FP32 or FP64");
                }
                let ftz = v.flag("ftz");
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let rounded = match v.get("rnd") {
                    0 => self.un(UnOp::RoundEven, b),
                    1 => self.un(UnOp::Floor, b),
                    2 => self.un(UnOp::Ceil, b),
                    _ => self.un(UnOp::Trunc, b),
                };
                let value = self.finish_float(rounded, ftz, false);
                self.set_reg(v.get("rd"), value);
            }
            "FSETP" => {
                let ftz = v.flag("ftz");
                let a = self.float_a(v);
                let a = self.flush(a, ftz);
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let holds = self.float_compare(a, b, v.get("cmp"));
                let ps = self.pred_src(v, "ps");
                let not_holds = self.un(UnOp::LogicalNot, holds);
                let first = self.boolean(v.get("bop"), holds, ps);
                let second = self.boolean(v.get("bop"), not_holds, ps);
                self.set_pred(v.get("pd"), first);
                self.set_pred(v.get("pq"), second);
            }
            "FSEL" => {
                let p = self.pred_src(v, "ps");
                let (a, b) = (self.float_a(v), self.float_b(v));
                let value = self.select(p, a, b);
                let value = self.flush(value, v.flag("ftz"));
                self.set_reg(v.get("rd"), value);
            }
            "FMNMX" => {
                let ftz = v.flag("ftz");
                let a = self.float_a(v);
                let a = self.flush(a, ftz);
                let b = self.float_b(v);
                let b = self.flush(b, ftz);
                let p = self.pred_src(v, "ps");
                let mut value = self.float_min_max(a, b, p);
                if v.flag("nan") {
                    // .NAN: a NaN operand gives the canonical NaN (PTX's min.NaN).
                    let (nan_a, nan_b) = (self.un(UnOp::IsNan, a), self.un(UnOp::IsNan, b));
                    let t = self.bool(true);
                    let either = self.select(nan_a, t, nan_b);
                    let canonical = self.const32(0x7fff_ffff);
                    value = self.select(either, canonical, value);
                }
                if v.flag("xorsign") {
                    // .XORSIGN: the sign is the exclusive or of the registers' signs, before the modifiers.
                    let (raw_a, raw_b) = (self.reg(v.get("ra")), self.slot_b(v));
                    let signs = self.bin(BinOp::Xor, raw_a, raw_b);
                    let (sign, magnitude) = (self.const32(0x8000_0000), self.const32(0x7fff_ffff));
                    let sign = self.bin(BinOp::And, signs, sign);
                    let value_magnitude = self.bin(BinOp::And, value, magnitude);
                    value = self.bin(BinOp::Or, value_magnitude, sign);
                }
                self.set_reg(v.get("rd"), value);
            }
            "MUFU" => {
                let func = v.get("func");
                let value = if v.flag("f16") {
                    // .F16: of the half_b-th FP16 half, an FP16 result in the low half (the interpreter's).
                    if matches!(func, 6 | 7) || v.get("half_b") > 1 {
                        return self.unimplemented(v, format!("MUFU function {func}.F16"));
                    }
                    let b = self.reg(v.get("rb"));
                    let half = self.half_pair(b, 0, v.flag("neg_b"), v.flag("abs_b"))[v.get("half_b") as usize];
                    let wide = self.un(UnOp::HalfToF32, half);
                    self.special_function(func, wide).map(|result| {
                        let nan = self.un(UnOp::IsNan, result);
                        let narrowed = self.op(Op::F32ToHalf(Round::NearestEven, result));
                        let canonical = self.const32(0x7fff);
                        self.select(nan, canonical, narrowed)
                    })
                } else {
                    let x = self.float_b(v);
                    self.special_function(func, x)
                };
                let Some(value) = value else {
                    return self.unimplemented(v, format!("MUFU function {func}"));
                };
                self.set_reg(v.get("rd"), value);
            }
            "QSPC" => {
                // Whether a generic address falls in the window asked for (space >> 1: 0 global, 1 local,
                // 2 shared).
                use crate::sass::exec::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_BYTES};
                let base = self.reg64(v.get("ra"));
                let offset = self.const64(v.signed("offset") as u64);
                let address = self.bin(BinOp::Add, base, offset);
                let bytes = self.const64(WINDOW_BYTES);
                let within = |l: &mut Self, window: u64| {
                    let start = l.const64(window);
                    let relative = l.bin(BinOp::Sub, address, start);
                    l.cmp(Cmp::LtU, relative, bytes)
                };
                let (shared, local) = (within(self, SHARED_WINDOW), within(self, LOCAL_WINDOW));
                let holds = match v.get("space") >> 1 {
                    0 => {
                        let t = self.bool(true);
                        let windowed = self.select(shared, t, local);
                        self.un(UnOp::LogicalNot, windowed)
                    }
                    1 => local,
                    2 => shared,
                    _ => return self.unimplemented(v, "QSPC of this space"),
                };
                self.set_pred(v.get("pd"), holds);
                let zero = self.const32(0);
                self.set_reg(v.get("rd"), zero);
            }
            "I2I" => {
                // A signed word saturated to 8 or 16 bits (dst: 0 U8, 1 S8, 2 U16, 3 S16).
                let (low, high) = [(0, 0xff), (-0x80, 0x7f), (0, 0xffff), (-0x8000, 0x7fff)][v.get("dst") as usize & 3];
                let b = self.reg(v.get("rb"));
                let (low, high) = (self.const32(low as u32), self.const32(high as u32));
                let clamped = self.bin(BinOp::MaxS, b, low);
                let clamped = self.bin(BinOp::MinS, clamped, high);
                self.set_reg(v.get("rd"), clamped);
            }
            // At an immediate or physical (.PHYS) address, of the vertex rb names, or the patch's (.P, at an
            // immediate address) (`Lower::attribute_words`); other vertices' outputs (tessellation control
            // programs) are not translated.
            "ALD" | "AST"
                if (matches!(v.encoding.form(), "" | "PHYS") || (v.encoding.form() == "P" && v.get("ra") == 255))
                    && !(v.flag("output") && v.get("rb") != 255) =>
            {
                self.attribute_words(v)
            }
            "AL2P" if self.attribute_to_physical(v).is_some() => {}
            // EMIT or EMIT_THEN_CUT on the vertex stream rb or the immediate names (see sm5x's OUT), CUT (on stream
            // 0: its form has RZ there); OUT.FINAL, which closes the invocation's output, has nothing to do.
            "OUT" => {
                let stream = match v.encoding.form() {
                    "final" => return Ok(()),
                    "cut" => {
                        self.geometry_output(false, true, v.get("rd"), v.get("ra"), OutStream::Known(0));
                        return Ok(());
                    }
                    "reg" => self.out_stream(Some(v.get("rb")), None),
                    _ => self.out_stream(None, Some(v.get("imm32"))),
                };
                let Some(stream) = stream else { return self.unimplemented(v, Self::text(v)) };
                self.geometry_output(true, v.flag("cut"), v.get("rd"), v.get("ra"), stream);
            }
            // The handle of the input vertex [ra + offset] numbers (`Special::InvocationInfo`): that number.
            "ISBERD" if self.vertex_handle(v).is_some() => {}
            "ISBERD" => return self.unimplemented(v, Self::text(v)),
            // PASS (interpolated as the header says; a perspective input arrives divided by w, which the program
            // multiplies back itself) and CONSTANT; at the pixel centre, the centroid or an offset from the centre
            // (.OFFSET: rb's, or the immediate's or constant's of those forms; a uniform register's index refused).
            "IPA" if v.get("mode") < 2 && v.get("sample") < 3 && v.get("pd") == 7 && !v.flag("ur_valid") => {
                let sample = if v.encoding.form() == "reg" { v.get("sample") } else { 2 };
                let offset = |l: &mut Self| match v.encoding.form() {
                    "imm" => l.const32(v.get("imm32") as u32),
                    "cbuf" => l.constant(v.get("cb_bank"), v.get("cb_offset") * 4),
                    _ => l.reg(v.get("rb")),
                };
                let value = self.attribute_at(4 * v.get("address") as u32, sample, offset);
                self.set_reg(v.get("rd"), value);
            }
            "ALD" | "AST" | "IPA" | "AL2P" => return self.unimplemented(v, Self::text(v)),
            "P2R" => {
                let (a, mask, bits) = (self.reg(v.get("ra")), self.slot_b(v), self.predicate_bits(false));
                let value = self.predicates_into(a, bits, mask, v.get("byte"));
                self.set_reg(v.get("rd"), value);
            }
            "R2P" => {
                let (a, mask) = (self.reg(v.get("ra")), self.slot_b(v));
                self.predicates_from(a, mask, v.get("byte"), false);
            }
            "UIADD3" => self.iadd3(v),
            "UISETP" => self.isetp(v),
            "ULEA" => self.lea(v),
            "B2R" if v.get("mode") == 1 => self.barrier_result(v.get("rd"), v.get("pd")),
            opcode if is_uniform(opcode) => self.uniform(v)?,
            "I2F" | "I2FP" => self.int_to_float(v)?,
            "F2I" => self.float_to_int(v)?,
            "LDG" | "STG" | "LD" | "ST" => self.global_access(v)?,
            "LDGSTS" => self.copy_global_to_shared(v)?,
            "LDS" | "STS" | "LDL" | "STL" => self.local_access(v)?,
            "TEX" | "TLD" | "TLD4" | "TXD" | "TXQ" => {
                self.through_unit(v, crate::sass::texture::sm86, Self::texture_instruction)?
            }
            "SULD" | "SUST" | "SURED" | "SUATOM" => {
                self.through_unit(v, crate::sass::surface::sm86, Self::surface_instruction)?
            }
            "TMML" => {
                self.through_unit(v, lod_query_operands, |l, &(query, destinations)| l.lod_query(query, &destinations))?
            }
            opcode => {
                let text = Self::text(v);
                let (kernel, offset) = (self.kernel_name.to_string(), v.offset);
                return Err(TranslateError::UnknownOpcode { isa: Isa::Sm86, opcode, text, kernel, offset });
            }
        }
        Ok(())
    }

    /// An instruction of a unit's (textures, surfaces): `read` gives its meaning (`sass::texture`,
    /// `sass::surface`), `lower` carries it out; what either refuses names the instruction and why.
    fn through_unit<T>(
        &mut self,
        v: &View,
        read: fn(&View) -> std::result::Result<T, String>,
        lower: fn(&mut Self, &T) -> std::result::Result<(), String>,
    ) -> Result<(), TranslateError> {
        match read(v).and_then(|instruction| lower(self, &instruction)) {
            Ok(()) => Ok(()),
            Err(why) => self.unimplemented(v, format!("{} ({why})", Self::text(v))),
        }
    }

    /// BMSK (b ones from bit a up) and SGXT (the low b bits of a, sign- or zero-extended; b = 0 gives 0), and
    /// their uniform twins: a and b wrapped to 0-31 (.W) or clamped at 32.
    fn bit_field(&mut self, v: &View, a: Value, b: Value) -> Value {
        let b = self.bit_count(b, v.flag("wrap"));
        let thirty_two = self.const32(32);
        if v.encoding.opcode.ends_with("BMSK") {
            let a = self.bit_count(a, v.flag("wrap"));
            let (one, all) = (self.const32(1), self.const32(u32::MAX));
            let power = self.bin(BinOp::Shl, one, b);
            let mask = self.bin(BinOp::Sub, power, one);
            let full = self.cmp(Cmp::GeU, b, thirty_two);
            let mask = self.select(full, all, mask);
            self.bin(BinOp::Shl, mask, a)
        } else {
            let unused = self.bin(BinOp::Sub, thirty_two, b);
            let up = self.bin(BinOp::Shl, a, unused);
            let down = if v.flag("signed") { BinOp::ShrS } else { BinOp::ShrU };
            let extended = self.bin(down, up, unused);
            let zero = self.const32(0);
            let empty = self.cmp(Cmp::Eq, b, zero);
            self.select(empty, zero, extended)
        }
    }

    /// IADD3, or UIADD3 on the uniform registers and predicates.
    fn iadd3(&mut self, v: &View) {
        let extended = v.flag("x");
        let (a, b, c) = (self.file_reg(v, "ra"), self.slot_b(v), self.file_reg(v, "rc"));
        let terms = [
            self.term(a, v.flag("neg_a"), extended),
            self.term(b, Self::negated(v, 'b'), extended),
            self.term(c, v.flag("neg_c"), extended),
        ];
        let mut sum = self.bin(BinOp::Add, terms[0], terms[1]);
        sum = self.bin(BinOp::Add, sum, terms[2]);
        if extended {
            for field in ["ps", "px"] {
                let p = self.file_pred(v, field);
                let bit = self.un(UnOp::BoolToU32, p);
                let bit = self.un(UnOp::ExtendU, bit);
                sum = self.bin(BinOp::Add, sum, bit);
            }
        }
        let value = self.un(UnOp::Truncate, sum);
        self.set_file_reg(v, "rd", value);
        for (field, bit) in [("pd", 32), ("pq", 33)] {
            if v.get(&operand_field(v, field)) != 7 {
                let carry = self.bit(sum, bit);
                self.set_file_pred(v, field, carry);
            }
        }
    }

    /// The uniform datapath's other instructions, as the interpreter's `uniform` has them.
    fn uniform(&mut self, v: &View) -> Result<(), TranslateError> {
        let b = |l: &mut Self| if v.has("imm32") { l.const32(v.get("imm32") as u32) } else { l.ureg(v.get("urb")) };
        let value = match v.encoding.opcode {
            "UMOV" => b(self),
            "ULOP3" => {
                let (a, b, c) = (self.ureg(v.get("ura")), b(self), self.ureg(v.get("urc")));
                self.lop3(v.get("lut") as u8, a, b, c)
            }
            "UIMAD" => {
                if v.flag("x") || v.flag("neg_c") {
                    return self.unimplemented(v, "UIMAD.X or with a negated addend");
                }
                // The imm_c form: the factors are ura and the 71:64 slot, the addend the immediate.
                let (a, c, b) = (self.ureg(v.get("ura")), self.ureg(v.get("urc")), b(self));
                let product = self.bin(BinOp::Mul, a, c);
                self.bin(BinOp::Add, product, b)
            }
            "UPRMT" => {
                let (a, selector, c) = (self.ureg(v.get("ura")), b(self), self.ureg(v.get("urc")));
                self.permute(a, selector, c, 0)
            }
            "UBREV" => {
                let b = b(self);
                self.un(UnOp::BitReverse, b)
            }
            "UBMSK" | "USGXT" => {
                let (a, b) = (self.ureg(v.get("ura")), b(self));
                self.bit_field(v, a, b)
            }
            "UP2UR" => {
                let (a, mask, bits) = (self.ureg(v.get("ura")), b(self), self.predicate_bits(true));
                self.predicates_into(a, bits, mask, v.get("byte"))
            }
            "UR2UP" => {
                let (a, mask) = (self.ureg(v.get("ura")), b(self));
                self.predicates_from(a, mask, v.get("byte"), true);
                return Ok(());
            }
            "UPOPC" => {
                let mut b = b(self);
                if v.flag("inv_b") {
                    let all = self.const32(u32::MAX);
                    b = self.bin(BinOp::Xor, b, all);
                }
                self.un(UnOp::PopCount, b)
            }
            "USEL" => {
                let (a, b) = (self.ureg(v.get("ura")), b(self));
                let p = self.upred(v.get("ups"));
                let p = if v.flag("ups_not") { self.un(UnOp::LogicalNot, p) } else { p };
                self.select(p, a, b)
            }
            // The interpreter's: the registers the same for every lane (the block's id, its shared memory size, SRZ).
            "S2UR" => match v.get("sr") {
                sr @ (37..=39 | 50 | 255) => self.special_register(sr, &[]).expect("a register every lane shares"),
                _ => return self.unimplemented(v, Self::text(v)),
            },
            "USHF" => {
                let (a, amount, c) = (self.ureg(v.get("ura")), b(self), self.ureg(v.get("urc")));
                self.funnel_shift(a, amount, c, v.get("ty"), v.flag("wrap"), v.flag("right"), v.flag("hi"))
            }
            _ => {
                let mut value = self.ureg(v.get("urb"));
                if v.flag("inv_b") {
                    let all = self.const32(u32::MAX);
                    value = self.bin(BinOp::Xor, value, all);
                }
                self.find_leading_one(value, v.flag("signed"), v.flag("sh"))
            }
        };
        self.set_ureg(v.get("urd"), value);
        Ok(())
    }

    fn imad(&mut self, v: &View) {
        let form = v.encoding.form();
        let signed = v.flag("signed");
        let extended = v.flag("x");
        let a = self.reg(v.get("ra"));
        let b = self.slot_b(v);
        let low_form = !(form.starts_with("WIDE") || form.starts_with("HI"));
        let zero_product = [a, b].iter().any(|&factor| self.known_constant(factor) == Some(0));
        if low_form && zero_product && !extended && !Self::negated(v, 'c') && v.get("pd") == 7 {
            // ptxas's move, IMAD.MOV.U32 Rd, RZ, RZ, c: a copy (which `Lower::origin` sees through).
            let c = self.slot_c(v);
            self.set_reg(v.get("rd"), c);
            return;
        }
        let (a64, b64) = if signed {
            (self.un(UnOp::ExtendS, a), self.un(UnOp::ExtendS, b))
        } else {
            (self.un(UnOp::ExtendU, a), self.un(UnOp::ExtendU, b))
        };
        let product = self.bin(BinOp::Mul, a64, b64);
        let negated_c = Self::negated(v, 'c');
        let carry_in = if extended {
            let p = self.pred_src(v, "ps");
            let bit = self.un(UnOp::BoolToU32, p);
            Some(self.un(UnOp::ExtendU, bit))
        } else {
            None
        };
        if form.starts_with("WIDE") || form.starts_with("HI") {
            // A 64-bit addend (a register pair, or the slot's pair) to the whole product.
            let c = if Self::c_form(v) { self.wide_slot64(v, signed) } else { self.reg64(v.get("rc")) };
            // -C is ~C + 1 in 65 bits: negating zero carries out (a subtraction of 0 does not borrow).
            let mut negated_zero = None;
            let c = if negated_c {
                let all = self.const64(u64::MAX);
                let inverted = self.bin(BinOp::Xor, c, all);
                if extended {
                    inverted
                } else {
                    let zero = self.const64(0);
                    negated_zero = Some(self.cmp(Cmp::Eq, c, zero));
                    let one = self.const64(1);
                    self.bin(BinOp::Add, inverted, one)
                }
            } else {
                c
            };
            // The carry out of the 64-bit sum: it wrapped below an addend.
            let mut sum = self.bin(BinOp::Add, product, c);
            let mut carry_out = self.cmp(Cmp::LtU, sum, product);
            if let Some(negated_zero) = negated_zero {
                let t = self.bool(true);
                carry_out = self.select(negated_zero, t, carry_out);
            }
            if let Some(carry) = carry_in {
                let before = sum;
                sum = self.bin(BinOp::Add, sum, carry);
                let wrapped = self.cmp(Cmp::LtU, sum, before);
                let t = self.bool(true);
                carry_out = self.select(wrapped, t, carry_out);
            }
            if v.get("pd") != 7 {
                self.set_pred(v.get("pd"), carry_out);
            }
            if form.starts_with("WIDE") {
                self.set_reg64(v.get("rd"), sum);
            } else {
                let high = self.un(UnOp::High, sum);
                self.set_reg(v.get("rd"), high);
            }
        } else {
            let c = self.slot_c(v);
            let c = self.term(c, negated_c, extended);
            let low = self.un(UnOp::Truncate, product);
            let low = self.un(UnOp::ExtendU, low);
            let mut sum = self.bin(BinOp::Add, low, c);
            if let Some(carry) = carry_in {
                sum = self.bin(BinOp::Add, sum, carry);
            }
            let value = self.un(UnOp::Truncate, sum);
            self.set_reg(v.get("rd"), value);
            if v.get("pd") != 7 {
                let carry = self.bit(sum, 32);
                self.set_pred(v.get("pd"), carry);
            }
        }
    }

    /// LEA's source negation: two's complement, or under .X a bitwise inversion.
    fn lea_negated(&mut self, value: Value, negated: bool, extended: bool) -> Value {
        match (negated, extended) {
            (false, _) => value,
            (true, true) => {
                let all = self.const32(u32::MAX);
                self.bin(BinOp::Xor, value, all)
            }
            (true, false) => {
                let zero = self.const32(0);
                self.bin(BinOp::Sub, zero, value)
            }
        }
    }

    fn lea(&mut self, v: &View) {
        let shift = v.get("shift") as u32;
        let a = self.file_reg(v, "ra");
        let a = self.lea_negated(a, v.flag("neg_a"), v.flag("x"));
        let b = self.slot_b(v);
        let b = self.lea_negated(b, v.flag("neg_b"), v.flag("x"));
        let shifted = if v.flag("hi") {
            let high = if v.flag("sx32") {
                let thirty_one = self.const32(31);
                self.bin(BinOp::ShrS, a, thirty_one)
            } else {
                self.file_reg(v, "rc")
            };
            let pair = self.pair(a, high);
            let amount = self.const32(shift);
            let moved = self.bin(BinOp::Shl, pair, amount);
            self.un(UnOp::High, moved)
        } else {
            let amount = self.const32(shift);
            self.bin(BinOp::Shl, a, amount)
        };
        let shifted = self.un(UnOp::ExtendU, shifted);
        let b = self.un(UnOp::ExtendU, b);
        let mut sum = self.bin(BinOp::Add, shifted, b);
        if v.flag("x") {
            let p = self.file_pred(v, "ps");
            let bit = self.un(UnOp::BoolToU32, p);
            let bit = self.un(UnOp::ExtendU, bit);
            sum = self.bin(BinOp::Add, sum, bit);
        }
        let value = self.un(UnOp::Truncate, sum);
        self.set_file_reg(v, "rd", value);
        let carry = self.bit(sum, 32);
        self.set_file_pred(v, "pd", carry);
    }

    fn isetp(&mut self, v: &View) {
        let packed = v.get("bop_ex");
        let (signed, op, cmp) = (packed & 1 != 0, packed >> 1 & 3, packed >> 3);
        let (a, b) = (self.file_reg(v, "ra"), self.slot_b(v));
        let less = self.cmp(if signed { Cmp::LtS } else { Cmp::LtU }, a, b);
        let greater = self.cmp(if signed { Cmp::GtS } else { Cmp::GtU }, a, b);
        let equal = self.cmp(Cmp::Eq, a, b);
        let holds = if v.flag("ex") {
            let low = self.file_pred(v, "px");
            let equal_and_low = self.select(equal, low, equal);
            let t = self.bool(true);
            match cmp {
                0 => self.bool(false),
                1 | 3 => self.select(less, t, equal_and_low),
                2 => equal_and_low,
                4 | 6 => self.select(greater, t, equal_and_low),
                5 => {
                    let different = self.un(UnOp::LogicalNot, equal);
                    self.select(different, t, low)
                }
                _ => t,
            }
        } else {
            match cmp {
                0 => self.bool(false),
                1 => less,
                2 => equal,
                3 => self.un(UnOp::LogicalNot, greater),
                4 => greater,
                5 => self.un(UnOp::LogicalNot, equal),
                6 => self.un(UnOp::LogicalNot, less),
                _ => self.bool(true),
            }
        };
        let ps = self.file_pred(v, "ps");
        let not_holds = self.un(UnOp::LogicalNot, holds);
        let first = self.boolean(op, holds, ps);
        let second = self.boolean(op, not_holds, ps);
        self.set_file_pred(v, "pd", first);
        self.set_file_pred(v, "pq", second);
    }

    fn int_to_float(&mut self, v: &View) -> Result<(), TranslateError> {
        let opcode = v.encoding.opcode;
        let (size, signed) = if opcode == "I2FP" { (2, v.flag("signed")) } else { (v.get("src"), v.flag("signed")) };
        if v.get("dst") == 0 {
            return self.unimplemented(v, format!("{opcode} to an invalid float type"));
        }
        let wide = match (v.has("rb"), size) {
            (true, _) => self.integer_source(v.get("rb"), size, v.get("byte_b"), signed),
            (false, 3) => return self.unimplemented(v, format!("{opcode} of a 64-bit constant or immediate")),
            (false, _) => {
                let b = self.slot_b(v);
                self.integer_part(b, size, 0, signed)
            }
        };
        let dst = if opcode == "I2FP" { 2 } else { v.get("dst") };
        self.integer_result(wide, signed, dst, v.get("rnd"), v.get("rd"));
        Ok(())
    }

    fn float_to_int(&mut self, v: &View) -> Result<(), TranslateError> {
        let b = match v.get("src") {
            // The half_b-th half after the modifiers, which act on the whole register (the interpreter's `f2i`);
            // exactly in FP32.
            1 => {
                let b = self.reg(v.get("rb"));
                let b = self.float_modifiers(b, v, "neg_b", "abs_b");
                let shift = self.const32(if v.get("half_b") == 1 { 16 } else { 0 });
                let shifted = self.bin(BinOp::ShrU, b, shift);
                let mask = self.const32(0xffff);
                let half = self.bin(BinOp::And, shifted, mask);
                self.un(UnOp::HalfToF32, half)
            }
            src => {
                let raw = if src == 3 { self.reg64(v.get("rb")) } else { self.reg(v.get("rb")) };
                self.float_source(v, raw, src == 3)
            }
        };
        let (signed, size) = (v.flag("signed"), v.get("dst"));
        let width = 8u32 << size;
        let value = self.float_to_integer(b, size, signed, v.get("rnd"));
        if width == 64 {
            self.set_reg64(v.get("rd"), value);
        } else {
            self.set_reg(v.get("rd"), value);
        }
        Ok(())
    }

    /// LDG/STG reach global memory; LD/ST go by the address's window.
    fn access_by_opcode(&mut self, v: &View, address: Value, size: u64, load: bool, register: u64) {
        if matches!(v.encoding.opcode, "LD" | "ST") {
            self.generic_memory_access(address, size, load, register);
        } else {
            self.memory_access(Space::Global, address, size, load, register);
        }
    }

    fn global_address(&mut self, v: &View) -> Value {
        let wide = crate::sass::sm86::wide_global_address(v);
        let base = if wide {
            self.reg64(v.get("ra"))
        } else {
            let base = self.reg(v.get("ra"));
            self.un(UnOp::ExtendU, base)
        };
        let mut address = base;
        if v.has("no_ur") && !v.flag("no_ur") {
            let ur = v.get("ur");
            let low = self.ureg(ur);
            let high = if wide { self.ureg(ur + 1) } else { self.const32(0) };
            let uniform = self.pair(low, high);
            address = self.bin(BinOp::Add, address, uniform);
        }
        // LDGSTS names its global offset `offset_g` (its shared one `offset_s`).
        let offset = if v.has("offset_g") { v.signed("offset_g") } else { v.signed("offset") };
        let offset = self.const64(offset as u64);
        self.bin(BinOp::Add, address, offset)
    }

    /// LDGSTS (cp.async), as the interpreter's `copy_global_to_shared`: 4, 8 or 16 bytes from the global address
    /// to shared rd + offset_s where ps holds; with .ZFILL the global address's low bits (below the size) count
    /// the bytes past the copied ones, which are zeros (ptxas puts size - src_size there), as is the whole copy
    /// where ps fails. The copy is done when the instruction is (the LDGDEPBAR/DEPBAR waits have nothing to wait
    /// for).
    fn copy_global_to_shared(&mut self, v: &View) -> Result<(), TranslateError> {
        if self.program.shared_bytes == 0 {
            return self.unimplemented(v, "LDGSTS in a kernel without shared memory (a fault)");
        }
        let bytes: u32 = match v.get("size") {
            4 => 4,
            5 => 8,
            6 => 16,
            size => return self.unimplemented(v, format!("LDGSTS of size {size}")),
        };
        let global = self.global_address(v);
        let base = self.reg(v.get("rd"));
        let offset_s = self.const32(v.signed("offset_s") as u32);
        let shared = self.bin(BinOp::Add, base, offset_s);
        let ps = self.pred_src(v, "ps");
        // Each word of the copy from `global` (None: zeros), its bytes from `copied` on zeros.
        let copy = |l: &mut Self, global: Option<Value>, copied: Option<Value>| {
            for word in 0..bytes / 4 {
                let value = match global {
                    Some(global) => {
                        let at = l.const64(u64::from(4 * word));
                        let from = l.bin(BinOp::Add, global, at);
                        let value = l.op(Op::Load { space: Space::Global, address: from });
                        match copied {
                            Some(copied) => l.keep_low_bytes(value, copied, 4 * word),
                            None => value,
                        }
                    }
                    None => l.const32(0),
                };
                let at = l.const32(4 * word);
                let to = l.bin(BinOp::Add, shared, at);
                l.op(Op::Store { space: Space::Shared, address: to, value });
            }
        };
        if !v.flag("zfill") {
            self.guarded(Some(ps), |l| copy(l, Some(global), None));
            return Ok(());
        }
        // The source starts at the address rounded down to the size; the bytes copied are size - (address % size).
        self.guarded(Some(ps), |l| {
            let low = l.un(UnOp::Truncate, global);
            let mask = l.const32(bytes - 1);
            let past = l.bin(BinOp::And, low, mask);
            let total = l.const32(bytes);
            let copied = l.bin(BinOp::Sub, total, past);
            let past = l.un(UnOp::ExtendU, past);
            let aligned = l.bin(BinOp::Sub, global, past);
            copy(l, Some(aligned), Some(copied));
        });
        let failed = self.un(UnOp::LogicalNot, ps);
        self.guarded(Some(failed), |l| copy(l, None, None));
        Ok(())
    }

    /// `value`, the word at byte `start` of a copy of which `copied` bytes are real: its bytes past them zeros.
    fn keep_low_bytes(&mut self, value: Value, copied: Value, start: u32) -> Value {
        let start = self.const32(start);
        let (zero, four, eight) = (self.const32(0), self.const32(4), self.const32(8));
        let beyond = self.cmp(Cmp::LtU, copied, start);
        let within = self.bin(BinOp::Sub, copied, start);
        let within = self.select(beyond, zero, within);
        let whole = self.cmp(Cmp::GeU, within, four);
        let bits = self.bin(BinOp::Mul, within, eight);
        let one = self.const32(1);
        let power = self.bin(BinOp::Shl, one, bits);
        let partial = self.bin(BinOp::Sub, power, one);
        let all = self.const32(u32::MAX);
        let mask = self.select(whole, all, partial);
        self.bin(BinOp::And, value, mask)
    }

    fn global_access(&mut self, v: &View) -> Result<(), TranslateError> {
        let size = v.get("size");
        if size > 6 {
            return self.unimplemented(v, format!("{} of size {size}", v.encoding.opcode));
        }
        let address = self.global_address(v);
        let load = matches!(v.encoding.opcode, "LDG" | "LD");
        let register = if load { v.get("rd") } else { v.get("rb") };
        let predicate = 7 ^ v.get("ps_xor7");
        if load && (predicate != 7 || v.flag("ps_not")) {
            // LDG with a predicate operand: where it is false nothing is read and the registers get zeros.
            self.zero_registers(register, size);
            let p = self.pred(predicate);
            let enabled = if v.flag("ps_not") { self.un(UnOp::LogicalNot, p) } else { p };
            self.guarded(Some(enabled), |l| l.access_by_opcode(v, address, size, load, register));
        } else {
            self.access_by_opcode(v, address, size, load, register);
        }
        Ok(())
    }

    fn local_access(&mut self, v: &View) -> Result<(), TranslateError> {
        let size = v.get("size");
        if size > 6 {
            return self.unimplemented(v, format!("{} of size {size}", v.encoding.opcode));
        }
        let space = if matches!(v.encoding.opcode, "LDS" | "STS") { Space::Shared } else { Space::Local };
        let scale = match v.get("scale") {
            1 => 4,
            2 => 8,
            3 => 16,
            _ => 1,
        };
        let base = self.reg(v.get("ra"));
        let base = if scale == 1 {
            base
        } else {
            let scale = self.const32(scale);
            self.bin(BinOp::Mul, base, scale)
        };
        let offset = self.const32(v.signed("offset") as u32);
        let address = self.bin(BinOp::Add, base, offset);
        let load = matches!(v.encoding.opcode, "LDS" | "LDL");
        let register = if load { v.get("rd") } else { v.get("rb") };
        self.memory_access(space, address, size, load, register);
        Ok(())
    }
}

/// TMML's operands (`Lower::lod_query`), laid out as TEX's: the layer and coordinates from ra, the handle
/// c[bank][4 tex] or, for TMML.B, rb; components 0 and 1 to rd and rd+1, 2 and 3 to rd2 and rd2+1. NDV changes
/// nothing a translation computes (as for TEX).
fn lod_query_operands(v: &View) -> Result<(LodQuery, [u64; 4]), String> {
    let (dim, array) =
        crate::sass::texture::SM86_TARGETS[v.get("target") as usize & 7].ok_or("the invalid target 6")?;
    let source = match v.encoding.form() {
        "B" => HandleSource::Register(v.get("rb")),
        _ if v.flag("bindless") => return Err("bit 59 (.B) in the bound form".into()),
        _ => HandleSource::Constant { bank: v.get("bank") as u8, offset: 4 * v.get("tex") as u32 },
    };
    let (rd, rd2) = (v.get("rd"), v.get("rd2"));
    let query = LodQuery { source, dim, array, first: v.get("ra"), mask: v.get("mask") as u8 };
    Ok((query, [rd, rd + 1, rd2, rd2 + 1]))
}
