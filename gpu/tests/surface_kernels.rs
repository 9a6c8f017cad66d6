//! Hand-assembled surface kernels of instructions no PTX makes ptxas emit, each run per ISA on the interpreter and
//! translated on the Vulkan device.
//!
//! SUATOM, the surface atomics that return the texel's value before them (NVIDIA's compilers emit them for
//! `imageAtomic*`): 64 threads on one 1D surface of R32 texels. The atomics' results depend on the order the threads
//! reach the texel, which the two need not share, so each side is checked against what any order gives: the values
//! an ADD returns are the texel's successive values, exactly one compare-and-swap wins, the values exchanges return
//! chain from the first to the last, and an access past the edge under .IGN reads zero and changes nothing.
//!
//! SULD.P and SUST.P, the formatted accesses (typed image loads and stores): on a surface of four 32-bit unsigned
//! channels, whose components are its words, the loaded registers must be the components the mask names, in order,
//! and a store of R and B (mask 0x5) must leave G and A as they were.

mod common;

use tandem_gpu::sass::Isa;
use tandem_gpu::sass::assemble;
use tandem_gpu::sass::corpus::{BUFFER_BYTES, Placement, Run, dispatch, interpret, parse_manifest};
use tandem_gpu::sass::cubin::KernelImage;

const THREADS: u32 = 64;
/// The surface's texels: 0-3 taken by ADD, 4 by CAS, 5 by EXCH, 6 by MIN.S32, 7 untouched.
const TEXELS: usize = 8;

/// Thread t: ADD 1 into texel t & 3 (old value to R2); CAS of texel 4 from its initial value (`{initial}`) to
/// t + 1000 (R4); EXCH of t + 2000 into texel 5 (R5); SUATOM.ADD at x = 100 under .IGN (R8); MIN.S32 of t - 32
/// into texel 6 (R9). R2, R4, R5, R8 and R9 go to out + 32t. The surface is parameter 1 (c[0][0x148], slot 0x52).
const SM5X_KERNEL: &str = "
S2R rd=0 sr=0x21
LOP32I rd=1 ra=0 imm32=3 op=0
MOV32I rd=3 imm32=1 lanes=15
SUATOM rd=2 ra=1 rb=3 op=0 surf=0x52 clamp=1
MOV32I rd=10 imm32=4 lanes=15
MOV32I rd=12 imm32={initial} lanes=15
IADD32I rd=13 ra=0 imm32=1000
SUATOM.CAS rd=4 ra=10 rb=12 surf=0x52 clamp=1
MOV32I rd=11 imm32=5 lanes=15
IADD32I rd=14 ra=0 imm32=2000
SUATOM rd=5 ra=11 rb=14 op=8 surf=0x52 clamp=2
MOV32I rd=15 imm32=100 lanes=15
SUATOM rd=8 ra=15 rb=3 op=0 surf=0x52 clamp=0
MOV32I rd=16 imm32=6 lanes=15
IADD32I rd=17 ra=0 imm32=0xffffffe0
SUATOM rd=9 ra=16 rb=17 op=1 ty=1 surf=0x52 clamp=1
SHL.imm rd=6 ra=0 imm20=5
IADD.cbuf rd=6 ra=6 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=7 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=2 ra=6 e=1 size=4 offset=0
STG rs=4 ra=6 e=1 size=4 offset=4
STG rs=5 ra=6 e=1 size=4 offset=8
STG rs=8 ra=6 e=1 size=4 offset=12
STG rs=9 ra=6 e=1 size=4 offset=16
EXIT
";

/// `SM5X_KERNEL` for SM86: parameters from c[0][0x160], the surface's handle the word at c[0][0x168].
const SM86_KERNEL: &str = "
S2R rd=0 sr=0x21
LOP3.imm rd=1 ra=0 imm32=3 lut=0xc0 pd=7
MOV.imm rd=3 imm32=1 lanes=15
SUATOM rd=2 ra=1 rb=3 op=0 surf=0x5a clamp=1 pd=7 cache=1
MOV.imm rd=10 imm32=4 lanes=15
MOV.imm rd=12 imm32={initial} lanes=15
IADD3.imm rd=13 ra=0 imm32=1000 pd=7 pq=7 px=7 px_not=1
SUATOM.CAS rd=4 ra=10 rb=12 surf=0x5a clamp=1 pd=7 cache=1
MOV.imm rd=11 imm32=5 lanes=15
IADD3.imm rd=14 ra=0 imm32=2000 pd=7 pq=7 px=7 px_not=1
SUATOM rd=5 ra=11 rb=14 op=8 surf=0x5a clamp=2 pd=7 cache=1
MOV.imm rd=15 imm32=100 lanes=15
SUATOM rd=8 ra=15 rb=3 op=0 surf=0x5a clamp=0 pd=7 cache=1
MOV.imm rd=16 imm32=6 lanes=15
IADD3.imm rd=17 ra=0 imm32=0xffffffe0 pd=7 pq=7 px=7 px_not=1
SUATOM rd=9 ra=16 rb=17 op=1 ty=2 surf=0x5a clamp=1 pd=7 cache=1
MOV.imm rd=18 imm32=32 lanes=15
IMAD.WIDE.cbuf_c rd=20 ra=0 rc=18 cb_offset=0x58 pd=7
STG ra=20 rb=2 offset=0 e=1 size=4 ur=4 no_ur=1 cache=1
STG ra=20 rb=4 offset=4 e=1 size=4 ur=4 no_ur=1 cache=1
STG ra=20 rb=5 offset=8 e=1 size=4 ur=4 no_ur=1 cache=1
STG ra=20 rb=8 offset=12 e=1 size=4 ur=4 no_ur=1 cache=1
STG ra=20 rb=9 offset=16 e=1 size=4 ur=4 no_ur=1 cache=1
EXIT
";

/// The kernel `source` (assembly of `isa`) makes.
fn kernel_of(isa: Isa, name: &str, source: &str) -> KernelImage {
    let code = match isa {
        Isa::Sm5x => assemble::sm5x(source.trim()),
        Isa::Sm86 => assemble::sm86(source.trim()),
    }
    .unwrap();
    KernelImage { name: name.into(), isa, code, constants: Vec::new(), shared_bytes: 0, origin: 0 }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|word| u32::from_le_bytes(word.try_into().unwrap())).collect()
}

/// Checks one side's results: each thread's record in `out`, and the surface's texels after the launch.
fn check(side: &str, initial: &[u32], records: &[u32], after: &[u32]) {
    let thread = |t: usize| &records[8 * t..8 * t + 5];
    // ADD: the values each texel's 16 threads saw are its successive values, in some order.
    for texel in 0..4 {
        let mut seen: Vec<u32> = (texel..THREADS as usize).step_by(4).map(|t| thread(t)[0]).collect();
        seen.sort();
        let successive: Vec<u32> = (0..16).map(|k| initial[texel].wrapping_add(k)).collect();
        assert_eq!(seen, successive, "{side}: ADD into texel {texel}");
        assert_eq!(after[texel], initial[texel].wrapping_add(16), "{side}: texel {texel} after 16 ADDs");
    }
    // CAS: one thread finds the initial value and stores its own; every other finds the winner's.
    let winners: Vec<usize> = (0..THREADS as usize).filter(|&t| thread(t)[1] == initial[4]).collect();
    let [winner] = winners[..] else { panic!("{side}: CAS won by threads {winners:?}") };
    let stored = winner as u32 + 1000;
    assert_eq!(after[4], stored, "{side}: texel 4 after the CAS");
    for t in (0..THREADS as usize).filter(|&t| t != winner) {
        assert_eq!(thread(t)[1], stored, "{side}: thread {t}'s CAS after thread {winner}'s");
    }
    // EXCH: the values returned and the one left are the initial value and every thread's, each once.
    let mut chain: Vec<u32> = (0..THREADS as usize).map(|t| thread(t)[2]).chain([after[5]]).collect();
    chain.sort();
    let mut expected: Vec<u32> = (2000..2000 + THREADS).chain([initial[5]]).collect();
    expected.sort();
    assert_eq!(chain, expected, "{side}: EXCH");
    // Past the edge under .IGN: zero, nothing written.
    assert!((0..THREADS as usize).all(|t| thread(t)[3] == 0), "{side}: .IGN past the edge");
    // MIN.S32: the texel ends at the least value; each thread saw one no less.
    let least = (initial[6] as i32).min(-32);
    assert_eq!(after[6] as i32, least, "{side}: texel 6 after MIN.S32");
    assert!((0..THREADS as usize).all(|t| thread(t)[4] as i32 >= least), "{side}: MIN.S32 results");
    assert_eq!(after[7], initial[7], "{side}: texel 7 is untouched");
}

#[test]
fn surface_atomics_return_the_texel_before_them() {
    let manifest = format!(
        "surface_atomics atomics params=out,surf=0 block={THREADS},1,1 grid=1,1,1 init=zero stride=32 \
         surfaces=1d:{TEXELS}x1x1:1:r32 approx= varies="
    );
    let run: Run = parse_manifest(&manifest).unwrap().remove(0);
    let initial = words(&run.surfaces[0].texels(0));
    for (isa, kernel) in [(Isa::Sm5x, SM5X_KERNEL), (Isa::Sm86, SM86_KERNEL)] {
        let source = kernel.replace("{initial}", &format!("{:#x}", initial[4]));
        let kernel = kernel_of(isa, &format!("atomics_{isa:?}"), &source);
        let input = vec![0u8; BUFFER_BYTES];
        let records = 8 * THREADS as usize;
        let surface = 3 * BUFFER_BYTES / 4;
        let interpreted = words(&interpret(&run, &kernel, &input).unwrap());
        let side = format!("{isa:?} interpreter");
        check(&side, &initial, &interpreted[..records], &interpreted[surface..surface + TEXELS]);
        let translated = dispatch(common::device(), &run, &kernel, &input, Placement::Device).unwrap();
        assert!(!translated.faulted);
        common::spirv_val(&kernel.name, &translated.spirv).unwrap();
        let translated = words(&translated.buffers);
        let side = format!("{isa:?} translation");
        check(&side, &initial, &translated[..records], &translated[surface..surface + TEXELS]);
    }
}

/// Thread t of four: SULD.P of texel (t, 0) with masks 0xf (R4-R7), G and A (0xa; SM86, which names R, RG and RGBA
/// only: RG) into R8, R9 and R alone (0x1) into R10, stored at out + 32t; then SUST.P of t + 100 and t + 200 into
/// the texel's R and B (mask 0x5). The surface is parameter 1 (SM5x: slot 0x52; SM86: c[0][0x168], word 0x5a).
const SM5X_FORMATTED: &str = "
S2R rd=0 sr=0x21
MOV32I rd=1 imm32=0 lanes=15
SULD rd=4 ra=0 size=0xf target=3 surf=0x52 clamp=1 d=0
SULD rd=8 ra=0 size=0xa target=3 surf=0x52 clamp=1 d=0
SULD rd=10 ra=0 size=0x1 target=3 surf=0x52 clamp=1 d=0
SHL.imm rd=12 ra=0 imm20=5
IADD.cbuf rd=12 ra=12 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=13 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=4 ra=12 e=1 size=6 offset=0
STG rs=8 ra=12 e=1 size=5 offset=16
STG rs=10 ra=12 e=1 size=4 offset=24
IADD32I rd=14 ra=0 imm32=100
IADD32I rd=15 ra=0 imm32=200
SUST rs=14 ra=0 size=0x5 target=3 surf=0x52 clamp=1 d=0
EXIT
";

const SM86_FORMATTED: &str = "
S2R rd=0 sr=0x21
MOV.imm rd=1 imm32=0 lanes=15
SULD.P rd=4 ra=0 size=0xf target=3 surf=0x5a clamp=1 pd=7 cache=1
SULD.P rd=8 ra=0 size=0x3 target=3 surf=0x5a clamp=1 pd=7 cache=1
SULD.P rd=10 ra=0 size=0x1 target=3 surf=0x5a clamp=1 pd=7 cache=1
MOV.imm rd=18 imm32=32 lanes=15
IMAD.WIDE.cbuf_c rd=20 ra=0 rc=18 cb_offset=0x58 pd=7
STG ra=20 rb=4 offset=0 e=1 size=6 ur=4 no_ur=1 cache=1
STG ra=20 rb=8 offset=16 e=1 size=5 ur=4 no_ur=1 cache=1
STG ra=20 rb=10 offset=24 e=1 size=4 ur=4 no_ur=1 cache=1
IADD3.imm rd=14 ra=0 imm32=100 pd=7 pq=7 px=7 px_not=1
IADD3.imm rd=15 ra=0 imm32=200 pd=7 pq=7 px=7 px_not=1
SUST.P ra=0 rb=14 size=0x5 target=3 surf=0x5a clamp=1 cache=1
EXIT
";

#[test]
fn formatted_surface_accesses_move_the_masks_components() {
    let manifest = "surface_formatted formatted params=out,surf=0 block=4,1,1 grid=1,1,1 init=zero stride=32 \
                    surfaces=2d:4x1x1:1:rgba32 approx= varies=";
    let run: Run = parse_manifest(manifest).unwrap().remove(0);
    let initial = words(&run.surfaces[0].texels(0));
    for (isa, kernel, second_mask) in [(Isa::Sm5x, SM5X_FORMATTED, [1, 3]), (Isa::Sm86, SM86_FORMATTED, [0, 1])] {
        let kernel = kernel_of(isa, &format!("formatted_{isa:?}"), kernel);
        let input = vec![0u8; BUFFER_BYTES];
        // The word where the surface's texels start, after the three buffers.
        let surface = 3 * BUFFER_BYTES / 4;
        let translated = dispatch(common::device(), &run, &kernel, &input, Placement::Device).unwrap();
        assert!(!translated.faulted);
        common::spirv_val(&kernel.name, &translated.spirv).unwrap();
        let interpreted = interpret(&run, &kernel, &input).unwrap();
        for (side, bytes) in [("interpreter", interpreted), ("translation", translated.buffers)] {
            let all = words(&bytes);
            let after = &all[surface..surface + 16];
            for t in 0..4 {
                let (texel, record) = (&initial[4 * t..4 * t + 4], &all[8 * t..8 * t + 7]);
                let side = format!("{isa:?} {side}, thread {t}");
                assert_eq!(record[..4], *texel, "{side}: all four components");
                assert_eq!(record[4..6], [texel[second_mask[0]], texel[second_mask[1]]], "{side}: the second mask's");
                assert_eq!(record[6], texel[0], "{side}: R alone");
                let stored = [t as u32 + 100, texel[1], t as u32 + 200, texel[3]];
                assert_eq!(after[4 * t..4 * t + 4], stored, "{side}: R and B stored, G and A kept");
            }
        }
    }
}
