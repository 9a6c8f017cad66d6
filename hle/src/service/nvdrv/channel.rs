//! `/dev/nvhost-gpu`: a GPU channel per open file, with a syncpoint of its own that its fences count on.
//! Argument layouts are libnx's `nvioctlChannel_*` (SubmitGpfifo's entries inline after its header, KickoffPb's in
//! Ioctl2's extra buffer); the submit algorithm (fence wait before, two increments after) is the driver's as
//! yuzu and Ryujinx reproduce it, from Linux's nvgpu.

use super::gpu_host::{GpuHost, GpuView};
use super::{NvResult, ticks_to_gpu_ticks};
use crate::service::{Failure, ServiceEvent};
use tandem_gpu::channel::Segment;
use tandem_gpu::fifo::{GpEntry, header};
use tandem_gpu::syncpoint::Fence;
use tandem_reference::memory::GuestMemory;

const SET_NVMAP_FD: u32 = 0x4004_4801;
const SET_TIMEOUT: u32 = 0x4004_4803;
/// SubmitGpfifo's size grows with its entries: matched on group and number.
const SUBMIT_GPFIFO_NUMBER: u8 = 0x08;
const ALLOC_OBJ_CTX: u32 = 0xc010_4809;
const ZCULL_BIND: u32 = 0xc010_480b;
const SET_ERROR_NOTIFIER: u32 = 0xc018_480c;
const SET_PRIORITY: u32 = 0x4004_480d;
const GET_ERROR_NOTIFICATION: u32 = 0xc010_4817;
const ALLOC_GPFIFO_EX2: u32 = 0xc020_481a;
const KICKOFF_PB: u32 = 0xc018_481b;
const SET_TIMESLICE: u32 = 0x4004_481d;
const SET_USER_DATA: u32 = 0x4008_4714;
const GET_USER_DATA: u32 = 0x8008_4715;
const GET_WAITBASE: u32 = 0xc008_0003;
const CHANNEL_GROUP: u8 = 0x48;

/// Submit flags: wait for the fence given, return a fence for this work, keep the WFI off the increments, and
/// (Nintendo's addition) count the fence value given as increments the pushbuffer makes itself.
const FENCE_WAIT: u32 = 1 << 0;
const FENCE_GET: u32 = 1 << 1;
const SUPPRESS_WFI: u32 = 1 << 4;
const INCREMENT_BY_VALUE: u32 = 1 << 8;

/// Classes a channel's objects may be (the Switch 2's AMPERE_B, C797, AMPERE_COMPUTE_B, C7C0, and AMPERE_DMA_COPY_B,
/// C7B5, too).
const CLASSES: [u32; 9] = [0x902d, 0xb197, 0xb1c0, 0xa140, 0xb0b5, 0xb06f, 0xc797, 0xc7c0, 0xc7b5];
/// Host method offsets (words) of the fence sequences.
const SYNCPOINTA: u32 = 0x70 / 4;
const SYNCPOINTB: u32 = 0x74 / 4;
const WFI: u32 = 0x78 / 4;

pub struct ChannelFile {
    /// The channel in the GPU.
    pub channel: u32,
    pub syncpoint: u32,
    gpfifo_allocated: bool,
    next_object: u64,
    user_data: u64,
    /// QueryEvent's events 1-3 (SM exception reports, error notifier); Tandem's channels never raise them.
    pub events: [ServiceEvent; 3],
}

fn word(argument: &[u8], index: usize) -> u32 {
    u32::from_le_bytes(argument[4 * index..4 * index + 4].try_into().expect("the argument has the ioctl's size"))
}

fn set_word(argument: &mut [u8], index: usize, value: u32) {
    argument[4 * index..4 * index + 4].copy_from_slice(&value.to_le_bytes());
}

/// The words that hold a channel until `fence` is reached.
fn fence_wait(fence: Fence) -> Vec<u32> {
    vec![header::incrementing(0, SYNCPOINTA, 2), fence.value, fence.id << 8 | 1 << 4]
}

/// The words that increment `syncpoint` twice once the work before is done (the increment is doubled to work
/// around a hardware bug, so a fence counts two).
fn fence_increments(syncpoint: u32, wait_for_idle: bool) -> Vec<u32> {
    let mut words = Vec::new();
    if wait_for_idle {
        words.extend([header::incrementing(0, WFI, 1), 0]);
    }
    words.extend([header::incrementing(0, SYNCPOINTA, 1), 0]);
    for _ in 0..2 {
        words.extend([header::incrementing(0, SYNCPOINTB, 1), syncpoint << 8 | 1]);
    }
    words
}

impl ChannelFile {
    pub fn open(host: &mut GpuHost) -> Option<ChannelFile> {
        let syncpoint = host.allocate_syncpoint()?;
        Some(ChannelFile {
            channel: host.gpu.create_channel(),
            syncpoint,
            gpfifo_allocated: false,
            next_object: 1,
            user_data: 0,
            events: Default::default(),
        })
    }

    /// Drops the channel's work; its syncpoint reaches every fence handed out before it is freed.
    pub fn close(&self, host: &mut GpuHost) {
        host.gpu.destroy_channel(self.channel);
        host.gpu.complete_syncpoint(self.syncpoint).expect("channels own syncpoints that exist");
        host.free_syncpoint(self.syncpoint);
    }

    /// Runs `request`; `None` for an ioctl this device does not have. `extra` is Ioctl2's extra input buffer.
    pub fn ioctl(
        &mut self,
        host: &mut GpuHost,
        request: u32,
        argument: &[u8],
        extra: Option<&[u8]>,
        memory: &GuestMemory,
        ticks: u64,
    ) -> Option<Result<Result<Vec<u8>, NvResult>, Failure>> {
        let mut argument = argument.to_vec();
        let number = super::Ioctl::decode(request);
        let result = match request {
            SET_NVMAP_FD | SET_TIMEOUT | ZCULL_BIND | SET_ERROR_NOTIFIER => Ok(()),
            // {u32 priority}: low, medium or high.
            SET_PRIORITY if [50, 100, 150].contains(&word(&argument, 0)) => Ok(()),
            SET_PRIORITY => Err(NvResult::BadParameter),
            // {u32 microseconds}
            SET_TIMESLICE if (1000..=50000).contains(&word(&argument, 0)) => Ok(()),
            SET_TIMESLICE => Err(NvResult::BadParameter),
            // {u64 timestamp, u32 info32, u16 info16, u16 status}: no error has happened.
            GET_ERROR_NOTIFICATION => {
                argument.fill(0);
                Ok(())
            }
            SET_USER_DATA => {
                self.user_data = u64::from(word(&argument, 0)) | u64::from(word(&argument, 1)) << 32;
                Ok(())
            }
            GET_USER_DATA => {
                argument[..8].copy_from_slice(&self.user_data.to_le_bytes());
                Ok(())
            }
            // {u32 module, out u32 value}
            GET_WAITBASE => {
                set_word(&mut argument, 1, 0);
                Ok(())
            }
            // {u32 class, u32 flags, out u64 object id}
            ALLOC_OBJ_CTX if !CLASSES.contains(&word(&argument, 0)) => Err(NvResult::BadValue),
            ALLOC_OBJ_CTX => {
                argument[8..16].copy_from_slice(&self.next_object.to_le_bytes());
                self.next_object += 1;
                Ok(())
            }
            // {u32 entries, u32 jobs, u32 flags, out fence, reserved[3]}: the fence is where the syncpoint stands.
            ALLOC_GPFIFO_EX2 if self.gpfifo_allocated => Err(NvResult::AlreadyAllocated),
            ALLOC_GPFIFO_EX2 => {
                self.gpfifo_allocated = true;
                set_word(&mut argument, 3, self.syncpoint);
                set_word(&mut argument, 4, host.gpu.syncpoints.max(self.syncpoint).expect("a channel's syncpoint"));
                Ok(())
            }
            KICKOFF_PB => match extra {
                Some(entries) => return Some(self.submit(host, argument, entries, memory, ticks)),
                None => Err(NvResult::BadParameter),
            },
            // Its size counts the entries after a 0x18-byte header: a smaller one has no header.
            _ if number.group == CHANNEL_GROUP && number.number == SUBMIT_GPFIFO_NUMBER && argument.len() < 0x18 => {
                Err(NvResult::InvalidSize)
            }
            _ if number.group == CHANNEL_GROUP && number.number == SUBMIT_GPFIFO_NUMBER => {
                let entries = argument[0x18..].to_vec();
                argument.truncate(0x18);
                return Some(self.submit(host, argument, &entries, memory, ticks).map(|result| {
                    // The answer keeps the ioctl's size: the header, then the entries as they came.
                    result.map(|mut header| {
                        header.extend_from_slice(&entries);
                        header
                    })
                }));
            }
            _ => return None,
        };
        Some(Ok(result.map(|()| argument)))
    }

    /// SubmitGpfifo / KickoffPb: header {u64 gpfifo address (unused), u32 entries, u32 flags, fence {id, value}},
    /// `entries` the GPFIFO entries. The header comes back with the fence of this work and the flags cleared.
    fn submit(
        &mut self,
        host: &mut GpuHost,
        mut header: Vec<u8>,
        entries: &[u8],
        memory: &GuestMemory,
        ticks: u64,
    ) -> Result<Result<Vec<u8>, NvResult>, Failure> {
        let (count, flags) = (word(&header, 2) as usize, word(&header, 3));
        let fence = Fence { id: word(&header, 4), value: word(&header, 5) };
        if count.checked_mul(8).is_none_or(|bytes| bytes > entries.len()) {
            return Ok(Err(NvResult::InvalidSize));
        }
        if flags & FENCE_WAIT != 0 && flags & INCREMENT_BY_VALUE != 0 {
            return Ok(Err(NvResult::BadParameter));
        }
        let mut segments = Vec::new();
        if flags & FENCE_WAIT != 0 && !host.gpu.syncpoints.is_signalled(fence).unwrap_or(true) {
            segments.push(Segment::Driver(fence_wait(fence)));
        }
        let counted = if flags & INCREMENT_BY_VALUE != 0 { fence.value } else { 0 };
        // More increments than a syncpoint can count is no fence at all.
        let Some(increments) = counted.checked_add(if flags & FENCE_GET != 0 { 2 } else { 0 }) else {
            return Ok(Err(NvResult::BadParameter));
        };
        let syncpoints = &mut host.gpu.syncpoints;
        let out = match increments {
            0 => Fence { id: self.syncpoint, value: syncpoints.max(self.syncpoint).expect("a channel's syncpoint") },
            _ => syncpoints.reserve(self.syncpoint, increments).expect("a channel's syncpoint"),
        };
        segments.extend(
            entries[..8 * count].chunks_exact(8).map(|entry| {
                Segment::Entry(GpEntry::decode(u64::from_le_bytes(entry.try_into().expect("eight bytes"))))
            }),
        );
        if flags & FENCE_GET != 0 {
            segments.push(Segment::Driver(fence_increments(self.syncpoint, flags & SUPPRESS_WFI == 0)));
        }
        host.gpu.timestamp = ticks_to_gpu_ticks(ticks);
        host.gpu.submit(self.channel, segments, &GpuView(memory)).map_err(Failure::Gpu)?;
        host.run(memory, ticks).map_err(Failure::Gpu)?;
        set_word(&mut header, 3, 0);
        set_word(&mut header, 4, out.id);
        set_word(&mut header, 5, out.value);
        Ok(Ok(header))
    }
}
