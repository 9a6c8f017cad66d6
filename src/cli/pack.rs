//! `tandem pack`: turn a linked aarch64 ELF into an NRO or NSO (for our own test programs and homebrew), or
//! convert between NRO and NSO.

use anyhow::{Context, bail};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tandem_hle::loader::nro::NroAssetData;
use tandem_hle::loader::{Module, ModuleFormat, Permissions, nro, nso, romfs};
use tandem_hle::program::Program;

#[derive(Args)]
pub struct PackArgs {
    /// A position-independent ELF with three segments: R-X code at 0, then R-- and RW- (the NRO/NSO layout), or an
    /// NRO or NSO to convert.
    pub input: PathBuf,
    /// The output; `.nro` or `.nso` decides the format.
    #[arg(short, long)]
    pub output: PathBuf,
    /// A folder to embed as the NRO's RomFS asset.
    #[arg(long)]
    pub romfs: Option<PathBuf>,
    /// A control.nacp to embed in the NRO.
    #[arg(long, conflicts_with_all = ["title", "author", "version"])]
    pub nacp: Option<PathBuf>,
    /// Embed a control.nacp with this title (in every language), as nacptool makes one.
    #[arg(long)]
    pub title: Option<String>,
    /// The NACP's publisher (with --title).
    #[arg(long, requires = "title")]
    pub author: Option<String>,
    /// The NACP's display version (with --title), what the program reads back through GetDisplayVersion.
    #[arg(long, requires = "title")]
    pub version: Option<String>,
    /// A 256x256 JPEG icon to embed in the NRO.
    #[arg(long)]
    pub icon: Option<PathBuf>,
}

pub fn run(args: PackArgs) -> anyhow::Result<ExitCode> {
    let label = args.input.display().to_string();
    let bytes = std::fs::read(&args.input).with_context(|| format!("reading {label}"))?;
    let program = Program::from_bytes(&label, &bytes).with_context(|| format!("{label}: not an ELF, NRO or NSO"))??;
    let [module] =
        <[Module; 1]>::try_from(program.modules).map_err(|_| anyhow::anyhow!("{label}: expected one module"))?;
    check_layout(&module)?;
    let packed = match args.output.extension().and_then(|e| e.to_str()) {
        Some("nro") => {
            let header_space = module.segments[0].bytes.get(0x10..0x80);
            if module.format != ModuleFormat::Nro && header_space.is_some_and(|bytes| bytes.iter().any(|&b| b != 0)) {
                bail!("{label}: bytes 0x10..0x80 of .text hold code or data, but an NRO keeps its header there");
            }
            let read_optional = |path: &Option<PathBuf>| -> anyhow::Result<Vec<u8>> {
                path.as_ref()
                    .map_or(Ok(Vec::new()), |p| std::fs::read(p).with_context(|| format!("reading {}", p.display())))
            };
            let romfs = match &args.romfs {
                Some(folder) => build_romfs(folder)?,
                None => Vec::new(),
            };
            let nacp = match &args.title {
                Some(title) => nro::write_nacp(&nro::NacpInfo {
                    title: title.clone(),
                    author: args.author.clone().unwrap_or_default(),
                    display_version: args.version.clone().unwrap_or_default(),
                })?,
                None => read_optional(&args.nacp)?,
            };
            let icon = read_optional(&args.icon)?;
            let assets = NroAssetData { icon: &icon, nacp: &nacp, romfs: &romfs };
            let any_asset = !(icon.is_empty() && nacp.is_empty() && romfs.is_empty());
            nro::write(&module, any_asset.then_some(&assets))?
        }
        Some("nso") => {
            if args.romfs.is_some() || args.nacp.is_some() || args.icon.is_some() || args.title.is_some() {
                bail!("an NSO carries no assets: --romfs, --nacp, --title and --icon are for .nro outputs");
            }
            nso::write(&module, true)?
        }
        _ => bail!("{}: the output must end in .nro or .nso", args.output.display()),
    };
    std::fs::write(&args.output, packed).with_context(|| format!("writing {}", args.output.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// NRO and NSO hold exactly `.text` (R-X, at 0), `.rodata` (R--) and `.data` (RW-), page aligned.
/// (An execute-only NSO `.text` is refused: converting it would make its code readable.)
fn check_layout(module: &Module) -> anyhow::Result<()> {
    let expected = [Permissions::READ_EXECUTE, Permissions::READ, Permissions::READ_WRITE];
    let permissions: Vec<Permissions> = module.segments.iter().map(|s| s.permissions).collect();
    if permissions != expected {
        let found: Vec<String> = permissions.iter().map(ToString::to_string).collect();
        bail!(
            "{}: the ELF must have three loadable segments R-X, R--, RW- (found {}); link it with a script that \
             page-aligns .text, .rodata and .data",
            module.name,
            found.join(", ")
        );
    }
    if module.segments[0].mem_offset != 0 || module.segments.iter().any(|s| s.mem_offset % 0x1000 != 0) {
        bail!("{}: segments must start at 0 and on page boundaries", module.name);
    }
    Ok(())
}

fn build_romfs(folder: &Path) -> anyhow::Result<Vec<u8>> {
    let mut files = Vec::new();
    collect_files(folder, folder, &mut files)?;
    files.sort();
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
    Ok(romfs::build(&borrowed)?)
}

fn collect_files(root: &Path, folder: &Path, files: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_files(root, &path, files)?;
        } else {
            let relative = path.strip_prefix(root).expect("walked from root").to_string_lossy().replace('\\', "/");
            files.push((
                format!("/{relative}"),
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?,
            ));
        }
    }
    Ok(())
}
