//! What each Maxwell (SM50-SM53) instruction does, lane by lane, reading fields by name as the disassembler
//! does. Operand slots (the table's comment): the second source is `rb`, `c[cb_bank][cb_offset]` (cbuf), a
//! 20-bit immediate (`imm20`, sign at bit 56) or a 32-bit one (`*32I`); `cbuf_c` forms take the constant as the
//! third source and the register at 46:39 as the second.
//!
//! Maxwell keeps a condition code per thread (`CC`: zero, sign, carry, overflow) that `.CC` instructions write
//! and `.X` instructions read, and reconverges through a per-thread stack: SSY/PBK/PCNT push a target that
//! SYNC/BRK/CONT return to.

use super::float::{self, Mode};
use super::ops::{
    Memories, access_bytes, atomic_op, boolean, constant_load, find_leading_one, lanes, lop3, permute, predicates_from,
    predicates_into, shuffle_source, stored_value, swizzle_add, write_loaded,
};
use super::video;
use super::{ExecError, Lane, LaneStatus, Step, SyncKind, load, store};
use crate::sass::Isa;
use crate::sass::sm5x::decode_program;
use crate::sass::swizzle_add::moves_b;
use crate::sass::text::View;
use std::collections::HashMap;

type Result<T = ()> = std::result::Result<T, ExecError>;

/// Byte offsets of driver constants in `c[0x0]` on SM5x: the local memory stack top and the parameters.
pub const LOCAL_STACK_TOP: usize = 0x20;
pub const PARAMETERS: usize = 0x140;

/// Condition code bits.
const ZERO: u8 = 1;
const SIGN: u8 = 2;
const CARRY: u8 = 4;
const OVERFLOW: u8 = 8;

pub(super) struct Program {
    instructions: Vec<View>,
    index_of: HashMap<usize, usize>,
    entry: usize,
    /// Where the code starts in its code segment, which absolute branches count from (`Kernel::origin`).
    origin: usize,
}

impl Program {
    pub(super) fn new(code: &[u8], entry: usize, origin: usize) -> Result<Program> {
        let decoded = decode_program(code)?;
        let instructions: Vec<View> = decoded
            .iter()
            .map(|instruction| View {
                encoding: instruction.inst.encoding(),
                word: u128::from(instruction.inst.encode().expect("a decoded instruction encodes")),
                control: instruction.control,
                offset: instruction.offset,
            })
            .collect();
        let index_of: HashMap<usize, usize> = instructions.iter().enumerate().map(|(i, v)| (v.offset, i)).collect();
        // The entry is a bundle start or an instruction.
        let entry_offset = if entry.is_multiple_of(32) { entry + 8 } else { entry };
        let entry = *index_of.get(&entry_offset).ok_or(ExecError::PcOutOfCode {
            isa: Isa::Sm5x,
            target: entry as i64,
            offset: entry,
        })?;
        Ok(Program { instructions, index_of, entry, origin })
    }

    pub(super) fn entry_index(&self) -> usize {
        self.entry
    }

    pub(super) fn offset_of(&self, pc: usize) -> usize {
        self.instructions.get(pc).map_or(pc * 8, |v| v.offset)
    }

    pub(super) fn execute(&self, pc: usize, step: &mut Step) -> Result {
        let Some(v) = self.instructions.get(pc) else {
            return Err(ExecError::PcOutOfCode { isa: Isa::Sm5x, target: pc as i64, offset: 0 });
        };
        step.warp.clock += 1;
        let (pg, pg_not) = (v.get("pg"), v.flag("pg_not"));
        let mut active = 0u32;
        for i in lanes(step.group) {
            let lane = &mut step.warp.lanes[i];
            if !v.has("pg") || lane.pred(pg) != pg_not {
                active |= 1 << i;
            } else {
                lane.pc += 1;
            }
        }
        let mut x = Exec { v, step, active, program: self };
        x.run()
    }

    /// The instruction index at a byte offset (a bundle's start stands for its first instruction).
    fn index(&self, offset: i64, from: usize) -> Result<usize> {
        usize::try_from(offset)
            .ok()
            .map(|offset| if offset % 32 == 0 { offset + 8 } else { offset })
            .and_then(|offset| self.index_of.get(&offset).copied())
            .ok_or(ExecError::PcOutOfCode { isa: Isa::Sm5x, target: offset, offset: from })
    }
}

struct Exec<'x, 's> {
    v: &'x View,
    step: &'x mut Step<'s>,
    active: u32,
    program: &'x Program,
}

/// Operand reading for one instruction.
struct Operands<'o> {
    v: &'o View,
    cbufs: &'o super::ConstantBuffers,
}

impl Operands<'_> {
    fn reg(&self, lane: &Lane, field: &str) -> u32 {
        lane.reg(self.v.get(field))
    }

    fn pred_src(&self, lane: &Lane, field: &str) -> bool {
        if !self.v.has(field) {
            return true;
        }
        lane.pred(self.v.get(field)) != self.v.flag(&format!("{field}_not"))
    }

    fn constant(&self) -> u32 {
        let offset = crate::sass::sm5x::constant_offset(self.v);
        self.cbufs.read_u32(self.v.get("cb_bank"), offset)
    }

    fn form(&self) -> &'static str {
        self.v.encoding.form().rsplit('.').next().unwrap_or("")
    }

    /// The second source as an integer: register, constant, sign-extended 20-bit or 32-bit immediate.
    fn b(&self, lane: &Lane) -> u32 {
        let v = self.v;
        if v.has("imm32") {
            v.get("imm32") as u32
        } else if v.has("imm20") {
            v.signed("imm20") as u32
        } else if v.has("imm16") {
            v.get("imm16") as u32
        } else if v.has("cb_offset") && self.form() != "cbuf_c" {
            self.constant()
        } else {
            lane.reg(v.get("rb"))
        }
    }

    /// The third source: `rc`, or the constant in `cbuf_c` forms; the 32-bit-immediate forms (FFMA32I,
    /// HFMA2_32I) add their destination.
    fn c(&self, lane: &Lane) -> u32 {
        match self.form() {
            "cbuf_c" => self.constant(),
            _ if self.v.has("rc") => lane.reg(self.v.get("rc")),
            _ => lane.reg(self.v.get("rd")),
        }
    }

    /// The FP16 pair an immediate form holds (low half first): the 32-bit forms' two halves, or the 10-bit
    /// forms' signs and top nine bits of each; `None` for a register form.
    fn immediate_halves(&self) -> Option<[u16; 2]> {
        let v = self.v;
        if v.has("imm32") {
            let imm = v.get("imm32");
            Some([imm as u16, (imm >> 16) as u16])
        } else if v.has("imm_lo") {
            let half = |raw: u64| ((raw >> 9) << 15 | (raw & 0x1ff) << 6) as u16;
            Some([half(v.get("imm_lo")), half(v.get("imm_hi"))])
        } else {
            None
        }
    }

    /// The second FP16 pair: an immediate's, a constant's or rb's, after its swizzle and modifiers. A constant
    /// is an FP32, rounded to FP16 for both lanes (nxgpucatch's `hadd2.cpp`, `hfma2.cpp`, `hset2.cpp` and
    /// `hsetp2.cpp` on a Tegra X1: -c holding 5.0 adds {-5, -5}; c holding 0x40004000 compares as 2.00390625).
    fn half_b(&self, lane: &Lane) -> [u16; 2] {
        self.immediate_halves().unwrap_or_else(|| match self.form() {
            "cbuf" => self.half_pair(self.constant(), CONSTANT_HALVES, "neg_b", "abs_b"),
            _ => self.half_pair(self.reg(lane, "rb"), self.v.get("swz_b"), "neg_b", "abs_b"),
        })
    }

    /// The second source as an FP32: a 20-bit immediate holds the top bits of the float.
    fn float_b(&self, lane: &Lane) -> u32 {
        let v = self.v;
        let raw = if v.has("imm20") { crate::sass::sm5x::float_immediate(v.get("imm20")) } else { self.b(lane) };
        modifiers(raw, v.flag("neg_b"), v.flag("abs_b"))
    }

    /// The second source as an FP64: a register pair, a constant pair, or a 20-bit immediate holding the top
    /// bits. Returns the raw bits (NaN propagation uses them) and the value after the modifiers.
    fn double_b(&self, lane: &Lane) -> (u64, u64) {
        let v = self.v;
        let raw = if v.has("imm20") {
            crate::sass::sm5x::double_immediate(v.get("imm20"))
        } else if v.has("cb_offset") && self.form() != "cbuf_c" {
            self.constant_pair()
        } else {
            lane.reg64(v.get("rb"))
        };
        (raw, modifiers64(raw, v.flag("neg_b"), v.flag("abs_b")))
    }

    /// The 64-bit value of the constant operand and the word after it.
    fn constant_pair(&self) -> u64 {
        let offset = crate::sass::sm5x::constant_offset(self.v);
        let bank = self.v.get("cb_bank");
        u64::from(self.cbufs.read_u32(bank, offset))
            | u64::from(self.cbufs.read_u32(bank, offset.saturating_add(4))) << 32
    }

    fn double_c(&self, lane: &Lane) -> (u64, u64) {
        let v = self.v;
        let raw = if self.form() == "cbuf_c" { self.constant_pair() } else { lane.reg64(v.get("rc")) };
        (raw, modifiers64(raw, v.flag("neg_c"), false))
    }

    /// A conversion's source bits before its selector and modifiers: a register (pair for 64 bits), a constant
    /// (pair), or an immediate: I2F's and I2I's a signed 20-bit integer; F2F's and F2I's the top bits of an FP32,
    /// or of an FP64 for an FP64 source, and for an FP16 source the FP16 in bits 35:20 (as nvdisasm reads it).
    fn convert_raw(&self, lane: &Lane) -> u64 {
        let v = self.v;
        let (src, float) = (v.get("src"), matches!(v.encoding.opcode, "F2F" | "F2I"));
        match (self.form(), src) {
            ("reg", 3) => lane.reg64(v.get("rb")),
            ("cbuf", 3) => self.constant_pair(),
            ("imm", 3) if float => self.double_b(lane).0,
            ("imm", 1) if float => v.get("imm20") & 0xffff,
            ("imm", _) if float => u64::from(crate::sass::sm5x::float_immediate(v.get("imm20"))),
            _ => u64::from(self.b(lane)),
        }
    }

    fn double_a(&self, lane: &Lane) -> (u64, u64) {
        let raw = lane.reg64(self.v.get("ra"));
        (raw, modifiers64(raw, self.v.flag("neg_a"), self.v.flag("abs_a")))
    }

    /// An FP16 pair source after its swizzle (0 H1_H0, 2 H0_H0, 3 H1_H1) and modifiers.
    /// A pair source's halves after its swizzle (0 H1_H0, 1 F32: the register an FP32, rounded to FP16 for both
    /// lanes, as nxgpucatch's `hadd2.cpp` and `hset2.cpp` show a Tegra X1 read it; 2 H0_H0, 3 H1_H1) and modifiers.
    fn half_pair(&self, bits: u32, swizzle: u64, neg: &str, abs: &str) -> [u16; 2] {
        let (low, high) = (bits as u16, (bits >> 16) as u16);
        let pair = match swizzle {
            1 => [float::float_to_float(u64::from(bits), 2, 1, float::rounding(0), false) as u16; 2],
            2 => [low, low],
            3 => [high, high],
            _ => [low, high],
        };
        pair.map(|half| {
            let half = if self.v.flag(abs) { half & 0x7fff } else { half };
            if self.v.flag(neg) { half ^ 0x8000 } else { half }
        })
    }

    fn float_a(&self, lane: &Lane) -> u32 {
        modifiers(self.reg(lane, "ra"), self.v.flag("neg_a"), self.v.flag("abs_a"))
    }

    fn float_c(&self, lane: &Lane) -> u32 {
        modifiers(self.c(lane), self.v.flag("neg_c"), false)
    }
}

fn modifiers64(bits: u64, neg: bool, abs: bool) -> u64 {
    let bits = if abs { bits & !(1 << 63) } else { bits };
    if neg { bits ^ 1 << 63 } else { bits }
}

/// BFE.CC and BFI.CC: Z and S of the result (nxgpucatch's `bfe.cpp` and `bfi.cpp` on a Tegra X1); C and O are
/// cleared as LOP's are, which those vectors, all starting from clear flags, do not show either way.
fn bit_field_flags(lane: &mut Lane, o: &Operands, result: u32) {
    if o.v.flag("cc") {
        lane.cc = condition_code(result, false, false);
    }
}

/// The swizzle a pair instruction's constant operand takes: .F32, one FP32 for both lanes (see `half_b`).
const CONSTANT_HALVES: u64 = 1;

fn modifiers(bits: u32, neg: bool, abs: bool) -> u32 {
    let bits = if abs { bits & 0x7fff_ffff } else { bits };
    if neg { bits ^ 0x8000_0000 } else { bits }
}

/// The condition code of a 32-bit result with its carry and overflow.
fn condition_code(result: u32, carry: bool, overflow: bool) -> u8 {
    (if result == 0 { ZERO } else { 0 })
        | (if (result as i32) < 0 { SIGN } else { 0 })
        | (if carry { CARRY } else { 0 })
        | (if overflow { OVERFLOW } else { 0 })
}

/// An add of two terms as Maxwell computes it (IADD, IADD32I, ISCADD): negation is two's complement, or with
/// .X a bitwise inversion and the carry in; both negations together are .PO, plus one: a + b + 1 (nxgpucatch
/// `iadd.cpp`, `iscadd.cpp`, run on a Tegra X1; the callers refuse it with .X). Returns the sum and the condition
/// code it sets.
fn add(a: u32, negate_a: bool, b: u32, negate_b: bool, extended: bool, cc_in: u8) -> (u32, u8) {
    let plus_one = negate_a && negate_b;
    let (negate_a, negate_b) = (negate_a && !plus_one, negate_b && !plus_one);
    let term = |value: u32, negated: bool| -> u64 {
        match (negated, extended) {
            (false, _) => u64::from(value),
            (true, false) => u64::from(!value) + 1,
            (true, true) => u64::from(!value),
        }
    };
    let carry_in = u64::from(plus_one || (extended && cc_in & CARRY != 0));
    let (ta, tb) = (term(a, negate_a), term(b, negate_b));
    let sum = ta + tb + carry_in;
    let result = sum as u32;
    let (sa, sb) = ((ta as u32) >> 31, (tb as u32) >> 31);
    let overflow = sa == sb && (result >> 31) != sa;
    let mut cc = condition_code(result, sum >> 32 != 0, overflow);
    // An extended add's zero flag also needs the lower part's: the flags describe the whole wide sum.
    if extended && cc_in & ZERO == 0 {
        cc &= !ZERO;
    }
    (result, cc)
}

impl Exec<'_, '_> {
    fn unimplemented<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(ExecError::Unimplemented { isa: Isa::Sm5x, what: what.into(), offset: self.v.offset })
    }

    fn text(&self) -> String {
        let inst = crate::sass::sm5x::decode(self.v.word as u64).expect("the view was decoded");
        crate::sass::sm5x::text(&crate::sass::Instruction { offset: self.v.offset, inst, control: self.v.control })
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

    fn each(&mut self, mut f: impl FnMut(&mut Lane, &Operands)) {
        let operands = Operands { v: self.v, cbufs: self.step.cbufs };
        for i in lanes(self.active) {
            let lane = &mut self.step.warp.lanes[i];
            f(lane, &operands);
            lane.pc += 1;
        }
    }

    fn try_each(&mut self, mut f: impl FnMut(&mut Lane, &Operands, &mut Memories) -> Result) -> Result {
        let operands = Operands { v: self.v, cbufs: self.step.cbufs };
        let mut memories =
            Memories { isa: Isa::Sm5x, shared: self.step.shared, global: self.step.memory, offset: self.v.offset };
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

    /// The instruction index of a branch target: the signed byte offset is from the next instruction.
    /// A branch's, call's or stack entry's target: an absolute address in the code segment (JMP, JCAL) or an offset
    /// from the next instruction.
    fn target(&self) -> Result<usize> {
        let v = self.v;
        let target = if v.has("address") {
            v.get("address") as i64 - self.program.origin as i64
        } else {
            v.offset as i64 + 8 + v.signed("offset")
        };
        self.program.index(target, v.offset)
    }

    fn run(&mut self) -> Result {
        let v = self.v;
        let writes_cc = [
            "IADD", "IADD32I", "ISCADD", "LOP", "LOP32I", "LOP3", "LEA", "FSET", "ISET", "DSET", "CSET", "PSET", "I2I",
            "IMNMX", "IADD3", "BFE", "BFI",
        ];
        if v.flag("cc") && !writes_cc.contains(&v.encoding.opcode) {
            return self.unimplemented(format!("{} writing the condition code", self.text()));
        }
        if crate::sass::sm5x::odd_wide_constant(v) {
            return self.unimplemented(format!("{} (a 64-bit constant at an odd word)", self.text()));
        }
        match v.encoding.opcode {
            // CCTL: cache prefetches and invalidations, which change nothing in coherent memory; IDE: whether a
            // trap handler may interrupt, which no program here has.
            "NOP" | "DEPBAR" | "MEMBAR" | "CCTL" | "CCTLL" | "CCTLT" | "IDE" => {
                if v.get("cc_test") != 15 && v.has("cc_test") && v.encoding.opcode == "NOP" {
                    return self.unimplemented(self.text());
                }
                self.advance_all()
            }
            "MOV" | "MOV32I" => self.each(|lane, o| {
                let value = o.b(lane);
                lane.set_reg(o.v.get("rd"), value)
            }),
            "S2R" | "CS2R" => {
                let sr = v.get("sr");
                let (ctaid, clock, shared_bytes) =
                    (self.step.ctaid, self.step.warp.clock, self.step.launch.shared_bytes);
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    let lane_id = (lane.linear_id % 32) as u64;
                    let value = match sr {
                        0 => lane_id,
                        33..=35 => u64::from(lane.tid[sr as usize - 33]),
                        32 => u64::from(super::ops::packed_thread_id(lane.tid)),
                        37..=39 => u64::from(ctaid[sr as usize - 37]),
                        56 => 1 << lane_id,
                        57 => (1 << lane_id) - 1,
                        58 => (2 << lane_id) - 1,
                        59 => u64::from(!((2u32 << lane_id).wrapping_sub(1))),
                        60 => u64::from(!((1u32 << lane_id) - 1)),
                        1 | 80 | 82 => clock,
                        81 | 83 => clock >> 32,
                        // The SM's own configuration and counters: the interpreter is one SM running one CTA.
                        2..=11 | 67 | 68 | 255 => 0,
                        50 => u64::from(shared_bytes),
                        _ => return self.unimplemented(format!("special register {sr} ({})", self.text())),
                    };
                    lane.set_reg(v.get("rd"), value as u32);
                    lane.pc += 1;
                }
            }
            "IADD" | "IADD32I" | "ISCADD" if v.flag("neg_a") && v.flag("neg_b") && (v.flag("x") || v.flag("sat")) => {
                // .PO with .X aborts on the hardware (nxgpucatch `iadd.cpp`); with .SAT no source says.
                return self.unimplemented(self.text());
            }
            "IADD" | "IADD32I" => {
                if v.flag("sat") && (v.flag("x") || v.flag("cc")) {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let (a, b) = (o.reg(lane, "ra"), o.b(lane));
                    let (sum, cc) = add(a, o.v.flag("neg_a"), b, o.v.flag("neg_b"), o.v.flag("x"), lane.cc);
                    // .SAT: the signed sum clamped to 32 bits.
                    let sum = if o.v.flag("sat") {
                        let term = |x: u32, neg: bool| if neg { -i64::from(x as i32) } else { i64::from(x as i32) };
                        let exact = term(a, o.v.flag("neg_a")) + term(b, o.v.flag("neg_b"));
                        exact.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u32
                    } else {
                        sum
                    };
                    lane.set_reg(o.v.get("rd"), sum);
                    if o.v.flag("cc") {
                        lane.cc = cc;
                    }
                })
            }
            "ISCADD" | "ISCADD32I" => self.each(|lane, o| {
                let (a, b) = (o.reg(lane, "ra"), o.b(lane));
                // -a is negated before the shift, unless with -b it is .PO.
                let po = o.v.flag("neg_a") && o.v.flag("neg_b");
                let a = if o.v.flag("neg_a") && !po { a.wrapping_neg() } else { a };
                let (sum, cc) = add(a << o.v.get("shift"), po, b, o.v.flag("neg_b"), false, lane.cc);
                lane.set_reg(o.v.get("rd"), sum);
                if o.v.flag("cc") {
                    lane.cc = cc;
                }
            }),
            "IADD3" => {
                let halves = [v.get("half_a"), v.get("half_b"), v.get("half_c")];
                // .RS of a negated first sum: no hardware vector settles the negation's width.
                let shifted_negation = v.get("shift") == 1 && (v.flag("neg_a") || v.flag("neg_b"));
                if v.get("shift") == 3
                    || halves.contains(&3)
                    || v.flag("x")
                    || shifted_negation
                    || crate::sass::sm5x::iadd3_cc_unknown(v)
                {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    // Each register source whole or one half (.H0, .H1, zero-extended), negated as asked; .RS
                    // and .LS shift the sum of the first two by 16 before the third is added.
                    let part = |x: u32, half: &str| match o.v.get(half) {
                        1 => x & 0xffff,
                        2 => x >> 16,
                        _ => x,
                    };
                    // In 64 bits, so that .RS shifts the carry of the first sum in.
                    let term = |x: u32, neg: bool| if neg { u64::from(x).wrapping_neg() } else { u64::from(x) };
                    let a = term(part(o.reg(lane, "ra"), "half_a"), o.v.flag("neg_a"));
                    let b = term(part(o.b(lane), "half_b"), o.v.flag("neg_b"));
                    let c = term(part(o.c(lane), "half_c"), o.v.flag("neg_c"));
                    let first = a.wrapping_add(b);
                    let first = match o.v.get("shift") {
                        1 => first >> 16,
                        2 => first << 16,
                        _ => first,
                    };
                    let result = (first as u32).wrapping_add(c as u32);
                    lane.set_reg(o.v.get("rd"), result);
                    if o.v.flag("cc") {
                        // Two carries: V from a + b, C from adding c to that sum's word.
                        let (sum_carry, c_carry) =
                            (first >> 32 & 1 == 1, u64::from(first as u32) + (c & 0xffff_ffff) > 0xffff_ffff);
                        lane.cc = condition_code(result, c_carry, sum_carry);
                    }
                })
            }
            "VADD" | "VABSDIFF" | "VMNMX" | "VSHL" | "VSHR" | "VSET" | "VSETP" | "VMAD" | "VABSDIFF4"
                if v.flag("cc") =>
            {
                return self.unimplemented(self.text());
            }
            "VABSDIFF4" if v.get("mode") != 1 || v.flag("sat") || v.flag("sd") => {
                return self.unimplemented(self.text());
            }
            "VABSDIFF4" => self.each(|lane, o| {
                let (a, b, c) = (o.reg(lane, "ra"), o.reg(lane, "rb"), o.reg(lane, "rc"));
                let signs = (o.v.flag("signed_a"), o.v.flag("signed_b"));
                lane.set_reg(o.v.get("rd"), video::byte_distances(a, b, c, signs))
            }),
            "VSETP" => self.each(|lane, o| {
                let (a, b) = video_sources(lane, o);
                set_comparison(lane, o, holds(a.cmp(&b), o.v.get("cmp")))
            }),
            "VMAD" => self.each(|lane, o| {
                let v = o.v;
                let (a, b) = video_sources(lane, o);
                let signs = (v.flag("signed_a"), v.flag("signed_b"));
                let negations = (v.flag("neg_ab"), v.flag("neg_c"));
                let c = o.reg(lane, "rc");
                let result = video::multiply_add(a, b, c, signs, negations, v.get("shift"), v.flag("sat"));
                lane.set_reg(v.get("rd"), result)
            }),
            "VADD" | "VABSDIFF" | "VMNMX" | "VSHL" | "VSHR" | "VSET" => self.each(|lane, o| {
                let v = o.v;
                let (a, b) = video_sources(lane, o);
                let value = match v.encoding.opcode {
                    // Both negations at once are .PO: plus one.
                    "VADD" if v.flag("neg_a") && v.flag("neg_b") => a + b + 1,
                    "VADD" => {
                        let term = |x: i128, negated: bool| if negated { -x } else { x };
                        term(a, v.flag("neg_a")) + term(b, v.flag("neg_b"))
                    }
                    "VABSDIFF" => (a - b).abs(),
                    "VMNMX" if v.flag("mx") => a.max(b),
                    "VMNMX" => a.min(b),
                    "VSHL" => a << video::shift_amount(b, v.flag("wrap")),
                    "VSHR" => a >> video::shift_amount(b, v.flag("wrap")),
                    _ => i128::from(holds(a.cmp(&b), v.get("cmp"))),
                };
                // VSET's result is unsigned and never saturated.
                let signed = v.flag("sd");
                let mode = crate::sass::video::Mode::from_field(v.get("mode"));
                let value = if v.flag("sat") { video::saturate(value, signed, mode) } else { value };
                let value = if crate::sass::sm5x::vmnmx_wraps(v) { i128::from(value as u32 as i32) } else { value };
                lane.set_reg(v.get("rd"), video::finish(value, o.reg(lane, "rc"), signed, mode))
            }),
            "XMAD" => {
                // Modes: 0 C, 1 CLO, 2 CHI, 3 CSFU, 4 CBCC.
                if v.get("mode") > 4 || v.flag("x") || v.flag("cc") {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let v = o.v;
                    let (a, b, c) = (o.reg(lane, "ra"), o.b(lane), o.c(lane));
                    // 16 bits of each factor: the high half when asked, sign- or zero-extended.
                    let half = |x: u32, high: bool, signed: bool| {
                        let bits = if high { x >> 16 } else { x & 0xffff };
                        if signed { bits as u16 as i16 as i32 as u32 } else { bits }
                    };
                    let factor_a = half(a, v.flag("half_a"), v.flag("signed_a"));
                    let factor_b = half(b, v.flag("half_b"), v.flag("signed_b"));
                    let mut product = factor_a.wrapping_mul(factor_b);
                    if v.flag("psl") {
                        product <<= 16;
                    }
                    let addend = match v.get("mode") {
                        1 => c & 0xffff,
                        2 => c >> 16,
                        // CSFU: C less 2^16 for each signed factor that is negative (the sign fix-up that makes a
                        // 32 x 32 signed product from 16-bit pieces).
                        3 => {
                            // The other halves (the ones not selected) take part: a negative half counts only when
                            // the other factor's other half is not zero.
                            let other = |x: u32, high: bool| if high { x & 0xffff } else { x >> 16 };
                            let negative = |x: u32| x >> 15 & 1 == 1;
                            let fix_a = v.flag("signed_a") && negative(factor_a) && other(b, v.flag("half_b")) != 0;
                            let fix_b = v.flag("signed_b") && negative(factor_b) && other(a, v.flag("half_a")) != 0;
                            c.wrapping_sub((u32::from(fix_a) + u32::from(fix_b)) << 16)
                        }
                        4 => c.wrapping_add(b << 16),
                        _ => c,
                    };
                    let sum = product.wrapping_add(addend);
                    // .MRG puts the second factor's low half in the high half of the result.
                    let result = if v.flag("mrg") { (sum & 0xffff) | (b << 16) } else { sum };
                    lane.set_reg(v.get("rd"), result)
                })
            }
            // .SAT of an FP64 seed's high word: what it would clamp is not known.
            "MUFU" if v.flag("sat") && matches!(v.get("func"), 6 | 7) => return self.unimplemented(self.text()),
            "MUFU" => {
                let func = v.get("func");
                self.each(|lane, o| {
                    let x = modifiers(o.reg(lane, "ra"), o.v.flag("neg_a"), o.v.flag("abs_a"));
                    let result = match func {
                        6 | 7 => float::special_function64h(func, x),
                        _ => float::special_function(func, x),
                    };
                    let result = result.unwrap_or(float::CANONICAL_NAN32);
                    // .SAT clamps to [0, 1], NaN to +0 (nxgpucatch's `mufu.cpp`: SQRT.SAT of 2 is 1).
                    lane.set_reg(o.v.get("rd"), if o.v.flag("sat") { float::saturate32(result) } else { result })
                })
            }
            "RRO" => self.each(|lane, o| {
                // Range reduction ahead of MUFU: SINCOS turns radians into turns (the argument this model's
                // MUFU.SIN/COS take), EX2 passes the value on.
                let x = o.float_b(lane);
                // The product rounded toward zero, as the unit's fixed-point conversion truncates (so that large
                // arguments lose their fraction as they do on the hardware), with 1 / (2 pi) to about 48 bits.
                let value = if o.v.flag("mode") {
                    x
                } else {
                    let [high, low] = crate::sass::sm5x::TURNS_PER_RADIAN.map(f32::to_bits);
                    let nearest = Mode { round: float::rounding(0), ftz: true, sat: false };
                    let x_low = float::mul32(x, low, 0, false, nearest);
                    float::fma32(x, high, x_low, false, Mode { round: float::rounding(3), ..nearest })
                };
                lane.set_reg(o.v.get("rd"), value)
            }),
            "FCHK" => self.each(|lane, o| {
                let needs = float::division_needs_slow_path(o.float_a(lane), o.float_b(lane));
                lane.set_pred(o.v.get("pd"), needs)
            }),
            "I2F" | "F2I" | "F2F" if v.flag("cc") => return self.unimplemented(self.text()),
            // A 64-bit integer from an immediate (nxgpucatch's `i2f.cpp` shows a Tegra X1 take it as the high
            // word, and cannot show the low one) or from a constant to I2I (ptxas never asks), the high half of a
            // float immediate, an FP16 immediate with bits above the half (which nvdisasm ignores): what the
            // hardware makes of them is not known.
            "I2F" if v.get("src") == 3 && v.encoding.form() == "imm" => return self.unimplemented(self.text()),
            "I2I" if v.get("src") == 3 && v.encoding.form() != "reg" => return self.unimplemented(self.text()),
            "F2F" | "F2I"
                if v.encoding.form() == "imm"
                    && (v.flag("half_b") || v.get("src") == 1 && v.get("imm20") >> 16 != 0) =>
            {
                return self.unimplemented(self.text());
            }
            // A part of a 32- or 64-bit integer: ptxas never asks, and what the hardware does is not known.
            "I2F" | "I2I" if v.get("src") >= 2 && v.get("byte_b") != 0 => return self.unimplemented(self.text()),
            "I2F" | "F2I" | "I2I" | "F2F" => self.each(|lane, o| {
                let value = convert(lane, o);
                // I2I.CC: the flags of the result, its sign only for a 32-bit one (nxgpucatch `i2i.cpp` "I2I CC").
                if o.v.flag("cc") {
                    let width = 8u32 << o.v.get("dst");
                    let value = if width < 32 { value as u32 & ((1 << width) - 1) } else { value as u32 };
                    lane.cc = condition_code(value, false, false);
                }
            }),
            "SHFL" => {
                let values: Vec<u32> = self.step.warp.lanes.iter().map(|lane| lane.reg(v.get("ra"))).collect();
                self.each(|lane, o| {
                    let index = lane.linear_id % 32;
                    let b = if o.v.has("imm5") { o.v.get("imm5") as u32 } else { lane.reg(o.v.get("rb")) } & 31;
                    let c = if o.v.has("imm13") { o.v.get("imm13") as u32 } else { lane.reg(o.v.get("rc")) };
                    let (source, valid) = shuffle_source(index, b, c, o.v.get("mode"));
                    lane.set_reg(o.v.get("rd"), values.get(source).copied().unwrap_or(0));
                    lane.set_pred(o.v.get("pd"), valid);
                })
            }
            "VOTE" => {
                let operands = Operands { v, cbufs: self.step.cbufs };
                let ballot = lanes(self.active)
                    .filter(|&i| operands.pred_src(&self.step.warp.lanes[i], "ps"))
                    .fold(0u32, |mask, i| mask | 1 << i);
                let active = self.active;
                let result = match v.get("mode") {
                    0 => ballot == active,
                    1 => ballot != 0,
                    _ => ballot == active || ballot == 0,
                };
                self.each(|lane, o| {
                    lane.set_reg(o.v.get("rd"), ballot);
                    lane.set_pred(o.v.get("pd"), result);
                })
            }
            "CSETP" | "CSET" => {
                let test = v.get("cc_test");
                if cc_holds(0, test).is_none() {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let holds = cc_holds(lane.cc, o.v.get("cc_test")).unwrap_or(false);
                    set_comparison(lane, o, holds)
                })
            }
            "P2R" => self.each(|lane, o| {
                // P0-P6 (or the condition code's four flags) into byte `byte` of a, under the mask's low byte.
                let bits = if o.v.flag("cc_mode") { u32::from(lane.cc) } else { lane.predicate_bits() };
                let value = predicates_into(o.reg(lane, "ra"), bits, o.b(lane), o.v.get("byte"));
                lane.set_reg(o.v.get("rd"), value)
            }),
            "R2P" => self.each(|lane, o| {
                // Bit i of a's byte `byte` into P_i (or flag i) where mask bit i is set.
                let (a, mask, byte) = (o.reg(lane, "ra"), o.b(lane), o.v.get("byte"));
                if o.v.flag("cc_mode") {
                    let value = a >> (8 * byte);
                    let kept = lane.cc & !(mask as u8 & 0xf);
                    lane.cc = kept | (value & mask) as u8 & 0xf;
                } else {
                    for (i, set) in predicates_from(a, mask, byte) {
                        lane.set_pred(i, set);
                    }
                }
            }),
            "IMUL" | "IMUL32I" | "IMAD" | "IMAD32I" => {
                // The high word of a negated product, or with .PO, is not documented anywhere; .SAT neither.
                if v.flag("sat") || (v.flag("hi") && v.flag("neg_ab")) {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    // The exact product of the operands widened by their signedness; its low or high word, then
                    // (IMAD) + c, negated as the fields say (both: .PO, plus one), + the carry flag with .X.
                    let widen = |x: u32, signed: bool| if signed { i128::from(x as i32) } else { i128::from(x) };
                    let a = widen(o.reg(lane, "ra"), o.v.flag("signed_a"));
                    let b = widen(o.b(lane), o.v.flag("signed_b"));
                    let plus_one = o.v.flag("neg_ab") && o.v.flag("neg_c");
                    let product = if o.v.flag("neg_ab") && !plus_one { -(a * b) } else { a * b };
                    let part = if o.v.flag("hi") { (product >> 32) as u32 } else { product as u32 };
                    let c = if o.v.encoding.opcode.starts_with("IMAD") { o.c(lane) } else { 0 };
                    let c = if o.v.flag("neg_c") && !plus_one { c.wrapping_neg() } else { c };
                    let carry = o.v.flag("x") && lane.cc & CARRY != 0;
                    let value = part.wrapping_add(c).wrapping_add(u32::from(plus_one) + u32::from(carry));
                    lane.set_reg(o.v.get("rd"), value)
                })
            }
            "LEA" => {
                self.each(|lane, o| {
                    // (a << shift) + b, or for .HI the high word of ({c, a} << shift) + b; .X adds the carry.
                    let v = o.v;
                    let a = o.reg(lane, "ra");
                    let a = match (v.flag("neg_a"), v.flag("x")) {
                        (false, _) => a,
                        (true, false) => a.wrapping_neg(),
                        (true, true) => !a,
                    };
                    let shift = v.get("shift") as u32;
                    let shifted = if v.encoding.form().starts_with("HI") {
                        ((u64::from(o.reg(lane, "rc")) << 32 | u64::from(a)) << shift >> 32) as u32
                    } else {
                        a << shift
                    };
                    let (sum, cc) = add(shifted, false, o.b(lane), false, v.flag("x"), lane.cc);
                    lane.set_reg(v.get("rd"), sum);
                    // The predicate result: for .HI, whether the address (its high word, the sum) lies outside the
                    // shared window (Plg in NVIDIA's SASS reference, which generic LD/ST and ptxas's branch between
                    // ATOM and ATOMS take); else the carry out.
                    let outside_shared = sum != (super::SHARED_WINDOW >> 32) as u32;
                    let hi = v.encoding.form().starts_with("HI");
                    lane.set_pred(v.get("pd"), if hi { outside_shared } else { cc & CARRY != 0 });
                    if v.flag("cc") {
                        lane.cc = cc;
                    }
                })
            }
            "ATOM" | "RED" => {
                let (op, ty) = (v.get("op"), v.get("ty"));
                let cas = v.encoding.form() == "CAS";
                if !cas && (op > 8 || ty == 4 || ty > 5 || crate::sass::sm5x::atomic_left_undone(op, ty)) {
                    return self.unimplemented(self.text());
                }
                let bytes = if matches!(ty, 2 | 5) || (cas && v.flag("wide")) { 8 } else { 4 };
                self.try_each(|lane, o, memories| {
                    let base =
                        if o.v.flag("e") { lane.reg64(o.v.get("ra")) } else { u64::from(lane.reg(o.v.get("ra"))) };
                    let address = base.wrapping_add(o.v.signed("offset") as u64);
                    let source = if o.v.encoding.opcode == "RED" { o.v.get("rs") } else { o.v.get("rb") };
                    let read = |register: u64| atomic_operand(lane, register, bytes);
                    let operand = read(source);
                    let old = memories.global_load(address, bytes)? as u64;
                    let new = if cas {
                        // CAS: the register (pair) after rb's is stored where the word holds rb's.
                        let value = read(if source >= 255 { 255 } else { source + bytes as u64 / 4 });
                        if old == operand { value } else { old }
                    } else {
                        atomic_op(op, ty, old, operand)
                    };
                    memories.global_store(address, bytes, u128::from(new))?;
                    if o.v.encoding.opcode == "ATOM" {
                        if bytes == 8 {
                            lane.set_reg64(o.v.get("rd"), old);
                        } else {
                            lane.set_reg(o.v.get("rd"), old as u32);
                        }
                    }
                    Ok(())
                })?
            }
            "ATOMS" => {
                // Types 0 U32, 1 S32, 2 U64; CAS modes 0 CAST, 1 CAST.SPIN (answering whether it stored) and 2 CAS.
                let cas = v.encoding.form() == "CAS";
                let (op, ty) = if cas { (u64::MAX, 0) } else { (v.get("op"), v.get("ty")) };
                if (!cas && (op > 8 || ty > 2)) || (cas && v.get("mode") > 2) {
                    return self.unimplemented(self.text());
                }
                let bytes = if ty == 2 || (cas && v.flag("wide")) { 8 } else { 4 };
                self.try_each(|lane, o, memories| {
                    let base = u64::from(lane.reg(o.v.get("ra")));
                    let address = base.wrapping_add((o.v.signed("offset") * 4) as u64) & 0xffff_ffff;
                    memories.access("shared", "atomic", address, bytes)?;
                    let old = load(memories.shared, address, bytes).unwrap_or(0) as u64;
                    let read = |register: u64| atomic_operand(lane, register, bytes);
                    let rb = o.v.get("rb");
                    let operand = read(rb);
                    let new = if cas {
                        let value = read(if rb >= 255 { 255 } else { rb + bytes as u64 / 4 });
                        if old == operand { value } else { old }
                    } else {
                        atomic_op(op, ty, old, operand)
                    };
                    store(memories.shared, address, bytes, u128::from(new));
                    let answer = if cas && o.v.get("mode") < 2 { u64::from(old == operand) } else { old };
                    if bytes == 8 {
                        lane.set_reg64(o.v.get("rd"), answer);
                    } else {
                        lane.set_reg(o.v.get("rd"), answer as u32);
                    }
                    Ok(())
                })?
            }
            "SEL" => self.each(|lane, o| {
                let value = if o.pred_src(lane, "ps") { o.reg(lane, "ra") } else { o.b(lane) };
                lane.set_reg(o.v.get("rd"), value)
            }),
            "LOP" | "LOP32I" => {
                if v.flag("x") {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let mut a = o.reg(lane, "ra");
                    let mut b = o.b(lane);
                    if o.v.flag("inv_a") {
                        a = !a;
                    }
                    if o.v.flag("inv_b") {
                        b = !b;
                    }
                    let result = match o.v.get("op") {
                        0 => a & b,
                        1 => a | b,
                        2 => a ^ b,
                        _ => b,
                    };
                    lane.set_reg(o.v.get("rd"), result);
                    logic_predicate(lane, o, result);
                })
            }
            "LOP3" => self.each(|lane, o| {
                let result = lop3(o.v.get("lut") as u8, o.reg(lane, "ra"), o.b(lane), o.c(lane));
                lane.set_reg(o.v.get("rd"), result);
                logic_predicate(lane, o, result);
            }),
            "SHL" => self.each(|lane, o| {
                let (a, amount) = (o.reg(lane, "ra"), o.b(lane));
                let amount = if o.v.flag("w") { amount & 31 } else { amount };
                lane.set_reg(o.v.get("rd"), a.checked_shl(amount).unwrap_or(0))
            }),
            "SHR" => {
                if v.get("x") != 0 {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    // .BREV shifts a with its bits reversed (nxgpucatch's `shr.cpp` on a Tegra X1; which way a
                    // signed shift moves a reversed negative value it does not show: taken as any other).
                    let a = o.reg(lane, "ra");
                    let (a, amount) = (if o.v.flag("brev") { a.reverse_bits() } else { a }, o.b(lane));
                    let amount = if o.v.flag("w") { amount & 31 } else { amount.min(32) };
                    let result = if o.v.flag("signed") {
                        ((a as i32) >> amount.min(31)) as u32
                    } else {
                        a.checked_shr(amount).unwrap_or(0)
                    };
                    lane.set_reg(o.v.get("rd"), result)
                })
            }
            "SHF" if v.get("x") != 0 => return self.unimplemented(self.text()),
            "SHF" => self.each(|lane, o| {
                // {c, a} (c high) shifted; .HI keeps the high word (x = 1); U64/S64 shift the pair as 64 bits,
                // the default as a 32-bit funnel (amount clamped at 32, or wrapped with .W).
                let (a, c) = (o.reg(lane, "ra"), o.reg(lane, "rc"));
                let amount = if o.v.has("imm6") { o.v.get("imm6") as u32 } else { o.reg(lane, "rb") };
                let ty = o.v.get("ty");
                let width = if ty >= 2 { 64 } else { 32 };
                let amount = if o.v.flag("w") { amount & (width - 1) } else { amount.min(width) };
                let right = o.v.encoding.form().starts_with('R');
                let signed = ty == 3;
                let pair = if signed {
                    i128::from(c as i32) << 32 | i128::from(a)
                } else {
                    i128::from(c) << 32 | i128::from(a)
                };
                let shifted = if right { pair >> amount } else { pair << amount };
                // A left funnel keeps the high word, a right one the low word.
                lane.set_reg(o.v.get("rd"), if right { shifted as u32 } else { (shifted >> 32) as u32 })
            }),
            "BFE" => {
                self.each(|lane, o| {
                    // .BREV reverses the source's bits first.
                    let (a, b) = (o.reg(lane, "ra"), o.b(lane));
                    let a = if o.v.flag("brev") { a.reverse_bits() } else { a };
                    let (position, length) = (b & 0xff, b >> 8 & 0xff);
                    let signed = o.v.flag("signed");
                    let result = if length == 0 {
                        0
                    } else {
                        let shifted = if position >= 32 {
                            if signed { ((a as i32) >> 31) as u32 } else { 0 }
                        } else if signed {
                            ((a as i32) >> position) as u32
                        } else {
                            a >> position
                        };
                        if length >= 32 {
                            shifted
                        } else if signed {
                            // The field's top bit (or, past bit 31, the sign) extends.
                            let top = (position + length - 1).min(31);
                            let sign = a >> top & 1 != 0;
                            let mask = (1u32 << length) - 1;
                            (shifted & mask) | if sign { !mask } else { 0 }
                        } else {
                            shifted & ((1u32 << length) - 1)
                        }
                    };
                    lane.set_reg(o.v.get("rd"), result);
                    bit_field_flags(lane, o, result);
                })
            }
            "BFI" => self.each(|lane, o| {
                // Inserts a's low bits into c at b's position (bits 7:0) for b's length (bits 15:8).
                let (a, b, c) = (o.reg(lane, "ra"), o.b(lane), o.c(lane));
                let (position, length) = (b & 0xff, b >> 8 & 0xff);
                let result = if length == 0 || position >= 32 {
                    c
                } else {
                    let length = length.min(32 - position);
                    let mask = if length >= 32 { u32::MAX } else { ((1u32 << length) - 1) << position };
                    (c & !mask) | ((a << position) & mask)
                };
                lane.set_reg(o.v.get("rd"), result);
                bit_field_flags(lane, o, result);
            }),
            "PRMT" => {
                if v.get("mode") > 6 {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let result = permute(o.reg(lane, "ra"), o.b(lane), o.c(lane), o.v.get("mode"));
                    lane.set_reg(o.v.get("rd"), result)
                })
            }
            "ISETP" | "ISET" => self.each(|lane, o| {
                let holds = integer_compare(lane, o);
                set_comparison(lane, o, holds)
            }),
            "ICMP" => self.each(|lane, o| {
                // c compared with zero selects a or b.
                let c = o.c(lane);
                let holds = compare_ints(c, 0, o.v.get("cmp"), o.v.flag("signed"));
                let value = if holds { o.reg(lane, "ra") } else { o.b(lane) };
                lane.set_reg(o.v.get("rd"), value)
            }),
            "IMNMX" => {
                // Modes: 0 one 32-bit pair; a 64-bit minimum or maximum is 3 XHI on the high words (its .CC tells
                // XLO how they compared), then 1 XLO on the low words (unsigned; the high words decide unless
                // equal). The flags XHI leaves are Tandem's own encoding of that comparison (ZERO: equal, SIGN:
                // a below b): only XLO reads them in the code ptxas makes, and what else they hold on the hardware
                // is not documented.
                let mode = v.get("mode");
                if mode == 2 || (mode != 3 && v.flag("cc")) {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    let (a, b) = (o.reg(lane, "ra"), o.b(lane));
                    let below = if o.v.flag("signed") { (a as i32) < (b as i32) } else { a < b };
                    let a_less = match mode {
                        1 if lane.cc & ZERO != 0 => a < b,
                        1 => lane.cc & SIGN != 0,
                        _ => below,
                    };
                    if mode == 3 && o.v.flag("cc") {
                        lane.cc = (if a == b { ZERO } else { 0 }) | (if below { SIGN } else { 0 });
                    }
                    let min = o.pred_src(lane, "ps");
                    lane.set_reg(o.v.get("rd"), if a_less == min { a } else { b })
                })
            }
            // PSETP's second destination combines !pa with pb, where the other comparisons' take the negation of
            // the first's (nxgpucatch's `psetp.cpp` on a Tegra X1: PSETP.AND.AND P0, P1, PT, !PT, PT leaves P1
            // false; yuzu reads it so too).
            "PSETP" => self.each(|lane, o| {
                let (a, b, ps) = (o.pred_src(lane, "pa"), o.pred_src(lane, "pb"), o.pred_src(lane, "ps"));
                let (bop_ab, bop) = (o.v.get("bop_ab"), o.v.get("bop"));
                lane.set_pred(o.v.get("pd"), boolean(bop, boolean(bop_ab, a, b), ps));
                lane.set_pred(o.v.get("pq"), boolean(bop, boolean(bop_ab, !a, b), ps));
            }),
            "PSET" => self.each(|lane, o| {
                let (a, b) = (o.pred_src(lane, "pa"), o.pred_src(lane, "pb"));
                set_comparison(lane, o, boolean(o.v.get("bop_ab"), a, b))
            }),
            "POPC" => self.each(|lane, o| {
                let b = o.b(lane) ^ if o.v.flag("inv_b") { u32::MAX } else { 0 };
                lane.set_reg(o.v.get("rd"), b.count_ones())
            }),
            "FLO" => self.each(|lane, o| {
                let b = o.b(lane) ^ if o.v.flag("inv_b") { u32::MAX } else { 0 };
                lane.set_reg(o.v.get("rd"), find_leading_one(b, o.v.flag("signed"), o.v.flag("sh")))
            }),
            "FSWZADD" => {
                let swizzle = v.get("swizzle") as u32;
                if v.flag("cc") {
                    return self.unimplemented(format!("{} (.CC)", self.text()));
                }
                if moves_b(Isa::Sm5x, swizzle) {
                    return self.unimplemented(format!("{} (a lane moving b alone: MOV2)", self.text()));
                }
                self.each(|lane, o| {
                    let mode = Mode { round: float::rounding(o.v.get("rnd")), ftz: o.v.flag("ftz"), sat: false };
                    let a = o.reg(lane, "ra");
                    let b = o.reg(lane, "rb");
                    lane.set_reg(o.v.get("rd"), swizzle_add(Isa::Sm5x, swizzle, lane, a, b, mode))
                })
            }
            "FADD" | "FADD32I" | "FMUL" | "FMUL32I" | "FFMA" | "FFMA32I" => {
                if crate::sass::sm5x::fmul_scale(v.get("scale")).is_none() || v.get("fmz") > 2 {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    // FMUL/FFMA keep .FTZ and .FMZ in one field (1 FTZ, 2 FMZ); FADD has its own ftz bit.
                    let ftz = o.v.flag("ftz") || o.v.get("fmz") == 1;
                    let fmz = o.v.get("fmz") == 2;
                    let mode = Mode { round: float::rounding(o.v.get("rnd")), ftz, sat: o.v.flag("sat") };
                    let (a, b) = (o.float_a(lane), o.float_b(lane));
                    let result = match o.v.encoding.opcode {
                        "FADD" | "FADD32I" => float::add32(a, b, mode),
                        "FMUL" | "FMUL32I" => {
                            float::mul32(a, b, crate::sass::sm5x::fmul_scale(o.v.get("scale")).unwrap_or(0), fmz, mode)
                        }
                        _ => float::fma32(a, b, o.float_c(lane), fmz, mode),
                    };
                    lane.set_reg(o.v.get("rd"), result)
                })
            }
            "DADD" | "DMUL" | "DFMA" => self.each(|lane, o| {
                let round = float::rounding(o.v.get("rnd"));
                let (a, b) = (o.double_a(lane), o.double_b(lane));
                let (op, c) = match o.v.encoding.opcode {
                    "DADD" => (float::ArithOp::Add, (0, 0)),
                    "DMUL" => (float::ArithOp::Mul, (0, 0)),
                    _ => (float::ArithOp::Fma, o.double_c(lane)),
                };
                let result = float::arith64(op, [a.1, b.1, c.1], [a.0, b.0, c.0], round);
                lane.set_reg64(o.v.get("rd"), result)
            }),
            "DMNMX" => self.each(|lane, o| {
                let (a, b) = (o.double_a(lane).1, o.double_b(lane).1);
                let (pick_a, both_nan) = float::min_max64_choice(a, b, o.pred_src(lane, "ps"));
                let value = if both_nan {
                    float::CANONICAL_NAN64
                } else if pick_a {
                    a
                } else {
                    b
                };
                lane.set_reg64(o.v.get("rd"), value)
            }),
            "DSETP" | "DSET" => self.each(|lane, o| {
                let (a, b) = (o.double_a(lane).1, o.double_b(lane).1);
                set_comparison(lane, o, float::compare(float::order64(a, b), o.v.get("cmp")))
            }),
            "HADD2" | "HMUL2" | "HFMA2" | "HADD2_32I" | "HMUL2_32I" | "HFMA2_32I" => {
                if v.get("fmz") > 1 {
                    return self.unimplemented(self.text());
                }
                self.each(half_arithmetic)
            }
            "HSET2" => self.each(|lane, o| {
                let a = o.half_pair(o.reg(lane, "ra"), o.v.get("swz_a"), "neg_a", "abs_a");
                let value = super::ops::hset2(o.v, a, o.half_b(lane), o.pred_src(lane, "ps"));
                lane.set_reg(o.v.get("rd"), value)
            }),
            "HSETP2" => self.each(|lane, o| {
                let a = o.half_pair(o.reg(lane, "ra"), o.v.get("swz_a"), "neg_a", "abs_a");
                let b = o.half_b(lane);
                let ftz = o.v.flag("ftz");
                let holds = |i: usize| float::compare(float::order16(a[i], b[i], ftz), o.v.get("cmp"));
                let (op, ps) = (o.v.get("bop"), o.pred_src(lane, "ps"));
                let (first, second) = if o.v.flag("h_and") {
                    let both = holds(0) && holds(1);
                    (both, !both)
                } else {
                    (holds(0), holds(1))
                };
                lane.set_pred(o.v.get("pd"), boolean(op, first, ps));
                lane.set_pred(o.v.get("pq"), boolean(op, second, ps));
            }),
            "FMNMX" => self.each(|lane, o| {
                let (a, b) = (o.float_a(lane), o.float_b(lane));
                let min = o.pred_src(lane, "ps");
                lane.set_reg(o.v.get("rd"), float::min_max32(a, b, min, o.v.flag("ftz")))
            }),
            "FSETP" | "FSET" => self.each(|lane, o| {
                let order = float::order32(o.float_a(lane), o.float_b(lane), o.v.flag("ftz"));
                set_comparison(lane, o, float::compare(order, o.v.get("cmp")))
            }),
            "FCMP" => self.each(|lane, o| {
                // c compared with zero selects a or b.
                let order = float::order32(o.c(lane), 0, o.v.flag("ftz"));
                let holds = float::compare(order, o.v.get("cmp"));
                // An immediate b is a float's top bits (nxgpucatch's `fcmp.cpp`: `FCMP.LT.FTZ R2, R3, 1, R2` gives 1.0).
                let value = if holds { o.reg(lane, "ra") } else { o.float_b(lane) };
                lane.set_reg(o.v.get("rd"), value)
            }),
            "LD" | "ST" | "LDG" | "STG" | "LDS" | "STS" | "LDL" | "STL" => self.memory()?,
            "TEXS" | "TLDS" | "TEX" | "TLD" | "TXD" | "TLD4" | "TXQ" | "TLD4S" => {
                self.through_unit(crate::sass::texture::sm5x, super::texture::run_warp)?
            }
            "SULD" | "SUST" | "SURED" | "SUATOM" => {
                self.through_unit(crate::sass::surface::sm5x, super::surface::run_warp)?
            }
            "LDC" => {
                if v.get("mode") != 0 || v.get("size") > 5 {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| constant_load(lane, o.cbufs, o.v, o.reg(lane, "ra")))
            }
            // Control flow.
            "BRA" | "JMP" => {
                if cc_holds(0, v.get("cc_test")).is_none() || v.flag("u") || v.flag("lmt") {
                    return self.unimplemented(self.text());
                }
                let target = self.target()?;
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    let taken = cc_holds(lane.cc, v.get("cc_test")).unwrap_or(false);
                    lane.pc = if taken { target } else { lane.pc + 1 };
                }
            }
            "BRX" | "JMX" => {
                if v.get("cc_test") != 15 {
                    return self.unimplemented(self.text());
                }
                // To ra + offset from the next instruction (BRX: ra holds an entry of a jump table) or from the
                // code segment's start (JMX).
                let base = match v.encoding.opcode {
                    "JMX" => v.signed("offset") - self.program.origin as i64,
                    _ => v.offset as i64 + 8 + v.signed("offset"),
                };
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    let target = base + i64::from(lane.reg(v.get("ra")) as i32);
                    lane.pc = self.program.index(target, v.offset)?;
                }
            }
            "SSY" | "PBK" | "PCNT" | "PRET" | "PLONGJMP" => {
                let target = self.target()?;
                let kind = SyncKind::of(v.encoding.opcode);
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    lane.sync.push((kind, target));
                    lane.pc += 1;
                }
            }
            "CAL" | "JCAL" => {
                let target = self.target()?;
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    lane.sync.push((SyncKind::Call, lane.pc + 1));
                    lane.pc = target;
                }
            }
            // SYNC, BRK, CONT and EXIT with a condition-code test pop or exit only where it holds (nxgpucatch's
            // `flow.cpp` on a Tegra X1); the other lanes go on.
            "SYNC" | "BRK" | "CONT" | "RET" | "LONGJMP" | "EXIT" if cc_holds(0, v.get("cc_test")).is_none() => {
                return self.unimplemented(self.text());
            }
            "RET" | "LONGJMP" if v.get("cc_test") != 15 => return self.unimplemented(self.text()),
            "SYNC" | "BRK" | "CONT" | "RET" | "LONGJMP" => {
                let kind = SyncKind::of(v.encoding.opcode);
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    if cc_holds(lane.cc, v.get("cc_test")) == Some(false) {
                        lane.pc += 1;
                        continue;
                    }
                    // Unwind to the innermost entry of the kind (a BRK leaves the SSYs and the PCNT inside the
                    // loop, a LONGJMP the calls it returns from).
                    let target = loop {
                        match lane.sync.pop() {
                            Some((entry, target)) if entry == kind => break Some(target),
                            Some(_) => continue,
                            None => break None,
                        }
                    };
                    match target {
                        Some(target) => lane.pc = target,
                        None => {
                            return Err(ExecError::Trap {
                                isa: Isa::Sm5x,
                                what: format!("{} with nothing of its kind on the stack", self.text()),
                                offset: v.offset,
                            });
                        }
                    }
                }
            }
            "EXIT" => {
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    if cc_holds(lane.cc, v.get("cc_test")) == Some(false) {
                        lane.pc += 1;
                    } else {
                        lane.status = LaneStatus::Exited;
                    }
                }
            }
            "BAR" => {
                // Modes 0 SYNC, 1 ARV (arrive without waiting), 2 RED (a reduction: 0 POPC, 1 AND, 2 OR of the
                // predicates, read back with B2R); an immediate barrier number and thread count.
                if v.get("mode") > 2
                    || (v.get("mode") == 2 && v.get("red") > 2)
                    || (v.get("rb") != 0 && !v.flag("b_imm"))
                {
                    return self.unimplemented(self.text());
                }
                // The barrier number: an immediate, or a (warp-uniform) register.
                let id = match lanes(self.active).next() {
                    Some(first) if !v.flag("a_imm") => self.step.warp.lanes[first].reg(v.get("ra")) as u8 & 15,
                    _ => v.get("ra") as u8 & 15,
                };
                // An immediate thread count (0: all the CTA's threads).
                self.step.barriers[id as usize].count = if v.flag("b_imm") { v.get("rb") as u32 } else { 0 };
                if v.get("mode") == 1 {
                    self.step.barriers[id as usize].arrived += self.active.count_ones();
                    self.advance_all();
                    return Ok(());
                }
                let operands = Operands { v, cbufs: self.step.cbufs };
                for i in lanes(self.active) {
                    let lane = &mut self.step.warp.lanes[i];
                    lane.status = LaneStatus::AtBarrier(id);
                    if v.get("mode") == 2 {
                        let predicate = operands.pred_src(lane, "ps");
                        let barrier = &mut self.step.barriers[id as usize];
                        barrier.reduction = Some(v.get("red") as u8);
                        barrier.true_count += u32::from(predicate);
                        barrier.participants += 1;
                    }
                }
            }
            "B2R" => {
                if v.get("mode") != 1 {
                    return self.unimplemented(self.text());
                }
                self.each(|lane, o| {
                    lane.set_reg(o.v.get("rd"), lane.barrier_result);
                    lane.set_pred(o.v.get("pd"), lane.barrier_result != 0);
                })
            }
            opcode => {
                return Err(ExecError::UnknownOpcode { isa: Isa::Sm5x, opcode, text: self.text(), offset: v.offset });
            }
        }
        Ok(())
    }

    fn memory(&mut self) -> Result {
        let v = self.v;
        let opcode = v.encoding.opcode;
        let size = v.get("size");
        if size > 6 {
            return self.unimplemented(self.text());
        }
        let bytes = access_bytes(size);
        let load_op = opcode.starts_with("LD");
        self.try_each(|lane, o, memories| {
            let base = match opcode {
                // .E: a 64-bit address in a register pair.
                "LDG" | "STG" | "LD" | "ST" if o.v.flag("e") => lane.reg64(o.v.get("ra")),
                _ => u64::from(lane.reg(o.v.get("ra"))),
            };
            let address = base.wrapping_add(o.v.signed("offset") as u64);
            let register = if load_op { o.v.get("rd") } else { o.v.get("rs") };
            match (opcode, load_op) {
                // Generic addresses: the window the address falls in decides. (The ps operand, Plg in NVIDIA's SASS
                // reference, only hints at it: true for global or local memory, false for the shared window.)
                ("LD", _) => {
                    let value = memories.generic_load(&lane.local, address, bytes)?;
                    write_loaded(lane, register, size, value);
                }
                ("ST", _) => {
                    let value = stored_value(lane, register, size);
                    memories.generic_store(&mut lane.local, address, bytes, value)?;
                }
                ("LDG", _) => {
                    let value = memories.global_load(address, bytes)?;
                    write_loaded(lane, register, size, value);
                }
                ("STG", _) => memories.global_store(address, bytes, stored_value(lane, register, size))?,
                ("LDS", _) => {
                    let address = address & 0xffff_ffff;
                    memories.access("shared", "load", address, bytes)?;
                    write_loaded(lane, register, size, load(memories.shared, address, bytes).unwrap_or(0));
                }
                ("STS", _) => {
                    let address = address & 0xffff_ffff;
                    memories.access("shared", "store", address, bytes)?;
                    store(memories.shared, address, bytes, stored_value(lane, register, size));
                }
                (_, true) => {
                    let address = address & 0xffff_ffff;
                    memories.check_local(&lane.local, "load", address, bytes)?;
                    let value = load(&lane.local, address, bytes).unwrap_or(0);
                    write_loaded(lane, register, size, value);
                }
                (_, false) => {
                    let address = address & 0xffff_ffff;
                    memories.check_local(&lane.local, "store", address, bytes)?;
                    let value = stored_value(lane, register, size);
                    store(&mut lane.local, address, bytes, value);
                }
            }
            Ok(())
        })
    }
}

/// An atomic's register operand of `bytes` (a pair for 8); RZ reads 0.
fn atomic_operand(lane: &Lane, register: u64, bytes: usize) -> u64 {
    match register {
        255.. => 0,
        _ if bytes == 8 => lane.reg64(register),
        _ => u64::from(lane.reg(register)),
    }
}

/// What a logic operation leaves: its predicate (`pred_op`: 0 F, 1 T, 2 Z (the result is zero), 3 NZ; F writes
/// false, as yuzu and Ryujinx read it) and, with .CC, the condition code of its result (zero and sign; no carry
/// or overflow).
fn logic_predicate(lane: &mut Lane, o: &Operands, result: u32) {
    if o.v.flag("cc") {
        lane.cc = condition_code(result, false, false);
    }
    if o.v.has("pd") {
        let value = match o.v.get("pred_op") {
            0 => false,
            1 => true,
            2 => result == 0,
            _ => result != 0,
        };
        lane.set_pred(o.v.get("pd"), value);
    }
}

/// The comparison field of ISETP/ISET/ICMP: F, LT, EQ, LE, GT, NE, GE, T.
fn compare_ints(a: u32, b: u32, cmp: u64, signed: bool) -> bool {
    holds(if signed { (a as i32).cmp(&(b as i32)) } else { a.cmp(&b) }, cmp)
}

/// Whether an integer comparison (F, LT, EQ, LE, GT, NE, GE, T) holds for the order of its operands.
fn holds(order: std::cmp::Ordering, cmp: u64) -> bool {
    use std::cmp::Ordering::*;
    match cmp {
        0 => false,
        1 => order == Less,
        2 => order == Equal,
        3 => order != Greater,
        4 => order == Greater,
        5 => order != Equal,
        6 => order != Less,
        _ => true,
    }
}

/// ISETP/ISET's comparison. With .X it compares the high words of a wide value with the borrow of the low
/// words' subtraction in the condition code (as a subtract-with-borrow would), and its zero flag.
fn integer_compare(lane: &Lane, o: &Operands) -> bool {
    let (a, b) = (o.reg(lane, "ra"), o.b(lane));
    let (cmp, signed) = (o.v.get("cmp"), o.v.flag("signed"));
    if !o.v.flag("x") {
        return compare_ints(a, b, cmp, signed);
    }
    // a - b - borrow, where the carry flag is "no borrow".
    let (difference, cc) = add(a, false, b, true, true, lane.cc);
    let _ = difference;
    let zero = cc & ZERO != 0;
    let less = if signed { (cc & SIGN != 0) != (cc & OVERFLOW != 0) } else { cc & CARRY == 0 };
    match cmp {
        0 => false,
        1 => less,
        2 => zero,
        3 => less || zero,
        4 => !less && !zero,
        5 => !zero,
        6 => !less,
        _ => true,
    }
}

/// I2F, F2I, I2I and F2F: writes the converted value.
/// Converts and writes the destination; returns the value written.
fn convert(lane: &mut Lane, o: &Operands) -> u64 {
    let v = o.v;
    let value = convert_value(lane, o);
    let float_source = matches!(v.encoding.opcode, "F2I" | "F2F");
    let wide = v.get("dst") == 3 && (float_source || matches!(v.encoding.opcode, "I2F" | "I2I"));
    if wide {
        lane.set_reg64(v.get("rd"), value);
    } else {
        lane.set_reg(v.get("rd"), value as u32);
    }
    value
}

/// The converted value. Sizes: integers 0 8-bit, 1 16-bit, 2 32-bit, 3 64-bit; floats 1 FP16, 2 FP32, 3 FP64.
fn convert_value(lane: &Lane, o: &Operands) -> u64 {
    let v = o.v;
    let opcode = v.encoding.opcode;
    let (src, dst) = (v.get("src"), v.get("dst"));
    let round = float::rounding(v.get("rnd"));
    let raw = o.convert_raw(lane);
    let float_source = matches!(opcode, "F2I" | "F2F");

    if float_source {
        let bits = if src == 1 { raw >> (16 * v.get("half_b")) & 0xffff } else { raw };
        let (sign, magnitude) = match src {
            1 => (1 << 15, (1u64 << 15) - 1),
            3 => (1 << 63, (1u64 << 63) - 1),
            _ => (1 << 31, (1u64 << 31) - 1),
        };
        let bits = if v.flag("abs_b") { bits & magnitude } else { bits };
        let bits = if v.flag("neg_b") { bits ^ sign } else { bits };
        if opcode == "F2I" {
            let signed = v.flag("dst_signed");
            let result = float::float_to_int(bits, src, dst, signed, round, v.flag("ftz"));
            if signed && dst < 2 {
                u64::from(((result << (64 - (8 << dst))) as i64 >> (64 - (8 << dst))) as u32)
            } else {
                result
            }
        } else {
            // F2F ignores .FTZ when either side is FP64 (nxgpucatch `f2f.cpp` "F2F Denorm", run on a Tegra X1).
            let ftz = v.flag("ftz") && src != 3 && dst != 3;
            let result = if v.flag("round_int") {
                float::round_integral(bits, src, round, ftz)
            } else {
                float::float_to_float(bits, src, dst, round, ftz)
            };
            // .SAT clamps an FP32 result, rounded to an integral value or not (PTX's cvt.rni.sat.f32.f32), or an
            // FP16 one (nxgpucatch `f2f.cpp`: F2F.F16.F16.SAT of 8 is 1.0, of -2 +0), NaN to +0.
            let nearest = float::rounding(0);
            match (v.flag("sat"), dst) {
                (true, 2) => u64::from(float::saturate32(result as u32)),
                (true, 1) => {
                    let wide = float::float_to_float(result, 1, 2, nearest, false) as u32;
                    float::float_to_float(u64::from(float::saturate32(wide)), 2, 1, nearest, false)
                }
                _ => result,
            }
        }
    } else {
        // An integer source: its part (byte_b), extended, with abs/neg.
        let signed = v.flag("src_signed");
        let width = 8u32 << src;
        let shifted = if width < 32 { raw >> (8 * v.get("byte_b")) } else { raw };
        let value = if width == 64 {
            shifted as i64
        } else if signed {
            ((shifted << (64 - width)) as i64) >> (64 - width)
        } else {
            (shifted & ((1u64 << width) - 1)) as i64
        };
        let value = if v.flag("abs_b") { value.wrapping_abs() } else { value };
        let value = if v.flag("neg_b") { value.wrapping_neg() } else { value };
        if opcode == "I2F" {
            // A signed source's .ABS and .NEG wrap in its width: -(-128) of an S8 is -128 (nxgpucatch `i2f.cpp`
            // "I2F Undefined", run on a Tegra X1).
            let value = if signed && width < 64 { (value << (64 - width)) >> (64 - width) } else { value };
            float::int_to_float(value as u64, signed || v.flag("neg_b"), dst, round)
        } else {
            // I2I: to the destination width, saturating with .SAT, else truncating.
            let dst_width = 8u32 << dst;
            let dst_signed = v.flag("dst_signed");
            let (low, high) = if dst_signed {
                (-(1i128 << (dst_width - 1)), (1i128 << (dst_width - 1)) - 1)
            } else {
                (0, (1i128 << dst_width) - 1)
            };
            let wide =
                if signed || v.flag("abs_b") || v.flag("neg_b") { i128::from(value) } else { i128::from(value as u64) };
            let clamped = if v.flag("sat") { wide.clamp(low, high) } else { wide };
            let truncated = clamped as u64 & if dst_width == 64 { u64::MAX } else { (1u64 << dst_width) - 1 };
            // Below 32 bits the result is zero-extended, but sign-extended when saturated to a signed width
            // (nxgpucatch `i2i.cpp`: "destination sign only matters when saturating").
            if dst_signed && v.flag("sat") && dst_width < 32 {
                ((truncated << (64 - dst_width)) as i64 >> (64 - dst_width)) as u32 as u64
            } else {
                truncated
            }
        }
    }
}

/// A condition-code test (the `cc_test` field) as a Tegra X1 evaluates each over the 16 states of the flags
/// (nxgpucatch `cset.cpp` "CSET Simple"): F, LT, EQ, LE, GT, NE, GE (signed comparisons of a subtraction's flags,
/// where S and Z together, a NaN's encoding, is none of LT, EQ, LE), NUM, NAN, the unordered ones, T, the unsigned
/// LO, LS, HI, HS, single flags (OFF, SFF, SFT, OFT), RLE and RGT; `None` for the codes no source defines.
fn cc_holds(cc: u8, test: u64) -> Option<bool> {
    let (zero, sign, carry, overflow) = (cc & ZERO != 0, cc & SIGN != 0, cc & CARRY != 0, cc & OVERFLOW != 0);
    let less = sign != overflow;
    Some(match test {
        0 => false,
        1 => (sign && !zero) != overflow,
        2 => !sign && zero,
        3 => sign != (zero || overflow),
        4 => !less && !zero,
        5 => !zero,
        6 => !less,
        7 => !(sign && zero),
        8 => sign && zero,
        9 => less,
        10 => zero,
        11 => less || zero,
        12 => sign == (zero || overflow),
        13 => sign || !zero,
        14 => (!sign || zero) != overflow,
        15 => true,
        16 => !overflow,
        17 => !carry,
        18 => !sign,
        19 => !carry || zero,
        20 => carry && !zero,
        21 => sign,
        22 => carry,
        23 => overflow,
        30 => sign || zero,
        31 => !sign && !zero,
        _ => return None,
    })
}

/// A comparison's outcome combined with the predicate source by the boolean op: as a register for the SET forms
/// (ISET, FSET, DSET, CSET, PSET: all ones, or 1.0 with .BF, where it holds, else 0; with .CC, the flags of that
/// value), or as two predicates for the SETP forms (the outcome's and its negation's).
/// A video instruction's a and b: parts of their registers, or b a 16-bit immediate (shift amounts unsigned).
fn video_sources(lane: &Lane, o: &Operands) -> (i128, i128) {
    let v = o.v;
    let a = video::part(o.reg(lane, "ra"), v.get("sel_a"), v.flag("signed_a"));
    let (b, selector) = if v.has("imm16") { (v.get("imm16") as u32, 4) } else { (o.reg(lane, "rb"), v.get("sel_b")) };
    (a, video::part(b, selector, v.flag("signed_b")))
}

fn set_comparison(lane: &mut Lane, o: &Operands, holds: bool) {
    let (op, ps) = (o.v.get("bop"), o.pred_src(lane, "ps"));
    if !o.v.has("rd") {
        lane.set_pred(o.v.get("pd"), boolean(op, holds, ps));
        lane.set_pred(o.v.get("pq"), boolean(op, !holds, ps));
        return;
    }
    let value = match (boolean(op, holds, ps), o.v.flag("bf")) {
        (true, true) => 0x3f80_0000,
        (true, false) => u32::MAX,
        _ => 0,
    };
    lane.set_reg(o.v.get("rd"), value);
    if o.v.flag("cc") {
        lane.cc = condition_code(value, false, false);
    }
}

/// HADD2, HMUL2, HFMA2 (and their 32-bit-immediate forms) on FP16 pairs. Output modes: 0 the pair, 1 one FP32
/// (from the low halves), 2 the low result into the destination's low half (MRG_H0), 3 the high result into its
/// high half (MRG_H1), the other half kept (nxgpucatch `hadd2.cpp`, `hmul2.cpp`, run on a Tegra X1).
fn half_arithmetic(lane: &mut Lane, o: &Operands) {
    let v = o.v;
    let op = match v.encoding.opcode {
        "HADD2" | "HADD2_32I" => float::ArithOp::Add,
        "HMUL2" | "HMUL2_32I" => float::ArithOp::Mul,
        _ => float::ArithOp::Fma,
    };
    let a = o.half_pair(o.reg(lane, "ra"), o.v.get("swz_a"), "neg_a", "abs_a");
    let b = o.half_b(lane);
    let c_swizzle = if o.form() == "cbuf_c" { CONSTANT_HALVES } else { o.v.get("swz_c") };
    let c = if op == float::ArithOp::Fma { o.half_pair(o.c(lane), c_swizzle, "neg_c", "abs_c") } else { [0; 2] };
    let ftz = v.flag("ftz") || v.get("fmz") == 1;
    let mode = float::HalfMode { ftz, sat: v.flag("sat"), relu: false, bf16: false };
    let rd = v.get("rd");
    match v.get("out") {
        1 => lane.set_reg(rd, float::half_arith_to_f32(op, a[0], b[0], c[0], mode)),
        out => {
            let low = float::half_arith(op, a[0], b[0], c[0], mode);
            let high = float::half_arith(op, a[1], b[1], c[1], mode);
            let old = lane.reg(rd);
            let value = match out {
                2 => old & 0xffff_0000 | u32::from(low),
                3 => old & 0xffff | u32::from(high) << 16,
                _ => u32::from(high) << 16 | u32::from(low),
            };
            lane.set_reg(rd, value);
        }
    }
}
