//! Random Linux system call sequences: a program that loads arguments into x0-x5 and calls `svc #0` with x8 a
//! number from the calls that stay inside the process (threads, futexes, signals, memory, time), many times over,
//! run by the Linux personality on the reference interpreter. Whatever the numbers and arguments, the personality
//! answers, or stops with a report: never a panic. Threads made by clone run the rest of the sequence too, so the
//! scheduler, futex waits and wakes and signal delivery meet each other in every order.
//!
//! Left out, so that a case touches nothing outside: files, fork, exec, clone3 (its arguments are in memory),
//! signals to other processes, and the signals other processes send (a handler for one would make a wait wait on
//! the host).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tandem_hle::linux::{LinuxOptions, LinuxProcess};
use tandem_reference::Interpreter;

/// The program the sequences are written into: hello's static Linux twin, its code replaced from its entry.
const CARRIER: &[u8] = include_bytes!("../../tests/programs/bin/hello.linux");
/// Bytes per call: four MOVZ/MOVK per argument and for x8, then the SVC.
const CALL_SIZE: usize = (7 * 4 + 1) * 4;

/// The system calls a sequence makes (aarch64 numbers).
const CALLS: &[u64] = &[
    93, 94, 96, 98, 101, 113, 115, 124, 129, 130, 131, 132, 133, 134, 135, 137, 139, 172, 178, 214, 215, 216, 220, 222,
    226, 233, 278,
];
/// Signals no other process sends the program (not in the personality's forwarded set).
const SIGNALS: &[u64] = &[4, 5, 6, 7, 8, 9, 11, 16, 19, 21, 22, 24, 25, 26, 27, 29, 30, 31, 34, 40, 64];
/// glibc's pthread_create flags.
const THREAD_FLAGS: u64 = 0x3d_0f00;

#[derive(Arbitrary, Debug)]
enum Argument {
    Small(u8),
    /// Somewhere in the carrier's writable segment (its data and bss).
    Data(u16),
    Signal(u8),
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
struct Call {
    number: u8,
    arguments: [Argument; 6],
}

/// Where the carrier's code starts in the file, how many bytes it has there, and its writable segment.
struct Layout {
    entry_offset: usize,
    room: usize,
    data: (u64, u64),
}

fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let word = |at: usize, size: usize| {
            CARRIER[at..at + size].iter().rev().fold(0u64, |value, &byte| value << 8 | u64::from(byte))
        };
        let (entry, table, count) = (word(0x18, 8), word(0x20, 8) as usize, word(0x38, 2) as usize);
        let (mut code, mut data) = (None, (0, 0));
        for header in (0..count).map(|index| table + index * 56) {
            let (kind, flags, offset, address) =
                (word(header, 4), word(header + 4, 4), word(header + 8, 8), word(header + 16, 8));
            let (file_size, memory_size) = (word(header + 32, 8), word(header + 40, 8));
            if kind != 1 {
                continue;
            }
            if flags & 1 != 0 && (address..address + file_size).contains(&entry) {
                code = Some(((entry - address + offset) as usize, (address + file_size - entry) as usize));
            } else if flags & 2 != 0 {
                data = (address, memory_size);
            }
        }
        let (entry_offset, room) = code.expect("the carrier's entry lies in an executable segment");
        Layout { entry_offset, room, data }
    })
}

impl Argument {
    /// The argument's value for call `number` as argument `index`: kill's and tgkill's process is always this
    /// one, clone makes threads, mmap maps no file, signal numbers come from `SIGNALS` where the call takes one.
    fn value(&self, number: u64, index: usize) -> u64 {
        let (base, size) = layout().data;
        let raw = match *self {
            Argument::Small(value) => u64::from(value),
            Argument::Data(offset) => base + (u64::from(offset) * 8) % size.max(8),
            Argument::Signal(pick) => SIGNALS[usize::from(pick) % SIGNALS.len()],
            Argument::Raw(value) => value,
        };
        let signal = || SIGNALS[(raw % SIGNALS.len() as u64) as usize];
        match (number, index) {
            (129, 0) | (131, 0) => 1000,
            (129, 1) | (130, 1) | (131, 2) | (134, 0) => signal(),
            (220, 0) => THREAD_FLAGS,
            (222, 3) => raw | 0x20, // MAP_ANONYMOUS
            (222, 4) => u64::MAX,   // fd -1
            _ => raw,
        }
    }
}

fn movz_movk(register: u32, value: u64) -> [u32; 4] {
    std::array::from_fn(|half| {
        let opcode = if half == 0 { 0xd280_0000 } else { 0xf280_0000 };
        opcode | (half as u32) << 21 | ((value >> (16 * half)) as u32 & 0xffff) << 5 | register
    })
}

fuzz_target!(|calls: Vec<Call>| {
    let layout = layout();
    let mut code = Vec::new();
    for call in calls.iter().take(layout.room / CALL_SIZE - 1) {
        let number = CALLS[usize::from(call.number) % CALLS.len()];
        for (register, argument) in call.arguments.iter().enumerate() {
            code.extend(movz_movk(register as u32, argument.value(number, register)));
        }
        code.extend(movz_movk(8, number));
        code.push(0xd400_0001);
    }
    code.extend(movz_movk(0, 0));
    code.extend(movz_movk(8, 94)); // exit_group(0)
    code.push(0xd400_0001);
    let mut image = CARRIER.to_vec();
    for (index, word) in code.iter().enumerate() {
        let at = layout.entry_offset + 4 * index;
        image[at..at + 4].copy_from_slice(&word.to_le_bytes());
    }
    let file = std::env::temp_dir().join(format!("tandem-fuzz-linux-{}", std::process::id()));
    std::fs::write(&file, &image).expect("the carrier is written");
    let options = LinuxOptions { args: vec!["fuzz".into()], max_instructions: Some(100_000), ..Default::default() };
    let mut process = LinuxProcess::new(&file, options).expect("the carrier loads");
    let _ = std::fs::remove_file(&file);
    let _ = process.run(&mut Interpreter::default());
});
