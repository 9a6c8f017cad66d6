//! Host faults in compiled code. Guest loads and stores compile to unchecked host accesses in the guarded view of
//! guest memory (`GuestMemory::guarded_base`), whose host protections are the guest's data permissions, after a
//! check that traps (ud2: SIGILL) where the address lies past the guest's address space; when the host refuses
//! one, or the check traps, the handler here ends the block at the last *replay point* and has the reference run
//! from there until it exits: it redoes what the block did since, the same way, and raises the guest's fault
//! exactly.
//!
//! Invariants (with `code_memory`, `engine::call_block` and `runtime`, the fast path's only `unsafe`):
//! - A replay point is a state the `CpuState` and `Runtime::fault` hold exactly (the registers in the one; the
//!   PC, the budget left and NZCV in the other: `Lifter::sync`; NZCV "in the `CpuState`" there is NZCV as the
//!   region found it, which the exit before may have left in `Runtime::exit_flags`: the handler settles that
//!   first). Before every access that may fault, compiled code
//!   has made one on every path there, with no write since to guest memory or to the `CpuState` that a rerun
//!   would see (stores make a replay point of their own instruction; writes to the `CpuState` force a new one).
//!   A rerun from it on the reference, on the same memory, thus retires the same instructions the same way up
//!   to the refused access, and faults there (the guarded view refuses exactly what the guest's permissions do,
//!   for reads; a refused write whose instruction is its own replay point is simply run again).
//! - An instruction's host accesses change nothing the guest can see before the last of them could fault (a store
//!   of several host accesses that crosses a page first writes its last byte back as it is, which faults where
//!   the second page refuses writes: `Lifter::probe_last_page`).
//! - `enter` is the only way into compiled code: it saves the host's callee-saved registers and stack pointer,
//!   where the handler resumes (at `tandem_fast_resume`) as though the trampoline had returned, abandoning the
//!   compiled frames (they own nothing).
//! - The handler acts only on faults at a guest access (trap code `lift::GUEST_ACCESS`) of a block the running
//!   engine installed, on the thread that runs it (`ACTIVE`); every other fault goes to the handler installed
//!   before (Rust's stack overflow report, a fuzzer's crash report, or the default action).

use crate::lift::{INTERPRET_NEXT, REPLAY};
use crate::runtime::Runtime;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use tandem_reference::CpuState;

/// How a `FlagsRecord` holds NZCV (`FlagsRecord::kind`).
pub mod flags_kind {
    pub const IN_CPU: u32 = 0;
    pub const PACKED: u32 = 1;
    pub const SUB32: u32 = 2;
    pub const SUB64: u32 = 3;
    pub const ADD32: u32 = 4;
    pub const ADD64: u32 = 5;
    pub const LOGIC32: u32 = 6;
    pub const LOGIC64: u32 = 7;
}

/// The part of the last replay point the `CpuState` does not hold.
#[repr(C)]
#[derive(Default)]
pub struct FaultRecord {
    /// The guest address of its instruction, and the budget left there.
    pub pc: Cell<u64>,
    pub budget: Cell<u64>,
    /// NZCV there.
    pub flags: FlagsRecord,
}

/// NZCV as compiled code records it without packing it: how it is known (`kind`, `flags_kind`): still in the
/// `CpuState`, packed in `a`, or the operands `a` and `b` of a subtraction or addition, or the result `a` of a
/// logical operation, at 32 or 64 bits.
#[repr(C)]
#[derive(Default)]
pub struct FlagsRecord {
    pub kind: Cell<u32>,
    pub a: Cell<u64>,
    pub b: Cell<u64>,
}

impl FlagsRecord {
    /// Puts NZCV in the `CpuState` (packed there when the record holds it otherwise), and records that it is there.
    pub fn settle(&self, cpu: &mut CpuState) {
        cpu.nzcv = self.nzcv(cpu.nzcv);
        self.kind.set(flags_kind::IN_CPU);
    }

    /// NZCV packed in bits 31..28, given what the `CpuState` holds.
    fn nzcv(&self, stored: u32) -> u32 {
        let (a, b) = (self.a.get(), self.b.get());
        let pack = |n: bool, z: bool, c: bool, v: bool| {
            u32::from(n) << 31 | u32::from(z) << 30 | u32::from(c) << 29 | u32::from(v) << 28
        };
        let sign = |value: u64, bits: u32| value >> (bits - 1) & 1 != 0;
        let (kind, bits) = match self.kind.get() {
            flags_kind::PACKED => return a as u32,
            flags_kind::SUB32 | flags_kind::ADD32 | flags_kind::LOGIC32 => (self.kind.get(), 32),
            flags_kind::SUB64 | flags_kind::ADD64 | flags_kind::LOGIC64 => (self.kind.get(), 64),
            _ => return stored,
        };
        let mask = if bits == 32 { u64::from(u32::MAX) } else { u64::MAX };
        let (a, b) = (a & mask, b & mask);
        match kind {
            flags_kind::SUB32 | flags_kind::SUB64 => {
                let result = a.wrapping_sub(b) & mask;
                pack(sign(result, bits), result == 0, a >= b, sign((a ^ b) & (a ^ result), bits))
            }
            flags_kind::ADD32 | flags_kind::ADD64 => {
                let result = a.wrapping_add(b) & mask;
                pack(sign(result, bits), result == 0, result < a, sign((result ^ a) & (result ^ b), bits))
            }
            _ => pack(sign(a, bits), a == 0, false, false),
        }
    }
}

/// The guest accesses that may fault in every block an engine installed, by the host address of its code.
#[derive(Default)]
pub struct SiteIndex {
    blocks: BTreeMap<u64, (u32, Box<[u32]>)>,
    /// The blocks' code bytes, all together.
    bytes: usize,
}

impl SiteIndex {
    /// Records the host offsets of the guest accesses (`lift::GUEST_ACCESS`) of the block whose `length` bytes
    /// of code start at `start`.
    pub fn insert(&mut self, start: u64, length: u32, mut sites: Vec<u32>) {
        sites.sort_unstable();
        if let Some((old, _)) = self.blocks.insert(start, (length, sites.into_boxed_slice())) {
            self.bytes -= old as usize;
        }
        self.bytes += length as usize;
    }

    /// Forgets the block whose code starts at `start`, and returns its length and trap sites.
    pub fn remove(&mut self, start: u64) -> Option<(u32, Vec<u32>)> {
        let (length, sites) = self.blocks.remove(&start)?;
        self.bytes -= length as usize;
        Some((length, sites.into_vec()))
    }

    /// The length and trap sites of the block whose code starts at `start`.
    pub fn get(&self, start: u64) -> Option<(u32, &[u32])> {
        self.blocks.get(&start).map(|(length, sites)| (*length, &sites[..]))
    }

    /// Bytes of code of the blocks it holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether a guest access's host instruction starts at `host`. Allocates nothing (the signal handler).
    fn is_site(&self, host: u64) -> bool {
        let Some((&start, (length, sites))) = self.blocks.range(..=host).next_back() else { return false };
        u32::try_from(host - start).is_ok_and(|offset| offset < *length && sites.binary_search(&offset).is_ok())
    }
}

/// A run of compiled code in progress on this thread: what the handler needs to end it.
#[repr(C)]
pub struct ActiveRun {
    /// The host stack pointer `tandem_fast_resume` expects (written by `tandem_fast_enter`).
    resume_rsp: u64,
    cpu: *mut CpuState,
    runtime: *const Runtime,
    sites: *const SiteIndex,
}

thread_local! {
    /// The run in progress on this thread; null outside `enter`. Constant-initialised and without a destructor,
    /// so that the signal handler can read it.
    static ACTIVE: Cell<*const ActiveRun> = const { Cell::new(std::ptr::null()) };
}

std::arch::global_asm!(
    ".text",
    ".globl tandem_fast_enter",
    ".p2align 4",
    // u64 tandem_fast_enter(const EntryArgs *args /* rdi */, u64 *resume_rsp /* rsi */, trampoline /* rdx */)
    "tandem_fast_enter:",
    "push rbp",
    "mov rbp, rsp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    // Keeps the stack 16-byte aligned at the call, as the C ABI requires; the slot holds the caller's MXCSR.
    // Compiled code computes FP natively assuming the default MXCSR (round to nearest, no flush-to-zero, no
    // denormals-are-zero, exceptions masked: 0x1F80), whatever the caller (a driver's thread state) left there.
    "sub rsp, 8",
    "stmxcsr [rsp]",
    "mov dword ptr [rsp + 4], 0x1F80",
    "ldmxcsr [rsp + 4]",
    "mov [rsi], rsp",
    "call rdx",
    ".globl tandem_fast_resume",
    "tandem_fast_resume:",
    "ldmxcsr [rsp]",
    "add rsp, 8",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
);

unsafe extern "C" {
    fn tandem_fast_enter(args: *const u8, resume_rsp: *mut u64, trampoline: usize) -> u64;
    static tandem_fast_resume: u8;
}

/// Runs the trampoline (`lift::trampoline`) on `args`, with faults at the trap sites of `sites` turned into
/// side exits.
///
/// # Safety
/// `trampoline` must be the compiled trampoline and `args` what it expects; `cpu` and `runtime` must be the
/// state and runtime `args` hands to compiled code, and `sites` must list the trap sites of every block that
/// code can reach.
pub unsafe fn enter(
    trampoline: usize,
    args: *const u8,
    cpu: *mut CpuState,
    runtime: &Runtime,
    sites: &SiteIndex,
) -> u64 {
    install_handler();
    let mut run = ActiveRun { resume_rsp: 0, cpu, runtime, sites };
    let run: *mut ActiveRun = &mut run;
    let previous = ACTIVE.replace(run);
    // SAFETY: the stub saves and restores the callee-saved registers around the trampoline call and returns what
    // it (or the handler, through `tandem_fast_resume`) leaves in rax; the caller vouches for the rest.
    let status = unsafe { tandem_fast_enter(args, &raw mut (*run).resume_rsp, trampoline) };
    ACTIVE.set(previous);
    status
}

/// The signals a guest access raises: SIGSEGV and SIGBUS where the host refuses it, SIGILL where its address lies
/// past the guest's address space (the check before the access traps).
const SIGNALS: [libc::c_int; 3] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL];

/// Installs the handler of `SIGNALS` once per process, keeping the handlers installed before.
fn install_handler() {
    static PREVIOUS: OnceLock<[libc::sigaction; 3]> = OnceLock::new();
    PREVIOUS.get_or_init(|| {
        // SAFETY: `sigaction` is plain data, valid all zero; the calls only read the current actions into it.
        let mut previous: [libc::sigaction; 3] = unsafe { std::mem::zeroed() };
        for (signal, old) in SIGNALS.into_iter().zip(previous.iter_mut()) {
            unsafe { libc::sigaction(signal, std::ptr::null(), old) };
        }
        previous
    });
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        for signal in SIGNALS {
            // SAFETY: installs `handle_fault`, a handler that only reads this thread's `ACTIVE` run and edits the
            // interrupted context; SA_ONSTACK lets it run on an alternate stack where one is set.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handle_fault as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });

    extern "C" fn handle_fault(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel passes the interrupted context of this thread.
        if unsafe { resume_after_guest_fault(context.cast()) } {
            return;
        }
        let Some(index) = SIGNALS.iter().position(|&handled| handled == signal) else { return };
        let Some(previous) = PREVIOUS.get().map(|previous| previous[index]) else { return };
        // SAFETY: hands the fault to the handler that was installed before, as it was installed.
        unsafe {
            match previous.sa_sigaction {
                libc::SIG_DFL | libc::SIG_IGN => {
                    // Restore it: the faulting instruction runs again and takes the default action.
                    libc::sigaction(signal, &previous, std::ptr::null_mut());
                }
                handler if previous.sa_flags & libc::SA_SIGINFO != 0 => {
                    let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(handler);
                    handler(signal, info, context);
                }
                handler => {
                    let handler: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                    handler(signal);
                }
            }
        }
    }
}

/// When the interrupted instruction is a guest access of the run in progress on this thread, puts the last replay
/// point in the `CpuState` and makes the context resume in `tandem_fast_enter` as though the block had returned
/// there, asking for a rerun on the reference.
///
/// # Safety
/// `context` must be the interrupted context the kernel handed a signal handler on this thread.
unsafe fn resume_after_guest_fault(context: *mut libc::ucontext_t) -> bool {
    let active = ACTIVE.get();
    if active.is_null() {
        return false;
    }
    // SAFETY: `enter` set `ACTIVE` to a run that lives until it returns, and the fault interrupted that run.
    let run = unsafe { &*active };
    let gregs = unsafe { &mut (*context).uc_mcontext.gregs };
    // SAFETY: the index and runtime outlive the run, and nothing changes them while it is in progress.
    let (sites, runtime) = unsafe { (&*run.sites, &*run.runtime) };
    if !sites.is_site(gregs[libc::REG_RIP as usize] as u64) {
        return false;
    }
    // SAFETY: compiled code was using this state when it faulted; it uses it no more.
    let cpu = unsafe { &mut *run.cpu };
    cpu.pc = runtime.fault.pc.get();
    // "In the `CpuState`" at the replay point means NZCV as the region found it, which the exit before may have
    // left unpacked.
    runtime.exit_flags.settle(cpu);
    runtime.fault.flags.settle(cpu);
    gregs[libc::REG_RAX as usize] = (runtime.fault.budget.get() | INTERPRET_NEXT | REPLAY) as i64;
    gregs[libc::REG_RSP as usize] = run.resume_rsp as i64;
    gregs[libc::REG_RIP as usize] = (&raw const tandem_fast_resume) as i64;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_flags_give_the_architectures_nzcv() {
        let record = FlagsRecord::default();
        let nzcv = |kind, a, b| {
            record.kind.set(kind);
            record.a.set(a);
            record.b.set(b);
            let mut cpu = CpuState { nzcv: 0x5000_0000, ..CpuState::default() };
            record.settle(&mut cpu);
            assert_eq!(record.kind.get(), flags_kind::IN_CPU);
            cpu.nzcv >> 28
        };
        assert_eq!(nzcv(flags_kind::IN_CPU, 1, 2), 0b0101);
        assert_eq!(nzcv(flags_kind::PACKED, 0x9000_0000, 0), 0b1001);
        // CMP 1, 2: negative, borrow (C clear). CMP 5, 5: zero, no borrow.
        assert_eq!(nzcv(flags_kind::SUB32, 1, 2), 0b1000);
        assert_eq!(nzcv(flags_kind::SUB64, 5, 5), 0b0110);
        // 0x7fffffff + 1 overflows at 32 bits but not at 64; the high bits of 32-bit operands do not count.
        assert_eq!(nzcv(flags_kind::ADD32, 0xdead_0000_7fff_ffff, 1), 0b1001);
        assert_eq!(nzcv(flags_kind::ADD64, 0x7fff_ffff, 1), 0b0000);
        assert_eq!(nzcv(flags_kind::ADD64, u64::MAX, 1), 0b0110);
        assert_eq!(nzcv(flags_kind::LOGIC64, 1 << 63, 0), 0b1000);
        assert_eq!(nzcv(flags_kind::LOGIC32, 1 << 32, 0), 0b0100);
    }
}
