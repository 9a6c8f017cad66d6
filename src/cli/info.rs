//! `tandem info`: what the loaders found in a program.

use super::run::load;
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_hle::hex;
use tandem_hle::kernel::svc_name;
use tandem_hle::loader::HashCheck;
use tandem_hle::loader::romfs::EntryKind;
use tandem_hle::program::Program;

#[derive(Args)]
pub struct InfoArgs {
    /// A homebrew NRO, an NSO, an ExeFS folder or an aarch64 ELF; without one, the embedded demo.
    pub path: Option<PathBuf>,
    /// The title's RomFS: an image file or an extracted folder.
    #[arg(long)]
    pub romfs: Option<PathBuf>,
}

pub fn run(args: InfoArgs) -> anyhow::Result<ExitCode> {
    let program = load(args.path.as_deref(), args.romfs.as_deref())?;
    print!("{}", describe(&program)?);
    Ok(ExitCode::SUCCESS)
}

fn describe(program: &Program) -> anyhow::Result<String> {
    let mut out = String::new();
    writeln!(out, "{}: {}", program.source, program.format)?;
    for module in &program.modules {
        writeln!(out, "module {} ({:?}), {:#x} bytes in memory", module.name, module.format, module.image_size())?;
        writeln!(out, "  build id {}", hex(&module.build_id))?;
        for segment in &module.segments {
            let hash = match segment.hash_check {
                HashCheck::Verified => "sha-256 verified",
                HashCheck::NotChecked => "no hash",
            };
            writeln!(
                out,
                "  segment {:#010x}..{:#010x} {} {:#x} bytes, {hash}",
                segment.mem_offset,
                segment.mem_end(),
                segment.permissions,
                segment.bytes.len()
            )?;
        }
        writeln!(out, "  bss {:#x} bytes, entry at +{:#x}", module.bss_size, module.entry_offset())?;
        if let Some(offset) = module.mod0_offset() {
            writeln!(out, "  MOD0 header at +{offset:#x}")?;
        }
    }
    if let Some(npdm) = &program.npdm {
        writeln!(out, "npdm: {} (product code {:?}), version {}", npdm.name, npdm.product_code, npdm.version)?;
        writeln!(out, "  title id {:016x}", npdm.aci.program_id)?;
        writeln!(out, "  64-bit {}, address space {:?}", npdm.is_64bit, npdm.address_space)?;
        writeln!(
            out,
            "  main thread: priority {}, core {}, stack {:#x} bytes",
            npdm.main_thread_priority, npdm.main_thread_core, npdm.main_thread_stack_size
        )?;
        let svcs: Vec<String> =
            npdm.aci.kernel.allowed_svcs.ids().map(|id| format!("{id:#04x} {}", svc_name(id as u16))).collect();
        writeln!(out, "  allowed SVCs ({}): {}", svcs.len(), svcs.join(", "))?;
        let services: Vec<&str> = npdm.aci.services.iter().map(|s| s.name.as_str()).collect();
        if !services.is_empty() {
            writeln!(out, "  services: {}", services.join(", "))?;
        }
    }
    if let Some(nacp) = &program.nacp {
        writeln!(out, "nacp: {:?} by {:?}, version {:?}", nacp.title, nacp.author, nacp.display_version)?;
    }
    if let Some(romfs) = &program.romfs {
        let root = romfs.root()?;
        writeln!(out, "romfs root ({} entries):", root.len())?;
        for entry in root {
            match entry.kind {
                EntryKind::Directory => writeln!(out, "  {}/", entry.name)?,
                EntryKind::File { size } => writeln!(out, "  {} ({size} bytes)", entry.name)?,
            }
        }
    }
    Ok(out)
}
