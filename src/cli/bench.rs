//! `tandem bench`: speed as ratios against a baseline measured in the same run.

use anyhow::Context;
use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tandem_diff::unicorn_engine::UnicornEngine;
use tandem_hle::kernel::{Kernel, RunOutcome};
use tandem_hle::program::Program;
use tandem_reference::{Engine, Interpreter};

/// The integer benchmark program carried inside the binary.
const INTLOOP_NRO: &[u8] = include_bytes!("../../tests/programs/bin/intloop.nro");

#[derive(Subcommand)]
pub enum BenchCommand {
    /// The reference interpreter against Unicorn (QEMU's translator) on an integer-heavy program.
    Cpu {
        /// The program to run (an NRO, NSO, ExeFS folder or ELF); the embedded intloop benchmark by default.
        program: Option<PathBuf>,
        /// Runs of each engine; the fastest counts.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
    },
}

pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    let BenchCommand::Cpu { program, repeat } = command;
    let load = || -> anyhow::Result<Program> {
        Ok(match &program {
            Some(path) => Program::open(path, None)?,
            None => Program::from_bytes("intloop", INTLOOP_NRO).context("the embedded benchmark is not an NRO")??,
        })
    };
    let source = load()?.source;
    let (reference_time, reference_instructions, reference_output) =
        best_of(repeat, &load, || Ok(Box::new(Interpreter::default())))?;
    let (unicorn_time, _, unicorn_output) = best_of(repeat, &load, || Ok(Box::new(UnicornEngine::new()?)))?;
    if reference_output != unicorn_output {
        anyhow::bail!("the reference and Unicorn printed different output for {source}: the benchmark is void");
    }
    let rate = |time: Duration| reference_instructions as f64 / time.as_secs_f64() / 1e6;
    println!("program: {source} ({reference_instructions} guest instructions, best of {repeat})");
    println!(
        "reference interpreter: {:>8.3} s  {:>8.1} M instructions/s",
        reference_time.as_secs_f64(),
        rate(reference_time)
    );
    println!(
        "unicorn (QEMU TCG):    {:>8.3} s  {:>8.1} M instructions/s",
        unicorn_time.as_secs_f64(),
        rate(unicorn_time)
    );
    println!("ratio: reference/unicorn speed {:.3}", unicorn_time.as_secs_f64() / reference_time.as_secs_f64());
    Ok(ExitCode::SUCCESS)
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
