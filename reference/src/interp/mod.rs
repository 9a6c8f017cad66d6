//! The reference interpreter: fetch, decode through the table, execute one handler per Arm ARM instruction page.
//!
//! Handlers live in one file per section of the Arm ARM's A64 encoding index and read like the pseudocode:
//! decode section first (UNDEFINED cases), then operation. A handler returns `Err(exit)` to stop; everything it
//! changes before it returns `Err` must be nothing (memory accesses are checked before the first write).

#![allow(clippy::too_many_arguments)] // Handlers take the fields of their encoding, as the pseudocode does.

mod branch;
mod crypto;
mod data_imm;
mod data_reg;
mod fp_scalar;
mod load_store;
mod pac;
pub mod pseudocode;
mod simd_load_store;
mod simd_ops;
mod simd_permute;
mod simd_scalar;
mod simd_vector;
mod system;
#[cfg(test)]
mod tests;

/// The decode steps the fast path's lifter shares with the interpreter (one decode, in one place).
pub mod shared_decode {
    pub use super::fp_scalar::fp_width;
    pub use super::load_store::{MemOp, SingleDecode, decode_single};
    pub use super::simd_load_store::{
        SingleStructure, multiple_structures_decode, single_structure_decode, single_structure_registers,
    };
    pub use super::simd_ops::{Accumulate, IntegerOp, fp_by_element_ok, indexed_element};
    pub use super::simd_permute::{copy_index, copy_size};
    pub use super::simd_vector::{
        ImmediateOp, IntegerForm, dot_product, doubling_multiply_long, indexed_integer, modified_immediate_op,
        rounding_doubling_accumulate, three_same_integer,
    };
}

use crate::decode::{Inst, decode};
use crate::engine::{Engine, Exit, GuestClock, RunResult, UndefinedReason};
use crate::memory::{Access, FaultReason, GuestMemory, MemoryFault};
use crate::state::{CpuState, Flags};
use crate::sysreg::{CpuIdentity, PointerAuthKeys};
use pseudocode::{ones, ones128};

/// A CONSTRAINED UNPREDICTABLE case the interpreter met, and resolved with the behaviour its doc names.
///
/// The differential suite looks these up in its ledger instead of counting them as mismatches: other
/// implementations may legitimately choose differently.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Unpredictable {
    /// Load/store with writeback where the base is also a transfer register. Loads: the written-back address wins;
    /// stores: the register's value before writeback is stored (as QEMU does).
    WritebackOverlapsTransfer,
    /// LDP/LDXP/LDNP with Rt == Rt2: the second element is the one kept.
    LoadPairSameRegister,
    /// STXR/STXP status register equal to a transfer register or the base: the status is written last.
    ExclusiveStatusOverlaps,
    /// A store-exclusive to the marked address with a size other than the load-exclusive's: it fails.
    ExclusiveSizeMismatch,
}

/// The reference CPU path.
pub struct Interpreter {
    identity: CpuIdentity,
    keys: PointerAuthKeys,
    /// The most recent CONSTRAINED UNPREDICTABLE case of the last `run`, with its PC.
    pub last_unpredictable: Option<(u64, Unpredictable)>,
}

impl Interpreter {
    /// An interpreter of the core `identity` describes, holding the platform's pointer authentication `keys`.
    pub fn new(identity: CpuIdentity, keys: PointerAuthKeys) -> Interpreter {
        Interpreter { identity, keys, last_unpredictable: None }
    }
}

impl Interpreter {
    /// Executes `word` as the instruction at `pc` without fetching it, as `run` would with a budget of one:
    /// `Ok(next_pc)` when it retired (the PC in `cpu` is left alone), `Err(exit)` when it did not, having changed
    /// nothing. For an engine that runs some instructions through the reference inside its own code (the fast
    /// path's FP and SIMD arithmetic).
    pub fn execute_word(
        &mut self,
        cpu: &mut CpuState,
        memory: &GuestMemory,
        word: u32,
        pc: u64,
        clock: GuestClock,
    ) -> Result<u64, Exit> {
        let mut exec = Exec {
            cpu,
            memory,
            pc,
            next_pc: pc.wrapping_add(4),
            clock,
            retired: 0,
            identity: &self.identity,
            keys: &self.keys,
            unpredictable: None,
        };
        exec.execute(word)?;
        Ok(exec.next_pc)
    }
}

impl Default for Interpreter {
    /// The Cortex-A78C with zero keys (EL0 cannot read the keys; zero is what Unicorn holds).
    fn default() -> Self {
        Interpreter::new(CpuIdentity::CORTEX_A78C, PointerAuthKeys::default())
    }
}

impl Engine for Interpreter {
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        self.last_unpredictable = None;
        let mut retired = 0;
        while retired < budget {
            let pc = cpu.pc;
            // AArch64.CheckPCAlignment: a PC that is not a multiple of 4 faults before anything is fetched.
            if !pc.is_multiple_of(4) {
                let fault = MemoryFault { address: pc, access: Access::Execute, reason: FaultReason::Alignment };
                return RunResult { exit: Exit::MemoryFault(fault), retired };
            }
            let word = match memory.fetch(pc) {
                Ok(word) => word,
                Err(fault) => return RunResult { exit: Exit::MemoryFault(fault), retired },
            };
            let mut exec = Exec {
                cpu: &mut *cpu,
                memory,
                pc,
                next_pc: pc.wrapping_add(4),
                clock,
                retired,
                identity: &self.identity,
                keys: &self.keys,
                unpredictable: None,
            };
            let outcome = exec.execute(word);
            let next_pc = exec.next_pc;
            if let Some(case) = exec.unpredictable {
                self.last_unpredictable = Some((pc, case));
            }
            match outcome {
                Ok(()) => {
                    cpu.pc = next_pc;
                    retired += 1;
                }
                Err(exit @ Exit::Svc(_)) => {
                    cpu.pc = next_pc;
                    return RunResult { exit, retired: retired + 1 };
                }
                Err(exit) => return RunResult { exit, retired },
            }
        }
        RunResult { exit: Exit::BudgetSpent, retired }
    }

    fn invalidate(&mut self, _address: u64, _size: u64) {
        // The interpreter keeps nothing derived from guest code: every instruction is fetched and decoded afresh.
    }
}

/// What a handler returns: `Err` stops the run (see the module documentation).
pub(crate) type Step = Result<(), Exit>;

/// The context of one instruction: the state it reads and writes, and where execution continues.
pub(crate) struct Exec<'a> {
    cpu: &'a mut CpuState,
    memory: &'a GuestMemory,
    /// Address of this instruction (the pseudocode's PC).
    pc: u64,
    /// Where execution continues; `BranchTo` sets it.
    next_pc: u64,
    /// Guest time at the start of the run and the instructions retired since: CNTVCT_EL0 as this instruction
    /// sees it is `clock.counter(retired)`, computed only when read.
    clock: GuestClock,
    retired: u64,
    identity: &'a CpuIdentity,
    keys: &'a PointerAuthKeys,
    unpredictable: Option<Unpredictable>,
}

impl Exec<'_> {
    fn execute(&mut self, word: u32) -> Step {
        let Some(inst) = decode(word) else {
            return Err(Exit::Undefined { word, reason: UndefinedReason::Unallocated });
        };
        self.dispatch(inst, word)
    }

    fn dispatch(&mut self, inst: Inst, word: u32) -> Step {
        use Inst::*;
        match inst {
            Udf { .. } => self.unallocated(word),
            Adr { op, immlo, immhi, rd } => self.adr(op, immlo, immhi, rd),
            AddSubImm { sf, op, s, sh, imm12, rn, rd } => self.add_sub_immediate(sf, op, s, sh, imm12, rn, rd),
            LogicalImm { sf, opc, n, immr, imms, rn, rd } => {
                self.logical_immediate(word, sf, opc, n, immr, imms, rn, rd)
            }
            MoveWide { sf, opc, hw, imm16, rd } => self.move_wide(word, sf, opc, hw, imm16, rd),
            Bitfield { sf, opc, n, immr, imms, rn, rd } => self.bitfield(word, sf, opc, n, immr, imms, rn, rd),
            Extr { sf, op21, n, o0, rm, imms, rn, rd } => self.extract(word, sf, op21, n, o0, rm, imms, rn, rd),

            BCond { o1, imm19, o0, cond } => self.branch_conditional(word, o1, imm19, o0, cond),
            Svc { imm16 } => Err(Exit::Svc(imm16 as u16)),
            Brk { imm16 } => Err(Exit::Brk(imm16 as u16)),
            Hvc { .. } | Smc { .. } | Hlt { .. } => self.not_at_el0(word),
            Dcps { ll, .. } => {
                if ll == 0 {
                    self.unallocated(word)
                } else {
                    self.not_at_el0(word)
                }
            }
            Hint { crm, op2 } => self.hint(crm, op2),
            Barrier { crm, op2 } => self.barrier(word, crm, op2),
            MsrImm { op1, crm, op2 } => self.msr_immediate(word, op1, crm, op2),
            Sys { l, op1, crn, crm, op2, rt } => self.system_instruction(word, l, op1, crn, crm, op2, rt),
            MsrMrs { l, o0, op1, crn, crm, op2, rt } => self.system_register_move(word, l, o0, op1, crn, crm, op2, rt),
            BranchReg { opc, op2, op3, rn, op4 } => self.branch_register(word, opc, op2, op3, rn, op4),
            BBl { op, imm26 } => self.branch_immediate(op, imm26),
            CbzCbnz { sf, op, imm19, rt } => self.compare_and_branch(sf, op, imm19, rt),
            TbzTbnz { b5, op, b40, imm14, rt } => self.test_and_branch(b5, op, b40, imm14, rt),

            Stxr { size, rs, o0: _, rn, rt } => self.store_exclusive(size, rs, rn, rt),
            Ldxr { size, o0: _, rn, rt } => self.load_exclusive(size, rn, rt),
            Stxp { sz, rs, o0: _, rt2, rn, rt } => self.store_exclusive_pair(sz, rs, rt2, rn, rt),
            Ldxp { sz, o0: _, rt2, rn, rt } => self.load_exclusive_pair(sz, rt2, rn, rt),
            Stlr { size, o0: _, rn, rt } => self.store_release(size, rn, rt),
            Ldar { size, o0: _, rn, rt } | Ldapr { size, rn, rt } => self.load_acquire(size, rn, rt),
            Cas { size, l: _, rs, o0: _, rn, rt } => self.compare_and_swap(size, rs, rn, rt),
            Casp { sz, l: _, rs, o0: _, rn, rt } => self.compare_and_swap_pair(word, sz, rs, rn, rt),
            LdrLiteral { opc, imm19, rt } => self.load_literal(opc, imm19, rt),
            LdstPairNoAlloc { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(word, PairIndexing::NoAllocate, opc, l, imm7, rt2, rn, rt)
            }
            LdstPairPost { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(word, PairIndexing::PostIndex, opc, l, imm7, rt2, rn, rt)
            }
            LdstPairOffset { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(word, PairIndexing::Offset, opc, l, imm7, rt2, rn, rt)
            }
            LdstPairPre { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(word, PairIndexing::PreIndex, opc, l, imm7, rt2, rn, rt)
            }
            LdstUnscaled { size, opc, imm9, rn, rt } => {
                self.load_store_immediate(word, Indexing::Unscaled, size, opc, imm9, rn, rt)
            }
            LdstImmPost { size, opc, imm9, rn, rt } => {
                self.load_store_immediate(word, Indexing::PostIndex, size, opc, imm9, rn, rt)
            }
            LdstUnprivileged { size, opc, imm9, rn, rt } => {
                self.load_store_immediate(word, Indexing::Unprivileged, size, opc, imm9, rn, rt)
            }
            LdstImmPre { size, opc, imm9, rn, rt } => {
                self.load_store_immediate(word, Indexing::PreIndex, size, opc, imm9, rn, rt)
            }
            LdstUnsigned { size, opc, imm12, rn, rt } => {
                self.load_store_immediate(word, Indexing::UnsignedOffset, size, opc, imm12, rn, rt)
            }
            LdAtomic { size, a: _, r: _, rs, opc, rn, rt } => self.atomic_memory_op(size, rs, opc, rn, rt),
            Swp { size, a: _, r: _, rs, rn, rt } => self.swap(size, rs, rn, rt),
            LdstRegister { size, opc, rm, option, s, rn, rt } => {
                self.load_store_register_offset(word, size, opc, rm, option, s, rn, rt)
            }

            Dp2src { sf, s, rm, opcode, rn, rd } => self.data_processing_2_source(word, sf, s, rm, opcode, rn, rd),
            Dp1src { sf, s, opcode2, opcode, rn, rd } => {
                self.data_processing_1_source(word, sf, s, opcode2, opcode, rn, rd)
            }
            LogicalShifted { sf, opc, shift, n, rm, imm6, rn, rd } => {
                self.logical_shifted_register(word, sf, opc, shift, n, rm, imm6, rn, rd)
            }
            AddSubShifted { sf, op, s, shift, rm, imm6, rn, rd } => {
                self.add_sub_shifted_register(word, sf, op, s, shift, rm, imm6, rn, rd)
            }
            AddSubExtended { sf, op, s, opt, rm, option, imm3, rn, rd } => {
                self.add_sub_extended_register(word, sf, op, s, opt, rm, option, imm3, rn, rd)
            }
            AdcSbc { sf, op, s, rm, rn, rd } => self.add_sub_with_carry(sf, op, s, rm, rn, rd),
            Rmif { imm6, rn, mask } => self.rotate_right_into_flags(imm6, rn, mask),
            Setf { sz, rn } => self.evaluate_into_flags(sz, rn),
            CcmpReg { sf, op, s, rm, cond, o2, rn, o3, nzcv } => {
                let operand2 = self.x(rm, pseudocode::datasize(sf));
                self.conditional_compare(word, sf, op, s, operand2, cond, o2, rn, o3, nzcv)
            }
            CcmpImm { sf, op, s, imm5, cond, o2, rn, o3, nzcv } => {
                self.conditional_compare(word, sf, op, s, u64::from(imm5), cond, o2, rn, o3, nzcv)
            }
            Csel { sf, op, s, rm, cond, op2, rn, rd } => {
                self.conditional_select(word, sf, op, s, rm, cond, op2, rn, rd)
            }
            Dp3src { sf, op54, op31, rm, o0, ra, rn, rd } => {
                self.data_processing_3_source(word, sf, op54, op31, rm, o0, ra, rn, rd)
            }

            LdstPac { m, s, imm9, w, rn, rt } => self.load_register_pac(m, s, imm9, w, rn, rt),

            SimdLdstMultiple { q, l, opcode, size, rn, rt } => {
                self.load_store_multiple_structures(word, q, l, None, opcode, size, rn, rt)
            }
            SimdLdstMultiplePost { q, l, rm, opcode, size, rn, rt } => {
                self.load_store_multiple_structures(word, q, l, Some(rm), opcode, size, rn, rt)
            }
            SimdLdstSingle { q, l, r, opcode, s, size, rn, rt } => {
                self.load_store_single_structure(word, q, l, r, None, opcode, s, size, rn, rt)
            }
            SimdLdstSinglePost { q, l, r, rm, opcode, s, size, rn, rt } => {
                self.load_store_single_structure(word, q, l, r, Some(rm), opcode, s, size, rn, rt)
            }
            LdrLiteralSimdFp { opc, imm19, rt } => self.load_simd_fp_literal(word, opc, imm19, rt),
            LdstPairNoAllocSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_simd_fp_pair(word, PairIndexing::NoAllocate, opc, l, imm7, rt2, rn, rt)
            }
            LdstPairPostSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_simd_fp_pair(word, PairIndexing::PostIndex, opc, l, imm7, rt2, rn, rt)
            }
            LdstPairOffsetSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_simd_fp_pair(word, PairIndexing::Offset, opc, l, imm7, rt2, rn, rt)
            }
            LdstPairPreSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_simd_fp_pair(word, PairIndexing::PreIndex, opc, l, imm7, rt2, rn, rt)
            }
            LdstUnscaledSimdFp { size, opc, imm9, rn, rt } => {
                self.load_store_simd_fp_immediate(word, Indexing::Unscaled, size, opc, imm9, rn, rt)
            }
            LdstImmPostSimdFp { size, opc, imm9, rn, rt } => {
                self.load_store_simd_fp_immediate(word, Indexing::PostIndex, size, opc, imm9, rn, rt)
            }
            LdstImmPreSimdFp { size, opc, imm9, rn, rt } => {
                self.load_store_simd_fp_immediate(word, Indexing::PreIndex, size, opc, imm9, rn, rt)
            }
            LdstRegisterSimdFp { size, opc, rm, option, s, rn, rt } => {
                self.load_store_simd_fp_register_offset(word, size, opc, rm, option, s, rn, rt)
            }
            LdstUnsignedSimdFp { size, opc, imm12, rn, rt } => {
                self.load_store_simd_fp_immediate(word, Indexing::UnsignedOffset, size, opc, imm12, rn, rt)
            }

            CryptoAes { size, opcode, rn, rd } => self.cryptographic_aes(word, size, opcode, rn, rd),
            CryptoThreeRegSha { size, rm, opcode, rn, rd } => {
                self.cryptographic_three_register_sha(word, size, rm, opcode, rn, rd)
            }
            CryptoTwoRegSha { size, opcode, rn, rd } => self.cryptographic_two_register_sha(word, size, opcode, rn, rd),
            SimdScalarCopy { op, imm5, imm4, rn, rd } => self.advanced_simd_scalar_copy(word, op, imm5, imm4, rn, rd),
            SimdScalarThreeSameFp16 { u, a, rm, opcode, rn, rd } => {
                self.advanced_simd_scalar_three_same_fp16(word, u, a, rm, opcode, rn, rd)
            }
            SimdScalarTwoRegMiscFp16 { u, a, opcode, rn, rd } => {
                self.advanced_simd_scalar_two_reg_misc_fp16(word, u, a, opcode, rn, rd)
            }
            SimdScalarThreeSameExtra { u, size, rm, opcode, rn, rd } => {
                self.advanced_simd_scalar_three_same_extra(word, u, size, rm, opcode, rn, rd)
            }
            SimdScalarTwoRegMisc { u, size, opcode, rn, rd } => {
                self.advanced_simd_scalar_two_reg_misc(word, u, size, opcode, rn, rd)
            }
            SimdScalarPairwise { u, size, opcode, rn, rd } => {
                self.advanced_simd_scalar_pairwise(word, u, size, opcode, rn, rd)
            }
            SimdScalarThreeDifferent { u, size, rm, opcode, rn, rd } => {
                self.advanced_simd_scalar_three_different(word, u, size, rm, opcode, rn, rd)
            }
            SimdScalarThreeSame { u, size, rm, opcode, rn, rd } => {
                self.advanced_simd_scalar_three_same(word, u, size, rm, opcode, rn, rd)
            }
            SimdScalarShiftImm { u, immh, immb, opcode, rn, rd } => {
                self.advanced_simd_scalar_shift_by_immediate(word, u, immh, immb, opcode, rn, rd)
            }
            SimdScalarIndexed { u, size, l, m, rm, opcode, h, rn, rd } => {
                self.advanced_simd_scalar_indexed_element(word, u, size, l, m, rm, opcode, h, rn, rd)
            }
            SimdTableLookup { q, op2, rm, len, op, rn, rd } => {
                self.advanced_simd_table_lookup(word, q, op2, rm, len, op, rn, rd)
            }
            SimdPermute { q, size, rm, opcode, rn, rd } => {
                self.advanced_simd_permute(word, q, size, rm, opcode, rn, rd)
            }
            SimdExtract { q, op2, rm, imm4, rn, rd } => self.advanced_simd_extract(word, q, op2, rm, imm4, rn, rd),
            SimdCopy { q, op, imm5, imm4, rn, rd } => self.advanced_simd_copy(word, q, op, imm5, imm4, rn, rd),
            SimdThreeSameFp16 { q, u, a, rm, opcode, rn, rd } => {
                self.advanced_simd_three_same_fp16(word, q, u, a, rm, opcode, rn, rd)
            }
            SimdTwoRegMiscFp16 { q, u, a, opcode, rn, rd } => {
                self.advanced_simd_two_reg_misc_fp16(word, q, u, a, opcode, rn, rd)
            }
            SimdThreeRegExtension { q, u, size, rm, opcode, rn, rd } => {
                self.advanced_simd_three_reg_extension(word, q, u, size, rm, opcode, rn, rd)
            }
            SimdTwoRegMisc { q, u, size, opcode, rn, rd } => {
                self.advanced_simd_two_reg_misc(word, q, u, size, opcode, rn, rd)
            }
            SimdAcrossLanes { q, u, size, opcode, rn, rd } => {
                self.advanced_simd_across_lanes(word, q, u, size, opcode, rn, rd)
            }
            SimdThreeDifferent { q, u, size, rm, opcode, rn, rd } => {
                self.advanced_simd_three_different(word, q, u, size, rm, opcode, rn, rd)
            }
            SimdThreeSame { q, u, size, rm, opcode, rn, rd } => {
                self.advanced_simd_three_same(word, q, u, size, rm, opcode, rn, rd)
            }
            SimdModifiedImm { q, op, abc, cmode, o2, defgh, rd } => {
                self.advanced_simd_modified_immediate(word, q, op, abc, cmode, o2, defgh, rd)
            }
            SimdShiftImm8 { q, u, immb, opcode, rn, rd } => {
                self.advanced_simd_shift_by_immediate(word, q, u, 0b0001, immb, opcode, rn, rd)
            }
            SimdShiftImm16 { q, u, immh, immb, opcode, rn, rd } => {
                self.advanced_simd_shift_by_immediate(word, q, u, 0b0010 | immh, immb, opcode, rn, rd)
            }
            SimdShiftImm32 { q, u, immh, immb, opcode, rn, rd } => {
                self.advanced_simd_shift_by_immediate(word, q, u, 0b0100 | immh, immb, opcode, rn, rd)
            }
            SimdShiftImm64 { q, u, immh, immb, opcode, rn, rd } => {
                self.advanced_simd_shift_by_immediate(word, q, u, 0b1000 | immh, immb, opcode, rn, rd)
            }
            SimdIndexed { q, u, size, l, m, rm, opcode, h, rn, rd } => {
                self.advanced_simd_vector_indexed_element(word, q, u, size, l, m, rm, opcode, h, rn, rd)
            }
            FpFixedConversion { sf, s, ftype, rmode, opcode, scale, rn, rd } => {
                self.conversion_between_fp_and_fixed_point(word, sf, s, ftype, rmode, opcode, scale, rn, rd)
            }
            FpIntegerConversion { sf, s, ftype, rmode, opcode, rn, rd } => {
                self.conversion_between_fp_and_integer(word, sf, s, ftype, rmode, opcode, rn, rd)
            }
            FpDataProcessing1 { m, s, ftype, opcode, rn, rd } => {
                self.fp_data_processing_1_source(word, m, s, ftype, opcode, rn, rd)
            }
            FpCompare { m, s, ftype, rm, op, rn, opcode2 } => self.fp_compare(word, m, s, ftype, rm, op, rn, opcode2),
            FpImmediate { m, s, ftype, imm8, imm5, rd } => self.fp_immediate(word, m, s, ftype, imm8, imm5, rd),
            FpCondCompare { m, s, ftype, rm, cond, rn, op, nzcv } => {
                self.fp_conditional_compare(word, m, s, ftype, rm, cond, rn, op, nzcv)
            }
            FpDataProcessing2 { m, s, ftype, rm, opcode, rn, rd } => {
                self.fp_data_processing_2_source(word, m, s, ftype, rm, opcode, rn, rd)
            }
            FpCondSelect { m, s, ftype, rm, cond, rn, rd } => {
                self.fp_conditional_select(word, m, s, ftype, rm, cond, rn, rd)
            }
            FpDataProcessing3 { m, s, ftype, o1, rm, o0, ra, rn, rd } => {
                self.fp_data_processing_3_source(word, m, s, ftype, o1, rm, o0, ra, rn, rd)
            }
        }
    }

    // --- Results that stop execution -------------------------------------------------------------------------

    fn unallocated(&self, word: u32) -> Step {
        Err(Exit::Undefined { word, reason: UndefinedReason::Unallocated })
    }

    fn not_at_el0(&self, word: u32) -> Step {
        Err(Exit::Undefined { word, reason: UndefinedReason::NotAtEl0 })
    }

    /// `ConstrainUnpredictable`: records the case; the caller goes on with the behaviour `Unpredictable` documents.
    fn constrain_unpredictable(&mut self, case: Unpredictable) {
        self.unpredictable.get_or_insert(case);
    }

    // --- Registers (the pseudocode's X[], SP[], PSTATE) --------------------------------------------------------

    /// `X[n]` read at `width` bits: register 31 reads as zero.
    fn x(&self, n: u32, width: u32) -> u64 {
        if n == 31 { 0 } else { self.cpu.x[n as usize] & ones(width) }
    }

    /// `X[n] = value` at `width` bits, zero-extended to 64; register 31 discards the write.
    fn set_x(&mut self, n: u32, value: u64, width: u32) {
        if n != 31 {
            self.cpu.x[n as usize] = value & ones(width);
        }
    }

    /// Register `n` where 31 means SP (the `n == 31 then SP[] else X[n]` idiom), at `width` bits.
    fn x_or_sp(&self, n: u32, width: u32) -> u64 {
        if n == 31 { self.cpu.sp & ones(width) } else { self.x(n, width) }
    }

    fn set_x_or_sp(&mut self, n: u32, value: u64, width: u32) {
        if n == 31 {
            self.cpu.sp = value & ones(width);
        } else {
            self.set_x(n, value, width);
        }
    }

    // --- SIMD&FP registers (the pseudocode's V[] and Vpart[]) ----------------------------------------------------

    /// `V[n]` read at `width` bits (8 to 128): the low bits of the register.
    fn v(&self, n: u32, width: u32) -> u128 {
        self.cpu.v[n as usize] & ones128(width)
    }

    /// `V[n] = value` at `width` bits. The value is zero-extended to the whole register: a write of a scalar or of
    /// a 64-bit vector to a SIMD&FP register clears the bits above it.
    fn set_v(&mut self, n: u32, value: u128, width: u32) {
        self.cpu.v[n as usize] = value & ones128(width);
    }

    /// `Vpart[n, part]` read at `width` bits: part 0 is `V[n]`, part 1 the upper half of a 128-bit register (then
    /// `width` is 64).
    fn vpart(&self, n: u32, part: u32, width: u32) -> u128 {
        if part == 0 { self.v(n, width) } else { self.cpu.v[n as usize] >> 64 }
    }

    /// `Vpart[n, part] = value` at `width` bits: part 0 writes `V[n]` (clearing the bits above), part 1 the upper
    /// 64 bits alone (the lower half stays).
    fn set_vpart(&mut self, n: u32, part: u32, value: u128, width: u32) {
        if part == 0 {
            self.set_v(n, value, width);
        } else {
            let lower = self.v(n, 64);
            self.cpu.v[n as usize] = (value & ones128(64)) << 64 | lower;
        }
    }

    fn flags(&self) -> Flags {
        self.cpu.flags()
    }

    fn set_flags(&mut self, flags: Flags) {
        self.cpu.set_flags(flags);
    }

    /// `BranchTo(target)`.
    fn branch_to(&mut self, target: u64) {
        self.next_pc = target;
    }

    // --- Memory (the pseudocode's Mem[]) ----------------------------------------------------------------------

    fn fault(fault: MemoryFault) -> Exit {
        Exit::MemoryFault(fault)
    }

    /// `Mem[address, size]` read, little-endian, `size` bytes (1 to 16).
    fn mem_read(&self, address: u64, size: usize) -> Result<u128, Exit> {
        self.memory.read_le(address, size).map_err(Self::fault)
    }

    fn mem_write(&self, address: u64, size: usize, value: u128) -> Step {
        self.memory.write_le(address, size, value).map_err(Self::fault)
    }

    /// Checks that `size` bytes at `address` may be accessed, before a multi-part access writes anything.
    fn mem_check(&self, address: u64, size: usize, access: Access) -> Step {
        self.memory.check(address, size as u64, access).map_err(Self::fault)
    }

    /// The alignment check of exclusive, atomic and acquire/release accesses (`CheckAlignment`).
    fn check_alignment(&self, address: u64, size: usize, access: Access) -> Step {
        if !address.is_multiple_of(size as u64) {
            return Err(Exit::MemoryFault(MemoryFault { address, access, reason: FaultReason::Alignment }));
        }
        Ok(())
    }
}

/// Addressing forms of the single-register immediate loads and stores.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Indexing {
    Unscaled,
    PostIndex,
    Unprivileged,
    PreIndex,
    UnsignedOffset,
}

/// Addressing forms of the pair loads and stores.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PairIndexing {
    NoAllocate,
    PostIndex,
    Offset,
    PreIndex,
}
