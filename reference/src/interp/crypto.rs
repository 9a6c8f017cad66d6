//! C4.1.96 The cryptographic extension classes the Cortex-A78C has (FEAT_AES with FEAT_PMULL, FEAT_SHA1,
//! FEAT_SHA256): "Cryptographic AES", "Cryptographic three-register SHA" and "Cryptographic two-register SHA".
//! PMULL is in "Advanced SIMD three different". SHA512, SHA3, SM3 and SM4 are not in the core and are not in the
//! decode table.
//!
//! None is implemented yet: each instruction stops as not implemented under its page's name.

use super::{Exec, Step};

/// The page of a Cryptographic AES instruction.
fn aes_page(size: u32, opcode: u32) -> Option<&'static str> {
    if size != 0 {
        return None;
    }
    match opcode {
        0b00100 => Some("AESE"),
        0b00101 => Some("AESD"),
        0b00110 => Some("AESMC"),
        0b00111 => Some("AESIMC"),
        _ => None,
    }
}

/// The page of a Cryptographic three-register SHA instruction.
fn three_reg_sha_page(size: u32, opcode: u32) -> Option<&'static str> {
    if size != 0 {
        return None;
    }
    match opcode {
        0b000 => Some("SHA1C"),
        0b001 => Some("SHA1P"),
        0b010 => Some("SHA1M"),
        0b011 => Some("SHA1SU0"),
        0b100 => Some("SHA256H"),
        0b101 => Some("SHA256H2"),
        0b110 => Some("SHA256SU1"),
        _ => None,
    }
}

/// The page of a Cryptographic two-register SHA instruction.
fn two_reg_sha_page(size: u32, opcode: u32) -> Option<&'static str> {
    if size != 0 {
        return None;
    }
    match opcode {
        0b00000 => Some("SHA1H"),
        0b00001 => Some("SHA1SU1"),
        0b00010 => Some("SHA256SU0"),
        _ => None,
    }
}

impl Exec<'_> {
    /// The class "Cryptographic AES".
    pub(super) fn cryptographic_aes(&mut self, word: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, aes_page(size, opcode))
    }

    /// The class "Cryptographic three-register SHA".
    pub(super) fn cryptographic_three_register_sha(&mut self, word: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, three_reg_sha_page(size, opcode))
    }

    /// The class "Cryptographic two-register SHA".
    pub(super) fn cryptographic_two_register_sha(&mut self, word: u32, size: u32, opcode: u32) -> Step {
        self.not_implemented_page(word, two_reg_sha_page(size, opcode))
    }
}
