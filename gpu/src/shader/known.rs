//! What the statements of the block being built say a value is, without running it: a constant
//! (`known_constant`: sample offsets, which Vulkan takes only as constants) or the constant-buffer words a
//! bindless texture handle was made of (`traced_handle`). Both follow guest registers back through the block's
//! own writes (`definition`), never into earlier blocks or through guarded writes.

use super::ir::{BinOp, HandlePart, Op, Stmt, Type, Value};
use super::lower::Lower;

impl Lower<'_> {
    /// The U32 that `value` is wherever it is computed, when the statements of its block before it fix it: a
    /// constant, a register the block set outside any guard to such a value, or an integer operation on such
    /// values. `None` when it depends on anything else (an earlier block, memory, a guarded write). Sample
    /// offsets use it: Vulkan takes them only as constants, and shaders load them into registers as immediates.
    pub(super) fn known_constant(&self, value: Value) -> Option<u32> {
        match *self.definition(value)? {
            Op::Const(Type::U32, bits) => Some(bits as u32),
            Op::Binary(op, a, b) if self.program.types[value.0 as usize] == Type::U32 => {
                fold_u32(op, self.known_constant(a)?, self.known_constant(b)?)
            }
            _ => None,
        }
    }

    /// The constant-buffer words a bindless texture handle `value` is made of, when the statements of its block
    /// before it fix them (as `known_constant` follows registers): one word loaded whole, or an OR of two, each
    /// masked (AND with a known constant) and shifted (SHL by one) along the way, the shapes yuzu and Ryujinx
    /// recognise in NVN's code (`gpu/research/bindless.md`). `None` for anything else.
    pub(super) fn traced_handle(&self, value: Value) -> Option<[Option<HandlePart>; 2]> {
        match *self.definition(value)? {
            Op::ConstantLoad { bank, offset } => {
                let part = HandlePart { bank, offset: self.known_constant(offset)?, mask: u32::MAX, shift: 0 };
                Some([Some(part), None])
            }
            Op::Binary(BinOp::Or, a, b) => match (self.traced_handle(a)?, self.traced_handle(b)?) {
                ([first, None], [second, None]) => Some([first, second]),
                _ => None,
            },
            Op::Binary(op @ (BinOp::And | BinOp::Shl), a, b) => {
                let (traced, amount) = match (self.known_constant(a), self.known_constant(b)) {
                    (None, Some(constant)) => (a, constant),
                    (Some(constant), None) if op == BinOp::And => (b, constant),
                    _ => return None,
                };
                let parts = self.traced_handle(traced)?;
                Some(parts.map(|part| {
                    part.map(|part| match op {
                        // (w & m) << s & k is (w & (m & k >> s)) << s.
                        BinOp::And => {
                            HandlePart { mask: part.mask & amount.checked_shr(part.shift).unwrap_or(0), ..part }
                        }
                        _ => HandlePart { shift: part.shift.saturating_add(amount).min(32), ..part },
                    })
                }))
            }
            _ => None,
        }
    }

    /// The op that computes `value`, seen through register reads to what the block last wrote there (outside
    /// any guard): the definitions `known_constant` and `traced_handle` follow.
    fn definition(&self, value: Value) -> Option<&Op> {
        self.defined(value)?.1
    }

    /// `value` seen through register reads as `definition` sees it, and through adding, ORing or XORing a known
    /// 0 (the moves ptxas writes as `IMAD.MOV.U32 Rd, RZ, RZ, Rs`): the value they copy, itself when it is no
    /// copy or the block did not write the register. A handle's identity: copies of a handle the block loaded
    /// once are one handle.
    pub(super) fn origin(&self, value: Value) -> Value {
        match self.defined(value) {
            Some((_, Some(&Op::Binary(BinOp::Add | BinOp::Or | BinOp::Xor, a, b)))) => {
                match (self.known_constant(a), self.known_constant(b)) {
                    (Some(0), _) => self.origin(b),
                    (_, Some(0)) => self.origin(a),
                    _ => value,
                }
            }
            Some((origin, _)) => origin,
            None => value,
        }
    }

    /// The value `value` reads through register reads, with its op when the block computes it.
    fn defined(&self, value: Value) -> Option<(Value, Option<&Op>)> {
        let lists = &self.stmts[self.stmts.len() - 1 - self.open_guards..];
        for (depth, list) in lists.iter().enumerate().rev() {
            let Some(position) = list.iter().position(|s| matches!(s, Stmt::Op(v, _) if *v == value)) else {
                continue;
            };
            let Stmt::Op(_, op) = &list[position] else { unreachable!("matched an op above") };
            return match *op {
                Op::GetReg(register) => match self.register_source(lists, register, depth, position) {
                    Some(source) => self.defined(source),
                    None => Some((value, None)),
                },
                _ => Some((value, Some(op))),
            };
        }
        None
    }

    /// The value the block last wrote to `register` before statement `position` of `lists[depth]` (see
    /// `known_constant`).
    fn register_source(&self, lists: &[Vec<Stmt>], register: u8, depth: usize, position: usize) -> Option<Value> {
        let mut end = position;
        for depth in (0..=depth).rev() {
            for stmt in lists[depth][..end].iter().rev() {
                match stmt {
                    Stmt::Op(_, Op::SetReg(r, value)) if *r == register => return Some(*value),
                    Stmt::If(_, body) if writes_register(body, register) => return None,
                    _ => {}
                }
            }
            // The guard body at `depth` is not in its parent list until it closes: all of the parent precedes it.
            end = depth.checked_sub(1).map_or(0, |parent| lists[parent].len());
        }
        None
    }
}

/// Whether any statement of `body` (or of a guard within it) writes `register`.
fn writes_register(body: &[Stmt], register: u8) -> bool {
    body.iter().any(|stmt| match stmt {
        Stmt::Op(_, Op::SetReg(r, _)) => *r == register,
        Stmt::If(_, inner) => writes_register(inner, register),
        Stmt::Op(..) => false,
    })
}

/// `op` on two U32 as the emitter computes it (shifts past the width give 0, or the sign); `None` for the
/// operations no offset packing uses.
fn fold_u32(op: BinOp, a: u32, b: u32) -> Option<u32> {
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a.checked_shl(b).unwrap_or(0),
        BinOp::ShrU => a.checked_shr(b).unwrap_or(0),
        BinOp::ShrS => (a as i32).checked_shr(b).unwrap_or((a as i32) >> 31) as u32,
        _ => return None,
    })
}
