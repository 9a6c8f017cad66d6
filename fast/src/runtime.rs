//! Host functions compiled code calls for what Cranelift has no instruction for. Compiled code reaches them
//! through the `Runtime` table inside the `Context` its first argument points to, never by address, so it stays
//! relocation-free.
//!
//! The CRC and carry-less multiply helpers are pure functions of their arguments: a call needs no writeback. `interpret` runs one
//! instruction on the reference, on the `CpuState`: the block writes its registers back before the call and
//! reads them again after it.

use crate::fault::{FaultRecord, FlagsRecord};
use crate::lift::{CHAIN_ENTRIES, ChainEntry};
use std::cell::Cell;
use std::mem::offset_of;
use tandem_reference::engine::GuestClock;
use tandem_reference::interp::pseudocode::polynomial_mult;
use tandem_reference::memory::GuestMemory;
use tandem_reference::sysreg::{CpuIdentity, PointerAuthKeys};
use tandem_reference::{CpuState, Interpreter};

/// The table compiled code receives; `lift` addresses its fields by `offset_of!`.
/// Everything compiled code reaches besides guest memory, through one pointer (its first argument): the guest
/// state, the runtime's helpers and fault record, and the chain table. One pointer where there were three leaves
/// two more host registers to guest registers in every region. The engine copies the caller's `CpuState` in and
/// out around each entry into compiled code.
#[repr(C)]
pub struct Context {
    pub cpu: CpuState,
    pub runtime: Runtime,
    /// A direct-mapped cache of the engine's blocks, which compiled code looks its successors up in.
    pub chain: [ChainEntry; CHAIN_ENTRIES],
}

/// Where the `Runtime` and the chain table lie in the `Context` (compiled code's offsets from its first argument;
/// the `CpuState` is at 0).
pub const RUNTIME_AT: usize = offset_of!(Context, runtime);
pub const CHAIN_AT: usize = offset_of!(Context, chain);

impl Context {
    /// A context with a default `CpuState` and an empty chain table, built in place: the table is too large for
    /// the stack of a test thread.
    pub fn boxed(runtime: Runtime) -> Box<Context> {
        let mut context = Box::<Context>::new_uninit();
        let place = context.as_mut_ptr();
        // SAFETY: `place` is valid for writes of a `Context`; every field is written before `assume_init`, the
        // table entry by entry through a pointer to its first element.
        unsafe {
            (&raw mut (*place).cpu).write(CpuState::default());
            (&raw mut (*place).runtime).write(runtime);
            let chain = (&raw mut (*place).chain).cast::<ChainEntry>();
            for index in 0..CHAIN_ENTRIES {
                chain.add(index).write(ChainEntry::EMPTY);
            }
            context.assume_init()
        }
    }
}

#[repr(C)]
pub struct Runtime {
    /// `CRC32B/H/W/X`: the accumulator updated with the low `bytes` bytes of `data` (polynomial 0x04C11DB7).
    pub crc32: extern "C" fn(acc: u32, data: u64, bytes: u32) -> u32,
    /// `CRC32CB/CH/CW/CX` (polynomial 0x1EDC6F41, Castagnoli).
    pub crc32c: extern "C" fn(acc: u32, data: u64, bytes: u32) -> u32,
    /// Executes `word` at `pc` on the reference (FP and SIMD arithmetic, which touch no memory): 0 when it
    /// retired, 1 when it did not (it changed nothing; the block leaves it to the dispatcher).
    pub interpret: extern "C" fn(runtime: *const Runtime, cpu: *mut CpuState, word: u32, pc: u64) -> u32,
    /// What compiled code records for the fault handler (`fault`).
    pub fault: FaultRecord,
    /// NZCV as the last exit from compiled code left it: unpacked where it was computed from an operation's
    /// operands, and then `CpuState::nzcv` is stale until someone settles it (the engine after each entry, the
    /// fault handler, `interpret`, `settle_flags`). Exits do not pack NZCV: most of what runs next sets it first.
    pub exit_flags: FlagsRecord,
    /// Settles `exit_flags` in the `CpuState`, for compiled code that reads NZCV as the region found it.
    pub settle_flags: extern "C" fn(runtime: *const Runtime, cpu: *mut CpuState) -> u32,
    identity: CpuIdentity,
    keys: PointerAuthKeys,
    /// The guest memory of the run in progress (null outside `FastEngine::run`).
    memory: Cell<*const GuestMemory>,
    /// The low and high 64 bits of the carry-less product of two 64-bit polynomials (PMULL's 1Q form).
    pub carry_less_low: extern "C" fn(a: u64, b: u64) -> u64,
    pub carry_less_high: extern "C" fn(a: u64, b: u64) -> u64,
}

impl Runtime {
    pub fn for_host(identity: CpuIdentity, keys: PointerAuthKeys) -> Runtime {
        let clmul = std::arch::is_x86_feature_detected!("pclmulqdq") && std::arch::is_x86_feature_detected!("sse2");
        Runtime {
            crc32,
            crc32c: if std::arch::is_x86_feature_detected!("sse4.2") { crc32c_sse42 } else { crc32c },
            interpret,
            fault: FaultRecord::default(),
            exit_flags: FlagsRecord::default(),
            settle_flags,
            identity,
            keys,
            memory: Cell::new(std::ptr::null()),
            carry_less_low: if clmul { carry_less_low_pclmul } else { carry_less_low },
            carry_less_high: if clmul { carry_less_high_pclmul } else { carry_less_high },
        }
    }

    /// Makes `memory` the memory `interpret` sees, until `leave_run`.
    pub fn enter_run(&self, memory: &GuestMemory) {
        self.memory.set(memory);
    }

    pub fn leave_run(&self) {
        self.memory.set(std::ptr::null());
    }
}

extern "C" fn interpret(runtime: *const Runtime, cpu: *mut CpuState, word: u32, pc: u64) -> u32 {
    // SAFETY: compiled code passes the `Runtime` it was given (boxed by the engine, alive for the call) and the
    // `CpuState` the engine handed it, which nothing else touches while the helper runs; `memory` is set for
    // the length of the run (`enter_run`) and points to the memory the run borrows.
    let (runtime, cpu) = unsafe { (&*runtime, &mut *cpu) };
    let Some(memory) = (unsafe { runtime.memory.get().as_ref() }) else { return 1 };
    runtime.exit_flags.settle(cpu);
    let mut interpreter = Interpreter::new(runtime.identity, runtime.keys);
    // The instructions sent here read no clock; the retired count does not matter to them.
    match interpreter.execute_word(cpu, memory, word, pc, GuestClock::default()) {
        Ok(next) if next == pc.wrapping_add(4) => 0,
        _ => 1,
    }
}

extern "C" fn settle_flags(runtime: *const Runtime, cpu: *mut CpuState) -> u32 {
    // SAFETY: as for `interpret`: compiled code passes its own `Runtime` and `CpuState`, which nothing else touches
    // while the helper runs.
    let (runtime, cpu) = unsafe { (&*runtime, &mut *cpu) };
    runtime.exit_flags.settle(cpu);
    cpu.nzcv
}

/// The byte-at-a-time table of the reflected CRC with polynomial `reflected` (the bit-reversed polynomial): what
/// the Arm pseudocode's `Poly32Mod2` over bit-reversed operands computes, one byte of `data` at a time.
const fn crc_table(reflected: u32) -> [u32; 256] {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut crc = byte as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ reflected } else { crc >> 1 };
            bit += 1;
        }
        table[byte] = crc;
        byte += 1;
    }
    table
}

const CRC32_TABLE: [u32; 256] = crc_table(0x04c1_1db7_u32.reverse_bits());
const CRC32C_TABLE: [u32; 256] = crc_table(0x1edc_6f41_u32.reverse_bits());

fn crc_update(table: &[u32; 256], mut acc: u32, data: u64, bytes: u32) -> u32 {
    for byte in data.to_le_bytes().iter().take(bytes as usize) {
        acc = (acc >> 8) ^ table[((acc ^ u32::from(*byte)) & 0xff) as usize];
    }
    acc
}

extern "C" fn crc32(acc: u32, data: u64, bytes: u32) -> u32 {
    crc_update(&CRC32_TABLE, acc, data, bytes)
}

extern "C" fn crc32c(acc: u32, data: u64, bytes: u32) -> u32 {
    crc_update(&CRC32C_TABLE, acc, data, bytes)
}

/// The SSE4.2 `crc32` instruction computes exactly CRC32C's update (reflected, no inversion).
extern "C" fn crc32c_sse42(acc: u32, data: u64, bytes: u32) -> u32 {
    use std::arch::x86_64::{_mm_crc32_u8, _mm_crc32_u16, _mm_crc32_u32, _mm_crc32_u64};
    // SAFETY: `Runtime::for_host` installs this helper only when the CPU has SSE4.2.
    unsafe {
        match bytes {
            1 => _mm_crc32_u8(acc, data as u8),
            2 => _mm_crc32_u16(acc, data as u16),
            4 => _mm_crc32_u32(acc, data as u32),
            _ => _mm_crc32_u64(u64::from(acc), data) as u32,
        }
    }
}

extern "C" fn carry_less_low(a: u64, b: u64) -> u64 {
    polynomial_mult(a, b, 64) as u64
}

extern "C" fn carry_less_high(a: u64, b: u64) -> u64 {
    (polynomial_mult(a, b, 64) >> 64) as u64
}

/// PCLMULQDQ's product of the low quadwords is the carry-less product.
fn pclmul(a: u64, b: u64) -> u128 {
    use std::arch::x86_64::{__m128i, _mm_clmulepi64_si128, _mm_cvtsi64_si128};
    // SAFETY: `Runtime::for_host` installs the helpers that call this only when the CPU has PCLMULQDQ and SSE2;
    // the transmute reads the 128-bit register as the integer of the same bits.
    unsafe {
        let product: __m128i = _mm_clmulepi64_si128(_mm_cvtsi64_si128(a as i64), _mm_cvtsi64_si128(b as i64), 0);
        std::mem::transmute::<__m128i, u128>(product)
    }
}

extern "C" fn carry_less_low_pclmul(a: u64, b: u64) -> u64 {
    pclmul(a, b) as u64
}

extern "C" fn carry_less_high_pclmul(a: u64, b: u64) -> u64 {
    (pclmul(a, b) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_reference::interp::pseudocode::{bit_reverse, poly32_mod2};

    /// The Arm pseudocode's CRC32, as the reference computes it.
    fn pseudocode(poly: u32, acc: u32, data: u64, bytes: u32) -> u32 {
        let size = 8 * bytes;
        let data = if size == 64 { data } else { data & ((1 << size) - 1) };
        let tempacc = u128::from(bit_reverse(u64::from(acc), 32)) << size;
        let tempval = u128::from(bit_reverse(data, size)) << 32;
        bit_reverse(u64::from(poly32_mod2(tempacc ^ tempval, poly, 32 + size)), 32) as u32
    }

    /// PCLMULQDQ's halves against the pseudocode's PolynomialMult, on random operands.
    #[test]
    fn carry_less_helpers_compute_the_pseudocodes_product() {
        let runtime = Runtime::for_host(CpuIdentity::CORTEX_A78C, PointerAuthKeys::default());
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1000 {
            let [a, b] = [0; 2].map(|_: u64| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            });
            let product = polynomial_mult(a, b, 64);
            assert_eq!((runtime.carry_less_low)(a, b), product as u64, "{a:#x} x {b:#x}");
            assert_eq!((runtime.carry_less_high)(a, b), (product >> 64) as u64, "{a:#x} x {b:#x}");
        }
    }

    #[test]
    fn helpers_compute_the_pseudocodes_crc() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let runtime = Runtime::for_host(CpuIdentity::CORTEX_A78C, PointerAuthKeys::default());
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for bytes in [1, 2, 4, 8] {
                let acc = (x >> 17) as u32;
                assert_eq!((runtime.crc32)(acc, x, bytes), pseudocode(0x04c1_1db7, acc, x, bytes));
                assert_eq!((runtime.crc32c)(acc, x, bytes), pseudocode(0x1edc_6f41, acc, x, bytes));
                assert_eq!(crc32c(acc, x, bytes), pseudocode(0x1edc_6f41, acc, x, bytes));
            }
        }
    }
}
