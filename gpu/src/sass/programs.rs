//! Hand-built programs with known results, for what no ptxas output in the corpus holds: NVN's loops with
//! PCNT/CONT, barriers in uniform and in divided code, calls followed statically or through the stack, calls
//! through function pointers, long jumps, SM5x's absolute branches and SM86's BRXU, the surface atomics that
//! return the texel (SUATOM) and Maxwell's scalar texel fetch (TLDS). Each is a compute kernel of
//! [`THREADS`] threads that leaves one word a thread at out + 4t (the first buffer parameter), and each says what
//! every thread's word must be, computed here from the program's definition by plain arithmetic, not by running
//! it. `tests/control_flow.rs` runs them on both paths (with what each shows about the translation's layout); the
//! coverage report counts their opcodes as verified where both paths leave those words.

use super::Isa;
use super::assemble::{self, AssembleError};
use super::corpus::{BUFFER_BYTES, Parameter, Run, RunSurface, RunTexture};
use super::cubin::KernelImage;
use super::exec::Sampler;
use crate::shader::ir::TextureDim;
use std::collections::HashMap;

/// Threads of every program: two warps, one block.
pub const THREADS: u32 = 64;

/// Where the code of the absolute-branch program starts in its code segment (the program region).
pub const SEGMENT_ORIGIN: u32 = 0x4060;

/// A program, the textures and surfaces it reads, and the words each thread must leave (one or four a thread,
/// threads in order).
pub struct KnownProgram {
    pub kernel: KernelImage,
    pub expected: Vec<u32>,
    pub textures: Vec<RunTexture>,
    pub surfaces: Vec<RunSurface>,
    /// The textures' and surfaces' own texels (`Run::texture_data`, `Run::surface_data`); none: what
    /// `RunTexture::texels` and `RunSurface::texels` make.
    pub texture_data: Vec<Vec<u8>>,
    pub surface_data: Vec<Vec<u8>>,
    /// The sampler every handle names.
    pub sampler: Sampler,
}

impl KnownProgram {
    /// The launch: one block of [`THREADS`] threads, the output buffer as the first parameter, then each texture's
    /// and each surface's handle.
    pub fn run(&self) -> Run {
        let textures = (0..self.textures.len() as u32).map(Parameter::Texture);
        let surfaces = (0..self.surfaces.len() as u32).map(Parameter::Surface);
        Run {
            file: "programs".into(),
            entry: self.kernel.name.clone(),
            params: std::iter::once(Parameter::Buffer { index: 0, offset: 0 })
                .chain(textures)
                .chain(surfaces)
                .collect(),
            block: [THREADS, 1, 1],
            grid: [1, 1, 1],
            stride: 4 * self.expected.len() / THREADS as usize,
            textures: self.textures.clone(),
            surfaces: self.surfaces.clone(),
            texture_data: self.texture_data.clone(),
            surface_data: self.surface_data.clone(),
            sampler: self.sampler,
            ..Run::default()
        }
    }

    /// The zeroed buffers a run starts from.
    pub fn input(&self) -> Vec<u8> {
        vec![0u8; BUFFER_BYTES]
    }

    /// The words the threads left in the buffers of a run, as many as `expected` holds.
    pub fn words(&self, buffers: &[u8]) -> Vec<u32> {
        buffers[..4 * self.expected.len()]
            .chunks(4)
            .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
            .collect()
    }
}

/// Assembles lines of `isa` with labels (`name:` lines): `{name}` in an offset field is the branch offset to it
/// from the instruction after the branch (SM5x: bytes; SM86: words), `[name]` its byte address in the code and
/// `<name>` its address in a code segment where the code starts at [`SEGMENT_ORIGIN`] (absolute branches').
pub fn assemble_with_labels(isa: Isa, source: &str) -> Result<Vec<u8>, AssembleError> {
    // The address of instruction k: SM5x's three to a 32-byte bundle, after its scheduling word.
    let address = |k: usize| match isa {
        Isa::Sm5x => (32 * (k / 3) + 8 + 8 * (k % 3)) as i64,
        Isa::Sm86 => 16 * k as i64,
    };
    let offset_field = |from: usize, to: i64| match isa {
        Isa::Sm5x => (to - (address(from) + 8)) & 0xff_ffff,
        Isa::Sm86 => ((to - address(from + 1)) / 4) & 0xffff_ffff_ffff,
    };
    let mut labels = HashMap::new();
    let mut lines = Vec::new();
    for line in source.lines().map(str::trim).filter(|line| !line.is_empty()) {
        match line.strip_suffix(':') {
            Some(label) => {
                labels.insert(label.to_string(), address(lines.len()));
            }
            None => lines.push(line.to_string()),
        }
    }
    let resolved: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(k, line)| {
            labels.iter().fold(line.clone(), |line, (label, &to)| {
                line.replace(&format!("{{{label}}}"), &format!("{:#x}", offset_field(k, to)))
                    .replace(&format!("[{label}]"), &format!("{to:#x}"))
                    .replace(&format!("<{label}>"), &format!("{:#x}", to + i64::from(SEGMENT_ORIGIN)))
            })
        })
        .collect();
    match isa {
        Isa::Sm5x => assemble::sm5x(&resolved.join("\n")),
        Isa::Sm86 => assemble::sm86(&resolved.join("\n")),
    }
}

/// Stores R2 at out + 4 * R0 (the thread's index) and exits.
const STORE_AND_EXIT: &str = "
SHL.imm rd=6 ra=0 imm20=2
IADD.cbuf rd=6 ra=6 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=7 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=2 ra=6 e=1 size=4
EXIT
";

/// R2 = c[3][4 * the thread's index] (LDC through a register, 32 bits).
const CONSTANTS_BY_THREAD: &str = "
S2R rd=0 sr=0x21
SHL.imm rd=1 ra=0 imm20=2
LDC rd=2 ra=1 offset=0 cb_bank=3 mode=0 size=4
";

/// The same on SM86.
const SM86_STORE_AND_EXIT: &str = "
MOV.imm rd=18 imm32=4 lanes=15
IMAD.WIDE.cbuf_c rd=20 ra=0 rc=18 cb_offset=0x58 pd=7
STG ra=20 rb=2 offset=0 e=1 size=4 ur=4 no_ur=1 cache=1
EXIT
";

/// Thread t: for i from 0 while i < t + 3, stopping at i = 20 (BRK), skipping odd i (CONT), sum += i; the sum
/// at out + 4t. The body ends in an unconditional CONT, as NVN's loops do.
const SUM_OF_EVENS: &str = "
S2R rd=0 sr=0x21
MOV32I rd=1 imm32=0 lanes=15
MOV32I rd=2 imm32=0 lanes=15
IADD32I rd=3 ra=0 imm32=3
PBK offset={done}
loop:
PCNT offset={next}
ISETP.reg pd=0 pq=7 ra=1 rb=3 cmp=6 signed=1
BRK pg=0
ISETP.imm pd=1 pq=7 ra=1 imm20=20 cmp=2 signed=1
BRK pg=1
LOP32I rd=4 ra=1 imm32=1 op=0
ISETP.imm pd=2 pq=7 ra=4 imm20=0 cmp=5 signed=1
CONT pg=2
IADD.reg rd=2 ra=2 rb=1
CONT
next:
IADD32I rd=1 ra=1 imm32=1
BRA offset={loop}
done:
";

/// Thread t stores t + 100 to shared word t, meets the others at BAR.SYNC, and takes its neighbour's word,
/// (t + 1) % THREADS's: what every thread stored before the barrier.
fn neighbours() -> String {
    format!("S2R rd=0 sr=0x21\nSHL.imm rd=1 ra=0 imm20=2\nIADD32I rd=2 ra=0 imm32=100\n{}", swap_with_neighbour(63))
}

/// Stores R2 to shared word R0 (the thread's index; R1 holds 4 R0), meets the other threads at BAR.SYNC, and
/// loads into R2 the word of thread (R0 + 1) & `mask`.
fn swap_with_neighbour(mask: u32) -> String {
    format!(
        "STS rs=2 ra=1 offset=0 size=4\nBAR mode=0 ra=0 rb=0 a_imm=1 b_imm=1\nIADD32I rd=3 ra=0 imm32=1\n\
         LOP32I rd=3 ra=3 imm32={mask} op=0\nSHL.imm rd=3 ra=3 imm20=2\nLDS rd=2 ra=3 offset=0 size=4\n"
    )
}

/// Three rounds of: thread t stores t + i to shared word t, a barrier, t takes its neighbour's word into its sum,
/// odd threads add 1000 (a branch that divides the threads, with no barrier in it), a barrier. The loop's count
/// is the same for every thread, so every thread meets both barriers each round.
fn rounds() -> String {
    let before = "
S2R rd=0 sr=0x21
SHL.imm rd=1 ra=0 imm20=2
MOV32I rd=4 imm32=0 lanes=15
MOV32I rd=5 imm32=0 lanes=15
round:
IADD.reg rd=2 ra=0 rb=4
";
    let after = "
IADD.reg rd=5 ra=5 rb=2
LOP32I rd=6 ra=0 imm32=1 op=0
ISETP.imm pd=0 pq=7 ra=6 imm20=0 cmp=2 signed=1
BRA pg=0 offset={even}
IADD32I rd=5 ra=5 imm32=1000
even:
BAR mode=0 ra=0 rb=0 a_imm=1 b_imm=1
IADD32I rd=4 ra=4 imm32=1
ISETP.imm pd=1 pq=7 ra=4 imm20=3 cmp=1 signed=1
BRA pg=1 offset={round}
IADD32I rd=2 ra=5 imm32=0
";
    format!("{before}{}{after}", swap_with_neighbour(63))
}

/// Threads 0-31 store, meet at a barrier and take their neighbour's word (of the 32); threads 32-63 branch past
/// it all. Not every thread meets the barrier: the phase loop takes it (the others do not hold it up).
fn half_meet() -> String {
    let before = "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=100
ISETP.imm pd=0 pq=7 ra=0 imm20=32 cmp=6 signed=1
BRA pg=0 offset={skip}
SHL.imm rd=1 ra=0 imm20=2
";
    format!("{before}{}skip:\n", swap_with_neighbour(31))
}

/// Thread t: v = t, then the function `f` (v = 3v + 1) called from `calls` places, then +7 where t < 5 and
/// +100 elsewhere (a divergent branch reconverging at SSY's target); v at out + 4t.
fn calls_and_reconvergence(calls: usize) -> String {
    let call = "CAL offset={f}\n".repeat(calls);
    format!(
        "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=0
{call}SSY offset={{joined}}
ISETP.imm pd=0 pq=7 ra=0 imm20=5 cmp=1 signed=1
BRA pg=0 offset={{small}}
IADD32I rd=2 ra=2 imm32=100
SYNC
small:
IADD32I rd=2 ra=2 imm32=7
SYNC
joined:
{STORE_AND_EXIT}f:
ISCADD.reg rd=2 ra=2 rb=2 shift=1
IADD32I rd=2 ra=2 imm32=1
RET
"
    )
}

/// Thread t: v = t, then f (v = 3v + 1) through JCAL; then + 7 where t < 5 (JMP) and + 100 elsewhere, which
/// JMX leaves (its register plus its offset: `store`'s address); v at out + 4t. Every target is an address in
/// the code segment.
const ABSOLUTE_BRANCHES_BEFORE_STORE: &str = "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=0
JCAL address=<f> inc=1
ISETP.imm pd=0 pq=7 ra=0 imm20=5 cmp=1 signed=1
JMP pg=0 address=<small> cc_test=15
IADD32I rd=2 ra=2 imm32=100
MOV32I rd=3 imm32=<store> lanes=15
IADD32I rd=3 ra=3 imm32=0xfffffff0
JMX ra=3 offset=0x10 cc_test=15
small:
IADD32I rd=2 ra=2 imm32=7
store:
";

/// `ABSOLUTE_BRANCHES_BEFORE_STORE`'s function, after the store.
const ABSOLUTE_BRANCHES_AFTER_STORE: &str = "f:
ISCADD.reg rd=2 ra=2 rb=2 shift=1
IADD32I rd=2 ra=2 imm32=1
RET
";

/// Thread t: v = t, then a call through a function pointer (`even`: 3v, or `odd`: v + 7, by t's parity), then
/// 1000 more; v at out + 4t. As ptxas calls through a pointer on SM5x: PRET pushes the return address and BRX
/// jumps (here from the first instruction's address, 8: the pointer is the callee's address less 8).
const CALL_THROUGH_POINTER_SM5X: &str = "
first:
S2R rd=0 sr=0x21
LOP32I rd=4 ra=0 imm32=1 op=0
ISETP.imm pd=0 pq=7 ra=4 imm20=0 cmp=5 signed=1
MOV32I rd=3 imm32=[even] lanes=15
MOV32I rd=3 imm32=[odd] lanes=15 pg=0
IADD32I rd=3 ra=3 imm32=0xfffffff8
IADD32I rd=2 ra=0 imm32=0
PRET offset={back} inc=1
BRX ra=3 offset={first} cc_test=15
back:
IADD32I rd=2 ra=2 imm32=1000
BRA offset={store}
even:
ISCADD.reg rd=2 ra=2 rb=2 shift=1
RET
odd:
IADD32I rd=2 ra=2 imm32=7
RET
store:
";

/// The same call on SM86, as ptxas writes it: the caller puts the return address in R20:R21 for the callee's
/// RET, and CALL goes through the pointer in R6 (`SM86_STORE_AND_EXIT` follows).
const CALL_THROUGH_POINTER_SM86: &str = "
first:
S2R rd=0 sr=0x21
LOP3.imm rd=4 ra=0 imm32=1 rc=255 lut=0xc0 pd=7
ISETP.imm pd=0 pq=7 ra=4 imm32=0 bop_ex=41
MOV.imm rd=6 imm32=[even] lanes=15
MOV.imm rd=6 imm32=[odd] lanes=15 pg=0
MOV.imm rd=20 imm32=[back] lanes=15
MOV.imm rd=21 imm32=0 lanes=15
MOV.reg rd=2 rb=0 lanes=15
CALL.reg ra=6 offset={first} noinc=1
back:
IADD3.imm rd=2 ra=2 imm32=1000 rc=255 pd=7 pq=7
BRA offset={store}
even:
IMAD.imm rd=2 ra=2 imm32=3 rc=255 pd=7
RET ra=20 offset={first} nodec=1
odd:
IADD3.imm rd=2 ra=2 imm32=7 rc=255 pd=7 pq=7
RET ra=20 offset={first} nodec=1
store:
";

/// Thread t: v = t; PLONGJMP to `escape`, then f, which calls g inside an SSY; g LONGJMPs where t < 5 (through
/// g's call, the SSY and f's call: v + 5000) and otherwise returns (v + 3, + 20 in f, + 100 after the call).
const LONG_JUMP_OUT_OF_CALLS: &str = "
S2R rd=0 sr=0x21
IADD32I rd=2 ra=0 imm32=0
PLONGJMP offset={escape}
CAL offset={f} inc=1
IADD32I rd=2 ra=2 imm32=100
BRA offset={store}
escape:
IADD32I rd=2 ra=2 imm32=5000
BRA offset={store}
f:
SSY offset={f_join}
CAL offset={g} inc=1
IADD32I rd=2 ra=2 imm32=20
SYNC
f_join:
RET
g:
ISETP.imm pd=0 pq=7 ra=0 imm20=5 cmp=1 signed=1
LONGJMP pg=0
IADD32I rd=2 ra=2 imm32=3
RET
store:
";

/// Thread t: R2 = 333 where t >= 5; where t < 5, a BRXU through UR4 (`target`'s address: the encoded offset takes
/// the branch back to the code's start) to the code that makes R2 111 (`first`) or 222 (`second`). R2 at out + 4t.
fn jump_through_uniform_register(target: &str) -> String {
    format!(
        "
origin:
S2R rd=0 sr=0x21
UMOV.imm urd=4 imm32=[{target}]
ISETP.imm pd=0 pq=7 ra=0 imm32=5 bop_ex=9
BRXU pg=0 ur=4 offset={{origin}}
MOV.imm rd=2 imm32=333 lanes=15
BRA offset={{store}}
first:
MOV.imm rd=2 imm32=111 lanes=15
BRA offset={{store}}
second:
MOV.imm rd=2 imm32=222 lanes=15
BRA offset={{store}}
store:
{SM86_STORE_AND_EXIT}"
    )
}

/// Maxwell's whole 48 KiB of shared memory a block: thread t stores 4w + 7 to every word w = t + 64k, meets the
/// others at BAR.SYNC, and takes the word at byte 0xbffc ^ 4t = 49148 - 4t, at the top, which thread 63 - t
/// stored. Outside [`all`]: a Vulkan device may offer less (lavapipe 32 KiB), which the tests check first.
pub fn whole_shared_memory() -> Result<KnownProgram, AssembleError> {
    let source = format!(
        "
S2R rd=0 sr=0x21
SHL.imm rd=1 ra=0 imm20=2
stripe:
IADD32I rd=2 ra=1 imm32=7
STS rs=2 ra=1 offset=0 size=4
IADD32I rd=1 ra=1 imm32=256
ISETP.imm pd=0 pq=7 ra=1 imm20={SHARED_MEMORY_BYTES} cmp=1 signed=1
BRA pg=0 offset={{stripe}}
BAR mode=0 ra=0 rb=0 a_imm=1 b_imm=1
SHL.imm rd=3 ra=0 imm20=2
LOP32I rd=3 ra=3 imm32=0xbffc op=2
LDS rd=2 ra=3 offset=0 size=4
{STORE_AND_EXIT}"
    );
    Ok(plain(
        KernelImage {
            shared_bytes: SHARED_MEMORY_BYTES,
            ..kernel("whole_shared_memory", Isa::Sm5x, assemble_with_labels(Isa::Sm5x, &source)?)
        },
        (0..THREADS).map(|t| SHARED_MEMORY_BYTES - 4 - 4 * t + 7).collect(),
    ))
}

/// The shared memory a Maxwell block may have.
pub const SHARED_MEMORY_BYTES: u32 = 48 << 10;

/// Every program, by name; an assembly error is the table's, and names its line.
pub fn all() -> Result<Vec<KnownProgram>, AssembleError> {
    let each = |f: fn(u32) -> u32| (0..THREADS).map(f).collect::<Vec<u32>>();
    let sm5x = |source: &str| assemble_with_labels(Isa::Sm5x, source);
    let mut programs = vec![
        program(
            "sum_of_evens",
            Isa::Sm5x,
            sm5x(&format!("{SUM_OF_EVENS}{STORE_AND_EXIT}"))?,
            each(|t| (0..(t + 3).min(20)).filter(|i| i % 2 == 0).sum()),
        ),
        plain(
            KernelImage {
                shared_bytes: 4 * THREADS,
                ..kernel("neighbours", Isa::Sm5x, sm5x(&format!("{}{STORE_AND_EXIT}", neighbours()))?)
            },
            each(|t| (t + 1) % THREADS + 100),
        ),
        plain(
            KernelImage {
                shared_bytes: 4 * THREADS,
                ..kernel("rounds", Isa::Sm5x, sm5x(&format!("{}{STORE_AND_EXIT}", rounds()))?)
            },
            each(|t| 3 * ((t + 1) % THREADS) + 3 + if t % 2 == 1 { 3000 } else { 0 }),
        ),
        plain(
            KernelImage {
                shared_bytes: 4 * THREADS,
                ..kernel("half_meet", Isa::Sm5x, sm5x(&format!("{}{STORE_AND_EXIT}", half_meet()))?)
            },
            each(|t| if t < 32 { (t + 1) % 32 + 100 } else { t + 100 }),
        ),
    ];
    // Thread t reads word t of a 16-byte bank 3 through a register (LDC c[3][R1]): words past the bank read 0,
    // as on the hardware.
    let bank: Vec<u8> = [11u32, 22, 33, 44].iter().flat_map(|w| w.to_le_bytes()).collect();
    programs.push(plain(
        KernelImage {
            constants: vec![(3, bank)],
            ..kernel("constants_past_the_bank", Isa::Sm5x, sm5x(&format!("{CONSTANTS_BY_THREAD}{STORE_AND_EXIT}"))?)
        },
        each(|t| [11, 22, 33, 44].get(t as usize).copied().unwrap_or(0)),
    ));
    for calls in [1, 2] {
        programs.push(program(
            &format!("called_{calls}"),
            Isa::Sm5x,
            sm5x(&calls_and_reconvergence(calls))?,
            (0..THREADS).map(|t| (0..calls).fold(t, |v, _| 3 * v + 1) + if t < 5 { 7 } else { 100 }).collect(),
        ));
    }
    programs.push(plain(
        KernelImage {
            origin: SEGMENT_ORIGIN,
            ..kernel(
                "absolute",
                Isa::Sm5x,
                sm5x(&format!("{ABSOLUTE_BRANCHES_BEFORE_STORE}{STORE_AND_EXIT}{ABSOLUTE_BRANCHES_AFTER_STORE}"))?,
            )
        },
        each(|t| 3 * t + 1 + if t < 5 { 7 } else { 100 }),
    ));
    let pointer_call = each(|t| if t % 2 == 0 { 3 * t } else { t + 7 } + 1000);
    programs.push(program(
        "pointer_call_sm5x",
        Isa::Sm5x,
        sm5x(&format!("{CALL_THROUGH_POINTER_SM5X}{STORE_AND_EXIT}"))?,
        pointer_call.clone(),
    ));
    programs.push(program(
        "pointer_call_sm86",
        Isa::Sm86,
        assemble_with_labels(Isa::Sm86, &format!("{CALL_THROUGH_POINTER_SM86}{SM86_STORE_AND_EXIT}"))?,
        pointer_call,
    ));
    programs.push(program(
        "long_jump",
        Isa::Sm5x,
        sm5x(&format!("{LONG_JUMP_OUT_OF_CALLS}{STORE_AND_EXIT}"))?,
        each(|t| if t < 5 { t + 5000 } else { t + 123 }),
    ));
    for (target, value) in [("first", 111), ("second", 222)] {
        programs.push(program(
            &format!("brxu_{target}"),
            Isa::Sm86,
            assemble_with_labels(Isa::Sm86, &jump_through_uniform_register(target))?,
            (0..THREADS).map(|t| if t < 5 { value } else { 333 }).collect(),
        ));
    }
    programs.extend(surface_atomics()?);
    programs.push(texel_fetches()?);
    Ok(programs)
}

/// SUATOM.ADD twice of t + 1 into texel t of a 1D R32 surface (its handle the second parameter: SM5x's slot
/// 0x52, SM86's c[0][0x168]): the second returns the texel plus t + 1, each thread having a texel of its own.
fn surface_atomics() -> Result<[KnownProgram; 2], AssembleError> {
    let surface = RunSurface {
        dim: TextureDim::D1,
        size: [THREADS, 1, 1],
        layers: 1,
        format: crate::sass::exec::SurfaceFormat { channels: 1, channel_bytes: 4 },
    };
    let texels = surface.texels(0);
    let expected: Vec<u32> = (0..THREADS)
        .map(|t| {
            let at = 4 * t as usize;
            u32::from_le_bytes(texels[at..at + 4].try_into().expect("a word")).wrapping_add(t + 1)
        })
        .collect();
    let sm5x = format!(
        "
S2R rd=0 sr=0x21
IADD32I rd=3 ra=0 imm32=1
SUATOM rd=2 ra=0 rb=3 op=0 target=0 surf=0x52 clamp=1
SUATOM rd=2 ra=0 rb=3 op=0 target=0 surf=0x52 clamp=1
{STORE_AND_EXIT}"
    );
    let sm86 = format!(
        "
S2R rd=0 sr=0x21
IADD3.imm rd=3 ra=0 imm32=1 pd=7 pq=7 px=7 px_not=1
SUATOM rd=2 ra=0 rb=3 op=0 target=0 surf=0x5a clamp=1 pd=7 cache=1
SUATOM rd=2 ra=0 rb=3 op=0 target=0 surf=0x5a clamp=1 pd=7 cache=1
{SM86_STORE_AND_EXIT}"
    );
    let with_surface = |name: &str, isa: Isa, source: &str| -> Result<KnownProgram, AssembleError> {
        let code = assemble_with_labels(isa, source)?;
        Ok(KnownProgram { surfaces: vec![surface], ..plain(kernel(name, isa, code), expected.clone()) })
    };
    Ok([
        with_surface("surface_atomics_sm5x", Isa::Sm5x, &sm5x)?,
        with_surface("surface_atomics_sm86", Isa::Sm86, &sm86)?,
    ])
}

/// TLDS 2D.LZ of texel (t & 3, t >> 2) of a 4 x 16 RGBA32F texture (its handle the second parameter, slot 0x52):
/// its R, word 4 (4 y + x) of the texels, `Run`'s number 4096 x 0 + that + 0.25.
fn texel_fetches() -> Result<KnownProgram, AssembleError> {
    let texture =
        RunTexture { dim: TextureDim::D2, size: [4, 16, 1], layers: 1, levels: 1, array: false, depth: false };
    let source = format!(
        "
S2R rd=0 sr=0x21
LOP32I rd=1 ra=0 imm32=3 op=0
SHR.imm rd=4 ra=0 imm20=2
TLDS rd=2 ra=1 rb=4 rd2=8 tex=0x52 mode=2 swizzle=4 f32=1
{STORE_AND_EXIT}"
    );
    let code = assemble_with_labels(Isa::Sm5x, &source)?;
    let expected = (0..THREADS).map(|t| (4.0 * t as f32 + 0.25).to_bits()).collect();
    Ok(KnownProgram { textures: vec![texture], ..plain(kernel("texel_fetches", Isa::Sm5x, code), expected) })
}

/// A Maxwell program of straight-line `body` (SM5x lines, which leave R0 and R6-R7 alone) after `S2R R0,
/// SR_TID.X`, whose R2 every thread stores; `expected` gives thread t's word, `constants` the banks it reads.
pub fn straight_line(
    name: &str,
    body: &str,
    constants: Vec<(u32, Vec<u8>)>,
    expected: impl Fn(u32) -> u32,
) -> Result<KnownProgram, AssembleError> {
    let code = assemble_with_labels(Isa::Sm5x, &format!("S2R rd=0 sr=0x21\n{body}\n{STORE_AND_EXIT}"))?;
    Ok(plain(KernelImage { constants, ..kernel(name, Isa::Sm5x, code) }, (0..THREADS).map(expected).collect()))
}

/// A Maxwell program of straight-line `body` (SM5x lines free to use R0-R19) whose R0-R3 every thread stores
/// (128 bits at out + 16t), each thread's to be `expected`: nxgpucatch's texture tests' form. Texture i of
/// `textures` holds its own texels in [`RunTexture::texels`]' order (none: what that makes), sampled through
/// nxgpucatch's sampler (`Sampler::NXGPUCATCH`), and its handle is at c[0][0x148 + 8i] (bound slot 0x52 + 2i);
/// surfaces likewise, their handles after the textures'. `constants` are the banks the body reads.
pub fn vector_program(
    name: &str,
    body: &str,
    textures: Vec<(RunTexture, Vec<u8>)>,
    surfaces: Vec<(RunSurface, Vec<u8>)>,
    constants: Vec<(u32, Vec<u8>)>,
    expected: [u32; 4],
) -> Result<KnownProgram, AssembleError> {
    let source = format!(
        "{body}
S2R rd=20 sr=0x21
SHL.imm rd=20 ra=20 imm20=4
IADD.cbuf rd=20 ra=20 cb_bank=0 cb_offset=0x50 cc=1
IADD.cbuf rd=21 ra=255 cb_bank=0 cb_offset=0x51 x=1
STG rs=0 ra=20 e=1 size=6
EXIT"
    );
    let code = assemble_with_labels(Isa::Sm5x, &source)?;
    let (textures, texture_data) = textures.into_iter().unzip();
    let (surfaces, surface_data) = surfaces.into_iter().unzip();
    Ok(KnownProgram {
        textures,
        texture_data,
        surfaces,
        surface_data,
        sampler: Sampler::NXGPUCATCH,
        ..plain(KernelImage { constants, ..kernel(name, Isa::Sm5x, code) }, expected.repeat(THREADS as usize))
    })
}

/// The program named `name`.
pub fn named(name: &str) -> Option<KnownProgram> {
    all().ok()?.into_iter().find(|program| program.kernel.name == name)
}

fn kernel(name: &str, isa: Isa, code: Vec<u8>) -> KernelImage {
    KernelImage { name: name.into(), isa, code, constants: Vec::new(), shared_bytes: 0, origin: 0 }
}

fn program(name: &str, isa: Isa, code: Vec<u8>, expected: Vec<u32>) -> KnownProgram {
    plain(kernel(name, isa, code), expected)
}

/// A program that reads no texture or surface.
pub fn plain(kernel: KernelImage, expected: Vec<u32>) -> KnownProgram {
    KnownProgram {
        kernel,
        expected,
        textures: Vec::new(),
        surfaces: Vec::new(),
        texture_data: Vec::new(),
        surface_data: Vec::new(),
        sampler: Sampler::POINT_CLAMP,
    }
}
