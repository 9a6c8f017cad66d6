//! Subcommands, one module each.

mod aot;
mod bench;
mod diff;
mod disasm;
mod gpu;
mod info;
mod linux;
mod pack;
mod run;
mod shader;
mod window;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tandem_fast::FastEngine;
use tandem_fast::code_cache::{self, CodeCache};
use tandem_hle::linux::{LinuxOptions, LinuxProcess};
use tandem_reference::{Engine, Interpreter};

#[derive(Parser)]
#[command(name = "tandem", version, about = "A Switch 2 / Switch emulator whose fast and reference paths must agree")]
pub struct Cli {
    /// More logging (-v: debug, -vv: trace). RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program (the embedded demo when no path is given).
    Run(run::RunArgs),
    /// Compile a program's code for the fast path ahead of time, into the code cache.
    Aot(aot::AotArgs),
    /// Show what the loaders find in a program: modules, segments, build ids, NPDM, NACP, RomFS.
    Info(info::InfoArgs),
    /// Disassemble guest code with Tandem's own decoder.
    Disasm(disasm::DisasmArgs),
    /// Run an aarch64 Linux program (static, or dynamic with --sysroot).
    Linux(linux::LinuxArgs),
    /// Pack a linked ELF into an NRO or NSO.
    Pack(pack::PackArgs),
    /// Benchmarks, printed as ratios against a baseline measured in the same run.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Differential suites: the reference against its oracles.
    #[command(subcommand)]
    Diff(diff::DiffCommand),
    /// NVIDIA shader machine code: disassembly, runs on the SASS interpreter, translation to SPIR-V.
    #[command(subcommand)]
    Shader(shader::ShaderCommand),
    /// The GPU without a CPU: command trace replays.
    #[command(subcommand)]
    Gpu(gpu::GpuCommand),
}

pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Colours only for a person at a terminal: logs piped to a file or a test stay plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi).init();
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let result = run_command(cli);
    // A prune cut short would be done again at the next start.
    for pruning in std::mem::take(&mut *PRUNING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())) {
        if !pruning.is_finished() {
            // Shown at a terminal only.
            let spinner = indicatif::ProgressBar::new_spinner()
                .with_message("finishing the code cache's prune to TANDEM_CODE_CACHE_MAX_MB");
            spinner.enable_steady_tick(std::time::Duration::from_millis(100));
            let _ = pruning.join();
            spinner.finish_and_clear();
        }
    }
    result
}

/// The code cache's prunes in progress (`fast_engine`), finished before the command ends.
static PRUNING: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

fn run_command(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Aot(args) => aot::run(args),
        Command::Info(args) => info::run(args),
        Command::Disasm(args) => disasm::run(args),
        Command::Linux(args) => linux::run(args),
        Command::Pack(args) => pack::run(args),
        Command::Bench(command) => bench::run(command),
        Command::Diff(command) => diff::run(command),
        Command::Shader(command) => shader::run(command),
        Command::Gpu(command) => gpu::run(command),
    }
}

/// The fast path with the code cache `TANDEM_CODE_CACHE` names (default `~/.cache/tandem/code`; `off` for none),
/// pruned in the background to `TANDEM_CODE_CACHE_MAX_MB` when a prune is due.
pub fn fast_engine() -> anyhow::Result<FastEngine> {
    let engine = FastEngine::with_defaults()
        .context("starting the fast path; --cpu reference needs no code generator")?
        .compiling_in_background();
    match CodeCache::default_dir() {
        Some(dir) if dir.as_os_str() != "off" => {
            let engine = engine.with_code_cache(&dir)?;
            let limit = code_cache::size_limit().map_err(anyhow::Error::msg)?;
            static STARTED: std::sync::Once = std::sync::Once::new();
            STARTED.call_once(|| {
                let pruning = code_cache::prune_in_background(dir, limit);
                PRUNING.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).extend(pruning);
            });
            Ok(engine)
        }
        _ => Ok(engine),
    }
}

/// `path` placed in memory as `tandem linux` would place it (with its ELF interpreter from `sysroot`), to be
/// read rather than run: no arguments, no environment.
pub fn placed_linux_program(path: &Path, sysroot: Option<PathBuf>) -> anyhow::Result<LinuxProcess> {
    let options = LinuxOptions {
        args: vec![path.display().to_string()],
        env: Vec::new(),
        sysroot,
        enosys: false,
        max_instructions: None,
        relaunch: Vec::new(),
    };
    LinuxProcess::new(path, options).with_context(|| format!("loading {}", path.display()))
}

/// Which CPU path runs the guest.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CpuPath {
    /// The readable A64 interpreter, the executable specification.
    Reference,
    /// A64 lifted to native code through Cranelift.
    Fast,
}

impl CpuPath {
    pub fn engine(self) -> anyhow::Result<Box<dyn Engine>> {
        match self {
            CpuPath::Reference => Ok(Box::new(Interpreter::default())),
            CpuPath::Fast => Ok(Box::new(fast_engine()?)),
        }
    }
}
