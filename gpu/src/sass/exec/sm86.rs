//! What each SM86 instruction does, lane by lane, in the table's own terms: fields are read by name, as the
//! disassembler reads them. Operand slots follow the table's comment: the 63:32 slot (`rb`, `imm32`, a
//! constant or a uniform register, modifiers `neg_b`/`abs_b`), the 71:64 register (`rc`, `neg_c`/`abs_c`), and
//! the `_c` forms, whose second source is the 71:64 register and third the 63:32 slot.

use super::float::{self, Mode};
use super::mma;
use super::ops::{
    Memories, access_bytes, atomic_op, bit_mask, boolean, constant_load, extend, extend_low_bits, find_leading_one,
    funnel_shift, lanes, lop3, permute, predicates_from, predicates_into, shuffle_source, stored_value, swizzle_add,
    write_loaded,
};
use super::{ExecError, Lane, LaneStatus, Step, WARP_SIZE, WARPSYNC_BARRIER, load, store};
pub(super) use crate::sass::sm86::INSTRUCTION_BYTES;
use crate::sass::sm86::decode_program;
use crate::sass::swizzle_add::moves_b;
use crate::sass::text::View;
use crate::sass::{Control, Isa};

/// A decoded program, ready to run.
pub(super) struct Program {
    instructions: Vec<View>,
    entry: usize,
}

/// Byte offsets of driver constants in `c[0x0]`: the top of each thread's local memory stack, and the bases of
/// the shared and local windows of generic addressing.
pub const LOCAL_STACK_TOP: usize = 0x28;
pub const SHARED_WINDOW_BASE: usize = 0x18;
pub const LOCAL_WINDOW_BASE: usize = 0x20;
/// Byte offset of the first kernel parameter in `c[0x0]`.
pub const PARAMETERS: usize = 0x160;

impl Program {
    pub(super) fn new(code: &[u8], entry: usize) -> Result<Program> {
        let decoded = decode_program(code)?;
        let instructions = decoded
            .iter()
            .map(|instruction| View {
                encoding: instruction.inst.encoding(),
                word: instruction.inst.encode().expect("a decoded instruction encodes"),
                control: instruction.control,
                offset: instruction.offset,
            })
            .collect::<Vec<_>>();
        if !entry.is_multiple_of(INSTRUCTION_BYTES) || entry / INSTRUCTION_BYTES >= instructions.len() {
            return Err(ExecError::PcOutOfCode { isa: Isa::Sm86, target: entry as i64, offset: entry });
        }
        Ok(Program { instructions, entry: entry / INSTRUCTION_BYTES })
    }

    pub(super) fn entry_index(&self) -> usize {
        self.entry
    }

    /// Executes instruction `pc` for the step's group.
    pub(super) fn execute(&self, pc: usize, step: &mut Step) -> Result {
        let Some(v) = self.instructions.get(pc) else {
            return Err(ExecError::PcOutOfCode {
                isa: Isa::Sm86,
                target: (pc * INSTRUCTION_BYTES) as i64,
                offset: pc.saturating_sub(1) * INSTRUCTION_BYTES,
            });
        };
        step.warp.clock += 1;
        // Lanes whose guard fails step over the instruction; the uniform datapath's guard is a uniform predicate,
        // the same for every lane.
        let (pg, pg_not) = (v.get("pg"), v.flag("pg_not"));
        let uniform_guard = crate::sass::sm86::is_uniform(v.encoding.opcode).then(|| step.warp.upred(pg) != pg_not);
        let mut active = 0u32;
        for i in lanes(step.group) {
            let lane = &mut step.warp.lanes[i];
            if uniform_guard.unwrap_or_else(|| lane.pred(pg) != pg_not) {
                active |= 1 << i;
            } else {
                lane.pc += 1;
            }
        }
        if uniform_guard == Some(false) {
            // The uniform datapath runs once for the warp, whichever lanes are active: not at all here.
            return Ok(());
        }
        let mut x = Exec { v, step, active, pc, code_len: self.instructions.len() };
        x.run()
    }
}

/// One instruction being executed by the active lanes.
struct Exec<'x, 's> {
    v: &'x View,
    step: &'x mut Step<'s>,
    active: u32,
    pc: usize,
    code_len: usize,
}

type Result<T = ()> = std::result::Result<T, ExecError>;

impl Exec<'_, '_> {
    fn unimplemented<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(ExecError::Unimplemented { isa: Isa::Sm86, what: what.into(), offset: self.v.offset })
    }

    /// The instruction as nvdisasm writes it, for errors.
    fn text(&self) -> String {
        crate::sass::sm86::text(&self.instruction())
    }

    /// Runs `f` on every active lane and moves it to the next instruction.
    fn each(&mut self, mut f: impl FnMut(&mut Lane, &Operands)) {
        let operands = Operands { v: self.v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs };
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            f(lane, &operands);
            lane.pc += 1;
        }
    }

    /// Like `each`, for lanes that may fault.
    fn try_each(&mut self, mut f: impl FnMut(&mut Lane, &Operands, &mut Memories) -> Result) -> Result {
        let operands = Operands { v: self.v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs };
        let mut memories =
            Memories { isa: Isa::Sm86, shared: self.step.shared, global: self.step.memory, offset: self.v.offset };
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            f(lane, &operands, &mut memories)?;
            lane.pc += 1;
        }
        Ok(())
    }

    fn advance_all(&mut self) {
        for i in lanes(self.active) {
            self.step.warp.lanes[i].pc += 1;
        }
    }

    /// Instruction index of a branch target `pc + 16 + displacement` (bytes), checked against the code.
    fn target(&self, displacement: i64) -> Result<usize> {
        let target = (self.pc * INSTRUCTION_BYTES) as i64 + INSTRUCTION_BYTES as i64 + displacement;
        if target < 0 || target % INSTRUCTION_BYTES as i64 != 0 || target as usize / INSTRUCTION_BYTES >= self.code_len
        {
            return Err(ExecError::PcOutOfCode { isa: Isa::Sm86, target, offset: self.v.offset });
        }
        Ok(target as usize / INSTRUCTION_BYTES)
    }

    fn run(&mut self) -> Result {
        let v = self.v;
        match v.encoding.opcode {
            // Moves and special registers.
            "MOV" => self.each(|lane, o| {
                let value = if o.v.has("urb") { o.ureg("urb") } else { o.slot_b(lane) };
                lane.set_reg(o.v.get("rd"), value)
            }),
            "S2R" | "CS2R" => self.special_register()?,
            "P2R" => self.each(|lane, o| {
                let value = predicates_into(o.reg(lane, "ra"), lane.predicate_bits(), o.slot_b(lane), o.v.get("byte"));
                lane.set_reg(o.v.get("rd"), value)
            }),
            "R2P" => self.each(|lane, o| {
                for (i, set) in predicates_from(o.reg(lane, "ra"), o.slot_b(lane), o.v.get("byte")) {
                    lane.set_pred(i, set);
                }
            }),
            "SEL" => self.each(|lane, o| {
                let value = if o.pred_src(lane, "ps") { o.reg(lane, "ra") } else { o.slot_b(lane) };
                lane.set_reg(o.v.get("rd"), value)
            }),
            // Integer arithmetic.
            "IADD3" => self.each(iadd3),
            "IMAD" => self.each(imad),
            "LEA" => self.each(lea),
            "IMNMX" => self.each(|lane, o| {
                let (a, b) = (o.reg(lane, "ra"), o.slot_b(lane));
                let a_less = if o.v.flag("signed") { (a as i32) < (b as i32) } else { a < b };
                let min = o.pred_src(lane, "ps");
                lane.set_reg(o.v.get("rd"), if a_less == min { a } else { b })
            }),
            "IDP" => self.each(|lane, o| {
                // dp4a: c + the products of a's and b's bytes; dp2a: c + a's halves times b's low (.LO) or high
                // (.HI) byte pair. Each part sign- or zero-extended as the form says; the sum wraps.
                let (a, b) = (o.reg(lane, "ra"), o.reg(lane, "rb"));
                let part = |x: u32, index: u32, bits: u32, signed: bool| -> i64 {
                    let raw = (x >> (index * bits)) & ((1u64 << bits) - 1) as u32;
                    if signed { i64::from(((raw << (32 - bits)) as i32) >> (32 - bits)) } else { i64::from(raw) }
                };
                let (signed_a, signed_b) = (o.v.flag("signed_a"), o.v.flag("signed_b"));
                let products: i64 = if o.v.flag("two") {
                    let first_byte = if o.v.flag("hi") { 2 } else { 0 };
                    (0..2).map(|i| part(a, i, 16, signed_a) * part(b, first_byte + i, 8, signed_b)).sum()
                } else {
                    (0..4).map(|i| part(a, i, 8, signed_a) * part(b, i, 8, signed_b)).sum()
                };
                let c = o.reg(lane, "rc");
                let c = if o.v.flag("neg_c") { c.wrapping_neg() } else { c };
                lane.set_reg(o.v.get("rd"), c.wrapping_add(products as u32))
            }),
            "IABS" => {
                self.each(|lane, o| lane.set_reg(o.v.get("rd"), (o.reg(lane, "rb") as i32).wrapping_abs() as u32))
            }
            "POPC" => self.each(|lane, o| {
                let b = o.reg(lane, "rb") ^ if o.v.flag("inv_b") { u32::MAX } else { 0 };
                lane.set_reg(o.v.get("rd"), b.count_ones())
            }),
            "FLO" => self.each(flo),
            "BREV" => self.each(|lane, o| lane.set_reg(o.v.get("rd"), o.reg(lane, "rb").reverse_bits())),
            "BMSK" => self.each(|lane, o| {
                let value = bit_mask(o.reg(lane, "ra"), o.slot_b(lane), o.v.flag("wrap"));
                lane.set_reg(o.v.get("rd"), value)
            }),
            "SGXT" => self.each(|lane, o| {
                let value = extend_low_bits(o.reg(lane, "ra"), o.slot_b(lane), o.v.flag("wrap"), o.v.flag("signed"));
                lane.set_reg(o.v.get("rd"), value)
            }),
            // The accumulating form alone (what ptxas makes of vabsdiff4 ... .add): c plus the bytes' distances.
            "VABSDIFF4" if !v.flag("acc") || v.get("pd") != 7 => return self.unimplemented(self.text()),
            "VABSDIFF4" => self.each(|lane, o| {
                let (a, b, c) = (o.reg(lane, "ra"), o.reg(lane, "rb"), o.reg(lane, "rc"));
                let byte = |word: u32, k: u32| {
                    let byte = (word >> (8 * k)) as u8;
                    if o.v.flag("signed") { i32::from(byte as i8) } else { i32::from(byte) }
                };
                let sum: u32 = (0..4).map(|k| byte(a, k).abs_diff(byte(b, k))).sum();
                lane.set_reg(o.v.get("rd"), c.wrapping_add(sum))
            }),
            "VABSDIFF" => self.each(|lane, o| {
                let (a, b, c) = (o.reg(lane, "ra"), o.reg(lane, "rb"), o.reg(lane, "rc"));
                let difference = if o.v.flag("signed") {
                    (i64::from(a as i32) - i64::from(b as i32)).unsigned_abs() as u32
                } else {
                    a.abs_diff(b)
                };
                lane.set_reg(o.v.get("rd"), difference.wrapping_add(c))
            }),
            // Comparison, selection and logic.
            "ISETP" => self.each(isetp),
            "LOP3" => self.each(|lane, o| {
                let result = lop3(o.v.get("lut") as u8, o.reg(lane, "ra"), o.slot_b(lane), o.reg(lane, "rc"));
                lane.set_reg(o.v.get("rd"), result);
                // The predicate output says whether the result is non-zero, combined with the predicate source.
                let nonzero = result != 0;
                let ps = o.pred_src(lane, "ps");
                lane.set_pred(o.v.get("pd"), if o.v.flag("pand") { nonzero && ps } else { nonzero || ps });
            }),
            "PLOP3" => self.each(plop3),
            "PRMT" => self.each(|lane, o| {
                let result = permute(o.reg(lane, "ra"), o.slot_b(lane), o.reg(lane, "rc"), o.v.get("mode"));
                lane.set_reg(o.v.get("rd"), result)
            }),
            "SHF" => self.each(shf),
            // 32-bit floating point.
            "FADD" => self.each(|lane, o| {
                let (a, b) = (o.float_a(lane), o.float_b(lane));
                lane.set_reg(o.v.get("rd"), float::add32(a, b, o.mode()))
            }),
            "FSWZADD" => {
                let swizzle = v.get("swizzle") as u32;
                if moves_b(Isa::Sm86, swizzle) {
                    return self.unimplemented(format!("{} (a lane moving b alone: MOV2)", self.text()));
                }
                self.each(|lane, o| {
                    let (a, b) = (o.reg(lane, "ra"), o.reg(lane, "rc"));
                    lane.set_reg(o.v.get("rd"), swizzle_add(Isa::Sm86, swizzle, lane, a, b, o.mode()))
                })
            }
            "FMUL" => self.each(|lane, o| {
                let scale = match o.v.get("scale") {
                    scale @ 1..=3 => scale as i32 - 4,
                    scale @ 5..=7 => scale as i32 - 4,
                    _ => 0,
                };
                let (a, b) = (o.float_a(lane), o.float_b(lane));
                lane.set_reg(o.v.get("rd"), float::mul32(a, b, scale, o.v.flag("fmz"), o.mode()))
            }),
            "FFMA" => self.each(|lane, o| {
                let (a, b, c) = (o.float_a(lane), o.float_b(lane), o.float_c(lane));
                lane.set_reg(o.v.get("rd"), float::fma32(a, b, c, o.v.flag("fmz"), o.mode()))
            }),
            "FMNMX" => self.each(|lane, o| {
                let (a, b) = (o.float_a(lane), o.float_b(lane));
                let min = o.pred_src(lane, "ps");
                let signs = o.v.flag("xorsign").then(|| o.reg(lane, "ra") ^ o.slot_b(lane));
                let value = float::fmnmx(a, b, min, o.v.flag("ftz"), o.v.flag("nan"), signs);
                lane.set_reg(o.v.get("rd"), value)
            }),
            "FSEL" => self.each(|lane, o| {
                let value = if o.pred_src(lane, "ps") { o.float_a(lane) } else { o.float_b(lane) };
                lane.set_reg(o.v.get("rd"), if o.v.flag("ftz") { float::flush32(value) } else { value })
            }),
            "FSETP" | "FSET" => self.each(|lane, o| {
                let order = float::order32(o.float_a(lane), o.float_b(lane), o.v.flag("ftz"));
                let holds = float::compare(order, o.v.get("cmp"));
                let (op, ps) = (o.v.get("bop"), o.pred_src(lane, "ps"));
                if o.v.encoding.opcode == "FSET" {
                    let value = if boolean(op, holds, ps) { 0x3f80_0000 } else { 0 };
                    lane.set_reg(o.v.get("rd"), value);
                } else {
                    lane.set_pred(o.v.get("pd"), boolean(op, holds, ps));
                    lane.set_pred(o.v.get("pq"), boolean(op, !holds, ps));
                }
            }),
            "FCHK" => self.each(|lane, o| {
                let needs = float::division_needs_slow_path(o.float_a(lane), o.float_b(lane));
                lane.set_pred(o.v.get("pd"), needs)
            }),
            "MUFU" => {
                let func = v.get("func");
                let f16 = v.flag("f16");
                if func > 9 || (f16 && (matches!(func, 6 | 7) || v.get("half_b") > 1)) {
                    return self.unimplemented(format!("MUFU function {func}{}", if f16 { ".F16" } else { "" }));
                }
                self.each(|lane, o| {
                    let result = if o.v.flag("f16") {
                        // .F16: of the half_b-th FP16 half, an FP16 result in the low half.
                        let half = o.half_b(lane)[o.v.get("half_b") as usize];
                        float::special_function16(func, half).map(u32::from)
                    } else {
                        let x = o.float_b(lane);
                        match func {
                            6 | 7 => float::special_function64h(func, x),
                            _ => float::special_function(func, x),
                        }
                    };
                    lane.set_reg(o.v.get("rd"), result.unwrap_or(float::CANONICAL_NAN32))
                })
            }
            "FRND" => self.each(|lane, o| {
                let ty = o.v.get("src");
                let round = float::rounding(o.v.get("rnd"));
                if ty == 3 {
                    let value = float::round_integral(o.reg64_slot_b(lane), 3, round, o.v.flag("ftz"));
                    lane.set_reg64(o.v.get("rd"), value);
                } else {
                    let value = float::round_integral(u64::from(o.float_b(lane)), ty, round, o.v.flag("ftz"));
                    lane.set_reg(o.v.get("rd"), value as u32);
                }
            }),
            // 64-bit floating point.
            "DADD" | "DMUL" | "DFMA" => self.each(|lane, o| {
                let round = float::rounding(o.v.get("rnd"));
                let a = (o.double_a(lane), lane.reg64(o.v.get("ra")));
                let (op, b, c) = match o.v.encoding.opcode {
                    // DADD's second operand sits in the C slot (the 71:64 register, or the 63:32 slot of `_c`).
                    "DADD" => (float::ArithOp::Add, o.double_c(lane), (0, 0)),
                    "DMUL" => (float::ArithOp::Mul, o.double_b(lane), (0, 0)),
                    _ => (float::ArithOp::Fma, o.double_b(lane), o.double_c(lane)),
                };
                let result = float::arith64(op, [a.0, b.0, c.0], [a.1, b.1, c.1], round);
                lane.set_reg64(o.v.get("rd"), result)
            }),
            "DSETP" => self.each(|lane, o| {
                let (a, b) = (o.double_a(lane), o.double_b(lane).0);
                let (op, ps) = (o.v.get("bop"), o.pred_src(lane, "ps"));
                let (first, second) = match o.v.get("cmp") {
                    // .MIN and .MAX (in place of .F and .T) pick the operand min/max.f64 returns: the first
                    // predicate says "the first operand", the second "both are NaN".
                    cmp @ (0 | 15) => float::min_max64_choice(a, b, cmp == 0),
                    cmp => {
                        let holds = float::compare(float::order64(a, b), cmp);
                        (holds, !holds)
                    }
                };
                lane.set_pred(o.v.get("pd"), boolean(op, first, ps));
                lane.set_pred(o.v.get("pq"), boolean(op, second, ps));
            }),
            // Conversions.
            "F2I" => self.each(f2i),
            // A 64-bit source from a constant or an immediate: ptxas never asks.
            "I2F" if v.get("src") == 3 && !v.has("rb") => {
                return self.unimplemented("I2F of a 64-bit constant or immediate");
            }
            "I2F" => self.each(i2f),
            // .SAT into 8- or 16-bit lanes, c's low half (what ptxas makes of cvt.pack.sat).
            "I2IP" if v.get("sat") != 0 || v.get("dst") > 3 || v.get("half_c") != 0 => {
                return self.unimplemented(self.text());
            }
            "I2IP" => self.each(|lane, o| {
                let (a, b, c) = (o.reg(lane, "ra"), o.reg(lane, "rb"), o.reg(lane, "rc"));
                let dst = o.v.get("dst");
                let bits = if dst < 2 { 8 } else { 16 };
                let (low, high) = if dst & 1 == 1 {
                    (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
                } else {
                    (0, (1i64 << bits) - 1)
                };
                let lane_of = |x: u32| (i64::from(x as i32).clamp(low, high) as u32) & ((1u32 << bits) - 1);
                // a above b; two bytes leave the upper half to c's low half.
                let packed = lane_of(a) << bits | lane_of(b);
                lane.set_reg(o.v.get("rd"), if bits == 8 { c << 16 | packed } else { packed })
            }),
            "I2FP" => self.each(|lane, o| {
                let b = o.reg(lane, "rb");
                let signed = o.v.flag("signed");
                let value = if signed { b as i32 as i64 as u64 } else { u64::from(b) };
                let round = float::rounding(o.v.get("rnd"));
                lane.set_reg(o.v.get("rd"), float::int_to_float(value, signed, 2, round) as u32)
            }),
            // BF16 results are 16 bits: a pair destination (dst 3) with .BF16 is no form ptxas writes.
            "F2F" if v.flag("bf16") && v.get("dst") == 3 => {
                return self.unimplemented(self.text());
            }
            "F2F" => self.each(f2f),
            "F2IP" => {
                // Only the single-value form ptxas emits for cvt.sat to 8 bits: no second value, nothing merged.
                if v.get("ra") != 255 || v.get("rc") != 255 || v.flag("relu") {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let (signed, round) = (o.v.flag("signed"), float::rounding(o.v.get("rnd")));
                    let value = float::float_to_int(u64::from(o.reg(lane, "rb")), 2, 3, true, round, false) as i64;
                    let byte = if signed { value.clamp(-128, 127) } else { value.clamp(0, 255) };
                    lane.set_reg(o.v.get("rd"), byte as u32 & if signed { u32::MAX } else { 0xff })
                })
            }
            "HADD2" | "HMUL2" | "HFMA2" => {
                // BF16 (.BF16_V2) without .FTZ or .F32, whose meanings there no oracle program shows.
                let odd_bf16 = v.flag("bf16") && (v.flag("ftz") || v.flag("f32"));
                if odd_bf16 || [v.get("swz_a"), v.get("swz_b"), v.get("swz_c")].contains(&1) {
                    return self.unimplemented(self.text());
                }
                self.each(half_arithmetic)
            }
            // .F32 sources are refused until a hardware run says what they read on SM86.
            "HSETP2" | "HMNMX2" if [v.get("swz_a"), v.get("swz_b")].contains(&1) => {
                return self.unimplemented(self.text());
            }
            "HSETP2" => self.each(|lane, o| {
                let (a, b) = (o.half_a(lane), o.half_b(lane));
                let ftz = o.v.flag("ftz");
                let holds = |i: usize| float::compare(float::order16(a[i], b[i], ftz), o.v.get("cmp"));
                let (op, ps) = (o.v.get("bop"), o.pred_src(lane, "ps"));
                if o.v.flag("h_and") {
                    let both = holds(0) && holds(1);
                    lane.set_pred(o.v.get("pd"), boolean(op, both, ps));
                    lane.set_pred(o.v.get("pq"), boolean(op, !both, ps));
                } else {
                    lane.set_pred(o.v.get("pd"), boolean(op, holds(0), ps));
                    lane.set_pred(o.v.get("pq"), boolean(op, holds(1), ps));
                }
            }),
            "HSET2" if [v.get("swz_a"), v.get("swz_b")].contains(&1) => return self.unimplemented(self.text()),
            "HSET2" => self.each(|lane, o| {
                let value = super::ops::hset2(o.v, o.half_a(lane), o.half_b(lane), o.pred_src(lane, "ps"));
                lane.set_reg(o.v.get("rd"), value)
            }),
            "HMNMX2" => {
                if (v.flag("bf16") && v.flag("ftz")) || v.flag("f32") {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let (a, b) = (o.half_a(lane), o.half_b(lane));
                    let (min, ftz) = (o.pred_src(lane, "ps"), o.v.flag("ftz"));
                    // .NAN: a NaN operand makes the result the canonical NaN (PTX's min.NaN/max.NaN).
                    let bf16 = o.v.flag("bf16");
                    let pick = |x: u16, y: u16| {
                        let infinity = if bf16 { 0x7f80 } else { 0x7c00 };
                        let nan = |h: u16| h & 0x7fff > infinity;
                        if o.v.flag("nan") && (nan(x) || nan(y)) {
                            float::CANONICAL_NAN16
                        } else {
                            float::min_max16(x, y, min, ftz, bf16)
                        }
                    };
                    let (low, high) = (pick(a[0], b[0]), pick(a[1], b[1]));
                    lane.set_reg(o.v.get("rd"), u32::from(high) << 16 | u32::from(low))
                })
            }
            "I2I" => self.each(|lane, o| {
                let value = o.reg(lane, "rb") as i32;
                let (low, high) = match o.v.get("dst") {
                    0 => (0, 0xff),
                    1 => (-0x80, 0x7f),
                    2 => (0, 0xffff),
                    _ => (-0x8000, 0x7fff),
                };
                lane.set_reg(o.v.get("rd"), value.clamp(low, high) as u32)
            }),
            "F2FP" => {
                // Kinds: 0 PACK_AB (FP16), 2 BF16.PACK_AB, 3 RELU.BF16.PACK_AB (negative results +0; NaN the
                // canonical NaN, as an H200 gives it).
                if v.flag("merge_c") || v.get("kind") & !3 != 0 || v.get("kind") == 1 {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let round = float::rounding(o.v.get("rnd"));
                    let half = |bits: u32| match o.v.get("kind") {
                        0 => float::float_to_float(u64::from(bits), 2, 1, round, false) as u16,
                        kind => {
                            let value = float::f32_to_bf16(bits, round);
                            if kind == 3 && value & 0x8000 != 0 { 0 } else { value }
                        }
                    };
                    let (a, b) = (o.reg(lane, "ra"), o.reg(lane, "rb"));
                    lane.set_reg(o.v.get("rd"), u32::from(half(a)) << 16 | u32::from(half(b)))
                })
            }
            // Memory.
            "LDG" | "LD" => self.global_load()?,
            "TEX" | "TLD" | "TLD4" | "TXD" | "TXQ" => {
                self.through_unit(crate::sass::texture::sm86, super::texture::run_warp)?
            }
            "SULD" | "SUST" | "SURED" | "SUATOM" => {
                self.through_unit(crate::sass::surface::sm86, super::surface::run_warp)?
            }
            "STG" | "ST" => self.global_store()?,
            "LDS" | "LDL" => self.local_load()?,
            "STS" | "STL" => self.local_store()?,
            "LDC" => {
                if v.get("mode") != 0 {
                    return self.unimplemented("LDC with an indexed bank (.IL/.IS/.ISL)");
                }
                if v.get("size") > 5 {
                    return self.unimplemented("LDC of 128 bits");
                }
                self.each(|lane, o| constant_load(lane, o.cbufs, o.v, o.reg(lane, "ra")))
            }
            "ULDC" => {
                let (urd, bank, offset) = (v.get("urd"), v.get("cb_bank"), v.signed("offset") as u64);
                let warp = &mut *self.step.warp;
                let low = self.step.cbufs.read_u32(bank, offset);
                warp.set_ureg(urd, low);
                if v.get("size") == 5 {
                    warp.set_ureg(urd + 1, self.step.cbufs.read_u32(bank, offset.saturating_add(4)));
                }
                self.advance_all();
            }
            "ATOMG" | "ATOM" | "RED" | "ATOMS" => self.atomic()?,
            "QSPC" => {
                // Which window a generic address falls in: 0 global, 2 local, 4 shared (bit 0 is .E).
                let space = match v.get("space") >> 1 {
                    0 => "global",
                    1 => "local",
                    2 => "shared",
                    _ => return self.unimplemented(self.text()),
                };
                self.each(|lane, o| {
                    let address = lane.reg64(o.v.get("ra")).wrapping_add(o.v.signed("offset") as u64);
                    lane.set_pred(o.v.get("pd"), Memories::window(address).0 == space);
                    lane.set_reg(o.v.get("rd"), 0);
                })
            }
            // Cache controls and performance monitor triggers change nothing a program can read.
            "MEMBAR" | "ERRBAR" | "CCTL" | "CCTLL" | "CCTLT" | "PMTRIG" | "DEPBAR" | "NOP" | "NANOSLEEP"
            | "LDGDEPBAR" | "YIELD" => self.advance_all(),
            // Control flow.
            "BRA" => {
                let target = self.target(v.signed("offset") * 4)?;
                match (v.get("mode"), v.flag("ur_valid")) {
                    (0, false) => self.branch(|lane, o| o.pred_src(lane, "ps").then_some(target)),
                    // .CONV (.DIV): taken when every lane of the mask (a uniform register) executes it (when
                    // some does not). Either way the program computes the same; the branch picks the fast path.
                    (mode @ (2 | 3), true) => {
                        let mask = self.step.warp.ureg(v.get("ur")) ^ if v.flag("ur_not") { u32::MAX } else { 0 };
                        let converged = mask & !self.active == 0;
                        let taken = converged == (mode == 3);
                        self.branch(|lane, o| (taken && o.pred_src(lane, "ps")).then_some(target));
                    }
                    _ => return self.unimplemented(self.text()),
                }
            }
            // BRXU's .U says the target is the same in every lane, which a uniform register's is; what .DIV and
            // .CONV would do to an indirect branch no source says.
            "BRX" | "BRXU" if v.has("mode") && v.get("mode") > 1 => return self.unimplemented(self.text()),
            "BRX" | "BRXU" => {
                let base = (self.pc * INSTRUCTION_BYTES + INSTRUCTION_BYTES) as i64 + v.signed("offset") * 4;
                self.indirect_branch(base)?
            }
            "CALL" if v.encoding.form().starts_with("abs") => {
                return self.unimplemented(format!("{} (a call into code outside the program)", self.text()));
            }
            // The callee returns to the address the caller put in a register for its RET: CALL only jumps.
            "CALL" if !v.has("ra") => {
                let target = self.target(v.signed("offset") * 4)?;
                self.branch(|lane, o| o.pred_src(lane, "ps").then_some(target));
            }
            "RET" if v.flag("abs") || v.flag("uniform") => return self.unimplemented(self.text()),
            // Through a register holding an address relative to the code section (ptxas writes it with MOVs): the
            // encoded displacement takes this instruction back to the section's start.
            "CALL" | "RET" => {
                let base = (self.pc * INSTRUCTION_BYTES + INSTRUCTION_BYTES) as i64 + v.signed("offset") * 4;
                self.indirect_branch(base)?
            }
            "EXIT" => {
                for i in lanes(self.active) {
                    let ps = Operands { v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs }
                        .pred_src(&self.step.warp.lanes[i], "ps");
                    let lane = &mut self.step.warp.lanes[i];
                    if ps {
                        lane.status = LaneStatus::Exited;
                    } else {
                        lane.pc += 1;
                    }
                }
                self.release_convergence();
            }
            "BPT" => {
                if self.active != 0 {
                    return Err(ExecError::Trap { isa: Isa::Sm86, what: self.text(), offset: v.offset });
                }
            }
            "BSSY" => {
                self.step.warp.convergence[v.get("bar") as usize] = self.active;
                self.advance_all();
            }
            "BSYNC" => self.converge(v.get("bar") as u8),
            "WARPSYNC" => {
                // Every lane named in the mask meets here; the mask is the immediate or a register of the first
                // active lane (it is warp-uniform by the instruction's rules).
                let mask = match lanes(self.active).next() {
                    Some(first) if !v.has("imm32") => self.step.warp.lanes[first].reg(v.get("rb")),
                    _ => v.get("imm32") as u32,
                };
                self.step.warp.convergence[WARPSYNC_BARRIER as usize] = mask;
                self.converge(WARPSYNC_BARRIER);
            }
            "BREAK" => {
                let bar = v.get("bar") as usize;
                self.step.warp.convergence[bar] &= !self.active;
                self.advance_all();
                self.release_convergence();
            }
            "BMOV" => {
                let bar = v.get("bar") as usize;
                if bar >= 16 {
                    return self.unimplemented(format!("BMOV of barrier register {bar}"));
                }
                let first = lanes(self.active).next();
                if v.encoding.form() == "to_bar" {
                    if let Some(first) = first {
                        self.step.warp.convergence[bar] = self.step.warp.lanes[first].reg(v.get("rb"));
                    }
                } else {
                    let value = self.step.warp.convergence[bar];
                    for i in lanes(self.active) {
                        self.step.warp.lanes[i].set_reg(v.get("rd"), value);
                    }
                    if v.flag("clear") {
                        self.step.warp.convergence[bar] = 0;
                    }
                }
                self.advance_all();
                // Lanes parked at the barrier wait for whom the register now names.
                self.release_convergence();
            }
            // Barriers, votes, shuffles.
            "BAR" => self.barrier()?,
            "B2R" => {
                if v.get("mode") != 1 {
                    return self.unimplemented(self.text());
                }
                // The result of the lane's last barrier reduction: the count, or the AND/OR as 0 or 1.
                self.each(|lane, o| {
                    lane.set_reg(o.v.get("rd"), lane.barrier_result);
                    lane.set_pred(o.v.get("pd"), lane.barrier_result != 0);
                })
            }
            "VOTE" | "VOTEU" => self.vote(),
            "SHFL" => self.shuffle(),
            "MOVM" if v.get("shape") != 0 => return self.unimplemented(self.text()),
            "MOVM" => self.transpose_matrix(),
            "REDUX" => self.redux()?,
            "DMMA" => self.dmma()?,
            "LDSM" => self.load_matrices()?,
            "IMMA" | "BMMA" | "HMMA" => self.matrix_product()?,
            "LDGSTS" => self.copy_global_to_shared()?,
            "MATCH" => self.match_values(),
            "R2UR" => {
                if let Some(first) = lanes(self.active).next() {
                    let value = self.step.warp.lanes[first].reg(v.get("ra"));
                    self.step.warp.set_ureg(v.get("urd"), value);
                }
                self.advance_all();
            }
            // Uniform datapath.
            "UMOV" => {
                self.step.warp.set_ureg(v.get("urd"), v.get("imm32") as u32);
                self.advance_all();
            }
            opcode if crate::sass::sm86::is_uniform(opcode) => self.uniform()?,
            opcode => {
                let text = self.text();
                return Err(ExecError::UnknownOpcode { isa: Isa::Sm86, opcode, text, offset: v.offset });
            }
        }
        Ok(())
    }

    fn instruction(&self) -> crate::sass::Instruction<crate::sass::sm86::Inst> {
        crate::sass::Instruction {
            offset: self.v.offset,
            inst: crate::sass::sm86::decode(self.v.word).expect("the view was decoded"),
            control: Control::default(),
        }
    }

    /// Moves each active lane to the target `f` gives it, or to the next instruction.
    fn branch(&mut self, mut f: impl FnMut(&mut Lane, &Operands) -> Option<usize>) {
        let operands = Operands { v: self.v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs };
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            lane.pc = f(lane, &operands).unwrap_or(lane.pc + 1);
        }
    }

    /// BRX, BRXU and RET: to `base + ra` (bytes), each lane its own target (BRXU: `base + ur`, the same in all).
    fn indirect_branch(&mut self, base: i64) -> Result {
        let operands = Operands { v: self.v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs };
        let uniform = self.v.has("ur").then(|| self.step.warp.ureg(self.v.get("ur")));
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            if !operands.pred_src(lane, "ps") {
                lane.pc += 1;
                continue;
            }
            let offset = uniform.unwrap_or_else(|| lane.reg(self.v.get("ra")));
            let target = base + i64::from(offset as i32);
            if target < 0
                || target % INSTRUCTION_BYTES as i64 != 0
                || target as usize / INSTRUCTION_BYTES >= self.code_len
            {
                return Err(ExecError::PcOutOfCode { isa: Isa::Sm86, target, offset: self.v.offset });
            }
            lane.pc = target as usize / INSTRUCTION_BYTES;
        }
        Ok(())
    }

    /// Parks the active lanes at convergence barrier `bar` (lanes the barrier does not wait for pass).
    fn converge(&mut self, bar: u8) {
        let waited = self.step.warp.convergence[bar as usize];
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            if waited >> i & 1 != 0 {
                lane.status = LaneStatus::Converging(bar);
            } else {
                lane.pc += 1;
            }
        }
        self.step.warp.try_converge(bar);
    }

    /// Lanes that exit or break may be what a convergence barrier waits for.
    fn release_convergence(&mut self) {
        for bar in 0..=WARPSYNC_BARRIER {
            if self.step.warp.lanes.iter().any(|lane| lane.status == LaneStatus::Converging(bar)) {
                self.step.warp.try_converge(bar);
            }
        }
    }

    fn special_register(&mut self) -> Result {
        let v = self.v;
        let sr = v.get("sr");
        let pair = v.encoding.opcode == "CS2R" && v.flag("bits64");
        let (launch, ctaid, clock, warp_index) =
            (self.step.launch, self.step.ctaid, self.step.warp.clock, self.step.warp_index);
        let value_of = |lane: &Lane, index: usize| -> Option<u64> {
            let lane_id = index as u32;
            Some(match sr {
                0 => u64::from(lane_id),
                33..=35 => u64::from(lane.tid[sr as usize - 33]),
                32 => u64::from(super::ops::packed_thread_id(lane.tid)),
                37..=39 => u64::from(ctaid[sr as usize - 37]),
                56 => 1u64 << lane_id,
                57 => (1u64 << lane_id) - 1,
                58 => (2u64 << lane_id) - 1,
                59 => u64::from(!((2u32 << lane_id).wrapping_sub(1))) & 0xffff_ffff,
                60 => u64::from(!((1u32 << lane_id) - 1)),
                // Where the hardware reports on itself (virtual SM, CTA slot, SM configuration), the interpreter is
                // one SM running one CTA: zeros.
                2 | 3 | 67 | 68 => 0,
                // Shared memory size of the CTA.
                50 => u64::from(launch.shared_bytes),
                // The clocks count this warp's instructions: deterministic, and increasing as real ones do.
                1 | 80 | 82 => clock,
                81 | 83 => clock >> 32,
                // Performance counters count nothing.
                100..=115 => 0,
                255 => 0,
                _ => return None,
            })
        };
        let _ = warp_index;
        for i in lanes(self.active) {
            let lane = &self.step.warp.lanes[i];
            let Some(value) = value_of(lane, i) else {
                return self.unimplemented(format!("special register {sr} ({})", self.text()));
            };
            let lane = &mut self.step.warp.lanes[i];
            if pair {
                lane.set_reg64(v.get("rd"), value);
            } else {
                lane.set_reg(v.get("rd"), value as u32);
            }
            lane.pc += 1;
        }
        Ok(())
    }

    fn global_address(o: &Operands, lane: &Lane, warp_ur: &[u32; 64]) -> u64 {
        let v = o.v;
        let wide = crate::sass::sm86::wide_global_address(v);
        let base = if wide { lane.reg64(v.get("ra")) } else { u64::from(lane.reg(v.get("ra"))) };
        let uniform = if v.has("no_ur") && !v.flag("no_ur") {
            let ur = v.get("ur");
            let low = u64::from(if ur >= 63 { 0 } else { warp_ur[ur as usize] });
            let high = u64::from(if ur + 1 >= 63 || !wide { 0 } else { warp_ur[ur as usize + 1] });
            low | high << 32
        } else {
            0
        };
        base.wrapping_add(uniform).wrapping_add(v.signed("offset") as u64)
    }

    fn global_load(&mut self) -> Result {
        let size = self.v.get("size");
        let ur = self.step.warp.ur;
        self.try_each(|lane, o, memories| {
            let predicate = 7 ^ o.v.get("ps_xor7");
            let enabled = lane.pred(predicate) != o.v.flag("ps_not");
            let address = Self::global_address(o, lane, &ur);
            let bytes = access_bytes(size);
            let value = match (enabled, o.v.encoding.opcode) {
                (false, _) => 0,
                (true, "LD") => memories.generic_load(&lane.local, address, bytes)?,
                _ => memories.global_load(address, bytes)?,
            };
            write_loaded(lane, o.v.get("rd"), size, value);
            Ok(())
        })
    }

    fn global_store(&mut self) -> Result {
        let size = self.v.get("size");
        let ur = self.step.warp.ur;
        self.try_each(|lane, o, memories| {
            let address = Self::global_address(o, lane, &ur);
            let value = stored_value(lane, o.v.get("rb"), size);
            if o.v.encoding.opcode == "ST" {
                memories.generic_store(&mut lane.local, address, access_bytes(size), value)
            } else {
                memories.global_store(address, access_bytes(size), value)
            }
        })
    }

    fn local_address(o: &Operands, lane: &Lane) -> u64 {
        let scale = match o.v.get("scale") {
            1 => 4,
            2 => 8,
            3 => 16,
            _ => 1,
        };
        let base = u64::from(lane.reg(o.v.get("ra")));
        let base = if o.v.get("ra") == 255 { 0 } else { base * scale };
        base.wrapping_add(o.v.signed("offset") as u64) & 0xffff_ffff
    }

    fn local_load(&mut self) -> Result {
        let size = self.v.get("size");
        let shared = self.v.encoding.opcode == "LDS";
        self.try_each(|lane, o, memories| {
            let address = Self::local_address(o, lane);
            let bytes = access_bytes(size);
            let value = if shared {
                memories.access("shared", "load", address, bytes)?;
                load(memories.shared, address, bytes)
            } else {
                memories.check_local(&lane.local, "load", address, bytes)?;
                load(&lane.local, address, bytes)
            };
            write_loaded(lane, o.v.get("rd"), size, value.unwrap_or(0));
            Ok(())
        })
    }

    fn local_store(&mut self) -> Result {
        let size = self.v.get("size");
        let shared = self.v.encoding.opcode == "STS";
        self.try_each(|lane, o, memories| {
            let address = Self::local_address(o, lane);
            let bytes = access_bytes(size);
            let value = stored_value(lane, o.v.get("rb"), size);
            if shared {
                memories.access("shared", "store", address, bytes)?;
                store(memories.shared, address, bytes, value);
            } else {
                memories.check_local(&lane.local, "store", address, bytes)?;
                store(&mut lane.local, address, bytes, value);
            }
            Ok(())
        })
    }

    fn atomic(&mut self) -> Result {
        let v = self.v;
        let opcode = v.encoding.opcode;
        let cas = v.encoding.form() == "CAS";
        let ty = v.get("ty");
        let op = if cas { u64::MAX } else { v.get("op") };
        // Types: 0 U32, 1 S32, 2 U64, 3 F32.FTZ.RN, 4 F16x2.RN, 5 S64, 6 F64.RN (ATOMS: 0 U32, 1 S32, 2 U64).
        let bytes = if matches!(ty, 2 | 5 | 6) { 8 } else { 4 };
        let half_pair_add = ty == 4 && op == 0 && !cas;
        if (opcode == "ATOMS" && ty > 2)
            || (ty == 4 && !half_pair_add)
            || ty > 6
            || (!cas && op > 8)
            || (opcode == "RED" && op > 7)
        {
            return self.unimplemented(self.text());
        }
        let shared = opcode == "ATOMS";
        let ur = self.step.warp.ur;
        self.try_each(|lane, o, memories| {
            let address = if shared {
                Self::local_address(o, lane)
            } else {
                let wide = o.v.flag("a64") || o.v.encoding.opcode == "ATOMG" || o.v.flag("e");
                let base = if wide { lane.reg64(o.v.get("ra")) } else { u64::from(lane.reg(o.v.get("ra"))) };
                let uniform = if o.v.has("no_ur") && !o.v.flag("no_ur") {
                    let index = o.v.get("ur");
                    u64::from(if index >= 63 { 0 } else { ur[index as usize] })
                } else {
                    0
                };
                base.wrapping_add(uniform).wrapping_add(o.v.signed("offset") as u64)
            };
            let old = if shared {
                memories.access("shared", "atomic", address, bytes)?;
                load(memories.shared, address, bytes).unwrap_or(0) as u64
            } else {
                memories.global_load(address, bytes)? as u64
            };
            let operand =
                |field: &str| if bytes == 8 { lane.reg64(o.v.get(field)) } else { u64::from(lane.reg(o.v.get(field))) };
            let b = operand("rb");
            let new = if cas { if old == b { operand("rc") } else { old } } else { atomic_op(op, ty, old, b) };
            if shared {
                store(memories.shared, address, bytes, u128::from(new));
            } else {
                memories.global_store(address, bytes, u128::from(new))?;
            }
            if o.v.flag("cast") {
                // CAST (compare and store) answers whether it stored, not the old value (in a pair for 64 bits).
                if bytes == 8 {
                    lane.set_reg64(o.v.get("rd"), u64::from(old == b));
                } else {
                    lane.set_reg(o.v.get("rd"), u32::from(old == b));
                }
            } else if o.v.has("rd") {
                if bytes == 8 {
                    lane.set_reg64(o.v.get("rd"), old);
                } else {
                    lane.set_reg(o.v.get("rd"), old as u32);
                }
            }
            Ok(())
        })
    }

    /// BAR.SYNC parks the active lanes until the barrier's thread count (all the CTA's threads when 0) has
    /// arrived; BAR.ARV counts the lanes as arrived without parking them.
    fn barrier(&mut self) -> Result {
        let v = self.v;
        let mode = v.get("mode");
        if mode > 2 || (mode == 2 && v.get("red") > 2) {
            return self.unimplemented(self.text());
        }
        // The barrier number is an immediate or a (warp-uniform) register.
        let id = match lanes(self.active).next() {
            Some(first) if !v.has("id") => self.step.warp.lanes[first].reg(v.get("rb")) as usize & 15,
            _ => v.get("id") as usize,
        };
        let barrier = &mut self.step.barriers[id];
        barrier.count = v.get("count") as u32;
        if mode == 1 {
            barrier.arrived += self.active.count_ones();
            self.advance_all();
            return Ok(());
        }
        let reduction = (mode == 2).then(|| v.get("red") as u8);
        let operands = Operands { v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs };
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            lane.status = LaneStatus::AtBarrier(id as u8);
            if let Some(op) = reduction {
                let predicate = operands.pred_src(lane, "ps");
                let barrier = &mut self.step.barriers[id];
                barrier.reduction = Some(op);
                barrier.true_count += u32::from(predicate);
                barrier.participants += 1;
            }
        }
        Ok(())
    }

    fn vote(&mut self) {
        let v = self.v;
        let operands = Operands { v, ur: self.step.warp.ur, up: self.step.warp.up, cbufs: self.step.cbufs };
        let ballot = lanes(self.active)
            .filter(|&i| operands.pred_src(&self.step.warp.lanes[i], "ps"))
            .fold(0u32, |mask, i| mask | 1 << i);
        let result = match v.get("mode") {
            0 => ballot == self.active,
            1 => ballot != 0,
            _ => ballot == self.active || ballot == 0,
        };
        if v.encoding.opcode == "VOTEU" {
            let warp = &mut *self.step.warp;
            warp.set_ureg(v.get("urd"), ballot);
            warp.set_upred(v.get("upd"), result);
            self.advance_all();
        } else {
            self.each(|lane, o| {
                lane.set_reg(o.v.get("rd"), ballot);
                lane.set_pred(o.v.get("pd"), result);
            });
        }
    }

    fn shuffle(&mut self) {
        let v = self.v;
        let warp = &*self.step.warp;
        let values: Vec<u32> = warp.lanes.iter().map(|lane| lane.reg(v.get("ra"))).collect();
        self.each(|lane, o| {
            let index = lane_index(lane);
            let b = if o.v.has("lane") { o.v.get("lane") as u32 } else { lane.reg(o.v.get("rb")) } & 31;
            let c = if o.v.has("clamp") { o.v.get("clamp") as u32 } else { lane.reg(o.v.get("rc")) };
            let (source, valid) = shuffle_source(index, b, c, o.v.get("mode"));
            lane.set_reg(o.v.get("rd"), values.get(source).copied().unwrap_or(0));
            lane.set_pred(o.v.get("pd"), valid);
        });
    }

    /// MOVM.16.MT88: the 8x8 matrix of 16-bit elements whose row i / 4, columns 2 (i % 4) and 2 (i % 4) + 1 lane i
    /// holds, transposed (movmatrix's layout; an H200 agrees: `kernels/movmatrix.ptx`).
    fn transpose_matrix(&mut self) {
        let v = self.v;
        let values: Vec<u32> = self.step.warp.lanes.iter().map(|lane| lane.reg(v.get("ra"))).collect();
        self.each(|lane, o| {
            let index = lane_index(lane) as usize;
            let (row, column) = (index / 4, 2 * (index % 4));
            // Element (r, c) is half c % 2 of lane 4 r + c / 2.
            let element =
                |r: usize, c: usize| values.get(4 * r + c / 2).map_or(0, |word| word >> (16 * (c % 2)) & 0xffff);
            lane.set_reg(o.v.get("rd"), element(column, row) | element(column + 1, row) << 16);
        });
    }

    fn redux(&mut self) -> Result {
        let v = self.v;
        let op = v.get("op");
        if op > 5 {
            return self.unimplemented(self.text());
        }
        let signed = v.flag("signed");
        let values: Vec<u32> = lanes(self.active).map(|i| self.step.warp.lanes[i].reg(v.get("ra"))).collect();
        let result = values.iter().copied().reduce(|x, y| match op {
            0 => x & y,
            1 => x | y,
            2 => x ^ y,
            3 => x.wrapping_add(y),
            4 if signed => (x as i32).min(y as i32) as u32,
            4 => x.min(y),
            _ if signed => (x as i32).max(y as i32) as u32,
            _ => x.max(y),
        });
        self.step.warp.set_ureg(v.get("urd"), result.unwrap_or(0));
        self.advance_all();
        Ok(())
    }

    /// LDGSTS (cp.async): `size` bytes from global [ra.64 + ur + offset_g] to shared [rd + offset_s], done at once
    /// (LDGDEPBAR and DEPBAR then have nothing to wait for). A false predicate copies nothing, or with .ZFILL stores
    /// zeros (cp.async's src-size 0). With .ZFILL the global address's bits below the size count the trailing bytes
    /// to zero instead of copy: ptxas adds (size - src-size) mod size to the source address for cp.async's
    /// src-size operand.
    fn copy_global_to_shared(&mut self) -> Result {
        let size = self.v.get("size");
        let ur = self.step.warp.ur;
        self.try_each(|lane, o, memories| {
            let v = o.v;
            let bytes = access_bytes(size);
            let uniform = if v.flag("no_ur") {
                0
            } else {
                let index = v.get("ur") as usize;
                let word = |i: usize| u64::from(if i >= 63 { 0 } else { ur[i] });
                word(index) | word(index + 1) << 32
            };
            let global = lane.reg64(v.get("ra")).wrapping_add(uniform).wrapping_add(v.signed("offset_g") as u64);
            let base = if v.get("rd") == 255 { 0 } else { u64::from(lane.reg(v.get("rd"))) };
            let shared = base.wrapping_add(v.signed("offset_s") as u64) & 0xffff_ffff;
            let value = match (o.pred_src(lane, "ps"), v.flag("zfill")) {
                (true, true) => {
                    let zeros = (global % bytes as u64) as usize;
                    let copied = memories.global_load(global - zeros as u64, bytes)?;
                    copied & (u128::MAX >> (128 - 8 * (bytes - zeros)))
                }
                (true, false) => memories.global_load(global, bytes)?,
                (false, true) => 0,
                (false, false) => return Ok(()),
            };
            memories.access("shared", "store", shared, bytes)?;
            store(memories.shared, shared, bytes, value);
            Ok(())
        })
    }

    /// DMMA.884 (`float::dmma_884`): a, b and c from register pairs ra, rb and rc, rc + 2 with their modifiers,
    /// the results into rd, rd + 2. mma.sync is the whole warp's.
    fn dmma(&mut self) -> Result {
        if self.active != u32::MAX {
            return self.unimplemented("DMMA with lanes of the warp inactive (mma.sync needs all 32)");
        }
        let v = self.v;
        let lanes = &self.step.warp.lanes;
        let operand = |lane: usize, register: u64, neg: &str, abs: &str| {
            let raw = lanes[lane].reg64(register);
            let magnitude = if v.flag(abs) { raw & !(1 << 63) } else { raw };
            float::Operand64 { value: if v.flag(neg) { magnitude ^ 1 << 63 } else { magnitude }, raw }
        };
        let a = std::array::from_fn(|l| operand(l, v.get("ra"), "neg_a", "abs_a"));
        let b = std::array::from_fn(|l| operand(l, v.get("rb"), "neg_b", "abs_b"));
        let c = std::array::from_fn(|l| [0, 2].map(|i| operand(l, v.get("rc") + i, "neg_c", "abs_c")));
        let d = float::dmma_884(&a, &b, &c, float::rounding(v.get("rnd")));
        self.each(|lane, o| {
            let index = (lane.linear_id % 32) as usize;
            lane.set_reg64(o.v.get("rd"), d[index][0]);
            lane.set_reg64(o.v.get("rd") + 2, d[index][1]);
        });
        Ok(())
    }

    /// The `count` registers from `first` of every lane of the warp (mma.sync reads them all).
    fn warp_registers(&self, first: u64, count: usize) -> mma::WarpRegisters {
        std::array::from_fn(|lane| {
            std::array::from_fn(|i| if i < count { self.step.warp.lanes[lane].reg(first + i as u64) } else { 0 })
        })
    }

    /// Writes `count` registers from `first` of every lane and moves the warp on.
    fn set_warp_registers(&mut self, first: u64, count: usize, values: &mma::WarpRegisters) {
        self.each(|lane, _| {
            let held = &values[(lane.linear_id % 32) as usize];
            for (i, &value) in held.iter().enumerate().take(count) {
                lane.set_reg(first + i as u64, value);
            }
        });
    }

    fn require_whole_warp(&self, what: &str) -> Result {
        if self.active != u32::MAX {
            return self.unimplemented(format!("{what} with lanes of the warp inactive (the whole warp's)"));
        }
        Ok(())
    }

    /// LDSM.16.M88 / .MT88 (ldmatrix .m8n8 .b16): 1, 2 or 4 matrices of 8 rows of 16 bytes from shared memory,
    /// row r of matrix j at the address lane 8j + r gives; every lane gets one word of each (`mma::matrix_word`).
    fn load_matrices(&mut self) -> Result {
        self.require_whole_warp("LDSM")?;
        let v = self.v;
        if v.get("shape") != 0 || v.get("count") > 2 {
            return self.unimplemented(format!("LDSM shape {} count {}", v.get("shape"), v.get("count")));
        }
        let count = 1 << v.get("count");
        let mut rows = vec![[0u8; 16]; 8 * count];
        let memories =
            Memories { isa: Isa::Sm86, shared: self.step.shared, global: self.step.memory, offset: v.offset };
        for (lane, row) in rows.iter_mut().enumerate() {
            let base = if v.get("ra") == 255 { 0 } else { u64::from(self.step.warp.lanes[lane].reg(v.get("ra"))) };
            let address = base.wrapping_add(v.signed("offset") as u64) & 0xffff_ffff;
            memories.access("shared", "load", address, 16)?;
            let start = address as usize;
            row.copy_from_slice(&memories.shared[start..start + 16]);
        }
        let transpose = v.flag("trans");
        let words: mma::WarpRegisters = std::array::from_fn(|lane| {
            std::array::from_fn(|j| if j < count { mma::matrix_word(&rows, j, lane, transpose) } else { 0 })
        });
        self.set_warp_registers(v.get("rd"), count, &words);
        Ok(())
    }

    /// IMMA, HMMA and BMMA (`mma::Product`): the whole warp's registers in, D's out.
    fn matrix_product(&mut self) -> Result {
        self.require_whole_warp(self.v.encoding.opcode)?;
        let v = self.v;
        let product = match mma::Product::of(v) {
            Ok(product) => product,
            Err(what) => return self.unimplemented(what),
        };
        let Some(shape) = product.shape() else { unreachable!("DMMA runs through dmma") };
        let a = shape.matrix_a(&self.warp_registers(v.get("ra"), shape.a_registers()));
        let b = shape.matrix_b(&self.warp_registers(v.get("rb"), shape.b_registers()));
        let c32 = || shape.matrix_c(&self.warp_registers(v.get("rc"), shape.c_registers()));
        let (d, registers) = match product {
            mma::Product::Integer { signed, saturate, .. } => {
                let d = mma::integer_mma(shape, &a, &b, &c32(), signed, saturate);
                (shape.registers_of_d(&d), shape.c_registers())
            }
            mma::Product::Bit { and, .. } => {
                (shape.registers_of_d(&mma::bit_mma(shape, &a, &b, &c32(), and)), shape.c_registers())
            }
            mma::Product::Float { inputs, f32_accumulator: true, .. } => {
                let d = mma::float_mma(shape, &a, &b, &c32(), inputs, mma::F32);
                (shape.registers_of_d(&d), shape.c_registers())
            }
            mma::Product::Float { inputs, .. } => {
                let c = shape.matrix_c16(&self.warp_registers(v.get("rc"), shape.c16_registers()));
                let d = mma::float_mma(shape, &a, &b, &c, inputs, mma::F16);
                (shape.registers_of_d16(&d), shape.c16_registers())
            }
            mma::Product::Double => unreachable!("DMMA runs through dmma"),
        };
        self.set_warp_registers(v.get("rd"), registers, &d);
        Ok(())
    }

    fn match_values(&mut self) {
        let v = self.v;
        let wide = v.flag("wide");
        let value_of = |lane: &Lane| if wide { lane.reg64(v.get("ra")) } else { u64::from(lane.reg(v.get("ra"))) };
        let values: Vec<(usize, u64)> = lanes(self.active).map(|i| (i, value_of(&self.step.warp.lanes[i]))).collect();
        let all_equal = values.windows(2).all(|pair| pair[0].1 == pair[1].1);
        let active = self.active;
        self.each(|lane, o| {
            let mine = value_of(lane);
            let same = values.iter().filter(|(_, value)| *value == mine).fold(0u32, |mask, (i, _)| mask | 1 << i);
            if o.v.flag("any") {
                lane.set_reg(o.v.get("rd"), same);
            } else {
                lane.set_reg(o.v.get("rd"), if all_equal { active } else { 0 });
                lane.set_pred(o.v.get("pd"), all_equal);
            }
        });
    }

    /// An instruction of a unit's (textures, surfaces): `read` gives its meaning, `run` carries it out for the
    /// warp; what either refuses stops the launch naming the instruction and why.
    fn through_unit<T>(
        &mut self,
        read: fn(&View) -> std::result::Result<T, String>,
        run: fn(&T, &mut super::Step, u32) -> std::result::Result<(), String>,
    ) -> Result {
        let outcome = read(self.v).and_then(|t| run(&t, self.step, self.active));
        outcome.or_else(|why| self.unimplemented(format!("{} ({why})", self.text())))
    }

    fn uniform(&mut self) -> Result {
        let v = self.v;
        let (ctaid, shared_bytes) = (self.step.ctaid, self.step.launch.shared_bytes);
        let warp = &mut *self.step.warp;
        let ur = |field: &str| warp.ureg(v.get(field));
        let upred = |field: &str| warp.upred(v.get(field)) != v.flag(&format!("{field}_not"));
        let b = if v.has("imm32") { v.get("imm32") as u32 } else { ur("urb") };
        match v.encoding.opcode {
            "UIADD3" => {
                let carry_in = if v.flag("x") { u64::from(upred("ups")) + u64::from(upred("upx")) } else { 0 };
                let terms = [(ur("ura"), v.flag("neg_a")), (b, v.flag("neg_b")), (ur("urc"), v.flag("neg_c"))];
                let (sum, carry, second_carry) = add3(terms, v.flag("x"), carry_in);
                warp.set_ureg(v.get("urd"), sum);
                warp.set_upred(v.get("upd"), carry);
                warp.set_upred(v.get("upq"), second_carry);
            }
            "ULOP3" => {
                let result = lop3(v.get("lut") as u8, ur("ura"), b, ur("urc"));
                warp.set_ureg(v.get("urd"), result);
            }
            "UIMAD" => {
                if v.flag("x") || v.flag("neg_c") {
                    return self.unimplemented(self.text());
                }
                // imm_c form: the second factor is urc's slot... the table names the 71:64 slot `urc`.
                let result = ur("ura").wrapping_mul(ur("urc")).wrapping_add(b);
                warp.set_ureg(v.get("urd"), result);
            }
            "UPRMT" => warp.set_ureg(v.get("urd"), permute(ur("ura"), b, ur("urc"), 0)),
            "UBREV" => warp.set_ureg(v.get("urd"), b.reverse_bits()),
            "UP2UR" => {
                let predicates = (0..7).filter(|&i| warp.up >> i & 1 != 0).fold(0, |bits, i| bits | 1 << i);
                warp.set_ureg(v.get("urd"), predicates_into(ur("ura"), predicates, b, v.get("byte")))
            }
            "UR2UP" => {
                for (i, set) in predicates_from(ur("ura"), b, v.get("byte")) {
                    warp.set_upred(i, set);
                }
            }
            "UBMSK" => warp.set_ureg(v.get("urd"), bit_mask(ur("ura"), b, v.flag("wrap"))),
            "USGXT" => warp.set_ureg(v.get("urd"), extend_low_bits(ur("ura"), b, v.flag("wrap"), v.flag("signed"))),
            "UPOPC" => warp.set_ureg(v.get("urd"), (b ^ if v.flag("inv_b") { u32::MAX } else { 0 }).count_ones()),
            "UISETP" => {
                let low = v.flag("ex").then(|| upred("upx"));
                let (first, second) = integer_set_predicates(v, ur("ura"), b, low, upred("ups"));
                warp.set_upred(v.get("upd"), first);
                warp.set_upred(v.get("upq"), second);
            }
            "ULEA" => {
                let carry_in = v.flag("x") && upred("ups");
                let (sum, carry) = load_effective_address(v, ur("ura"), b, ur("urc"), carry_in);
                warp.set_ureg(v.get("urd"), sum);
                warp.set_upred(v.get("upd"), carry);
            }
            "UPLOP3" => {
                let (first, second) = predicate_lookup(v, upred("ups"), upred("upb"), upred("upc"));
                warp.set_upred(v.get("upd"), first);
                warp.set_upred(v.get("upq"), second);
            }
            "USEL" => {
                let value = if upred("ups") { ur("ura") } else { b };
                warp.set_ureg(v.get("urd"), value)
            }
            // The registers the same for every lane: the block's id, its shared memory size, SRZ.
            "S2UR" => match v.get("sr") {
                sr @ 37..=39 => warp.set_ureg(v.get("urd"), ctaid[sr as usize - 37]),
                50 => warp.set_ureg(v.get("urd"), shared_bytes),
                255 => warp.set_ureg(v.get("urd"), 0),
                _ => return self.unimplemented(self.text()),
            },
            "USHF" => {
                let result =
                    funnel_shift(ur("ura"), b, ur("urc"), v.get("ty"), v.flag("wrap"), v.flag("right"), v.flag("hi"));
                warp.set_ureg(v.get("urd"), result);
            }
            _ => {
                let value = ur("urb") ^ if v.flag("inv_b") { u32::MAX } else { 0 };
                warp.set_ureg(v.get("urd"), find_leading_one(value, v.flag("signed"), v.flag("sh")));
            }
        }
        self.advance_all();
        Ok(())
    }
}

/// A lane's index in its warp, from its thread ID (warps are consecutive runs of 32 linear thread IDs).
fn lane_index(lane: &Lane) -> u32 {
    lane.linear_id % WARP_SIZE as u32
}

/// Operand reading for one instruction: registers by field name, the 63:32 slot in all its forms.
pub(super) struct Operands<'o> {
    v: &'o View,
    ur: [u32; 64],
    up: u8,
    cbufs: &'o super::ConstantBuffers,
}

impl Operands<'_> {
    fn reg(&self, lane: &Lane, field: &str) -> u32 {
        lane.reg(self.v.get(field))
    }

    fn ureg(&self, field: &str) -> u32 {
        let index = self.v.get(field);
        if index >= 63 { 0 } else { self.ur[index as usize] }
    }

    fn pred_src(&self, lane: &Lane, field: &str) -> bool {
        let not = self.v.flag(&format!("{field}_not"));
        if !self.v.has(field) {
            return true;
        }
        lane.pred(self.v.get(field)) != not
    }

    /// The 63:32 slot: a register, a 32-bit immediate, a constant or a uniform register.
    fn wide_slot(&self, lane: &Lane) -> u32 {
        let v = self.v;
        if v.has("imm32") {
            v.get("imm32") as u32
        } else if v.has("cb_offset") {
            self.cbufs.read_u32(v.get("cb_bank"), v.get("cb_offset") * 4)
        } else if v.has("urb") {
            self.ureg("urb")
        } else {
            lane.reg(v.get("rb"))
        }
    }

    /// The 63:32 slot as a 64-bit source: a register pair, a constant pair, or an extended immediate.
    fn wide_slot64(&self, lane: &Lane, signed: bool) -> u64 {
        let v = self.v;
        if v.has("imm32") {
            let imm = v.get("imm32") as u32;
            if signed { imm as i32 as i64 as u64 } else { u64::from(imm) }
        } else if v.has("cb_offset") {
            let offset = v.get("cb_offset") * 4;
            u64::from(self.cbufs.read_u32(v.get("cb_bank"), offset))
                | u64::from(self.cbufs.read_u32(v.get("cb_bank"), offset + 4)) << 32
        } else if v.has("urb") {
            u64::from(self.ureg("urb")) | u64::from(self.ureg_at(v.get("urb") + 1)) << 32
        } else {
            lane.reg64(v.get("rb"))
        }
    }

    fn ureg_at(&self, index: u64) -> u32 {
        if index >= 63 { 0 } else { self.ur[index as usize] }
    }

    /// Whether the 63:32 slot is the third source (`_c` forms of three-source instructions). Two-source
    /// instructions (FADD, DADD) have `_c` forms too, whose 63:32 slot is simply their second source.
    fn c_form(&self) -> bool {
        self.v.encoding.form().ends_with("_c") && self.v.has("rc")
    }

    /// The second source of an integer or logic instruction.
    fn slot_b(&self, lane: &Lane) -> u32 {
        if self.c_form() { lane.reg(self.v.get("rc")) } else { self.wide_slot(lane) }
    }

    /// The third source.
    fn slot_c(&self, lane: &Lane) -> u32 {
        if self.c_form() { self.wide_slot(lane) } else { lane.reg(self.v.get("rc")) }
    }

    /// Whether the second and third sources are negated (for `_c` forms the slots swap roles).
    fn negated(&self, slot: char) -> bool {
        match (slot, self.c_form()) {
            ('b', false) | ('c', true) => self.v.flag("neg_b"),
            _ => self.v.flag("neg_c"),
        }
    }

    fn float_modifiers(&self, bits: u32, neg: &str, abs: &str) -> u32 {
        let bits = if self.v.flag(abs) { bits & 0x7fff_ffff } else { bits };
        if self.v.flag(neg) { bits ^ 0x8000_0000 } else { bits }
    }

    fn float_a(&self, lane: &Lane) -> u32 {
        self.float_modifiers(self.reg(lane, "ra"), "neg_a", "abs_a")
    }

    fn float_b(&self, lane: &Lane) -> u32 {
        if self.c_form() {
            self.float_modifiers(lane.reg(self.v.get("rc")), "neg_c", "abs_c")
        } else {
            self.float_modifiers(self.wide_slot(lane), "neg_b", "abs_b")
        }
    }

    fn float_c(&self, lane: &Lane) -> u32 {
        if self.c_form() {
            self.float_modifiers(self.wide_slot(lane), "neg_b", "abs_b")
        } else {
            self.float_modifiers(lane.reg(self.v.get("rc")), "neg_c", "abs_c")
        }
    }

    /// An FP16 pair source (low, high) after its swizzle (0 H1_H0, 2 H0_H0, 3 H1_H1) and modifiers.
    fn half_pair(&self, bits: u32, swizzle: &str, neg: &str, abs: &str) -> [u16; 2] {
        let (low, high) = (bits as u16, (bits >> 16) as u16);
        let pair = match self.v.get(swizzle) {
            2 => [low, low],
            3 => [high, high],
            _ => [low, high],
        };
        pair.map(|half| {
            let half = if self.v.flag(abs) { half & 0x7fff } else { half };
            if self.v.flag(neg) { half ^ 0x8000 } else { half }
        })
    }

    fn half_a(&self, lane: &Lane) -> [u16; 2] {
        self.half_pair(self.reg(lane, "ra"), "swz_a", "neg_a", "abs_a")
    }

    /// The second pair: the `rb` register, or the immediate pair.
    fn half_b(&self, lane: &Lane) -> [u16; 2] {
        if self.v.has("imm_lo") {
            [self.v.get("imm_lo") as u16, self.v.get("imm_hi") as u16]
        } else {
            self.half_pair(self.reg(lane, "rb"), "swz_b", "neg_b", "abs_b")
        }
    }

    fn half_c(&self, lane: &Lane) -> [u16; 2] {
        self.half_pair(self.reg(lane, "rc"), "swz_c", "neg_c", "abs_c")
    }

    fn mode(&self) -> Mode {
        Mode { round: float::rounding(self.v.get("rnd")), ftz: self.v.flag("ftz"), sat: self.v.flag("sat") }
    }

    fn float64_modifiers(&self, bits: u64, neg: &str, abs: &str) -> u64 {
        let bits = if self.v.flag(abs) { bits & !(1 << 63) } else { bits };
        if self.v.flag(neg) { bits ^ 1 << 63 } else { bits }
    }

    /// The 63:32 slot as an FP64 operand: a register or constant pair, or an immediate holding the high word.
    fn reg64_slot_b(&self, lane: &Lane) -> u64 {
        let v = self.v;
        if v.has("imm32") { v.get("imm32") << 32 } else { self.wide_slot64(lane, false) }
    }

    /// An FP64 source: its value after the modifiers, and the register bits before them.
    fn double_a(&self, lane: &Lane) -> u64 {
        self.float64_modifiers(lane.reg64(self.v.get("ra")), "neg_a", "abs_a")
    }

    fn double_b(&self, lane: &Lane) -> (u64, u64) {
        let raw = if self.c_form() { lane.reg64(self.v.get("rc")) } else { self.reg64_slot_b(lane) };
        let (neg, abs) = if self.c_form() { ("neg_c", "abs_c") } else { ("neg_b", "abs_b") };
        (self.float64_modifiers(raw, neg, abs), raw)
    }

    fn double_c(&self, lane: &Lane) -> (u64, u64) {
        let raw = if self.c_form() { self.reg64_slot_b(lane) } else { lane.reg64(self.v.get("rc")) };
        let (neg, abs) = if self.c_form() { ("neg_b", "abs_b") } else { ("neg_c", "abs_c") };
        (self.float64_modifiers(raw, neg, abs), raw)
    }
}

/// The three-input add of IADD3 and UIADD3: the sum and the two carry-out bits (bits 32 and 33 of the full
/// sum). Without .X a negation is two's complement (and counts in the carry as ~x + 1); with .X it is ~x and
/// the carry-in predicates are added.
fn add3(terms: [(u32, bool); 3], extended: bool, carry_in: u64) -> (u32, bool, bool) {
    let term = |(value, negated): (u32, bool)| -> u64 {
        match (negated, extended) {
            (false, _) => u64::from(value),
            (true, false) => u64::from(!value) + 1,
            (true, true) => u64::from(!value),
        }
    };
    let sum = terms.into_iter().map(term).sum::<u64>() + carry_in;
    (sum as u32, sum >> 32 & 1 != 0, sum >> 33 & 1 != 0)
}

fn iadd3(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let carry_in = if v.flag("x") { u64::from(o.pred_src(lane, "ps")) + u64::from(o.pred_src(lane, "px")) } else { 0 };
    let terms = [
        (o.reg(lane, "ra"), v.flag("neg_a")),
        (o.slot_b(lane), o.negated('b')),
        (lane.reg(v.get("rc")), v.flag("neg_c")),
    ];
    let (sum, carry, second_carry) = add3(terms, v.flag("x"), carry_in);
    lane.set_reg(v.get("rd"), sum);
    lane.set_pred(v.get("pd"), carry);
    lane.set_pred(v.get("pq"), second_carry);
}

fn imad(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let form = v.encoding.form();
    let (a, b) = (o.reg(lane, "ra"), o.slot_b(lane));
    let signed = v.flag("signed");
    let carry_in = u128::from(v.flag("x") && o.pred_src(lane, "ps"));
    let negated_c = o.negated('c');
    let x = v.flag("x");
    let product = if signed { (i64::from(a as i32) * i64::from(b as i32)) as u64 } else { u64::from(a) * u64::from(b) };
    if form.starts_with("WIDE") {
        let c = if o.c_form() { o.wide_slot64(lane, signed) } else { lane.reg64(v.get("rc")) };
        let c = match (negated_c, x) {
            (false, _) => u128::from(c),
            (true, false) => u128::from(!c) + 1,
            (true, true) => u128::from(!c),
        };
        let sum = u128::from(product) + c + carry_in;
        lane.set_reg64(v.get("rd"), sum as u64);
        lane.set_pred(v.get("pd"), sum >> 64 & 1 != 0);
    } else {
        if form.starts_with("HI") {
            // The high word of the product plus a 64-bit addend held in the register pair C.
            let c = if o.c_form() { o.wide_slot64(lane, signed) } else { lane.reg64(v.get("rc")) };
            let c = match (negated_c, x) {
                (false, _) => u128::from(c),
                (true, false) => u128::from(!c) + 1,
                (true, true) => u128::from(!c),
            };
            let sum = u128::from(product) + c + carry_in;
            lane.set_reg(v.get("rd"), (sum >> 32) as u32);
            lane.set_pred(v.get("pd"), sum >> 64 & 1 != 0);
            return;
        }
        let c = o.slot_c(lane);
        let c = match (negated_c, x) {
            (false, _) => u64::from(c),
            (true, false) => u64::from(!c) + 1,
            (true, true) => u64::from(!c),
        };
        let sum = u128::from(product & 0xffff_ffff) + u128::from(c) + carry_in;
        lane.set_reg(v.get("rd"), sum as u32);
        lane.set_pred(v.get("pd"), sum >> 32 & 1 != 0);
    }
}

fn lea(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let carry_in = v.flag("x") && o.pred_src(lane, "ps");
    let (sum, carry) = load_effective_address(v, o.reg(lane, "ra"), o.slot_b(lane), lane.reg(v.get("rc")), carry_in);
    lane.set_reg(v.get("rd"), sum);
    lane.set_pred(v.get("pd"), carry);
}

/// LEA and ULEA: a shifted left (with c or a's sign above it under .HI) plus b and the carry in; the sum and its
/// carry out.
fn load_effective_address(v: &View, a: u32, b: u32, c: u32, carry_in: bool) -> (u32, bool) {
    let shift = v.get("shift") as u32;
    // A negated source: two's complement, or under .X a bitwise inversion.
    let source = |value: u32, field: &str| match (v.flag(field), v.flag("x")) {
        (false, _) => value,
        (true, true) => !value,
        (true, false) => value.wrapping_neg(),
    };
    let (a, b) = (source(a, "neg_a"), source(b, "neg_b"));
    let shifted = if v.flag("hi") {
        let high = if v.flag("sx32") { ((a as i32) >> 31) as u32 } else { c };
        ((u64::from(high) << 32 | u64::from(a)) << shift >> 32) as u32
    } else {
        a << shift
    };
    let sum = u64::from(shifted) + u64::from(b) + u64::from(carry_in);
    (sum as u32, sum >> 32 != 0)
}

fn flo(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let value = o.reg(lane, "rb") ^ if v.flag("inv_b") { u32::MAX } else { 0 };
    lane.set_reg(v.get("rd"), find_leading_one(value, v.flag("signed"), v.flag("sh")));
}

fn isetp(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let low = v.flag("ex").then(|| o.pred_src(lane, "px"));
    let (first, second) = integer_set_predicates(v, o.reg(lane, "ra"), o.slot_b(lane), low, o.pred_src(lane, "ps"));
    lane.set_pred(v.get("pd"), first);
    lane.set_pred(v.get("pq"), second);
}

/// ISETP and UISETP: a compared with b (under .EX the high halves of a 64-bit comparison whose low halves'
/// result is `low`), combined with ps; the two predicates written (the comparison and its negation).
fn integer_set_predicates(v: &View, a: u32, b: u32, low: Option<bool>, ps: bool) -> (bool, bool) {
    // bop_ex packs the signed flag (bit 0), the boolean operation (2:1) and the comparison (5:3).
    let packed = v.get("bop_ex");
    let (signed, op, cmp) = (packed & 1 != 0, packed >> 1 & 3, packed >> 3);
    let (less, equal) = if signed { ((a as i32) < (b as i32), a == b) } else { (a < b, a == b) };
    let greater = !less && !equal;
    let holds = if let Some(low) = low {
        match cmp {
            0 => false,
            1 | 3 => less || (equal && low),
            2 => equal && low,
            4 | 6 => greater || (equal && low),
            5 => !equal || low,
            _ => true,
        }
    } else {
        match cmp {
            0 => false,
            1 => less,
            2 => equal,
            3 => less || equal,
            4 => greater,
            5 => !equal,
            6 => greater || equal,
            _ => true,
        }
    };
    (boolean(op, holds, ps), boolean(op, !holds, ps))
}

fn plop3(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let (a, b, c) = if v.has("ra") {
        let sign = |field: &str| o.reg(lane, field) >> 31 != 0;
        (sign("ra"), sign("rb"), sign("rc"))
    } else {
        let pc = v.get("pc");
        let pc = if v.flag("pc_uniform") { pc >= 7 || o.up >> pc & 1 != 0 } else { lane.pred(pc) };
        (o.pred_src(lane, "ps"), o.pred_src(lane, "pb"), pc != v.flag("pc_not"))
    };
    let (first, second) = predicate_lookup(v, a, b, c);
    lane.set_pred(v.get("pd"), first);
    lane.set_pred(v.get("pq"), second);
}

/// PLOP3 and UPLOP3: the two lookup tables' entries for inputs a, b, c.
fn predicate_lookup(v: &View, a: bool, b: bool, c: bool) -> (bool, bool) {
    let index = u32::from(a) << 2 | u32::from(b) << 1 | u32::from(c);
    (v.get("lut") >> index & 1 != 0, v.get("lut_hi") >> index & 1 != 0)
}

fn shf(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let result = funnel_shift(
        o.reg(lane, "ra"),
        o.slot_b(lane),
        o.reg(lane, "rc"),
        v.get("ty"),
        v.flag("wrap"),
        v.flag("right"),
        v.flag("hi"),
    );
    lane.set_reg(v.get("rd"), result);
}

fn f2i(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let src = v.get("src");
    let bits = if src == 3 {
        o.float64_modifiers(lane.reg64(v.get("rb")), "neg_b", "abs_b")
    } else {
        let b = o.float_modifiers(o.reg(lane, "rb"), "neg_b", "abs_b");
        if src == 1 { u64::from(if v.get("half_b") == 1 { b >> 16 } else { b & 0xffff }) } else { u64::from(b) }
    };
    let size = v.get("dst");
    let result = float::float_to_int(bits, src, size, v.flag("signed"), float::rounding(v.get("rnd")), v.flag("ftz"));
    let result = if v.flag("signed") && size < 2 { extend(result, size * 2 + 1) } else { result };
    if size == 3 {
        lane.set_reg64(v.get("rd"), result);
    } else {
        lane.set_reg(v.get("rd"), result as u32);
    }
}

fn i2f(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let (size, signed) = (v.get("src"), v.flag("signed"));
    let value = if size == 3 {
        lane.reg64(v.get("rb"))
    } else {
        // A register's selected byte on, or an immediate or constant whole.
        let word = if v.has("rb") { o.reg(lane, "rb") >> (8 * v.get("byte_b")) } else { o.slot_b(lane) };
        let bits = 8 << size;
        let raw = if bits == 32 { u64::from(word) } else { u64::from(word) & ((1 << bits) - 1) };
        if signed { ((raw << (64 - bits)) as i64 >> (64 - bits)) as u64 } else { raw }
    };
    let dst = v.get("dst");
    let result = float::int_to_float(value, signed, dst, float::rounding(v.get("rnd")));
    if dst == 3 {
        lane.set_reg64(v.get("rd"), result);
    } else {
        lane.set_reg(v.get("rd"), result as u32);
    }
}

fn half_arithmetic(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let op = match v.encoding.opcode {
        "HADD2" => float::ArithOp::Add,
        "HMUL2" => float::ArithOp::Mul,
        _ => float::ArithOp::Fma,
    };
    let (a, b) = (o.half_a(lane), o.half_b(lane));
    let c = if op == float::ArithOp::Fma { o.half_c(lane) } else { [0; 2] };
    let (ftz, sat, relu, bf16) = (v.flag("ftz"), v.flag("sat"), v.flag("relu"), v.flag("bf16"));
    let mode = float::HalfMode { ftz, sat, relu, bf16 };
    if v.flag("f32") {
        lane.set_reg(v.get("rd"), float::half_arith_to_f32(op, a[0], b[0], c[0], mode));
    } else {
        let low = float::half_arith(op, a[0], b[0], c[0], mode);
        let high = float::half_arith(op, a[1], b[1], c[1], mode);
        lane.set_reg(v.get("rd"), u32::from(high) << 16 | u32::from(low));
    }
}

fn f2f(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let (src, dst) = (v.get("src"), v.get("dst"));
    let bits = match src {
        3 => o.float64_modifiers(o.reg64_slot_b(lane), "neg_b", "abs_b"),
        _ => u64::from(o.float_b(lane)),
    };
    let round = float::rounding(v.get("rnd"));
    let result = if v.flag("bf16") {
        u64::from(float::f32_to_bf16(bits as u32, round))
    } else {
        float::float_to_float(bits, src, dst, round, v.flag("ftz"))
    };
    if dst == 3 {
        lane.set_reg64(v.get("rd"), result);
    } else {
        lane.set_reg(v.get("rd"), result as u32);
    }
}
