use super::*;
use crate::channel::{ChannelError, Wait};
use crate::engine::{Class, EngineError};
use crate::fifo::{GpEntry, header};
use crate::mmu::testing::{FlatMemory, GUEST_BASE};
use crate::texture::block_linear::BlockLinear;

mod compute;
mod copies;
mod macros;
mod three_d;

/// What Tandem lacks (an engine's or back end's unimplemented case, a shader the translator cannot do yet)
/// is told apart from a malformed stream, so that the stop report says whose gap it is.
#[test]
fn gaps_in_tandem_are_told_apart_from_malformed_streams() {
    use crate::backend::BackendError;
    use crate::engine::Method;
    let method = Method { class: Class::Maxwell3D, offset: 0x0d78 };
    let error = |source| GpuError { channel: 1, source: ChannelError::Engine { address: 0, source }, note: None };
    let gap = BackendError::Unimplemented { backend: "reference", what: "this".into() };
    assert!(error(EngineError::Backend { method, source: gap }).is_unimplemented());
    assert!(error(EngineError::Unimplemented { method, detail: "this".into() }).is_unimplemented());
    let malformed = BackendError::BadTexture("an index past its pool".into());
    assert!(!error(EngineError::Backend { method, source: malformed }).is_unimplemented());
}

/// GPU addresses: pushbuffers at PUSHBUFFER, data at DATA; both map the flat guest memory.
const PUSHBUFFER: u64 = 0x1_0000_0000;
const DATA: u64 = 0x2_0000_0000;
const PAGES: u64 = 16;

struct Setup {
    gpu: Gpu,
    memory: FlatMemory,
    space: u32,
    /// Where the next pushbuffer goes (guest offset from GUEST_BASE).
    next_pushbuffer: u64,
}

impl Setup {
    fn new() -> Setup {
        let mut gpu = Gpu::default();
        let space = gpu.create_address_space();
        gpu.map(space, PUSHBUFFER, GUEST_BASE, PAGES / 2 * 0x1000).unwrap();
        gpu.map(space, DATA, GUEST_BASE + PAGES / 2 * 0x1000, PAGES / 2 * 0x1000).unwrap();
        Setup { gpu, memory: FlatMemory::new(vec![0; (PAGES * 0x1000) as usize]), space, next_pushbuffer: 0 }
    }

    fn channel(&mut self) -> u32 {
        let channel = self.gpu.create_channel();
        self.gpu.bind(channel, self.space);
        channel
    }

    /// Writes `words` as a pushbuffer and submits one GPFIFO entry for them.
    fn submit(&mut self, channel: u32, words: &[u32]) -> Result<(), GpuError> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let offset = self.next_pushbuffer;
        self.memory.0.borrow_mut()[offset as usize..offset as usize + bytes.len()].copy_from_slice(&bytes);
        self.next_pushbuffer += bytes.len().next_multiple_of(16) as u64;
        let entry = GpEntry::decode(GpEntry::encode(PUSHBUFFER + offset, words.len() as u32));
        self.gpu.submit(channel, vec![Segment::Entry(entry)], &self.memory)
    }

    fn data(&self, offset: u64, length: usize) -> Vec<u8> {
        let start = (PAGES / 2 * 0x1000 + offset) as usize;
        self.memory.0.borrow()[start..start + length].to_vec()
    }

    fn data_u32(&self, offset: u64) -> u32 {
        u32::from_le_bytes(self.data(offset, 4).try_into().unwrap())
    }
}

// SET_OBJECT goes as a header and a data word: class ids need more than an immediate's 13 bits.

/// Host semaphore methods as clb06f.h lays them out: A upper address, B lower, C payload, D operation.
fn semaphore(address: u64, payload: u32, operation: u32) -> Vec<u32> {
    vec![header::incrementing(0, 0x10 / 4, 4), (address >> 32) as u32, address as u32, payload, operation]
}

#[test]
fn semaphore_releases_write_the_payload_and_a_timestamped_report() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    setup.gpu.timestamp = 0x1122_3344_5566_7788;
    let mut words = semaphore(DATA + 0x40, 0xcafe_f00d, 2 | 1 << 24);
    words.extend(semaphore(DATA + 0x80, 0x1234_5678, 2));
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data_u32(0x40), 0xcafe_f00d);
    assert_eq!(setup.data_u32(0x44), 0, "a four-byte release writes four bytes");
    let report = setup.data(0x80, 16);
    assert_eq!(report[..4], 0x1234_5678u32.to_le_bytes());
    assert_eq!(report[4..8], [0; 4]);
    assert_eq!(report[8..], 0x1122_3344_5566_7788u64.to_le_bytes());
}

/// A channel waiting on a syncpoint (SYNCPOINTA payload, SYNCPOINTB wait) resumes when another channel's
/// increments reach it, and carries on from the word after the wait.
#[test]
fn a_syncpoint_wait_holds_a_channel_until_another_increments() {
    let mut setup = Setup::new();
    let (waiter, signaller) = (setup.channel(), setup.channel());
    let mut words = vec![header::incrementing(0, 0x70 / 4, 2), 2, 9 << 8 | 1 << 4];
    words.extend(semaphore(DATA, 0x77, 2 | 1 << 24));
    setup.submit(waiter, &words).unwrap();
    assert!(setup.gpu.channel_mut(waiter).unwrap().is_busy());
    assert_eq!(setup.data_u32(0), 0, "nothing after the wait ran");
    let increment = [header::incrementing(0, 0x74 / 4, 1), 9 << 8 | 1];
    setup.submit(signaller, &increment).unwrap();
    assert_eq!(setup.data_u32(0), 0, "one increment of two");
    setup.submit(signaller, &increment).unwrap();
    assert_eq!(setup.data_u32(0), 0x77);
    assert!(!setup.gpu.channel_mut(waiter).unwrap().is_busy());
    assert_eq!(setup.gpu.syncpoints.value(9), Ok(2));
}

/// Acquires wait for equal, at-least (across wrap-around) and any common bit, as clb06f.h defines them.
#[test]
fn semaphore_acquires_wait_for_their_condition() {
    for (operation, memory, payload, satisfied) in [
        (1, 5, 5, true),
        (1, 6, 5, false),
        (4, 6, 5, true),
        (4, 4, 5, false),
        (4, 2, u32::MAX - 1, true),
        (8, 0b0110, 0b0100, true),
        (8, 0b0110, 0b1001, false),
    ] {
        let mut setup = Setup::new();
        let channel = setup.channel();
        setup.memory.0.borrow_mut()[(PAGES / 2 * 0x1000) as usize..][..4].copy_from_slice(&u32::to_le_bytes(memory));
        let mut words = semaphore(DATA, payload, operation);
        words.extend(semaphore(DATA + 0x10, 1, 2 | 1 << 24));
        setup.submit(channel, &words).unwrap();
        assert_eq!(setup.data_u32(0x10) == 1, satisfied, "operation {operation}, {memory:#x} vs {payload:#x}");
    }
}

/// The 3D engine's INCREMENT_SYNC_POINT (NVN's fences) and its report semaphore release.
#[test]
fn the_3d_engine_increments_syncpoints_and_releases_report_semaphores() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let words = [
        header::non_incrementing(0, 0, 1),
        0xb197,
        header::incrementing(0, 0x2c8 / 4, 1),
        5 | 1 << 20,
        header::incrementing(0, 0x1b00 / 4, 4),
        (DATA >> 32) as u32,
        DATA as u32 + 0x20,
        0xabcd,
        1 << 28,
    ];
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.gpu.syncpoints.value(5), Ok(1));
    assert_eq!(setup.data_u32(0x20), 0xabcd);
}

/// A GPFIFO control entry (LENGTH 0) of OPCODE ILLEGAL stops the channel; one of OPCODE NOP does nothing.
#[test]
fn illegal_gpfifo_control_entries_stop_the_channel() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let nop = GpEntry::decode(0);
    setup.gpu.submit(channel, vec![Segment::Entry(nop)], &setup.memory).unwrap();
    let illegal = GpEntry::decode(1 << 32);
    let error = setup.gpu.submit(channel, vec![Segment::Entry(illegal)], &setup.memory).unwrap_err().to_string();
    assert!(error.contains("ILLEGAL"), "{error}");
}

fn fill_data(setup: &Setup, offset: u64, bytes: &[u8]) {
    let start = (PAGES / 2 * 0x1000 + offset) as usize;
    setup.memory.0.borrow_mut()[start..start + bytes.len()].copy_from_slice(bytes);
}

/// A Setup whose GPU renders with the reference back end on the Vulkan device (lavapipe in CI).
fn rendering_setup() -> (Setup, u32) {
    let mut setup = Setup::new();
    let device = crate::vulkan::ComputeDevice::shared_for_tests();
    setup.gpu.set_backend(Box::new(crate::backend::reference::ReferenceBackend::new(device)));
    let channel = setup.channel();
    (setup, channel)
}

#[test]
fn bad_pushbuffers_are_errors_naming_the_word() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let error = setup.submit(channel, &[header::immediate(3, 0x100 / 4, 0)]).unwrap_err();
    assert!(matches!(error.source, ChannelError::Unbound { subchannel: 3, .. }), "{error}");
    let channel = setup.channel();
    let error = setup.submit(channel, &[header::non_incrementing(0, 0, 1), 0x1234]).unwrap_err();
    assert!(matches!(error.source, ChannelError::UnknownClass { class: 0x1234, .. }), "{error}");
    let channel = setup.channel();
    let error = setup.submit(channel, &[header::non_incrementing(0, 0, 1), 0xb197, header::immediate(0, 0x10c / 4, 0)]);
    let error = error.unwrap_err();
    assert!(error.to_string().contains("MAXWELL_B method 0x010c (NOTIFY) is not implemented"), "{error}");
    assert!(matches!(error.source, ChannelError::Engine { source: EngineError::Unimplemented { .. }, .. }));
    let channel = setup.channel();
    let words = [header::non_incrementing(0, 0, 1), 0xb197, header::incrementing(0, 0x123c / 4, 1), 7];
    let error = setup.submit(channel, &words).unwrap_err();
    assert!(
        error.to_string().contains("(DRAW_AUTO) with argument 0x7: DRAW_AUTO with SET_DRAW_AUTO_STRIDE 0"),
        "{error}"
    );
    // A clear under a SET_ANTI_ALIAS that names no mode.
    let channel = setup.channel();
    let words = [
        header::non_incrementing(0, 0, 1),
        0xb197,
        header::incrementing(0, 0x15d0 / 4, 1),
        7,
        header::incrementing(0, 0x19d0 / 4, 1),
        0x3c,
    ];
    let error = setup.submit(channel, &words).unwrap_err();
    assert!(error.to_string().contains("with argument 0x7: SET_ANTI_ALIAS SAMPLES is not a mode"), "{error}");
    let channel = setup.channel();
    let words = [header::non_incrementing(0, 0, 1), 0xb197, header::incrementing(0, 0x2394 / 4, 1), 7];
    let error = setup.submit(channel, &words).unwrap_err();
    assert!(error.to_string().contains("past the selected buffer's size"), "{error}");
    let channel = setup.gpu.create_channel();
    assert_eq!(setup.submit(channel, &[0]).unwrap_err().source, ChannelError::NoAddressSpace);
    let channel = setup.channel();
    let entry = GpEntry::decode(GpEntry::encode(0x9_0000_0000, 4));
    let error = setup.gpu.submit(channel, vec![Segment::Entry(entry)], &setup.memory).unwrap_err();
    assert!(matches!(error.source, ChannelError::PushbufferRead { .. }), "{error}");
    let _ = (Class::Maxwell3D, Wait::Syncpoint { id: 0, value: 0 });
}
