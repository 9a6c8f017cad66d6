//! nxgpucatch's gathers (tld4.cpp, tld4s.cpp) of 2D random textures (`deko3d`: R and B random, G and A zero;
//! ZF32 ones for compares), through nxgpucatch's repeating sampler, each thread storing R0-R3, which must be the
//! four words the hardware left. The footprints lie where 0.5, 0.75 and 1.0 land on 512 texels (texels 255-256,
//! 383-384, 511-0), moved by offsets; the whole of level 0 is bound. Left out: cube gathers (their footprint
//! crosses a cube corner, which Vulkan leaves to the implementation).

use super::deko3d::{DkTexture, Kind, SHADOW_BETWEEN};
use super::set;
use super::texture::check4;

const ONE: u32 = 0x3f80_0000;
const HALF: u32 = 0x3f00_0000;

/// RGBA words of 0.0, 1.0 and 0.5 from nxgpucatch's `Color{...}` (2: 0.5, a preset kept).
fn colour(rgba: [u8; 4]) -> [u32; 4] {
    rgba.map(|c| match c {
        0 => 0,
        1 => ONE,
        _ => HALF,
    })
}

/// tld4s.cpp's presets: R0 0.5, R1 1.0, R2 and R4 0.75, R3 and R5 0.5, R6 and R7 `r6_r7`.
fn tld4s_presets(r6_r7: u32) -> String {
    set(&[(0, HALF), (1, ONE), (2, 0x3f40_0000), (3, HALF), (4, 0x3f40_0000), (5, HALF), (6, r6_r7), (7, r6_r7)])
}

/// R0-R3 after TLD4S.F16 with rd2 R0 and rd R2 (R1 and R3 kept at tld4s.cpp's 1.0 and 0.5), from
/// nxgpucatch's `Color` of its halves R0.lo, R0.hi, R2.lo, R2.hi (0s and 1s).
fn f16_words(halves: [u8; 4]) -> [u32; 4] {
    let half = |c: u8| if c == 1 { 0x3c00u32 } else { 0 };
    [half(halves[0]) | half(halves[1]) << 16, ONE, half(halves[2]) | half(halves[3]) << 16, HALF]
}

/// tld4.cpp "TLD4 2D": TLD4 of a 512 x 512 array of two layers (R0-R3 and R5-R7 0.5, R4 0.75 before each): of
/// layer 0 as 2D and of layer 1 (R0) as ARRAY_2D; masks (the rest of R0-R3 kept); AOFFI's offsets (6-bit x, y in
/// bits 5:0 and 13:8 of rb) and PTP's per texel (pair k in rb + k / 2, the high half for odd k), bindless forms
/// with the handle first; the fault predicate of a resident texture cleared.
#[test]
fn gathers_read_the_hardware_footprints() {
    let layers = DkTexture { kind: Kind::D2Array, width: 512, height: 512, depth: 2, levels: 1, samples: 1 };
    let bound = layers.corner(&layers.random_even(4), [512, 512, 1]);
    let presets = set(&[(0, HALF), (1, HALF), (2, HALF), (3, HALF), (4, 0x3f40_0000), (5, HALF), (6, HALF), (7, HALF)]);
    let tld4 = |component: u32, target: u32, mask: u32, offsets: u32| {
        let rb = if offsets == 0 { 255 } else { 4 };
        format!("TLD4 rd=0 ra=0 rb={rb} target={target} mask={mask} tex=0x52 component={component} offsets={offsets}")
    };
    let bindless = |component: u32, offsets: u32| {
        format!(
            "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nTLD4.B rd=0 ra=0 rb=4 target=2 mask=15 component={component} offsets={offsets}"
        )
    };
    let (aoffi, ptp) = (1, 2);
    let vectors: Vec<(&str, Vec<(u32, u32)>, String, [u8; 4])> = vec![
        ("r", vec![], tld4(0, 2, 15, 0), [0, 0, 1, 0]),
        ("g", vec![], tld4(1, 2, 15, 0), [0, 0, 0, 0]),
        ("b", vec![], tld4(2, 2, 15, 0), [1, 1, 1, 0]),
        ("a", vec![], tld4(3, 2, 15, 0), [0, 0, 0, 0]),
        ("r_layer1", vec![(0, 1)], tld4(0, 3, 15, 0), [1, 0, 1, 1]),
        ("b_mask1", vec![], tld4(2, 2, 1, 0), [1, 2, 2, 2]),
        ("b_mask2", vec![], tld4(2, 2, 2, 0), [1, 2, 2, 2]),
        ("b_mask4", vec![], tld4(2, 2, 4, 0), [1, 2, 2, 2]),
        ("b_mask8", vec![], tld4(2, 2, 8, 0), [0, 2, 2, 2]),
        ("b_mask3", vec![], tld4(2, 2, 3, 0), [1, 1, 2, 2]),
        ("b_mask9", vec![], tld4(2, 2, 9, 0), [1, 0, 2, 2]),
        ("aoffi_layer1_minus1", vec![(0, 1), (4, 0xffff_ffff)], tld4(0, 3, 15, aoffi), [1, 1, 0, 1]),
        ("aoffi_layer1_12", vec![(0, 1), (4, 0xcccc_cccc)], tld4(0, 3, 15, aoffi), [1, 0, 0, 1]),
        ("aoffi_minus1", vec![(4, 0xffff_ffff)], tld4(0, 2, 15, aoffi), [0, 0, 0, 0]),
        ("aoffi_12", vec![(4, 0xcccc_cccc)], tld4(0, 2, 15, aoffi), [1, 0, 1, 1]),
        ("aoffi_mixed", vec![(4, 0x7cda_73ac)], tld4(0, 2, 15, aoffi), [0, 0, 0, 0]),
        ("b_aoffi_12", vec![(5, 0xcccc_cccc)], bindless(0, 1), [1, 0, 1, 1]),
        ("ptp_layer1", vec![(0, 1), (4, 0xffff_ffff), (5, 0xcccc_cccc)], tld4(0, 3, 15, ptp), [1, 1, 1, 1]),
        ("ptp_layer1_swapped", vec![(0, 1), (4, 0xcccc_cccc), (5, 0xffff_ffff)], tld4(0, 3, 15, ptp), [1, 1, 1, 1]),
        ("ptp", vec![(4, 0xffff_ffff), (5, 0xcccc_cccc)], tld4(0, 2, 15, ptp), [0, 0, 1, 1]),
        ("ptp_swapped", vec![(4, 0xcccc_cccc), (5, 0xffff_ffff)], tld4(0, 2, 15, ptp), [1, 1, 0, 0]),
        ("ptp_mixed", vec![(4, 0x7cda_73ac), (5, 0xadf8_e2a9)], tld4(0, 2, 15, ptp), [0, 1, 1, 0]),
        ("b_ptp_mixed", vec![(5, 0x7cda_73ac), (6, 0xadf8_e2a9)], bindless(0, 2), [0, 1, 1, 0]),
    ];
    for (name, registers, gather, expected) in vectors {
        let body = format!("{presets}{}{gather}", set(&registers));
        check4(&format!("tld4_{name}"), &body, vec![bound.clone()], colour(expected));
    }
    // "Sparse": P0 false or true before; cleared by the gather, so R0 is 2.0.
    for (name, cmp) in [("false", 0), ("true", 7)] {
        let body = format!(
            "{presets}{}ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp={cmp} signed=1
TLD4 fault=0 rd=0 ra=0 rb=255 target=3 mask=15 tex=0x52 component=0
FADD.imm rd=0 ra=255 imm20=0xc0000 ftz=1 pg=0
FADD.imm rd=0 ra=255 imm20=0x40000 ftz=1 pg=0 pg_not=1",
            set(&[(0, 1)])
        );
        check4(&format!("tld4_fault_predicate_{name}"), &body, vec![bound.clone()], [0x4000_0000, 0, ONE, ONE]);
    }
}

/// tld4s.cpp "TLD4S": the scalar gather of a 512 x 512 texture (R0 0.5, R1 1.0, R2 and R4 0.75, R3 and R5 0.5,
/// R6 and R7 -0.5 before each), printed like TEXS: `rd2, rd, ra, rb`, x from ra and y from rb, or with AOFFI
/// from ra + 1 (the offsets in rb). Texels 0 and 1 go to rd and rd + 1, 2 and 3 to rd2 and rd2 + 1, or with
/// F16 as pairs to rd and rd2 (R1 and R3 kept). y = 1.0 wraps the footprint to row 0 (the sampler repeats).
#[test]
fn scalar_gathers_read_the_hardware_footprints() {
    let plane = DkTexture { kind: Kind::D2, width: 512, height: 512, depth: 1, levels: 1, samples: 1 };
    let bound = plane.corner(&plane.random_even(1532), [512, 512, 1]);
    let presets = tld4s_presets(0xbf00_0000);
    let tld4s = |rd2: u32, rd: u32, ra: u32, rb: u32, component: u32, extra: &str| {
        format!("TLD4S rd={rd} ra={ra} rb={rb} rd2={rd2} tex=0x52 component={component} {extra}")
    };
    // (name, the registers set first, the gather, the colour in R0-R3 order, or for F16 nxgpucatch's halves
    // R0.lo, R0.hi, R2.lo, R2.hi).
    let basic = [
        ("r", (0, 2, 0, 2, 0), [0, 1, 0, 1]),
        ("r_xy", (0, 2, 2, 0, 0), [0, 0, 0, 1]),
        ("g", (0, 2, 0, 2, 1), [0, 0, 0, 0]),
        ("g_xy", (0, 2, 2, 0, 1), [0, 0, 0, 0]),
        ("b", (0, 2, 0, 2, 2), [0, 0, 1, 1]),
        ("b_xy", (0, 2, 2, 0, 2), [0, 0, 1, 1]),
        ("a", (0, 2, 0, 2, 3), [0, 0, 0, 0]),
        ("a_xy", (0, 2, 2, 0, 3), [0, 0, 0, 0]),
        ("r_rd0", (2, 0, 2, 0, 0), [0, 1, 0, 0]),
    ];
    for (name, (rd2, rd, ra, rb, component), expected) in basic {
        check4(
            &format!("tld4s_{name}"),
            &format!("{presets}{}", tld4s(rd2, rd, ra, rb, component, "")),
            vec![bound.clone()],
            colour(expected),
        );
        let words = f16_words(expected);
        let body = format!("{presets}{}", tld4s(rd2, rd, ra, rb, component, "f16=1"));
        check4(&format!("tld4s_{name}_f16"), &body, vec![bound.clone()], words);
    }
    for (name, packed, component, expected) in [
        ("minus1", 0xffff_ffffu32, 0, [0, 0, 1, 0]),
        ("zero", 0, 0, [0, 0, 0, 1]),
        ("12", 0xcccc_cccc, 0, [0, 1, 0, 1]),
        ("b_12", 0xcccc_cccc, 2, [0, 1, 0, 0]),
    ] {
        let body = format!("{presets}{}{}", set(&[(2, packed)]), tld4s(0, 2, 0, 2, component, "aoffi=1"));
        check4(&format!("tld4s_aoffi_{name}"), &body, vec![bound.clone()], colour(expected));
    }
}

/// tld4.cpp "TLD4 2D Shadow" and tld4s.cpp "TLD4S DC": compare gathers of ZF32 textures whose even words are
/// about -2048 and odd ones 0 (`DkTexture::shadow_corner`, with the references nxgpucatch makes -1 and -0.5 as
/// `SHADOW_BETWEEN`); each texel is `reference < depth`, whatever the component. The reference follows the
/// offsets (TLD4S: rb, after AOFFI's offsets).
#[test]
fn compare_gathers_compare_each_texel() {
    let layers = DkTexture { kind: Kind::D2Array, width: 512, height: 512, depth: 2, levels: 1, samples: 1 };
    let bound = layers.shadow_corner([512, 512, 1]);
    let presets = set(&[(0, HALF), (1, HALF), (2, HALF), (3, HALF), (4, 0x3f40_0000), (5, HALF), (6, HALF), (7, HALF)]);
    let tld4 = |component: u32, target: u32, mask: u32| {
        format!("TLD4 rd=0 ra=0 rb=4 target={target} mask={mask} tex=0x52 component={component} dc=1")
    };
    let bindless = |offsets: u32| {
        format!(
            "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nTLD4.B rd=0 ra=0 rb=4 target=3 mask=15 component=0 dc=1 offsets={offsets}"
        )
    };
    let between = SHADOW_BETWEEN;
    let vectors: Vec<(&str, Vec<(u32, u32)>, String, [u8; 4])> = vec![
        ("r", vec![], tld4(0, 2, 15), [0, 0, 0, 0]),
        ("g", vec![], tld4(1, 2, 15), [0, 0, 0, 0]),
        ("b", vec![], tld4(2, 2, 15), [0, 0, 0, 0]),
        ("a", vec![], tld4(3, 2, 15), [0, 0, 0, 0]),
        ("layer1", vec![(0, 1)], tld4(0, 3, 15), [0, 0, 0, 0]),
        ("layer1_between", vec![(0, 1), (4, between)], tld4(0, 3, 15), [1, 0, 0, 1]),
        ("b_layer1_between", vec![(0, 1), (5, between)], bindless(0), [1, 0, 0, 1]),
        ("mask1", vec![(0, 1), (4, between)], tld4(0, 3, 1), [1, 2, 2, 2]),
        ("mask9", vec![(0, 1), (4, between)], tld4(0, 3, 9), [1, 1, 2, 2]),
        ("b_aoffi", vec![(0, 1), (5, 0xcccc_cccc), (6, between)], bindless(1), [1, 0, 0, 1]),
        ("b_ptp", vec![(0, 1), (5, 0xcccc_cccc), (6, 0xdddd_dddd), (7, between)], bindless(2), [1, 1, 0, 0]),
    ];
    for (name, registers, gather, expected) in vectors {
        let body = format!("{presets}{}{gather}", set(&registers));
        check4(&format!("tld4_dc_{name}"), &body, vec![bound.clone()], colour(expected));
    }
    let plane = DkTexture { kind: Kind::D2, width: 512, height: 512, depth: 1, levels: 1, samples: 1 };
    let bound = plane.shadow_corner([512, 512, 1]);
    let presets = tld4s_presets(between);
    let tld4s = |ra: u32, rb: u32, component: u32, extra: &str| {
        format!("TLD4S rd=2 ra={ra} rb={rb} rd2=0 tex=0x52 component={component} dc=1 {extra}")
    };
    for (name, registers, gather, expected) in [
        ("r", vec![], tld4s(0, 7, 0, ""), [0, 1, 1, 0]),
        ("r_x", vec![], tld4s(2, 7, 0, ""), [0, 1, 1, 0]),
        ("r_above", vec![], tld4s(2, 2, 0, ""), [0, 0, 0, 0]),
        ("g", vec![], tld4s(0, 7, 1, ""), [0, 1, 1, 0]),
        ("b", vec![], tld4s(0, 7, 2, ""), [0, 1, 1, 0]),
        ("a", vec![], tld4s(0, 7, 3, ""), [0, 1, 1, 0]),
        ("aoffi_minus1", vec![(6, 0xffff_ffff)], tld4s(0, 6, 0, "aoffi=1"), [1, 0, 0, 1]),
        ("aoffi_zero", vec![(6, 0)], tld4s(0, 6, 0, "aoffi=1"), [0, 1, 1, 0]),
        ("aoffi_12", vec![(6, 0xcccc_cccc)], tld4s(0, 6, 0, "aoffi=1"), [0, 1, 1, 0]),
        ("aoffi_minus13", vec![(6, 0x3333_3333)], tld4s(0, 6, 0, "aoffi=1"), [1, 0, 0, 1]),
    ] {
        let body = format!("{presets}{}{gather}", set(&registers));
        check4(&format!("tld4s_dc_{name}"), &body, vec![bound.clone()], colour(expected));
        // "F16": the basic forms as FP16 pairs to rd (R2) and rd2 (R0), R1 and R3 kept.
        if registers.is_empty() {
            let words = f16_words(expected);
            let body = format!("{presets}{gather} f16=1");
            check4(&format!("tld4s_dc_{name}_f16"), &body, vec![bound.clone()], words);
        }
    }
}
