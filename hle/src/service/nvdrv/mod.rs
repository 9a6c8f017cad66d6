//! `nvdrv` (and `nvdrv:a`, `:s`, `:t`), the NVIDIA driver service (switchbrew "NV services"): files opened by
//! device path, driven by ioctls whose number says the direction and size of their argument (Linux's encoding:
//! number, group, 14-bit size, direction). Answers are `NvResult` codes in the reply, next to the IPC result.
//!
//! Devices: `/dev/nvmap` ([`nvmap`]: memory objects), `/dev/nvhost-as-gpu` ([`as_gpu`]: GPU address spaces, their
//! mappings kept in the GPU's MMU), `/dev/nvhost-gpu` ([`channel`]: channels, GPFIFO submissions and fences),
//! `/dev/nvhost-ctrl` ([`ctrl`]: syncpoints and event slots) and `/dev/nvhost-ctrl-gpu` ([`ctrl_gpu`]: what the GPU
//! is). The GPU and what sessions share of the driver live in [`gpu_host::GpuHost`], in [`System`]. The other
//! devices Horizon has stop the run when opened, naming the path; an ioctl a device lacks stops it too, naming
//! the device and the number; a channel the GPU stops stops the run with the GPU's report.

pub mod as_gpu;
pub mod channel;
pub mod ctrl;
pub mod ctrl_gpu;
pub mod gpu_host;
pub mod nvmap;

use super::{BufferKind, Call, Command, Failure, Interface, System};
use as_gpu::AddressSpace;
use channel::ChannelFile;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Guest time (19.2 MHz counter ticks) in nanoseconds (GetGpuTime's unit).
pub fn ticks_to_nanoseconds(ticks: u64) -> u64 {
    (u128::from(ticks) * 625 / 12) as u64
}

/// Guest time in the GPU timer's ticks, 614.4 MHz (32 per counter tick), the unit of the timestamps semaphore
/// releases and reports write (maxwell-behaviour.md 4.2: ns = ticks x 625 / 384).
pub fn ticks_to_gpu_ticks(ticks: u64) -> u64 {
    ticks.wrapping_mul(32)
}

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
    Timeout = 5,
    InvalidState = 8,
    InvalidAddress = 9,
    InvalidSize = 10,
    BadValue = 11,
    AlreadyAllocated = 13,
    Busy = 14,
    FileOperationFailed = 0x30003,
}

/// Files a program may have open at once.
const MAX_OPEN_FILES: usize = 1024;
/// The longest device path read.
const MAX_PATH: usize = 0x100;
/// Device paths Horizon's driver has and Tandem does not (yet).
const OTHER_DEVICES: &[&str] = &[
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
#[derive(Clone, Copy, PartialEq, Eq)]
enum File {
    NvMap,
    Ctrl,
    CtrlGpu,
    /// Its address space is in [`NvDrv::address_spaces`], under the same fd.
    AddressSpace,
    /// Its channel is in [`NvDrv::channels`], under the same fd.
    Channel,
}

impl File {
    const ALL: [File; 5] = [File::NvMap, File::Ctrl, File::CtrlGpu, File::AddressSpace, File::Channel];

    fn path(self) -> &'static str {
        match self {
            File::NvMap => "/dev/nvmap",
            File::Ctrl => "/dev/nvhost-ctrl",
            File::CtrlGpu => "/dev/nvhost-ctrl-gpu",
            File::AddressSpace => "/dev/nvhost-as-gpu",
            File::Channel => "/dev/nvhost-gpu",
        }
    }
}

/// nvhost-as-gpu's BindChannel {s32 channel fd}: the one ioctl that joins two files.
const BIND_CHANNEL: u32 = 0x4004_4101;

/// INvDrvServices.
pub struct NvDrv {
    system: Rc<System>,
    initialized: bool,
    files: BTreeMap<u32, File>,
    next_fd: u32,
    address_spaces: BTreeMap<u32, AddressSpace>,
    channels: BTreeMap<u32, ChannelFile>,
}

impl NvDrv {
    pub fn new(system: Rc<System>) -> NvDrv {
        NvDrv {
            system,
            initialized: false,
            files: BTreeMap::new(),
            next_fd: 1,
            address_spaces: BTreeMap::new(),
            channels: BTreeMap::new(),
        }
    }

    /// Open(in buffer: device path, not NUL-terminated) -> (u32 fd, u32 NvResult).
    fn open(&mut self, call: &mut Call) -> Result<(), Failure> {
        let path = call.read_buffer(0, MAX_PATH)?;
        let path = String::from_utf8_lossy(path.split(|&b| b == 0).next().unwrap_or_default()).into_owned();
        let (fd, result) = match path.as_str() {
            _ if !self.initialized => (0, NvResult::NotInitialized),
            _ if self.files.len() >= MAX_OPEN_FILES => (0, NvResult::InsufficientMemory),
            "/dev/nvhost-as-gpu" => {
                let space = AddressSpace::new(self.system.gpu.borrow_mut().gpu.create_address_space());
                let fd = self.open_file(File::AddressSpace);
                self.address_spaces.insert(fd, space);
                (fd, NvResult::Success)
            }
            "/dev/nvhost-gpu" => match ChannelFile::open(&mut self.system.clone().gpu.borrow_mut()) {
                Some(channel) => {
                    let fd = self.open_file(File::Channel);
                    self.channels.insert(fd, channel);
                    (fd, NvResult::Success)
                }
                None => (0, NvResult::InsufficientMemory),
            },
            path if let Some(&file) = File::ALL.iter().find(|file| file.path() == path) => {
                (self.open_file(file), NvResult::Success)
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
        self.ioctl_with(call, None).map(drop)
    }

    /// Ioctl3(u32 fd, u32 request, in buffer, out buffer, inline out buffer) -> u32 NvResult: Ioctl, and for the
    /// ioctls whose results the driver also gives inline (ctrl-gpu GetCharacteristics and GetTpcMasks, as-gpu
    /// GetVaRegions) those results in the third buffer.
    fn ioctl3(&mut self, call: &mut Call) -> Result<(), Failure> {
        let request = call.u32(4);
        let Some(argument) = self.ioctl_with(call, None)? else { return Ok(()) };
        let inline = match request {
            ctrl_gpu::GET_CHARACTERISTICS => &argument[0x10..0xb0],
            ctrl_gpu::GET_TPC_MASKS => &argument[0x10..0x14],
            as_gpu::GET_VA_REGIONS => &argument[0x10..0x40],
            _ => return Ok(()),
        };
        let room = (call.buffer(2).size as usize).min(inline.len());
        call.write_buffer(2, &inline[..room]).map(drop)
    }

    /// Ioctl2(u32 fd, u32 request, in buffer, extra in buffer, out buffer) -> u32 NvResult: KickoffPb's entries
    /// come in the extra buffer.
    fn ioctl2(&mut self, call: &mut Call) -> Result<(), Failure> {
        let extra = call.read_buffer(1, call.buffer(1).size.min(1 << 20) as usize)?;
        self.ioctl_with(call, Some(extra)).map(drop)
    }

    /// An ioctl with its argument from buffer 0 and back to the output buffer; the argument that went back, when
    /// the ioctl succeeded.
    fn ioctl_with(&mut self, call: &mut Call, extra: Option<Vec<u8>>) -> Result<Option<Vec<u8>>, Failure> {
        let (fd, request) = (call.u32(0), call.u32(4));
        let ioctl = Ioctl::decode(request);
        let output_buffer = if extra.is_some() { 2 } else { 1 };
        let (result, argument) = match self.files.get(&fd) {
            None => (NvResult::BadParameter, None),
            Some(_) if ioctl.input && call.buffer(0).size < ioctl.size as u64 => (NvResult::InvalidSize, None),
            Some(_) if ioctl.output && call.buffer(output_buffer).size < ioctl.size as u64 => {
                (NvResult::InvalidSize, None)
            }
            Some(&file) => {
                let mut argument = if ioctl.input { call.read_buffer(0, ioctl.size)? } else { Vec::new() };
                argument.resize(ioctl.size, 0);
                let answer = self.device_ioctl(file, fd, request, &argument, extra.as_deref(), call)?;
                let (result, argument) = answer.ok_or_else(|| Failure::Unimplemented {
                    interface: Self::NAME,
                    command_id: 1,
                    what: Some(format!(
                        "{} ioctl {request:#010x} (group {:#x}, number {:#x})",
                        file.path(),
                        ioctl.group,
                        ioctl.number
                    )),
                })?;
                (result, argument)
            }
        };
        if let Some(argument) = &argument
            && ioctl.output
        {
            call.write_buffer(output_buffer, &argument[..ioctl.size])?;
        }
        // Whatever the GPU did, events whose fences it reached are signalled.
        self.system.gpu.borrow_mut().run(call.memory, call.ticks).map_err(Failure::Gpu)?;
        call.push_u32(result as u32);
        Ok(argument.filter(|_| result == NvResult::Success))
    }

    /// One device's answer: the result and the argument to pass back (`None`: nothing goes back); `Ok(None)` for
    /// an ioctl the device does not have.
    #[allow(clippy::type_complexity)]
    fn device_ioctl(
        &mut self,
        file: File,
        fd: u32,
        request: u32,
        argument: &[u8],
        extra: Option<&[u8]>,
        call: &Call,
    ) -> Result<Option<(NvResult, Option<Vec<u8>>)>, Failure> {
        let split = |answer: IoctlResult| match answer {
            Ok(argument) => (NvResult::Success, Some(argument)),
            Err(error) => (error, None),
        };
        let mut host = self.system.gpu.borrow_mut();
        let host = &mut *host;
        Ok(match file {
            File::NvMap => host.nvmap.ioctl(request, argument).map(split),
            File::CtrlGpu => ctrl_gpu::ioctl(request, argument, call.ticks).map(split),
            File::Ctrl => match ctrl::ioctl(host, request, argument, call.ticks) {
                Some(answer) => answer.map(|(result, argument)| Some((result, Some(argument))))?,
                None => None,
            },
            File::AddressSpace if request == BIND_CHANNEL => {
                let channel_fd = u32::from_le_bytes(argument[..4].try_into().expect("four bytes"));
                let space = self.address_spaces[&fd].gpu_space;
                Some(split(match self.channels.get(&channel_fd) {
                    Some(channel) => {
                        host.gpu.bind(channel.channel, space);
                        Ok(argument.to_vec())
                    }
                    None => Err(NvResult::BadParameter),
                }))
            }
            File::AddressSpace => {
                let space = self.address_spaces.get_mut(&fd).expect("an address space per such file");
                space.ioctl(request, argument, &host.nvmap, &mut host.gpu).map(split)
            }
            File::Channel => {
                let channel = self.channels.get_mut(&fd).expect("a channel per such file");
                match channel.ioctl(host, request, argument, extra, call.memory, call.ticks) {
                    Some(answer) => Some(split(answer?)),
                    None => None,
                }
            }
        })
    }

    /// QueryEvent(u32 fd, u32 event id) -> copied event handle, u32 NvResult: nvhost-ctrl's slot events
    /// (`ctrl::decode_event_id`) and a channel's events 1-3.
    fn query_event(&mut self, call: &mut Call) -> Result<(), Failure> {
        let (fd, id) = (call.u32(0), call.u32(4));
        let event = match self.files.get(&fd) {
            Some(File::Ctrl) => {
                let (slot, syncpoint) = ctrl::decode_event_id(id);
                self.system.gpu.borrow_mut().query_event(slot, syncpoint)
            }
            Some(File::Channel) => match id {
                1..=3 => Some(self.channels[&fd].events[id as usize - 1].clone()),
                _ => None,
            },
            _ => None,
        };
        match event {
            Some(event) => {
                call.copy_events.push(event);
                call.push_u32(NvResult::Success as u32);
            }
            None => call.push_u32(NvResult::BadParameter as u32),
        }
        Ok(())
    }

    /// Close(u32 fd) -> u32 NvResult.
    fn close(&mut self, call: &mut Call) -> Result<(), Failure> {
        let fd = call.u32(0);
        let mut host = self.system.gpu.borrow_mut();
        if let Some(space) = self.address_spaces.remove(&fd) {
            host.gpu.destroy_address_space(space.gpu_space);
        }
        if let Some(channel) = self.channels.remove(&fd) {
            channel.close(&mut host);
        }
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
        Command::new(4, "QueryEvent", Self::query_event).input(8),
        Command::new(8, "SetAruid", Self::set_aruid).input(8).pid(),
        Command::new(11, "Ioctl2", Self::ioctl2).input(8).buffers(&[
            BufferKind::InAutoSelect,
            BufferKind::InAutoSelect,
            BufferKind::OutAutoSelect,
        ]),
        Command::new(12, "Ioctl3", Self::ioctl3).input(8).buffers(&[
            BufferKind::InAutoSelect,
            BufferKind::OutAutoSelect,
            BufferKind::OutAutoSelect,
        ]),
    ];
}
