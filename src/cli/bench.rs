//! `tandem bench`: speed as ratios against a baseline measured in the same run.

use anyhow::Context;
use clap::Subcommand;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tandem_diff::unicorn_engine::UnicornEngine;
use tandem_fast::{CompileStats, FastEngine};
use tandem_hle::kernel::{Kernel, RunOutcome};
use tandem_hle::program::Program;
use tandem_reference::{Engine, Interpreter};

/// The integer benchmark program carried inside the binary.
const INTLOOP_NRO: &[u8] = include_bytes!("../../tests/programs/bin/intloop.nro");

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Busybox workloads (sha256sum, gzip, an awk loop) on Tandem's Linux personality, under qemu-aarch64, and the
    /// same busybox version built for x86-64 run natively; ends with `geomean: tandem/native X, tandem/qemu Y`.
    Linux {
        #[arg(long, value_enum, default_value_t = super::CpuPath::Reference)]
        cpu: super::CpuPath,
        /// Folder holding arm64/bin/busybox and amd64/bin/busybox (`cargo xtask setup` fetches them); by default
        /// $TANDEM_BUSYBOX_DIR or ~/.cache/tandem/busybox.
        #[arg(long)]
        busybox_dir: Option<PathBuf>,
        /// Size of the sha256sum and gzip inputs.
        #[arg(long, default_value_t = 2)]
        megabytes: u64,
        /// Iterations of the awk loop.
        #[arg(long, default_value_t = 200_000)]
        awk_iterations: u64,
        /// Runs of each command; the fastest counts.
        #[arg(long, default_value_t = 1)]
        repeat: u32,
    },
    /// The oracle corpus's kernels whose translations are structured, run three ways: on the SASS interpreter
    /// (the reference), and translated with structured control flow and with the dispatcher loop on the Vulkan
    /// device (each time translating, compiling the pipeline with the drivers' shader caches off, dispatching
    /// and reading back); ends with `geomean: dispatcher/structured X, interpreter/structured Y`.
    Shaders {
        /// The corpus folder (a Tandem checkout's gpu/tests/sass); the source tree's by default.
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Runs of each; the fastest counts.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
    },
    /// The reference interpreter, the fast path and Unicorn (QEMU's translator) on an integer-heavy program.
    Cpu {
        /// The program to run (an NRO, NSO, ExeFS folder or ELF); the embedded intloop benchmark by default.
        program: Option<PathBuf>,
        /// Runs of each engine; the fastest counts.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
    },
}

pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Cpu { program, repeat } => cpu(program, repeat),
        BenchCommand::Shaders { corpus, repeat } => shaders(corpus, repeat),
        BenchCommand::Linux { cpu, busybox_dir, megabytes, awk_iterations, repeat } => {
            linux(cpu, busybox_dir, megabytes, awk_iterations, repeat)
        }
    }
}

fn cpu(program: Option<PathBuf>, repeat: u32) -> anyhow::Result<ExitCode> {
    let load = || -> anyhow::Result<Program> {
        Ok(match &program {
            Some(path) => Program::open(path, None)?,
            None => Program::from_bytes("intloop", INTLOOP_NRO).context("the embedded benchmark is not an NRO")??,
        })
    };
    let source = load()?.source;
    let (reference_time, instructions, reference_output) =
        best_of(repeat, &load, || Ok(Box::new(Interpreter::default())))?;
    let (unicorn_time, _, unicorn_output) = best_of(repeat, &load, || Ok(Box::new(UnicornEngine::new()?)))?;
    let compile = std::rc::Rc::new(std::cell::Cell::new(CompileStats::default()));
    let (fast_time, _, fast_output) = best_of(repeat, &load, || {
        Ok(Box::new(MeasuredFastEngine { engine: FastEngine::with_defaults()?, stats: compile.clone() }))
    })?;
    // The code cache: a first run into an empty cache (compile and store), then a run that loads everything.
    let cache_dir = std::env::temp_dir().join(format!("tandem-bench-code-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let cached = std::rc::Rc::new(std::cell::Cell::new(CompileStats::default()));
    let cached_engine = || -> anyhow::Result<Box<dyn Engine>> {
        let engine = FastEngine::with_defaults()?.with_code_cache(&cache_dir)?;
        Ok(Box::new(MeasuredFastEngine { engine, stats: cached.clone() }))
    };
    let (cold_time, _, _) = best_of(1, &load, cached_engine)?;
    let cold = cached.get();
    let (warm_time, _, _) = best_of(1, &load, cached_engine)?;
    let warm = cached.get();
    let _ = std::fs::remove_dir_all(&cache_dir);
    for (name, output) in [("Unicorn", &unicorn_output), ("the fast path", &fast_output)] {
        if *output != reference_output {
            anyhow::bail!("the reference and {name} printed different output for {source}: the benchmark is void");
        }
    }
    let rate = |time: Duration| instructions as f64 / time.as_secs_f64() / 1e6;
    println!("program: {source} ({instructions} guest instructions, best of {repeat})");
    for (name, time) in
        [("reference interpreter", reference_time), ("unicorn (QEMU TCG)", unicorn_time), ("fast path", fast_time)]
    {
        println!("{name:<22} {:>8.3} s  {:>8.1} M instructions/s", time.as_secs_f64(), rate(time));
    }
    let compile = compile.get();
    println!(
        "fast path compiled {} blocks, {} guest instructions in {:.3} s ({:.0} instructions/s), included above",
        compile.blocks,
        compile.guest_instructions,
        compile.time.as_secs_f64(),
        compile.guest_instructions as f64 / compile.time.as_secs_f64().max(1e-9)
    );
    println!(
        "code cache: cold start {:.3} s ({} blocks compiled and stored in {:.3} s), warm start {:.3} s ({} blocks \
         loaded in {:.3} s): warm/cold load time {:.3}",
        cold_time.as_secs_f64(),
        cold.blocks,
        cold.time.as_secs_f64(),
        warm_time.as_secs_f64(),
        warm.loaded,
        warm.load_time.as_secs_f64(),
        warm.load_time.as_secs_f64() / cold.time.as_secs_f64().max(1e-9)
    );
    let speed = |baseline: Duration, time: Duration| baseline.as_secs_f64() / time.as_secs_f64();
    println!(
        "ratio: reference/unicorn speed {:.3}, fast/reference speed {:.2}, fast/unicorn speed {:.3}",
        speed(unicorn_time, reference_time),
        speed(reference_time, fast_time),
        speed(unicorn_time, fast_time)
    );
    Ok(ExitCode::SUCCESS)
}

fn shaders(corpus: Option<PathBuf>, repeat: u32) -> anyhow::Result<ExitCode> {
    use tandem_gpu::sass::Isa;
    use tandem_gpu::sass::corpus::{Corpus, Placement, dispatch_laid_out, interpret};
    use tandem_gpu::shader::Layout;
    use tandem_gpu::shader::structure::ControlFlow;
    // Each run must compile: the drivers' own shader caches (Mesa's, NVIDIA's) would answer the second run of a
    // layout from the first, and the first comes before any device is open.
    for (variable, value) in [("MESA_SHADER_CACHE_DISABLE", "true"), ("__GL_SHADER_DISK_CACHE", "0")] {
        // SAFETY: the command has started no thread yet; the Vulkan loader reads these when the instance is made.
        unsafe { std::env::set_var(variable, value) };
    }
    let dir = corpus.unwrap_or_else(Corpus::source_tree);
    let corpus = Corpus::open(&dir)
        .with_context(|| format!("reading the oracle corpus {}: pass --corpus with gpu/tests/sass", dir.display()))?;
    let device = tandem_gpu::vulkan::ComputeDevice::new()
        .context("opening a Vulkan device (install mesa-vulkan-drivers for lavapipe)")?;
    println!("device: {} (best of {repeat}; a run translates, compiles, dispatches and reads back)", device.name());
    let best = |f: &mut dyn FnMut() -> anyhow::Result<()>| -> anyhow::Result<Duration> {
        let mut best = Duration::MAX;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            f()?;
            best = best.min(start.elapsed());
        }
        Ok(best)
    };
    let (mut dispatcher_ratios, mut interpreter_ratios) = (Vec::new(), Vec::new());
    for isa in [Isa::Sm5x, Isa::Sm86] {
        for run in &corpus.runs {
            let Some(kernel) = corpus.kernel(isa, run)? else { continue };
            let laid_out = |layout| dispatch_laid_out(&device, run, &kernel, &corpus.input, Placement::Device, layout);
            // Kernels that do not translate or run (named, with why), or whose control flow takes the dispatcher
            // anyway, compare nothing.
            let outcome = match laid_out(Layout::Constructs) {
                Ok(outcome) => outcome,
                Err(error) => {
                    println!("{:<18} {:<5} not compared: {error:#}", run.entry, isa);
                    continue;
                }
            };
            if !matches!(outcome.control_flow, ControlFlow::Structured(_)) {
                continue;
            }
            let structured = best(&mut || Ok(laid_out(Layout::Constructs).map(drop)?))?;
            let dispatcher = best(&mut || Ok(laid_out(Layout::Dispatcher).map(drop)?))?;
            let interpreter = best(&mut || Ok(interpret(run, &kernel, &corpus.input).map(drop)?))?;
            let ratio = |time: Duration| time.as_secs_f64() / structured.as_secs_f64();
            println!(
                "{:<18} {:<5} interpreter {:>8.1} ms, dispatcher {:>8.1} ms, structured {:>8.1} ms: \
                 dispatcher/structured {:.2}",
                run.entry,
                isa,
                interpreter.as_secs_f64() * 1e3,
                dispatcher.as_secs_f64() * 1e3,
                structured.as_secs_f64() * 1e3,
                ratio(dispatcher)
            );
            dispatcher_ratios.push(ratio(dispatcher));
            interpreter_ratios.push(ratio(interpreter));
        }
    }
    if dispatcher_ratios.is_empty() {
        anyhow::bail!("no kernel of {} translated with structured control flow", dir.display());
    }
    let geomean = |ratios: &[f64]| (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    println!(
        "geomean: dispatcher/structured {:.2}, interpreter/structured {:.2}",
        geomean(&dispatcher_ratios),
        geomean(&interpreter_ratios)
    );
    Ok(ExitCode::SUCCESS)
}

/// The fast path, reporting its compile statistics when the run ends (the engine is dropped with the kernel run).
struct MeasuredFastEngine {
    engine: FastEngine,
    stats: std::rc::Rc<std::cell::Cell<CompileStats>>,
}

impl Engine for MeasuredFastEngine {
    fn run(
        &mut self,
        cpu: &mut tandem_reference::CpuState,
        memory: &tandem_reference::GuestMemory,
        budget: u64,
        clock: tandem_reference::GuestClock,
    ) -> tandem_reference::RunResult {
        let result = self.engine.run(cpu, memory, budget, clock);
        self.stats.set(self.engine.stats());
        result
    }

    fn invalidate(&mut self, address: u64, size: u64) {
        self.engine.invalidate(address, size);
    }

    fn forked(&mut self) {
        self.engine.forked();
    }
}

/// Runs the program `repeat` times on fresh engines; the fastest time, the instructions and the output.
fn best_of(
    repeat: u32,
    load: &dyn Fn() -> anyhow::Result<Program>,
    engine: impl Fn() -> anyhow::Result<Box<dyn Engine>>,
) -> anyhow::Result<(Duration, u64, Vec<u8>)> {
    let mut best = Duration::MAX;
    let (mut instructions, mut output) = (0, Vec::new());
    for _ in 0..repeat.max(1) {
        let program = load()?;
        let captured = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = captured.clone();
        let mut kernel = Kernel::new(&program, Box::new(move |text| sink.borrow_mut().extend_from_slice(text)))?;
        let mut engine = engine()?;
        let started = Instant::now();
        let outcome = kernel.run(engine.as_mut());
        best = best.min(started.elapsed());
        if let RunOutcome::Stopped(report) = outcome {
            anyhow::bail!("the benchmark program stopped:\n{report}");
        }
        instructions = kernel.retired();
        output = captured.borrow().clone();
    }
    Ok((best, instructions, output))
}

/// How many regions a code cache holds: files in its subfolders (its own stamp files lie at the top).
fn cached_regions(dir: &Path) -> anyhow::Result<usize> {
    let mut count = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            count += std::fs::read_dir(entry.path())?.count();
        }
    }
    Ok(count)
}

/// Builds the process that runs busybox with the given arguments.
type CommandFor = Box<dyn Fn(&[String]) -> std::process::Command>;

/// One way of running a busybox command.
struct Runner {
    name: &'static str,
    command: CommandFor,
    /// The code cache that an unmeasured first run fills, so that every measured run is a warm start.
    warm_cache: Option<PathBuf>,
}

fn linux(
    cpu: super::CpuPath,
    busybox_dir: Option<PathBuf>,
    megabytes: u64,
    awk_iterations: u64,
    repeat: u32,
) -> anyhow::Result<ExitCode> {
    let dir = busybox_dir
        .or_else(|| std::env::var_os("TANDEM_BUSYBOX_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/tandem/busybox"));
    let (arm64, amd64) = (dir.join("arm64/bin/busybox"), dir.join("amd64/bin/busybox"));
    for path in [&arm64, &amd64] {
        anyhow::ensure!(
            path.is_file(),
            "{} is missing: `cargo xtask setup` fetches Debian's busybox-static",
            path.display()
        );
    }
    let work = std::env::temp_dir().join(format!("tandem-bench-linux-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let input = work.join("input.txt");
    // Compressible, deterministic text: numbered lines of a linear congruential sequence.
    let mut text = String::new();
    let mut state = 1u64;
    while (text.len() as u64) < megabytes << 20 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        text.push_str(&format!("{} {}\n", text.len(), state >> 44));
    }
    std::fs::write(&input, text)?;
    let input_arg = input.display().to_string();
    let awk_program = format!("BEGIN {{ for (i = 0; i < {awk_iterations}; i++) x = (x * 31 + i) % 65521; print x }}");
    let workloads: Vec<(&str, Vec<String>)> = vec![
        ("sha256sum", vec!["sha256sum".into(), input_arg.clone()]),
        ("gzip", vec!["gzip".into(), "-c".into(), input_arg.clone()]),
        ("awk loop", vec!["awk".into(), awk_program]),
    ];
    let tandem = std::env::current_exe()?;
    let cpu_name = match cpu {
        super::CpuPath::Reference => "reference",
        super::CpuPath::Fast => "fast",
    };
    // The fast path twice: with a code cache of the benchmark's own, which an unmeasured first run fills (every
    // measured run is a warm start), and with none (every run compiles: a program's first run).
    let tandem_with_cache = |name: &'static str, cache: PathBuf, filled_first: bool| Runner {
        name,
        command: Box::new({
            let (tandem, busybox, cache) = (tandem.clone(), arm64.clone(), cache.clone());
            move |args| {
                let mut command = std::process::Command::new(&tandem);
                command.args(["linux", "--cpu", cpu_name]).arg(&busybox).args(args).env("TANDEM_CODE_CACHE", &cache);
                command
            }
        }),
        warm_cache: filled_first.then_some(cache),
    };
    let cold = cpu == super::CpuPath::Fast;
    let mut runners = vec![tandem_with_cache("tandem", work.join("code-cache"), cold)];
    if cold {
        runners.push(tandem_with_cache("tandem, no code cache", PathBuf::from("off"), false));
    }
    let qemu_busybox = arm64.clone();
    runners.push(Runner {
        name: "qemu-aarch64",
        command: Box::new(move |args| {
            let mut command = std::process::Command::new("qemu-aarch64");
            command.arg(&qemu_busybox).args(args);
            command
        }),
        warm_cache: None,
    });
    runners.push(Runner {
        name: "native",
        command: Box::new(move |args| {
            let mut command = std::process::Command::new(&amd64);
            command.args(args);
            command
        }),
        warm_cache: None,
    });
    let cache_note = if cold { ", code cache warm (cold: none)" } else { "" };
    println!(
        "busybox 1.35 (Debian busybox-static), {megabytes} MiB inputs, tandem --cpu {cpu_name}{cache_note}, best of \
         {repeat}"
    );
    let cold_header = if cold { format!(" {:>12}", "cold (s)") } else { String::new() };
    println!(
        "{:<10} {:>12}{cold_header} {:>14} {:>12} {:>14} {:>13}",
        "workload", "tandem (s)", "qemu (s)", "native (s)", "tandem/native", "tandem/qemu"
    );
    let (mut log_native, mut log_qemu, mut log_cold_native, mut log_cold_qemu) = (0.0, 0.0, 0.0, 0.0);
    for (name, args) in &workloads {
        let mut times = Vec::new();
        let mut outputs = Vec::new();
        for runner in &runners {
            let run = || -> anyhow::Result<Vec<u8>> {
                let result = (runner.command)(args).stderr(std::process::Stdio::inherit()).output()?;
                anyhow::ensure!(result.status.success(), "{} failed running busybox {name}", runner.name);
                Ok(result.stdout)
            };
            if let Some(cache) = &runner.warm_cache {
                run()?;
                anyhow::ensure!(
                    cached_regions(cache)? > 0,
                    "busybox {name} left nothing in the code cache {}: the tandem column would time cold starts \
                     (does TANDEM_CODE_CACHE work? `tandem linux` with RUST_LOG=tandem_fast=debug says what it loads)",
                    cache.display()
                );
            }
            let mut best = Duration::MAX;
            let mut output = Vec::new();
            for _ in 0..repeat.max(1) {
                let started = Instant::now();
                output = run()?;
                best = best.min(started.elapsed());
            }
            times.push(best.as_secs_f64());
            outputs.push(output);
        }
        anyhow::ensure!(
            outputs.windows(2).all(|pair| pair[0] == pair[1]),
            "busybox {name} printed different output on Tandem, qemu-aarch64 and natively: the benchmark is void"
        );
        let [tandem, .., qemu, native] = times[..] else { unreachable!("at least three runners") };
        let (against_native, against_qemu) = (tandem / native, tandem / qemu);
        log_native += against_native.ln();
        log_qemu += against_qemu.ln();
        let cold_column = if cold {
            log_cold_native += (times[1] / native).ln();
            log_cold_qemu += (times[1] / qemu).ln();
            format!(" {:>12.3}", times[1])
        } else {
            String::new()
        };
        println!(
            "{name:<10} {tandem:>12.3}{cold_column} {qemu:>14.3} {native:>12.3} {against_native:>14.2} {against_qemu:>13.2}"
        );
    }
    let count = workloads.len() as f64;
    let geomean = |log: f64| (log / count).exp();
    if cold {
        println!(
            "cold start (no code cache): geomean tandem/native {:.2}, tandem/qemu {:.2}",
            geomean(log_cold_native),
            geomean(log_cold_qemu)
        );
    }
    println!("geomean: tandem/native {:.2}, tandem/qemu {:.2}", geomean(log_native), geomean(log_qemu));
    std::fs::remove_dir_all(&work)?;
    Ok(ExitCode::SUCCESS)
}
