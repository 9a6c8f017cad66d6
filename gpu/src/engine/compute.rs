//! The compute engine, `MAXWELL_COMPUTE_B` (B1C0): its method space kept as registers, inline-to-memory, report
//! semaphores, and launches. A launch is a QMD (Queue Meta Data) in GPU memory that `SEND_PCAS_A` points at and
//! `SEND_SIGNALING_PCAS_B` schedules; the QMD holds the grid, the block, shared and local memory sizes, the
//! program's offset in the program region, eight constant buffers and two semaphore releases for when the grid
//! is done. Layout: QMD version 01_07 (open-gpu-doc's clb1c0qmd.h; deko3d's `maxwell/compute_qmd.h` spells out
//! the same bits).
//!
//! The program is raw SM5x code with no header and no recorded length: its length comes from the code
//! (`sass::sm5x::program_length`).

use super::inline_to_memory::{self, InlineToMemory};
use super::semaphore::{Reduction, ReductionOp, Release, report_reduction};
use super::{Class, Context, EngineError, Method};
use crate::backend::{ConstantBuffer, Dispatch};
use crate::engine::draw::{SET_BINDLESS_TEXTURE, texture_pools};
use crate::sass::cubin::KernelImage;
use crate::sass::{Isa, sm5x};

/// Every method (byte offsets 0 to 0x3ffc).
const REGISTER_COUNT: usize = 0x1000;

pub const SEND_PCAS_A: u32 = 0x02b4;
pub const SEND_PCAS_B: u32 = 0x02b8;
pub const SEND_SIGNALING_PCAS_B: u32 = 0x02bc;
pub const SET_PROGRAM_REGION_A: u32 = 0x1608;
pub const SET_PROGRAM_REGION_B: u32 = 0x160c;
pub const SET_REPORT_SEMAPHORE_A: u32 = 0x1b00;
pub const SET_REPORT_SEMAPHORE_B: u32 = 0x1b04;
pub const SET_REPORT_SEMAPHORE_C: u32 = 0x1b08;
pub const SET_REPORT_SEMAPHORE_D: u32 = 0x1b0c;
const NOTIFY: u32 = 0x010c;
/// SET_FALCON00 to SET_FALCON31: calls into the class's firmware, undocumented.
const FALCON_METHODS: std::ops::RangeInclusive<u32> = 0x0500..=0x057c;

/// The QMD's size in bytes.
pub const QMD_BYTES: usize = 0x100;
/// The longest program a launch reads (the SM5x branch offsets reach ±8 MiB; real kernels are far shorter).
const PROGRAM_LIMIT: usize = 1 << 20;

#[derive(Clone)]
pub struct Compute {
    registers: Box<[u32; REGISTER_COUNT]>,
    inline_to_memory: InlineToMemory,
}

impl Default for Compute {
    fn default() -> Compute {
        Compute { registers: Box::new([0; REGISTER_COUNT]), inline_to_memory: InlineToMemory::default() }
    }
}

impl Compute {
    fn register(&self, offset: u32) -> u32 {
        self.registers[offset as usize / 4]
    }

    pub fn call(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = Method { class: Class::Compute, offset };
        let Some(register) = self.registers.get_mut(offset as usize / 4) else {
            return Err(method.bad_argument(argument, "method beyond the compute class's method space"));
        };
        *register = argument;
        match offset {
            _ if inline_to_memory::METHODS.contains(&offset) => {
                self.inline_to_memory.call(Class::Compute, offset, argument, context)?
            }
            // SCHEDULE 1:1 launches; INVALIDATE 0:0 drops cached QMD state, of which there is none here.
            SEND_SIGNALING_PCAS_B if argument & 2 != 0 => self.launch(method, context)?,
            SEND_SIGNALING_PCAS_B => {}
            SEND_PCAS_B => {
                return Err(method.unimplemented("the FROM/DELTA form of a launch (NVN sends SEND_SIGNALING_PCAS_B)"));
            }
            SET_REPORT_SEMAPHORE_D => self.report_semaphore(method, argument, context)?,
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

    /// Reads the QMD `SEND_PCAS_A` points at, the program and the constant buffers, hands the grid to the back
    /// end, then writes the QMD's releases.
    fn launch(&self, method: Method, context: &mut Context) -> Result<(), EngineError> {
        let qmd_address = u64::from(self.register(SEND_PCAS_A)) << 8;
        let mut bytes = [0u8; QMD_BYTES];
        context.read(qmd_address, &mut bytes).map_err(|e| method.memory(e))?;
        let qmd = Qmd::parse(&bytes).map_err(|problem| method.bad_argument(self.register(SEND_PCAS_A), problem))?;
        let region = u64::from(self.register(SET_PROGRAM_REGION_A) & 0xff) << 32
            | u64::from(self.register(SET_PROGRAM_REGION_B));
        let program = region + u64::from(qmd.program_offset);
        let bundle = |offset: usize| {
            let mut bundle = [0u8; sm5x::BUNDLE_BYTES];
            context.read(program + offset as u64, &mut bundle).ok().map(|()| bundle)
        };
        let length = sm5x::program_length(bundle, PROGRAM_LIMIT)
            .map_err(|e| method.unimplemented(format!("the program at GPU address {program:#x}: {e}")))?;
        let mut code = vec![0u8; length];
        context.read(program, &mut code).map_err(|e| method.memory(e))?;
        let kernel = KernelImage {
            name: format!("compute program at GPU address {program:#x}"),
            isa: Isa::Sm5x,
            code,
            constants: Vec::new(),
            shared_bytes: qmd.shared_bytes,
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
        tracing::debug!(target: "gpu", program, grid = ?dispatch.grid, block = ?dispatch.block, "compute launch");
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

/// What a launch takes from its QMD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qmd {
    pub program_offset: u32,
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
        let word = |byte: usize| u32::from_le_bytes(bytes[byte..byte + 4].try_into().expect("four bytes"));
        let bits = |byte: usize, high: u32, low: u32| word(byte) >> low & (u32::MAX >> (31 - (high - low)));
        // QMD_VERSION 3:0 and QMD_MAJOR_VERSION 7:4 at 0x48.
        if (bits(0x48, 7, 4), bits(0x48, 3, 0)) != (1, 7) {
            return Err("the QMD is not version 01_07 (the one MAXWELL_COMPUTE_B reads)");
        }
        // IS_QUEUE 8:8 and DEPENDENT_QMD_SCHEDULE_ENABLE 13:13 at 0x18.
        if bits(0x18, 8, 8) == 1 {
            return Err("a queue QMD (IS_QUEUE) is not implemented by Tandem yet");
        }
        if bits(0x18, 13, 13) == 1 {
            return Err("dependent QMD scheduling is not implemented by Tandem yet");
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
            program_offset: word(0x20),
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
        assert_eq!(parsed.program_offset, 0x1230);
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

    #[test]
    fn qmds_tandem_cannot_carry_out_are_refused_by_name() {
        let mut other_version = qmd(&[]);
        other_version[0x48] = 0x21; // 02_01: Pascal's
        assert!(Qmd::parse(&other_version).unwrap_err().contains("01_07"));
        assert!(Qmd::parse(&qmd(&[(0x18, 1 << 8)])).unwrap_err().contains("IS_QUEUE"));
        assert!(Qmd::parse(&qmd(&[(0x18, 1 << 13)])).unwrap_err().contains("dependent"));
    }
}
