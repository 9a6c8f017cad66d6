//! Random SVC sequences: a program that loads arguments into x0-x5 and calls an SVC, many times over, run by the
//! kernel on the reference interpreter. Whatever the numbers and arguments, the kernel answers with a result code or
//! stops with a report: never a panic.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tandem_hle::kernel::Kernel;
use tandem_hle::program::Program;
use tandem_reference::Interpreter;

/// The program the sequences are written into: hello's NRO, its code replaced from offset 0x80.
const CARRIER: &[u8] = include_bytes!("../../tests/programs/bin/hello.nro");
const CODE_START: usize = 0x80;
/// Bytes per call: four MOVZ/MOVK per argument, then the SVC.
const CALL_SIZE: usize = (6 * 4 + 1) * 4;

#[derive(Arbitrary, Debug)]
enum Argument {
    Small(u8),
    /// A handle as the table makes them (linear id, index from the top), or a pseudo-handle.
    Handle(u8),
    /// Somewhere in a region the program has (code, heap, stack, thread-local area, shared memory's, none).
    Address(u8, u16),
    Raw(u64),
}

impl Argument {
    fn value(&self) -> u64 {
        match *self {
            Argument::Small(v) => u64::from(v),
            Argument::Handle(k) => match k % 10 {
                8 => 0xffff_8000,
                9 => 0xffff_8001,
                n => (u64::from(n) + 1) << 15 | (511 - u64::from(k / 10 % 8)),
            },
            Argument::Address(region, offset) => {
                const BASES: [u64; 6] = [0x800_0000, 0x20_0000_0000, 0x30_0000_0000, 0x30_7ff0_0000, 0x40_0000_0000, 0];
                BASES[usize::from(region) % BASES.len()] + u64::from(offset) * 0x1000
            }
            Argument::Raw(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Call {
    number: u8,
    arguments: [Argument; 6],
}

fn movz_movk(register: u32, value: u64) -> [u32; 4] {
    std::array::from_fn(|half| {
        let opcode = if half == 0 { 0xd280_0000 } else { 0xf280_0000 };
        opcode | (half as u32) << 21 | ((value >> (16 * half)) as u32 & 0xffff) << 5 | register
    })
}

fuzz_target!(|calls: Vec<Call>| {
    let mut image = CARRIER.to_vec();
    let text_size = u32::from_le_bytes(image[0x24..0x28].try_into().unwrap()) as usize;
    let room = (text_size - CODE_START) / CALL_SIZE - 1;
    let mut code = Vec::new();
    for call in calls.iter().take(room) {
        for (register, argument) in call.arguments.iter().enumerate() {
            code.extend(movz_movk(register as u32, argument.value()));
        }
        code.push(0xd400_0001 | u32::from(call.number & 0x7f) << 5);
    }
    code.push(0xd400_0001 | 0x07 << 5); // ExitProcess
    for (i, word) in code.iter().enumerate() {
        image[CODE_START + 4 * i..CODE_START + 4 * i + 4].copy_from_slice(&word.to_le_bytes());
    }
    image[0..4].copy_from_slice(&(0x1400_0000u32 | (CODE_START / 4) as u32).to_le_bytes()); // b CODE_START
    let program = Program::from_bytes("fuzz.nro", &image).expect("an NRO").expect("the carrier loads");
    let mut kernel = Kernel::new(&program, Box::new(|_| {})).expect("the carrier places");
    kernel.set_max_instructions(Some(100_000));
    let _ = kernel.run(&mut Interpreter::default());
});
