//! Edge cases of the dispatcher and the region builder, each checked against the reference interpreter run on
//! the same state and memory.

use tandem_fast::FastEngine;
use tandem_reference::engine::{Engine, GuestClock};
use tandem_reference::memory::{GuestMemory, PAGE_SIZE, Perm};
use tandem_reference::{CpuState, Interpreter};

/// Runs both engines from `pc` with `budget` and asserts the same result and state.
fn assert_same(memory: &GuestMemory, pc: u64, budget: u64) {
    let start = CpuState { pc, ..CpuState::default() };
    let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
    let reference = Interpreter::default().run(&mut reference_cpu, memory, budget, GuestClock::default());
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let fast = fast_engine.run(&mut fast_cpu, memory, budget, GuestClock::default());
    assert_eq!(fast, reference, "pc {pc:#x}, budget {budget}");
    assert_eq!(fast_cpu, reference_cpu, "pc {pc:#x}, budget {budget}");
    assert_eq!(fast_engine.stats().rejected, 0, "a block the compiler rejected: pc {pc:#x}");
}

fn code_memory(pages: u64) -> GuestMemory {
    let mut memory = GuestMemory::new().unwrap();
    memory.map(0x10000, pages * PAGE_SIZE, Perm::RX).unwrap();
    memory
}

/// Puts `word` then SVC #0 at 0x10000, dropping what the engine compiled there.
fn place_instruction(memory: &GuestMemory, fast_engine: &mut FastEngine, word: u32) {
    let code: Vec<u8> = [word, 0xd400_0001].iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    fast_engine.invalidate(0x10000, PAGE_SIZE);
}

/// Runs the instruction `place_instruction` put at 0x10000 from `start` on both paths (a budget of 2: it and the
/// SVC) and asserts the same result and state, from a block the compiler took.
fn assert_instruction_matches(memory: &GuestMemory, fast_engine: &mut FastEngine, start: CpuState, what: &str) {
    let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
    let reference = Interpreter::default().run(&mut reference_cpu, memory, 2, GuestClock::default());
    let fast = fast_engine.run(&mut fast_cpu, memory, 2, GuestClock::default());
    assert_eq!(fast, reference, "{what}");
    assert_eq!(fast_cpu, reference_cpu, "{what}");
    assert_eq!(fast_engine.stats().rejected, 0, "the compiler rejected {what}");
}

#[test]
fn budgets_past_bit_63_count_exactly() {
    let memory = code_memory(1);
    // add x0, x0, #1; add x0, x0, #1; svc #0
    let code: Vec<u8> = [0x9100_0400u32, 0x9100_0400, 0xd400_0001].iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    for budget in [u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) + 1, (1 << 63) - 1, 3, 2, 1] {
        assert_same(&memory, 0x10000, budget);
    }
}

#[test]
fn a_misaligned_pc_is_left_to_the_reference() {
    let memory = code_memory(2);
    // add x0, x0, #1 everywhere: a word fetched at a misaligned PC straddles two of them, and the page end.
    let code: Vec<u8> =
        std::iter::repeat_n(0x9100_0400u32, (2 * PAGE_SIZE / 4) as usize).flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    for pc in [0x10ffe, 0x10ffd, 0x10002] {
        assert_same(&memory, pc, 5);
    }
}

/// Loops inside one region (`lift::region`): nested loops with labels at conditional branches' targets, merge
/// points that carry NZCV (`b.ne` after a label reads the `tst` before it), a store and a load, a SIMD&FP
/// instruction that the reference runs in place and one that sets NZCV, a branch into the middle of a run
/// already lifted, and a loop that enters at its end. For every budget up to the end and past it, and for
/// regions with room for everything or for a few instructions only, the fast path ends where the reference
/// does, with the same registers and memory.
#[test]
fn graph_regions_keep_budgets_and_state_exact() {
    const LOOPS: [u32; 39] = [
        0xd2a00045, // mov x5, #0x20000
        0xd2800000, // mov x0, #0
        0xd28000e1, // mov x1, #7
        0x1e6e1001, // fmov d1, #1.0
        0xd28000a2, // outer: mov x2, #5
        0x8b020000, // inner: add x0, x0, x2
        0x1e612800, // fadd d0, d0, d1
        0xf240001f, // tst x0, #1
        0x54000060, // b.eq even
        0xd27c0000, // eor x0, x0, #0x10
        0xf82278a0, // str x0, [x5, x2, lsl #3]
        0x54000041, // even: b.ne odd_seen
        0x91000863, // add x3, x3, #2
        0xf1000c5f, // odd_seen: cmp x2, #3
        0x54000041, // b.ne skip
        0x91000463, // add x3, x3, #1
        0xf1000442, // skip: subs x2, x2, #1
        0x54fffe81, // b.ne inner
        0xf94004a4, // ldr x4, [x5, #8]
        0x8b040000, // add x0, x0, x4
        0x1e612000, // fcmp d0, d1
        0x9a9fd7ea, // cset x10, gt
        0xeb01001f, // cmp x0, x1
        0x9a818006, // csel x6, x0, x1, hi
        0xf1000421, // subs x1, x1, #1
        0x54fffd6c, // b.gt outer
        0xd2800008, // mov x8, #0
        0x91000508, // again: add x8, x8, #1
        0x8b080129, // middle: add x9, x9, x8
        0xf103213f, // cmp x9, #200
        0x54ffffcb, // b.lt middle
        0xf1000d1f, // cmp x8, #3
        0x54ffff6b, // b.lt again
        0x14000002, // b over
        0x91000ce7, // back: add x7, x7, #3
        0x910004e7, // over: add x7, x7, #1
        0xf10050ff, // cmp x7, #20
        0x54ffffab, // b.lt back
        0xd4000001, // svc #0
    ];
    let whole = assert_same_for_every_budget("loops", &LOOPS, |memory| {
        memory.map(0x20000, PAGE_SIZE, Perm::RW).unwrap();
    });
    assert!(whole > 500, "the program runs its loops ({whole} instructions)");
}

/// Calls and returns inside one region (`Lifter::predicted_returns`): a leaf function called from a loop and from
/// a function that saves X30 on the stack and reloads it, a function that returns to another call's return address
/// (the region compares the target with each), and one that returns where no call returns to (the region leaves
/// through the chain table). For every budget and region size, the fast path ends where the reference does.
#[test]
fn returns_inside_a_region_keep_budgets_and_state_exact() {
    const CALLS: [u32; 29] = [
        0xd2a00045, // mov x5, #0x20000
        0x912000bf, // add sp, x5, #0x800
        0xd2800000, // mov x0, #0
        0xd2800061, // mov x1, #3
        0x9400000e, // loop: bl f
        0x9400000f, // bl h
        0xf1000421, // subs x1, x1, #1
        0x54ffffa1, // b.ne loop
        0xd2800002, // mov x2, #0
        0x94000010, // bl g
        0x91019042, // add x2, x2, #100 (g returns past it)
        0x94000007, // bl f
        0x91000442, // after_f: add x2, x2, #1
        0x9400000e, // bl u
        0x910fa042, // add x2, x2, #1000 (u returns past it)
        0xf90000a0, // done: str x0, [x5]
        0xf90004a2, // str x2, [x5, #8]
        0xd4000001, // svc #0
        0x91000400, // f: add x0, x0, #1
        0xd65f03c0, // ret
        0xa9bf7bfd, // h: stp x29, x30, [sp, #-16]!
        0x97fffffd, // bl f
        0x8b000000, // add x0, x0, x0
        0xa8c17bfd, // ldp x29, x30, [sp], #16
        0xd65f03c0, // ret
        0x10fffe7e, // g: adr x30, after_f
        0xd65f03c0, // ret
        0x10fffe9e, // u: adr x30, done
        0xd65f03c0, // ret
    ];
    let whole = assert_same_for_every_budget("calls", &CALLS, |memory| {
        memory.map(0x20000, PAGE_SIZE, Perm::RW).unwrap();
    });
    assert_eq!(whole, 54, "the program runs its calls");
}

/// LD1R (`lift::load_store::load_replicate`) of every element size, 64 and 128 bits, with an immediate and a
/// register post-index and without, ending in one from an unmapped page (the fault and its state exact): for every
/// budget and region size, the fast path ends where the reference does.
#[test]
fn load_replicate_keeps_budgets_faults_and_state_exact() {
    const LOADS: [u32; 13] = [
        0xd2a00045, // mov x5, #0x20000
        0xd2824686, // mov x6, #0x1234
        0xf2aacf06, // movk x6, #0x5678, lsl #16
        0xf2d35786, // movk x6, #0x9abc, lsl #32
        0xf90000a6, // str x6, [x5]
        0xd2800067, // mov x7, #3
        0x4d40c8a0, // ld1r {v0.4s}, [x5]
        0x0ddfc0a1, // ld1r {v1.8b}, [x5], #1
        0x4dc7cca2, // ld1r {v2.2d}, [x5], x7
        0x0d40c4a3, // ld1r {v3.4h}, [x5]
        0xd2a00068, // mov x8, #0x30000 (unmapped)
        0x4d40c104, // ld1r {v4.16b}, [x8]
        0xd4000001, // svc #0
    ];
    let whole = assert_same_for_every_budget("ld1r", &LOADS, |memory| {
        memory.map(0x20000, PAGE_SIZE, Perm::RW).unwrap();
    });
    assert_eq!(whole, 11, "the program runs up to the faulting load");
}

/// Runs `code` (at 0x10000, with the data pages `data` maps) on the reference and on fast engines with regions
/// of every size, for every budget up to its end and well past it, and asserts the same result, registers and data
/// page at 0x20000. Returns how many instructions the whole program retires.
fn assert_same_for_every_budget(name: &str, code: &[u32], data: impl Fn(&mut GuestMemory)) -> u64 {
    let program = || {
        let mut memory = code_memory(1);
        let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
        memory.write_privileged(0x10000, &bytes).unwrap();
        data(&mut memory);
        memory
    };
    let run = |engine: &mut dyn Engine, budget: u64| {
        let memory = program();
        let mut cpu = CpuState { pc: 0x10000, ..CpuState::default() };
        let result = engine.run(&mut cpu, &memory, budget, GuestClock::default());
        let mut data = vec![0; PAGE_SIZE as usize];
        memory.read_privileged(0x20000, &mut data).unwrap();
        (result, cpu, data)
    };
    let whole = run(&mut Interpreter::default(), u64::MAX).0.retired;
    // Chained blocks with room for the whole program, and unchained ones with room for a few instructions. An
    // engine keeps what it compiled from one run to the next: every run's memory holds the same code.
    let engines = [
        ("chained", FastEngine::with_defaults().unwrap().compiling_at_first_use()),
        ("limit 9", FastEngine::with_block_limit(9).unwrap()),
        ("limit 2", FastEngine::with_block_limit(2).unwrap()),
    ];
    for (engine_name, mut fast_engine) in engines {
        // Past the end too, so that the last region runs compiled with room to spare (a fault there is the host's).
        for budget in (1..=whole + 1).chain([whole + 100, u64::MAX]) {
            let reference = run(&mut Interpreter::default(), budget);
            let fast = run(&mut fast_engine, budget);
            assert_eq!(fast.0, reference.0, "{name}, {engine_name}, budget {budget}");
            assert_eq!(fast.1, reference.1, "{name}, {engine_name}, budget {budget}");
            assert!(fast.2 == reference.2, "{name}, {engine_name}, budget {budget}: memory differs");
        }
    }
    whole
}

/// Guest accesses the host refuses in the guarded view (`tandem_fast::fault`) end where the reference's fault
/// does, with the same registers, NZCV (lazy from a CMP, or carried to a loop's label), budget and memory: a
/// store walking into a read-only page, a load walking into an execute-only one (alone, and with a vector register
/// counting in the loop, which a rerun from too early would count twice), a pair store and a 16-byte
/// store crossing into a read-only page (nothing of them may land), a SIMD pair load whose second half is
/// unreadable (neither register may change), an atomic and a store-exclusive whose read the host allows and
/// whose write it refuses, counters in memory (plain and atomic) that a rerun from too early would count twice,
/// and addresses past, across the end of, and far outside the address space.
#[test]
fn host_faults_leave_the_exact_state() {
    // 0x20000: read/write; 0x21000: read-only, with data; 0x22000: execute-only.
    let data = |memory: &mut GuestMemory| {
        memory.map(0x20000, 3 * PAGE_SIZE, Perm::RW).unwrap();
        let words: Vec<u8> = (0..PAGE_SIZE / 8).flat_map(|i| (i * 0x0101_0101 + 3).to_le_bytes()).collect();
        memory.write(0x21000, &words).unwrap();
        memory.protect(0x21000, PAGE_SIZE, Perm::READ).unwrap();
        memory.protect(0x22000, PAGE_SIZE, Perm::EXECUTE).unwrap();
    };
    let programs: [(&str, &[u32]); 13] = [
        (
            "store walk",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xd2800001, // mov x1, #0
                0x91000c21, // loop: add x1, x1, #3
                0xf114003f, // cmp x1, #0x500
                0xf8008401, // str x1, [x0], #8
                0x54ffffa1, // b.ne loop
                0xd4000001, // svc #0
            ],
        ),
        (
            "load walk",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820000, // movk x0, #0x1000
                0xd2800003, // mov x3, #0
                0xf8408402, // loop: ldr x2, [x0], #8
                0x8b020063, // add x3, x3, x2
                0xb1000464, // adds x4, x3, #1
                0x54ffffa1, // b.ne loop
                0xd4000001, // svc #0
            ],
        ),
        (
            "load walk with a vector accumulator",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820000, // movk x0, #0x1000
                0x4f00e421, // movi v1.16b, #1
                0xf8408402, // loop: ldr x2, [x0], #8
                0x4ee18400, // add v0.2d, v0.2d, v1.2d
                0xb5ffffc0, // cbnz x0, loop
                0xd4000001, // svc #0
            ],
        ),
        (
            "counter then load walk",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xd2a00044, // mov x4, #0x20000
                0xf2820004, // movk x4, #0x1000
                0xf9400002, // loop: ldr x2, [x0]
                0x91000442, // add x2, x2, #1
                0xf9000002, // str x2, [x0]
                0xf8408483, // ldr x3, [x4], #8
                0xb5ffff84, // cbnz x4, loop
                0xd4000001, // svc #0
            ],
        ),
        (
            "atomic counter then load walk",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xd2a00044, // mov x4, #0x20000
                0xf2820004, // movk x4, #0x1000
                0xd2800021, // mov x1, #1
                0xf8210002, // loop: ldadd x1, x2, [x0]
                0xf8408483, // ldr x3, [x4], #8
                0xb5ffffc4, // cbnz x4, loop
                0xd4000001, // svc #0
            ],
        ),
        (
            "load past the address space",
            &[
                0xd2800021, // mov x1, #1
                0xd3585c21, // lsl x1, x1, #40
                0xf9400425, // ldr x5, [x1, #8]
                0xd4000001, // svc #0
            ],
        ),
        (
            "load across the end of the address space",
            &[
                0xd2800022, // mov x2, #1
                0xd3596042, // lsl x2, x2, #39
                0xd1001042, // sub x2, x2, #4
                0xf9400045, // ldr x5, [x2]
                0xd4000001, // svc #0
            ],
        ),
        (
            "store to a non-canonical address",
            &[
                0xd2ffffe3, // mov x3, #0xffff000000000000
                0xf9000065, // str x5, [x3]
                0xd4000001, // svc #0
            ],
        ),
        (
            "pair store",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf281ff00, // movk x0, #0xff8
                0xd28000a1, // mov x1, #5
                0xd28000c2, // mov x2, #6
                0xeb02003f, // cmp x1, x2
                0xa9000801, // stp x1, x2, [x0]
                0xd4000001, // svc #0
            ],
        ),
        (
            "simd pair load",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf283fe00, // movk x0, #0x1ff0
                0x4f00e4e0, // movi v0.16b, #7
                0x4f00e521, // movi v1.16b, #9
                0xd1000409, // sub x9, x0, #1
                0xad400400, // ldp q0, q1, [x0]
                0xd4000001, // svc #0
            ],
        ),
        (
            "atomic",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820100, // movk x0, #0x1008
                0xd2800081, // mov x1, #4
                0xf1001025, // subs x5, x1, #4
                0xf8210002, // ldadd x1, x2, [x0]
                0xd4000001, // svc #0
            ],
        ),
        (
            "exclusive",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820200, // movk x0, #0x1010
                0xc85f7c02, // ldxr x2, [x0]
                0x91000442, // add x2, x2, #1
                0xc8037c02, // stxr w3, x2, [x0]
                0xd4000001, // svc #0
            ],
        ),
        (
            "q store",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf281ff00, // movk x0, #0xff8
                0x4f00e460, // movi v0.16b, #3
                0x91000807, // add x7, x0, #2
                0x3d800000, // str q0, [x0]
                0xd4000001, // svc #0
            ],
        ),
    ];
    for (name, code) in programs {
        assert_same_for_every_budget(name, code, data);
    }
}

/// The scalar FP instructions the fast path computes with host float operations where they give the Arm result
/// (`lift::fp_arith`: FADD, FSUB, FMUL, FDIV, FNMUL, FMADD, FMSUB, FNMADD, FNMSUB, FCMP, FCMPE, FMOV (immediate), FSQRT,
/// FCVT, FRINTN/P/M/Z, FMAX, FMIN, FMAXNM, FMINNM, FCSEL,
/// SCVTF, UCVTF, FCVTZS, FCVTZU to and from general-purpose registers and in SIMD&FP registers, single and
/// double precision; on vectors of them FADD, FSUB, FMUL, FDIV, FMLA, FMLS (by vector and by element), FCMEQ,
/// FCMGE, FCMGT (with a vector or zero), FCMLE, FCMLT (with zero), FABS, FNEG, FMAX, FMIN, FMAXNM, FMINNM, SCVTF,
/// UCVTF, FCVTZS, FCVTZU, FADDP (vector and scalar), FRECPS, FRSQRTS, FRECPE, FRSQRTE, FCVTN, FCVTL and their
/// "2" forms between half, single and double precision), against the reference on operands of every kind: random bits, normal numbers near one,
/// near the ends of the range (where results overflow, underflow or round to the smallest normal) and near the
/// integer formats' bounds, zeros, infinities, NaNs and subnormals, integers of every size, addends that cancel
/// the product; FPCR mostly in its default mode, and in the others (flush to zero, default NaN, directed
/// rounding); FPSR.IXC set or not. Results, NZCV, FPSR flags and all.
#[test]
fn fp_arithmetic_matches_the_reference() {
    let memory = code_memory(1);
    let mut random = 0x2545_f491_4f6c_dd1du64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for ftype in [0b00u32, 0b01] {
        let (exponent_bits, mantissa_bits) = if ftype == 0b01 { (11, 52) } else { (8, 23) };
        // An operand of each kind: a sign, then a biased exponent and a mantissa chosen by kind.
        let operand = |random: &mut u64, kind: u64| -> u64 {
            let bits = xorshift(random);
            let sign = bits >> 63;
            let mantissa = bits & ((1 << mantissa_bits) - 1);
            let max_exponent = (1u64 << exponent_bits) - 1;
            let exponent = match kind % 8 {
                0 => return bits & (u64::MAX >> (63 - exponent_bits - mantissa_bits)),
                1 => (max_exponent >> 1) + (bits >> 40) % 5 - 2,
                2 => 1 + (bits >> 40) % 3,
                3 => max_exponent - 1 - (bits >> 40) % 3,
                4 => return sign << (exponent_bits + mantissa_bits),
                5 => max_exponent,
                6 => 0,
                // From 2^-4 to 2^66: the integer formats' bounds, with few or many fraction bits.
                _ => (max_exponent >> 1) + (bits >> 40) % 71 - 4,
            };
            let mantissa = if bits >> 32 & 1 == 0 { mantissa } else { mantissa & !((1 << (bits >> 33) % 60) - 1) };
            (sign << exponent_bits | exponent) << mantissa_bits | mantissa & ((1 << mantissa_bits) - 1)
        };
        let integer = |random: &mut u64, kind: u64| -> u64 {
            let bits = xorshift(random);
            match kind % 4 {
                0 => bits,
                1 => (bits % 2001).wrapping_sub(1000),
                // Near the formats' precision (2^24, 2^53) and beyond, of either sign.
                2 => (1u64 << [24, 25, 53, 54, 31, 63][(bits % 6) as usize]) + (bits >> 8) % 5 - 2,
                _ => (bits >> 40 | 1) << (bits % 40),
            }
            .wrapping_mul(if bits >> 62 & 1 == 1 { u64::MAX } else { 1 })
        };
        let mut words = Vec::new();
        // FMUL/FDIV/FADD/FSUB/FNMUL V0, V1, V2.
        words.extend([0u32, 1, 2, 3, 8].map(|opcode| 0x1e20_0800 | ftype << 22 | 2 << 16 | opcode << 12 | 1 << 5));
        // FCMP/FCMPE V1, V2 and V1, #0.0.
        words.extend(
            [0, 0b10000, 0b01000, 0b11000].map(|opcode2| 0x1e20_2000 | ftype << 22 | 2 << 16 | 1 << 5 | opcode2),
        );
        // SCVTF/UCVTF V0, W1/X1 and FCVTZS/FCVTZU W0/X0, V1.
        for sf in [0u32, 1] {
            for (rmode, opcode) in [(0b00u32, 0b010u32), (0b00, 0b011), (0b11, 0b000), (0b11, 0b001)] {
                words.push(0x1e20_0000 | sf << 31 | ftype << 22 | rmode << 19 | opcode << 16 | 1 << 5);
            }
        }
        // FMADD/FMSUB/FNMADD/FNMSUB V0, V1, V2, V3.
        words.extend(
            (0..4u32).map(|o| 0x1f00_0000 | ftype << 22 | (o >> 1) << 21 | 2 << 16 | (o & 1) << 15 | 3 << 10 | 1 << 5),
        );
        // FSQRT, FCVT (to the other precision), FRINTN, FRINTP, FRINTM, FRINTZ V0, V1.
        let fcvt = if ftype == 0b01 { 0b000100 } else { 0b000101 };
        words.extend(
            [0b000011u32, fcvt, 0b001000, 0b001001, 0b001010, 0b001011]
                .map(|opcode| 0x1e20_4000 | ftype << 22 | opcode << 15 | 1 << 5),
        );
        // FMAX, FMIN, FMAXNM, FMINNM V0, V1, V2.
        words.extend((0b0100..=0b0111u32).map(|opcode| 0x1e20_0800 | ftype << 22 | 2 << 16 | opcode << 12 | 1 << 5));
        // FCSEL V0, V1, V2 on EQ, NE, HS, MI, VS, HI, GE, GT, AL.
        words.extend(
            [0u32, 1, 2, 4, 6, 8, 10, 12, 14].map(|cond| 0x1e20_0c00 | ftype << 22 | 2 << 16 | cond << 12 | 1 << 5),
        );
        // FMUL V0, V1, V2.S[i] / V2.D[i] and FMLA, FMLS V3, V1, V2.S[i] / V2.D[i] (scalar), at the first and last index.
        for (h, l) in if ftype == 0b01 { [(0u32, 0u32), (1, 0)] } else { [(0, 0), (1, 1)] } {
            let by_element = |opcode: u32, rd: u32| {
                0x5f00_0000 | (0b10 | ftype & 1) << 22 | l << 21 | 2 << 16 | opcode << 12 | h << 11 | 1 << 5 | rd
            };
            words.extend([by_element(0b1001, 0), by_element(0b0001, 3), by_element(0b0101, 3)]);
        }
        // FADDP V0, V1.2S / V1.2D (scalar).
        words.push(0x7e30_d820 | (ftype & 1) << 22);
        // FMOV V0, #imm (2.0, 1.0, -0.125, 31.0, 1.9375).
        words.extend([0x00u32, 0x70, 0xc0, 0x3f, 0x7f].map(|imm8| 0x1e20_1000 | ftype << 22 | imm8 << 13));
        // SCVTF/UCVTF V0, V4 and FCVTZS/FCVTZU V0, V1 (scalar, in SIMD&FP registers).
        let sz = ftype & 1;
        words.extend([0x5e21_d880u32, 0x7e21_d880, 0x5ea1_b820, 0x7ea1_b820].map(|base| base | sz << 22));
        // FCVTN(2), FCVTL(2) V0, V1: half and single precision (sz 0), single and double (sz 1).
        for q in 0..2u32 {
            words.extend([0x0e21_6820u32, 0x0e21_7820].map(|base| base | q << 30 | sz << 22));
        }
        // FADD, FSUB, FMUL, FDIV V0, V1, V2 and FMLA, FMLS V3, V1, V2 (vector: 2S, 4S, 2D).
        for q in if sz == 1 { vec![1u32] } else { vec![0, 1] } {
            let three_same = |u: u32, a: u32, opcode: u32, rd: u32| {
                0x0e20_0400 | q << 30 | u << 29 | (a << 1 | sz) << 22 | 2 << 16 | opcode << 11 | 1 << 5 | rd
            };
            words.extend([
                three_same(0, 0, 0b11010, 0),
                three_same(0, 1, 0b11010, 0),
                three_same(1, 0, 0b11011, 0),
                three_same(1, 0, 0b11111, 0),
                three_same(0, 0, 0b11001, 3),
                three_same(0, 1, 0b11001, 3),
                // FRECPS, FRSQRTS.
                three_same(0, 0, 0b11111, 0),
                three_same(0, 1, 0b11111, 0),
                // FCMEQ, FCMGE, FCMGT.
                three_same(0, 0, 0b11100, 0),
                three_same(1, 0, 0b11100, 0),
                three_same(1, 1, 0b11100, 0),
                // FADDP.
                three_same(1, 0, 0b11010, 0),
                // FMAXNM, FMINNM, FMAX, FMIN.
                three_same(0, 0, 0b11000, 0),
                three_same(0, 1, 0b11000, 0),
                three_same(0, 0, 0b11110, 0),
                three_same(0, 1, 0b11110, 0),
            ]);
            // FABS, FNEG V0, V1, FCMGT, FCMEQ, FCMLT, FCMGE, FCMLE V0, V1, #0.0 and FRECPE, FRSQRTE V0, V1.
            let two_reg_misc =
                |u: u32, opcode: u32| 0x0e20_0800 | q << 30 | u << 29 | (0b10 | sz) << 22 | opcode << 12 | 1 << 5;
            words.extend(
                [
                    (0, 0b01111),
                    (1, 0b01111),
                    (0, 0b01100),
                    (0, 0b01101),
                    (0, 0b01110),
                    (1, 0b01100),
                    (1, 0b01101),
                    (0, 0b11101),
                    (1, 0b11101),
                ]
                .map(|(u, opcode)| two_reg_misc(u, opcode)),
            );
            // SCVTF, UCVTF V0, V1 (the lanes as integers) and FCVTZS, FCVTZU V0, V1.
            let convert =
                |u: u32, size: u32, opcode: u32| 0x0e20_0800 | q << 30 | u << 29 | size << 22 | opcode << 12 | 1 << 5;
            words.extend([
                convert(0, sz, 0b11101),
                convert(1, sz, 0b11101),
                convert(0, 0b10 | sz, 0b11011),
                convert(1, 0b10 | sz, 0b11011),
            ]);
            // FMUL V0, V1, V2.S[i] / V2.D[i] and FMLA, FMLS V3, V1, V2.S[i] / V2.D[i], at the first and last index.
            for (h, l) in if sz == 1 { vec![(0u32, 0u32), (1, 0)] } else { vec![(0, 0), (1, 1)] } {
                let by_element = |opcode: u32, rd: u32| {
                    0x0f00_0000 | q << 30 | (0b10 | sz) << 22 | l << 21 | 2 << 16 | opcode << 12 | h << 11 | 1 << 5 | rd
                };
                words.extend([by_element(0b1001, 0), by_element(0b0001, 3), by_element(0b0101, 3)]);
            }
        }
        for word in words {
            place_instruction(&memory, &mut fast_engine, word);
            for case in 0..3000u64 {
                // Every lane of V1, V2 and V3 an operand (scalar instructions read the first).
                let (lanes, lane_bits) = if ftype == 0b01 { (2, 64) } else { (4, 32) };
                let (mut v1, mut v2, mut v3) = (0u128, 0u128, 0u128);
                for lane in 0..lanes {
                    let (a, b) = (operand(&mut random, case + lane), operand(&mut random, case / 8 + case * 5 + lane));
                    // An addend that cancels the product, exactly when the product is exact.
                    let c = if case % 7 == 6 {
                        if ftype == 0b01 {
                            (-(f64::from_bits(a) * f64::from_bits(b))).to_bits()
                        } else {
                            u64::from((-(f32::from_bits(a as u32) * f32::from_bits(b as u32))).to_bits())
                        }
                    } else {
                        operand(&mut random, case / 3 + lane)
                    };
                    let shift = lane * lane_bits;
                    (v1, v2, v3) =
                        (v1 | u128::from(a) << shift, v2 | u128::from(b) << shift, v3 | u128::from(c) << shift);
                }
                let fpcr = match case % 16 {
                    13 => 1 << 24,
                    14 => 1 << 25,
                    15 => (xorshift(&mut random) as u32 % 3 + 1) << 22,
                    _ => 0,
                };
                let fpsr = (xorshift(&mut random) & 0x9f) as u32;
                let nzcv = (xorshift(&mut random) as u32 & 0xf) << 28;
                let mut start = CpuState { pc: 0x10000, fpcr, fpsr, nzcv, ..CpuState::default() };
                start.v[1] = v1;
                // Equal operands in every lane now and then, for the compares.
                start.v[2] = if case % 5 == 4 { v1 } else { v2 };
                start.v[3] = v3;
                start.v[0] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
                start.x[0] = xorshift(&mut random);
                start.x[1] = integer(&mut random, case);
                start.v[4] = u128::from(integer(&mut random, case / 4));
                let what = format!(
                    "{word:#010x} on {v1:#x}, {:#x}, {v3:#x}, x1 {:#x}, v4 {:#x}, FPCR {fpcr:#x}, FPSR {fpsr:#x}",
                    start.v[2], start.x[1], start.v[4]
                );
                assert_instruction_matches(&memory, &mut fast_engine, start, &what);
            }
        }
    }
}

/// Every encoding of the Advanced SIMD structure loads and stores (LD1-LD4/ST1-ST4 multiple and single structure,
/// LD1R-LD4R; both widths, every element size, lane and register count, reserved ones included), without and with
/// post-index (by the transfer size and by a register), from registers that wrap past V31, on random registers and
/// memory, at addresses anywhere in two pages, across them, and running into the unmapped page after them: the
/// same state and memory as the reference's.
#[test]
fn structure_loads_and_stores_match_the_reference() {
    const DATA: u64 = 0x20000;
    let mut memory = code_memory(1);
    memory.map(DATA, 2 * PAGE_SIZE, Perm::RW).unwrap();
    let mut random = 0x853c_49e6_748f_ea9bu64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let mut interpreter = Interpreter::default();
    let mut words = Vec::new();
    for (post, rm) in [(0u32, 0u32), (1, 31), (1, 7)] {
        for q in 0..2u32 {
            for l in 0..2u32 {
                for size in 0..4u32 {
                    for opcode in [0b0000u32, 0b0010, 0b0100, 0b0110, 0b0111, 0b1000, 0b1010] {
                        words.push(0x0c00_0000 | q << 30 | post << 23 | l << 22 | rm << 16 | opcode << 12 | size << 10);
                    }
                    for (r, opcode, s) in
                        (0..2u32).flat_map(|r| (0..8u32).flat_map(move |opcode| (0..2u32).map(move |s| (r, opcode, s))))
                    {
                        words.push(
                            0x0d00_0000
                                | q << 30
                                | post << 23
                                | l << 22
                                | r << 21
                                | rm << 16
                                | opcode << 13
                                | s << 12
                                | size << 10,
                        );
                    }
                }
            }
        }
    }
    for (index, word) in words.into_iter().enumerate() {
        // Base X5; the first register V0, or V30 (so that 3 and 4 registers wrap past V31).
        let word = word | 5 << 5 | if index % 2 == 0 { 0 } else { 30 };
        place_instruction(&memory, &mut fast_engine, word);
        for case in 0..12u64 {
            let data: Vec<u8> = (0..2 * PAGE_SIZE / 8).flat_map(|_| xorshift(&mut random).to_le_bytes()).collect();
            memory.write_privileged(DATA, &data).unwrap();
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for register in 0..32 {
                start.v[register] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
            }
            // Anywhere in the two pages, across from the first into the second, or into the unmapped third.
            start.x[5] = match case % 4 {
                0 => DATA + PAGE_SIZE - 1 - xorshift(&mut random) % 40,
                1 => DATA + 2 * PAGE_SIZE - 1 - xorshift(&mut random) % 40,
                _ => DATA + xorshift(&mut random) % (2 * PAGE_SIZE - 64),
            };
            start.x[7] = xorshift(&mut random) % 256;
            let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
            let reference = interpreter.run(&mut reference_cpu, &memory, 2, GuestClock::default());
            let mut reference_data = vec![0; 2 * PAGE_SIZE as usize];
            memory.read_privileged(DATA, &mut reference_data).unwrap();
            memory.write_privileged(DATA, &data).unwrap();
            let fast = fast_engine.run(&mut fast_cpu, &memory, 2, GuestClock::default());
            let mut fast_data = vec![0; 2 * PAGE_SIZE as usize];
            memory.read_privileged(DATA, &mut fast_data).unwrap();
            let what = format!("{word:#010x} at {:#x}", reference_cpu.x[5]);
            assert_eq!(fast, reference, "{what}");
            assert_eq!(fast_cpu, reference_cpu, "{what}");
            assert!(fast_data == reference_data, "{what}: memory differs");
            assert_eq!(fast_engine.stats().rejected, 0, "the compiler rejected {what}");
        }
    }
}

/// FCVTN and FCVTN2 from single to half precision on the values where rounding decides: fractions just below,
/// at and just above half a half's ulp with the kept bit even and odd (ties go to even), the largest half and the
/// numbers just past it, the smallest normal half and the number just below it, zeros; FPSR.IXC set and clear.
#[test]
fn half_precision_narrowing_rounds_ties_to_even() {
    let memory = code_memory(1);
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let mut values = vec![0u32, 0x8000_0000, 65504f32.to_bits(), 65505f32.to_bits(), 65520f32.to_bits()];
    values.extend([(-14f32).exp2().to_bits(), (-14f32).exp2().to_bits() - 1]);
    for exponent in [113u32, 127, 140] {
        for kept in [0u32, 1] {
            for low in [0x0fff_u32, 0x1000, 0x1001, 0x1fff, 0] {
                let bits = exponent << 23 | (0x155 << 14 | kept << 13) | low;
                values.extend([bits, bits | 0x8000_0000]);
            }
        }
    }
    for word in [0x0e21_6820u32, 0x4e21_6820] {
        place_instruction(&memory, &mut fast_engine, word);
        for (index, lanes) in values.chunks(4).enumerate() {
            let mut start =
                CpuState { pc: 0x10000, fpsr: if index % 3 == 2 { 0 } else { 1 << 4 }, ..CpuState::default() };
            start.v[0] = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;
            for (lane, &bits) in lanes.iter().enumerate() {
                start.v[1] |= u128::from(bits) << (32 * lane);
            }
            let what = format!("{word:#010x} on {:#x}", start.v[1]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
}

/// FRECPE and FRSQRTE (4S) on every entry of the manual's estimate tables: each top 8 bits of the fraction with
/// exponents of both parities (the square root's table depends on it), signs of both kinds, against the reference.
#[test]
fn estimates_match_the_reference_at_every_table_entry() {
    let memory = code_memory(1);
    let mut random = 0x2545_f491_4f6c_dd1du64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for word in [0x4ea1_d820u32, 0x6ea1_d820] {
        place_instruction(&memory, &mut fast_engine, word);
        for first in (0..1024u32).step_by(4) {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for lane in 0..4 {
                // Entry: the fraction's top 8 bits, then the exponent's parity, then (for a quarter of the runs)
                // the sign; exponents anywhere in the range whose estimates are normal, the low bits random.
                let entry = first + lane;
                let (top, parity, negative) = (entry & 0xff, entry >> 8 & 1, entry >> 9 == 1 && entry & 3 == 0);
                let exponent = (xorshift(&mut random) as u32 % 125) * 2 + 2 + parity;
                let low = xorshift(&mut random) as u32 & 0x7fff;
                let bits = u32::from(negative) << 31 | exponent << 23 | top << 15 | low;
                start.v[1] |= u128::from(bits) << (32 * lane);
            }
            let what = format!("{word:#010x} on {:#x}", start.v[1]);
            assert_instruction_matches(&memory, &mut fast_engine, start, &what);
        }
    }
}

/// UZP1/2, TRN1/2, ZIP1/2 (every element size, 64 and 128 bits) and EXT (every byte offset), which the fast path
/// lifts to byte shuffles (`lift::simd_permute`, with REV16/32/64 and XTN/XTN2), and the shifts by immediate
/// (every element size and width, shifts by 0, 1, the whole element and between) and integer two-register
/// operations and reductions it lifts (`lift::simd_integer`: SHRN, RSHRN, the rounding shifts, SLI, SRI, CNT, NOT,
/// ABS, NEG, SQABS, SQNEG, compares with zero, the long pairwise additions, the saturating narrowings, ADDV, SMAXV,
/// UMAXV, SMINV, UMINV, SADDLV, UADDLV, the long and wide operations of "three different", and every integer operation of
/// "three same": elementwise, accumulating and pairwise, the saturating ones with FPSR.QC clear or set; the scalar
/// three same, shift by immediate and two-register classes), TBL and
/// TBX (tables of one to four registers, wrapping after V31, indices in and past them), on random registers (with
/// zero lanes now and then): the same registers and FPSR as the reference's, the reserved encodings included (the
/// reference's UNDEFINED on both).
#[test]
fn simd_integer_operations_match_the_reference() {
    let memory = code_memory(1);
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let mut words = Vec::new();
    for q in 0..2u32 {
        for size in 0..4u32 {
            for opcode in [0b001u32, 0b010, 0b011, 0b101, 0b110, 0b111] {
                // UZP/TRN/ZIP V0, V1, V2.
                words.push(0x0e00_0800 | q << 30 | size << 22 | 2 << 16 | opcode << 12 | 1 << 5);
            }
        }
        for imm4 in 0..16u32 {
            // EXT V0, V1, V2, #imm4.
            words.push(0x2e00_0000 | q << 30 | 2 << 16 | imm4 << 11 | 1 << 5);
        }
        // TBL, TBX V0, {V1...} and {V30, V31, V0...} (the table wraps after V31), V2.
        for (len, op, rn) in (0..4u32).flat_map(|len| [(len, 0u32, 1u32), (len, 1, 1), (len, 0, 30), (len, 1, 31)]) {
            words.push(0x0e00_0000 | q << 30 | 2 << 16 | len << 13 | op << 12 | rn << 5);
        }
        // [SU]ADDL, [SU]ADDW, [SU]SUBL, [SU]SUBW, (R)ADDHN, (R)SUBHN, [SU]MLAL, [SU]MLSL, [SU]MULL (and the "2"
        // forms) V0, V1, V2.
        for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
            for opcode in [0b0000u32, 0b0001, 0b0010, 0b0011, 0b0100, 0b0110, 0b1000, 0b1010, 0b1100] {
                words.push(0x0e20_0000 | q << 30 | u << 29 | size << 22 | 2 << 16 | opcode << 12 | 1 << 5);
            }
        }
        // Every integer opcode of "three same" (the rounding and saturating shifts by register, PMUL and SQDMULH
        // run on the reference in place) V0, V1, V2.
        for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
            for opcode in (0..0b11000u32).filter(|&opcode| opcode != 0b00011) {
                words.push(0x0e20_0400 | q << 30 | u << 29 | size << 22 | 2 << 16 | opcode << 11 | 1 << 5);
            }
        }
        // Scalar three same (the integer opcodes, every size: D is the one most take) and scalar shifts by
        // immediate (every immh, the same-size opcodes and the others) D0, D1, D2.
        if q == 0 {
            for (u, size) in (0..2u32).flat_map(|u| (0..4u32).map(move |size| (u, size))) {
                for opcode in 0..0b11000u32 {
                    words.push(0x5e20_0400 | u << 29 | size << 22 | 2 << 16 | opcode << 11 | 1 << 5);
                }
            }
            // Scalar two-register: ABS, NEG, CMGT/CMEQ/CMLT/CMGE/CMLE #0, SQABS, SQNEG, every size.
            for size in 0..4u32 {
                for (u, opcode) in [
                    (0u32, 0b01011u32),
                    (1, 0b01011),
                    (0, 0b01000),
                    (0, 0b01001),
                    (0, 0b01010),
                    (1, 0b01000),
                    (1, 0b01001),
                    (0, 0b00111),
                    (1, 0b00111),
                ] {
                    words.push(0x5e20_0800 | u << 29 | size << 22 | opcode << 12 | 1 << 5);
                }
            }
            for (u, immh) in (0..2u32).flat_map(|u| (1..16u32).map(move |immh| (u, immh))) {
                for immb in [0u32, 1, 7] {
                    for opcode in [0b00000u32, 0b00010, 0b00100, 0b00110, 0b01000, 0b01010, 0b01110, 0b10010] {
                        words.push(0x5f00_0400 | u << 29 | immh << 19 | immb << 16 | opcode << 11 | 1 << 5);
                    }
                }
            }
        }
        // ADDV, SMAXV, UMAXV, SMINV, UMINV V0, V1.
        for size in 0..4u32 {
            for (u, opcode) in
                [(0u32, 0b11011u32), (0, 0b01010), (1, 0b01010), (0, 0b11010), (1, 0b11010), (0, 0b00011), (1, 0b00011)]
            {
                words.push(0x0e30_0800 | q << 30 | u << 29 | size << 22 | opcode << 12 | 1 << 5);
            }
        }
        // REV64, REV32, REV16, XTN/XTN2, CNT, NOT, ABS, NEG, CMGT/CMEQ/CMLT/CMGE/CMLE (zero) V0, V1.
        for size in 0..4u32 {
            for (u, opcode) in [
                (0u32, 0b00000u32),
                (1, 0b00000),
                (0, 0b00001),
                (0, 0b10010),
                (0, 0b00101),
                (1, 0b00101),
                (0, 0b01011),
                (1, 0b01011),
                (0, 0b01000),
                (0, 0b01001),
                (0, 0b01010),
                (1, 0b01000),
                (1, 0b01001),
                // SADDLP, UADDLP, SADALP, UADALP, SQABS, SQNEG, SQXTN, UQXTN, SQXTUN.
                (0, 0b00010),
                (1, 0b00010),
                (0, 0b00110),
                (1, 0b00110),
                (0, 0b00111),
                (1, 0b00111),
                (0, 0b10100),
                (1, 0b10100),
                (1, 0b10010),
            ] {
                words.push(0x0e20_0800 | q << 30 | u << 29 | size << 22 | opcode << 12 | 1 << 5);
            }
        }
        for u in 0..2u32 {
            // SSHR/USHR, SSRA/USRA, SHL, SSHLL/USHLL V0, V1, #shift: every element size, shifts at both ends
            // and in the middle.
            for immh in 1..16u32 {
                for immb in [0u32, 1, 3, 7] {
                    // (SSHR, SSRA, SRSHR, SRSRA, SHL, SSHLL, SHRN, RSHRN, and with U: SRI, SLI.)
                    for opcode in [0b00000u32, 0b00010, 0b00100, 0b00110, 0b01010, 0b10100, 0b10000, 0b10001, 0b01000] {
                        words.push(0x0f00_0400 | q << 30 | u << 29 | immh << 19 | immb << 16 | opcode << 11 | 1 << 5);
                    }
                }
            }
        }
    }
    for word in words {
        place_instruction(&memory, &mut fast_engine, word);
        for _ in 0..20 {
            let mut start = CpuState { pc: 0x10000, ..CpuState::default() };
            for register in 0..32 {
                start.v[register] = u128::from(xorshift(&mut random)) << 64 | u128::from(xorshift(&mut random));
            }
            // Table indices within four registers, or within eight (past the table) now and then.
            match xorshift(&mut random) % 3 {
                0 => start.v[2] &= u128::from_ne_bytes([0x3f; 16]),
                1 => start.v[2] &= u128::from_ne_bytes([0x7f; 16]),
                _ => {}
            }
            // Zero lanes of every size now and then, for the compares with zero; small lanes, which saturate
            // nothing; FPSR.QC already set.
            match xorshift(&mut random) % 5 {
                0 => start.v[1] &= 0xffff_ffff_0000_0000_ff00_ff00_0000_ffff,
                1 => {
                    (start.v[1], start.v[2]) =
                        (start.v[1] & u128::from_ne_bytes([0x1f; 16]), start.v[2] & u128::from_ne_bytes([0x1f; 16]))
                }
                // Lanes of every size that narrow without saturating.
                2 => start.v[1] &= 0x7f_0000_0000_0000_007f,
                // Shift amounts (the low byte of each of V2's lanes) from -40 to 40.
                3 => {
                    let amounts: [u8; 16] =
                        std::array::from_fn(|_| ((xorshift(&mut random) % 81) as u8).wrapping_sub(40));
                    start.v[2] = u128::from_le_bytes(amounts);
                }
                _ => {}
            }
            if xorshift(&mut random) % 3 == 0 {
                start.fpsr |= 1 << 27;
            }
            assert_instruction_matches(&memory, &mut fast_engine, start, &format!("{word:#010x}"));
        }
    }
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// CCMP and CCMN (both widths, every condition, several constants) read by a condition of every kind in the same
/// block (`CSINC`, which the lifter answers from the lazy flags), after a CMP that sets the flags they test, on
/// operands with equal, extreme and random values: the fast path's registers and NZCV are the reference's.
#[test]
fn conditional_compares_match_the_reference() {
    const CMP_X3_X4: u32 = 0xeb04_007f;
    const SVC: u32 = 0xd400_0001;
    let mut code = Vec::new();
    // CCMP X, CCMN X, CCMP W, CCMN W (register forms, Rm = x1, Rn = x0).
    for op in [0xfa41_0000u32, 0xba41_0000, 0x7a41_0000, 0x3a41_0000] {
        for cond in 0..16 {
            for read in 0..16 {
                // ccmp/ccmn x0, x1, #nzcv, cond; csinc x2, xzr, xzr, read
                let nzcv = (cond * 7 + read * 3) % 16;
                code.push([CMP_X3_X4, op | cond << 12 | nzcv, 0x9a9f_07e2 | read << 12, SVC]);
            }
        }
    }
    let memory = code_memory(code.len() as u64 * 16 / PAGE_SIZE);
    let bytes: Vec<u8> = code.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &bytes).unwrap();
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let mut seed = 0x1234_5678_9abc_def0u64;
    let edges = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x7fff_ffff_ffff_ffff, 1 << 63, u64::MAX];
    for (index, _) in code.iter().enumerate() {
        let pc = 0x10000 + 16 * index as u64;
        for round in 0..6 {
            let mut pick = || {
                let random = xorshift(&mut seed);
                if round % 2 == 0 { edges[(random % edges.len() as u64) as usize] } else { random }
            };
            let (x0, x3) = (pick(), pick());
            let x1 = if round == 4 { x0 } else { pick() };
            let x4 = if round == 5 { x3 } else { pick() };
            let mut start = CpuState { pc, ..CpuState::default() };
            start.x[..5].copy_from_slice(&[x0, x1, 0, x3, x4]);
            let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
            let reference = Interpreter::default().run(&mut reference_cpu, &memory, 4, GuestClock::default());
            let fast = fast_engine.run(&mut fast_cpu, &memory, 4, GuestClock::default());
            assert_eq!(fast, reference, "{:#010x}, round {round}", code[index][1]);
            assert_eq!(
                fast_cpu, reference_cpu,
                "{:#010x} then {:#010x}, round {round}",
                code[index][1], code[index][2]
            );
        }
    }
}
