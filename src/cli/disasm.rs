//! `tandem disasm`: guest code through our own decoder, as the kernel would place it.

use super::run::load;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_hle::kernel::Kernel;
use tandem_reference::disasm::disassemble;

#[derive(Args)]
pub struct DisasmArgs {
    /// A homebrew NRO, an NSO, an ExeFS folder or an aarch64 ELF.
    pub path: PathBuf,
    /// First address (as placed by `tandem run`); the entry point by default.
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
    let program = load(Some(&args.path), None)?;
    let kernel = Kernel::new(&program, Box::new(|_| {})).context("placing the program")?;
    let start = args.at.unwrap_or(kernel.entry_point());
    for index in 0..args.count {
        let address = start.wrapping_add(index * 4);
        let mut word = [0u8; 4];
        if kernel.memory.read_privileged(address, &mut word).is_err() {
            println!("{address:#012x}: <not mapped>");
            break;
        }
        let word = u32::from_le_bytes(word);
        let location = kernel.locate(address).map(|(m, o)| format!("  // {m}+{o:#x}")).unwrap_or_default();
        println!("{address:#012x}: {word:08x}  {}{location}", disassemble(word, address));
    }
    Ok(ExitCode::SUCCESS)
}
