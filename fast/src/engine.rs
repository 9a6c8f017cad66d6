//! `FastEngine`: the dispatcher that runs compiled blocks and hands the rest to the reference interpreter.

use crate::background::{self, Finished, HostCode, Jobs, Lifted};
use crate::code_cache::{CachedBlock, CodeCache, Key};
use crate::code_memory::{CodeMemory, CodeMemoryError};
use crate::edges::{EdgeProfile, PcHasher};
use crate::fault::SiteIndex;
use crate::lift::{
    CHAIN_ENTRIES, ChainEntry, EntryArgs, INTERPRET_NEXT, LiftedBlock, MAX_BLOCK_INSTRUCTIONS, REPLAY, compilable,
    lift_block, trampoline,
};
use crate::profiling::PerfOutput;
use crate::runtime::{Context, Runtime};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::Path;
use std::time::{Duration, Instant};
use tandem_reference::engine::{Engine, Exit, GuestClock, RunResult};
use tandem_reference::memory::{GuestMemory, PAGE_SIZE};
use tandem_reference::sysreg::{CpuIdentity, PointerAuthKeys};
use tandem_reference::{CpuState, Interpreter, Unpredictable};

/// Visits to an address before the dispatcher compiles a region there, or loads it from the code cache. Code
/// that runs fewer times costs less to interpret than to compile (~100 µs a region): at 64, busybox's gzip and awk
/// start cold a quarter faster than at 4, and run no slower. Loading costs far less than compiling.
const DEFAULT_COMPILE_THRESHOLD: u32 = 64;
const LOAD_THRESHOLD: u32 = 4;

/// The most regions `precompile` leaves waiting for the compile threads.
const MAX_PRECOMPILE_QUEUE: usize = 64;

/// Bytes of dropped code (of blocks invalidated since) past which the engine reclaims code memory, once they
/// also outnumber the live code's: a guest that rewrites its code endlessly then keeps the engine's code memory
/// within about twice what it runs, and one that never does never pays for a move.
const RECLAIM_DROPPED_BYTES: usize = 32 << 20;

#[derive(Clone, Copy, Default)]
enum Block {
    /// Code (a `tail`-convention function, entered through the trampoline) and the instructions it retires.
    Compiled { code: u64, instructions: u32 },
    /// The first instruction is one the lifter leaves to the reference.
    #[default]
    Interpreted,
}

impl Block {
    fn chain_entry(self, pc: u64) -> ChainEntry {
        match self {
            Block::Compiled { code, instructions } => ChainEntry { pc, code, instructions: u64::from(instructions) },
            Block::Interpreted => ChainEntry { pc, ..ChainEntry::EMPTY },
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FastError {
    #[error("Cranelift does not support this host: {0}")]
    Host(String),
    #[error("the code cache folder {dir} is not usable ({error}); set TANDEM_CODE_CACHE to another folder or to off")]
    CodeCacheDir { dir: String, error: std::io::Error },
    #[error(transparent)]
    CodeMemory(#[from] CodeMemoryError),
}

/// What the engine has compiled so far, for `tandem bench` and the logs.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompileStats {
    /// Blocks compiled, their guest instructions and the time lifting and compiling took.
    pub blocks: u64,
    pub guest_instructions: u64,
    pub time: Duration,
    /// Blocks loaded from the code cache instead, and the time that took (key hashing included).
    pub loaded: u64,
    pub load_time: Duration,
    /// Blocks that could not be compiled (the lifter's IR rejected, the code cache full...): interpreted instead,
    /// each logged.
    pub rejected: u64,
    /// Blocks compiled or loaded that hold instructions of pages other than their start's (`edges`).
    pub spanning: u64,
    /// Times the engine moved its live code into fresh memory to free what dropped blocks held.
    pub reclaims: u64,
}

/// Where the engine's code memory goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodeBytes {
    /// Code of the blocks the engine may run (the trampoline's too).
    pub live: usize,
    /// Code of blocks dropped since (invalidated), not reclaimed yet, and the alignment between regions.
    pub dropped: usize,
    /// Host memory mapped for code.
    pub mapped: usize,
}

/// The fast CPU path: guest blocks lifted to host code through Cranelift, the reference interpreter for what
/// the lifter leaves to it. Results are identical to the reference's, budget and exits included.
pub struct FastEngine {
    interpreter: Interpreter,
    isa: OwnedTargetIsa,
    code: CodeMemory,
    disk: Option<CodeCache>,
    /// The `CpuState` compiled code runs on, the runtime and the chain table (`Context`). The chain table is a
    /// direct-mapped cache of `blocks` that both the dispatcher and compiled code (to link blocks) look up.
    /// Boxed: compiled code holds its address for the length of a call.
    context: Box<Context>,
    /// The trampoline's code (`lift::trampoline`), entered through `fault::enter`, and its length.
    trampoline: usize,
    trampoline_length: usize,
    /// How many bytes of `code` dropped blocks must hold to make `run` reclaim them (`reclaim_code`).
    reclaim_threshold: usize,
    /// The trap sites of every block installed, for the fault handler.
    sites: SiteIndex,
    /// Blocks by guest start address. A block is compiled only from pages that are executable, not writable and
    /// no view of shared pages, so guest stores cannot change it; `invalidate` drops it when its start's page or
    /// one of its `spanning` pages changes. (Code that a guest JIT writes through code memory's other view runs
    /// on the reference, which fetches every instruction.)
    blocks: HashMap<u64, Block, BuildHasherDefault<PcHasher>>,
    /// The blocks that hold instructions of each page other than their start's, by page.
    spanning: HashMap<u64, Vec<u64>, BuildHasherDefault<PcHasher>>,
    /// Where control went while the reference ran code not compiled yet: what shapes regions (`edges`).
    profile: EdgeProfile,
    /// Whether compiled blocks may chain into each other; without, each returns to the dispatcher, which then
    /// knows the last block that ran (`last_block`, for bisection). Compiled code is the same either way: an
    /// unchained engine hands it an empty table.
    chaining: bool,
    stats: CompileStats,
    /// How many times the dispatcher has reached each address it has not compiled yet, and how many times makes
    /// it compile (1: at first use).
    heat: HashMap<u64, u32, BuildHasherDefault<PcHasher>>,
    compile_threshold: u32,
    /// Regions being compiled on a thread of their own, where the engine compiles in the background.
    background: Option<Jobs>,
    /// Block names (and code) for `perf`, when `TANDEM_PERF_MAP` asks for them.
    perf: Option<PerfOutput>,
    last_unpredictable: Option<(u64, Unpredictable)>,
    /// The most instructions a block may hold (lockstep bisection compiles shorter blocks to pinpoint one).
    block_limit: u32,
    /// Whether regions are lifted as graphs, loops included, or as straight paths (`lift::region`).
    graphs: bool,
    last_block: Option<BlockRun>,
    /// The memory's layout changes this engine has dropped the blocks of (`GuestMemory::layout_change_count`).
    layout_seen: u64,
}

/// What `FastEngine::reclaim_code` moves into place: the fresh code memory, the trap sites and trampoline in it,
/// and the compiled blocks with their code's length.
struct MovedCode {
    code: CodeMemory,
    sites: SiteIndex,
    trampoline: u64,
    blocks: Vec<(u64, Block, usize)>,
}

/// The last compiled block a run entered, for divergence bisection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BlockRun {
    /// Guest address of the block.
    pub pc: u64,
    /// Instructions the run had retired before entering it.
    pub retired_before: u64,
    /// Instructions the block retired.
    pub retired: u64,
}

impl FastEngine {
    pub fn new(identity: CpuIdentity, keys: PointerAuthKeys) -> Result<FastEngine, FastError> {
        let isa = host_isa()?;
        let mut code = CodeMemory::default();
        let mut context = cranelift_codegen::Context::for_function(trampoline(&*isa));
        let compiled = context
            .compile(&*isa, &mut ControlPlane::default())
            .map_err(|error| FastError::Host(format!("compiling the trampoline: {:?}", error.inner)))?;
        let trampoline_length = compiled.code_buffer().len();
        let trampoline = code.install(compiled.code_buffer())? as usize;
        Ok(FastEngine {
            interpreter: Interpreter::new(identity, keys),
            isa,
            code,
            disk: None,
            context: Context::boxed(Runtime::for_host(identity, keys)),
            trampoline,
            trampoline_length,
            reclaim_threshold: RECLAIM_DROPPED_BYTES,
            sites: SiteIndex::default(),
            blocks: HashMap::default(),
            spanning: HashMap::default(),
            profile: EdgeProfile::default(),
            chaining: true,
            stats: CompileStats::default(),
            heat: HashMap::default(),
            compile_threshold: DEFAULT_COMPILE_THRESHOLD,
            background: None,
            perf: PerfOutput::from_environment(),
            last_unpredictable: None,
            block_limit: MAX_BLOCK_INSTRUCTIONS,
            graphs: true,
            last_block: None,
            layout_seen: 0,
        })
    }

    /// An engine whose blocks hold at most `limit` instructions (at least 1) and return to the dispatcher after
    /// each block, so that `last_block` says which ran last.
    pub fn with_block_limit(limit: u32) -> Result<FastEngine, FastError> {
        let mut engine = FastEngine::with_defaults()?.compiling_at_first_use();
        engine.block_limit = limit.clamp(1, MAX_BLOCK_INSTRUCTIONS);
        engine.chaining = false;
        Ok(engine)
    }

    /// Compiles each region as one straight path, which every branch off it leaves: then a block's run retires
    /// at most its instructions, in address order, which lockstep bisection needs to pinpoint one.
    pub fn straight_regions(mut self) -> FastEngine {
        self.graphs = false;
        self
    }

    /// Compiles every region the first time it is reached, instead of after `DEFAULT_COMPILE_THRESHOLD` visits:
    /// for the differential suites, which must exercise compiled code even where it runs once.
    pub fn compiling_at_first_use(mut self) -> FastEngine {
        self.compile_threshold = 1;
        self
    }

    /// Compiles every region the second time it is reached: after one run on the interpreter, whose edges shape
    /// the region as a normal run's profile does (`edges`), for lockstep runs that check the regions people run.
    pub fn compiling_at_second_use(mut self) -> FastEngine {
        self.compile_threshold = 2;
        self
    }

    /// Compiles hot regions on a thread of its own, and runs them on the reference until they are ready, instead
    /// of stopping to compile each (what a cold start spends most of its time on). Which instructions run
    /// compiled then depends on timing; results never do.
    pub fn compiling_in_background(mut self) -> FastEngine {
        self.background = Some(Jobs::new(self.isa.clone()));
        self
    }

    /// Reclaims the code memory of dropped blocks once they hold more than `bytes` (and more than the live
    /// blocks), instead of `RECLAIM_DROPPED_BYTES`: for tests of the move.
    pub fn reclaiming_code_past(mut self, bytes: usize) -> FastEngine {
        self.reclaim_threshold = bytes;
        self
    }

    /// Keeps compiled blocks in the code cache in `dir` and loads them from it.
    pub fn with_code_cache(mut self, dir: &Path) -> Result<FastEngine, FastError> {
        let cache = CodeCache::open(dir, &*self.isa)
            .map_err(|error| FastError::CodeCacheDir { dir: dir.display().to_string(), error })?;
        self.disk = Some(cache);
        Ok(self)
    }

    /// Compiles (or loads) the block at `pc` ahead of running it, and returns where execution may go from it:
    /// its successors and the address after it. An engine compiling in the background sends the block to its
    /// threads (`compiling`, `wait_for_compiled`).
    pub fn precompile(&mut self, memory: &GuestMemory, pc: u64) -> Vec<u64> {
        self.catch_up_with_layout(memory);
        if !compilable(memory, pc) {
            // Writable or shared code stays with the reference (`lift_block` takes pages that are neither).
            return vec![pc.wrapping_add(4)];
        }
        let started = Instant::now();
        let Some(mut lifted) = lift_block(memory, pc, self.block_limit, self.graphs, &self.profile, &*self.isa) else {
            // The reference runs this instruction; a block may start after it.
            return vec![pc.wrapping_add(4)];
        };
        let mut next = std::mem::take(&mut lifted.successors);
        next.push(pc.wrapping_add(4 * u64::from(lifted.instructions)));
        if self.compiling() > 0 {
            self.install_finished(memory, false);
        }
        let sent = self.background.as_ref().is_some_and(|jobs| jobs.waits_for(pc));
        if self.blocks.contains_key(&pc) || sent {
            return next;
        }
        let key = self.disk.as_mut().map(|disk| disk.key(memory, pc, self.block_limit, self.graphs));
        let cached = key.as_ref().is_some_and(|key| self.disk.as_ref().is_some_and(|disk| disk.holds(key)));
        if self.background.is_some() && !cached {
            // Lifting outruns compiling: the queue is kept short, so that lifted IR does not pile up.
            while self.compiling() >= MAX_PRECOMPILE_QUEUE {
                self.wait_for_compiled(memory);
            }
            self.send_to_background(memory, pc, key, lifted, started);
        } else {
            self.compile_and_insert(pc, (pc >> 2) as usize % CHAIN_ENTRIES, memory);
        }
        next
    }

    /// Regions sent to the compile threads and not installed yet.
    pub fn compiling(&self) -> usize {
        self.background.as_ref().map_or(0, Jobs::waiting)
    }

    /// The last compiled block the last `run` entered (engines made by `with_block_limit` only).
    pub fn last_block(&self) -> Option<BlockRun> {
        self.last_block
    }

    /// The Cortex-A78C with zero keys, as `Interpreter::default`.
    pub fn with_defaults() -> Result<FastEngine, FastError> {
        FastEngine::new(CpuIdentity::CORTEX_A78C, PointerAuthKeys::default())
    }

    pub fn stats(&self) -> CompileStats {
        self.stats
    }

    pub fn code_bytes(&self) -> CodeBytes {
        let live = self.sites.bytes() + self.trampoline_length;
        CodeBytes { live, dropped: self.code.installed_bytes() - live, mapped: self.code.mapped_bytes() }
    }

    /// The most recent CONSTRAINED UNPREDICTABLE case of the last `run` (always the reference's resolution).
    pub fn last_unpredictable(&self) -> Option<(u64, Unpredictable)> {
        self.last_unpredictable
    }

    /// The block that starts at `pc`, compiled once it is hot enough (`DEFAULT_COMPILE_THRESHOLD`); `None` where
    /// the reference runs it (not yet hot, the page not executable, or writable and so not safe to compile).
    #[inline]
    fn block_at(&mut self, pc: u64, memory: &GuestMemory) -> Option<Block> {
        let slot = (pc >> 2) as usize % CHAIN_ENTRIES;
        let entry = self.context.chain[slot];
        if entry.pc == pc {
            return Some(match entry.code {
                0 => Block::Interpreted,
                code => Block::Compiled { code, instructions: entry.instructions as u32 },
            });
        }
        self.block_at_slow(pc, slot, memory)
    }

    /// `block_at` past the direct-mapped front: kept out of line, since compiling needs a large stack frame.
    #[cold]
    #[inline(never)]
    fn block_at_slow(&mut self, pc: u64, slot: usize, memory: &GuestMemory) -> Option<Block> {
        if self.compiling() > 0 {
            self.install_finished(memory, false);
        }
        if let Some(&block) = self.blocks.get(&pc) {
            self.remember(slot, block.chain_entry(pc));
            return Some(block);
        }
        if !compilable(memory, pc) || self.background.as_ref().is_some_and(|jobs| jobs.covers(pc)) {
            return None;
        }
        let heat = self.heat.entry(pc).or_insert(0);
        *heat += 1;
        // The code cache is asked once, at `LOAD_THRESHOLD` visits: every address the interpreter steps
        // through is visited, and most never come back that often.
        let stored = *heat == LOAD_THRESHOLD.min(self.compile_threshold)
            && self.disk.as_mut().is_some_and(|disk| {
                let key = disk.key(memory, pc, self.block_limit, self.graphs);
                disk.holds(&key)
            });
        if *heat < self.compile_threshold && !stored {
            return None;
        }
        self.heat.remove(&pc);
        if !stored && self.background.is_some() {
            return self.compile_in_background(pc, slot, memory);
        }
        Some(self.compile_and_insert(pc, slot, memory))
    }

    fn compile_and_insert(&mut self, pc: u64, slot: usize, memory: &GuestMemory) -> Block {
        let compiled = self.compile(memory, pc);
        self.insert(pc, slot, compiled)
    }

    /// Makes `compiled` the block at `pc`; one that failed to compile is interpreted, and the warning says why.
    fn insert(&mut self, pc: u64, slot: usize, compiled: Result<Block, String>) -> Block {
        let block = match compiled {
            Ok(block) => block,
            Err(error) => {
                tracing::warn!(pc = format_args!("{pc:#x}"), "fast path: block not compiled, interpreting it: {error}");
                self.stats.rejected += 1;
                Block::Interpreted
            }
        };
        if let Some(replaced) = self.blocks.insert(pc, block) {
            self.forget_sites(replaced);
        }
        self.remember(slot, block.chain_entry(pc));
        block
    }

    /// Forgets a dropped block's trap sites: the fault handler no longer needs them, and its code no longer
    /// counts as live (`code_bytes`).
    fn forget_sites(&mut self, block: Block) {
        if let Block::Compiled { code, .. } = block {
            self.sites.remove(code);
        }
    }

    /// Moves the code of every live block (and the trampoline) into fresh code memory and unmaps the old, with
    /// what dropped blocks held. Only where no compiled code runs: between entries, with every pointer into code
    /// memory held by `blocks`, the chain table (emptied here, refilled as blocks are reached) and `sites`.
    /// Where the host refuses the memory, everything stays as it was.
    fn reclaim_code(&mut self) {
        let moved = match self.live_code_moved() {
            Ok(moved) => moved,
            Err(error) => {
                tracing::warn!("fast path: code memory not reclaimed ({error}); dropped code stays mapped");
                return;
            }
        };
        let MovedCode { code, sites, trampoline, blocks } = moved;
        (self.code, self.sites, self.trampoline) = (code, sites, trampoline as usize);
        for (pc, block, length) in blocks {
            self.blocks.insert(pc, block);
            if let Block::Compiled { code, .. } = block {
                self.name_for_perf(code as *const u8, length, pc);
            }
        }
        self.context.chain.fill(ChainEntry::EMPTY);
        self.stats.reclaims += 1;
        tracing::debug!(bytes = ?self.code_bytes(), "fast path: code memory reclaimed");
    }

    /// Copies of the trampoline and every compiled block, with their trap sites, in fresh code memory.
    fn live_code_moved(&self) -> Result<MovedCode, CodeMemoryError> {
        let mut code = CodeMemory::default();
        let mut sites = SiteIndex::default();
        let trampoline = code.install_copy(&self.code, self.trampoline as u64, self.trampoline_length)? as u64;
        let mut blocks = Vec::with_capacity(self.blocks.len());
        for (&pc, block) in &self.blocks {
            if let Block::Compiled { code: from, instructions } = *block {
                let (length, trap_sites) = self.sites.get(from).expect("every compiled block's sites are kept");
                let to = code.install_copy(&self.code, from, length as usize)? as u64;
                sites.insert(to, length, trap_sites.to_vec());
                blocks.push((pc, Block::Compiled { code: to, instructions }, length as usize));
            }
        }
        Ok(MovedCode { code, sites, trampoline, blocks })
    }

    /// Lifts the region at `pc` and hands it to the compile thread; `None` (the reference runs it) until
    /// `install_finished` finds it compiled.
    fn compile_in_background(&mut self, pc: u64, slot: usize, memory: &GuestMemory) -> Option<Block> {
        let started = Instant::now();
        let key = self.disk.as_mut().map(|disk| disk.key(memory, pc, self.block_limit, self.graphs));
        let Some(lifted) = lift_block(memory, pc, self.block_limit, self.graphs, &self.profile, &*self.isa) else {
            return Some(self.insert(pc, slot, Ok(Block::Interpreted)));
        };
        self.send_to_background(memory, pc, key, lifted, started);
        None
    }

    /// Hands a region lifted from `started` on to the compile threads.
    fn send_to_background(
        &mut self,
        memory: &GuestMemory,
        pc: u64,
        key: Option<Key>,
        lifted: LiftedBlock,
        started: Instant,
    ) {
        let LiftedBlock { function, instructions, other_pages, addresses, .. } = lifted;
        let ticket = key.and_then(|key| Some(self.disk.as_mut()?.ticket(memory, &key, &other_pages)));
        let lifted = Lifted { pc, instructions, other_pages, ticket, lift_time: started.elapsed() };
        if let Some(jobs) = &mut self.background {
            jobs.send(pc & !(PAGE_SIZE - 1), addresses, lifted, function);
        }
    }

    /// Waits for the compile thread to finish every region sent to it, and installs those still wanted (none of a
    /// page whose mapping changed since): then `stats` counts them all. For tests and tools that must know what
    /// runs compiled.
    pub fn finish_compiling(&mut self, memory: &GuestMemory) {
        self.catch_up_with_layout(memory);
        self.install_finished(memory, true);
    }

    /// Waits for the compile threads to finish a region (where any is `compiling`), and installs every one
    /// finished and still wanted.
    pub fn wait_for_compiled(&mut self, memory: &GuestMemory) {
        self.catch_up_with_layout(memory);
        if let Some(finished) = self.background.as_mut().and_then(|jobs| jobs.finished(true)) {
            self.install_finished_one(memory, finished);
        }
        self.install_finished(memory, false);
    }

    /// Installs the regions the compile threads have finished and the engine still wants; with `wait`, all of
    /// them.
    fn install_finished(&mut self, memory: &GuestMemory, wait: bool) {
        while let Some(finished) = self.background.as_mut().and_then(|jobs| jobs.finished(wait)) {
            self.install_finished_one(memory, finished);
        }
    }

    fn install_finished_one(&mut self, memory: &GuestMemory, finished: Finished) {
        let Finished { lifted, host, time } = finished;
        let pc = lifted.pc;
        // The compile thread stored it in the code cache already.
        let installed =
            host.and_then(|host| self.install(memory, pc, lifted.instructions, lifted.other_pages, None, host));
        self.stats.time += time;
        self.insert(pc, (pc >> 2) as usize % CHAIN_ENTRIES, installed);
    }

    /// Puts `entry` in the chain table, where compiled code links to it; an unchained engine leaves the table
    /// empty, so that every block returns to the dispatcher. `entry` is always the entry of a block in `blocks`,
    /// in slot `(pc >> 2) % CHAIN_ENTRIES` (what `drop_block` relies on).
    fn remember(&mut self, slot: usize, entry: ChainEntry) {
        if self.chaining {
            self.context.chain[slot] = entry;
        }
    }

    fn compile(&mut self, memory: &GuestMemory, pc: u64) -> Result<Block, String> {
        let started = Instant::now();
        let key = self.disk.as_mut().map(|disk| disk.key(memory, pc, self.block_limit, self.graphs));
        if let (Some(disk), Some(key)) = (&mut self.disk, &key)
            && let Some(cached) = disk.load(key, memory)
        {
            let start = self.code.install(&cached.code).map_err(|error| error.to_string())?;
            self.sites.insert(start as u64, cached.code.len() as u32, cached.sites);
            self.name_for_perf(start, cached.code.len(), pc);
            self.note_spanning(pc, &cached.other_pages);
            self.stats.loaded += 1;
            self.stats.load_time += started.elapsed();
            return Ok(Block::Compiled { code: start as u64, instructions: cached.instructions });
        }
        let Some(LiftedBlock { function, instructions, other_pages, .. }) =
            lift_block(memory, pc, self.block_limit, self.graphs, &self.profile, &*self.isa)
        else {
            return Ok(Block::Interpreted);
        };
        let host = background::compile(&self.isa, function)?;
        let block = self.install(memory, pc, instructions, other_pages, key.as_ref(), host)?;
        self.stats.time += started.elapsed();
        Ok(block)
    }

    /// Puts a region's host code where it runs, and in the code cache under `key` (where one is given).
    fn install(
        &mut self,
        memory: &GuestMemory,
        pc: u64,
        instructions: u32,
        other_pages: Vec<u64>,
        key: Option<&Key>,
        host: HostCode,
    ) -> Result<Block, String> {
        let HostCode { code, sites } = host;
        let start = self.code.install(&code).map_err(|error| error.to_string())?;
        self.sites.insert(start as u64, code.len() as u32, sites.clone());
        self.name_for_perf(start, code.len(), pc);
        self.note_spanning(pc, &other_pages);
        if let (Some(disk), Some(key)) = (&mut self.disk, key) {
            let block = CachedBlock { instructions, code, sites, other_pages };
            if let Err(error) = disk.store(memory, key, &block) {
                tracing::warn!("code cache: could not store the block at {pc:#x}: {error}");
            }
        }
        self.stats.blocks += 1;
        self.stats.guest_instructions += u64::from(instructions);
        Ok(Block::Compiled { code: start as u64, instructions })
    }

    /// Notes that the block at `pc` holds instructions of `other_pages`, whose changes must drop it too.
    fn note_spanning(&mut self, pc: u64, other_pages: &[u64]) {
        self.stats.spanning += u64::from(!other_pages.is_empty());
        for &page in other_pages {
            self.spanning.entry(page).or_default().push(pc);
        }
    }

    /// Names the block's host code (`length` bytes installed at `start`) for `perf` when `TANDEM_PERF_MAP` is
    /// set, so that profiles of the fast path show guest addresses instead of anonymous memory.
    fn name_for_perf(&mut self, start: *const u8, length: usize, pc: u64) {
        if let Some(perf) = &mut self.perf {
            // SAFETY: `start` is where `length` bytes of code were just installed; installed code stays mapped and
            // readable.
            perf.name_block(unsafe { std::slice::from_raw_parts(start, length) }, pc);
        }
    }

    /// Up to `count` instructions on the reference interpreter, with the clock it would see.
    fn interpret(
        &mut self,
        cpu: &mut CpuState,
        memory: &GuestMemory,
        clock: GuestClock,
        retired: u64,
        count: u64,
    ) -> RunResult {
        let clock = GuestClock { instructions_before: clock.instructions_before + retired };
        let result = self.interpreter.run(cpu, memory, count, clock);
        if let Some(case) = self.interpreter.last_unpredictable {
            self.last_unpredictable = Some(case);
        }
        result
    }

    /// The Cranelift IR and host code of the block at `pc`, for divergence reports (`tandem diff lockstep`): lifted
    /// again with the profile as it is now, which may have grown since the block was compiled (edges recorded
    /// later, where the region's code was still reached on the interpreter).
    pub fn listing(&self, memory: &GuestMemory, pc: u64) -> Option<String> {
        let LiftedBlock { function, instructions, .. } =
            lift_block(memory, pc, self.block_limit, self.graphs, &self.profile, &*self.isa)?;
        let clif = function.display().to_string();
        let mut context = cranelift_codegen::Context::for_function(function);
        context.set_disasm(true);
        let host = match context.compile(&*self.isa, &mut ControlPlane::default()) {
            Ok(compiled) => compiled.vcode.clone().unwrap_or_default(),
            Err(error) => format!("Cranelift rejected it: {:?}", error.inner),
        };
        Some(format!("block at {pc:#x}, {instructions} instructions\n; Cranelift IR\n{clif}\n; host code\n{host}"))
    }
}

/// Cranelift's code generator for this host, optimising for speed.
pub fn host_isa() -> Result<OwnedTargetIsa, FastError> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(|error| FastError::Host(error.to_string()))?;
    // The IR verifier costs a third of compile time; builds with debug assertions (the tests) keep it, to catch a
    // lifter that emits malformed IR.
    let verify = if cfg!(debug_assertions) { "true" } else { "false" };
    flags.set("enable_verifier", verify).map_err(|error| FastError::Host(error.to_string()))?;
    // Cranelift's x64 tail calls (block chaining) need frame pointers.
    flags.set("preserve_frame_pointers", "true").map_err(|error| FastError::Host(error.to_string()))?;
    // The guarded view's base lives in the pinned register (`lift`).
    flags.set("enable_pinned_reg", "true").map_err(|error| FastError::Host(error.to_string()))?;
    cranelift_native::builder()
        .map_err(|error| FastError::Host(error.to_string()))?
        .finish(settings::Flags::new(flags))
        .map_err(|error| FastError::Host(error.to_string()))
}

impl FastEngine {
    /// Runs the compiled block at `code`, and the blocks it chains to, with `budget` instructions to spend.
    fn call_block(&mut self, code: u64, cpu: &mut CpuState, memory: &GuestMemory, budget: u64) -> u64 {
        // `exit_flags` says `IN_CPU` here: each entry settles it on the way out.
        self.context.cpu.clone_from(cpu);
        let context: *mut Context = &mut *self.context;
        let args = EntryArgs { code, context, memory: memory.guarded_base(), budget };
        // SAFETY: `code` is a block compiled (or loaded from the checksummed, generator-keyed cache) for the
        // `tail` block signature the trampoline calls, and `self.sites` holds the trap sites of every block. Compiled
        // code reads and writes only the context's fields (at `offset_of!` offsets): the `CpuState`, the runtime's
        // fault record, the chain table (index masked to its size); and guest bytes at `guarded_base() + address`
        // for addresses checked to be inside the address space, or less than `VIEW_GUARD` from one so checked
        // (inside the view's inaccessible guards), where a host fault is caught at its trap site (`fault`); it
        // calls only the `Runtime` helpers (safe functions) and blocks of the chain table, which hold the same
        // promises. The context is exclusively borrowed for the call (the runtime's fault record is cells).
        let status = unsafe {
            crate::fault::enter(
                self.trampoline,
                (&raw const args).cast(),
                &raw mut (*context).cpu,
                &(*context).runtime,
                &self.sites,
            )
        };
        self.context.runtime.exit_flags.settle(&mut self.context.cpu);
        cpu.clone_from(&self.context.cpu);
        status
    }
}

impl Engine for FastEngine {
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        self.last_unpredictable = None;
        self.last_block = None;
        self.catch_up_with_layout(memory);
        let bytes = self.code_bytes();
        if bytes.dropped > self.reclaim_threshold.max(bytes.live) {
            self.reclaim_code();
        }
        self.context.runtime.enter_run(memory);
        let result = self.run_blocks(cpu, memory, budget, clock);
        self.context.runtime.leave_run();
        result
    }

    fn invalidate(&mut self, address: u64, size: u64) {
        self.invalidate_range(address, size);
    }

    fn forked(&mut self) {
        if let Some(jobs) = &mut self.background {
            jobs.forked();
        }
    }
}

impl FastEngine {
    fn run_blocks(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        let mut retired = 0;
        while retired < budget {
            let rest_on_reference = match self.block_at(cpu.pc, memory) {
                // The budget ends inside the block: the reference runs the few instructions left (fewer than a
                // block holds), instead of stepping and compiling a block at each address on the way.
                Some(Block::Compiled { instructions, .. }) if u64::from(instructions) > budget - retired => true,
                Some(Block::Compiled { code, .. }) => {
                    let pc = cpu.pc;
                    // Compiled code returns what is left with `INTERPRET_NEXT` and `REPLAY` (bits 63 and 62)
                    // beside it: hand it less than that (a larger budget is only spent over several calls).
                    let left = (budget - retired).min(REPLAY - 1);
                    let status = self.call_block(code, cpu, memory, left);
                    let ran = left - (status & !(INTERPRET_NEXT | REPLAY));
                    if !self.chaining {
                        self.last_block = Some(BlockRun { pc, retired_before: retired, retired: ran });
                    }
                    retired += ran;
                    if status & REPLAY == 0 && (status & INTERPRET_NEXT == 0 || retired == budget) {
                        continue;
                    }
                    // The host refused a guest access: the reference reruns from the replay point to the fault
                    // (or, where the host was stricter than the guest, on to the end of the budget).
                    status & REPLAY != 0
                }
                _ => false,
            };
            let count = if rest_on_reference { budget - retired } else { 1 };
            let from = cpu.pc;
            let step = self.interpret(cpu, memory, clock, retired, count);
            if count == 1 && step.retired == 1 {
                self.profile.record(from, cpu.pc);
            }
            retired += step.retired;
            if step.exit != Exit::BudgetSpent {
                return RunResult { exit: step.exit, retired };
            }
        }
        RunResult { exit: Exit::BudgetSpent, retired }
    }

    /// Drops the blocks of the pages whose mapping, permissions or sharing changed since the last run (every block,
    /// where the memory no longer knows them all).
    fn catch_up_with_layout(&mut self, memory: &GuestMemory) {
        let count = memory.layout_change_count();
        if count == self.layout_seen {
            return;
        }
        match memory.layout_changes_since(self.layout_seen) {
            Some(changes) => changes.into_iter().for_each(|(address, size)| self.invalidate_range(address, size)),
            None => self.invalidate_range(0, u64::MAX),
        }
        self.layout_seen = count;
    }

    /// Drops every block of a page the range touches (a region reads its whole page, before and after its start).
    fn invalidate_range(&mut self, address: u64, size: u64) {
        let first_page = address & !(PAGE_SIZE - 1);
        let end = address.saturating_add(size).saturating_add(PAGE_SIZE - 1) & !(PAGE_SIZE - 1);
        let in_range = |pc: &u64| (first_page..end).contains(pc);
        let dropped: Vec<u64> = self.blocks.keys().copied().filter(in_range).collect();
        for pc in dropped {
            self.drop_block(pc);
        }
        self.heat.retain(|&pc, _| pc < first_page || pc >= end);
        if let Some(disk) = &mut self.disk {
            disk.forget_pages(first_page..end);
        }
        if let Some(jobs) = &mut self.background {
            jobs.forget_pages(first_page..end);
        }
        self.profile.forget(first_page..end);
        let mut dropped = Vec::new();
        self.spanning.retain(|page, blocks| {
            let changed = (first_page..end).contains(page);
            if changed {
                dropped.append(blocks);
            }
            !changed
        });
        for pc in dropped {
            self.drop_block(pc);
        }
    }

    /// Forgets the block at `pc`, and its chain table entry: the only slot that can hold it, since every entry is
    /// one of `blocks`' put in its own slot (`remember`).
    fn drop_block(&mut self, pc: u64) {
        if let Some(block) = self.blocks.remove(&pc) {
            self.forget_sites(block);
        }
        let slot = (pc >> 2) as usize % CHAIN_ENTRIES;
        if self.context.chain[slot].pc == pc {
            self.context.chain[slot] = ChainEntry::EMPTY;
        }
    }
}

/// What the engine compiled and loaded over its life, in the logs (`RUST_LOG=tandem_fast=debug`).
impl Drop for FastEngine {
    fn drop(&mut self) {
        tracing::debug!(stats = ?self.stats, "fast path: compiled and loaded");
    }
}
