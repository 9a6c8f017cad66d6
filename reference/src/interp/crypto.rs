//! C4.1.96 The cryptographic extension classes the Cortex-A78C has (FEAT_AES with FEAT_PMULL, FEAT_SHA1,
//! FEAT_SHA256): "Cryptographic AES", "Cryptographic three-register SHA" and "Cryptographic two-register SHA".
//! PMULL is in "Advanced SIMD three different". SHA512, SHA3, SM3 and SM4 are not in the core and are not in the
//! decode table.
//!
//! The pages' shared functions are below the handlers under their pseudocode names (`AESShiftRows` is
//! [`aes_shift_rows`], `SHA256hash` is [`sha256_hash`]). The AES tables the pseudocode lists (the S-box, its inverse
//! and the GF(2^8) products `FFmul02` ... `FFmul0E`) are computed here from their FIPS-197 definitions, and the tests
//! check them against the standard's examples.

use super::pseudocode::{elem, set_elem};
use super::{Exec, Step};

impl Exec<'_> {
    /// The class "Cryptographic AES": AESE, AESD, AESMC, AESIMC.
    pub(super) fn cryptographic_aes(&mut self, word: u32, size: u32, opcode: u32, rn: u32, rd: u32) -> Step {
        if size != 0 {
            return self.unallocated(word);
        }
        match opcode {
            0b00100 => self.aese(rn, rd),
            0b00101 => self.aesd(rn, rd),
            0b00110 => self.aesmc(rn, rd),
            0b00111 => self.aesimc(rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// AESE: one AES encryption round without MixColumns: AddRoundKey, ShiftRows, SubBytes.
    fn aese(&mut self, n: u32, d: u32) -> Step {
        let operand1 = self.v(d, 128);
        let operand2 = self.v(n, 128);
        let result = operand1 ^ operand2;
        self.set_v(d, aes_sub_bytes(aes_shift_rows(result)), 128);
        Ok(())
    }

    /// AESD: one AES decryption round without InvMixColumns: AddRoundKey, InvShiftRows, InvSubBytes.
    fn aesd(&mut self, n: u32, d: u32) -> Step {
        let operand1 = self.v(d, 128);
        let operand2 = self.v(n, 128);
        let result = operand1 ^ operand2;
        self.set_v(d, aes_inv_sub_bytes(aes_inv_shift_rows(result)), 128);
        Ok(())
    }

    /// AESMC: AES MixColumns.
    fn aesmc(&mut self, n: u32, d: u32) -> Step {
        let operand = self.v(n, 128);
        self.set_v(d, aes_mix_columns(operand), 128);
        Ok(())
    }

    /// AESIMC: AES InvMixColumns.
    fn aesimc(&mut self, n: u32, d: u32) -> Step {
        let operand = self.v(n, 128);
        self.set_v(d, aes_inv_mix_columns(operand), 128);
        Ok(())
    }

    /// The class "Cryptographic three-register SHA": SHA1C, SHA1P, SHA1M, SHA1SU0, SHA256H, SHA256H2, SHA256SU1.
    pub(super) fn cryptographic_three_register_sha(
        &mut self,
        word: u32,
        size: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if size != 0 {
            return self.unallocated(word);
        }
        match opcode {
            0b000 => self.sha1c(rm, rn, rd),
            0b001 => self.sha1p(rm, rn, rd),
            0b010 => self.sha1m(rm, rn, rd),
            0b011 => self.sha1su0(rm, rn, rd),
            0b100 => self.sha256h(rm, rn, rd),
            0b101 => self.sha256h2(rm, rn, rd),
            0b110 => self.sha256su1(rm, rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// SHA1C: four SHA-1 rounds with the choose function (rounds 0-19).
    fn sha1c(&mut self, m: u32, n: u32, d: u32) -> Step {
        let (x, y, w) = (self.v(d, 128), self.v(n, 32) as u32, self.v(m, 128));
        self.set_v(d, sha1_hash(x, y, w, sha_choose), 128);
        Ok(())
    }

    /// SHA1P: four SHA-1 rounds with the parity function (rounds 20-39 and 60-79).
    fn sha1p(&mut self, m: u32, n: u32, d: u32) -> Step {
        let (x, y, w) = (self.v(d, 128), self.v(n, 32) as u32, self.v(m, 128));
        self.set_v(d, sha1_hash(x, y, w, sha_parity), 128);
        Ok(())
    }

    /// SHA1M: four SHA-1 rounds with the majority function (rounds 40-59).
    fn sha1m(&mut self, m: u32, n: u32, d: u32) -> Step {
        let (x, y, w) = (self.v(d, 128), self.v(n, 32) as u32, self.v(m, 128));
        self.set_v(d, sha1_hash(x, y, w, sha_majority), 128);
        Ok(())
    }

    /// SHA1SU0: the first half of the SHA-1 message schedule update.
    fn sha1su0(&mut self, m: u32, n: u32, d: u32) -> Step {
        let operand1 = self.v(d, 128);
        let operand2 = self.v(n, 128);
        let operand3 = self.v(m, 128);
        // result = operand2<63:0> : operand1<127:64>
        let result = operand2 << 64 | operand1 >> 64;
        self.set_v(d, result ^ operand1 ^ operand3, 128);
        Ok(())
    }

    /// SHA256H: four SHA-256 rounds, giving the new A, B, C, D.
    fn sha256h(&mut self, m: u32, n: u32, d: u32) -> Step {
        let result = sha256_hash(self.v(d, 128), self.v(n, 128), self.v(m, 128), true);
        self.set_v(d, result, 128);
        Ok(())
    }

    /// SHA256H2: four SHA-256 rounds, giving the new E, F, G, H.
    fn sha256h2(&mut self, m: u32, n: u32, d: u32) -> Step {
        let result = sha256_hash(self.v(n, 128), self.v(d, 128), self.v(m, 128), false);
        self.set_v(d, result, 128);
        Ok(())
    }

    /// SHA256SU1: the second half of the SHA-256 message schedule update.
    fn sha256su1(&mut self, m: u32, n: u32, d: u32) -> Step {
        let operand1 = self.v(d, 128);
        let operand2 = self.v(n, 128);
        let operand3 = self.v(m, 128);
        let mut result = 0u128;
        // T0 = operand3<31:0> : operand2<127:32>
        let t0 = (operand3 & 0xffff_ffff) << 96 | operand2 >> 32;
        // T1 = operand3<127:64>, then the two elements just computed.
        let mut t1 = (operand3 >> 64) as u64;
        for e in 0..4 {
            if e == 2 {
                t1 = result as u64;
            }
            let mut elt = elem(u128::from(t1), e % 2, 32) as u32;
            elt = elt.rotate_right(17) ^ elt.rotate_right(19) ^ elt >> 10;
            elt = elt.wrapping_add(elem(operand1, e, 32) as u32).wrapping_add(elem(t0, e, 32) as u32);
            set_elem(&mut result, e, 32, u64::from(elt));
        }
        self.set_v(d, result, 128);
        Ok(())
    }

    /// The class "Cryptographic two-register SHA": SHA1H, SHA1SU1, SHA256SU0.
    pub(super) fn cryptographic_two_register_sha(
        &mut self,
        word: u32,
        size: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        if size != 0 {
            return self.unallocated(word);
        }
        match opcode {
            0b00000 => self.sha1h(rn, rd),
            0b00001 => self.sha1su1(rn, rd),
            0b00010 => self.sha256su0(rn, rd),
            _ => self.unallocated(word),
        }
    }

    /// SHA1H: the fixed rotate, `ROL(operand, 30)`, of a SHA-1 hash value.
    fn sha1h(&mut self, n: u32, d: u32) -> Step {
        let operand = self.v(n, 32) as u32;
        self.set_v(d, u128::from(operand.rotate_left(30)), 128);
        Ok(())
    }

    /// SHA1SU1: the second half of the SHA-1 message schedule update.
    fn sha1su1(&mut self, n: u32, d: u32) -> Step {
        let operand1 = self.v(d, 128);
        let operand2 = self.v(n, 128);
        // T = operand1 EOR LSR(operand2, 32)
        let t = operand1 ^ operand2 >> 32;
        let t_elem = |e: u32| elem(t, e, 32) as u32;
        let mut result = 0u128;
        for e in 0..3 {
            set_elem(&mut result, e, 32, u64::from(t_elem(e).rotate_left(1)));
        }
        set_elem(&mut result, 3, 32, u64::from(t_elem(3).rotate_left(1) ^ t_elem(0).rotate_left(2)));
        self.set_v(d, result, 128);
        Ok(())
    }

    /// SHA256SU0: the first half of the SHA-256 message schedule update.
    fn sha256su0(&mut self, n: u32, d: u32) -> Step {
        let operand1 = self.v(d, 128);
        let operand2 = self.v(n, 128);
        // T = operand2<31:0> : operand1<127:32>
        let t = (operand2 & 0xffff_ffff) << 96 | operand1 >> 32;
        let mut result = 0u128;
        for e in 0..4 {
            let mut elt = elem(t, e, 32) as u32;
            elt = elt.rotate_right(7) ^ elt.rotate_right(18) ^ elt >> 3;
            set_elem(&mut result, e, 32, u64::from(elt.wrapping_add(elem(operand1, e, 32) as u32)));
        }
        self.set_v(d, result, 128);
        Ok(())
    }
}

// --- AES (shared/functions/crypto) ---------------------------------------------------------------------------

/// GF(2^8) multiplication modulo the AES polynomial x^8 + x^4 + x^3 + x + 1 (FIPS-197 4.2): the products the
/// pseudocode tabulates as `FFmul02`, `FFmul03`, `FFmul09`, `FFmul0B`, `FFmul0D` and `FFmul0E`.
const fn ff_mul(mut a: u8, mut b: u8) -> u8 {
    let mut product = 0;
    while b != 0 {
        if b & 1 != 0 {
            product ^= a;
        }
        // xtime: multiply by x, reducing by the polynomial.
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        b >>= 1;
    }
    product
}

/// The AES S-box (FIPS-197 5.1.1): the multiplicative inverse in GF(2^8) (0 for 0), then the affine
/// transformation `b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4) ^ 0x63`.
const SBOX: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        // x^254 is the inverse of x (and 0 for 0).
        let mut inverse = 1u8;
        let mut i = 0;
        while i < 254 {
            inverse = ff_mul(inverse, x as u8);
            i += 1;
        }
        if x == 0 {
            inverse = 0;
        }
        let b = inverse;
        table[x] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        x += 1;
    }
    table
};

/// The inverse S-box (FIPS-197 5.3.2).
const INV_SBOX: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        table[SBOX[x] as usize] = x as u8;
        x += 1;
    }
    table
};

/// Byte `i` of a 128-bit value: the AES state's byte `r + 4c` (row r, column c), as the pseudocode's `op<8*i+:8>`.
fn byte(op: u128, i: usize) -> u8 {
    (op >> (8 * i)) as u8
}

/// A 128-bit value from its 16 bytes, byte 0 least significant.
fn from_bytes(bytes: [u8; 16]) -> u128 {
    u128::from_le_bytes(bytes)
}

/// `AESSubBytes(op)`: every byte through the S-box.
pub(crate) fn aes_sub_bytes(op: u128) -> u128 {
    from_bytes(std::array::from_fn(|i| SBOX[byte(op, i) as usize]))
}

/// `AESInvSubBytes(op)`: every byte through the inverse S-box.
pub(crate) fn aes_inv_sub_bytes(op: u128) -> u128 {
    from_bytes(std::array::from_fn(|i| INV_SBOX[byte(op, i) as usize]))
}

/// `AESShiftRows(op)`: row r rotates left by r columns; byte `r + 4c` comes from `r + 4((c + r) mod 4)`.
pub(crate) fn aes_shift_rows(op: u128) -> u128 {
    from_bytes(std::array::from_fn(|i| {
        let (r, c) = (i % 4, i / 4);
        byte(op, r + 4 * ((c + r) % 4))
    }))
}

/// `AESInvShiftRows(op)`: row r rotates right by r columns; byte `r + 4c` comes from `r + 4((c - r) mod 4)`.
pub(crate) fn aes_inv_shift_rows(op: u128) -> u128 {
    from_bytes(std::array::from_fn(|i| {
        let (r, c) = (i % 4, i / 4);
        byte(op, r + 4 * ((c + 4 - r) % 4))
    }))
}

/// The column transform of MixColumns and InvMixColumns: each column `a` becomes
/// `out[r] = k0*a[r] ^ k1*a[r+1] ^ k2*a[r+2] ^ k3*a[r+3]` (rows mod 4, products in GF(2^8)).
fn mix_columns_with(op: u128, [k0, k1, k2, k3]: [u8; 4]) -> u128 {
    from_bytes(std::array::from_fn(|i| {
        let (r, c) = (i % 4, i / 4);
        let a = |row: usize| byte(op, row % 4 + 4 * c);
        ff_mul(k0, a(r)) ^ ff_mul(k1, a(r + 1)) ^ ff_mul(k2, a(r + 2)) ^ ff_mul(k3, a(r + 3))
    }))
}

/// `AESMixColumns(op)`: `out0 = FFmul02(in0) EOR FFmul03(in1) EOR in2 EOR in3`, and so on for each row.
pub(crate) fn aes_mix_columns(op: u128) -> u128 {
    mix_columns_with(op, [0x02, 0x03, 0x01, 0x01])
}

/// `AESInvMixColumns(op)`: `out0 = FFmul0E(in0) EOR FFmul0B(in1) EOR FFmul0D(in2) EOR FFmul09(in3)`, and so on.
pub(crate) fn aes_inv_mix_columns(op: u128) -> u128 {
    mix_columns_with(op, [0x0e, 0x0b, 0x0d, 0x09])
}

// --- SHA (shared/functions/crypto) ---------------------------------------------------------------------------

/// `SHAchoose(x, y, z)`: `((y EOR z) AND x) EOR z`.
pub(crate) fn sha_choose(x: u32, y: u32, z: u32) -> u32 {
    ((y ^ z) & x) ^ z
}

/// `SHAparity(x, y, z)`: `x EOR y EOR z`.
pub(crate) fn sha_parity(x: u32, y: u32, z: u32) -> u32 {
    x ^ y ^ z
}

/// `SHAmajority(x, y, z)`: `(x AND y) OR ((x OR y) AND z)`.
pub(crate) fn sha_majority(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | ((x | y) & z)
}

/// `SHAhashSIGMA0(x)`: `ROR(x, 2) EOR ROR(x, 13) EOR ROR(x, 22)`.
pub(crate) fn sha_hash_sigma0(x: u32) -> u32 {
    x.rotate_right(2) ^ x.rotate_right(13) ^ x.rotate_right(22)
}

/// `SHAhashSIGMA1(x)`: `ROR(x, 6) EOR ROR(x, 11) EOR ROR(x, 25)`.
pub(crate) fn sha_hash_sigma1(x: u32) -> u32 {
    x.rotate_right(6) ^ x.rotate_right(11) ^ x.rotate_right(25)
}

/// The loop SHA1C, SHA1P and SHA1M share, with their hash function `f`: four SHA-1 rounds on the hash value
/// `X` (A in element 0 ... D in element 3) and `Y` (E), with the four words `W` (with the constant added).
pub(crate) fn sha1_hash(mut x: u128, mut y: u32, w: u128, f: fn(u32, u32, u32) -> u32) -> u128 {
    let x_elem = |x: u128, e: u32| elem(x, e, 32) as u32;
    for e in 0..4 {
        let t = f(x_elem(x, 1), x_elem(x, 2), x_elem(x, 3));
        y = y.wrapping_add(x_elem(x, 0).rotate_left(5)).wrapping_add(t).wrapping_add(elem(w, e, 32) as u32);
        let b = x_elem(x, 1);
        set_elem(&mut x, 1, 32, u64::from(b.rotate_left(30)));
        // <Y, X> = ROL(Y : X, 32)
        let top = x_elem(x, 3);
        x = x << 32 | u128::from(y);
        y = top;
    }
    x
}

/// `SHA256hash(X, Y, W, part1)`: four SHA-256 rounds on `X` (A in element 0 ... D in element 3) and `Y` (E ... H)
/// with the four words `W` (with the constants added); the new `X` for SHA256H (`part1`), the new `Y` for SHA256H2.
pub(crate) fn sha256_hash(mut x: u128, mut y: u128, w: u128, part1: bool) -> u128 {
    let e32 = |v: u128, e: u32| elem(v, e, 32) as u32;
    for e in 0..4 {
        let chs = sha_choose(e32(y, 0), e32(y, 1), e32(y, 2));
        let maj = sha_majority(e32(x, 0), e32(x, 1), e32(x, 2));
        let t = e32(y, 3).wrapping_add(sha_hash_sigma1(e32(y, 0))).wrapping_add(chs).wrapping_add(e32(w, e));
        let (d, a) = (e32(x, 3), e32(x, 0));
        set_elem(&mut x, 3, 32, u64::from(t.wrapping_add(d)));
        set_elem(&mut y, 3, 32, u64::from(t.wrapping_add(sha_hash_sigma0(a)).wrapping_add(maj)));
        // <Y, X> = ROL(Y : X, 32)
        let (y_top, x_top) = (e32(y, 3), e32(x, 3));
        y = y << 32 | u128::from(x_top);
        x = x << 32 | u128::from(y_top);
    }
    if part1 { x } else { y }
}

#[cfg(test)]
mod tests {
    //! Known answers from FIPS-197 (AES) and FIPS-180-4 (SHA-1, SHA-256), through the helpers and through the
    //! instructions as software composes them (the words come from `llvm-mc -show-encoding`).

    use super::*;
    use crate::engine::{Engine, Exit, GuestClock, UndefinedReason};
    use crate::interp::Interpreter;
    use crate::memory::{GuestMemory, Perm};
    use crate::state::CpuState;

    const CODE: u64 = 0x10000;

    struct Machine {
        cpu: CpuState,
        memory: GuestMemory,
    }

    impl Machine {
        fn new() -> Machine {
            let mut memory = GuestMemory::new().unwrap();
            memory.map(CODE, 0x1000, Perm::RX).unwrap();
            Machine { cpu: CpuState::default(), memory }
        }

        /// Runs `word` as one instruction and expects it to retire.
        fn step(&mut self, word: u32) {
            self.memory.write_privileged(CODE, &word.to_le_bytes()).unwrap();
            self.cpu.pc = CODE;
            let exit = Interpreter::default().run(&mut self.cpu, &self.memory, 1, GuestClock::default()).exit;
            assert_eq!(exit, Exit::BudgetSpent, "{word:#010x}");
        }
    }

    /// A three-register crypto word: `base | Rm << 16 | Rn << 5 | Rd`.
    fn op3(base: u32, d: u32, n: u32, m: u32) -> u32 {
        base | m << 16 | n << 5 | d
    }

    /// A two-register crypto word.
    fn op2(base: u32, d: u32, n: u32) -> u32 {
        base | n << 5 | d
    }

    const AESE: u32 = 0x4e28_4800;
    const AESD: u32 = 0x4e28_5800;
    const AESMC: u32 = 0x4e28_6800;
    const AESIMC: u32 = 0x4e28_7800;
    const SHA1C: u32 = 0x5e00_0000;
    const SHA1P: u32 = 0x5e00_1000;
    const SHA1M: u32 = 0x5e00_2000;
    const SHA1SU0: u32 = 0x5e00_3000;
    const SHA256H: u32 = 0x5e00_4000;
    const SHA256H2: u32 = 0x5e00_5000;
    const SHA256SU1: u32 = 0x5e00_6000;
    const SHA1H: u32 = 0x5e28_0800;
    const SHA1SU1: u32 = 0x5e28_1800;
    const SHA256SU0: u32 = 0x5e28_2800;

    /// A 128-bit AES state from the standard's hex string (its first byte is byte 0).
    fn state(hex: &str) -> u128 {
        let bytes: Vec<u8> = (0..16).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
        u128::from_le_bytes(bytes.try_into().unwrap())
    }

    /// Four 32-bit words as a vector, word 0 in element 0.
    fn words(w: [u32; 4]) -> u128 {
        w.iter().rev().fold(0, |acc, &x| acc << 32 | u128::from(x))
    }

    fn word(v: u128, e: usize) -> u32 {
        (v >> (32 * e)) as u32
    }

    /// Element-wise 32-bit addition (what ADD Vd.4S does in the software around the SHA instructions).
    fn add_4s(a: u128, b: u128) -> u128 {
        words(std::array::from_fn(|e| word(a, e).wrapping_add(word(b, e))))
    }

    #[test]
    fn gf_products_and_sbox_match_fips_197() {
        // 4.2: {57} * {83} = {c1}; 4.2.1: {57} * {13} = {fe}.
        assert_eq!(ff_mul(0x57, 0x83), 0xc1);
        assert_eq!(ff_mul(0x57, 0x13), 0xfe);
        // Figure 7, the first row, and the example of 5.1.1: S({53}) = {ed}.
        let first_row =
            [0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76];
        assert_eq!(SBOX[..16], first_row);
        assert_eq!(SBOX[0x53], 0xed);
        assert_eq!(SBOX[0xff], 0x16);
        // Figure 14, the first row of the inverse S-box.
        let inverse_first_row =
            [0x52, 0x09, 0x6a, 0xd5, 0x30, 0x36, 0xa5, 0x38, 0xbf, 0x40, 0xa3, 0x9e, 0x81, 0xf3, 0xd7, 0xfb];
        assert_eq!(INV_SBOX[..16], inverse_first_row);
    }

    #[test]
    fn aes_round_of_fips_197_appendix_b() {
        // Round 1 of Appendix B: the state at the start of the round (input XOR the cipher key), after SubBytes,
        // after ShiftRows, after MixColumns, and with the round key added.
        let input = state("3243f6a8885a308d313198a2e0370734");
        let key = state("2b7e151628aed2a6abf7158809cf4f3c");
        let start = state("193de3bea0f4e22b9ac68d2ae9f84808");
        let after_sub_bytes = state("d42711aee0bf98f1b8b45de51e415230");
        let after_shift_rows = state("d4bf5d30e0b452aeb84111f11e2798e5");
        let after_mix_columns = state("046681e5e0cb199a48f8d37a2806264c");
        let round_key = state("a0fafe1788542cb123a339392a6c7605");
        assert_eq!(input ^ key, start);
        assert_eq!(aes_sub_bytes(start), after_sub_bytes);
        assert_eq!(aes_shift_rows(after_sub_bytes), after_shift_rows);
        assert_eq!(aes_mix_columns(after_shift_rows), after_mix_columns);
        assert_eq!(aes_inv_mix_columns(after_mix_columns), after_shift_rows);
        assert_eq!(aes_inv_shift_rows(after_shift_rows), after_sub_bytes);
        assert_eq!(aes_inv_sub_bytes(after_sub_bytes), start);

        // The same round as software writes it: AESE (AddRoundKey, ShiftRows, SubBytes), AESMC, then EOR.
        let mut m = Machine::new();
        m.cpu.v[0] = input;
        m.cpu.v[1] = key;
        m.step(op2(AESE, 0, 1)); // aese v0.16b, v1.16b
        assert_eq!(m.cpu.v[0], after_shift_rows);
        m.step(op2(AESMC, 0, 0)); // aesmc v0.16b, v0.16b
        assert_eq!(m.cpu.v[0], after_mix_columns);
        assert_eq!(m.cpu.v[0] ^ round_key, state("a49c7ff2689f352b6b5bea43026a5049"));
        // And back: AESIMC, then AESD with a zero key (InvShiftRows, InvSubBytes).
        m.cpu.v[1] = 0;
        m.step(op2(AESIMC, 0, 0)); // aesimc v0.16b, v0.16b
        m.step(op2(AESD, 0, 1)); // aesd v0.16b, v1.16b
        assert_eq!(m.cpu.v[0], start);
    }

    /// The AES-128 key expansion (FIPS-197 5.2): the eleven round keys.
    fn expand_key(key: u128) -> [u128; 11] {
        let mut w: Vec<u32> =
            (0..4).map(|i| u32::from_be_bytes((key >> (32 * i)).to_le_bytes()[..4].try_into().unwrap())).collect();
        let mut rcon = 1u8;
        for i in 4..44 {
            let mut temp = w[i - 1];
            if i % 4 == 0 {
                let sub = temp.rotate_left(8).to_be_bytes().map(|b| SBOX[b as usize]);
                temp = u32::from_be_bytes(sub) ^ u32::from(rcon) << 24;
                rcon = ff_mul(rcon, 2);
            }
            w.push(w[i - 4] ^ temp);
        }
        std::array::from_fn(|round| {
            let bytes: Vec<u8> = w[4 * round..4 * round + 4].iter().flat_map(|x| x.to_be_bytes()).collect();
            u128::from_le_bytes(bytes.try_into().unwrap())
        })
    }

    #[test]
    fn aes_128_of_fips_197_appendix_c1_with_aese_aesmc_aesd_aesimc() {
        let plaintext = state("00112233445566778899aabbccddeeff");
        let ciphertext = state("69c4e0d86a7b0430d8cdb78070b4c55a");
        let keys = expand_key(state("000102030405060708090a0b0c0d0e0f"));
        // Appendix C.1 lists the last round key.
        assert_eq!(keys[10], state("13111d7fe3944a17f307a78b4d2b30c5"));

        let mut m = Machine::new();
        m.cpu.v[0] = plaintext;
        for key in &keys[..9] {
            m.cpu.v[1] = *key;
            m.step(op2(AESE, 0, 1));
            m.step(op2(AESMC, 0, 0));
        }
        m.cpu.v[1] = keys[9];
        m.step(op2(AESE, 0, 1));
        assert_eq!(m.cpu.v[0] ^ keys[10], ciphertext);

        // The equivalent inverse cipher (5.3.5): AESD, AESIMC, with InvMixColumns applied to the middle keys.
        m.cpu.v[0] = ciphertext;
        m.cpu.v[1] = keys[10];
        m.step(op2(AESD, 0, 1));
        for key in keys[1..10].iter().rev() {
            m.cpu.v[2] = *key;
            m.step(op2(AESIMC, 1, 2)); // aesimc v1.16b, v2.16b
            m.step(op2(AESIMC, 0, 0));
            m.step(op2(AESD, 0, 1));
        }
        assert_eq!(m.cpu.v[0] ^ keys[0], plaintext);
    }

    /// The one-block message "abc" of FIPS-180-4's examples, as sixteen big-endian words.
    fn abc_block() -> [u32; 16] {
        let mut w = [0; 16];
        w[0] = 0x6162_6380;
        w[15] = 24;
        w
    }

    #[test]
    fn sha256_of_abc_with_sha256h_h2_su0_su1() {
        const K: [u32; 64] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
            0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
            0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
            0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
            0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
            0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
            0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2,
        ];
        let initial_abcd = words([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a]);
        let initial_efgh = words([0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
        let block = abc_block();

        // v0 = ABCD, v1 = EFGH, v4-v7 the message schedule (rotating), v16 the words plus constants.
        let mut m = Machine::new();
        m.cpu.v[0] = initial_abcd;
        m.cpu.v[1] = initial_efgh;
        for (i, quad) in block.chunks(4).enumerate() {
            m.cpu.v[4 + i] = words(quad.try_into().unwrap());
        }
        for i in 0..16 {
            let schedule = |k: usize| 4 + ((i + k) % 4) as u32;
            m.cpu.v[16] = add_4s(m.cpu.v[schedule(0) as usize], words(K[4 * i..4 * i + 4].try_into().unwrap()));
            m.cpu.v[2] = m.cpu.v[0];
            m.step(op3(SHA256H, 0, 1, 16)); // sha256h q0, q1, v16.4s
            m.step(op3(SHA256H2, 1, 2, 16)); // sha256h2 q1, q2, v16.4s
            if i < 12 {
                m.step(op2(SHA256SU0, schedule(0), schedule(1)));
                m.step(op3(SHA256SU1, schedule(0), schedule(2), schedule(3)));
            }
        }
        let (abcd, efgh) = (add_4s(m.cpu.v[0], initial_abcd), add_4s(m.cpu.v[1], initial_efgh));
        let digest: Vec<u32> = (0..4).map(|e| word(abcd, e)).chain((0..4).map(|e| word(efgh, e))).collect();
        assert_eq!(
            digest,
            [0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223, 0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad]
        );
    }

    #[test]
    fn sha1_of_abc_with_sha1c_p_m_h_su0_su1() {
        const K: [u32; 4] = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];
        let initial_abcd = words([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]);
        let initial_e = 0xc3d2e1f0u32;
        let block = abc_block();

        // v0 = ABCD, s1 = E, s2 the next E, v4-v7 the message schedule (rotating), v16 the words plus constant.
        let mut m = Machine::new();
        m.cpu.v[0] = initial_abcd;
        m.cpu.v[1] = u128::from(initial_e);
        for (i, quad) in block.chunks(4).enumerate() {
            m.cpu.v[4 + i] = words(quad.try_into().unwrap());
        }
        for i in 0..20 {
            let schedule = |k: usize| 4 + ((i + k) % 4) as u32;
            m.cpu.v[16] = add_4s(m.cpu.v[schedule(0) as usize], words([K[i / 5]; 4]));
            m.step(op2(SHA1H, 2, 0)); // sha1h s2, s0: E of the next four rounds
            let hash = [SHA1C, SHA1P, SHA1M, SHA1P][i / 5];
            m.step(op3(hash, 0, 1, 16)); // sha1c/p/m q0, s1, v16.4s
            assert_eq!(m.cpu.v[2] >> 32, 0, "SHA1H writes a 32-bit scalar");
            m.cpu.v[1] = m.cpu.v[2];
            if i < 16 {
                m.step(op3(SHA1SU0, schedule(0), schedule(1), schedule(2)));
                m.step(op2(SHA1SU1, schedule(0), schedule(3)));
            }
        }
        let abcd = add_4s(m.cpu.v[0], initial_abcd);
        let e = word(m.cpu.v[1], 0).wrapping_add(initial_e);
        let digest: Vec<u32> = (0..4).map(|i| word(abcd, i)).chain([e]).collect();
        assert_eq!(digest, [0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d]);
    }

    #[test]
    fn unallocated_sizes_and_opcodes() {
        let mut m = Machine::new();
        for word in [
            0x4e68_4820u32, // AESE with size = 01
            0x4e28_0820,    // Cryptographic AES, opcode 00000
            0x5e04_7020,    // Cryptographic three-register SHA, opcode 111
            0x5e28_3800,    // Cryptographic two-register SHA, opcode 00011
        ] {
            m.memory.write_privileged(CODE, &word.to_le_bytes()).unwrap();
            m.cpu.pc = CODE;
            let exit = Interpreter::default().run(&mut m.cpu, &m.memory, 1, GuestClock::default()).exit;
            assert_eq!(exit, Exit::Undefined { word, reason: UndefinedReason::Unallocated }, "{word:#010x}");
        }
    }
}
