//! `tandem gpu`: the GPU without a CPU. `replay` runs a command trace (`tandem run --record-trace FILE`) on a back
//! end and writes the frames it shows.

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_gpu::front_end::Gpu;
use tandem_gpu::trace::{self, ReplayMemory};

#[derive(Subcommand)]
pub enum GpuCommand {
    /// Replay a command trace; ends with `replayed: N submissions, M frames`.
    Replay(ReplayArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum BackendArg {
    /// The straightforward Vulkan back end, the GPU's reference.
    Reference,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// A trace written by `tandem run --record-trace`.
    pub trace: PathBuf,
    #[arg(long, value_enum, default_value_t = BackendArg::Reference)]
    pub backend: BackendArg,
    /// Write every frame shown to DIR/frame-NNNNN.png, as `tandem run --frames` does.
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,
}

pub fn run(command: GpuCommand) -> anyhow::Result<ExitCode> {
    let GpuCommand::Replay(args) = command;
    let file = std::fs::File::open(&args.trace).with_context(|| format!("opening {}", args.trace.display()))?;
    // Events are replayed as they are read: a long run's trace need not fit in memory.
    let mut events = trace::Reader::new(std::io::BufReader::new(file))
        .with_context(|| format!("reading {}", args.trace.display()))?;
    let mut gpu = Gpu::default();
    match args.backend {
        BackendArg::Reference => gpu.set_backend_factory(tandem_gpu::backend::reference::factory()),
    }
    if let Some(folder) = &args.frames {
        std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    }
    let mut write_error = None;
    let replayed = trace::replay(events.by_ref(), &mut gpu, &ReplayMemory::default(), |number, frame| {
        if let Some(folder) = &args.frames {
            let path = folder.join(format!("frame-{number:05}.png"));
            if let Err(error) = super::run::write_png(&path, frame) {
                write_error.get_or_insert(error.context(format!("writing {}", path.display())));
            }
        }
    });
    if let Some(error) = write_error {
        return Err(error);
    }
    let replayed = replayed
        .map_err(|problem| anyhow::anyhow!("{problem}"))
        .with_context(|| format!("replaying {}", args.trace.display()))?;
    println!("replayed: {} submissions, {} frames", replayed.submissions, replayed.frames);
    // A cut trace (its run crashed or was killed while recording) replays up to the cut, and still fails; so does
    // one malformed past its start, after the events before the bad one.
    match events.end().with_context(|| format!("reading {}", args.trace.display()))? {
        Some(cut) => anyhow::bail!(
            "{cut} of {}: the {} whole events before it were replayed; the recording stopped there",
            args.trace.display(),
            cut.event
        ),
        None => Ok(ExitCode::SUCCESS),
    }
}
