//! Regions: which guest instructions one compiled block holds, and how control moves between them.
//!
//! A **straight** region is one path: it follows unconditional direct branches within its page, and every other
//! branch leaves it (chaining to the block at the target). A region lifted as a **graph** also keeps the taken
//! side of conditional branches, and the targets of direct branches, inside the block while it has room and the
//! edge profile (`edges`) does not say the branch never went there; targets in its start's page are kept, and
//! those in other pages when the profile saw the branch go there (a hot call to a function far away), up to
//! `MAX_REGION_PAGES` pages, each executable, not writable and no view of shared pages. Each such target is a
//! *label*, a Cranelift block whose parameters are the guest state the
//! region carries there (the registers some edge may bring changed, NZCV in the label's shape, the budget left;
//! registers unchanged on every way there hold their entry values in the `CpuState`, where a run reads them when
//! it needs them). Loops then run inside one block with the guest registers in host registers, instead of
//! writing everything back and chaining at every turn.
//!
//! Invariants of a graph region:
//! - Every instruction is lifted once, in the run of one label; a branch into the middle of another label's run
//!   leaves the region (the second lifting makes that address a label of its own).
//! - Budgets stay exact: the dispatcher and chained blocks enter a region only when the budget left admits all
//!   of its instructions. An edge to a label whose run is already lifted (the only kind that can close a cycle,
//!   since every other edge goes to a label lifted later) goes there only when the budget left again admits all
//!   of them, and leaves the region otherwise; between two such edges a run retires each instruction at most once.
//! - At a label, the carried registers that some edge may bring changed count as changed (exits store them,
//!   changed or not: `RegionPlan::label_dirty`, a fixpoint over the first lifting's edges), and NZCV counts as
//!   changed unless its shape says it is in the `CpuState`. An edge goes to a label only when every register it
//!   has changed is one the label counts as changed, and its NZCV converts to the label's shape; otherwise it
//!   leaves the region.
//! - The first lifting carries every register and learns what the instructions use (`RegionPlan`); the second,
//!   which is compiled, carries only that. Both are correct on their own: the plan makes the second cheaper.

use super::{
    FlagsShape, FlagsState, Flow, Lifter, Recorded, Unlifted, block_signature, compilable, cpu_offset_of_register,
    host_flags,
};
use crate::edges::{EdgeProfile, Seen};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, Function, InstBuilder, UserFuncName, Value, types};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use std::collections::{BTreeSet, HashMap, HashSet};
use tandem_reference::decode::decode;
use tandem_reference::memory::{GuestMemory, PAGE_SIZE};

use super::LiftedBlock;

/// Lifts the block of at most `limit` instructions starting at `pc`, or `None` when its first instruction is one
/// the lifter leaves to the reference. The caller has checked that the page is executable and not writable.
/// `graph` lifts the region as a graph of labels, shaped by `profile`, otherwise as one straight path (see the
/// module's comment).
pub fn lift_block(
    memory: &GuestMemory,
    pc: u64,
    limit: u32,
    graph: bool,
    profile: &EdgeProfile,
    isa: &dyn TargetIsa,
) -> Option<LiftedBlock> {
    // A lifter bug that panics must not take the emulator down (as `background::compile` guards Cranelift): the
    // region is not lifted, the error names it, and it runs on the reference.
    let lifted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lift_block_planned(&Region { memory, pc, limit, profile, isa }, graph)
    }));
    lifted.unwrap_or_else(|_| {
        tracing::error!(pc = format_args!("{pc:#x}"), "the lifter panicked on this region; it runs on the reference");
        None
    })
}

/// `lift_block`'s work: one lifting, or with `graph` as many as settle which labels carry NZCV.
fn lift_block_planned(region: &Region, graph: bool) -> Option<LiftedBlock> {
    let pc = region.pc;
    if !graph {
        return lift_region(region, None).map(|(block, _)| block);
    }
    let (_, mut plan) = lift_region(region, Some(RegionPlan::carrying_everything()))?;
    // A lifting that read NZCV at labels the plan said carry none is void: they carry it in the next (which may
    // void others, which then pass it to them), a few times, then every label does.
    for _ in 0..MAX_FLAG_RELIFTS {
        let (block, lifting) = lift_region(region, Some(plan.clone()))?;
        if lifting.unread_flags_read.is_empty() {
            return Some(block);
        }
        plan.flags_unread.retain(|address| !lifting.unread_flags_read.contains(address));
    }
    tracing::debug!(pc = format_args!("{pc:#x}"), "region lifted with NZCV carried at every label");
    lift_region(region, Some(RegionPlan { flags_unread: HashSet::new(), ..plan })).map(|(block, _)| block)
}

/// How many times a region is lifted again with NZCV carried at the labels where the last lifting read it,
/// before every label carries it (`RegionPlan::flags_unread`).
const MAX_FLAG_RELIFTS: usize = 4;

/// What a lifting of a region as a graph learnt, for the next lifting of it.
#[derive(Clone, Default)]
struct RegionPlan {
    /// The registers the instructions use (bit n for index n), and those of them they write.
    registers: u32,
    written: u32,
    /// NZCV's shape at each label: the first shape other than "in the `CpuState`" that an edge brought there.
    label_flags: HashMap<u64, FlagsShape>,
    /// Addresses a branch reached in the middle of another label's run, which become labels of their own.
    split_at: HashSet<u64>,
    /// The registers that may have changed since the block's entry when control reaches each label (the
    /// union over the edges that reach it); the others an exit need not store.
    label_dirty: HashMap<u64, u32>,
    /// Whether a branch inside the region goes back to its start. When none does, the start's run is lifted in
    /// the entry block as a straight region's is (registers loaded where first read, exits storing only what
    /// changed), and only the other labels carry state.
    start_is_target: bool,
    /// The return addresses of the calls (BL) the region lifted to callees in its page: where its returns may go
    /// without leaving it (`Lifter::predicted_returns`).
    returns: BTreeSet<u64>,
    /// Labels from whose runs no guest access can be reached inside the region (their runs make none, nor do
    /// those of the labels they go to): edges to them make no replay point on their way, since nothing after
    /// them needs one. (A run that goes on to a label that needs one keeps the replay point it was given, so
    /// that a loop's back edge, taken far more often than its entry, need not make one.)
    replay_free: HashSet<u64>,
    /// Addresses lifted whose incoming NZCV no run reads before an instruction sets it (nor passes on to a label
    /// where it is read, nor leaves the region with): labels there carry none (`FlagsShape::Unread`), which
    /// leaves a loop fewer values to keep in registers. Learnt per instruction, it holds for labels the next
    /// lifting splits off too; where that lifting reads NZCV at such a label after all (its runs differ: an edge
    /// that cannot carry its registers leaves the region instead), `unread_flags_read` voids it.
    flags_unread: HashSet<u64>,
    /// The labels where the lifting read NZCV that the plan said carry none (`Lifter::note_flags_read`).
    unread_flags_read: HashSet<u64>,
}

impl RegionPlan {
    fn carrying_everything() -> RegionPlan {
        RegionPlan { registers: u32::MAX, written: u32::MAX, start_is_target: true, ..RegionPlan::default() }
    }

    /// The registers labels may carry as parameters: those the region uses and writes (each label carries those
    /// some edge may bring changed, `Label::dirty`). The others keep their value from the region's entry, in the
    /// `CpuState`, where each run reads them when it needs them (fewer values live across the region's loops).
    fn carried(&self) -> u32 {
        self.registers & self.written
    }
}

/// The most pages a region's instructions may lie in: each is one more page whose change drops the region.
const MAX_REGION_PAGES: usize = 4;

/// The most return addresses a return compares its target with before it leaves the region (each is a compare
/// and a branch on the way out).
const MAX_PREDICTED_RETURNS: usize = 8;

/// The labels of a region lifted as a graph.
pub(super) struct Graph {
    plan: RegionPlan,
    labels: HashMap<u64, Label>,
    /// Labels whose runs are still to be lifted, by rank and address: those in the start's page first, lowest
    /// address first (compilers lay a loop's body out in address order, so the region's room goes to it before
    /// code further away), then those in other pages in the order the region reached them (a hot callee's entry
    /// before what it calls in turn).
    worklist: BTreeSet<(u64, u64)>,
    /// Every address lifted, and whether it starts a label's run.
    lifted: HashSet<u64>,
    /// The region's instruction count, patched in when the lifting ends (`iconst` in the entry block).
    total: Value,
    /// What this lifting learns for the next (`RegionPlan`'s fields): also whether a run branched to the
    /// region's start, and each edge taken to a label, for `label_dirty`.
    label_flags: HashMap<u64, FlagsShape>,
    split_at: HashSet<u64>,
    start: u64,
    start_targeted: bool,
    edges: Vec<Edge>,
    /// The label whose run is being lifted; `None` in the entry block.
    pub(super) current: Option<u64>,
    /// `RegionPlan::returns` as this lifting finds them, and the labels whose runs made a guest access.
    returns: BTreeSet<u64>,
    accessing: HashSet<u64>,
    /// The addresses whose incoming NZCV a run read before setting it, the edges that passed it on to a label
    /// unset (address, label), and the labels where NZCV was read that the plan said carry none
    /// (`Lifter::note_flags_read`).
    pub(super) flags_read: HashSet<u64>,
    flags_passed: Vec<(u64, u64)>,
    pub(super) unread_flags_read: HashSet<u64>,
}

/// An edge to a label: from the run of `from` (`None`: the entry block), with the registers the run wrote
/// before it, and whether the registers changed at `from` were still unwritten back there.
struct Edge {
    from: Option<u64>,
    to: u64,
    written: u32,
    inherits: bool,
}

impl Graph {
    /// `RegionPlan::replay_free`: the labels lifted that reach no access (a fixpoint over the edges).
    fn replay_free(&self) -> HashSet<u64> {
        let mut needing = self.accessing.clone();
        loop {
            let mut changed = false;
            for edge in &self.edges {
                if let Some(from) = edge.from
                    && needing.contains(&edge.to)
                {
                    changed |= needing.insert(from);
                }
            }
            if !changed {
                break;
            }
        }
        self.labels
            .iter()
            .filter(|(address, label)| label.lifted && !needing.contains(address))
            .map(|(&address, _)| address)
            .collect()
    }

    /// `RegionPlan::flags_unread`: the addresses lifted whose NZCV no run read before setting it, nor passed on
    /// to a label where one did (a fixpoint over the edges).
    fn flags_unread(&self) -> HashSet<u64> {
        let mut read = self.flags_read.clone();
        loop {
            let mut changed = false;
            for &(from, to) in &self.flags_passed {
                if read.contains(&to) {
                    changed |= read.insert(from);
                }
            }
            if !changed {
                break;
            }
        }
        self.lifted.difference(&read).copied().collect()
    }

    /// Each label's `RegionPlan::label_dirty`: the least sets that hold what every edge brings (a fixpoint over
    /// the loops).
    fn label_dirty(&self) -> HashMap<u64, u32> {
        let mut dirty: HashMap<u64, u32> = self.labels.keys().map(|&address| (address, 0)).collect();
        loop {
            let mut changed = false;
            for edge in &self.edges {
                let inherited = edge.from.filter(|_| edge.inherits).map_or(0, |from| dirty[&from]);
                let arriving = edge.written | inherited;
                let at = dirty.get_mut(&edge.to).expect("edges go to labels");
                if *at | arriving != *at {
                    *at |= arriving;
                    changed = true;
                }
            }
            if !changed {
                return dirty;
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Label {
    block: Block,
    flags: FlagsShape,
    /// The registers that may have changed since the block's entry when control is here (among those carried):
    /// its register parameters, in index order. The others hold their entry values, in the `CpuState`.
    dirty: u32,
    /// Whether its run has been lifted, or is being lifted.
    lifted: bool,
    /// Whether its run may make a guest access or go to a label, and so needs every edge to bring a replay point
    /// (`RegionPlan::replay_free`).
    needs_replay: bool,
}

/// What `lift_block` lifts from.
struct Region<'a> {
    memory: &'a GuestMemory,
    pc: u64,
    limit: u32,
    profile: &'a EdgeProfile,
    isa: &'a dyn TargetIsa,
}

/// One lifting of `region`: straight without a plan, as a graph with one. Also what it learnt.
fn lift_region(region: &Region, plan: Option<RegionPlan>) -> Option<(LiftedBlock, RegionPlan)> {
    let Region { memory, pc, limit, profile, isa } = *region;
    let mut function = Function::with_name_signature(UserFuncName::user(0, 0), block_signature());
    let mut builder_context = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut function, &mut builder_context);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let [cpu, budget] = b.block_params(entry).try_into().expect("two parameters");
    let mut lifter = Lifter {
        b,
        cpu,
        budget,
        call_conv: isa.default_call_conv(),
        pc,
        retired: 0,
        count: 0,
        pages: vec![pc & !(PAGE_SIZE - 1)],
        limit,
        profile,
        memory,
        registers: [None; 32],
        dirty: 0,
        flags: FlagsState::InCpu,
        flags_dirty: false,
        flags_segment: Vec::new(),
        recorded: Recorded::default(),
        checked: Vec::new(),
        touched: 0,
        written: 0,
        written_in_run: 0,
        dirty_from_label: false,
        host_has_fma: isa.isa_flags().iter().any(|flag| flag.name == "has_fma" && flag.as_bool() == Some(true)),
        graph: None,
        successors: Vec::new(),
        addresses: Vec::new(),
    };
    match plan {
        None => lifter.lift_run(pc),
        Some(plan) => {
            if !lifter.enter_graph(plan) {
                lifter.lift_run(pc);
            }
            while let Some(address) = lifter.next_label() {
                lifter.lift_run(address);
            }
            lifter.close_graph();
        }
    }
    if lifter.count == 0 {
        return None;
    }
    let learnt = match lifter.graph.take() {
        Some(graph) => RegionPlan {
            replay_free: graph.replay_free(),
            flags_unread: graph.flags_unread(),
            registers: lifter.touched,
            written: lifter.written,
            label_dirty: graph.label_dirty(),
            label_flags: graph.label_flags,
            split_at: graph.split_at,
            start_is_target: graph.start_targeted,
            returns: graph.returns,
            unread_flags_read: graph.unread_flags_read,
        },
        None => RegionPlan::default(),
    };
    let instructions = lifter.count;
    let successors = std::mem::take(&mut lifter.successors);
    let addresses = std::mem::take(&mut lifter.addresses);
    let other_pages = lifter.pages.split_off(1);
    lifter.b.seal_all_blocks();
    lifter.b.finalize(isa.frontend_config());
    Some((LiftedBlock { function, instructions, successors, other_pages, addresses }, learnt))
}

/// The registers of a mask (bit n for index n).
fn register_indices(mask: u32) -> impl Iterator<Item = u32> {
    (0..32).filter(move |index| mask & 1 << index != 0)
}

impl Lifter<'_> {
    /// Lifts one run from `start` (the region's start, or a label's): instructions in a straight line until a
    /// branch, an instruction left to the reference, the end of the page or of the region's room, or (in a graph)
    /// a label's address.
    fn lift_run(&mut self, start: u64) {
        self.pc = start;
        let mut visited = Vec::new();
        // How the run ends when it does not end in a branch: at `self.pc`, through the reference or not.
        let mut open_end = Some(false);
        loop {
            let in_graph = self.graph.as_ref();
            let at_label = in_graph.is_some_and(|graph| {
                self.pc != start && (graph.labels.contains_key(&self.pc) || graph.plan.split_at.contains(&self.pc))
            });
            let lifted = in_graph.is_some_and(|graph| graph.lifted.contains(&self.pc)) || visited.contains(&self.pc);
            // A misaligned PC would read a word across the page's end: the reference fetches those.
            if at_label || lifted || self.count >= self.limit || self.pc % 4 != 0 || !self.holds_page(self.pc) {
                break;
            }
            let Ok(word) = self.memory.fetch(self.pc) else { break };
            let Some(inst) = decode(word) else {
                open_end = Some(true);
                break;
            };
            let saved = self.snapshot();
            if self.graph.is_some() {
                self.flags_segment.push(self.pc);
            }
            match self.lift(inst, word) {
                Ok(flow) => {
                    visited.push(self.pc);
                    if let Some(graph) = &mut self.graph {
                        graph.lifted.insert(self.pc);
                    }
                    self.retired += 1;
                    self.count += 1;
                    self.addresses.push(self.pc);
                    match flow {
                        Flow::Next => self.pc += 4,
                        // A graph keeps the target as a label; a straight region goes on there.
                        Flow::Jump(target) if self.graph.is_some() => {
                            self.transfer(self.pc, target, self.retired);
                            open_end = None;
                            break;
                        }
                        Flow::Jump(target) => self.pc = target,
                        Flow::Ended => {
                            open_end = None;
                            break;
                        }
                    }
                }
                Err(Unlifted) => {
                    self.restore(saved);
                    open_end = Some(true);
                    break;
                }
            }
        }
        match open_end {
            // Continue at the next instruction through the reference, which executes the one the lifter left.
            Some(true) => {
                let next = self.b.ins().iconst(types::I64, self.pc as i64);
                self.exit_to(next, self.retired, true);
                self.successors.push(self.pc.wrapping_add(4));
            }
            Some(false) => {
                // The instruction before went on to this one (if the run lifted any).
                self.transfer(self.pc.wrapping_sub(4), self.pc, self.retired);
                self.successors.push(self.pc);
            }
            None => {}
        }
    }

    /// Goes from the instruction at `from` to `target` after `retired` instructions of this run: to its label
    /// where the region holds it (`Graph`), otherwise out of the region (chaining to the block there). Ends the
    /// current Cranelift block.
    pub(super) fn transfer(&mut self, from: u64, target: u64, retired: u32) {
        if let Some(label) = self.label_for(from, target)
            && self.jump_to_label(target, label, retired)
        {
            return;
        }
        // An exit the profile saw the branch never take goes out of the hot path's way: its blocks are laid out
        // after the region's others, so that the code the region runs is contiguous.
        let never_taken = from != target && self.profile.edge(from, target) == Seen::NeverTaken;
        let first_new_block = self.b.func.dfg.num_blocks();
        let exit = self.b.current_block().expect("lifting inside a block");
        let target = self.iconst(types::I64, target);
        self.exit_to(target, retired, false);
        if never_taken {
            self.b.set_cold_block(exit);
            for index in first_new_block..self.b.func.dfg.num_blocks() {
                self.b.set_cold_block(Block::from_u32(index as u32));
            }
        }
    }

    /// The label at `target`, made when the region may hold it; `None` in a straight region, in the middle of
    /// another label's run, past the region's room, for an edge the profile says the instruction at `from`
    /// never took, or in another page unless the profile saw the edge (and the page may be compiled).
    fn label_for(&mut self, from: u64, target: u64) -> Option<Label> {
        let shape = self.flags_shape();
        let graph = self.graph.as_mut()?;
        graph.start_targeted |= target == graph.start;
        if shape != FlagsShape::InCpu {
            graph.label_flags.entry(target).or_insert(shape);
        }
        if let Some(&label) = graph.labels.get(&target) {
            return Some(label);
        }
        let seen = if from == target { Seen::Unknown } else { self.profile.edge(from, target) };
        if target % 4 != 0 || self.count >= self.limit || seen == Seen::NeverTaken {
            return None;
        }
        if !self.holds_page(target) && !(seen == Seen::Taken && self.admit_page(target)) {
            return None;
        }
        let graph = self.graph.as_mut()?;
        if graph.lifted.contains(&target) {
            graph.split_at.insert(target);
            return None;
        }
        let flags = if graph.plan.flags_unread.contains(&target) {
            FlagsShape::Unread
        } else {
            graph.plan.label_flags.get(&target).copied().unwrap_or(shape)
        };
        let changed = graph.plan.label_dirty.get(&target).copied().unwrap_or(graph.plan.written);
        let dirty = changed & graph.plan.carried();
        let block = self.b.create_block();
        for _ in register_indices(dirty) {
            self.b.append_block_param(block, types::I64);
        }
        for ty in flags.parameter_types() {
            self.b.append_block_param(block, ty);
        }
        self.b.append_block_param(block, types::I64);
        let needs_replay = !graph.plan.replay_free.contains(&target);
        let label = Label { block, flags, dirty, lifted: false, needs_replay };
        graph.labels.insert(target, label);
        let rank =
            if target & !(PAGE_SIZE - 1) == graph.start & !(PAGE_SIZE - 1) { 0 } else { graph.labels.len() as u64 };
        graph.worklist.insert((rank, target));
        Some(label)
    }

    /// Notes that the run being lifted makes a guest access (`RegionPlan::replay_free`).
    pub(super) fn note_access(&mut self) {
        if let Some(graph) = &mut self.graph
            && let Some(label) = graph.current
        {
            graph.accessing.insert(label);
        }
    }

    /// Notes that the instruction being lifted is a call to `target`, whose return address a later return may
    /// reach inside the region: only where the callee may be lifted into the region too (a label in one of its
    /// pages, or in a page the profile saw the call go to). Other callees return from their own regions;
    /// predicting their returns here would only add an edge to the return address from every return the region
    /// holds, and with it the registers those bring.
    pub(super) fn note_call(&mut self, target: u64) {
        let return_address = self.pc.wrapping_add(4);
        let callee_may_be_held = self.holds_page(target) || self.profile.edge(self.pc, target) == Seen::Taken;
        if callee_may_be_held
            && self.holds_page(return_address)
            && let Some(graph) = &mut self.graph
        {
            graph.returns.insert(return_address);
        }
    }

    fn holds_page(&self, pc: u64) -> bool {
        self.pages.contains(&(pc & !(PAGE_SIZE - 1)))
    }

    /// Adds `pc`'s page to the region's when there is room and its code may be compiled (`compilable`, as the
    /// engine requires of a region's first page).
    fn admit_page(&mut self, pc: u64) -> bool {
        if self.pages.len() >= MAX_REGION_PAGES || !compilable(self.memory, pc) {
            return false;
        }
        self.pages.push(pc & !(PAGE_SIZE - 1));
        true
    }

    /// Where a return may go inside the region: the return addresses of its calls (those the plan's lifting saw
    /// and those this one has seen), in address order, at most `MAX_PREDICTED_RETURNS` of them.
    pub(super) fn predicted_returns(&self) -> Vec<u64> {
        let Some(graph) = &self.graph else { return vec![] };
        graph.plan.returns.union(&graph.returns).copied().take(MAX_PREDICTED_RETURNS).collect()
    }

    /// Jumps to `label` (at `target`) with the state after `retired` instructions of this run, when the state fits its
    /// parameters; to a label already lifted only when the budget left admits the whole region again (otherwise
    /// control falls through to what the caller emits next, in a new block). Returns whether the jump is
    /// unconditional. Changes nothing the rest of the block may use.
    fn jump_to_label(&mut self, target: u64, label: Label, retired: u32) -> bool {
        let graph = self.graph.as_ref().expect("labels belong to graphs");
        let total = graph.total;
        // The label must know of every register changed on the way (its `dirty`, within the carried ones). A run
        // that lifted nothing (the region had no more room) must not go round to a lifted label: no progress.
        if self.dirty & !label.dirty != 0 || (label.lifted && retired == 0) {
            return false;
        }
        // The edge may be a side path (a conditional branch's): what it stores must not change the record's
        // state for the code after it.
        let recorded = self.recorded;
        let graph = self.graph.as_mut().expect("labels belong to graphs");
        graph.flags_passed.extend(self.flags_segment.iter().map(|&address| (address, target)));
        let Some(flags) = self.flag_arguments(label.flags) else { return false };
        if label.needs_replay && !self.recorded.replay {
            self.sync(target, retired);
        }
        self.recorded = recorded;
        let mut arguments = Vec::new();
        for index in register_indices(label.dirty) {
            arguments.push(match self.registers[index as usize] {
                Some(value) => value,
                // Not read yet, or written back and dropped by a call into the reference: in the `CpuState`.
                None => self.b.ins().load(types::I64, host_flags(), self.cpu, cpu_offset_of_register(index)),
            });
        }
        arguments.extend(flags);
        let left = self.b.ins().iadd_imm_s(self.budget, -i64::from(retired));
        arguments.push(left);
        let arguments: Vec<BlockArg> = arguments.into_iter().map(BlockArg::Value).collect();
        let graph = self.graph.as_mut().expect("labels belong to graphs");
        graph.edges.push(Edge {
            from: graph.current,
            to: target,
            written: self.written_in_run,
            inherits: self.dirty_from_label,
        });
        if !label.lifted {
            self.b.ins().jump(label.block, &arguments);
            return true;
        }

        let fits = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, left, total);
        let leave = self.b.create_block();
        self.b.ins().brif(fits, label.block, &arguments, leave, &[]);
        self.b.switch_to_block(leave);
        false
    }

    /// NZCV as the parameters of a label of `shape`, converted from the block's flags where they can be; `None`
    /// where they cannot (lazy flags of another kind). Changes nothing the rest of the block may use.
    fn flag_arguments(&mut self, shape: FlagsShape) -> Option<Vec<Value>> {
        if shape == FlagsShape::Unread {
            return Some(vec![]);
        }
        let (in_cpu, carried) = match self.flags {
            FlagsState::InCpu => (None, None),
            FlagsState::Unread => {
                self.note_flags_read();
                (None, None)
            }
            FlagsState::Lazy(lazy) => (None, Some(lazy)),
            FlagsState::AtLabel { in_cpu, carried } => (Some(in_cpu), Some(carried)),
        };
        let same_kind = self.flags_shape() == shape;
        match shape {
            FlagsShape::InCpu => {
                if carried.is_some() {
                    let packed = self.compute_packed_flags();
                    self.store_packed_flags(packed);
                }
                Some(vec![])
            }
            _ if carried.is_none() => {
                // Still in the `CpuState`: `in_cpu` set, the carried values unused.
                let types = shape.parameter_types();
                Some(
                    types
                        .iter()
                        .enumerate()
                        .map(|(position, &ty)| self.b.ins().iconst(ty, i64::from(position == 0)))
                        .collect(),
                )
            }
            // Packed from whatever kind (a conditional compare's flags have this shape, and no values of their own).
            FlagsShape::Packed => {
                let packed = self.compute_packed_flags();
                Some(vec![self.b.ins().iconst(types::I8, 0), packed])
            }
            _ if same_kind => {
                let in_cpu = in_cpu.unwrap_or_else(|| self.b.ins().iconst(types::I8, 0));
                Some(std::iter::once(in_cpu).chain(carried.expect("lazy flags").values()).collect())
            }
            _ => None,
        }
    }

    /// Starts lifting a graph: when a branch goes back to the start (`RegionPlan::start_is_target`), the entry
    /// block loads the carried registers and goes to the start as its first label, and this returns true;
    /// otherwise the caller lifts the start's run right in the entry block.
    fn enter_graph(&mut self, plan: RegionPlan) -> bool {
        let start = self.pc;
        let total = self.b.ins().iconst(types::I64, 0);
        let start_is_label = plan.start_is_target;
        self.graph = Some(Graph {
            plan,
            labels: HashMap::new(),
            worklist: BTreeSet::new(),
            lifted: HashSet::new(),
            total,
            label_flags: HashMap::new(),
            split_at: HashSet::new(),
            start,
            start_targeted: false,
            edges: Vec::new(),
            current: None,
            returns: BTreeSet::new(),
            accessing: HashSet::new(),
            flags_read: HashSet::new(),
            flags_passed: Vec::new(),
            unread_flags_read: HashSet::new(),
        });
        if start_is_label {
            self.transfer(start, start, 0);
            // Only branches inside the region count.
            self.graph.as_mut().expect("a graph region").start_targeted = false;
        }
        start_is_label
    }

    /// The next label whose run is to be lifted, with the block switched to it and the state its parameters.
    fn next_label(&mut self) -> Option<u64> {
        let graph = self.graph.as_mut()?;
        let (_, address) = graph.worklist.pop_first()?;
        let label = graph.labels.get_mut(&address).expect("worklist entries are labels");
        label.lifted = true;
        let label = *label;
        graph.current = Some(address);
        self.enter_label(address, label);
        Some(address)
    }

    fn enter_label(&mut self, address: u64, label: Label) {
        self.b.switch_to_block(label.block);
        let parameters = self.b.block_params(label.block).to_vec();
        self.registers = [None; 32];
        self.checked.clear();
        for (index, &value) in register_indices(label.dirty).zip(&parameters) {
            self.registers[index as usize] = Some(value);
        }
        let flags_at = label.dirty.count_ones() as usize;
        let flags_count = label.flags.parameter_types().len();
        self.flags = label.flags.at_label(&parameters[flags_at..flags_at + flags_count]);
        // An exit before NZCV is set stores it: at `Unread`, a read that voids the lifting.
        self.flags_dirty = label.flags != FlagsShape::InCpu;
        // An exit right at the label (no room for its run) passes its NZCV out.
        self.flags_segment = vec![address];
        self.dirty = label.dirty;
        // Registers may reach the label changed and not yet stored; every edge made a replay point on its way
        // (and may have loaded since) unless the run needs none (should it make an access after all, that
        // access makes one, and so does an edge to a label that needs one).
        self.recorded = Recorded { unsynced: label.dirty, replay: label.needs_replay, flags: false, loaded: true };
        self.written_in_run = 0;
        self.dirty_from_label = true;
        self.budget = *parameters.last().expect("a label's last parameter is the budget");
        self.retired = 0;
    }

    /// Ends the labels the region had no room for with exits to their addresses, and writes the region's
    /// instruction count into the budget checks.
    fn close_graph(&mut self) {
        let graph = self.graph.as_mut().expect("a graph region");
        let mut unlifted: Vec<(u64, Label)> =
            graph.labels.iter().filter(|(_, label)| !label.lifted).map(|(&address, &label)| (address, label)).collect();
        // In address order: the same bytes give the same code.
        unlifted.sort_by_key(|&(address, _)| address);
        for (address, label) in unlifted {
            self.enter_label(address, label);
            let address = self.iconst(types::I64, address);
            self.exit_to(address, 0, false);
        }
        let graph = self.graph.as_ref().expect("a graph region");
        let total = self.b.func.dfg.value_def(graph.total).unwrap_inst();
        self.b.func.replace(total).iconst(types::I64, i64::from(self.count));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_reference::memory::Perm;

    /// Two labels: the start, whose run sets NZCV (CMP) before reading it, and 0x10004, whose run reads it first
    /// (B.NE): the plan leaves NZCV out of the start's only; a plan that wrongly leaves it out of 0x10004's too
    /// voids the lifting, naming 0x10004 (`lift_block` then lifts it again with NZCV carried there).
    #[test]
    fn only_labels_whose_flags_no_run_reads_carry_none() {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x10000, PAGE_SIZE, Perm::RX).unwrap();
        // 0x10000: cmp x1, #3; 0x10004: b.ne 0x10000; subs x1, x1, #1; b.ne 0x10004; svc #0
        let code: Vec<u8> = [0xf1000c3fu32, 0x54ffffe1, 0xf1000421, 0x54ffffc1, 0xd4000001]
            .iter()
            .flat_map(|word| word.to_le_bytes())
            .collect();
        memory.write_privileged(0x10000, &code).unwrap();
        let isa = crate::host_isa().unwrap();
        let profile = EdgeProfile::default();
        let region = Region { memory: &memory, pc: 0x10000, limit: 64, profile: &profile, isa: &*isa };
        let (_, plan) = lift_region(&region, Some(RegionPlan::carrying_everything())).unwrap();
        // By address: CMP and SUBS set NZCV first; the B.NEs read it, and SVC leaves the region with it.
        assert_eq!(plan.flags_unread, HashSet::from([0x10000, 0x10008]));
        let (_, lifting) = lift_region(&region, Some(plan.clone())).unwrap();
        assert!(lifting.unread_flags_read.is_empty());
        let wrong = RegionPlan { flags_unread: HashSet::from([0x10000, 0x10004]), ..plan };
        let (_, lifting) = lift_region(&region, Some(wrong)).unwrap();
        assert_eq!(lifting.unread_flags_read, HashSet::from([0x10004]), "a read of NZCV at 0x10004 went unnoticed");
    }
}
