//! Inline-to-memory (A140) and the copy engine (B0B5): pitch and block-linear lines, remaps, limits.

use super::*;

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
