//! `tandem linux`: run an ordinary aarch64 Linux program, its arguments, environment, streams and exit code passed
//! through.

use super::CpuPath;
use anyhow::Context;
use clap::Args;
use clap::ValueEnum;
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_hle::hex;
use tandem_hle::linux::{ExecState, LinuxOptions, LinuxOutcome, LinuxProcess};
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
    /// Set by Tandem itself when a guest's execve runs another aarch64 program: the descriptor holding the
    /// process state it carries (its arguments, environment, process ids and open descriptors).
    #[arg(long, hide = true)]
    pub exec_state: Option<i32>,
    /// The program, then its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Exit status when Tandem itself cannot go on (an unimplemented system call or instruction, a deadlock, the
/// instruction limit), distinct from the program's own statuses and from 128 + signal.
const TANDEM_STOPPED: u8 = 125;

pub fn run(args: LinuxArgs) -> anyhow::Result<ExitCode> {
    let program = PathBuf::from(&args.command[0]);
    let exec_state = args
        .exec_state
        .map(|fd| ExecState::take_from(fd).map_err(|error| anyhow::anyhow!("the state an execve passed on: {error}")))
        .transpose()?;
    let texts = |texts: &[std::ffi::CString]| texts.iter().map(|text| text.to_string_lossy().into_owned()).collect();
    let mut relaunch = vec!["linux".to_string(), "--cpu".into()];
    relaunch.extend(args.cpu.to_possible_value().map(|value| value.get_name().to_string()));
    if let Some(sysroot) = &args.sysroot {
        // Absolute: the program may change folder before it execs.
        let sysroot = std::fs::canonicalize(sysroot).unwrap_or_else(|_| sysroot.clone());
        relaunch.extend(["--sysroot".to_string(), sysroot.display().to_string()]);
    }
    if args.enosys {
        relaunch.push("--enosys".into());
    }
    if let Some(limit) = args.max_instructions {
        relaunch.extend(["--max-instructions".to_string(), limit.to_string()]);
    }
    let options = LinuxOptions {
        args: exec_state.as_ref().map_or_else(|| args.command.clone(), |state| texts(&state.argv)),
        env: match &exec_state {
            Some(state) => texts(&state.env),
            None => std::env::vars().map(|(key, value)| format!("{key}={value}")).collect(),
        },
        sysroot: args.sysroot,
        enosys: args.enosys,
        max_instructions: args.max_instructions,
        relaunch,
    };
    let mut engine = args.cpu.engine()?;
    let mut process = LinuxProcess::new(&program, options).with_context(|| format!("loading {}", program.display()))?;
    if let Some(state) = &exec_state {
        process.take_exec_state(state);
    }
    let outcome = process.run(engine.as_mut());
    // The signal that ends the program, where Linux would end it with one.
    let (status, signal) = match outcome {
        LinuxOutcome::Exited(status) => (status as u8, None),
        LinuxOutcome::Stopped(report) => {
            eprintln!("{report}");
            let signal = match report.reason {
                StopReason::MemoryFault(_) => Some(11), // SIGSEGV
                StopReason::Undefined(_) => Some(4),    // SIGILL
                StopReason::Brk(_) => Some(5),          // SIGTRAP
                StopReason::Signal { number } => Some(number as u8),
                _ => None,
            };
            (signal.map_or(TANDEM_STOPPED, |signal| 128 + signal), signal)
        }
    };
    if process.is_forked_child() {
        // A child the guest forked ends with its guest: the parent's run is the one that reports, and the
        // command's own endings (the code cache's prune) belong to the parent's process. Its parent's wait4
        // sees a signal's end as one.
        if let Some(signal) = signal {
            tandem_hle::linux::end_by_signal(signal.into());
        }
        std::process::exit(status.into());
    }
    if args.state_hash {
        eprintln!("state-hash: {}", hex(&process.state_hash()));
    }
    Ok(ExitCode::from(status))
}
