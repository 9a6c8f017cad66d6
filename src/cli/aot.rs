//! `tandem aot`: fills the fast path's code cache with a program's code before it runs, so that the first run
//! loads instead of compiling.

use super::fast_engine;
use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tandem_fast::code_cache::CodeCache;
use tandem_hle::kernel::Kernel;
use tandem_reference::memory::{GuestMemory, Perm};

#[derive(Args)]
pub struct AotArgs {
    /// A homebrew NRO, an NSO, an ExeFS folder or an aarch64 ELF; with --linux, an aarch64 Linux program.
    pub path: PathBuf,
    /// The title's RomFS.
    #[arg(long)]
    pub romfs: Option<PathBuf>,
    /// Load `path` as `tandem linux` would (with its ELF interpreter from --sysroot).
    #[arg(long)]
    pub linux: bool,
    /// With --linux: the folder holding the ELF interpreter and libraries, as for `tandem linux --sysroot`.
    #[arg(long)]
    pub sysroot: Option<PathBuf>,
}

/// Loads the program as `tandem run` (or `tandem linux`) would, then compiles every block reachable from its
/// entry point and its modules' starts by direct branches, calls, fall-throughs and the code after each block.
pub fn run(args: AotArgs) -> anyhow::Result<ExitCode> {
    let dir = CodeCache::default_dir().filter(|dir| dir.as_os_str() != "off").context(
        "no code cache to fill: set TANDEM_CODE_CACHE to a folder (or HOME, for the default ~/.cache/tandem/code)",
    )?;
    if args.linux {
        let process = super::placed_linux_program(&args.path, args.sysroot)?;
        let roots: Vec<u64> = std::iter::once(process.cpu.pc).chain(process.image_bases()).collect();
        return fill(&process.memory, &roots, &dir);
    }
    let program = super::run::load(Some(&args.path), args.romfs.as_deref())?;
    let kernel =
        Kernel::new(&program, Box::new(|_: &[u8]| {})).with_context(|| format!("loading {}", program.source))?;
    let roots: Vec<u64> =
        std::iter::once(kernel.entry_point()).chain(kernel.modules.iter().map(|module| module.base)).collect();
    fill(&kernel.memory, &roots, &dir)
}

/// Compiles every block reachable from `roots` into the code cache in `dir`.
fn fill(memory: &GuestMemory, roots: &[u64], dir: &Path) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let mut engine = fast_engine()?;
    let compilable =
        |pc: u64| memory.perm_at(pc).is_some_and(|perm| perm.contains(Perm::EXECUTE) && !perm.contains(Perm::WRITE));
    let mut pending: BTreeSet<u64> = roots.iter().copied().filter(|&pc| compilable(pc)).collect();
    let mut seen: HashSet<u64> = pending.iter().copied().collect();
    let progress = ProgressBar::new(pending.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} blocks {msg}").expect("the template is well formed"),
    );
    // The engine lifts each block here and compiles it on its compile threads: a block is done once installed.
    let mut lifted = 0;
    while let Some(pc) = pending.pop_first() {
        for next in engine.precompile(memory, pc) {
            if next % 4 == 0 && compilable(next) && seen.insert(next) {
                pending.insert(next);
                progress.inc_length(1);
            }
        }
        lifted += 1;
        progress.set_position(lifted - engine.compiling() as u64);
    }
    while engine.compiling() > 0 {
        engine.wait_for_compiled(memory);
        progress.set_position(lifted - engine.compiling() as u64);
    }
    progress.finish_and_clear();
    let stats = engine.stats();
    println!(
        "aot: {} blocks ({} compiled, {} guest instructions in {:.2} s, {:.2} s of compile threads' time; {} already \
         cached) in {}",
        stats.blocks + stats.loaded,
        stats.blocks,
        stats.guest_instructions,
        started.elapsed().as_secs_f64(),
        stats.time.as_secs_f64(),
        stats.loaded,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
