//! IFileSystem and IFile over a PFS0 image in a host file: an application package (.nsp) that
//! OpenFileSystemWithId opens by path. Read-only, answering as Horizon's partition file system does (LibHac's
//! `PartitionFileSystemCore`): one directory, the root, holding every file; writes are refused.

use super::host::{DirectoryListing, LIST_FILES, MODE_READ, MODE_WRITE, io_result, offset_and_size, read_to_guest};
use super::path::{PATH_BUFFER_SIZE, normalize};
use super::results;
use crate::ipc::ResultCode;
use crate::loader::pfs0::{self, Pfs0Entry};
use crate::service::{BufferKind, Call, Command, Failure, Interface};
use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::rc::Rc;

/// A partition file system's results (module 2), from Atmosphère's `fs_results.hpp`.
const INVALID_PARTITION_FILE_SYSTEM_MAGIC: ResultCode = ResultCode::new(2, 4644);
/// The data-corrupted range's first result, for the other ways a header can be broken.
const DATA_CORRUPTED: ResultCode = ResultCode::new(2, 4000);
const UNSUPPORTED_WRITE_FOR_PARTITION_FILE_SYSTEM: ResultCode = ResultCode::new(2, 6374);
const UNSUPPORTED_WRITE_FOR_PARTITION_FILE: ResultCode = ResultCode::new(2, 6376);

pub struct PackageFileSystem {
    image: Rc<File>,
    entries: Vec<Pfs0Entry>,
}

impl PackageFileSystem {
    /// The PFS0 in the host file at `path`. A missing file is PathNotFound; a broken header one of the partition
    /// file system's results (and a warning naming what is wrong, and where).
    pub fn open(path: &Path) -> Result<PackageFileSystem, ResultCode> {
        let image = File::open(path).map_err(|error| io_result(&error))?;
        let image_size = image.metadata().map_err(|error| io_result(&error))?.len();
        let label = path.display().to_string();
        let broken = |error: crate::loader::LoadError| {
            tracing::warn!(target: "tandem::fs", %error, "not a package");
            match error.problem {
                crate::loader::Problem::BadMagic { .. } => INVALID_PARTITION_FILE_SYSTEM_MAGIC,
                _ => DATA_CORRUPTED,
            }
        };
        let mut first = vec![0u8; pfs0::HEADER_SIZE.min(image_size) as usize];
        image.read_exact_at(&mut first, 0).map_err(|error| io_result(&error))?;
        let header_size = pfs0::header_size(&label, &first).map_err(broken)?;
        let mut header = vec![0u8; header_size.min(image_size) as usize];
        image.read_exact_at(&mut header, 0).map_err(|error| io_result(&error))?;
        let entries = pfs0::entries(&label, &header, image_size).map_err(broken)?;
        Ok(PackageFileSystem { image: Rc::new(image), entries })
    }

    /// The entry the path in pointer buffer 0 names: `None` for the root, PathNotFound for what is not there.
    fn entry(&self, call: &Call) -> Result<Option<&Pfs0Entry>, Failure> {
        match normalize(&call.read_buffer(0, PATH_BUFFER_SIZE)?)?.as_slice() {
            [] => Ok(None),
            [name] => {
                self.entries.iter().find(|entry| entry.name == *name).map(Some).ok_or(results::PATH_NOT_FOUND.into())
            }
            _ => Err(results::PATH_NOT_FOUND.into()),
        }
    }

    /// GetEntryType(path) -> u32: 0 the root, 1 a file.
    fn get_entry_type(&mut self, call: &mut Call) -> Result<(), Failure> {
        let kind = if self.entry(call)?.is_some() { 1 } else { 0 };
        call.push_u32(kind);
        Ok(())
    }

    /// OpenFile(u32 mode, path) -> IFile.
    fn open_file(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = call.u32(0);
        if mode & (MODE_READ | MODE_WRITE) == 0 {
            return Err(results::INVALID_ARGUMENT.into());
        }
        let entry = self.entry(call)?.ok_or(Failure::Result(results::PATH_NOT_FOUND))?.clone();
        call.new_objects.push(Rc::new(RefCell::new(PackageFile { image: self.image.clone(), entry, mode })));
        Ok(())
    }

    /// OpenDirectory(u32 mode, path) -> IDirectory: the root, listing the files when asked for files.
    fn open_directory(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = call.u32(0);
        if self.entry(call)?.is_some() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        let listed = if mode & LIST_FILES != 0 { self.entries.as_slice() } else { &[] };
        let entries = listed.iter().map(|entry| (entry.name.clone(), false, entry.size)).collect();
        call.new_objects.push(Rc::new(RefCell::new(DirectoryListing::new(entries))));
        Ok(())
    }

    /// The commands that would change the partition.
    fn write(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Err(UNSUPPORTED_WRITE_FOR_PARTITION_FILE_SYSTEM.into())
    }

    /// Commit(): nothing to commit.
    fn commit(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }
}

const PATH: BufferKind = BufferKind::InPointer;

impl Interface for PackageFileSystem {
    const NAME: &'static str = "fsp-srv::IFileSystem (package)";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "CreateFile", Self::write).input(16).buffers(&[PATH]),
        Command::new(1, "DeleteFile", Self::write).buffers(&[PATH]),
        Command::new(2, "CreateDirectory", Self::write).buffers(&[PATH]),
        Command::new(3, "DeleteDirectory", Self::write).buffers(&[PATH]),
        Command::new(4, "DeleteDirectoryRecursively", Self::write).buffers(&[PATH]),
        Command::new(5, "RenameFile", Self::write).buffers(&[PATH, PATH]),
        Command::new(6, "RenameDirectory", Self::write).buffers(&[PATH, PATH]),
        Command::new(7, "GetEntryType", Self::get_entry_type).buffers(&[PATH]),
        Command::new(8, "OpenFile", Self::open_file).input(4).buffers(&[PATH]),
        Command::new(9, "OpenDirectory", Self::open_directory).input(4).buffers(&[PATH]),
        Command::new(10, "Commit", Self::commit),
        Command::new(13, "CleanDirectoryRecursively", Self::write).buffers(&[PATH]),
    ];
}

/// IFile: one file of a package.
pub struct PackageFile {
    image: Rc<File>,
    entry: Pfs0Entry,
    mode: u32,
}

impl PackageFile {
    /// Read(u32 option, u64 offset, u64 size, out buffer) -> u64 bytes read.
    fn read(&mut self, call: &mut Call) -> Result<(), Failure> {
        if self.mode & MODE_READ == 0 {
            return Err(results::READ_NOT_PERMITTED.into());
        }
        let (offset, size) = offset_and_size(call)?;
        read_to_guest(call, &self.image, self.entry.offset, self.entry.size, offset, size)
    }

    /// Write and SetSize: refused (not permitted without the write mode, unsupported with it).
    fn write(&mut self, _call: &mut Call) -> Result<(), Failure> {
        if self.mode & MODE_WRITE == 0 {
            return Err(results::WRITE_NOT_PERMITTED.into());
        }
        Err(UNSUPPORTED_WRITE_FOR_PARTITION_FILE.into())
    }

    /// Flush(): nothing was written.
    fn flush(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }

    /// GetSize() -> u64.
    fn get_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u64(self.entry.size);
        Ok(())
    }
}

impl Interface for PackageFile {
    const NAME: &'static str = "fsp-srv::IFile (package)";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "Read", Self::read).input(24).buffers(&[BufferKind::OutMapAlias]),
        Command::new(1, "Write", Self::write).input(24).buffers(&[BufferKind::InMapAlias]),
        Command::new(2, "Flush", Self::flush),
        Command::new(3, "SetSize", Self::write).input(8),
        Command::new(4, "GetSize", Self::get_size),
    ];
}
