//! `fsp-srv`, the file system proxy (switchbrew "Filesystem services"): the title's RomFS as a storage, save
//! data and the SD card as file systems on host folders ([`save`], [`host`]), and packages on the SD card opened
//! by content path ([`package`]).

mod host;
mod package;
mod path;
pub mod save;

use super::{BufferKind, Call, Command, Failure, Interface, System};
use crate::ipc::ResultCode;
use crate::loader::romfs::RomFs;
use host::HostFileSystem;
use save::SaveData;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

/// The file system service's results (module 2), from Atmosphère's `fs_results.hpp`.
pub mod results {
    use crate::ipc::ResultCode;
    pub const PATH_NOT_FOUND: ResultCode = ResultCode::new(2, 1);
    pub const PATH_ALREADY_EXISTS: ResultCode = ResultCode::new(2, 2);
    pub const TARGET_LOCKED: ResultCode = ResultCode::new(2, 7);
    pub const DIRECTORY_NOT_EMPTY: ResultCode = ResultCode::new(2, 8);
    pub const NOT_ENOUGH_FREE_SPACE: ResultCode = ResultCode::new(2, 30);
    pub const TARGET_NOT_FOUND: ResultCode = ResultCode::new(2, 1002);
    pub const SD_CARD_NOT_PRESENT: ResultCode = ResultCode::new(2, 2001);
    pub const OUT_OF_RANGE: ResultCode = ResultCode::new(2, 3005);
    pub const UNEXPECTED: ResultCode = ResultCode::new(2, 5000);
    pub const INVALID_ARGUMENT: ResultCode = ResultCode::new(2, 6001);
    pub const TOO_LONG_PATH: ResultCode = ResultCode::new(2, 6003);
    pub const INVALID_CHARACTER: ResultCode = ResultCode::new(2, 6004);
    pub const INVALID_PATH_FORMAT: ResultCode = ResultCode::new(2, 6005);
    pub const DIRECTORY_UNOBTAINABLE: ResultCode = ResultCode::new(2, 6006);
    pub const DIRECTORY_NOT_DELETABLE: ResultCode = ResultCode::new(2, 6031);
    pub const DIRECTORY_NOT_RENAMABLE: ResultCode = ResultCode::new(2, 6032);
    pub const INVALID_OFFSET: ResultCode = ResultCode::new(2, 6061);
    pub const INVALID_SIZE: ResultCode = ResultCode::new(2, 6062);
    pub const INVALID_SAVE_DATA_SPACE_ID: ResultCode = ResultCode::new(2, 6082);
    pub const PERMISSION_DENIED: ResultCode = ResultCode::new(2, 6400);
    pub const UNEXPECTED_IN_NCA_FILE_SYSTEM_SERVICE_IMPL_A: ResultCode = ResultCode::new(2, 5320);
    pub const FILE_EXTENSION_WITHOUT_OPEN_MODE_ALLOW_APPEND: ResultCode = ResultCode::new(2, 6201);
    pub const READ_NOT_PERMITTED: ResultCode = ResultCode::new(2, 6202);
    pub const WRITE_NOT_PERMITTED: ResultCode = ResultCode::new(2, 6203);
}

/// Reads go to the guest in pieces of this size.
const READ_CHUNK: u64 = 1 << 20;
/// The most of an access log line read.
const MAX_ACCESS_LOG_LINE: usize = 0x1000;
/// Save data kinds (the attribute's type byte), as folder names.
const SAVE_DATA_KINDS: [&str; 7] = ["system", "account", "bcat", "device", "temporary", "cache", "system-bcat"];
/// Save data spaces a program may name: System, User, SdSystem, Temporary, SdUser, ProperSystem, SafeMode.
const SAVE_DATA_SPACES: [u8; 7] = [0, 1, 2, 3, 4, 100, 101];

/// OpenFileSystemWithId's file system types (FileSystemProxyType) it accepts: Logo, Control, Manual, Meta, Data
/// and Package (Code, Rom and the update partition are refused with InvalidArgument).
const CONTENT_TYPES: std::ops::RangeInclusive<u32> = 2..=7;
const PACKAGE: u32 = 7;
const META: u32 = 5;
/// The content mount names a content path may start with, besides `@Sdcard` (fs_common_mount_name.hpp) and the
/// game card's `@Gc...`: the console's content storages and partitions.
const CONSOLE_MOUNTS: [&str; 9] = [
    "@SystemContent",
    "@UserContent",
    "@SdCardContent",
    "@System",
    "@User",
    "@Safe",
    "@CalibFile",
    "@Host",
    "@RegUpdate",
];

/// Which save: the fields of a SaveDataAttribute that tell saves apart.
#[derive(Clone, Copy, Default, Debug)]
pub struct SaveDataAttribute {
    /// 0: the running program's.
    pub program_id: u64,
    pub user: (u64, u64),
    pub system_save_id: u64,
    /// 0 system, 1 account, 2 BCAT, 3 device, 4 temporary, 5 cache, 6 system BCAT.
    pub kind: u8,
    pub index: u16,
}

impl SaveDataAttribute {
    /// The attribute at `offset` in a command's arguments (0x40 bytes).
    fn read(call: &Call, offset: usize) -> SaveDataAttribute {
        let kind_word = call.u32(offset + 0x20);
        SaveDataAttribute {
            program_id: call.u64(offset),
            user: (call.u64(offset + 8), call.u64(offset + 16)),
            system_save_id: call.u64(offset + 0x18),
            kind: kind_word as u8,
            index: (kind_word >> 16) as u16,
        }
    }
}

/// The host folder of a save: `<save folder>/<program id>/<kind>/<owner>` (the owner: the user for account
/// saves, the id for system saves, the index for caches). `interface` and `command_id` name the request in the
/// report when no save folder was given.
pub fn save_folder_for(
    system: &System,
    interface: &'static str,
    command_id: u32,
    attribute: &SaveDataAttribute,
) -> Result<PathBuf, Failure> {
    let Some(root) = &system.save_folder else {
        return Err(Failure::Unimplemented {
            interface,
            command_id,
            what: Some("save data needs a host folder (`tandem run --save-dir DIR`)".into()),
        });
    };
    let program_id = if attribute.program_id == 0 { system.program_id } else { attribute.program_id };
    let owner = match attribute.kind {
        0 | 6 => format!("{:016x}", attribute.system_save_id),
        1 => format!("{:016x}{:016x}", attribute.user.0, attribute.user.1),
        5 => format!("{}", attribute.index),
        _ => "common".to_string(),
    };
    let kind = SAVE_DATA_KINDS.get(usize::from(attribute.kind)).ok_or(Failure::Result(results::INVALID_ARGUMENT))?;
    Ok(root.join(format!("{program_id:016x}")).join(kind).join(owner))
}

/// IFileSystemProxy.
pub struct FileSystemProxy {
    system: Rc<System>,
}

impl FileSystemProxy {
    pub fn new(system: Rc<System>) -> FileSystemProxy {
        FileSystemProxy { system }
    }

    /// SetCurrentProcess(pid, u64 reserved).
    fn set_current_process(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }

    /// CreateSaveDataFileSystem(SaveDataAttribute, SaveDataCreationInfo, SaveDataMetaInfo).
    fn create_save_data_file_system(&mut self, call: &mut Call) -> Result<(), Failure> {
        let folder = save_folder_for(&self.system, Self::NAME, 22, &SaveDataAttribute::read(call, 0))?;
        if folder.exists() {
            return Err(results::PATH_ALREADY_EXISTS.into());
        }
        SaveData::create(&folder).map_err(|error| {
            tracing::warn!(target: "tandem::fs", %error, folder = %folder.display(), "cannot create save data");
            Failure::Result(results::UNEXPECTED)
        })
    }

    /// OpenSaveDataFileSystem(u8 space id, SaveDataAttribute) -> IFileSystem.
    fn open_save_data_file_system(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !SAVE_DATA_SPACES.contains(&(call.u32(0) as u8)) {
            return Err(results::INVALID_SAVE_DATA_SPACE_ID.into());
        }
        let folder = save_folder_for(&self.system, Self::NAME, 51, &SaveDataAttribute::read(call, 8))?;
        if !folder.is_dir() {
            return Err(results::TARGET_NOT_FOUND.into());
        }
        let save = SaveData::open(&folder, &self.system.open_saves).map_err(|error| {
            if error.kind() == std::io::ErrorKind::ResourceBusy {
                return Failure::Result(results::TARGET_LOCKED);
            }
            tracing::warn!(target: "tandem::fs", %error, folder = %folder.display(), "cannot open save data");
            Failure::Result(results::UNEXPECTED)
        })?;
        call.new_objects.push(Rc::new(RefCell::new(HostFileSystem::new(save.working(), Some(save)))));
        Ok(())
    }

    /// OpenSdCardFileSystem() -> IFileSystem: the SD card, a host folder (made when first opened); with none, the
    /// console has no card inserted.
    fn open_sd_card_file_system(&mut self, call: &mut Call) -> Result<(), Failure> {
        let Some(folder) = &self.system.sd_card_folder else { return Err(results::SD_CARD_NOT_PRESENT.into()) };
        std::fs::create_dir_all(folder).map_err(|error| {
            tracing::warn!(target: "tandem::fs", %error, folder = %folder.display(), "cannot make the SD card folder");
            Failure::Result(results::UNEXPECTED)
        })?;
        call.new_objects.push(Rc::new(RefCell::new(HostFileSystem::new(folder.clone(), None))));
        Ok(())
    }

    /// OpenFileSystemWithId(u32 type, u64 program id, path) -> IFileSystem (command 8, firmware 2.0.0-15.0.1).
    fn open_file_system_with_id(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.open_content(call, 8, call.u32(0), call.u64(8))
    }

    /// OpenFileSystemWithId(u8 content attributes, u32 type, u64 program id, path) -> IFileSystem (command 10,
    /// firmware 16.0.0 and later).
    fn open_file_system_with_id_and_attributes(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.open_content(call, 10, call.u32(4), call.u64(8))
    }

    /// Opens content by path, checked in the order Horizon's file system service checks it (LibHac's
    /// `NcaFileSystemServiceImpl`): the type, the id, the mount name, a directory, the extension, then the file.
    /// A package (`.nsp`, type Package) on the SD card opens as its PFS0; NCAs are encrypted with the console's
    /// keys, and the console's content storages are not Tandem's to have, so those stop the run naming the path.
    fn open_content(&mut self, call: &mut Call, command_id: u32, kind: u32, id: u64) -> Result<(), Failure> {
        if !CONTENT_TYPES.contains(&kind) || (id == u64::MAX && kind != META) {
            return Err(results::INVALID_ARGUMENT.into());
        }
        let buffer = call.read_buffer(0, path::PATH_BUFFER_SIZE)?;
        let length = buffer.iter().position(|&b| b == 0).ok_or(Failure::Result(results::TOO_LONG_PATH))?;
        let text = String::from_utf8_lossy(&buffer[..length]).replace('\\', "/");
        let Some((mount, rest)) = text.split_once(':') else { return Err(results::PATH_NOT_FOUND.into()) };
        let known = mount == "@Sdcard" || CONSOLE_MOUNTS.contains(&mount) || mount.starts_with("@Gc");
        if !known || rest.is_empty() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        if rest.ends_with('/') {
            return Err(results::PERMISSION_DENIED.into());
        }
        let lower = rest.to_ascii_lowercase();
        let (is_package, is_nca) = (lower.ends_with(".nsp"), lower.ends_with(".nca"));
        if rest.len() <= 4 || !(is_package || is_nca) {
            return Err(results::PATH_NOT_FOUND.into());
        }
        if is_package != (kind == PACKAGE) {
            return Err(results::INVALID_ARGUMENT.into());
        }
        let unimplemented =
            |what: String| Failure::Unimplemented { interface: Self::NAME, command_id, what: Some(what) };
        if mount != "@Sdcard" {
            return Err(unimplemented(format!(
                "{text}: the console's content storages and game card ({mount}) are not in Tandem; packages on the \
                 SD card (@Sdcard:/....nsp) open"
            )));
        }
        if is_nca {
            return Err(results::UNEXPECTED_IN_NCA_FILE_SYSTEM_SERVICE_IMPL_A.into());
        }
        let Some(folder) = &self.system.sd_card_folder else { return Err(results::SD_CARD_NOT_PRESENT.into()) };
        let mut inside = rest.as_bytes().to_vec();
        inside.push(0);
        let host = host::confined_path(folder, path::normalize(&inside)?)?;
        if !host.is_file() {
            return Err(results::PATH_NOT_FOUND.into());
        }
        let package = package::PackageFileSystem::open(&host)?;
        call.new_objects.push(Rc::new(RefCell::new(package)));
        Ok(())
    }

    /// OpenDataStorageByCurrentProcess() -> IStorage: the title's RomFS image.
    fn open_data_storage_by_current_process(&mut self, call: &mut Call) -> Result<(), Failure> {
        let image = match (self.system.romfs_image.get(), &self.system.romfs) {
            (Some(image), _) => image.clone(),
            (None, None) => return Err(results::TARGET_NOT_FOUND.into()),
            (None, Some(romfs)) if romfs.image_len().is_some() => romfs.clone(),
            (None, Some(folder)) => Rc::new(folder.to_image().map_err(|error| {
                tracing::warn!(target: "tandem::fs", %error, "cannot build the RomFS image");
                Failure::Result(results::UNEXPECTED)
            })?),
        };
        let image = self.system.romfs_image.get_or_init(|| image).clone();
        call.new_objects.push(Rc::new(RefCell::new(RomStorage { image })));
        Ok(())
    }

    /// OpenPatchDataStorageByCurrentProcess() -> IStorage: there is no update's RomFS.
    fn open_patch_data_storage_by_current_process(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Err(results::TARGET_NOT_FOUND.into())
    }

    /// GetGlobalAccessLogMode() -> u32: 0, no access log.
    fn get_global_access_log_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(0);
        Ok(())
    }

    /// OutputAccessLogToSdCard(buffer): the SDK's access log, into tracing.
    fn output_access_log_to_sd_card(&mut self, call: &mut Call) -> Result<(), Failure> {
        let text = call.read_buffer(0, MAX_ACCESS_LOG_LINE)?;
        tracing::info!(target: "guest::fs", "{}", String::from_utf8_lossy(&text).trim_end());
        Ok(())
    }
}

impl Interface for FileSystemProxy {
    const NAME: &'static str = "fsp-srv";
    const POINTER_BUFFER_SIZE: u16 = 0x800;
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(1, "SetCurrentProcess", Self::set_current_process).input(8).pid(),
        Command::new(8, "OpenFileSystemWithId", Self::open_file_system_with_id)
            .input(16)
            .buffers(&[BufferKind::InPointer]),
        Command::new(10, "OpenFileSystemWithId", Self::open_file_system_with_id_and_attributes)
            .input(16)
            .buffers(&[BufferKind::InPointer]),
        Command::new(18, "OpenSdCardFileSystem", Self::open_sd_card_file_system),
        Command::new(22, "CreateSaveDataFileSystem", Self::create_save_data_file_system).input(0x90),
        Command::new(51, "OpenSaveDataFileSystem", Self::open_save_data_file_system).input(0x48),
        Command::new(200, "OpenDataStorageByCurrentProcess", Self::open_data_storage_by_current_process),
        Command::new(203, "OpenPatchDataStorageByCurrentProcess", Self::open_patch_data_storage_by_current_process),
        Command::new(1005, "GetGlobalAccessLogMode", Self::get_global_access_log_mode),
        Command::new(1006, "OutputAccessLogToSdCard", Self::output_access_log_to_sd_card)
            .buffers(&[BufferKind::InMapAlias]),
    ];
}

/// IStorage over the RomFS image (read-only).
pub struct RomStorage {
    image: Rc<RomFs>,
}

impl RomStorage {
    fn len(&self) -> u64 {
        self.image.image_len().expect("the proxy hands out images only")
    }

    /// Read(u64 offset, u64 size, out buffer): the whole range must lie in the image.
    fn read(&mut self, call: &mut Call) -> Result<(), Failure> {
        let (offset, size) = (call.u64(0), call.u64(8));
        if size > call.buffer(0).size {
            return Err(results::INVALID_SIZE.into());
        }
        if offset.checked_add(size).is_none_or(|end| end > self.len()) {
            return Err(results::OUT_OF_RANGE.into());
        }
        let mut done = 0;
        while done < size {
            let piece = (size - done).min(READ_CHUNK);
            let data = self.image.read_image(offset + done, piece).expect("an image").map_err(|error| {
                tracing::warn!(target: "tandem::fs", %error, "cannot read the RomFS");
                Failure::Result(ResultCode::new(2, 4001))
            })?;
            call.write_buffer_at(0, done, &data)?;
            done += piece;
        }
        Ok(())
    }

    /// Flush(): nothing to write.
    fn flush(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }

    /// GetSize() -> u64.
    fn get_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u64(self.len());
        Ok(())
    }
}

impl Interface for RomStorage {
    const NAME: &'static str = "fsp-srv::IStorage";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "Read", Self::read).input(16).buffers(&[BufferKind::OutMapAlias]),
        Command::new(2, "Flush", Self::flush),
        Command::new(4, "GetSize", Self::get_size),
    ];
}
