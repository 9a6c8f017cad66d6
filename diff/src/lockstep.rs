//! Lockstep: a whole program on the fast path and the reference at once, compared after every run of the
//! engine (a scheduler quantum, a system call, or at most `every` instructions).
//!
//! `LockstepEngine` is an `Engine`. The reference runs on the kernel's memory, so the program goes on exactly as
//! on `--cpu reference`; the fast path runs on a shadow copy made before each run. After the run the exits, the
//! CPU states and every mapped byte must agree. At the first difference it bisects: to the number of instructions
//! after which the paths part, then (recompiling that block shorter and shorter) to the single instruction, and
//! stops the run with `Exit::EngineStopped`; `divergence()` holds the report.

use crate::a64::{Compared, cpu_differences};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use tandem_fast::lift::MAX_BLOCK_INSTRUCTIONS;
use tandem_fast::{FastEngine, FastError};
use tandem_reference::disasm::disassemble;
use tandem_reference::engine::{Engine, Exit, GuestClock, RunResult};
use tandem_reference::memory::{GuestMemory, MapError, PAGE_SIZE, Perm, Region, SharedPages};
use tandem_reference::{CpuState, Interpreter};

/// Every mapped byte of a guest memory, by region.
struct Snapshot {
    regions: Vec<(Region, Vec<u8>)>,
}

impl Snapshot {
    fn capture(memory: &GuestMemory) -> Snapshot {
        let regions = memory
            .regions()
            .into_iter()
            .map(|region| {
                let mut bytes = vec![0; region.size as usize];
                memory.read_privileged(region.address, &mut bytes).expect("listed regions are mapped");
                (region, bytes)
            })
            .collect();
        Snapshot { regions }
    }

    /// Writes the bytes back into a memory with the same regions: only the pages that differ, since a write to an
    /// executable page drops the code compiled from it (the fast path would otherwise compile every region again
    /// after each comparison, and lockstep would never check code that stays compiled).
    fn restore(&self, memory: &GuestMemory) {
        let mut current = vec![0u8; PAGE_SIZE as usize];
        for (region, bytes) in &self.regions {
            for (index, page) in bytes.chunks(PAGE_SIZE as usize).enumerate() {
                let address = region.address + index as u64 * PAGE_SIZE;
                let current = &mut current[..page.len()];
                memory.read_privileged(address, current).expect("the regions are mapped");
                if current != page {
                    memory.write_privileged(address, page).expect("the regions are mapped");
                }
            }
        }
    }

    /// The first address where `memory` differs from this snapshot, with both bytes (snapshot's first).
    fn first_difference(&self, memory: &GuestMemory) -> Option<(u64, u8, u8)> {
        let mut buffer = Vec::new();
        for (region, bytes) in &self.regions {
            buffer.resize(bytes.len(), 0);
            memory.read_privileged(region.address, &mut buffer).ok()?;
            if let Some(at) = bytes.iter().zip(&buffer).position(|(a, b)| a != b) {
                return Some((region.address + at as u64, bytes[at], buffer[at]));
            }
        }
        None
    }
}

/// What lockstep has compared so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct LockstepStats {
    pub runs: u64,
    pub instructions: u64,
    /// Regions the fast path compiled or loaded, those of them holding instructions of more than one page, and
    /// those loaded from the code cache.
    pub regions: u64,
    pub spanning: u64,
    pub loaded: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum LockstepError {
    #[error(transparent)]
    Fast(#[from] FastError),
    #[error("making the fast path's shadow memory: {0}")]
    Memory(#[from] MapError),
}

pub struct LockstepEngine {
    fast: FastEngine,
    paths: Comparison,
    shadow_layout: Layout,
    /// The shadow's own shared pages, by the id of the kernel memory's pages they stand for.
    shadow_pages: HashMap<u64, SharedPages>,
    every: u64,
    stats: LockstepStats,
    divergence: Option<String>,
}

impl LockstepEngine {
    /// Compares at least every `every` instructions.
    pub fn new(every: u64) -> Result<LockstepEngine, LockstepError> {
        // Every region compiled at its second use, shaped by the edges its first (interpreted) run took, as the
        // regions of a normal run are: code that runs twice is checked compiled, in those shapes.
        LockstepEngine::with_fast_path(every, FastEngine::with_defaults()?.compiling_at_second_use())
    }

    /// Compares at least every `every` instructions, with `fast` as the fast path (for one configured as
    /// `tandem run` configures it: compiling in the background, loading from a code cache).
    pub fn with_fast_path(every: u64, fast: FastEngine) -> Result<LockstepEngine, LockstepError> {
        Ok(LockstepEngine {
            fast,
            paths: Comparison { reference: Interpreter::default(), shadow: GuestMemory::new()? },
            shadow_layout: Layout::default(),
            shadow_pages: HashMap::new(),
            every: every.max(1),
            stats: LockstepStats::default(),
            divergence: None,
        })
    }

    pub fn stats(&self) -> LockstepStats {
        let compiled = self.fast.stats();
        LockstepStats {
            regions: compiled.blocks + compiled.loaded,
            spanning: compiled.spanning,
            loaded: compiled.loaded,
            ..self.stats
        }
    }

    /// The report of the first divergence, if the paths parted.
    pub fn divergence(&self) -> Option<&str> {
        self.divergence.as_deref()
    }

    /// Gives the shadow the kernel memory's layout (mapping, unmapping and protecting only the pages that
    /// changed; addresses that share pages there share pages in the shadow too) and bytes. Compiled blocks stay
    /// valid: code changes reach `invalidate` as for the kernel's memory.
    fn sync_shadow(&mut self, memory: &GuestMemory, snapshot: &Snapshot) -> Result<(), MapError> {
        let shared_runs = memory.shared_runs();
        let layout = Layout {
            regions: snapshot.regions.iter().map(|(region, _)| *region).collect(),
            shared: shared_runs.iter().map(|run| (run.address, run.size, run.pages.id(), run.offset)).collect(),
            sizes: shared_runs.iter().map(|run| (run.pages.id(), run.pages.size())).collect(),
        };
        if layout != self.shadow_layout {
            let (old, new) = (self.shadow_layout.pages(), layout.pages());
            remap(&mut self.paths.shadow, &mut self.shadow_pages, &layout, &old, &new)?;
            self.shadow_pages.retain(|id, _| layout.sizes.contains_key(id));
            self.shadow_layout = layout;
        }
        snapshot.restore(&self.paths.shadow);
        Ok(())
    }

    /// Finds the instruction where the paths part, in a run of `budget` instructions from `cpu` and `snapshot`
    /// that ended differently (`observed`: how), and describes it.
    fn bisect(
        &mut self,
        cpu: &CpuState,
        memory: &GuestMemory,
        snapshot: &Snapshot,
        budget: u64,
        clock: GuestClock,
        observed: &[String],
    ) -> String {
        // Engines that return to their dispatcher after every block, so that they can say which block ran last:
        // straight regions where they reproduce the divergence (their blocks run in address order, so a shorter
        // block pinpoints the instruction), regions lifted as graphs otherwise (then the divergence lies in how
        // a region carries the guest state between its labels).
        let engines = FastEngine::with_block_limit(MAX_BLOCK_INSTRUCTIONS).and_then(|straight| {
            Ok((straight.straight_regions(), FastEngine::with_block_limit(MAX_BLOCK_INSTRUCTIONS)?))
        });
        let (mut straight, mut graphs) = match engines {
            Ok(engines) => engines,
            Err(error) => return format!("lockstep: the paths part, and bisecting needs a fast path: {error}\n"),
        };
        let paths = &mut self.paths;
        let straight_differs = !paths.compare(&mut straight, cpu, memory, snapshot, budget, clock).1.is_empty();
        if !straight_differs && paths.compare(&mut graphs, cpu, memory, snapshot, budget, clock).1.is_empty() {
            snapshot.restore(memory);
            return self.not_reproduced(cpu, budget, observed);
        }
        let paths = &mut self.paths;
        let fast = if straight_differs { &mut straight } else { &mut graphs };
        // The fewest instructions after which the results differ.
        let (mut agree, mut differ) = (0, budget);
        while differ - agree > 1 {
            let middle = agree + (differ - agree) / 2;
            if paths.compare(fast, cpu, memory, snapshot, middle, clock).1.is_empty() {
                agree = middle;
            } else {
                differ = middle;
            }
        }
        let (_, differences) = paths.compare(fast, cpu, memory, snapshot, differ, clock);
        // The block that ran last holds the instruction: recompile it shorter and shorter from the state before it.
        let mut instruction = differ;
        let mut block_listing = String::new();
        // The differences right after the guilty instruction, as a block that ends there leaves them.
        let mut differences_at = Vec::new();
        if let Some(block) = fast.last_block().filter(|block| block.retired_before + block.retired == differ) {
            let (before_block, _) = paths.compare(fast, cpu, memory, snapshot, block.retired_before, clock);
            let block_snapshot = Snapshot::capture(memory);
            // Straight blocks: a shorter one then ends inside the block's path, which it pinpoints (a block that
            // went round a loop is pinpointed only when its first pass already differs).
            for length in 1..=block.retired.min(u64::from(MAX_BLOCK_INSTRUCTIONS)) {
                let Ok(mut short) = FastEngine::with_block_limit(length as u32).map(FastEngine::straight_regions)
                else {
                    break;
                };
                let clock = GuestClock { instructions_before: clock.instructions_before + block.retired_before };
                let (_, found) = paths.compare(&mut short, &before_block, memory, &block_snapshot, length, clock);
                if !found.is_empty() {
                    instruction = block.retired_before + length;
                    differences_at = found;
                    break;
                }
            }
            block_snapshot.restore(&paths.shadow);
            block_listing = fast.listing(&paths.shadow, block.pc).unwrap_or_default();
        }
        let (before, _) = paths.compare(fast, cpu, memory, snapshot, instruction - 1, clock);
        let (after, _) = paths.compare(fast, cpu, memory, snapshot, instruction, clock);
        let differences = if differences_at.is_empty() { differences } else { differences_at };
        snapshot.restore(memory);

        let mut word = [0; 4];
        let word = memory.read_privileged(before.pc, &mut word).ok().map(|_| u32::from_le_bytes(word));
        let mut report = String::new();
        let total = self.stats.instructions + instruction;
        writeln!(report, "lockstep: the fast path parts from the reference at instruction {total} of the run").unwrap();
        match word {
            Some(word) => writeln!(report, "  {:#x}: {word:#010x}  {}", before.pc, disassemble(word, before.pc)),
            None => writeln!(report, "  {:#x}: (not readable)", before.pc),
        }
        .unwrap();
        if !straight_differs {
            writeln!(report, "  (only with regions lifted as graphs: look at what the block carries between labels)")
                .unwrap();
        }
        writeln!(report, "state before:\n{}", describe_state(&before)).unwrap();
        writeln!(report, "reference after:\n{}", describe_state(&after)).unwrap();
        writeln!(report, "reference vs fast:").unwrap();
        for difference in &differences {
            writeln!(report, "  {difference}").unwrap();
        }
        if !block_listing.is_empty() {
            writeln!(report, "fast path's {block_listing}").unwrap();
        }
        report
    }

    /// The report when fresh fast-path engines (compiling at first use, with no edge profile, no chaining and no
    /// regions compiled earlier) run the same instructions as the reference: the divergence depends on what the
    /// run's own engine had built, so it is told by its run and what differed at its end.
    fn not_reproduced(&self, cpu: &CpuState, budget: u64, observed: &[String]) -> String {
        let first = self.stats.instructions + 1;
        let mut report = String::new();
        writeln!(
            report,
            "lockstep: the fast path parts from the reference within instructions {first}..{} of the run (from pc \
             {:#x}), but fresh fast-path engines (no edge profile, no chaining, no regions compiled before) agree \
             there, so it cannot be pinned to one instruction: look at region shapes, chaining and code left stale",
            first + budget - 1,
            cpu.pc
        )
        .unwrap();
        writeln!(report, "state before:\n{}", describe_state(cpu)).unwrap();
        writeln!(report, "reference vs fast at the end of that run:").unwrap();
        for difference in observed {
            writeln!(report, "  {difference}").unwrap();
        }
        report
    }
}

/// The reference and the fast path's shadow memory: what one comparison needs besides the fast engine.
struct Comparison {
    reference: Interpreter,
    shadow: GuestMemory,
}

impl Comparison {
    /// Runs both paths `count` instructions from `cpu` and the snapshot (the reference on `memory`, the fast
    /// path `fast` on the shadow) and lists how the results differ.
    fn compare(
        &mut self,
        fast: &mut FastEngine,
        cpu: &CpuState,
        memory: &GuestMemory,
        snapshot: &Snapshot,
        count: u64,
        clock: GuestClock,
    ) -> (CpuState, Vec<String>) {
        snapshot.restore(memory);
        snapshot.restore(&self.shadow);
        let mut reference_cpu = cpu.clone();
        let reference = self.reference.run(&mut reference_cpu, memory, count, clock);
        let mut fast_cpu = cpu.clone();
        let fast_result = fast.run(&mut fast_cpu, &self.shadow, count, clock);
        let mut differences = cpu_differences(&reference_cpu, &fast_cpu, Compared::Everything);
        if reference != fast_result {
            differences.push(format!("exit: {reference:?} vs {fast_result:?}"));
        }
        if let Some((address, ours, theirs)) = Snapshot::capture(memory).first_difference(&self.shadow) {
            differences.push(format!("memory {address:#x}: {ours:#04x} vs {theirs:#04x}"));
        }
        (reference_cpu, differences)
    }
}

impl Engine for LockstepEngine {
    /// Runs both paths in chunks of at most `every` instructions, comparing after each; the caller sees one run,
    /// as without lockstep, so that the kernel's run boundaries (which clear the exclusive monitor) fall where
    /// they would on `--cpu reference`.
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        let mut retired = 0;
        loop {
            let chunk_clock = GuestClock { instructions_before: clock.instructions_before + retired };
            let chunk = self.run_chunk(cpu, memory, (budget - retired).min(self.every), chunk_clock);
            retired += chunk.retired;
            if chunk.exit != Exit::BudgetSpent || retired >= budget {
                return RunResult { exit: chunk.exit, retired };
            }
        }
    }

    fn invalidate(&mut self, address: u64, size: u64) {
        self.fast.invalidate(address, size);
    }

    fn can_fork(&self) -> Result<(), &'static str> {
        Err("a fork under lockstep (the shadow memory belongs to one process)")
    }
}

impl LockstepEngine {
    /// One chunk of `budget` instructions on both paths, then the comparison; a divergence is bisected and ends
    /// the run (EngineStopped, the CPU as it was before the chunk).
    fn run_chunk(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        if self.divergence.is_some() {
            return RunResult { exit: Exit::EngineStopped, retired: 0 };
        }
        let snapshot = Snapshot::capture(memory);
        if let Err(error) = self.sync_shadow(memory, &snapshot) {
            self.divergence = Some(format!("lockstep could not copy guest memory for the fast path: {error}"));
            return RunResult { exit: Exit::EngineStopped, retired: 0 };
        }
        let before = cpu.clone();
        let mut fast_cpu = cpu.clone();
        let fast = self.fast.run(&mut fast_cpu, &self.paths.shadow, budget, clock);
        let reference = self.paths.reference.run(cpu, memory, budget, clock);
        let agree = fast == reference
            && fast_cpu == *cpu
            && Snapshot::capture(memory).first_difference(&self.paths.shadow).is_none();
        if agree {
            self.stats.runs += 1;
            self.stats.instructions += reference.retired;
            return reference;
        }
        let mut observed = cpu_differences(cpu, &fast_cpu, Compared::Everything);
        if fast != reference {
            observed.push(format!("exit: {reference:?} vs {fast:?}"));
        }
        if let Some((address, ours, theirs)) = Snapshot::capture(memory).first_difference(&self.paths.shadow) {
            observed.push(format!("memory {address:#x}: {ours:#04x} vs {theirs:#04x}"));
        }
        let report = self.bisect(&before, memory, &snapshot, budget, clock, &observed);
        *cpu = before;
        self.divergence = Some(report);
        RunResult { exit: Exit::EngineStopped, retired: 0 }
    }
}

/// A memory's layout as the shadow copies it: its regions and its views of shared pages (address, size, the
/// pages' id, offset), with each shared pages' size.
#[derive(Default, PartialEq)]
struct Layout {
    regions: Vec<Region>,
    shared: Vec<(u64, u64, u64, u64)>,
    sizes: BTreeMap<u64, u64>,
}

/// A mapped page: its permission and, for a view of shared pages, their id and the page's offset in them.
type Page = (Perm, Option<(u64, u64)>);

impl Layout {
    /// Every mapped page, by address.
    fn pages(&self) -> BTreeMap<u64, Page> {
        let mut pages: BTreeMap<u64, Page> = BTreeMap::new();
        for region in &self.regions {
            for address in (region.address..region.address + region.size).step_by(PAGE_SIZE as usize) {
                pages.insert(address, (region.perm, None));
            }
        }
        for &(address, size, id, offset) in &self.shared {
            for delta in (0..size).step_by(PAGE_SIZE as usize) {
                if let Some(page) = pages.get_mut(&(address + delta)) {
                    page.1 = Some((id, offset + delta));
                }
            }
        }
        pages
    }
}

/// Changes `shadow` from the layout `old` to `new` (pages of `layout`), one run of consecutive pages per call;
/// views of shared pages become views of the shadow's own pages for the same id.
fn remap(
    shadow: &mut GuestMemory,
    shadow_pages: &mut HashMap<u64, SharedPages>,
    layout: &Layout,
    old: &BTreeMap<u64, Page>,
    new: &BTreeMap<u64, Page>,
) -> Result<(), MapError> {
    let moved = |page: &u64| old.get(page).map(|was| was.1) != new.get(page).map(|now| now.1);
    let gone = old.iter().filter(|(page, _)| moved(page));
    for (address, size, _) in runs(gone.map(|(&page, &state)| (page, state))) {
        shadow.unmap(address, size)?;
    }
    let added = new.iter().filter(|(page, _)| moved(page));
    for (address, size, (perm, backing)) in runs(added.map(|(&page, &state)| (page, state))) {
        match backing {
            None => shadow.map(address, size, perm)?,
            Some((id, offset)) => {
                let pages = match shadow_pages.get(&id) {
                    Some(pages) => pages.clone(),
                    None => {
                        let pages = SharedPages::new(layout.sizes[&id])?;
                        shadow_pages.insert(id, pages.clone());
                        pages
                    }
                };
                shadow.map_shared(address, size, perm, &pages, offset)?;
            }
        }
    }
    let changed = new.iter().filter(|(page, state)| !moved(page) && old.get(page).is_some_and(|was| was.0 != state.0));
    for (address, size, (perm, _)) in runs(changed.map(|(&page, &(perm, _))| (page, (perm, None)))) {
        shadow.protect(address, size, perm)?;
    }
    Ok(())
}

/// Consecutive pages of equal permission (and, for views, consecutive offsets of the same shared pages), in
/// ascending order, merged into (address, size, first page's state) runs.
fn runs(pages: impl Iterator<Item = (u64, Page)>) -> Vec<(u64, u64, Page)> {
    let mut runs: Vec<(u64, u64, Page)> = Vec::new();
    for (page, state) in pages {
        match runs.last_mut() {
            Some((address, size, (perm, backing)))
                if *address + *size == page
                    && *perm == state.0
                    && backing.map(|(id, offset)| (id, offset + *size)) == state.1 =>
            {
                *size += PAGE_SIZE
            }
            _ => runs.push((page, PAGE_SIZE, state)),
        }
    }
    runs
}

fn describe_state(cpu: &CpuState) -> String {
    let mut out = String::new();
    for (n, x) in cpu.x.iter().enumerate() {
        write!(out, "  x{n:<2}={x:#018x}").unwrap();
        if n % 4 == 3 {
            out.push('\n');
        }
    }
    write!(out, "  sp ={:#018x}\n  pc={:#x} nzcv={:#x}", cpu.sp, cpu.pc, cpu.nzcv >> 28).unwrap();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A divergence the bisection's fresh engines do not reproduce is reported as such, with the run it happened
    /// in and what differed at its end, not blamed on the run's last instruction.
    #[test]
    fn a_divergence_fresh_engines_do_not_reproduce_says_so() {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x10000, 0x1000, Perm::RX).unwrap();
        // add x0, x0, #1; add x0, x0, #1: both paths agree on them.
        let code: Vec<u8> = [0x9100_0400u32, 0x9100_0400].iter().flat_map(|w| w.to_le_bytes()).collect();
        memory.write_privileged(0x10000, &code).unwrap();
        let mut lockstep = LockstepEngine::new(100).unwrap();
        let snapshot = Snapshot::capture(&memory);
        lockstep.sync_shadow(&memory, &snapshot).unwrap();
        let cpu = CpuState { pc: 0x10000, ..CpuState::default() };
        let observed = ["x0: 0x2 vs 0x3".to_string()];
        let report = lockstep.bisect(&cpu, &memory, &snapshot, 2, GuestClock::default(), &observed);
        assert!(report.contains("within instructions 1..2 of the run (from pc 0x10000)"), "{report}");
        assert!(report.contains("cannot be pinned to one instruction"), "{report}");
        assert!(report.contains("  x0: 0x2 vs 0x3"), "{report}");
    }
}
