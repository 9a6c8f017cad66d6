//! Following a thread's stack of return and reconvergence addresses through a program, as the thread would:
//! Maxwell's SSY/PBK/PCNT/CAL push entries that SYNC/BRK/CONT/RET pop, and Ampere's CALL hands RET its return
//! address (which ptxas writes into the register RET reads with a MOV just before the CALL). When every
//! instruction is reached with one stack, as compilers keep them (pushes and pops balanced on every path, each
//! function that is not recursive called from one place), every pop has one target and becomes a plain jump;
//! then the program's CFG is explicit and can be structured.

use crate::sass::text::View;
use std::collections::HashMap;

/// What an instruction does to the control flow and the stack, for `static_pops`.
pub(super) enum Effect {
    /// Push `entry` (of `kind`), then go on at `then`.
    Push { kind: u32, entry: u32, then: u32 },
    /// Pop entries down to the nearest of `kind` and go to it; when `conditional`, or go on.
    Pop { kind: u32, conditional: bool },
    /// To `target`; when `conditional`, or go on.
    Branch { target: u32, conditional: bool },
    /// The thread ends; when `conditional`, or goes on.
    Exit { conditional: bool },
    /// Somewhere the code does not say (a jump through a register), or a push only on some paths.
    Unknown,
    /// On to the next instruction.
    Next,
}

/// Where each pop goes, by the pop's offset, following the stack from the first instruction; `next(i)` is the
/// offset of the instruction after `views[i]`. `None` when an instruction is reached with two different stacks,
/// a pop finds no entry of its kind, the stack grows past `max_depth` entries, or the code jumps where it
/// does not say.
pub(super) fn static_pops(
    views: &[View],
    max_depth: usize,
    next: impl Fn(usize) -> u32,
    effect: impl Fn(&View, u32) -> Effect,
) -> Option<HashMap<u32, u32>> {
    let index_of: HashMap<u32, usize> = views.iter().enumerate().map(|(i, v)| (v.offset as u32, i)).collect();
    let mut stacks: Vec<Option<Vec<(u32, u32)>>> = vec![None; views.len()];
    let mut pops = HashMap::new();
    let mut work = Vec::new();
    if !views.is_empty() {
        stacks[0] = Some(Vec::new());
        work.push(0);
    }
    while let Some(i) = work.pop() {
        let stack = stacks[i].clone().expect("queued with its stack");
        let next = next(i);
        let mut successors = Vec::new();
        let on_if = |conditional: bool, stack: &Vec<(u32, u32)>, successors: &mut Vec<_>| {
            if conditional {
                successors.push((next, stack.clone()));
            }
        };
        match effect(&views[i], next) {
            Effect::Push { kind, entry, then } => {
                let mut pushed = stack;
                pushed.push((kind, entry));
                if pushed.len() > max_depth {
                    return None;
                }
                successors.push((then, pushed));
            }
            Effect::Pop { kind, conditional } => {
                on_if(conditional, &stack, &mut successors);
                let mut popped = stack;
                let target = loop {
                    let (entry_kind, target) = popped.pop()?;
                    if entry_kind == kind {
                        break target;
                    }
                };
                if *pops.entry(views[i].offset as u32).or_insert(target) != target {
                    return None;
                }
                successors.push((target, popped));
            }
            Effect::Branch { target, conditional } => {
                on_if(conditional, &stack, &mut successors);
                successors.push((target, stack));
            }
            Effect::Exit { conditional } => on_if(conditional, &stack, &mut successors),
            Effect::Unknown => return None,
            Effect::Next => successors.push((next, stack)),
        }
        for (offset, stack) in successors {
            // A jump to where no instruction is stops the thread.
            let Some(&k) = index_of.get(&offset) else { continue };
            match &stacks[k] {
                Some(known) if *known != stack => return None,
                Some(_) => {}
                None => {
                    stacks[k] = Some(stack);
                    work.push(k);
                }
            }
        }
    }
    Some(pops)
}
