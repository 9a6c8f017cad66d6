use super::*;
use crate::channel::{ChannelError, Wait};
use crate::engine::{Class, EngineError};
use crate::fifo::{GpEntry, header};
use crate::mmu::testing::{FlatMemory, GUEST_BASE};
use crate::texture::block_linear::BlockLinear;

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

/// A macro uploaded through LOAD_MME_* and called with CALL_MME_MACRO/DATA sends methods to the 3D engine: here
/// nvc0's `per_instance_bf` writes bits of its second parameter to SET_VERTEX_STREAM_INSTANCE_A..C, which
/// then read back as registers.
#[test]
fn macros_upload_and_run_from_the_pushbuffer() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let code = [0x00000301, 0x00000211, 0x05880021, 0xffffc911, 0x0040d043, 0xffff8897, 0x00005211];
    let mut words = vec![header::non_incrementing(0, 0, 1), 0xb197];
    words.extend([header::incrementing(0, 0x11c / 4, 2), 7, 0x10]);
    words.push(header::increment_once(0, 0x114 / 4, 1 + code.len() as u32));
    words.push(0x10);
    words.extend(code);
    words.extend([header::increment_once(0, (0x3800 + 8 * 7) / 4, 2), 3, 5]);
    setup.submit(channel, &words).unwrap();
    let three_d = &setup.gpu.channel_mut(channel).unwrap().engines.maxwell_3d;
    assert_eq!([0x620, 0x621, 0x622].map(|m| three_d.register(m * 4)), [1, 0, 1]);
}

/// Parameters given in two headers reach one macro call.
#[test]
fn a_macro_takes_parameters_from_several_headers() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    // parm r2; maddr 0x1d00 (r0 + imm); exit send r2; nop: sends its second parameter to SCRATCH(0).
    let code = [0x00000201, 0x07400021, 0x000010c1, 0x00000011];
    let mut words = vec![header::non_incrementing(0, 0, 1), 0xb197, header::incrementing(0, 0x11c / 4, 2), 0, 0];
    words.extend([header::increment_once(0, 0x114 / 4, 5), 0]);
    words.extend(code);
    words.extend([header::incrementing(0, 0x3800 / 4, 1), 1]);
    words.extend([header::non_incrementing(0, 0x3804 / 4, 1), 0x99]);
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.gpu.channel_mut(channel).unwrap().engines.maxwell_3d.register(0x3400), 0x99);
}

/// AMPERE_B's macros are Turing's MME64 programs, not the Maxwell ones: uploading or calling one stops naming it,
/// and a BEGIN whose SPLIT_MODE joins launches stops too.
#[test]
fn ampere_macros_and_split_launches_stop_naming_themselves() {
    for (class, words) in [
        (0xc797, vec![header::incrementing(0, 0x114 / 4, 1), 0]),
        (0xc797, vec![header::incrementing(0, 0x3800 / 4, 1), 0]),
        (0xb197, vec![header::incrementing(0, 0x1618 / 4, 1), 1 << 29 | 4]),
    ] {
        let mut setup = Setup::new();
        let channel = setup.channel();
        let mut all = vec![header::non_incrementing(0, 0, 1), class];
        all.extend(words);
        let error = setup.submit(channel, &all).unwrap_err().to_string();
        assert!(error.contains("MME64") || error.contains("SPLIT_MODE 1"), "{error}");
    }
}

/// Macro data with no call of that macro before it is an error (ga100 pri_mme's EXTRA_MACRO_DATA), not a call.
#[test]
fn macro_data_without_a_call_is_refused() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let words = [header::non_incrementing(0, 0, 1), 0xb197, header::immediate(0, (0x3800 + 8 * 3 + 4) / 4, 9)];
    let error = setup.submit(channel, &words).unwrap_err().to_string();
    assert!(error.contains("macro data with no CALL_MME_MACRO"), "{error}");
}

/// Shadow RAM: passthrough writes do not reach what macros read; replay acts on the tracked value.
#[test]
fn shadow_ram_modes_track_pass_through_and_replay() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let scratch = 0x3400 / 4 + 1;
    let words = [
        header::non_incrementing(0, 0, 1),
        0xb197,
        header::immediate(0, scratch, 5),
        header::immediate(0, 0x124 / 4, 2),
        header::immediate(0, scratch, 6),
    ];
    setup.submit(channel, &words).unwrap();
    let three_d = &setup.gpu.channel_mut(channel).unwrap().engines.maxwell_3d;
    assert_eq!(three_d.register(0x3404), 6, "passthrough still sets the register");
    let words = [header::immediate(0, 0x124 / 4, 3), header::immediate(0, scratch, 7)];
    setup.submit(channel, &words).unwrap();
    let three_d = &setup.gpu.channel_mut(channel).unwrap().engines.maxwell_3d;
    assert_eq!(three_d.register(0x3404), 5, "replay substitutes the tracked value");
}

/// Inline data written as pitch lines: LINE_LENGTH_IN bytes per line, PITCH_OUT apart.
#[test]
fn inline_to_memory_writes_pitch_lines() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let words = [
        header::non_incrementing(2, 0, 1),
        0xa140,
        header::incrementing(2, 0x180 / 4, 5),
        6,
        2,
        (DATA >> 32) as u32,
        DATA as u32 + 0x100,
        0x40,
        header::incrementing(2, 0x1b0 / 4, 1),
        1,
        header::non_incrementing(2, 0x1b4 / 4, 3),
        0x4433_2211,
        0x8877_6655,
        0xccbb_aa99,
    ];
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0x100, 8), [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0, 0]);
    assert_eq!(setup.data(0x140, 8), [0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0, 0]);
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

/// KEPLER_INLINE_TO_MEMORY_B's other methods (cla140.h): NO_OPERATION and WAIT_FOR_IDLE do nothing, NOTIFY stops
/// naming itself.
#[test]
fn inline_to_memory_class_methods_outside_the_transfer() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let words = [
        header::non_incrementing(2, 0, 1),
        0xa140,
        header::immediate(2, 0x100 / 4, 0),
        header::immediate(2, 0x110 / 4, 0),
    ];
    setup.submit(channel, &words).unwrap();
    let error = setup.submit(channel, &[header::immediate(2, 0x10c / 4, 0)]).unwrap_err().to_string();
    assert!(error.contains("NOTIFY"), "{error}");
}

/// Inline data goes to memory as it comes: a transfer of 0xffffffff lines of 0xffffffff bytes writes its first
/// words at once (nothing waits for 16 EiB of data), and a new LAUNCH_DMA leaves what the cut one wrote.
#[test]
fn inline_to_memory_writes_data_as_it_comes() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let words = [
        header::non_incrementing(2, 0, 1),
        0xa140,
        header::incrementing(2, 0x180 / 4, 5),
        u32::MAX,
        u32::MAX,
        (DATA >> 32) as u32,
        DATA as u32 + 0x200,
        0x40,
        header::incrementing(2, 0x1b0 / 4, 1),
        1,
        header::non_incrementing(2, 0x1b4 / 4, 2),
        0x4433_2211,
        0x8877_6655,
        header::incrementing(2, 0x180 / 4, 1),
        4,
        header::incrementing(2, 0x18c / 4, 1),
        DATA as u32 + 0x300,
        header::incrementing(2, 0x1b0 / 4, 1),
        1,
    ];
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0x200, 8), [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
    setup.submit(channel, &[header::non_incrementing(2, 0x1b4 / 4, 1), 0xddcc_bbaa]).unwrap();
    assert_eq!(setup.data(0x300, 4), [0xaa, 0xbb, 0xcc, 0xdd], "the next transfer's first word");
    assert_eq!(setup.data(0x208, 4), [0; 4], "the cut transfer takes no more");
}

/// A copy-engine launch on subchannel 4: surface registers, then LAUNCH_DMA.
fn copy_words(registers: &[(u32, u32)], launch: u32) -> Vec<u32> {
    let mut words = vec![header::non_incrementing(4, 0, 1), 0xb0b5];
    for &(offset, value) in registers {
        words.extend([header::incrementing(4, offset / 4, 1), value]);
    }
    words.extend([header::incrementing(4, 0x300 / 4, 1), launch]);
    words
}

/// LAUNCH_DMA fields (clb0b5.h): DATA_TRANSFER_TYPE pipelined, SRC/DST pitch, MULTI_LINE_ENABLE, REMAP_ENABLE.
const TRANSFER: u32 = 1;
const SRC_PITCH: u32 = 1 << 7;
const DST_PITCH: u32 = 1 << 8;
const MULTI_LINE: u32 = 1 << 9;
const REMAP: u32 = 1 << 10;

fn source_and_destination(source: u64, destination: u64) -> Vec<(u32, u32)> {
    vec![
        (0x400, (source >> 32) as u32),
        (0x404, source as u32),
        (0x408, (destination >> 32) as u32),
        (0x40c, destination as u32),
    ]
}

fn fill_data(setup: &Setup, offset: u64, bytes: &[u8]) {
    let start = (PAGES / 2 * 0x1000 + offset) as usize;
    setup.memory.0.borrow_mut()[start..start + bytes.len()].copy_from_slice(bytes);
}

#[test]
fn the_copy_engine_copies_lines_between_pitch_surfaces() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let pattern: Vec<u8> = (0..=255).collect();
    fill_data(&setup, 0, &pattern);
    let mut registers = source_and_destination(DATA, DATA + 0x1000);
    registers.extend([(0x418, 10), (0x41c, 3), (0x410, 0x20), (0x414, 0x40)]);
    setup.submit(channel, &copy_words(&registers, TRANSFER | SRC_PITCH | DST_PITCH)).unwrap();
    assert_eq!(setup.data(0x1000, 11), [&pattern[..10], &[0]].concat(), "one line without MULTI_LINE_ENABLE");
    assert_eq!(setup.data(0x1040, 1), [0]);
    // SEMAPHORE_REDUCTION_ENABLE (bit 19) means nothing without a semaphore (SEMAPHORE_TYPE NONE).
    setup.submit(channel, &copy_words(&registers, TRANSFER | SRC_PITCH | DST_PITCH | MULTI_LINE | 1 << 19)).unwrap();
    for line in 0..3 {
        assert_eq!(setup.data(0x1000 + 0x40 * line, 10), pattern[0x20 * line as usize..][..10], "line {line}");
    }
}

/// Sizes the registers allow and no memory backs are refused by name before any work: a copy of 2^32 lines of
/// 2^32 bytes at pitch 0 (every line one page), and a 2D blit into a block-linear surface of 2^32 x 2^32 R8
/// pixels (2^64 bytes and more) or of 2^32 rows at pitch 0.
#[test]
fn copies_and_blits_past_the_limits_are_refused() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let mut registers = source_and_destination(DATA, DATA + 0x1000);
    registers.extend([(0x418, u32::MAX), (0x41c, u32::MAX), (0x410, 0), (0x414, 0)]);
    let launch = TRANSFER | SRC_PITCH | DST_PITCH | MULTI_LINE;
    let error = setup.submit(channel, &copy_words(&registers, launch)).unwrap_err().to_string();
    assert!(error.contains("more than Tandem copies"), "{error}");

    // The 2D class on subchannel 3: SRCCOPY of a 1 x 1 rectangle from a pitch R8 source (Y8, 0xf3).
    for (layout, pitch, named) in [(0, 0, "larger than Tandem blits"), (1, 0, "more pixels than Tandem blits")] {
        let mut setup = Setup::new();
        let channel = setup.channel();
        let mut words = vec![header::non_incrementing(3, 0, 1), 0x902d];
        let mut method = |offset: u32, value: u32| words.extend([header::incrementing(3, offset / 4, 1), value]);
        let (width, height) = if layout == 0 { (u32::MAX, u32::MAX) } else { (1024, u32::MAX) };
        let rectangle = if layout == 0 { (1, 1) } else { (1024, u32::MAX) };
        for (offset, value) in [
            (0x200, 0xf3),
            (0x204, layout),
            (0x208, 0),
            (0x20c, 1),
            (0x214, pitch),
            (0x218, width),
            (0x21c, height),
            (0x220, (DATA >> 32) as u32),
            (0x224, DATA as u32),
            (0x230, 0xf3),
            (0x234, 1),
            (0x23c, 1),
            (0x244, 64),
            (0x248, 1),
            (0x24c, 1),
            (0x250, (DATA >> 32) as u32),
            (0x254, DATA as u32 + 0x1000),
            (0x2ac, 3),
            (0x8b8, rectangle.0),
            (0x8bc, rectangle.1),
            (0x8c4, 1),
            (0x8cc, 1),
            (0x8dc, 0),
        ] {
            method(offset, value);
        }
        let error = setup.submit(channel, &words).unwrap_err().to_string();
        assert!(error.contains(named), "layout {layout}: {error}");
    }
}

/// Pitch to block-linear and back: each byte lands where the GOB layout puts it, and the round trip restores the
/// image.
#[test]
fn the_copy_engine_swizzles_into_and_out_of_block_linear() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let image: Vec<u8> = (0..128 * 32).map(|i| (i * 7 + i / 128) as u8).collect();
    fill_data(&setup, 0, &image);
    // 128 x 32 bytes, blocks two GOBs tall (SET_DST_BLOCK_SIZE HEIGHT 1, GOB_HEIGHT Fermi's 8).
    let block_size = 1 << 4 | 1 << 12;
    let mut registers = source_and_destination(DATA, DATA + 0x2000);
    registers.extend([(0x418, 128), (0x41c, 32), (0x410, 128)]);
    registers.extend([(0x70c, block_size), (0x710, 128), (0x714, 32), (0x718, 1), (0x71c, 0), (0x720, 0)]);
    setup.submit(channel, &copy_words(&registers, TRANSFER | SRC_PITCH | MULTI_LINE)).unwrap();
    let layout = BlockLinear::new(128, 32, 1, 1, 0).unwrap();
    for (x, y) in [(0, 0), (17, 9), (64, 0), (127, 31), (33, 20)] {
        let swizzled = setup.data(0x2000 + layout.offset(x, y, 0).unwrap(), 1)[0];
        assert_eq!(swizzled, image[(y * 128 + x) as usize], "({x}, {y})");
    }
    assert_eq!(layout.offset(17, 9, 0), Some(512 + 48 + 1), "the second GOB of the block, row 1 of it");
    let mut back = source_and_destination(DATA + 0x2000, DATA + 0x4000);
    back.extend([(0x418, 128), (0x41c, 32), (0x414, 128)]);
    back.extend([(0x728, block_size), (0x72c, 128), (0x730, 32), (0x734, 1), (0x738, 0), (0x73c, 0)]);
    setup.submit(channel, &copy_words(&back, TRANSFER | DST_PITCH | MULTI_LINE)).unwrap();
    assert_eq!(setup.data(0x4000, image.len()), image);
}

/// Remap: a memset from CONST_A, a swizzle of four byte components with one left unwritten, and a semaphore
/// release once the copy is done.
#[test]
fn the_copy_engine_remaps_components_and_releases_its_semaphore() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    fill_data(&setup, 0x200, &[0xee; 16]);
    // COMPONENT_SIZE four bytes (3 << 16), one destination component (0 << 24), DST_X CONST_A (4).
    let mut registers = source_and_destination(DATA, DATA + 0x100);
    registers.extend([(0x700, 0x1122_3344), (0x708, 3 << 16 | 4), (0x418, 3)]);
    setup.submit(channel, &copy_words(&registers, TRANSFER | SRC_PITCH | DST_PITCH | REMAP)).unwrap();
    assert_eq!(setup.data(0x100, 16), [0x44, 0x33, 0x22, 0x11].repeat(3).into_iter().chain([0; 4]).collect::<Vec<_>>());
    fill_data(&setup, 0x300, &[1, 2, 3, 4, 5, 6, 7, 8]);
    // One-byte components, four each side: X <- W, Y <- Z, Z not written, W <- X.
    let components = 3 | 2 << 4 | 6 << 8 | 0 << 12 | 3 << 20 | 3 << 24;
    let mut registers = source_and_destination(DATA + 0x300, DATA + 0x200);
    registers.extend([(0x708, components), (0x418, 2)]);
    registers.extend([(0x240, (DATA >> 32) as u32), (0x244, DATA as u32 + 0x400), (0x248, 0x5ca1ab1e)]);
    setup.submit(channel, &copy_words(&registers, TRANSFER | SRC_PITCH | DST_PITCH | REMAP | 1 << 3)).unwrap();
    assert_eq!(setup.data(0x200, 8), [4, 3, 0xee, 1, 8, 7, 0xee, 5]);
    assert_eq!(setup.data_u32(0x400), 0x5ca1_ab1e);
}

/// A remapped line longer than the engine moves at once (`CHUNK_ELEMENTS`): every element in place across the
/// pieces. Source elements are two 16-bit components (i, !i); the destination's one component is the second.
#[test]
fn a_long_remapped_line_keeps_every_element_in_place() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let elements = 5000u16;
    let source: Vec<u8> = (0..elements).flat_map(|i| [i.to_le_bytes(), (!i).to_le_bytes()].concat()).collect();
    fill_data(&setup, 0, &source);
    let mut registers = source_and_destination(DATA, DATA + 0x5000);
    registers.extend([(0x708, 1 | 1 << 16 | 1 << 20), (0x418, u32::from(elements))]);
    setup.submit(channel, &copy_words(&registers, TRANSFER | SRC_PITCH | DST_PITCH | REMAP)).unwrap();
    let expected: Vec<u8> = (0..elements).flat_map(|i| (!i).to_le_bytes()).collect();
    assert_eq!(setup.data(0x5000, expected.len()), expected);
}

/// A QMD of version `major`.`minor` for one block of 32 threads running the program at SET_PROGRAM_REGION +
/// 0x100, with `shared` bytes of shared memory and release 0 writing 0x600d (one word) at DATA + 0x800; the
/// bits of clb1c0qmd.h.
fn qmd(major: u32, minor: u32, shared: u32) -> Vec<u8> {
    let mut words = [0u32; 64];
    let release = DATA + 0x800;
    words[0x18 / 4] = 1 << 10;
    words[0x20 / 4] = 0x100;
    words[0x30 / 4] = 1;
    words[0x34 / 4] = 1 | 1 << 16;
    words[0x44 / 4] = shared;
    words[0x48 / 4] = minor | major << 4 | 32 << 16;
    words[0x4c / 4] = 1 | 1 << 16;
    words[0x5c / 4] = release as u32;
    words[0x60 / 4] = (release >> 32) as u32 | 1 << 31;
    words[0x64 / 4] = 0x600d;
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `qmd` of version 1.7 with constant buffer 0 at DATA + 0xa00, 0x200 bytes (CONSTANT_BUFFER_VALID 0, its
/// ADDR_LOWER, ADDR_UPPER 7:0 and SIZE 31:15).
fn qmd_with_constants() -> Vec<u8> {
    let mut qmd = qmd(1, 7, 0);
    let constants = DATA + 0xa00;
    for (at, word) in [(0x50, 1), (0x74, constants as u32), (0x78, (constants >> 32) as u32 | 0x200 << 15)] {
        qmd[at..at + 4].copy_from_slice(&u32::to_le_bytes(word));
    }
    qmd
}

/// The compute class's launch: the program region (DATA), the QMD's address (DATA + 0x400) >> 8, and
/// SEND_SIGNALING_PCAS_B with SCHEDULE.
fn launch_words() -> Vec<u32> {
    vec![
        header::non_incrementing(1, 0, 1),
        0xb1c0,
        header::incrementing(1, 0x1608 / 4, 2),
        (DATA >> 32) as u32,
        DATA as u32,
        header::incrementing(1, 0x2b4 / 4, 1),
        ((DATA + 0x400) >> 8) as u32,
        header::incrementing(1, 0x2bc / 4, 1),
        2,
    ]
}

/// AMPERE_COMPUTE_B's report semaphore (clc7c0.h's layout, not the 3D class's): a four-word release writes the
/// payload, 0 and the timestamp; a one-word release with REDUCTION_ENABLE and RED_INC increments.
#[test]
fn ampere_compute_releases_its_report_semaphore() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    setup.gpu.timestamp = 0x0102_0304_0506_0708;
    let release = |payload: u32, offset: u32, execute: u32| {
        vec![header::incrementing(1, 0x158 / 4, 5), payload, 0, DATA as u32 + offset, (DATA >> 32) as u32, execute]
    };
    let mut words = vec![header::non_incrementing(1, 0, 1), 0xc7c0];
    words.extend(release(0x1234, 0x40, 0));
    words.extend(release(5, 0x60, 1 << 3 | 1 << 6 | 3 << 7));
    setup.submit(channel, &words).unwrap();
    let report = setup.data(0x40, 16);
    assert_eq!(report[..8], [0x34, 0x12, 0, 0, 0, 0, 0, 0]);
    assert_eq!(report[8..], 0x0102_0304_0506_0708u64.to_le_bytes());
    assert_eq!(setup.data_u32(0x60), 1, "RED_INC of 0 below 5");
    assert_eq!(setup.data_u32(0x64), 0, "one word");
}

/// Conditional rendering reaches the compute class too (SET_RENDER_ENABLE_OVERRIDE at 0x1944, clb1c0.h): a
/// launch it turns off stops the run naming it, where the launch would otherwise have run.
#[test]
fn conditional_rendering_reaches_compute_launches() {
    let (mut setup, channel) = rendering_setup();
    let program = [0x001f_8000_fc00_07e0u64, 0xe300_0000_0007_000f, 0x50b0_0000_0007_0f00, 0x50b0_0000_0007_0f00];
    fill_data(&setup, 0x100, &program.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    fill_data(&setup, 0x400, &qmd(1, 7, 0x100));
    let mut words = launch_words();
    words.splice(2..2, [header::incrementing(1, 0x1944 / 4, 1), 2]);
    let error = setup.submit(channel, &words).unwrap_err().to_string();
    assert!(error.contains("conditional rendering turns off"), "{error}");
}

/// A program that only exits runs through a QMD on the reference back end, and the QMD's release follows; a
/// block that asks for more shared memory than the device has is refused naming the limit; a QMD of another
/// version stops the channel naming it.
#[test]
fn compute_launches_read_their_qmd() {
    let (mut setup, channel) = rendering_setup();
    // One bundle: its scheduling word, EXIT and two NOPs (nvdisasm's words for them).
    let program = [0x001f_8000_fc00_07e0u64, 0xe300_0000_0007_000f, 0x50b0_0000_0007_0f00, 0x50b0_0000_0007_0f00];
    fill_data(&setup, 0x100, &program.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    fill_data(&setup, 0x400, &qmd(1, 7, 0x100));
    setup.submit(channel, &launch_words()).unwrap();
    assert_eq!(setup.data_u32(0x800), 0x600d);

    let (mut setup, channel) = rendering_setup();
    fill_data(&setup, 0x100, &program.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    fill_data(&setup, 0x400, &qmd(1, 7, 0x3_ffff));
    let error = setup.submit(channel, &launch_words()).unwrap_err().to_string();
    assert!(error.contains("maxComputeSharedMemorySize") && error.contains("262143"), "{error}");
    assert_eq!(setup.data_u32(0x800), 0, "no release after a launch that failed");

    let (mut setup, channel) = rendering_setup();
    fill_data(&setup, 0x400, &qmd(2, 1, 0));
    let error = setup.submit(channel, &launch_words()).unwrap_err().to_string();
    assert!(error.contains("SEND_SIGNALING_PCAS_B") && error.contains("01_07"), "{error}");
}

/// A surface larger than the device or the reference back end holds is refused naming the limit before its texels
/// are read: a 1D buffer surface of 2^31 + 1 texels (past lavapipe's and NVIDIA's texel buffers) and a pitch 2D
/// surface of 65536 x 65536 texels (64 GiB as formatted texels).
#[test]
fn surfaces_past_the_limits_are_refused_before_their_texels_are_read() {
    // A8B8G8R8 with UINT components (clb097tex.h NVB097_TEXHEAD_*: COMPONENTS, the data types, the swizzle).
    let format = 0x08 | 4 << 7 | 4 << 10 | 4 << 13 | 4 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    let texels = (DATA + 0x1000) as u32;
    // ONE_D_BUFFER (HEADER_VERSION 0): the width less one, its high half in W3[15:0], its low half in W4[15:0].
    let buffer = [format, texels, 0x2, 0x8000, 6 << 23, 0, 0, 0];
    // PITCH (HEADER_VERSION 2), TWO_D, 65536 x 65536, the pitch 0x40000 as PITCH_BITS20TO5.
    let two_d = [format, texels, 0x2 | 2 << 21, 0x40000 >> 5, 0xffff | 1 << 23, 0xffff | 1 << 31, 0, 0];
    for (header, target, named) in [(buffer, 1, "texel buffers hold at most"), (two_d, 3, "MiB the reference")] {
        let (mut setup, channel) = rendering_setup();
        // SUST.P of R0's red into the texel at (R0, R1) of the surface whose handle is at c[0][0x148].
        let program = crate::sass::assemble::sm5x(&format!(
            "SUST rs=0 ra=0 size=0x1 target={target} surf=0x52 clamp=1 d=0\nEXIT"
        ))
        .unwrap();
        fill_data(&setup, 0x100, &program);
        fill_data(&setup, 0x400, &qmd_with_constants());
        fill_data(&setup, 0xa00 + 0x148, &1u32.to_le_bytes());
        fill_data(&setup, 0xc00 + 32, &header.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
        let pool = DATA + 0xc00;
        // SET_TEX_HEADER_POOL_A..C after the class is bound: the pool's address and its maximum index, 1.
        let mut words = launch_words();
        words.splice(2..2, [header::incrementing(1, 0x1574 / 4, 3), (pool >> 32) as u32, pool as u32, 1]);
        let error = setup.submit(channel, &words).unwrap_err().to_string();
        assert!(error.contains(named), "{error}");
    }
}

/// Behaviour 2.8 on the reference back end: the instruction's dimension decides the read. A 1x1x1 3D texture
/// (one magenta A8B8G8R8 texel) read as 3D gives its texel, read as 2D zeros, as a Tegra X1 does (nxgpucatch's
/// tex.cpp "TEX 3D"); each TEX.LZ's four FP32 components are stored by STG.E.128.
#[test]
fn a_texture_read_as_another_dimension_reads_zeros() {
    let (mut setup, channel) = rendering_setup();
    let out = DATA + 0x1400;
    let program = crate::sass::assemble::sm5x(&format!(
        "MOV32I rd=0 imm32=0x3f000000 lanes=15
MOV32I rd=1 imm32=0x3f000000 lanes=15
MOV32I rd=2 imm32=0x3f000000 lanes=15
TEX rd=4 ra=0 rb=255 target=4 mask=15 tex=0x52 lod=1
TEX rd=8 ra=0 rb=255 target=2 mask=15 tex=0x52 lod=1
MOV32I rd=12 imm32={:#x} lanes=15
MOV32I rd=13 imm32={:#x} lanes=15
STG rs=4 ra=12 e=1 size=6
STG rs=8 ra=12 offset=16 e=1 size=6
EXIT",
        out as u32,
        (out >> 32) as u32
    ))
    .unwrap();
    fill_data(&setup, 0x100, &program);
    fill_data(&setup, 0x400, &qmd_with_constants());
    // The handle at c[0][0x148]: header 0, sampler 0.
    fill_data(&setup, 0xa00 + 0x148, &0u32.to_le_bytes());
    let texels = DATA + 0x1000;
    // BLOCKLINEAR (HEADER_VERSION 3), one GOB a block, THREE_D (TEXTURE_TYPE 2), 1x1x1, normalized; A8B8G8R8
    // UNORM, swizzle R G B A (clb097tex.h NVB097_TEXHEAD_BL_*).
    let format = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    let header = [format, texels as u32, (texels >> 32) as u32 | 3 << 21, 0, 2 << 23, 1 << 31, 0, 0];
    fill_data(&setup, 0xc00, &header.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    // Nearest filters and levels (NVB097_TEXSAMP1: MAG_FILTER, MIN_FILTER, MIP_FILTER).
    let sampler = [0u32, 1 | 1 << 4 | 1 << 6, 0, 0, 0, 0, 0, 0];
    fill_data(&setup, 0xd00, &sampler.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    fill_data(&setup, 0x1000, &[0xff, 0x00, 0xff, 0xff]);
    fill_data(&setup, 0x1400, &[0xcc; 32]);
    let (headers, samplers) = (DATA + 0xc00, DATA + 0xd00);
    let mut words = launch_words();
    words.splice(
        2..2,
        [
            header::incrementing(1, 0x1574 / 4, 3),
            (headers >> 32) as u32,
            headers as u32,
            0,
            header::incrementing(1, 0x155c / 4, 3),
            (samplers >> 32) as u32,
            samplers as u32,
            0,
        ],
    );
    setup.submit(channel, &words).unwrap();
    let floats: Vec<f32> =
        setup.data(0x1400, 32).chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(floats, [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
}

/// A TSC's CUBEMAP_INTERFACE_FILTERING on the reference back end: a cube map of 1x1 faces (+X red, +Y green, the
/// rest black) sampled linearly (TEX.LZ, CLAMP_TO_EDGE) in direction (1, 0.5, 0). By the Vulkan specification's
/// cube map face selection that is face +X at (s, t) = (0.5, 0.25), a quarter texel from its edge with +Y:
/// filtered across the seam (AUTO_SPAN_SEAM, as NVN, NVK and nouveau ask for it) the texel row before it is +Y's,
/// giving 0.25 green and 0.75 red; with each face alone (USE_WRAP) the edge clamps to +X's own texel: red.
#[test]
fn cube_maps_filter_across_face_edges_only_when_the_sampler_asks() {
    let (mut setup, channel) = rendering_setup();
    if !crate::vulkan::ComputeDevice::shared_for_tests().features().non_seamless_cube_map {
        eprintln!("skipped: the device lacks VK_EXT_non_seamless_cube_map");
        return;
    }
    let out = DATA + 0x1e00;
    let program = crate::sass::assemble::sm5x(&format!(
        "MOV32I rd=0 imm32=0x3f800000 lanes=15
MOV32I rd=1 imm32=0x3f000000 lanes=15
MOV32I rd=2 imm32=0 lanes=15
TEX rd=4 ra=0 rb=255 target=6 mask=15 tex=0x52 lod=1
TEX rd=8 ra=0 rb=255 target=6 mask=15 tex=0x53 lod=1
MOV32I rd=12 imm32={:#x} lanes=15
MOV32I rd=13 imm32={:#x} lanes=15
STG rs=4 ra=12 e=1 size=6
STG rs=8 ra=12 offset=16 e=1 size=6
EXIT",
        out as u32,
        (out >> 32) as u32
    ))
    .unwrap();
    fill_data(&setup, 0x100, &program);
    fill_data(&setup, 0x400, &qmd_with_constants());
    // The handles at c[0][0x148] and c[0][0x14c]: header 0 with sampler 0, then with sampler 1.
    fill_data(&setup, 0xa00 + 0x148, &[0u32, 1 << 20].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    let texels = DATA + 0x1000;
    // BLOCKLINEAR, one GOB a block, CUBEMAP (TEXTURE_TYPE 3), 1x1, normalized; A8B8G8R8 UNORM, swizzle R G B A
    // (clb097tex.h NVB097_TEXHEAD_BL_*). Each face is one GOB of 512 bytes.
    let format = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    let header = [format, texels as u32, (texels >> 32) as u32 | 3 << 21, 0, 3 << 23, 1 << 31, 0, 0];
    fill_data(&setup, 0xc00, &header.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    // CLAMP_TO_EDGE (2) on every axis; linear MAG and MIN, MIP_NONE (NVB097_TEXSAMP0/1); the first sampler with
    // CUBEMAP_INTERFACE_FILTERING AUTO_SPAN_SEAM (2, bits 9:8), the second USE_WRAP (0).
    let words = |interface: u32| [2 | 2 << 3 | 2 << 6, 2 | 2 << 4 | 1 << 6 | interface << 8, 0, 0, 0, 0, 0, 0];
    let samplers: Vec<u8> = [words(2), words(0)].iter().flatten().flat_map(|w: &u32| w.to_le_bytes()).collect();
    fill_data(&setup, 0xd00, &samplers);
    let faces: [[u8; 4]; 6] = [[255, 0, 0, 255], [0, 0, 0, 255], [0, 255, 0, 255], [0, 0, 0, 255], [0; 4], [0; 4]];
    for (face, texel) in faces.iter().enumerate() {
        fill_data(&setup, 0x1000 + 0x200 * face as u64, texel);
    }
    fill_data(&setup, 0x1e00, &[0xcc; 32]);
    let (headers, samplers) = (DATA + 0xc00, DATA + 0xd00);
    let mut words = launch_words();
    words.splice(
        2..2,
        [
            header::incrementing(1, 0x1574 / 4, 3),
            (headers >> 32) as u32,
            headers as u32,
            0,
            header::incrementing(1, 0x155c / 4, 3),
            (samplers >> 32) as u32,
            samplers as u32,
            1,
        ],
    );
    setup.submit(channel, &words).unwrap();
    let floats: Vec<f32> =
        setup.data(0x1e00, 32).chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    let expected = [0.75, 0.25, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0];
    // Linear filtering's weights to Vulkan's least sub-texel precision (4 bits) are exact here: 1/2^8 covers the
    // UNORM texels' conversion.
    for (got, want) in floats.iter().zip(expected) {
        assert!((got - want).abs() < 1.0 / 256.0, "{floats:?}, expected {expected:?}");
    }
}

/// A Setup whose GPU renders with the reference back end on the Vulkan device (lavapipe in CI).
fn rendering_setup() -> (Setup, u32) {
    let mut setup = Setup::new();
    let device = crate::vulkan::ComputeDevice::shared_for_tests();
    setup.gpu.set_backend(Box::new(crate::backend::reference::ReferenceBackend::new(device)));
    let channel = setup.channel();
    (setup, channel)
}

/// Colour target 0 at DATA + `offset`: width (or pitch), height, format, memory (layout and block).
fn color_target(offset: u64, width: u32, height: u32, format: u32, memory: u32) -> Vec<u32> {
    let address = DATA + offset;
    let mut words = vec![header::non_incrementing(0, 0, 1), 0xb197];
    words.extend([
        header::incrementing(0, 0x800 / 4, 6),
        (address >> 32) as u32,
        address as u32,
        width,
        height,
        format,
        memory,
    ]);
    words
}

fn clear(value: [f32; 4], surface: u32) -> Vec<u32> {
    let mut words = vec![header::incrementing(0, 0xd80 / 4, 4)];
    words.extend(value.map(f32::to_bits));
    words.extend([header::incrementing(0, 0x19d0 / 4, 1), surface]);
    words
}

/// CLEAR_SURFACE's channel enables (R, G, B, A in bits 2-5).
const RGBA: u32 = 0xf << 2;

/// A block-linear A8B8G8R8 target cleared whole: every texel holds the value as the Vulkan spec converts it to
/// UNORM8 (round(f x 255)), at the address the block-linear layout gives it.
#[test]
fn a_clear_fills_a_block_linear_target_with_the_encoded_colour() {
    let (mut setup, channel) = rendering_setup();
    // 40 x 20 texels of 4 bytes, blocks two GOBs tall.
    let mut words = color_target(0, 40, 20, 0xd5, 1 << 4);
    words.extend(clear([0.2, 0.6, 0.8, 1.0], RGBA));
    setup.submit(channel, &words).unwrap();
    let layout = BlockLinear::new(160, 20, 1, 1, 0).unwrap();
    for y in 0..20 {
        for x in 0..40 {
            let at = layout.offset(4 * x, y, 0).unwrap();
            assert_eq!(setup.data(at, 4), [51, 153, 204, 255], "texel ({x}, {y})");
        }
    }
}

/// A clear with some channels off leaves the others' bits; the clear rectangle and scissor 0 cut it
/// (SET_CLEAR_SURFACE_CONTROL USE_CLEAR_RECT | USE_SCISSOR0).
#[test]
fn clears_honour_channel_masks_the_clear_rect_and_scissor() {
    let (mut setup, channel) = rendering_setup();
    fill_data(&setup, 0, &[0x11; 16 * 8 * 4]);
    // A pitch target: 16 x 8 texels, 64 bytes a row.
    let mut words = color_target(0, 64, 8, 0xd5, 1 << 12);
    words.extend([header::incrementing(0, 0x10f8 / 4, 1), 1 << 4 | 1 << 8]);
    words.extend([header::incrementing(0, 0xd6c / 4, 2), 2 | 12 << 16, 1 | 7 << 16]);
    words.extend([header::incrementing(0, 0xe00 / 4, 3), 1, 4 | 16 << 16, 0 | 5 << 16]);
    words.extend(clear([1.0, 0.0, 1.0, 0.0], 1 << 2 | 1 << 4));
    setup.submit(channel, &words).unwrap();
    for y in 0..8 {
        for x in 0..16 {
            let inside = (4..12).contains(&x) && (1..5).contains(&y);
            let expected = if inside { [255, 0x11, 255, 0x11] } else { [0x11; 4] };
            assert_eq!(setup.data(64 * y + 4 * x, 4), expected, "texel ({x}, {y})");
        }
    }
}

/// Packed and float formats: R5G6B5 holds R in bits 15:11 (round(31 x 1.0)), RF32 the float's bits.
#[test]
fn clears_encode_packed_and_float_formats() {
    let (mut setup, channel) = rendering_setup();
    let mut words = color_target(0, 8, 2, 0xe8, 1 << 12);
    words.extend(clear([1.0, 0.0, 1.0, 1.0], RGBA));
    words.extend(color_target(0x100, 16, 2, 0xe5, 1 << 12));
    words.extend(clear([-2.5, 9.0, 9.0, 9.0], RGBA));
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0, 8), [0x1f, 0xf8].repeat(4));
    assert_eq!(setup.data(0x100, 8), (-2.5f32).to_le_bytes().repeat(2));
}

/// SET_RENDER_ENABLE_OVERRIDE NEVER_RENDER drops the clear; RENDER_IF_EQUAL compares the two 64-bit words.
#[test]
fn render_enable_decides_whether_a_clear_happens() {
    let (mut setup, channel) = rendering_setup();
    let mut words = color_target(0, 4, 1, 0xf3, 1 << 12);
    words.extend([header::incrementing(0, 0x1944 / 4, 1), 2]);
    words.extend(clear([1.0; 4], RGBA));
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0, 4), [0; 4], "never render");
    fill_data(&setup, 0x200, &[7, 0, 0, 0, 0, 0, 0, 0]);
    fill_data(&setup, 0x210, &[7, 0, 0, 0, 0, 0, 0, 0]);
    let condition = DATA + 0x200;
    let mut words = vec![header::incrementing(0, 0x1944 / 4, 1), 0];
    words.extend([header::incrementing(0, 0x1550 / 4, 3), (condition >> 32) as u32, condition as u32, 3]);
    words.extend(clear([1.0; 4], RGBA));
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0, 4), [255; 4], "equal counters render");
}

/// The zeta target at DATA + `offset`: format, block height, size; selected.
fn depth_target(offset: u64, format: u32, width: u32, height: u32) -> Vec<u32> {
    let address = DATA + offset;
    let mut words = vec![header::non_incrementing(0, 0, 1), 0xb197];
    words.extend([header::incrementing(0, 0xfe0 / 4, 4), (address >> 32) as u32, address as u32, format, 0]);
    words.extend([header::incrementing(0, 0x1228 / 4, 3), width, height, 1]);
    words.extend([header::incrementing(0, 0x1538 / 4, 1), 1]);
    words
}

/// 1/3 as a float: x (2^24 - 1) and x (2^16 - 1) land just above whole numbers (5592405, 21845), so every
/// conversion the Vulkan spec allows gives those.
const ONE_THIRD: u32 = 0x3eaa_aaab;

/// Depth and stencil clears of S8Z24 (the Switch's D24S8: depth in 23:0, stencil in 31:24), Z16 and ZF32
/// targets; a stencil clear under RESPECT_STENCIL_MASK changes only SET_STENCIL_MASK's bits.
#[test]
fn depth_and_stencil_clears_encode_each_zeta_format() {
    let (mut setup, channel) = rendering_setup();
    let mut words = depth_target(0, 0x16, 16, 8);
    words.extend([header::incrementing(0, 0xd90 / 4, 1), ONE_THIRD, header::incrementing(0, 0xda0 / 4, 1), 0x5a]);
    words.extend([header::incrementing(0, 0x19d0 / 4, 1), 3]);
    setup.submit(channel, &words).unwrap();
    let s8z24 = (0x5au32 << 24 | 5_592_405).to_le_bytes();
    assert_eq!(setup.data(0, 16 * 8 * 4), s8z24.repeat(16 * 8), "one GOB: every texel");
    // Stencil only, 0xa5 under the write mask 0x0f: 0x5a becomes 0x55, depth stays.
    let mut words = vec![header::incrementing(0, 0x10f8 / 4, 1), 1, header::incrementing(0, 0x139c / 4, 1), 0x0f];
    words.extend([header::incrementing(0, 0xda0 / 4, 1), 0xa5, header::incrementing(0, 0x19d0 / 4, 1), 2]);
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0, 4), (0x55u32 << 24 | 5_592_405).to_le_bytes());
    let mut words = depth_target(0x1000, 0x13, 32, 8);
    words.extend([header::incrementing(0, 0x19d0 / 4, 1), 1]);
    words.extend(depth_target(0x2000, 0x0a, 16, 8));
    words.extend([header::incrementing(0, 0xd90 / 4, 1), 0x3e99_999a, header::incrementing(0, 0x19d0 / 4, 1), 1]);
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0x1000, 4), [21845u16.to_le_bytes(), 21845u16.to_le_bytes()].concat());
    assert_eq!(setup.data(0x2000, 4), 0x3e99_999au32.to_le_bytes(), "ZF32 holds the float as given");
    // Outside [0, 1]: ZF32 holds 2.0 as given, Z16 its 1.0 (UNORM clamps), and a NaN into Z16 is refused.
    let mut words = depth_target(0x2000, 0x0a, 16, 8);
    words.extend([header::incrementing(0, 0xd90 / 4, 1), 0x4000_0000, header::incrementing(0, 0x19d0 / 4, 1), 1]);
    words.extend(depth_target(0x1000, 0x13, 32, 8));
    words.extend([header::incrementing(0, 0x19d0 / 4, 1), 1]);
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0x2000, 4), 0x4000_0000u32.to_le_bytes(), "ZF32 holds 2.0");
    assert_eq!(setup.data(0x1000, 4), [0xffu8; 4], "Z16 holds 1.0");
    let words = [header::incrementing(0, 0xd90 / 4, 1), 0x7fc0_0000, header::incrementing(0, 0x19d0 / 4, 1), 1];
    let error = setup.submit(channel, &words).unwrap_err().to_string();
    assert!(error.contains("NaN"), "{error}");
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

/// The test programs' vertex program passing generic 0 as the position and generic 1 on, and pixel program
/// interpolating it with perspective: Maxwell's, or their SM86 twins for Ampere's 3D class.
fn triangle_programs(class: Class) -> (Vec<u8>, Vec<u8>) {
    let program = |source: &str| crate::sass::assemble::program(source).unwrap();
    match class {
        Class::Ampere3D => (
            program(include_str!("../../../tests/programs/shaders/pass86.vs.sasm")),
            program(include_str!("../../../tests/programs/shaders/perspective86.ps.sasm")),
        ),
        _ => (
            program(include_str!("../../../tests/programs/shaders/pass.vs.sasm")),
            program(include_str!("../../../tests/programs/shaders/perspective.ps.sasm")),
        ),
    }
}

/// A triangle drawn into a 64 x 32 pitch A8B8G8R8 target covers exactly the pixels whose centres the edge
/// functions put inside it (vertices on a 1/16-pixel grid, none on an edge: no rounding and no tie rule), and
/// its colour is the UNORM8 encoding of the vertices' (Vulkan's round(f x 255)); the rest keeps its texels.
#[test]
fn a_triangle_covers_the_pixels_its_edge_functions_give() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Maxwell3D);
    draw_triangle(Class::Maxwell3D, &vertex_program, &pixel_program, |_| true, BEGIN_DRAW_END);
}

/// The same triangle through Ampere's 3D class (C797): the programs are SM86 behind version 4 headers, found by
/// their addresses (SET_PIPELINE_PROGRAM_ADDRESS), and the vertex stream is bounded by its size.
#[test]
fn ampere_draws_the_triangle_with_sm86_programs() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Ampere3D);
    draw_triangle(Class::Ampere3D, &vertex_program, &pixel_program, |_| true, BEGIN_DRAW_END);
}

/// SM86's KILL ends a pixel program's invocation: with the pixels whose centres lie right of x = 32 killed
/// (`kill86.ps.sasm`), the triangle's left part takes its colour and its right part keeps the target's texels.
#[test]
fn sm86_kill_leaves_the_killed_pixels_alone() {
    let (vertex_program, _) = triangle_programs(Class::Ampere3D);
    let source = include_str!("../../../tests/programs/shaders/kill86.ps.sasm");
    let pixel_program = crate::sass::assemble::program(source).unwrap();
    draw_triangle(Class::Ampere3D, &vertex_program, &pixel_program, |x| x < 32, BEGIN_DRAW_END);
}

/// BEGIN (TRIANGLES), DRAW_VERTEX_ARRAY_START and DRAW_VERTEX_ARRAY (0, 3), END.
const BEGIN_DRAW_END: &[(u32, &[u32])] = &[(0x1618, &[4]), (0x0d74, &[0, 3]), (0x1614, &[0])];

/// Ampere's one-method draws: SET_DRAW_CONTROL_A's topology (TRIANGLES) and instance (FIRST), the first
/// vertex in DRAW_VERTEX_ARRAY_BEGIN_END_A and the count in _B, which launches; the same for the index buffer
/// (three 16-bit indices from index 1).
#[test]
fn ampere_draws_the_triangle_through_draw_control() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Ampere3D);
    let arrays: &[(u32, &[u32])] = &[(0x0260, &[4]), (0x0270, &[0, 3])];
    draw_triangle(Class::Ampere3D, &vertex_program, &pixel_program, |_| true, arrays);
    // The indices at DATA + 0x1880 (`draw_triangle`'s 9, 0, 1, 2), 8 bytes, TWO_BYTES, from index 1.
    let at = DATA + 0x1880;
    let indexed: &[(u32, &[u32])] = &[
        (0x17c8, &[(at >> 32) as u32, at as u32]),
        (0x0238, &[0, 8]),
        (0x17d8, &[1]),
        (0x0260, &[4]),
        (0x0268, &[1, 3]),
    ];
    draw_triangle(Class::Ampere3D, &vertex_program, &pixel_program, |_| true, indexed);
}

/// SET_DRAW_CONTROL_A's instance iteration draws each of SET_DRAW_CONTROL_B's instances as a draw of its own
/// (`tests/programs/gpu-draw.c` checks two): more than the reference back end's bound stop the draw by name
/// before any runs.
#[test]
fn ampere_draw_control_iterations_past_the_bound_stop_by_name() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    let words = [
        header::non_incrementing(0, 0, 1),
        0xc797,
        header::incrementing(0, 0x260 / 4, 4),
        4 | 1 << 9,
        (1 << 16) + 1,
        0,
        3,
    ];
    let error = setup.submit(channel, &words).unwrap_err().to_string();
    assert!(error.contains("DRAW_INDEX_BUFFER_BEGIN_END_B") && error.contains("65537 instances"), "{error}");
}

/// Packed inline indices after SET_INLINE_INDEX2X16_ALIGN or _4X8_ALIGN (whose count and first slot are
/// documented by their names only) stop the draw naming the method.
#[test]
fn inline_indices_past_what_is_known_stop_by_name() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    for (align, draw, name) in
        [(0x15ec, 0x15f0, "SET_INLINE_INDEX2X16_ALIGN"), (0x1300, 0x1304, "SET_INLINE_INDEX4X8_ALIGN")]
    {
        let words = [
            header::non_incrementing(0, 0, 1),
            0xb197,
            header::incrementing(0, 0x1618 / 4, 1),
            4,
            header::incrementing(0, align / 4, 2),
            3,
            0x0001_0000,
        ];
        let error = setup.submit(channel, &words).unwrap_err().to_string();
        assert!(error.contains(name) && error.contains(&format!("{draw:#06x}")), "{error}");
    }
}

/// Ampere's REPORT_SEMAPHORE_EXECUTE releases its 64-bit payload at the address before it, in the structure
/// clc797.h's fields ask for: one word (the low one), two words (PAYLOAD_SIZE64), four words (the payload
/// and the timestamp), or reduced with the word in memory (REDUCTION_ENABLE, RED_ADD).
#[test]
fn ampere_report_semaphore_execute_releases_its_payload() {
    let mut setup = Setup::new();
    let channel = setup.channel();
    fill_data(&setup, 0x100, &[0xee; 0x60]);
    fill_data(&setup, 0x140, &5u32.to_le_bytes());
    let mut words = vec![header::non_incrementing(0, 0, 1), 0xc797];
    let payload = 0x1122_3344_5566_7788u64;
    // OPERATION RELEASE (1:0 = 0); STRUCTURE_SIZE 14:13; REDUCTION_ENABLE 20, REDUCTION_OP 23:21 (0 ADD);
    // PAYLOAD_SIZE64 27.
    for (offset, execute) in
        [(0x100u64, 1 << 13), (0x110, 2 << 13 | 1 << 27), (0x120, 1 << 27), (0x140, 1 << 13 | 1 << 20)]
    {
        let address = DATA + offset;
        words.push(header::incrementing(0, 0x158 / 4, 5));
        words.extend([payload as u32, (payload >> 32) as u32, address as u32, (address >> 32) as u32, execute]);
    }
    setup.submit(channel, &words).unwrap();
    assert_eq!(setup.data(0x100, 8), [0x88, 0x77, 0x66, 0x55, 0xee, 0xee, 0xee, 0xee], "one word");
    assert_eq!(setup.data(0x110, 10), [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xee, 0xee], "two words");
    assert_eq!(setup.data(0x120, 8), payload.to_le_bytes(), "four words: the payload first");
    assert_eq!(setup.data(0x130, 1), [0xee], "four words: nothing past the structure");
    assert_eq!(setup.data(0x140, 4), (5 + 0x5566_7788u32).to_le_bytes(), "RED_ADD of the low word");

    let trap = [header::non_incrementing(0, 0, 1), 0xc797, header::incrementing(0, 0x168 / 4, 1), 3];
    let error = setup.submit(channel, &trap).unwrap_err().to_string();
    assert!(error.contains("REPORT_SEMAPHORE_EXECUTE") && error.contains("trap"), "{error}");
}

/// The test triangle's corners, in 1/16 pixel.
const TRIANGLE: [(i64, i64); 3] = [(81, 50), (931, 145), (324, 473)];

/// `(b - a) x (p - a)`: which side of the edge from a to b point p lies on (0: on it).
fn edge((ax, ay): (i64, i64), (bx, by): (i64, i64), (px, py): (i64, i64)) -> i64 {
    (bx - ax) * (py - ay) - (by - ay) * (px - ax)
}

/// Draws the triangle through `class` with these programs and `draw`'s methods (the launch); of the pixels
/// inside it, those whose column `drawn` accepts take its colour.
fn draw_triangle(
    class: Class,
    vertex_program: &[u8],
    pixel_program: &[u8],
    drawn: fn(i64) -> bool,
    draw: &[(u32, &[u32])],
) {
    let corners = TRIANGLE;
    let (setup, submitted) = submit_triangle(class, vertex_program, pixel_program, corners, draw);
    submitted.unwrap();
    if class == Class::Ampere3D {
        assert_eq!(setup.data(0x1800, 8), 3u64.to_le_bytes(), "the vertices the draw launched");
        assert_eq!(setup.data(0x1810, 8), 1u64.to_le_bytes(), "the primitives the draw launched");
    }
    let mut covered = 0;
    for y in 0..32i64 {
        for x in 0..64i64 {
            let centre = (16 * x + 8, 16 * y + 8);
            let e = [
                edge(corners[0], corners[1], centre),
                edge(corners[1], corners[2], centre),
                edge(corners[2], corners[0], centre),
            ];
            assert!(!e.contains(&0), "the fixture puts pixel ({x}, {y})'s centre on an edge");
            let inside = (e.iter().all(|&v| v > 0) || e.iter().all(|&v| v < 0)) && drawn(x);
            covered += usize::from(inside);
            let expected = if inside { [51, 153, 204, 255] } else { [0x11; 4] };
            assert_eq!(setup.data(0x2000 + 256 * y as u64 + 4 * x as u64, 4), expected, "pixel ({x}, {y})");
        }
    }
    assert!(covered > 300, "the triangle covers {covered} pixels");
}

/// Whether pixel (x, y)'s square, grown by `margin` (1/16 pixel) on each side, meets the closed triangle:
/// no separating axis among x, y and the triangle's edge normals.
fn square_meets(corners: [(i64, i64); 3], x: i64, y: i64, margin: i64) -> bool {
    let (x0, x1, y0, y1) = (16 * x - margin, 16 * x + 16 + margin, 16 * y - margin, 16 * y + 16 + margin);
    let apart = |outside: &dyn Fn((i64, i64)) -> bool| corners.iter().all(|&corner| outside(corner));
    if apart(&|(cx, _)| cx < x0) || apart(&|(cx, _)| cx > x1) || apart(&|(_, cy)| cy < y0) || apart(&|(_, cy)| cy > y1)
    {
        return false;
    }
    (0..3).all(|i| {
        let (a, b, c) = (corners[i], corners[(i + 1) % 3], corners[(i + 2) % 3]);
        let inner = edge(a, b, c).signum();
        [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].iter().any(|&p| edge(a, b, p).signum() != -inner)
    })
}

/// SET_CONSERVATIVE_RASTER: a sliver covers every pixel whose square it touches (Vulkan's overestimation,
/// which may grow it a little more: pixels within 1/4 pixel of it are not checked). A device without
/// VK_EXT_conservative_rasterization (lavapipe of Debian 12) stops the draw naming the extension.
#[test]
fn conservative_rasterisation_covers_every_pixel_a_triangle_touches() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Maxwell3D);
    let sliver = [(83, 70), (931, 181), (90, 101)];
    let draw: &[(u32, &[u32])] = &[(0x1148, &[1]), (0x1618, &[4]), (0x0d74, &[0, 3]), (0x1614, &[0])];
    let (setup, submitted) = submit_triangle(Class::Maxwell3D, &vertex_program, &pixel_program, sliver, draw);
    if let Err(error) = submitted {
        let error = error.to_string();
        assert!(error.contains("lacks VK_EXT_conservative_rasterization"), "{error}");
        return;
    }
    let mut covered = 0;
    for y in 0..32i64 {
        for x in 0..64i64 {
            let (must, may) = (square_meets(sliver, x, y, 0), square_meets(sliver, x, y, 4));
            covered += usize::from(must);
            let texel = setup.data(0x2000 + 256 * y as u64 + 4 * x as u64, 4);
            match (must, may) {
                (true, _) => assert_eq!(texel, [51, 153, 204, 255], "pixel ({x}, {y}) is touched"),
                (false, false) => assert_eq!(texel, [0x11; 4], "pixel ({x}, {y}) is not"),
                (false, true) => assert!(texel == [0x11; 4] || texel == [51, 153, 204, 255], "pixel ({x}, {y})"),
            }
        }
    }
    assert!(covered > 60, "the sliver touches {covered} pixels");
}

/// Depth or stencil writes to a part of a zeta target SET_ZT_READ_ONLY marks read-only (ENABLE_Z, ENABLE_STENCIL)
/// stop the draw naming it (its effect is documented by the field names only); writes to the other part, or
/// none, draw.
#[test]
fn writes_to_a_read_only_zeta_target_stop_the_draw() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Maxwell3D);
    let triangle = [(83, 70), (931, 181), (90, 101)];
    // A Z24S8 zeta target after the colour target, the depth test ALWAYS.
    let address = DATA + 0x4000;
    let zeta: &[(u32, &[u32])] =
        &[(0x0fe0, &[(address >> 32) as u32, address as u32, 0x14, 0, 0]), (0x1228, &[64, 32, 1]), (0x1538, &[1])];
    let depth_test: &[(u32, &[u32])] = &[(0x12cc, &[1]), (0x130c, &[0x207])];
    // The stencil test ALWAYS, replacing with 1 where it passes (fail and depth fail KEEP), every bit written.
    let stencil: &[(u32, &[u32])] = &[(0x1380, &[1, 0x1e00, 0x1e00, 0x1e01, 0x207, 1, 0xff, 0xff])];
    let launch: &[(u32, &[u32])] = &[(0x1618, &[4]), (0x0d74, &[0, 3]), (0x1614, &[0])];
    let cases = [
        // SET_ZT_READ_ONLY, depth writes, stencil writes, refused.
        (0x01, true, false, true),
        (0x01, false, false, false),
        (0x01, false, true, false),
        (0x10, false, true, true),
        (0x10, true, false, false),
    ];
    for (read_only, depth_write, stencil_write, refused) in cases {
        let read_only = [read_only];
        let depth_write = [u32::from(depth_write)];
        let draw: Vec<(u32, &[u32])> = zeta
            .iter()
            .chain(depth_test)
            .copied()
            .chain([(0x07f8, &read_only[..]), (0x12e8, &depth_write[..])])
            .chain(stencil.iter().copied().filter(|_| stencil_write))
            .chain(launch.iter().copied())
            .collect();
        let (_, submitted) = submit_triangle(Class::Maxwell3D, &vertex_program, &pixel_program, triangle, &draw);
        let case =
            format!("SET_ZT_READ_ONLY {:#x}, depth writes {depth_write:?}, stencil {stencil_write}", read_only[0]);
        match submitted {
            Err(error) => {
                let error = error.to_string();
                assert!(refused && error.contains("SET_ZT_READ_ONLY"), "{case}: {error}");
            }
            Ok(_) => assert!(!refused, "{case}: writes to a read-only part were drawn"),
        }
    }
}

/// Fixed-function state the reference does not draw stops a draw naming it: each enable of `raster::UNDRAWN`, and
/// anti-aliased points where points are drawn (a triangle is drawn with them on, and with two-sided lighting).
#[test]
fn state_the_reference_does_not_draw_stops_the_draw() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Maxwell3D);
    let triangle = [(83, 70), (931, 181), (90, 101)];
    let cases: [(u32, u32, Option<&str>); 8] = [
        (0x0db4, 4, Some("SET_POLY_SMOOTH")),
        (0x0f40, 4, Some("SET_CONSTANT_COLOR_RENDERING")),
        (0x11f8, 4, Some("SET_COVERAGE_TO_COLOR")),
        (0x0dd0, 4, Some("SET_ITERATED_BLEND")),
        // SET_TWO_SIDED_LIGHT: nothing a program without legacy colours reads changes.
        (0x1688, 4, None),
        (0x161c, 4, Some("SET_VERTEX_ID_COPY")),
        (0x1658, 0, Some("SET_ANTI_ALIASED_POINT")),
        (0x1658, 4, None),
    ];
    for (method, topology, named) in cases {
        let draw: &[(u32, &[u32])] = &[(method, &[1]), (0x1618, &[topology]), (0x0d74, &[0, 3]), (0x1614, &[0])];
        let (_, submitted) = submit_triangle(Class::Maxwell3D, &vertex_program, &pixel_program, triangle, draw);
        match (submitted, named) {
            (Err(error), Some(named)) => assert!(error.to_string().contains(named), "{error}"),
            (Ok(()), None) => {}
            (result, named) => panic!("method {method:#x}, topology {topology}: {result:?}, wanted {named:?}"),
        }
    }
}

/// Pixel centres at integers (SET_VIEWPORT_PIXEL CENTER_AT_INTEGERS, D3D9's rule), a window offset
/// (SET_WINDOW_OFFSET_Y) and a program in pipeline slot 0 stop the draw naming them.
#[test]
fn state_documented_nowhere_stops_the_draw() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Maxwell3D);
    let triangle = [(83, 70), (931, 181), (90, 101)];
    let stopping = [
        (0x1924, "SET_VIEWPORT_PIXEL CENTER_AT_INTEGERS"),
        (0x0dfc, "SET_WINDOW_OFFSET_X/Y"),
        // SET_PIPELINE_SHADER(0): ENABLE with TYPE VERTEX_CULL_BEFORE_FETCH.
        (0x2000, "pipeline slot 0 (vertex A"),
    ];
    for (method, named) in stopping {
        let draw: &[(u32, &[u32])] = &[(method, &[1]), (0x1618, &[4]), (0x0d74, &[0, 3]), (0x1614, &[0])];
        let (_, submitted) = submit_triangle(Class::Maxwell3D, &vertex_program, &pixel_program, triangle, draw);
        let error = submitted.expect_err("the draw is refused").to_string();
        assert!(error.contains(named), "{error}");
    }
}

/// A colour target whose block is taller than 32 GOBs (SET_COLOR_TARGET_MEMORY BLOCK_HEIGHT 7: no layout has it)
/// is refused by name when drawn into, not read.
#[test]
fn a_target_of_no_layout_is_refused() {
    let (vertex_program, pixel_program) = triangle_programs(Class::Maxwell3D);
    let triangle = [(83, 70), (931, 181), (90, 101)];
    let draw: &[(u32, &[u32])] = &[(0x814, &[7 << 4]), (0x1618, &[4]), (0x0d74, &[0, 3]), (0x1614, &[0])];
    let (_, submitted) = submit_triangle(Class::Maxwell3D, &vertex_program, &pixel_program, triangle, draw);
    let error = submitted.expect_err("the draw is refused").to_string();
    assert!(error.contains("outside its surface"), "{error}");
}

/// Submits a triangle with these corners (1/16 pixel) through `class` with these programs and `draw`'s
/// methods (the launch), into a 64 x 32 pitch A8B8G8R8 target of 0x11 bytes at DATA + 0x2000.
fn submit_triangle(
    class: Class,
    vertex_program: &[u8],
    pixel_program: &[u8],
    corners: [(i64, i64); 3],
    draw: &[(u32, &[u32])],
) -> (Setup, Result<(), GpuError>) {
    let (mut setup, channel) = rendering_setup();
    fill_data(&setup, 0x1000, vertex_program);
    fill_data(&setup, 0x1200, pixel_program);
    // 16-bit indices for the draws that read them: 9, then the triangle's vertices 0, 1, 2.
    fill_data(&setup, 0x1880, &[9u16, 0, 1, 2].map(u16::to_le_bytes).concat());
    fill_data(&setup, 0x2000, &[0x11; 64 * 4 * 32]);
    // Window coordinates in 1/16 pixel; NDC = (window - 32 or 16) / (32 or 16), exact.
    let colour = [0.2f32, 0.6, 0.8, 1.0];
    let mut vertices = Vec::new();
    for (x, y) in corners {
        let ndc = [(x as f32 / 16.0 - 32.0) / 32.0, (y as f32 / 16.0 - 16.0) / 16.0, 0.5, 1.0];
        vertices.extend(ndc.iter().chain(&colour).flat_map(|f| f.to_le_bytes()));
    }
    fill_data(&setup, 0x800, &vertices);
    let at = |offset: u64| [((DATA + offset) >> 32) as u32, (DATA + offset) as u32];
    let mut words = color_target(0x2000, 256, 32, 0xd5, 1 << 12);
    words[1] = class.id();
    let mut method = |offset: u32, values: &[u32]| {
        words.push(header::incrementing(0, offset / 4, values.len() as u32));
        words.extend_from_slice(values);
    };
    method(0x121c, &[1]);
    method(0x1a00, &[0x1111]);
    method(0x0a00, &[32f32, 16.0, 0.5, 32.0, 16.0, 0.5].map(f32::to_bits));
    method(0x192c, &[1]);
    method(0x0c00, &[64 << 16, 32 << 16]);
    method(0x0ff4, &[64 << 16, 32 << 16]);
    method(0x0d7c, &[1]);
    method(0x037c, &[1]);
    // Generic 0 at byte 0 and generic 1 at byte 16 of stream 0: four floats each.
    method(0x1160, &[1 << 21 | 7 << 27, 16 << 7 | 1 << 21 | 7 << 27]);
    let [high, low] = at(0x800);
    method(0x1c00, &[32 | 1 << 12, high, low]);
    if class == Class::Ampere3D {
        // Pipeline slots 1 (vertex B) and 5 (pixel): enabled with their type, then the programs' addresses.
        method(0x2040, &[1 | 1 << 4]);
        method(0x2054, &at(0x1000));
        method(0x2140, &[1 | 5 << 4]);
        method(0x2154, &at(0x1200));
        method(0x0600, &[0, 3 * 32]);
    } else {
        method(0x1608, &at(0x1000));
        method(0x2040, &[1 | 1 << 4, 0]);
        method(0x2140, &[1 | 5 << 4, 0x200]);
        method(0x1f00, &[high, low + 3 * 32 - 1]);
    }
    // SET_STATISTICS_COUNTER: the vertices and primitives generated counted.
    method(0x0d68, &[3]);
    for (offset, values) in draw {
        method(*offset, values);
    }
    if class == Class::Ampere3D {
        // REPORT_SEMAPHORE_EXECUTE, REPORT_ONLY (2): DA_VERTICES_GENERATED (1, REPORT 11:7) as two words,
        // DA_PRIMITIVES_GENERATED (3) as four (the count, then the timestamp).
        for (offset, report, size) in [(0x1800, 1, 2), (0x1810, 3, 0)] {
            let [high, low] = at(offset);
            method(0x0160, &[low, high, 2 | report << 7 | size << 13]);
        }
    }
    let submitted = setup.submit(channel, &words).map(|_| ());
    (setup, submitted)
}
