//! `FastEngine`: the dispatcher that runs compiled blocks and hands the rest to the reference interpreter.

use crate::code_cache::CodeCache;
use crate::code_memory::{CodeMemory, CodeMemoryError};
use crate::runtime::Runtime;
use crate::lift::{INTERPRET_NEXT, LiftedBlock, MAX_BLOCK_INSTRUCTIONS, lift_block};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;
use std::time::{Duration, Instant};
use tandem_reference::engine::{Engine, Exit, GuestClock, RunResult};
use tandem_reference::memory::{GuestMemory, PAGE_SIZE, Perm};
use tandem_reference::sysreg::{CpuIdentity, PointerAuthKeys};
use tandem_reference::{CpuState, Interpreter, Unpredictable};

/// A compiled block's entry point (see `lift` for the contract).
type BlockFn = unsafe extern "C" fn(*mut CpuState, *mut u8, *const u8, *const Runtime) -> u64;

#[derive(Clone, Copy, Default)]
enum Block {
    Compiled {
        entry: BlockFn,
        instructions: u32,
    },
    /// The first instruction is one the lifter leaves to the reference.
    #[default]
    Interpreted,
}

/// Entries of the direct-mapped front of the block table (a power of two).
const RECENT_BLOCKS: usize = 1 << 14;

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
}

/// The fast CPU path: guest blocks lifted to host code through Cranelift, the reference interpreter for what
/// the lifter leaves to it. Results are identical to the reference's, budget and exits included.
pub struct FastEngine {
    interpreter: Interpreter,
    isa: OwnedTargetIsa,
    code: CodeMemory,
    disk: Option<CodeCache>,
    /// Boxed: compiled code holds its address for the length of a call.
    runtime: Box<Runtime>,
    /// Blocks by guest start address. A block never crosses a page, and is compiled only from a page that is
    /// executable and not writable, so guest stores cannot change it; `invalidate` drops it when the page changes.
    blocks: HashMap<u64, Block, BuildHasherDefault<PcHasher>>,
    /// A direct-mapped cache of `blocks` by `(pc / 4) % RECENT_BLOCKS`: (pc, block), `u64::MAX` when empty.
    recent: Vec<(u64, Block)>,
    stats: CompileStats,
    last_unpredictable: Option<(u64, Unpredictable)>,
    /// The most instructions a block may hold (lockstep bisection compiles shorter blocks to pinpoint one).
    block_limit: u32,
    last_block: Option<BlockRun>,
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
        Ok(FastEngine {
            interpreter: Interpreter::new(identity, keys),
            isa,
            code: CodeMemory::default(),
            disk: None,
            runtime: Box::new(Runtime::for_host()),
            blocks: HashMap::default(),
            recent: vec![(u64::MAX, Block::Interpreted); RECENT_BLOCKS],
            stats: CompileStats::default(),
            last_unpredictable: None,
            block_limit: MAX_BLOCK_INSTRUCTIONS,
            last_block: None,
        })
    }

    /// An engine whose blocks hold at most `limit` instructions (at least 1).
    pub fn with_block_limit(limit: u32) -> Result<FastEngine, FastError> {
        Ok(FastEngine { block_limit: limit.max(1), ..FastEngine::with_defaults()? })
    }

    /// Keeps compiled blocks in the code cache in `dir` and loads them from it.
    pub fn with_code_cache(mut self, dir: &Path) -> Result<FastEngine, FastError> {
        let cache = CodeCache::open(dir, &*self.isa)
            .map_err(|error| FastError::CodeCacheDir { dir: dir.display().to_string(), error })?;
        self.disk = Some(cache);
        Ok(self)
    }

    /// Compiles (or loads) the block at `pc` ahead of running it, and returns where execution may go from it:
    /// its successors and the address after it.
    pub fn precompile(&mut self, memory: &GuestMemory, pc: u64) -> Vec<u64> {
        let Some(lifted) = lift_block(memory, pc, self.block_limit, &*self.isa) else {
            // The reference runs this instruction; a block may start after it.
            return vec![pc.wrapping_add(4)];
        };
        self.block_at(pc, memory);
        let mut next = lifted.successors;
        next.push(pc.wrapping_add(4 * u64::from(lifted.instructions)));
        next
    }

    /// The last compiled block the last `run` entered.
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

    /// The most recent CONSTRAINED UNPREDICTABLE case of the last `run` (always the reference's resolution).
    pub fn last_unpredictable(&self) -> Option<(u64, Unpredictable)> {
        self.last_unpredictable
    }

    /// The block that starts at `pc`, compiling it on first use; `None` where the reference must fetch (the page
    /// is not executable, or writable and so not safe to compile).
    #[inline]
    fn block_at(&mut self, pc: u64, memory: &GuestMemory) -> Option<Block> {
        let slot = (pc >> 2) as usize % RECENT_BLOCKS;
        if self.recent[slot].0 == pc {
            return Some(self.recent[slot].1);
        }
        self.block_at_slow(pc, slot, memory)
    }

    /// `block_at` past the direct-mapped front: kept out of line, since compiling needs a large stack frame.
    #[cold]
    #[inline(never)]
    fn block_at_slow(&mut self, pc: u64, slot: usize, memory: &GuestMemory) -> Option<Block> {
        if let Some(&block) = self.blocks.get(&pc) {
            self.recent[slot] = (pc, block);
            return Some(block);
        }
        let perm = memory.perm_at(pc)?;
        if !perm.contains(Perm::EXECUTE) || perm.contains(Perm::WRITE) {
            return None;
        }
        let block = match self.compile(memory, pc) {
            Ok(block) => block,
            Err(error) => {
                tracing::warn!(pc = format_args!("{pc:#x}"), "fast path: block not compiled, interpreting it: {error}");
                Block::Interpreted
            }
        };
        self.blocks.insert(pc, block);
        self.recent[slot] = (pc, block);
        Some(block)
    }

    fn compile(&mut self, memory: &GuestMemory, pc: u64) -> Result<Block, String> {
        let started = Instant::now();
        let key = self.disk.as_ref().map(|disk| disk.key(memory, pc, self.block_limit));
        if let (Some(disk), Some(key)) = (&self.disk, &key)
            && let Some(cached) = disk.load(key)
        {
            let start = self.code.install(&cached.code).map_err(|error| error.to_string())?;
            self.stats.loaded += 1;
            self.stats.load_time += started.elapsed();
            return Ok(Block::Compiled { entry: as_block_fn(start), instructions: cached.instructions });
        }
        let Some(LiftedBlock { function, instructions, .. }) = lift_block(memory, pc, self.block_limit, &*self.isa) else {
            return Ok(Block::Interpreted);
        };
        let mut context = cranelift_codegen::Context::for_function(function);
        let compiled = context
            .compile(&*self.isa, &mut ControlPlane::default())
            .map_err(|error| format!("Cranelift rejected the lifted block: {:?}", error.inner))?;
        if !compiled.buffer.relocs().is_empty() {
            return Err("the lifted block needs relocations".into());
        }
        let code = compiled.code_buffer();
        let start = self.code.install(code).map_err(|error| error.to_string())?;
        if let (Some(disk), Some(key)) = (&self.disk, &key)
            && let Err(error) = disk.store(key, instructions, code)
        {
            tracing::warn!("code cache: could not store the block at {pc:#x}: {error}");
        }
        let entry = as_block_fn(start);
        self.stats.blocks += 1;
        self.stats.guest_instructions += u64::from(instructions);
        self.stats.time += started.elapsed();
        Ok(Block::Compiled { entry, instructions })
    }

    /// One instruction on the reference interpreter, with the clock it would see.
    fn interpret_one(
        &mut self,
        cpu: &mut CpuState,
        memory: &GuestMemory,
        clock: GuestClock,
        retired: u64,
    ) -> RunResult {
        let clock = GuestClock { instructions_before: clock.instructions_before + retired };
        let result = self.interpreter.run(cpu, memory, 1, clock);
        if let Some(case) = self.interpreter.last_unpredictable {
            self.last_unpredictable = Some(case);
        }
        result
    }

    /// The Cranelift IR and host code of the block at `pc`, for divergence reports (`tandem diff lockstep`).
    pub fn listing(&self, memory: &GuestMemory, pc: u64) -> Option<String> {
        let LiftedBlock { function, instructions, .. } = lift_block(memory, pc, self.block_limit, &*self.isa)?;
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

/// The entry point of code `install`ed from a compiled block.
fn as_block_fn(start: *const u8) -> BlockFn {
    // SAFETY: `start` holds machine code Cranelift generated for a function of exactly `BlockFn`'s signature in
    // the host's default calling convention, without relocations (checked before it was installed or stored;
    // cache files are checksummed and keyed by the code generator), in memory that lives as long as the engine.
    unsafe { std::mem::transmute::<*const u8, BlockFn>(start) }
}

/// Cranelift's code generator for this host, optimising for speed.
pub fn host_isa() -> Result<OwnedTargetIsa, FastError> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(|error| FastError::Host(error.to_string()))?;
    // The IR verifier costs a third of compile time; builds with debug assertions (the tests) keep it, to catch a
    // lifter that emits malformed IR.
    let verify = if cfg!(debug_assertions) { "true" } else { "false" };
    flags.set("enable_verifier", verify).map_err(|error| FastError::Host(error.to_string()))?;
    cranelift_native::builder()
        .map_err(|error| FastError::Host(error.to_string()))?
        .finish(settings::Flags::new(flags))
        .map_err(|error| FastError::Host(error.to_string()))
}

/// Runs a compiled block.
fn call_block(entry: BlockFn, cpu: &mut CpuState, memory: &GuestMemory, runtime: &Runtime) -> u64 {
    // SAFETY: the lifted code reads and writes only `CpuState` fields (at `offset_of!` offsets), the page table
    // (index masked to its size), and guest bytes at `host_base() + address` after checking inline that their
    // page is mapped, hence host accessible; it calls only the `Runtime` helpers, which are safe functions;
    // `cpu` is exclusively borrowed for the call.
    unsafe { entry(cpu, memory.host_base(), memory.host_page_table(), runtime) }
}

impl Engine for FastEngine {
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        self.last_unpredictable = None;
        self.last_block = None;
        let mut retired = 0;
        while retired < budget {
            if let Some(Block::Compiled { entry, instructions }) = self.block_at(cpu.pc, memory)
                && u64::from(instructions) <= budget - retired
            {
                let pc = cpu.pc;
                let status = call_block(entry, cpu, memory, &self.runtime);
                let block_retired = status & (INTERPRET_NEXT - 1);
                self.last_block = Some(BlockRun { pc, retired_before: retired, retired: block_retired });
                retired += block_retired;
                if status & INTERPRET_NEXT == 0 || retired == budget {
                    continue;
                }
            }
            let step = self.interpret_one(cpu, memory, clock, retired);
            retired += step.retired;
            if step.exit != Exit::BudgetSpent {
                return RunResult { exit: step.exit, retired };
            }
        }
        RunResult { exit: Exit::BudgetSpent, retired }
    }

    fn invalidate(&mut self, address: u64, size: u64) {
        let first_page = address & !(PAGE_SIZE - 1);
        let end = address.saturating_add(size);
        self.blocks.retain(|&pc, _| pc < first_page || pc >= end);
        for entry in &mut self.recent {
            if (first_page..end).contains(&entry.0) {
                *entry = (u64::MAX, Block::Interpreted);
            }
        }
    }
}

/// Hashes guest addresses for the block table: one multiply (Fibonacci hashing), as good as SipHash for keys
/// the guest cannot choose to collide, and far cheaper.
#[derive(Default)]
struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        // The product's high half is the well-mixed one; the table indexes by the low bits.
        self.0.rotate_left(32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}
