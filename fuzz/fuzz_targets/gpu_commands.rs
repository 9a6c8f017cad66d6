//! Random GPU work: nvdrv requests (Open of every device, ioctls of every number the devices have, with random
//! arguments, QueryEvent, Close) through the IPC layer, and random pushbuffers submitted on the channels they
//! set up. Whatever the bytes, the driver answers with an NvResult and the GPU runs, waits, or stops with a typed
//! error: never a panic.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::rc::Rc;
use tandem_hle::ipc::cmif;
use tandem_hle::ipc::hipc::{Buffer, Builder, Message};
use tandem_hle::service::{Sessions, System, open_service};
use tandem_reference::memory::{GuestMemory, Perm};

/// Guest memory: the argument page, then pages the driver may map for the GPU (nvmap objects, pushbuffers).
const ARGUMENT: u64 = 0x10000;
const GPU_MEMORY: u64 = 0x20000;
const GPU_MEMORY_SIZE: u64 = 0x10000;

const DEVICES: [&str; 6] =
    ["/dev/nvmap", "/dev/nvhost-as-gpu", "/dev/nvhost-gpu", "/dev/nvhost-ctrl", "/dev/nvhost-ctrl-gpu", "/dev/nope"];

/// Ioctl numbers the devices have (SubmitGpfifo's size comes from the argument).
const REQUESTS: [u32; 33] = [
    0xc008_0101, 0xc008_0103, 0xc020_0104, 0xc00c_0109, 0xc008_010e, // nvmap
    0x4004_4101, 0xc018_4102, 0xc010_4103, 0xc008_4105, 0xc028_4106, 0xc040_4108, 0x4028_4109, // as-gpu
    0x4004_4801, 0xc010_4809, 0xc020_481a, 0x4004_480d, 0x4004_481d, 0xc010_4817, 0x4008_4714, // channel
    0xc008_0014, 0x4004_0015, 0xc00c_0016, 0xc008_001a, 0xc004_001c, 0xc010_001d, 0xc010_001e, 0xc004_001f,
    0xc004_0020, // ctrl
    0x8004_4701, 0x8028_4702, 0xc0b0_4705, 0xc018_4706, 0xc010_471c, // ctrl-gpu
];

#[derive(Arbitrary, Debug)]
enum Action {
    /// What a program does first (libnx's order): nvmap, address space, channel, with the channel's memory the
    /// GPU memory above (mapped at the lowest small-page address, where Submit's entries point).
    SetUp,
    Open(u8),
    Close(u8),
    Ioctl { fd: u8, request: u8, argument: Vec<u8> },
    /// A SubmitGpfifo of one entry for `words`, written at `offset` of the GPU memory.
    Submit { fd: u8, flags: u16, offset: u16, words: Vec<u32>, fence: (u32, u32) },
    QueryEvent { fd: u8, id: u32 },
    /// Writes bytes into the GPU memory (semaphores, what pushbuffers read).
    Poke { offset: u16, bytes: Vec<u8> },
}

thread_local! {
    static MEMORY: GuestMemory = {
        let mut memory = GuestMemory::new().expect("guest memory");
        memory.map(ARGUMENT, 0x1000, Perm::RW).expect("the argument page");
        memory.map(GPU_MEMORY, GPU_MEMORY_SIZE, Perm::RW).expect("GPU memory");
        memory
    };
}

/// A CMIF request for `command` with `arguments`, A/B buffers over the argument page.
fn request(command: u32, arguments: &[u8], sends: usize, receives: usize) -> Vec<u8> {
    let buffer = Buffer { address: ARGUMENT, size: 0x800, mode: 0 };
    let extra = Buffer { address: ARGUMENT + 0x800, size: 0x800, mode: 0 };
    let builder = Builder {
        message_type: 4,
        sends: [buffer, extra][..sends].to_vec(),
        receives: vec![buffer; receives],
        ..Builder::default()
    };
    let offset = builder.data_offset();
    let mut data = vec![0u8; offset.next_multiple_of(16) - offset];
    data.extend_from_slice(&cmif::IN_MAGIC.to_le_bytes());
    data.extend_from_slice(&[0; 4]);
    data.extend_from_slice(&command.to_le_bytes());
    data.extend_from_slice(&[0; 4]);
    data.extend_from_slice(arguments);
    data.resize(data.len().next_multiple_of(4) + 16, 0);
    let mut out = vec![0u8; 0x400];
    let length = builder.write(&data, &mut out).expect("a request that fits");
    out.truncate(length);
    out
}

/// One nvdrv session and the guest memory its requests point into.
struct Driver<'m> {
    sessions: Sessions,
    id: u64,
    memory: &'m GuestMemory,
}

impl Driver<'_> {
    /// Sends command `command`; the reply's first output word (the NvResult), if it came.
    fn send(&mut self, command: u32, arguments: &[u8], sends: usize, receives: usize) -> Option<u32> {
        let buffer = request(command, arguments, sends, receives);
        let message = Message::parse(&buffer).expect("a well-formed request");
        let dispatched = self.sessions.dispatch(self.id, &buffer, &message, self.memory, 0).ok()?;
        let reply = dispatched.reply?;
        Some(u32::from_le_bytes(reply.raw.get(..4)?.try_into().ok()?))
    }

    fn open(&mut self, path: &str) {
        let _ = self.memory.write(ARGUMENT, path.as_bytes());
        let _ = self.memory.write(ARGUMENT + path.len() as u64, &[0]);
        self.send(0, &[], 1, 0);
    }

    fn ioctl(&mut self, fd: u32, request: u32, argument: &[u8]) {
        let _ = self.memory.write(ARGUMENT, argument);
        let words: Vec<u8> = [fd, request].iter().flat_map(|w| w.to_le_bytes()).collect();
        self.send(1, &words, 1, 1);
    }
}

/// Words as an ioctl argument.
fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fuzz_target!(|actions: Vec<Action>| {
    let system = Rc::new(System::default());
    let nvdrv = open_service("nvdrv", &system).expect("nvdrv");
    MEMORY.with(|memory| {
        let mut sessions = Sessions::default();
        let id = sessions.open(nvdrv);
        let mut driver = Driver { sessions, id, memory };
        driver.send(3, &0x30_0000u32.to_le_bytes(), 0, 0);
        for action in actions.into_iter().take(64) {
            match action {
                Action::SetUp => {
                    // Files 1-4 when opened first on a fresh driver.
                    for path in ["/dev/nvmap", "/dev/nvhost-as-gpu", "/dev/nvhost-gpu", "/dev/nvhost-ctrl"] {
                        driver.open(path);
                    }
                    driver.ioctl(1, 0xc008_0101, &words(&[GPU_MEMORY_SIZE as u32, 0]));
                    let mut alloc = words(&[1, 0, 0, 0x1000, 0, 0]);
                    alloc.extend_from_slice(&GPU_MEMORY.to_le_bytes());
                    driver.ioctl(1, 0xc020_0104, &alloc);
                    driver.ioctl(2, 0x4028_4109, &[0; 0x28]);
                    driver.ioctl(2, 0xc028_4106, &words(&[0, 0, 1, 0, 0, 0, 0, 0, 0, 0]));
                    driver.ioctl(2, 0x4004_4101, &words(&[3]));
                    driver.ioctl(3, 0xc020_481a, &words(&[0x800, 1, 0, 0, 0, 0, 0, 0]));
                }
                Action::Open(device) => driver.open(DEVICES[usize::from(device) % DEVICES.len()]),
                Action::Close(fd) => {
                    driver.send(2, &u32::from(fd).to_le_bytes(), 0, 0);
                }
                Action::Ioctl { fd, request, argument } => {
                    let number = REQUESTS[usize::from(request) % REQUESTS.len()];
                    driver.ioctl(u32::from(fd), number, &argument[..argument.len().min(0x800)]);
                }
                Action::Submit { fd, flags, offset, words: pushbuffer, fence } => {
                    let offset = u64::from(offset) % GPU_MEMORY_SIZE & !3;
                    let count = pushbuffer.len().min(((GPU_MEMORY_SIZE - offset) / 4) as usize).min(512);
                    let bytes: Vec<u8> = pushbuffer[..count].iter().flat_map(|w| w.to_le_bytes()).collect();
                    let _ = memory.write(GPU_MEMORY + offset, &bytes);
                    // SetUp maps the GPU memory at the lowest small-page address, where this entry points.
                    let entry = (0x100_0000 + offset) | (count as u64) << 42;
                    let mut argument = words(&[0, 0, 1, u32::from(flags), fence.0, fence.1]);
                    argument.extend_from_slice(&entry.to_le_bytes());
                    let request = 0xc000_0000u32 | (argument.len() as u32) << 16 | 0x4808;
                    driver.ioctl(u32::from(fd), request, &argument);
                }
                Action::QueryEvent { fd, id } => {
                    driver.send(4, &words(&[u32::from(fd), id]), 0, 0);
                }
                Action::Poke { offset, bytes } => {
                    let offset = u64::from(offset) % GPU_MEMORY_SIZE;
                    let length = bytes.len().min((GPU_MEMORY_SIZE - offset) as usize);
                    let _ = memory.write(GPU_MEMORY + offset, &bytes[..length]);
                }
            }
        }
    });
});
