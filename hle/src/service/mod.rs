//! Horizon's services, implemented on the host (HLE): the session layer the kernel hands IPC messages to, and the
//! services themselves, one module each.
//!
//! A service is an [`Interface`]: a name and a table of [`Command`]s, each declaring its id, its raw input size,
//! whether it takes the client's process id, and its buffers. [`Call::prepare`] checks a request against that
//! declaration before the command runs, so a command's code reads only arguments and buffers that are there;
//! adding a service is writing the table and the commands.
//!
//! A command that is not in a table stops the run ([`Failure::Unimplemented`]): the report names the service, the
//! command id and the caller's PC. Horizon answers a command id that does not exist with
//! [`sf::UNKNOWN_COMMAND_ID`], but Tandem cannot tell a command Horizon lacks from one Tandem lacks, and a silent
//! error result would hide the second kind.

pub mod am;
pub mod apm;
pub mod fs;
pub mod hid;
pub mod lm;
pub mod nvdrv;
mod session;
pub mod set;
pub mod sm;
pub mod time;
pub mod vi;

pub use session::{Dispatched, Sessions};

use crate::ipc::hipc::{Buffer as MapAlias, Message, ReceiveEntry, Static};
use crate::ipc::{ResultCode, sf};
use crate::loader::romfs::RomFs;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use tandem_reference::memory::GuestMemory;

/// An object a session (or a domain entry) serves.
pub type SharedObject = Rc<RefCell<dyn Object>>;

/// How a buffer reaches the server (libnx's `SfBufferAttr`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BufferKind {
    /// Type 0x5: an A descriptor, read in place.
    InMapAlias,
    /// Type 0x6: a B descriptor, written in place.
    OutMapAlias,
    /// Type 0x9 (0x19 fixed size): an X descriptor, copied to the server.
    InPointer,
    /// Type 0xA (0x1A fixed size): a C receive-list entry the server's reply fills.
    OutPointer,
    /// Type 0x21: an A and an X descriptor; the client fills one of them.
    InAutoSelect,
    /// Type 0x22: a B descriptor and a C entry; the client gives one of them.
    OutAutoSelect,
}

/// One command of an interface, declared.
pub struct Command<S> {
    pub id: u32,
    pub name: &'static str,
    /// Bytes of raw arguments the command reads.
    pub input: usize,
    /// The command takes the client's process id (the special header's PID).
    pub pid: bool,
    pub buffers: &'static [BufferKind],
    pub run: fn(&mut S, &mut Call) -> Result<(), Failure>,
}

impl<S> Command<S> {
    /// A command with no arguments, process id or buffers.
    pub const fn new(id: u32, name: &'static str, run: fn(&mut S, &mut Call) -> Result<(), Failure>) -> Command<S> {
        Command { id, name, input: 0, pid: false, buffers: &[], run }
    }

    pub const fn input(self, bytes: usize) -> Command<S> {
        Command { input: bytes, ..self }
    }

    pub const fn pid(self) -> Command<S> {
        Command { pid: true, ..self }
    }

    pub const fn buffers(self, buffers: &'static [BufferKind]) -> Command<S> {
        Command { buffers, ..self }
    }
}

/// A service interface: its name and its command table.
pub trait Interface: Sized + 'static {
    const NAME: &'static str;
    /// What QueryPointerBufferSize answers: the room for pointer (X) data in the server.
    const POINTER_BUFFER_SIZE: u16 = 0x500;
    const COMMANDS: &'static [Command<Self>];
}

/// What the session layer needs of an interface (implemented for every [`Interface`]).
pub trait Object {
    fn interface_name(&self) -> &'static str;
    fn pointer_buffer_size(&self) -> u16;
    fn handle(&mut self, command_id: u32, call: &mut Call) -> Result<(), Failure>;
}

impl<T: Interface> Object for T {
    fn interface_name(&self) -> &'static str {
        T::NAME
    }

    fn pointer_buffer_size(&self) -> u16 {
        T::POINTER_BUFFER_SIZE
    }

    fn handle(&mut self, command_id: u32, call: &mut Call) -> Result<(), Failure> {
        let Some(command) = T::COMMANDS.iter().find(|command| command.id == command_id) else {
            return Err(Failure::Unimplemented { interface: T::NAME, command_id, what: None });
        };
        tracing::debug!(target: "tandem::ipc", "{}::{} ({command_id})", T::NAME, command.name);
        call.prepare(command.input, command.pid, command.buffers)?;
        (command.run)(self, call)
    }
}

/// Why a command did not complete normally.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Failure {
    /// Horizon's answer: the result code goes back to the client.
    Result(ResultCode),
    /// Tandem does not implement this: the run stops with a report.
    Unimplemented { interface: &'static str, command_id: u32, what: Option<String> },
    /// The GPU stopped a channel the request submitted work to: the run stops with a report.
    Gpu(tandem_gpu::front_end::GpuError),
}

impl From<ResultCode> for Failure {
    fn from(result: ResultCode) -> Failure {
        Failure::Result(result)
    }
}

/// A buffer a command was given: where it is in the client's memory, and how its data travels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GuestBuffer {
    pub address: u64,
    pub size: u64,
    /// Written through the receive list (the reply then carries a pointer descriptor with this index).
    pub pointer_reply: Option<u8>,
}

/// One command's run: its arguments and buffers in, its outputs out.
pub struct Call<'a> {
    pub memory: &'a GuestMemory,
    /// Guest time at the request, in counter ticks (19.2 MHz).
    pub ticks: u64,
    message: &'a Message,
    arguments: &'a [u8],
    /// The client's process id, when the command takes it.
    pub pid: u64,
    buffers: Vec<GuestBuffer>,
    /// The raw outputs, in order.
    pub output: Vec<u8>,
    /// Objects the command makes (each becomes a moved session handle, or a domain object id).
    pub new_objects: Vec<SharedObject>,
    /// Pointer replies written so far.
    pub statics: Vec<Static>,
    /// Events the command gives the client (each becomes a copied handle to the event's readable side).
    pub copy_events: Vec<ServiceEvent>,
    /// Shared memory the command gives the client (each becomes a copied handle), after the events.
    pub copy_shared_memories: Vec<ServiceSharedMemory>,
    /// For the kernel: a session to the service of this name the program serves itself (sm's GetServiceHandle).
    pub connect_service: Option<String>,
    /// For the kernel: a port for the program to serve this service on, with its session limit (RegisterService).
    pub register_service: Option<(String, u32)>,
    /// A name the program's service leaves sm with (UnregisterService); the kernel drops it.
    pub unregister_service: Option<String>,
}

impl<'a> Call<'a> {
    pub fn new(memory: &'a GuestMemory, ticks: u64, message: &'a Message, arguments: &'a [u8]) -> Call<'a> {
        Call {
            memory,
            ticks,
            message,
            arguments,
            pid: 0,
            buffers: Vec::new(),
            output: Vec::new(),
            new_objects: Vec::new(),
            statics: Vec::new(),
            copy_events: Vec::new(),
            copy_shared_memories: Vec::new(),
            connect_service: None,
            register_service: None,
            unregister_service: None,
        }
    }

    /// Checks the request against a command's declaration and takes its buffers, in declaration order: the n-th
    /// map-alias buffer of a direction is the n-th A (or B) descriptor, the n-th pointer buffer the n-th X
    /// descriptor (or receive-list entry).
    fn prepare(&mut self, input: usize, pid: bool, kinds: &[BufferKind]) -> Result<(), Failure> {
        if self.arguments.len() < input {
            return Err(sf::INVALID_HEADER_SIZE.into());
        }
        if pid {
            self.pid = self.message.pid.ok_or(Failure::Result(sf::INVALID_HEADER_SIZE))?;
        }
        let receive_entries: &[ReceiveEntry] = self.message.receive_list.entries();
        let (mut sends, mut receives, mut statics, mut entries) = (0, 0, 0, 0);
        let map_alias = |list: &[MapAlias], next: &mut usize| {
            let buffer = list.get(*next).copied();
            *next += 1;
            buffer.map(|b| GuestBuffer { address: b.address, size: b.size, pointer_reply: None })
        };
        let pointer_in = |next: &mut usize| {
            let buffer = self.message.statics.get(*next).copied();
            *next += 1;
            buffer.map(|s| GuestBuffer { address: s.address, size: u64::from(s.size), pointer_reply: None })
        };
        let pointer_out = |next: &mut usize| {
            let entry = receive_entries.get(*next).copied();
            let index = *next as u8;
            *next += 1;
            entry.map(|e| GuestBuffer { address: e.address, size: u64::from(e.size), pointer_reply: Some(index) })
        };
        let mut buffers = Vec::with_capacity(kinds.len());
        for &kind in kinds {
            let buffer = match kind {
                BufferKind::InMapAlias => map_alias(&self.message.sends, &mut sends),
                BufferKind::OutMapAlias => map_alias(&self.message.receives, &mut receives),
                BufferKind::InPointer => pointer_in(&mut statics),
                BufferKind::OutPointer => pointer_out(&mut entries),
                BufferKind::InAutoSelect => {
                    let (a, x) = (map_alias(&self.message.sends, &mut sends), pointer_in(&mut statics));
                    choose(a, x)
                }
                BufferKind::OutAutoSelect => {
                    let (b, c) = (map_alias(&self.message.receives, &mut receives), pointer_out(&mut entries));
                    choose(b, c)
                }
            };
            buffers.push(buffer.ok_or(Failure::Result(sf::INVALID_HEADER_SIZE))?);
        }
        if sends != self.message.sends.len() || receives != self.message.receives.len() {
            return Err(sf::INVALID_HEADER_SIZE.into());
        }
        self.buffers = buffers;
        Ok(())
    }

    fn argument_bytes<const N: usize>(&self, offset: usize) -> [u8; N] {
        self.arguments[offset..offset + N].try_into().expect("prepare checked the declared input size")
    }

    /// `length` bytes of arguments from `offset` (within the declared input).
    pub fn argument_slice(&self, offset: usize, length: usize) -> &[u8] {
        &self.arguments[offset..offset + length]
    }

    /// The request is a TIPC one (whose arguments some commands lay out differently from CMIF's).
    pub fn is_tipc(&self) -> bool {
        crate::ipc::cmif::Kind::of(self.message.message_type) == Ok(crate::ipc::cmif::Kind::Tipc)
    }

    /// Bytes of arguments the request carries (at least the declared input).
    pub fn input_len(&self) -> usize {
        self.arguments.len()
    }

    /// The 32-bit argument at `offset` (within the declared input).
    pub fn u32(&self, offset: usize) -> u32 {
        u32::from_le_bytes(self.argument_bytes(offset))
    }

    /// The 64-bit argument at `offset` (within the declared input).
    pub fn u64(&self, offset: usize) -> u64 {
        u64::from_le_bytes(self.argument_bytes(offset))
    }

    pub fn push_u32(&mut self, value: u32) {
        self.output.extend_from_slice(&value.to_le_bytes());
    }

    pub fn push_u64(&mut self, value: u64) {
        self.output.extend_from_slice(&value.to_le_bytes());
    }

    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.output.extend_from_slice(bytes);
    }

    /// The `n`-th declared buffer.
    pub fn buffer(&self, n: usize) -> GuestBuffer {
        self.buffers[n]
    }

    /// The first `limit` bytes (or all, if fewer) of the `n`-th declared buffer. The limit is the command's: a
    /// guest may name gigabytes, and the host reads no more than the command uses.
    pub fn read_buffer(&self, n: usize, limit: usize) -> Result<Vec<u8>, Failure> {
        self.read_buffer_at(n, 0, limit)
    }

    /// `limit` bytes (or fewer, to its end) at `offset` into the `n`-th declared buffer: large inputs come in in
    /// pieces this way, as `write_buffer_at` sends large results out.
    pub fn read_buffer_at(&self, n: usize, offset: u64, limit: usize) -> Result<Vec<u8>, Failure> {
        let buffer = self.buffers[n];
        let mut bytes = vec![0; (limit as u64).min(buffer.size.saturating_sub(offset)) as usize];
        let address = buffer.address + offset.min(buffer.size);
        self.memory.read(address, &mut bytes).map_err(|_| Failure::Result(INVALID_CURRENT_MEMORY))?;
        Ok(bytes)
    }

    /// Writes `data` to the start of the `n`-th declared buffer, cut to its size; returns the bytes written.
    pub fn write_buffer(&mut self, n: usize, data: &[u8]) -> Result<usize, Failure> {
        self.write_buffer_at(n, 0, data)
    }

    /// Writes `data` at `offset` into the `n`-th declared buffer, cut to its size; returns the bytes written.
    /// Large results go out in pieces this way, so the host never holds a guest-sized copy at once.
    pub fn write_buffer_at(&mut self, n: usize, offset: u64, data: &[u8]) -> Result<usize, Failure> {
        let buffer = self.buffers[n];
        let length = (data.len() as u64).min(buffer.size.saturating_sub(offset)) as usize;
        let address = buffer.address + offset.min(buffer.size);
        self.memory.write(address, &data[..length]).map_err(|_| Failure::Result(INVALID_CURRENT_MEMORY))?;
        if let Some(index) = buffer.pointer_reply {
            let size = (offset + length as u64) as u16;
            match self.statics.iter_mut().find(|s| s.index == index) {
                Some(existing) => existing.size = existing.size.max(size),
                None => self.statics.push(Static { index, address: buffer.address, size }),
            }
        }
        Ok(length)
    }
}

/// An event a service signals and hands to its client as a copied handle. The kernel makes the kernel event the
/// first time a handle to it goes out, and carries the service's signals and clears into it after each request.
#[derive(Clone, Default)]
pub struct ServiceEvent(Rc<RefCell<ServiceEventState>>);

#[derive(Default)]
pub struct ServiceEventState {
    /// The kernel's event, once made.
    pub kernel_event: Option<u64>,
    /// The last signal (`true`) or clear (`false`) the kernel has not carried out yet.
    pub pending: Option<bool>,
}

impl ServiceEvent {
    pub fn signal(&self) {
        self.0.borrow_mut().pending = Some(true);
    }

    pub fn clear(&self) {
        self.0.borrow_mut().pending = Some(false);
    }

    /// The kernel's side.
    pub fn state(&self) -> std::cell::RefMut<'_, ServiceEventState> {
        self.0.borrow_mut()
    }

    /// What the kernel keeps: the event for as long as the service keeps it.
    pub fn watch(&self) -> WatchedEvent {
        WatchedEvent(Rc::downgrade(&self.0))
    }
}

/// A service's event as the kernel follows it; gone once the service dropped it.
pub struct WatchedEvent(std::rc::Weak<RefCell<ServiceEventState>>);

impl WatchedEvent {
    /// The signal or clear not carried out yet (`Some(None)`: none); `None` once the service has dropped the event.
    pub fn take_pending(&self) -> Option<Option<bool>> {
        self.0.upgrade().map(|state| state.borrow_mut().pending.take())
    }
}

/// Shared memory a service owns and writes (hid's input state), given to its client as a copied handle. The
/// service's bytes are the truth: the client maps the memory read-only, and the kernel copies the bytes into its
/// object (the client's mapping, when mapped) after each request and each input sample.
#[derive(Clone)]
pub struct ServiceSharedMemory(Rc<RefCell<ServiceSharedMemoryState>>);

pub struct ServiceSharedMemoryState {
    /// The kernel's object, once made.
    pub kernel_object: Option<u64>,
    pub bytes: Vec<u8>,
    /// Written since the kernel last copied the bytes.
    pub dirty: bool,
}

impl ServiceSharedMemory {
    /// `size` bytes of zeros (a whole number of pages).
    pub fn new(size: usize) -> ServiceSharedMemory {
        ServiceSharedMemory(Rc::new(RefCell::new(ServiceSharedMemoryState {
            kernel_object: None,
            bytes: vec![0; size],
            dirty: false,
        })))
    }

    pub fn write(&self, offset: usize, data: &[u8]) {
        let mut state = self.0.borrow_mut();
        state.bytes[offset..offset + data.len()].copy_from_slice(data);
        state.dirty = true;
    }

    pub fn read(&self, offset: usize, buffer: &mut [u8]) {
        buffer.copy_from_slice(&self.0.borrow().bytes[offset..offset + buffer.len()]);
    }

    /// The kernel's side.
    pub fn state(&self) -> std::cell::RefMut<'_, ServiceSharedMemoryState> {
        self.0.borrow_mut()
    }
}

/// The kernel's InvalidCurrentMemory: a buffer the client named is not mapped as it must be.
pub const INVALID_CURRENT_MEMORY: ResultCode = ResultCode::new(1, 106);

/// An auto-select buffer: the one of the pair the client filled (a non-empty map-alias buffer wins).
fn choose(map_alias: Option<GuestBuffer>, pointer: Option<GuestBuffer>) -> Option<GuestBuffer> {
    match (map_alias, pointer) {
        (Some(a), Some(p)) => Some(if a.size > 0 || p.size == 0 { a } else { p }),
        (a, p) => a.or(p),
    }
}

/// What the services know of the console and the running title.
pub struct System {
    /// An index into [`set::LANGUAGES`].
    pub language: usize,
    /// Horizon's region code: 0 Japan, 1 USA, 2 Europe, 3 Australia, 4 Hong Kong/Taiwan/Korea, 5 China.
    pub region: i32,
    pub firmware: set::FirmwareVersion,
    /// The running title's program id (its NPDM's; 0 for homebrew without one).
    pub program_id: u64,
    /// The running title's RomFS.
    pub romfs: Option<Rc<RomFs>>,
    /// The RomFS as an image, made when first asked for (a folder is built into one), once for every session.
    pub romfs_image: std::cell::OnceCell<Rc<RomFs>>,
    /// The running title's display version, from its NACP (empty without one).
    pub display_version: String,
    /// The host folder that holds save data (`fs::save`); `None`: save data is refused with a report.
    pub save_folder: Option<PathBuf>,
    /// The host folder that is the SD card; `None`: no card is inserted.
    pub sd_card_folder: Option<PathBuf>,
    /// The console's user (an AccountUid): the one the title is launched for.
    pub user: (u64, u64),
    /// Docked (console mode, boost performance) rather than handheld.
    pub docked: bool,
    /// The system clocks' time at boot, in POSIX seconds (guest time runs on from there).
    pub clock_epoch: u64,
    /// The saves open now (each opens once at a time).
    pub open_saves: fs::save::OpenSaves,
    /// The GPU and the driver state every nvdrv session shares.
    pub gpu: RefCell<nvdrv::gpu_host::GpuHost>,
    /// Layers, their buffer queues, and where shown frames go.
    pub display: RefCell<vi::display::Display>,
    /// The controllers: their configuration, shared memory and input.
    pub hid: RefCell<hid::Hid>,
    /// time's shared memory (the clocks' contexts).
    pub time_shared_memory: ServiceSharedMemory,
    /// apm's performance configurations.
    pub performance: RefCell<apm::Performance>,
}

impl Default for System {
    /// American English on a USA console with firmware 18.1.0, one user (id 1), no title, clocks at 1970-01-01.
    fn default() -> System {
        System {
            language: 1,
            region: 1,
            firmware: set::FirmwareVersion::new(18, 1, 0),
            program_id: 0,
            romfs: None,
            romfs_image: std::cell::OnceCell::new(),
            display_version: String::new(),
            save_folder: None,
            sd_card_folder: None,
            user: (1, 0),
            docked: false,
            clock_epoch: 0,
            open_saves: fs::save::OpenSaves::default(),
            gpu: RefCell::default(),
            display: RefCell::default(),
            hid: RefCell::default(),
            time_shared_memory: ServiceSharedMemory::new(0x1000),
            performance: RefCell::default(),
        }
    }
}

/// A new object of the service `name`, or `None` where Tandem has no such service.
pub fn open_service(name: &str, system: &Rc<System>) -> Option<SharedObject> {
    let object: SharedObject = match name {
        "set" => Rc::new(RefCell::new(set::Settings::new(system.clone()))),
        "set:sys" => Rc::new(RefCell::new(set::SystemSettings::new(system.clone()))),
        "lm" => Rc::new(RefCell::new(lm::LogService)),
        "nvdrv" | "nvdrv:a" | "nvdrv:s" | "nvdrv:t" => Rc::new(RefCell::new(nvdrv::NvDrv::new(system.clone()))),
        "appletOE" => Rc::new(RefCell::new(am::ApplicationProxyService::new(system.clone()))),
        "time:u" | "time:a" | "time:s" => Rc::new(RefCell::new(time::StaticService::new(system.clone()))),
        "fsp-srv" => Rc::new(RefCell::new(fs::FileSystemProxy::new(system.clone()))),
        "hid" => Rc::new(RefCell::new(hid::HidServer::new(system.clone()))),
        "apm" | "apm:am" => Rc::new(RefCell::new(apm::Manager::new(system.clone()))),
        "vi:u" => Rc::new(RefCell::new(vi::RootService::new(system.clone(), "vi:u"))),
        "vi:s" => Rc::new(RefCell::new(vi::RootService::new(system.clone(), "vi:s"))),
        "vi:m" => Rc::new(RefCell::new(vi::RootService::new(system.clone(), "vi:m"))),
        _ => return None,
    };
    Some(object)
}

/// The object behind the named port `name` (ConnectToNamedPort), or `None` where there is no such port.
pub fn open_named_port(name: &str, system: &Rc<System>) -> Option<SharedObject> {
    match name {
        "sm:" => Some(Rc::new(RefCell::new(sm::ServiceManager::new(system.clone())))),
        _ => None,
    }
}
