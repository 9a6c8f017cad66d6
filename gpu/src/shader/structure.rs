//! Structurisation: a program's control-flow graph as a tree of nested constructs (loops, scopes, ifs) that
//! SPIR-V's structured control flow can express, or the reason it cannot (then the emitter runs the blocks in a
//! dispatcher loop, which takes any CFG).
//!
//! The algorithm is Norman Ramsey's ("Beyond Relooper", ICFP 2022) for reducible CFGs, over the dominator tree
//! in reverse postorder:
//! - a block that is the target of a back edge is a loop header: its code is a `Loop`, and a branch back to it
//!   is `Continue`;
//! - a block with two or more forward in-edges is a merge node: it follows a `Scope` inside its immediate
//!   dominator's code, and a branch to it is `Break` (leave the scope); its code comes after the scope;
//! - any other block has one forward in-edge, from its immediate dominator, and its code is placed right there.
//!
//! Every block is placed exactly once, so nothing is duplicated, and every path through a construct's body ends
//! in `Continue`, `Break` or `Exit`: control never falls off the end of a body.
//!
//! Invariants the emitter relies on:
//! - `Continue(h)` is inside `Loop(h)`, `Break(f)` inside `Scope(f)` (not necessarily the innermost
//!   construct: the emitter carries multi-level exits outwards through a variable);
//! - an `If`'s condition is defined in the `Statements` just before it (values do not cross blocks).

use super::ir::{Op, Program, Terminator, Value};
use super::uniformity;
use std::collections::HashMap;
use std::fmt;

/// The structured form of a program's control flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    /// The statements of the block at this offset (its terminator is the code after it).
    Statements(u32),
    If(Value, Vec<Code>, Vec<Code>),
    /// The body runs again at each `Continue` of this header's offset.
    Loop(u32, Vec<Code>),
    /// `Break` of this offset leaves the body; the code of the block at the offset comes after the scope.
    Scope(u32, Vec<Code>),
    Continue(u32),
    Break(u32),
    /// The thread ends.
    Exit,
    /// Every thread of the workgroup meets here (BAR.SYNC), shared memory ordered across it; only in programs
    /// where every thread meets every barrier, as SPIR-V requires (`uniformity`).
    Barrier,
}

/// How the emitter lays out a program's control flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlFlow {
    Structured(Vec<Code>),
    /// One loop around a switch on the current block, and why the program needs it.
    Dispatcher(&'static str),
}

/// Constructs nest no deeper than this (the emitter recurses through them); deeper programs take the dispatcher.
const MAX_NESTING: usize = 512;

/// The most blocks a program is laid out as constructs with (dominators cost up to the square of the count on
/// long chains), and the most whose barriers divergence analysis follows (up to the cube): past them, the
/// dispatcher, whatever the program (real shaders have hundreds).
const MAX_BLOCKS: usize = 16384;
const MAX_ANALYSED_BLOCKS: usize = 2048;

/// Why a program whose barriers divergence analysis cannot show every thread meets takes the dispatcher.
const NOT_EVERY_THREAD: &str =
    "a barrier not every thread may meet (a branch, loop or exit that may divide the threads)";

/// The program's control flow as constructs, when its CFG is reducible, has no indirect jumps, and every thread
/// meets each barrier (warp exchanges and barrier reductions need the dispatcher's phase loop).
pub fn structurise(program: &Program) -> ControlFlow {
    if program.any_op(&|op| matches!(op, Op::WarpPublish(_) | Op::BlockReduce(_))) {
        return ControlFlow::Dispatcher("a warp exchange or a barrier reduction (the phase loop)");
    }
    if program.blocks.len() > MAX_BLOCKS {
        return ControlFlow::Dispatcher("more blocks than the structuriser lays out");
    }
    let cfg = match Cfg::new(program) {
        Ok(cfg) => cfg,
        Err(why) => return ControlFlow::Dispatcher(why),
    };
    let mut placer = Placer { cfg: &cfg, program, depth: 0 };
    let Some(code) = placer.tree(cfg.entry) else { return ControlFlow::Dispatcher("constructs nested too deeply") };
    let has_barriers = program.blocks.iter().any(|block| matches!(block.terminator, Terminator::Barrier(_)));
    if has_barriers && program.blocks.len() > MAX_ANALYSED_BLOCKS {
        return ControlFlow::Dispatcher("barriers in more blocks than divergence analysis follows");
    }
    if has_barriers && !uniformity::barriers_met_by_every_thread(program) {
        return ControlFlow::Dispatcher(NOT_EVERY_THREAD);
    }
    ControlFlow::Structured(code)
}

/// The reachable blocks, their order and dominators.
struct Cfg {
    entry: usize,
    /// Block index by start offset.
    index: HashMap<u32, usize>,
    /// Reverse-postorder number of each reachable block (`None`: unreachable).
    rpo: Vec<Option<usize>>,
    /// Children in the dominator tree, in reverse postorder.
    children: Vec<Vec<usize>>,
    loop_header: Vec<bool>,
    merge_node: Vec<bool>,
}

impl Cfg {
    fn new(program: &Program) -> Result<Self, &'static str> {
        let index: HashMap<u32, usize> = program.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
        let successors = program
            .blocks
            .iter()
            .map(|block| {
                let targets = match block.terminator {
                    Terminator::Jump(t) => vec![t],
                    Terminator::Branch(_, t, f) => vec![t, f],
                    Terminator::Exit(None) => vec![],
                    Terminator::Exit(Some((_, otherwise))) => vec![otherwise],
                    Terminator::JumpIndirect(_) => return Err("an indirect jump (a return or a jump table)"),
                    Terminator::Barrier(after) => vec![after],
                };
                // A jump to where no block starts ends the thread: no edge.
                Ok(targets.iter().filter_map(|t| index.get(t).copied()).collect::<Vec<_>>())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let entry = *index.get(&program.entry).ok_or("no block at the entry")?;
        let n = program.blocks.len();

        // Postorder by an explicit-stack depth-first search.
        let mut postorder = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        let mut stack = vec![(entry, 0usize)];
        visited[entry] = true;
        while let Some((block, next)) = stack.last_mut() {
            if let Some(&successor) = successors[*block].get(*next) {
                *next += 1;
                if !visited[successor] {
                    visited[successor] = true;
                    stack.push((successor, 0));
                }
            } else {
                postorder.push(*block);
                stack.pop();
            }
        }
        let order: Vec<usize> = postorder.iter().rev().copied().collect();
        let mut rpo = vec![None; n];
        for (number, &block) in order.iter().enumerate() {
            rpo[block] = Some(number);
        }
        let mut predecessors = vec![Vec::new(); n];
        for &block in &order {
            for &successor in &successors[block] {
                predecessors[successor].push(block);
            }
        }

        // Immediate dominators (Cooper, Harvey and Kennedy's iteration), as RPO numbers.
        let number = |block: usize| rpo[block].expect("reachable");
        let mut idom: Vec<Option<usize>> = vec![None; order.len()];
        idom[0] = Some(0);
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
            while a != b {
                while a > b {
                    a = idom[a].expect("processed");
                }
                while b > a {
                    b = idom[b].expect("processed");
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for (number_b, &block) in order.iter().enumerate().skip(1) {
                let mut new_idom = None;
                for &p in &predecessors[block] {
                    let p = number(p);
                    if idom[p].is_some() {
                        new_idom = Some(new_idom.map_or(p, |d| intersect(&idom, p, d)));
                    }
                }
                if new_idom != idom[number_b] {
                    idom[number_b] = new_idom;
                    changed = true;
                }
            }
        }
        let dominates = |a: usize, mut b: usize| loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = idom[b].expect("reachable");
        };

        let mut loop_header = vec![false; n];
        let mut forward_in_edges = vec![0usize; n];
        for &block in &order {
            for &successor in &successors[block] {
                if number(successor) <= number(block) {
                    // A retreating edge must be a back edge: reducible CFGs only.
                    if !dominates(number(successor), number(block)) {
                        return Err("an irreducible loop (entered other than through its header)");
                    }
                    loop_header[successor] = true;
                } else {
                    forward_in_edges[successor] += 1;
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for (number_b, &block) in order.iter().enumerate().skip(1) {
            children[order[idom[number_b].expect("reachable")]].push(block);
        }
        let merge_node = forward_in_edges.iter().map(|&count| count >= 2).collect();
        Ok(Cfg { entry, index, rpo, children, loop_header, merge_node })
    }

    fn number(&self, block: usize) -> usize {
        self.rpo[block].expect("placed blocks are reachable")
    }
}

struct Placer<'a> {
    cfg: &'a Cfg,
    program: &'a Program,
    depth: usize,
}

impl Placer<'_> {
    /// The code of block `x` and the blocks it dominates.
    fn tree(&mut self, x: usize) -> Option<Vec<Code>> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return None;
        }
        let merges: Vec<usize> = self.cfg.children[x].iter().copied().filter(|&c| self.cfg.merge_node[c]).collect();
        let mut code = self.within(x, &merges)?;
        if self.cfg.loop_header[x] {
            code = vec![Code::Loop(self.program.blocks[x].start, code)];
        }
        self.depth -= 1;
        Some(code)
    }

    /// Block `x`'s code inside scopes for its merge children (the last, the latest in reverse postorder, the
    /// outermost, so that each merge node's code can break to the ones after it).
    fn within(&mut self, x: usize, merges: &[usize]) -> Option<Vec<Code>> {
        let Some((&follow, inner)) = merges.split_last() else {
            return self.straight_line(x);
        };
        // Each scope is a level of nesting too (a block may have thousands of merge children).
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return None;
        }
        let scope = self.within(x, inner)?;
        self.depth -= 1;
        let mut code = vec![Code::Scope(self.program.blocks[follow].start, scope)];
        code.extend(self.tree(follow)?);
        Some(code)
    }

    /// Block `x`'s statements and terminator, and on through the blocks it falls into that need no construct of
    /// their own (iteratively: long chains of blocks must not deepen the recursion).
    fn straight_line(&mut self, mut x: usize) -> Option<Vec<Code>> {
        let mut code = Vec::new();
        loop {
            code.push(Code::Statements(self.program.blocks[x].start));
            let terminator = &self.program.blocks[x].terminator;
            if let Terminator::Jump(target) = *terminator
                && let Some(&t) = self.cfg.index.get(&target)
                && self.inlined(x, t)
                && !self.cfg.loop_header[t]
                && !self.cfg.children[t].iter().any(|&c| self.cfg.merge_node[c])
            {
                x = t;
                continue;
            }
            code.extend(self.terminator(x)?);
            return Some(code);
        }
    }

    fn terminator(&mut self, x: usize) -> Option<Vec<Code>> {
        Some(match self.program.blocks[x].terminator {
            Terminator::Jump(t) => self.branch(x, t)?,
            Terminator::Branch(cond, t, f) => vec![Code::If(cond, self.branch(x, t)?, self.branch(x, f)?)],
            Terminator::Exit(None) => vec![Code::Exit],
            Terminator::Exit(Some((cond, otherwise))) => {
                vec![Code::If(cond, vec![Code::Exit], self.branch(x, otherwise)?)]
            }
            Terminator::Barrier(after) => {
                let mut code = vec![Code::Barrier];
                code.extend(self.branch(x, after)?);
                code
            }
            Terminator::JumpIndirect(_) => unreachable!("refused by Cfg::new"),
        })
    }

    /// Whether the edge from `x` to `t` places `t`'s code right there (a forward edge to a block that is no
    /// merge node).
    fn inlined(&self, x: usize, t: usize) -> bool {
        self.cfg.number(t) > self.cfg.number(x) && !self.cfg.merge_node[t]
    }

    fn branch(&mut self, x: usize, target: u32) -> Option<Vec<Code>> {
        let Some(&t) = self.cfg.index.get(&target) else { return Some(vec![Code::Exit]) };
        if self.inlined(x, t) {
            self.tree(t)
        } else if self.cfg.number(t) <= self.cfg.number(x) {
            Some(vec![Code::Continue(target)])
        } else {
            Some(vec![Code::Break(target)])
        }
    }
}

impl fmt::Display for ControlFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlFlow::Structured(code) => write_code(f, code, 0),
            ControlFlow::Dispatcher(why) => writeln!(f, "dispatcher: {why}"),
        }
    }
}

fn write_code(f: &mut fmt::Formatter<'_>, code: &[Code], indent: usize) -> fmt::Result {
    let pad = "  ".repeat(indent);
    for c in code {
        match c {
            Code::Statements(block) => writeln!(f, "{pad}block {block:#x}")?,
            Code::If(cond, then, otherwise) => {
                writeln!(f, "{pad}if {cond} {{")?;
                write_code(f, then, indent + 1)?;
                writeln!(f, "{pad}}} else {{")?;
                write_code(f, otherwise, indent + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            Code::Loop(header, body) | Code::Scope(header, body) => {
                let kind = if matches!(c, Code::Loop(..)) { "loop" } else { "scope" };
                writeln!(f, "{pad}{kind} {header:#x} {{")?;
                write_code(f, body, indent + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            Code::Continue(header) => writeln!(f, "{pad}continue {header:#x}")?,
            Code::Break(follow) => writeln!(f, "{pad}break {follow:#x}")?,
            Code::Exit => writeln!(f, "{pad}exit")?,
            Code::Barrier => writeln!(f, "{pad}barrier")?,
        }
    }
    Ok(())
}

/// A xorshift generator for the random CFGs of the tests.
#[cfg(test)]
pub(crate) struct Random(pub u64);

#[cfg(test)]
impl Random {
    /// A number below `n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The terminators of a random CFG of 1 to 10 blocks at 0x00, 0x10, ..., conditions `cond`; a target one past
/// the last block is where no block starts (the thread stops).
#[cfg(test)]
pub(crate) fn random_terminators(random: &mut Random, cond: Value) -> Vec<Terminator> {
    let blocks = 1 + random.below(10);
    let target = |random: &mut Random| 0x10 * random.below(blocks + 1) as u32;
    (0..blocks)
        .map(|_| match random.below(8) {
            0 => Terminator::Exit(None),
            1 => Terminator::Exit(Some((cond, target(random)))),
            2 | 3 => Terminator::Jump(target(random)),
            _ => Terminator::Branch(cond, target(random), target(random)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::ir::Block;

    /// A program of empty blocks at 0x00, 0x10, ... ending in `terminators`.
    fn program(terminators: Vec<Terminator>) -> Program {
        let blocks = terminators
            .into_iter()
            .enumerate()
            .map(|(i, terminator)| Block { start: 0x10 * i as u32, body: Vec::new(), terminator })
            .collect();
        Program { blocks, ..Program::default() }
    }

    fn text(terminators: Vec<Terminator>) -> String {
        structurise(&program(terminators)).to_string()
    }

    const C: Value = Value(7);

    /// A block with more merge children than constructs may nest (two binary trees from it whose leaves meet
    /// pairwise, each pair at one merge block of its own, all dominated by the first block) takes the
    /// dispatcher: each merge child's scope is a level of nesting.
    #[test]
    fn scopes_count_as_nesting() {
        let merges = MAX_NESTING + 10;
        // Blocks: 0 the root; then each tree's internal nodes and leaves (heap order, 2 merges - 1 each); then
        // the merge blocks, each going on to the next.
        let tree = 2 * merges - 1;
        let (left, right, first_merge) = (1, 1 + tree, 1 + 2 * tree);
        let at = |block: usize| 0x10 * block as u32;
        let mut terminators = vec![Terminator::Branch(C, at(left), at(right))];
        for root in [left, right] {
            for node in 0..tree {
                terminators.push(if node < merges - 1 {
                    Terminator::Branch(C, at(root + 2 * node + 1), at(root + 2 * node + 2))
                } else {
                    Terminator::Jump(at(first_merge + node - (merges - 1)))
                });
            }
        }
        for merge in 0..merges {
            terminators.push(if merge + 1 < merges {
                Terminator::Jump(at(first_merge + merge + 1))
            } else {
                Terminator::Exit(None)
            });
        }
        let laid_out = structurise(&program(terminators));
        assert!(laid_out == ControlFlow::Dispatcher("constructs nested too deeply"), "structured, or another reason");
    }

    /// Programs past the block counts whose analyses cost their square or cube take the dispatcher (a chain of
    /// jumps, and a chain with a barrier).
    #[test]
    fn huge_programs_take_the_dispatcher() {
        let chain = |blocks: usize, barrier: bool| {
            let mut terminators: Vec<Terminator> = (1..blocks).map(|b| Terminator::Jump(0x10 * b as u32)).collect();
            if barrier {
                terminators[0] = Terminator::Barrier(0x10);
            }
            terminators.push(Terminator::Exit(None));
            structurise(&program(terminators))
        };
        assert!(chain(MAX_BLOCKS + 1, false) == ControlFlow::Dispatcher("more blocks than the structuriser lays out"));
        let analysed = chain(MAX_ANALYSED_BLOCKS + 1, true);
        assert!(analysed == ControlFlow::Dispatcher("barriers in more blocks than divergence analysis follows"));
        assert!(matches!(chain(100, true), ControlFlow::Structured(_)));
    }

    #[test]
    fn a_diamond_is_an_if_inside_the_scope_of_its_merge() {
        let code = text(vec![
            Terminator::Branch(C, 0x10, 0x20),
            Terminator::Jump(0x30),
            Terminator::Jump(0x30),
            Terminator::Exit(None),
        ]);
        let expected = "\
scope 0x30 {
  block 0x0
  if v7 {
    block 0x10
    break 0x30
  } else {
    block 0x20
    break 0x30
  }
}
block 0x30
exit
";
        assert_eq!(code, expected);
    }

    #[test]
    fn a_loop_continues_at_its_header_and_its_exit_is_placed_inside_it() {
        let code = text(vec![
            Terminator::Jump(0x10),
            Terminator::Branch(C, 0x20, 0x30),
            Terminator::Jump(0x10),
            Terminator::Exit(None),
        ]);
        let expected = "\
block 0x0
loop 0x10 {
  block 0x10
  if v7 {
    block 0x20
    continue 0x10
  } else {
    block 0x30
    exit
  }
}
";
        assert_eq!(code, expected);
    }

    #[test]
    fn a_break_out_of_two_loops_names_the_scope_after_them() {
        // 0x10: outer header; 0x20: inner header, breaking out of both to 0x40 or on to 0x30, which goes back
        // to the inner loop or the outer one; 0x00 also reaches 0x40, so 0x40 is a merge node, and 0x40 goes back
        // to 0x00, a loop around it all.
        let code = text(vec![
            Terminator::Branch(C, 0x10, 0x40),
            Terminator::Jump(0x20),
            Terminator::Branch(C, 0x40, 0x30),
            Terminator::Branch(C, 0x20, 0x10),
            Terminator::Exit(Some((C, 0x00))),
        ]);
        let expected = "\
loop 0x0 {
  scope 0x40 {
    block 0x0
    if v7 {
      loop 0x10 {
        block 0x10
        loop 0x20 {
          block 0x20
          if v7 {
            break 0x40
          } else {
            block 0x30
            if v7 {
              continue 0x20
            } else {
              continue 0x10
            }
          }
        }
      }
    } else {
      break 0x40
    }
  }
  block 0x40
  if v7 {
    exit
  } else {
    continue 0x0
  }
}
";
        assert_eq!(code, expected);
    }

    #[test]
    fn chains_of_blocks_follow_each_other_and_jumps_to_no_block_exit() {
        let mut terminators: Vec<Terminator> = (1..5000).map(|i| Terminator::Jump(0x10 * i)).collect();
        terminators.push(Terminator::Jump(0x1234_5670));
        let ControlFlow::Structured(code) = structurise(&program(terminators)) else { panic!("structured") };
        assert_eq!(code.len(), 5001);
        assert_eq!((&code[4999], &code[5000]), (&Code::Statements(0x10 * 4999), &Code::Exit));
    }

    #[test]
    fn irreducible_loops_indirect_jumps_and_barriers_some_threads_miss_take_the_dispatcher() {
        let irreducible = text(vec![Terminator::Branch(C, 0x10, 0x20), Terminator::Jump(0x20), Terminator::Jump(0x10)]);
        assert_eq!(irreducible, "dispatcher: an irreducible loop (entered other than through its header)\n");
        let indirect = text(vec![Terminator::JumpIndirect(C)]);
        assert_eq!(indirect, "dispatcher: an indirect jump (a return or a jump table)\n");
        let in_a_loop = text(vec![Terminator::Barrier(0x10), Terminator::Branch(C, 0x00, 0x20)]);
        let reached = format!("dispatcher: {NOT_EVERY_THREAD}\n");
        assert_eq!(in_a_loop, reached);
        let after_an_exit = text(vec![Terminator::Exit(Some((C, 0x10))), Terminator::Barrier(0x20)]);
        assert_eq!(after_an_exit, reached);
    }

    #[test]
    fn barriers_every_thread_meets_are_structured() {
        // A diamond, then the barrier, then an exit on one side: the threads all meet the barrier first.
        let code = text(vec![
            Terminator::Branch(C, 0x10, 0x20),
            Terminator::Jump(0x20),
            Terminator::Barrier(0x30),
            Terminator::Exit(Some((C, 0x40))),
            Terminator::Exit(None),
        ]);
        let expected = "\
scope 0x20 {
  block 0x0
  if v7 {
    block 0x10
    break 0x20
  } else {
    break 0x20
  }
}
block 0x20
barrier
block 0x30
if v7 {
  exit
} else {
  block 0x40
  exit
}
";
        assert_eq!(code, expected);
    }

    /// How a walk through code ended.
    enum Flow {
        Normal,
        Continue(u32),
        Break(u32),
        Exit,
        /// The walk reached its step limit.
        Stop,
    }

    /// Runs `code` as the emitted SPIR-V would, taking each condition from `decide`, recording the blocks whose
    /// statements run; `Err` where control would fall off the end of a construct's body.
    fn walk(
        code: &[Code],
        decide: &mut dyn FnMut() -> bool,
        trace: &mut Vec<u32>,
        limit: usize,
    ) -> Result<Flow, String> {
        for c in code {
            let flow = match c {
                Code::Statements(start) => {
                    if trace.len() == limit {
                        return Ok(Flow::Stop);
                    }
                    trace.push(*start);
                    Flow::Normal
                }
                Code::If(_, then, otherwise) => walk(if decide() { then } else { otherwise }, decide, trace, limit)?,
                Code::Loop(header, body) => loop {
                    match walk(body, decide, trace, limit)? {
                        Flow::Continue(h) if h == *header => continue,
                        Flow::Normal => return Err(format!("control fell off loop {header:#x}'s body")),
                        flow => break flow,
                    }
                },
                Code::Scope(follow, body) => match walk(body, decide, trace, limit)? {
                    Flow::Break(f) if f == *follow => Flow::Normal,
                    Flow::Normal => return Err(format!("control fell off scope {follow:#x}'s body")),
                    flow => flow,
                },
                Code::Continue(h) => Flow::Continue(*h),
                Code::Break(f) => Flow::Break(*f),
                Code::Exit => Flow::Exit,
                Code::Barrier => Flow::Normal,
            };
            if !matches!(flow, Flow::Normal) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    /// The blocks the CFG itself runs, with the same decisions.
    fn run_cfg(program: &Program, decide: &mut dyn FnMut() -> bool, limit: usize) -> Vec<u32> {
        let mut trace = Vec::new();
        let mut at = Some(program.entry);
        while let Some(start) = at {
            let Some(block) = program.blocks.iter().find(|b| b.start == start) else { break };
            if trace.len() == limit {
                break;
            }
            trace.push(start);
            at = match block.terminator {
                Terminator::Jump(t) => Some(t),
                Terminator::Branch(_, t, f) => Some(if decide() { t } else { f }),
                Terminator::Exit(None) => None,
                Terminator::Exit(Some((_, otherwise))) => (!decide()).then_some(otherwise),
                Terminator::JumpIndirect(_) | Terminator::Barrier(_) => unreachable!("not generated"),
            };
        }
        trace
    }

    /// Thousands of random CFGs: where one is structured, every reachable block is placed once, and the
    /// constructs run the blocks the CFG runs for every sequence of decisions (the CFG is the oracle).
    #[test]
    fn structured_code_runs_the_blocks_its_cfg_runs() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let (mut structured, mut irreducible) = (0, 0);
        for _ in 0..3000 {
            let program = program(random_terminators(&mut random, C));
            let ControlFlow::Structured(code) = structurise(&program) else {
                irreducible += 1;
                continue;
            };
            structured += 1;
            let mut placed = Vec::new();
            collect_statements(&code, &mut placed);
            let mut unique = placed.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(placed.len(), unique.len(), "a block placed twice:\n{}", structurise(&program));
            for seed in 0..8u64 {
                let decisions = |seed: u64| {
                    let mut bits = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
                    move || {
                        bits = bits.rotate_left(7) ^ (bits >> 3);
                        bits & 1 == 1
                    }
                };
                let expected = run_cfg(&program, &mut decisions(seed), 200);
                let mut trace = Vec::new();
                let shown = structurise(&program);
                let flow =
                    walk(&code, &mut decisions(seed), &mut trace, 200).unwrap_or_else(|e| panic!("{e}:\n{shown}"));
                assert!(!matches!(flow, Flow::Normal), "control fell off the program:\n{shown}");
                assert_eq!(trace, expected, "seed {seed}:\n{shown}");
            }
        }
        assert!(structured > 1000 && irreducible > 0, "structured {structured}, irreducible {irreducible}");
    }

    fn collect_statements(code: &[Code], placed: &mut Vec<u32>) {
        for c in code {
            match c {
                Code::Statements(start) => placed.push(*start),
                Code::If(_, then, otherwise) => {
                    collect_statements(then, placed);
                    collect_statements(otherwise, placed);
                }
                Code::Loop(_, body) | Code::Scope(_, body) => collect_statements(body, placed),
                Code::Continue(_) | Code::Break(_) | Code::Exit | Code::Barrier => {}
            }
        }
    }
}
