//! What a user hands Tandem: a homebrew NRO, an ExeFS folder (with an optional RomFS), or an aarch64 ELF, read
//! into modules ready for the kernel to place.

use crate::loader::npdm::{self, Npdm};
use crate::loader::nro::{self, NacpInfo};
use crate::loader::romfs::RomFs;
use crate::loader::{LoadError, Module, elf, nso};
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The ExeFS modules in the order Horizon's loader places them; execution starts at the first one present.
pub const EXEFS_MODULES: [&str; 13] = [
    "rtld", "main", "subsdk0", "subsdk1", "subsdk2", "subsdk3", "subsdk4", "subsdk5", "subsdk6", "subsdk7", "subsdk8",
    "subsdk9", "sdk",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramFormat {
    Nro,
    /// A single NSO module (normally one file of an ExeFS).
    Nso,
    ExeFs,
    Elf,
}

impl fmt::Display for ProgramFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProgramFormat::Nro => "homebrew NRO",
            ProgramFormat::Nso => "NSO module",
            ProgramFormat::ExeFs => "ExeFS",
            ProgramFormat::Elf => "aarch64 ELF",
        })
    }
}

/// A program read from disk: its modules in load order and what came with them.
pub struct Program {
    pub format: ProgramFormat,
    /// Where it came from (a path, or "embedded demo").
    pub source: String,
    pub modules: Vec<Module>,
    pub npdm: Option<Npdm>,
    /// Shared with the file system service of a running program.
    pub romfs: Option<Rc<RomFs>>,
    /// The NRO's NACP, when it carries one.
    pub nacp: Option<NacpInfo>,
}

#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}: an ExeFS folder needs at least one of rtld, main, subsdk0-9 or sdk (and usually main.npdm)", .0.display())]
    EmptyExeFs(PathBuf),
    #[error("{}: not an NRO, NSO, ELF or ExeFS folder (NRO files have \"NRO0\" at 0x10, NSO files start with \"NSO0\", ELF files with \\x7fELF)", .0.display())]
    UnknownFormat(PathBuf),
}

impl Program {
    /// Reads an NRO, an ELF or an ExeFS folder, telling them apart by content. `romfs` is an image file or an
    /// extracted folder.
    pub fn open(path: &Path, romfs: Option<&Path>) -> Result<Program, ProgramError> {
        let mut program = if path.is_dir() {
            Program::open_exefs(path)?
        } else {
            let bytes = read(path)?;
            Program::from_bytes(&path.display().to_string(), &bytes)
                .ok_or_else(|| ProgramError::UnknownFormat(path.into()))??
        };
        if let Some(romfs) = romfs {
            program.romfs =
                Some(Rc::new(if romfs.is_dir() { RomFs::open_folder(romfs)? } else { RomFs::open_image(romfs)? }));
        }
        Ok(program)
    }

    /// Reads an NRO or ELF held in memory; `None` when the bytes are neither.
    pub fn from_bytes(label: &str, bytes: &[u8]) -> Option<Result<Program, ProgramError>> {
        let program = |format, modules, nacp, romfs| Program {
            format,
            source: label.to_string(),
            modules,
            npdm: None,
            romfs,
            nacp,
        };
        if bytes.starts_with(b"\x7fELF") {
            return Some(
                elf::read(label, bytes)
                    .map(|module| program(ProgramFormat::Elf, vec![module], None, None))
                    .map_err(Into::into),
            );
        }
        if bytes.starts_with(b"NSO0") {
            return Some(
                nso::read(label, bytes)
                    .map(|module| program(ProgramFormat::Nso, vec![module], None, None))
                    .map_err(Into::into),
            );
        }
        if bytes.get(0x10..0x14) == Some(b"NRO0") {
            return Some((|| {
                let nro = nro::read(label, bytes)?;
                let assets = nro.assets.as_ref();
                let nacp = assets
                    .and_then(|a| a.nacp.clone())
                    .map(|range| nro::read_nacp(label, &bytes[range]))
                    .transpose()?;
                let romfs = assets
                    .and_then(|a| a.romfs.clone())
                    .map(|range| RomFs::from_bytes(label, bytes[range].to_vec()).map(Rc::new))
                    .transpose()?;
                Ok(program(ProgramFormat::Nro, vec![nro.module], nacp, romfs))
            })());
        }
        None
    }

    fn open_exefs(folder: &Path) -> Result<Program, ProgramError> {
        let mut modules = Vec::new();
        for name in EXEFS_MODULES {
            let path = folder.join(name);
            if path.is_file() {
                modules.push(nso::read(name, &read(&path)?)?);
            }
        }
        if modules.is_empty() {
            return Err(ProgramError::EmptyExeFs(folder.into()));
        }
        let npdm_path = folder.join("main.npdm");
        let npdm = if npdm_path.is_file() { Some(npdm::read("main.npdm", &read(&npdm_path)?)?) } else { None };
        // The title's control data, when the user dumped it beside the ExeFS.
        let nacp_path = folder.join("control.nacp");
        let nacp = if nacp_path.is_file() { Some(nro::read_nacp("control.nacp", &read(&nacp_path)?)?) } else { None };
        Ok(Program {
            format: ProgramFormat::ExeFs,
            source: folder.display().to_string(),
            modules,
            npdm,
            romfs: None,
            nacp,
        })
    }
}

fn read(path: &Path) -> Result<Vec<u8>, ProgramError> {
    std::fs::read(path).map_err(|error| ProgramError::Io { path: path.into(), error })
}
