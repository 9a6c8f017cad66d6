//! Command traces: everything that crossed the driver boundary into the GPU (address spaces and their mappings,
//! channels, submissions, CPU syncpoint increments, presents) and the guest memory the GPU read, as the CPU left
//! it. A trace replays with no CPU at all (`tandem gpu replay`): graphics bugs are reported, replayed and bisected
//! as traces.
//!
//! Memory: the first time the GPU reads a page during a run (or a present), the page's content goes into the trace
//! if it differs from what the trace last knew of it (the CPU wrote it since); pages the GPU wrote itself are
//! known already. The page records of a run come before the run's marker, so a replay puts them in place first.
//!
//! Format: the magic `TANDEMGT`, a version, then events, each a tag byte and little-endian fields; page contents
//! are LZ4 blocks. Invariant: a replay of a trace performs the same GPU calls in the same order as the run did.

use crate::backend::{Frame, Present};
use crate::channel::Segment;
use crate::fifo::GpEntry;
use crate::mmu::GuestMemory;
use crate::texture::format::ColorFormat;
use crate::texture::surface::{Layout, Slices, Surface};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{Read, Write};

const MAGIC: &[u8; 8] = b"TANDEMGT";
const VERSION: u32 = 1;
const PAGE: u64 = 0x1000;

/// One event of a trace.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Event {
    CreateAddressSpace {
        id: u32,
    },
    DestroyAddressSpace {
        id: u32,
    },
    Map {
        space: u32,
        va: u64,
        guest: u64,
        size: u64,
    },
    Unmap {
        space: u32,
        va: u64,
        size: u64,
    },
    /// A range made sparse (`sparse`) or ordinary again.
    Sparse {
        space: u32,
        va: u64,
        size: u64,
        sparse: bool,
    },
    CreateChannel {
        id: u32,
    },
    DestroyChannel {
        id: u32,
    },
    Bind {
        channel: u32,
        space: u32,
    },
    Submit {
        channel: u32,
        segments: Vec<Segment>,
    },
    /// The CPU incremented a syncpoint (nvhost-ctrl).
    Increment {
        syncpoint: u32,
    },
    /// A syncpoint was brought to `value`, every increment reserved on it (a closed channel's).
    Reach {
        syncpoint: u32,
        value: u32,
    },
    /// A guest page as the GPU is about to read it.
    Page {
        address: u64,
        bytes: Vec<u8>,
    },
    /// The GPU ran its channels, at this GPU time.
    Run {
        timestamp: u64,
    },
    /// The display showed a frame: the surface, its format, and the width shown.
    Present {
        present: Present,
        width: u32,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("not a Tandem GPU trace (no TANDEMGT magic)")]
    NotATrace,
    #[error("a trace of version {0}; this Tandem reads version {VERSION}")]
    Version(u32),
    #[error("the trace is cut short in event {event} (at byte {at:#x})")]
    Truncated { event: usize, at: usize },
    #[error("event {event} (at byte {at:#x}) is malformed: {problem}")]
    Malformed { event: usize, at: usize, problem: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Writes events to a file as they happen.
pub struct Recorder {
    out: Box<dyn Write>,
    /// What the trace holds of each page the GPU has read or written.
    known: HashMap<u64, Vec<u8>>,
    /// Page events of the run under way, written before its marker.
    pending: Vec<Event>,
    failed: Option<std::io::Error>,
}

impl Recorder {
    pub fn new(mut out: Box<dyn Write>) -> std::io::Result<Recorder> {
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        Ok(Recorder { out, known: HashMap::new(), pending: Vec::new(), failed: None })
    }

    pub fn record(&mut self, event: &Event) {
        if self.failed.is_some() {
            return;
        }
        let mut bytes = Vec::new();
        encode(event, &mut bytes);
        if let Err(error) = self.out.write_all(&bytes) {
            tracing::error!(target: "gpu", "writing the command trace: {error}");
            self.failed = Some(error);
        }
    }

    /// Ends a run (or present): its page records, then `event`. Each run is flushed to the file: a run that
    /// crashes or is killed later still leaves a trace whole up to there.
    pub fn finish_run(&mut self, event: &Event) {
        for page in std::mem::take(&mut self.pending) {
            self.record(&page);
        }
        self.record(event);
        if self.failed.is_none()
            && let Err(error) = self.out.flush()
        {
            tracing::error!(target: "gpu", "writing the command trace: {error}");
            self.failed = Some(error);
        }
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        match self.failed.take() {
            Some(error) => Err(error),
            None => self.out.flush(),
        }
    }

    /// Notes the pages `address..address + length` the GPU reads from `memory` as they are now.
    fn note_read(&mut self, memory: &dyn GuestMemory, address: u64, length: usize) {
        let first = address / PAGE;
        let last = (address + length.max(1) as u64 - 1) / PAGE;
        for page in first..=last {
            let mut bytes = vec![0u8; PAGE as usize];
            if !memory.read(page * PAGE, &mut bytes) {
                continue;
            }
            if self.known.get(&page) != Some(&bytes) {
                self.known.insert(page, bytes.clone());
                self.pending.push(Event::Page { address: page * PAGE, bytes });
            }
        }
    }

    /// Keeps the trace's idea of pages the GPU writes current (replays write the same bytes themselves).
    fn note_write(&mut self, memory: &dyn GuestMemory, address: u64, length: usize) {
        let first = address / PAGE;
        let last = (address + length.max(1) as u64 - 1) / PAGE;
        for page in first..=last {
            let mut bytes = vec![0u8; PAGE as usize];
            if memory.read(page * PAGE, &mut bytes) {
                self.known.insert(page, bytes);
            }
        }
    }
}

/// Guest memory that tells a recorder what the GPU reads and writes.
pub struct RecordingMemory<'a> {
    pub inner: &'a dyn GuestMemory,
    pub recorder: &'a RefCell<Recorder>,
}

impl GuestMemory for RecordingMemory<'_> {
    fn read(&self, address: u64, buffer: &mut [u8]) -> bool {
        self.recorder.borrow_mut().note_read(self.inner, address, buffer.len());
        self.inner.read(address, buffer)
    }

    /// A write first makes sure the trace holds the pages as they were (a replay writes into them), then keeps
    /// the trace's copy current.
    fn write(&self, address: u64, data: &[u8]) -> bool {
        self.recorder.borrow_mut().note_read(self.inner, address, data.len());
        let written = self.inner.write(address, data);
        self.recorder.borrow_mut().note_write(self.inner, address, data.len());
        written
    }
}

/// Guest memory for replays: the pages the trace gave; anything else is unmapped.
#[derive(Default)]
pub struct ReplayMemory {
    pages: RefCell<HashMap<u64, Vec<u8>>>,
}

impl ReplayMemory {
    pub fn set_page(&self, address: u64, bytes: Vec<u8>) {
        self.pages.borrow_mut().insert(address / PAGE, bytes);
    }
}

impl GuestMemory for ReplayMemory {
    fn read(&self, address: u64, buffer: &mut [u8]) -> bool {
        let pages = self.pages.borrow();
        for (index, byte) in buffer.iter_mut().enumerate() {
            let at = address + index as u64;
            match pages.get(&(at / PAGE)) {
                Some(page) => *byte = page[(at % PAGE) as usize],
                None => return false,
            }
        }
        true
    }

    fn write(&self, address: u64, data: &[u8]) -> bool {
        let mut pages = self.pages.borrow_mut();
        for (index, &byte) in data.iter().enumerate() {
            let at = address + index as u64;
            match pages.get_mut(&(at / PAGE)) {
                Some(page) => page[(at % PAGE) as usize] = byte,
                None => return false,
            }
        }
        true
    }
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn encode(event: &Event, out: &mut Vec<u8>) {
    match event {
        Event::CreateAddressSpace { id } => {
            out.push(1);
            put_u32(out, *id);
        }
        Event::DestroyAddressSpace { id } => {
            out.push(2);
            put_u32(out, *id);
        }
        Event::Map { space, va, guest, size } => {
            out.push(3);
            put_u32(out, *space);
            put_u64(out, *va);
            put_u64(out, *guest);
            put_u64(out, *size);
        }
        Event::Unmap { space, va, size } => {
            out.push(4);
            put_u32(out, *space);
            put_u64(out, *va);
            put_u64(out, *size);
        }
        Event::CreateChannel { id } => {
            out.push(5);
            put_u32(out, *id);
        }
        Event::DestroyChannel { id } => {
            out.push(6);
            put_u32(out, *id);
        }
        Event::Bind { channel, space } => {
            out.push(7);
            put_u32(out, *channel);
            put_u32(out, *space);
        }
        Event::Submit { channel, segments } => {
            out.push(8);
            put_u32(out, *channel);
            put_u32(out, segments.len() as u32);
            for segment in segments {
                match segment {
                    Segment::Entry(entry) => {
                        out.push(0);
                        put_u64(out, entry.raw());
                    }
                    Segment::Driver(words) => {
                        out.push(1);
                        put_u32(out, words.len() as u32);
                        words.iter().for_each(|&word| put_u32(out, word));
                    }
                }
            }
        }
        Event::Increment { syncpoint } => {
            out.push(9);
            put_u32(out, *syncpoint);
        }
        Event::Reach { syncpoint, value } => {
            out.push(14);
            put_u32(out, *syncpoint);
            put_u32(out, *value);
        }
        Event::Page { address, bytes } => {
            out.push(10);
            put_u64(out, *address);
            let packed = lz4_flex::block::compress_prepend_size(bytes);
            put_u32(out, packed.len() as u32);
            out.extend_from_slice(&packed);
        }
        Event::Run { timestamp } => {
            out.push(11);
            put_u64(out, *timestamp);
        }
        Event::Sparse { space, va, size, sparse } => {
            out.push(13);
            put_u32(out, *space);
            put_u64(out, *va);
            put_u64(out, *size);
            out.push(u8::from(*sparse));
        }
        Event::Present { present, width } => {
            out.push(12);
            let surface = &present.surface;
            put_u32(out, present.format.code);
            put_u64(out, surface.address);
            for value in [surface.width, surface.height, surface.layers, surface.bytes_per_texel] {
                put_u32(out, value);
            }
            match surface.layout {
                Layout::Pitch { pitch } => {
                    out.push(0);
                    put_u32(out, pitch);
                    put_u32(out, 0);
                }
                Layout::BlockLinear { block_height, block_depth } => {
                    out.push(1);
                    put_u32(out, block_height);
                    put_u32(out, block_depth);
                }
            }
            // A presented frame is one 2D layer: the stride is all there is to its third dimension.
            let stride = match surface.slices {
                Slices::Layers { stride } => stride,
                Slices::Depth => 0,
            };
            put_u64(out, stride);
            put_u32(out, *width);
        }
    }
}

/// A trace's events, and where it was cut short if it was (the recording stopped inside an event: the run
/// crashed or was killed). The events before a cut are whole, and replay as they ran.
#[derive(Debug)]
pub struct Contents {
    pub events: Vec<Event>,
    pub cut: Option<Cut>,
}

/// Where a trace ends inside an event: its number and the byte it starts at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub event: usize,
    pub at: usize,
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the trace is cut short in event {} (which starts at byte {:#x})", self.event, self.at)
    }
}

/// Reads a trace's events, up to a cut if it has one; anything else wrong with it is an error.
pub fn read(input: impl Read) -> Result<Contents, TraceError> {
    let mut reader = Reader::new(input)?;
    let events = reader.by_ref().collect();
    Ok(Contents { events, cut: reader.end()? })
}

/// A trace's events one at a time, as they are read: only the event being read is held, so a trace of a long run
/// replays in the memory its largest event needs. Iteration stops at the trace's end, at a cut, or at the first
/// malformed event; `end` then says which.
pub struct Reader<R> {
    cursor: Cursor<R>,
    ended: Option<Result<Option<Cut>, TraceError>>,
}

impl<R: Read> Reader<R> {
    /// Checks the trace's magic and version.
    pub fn new(input: R) -> Result<Reader<R>, TraceError> {
        let mut cursor = Cursor { input, at: 0, event: 0 };
        let mut header = [0u8; 12];
        cursor.input.read_exact(&mut header).map_err(|_| TraceError::NotATrace)?;
        if header[..8] != MAGIC[..] {
            return Err(TraceError::NotATrace);
        }
        let version = u32::from_le_bytes(header[8..].try_into().expect("four bytes"));
        if version != VERSION {
            return Err(TraceError::Version(version));
        }
        cursor.at = header.len();
        Ok(Reader { cursor, ended: None })
    }

    /// Why iteration stopped: the trace ended (`None`) or was cut (`Some`), or was malformed or unreadable.
    pub fn end(&mut self) -> Result<Option<Cut>, TraceError> {
        self.ended.take().unwrap_or(Ok(None))
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        if self.ended.is_some() {
            return None;
        }
        let start = self.cursor.at;
        let outcome = match self.cursor.tag() {
            Ok(None) => Ok(None),
            Ok(Some(tag)) => self.cursor.event(tag).map(Some),
            Err(error) => Err(error),
        };
        match outcome {
            Ok(Some(event)) => {
                self.cursor.event += 1;
                return Some(event);
            }
            Ok(None) => self.ended = Some(Ok(None)),
            Err(TraceError::Truncated { event, .. }) => self.ended = Some(Ok(Some(Cut { event, at: start }))),
            Err(error) => self.ended = Some(Err(error)),
        }
        None
    }
}

struct Cursor<R> {
    input: R,
    at: usize,
    event: usize,
}

impl<R: Read> Cursor<R> {
    /// The next `length` bytes; memory grows only with bytes actually read, so a hostile length costs nothing.
    fn take(&mut self, length: usize) -> Result<Vec<u8>, TraceError> {
        let mut bytes = Vec::new();
        (&mut self.input).take(length as u64).read_to_end(&mut bytes)?;
        if bytes.len() < length {
            return Err(TraceError::Truncated { event: self.event, at: self.at + bytes.len() });
        }
        self.at += length;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], TraceError> {
        Ok(self.take(N)?.try_into().expect("take gives what it was asked"))
    }

    /// The next event's tag, `None` at the trace's end.
    fn tag(&mut self) -> Result<Option<u8>, TraceError> {
        let mut tag = [0u8];
        match self.input.read_exact(&mut tag) {
            Ok(()) => {
                self.at += 1;
                Ok(Some(tag[0]))
            }
            Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    fn u8(&mut self) -> Result<u8, TraceError> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, TraceError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, TraceError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn malformed(&self, problem: impl Into<String>) -> TraceError {
        TraceError::Malformed { event: self.event, at: self.at, problem: problem.into() }
    }

    /// The event that `tag` starts.
    fn event(&mut self, tag: u8) -> Result<Event, TraceError> {
        Ok(match tag {
            1 => Event::CreateAddressSpace { id: self.u32()? },
            2 => Event::DestroyAddressSpace { id: self.u32()? },
            3 => Event::Map { space: self.u32()?, va: self.u64()?, guest: self.u64()?, size: self.u64()? },
            4 => Event::Unmap { space: self.u32()?, va: self.u64()?, size: self.u64()? },
            5 => Event::CreateChannel { id: self.u32()? },
            6 => Event::DestroyChannel { id: self.u32()? },
            7 => Event::Bind { channel: self.u32()?, space: self.u32()? },
            8 => {
                let channel = self.u32()?;
                let count = self.u32()?;
                let mut segments = Vec::new();
                for _ in 0..count {
                    segments.push(match self.u8()? {
                        0 => Segment::Entry(GpEntry::decode(self.u64()?)),
                        1 => {
                            let length = self.u32()? as usize;
                            let words =
                                self.take(length.checked_mul(4).ok_or_else(|| self.malformed("too many words"))?)?;
                            Segment::Driver(
                                words
                                    .chunks_exact(4)
                                    .map(|w| u32::from_le_bytes(w.try_into().expect("four")))
                                    .collect(),
                            )
                        }
                        kind => return Err(self.malformed(format!("segment kind {kind}"))),
                    });
                }
                Event::Submit { channel, segments }
            }
            9 => Event::Increment { syncpoint: self.u32()? },
            14 => Event::Reach { syncpoint: self.u32()?, value: self.u32()? },
            10 => {
                let address = self.u64()?;
                let length = self.u32()? as usize;
                // A page packs into at most this (LZ4's worst case, after the 4-byte size), and declares its size:
                // both are checked before anything is allocated for it.
                if length > 4 + lz4_flex::block::get_maximum_output_size(PAGE as usize) {
                    return Err(self.malformed("a page record that is not one page"));
                }
                let packed = self.take(length)?;
                let declared = packed.get(..4).map(|size| u32::from_le_bytes(size.try_into().expect("four bytes")));
                if declared != Some(PAGE as u32) || address % PAGE != 0 {
                    return Err(self.malformed("a page record that is not one page"));
                }
                let mut bytes = vec![0; PAGE as usize];
                let unpacked = lz4_flex::block::decompress_into(&packed[4..], &mut bytes)
                    .map_err(|e| self.malformed(e.to_string()))?;
                if unpacked != PAGE as usize {
                    return Err(self.malformed("a page record that is not one page"));
                }
                Event::Page { address, bytes }
            }
            11 => Event::Run { timestamp: self.u64()? },
            13 => Event::Sparse { space: self.u32()?, va: self.u64()?, size: self.u64()?, sparse: self.u8()? != 0 },
            12 => {
                let code = self.u32()?;
                let format =
                    ColorFormat::from_code(code).ok_or_else(|| self.malformed(format!("colour format {code:#x}")))?;
                let address = self.u64()?;
                let (width, height, layers, bytes_per_texel) = (self.u32()?, self.u32()?, self.u32()?, self.u32()?);
                let layout = match (self.u8()?, self.u32()?, self.u32()?) {
                    (0, pitch, _) => Layout::Pitch { pitch },
                    (1, block_height, block_depth) => Layout::BlockLinear { block_height, block_depth },
                    (kind, ..) => return Err(self.malformed(format!("layout {kind}"))),
                };
                let slices = Slices::Layers { stride: self.u64()? };
                let surface = Surface { address, width, height, layers, bytes_per_texel, layout, slices };
                Event::Present { present: Present { surface, format }, width: self.u32()? }
            }
            tag => return Err(self.malformed(format!("unknown event tag {tag}"))),
        })
    }
}

/// Crops a presented frame to the width shown.
pub fn crop(mut frame: Frame, width: u32) -> Frame {
    if width < frame.width {
        let row = 4 * frame.width as usize;
        frame.rgba = frame.rgba.chunks_exact(row).flat_map(|line| &line[..4 * width as usize]).copied().collect();
        frame.width = width;
    }
    frame
}

/// What a replay did.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub submissions: usize,
    pub frames: u64,
}

/// Replays `events` on `gpu` (which has its back end) over `memory`, handing each frame shown to `frames`.
pub fn replay(
    events: impl IntoIterator<Item = Event>,
    gpu: &mut crate::front_end::Gpu,
    memory: &ReplayMemory,
    mut frames: impl FnMut(u64, &Frame),
) -> Result<Replayed, String> {
    let mut done = Replayed::default();
    for (index, event) in events.into_iter().enumerate() {
        if let Event::Page { address, bytes } = event {
            memory.set_page(address, bytes);
            continue;
        }
        let fail = |problem: String| format!("trace event {index} ({event:?}): {problem}");
        let same = |made: u32, id: u32| {
            if made == id { Ok(()) } else { Err(fail(format!("the replay made object {made}, the run {id}"))) }
        };
        // Pages are put in place above.
        match &event {
            Event::CreateAddressSpace { id } => same(gpu.create_address_space(), *id)?,
            Event::DestroyAddressSpace { id } => gpu.destroy_address_space(*id),
            Event::Map { space, va, guest, size } => {
                gpu.map(*space, *va, *guest, *size).map_err(|e| fail(e.to_string()))?
            }
            Event::Unmap { space, va, size } => gpu.unmap(*space, *va, *size).map_err(|e| fail(e.to_string()))?,
            Event::Sparse { space, va, size, sparse } => {
                gpu.set_sparse(*space, *va, *size, *sparse).map_err(|e| fail(e.to_string()))?
            }
            Event::CreateChannel { id } => same(gpu.create_channel(), *id)?,
            Event::DestroyChannel { id } => gpu.destroy_channel(*id),
            Event::Bind { channel, space } => gpu.bind(*channel, *space),
            Event::Submit { channel, segments } => {
                gpu.queue(*channel, segments.clone());
                done.submissions += 1;
            }
            Event::Increment { syncpoint } => {
                gpu.increment_syncpoint(*syncpoint).map_err(|e| fail(e.to_string()))?;
            }
            Event::Reach { syncpoint, value } => {
                gpu.reach_syncpoint(*syncpoint, *value).map_err(|e| fail(e.to_string()))?;
            }
            Event::Page { .. } => {}
            Event::Run { timestamp } => {
                gpu.timestamp = *timestamp;
                gpu.run(memory).map_err(|e| fail(e.to_string()))?;
            }
            Event::Present { present, width } => {
                let frame = gpu.present(present, *width, memory).map_err(fail)?;
                frames(done.frames, &frame);
                done.frames += 1;
            }
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace is input from elsewhere: a Present whose surface disagrees with its format, or whose size is
    /// beyond any frame, is an error naming it, not a crash or an allocation of the size it claims.
    #[test]
    fn presents_a_trace_gets_wrong_are_refused() {
        let format = ColorFormat::from_code(0xd5).expect("A8B8G8R8");
        let present = |width, height, bytes_per_texel, pitch| Event::Present {
            present: Present {
                surface: Surface {
                    address: 0x10000,
                    width,
                    height,
                    layers: 1,
                    bytes_per_texel,
                    layout: Layout::Pitch { pitch },
                    slices: Slices::Layers { stride: 0 },
                },
                format,
            },
            width,
        };
        for (event, expected) in [
            (present(4, 1, 1, 4), "a frame of 1-byte texels in format A8B8G8R8, whose texels are 4 bytes"),
            (present(4, u32::MAX, 4, 0), "a frame of 4x4294967295 texels is larger than Tandem shows"),
        ] {
            let mut gpu = crate::front_end::Gpu::default();
            gpu.set_backend_factory(crate::backend::reference::factory());
            let memory = ReplayMemory::default();
            let events = [Event::Page { address: 0x10000, bytes: vec![0; PAGE as usize] }, event];
            let problem = replay(events, &mut gpu, &memory, |_, _| {}).unwrap_err();
            assert!(problem.contains(expected), "{problem}");
        }
    }

    /// A page record is checked for its size before anything is allocated: one that declares 4 GiB is refused.
    #[test]
    fn page_records_of_another_size_are_refused_before_they_are_unpacked() {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.push(10);
        bytes.extend_from_slice(&0x10000u64.to_le_bytes());
        let packed = [0xff, 0xff, 0xff, 0xff, 0x00];
        bytes.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&packed);
        let error = read(&bytes[..]).unwrap_err().to_string();
        assert!(error.contains("a page record that is not one page"), "{error}");
    }

    /// The reader hands out the whole events before a cut or a malformed event, then says which it was; a length
    /// that claims more bytes than the trace holds is a cut, found without allocating what it claims.
    #[test]
    fn a_reader_gives_the_events_before_a_cut_or_a_malformed_one() {
        let header = || {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&VERSION.to_le_bytes());
            bytes
        };
        let first = Event::CreateChannel { id: 1 };
        let mut bytes = header();
        encode(&first, &mut bytes);
        let whole = bytes.len();
        // A submission whose driver segment claims 2^32 - 1 words, with three there.
        bytes.extend_from_slice(&[8, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]);
        bytes.extend_from_slice(&[0; 12]);
        let mut reader = Reader::new(&bytes[..]).unwrap();
        assert_eq!(reader.by_ref().collect::<Vec<_>>(), [first.clone()]);
        assert_eq!(reader.end().unwrap(), Some(Cut { event: 1, at: whole }));

        let mut bytes = header();
        encode(&first, &mut bytes);
        bytes.push(99);
        let mut reader = Reader::new(&bytes[..]).unwrap();
        assert_eq!(reader.by_ref().collect::<Vec<_>>(), [first]);
        let error = reader.end().unwrap_err().to_string();
        assert!(error.contains("event 1") && error.contains("unknown event tag 99"), "{error}");
    }

    /// A submission's GPFIFO entries keep every field the front end reads: LEVEL, SYNC, FETCH and a control
    /// entry's OPCODE, not only address and length.
    #[test]
    fn submitted_entries_keep_their_flags() {
        let entry = GpEntry {
            address: 0x12_3456_7000,
            words: 9,
            subroutine: true,
            sync: true,
            conditional: true,
            opcode: 0x12,
        };
        let control =
            GpEntry { address: 0x1_0000_0000, words: 0, subroutine: false, sync: true, conditional: false, opcode: 1 };
        let event = Event::Submit { channel: 3, segments: vec![Segment::Entry(entry), Segment::Entry(control)] };
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        encode(&event, &mut bytes);
        let contents = read(&bytes[..]).unwrap();
        assert_eq!((contents.events, contents.cut), (vec![event], None));
    }

    /// A syncpoint brought to its reserved value (a closed channel's) is recorded with that value and reaches it
    /// again in the replay, which reserves nothing.
    #[test]
    fn completed_syncpoints_are_recorded_and_replayed() {
        let path = std::env::temp_dir().join(format!("tandem-trace-reach-{}", std::process::id()));
        let mut run = crate::front_end::Gpu::default();
        run.start_recording(Recorder::new(Box::new(std::fs::File::create(&path).unwrap())).unwrap());
        run.syncpoints.reserve(7, 3).unwrap();
        run.complete_syncpoint(7).unwrap();
        run.flush_trace().unwrap();
        let Contents { events, cut } = read(std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(cut, None);
        assert_eq!(events, [Event::Reach { syncpoint: 7, value: 3 }]);
        let mut replayed = crate::front_end::Gpu::default();
        replay(events, &mut replayed, &ReplayMemory::default(), |_, _| {}).unwrap();
        assert_eq!(replayed.syncpoints.value(7), Ok(3));
    }
}
