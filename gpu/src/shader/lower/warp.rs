//! Warp exchanges at 32 lanes (SHFL, VOTE, REDUX, MATCH, R2UR, the matrix loads and products): published through
//! shared memory across a barrier in compute stages, the host's subgroup and quad operations in graphics stages.

use super::Lower;
use crate::sass::text::View;
use crate::shader::ir::{BinOp, Block, Cmp, Op, QuadShuffle, Space, Special, Terminator, UnOp, Value, Vote};

/// The shuffle of a SHFL confined to quads that a graphics stage does with the host's quad operations: the lane
/// and the clamp word immediate, the segment mask 0x1c (quads) with clamp 3 (every lane of the quad in range, so
/// the predicate is true), BFLY by 1-3 or IDX of lane 0-3, unguarded (every pixel takes part). What NVIDIA's
/// compilers and nouveau write for derivatives: SHFL.BFLY by 1 or 2 with 0x1c03.
pub(in crate::shader) fn quad_shuffle(v: &View) -> Option<QuadShuffle> {
    let lane = ["imm5", "lane"].into_iter().find(|f| v.has(f)).map(|f| v.get(f))?;
    let clamp = ["imm13", "clamp"].into_iter().find(|f| v.has(f)).map(|f| v.get(f))?;
    let unguarded = v.get("pg") == 7 && !v.flag("pg_not");
    if v.encoding.opcode != "SHFL" || clamp != 0x1c03 || !unguarded {
        return None;
    }
    match (v.get("mode"), lane) {
        (0, 0..=3) => Some(QuadShuffle::Broadcast(lane as u8)),
        (3, 1..=3) => Some(QuadShuffle::Swap(lane as u8)),
        _ => None,
    }
}

impl Lower<'_> {
    /// Whether instruction `v` is lowered as a warp exchange, which ends its block: not a quad shuffle or a vote
    /// of a graphics stage (`quad_shuffle`, `subgroup_vote_result`).
    pub(in crate::shader) fn exchanges_lanes(v: &View, graphics: bool) -> bool {
        let host_subgroup = quad_shuffle(v).is_some() || matches!(v.encoding.opcode, "VOTE" | "VOTEU");
        Self::is_warp_exchange(v.encoding.opcode) && !(graphics && host_subgroup)
    }

    /// VOTE (VOTEU) of a graphics stage, whose warp is the host's subgroup: rd (urd) the ballot of the lanes that
    /// run it with ps true, pd (upd) their vote (`mode` 0 all, 1 any, 2 all equal), as `vote_result` gives them.
    pub(in crate::shader) fn subgroup_vote_result(&mut self, v: &View) {
        let p = self.pred_src(v, "ps");
        let ballot = self.op(Op::SubgroupBallot(p));
        let vote = match v.get("mode") {
            0 => Vote::All,
            1 => Vote::Any,
            _ => Vote::Equal,
        };
        let result = self.op(Op::SubgroupVote(p, vote));
        self.set_vote(v, ballot, result);
    }

    /// A VOTE's (VOTEU's) ballot into rd (urd), its vote into pd (upd).
    fn set_vote(&mut self, v: &View, ballot: Value, vote: Value) {
        if v.encoding.opcode == "VOTEU" {
            self.set_ureg(v.get("urd"), ballot);
            self.set_upred(v.get("upd"), vote);
        } else {
            self.set_reg(v.get("rd"), ballot);
            self.set_pred(v.get("pd"), vote);
        }
    }

    /// A quad shuffle of a graphics stage (`quad_shuffle`): rd the other pixel's ra, pd true.
    pub(in crate::shader) fn quad_shuffle_result(&mut self, v: &View, shuffle: QuadShuffle) {
        let value = self.reg(v.get("ra"));
        let result = self.op(Op::QuadShuffle(value, shuffle));
        self.set_reg(v.get("rd"), result);
        let t = self.bool(true);
        self.set_pred(v.get("pd"), t);
    }

    /// Whether `opcode` is a warp exchange [`Lower::warp_exchange`] lowers (the ISAs share the names and the
    /// fields that matter).
    pub(in crate::shader) fn is_warp_exchange(opcode: &str) -> bool {
        matches!(opcode, "SHFL" | "VOTE" | "VOTEU" | "REDUX" | "MATCH" | "R2UR" | "MOVM" | "LDSM")
            || Self::is_matrix_product(opcode)
    }

    /// Whether `opcode` is one of the warp's matrix products (`mma.rs`).
    pub(in crate::shader) fn is_matrix_product(opcode: &str) -> bool {
        matches!(opcode, "HMMA" | "IMMA" | "BMMA" | "DMMA")
    }

    /// A warp exchange at 32 lanes (SHFL, VOTE, VOTEU, REDUX, MATCH, R2UR, MOVM, LDSM, the matrix products): the
    /// thread publishes its values (under `guard`, computed again in each block that needs it, except for the
    /// exchanges every lane offers to); the block ends at a barrier; a block of its own at `offset + 1` reads
    /// its warp's values and writes the results, then goes on at `next`.
    pub(in crate::shader) fn warp_exchange(
        &mut self,
        v: &View,
        next: u32,
        guard: &dyn Fn(&mut Self) -> Option<Value>,
    ) -> Terminator {
        let opcode = v.encoding.opcode;
        let post = v.offset as u32 + 1;
        // A shuffle reads its source lane's register even where that lane's guard is false (the interpreter's
        // model; the hardware leaves it undefined): every lane offers its value, as every lane offers its row's
        // address to LDSM and its operands to a matrix product. Votes and reductions count only the lanes that
        // run the instruction.
        let offered = matches!(opcode, "SHFL" | "LDSM") || Self::is_matrix_product(opcode);
        let condition = if offered { None } else { guard(self) };
        self.guarded(condition, |l| {
            if Self::is_matrix_product(opcode) {
                let values = l.matrix_operands(v);
                l.op(Op::WarpPublish(values));
                return;
            }
            let value = if matches!(opcode, "VOTE" | "VOTEU") {
                let p = l.pred_src(v, "ps");
                l.un(UnOp::BoolToU32, p)
            } else if opcode == "LDSM" {
                let base = l.reg(v.get("ra"));
                let offset = l.const32(v.signed("offset") as u32);
                l.bin(BinOp::Add, base, offset)
            } else if opcode == "MATCH" && v.flag("wide") {
                l.reg64(v.get("ra"))
            } else {
                l.reg(v.get("ra"))
            };
            l.op(Op::WarpPublish(vec![value]));
        });
        self.stmts.push(Vec::new());
        // Results in uniform registers are the warp's: every lane's copy gets them, whatever its guard.
        let condition = if matches!(opcode, "VOTEU" | "REDUX" | "R2UR") { None } else { guard(self) };
        self.guarded(condition, |l| match opcode {
            "SHFL" => l.shuffle_result(v),
            "VOTE" | "VOTEU" => l.vote_result(v),
            "MATCH" => l.match_result(v),
            "R2UR" => l.first_lane_result(v),
            "MOVM" => l.transpose_result(v),
            "LDSM" => l.matrix_load_result(v),
            _ if Self::is_matrix_product(opcode) => l.matrix_product_result(v),
            _ => l.reduce_result(v),
        });
        let body = self.stmts.pop().expect("pushed above");
        self.program.blocks.push(Block { start: post, body, terminator: Terminator::Jump(next) });
        Terminator::Barrier(post)
    }

    /// MOVM.16.MT88 (the interpreter's `transpose_matrix`): lane i's row i / 4, columns c = 2 (i % 4) and c + 1
    /// of the transpose, element (r, c) being half c % 2 of lane 4 r + c / 2's published word.
    fn transpose_result(&mut self, v: &View) {
        let index = self.op(Op::Special(Special::LaneId));
        let (two, three, four, sixteen) = (self.const32(2), self.const32(3), self.const32(4), self.const32(16));
        let quarter = self.bin(BinOp::And, index, three);
        let column = self.bin(BinOp::Mul, quarter, two);
        let row = self.bin(BinOp::ShrU, index, two);
        let one = self.const32(1);
        // Elements (column, row) and (column + 1, row): lanes 4 column + row / 2 and 4 more, half row % 2.
        let base = self.bin(BinOp::Mul, column, four);
        let pair = self.bin(BinOp::ShrU, row, one);
        let first = self.bin(BinOp::Add, base, pair);
        let second = self.bin(BinOp::Add, first, four);
        let parity = self.bin(BinOp::And, row, one);
        let shift = self.bin(BinOp::Mul, parity, sixteen);
        let mask = self.const32(0xffff);
        let [low, high] = [first, second].map(|lane| {
            let word = self.op(Op::WarpRead { lane, word: 0 });
            let moved = self.bin(BinOp::ShrU, word, shift);
            self.bin(BinOp::And, moved, mask)
        });
        let high = self.bin(BinOp::Shl, high, sixteen);
        let value = self.bin(BinOp::Or, low, high);
        self.set_reg(v.get("rd"), value);
    }

    /// LDSM.16.M88 / .MT88 (the interpreter's `load_matrices` and `mma::matrix_word`): word j of lane l from
    /// matrix j, whose row r lies at the shared address lane 8j + r published. Untransposed, row l / 4's bytes
    /// 4 (l % 4) on; transposed, halves from column l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1.
    fn matrix_load_result(&mut self, v: &View) {
        let index = self.op(Op::Special(Special::LaneId));
        let (one, two, three, four) = (self.const32(1), self.const32(2), self.const32(3), self.const32(4));
        let quarter = self.bin(BinOp::And, index, three);
        let group = self.bin(BinOp::ShrU, index, two);
        for j in 0..1u32 << v.get("count") {
            let first_row = self.const32(8 * j);
            let value = if v.flag("trans") {
                let column = self.bin(BinOp::Mul, group, two);
                let pair = self.bin(BinOp::Mul, quarter, two);
                let row = self.bin(BinOp::Add, first_row, pair);
                let [low, high] = [row, self.bin(BinOp::Add, row, one)].map(|row| {
                    let start = self.op(Op::WarpRead { lane: row, word: 0 });
                    let address = self.bin(BinOp::Add, start, column);
                    self.op(Op::LoadSub { space: Space::Shared, address, bytes: 2 })
                });
                let sixteen = self.const32(16);
                let high = self.bin(BinOp::Shl, high, sixteen);
                self.bin(BinOp::Or, low, high)
            } else {
                let row = self.bin(BinOp::Add, first_row, group);
                let start = self.op(Op::WarpRead { lane: row, word: 0 });
                let column = self.bin(BinOp::Mul, quarter, four);
                let address = self.bin(BinOp::Add, start, column);
                self.op(Op::Load { space: Space::Shared, address })
            };
            self.set_reg(v.get("rd") + u64::from(j), value);
        }
    }

    /// SHFL: the lane's source (the interpreter's `shuffle_source`: b the lane or offset, c the clamp in 4:0
    /// and the segment mask in 12:8; modes IDX, UP, DOWN, BFLY), its value, and whether it was in range.
    fn shuffle_result(&mut self, v: &View) {
        let index = self.op(Op::Special(Special::LaneId));
        let b = match ["imm5", "lane"].into_iter().find(|f| v.has(f)) {
            Some(field) => self.const32(v.get(field) as u32),
            None => self.reg(v.get("rb")),
        };
        let thirty_one = self.const32(31);
        let b = self.bin(BinOp::And, b, thirty_one);
        let c = match ["imm13", "clamp"].into_iter().find(|f| v.has(f)) {
            Some(field) => self.const32(v.get(field) as u32),
            None => self.reg(v.get("rc")),
        };
        let clamp = self.bin(BinOp::And, c, thirty_one);
        let eight = self.const32(8);
        let segment = self.bin(BinOp::ShrU, c, eight);
        let segment = self.bin(BinOp::And, segment, thirty_one);
        let all = self.const32(u32::MAX);
        let outside = self.bin(BinOp::Xor, segment, all);
        let min_lane = self.bin(BinOp::And, index, segment);
        let clamp_part = self.bin(BinOp::And, clamp, outside);
        let max_lane = self.bin(BinOp::Or, min_lane, clamp_part);
        let (source, valid) = match v.get("mode") {
            0 => {
                let b_part = self.bin(BinOp::And, b, outside);
                let j = self.bin(BinOp::Or, min_lane, b_part);
                (j, self.cmp(Cmp::LeU, j, max_lane))
            }
            1 => {
                let j = self.bin(BinOp::Sub, index, b);
                (j, self.cmp(Cmp::GeS, j, max_lane))
            }
            2 => {
                let j = self.bin(BinOp::Add, index, b);
                (j, self.cmp(Cmp::LeU, j, max_lane))
            }
            _ => {
                let j = self.bin(BinOp::Xor, index, b);
                (j, self.cmp(Cmp::LeU, j, max_lane))
            }
        };
        let source = self.select(valid, source, index);
        let value = self.op(Op::WarpRead { lane: source, word: 0 });
        self.set_reg(v.get("rd"), value);
        self.set_pred(v.get("pd"), valid);
    }

    /// The warp's lanes that published a true predicate (the ballot) and those that published at all.
    fn ballot(&mut self) -> (Value, Value) {
        let (mut ballot, mut active) = (self.const32(0), self.const32(0));
        let zero = self.const32(0);
        for lane in 0..32 {
            let index = self.const32(lane);
            let bit = self.const32(1 << lane);
            let value = self.op(Op::WarpRead { lane: index, word: 0 });
            let set = self.cmp(Cmp::Ne, value, zero);
            let vote = self.select(set, bit, zero);
            ballot = self.bin(BinOp::Or, ballot, vote);
            let present = self.op(Op::WarpPresent(index));
            let member = self.select(present, bit, zero);
            active = self.bin(BinOp::Or, active, member);
        }
        (ballot, active)
    }

    /// VOTE: the ballot in Rd, and ALL, ANY or EQ of it in Pd.
    fn vote_result(&mut self, v: &View) {
        let (ballot, active) = self.ballot();
        let zero = self.const32(0);
        let all = self.cmp(Cmp::Eq, ballot, active);
        let any = self.cmp(Cmp::Ne, ballot, zero);
        let result = match v.get("mode") {
            0 => all,
            1 => any,
            _ => {
                let none = self.un(UnOp::LogicalNot, any);
                self.select(all, all, none)
            }
        };
        self.set_vote(v, ballot, result);
    }

    /// R2UR: the value of the lowest lane that ran it, into a uniform register (left as it was when none did).
    fn first_lane_result(&mut self, v: &View) {
        let mut value = self.ureg(v.get("urd"));
        for lane in (0..32).rev() {
            let index = self.const32(lane);
            let offered = self.op(Op::WarpRead { lane: index, word: 0 });
            let present = self.op(Op::WarpPresent(index));
            value = self.select(present, offered, value);
        }
        self.set_ureg(v.get("urd"), value);
    }

    /// MATCH (32- or 64-bit values): .ANY gives the lanes whose value equals this lane's; .ALL gives every lane
    /// when all are equal (else 0) and whether they are.
    fn match_result(&mut self, v: &View) {
        let wide = v.flag("wide");
        let lane = self.op(Op::Special(Special::LaneId));
        let mine = self.op(Op::WarpRead { lane, word: 0 });
        let mine_high = wide.then(|| self.op(Op::WarpRead { lane, word: 1 }));
        let (zero, t) = (self.const32(0), self.bool(true));
        let (mut same, mut active, mut all_equal) = (self.const32(0), self.const32(0), t);
        for other in 0..32 {
            let index = self.const32(other);
            let bit = self.const32(1 << other);
            let value = self.op(Op::WarpRead { lane: index, word: 0 });
            let present = self.op(Op::WarpPresent(index));
            let mut equal = self.cmp(Cmp::Eq, value, mine);
            let f = self.bool(false);
            if let Some(mine_high) = mine_high {
                let high = self.op(Op::WarpRead { lane: index, word: 1 });
                let high_equal = self.cmp(Cmp::Eq, high, mine_high);
                equal = self.select(equal, high_equal, f);
            }
            let matches = self.select(present, equal, f);
            let member = self.select(matches, bit, zero);
            same = self.bin(BinOp::Or, same, member);
            let member = self.select(present, bit, zero);
            active = self.bin(BinOp::Or, active, member);
            let differs = self.un(UnOp::LogicalNot, equal);
            let breaks = self.select(present, differs, f);
            all_equal = self.select(breaks, f, all_equal);
        }
        if v.flag("any") {
            self.set_reg(v.get("rd"), same);
        } else {
            let value = self.select(all_equal, active, zero);
            self.set_reg(v.get("rd"), value);
            self.set_pred(v.get("pd"), all_equal);
        }
    }

    /// REDUX: AND, OR, XOR, SUM, MIN or MAX of the warp's published values into a uniform register.
    fn reduce_result(&mut self, v: &View) {
        let op = v.get("op");
        let signed = v.flag("signed");
        let (combine, identity) = match op {
            0 => (BinOp::And, u32::MAX),
            1 => (BinOp::Or, 0),
            2 => (BinOp::Xor, 0),
            3 => (BinOp::Add, 0),
            4 if signed => (BinOp::MinS, i32::MAX as u32),
            4 => (BinOp::MinU, u32::MAX),
            _ if signed => (BinOp::MaxS, i32::MIN as u32),
            _ => (BinOp::MaxU, 0),
        };
        let identity = self.const32(identity);
        let (mut result, mut any) = (identity, self.bool(false));
        for lane in 0..32 {
            let index = self.const32(lane);
            let value = self.op(Op::WarpRead { lane: index, word: 0 });
            let present = self.op(Op::WarpPresent(index));
            let value = self.select(present, value, identity);
            result = self.bin(combine, result, value);
            let t = self.bool(true);
            any = self.select(present, t, any);
        }
        // No lane ran it (all guards false): 0, as the interpreter has it.
        let zero = self.const32(0);
        let result = self.select(any, result, zero);
        self.set_ureg(v.get("urd"), result);
    }
}
