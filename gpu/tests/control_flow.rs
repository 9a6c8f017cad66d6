//! Control flow that ptxas never emits but NVN's compilers may: SM5x loops whose `continue` is PCNT/CONT, with
//! PBK/BRK breaks, diverging across the lanes of two warps, SM86's jump through a uniform register (BRXU), calls
//! through function pointers (which ptxas does emit: SM5x's PRET and BRX, SM86's CALL through a register) and
//! SM5x's long jumps out of calls (PLONGJMP and LONGJMP).
//! The interpreter and the translation (run on the Vulkan device) must both leave each thread the value its
//! code defines.

mod common;

use std::collections::BTreeSet;
use tandem_gpu::sass::Isa;
use tandem_gpu::sass::assemble;
use tandem_gpu::sass::corpus::{BUFFER_BYTES, Parameter, Placement, Run, dispatch, interpret};
use tandem_gpu::sass::cubin::KernelImage;
use tandem_gpu::shader::{GlobalMemory, TranslateError, translate_compute};

/// Thread t: for i from 0 while i < t + 3, stopping at i = 20 (BRK), skipping odd i (CONT), sum += i; the sum
/// at out + 4t. The body ends in an unconditional CONT, as NVN's loops do.
const SUM_OF_EVENS: &str = "
S2R rd=0 sr=0x21
MOV32I rd=1 imm32=0 lanes=15
MOV32I rd=2 imm32=0 lanes=15
IADD32I rd=3 ra=0 imm32=3
PBK offset={done}
loop:
PCNT offset={next}
ISETP.reg pd=0 pq=7 ra=1 rb=3 cmp=6 signed=1
BRK pg=0
ISETP.imm pd=1 pq=7 ra=1 imm20=20 cmp=2 signed=1
BRK pg=1
LOP32I rd=4 ra=1 imm32=1 op=0
ISETP.imm pd=2 pq=7 ra=4 imm20=0 cmp=5 signed=1
CONT pg=2
IADD.reg rd=2 ra=2 rb=1
CONT
next:
IADD32I rd=1 ra=1 imm32=1
BRA offset={loop}
done:
";

/// Stores R2 at out + 4 * R0 (the thread's index) and exits.
const STORE_AND_EXIT: &str = "
SHL.imm rd=6 ra=0 imm20=2
IADD.cbuf rd=6 ra=6 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=7 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=2 ra=6 e=1 size=4
EXIT
";

/// Assembles lines of `isa` with labels (`name:` lines): `{name}` in an offset field is the branch offset to it
/// from the instruction after the branch (SM5x: bytes; SM86: words), `[name]` its byte address in the code and
/// `<name>` its address in a code segment where the code starts at `SEGMENT_ORIGIN` (absolute branches').
fn assemble_with_labels(isa: Isa, source: &str) -> Vec<u8> {
    // The address of instruction k: SM5x's three to a 32-byte bundle, after its scheduling word.
    let address = |k: usize| match isa {
        Isa::Sm5x => (32 * (k / 3) + 8 + 8 * (k % 3)) as i64,
        Isa::Sm86 => 16 * k as i64,
    };
    let offset_field = |from: usize, to: i64| match isa {
        Isa::Sm5x => (to - (address(from) + 8)) & 0xff_ffff,
        Isa::Sm86 => ((to - address(from + 1)) / 4) & 0xffff_ffff_ffff,
    };
    let mut labels = std::collections::HashMap::new();
    let mut lines = Vec::new();
    for line in source.lines().map(str::trim).filter(|line| !line.is_empty()) {
        match line.strip_suffix(':') {
            Some(label) => {
                labels.insert(label.to_string(), address(lines.len()));
            }
            None => lines.push(line.to_string()),
        }
    }
    let resolved: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(k, line)| {
            labels.iter().fold(line.clone(), |line, (label, &to)| {
                line.replace(&format!("{{{label}}}"), &format!("{:#x}", offset_field(k, to)))
                    .replace(&format!("[{label}]"), &format!("{to:#x}"))
                    .replace(&format!("<{label}>"), &format!("{:#x}", to + i64::from(SEGMENT_ORIGIN)))
            })
        })
        .collect();
    match isa {
        Isa::Sm5x => assemble::sm5x(&resolved.join("\n")),
        Isa::Sm86 => assemble::sm86(&resolved.join("\n")),
    }
    .unwrap()
}

/// Thread t: v = t, then the function `f` (v = 3v + 1) called from `calls` places, then +7 where t < 5 and
/// +100 elsewhere (a divergent branch reconverging at SSY's target); v at out + 4t.
fn calls_and_reconvergence(calls: usize) -> String {
    let call = "CAL offset={f}\n".repeat(calls);
    format!(
        "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=0
{call}SSY offset={{joined}}
ISETP.imm pd=0 pq=7 ra=0 imm20=5 cmp=1 signed=1
BRA pg=0 offset={{small}}
IADD32I rd=2 ra=2 imm32=100
SYNC
small:
IADD32I rd=2 ra=2 imm32=7
SYNC
joined:
{STORE_AND_EXIT}f:
ISCADD.reg rd=2 ra=2 rb=2 shift=1
IADD32I rd=2 ra=2 imm32=1
RET
"
    )
}

const THREADS: u32 = 64;

/// Thread t stores t + 100 to shared word t, meets the others at BAR.SYNC, and takes its neighbour's word,
/// (t + 1) % THREADS's: what every thread stored before the barrier.
fn neighbours() -> String {
    format!("S2R rd=0 sr=0x21\nSHL.imm rd=1 ra=0 imm20=2\nIADD32I rd=2 ra=0 imm32=100\n{}", swap_with_neighbour(63))
}

/// Stores R2 to shared word R0 (the thread's index; R1 holds 4 R0), meets the other threads at BAR.SYNC, and
/// loads into R2 the word of thread (R0 + 1) & `mask`.
fn swap_with_neighbour(mask: u32) -> String {
    format!(
        "STS rs=2 ra=1 offset=0 size=4\nBAR mode=0 ra=0 rb=0 a_imm=1 b_imm=1\nIADD32I rd=3 ra=0 imm32=1\n\
         LOP32I rd=3 ra=3 imm32={mask} op=0\nSHL.imm rd=3 ra=3 imm20=2\nLDS rd=2 ra=3 offset=0 size=4\n"
    )
}

/// The kernel's launch: THREADS threads writing a word each at out + 4t.
fn kernel_and_run(name: &str, source: &str) -> (KernelImage, Run) {
    sm_kernel_and_run(name, Isa::Sm5x, assemble_with_labels(Isa::Sm5x, source))
}

/// `kernel_and_run` for code of either instruction set.
fn sm_kernel_and_run(name: &str, isa: Isa, code: Vec<u8>) -> (KernelImage, Run) {
    let kernel = KernelImage { name: name.into(), isa, code, constants: Vec::new(), shared_bytes: 0, origin: 0 };
    let run = Run {
        file: "control_flow".into(),
        entry: name.into(),
        params: vec![Parameter::Buffer { index: 0, offset: 0 }],
        block: [THREADS, 1, 1],
        grid: [1, 1, 1],
        out_starts_as_input: false,
        stride: 4,
        approx: BTreeSet::new(),
        approx16: BTreeSet::new(),
        varies: BTreeSet::new(),
        nan: Vec::new(),
        ..Run::default()
    };
    (kernel, run)
}

/// Each thread's word after the kernel runs on the interpreter and, translated, on the Vulkan device; checks
/// both against `expected`.
fn check_words(kernel: &KernelImage, run: &Run, expected: &[u32]) {
    let input = vec![0u8; BUFFER_BYTES];
    let words = |buffers: &[u8]| -> Vec<u32> {
        buffers[..4 * THREADS as usize].chunks(4).map(|word| u32::from_le_bytes(word.try_into().unwrap())).collect()
    };
    let interpreted = interpret(run, kernel, &input).unwrap();
    assert_eq!(words(&interpreted), expected, "{}: the interpreter", kernel.name);
    let translated = dispatch(common::device(), run, kernel, &input, Placement::Device).unwrap();
    assert_eq!(words(&translated.buffers), expected, "{}: the translation", kernel.name);
}

#[test]
fn continue_and_break_leave_each_thread_its_loop_sum() {
    let (kernel, run) = kernel_and_run("sum_of_evens", &format!("{SUM_OF_EVENS}{STORE_AND_EXIT}"));
    let expected: Vec<u32> = (0..THREADS).map(|t| (0..(t + 3).min(20)).filter(|i| i % 2 == 0).sum()).collect();
    check_words(&kernel, &run, &expected);
}

/// A barrier every thread meets stays where it is in the structured translation (no phase loop), and orders the
/// shared memory stores before it against the loads after it.
#[test]
fn a_barrier_every_thread_meets_orders_shared_memory() {
    let (mut kernel, run) = kernel_and_run("neighbours", &format!("{}{STORE_AND_EXIT}", neighbours()));
    kernel.shared_bytes = 4 * THREADS;
    let expected: Vec<u32> = (0..THREADS).map(|t| (t + 1) % THREADS + 100).collect();
    check_words(&kernel, &run, &expected);
    let translation = translate_compute(&kernel, run.block, 0, &GlobalMemory::Device, &[]).unwrap();
    let control_flow = translation.control_flow.to_string();
    assert!(control_flow.contains("barrier\n") && !control_flow.starts_with("dispatcher"), "{control_flow}");
}

/// Three rounds of: thread t stores t + i to shared word t, a barrier, t takes its neighbour's word into its sum,
/// odd threads add 1000 (a branch that divides the threads, with no barrier in it), a barrier. The loop's count
/// is the same for every thread, so every thread meets both barriers each round.
fn rounds() -> String {
    let before = "
S2R rd=0 sr=0x21
SHL.imm rd=1 ra=0 imm20=2
MOV32I rd=4 imm32=0 lanes=15
MOV32I rd=5 imm32=0 lanes=15
round:
IADD.reg rd=2 ra=0 rb=4
";
    let after = "
IADD.reg rd=5 ra=5 rb=2
LOP32I rd=6 ra=0 imm32=1 op=0
ISETP.imm pd=0 pq=7 ra=6 imm20=0 cmp=2 signed=1
BRA pg=0 offset={even}
IADD32I rd=5 ra=5 imm32=1000
even:
BAR mode=0 ra=0 rb=0 a_imm=1 b_imm=1
IADD32I rd=4 ra=4 imm32=1
ISETP.imm pd=1 pq=7 ra=4 imm20=3 cmp=1 signed=1
BRA pg=1 offset={round}
IADD32I rd=2 ra=5 imm32=0
";
    format!("{before}{}{after}", swap_with_neighbour(63))
}

/// Threads 0-31 store, meet at a barrier and take their neighbour's word (of the 32); threads 32-63 branch past
/// it all. Not every thread meets the barrier: the phase loop takes it (the others do not hold it up).
fn half_meet() -> String {
    let before = "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=100
ISETP.imm pd=0 pq=7 ra=0 imm20=32 cmp=6 signed=1
BRA pg=0 offset={skip}
SHL.imm rd=1 ra=0 imm20=2
";
    format!("{before}{}skip:\n", swap_with_neighbour(31))
}

/// Barriers in a loop whose count every thread shares stay in the structured layout; a barrier behind a branch
/// that divides the threads takes the phase loop. Both compute what the interpreter does.
#[test]
fn barriers_in_uniform_loops_are_structured_and_divided_ones_are_phased() {
    let rounds_expected: Vec<u32> =
        (0..THREADS).map(|t| 3 * ((t + 1) % THREADS) + 3 + if t % 2 == 1 { 3000 } else { 0 }).collect();
    let half: Vec<u32> = (0..THREADS).map(|t| if t < 32 { (t + 1) % 32 + 100 } else { t + 100 }).collect();
    for (name, source, expected, structured) in
        [("rounds", rounds(), rounds_expected, true), ("half_meet", half_meet(), half, false)]
    {
        let (mut kernel, run) = kernel_and_run(name, &format!("{source}{STORE_AND_EXIT}"));
        kernel.shared_bytes = 4 * THREADS;
        check_words(&kernel, &run, &expected);
        let translation = translate_compute(&kernel, run.block, 0, &GlobalMemory::Device, &[]).unwrap();
        let control_flow = translation.control_flow.to_string();
        assert_eq!(
            control_flow.starts_with("dispatcher: a barrier not every thread may meet"),
            !structured,
            "{name}: {control_flow}"
        );
    }
}

/// A function called from one place returns there through the stack followed at translation (structured
/// constructs); called from two, the stack lives in local memory and returns go through the dispatcher.
#[test]
fn calls_return_to_their_callers_whether_the_stack_is_followed_or_kept() {
    for (calls, structured) in [(1, true), (2, false)] {
        let (kernel, run) = kernel_and_run(&format!("called_{calls}"), &calls_and_reconvergence(calls));
        let expected: Vec<u32> = (0..THREADS)
            .map(|t| {
                let called = (0..calls).fold(t, |v, _| 3 * v + 1);
                called + if t < 5 { 7 } else { 100 }
            })
            .collect();
        check_words(&kernel, &run, &expected);
        let translation = translate_compute(&kernel, run.block, 0, &GlobalMemory::Device, &[]).unwrap();
        let control_flow = translation.control_flow.to_string();
        assert_eq!(control_flow.starts_with("dispatcher"), !structured, "{calls} calls: {control_flow}");
    }
}

/// Where the code of `ABSOLUTE_BRANCHES` starts in its code segment (the program region).
const SEGMENT_ORIGIN: u32 = 0x4060;

/// Thread t: v = t, then f (v = 3v + 1) through JCAL; then + 7 where t < 5 (JMP) and + 100 elsewhere, which
/// JMX leaves (its register plus its offset: `store`'s address); v at out + 4t. Every target is an address in
/// the code segment.
const ABSOLUTE_BRANCHES: &str = "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=0
JCAL address=<f> inc=1
ISETP.imm pd=0 pq=7 ra=0 imm20=5 cmp=1 signed=1
JMP pg=0 address=<small> cc_test=15
IADD32I rd=2 ra=2 imm32=100
MOV32I rd=3 imm32=<store> lanes=15
IADD32I rd=3 ra=3 imm32=0xfffffff0
JMX ra=3 offset=0x10 cc_test=15
small:
IADD32I rd=2 ra=2 imm32=7
store:
SHL.imm rd=6 ra=0 imm20=2
IADD.cbuf rd=6 ra=6 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=7 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=2 ra=6 e=1 size=4
EXIT
f:
ISCADD.reg rd=2 ra=2 rb=2 shift=1
IADD32I rd=2 ra=2 imm32=1
RET
";

/// SM5x's absolute branches (JMP, JMX, JCAL) go to addresses in the code segment, which the kernel's origin
/// places the code in; the wrong origin sends them elsewhere, which both paths refuse.
#[test]
fn absolute_branches_count_from_the_code_segment() {
    let (mut kernel, run) = kernel_and_run("absolute", ABSOLUTE_BRANCHES);
    kernel.origin = SEGMENT_ORIGIN;
    let expected: Vec<u32> = (0..THREADS).map(|t| 3 * t + 1 + if t < 5 { 7 } else { 100 }).collect();
    check_words(&kernel, &run, &expected);
    kernel.origin = SEGMENT_ORIGIN + 0x1000;
    let interpreted = interpret(&run, &kernel, &vec![0u8; BUFFER_BYTES]);
    assert!(interpreted.unwrap_err().to_string().contains("left the code"));
    let translated = translate_compute(&kernel, run.block, 0, &GlobalMemory::Device, &[]);
    assert!(matches!(translated, Err(TranslateError::OutsideCode { .. })), "{translated:?}");
}

/// Thread t: v = t, then a call through a function pointer (`even`: 3v, or `odd`: v + 7, by t's parity), then
/// + 1000; v at out + 4t. As ptxas calls through a pointer on SM5x: PRET pushes the return address and BRX
/// jumps (here from the first instruction's address, 8: the pointer is the callee's address less 8).
const CALL_THROUGH_POINTER_SM5X: &str = "
first:
S2R rd=0 sr=0x21
LOP32I rd=4 ra=0 imm32=1 op=0
ISETP.imm pd=0 pq=7 ra=4 imm20=0 cmp=5 signed=1
MOV32I rd=3 imm32=[even] lanes=15
MOV32I rd=3 imm32=[odd] lanes=15 pg=0
IADD32I rd=3 ra=3 imm32=0xfffffff8
IADD32I rd=2 ra=0 imm32=0
PRET offset={back} inc=1
BRX ra=3 offset={first} cc_test=15
back:
IADD32I rd=2 ra=2 imm32=1000
BRA offset={store}
even:
ISCADD.reg rd=2 ra=2 rb=2 shift=1
RET
odd:
IADD32I rd=2 ra=2 imm32=7
RET
store:
";

/// The same call on SM86, as ptxas writes it: the caller puts the return address in R20:R21 for the callee's
/// RET, and CALL goes through the pointer in R6.
const CALL_THROUGH_POINTER_SM86: &str = "
first:
S2R rd=0 sr=0x21
LOP3.imm rd=4 ra=0 imm32=1 rc=255 lut=0xc0 pd=7
ISETP.imm pd=0 pq=7 ra=4 imm32=0 bop_ex=41
MOV.imm rd=6 imm32=[even] lanes=15
MOV.imm rd=6 imm32=[odd] lanes=15 pg=0
MOV.imm rd=20 imm32=[back] lanes=15
MOV.imm rd=21 imm32=0 lanes=15
MOV.reg rd=2 rb=0 lanes=15
CALL.reg ra=6 offset={first} noinc=1
back:
IADD3.imm rd=2 ra=2 imm32=1000 rc=255 pd=7 pq=7
BRA offset={store}
even:
IMAD.imm rd=2 ra=2 imm32=3 rc=255 pd=7
RET ra=20 offset={first} nodec=1
odd:
IADD3.imm rd=2 ra=2 imm32=7 rc=255 pd=7 pq=7
RET ra=20 offset={first} nodec=1
store:
MOV.imm rd=18 imm32=4 lanes=15
IMAD.WIDE.cbuf_c rd=20 ra=0 rc=18 cb_offset=0x58 pd=7
STG ra=20 rb=2 offset=0 e=1 size=4 ur=4 no_ur=1 cache=1
EXIT
";

/// Calls through a function pointer that differs between the lanes of a warp return to their caller: SM5x's
/// PRET and BRX, SM86's CALL through a register.
#[test]
fn calls_through_function_pointers_return_to_their_callers() {
    let expected: Vec<u32> = (0..THREADS).map(|t| if t % 2 == 0 { 3 * t } else { t + 7 } + 1000).collect();
    let sm5x = format!("{CALL_THROUGH_POINTER_SM5X}{STORE_AND_EXIT}");
    for (isa, source) in [(Isa::Sm5x, sm5x.as_str()), (Isa::Sm86, CALL_THROUGH_POINTER_SM86)] {
        let (kernel, run) = sm_kernel_and_run(&format!("pointer_call_{isa:?}"), isa, assemble_with_labels(isa, source));
        check_words(&kernel, &run, &expected);
    }
}

/// Thread t: v = t; PLONGJMP to `escape`, then f, which calls g inside an SSY; g LONGJMPs where t < 5 (through
/// g's call, the SSY and f's call: v + 5000) and otherwise returns (v + 3, + 20 in f, + 100 after the call).
const LONG_JUMP_OUT_OF_CALLS: &str = "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=0
PLONGJMP offset={escape}
CAL offset={f} inc=1
IADD32I rd=2 ra=2 imm32=100
BRA offset={store}
escape:
IADD32I rd=2 ra=2 imm32=5000
BRA offset={store}
f:
SSY offset={f_join}
CAL offset={g} inc=1
IADD32I rd=2 ra=2 imm32=20
SYNC
f_join:
RET
g:
ISETP.imm pd=0 pq=7 ra=0 imm20=5 cmp=1 signed=1
LONGJMP pg=0
IADD32I rd=2 ra=2 imm32=3
RET
store:
";

/// LONGJMP unwinds the SM5x stack to PLONGJMP's entry, past the calls and reconvergence entries above it, in
/// the lanes its guard lets through.
#[test]
fn long_jumps_unwind_calls_to_their_plongjmp() {
    let source = format!("{LONG_JUMP_OUT_OF_CALLS}{STORE_AND_EXIT}");
    let (kernel, run) = kernel_and_run("long_jump", &source);
    let expected: Vec<u32> = (0..THREADS).map(|t| if t < 5 { t + 5000 } else { t + 123 }).collect();
    check_words(&kernel, &run, &expected);
}

/// Thread t: R2 = 333 where t >= 5; where t < 5, a BRXU through UR4 (`target`'s address: the encoded offset takes
/// the branch back to the code's start) to the code that makes R2 111 (`first`) or 222 (`second`). R2 at out + 4t.
fn jump_through_uniform_register(target: &str) -> String {
    format!(
        "
origin:
S2R rd=0 sr=0x21
UMOV.imm urd=4 imm32=[{target}]
ISETP.imm pd=0 pq=7 ra=0 imm32=5 bop_ex=9
BRXU pg=0 ur=4 offset={{origin}}
MOV.imm rd=2 imm32=333 lanes=15
BRA offset={{store}}
first:
MOV.imm rd=2 imm32=111 lanes=15
BRA offset={{store}}
second:
MOV.imm rd=2 imm32=222 lanes=15
BRA offset={{store}}
store:
MOV.imm rd=18 imm32=4 lanes=15
IMAD.WIDE.cbuf_c rd=20 ra=0 rc=18 cb_offset=0x58 pd=7
STG ra=20 rb=2 offset=0 e=1 size=4 ur=4 no_ur=1 cache=1
EXIT
"
    )
}

/// SM86's BRXU goes to the offset a uniform register holds from the base its encoded offset gives, as BRX does
/// with a register (ptxas's jump tables), in the lanes its guard lets through; the others go on.
#[test]
fn brxu_jumps_through_a_uniform_register() {
    for (target, value) in [("first", 111), ("second", 222)] {
        let code = assemble_with_labels(Isa::Sm86, &jump_through_uniform_register(target));
        let (kernel, run) = sm_kernel_and_run(&format!("brxu_{target}"), Isa::Sm86, code);
        let expected: Vec<u32> = (0..THREADS).map(|t| if t < 5 { value } else { 333 }).collect();
        check_words(&kernel, &run, &expected);
    }
}
