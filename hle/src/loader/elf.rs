//! ELF64 little-endian AArch64 executables and shared objects (ET_EXEC, ET_DYN): homebrew before conversion, and
//! ordinary Linux programs for the Linux personality.
//!
//! Layout from the System V ABI (ELF-64 object file format) and, for relocation types, Arm's "ELF for the Arm
//! 64-bit Architecture". Each PT_LOAD becomes a segment, in address order, from the page below the lowest address;
//! the last segment's zero-filled tail becomes the module's bss. Relocations come from the dynamic section's
//! DT_RELA and DT_JMPREL tables; only R_AARCH64_RELATIVE is supported for now. The build id comes from the
//! NT_GNU_BUILD_ID note.

use super::bytes::Reader;
use super::{
    HashCheck, LoadError, MAX_IMAGE_SIZE, Module, ModuleFormat, PAGE_SIZE, Permissions, Problem, Relocation,
    RodataExtents, Segment, align_up,
};
use ::bytes::Bytes;

const HEADER: &str = "ELF header";
const HEADER_SIZE: u64 = 0x40;
const DYNAMIC: &str = "ELF dynamic section";
const NOTE: &str = "ELF note";

const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;
const ET_EXEC: u16 = 2;
const ET_DYN: u16 = 3;
const EM_AARCH64: u16 = 183;
/// e_phnum's escape value: the real count is elsewhere (extended numbering).
const PN_XNUM: u16 = 0xFFFF;

const PROGRAM_HEADER_SIZE: u64 = 0x38;
const MAX_PROGRAM_HEADERS: u64 = 0x10000 / PROGRAM_HEADER_SIZE;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;
const PT_NOTE: u32 = 4;
const PT_PHDR: u32 = 6;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;

const DYNAMIC_ENTRY_SIZE: u64 = 16;
const DT_NULL: u64 = 0;
const DT_PLTRELSZ: u64 = 2;
const DT_RELA: u64 = 7;
const DT_RELASZ: u64 = 8;
const DT_RELAENT: u64 = 9;
const DT_RELSZ: u64 = 18;
const DT_PLTREL: u64 = 20;
const DT_JMPREL: u64 = 23;
const DT_RELRSZ: u64 = 35;

const RELA_ENTRY_SIZE: u64 = 24;
const R_AARCH64_NONE: u32 = 0;
const R_AARCH64_RELATIVE: u32 = 1027;

const NT_GNU_BUILD_ID: u32 = 3;

/// One program header, with where it sits in the file for error messages.
struct ProgramHeader {
    /// Index in the program header table.
    index: usize,
    /// File offset of the program header itself.
    at: u64,
    kind: u32,
    flags: u32,
    offset: u64,
    vaddr: u64,
    file_size: u64,
    mem_size: u64,
    align: u64,
}

impl ProgramHeader {
    fn read(r: &Reader, table: u64, index: usize) -> Result<Self, LoadError> {
        let at = (index as u64).checked_mul(PROGRAM_HEADER_SIZE).and_then(|o| o.checked_add(table)).unwrap_or(u64::MAX);
        let name = Self::name_of(index);
        r.bytes(at, PROGRAM_HEADER_SIZE, &name)?;
        Ok(Self {
            index,
            at,
            kind: r.u32(at, &name)?,
            flags: r.u32(at + 4, &name)?,
            offset: r.u64(at + 8, &name)?,
            vaddr: r.u64(at + 0x10, &name)?,
            file_size: r.u64(at + 0x20, &name)?,
            mem_size: r.u64(at + 0x28, &name)?,
            align: r.u64(at + 0x30, &name)?,
        })
    }

    fn name_of(index: usize) -> String {
        format!("ELF program header {index}")
    }

    fn name(&self) -> String {
        Self::name_of(self.index)
    }

    /// The bytes the segment takes from the file.
    fn file_bytes<'a>(&self, r: &Reader<'a>) -> Result<&'a [u8], LoadError> {
        r.extent(self.at + 8, self.offset, self.file_size, &self.name())
    }

    fn permissions(&self) -> Permissions {
        Permissions { read: self.flags & PF_R != 0, write: self.flags & PF_W != 0, execute: self.flags & PF_X != 0 }
    }
}

/// Parses an ELF file for Horizon: the module with its R_AARCH64_RELATIVE relocations to apply at load time.
/// `file` labels the module in errors and becomes [`Module::name`].
pub fn read(file: &str, bytes: &[u8]) -> Result<Module, LoadError> {
    let bytes = Bytes::copy_from_slice(bytes);
    let r = Reader::new(file, &bytes);
    let Parsed { mut module, headers, base } = parse(&r, &bytes)?;
    if let Some(dynamic) = headers.iter().find(|h| h.kind == PT_DYNAMIC) {
        let loads = loads_by_address(&headers);
        // Relocations change the file's bytes (the GOT, data): a target in the zeros past them is refused.
        module.relocations = read_relocations(&r, dynamic, &loads, base, module.bytes_extent())?;
    }
    tracing::debug!(file, base, entry = module.entry, segments = module.segments.len(), "loaded ELF");
    Ok(module)
}

/// An ELF program as Linux's exec loads it: the module (its relocations are the program's own business, or its
/// interpreter's), the interpreter it asks for and where its program headers are in memory (for the auxiliary
/// vector).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executable {
    pub module: Module,
    /// PT_INTERP: the dynamic linker's path, for dynamically linked programs.
    pub interpreter: Option<String>,
    /// Offset of the program header table from the module base, as mapped.
    pub program_headers_offset: u64,
    pub program_header_count: u16,
}

/// Parses an ELF program for the Linux personality. Its segments share `bytes` (where they need no zero tail).
pub fn read_executable(file: &str, bytes: &Bytes) -> Result<Executable, LoadError> {
    let r = Reader::new(file, bytes);
    let Parsed { module, headers, base } = parse(&r, bytes)?;
    let interpreter = match headers.iter().find(|h| h.kind == PT_INTERP) {
        Some(header) => {
            let path = header.file_bytes(&r)?;
            let path = path.strip_suffix(b"\0").unwrap_or(path);
            let path =
                std::str::from_utf8(path).map_err(|_| r.error(&header.name(), header.at + 8, Problem::NotUtf8))?;
            Some(path.to_owned())
        }
        None => None,
    };
    // PT_PHDR says where the table is mapped; without it, find the PT_LOAD whose file bytes hold it.
    let table = r.u64(0x20, HEADER)?;
    let count = r.u16(0x38, HEADER)?;
    let mapped_at = match headers.iter().find(|h| h.kind == PT_PHDR) {
        Some(phdr) => Some(phdr.vaddr),
        None => headers
            .iter()
            .filter(|h| h.kind == PT_LOAD)
            .find(|h| h.offset <= table && table < h.offset.saturating_add(h.file_size))
            .map(|h| h.vaddr + (table - h.offset)),
    };
    let program_headers_offset = mapped_at.and_then(|address| address.checked_sub(base)).unwrap_or(0);
    Ok(Executable { module, interpreter, program_headers_offset, program_header_count: count })
}

/// What both readers share: the module without relocations, the program headers and the base address.
struct Parsed {
    module: Module,
    headers: Vec<ProgramHeader>,
    base: u64,
}

/// Parses the file `r` reads, whose bytes `whole` holds.
fn parse(r: &Reader, whole: &Bytes) -> Result<Parsed, LoadError> {
    r.expect_magic(0, b"\x7fELF", HEADER)?;
    r.bytes(0, HEADER_SIZE, HEADER)?;
    let elf_type = check_identification(r)?;
    let entry = r.u64(0x18, HEADER)?;
    let headers = read_program_headers(r)?;
    let loads = loads_by_address(&headers);
    let base = check_loads(r, &loads)?;
    let (segments, bss_size) = build_segments(r, whole, &loads, base)?;
    let mut module = Module {
        name: r.file().to_owned(),
        format: ModuleFormat::Elf,
        segments,
        bss_size,
        build_id: read_build_id(r, &headers)?,
        rodata_extents: RodataExtents::default(),
        relocations: Vec::new(),
        link_base: (elf_type == ET_EXEC).then_some(base),
        entry: 0,
    };
    let image_size = module.image_size();
    module.entry = match entry.checked_sub(base) {
        Some(offset) if offset < image_size => offset,
        _ => {
            let expected = format!("an address in the loaded image {base:#x}..{:#x}", base.saturating_add(image_size));
            return Err(r.error(HEADER, 0x18, Problem::BadValue { value: entry, expected }));
        }
    };
    Ok(Parsed { module, headers, base })
}

/// The PT_LOAD headers that occupy memory, by address.
fn loads_by_address(headers: &[ProgramHeader]) -> Vec<&ProgramHeader> {
    let mut loads: Vec<&ProgramHeader> = headers.iter().filter(|h| h.kind == PT_LOAD && h.mem_size > 0).collect();
    loads.sort_by_key(|h| h.vaddr);
    loads
}

/// Checks e_ident, the machine and the type; returns the type.
fn check_identification(r: &Reader) -> Result<u16, LoadError> {
    let class = r.u8(4, HEADER)?;
    if class != ELFCLASS64 {
        return Err(r.error(HEADER, 4, Problem::UnsupportedClass(class)));
    }
    let data = r.u8(5, HEADER)?;
    if data != ELFDATA2LSB {
        return Err(r.error(HEADER, 5, Problem::Unsupported(format!("data encoding {data} (only little-endian, 1)"))));
    }
    let machine = r.u16(0x12, HEADER)?;
    if machine != EM_AARCH64 {
        return Err(r.error(HEADER, 0x12, Problem::UnsupportedMachine(machine)));
    }
    let elf_type = r.u16(0x10, HEADER)?;
    if elf_type != ET_EXEC && elf_type != ET_DYN {
        let expected = "ET_EXEC (2) or ET_DYN (3)".to_owned();
        return Err(r.error(HEADER, 0x10, Problem::BadValue { value: elf_type.into(), expected }));
    }
    Ok(elf_type)
}

fn read_program_headers(r: &Reader) -> Result<Vec<ProgramHeader>, LoadError> {
    let table = r.u64(0x20, HEADER)?;
    let entry_size = r.u16(0x36, HEADER)?;
    let count = r.u16(0x38, HEADER)?;
    if count == PN_XNUM {
        return Err(r.error(HEADER, 0x38, Problem::Unsupported("extended program header numbering (PN_XNUM)".into())));
    }
    // Linux's loader takes at most 64 KiB of program headers (binfmt_elf: 65536 / sizeof(Elf64_Phdr)).
    if u64::from(count) > MAX_PROGRAM_HEADERS {
        let expected = format!("at most {MAX_PROGRAM_HEADERS} (64 KiB of headers, Linux's limit)");
        return Err(r.error(HEADER, 0x38, Problem::BadValue { value: count.into(), expected }));
    }
    if count > 0 && u64::from(entry_size) != PROGRAM_HEADER_SIZE {
        let expected = format!("{PROGRAM_HEADER_SIZE:#x}");
        return Err(r.error(HEADER, 0x36, Problem::BadValue { value: entry_size.into(), expected }));
    }
    (0..usize::from(count)).map(|index| ProgramHeader::read(r, table, index)).collect()
}

/// Checks the PT_LOAD headers (sorted by address): sizes, file extents, no overlap, a bounded image. Returns the
/// module base: the page below the lowest address.
fn check_loads(r: &Reader, loads: &[&ProgramHeader]) -> Result<u64, LoadError> {
    let Some(first) = loads.first() else {
        return Err(r.error(HEADER, 0x38, Problem::Inconsistent("no loadable (PT_LOAD) segment".into())));
    };
    for load in loads {
        if load.file_size > load.mem_size {
            let expected = format!("at most the memory size {:#x}", load.mem_size);
            return Err(r.error(&load.name(), load.at + 0x20, Problem::BadValue { value: load.file_size, expected }));
        }
        load.file_bytes(r)?;
    }
    for pair in loads.windows(2) {
        let previous_end = pair[0].vaddr.saturating_add(pair[0].mem_size);
        if pair[1].vaddr < previous_end {
            return Err(r.error(&pair[1].name(), pair[1].at + 0x10, Problem::Overlap { other: pair[0].name() }));
        }
    }
    let base = first.vaddr & !(PAGE_SIZE - 1);
    let last = loads[loads.len() - 1];
    let size = last.vaddr.checked_add(last.mem_size).and_then(|end| align_up(end - base, PAGE_SIZE));
    match size {
        Some(size) if size <= MAX_IMAGE_SIZE => Ok(base),
        _ => {
            let size = size.unwrap_or(u64::MAX);
            Err(r.error(&last.name(), last.at + 0x28, Problem::TooLarge { size, limit: MAX_IMAGE_SIZE }))
        }
    }
}

/// Makes a segment of each PT_LOAD, a slice of `whole` (the file `r` reads), its zero-filled tail (memory past
/// its file bytes) kept as a length, except the last one's, which becomes the bss: nothing is allocated for
/// zeros. The image size was checked, so sizes fit in memory.
fn build_segments(
    r: &Reader,
    whole: &Bytes,
    loads: &[&ProgramHeader],
    base: u64,
) -> Result<(Vec<Segment>, u64), LoadError> {
    let mut segments = Vec::with_capacity(loads.len());
    for (position, load) in loads.iter().enumerate() {
        let file_bytes = load.file_bytes(r)?;
        let last = position + 1 == loads.len();
        let zero_tail = if last { 0 } else { load.mem_size - file_bytes.len() as u64 };
        segments.push(Segment {
            mem_offset: load.vaddr - base,
            bytes: whole.slice_ref(file_bytes),
            zero_tail,
            permissions: load.permissions(),
            hash_check: HashCheck::NotChecked,
        });
    }
    let last = loads[loads.len() - 1];
    Ok((segments, last.mem_size - last.file_size))
}

/// The GNU build id, zero-padded (or cut) to 32 bytes; zero when the file has none.
fn read_build_id(r: &Reader, headers: &[ProgramHeader]) -> Result<[u8; 32], LoadError> {
    let mut build_id = [0; 32];
    for header in headers.iter().filter(|h| h.kind == PT_NOTE) {
        let alignment = if header.align == 8 { 8 } else { 4 };
        let notes = r.sub(header.at + 8, header.offset, header.file_size, &header.name())?;
        let mut offset = 0;
        while offset < notes.len() {
            let name_size = u64::from(notes.u32(offset, NOTE)?);
            let desc_size = u64::from(notes.u32(offset + 4, NOTE)?);
            let kind = notes.u32(offset + 8, NOTE)?;
            let name = notes.bytes(offset + 12, name_size, NOTE)?;
            let desc_at = align_up(offset + 12 + name_size, alignment).unwrap_or(u64::MAX);
            let desc = notes.bytes(desc_at, desc_size, NOTE)?;
            if kind == NT_GNU_BUILD_ID && name == b"GNU\0" {
                let len = desc.len().min(32);
                build_id[..len].copy_from_slice(&desc[..len]);
                return Ok(build_id);
            }
            offset = align_up(desc_at + desc_size, alignment).unwrap_or(u64::MAX);
        }
    }
    Ok(build_id)
}

/// What the dynamic section says about relocation tables.
#[derive(Default)]
struct DynamicInfo {
    /// (value, file offset of the entry) for each tag this loader reads.
    rela: Option<(u64, u64)>,
    rela_size: Option<(u64, u64)>,
    rela_entry_size: Option<(u64, u64)>,
    jmprel: Option<(u64, u64)>,
    plt_rel_size: Option<(u64, u64)>,
    plt_rel: Option<(u64, u64)>,
}

fn read_dynamic(r: &Reader, dynamic: &ProgramHeader) -> Result<DynamicInfo, LoadError> {
    let entries = r.sub(dynamic.at + 8, dynamic.offset, dynamic.file_size, &dynamic.name())?;
    let mut info = DynamicInfo::default();
    for index in 0..entries.len() / DYNAMIC_ENTRY_SIZE {
        let at = index * DYNAMIC_ENTRY_SIZE;
        let (tag, value) = (entries.u64(at, DYNAMIC)?, entries.u64(at + 8, DYNAMIC)?);
        let slot = match tag {
            DT_NULL => break,
            DT_RELA => &mut info.rela,
            DT_RELASZ => &mut info.rela_size,
            DT_RELAENT => &mut info.rela_entry_size,
            DT_JMPREL => &mut info.jmprel,
            DT_PLTRELSZ => &mut info.plt_rel_size,
            DT_PLTREL => &mut info.plt_rel,
            DT_RELSZ | DT_RELRSZ if value > 0 => {
                let what = if tag == DT_RELSZ {
                    "DT_REL relocations (AArch64 uses DT_RELA)"
                } else {
                    "DT_RELR packed relocations"
                };
                return Err(entries.error(DYNAMIC, at, Problem::Unsupported(what.into())));
            }
            _ => continue,
        };
        *slot = Some((value, at + dynamic.offset));
    }
    Ok(info)
}

fn read_relocations(
    r: &Reader,
    dynamic: &ProgramHeader,
    loads: &[&ProgramHeader],
    base: u64,
    extent: u64,
) -> Result<Vec<Relocation>, LoadError> {
    let info = read_dynamic(r, dynamic)?;
    if let Some((entry_size, at)) = info.rela_entry_size.filter(|&(size, _)| size != RELA_ENTRY_SIZE) {
        let expected = format!("{RELA_ENTRY_SIZE}");
        return Err(r.error(DYNAMIC, at + 8, Problem::BadValue { value: entry_size, expected }));
    }
    if let Some((kind, at)) = info.plt_rel.filter(|&(kind, _)| kind != DT_RELA) {
        let expected = format!("DT_RELA ({DT_RELA})");
        return Err(r.error(DYNAMIC, at + 8, Problem::BadValue { value: kind, expected }));
    }
    let mut relocations = Vec::new();
    for (address, size, table) in
        [(info.rela, info.rela_size, "ELF DT_RELA table"), (info.jmprel, info.plt_rel_size, "ELF DT_JMPREL table")]
    {
        let Some((size, size_at)) = size.filter(|&(size, _)| size > 0) else {
            continue;
        };
        let Some((address, _)) = address else {
            return Err(r.error(DYNAMIC, size_at, Problem::Inconsistent(format!("{table} has a size but no address"))));
        };
        if size % RELA_ENTRY_SIZE != 0 {
            return Err(r.error(DYNAMIC, size_at + 8, Problem::Misaligned { value: size, alignment: RELA_ENTRY_SIZE }));
        }
        let Some(file_offset) = file_offset_of(loads, address, size) else {
            let problem = Problem::Inconsistent(format!(
                "{table} at {address:#x}+{size:#x} is not in the file part of a PT_LOAD"
            ));
            return Err(r.error(DYNAMIC, size_at, problem));
        };
        let entries = r.sub(size_at, file_offset, size, table)?;
        for index in 0..size / RELA_ENTRY_SIZE {
            if let Some(relocation) = read_relocation(&entries, index * RELA_ENTRY_SIZE, base, extent)? {
                relocations.push(relocation);
            }
        }
    }
    Ok(relocations)
}

/// The file offset of `size` bytes at virtual address `address`, when one PT_LOAD holds them all in the file.
fn file_offset_of(loads: &[&ProgramHeader], address: u64, size: u64) -> Option<u64> {
    let end = address.checked_add(size)?;
    let load = loads.iter().find(|l| l.vaddr <= address && end <= l.vaddr.saturating_add(l.file_size))?;
    load.offset.checked_add(address - load.vaddr)
}

/// One Elf64_Rela: `None` for R_AARCH64_NONE.
fn read_relocation(entries: &Reader, at: u64, base: u64, extent: u64) -> Result<Option<Relocation>, LoadError> {
    let structure = format!("ELF relocation {}", at / RELA_ENTRY_SIZE);
    let offset = entries.u64(at, &structure)?;
    let info = entries.u64(at + 8, &structure)?;
    let addend = entries.u64(at + 16, &structure)? as i64;
    let (kind, symbol) = (info as u32, (info >> 32) as u32);
    match kind {
        R_AARCH64_NONE => Ok(None),
        R_AARCH64_RELATIVE => {
            let target = offset.checked_sub(base).filter(|target| target.saturating_add(8) <= extent);
            let Some(target) = target else {
                let problem = Problem::PastEnd { start: offset, size: 8, end: base.saturating_add(extent) };
                return Err(entries.error(&structure, at, problem));
            };
            let Some(addend) = addend.checked_sub_unsigned(base) else {
                let problem = Problem::Inconsistent(format!("addend {addend:#x} is below the base {base:#x}"));
                return Err(entries.error(&structure, at + 16, problem));
            };
            Ok(Some(Relocation { offset: target, addend }))
        }
        _ => Err(entries.error(
            &structure,
            at + 8,
            Problem::UnsupportedRelocation { kind, name: relocation_name(kind), symbol },
        )),
    }
}

/// The ABI's name for an AArch64 dynamic relocation type.
fn relocation_name(kind: u32) -> &'static str {
    match kind {
        257 => "R_AARCH64_ABS64",
        258 => "R_AARCH64_ABS32",
        1024 => "R_AARCH64_COPY",
        1025 => "R_AARCH64_GLOB_DAT",
        1026 => "R_AARCH64_JUMP_SLOT",
        1028 => "R_AARCH64_TLS_DTPMOD",
        1029 => "R_AARCH64_TLS_DTPREL",
        1030 => "R_AARCH64_TLS_TPREL",
        1031 => "R_AARCH64_TLSDESC",
        1032 => "R_AARCH64_IRELATIVE",
        _ => "an unknown relocation type",
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::loader::Magic;
    use crate::loader::test_support::{Case, check_cases, edits, mutate, put_u32, put_u64};

    /// testdata/tiny-aarch64.c, built with `aarch64-linux-gnu-gcc -O1 -fPIC -shared -nostdlib -fvisibility=hidden
    /// -Wl,--build-id=sha1 -Wl,-z,max-page-size=0x1000 -Wl,-z,common-page-size=0x1000 -Wl,-e,entry -Wl,-z,norelro -s`
    /// (GCC 12, binutils 2.40). Expected values below are from `readelf -lnrd` on it.
    const TINY_SO: &[u8] = include_bytes!("testdata/tiny-aarch64.so");
    /// testdata/tiny-aarch64-exec.c, built with `aarch64-linux-gnu-gcc -O1 -static -no-pie -nostdlib
    /// -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 -Wl,-z,separate-code -Wl,-z,norelro -s`. Expected values
    /// below are from `readelf -lh` on it.
    const TINY_EXEC: &[u8] = include_bytes!("testdata/tiny-aarch64-exec");

    /// TINY_SO's program headers start at 0x40; the second PT_LOAD is header 1, the dynamic section is at 0x2d0.
    const SECOND_LOAD: u64 = 0x40 + 0x38;
    const DYNAMIC_AT: u64 = 0x2d0;
    const RELA_AT: u64 = 0x228;

    #[test]
    fn reads_a_shared_object_as_readelf_describes_it() {
        let module = read("tiny.so", TINY_SO).unwrap();
        // LOAD 0x000000 0x0000 filesz 0x2c8 memsz 0x2c8 R E; LOAD 0x0002c8 0x12c8 filesz 0x118 memsz 0x318 RW.
        assert_eq!(module.segments.len(), 2);
        assert_eq!(module.segments[0].mem_offset, 0);
        assert_eq!(module.segments[0].bytes, &TINY_SO[..0x2c8]);
        assert_eq!(module.segments[0].permissions, Permissions::READ_EXECUTE);
        assert_eq!(module.segments[1].mem_offset, 0x12c8);
        assert_eq!(module.segments[1].bytes, &TINY_SO[0x2c8..0x2c8 + 0x118]);
        assert_eq!(module.segments[1].permissions, Permissions::READ_WRITE);
        assert_eq!(module.bss_size, 0x318 - 0x118);
        assert_eq!(module.image_size(), 0x2000);
        // Entry point address: 0x258.
        assert_eq!(module.entry_offset(), 0x258);
        assert_eq!(module.link_base, None);
        // Build ID: b69e25bcd4ec4186cc8636ec84f78b48a8ce8353.
        let mut build_id = [0; 32];
        build_id[..20].copy_from_slice(&[
            0xb6, 0x9e, 0x25, 0xbc, 0xd4, 0xec, 0x41, 0x86, 0xcc, 0x86, 0x36, 0xec, 0x84, 0xf7, 0x8b, 0x48, 0xa8, 0xce,
            0x83, 0x53,
        ]);
        assert_eq!(module.build_id, build_id);
        // .rela.dyn: 0x12c8 R_AARCH64_RELATIVE 13d0; 0x13d8 R_AARCH64_RELATIVE 280.
        assert_eq!(
            module.relocations,
            [Relocation { offset: 0x12c8, addend: 0x13d0 }, Relocation { offset: 0x13d8, addend: 0x280 }]
        );
        assert_eq!(module.mod0_offset(), None);
    }

    #[test]
    fn relocate_writes_base_plus_addend() {
        let module = read("tiny.so", TINY_SO).unwrap();
        let mut image = module.image();
        module.relocate(&mut image, 0x8000_0000).unwrap();
        let word = |at: usize| u64::from_le_bytes(image[at..at + 8].try_into().unwrap());
        assert_eq!(word(0x12c8), 0x8000_13d0);
        assert_eq!(word(0x13d8), 0x8000_0280);
        let error = module.relocate(&mut image[..0x1000], 0x8000_0000).unwrap_err();
        assert!(matches!(error.problem, Problem::PastEnd { start: 0x12c8, .. }), "{error}");
    }

    #[test]
    fn reads_a_static_executable_with_four_segments() {
        let module = read("tiny-exec", TINY_EXEC).unwrap();
        // LOAD 0x000000 0x400000 0x158 R; 0x001000 0x401000 0x10 R E; 0x002000 0x402000 0x28 R;
        // 0x000028 0x403028 filesz 0 memsz 0x40 RW. Entry point address: 0x401000.
        let layout: Vec<_> = module.segments.iter().map(|s| (s.mem_offset, s.bytes.len(), s.permissions)).collect();
        assert_eq!(
            layout,
            [
                (0, 0x158, Permissions::READ),
                (0x1000, 0x10, Permissions::READ_EXECUTE),
                (0x2000, 0x28, Permissions::READ),
                (0x3028, 0, Permissions::READ_WRITE),
            ]
        );
        assert_eq!(module.segments[1].bytes, &TINY_EXEC[0x1000..0x1010]);
        assert_eq!(module.bss_size, 0x40);
        assert_eq!(module.image_size(), 0x4000);
        assert_eq!(module.link_base, Some(0x40_0000));
        assert_eq!(module.entry_offset(), 0x1000);
        assert_eq!(module.build_id, [0; 32]);
        assert!(module.relocations.is_empty());
    }

    /// Memory past a segment's file bytes, in a segment other than the last, is held as a length, not as zeros:
    /// the third LOAD of tiny-exec grown to 0x1000 bytes of memory keeps its 0x28 file bytes.
    #[test]
    fn zero_tails_before_the_last_segment_take_no_bytes() {
        let mut file = TINY_EXEC.to_vec();
        // Program header 2 (at e_phoff 0x40 + 2 x 56), p_memsz at +0x28.
        file[0xd8..0xe0].copy_from_slice(&0x1000u64.to_le_bytes());
        let module = read("tiny-exec", &file).unwrap();
        let third = &module.segments[2];
        assert_eq!((third.mem_offset, third.bytes.len(), third.zero_tail), (0x2000, 0x28, 0x1000 - 0x28));
        assert_eq!(third.mem_end(), 0x3000);
        assert_eq!(module.image_size(), 0x4000);
    }

    #[test]
    fn malformed_files_give_typed_errors() {
        let cases = [
            Case {
                name: "bad magic",
                mutate: |f| f[1] = b'X',
                structure: HEADER,
                offset: 0,
                problem: |p| *p == Problem::BadMagic { expected: Magic(*b"\x7fELF"), found: Magic(*b"\x7fXLF") },
            },
            Case {
                name: "ELF32",
                mutate: |f| f[4] = 1,
                structure: HEADER,
                offset: 4,
                problem: |p| *p == Problem::UnsupportedClass(1),
            },
            Case {
                name: "big-endian",
                mutate: |f| f[5] = 2,
                structure: HEADER,
                offset: 5,
                problem: |p| matches!(p, Problem::Unsupported(_)),
            },
            Case {
                name: "x86-64",
                mutate: |f| f[0x12] = 62,
                structure: HEADER,
                offset: 0x12,
                problem: |p| *p == Problem::UnsupportedMachine(62),
            },
            Case {
                name: "relocatable object",
                mutate: |f| f[0x10] = 1,
                structure: HEADER,
                offset: 0x10,
                problem: |p| matches!(p, Problem::BadValue { value: 1, .. }),
            },
            Case {
                name: "program header size",
                mutate: |f| f[0x36] = 0x40,
                structure: HEADER,
                offset: 0x36,
                problem: |p| matches!(p, Problem::BadValue { value: 0x40, .. }),
            },
            Case {
                name: "program headers past end of file",
                mutate: |f| put_u64(f, 0x20, 0x900),
                structure: "ELF program header 0",
                offset: 0x900,
                problem: |p| matches!(p, Problem::Truncated { .. }),
            },
            Case {
                name: "segment past end of file",
                mutate: |f| put_u64(f, SECOND_LOAD + 8, 0x900),
                structure: "ELF program header 1",
                offset: SECOND_LOAD + 8,
                problem: |p| *p == Problem::PastEnd { start: 0x900, size: 0x118, end: 0x920 },
            },
            Case {
                name: "file size above memory size",
                mutate: |f| put_u64(f, SECOND_LOAD + 0x20, 0x400),
                structure: "ELF program header 1",
                offset: SECOND_LOAD + 0x20,
                problem: |p| matches!(p, Problem::BadValue { value: 0x400, .. }),
            },
            Case {
                name: "overlapping segments",
                mutate: |f| put_u64(f, SECOND_LOAD + 0x10, 0x200),
                structure: "ELF program header 1",
                offset: SECOND_LOAD + 0x10,
                problem: |p| *p == Problem::Overlap { other: "ELF program header 0".into() },
            },
            Case {
                name: "image above the limit",
                mutate: |f| put_u64(f, SECOND_LOAD + 0x28, 1 << 40),
                structure: "ELF program header 1",
                offset: SECOND_LOAD + 0x28,
                problem: |p| matches!(p, Problem::TooLarge { .. }),
            },
            Case {
                name: "entry outside the image",
                mutate: |f| put_u64(f, 0x18, 0x10_0000),
                structure: HEADER,
                offset: 0x18,
                problem: |p| matches!(p, Problem::BadValue { value: 0x10_0000, .. }),
            },
            Case {
                name: "symbol relocation",
                mutate: |f| put_u64(f, RELA_AT + 8, 1 << 32 | 1025),
                structure: "ELF relocation 0",
                offset: RELA_AT + 8,
                problem: |p| *p == Problem::UnsupportedRelocation { kind: 1025, name: "R_AARCH64_GLOB_DAT", symbol: 1 },
            },
            Case {
                name: "relocation outside the image",
                mutate: |f| put_u64(f, RELA_AT + 24, 0x1ffc),
                structure: "ELF relocation 1",
                offset: RELA_AT + 24,
                // Past the file's bytes (0x13e0), though inside the image with its bss (0x2000).
                problem: |p| *p == Problem::PastEnd { start: 0x1ffc, size: 8, end: 0x13e0 },
            },
            Case {
                name: "relocation entry size",
                mutate: |f| put_u64(f, DYNAMIC_AT + 7 * 16 + 8, 16),
                structure: DYNAMIC,
                offset: DYNAMIC_AT + 7 * 16 + 8,
                problem: |p| matches!(p, Problem::BadValue { value: 16, .. }),
            },
            Case {
                name: "relocation table size not whole entries",
                mutate: |f| put_u64(f, DYNAMIC_AT + 6 * 16 + 8, 40),
                structure: DYNAMIC,
                offset: DYNAMIC_AT + 6 * 16 + 8,
                problem: |p| *p == Problem::Misaligned { value: 40, alignment: 24 },
            },
            Case {
                name: "relocation table outside the file",
                mutate: |f| put_u64(f, DYNAMIC_AT + 5 * 16 + 8, 0x1400),
                structure: DYNAMIC,
                offset: DYNAMIC_AT + 6 * 16,
                problem: |p| matches!(p, Problem::Inconsistent(_)),
            },
            Case {
                name: "packed relative relocations",
                mutate: |f| put_u64(f, DYNAMIC_AT + 8 * 16, DT_RELRSZ), // replaces DT_RELACOUNT (value 2)
                structure: DYNAMIC,
                offset: DYNAMIC_AT + 8 * 16,
                problem: |p| matches!(p, Problem::Unsupported(_)),
            },
            Case {
                name: "build id note cut short",
                mutate: |f| put_u32(f, 0x190 + 4, 0x40), // descsz past the PT_NOTE's 0x24 bytes
                structure: NOTE,
                offset: 0x190 + 16,
                problem: |p| matches!(p, Problem::Truncated { .. }),
            },
        ];
        check_cases(TINY_SO, read, &cases);
    }

    #[test]
    fn more_program_headers_than_linux_takes_are_refused() {
        let mut file = TINY_EXEC.to_vec();
        file[0x38..0x3a].copy_from_slice(&1171u16.to_le_bytes());
        let error = read("tiny-exec", &file).unwrap_err();
        assert_eq!((error.structure.as_str(), error.offset), (HEADER, Some(0x38)));
        assert!(error.to_string().contains("at most 1170"), "{error}");
    }

    #[test]
    fn no_loadable_segment_is_an_error() {
        let mut file = TINY_SO.to_vec();
        put_u32(&mut file, 0x40, 6); // PT_LOAD -> PT_PHDR
        put_u32(&mut file, SECOND_LOAD, 6);
        let error = read("tiny.so", &file).unwrap_err();
        assert_eq!((error.structure.as_str(), error.offset), (HEADER, Some(0x38)));
    }

    #[test]
    fn truncation_anywhere_in_the_headers_is_reported() {
        // The ELF header, then six program headers.
        for cut in 0..0x40 + 6 * 0x38 {
            let error = read("tiny.so", &TINY_SO[..cut]).unwrap_err();
            assert!(matches!(error.problem, Problem::Truncated { .. }), "cut at {cut:#x}: {error}");
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..0x400)) {
            let _ = read("fuzz", &bytes);
        }

        #[test]
        fn mutated_files_never_panic(
            exec in any::<bool>(),
            edits in edits(),
        ) {
            let valid = if exec { TINY_EXEC } else { TINY_SO };
            let _ = read("fuzz", &mutate(valid, &edits));
        }
    }
}
