//! The display: layers, the buffer queue behind each layer's IGraphicBufferProducer (Android's BufferQueue as
//! Horizon's nvnflinger runs it, transactions as libnx `display/buffer_producer.c` sends them), and what becomes of
//! a queued buffer: the GPU back end reads its pixels and the frame goes to the frame sink (`--frames DIR`).
//!
//! Timing (Tandem's deterministic model): a queued buffer is shown at once and its slot is free again when the
//! transaction returns, so a producer never waits for a buffer; the vsync event is signalled by the kernel at every
//! vertical blank, 60 times a second of guest time. A run shows the same frames whatever the host's speed.

use super::parcel::{ParcelError, ParcelReader, ParcelWriter};
use crate::service::ServiceEvent;
use crate::service::nvdrv::gpu_host::GpuHost;
use std::collections::BTreeMap;
use tandem_gpu::backend::{Frame, Present};
use tandem_gpu::texture::format::ColorFormat;
use tandem_gpu::texture::surface::{Layout, Surface};
use tandem_reference::memory::GuestMemory;

/// A frame as the display shows it.
pub struct ShownFrame<'a> {
    /// Frames shown before it (the first is 0).
    pub number: u64,
    /// Guest time when it was queued, in counter ticks (19.2 MHz).
    pub ticks: u64,
    pub frame: &'a Frame,
}

/// Where frames go (PNG files, a window).
pub type FrameSink = Box<dyn FnMut(&ShownFrame)>;

/// Binder status codes (Android's, as libnx `binderConvertErrorCode` reads them).
mod status {
    pub const NO_ERROR: i32 = 0;
    pub const WOULD_BLOCK: i32 = -11;
    pub const NO_INIT: i32 = -19;
    pub const BAD_VALUE: i32 = -22;
    /// Android's answer to a transaction code the object does not have (-EBADMSG); Tandem stops on it instead,
    /// naming the code, as the console's producer may well have it.
    pub const UNKNOWN_TRANSACTION: i32 = -74;
}

/// IGraphicBufferProducer transaction codes.
mod code {
    pub const REQUEST_BUFFER: u32 = 1;
    pub const SET_BUFFER_COUNT: u32 = 2;
    pub const DEQUEUE_BUFFER: u32 = 3;
    pub const QUEUE_BUFFER: u32 = 7;
    pub const CANCEL_BUFFER: u32 = 8;
    pub const QUERY: u32 = 9;
    pub const CONNECT: u32 = 10;
    pub const DISCONNECT: u32 = 11;
    pub const SET_PREALLOCATED_BUFFER: u32 = 14;
}

const SLOTS: usize = 64;
/// Bytes of a flattened GraphicBuffer, and of a fence (NvMultiFence).
const GRAPHIC_BUFFER_SIZE: usize = 0x16c;
const FENCE_SIZE: usize = 0x24;
const QUEUE_BUFFER_INPUT_SIZE: usize = 0x54;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SlotState {
    Free,
    Dequeued,
}

#[derive(Clone, Debug)]
struct Slot {
    /// The flattened GraphicBuffer SetPreallocatedBuffer gave.
    buffer: Option<Vec<u8>>,
    state: SlotState,
    requested: bool,
    /// When the slot was last freed (the oldest free slot is dequeued first).
    freed_at: u64,
}

/// One producer's queue.
pub struct BufferQueue {
    slots: Vec<Slot>,
    connected_api: Option<u32>,
    /// Width, height and format from the latest preallocated buffer (1 x 1, RGBA_8888 before any).
    default: (u32, u32, u32),
    /// Signalled while a slot is free (libnx waits on it before each dequeue and never clears it itself).
    pub buffer_free: ServiceEvent,
    clock: u64,
}

impl Default for BufferQueue {
    fn default() -> BufferQueue {
        BufferQueue {
            slots: vec![Slot { buffer: None, state: SlotState::Free, requested: false, freed_at: 0 }; SLOTS],
            connected_api: None,
            default: (1, 1, 1),
            buffer_free: ServiceEvent::default(),
            clock: 0,
        }
    }
}

/// A layer and the binder id of its producer.
struct Layer {
    binder: u32,
    /// The applet resource user id it was made for (0: a stray layer).
    owner: u64,
    open: bool,
}

pub struct Display {
    layers: BTreeMap<u64, Layer>,
    queues: BTreeMap<u32, BufferQueue>,
    next_layer: u64,
    next_binder: u32,
    /// Signalled by the kernel at each vertical blank.
    pub vsync: ServiceEvent,
    frames: u64,
    sink: Option<FrameSink>,
}

impl Default for Display {
    fn default() -> Display {
        Display {
            layers: BTreeMap::new(),
            queues: BTreeMap::new(),
            next_layer: 1,
            next_binder: 1,
            vsync: ServiceEvent::default(),
            frames: 0,
            sink: None,
        }
    }
}

/// What a present failed on: the run stops with it.
pub type PresentError = String;

/// The most layers a display holds at once (applications make one or two).
const MAX_LAYERS: usize = 64;

impl Display {
    pub fn set_frame_sink(&mut self, sink: FrameSink) {
        self.sink = Some(sink);
    }

    /// Frames shown so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// A new layer for `owner` (0: stray); its id. `None` once the display has `MAX_LAYERS` (each holds a buffer
    /// queue of host state).
    pub fn create_layer(&mut self, owner: u64) -> Option<u64> {
        if self.layers.len() >= MAX_LAYERS {
            return None;
        }
        let id = self.next_layer;
        self.next_layer += 1;
        let binder = self.next_binder;
        self.next_binder += 1;
        self.layers.insert(id, Layer { binder, owner, open: false });
        self.queues.insert(binder, BufferQueue::default());
        Some(id)
    }

    pub fn destroy_layer(&mut self, id: u64) -> bool {
        match self.layers.remove(&id) {
            Some(layer) => {
                self.queues.remove(&layer.binder);
                true
            }
            None => false,
        }
    }

    /// OpenLayer: the binder id of its producer, when the layer exists, is not open, and belongs to `owner`.
    pub fn open_layer(&mut self, id: u64, owner: u64) -> Option<u32> {
        let layer = self.layers.get_mut(&id).filter(|layer| !layer.open && layer.owner == owner)?;
        layer.open = true;
        Some(layer.binder)
    }

    pub fn close_layer(&mut self, id: u64) -> bool {
        self.layers.get_mut(&id).map(|layer| layer.open = false).is_some()
    }

    /// The buffer-free event of the producer `binder`.
    pub fn buffer_free_event(&self, binder: u32) -> Option<ServiceEvent> {
        self.queues.get(&binder).map(|queue| queue.buffer_free.clone())
    }

    /// A transaction on the producer `binder` at guest time `ticks`: the reply parcel (an unknown binder answers
    /// an empty one, as the console's driver does). `Err`: what Tandem could not do (show a frame, or a
    /// transaction it does not implement).
    pub fn transact(
        &mut self,
        binder: u32,
        code: u32,
        request: &[u8],
        memory: &GuestMemory,
        gpu: &mut GpuHost,
        ticks: u64,
    ) -> Result<Vec<u8>, PresentError> {
        let Some(queue) = self.queues.get_mut(&binder) else {
            tracing::warn!(target: "guest::vi", binder, code, "a transaction for no producer");
            return Ok(ParcelWriter::default().finish());
        };
        let mut reply = ParcelWriter::default();
        let mut shown = None;
        let result = ParcelReader::new(request).and_then(|mut parcel| {
            parcel.interface_token()?;
            queue.transaction(code, &mut parcel, &mut reply, &mut shown)
        });
        let status = match result {
            Ok(status::UNKNOWN_TRANSACTION) => {
                return Err(format!("IGraphicBufferProducer transaction {code} is not implemented by Tandem yet"));
            }
            Ok(status) => status,
            Err(error) => {
                tracing::warn!(target: "guest::vi", %error, code, "a malformed IGraphicBufferProducer parcel");
                status::BAD_VALUE
            }
        };
        reply.i32(status);
        queue.update_buffer_free();
        if let Some(buffer) = shown {
            let shown = |problem: String| format!("showing a frame: {problem}");
            let (present, visible_width) = present_of(&buffer, gpu).map_err(shown)?;
            let frame = gpu
                .gpu
                .present(&present, visible_width, &crate::service::nvdrv::gpu_host::GpuView(memory))
                .map_err(|error| shown(error.to_string()))?;
            tracing::debug!(target: "guest::vi", frame = self.frames, width = frame.width, height = frame.height, "frame shown");
            if let Some(sink) = &mut self.sink {
                sink(&ShownFrame { number: self.frames, ticks, frame: &frame });
            }
            self.frames += 1;
        }
        Ok(reply.finish())
    }
}

impl BufferQueue {
    fn slot(&mut self, index: i32) -> Option<&mut Slot> {
        usize::try_from(index).ok().and_then(|index| self.slots.get_mut(index))
    }

    fn update_buffer_free(&self) {
        if self.slots.iter().any(|slot| slot.buffer.is_some() && slot.state == SlotState::Free) {
            self.buffer_free.signal();
        } else {
            self.buffer_free.clear();
        }
    }

    /// Writes an empty fence (no syncpoint to wait for: the buffer is free when handed out).
    fn no_fence(reply: &mut ParcelWriter) {
        reply.flattened(&[0; FENCE_SIZE]);
    }

    /// QueueBufferOutput: the default size, no transform hint, nothing pending (buffers are shown at once).
    fn output(&self, reply: &mut ParcelWriter) {
        for word in [self.default.0, self.default.1, 0, 0] {
            reply.u32(word);
        }
    }

    /// One transaction; its status (the reply's last word).
    fn transaction(
        &mut self,
        code: u32,
        parcel: &mut ParcelReader,
        reply: &mut ParcelWriter,
        shown: &mut Option<Vec<u8>>,
    ) -> Result<i32, ParcelError> {
        Ok(match code {
            code::REQUEST_BUFFER => {
                let index = parcel.i32()?;
                match self.slot(index) {
                    Some(slot) if slot.buffer.is_some() => {
                        slot.requested = true;
                        reply.i32(1);
                        reply.flattened(slot.buffer.as_deref().expect("checked"));
                        status::NO_ERROR
                    }
                    _ => status::BAD_VALUE,
                }
            }
            // The count follows from the preallocated buffers on Horizon.
            code::SET_BUFFER_COUNT => {
                parcel.i32()?;
                status::NO_ERROR
            }
            code::DEQUEUE_BUFFER => {
                let (_async, width, height, _format, _usage) =
                    (parcel.i32()?, parcel.u32()?, parcel.u32()?, parcel.u32()?, parcel.u32()?);
                if (width == 0) != (height == 0) {
                    return Ok(status::BAD_VALUE);
                }
                let free = self
                    .slots
                    .iter()
                    .enumerate()
                    .filter(|(_, slot)| slot.buffer.is_some() && slot.state == SlotState::Free)
                    .min_by_key(|(_, slot)| slot.freed_at)
                    .map(|(index, _)| index);
                match free {
                    Some(index) => {
                        self.slots[index].state = SlotState::Dequeued;
                        reply.i32(index as i32);
                        reply.i32(1);
                        Self::no_fence(reply);
                        status::NO_ERROR
                    }
                    // Every buffer is dequeued: none frees until the producer queues or cancels one.
                    None => status::WOULD_BLOCK,
                }
            }
            code::QUEUE_BUFFER => {
                let index = parcel.i32()?;
                let input = parcel.flattened()?;
                let dequeued = self.slot(index).is_some_and(|slot| slot.state == SlotState::Dequeued && slot.requested);
                if input.len() < QUEUE_BUFFER_INPUT_SIZE || !dequeued {
                    return Ok(status::BAD_VALUE);
                }
                self.clock += 1;
                let clock = self.clock;
                let slot = self.slot(index).expect("checked");
                slot.state = SlotState::Free;
                slot.freed_at = clock;
                *shown = slot.buffer.clone();
                self.output(reply);
                status::NO_ERROR
            }
            code::CANCEL_BUFFER => {
                let index = parcel.i32()?;
                self.clock += 1;
                let clock = self.clock;
                match self.slot(index) {
                    Some(slot) if slot.state == SlotState::Dequeued => {
                        slot.state = SlotState::Free;
                        slot.freed_at = clock;
                        status::NO_ERROR
                    }
                    _ => status::BAD_VALUE,
                }
            }
            code::QUERY => {
                // WIDTH, HEIGHT, FORMAT, MIN_UNDEQUEUED_BUFFERS; CONSUMER_RUNNING_BEHIND (nothing pending).
                let value = match parcel.i32()? {
                    0 | 6 => self.default.0,
                    1 | 7 => self.default.1,
                    2 => self.default.2,
                    3 | 9 => 0,
                    _ => return Ok(status::BAD_VALUE),
                };
                reply.u32(value);
                status::NO_ERROR
            }
            code::CONNECT => {
                let (_listener, api, _controlled_by_app) = (parcel.i32()?, parcel.u32()?, parcel.i32()?);
                if self.connected_api.is_some() || !(1..=4).contains(&api) {
                    return Ok(status::BAD_VALUE);
                }
                self.connected_api = Some(api);
                self.output(reply);
                status::NO_ERROR
            }
            code::DISCONNECT => {
                let api = parcel.u32()?;
                if self.connected_api != Some(api) {
                    return Ok(status::BAD_VALUE);
                }
                self.connected_api = None;
                for slot in &mut self.slots {
                    slot.state = SlotState::Free;
                }
                status::NO_ERROR
            }
            code::SET_PREALLOCATED_BUFFER => {
                let index = parcel.i32()?;
                let has_buffer = parcel.i32()? != 0;
                let buffer = if has_buffer { Some(parcel.flattened()?.to_vec()) } else { None };
                if buffer.as_ref().is_some_and(|b| b.len() < GRAPHIC_BUFFER_SIZE) {
                    return Ok(status::BAD_VALUE);
                }
                if let Some(buffer) = &buffer {
                    let word = |at: usize| u32::from_le_bytes(buffer[at..at + 4].try_into().expect("four bytes"));
                    self.default = (word(0x04), word(0x08), word(0x10));
                }
                let Some(slot) = self.slot(index) else { return Ok(status::BAD_VALUE) };
                *slot = Slot { buffer, state: SlotState::Free, requested: false, freed_at: 0 };
                status::NO_ERROR
            }
            _ if self.connected_api.is_none() => status::NO_INIT,
            _ => status::UNKNOWN_TRANSACTION,
        })
    }
}

/// NvColorFormat values (libnx `nvidia/types.h`) of the formats the display shows, and the render target
/// formats with the same bits.
const DISPLAY_FORMATS: [(u64, u32); 4] = [
    (0x01_0053_2120, 0xd5), // A8B8G8R8
    (0x01_0a53_2120, 0xf9), // X8B8G8R8
    (0x01_0a88_1210, 0xe8), // R5G6B5
    (0x01_00d1_2120, 0xcf), // A8R8G8B8
];

fn color_format(buffer: &[u8]) -> u64 {
    u64::from_le_bytes(buffer[0x64..0x6c].try_into().expect("eight bytes"))
}

/// The surface a flattened GraphicBuffer describes: the nvmap object its id (0x2c) names, plane 0's offset
/// (0x78), size (0x5c, 0x60), colour format (0x64), layout (0x6c: 1 pitch, 3 block-linear), pitch (0x70) and
/// block height (0x80, log2 GOBs); and the width shown (a block-linear surface is addressed over its whole pitch).
fn present_of(buffer: &[u8], gpu: &GpuHost) -> Result<(Present, u32), PresentError> {
    let word = |at: usize| u32::from_le_bytes(buffer[at..at + 4].try_into().expect("four bytes"));
    let id = word(0x2c);
    let (address, size) = gpu
        .nvmap
        .allocation_of_id(id)
        .ok_or_else(|| format!("a queued buffer names nvmap object {id}, which has no memory"))?;
    let nv_format = color_format(buffer);
    let &(_, code) = DISPLAY_FORMATS
        .iter()
        .find(|&&(nv, _)| nv == nv_format)
        .ok_or_else(|| format!("the display shows no frames of colour format {nv_format:#x} yet"))?;
    let format = ColorFormat::from_code(code).expect("a render target format");
    let (width, height, pitch, offset) = (word(0x5c), word(0x60), word(0x70), word(0x78));
    let layout = match word(0x6c) {
        1 => Layout::Pitch { pitch },
        3 => Layout::BlockLinear { block_height: word(0x80), block_depth: 0 },
        other => return Err(format!("the display shows no frames of surface layout {other} yet")),
    };
    if width == 0 || height == 0 {
        return Err(format!("a queued buffer's plane of {width} x {height} pixels shows nothing"));
    }
    if width.checked_mul(format.bytes).is_none_or(|row| row > pitch) || u64::from(offset) >= size {
        return Err(format!("a queued buffer's plane ({width} x {height}, pitch {pitch}) does not fit its memory"));
    }
    let addressed_width = match layout {
        Layout::BlockLinear { .. } => pitch / format.bytes,
        Layout::Pitch { .. } => width,
    };
    let surface = Surface::single_layer(address + u64::from(offset), addressed_width, height, format.bytes, layout);
    Ok((Present { surface, format }, width))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layers are host state: past `MAX_LAYERS` at once a display makes no more, and one destroyed makes room.
    #[test]
    fn a_display_holds_a_bounded_number_of_layers() {
        let mut display = Display::default();
        let layers: Vec<u64> = (0..MAX_LAYERS).map(|_| display.create_layer(0).unwrap()).collect();
        assert_eq!(display.create_layer(0), None);
        assert!(display.destroy_layer(layers[3]));
        assert!(display.create_layer(7).is_some());
    }

    /// A transaction code the producer does not implement stops the run naming it (once connected; before, every
    /// code is NO_INIT, as Android's producer answers).
    #[test]
    fn an_unknown_transaction_is_named() {
        let mut display = Display::default();
        let layer = display.create_layer(0).unwrap();
        let binder = display.open_layer(layer, 0).unwrap();
        let (memory, mut gpu) = (GuestMemory::new().unwrap(), GpuHost::default());
        let request = |words: &[u32]| {
            let mut parcel = ParcelWriter::default();
            parcel.u32(0x100);
            let name = "android.gui.IGraphicBufferProducer";
            parcel.u32(name.len() as u32);
            parcel.bytes(&name.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect::<Vec<u8>>());
            words.iter().for_each(|&word| parcel.u32(word));
            parcel.finish()
        };
        let status = |reply: Vec<u8>| i32::from_le_bytes(reply[reply.len() - 4..].try_into().unwrap());
        let detach = 4;
        let before = display.transact(binder, detach, &request(&[0]), &memory, &mut gpu, 0).unwrap();
        assert_eq!(status(before), status::NO_INIT);
        let connected = display.transact(binder, code::CONNECT, &request(&[0, 2, 0]), &memory, &mut gpu, 0).unwrap();
        assert_eq!(status(connected), status::NO_ERROR);
        let error = display.transact(binder, detach, &request(&[0]), &memory, &mut gpu, 0).unwrap_err();
        assert_eq!(error, "IGraphicBufferProducer transaction 4 is not implemented by Tandem yet");
    }
}
