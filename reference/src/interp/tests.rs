//! Execution tests of the floating-point and Advanced SIMD instructions, pointer authentication and SSBS: one
//! instruction on a prepared state, the expected values worked out from the Arm ARM's pseudocode (the words come from
//! `llvm-mc -show-encoding`).

use super::Interpreter;
use crate::engine::{Engine, Exit, GuestClock, UndefinedReason};
use crate::memory::{Access, FaultReason, GuestMemory, MemoryFault, Perm};
use crate::state::{CpuState, Flags, PSTATE_SSBS};
use crate::sysreg::{CpuIdentity, PointerAuthKeys};

const CODE: u64 = 0x10000;
/// Two read/write pages; the page after them is unmapped.
const DATA: u64 = 0x20000;
const DATA_SIZE: u64 = 0x2000;

/// Bytes 0x00, 0x01, ... 0x0f as a register (byte i is i).
const BYTES_0: u128 = 0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100;
/// Bytes 0x10 ... 0x1f.
const BYTES_1: u128 = 0x1f1e_1d1c_1b1a_1918_1716_1514_1312_1110;

struct Machine {
    cpu: CpuState,
    memory: GuestMemory,
}

impl Machine {
    fn new() -> Machine {
        let mut memory = GuestMemory::new().unwrap();
        memory.map(CODE, 0x1000, Perm::RX).unwrap();
        memory.map(DATA, DATA_SIZE, Perm::RW).unwrap();
        Machine { cpu: CpuState::default(), memory }
    }

    /// Runs `word` as the one instruction at CODE: `Exit::BudgetSpent` when it retired.
    fn run(&mut self, word: u32) -> Exit {
        self.run_on(&mut Interpreter::default(), word)
    }

    fn run_on(&mut self, interpreter: &mut Interpreter, word: u32) -> Exit {
        self.memory.write_privileged(CODE, &word.to_le_bytes()).unwrap();
        self.cpu.pc = CODE;
        interpreter.run(&mut self.cpu, &self.memory, 1, GuestClock::default()).exit
    }

    /// Runs `word` and expects it to retire.
    fn step(&mut self, word: u32) {
        self.step_to(word, CODE + 4);
    }

    /// Runs `word` and expects it to retire and continue at `next`.
    fn step_to(&mut self, word: u32, next: u64) {
        assert_eq!(self.run(word), Exit::BudgetSpent, "{word:#010x}");
        assert_eq!(self.cpu.pc, next, "{word:#010x}");
    }

    fn bytes(&self, address: u64, len: usize) -> Vec<u8> {
        let mut buf = vec![0; len];
        self.memory.read(address, &mut buf).unwrap();
        buf
    }

    /// Fills `len` bytes at `address` with 0, 1, 2, ...
    fn fill_counting(&self, address: u64, len: usize) {
        let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
        self.memory.write(address, &data).unwrap();
    }
}

/// A register of the bytes `first`, `first + step`, ... (16 of them).
fn bytes_from(first: u8, step: u8) -> u128 {
    u128::from_le_bytes(std::array::from_fn(|i| first.wrapping_add(step.wrapping_mul(i as u8))))
}

#[test]
fn ld3_deinterleaves_and_st3_interleaves_back() {
    let mut m = Machine::new();
    m.fill_counting(DATA, 48);
    m.cpu.x[0] = DATA;
    m.cpu.x[1] = DATA + 0x100;
    m.step(0x4c40_4001); // ld3 {v1.16b, v2.16b, v3.16b}, [x0]
    // Structure e is bytes 3e, 3e+1, 3e+2: element e of v1, v2, v3.
    assert_eq!(m.cpu.v[1], bytes_from(0, 3));
    assert_eq!(m.cpu.v[2], bytes_from(1, 3));
    assert_eq!(m.cpu.v[3], bytes_from(2, 3));
    m.step(0x4c00_4021); // st3 {v1.16b, v2.16b, v3.16b}, [x1]
    assert_eq!(m.bytes(DATA + 0x100, 48), m.bytes(DATA, 48));
    assert_eq!(m.cpu.x[0], DATA, "no write-back without post-index");
}

#[test]
fn ld1_of_a_64_bit_arrangement_clears_the_upper_half() {
    let mut m = Machine::new();
    m.fill_counting(DATA, 8);
    m.cpu.x[0] = DATA;
    m.cpu.v[0] = u128::MAX;
    m.step(0x0c40_7000); // ld1 {v0.8b}, [x0]
    assert_eq!(m.cpu.v[0], 0x0706_0504_0302_0100);
}

#[test]
fn ld1_three_registers_wraps_from_v31_and_posts_the_size() {
    let mut m = Machine::new();
    m.fill_counting(DATA, 48);
    m.cpu.sp = DATA;
    m.step(0x4cdf_6ffe); // ld1 {v30.2d, v31.2d, v0.2d}, [sp], #48
    assert_eq!([m.cpu.v[30], m.cpu.v[31], m.cpu.v[0]], [BYTES_0, BYTES_1, bytes_from(0x20, 1)]);
    assert_eq!(m.cpu.sp, DATA + 48);
}

#[test]
fn ld4r_replicates_each_element_and_posts_the_structure_size() {
    let mut m = Machine::new();
    m.memory.write(DATA, &[0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44]).unwrap();
    m.cpu.x[0] = DATA;
    m.cpu.v[1] = u128::MAX;
    m.step(0x0dff_e400); // ld4r {v0.4h, v1.4h, v2.4h, v3.4h}, [x0], #8
    assert_eq!(m.cpu.v[0], 0x1111_1111_1111_1111);
    assert_eq!(m.cpu.v[1], 0x2222_2222_2222_2222, "a 64-bit replicate clears the upper half");
    assert_eq!(m.cpu.v[3], 0x4444_4444_4444_4444);
    assert_eq!(m.cpu.x[0], DATA + 8);
}

#[test]
fn ld2_single_lane_keeps_the_other_lanes_and_posts_by_register() {
    let mut m = Machine::new();
    m.memory.write(DATA, &[1, 0, 0, 0, 2, 0, 0, 0]).unwrap();
    m.cpu.x[0] = DATA;
    m.cpu.x[2] = 0x40;
    m.cpu.v[5] = BYTES_0;
    m.cpu.v[6] = BYTES_1;
    m.step(0x4de2_9005); // ld2 {v5.s, v6.s}[3], [x0], x2
    assert_eq!(m.cpu.v[5], 0x0000_0001_0b0a_0908_0706_0504_0302_0100);
    assert_eq!(m.cpu.v[6], 0x0000_0002_1b1a_1918_1716_1514_1312_1110);
    assert_eq!(m.cpu.x[0], DATA + 0x40);
}

#[test]
fn st1_single_lane_stores_one_element() {
    let mut m = Machine::new();
    m.cpu.x[0] = DATA;
    m.cpu.v[0] = BYTES_0;
    m.step(0x4d00_8400); // st1 {v0.d}[1], [x0]
    assert_eq!(m.bytes(DATA, 9), [8, 9, 10, 11, 12, 13, 14, 15, 0]);
}

#[test]
fn st4_that_faults_part_way_writes_nothing() {
    let mut m = Machine::new();
    // 64 bytes from 16 bytes before the unmapped page.
    let address = DATA + DATA_SIZE - 16;
    m.cpu.x[0] = address;
    m.cpu.v[0] = u128::MAX;
    let before = m.bytes(address, 16);
    let exit = m.run(0x4c00_0800); // st4 {v0.4s, v1.4s, v2.4s, v3.4s}, [x0]
    let fault = MemoryFault { address: DATA + DATA_SIZE, access: Access::Write, reason: FaultReason::Unmapped };
    assert_eq!(exit, Exit::MemoryFault(fault));
    assert_eq!(m.bytes(address, 16), before);
    assert_eq!(m.cpu.pc, CODE);
}

#[test]
fn ld3_that_faults_part_way_writes_no_register() {
    let mut m = Machine::new();
    m.cpu.x[0] = DATA + DATA_SIZE - 24;
    m.cpu.v[1] = 7;
    assert!(matches!(m.run(0x4c40_4001), Exit::MemoryFault(_))); // ld3 {v1.16b, v2.16b, v3.16b}, [x0]
    assert_eq!(m.cpu.v[1], 7);
}

#[test]
fn single_register_loads_and_stores() {
    let mut m = Machine::new();
    m.fill_counting(DATA, 64);
    m.cpu.x[0] = DATA + 4;
    m.cpu.v[0] = u128::MAX;
    m.step(0x3d40_0000); // ldr b0, [x0]
    assert_eq!(m.cpu.v[0], 4, "a scalar load clears the rest of the register");
    m.step(0x3cc1_0401); // ldr q1, [x0], #16
    assert_eq!(m.cpu.v[1], bytes_from(4, 1));
    assert_eq!(m.cpu.x[0], DATA + 20);
    m.cpu.x[1] = (-2i64) as u64;
    m.step(0xbc61_d806); // ldr s6, [x0, w1, sxtw #2]
    assert_eq!(m.cpu.v[6], 0x0f0e_0d0c, "DATA + 20 - 8");
    m.cpu.x[0] = DATA + 0x100;
    m.cpu.v[4] = BYTES_0;
    m.cpu.v[5] = BYTES_1;
    m.step(0x6d00_9404); // stp d4, d5, [x0, #8]
    assert_eq!(m.bytes(DATA + 0x108, 16), [0, 1, 2, 3, 4, 5, 6, 7, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17]);
    m.cpu.x[0] = DATA + 0x120;
    m.step(0xadff_0c02); // ldp q2, q3, [x0, #-32]!
    assert_eq!(m.cpu.x[0], DATA + 0x100);
    assert_eq!(m.cpu.v[2], 0x0706_0504_0302_0100_0000_0000_0000_0000);
    assert_eq!(m.cpu.v[3], 0x1716_1514_1312_1110);
}

#[test]
fn ldr_literal_reads_relative_to_the_instruction() {
    let mut m = Machine::new();
    let value = BYTES_1.to_le_bytes();
    m.memory.write_privileged(CODE + 8, &value).unwrap();
    m.step(0x9c00_0040); // ldr q0, <pc + 8>
    assert_eq!(m.cpu.v[0], BYTES_1);
}

#[test]
fn modified_immediates() {
    let mut m = Machine::new();
    m.step(0x6f05_e560); // movi v0.2d, #0xff00ff00ff00ffff
    assert_eq!(m.cpu.v[0], 0xff00_ff00_ff00_ffff_ff00_ff00_ff00_ffff);
    m.cpu.v[1] = u128::MAX;
    m.step(0x2f00_a641); // mvni v1.4h, #0x12, lsl #8
    assert_eq!(m.cpu.v[1], 0xedff_edff_edff_edff);
    m.cpu.v[2] = 1;
    m.step(0x4f04_7402); // orr v2.4s, #0x80, lsl #24
    assert_eq!(m.cpu.v[2], 0x8000_0000_8000_0000_8000_0000_8000_0001);
    m.cpu.v[3] = u128::MAX;
    m.step(0x6f07_97e3); // bic v3.8h, #0xff
    assert_eq!(m.cpu.v[3], 0xff00_ff00_ff00_ff00_ff00_ff00_ff00_ff00);
    m.step(0x4f03_f604); // fmov v4.4s, #1.0
    assert_eq!(m.cpu.v[4], 0x3f80_0000_3f80_0000_3f80_0000_3f80_0000);
    m.step(0x4f04_fc05); // fmov v5.8h, #-2.0
    assert_eq!(m.cpu.v[5], 0xc000_c000_c000_c000_c000_c000_c000_c000);
    m.step(0x0f00_d646); // movi v6.2s, #0x12, msl #16
    assert_eq!(m.cpu.v[6], 0x0012_ffff_0012_ffff);
    m.cpu.v[7] = u128::MAX;
    m.step(0x2f04_e407); // movi d7, #0xff00000000000000
    assert_eq!(m.cpu.v[7], 0xff00_0000_0000_0000);
}

#[test]
fn copies() {
    let mut m = Machine::new();
    m.cpu.v[1] = 0x0f0e_0d0c_0b0a_0908_8706_0504_0302_0100;
    m.step(0x4e0e_2c20); // smov x0, v1.h[3]
    assert_eq!(m.cpu.x[0], 0xffff_ffff_ffff_8706);
    m.step(0x0e1f_3c22); // umov w2, v1.b[15]
    assert_eq!(m.cpu.x[2], 0x0f);
    m.cpu.v[2] = 0;
    m.cpu.x[3] = 0x1_2345_6789;
    m.step(0x4e0c_1c62); // mov v2.s[1], w3
    assert_eq!(m.cpu.v[2], 0x2345_6789_0000_0000);
    m.cpu.v[3] = 0;
    m.step(0x6e1e_2423); // mov v3.h[7], v1.h[2]
    assert_eq!(m.cpu.v[3], 0x0504 << 112);
    m.step(0x4e16_0424); // dup v4.8h, v1.h[5]
    assert_eq!(m.cpu.v[4], 0x0b0a_0b0a_0b0a_0b0a_0b0a_0b0a_0b0a_0b0a);
    m.cpu.x[6] = 0x1122_3344_5566_7788;
    m.step(0x4e08_0cc5); // dup v5.2d, x6
    assert_eq!(m.cpu.v[5], 0x1122_3344_5566_7788_1122_3344_5566_7788);
    m.cpu.v[6] = u128::MAX;
    m.step(0x5e13_0426); // mov b6, v1.b[9]
    assert_eq!(m.cpu.v[6], 0x09);
}

#[test]
fn zip_ext_and_table_lookups() {
    let mut m = Machine::new();
    m.cpu.v[1] = BYTES_0;
    m.cpu.v[2] = BYTES_1;
    m.step(0x4e82_7820); // zip2 v0.4s, v1.4s, v2.4s
    assert_eq!(m.cpu.v[0], 0x1f1e_1d1c_0f0e_0d0c_1b1a_1918_0b0a_0908);
    m.step(0x6e02_1820); // ext v0.16b, v1.16b, v2.16b, #3
    assert_eq!(m.cpu.v[0], bytes_from(3, 1));
    // Indices 0x1f (last byte of the second table register), 0x20 (past the table), 0, 0x11.
    m.cpu.v[4] = 0x11_00_20_1f;
    m.cpu.v[3] = u128::MAX;
    m.step(0x0e04_2023); // tbl v3.8b, {v1.16b, v2.16b}, v4.8b
    assert_eq!(m.cpu.v[3], 0x11_00_00_1f, "index 0 is byte 0; past the table is 0; upper half cleared");
    m.cpu.v[5] = u128::MAX;
    m.step(0x4e04_1025); // tbx v5.16b, {v1.16b}, v4.16b
    // Bytes 4-15 take index 0; 0x1f, 0x20 and 0x11 are past a one-register table and keep the destination's byte.
    assert_eq!(m.cpu.v[5], 0xff_00_ff_ff);
}

#[test]
fn bitwise_selects() {
    let mut m = Machine::new();
    let (a, b, mask) = (0xaaaa_u128, 0x5555_u128, 0xff00_u128);
    let reset = |m: &mut Machine, d: usize| {
        m.cpu.v[1] = a;
        m.cpu.v[2] = b;
        m.cpu.v[d] = mask;
    };
    reset(&mut m, 0);
    m.step(0x6e62_1c20); // bsl v0.16b, v1.16b, v2.16b: where v0 is 1, v1; else v2.
    assert_eq!(m.cpu.v[0], 0xaa55);
    m.cpu.v[1] = a;
    m.cpu.v[2] = mask;
    m.cpu.v[3] = b | 1 << 100;
    m.step(0x2ea2_1c23); // bit v3.8b, v1.8b, v2.8b: where v2 is 1, v1; else v3 (64-bit: upper half cleared).
    assert_eq!(m.cpu.v[3], 0xaa55);
    m.cpu.v[4] = b;
    m.step(0x6ee2_1c24); // bif v4.16b, v1.16b, v2.16b: where v2 is 0, v1; else v4.
    assert_eq!(m.cpu.v[4], 0x55aa);
    m.cpu.v[2] = 0;
    m.step(0x4ee2_1c25); // orn v5.16b, v1.16b, v2.16b
    assert_eq!(m.cpu.v[5], u128::MAX);
}

#[test]
fn fp_moves_and_select() {
    let mut m = Machine::new();
    m.cpu.v[0] = 0x1234;
    m.cpu.x[1] = 0xaaaa_bbbb_cccc_dddd;
    m.step(0x9eaf_0020); // fmov v0.d[1], x1: the lower half stays
    assert_eq!(m.cpu.v[0], 0xaaaa_bbbb_cccc_dddd_0000_0000_0000_1234);
    m.cpu.v[3] = 0x1111_2222_3333_4444_5555_6666_7777_8888;
    m.step(0x9eae_0062); // fmov x2, v3.d[1]
    assert_eq!(m.cpu.x[2], 0x1111_2222_3333_4444);
    m.cpu.x[5] = 0x1234_5678;
    m.cpu.v[4] = u128::MAX;
    m.step(0x1ee7_00a4); // fmov h4, w5
    assert_eq!(m.cpu.v[4], 0x5678);
    m.cpu.v[7] = 0x9999_abcd;
    m.cpu.x[6] = u64::MAX;
    m.step(0x1ee6_00e6); // fmov w6, h7
    assert_eq!(m.cpu.x[6], 0xabcd);
    m.cpu.v[3] = 0xffff_0000_3f80_0000;
    m.step(0x1e20_4062); // fmov s2, s3
    assert_eq!(m.cpu.v[2], 0x3f80_0000);
    m.step(0x1e7f_1004); // fmov d4, #-1.5
    assert_eq!(m.cpu.v[4], 0xbff8_0000_0000_0000);
    m.cpu.v[1] = 1 << 64 | 1;
    m.cpu.v[2] = 2;
    m.cpu.set_flags(Flags { z: true, ..Flags::default() });
    m.step(0x1e62_1c20); // fcsel d0, d1, d2, ne
    assert_eq!(m.cpu.v[0], 2);
    m.cpu.set_flags(Flags::default());
    m.step(0x1e62_1c20);
    assert_eq!(m.cpu.v[0], 1);
}

#[test]
fn fp_arithmetic_executes_and_unallocated_stays_unallocated() {
    let mut m = Machine::new();
    m.cpu.v[1] = 0x3f80_0000; // 1.0
    m.cpu.v[2] = 0x4000_0000; // 2.0
    m.step(0x1e22_2820); // fadd s0, s1, s2
    assert_eq!(m.cpu.v[0], 0x4040_0000);
    // fadd with ftype = 10.
    assert_eq!(m.run(0x1ea2_2820), Exit::Undefined { word: 0x1ea2_2820, reason: UndefinedReason::Unallocated });
    // ld2 {v0.1d, v1.1d}, [x0]: the 1D arrangement only exists for LD1/ST1.
    assert_eq!(m.run(0x0c40_8c00), Exit::Undefined { word: 0x0c40_8c00, reason: UndefinedReason::Unallocated });
    assert_eq!(m.cpu.pc, CODE);
}

#[test]
fn pacga_computes_with_the_configured_generic_key() {
    let mut m = Machine::new();
    // The QARMA-64 test vector (see `pac`): APGAKey_EL1 = w0:k0, X[n] = P, X[m] = T.
    let keys = PointerAuthKeys { apga: 0x84be_85ce_9804_e94b_ec28_02d4_e0a4_88e9 };
    let mut interpreter = Interpreter::new(CpuIdentity::CORTEX_A78C, keys);
    m.cpu.x[1] = 0xfb62_3599_da6e_8127;
    m.cpu.x[2] = 0x477d_469d_ec0b_8762;
    assert_eq!(m.run_on(&mut interpreter, 0x9ac2_3020), Exit::BudgetSpent); // pacga x0, x1, x2
    assert_eq!(m.cpu.x[0], 0xc003_b939_0000_0000);
    // pacga x3, x4, sp: Rm = 31 is SP.
    m.cpu.x[4] = 0xfb62_3599_da6e_8127;
    m.cpu.sp = 0x477d_469d_ec0b_8762;
    assert_eq!(m.run_on(&mut interpreter, 0x9adf_3083), Exit::BudgetSpent);
    assert_eq!(m.cpu.x[3], 0xc003_b939_0000_0000);
    // The default configuration holds zero keys: ComputePAC(P, T, 0, 0).
    m.step(0x9ac2_3020);
    assert_eq!(m.cpu.x[0], super::pac::compute_pac(0xfb62_3599_da6e_8127, 0x477d_469d_ec0b_8762, 0, 0) & !0xffff_ffff);
}

#[test]
fn pac_and_aut_leave_pointers_unchanged_with_the_keys_disabled_and_xpac_strips() {
    let mut m = Machine::new();
    let signed = 0x0012_0071_0000_1234;
    for (i, x) in m.cpu.x.iter_mut().enumerate() {
        *x = signed + i as u64;
    }
    let before = m.cpu.clone();
    for word in [
        0xdac1_03e7, // pacia x7, sp
        0xdac1_3fe8, // autdzb x8
        0xd503_233f, // paciasp
        0xd503_23bf, // autiasp
        0xd503_211f, // pacia1716
    ] {
        m.step(word);
        m.cpu.pc = before.pc;
        assert_eq!(m.cpu, before, "{word:#010x}");
    }
    // paciza x1 with Rn != 31 is unallocated.
    assert_eq!(m.run(0xdac1_2021), Exit::Undefined { word: 0xdac1_2021, reason: UndefinedReason::Unallocated });
    m.step(0xdac1_43e5); // xpaci x5
    assert_eq!(m.cpu.x[5], 0x0000_0071_0000_1239);
    m.cpu.x[6] = 0x7f80_1234_5678_9abc;
    m.step(0xdac1_47e6); // xpacd x6
    assert_eq!(m.cpu.x[6], 0xffff_1234_5678_9abc);
    m.step(0xd503_20ff); // xpaclri
    assert_eq!(m.cpu.x[30], 0x0000_0071_0000_1252);
}

#[test]
fn authenticated_branches_branch_to_the_register() {
    let mut m = Machine::new();
    m.cpu.x[9] = 0x4000;
    m.step_to(0xd71f_092a, 0x4000); // braa x9, x10
    m.cpu.x[11] = 0x5000;
    m.step_to(0xd63f_0d7f, 0x5000); // blrabz x11
    assert_eq!(m.cpu.x[30], CODE + 4);
    m.cpu.x[30] = 0x6000;
    m.step_to(0xd65f_0bff, 0x6000); // retaa
    // blraa x30, sp: the target is X30 as it was before the link.
    m.step_to(0xd73f_0bdf, 0x6000);
    assert_eq!(m.cpu.x[30], CODE + 4);
}

#[test]
fn ldraa_loads_from_the_base_plus_the_scaled_offset_with_writeback() {
    let mut m = Machine::new();
    m.fill_counting(DATA, 16);
    m.cpu.x[13] = DATA + 16;
    m.step(0xf87f_fdac); // ldraa x12, [x13, #-8]!
    assert_eq!(m.cpu.x[12], 0x0f0e_0d0c_0b0a_0908);
    assert_eq!(m.cpu.x[13], DATA + 8);
    m.cpu.sp = DATA + 8 - 4088;
    m.step(0xf8bf_f7ee); // ldrab x14, [sp, #4088]
    assert_eq!(m.cpu.x[14], 0x0f0e_0d0c_0b0a_0908);
    assert_eq!(m.cpu.sp, DATA + 8 - 4088, "no writeback without W");
}

#[test]
fn ssbs_is_written_by_msr_and_read_by_mrs() {
    let mut m = Machine::new();
    m.step(0xd503_413f); // msr SSBS, #1
    assert_eq!(m.cpu.ssbs, PSTATE_SSBS);
    m.step(0xd53b_42cf); // mrs x15, SSBS
    assert_eq!(m.cpu.x[15], 1 << 12);
    m.step(0xd503_423f); // msr SSBS, #2: CRm<0> is 0
    assert_eq!(m.cpu.ssbs, 0);
    m.cpu.x[16] = !0;
    m.step(0xd51b_42d0); // msr SSBS, x16
    assert_eq!(m.cpu.ssbs, PSTATE_SSBS);
    m.cpu.x[16] = !PSTATE_SSBS as u64;
    m.step(0xd51b_42d0);
    assert_eq!(m.cpu.ssbs, 0);
}

/// EL0 reads of the identification registers the core does not list read as 0, as Linux answers them
/// (arm64 `cpufeature.c`); outside that space an unknown register stays UNDEFINED, and ID registers cannot be
/// written.
#[test]
fn unlisted_identification_registers_read_as_zero() {
    let mut machine = Machine::new();
    machine.cpu.x[0] = 0x1234;
    // mrs x0, id_aa64pfr1_el1 (S3_0_C0_C4_1); mrs x0, id_aa64mmfr2_el1 (S3_0_C0_C7_2)
    for word in [0xd538_0420, 0xd538_0740] {
        machine.step(word);
        assert_eq!(machine.cpu.x[0], 0, "{word:#010x}");
        machine.cpu.x[0] = 0x1234;
    }
    // mrs x0, id_aa64pfr0_el1 is listed: the core's value.
    machine.step(0xd538_0400);
    assert_eq!(machine.cpu.x[0], CpuIdentity::CORTEX_A78C.id_aa64pfr0);
    // mrs x0, S3_0_C1_C0_0 (SCTLR_EL1): not identification.
    assert!(matches!(machine.run(0xd538_1000), Exit::Undefined { .. }));
    // msr id_aa64pfr1_el1, x0
    assert!(matches!(machine.run(0xd518_0420), Exit::Undefined { .. }));
}
