//! Random cases from the decode table: instruction words of one encoding and register states biased toward the
//! values that find bugs (pointers into the layout, zero, all ones, sign boundaries, small numbers).

use crate::layout::Layout;
use rand::Rng;
use tandem_reference::decode::Encoding;
use tandem_reference::state::CpuState;

/// A word of `encoding`: fixed and should-be bits from the table, fields random. Immediate fields are biased
/// toward small magnitudes half of the time, so that offsets land near their base.
pub fn random_word(encoding: &Encoding, rng: &mut impl Rng) -> u32 {
    let mut word = encoding.word_from(rng.r#gen());
    for field in encoding.fields {
        if !field.name.starts_with("imm") || rng.gen_bool(0.5) {
            continue;
        }
        let mask = if field.width >= 32 { u32::MAX } else { (1u32 << field.width) - 1 };
        let small = rng.gen_range(0..16u32);
        let value = if rng.gen_bool(0.5) { small } else { mask.wrapping_sub(small) } & mask;
        word = (word & !(mask << field.lsb)) | value << field.lsb;
    }
    word
}

/// A register value: a pointer into the data of `layout`, a boundary value, a small number or anything.
pub fn random_value(layout: &Layout, rng: &mut impl Rng) -> u64 {
    match rng.gen_range(0..10) {
        0..=3 => {
            let pointer = rng.gen_range(layout.data_start..layout.data_end);
            if rng.gen_bool(0.5) { pointer & !7 } else { pointer }
        }
        4 => {
            const BOUNDARIES: [u64; 8] =
                [0, u64::MAX, 1 << 63, (1 << 63) - 1, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 1];
            BOUNDARIES[rng.gen_range(0..BOUNDARIES.len())]
        }
        5..=6 => rng.gen_range(0..256),
        7 => (rng.gen_range(0..256u64)).wrapping_neg(),
        _ => rng.r#gen(),
    }
}

/// FPCR.AHP, DN, FZ, RMode, FZ16.
const FPCR_MODE_BITS: u32 = 0x07c8_0000;
/// FPSR.QC, IDC, IXC, UFC, OFC, DZC, IOC.
const FPSR_FLAG_BITS: u32 = 0x0800_009f;

/// A thread state at the code address of `layout`, with SP a 16-aligned pointer into its data.
pub fn random_state(layout: &Layout, rng: &mut impl Rng) -> CpuState {
    let mut state = CpuState::default();
    for x in state.x.iter_mut() {
        *x = random_value(layout, rng);
    }
    for v in state.v.iter_mut() {
        *v = u128::from(random_value(layout, rng)) | u128::from(random_value(layout, rng)) << 64;
    }
    state.sp = rng.gen_range(layout.data_start..layout.data_end) & !15;
    state.pc = layout.code;
    state.nzcv = rng.gen_range(0..16u32) << 28;
    // Half the cases in the default FP mode, half in a random one (rounding, FZ, FZ16, DN, AHP); random
    // cumulative FPSR flags, which no instruction may clear.
    state.fpcr = if rng.gen_bool(0.5) { 0 } else { rng.r#gen::<u32>() & FPCR_MODE_BITS };
    state.fpsr = rng.r#gen::<u32>() & FPSR_FLAG_BITS;
    state.tpidr_el0 = rng.r#gen();
    state.tpidrro_el0 = rng.r#gen();
    state
}
