//! NSO0, the format of ExeFS code modules (rtld, main, subsdk0-9, sdk).
//!
//! A 0x100-byte header, the module name, then `.text`, `.rodata` and `.data`, each stored or LZ4-compressed (block
//! format) and each optionally covered by a SHA-256 of its decompressed bytes. Layout from switchbrew's "NSO" page
//! and Atmosphère's `ldr::NsoHeader`; checks as Atmosphère's loader makes them (`ldr_process_creation.cpp`):
//!
//! | offset | size     | field                                                                               |
//! |--------|----------|-------------------------------------------------------------------------------------|
//! | 0x00   | 4        | magic "NSO0"                                                                        |
//! | 0x04   | 4        | version (0)                                                                         |
//! | 0x0C   | 4        | flags: bits 0-2 compressed, 3-5 check hash (per segment), 6 PreventCodeReads, 7 zstd |
//! | 0x10   | 0x10 × 3 | per segment: file offset, memory offset, size, then module name offset (.text),     |
//! |        |          | module name size (.rodata) or bss size (.data)                                      |
//! | 0x40   | 0x20     | module id (GNU build id)                                                            |
//! | 0x60   | 4 × 3    | size in the file (compressed size) of each segment                                  |
//! | 0x88   | 8 × 3    | `.rodata`-relative extents of the api info, `.dynstr`, `.dynsym`                    |
//! | 0xA0   | 0x20 × 3 | SHA-256 of each decompressed segment                                                |

use sha2::{Digest, Sha256};

use super::bytes::{ByteWriter, Reader};
use super::{
    HashCheck, LoadError, MAX_IMAGE_SIZE, Module, ModuleFormat, Permissions, Problem, RodataExtent, RodataExtents,
    Segment, check_horizon_layout, hex,
};

const MAGIC: &[u8; 4] = b"NSO0";
const HEADER: &str = "NSO header";
const HEADER_SIZE: u64 = 0x100;
const SEGMENT_NAMES: [&str; 3] = ["NSO .text segment", "NSO .rodata segment", "NSO .data segment"];

const FLAGS: u64 = 0x0C;
const SEGMENT_HEADERS: u64 = 0x10;
const SEGMENT_HEADER_SIZE: u64 = 0x10;
const BSS_SIZE: u64 = 0x3C;
const MODULE_ID: u64 = 0x40;
const FILE_SIZES: u64 = 0x60;
const RODATA_EXTENTS: u64 = 0x88;
const HASHES: u64 = 0xA0;

/// Shifted left by the segment index.
const FLAG_COMPRESSED: u32 = 1 << 0;
/// Shifted left by the segment index.
const FLAG_CHECK_HASH: u32 = 1 << 3;
const FLAG_PREVENT_CODE_READS: u32 = 1 << 6;
/// Atmosphère's `Flag_UseZbicCompression`: segments compressed with zstd (Switch 2 era main modules).
const FLAG_ZSTD: u32 = 1 << 7;

/// Horizon refuses segments of more than `i32::MAX` bytes.
const MAX_SEGMENT_SIZE: u64 = i32::MAX as u64;
/// An LZ4 block never decompresses to more than 255 bytes per compressed byte (each match-length byte adds at
/// most 255); this bounds the allocation a compressed segment can ask for.
const LZ4_MAX_RATIO: u64 = 255;

/// One segment's fields, gathered from the three places in the header that describe it.
struct SegmentHeader {
    index: usize,
    file_offset: u64,
    mem_offset: u64,
    size: u64,
    file_size: u64,
    hash: [u8; 32],
    compressed: bool,
    check_hash: bool,
}

impl SegmentHeader {
    fn read(r: &Reader, flags: u32, index: usize) -> Result<Self, LoadError> {
        let at = SEGMENT_HEADERS + SEGMENT_HEADER_SIZE * index as u64;
        Ok(Self {
            index,
            file_offset: r.u32(at, HEADER)?.into(),
            mem_offset: r.u32(at + 4, HEADER)?.into(),
            size: r.u32(at + 8, HEADER)?.into(),
            file_size: r.u32(FILE_SIZES + 4 * index as u64, HEADER)?.into(),
            hash: r.array(HASHES + 0x20 * index as u64, HEADER)?,
            compressed: flags & (FLAG_COMPRESSED << index) != 0,
            check_hash: flags & (FLAG_CHECK_HASH << index) != 0,
        })
    }

    fn name(&self) -> &'static str {
        SEGMENT_NAMES[self.index]
    }

    /// Offset of this segment's header, where layout errors point.
    fn field(&self) -> u64 {
        SEGMENT_HEADERS + SEGMENT_HEADER_SIZE * self.index as u64
    }
}

/// Parses an NSO file. `file` labels the module in errors and becomes [`Module::name`].
pub fn read(file: &str, bytes: &[u8]) -> Result<Module, LoadError> {
    let r = Reader::new(file, bytes);
    r.expect_magic(0, MAGIC, HEADER)?;
    let flags = r.u32(FLAGS, HEADER)?;
    let headers = (0..3).map(|index| SegmentHeader::read(&r, flags, index)).collect::<Result<Vec<_>, _>>()?;
    let bss_size = u64::from(r.u32(BSS_SIZE, HEADER)?);
    let build_id = r.array(MODULE_ID, HEADER)?;
    let rodata_extents = read_rodata_extents(&r, RODATA_EXTENTS, HEADER)?;

    if flags & FLAG_ZSTD != 0 {
        let problem = Problem::Unsupported("zstd-compressed segments (flag bit 7)".into());
        return Err(r.error(HEADER, FLAGS, problem));
    }
    check_layout(&r, &headers, bss_size)?;

    let text_permissions =
        if flags & FLAG_PREVENT_CODE_READS != 0 { Permissions::EXECUTE_ONLY } else { Permissions::READ_EXECUTE };
    let permissions = [text_permissions, Permissions::READ, Permissions::READ_WRITE];
    let segments = headers
        .iter()
        .zip(permissions)
        .map(|(header, permissions)| load_segment(&r, header, permissions))
        .collect::<Result<Vec<_>, _>>()?;

    tracing::debug!(file, flags, bss_size, "loaded NSO");
    Ok(Module {
        name: file.to_owned(),
        format: ModuleFormat::Nso,
        segments,
        bss_size,
        build_id,
        rodata_extents,
        relocations: Vec::new(),
        link_base: None,
        entry: 0,
    })
}

/// Reads the three `.rodata`-relative extents (api info, `.dynstr`, `.dynsym`) at `at`; NSO and NRO share the layout.
pub(super) fn read_rodata_extents(r: &Reader, at: u64, structure: &str) -> Result<RodataExtents, LoadError> {
    let extent = |index: u64| -> Result<RodataExtent, LoadError> {
        let field = at + 8 * index;
        Ok(RodataExtent { offset: r.u32(field, structure)?, size: r.u32(field + 4, structure)? })
    };
    Ok(RodataExtents { api_info: extent(0)?, dynstr: extent(1)?, dynsym: extent(2)? })
}

/// Writes the three `.rodata`-relative extents, as [`read_rodata_extents`] reads them.
pub(super) fn write_rodata_extents(w: &mut ByteWriter, extents: &RodataExtents) {
    for extent in [extents.api_info, extents.dynstr, extents.dynsym] {
        w.u32(extent.offset).u32(extent.size);
    }
}

/// Checks sizes and the segment layout before anything is decompressed.
fn check_layout(r: &Reader, headers: &[SegmentHeader], bss_size: u64) -> Result<(), LoadError> {
    for header in headers {
        if header.size > MAX_SEGMENT_SIZE {
            let problem = Problem::TooLarge { size: header.size, limit: MAX_SEGMENT_SIZE };
            return Err(r.error(header.name(), header.field() + 8, problem));
        }
    }
    let layout = [0, 1, 2].map(|index| (headers[index].mem_offset, headers[index].size));
    check_horizon_layout(&layout)
        .map_err(|(index, problem)| r.error(headers[index].name(), headers[index].field(), problem))?;
    // The layout check makes .data the last segment; its fields are u32, so the sum cannot overflow.
    let image_end = headers[2].mem_offset + headers[2].size + bss_size;
    if image_end > MAX_IMAGE_SIZE {
        return Err(r.error(HEADER, BSS_SIZE, Problem::TooLarge { size: image_end, limit: MAX_IMAGE_SIZE }));
    }
    Ok(())
}

fn load_segment(r: &Reader, header: &SegmentHeader, permissions: Permissions) -> Result<Segment, LoadError> {
    let bytes = if header.compressed {
        decompress(r, header)?
    } else {
        // Horizon reads a stored segment's size from the file and ignores the file-size field.
        r.extent(header.field(), header.file_offset, header.size, header.name())?.to_vec()
    };
    let hash_check = if header.check_hash {
        let actual: [u8; 32] = Sha256::digest(&bytes).into();
        if actual != header.hash {
            let problem = Problem::HashMismatch { expected: hex(&header.hash), actual: hex(&actual) };
            return Err(r.error(header.name(), header.file_offset, problem));
        }
        HashCheck::Verified
    } else {
        HashCheck::NotChecked
    };
    Ok(Segment { mem_offset: header.mem_offset, bytes: bytes.into(), zero_tail: 0, permissions, hash_check })
}

fn decompress(r: &Reader, header: &SegmentHeader) -> Result<Vec<u8>, LoadError> {
    let file_size_field = FILE_SIZES + 4 * header.index as u64;
    // Atmosphère: a compressed segment is never larger in the file than in memory.
    if header.file_size > header.size {
        let problem = Problem::BadValue {
            value: header.file_size,
            expected: format!("at most the segment size {:#x}", header.size),
        };
        return Err(r.error(header.name(), file_size_field, problem));
    }
    let limit = header.file_size * LZ4_MAX_RATIO;
    if header.size > limit {
        return Err(r.error(header.name(), header.field() + 8, Problem::TooLarge { size: header.size, limit }));
    }
    if header.size == 0 {
        return Ok(Vec::new());
    }
    let compressed = r.extent(header.field(), header.file_offset, header.file_size, header.name())?;
    // `size` is at most MAX_SEGMENT_SIZE, so it fits in usize.
    let mut bytes = vec![0; header.size as usize];
    match lz4_flex::block::decompress_into(compressed, &mut bytes) {
        Ok(written) if written == bytes.len() => Ok(bytes),
        Ok(written) => {
            let message = format!("decompressed to {written:#x} bytes, the header says {:#x}", header.size);
            Err(r.error(header.name(), header.file_offset, Problem::Lz4(message)))
        }
        Err(error) => Err(r.error(header.name(), header.file_offset, Problem::Lz4(error.to_string()))),
    }
}

/// Writes `module` as an NSO with SHA-256 checks on every segment. With `compress`, each segment is LZ4-compressed,
/// except one that would not shrink (Horizon refuses a compressed segment larger than its memory size).
/// [`Module::relocations`] are not written: an NSO relocates itself through its MOD0 dynamic section.
pub fn write(module: &Module, compress: bool) -> Result<Vec<u8>, LoadError> {
    let segments = module.horizon_segments("NSO", &[Permissions::READ_EXECUTE, Permissions::EXECUTE_ONLY])?;
    let stored = segments.map(|segment| stored_form(&segment.bytes, compress));

    let mut flags = FLAG_CHECK_HASH * 0b111;
    for (index, (_, compressed)) in stored.iter().enumerate() {
        if *compressed {
            flags |= FLAG_COMPRESSED << index;
        }
    }
    if segments[0].permissions == Permissions::EXECUTE_ONLY {
        flags |= FLAG_PREVENT_CODE_READS;
    }

    let name_size = module.name.len() + 1;
    let mut file_offsets = [0; 3];
    let mut offset = HEADER_SIZE as usize + name_size;
    for (file_offset, (data, _)) in file_offsets.iter_mut().zip(&stored) {
        *file_offset = offset;
        offset += data.len();
    }
    let to_u32 = |value: usize| {
        u32::try_from(value).map_err(|_| {
            let problem = Problem::CannotWrite(format!("file offset {value:#x} does not fit in 32 bits"));
            LoadError::without_offset(&module.name, "NSO writer", problem)
        })
    };
    // `horizon_segments` checked that offsets, sizes and bss fit in 32 bits.
    let fourth_fields = [HEADER_SIZE as u32, to_u32(name_size)?, module.bss_size as u32];

    let mut w = ByteWriter::default();
    w.bytes(MAGIC).u32(0).u32(0).u32(flags);
    for (index, segment) in segments.iter().enumerate() {
        w.u32(to_u32(file_offsets[index])?)
            .u32(segment.mem_offset as u32)
            .u32(segment.bytes.len() as u32)
            .u32(fourth_fields[index]);
    }
    w.bytes(&module.build_id);
    for (data, _) in &stored {
        w.u32(data.len() as u32);
    }
    w.pad_to(RODATA_EXTENTS as usize);
    write_rodata_extents(&mut w, &module.rodata_extents);
    for segment in segments {
        w.bytes(&Sha256::digest(&segment.bytes));
    }
    w.bytes(module.name.as_bytes()).u8(0);
    for (data, _) in &stored {
        w.bytes(data);
    }
    Ok(w.into_bytes())
}

/// The bytes to store for a segment, and whether they are compressed.
fn stored_form(bytes: &[u8], compress: bool) -> (Vec<u8>, bool) {
    if compress {
        let compressed = lz4_flex::block::compress(bytes);
        if compressed.len() < bytes.len() {
            return (compressed, true);
        }
    }
    (bytes.to_vec(), false)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::loader::Magic;
    use crate::loader::test_support::{Case, check_cases, edits, get_u32, mutate, put_u32, sample_module};

    fn sample() -> Module {
        sample_module("main", ModuleFormat::Nso)
    }

    /// Where the writer puts the stored `.text`: after the header and the name "main\0".
    const TEXT_DATA: u64 = HEADER_SIZE + 5;

    #[test]
    fn round_trips_stored_and_compressed() {
        let module = sample();
        for compress in [false, true] {
            let file = write(&module, compress).unwrap();
            assert_eq!(get_u32(&file, FLAGS) & 0b111 != 0, compress);
            assert_eq!(u64::from(get_u32(&file, SEGMENT_HEADERS)), TEXT_DATA);
            assert_eq!(read("main", &file).unwrap(), module, "compress = {compress}");
        }
    }

    #[test]
    fn execute_only_text_round_trips_through_prevent_code_reads() {
        let mut module = sample();
        module.segments[0].permissions = Permissions::EXECUTE_ONLY;
        let file = write(&module, true).unwrap();
        assert_ne!(get_u32(&file, FLAGS) & FLAG_PREVENT_CODE_READS, 0);
        assert_eq!(read("main", &file).unwrap(), module);
    }

    #[test]
    fn image_places_segments_and_zero_fills_gaps_and_bss() {
        let module = sample();
        // .data ends at 0x2300; bss 0x1234 takes it to 0x3534, rounded up to a page.
        assert_eq!(module.image_size(), 0x4000);
        let image = module.image();
        assert_eq!(image.len(), 0x2300, "the image stops where the bytes do: the bss is the mapping's zeros");
        assert_eq!(&image[..0x1000], &module.segments[0].bytes[..]);
        assert_eq!(&image[0x1000..0x1801], &module.segments[1].bytes[..]);
        assert!(image[0x1801..0x2000].iter().all(|&b| b == 0));
        assert_eq!(&image[0x2000..0x2300], &module.segments[2].bytes[..]);
        assert_eq!(module.mod0_offset(), Some(0x80));
        assert_eq!(module.entry_offset(), 0);
    }

    #[test]
    fn mod0_offset_is_none_without_the_magic_or_out_of_range() {
        let mut module = sample();
        let mut text = module.segments[0].bytes.to_vec();
        text[0x80] = b'X';
        module.segments[0].bytes = text.clone().into();
        assert_eq!(module.mod0_offset(), None);
        text[4..8].copy_from_slice(&0x9999_0000u32.to_le_bytes());
        module.segments[0].bytes = text.into();
        assert_eq!(module.mod0_offset(), None);
    }

    /// The LZ4 block format specification's sequence layout, encoded by hand: a token (4 literals, match length
    /// 4 + 4), the literals "abcd", match offset 4; then a last token with the 5 literals "xyzzy".
    #[test]
    fn decodes_a_hand_encoded_lz4_block() {
        let expected = b"abcdabcdabcdxyzzy";
        let block = b"\x44abcd\x04\x00\x50xyzzy";
        let mut module = sample();
        module.segments[0].bytes = expected.to_vec().into();
        let mut file = write(&module, false).unwrap();
        let flags = get_u32(&file, FLAGS) | FLAG_COMPRESSED;
        put_u32(&mut file, FLAGS, flags);
        put_u32(&mut file, FILE_SIZES, block.len() as u32);
        file[TEXT_DATA as usize..][..block.len()].copy_from_slice(block);
        let loaded = read("main", &file).unwrap();
        assert_eq!(loaded.segments[0].bytes, &expected[..]);
        assert_eq!(loaded.segments[0].hash_check, HashCheck::Verified);
    }

    #[test]
    fn hash_flag_clear_means_not_checked() {
        let mut file = write(&sample(), true).unwrap();
        let flags = get_u32(&file, FLAGS) & !(FLAG_CHECK_HASH << 1);
        put_u32(&mut file, FLAGS, flags);
        file[HASHES as usize + 0x20] ^= 0xFF; // a wrong .rodata hash no longer matters
        let module = read("main", &file).unwrap();
        let checks: Vec<_> = module.segments.iter().map(|s| s.hash_check).collect();
        assert_eq!(checks, [HashCheck::Verified, HashCheck::NotChecked, HashCheck::Verified]);
    }

    #[test]
    fn hash_mismatch_reports_both_digests() {
        let module = sample();
        let mut file = write(&module, false).unwrap();
        file[TEXT_DATA as usize] ^= 1;
        let error = read("main", &file).unwrap_err();
        let mut changed = module.segments[0].bytes.to_vec();
        changed[0] ^= 1;
        let expected = hex(&Sha256::digest(&module.segments[0].bytes));
        let actual = hex(&Sha256::digest(&changed));
        assert_eq!(expected.len(), 64);
        assert!(error.to_string().contains(&expected), "{error}");
        assert_eq!(error.problem, Problem::HashMismatch { expected, actual });
        assert_eq!(error.offset, Some(TEXT_DATA));
    }

    #[test]
    fn malformed_files_give_typed_errors() {
        let cases = [
            Case {
                name: "bad magic",
                mutate: |f| f[3] = b'1',
                structure: HEADER,
                offset: 0,
                problem: |p| *p == Problem::BadMagic { expected: Magic(*b"NSO0"), found: Magic(*b"NSO1") },
            },
            Case {
                name: "zstd flag",
                mutate: |f| f[FLAGS as usize] |= FLAG_ZSTD as u8,
                structure: HEADER,
                offset: FLAGS,
                problem: |p| matches!(p, Problem::Unsupported(_)),
            },
            Case {
                name: ".text not at 0",
                mutate: |f| put_u32(f, SEGMENT_HEADERS + 4, 0x1000),
                structure: SEGMENT_NAMES[0],
                offset: SEGMENT_HEADERS,
                problem: |p| matches!(p, Problem::BadValue { value: 0x1000, .. }),
            },
            Case {
                name: ".rodata misaligned",
                mutate: |f| put_u32(f, 0x24, 0x1800),
                structure: SEGMENT_NAMES[1],
                offset: 0x20,
                problem: |p| *p == Problem::Misaligned { value: 0x1800, alignment: 0x1000 },
            },
            Case {
                name: ".rodata runs into .data",
                mutate: |f| put_u32(f, 0x28, 0x1001),
                structure: SEGMENT_NAMES[2],
                offset: 0x30,
                problem: |p| *p == Problem::Overlap { other: ".rodata".into() },
            },
            Case {
                name: "segment over i32::MAX",
                mutate: |f| put_u32(f, 0x38, 0x8000_0000),
                structure: SEGMENT_NAMES[2],
                offset: 0x38,
                problem: |p| matches!(p, Problem::TooLarge { size: 0x8000_0000, .. }),
            },
            Case {
                name: "bss past the image limit",
                mutate: |f| put_u32(f, BSS_SIZE, u32::MAX),
                structure: HEADER,
                offset: BSS_SIZE,
                problem: |p| matches!(p, Problem::TooLarge { .. }),
            },
            Case {
                name: ".data past end of file",
                mutate: |f| {
                    let near_end = f.len() as u32 - 4;
                    put_u32(f, 0x30, near_end);
                },
                structure: SEGMENT_NAMES[2],
                offset: 0x30,
                problem: |p| matches!(p, Problem::PastEnd { .. }),
            },
            Case {
                name: "compressed size above memory size",
                mutate: |f| put_u32(f, FILE_SIZES, 0x1001),
                structure: SEGMENT_NAMES[0],
                offset: FILE_SIZES,
                problem: |p| matches!(p, Problem::BadValue { value: 0x1001, .. }),
            },
            Case {
                name: "compressed size too small to reach the memory size",
                mutate: |f| put_u32(f, FILE_SIZES, 0x10),
                structure: SEGMENT_NAMES[0],
                offset: SEGMENT_HEADERS + 8,
                problem: |p| *p == Problem::TooLarge { size: 0x1000, limit: 0x10 * 255 },
            },
            Case {
                name: "LZ4 stream cut short",
                mutate: |f| {
                    let shorter = get_u32(f, FILE_SIZES) - 8;
                    put_u32(f, FILE_SIZES, shorter);
                },
                structure: SEGMENT_NAMES[0],
                offset: TEXT_DATA,
                problem: |p| matches!(p, Problem::Lz4(_)),
            },
            Case {
                name: "LZ4 match offset before the start",
                mutate: |f| f[TEXT_DATA as usize..][..4].copy_from_slice(b"\x14a\xff\x7f"),
                structure: SEGMENT_NAMES[0],
                offset: TEXT_DATA,
                problem: |p| matches!(p, Problem::Lz4(_)),
            },
            Case {
                name: ".text hash mismatch",
                mutate: |f| f[HASHES as usize] ^= 1,
                structure: SEGMENT_NAMES[0],
                offset: TEXT_DATA,
                problem: |p| matches!(p, Problem::HashMismatch { .. }),
            },
        ];
        check_cases(&write(&sample(), true).unwrap(), read, &cases);
    }

    #[test]
    fn truncation_anywhere_in_the_header_is_reported() {
        let file = write(&sample(), true).unwrap();
        for cut in 0..HEADER_SIZE as usize {
            let error = read("main", &file[..cut]).unwrap_err();
            assert_eq!(error.structure, HEADER, "cut at {cut:#x}");
            assert!(matches!(error.problem, Problem::Truncated { .. }), "cut at {cut:#x}: {error}");
        }
    }

    #[test]
    fn writer_refuses_what_nso_cannot_express() {
        let mut two_segments = sample();
        two_segments.segments.pop();
        let mut writable_rodata = sample();
        writable_rodata.segments[1].permissions = Permissions::READ_WRITE;
        let mut late_entry = sample();
        late_entry.entry = 0x40;
        for module in [two_segments, writable_rodata, late_entry] {
            assert!(matches!(write(&module, true).unwrap_err().problem, Problem::CannotWrite(_)));
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..0x400)) {
            let _ = read("fuzz", &bytes);
        }

        #[test]
        fn mutated_files_never_panic(
            compress in any::<bool>(),
            edits in edits(),
        ) {
            let _ = read("fuzz", &mutate(&write(&sample(), compress).unwrap(), &edits));
        }
    }
}
