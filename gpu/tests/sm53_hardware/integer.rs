//! nxgpucatch's integer tests (see the crate root's doc).

use super::*;

/// Constant bank 2 holding `words`: the uniform buffer nxgpucatch's programs read as c[2][...].
fn bank2(words: &[u32]) -> Vec<(u32, Vec<u8>)> {
    vec![(2, words.iter().flat_map(|word| word.to_le_bytes()).collect())]
}

/// `P2R R2, CC, RZ, 0xff`: the condition code's flags (Z 1, S 2, C 4, O 8) into R2.
const FLAGS_TO_R2: &str = "P2R.imm rd=2 ra=255 imm20=0xff cc_mode=1";

/// `ISETP.NE.AND Pn, PT, RZ, RZ, PT` for P0-P6 (nxgpucatch's "Reset PR").
fn reset_predicates() -> String {
    (0..7).map(|p| format!("ISETP.reg pd={p} pq=7 ra=255 rb=255 cmp=5 signed=1 bop=0 ps=7\n")).collect()
}

/// R2 = `words[t % words.len()]` in thread t (LDC from constant bank 3, R1 scratch): one program runs one
/// nxgpucatch instruction over all its input values. The lines and the bank.
fn inputs_by_thread(words: &[u32]) -> (String, Vec<(u32, Vec<u8>)>) {
    let threads = tandem_gpu::sass::programs::THREADS as usize;
    let bank = (0..threads).flat_map(|t| words[t % words.len()].to_le_bytes()).collect();
    ("SHL.imm rd=1 ra=0 imm20=2\nLDC rd=2 ra=1 offset=0 cb_bank=3 mode=0 size=4\n".to_string(), vec![(3, bank)])
}

/// xmad.cpp, every test case ("XMAD Simple", "Signs", "Mode", "PSL", "MRG", "UE4", "198X"): 16 x 16-bit products
/// with the modes C, CLO, CHI, CBCC, .PSL, .MRG, .H1 selectors and signs, in the register, constant (as b or as c)
/// and immediate forms. CBCC adds the whole b shifted up, .MRG puts the whole b's low half (not the selected half)
/// on top.
#[test]
fn xmad_follows_the_hardware() {
    let simple = set(&[(2, 1), (3, 0x10000), (4, 2), (5, 0x20000), (6, 0xffff_fffe)]);
    let fuzz = set(&[(2, 0x1234_5678), (3, 0x8a24_c923), (4, 0x9123_064a)]);
    const K: u32 = 0x5823_8134;
    // (FuzzRun's inputs or Run's, instruction, c[2][0], expected)
    let vectors: &[(bool, &str, u32, u32)] = &[
        // Simple
        (false, "XMAD.reg rd=2 ra=2 rb=4 rc=2", 0, 3),
        (false, "XMAD.reg rd=2 ra=3 half_a=1 rb=5 half_b=1 rc=2", 0, 3),
        // Signs: XMAD.S16.S16, .U16.U16, .S16.U16, .U16.S16 R2, R6.H1, R4, R2
        (false, "XMAD.reg rd=2 ra=6 half_a=1 rb=4 rc=2 signed_a=1 signed_b=1", 0, 0xffff_ffff),
        (false, "XMAD.reg rd=2 ra=6 half_a=1 rb=4 rc=2", 0, 0x1_ffff),
        (false, "XMAD.reg rd=2 ra=6 half_a=1 rb=4 rc=2 signed_a=1", 0, 0xffff_ffff),
        (false, "XMAD.reg rd=2 ra=6 half_a=1 rb=4 rc=2 signed_b=1", 0, 0x1_ffff),
        // XMAD.S16.S16 / .U16.U16 R2, R6, c[2][0].H1, R2
        (false, "XMAD.cbuf rd=2 ra=6 cb_bank=2 cb_offset=0 half_b=1 rc=2 signed_a=1 signed_b=1", 0xfffe_ffff, 5),
        (false, "XMAD.cbuf rd=2 ra=6 cb_bank=2 cb_offset=0 half_b=1 rc=2", 0xfffe_ffff, (-262139i32) as u32),
        // XMAD.S16.S16 / .U16.U16 R2, R6.H1, R6.H1, c[2][0]
        (false, "XMAD.cbuf_c rd=2 ra=6 half_a=1 rb=6 half_b=1 cb_bank=2 cb_offset=0 signed_a=1 signed_b=1", 14, 15),
        (false, "XMAD.cbuf_c rd=2 ra=6 half_a=1 rb=6 half_b=1 cb_bank=2 cb_offset=0", 14, (-131057i32) as u32),
        // Mode: XMAD[.CLO|.CHI|.CBCC] R2, R2, R3, R4
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4", 0, 0xd513_10b2),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mode=1", 0, 0x43f0_10b2),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mode=2", 0, 0x43f0_9b8b),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mode=4", 0, 0x9e36_10b2),
        // R2, R2, R3, c[2][0]
        (true, "XMAD.cbuf_c rd=2 ra=2 rb=3 cb_bank=2 cb_offset=0", K, 0x9c13_8b9c),
        (true, "XMAD.cbuf_c rd=2 ra=2 rb=3 cb_bank=2 cb_offset=0 mode=1", K, 0x43f0_8b9c),
        (true, "XMAD.cbuf_c rd=2 ra=2 rb=3 cb_bank=2 cb_offset=0 mode=2", K, 0x43f0_628b),
        // R2, R2, c[2][0], R4
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4", K, 0xbcc7_0eaa),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 mode=1", K, 0x2ba4_0eaa),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 mode=2", K, 0x2ba4_9983),
        // R2, R2, 34, R4
        (true, "XMAD.imm rd=2 ra=2 imm16=34 rc=4", 0, 0x912e_823a),
        (true, "XMAD.imm rd=2 ra=2 imm16=34 rc=4 mode=1", 0, 0x000b_823a),
        (true, "XMAD.imm rd=2 ra=2 imm16=34 rc=4 mode=2", 0, 0x000c_0d13),
        (true, "XMAD.imm rd=2 ra=2 imm16=34 rc=4 mode=4", 0, 0x9150_823a),
        // PSL
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 psl=1", 0, 0x9b8b_064a),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 psl=1 mode=1", 0, 0x0a68_064a),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 psl=1 mode=2", 0, 0x0a68_9123),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 psl=1 mode=4", 0, 0x64ae_064a),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 psl=1", K, 0x9983_064a),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 psl=1 mode=1", K, 0x0860_064a),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 psl=1 mode=2", K, 0x0860_9123),
        // MRG
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mrg=1", 0, 0xc923_10b2),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mrg=1 mode=1", 0, 0xc923_10b2),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mrg=1 mode=2", 0, 0xc923_9b8b),
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=4 mrg=1 mode=4", 0, 0xc923_10b2),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 mrg=1", K, 0x8134_0eaa),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 mrg=1 mode=1", K, 0x8134_0eaa),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=4 mrg=1 mode=2", K, 0x8134_9983),
        // UE4
        (true, "XMAD.reg rd=2 ra=2 half_a=1 rb=3 half_b=1 rc=4 psl=1 mode=4", K, 0xf196_064a),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 rc=3", K, 0xb5c8_d183),
        (true, "XMAD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 half_b=1 rc=255 mrg=1", K, 0x8134_1268),
        (true, "XMAD.reg rd=2 ra=2 half_a=1 rb=3 half_b=1 rc=4 psl=1 mode=4", 0, 0xf196_064a),
        // 198X
        (true, "XMAD.reg rd=2 ra=2 rb=3 rc=255", 0, 0x43f0_0a68),
        (true, "XMAD.reg rd=2 ra=2 rb=3 half_b=1 rc=255", 0, 0x2ea8_d8e0),
        (true, "XMAD.reg rd=2 ra=2 half_a=1 rb=3 half_b=1 rc=255", 0, 0x09d2_9750),
        (true, "XMAD.reg rd=2 ra=2 half_a=1 rb=3 rc=4 mode=2", 0, 0x0e4d_e23f),
    ];
    for (i, &(fuzzed, instruction, value, expected)) in vectors.iter().enumerate() {
        let body = format!("{}{instruction}", if fuzzed { &fuzz } else { &simple });
        check(&format!("xmad_{i}"), &body, bank2(&[value]), each(expected));
    }
}

/// bfe.cpp "BFE Simple", "BFE BREV", "BFE Undefined" and bfi.cpp "BFI Simple", "BFI Undefined": b's bits 7:0 are
/// the position, 15:8 the length (a count of 0x100 is 0); a signed field past bit 31 extends the sign; BFI clamps
/// the length to the room above the position and inserts nothing at position 32.
#[test]
fn bit_fields_follow_the_hardware() {
    // BFE: R2 = c[2][0] = base, R3 = c[2][4] = offset | count << 8.
    let (unsigned, signed) = ("BFE.reg rd=2 ra=2 rb=3", "BFE.reg rd=2 ra=2 rb=3 signed=1");
    let vectors: &[(u32, u32, u32, &str, u32)] = &[
        (0xdead, 8, 8, unsigned, 0xde),
        (0xdead, 8, 8, "BFE.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1", 0xde),
        (0xdead, 8, 8, "BFE.imm rd=2 ra=2 imm20=0x808", 0xde),
        (0xdead, 4, 4, unsigned, 0xa),
        (0xdead, 8, 8, signed, 0xffff_ffde),
        (0x7ead, 8, 8, signed, 0x7e),
        (0x8ead, 8, 8, signed, 0xffff_ff8e),
        (0xdead, 8, 16, "BFE.reg rd=2 ra=2 rb=3 brev=1", 0x7b00),
        (0xdead, 0, 32, "BFE.reg rd=2 ra=2 rb=3 brev=1", 0xb57b_0000),
        (0xdead, 8, 0, unsigned, 0),
        (0xdead_0000, 24, 16, signed, 0xffff_ffde),
        (0xdead_0000, 32, 24, signed, 0xffff_ffff),
        (0x7ead_0000, 32, 24, signed, 0),
        (0xdead_0000, 32, 0, signed, 0),
        (1, 32, 1, "BFE.reg rd=2 ra=2 rb=3 signed=1 brev=1", 0xffff_ffff),
        (0x8000_0000, 0, 0x100, signed, 0),
        (0x8000_0000, 0, 0xff, signed, 0x8000_0000),
    ];
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n";
    for (i, &(base, offset, count, instruction, expected)) in vectors.iter().enumerate() {
        let body = format!("{load}{instruction}");
        check(&format!("bfe_{i}"), &body, bank2(&[base, offset | count << 8]), each(expected));
    }
    // BFI: R4 = c[2][0] = base, R2 = c[2][4] = insert, R3 = c[2][8] = offset | count << 8.
    let reg = "BFI.reg rd=2 ra=2 rb=3 rc=4";
    let vectors: &[(u32, u32, u32, u32, &str, u32)] = &[
        (0xcccc_cccc, 0, 8, 8, reg, 0xcccc_00cc),
        (0xcccc_cccc, 0, 4, 8, reg, 0xcccc_c00c),
        (0xcccc_cccc, 0, 0, 32, reg, 0),
        (0xcccc_cccc, 0xffdd, 12, 8, reg, 0xcccd_dccc),
        (0xcccc_cc32, 0xffdd, 12, 8, reg, 0xcccd_dc32),
        (0xcccc_cc32, 0xffdd, 12, 8, "BFI.cbuf_c rd=2 ra=2 rb=3 cb_bank=2 cb_offset=0", 0xcccd_dc32),
        (0xcccc_cc32, 0xffdd, 12, 8, "BFI.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2 rc=4", 0xcccd_dc32),
        (0xcccc_cc32, 0xffdd, 12, 8, "BFI.imm rd=2 ra=2 imm20=0x80c rc=4", 0xcccd_dc32),
        (0xcccc_cccc, 0xcafe, 8, 0, reg, 0xcccc_cccc),
        (0xcccc_cccc, 0xcafe, 8, 64, reg, 0x00ca_fecc),
        (0xcccc_cccc, 0xcafe, 32, 32, reg, 0xcccc_cccc),
    ];
    let load = "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=2 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=3 cb_bank=2 cb_offset=2 lanes=15\n";
    for (i, &(base, insert, offset, count, instruction, expected)) in vectors.iter().enumerate() {
        let body = format!("{load}{instruction}");
        check(&format!("bfi_{i}"), &body, bank2(&[base, insert, offset | count << 8, 0]), each(expected));
    }
}

/// bfe.cpp "BFE CC" and bfi.cpp "BFI CC": `BFE/BFI
/// RZ.CC, ...` then `P2R R2, CC, RZ, 0xff`: the zero and sign flags of the result (the condition code was 0
/// before, so whether carry and overflow are cleared or kept is not shown).
#[test]
fn bit_fields_set_zero_and_sign() {
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n";
    // (base, offset, count, signed, brev, flags)
    for (i, &(base, offset, count, signed, brev, flags)) in [
        (0xdeadu32, 8u32, 16u32, 0, 0, 0u32),
        (0xdead, 16, 16, 0, 0, 1),
        (0xdead, 8, 0, 0, 0, 1),
        (0xdead_0000, 24, 16, 1, 0, 2),
        (1, 32, 1, 1, 1, 2),
    ]
    .iter()
    .enumerate()
    {
        let body = format!("{load}BFE.reg rd=255 ra=2 rb=3 signed={signed} brev={brev} cc=1\n{FLAGS_TO_R2}");
        check(&format!("bfe_cc_{i}"), &body, bank2(&[base, offset | count << 8]), each(flags));
    }
    let load = "MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=2 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=3 cb_bank=2 cb_offset=2 lanes=15\n";
    // (base, insert, offset, count, flags)
    for (i, &(base, insert, offset, count, flags)) in [
        (0x00cc_ccccu32, 0xcafeu32, 8u32, 0u32, 0u32),
        (0xcccc_cccc, 0xcafe, 8, 64, 0),
        (0xcccc_cccc, 0, 0, 32, 1),
        (0xcafe, 0, 0, 16, 1),
        (0x00cc_cccc, 0xcc, 28, 4, 2),
        (0xcccc_cccc, 0xcafe, 8, 0, 2),
    ]
    .iter()
    .enumerate()
    {
        let body = format!("{load}BFI.reg rd=255 ra=2 rb=3 rc=4 cc=1\n{FLAGS_TO_R2}");
        check(&format!("bfi_cc_{i}"), &body, bank2(&[base, insert, offset | count << 8, 0]), each(flags));
    }
}

/// flo.cpp (every test case) and popc.cpp "POPC Simple", "POPC Negation": FLO.S32 looks for the highest bit unlike
/// the sign (after ~), .SH gives the count from the top, nothing found is 0xffffffff; POPC ~b counts b's zeros.
#[test]
fn leading_ones_and_population_counts() {
    const NONE: u32 = 0xffff_ffff;
    let (u, s) = ("FLO.cbuf rd=2 cb_bank=2 cb_offset=0", "FLO.cbuf rd=2 cb_bank=2 cb_offset=0 signed=1");
    let (u_sh, s_sh) =
        ("FLO.cbuf rd=2 cb_bank=2 cb_offset=0 sh=1", "FLO.cbuf rd=2 cb_bank=2 cb_offset=0 signed=1 sh=1");
    let (u_inv, s_inv) =
        ("FLO.cbuf rd=2 cb_bank=2 cb_offset=0 inv_b=1", "FLO.cbuf rd=2 cb_bank=2 cb_offset=0 signed=1 inv_b=1");
    let vectors: &[(u32, &str, u32)] = &[
        // Simple
        (0x8000_0000, u, 31),
        (0, u, NONE),
        (2, u, 1),
        (1, u, 0),
        (4, "FLO.imm rd=2 imm20=4", 2),
        (4, "MOV32I rd=2 imm32=4 lanes=15\nFLO.reg rd=2 rb=2", 2),
        // Negative
        (0, s, NONE),
        (0xffff_ffff, s, NONE),
        (0x8000_0000, s, 30),
        (0xf000_0000, s, 27),
        (0xff00_0000, s, 23),
        (0x0300_0000, s, 25),
        (1, s, 0),
        (2, s, 1),
        // SH
        (0x8000_0000, u_sh, 0),
        (0x0f00_0000, u_sh, 4),
        (0x00f0_0000, u_sh, 8),
        (0x00f0_0000, s_sh, 8),
        (0xf0f0_0000, s_sh, 4),
        (0xf000_0000, s_sh, 4),
        (0x9000_0000, s_sh, 1),
        (0xffff_ffff, s_sh, NONE),
        (0, s_sh, NONE),
        (0xffff_ffff, u_sh, 0),
        (0, u_sh, NONE),
        // Invert
        (0x8000_0000, u_inv, 30),
        (0xffff_0000, u_inv, 15),
        (0x8000_0000, s_inv, 30),
        (0, s_inv, NONE),
        (0x7800_0000, s_inv, 30),
        (0xffff_0000, s_inv, 15),
        (0x0000_f000, s_inv, 15),
        (0x0000_0f00, s_inv, 11),
    ];
    let inputs = set(&[(2, 0x0ff0), (3, 0x00ff)]);
    for (i, &(value, instruction, expected)) in vectors.iter().enumerate() {
        check(&format!("flo_{i}"), &format!("{inputs}{instruction}"), bank2(&[value]), each(expected));
    }
    for value in [25u32, 64, 123, 195, (-45i32) as u32] {
        let (ones, zeros) = (value.count_ones(), (!value).count_ones());
        for (form, instruction, expected) in [
            ("reg", "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nPOPC.reg rd=2 rb=2".to_string(), ones),
            ("cbuf", "POPC.cbuf rd=2 cb_bank=2 cb_offset=0".to_string(), ones),
            ("not_cbuf", "POPC.cbuf rd=2 cb_bank=2 cb_offset=0 inv_b=1".to_string(), zeros),
            ("not_reg", format!("MOV32I rd=2 imm32={value:#x} lanes=15\nPOPC.reg rd=2 rb=2 inv_b=1"), zeros),
            ("not_imm", format!("POPC.imm rd=2 imm20={:#x} inv_b=1", value & 0xf_ffff), zeros),
        ] {
            check(&format!("popc_{form}_{value:#x}"), &instruction, bank2(&[value]), each(expected));
        }
    }
}

/// shf.cpp "SHF Simple", "SHF Undefined": {R4, R2} (R4 high) funnel-shifted by R3; the plain form clamps the
/// amount at 32, .U64/.S64 at 64, .W wraps it (at 32 or 64); SHF.R keeps the low word, SHF.L the high one.
#[test]
fn funnel_shifts_follow_the_hardware() {
    const A: u64 = 0x0cc0_0dd0_0ee0_0ff0;
    const B: u64 = 0xcc00_0dd0_0ee0_0ff0;
    // (base, shift, direction, ty: 0 none 2 U64 3 S64, w, expected)
    let vectors: &[(u64, u32, &str, u32, u32, u32)] = &[
        (A, 4, "R", 0, 0, 0x00ee_00ff),
        (A, 24, "R", 0, 0, 0xc00d_d00e),
        (A, 40, "R", 2, 0, 0x000c_c00d),
        (A, 48, "R", 2, 0, 0x0cc0),
        (B, 48, "R", 3, 0, 0xffff_cc00),
        (B, 48, "R", 2, 0, 0x0000_cc00),
        (A, 4, "L", 0, 0, 0xcc00_dd00),
        (A, 24, "L", 0, 0, 0xd00e_e00f),
        (A, 36, "L", 2, 0, 0xee00_ff00),
        // Undefined
        (A, 40, "R", 0, 0, 0x0cc0_0dd0),
        (A, 40, "L", 0, 0, 0x0ee0_0ff0),
        (A, 40, "R", 2, 0, 0x000c_c00d),
        (A, 40, "L", 2, 0, 0xe00f_f000),
        (A, 70, "R", 2, 0, 0),
        (B, 70, "R", 3, 0, 0xffff_ffff),
        (A, 70, "L", 2, 0, 0),
        (A, 40, "R", 0, 1, 0xd00e_e00f),
        (A, 40, "L", 0, 1, 0xc00d_d00e),
        (A, 70, "R", 2, 1, 0x403b_803f),
        (B, 70, "R", 3, 1, 0x403b_803f),
        (A, 70, "L", 2, 1, 0x3003_7403),
        (A, 110, "R", 2, 1, 0x3300),
        (B, 110, "R", 3, 1, 0xffff_3000),
        (A, 110, "L", 2, 1, 0x03fc_0000),
    ];
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=4 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=3 cb_bank=2 cb_offset=2 lanes=15\n";
    for (i, &(base, shift, direction, ty, w, expected)) in vectors.iter().enumerate() {
        let body = format!("{load}SHF.{direction}.reg rd=2 ra=2 rb=3 rc=4 ty={ty} w={w}");
        check(&format!("shf_{i}"), &body, bank2(&[base as u32, (base >> 32) as u32, shift]), each(expected));
    }
    // SHF.R R2, R2, 4, R4
    let body = format!("{load}SHF.R.imm rd=2 ra=2 imm6=4 rc=4");
    check("shf_imm", &body, bank2(&[A as u32, (A >> 32) as u32, 4]), each(0x00ee_00ff));
}

/// shl.cpp "SHL Simple", "SHL Undefined" and shr.cpp "SHR Simple", "SHR Negatives", "SHR Undefined" (the vectors
/// without .BREV): an amount of 32 or more gives 0 (or the sign), .W takes it modulo 32.
#[test]
fn shifts_clamp_or_wrap() {
    // SHL: R3 = 3, c[2][0] = value.
    let shl = "SHL.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0";
    let vectors: &[(u32, &str, u32)] = &[
        (1, "MOV32I rd=2 imm32=1 lanes=15\nSHL.reg rd=2 ra=2 rb=3", 8),
        (5, shl, 96),
        (5, "SHL.imm rd=2 ra=3 imm20=5", 96),
        (32, shl, 0),
        (32, "SHL.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 w=1", 3),
        (33, shl, 0),
        (33, "SHL.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 w=1", 6),
    ];
    for (i, &(value, instruction, expected)) in vectors.iter().enumerate() {
        check(&format!("shl_{i}"), &format!("{}{instruction}", set(&[(3, 3)])), bank2(&[value]), each(expected));
    }
    // SHR: R3 = 64, R4 = -64, c[2][0] = value.
    let minus = |x: i32| x as u32;
    let u3 = "SHR.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0";
    let (s3, s4) =
        ("SHR.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 signed=1", "SHR.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 signed=1");
    let (s3w, s4w) = (
        "SHR.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 signed=1 w=1",
        "SHR.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 signed=1 w=1",
    );
    let u3w = "SHR.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 w=1";
    let vectors: &[(u32, &str, u32)] = &[
        (3, "MOV32I rd=2 imm32=3 lanes=15\nSHR.reg rd=2 ra=3 rb=2", 8),
        (3, u3, 8),
        (3, "SHR.imm rd=2 ra=3 imm20=3", 8),
        (3, "MOV32I rd=2 imm32=3 lanes=15\nSHR.reg rd=2 ra=4 rb=2 signed=1", minus(-8)),
        (3, s4, minus(-8)),
        (3, "SHR.imm rd=2 ra=4 imm20=3 signed=1", minus(-8)),
        (32, u3, 0),
        (32, u3w, 64),
        (33, u3, 0),
        (33, u3w, 32),
        (32, s3, 0),
        (32, s4, minus(-1)),
        (32, s3w, 64),
        (32, s4w, minus(-64)),
        (33, s3, 0),
        (33, s4, minus(-1)),
        (33, s3w, 32),
        (33, s4w, minus(-32)),
    ];
    let inputs = set(&[(3, 64), (4, minus(-64))]);
    for (i, &(value, instruction, expected)) in vectors.iter().enumerate() {
        check(&format!("shr_{i}"), &format!("{inputs}{instruction}"), bank2(&[value]), each(expected));
    }
}

/// shr.cpp "SHR BREV" and the .BREV vectors of "SHR Undefined":
/// a's bits reversed, then shifted (.U32 logically, .S32 arithmetically; every reversed value here is positive or
/// unshifted), the amount clamped at 32 or, with .W, taken modulo 32.
#[test]
fn shifts_right_of_reversed_bits() {
    let minus_64 = (-64i32) as u32;
    let vectors: &[(u32, &str, u32)] = &[
        (3, "MOV32I rd=3 imm32=1 lanes=15\nSHR.reg rd=2 ra=3 rb=255 brev=1", 0x8000_0000),
        (1, "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nSHR.reg rd=2 ra=2 rb=255 signed=1 brev=1", 0x8000_0000),
        (0x8000_0000, "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nSHR.reg rd=2 ra=2 rb=255 signed=1 brev=1", 1),
        (3, "SHR.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 brev=1", 0x40_0000),
        (3, "SHR.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 signed=1 brev=1", 0x40_0000),
        (3, "SHR.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 brev=1", 0x7f_ffff),
        (3, "SHR.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 signed=1 brev=1", 0x7f_ffff),
        (35, "SHR.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 signed=1 brev=1", 0),
        (35, "SHR.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 signed=1 w=1 brev=1", 0x7f_ffff),
    ];
    let inputs = set(&[(3, 64), (4, minus_64)]);
    for (i, &(value, instruction, expected)) in vectors.iter().enumerate() {
        check(&format!("shr_brev_{i}"), &format!("{inputs}{instruction}"), bank2(&[value]), each(expected));
    }
}

/// lea.cpp "LEA Simple", "LEA Keoi Tecmo": LEA(.LO) is (a << shift) + b (a negated first with -a); LEA.HI the high
/// word of ({c, a} << shift) + b. R2 = offset, R3 = base, R4 = offset_hi, from c[2] = {offset, base, offset_hi}.
#[test]
fn load_effective_addresses() {
    let hi = "LEA.HI.reg rd=2 ra=2 rb=3 rc=4 pd=7";
    let hi_cbuf = "LEA.HI.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 rc=4 pd=7";
    let hi_30 = "LEA.HI.reg rd=2 ra=2 rb=3 rc=255 shift=30 pd=7";
    let m1 = u32::MAX;
    // (base, offset, offset_hi, instruction, expected)
    let vectors: &[(u32, u32, u32, String, u32)] = &[
        (32, 1, 0, "LEA.reg rd=2 ra=2 rb=3 shift=2 pd=7".into(), 36),
        (32, m1, 0, "LEA.reg rd=2 ra=2 rb=3 shift=2 pd=7".into(), 28),
        (32, 1, 0, "LEA.reg rd=2 ra=2 rb=3 shift=2 neg_a=1 pd=7".into(), 28),
        (32, 1, 0, "LEA.reg rd=2 ra=2 rb=3 shift=3 neg_a=1 pd=7".into(), 24),
        (32, 1, 0, "LEA.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 shift=2 pd=7".into(), 36),
        (32, 1, 0, "LEA.imm rd=2 ra=2 imm20=1 shift=2 pd=7".into(), 5),
        (32, 1, 0, "LEA.imm rd=2 ra=2 imm20=0xfffff shift=2 pd=7".into(), 3),
        (32, 1, 0, format!("{hi} shift=2"), 32),
        (32, m1, 0, format!("{hi} shift=1"), 33),
        (32, m1, 2, format!("{hi} shift=1"), 37),
        (32, m1, 2, format!("{hi_cbuf} shift=1"), 37),
        (32, 0, 2, format!("{hi_cbuf} shift=1"), 36),
        (32, 0, 2, format!("{hi_cbuf} shift=0"), 34),
        (32, 0, m1, format!("{hi_cbuf} shift=0"), 31),
        (0, 0xdead, 0, hi_30.into(), 0x37ab),
        (0, 0xcafe, 0, hi_30.into(), 0x32bf),
        (0xaaa3, 0xcafe, 0, hi_30.into(), 0xdd62),
        (0xffff_ffff, 1, 0, "LEA.reg rd=2 ra=2 rb=3 pd=7".into(), 0),
        (0xffff_ffff, 2, 0, "LEA.reg rd=2 ra=2 rb=3 pd=7".into(), 1),
        (0xffff_ffff, m1, 2, format!("{hi} shift=1"), 4),
        // Keoi Tecmo
        (0xacda_b923, 0xdea1_394a, 0, hi_30.into(), 0xe483_0775),
        (0xff21_a924, 0x012a_9cde, 0, hi_30.into(), 0xff6c_505b),
        (0x2203_14a8, 0xdead_beef, 0, hi_30.into(), 0x59ae_8463),
        (0xbea8_1324, 0xcafe_cafe, 0, hi_30.into(), 0xf167_c5e3),
    ];
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=4 cb_bank=2 cb_offset=2 lanes=15\n";
    for (i, (base, offset, offset_hi, instruction, expected)) in vectors.iter().enumerate() {
        let body = format!("{load}{instruction}");
        check(&format!("lea_{i}"), &body, bank2(&[*offset, *base, *offset_hi]), each(*expected));
    }
}

/// iadd3.cpp "IADD3 Simple", "IADD3 33-bit", "IADD3 198X", "IADD3 Age of Calamity": negations, .H0/.H1 parts,
/// .RS/.LS (the first sum's 33 bits shifted by 16), constant and immediate (sign-extended) second sources, and a
/// guard predicate. R2, R3, R4 = c[2] = {a, b, c}; P0 is false.
#[test]
fn three_input_adds_follow_the_hardware() {
    let load = "ISETP.reg pd=0 pq=7 ra=255 rb=255 cmp=0 signed=1 bop=0 ps=7\n\
                MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=4 cb_bank=2 cb_offset=2 lanes=15\n";
    let m = |x: i32| x as u32;
    let r = "IADD3.reg rd=2 ra=2 rb=3 rc=4";
    let vectors: &[(u32, u32, u32, &str, u32)] = &[
        (4, 5, 6, "", 15),
        (4, 5, 6, "neg_a=1", 7),
        (4, 5, 6, "neg_b=1", 5),
        (4, 5, 6, "neg_c=1", 3),
        (4, 5, 6, "neg_b=1 neg_c=1", m(-7)),
        (4, 5, 6, "neg_a=1 neg_c=1", m(-5)),
        (0x40009, 0x20003, 0x10008, "", 0x70014),
        (0x40009, 0x20003, 0x10008, "half_a=1", 0x30014),
        (0x40009, 0x20003, 0x10008, "half_b=1", 0x50014),
        (0x40009, 0x20003, 0x10008, "half_c=1", 0x60014),
        (0x40009, 0x20003, 0x10008, "half_a=2", 0x3000f),
        (0x40009, 0x20003, 0x10008, "half_b=2", 0x50013),
        (0x40009, 0x20003, 0x10008, "half_c=2", 0x6000d),
        (0x40009, 0x20003, 0x10008, "half_a=2 half_b=1", 0x1000f),
        (0x40009, 0x20003, 0x10008, "half_c=2 neg_c=1", 0x6000b),
        (0x40000, 0x50000, 6, "shift=1", 15),
        (4, 5, 6, "shift=2", 0x90006),
        (0xffff_ffff, 1, 0, "shift=1", 0x10000),
        (0xffff_ffff, 0, 0, "shift=1", 0xffff),
        (0xffff_ffff, 0xffff_ffff, 0, "shift=1", 0x1ffff),
    ];
    for (i, &(a, b, c, fields, expected)) in vectors.iter().enumerate() {
        check(&format!("iadd3_{i}"), &format!("{load}{r} {fields}"), bank2(&[a, b, c]), each(expected));
    }
    let body = format!("{load}IADD3.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 rc=4");
    check("iadd3_cbuf", &body, bank2(&[4, 5, 6]), each(15));
    check("iadd3_imm", &format!("{load}IADD3.imm rd=2 ra=2 imm20=5 rc=4"), bank2(&[4, 5, 6]), each(15));
    // FuzzRun's four inputs
    let inputs = [
        [0xaaaa_bbbbu32, 0xdead_beef, 0xcafe_cafe],
        [0x0040_8023, 0xab30_3abd, 0x7ace_930a],
        [0x8000_8000, 0x34a0_50be, 0xaeae_2040],
        [0x5921_acde, 0x52ab_d03e, 0xe3e3_e3e3],
    ];
    let fuzzed: &[(&str, [u32; 4])] = &[
        ("IADD3.reg rd=2 ra=2 rb=3 rc=4 shift=2", [0x45a8_cafe, 0x35ae_930a, 0x7f6c_2040, 0x60ff_e3e3]),
        (
            "IADD3.cbuf rd=2 ra=2 neg_a=1 cb_bank=2 cb_offset=0 rc=4",
            [0xcafe_cafe, 0x7ace_930a, 0xaeae_2040, 0xe3e3_e3e3],
        ),
        (
            "IADD3.cbuf rd=2 ra=2 neg_a=1 cb_bank=2 cb_offset=1 rc=4",
            [0xff01_ce32, 0x25be_4da4, 0x634d_f0fe, 0xdd6e_0743],
        ),
        (
            "IADD3.cbuf rd=2 ra=2 neg_a=1 cb_bank=2 cb_offset=2 rc=4",
            [0xeb52_da41, 0xf55c_a5f1, 0xdd5b_c080, 0x6ea6_1ae8],
        ),
        ("IADD3.imm rd=2 ra=2 neg_a=1 imm20=0xaee rc=3", [0x3403_0e22, 0xaaef_c588, 0xb49f_dbac, 0xf98a_2e4e]),
        // Age of Calamity
        ("IADD3.imm rd=2 ra=3 imm20=0x40 rc=4", [0xa9ac_8a2d, 0x25fe_ce07, 0xe34e_713e, 0x368f_b461]),
        ("IADD3.reg rd=2 ra=4 rb=3 rc=2 shift=2", [0x3497_bbbb, 0xce07_8023, 0xf0fe_8000, 0x0d42_acde]),
        ("IADD3.reg rd=2 ra=4 rb=3 rc=2 shift=1", [0xaaac_6567, 0x0041_a621, 0x8001_634e, 0x5922_e36d]),
        ("IADD3.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 rc=4", [0x5457_45a8, 0x263f_4dea, 0x634e_f0fe, 0x8fb1_60ff]),
        // @!P0 / @P0 IADD3 R2, R4, 0xfff82, -R3
        (
            "IADD3.imm rd=2 ra=4 imm20=0xfff82 rc=3 neg_c=1 pg=0 pg_not=1",
            [0xec51_0b91, 0xcf9e_57cf, 0x7a0d_cf04, 0x9138_1327],
        ),
        ("IADD3.imm rd=2 ra=4 imm20=0xfff82 rc=3 neg_c=1 pg=0", [0xaaaa_bbbb, 0x0040_8023, 0x8000_8000, 0x5921_acde]),
    ];
    for (i, (instruction, expected)) in fuzzed.iter().enumerate() {
        for (input, expected) in inputs.iter().zip(expected) {
            let name = format!("iadd3_fuzz_{i}_{:#x}", input[0]);
            check(&name, &format!("{load}{instruction}"), bank2(input), each(*expected));
        }
    }
}

/// iadd3.cpp "IADD3 CC": zero and sign of the result; overflow is the carry out of the first sum (a + b) and carry
/// the carry out of adding c to it, as these flags show (a true overflow would not be set by 1 + -1 + 0, and
/// -2 + 1 + 1 sets carry, not overflow). Its .RS and .LS vectors carry nothing, so they cannot show where the
/// flags come from with a shift: both paths refuse IADD3.CC with one (or with a negation).
#[test]
fn three_input_add_flags_are_two_carries() {
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=4 cb_bank=2 cb_offset=2 lanes=15\n";
    // (a, b, c, shift, flags)
    let vectors: [(i32, i32, i32, u32, u32); 9] = [
        (0, 0, 0, 0, 1),
        (-2, 1, 1, 0, 5),
        (1, -1, 0, 0, 9),
        (-1, 0, 0, 0, 2),
        (0, -1, 0, 0, 2),
        (0, 0, -1, 0, 2),
        (-1, 2, 0, 0, 8),
        (1, -1, 1, 0, 8),
        (0, 2, -1, 0, 4),
    ];
    for (i, (a, b, c, shift, flags)) in vectors.into_iter().enumerate() {
        let body = format!("{load}IADD3.reg rd=255 ra=2 rb=3 rc=4 shift={shift} cc=1\n{FLAGS_TO_R2}");
        check(&format!("iadd3_cc_{i}"), &body, bank2(&[a as u32, b as u32, c as u32]), each(flags));
    }
    for shift in [1, 2] {
        let (interpreted, translated) = refusals(
            &format!("iadd3_cc_shift_{shift}"),
            &format!("IADD3.reg rd=255 ra=2 rb=3 rc=4 shift={shift} cc=1"),
        );
        assert!(interpreted.contains("IADD3") && translated.contains("IADD3"), "{interpreted} / {translated}");
    }
}

/// isetp.cpp (every test case): each comparison, signed and .U32, combined with a predicate (the second destination
/// takes the negated comparison), and .X with the condition code as a program starts (all flags clear: the
/// hardware's answers 0x3a and 0x2a are those of a subtraction with a borrow in and Z clear). P2R R2, PR, RZ, 0xff.
#[test]
fn integer_predicates_follow_the_hardware() {
    let c = "cb_bank=2 cb_offset=0";
    // The seven comparisons of "ISETP Simple": F, LT with RZ; EQ, LE, GE with R2; GT, NE with R3.
    let seven = |signed: u32, x: u32| -> String {
        [(0, 0, 255), (1, 1, 255), (2, 2, 2), (3, 3, 2), (4, 4, 3), (5, 5, 3), (6, 6, 2)]
            .iter()
            .map(|(p, cmp, ra)| {
                format!("ISETP.cbuf pd={p} pq=7 ra={ra} {c} cmp={cmp} signed={signed} x={x} bop=0 ps=7\n")
            })
            .collect()
    };
    let m = |x: i32| x as u32;
    let vectors: Vec<(u32, String, u32)> = vec![
        (17, format!("{}{}", set(&[(2, 17), (3, 34)]), seven(1, 0)), 0x7e),
        (0, format!("ISETP.cbuf pd=0 pq=7 ra=255 {c} cmp=7 signed=1 bop=0 ps=7"), 1),
        (0, format!("{}ISETP.reg pd=0 pq=7 ra=2 rb=3 cmp=4 signed=1 bop=0 ps=7", set(&[(2, 7), (3, 5)])), 1),
        (0, format!("{}ISETP.imm pd=0 pq=7 ra=2 imm20=5 cmp=4 signed=1 bop=0 ps=7", set(&[(2, 7)])), 1),
        // Combining
        (17, format!("ISETP.cbuf pd=0 pq=1 ra=255 {c} cmp=4 signed=1 bop=0 ps=7"), 2),
        (17, format!("ISETP.cbuf pd=0 pq=1 ra=255 {c} cmp=4 signed=1 bop=1 ps=1"), 2),
        (17, format!("ISETP.cbuf pd=0 pq=1 ra=255 {c} cmp=4 signed=1 bop=1 ps=7"), 3),
        (17, format!("ISETP.cbuf pd=0 pq=1 ra=255 {c} cmp=1 signed=1 bop=0 ps=7"), 1),
        (
            17,
            format!(
                "ISETP.cbuf pd=0 pq=7 ra=255 {c} cmp=7 signed=1 bop=0 ps=7\n\
                 ISETP.cbuf pd=1 pq=2 ra=255 {c} cmp=4 signed=1 bop=0 ps=7 ps_not=1\n\
                 ISETP.cbuf pd=3 pq=4 ra=255 {c} cmp=4 signed=1 bop=0 ps=0"
            ),
            0b10001,
        ),
        // Negatives
        (m(-17), format!("{}{}", set(&[(2, m(-17)), (3, m(-34))]), seven(1, 0)), 0b110_1100),
        (m(-17), format!("{}{}", set(&[(2, m(-17)), (3, m(-34))]), seven(0, 0)), 0b110_1110),
        // Extended
        (17, format!("{}{}", set(&[(2, 17), (3, 34)]), seven(1, 1)), 0x3a),
        (m(-17), format!("{}{}", set(&[(2, m(-17)), (3, 34)]), seven(0, 1)), 0x2a),
        (0, format!("{}ISETP.reg pd=0 pq=7 ra=2 rb=3 cmp=4 signed=1 x=1 bop=0 ps=7", set(&[(2, 7), (3, 5)])), 1),
        (0, format!("{}ISETP.imm pd=0 pq=7 ra=2 imm20=5 cmp=4 signed=1 x=1 bop=0 ps=7", set(&[(2, 7)])), 1),
    ];
    for (i, (value, code, expected)) in vectors.iter().enumerate() {
        let body = format!("{}{code}\nP2R.imm rd=2 ra=255 imm20=0xff", reset_predicates());
        check(&format!("isetp_{i}"), &body, bank2(&[*value]), each(*expected));
    }
}

/// iset.cpp "ISET Simple", "ISET Negatives", "ISET Combining", "ISET BF": R2 = 50, R3 = -50, R4 = 75, R5 = 25.
#[test]
fn integer_sets_follow_the_hardware() {
    let prelude = format!(
        "ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7\n{}",
        set(&[(2, 50), (3, (-50i32) as u32), (4, 75), (5, 25)])
    );
    const T: u32 = u32::MAX;
    // (ra, rb, cmp: F LT EQ LE GT NE GE T as 0-7, signed, expected) of ISET.cmp.AND R2, Ra, Rb, PT
    let compares: &[(u32, u32, u32, u32, u32)] = &[
        (4, 5, 0, 1, 0),
        (4, 5, 7, 1, T),
        (4, 5, 1, 1, 0),
        (4, 5, 2, 1, 0),
        (4, 5, 3, 1, 0),
        (4, 5, 4, 1, T),
        (4, 5, 5, 1, T),
        (4, 5, 6, 1, T),
        (4, 4, 1, 1, 0),
        (4, 4, 2, 1, T),
        (4, 4, 3, 1, T),
        (4, 4, 4, 1, 0),
        (4, 4, 5, 1, 0),
        (4, 4, 6, 1, T),
        (5, 4, 1, 1, T),
        (5, 4, 2, 1, 0),
        (5, 4, 3, 1, T),
        (5, 4, 4, 1, 0),
        (5, 4, 5, 1, T),
        (5, 4, 6, 1, 0),
        // Negatives: R4 (75) against R3 (-50)
        (4, 3, 1, 0, T),
        (4, 3, 2, 0, 0),
        (4, 3, 3, 0, T),
        (4, 3, 4, 0, 0),
        (4, 3, 5, 0, T),
        (4, 3, 6, 0, 0),
        (4, 3, 1, 1, 0),
        (4, 3, 2, 1, 0),
        (4, 3, 3, 1, 0),
        (4, 3, 4, 1, T),
        (4, 3, 5, 1, T),
        (4, 3, 6, 1, T),
    ];
    for (i, &(ra, rb, cmp, signed, expected)) in compares.iter().enumerate() {
        let body = format!("{prelude}ISET.reg rd=2 ra={ra} rb={rb} cmp={cmp} signed={signed} bop=0 ps=7");
        check(&format!("iset_{i}"), &body, bank2(&[0]), each(expected));
    }
    for (name, value, instruction, expected) in [
        ("imm", 0, "ISET.imm rd=2 ra=4 imm20=75 cmp=2 signed=1 bop=0 ps=7", T),
        ("cbuf", 75, "ISET.cbuf rd=2 ra=4 cb_bank=2 cb_offset=0 cmp=2 signed=1 bop=0 ps=7", T),
        ("xor", 0, "ISET.reg rd=2 ra=4 rb=4 cmp=2 signed=1 bop=2 ps=7", 0),
        ("or", 0, "ISET.reg rd=2 ra=4 rb=4 cmp=5 signed=1 bop=1 ps=7", T),
        ("and_not", 0, "ISET.reg rd=2 ra=4 rb=4 cmp=1 signed=1 bop=0 ps=7 ps_not=1", 0),
        ("bf", 0, "ISET.reg rd=2 ra=4 rb=4 cmp=2 signed=1 bop=0 ps=7 bf=1", 0x3f80_0000),
    ] {
        check(&format!("iset_{name}"), &format!("{prelude}{instruction}"), bank2(&[value]), each(expected));
    }
}

/// iset.cpp, the "ISET X ..." test cases (444 vectors): ISET.cmp[.U32].X.AND R2, R4, R3, PT after each of four
/// condition codes (`IADD R, RZ, -1; IADD RZ.CC, R, 0`: S; `0 + 0`: Z; `-1 + 2`: C; `-1 + 1`: Z and C). One program
/// a test case: six comparisons (LT EQ LE GT NE GE) after each flag setting, gathered into bits 6f + k. The
/// hardware compares as a subtraction a - b - !C whose zero flag also needs Z.
#[test]
fn extended_integer_sets_follow_the_hardware() {
    // IADD R8, RZ, first; IADD RZ.CC, R8, second (the hardware used R2 for R8).
    const FLAGS: [(u32, u32); 4] = [(0xf_ffff, 0), (0, 0), (0xf_ffff, 2), (0xf_ffff, 1)];
    // (test case, R4, R3, signed, masks for the four flag settings: bit k for LT, EQ, LE, GT, NE, GE)
    type Case = (&'static str, i32, i32, u32, [Option<u32>; 4]);
    let cases: &[Case] = &[
        ("ISET X Simple", 75, -50, 0, [Some(21), None, None, None]),
        ("ISET X Simple", 75, -50, 1, [Some(56), None, None, None]),
        ("ISET X Less By Two", 75, 73, 1, [Some(56), Some(56), Some(56), Some(56)]),
        ("ISET X U32 Less By Two", 75, 73, 0, [Some(56), Some(56), Some(56), Some(56)]),
        ("ISET X Less By One", 75, 74, 1, [Some(56), Some(38), Some(56), Some(56)]),
        ("ISET X U32 Less By One", 75, 74, 0, [Some(56), Some(38), Some(56), Some(56)]),
        ("ISET X Equal", 75, 75, 1, [Some(21), Some(21), Some(56), Some(38)]),
        ("ISET X U32 Equal", 75, 75, 0, [Some(21), Some(21), Some(56), Some(38)]),
        ("ISET X Greater By One", 75, 76, 1, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X U32 Greater By One", 75, 76, 0, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X Greater By Two", 75, 77, 1, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X U32 Greater By Two", 75, 77, 0, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X Negative A", -30, 75, 1, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X U32 Negative A", -30, 75, 0, [Some(56), Some(56), Some(56), Some(56)]),
        ("ISET X Negative B", 75, -30, 1, [Some(56), Some(56), Some(56), Some(56)]),
        ("ISET X U32 Negative B", 75, -30, 0, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X Negative AB", -75, -30, 1, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X U32 Negative AB", -75, -30, 0, [Some(21), Some(21), Some(21), Some(21)]),
        ("ISET X Negative BA", -30, -75, 1, [Some(56), Some(56), Some(56), Some(56)]),
        ("ISET X U32 Negative BA", -30, -75, 0, [Some(56), Some(56), Some(56), Some(56)]),
    ];
    for (i, &(case, r4, r3, signed, masks)) in cases.iter().enumerate() {
        let mut body = format!("{}MOV32I rd=2 imm32=0 lanes=15\n", set(&[(4, r4 as u32), (3, r3 as u32)]));
        let mut expected = 0u32;
        for (f, mask) in masks.iter().enumerate() {
            let Some(mask) = mask else { continue };
            let (first, second) = FLAGS[f];
            body += &format!("IADD.imm rd=8 ra=255 imm20={first:#x}\nIADD.imm rd=255 ra=8 imm20={second} cc=1\n");
            for k in 0..6 {
                body += &format!(
                    "ISET.reg rd=9 ra=4 rb=3 cmp={} signed={signed} x=1 bop=0 ps=7\n\
                     LOP32I rd=9 ra=9 imm32={:#x} op=0\nLOP.reg rd=2 ra=2 rb=9 op=1 pd=7\n",
                    k + 1,
                    1u32 << (6 * f + k)
                );
            }
            expected |= mask << (6 * f);
        }
        check(&format!("iset_x_{i}_{}", case.replace(' ', "_")), &body, bank2(&[0]), each(expected));
    }
}

/// icmp.cpp "ICMP Simple" and sel.cpp "SEL Reg", "SEL Cbuf", "SEL Imm": ICMP picks a (1) where c (the input)
/// compares true with zero, else b (0); SEL picks a (RZ) where the predicate holds (P0 true, P1 false).
#[test]
fn integer_compares_and_selects() {
    // R2 = c[2][8] = 1, R3 = c[2][4] = 0, R4 = c[2][0] = value.
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=2 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=4 cb_bank=2 cb_offset=0 lanes=15\n";
    // (value, cmp: F LT EQ LE GT NE GE T as 0-7, expected)
    for (i, &(value, cmp, expected)) in [
        (0i32, 0u32, 0u32),
        (-2, 1, 1),
        (0, 2, 1),
        (0, 3, 1),
        (-1, 3, 1),
        (1, 4, 1),
        (0, 4, 0),
        (1, 6, 1),
        (0, 6, 1),
        (-1, 6, 0),
        (-1, 5, 1),
        (0, 5, 0),
        (0, 7, 1),
        (1, 7, 1),
        (-1, 7, 1),
    ]
    .iter()
    .enumerate()
    {
        let body = format!("{load}ICMP.reg rd=2 ra=2 rb=3 rc=4 cmp={cmp} signed=1");
        check(&format!("icmp_{i}"), &body, bank2(&[value as u32, 0, 1, 0]), each(expected));
    }
    for (form, instruction) in [
        ("reg", "ICMP.reg rd=2 ra=2 rb=3 rc=4 cmp=4"),
        ("cbuf_c", "ICMP.cbuf_c rd=2 ra=2 rb=3 cb_bank=2 cb_offset=0 cmp=4"),
        ("cbuf", "ICMP.cbuf rd=2 ra=2 cb_bank=2 cb_offset=2 rc=4 cmp=4"),
        ("imm", "ICMP.imm rd=2 ra=2 imm20=0 rc=4 cmp=4"),
    ] {
        // ICMP.GT.U32 of -1
        check(&format!("icmp_u32_{form}"), &format!("{load}{instruction}"), bank2(&[u32::MAX, 0, 1, 0]), each(1));
    }
    let prelude = format!("{}ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7\n", set(&[(3, 5)]));
    for (form, b, value) in [("reg", "rb=3", 5), ("cbuf", "cb_bank=2 cb_offset=0", 5), ("imm", "imm20=54", 54)] {
        // SEL R2, RZ, b, P1 / !P1 / P0 / !P0
        for (ps, ps_not, expected) in [(1, 0, value), (1, 1, 0), (0, 0, 0), (0, 1, value)] {
            let body = format!("{prelude}SEL.{form} rd=2 ra=255 {b} ps={ps} ps_not={ps_not}");
            check(&format!("sel_{form}_{ps}_{ps_not}"), &body, bank2(&[5]), each(expected));
        }
    }
}

/// lop.cpp "LOP Simple", "LOP Invert", "LOP Predicate", "LOP32I": R2 = 0x0ff0, R3 = 0x00ff; the predicate result
/// F writes false, T true, Z and NZ test the result.
#[test]
fn logic_operations_follow_the_hardware() {
    let vectors: &[(u32, &str, u32)] = &[
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=0", 0x00f0),
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=1", 0x0fff),
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=2", 0x0f0f),
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=3", 0x00ff),
        (0, "LOP.imm pd=7 rd=2 ra=2 imm20=0xdead op=3", 0xdead),
        (0x40, "LOP.cbuf pd=7 rd=2 ra=2 cb_bank=2 cb_offset=0 op=3", 0x40),
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=0 inv_b=1", 0x0f00),
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=0 inv_a=1 inv_b=1", 0xffff_f000),
        (0, "LOP.reg pd=7 rd=2 ra=2 rb=3 op=0 inv_a=1", 0x000f),
        (0, "LOP.reg pd=0 rd=255 ra=255 rb=255 op=0\nMOV32I rd=2 imm32=1 lanes=15 pg=0 pg_not=1", 1),
        (0, "LOP.reg pd=0 rd=255 ra=255 rb=255 op=0 pred_op=1\nMOV32I rd=2 imm32=2 lanes=15 pg=0", 2),
        (0, "LOP.reg pd=0 rd=255 ra=255 rb=255 op=0 pred_op=2\nMOV32I rd=2 imm32=3 lanes=15 pg=0", 3),
        (0, "LOP.reg pd=0 rd=255 ra=2 rb=2 op=0 pred_op=3\nMOV32I rd=2 imm32=4 lanes=15 pg=0", 4),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=0", 0x00f0),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=1", 0x0fff),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=2", 0x0f0f),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=3", 0x00ff),
        (0, "LOP32I rd=2 ra=2 imm32=0xdead op=3", 0xdead),
        (0, "LOP32I rd=2 ra=2 imm32=0x40 op=3", 0x40),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=0 inv_b=1", 0x0f00),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=0 inv_a=1 inv_b=1", 0xffff_f000),
        (0, "LOP32I rd=2 ra=2 imm32=0xff op=0 inv_a=1", 0x000f),
    ];
    let inputs = set(&[(2, 0x0ff0), (3, 0x00ff)]);
    for (i, &(value, instruction, expected)) in vectors.iter().enumerate() {
        check(&format!("lop_{i}"), &format!("{inputs}{instruction}"), bank2(&[value]), each(expected));
    }
}

/// lop3.cpp "LOP3 Simple" (every table on both tuples, and the constant and immediate forms) and "LOP3 Predicate".
/// Thread t of a program runs table base + t (guarded by R0 == t); the expected words are lop3.cpp's `lop3_fast`.
#[test]
fn three_input_logic_follows_the_hardware() {
    fn lop3_fast(a: u32, b: u32, c: u32, table: u32) -> u32 {
        let mut r = 0;
        for (bit, term) in
            [!a & !b & !c, !a & !b & c, !a & b & !c, !a & b & c, a & !b & !c, a & !b & c, a & b & !c, a & b & c]
                .into_iter()
                .enumerate()
        {
            if table >> bit & 1 != 0 {
                r |= term;
            }
        }
        r
    }
    let threads = tandem_gpu::sass::programs::THREADS;
    for (a, b, c) in [(0x8129_3021u32, 0x1283_9145u32, 0xde92_c1a8u32), (0xa821_838d, 0xcccc_cccc, 0)] {
        for base in (0..256).step_by(threads as usize) {
            let mut body = set(&[(3, a), (4, b), (5, c)]);
            for t in 0..threads {
                body += &format!(
                    "ISETP.imm pd=0 pq=7 ra=0 imm20={t} cmp=2 signed=0 bop=0 ps=7\n\
                     LOP3.reg rd=2 ra=3 rb=4 rc=5 lut={} pd=7 pg=0\n",
                    base + t
                );
            }
            check(&format!("lop3_{a:#x}_{base}"), &body, Vec::new(), move |t| lop3_fast(a, b, c, base + t));
        }
    }
    let load = "MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n\
                MOV.cbuf rd=4 cb_bank=2 cb_offset=2 lanes=15\n";
    let expected = lop3_fast(0x0fff, 0xff00, 0x00ff, 0x80);
    for (form, instruction) in [
        ("cbuf", "LOP3.cbuf rd=2 ra=2 cb_bank=2 cb_offset=1 rc=4 lut=0x80"),
        ("imm", "LOP3.imm rd=2 ra=2 imm20=0xff00 rc=4 lut=0x80"),
    ] {
        check(
            &format!("lop3_{form}"),
            &format!("{load}{instruction}"),
            bank2(&[0x0fff, 0xff00, 0x00ff]),
            each(expected),
        );
    }
    for (pred_op, lut, expected) in [(1, 0xff, 13), (2, 0, 14), (3, 0xff, 15)] {
        let body = format!(
            "{load}LOP3.reg pd=0 pred_op={pred_op} rd=2 ra=2 rb=3 rc=4 lut={lut:#x}\n\
             MOV32I rd=2 imm32={expected} lanes=15 pg=0"
        );
        check(&format!("lop3_pred_{pred_op}"), &body, bank2(&[1, 3, 5]), each(expected));
    }
}

/// pset.cpp "PSET Simple": (pa bop_ab pb) bop ps as all ones, or 1.0 with .BF.
#[test]
fn predicate_sets_follow_the_hardware() {
    // (bop_ab, bop, !pa, !pb, !ps, bf, expected); AND OR XOR as 0-2, every predicate PT.
    for (i, &(bop_ab, bop, not_a, not_b, not_s, bf, expected)) in [
        (0, 0, 0, 0, 0, 0, u32::MAX),
        (0, 0, 0, 0, 1, 0, 0),
        (0, 0, 0, 1, 0, 0, 0),
        (0, 0, 1, 0, 0, 0, 0),
        (1, 0, 1, 0, 0, 0, u32::MAX),
        (1, 0, 0, 1, 0, 0, u32::MAX),
        (2, 0, 0, 1, 0, 0, u32::MAX),
        (2, 0, 1, 1, 0, 0, 0),
        (2, 0, 0, 0, 0, 0, 0),
        (2, 1, 0, 0, 0, 0, u32::MAX),
        (2, 2, 0, 0, 0, 0, u32::MAX),
        (2, 2, 0, 0, 1, 0, 0),
        (2, 2, 1, 0, 0, 0, 0),
        (2, 1, 1, 0, 0, 1, 0x3f80_0000),
    ]
    .iter()
    .enumerate()
    {
        let body = format!(
            "ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7\n\
             PSET rd=2 pa=7 pa_not={not_a} pb=7 pb_not={not_b} ps=7 ps_not={not_s} bop_ab={bop_ab} bop={bop} bf={bf}"
        );
        check(&format!("pset_{i}"), &body, bank2(&[0]), each(expected));
    }
}

/// psetp.cpp "PSETP Simple" (11 of its 13 vectors; the other two are in `predicate_pairs_negate_only_a`):
/// `PSETP.bop_ab.bop P0, P1, pa, pb, ps`, then R2 = P0 + 2 P1; P0 is (pa bop_ab pb) bop ps.
#[test]
fn predicate_pairs_follow_the_hardware() {
    // (bop_ab, bop, !pa, !pb, !ps, expected); AND OR XOR as 0-2, every predicate PT.
    let vectors: [(u32, u32, u32, u32, u32, u32); 11] = [
        (0, 0, 0, 0, 0, 1),
        (0, 0, 0, 0, 1, 0),
        (0, 0, 1, 0, 0, 2),
        (1, 0, 0, 1, 0, 1),
        (2, 0, 0, 1, 0, 1),
        (2, 0, 1, 1, 0, 2),
        (2, 0, 0, 0, 0, 2),
        (2, 1, 0, 0, 0, 3),
        (2, 2, 0, 0, 0, 1),
        (2, 2, 0, 0, 1, 2),
        (2, 2, 1, 0, 0, 2),
    ];
    for (i, (bop_ab, bop, not_a, not_b, not_s, expected)) in vectors.into_iter().enumerate() {
        check(&format!("psetp_{i}"), &psetp_program(bop_ab, bop, not_a, not_b, not_s), bank2(&[0]), each(expected));
    }
}

/// psetp.cpp "PSETP Simple": the second destination is (!pa bop_ab pb) bop ps, pa alone negated (yuzu's PSETP
/// computes the same): `PSETP.AND.AND P0, P1, PT, !PT, PT` leaves P1 false (R2 = 0, not the 2 a negated first
/// result would give) and `PSETP.OR.AND P0, P1, !PT, PT, PT` sets it (R2 = 3, not 1).
#[test]
fn predicate_pairs_negate_only_a() {
    for (i, (bop_ab, bop, not_a, not_b, not_s, expected)) in
        [(0, 0, 0, 1, 0, 0), (1, 0, 1, 0, 0, 3)].into_iter().enumerate()
    {
        check(&format!("psetp_a_{i}"), &psetp_program(bop_ab, bop, not_a, not_b, not_s), bank2(&[0]), each(expected));
    }
}

/// psetp.cpp's program: P0 true, P1 false; `PSETP.bop_ab.bop P0, P1, [!]PT, [!]PT, [!]PT`; R2 = P0 + 2 P1.
fn psetp_program(bop_ab: u32, bop: u32, not_a: u32, not_b: u32, not_s: u32) -> String {
    format!(
        "ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7\n\
         PSETP pd=0 pq=1 pa=7 pa_not={not_a} pb=7 pb_not={not_b} ps=7 ps_not={not_s} bop_ab={bop_ab} bop={bop}\n\
         MOV32I rd=2 imm32=0 lanes=15\nIADD.imm rd=2 ra=2 imm20=1 pg=0\nIADD.imm rd=2 ra=2 imm20=2 pg=1"
    )
}

/// p2r.cpp (every test case) and r2p.cpp "R2P Simple": P0-P6 or the flags into a byte of a register under a mask,
/// and back; P2R keeps a's other bits.
#[test]
fn predicates_to_registers_and_back() {
    let prelude = format!("IADD.imm rd=255 ra=255 imm20=1 cc=1\n{}", reset_predicates());
    let eq = |p: u32| format!("ISETP.reg pd={p} pq=7 ra=255 rb=255 cmp=2 signed=1 bop=0 ps=7\n");
    let vectors: Vec<(String, u32)> = vec![
        (format!("{}P2R.imm rd=2 ra=255 imm20=0xff", eq(0)), 1),
        (format!("IADD.reg rd=255 ra=255 rb=255 cc=1\n{FLAGS_TO_R2}"), 1),
        (format!("IADD.imm rd=255 ra=255 imm20=0xfffff cc=1\n{FLAGS_TO_R2}"), 2),
        (format!("MOV32I rd=2 imm32=0xffffffff lanes=15\nIADD.imm rd=255 ra=2 imm20=2 cc=1\n{FLAGS_TO_R2}"), 4),
        (format!("MOV32I rd=2 imm32=0x7fffffff lanes=15\nIADD.imm rd=255 ra=2 imm20=1 cc=1\n{FLAGS_TO_R2}"), 10),
        (format!("{}{}P2R.imm rd=2 ra=255 imm20=2", eq(0), eq(1)), 2),
        (format!("{}MOV32I rd=2 imm32=0xccccccf0 lanes=15\nP2R.imm rd=2 ra=2 imm20=0xff", eq(1)), 0xcccc_cc02),
        (format!("{}MOV32I rd=2 imm32=0xccccccf0 lanes=15\nP2R.imm rd=2 ra=2 imm20=0x3", eq(1)), 0xcccc_ccf2),
        (format!("{}{}P2R.imm rd=2 ra=255 imm20=2 byte=1", eq(0), eq(1)), 0x0200),
        (format!("{}{}P2R.imm rd=2 ra=255 imm20=2 byte=2", eq(0), eq(1)), 0x02_0000),
        (format!("{}{}P2R.imm rd=2 ra=255 imm20=2 byte=3", eq(0), eq(1)), 0x0200_0000),
        (format!("{}MOV32I rd=2 imm32=0xcccccccc lanes=15\nP2R.imm rd=2 ra=2 imm20=0xf byte=2", eq(2)), 0xccc4_cccc),
    ];
    for (i, (code, expected)) in vectors.iter().enumerate() {
        check(&format!("p2r_{i}"), &format!("{prelude}{code}"), bank2(&[0]), each(*expected));
    }
    // R2P: every predicate false, the flags clear; R2 = c[2][0] = value, R3 = c[2][4] = mask; then P2R.B0 R2, PR,
    // RZ, 0xff and P2R.B1 R2, CC, R2, 0xff.
    let prelude = "ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7 ps_not=1\n\
                   ISETP.reg pd=2 pq=3 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7 ps_not=1\n\
                   ISETP.reg pd=4 pq=5 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7 ps_not=1\n\
                   ISETP.reg pd=6 pq=7 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7 ps_not=1\n\
                   IADD.imm rd=255 ra=255 imm20=1 cc=1\n\
                   MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15\nMOV.cbuf rd=3 cb_bank=2 cb_offset=1 lanes=15\n";
    let tail = "P2R.imm rd=2 ra=255 imm20=0xff\nP2R.imm rd=2 ra=2 imm20=0xff cc_mode=1 byte=1";
    let cc = "R2P.reg ra=2 rb=3 cc_mode=1";
    let pr = "R2P.reg ra=2 rb=3";
    let vectors: &[(u32, u32, &str, u32)] = &[
        (0xf, 0xff, cc, 0xf00),
        (0xff, 0xff, cc, 0xf00),
        (0x1, 0xff, cc, 0x100),
        (0x2, 0xff, cc, 0x200),
        (0x4, 0xff, cc, 0x400),
        (0x8, 0xff, cc, 0x800),
        (0x800, 0xff, "R2P.reg ra=2 rb=3 cc_mode=1 byte=1", 0x800),
        (0x8_0000, 0xff, "R2P.reg ra=2 rb=3 cc_mode=1 byte=2", 0x800),
        (0x800_0000, 0xff, "R2P.reg ra=2 rb=3 cc_mode=1 byte=3", 0x800),
        (0xf, 0x4, cc, 0x400),
        (0xf, 0xc, cc, 0xc00),
        (0xd, 0x1, cc, 0x100),
        (0xf, 0xff, pr, 0xf),
        (0xff, 0xff, pr, 0x7f),
        (0x3f, 0x3f, pr, 0x3f),
        (0xff, 0x3f, pr, 0x3f),
        (1, 0x3f, pr, 0x1),
        (0xff, 0x3f, "R2P.imm ra=2 imm20=0x3f", 0x3f),
        (0xff, 0x3f, "R2P.cbuf ra=2 cb_bank=2 cb_offset=1", 0x3f),
    ];
    for (i, &(value, mask, instruction, expected)) in vectors.iter().enumerate() {
        let body = format!("{prelude}{instruction}\n{tail}");
        check(&format!("r2p_{i}"), &body, bank2(&[value, mask]), each(expected));
    }
}

/// iadd.cpp "IADD Simple", "IADD Negate", "IADD Negate undefined", "IADD CC", "IADD X", "IADD32I" (but
/// IADD32I.PO, which sm5x.decode cannot encode: bit 55 is fixed at 0) and iscadd.cpp "ISCADD Simple", "ISCADD
/// Negate", "ISCADD CC" and "ISCADD PO" (the vectors `both_negations_add_one` lacks).
#[test]
fn adds_and_scaled_adds_follow_the_hardware() {
    let vectors: Vec<(u32, String, u32)> = vec![
        (16, "IADD.cbuf rd=2 ra=255 cb_bank=2 cb_offset=0".into(), 16),
        (7, "MOV32I rd=2 imm32=7 lanes=15\nIADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0".into(), 14),
        (7, "MOV32I rd=2 imm32=7 lanes=15\nIADD.imm rd=2 ra=2 imm20=7".into(), 14),
        (7, "MOV32I rd=2 imm32=7 lanes=15\nIADD.reg rd=2 ra=2 rb=2".into(), 14),
        (16, "IADD.cbuf rd=2 ra=255 cb_bank=2 cb_offset=0 neg_b=1".into(), (-16i32) as u32),
        (16, "MOV32I rd=2 imm32=0xfffffffb lanes=15\nIADD.reg rd=2 ra=2 rb=255 neg_a=1".into(), 5),
        (16, "MOV32I rd=2 imm32=5 lanes=15\nIADD.reg rd=2 ra=2 rb=255 neg_a=1".into(), (-5i32) as u32),
        (0x8000_0000, "IADD.cbuf rd=2 ra=255 cb_bank=2 cb_offset=0 neg_b=1".into(), 0x8000_0000),
        (1, format!("IADD.reg rd=255 ra=255 rb=255 cc=1\n{FLAGS_TO_R2}"), 1),
        (1, format!("IADD.imm rd=255 ra=255 imm20=0xfffff cc=1\n{FLAGS_TO_R2}"), 2),
        (1, format!("IADD.imm rd=2 ra=255 imm20=0xfffff\nIADD.imm rd=255 ra=2 imm20=2 cc=1\n{FLAGS_TO_R2}"), 4),
        (1, format!("MOV32I rd=2 imm32=0x7fffffff lanes=15\nIADD.imm rd=255 ra=2 imm20=2 cc=1\n{FLAGS_TO_R2}"), 10),
        (1, format!("MOV32I rd=2 imm32=1 lanes=15\nIADD.imm rd=255 ra=2 imm20=0xfffff cc=1\n{FLAGS_TO_R2}"), 5),
        (
            1,
            "MOV32I rd=2 imm32=0xffffffff lanes=15\nIADD.imm rd=255 ra=2 imm20=1 cc=1\nIADD.reg rd=2 ra=255 rb=255 x=1"
                .into(),
            1,
        ),
        (
            1,
            "MOV32I rd=2 imm32=0xffffffff lanes=15\nIADD.imm rd=255 ra=2 imm20=1 cc=1\nIADD.imm rd=2 ra=255 imm20=4 x=1"
                .into(),
            5,
        ),
        (1, format!("IADD32I rd=255 ra=255 imm32=0 cc=1\n{FLAGS_TO_R2}"), 1),
        (
            1,
            "MOV32I rd=2 imm32=0xffffffff lanes=15\nIADD32I rd=255 ra=2 imm32=3 cc=1\nIADD32I rd=2 ra=255 imm32=0 x=1"
                .into(),
            1,
        ),
        (1, "MOV32I rd=2 imm32=1 lanes=15\nIADD32I rd=2 ra=2 imm32=0 neg_a=1".into(), 0xffff_ffff),
    ];
    for (i, (value, code, expected)) in vectors.iter().enumerate() {
        check(&format!("iadd_{i}"), code, bank2(&[*value]), each(*expected));
    }
    // ISCADD: R2 = 2, R3 = 3, R4 = 4.
    let inputs = set(&[(2, 2), (3, 3), (4, 4)]);
    let vectors: Vec<(u32, String, u32)> = vec![
        (16, "ISCADD.cbuf rd=2 ra=255 cb_bank=2 cb_offset=0 shift=2".into(), 16),
        (7, "MOV32I rd=2 imm32=7 lanes=15\nISCADD.cbuf rd=2 ra=2 cb_bank=2 cb_offset=0 shift=2".into(), 35),
        (7, "MOV32I rd=2 imm32=7 lanes=15\nISCADD.imm rd=2 ra=3 imm20=7 shift=3".into(), 31),
        (7, "MOV32I rd=2 imm32=7 lanes=15\nISCADD.reg rd=2 ra=4 rb=2 shift=4".into(), 71),
        (1, "MOV32I rd=2 imm32=0xffffffff lanes=15\nISCADD.imm rd=2 ra=2 imm20=0 shift=1 cc=1".into(), 0xffff_fffe),
        (16, "ISCADD.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 shift=2 neg_a=1".into(), 4),
        (16, "ISCADD.cbuf rd=2 ra=3 cb_bank=2 cb_offset=0 shift=2 neg_b=1".into(), 0xffff_fffc),
        (1, format!("ISCADD.reg rd=255 ra=255 rb=255 shift=0 cc=1\n{FLAGS_TO_R2}"), 1),
        (1, format!("ISCADD.reg rd=255 ra=255 rb=255 shift=16 cc=1\n{FLAGS_TO_R2}"), 1),
        (1, format!("ISCADD.imm rd=255 ra=255 imm20=0xfffff shift=0 cc=1\n{FLAGS_TO_R2}"), 2),
        (
            1,
            format!(
                "ISCADD.imm rd=2 ra=255 imm20=0xfffff shift=0\n\
                 ISCADD.imm rd=255 ra=2 imm20=2 shift=0 cc=1\n{FLAGS_TO_R2}"
            ),
            4,
        ),
        (
            1,
            format!(
                "MOV32I rd=2 imm32=0x7fffffff lanes=15\nISCADD.imm rd=255 ra=2 imm20=2 shift=0 cc=1\n{FLAGS_TO_R2}"
            ),
            10,
        ),
        (
            1,
            format!(
                "MOV32I rd=2 imm32=0xffffffff lanes=15\nISCADD.imm rd=255 ra=2 imm20=0 shift=1 cc=1\n{FLAGS_TO_R2}"
            ),
            2,
        ),
        (
            1,
            format!(
                "MOV32I rd=2 imm32=0xffffffff lanes=15\nISCADD.imm rd=255 ra=2 imm20=2 shift=1 cc=1\n{FLAGS_TO_R2}"
            ),
            5,
        ),
        (1, format!("MOV32I rd=2 imm32=1 lanes=15\nISCADD.imm rd=255 ra=2 imm20=0 shift=31 cc=1\n{FLAGS_TO_R2}"), 2),
        (1, format!("MOV32I rd=2 imm32=4 lanes=15\nISCADD.imm rd=255 ra=2 imm20=0 shift=31 cc=1\n{FLAGS_TO_R2}"), 1),
        (
            1,
            format!(
                "MOV32I rd=2 imm32=0xffffffff lanes=15\n\
                 ISCADD.imm rd=255 ra=2 imm20=2 shift=0 neg_a=1 neg_b=1 cc=1\n{FLAGS_TO_R2}"
            ),
            4,
        ),
        (
            1,
            format!(
                "MOV32I rd=2 imm32=0x7fffffff lanes=15\n\
                 ISCADD.imm rd=255 ra=2 imm20=2 shift=0 neg_a=1 neg_b=1 cc=1\n{FLAGS_TO_R2}"
            ),
            10,
        ),
        (
            1,
            "MOV32I rd=2 imm32=1 lanes=15\nMOV32I rd=3 imm32=0xffffffff lanes=15\n\
             ISCADD.reg rd=2 ra=2 rb=3 shift=0 neg_a=1 neg_b=1 cc=1"
                .into(),
            1,
        ),
    ];
    for (i, (value, code, expected)) in vectors.iter().enumerate() {
        check(&format!("iscadd_{i}"), &format!("{inputs}{code}"), bank2(&[*value]), each(*expected));
    }
}

/// csetp.cpp "CSETP Simple" and "CSETP Variant": CSETP's tests of the flags are CSET's (the same masks), into a
/// predicate; the second destination takes the negated test. Thread t sets the flags t & 15 (R2P CC).
#[test]
fn condition_code_predicates_follow_the_hardware() {
    let mut body = String::from(FLAGS_BY_THREAD);
    for (bit, (test, _)) in CC_TESTS.iter().enumerate() {
        body += &format!(
            "CSETP pd=1 pq=7 cc_test={test} bop=0 ps=7\nLOP32I rd=2 ra=2 imm32={:#x} op=1 pg=1\n",
            1u32 << bit
        );
    }
    check("csetp_truth_table", &body, Vec::new(), cc_tests_holding);
    // CSETP.F.AND PT, P0, CC, PT; .F.XOR; .T.OR; .T.OR with !PT; then R2 = P0 ? -1 : 0.
    for (i, (test, bop, ps_not, expected)) in
        [(0, 0, 0, u32::MAX), (0, 2, 0, 0), (15, 1, 0, u32::MAX), (15, 1, 1, 0)].into_iter().enumerate()
    {
        let body = format!(
            "CSETP pd=7 pq=0 cc_test={test} bop={bop} ps=7 ps_not={ps_not}\nMOV32I rd=2 imm32=0 lanes=15\n\
             MOV32I rd=2 imm32=0xffffffff lanes=15 pg=0"
        );
        check(&format!("csetp_variant_{i}"), &body, bank2(&[0]), each(expected));
    }
}

/// vmad.cpp "VMAD Simple": parts (bytes, halves, the word, signed or not) multiplied and c added, in the register
/// and immediate forms. nxgpucatch's destination R0 is R2 here (R0 holds the thread's index).
#[test]
fn video_multiply_adds_follow_the_hardware() {
    let inputs = set(&[(2, 0x1234_5688), (3, 0x8a24_c993), (4, 0x9123_064a)]);
    // (signed_a, sel_a, signed_b, sel_b, expected) of VMAD R2, R2.part, R3.part, R4; selectors: bytes 0-3, halves
    // 4-5, the word 6.
    let vectors: &[(u32, u32, u32, u32, u32)] = &[
        (0, 0, 0, 0, 0x9123_5462),
        (1, 0, 0, 0, 0x9122_c162),
        (1, 0, 1, 0, 0x9123_3962),
        (0, 0, 1, 0, 0x9122_cc62),
        (0, 1, 0, 0, 0x9123_37ac),
        (1, 2, 0, 0, 0x9123_2426),
        (1, 0, 1, 3, 0x9123_3d9a),
        (0, 3, 1, 2, 0x9123_08d2),
        (0, 4, 0, 4, 0xd545_7e62),
        (1, 4, 0, 4, 0xd545_7e62),
        (1, 4, 1, 4, 0x7ebd_7e62),
        (0, 4, 1, 4, 0x7ebd_7e62),
        (0, 5, 0, 4, 0x9f78_4e26),
        (1, 4, 0, 5, 0xbfd4_816a),
        (1, 5, 1, 5, 0x88c1_9d9a),
        (0, 4, 1, 5, 0x694c_816a),
        (0, 6, 0, 6, 0x9841_7e62),
        (1, 6, 1, 6, 0x9841_7e62),
    ];
    for (i, &(signed_a, sel_a, signed_b, sel_b, expected)) in vectors.iter().enumerate() {
        let body = format!(
            "{inputs}VMAD.reg rd=2 ra=2 sel_a={sel_a} signed_a={signed_a} rb=3 sel_b={sel_b} signed_b={signed_b} rc=4"
        );
        check(&format!("vmad_{i}"), &body, Vec::new(), each(expected));
    }
    // VMAD.U8.U16 R0, R2, 0xaaaa, RZ; .U8.U16 0xbbbb, R4; .U32.U16 0xaded, R4; .U32.U16 0xbded; .U32.S16 0xbded.
    for (i, &(sel_a, imm, signed_b, rc, expected)) in [
        (0u32, 0xaaaau32, 0u32, 255u32, 0x005a_aa50u32),
        (0, 0xbbbb, 0, 4, 0x9186_c1a2),
        (6, 0xaded, 0, 4, 0xca11_0a32),
        (6, 0xbded, 0, 4, 0x0f79_8a32),
        (6, 0xbded, 1, 4, 0xb8f1_8a32),
    ]
    .iter()
    .enumerate()
    {
        let body = format!("{inputs}VMAD.imm rd=2 ra=2 sel_a={sel_a} imm16={imm:#x} signed_b={signed_b} rc={rc}");
        check(&format!("vmad_imm_{i}"), &body, Vec::new(), each(expected));
    }
}

/// vmnmx.cpp "VMNMX Simple", "VMNMX Selector Src B", "VMNMX Selector Src A" (all but one vector, in
/// `video_minimum_then_secondary_minimum_wraps`): the minimum (.MN) or maximum (.MX) of the parts, then MIN or MAX
/// with c read as the destination's type (.UD, .SD).
#[test]
fn video_min_max_follow_the_hardware() {
    let inputs = set(&[(2, 0x1234_5688), (3, 0x8a24_c993), (4, 0x9123_064a)]);
    // (sd, signed_a, sel_a, signed_b, sel_b, mx, mode: 5 MIN 6 MAX, expected)
    type Vector = (u32, u32, u32, u32, u32, u32, u32, u32);
    let vectors: &[Vector] = &[
        (0, 0, 6, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 6, 0, 5, 0x1234_5688),
        (0, 0, 6, 0, 6, 1, 5, 0x8a24_c993),
        (0, 1, 6, 0, 6, 0, 6, 0x9123_064a),
        (0, 1, 6, 1, 6, 0, 5, 0x8a24_c993),
        (0, 0, 6, 1, 6, 1, 5, 0x1234_5688),
        (1, 0, 6, 0, 6, 0, 6, 0x1234_5688),
        (1, 0, 6, 0, 6, 0, 5, 0x9123_064a),
        (1, 1, 6, 0, 6, 0, 6, 0x1234_5688),
        (1, 1, 6, 1, 6, 0, 5, 0x8a24_c993),
        (1, 0, 6, 1, 6, 1, 5, 0x9123_064a),
        // Selector Src B: .UD.U32.U16/.U8 .MN.MAX and .MN.MIN R0, R2, R3.H0/H1/B0-B3, R4
        (0, 0, 6, 0, 4, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 5, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 0, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 1, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 2, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 3, 0, 6, 0x9123_064a),
        (0, 0, 6, 0, 4, 0, 5, 0xc993),
        (0, 0, 6, 0, 5, 0, 5, 0x8a24),
        (0, 0, 6, 0, 0, 0, 5, 0x93),
        (0, 0, 6, 0, 1, 0, 5, 0xc9),
        (0, 0, 6, 0, 2, 0, 5, 0x24),
        (0, 0, 6, 0, 3, 0, 5, 0x8a),
        // Selector Src A
        (0, 0, 4, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 5, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 0, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 1, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 2, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 3, 0, 6, 0, 6, 0x9123_064a),
        (0, 0, 4, 0, 6, 0, 5, 0x5688),
        (0, 0, 5, 0, 6, 0, 5, 0x1234),
        (0, 0, 0, 0, 6, 0, 5, 0x88),
        (0, 0, 1, 0, 6, 0, 5, 0x56),
        (0, 0, 2, 0, 6, 0, 5, 0x34),
        (0, 0, 3, 0, 6, 0, 5, 0x12),
    ];
    for (i, &(sd, signed_a, sel_a, signed_b, sel_b, mx, mode, expected)) in vectors.iter().enumerate() {
        let body = format!(
            "{inputs}VMNMX.reg rd=2 ra=2 sel_a={sel_a} signed_a={signed_a} rb=3 sel_b={sel_b} signed_b={signed_b} \
             rc=4 sd={sd} mx={mx} mode={mode}"
        );
        check(&format!("vmnmx_{i}"), &body, Vec::new(), each(expected));
    }
    // VMNMX.UD.U32.U16.MN.MIN R0, R2, 0xdead, R4 and VMNMX.SD.U32.S16.MN.MIN R0, R2, 0xdead, RZ
    let body = format!("{inputs}VMNMX.imm rd=2 ra=2 sel_a=6 imm16=0xdead rc=4 mode=5");
    check("vmnmx_imm_ud", &body, Vec::new(), each(0xdead));
    let body = format!("{inputs}VMNMX.imm rd=2 ra=2 sel_a=6 imm16=0xdead signed_b=1 rc=255 sd=1 mode=5");
    check("vmnmx_imm_sd", &body, Vec::new(), each(0xffff_dead));
}

/// vmnmx.cpp "VMNMX Simple",
/// `VMNMX.SD.U32.U32.MX.MIN R0, R2, R3, R4`: the Tegra X1 gives 0x8a24c993, the maximum of the unsigned words taken
/// as the signed destination's 32 bits (-1977300589) before the secondary minimum with c.
#[test]
fn video_minimum_then_secondary_minimum_wraps() {
    let body = format!(
        "{}VMNMX.reg rd=2 ra=2 sel_a=6 rb=3 sel_b=6 rc=4 sd=1 mx=1 mode=5",
        set(&[(2, 0x1234_5688), (3, 0x8a24_c993), (4, 0x9123_064a)])
    );
    check("vmnmx_sd_mx_min", &body, Vec::new(), each(0x8a24_c993));
}

/// vsetp.cpp "VSETP Simple": `VSETP.cmp.U8.U32.AND P3, PT, R2.Bn, Rb, PT`, then SEL R2, RZ, -1, !P3.
#[test]
fn video_predicates_follow_the_hardware() {
    let inputs = set(&[(2, 0x1234_5688), (3, 0x8a24_c993), (4, 0x9123_064a)]);
    // (R3 if set, byte of R2, b register, cmp: F LT EQ LE GT NE GE T as 0-7, expected)
    for (i, &(r3, sel_a, rb, cmp, expected)) in [
        (None, 2u32, 255u32, 7u32, u32::MAX),
        (None, 2, 255, 0, 0),
        (None, 2, 255, 3, 0),
        (None, 2, 255, 4, u32::MAX),
        (None, 2, 255, 5, u32::MAX),
        (Some(0x34u32), 2, 3, 2, u32::MAX),
        (Some(0x56), 1, 3, 2, u32::MAX),
        (Some(0x88), 0, 3, 2, u32::MAX),
        (Some(0x12), 3, 3, 2, u32::MAX),
    ]
    .iter()
    .enumerate()
    {
        let r3 = r3.map_or(String::new(), |value| set(&[(3, value)]));
        let body = format!(
            "{inputs}{r3}VSETP.reg pd=3 pq=7 ra=2 sel_a={sel_a} rb={rb} sel_b=6 cmp={cmp} bop=0 ps=7\n\
             SEL.imm rd=2 ra=255 imm20=0xfffff ps=3 ps_not=1"
        );
        check(&format!("vsetp_{i}"), &body, Vec::new(), each(expected));
    }
}

/// shfl.cpp (every test case): SHFL.IDX/UP/DOWN/BFLY P1, R2, R2, b, c with R2 = the thread's index, then SEL R2, R2,
/// 0xdead, P1 (0xdead where the source lane is out of its segment's range). The listed words are a warp's; the
/// second warp's lanes read its own indices (32 more).
#[test]
fn shuffles_follow_the_hardware() {
    const D: u32 = 0xdead;
    let vectors: &[(&str, [u32; 32])] = &[
        ("SHFL.imm rd=2 ra=2 imm5=7 imm13=0x1f mode=0 pd=1", [7; 32]),
        (
            "SHFL.imm rd=2 ra=2 imm5=3 imm13=0x101f mode=0 pd=1",
            [
                3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19,
                19, 19,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=3 imm13=0x810 mode=0 pd=1",
            [
                3, 3, 3, 3, 3, 3, 3, 3, 11, 11, 11, 11, 11, 11, 11, 11, 3, 3, 3, 3, 3, 3, 3, 3, 11, 11, 11, 11, 11, 11,
                11, 11,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0 mode=1 pd=1",
            [
                D, D, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                27, 28, 29,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x3 mode=1 pd=1",
            [
                D, D, D, D, D, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                27, 28, 29,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x1203 mode=1 pd=1",
            [
                D, D, D, D, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, D, D, D, D, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                28, 29,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x1f mode=2 pd=1",
            [
                2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                30, 31, D, D,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x31f mode=2 pd=1",
            [
                2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                D, D, D, D,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x712 mode=2 pd=1",
            [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=1 imm13=0x1c03 mode=3 pd=1",
            [
                1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14, 17, 16, 19, 18, 21, 20, 23, 22, 25, 24, 27, 26,
                29, 28, 31, 30,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x1c03 mode=3 pd=1",
            [
                2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21, 26, 27, 24, 25,
                30, 31, 28, 29,
            ],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=5 imm13=0x1f03 mode=3 pd=1",
            [D, D, D, D, 1, 0, 3, 2, D, D, D, D, 9, 8, 11, 10, D, D, D, D, 17, 16, 19, 18, D, D, D, D, 25, 24, 27, 26],
        ),
        (
            "SHFL.imm rd=2 ra=2 imm5=2 imm13=0x1c05 mode=3 pd=1",
            [D, D, 0, 1, D, D, 4, 5, D, D, 8, 9, D, D, 12, 13, D, D, 16, 17, D, D, 20, 21, D, D, 24, 25, D, D, 28, 29],
        ),
        // SHFL RZ: the destination RZ, R2 keeps the thread's index.
        (
            "SHFL.imm rd=255 ra=2 imm5=5 imm13=0x1f03 mode=3 pd=1",
            [
                D, D, D, D, 4, 5, 6, 7, D, D, D, D, 12, 13, 14, 15, D, D, D, D, 20, 21, 22, 23, D, D, D, D, 28, 29, 30,
                31,
            ],
        ),
        // SHFL Register
        ("MOV32I rd=3 imm32=7 lanes=15\nSHFL.imm_c rd=2 ra=2 rb=3 imm13=0x1f mode=0 pd=1", [7; 32]),
        ("MOV32I rd=3 imm32=0x1f lanes=15\nSHFL.imm_b rd=2 ra=2 imm5=7 rc=3 mode=0 pd=1", [7; 32]),
    ];
    for (i, (instruction, lanes)) in vectors.iter().enumerate() {
        let body = format!("S2R rd=2 sr=0x21\n{instruction}\nSEL.imm rd=2 ra=2 imm20=0xdead ps=1");
        let lanes = *lanes;
        let expected = move |t: u32| {
            let word = lanes[(t % 32) as usize];
            if word == D { D } else { word + (t / 32) * 32 }
        };
        check(&format!("shfl_{i}"), &body, Vec::new(), expected);
    }
}

/// vote.cpp (every test case): VOTE.ALL/ANY/EQ's ballot of the active threads and their vote, with threads
/// diverged (SSY/SYNC) or exited. The hardware ran one warp and stored thread 0's word (or, with threads exited,
/// every live thread's at one address); here both warps store, exited threads leave 0.
#[test]
fn votes_follow_the_hardware() {
    const ALL: u32 = u32::MAX;
    let lt = |n: u32| format!("ISETP.imm pd=0 pq=7 ra=2 imm20={n} cmp=1 signed=1 bop=0 ps=7\n");
    let ge = |n: u32| format!("ISETP.imm pd=0 pq=7 ra=2 imm20={n} cmp=6 signed=1 bop=0 ps=7\n");
    let le = |n: u32| format!("ISETP.imm pd=0 pq=7 ra=2 imm20={n} cmp=3 signed=1 bop=0 ps=7\n");
    let sel = "SEL.imm rd=2 ra=255 imm20=1 ps=0 ps_not=1";
    let first_24 = |t: u32| u32::from(t < 24);
    type Vector = (String, fn(u32) -> u32);
    let vectors: &[Vector] = &[
        // Ballot
        ("VOTE rd=2 pd=7 ps=7 mode=0".into(), |_| ALL),
        ("VOTE rd=2 pd=7 ps=7 mode=2".into(), |_| ALL),
        ("VOTE rd=2 pd=7 ps=7 mode=1".into(), |_| ALL),
        ("VOTE rd=2 pd=7 ps=7 ps_not=1 mode=0".into(), |_| 0),
        ("VOTE rd=2 pd=7 ps=7 ps_not=1 mode=2".into(), |_| 0),
        ("VOTE rd=2 pd=7 ps=7 ps_not=1 mode=1".into(), |_| 0),
        (
            format!(
                "SSY offset={{merge}}\n{}MOV.reg rd=2 rb=255 lanes=15\nSYNC pg=0 pg_not=1\n\
                 VOTE rd=2 pd=7 ps=7 mode=0\nSYNC\nmerge:",
                lt(16)
            ),
            |t| if t < 16 { 0xffff } else { 0 },
        ),
        (format!("{}EXIT pg=0 pg_not=1\nS2R rd=3 sr=0x21\nVOTE rd=2 pd=7 ps=7 mode=0", ge(16)), |t| match t {
            0..16 => 0,
            16..32 => 0xffff_0000,
            _ => ALL,
        }),
        (format!("{}VOTE rd=2 pd=7 ps=0 mode=0", ge(16)), |t| if t < 32 { 0xffff_0000 } else { ALL }),
        (format!("{}VOTE rd=2 pd=7 ps=0 mode=0", ge(24)), |t| if t < 32 { 0xff00_0000 } else { ALL }),
        (format!("{}VOTE rd=2 pd=7 ps=0 mode=0", lt(24)), |t| if t < 32 { 0x00ff_ffff } else { 0 }),
        // Predicate
        (format!("VOTE rd=255 pd=0 ps=7 mode=0\n{sel}"), |_| 1),
        (format!("{}EXIT pg=0\nVOTE rd=255 pd=0 ps=7 mode=0\n{sel}", ge(24)), first_24),
        (format!("{}EXIT pg=0\nVOTE rd=255 pd=0 ps=7 mode=1\n{sel}", ge(24)), first_24),
        (format!("{}EXIT pg=0\nVOTE rd=255 pd=0 ps=7 mode=2\n{sel}", ge(24)), first_24),
        (format!("{}EXIT pg=0\n{}VOTE rd=255 pd=0 ps=0 mode=2\n{sel}", ge(24), le(8)), |_| 0),
        (format!("{}EXIT pg=0\n{}VOTE rd=255 pd=0 ps=0 mode=1\n{sel}", ge(24), le(8)), first_24),
        (format!("{}EXIT pg=0\n{}VOTE rd=255 pd=0 ps=0 mode=0\n{sel}", ge(24), le(24)), first_24),
        (format!("{}EXIT pg=0\nVOTE rd=255 pd=0 ps=7 ps_not=1 mode=2\n{sel}", ge(24)), first_24),
    ];
    for (i, (code, expected)) in vectors.iter().enumerate() {
        check(&format!("vote_{i}"), &format!("S2R rd=2 sr=0x21\n{code}"), Vec::new(), *expected);
    }
    // "VOTE Ballot catching 64 thread GPUs": only threads 32-47 vote; their ballot is 0xffff.
    let body = "S2R rd=3 sr=0x21\nISETP.imm pd=0 pq=7 ra=3 imm20=32 cmp=1 signed=1 bop=0 ps=7\nEXIT pg=0\n\
                ISETP.imm pd=0 pq=7 ra=3 imm20=48 cmp=6 signed=1 bop=0 ps=7\nEXIT pg=0\nVOTE rd=2 pd=7 ps=7 mode=0";
    check("vote_64", body, Vec::new(), |t| if (32..48).contains(&t) { 0xffff } else { 0 });
}

/// i2i.cpp "I2I Simple", "I2I Saturate Signed", "I2I Saturate Unsigned", "I2I Saturate Mixed" and the "I2I CC"
/// vectors `narrow_integer_conversions_zero_extend_unless_saturated` lacks (register forms only: sm5x.decode has no
/// I2I.cbuf, which EvalUnary also ran). One program a conversion, thread t converting VALUES[t % 16]; the expected
/// words are i2i.cpp's Cast, SignedSaturate and UnsignedSaturate: below 32 bits a plain conversion is zero-extended,
/// a saturated one to a signed width sign-extended.
#[test]
fn integer_conversions_follow_the_hardware() {
    const VALUES: [i32; 16] = [
        -5,
        16,
        -140,
        170,
        -280,
        260,
        -5001,
        5013,
        -32820,
        33767,
        -67535,
        69535,
        2_000_000_000,
        -2_000_000_000,
        2_147_483_647,
        -2_147_483_648,
    ];
    /// The source's low `8 << size` bits, sign- or zero-extended.
    fn source(value: i32, size: u32, signed: bool) -> i64 {
        let bits = 8 << size;
        let shift = 64 - bits;
        if signed { (i64::from(value) << shift) >> shift } else { ((i64::from(value) as u64) << shift >> shift) as i64 }
    }
    let words: Vec<u32> = VALUES.iter().map(|&v| v as u32).collect();
    let (load, bank) = inputs_by_thread(&words);
    // (dst size, dst signed, src size, src signed, sat): sizes 0 8-bit, 1 16-bit, 2 32-bit.
    let mut forms = Vec::new();
    for dst in 0..3u32 {
        for src in 0..3u32 {
            // I2I.S{dst}.S{src} and .S{dst}.U{src}: the destination's sign "only matters when saturating".
            forms.push((dst, true, src, true, false));
            forms.push((dst, true, src, false, false));
            // Saturate Signed (S.S) and Unsigned (U.U)
            forms.push((dst, true, src, true, true));
            forms.push((dst, false, src, false, true));
        }
    }
    // Saturate Mixed: S8.U8, U16.S8, S32.U8, U8.S16, S16.U16, U32.S16, S8.U32, U16.S32, S32.U32.
    for (dst, dst_signed, src, src_signed) in [
        (0, true, 0, false),
        (1, false, 0, true),
        (2, true, 0, false),
        (0, false, 1, true),
        (1, true, 1, false),
        (2, false, 1, true),
        (0, true, 2, false),
        (1, false, 2, true),
        (2, true, 2, false),
    ] {
        forms.push((dst, dst_signed, src, src_signed, true));
    }
    for (dst, dst_signed, src, src_signed, sat) in forms {
        let body = format!(
            "{load}I2I.reg rd=2 rb=2 dst={dst} src={src} dst_signed={} src_signed={} sat={}",
            u32::from(dst_signed),
            u32::from(src_signed),
            u32::from(sat)
        );
        let expected = move |t: u32| {
            let value = source(VALUES[(t % 16) as usize], src, src_signed);
            let bits = 8 << dst;
            if !sat {
                // Cast<Dest, Src>: the destination's bits, zero-extended to the word.
                (value as u64 & ((1u64 << bits) - 1)) as u32
            } else if dst_signed {
                value.clamp(-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) as u32
            } else {
                value.clamp(0, (1i64 << bits) - 1) as u32
            }
        };
        let name = format!("i2i_{dst}{}_{src}{}_{}", u8::from(dst_signed), u8::from(src_signed), u8::from(sat));
        check(&name, &body, bank.clone(), expected);
    }
    // I2I Simple's parts and modifiers: (input, fields, expected) of I2I.S32.<src> R2, R2<part>.
    for (i, &(input, fields, expected)) in [
        (0xffu32, "src=0 src_signed=1", 0xffff_ffffu32),
        (0xff7f, "src=0 src_signed=1 byte_b=0", 0x7f),
        (0xff7f, "src=0 src_signed=1 byte_b=1", 0xffff_ffff),
        (0xff7f, "src=0 src_signed=1 byte_b=2", 0),
        (0xffcc_ff7f, "src=0 src_signed=1 byte_b=3", 0xffff_ffff),
        (0xffcc_ff7f, "src=0 src_signed=0 byte_b=3", 0xff),
        (0xffcc_ff7f, "src=1 src_signed=1 byte_b=2", 0xffff_ffcc),
        (0xffcc_ff7f, "src=1 src_signed=0 byte_b=2", 0xffcc),
        (0x7fcc_ff7f, "src=1 src_signed=1 byte_b=2", 0x7fcc),
        (0xff, "src=0 src_signed=1 abs_b=1", 1),
        (0xff, "src=0 src_signed=1 neg_b=1", 1),
        (0xff, "src=0 src_signed=1 abs_b=1 neg_b=1", 0xffff_ffff),
    ]
    .iter()
    .enumerate()
    {
        let body = format!("{}I2I.reg rd=2 rb=2 dst=2 dst_signed=1 {fields}", set(&[(2, input)]));
        check(&format!("i2i_simple_{i}"), &body, Vec::new(), each(expected));
    }
    // I2I CC: (input, dst, dst signed, src signed, sat, flags) of I2I.<dst>.S32/U32 RZ.CC, R2; P2R R2, CC, RZ, 0xff.
    for (i, &(input, dst, dst_signed, src_signed, sat, flags)) in [
        (0xffff_0000u32, 1u32, 1u32, 1u32, 0u32, 1u32),
        (0, 2, 1, 1, 0, 1),
        (0xffff_0000, 0, 0, 1, 0, 1),
        (0xffff_0000, 1, 0, 1, 0, 1),
        (0, 2, 0, 1, 0, 1),
        (0xffff_fff7, 0, 0, 1, 1, 1),
        (0xffff_fff7, 1, 0, 1, 1, 1),
        (0xffff_fff7, 2, 0, 1, 1, 1),
        (0xffff_ffff, 2, 0, 1, 0, 2),
        (0xffff_ffff, 2, 0, 0, 0, 2),
    ]
    .iter()
    .enumerate()
    {
        let body = format!(
            "{}I2I.reg rd=255 rb=2 dst={dst} src=2 dst_signed={dst_signed} src_signed={src_signed} sat={sat} cc=1\n\
             {FLAGS_TO_R2}",
            set(&[(2, input)])
        );
        check(&format!("i2i_cc_{i}"), &body, Vec::new(), each(flags));
    }
}

/// imnmx.cpp "IMNMX Simple" (`minimum_and_maximum_follow_the_hardware` has "IMNMX Signed"): R2 = 50 against
/// R5 = 25 or R4 = 75 (or c[2][0] = 75, or the immediate 75); the minimum where the predicate holds (PT, P0
/// true), else the maximum (!PT, P1 false).
#[test]
fn integer_minimum_and_maximum_by_predicate() {
    let prelude = format!(
        "ISETP.reg pd=0 pq=1 ra=255 rb=255 cmp=7 signed=1 bop=0 ps=7\n{}",
        set(&[(2, 50), (3, (-50i32) as u32), (4, 75), (5, 25)])
    );
    check("imnmx_r5", &format!("{prelude}IMNMX.reg rd=2 ra=2 rb=5 ps=7 signed=1"), bank2(&[75]), each(25));
    // (ps, ps_not, expected) for PT, !PT, P1, P0
    for (ps, ps_not, expected) in [(7, 0, 50), (7, 1, 75), (1, 0, 75), (0, 0, 50)] {
        for (form, b) in [("reg", "rb=4"), ("cbuf", "cb_bank=2 cb_offset=0"), ("imm", "imm20=75")] {
            let body = format!("{prelude}IMNMX.{form} rd=2 ra=2 {b} ps={ps} ps_not={ps_not} signed=1");
            check(&format!("imnmx_{form}_{ps}_{ps_not}"), &body, bank2(&[75]), each(expected));
        }
    }
}

/// mov.cpp "MOV Simple", but for `MOV R2, 34` and `MOV R2, -34` (MOV with a 20-bit immediate, which
/// sm5x.decode has no line for).
#[test]
fn moves_follow_the_hardware() {
    for (i, (body, expected)) in [
        ("MOV.cbuf rd=2 cb_bank=2 cb_offset=0 lanes=15", 4),
        ("MOV.reg rd=2 rb=255 lanes=15", 0),
        ("MOV.cbuf rd=3 cb_bank=2 cb_offset=0 lanes=15\nMOV.reg rd=2 rb=3 lanes=15", 4),
        ("MOV32I rd=2 imm32=87 lanes=15", 87),
    ]
    .into_iter()
    .enumerate()
    {
        check(&format!("mov_{i}"), body, bank2(&[4]), each(expected));
    }
}
