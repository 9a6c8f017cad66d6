//! The architectural state of one guest thread, as plain data shared by both CPU paths.

/// Architectural state of an AArch64 EL0 thread.
///
/// Invariant: plain data with a fixed `#[repr(C)]` layout. The fast path addresses fields by offset, savestates
/// copy it, lockstep compares and hashes it. Nothing here points anywhere.
#[repr(C)]
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct CpuState {
    /// X0-X30. Register number 31 is the zero register or SP depending on the instruction, never stored here.
    pub x: [u64; 31],
    pub sp: u64,
    pub pc: u64,
    /// The NZCV register: N, Z, C, V in bits 31, 30, 29, 28; all other bits zero.
    pub nzcv: u32,
    pub fpcr: u32,
    pub fpsr: u32,
    /// The SSBS register: PSTATE.SSBS (speculative store bypass safe, FEAT_SSBS) in bit 12 (`PSTATE_SSBS`); all
    /// other bits zero.
    pub ssbs: u32,
    /// V0-V31, 128 bits each, little-endian lanes.
    pub v: [u128; 32],
    pub tpidr_el0: u64,
    /// Read-only at EL0; the kernel sets it.
    pub tpidrro_el0: u64,
    pub exclusive: ExclusiveMonitor,
}

/// PSTATE.SSBS's bit in `CpuState::ssbs`, as the SSBS register and SPSR_ELx place it.
pub const PSTATE_SSBS: u32 = 1 << 12;

/// The local exclusive monitor: the address and size LDXR/LDAXR marked, if any.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ExclusiveMonitor {
    pub address: u64,
    /// Size in bytes of the marked access (a pair counts both registers); 0 when the monitor is open.
    pub size: u64,
}

impl ExclusiveMonitor {
    pub fn is_open(&self) -> bool {
        self.size == 0
    }

    pub fn clear(&mut self) {
        *self = ExclusiveMonitor::default();
    }
}

/// The NZCV flags as the pseudocode names them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Flags {
    pub n: bool,
    pub z: bool,
    pub c: bool,
    pub v: bool,
}

impl Flags {
    pub fn from_nzcv(nzcv: u32) -> Flags {
        Flags { n: nzcv >> 31 & 1 == 1, z: nzcv >> 30 & 1 == 1, c: nzcv >> 29 & 1 == 1, v: nzcv >> 28 & 1 == 1 }
    }

    /// Builds flags from the 4-bit `nzcv` immediate of CCMP/CCMN.
    pub fn from_imm4(nzcv: u32) -> Flags {
        Flags::from_nzcv(nzcv << 28)
    }

    pub fn to_nzcv(self) -> u32 {
        (self.n as u32) << 31 | (self.z as u32) << 30 | (self.c as u32) << 29 | (self.v as u32) << 28
    }
}

impl CpuState {
    pub fn flags(&self) -> Flags {
        Flags::from_nzcv(self.nzcv)
    }

    pub fn set_flags(&mut self, flags: Flags) {
        self.nzcv = flags.to_nzcv();
    }

    /// Feeds every architectural field into `sink` in a fixed order and little-endian form, for state hashes.
    pub fn hash_into(&self, sink: &mut impl FnMut(&[u8])) {
        for x in self.x {
            sink(&x.to_le_bytes());
        }
        for value in [self.sp, self.pc] {
            sink(&value.to_le_bytes());
        }
        for value in [self.nzcv, self.fpcr, self.fpsr, self.ssbs] {
            sink(&value.to_le_bytes());
        }
        for v in self.v {
            sink(&v.to_le_bytes());
        }
        for value in [self.tpidr_el0, self.tpidrro_el0, self.exclusive.address, self.exclusive.size] {
            sink(&value.to_le_bytes());
        }
    }
}
