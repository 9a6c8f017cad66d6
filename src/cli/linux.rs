//! `tandem linux`: run an ordinary aarch64 Linux program, its arguments, environment, streams and exit code passed
//! through.

use super::CpuPath;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_hle::hex;
use tandem_hle::linux::{LinuxOptions, LinuxOutcome, LinuxProcess};
use tandem_hle::report::StopReason;

#[derive(Args)]
pub struct LinuxArgs {
    #[arg(long, value_enum, default_value_t = CpuPath::Reference)]
    pub cpu: CpuPath,
    /// Folder holding the ELF interpreter and libraries of dynamically linked programs (e.g. Debian's libc6:arm64
    /// unpacked).
    #[arg(long)]
    pub sysroot: Option<PathBuf>,
    /// Answer system calls Tandem does not implement with ENOSYS instead of stopping.
    #[arg(long)]
    pub enosys: bool,
    /// End with the line `state-hash: HEX` on stderr.
    #[arg(long)]
    pub state_hash: bool,
    /// Stop after this many guest instructions.
    #[arg(long)]
    pub max_instructions: Option<u64>,
    /// The program, then its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Exit status when Tandem itself cannot go on (an unimplemented system call or instruction, a deadlock, the
/// instruction limit), distinct from the program's own statuses and from 128 + signal.
const TANDEM_STOPPED: u8 = 125;

pub fn run(args: LinuxArgs) -> anyhow::Result<ExitCode> {
    let program = PathBuf::from(&args.command[0]);
    let options = LinuxOptions {
        args: args.command.clone(),
        env: std::env::vars().map(|(key, value)| format!("{key}={value}")).collect(),
        sysroot: args.sysroot,
        enosys: args.enosys,
        max_instructions: args.max_instructions,
    };
    let mut engine = args.cpu.engine()?;
    let mut process = LinuxProcess::new(&program, options).with_context(|| format!("loading {}", program.display()))?;
    let outcome = process.run(engine.as_mut());
    let status = match outcome {
        LinuxOutcome::Exited(status) => status as u8,
        LinuxOutcome::Stopped(report) => {
            eprintln!("{report}");
            match report.reason {
                StopReason::MemoryFault(_) => 128 + 11, // SIGSEGV
                StopReason::Undefined(_) => 128 + 4,    // SIGILL
                StopReason::Brk(_) => 128 + 5,          // SIGTRAP
                StopReason::Signal { number } => 128 + number as u8,
                _ => TANDEM_STOPPED,
            }
        }
    };
    if args.state_hash {
        eprintln!("state-hash: {}", hex(&process.state_hash()));
    }
    Ok(ExitCode::from(status))
}
