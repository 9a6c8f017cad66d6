//! The ledger: the known, explained reasons why the reference and an oracle may differ on a case.
//!
//! A difference is a mismatch unless an entry here explains it. Each entry names the rule that decides it (the
//! Arm ARM pseudocode, our platform's choices, or a documented oracle limitation). Entries are matched in order.

use crate::a64::{EngineResult, Stop};
use tandem_reference::decode::{Inst, decode};
use tandem_reference::state::CpuState;
use tandem_reference::sysreg::{SysReg, SysRegEncoding};
use tandem_reference::{UndefinedReason, Unpredictable};

/// Everything known about a case that differed.
pub struct CaseRecord<'a> {
    pub word: u32,
    pub state: &'a CpuState,
    pub reference: &'a EngineResult,
    pub oracle: &'a EngineResult,
    /// The CONSTRAINED UNPREDICTABLE case the reference met, if any.
    pub unpredictable: Option<Unpredictable>,
}

pub struct LedgerEntry {
    pub id: &'static str,
    pub reason: &'static str,
    applies: fn(&CaseRecord) -> bool,
}

/// An exclusive or ordered access whose address (its base register: these have no offset) is not a multiple of
/// its size.
fn misaligned(case: &CaseRecord) -> bool {
    let base = |rn: u32| if rn == 31 { case.state.sp } else { case.state.x[rn as usize] };
    let (address, size) = match decode(case.word) {
        Some(
            Inst::Stxr { size, rn, .. }
            | Inst::Stlr { size, rn, .. }
            | Inst::Ldar { size, rn, .. }
            | Inst::Ldapr { size, rn, .. },
        ) => (base(rn), 1u64 << size),
        Some(Inst::Stxp { sz, rn, .. }) => (base(rn), 8u64 << sz),
        _ => return false,
    };
    !address.is_multiple_of(size)
}

static LEDGER: &[LedgerEntry] = &[
    LedgerEntry {
        id: "constrained-unpredictable",
        reason: "the Arm ARM leaves the result CONSTRAINED UNPREDICTABLE (ConstrainUnpredictable in the pseudocode); \
                 the reference documents its choice in interp::Unpredictable",
        applies: |case| case.unpredictable.is_some(),
    },
    LedgerEntry {
        id: "faulting-store-partly-written",
        reason: "a store that takes a Data Abort may have written part of its bytes (Arm ARM B2, single-copy \
                 atomicity: the accesses of an instruction that aborts may or may not have been performed); the \
                 reference writes nothing, QEMU writes up to the faulting page",
        applies: |case| {
            matches!(case.reference.stop, Stop::Fault { .. })
                && case.reference.stop == case.oracle.stop
                && case.reference.state == case.oracle.state
                && case.reference.changed_pages.is_empty()
        },
    },
    LedgerEntry {
        id: "guest-time",
        reason: "CNTVCT_EL0/CNTPCT_EL0 count guest time derived from retired instructions (DESIGN.md), not host time, \
                 at the platform's CNTFRQ_EL0 of 19.2 MHz",
        applies: |case| reads_system_register(case.word, &[SysReg::CntvctEl0, SysReg::CntpctEl0, SysReg::CntfrqEl0]),
    },
    LedgerEntry {
        id: "identification-registers",
        reason: "MIDR/MPIDR/REVIDR/ID_AA64*/CTR_EL0 describe the modelled Cortex-A78C; Tandem answers EL0 reads of the \
                 EL1 ID registers as Linux and our HLE do (those it does not list as 0), bare hardware (Unicorn) \
                 traps them",
        applies: |case| {
            reads_unlisted_id_register(case.word)
                || reads_system_register(
                    case.word,
                    &[
                        SysReg::MidrEl1,
                        SysReg::MpidrEl1,
                        SysReg::RevidrEl1,
                        SysReg::IdAa64pfr0El1,
                        SysReg::IdAa64isar0El1,
                        SysReg::IdAa64isar1El1,
                        SysReg::CtrEl0,
                    ],
                )
        },
    },
    LedgerEntry {
        id: "oracle-exclusive-alignment",
        reason: "AArch64.ExclusiveMonitorsPass checks alignment before the monitor; QEMU 5.0 fails a store-exclusive \
                 whose address the monitor does not hold without checking alignment",
        applies: |case| {
            matches!(decode(case.word), Some(Inst::Stxr { .. } | Inst::Stxp { .. }))
                && misaligned(case)
                && case.reference.stop == Stop::Alignment
                && case.oracle.stop == Stop::Completed
        },
    },
    LedgerEntry {
        id: "oracle-exclusive-sentinel",
        reason: "QEMU marks an open exclusive monitor with the address -1, so a store-exclusive to address \
                 0xffffffffffffffff finds it 'held' and accesses memory; the monitor is open, so the Arm ARM fails it \
                 without an access",
        applies: |case| {
            matches!(decode(case.word), Some(Inst::Stxr { rn, .. } | Inst::Stxp { rn, .. })
                if rn != 31 && case.state.x[rn as usize] == u64::MAX)
        },
    },
    LedgerEntry {
        id: "exclusive-monitor-and-plain-stores",
        reason: "whether a plain store by the same PE to the marked address clears the local monitor is \
                 IMPLEMENTATION DEFINED (Arm ARM B2.9, local monitor); the reference keeps it, QEMU compares the \
                 memory value with what the load-exclusive read and fails the store-exclusive when it changed",
        applies: |case| {
            let Some(Inst::Stxr { rs, .. } | Inst::Stxp { rs, .. }) = decode(case.word) else { return false };
            // The reference's store succeeded (status 0) where the oracle's failed (status 1); with WZR as the
            // status register only the memory written tells, and every other register must agree.
            let (mut reference, mut oracle) = (case.reference.state.clone(), case.oracle.state.clone());
            let statuses_say_so = rs == 31 || (reference.x[rs as usize] == 0 && oracle.x[rs as usize] == 1);
            if rs != 31 {
                (reference.x[rs as usize], oracle.x[rs as usize]) = (0, 0);
            }
            statuses_say_so
                && case.reference.stop == Stop::Completed
                && case.oracle.stop == Stop::Completed
                && reference == oracle
        },
    },
    LedgerEntry {
        id: "oracle-ordered-alignment",
        reason: "before FEAT_LSE2 (which the Cortex-A78C lacks) a misaligned load-acquire or store-release takes an \
                 Alignment fault (CheckAlignment for AccType_ORDERED); QEMU 5.0 performs the access",
        applies: |case| {
            matches!(decode(case.word), Some(Inst::Stlr { .. } | Inst::Ldar { .. } | Inst::Ldapr { .. }))
                && misaligned(case)
                && case.reference.stop == Stop::Alignment
        },
    },
    LedgerEntry {
        id: "oracle-cache-maintenance-faults",
        reason: "DC CVAC/CVAU/CVAP/CIVAC and IC IVAU translate their address and take a Data Abort when it is not mapped \
                 (Arm ARM D5, data cache maintenance by VA can generate Data Aborts); QEMU treats them as NOPs",
        applies: |case| {
            let Some(Inst::Sys { l: 0, op1: 3, crn: 7, crm, op2: 1, rt }) = decode(case.word) else { return false };
            let address = if rt == 31 { 0 } else { case.state.x[rt as usize] };
            matches!(crm, 5 | 10 | 11 | 12 | 14)
                && matches!(case.reference.stop, Stop::Fault { address: at, .. } if at == address)
                && case.oracle.stop == Stop::Completed
        },
    },
    LedgerEntry {
        id: "oracle-dc-cvadp",
        reason: "DC CVADP is FEAT_DPB2, which the Cortex-A78C lacks (ID_AA64ISAR1_EL1.DPB = 1: DC CVAP only), so the \
                 encoding is UNDEFINED there; QEMU 5.0's CPU has FEAT_DPB2 and performs it",
        applies: |case| {
            matches!(decode(case.word), Some(Inst::Sys { l: 0, op1: 3, crn: 7, crm: 13, op2: 1, .. }))
                && case.reference.stop == Stop::Undefined
                && case.oracle.stop != Stop::Undefined
        },
    },
    LedgerEntry {
        id: "oracle-dc-zva-fault-pc",
        reason: "QEMU reports a DC ZVA translation fault with the PC of the next instruction; the exception's preferred \
                 return address is the DC ZVA itself",
        applies: |case| {
            matches!(decode(case.word), Some(Inst::Sys { crm: 4, op2: 1, .. }))
                && case.reference.stop == case.oracle.stop
                && case.oracle.state.pc == case.reference.state.pc.wrapping_add(4)
        },
    },
    LedgerEntry {
        id: "oracle-fcvtz-fixed-half-sign-extended",
        reason: "FCVTZS/FCVTZU (scalar, fixed-point) on half precision: `V[d] = result` with datasize 16 zeroes bits \
                 127:16; QEMU 5.0 writes the 16-bit result sign-extended to 32 bits",
        applies: |case| {
            let Some(Inst::SimdScalarShiftImm { immh, opcode: 0b11111, rd, .. }) = decode(case.word) else {
                return false;
            };
            let (reference, oracle) = (case.reference.state.v[rd as usize], case.oracle.state.v[rd as usize]);
            let mut oracle_state = case.oracle.state.clone();
            oracle_state.v[rd as usize] = reference;
            immh >> 1 == 0b001
                && reference >> 15 & 1 == 1
                && oracle == reference | 0xffff_0000
                && oracle_state == case.reference.state
                && case.reference.stop == case.oracle.stop
        },
    },
    LedgerEntry {
        id: "oracle-atomic-minmax-width",
        reason: "QEMU 5.0 compares the operands of LD{S,U}{MAX,MIN}{B,H,W} at 64 bits without extending them from the \
                 access size (fixed in later QEMU); the Arm ARM compares datasize-bit values (signed for SMAX/SMIN)",
        applies: |case| matches!(decode(case.word), Some(Inst::LdAtomic { size, opc, .. }) if size < 3 && opc >= 4),
    },
    LedgerEntry {
        id: "oracle-xpac-with-keys-disabled",
        reason: "XPACI, XPACD and XPACLRI strip the PAC field whatever the key enables say (`X[d] = Strip(X[d], data);`, \
                 no SCTLR_EL1.En* test); QEMU 5.0 translates them as NOPs unless a key is enabled (its pauth_active \
                 flag), so it leaves bits 63:48 (the PAC field under TCR_EL1 = 0) as they were",
        applies: |case| {
            let d = match decode(case.word) {
                Some(Inst::Dp1src { sf: 1, s: 0, opcode2: 0b00001, opcode: 0b010000 | 0b010001, rn: 31, rd }) => rd,
                Some(Inst::Hint { crm: 0, op2: 0b111 }) => 30,
                _ => return false,
            };
            let (mut reference, before) = (case.reference.state.clone(), case.state.x[d as usize]);
            let stripped = reference.x[d as usize];
            reference.x[d as usize] = before;
            case.reference.stop == Stop::Completed
                && case.oracle.stop == Stop::Completed
                && reference == case.oracle.state
                && (stripped ^ before) & 0x0000_ffff_ffff_ffff == 0
        },
    },
    LedgerEntry {
        id: "oracle-pacga-trapped-to-el2",
        reason: "AddPACGA at EL0 traps only if `TrapEL2 = (EL2Enabled() && HCR_EL2.API == '0' && ...)` or \
                 `TrapEL3 = HaveEL(EL3) && SCR_EL3.API == '0'`; the oracle runs in Secure state, where EL2 is not \
                 enabled, with SCR_EL3.API set, so PACGA computes its code; QEMU 5.0's pauth_check_trap traps to EL2 \
                 whenever EL2 exists and HCR_EL2 reads as 0, as it does in Secure state. ComputePAC is checked against \
                 QEMU in Non-secure state instead (unicorn::tests::pacga_matches_qemu_in_non_secure_state)",
        applies: |case| {
            matches!(decode(case.word), Some(Inst::Dp2src { sf: 1, s: 0, opcode: 0b001100, .. }))
                && case.reference.stop == Stop::Completed
                && case.oracle.stop == Stop::Undefined
        },
    },
    LedgerEntry {
        id: "oracle-without-ssbs",
        reason: "FEAT_SSBS, which the Cortex-A78C has, makes PSTATE.SSBS writable at EL0: MSR (immediate) \
                 `when '011 001' ... field = PSTATEField_SSBS;` then `PSTATE.SSBS = CRm<0>;`, and MRS/MSR of the SSBS \
                 register (S3_3_C4_C2_6); QEMU 5.0's max CPU lacks FEAT_SSBS and takes them as UNDEFINED",
        applies: |case| {
            let ssbs = match decode(case.word) {
                Some(Inst::MsrImm { op1: 0b011, op2: 0b001, .. }) => true,
                Some(Inst::MsrMrs { o0, op1, crn, crm, op2, .. }) => {
                    SysReg::lookup(SysRegEncoding::from_fields(o0, op1, crn, crm, op2)) == Some(SysReg::Ssbs)
                }
                _ => false,
            };
            ssbs && case.reference.stop == Stop::Completed && case.oracle.stop == Stop::Undefined
        },
    },
    LedgerEntry {
        id: "beyond-target",
        reason: "an extension the Cortex-A78C does not implement (FEAT_FlagM2 XAFLAG/AXFLAG, FEAT_SB; in the SIMD&FP \
                 space FCMA, FHM, FRINTTS, JSCVT, BF16, I8MM, SHA3/SHA512/SM3/SM4): unallocated for Tandem, \
                 implemented by Unicorn's max CPU. Tandem's SIMD&FP decode is checked word by word against llvm-mc \
                 with exactly the A78C's features (reference/tests/disasm_llvm.rs)",
        applies: |case| {
            let family = decode(case.word).map(|inst| inst.encoding().family().name);
            case.reference.undefined_reason == Some(UndefinedReason::Unallocated)
                && (matches!(
                    decode(case.word),
                    Some(Inst::MsrImm { op1: 0, crm: 0, op2: 1 | 2 } | Inst::Barrier { crm: 0, op2: 0b111 })
                ) || family
                    .is_some_and(|f| f.starts_with("simd_") || f.starts_with("fp_") || f.starts_with("crypto_")))
        },
    },
];

/// Ledger id of the cases Unicorn is not given (see `oracle_must_not_run`).
pub const ORACLE_NOT_ASKED: &str = "oracle-not-asked";

/// Whether a word the reference refuses as unallocated must be kept from Unicorn: QEMU 5.0's SIMD&FP decoders
/// reach `g_assert_not_reached()` on some unallocated encodings and abort the whole process. Tandem's unallocated
/// answers there are checked word by word against llvm-mc with the A78C's features (reference/tests/disasm_llvm.rs),
/// so nothing goes unchecked.
pub fn oracle_must_not_run(word: u32, reference_refuses: impl FnOnce() -> bool) -> bool {
    let family = decode(word).map(|inst| inst.encoding().family().name);
    family.is_some_and(|f| f.starts_with("simd_") || f.starts_with("fp_") || f.starts_with("crypto_"))
        && reference_refuses()
}

/// The first ledger entry that explains a differing case.
pub fn classify(case: &CaseRecord) -> Option<&'static LedgerEntry> {
    LEDGER.iter().find(|entry| (entry.applies)(case))
}

pub fn reason(id: &str) -> &'static str {
    if id == ORACLE_NOT_ASKED {
        return "unallocated SIMD&FP words, on some of which QEMU 5.0 aborts the process (g_assert_not_reached in its \
                decoder); Tandem's answer for them is checked against llvm-mc instead";
    }
    LEDGER.iter().find(|entry| entry.id == id).map_or("?", |entry| entry.reason)
}

fn reads_system_register(word: u32, registers: &[SysReg]) -> bool {
    let Some(Inst::MsrMrs { o0, op1, crn, crm, op2, .. }) = decode(word) else { return false };
    SysReg::lookup(SysRegEncoding::from_fields(o0, op1, crn, crm, op2)).is_some_and(|r| registers.contains(&r))
}

/// An MRS of an identification register Tandem does not list (it reads as 0).
fn reads_unlisted_id_register(word: u32) -> bool {
    let Some(Inst::MsrMrs { l: 1, o0, op1, crn, crm, op2, .. }) = decode(word) else { return false };
    let encoding = SysRegEncoding::from_fields(o0, op1, crn, crm, op2);
    SysReg::lookup(encoding).is_none() && encoding.in_id_space()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(stop: Stop, state: &CpuState) -> EngineResult {
        EngineResult { stop, undefined_reason: None, exit: None, state: state.clone(), changed_pages: Vec::new() }
    }

    /// The oracle's known limits excuse only the cases they name: an alignment fault of an aligned address, or a
    /// fault of a cache maintenance instruction at another address than its register's, is a mismatch.
    #[test]
    fn entries_excuse_only_the_cases_they_describe() {
        let classify_with = |word: u32, x1: u64, reference_stop: Stop| {
            let mut state = CpuState::default();
            state.x[1] = x1;
            let (reference, oracle) = (result(reference_stop, &state), result(Stop::Completed, &state));
            let case = CaseRecord { word, state: &state, reference: &reference, oracle: &oracle, unpredictable: None };
            classify(&case).map(|entry| entry.id)
        };
        const LDAR_X0_X1: u32 = 0xc8df_fc20;
        const LDARB_W0_X1: u32 = 0x08df_fc20;
        assert_eq!(classify_with(LDAR_X0_X1, 0x1004, Stop::Alignment), Some("oracle-ordered-alignment"));
        assert_eq!(classify_with(LDAR_X0_X1, 0x1008, Stop::Alignment), None, "aligned");
        assert_eq!(classify_with(LDARB_W0_X1, 0x1003, Stop::Alignment), None, "a byte is never misaligned");
        const DC_CVAC_X1: u32 = 0xd50b_7a21;
        const DC_ZVA_X1: u32 = 0xd50b_7421;
        let fault = |address| Stop::Fault { access: tandem_reference::Access::Read, address };
        assert_eq!(classify_with(DC_CVAC_X1, 0x5000, fault(0x5000)), Some("oracle-cache-maintenance-faults"));
        assert_eq!(classify_with(DC_CVAC_X1, 0x5000, fault(0x9000)), None, "another address");
        assert_eq!(classify_with(DC_ZVA_X1, 0x5000, fault(0x5000)), None, "DC ZVA writes");
        const DC_CVADP_X5: u32 = 0xd50b_7d25;
        assert_eq!(classify_with(DC_CVADP_X5, 0x5000, Stop::Undefined), Some("oracle-dc-cvadp"));
        assert_eq!(classify_with(DC_CVAC_X1, 0x5000, Stop::Undefined), None, "DC CVAC is the core's");
    }
}
