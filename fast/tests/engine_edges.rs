//! Edge cases of the dispatcher and the region builder, each checked against the reference interpreter run on
//! the same state and memory.

use tandem_fast::FastEngine;
use tandem_reference::engine::{Engine, Exit, GuestClock};
use tandem_reference::memory::{ADDRESS_SPACE_SIZE, Access, FaultReason, GuestMemory, MemoryFault, PAGE_SIZE, Perm};
use tandem_reference::{CpuState, Interpreter};

mod common;
use common::{code_memory, xorshift};

/// Maps a fresh page at `address` holding `words` (written while it is writable), then makes it read-only and
/// executable, as a loader does: code the fast path compiles.
fn place_code(memory: &mut GuestMemory, address: u64, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.map(address, PAGE_SIZE, Perm::RW).unwrap();
    memory.write_privileged(address, &bytes).unwrap();
    memory.protect(address, PAGE_SIZE, Perm::RX).unwrap();
}

/// Runs both engines from `pc` with `budget` and asserts the same result and state.
fn assert_same(memory: &GuestMemory, pc: u64, budget: u64) {
    assert_same_from(memory, CpuState { pc, ..CpuState::default() }, budget);
}

/// Writes `words` at 0x10000 and runs both engines from there with X1 and NZCV set, asserting the same result
/// and state.
fn assert_same_code(memory: &GuestMemory, words: &[u32], x1: u64, nzcv: u32, budget: u64) {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    let mut start = CpuState { pc: 0x10000, nzcv, ..CpuState::default() };
    start.x[1] = x1;
    assert_same_from(memory, start, budget);
}

/// Runs both engines from `start` with `budget` and asserts the same result and state.
fn assert_same_from(memory: &GuestMemory, start: CpuState, budget: u64) {
    let pc = start.pc;
    let (mut reference_cpu, mut fast_cpu) = (start.clone(), start);
    let reference = Interpreter::default().run(&mut reference_cpu, memory, budget, GuestClock::default());
    let mut fast_engine = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    let fast = fast_engine.run(&mut fast_cpu, memory, budget, GuestClock::default());
    assert_eq!(fast, reference, "pc {pc:#x}, budget {budget}");
    assert_eq!(fast_cpu, reference_cpu, "pc {pc:#x}, budget {budget}");
    assert_eq!(fast_engine.stats().rejected, 0, "a block the compiler rejected: pc {pc:#x}");
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

/// A budget that ends inside a block runs the rest on the reference, with no block compiled at each address on
/// the way (which the budget would not fit either).
#[test]
fn a_budget_ending_inside_a_block_finishes_on_the_reference() {
    let memory = code_memory(1);
    // add x0, x0, #1 twenty times; svc #0
    let code: Vec<u8> = [0x9100_0400u32; 20].iter().chain(&[0xd400_0001]).flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    let mut fast = FastEngine::with_defaults().unwrap().compiling_at_first_use();
    for budget in [5, 5, 19] {
        let (mut fast_cpu, mut reference_cpu) = (CpuState { pc: 0x10000, ..CpuState::default() }, CpuState::default());
        reference_cpu.pc = 0x10000;
        let result = fast.run(&mut fast_cpu, &memory, budget, GuestClock::default());
        let reference = Interpreter::default().run(&mut reference_cpu, &memory, budget, GuestClock::default());
        assert_eq!((result, &fast_cpu), (reference, &reference_cpu), "budget {budget}");
    }
    assert_eq!(fast.stats().blocks, 1);
    assert_same(&memory, 0x10000, 21);
}

#[test]
fn a_misaligned_pc_is_left_to_the_reference() {
    let memory = code_memory(2);
    // add x0, x0, #1 everywhere: a word at a misaligned PC would straddle two of them (and the page end there),
    // but the PC alignment check (AArch64.CheckPCAlignment) faults before any fetch.
    let code: Vec<u8> =
        std::iter::repeat_n(0x9100_0400u32, (2 * PAGE_SIZE / 4) as usize).flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(0x10000, &code).unwrap();
    for pc in [0x10ffe, 0x10ffd, 0x10002] {
        assert_same(&memory, pc, 5);
        let mut cpu = CpuState { pc, ..CpuState::default() };
        let exit = Interpreter::default().run(&mut cpu, &memory, 5, GuestClock::default()).exit;
        let fault = MemoryFault { address: pc, access: Access::Execute, reason: FaultReason::Alignment };
        assert_eq!(exit, Exit::MemoryFault(fault), "pc {pc:#x}");
    }
}

/// Blocks compiled from a page are dropped when the page's mapping or permissions change, or a privileged write
/// changes it, with no word from the caller (`GuestMemory::layout_changes_since`): code mapped anew at the same
/// address runs as it now reads, a page no longer executable faults as the reference says, and so it stays past
/// the memory's log of changes; code rewritten in place runs as it now reads.
#[test]
fn remapped_and_reprotected_code_runs_as_memory_now_holds_it() {
    remapped_and_reprotected_code_runs_on(FastEngine::with_defaults().unwrap().compiling_at_first_use());
    // With a code cache: the blocks of the old code must not come back from the disk under the new code's key.
    let cache = std::env::temp_dir().join(format!("tandem-engine-edges-cache-{}", std::process::id()));
    remapped_and_reprotected_code_runs_on(
        FastEngine::with_defaults().unwrap().compiling_at_first_use().with_code_cache(&cache).unwrap(),
    );
    let _ = std::fs::remove_dir_all(&cache);
}

fn remapped_and_reprotected_code_runs_on(mut fast: FastEngine) {
    let write_code = |memory: &GuestMemory, words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        memory.write_privileged(0x10000, &bytes).unwrap();
    };
    let run = |engine: &mut dyn Engine, memory: &GuestMemory| {
        let mut cpu = CpuState { pc: 0x10000, ..CpuState::default() };
        let result = engine.run(&mut cpu, memory, 100, GuestClock::default());
        (result, cpu)
    };
    let mut memory = code_memory(1);
    // mov x0, #1; svc #0
    write_code(&memory, &[0xd2800020, 0xd4000001]);
    assert_eq!(run(&mut fast, &memory).1.x[0], 1);
    assert_eq!(fast.stats().blocks, 1);

    // Unmapped and mapped again with other code: mov x0, #2; svc #0.
    memory.unmap(0x10000, PAGE_SIZE).unwrap();
    memory.map(0x10000, PAGE_SIZE, Perm::RW).unwrap();
    write_code(&memory, &[0xd2800040, 0xd4000001]);
    memory.protect(0x10000, PAGE_SIZE, Perm::RX).unwrap();
    assert_eq!(run(&mut fast, &memory), run(&mut Interpreter::default(), &memory));
    assert_eq!(run(&mut fast, &memory).1.x[0], 2);

    // No longer executable: the reference's execute fault, not the compiled block.
    memory.protect(0x10000, PAGE_SIZE, Perm::READ).unwrap();
    let (reference, _) = run(&mut Interpreter::default(), &memory);
    assert!(matches!(reference.exit, Exit::MemoryFault(_)), "{reference:?}");
    assert_eq!(run(&mut fast, &memory), run(&mut Interpreter::default(), &memory));

    // Executable again, then more changes elsewhere than the memory keeps: still the code it holds.
    memory.protect(0x10000, PAGE_SIZE, Perm::RX).unwrap();
    assert_eq!(run(&mut fast, &memory).1.x[0], 2);
    memory.unmap(0x10000, PAGE_SIZE).unwrap();
    memory.map(0x10000, PAGE_SIZE, Perm::RW).unwrap();
    write_code(&memory, &[0xd2800020, 0xd4000001]);
    memory.protect(0x10000, PAGE_SIZE, Perm::RX).unwrap();
    for _ in 0..300 {
        memory.map(0x40000, PAGE_SIZE, Perm::RW).unwrap();
        memory.unmap(0x40000, PAGE_SIZE).unwrap();
    }
    assert_eq!(run(&mut fast, &memory).1.x[0], 1);

    // Rewritten in place, executable throughout, by a writer guest permissions do not bind (the kernel, the GPU):
    // mov x0, #3; svc #0.
    write_code(&memory, &[0xd2800060, 0xd4000001]);
    assert_eq!(run(&mut fast, &memory).1.x[0], 3);
}

/// A region compiled in the background from code that is remapped before it is ready is never installed: the
/// engine runs the code memory holds now, as the reference does, and compiles that in turn. With a code cache,
/// the compile thread stores what it compiles, and an engine started later loads the region of the code memory
/// holds now (the old region's file is keyed by the old bytes).
#[test]
fn regions_compiled_in_the_background_run_only_while_their_code_stands() {
    let background = || FastEngine::with_defaults().unwrap().compiling_at_second_use().compiling_in_background();
    regions_compiled_in_the_background_run_only_while_their_code_stands_on(background(), None);
    let cache = std::env::temp_dir().join(format!("tandem-engine-edges-background-{}", std::process::id()));
    regions_compiled_in_the_background_run_only_while_their_code_stands_on(
        background().with_code_cache(&cache).unwrap(),
        Some(&cache),
    );
    let _ = std::fs::remove_dir_all(&cache);
}

fn regions_compiled_in_the_background_run_only_while_their_code_stands_on(
    mut fast: FastEngine,
    cache: Option<&std::path::Path>,
) {
    // mov x0, #100; loop: subs x0, x0, #1; b.ne loop; mov x1, #VALUE; svc #0
    let code = |value: u32| [0xd2800c80, 0xf1000400, 0x54ffffe1, 0xd2800001 | value << 5, 0xd4000001];
    let write_code = |memory: &GuestMemory, words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        memory.write_privileged(0x10000, &bytes).unwrap();
    };
    let run = |engine: &mut dyn Engine, memory: &GuestMemory, budget: u64| {
        let mut cpu = CpuState { pc: 0x10000, ..CpuState::default() };
        let result = engine.run(&mut cpu, memory, budget, GuestClock::default());
        (result, cpu)
    };
    let mut memory = code_memory(1);
    write_code(&memory, &code(1));
    // The loop's second visit (after 3 instructions) sends its region to the compile thread; the run ends after
    // one more instruction, with no chance to install it.
    assert_eq!(run(&mut fast, &memory, 4), run(&mut Interpreter::default(), &memory, 4));
    assert_eq!(fast.stats().blocks, 0);

    memory.unmap(0x10000, PAGE_SIZE).unwrap();
    memory.map(0x10000, PAGE_SIZE, Perm::RW).unwrap();
    write_code(&memory, &code(2));
    memory.protect(0x10000, PAGE_SIZE, Perm::RX).unwrap();
    fast.finish_compiling(&memory);
    assert_eq!(fast.stats().blocks, 0, "the region of the code unmapped was installed");

    for _ in 0..3 {
        let (fast_run, reference_run) =
            (run(&mut fast, &memory, 1000), run(&mut Interpreter::default(), &memory, 1000));
        assert_eq!(fast_run, reference_run);
        assert_eq!(fast_run.1.x[1], 2);
        fast.finish_compiling(&memory);
    }
    assert!(fast.stats().blocks > 0, "the code mapped now was never compiled");

    if let Some(cache) = cache {
        let mut later = FastEngine::with_defaults().unwrap().compiling_at_second_use().with_code_cache(cache).unwrap();
        let (later_run, reference_run) =
            (run(&mut later, &memory, 1000), run(&mut Interpreter::default(), &memory, 1000));
        assert_eq!(later_run, reference_run);
        assert_eq!(later_run.1.x[1], 2);
        assert!(later.stats().loaded > 0, "nothing the compile thread stored was loaded: {:?}", later.stats());
        assert_eq!(later.stats().blocks, 0, "regions compiled again: {:?}", later.stats());
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

/// NZCV left unpacked by a region's exit (`Runtime::exit_flags`) is what the next region, the reference helper,
/// the dispatcher and the fault handler see: flags of a 64-bit CMP read by CSET and ADC after an indirect branch,
/// of a 32-bit ADDS by a half-precision FCSEL (the reference, in place), a double one and MRS NZCV, of ANDS passed
/// through a region that stores, and of a 32-bit SUBS under a CMP's at a fault, for every budget and region size.
#[test]
fn flags_left_unpacked_at_exits_read_as_the_reference_reads_them() {
    const CODE: [u32; 28] = [
        0xd2a00045, // mov x5, #0x20000
        0x100000e9, // adr x9, part2
        0xd2800060, // mov x0, #3
        0xd28000a1, // mov x1, #5
        0x9280008d, // mov x13, #-5
        0x4e020c01, // dup v1.8h, w0 (h1 and d1 differ from h2 and d2)
        0xeb01001f, // cmp x0, x1
        0xd61f0120, // br x9
        0x9a9fa7e2, // part2: cset x2, lt
        0x9a010003, // adc x3, x0, x1
        0x2b0d0024, // adds w4, w1, w13 (zero, carry)
        0x10000049, // adr x9, part3
        0xd61f0120, // br x9
        0xd280002b, // part3: mov x11, #1
        0x1ee20c20, // fcsel h0, h1, h2, eq (the reference, in place)
        0x1e620c23, // fcsel d3, d1, d2, eq
        0xd53b4206, // mrs x6, nzcv
        0xea010007, // ands x7, x0, x1
        0x10000049, // adr x9, part4
        0xd61f0120, // br x9
        0xf90000a7, // part4: str x7, [x5]
        0x71001008, // subs w8, w0, #4
        0x10000049, // adr x9, part5
        0xd61f0120, // br x9
        0xd2a00068, // part5: mov x8, #0x30000 (unmapped)
        0xf100041f, // cmp x0, #1
        0xf940010a, // ldr x10, [x8]
        0xd4000001, // svc #0
    ];
    let whole = assert_same_for_every_budget("unpacked flags", &CODE, |memory| {
        memory.map(0x20000, PAGE_SIZE, Perm::RW).unwrap();
    });
    assert_eq!(whole, 26, "the program runs up to the faulting load");
}

/// Every condition read at a region's start from the flag-setting operation the exit before left unpacked
/// (`Runtime::exit_flags`): 32-bit and 64-bit compares whose operands set C and V and clear N and Z, and tests
/// whose result sets N. CSET of each after an indirect branch to a loaded address (which ends the region: the
/// lifter would follow a constant one), the results stored to memory, for every budget and region size.
#[test]
fn conditions_of_flags_left_unpacked_read_as_the_reference_reads_them() {
    let cset = |rd: u32, cond: u32| 0x9a9f_07e0 | (cond ^ 1) << 12 | rd;
    let ldr_x9 = |offset: u32| 0xf940_00a9 | (offset / 8) << 10; // ldr x9, [x5, #offset]
    let stp = |rt: u32, offset: u32| 0xa900_0000 | (offset / 8) << 15 | (rt + 1) << 10 | 5 << 5 | rt; // stp rt, rt+1, [x5, #offset]
    // VS and VC last: what reads V settles the record, and every condition after it reads NZCV packed.
    let conditions = [
        0b0000, 0b0001, 0b0010, 0b0011, 0b0100, 0b0101, 0b1000, 0b1001, 0b1010, 0b1011, 0b1100, 0b1101, 0b0110, 0b0111,
    ];
    let setters = [
        0x6b01_001f, // cmp w0, w1 (0x80000000 - 1)
        0xeb01_007f, // cmp x3, x1 (0x8000000000000000 - 1)
        0x6a00_001f, // tst w0, w0
        0xea03_007f, // tst x3, x3
    ];
    // Loaded, not constants: the lifter folds the flags of constants into packed NZCV.
    let mut code = vec![
        0xd2a0_0045, // mov x5, #0x20000
        0xf940_00a0, // ldr x0, [x5] (0x80000000)
        0xf940_04a1, // ldr x1, [x5, #8] (1)
        0xf940_08a3, // ldr x3, [x5, #16] (0x8000000000000000)
    ];
    let mut targets = Vec::new();
    for (part, setter) in (0..).zip(setters) {
        code.extend([ldr_x9(24 + 8 * part), setter, 0xd61f_0120]); // ldr x9, target; the setter; br x9
        targets.push(0x10000 + 4 * code.len() as u64);
        code.extend((10..).zip(conditions).map(|(rd, cond)| cset(rd, cond))); // cset x10..x23
        code.extend((0..7).map(|pair| stp(10 + 2 * pair, 64 + 112 * part + 16 * pair)));
    }
    code.push(0xd400_0001); // svc #0
    let data: Vec<u8> =
        [0x8000_0000, 1, 1 << 63].iter().chain(&targets).flat_map(|value: &u64| value.to_le_bytes()).collect();
    let whole = assert_same_for_every_budget("conditions of unpacked flags", &code, |memory| {
        memory.map(0x20000, PAGE_SIZE, Perm::RW).unwrap();
        memory.write_privileged(0x20000, &data).unwrap();
    });
    assert_eq!(whole, code.len() as u64);
}

/// A loop's label where NZCV is still as the region found it on the way in (and carried from a CMP on the way
/// round): an exit from there before anything sets it leaves the flags the exit before left unpacked.
#[test]
fn flags_at_a_label_reached_from_the_entry_leave_as_they_came() {
    const CODE: [u32; 15] = [
        0xd2800060, // mov x0, #3
        0xd28000a1, // mov x1, #5
        0xd2800004, // mov x4, #0
        0x10000089, // adr x9, part2
        0x1000012a, // adr x10, part3
        0xeb01001f, // cmp x0, x1
        0xd61f0120, // br x9
        0xd2800003, // part2: mov x3, #0
        0x91000463, // loop: add x3, x3, #1
        0xb5000044, // cbnz x4, skip
        0xd61f0140, // br x10
        0xf100287f, // skip: cmp x3, #10
        0x54ffff81, // b.ne loop
        0xd53b4206, // part3: mrs x6, nzcv
        0xd4000001, // svc #0
    ];
    let whole = assert_same_for_every_budget("flags at a label", &CODE, |memory| {
        memory.map(0x20000, PAGE_SIZE, Perm::RW).unwrap();
    });
    assert_eq!(whole, 13, "the program leaves the loop at once");
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
    // Chained blocks with room for the whole program, and unchained ones with room for a few instructions; and
    // regions compiled in the background, which start running compiled when they are ready. An engine keeps what
    // it compiled from one run to the next: every run's memory holds the same code.
    let engines = [
        ("chained", FastEngine::with_defaults().unwrap().compiling_at_first_use()),
        ("background", FastEngine::with_defaults().unwrap().compiling_at_second_use().compiling_in_background()),
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
/// and addresses past, across the end of, and far outside the address space, including those a small offset
/// from a base the block checked already (the view's guards must refuse them) and those inside the space a
/// small offset from a base outside it.
#[test]
fn host_faults_leave_the_exact_state() {
    // 0x20000: read/write; 0x21000: read-only, with data; 0x22000: execute-only; the first and the last page of the
    // address space: read/write.
    let data = |memory: &mut GuestMemory| {
        memory.map(0x20000, 3 * PAGE_SIZE, Perm::RW).unwrap();
        memory.map(0, PAGE_SIZE, Perm::RW).unwrap();
        memory.map(ADDRESS_SPACE_SIZE - PAGE_SIZE, PAGE_SIZE, Perm::RW).unwrap();
        let words: Vec<u8> = (0..PAGE_SIZE / 8).flat_map(|i| (i * 0x0101_0101 + 3).to_le_bytes()).collect();
        memory.write(0x21000, &words).unwrap();
        memory.protect(0x21000, PAGE_SIZE, Perm::READ).unwrap();
        memory.protect(0x22000, PAGE_SIZE, Perm::EXECUTE).unwrap();
    };
    let programs: [(&str, &[u32]); 20] = [
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
            "load at an offset past the end of the address space from a checked base",
            &[
                0xd2800022, // mov x2, #1
                0xd3596042, // lsl x2, x2, #39
                0xd1002042, // sub x2, x2, #8
                0xf9400045, // ldr x5, [x2]
                0xf9400446, // ldr x6, [x2, #8]
                0xd4000001, // svc #0
            ],
        ),
        (
            "load at an offset below the address space from a checked base",
            &[
                0xd2800102, // mov x2, #8
                0xf9400045, // ldr x5, [x2]
                0xf85f0046, // ldur x6, [x2, #-16]
                0xd4000001, // svc #0
            ],
        ),
        (
            "pair load below the address space from a checked base moved on",
            &[
                0xd2800102, // mov x2, #8
                0xf9400045, // ldr x5, [x2]
                0x91004042, // add x2, x2, #16
                0xa97c1845, // ldp x5, x6, [x2, #-64]
                0xd4000001, // svc #0
            ],
        ),
        (
            "accesses inside the address space from a base past its end",
            &[
                0xd2800022, // mov x2, #1
                0xd3596042, // lsl x2, x2, #39
                0x91002042, // add x2, x2, #8
                0xf85f0045, // ldur x5, [x2, #-16]
                0xf81e8045, // stur x5, [x2, #-24]
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
            // A store of what was just loaded there must still fault where the page is read-only (Cranelift's
            // alias analysis would drop it as idempotent).
            "store back what was loaded, read-only page",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820000, // movk x0, #0x1000
                0xf9400002, // ldr x2, [x0]
                0xf9000002, // str x2, [x0]
                0xd4000001, // svc #0
            ],
        ),
        (
            "failing compare-and-swap, read-only page",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820000, // movk x0, #0x1000
                0x528000e1, // mov w1, #7
                0x88a1fc01, // casl w1, w1, [x0]
                0xd4000001, // svc #0
            ],
        ),
        (
            "atomic add of zero, read-only page",
            &[
                0xd2a00040, // mov x0, #0x20000
                0xf2820000, // movk x0, #0x1000
                0x52800001, // mov w1, #0
                0xb8210002, // ldadd w1, w2, [x0]
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

/// SBFM and UBFM (every alias: ASR, LSR, LSL, SXT*, UXT*, SBFX, UBFX, SBFIZ, UBFIZ) at both widths, every immr
/// and imms, on values whose every byte has its sign bit set, clear, or mixed: 28 to a block (each into its own
/// register), against the reference.
#[test]
fn signed_and_unsigned_bitfield_moves_match_the_reference() {
    let mut words = Vec::new();
    for (sf, width) in [(1u32, 64u32), (0, 32)] {
        for opc in [0b00u32, 0b10] {
            for immr in 0..width {
                for imms in 0..width {
                    let rd = 2 + words.len() as u32 % 28;
                    words
                        .push(sf << 31 | opc << 29 | 0b100110 << 23 | sf << 22 | immr << 16 | imms << 10 | 1 << 5 | rd);
                }
            }
        }
    }
    let memory = code_memory(1);
    for block in words.chunks(28) {
        let code: Vec<u32> = block.iter().copied().chain([0xd400_0001]).collect();
        for x1 in [0x8080_8080_8080_8080, 0x7f7f_7f7f_7f7f_7f7f, 0x0123_4567_89ab_cdef] {
            assert_same_code(&memory, &code, x1, 0, 100);
        }
    }
}

/// DC ZVA zeroes the 64-byte block that holds its register's address, inside a writable page; in a read-only
/// page it faults with nothing zeroed, at the register's address.
#[test]
fn zeroing_a_block_matches_the_reference() {
    // 0x20000: read/write, 0x21000: read-only; both full of nonzero words.
    let data = |memory: &mut GuestMemory| {
        memory.map(0x20000, 2 * PAGE_SIZE, Perm::RW).unwrap();
        let words: Vec<u8> = (0..2 * PAGE_SIZE / 8).flat_map(|i| (i * 0x0101_0101 + 3).to_le_bytes()).collect();
        memory.write(0x20000, &words).unwrap();
        memory.protect(0x21000, PAGE_SIZE, Perm::READ).unwrap();
    };
    // mov x0, #0x20000; movk x0, #0x123 / #0x1008; dc zva, x0; svc #0
    for (name, movk) in [("writable page", 0xf280_2460), ("read-only page", 0xf282_0100)] {
        assert_same_for_every_budget(name, &[0xd2a0_0040, movk, 0xd50b_7420, 0xd400_0001], data);
    }
}

/// A condition read at a loop's label, which NZCV reaches from the `CpuState` on entry and from the loop's SUBS on
/// the way round: every condition, every NZCV at entry, and loops that leave at once, after some passes, or
/// not before the budget ends.
#[test]
fn conditions_at_a_loop_label_read_the_flags_that_reached_it() {
    let memory = code_memory(1);
    for cond in 0..14u32 {
        // loop: b.<cond> out; add x0, x0, #1; subs x1, x1, #1; b loop; out: svc #0
        let code = [0x5400_0080 | cond, 0x9100_0400, 0xf100_0421, 0x17ff_fffd, 0xd400_0001];
        for nzcv in 0..16 {
            for x1 in [1, 3, 1 << 63] {
                assert_same_code(&memory, &code, x1, nzcv << 28, 200);
            }
        }
    }
}

/// Conditions after CMN, read straight from the addition (`direct_condition`): each condition, at both widths,
/// with constant addends (the immediate form, and a register holding the type's minimum, whose negation no
/// operand holds) and an addend that is no constant, on operands around zero, the wrap-arounds and the signed
/// extremes.
#[test]
fn conditions_after_cmn_match_the_reference() {
    let memory = code_memory(1);
    let compares: [(&str, &[u32]); 6] = [
        ("cmn x1, #5", &[0xb100_143f]),
        ("cmn w1, #1", &[0x3100_043f]),
        ("cmn x1, x2 (x2 = i64::MIN)", &[0xd2f0_0002, 0xab02_003f]),
        ("cmn w1, w2 (w2 = i32::MIN)", &[0x52b0_0002, 0x2b02_003f]),
        ("cmn x1, x2 (x2 = -3)", &[0x9280_0042, 0xab02_003f]),
        ("cmn x1, x1", &[0xab01_003f]),
    ];
    let operands = [0, 1, 2, u64::MAX, -5i64 as u64, -6i64 as u64, -4i64 as u64, 3, 4];
    let extremes = [1 << 63, (1 << 63) - 1, 0x7fff_ffff, 0x8000_0000, 0xffff_fffb, 0xffff_ffff, 0x1_0000_0000];
    for (name, compare) in compares {
        for cond in 0..14u32 {
            // <compare>; b.<cond> over; add x0, x0, #1; over: svc #0
            let code: Vec<u32> =
                compare.iter().copied().chain([0x5400_0040 | cond, 0x9100_0400, 0xd400_0001]).collect();
            for x1 in operands.into_iter().chain(extremes) {
                println!("{name}, cond {cond}, x1 {x1:#x}");
                assert_same_code(&memory, &code, x1, 0, 200);
            }
        }
    }
}

/// Stores of several host accesses (SIMD pairs, ST1 of two registers) that cross a page, done inline: across two
/// writable pages they land whole; into a read-only page nothing of them lands, not even the part before the
/// page's start (`Lifter::probe_last_page`).
#[test]
fn stores_in_parts_across_pages_land_whole_or_not_at_all() {
    // 0x1f000 and 0x20000: read/write; 0x21000: read-only.
    let data = |memory: &mut GuestMemory| {
        memory.map(0x1f000, 3 * PAGE_SIZE, Perm::RW).unwrap();
        memory.protect(0x21000, PAGE_SIZE, Perm::READ).unwrap();
    };
    const VALUES: [u32; 2] = [
        0x4f00e460, // movi v0.16b, #3
        0x4f00e521, // movi v1.16b, #9
    ];
    let programs: [(&str, [u32; 2], u32); 4] = [
        ("simd pair across writable pages", [0xd2a00020, 0xf29ffe00], 0xad000400),
        ("simd pair into a read-only page", [0xd2a00040, 0xf281fe00], 0xad000400),
        ("two-register st1 across writable pages", [0xd2a00020, 0xf29ffe00], 0x4c00a000),
        ("two-register st1 into a read-only page", [0xd2a00040, 0xf281ff00], 0x4c00a000),
    ];
    // mov x0, #0x10000 / #0x20000; movk x0, #0xfff0 / #0xff0 / #0xff8; stp q0, q1, [x0] / st1 {v0.16b, v1.16b},
    // [x0]; svc #0.
    for (name, address, store) in programs {
        let code: Vec<u32> = address.into_iter().chain(VALUES).chain([store, 0xd4000001]).collect();
        assert_same_for_every_budget(name, &code, data);
    }
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

/// A loop in one page calling a function in another: the profile the interpreter gathers lets the loop's region
/// take the callee in (its cold branch left as an exit), and the region still retires exactly what the reference
/// does, for every budget. Rewriting the callee's page drops the region; a code cache does not bring it back.
#[test]
fn regions_follow_hot_calls_into_other_pages() {
    // 0x10000: mov x1, #0; mov x2, #200; mov x3, #0; loop: bl 0x20000; add x3, x3, x0; add x1, x1, #1;
    // cmp x1, x2; b.ne loop; svc #0
    const CALLER: [u32; 9] =
        [0xd2800001, 0xd2801902, 0xd2800003, 0x94003ffd, 0x8b000063, 0x91000421, 0xeb02003f, 0x54ffff81, 0xd4000001];
    // 0x20000: cmp x1, #1000; b.hs cold; add x0, x1, x1; ret; cold: mov x0, #7; ret
    const CALLEE: [u32; 6] = [0xf10fa03f, 0x54000062, 0x8b010020, 0xd65f03c0, 0xd28000e0, 0xd65f03c0];
    // add x0, x1, #5 in place of add x0, x1, x1.
    const NEW_ADD: u32 = 0x91001420;
    let program = |callee: &[u32]| {
        let mut memory = GuestMemory::new().unwrap();
        place_code(&mut memory, 0x10000, &CALLER);
        place_code(&mut memory, 0x20000, callee);
        memory
    };
    let run = |engine: &mut dyn Engine, memory: &GuestMemory, budget: u64| {
        let mut cpu = CpuState { pc: 0x10000, ..CpuState::default() };
        let result = engine.run(&mut cpu, memory, budget, GuestClock::default());
        (result, cpu)
    };
    let check = |fast: &mut FastEngine, memory: &GuestMemory| {
        for budget in (1..=1010).chain([u64::MAX]) {
            assert_eq!(run(fast, memory, budget), run(&mut Interpreter::default(), memory, budget), "budget {budget}");
        }
    };
    let mut new_callee = CALLEE;
    new_callee[2] = NEW_ADD;

    let mut memory = program(&CALLEE);
    let mut fast = FastEngine::with_defaults().unwrap();
    assert_eq!(run(&mut fast, &memory, u64::MAX).1.x[3], (0..200).map(|i| 2 * i).sum::<u64>());
    assert!(fast.stats().spanning > 0, "no region took the callee in: {:?}", fast.stats());
    check(&mut fast, &memory);

    memory.unmap(0x20000, PAGE_SIZE).unwrap();
    place_code(&mut memory, 0x20000, &new_callee);
    assert_eq!(run(&mut fast, &memory, u64::MAX).1.x[3], (0..200).map(|i| i + 5).sum::<u64>());
    check(&mut fast, &memory);

    let cache = std::env::temp_dir().join(format!("tandem-spanning-cache-{}", std::process::id()));
    let cached = || FastEngine::with_defaults().unwrap().with_code_cache(&cache).unwrap();
    let mut filling = cached();
    run(&mut filling, &program(&CALLEE), u64::MAX);
    assert!(filling.stats().spanning > 0);
    let changed = program(&new_callee);
    let mut loading = cached();
    assert_eq!(run(&mut loading, &changed, u64::MAX).1.x[3], (0..200).map(|i| i + 5).sum::<u64>());
    check(&mut loading, &changed);
    let _ = std::fs::remove_dir_all(&cache);
}

/// A guest that rewrites its code over and over (a JIT, a loader mapping one overlay after another): the code of
/// dropped blocks is reclaimed by moving the live blocks into fresh code memory, so the engine's code memory stays
/// bounded. Moved blocks run as before without being compiled again: a loop, and a load that the host refuses
/// (its trap site moved with the block) ends in the reference's exact fault.
#[test]
fn code_of_rewritten_blocks_is_reclaimed_and_moved_blocks_run_as_before() {
    // 0x10000: mov x1, #0; mov x2, #50; mov x3, #0; loop: add x3, x3, x1; add x1, x1, #1; cmp x1, x2; b.ne loop;
    // ldr x4, [x5]; svc #0
    const STABLE: [u32; 9] =
        [0xd2800001, 0xd2800642, 0xd2800003, 0x8b010063, 0x91000421, 0xeb02003f, 0x54ffffa1, 0xf94000a4, 0xd4000001];
    const DATA: u64 = 0x30000;
    let run = |engine: &mut dyn Engine, memory: &GuestMemory, pc: u64, x5: u64| {
        let mut cpu = CpuState { pc, ..CpuState::default() };
        cpu.x[5] = x5;
        let result = engine.run(&mut cpu, memory, 1000, GuestClock::default());
        (result, cpu)
    };
    let mut memory = GuestMemory::new().unwrap();
    place_code(&mut memory, 0x10000, &STABLE);
    memory.map(DATA, PAGE_SIZE, Perm::RW).unwrap();
    memory.write_privileged(DATA, &0x1122_3344_5566_7788u64.to_le_bytes()).unwrap();
    let mut fast = FastEngine::with_defaults().unwrap().compiling_at_first_use().reclaiming_code_past(4096);
    let stable = |fast: &mut FastEngine, memory: &GuestMemory| {
        for x5 in [DATA, 0x80_0000] {
            let reference = run(&mut Interpreter::default(), memory, 0x10000, x5);
            assert_eq!(run(fast, memory, 0x10000, x5), reference, "x5 {x5:#x}");
        }
    };
    stable(&mut fast, &memory);
    let compiled = fast.stats().blocks;

    // 0x20000, rewritten each round: mov x0, #round; add x0, x0, x0; svc #0.
    for round in 1..=200u32 {
        if round > 1 {
            memory.unmap(0x20000, PAGE_SIZE).unwrap();
        }
        place_code(&mut memory, 0x20000, &[0xd2800000 | round << 5, 0x8b000000, 0xd4000001]);
        let (result, cpu) = run(&mut fast, &memory, 0x20000, 0);
        assert_eq!((result, cpu.x[0]), (run(&mut Interpreter::default(), &memory, 0x20000, 0).0, 2 * u64::from(round)));
    }
    let bytes = fast.code_bytes();
    assert!(fast.stats().reclaims >= 2, "{:?}, {bytes:?}", fast.stats());
    assert!(bytes.dropped <= 4096 + bytes.live, "{bytes:?}");

    let before = fast.stats().blocks;
    stable(&mut fast, &memory);
    assert_eq!(fast.stats().blocks, before, "the stable blocks were compiled again after the move");
    assert!(before > compiled);
}
