//! Advanced SIMD arithmetic, one instruction per row: the word (from `llvm-mc -show-encoding`), its disassembly,
//! the registers before, and V0 and FPSR after, worked out by hand from the Arm ARM pseudocode. Corner cases the
//! differential suite's random states rarely reach are here: saturation on both sides (FPSR.QC), rounding
//! constants, the upper-half ("2") forms that keep the lower half, scalar writes that clear the rest of the
//! register, FP16 lanes, round to odd, and NaN handling in the pairwise and across-lanes reductions.

use tandem_reference::disasm::disassemble;
use tandem_reference::{CpuState, Engine, Exit, GuestClock, GuestMemory, Interpreter, Perm};

const CODE: u64 = 0x10000;
const QC: u32 = 1 << 27;
const IOC: u32 = 1 << 0;
const IXC: u32 = 1 << 4;
/// FPCR.RMode = round towards plus infinity.
const RP: u32 = 1 << 22;
/// Bits the instruction must not touch: the cases that write part of V0 check that the rest stays.
const JUNK: u128 = 0xdead_beef_dead_beef_dead_beef_dead_beef;

struct Case {
    text: &'static str,
    word: u32,
    /// V0, V1, V2 before.
    v: [u128; 3],
    fpcr: u32,
    /// V0 and FPSR after (FPSR is zero before).
    expect: (u128, u32),
}

const fn case(text: &'static str, word: u32, v: [u128; 3], fpcr: u32, expect: (u128, u32)) -> Case {
    Case { text, word, v, fpcr, expect }
}

/// Halfwords, lowest lane first.
fn h(lanes: &[u16]) -> u128 {
    lanes.iter().rev().fold(0, |acc, &x| acc << 16 | u128::from(x))
}

/// Words, lowest lane first.
fn s(lanes: &[u32]) -> u128 {
    lanes.iter().rev().fold(0, |acc, &x| acc << 32 | u128::from(x))
}

/// Doublewords, lowest lane first.
fn d(lanes: &[u64]) -> u128 {
    lanes.iter().rev().fold(0, |acc, &x| acc << 64 | u128::from(x))
}

fn cases() -> Vec<Case> {
    vec![
        // 127 + 1 and -128 + -1 saturate; 0x10 + 0x20 does not.
        case("sqadd v0.16b, v1.16b, v2.16b", 0x4e22_0c20, [0, 0x10_80_7f, 0x20_ff_01], 0, (0x30_80_7f, QC)),
        // 5 - 7 saturates to 0; the scalar write clears the rest of V0.
        case("uqsub h0, h1, h2", 0x7e62_2c20, [u128::MAX, 0xffff_0005, 7], 0, (0, QC)),
        // Shift by SInt(0xff) = -1 with rounding: (-3 + 1) >> 1 = -1; the bits above the low byte are ignored.
        case("srshl d0, d1, d2", 0x5ee2_5420, [0, d(&[(-3i64) as u64]), 0x1234_0000_0000_00ff], 0, (d(&[u64::MAX]), 0)),
        // By element 7 (H:L:M), -0x8000: (-0x8000)^2 doubled saturates.
        case(
            "sqdmulh v0.4h, v1.4h, v2.h[7]",
            0x0f72_c820,
            [JUNK, h(&[0x8000, 0x4000, 0x0001, 0xffff]), 0x8000 << 112],
            0,
            (h(&[0x7fff, 0xc000, 0xffff, 0x0001]), QC),
        ),
        // (16 << 32) - 2^61 + 2^31, >> 32: 16 - 2^29.
        case("sqrdmlah s0, s1, s2", 0x7e82_8420, [0x10, 0x4000_0000, 0xc000_0000], 0, (0xe000_0010, 0)),
        // Element 3 of V2 is the bytes 1, -1, 2, -2.
        case(
            "sdot v0.4s, v1.16b, v2.4b[3]",
            0x4fa2_e820,
            [s(&[10, u32::MAX, 5, 0x8000_0000]), s(&[0x0403_0201, u32::MAX, 0x807f_7f7f, 0]), 0xfe02_ff01 << 96],
            0,
            (s(&[7, u32::MAX, 515, 0x8000_0000]), 0),
        ),
        case(
            "udot v0.2s, v1.8b, v2.8b",
            0x2e82_9420,
            [s(&[1, 2, 3, 4]), s(&[u32::MAX, 0x0403_0201]), s(&[u32::MAX, 0x0102_0304])],
            0,
            (s(&[0x3_f805, 22]), 0),
        ),
        // (x^63 + 1)(x + 1) = x^64 + x^63 + x + 1.
        case(
            "pmull2 v0.1q, v1.2d, v2.2d",
            0x4ee2_e020,
            [0, d(&[7, 0x8000_0000_0000_0001]), d(&[9, 3])],
            0,
            (0x1_8000_0000_0000_0003, 0),
        ),
        case(
            "umlal2 v0.4s, v1.8h, v2.8h",
            0x6e62_8020,
            [s(&[1, u32::MAX, 0, 0x1234]), h(&[9, 9, 9, 9, 0xffff, 2, 3, 0]), h(&[9, 9, 9, 9, 0xffff, 0x8000, 5, 7])],
            0,
            (s(&[0xfffe_0002, 0xffff, 15, 0x1234]), 0),
        ),
        // The rounded high halves go to the upper half of V0; the lower half stays.
        case(
            "raddhn2 v0.16b, v1.8h, v2.8h",
            0x6e22_4020,
            [JUNK, h(&[0x1280, 0x00ff, 0xff80, 0x7fff]), h(&[0, 1, 0x80, 1])],
            0,
            (0x8000_0113 << 64 | (JUNK & u128::from(u64::MAX)), 0),
        ),
        // The doubled product saturates (QC) before the accumulation, which then does not.
        case("sqdmlal s0, h1, h2", 0x5e62_9020, [u128::from(u32::MAX), 0x8000, 0x8000], 0, (0x7fff_fffe, QC)),
        case(
            "shll2 v0.4s, v1.8h, #16",
            0x6e61_3820,
            [JUNK, h(&[1, 2, 3, 4, 0x1234, 0xffff, 0, 0x8000]), 0],
            0,
            (s(&[0x1234_0000, 0xffff_0000, 0, 0x8000_0000]), 0),
        ),
        case(
            "uadalp v0.2d, v1.4s",
            0x6ea0_6820,
            [d(&[u64::MAX, 10]), s(&[u32::MAX, u32::MAX, 1, 2]), 0],
            0,
            (d(&[0x1_ffff_fffd, 13]), 0),
        ),
        // -128 saturates to 0 unsigned.
        case("sqxtun b0, h1", 0x7e21_2820, [JUNK, 0xff80, 0], 0, (0, QC)),
        // 1 + 2^-25 rounds to odd: 1 + 2^-23, inexact; into the upper half.
        case(
            "fcvtxn2 v0.4s, v1.2d",
            0x6e61_6820,
            [0xaaaa, d(&[0x3ff0_0000_0800_0000, 0x4000_0000_0000_0000]), 0],
            0,
            (s(&[0xaaaa, 0, 0x3f80_0001, 0x4000_0000]), IXC),
        ),
        case(
            "fcvtl v0.2d, v1.2s",
            0x0e61_7820,
            [JUNK, s(&[0x3fc0_0000, 0xff80_0000, 9, 9]), 0],
            0,
            (d(&[0x3ff8_0000_0000_0000, 0xfff0_0000_0000_0000]), 0),
        ),
        case(
            "urecpe v0.4s, v1.4s",
            0x4ea1_c820,
            [0, s(&[0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xc000_0000]), 0],
            0,
            (s(&[0xffff_ffff, 0xff80_0000, 0x8000_0000, 0xaa80_0000]), 0),
        ),
        case("cnt v0.16b, v1.16b", 0x4e20_5820, [JUNK, 0xff_0f_01_00, 0], 0, (0x08_04_01_00, 0)),
        case(
            "rev32 v0.8h, v1.8h",
            0x6e60_0820,
            [0, h(&[1, 2, 3, 4, 5, 6, 7, 8]), 0],
            0,
            (h(&[2, 1, 4, 3, 6, 5, 8, 7]), 0),
        ),
        case("cmle d0, d1, #0", 0x7ee0_9820, [0, 0xffff << 64, 0], 0, (d(&[u64::MAX]), 0)),
        // Sixteen times -128.
        case("saddlv h0, v1.16b", 0x4e30_3820, [JUNK, u128::from_le_bytes([0x80; 16]), 0], 0, (0xf800, 0)),
        // Reduce pairs (qNaN, 1.0) -> 1.0, (-2.0, inf) -> -2.0, (denormal, qNaN), (qNaN, qNaN) -> qNaN, then
        // halves: the minimum number is -2.0, with no exception.
        case(
            "fminnmv h0, v1.8h",
            0x4eb0_c820,
            [JUNK, h(&[0x7e00, 0x3c00, 0xc000, 0x7c00, 0x0001, 0x7e00, 0x7e00, 0x7e00]), 0],
            0,
            (0xc000, 0),
        ),
        case("faddp h0, v1.2h", 0x5e30_d820, [JUNK, h(&[0x3c00, 0x3c00, 0x7c01, 0x7c01]), 0], 0, (0x4000, 0)),
        case("addp d0, v1.2d", 0x5ef1_b820, [JUNK, d(&[u64::MAX, 2]), 0], 0, (1, 0)),
        // (x + 4) >> 3, then unsigned saturation of signed values: -1 -> 0, 65536 -> 0xffff twice, 13.
        case(
            "sqrshrun2 v0.8h, v1.4s, #3",
            0x6f1d_8c20,
            [JUNK, s(&[(-8i32) as u32, 0x7_ffff, 0x8_0003, 100]), 0],
            0,
            (h(&[0, 0xffff, 0xffff, 13]) << 64 | (JUNK & u128::from(u64::MAX)), QC),
        ),
        // A shift by 64 inserts nothing: the destination stays, its upper half cleared.
        case("sri d0, d1, #64", 0x7f40_4420, [JUNK, u128::MAX, 0], 0, (JUNK & u128::from(u64::MAX), 0)),
        case("uqshl b0, b1, #7", 0x7f0f_7420, [JUNK, 2, 0], 0, (0xff, QC)),
        case(
            "sshll2 v0.2d, v1.4s, #31",
            0x4f3f_a420,
            [0, s(&[5, 5, 0x8000_0000, 1]), 0],
            0,
            (d(&[0xc000_0000_0000_0000, 0x8000_0000]), 0),
        ),
        // -1.0 * 2^16 saturates to -32768, a 16-bit result: the rest of V0 cleared.
        case("fcvtzs h0, h1, #16", 0x5f10_fc20, [JUNK, 0xbc00, 0], 0, (0x8000, IOC)),
        case(
            "ucvtf v0.2d, v1.2d, #64",
            0x6f40_e420,
            [0, d(&[u64::MAX, 1 << 63]), 0],
            0,
            (d(&[0x3ff0_0000_0000_0000, 0x3fe0_0000_0000_0000]), IXC),
        ),
        // 1.0 + 1.5 * 2.0 in every lane.
        case(
            "fmla v0.8h, v1.8h, v2.h[7]",
            0x4f32_1820,
            [h(&[0x3c00; 8]), h(&[0x3e00; 8]), 0x4000 << 112],
            0,
            (h(&[0x4400; 8]), 0),
        ),
        // 0 * -inf is -2.0 for FMULX, without an exception.
        case(
            "fmulx d0, d1, v2.d[1]",
            0x7fc2_9820,
            [JUNK, 0, d(&[0, 0xfff0_0000_0000_0000])],
            0,
            (d(&[0xc000_0000_0000_0000]), 0),
        ),
        case("fabd h0, h1, h2", 0x7ec2_1420, [JUNK, 0x3c00, 0x4200], 0, (0x4000, 0)),
        case(
            "frecps v0.2d, v1.2d, v2.2d",
            0x4e62_fc20,
            [0, d(&[0x3ff8_0000_0000_0000, 0]), d(&[0x3ff0_0000_0000_0000, 0x7ff0_0000_0000_0000])],
            0,
            (d(&[0x3fe0_0000_0000_0000, 0x4000_0000_0000_0000]), 0),
        ),
        // A signalling NaN compares false and raises Invalid Operation.
        case("fcmlt s0, s1, #0.0", 0x5ea0_e820, [JUNK, 0x7f80_0001, 0], 0, (0, IOC)),
        // Rounding towards plus infinity: 1.5 -> 2, 2.5 -> 3, -0.25 -> -0.0, 3 -> 3, inexact.
        case(
            "frintx v0.4h, v1.4h",
            0x2e79_9820,
            [JUNK, h(&[0x3e00, 0x4100, 0xb400, 0x4200]), 0],
            RP,
            (h(&[0x4000, 0x4200, 0x8000, 0x4200]), IXC),
        ),
        // Pairs of V1 then V2: (1.0, qNaN) -> 1.0; (-1.0, -2.0) -> -1.0; (sNaN, 5.0) -> the quietened sNaN with
        // Invalid Operation; (qNaN, qNaN) -> qNaN.
        case(
            "fmaxnmp v0.4s, v1.4s, v2.4s",
            0x6e22_c420,
            [
                0,
                s(&[0x3f80_0000, 0x7fc0_0000, 0xbf80_0000, 0xc000_0000]),
                s(&[0x7f80_0001, 0x40a0_0000, 0x7fc0_0000, 0x7fc0_0000]),
            ],
            0,
            (s(&[0x3f80_0000, 0xbf80_0000, 0x7fc0_0001, 0x7fc0_0000]), IOC),
        ),
    ]
}

#[test]
fn simd_arithmetic_cases() {
    let mut memory = GuestMemory::new().expect("reserve guest memory");
    memory.map(CODE, 0x1000, Perm::RX).expect("map the code page");
    let mut interpreter = Interpreter::default();
    let mut failures = Vec::new();
    for case in cases() {
        let text = disassemble(case.word, CODE).split_whitespace().collect::<Vec<_>>().join(" ");
        if text != case.text {
            failures.push(format!("{:#010x}: disassembles as `{text}`, not `{}`", case.word, case.text));
        }
        memory.write_privileged(CODE, &case.word.to_le_bytes()).expect("write the word");
        let mut cpu = CpuState { pc: CODE, fpcr: case.fpcr, ..CpuState::default() };
        cpu.v[..3].copy_from_slice(&case.v);
        let exit = interpreter.run(&mut cpu, &memory, 1, GuestClock::default()).exit;
        let outcome = (cpu.v[0], cpu.fpsr);
        if exit != Exit::BudgetSpent || outcome != case.expect {
            failures.push(format!(
                "{}: {exit:?}, v0 {:#034x} fpsr {:#x}, expected v0 {:#034x} fpsr {:#x}",
                case.text, outcome.0, outcome.1, case.expect.0, case.expect.1
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
