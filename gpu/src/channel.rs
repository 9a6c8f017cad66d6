//! A GPU channel: the GPFIFO entries submitted to it, its pushbuffer decoder, the host methods it carries out
//! itself (`classes/host/clb06f.h`, methods below 0x100, plus the Tegra host's syncpoint methods) and the engines
//! bound to its subchannels.
//!
//! Invariant: a channel only waits (a syncpoint or semaphore acquire not yet satisfied) at a method boundary, and
//! resumes at the same word, so the result does not depend on when it was resumed.

use crate::engine::maxwell_3d::Maxwell3D;
use crate::engine::semaphore::{Reduction, ReductionOp, Release};
use crate::engine::{Class, Context, EngineError, Method, inline_to_memory::InlineToMemory};
use crate::fifo::{GpEntry, MethodCall, PushbufferDecoder, PushbufferError, Step};

use crate::mmu::{GuestMemory, Mmu, MmuError};
use crate::syncpoint::{NoSuchSyncpoint, Syncpoints, has_reached};
use std::collections::VecDeque;

/// Host methods (byte offsets).
pub mod host {
    pub const SET_OBJECT: u32 = 0x00;
    pub const ILLEGAL: u32 = 0x04;
    pub const NOP: u32 = 0x08;
    pub const SEMAPHOREA: u32 = 0x10;
    pub const SEMAPHOREB: u32 = 0x14;
    pub const SEMAPHOREC: u32 = 0x18;
    pub const SEMAPHORED: u32 = 0x1c;
    pub const NON_STALL_INTERRUPT: u32 = 0x20;
    pub const FB_FLUSH: u32 = 0x24;
    pub const MEM_OP_A: u32 = 0x28;
    pub const MEM_OP_B: u32 = 0x2c;
    pub const MEM_OP_C: u32 = 0x30;
    pub const MEM_OP_D: u32 = 0x34;
    pub const SET_REFERENCE: u32 = 0x50;
    /// The Tegra host's syncpoint methods (nvgpu's `pbdma_syncpointa/b`): A holds the payload, B acts —
    /// operation 0:0 (0 wait, 1 increment), wait switch 4:4, syncpoint index 15:8.
    pub const SYNCPOINTA: u32 = 0x70;
    pub const SYNCPOINTB: u32 = 0x74;
    pub const WFI: u32 = 0x78;
    pub const CRC_CHECK: u32 = 0x7c;
    pub const YIELD: u32 = 0x80;
    /// Methods below this go to the host, whatever the subchannel.
    pub const END: u32 = 0x100;
}

/// Why a channel stopped.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ChannelError {
    #[error("pushbuffer: {0}")]
    Pushbuffer(#[from] PushbufferError),
    #[error("reading the pushbuffer of GPFIFO entry {entry:#018x}: {source}")]
    PushbufferRead { entry: u64, source: MmuError },
    #[error("the channel has no address space bound (nvhost-as-gpu BindChannel)")]
    NoAddressSpace,
    #[error(
        "pushbuffer word at GPU address {address:#x}: subchannel {subchannel} has no class bound (method {offset:#06x})"
    )]
    Unbound { address: u64, subchannel: u8, offset: u32 },
    #[error("pushbuffer word at GPU address {address:#x}: SET_OBJECT class {class:#06x} is not one Tandem has")]
    UnknownClass { address: u64, class: u32 },
    #[error("pushbuffer word at GPU address {address:#x}: {source}")]
    Engine { address: u64, source: EngineError },
    #[error("pushbuffer word at GPU address {address:#x}: host method {offset:#06x} ({name}) {problem}")]
    Host { address: u64, offset: u32, name: String, problem: String },
    #[error("pushbuffer word at GPU address {address:#x}: {source}")]
    Syncpoint { address: u64, source: NoSuchSyncpoint },
    #[error("GPFIFO control entry ILLEGAL (OPCODE 1, dev_pbdma.ref: an interrupt on the hardware)")]
    IllegalEntry,
}

/// What a waiting channel waits for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wait {
    /// A syncpoint to reach a value.
    Syncpoint { id: u32, value: u32 },
    /// The semaphore at a GPU address to satisfy the acquire in `SEMAPHORED` (`operation`) against `payload`.
    Semaphore { address: u64, payload: u32, operation: u32 },
}

/// What running a channel came to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Progress {
    /// Every submitted entry is done.
    Idle,
    /// Waiting at a method; the rest stays queued.
    Waiting(Wait),
}

/// A run of pushbuffer words the channel is to take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A GPFIFO entry: words in GPU memory.
    Entry(GpEntry),
    /// Words the driver adds itself (fence waits and increments around a submission), held on the host.
    Driver(Vec<u32>),
}

/// The host's registers.
#[derive(Default, Debug, Clone, Copy)]
struct HostRegisters {
    semaphore_address: u64,
    semaphore_payload: u32,
    syncpoint_payload: u32,
    reference: u32,
}

/// The engines of one channel (each channel has its own state of every class).
pub struct Engines {
    pub maxwell_3d: Maxwell3D,
    pub ampere_3d: Maxwell3D,
    pub compute: crate::engine::compute::Compute,
    pub ampere_compute: crate::engine::compute::Compute,
    pub copy: crate::engine::copy::CopyEngine,
    pub ampere_copy: crate::engine::copy::CopyEngine,
    pub twod: crate::engine::twod::TwoD,
    pub inline_to_memory: InlineToMemory,
}

impl Default for Engines {
    fn default() -> Engines {
        use crate::engine::compute::Compute;
        Engines {
            maxwell_3d: Maxwell3D::default(),
            ampere_3d: Maxwell3D::new(Class::Ampere3D),
            compute: Compute::default(),
            ampere_compute: Compute::new(Class::AmpereCompute),
            copy: Default::default(),
            ampere_copy: crate::engine::copy::CopyEngine::new(Class::AmpereCopy),
            twod: Default::default(),
            inline_to_memory: InlineToMemory::default(),
        }
    }
}

pub struct Channel {
    /// The nvhost-as-gpu address space (its id) the channel's addresses are in.
    pub address_space: Option<u32>,
    decoder: PushbufferDecoder,
    segments: VecDeque<Segment>,
    /// Words of the front entry already taken.
    words_done: u32,
    /// A method that waits: it runs again first when the channel resumes.
    waiting: Option<MethodCall>,
    subchannels: [Option<Class>; 8],
    host: HostRegisters,
    pub engines: Engines,
    /// The pushbuffer word of the latest macro call, which errors of a macro run later point to.
    macro_call_address: u64,
}

impl Default for Channel {
    fn default() -> Channel {
        Channel {
            address_space: None,
            decoder: PushbufferDecoder::new(),
            segments: VecDeque::new(),
            words_done: 0,
            waiting: None,
            subchannels: [None; 8],
            host: HostRegisters::default(),
            engines: Engines::default(),
            macro_call_address: 0,
        }
    }
}

/// Whether an acquire's condition holds (`SEMAPHORED_OPERATION`: 1 ACQUIRE equal, 4 ACQ_GEQ, 8 ACQ_AND).
fn acquire_satisfied(operation: u32, value: u32, payload: u32) -> bool {
    match operation {
        1 => value == payload,
        4 => has_reached(value, payload),
        _ => value & payload != 0,
    }
}

impl Channel {
    /// Queues submitted segments.
    pub fn submit(&mut self, segments: impl IntoIterator<Item = Segment>) {
        self.segments.extend(segments);
    }

    /// Whether entries are still queued (or a method waits).
    pub fn is_busy(&self) -> bool {
        !self.segments.is_empty() || self.waiting.is_some()
    }

    /// Drops the queued entries and any wait (after a fault).
    pub fn discard_work(&mut self) {
        self.segments.clear();
        self.words_done = 0;
        self.waiting = None;
        self.decoder = PushbufferDecoder::new();
        self.engines.maxwell_3d.discard_pending_macro();
        self.engines.ampere_3d.discard_pending_macro();
    }

    /// Where the channel is in its work: (entries queued, words of the front one done, waiting); any change
    /// between two looks means it made progress.
    pub fn position(&self) -> (usize, u32, bool) {
        (self.segments.len(), self.words_done, self.waiting.is_some())
    }

    /// Runs queued entries until all are done or a method has to wait.
    pub fn run(
        &mut self,
        mmu: Option<&Mmu>,
        memory: &dyn GuestMemory,
        syncpoints: &mut Syncpoints,
        timestamp: u64,
        backend: Option<&mut (dyn crate::backend::Backend + 'static)>,
    ) -> Result<Progress, ChannelError> {
        if !self.is_busy() {
            return Ok(Progress::Idle);
        }
        let mmu = mmu.ok_or(ChannelError::NoAddressSpace)?;
        let mut context = Context { memory, mmu, syncpoints, timestamp, backend };
        if let Some(call) = self.waiting.take() {
            if let Some(wait) = self.method(call, &mut context)? {
                self.waiting = Some(call);
                return Ok(Progress::Waiting(wait));
            }
        }
        while let Some(segment) = self.segments.front() {
            let (words, start) = match segment {
                Segment::Entry(entry) if entry.words == 0 && entry.opcode == 1 => {
                    return Err(ChannelError::IllegalEntry);
                }
                Segment::Entry(entry) => {
                    let mut bytes = vec![0u8; 4 * (entry.words - self.words_done) as usize];
                    let start = entry.address + 4 * u64::from(self.words_done);
                    mmu.read(memory, start, &mut bytes)
                        .map_err(|source| ChannelError::PushbufferRead { entry: entry.address, source })?;
                    let words = bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")));
                    (words.collect::<Vec<u32>>(), start)
                }
                // Driver words have no GPU address; errors in them point to 0.
                Segment::Driver(words) => (words[self.words_done as usize..].to_vec(), 0),
            };
            for (index, word) in words.into_iter().enumerate() {
                let address = start + 4 * index as u64;
                self.words_done += 1;
                match self.decoder.step(word, address)? {
                    Step::Nothing => {}
                    Step::EndSegment => break,
                    Step::Call(call) => {
                        if let Some(wait) = self.method(call, &mut context)? {
                            self.waiting = Some(call);
                            return Ok(Progress::Waiting(wait));
                        }
                    }
                }
            }
            self.segments.pop_front();
            self.words_done = 0;
        }
        // Nothing more comes for a macro whose parameters were being collected.
        self.flush_macros(&mut context)?;
        Ok(Progress::Idle)
    }

    /// Runs a 3D macro whose parameters have all come.
    fn flush_macros(&mut self, context: &mut Context) -> Result<(), ChannelError> {
        for engine in [&mut self.engines.maxwell_3d, &mut self.engines.ampere_3d] {
            engine
                .flush_macro(context)
                .map_err(|source| ChannelError::Engine { address: self.macro_call_address, source })?;
        }
        Ok(())
    }

    /// One method call; `Some` when it has to wait.
    ///
    /// Invariant: methods act in pushbuffer order across subchannels and host methods too (dev_pbdma.ref), so a 3D
    /// macro whose parameters were being collected runs before any method that is not one of them: a host
    /// semaphore or syncpoint after a macro sees its work done, and a compute launch sees the QMD words it wrote
    /// (NVK's Maxwell indirect dispatch).
    fn method(&mut self, call: MethodCall, context: &mut Context) -> Result<Option<Wait>, ChannelError> {
        let offset = call.method * 4;
        let class = self.subchannels[usize::from(call.subchannel)];
        let is_macro_call = matches!(class, Some(Class::Maxwell3D | Class::Ampere3D))
            && offset >= crate::engine::maxwell_3d::CALL_MME_MACRO;
        if is_macro_call {
            self.macro_call_address = call.address;
        } else {
            self.flush_macros(context)?;
        }
        if offset < host::END {
            return self.host_method(call, offset, context);
        }
        let class =
            class.ok_or(ChannelError::Unbound { address: call.address, subchannel: call.subchannel, offset })?;
        let engine_error = |source| ChannelError::Engine { address: call.address, source };
        match class {
            Class::Maxwell3D => {
                return self.engines.maxwell_3d.call(offset, call.argument, context).map_err(engine_error);
            }
            Class::Ampere3D => {
                return self.engines.ampere_3d.call(offset, call.argument, context).map_err(engine_error);
            }
            Class::Compute => self.engines.compute.call(offset, call.argument, context).map_err(engine_error)?,
            Class::AmpereCompute => {
                self.engines.ampere_compute.call(offset, call.argument, context).map_err(engine_error)?
            }
            Class::Copy => self.engines.copy.call(offset, call.argument, context).map_err(engine_error)?,
            Class::AmpereCopy => self.engines.ampere_copy.call(offset, call.argument, context).map_err(engine_error)?,
            Class::TwoD => self.engines.twod.call(offset, call.argument, context).map_err(engine_error)?,
            Class::InlineToMemory if crate::engine::inline_to_memory::METHODS.contains(&offset) => {
                self.engines.inline_to_memory.call(class, offset, call.argument, context).map_err(engine_error)?
            }
            // cla140.h: NO_OPERATION, SET_NOTIFY_A/B (state for NOTIFY, which stops), WAIT_FOR_IDLE (work is done
            // when each method returns).
            Class::InlineToMemory if matches!(offset, 0x100 | 0x104 | 0x108 | 0x110) => {}
            Class::InlineToMemory => return Err(engine_error(Method { class, offset }.unimplemented(""))),
        }
        Ok(None)
    }

    fn host_method(
        &mut self,
        call: MethodCall,
        offset: u32,
        context: &mut Context,
    ) -> Result<Option<Wait>, ChannelError> {
        let argument = call.argument;
        let problem = |problem: String| ChannelError::Host {
            address: call.address,
            offset,
            name: crate::engine::methods::table(None).name(offset).unwrap_or_else(|| "unnamed".into()),
            problem,
        };
        match offset {
            host::SET_OBJECT => {
                let class = Class::from_id(argument & 0xffff)
                    .ok_or(ChannelError::UnknownClass { address: call.address, class: argument & 0xffff })?;
                self.subchannels[usize::from(call.subchannel)] = Some(class);
            }
            host::ILLEGAL => return Err(problem(format!("was called (handle {argument:#x}): the channel faults"))),
            // Memory is coherent and work completes in order here: flushes, barriers and waits for idle are done.
            host::NOP | host::FB_FLUSH | host::WFI | host::YIELD | host::MEM_OP_A | host::MEM_OP_B | host::MEM_OP_C => {
            }
            // MEM_OP_D OPERATION 31:27: membar (5), TLB invalidate (9) and L2 operations (0xd-0x10) have nothing to do.
            host::MEM_OP_D if matches!(argument >> 27, 5 | 9 | 0xd..=0x10) => {}
            host::MEM_OP_D => return Err(problem(format!("operation {:#x} does not exist", argument >> 27))),
            host::NON_STALL_INTERRUPT => tracing::trace!(target: "gpu", "non-stall interrupt {argument:#x}"),
            host::SET_REFERENCE => self.host.reference = argument,
            host::SEMAPHOREA => {
                self.host.semaphore_address =
                    u64::from(argument & 0xff) << 32 | (self.host.semaphore_address & 0xffff_fffc)
            }
            host::SEMAPHOREB => {
                self.host.semaphore_address = (self.host.semaphore_address & !0xffff_ffff) | u64::from(argument & !3)
            }
            host::SEMAPHOREC => self.host.semaphore_payload = argument,
            host::SEMAPHORED => return self.semaphore(argument, context).map_err(problem),
            host::SYNCPOINTA => self.host.syncpoint_payload = argument,
            host::SYNCPOINTB => {
                let id = argument >> 8 & 0xff;
                let syncpoint_error = |source| ChannelError::Syncpoint { address: call.address, source };
                if argument & 1 == 1 {
                    context.syncpoints.increment(id).map_err(syncpoint_error)?;
                } else {
                    let value = self.host.syncpoint_payload;
                    if !has_reached(context.syncpoints.value(id).map_err(syncpoint_error)?, value) {
                        return Ok(Some(Wait::Syncpoint { id, value }));
                    }
                }
            }
            _ => return Err(problem("is not implemented by Tandem yet".into())),
        }
        Ok(None)
    }

    /// `SEMAPHORED`: OPERATION 4:0 (1 acquire, 2 release, 4 acquire ≥, 8 acquire AND, 16 reduction), RELEASE_SIZE
    /// 24:24 (1: four bytes, 0: sixteen with the timestamp at byte 8).
    fn semaphore(&mut self, argument: u32, context: &mut Context) -> Result<Option<Wait>, String> {
        let address = self.host.semaphore_address;
        let payload = self.host.semaphore_payload;
        match argument & 0x1f {
            // RELEASE (RELEASE_SIZE 24:24: 4 or 16 bytes) and REDUCTION (REDUCTION 30:27 in the host's own order,
            // FORMAT 31:31 signed when clear), which combines the payload with the word in memory.
            operation @ (2 | 0x10) => {
                let reduction = match (operation, argument >> 27 & 0xf) {
                    (0x10, code @ 0..=7) => {
                        use ReductionOp::*;
                        let op = [Min, Max, Xor, And, Or, Add, Inc, Dec][code as usize];
                        Some(Reduction { op, signed: argument >> 31 == 0 })
                    }
                    (0x10, code) => return Err(format!("SEMAPHORED REDUCTION {code} is undefined (clb06f.h: 0-7)")),
                    _ => None,
                };
                let one_word = operation == 0x10 || argument >> 24 & 1 == 1;
                let release = Release { address, payload, one_word, reduction };
                release.write(context).map_err(|e| format!("release: {e}"))?;
                Ok(None)
            }
            operation @ (1 | 4 | 8) => {
                let mut value = [0u8; 4];
                context.read(address, &mut value).map_err(|e| format!("acquire: {e}"))?;
                let satisfied = acquire_satisfied(operation, u32::from_le_bytes(value), payload);
                Ok((!satisfied).then_some(Wait::Semaphore { address, payload, operation }))
            }
            operation => {
                Err(format!("operation {operation:#x} is not one of acquire, release, acq_geq, acq_and, reduction"))
            }
        }
    }
}
