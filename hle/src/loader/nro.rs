//! NRO0, the format of homebrew programs and of modules loaded at run time (`ro` service), plus the homebrew asset
//! section (icon, NACP, RomFS) that may follow it.
//!
//! An NRO is its own memory image: file offset = memory offset, and the header lives inside `.text`. Layout from
//! switchbrew's "NRO" page (`nn::ro::detail::NroHeader`):
//!
//! | offset | size  | field                                                                      |
//! |--------|-------|----------------------------------------------------------------------------|
//! | 0x00   | 0x10  | the module's own start: a branch, the MOD0 offset, padding                 |
//! | 0x10   | 4     | magic "NRO0"                                                               |
//! | 0x14   | 4     | version (0)                                                                |
//! | 0x18   | 4     | size of the NRO (without assets)                                           |
//! | 0x1C   | 4     | flags                                                                      |
//! | 0x20   | 8 × 3 | memory offset and size of `.text`, `.rodata`, `.data`                      |
//! | 0x38   | 4     | bss size                                                                   |
//! | 0x40   | 0x20  | module id (GNU build id)                                                   |
//! | 0x60   | 4     | DSO handle offset                                                          |
//! | 0x68   | 8 × 3 | `.rodata`-relative extents of the api info, `.dynstr`, `.dynsym`           |
//!
//! The asset section, at the NRO's size: magic "ASET", version (0), then (offset, size) as two u64 for the icon
//! (JPEG), the NACP and the RomFS, offsets relative to the asset header; size 0 means absent.

use std::ops::Range;

use super::bytes::{ByteWriter, Reader};
use super::nso::{read_rodata_extents, write_rodata_extents};
use super::{
    HashCheck, LoadError, MAX_IMAGE_SIZE, Module, ModuleFormat, Permissions, Problem, Segment, check_horizon_layout,
};

const MAGIC: &[u8; 4] = b"NRO0";
const HEADER: &str = "NRO header";
/// The header occupies bytes 0x10..0x80 of `.text`.
const HEADER_START: usize = 0x10;
const HEADER_END: u64 = 0x80;
const SEGMENT_NAMES: [&str; 3] = ["NRO .text segment", "NRO .rodata segment", "NRO .data segment"];

const SIZE: u64 = 0x18;
const SEGMENT_HEADERS: u64 = 0x20;
const BSS_SIZE: u64 = 0x38;
const MODULE_ID: u64 = 0x40;
const DSO_HANDLE_OFFSET: u64 = 0x60;
const RODATA_EXTENTS: u64 = 0x68;

const ASSET_MAGIC: &[u8; 4] = b"ASET";
const ASSET_HEADER: &str = "NRO asset header";
const ASSET_HEADER_SIZE: u64 = 0x38;

const NACP_TITLE: &str = "NACP title entry";
const NACP_TITLE_ENTRY_SIZE: u64 = 0x300;
const NACP_LANGUAGES: u64 = 16;
const NACP_NAME_SIZE: u64 = 0x200;
const NACP_PUBLISHER_SIZE: u64 = 0x100;
const NACP_DISPLAY_VERSION: u64 = 0x3060;
const NACP_DISPLAY_VERSION_SIZE: u64 = 0x10;
/// A whole control.nacp (switchbrew "NACP").
pub const NACP_SIZE: usize = 0x4000;

/// A parsed NRO file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nro {
    /// The code; `.text` includes the NRO header, as it does in memory.
    pub module: Module,
    /// Header fields that have no place in [`Module`].
    pub version: u32,
    pub flags: u32,
    pub dso_handle_offset: u32,
    /// The homebrew asset section, when the file has one.
    pub assets: Option<NroAssets>,
}

/// Where the homebrew assets lie in the NRO file (byte ranges of the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NroAssets {
    /// A 256×256 JPEG.
    pub icon: Option<Range<usize>>,
    /// A NACP (control.nacp), readable with [`read_nacp`].
    pub nacp: Option<Range<usize>>,
    /// A RomFS image, readable with [`crate::loader::romfs::RomFs`].
    pub romfs: Option<Range<usize>>,
}

/// Assets for [`write()`]; an empty slice means absent.
#[derive(Debug, Clone, Copy, Default)]
pub struct NroAssetData<'a> {
    pub icon: &'a [u8],
    pub nacp: &'a [u8],
    pub romfs: &'a [u8],
}

/// What a launcher shows from a NACP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NacpInfo {
    /// The name in the first language entry that has one (entry 0 is American English).
    pub title: String,
    /// The publisher from that same entry.
    pub author: String,
    pub display_version: String,
}

/// Parses an NRO file and finds its asset section. `file` labels the module in errors and becomes
/// [`Module::name`]. Bytes after the NRO that do not start with "ASET" are ignored.
pub fn read(file: &str, bytes: &[u8]) -> Result<Nro, LoadError> {
    let r = Reader::new(file, bytes);
    r.expect_magic(0x10, MAGIC, HEADER)?;
    let version = r.u32(0x14, HEADER)?;
    let nro_size = u64::from(r.u32(SIZE, HEADER)?);
    let flags = r.u32(0x1C, HEADER)?;
    let mut layout = [(0, 0); 3];
    for (index, (mem_offset, size)) in layout.iter_mut().enumerate() {
        let at = SEGMENT_HEADERS + 8 * index as u64;
        (*mem_offset, *size) = (r.u32(at, HEADER)?.into(), r.u32(at + 4, HEADER)?.into());
    }
    let bss_size = u64::from(r.u32(BSS_SIZE, HEADER)?);
    let build_id = r.array(MODULE_ID, HEADER)?;
    let dso_handle_offset = r.u32(DSO_HANDLE_OFFSET, HEADER)?;
    let rodata_extents = read_rodata_extents(&r, RODATA_EXTENTS, HEADER)?;

    if nro_size < HEADER_END {
        let problem =
            Problem::BadValue { value: nro_size, expected: format!("at least the header size {HEADER_END:#x}") };
        return Err(r.error(HEADER, SIZE, problem));
    }
    let image = r.sub(SIZE, 0, nro_size, HEADER)?;
    let segment_field = |index: usize| SEGMENT_HEADERS + 8 * index as u64;
    check_horizon_layout(&layout)
        .map_err(|(index, problem)| r.error(SEGMENT_NAMES[index], segment_field(index), problem))?;
    if layout[0].1 < HEADER_END {
        let problem =
            Problem::BadValue { value: layout[0].1, expected: format!("at least {HEADER_END:#x}, to hold the header") };
        return Err(r.error(SEGMENT_NAMES[0], segment_field(0) + 4, problem));
    }
    let image_end = layout[2].0 + layout[2].1 + bss_size;
    if image_end > MAX_IMAGE_SIZE {
        return Err(r.error(HEADER, BSS_SIZE, Problem::TooLarge { size: image_end, limit: MAX_IMAGE_SIZE }));
    }

    let permissions = [Permissions::READ_EXECUTE, Permissions::READ, Permissions::READ_WRITE];
    let mut segments = Vec::with_capacity(3);
    for (index, ((mem_offset, size), permissions)) in layout.into_iter().zip(permissions).enumerate() {
        let bytes = image.extent(segment_field(index), mem_offset, size, SEGMENT_NAMES[index])?;
        let bytes = ::bytes::Bytes::copy_from_slice(bytes);
        segments.push(Segment { mem_offset, bytes, zero_tail: 0, permissions, hash_check: HashCheck::NotChecked });
    }
    let assets = read_assets(&r, nro_size)?;

    tracing::debug!(file, nro_size, bss_size, has_assets = assets.is_some(), "loaded NRO");
    let module = Module {
        name: file.to_owned(),
        format: ModuleFormat::Nro,
        segments,
        bss_size,
        build_id,
        rodata_extents,
        relocations: Vec::new(),
        link_base: None,
        entry: 0,
    };
    Ok(Nro { module, version, flags, dso_handle_offset, assets })
}

/// Reads the asset section at `start`, if the bytes there begin with "ASET".
fn read_assets(r: &Reader, start: u64) -> Result<Option<NroAssets>, LoadError> {
    let rest = r.sub(SIZE, start, r.len() - start, ASSET_HEADER)?;
    if rest.len() < 4 || rest.array::<4>(0, ASSET_HEADER)? != *ASSET_MAGIC {
        return Ok(None);
    }
    rest.bytes(0, ASSET_HEADER_SIZE, ASSET_HEADER)?;
    let section = |index: u64| -> Result<Option<Range<usize>>, LoadError> {
        let field = 8 + 0x10 * index;
        let (offset, size) = (rest.u64(field, ASSET_HEADER)?, rest.u64(field + 8, ASSET_HEADER)?);
        if size == 0 {
            return Ok(None);
        }
        rest.extent(field, offset, size, ASSET_HEADER)?;
        // The extent lies inside the file, so these fit in usize.
        let begin = (start + offset) as usize;
        Ok(Some(begin..begin + size as usize))
    };
    Ok(Some(NroAssets { icon: section(0)?, nacp: section(1)?, romfs: section(2)? }))
}

/// Reads the title, author and display version from a NACP (control.nacp, 0x4000 bytes; switchbrew "NACP").
pub fn read_nacp(file: &str, bytes: &[u8]) -> Result<NacpInfo, LoadError> {
    let r = Reader::new(file, bytes);
    let display_version = r.padded_str(NACP_DISPLAY_VERSION, NACP_DISPLAY_VERSION_SIZE, "NACP display version")?;
    for language in 0..NACP_LANGUAGES {
        let entry = language * NACP_TITLE_ENTRY_SIZE;
        let title = r.padded_str(entry, NACP_NAME_SIZE, NACP_TITLE)?;
        if !title.is_empty() {
            let author = r.padded_str(entry + NACP_NAME_SIZE, NACP_PUBLISHER_SIZE, NACP_TITLE)?;
            return Ok(NacpInfo { title, author, display_version });
        }
    }
    Ok(NacpInfo { title: String::new(), author: String::new(), display_version })
}

/// A control.nacp naming `info`'s title and publisher in every language entry (as switch-tools' nacptool does)
/// and its display version; every other field zero. Strings longer than their field are refused.
pub fn write_nacp(info: &NacpInfo) -> Result<Vec<u8>, LoadError> {
    let mut nacp = vec![0u8; NACP_SIZE];
    let mut put = |at: u64, size: u64, text: &str, what: &str| {
        // Each field keeps a terminating NUL.
        if text.len() as u64 >= size {
            let problem = Problem::CannotWrite(format!("{what} {text:?} is longer than {} bytes", size - 1));
            return Err(LoadError::without_offset("control.nacp", "NACP writer", problem));
        }
        nacp[at as usize..at as usize + text.len()].copy_from_slice(text.as_bytes());
        Ok(())
    };
    for language in 0..NACP_LANGUAGES {
        let entry = language * NACP_TITLE_ENTRY_SIZE;
        put(entry, NACP_NAME_SIZE, &info.title, "the title")?;
        put(entry + NACP_NAME_SIZE, NACP_PUBLISHER_SIZE, &info.author, "the publisher")?;
    }
    put(NACP_DISPLAY_VERSION, NACP_DISPLAY_VERSION_SIZE, &info.display_version, "the display version")?;
    Ok(nacp)
}

/// Writes `module` as an NRO, followed by an asset section when `assets` is given.
///
/// The file is the module's memory image up to the end of `.data`; bytes 0x10..0x80 of `.text` are overwritten with
/// the NRO header, so the module must leave them free (its first 0x10 bytes are its start code: a branch and the
/// MOD0 offset word). Version, flags and DSO handle offset are written as 0. [`Module::relocations`] are not
/// written: an NRO relocates itself.
pub fn write(module: &Module, assets: Option<&NroAssetData>) -> Result<Vec<u8>, LoadError> {
    let [text, rodata, data] = module.horizon_segments("NRO", &[Permissions::READ_EXECUTE])?;
    if (text.bytes.len() as u64) < HEADER_END {
        let problem = Problem::CannotWrite(format!(
            ".text has {:#x} bytes, the NRO header needs {HEADER_END:#x}",
            text.bytes.len()
        ));
        return Err(LoadError::without_offset(&module.name, "NRO writer", problem));
    }
    // `horizon_segments` checked that the image fits in 32 bits, so these casts are exact.
    let nro_size = data.mem_end() as u32;

    let mut header = ByteWriter::default();
    header.bytes(MAGIC).u32(0).u32(nro_size).u32(0);
    for segment in [text, rodata, data] {
        header.u32(segment.mem_offset as u32).u32(segment.bytes.len() as u32);
    }
    header.u32(module.bss_size as u32).u32(0).bytes(&module.build_id).u32(0).u32(0);
    write_rodata_extents(&mut header, &module.rodata_extents);

    let mut w = ByteWriter::default();
    for segment in [text, rodata, data] {
        w.pad_to(segment.mem_offset as usize).bytes(&segment.bytes);
    }
    if let Some(assets) = assets {
        write_assets(&mut w, assets);
    }
    let mut file = w.into_bytes();
    file[HEADER_START..HEADER_END as usize].copy_from_slice(&header.into_bytes());
    Ok(file)
}

fn write_assets(w: &mut ByteWriter, assets: &NroAssetData) {
    let sections = [assets.icon, assets.nacp, assets.romfs];
    w.bytes(ASSET_MAGIC).u32(0);
    let mut offset = ASSET_HEADER_SIZE;
    for section in sections {
        let size = section.len() as u64;
        w.u64(if size == 0 { 0 } else { offset }).u64(size);
        offset += size;
    }
    for section in sections {
        w.bytes(section);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::loader::Magic;
    use crate::loader::test_support::{Case, check_cases, edits, mutate, put_u32, put_u64, sample_module};

    fn sample() -> Module {
        sample_module("hello.nro", ModuleFormat::Nro)
    }

    /// The sample as it reads back from an NRO: the header fills `.text` bytes 0x10..0x80.
    fn sample_as_loaded(file: &[u8]) -> Module {
        let mut module = sample();
        let mut text = module.segments[0].bytes.to_vec();
        text[HEADER_START..HEADER_END as usize].copy_from_slice(&file[HEADER_START..HEADER_END as usize]);
        module.segments[0].bytes = text.into();
        module
    }

    /// A NACP with the fields placed by hand at switchbrew's offsets: language 0 empty, language 1 named.
    fn sample_nacp() -> Vec<u8> {
        let mut nacp = vec![0; 0x4000];
        nacp[0x300..0x300 + 6].copy_from_slice(b"Tandem");
        nacp[0x500..0x500 + 11].copy_from_slice(b"Tandem Team");
        nacp[0x3060..0x3060 + 5].copy_from_slice(b"1.2.3");
        nacp
    }

    #[test]
    fn round_trips_without_assets() {
        let file = write(&sample(), None).unwrap();
        assert_eq!(&file[0x10..0x14], b"NRO0");
        assert_eq!(file.len(), 0x2300);
        let nro = read("hello.nro", &file).unwrap();
        assert_eq!(nro.module, sample_as_loaded(&file));
        assert_eq!((nro.version, nro.flags, nro.dso_handle_offset), (0, 0, 0));
        assert_eq!(nro.assets, None);
        // The start code survives: the MOD0 word still finds MOD0.
        assert_eq!(nro.module.mod0_offset(), Some(0x80));
        assert_eq!(write(&nro.module, None).unwrap(), file);
    }

    #[test]
    fn round_trips_assets() {
        let nacp = sample_nacp();
        let assets = NroAssetData { icon: b"\xFF\xD8 jpeg", nacp: &nacp, romfs: b"romfs image" };
        let file = write(&sample(), Some(&assets)).unwrap();
        let nro = read("hello.nro", &file).unwrap();
        assert_eq!(nro.module, sample_as_loaded(&file));
        let found = nro.assets.unwrap();
        assert_eq!(&file[found.icon.unwrap()], assets.icon);
        assert_eq!(&file[found.romfs.unwrap()], assets.romfs);
        let nacp_range = found.nacp.unwrap();
        assert_eq!(&file[nacp_range.clone()], nacp.as_slice());
        let info = read_nacp("control.nacp", &file[nacp_range]).unwrap();
        assert_eq!(
            info,
            NacpInfo { title: "Tandem".into(), author: "Tandem Team".into(), display_version: "1.2.3".into() }
        );
    }

    #[test]
    fn absent_assets_are_none() {
        let assets = NroAssetData { romfs: b"only a romfs", ..Default::default() };
        let nro = read("hello.nro", &write(&sample(), Some(&assets)).unwrap()).unwrap();
        let found = nro.assets.unwrap();
        assert_eq!((found.icon, found.nacp), (None, None));
        assert!(found.romfs.is_some());
    }

    #[test]
    fn trailing_bytes_that_are_not_assets_are_ignored() {
        let mut file = write(&sample(), None).unwrap();
        file.extend_from_slice(b"padding, not ASET");
        assert_eq!(read("hello.nro", &file).unwrap().assets, None);
    }

    #[test]
    fn writer_needs_room_for_the_header() {
        let mut module = sample();
        module.segments[0].bytes.truncate(0x7F);
        assert!(matches!(write(&module, None).unwrap_err().problem, Problem::CannotWrite(_)));
    }

    #[test]
    fn written_nacps_put_each_field_at_switchbrews_offset() {
        let info = NacpInfo { title: "Tandem".into(), author: "Tandem Team".into(), display_version: "1.2.3".into() };
        let nacp = write_nacp(&info).unwrap();
        assert_eq!(nacp.len(), 0x4000);
        // Language 15's entry (the last, at 0x2D00) too, and the display version at 0x3060.
        assert_eq!(&nacp[0x2d00..0x2d07], b"Tandem\0");
        assert_eq!(&nacp[0x2f00..0x2f0c], b"Tandem Team\0");
        assert_eq!(&nacp[0x3060..0x3066], b"1.2.3\0");
        assert_eq!(read_nacp("control.nacp", &nacp).unwrap(), info);
        let long = NacpInfo { display_version: "1234567890123456".into(), ..info };
        assert!(matches!(write_nacp(&long).unwrap_err().problem, Problem::CannotWrite(_)));
    }

    #[test]
    fn truncated_nacp_is_reported() {
        let error = read_nacp("control.nacp", &sample_nacp()[..0x3000]).unwrap_err();
        assert_eq!(error.structure, "NACP display version");
        assert!(matches!(error.problem, Problem::Truncated { .. }));
    }

    #[test]
    fn malformed_files_give_typed_errors() {
        let cases = [
            Case {
                name: "bad magic",
                mutate: |f| f[0x10..0x14].copy_from_slice(b"NSO0"),
                structure: HEADER,
                offset: 0x10,
                problem: |p| *p == Problem::BadMagic { expected: Magic(*b"NRO0"), found: Magic(*b"NSO0") },
            },
            Case {
                name: "size past end of file",
                mutate: |f| put_u32(f, SIZE, 0x10_0000),
                structure: HEADER,
                offset: SIZE,
                problem: |p| *p == Problem::PastEnd { start: 0, size: 0x10_0000, end: 0x2300 + 0x38 + 4 },
            },
            Case {
                name: "size smaller than the header",
                mutate: |f| put_u32(f, SIZE, 0x40),
                structure: HEADER,
                offset: SIZE,
                problem: |p| matches!(p, Problem::BadValue { value: 0x40, .. }),
            },
            Case {
                name: ".data past the NRO size",
                mutate: |f| put_u32(f, SIZE, 0x2200),
                structure: SEGMENT_NAMES[2],
                offset: 0x30,
                problem: |p| *p == Problem::PastEnd { start: 0x2000, size: 0x300, end: 0x2200 },
            },
            Case {
                name: ".text not at 0",
                mutate: |f| put_u32(f, 0x20, 0x1000),
                structure: SEGMENT_NAMES[0],
                offset: 0x20,
                problem: |p| matches!(p, Problem::BadValue { value: 0x1000, .. }),
            },
            Case {
                name: ".text too small for the header",
                mutate: |f| put_u32(f, 0x24, 0x40),
                structure: SEGMENT_NAMES[0],
                offset: 0x24,
                problem: |p| matches!(p, Problem::BadValue { value: 0x40, .. }),
            },
            Case {
                name: ".data misaligned",
                mutate: |f| put_u32(f, 0x30, 0x2100),
                structure: SEGMENT_NAMES[2],
                offset: 0x30,
                problem: |p| *p == Problem::Misaligned { value: 0x2100, alignment: 0x1000 },
            },
            Case {
                name: ".rodata overlaps .text",
                mutate: |f| put_u32(f, 0x24, 0x1800),
                structure: SEGMENT_NAMES[1],
                offset: 0x28,
                problem: |p| *p == Problem::Overlap { other: ".text".into() },
            },
            Case {
                name: "bss past the image limit",
                mutate: |f| put_u32(f, BSS_SIZE, u32::MAX),
                structure: HEADER,
                offset: BSS_SIZE,
                problem: |p| matches!(p, Problem::TooLarge { .. }),
            },
            Case {
                name: "asset header cut short",
                mutate: |f| f.truncate(0x2300 + 0x20),
                structure: ASSET_HEADER,
                offset: 0x2300,
                problem: |p| matches!(p, Problem::Truncated { .. }),
            },
            Case {
                name: "asset past end of file",
                mutate: |f| put_u64(f, 0x2300 + 0x28, 0x100),
                structure: ASSET_HEADER,
                offset: 0x2300 + 0x28,
                problem: |p| *p == Problem::PastEnd { start: 0x2300 + 0x100, size: 4, end: 0x2300 + 0x38 + 4 },
            },
        ];
        let valid = write(&sample(), Some(&NroAssetData { romfs: b"ROMF", ..Default::default() })).unwrap();
        check_cases(&valid, read, &cases);
    }

    #[test]
    fn truncation_anywhere_in_the_header_is_reported() {
        let file = write(&sample(), None).unwrap();
        for cut in 0..HEADER_END as usize {
            let error = read("hello.nro", &file[..cut]).unwrap_err();
            assert_eq!(error.structure, HEADER, "cut at {cut:#x}");
            assert!(matches!(error.problem, Problem::Truncated { .. }), "cut at {cut:#x}: {error}");
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..0x400)) {
            let _ = read("fuzz", &bytes);
            let _ = read_nacp("fuzz", &bytes);
        }

        #[test]
        fn mutated_files_never_panic(edits in edits()) {
            let assets = NroAssetData { icon: b"icon", nacp: &[], romfs: b"romfs" };
            let _ = read("fuzz", &mutate(&write(&sample(), Some(&assets)).unwrap(), &edits));
        }
    }
}
