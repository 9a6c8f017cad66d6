//! The 3D engine's clears and draws on the reference back end, checked against what the formats and edge
//! functions give.

use super::*;

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

/// The test programs' vertex program passing generic 0 as the position and generic 1 on, and pixel program
/// interpolating it with perspective: Maxwell's, or their SM86 twins for Ampere's 3D class.
fn triangle_programs(class: Class) -> (Vec<u8>, Vec<u8>) {
    let program = |source: &str| crate::sass::assemble::program(source).unwrap();
    match class {
        Class::Ampere3D => (
            program(include_str!("../../../../tests/programs/shaders/pass86.vs.sasm")),
            program(include_str!("../../../../tests/programs/shaders/perspective86.ps.sasm")),
        ),
        _ => (
            program(include_str!("../../../../tests/programs/shaders/pass.vs.sasm")),
            program(include_str!("../../../../tests/programs/shaders/perspective.ps.sasm")),
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
    let source = include_str!("../../../../tests/programs/shaders/kill86.ps.sasm");
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
