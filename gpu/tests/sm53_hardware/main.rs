//! Maxwell semantics against a Tegra X1's own answers: vectors from nxgpucatch (github.com/ReinUsesLisp/nxgpucatch,
//! `src/tests/shader/*.cpp`, whose tests ran on a Switch's GPU, SM53), each a short program that leaves one word,
//! run on the SASS interpreter and, translated, on the Vulkan device. Each must leave the word the hardware left.
//! The vectors are the hardware tests' inputs and expected values; the instructions are written here in the
//! assembler's field syntax (which nxgpucatch's text forms they are is in each comment). The first vectors, each
//! of which found a bug, are here; `integer` and `float` port the rest of nxgpucatch's shader files, one test per
//! file or group, and `texture` the texture files' first vectors (surfaces are not ported yet).

#[path = "../common/mod.rs"]
mod common;
mod deko3d;
mod fetch;
mod float;
mod gather;
mod integer;
mod texture;

use tandem_gpu::sass::corpus::{Placement, dispatch, interpret};
use tandem_gpu::sass::programs::straight_line;

/// Runs `body` (which leaves R2) on both paths and checks every thread's word against `expected`.
fn check(name: &str, body: &str, constants: Vec<(u32, Vec<u8>)>, expected: impl Fn(u32) -> u32) {
    let program = straight_line(name, body, constants, expected).unwrap_or_else(|e| panic!("{name}: {e}"));
    let run = program.run();
    let interpreted = interpret(&run, &program.kernel, &program.input()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(hex(program.words(&interpreted)), hex(program.expected.clone()), "{name}: the interpreter");
    let translated = dispatch(common::device(), &run, &program.kernel, &program.input(), Placement::Device)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(hex(program.words(&translated.buffers)), hex(program.expected), "{name}: the translation");
}

fn hex(words: Vec<u32>) -> Vec<String> {
    words.into_iter().map(|word| format!("{word:#010x}")).collect()
}

/// The same word from every thread.
fn each(word: u32) -> impl Fn(u32) -> u32 {
    move |_| word
}

/// `MOV32I Rn, value` lines.
fn set(registers: &[(u32, u32)]) -> String {
    registers.iter().map(|(n, value)| format!("MOV32I rd={n} imm32={value:#x} lanes=15\n")).collect()
}

/// ldc.cpp "LDC Negative offsets": a constant operand's offset is unsigned within its 64 KiB bank, so what
/// nvdisasm prints as c[2][-4] is the bank's last word and c[2][-0x8000] its middle.
#[test]
fn constant_offsets_reach_the_whole_bank() {
    let mut bank = vec![0xcccc_ccccu32; 16384];
    bank[..3].copy_from_slice(&[8, 16, 32]);
    bank[16383] = 0xffff_ffff;
    bank[16382] = 0xeeee_eeee;
    let bank: Vec<u8> = bank.iter().flat_map(|word| word.to_le_bytes()).collect();
    for (word_offset, expected) in [(0, 8), (0x3fff, 0xffff_ffff), (0x3ffe, 0xeeee_eeee), (0x2000, 0xcccc_cccc)] {
        let body = format!("MOV.cbuf rd=2 cb_bank=2 cb_offset={word_offset:#x} lanes=15");
        check(&format!("mov_c2_{word_offset:#x}"), &body, vec![(2, bank.clone())], each(expected));
    }
}

/// hadd2.cpp and hmul2.cpp: `HADD2.MRG_H0/.MRG_H1.FTZ R2, R3.H1_H0, -4, 2` with R3 = {1, 3} and R2 = {12, 12}
/// (FP16 pairs, H0 first): MRG_H0 puts the low lanes' result in H0, MRG_H1 the high lanes' in H1, the other half
/// kept. The immediate pair is R4 = {2, -4} here.
#[test]
fn half_merges_take_their_own_lane() {
    let inputs = set(&[(2, 0x4a00_4a00), (3, 0x4200_3c00), (4, 0xc400_4000)]);
    for (opcode, out, expected) in [
        ("HADD2", 2, 0x4a00_4200), // {3, 12}
        ("HADD2", 3, 0xbc00_4a00), // {12, -1}
        ("HMUL2", 2, 0x4a00_4000), // {2, 12}
        ("HMUL2", 3, 0xca00_4a00), // {12, -12}
    ] {
        let ftz = if opcode == "HADD2" { "ftz=1" } else { "fmz=1" };
        let body = format!("{inputs}{opcode}.reg rd=2 ra=3 rb=4 out={out} {ftz}");
        check(&format!("{opcode}_out{out}"), &body, Vec::new(), each(expected));
    }
}

/// i2i.cpp "I2I Simple", "I2I Saturate Signed" and "I2I CC": below 32 bits the result is zero-extended whatever
/// the destination's sign, sign-extended only when saturated to a signed width; the condition code's sign comes
/// only from 32-bit results.
#[test]
fn narrow_integer_conversions_zero_extend_unless_saturated() {
    // (dst size, src size, sat, input, expected): I2I.S8.S32 -5, I2I.S16.S8 0xfb, I2I.S8.S16.SAT -5001.
    for (dst, src, sat, input, expected) in
        [(0, 2, 0, (-5i32) as u32, 0xfb), (1, 0, 0, 0xfb, 0xfffb), (0, 1, 1, (-5001i32) as u32, 0xffff_ff80)]
    {
        let body =
            format!("{}I2I.reg rd=2 rb=2 dst={dst} src={src} dst_signed=1 src_signed=1 sat={sat}", set(&[(2, input)]));
        check(&format!("i2i_{dst}_{src}_{sat}"), &body, Vec::new(), each(expected));
    }
    // I2I.S8.S32 RZ.CC, R2 (0xffff0000) sets Z; I2I.S32.S32 RZ.CC of the same sets S. P2R R2, CC, RZ, 0xff.
    for (dst, expected) in [(0, 1), (2, 2)] {
        let body = format!(
            "{}I2I.reg rd=255 rb=2 dst={dst} src=2 dst_signed=1 src_signed=1 cc=1\nP2R.imm rd=2 ra=255 imm20=0xff cc_mode=1",
            set(&[(2, 0xffff_0000)])
        );
        check(&format!("i2i_cc_{dst}"), &body, Vec::new(), each(expected));
    }
}

/// iadd.cpp "IADD PO" and iscadd.cpp "ISCADD PO", "ISCADD CC": both negations together are .PO, a + b + 1.
#[test]
fn both_negations_add_one() {
    check("iadd_po", "IADD.imm rd=2 ra=255 imm20=5 neg_a=1 neg_b=1", Vec::new(), each(6));
    let body = format!("{}ISCADD.imm rd=2 ra=2 imm20=0 shift=1 neg_a=1 neg_b=1 cc=1", set(&[(2, 0xffff_ffff)]));
    check("iscadd_po", &body, Vec::new(), each(0xffff_ffff));
    // ISCADD.PO RZ.CC, R2 (1), R3 (0xffffffff), 0: the carry alone; R2 (0x7fffffff) + 2: overflow and sign.
    for (a, b, flags) in [(1, 0xffff_ffffu32, 4), (0x7fff_ffff, 2, 10)] {
        let body = format!(
            "{}ISCADD.reg rd=255 ra=2 rb=3 shift=0 neg_a=1 neg_b=1 cc=1\nP2R.imm rd=2 ra=255 imm20=0xff cc_mode=1",
            set(&[(2, a), (3, b)])
        );
        check(&format!("iscadd_po_cc_{a:#x}"), &body, Vec::new(), each(flags));
    }
}

/// cset.cpp's and csetp.cpp's truth table of the condition-code tests: (test, mask), bit n of the mask set where
/// the test holds for flags n (Z = 1, S = 2, C = 4, O = 8).
const CC_TESTS: [(u32, u32); 26] = [
    (0, 0x0000),
    (1, 0xbb44),
    (2, 0x2222),
    (3, 0x3366),
    (4, 0x4411),
    (5, 0x5555),
    (6, 0xcc33),
    (7, 0x7777),
    (8, 0x8888),
    (9, 0x33cc),
    (10, 0xaaaa),
    (11, 0xbbee),
    (12, 0xcc99),
    (13, 0xdddd),
    (14, 0x44bb),
    (15, 0xffff),
    (16, 0x00ff),
    (17, 0x0f0f),
    (18, 0x3333),
    (19, 0xafaf),
    (20, 0x5050),
    (21, 0xcccc),
    (22, 0xf0f0),
    (23, 0xff00),
    (30, 0xeeee),
    (31, 0x1111),
];

/// R2 = 0 and the flags t & 15 in thread t (R2P CC).
const FLAGS_BY_THREAD: &str =
    "MOV32I rd=2 imm32=0 lanes=15\nLOP32I rd=3 ra=0 imm32=15 op=0\nR2P.imm ra=3 imm20=0xff cc_mode=1\n";

/// The word thread t gathers from `CC_TESTS` under the flags t & 15: bit k set where test k holds.
fn cc_tests_holding(t: u32) -> u32 {
    CC_TESTS.iter().enumerate().map(|(bit, (_, mask))| (mask >> (t & 15) & 1) << bit).fold(0, |all, b| all | b)
}

/// cset.cpp "CSET Simple": each condition-code test over the 16 states of the flags (R2P CC, then CSET.cond.AND
/// R, CC, PT), as the hardware's masks (bit n: the test holds for flags n, Z = 1, S = 2, C = 4, O = 8). One
/// program: thread t sets the flags t & 15 and gathers test k's outcome into bit k.
#[test]
fn condition_code_tests_follow_the_hardware_truth_table() {
    let mut body = String::from(FLAGS_BY_THREAD);
    for (bit, (test, _)) in CC_TESTS.iter().enumerate() {
        body += &format!(
            "CSET rd=4 cc_test={test} ps=7\nLOP32I rd=4 ra=4 imm32={:#x} op=0\nLOP.reg rd=2 ra=2 rb=4 op=1\n",
            1u32 << bit
        );
    }
    check("cset_truth_table", &body, Vec::new(), cc_tests_holding);
}

/// f2f.cpp "F2F Denorm": .FTZ is ignored when either side is FP64 (F2F.FTZ.F64.F64 of 5e-324 and F2F.FTZ.F64.F32
/// of 1e-40 stay above zero); with FP32 on both sides it flushes (F2F.FTZ.F32.F32 of 1e-40 is 0).
#[test]
fn denormals_survive_conversions_with_fp64() {
    let body = format!("{}F2F.reg rd=2 rb=2 dst=3 src=3 ftz=1", set(&[(2, 1), (3, 0)]));
    check("f2f_f64_f64", &body, Vec::new(), each(1));
    let denormal = 1e-40f32;
    let widened = f64::from(denormal).to_bits();
    let body =
        format!("{}F2F.reg rd=2 rb=2 dst=3 src=2 ftz=1\nMOV.reg rd=2 rb=3 lanes=15", set(&[(2, denormal.to_bits())]));
    check("f2f_f64_f32", &body, Vec::new(), each((widened >> 32) as u32));
    let body = format!("{}F2F.reg rd=2 rb=2 dst=2 src=2 ftz=1", set(&[(2, denormal.to_bits())]));
    check("f2f_f32_f32", &body, Vec::new(), each(0));
}

/// i2f.cpp "I2F Undefined": a signed source's .ABS wraps in its width, so |-128| of an S8 is -128.0 and
/// |-32768| of an S16 -32768.0.
#[test]
fn absolute_values_of_narrow_sources_wrap() {
    for (src, input, expected) in [(0, 0x80u32, -128.0f32), (1, 0x8000, -32768.0)] {
        let body = format!("{}I2F.reg rd=2 rb=2 dst=2 src={src} src_signed=1 abs_b=1", set(&[(2, input)]));
        check(&format!("i2f_abs_{src}"), &body, Vec::new(), each(expected.to_bits()));
    }
}

/// mufu.cpp "MUFU NAN": the unit's values where the host's functions are undefined: LG2 of ±0 and of a denormal
/// -inf, of -1 NaN; RCP of ±0 ±inf, of ±inf ±0; RSQ of ±0 ±inf, of -1 NaN; SQRT of -0 -0, of -1 NaN (the unit's
/// NaN: 0x7fffffff). RCP of 2^127 is 2^-127, a denormal, flushed to 0.
#[test]
fn special_functions_at_the_edges_of_their_domains() {
    const NAN: u32 = 0x7fff_ffff;
    for (func, input, expected) in [
        (3, 0x0000_0000u32, 0xff80_0000u32),
        (3, 0x8000_0000, 0xff80_0000),
        (3, 0x0000_0001, 0xff80_0000),
        (3, 0xbf80_0000, NAN),
        (4, 0x0000_0000, 0x7f80_0000),
        (4, 0x8000_0000, 0xff80_0000),
        (4, 0xff80_0000, 0x8000_0000),
        (4, 0x7f00_0000, 0x0000_0000),
        (5, 0x0000_0000, 0x7f80_0000),
        (5, 0x8000_0000, 0xff80_0000),
        (5, 0xbf80_0000, NAN),
        (8, 0x8000_0000, 0x8000_0000),
        (8, 0xbf80_0000, NAN),
    ] {
        let body = format!("{}MUFU rd=2 ra=3 func={func}", set(&[(3, input)]));
        check(&format!("mufu_{func}_{input:#x}"), &body, Vec::new(), each(expected));
    }
}

/// hadd2.cpp and hset2.cpp: a pair source's .F32 swizzle reads the register as one FP32, its FP16 value in both
/// lanes: `HADD2.FTZ R2, R3.F32, R4.H1_H0` of 4.0 and {5, 7} is {9, 11}, with -R3.F32 {1, 3}; `HSET2.LT.FTZ.AND R2,
/// R2.F32, R3, PT` of 3.0 and {2, 2} is 0, and of {1, 2} against R3.F32 = 2.0 is 0x0000ffff.
#[test]
fn fp32_swizzles_feed_both_lanes() {
    for (name, inputs, instruction, expected) in [
        ("hadd2_f32", [(3, 0x4080_0000u32), (4, 0x4700_4500)], "HADD2.reg rd=2 ra=3 rb=4 swz_a=1 ftz=1", 0x4980_4880),
        (
            "hadd2_neg_f32",
            [(3, 0x4080_0000), (4, 0x4700_4500)],
            "HADD2.reg rd=2 ra=3 rb=4 swz_a=1 neg_a=1 ftz=1",
            0x4200_3c00,
        ),
        ("hset2_a_f32", [(3, 0x4040_0000), (4, 0x4000_4000)], "HSET2.reg rd=2 ra=3 rb=4 swz_a=1 cmp=1 ftz=1 ps=7", 0),
        (
            "hset2_b_f32",
            [(3, 0x4000_3c00), (4, 0x4000_0000)],
            "HSET2.reg rd=2 ra=3 rb=4 swz_b=1 cmp=1 ftz=1 ps=7",
            0xffff,
        ),
    ] {
        check(name, &format!("{}{instruction}", set(&inputs)), Vec::new(), each(expected));
    }
}

/// atom.cpp: INC and DEC of S32 and U64, and ADD, INC, DEC, AND, OR and XOR of S64, leave memory unchanged on the
/// hardware; ptxas never emits them, and both paths refuse them rather than carry them out.
#[test]
fn atomics_the_hardware_leaves_undone_are_refused() {
    for (op, ty) in [(3, 1), (4, 2), (0, 5), (7, 5)] {
        let (interpreted, translated) =
            refusals(&format!("atom_{op}_{ty}"), &format!("ATOM rd=2 ra=6 rb=2 e=1 ty={ty} op={op}"));
        assert!(interpreted.contains("ATOM") && translated.contains("undone"), "{interpreted} / {translated}");
    }
}

/// The errors of `body` on the interpreter and in translation, which must both refuse it.
fn refusals(name: &str, body: &str) -> (String, String) {
    let program = straight_line(name, body, Vec::new(), each(0)).unwrap();
    let run = program.run();
    let interpreted = interpret(&run, &program.kernel, &program.input()).map(|_| ()).unwrap_err().to_string();
    let translated = dispatch(common::device(), &run, &program.kernel, &program.input(), Placement::Device)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    (interpreted, translated)
}

/// fmnmx.cpp "FMNMX NAN" and imnmx.cpp "IMNMX Signed": a NaN operand gives the other (FMNMX.FTZ, min with PT,
/// max with !PT), infinities order as numbers; IMNMX compares as .U32 or .S32 says.
#[test]
fn minimum_and_maximum_follow_the_hardware() {
    const NAN: u32 = 0x7fc0_0000;
    const INF: u32 = 0x7f80_0000;
    for (a, b, max, expected) in [
        (0u32, NAN, 0, 0u32),
        (0, NAN, 1, 0),
        (NAN, 0, 0, 0),
        (NAN, 0, 1, 0),
        (INF, 0, 0, 0),
        (INF | 1 << 31, 0, 0, INF | 1 << 31),
        (INF, 0, 1, INF),
        (INF | 1 << 31, 0, 1, 0),
    ] {
        let body = format!("{}FMNMX.reg rd=2 ra=2 rb=3 ps=7 ps_not={max} ftz=1", set(&[(2, a), (3, b)]));
        check(&format!("fmnmx_{a:#x}_{b:#x}_{max}"), &body, Vec::new(), each(expected));
    }
    let minus_fifty = (-50i32) as u32;
    for (signed, max, expected) in [(0, 0, 50), (1, 0, minus_fifty), (0, 1, minus_fifty), (1, 1, 50)] {
        let body =
            format!("{}IMNMX.reg rd=2 ra=2 rb=3 ps=7 ps_not={max} signed={signed}", set(&[(2, 50), (3, minus_fifty)]));
        check(&format!("imnmx_{signed}_{max}"), &body, Vec::new(), each(expected));
    }
}

/// fcmp.cpp "FCMP Simple": FCMP.cond.FTZ R2, R3, RZ, R2 gives R3 (-2) where R2's value compares true with 0.0,
/// else RZ.
#[test]
fn fcmp_selects_by_comparing_with_zero() {
    let minus_two = (-2i32) as u32;
    for (value, cmp, expected) in [
        (1.0f32, 0, 0),
        (1.0, 15, minus_two),
        (-1.0, 1, minus_two),
        (1.0, 1, 0),
        (0.0, 2, minus_two),
        (1.0, 5, minus_two),
        (-1.0, 3, minus_two),
        (1.0, 4, minus_two),
        (0.0, 6, minus_two),
    ] {
        let body =
            format!("{}FCMP.reg rd=2 ra=3 rb=255 rc=2 cmp={cmp} ftz=1", set(&[(2, value.to_bits()), (3, minus_two)]));
        check(&format!("fcmp_{cmp}_{value}"), &body, Vec::new(), each(expected));
    }
}

/// fset.cpp "FSET NAN" and "FSET Simple", fadd.cpp "FADD NAN": ordered comparisons with a NaN are false, the
/// unordered ones and NAN true, NUM false; .BF writes 1.0; FADD.SAT of a NaN sum is 0.
#[test]
fn comparisons_and_saturation_with_nans() {
    const NAN: u32 = 0x7fc0_0000;
    let (two, three) = (2.0f32.to_bits(), 3.0f32.to_bits());
    for (a, b, cmp, bf, expected) in [
        (two, NAN, 1, 0, 0u32),
        (three, NAN, 2, 0, 0),
        (NAN, NAN, 2, 0, 0),
        (two, NAN, 5, 0, 0),
        (three, NAN, 7, 0, 0),
        (three, three, 7, 0, u32::MAX),
        (three, NAN, 8, 0, u32::MAX),
        (two, NAN, 9, 0, u32::MAX),
        (three, three, 2, 1, 0x3f80_0000),
    ] {
        let body = format!("{}FSET.reg rd=2 ra=2 rb=3 cmp={cmp} bf={bf} ftz=1 ps=7", set(&[(2, a), (3, b)]));
        check(&format!("fset_{a:#x}_{b:#x}_{cmp}_{bf}"), &body, Vec::new(), each(expected));
    }
    let body = format!("{}FADD.reg rd=2 ra=2 rb=3 ftz=1 sat=1", set(&[(2, 0), (3, NAN)]));
    check("fadd_sat_nan", &body, Vec::new(), each(0));
}
