//! Executable and file-system image loaders.
//!
//! Every loader here is pure parsing: bytes (or positioned reads of a file) in, plain data out. Nothing touches guest
//! memory or the kernel. Code modules (NSO, NRO, ELF) all become a [`Module`]; `main.npdm` becomes an
//! [`npdm::Npdm`]; a RomFS image or an extracted RomFS folder becomes a [`romfs::RomFs`].
//!
//! Architecture invariant: malformed input never panics and never makes a loader allocate more than the input can
//! justify. Each failure is a [`LoadError`] that names the file, the structure, the byte offset and the problem.

mod bytes;
pub mod elf;
pub mod npdm;
pub mod nro;
pub mod nso;
pub mod pfs0;
pub mod romfs;

use crate::hex;
use ::bytes::Bytes;
use std::fmt;

/// Horizon's page size: segment offsets and image sizes are multiples of it.
pub const PAGE_SIZE: u64 = 0x1000;

/// The largest module image (segments, gaps and bss) a loader accepts. Real Switch modules are far smaller; the cap
/// bounds what a hostile size field can make a loader allocate.
pub const MAX_IMAGE_SIZE: u64 = 1 << 32;

/// Where and why a file could not be loaded (or written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {structure}{}: {problem}", OffsetSuffix(*.offset))]
pub struct LoadError {
    /// The caller's label for the file: a path, or a module name such as "main".
    pub file: String,
    /// The structure being read: "NSO header", "NSO .text segment", "ELF program header 3", "RomFS file table"...
    pub structure: String,
    /// Byte offset in the file where the problem lies; `None` where there is no position (a path in a host folder).
    pub offset: Option<u64>,
    /// What is wrong.
    pub problem: Problem,
}

impl LoadError {
    pub(crate) fn at(file: &str, structure: &str, offset: u64, problem: Problem) -> Self {
        Self { file: file.to_owned(), structure: structure.to_owned(), offset: Some(offset), problem }
    }

    pub(crate) fn without_offset(file: &str, structure: &str, problem: Problem) -> Self {
        Self { file: file.to_owned(), structure: structure.to_owned(), offset: None, problem }
    }
}

/// Formats " at offset 0x..." when there is an offset.
struct OffsetSuffix(Option<u64>);

impl fmt::Display for OffsetSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(offset) => write!(f, " at offset {offset:#x}"),
            None => Ok(()),
        }
    }
}

/// What is wrong with a file, the last part of a [`LoadError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The file ends inside a fixed-size structure.
    #[error("truncated: needs {needed:#x} bytes, the file has {available:#x}")]
    Truncated { needed: u64, available: u64 },
    /// A magic number is not the one the format requires.
    #[error("bad magic {found}, expected {expected}")]
    BadMagic { expected: Magic, found: Magic },
    /// A header field points to bytes beyond the end of the file (or of the enclosing structure).
    #[error("the extent {start:#x}+{size:#x} goes past the end at {end:#x}")]
    PastEnd { start: u64, size: u64, end: u64 },
    /// Two things that must not share bytes do.
    #[error("overlaps {other}")]
    Overlap { other: String },
    /// LZ4 block decompression failed, or produced the wrong size.
    #[error("LZ4 error: {0}")]
    Lz4(String),
    /// A SHA-256 over decompressed data differs from the one the header records (digests in hex).
    #[error("SHA-256 mismatch: expected {expected}, actual {actual}")]
    HashMismatch { expected: String, actual: String },
    /// A value that must be a multiple of `alignment` is not.
    #[error("{value:#x} is not a multiple of {alignment:#x}")]
    Misaligned { value: u64, alignment: u64 },
    /// A field holds a value the format does not allow.
    #[error("bad value {value:#x}, expected {expected}")]
    BadValue { value: u64, expected: String },
    /// A size above what the loader accepts (see [`MAX_IMAGE_SIZE`]).
    #[error("size {size:#x} is above the limit {limit:#x}")]
    TooLarge { size: u64, limit: u64 },
    /// An ELF file for another machine.
    #[error("unsupported ELF machine {0} (only EM_AARCH64, 183)")]
    UnsupportedMachine(u16),
    /// An ELF file of another class.
    #[error("unsupported ELF class {0} (only ELFCLASS64, 2)")]
    UnsupportedClass(u8),
    /// A relocation the loader cannot apply (only R_AARCH64_RELATIVE is supported for now).
    #[error("unsupported relocation {name} (type {kind}, symbol {symbol}): only R_AARCH64_RELATIVE is supported")]
    UnsupportedRelocation { kind: u32, name: &'static str, symbol: u32 },
    /// A feature of the format that Tandem does not implement yet.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A walk through linked entries went on longer than the table has entries: the links form a cycle.
    #[error("more than {limit} links followed: the entries form a cycle")]
    Cycle { limit: u64 },
    /// Text that must be UTF-8 is not.
    #[error("not valid UTF-8")]
    NotUtf8,
    /// Fields that are each valid contradict one another.
    #[error("{0}")]
    Inconsistent(String),
    /// A path names nothing.
    #[error("{path}: not found")]
    NotFound { path: String },
    /// A path names a file where a directory is needed.
    #[error("{path}: not a directory")]
    NotADirectory { path: String },
    /// A path names a directory where a file is needed.
    #[error("{path}: not a file")]
    NotAFile { path: String },
    /// A path is not of the form "/a/b.txt".
    #[error("invalid path {path:?}: {reason}")]
    BadPath { path: String, reason: &'static str },
    /// A path resolves (through a symbolic link) to somewhere outside the folder.
    #[error("{path}: resolves outside the folder")]
    OutsideFolder { path: String },
    /// The host failed to read.
    #[error("I/O error: {0}")]
    Io(String),
    /// A writer was given something its format cannot express.
    #[error("cannot write: {0}")]
    CannotWrite(String),
}

/// A four-byte magic number, shown with non-printable bytes escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Magic(pub [u8; 4]);

impl fmt::Display for Magic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0.escape_ascii())
    }
}

/// The file format a [`Module`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleFormat {
    Nso,
    Nro,
    Elf,
}

/// Memory permissions of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permissions {
    pub read: bool,
    pub write: bool,
    pub execute: bool,
}

impl Permissions {
    /// R-X: code.
    pub const READ_EXECUTE: Self = Self { read: true, write: false, execute: true };
    /// --X: code that must not be read (NSO flag PreventCodeReads).
    pub const EXECUTE_ONLY: Self = Self { read: false, write: false, execute: true };
    /// R--: read-only data.
    pub const READ: Self = Self { read: true, write: false, execute: false };
    /// RW-: data.
    pub const READ_WRITE: Self = Self { read: true, write: true, execute: false };
}

impl fmt::Display for Permissions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = |on: bool, letter: char| if on { letter } else { '-' };
        write!(f, "{}{}{}", flag(self.read, 'R'), flag(self.write, 'W'), flag(self.execute, 'X'))
    }
}

/// Whether a segment's contents were checked against a hash in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashCheck {
    /// The file carries a SHA-256 for the segment and it matched (a mismatch is a [`LoadError`]).
    Verified,
    /// The file asks for no check (NSO hash flag clear) or has no hashes (NRO, ELF).
    NotChecked,
}

/// One mapped region of a module.
#[derive(Clone, PartialEq, Eq)]
pub struct Segment {
    /// Offset from the module base.
    pub mem_offset: u64,
    /// Contents as mapped (decompressed). Shared: an ELF segment is a slice of the file's bytes.
    pub bytes: Bytes,
    /// Zero bytes after `bytes`, in the segment (an ELF segment's memory past its file bytes, other than the last
    /// segment's, which is the bss): mapped zero-filled, never held.
    pub zero_tail: u64,
    pub permissions: Permissions,
    pub hash_check: HashCheck,
}

impl Segment {
    /// Offset from the module base of the first byte after the segment's bytes.
    pub fn bytes_end(&self) -> u64 {
        self.mem_offset.saturating_add(self.bytes.len() as u64)
    }

    /// Offset from the module base of the first byte after the segment, zero tail included.
    pub fn mem_end(&self) -> u64 {
        self.bytes_end().saturating_add(self.zero_tail)
    }
}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("mem_offset", &format_args!("{:#x}", self.mem_offset))
            .field("size", &format_args!("{:#x}", self.bytes.len()))
            .field("zero_tail", &format_args!("{:#x}", self.zero_tail))
            .field("permissions", &format_args!("{}", self.permissions))
            .field("hash_check", &self.hash_check)
            .finish()
    }
}

/// An extent inside `.rodata` (NSO and NRO headers record where the api info, `.dynstr` and `.dynsym` are).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RodataExtent {
    /// Offset from the start of `.rodata`.
    pub offset: u32,
    pub size: u32,
}

/// The `.rodata`-relative extents an NSO or NRO header records. All zero for ELF modules. Informative only: loaders
/// do not check them against `.rodata`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RodataExtents {
    pub api_info: RodataExtent,
    pub dynstr: RodataExtent,
    pub dynsym: RodataExtent,
}

/// A relocation the loader must apply: the 64-bit word at `offset` (from the module base) becomes
/// `load_base + addend`. Only ELF modules have them; NSO and NRO modules relocate themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    pub offset: u64,
    pub addend: i64,
}

/// A code module as a loader produced it: what to map where, with which permissions.
///
/// NSO and NRO modules have exactly three segments, `.text` (R-X, or --X), `.rodata` (R--) and `.data` (RW-), in
/// that order, `.text` at offset 0. ELF modules have one segment per loadable program header, in address order.
/// The bss follows the last segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The caller's name for the module ("rtld", "main", "sdk", a file name...).
    pub name: String,
    pub format: ModuleFormat,
    pub segments: Vec<Segment>,
    /// Zero-filled bytes after the end of the last segment.
    pub bss_size: u64,
    /// The module id / GNU build id, zero-padded to 32 bytes.
    pub build_id: [u8; 32],
    pub rodata_extents: RodataExtents,
    /// Relocations to apply with [`Module::relocate`] (ELF only).
    pub relocations: Vec<Relocation>,
    /// For a non-position-independent ELF executable (ET_EXEC), the address its base must be mapped at.
    pub link_base: Option<u64>,
    /// Entry point, from the module base.
    entry: u64,
}

impl Module {
    /// Entry point, from the module base: 0 for NSO and NRO (Horizon starts a module at its base), the ELF
    /// header's entry minus the base address for ELF.
    pub fn entry_offset(&self) -> u64 {
        self.entry
    }

    /// Size of the module in memory, bss included, rounded up to whole pages.
    pub fn image_size(&self) -> u64 {
        let end = self.segments.iter().map(Segment::mem_end).max().unwrap_or(0);
        align_up(end.saturating_add(self.bss_size), PAGE_SIZE).unwrap_or(u64::MAX)
    }

    /// Where the segments' bytes end, from the module base: the zeros past it (zero tails, the bss) are the
    /// mapping's own.
    pub fn bytes_extent(&self) -> u64 {
        self.segments.iter().map(Segment::bytes_end).max().unwrap_or(0)
    }

    /// The module's bytes as one flat block of memory, for relocation: segments at their offsets, gaps zero-filled,
    /// up to [`Module::bytes_extent`] (what the file holds, not what it asks to be zeroed).
    pub fn image(&self) -> Vec<u8> {
        let mut image = vec![0; usize::try_from(self.bytes_extent()).unwrap_or(usize::MAX)];
        for segment in &self.segments {
            // Every segment's bytes end within `bytes_extent()`, so the range is in bounds.
            image[segment.mem_offset as usize..segment.bytes_end() as usize].copy_from_slice(&segment.bytes);
        }
        image
    }

    /// `len` bytes at `offset` from the module base, when they lie inside one segment.
    pub fn read_image(&self, offset: u64, len: u64) -> Option<&[u8]> {
        let end = offset.checked_add(len)?;
        let segment = self.segments.iter().find(|s| s.mem_offset <= offset && end <= s.mem_end())?;
        let start = (offset - segment.mem_offset) as usize;
        segment.bytes.get(start..start + len as usize)
    }

    /// Offset of the MOD0 header from the module base. By Horizon convention the 32-bit word at base+4 holds it;
    /// `None` when that word points outside the segments or not at the "MOD0" magic.
    pub fn mod0_offset(&self) -> Option<u32> {
        let word = self.read_image(4, 4)?;
        let offset = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        (self.read_image(u64::from(offset), 4)? == b"MOD0").then_some(offset)
    }

    /// Applies [`Module::relocations`] to `image` (as made by [`Module::image`]) for a module mapped at `load_base`.
    pub fn relocate(&self, image: &mut [u8], load_base: u64) -> Result<(), LoadError> {
        for (index, relocation) in self.relocations.iter().enumerate() {
            let structure = format!("relocation {index}");
            let value = load_base.checked_add_signed(relocation.addend).ok_or_else(|| {
                let problem = Problem::Inconsistent(format!(
                    "load base {load_base:#x} plus addend {:#x} overflows",
                    relocation.addend
                ));
                LoadError::at(&self.name, &structure, relocation.offset, problem)
            })?;
            let image_len = image.len() as u64;
            let target = usize::try_from(relocation.offset)
                .ok()
                .and_then(|start| image.get_mut(start..start.checked_add(8)?))
                .ok_or_else(|| {
                    let problem = Problem::PastEnd { start: relocation.offset, size: 8, end: image_len };
                    LoadError::at(&self.name, &structure, relocation.offset, problem)
                })?;
            target.copy_from_slice(&value.to_le_bytes());
        }
        Ok(())
    }

    /// The three segments of a Horizon module (NSO/NRO), checked for what those formats can express; `.text` may
    /// have any of `text_permissions`.
    fn horizon_segments(&self, format: &str, text_permissions: &[Permissions]) -> Result<[&Segment; 3], LoadError> {
        let cannot = |reason: String| {
            LoadError::without_offset(&self.name, &format!("{format} writer"), Problem::CannotWrite(reason))
        };
        let [text, rodata, data] = self.segments.as_slice() else {
            return Err(cannot(format!("{format} needs 3 segments, the module has {}", self.segments.len())));
        };
        let allowed: [&[Permissions]; 3] = [text_permissions, &[Permissions::READ], &[Permissions::READ_WRITE]];
        for (index, (segment, allowed)) in [text, rodata, data].into_iter().zip(allowed).enumerate() {
            if !allowed.contains(&segment.permissions) {
                return Err(cannot(format!(
                    "segment {index} is {}, {format} needs {}",
                    segment.permissions, allowed[0]
                )));
            }
        }
        let layout = [text, rodata, data].map(|s| (s.mem_offset, s.bytes.len() as u64));
        check_horizon_layout(&layout).map_err(|(index, problem)| cannot(format!("segment {index}: {problem}")))?;
        if self.entry != 0 {
            return Err(cannot(format!("{format} modules start at their base, the entry is at {:#x}", self.entry)));
        }
        let image_end = data.mem_end().saturating_add(self.bss_size);
        if image_end > u64::from(u32::MAX) {
            return Err(cannot(format!("the image ends at {image_end:#x}, past what 32-bit fields can describe")));
        }
        Ok([text, rodata, data])
    }
}

/// Names of the three Horizon segments, for messages.
const HORIZON_SEGMENT_NAMES: [&str; 3] = [".text", ".rodata", ".data"];

/// Checks the (memory offset, size) of `.text`, `.rodata` and `.data` as Horizon's loader does: `.text` at 0, every
/// offset page-aligned, each segment ending before the next begins. On failure gives the segment index and problem.
fn check_horizon_layout(layout: &[(u64, u64); 3]) -> Result<(), (usize, Problem)> {
    if layout[0].0 != 0 {
        return Err((0, Problem::BadValue { value: layout[0].0, expected: "0 (.text starts the module)".into() }));
    }
    for (index, &(offset, _)) in layout.iter().enumerate() {
        if !offset.is_multiple_of(PAGE_SIZE) {
            return Err((index, Problem::Misaligned { value: offset, alignment: PAGE_SIZE }));
        }
    }
    for index in 1..3 {
        let (previous_offset, previous_size) = layout[index - 1];
        let previous_end = previous_offset.saturating_add(previous_size);
        if layout[index].0 < previous_end {
            return Err((index, Problem::Overlap { other: HORIZON_SEGMENT_NAMES[index - 1].to_owned() }));
        }
    }
    Ok(())
}

/// Rounds `value` up to a multiple of `alignment` (a power of two); `None` on overflow.
fn align_up(value: u64, alignment: u64) -> Option<u64> {
    Some(value.checked_add(alignment - 1)? & !(alignment - 1))
}

/// Helpers shared by the loaders' tests.
#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A Horizon-shaped module: `.text` starts with a branch and the MOD0 offset word, and MOD0 follows at 0x80
    /// (past the room an NRO header needs).
    pub(crate) fn sample_module(name: &str, format: ModuleFormat) -> Module {
        let mut text: Vec<u8> = (0..0x1000u32).map(|i| (i % 7) as u8).collect();
        text[0..4].copy_from_slice(&0x1400_0020u32.to_le_bytes()); // b #0x80
        text[4..8].copy_from_slice(&0x80u32.to_le_bytes());
        text[0x80..0x84].copy_from_slice(b"MOD0");
        let rodata: Vec<u8> = (0..0x801u32).map(|i| (i * 31 % 251) as u8).collect();
        let data: Vec<u8> = (0..0x300u32).map(|i| (i / 3) as u8).collect();
        let hash_check = if format == ModuleFormat::Nso { HashCheck::Verified } else { HashCheck::NotChecked };
        let segment = |mem_offset, bytes: Vec<u8>, permissions| Segment {
            mem_offset,
            bytes: bytes.into(),
            zero_tail: 0,
            permissions,
            hash_check,
        };
        Module {
            name: name.to_owned(),
            format,
            segments: vec![
                segment(0, text, Permissions::READ_EXECUTE),
                segment(0x1000, rodata, Permissions::READ),
                segment(0x2000, data, Permissions::READ_WRITE),
            ],
            bss_size: 0x1234,
            build_id: std::array::from_fn(|i| i as u8 + 1),
            rodata_extents: RodataExtents {
                api_info: RodataExtent { offset: 0x10, size: 0x20 },
                dynstr: RodataExtent { offset: 0x30, size: 0x40 },
                dynsym: RodataExtent { offset: 0x70, size: 0x18 },
            },
            relocations: Vec::new(),
            link_base: None,
            entry: 0,
        }
    }

    pub(crate) fn put_u32(bytes: &mut [u8], offset: u64, value: u32) {
        bytes[offset as usize..offset as usize + 4].copy_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn get_u32(bytes: &[u8], offset: u64) -> u32 {
        u32::from_le_bytes(bytes[offset as usize..offset as usize + 4].try_into().unwrap())
    }

    pub(crate) fn put_u64(bytes: &mut [u8], offset: u64, value: u64) {
        bytes[offset as usize..offset as usize + 8].copy_from_slice(&value.to_le_bytes());
    }

    /// One row of a malformed-input table: how to break a valid file, and the error that must follow.
    pub(crate) struct Case {
        pub(crate) name: &'static str,
        pub(crate) mutate: fn(&mut Vec<u8>),
        pub(crate) structure: &'static str,
        pub(crate) offset: u64,
        pub(crate) problem: fn(&Problem) -> bool,
    }

    /// Runs every case: mutates a copy of `valid`, parses it with `parse` and checks the error's file label,
    /// structure, offset and problem.
    pub(crate) fn check_cases<T: std::fmt::Debug>(
        valid: &[u8],
        parse: impl Fn(&str, &[u8]) -> Result<T, LoadError>,
        cases: &[Case],
    ) {
        for case in cases {
            let mut file = valid.to_vec();
            (case.mutate)(&mut file);
            let error = parse("label", &file).expect_err(case.name);
            assert_eq!(error.file, "label", "{}", case.name);
            assert_eq!(error.structure, case.structure, "{}: {error}", case.name);
            assert_eq!(error.offset, Some(case.offset), "{}: {error}", case.name);
            assert!((case.problem)(&error.problem), "{}: {error}", case.name);
        }
    }

    /// Up to 8 byte edits (where in the file, new value): mutations for never-panic properties.
    pub(crate) fn edits() -> impl proptest::strategy::Strategy<Value = Vec<(proptest::sample::Index, u8)>> {
        proptest::collection::vec(proptest::arbitrary::any::<(proptest::sample::Index, u8)>(), 1..8)
    }

    /// Applies byte edits (index into the file, new value) to a copy of `valid`: input for never-panic properties.
    pub(crate) fn mutate(valid: &[u8], edits: &[(proptest::sample::Index, u8)]) -> Vec<u8> {
        let mut file = valid.to_vec();
        for (index, value) in edits {
            let at = index.index(file.len());
            file[at] = *value;
        }
        file
    }
}
