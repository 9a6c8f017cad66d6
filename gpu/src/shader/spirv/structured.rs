//! Structured control flow: `structure::Code` as SPIR-V constructs.
//!
//! A `Loop` is a SPIR-V loop whose continue target branches back to its header; a `Scope` is a loop that runs
//! once (its continue target is unreachable), so that `Break` is a loop break; the whole program is one more
//! scope, which `Exit` leaves for the code after it (a graphics stage's epilogue). SPIR-V lets a branch leave
//! only the innermost loop, so a `Break`, `Continue` or `Exit` aimed at an outer construct stores that
//! construct's number in the `pending` variable and breaks; after each construct that such an exit crossed,
//! a check either completes it (the construct right outside is the target) or breaks on outwards.
//!
//! Invariant: `pending` is 0 whenever code of the program's blocks runs.

use super::{BARRIER_SEMANTICS, Emitter, WORKGROUP_SCOPE};
use crate::shader::ir::Program;
use crate::shader::structure::Code;
use rspirv::spirv::{SelectionControl, Word};
use std::collections::{BTreeSet, HashMap};

/// What a multi-level exit aims at: a construct's number (0 means none is pending).
type Target = u32;

/// A construct that encloses the code being emitted.
struct Construct {
    /// The offset that `Continue` (a loop) or `Break` (a scope) names; `None` for the program's scope.
    label: Option<u32>,
    is_loop: bool,
    number: Target,
    header: Word,
    merge: Word,
    continue_: Word,
    /// The targets of multi-level exits that break out of this construct (to be carried on after it).
    crossing: BTreeSet<Target>,
}

pub(super) struct Structured {
    constructs: Vec<Construct>,
    next_number: Target,
    /// The index of each block by its offset.
    blocks: HashMap<u32, usize>,
}

impl Structured {
    pub(super) fn new(program: &Program) -> Self {
        let blocks = program.blocks.iter().enumerate().map(|(index, block)| (block.start, index)).collect();
        Structured { constructs: Vec::new(), next_number: 1, blocks }
    }
}

impl Emitter<'_> {
    /// The program as constructs inside the program's scope. Leaves the builder in the block after it.
    pub(super) fn structured(&mut self, code: &[Code]) {
        self.open_construct(None, false);
        if self.constructs_code(code) {
            let merge = self.structured_state().constructs.last().expect("the program's scope").merge;
            self.b.branch(merge).expect("in a block");
        }
        self.close_construct();
    }

    fn structured_state(&mut self) -> &mut Structured {
        self.structured.as_mut().expect("a structured program")
    }

    /// Emits `code`; returns whether control reaches its end (never, for a construct's body).
    fn constructs_code(&mut self, code: &[Code]) -> bool {
        for c in code {
            match c {
                Code::Statements(start) => {
                    let program = self.program;
                    let index = self.structured_state().blocks[start];
                    self.stmts(&program.blocks[index].body);
                }
                Code::If(cond, then, otherwise) => {
                    let cond = self.values[cond];
                    let (then_label, otherwise_label, merge) = (self.b.id(), self.b.id(), self.b.id());
                    self.b.selection_merge(merge, SelectionControl::NONE).expect("in a block");
                    self.b.branch_conditional(cond, then_label, otherwise_label, []).expect("in a block");
                    let mut reached = false;
                    for (label, arm) in [(then_label, then), (otherwise_label, otherwise)] {
                        self.b.begin_block(Some(label)).expect("in a function");
                        if self.constructs_code(arm) {
                            self.b.branch(merge).expect("in a block");
                            reached = true;
                        }
                    }
                    self.b.begin_block(Some(merge)).expect("in a function");
                    if !reached {
                        self.b.unreachable().expect("in a block");
                        return false;
                    }
                }
                Code::Loop(label, body) | Code::Scope(label, body) => {
                    self.open_construct(Some(*label), matches!(c, Code::Loop(..)));
                    if self.constructs_code(body) {
                        self.b.unreachable().expect("in a block");
                    }
                    if !self.close_construct() {
                        return false;
                    }
                }
                Code::Continue(label) => {
                    self.leave_for(Some(*label), true);
                    return false;
                }
                Code::Break(label) => {
                    self.leave_for(Some(*label), false);
                    return false;
                }
                Code::Exit => {
                    self.leave_for(None, false);
                    return false;
                }
                Code::Barrier => {
                    let (scope, semantics) = (self.u32_const(WORKGROUP_SCOPE), self.u32_const(BARRIER_SEMANTICS));
                    self.b.control_barrier(scope, scope, semantics).expect("in a block");
                }
            }
        }
        true
    }

    /// Ends the block with a loop construct's header and starts its body.
    fn open_construct(&mut self, label: Option<u32>, is_loop: bool) {
        let (header, continue_, merge) = self.open_loop();
        let state = self.structured_state();
        let number = state.next_number;
        state.next_number += 1;
        state.constructs.push(Construct {
            label,
            is_loop,
            number,
            header,
            merge,
            continue_,
            crossing: BTreeSet::new(),
        });
    }

    /// After the innermost construct's body (its block closed): its continue target and merge block, then the
    /// check that carries the exits that crossed it. Returns whether control goes on after it.
    fn close_construct(&mut self) -> bool {
        let state = self.structured_state();
        let construct = state.constructs.pop().expect("a construct is open");
        // The continue target: a loop's goes back to the header (the one predecessor of its body); a scope's is
        // never reached.
        self.b.begin_block(Some(construct.continue_)).expect("in a function");
        self.b.branch(construct.header).expect("in a block");
        self.b.begin_block(Some(construct.merge)).expect("in a function");
        let Some(enclosing) = self.structured_state().constructs.last() else {
            // The program's scope: on to what follows the program.
            return true;
        };
        let (enclosing_number, enclosing_merge) = (enclosing.number, enclosing.merge);
        let arriving = construct.crossing.contains(&enclosing_number);
        let beyond: Vec<Target> = construct.crossing.iter().copied().filter(|&t| t != enclosing_number).collect();
        if !arriving && beyond.is_empty() {
            if construct.is_loop {
                // Only exits leave a loop, and none did.
                self.b.unreachable().expect("in a block");
                return false;
            }
            return true;
        }
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let pending = self.b.load(u32_, None, self.pending, None, []).expect("in a block");
        let zero = self.u32_const(0);
        let go_on = self.b.id();
        if arriving {
            // The construct right outside is the target: clear `pending` and complete the exit there.
            let (arrive, otherwise) = (self.b.id(), self.b.id());
            let number = self.u32_const(enclosing_number);
            let here = self.b.i_equal(bool_, None, pending, number).expect("in a block");
            self.b.selection_merge(go_on, SelectionControl::NONE).expect("in a block");
            self.b.branch_conditional(here, arrive, otherwise, []).expect("in a block");
            self.b.begin_block(Some(arrive)).expect("in a function");
            self.b.store(self.pending, zero, None, []).expect("in a block");
            let enclosing = self.structured_state().constructs.last().expect("checked above");
            let target = if enclosing.is_loop { enclosing.continue_ } else { enclosing.merge };
            self.b.branch(target).expect("in a block");
            self.b.begin_block(Some(otherwise)).expect("in a function");
            if !beyond.is_empty() {
                let stay = self.b.id();
                self.break_if_pending(pending, enclosing_merge, stay);
                self.b.begin_block(Some(stay)).expect("in a function");
            }
            self.b.branch(go_on).expect("in a block");
        } else {
            self.break_if_pending(pending, enclosing_merge, go_on);
        }
        if !beyond.is_empty() {
            let enclosing = self.structured_state().constructs.last_mut().expect("checked above");
            enclosing.crossing.extend(beyond);
        }
        self.b.begin_block(Some(go_on)).expect("in a function");
        if construct.is_loop {
            // After a loop, control goes on only by an exit, which the check above completed or carried on.
            self.b.unreachable().expect("in a block");
            return false;
        }
        true
    }

    /// A selection: to `merge` (the enclosing construct's: break) while an exit is pending, else to `stay`, its
    /// merge block (which the caller begins).
    fn break_if_pending(&mut self, pending: Word, merge: Word, stay: Word) {
        let zero = self.u32_const(0);
        let leaving = self.b.i_not_equal(self.t.bool, None, pending, zero).expect("in a block");
        let leave = self.b.id();
        self.b.selection_merge(stay, SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(leaving, leave, stay, []).expect("in a block");
        self.b.begin_block(Some(leave)).expect("in a function");
        self.b.branch(merge).expect("in a block");
    }

    /// A branch to the construct `label` names (the program's scope for `None`): its continue target when
    /// `continue_`, else its merge. Ends the block.
    fn leave_for(&mut self, label: Option<u32>, continue_: bool) {
        let state = self.structured_state();
        let depth = state
            .constructs
            .iter()
            .rposition(|c| c.label == label && (label.is_none() || c.is_loop == continue_))
            .expect("structure: every Continue and Break is inside its construct");
        let innermost = state.constructs.len() - 1;
        if depth == innermost {
            let construct = &state.constructs[innermost];
            let target = if continue_ { construct.continue_ } else { construct.merge };
            self.b.branch(target).expect("in a block");
            return;
        }
        let number = state.constructs[depth].number;
        let innermost_merge = state.constructs[innermost].merge;
        state.constructs[innermost].crossing.insert(number);
        let number = self.u32_const(number);
        self.b.store(self.pending, number, None, []).expect("in a block");
        self.b.branch(innermost_merge).expect("in a block");
    }
}

#[cfg(test)]
mod tests {
    use super::super::emit;
    use crate::shader::ir::build::{Body, block};
    use crate::shader::ir::{BinOp, Cmp, Op, Program, Space, Special, Terminator, Type, UnOp, Value};
    use crate::shader::structure::{ControlFlow, Random, random_terminators, structurise};
    use crate::shader::{GlobalMemory, Layout, Stage};
    use crate::vulkan::ComputeDevice;

    const THREADS: u32 = 32;
    /// Blocks a thread runs before it stops (loops may not end).
    const LIMIT: u32 = 40;
    /// Where the threads start: they seed their decisions, then go to block 0.
    const ENTRY: u32 = 0x8000;

    /// The decision generator both sides run: R0 = R0 * 1103515245 + 12345, deciding bit 16.
    fn next_decision(r0: &mut u32) -> bool {
        *r0 = r0.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        *r0 >> 16 & 1 == 1
    }

    /// The random CFG as a kernel: block s (at 0x10 k) stops the thread once it has run LIMIT blocks, else goes
    /// to s + 8, which writes s to the thread's trace at out + 4 (thread (LIMIT + 1) + 1 + count), the count
    /// after it at out + 4 thread (LIMIT + 1), and ends in the random terminator, deciding by `next_decision`.
    fn kernel(terminators: &[Terminator], out: u64) -> Program {
        let mut program = Program { entry: ENTRY, ..Program::default() };
        block(&mut program, ENTRY, |b| {
            let tid = b.op(Op::Special(Special::ThreadId(0)));
            let golden = b.u32(0x9e37_79b1);
            let seed = b.binary(BinOp::Mul, tid, golden);
            b.op(Op::SetReg(0, seed));
            Terminator::Jump(0)
        });
        for (k, terminator) in terminators.iter().enumerate() {
            let start = 0x10 * k as u32;
            block(&mut program, start, |b| {
                let count = b.op(Op::GetReg(1));
                let limit = b.u32(LIMIT);
                let over = b.op(Op::Compare(Cmp::GeU, count, limit));
                Terminator::Exit(Some((over, start + 8)))
            });
            block(&mut program, start + 8, |b| {
                let count = b.op(Op::GetReg(1));
                let tid = b.op(Op::Special(Special::ThreadId(0)));
                let words = b.u32(LIMIT + 1);
                let first = b.binary(BinOp::Mul, tid, words);
                let one = b.u32(1);
                let slot = b.binary(BinOp::Add, first, one);
                let slot = b.binary(BinOp::Add, slot, count);
                let four = b.u32(4);
                let base = b.op(Op::Const(Type::U64, out));
                let store = |b: &mut Body, word: Value, value: Value| {
                    let offset = b.binary(BinOp::Mul, word, four);
                    let offset = b.op(Op::Unary(UnOp::ExtendU, offset));
                    let address = b.binary(BinOp::Add, base, offset);
                    b.op(Op::Store { space: Space::Global, address, value });
                };
                let name = b.u32(start);
                store(b, slot, name);
                let counted = b.binary(BinOp::Add, count, one);
                b.op(Op::SetReg(1, counted));
                store(b, first, counted);
                let decide = |b: &mut Body| {
                    let r0 = b.op(Op::GetReg(0));
                    let (a, c) = (b.u32(1_103_515_245), b.u32(12_345));
                    let r0 = b.binary(BinOp::Mul, r0, a);
                    let r0 = b.binary(BinOp::Add, r0, c);
                    b.op(Op::SetReg(0, r0));
                    let sixteen = b.u32(16);
                    let bit = b.binary(BinOp::ShrU, r0, sixteen);
                    let bit = b.binary(BinOp::And, bit, one);
                    let zero = b.u32(0);
                    b.op(Op::Compare(Cmp::Ne, bit, zero))
                };
                match *terminator {
                    Terminator::Branch(_, t, f) => Terminator::Branch(decide(b), t, f),
                    Terminator::Exit(Some((_, otherwise))) => Terminator::Exit(Some((decide(b), otherwise))),
                    ref other => other.clone(),
                }
            });
        }
        program
    }

    /// What a thread's trace must be: the CFG run on the CPU with the same decisions.
    fn expected_trace(terminators: &[Terminator], thread: u32) -> Vec<u32> {
        let mut r0 = thread.wrapping_mul(0x9e37_79b1);
        let (mut trace, mut at) = (Vec::new(), Some(0u32));
        while let Some(start) = at {
            let Some(terminator) = terminators.get(start as usize / 0x10) else { break };
            if trace.len() == LIMIT as usize {
                break;
            }
            trace.push(start);
            at = match *terminator {
                Terminator::Jump(t) => Some(t),
                Terminator::Branch(_, t, f) => Some(if next_decision(&mut r0) { t } else { f }),
                Terminator::Exit(None) => None,
                Terminator::Exit(Some((_, otherwise))) => (!next_decision(&mut r0)).then_some(otherwise),
                Terminator::JumpIndirect(_) | Terminator::Barrier(_) => unreachable!("not generated"),
            };
        }
        trace
    }

    /// Random CFGs laid out as constructs run on the Vulkan device (lavapipe in CI) exactly as the CFG does on the
    /// CPU, thread by thread: every break, continue and exit through `pending` lands where the CFG goes.
    #[test]
    fn random_structured_cfgs_run_on_vulkan_as_their_cfgs_do() {
        let device = ComputeDevice::shared_for_tests();
        let bytes = u64::from(THREADS * (LIMIT + 1) * 4);
        let out = device.buffer(bytes).unwrap();
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        let mut run = 0;
        while run < 300 {
            let terminators = random_terminators(&mut random, Value(0));
            let program = kernel(&terminators, out.address());
            let ControlFlow::Structured(code) = structurise(&program) else { continue };
            run += 1;
            device.write(&out, 0, &vec![0; bytes as usize]).unwrap();
            let stage = Stage::Compute { local_size: [THREADS, 1, 1] };
            let (spirv, _) = emit(&program, &stage, &GlobalMemory::Device, &[], Layout::Constructs);
            device.dispatch(&spirv, "main", &[], [1, 1, 1]).unwrap();
            let words: Vec<u32> =
                device.read(&out).unwrap().chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
            for thread in 0..THREADS {
                let record = &words[(thread * (LIMIT + 1)) as usize..((thread + 1) * (LIMIT + 1)) as usize];
                let trace = &record[1..1 + record[0] as usize];
                let expected = expected_trace(&terminators, thread);
                let shown = ControlFlow::Structured(code.clone());
                assert_eq!(trace, expected, "thread {thread} of {terminators:?}:\n{shown}");
            }
        }
    }
}
