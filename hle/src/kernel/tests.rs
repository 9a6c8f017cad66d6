use super::*;
use crate::loader::npdm;
use tandem_reference::Interpreter;

fn hello_exefs(npdm: Option<npdm::Npdm>) -> Program {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin/hello.nro");
    let mut program = Program::open(&path, None).expect("the test program loads");
    program.npdm = npdm;
    program
}

/// Descriptor "EnableSystemCalls", index 0 (SVCs 0x00-0x17), allowing exactly SetHeapSize and ExitProcess.
const ONLY_HEAP_AND_EXIT: u32 = 0b1111 | (1 << 0x01 | 1 << 0x07) << 5;

#[test]
fn svcs_outside_the_npdm_list_stop_the_program() {
    let npdm = npdm::read("main.npdm", &npdm::tests::build(&[], &[ONLY_HEAP_AND_EXIT])).unwrap();
    let mut kernel = Kernel::new(&hello_exefs(Some(npdm)), Box::new(|_| {})).unwrap();
    match kernel.run(&mut Interpreter::default()) {
        RunOutcome::Stopped(report) => {
            // hello's first SVC is OutputDebugString (0x27); the report points at the SVC instruction itself.
            assert_eq!(report.reason, StopReason::SvcNotAllowed(0x27));
            assert_eq!(report.word.map(|w| w & 0xffe0_001f), Some(0xd400_0001), "an SVC instruction");
            assert_eq!(report.thread, Some(FIRST_THREAD_ID));
        }
        outcome => panic!("the program ran an SVC its NPDM does not allow: {outcome:?}"),
    }
}

/// The host's interrupt flag (the window closing) ends a run between rounds of the cores, with nothing retired
/// once it is set.
#[test]
fn an_interrupt_ends_the_run() {
    let mut kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    kernel.set_interrupt(flag);
    assert!(matches!(kernel.run(&mut Interpreter::default()), RunOutcome::Interrupted));
    assert_eq!(kernel.retired(), 0);
}

#[test]
fn the_main_thread_gets_the_npdm_stack_size_priority_and_a_handle() {
    let npdm = npdm::read("main.npdm", &npdm::tests::build(&[], &[])).unwrap();
    let stack_size = u64::from(npdm.main_thread_stack_size);
    let kernel = Kernel::new(&hello_exefs(Some(npdm)), Box::new(|_| {})).unwrap();
    let main = &kernel.threads[&FIRST_THREAD_ID];
    assert_eq!(main.cpu.sp, STACK_REGION.base + stack_size);
    let info = kernel.map.query(STACK_REGION.base);
    assert_eq!((info.base, info.size, info.state), (STACK_REGION.base, stack_size, MemoryState::Stack));
    assert_eq!(kernel.scheduler.priority(FIRST_THREAD_ID), 44);
    let handle = main.cpu.x[1] as u32;
    assert_eq!(kernel.handles.get(handle), Some(KernelObject::Thread(FIRST_THREAD_ID)));
    // The handle also sits in the thread-local region, which QueryMemory reports as such.
    let mut word = [0; 4];
    kernel.memory.read_privileged(main.tls + TLS_THREAD_HANDLE, &mut word).unwrap();
    assert_eq!(u32::from_le_bytes(word), handle);
    assert_eq!(kernel.map.query(main.tls).state, MemoryState::ThreadLocal);
}

#[test]
fn modules_are_placed_from_the_code_base_with_segment_permissions() {
    let kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
    let module = &kernel.modules[0];
    assert_eq!(module.base, CODE_BASE);
    assert_eq!(kernel.entry_point(), CODE_BASE);
    assert_eq!(kernel.memory.perm_at(CODE_BASE), Some(Perm::RX));
    assert_eq!(kernel.map.query(CODE_BASE).state, MemoryState::Code);
    let data = kernel.memory.regions().into_iter().find(|r| r.perm == Perm::RW && r.address < STACK_REGION.base);
    assert!(data.is_some_and(|r| kernel.map.query(r.address).state == MemoryState::CodeData));
}

#[test]
fn without_an_npdm_the_process_gets_hbloaders_limits() {
    let kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
    assert_eq!(kernel.limits.core_mask, 0b111, "cores 0-2");
    assert_eq!(kernel.limits.priority_mask, range_mask(28, 59));
    assert_eq!(kernel.scheduler.priority(FIRST_THREAD_ID), 44);
    // hbloader's table has 512 slots, and Horizon fills a table from its last slot.
    assert_eq!(kernel.threads[&FIRST_THREAD_ID].cpu.x[1], 1 << 15 | 511);
}

#[test]
fn tls_regions_are_shared_eight_to_a_page_and_given_back() {
    let mut kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
    // The process's own region comes first, then the main thread's.
    let (first, main_tls) = (kernel.process_local_region, kernel.threads[&FIRST_THREAD_ID].tls);
    assert_eq!(main_tls, first + TLS_SIZE);
    let regions: Vec<u64> = (0..7).map(|_| kernel.allocate_tls().unwrap()).collect();
    assert_eq!(regions[0], main_tls + TLS_SIZE);
    assert_eq!(regions[6], first + PAGE_SIZE, "the ninth region starts a new page");
    kernel.free_tls(regions[6]);
    assert_eq!(kernel.memory.perm_at(regions[6]), None, "a page with no region in use goes");
    assert_eq!(kernel.map.query(regions[6]).state, MemoryState::Free);
    kernel.free_tls(regions[0]);
    assert_eq!(kernel.memory.perm_at(regions[0]), Some(Perm::RW), "the main thread's page stays");
}

/// ThreadInfo descriptor: priorities 28-59 on cores `min..=max`.
fn thread_info(min_core: u32, max_core: u32) -> u32 {
    0b0111 | 59 << 4 | 28 << 10 | min_core << 16 | max_core << 24
}

#[test]
fn cores_come_from_the_npdm_within_the_platform() {
    let npdm = |cores| npdm::read("main.npdm", &npdm::tests::build(&[], &[cores])).unwrap();
    let six_cores = || hello_exefs(Some(npdm(thread_info(0, 5))));
    let switch = Kernel::with_platform(&six_cores(), Platform::SWITCH, Box::new(|_| {})).unwrap();
    assert_eq!(switch.limits.core_mask, 0b1111, "a Switch has four cores");
    let switch_2 = Kernel::with_platform(&six_cores(), Platform::SWITCH_2, Box::new(|_| {})).unwrap();
    assert_eq!(switch_2.limits.core_mask, 0b11_1111);
    let none = hello_exefs(Some(npdm(thread_info(4, 7))));
    assert!(matches!(Kernel::new(&none, Box::new(|_| {})), Err(KernelError::NoCores { .. })));
    // A main thread stack past the stack region (it would cover the thread-local area) is refused.
    let mut huge_stack = npdm(thread_info(0, 3));
    huge_stack.main_thread_stack_size = u32::MAX;
    let error = Kernel::new(&hello_exefs(Some(huge_stack)), Box::new(|_| {})).err().expect("refused");
    assert!(matches!(error, KernelError::StackTooLarge { .. }), "{error}");
    assert_eq!(Platform::SWITCH.preemption_priority(2), 59);
    assert_eq!(Platform::SWITCH.preemption_priority(3), 63);
    assert_eq!(Platform::SWITCH_2.preemption_priority(7), 63);
}

/// Runs a committed test program on `platform` and returns what it printed.
fn run_program(name: &str, platform: Platform) -> (RunOutcome, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin").join(name);
    let program = Program::open(&path, None).expect("the test program loads");
    let text = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = text.clone();
    let mut kernel =
        Kernel::with_platform(&program, platform, Box::new(move |bytes| sink.borrow_mut().extend_from_slice(bytes)))
            .unwrap();
    let outcome = kernel.run(&mut Interpreter::default());
    let text = String::from_utf8_lossy(&text.borrow()).into_owned();
    (outcome, text)
}

#[test]
fn the_thread_test_program_passes_on_eight_cores_too() {
    let (outcome, text) = run_program("threads.nro", Platform::SWITCH_2);
    assert!(matches!(outcome, RunOutcome::Exited), "{outcome:?}\n{text}");
    assert!(text.ends_with("threads: 0 failures\n"), "{text}");
}

#[test]
fn a_deadlock_names_every_thread_and_what_it_waits_for() {
    let (outcome, _) = run_program("crash_deadlock.nro", Platform::SWITCH);
    let RunOutcome::Stopped(report) = outcome else { panic!("the program cannot exit") };
    let StopReason::AllThreadsBlocked(threads) = &report.reason else { panic!("{report}") };
    assert_eq!(threads.len(), 2, "{threads:?}");
    assert!(threads[0].starts_with("thread 1 ") && threads[0].contains("held by thread 2"), "{threads:?}");
    assert!(threads[1].starts_with("thread 2 ") && threads[1].contains("held by thread 1"), "{threads:?}");
    assert_eq!(report.word.map(|w| w & 0xffe0_001f), Some(0xd400_0001), "the report points at the SVC");
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// The SVCs the kernel implements (ExitProcess and Break end the run; they are fine too).
    const SVCS: &[u16] = &[
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x16,
        0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x24, 0x25, 0x26, 0x27, 0x29, 0x32, 0x33, 0x34, 0x35, 0x45,
    ];

    /// Register values a hostile or buggy program might pass: handles (pseudo, the first few the table hands
    /// out, forged), addresses (mapped, misaligned, unmapped, past the address space), sizes, special values.
    fn argument() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            0u64..8,
            Just(u64::MAX),
            Just(u64::MAX - 1),
            Just(u64::MAX - 2),
            Just(0xffff_8000),
            Just(0xffff_8001),
            (1u64..12, 500u64..512).prop_map(|(linear, index)| linear << 15 | index),
            Just(0x4000_81ff),
            Just(address_space::HEAP_REGION.base),
            Just(STACK_REGION.base + 0x8_0000),
            Just(STACK_REGION.base + 0x10_0000),
            Just(TLS_AREA.base),
            Just(TLS_AREA.base + 2),
            Just(CODE_BASE),
            Just(1 << 39),
            (0u64..0x40).prop_map(|pages| pages * PAGE_SIZE),
            Just(0x20_0000),
            Just(1_000_000),
            any::<u64>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any sequence of implemented SVCs with any arguments, from whichever thread can run: no panic, and every
        /// SVC either returns, blocks the caller or ends the run.
        #[test]
        fn random_svcs_never_panic(
            calls in proptest::collection::vec((proptest::sample::select(SVCS), [argument(), argument(), argument(),
                argument(), argument(), argument()]), 1..48),
        ) {
            let mut kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
            for (number, arguments) in calls {
                let Some(caller) = kernel.threads.values().find(|t| t.is_schedulable()).map(|t| t.id) else { break };
                kernel.current = Some((0, caller));
                kernel.thread_mut(caller).cpu.x[..6].copy_from_slice(&arguments);
                if kernel.dispatch_svc(number).is_some() {
                    break;
                }
                kernel.fire_timers();
                kernel.scheduler.update(kernel.tick());
                kernel.now += QUANTUM;
            }
            for thread in kernel.threads.values() {
                kernel.describe_wait(thread);
            }
            kernel.state_hash();
        }
    }
}

/// hello's NRO with its code replaced from offset 0x80 by `code` (the branch at offset 0 goes there).
fn program_running(code: &[u32], npdm: Option<npdm::Npdm>) -> Program {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin/hello.nro");
    let mut image = std::fs::read(path).unwrap();
    for (i, word) in code.iter().enumerate() {
        image[0x80 + 4 * i..0x84 + 4 * i].copy_from_slice(&word.to_le_bytes());
    }
    image[0..4].copy_from_slice(&(0x1400_0000u32 | (0x80 / 4)).to_le_bytes());
    let mut program = Program::from_bytes("patched hello.nro", &image).unwrap().unwrap();
    program.npdm = npdm;
    program
}

/// MOVZ and three MOVKs: `register` = `value`.
fn load(register: u32, value: u64) -> [u32; 4] {
    std::array::from_fn(|half| {
        let opcode = if half == 0 { 0xd280_0000 } else { 0xf280_0000 };
        opcode | (half as u32) << 21 | ((value >> (16 * half)) as u32 & 0xffff) << 5 | register
    })
}

const fn svc(number: u32) -> u32 {
    0xd400_0001 | number << 5
}

/// Map four pages of the alias region, store into the first, unmap the first two: QueryMemory then sees two free
/// pages and two read-write Normal pages. Without a system resource (a homebrew NRO has none) Horizon refuses.
#[test]
fn physical_memory_maps_into_the_alias_region_with_a_system_resource() {
    let base = address_space::ALIAS_REGION.base;
    let mut code = Vec::new();
    code.extend(load(0, base));
    code.extend(load(1, 0x4000));
    code.extend([svc(0x2c), 0xaa00_03f3]); // MapPhysicalMemory; mov x19, x0
    code.extend(load(2, 0x1234));
    code.extend(load(3, base + 0x3000));
    code.push(0xf900_0062); // str x2, [x3]
    // The second page read-only: UnmapPhysicalMemory takes Normal memory of any permission.
    code.extend(load(0, base + 0x1000));
    code.extend(load(1, 0x1000));
    code.extend(load(2, 1));
    code.extend([svc(0x02), 0xaa00_03f5]); // SetMemoryPermission; mov x21, x0
    code.extend(load(0, base));
    code.extend(load(1, 0x2000));
    code.extend([svc(0x2d), 0xaa00_03f4, svc(0x07)]); // UnmapPhysicalMemory; mov x20, x0; ExitProcess

    // EnableSystemCalls: SetMemoryPermission and ExitProcess (0x02, 0x07), then Map/UnmapPhysicalMemory (0x2c,
    // 0x2d: index 1, bits 20 and 21).
    let allowed = [0b1111 | (1 << 2 | 1 << 7) << 5, 0b1111 | (1 << 20 | 1 << 21) << 5 | 1 << 29];
    let npdm = npdm::read("main.npdm", &npdm::tests::build(&[], &allowed)).unwrap();
    let mut kernel = Kernel::new(&program_running(&code, Some(npdm)), Box::new(|_| {})).unwrap();
    assert!(matches!(kernel.run(&mut Interpreter::default()), RunOutcome::Exited));
    let registers = &kernel.threads[&FIRST_THREAD_ID].cpu.x;
    assert_eq!((registers[19], registers[21], registers[20]), (0, 0, 0), "the three calls succeed");
    let (unmapped, mapped) = (kernel.map.query(base), kernel.map.query(base + 0x2000));
    assert_eq!((unmapped.state, unmapped.base + unmapped.size), (MemoryState::Free, base + 0x2000));
    assert_eq!((mapped.state, mapped.perm, mapped.size), (MemoryState::Heap, Perm::RW, 0x2000));
    assert_eq!(kernel.memory.read_le(base + 0x3000, 8).unwrap(), 0x1234);

    let mut refused: Vec<u32> = code[..10].to_vec(); // the MapPhysicalMemory call and its mov
    refused.push(svc(0x07));
    let mut kernel = Kernel::new(&program_running(&refused, None), Box::new(|_| {})).unwrap();
    assert!(matches!(kernel.run(&mut Interpreter::default()), RunOutcome::Exited));
    let registers = &kernel.threads[&FIRST_THREAD_ID].cpu.x;
    assert_eq!(registers[19], svc::KernelResult::InvalidState as u64, "no system resource");
}

/// A thread that sleeps for centuries (the fuzzer's find: SleepThread with an enormous timeout) lets guest time
/// jump to its wake-up at once: the vertical blanks in between cost nothing (hid samples only the last lifo's
/// worth), so the program exits promptly.
#[test]
fn sleeping_for_centuries_is_an_instant_jump() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/bin/hello.nro");
    let mut image = std::fs::read(path).unwrap();
    const CODE_START: usize = 0x80;
    let nanoseconds: u64 = 0x7fff_ffff_ffff_ffff;
    let mut code: Vec<u32> = (0..4)
        .map(|half| {
            let opcode = if half == 0 { 0xd280_0000 } else { 0xf280_0000 };
            opcode | half << 21 | ((nanoseconds >> (16 * half)) as u32 & 0xffff) << 5
        })
        .collect();
    code.push(0xd400_0001 | 0x0b << 5); // SleepThread(x0)
    code.push(0xd400_0001 | 0x07 << 5); // ExitProcess
    for (i, word) in code.iter().enumerate() {
        image[CODE_START + 4 * i..CODE_START + 4 * i + 4].copy_from_slice(&word.to_le_bytes());
    }
    image[0..4].copy_from_slice(&(0x1400_0000u32 | (CODE_START / 4) as u32).to_le_bytes()); // b CODE_START
    let program = Program::from_bytes("sleeper.nro", &image).unwrap().unwrap();
    let mut kernel = Kernel::new(&program, Box::new(|_| {})).unwrap();
    let outcome = kernel.run(&mut Interpreter::default());
    assert!(matches!(outcome, RunOutcome::Exited), "{outcome:?}");
    assert!(kernel.tick() >= nanoseconds / 1_000_000_000 * 19_200_000, "guest time jumped to the wake-up");
}

/// Thread-local regions skip a page of their area that the program mapped memory into (it lies in the stack
/// region, where MapMemory and views may go), and a thread's exit leaves such a page mapped.
#[test]
fn thread_local_regions_skip_pages_the_program_mapped() {
    let mut kernel = Kernel::new(&hello_exefs(None), Box::new(|_| {})).unwrap();
    let per_page = (PAGE_SIZE / TLS_SIZE) as usize;
    // The main thread holds slot 0; the program's own page sits where slots 8-15 would be.
    let taken = TLS_AREA.base + PAGE_SIZE;
    kernel.memory.map(taken, PAGE_SIZE, Perm::RW).unwrap();
    kernel.map.insert(taken, PAGE_SIZE, MemoryState::Shared, Perm::RW);
    kernel.memory.write_privileged(taken, &[0x5a; 16]).unwrap();
    let regions: Vec<u64> = (1..2 * per_page).map(|_| kernel.allocate_tls().unwrap()).collect();
    assert!(regions.iter().all(|&region| region < taken || region >= taken + PAGE_SIZE), "{regions:x?}");
    assert!(regions.iter().any(|&region| region >= taken + PAGE_SIZE), "past the page: {regions:x?}");
    for region in regions {
        kernel.free_tls(region);
    }
    let mut kept = [0; 16];
    kernel.memory.read_privileged(taken, &mut kept).unwrap();
    assert_eq!((kernel.map.query(taken).state, kept), (MemoryState::Shared, [0x5a; 16]));
}
