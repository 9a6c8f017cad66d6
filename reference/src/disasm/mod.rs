//! The A64 disassembler: text for every word of the decode table, in LLVM's syntax and with the Arm ARM's
//! preferred aliases (checked against `llvm-mc --disassemble` by `tests/disasm_llvm.rs`).
//!
//! One difference from llvm-mc on purpose: PC-relative targets print as absolute addresses (`b 0x7100001000`), as
//! objdump does, because that is what a person reading a dump needs.
//!
//! Where LLVM's choice differs from the Arm ARM's preferred disassembly we follow LLVM (the oracle) and say so at
//! the place. LLVM's trailing comments (`// =8192`, `// acquire semantics dropped ...`) are printed too.
//!
//! `integer.rs` prints the general-purpose instructions; `fp_scalar.rs`, `simd_arith.rs` and `crypto.rs` the
//! floating-point, Advanced SIMD arithmetic and cryptographic ones; `simd_fp.rs` the SIMD&FP loads, stores, moves and
//! permutes. This file holds what they share.

mod crypto;
mod fp_scalar;
mod integer;
mod simd_arith;
mod simd_fp;

use crate::decode::decode;
use crate::interp::pseudocode::sign_extend;

/// Disassembles one word at address `pc`. Unallocated words print as `.inst 0x... // unallocated`.
pub fn disassemble(word: u32, pc: u64) -> String {
    let Some(inst) = decode(word) else { return unallocated(word) };
    let printer = Printer { pc };
    let text = printer
        .print_fp_scalar(word, inst)
        .or_else(|| printer.print_simd_arith(word, inst))
        .or_else(|| printer.print_crypto(word, inst))
        .or_else(|| printer.print_simd_fp(inst))
        .unwrap_or_else(|| printer.print_integer(inst));
    text.unwrap_or_else(|| unallocated(word))
}

fn unallocated(word: u32) -> String {
    format!(".inst {word:#010x} // unallocated")
}

/// General-purpose register name: `x`/`w` by width, register 31 as `xzr`/`wzr`.
fn r(n: u32, sf: u32) -> String {
    match (n, sf) {
        (31, 1) => "xzr".into(),
        (31, _) => "wzr".into(),
        (n, 1) => format!("x{n}"),
        (n, _) => format!("w{n}"),
    }
}

/// Register name where 31 means the stack pointer.
fn rsp(n: u32, sf: u32) -> String {
    match (n, sf) {
        (31, 1) => "sp".into(),
        (31, _) => "wsp".into(),
        _ => r(n, sf),
    }
}

const CONDITIONS: [&str; 16] =
    ["eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al", "nv"];
const EXTENDS: [&str; 8] = ["uxtb", "uxth", "uxtw", "uxtx", "sxtb", "sxth", "sxtw", "sxtx"];

fn cond(c: u32) -> &'static str {
    CONDITIONS[(c & 15) as usize]
}

/// `#imm` in decimal.
fn imm(value: impl std::fmt::Display) -> String {
    format!("#{value}")
}

/// `#imm` in hex, as LLVM prints it with C's `%#x`: zero has no `0x` (`brk #0`, `brk #0x1`).
fn hex(value: u64) -> String {
    if value == 0 { "#0".into() } else { format!("#{value:#x}") }
}

/// The base register of a memory operand without offset: `[xN]` or `[sp]`.
fn base(rn: u32) -> String {
    format!("[{}]", rsp(rn, 1))
}

/// A mnemonic and operands followed by one of LLVM's comments.
fn with_comment(text: String, comment: &str) -> String {
    format!("{text} // {comment}")
}

/// Joins a mnemonic and its operands with LLVM's tab.
fn inst(mnemonic: &str, operands: &[String]) -> String {
    if operands.is_empty() { mnemonic.to_string() } else { format!("{mnemonic}\t{}", operands.join(", ")) }
}

/// A memory operand `[base{, #offset}]`, `[base, #offset]!` or `[base], #offset`.
fn address(rn: u32, offset: i64, mode: AddressMode) -> String {
    let rn = rsp(rn, 1);
    match mode {
        AddressMode::Offset if offset == 0 => format!("[{rn}]"),
        AddressMode::Offset => format!("[{rn}, #{offset}]"),
        AddressMode::PreIndex => format!("[{rn}, #{offset}]!"),
        AddressMode::PostIndex => format!("[{rn}], #{offset}"),
    }
}

/// The signed byte offset of the single-register loads and stores with a 9-bit immediate.
fn simm9(imm9: u32) -> i64 {
    sign_extend(u64::from(imm9), 9) as i64
}

#[derive(Clone, Copy)]
enum AddressMode {
    Offset,
    PreIndex,
    PostIndex,
}

struct Printer {
    pc: u64,
}

impl Printer {
    fn target(&self, offset: u64) -> String {
        format!("{:#x}", self.pc.wrapping_add(offset))
    }

    /// The target of a branch or literal load with a `bits`-bit word offset.
    fn branch(&self, words: u32, bits: u32) -> String {
        self.target(sign_extend(u64::from(words) << 2, bits + 2))
    }
}
