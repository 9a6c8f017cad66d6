//! `tandem disasm`: guest code through our own decoder, as the kernel would place it.

use super::run::load;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_hle::kernel::Kernel;
use tandem_reference::disasm::disassemble;
use tandem_reference::memory::GuestMemory;

#[derive(Args)]
pub struct DisasmArgs {
    /// A homebrew NRO, an NSO, an ExeFS folder or an aarch64 ELF; with --linux, an aarch64 Linux program.
    pub path: PathBuf,
    /// Place `path` as `tandem linux` would (with its ELF interpreter from --sysroot).
    #[arg(long)]
    pub linux: bool,
    /// With --linux: the folder holding the ELF interpreter and libraries, as for `tandem linux --sysroot`.
    #[arg(long)]
    pub sysroot: Option<PathBuf>,
    /// First address (as placed by `tandem run`, or `tandem linux` with --linux); the entry point by default.
    #[arg(long, value_parser = parse_address)]
    pub at: Option<u64>,
    /// Number of instructions.
    #[arg(long, default_value_t = 32)]
    pub count: u64,
}

fn parse_address(text: &str) -> Result<u64, String> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    u64::from_str_radix(digits, 16).map_err(|e| format!("{text:?} is not a hexadecimal address: {e}"))
}

pub fn run(args: DisasmArgs) -> anyhow::Result<ExitCode> {
    if args.linux {
        let process = super::placed_linux_program(&args.path, args.sysroot)?;
        list(&process.memory, args.at.unwrap_or(process.cpu.pc), args.count, |_| None);
        return Ok(ExitCode::SUCCESS);
    }
    let program = load(Some(&args.path), None)?;
    let kernel = Kernel::new(&program, Box::new(|_| {}))
        .context("placing the program as Horizon would (an aarch64 Linux program needs --linux)")?;
    list(&kernel.memory, args.at.unwrap_or(kernel.entry_point()), args.count, |address| kernel.locate(address));
    Ok(ExitCode::SUCCESS)
}

/// Prints `count` instructions from `start`, each with the module and offset `locate` names.
fn list(memory: &GuestMemory, start: u64, count: u64, locate: impl Fn(u64) -> Option<(String, u64)>) {
    for index in 0..count {
        let address = start.wrapping_add(index * 4);
        let mut word = [0u8; 4];
        if memory.read_privileged(address, &mut word).is_err() {
            println!("{address:#012x}: <not mapped>");
            break;
        }
        let word = u32::from_le_bytes(word);
        let location = locate(address).map(|(m, o)| format!("  // {m}+{o:#x}")).unwrap_or_default();
        println!("{address:#012x}: {word:08x}  {}{location}", disassemble(word, address));
    }
}
