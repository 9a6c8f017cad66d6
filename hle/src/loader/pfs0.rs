//! PFS0, the partition file system (switchbrew "NCA Format", PFS0 section): a flat list of named files. An NSP
//! (an application package) is one; so is an NCA's ExeFS. Only the header is parsed here: the files' bytes stay
//! in the image, where a reader fetches them by [`Pfs0Entry::offset`].
//!
//! Layout: "PFS0", u32 file count, u32 string table size, u32 reserved; then 0x18 bytes per file (u64 data
//! offset from the end of the header, u64 size, u32 name offset in the string table, u32 reserved); then the string
//! table of NUL-terminated names; then the data.

use super::bytes::{ByteWriter, Reader};
use super::{LoadError, Problem};

const MAGIC: &[u8; 4] = b"PFS0";
const HEADER: &str = "PFS0 header";
const ENTRY: &str = "PFS0 file entry";
const STRINGS: &str = "PFS0 string table";
/// Bytes of the fixed header, and of each file entry.
pub const HEADER_SIZE: u64 = 0x10;
const ENTRY_SIZE: u64 = 0x18;
/// The most files a PFS0 header may list: packages hold a few NCAs and tickets; the cap bounds what a hostile
/// count makes the parser read.
const MAX_FILES: u64 = 0x1_0000;
/// The largest string table accepted, for the same reason.
const MAX_STRING_TABLE: u64 = 0x10_0000;
/// The longest name a file may have (Horizon's longest path, FS_MAX_PATH).
const MAX_NAME: usize = 0x300;

/// A file of the partition: where its bytes lie in the image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pfs0Entry {
    pub name: String,
    /// From the start of the image (the header's size included).
    pub offset: u64,
    pub size: u64,
}

/// How many bytes the whole header (entries and names) takes, from its first [`HEADER_SIZE`] bytes.
pub fn header_size(file: &str, first: &[u8]) -> Result<u64, LoadError> {
    let r = Reader::new(file, first);
    r.expect_magic(0, MAGIC, HEADER)?;
    let (count, strings) = (u64::from(r.u32(4, HEADER)?), u64::from(r.u32(8, HEADER)?));
    if count > MAX_FILES {
        return Err(r.error(HEADER, 4, Problem::TooLarge { size: count, limit: MAX_FILES }));
    }
    if strings > MAX_STRING_TABLE {
        return Err(r.error(HEADER, 8, Problem::TooLarge { size: strings, limit: MAX_STRING_TABLE }));
    }
    Ok(HEADER_SIZE + count * ENTRY_SIZE + strings)
}

/// The files of the PFS0 whose header is `header` (at least [`header_size`] bytes) in an image of `image_size`
/// bytes. Every file must lie inside the image and have a UTF-8 name, unique in the partition.
pub fn entries(file: &str, header: &[u8], image_size: u64) -> Result<Vec<Pfs0Entry>, LoadError> {
    let size = header_size(file, header)?;
    let r = Reader::new(file, header);
    r.bytes(0, size, HEADER)?;
    let count = u64::from(r.u32(4, HEADER)?);
    let strings_at = HEADER_SIZE + count * ENTRY_SIZE;
    let strings = r.bytes(strings_at, size - strings_at, STRINGS)?;
    let mut entries: Vec<Pfs0Entry> = Vec::with_capacity(count as usize);
    let mut names = std::collections::HashSet::new();
    for index in 0..count {
        let at = HEADER_SIZE + index * ENTRY_SIZE;
        let (offset, length, name_at) = (r.u64(at, ENTRY)?, r.u64(at + 8, ENTRY)?, u64::from(r.u32(at + 16, ENTRY)?));
        let start =
            size.checked_add(offset).filter(|start| start.checked_add(length).is_some_and(|end| end <= image_size));
        let Some(start) = start else {
            let problem = Problem::PastEnd { start: size.saturating_add(offset), size: length, end: image_size };
            return Err(r.error(ENTRY, at, problem));
        };
        // A name ends within the longest path Horizon takes (its NUL looked for no further).
        let name_bytes = strings.get(name_at as usize..).and_then(|rest| {
            let end = rest.iter().take(MAX_NAME + 1).position(|&b| b == 0)?;
            Some(&rest[..end])
        });
        let Some(name_bytes) = name_bytes else {
            let expected = format!("a NUL-terminated name of at most {MAX_NAME:#x} bytes inside the string table");
            return Err(r.error(ENTRY, at + 16, Problem::BadValue { value: name_at, expected }));
        };
        let name = String::from_utf8(name_bytes.to_vec())
            .map_err(|_| r.error(STRINGS, strings_at + name_at, Problem::NotUtf8))?;
        if !names.insert(name.clone()) {
            return Err(r.error(ENTRY, at, Problem::Inconsistent(format!("a second file named {name:?}"))));
        }
        entries.push(Pfs0Entry { name, offset: start, size: length });
    }
    Ok(entries)
}

/// A PFS0 image of `files`, names in order, data packed after the header (for tests and fixtures).
pub fn build(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut strings = Vec::new();
    let mut name_offsets = Vec::new();
    for (name, _) in files {
        name_offsets.push(strings.len() as u32);
        strings.extend_from_slice(name.as_bytes());
        strings.push(0);
    }
    strings.resize(strings.len().next_multiple_of(0x20), 0);
    let mut writer = ByteWriter::default();
    writer.bytes(MAGIC).u32(files.len() as u32).u32(strings.len() as u32).u32(0);
    let mut offset = 0u64;
    for ((_, data), name_offset) in files.iter().zip(&name_offsets) {
        writer.u64(offset).u64(data.len() as u64).u32(*name_offset).u32(0);
        offset += data.len() as u64;
    }
    writer.bytes(&strings);
    for (_, data) in files {
        writer.bytes(data);
    }
    writer.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PFS0 with two files, laid out by hand from switchbrew's table.
    fn sample() -> Vec<u8> {
        let mut image = Vec::new();
        image.extend_from_slice(b"PFS0");
        image.extend_from_slice(&2u32.to_le_bytes());
        image.extend_from_slice(&0x10u32.to_le_bytes());
        image.extend_from_slice(&0u32.to_le_bytes());
        for (offset, size, name) in [(0u64, 5u64, 0u32), (5, 3, 6)] {
            image.extend_from_slice(&offset.to_le_bytes());
            image.extend_from_slice(&size.to_le_bytes());
            image.extend_from_slice(&name.to_le_bytes());
            image.extend_from_slice(&0u32.to_le_bytes());
        }
        image.extend_from_slice(b"a.nca\0b.tik\0\0\0\0\0");
        image.extend_from_slice(b"helloxyz");
        image
    }

    #[test]
    fn files_are_found_where_switchbrew_lays_them_out() {
        let image = sample();
        assert_eq!(header_size("p.nsp", &image[..16]), Ok(0x50));
        let files = entries("p.nsp", &image, image.len() as u64).unwrap();
        assert_eq!(
            files,
            [
                Pfs0Entry { name: "a.nca".into(), offset: 0x50, size: 5 },
                Pfs0Entry { name: "b.tik".into(), offset: 0x55, size: 3 }
            ]
        );
        assert_eq!(&image[0x55..0x58], b"xyz");
        let built = build(&[("a.nca", b"hello"), ("b.tik", b"xyz")]);
        let rebuilt = entries("built", &built, built.len() as u64).unwrap();
        assert_eq!(rebuilt.iter().map(|e| (e.name.as_str(), e.size)).collect::<Vec<_>>(), [("a.nca", 5), ("b.tik", 3)]);
        assert_eq!(&built[rebuilt[1].offset as usize..][..3], b"xyz");
    }

    #[test]
    fn malformed_headers_are_typed_errors() {
        let image = sample();
        let mut bad_magic = image.clone();
        bad_magic[..4].copy_from_slice(b"HFS0");
        assert!(matches!(header_size("p", &bad_magic).unwrap_err().problem, Problem::BadMagic { .. }));
        let error = entries("p", &image, 0x57).unwrap_err();
        assert_eq!((error.structure.as_str(), error.offset), (ENTRY, Some(0x28)));
        let mut unterminated = image.clone();
        unterminated[0x48..0x50].copy_from_slice(b"xxxxxxxx");
        assert!(matches!(entries("p", &unterminated, 0x58).unwrap_err().problem, Problem::BadValue { .. }));
        // A name whose NUL is further than the longest path, in a string table that holds it.
        let long_name = build(&[(&"n".repeat(MAX_NAME + 1), b"")]);
        let error = entries("p", &long_name, long_name.len() as u64).unwrap_err();
        assert!(matches!(error.problem, Problem::BadValue { value: 0, .. }), "{error}");
        assert!(entries("p", &build(&[(&"n".repeat(MAX_NAME), b"")]), 0x400).is_ok());
        let mut duplicate = image.clone();
        duplicate[0x38..0x3c].copy_from_slice(&0u32.to_le_bytes());
        assert!(matches!(entries("p", &duplicate, 0x58).unwrap_err().problem, Problem::Inconsistent(_)));
        let mut huge = image;
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(header_size("p", &huge).unwrap_err().problem, Problem::TooLarge { .. }));
        assert!(matches!(entries("p", b"PFS0\0\0\0\0", 8).unwrap_err().problem, Problem::Truncated { .. }));
    }
}
