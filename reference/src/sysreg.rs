//! The system registers EL0 code can reach with MRS/MSR, by encoding, for the interpreter and the disassembler.

/// A system register encoding: `S<op0>_<op1>_C<crn>_C<crm>_<op2>`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SysRegEncoding {
    pub op0: u32,
    pub op1: u32,
    pub crn: u32,
    pub crm: u32,
    pub op2: u32,
}

impl SysRegEncoding {
    /// The fields of an MSR/MRS (register) instruction: op0 is 2 + o0.
    pub fn from_fields(o0: u32, op1: u32, crn: u32, crm: u32, op2: u32) -> SysRegEncoding {
        SysRegEncoding { op0: 2 + o0, op1, crn, crm, op2 }
    }

    /// The identification register space Linux answers EL0 reads of (arm64 `cpufeature.c`, `is_emulated`: op0 3,
    /// op1 0, CRn 0, CRm 0 or 2-7); those Tandem does not list read as 0, as Linux gives for registers it hides.
    pub fn in_id_space(self) -> bool {
        self.op0 == 3 && self.op1 == 0 && self.crn == 0 && (self.crm == 0 || (2..=7).contains(&self.crm))
    }
}

/// EL0-visible system registers Tandem implements.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum SysReg {
    Nzcv,
    /// PSTATE.SSBS (FEAT_SSBS), in bit 12.
    Ssbs,
    Fpcr,
    Fpsr,
    TpidrEl0,
    TpidrroEl0,
    CntfrqEl0,
    CntpctEl0,
    CntvctEl0,
    DczidEl0,
    CtrEl0,
    // Identification registers: UNDEFINED at EL0 on bare hardware, but both Linux and our HLE answer reads of
    // them, as programs probe features this way.
    MidrEl1,
    MpidrEl1,
    RevidrEl1,
    IdAa64pfr0El1,
    IdAa64isar0El1,
    IdAa64isar1El1,
}

const fn enc(op0: u32, op1: u32, crn: u32, crm: u32, op2: u32) -> SysRegEncoding {
    SysRegEncoding { op0, op1, crn, crm, op2 }
}

/// (register, encoding, assembler name).
static TABLE: &[(SysReg, SysRegEncoding, &str)] = &[
    (SysReg::Nzcv, enc(3, 3, 4, 2, 0), "nzcv"),
    (SysReg::Ssbs, enc(3, 3, 4, 2, 6), "ssbs"),
    (SysReg::Fpcr, enc(3, 3, 4, 4, 0), "fpcr"),
    (SysReg::Fpsr, enc(3, 3, 4, 4, 1), "fpsr"),
    (SysReg::TpidrEl0, enc(3, 3, 13, 0, 2), "tpidr_el0"),
    (SysReg::TpidrroEl0, enc(3, 3, 13, 0, 3), "tpidrro_el0"),
    (SysReg::CntfrqEl0, enc(3, 3, 14, 0, 0), "cntfrq_el0"),
    (SysReg::CntpctEl0, enc(3, 3, 14, 0, 1), "cntpct_el0"),
    (SysReg::CntvctEl0, enc(3, 3, 14, 0, 2), "cntvct_el0"),
    (SysReg::DczidEl0, enc(3, 3, 0, 0, 7), "dczid_el0"),
    (SysReg::CtrEl0, enc(3, 3, 0, 0, 1), "ctr_el0"),
    (SysReg::MidrEl1, enc(3, 0, 0, 0, 0), "midr_el1"),
    (SysReg::MpidrEl1, enc(3, 0, 0, 0, 5), "mpidr_el1"),
    (SysReg::RevidrEl1, enc(3, 0, 0, 0, 6), "revidr_el1"),
    (SysReg::IdAa64pfr0El1, enc(3, 0, 0, 4, 0), "id_aa64pfr0_el1"),
    (SysReg::IdAa64isar0El1, enc(3, 0, 0, 6, 0), "id_aa64isar0_el1"),
    (SysReg::IdAa64isar1El1, enc(3, 0, 0, 6, 1), "id_aa64isar1_el1"),
];

impl SysReg {
    pub fn lookup(encoding: SysRegEncoding) -> Option<SysReg> {
        TABLE.iter().find(|entry| entry.1 == encoding).map(|entry| entry.0)
    }

    pub fn name(self) -> &'static str {
        TABLE.iter().find(|entry| entry.0 == self).map_or("?", |entry| entry.2)
    }
}

/// Identification values of the core a platform models.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CpuIdentity {
    pub midr: u64,
    pub revidr: u64,
    pub ctr: u64,
    pub id_aa64pfr0: u64,
    pub id_aa64isar0: u64,
    pub id_aa64isar1: u64,
}

impl CpuIdentity {
    /// The Switch 2's Cortex-A78C (values from its Technical Reference Manual, r0p1).
    pub const CORTEX_A78C: CpuIdentity = CpuIdentity {
        midr: 0x410f_d4b1,
        revidr: 0,
        // IDC=1, DminLine=4 (64 bytes), L1Ip=PIPT, IminLine=4.
        ctr: 0x9444_c004,
        // EL0 and EL1 AArch64 only, FP and AdvSIMD with FP16, RAS.
        id_aa64pfr0: 0x1000_0000_0011_0011,
        // AES+PMULL, SHA1, SHA256, CRC32, LSE atomics, RDM, dot product.
        id_aa64isar0: 0x0000_1000_1021_1120,
        // DC CVAP, LDAPR (RCpc).
        id_aa64isar1: 0x0000_0000_0010_0001,
    };
}

/// The pointer authentication keys the platform holds for EL0 code, which EL0 cannot read (the APxxKey*_EL1 registers
/// are EL1's): part of the interpreter's configuration, not of the thread state.
///
/// Only the generic key is here. Horizon leaves the instruction and data keys disabled at EL0
/// (SCTLR_EL1.EnIA, EnIB, EnDA and EnDB are 0), under which AddPACIA ... AuthDB return their pointer before reading a
/// key; PACGA, which no enable bit controls, reads APGAKey_EL1.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PointerAuthKeys {
    /// APGAKey_EL1: APGAKeyHi_EL1 (bits 127:64) and APGAKeyLo_EL1 (bits 63:0). Zero by default, as Unicorn's are.
    pub apga: u128,
}

/// DCZID_EL0: DC ZVA zeroes 2^4 words = 64 bytes; DZP clear (permitted).
pub const DCZID_EL0: u64 = 4;
pub const DC_ZVA_BLOCK_SIZE: u64 = 4 << DCZID_EL0;
