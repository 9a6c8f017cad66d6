//! `nvdrv` (and `nvdrv:a`, `:s`, `:t`), the NVIDIA driver service (switchbrew "NV services"): files opened by
//! device path, driven by ioctls whose number says the direction and size of their argument (Linux's encoding:
//! number, group, 14-bit size, direction). Answers are `NvResult` codes in the reply, next to the IPC result.
//!
//! Devices so far: `/dev/nvmap` ([`nvmap`]), `/dev/nvhost-ctrl-gpu` ([`ctrl_gpu`]: GetCharacteristics,
//! GetTpcMasks) and `/dev/nvhost-as-gpu` ([`as_gpu`]: GPU address spaces). The others Horizon has stop the run when opened, naming the path;
//! an ioctl a device lacks stops it too, naming the device and the number.

pub mod as_gpu;
pub mod ctrl_gpu;
pub mod nvmap;

use super::{BufferKind, Call, Command, Failure, Interface};
use as_gpu::AddressSpace;
use nvmap::NvMap;
use std::collections::BTreeMap;

/// The driver's result codes (libnx's `nvConvertError` lists them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum NvResult {
    Success = 0,
    NotImplemented = 1,
    NotSupported = 2,
    NotInitialized = 3,
    BadParameter = 4,
    InsufficientMemory = 6,
    InvalidState = 8,
    InvalidAddress = 9,
    InvalidSize = 10,
    BadValue = 11,
    AlreadyAllocated = 13,
    FileOperationFailed = 0x30003,
}

/// Files a program may have open at once.
const MAX_OPEN_FILES: usize = 1024;
/// The longest device path read.
const MAX_PATH: usize = 0x100;
/// Device paths Horizon's driver has and Tandem does not (yet).
const OTHER_DEVICES: &[&str] = &[
    "/dev/nvhost-ctrl",
    "/dev/nvhost-gpu",
    "/dev/nvhost-nvdec",
    "/dev/nvhost-nvjpg",
    "/dev/nvhost-vic",
    "/dev/nvhost-dbg-gpu",
    "/dev/nvhost-prof-gpu",
    "/dev/nvdisp-disp0",
    "/dev/nvdisp-disp1",
    "/dev/nvdcdbg",
    "/dev/nvsched-ctrl",
];

/// An ioctl number taken apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ioctl {
    pub number: u8,
    pub group: u8,
    /// Bytes of the argument.
    pub size: usize,
    /// The caller passes the argument in (`_NV_IOC_WRITE`).
    pub input: bool,
    /// The driver passes it back (`_NV_IOC_READ`).
    pub output: bool,
}

impl Ioctl {
    pub fn decode(request: u32) -> Ioctl {
        Ioctl {
            number: request as u8,
            group: (request >> 8) as u8,
            size: (request >> 16 & 0x3fff) as usize,
            input: request >> 30 & 1 != 0,
            output: request >> 31 != 0,
        }
    }
}

/// What a device answers to an ioctl: the argument to pass back, or a driver error.
pub type IoctlResult = Result<Vec<u8>, NvResult>;

/// An open file of the driver.
#[derive(Clone, Copy)]
enum File {
    NvMap,
    CtrlGpu,
    /// Its address space is in [`NvDrv::address_spaces`], under the same fd.
    AddressSpace,
}

impl File {
    fn path(self) -> &'static str {
        match self {
            File::NvMap => "/dev/nvmap",
            File::CtrlGpu => "/dev/nvhost-ctrl-gpu",
            File::AddressSpace => "/dev/nvhost-as-gpu",
        }
    }
}

/// INvDrvServices.
pub struct NvDrv {
    initialized: bool,
    files: BTreeMap<u32, File>,
    next_fd: u32,
    nvmap: NvMap,
    address_spaces: BTreeMap<u32, AddressSpace>,
}

impl Default for NvDrv {
    fn default() -> NvDrv {
        NvDrv {
            initialized: false,
            files: BTreeMap::new(),
            next_fd: 1,
            nvmap: NvMap::default(),
            address_spaces: BTreeMap::new(),
        }
    }
}

impl NvDrv {
    /// Open(in buffer: device path, not NUL-terminated) -> (u32 fd, u32 NvResult).
    fn open(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = call.read_buffer(0, MAX_PATH)?;
        let path = String::from_utf8_lossy(path.split(|&b| b == 0).next().unwrap_or_default()).into_owned();
        let (fd, result) = match path.as_str() {
            _ if !self.initialized => (0, NvResult::NotInitialized),
            _ if self.files.len() >= MAX_OPEN_FILES => (0, NvResult::InsufficientMemory),
            "/dev/nvmap" => (self.open_file(File::NvMap), NvResult::Success),
            "/dev/nvhost-ctrl-gpu" => (self.open_file(File::CtrlGpu), NvResult::Success),
            "/dev/nvhost-as-gpu" => {
                let fd = self.open_file(File::AddressSpace);
                self.address_spaces.insert(fd, AddressSpace::default());
                (fd, NvResult::Success)
            }
            other if OTHER_DEVICES.contains(&other) => {
                return Err(Failure::Unimplemented {
                    interface: Self::NAME,
                    command_id: 0,
                    what: Some(format!("Open(\"{other}\"): Tandem has no {other} device yet")),
                });
            }
            _ => (0, NvResult::FileOperationFailed),
        };
        call.push_u32(fd);
        call.push_u32(result as u32);
        Ok(())
    }

    fn open_file(&mut self, file: File) -> u32 {
        let fd = self.next_fd;
        self.next_fd += 1;
        self.files.insert(fd, file);
        fd
    }

    /// Ioctl(u32 fd, u32 request, in buffer, out buffer) -> u32 NvResult. The argument comes in when the number
    /// says so, and goes back (at the same size) when it says so.
    fn ioctl(&mut self, call: &mut Call) -> Result<(), Failure> {
        let (fd, request) = (call.u32(0), call.u32(4));
        let ioctl = Ioctl::decode(request);
        let result = match self.files.get(&fd) {
            None => Err(NvResult::BadParameter),
            Some(_) if ioctl.input && call.buffer(0).size < ioctl.size as u64 => Err(NvResult::InvalidSize),
            Some(_) if ioctl.output && call.buffer(1).size < ioctl.size as u64 => Err(NvResult::InvalidSize),
            Some(&file) => {
                let mut argument = if ioctl.input { call.read_buffer(0, ioctl.size)? } else { Vec::new() };
                argument.resize(ioctl.size, 0);
                let answer = match file {
                    File::NvMap => self.nvmap.ioctl(request, &argument),
                    File::CtrlGpu => ctrl_gpu::ioctl(request, &argument),
                    File::AddressSpace => {
                        let space = self.address_spaces.get_mut(&fd).expect("an address space per such file");
                        space.ioctl(request, &argument, &self.nvmap)
                    }
                };
                answer.ok_or_else(|| Failure::Unimplemented {
                    interface: Self::NAME,
                    command_id: 1,
                    what: Some(format!(
                        "{} ioctl {request:#010x} (group {:#x}, number {:#x})",
                        file.path(),
                        ioctl.group,
                        ioctl.number
                    )),
                })?
            }
        };
        match result {
            Ok(argument) => {
                if ioctl.output {
                    call.write_buffer(1, &argument[..ioctl.size])?;
                }
                call.push_u32(NvResult::Success as u32);
            }
            Err(error) => call.push_u32(error as u32),
        }
        Ok(())
    }

    /// Close(u32 fd) -> u32 NvResult.
    fn close(&mut self, call: &mut Call) -> Result<(), Failure> {
        let fd = call.u32(0);
        self.address_spaces.remove(&fd);
        let result = if self.files.remove(&fd).is_some() { NvResult::Success } else { NvResult::BadParameter };
        call.push_u32(result as u32);
        Ok(())
    }

    /// Initialize(u32 transfer memory size, copied process and transfer memory handles) -> u32 NvResult: the
    /// memory the driver would keep its own state in; Tandem's driver keeps it on the host.
    fn initialize(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.initialized = true;
        call.push_u32(NvResult::Success as u32);
        Ok(())
    }

    /// SetAruid(pid, u64 applet resource user id) -> u32 NvResult.
    fn set_aruid(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(NvResult::Success as u32);
        Ok(())
    }
}

impl Interface for NvDrv {
    const NAME: &'static str = "nvdrv";
    const POINTER_BUFFER_SIZE: u16 = 0x8000;
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "Open", Self::open).buffers(&[BufferKind::InMapAlias]),
        Command::new(1, "Ioctl", Self::ioctl).input(8).buffers(&[BufferKind::InAutoSelect, BufferKind::OutAutoSelect]),
        Command::new(2, "Close", Self::close).input(4),
        Command::new(3, "Initialize", Self::initialize).input(4),
        Command::new(8, "SetAruid", Self::set_aruid).input(8).pid(),
    ];
}
