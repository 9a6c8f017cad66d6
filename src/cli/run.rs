//! `tandem run`: run a program on a CPU path until it exits or stops.

use super::CpuPath;
use super::window::Window;
use anyhow::Context;
use clap::Args;
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use tandem_hle::hex;
use tandem_hle::input_log::InputLog;
use tandem_hle::kernel::{Kernel, RunOutcome};
use tandem_hle::program::Program;
use tandem_hle::service::hid::InputState;

/// The demo carried inside the binary, run when no program is given.
pub const DEMO_NRO: &[u8] = include_bytes!("../../tests/programs/bin/demo.nro");

#[derive(Args)]
pub struct RunArgs {
    /// A homebrew NRO, an NSO, an ExeFS folder or an aarch64 ELF. Without one, the embedded demo runs.
    pub path: Option<PathBuf>,
    /// The title's RomFS: an image file or an extracted folder.
    #[arg(long)]
    pub romfs: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = CpuPath::Reference)]
    pub cpu: CpuPath,
    /// End with the line `state-hash: HEX` (SHA-256 of every thread's CPU state and all guest memory).
    #[arg(long)]
    pub state_hash: bool,
    /// Write what the state hash covers to FILE, a line per thread and per mapped page with its SHA-256, so that
    /// two runs whose state hashes differ can be diffed to where they part.
    #[arg(long, value_name = "FILE")]
    pub state_pages: Option<PathBuf>,
    /// Stop after this many guest instructions.
    #[arg(long)]
    pub max_instructions: Option<u64>,
    /// Where save data lives (a folder per title and user under it). Default: $XDG_DATA_HOME/tandem/saves, else
    /// ~/.local/share/tandem/saves.
    #[arg(long)]
    pub save_dir: Option<PathBuf>,
    /// The folder that is the console's SD card (libnx's sdmc:/). Default: $XDG_DATA_HOME/tandem/sdmc, else
    /// ~/.local/share/tandem/sdmc.
    #[arg(long)]
    pub sd_dir: Option<PathBuf>,
    /// The guest's clock at boot, in POSIX seconds (UTC). Default: the host's time now. Give one to make runs
    /// that read the clock repeat exactly.
    #[arg(long, conflicts_with = "replay")]
    pub clock_epoch: Option<u64>,
    /// Write the run's input log (what came from the host: the clock and the controllers) to this file, for
    /// --replay.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Repeat a recorded run exactly: take the host's inputs from this input log.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Open no window: frames go only where --frames says (without it, they are counted).
    #[arg(long)]
    pub headless: bool,
    /// Write every frame the program shows to DIR/frame-NNNNN.png (from 00000).
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,
    /// Record the GPU's command trace (what the program gave the GPU, and the memory it read) to FILE, for
    /// `tandem gpu replay`.
    #[arg(long, value_name = "FILE")]
    pub record_trace: Option<PathBuf>,
}

/// A frame sink that writes `DIR/frame-NNNNN.png`; a frame that cannot be written is logged, and the run goes on.
/// A frame sink writing each frame to `folder` as a PNG, and where the first failure to write one is kept (the run
/// goes on; its exit status then says the frames are not all there).
fn png_frames(
    folder: PathBuf,
) -> anyhow::Result<(tandem_hle::service::vi::display::FrameSink, Rc<RefCell<Option<String>>>)> {
    std::fs::create_dir_all(&folder).with_context(|| format!("creating the frames folder {}", folder.display()))?;
    let failed = Rc::new(RefCell::new(None));
    let first_failure = failed.clone();
    let sink = Box::new(move |shown: &tandem_hle::service::vi::display::ShownFrame| {
        let path = folder.join(format!("frame-{:05}.png", shown.number));
        if let Err(error) = write_png(&path, shown.frame) {
            tracing::error!("writing {}: {error:#}", path.display());
            first_failure.borrow_mut().get_or_insert(format!("writing {}: {error:#}", path.display()));
        }
    });
    Ok((sink, failed))
}

pub fn write_png(path: &std::path::Path, frame: &tandem_gpu::backend::Frame) -> anyhow::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, frame.width, frame.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&frame.rgba)?;
    Ok(())
}

/// The save data folder when none is given.
/// `$XDG_DATA_HOME/tandem/NAME`, else `~/.local/share/tandem/NAME`.
fn default_data_dir(name: &str) -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share")))?;
    Some(data.join("tandem").join(name))
}

pub fn load(path: Option<&std::path::Path>, romfs: Option<&std::path::Path>) -> anyhow::Result<Program> {
    match path {
        Some(path) => Ok(Program::open(path, romfs)?),
        None => Program::from_bytes("embedded demo", DEMO_NRO)
            .context("the embedded demo is not an NRO")?
            .context("loading the embedded demo"),
    }
}

/// Ctrl-C was pressed during the run.
static CTRL_C: AtomicBool = AtomicBool::new(false);

/// Makes Ctrl-C set `interrupt` (the kernel ends the run at the next round); a second Ctrl-C ends the process at
/// once, as one that does not answer would be.
fn interrupt_on_ctrl_c(interrupt: Arc<AtomicBool>) {
    static INTERRUPT: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    extern "C" fn on_sigint(_: libc::c_int) {
        // Only atomics here: they are safe in a signal handler.
        if CTRL_C.swap(true, Ordering::SeqCst) {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(130) };
        }
        if let Some(interrupt) = INTERRUPT.get() {
            interrupt.store(true, Ordering::SeqCst);
        }
    }
    if INTERRUPT.set(interrupt).is_ok() {
        // SAFETY: the handler touches only atomics.
        unsafe { libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t) };
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let program = load(args.path.as_deref(), args.romfs.as_deref())?;
    let mut engine = args.cpu.engine()?;
    let output = Box::new(|text: &[u8]| {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (a pipe into `head`) must not stop the guest.
        let _ = stdout.write_all(text).and_then(|_| stdout.flush());
    });
    let mut kernel = Kernel::new(&program, output).with_context(|| format!("loading {}", program.source))?;
    kernel.set_max_instructions(args.max_instructions);
    kernel.set_save_folder(args.save_dir.or_else(|| default_data_dir("saves")));
    kernel.set_sd_card_folder(args.sd_dir.or_else(|| default_data_dir("sdmc")));
    if let Some(path) = &args.record_trace {
        let file = std::fs::File::create(path).with_context(|| format!("creating the trace {}", path.display()))?;
        let recorder = tandem_gpu::trace::Recorder::new(Box::new(std::io::BufWriter::new(file)))
            .with_context(|| format!("writing the trace {}", path.display()))?;
        kernel.start_gpu_trace(recorder);
    }
    let keeps_frames = args.frames.is_some();
    let mut sinks = Vec::new();
    let mut frames_failed = None;
    if let Some(folder) = args.frames {
        let (sink, failed) = png_frames(folder)?;
        sinks.push(sink);
        frames_failed = Some(failed);
    }
    // Closing the window or Ctrl-C ends the run between rounds of the cores, so that what it records (the
    // trace, the input log, the state hash) is still written.
    let interrupt = Arc::new(AtomicBool::new(false));
    kernel.set_interrupt(interrupt.clone());
    interrupt_on_ctrl_c(interrupt.clone());
    let window = (!args.headless).then(|| Window::new(interrupt.clone()));
    if let Some(window) = &window {
        sinks.push(window.frame_sink(format!("Tandem: {}", program.source)));
    }
    if !sinks.is_empty() {
        kernel.set_frame_sink(Box::new(move |shown| sinks.iter_mut().for_each(|sink| sink(shown))));
    }
    let build_ids: Vec<[u8; 32]> = kernel.modules.iter().map(|module| module.build_id).collect();
    let log = match &args.replay {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            let log = InputLog::parse(&text).with_context(|| format!("input log {}", path.display()))?;
            log.check_program(&build_ids).with_context(|| format!("replaying {}", path.display()))?;
            log
        }
        None => {
            let host_now =
                || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            InputLog { build_ids, clock_epoch: args.clock_epoch.unwrap_or_else(host_now), pad: Vec::new() }
        }
    };
    kernel.set_clock_epoch(log.clock_epoch);
    // The controllers: a replay's from its log; a live run's from the window's keyboard, each change recorded
    // with the sample that saw it.
    let recorded = Rc::new(RefCell::new(Vec::new()));
    if args.replay.is_some() {
        let log = log.clone();
        kernel.set_pad_source(Box::new(move |tick| log.pad_at(tick)));
    } else if let Some(window) = &window {
        let (keyboard, recorded) = (window.input(), recorded.clone());
        kernel.set_pad_source(Box::new(move |tick| {
            let state = keyboard.get();
            let mut recorded = recorded.borrow_mut();
            let last = recorded.last().map_or_else(InputState::default, |&(_, last)| last);
            if state != last {
                recorded.push((tick, state));
            }
            state
        }));
    }
    let started = std::time::Instant::now();
    let outcome = kernel.run(engine.as_mut());
    let elapsed = started.elapsed();
    if let Some(path) = &args.record {
        // A replay recorded again keeps its log's input.
        let pad = if args.replay.is_some() { log.pad.clone() } else { recorded.take() };
        let log = InputLog { pad, ..log };
        std::fs::write(path, log.to_text()).with_context(|| format!("writing the input log {}", path.display()))?;
    }
    tracing::info!(
        frames = kernel.frames_shown(),
        instructions = kernel.retired(),
        seconds = elapsed.as_secs_f64(),
        mips = kernel.retired() as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6,
        "run finished"
    );
    if let Some(path) = &args.record_trace {
        kernel.finish_gpu_trace().with_context(|| format!("writing the trace {}", path.display()))?;
    }
    if kernel.frames_shown() > 0 && !keeps_frames && args.headless {
        let frames = match kernel.frames_shown() {
            1 => "1 frame".to_string(),
            n => format!("{n} frames"),
        };
        tracing::warn!("{frames} shown and not kept: add --frames DIR to write them");
    }
    let code = match outcome {
        RunOutcome::Exited => {
            if let Some(window) = &window {
                window.linger();
            }
            ExitCode::SUCCESS
        }
        RunOutcome::Interrupted if CTRL_C.load(Ordering::SeqCst) => {
            eprintln!("interrupted (Ctrl-C): the run ended after {} instructions", kernel.retired());
            ExitCode::from(130)
        }
        RunOutcome::Interrupted => {
            eprintln!("the window was closed: the run ended after {} instructions", kernel.retired());
            ExitCode::SUCCESS
        }
        RunOutcome::Stopped(report) => {
            eprintln!("{report}");
            ExitCode::FAILURE
        }
    };
    let code = match frames_failed.and_then(|failed| failed.take()) {
        Some(problem) => {
            eprintln!("error: not every frame was written ({problem}); the frames folder is incomplete");
            ExitCode::FAILURE
        }
        None => code,
    };
    if args.state_hash {
        println!("state-hash: {}", hex(&kernel.state_hash()));
    }
    if let Some(file) = &args.state_pages {
        std::fs::write(file, kernel.state_listing())
            .with_context(|| format!("could not write the state's pages to {}", file.display()))?;
    }
    Ok(code)
}
