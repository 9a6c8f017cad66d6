//! The macro engine (MME) of the Fermi-to-Maxwell 3D classes: small programs the driver uploads into the
//! instruction RAM and calls through `CALL_MME_MACRO(j)`, which read parameters, read registers and send
//! methods. A readable interpreter of every opcode (envytools' "Macro method expander" documentation; Mesa
//! `src/nouveau/mme/mme_fermi.h` names the same fields).
//!
//! An instruction word:
//!
//! ```text
//!  31      27 26    22 21    17 16  14 13  11 10  8 7    6   4   3   2  0
//! | dst bit  |  size  | src bit|  srcB | srcA | dst |exit|result|   | op  |   bitfield forms
//! |        immediate (18 bits, signed)  | srcA | dst |exit|result|   | op  |   immediate forms
//! |   ALU op (21:17)   |        ...     |srcB | srcA | dst |exit|result|   | op  |   ALU
//! ```
//!
//! Invariants: register 0 reads as zero and ignores writes; the instruction after a taken branch (unless the
//! branch says "no delay slot") or after an exit runs before the jump or the end, with its own exit bit ignored;
//! an exit bit on a branch counts only when the branch is not taken (envytools `envydis/macro.c`).
//!
//! Subtraction's carry is "no borrow" (as yuzu and Ryujinx, which run the games' own macros; the hardware's
//! choice is not documented). Shifts by 32 or more give 0 (Mesa's hardware tests). Fetching a parameter the call
//! did not give, or exiting with parameters left, are errors (the hardware traps: TOO_FEW/TOO_MANY_PARAMS).

use super::EngineError;

/// Words of instruction RAM and entries of the start address table.
pub const INSTRUCTION_RAM_WORDS: usize = 0x800;
pub const MACRO_COUNT: usize = 0x80;
/// Instructions one call may run before it is judged to loop forever.
pub const STEP_LIMIT: u64 = 1 << 24;

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum MacroError {
    #[error("macro {index} (at {start:#x}) fetched parameter {fetched} but its call gave {given}")]
    ParametersExhausted { index: u32, start: u32, fetched: usize, given: usize },
    #[error("macro {index}: instruction {word:#010x} at {pc:#x} has the undefined opcode {opcode}")]
    UndefinedOpcode { index: u32, pc: u32, word: u32, opcode: u32 },
    #[error("macro {index}: instruction {word:#010x} at {pc:#x} has the undefined ALU operation {operation}")]
    UndefinedAluOperation { index: u32, pc: u32, word: u32, operation: u32 },
    #[error("macro {index} (at {start:#x}) exited having fetched {fetched} of the {given} parameters of its call")]
    ParametersLeft { index: u32, start: u32, fetched: usize, given: usize },
    #[error("macro {index}: a branch at {pc:#x} sits in a delay slot")]
    BranchInDelaySlot { index: u32, pc: u32 },
    #[error("macro {index} ran past the end of the instruction RAM (pc {pc:#x})")]
    PastTheEnd { index: u32, pc: u32 },
    #[error("macro {index} (at {start:#x}) ran {STEP_LIMIT} instructions without exiting")]
    Runaway { index: u32, start: u32 },
}

/// What a macro acts on: the 3D engine's registers (method word indices) and its methods.
pub trait MacroTarget {
    fn read(&self, method: u32) -> u32;
    fn send(&mut self, method: u32, argument: u32) -> Result<(), EngineError>;
}

/// The instruction RAM, the start address table and their upload pointers.
#[derive(Clone)]
pub struct MacroEngine {
    code: Vec<u32>,
    starts: Vec<u32>,
    code_pointer: u32,
    start_pointer: u32,
}

impl Default for MacroEngine {
    fn default() -> MacroEngine {
        MacroEngine {
            code: vec![0; INSTRUCTION_RAM_WORDS],
            starts: vec![0; MACRO_COUNT],
            code_pointer: 0,
            start_pointer: 0,
        }
    }
}

/// The fields of an instruction word.
#[derive(Clone, Copy, Debug)]
struct Instruction(u32);

impl Instruction {
    fn field(self, low: u32, bits: u32) -> u32 {
        self.0 >> low & ((1 << bits) - 1)
    }
    fn opcode(self) -> u32 {
        self.field(0, 3)
    }
    fn result(self) -> u32 {
        self.field(4, 3)
    }
    fn exit(self) -> bool {
        self.field(7, 1) == 1
    }
    fn dst(self) -> usize {
        self.field(8, 3) as usize
    }
    fn src_a(self) -> usize {
        self.field(11, 3) as usize
    }
    fn src_b(self) -> usize {
        self.field(14, 3) as usize
    }
    fn immediate(self) -> u32 {
        ((self.0 as i32) >> 14) as u32
    }
    fn alu_operation(self) -> u32 {
        self.field(17, 5)
    }
    fn bitfield_source_bit(self) -> u32 {
        self.field(17, 5)
    }
    fn bitfield_size(self) -> u32 {
        self.field(22, 5)
    }
    fn bitfield_destination_bit(self) -> u32 {
        self.field(27, 5)
    }
    /// Branch: taken when srcA is non-zero (bit 4 set) or zero (clear).
    fn branch_if_non_zero(self) -> bool {
        self.field(4, 1) == 1
    }
    /// Branch: the next instruction does not run before a taken branch.
    fn branch_no_delay_slot(self) -> bool {
        self.field(5, 1) == 1
    }
}

mod opcode {
    pub const ALU: u32 = 0;
    pub const ADD_IMMEDIATE: u32 = 1;
    pub const BITFIELD_REPLACE: u32 = 2;
    pub const BITFIELD_EXTRACT_SHIFT_LEFT_IMMEDIATE: u32 = 3;
    pub const BITFIELD_EXTRACT_SHIFT_LEFT_REGISTER: u32 = 4;
    pub const READ: u32 = 5;
    pub const BRANCH: u32 = 7;
}

/// What happens once the delay slot has run.
#[derive(Clone, Copy, Debug)]
enum AfterDelaySlot {
    Jump(u32),
    Exit,
}

/// The interpreter's registers during one call.
struct Machine<'p> {
    registers: [u32; 8],
    carry: bool,
    /// The method address register: method in 11:0, increment in 17:12.
    method_address: u32,
    parameters: &'p [u32],
    fetched: usize,
}

impl Machine<'_> {
    fn set(&mut self, register: usize, value: u32) {
        if register != 0 {
            self.registers[register] = value;
        }
    }

    fn fetch(&mut self, index: u32, start: u32) -> Result<u32, MacroError> {
        let parameter = self.parameters.get(self.fetched).copied().ok_or(MacroError::ParametersExhausted {
            index,
            start,
            fetched: self.fetched + 1,
            given: self.parameters.len(),
        })?;
        self.fetched += 1;
        Ok(parameter)
    }

    /// Sends `argument` to the method in the address register, then steps the address by its increment.
    fn send(&mut self, target: &mut dyn MacroTarget, argument: u32) -> Result<(), EngineError> {
        target.send(self.method_address & 0xfff, argument)?;
        let increment = self.method_address >> 12 & 0x3f;
        self.method_address = (self.method_address & !0xfff) | (self.method_address + increment) & 0xfff;
        Ok(())
    }
}

impl MacroEngine {
    /// `LOAD_MME_INSTRUCTION_RAM_POINTER`.
    pub fn set_code_pointer(&mut self, pointer: u32) {
        self.code_pointer = pointer;
    }

    /// `LOAD_MME_INSTRUCTION_RAM`: stores a word and steps the pointer. `Err` when the pointer is past the RAM.
    pub fn load_code(&mut self, word: u32) -> Result<(), ()> {
        let slot = self.code.get_mut(self.code_pointer as usize).ok_or(())?;
        *slot = word;
        self.code_pointer += 1;
        Ok(())
    }

    /// `LOAD_MME_START_ADDRESS_RAM_POINTER`.
    pub fn set_start_pointer(&mut self, pointer: u32) {
        self.start_pointer = pointer;
    }

    /// `LOAD_MME_START_ADDRESS_RAM`: stores a macro's start and steps the pointer.
    pub fn load_start(&mut self, start: u32) -> Result<(), ()> {
        let slot = self.starts.get_mut(self.start_pointer as usize).ok_or(())?;
        *slot = start;
        self.start_pointer += 1;
        Ok(())
    }

    /// Runs macro `index` with `parameters` (the first goes into register 1, the others are fetched).
    pub fn execute(&self, index: u32, parameters: &[u32], target: &mut dyn MacroTarget) -> Result<(), EngineError> {
        let start = self.starts[index as usize % MACRO_COUNT];
        let mut machine = Machine { registers: [0; 8], carry: false, method_address: 0, parameters, fetched: 1 };
        machine.registers[1] = parameters.first().copied().unwrap_or(0);
        let mut pc = start;
        // What follows the instruction now running, when it is a delay slot.
        let mut after_delay_slot: Option<AfterDelaySlot> = None;
        for _ in 0..STEP_LIMIT {
            let word = *self.code.get(pc as usize).ok_or(MacroError::PastTheEnd { index, pc })?;
            let instruction = Instruction(word);
            let in_delay_slot = after_delay_slot.take();
            let mut next = pc + 1;
            // An exit bit asks to end after the next instruction, except on a taken branch or in a delay slot.
            let mut exit = instruction.exit() && in_delay_slot.is_none();
            if instruction.opcode() == opcode::BRANCH {
                if in_delay_slot.is_some() {
                    return Err(MacroError::BranchInDelaySlot { index, pc }.into());
                }
                let taken = (machine.registers[instruction.src_a()] != 0) == instruction.branch_if_non_zero();
                let target_pc = pc.wrapping_add(instruction.immediate());
                if taken {
                    exit = false;
                    if instruction.branch_no_delay_slot() {
                        next = target_pc;
                    } else {
                        after_delay_slot = Some(AfterDelaySlot::Jump(target_pc));
                    }
                }
            } else {
                let result = self.compute(index, pc, instruction, &mut machine, target)?;
                self.apply_result(index, start, instruction, result, &mut machine, target)?;
            }
            if exit {
                after_delay_slot = Some(AfterDelaySlot::Exit);
            }
            match in_delay_slot {
                Some(AfterDelaySlot::Exit) => {
                    if machine.fetched < parameters.len() {
                        return Err(MacroError::ParametersLeft {
                            index,
                            start,
                            fetched: machine.fetched,
                            given: parameters.len(),
                        }
                        .into());
                    }
                    return Ok(());
                }
                Some(AfterDelaySlot::Jump(target_pc)) => next = target_pc,
                None => {}
            }
            pc = next;
        }
        Err(MacroError::Runaway { index, start }.into())
    }

    /// The value an instruction computes (all opcodes but branches).
    fn compute(
        &self,
        index: u32,
        pc: u32,
        instruction: Instruction,
        machine: &mut Machine,
        target: &mut dyn MacroTarget,
    ) -> Result<u32, MacroError> {
        let a = machine.registers[instruction.src_a()];
        let b = machine.registers[instruction.src_b()];
        let size_mask = |size: u32| if size >= 32 { u32::MAX } else { (1u32 << size) - 1 };
        let shift_left = |value: u32, shift: u32| value.checked_shl(shift).unwrap_or(0);
        let shift_right = |value: u32, shift: u32| value.checked_shr(shift).unwrap_or(0);
        Ok(match instruction.opcode() {
            opcode::ALU => self.alu(index, pc, instruction, a, b, machine)?,
            opcode::ADD_IMMEDIATE => a.wrapping_add(instruction.immediate()),
            opcode::BITFIELD_REPLACE => {
                let mask = size_mask(instruction.bitfield_size());
                let field = shift_right(b, instruction.bitfield_source_bit()) & mask;
                let destination = instruction.bitfield_destination_bit();
                (a & !shift_left(mask, destination)) | shift_left(field, destination)
            }
            opcode::BITFIELD_EXTRACT_SHIFT_LEFT_IMMEDIATE => {
                let field = shift_right(b, a) & size_mask(instruction.bitfield_size());
                shift_left(field, instruction.bitfield_destination_bit())
            }
            opcode::BITFIELD_EXTRACT_SHIFT_LEFT_REGISTER => {
                let field = shift_right(b, instruction.bitfield_source_bit()) & size_mask(instruction.bitfield_size());
                shift_left(field, a)
            }
            opcode::READ => target.read(a.wrapping_add(instruction.immediate()) & 0xfff),
            opcode => return Err(MacroError::UndefinedOpcode { index, pc, word: instruction.0, opcode }),
        })
    }

    fn alu(
        &self,
        index: u32,
        pc: u32,
        instruction: Instruction,
        a: u32,
        b: u32,
        machine: &mut Machine,
    ) -> Result<u32, MacroError> {
        let with_carry = |machine: &mut Machine, sum: u64| {
            machine.carry = sum >> 32 != 0;
            sum as u32
        };
        Ok(match instruction.alu_operation() {
            0 => with_carry(machine, u64::from(a) + u64::from(b)),
            1 => with_carry(machine, u64::from(a) + u64::from(b) + u64::from(machine.carry)),
            // Subtraction as addition of the complement: the carry is "no borrow".
            2 => with_carry(machine, u64::from(a) + u64::from(!b) + 1),
            3 => with_carry(machine, u64::from(a) + u64::from(!b) + u64::from(machine.carry)),
            8 => a ^ b,
            9 => a | b,
            10 => a & b,
            11 => a & !b,
            12 => !(a & b),
            operation => return Err(MacroError::UndefinedAluOperation { index, pc, word: instruction.0, operation }),
        })
    }

    /// The result operation (6:4): where the result, a fetched parameter and the method address go.
    fn apply_result(
        &self,
        index: u32,
        start: u32,
        instruction: Instruction,
        result: u32,
        machine: &mut Machine,
        target: &mut dyn MacroTarget,
    ) -> Result<(), EngineError> {
        let dst = instruction.dst();
        match instruction.result() {
            // IgnoreAndFetch
            0 => {
                let parameter = machine.fetch(index, start)?;
                machine.set(dst, parameter);
            }
            // Move
            1 => machine.set(dst, result),
            // MoveAndSetMethod
            2 => {
                machine.set(dst, result);
                machine.method_address = result;
            }
            // FetchAndSend
            3 => {
                let parameter = machine.fetch(index, start)?;
                machine.set(dst, parameter);
                machine.send(target, result)?;
            }
            // MoveAndSend
            4 => {
                machine.set(dst, result);
                machine.send(target, result)?;
            }
            // FetchAndSetMethod
            5 => {
                let parameter = machine.fetch(index, start)?;
                machine.set(dst, parameter);
                machine.method_address = result;
            }
            // MoveAndSetMethodFetchAndSend
            6 => {
                machine.set(dst, result);
                machine.method_address = result;
                let parameter = machine.fetch(index, start)?;
                machine.send(target, parameter)?;
            }
            // MoveAndSetMethodSend: the method from the result, the argument its bits 17:12.
            _ => {
                machine.set(dst, result);
                machine.method_address = result;
                machine.send(target, result >> 12 & 0x3f)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Records sends; `Read` answers from `state` (method index -> value).
    #[derive(Default)]
    struct Recorder {
        state: HashMap<u32, u32>,
        sends: Vec<(u32, u32)>,
    }

    impl MacroTarget for Recorder {
        fn read(&self, method: u32) -> u32 {
            self.state.get(&method).copied().unwrap_or(0)
        }

        fn send(&mut self, method: u32, argument: u32) -> Result<(), EngineError> {
            self.state.insert(method, argument);
            self.sends.push((method, argument));
            Ok(())
        }
    }

    /// Uploads `code` as macro 3 and runs it on `parameters` against `state`.
    fn run(code: &[u32], parameters: &[u32], state: &[(u32, u32)]) -> Result<Vec<(u32, u32)>, EngineError> {
        let mut engine = MacroEngine::default();
        engine.set_code_pointer(0x40);
        for &word in code {
            engine.load_code(word).unwrap();
        }
        engine.set_start_pointer(3);
        engine.load_start(0x40).unwrap();
        let mut recorder = Recorder { state: state.iter().copied().collect(), sends: Vec::new() };
        engine.execute(3, parameters, &mut recorder)?;
        Ok(recorder.sends)
    }

    // Macros of Mesa's nvc0 driver (`nvc0/mme/com9097.mme.h`), run by it on real Fermi-Maxwell GPUs; the expected
    // sends follow from envytools' description of each instruction.

    /// `per_instance_bf`: a loop with an exit on its backward branch (exit only when not taken).
    #[test]
    fn nvc0_per_instance_bf() {
        let code = [0x00000301, 0x00000211, 0x05880021, 0xffffc911, 0x0040d043, 0xffff8897, 0x00005211];
        assert_eq!(run(&code, &[3, 5], &[]).unwrap(), vec![(0x620, 1), (0x621, 0), (0x622, 1)]);
    }

    /// `blend_enables`: bitfield extracts sent with an incrementing method address; the send after the exit is
    /// its delay slot.
    #[test]
    fn nvc0_blend_enables() {
        let code = [
            0x05360021, 0x00404042, 0x00424042, 0x00444042, 0x00464042, 0x00484042, 0x004a4042, 0x004c40c2, 0x004e4042,
        ];
        let sends = run(&code, &[0xa5], &[]).unwrap();
        let expected: Vec<(u32, u32)> = (0..8).map(|bit| (0x4d8 + bit, 0xa5 >> bit & 1)).collect();
        assert_eq!(sends, expected);
    }

    /// `vertex_array_select`: bitfield replace and fetch-and-set-method.
    #[test]
    fn nvc0_vertex_array_select() {
        let code = [
            0x00000201, 0x00000301, 0x00000401, 0x00000501, 0x11004612, 0x09004712, 0x05c07621, 0x00002041, 0x00002841,
            0x05f03f21, 0x000010c1, 0x00001841,
        ];
        assert_eq!(
            run(&code, &[2, 0x11, 0x2222, 0x33, 0x4444], &[]).unwrap(),
            vec![(0x709, 0x33), (0x70a, 0x4444), (0x7c4, 0x11), (0x7c5, 0x2222)]
        );
    }

    /// `poly_mode_front`: register reads and branches with delay slots.
    #[test]
    fn nvc0_poly_mode_front() {
        let code = [
            0x00db0215, 0x020c0315, 0x00128f10, 0x02100415, 0x00004211, 0x00180611, 0x0014bf10, 0x0000f807, 0x00dac021,
            0x00800611, 0x00131f10, 0x0014bf10, 0x0000f807, 0x00000841, 0x00000611, 0x002ec0a1, 0x00003041,
        ];
        let state = [(0x36c, 0x1b02), (0x830, 0x30), (0x840, 0x40)];
        assert_eq!(run(&code, &[0x1b01], &state).unwrap(), vec![(0x36b, 0x1b01), (0xbb, 0x200)]);
        assert_eq!(run(&code, &[0x1b02], &state).unwrap(), vec![(0x36b, 0x1b02), (0xbb, 0x60)]);
        let state = [(0x36c, 0x1b02), (0x830, 0x31), (0x840, 0x40)];
        assert_eq!(run(&code, &[0x1b02], &state).unwrap(), vec![(0x36b, 0x1b02), (0xbb, 0)]);
    }

    // Programs encoded from the instruction layout above for one behaviour each.

    /// A taken branch runs its delay slot; with "no delay slot" it does not.
    #[test]
    fn delay_slots_run_unless_the_branch_annuls_them() {
        let code = [0x00000201, 0x0000c007, 0x00008b10, 0x00000b11, 0x07400021, 0x000018c1, 0x00000011];
        assert_eq!(run(&code, &[3, 1], &[]).unwrap(), vec![(0xd00, 4)]);
        let mut annulled = code;
        annulled[1] = 0x0000c027;
        assert_eq!(run(&annulled, &[3, 1], &[]).unwrap(), vec![(0xd00, 0)]);
    }

    /// The instruction after an exit runs; the one after that does not.
    #[test]
    fn an_exit_runs_one_more_instruction() {
        let code = [0x07400021, 0x000008c1, 0x0001c041, 0x00024041];
        assert_eq!(run(&code, &[0x55], &[]).unwrap(), vec![(0xd00, 0x55), (0xd01, 7)]);
    }

    /// Every result operation: where the result, fetched parameters and the method address go.
    #[test]
    fn result_operations_move_fetch_and_send_as_documented() {
        let code = [0x07400021, 0x00000a31, 0x07414351, 0x00001041, 0x07440461, 0x0b4805f1, 0x00001841];
        assert_eq!(
            run(&code, &[0xa, 0xb, 0xc, 0xd], &[]).unwrap(),
            vec![(0xd00, 0xa), (0xd05, 0xb), (0xd10, 0xd), (0xd20, 2), (0xd22, 0xc)]
        );
    }

    /// An exit bit on a branch ends the macro only when the branch is not taken.
    #[test]
    fn an_exit_on_a_branch_counts_only_when_not_taken() {
        let code = [0x07400021, 0x0000c897, 0x00000041, 0x00000841, 0x000008c1, 0x00000011];
        assert_eq!(run(&code, &[0], &[]).unwrap(), vec![(0xd00, 0)]);
        assert_eq!(run(&code, &[7], &[]).unwrap(), vec![(0xd00, 0), (0xd01, 7)]);
    }

    /// Bitfield replace with Mesa's hardware-test operands.
    #[test]
    fn bitfield_replace_takes_size_bits_from_source_to_destination() {
        for (word, expected) in [
            (0x63288b12, 0x0c765fe0),
            (0x62288b12, 0x0c465fe0),
            (0x43288b12, 0x0c4765e0),
            (0x64108b12, 0x05432fe0),
            (0xc3108b12, 0x32406fe0),
        ] {
            let code = [0x00000201, word, 0x07400021, 0x000018c1, 0x00000011];
            assert_eq!(run(&code, &[0x0c406fe0, 0x76543210], &[]).unwrap(), vec![(0xd00, expected)], "{word:#x}");
        }
    }

    /// Shifts from a register; 32 or more gives 0 (Mesa's hardware test runs a shift of 51).
    #[test]
    fn register_shifts_of_32_or_more_give_zero() {
        let code = [0x00000201, 0x07c05314, 0x07c05413, 0x07400021, 0x00001841, 0x000020c1, 0x00000011];
        assert_eq!(run(&code, &[0x0c406fe0, 5], &[]).unwrap(), vec![(0xd00, 0x880dfc00), (0xd01, 0x0062037f)]);
        assert_eq!(run(&code, &[0x0c406fe0, 51], &[]).unwrap(), vec![(0xd00, 0), (0xd01, 0)]);
    }

    /// Bitfield extracts of 1, 2 and 5 bits (Mesa's hardware test `bfe`).
    #[test]
    fn bitfield_extract_sizes_count_bits() {
        let code = [0x00000201, 0x07400021, 0x00405043, 0x00805043, 0x014050c3, 0x00000011];
        let values = |sends: Vec<(u32, u32)>| sends.into_iter().map(|(_, v)| v).collect::<Vec<_>>();
        assert_eq!(values(run(&code, &[0xc0ffee01, 30], &[]).unwrap()), vec![1, 3, 3]);
        assert_eq!(values(run(&code, &[0xc0ffee01, 0], &[]).unwrap()), vec![1, 1, 1]);
    }

    /// `Read` of a register at a register plus an immediate.
    #[test]
    fn read_takes_register_plus_immediate() {
        let code = [0x00040a15, 0x07400021, 0x000010c1, 0x00000011];
        assert_eq!(run(&code, &[5], &[(0x15, 0x1234)]).unwrap(), vec![(0xd00, 0x1234)]);
    }

    /// 64-bit addition and subtraction through the carry (Mesa's hardware tests `addc` and `subb`); AddImmediate
    /// leaves the carry alone (`add_imm_carry`).
    #[test]
    fn carries_chain_64_bit_arithmetic() {
        let parameters = [0x80008650, 0x596, 0x8000a8f6, 0x836];
        let add = [
            0x00000201, 0x00000301, 0x00000401, 0x0000cd10, 0x00031610, 0x07400021, 0x00002841, 0x000030c1, 0x00000011,
        ];
        assert_eq!(run(&add, &parameters, &[]).unwrap(), vec![(0xd00, 0x00012f46), (0xd01, 0x00000dcd)]);
        let mut subtract = add;
        subtract[3] = 0x0004cd10;
        subtract[4] = 0x00071610;
        assert_eq!(run(&subtract, &parameters, &[]).unwrap(), vec![(0xd00, 0xffffdd5a), (0xd01, 0xfffffd5f)]);
        let add_imm_carry = [
            0x00000210, 0x00004b11, 0x00020410, 0x00004d10, 0x00004611, 0x00020710, 0x07400021, 0x00001041, 0x00001841,
            0x00002041, 0x00002841, 0x00003041, 0x000038c1, 0x00000011,
        ];
        let sends = run(&add_imm_carry, &[0xffffffff], &[]).unwrap();
        assert_eq!(sends.iter().map(|&(_, v)| v).collect::<Vec<_>>(), vec![0, 0, 0, 0xfffffffe, 1, 1]);
    }

    /// Too few or too many parameters, runaway loops and branches in delay slots are errors, not hangs.
    #[test]
    fn misbehaving_macros_are_errors() {
        let fetch_two = [0x00000201, 0x00000301, 0x00000091, 0x00000011];
        assert!(matches!(
            run(&fetch_two, &[1, 2], &[]),
            Err(EngineError::Macro(MacroError::ParametersExhausted { fetched: 3, given: 2, .. }))
        ));
        assert!(matches!(
            run(&fetch_two, &[1, 2, 3, 4], &[]),
            Err(EngineError::Macro(MacroError::ParametersLeft { fetched: 3, given: 4, .. }))
        ));
        // braz r0 +0 with no delay slot: forever.
        assert!(matches!(run(&[0x00000027], &[0], &[]), Err(EngineError::Macro(MacroError::Runaway { .. }))));
        // braz r0 +2, then a branch in its delay slot.
        assert!(matches!(
            run(&[0x00008007, 0x00008007, 0x91, 0x11], &[0], &[]),
            Err(EngineError::Macro(MacroError::BranchInDelaySlot { pc: 0x41, .. }))
        ));
    }
}
