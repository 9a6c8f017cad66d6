//! IFileSystem, IFile and IDirectory over a host folder (switchbrew "Filesystem services"). Every path is
//! normalised inside the folder ([`super::path`]) and symbolic links are never followed, so a program reaches
//! nothing outside it. Directory listings are sorted by name, so runs repeat exactly.

use super::path::{PATH_BUFFER_SIZE, normalize};
use super::results;
use super::save::SaveData;
use crate::ipc::ResultCode;
use crate::service::{BufferKind, Call, Command, Failure, Interface};
use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// OpenFile's mode bits.
pub(super) const MODE_READ: u32 = 1;
pub(super) const MODE_WRITE: u32 = 2;
const MODE_APPEND: u32 = 4;
/// OpenDirectory's mode bits.
const LIST_DIRECTORIES: u32 = 1;
pub(super) const LIST_FILES: u32 = 2;
/// Bytes of a directory entry: name[0x301], 3 bytes of padding, type, 3 bytes of padding, size.
const DIRECTORY_ENTRY_SIZE: usize = 0x310;
/// Reads go to the guest in pieces of this size.
const READ_CHUNK: u64 = 1 << 20;
/// The room a file system has: what GetTotalSpaceSize reports (GetFreeSpaceSize: this less what the files take);
/// a file that would grow past it gets NotEnoughFreeSpace.
const TOTAL_SPACE: u64 = 512 << 20;

/// A host I/O error as the file system service reports it.
pub(super) fn io_result(error: &std::io::Error) -> ResultCode {
    match error.kind() {
        ErrorKind::NotFound => results::PATH_NOT_FOUND,
        ErrorKind::AlreadyExists => results::PATH_ALREADY_EXISTS,
        ErrorKind::DirectoryNotEmpty => results::DIRECTORY_NOT_EMPTY,
        ErrorKind::StorageFull => results::NOT_ENOUGH_FREE_SPACE,
        _ => {
            tracing::warn!(target: "tandem::fs", %error, "host file system error");
            results::UNEXPECTED
        }
    }
}

/// `root` joined with normalised `components`, none of which may be a symbolic link (a link could lead out).
pub(super) fn confined_path(root: &Path, components: Vec<String>) -> Result<PathBuf, Failure> {
    let mut path = root.to_path_buf();
    for component in components {
        path.push(component);
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            tracing::warn!(target: "tandem::fs", path = %path.display(), "a symbolic link was refused");
            return Err(results::PATH_NOT_FOUND.into());
        }
    }
    Ok(path)
}

/// A file system rooted at a host folder; save data file systems also commit.
pub struct HostFileSystem {
    root: PathBuf,
    save: Option<SaveData>,
}

impl HostFileSystem {
    pub fn new(root: PathBuf, save: Option<SaveData>) -> HostFileSystem {
        HostFileSystem { root, save }
    }

    /// The host path of the path in pointer buffer `n`; no component of it may be a symbolic link.
    fn host_path(&self, call: &Call, n: usize) -> Result<PathBuf, Failure> {
        confined_path(&self.root, normalize(&call.read_buffer(n, PATH_BUFFER_SIZE)?)?)
    }

    fn is_root(&self, path: &Path) -> bool {
        path == self.root
    }

    /// CreateFile(u32 option, u64 size, path).
    fn create_file(&mut self, call: &mut Call) -> Result<(), Failure> {
        let (path, size) = (self.host_path(call, 0)?, call.u64(8));
        if !path.parent().is_some_and(Path::is_dir) {
            return Err(results::PATH_NOT_FOUND.into());
        }
        check_room(&self.root, size)?;
        let file = OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| io_result(&e))?;
        file.set_len(size).map_err(|e| io_result(&e))?;
        Ok(())
    }

    /// DeleteFile(path).
    fn delete_file(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = self.host_path(call, 0)?;
        if !path.is_file() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        fs::remove_file(path).map_err(|e| io_result(&e).into())
    }

    /// CreateDirectory(path).
    fn create_directory(&mut self, call: &mut Call) -> Result<(), Failure> {
        fs::create_dir(self.host_path(call, 0)?).map_err(|e| io_result(&e).into())
    }

    /// DeleteDirectory(path): only an empty one, never the root.
    fn delete_directory(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = self.directory(call)?;
        fs::remove_dir(path).map_err(|e| io_result(&e).into())
    }

    /// DeleteDirectoryRecursively(path).
    fn delete_directory_recursively(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = self.directory(call)?;
        fs::remove_dir_all(path).map_err(|e| io_result(&e).into())
    }

    /// CleanDirectoryRecursively(path): everything in it goes, the directory stays.
    fn clean_directory_recursively(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = self.host_path(call, 0)?;
        for entry in fs::read_dir(&path).map_err(|e| io_result(&e))? {
            let entry = entry.map_err(|e| io_result(&e))?;
            let removed = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                fs::remove_dir_all(entry.path())
            } else {
                fs::remove_file(entry.path())
            };
            removed.map_err(|e| io_result(&e))?;
        }
        Ok(())
    }

    /// A directory path that may be deleted: it exists and is not the root.
    fn directory(&self, call: &Call) -> Result<PathBuf, Failure> {
        let path = self.host_path(call, 0)?;
        if self.is_root(&path) {
            return Err(results::DIRECTORY_NOT_DELETABLE.into());
        }
        if !path.is_dir() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        Ok(path)
    }

    /// RenameFile(old path, new path) and RenameDirectory: the new path must not exist.
    fn rename(&mut self, call: &mut Call, directory: bool) -> Result<(), Failure> {
        let (old, new) = (self.host_path(call, 0)?, self.host_path(call, 1)?);
        if (directory && !old.is_dir()) || (!directory && !old.is_file()) {
            return Err(results::PATH_NOT_FOUND.into());
        }
        if directory && (self.is_root(&old) || new.starts_with(&old)) {
            return Err(results::DIRECTORY_NOT_RENAMABLE.into());
        }
        if fs::symlink_metadata(&new).is_ok() {
            return Err(results::PATH_ALREADY_EXISTS.into());
        }
        fs::rename(old, new).map_err(|e| io_result(&e).into())
    }

    fn rename_file(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.rename(call, false)
    }

    fn rename_directory(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.rename(call, true)
    }

    /// GetEntryType(path) -> u32: 0 directory, 1 file.
    fn get_entry_type(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = self.host_path(call, 0)?;
        let kind = match fs::metadata(&path) {
            Ok(metadata) if metadata.is_dir() => 0,
            Ok(_) => 1,
            Err(_) => return Err(results::PATH_NOT_FOUND.into()),
        };
        call.push_u32(kind);
        Ok(())
    }

    /// OpenFile(u32 mode, path) -> IFile.
    fn open_file(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = call.u32(0);
        if mode & (MODE_READ | MODE_WRITE) == 0 || mode & !(MODE_READ | MODE_WRITE | MODE_APPEND) != 0 {
            return Err(results::INVALID_ARGUMENT.into());
        }
        let path = self.host_path(call, 0)?;
        if !path.is_file() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        let file =
            OpenOptions::new().read(true).write(mode & MODE_WRITE != 0).open(&path).map_err(|e| io_result(&e))?;
        call.new_objects.push(Rc::new(RefCell::new(HostFile { file, mode, root: self.root.clone() })));
        Ok(())
    }

    /// OpenDirectory(u32 mode, path) -> IDirectory.
    fn open_directory(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = call.u32(0);
        let path = self.host_path(call, 0)?;
        if !path.is_dir() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        let mut entries = Vec::new();
        for entry in fs::read_dir(&path).map_err(|e| io_result(&e))? {
            let entry = entry.map_err(|e| io_result(&e))?;
            let metadata = entry.metadata().map_err(|e| io_result(&e))?;
            let wanted = if metadata.is_dir() { LIST_DIRECTORIES } else { LIST_FILES };
            if mode & wanted != 0 && !metadata.file_type().is_symlink() {
                let size = if metadata.is_dir() { 0 } else { metadata.len() };
                entries.push((entry.file_name().to_string_lossy().into_owned(), metadata.is_dir(), size));
            }
        }
        entries.sort();
        call.new_objects.push(Rc::new(RefCell::new(DirectoryListing::new(entries))));
        Ok(())
    }

    /// Commit(): a save data file system's changes become what the next open sees.
    fn commit(&mut self, _call: &mut Call) -> Result<(), Failure> {
        match &self.save {
            Some(save) => save.commit().map_err(|e| io_result(&e).into()),
            None => Ok(()),
        }
    }

    /// GetFreeSpaceSize(path) -> u64.
    fn get_free_space_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.host_path(call, 0)?;
        call.push_u64(TOTAL_SPACE.saturating_sub(used_bytes(&self.root)));
        Ok(())
    }

    /// GetTotalSpaceSize(path) -> u64.
    fn get_total_space_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.host_path(call, 0)?;
        call.push_u64(TOTAL_SPACE);
        Ok(())
    }
}

/// The bytes of every file under `folder` (their sizes, holes included).
fn used_bytes(folder: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(folder) else { return 0 };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(m) if m.is_dir() => used_bytes(&entry.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .fold(0, u64::saturating_add)
}

/// Whether a file system at `root` has room to grow by `growth` bytes (its total is [`TOTAL_SPACE`]).
fn check_room(root: &Path, growth: u64) -> Result<(), Failure> {
    if used_bytes(root).saturating_add(growth) > TOTAL_SPACE {
        return Err(results::NOT_ENOUGH_FREE_SPACE.into());
    }
    Ok(())
}

const PATH: BufferKind = BufferKind::InPointer;

impl Interface for HostFileSystem {
    const NAME: &'static str = "fsp-srv::IFileSystem";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "CreateFile", Self::create_file).input(16).buffers(&[PATH]),
        Command::new(1, "DeleteFile", Self::delete_file).buffers(&[PATH]),
        Command::new(2, "CreateDirectory", Self::create_directory).buffers(&[PATH]),
        Command::new(3, "DeleteDirectory", Self::delete_directory).buffers(&[PATH]),
        Command::new(4, "DeleteDirectoryRecursively", Self::delete_directory_recursively).buffers(&[PATH]),
        Command::new(5, "RenameFile", Self::rename_file).buffers(&[PATH, PATH]),
        Command::new(6, "RenameDirectory", Self::rename_directory).buffers(&[PATH, PATH]),
        Command::new(7, "GetEntryType", Self::get_entry_type).buffers(&[PATH]),
        Command::new(8, "OpenFile", Self::open_file).input(4).buffers(&[PATH]),
        Command::new(9, "OpenDirectory", Self::open_directory).input(4).buffers(&[PATH]),
        Command::new(10, "Commit", Self::commit),
        Command::new(11, "GetFreeSpaceSize", Self::get_free_space_size).buffers(&[PATH]),
        Command::new(12, "GetTotalSpaceSize", Self::get_total_space_size).buffers(&[PATH]),
        Command::new(13, "CleanDirectoryRecursively", Self::clean_directory_recursively).buffers(&[PATH]),
    ];
}

/// IFile: an open host file, its mode, and the file system's folder (whose room a growing file takes).
pub struct HostFile {
    file: File,
    mode: u32,
    root: PathBuf,
}

/// A Read or Write request's offset and size (after the u32 option word), checked as Horizon checks them.
pub(super) fn offset_and_size(call: &Call) -> Result<(u64, u64), Failure> {
    let (offset, size) = (call.u64(8) as i64, call.u64(16) as i64);
    if offset < 0 {
        return Err(results::INVALID_OFFSET.into());
    }
    if size < 0 || size as u64 > call.buffer(0).size {
        return Err(results::INVALID_SIZE.into());
    }
    Ok((offset as u64, size as u64))
}

impl HostFile {
    fn length(&self) -> Result<u64, Failure> {
        Ok(self.file.metadata().map_err(|e| io_result(&e))?.len())
    }

    /// Read(u32 option, u64 offset, u64 size, out buffer) -> u64 bytes read.
    fn read(&mut self, call: &mut Call) -> Result<(), Failure> {
        if self.mode & MODE_READ == 0 {
            return Err(results::READ_NOT_PERMITTED.into());
        }
        let (offset, size) = offset_and_size(call)?;
        let length = self.length()?;
        read_to_guest(call, &self.file, 0, length, offset, size)
    }

    /// Write(u32 option, u64 offset, u64 size, in buffer): past the end only with the append mode.
    fn write(&mut self, call: &mut Call) -> Result<(), Failure> {
        if self.mode & MODE_WRITE == 0 {
            return Err(results::WRITE_NOT_PERMITTED.into());
        }
        let (offset, size) = offset_and_size(call)?;
        let end = offset.checked_add(size).ok_or(Failure::Result(results::OUT_OF_RANGE))?;
        let length = self.length()?;
        if end > length && self.mode & MODE_APPEND == 0 {
            return Err(results::FILE_EXTENSION_WITHOUT_OPEN_MODE_ALLOW_APPEND.into());
        }
        check_room(&self.root, end.saturating_sub(length))?;
        // A piece at a time, as Read does: the host never holds a guest-sized copy.
        let total = call.buffer(0).size.min(size);
        let mut done = 0;
        while done < total {
            let piece = call.read_buffer_at(0, done, (total - done).min(READ_CHUNK) as usize)?;
            self.file.write_all_at(&piece, offset + done).map_err(|e| io_result(&e))?;
            done += piece.len() as u64;
        }
        Ok(())
    }

    /// Flush().
    fn flush(&mut self, _call: &mut Call) -> Result<(), Failure> {
        self.file.sync_data().map_err(|e| io_result(&e).into())
    }

    /// SetSize(u64 size).
    fn set_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        if self.mode & MODE_WRITE == 0 {
            return Err(results::WRITE_NOT_PERMITTED.into());
        }
        let size = i64::try_from(call.u64(0)).map_err(|_| Failure::Result(results::INVALID_SIZE))? as u64;
        check_room(&self.root, size.saturating_sub(self.length()?))?;
        self.file.set_len(size).map_err(|e| io_result(&e).into())
    }

    /// GetSize() -> u64.
    fn get_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        let length = self.length()?;
        call.push_u64(length);
        Ok(())
    }
}

/// Read's answer for a file of `length` bytes at `start` in `file`: up to `size` bytes from `offset` into the
/// output buffer, in pieces, and how many there were.
pub(super) fn read_to_guest(
    call: &mut Call,
    file: &File,
    start: u64,
    length: u64,
    offset: u64,
    size: u64,
) -> Result<(), Failure> {
    let available = length.saturating_sub(offset).min(size);
    let mut chunk = vec![0; available.min(READ_CHUNK) as usize];
    let mut done = 0;
    while done < available {
        let piece = &mut chunk[..(available - done).min(READ_CHUNK) as usize];
        file.read_exact_at(piece, start + offset + done).map_err(|e| io_result(&e))?;
        call.write_buffer_at(0, done, piece)?;
        done += piece.len() as u64;
    }
    call.push_u64(available);
    Ok(())
}

impl Interface for HostFile {
    const NAME: &'static str = "fsp-srv::IFile";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "Read", Self::read).input(24).buffers(&[BufferKind::OutMapAlias]),
        Command::new(1, "Write", Self::write).input(24).buffers(&[BufferKind::InMapAlias]),
        Command::new(2, "Flush", Self::flush),
        Command::new(3, "SetSize", Self::set_size).input(8),
        Command::new(4, "GetSize", Self::get_size),
    ];
}

/// IDirectory: a listing taken when it was opened, read in order.
pub struct DirectoryListing {
    /// (name, is a directory, size).
    entries: Vec<(String, bool, u64)>,
    next: usize,
}

impl DirectoryListing {
    pub(super) fn new(entries: Vec<(String, bool, u64)>) -> DirectoryListing {
        DirectoryListing { entries, next: 0 }
    }

    /// Read(out buffer of entries) -> u64 entries read.
    fn read(&mut self, call: &mut Call) -> Result<(), Failure> {
        let room = call.buffer(0).size as usize / DIRECTORY_ENTRY_SIZE;
        let batch: Vec<_> = self.entries.iter().skip(self.next).take(room).collect();
        let mut bytes = Vec::with_capacity(batch.len() * DIRECTORY_ENTRY_SIZE);
        for (name, is_directory, size) in &batch {
            let mut entry = [0u8; DIRECTORY_ENTRY_SIZE];
            let name = &name.as_bytes()[..name.len().min(PATH_BUFFER_SIZE - 1)];
            entry[..name.len()].copy_from_slice(name);
            entry[0x304] = if *is_directory { 0 } else { 1 };
            entry[0x308..0x310].copy_from_slice(&size.to_le_bytes());
            bytes.extend_from_slice(&entry);
        }
        self.next += batch.len();
        call.write_buffer(0, &bytes)?;
        call.push_u64(batch.len() as u64);
        Ok(())
    }

    /// GetEntryCount() -> u64.
    fn get_entry_count(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u64(self.entries.len() as u64);
        Ok(())
    }
}

impl Interface for DirectoryListing {
    const NAME: &'static str = "fsp-srv::IDirectory";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "Read", Self::read).buffers(&[BufferKind::OutMapAlias]),
        Command::new(1, "GetEntryCount", Self::get_entry_count),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::hipc::{Builder, Message, Static};
    use crate::service::Object;
    use tandem_reference::memory::{GuestMemory, Perm};

    const PAGE: u64 = 0x10000;

    /// GetEntryType(path) on `fs`, with the path in guest memory as a pointer buffer.
    fn entry_type(fs: &mut HostFileSystem, memory: &GuestMemory, path: &str) -> Result<u32, Failure> {
        let mut bytes = path.as_bytes().to_vec();
        bytes.resize(PATH_BUFFER_SIZE, 0);
        memory.write(PAGE, &bytes).unwrap();
        let builder = Builder {
            message_type: 4,
            statics: vec![Static { index: 0, address: PAGE, size: PATH_BUFFER_SIZE as u16 }],
            ..Builder::default()
        };
        let mut buffer = vec![0u8; 0x100];
        builder.write(&[0; 32], &mut buffer).unwrap();
        let message = Message::parse(&buffer).unwrap();
        let mut call = Call::new(memory, 0, &message, &[]);
        fs.handle(7, &mut call)?;
        Ok(u32::from_le_bytes(call.output[..4].try_into().unwrap()))
    }

    /// Symbolic links inside the folder are never followed, wherever they point; ordinary entries are found.
    #[test]
    fn symbolic_links_are_refused() {
        let root = std::env::temp_dir().join(format!("tandem-host-fs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("dir")).unwrap();
        fs::write(root.join("dir/file"), b"x").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("outside")).unwrap();
        std::os::unix::fs::symlink(root.join("dir"), root.join("inside")).unwrap();
        let mut memory = GuestMemory::new().unwrap();
        memory.map(PAGE, 0x1000, Perm::RW).unwrap();
        let mut host = HostFileSystem::new(root.clone(), None);
        assert_eq!(entry_type(&mut host, &memory, "/dir/file"), Ok(1));
        assert_eq!(entry_type(&mut host, &memory, "/dir"), Ok(0));
        let refused = Err(Failure::Result(results::PATH_NOT_FOUND));
        for path in ["/outside", "/outside/passwd", "/inside/file", "/dir/../outside/hosts"] {
            assert_eq!(entry_type(&mut host, &memory, path), refused, "{path}");
        }
        fs::remove_dir_all(root).unwrap();
    }
}
