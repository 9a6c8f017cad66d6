//! Control flow that ptxas never emits but NVN's compilers may, and what ptxas does emit that its corpus kernels
//! lack: the hand-built programs of `sass::programs` (SM5x loops whose `continue` is PCNT/CONT, with PBK/BRK
//! breaks, diverging across the lanes of two warps; barriers; calls; calls through function pointers; long jumps;
//! absolute branches; SM86's jump through a uniform register), and SUATOM and TLDS, which no ptxas output holds
//! either. The interpreter and the translation (run on the
//! Vulkan device) must both leave each thread the word its program defines; some tests also check the layout the
//! translation chose.

mod common;

use tandem_gpu::sass::corpus::{Placement, dispatch, interpret};
use tandem_gpu::sass::programs::{self, KnownProgram, SEGMENT_ORIGIN};
use tandem_gpu::shader::{GlobalMemory, TranslateError, translate_compute};

fn program(name: &str) -> KnownProgram {
    programs::named(name).unwrap_or_else(|| panic!("no program {name}"))
}

/// Each thread's word after the program runs on the interpreter and, translated, on the Vulkan device, against
/// the program's own; returns how the translation lays out its control flow.
fn check(name: &str) -> String {
    let program = program(name);
    let (run, kernel) = (program.run(), &program.kernel);
    let interpreted = interpret(&run, kernel, &program.input()).unwrap();
    assert_eq!(program.words(&interpreted), program.expected, "{name}: the interpreter");
    let translated = dispatch(common::device(), &run, kernel, &program.input(), Placement::Device).unwrap();
    assert_eq!(program.words(&translated.buffers), program.expected, "{name}: the translation");
    let translation = translate_compute(kernel, run.block, 0, &GlobalMemory::Device, &[]).unwrap();
    translation.control_flow.to_string()
}

#[test]
fn continue_and_break_leave_each_thread_its_loop_sum() {
    check("sum_of_evens");
}

/// A barrier every thread meets stays where it is in the structured translation (no phase loop), and orders the
/// shared memory stores before it against the loads after it.
#[test]
fn a_barrier_every_thread_meets_orders_shared_memory() {
    let control_flow = check("neighbours");
    assert!(control_flow.contains("barrier\n") && !control_flow.starts_with("dispatcher"), "{control_flow}");
}

/// Barriers in a loop whose count every thread shares stay in the structured layout; a barrier behind a branch
/// that divides the threads takes the phase loop. Both compute what the program defines.
#[test]
fn barriers_in_uniform_loops_are_structured_and_divided_ones_are_phased() {
    for (name, structured) in [("rounds", true), ("half_meet", false)] {
        let control_flow = check(name);
        let phased = control_flow.starts_with("dispatcher: a barrier not every thread may meet");
        assert_eq!(phased, !structured, "{name}: {control_flow}");
    }
}

/// A function called from one place returns there through the stack followed at translation (structured
/// constructs); called from two, the stack lives in local memory and returns go through the dispatcher.
#[test]
fn calls_return_to_their_callers_whether_the_stack_is_followed_or_kept() {
    for (name, structured) in [("called_1", true), ("called_2", false)] {
        let control_flow = check(name);
        assert_eq!(control_flow.starts_with("dispatcher"), !structured, "{name}: {control_flow}");
    }
}

/// SM5x's absolute branches (JMP, JMX, JCAL) go to addresses in the code segment, which the kernel's origin
/// places the code in; the wrong origin sends them elsewhere, which both paths refuse.
#[test]
fn absolute_branches_count_from_the_code_segment() {
    check("absolute");
    let mut program = program("absolute");
    assert_eq!(program.kernel.origin, SEGMENT_ORIGIN);
    program.kernel.origin = SEGMENT_ORIGIN + 0x1000;
    let interpreted = interpret(&program.run(), &program.kernel, &program.input());
    assert!(interpreted.unwrap_err().to_string().contains("left the code"));
    let translated = translate_compute(&program.kernel, program.run().block, 0, &GlobalMemory::Device, &[]);
    assert!(matches!(translated, Err(TranslateError::OutsideCode { .. })), "{translated:?}");
}

/// Calls through a function pointer that differs between the lanes of a warp return to their caller: SM5x's
/// PRET and BRX, SM86's CALL through a register.
#[test]
fn calls_through_function_pointers_return_to_their_callers() {
    for name in ["pointer_call_sm5x", "pointer_call_sm86"] {
        check(name);
    }
}

/// LONGJMP unwinds the SM5x stack to PLONGJMP's entry, past the calls and reconvergence entries above it, in
/// the lanes its guard lets through.
#[test]
fn long_jumps_unwind_calls_to_their_plongjmp() {
    check("long_jump");
}

/// SM86's BRXU goes to the offset a uniform register holds from the base its encoded offset gives, as BRX does
/// with a register (ptxas's jump tables), in the lanes its guard lets through; the others go on.
#[test]
fn brxu_jumps_through_a_uniform_register() {
    for name in ["brxu_first", "brxu_second"] {
        check(name);
    }
}

/// A block has Maxwell's whole 48 KiB of shared memory: every word of it written, the top read back across a
/// barrier, on the interpreter, and on the Vulkan device where it offers that much (NVIDIA's does; lavapipe's
/// 32 KiB cannot hold the block, which the reference back end refuses naming the limit: `compute.rs`'s
/// `compute_launches_read_their_qmd`).
#[test]
fn a_block_has_48_kib_of_shared_memory() {
    let program = programs::whole_shared_memory().unwrap();
    let (run, kernel) = (program.run(), &program.kernel);
    let interpreted = interpret(&run, kernel, &program.input()).unwrap();
    assert_eq!(program.words(&interpreted), program.expected, "the interpreter");
    let device = common::device();
    if device.features().max_shared_memory < programs::SHARED_MEMORY_BYTES {
        eprintln!(
            "{} offers {} bytes of shared memory: not dispatched",
            device.name(),
            device.features().max_shared_memory
        );
        return;
    }
    let translated = dispatch(device, &run, kernel, &program.input(), Placement::Device).unwrap();
    assert_eq!(program.words(&translated.buffers), program.expected, "the translation");
}

/// ptxas's calls through a function pointer (`kernels/calls.ptx`), as a raw program whose length is found from
/// its code (as the engines read programs from GPU memory): the two functions lie after the kernel's EXIT, so the
/// length must reach past it to the branch to itself. Each thread's word is 2t + 1000 (even threads) or
/// t + 7 + 1000, on both ISAs, on the interpreter and translated.
#[test]
fn functions_after_the_exit_reached_through_pointers_belong_to_the_program() {
    use tandem_gpu::sass::corpus::Corpus;
    use tandem_gpu::sass::cubin::{Cubin, KernelImage};
    use tandem_gpu::sass::program_length;
    let expected: Vec<u32> = (0..64).map(|t| if t % 2 == 0 { 2 * t } else { t + 7 } + 1000).collect();
    for folder in ["sm53", "sm86"] {
        let cubin = std::fs::read(Corpus::source_tree().join(folder).join("calls.cubin")).unwrap();
        let kernel = Cubin::parse(&cubin).unwrap().kernel(Some("calls")).unwrap();
        let read = |offset: usize, buffer: &mut [u8]| {
            kernel.code.get(offset..offset + buffer.len()).map(|bytes| buffer.copy_from_slice(bytes)).is_some()
        };
        let length = program_length(kernel.isa, read, 0, kernel.code.len()).unwrap();
        let raw = KernelImage { code: kernel.code[..length].to_vec(), ..kernel.clone() };
        let program = programs::plain(raw, expected.clone());
        let run = program.run();
        let interpreted = interpret(&run, &program.kernel, &program.input()).unwrap();
        assert_eq!(program.words(&interpreted), expected, "{folder}: the interpreter");
        let translated =
            dispatch(common::device(), &run, &program.kernel, &program.input(), Placement::Device).unwrap();
        assert_eq!(program.words(&translated.buffers), expected, "{folder}: the translation");
    }
}

/// SUATOM (twice, each thread on a texel of its own: the second returns the texel plus what the first added) and
/// TLDS (a texel fetch by integer coordinates) leave the words the surface's and texture's texels give.
#[test]
fn surface_atomics_and_texel_fetches_leave_their_texels() {
    for name in ["surface_atomics_sm5x", "surface_atomics_sm86", "texel_fetches"] {
        check(name);
    }
}

/// Every program is run by one of the tests above, which `sass::programs` and the coverage report rely on.
/// A constant read through a register past its bank's bound size gives 0 on both paths (the hardware's answer),
/// and inside it the bank's word.
#[test]
fn constant_reads_past_the_bank_give_zero() {
    check("constants_past_the_bank");
}

#[test]
fn every_program_is_checked_here() {
    let checked = [
        "sum_of_evens",
        "neighbours",
        "rounds",
        "half_meet",
        "constants_past_the_bank",
        "called_1",
        "called_2",
        "absolute",
        "pointer_call_sm5x",
        "pointer_call_sm86",
        "long_jump",
        "brxu_first",
        "brxu_second",
        "surface_atomics_sm5x",
        "surface_atomics_sm86",
        "texel_fetches",
    ];
    let names: Vec<String> = programs::all().unwrap().into_iter().map(|p| p.kernel.name).collect();
    assert_eq!(names, checked);
}

/// SM86's CALL.ABS goes to code outside the program (ptxas calls the driver's vprintf with it): both paths refuse
/// it by name rather than take it for a call within the program.
#[test]
fn calls_to_absolute_addresses_are_refused_by_name() {
    use tandem_gpu::sass::cubin::KernelImage;
    use tandem_gpu::sass::{Isa, assemble};
    for call in ["CALL.abs address=0x10 noinc=1", "CALL.abs_reg ra=2 noinc=1"] {
        let code = assemble::sm86(&format!("{call}\nEXIT")).unwrap();
        let kernel =
            KernelImage { name: call.into(), isa: Isa::Sm86, code, constants: Vec::new(), shared_bytes: 0, origin: 0 };
        let program = programs::plain(kernel, Vec::new());
        let interpreted = interpret(&program.run(), &program.kernel, &program.input()).unwrap_err().to_string();
        assert!(interpreted.contains("CALL.ABS"), "{interpreted}");
        let translated = translate_compute(&program.kernel, [32, 1, 1], 0, &GlobalMemory::Device, &[]).unwrap_err();
        assert!(
            matches!(translated, TranslateError::Unimplemented { .. }) && translated.to_string().contains("CALL.ABS")
        );
    }
}

/// LDGSTS and LDSM reach shared memory directly: in a kernel without any (a graphics stage, or a QMD that asks
/// for none) they are refused by name, not translated into an access of memory that was never declared.
#[test]
fn shared_memory_copies_without_shared_memory_are_refused_by_name() {
    use tandem_gpu::sass::cubin::KernelImage;
    use tandem_gpu::sass::{Isa, assemble};
    for (access, named) in [("LDGSTS rd=2 ra=4 size=4 no_ur=1 ur=63", "LDGSTS"), ("LDSM rd=2 ra=4", "LDSM")] {
        let code = assemble::sm86(&format!("{access}\nEXIT")).unwrap();
        let kernel = KernelImage {
            name: access.into(),
            isa: Isa::Sm86,
            code,
            constants: Vec::new(),
            shared_bytes: 0,
            origin: 0,
        };
        let translated = translate_compute(&kernel, [32, 1, 1], 0, &GlobalMemory::Device, &[]).unwrap_err();
        assert!(
            matches!(translated, TranslateError::Unimplemented { .. })
                && translated.to_string().contains(&format!("{named} in a kernel without shared memory")),
            "{translated}"
        );
    }
}

/// Blocks of no thread or of more than 1024, and more local memory a thread than the hardware has, are refused by
/// name before any translation (a QMD's fields allow 65535 x 65535 threads and 16 MiB).
#[test]
fn blocks_and_local_memory_past_the_hardware_are_refused() {
    use tandem_gpu::sass::cubin::KernelImage;
    use tandem_gpu::sass::{Isa, assemble};
    let code = assemble::sm86("EXIT").unwrap();
    let kernel =
        KernelImage { name: "exit".into(), isa: Isa::Sm86, code, constants: Vec::new(), shared_bytes: 0, origin: 0 };
    for (block, local_bytes, named) in [
        ([65535, 65535, 1], 0, "a block of [65535, 65535, 1] threads"),
        ([0, 1, 1], 0, "a block of [0, 1, 1] threads"),
        ([32, 1, 1], 0x10_0000, "0x100000 bytes of local memory"),
    ] {
        let translated = translate_compute(&kernel, block, local_bytes, &GlobalMemory::Device, &[]).unwrap_err();
        assert!(translated.to_string().contains(named), "{translated}");
    }
    assert!(translate_compute(&kernel, [1024, 1, 1], 0x8_0000, &GlobalMemory::Device, &[]).is_ok());
}
