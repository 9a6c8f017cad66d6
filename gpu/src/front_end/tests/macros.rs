//! The macro engine (MME) as pushbuffers reach it: uploads, calls, parameters, shadow RAM.

use super::*;

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
