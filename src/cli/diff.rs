//! `tandem diff`: the differential suites.

use anyhow::Context;
use clap::Subcommand;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_diff::a64::{SuiteConfig, run_suite};
use tandem_diff::lockstep::LockstepEngine;
use tandem_hle::kernel::{Kernel, RunOutcome};
use tandem_hle::linux::{LinuxOptions, LinuxOutcome, LinuxProcess};

#[derive(Subcommand)]
pub enum DiffCommand {
    /// Every encoding family of the decode table: verified against Unicorn (how many sampled cases agreed),
    /// implemented only, or missing; ends with `families: T, verified: V, implemented-only: I, missing: X`.
    Coverage {
        /// Differential cases run per family to judge it.
        #[arg(long, default_value_t = tandem_diff::coverage::DEFAULT_CASES)]
        cases: u64,
    },
    /// Every A64 encoding family, reference interpreter against Unicorn, from random states.
    A64 {
        /// Cases per family.
        #[arg(long, default_value_t = 2000)]
        cases: u64,
        /// Seed of the case generator (the same seed gives the same cases).
        #[arg(long, default_value_t = SuiteConfig::default().seed)]
        seed: u64,
        /// Only these families (repeatable).
        #[arg(long = "family")]
        families: Vec<String>,
        /// Mismatching cases described per family.
        #[arg(long, default_value_t = 3)]
        examples: usize,
    },
    /// A whole program on the fast path and the reference at once, compared after every engine run (all
    /// registers and every mapped byte); at the first difference, bisects to the instruction and prints it, the
    /// states and the fast path's Cranelift IR and host code. Exit status 1 when the paths part.
    Lockstep {
        /// A Horizon program (NRO, NSO, ExeFS folder, ELF), or with --linux an aarch64 Linux program.
        path: PathBuf,
        /// The title's RomFS.
        #[arg(long)]
        romfs: Option<PathBuf>,
        /// Run `path` under the Linux personality, with `args` as its arguments.
        #[arg(long)]
        linux: bool,
        /// Compare at least every N instructions (smaller finds nothing more, but bisects less).
        #[arg(long, default_value_t = 100_000)]
        every: u64,
        /// Stop after this many guest instructions.
        #[arg(long)]
        max_instructions: Option<u64>,
        /// The fast path as `tandem run --cpu fast` runs it: hot regions compiled on background threads and
        /// loaded from the code cache (TANDEM_CODE_CACHE), instead of every region compiled at its second use.
        #[arg(long)]
        as_run: bool,
        /// The Linux program's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

pub fn run(command: DiffCommand) -> anyhow::Result<ExitCode> {
    match command {
        DiffCommand::Coverage { cases } => {
            print!("{}", tandem_diff::coverage::render(cases)?);
            Ok(ExitCode::SUCCESS)
        }
        DiffCommand::A64 { cases, seed, families, examples } => {
            let config = SuiteConfig { cases_per_family: cases, seed, families, examples_per_family: examples };
            // Long runs show progress on a terminal; pipes and CI logs get only the table.
            let show_progress = std::io::stderr().is_terminal();
            let report = run_suite(&config, |family| {
                tracing::info!(
                    family = family.family,
                    cases = family.cases,
                    mismatches = family.mismatches,
                    "family done"
                );
                if show_progress {
                    eprint!("\r\x1b[K{}: {} cases, {} mismatches", family.family, family.cases, family.mismatches);
                }
            })?;
            if show_progress {
                eprint!("\r\x1b[K");
            }
            print!("{}", report.render());
            Ok(if report.mismatches() == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        DiffCommand::Lockstep { path, romfs, linux, every, max_instructions, as_run, args } => {
            let engine = match as_run {
                true => LockstepEngine::with_fast_path(every, super::fast_engine()?)?,
                false => LockstepEngine::new(every)?,
            };
            lockstep(engine, path, romfs, linux, max_instructions, args)
        }
    }
}

/// `tandem diff lockstep`: ends with `lockstep: N instructions in R runs, C regions compiled (S spanning pages, L
/// from the code cache), divergences: D`.
fn lockstep(
    mut engine: LockstepEngine,
    path: PathBuf,
    romfs: Option<PathBuf>,
    linux: bool,
    max_instructions: Option<u64>,
    args: Vec<String>,
) -> anyhow::Result<ExitCode> {
    let stop_report = if linux {
        let options = LinuxOptions {
            args: std::iter::once(path.display().to_string()).chain(args).collect(),
            env: std::env::vars().map(|(key, value)| format!("{key}={value}")).collect(),
            sysroot: None,
            enosys: false,
            max_instructions,
            relaunch: Vec::new(),
        };
        let mut process = LinuxProcess::new(&path, options).with_context(|| format!("loading {}", path.display()))?;
        match process.run(&mut engine) {
            LinuxOutcome::Exited(_) => None,
            LinuxOutcome::Stopped(report) => Some(report),
        }
    } else {
        let program = super::run::load(Some(&path), romfs.as_deref())?;
        let output = Box::new(|text: &[u8]| {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text).and_then(|_| stdout.flush());
        });
        let mut kernel = Kernel::new(&program, output).with_context(|| format!("loading {}", program.source))?;
        kernel.set_max_instructions(max_instructions);
        match kernel.run(&mut engine) {
            // No window opens in a lockstep run, so nothing interrupts it.
            RunOutcome::Exited | RunOutcome::Interrupted => None,
            RunOutcome::Stopped(report) => Some(report),
        }
    };
    let diverged = engine.divergence().is_some();
    match (engine.divergence(), stop_report) {
        (Some(divergence), _) => print!("{divergence}"),
        // Both paths stopped the program the same way: worth saying, not a divergence.
        (None, Some(report)) => eprintln!("{report}"),
        (None, None) => {}
    }
    let stats = engine.stats();
    println!(
        "lockstep: {} instructions in {} runs, {} regions compiled ({} spanning pages, {} from the code cache), \
         divergences: {}",
        stats.instructions,
        stats.runs,
        stats.regions,
        stats.spanning,
        stats.loaded,
        u32::from(diverged)
    );
    Ok(if diverged { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
