//! RomFS, a title's read-only file system: read from an image (a file read with positioned reads, or bytes in
//! memory such as an NRO's asset) or from an extracted folder on the host, and built from a list of files.
//!
//! Image layout (the level-3 layout of switchbrew's "RomFS" page; libnx `romfs_dev.h`): a 0x50-byte header of ten
//! u64s (header size, then offset and size of the directory hash table, directory meta table, file hash table and
//! file meta table, then the file data offset). A directory entry is parent, sibling, first child directory, first
//! file, next in hash bucket, name size (u32 each), then the name padded to 4 bytes; a file entry is parent,
//! sibling (u32), data offset, data size (u64), next in hash bucket, name size (u32), then the name. Entries refer
//! to one another by their offset in their table; 0xFFFFFFFF means none; the root directory is at offset 0.
//!
//! Lookups follow the sibling chains rather than the hash tables, and every walk is bounded by the number of
//! entries its table can hold, so a hostile image with cyclic links gives [`Problem::Cycle`] instead of a hang.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::bytes::{ByteWriter, Reader};
use super::{LoadError, Problem};

const HEADER: &str = "RomFS header";
const HEADER_SIZE: u64 = 0x50;
const DIRECTORY_TABLE: &str = "RomFS directory table";
const FILE_TABLE: &str = "RomFS file table";
const FILE_DATA: &str = "RomFS file data";
const PATH: &str = "RomFS path";
const BUILDER: &str = "RomFS builder";

/// "No entry" in a link field.
const NONE: u32 = u32::MAX;
const DIRECTORY_ENTRY_SIZE: u64 = 0x18;
const FILE_ENTRY_SIZE: u64 = 0x20;
/// The largest meta table an image may have; real ones are a few MiB.
const MAX_TABLE_SIZE: u64 = 256 << 20;
/// The longest name an entry may have (Horizon's longest path, FS_MAX_PATH).
const MAX_NAME: u64 = 0x300;
/// Where [`build`] puts the file data, and how it aligns each file (as Nintendo's images do).
const BUILD_DATA_OFFSET: u64 = 0x200;
const BUILD_FILE_ALIGNMENT: usize = 0x10;

/// An entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub kind: EntryKind,
}

/// Whether a listed entry is a file (with its size) or a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File { size: u64 },
    Directory,
}

/// A RomFS, from an image or from an extracted folder. Paths are absolute and '/'-separated ("/a/b.txt"); "."
/// and ".." components are refused.
pub struct RomFs {
    /// Names the image or folder in errors.
    label: String,
    source: Source,
}

enum Source {
    Image(Image),
    /// The canonical path of the folder.
    Folder(PathBuf),
}

/// A parsed image: its meta tables in memory, the file data read on demand.
struct Image {
    storage: Storage,
    directories: Vec<u8>,
    directories_at: u64,
    files: Vec<u8>,
    files_at: u64,
    data_offset: u64,
}

/// Where an image's bytes are.
enum Storage {
    Bytes(Vec<u8>),
    /// `len` bytes of `file` from `start`.
    File {
        file: File,
        start: u64,
        len: u64,
    },
}

impl Storage {
    fn len(&self) -> u64 {
        match self {
            Self::Bytes(bytes) => bytes.len() as u64,
            Self::File { len, .. } => *len,
        }
    }

    /// Fills `buffer` from `offset`; the caller has checked that the range is inside the image.
    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> std::io::Result<()> {
        match self {
            Self::Bytes(bytes) => {
                buffer.copy_from_slice(&bytes[offset as usize..offset as usize + buffer.len()]);
                Ok(())
            }
            Self::File { file, start, .. } => file.read_exact_at(buffer, start + offset),
        }
    }
}

/// A directory entry as stored.
#[derive(Clone)]
struct DirectoryRecord {
    sibling: u32,
    first_directory: u32,
    first_file: u32,
    name: Vec<u8>,
}

/// A file entry as stored.
#[derive(Clone)]
struct FileRecord {
    sibling: u32,
    data_offset: u64,
    size: u64,
    name: Vec<u8>,
}

/// An entry type of an image's meta tables, for the bounded walk along sibling links.
/// The name after the record at `offset`, its size the word at `size_at` in the record: at most `MAX_NAME`
/// bytes (each step of a walk copies one).
fn record_name(r: &Reader, offset: u64, size_at: u64, entry_size: u64, table: &str) -> Result<Vec<u8>, LoadError> {
    let size = u64::from(r.u32(offset + size_at, table)?);
    if size > MAX_NAME {
        return Err(r.error(table, offset + size_at, Problem::TooLarge { size, limit: MAX_NAME }));
    }
    Ok(r.bytes(offset + entry_size, size, table)?.to_vec())
}

trait Record: Sized {
    const TABLE: &'static str;
    const ENTRY_SIZE: u64;
    fn table(image: &Image) -> (&[u8], u64);
    fn read(r: &Reader, offset: u64) -> Result<Self, LoadError>;
    fn sibling(&self) -> u32;
    fn name(&self) -> &[u8];
}

impl Record for DirectoryRecord {
    const TABLE: &'static str = DIRECTORY_TABLE;
    const ENTRY_SIZE: u64 = DIRECTORY_ENTRY_SIZE;

    fn table(image: &Image) -> (&[u8], u64) {
        (&image.directories, image.directories_at)
    }

    fn read(r: &Reader, offset: u64) -> Result<Self, LoadError> {
        Ok(Self {
            sibling: r.u32(offset + 4, DIRECTORY_TABLE)?,
            first_directory: r.u32(offset + 8, DIRECTORY_TABLE)?,
            first_file: r.u32(offset + 0xC, DIRECTORY_TABLE)?,
            name: record_name(r, offset, 0x14, Self::ENTRY_SIZE, Self::TABLE)?,
        })
    }

    fn sibling(&self) -> u32 {
        self.sibling
    }

    fn name(&self) -> &[u8] {
        &self.name
    }
}

impl Record for FileRecord {
    const TABLE: &'static str = FILE_TABLE;
    const ENTRY_SIZE: u64 = FILE_ENTRY_SIZE;

    fn table(image: &Image) -> (&[u8], u64) {
        (&image.files, image.files_at)
    }

    fn read(r: &Reader, offset: u64) -> Result<Self, LoadError> {
        Ok(Self {
            sibling: r.u32(offset + 4, FILE_TABLE)?,
            data_offset: r.u64(offset + 8, FILE_TABLE)?,
            size: r.u64(offset + 0x10, FILE_TABLE)?,
            name: record_name(r, offset, 0x1C, Self::ENTRY_SIZE, Self::TABLE)?,
        })
    }

    fn sibling(&self) -> u32 {
        self.sibling
    }

    fn name(&self) -> &[u8] {
        &self.name
    }
}

/// What a path names in an image.
enum Node {
    Directory(DirectoryRecord),
    File(FileRecord),
}

impl RomFs {
    /// Opens a RomFS image file, reading only its header and meta tables now.
    pub fn open_image(path: &Path) -> Result<Self, LoadError> {
        let label = path.display().to_string();
        let host_error = |error| LoadError::without_offset(&label, HEADER, io_problem(&error, &label));
        let file = File::open(path).map_err(host_error)?;
        let len = file.metadata().map_err(host_error)?.len();
        Self::from_storage(label, Storage::File { file, start: 0, len })
    }

    /// Opens a RomFS image stored at `range` inside a file (such as the RomFS asset of an NRO). Errors give
    /// offsets within the image.
    pub fn open_image_range(path: &Path, range: Range<u64>) -> Result<Self, LoadError> {
        let label = format!("{} (RomFS at {:#x})", path.display(), range.start);
        let host_error = |error| LoadError::without_offset(&label, HEADER, io_problem(&error, &label));
        let file = File::open(path).map_err(host_error)?;
        let file_len = file.metadata().map_err(host_error)?.len();
        if range.start > range.end || range.end > file_len {
            let problem =
                Problem::PastEnd { start: range.start, size: range.end.saturating_sub(range.start), end: file_len };
            return Err(LoadError::without_offset(&label, HEADER, problem));
        }
        Self::from_storage(label, Storage::File { file, start: range.start, len: range.end - range.start })
    }

    /// A RomFS image held in memory.
    pub fn from_bytes(label: &str, bytes: Vec<u8>) -> Result<Self, LoadError> {
        Self::from_storage(label.to_owned(), Storage::Bytes(bytes))
    }

    /// An extracted RomFS: a host folder whose files are the RomFS's files. Symbolic links are followed only
    /// while they stay inside the folder.
    pub fn open_folder(path: &Path) -> Result<Self, LoadError> {
        let label = path.display().to_string();
        let root =
            path.canonicalize().map_err(|error| LoadError::without_offset(&label, PATH, io_problem(&error, &label)))?;
        if !root.is_dir() {
            return Err(LoadError::without_offset(&label, PATH, Problem::NotADirectory { path: label.clone() }));
        }
        Ok(Self { label, source: Source::Folder(root) })
    }

    fn from_storage(label: String, storage: Storage) -> Result<Self, LoadError> {
        let image = Image::open(&label, storage)?;
        Ok(Self { label, source: Source::Image(image) })
    }

    /// The entries of the directory at `path`: directories, then files, each in stored order (sorted by name for
    /// a folder, and for images made by [`build`]).
    pub fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, LoadError> {
        let components = self.components(path)?;
        match &self.source {
            Source::Image(image) => image.list_dir(&self.label, path, &components),
            Source::Folder(root) => list_folder(&self.label, root, path, &components),
        }
    }

    /// The size of the image, for programs that read the RomFS raw (fsp-srv's data storage); `None` for a folder
    /// (see [`RomFs::to_image`]).
    pub fn image_len(&self) -> Option<u64> {
        match &self.source {
            Source::Image(image) => Some(image.storage.len()),
            Source::Folder(_) => None,
        }
    }

    /// Up to `len` bytes of the image from `offset` (fewer at its end, none past it); `None` for a folder.
    pub fn read_image(&self, offset: u64, len: u64) -> Option<Result<Vec<u8>, LoadError>> {
        let Source::Image(image) = &self.source else { return None };
        let end = offset.saturating_add(len).min(image.storage.len());
        let mut bytes = vec![0; end.saturating_sub(offset) as usize];
        Some(
            image
                .storage
                .read_at(offset, &mut bytes)
                .map(|()| bytes)
                .map_err(|error| LoadError::at(&self.label, HEADER, offset, io_problem(&error, &self.label))),
        )
    }

    /// The same files as an image built in memory (an image is returned as a copy of itself).
    pub fn to_image(&self) -> Result<RomFs, LoadError> {
        let mut files = Vec::new();
        let mut pending = vec![String::new()];
        while let Some(directory) = pending.pop() {
            for entry in self.list_dir(if directory.is_empty() { "/" } else { &directory })? {
                let path = format!("{directory}/{}", entry.name);
                match entry.kind {
                    EntryKind::Directory => pending.push(path),
                    EntryKind::File { .. } => {
                        let data = self.read_file(&path)?;
                        files.push((path, data));
                    }
                }
            }
        }
        let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(path, data)| (path.as_str(), data.as_slice())).collect();
        RomFs::from_bytes(&format!("{} (as an image)", self.label), build(&borrowed)?)
    }

    /// The entries of the root directory.
    pub fn root(&self) -> Result<Vec<DirEntry>, LoadError> {
        self.list_dir("/")
    }

    /// The size of the file at `path`.
    pub fn file_size(&self, path: &str) -> Result<u64, LoadError> {
        let components = self.components(path)?;
        match &self.source {
            Source::Image(image) => Ok(image.file(&self.label, path, &components)?.1),
            Source::Folder(root) => {
                let host = resolve_in_folder(&self.label, root, path, &components)?;
                let metadata = host
                    .metadata()
                    .map_err(|error| LoadError::without_offset(&self.label, PATH, io_problem(&error, path)))?;
                if !metadata.is_file() {
                    return Err(LoadError::without_offset(
                        &self.label,
                        PATH,
                        Problem::NotAFile { path: path.to_owned() },
                    ));
                }
                Ok(metadata.len())
            }
        }
    }

    /// The whole file at `path`.
    pub fn read_file(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        let size = self.file_size(path)?;
        self.read_file_range(path, 0, size)
    }

    /// Up to `len` bytes of the file at `path` from `offset` (fewer at the end of the file, none past it).
    pub fn read_file_range(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>, LoadError> {
        let components = self.components(path)?;
        match &self.source {
            Source::Image(image) => image.read_file_range(&self.label, path, &components, offset, len),
            Source::Folder(root) => {
                let host = resolve_in_folder(&self.label, root, path, &components)?;
                read_host_range(&self.label, path, &host, offset, len)
            }
        }
    }

    fn components<'p>(&self, path: &'p str) -> Result<Vec<&'p str>, LoadError> {
        components(path).map_err(|problem| LoadError::without_offset(&self.label, PATH, problem))
    }
}

impl Image {
    fn open(label: &str, storage: Storage) -> Result<Self, LoadError> {
        let mut header = vec![0; HEADER_SIZE.min(storage.len()) as usize];
        storage.read_at(0, &mut header).map_err(|error| LoadError::at(label, HEADER, 0, io_problem(&error, label)))?;
        let r = Reader::new(label, &header);
        let fields = (0..10).map(|index| r.u64(8 * index, HEADER)).collect::<Result<Vec<_>, _>>()?;
        if fields[0] != HEADER_SIZE {
            let expected = format!("{HEADER_SIZE:#x}");
            return Err(r.error(HEADER, 0, Problem::BadValue { value: fields[0], expected }));
        }
        let (directories_at, files_at, data_offset) = (fields[3], fields[7], fields[9]);
        let directories = read_table(label, &storage, 0x18, directories_at, fields[4], DIRECTORY_TABLE)?;
        let files = read_table(label, &storage, 0x38, files_at, fields[8], FILE_TABLE)?;
        if data_offset > storage.len() {
            let problem = Problem::PastEnd { start: data_offset, size: 0, end: storage.len() };
            return Err(r.error(HEADER, 0x48, problem));
        }
        let image = Self { storage, directories, directories_at, files, files_at, data_offset };
        image.record::<DirectoryRecord>(label, 0)?; // the root
        Ok(image)
    }

    /// The record at `offset` of its table.
    fn record<R: Record>(&self, label: &str, offset: u32) -> Result<R, LoadError> {
        let (table, at) = R::table(self);
        R::read(&Reader::with_base(label, table, at), offset.into())
    }

    /// Walks the sibling chain from `first` until `visit` returns a value. The walk stops with
    /// [`Problem::Cycle`] after more steps than the table has entries.
    fn walk<R: Record, T>(
        &self,
        label: &str,
        first: u32,
        mut visit: impl FnMut(u32, R) -> Result<Option<T>, LoadError>,
    ) -> Result<Option<T>, LoadError> {
        let (table, at) = R::table(self);
        let limit = table.len() as u64 / R::ENTRY_SIZE + 1;
        let mut offset = first;
        let mut steps = 0;
        while offset != NONE {
            steps += 1;
            if steps > limit {
                return Err(LoadError::at(label, R::TABLE, at.saturating_add(offset.into()), Problem::Cycle { limit }));
            }
            let record: R = self.record(label, offset)?;
            let sibling = record.sibling();
            if let Some(found) = visit(offset, record)? {
                return Ok(Some(found));
            }
            offset = sibling;
        }
        Ok(None)
    }

    /// The entry named `name` in a chain, if any.
    fn find<R: Record>(&self, label: &str, first: u32, name: &str) -> Result<Option<(u32, R)>, LoadError> {
        self.walk(label, first, |offset, record: R| Ok((record.name() == name.as_bytes()).then_some((offset, record))))
    }

    fn lookup(&self, label: &str, path: &str, components: &[&str]) -> Result<Node, LoadError> {
        let mut offset = 0;
        let mut directory: DirectoryRecord = self.record(label, 0)?;
        for (index, name) in components.iter().enumerate() {
            if let Some((child_offset, child)) = self.find::<DirectoryRecord>(label, directory.first_directory, name)? {
                (offset, directory) = (child_offset, child);
                continue;
            }
            let file = self.find::<FileRecord>(label, directory.first_file, name)?;
            let at = self.directories_at.saturating_add(offset.into());
            return match file {
                Some((_, file)) if index + 1 == components.len() => Ok(Node::File(file)),
                Some(_) => Err(LoadError::at(label, PATH, at, Problem::NotADirectory { path: path.to_owned() })),
                None => Err(LoadError::at(label, PATH, at, Problem::NotFound { path: path.to_owned() })),
            };
        }
        Ok(Node::Directory(directory))
    }

    fn list_dir(&self, label: &str, path: &str, components: &[&str]) -> Result<Vec<DirEntry>, LoadError> {
        let Node::Directory(directory) = self.lookup(label, path, components)? else {
            return Err(LoadError::without_offset(label, PATH, Problem::NotADirectory { path: path.to_owned() }));
        };
        let mut entries = Vec::new();
        self.walk(label, directory.first_directory, |offset, child: DirectoryRecord| {
            let name = utf8_name(label, DIRECTORY_TABLE, self.directories_at, offset, child.name)?;
            entries.push(DirEntry { name, kind: EntryKind::Directory });
            Ok(None::<()>)
        })?;
        self.walk(label, directory.first_file, |offset, file: FileRecord| {
            let name = utf8_name(label, FILE_TABLE, self.files_at, offset, file.name)?;
            entries.push(DirEntry { name, kind: EntryKind::File { size: file.size } });
            Ok(None::<()>)
        })?;
        Ok(entries)
    }

    /// The file at `path`: where its data starts in the image, and its size (checked to lie in the image).
    fn file(&self, label: &str, path: &str, components: &[&str]) -> Result<(u64, u64), LoadError> {
        let Node::File(file) = self.lookup(label, path, components)? else {
            return Err(LoadError::without_offset(label, PATH, Problem::NotAFile { path: path.to_owned() }));
        };
        let start = self.data_offset.checked_add(file.data_offset);
        match start {
            Some(start) if start.checked_add(file.size).is_some_and(|end| end <= self.storage.len()) => {
                Ok((start, file.size))
            }
            _ => {
                let start = start.unwrap_or(u64::MAX);
                let problem = Problem::PastEnd { start, size: file.size, end: self.storage.len() };
                Err(LoadError::at(label, FILE_DATA, start, problem))
            }
        }
    }

    fn read_file_range(
        &self,
        label: &str,
        path: &str,
        components: &[&str],
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, LoadError> {
        let (start, size) = self.file(label, path, components)?;
        let offset = offset.min(size);
        // At most the file's size, which lies inside the image.
        let mut buffer = vec![0; len.min(size - offset) as usize];
        let at = start + offset;
        self.storage
            .read_at(at, &mut buffer)
            .map_err(|error| LoadError::at(label, FILE_DATA, at, io_problem(&error, path)))?;
        Ok(buffer)
    }
}

/// Reads a meta table whose (offset, size) pair is at `field` of the header.
fn read_table(
    label: &str,
    storage: &Storage,
    field: u64,
    offset: u64,
    size: u64,
    structure: &str,
) -> Result<Vec<u8>, LoadError> {
    if size > MAX_TABLE_SIZE {
        return Err(LoadError::at(label, structure, field + 8, Problem::TooLarge { size, limit: MAX_TABLE_SIZE }));
    }
    if offset.checked_add(size).is_none_or(|end| end > storage.len()) {
        let problem = Problem::PastEnd { start: offset, size, end: storage.len() };
        return Err(LoadError::at(label, structure, field, problem));
    }
    let mut table = vec![0; size as usize];
    storage
        .read_at(offset, &mut table)
        .map_err(|error| LoadError::at(label, structure, offset, io_problem(&error, label)))?;
    Ok(table)
}

fn utf8_name(label: &str, table: &str, table_at: u64, offset: u32, name: Vec<u8>) -> Result<String, LoadError> {
    String::from_utf8(name)
        .map_err(|_| LoadError::at(label, table, table_at.saturating_add(offset.into()), Problem::NotUtf8))
}

/// The problem for a failed host operation on `path`.
fn io_problem(error: &std::io::Error, path: &str) -> Problem {
    if error.kind() == std::io::ErrorKind::NotFound {
        Problem::NotFound { path: path.to_owned() }
    } else {
        Problem::Io(error.to_string())
    }
}

/// Splits "/a/b" into ["a", "b"]; "/" is the root (no components). A trailing '/' is allowed.
fn components(path: &str) -> Result<Vec<&str>, Problem> {
    let bad = |reason| Problem::BadPath { path: path.to_owned(), reason };
    let rest = path.strip_prefix('/').ok_or_else(|| bad("it must start with '/'"))?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    rest.split('/')
        .map(|component| match component {
            "" => Err(bad("it has an empty component")),
            "." | ".." => Err(bad("'.' and '..' are not allowed")),
            _ if component.contains('\0') => Err(bad("it contains a NUL byte")),
            _ => Ok(component),
        })
        .collect()
}

/// The host path of a RomFS path inside `root`, with symbolic links resolved; it must stay inside `root`.
fn resolve_in_folder(label: &str, root: &Path, path: &str, components: &[&str]) -> Result<PathBuf, LoadError> {
    let joined: PathBuf = components.iter().fold(root.to_path_buf(), |joined, component| joined.join(component));
    let resolved =
        joined.canonicalize().map_err(|error| LoadError::without_offset(label, PATH, io_problem(&error, path)))?;
    if !resolved.starts_with(root) {
        return Err(LoadError::without_offset(label, PATH, Problem::OutsideFolder { path: path.to_owned() }));
    }
    Ok(resolved)
}

fn list_folder(label: &str, root: &Path, path: &str, components: &[&str]) -> Result<Vec<DirEntry>, LoadError> {
    let directory = resolve_in_folder(label, root, path, components)?;
    if !directory.is_dir() {
        return Err(LoadError::without_offset(label, PATH, Problem::NotADirectory { path: path.to_owned() }));
    }
    let host_error = |error: std::io::Error| LoadError::without_offset(label, PATH, io_problem(&error, path));
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(&directory).map_err(host_error)? {
        let entry = entry.map_err(host_error)?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            tracing::warn!(folder = label, entry = ?entry.file_name(), "skipping a name that is not UTF-8");
            continue;
        };
        let inside = entry.path().canonicalize().ok().filter(|resolved| resolved.starts_with(root));
        let Some(metadata) = inside.and_then(|resolved| resolved.metadata().ok()) else {
            tracing::warn!(folder = label, entry = name, "skipping an entry that leads outside the folder or nowhere");
            continue;
        };
        let kind = if metadata.is_dir() { EntryKind::Directory } else { EntryKind::File { size: metadata.len() } };
        entries.push(DirEntry { name, kind });
    }
    entries.sort_by(|a, b| (a.kind != EntryKind::Directory, &a.name).cmp(&(b.kind != EntryKind::Directory, &b.name)));
    Ok(entries)
}

fn read_host_range(label: &str, path: &str, host: &Path, offset: u64, len: u64) -> Result<Vec<u8>, LoadError> {
    let host_error = |error: std::io::Error| LoadError::without_offset(label, PATH, io_problem(&error, path));
    if !host.is_file() {
        return Err(LoadError::without_offset(label, PATH, Problem::NotAFile { path: path.to_owned() }));
    }
    let mut file = File::open(host).map_err(host_error)?;
    file.seek(SeekFrom::Start(offset)).map_err(host_error)?;
    let mut buffer = Vec::new();
    file.take(len).read_to_end(&mut buffer).map_err(host_error)?;
    Ok(buffer)
}

/// Nintendo's RomFS hash of an entry: over its parent directory's offset and its name's bytes (switchbrew
/// "RomFS"; the bytes are unsigned).
fn path_hash(parent: u32, name: &[u8]) -> u32 {
    name.iter().fold(parent ^ 123_456_789, |hash, &byte| hash.rotate_right(5) ^ u32::from(byte))
}

/// The number of buckets Nintendo's tools give a hash table of `entries` entries.
fn hash_table_count(entries: u32) -> u32 {
    match entries {
        0..3 => 3,
        3..19 => entries | 1,
        _ => {
            let mut count = entries;
            while [2, 3, 5, 7, 11, 13, 17].iter().any(|prime| count.is_multiple_of(*prime)) {
                count += 1;
            }
            count
        }
    }
}

/// A directory while [`build`] collects files.
#[derive(Default)]
struct TreeDirectory<'a> {
    directories: BTreeMap<&'a str, TreeDirectory<'a>>,
    files: BTreeMap<&'a str, &'a [u8]>,
}

/// A directory of the built image, in table order.
struct PlacedDirectory<'a> {
    name: &'a str,
    parent: usize,
    directories: Vec<usize>,
    files: Vec<usize>,
}

/// A file of the built image, in table order.
struct PlacedFile<'a> {
    name: &'a str,
    parent: usize,
    data: &'a [u8],
}

/// Builds a RomFS image holding `files` ((path, contents); directories are implied by the paths). Entries are
/// sorted by name; the hash tables use Nintendo's hash and bucket counts.
pub fn build(files: &[(&str, &[u8])]) -> Result<Vec<u8>, LoadError> {
    let cannot = |reason: String| LoadError::without_offset("RomFS image", BUILDER, Problem::CannotWrite(reason));
    let mut root = TreeDirectory::default();
    for (path, data) in files {
        let components =
            components(path).map_err(|problem| LoadError::without_offset("RomFS image", BUILDER, problem))?;
        let Some((file_name, parents)) = components.split_last() else {
            return Err(cannot(format!("{path:?} names the root, not a file")));
        };
        let mut directory = &mut root;
        for name in parents {
            if directory.files.contains_key(name) {
                return Err(cannot(format!("{path:?}: {name:?} is both a file and a directory")));
            }
            directory = directory.directories.entry(name).or_default();
        }
        if directory.directories.contains_key(file_name) || directory.files.insert(file_name, data).is_some() {
            return Err(cannot(format!("{path:?} is given twice, or also as a directory")));
        }
    }
    let (directories, placed_files) = place(&root);
    serialize(&directories, &placed_files).ok_or_else(|| cannot("the meta tables would pass 4 GiB".into()))
}

/// Flattens the tree: the root first, each directory's children together and after their parent; files grouped
/// by directory in the same order.
fn place<'a>(root: &'a TreeDirectory<'a>) -> (Vec<PlacedDirectory<'a>>, Vec<PlacedFile<'a>>) {
    let mut directories = vec![PlacedDirectory { name: "", parent: 0, directories: Vec::new(), files: Vec::new() }];
    let mut trees = vec![root];
    let mut pending = vec![0];
    while let Some(index) = pending.pop() {
        let tree = trees[index];
        for (name, child) in &tree.directories {
            let child_index = directories.len();
            directories.push(PlacedDirectory { name, parent: index, directories: Vec::new(), files: Vec::new() });
            trees.push(child);
            directories[index].directories.push(child_index);
        }
        // Visit children first to last.
        pending.extend(directories[index].directories.iter().rev());
    }
    let mut files = Vec::new();
    for (index, tree) in trees.iter().enumerate() {
        for (name, data) in &tree.files {
            directories[index].files.push(files.len());
            files.push(PlacedFile { name, parent: index, data });
        }
    }
    (directories, files)
}

/// Offsets of consecutive entries of the given sizes, and their total; `None` past 32-bit offsets.
fn entry_offsets(sizes: impl Iterator<Item = u64>) -> Option<(Vec<u32>, u64)> {
    let mut offsets = Vec::new();
    let mut total = 0u64;
    for size in sizes {
        offsets.push(u32::try_from(total).ok()?);
        total += size;
    }
    Some((offsets, total))
}

/// Lays out and writes the image: header, file data from 0x200, then the hash and meta tables. `None` if a table
/// offset would not fit in 32 bits.
fn serialize(directories: &[PlacedDirectory], files: &[PlacedFile]) -> Option<Vec<u8>> {
    let name_size = |name: &str| (name.len() as u64).next_multiple_of(4);
    let (directory_offsets, directory_table_size) =
        entry_offsets(directories.iter().map(|d| DIRECTORY_ENTRY_SIZE + name_size(d.name)))?;
    let (file_offsets, file_table_size) = entry_offsets(files.iter().map(|f| FILE_ENTRY_SIZE + name_size(f.name)))?;

    let link =
        |offsets: &[u32], indices: &[usize], position: usize| indices.get(position).map_or(NONE, |&i| offsets[i]);
    let directory_hashes = directories.iter().map(|d| (directory_offsets[d.parent], d.name));
    let (directory_buckets, directory_next) = hash_chains(&directory_offsets, directory_hashes)?;
    let file_hashes = files.iter().map(|f| (directory_offsets[f.parent], f.name));
    let (file_buckets, file_next) = hash_chains(&file_offsets, file_hashes)?;

    let mut w = ByteWriter::default();
    w.pad_to(BUILD_DATA_OFFSET as usize);
    let mut data_offsets = Vec::with_capacity(files.len());
    for file in files {
        w.align(BUILD_FILE_ALIGNMENT);
        data_offsets.push((w.position() as u64) - BUILD_DATA_OFFSET);
        w.bytes(file.data);
    }
    w.align(4);
    let directory_hash_at = w.position() as u64;
    for bucket in &directory_buckets {
        w.u32(*bucket);
    }
    let directory_table_at = w.position() as u64;
    for (index, directory) in directories.iter().enumerate() {
        // The root is its own parent but not its own child, so it gets no sibling.
        let parent = &directories[directory.parent];
        let position_in_parent = parent.directories.iter().position(|&i| i == index).map_or(usize::MAX, |p| p + 1);
        w.u32(directory_offsets[directory.parent])
            .u32(link(&directory_offsets, &parent.directories, position_in_parent))
            .u32(link(&directory_offsets, &directory.directories, 0))
            .u32(link(&file_offsets, &directory.files, 0))
            .u32(directory_next[index])
            .u32(directory.name.len() as u32)
            .padded(directory.name.as_bytes(), name_size(directory.name) as usize);
    }
    let file_hash_at = w.position() as u64;
    for bucket in &file_buckets {
        w.u32(*bucket);
    }
    let file_table_at = w.position() as u64;
    for (index, file) in files.iter().enumerate() {
        let siblings = &directories[file.parent].files;
        let position = siblings.iter().position(|&i| i == index).map_or(usize::MAX, |p| p + 1);
        w.u32(directory_offsets[file.parent])
            .u32(link(&file_offsets, siblings, position))
            .u64(data_offsets[index])
            .u64(file.data.len() as u64)
            .u32(file_next[index])
            .u32(file.name.len() as u32)
            .padded(file.name.as_bytes(), name_size(file.name) as usize);
    }

    let mut image = w.into_bytes();
    let mut header = ByteWriter::default();
    header.u64(HEADER_SIZE);
    for (at, size) in [
        (directory_hash_at, 4 * directory_buckets.len() as u64),
        (directory_table_at, directory_table_size),
        (file_hash_at, 4 * file_buckets.len() as u64),
        (file_table_at, file_table_size),
    ] {
        header.u64(at).u64(size);
    }
    header.u64(BUILD_DATA_OFFSET);
    image[..HEADER_SIZE as usize].copy_from_slice(&header.into_bytes());
    Some(image)
}

/// Builds hash buckets for entries at `offsets` with (parent offset, name): each bucket holds the last entry that
/// hashed to it, each entry the one before it (or [`NONE`]). Returns (buckets, next link of each entry).
fn hash_chains<'a>(offsets: &[u32], entries: impl Iterator<Item = (u32, &'a str)>) -> Option<(Vec<u32>, Vec<u32>)> {
    let count = hash_table_count(u32::try_from(offsets.len()).ok()?);
    let mut buckets = vec![NONE; count as usize];
    let mut next = Vec::with_capacity(offsets.len());
    for (index, (parent, name)) in entries.enumerate() {
        let bucket = &mut buckets[(path_hash(parent, name.as_bytes()) % count) as usize];
        next.push(*bucket);
        *bucket = offsets[index];
    }
    Some((buckets, next))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use proptest::collection::vec;
    use proptest::prelude::*;

    use super::*;
    use crate::loader::test_support::{edits, get_u32, mutate, put_u32, put_u64};

    fn sample_files() -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("/a.txt", b"hello".to_vec()),
            ("/dir/b.bin", (0..300u32).map(|i| i as u8).collect()),
            ("/dir/sub/c", Vec::new()),
            ("/dir/z", b"z".to_vec()),
            ("/\u{fc}.txt", b"utf8".to_vec()),
        ]
    }

    fn build_from(files: &[(&str, Vec<u8>)]) -> Result<Vec<u8>, LoadError> {
        let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(path, data)| (*path, data.as_slice())).collect();
        build(&borrowed)
    }

    fn sample_image() -> Vec<u8> {
        build_from(&sample_files()).unwrap()
    }

    fn u64_at(bytes: &[u8], offset: u64) -> u64 {
        u64::from_le_bytes(bytes[offset as usize..offset as usize + 8].try_into().unwrap())
    }

    fn dir(name: &str) -> DirEntry {
        DirEntry { name: name.into(), kind: EntryKind::Directory }
    }

    fn file(name: &str, size: u64) -> DirEntry {
        DirEntry { name: name.into(), kind: EntryKind::File { size } }
    }

    /// The listings of every directory of the sample, as the builder sorts them.
    fn expected_listings() -> [(&'static str, Vec<DirEntry>); 3] {
        [
            ("/", vec![dir("dir"), file("a.txt", 5), file("\u{fc}.txt", 4)]),
            ("/dir", vec![dir("sub"), file("b.bin", 300), file("z", 1)]),
            ("/dir/sub/", vec![file("c", 0)]),
        ]
    }

    fn assert_matches_sample(romfs: &RomFs) {
        for (path, listing) in expected_listings() {
            assert_eq!(romfs.list_dir(path).unwrap(), listing, "{path}");
        }
        assert_eq!(romfs.root().unwrap(), expected_listings()[0].1);
        for (path, data) in sample_files() {
            assert_eq!(romfs.read_file(path).unwrap(), data, "{path}");
            assert_eq!(romfs.file_size(path).unwrap(), data.len() as u64, "{path}");
        }
        assert_eq!(
            romfs.read_file_range("/dir/b.bin", 290, 100).unwrap(),
            (290..300u32).map(|i| i as u8).collect::<Vec<_>>()
        );
        assert_eq!(romfs.read_file_range("/dir/b.bin", 400, 5).unwrap(), Vec::<u8>::new());
    }

    /// A folder under the system temporary directory, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let path = std::env::temp_dir().join(format!("tandem-romfs-{tag}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn write(&self, path: &str, data: &[u8]) {
            let host = self.0.join(path.trim_start_matches('/'));
            fs::create_dir_all(host.parent().unwrap()).unwrap();
            fs::write(host, data).unwrap();
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn path_hash_and_bucket_counts_match_the_reference_code() {
        // Values from switchbrew's calc_path_hash / romfs_get_hash_table_count, run separately (Python).
        assert_eq!(path_hash(0, b""), 0x075b_cd15);
        assert_eq!(path_hash(0, b"a.txt"), 0x70bc_9af4);
        assert_eq!(path_hash(0, b"dir"), 0xcb2a_0ec6);
        assert_eq!(path_hash(0x18, b"sub"), 0x2eda_0ed6);
        assert_eq!(path_hash(0, "\u{fc}.txt".as_bytes()), 0xc038_95a3);
        let counts: Vec<_> = [0, 2, 3, 4, 7, 18, 19, 20, 24, 100, 1000].map(hash_table_count).into();
        assert_eq!(counts, [3, 3, 3, 5, 7, 19, 19, 23, 29, 101, 1007]);
    }

    #[test]
    fn reads_what_it_builds() {
        assert_matches_sample(&RomFs::from_bytes("romfs.bin", sample_image()).unwrap());
    }

    #[test]
    fn built_image_follows_the_documented_layout() {
        let image = sample_image();
        assert_eq!(u64_at(&image, 0), 0x50);
        assert_eq!(u64_at(&image, 0x48), 0x200);
        // Root at directory table offset 0: parent 0, no sibling, child "dir" right after it (0x18 bytes, empty
        // name), first file at file table offset 0, name size 0.
        let root = u64_at(&image, 0x18);
        assert_eq!([0, 4, 8, 0xC, 0x14].map(|field| get_u32(&image, root + field)), [0, NONE, 0x18, 0, 0]);
        // First file "a.txt": parent 0, data at 0x200 + 0, size 5.
        let a = u64_at(&image, 0x38);
        assert_eq!(&image[a as usize + 0x20..][..5], b"a.txt");
        assert_eq!((u64_at(&image, a + 8), u64_at(&image, a + 0x10)), (0, 5));
        assert_eq!(&image[0x200..0x205], b"hello");
    }

    /// Finds every entry again through the hash tables, as Horizon's lookups do.
    #[test]
    fn hash_tables_lead_to_every_entry() {
        let image = sample_image();
        let header = |index: u64| u64_at(&image, 8 * index);
        for (hash_at, hash_size, table_at, table_size, entry_size, name_size_field) in [
            (header(1), header(2), header(3), header(4), DIRECTORY_ENTRY_SIZE, 0x14),
            (header(5), header(6), header(7), header(8), FILE_ENTRY_SIZE, 0x1C),
        ] {
            let buckets = (hash_size / 4) as u32;
            let mut offset = 0;
            while offset < table_size {
                let entry = table_at + offset;
                let name_size = u64::from(get_u32(&image, entry + name_size_field));
                let name = &image[(entry + entry_size) as usize..][..name_size as usize];
                let bucket = path_hash(get_u32(&image, entry), name) % buckets;
                let mut link = get_u32(&image, hash_at + 4 * u64::from(bucket));
                while link != offset as u32 {
                    assert_ne!(link, NONE, "entry at {offset:#x} is missing from its bucket");
                    link = get_u32(&image, table_at + u64::from(link) + name_size_field - 4);
                }
                offset += entry_size + name_size.next_multiple_of(4);
            }
        }
    }

    #[test]
    fn paths_are_checked() {
        let romfs = RomFs::from_bytes("romfs.bin", sample_image()).unwrap();
        let problem = |result: Result<Vec<u8>, LoadError>| result.unwrap_err().problem;
        assert!(matches!(problem(romfs.read_file("a.txt")), Problem::BadPath { .. }));
        assert!(matches!(problem(romfs.read_file("/dir/../a.txt")), Problem::BadPath { .. }));
        assert!(matches!(problem(romfs.read_file("/dir//z")), Problem::BadPath { .. }));
        assert_eq!(problem(romfs.read_file("/nope")), Problem::NotFound { path: "/nope".into() });
        assert_eq!(problem(romfs.read_file("/a.txt/x")), Problem::NotADirectory { path: "/a.txt/x".into() });
        assert_eq!(problem(romfs.read_file("/dir")), Problem::NotAFile { path: "/dir".into() });
        assert_eq!(romfs.list_dir("/a.txt").unwrap_err().problem, Problem::NotADirectory { path: "/a.txt".into() });
    }

    #[test]
    fn builder_refuses_conflicting_paths() {
        for files in [
            vec![("/a", b"1".to_vec()), ("/a", b"2".to_vec())],
            vec![("/a", b"1".to_vec()), ("/a/b", b"2".to_vec())],
            vec![("/a/b", b"1".to_vec()), ("/a", b"2".to_vec())],
            vec![("/", b"1".to_vec())],
        ] {
            assert!(matches!(build_from(&files).unwrap_err().problem, Problem::CannotWrite(_)), "{files:?}");
        }
        assert!(matches!(build_from(&[("/../x", Vec::new())]).unwrap_err().problem, Problem::BadPath { .. }));
    }

    #[test]
    fn empty_image_has_an_empty_root() {
        assert_eq!(RomFs::from_bytes("empty", build(&[]).unwrap()).unwrap().root().unwrap(), []);
    }

    /// Where the sample's tables are, for the hostile-image cases.
    fn table_offsets(image: &[u8]) -> (u64, u64) {
        (u64_at(image, 0x18), u64_at(image, 0x38))
    }

    /// A way to break the sample image, what to do with it, and the error that must follow.
    struct HostileCase {
        name: &'static str,
        mutate: fn(&mut Vec<u8>),
        operation: fn(&RomFs) -> Result<(), LoadError>,
        structure: &'static str,
        problem: fn(&Problem) -> bool,
    }

    /// Opening the image is the whole operation.
    fn open_only(_: &RomFs) -> Result<(), LoadError> {
        Ok(())
    }

    fn list_root(romfs: &RomFs) -> Result<(), LoadError> {
        romfs.root().map(drop)
    }

    #[test]
    fn hostile_images_give_typed_errors() {
        let cases = [
            HostileCase {
                name: "directory sibling loops to itself",
                mutate: |f| {
                    let (dirs, _) = table_offsets(f);
                    put_u32(f, dirs + 0x18 + 4, 0x18);
                },
                operation: list_root,
                structure: DIRECTORY_TABLE,
                problem: |p| matches!(p, Problem::Cycle { .. }),
            },
            HostileCase {
                name: "file sibling loops back to the first file",
                mutate: |f| {
                    let (_, files) = table_offsets(f);
                    let second = 0x20 + 8; // after "a.txt": 0x20 bytes of fields, 8 of name
                    put_u32(f, files + second + 4, 0);
                },
                operation: |r| r.read_file("/nope").map(drop),
                structure: FILE_TABLE,
                problem: |p| matches!(p, Problem::Cycle { .. }),
            },
            HostileCase {
                name: "child directory out of range",
                mutate: |f| {
                    let (dirs, _) = table_offsets(f);
                    put_u32(f, dirs + 8, 0x7FFF_0000);
                },
                operation: list_root,
                structure: DIRECTORY_TABLE,
                problem: |p| matches!(p, Problem::Truncated { .. }),
            },
            HostileCase {
                name: "name size past the table",
                mutate: |f| {
                    let (_, files) = table_offsets(f);
                    put_u32(f, files + 0x1C, 0x300);
                },
                operation: list_root,
                structure: FILE_TABLE,
                problem: |p| matches!(p, Problem::Truncated { .. }),
            },
            HostileCase {
                name: "name longer than any path",
                mutate: |f| {
                    let (dirs, _) = table_offsets(f);
                    put_u32(f, dirs + 0x18 + 0x14, u32::MAX);
                },
                operation: list_root,
                structure: DIRECTORY_TABLE,
                problem: |p| *p == Problem::TooLarge { size: u64::from(u32::MAX), limit: MAX_NAME },
            },
            HostileCase {
                name: "name not UTF-8",
                mutate: |f| {
                    let (_, files) = table_offsets(f);
                    f[files as usize + 0x20] = 0xFF;
                },
                operation: list_root,
                structure: FILE_TABLE,
                problem: |p| *p == Problem::NotUtf8,
            },
            HostileCase {
                name: "file data past the end",
                mutate: |f| {
                    let (_, files) = table_offsets(f);
                    put_u64(f, files + 0x10, 1 << 40);
                },
                operation: |r| r.read_file("/a.txt").map(drop),
                structure: FILE_DATA,
                problem: |p| matches!(p, Problem::PastEnd { start: 0x200, size: 0x100_0000_0000, .. }),
            },
            HostileCase {
                name: "header size",
                mutate: |f| put_u64(f, 0, 0x28),
                operation: open_only,
                structure: HEADER,
                problem: |p| matches!(p, Problem::BadValue { value: 0x28, .. }),
            },
            HostileCase {
                name: "file table past the end",
                mutate: |f| put_u64(f, 0x38, 0x10_0000),
                operation: open_only,
                structure: FILE_TABLE,
                problem: |p| matches!(p, Problem::PastEnd { start: 0x10_0000, .. }),
            },
            HostileCase {
                name: "huge directory table",
                mutate: |f| put_u64(f, 0x20, 1 << 40),
                operation: open_only,
                structure: DIRECTORY_TABLE,
                problem: |p| matches!(p, Problem::TooLarge { .. }),
            },
            HostileCase {
                name: "file data offset past the end",
                mutate: |f| put_u64(f, 0x48, 1 << 40),
                operation: open_only,
                structure: HEADER,
                problem: |p| matches!(p, Problem::PastEnd { start: 0x100_0000_0000, .. }),
            },
        ];
        for case in cases {
            let mut image = sample_image();
            (case.mutate)(&mut image);
            let result = RomFs::from_bytes("hostile", image).and_then(|romfs| (case.operation)(&romfs));
            let error = result.expect_err(case.name);
            assert_eq!(error.structure, case.structure, "{}: {error}", case.name);
            assert!((case.problem)(&error.problem), "{}: {error}", case.name);
        }
    }

    #[test]
    fn truncated_header_is_reported() {
        let image = sample_image();
        for cut in [0, 8, 0x4F] {
            let error = RomFs::from_bytes("short", image[..cut].to_vec()).err().unwrap();
            assert_eq!(error.structure, HEADER);
            assert!(matches!(error.problem, Problem::Truncated { .. }), "{error}");
        }
    }

    #[test]
    fn image_file_and_embedded_range_read_like_memory() {
        let temp = TempDir::new("image");
        let path = temp.0.join("romfs.bin");
        fs::write(&path, sample_image()).unwrap();
        assert_matches_sample(&RomFs::open_image(&path).unwrap());

        let module = crate::loader::test_support::sample_module("hello.nro", crate::loader::ModuleFormat::Nro);
        let romfs = sample_image();
        let assets = crate::loader::nro::NroAssetData { romfs: &romfs, ..Default::default() };
        let nro_path = temp.0.join("hello.nro");
        fs::write(&nro_path, crate::loader::nro::write(&module, Some(&assets)).unwrap()).unwrap();
        let nro = crate::loader::nro::read("hello.nro", &fs::read(&nro_path).unwrap()).unwrap();
        let range = nro.assets.unwrap().romfs.unwrap();
        let embedded = RomFs::open_image_range(&nro_path, range.start as u64..range.end as u64).unwrap();
        assert_matches_sample(&embedded);
        assert!(RomFs::open_image_range(&nro_path, 0..0x10_0000).is_err());
        assert!(matches!(RomFs::open_image(&temp.0.join("absent")).err().unwrap().problem, Problem::NotFound { .. }));
    }

    #[test]
    fn extracted_folder_reads_like_the_image() {
        let temp = TempDir::new("folder");
        for (path, data) in sample_files() {
            temp.write(path, &data);
        }
        assert_matches_sample(&RomFs::open_folder(&temp.0).unwrap());
    }

    #[test]
    fn folder_never_follows_links_outside() {
        let outside = TempDir::new("outside");
        outside.write("/secret", b"secret");
        let temp = TempDir::new("links");
        temp.write("/dir/inside.txt", b"inside");
        std::os::unix::fs::symlink(&outside.0, temp.0.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.0.join("secret"), temp.0.join("escape.txt")).unwrap();
        std::os::unix::fs::symlink(temp.0.join("dir"), temp.0.join("alias")).unwrap();

        let romfs = RomFs::open_folder(&temp.0).unwrap();
        assert_eq!(romfs.root().unwrap(), [dir("alias"), dir("dir")]);
        assert_eq!(romfs.read_file("/alias/inside.txt").unwrap(), b"inside");
        for path in ["/escape.txt", "/escape/secret"] {
            assert_eq!(romfs.read_file(path).unwrap_err().problem, Problem::OutsideFolder { path: path.into() });
        }
        assert!(matches!(romfs.read_file("/../escape").unwrap_err().problem, Problem::BadPath { .. }));
        assert_eq!(romfs.file_size("/dir").unwrap_err().problem, Problem::NotAFile { path: "/dir".into() });
        assert_eq!(romfs.list_dir("/missing").unwrap_err().problem, Problem::NotFound { path: "/missing".into() });
    }

    /// Lists and reads everything reachable (to a bounded depth), ignoring errors: hostile input must only ever
    /// produce errors.
    fn visit_everything(romfs: &RomFs, path: &str, depth: usize) {
        let Ok(entries) = romfs.list_dir(path) else {
            return;
        };
        for entry in entries {
            let child = format!("{}/{}", path.trim_end_matches('/'), entry.name);
            match entry.kind {
                EntryKind::Directory if depth > 0 => visit_everything(romfs, &child, depth - 1),
                EntryKind::Directory => {}
                EntryKind::File { .. } => drop(romfs.read_file(&child)),
            }
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..0x400)) {
            if let Ok(romfs) = RomFs::from_bytes("fuzz", bytes) {
                visit_everything(&romfs, "/", 4);
            }
        }

        #[test]
        fn mutated_images_never_panic(edits in edits()) {
            if let Ok(romfs) = RomFs::from_bytes("fuzz", mutate(&sample_image(), &edits)) {
                visit_everything(&romfs, "/", 4);
            }
        }

        /// Directories are named [a-c] and files end in ".bin", so no path is both a file and a directory.
        #[test]
        fn built_images_read_back(
            files in proptest::collection::btree_map("(/[a-c]){0,2}/[x-z]{1,2}\\.bin", vec(any::<u8>(), 0..40), 0..12),
        ) {
            let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(path, data)| (path.as_str(), data.clone())).collect();
            let romfs = RomFs::from_bytes("built", build_from(&files).unwrap()).unwrap();
            for (path, data) in &files {
                prop_assert_eq!(&romfs.read_file(path).unwrap(), data);
            }
        }
    }
}
