//! Compute launches (B1C0/C7C0 QMDs) on the reference back end: constants, reports, surfaces, textures.

use super::*;

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
/// tex.cpp "TEX 3D").
#[test]
fn a_texture_read_as_another_dimension_reads_zeros() {
    let (mut setup, channel) = rendering_setup();
    fill_data(&setup, 0x1000, &[0xff, 0x00, 0xff, 0xff]);
    // THREE_D (TEXTURE_TYPE 2), 1x1x1; nearest filters and levels (NVB097_TEXSAMP1: MAG_FILTER, MIN_FILTER,
    // MIP_FILTER).
    let sampler = [0u32, 1 | 1 << 4 | 1 << 6, 0, 0, 0, 0, 0, 0];
    let floats = two_texture_reads(&mut setup, channel, [0x3f00_0000; 3], [(4, 0), (2, 0)], 2, &[sampler]);
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
    // Each face one GOB of 512 bytes.
    let faces: [[u8; 4]; 6] = [[255, 0, 0, 255], [0, 0, 0, 255], [0, 255, 0, 255], [0, 0, 0, 255], [0; 4], [0; 4]];
    for (face, texel) in faces.iter().enumerate() {
        fill_data(&setup, 0x1000 + 0x200 * face as u64, texel);
    }
    // CLAMP_TO_EDGE (2) on every axis; linear MAG and MIN, MIP_NONE (NVB097_TEXSAMP0/1); the first sampler with
    // CUBEMAP_INTERFACE_FILTERING AUTO_SPAN_SEAM (2, bits 9:8), the second USE_WRAP (0).
    let sampler = |interface: u32| [2 | 2 << 3 | 2 << 6, 2 | 2 << 4 | 1 << 6 | interface << 8, 0, 0, 0, 0, 0, 0];
    let direction = [0x3f80_0000, 0x3f00_0000, 0];
    // CUBEMAP is TEXTURE_TYPE 3.
    let floats = two_texture_reads(&mut setup, channel, direction, [(6, 0), (6, 1)], 3, &[sampler(2), sampler(0)]);
    let expected = [0.75, 0.25, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0];
    // Linear filtering's weights to Vulkan's least sub-texel precision (4 bits) are exact here: 1/2^8 covers the
    // UNORM texels' conversion.
    for (got, want) in floats.iter().zip(expected) {
        assert!((got - want).abs() < 1.0 / 256.0, "{floats:?}, expected {expected:?}");
    }
}

/// Runs a compute kernel of two TEX.LZ reads at FP32 `coordinates` (R0-R2), each of texture target `target`
/// through the handle of header 0 and sampler `sampler` (each handle in c[0][0x148 + 4 i]), and returns the eight
/// FP32 components they read. Header 0 is a 1x1 (x1) block-linear A8B8G8R8 UNORM texture of type `texture_type`
/// (swizzle R G B A, normalized coordinates, one GOB a block: clb097tex.h NVB097_TEXHEAD_BL_*) whose texels the
/// caller put at DATA + 0x1000; `samplers` are the sampler pool's words.
fn two_texture_reads(
    setup: &mut Setup,
    channel: u32,
    coordinates: [u32; 3],
    reads: [(u32, u32); 2],
    texture_type: u32,
    samplers: &[[u32; 8]],
) -> Vec<f32> {
    let out = DATA + 0x1e00;
    let [x, y, z] = coordinates;
    let [(first, first_sampler), (second, second_sampler)] = reads;
    let program = crate::sass::assemble::sm5x(&format!(
        "MOV32I rd=0 imm32={x:#x} lanes=15
MOV32I rd=1 imm32={y:#x} lanes=15
MOV32I rd=2 imm32={z:#x} lanes=15
TEX rd=4 ra=0 rb=255 target={first} mask=15 tex=0x52 lod=1
TEX rd=8 ra=0 rb=255 target={second} mask=15 tex=0x53 lod=1
MOV32I rd=12 imm32={:#x} lanes=15
MOV32I rd=13 imm32={:#x} lanes=15
STG rs=4 ra=12 e=1 size=6
STG rs=8 ra=12 offset=16 e=1 size=6
EXIT",
        out as u32,
        (out >> 32) as u32
    ))
    .unwrap();
    let words = |words: &[u32]| words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    fill_data(setup, 0x100, &program);
    fill_data(setup, 0x400, &qmd_with_constants());
    fill_data(setup, 0xa00 + 0x148, &words(&[first_sampler << 20, second_sampler << 20]));
    let texels = DATA + 0x1000;
    let format = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    let header = [format, texels as u32, (texels >> 32) as u32 | 3 << 21, 0, texture_type << 23, 1 << 31, 0, 0];
    fill_data(setup, 0xc00, &words(&header));
    fill_data(setup, 0xd00, &words(&samplers.concat()));
    fill_data(setup, 0x1e00, &[0xcc; 32]);
    let (headers, sampler_pool) = (DATA + 0xc00, DATA + 0xd00);
    let mut launch = launch_words();
    launch.splice(
        2..2,
        [
            header::incrementing(1, 0x1574 / 4, 3),
            (headers >> 32) as u32,
            headers as u32,
            0,
            header::incrementing(1, 0x155c / 4, 3),
            (sampler_pool >> 32) as u32,
            sampler_pool as u32,
            samplers.len() as u32 - 1,
        ],
    );
    setup.submit(channel, &launch).unwrap();
    setup.data(0x1e00, 32).chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect()
}
