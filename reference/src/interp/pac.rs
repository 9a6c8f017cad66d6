//! The pseudocode's pointer authentication functions (`aarch64/functions/pac`), as Horizon's EL0 configures them:
//! `AddPAC<key>` and `Auth<key>` with every key disabled, `Strip` under the modelled TCR_EL1, and `AddPACGA` with
//! `ComputePAC`, the QARMA-64 block cipher, written out after the pseudocode.
//!
//! The configuration, and why:
//! - SCTLR_EL1.EnIA, EnIB, EnDA and EnDB are 0 (Horizon's choice; the differential harness configures Unicorn so):
//!   `AddPACIA` ... `AuthDB` return their pointer unchanged.
//! - PAuth instructions do not trap (SCR_EL3.API = 1, and HCR_EL2.API = 1 where EL2 is enabled): PACGA computes a
//!   code with APGAKey_EL1, which the interpreter takes from its configuration (`PointerAuthKeys`).
//! - TCR_EL1 as Unicorn's, which resets to 0 (QEMU's `vmsa_ttbcr_reset`): TBI0 = TBI1 = 0, so `EffectiveTBI` is 0
//!   for every pointer; T0SZ = T1SZ = 0 is below the minimum of 16, which `CalculateBottomPACBit` leaves CONSTRAINED
//!   UNPREDICTABLE (Unpredictable_RESTnSZ) between Constraint_FORCE (use 16) and Constraint_NONE. We choose
//!   FORCE, as QEMU does (`aa64_va_parameters` clamps TnSZ to 16..=39): 48-bit virtual addresses, PAC field 63:48.
//!   (Horizon's own TCR_EL1 gives 39-bit address spaces; the choice only shows on XPAC* of non-canonical
//!   pointers, and both engines would change together.)

use super::pseudocode::ones;

/// The key an instruction names: A or B, for instruction or data addresses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum PacKey {
    Ia,
    Ib,
    Da,
    Db,
}

impl PacKey {
    /// The key of an instruction with a D (data) bit and a key-B bit (`use_key_a = (key_b == '0')`).
    pub(super) fn decode(data: bool, key_b: bool) -> PacKey {
        match (data, key_b) {
            (false, false) => PacKey::Ia,
            (false, true) => PacKey::Ib,
            (true, false) => PacKey::Da,
            (true, true) => PacKey::Db,
        }
    }
}

/// `AddPACIA`, `AddPACIB`, `AddPACDA`, `AddPACDB` at EL0. Horizon disables every key (`SCTLR_EL1.En<key>` = 0), so
/// the first test of the pseudocode, `if Enable == '0' then return X;`, decides before any trap check and before the
/// key or the modifier is read: the pointer comes back unchanged.
pub(super) fn add_pac(_key: PacKey, x: u64, _modifier: u64) -> u64 {
    x
}

/// `AuthIA`, `AuthIB`, `AuthDA`, `AuthDB` at EL0: as `add_pac`, `if Enable == '0' then return X;` with every key
/// disabled.
pub(super) fn auth(_key: PacKey, x: u64, _modifier: u64) -> u64 {
    x
}

/// `CalculateBottomPACBit(top_bit)` under the modelled TCR_EL1: T0SZ and T1SZ are 0, forced to 16 (see the module
/// documentation), whichever range `top_bit` selects.
const BOTTOM_PAC_BIT: u32 = 64 - 16;

/// `Strip(A, data)`: the pointer with its PAC field replaced by the extension of bit 55. `EffectiveTBI` is 0 for
/// both instruction and data pointers here (TCR_EL1.TBI0 = TBI1 = 0; `data` would only matter through TBID0/1), so
/// `original_ptr = extfield<(64-bottom_PAC_bit)-1:0>:A<bottom_PAC_bit-1:0>`. Unlike `AddPAC*` and `Auth*`, no
/// enable bit guards it.
pub(super) fn strip(a: u64) -> u64 {
    let extfield = if a >> 55 & 1 == 1 { u64::MAX } else { 0 };
    extfield << BOTTOM_PAC_BIT | a & ones(BOTTOM_PAC_BIT)
}

/// `AddPACGA(X, Y)` at EL0, with PAuth not trapped (TrapEL2 and TrapEL3 false, see the module documentation):
/// `ComputePAC(X, Y, APGAKey_EL1<127:64>, APGAKey_EL1<63:0>)<63:32>:Zeros(32)`.
pub(super) fn add_pac_ga(x: u64, y: u64, apga_key: u128) -> u64 {
    let (key0, key1) = ((apga_key >> 64) as u64, apga_key as u64);
    compute_pac(x, y, key0, key1) & !ones(32)
}

/// The round constants `RC[0..=4]` of `ComputePAC` (digits of pi, as in PRINCE and QARMA).
const RC: [u64; 5] =
    [0x0000_0000_0000_0000, 0x1319_8a2e_0370_7344, 0xa409_3822_299f_31d0, 0x082e_fa98_ec4e_6c89, 0x4528_21e6_38d0_1377];

/// `Alpha` of `ComputePAC`, the reflection constant.
const ALPHA: u64 = 0xc0ac_29b7_c97c_50dd;

/// `ComputePAC(data, modifier, key0, key1)`: QARMA-64 with the S-box sigma_2 and 5 rounds forward and backward,
/// encrypting `data` under the tweak `modifier` and the key `key0:key1`.
pub(super) fn compute_pac(data: u64, modifier: u64, key0: u64, key1: u64) -> u64 {
    // modk0 = key0<0>:key0<63:2>:(key0<63> EOR key0<1>)
    let modk0 = (key0 & 1) << 63 | (key0 >> 2) << 1 | ((key0 >> 63) ^ (key0 >> 1)) & 1;
    let mut runningmod = modifier;
    let mut workingval = data ^ key0;
    for (i, rc) in RC.iter().enumerate() {
        let roundkey = key1 ^ runningmod;
        workingval ^= roundkey;
        workingval ^= rc;
        if i > 0 {
            workingval = pac_cell_shuffle(workingval);
            workingval = pac_mult(workingval);
        }
        workingval = pac_sub(workingval);
        runningmod = tweak_shuffle(runningmod);
    }
    let roundkey = modk0 ^ runningmod;
    workingval ^= roundkey;
    workingval = pac_cell_shuffle(workingval);
    workingval = pac_mult(workingval);
    workingval = pac_sub(workingval);
    workingval = pac_cell_shuffle(workingval);
    workingval = pac_mult(workingval);
    workingval ^= key1;
    workingval = pac_cell_inv_shuffle(workingval);
    workingval = pac_inv_sub(workingval);
    workingval = pac_mult(workingval);
    workingval = pac_cell_inv_shuffle(workingval);
    workingval ^= key0;
    workingval ^= runningmod;
    for i in 0..=4 {
        workingval = pac_inv_sub(workingval);
        if i < 4 {
            workingval = pac_mult(workingval);
            workingval = pac_cell_inv_shuffle(workingval);
        }
        runningmod = tweak_inv_shuffle(runningmod);
        let roundkey = key1 ^ runningmod;
        workingval ^= RC[4 - i];
        workingval ^= roundkey;
        workingval ^= ALPHA;
    }
    workingval ^ modk0
}

/// Cell `i` (bits `4*i+3:4*i`) of a 64-bit value.
fn cell(value: u64, i: u32) -> u64 {
    value >> (4 * i) & 0xf
}

/// A 64-bit value whose cell `i` is `f(i)`.
fn from_cells(f: impl Fn(u32) -> u64) -> u64 {
    (0..16).fold(0, |out, i| out | f(i) << (4 * i))
}

/// `PACCellShuffle`: output cell `i` is input cell `CELL_SHUFFLE[i]` (`outdata<3:0> = indata<55:52>`, ...).
const CELL_SHUFFLE: [u32; 16] = [13, 6, 11, 0, 7, 12, 1, 10, 8, 3, 14, 5, 2, 9, 4, 15];
/// `PACCellInvShuffle`, the inverse permutation (`outdata<3:0> = indata<15:12>`, ...).
const CELL_INV_SHUFFLE: [u32; 16] = [3, 6, 12, 9, 14, 11, 1, 4, 8, 13, 7, 2, 5, 0, 10, 15];

fn pac_cell_shuffle(indata: u64) -> u64 {
    from_cells(|i| cell(indata, CELL_SHUFFLE[i as usize]))
}

fn pac_cell_inv_shuffle(indata: u64) -> u64 {
    from_cells(|i| cell(indata, CELL_INV_SHUFFLE[i as usize]))
}

/// `PACSub`'s 4-bit substitution, from the PRINCE family (QARMA's sigma_2).
const SUB: [u64; 16] = [0xb, 0x6, 0x8, 0xf, 0xc, 0x0, 0x9, 0xe, 0x3, 0x7, 0x4, 0x5, 0xd, 0x2, 0x1, 0xa];
/// `PACInvSub`'s, the inverse of `SUB`.
const INV_SUB: [u64; 16] = [0x5, 0xe, 0xd, 0x8, 0xa, 0xb, 0x1, 0x9, 0x2, 0x6, 0xf, 0x0, 0x4, 0xc, 0x7, 0x3];

fn pac_sub(tinput: u64) -> u64 {
    from_cells(|i| SUB[cell(tinput, i) as usize])
}

fn pac_inv_sub(tinput: u64) -> u64 {
    from_cells(|i| INV_SUB[cell(tinput, i) as usize])
}

/// `RotCell(incell, amount)`: a 4-bit rotate left.
fn rot_cell(incell: u64, amount: u32) -> u64 {
    (incell << amount | incell >> (4 - amount)) & 0xf
}

/// `PACMult`: the MixColumns of QARMA, over the 4x4 matrix of cells whose columns are cells `i`, `i+4`, `i+8` and
/// `i+12`.
fn pac_mult(sinput: u64) -> u64 {
    let mut soutput = 0;
    for i in 0..4 {
        let s = |row: u32| cell(sinput, i + 4 * row);
        let t0 = rot_cell(s(2), 1) ^ rot_cell(s(1), 2) ^ rot_cell(s(0), 1);
        let t1 = rot_cell(s(3), 1) ^ rot_cell(s(1), 1) ^ rot_cell(s(0), 2);
        let t2 = rot_cell(s(3), 2) ^ rot_cell(s(2), 1) ^ rot_cell(s(0), 1);
        let t3 = rot_cell(s(3), 1) ^ rot_cell(s(2), 2) ^ rot_cell(s(1), 1);
        soutput |= t3 << (4 * i) | t2 << (4 * (i + 4)) | t1 << (4 * (i + 8)) | t0 << (4 * (i + 12));
    }
    soutput
}

/// `TweakCellRot`: one step of the tweak's 4-bit LFSR (`outcell<3> = incell<0> EOR incell<1>`,
/// `outcell<2:0> = incell<3:1>`).
fn tweak_cell_rot(incell: u64) -> u64 {
    ((incell ^ incell >> 1) & 1) << 3 | incell >> 1
}

/// `TweakCellInvRot`, its inverse (`outcell<3:1> = incell<2:0>`, `outcell<0> = incell<0> EOR incell<3>`).
fn tweak_cell_inv_rot(incell: u64) -> u64 {
    (incell << 1) & 0xe | (incell ^ incell >> 3) & 1
}

/// `TweakShuffle`: output cell `i` is input cell `TWEAK_SHUFFLE[i].0`, through `TweakCellRot` where `.1` says so
/// (`outdata<3:0> = indata<19:16>`, ..., `outdata<11:8> = TweakCellRot(indata<27:24>)`, ...).
const TWEAK_SHUFFLE: [(u32, bool); 16] = [
    (4, false),
    (5, false),
    (6, true),
    (7, false),
    (11, true),
    (2, false),
    (3, false),
    (8, true),
    (12, false),
    (13, false),
    (14, false),
    (15, true),
    (0, true),
    (1, false),
    (10, true),
    (9, true),
];

/// `TweakInvShuffle`, the inverse: input cell `.0`, through `TweakCellInvRot` where `.1` says so.
const TWEAK_INV_SHUFFLE: [(u32, bool); 16] = [
    (12, true),
    (13, false),
    (5, false),
    (6, false),
    (0, false),
    (1, false),
    (2, true),
    (3, false),
    (7, true),
    (15, true),
    (14, true),
    (4, true),
    (8, false),
    (9, false),
    (10, false),
    (11, true),
];

fn tweak_shuffle(indata: u64) -> u64 {
    from_cells(|i| {
        let (source, rotate) = TWEAK_SHUFFLE[i as usize];
        let value = cell(indata, source);
        if rotate { tweak_cell_rot(value) } else { value }
    })
}

fn tweak_inv_shuffle(indata: u64) -> u64 {
    from_cells(|i| {
        let (source, rotate) = TWEAK_INV_SHUFFLE[i as usize];
        let value = cell(indata, source);
        if rotate { tweak_cell_inv_rot(value) } else { value }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The QARMA-64 test vector for sigma_2 and r = 5 (Avanzi, "The QARMA Block Cipher Family", ToSC 2017(1),
    /// appendix: P, T, w0, k0 -> C), which is ComputePAC(P, T, w0, k0); QEMU checks its PACGA with it
    /// (tests/tcg/aarch64/system/pauth-3.c: APGAKeyHi_EL1 = w0, APGAKeyLo_EL1 = k0).
    #[test]
    fn compute_pac_matches_the_qarma_test_vector() {
        let (p, t, w0, k0) =
            (0xfb62_3599_da6e_8127, 0x477d_469d_ec0b_8762, 0x84be_85ce_9804_e94b, 0xec28_02d4_e0a4_88e9);
        assert_eq!(compute_pac(p, t, w0, k0), 0xc003_b939_99b3_3765);
        assert_eq!(add_pac_ga(p, t, u128::from(w0) << 64 | u128::from(k0)), 0xc003_b939_0000_0000);
    }

    #[test]
    fn inverse_functions_invert() {
        let values = [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210, 0x8000_0000_0000_0001, 0xa5a5_5a5a_3c3c_c3c3];
        for value in values {
            assert_eq!(pac_cell_inv_shuffle(pac_cell_shuffle(value)), value);
            assert_eq!(pac_inv_sub(pac_sub(value)), value);
            assert_eq!(tweak_inv_shuffle(tweak_shuffle(value)), value);
            // PACMult is an involution (QARMA's M = Q is its own inverse).
            assert_eq!(pac_mult(pac_mult(value)), value);
        }
        for incell in 0..16 {
            assert_eq!(tweak_cell_inv_rot(tweak_cell_rot(incell)), incell);
        }
    }

    #[test]
    fn strip_extends_bit_55_over_the_pac_field() {
        assert_eq!(strip(0x1234_5678_9abc_def0), 0x0000_5678_9abc_def0);
        assert_eq!(strip(0x12b4_5678_9abc_def0), 0xffff_5678_9abc_def0);
        assert_eq!(strip(0x0000_0071_0000_1000), 0x0000_0071_0000_1000);
    }
}
