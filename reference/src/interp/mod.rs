//! The reference interpreter: fetch, decode through the table, execute one handler per Arm ARM instruction page.
//!
//! Handlers live in one file per section of the Arm ARM's A64 encoding index and read like the pseudocode:
//! decode section first (UNDEFINED cases), then operation. A handler returns `Err(exit)` to stop; everything it
//! changes before it returns `Err` must be nothing (memory accesses are checked before the first write).

#![allow(clippy::too_many_arguments)] // Handlers take the fields of their encoding, as the pseudocode does.

mod branch;
mod data_imm;
mod data_reg;
mod load_store;
pub mod pseudocode;
mod system;

use crate::decode::{Inst, decode};
use crate::engine::{Engine, Exit, GuestClock, RunResult, UndefinedReason};
use crate::memory::{Access, FaultReason, GuestMemory, MemoryFault};
use crate::state::{CpuState, Flags};
use crate::sysreg::CpuIdentity;
use pseudocode::ones;

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
    /// The most recent CONSTRAINED UNPREDICTABLE case of the last `run`, with its PC.
    pub last_unpredictable: Option<(u64, Unpredictable)>,
}

impl Interpreter {
    pub fn new(identity: CpuIdentity) -> Interpreter {
        Interpreter { identity, last_unpredictable: None }
    }
}

impl Default for Interpreter {
    fn default() -> Self {
        Interpreter::new(CpuIdentity::CORTEX_A78C)
    }
}

impl Engine for Interpreter {
    fn run(&mut self, cpu: &mut CpuState, memory: &GuestMemory, budget: u64, clock: GuestClock) -> RunResult {
        self.last_unpredictable = None;
        let mut retired = 0;
        while retired < budget {
            let pc = cpu.pc;
            let word = match memory.fetch(pc) {
                Ok(word) => word,
                Err(fault) => return RunResult { exit: Exit::MemoryFault(fault), retired },
            };
            let mut exec = Exec {
                cpu: &mut *cpu,
                memory,
                pc,
                next_pc: pc.wrapping_add(4),
                counter: clock.counter(retired),
                identity: &self.identity,
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
    /// CNTVCT_EL0 as this instruction sees it.
    counter: u64,
    identity: &'a CpuIdentity,
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

            LdstPac { .. } => self.not_implemented(word, "pointer authentication (LDRAA/LDRAB)"),
            SimdFpData { .. } | SimdFpLoadStore { .. } => Err(Exit::Undefined {
                word,
                reason: UndefinedReason::NotImplemented("floating point and Advanced SIMD"),
            }),
        }
    }

    // --- Results that stop execution -------------------------------------------------------------------------

    fn unallocated(&self, word: u32) -> Step {
        Err(Exit::Undefined { word, reason: UndefinedReason::Unallocated })
    }

    fn not_at_el0(&self, word: u32) -> Step {
        Err(Exit::Undefined { word, reason: UndefinedReason::NotAtEl0 })
    }

    fn not_implemented(&self, word: u32, what: &'static str) -> Step {
        Err(Exit::Undefined { word, reason: UndefinedReason::NotImplemented(what) })
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
