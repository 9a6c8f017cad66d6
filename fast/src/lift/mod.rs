//! The lifter: one region of guest code to one Cranelift function. Which instructions a region holds, and how
//! control moves between them (a straight path, or a graph of labels with loops inside), is `region`'s job; this
//! module lifts instructions and keeps the guest state along a run: guest registers are plain SSA values, NZCV
//! is lazy, and every exit writes back what changed.
//!
//! The compiled function uses Cranelift's `tail` calling convention: `fn(context: *mut Context, budget: u64) ->
//! u64`, `context` being the engine's `Context` (the `CpuState`, then the `Runtime` and the chain table at fixed
//! offsets: one pointer reaches all three, which leaves host registers to the guest's). The guarded view of guest
//! memory is in Cranelift's pinned register (r15), which the trampoline sets: it is never spilled, never saved in
//! a block's prologue, and no block changes it. `budget` is how many instructions may still retire. At its end a block looks its successor up in
//! the chain table and, when it is there and fits in what is left of the budget, tail-calls it (block linking
//! without the dispatcher). It returns the budget left, with `INTERPRET_NEXT` set when the instruction at the new
//! PC must be executed by the reference interpreter (one the lifter leaves to it, or an access an inline check
//! stopped: the reference then reports the exact fault, or performs the rare access exactly), and `REPLAY` too
//! when the host refused an access (`fault`). Rust enters through `fault::enter` and a trampoline (`trampoline`)
//! in the host's C calling convention.
//!
//! Invariants:
//! - Guest registers live in SSA values inside a block (carried between a graph region's labels as block
//!   parameters) and are written back to the `CpuState` at every exit, side exits included; NZCV is kept as the
//!   operands of the last flag-setting instruction and computed only where it is read. Exits leave it so in
//!   `Runtime::exit_flags`; `CpuState::nzcv` is current only while that record says `IN_CPU`, and every store
//!   of packed NZCV says so (`store_packed_flags`).
//! - Every guest access that may fault has a replay point before it on every path (`sync`; see `fault` for what
//!   makes one valid), and its host access carries trap code `GUEST_ACCESS`. Its address lies inside the guest's
//!   address space, or the access faults on the host or traps: the address, or a value it is at most
//!   `NEAR_OFFSET` bytes from, was checked on every path to it (`checked`), and the view's guards
//!   (`VIEW_GUARD`) catch what lies that near past either end of the space. Every inline check (alignment)
//!   happens before the instruction changes anything, so a side exit leaves the state exactly as it was before
//!   that instruction, with the instructions before it retired. A store of several host accesses that crosses a
//!   page writes its last byte's page first, with the byte that is there (`probe_last_page`), so that a fault
//!   leaves memory as it was.
//! - The generated code has no relocations: it addresses only its arguments and calls helpers only through the
//!   `Runtime` table, so it can be copied anywhere and stored on disk.
//! - Constrained-unpredictable cases, pair exclusives and CASP, most system registers, FP and SIMD arithmetic are
//!   left to the reference interpreter, so the two paths resolve them identically by construction.

mod atomic;
mod branch;
mod data;
mod flags;
mod fp_arith;
mod fp_half;
mod load_store;
mod region;
mod simd_fp;
mod simd_integer;
mod simd_moves;
mod simd_permute;
mod simd_shift;

use crate::edges::EdgeProfile;
use crate::fault::FaultRecord;
use crate::runtime::{CHAIN_AT, Context, RUNTIME_AT, Runtime};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, DataFlowGraph, Endianness, Function, InstBuilder, InstructionData, MemFlagsData, Opcode,
    Signature, TrapCode, Type, UserFuncName, Value, ValueDef, types,
};
use cranelift_codegen::isa::{CallConv, TargetIsa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use flags::{FlagsShape, FlagsState};
pub use region::lift_block;
use std::mem::offset_of;
use tandem_reference::CpuState;
use tandem_reference::decode::{ENCODINGS, Inst};
use tandem_reference::memory::{ADDRESS_SPACE_BITS, GuestMemory, PAGE_SIZE, Perm, VIEW_GUARD};

/// Set in a block's return value when the reference interpreter must execute the instruction at the new PC.
pub const INTERPRET_NEXT: u64 = 1 << 63;

/// Set (by the fault handler, with `INTERPRET_NEXT`) when the reference must run from the new PC until it
/// exits: the state is a replay point before a guest access the host refused (`fault`).
pub const REPLAY: u64 = 1 << 62;

/// Entries of the chain table (a power of two), indexed by `(pc / 4) % CHAIN_ENTRIES`.
pub const CHAIN_ENTRIES: usize = 1 << 14;

/// One entry of the chain table, which the engine keeps and compiled code reads.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ChainEntry {
    /// The guest address of the block, `u64::MAX` when empty.
    pub pc: u64,
    /// Its compiled code, 0 for a block the reference runs.
    pub code: u64,
    /// Its length; `u64::MAX` for a block the reference runs, so that no budget admits it.
    pub instructions: u64,
}

impl ChainEntry {
    pub const EMPTY: ChainEntry = ChainEntry { pc: u64::MAX, code: 0, instructions: u64::MAX };
}

/// The signature of every compiled block.
fn block_signature() -> Signature {
    let mut signature = Signature::new(CallConv::Tail);
    signature.params.extend([AbiParam::new(types::I64); 2]);
    signature.returns.push(AbiParam::new(types::I64));
    signature
}

/// What the trampoline reads its block's arguments from (`trampoline`).
#[repr(C)]
pub struct EntryArgs {
    pub code: u64,
    pub context: *mut Context,
    /// The guarded view of guest memory (`GuestMemory::guarded_base`).
    pub memory: *mut u8,
    pub budget: u64,
}

/// The function Rust calls to enter compiled code (through `fault::enter`): `extern "C" fn(args: *const
/// EntryArgs) -> u64` puts `args.memory` in the pinned register, calls the block at `args.code` with the context
/// and the budget, and returns what it returns. (`fault::enter` saves and restores r15 around it.)
pub fn trampoline(isa: &dyn TargetIsa) -> Function {
    let mut signature = Signature::new(isa.default_call_conv());
    signature.params.push(AbiParam::new(types::I64));
    signature.returns.push(AbiParam::new(types::I64));
    let mut function = Function::with_name_signature(UserFuncName::user(0, 1), signature);
    let mut builder_context = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut function, &mut builder_context);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let args = b.block_params(entry)[0];
    let field = |b: &mut FunctionBuilder, offset: usize| b.ins().load(types::I64, host_flags(), args, offset as i32);
    let code = field(&mut b, offset_of!(EntryArgs, code));
    let memory = field(&mut b, offset_of!(EntryArgs, memory));
    b.ins().set_pinned_reg(memory);
    let arguments = [offset_of!(EntryArgs, context), offset_of!(EntryArgs, budget)].map(|offset| field(&mut b, offset));
    let block = b.import_signature(block_signature());
    let call = b.ins().call_indirect(block, code, &arguments);
    let result = b.inst_results(call)[0];
    b.ins().return_(&[result]);
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());
    function
}

/// The constant `value` is, sign-extended from its type, when an `iconst` made it (through the extensions and
/// narrowings that W registers' writes and reads put around it).
pub(super) fn constant_value(dfg: &DataFlowGraph, value: Value) -> Option<i64> {
    let ValueDef::Result(inst, 0) = dfg.value_def(value) else { return None };
    let bits = match dfg.insts[inst] {
        InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => imm.bits(),
        InstructionData::Unary { opcode: Opcode::Ireduce | Opcode::Sextend, arg } => constant_value(dfg, arg)?,
        InstructionData::Unary { opcode: Opcode::Uextend, arg } => {
            constant_value(dfg, arg)? & (u64::MAX >> (64 - dfg.value_type(arg).bits())) as i64
        }
        _ => return None,
    };
    let unused = 64 - dfg.value_type(value).bits();
    Some(bits << unused >> unused)
}

/// The most instructions one block holds by default (a bound on compile time and on budget granularity).
pub const MAX_BLOCK_INSTRUCTIONS: u32 = 64;

/// A lifted block (region), ready for Cranelift's code generator.
pub struct LiftedBlock {
    pub function: Function,
    /// The instructions it holds: no run through it retires more (the dispatcher's budget check).
    pub instructions: u32,
    /// Where execution may continue after the block, as far as the code says (direct branch targets, return
    /// sites, the instruction after one left to the reference); `tandem aot` follows them.
    pub successors: Vec<u64>,
    /// The pages other than its start's that it holds instructions of (its code depends on their bytes too).
    pub other_pages: Vec<u64>,
    /// The addresses of the instructions it holds.
    pub addresses: Vec<u64>,
}

/// Whether the code at `pc` may be compiled: its page is executable, not writable and no view of shared pages
/// (which another, writable address may change: code memory), so guest stores cannot change it.
pub fn compilable(memory: &GuestMemory, pc: u64) -> bool {
    memory.perm_at(pc).is_some_and(|perm| perm.contains(Perm::EXECUTE) && !perm.contains(Perm::WRITE))
        && !memory.is_shared(pc)
}

/// The trap code of guest accesses that may fault (`fault`).
pub const GUEST_ACCESS: TrapCode = TrapCode::unwrap_user(1);

/// The farthest an address may lie from a checked value and go unchecked: with the access's size, well inside
/// the view's guards.
const NEAR_OFFSET: u64 = VIEW_GUARD / 2;

/// Why an instruction was not lifted: the reference executes it.
pub(crate) struct Unlifted;

pub(crate) type Lift = Result<Flow, Unlifted>;

/// What follows a lifted instruction.
pub(crate) enum Flow {
    Next,
    /// An unconditional direct branch: the region goes on at the target (the lifter ends it there instead when
    /// the region may not hold the target, or already holds it).
    Jump(u64),
    /// The instruction wrote the PC and returned (indirect branches).
    Ended,
}

struct Snapshot {
    registers: [Option<Value>; 32],
    /// How many values `Lifter::checked` held: an instruction only adds to it.
    checked: usize,
    dirty: u32,
    flags: FlagsState,
    flags_dirty: bool,
    flags_segment: Vec<u64>,
    recorded: Recorded,
}

/// What the `CpuState` and `Runtime::fault` hold of the block's state, for the fault handler (`sync`).
#[derive(Clone, Copy, Default)]
struct Recorded {
    /// Registers changed since they were last stored into the `CpuState` (a subset of `Lifter::dirty`).
    unsynced: u32,
    /// Whether the record and the `CpuState` hold a replay point on every path here: the exact state at an
    /// earlier instruction of this run of the block, with nothing since that a rerun from there would not redo
    /// the same way (no write to the `CpuState`, no store after a load).
    replay: bool,
    /// Whether the record holds NZCV as the block knows it now.
    flags: bool,
    /// Whether a guest load may have happened since the replay point: a store after one is not replayable (the
    /// rerun's load would read what the store wrote), so it makes a replay point of its own.
    loaded: bool,
}

/// Register number 31 read as SP.
pub(crate) const SP: u32 = 31;

pub(crate) struct Lifter<'a> {
    pub(crate) b: FunctionBuilder<'a>,
    /// The `Context`: the `CpuState` at offset 0, the `Runtime` at `RUNTIME_AT`, the chain table at `CHAIN_AT`.
    cpu: Value,
    /// The budget left when the block started.
    budget: Value,
    call_conv: CallConv,
    /// The address of the instruction being lifted.
    pub(crate) pc: u64,
    /// Instructions of this run (since the region's start, or its label) before the one being lifted, and of
    /// the whole region; the pages the region lies in (its start's first, at most `MAX_REGION_PAGES`) and the
    /// most instructions it may hold.
    retired: u32,
    count: u32,
    pages: Vec<u64>,
    limit: u32,
    /// Where control went while the interpreter ran this code (`edges`), and the memory lifted from.
    profile: &'a EdgeProfile,
    memory: &'a GuestMemory,
    /// X0-X30 and SP (index 31) as i64 values, once read or written.
    registers: [Option<Value>; 32],
    /// Values known to lie inside the guest's address space on every path here: an address checked before
    /// reaching the current point (the check traps otherwise).
    checked: Vec<Value>,
    /// Registers written in this block (bit n for index n).
    dirty: u32,
    flags: FlagsState,
    flags_dirty: bool,
    /// The addresses lifted since the last instruction that set NZCV (or since the run's label), in a graph:
    /// NZCV as `flags` holds it is what came into each of them (`note_flags_read`).
    flags_segment: Vec<u64>,
    recorded: Recorded,
    /// Registers the instructions read or write, and those they write, anywhere in the region (`RegionPlan`).
    touched: u32,
    written: u32,
    /// Registers written since the current label (or since a call into the reference wrote them all back), and
    /// whether `dirty` still holds the label's own (`RegionPlan::label_dirty`).
    written_in_run: u32,
    dirty_from_label: bool,
    /// Whether the host has a fused multiply-add (`fp_arith` needs it for double precision).
    host_has_fma: bool,
    /// The labels of a region lifted as a graph; `None` for a straight one.
    graph: Option<region::Graph>,
    pub(crate) successors: Vec<u64>,
    /// Every instruction lifted so far (`LiftedBlock::addresses`).
    addresses: Vec<u64>,
}

fn cpu_offset_of_register(index: u32) -> i32 {
    if index == SP { offset_of!(CpuState, sp) as i32 } else { (offset_of!(CpuState, x) + 8 * index as usize) as i32 }
}

/// Host accesses to `CpuState` and to checked guest memory: in bounds (checked) but not necessarily aligned.
fn host_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl Lifter<'_> {
    fn lift(&mut self, inst: Inst, word: u32) -> Lift {
        use Inst::*;
        match inst {
            Adr { op, immlo, immhi, rd } => self.adr(op, immlo, immhi, rd),
            AddSubImm { sf, op, s, sh, imm12, rn, rd } => self.add_sub_immediate(sf, op, s, sh, imm12, rn, rd),
            AddSubShifted { sf, op, s, shift, rm, imm6, rn, rd } => {
                self.add_sub_shifted(sf, op, s, shift, rm, imm6, rn, rd)
            }
            AddSubExtended { sf, op, s, opt, rm, option, imm3, rn, rd } => {
                self.add_sub_extended(sf, op, s, opt, rm, option, imm3, rn, rd)
            }
            AdcSbc { sf, op, s, rm, rn, rd } => self.add_sub_carry(sf, op, s, rm, rn, rd),
            LogicalImm { sf, opc, n, immr, imms, rn, rd } => self.logical_immediate(sf, opc, n, immr, imms, rn, rd),
            LogicalShifted { sf, opc, shift, n, rm, imm6, rn, rd } => {
                self.logical_shifted(sf, opc, shift, n, rm, imm6, rn, rd)
            }
            MoveWide { sf, opc, hw, imm16, rd } => self.move_wide(sf, opc, hw, imm16, rd),
            Bitfield { sf, opc, n, immr, imms, rn, rd } => self.bitfield(sf, opc, n, immr, imms, rn, rd),
            Extr { sf, op21, n, o0, rm, imms, rn, rd } => self.extract(sf, op21, n, o0, rm, imms, rn, rd),
            Csel { sf, op, s, rm, cond, op2, rn, rd } => self.conditional_select(sf, op, s, rm, cond, op2, rn, rd),
            CcmpReg { sf, op, s, rm, cond, o2, rn, o3, nzcv } => {
                self.conditional_compare(sf, op, s, Operand::Register(rm), cond, o2, rn, o3, nzcv)
            }
            CcmpImm { sf, op, s, imm5, cond, o2, rn, o3, nzcv } => {
                self.conditional_compare(sf, op, s, Operand::Immediate(imm5), cond, o2, rn, o3, nzcv)
            }
            Dp1src { sf, s, opcode2, opcode, rn, rd } => self.data_processing_1_source(sf, s, opcode2, opcode, rn, rd),
            Dp2src { sf, s, rm, opcode, rn, rd } => self.data_processing_2_source(sf, s, rm, opcode, rn, rd),
            Dp3src { sf, op54, op31, rm, o0, ra, rn, rd } => {
                self.data_processing_3_source(sf, op54, op31, rm, o0, ra, rn, rd)
            }
            Hint { crm, op2 } => self.hint(crm, op2),
            // Natively where the bits or lanes are all that matters; on the reference in place otherwise.
            FpDataProcessing1 { m, s, ftype, opcode, rn, rd } => self
                .fp_data_processing_1_source(m, s, ftype, opcode, rn, rd)
                .or_else(|Unlifted| self.fp_unary(m, s, ftype, opcode, rn, rd, word))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpDataProcessing2 { m, s, ftype, rm, opcode, rn, rd } => self
                .fp_arithmetic(m, s, ftype, rm, opcode, rn, rd, word)
                .or_else(|Unlifted| self.fp_min_max(m, s, ftype, rm, opcode, rn, rd, word))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpCondCompare { m, s, ftype, rm, cond, rn, op: _, nzcv } => self
                .fp_conditional_compare(m, s, ftype, rm, cond, rn, nzcv, word)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpCondSelect { m, s, ftype, rm, cond, rn, rd } => self
                .fp_conditional_select(m, s, ftype, rm, cond, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpFixedConversion { sf, s, ftype, rmode, opcode, scale, rn, rd } => self
                .fp_fixed_convert(sf, s, ftype, rmode, opcode, scale, rn, rd, word)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpIntegerConversion { sf, s, ftype, rmode, opcode, rn, rd } => self
                .fp_integer_conversion(sf, s, ftype, rmode, opcode, rn, rd)
                .or_else(|Unlifted| self.fp_convert(sf, s, ftype, rmode, opcode, 0, rn, rd, word))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpDataProcessing3 { m, s, ftype, o1, rm, o0, ra, rn, rd } => self
                .fp_multiply_add(m, s, ftype, o1, rm, o0, ra, rn, rd, word)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpImmediate { m, s, ftype, imm8, imm5, rd } => {
                self.fp_move_immediate(m, s, ftype, imm8, imm5, rd).or_else(|Unlifted| self.interpret_in_place(word))
            }
            SimdTwoRegMisc { q, u, size, opcode, rn, rd } => self
                .simd_fp_two_reg_misc(q, u, size, opcode, rn, rd, word)
                .or_else(|Unlifted| self.simd_integer_two_reg_misc(q, u, size, opcode, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdIndexed { q, u, size, l, m, rm, opcode, h, rn, rd } => self
                .simd_fp_indexed(Some(q), u, size, l, m, rm, opcode, h, rn, rd, word)
                .or_else(|Unlifted| self.simd_integer_indexed(Some(q), u, size, l, m, rm, opcode, h, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdShiftImm8 { q, u, immb, opcode, rn, rd } => self
                .simd_shift_immediate(q, u, 0b0001, immb, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdShiftImm16 { q, u, immh, immb, opcode, rn, rd } => self
                .simd_shift_immediate(q, u, 0b0010 | immh, immb, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdShiftImm32 { q, u, immh, immb, opcode, rn, rd } => self
                .simd_shift_immediate(q, u, 0b0100 | immh, immb, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdShiftImm64 { q, u, immh, immb, opcode, rn, rd } => self
                .simd_shift_immediate(q, u, 0b1000 | immh, immb, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdTableLookup { q, op2, rm, len, op, rn, rd } => {
                self.simd_table_lookup(q, op2, rm, len, op, rn, rd).or_else(|Unlifted| self.interpret_in_place(word))
            }
            SimdThreeDifferent { q, u, size, rm, opcode, rn, rd } => self
                .simd_three_different(q, u, size, rm, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdThreeRegExtension { q, u, size, rm, opcode, rn, rd } => self
                .simd_three_reg_extension(q, u, size, rm, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdAcrossLanes { q, u, size, opcode, rn, rd } => self
                .simd_fp_across_lanes(q, u, size, opcode, rn, rd, word)
                .or_else(|Unlifted| self.simd_across_lanes(q, u, size, opcode, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdPermute { q, size, rm, opcode, rn, rd } => {
                self.simd_permute(q, size, rm, opcode, rn, rd).or_else(|Unlifted| self.interpret_in_place(word))
            }
            SimdExtract { q, op2, rm, imm4, rn, rd } => {
                self.simd_extract(q, op2, rm, imm4, rn, rd).or_else(|Unlifted| self.interpret_in_place(word))
            }
            SimdScalarPairwise { u, size, opcode, rn, rd } => self
                .simd_fp_scalar_pairwise(u, size, opcode, rn, rd, word)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdScalarIndexed { u, size, l, m, rm, opcode, h, rn, rd } => self
                .simd_fp_indexed(None, u, size, l, m, rm, opcode, h, rn, rd, word)
                .or_else(|Unlifted| self.simd_integer_indexed(None, u, size, l, m, rm, opcode, h, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdScalarThreeDifferent { u, size, rm, opcode, rn, rd } => self
                .simd_scalar_three_different(u, size, rm, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdScalarThreeSame { u, size, rm, opcode, rn, rd } => self
                .simd_fp_scalar_three_same(u, size, rm, opcode, rn, rd, word)
                .or_else(|Unlifted| self.simd_scalar_three_same(u, size, rm, opcode, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdScalarShiftImm { u, immh, immb, opcode, rn, rd } => self
                .simd_scalar_shift_immediate(u, immh, immb, opcode, rn, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdScalarTwoRegMisc { u, size, opcode, rn, rd } => self
                .simd_scalar_two_reg_misc(u, size, opcode, rn, rd, word)
                .or_else(|Unlifted| self.simd_scalar_integer_two_reg_misc(u, size, opcode, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            FpCompare { m, s, ftype, rm, op, rn, opcode2 } => self
                .fp_compare(m, s, ftype, rm, op, rn, opcode2, word)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdCopy { q, op, imm5, imm4, rn, rd } => {
                self.simd_copy(q, op, imm5, imm4, rn, rd).or_else(|Unlifted| self.interpret_in_place(word))
            }
            SimdThreeSame { q, u, size, rm, opcode, rn, rd } => self
                .simd_fp_three_same(q, u, size, rm, opcode, rn, rd, word)
                .or_else(|Unlifted| self.simd_three_same(q, u, size, rm, opcode, rn, rd))
                .or_else(|Unlifted| self.interpret_in_place(word)),
            SimdModifiedImm { q, op, abc, cmode, o2, defgh, rd } => self
                .simd_modified_immediate(q, op, abc, cmode, o2, defgh, rd)
                .or_else(|Unlifted| self.interpret_in_place(word)),
            MsrMrs { l, o0, op1, crn, crm, op2, rt } => self.system_register_move(l, o0, op1, crn, crm, op2, rt),
            Sys { l: 0, op1: 3, crn: 7, crm: 4, op2: 1, rt } => self.zero_block(rt),
            Barrier { crm: _, op2 } => self.barrier(op2),

            BBl { op, imm26 } => self.branch_immediate(op, imm26),
            BCond { o1, imm19, o0, cond } => self.branch_conditional(o1, imm19, o0, cond),
            CbzCbnz { sf, op, imm19, rt } => self.compare_and_branch(sf, op, imm19, rt),
            TbzTbnz { b5, op, b40, imm14, rt } => self.test_and_branch(b5, op, b40, imm14, rt),
            BranchReg { opc, op2, op3, rn, op4 } => self.branch_register(opc, op2, op3, rn, op4),

            Ldxr { size, o0: _, rn, rt } => self.load_exclusive(size, rn, rt),
            Stxr { size, rs, o0: _, rn, rt } => self.store_exclusive(size, rs, rn, rt),
            Ldar { size, o0: _, rn, rt } | Ldapr { size, rn, rt } => self.load_acquire(size, rn, rt),
            Stlr { size, o0: _, rn, rt } => self.store_release(size, rn, rt),
            LdAtomic { size, a: _, r: _, rs, opc, rn, rt } => self.atomic_memory_op(size, rs, Some(opc), rn, rt),
            Swp { size, a: _, r: _, rs, rn, rt } => self.atomic_memory_op(size, rs, None, rn, rt),
            Cas { size, l: _, rs, o0: _, rn, rt } => self.compare_and_swap(size, rs, rn, rt),
            SimdLdstMultiple { q, l, opcode, size, rn, rt } => {
                self.load_store_multiple(q, l, None, opcode, size, rn, rt)
            }
            SimdLdstMultiplePost { q, l, rm, opcode, size, rn, rt } => {
                self.load_store_multiple(q, l, Some(rm), opcode, size, rn, rt)
            }
            SimdLdstSingle { q, l, r, opcode, s, size, rn, rt } => {
                self.load_store_single_structure(q, l, r, None, opcode, s, size, rn, rt)
            }
            SimdLdstSinglePost { q, l, r, rm, opcode, s, size, rn, rt } => {
                self.load_store_single_structure(q, l, r, Some(rm), opcode, s, size, rn, rt)
            }
            LdrLiteral { opc, imm19, rt } => self.load_literal(opc, imm19, rt, false),
            LdrLiteralSimdFp { opc, imm19, rt } => self.load_literal(opc, imm19, rt, true),
            LdstUnsigned { size, opc, imm12, rn, rt } => {
                self.load_store_single(load_store::Indexing::UnsignedOffset, size, opc, imm12, rn, rt, false)
            }
            LdstUnscaled { size, opc, imm9, rn, rt } => {
                self.load_store_single(load_store::Indexing::Unscaled, size, opc, imm9, rn, rt, false)
            }
            LdstImmPost { size, opc, imm9, rn, rt } => {
                self.load_store_single(load_store::Indexing::PostIndex, size, opc, imm9, rn, rt, false)
            }
            LdstImmPre { size, opc, imm9, rn, rt } => {
                self.load_store_single(load_store::Indexing::PreIndex, size, opc, imm9, rn, rt, false)
            }
            LdstUnsignedSimdFp { size, opc, imm12, rn, rt } => {
                self.load_store_single(load_store::Indexing::UnsignedOffset, size, opc, imm12, rn, rt, true)
            }
            LdstUnscaledSimdFp { size, opc, imm9, rn, rt } => {
                self.load_store_single(load_store::Indexing::Unscaled, size, opc, imm9, rn, rt, true)
            }
            LdstImmPostSimdFp { size, opc, imm9, rn, rt } => {
                self.load_store_single(load_store::Indexing::PostIndex, size, opc, imm9, rn, rt, true)
            }
            LdstImmPreSimdFp { size, opc, imm9, rn, rt } => {
                self.load_store_single(load_store::Indexing::PreIndex, size, opc, imm9, rn, rt, true)
            }
            LdstRegister { size, opc, rm, option, s, rn, rt } => {
                self.load_store_register_offset(size, opc, rm, option, s, rn, rt, false)
            }
            LdstRegisterSimdFp { size, opc, rm, option, s, rn, rt } => {
                self.load_store_register_offset(size, opc, rm, option, s, rn, rt, true)
            }
            LdstPairOffset { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::Offset, opc, l, imm7, rt2, rn, rt, false)
            }
            LdstPairNoAlloc { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::NoAllocate, opc, l, imm7, rt2, rn, rt, false)
            }
            LdstPairPost { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::PostIndex, opc, l, imm7, rt2, rn, rt, false)
            }
            LdstPairPre { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::PreIndex, opc, l, imm7, rt2, rn, rt, false)
            }
            LdstPairOffsetSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::Offset, opc, l, imm7, rt2, rn, rt, true)
            }
            LdstPairNoAllocSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::NoAllocate, opc, l, imm7, rt2, rn, rt, true)
            }
            LdstPairPostSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::PostIndex, opc, l, imm7, rt2, rn, rt, true)
            }
            LdstPairPreSimdFp { opc, l, imm7, rt2, rn, rt } => {
                self.load_store_pair(load_store::PairIndexing::PreIndex, opc, l, imm7, rt2, rn, rt, true)
            }
            _ if computes_in_registers(word) => self.interpret_in_place(word),
            _ => Err(Unlifted),
        }
    }

    /// Runs `word` through the reference's `interpret` helper inside the block. When its family reads or writes
    /// general-purpose registers or NZCV, the block's registers and flags go to the `CpuState` first and are read
    /// from it again after; the others touch only the SIMD&FP registers, FPCR and FPSR, which live in the
    /// `CpuState` anyway. When the reference does not retire it (an UNDEFINED encoding), the block leaves before
    /// it, as for a failed memory check.
    fn interpret_in_place(&mut self, word: u32) -> Lift {
        // Where compiled code calls into the reference: the instructions to lift natively next, when they are hot.
        tracing::debug!(pc = format_args!("{:#x}", self.pc), word = format_args!("{word:#010x}"), "run in place");
        if touches_general_state(word) {
            self.write_back();
            self.registers = [None; 32];
            self.dirty = 0;
            self.written_in_run = 0;
            self.dirty_from_label = false;
            self.flags = FlagsState::InCpu;
            self.flags_dirty = false;
            self.recorded.unsynced = 0;
            self.recorded.flags = false;
            self.recorded.replay = false;
        }
        self.call_interpret(word);
        Ok(Flow::Next)
    }

    /// Calls the reference's `interpret` helper on `word` (on the `CpuState` as it is), leaving the block before
    /// the instruction when the reference does not retire it.
    fn call_interpret(&mut self, word: u32) {
        let word = self.iconst(types::I32, u64::from(word));
        let pc = self.iconst(types::I64, self.pc);
        let runtime = self.b.ins().iadd_imm_s(self.cpu, RUNTIME_AT as i64);
        let args = [runtime, self.cpu, word, pc];
        let offset = offset_of!(Runtime, interpret);
        let status = self.call_runtime(offset, &[types::I64, types::I64, types::I32, types::I64], types::I32, &args);
        // The reference changed the `CpuState`.
        self.recorded.replay = false;
        let retired = self.b.ins().icmp_imm_s(IntCC::Equal, status, 0);
        self.side_exit_unless(retired);
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            registers: self.registers,
            checked: self.checked.len(),
            dirty: self.dirty,
            flags: self.flags,
            flags_dirty: self.flags_dirty,
            flags_segment: self.flags_segment.clone(),
            recorded: self.recorded,
        }
    }

    fn restore(&mut self, saved: Snapshot) {
        self.registers = saved.registers;
        self.checked.truncate(saved.checked);
        self.dirty = saved.dirty;
        self.flags = saved.flags;
        self.flags_dirty = saved.flags_dirty;
        self.flags_segment = saved.flags_segment;
        // What the abandoned lifting emitted stays in the function: keep the record's state no better than both.
        self.recorded = Recorded {
            unsynced: saved.recorded.unsynced | self.recorded.unsynced,
            replay: saved.recorded.replay && self.recorded.replay,
            flags: saved.recorded.flags && self.recorded.flags,
            loaded: saved.recorded.loaded || self.recorded.loaded,
        };
    }

    // --- Registers --------------------------------------------------------------------------------------------

    fn register64(&mut self, index: u32) -> Value {
        self.touched |= 1 << index;
        if let Some(value) = self.registers[index as usize] {
            return value;
        }
        let value = self.b.ins().load(types::I64, host_flags(), self.cpu, cpu_offset_of_register(index));
        self.registers[index as usize] = Some(value);
        value
    }

    /// `X[n]` or `W[n]` (register 31 reads as zero), as an i64 or i32 value.
    pub(crate) fn x(&mut self, n: u32, width: u32) -> Value {
        let value = if n == 31 { self.b.ins().iconst(types::I64, 0) } else { self.register64(n) };
        self.narrow(value, width)
    }

    /// `X[n]`/`W[n]` with register 31 as SP.
    pub(crate) fn x_or_sp(&mut self, n: u32, width: u32) -> Value {
        let value = self.register64(n);
        self.narrow(value, width)
    }

    fn narrow(&mut self, value: Value, width: u32) -> Value {
        if width == 32 { self.b.ins().ireduce(types::I32, value) } else { value }
    }

    /// Writes `X[n]` (an i32 value is zero-extended, as writes to `W[n]` are); register 31 discards.
    pub(crate) fn set_x(&mut self, n: u32, value: Value) {
        if n != 31 {
            self.set_register(n, value);
        }
    }

    /// Writes `X[n]` with register 31 as SP.
    pub(crate) fn set_x_or_sp(&mut self, n: u32, value: Value) {
        self.set_register(n, value);
    }

    fn set_register(&mut self, index: u32, value: Value) {
        let value = if self.b.func.dfg.value_type(value) == types::I32 {
            self.b.ins().uextend(types::I64, value)
        } else {
            value
        };
        self.registers[index as usize] = Some(value);
        self.dirty |= 1 << index;
        self.recorded.unsynced |= 1 << index;
        self.touched |= 1 << index;
        self.written |= 1 << index;
        self.written_in_run |= 1 << index;
    }

    /// The constant `value` truncated to `ty` (I8 to I64), or a vector of it in every lane.
    pub(crate) fn iconst(&mut self, ty: Type, value: u64) -> Value {
        if ty.is_vector() {
            let lane = self.iconst(ty.lane_type(), value);
            return self.b.ins().splat(ty, lane);
        }
        let bits = ty.bits();
        let value = if bits < 64 { value & ((1 << bits) - 1) } else { value };
        self.b.ins().iconst(ty, value as i64)
    }

    /// `value AND constant`, with the constant truncated to the value's type.
    pub(crate) fn and_const(&mut self, value: Value, constant: u64) -> Value {
        let ty = self.b.func.dfg.value_type(value);
        let constant = self.iconst(ty, constant);
        self.b.ins().band(value, constant)
    }

    /// `value OR constant`, with the constant truncated to the value's type.
    pub(crate) fn or_const(&mut self, value: Value, constant: u64) -> Value {
        let ty = self.b.func.dfg.value_type(value);
        let constant = self.iconst(ty, constant);
        self.b.ins().bor(value, constant)
    }

    /// The type of a `width`-bit general-purpose operand.
    pub(crate) fn int_type(width: u32) -> Type {
        if width == 32 { types::I32 } else { types::I64 }
    }

    // --- SIMD&FP registers: accessed in the CpuState directly ---------------------------------------------------

    /// A field of the `CpuState` other than the registers the block caches.
    pub(crate) fn cpu_field(&mut self, ty: Type, offset: usize) -> Value {
        self.b.ins().load(ty, host_flags(), self.cpu, offset as i32)
    }

    /// Writes a `CpuState` field: a rerun from a replay point before it would read the new value.
    pub(crate) fn set_cpu_field(&mut self, value: Value, offset: usize) {
        self.b.ins().store(host_flags(), value, self.cpu, offset as i32);
        self.recorded.replay = false;
    }

    /// Loads the low `ty` bits of V[n].
    pub(crate) fn v_low(&mut self, n: u32, ty: Type) -> Value {
        let offset = (offset_of!(CpuState, v) + 16 * n as usize) as i32;
        self.b.ins().load(ty, host_flags(), self.cpu, offset)
    }

    /// Writes V[n] = zero-extended `value`, as one 16-byte store: a load of the whole register that follows it
    /// (STR Q, an Advanced SIMD operation) is then forwarded from the store buffer, where one that spans two
    /// narrower stores waits for both to reach the cache.
    pub(crate) fn set_v(&mut self, n: u32, value: Value) {
        let ty = self.b.func.dfg.value_type(value);
        let vector = match ty {
            _ if ty.is_vector() => value,
            types::I8 | types::I16 => {
                let word = self.b.ins().uextend(types::I32, value);
                self.b.ins().scalar_to_vector(types::I32X4, word)
            }
            _ => {
                let lanes = ty.by(128 / ty.bits()).filter(|_| ty.bits() <= 64).expect("a scalar of 32 or 64 bits");
                self.b.ins().scalar_to_vector(lanes, value)
            }
        };
        self.set_cpu_field(vector, offset_of!(CpuState, v) + 16 * n as usize);
    }

    // --- Memory -----------------------------------------------------------------------------------------------

    /// The host address of guest `address` in the guarded view, for an access of `size` bytes that needs `need`
    /// and that the caller performs as one host access (all of it or nothing happens, fault or not). The host
    /// access faults where the guest's would (an address outside the address space is clamped to its end, which
    /// the view's guard makes fault too), and a replay point before it (`sync`, where the last one no longer
    /// serves) lets the fault handler rerun the reference up to it.
    pub(crate) fn guest_address(&mut self, address: Value, size: u32, need: Perm) -> Value {
        self.guarded_address(address, size, need, Alignment::Any)
    }

    /// As `guest_address`, for an access the caller performs as several host accesses, first part first: a store
    /// that crosses a page first writes its last byte's page with what it holds (`probe_last_page`).
    pub(crate) fn guest_address_in_parts(&mut self, address: Value, size: u32, need: Perm) -> Value {
        self.guarded_address(address, size, need, Alignment::InParts)
    }

    /// As `guest_address`, for accesses the architecture requires to be aligned to their size (exclusives,
    /// acquire/release, atomics): a misaligned one is left to the reference, which raises the Alignment fault.
    pub(crate) fn aligned_guest_address(&mut self, address: Value, size: u32, need: Perm) -> Value {
        self.guarded_address(address, size, need, Alignment::ToSize)
    }

    fn guarded_address(&mut self, address: Value, size: u32, need: Perm, alignment: Alignment) -> Value {
        let (reads, writes) = (need.contains(Perm::READ), need.contains(Perm::WRITE));
        if alignment == Alignment::ToSize {
            let exit = self.b.create_block();
            self.b.set_cold_block(exit);
            let misalignment = self.b.ins().band_imm_u(address, i64::from(size - 1));
            self.exit_unless_zero(misalignment, exit);
            // The exit is taken before the replay point's stores: it writes back what they would.
            let inside = self.b.current_block().expect("lifting inside a block");
            self.b.switch_to_block(exit);
            let pc = self.b.ins().iconst(types::I64, self.pc as i64);
            self.exit_to(pc, self.retired, true);
            self.b.switch_to_block(inside);
        }
        self.note_access();
        // A store after a load (its own, for an atomic) is not replayable from an earlier point.
        if !self.recorded.replay || (writes && (self.recorded.loaded || reads)) {
            self.sync(self.pc, self.retired);
        }
        self.recorded.loaded |= reads;
        if reads && writes {
            // A rerun of a read-modify-write from its own start would read what it wrote.
            self.recorded.replay = false;
        }
        // An address past the guest's address space traps here, after the replay point, as a refused access
        // would (`fault`). One near a value checked already needs no check: the host faults in the view's guard
        // where it leaves the space. Otherwise the base it is near is checked for the accesses after this one (a
        // base outside the space with the address inside traps too: the reference then performs the access).
        let (base, offset) = self.constant_offset_from(address);
        let near = offset.unsigned_abs() <= NEAR_OFFSET;
        let checked = if near { base } else { address };
        if !self.checked.contains(&checked) {
            let beyond = self.b.ins().ushr_imm_u(checked, i64::from(ADDRESS_SPACE_BITS));
            self.b.ins().trapnz(beyond, GUEST_ACCESS);
            self.checked.push(checked);
        }
        // Read where it is used: a value live across the block would be spilled where registers run short.
        let memory_base = self.b.ins().get_pinned_reg(types::I64);
        let host = self.b.ins().iadd(memory_base, address);
        if size > 1 && writes && alignment == Alignment::InParts {
            self.probe_last_page(address, host, size);
        }
        host
    }

    /// Where a store of several host accesses (each all or nothing) crosses a page, stores the byte its last
    /// byte overwrites, unchanged, before any of them: its first part then faults, if any does, with nothing
    /// written (the host refuses a write to either page exactly where the guest's permissions do; a byte written
    /// as it was changes nothing a rerun sees). A store never spans more than two pages.
    fn probe_last_page(&mut self, address: Value, host: Value, size: u32) {
        let offset = self.b.ins().band_imm_u(address, (PAGE_SIZE - 1) as i64);
        let crosses = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, offset, (PAGE_SIZE - u64::from(size)) as i64);
        let (probe, join) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(probe);
        self.b.ins().brif(crosses, probe, &[], join, &[]);
        self.b.switch_to_block(probe);
        let last = self.b.ins().iadd_imm_s(host, i64::from(size - 1));
        let byte = self.host_load(types::I8, last);
        self.host_store(byte, last, 0);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// `address` as a value plus a constant, following the additions of constants that computed it.
    fn constant_offset_from(&self, address: Value) -> (Value, i64) {
        let dfg = &self.b.func.dfg;
        let (mut base, mut offset) = (address, 0i64);
        while let ValueDef::Result(inst, 0) = dfg.value_def(base)
            && let InstructionData::Binary { opcode: Opcode::Iadd, args: [left, right] } = dfg.insts[inst]
            && let Some(constant) = constant_value(dfg, right)
        {
            base = left;
            offset = offset.wrapping_add(constant);
        }
        (base, offset)
    }

    /// Makes the state at `pc` (after `retired` instructions of this run) a replay point (`fault`): the registers
    /// changed since the last one go to the `CpuState`, and `pc`, the budget left there and NZCV (when changed
    /// since the last) to `Runtime::fault`.
    pub(super) fn sync(&mut self, pc: u64, retired: u32) {
        for index in 0..32 {
            if self.recorded.unsynced & 1 << index != 0 {
                let value = self.registers[index as usize].expect("changed registers have values");
                self.b.ins().store(host_flags(), value, self.cpu, cpu_offset_of_register(index));
            }
        }
        let record = RUNTIME_AT + offset_of!(Runtime, fault);
        let pc = self.iconst(types::I64, pc);
        let left = self.b.ins().iadd_imm_s(self.budget, -i64::from(retired));
        for (value, field) in [(pc, offset_of!(FaultRecord, pc)), (left, offset_of!(FaultRecord, budget))] {
            self.b.ins().store(host_flags(), value, self.cpu, (record + field) as i32);
        }
        if !self.recorded.flags {
            self.store_flags_record(record + offset_of!(FaultRecord, flags), self.flags);
        }
        self.recorded = Recorded { unsynced: 0, replay: true, flags: true, loaded: false };
    }

    /// Goes on when `value` is zero, to `exit` otherwise.
    fn exit_unless_zero(&mut self, value: Value, exit: Block) {
        let next = self.b.create_block();
        self.b.ins().brif(value, exit, &[], next, &[]);
        self.b.switch_to_block(next);
    }

    /// Loads from the host address of the guest access being lifted.
    pub(crate) fn host_load(&mut self, ty: Type, host_address: Value) -> Value {
        let flags = self.guest_flags();
        self.b.ins().load(ty, flags, host_address, 0)
    }

    /// Stores to the host address of the guest access being lifted, in explicitly little-endian order (the host's
    /// anyway) where guest loads take the native one. Cranelift's alias analysis keys memory by that order, so it
    /// never takes a guest store for one that writes back what a guest load just read there ("idempotent") and
    /// drops it, and with it the fault a read-only page owes it (a failing CAS, an LDADD of 0: guest memory is
    /// not Wasm's, where what can be read can be written). Forwarding from guest stores to guest loads goes too;
    /// the guest's registers are SSA values anyway.
    pub(crate) fn host_store(&mut self, value: Value, host_address: Value, offset: i32) {
        let flags = self.guest_flags().with_endianness(Endianness::Little);
        self.b.ins().store(flags, value, host_address, offset);
    }

    /// Guest accesses may fault, with the trap code the handler knows them by.
    fn guest_flags(&self) -> MemFlagsData {
        MemFlagsData::new().with_trap_code(Some(GUEST_ACCESS))
    }

    // --- Runtime helpers --------------------------------------------------------------------------------------

    /// Calls the pure helper at `offset` in the `Runtime` table (in the host's C calling convention).
    pub(crate) fn call_runtime(&mut self, offset: usize, params: &[Type], returns: Type, args: &[Value]) -> Value {
        let mut signature = Signature::new(self.call_conv);
        signature.params.extend(params.iter().map(|&ty| AbiParam::new(ty)));
        signature.returns.push(AbiParam::new(returns));
        let signature = self.b.import_signature(signature);
        let helper = self.b.ins().load(types::I64, host_flags(), self.cpu, (RUNTIME_AT + offset) as i32);
        let call = self.b.ins().call_indirect(signature, helper, args);
        self.b.inst_results(call)[0]
    }

    // --- Exits ------------------------------------------------------------------------------------------------

    /// Continues when `ok` holds; otherwise leaves the block before the current instruction, for the reference.
    fn side_exit_unless(&mut self, ok: Value) {
        let exit = self.b.create_block();
        let next = self.b.create_block();
        self.b.ins().brif(ok, next, &[], exit, &[]);
        self.b.set_cold_block(exit);
        self.b.switch_to_block(exit);
        let pc = self.b.ins().iconst(types::I64, self.pc as i64);
        self.exit_to(pc, self.retired, true);
        self.b.switch_to_block(next);
    }

    /// Ends the block after the current instruction with PC = `target`.
    pub(crate) fn end_block(&mut self, target: Value) -> Lift {
        self.exit_to(target, self.retired + 1, false);
        Ok(Flow::Ended)
    }

    /// Goes to `target` after the current instruction (a conditional branch) when `taken` holds (`transfer`),
    /// and on with the next instruction otherwise.
    pub(crate) fn exit_if(&mut self, taken: Value, target: u64) {
        let exit = self.b.create_block();
        let next = self.b.create_block();
        self.b.ins().brif(taken, exit, &[], next, &[]);
        self.b.switch_to_block(exit);
        self.transfer(self.pc, target, self.retired + 1);
        self.b.switch_to_block(next);
    }

    /// Stores the registers and flags the block changed into the `CpuState` (the block's view stays valid):
    /// registers a replay point stored already and left unchanged since are there.
    fn write_back(&mut self) {
        for index in 0..32 {
            if self.dirty & self.recorded.unsynced & 1 << index != 0 {
                let value = self.registers[index as usize].expect("dirty registers have values");
                self.b.ins().store(host_flags(), value, self.cpu, cpu_offset_of_register(index));
            }
        }
        // Unchanged, NZCV stays as it came for whatever runs next: a read of it all the same.
        self.note_flags_read();
        if self.flags_dirty {
            // Unpacked: whatever runs next likely sets NZCV before it reads it, if it reads it at all.
            let exit_flags = RUNTIME_AT + offset_of!(Runtime, exit_flags);
            match self.flags {
                FlagsState::Lazy(_) => self.store_flags_record(exit_flags, self.flags),
                // Still as the region found it (and as the record says) when `in_cpu` holds.
                FlagsState::AtLabel { in_cpu, carried } => {
                    let (carried_here, done) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(in_cpu, done, &[], carried_here, &[]);
                    self.b.switch_to_block(carried_here);
                    self.store_flags_record(exit_flags, FlagsState::Lazy(carried));
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(done);
                }
                FlagsState::InCpu | FlagsState::Unread => {}
            }
        }
    }

    /// Writes back what the block changed, sets the PC, and chains to the next block or returns.
    fn exit_to(&mut self, pc: Value, retired: u32, interpret_next: bool) {
        self.write_back();
        self.b.ins().store(host_flags(), pc, self.cpu, offset_of!(CpuState, pc) as i32);
        let left = self.b.ins().iadd_imm_s(self.budget, -i64::from(retired));
        if interpret_next {
            let status = self.b.ins().bor_imm_u(left, INTERPRET_NEXT as i64);
            self.b.ins().return_(&[status]);
            return;
        }
        // The chain table entry of the next PC: tail-call its code when it holds that block and the block fits.
        let index = self.b.ins().ushr_imm_u(pc, 2);
        let index = self.b.ins().band_imm_u(index, (CHAIN_ENTRIES - 1) as i64);
        let offset = self.b.ins().imul_imm_u(index, std::mem::size_of::<ChainEntry>() as i64);
        let entry = self.b.ins().iadd(self.cpu, offset);
        let field = |name: usize| (CHAIN_AT + name) as i32;
        let entry_pc = self.b.ins().load(types::I64, host_flags(), entry, field(offset_of!(ChainEntry, pc)));
        let same = self.b.ins().icmp(IntCC::Equal, entry_pc, pc);
        let (held, linked, back) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().brif(same, held, &[], back, &[]);
        self.b.switch_to_block(held);
        let length = self.b.ins().load(types::I64, host_flags(), entry, field(offset_of!(ChainEntry, instructions)));
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, length, left);
        self.b.ins().brif(fits, linked, &[], back, &[]);
        self.b.switch_to_block(linked);
        let code = self.b.ins().load(types::I64, host_flags(), entry, field(offset_of!(ChainEntry, code)));
        let signature = self.b.import_signature(block_signature());
        let args = [self.cpu, left];
        self.b.ins().return_call_indirect(signature, code, &args);
        // Back to the dispatcher: once the successor is compiled and chained, only when the budget runs out.
        self.b.set_cold_block(back);
        self.b.switch_to_block(back);
        self.b.ins().return_(&[left]);
    }
}

/// The family of the decode table `word` belongs to.
fn family_name(word: u32) -> Option<&'static str> {
    ENCODINGS.iter().find(|encoding| encoding.matches(word)).map(|encoding| encoding.family().name)
}

/// Whether `word` belongs to a family that computes only on registers (FP, Advanced SIMD and crypto data
/// processing: no memory, no PC, no clock), which the reference can execute inside a block.
fn computes_in_registers(word: u32) -> bool {
    let Some(family) = family_name(word) else { return false };
    family.starts_with("fp_")
        || family.starts_with("crypto_")
        || (family.starts_with("simd_") && !family.starts_with("simd_ldst") && !family.starts_with("simd_fp_"))
}

/// Whether an instruction that `computes_in_registers` may read or write a general-purpose register or NZCV:
/// the FP compares and conditional selects, conversions between FP and integer registers, and the Advanced SIMD
/// copies to and from general-purpose registers (DUP, INS, SMOV, UMOV). The rest read and write only the
/// SIMD&FP registers, FPCR and FPSR.
fn touches_general_state(word: u32) -> bool {
    matches!(
        family_name(word),
        Some(
            "fp_compare"
                | "fp_cond_compare"
                | "fp_cond_select"
                | "fp_fixed_conversion"
                | "fp_integer_conversion"
                | "simd_copy"
        ) | None
    )
}

/// The second operand of a conditional compare.
#[derive(Clone, Copy)]
pub(crate) enum Operand {
    Register(u32),
    Immediate(u32),
}

/// What an access needs of its address besides permission, checked inline.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alignment {
    Any,
    /// Any, for an access made of several host accesses (a store that crosses a page probes it first).
    InParts,
    /// A multiple of the access size (exclusives, acquire/release, atomics).
    ToSize,
}

/// The Cranelift IR type of an access of `bytes` bytes.
pub(crate) fn access_type(bytes: u32) -> Type {
    match bytes {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        8 => types::I64,
        _ => types::I128,
    }
}
