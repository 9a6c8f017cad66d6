//! The SASS interpreter: the shader reference path. It runs a compute grid on the CPU, one warp of 32 lanes at
//! a time, with the results NVIDIA hardware gives; the translated SPIR-V is checked against it, and it is checked
//! against a real GPU (`tests/sass/cuda/`).
//!
//! The model, which every instruction's semantics relies on:
//! - Each lane has its own registers (R0..R254, RZ reads 0), predicates (P0..P6, PT is true), program counter,
//!   call stack and local memory; uniform registers belong to the warp.
//! - A warp steps the running lanes that sit at the lowest program counter together (the group); a guarded
//!   instruction acts on the group's lanes whose guard holds and the others step over it. Stepping the lowest
//!   PC first is what makes divergent lanes meet again at the convergence points, which the compiler places
//!   after the code they guard.
//! - Convergence barriers (`BSSY`/`BSYNC`, `WARPSYNC`) and CTA barriers (`BAR`) park a lane until its partners
//!   arrive; a warp runs until every lane is parked or has exited, then the next warp runs; when no lane of the
//!   CTA can run, the barriers whose partners have all arrived are released. A CTA whose lanes all wait on
//!   barriers that cannot be released is a deadlock, reported as such.
//! - Cross-lane instructions (votes, shuffles) see the lanes of the group that executes them.
//! - Everything is deterministic: warps run in order, lanes in order.

mod float;
pub(crate) mod mma;
mod ops;
mod sm5x;
mod sm86;
mod surface;
mod texture;
mod video;

pub(crate) use ops::access_bytes;
pub use surface::{Surface, SurfaceFormat};
pub use texture::{Sampler, TextureImage, Textures, Wrap};

use super::{DecodeError, Isa};
use std::fmt;

/// Lanes in a warp.
pub const WARP_SIZE: usize = 32;

/// Lane-instructions a launch may retire before it is stopped as a runaway (`ExecError::StepLimit`).
const DEFAULT_STEP_LIMIT: u64 = 200_000_000;

/// How a kernel is launched: the CTA (block) and grid shapes, and the per-CTA shared and per-thread local memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub block: [u32; 3],
    pub grid: [u32; 3],
    pub shared_bytes: u32,
    pub local_bytes: u32,
}

/// Global memory: buffers at GPU virtual addresses. An access outside every buffer is a fault.
#[derive(Debug, Default, Clone)]
pub struct GlobalMemory {
    buffers: Vec<(u64, Vec<u8>)>,
}

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory::default()
    }

    /// Adds a buffer at `address`. Buffers must not overlap.
    pub fn map(&mut self, address: u64, bytes: Vec<u8>) {
        self.buffers.push((address, bytes));
    }

    /// The contents of the buffer mapped at `address`.
    pub fn buffer(&self, address: u64) -> Option<&[u8]> {
        self.buffers.iter().find(|(base, _)| *base == address).map(|(_, bytes)| bytes.as_slice())
    }

    fn slice(&mut self, address: u64, len: usize) -> Option<&mut [u8]> {
        self.buffers.iter_mut().find_map(|(base, bytes)| {
            let start = usize::try_from(address.checked_sub(*base)?).ok()?;
            bytes.get_mut(start..start.checked_add(len)?)
        })
    }
}

/// Constant buffers `c[bank][offset]`: 18 banks of up to 64 KiB; reads past a bank's end read zero, as the
/// hardware does.
#[derive(Debug, Default, Clone)]
pub struct ConstantBuffers {
    banks: Vec<Vec<u8>>,
}

impl ConstantBuffers {
    pub fn new() -> ConstantBuffers {
        ConstantBuffers { banks: vec![Vec::new(); 18] }
    }

    pub fn set(&mut self, bank: usize, bytes: Vec<u8>) {
        if bank >= self.banks.len() {
            self.banks.resize(bank + 1, Vec::new());
        }
        self.banks[bank] = bytes;
    }

    pub fn read_u32(&self, bank: u64, offset: u64) -> u32 {
        let bytes = self.banks.get(bank as usize).map_or(&[][..], Vec::as_slice);
        let offset = offset as usize;
        let mut word = [0u8; 4];
        for (i, byte) in word.iter_mut().enumerate() {
            *byte = offset.checked_add(i).and_then(|at| bytes.get(at)).copied().unwrap_or(0);
        }
        u32::from_le_bytes(word)
    }
}

/// Why a launch stopped before every thread exited. Each names the instruction set and the byte offset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("{isa}: {what} is not implemented in the SASS interpreter (at offset {offset:#x})")]
    Unimplemented { isa: Isa, what: String, offset: usize },
    /// An opcode the interpreter has no semantics for at all (`Unimplemented` is a form of one it has).
    #[error("{isa}: {opcode} is not implemented in the SASS interpreter: {text} (at offset {offset:#x})")]
    UnknownOpcode { isa: Isa, opcode: &'static str, text: String, offset: usize },
    #[error("{isa}: {space} {kind} of {size} bytes at {address:#x} is outside the memory (at offset {offset:#x})")]
    Fault { isa: Isa, space: &'static str, kind: &'static str, address: u64, size: usize, offset: usize },
    #[error("{isa}: misaligned {space} access of {size} bytes at {address:#x} (at offset {offset:#x})")]
    Misaligned { isa: Isa, space: &'static str, address: u64, size: usize, offset: usize },
    #[error("{isa}: the program counter left the code ({target:#x}, from offset {offset:#x})")]
    PcOutOfCode { isa: Isa, target: i64, offset: usize },
    #[error("{isa}: trap ({what}) at offset {offset:#x}")]
    Trap { isa: Isa, what: String, offset: usize },
    #[error("{isa}: CTA {cta:?} deadlocked: lanes wait on barriers that can never be released ({waiting})")]
    Deadlock { isa: Isa, cta: [u32; 3], waiting: String },
    #[error(
        "{isa}: stopped after {steps} lane-instructions (a runaway loop?) with {at}; raise the limit if it is legitimate"
    )]
    StepLimit { isa: Isa, steps: u64, at: String },
    #[error("bad launch: {0}")]
    BadLaunch(String),
}

/// What a finished launch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions retired, counted per lane that executed them.
    pub lane_instructions: u64,
}

/// What a lane is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LaneStatus {
    Running,
    Exited,
    /// Parked at a convergence barrier (`BSYNC Bn`, or `WARPSYNC` as barrier 16).
    Converging(u8),
    /// Parked at CTA barrier `n` (`BAR.SYNC`).
    AtBarrier(u8),
}

/// The convergence barrier number `WARPSYNC` parks on (past the 16 `Bn` registers).
const WARPSYNC_BARRIER: u8 = 16;

/// One thread's state.
#[derive(Clone)]
struct Lane {
    r: [u32; 256],
    /// P0..P6 in bits 0..=6; bit 7 (PT) is always set.
    p: u8,
    /// Instruction index (not bytes).
    pc: usize,
    status: LaneStatus,
    local: Vec<u8>,
    tid: [u32; 3],
    /// Thread index in the CTA (x fastest); the lane index is this modulo 32.
    linear_id: u32,
    /// The result of the last `BAR.RED` the lane took part in.
    barrier_result: u32,
    /// SM5x: the condition code (zero, sign, carry, overflow) and the stack of reconvergence and return
    /// addresses (SSY/PBK/PCNT targets, CAL/PRET return addresses, PLONGJMP targets: one stack, as the
    /// hardware's), as instruction indices.
    cc: u8,
    sync: Vec<(SyncKind, usize)>,
}

/// What an SM5x stack entry was pushed by: SSY (left by SYNC), PBK (left by BRK), PCNT (left by CONT), CAL or
/// PRET (left by RET), or PLONGJMP (left by LONGJMP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SyncKind {
    Sync,
    Break,
    Continue,
    Call,
    LongJump,
}

impl SyncKind {
    /// The kind a stack instruction pushes, or unwinds to.
    fn of(opcode: &str) -> SyncKind {
        match opcode {
            "SSY" | "SYNC" => SyncKind::Sync,
            "PBK" | "BRK" => SyncKind::Break,
            "CAL" | "PRET" | "RET" => SyncKind::Call,
            "PLONGJMP" | "LONGJMP" => SyncKind::LongJump,
            _ => SyncKind::Continue,
        }
    }
}

impl Lane {
    fn reg(&self, index: u64) -> u32 {
        if index >= 255 { 0 } else { self.r[index as usize] }
    }

    fn set_reg(&mut self, index: u64, value: u32) {
        if index < 255 {
            self.r[index as usize] = value;
        }
    }

    fn reg64(&self, index: u64) -> u64 {
        if index >= 255 { 0 } else { u64::from(self.reg(index)) | u64::from(self.reg(index + 1)) << 32 }
    }

    fn set_reg64(&mut self, index: u64, value: u64) {
        if index < 255 {
            self.set_reg(index, value as u32);
            self.set_reg(index + 1, (value >> 32) as u32);
        }
    }

    fn pred(&self, index: u64) -> bool {
        index >= 7 || self.p >> index & 1 != 0
    }

    /// P0-P6 as bits 0-6 (what P2R packs).
    fn predicate_bits(&self) -> u32 {
        (0..7).filter(|&i| self.pred(i)).fold(0, |bits, i| bits | 1 << i)
    }

    fn set_pred(&mut self, index: u64, value: bool) {
        if index < 7 {
            self.p = self.p & !(1 << index) | u8::from(value) << index;
        }
    }
}

/// One warp: its lanes and the warp-wide state.
struct Warp {
    lanes: Vec<Lane>,
    /// Uniform registers UR0..UR62 (URZ, 63, reads 0).
    ur: [u32; 64],
    /// Uniform predicates UP0..UP6 (UPT is true).
    up: u8,
    /// Convergence barrier registers B0..B15 and the WARPSYNC barrier: the lanes that must arrive.
    convergence: [u32; 17],
    /// Instructions this warp has issued: what its clock registers read.
    clock: u64,
}

impl Warp {
    fn ureg(&self, index: u64) -> u32 {
        if index >= 63 { 0 } else { self.ur[index as usize] }
    }

    fn set_ureg(&mut self, index: u64, value: u32) {
        if index < 63 {
            self.ur[index as usize] = value;
        }
    }

    /// Uniform predicate UP0-UP6; UPT (7) reads true.
    fn upred(&self, index: u64) -> bool {
        index >= 7 || self.up >> index & 1 != 0
    }

    fn set_upred(&mut self, index: u64, value: bool) {
        if index < 7 {
            self.up = self.up & !(1 << index) | u8::from(value) << index;
        }
    }

    /// The running lanes at the lowest program counter, as a mask, and that counter.
    fn next_group(&self) -> Option<(u32, usize)> {
        let pc = self.lanes.iter().filter(|lane| lane.status == LaneStatus::Running).map(|lane| lane.pc).min()?;
        let mask = self
            .lanes
            .iter()
            .enumerate()
            .filter(|(_, lane)| lane.status == LaneStatus::Running && lane.pc == pc)
            .fold(0u32, |mask, (i, _)| mask | 1 << i);
        Some((mask, pc))
    }

    /// When no lane of the warp can run and some wait at a `BSYNC`, the ones at the lowest PC go on: convergence
    /// barriers only gather lanes, they never stop the warp (Volta's independent thread scheduling guarantees
    /// progress). It happens when lanes at different depths of a recursion share a barrier register. Returns
    /// the released group like [`Warp::next_group`].
    fn release_stalled_convergence(&mut self) -> Option<(u32, usize)> {
        let stalled = |lane: &Lane| matches!(lane.status, LaneStatus::Converging(b) if b != WARPSYNC_BARRIER);
        let pc = self.lanes.iter().filter(|lane| stalled(lane)).map(|lane| lane.pc).min()?;
        for lane in self.lanes.iter_mut().filter(|lane| lane.pc == pc && stalled(lane)) {
            lane.status = LaneStatus::Running;
            lane.pc += 1;
        }
        self.next_group()
    }

    /// Releases the lanes parked at convergence barrier `barrier` once every lane it waits for has arrived or
    /// exited.
    fn try_converge(&mut self, barrier: u8) {
        let waited = self.convergence[barrier as usize];
        let arrived = self.lanes.iter().enumerate().all(|(i, lane)| {
            waited >> i & 1 == 0
                || matches!(lane.status, LaneStatus::Exited)
                || lane.status == LaneStatus::Converging(barrier)
        });
        if arrived {
            for lane in &mut self.lanes {
                if lane.status == LaneStatus::Converging(barrier) {
                    lane.status = LaneStatus::Running;
                    lane.pc += 1;
                }
            }
        }
    }
}

/// Where the kernel's parameters start in constant bank 0.
pub fn parameter_offset(isa: Isa) -> usize {
    match isa {
        Isa::Sm5x => sm5x::PARAMETERS,
        Isa::Sm86 => sm86::PARAMETERS,
    }
}

/// Constant bank 0 as the CUDA driver fills it for a launch: the block and grid sizes, the top of each thread's
/// local memory stack and the parameter block (SM86: block 0x0, grid 0xc, the generic shared and local windows
/// 0x18 and 0x20, stack 0x28, parameters 0x160; SM5x: block 0x8, grid 0x14, stack 0x20, parameters 0x140).
pub fn driver_constants(isa: Isa, launch: &Launch, parameters: &[u8]) -> Result<Vec<u8>, ExecError> {
    let (sizes, stack, parameter_block) = match isa {
        Isa::Sm86 => (0x0, sm86::LOCAL_STACK_TOP, sm86::PARAMETERS),
        Isa::Sm5x => (0x8, sm5x::LOCAL_STACK_TOP, sm5x::PARAMETERS),
    };
    let mut bank = vec![0u8; parameter_block];
    for (i, value) in launch.block.iter().chain(&launch.grid).enumerate() {
        bank[sizes + 4 * i..sizes + 4 * i + 4].copy_from_slice(&value.to_le_bytes());
    }
    bank[stack..stack + 4].copy_from_slice(&launch.local_bytes.to_le_bytes());
    if isa == Isa::Sm86 {
        bank[sm86::SHARED_WINDOW_BASE..sm86::SHARED_WINDOW_BASE + 8].copy_from_slice(&SHARED_WINDOW.to_le_bytes());
        bank[sm86::LOCAL_WINDOW_BASE..sm86::LOCAL_WINDOW_BASE + 8].copy_from_slice(&LOCAL_WINDOW.to_le_bytes());
    }
    bank.extend_from_slice(parameters);
    Ok(bank)
}

/// A decoded program of either instruction set.
enum Program {
    Sm86(sm86::Program),
    Sm5x(sm5x::Program),
}

impl Program {
    fn isa(&self) -> Isa {
        match self {
            Program::Sm86(_) => Isa::Sm86,
            Program::Sm5x(_) => Isa::Sm5x,
        }
    }

    fn entry_index(&self) -> usize {
        match self {
            Program::Sm86(program) => program.entry_index(),
            Program::Sm5x(program) => program.entry_index(),
        }
    }

    fn execute(&self, pc: usize, step: &mut Step) -> Result<(), ExecError> {
        match self {
            Program::Sm86(program) => program.execute(pc, step),
            Program::Sm5x(program) => program.execute(pc, step),
        }
    }

    /// The byte offset of instruction `pc`.
    fn offset_of(&self, pc: usize) -> usize {
        match self {
            Program::Sm86(_) => pc * sm86::INSTRUCTION_BYTES,
            Program::Sm5x(program) => program.offset_of(pc),
        }
    }
}

/// A kernel: its instruction set, code and entry point.
#[derive(Debug, Clone, Copy)]
pub struct Kernel<'a> {
    pub isa: Isa,
    pub code: &'a [u8],
    /// Byte offset of the first instruction.
    pub entry: usize,
    /// Where the code starts in its code segment (see `KernelImage::origin`).
    pub origin: u32,
}

/// Runs a compute grid to completion: every CTA in order, each CTA's warps as the model above says.
pub fn run_compute(
    kernel: Kernel<'_>,
    launch: &Launch,
    cbufs: &ConstantBuffers,
    textures: &Textures,
    memory: &mut GlobalMemory,
) -> Result<Stats, ExecError> {
    run_compute_limited(kernel, launch, cbufs, textures, memory, DEFAULT_STEP_LIMIT)
}

/// [`run_compute`] with a limit on retired lane-instructions.
pub fn run_compute_limited(
    kernel: Kernel<'_>,
    launch: &Launch,
    cbufs: &ConstantBuffers,
    textures: &Textures,
    memory: &mut GlobalMemory,
    step_limit: u64,
) -> Result<Stats, ExecError> {
    let threads: u64 = launch.block.iter().map(|&n| u64::from(n)).product();
    if threads == 0 || threads > 1024 || launch.grid.contains(&0) {
        return Err(ExecError::BadLaunch(format!(
            "block {:?} must hold 1 to 1024 threads and grid {:?} at least one CTA",
            launch.block, launch.grid
        )));
    }
    let program = match kernel.isa {
        Isa::Sm86 => Program::Sm86(sm86::Program::new(kernel.code, kernel.entry)?),
        Isa::Sm5x => Program::Sm5x(sm5x::Program::new(kernel.code, kernel.entry, kernel.origin as usize)?),
    };
    let mut stats = Stats::default();
    for z in 0..launch.grid[2] {
        for y in 0..launch.grid[1] {
            for x in 0..launch.grid[0] {
                let mut cta = Cta::new(launch, [x, y, z], program.entry_index());
                cta.run(&program, cbufs, textures, memory, &mut stats, step_limit)?;
            }
        }
    }
    Ok(stats)
}

/// A CTA barrier (`BAR`): how many threads it waits for (0: all) and how many arrived without waiting, and for
/// `BAR.RED` the reduction (0 POPC, 1 AND, 2 OR) over the waiting threads' predicates.
#[derive(Debug, Clone, Copy, Default)]
struct Barrier {
    count: u32,
    arrived: u32,
    reduction: Option<u8>,
    true_count: u32,
    participants: u32,
}

impl Barrier {
    /// What `B2R.RESULT` reads after the barrier: the count of true predicates, or the AND/OR as 0 or 1.
    fn result(&self) -> Option<u32> {
        Some(match self.reduction? {
            0 => self.true_count,
            1 => u32::from(self.true_count == self.participants),
            _ => u32::from(self.true_count != 0),
        })
    }
}

/// Where generic addresses reach shared and local memory (the windows the driver announces in constant bank 0),
/// and each window's size.
pub const SHARED_WINDOW: u64 = 1 << 48;
pub const LOCAL_WINDOW: u64 = 2 << 48;
pub const WINDOW_BYTES: u64 = 1 << 24;

/// One CTA (thread block) being run.
struct Cta<'l> {
    launch: &'l Launch,
    ctaid: [u32; 3],
    warps: Vec<Warp>,
    shared: Vec<u8>,
    barriers: [Barrier; 16],
}

impl<'l> Cta<'l> {
    fn new(launch: &'l Launch, ctaid: [u32; 3], entry: usize) -> Cta<'l> {
        let [bx, by, bz] = launch.block;
        let mut lanes = Vec::new();
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    lanes.push(Lane {
                        r: [0; 256],
                        p: 0x80,
                        pc: entry,
                        status: LaneStatus::Running,
                        local: vec![0; launch.local_bytes as usize],
                        tid: [x, y, z],
                        linear_id: lanes.len() as u32,
                        barrier_result: 0,
                        cc: 0,
                        sync: Vec::new(),
                    });
                }
            }
        }
        let warps = lanes
            .chunks(WARP_SIZE)
            .map(|chunk| Warp { lanes: chunk.to_vec(), ur: [0; 64], up: 0x80, convergence: [0; 17], clock: 0 })
            .collect();
        Cta { launch, ctaid, warps, shared: vec![0; launch.shared_bytes as usize], barriers: [Barrier::default(); 16] }
    }

    fn run(
        &mut self,
        program: &Program,
        cbufs: &ConstantBuffers,
        textures: &Textures,
        memory: &mut GlobalMemory,
        stats: &mut Stats,
        step_limit: u64,
    ) -> Result<(), ExecError> {
        loop {
            for w in 0..self.warps.len() {
                while let Some((group, pc)) =
                    self.warps[w].next_group().or_else(|| self.warps[w].release_stalled_convergence())
                {
                    let mut step = Step {
                        warp: &mut self.warps[w],
                        group,
                        shared: &mut self.shared,
                        barriers: &mut self.barriers,
                        memory,
                        cbufs,
                        textures,
                        launch: self.launch,
                        ctaid: self.ctaid,
                        warp_index: w,
                    };
                    program.execute(pc, &mut step)?;
                    stats.lane_instructions += u64::from(group.count_ones());
                    if stats.lane_instructions > step_limit {
                        let at = self.describe_waits(program);
                        return Err(ExecError::StepLimit { isa: program.isa(), steps: stats.lane_instructions, at });
                    }
                }
            }
            if self.warps.iter().all(|warp| warp.lanes.iter().all(|lane| lane.status == LaneStatus::Exited)) {
                return Ok(());
            }
            if !self.release_barriers() {
                let waiting = self.describe_waits(program);
                return Err(ExecError::Deadlock { isa: program.isa(), cta: self.ctaid, waiting });
            }
        }
    }

    /// Releases every CTA barrier whose threads have arrived: its count, or all the CTA's threads that have not
    /// exited. Whether any was.
    fn release_barriers(&mut self) -> bool {
        let statuses: Vec<LaneStatus> =
            self.warps.iter().flat_map(|warp| warp.lanes.iter().map(|lane| lane.status)).collect();
        let alive = statuses.iter().filter(|&&status| status != LaneStatus::Exited).count();
        let mut released = false;
        for barrier in 0..16u8 {
            let waiting = statuses.iter().filter(|&&status| status == LaneStatus::AtBarrier(barrier)).count();
            let state = &mut self.barriers[barrier as usize];
            let arrived = waiting + state.arrived as usize;
            let expected = if state.count == 0 { alive } else { state.count as usize };
            if waiting > 0 && arrived >= expected {
                let result = state.result();
                *state = Barrier::default();
                for lane in self.warps.iter_mut().flat_map(|warp| warp.lanes.iter_mut()) {
                    if lane.status == LaneStatus::AtBarrier(barrier) {
                        lane.status = LaneStatus::Running;
                        lane.pc += 1;
                        if let Some(result) = result {
                            lane.barrier_result = result;
                        }
                    }
                }
                released = true;
            }
        }
        released
    }

    /// Where the CTA's lanes are: `warp W: N BAR 0 (pc 0x660), M running (pc 0x610)` per warp.
    fn describe_waits(&self, program: &Program) -> String {
        let mut warps = Vec::new();
        for (w, warp) in self.warps.iter().enumerate() {
            let mut groups: Vec<(String, usize)> = Vec::new();
            for lane in &warp.lanes {
                let place = match lane.status {
                    LaneStatus::Converging(WARPSYNC_BARRIER) => {
                        format!("WARPSYNC (pc {:#x})", program.offset_of(lane.pc))
                    }
                    LaneStatus::Converging(b) => format!("B{b} (pc {:#x})", program.offset_of(lane.pc)),
                    LaneStatus::AtBarrier(b) => format!("BAR {b} (pc {:#x})", program.offset_of(lane.pc)),
                    LaneStatus::Exited => "exited".to_string(),
                    LaneStatus::Running => format!("running (pc {:#x})", program.offset_of(lane.pc)),
                };
                match groups.iter_mut().find(|(p, _)| *p == place) {
                    Some((_, count)) => *count += 1,
                    None => groups.push((place, 1)),
                }
            }
            let groups = groups.iter().map(|(place, count)| format!("{count} {place}")).collect::<Vec<_>>();
            warps.push(format!("warp {w}: {}", groups.join(", ")));
        }
        warps.join("; ")
    }
}

/// What one instruction sees: the warp and the group that executes it, and the memories.
struct Step<'s> {
    warp: &'s mut Warp,
    /// The lanes at this instruction (before guards).
    group: u32,
    shared: &'s mut Vec<u8>,
    barriers: &'s mut [Barrier; 16],
    memory: &'s mut GlobalMemory,
    cbufs: &'s ConstantBuffers,
    textures: &'s Textures,
    launch: &'s Launch,
    ctaid: [u32; 3],
    warp_index: usize,
}

impl fmt::Debug for Step<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step").field("group", &format_args!("{:#x}", self.group)).finish()
    }
}

/// Little-endian access to a byte memory; `None` when out of range.
fn load(bytes: &[u8], address: u64, size: usize) -> Option<u128> {
    let start = usize::try_from(address).ok()?;
    let slice = bytes.get(start..start.checked_add(size)?)?;
    Some(slice.iter().rev().fold(0u128, |value, &byte| value << 8 | u128::from(byte)))
}

fn store(bytes: &mut [u8], address: u64, size: usize, value: u128) -> Option<()> {
    let start = usize::try_from(address).ok()?;
    let slice = bytes.get_mut(start..start.checked_add(size)?)?;
    for (i, byte) in slice.iter_mut().enumerate() {
        *byte = (value >> (8 * i)) as u8;
    }
    Some(())
}
