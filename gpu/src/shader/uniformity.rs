//! Divergence: which branches may go different ways for the threads of one workgroup, and so whether every
//! thread meets every barrier (then the structured layout can keep barriers where they stand, as SPIR-V requires
//! them: in uniform control flow).
//!
//! A value is uniform when it is the same for every thread: constants, constant-bank words at uniform offsets,
//! the block's id, and arithmetic on uniform values; memory, thread ids, clocks and everything else are not.
//! Registers (predicates, uniform registers, the condition code) are followed through the CFG: a place is
//! varying after a store of a varying value, or any store under a guard that is not uniform, until a uniform
//! store every thread runs; at a join, varying if varying on any incoming edge. A branch whose condition is
//! not uniform (an exit some threads take included) makes a divergent region: the blocks reachable from it
//! before its immediate post-dominator (the virtual exit where threads may end on some of its paths); every
//! place the region stores to is varying in the region and after it (threads took different paths there).
//! Iterated to a fixed point, so the answer errs only towards "divergent".

use super::ir::{Op, Program, Special, Stmt, Terminator, Value};
use std::collections::{HashMap, HashSet};

/// A place that holds a value across blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    Register(u8),
    Predicate(u8),
    UniformRegister(u8),
    ConditionCode,
}

/// Whether every thread of a workgroup meets each of the program's barriers the same number of times.
pub fn barriers_met_by_every_thread(program: &Program) -> bool {
    let graph = Graph::new(program);
    let blocks = program.blocks.len();
    let mut divergent: Vec<usize> = Vec::new();
    loop {
        // What the divergent regions store to is varying in them and where they end.
        let mut joined: Vec<HashSet<Place>> = vec![HashSet::new(); blocks];
        for &branch in &divergent {
            let region = graph.divergent_region(&[branch]);
            let mut stored = HashSet::new();
            for &index in &region {
                writes(&program.blocks[index].body, &mut stored);
            }
            for index in region.into_iter().chain(graph.immediate_post_dominator(branch)) {
                joined[index].extend(stored.iter().copied());
            }
        }
        // Varying places at each block's entry, to a fixed point.
        let mut entry: Vec<HashSet<Place>> = joined.clone();
        let mut work: Vec<usize> = (0..blocks).collect();
        while let Some(index) = work.pop() {
            let mut varying = entry[index].clone();
            visit(&program.blocks[index].body, false, &mut HashMap::new(), &mut varying);
            for &successor in &graph.successors[index] {
                if successor < blocks && !varying.is_subset(&entry[successor]) {
                    entry[successor].extend(varying.iter().copied());
                    work.push(successor);
                }
            }
        }
        let mut found = divergent.clone();
        for (index, block) in program.blocks.iter().enumerate() {
            let condition = match block.terminator {
                Terminator::Branch(cond, ..) | Terminator::Exit(Some((cond, _))) => cond,
                _ => continue,
            };
            let mut uniform = HashMap::new();
            visit(&block.body, false, &mut uniform, &mut entry[index].clone());
            if !uniform.get(&condition).copied().unwrap_or(false) && !found.contains(&index) {
                found.push(index);
            }
        }
        if found.len() == divergent.len() {
            let barrier = |index: usize| matches!(program.blocks[index].terminator, Terminator::Barrier(_));
            return !graph.divergent_region(&divergent).into_iter().any(barrier);
        }
        divergent = found;
    }
}

/// Records which values of `stmts` are uniform given the places `varying` at their start, and leaves in
/// `varying` the places varying at their end.
fn visit(stmts: &[Stmt], guarded: bool, uniform: &mut HashMap<Value, bool>, varying: &mut HashSet<Place>) {
    for stmt in stmts {
        match stmt {
            Stmt::If(cond, body) => {
                let divergent = guarded || !uniform.get(cond).copied().unwrap_or(false);
                visit(body, divergent, uniform, varying);
            }
            Stmt::Op(value, op) => {
                let is = |v: &Value| uniform.get(v).copied().unwrap_or(false);
                let place_uniform = |place: Place| !varying.contains(&place);
                let stored = match *op {
                    Op::SetReg(r, v) => Some((Place::Register(r), v)),
                    Op::SetPred(p, v) => Some((Place::Predicate(p), v)),
                    Op::SetUReg(u, v) => Some((Place::UniformRegister(u), v)),
                    Op::SetCc(v) => Some((Place::ConditionCode, v)),
                    _ => None,
                };
                if let Some((place, v)) = stored {
                    // A store under a guard may not run (a uniform guard: for no thread), so it cannot make the
                    // place uniform; one outside every guard runs for every thread here.
                    if guarded || !is(&v) {
                        varying.insert(place);
                    } else {
                        varying.remove(&place);
                    }
                    continue;
                }
                let result = match op {
                    Op::Const(..) | Op::Special(Special::CtaId(_)) => true,
                    Op::GetReg(r) => place_uniform(Place::Register(*r)),
                    Op::GetPred(p) => place_uniform(Place::Predicate(*p)),
                    Op::GetUReg(u) => place_uniform(Place::UniformRegister(*u)),
                    Op::GetCc => place_uniform(Place::ConditionCode),
                    Op::Binary(_, a, b) | Op::Compare(_, a, b) => is(a) && is(b),
                    Op::Unary(_, a) | Op::Convert(_, a) | Op::F32ToHalf(_, a) | Op::F64ToF32(_, a) => is(a),
                    Op::Select(c, a, b) => is(c) && is(a) && is(b),
                    Op::FArith(_, _, operands) | Op::HalfArith(_, _, operands) => operands.iter().all(is),
                    Op::ConstantLoad { offset, .. } => is(offset),
                    _ => false,
                };
                uniform.insert(*value, result);
            }
        }
    }
}

/// Marks varying every place `stmts` store to.
fn writes(stmts: &[Stmt], varying: &mut HashSet<Place>) {
    for stmt in stmts {
        match stmt {
            Stmt::If(_, body) => writes(body, varying),
            Stmt::Op(_, Op::SetReg(r, _)) => _ = varying.insert(Place::Register(*r)),
            Stmt::Op(_, Op::SetPred(p, _)) => _ = varying.insert(Place::Predicate(*p)),
            Stmt::Op(_, Op::SetUReg(u, _)) => _ = varying.insert(Place::UniformRegister(*u)),
            Stmt::Op(_, Op::SetCc(_)) => _ = varying.insert(Place::ConditionCode),
            Stmt::Op(..) => {}
        }
    }
}

/// The CFG with a virtual exit (index `exit`) after every block where threads may end, and post-dominators.
struct Graph {
    successors: Vec<Vec<usize>>,
    /// Strict post-dominators of each block, as bit sets over the blocks and the exit.
    post_dominators: Vec<Vec<u64>>,
}

impl Graph {
    fn new(program: &Program) -> Graph {
        let index: HashMap<u32, usize> = program.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
        let exit = program.blocks.len();
        let nodes = exit + 1;
        let to = |target: u32| index.get(&target).copied().unwrap_or(exit);
        let mut successors: Vec<Vec<usize>> = program
            .blocks
            .iter()
            .map(|block| match block.terminator {
                Terminator::Jump(t) | Terminator::Barrier(t) => vec![to(t)],
                Terminator::Branch(_, t, f) => vec![to(t), to(f)],
                Terminator::Exit(None) => vec![exit],
                Terminator::Exit(Some((_, otherwise))) => vec![exit, to(otherwise)],
                // Anywhere: every block and the exit.
                Terminator::JumpIndirect(_) => (0..nodes).collect(),
            })
            .collect();
        successors.push(Vec::new());
        // Post-dominators by iteration: pdom(b) = {b} + the intersection over b's successors; blocks that cannot
        // reach the exit keep only themselves (their regions then run on, which errs towards "divergent").
        let words = nodes.div_ceil(64);
        let single = |node: usize| {
            let mut set = vec![0u64; words];
            set[node / 64] |= 1 << (node % 64);
            set
        };
        let mut reaches_exit = vec![false; nodes];
        reaches_exit[exit] = true;
        let mut changed = true;
        while changed {
            changed = false;
            for node in 0..exit {
                if !reaches_exit[node] && successors[node].iter().any(|&s| reaches_exit[s]) {
                    reaches_exit[node] = true;
                    changed = true;
                }
            }
        }
        let mut sets: Vec<Vec<u64>> = (0..nodes)
            .map(|node| if reaches_exit[node] && node != exit { vec![!0; words] } else { single(node) })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for node in (0..exit).filter(|&node| reaches_exit[node]) {
                let mut set = vec![!0u64; words];
                for &s in &successors[node] {
                    for (word, other) in set.iter_mut().zip(&sets[s]) {
                        *word &= other;
                    }
                }
                set[node / 64] |= 1 << (node % 64);
                if set != sets[node] {
                    sets[node] = set;
                    changed = true;
                }
            }
        }
        let post_dominators = sets
            .into_iter()
            .enumerate()
            .map(|(node, mut set)| {
                set[node / 64] &= !(1 << (node % 64));
                set
            })
            .collect();
        Graph { successors, post_dominators }
    }

    /// The nearest strict post-dominator of `block` that is a block (`None`: the virtual exit, or none).
    fn immediate_post_dominator(&self, block: usize) -> Option<usize> {
        let exit = self.successors.len() - 1;
        let set = &self.post_dominators[block];
        let count = |node: usize| self.post_dominators[node].iter().map(|w| w.count_ones()).sum::<u32>();
        // Post-dominators lie on a chain: the nearest has the most post-dominators of its own.
        (0..exit).filter(|&node| set[node / 64] >> (node % 64) & 1 == 1).max_by_key(|&node| count(node))
    }

    /// The blocks of the divergent regions of `branches`: reachable from each branch's successors without
    /// passing one of its strict post-dominators.
    fn divergent_region(&self, branches: &[usize]) -> Vec<usize> {
        let exit = self.successors.len() - 1;
        let mut region = vec![false; exit];
        for &branch in branches {
            let stops = &self.post_dominators[branch];
            let stop = |node: usize| stops[node / 64] >> (node % 64) & 1 == 1;
            let mut seen = vec![false; exit + 1];
            let mut work: Vec<usize> = self.successors[branch].clone();
            while let Some(node) = work.pop() {
                if node == exit || seen[node] || stop(node) {
                    continue;
                }
                seen[node] = true;
                region[node] = true;
                work.extend(&self.successors[node]);
            }
        }
        (0..exit).filter(|&node| region[node]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::barriers_met_by_every_thread;
    use crate::shader::ir::build::{Body, block};
    use crate::shader::ir::{BinOp, Cmp, Op, Program, Space, Special, Stmt, Terminator, Value};

    /// A thread-varying value (the thread's index).
    fn varying(b: &mut Body) -> Value {
        b.op(Op::Special(Special::ThreadId(0)))
    }

    /// Block 0 sets R1 by `set_r1` and goes on to `branch_on_r1`'s blocks.
    fn barrier_behind_r1(set_r1: impl FnOnce(&mut Body)) -> Program {
        let mut program = Program::default();
        block(&mut program, 0, |b| {
            set_r1(b);
            Terminator::Jump(0x10)
        });
        branch_on_r1(&mut program);
        program
    }

    /// Block 0x10 branches on R1 != 0 to a barrier (0x20) or past it (0x30), where the thread ends.
    fn branch_on_r1(program: &mut Program) {
        block(program, 0x10, |b| {
            let r1 = b.op(Op::GetReg(1));
            let zero = b.u32(0);
            let taken = b.op(Op::Compare(Cmp::Ne, r1, zero));
            Terminator::Branch(taken, 0x20, 0x30)
        });
        block(program, 0x20, |_| Terminator::Barrier(0x30));
        block(program, 0x30, |_| Terminator::Exit(None));
    }

    #[test]
    fn a_uniform_store_after_a_varying_one_makes_the_register_uniform() {
        let program = barrier_behind_r1(|b| {
            let tid = varying(b);
            b.op(Op::SetReg(1, tid));
            let bank = b.u32(0x10);
            let word = b.op(Op::ConstantLoad { bank: 0, offset: bank });
            b.op(Op::SetReg(1, word));
        });
        assert!(barriers_met_by_every_thread(&program));
        let program = barrier_behind_r1(|b| {
            let bank = b.u32(0x10);
            let word = b.op(Op::ConstantLoad { bank: 0, offset: bank });
            b.op(Op::SetReg(1, word));
            let tid = varying(b);
            b.op(Op::SetReg(1, tid));
        });
        assert!(!barriers_met_by_every_thread(&program));
    }

    #[test]
    fn memory_and_guarded_stores_are_varying() {
        let loaded = barrier_behind_r1(|b| {
            let address = b.u32(0);
            let word = b.op(Op::Load { space: Space::Shared, address });
            b.op(Op::SetReg(1, word));
        });
        assert!(!barriers_met_by_every_thread(&loaded));
        // A constant stored only where the thread's index is odd.
        let mut guarded = barrier_behind_r1(|_| {});
        let mut body = Body { program: &mut guarded, stmts: Vec::new() };
        let tid = varying(&mut body);
        let one = body.u32(1);
        let odd = body.binary(BinOp::And, tid, one);
        let zero = body.u32(0);
        let is_odd = body.op(Op::Compare(Cmp::Ne, odd, zero));
        let mut stmts = body.stmts;
        let mut inner = Body { program: &mut guarded, stmts: Vec::new() };
        let seven = inner.u32(7);
        inner.op(Op::SetReg(1, seven));
        let inner = inner.stmts;
        stmts.push(Stmt::If(is_odd, inner));
        guarded.blocks[0].body = stmts;
        assert!(!barriers_met_by_every_thread(&guarded));
    }

    /// Two constants stored on the two sides of a branch on the thread's index: each is uniform, but after the
    /// join threads hold different ones.
    #[test]
    fn stores_in_a_divergent_region_are_varying_after_it() {
        let mut program = Program::default();
        block(&mut program, 0, |b| {
            let tid = varying(b);
            let two = b.u32(2);
            let low = b.op(Op::Compare(Cmp::LtU, tid, two));
            Terminator::Branch(low, 0x40, 0x50)
        });
        for (start, value) in [(0x40, 1), (0x50, 0)] {
            block(&mut program, start, |b| {
                let v = b.u32(value);
                b.op(Op::SetReg(1, v));
                Terminator::Jump(0x10)
            });
        }
        branch_on_r1(&mut program);
        assert!(!barriers_met_by_every_thread(&program));
    }
}
