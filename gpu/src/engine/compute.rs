//! The compute engines, `MAXWELL_COMPUTE_B` (B1C0, the Switch's) and `AMPERE_COMPUTE_B` (C7C0, the Switch 2's):
//! their method space kept as registers, inline-to-memory, report semaphores, and launches. A launch is a QMD
//! (Queue Meta Data) in GPU memory that `SEND_PCAS_A` points at and `SEND_SIGNALING_PCAS_B` (or, on Ampere,
//! `SEND_SIGNALING_PCAS2_B`) schedules; the QMD holds the grid, the block, shared and local memory sizes, where
//! the program is, eight constant buffers and two semaphore releases for when the grid is done. Layouts: QMD
//! version 01_07 for Maxwell (open-gpu-doc's clb1c0qmd.h; deko3d's `maxwell/compute_qmd.h` spells out the same
//! bits): the program is an offset in the program region; version 03_00 for Ampere (clc7c0qmd.h): the program's
//! own address. The two classes share every other method this engine carries out, at the same offsets.
//!
//! The program is raw code (SM5x on Maxwell, SM86 on Ampere) with no header and no recorded length: its length
//! comes from the code (`sass::program_length`).

use super::inline_to_memory::{self, InlineToMemory};
use super::semaphore::{Reduction, ReductionOp, Release, report_reduction};
use super::{Class, Context, EngineError, Method, SET_RENDER_ENABLE_C};
use crate::backend::{ConstantBuffer, Dispatch};
use crate::engine::draw::{SET_BINDLESS_TEXTURE, texture_pools};
use crate::sass::cubin::KernelImage;
use crate::sass::{Isa, program_length};

/// Every method (byte offsets 0 to 0x3ffc).
const REGISTER_COUNT: usize = 0x1000;

pub const SEND_PCAS_A: u32 = 0x02b4;
pub const SEND_PCAS_B: u32 = 0x02b8;
pub const SEND_SIGNALING_PCAS_B: u32 = 0x02bc;
/// Ampere's: PCAS_ACTION 3:0 (2 SCHEDULE, 3 INVALIDATE_COPY_SCHEDULE launch).
pub const SEND_SIGNALING_PCAS2_B: u32 = 0x02c0;
pub const SET_PROGRAM_REGION_A: u32 = 0x1608;
pub const SET_PROGRAM_REGION_B: u32 = 0x160c;
pub const SET_REPORT_SEMAPHORE_A: u32 = 0x1b00;
pub const SET_REPORT_SEMAPHORE_B: u32 = 0x1b04;
pub const SET_REPORT_SEMAPHORE_C: u32 = 0x1b08;
pub const SET_REPORT_SEMAPHORE_D: u32 = 0x1b0c;
/// Ampere's report semaphore (clc7c0.h): payload, address, then REPORT_SEMAPHORE_EXECUTE.
const SET_REPORT_SEMAPHORE_PAYLOAD_LOWER: u32 = 0x0158;
const SET_REPORT_SEMAPHORE_ADDRESS_LOWER: u32 = 0x0160;
const SET_REPORT_SEMAPHORE_ADDRESS_UPPER: u32 = 0x0164;
const REPORT_SEMAPHORE_EXECUTE: u32 = 0x0168;
const NOTIFY: u32 = 0x010c;
/// SET_FALCON00 to SET_FALCON31: calls into the class's firmware, undocumented.
const FALCON_METHODS: std::ops::RangeInclusive<u32> = 0x0500..=0x057c;

/// The QMD's size in bytes.
pub const QMD_BYTES: usize = 0x100;
/// The longest program a launch reads (the SM5x branch offsets reach ±8 MiB; real kernels are far shorter).
const PROGRAM_LIMIT: usize = 1 << 20;

#[derive(Clone)]
pub struct Compute {
    /// `Class::Compute` (Maxwell) or `Class::AmpereCompute`.
    class: Class,
    registers: Box<[u32; REGISTER_COUNT]>,
    inline_to_memory: InlineToMemory,
}

impl Default for Compute {
    fn default() -> Compute {
        Compute::new(Class::Compute)
    }
}

impl Compute {
    pub fn new(class: Class) -> Compute {
        let mut registers = Box::new([0; REGISTER_COUNT]);
        // Launches are enabled until a program says otherwise (SET_RENDER_ENABLE_C MODE TRUE), as in the 3D class.
        registers[SET_RENDER_ENABLE_C as usize / 4] = 1;
        Compute { class, registers, inline_to_memory: InlineToMemory::default() }
    }

    fn ampere(&self) -> bool {
        self.class == Class::AmpereCompute
    }

    fn register(&self, offset: u32) -> u32 {
        self.registers[offset as usize / 4]
    }

    pub fn call(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = Method { class: self.class, offset };
        let Some(register) = self.registers.get_mut(offset as usize / 4) else {
            return Err(method.bad_argument(argument, "method beyond the compute class's method space"));
        };
        *register = argument;
        match offset {
            _ if inline_to_memory::METHODS.contains(&offset) => {
                self.inline_to_memory.call(self.class, offset, argument, context)?
            }
            // SCHEDULE 1:1 launches; INVALIDATE 0:0 drops cached QMD state, of which there is none here.
            SEND_SIGNALING_PCAS_B if argument & 2 != 0 => self.launch(method, context)?,
            SEND_SIGNALING_PCAS_B => {}
            SEND_SIGNALING_PCAS2_B if self.ampere() => match argument & 0xf {
                2 | 3 => self.launch(method, context)?,
                0 | 1 => {}
                _ => return Err(method.unimplemented(format!("PCAS_ACTION {}", argument & 0xf))),
            },
            SEND_PCAS_B => {
                return Err(method.unimplemented("the FROM/DELTA form of a launch (NVN sends SEND_SIGNALING_PCAS_B)"));
            }
            SET_REPORT_SEMAPHORE_D => self.report_semaphore(method, argument, context)?,
            REPORT_SEMAPHORE_EXECUTE if self.ampere() => self.report_semaphore_execute(method, argument, context)?,
            NOTIFY => return Err(method.unimplemented("")),
            _ if FALCON_METHODS.contains(&offset) => return Err(method.unimplemented("")),
            _ => {}
        }
        Ok(())
    }

    /// SET_REPORT_SEMAPHORE_D: OPERATION 1:0 RELEASE or TRAP (compute has no counters to report).
    fn report_semaphore(&self, method: Method, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let address = u64::from(self.register(SET_REPORT_SEMAPHORE_A) & 0xff) << 32
            | u64::from(self.register(SET_REPORT_SEMAPHORE_B));
        match argument & 3 {
            0 => Release {
                address,
                payload: self.register(SET_REPORT_SEMAPHORE_C),
                one_word: argument >> 28 & 1 == 1,
                reduction: report_reduction(argument),
            }
            .write(context)
            .map_err(|e| method.memory(e)),
            3 => Err(method.unimplemented("semaphore trap")),
            _ => Err(method.bad_argument(argument, "OPERATION is neither RELEASE nor TRAP")),
        }
    }

    /// Ampere's REPORT_SEMAPHORE_EXECUTE (clc7c0.h; not the 3D class's layout): OPERATION 1:0, STRUCTURE_SIZE 4:3
    /// (FOUR_WORDS 0: payload, 0, timestamp; ONE_WORD 1), REDUCTION_ENABLE 6, REDUCTION_OP 9:7, REDUCTION_FORMAT
    /// 11:10 (1 signed), PAYLOAD_SIZE64 12, TRAP_TYPE 14:13. A release is carried out; the rest stops the run
    /// naming itself.
    fn report_semaphore_execute(
        &self,
        method: Method,
        argument: u32,
        context: &mut Context,
    ) -> Result<(), EngineError> {
        let address = u64::from(self.register(SET_REPORT_SEMAPHORE_ADDRESS_UPPER) & 0xff) << 32
            | u64::from(self.register(SET_REPORT_SEMAPHORE_ADDRESS_LOWER));
        let one_word = match argument >> 3 & 3 {
            0 => false,
            1 => true,
            size => return Err(method.unimplemented(format!("STRUCTURE_SIZE {size} (two words and above)"))),
        };
        if argument >> 12 & 1 == 1 || argument >> 13 & 3 != 0 {
            return Err(method.unimplemented("PAYLOAD_SIZE64 or TRAP_TYPE"));
        }
        match argument & 3 {
            0 => Release {
                address,
                payload: self.register(SET_REPORT_SEMAPHORE_PAYLOAD_LOWER),
                one_word,
                reduction: (argument >> 6 & 1 == 1)
                    .then(|| Reduction { op: ReductionOp::from_bits(argument >> 7), signed: argument >> 10 & 3 == 1 }),
            }
            .write(context)
            .map_err(|e| method.memory(e)),
            1 => Err(method.unimplemented("a semaphore acquire on the compute class")),
            2 => Err(method.unimplemented("REPORT_ONLY on the compute class (it has no report to name)")),
            _ => Err(method.unimplemented("semaphore trap")),
        }
    }

    /// Reads the QMD `SEND_PCAS_A` points at, the program and the constant buffers, hands the grid to the back
    /// end, then writes the QMD's releases.
    fn launch(&self, method: Method, context: &mut Context) -> Result<(), EngineError> {
        if !super::render_enabled(|offset| self.register(offset), method, context)? {
            return Err(method.unimplemented(
                "a launch that conditional rendering turns off (whether its QMD's releases still happen is \
                 documented nowhere)",
            ));
        }
        let qmd_address = u64::from(self.register(SEND_PCAS_A)) << 8;
        let mut bytes = [0u8; QMD_BYTES];
        context.read(qmd_address, &mut bytes).map_err(|e| method.memory(e))?;
        let bad_qmd = |problem| method.bad_argument(self.register(SEND_PCAS_A), problem);
        // Ampere's program is at an address of its own; Maxwell's at an offset (its origin) in the program region.
        let (qmd, program, origin, isa) = if self.ampere() {
            let qmd = Qmd::parse_v3(&bytes).map_err(bad_qmd)?;
            let program = qmd.program;
            (qmd, program, 0, Isa::Sm86)
        } else {
            let qmd = Qmd::parse(&bytes).map_err(bad_qmd)?;
            let region = u64::from(self.register(SET_PROGRAM_REGION_A) & 0xff) << 32
                | u64::from(self.register(SET_PROGRAM_REGION_B));
            let (program, origin) = (region + qmd.program, qmd.program);
            (qmd, program, origin, Isa::Sm5x)
        };
        let read = |offset: usize, buffer: &mut [u8]| context.read(program + offset as u64, buffer).is_ok();
        let length = program_length(isa, read, origin as usize, PROGRAM_LIMIT)
            .map_err(|e| method.unimplemented(format!("the program at GPU address {program:#x}: {e}")))?;
        let mut code = vec![0u8; length];
        context.read(program, &mut code).map_err(|e| method.memory(e))?;
        let kernel = KernelImage {
            name: format!("compute program at GPU address {program:#x}"),
            isa,
            code,
            constants: Vec::new(),
            shared_bytes: qmd.shared_bytes,
            origin: origin as u32,
        };
        let dispatch = Dispatch {
            program,
            kernel,
            grid: qmd.grid,
            block: qmd.block,
            local_bytes: qmd.local_bytes,
            constant_buffers: qmd.constant_buffers,
            texture_pools: texture_pools(|offset| self.register(offset), qmd.sampler_via_header),
            // CONSTANT_BUFFER_SLOT_SELECT 2:0.
            texture_buffer: (self.register(SET_BINDLESS_TEXTURE) & 7) as usize,
        };
        tracing::debug!(target: "gpu", program, %isa, grid = ?dispatch.grid, block = ?dispatch.block, "compute launch");
        if dispatch.grid.contains(&0) {
            // An empty grid runs nothing, and its releases still happen.
        } else {
            let memory = crate::backend::GpuMemory { guest: context.memory, mmu: context.mmu };
            let backend = context.backend.as_deref_mut().ok_or(EngineError::NoBackend { method })?;
            backend.dispatch(&dispatch, &memory).map_err(|source| EngineError::Backend { method, source })?;
        }
        for release in qmd.releases.iter().flatten() {
            release.write(context).map_err(|e| method.memory(e))?;
        }
        Ok(())
    }
}

const QUEUE_QMD: &str = "a queue QMD (IS_QUEUE) is not implemented by Tandem yet";
const DEPENDENT_QMD: &str = "dependent QMD scheduling is not implemented by Tandem yet";

/// What a launch takes from its QMD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qmd {
    /// Where the program is: its offset in the program region (01_07), or its address (03_00).
    pub program: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub local_bytes: u32,
    pub constant_buffers: [Option<ConstantBuffer>; 8],
    pub releases: [Option<Release>; 2],
    /// SAMPLER_INDEX: handles pick their sampler by their header index (VIA_HEADER_INDEX).
    pub sampler_via_header: bool,
}

impl Qmd {
    /// Decodes a version 01_07 QMD; the features Tandem does not carry out are refused by name.
    pub fn parse(bytes: &[u8; QMD_BYTES]) -> Result<Qmd, &'static str> {
        let word = |byte| qmd_word(bytes, byte);
        let bits = |byte, high, low| qmd_word(bytes, byte) >> low & (u32::MAX >> (31 - (high - low)));
        // QMD_VERSION 3:0 and QMD_MAJOR_VERSION 7:4 at 0x48.
        if (bits(0x48, 7, 4), bits(0x48, 3, 0)) != (1, 7) {
            return Err("the QMD is not version 01_07 (the one MAXWELL_COMPUTE_B reads)");
        }
        // IS_QUEUE 8:8 and DEPENDENT_QMD_SCHEDULE_ENABLE 13:13 at 0x18.
        if bits(0x18, 8, 8) == 1 {
            return Err(QUEUE_QMD);
        }
        if bits(0x18, 13, 13) == 1 {
            return Err(DEPENDENT_QMD);
        }
        let constant_buffers = std::array::from_fn(|i| {
            // CONSTANT_BUFFER_VALID 7:0 at 0x50; buffer i: ADDR_LOWER at 0x74 + 8i, ADDR_UPPER 7:0 and SIZE 31:15
            // (bytes) in the next word.
            let at = 0x74 + 8 * i;
            (bits(0x50, i as u32, i as u32) == 1).then(|| ConstantBuffer {
                address: u64::from(bits(at + 4, 7, 0)) << 32 | u64::from(word(at)),
                size: bits(at + 4, 31, 15),
            })
        });
        let releases = std::array::from_fn(|i| {
            // SEMAPHORE_RELEASE_ENABLE0/1 10:10 and 11:11 at 0x18; release i at 0x5c + 12i: ADDRESS_LOWER, then
            // ADDRESS_UPPER 7:0, REDUCTION_OP 22:20, REDUCTION_FORMAT 25:24, REDUCTION_ENABLE 26:26,
            // STRUCTURE_SIZE 31:31 (1: one word), then the payload.
            let at = 0x5c + 12 * i;
            (bits(0x18, 10 + i as u32, 10 + i as u32) == 1).then(|| Release {
                address: u64::from(bits(at + 4, 7, 0)) << 32 | u64::from(word(at)),
                payload: word(at + 8),
                one_word: bits(at + 4, 31, 31) == 1,
                reduction: (bits(at + 4, 26, 26) == 1).then(|| Reduction {
                    op: ReductionOp::from_bits(bits(at + 4, 22, 20)),
                    signed: bits(at + 4, 25, 24) == 1,
                }),
            })
        });
        Ok(Qmd {
            program: u64::from(word(0x20)),
            // CTA_RASTER_WIDTH at 0x30; HEIGHT 15:0 and DEPTH 31:16 at 0x34.
            grid: [word(0x30), bits(0x34, 15, 0), bits(0x34, 31, 16)],
            // CTA_THREAD_DIMENSION0 31:16 at 0x48; 1 15:0 and 2 31:16 at 0x4c.
            block: [bits(0x48, 31, 16), bits(0x4c, 15, 0), bits(0x4c, 31, 16)],
            // SHARED_MEMORY_SIZE 17:0 at 0x44; SHADER_LOCAL_MEMORY_LOW_SIZE 23:0 at 0xb4 (bytes per thread).
            shared_bytes: bits(0x44, 17, 0),
            local_bytes: bits(0xb4, 23, 0),
            constant_buffers,
            releases,
            // SAMPLER_INDEX 30:30 at 0x2c (bit 382).
            sampler_via_header: bits(0x2c, 30, 30) == 1,
        })
    }

    /// Decodes a version 03_00 QMD (Ampere's); the features Tandem does not carry out are refused by name.
    pub fn parse_v3(bytes: &[u8; QMD_BYTES]) -> Result<Qmd, &'static str> {
        let word = |byte| qmd_word(bytes, byte);
        let bits = |byte, high, low| qmd_word(bytes, byte) >> low & (u32::MAX >> (31 - (high - low)));
        // QMD_VERSION 579:576 and QMD_MAJOR_VERSION 583:580.
        if (bits(0x48, 7, 4), bits(0x48, 3, 0)) != (3, 0) {
            return Err("the QMD is not version 03_00 (the one AMPERE_COMPUTE_B reads)");
        }
        // IS_QUEUE 136, DEPENDENT_QMD0_ENABLE 512, DEPENDENT_QMD1_ENABLE 517.
        if bits(0x10, 8, 8) == 1 {
            return Err(QUEUE_QMD);
        }
        if bits(0x40, 0, 0) == 1 || bits(0x40, 5, 5) == 1 {
            return Err(DEPENDENT_QMD);
        }
        let constant_buffers = std::array::from_fn(|i| {
            // CONSTANT_BUFFER_VALID(i) 640 + i; buffer i: ADDR_LOWER at 1024 + 64i, ADDR_UPPER 16:0 and
            // SIZE_SHIFTED4 31:19 in the next word.
            let at = 0x80 + 8 * i;
            (bits(0x50, i as u32, i as u32) == 1).then(|| ConstantBuffer {
                address: u64::from(bits(at + 4, 16, 0)) << 32 | u64::from(word(at)),
                size: bits(at + 4, 31, 19) << 4,
            })
        });
        let mut releases = [None, None];
        for (i, release) in releases.iter_mut().enumerate() {
            // RELEASEi at 768 + 128i: ADDRESS_LOWER, then ADDRESS_UPPER 7:0, REDUCTION_OP 22:20, ENABLE 23,
            // REDUCTION_FORMAT 25:24, REDUCTION_ENABLE 26, TRAP_TYPE 28:27, PAYLOAD64B 29, STRUCTURE_SIZE 31:30
            // (0 four words, 1 one, 2 two), then the payload.
            let at = 0x60 + 16 * i;
            if bits(at + 4, 23, 23) == 0 {
                continue;
            }
            if bits(at + 4, 31, 30) > 1 {
                return Err("a release of two words (a 64-bit payload) is not implemented by Tandem yet");
            }
            if bits(at + 4, 29, 27) != 0 {
                return Err("a release with PAYLOAD64B or a TRAP_TYPE is not implemented by Tandem yet");
            }
            *release = Some(Release {
                address: u64::from(bits(at + 4, 7, 0)) << 32 | u64::from(word(at)),
                payload: word(at + 8),
                one_word: bits(at + 4, 31, 30) == 1,
                reduction: (bits(at + 4, 26, 26) == 1).then(|| Reduction {
                    op: ReductionOp::from_bits(bits(at + 4, 22, 20)),
                    signed: bits(at + 4, 25, 24) == 1,
                }),
            });
        }
        Ok(Qmd {
            // PROGRAM_ADDRESS_LOWER 1567:1536, _UPPER 1584:1568.
            program: u64::from(bits(0xc4, 16, 0)) << 32 | u64::from(word(0xc0)),
            // CTA_RASTER_WIDTH 415:384, HEIGHT 431:416, DEPTH 463:448.
            grid: [word(0x30), bits(0x34, 15, 0), bits(0x38, 15, 0)],
            // CTA_THREAD_DIMENSION0-2 607:592, 623:608, 639:624.
            block: [bits(0x48, 31, 16), bits(0x4c, 15, 0), bits(0x4c, 31, 16)],
            // SHARED_MEMORY_SIZE 561:544; SHADER_LOCAL_MEMORY_LOW_SIZE 759:736.
            shared_bytes: bits(0x44, 17, 0),
            local_bytes: bits(0x5c, 23, 0),
            constant_buffers,
            releases,
            // SAMPLER_INDEX 382.
            sampler_via_header: bits(0x2c, 30, 30) == 1,
        })
    }
}

/// The QMD's 32-bit word at byte `byte`.
fn qmd_word(bytes: &[u8; QMD_BYTES], byte: usize) -> u32 {
    u32::from_le_bytes(bytes[byte..byte + 4].try_into().expect("four bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A QMD written word by word at the offsets clb1c0qmd.h gives (version 01_07).
    fn qmd(words: &[(usize, u32)]) -> [u8; QMD_BYTES] {
        let mut bytes = [0u8; QMD_BYTES];
        bytes[0x48..0x4c].copy_from_slice(&(7u32 | 1 << 4).to_le_bytes());
        for &(at, value) in words {
            let old = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            bytes[at..at + 4].copy_from_slice(&(old | value).to_le_bytes());
        }
        bytes
    }

    #[test]
    fn a_qmd_gives_the_grid_block_buffers_and_releases() {
        let parsed = Qmd::parse(&qmd(&[
            (0x18, 1 << 11),                                      // SEMAPHORE_RELEASE_ENABLE1
            (0x2c, 1 << 30),                                      // SAMPLER_INDEX VIA_HEADER_INDEX
            (0x20, 0x1230),                                       // PROGRAM_OFFSET
            (0x30, 40),                                           // CTA_RASTER_WIDTH
            (0x34, 3 | 2 << 16),                                  // HEIGHT, DEPTH
            (0x44, 0x3_0000),                                     // SHARED_MEMORY_SIZE (18 bits)
            (0x48, 64 << 16),                                     // CTA_THREAD_DIMENSION0
            (0x4c, 2 | 4 << 16),                                  // 1, 2
            (0x50, 0b1000_0100),                                  // CONSTANT_BUFFER_VALID 2 and 7
            (0x68, 0x4000_0000),                                  // RELEASE1_ADDRESS_LOWER
            (0x6c, 0x12 | 3 << 20 | 1 << 24 | 1 << 26 | 1 << 31), // UPPER, RED_INC, SIGNED_32, enable, one word
            (0x70, 99),                                           // RELEASE1_PAYLOAD
            (0x84, 0x5000),                                       // CONSTANT_BUFFER_ADDR_LOWER(2)
            (0x88, 0x7 | 0x1_0000 << 15),                         // _UPPER(2), SIZE(2) 64 KiB
            (0xac, 0x6000),                                       // (7)
            (0xb0, 0x100 << 15),
            (0xb4, 0x80 | 3 << 27), // SHADER_LOCAL_MEMORY_LOW_SIZE, BARRIER_COUNT
        ]))
        .unwrap();
        assert_eq!(parsed.program, 0x1230);
        assert_eq!(parsed.grid, [40, 3, 2]);
        assert_eq!(parsed.block, [64, 2, 4]);
        assert_eq!((parsed.shared_bytes, parsed.local_bytes), (0x3_0000, 0x80));
        assert_eq!(parsed.constant_buffers[2], Some(ConstantBuffer { address: 0x7_0000_5000, size: 0x1_0000 }));
        assert_eq!(parsed.constant_buffers[7], Some(ConstantBuffer { address: 0x6000, size: 0x100 }));
        assert_eq!(parsed.constant_buffers.iter().flatten().count(), 2);
        assert_eq!(parsed.releases[0], None);
        assert!(parsed.sampler_via_header);
        assert!(!Qmd::parse(&qmd(&[])).unwrap().sampler_via_header);
        let reduction = Some(Reduction { op: ReductionOp::Inc, signed: true });
        assert_eq!(
            parsed.releases[1],
            Some(Release { address: 0x12_4000_0000, payload: 99, one_word: true, reduction })
        );
    }

    /// A version 03_00 QMD written word by word at the bits clc7c0qmd.h gives.
    #[test]
    fn a_version_3_qmd_gives_the_program_grid_block_buffers_and_releases() {
        let mut bytes = [0u8; QMD_BYTES];
        for (at, value) in [
            (0x2c, 1u32 << 30),                                   // SAMPLER_INDEX VIA_HEADER_INDEX
            (0x30, 40),                                           // CTA_RASTER_WIDTH
            (0x34, 3),                                            // CTA_RASTER_HEIGHT
            (0x38, 2),                                            // CTA_RASTER_DEPTH
            (0x44, 0xc000),                                       // SHARED_MEMORY_SIZE
            (0x48, 3 << 4 | 64 << 16),                            // QMD_MAJOR_VERSION 3, CTA_THREAD_DIMENSION0
            (0x4c, 2 | 4 << 16),                                  // CTA_THREAD_DIMENSION1, 2
            (0x50, 0b101),                                        // CONSTANT_BUFFER_VALID(0), (2)
            (0x5c, 0x800),                                        // SHADER_LOCAL_MEMORY_LOW_SIZE
            (0x70, 0x4000_0000),                                  // RELEASE1_ADDRESS_LOWER
            (0x74, 0x12 | 3 << 20 | 1 << 23 | 1 << 26 | 1 << 30), // _UPPER, RED_INC, ENABLE, REDUCTION, ONE_WORD
            (0x78, 99),                                           // RELEASE1_PAYLOAD_LOWER
            (0x80, 0x5000),                                       // CONSTANT_BUFFER_ADDR_LOWER(0)
            (0x84, 0x7 | (0x200 >> 4) << 19),                     // _UPPER(0), SIZE_SHIFTED4(0)
            (0x90, 0x6000),                                       // (2)
            (0x94, 0x1_0001 | (0x1_0000 >> 4) << 19),             // a 17-bit upper address, 64 KiB
            (0xc0, 0x8000_1200),                                  // PROGRAM_ADDRESS_LOWER
            (0xc4, 0x1_0002),                                     // PROGRAM_ADDRESS_UPPER (17 bits)
        ] {
            bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        let parsed = Qmd::parse_v3(&bytes).unwrap();
        assert_eq!(parsed.program, 0x1_0002_8000_1200);
        assert_eq!((parsed.grid, parsed.block), ([40, 3, 2], [64, 2, 4]));
        assert_eq!((parsed.shared_bytes, parsed.local_bytes), (0xc000, 0x800));
        assert_eq!(parsed.constant_buffers[0], Some(ConstantBuffer { address: 0x7_0000_5000, size: 0x200 }));
        assert_eq!(parsed.constant_buffers[2], Some(ConstantBuffer { address: 0x1_0001_0000_6000, size: 0x1_0000 }));
        assert_eq!(parsed.constant_buffers.iter().flatten().count(), 2);
        assert_eq!(parsed.releases[0], None);
        let reduction = Some(Reduction { op: ReductionOp::Inc, signed: false });
        assert_eq!(
            parsed.releases[1],
            Some(Release { address: 0x12_4000_0000, payload: 99, one_word: true, reduction })
        );
        assert!(parsed.sampler_via_header);
        // A Maxwell QMD is not one, nor is a two-word release.
        assert!(Qmd::parse_v3(&qmd(&[])).unwrap_err().contains("03_00"));
        bytes[0x74..0x78].copy_from_slice(&(1u32 << 23 | 2 << 30).to_le_bytes());
        assert!(Qmd::parse_v3(&bytes).unwrap_err().contains("two words"));
        // PAYLOAD64B (bit 829) of a four-word release puts PAYLOAD_UPPER in its second word: refused.
        bytes[0x74..0x78].copy_from_slice(&(1u32 << 23 | 1 << 29).to_le_bytes());
        assert!(Qmd::parse_v3(&bytes).unwrap_err().contains("PAYLOAD64B"));
    }

    #[test]
    fn qmds_tandem_cannot_carry_out_are_refused_by_name() {
        let mut other_version = qmd(&[]);
        other_version[0x48] = 0x21; // 02_01: Pascal's
        assert!(Qmd::parse(&other_version).unwrap_err().contains("01_07"));
        assert!(Qmd::parse(&qmd(&[(0x18, 1 << 8)])).unwrap_err().contains("IS_QUEUE"));
        assert!(Qmd::parse(&qmd(&[(0x18, 1 << 13)])).unwrap_err().contains("dependent"));
    }
}
