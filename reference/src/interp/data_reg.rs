//! C4.1.95 Data processing -- register.

use super::data_imm::logical_flags;
use super::pac::{PacKey, add_pac, add_pac_ga, auth, strip};
use super::pseudocode::{
    ExtendType, ShiftType, add_with_carry, bit_reverse, condition_holds, count_leading_sign_bits,
    count_leading_zero_bits, datasize, extend_reg, ones, poly32_mod2, ror, shift_reg, sign_extend,
};
use super::{Exec, Step};
use crate::state::Flags;

impl Exec<'_> {
    /// UDIV, SDIV, LSLV, LSRV, ASRV, RORV, PACGA, CRC32*, CRC32C*.
    pub(super) fn data_processing_2_source(
        &mut self,
        word: u32,
        sf: u32,
        s: u32,
        rm: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if s == 1 {
            return self.unallocated(word);
        }
        let operand1 = self.x(rn, size);
        let operand2 = self.x(rm, size);
        let result = match opcode {
            0b000010 => operand1.checked_div(operand2).unwrap_or(0), // UDIV
            0b000011 => {
                // SDIV: RoundTowardsZero(Real(operand1) / Real(operand2)); the one overflow wraps to INT_MIN.
                let (a, b) = (sign_extend(operand1, size) as i64, sign_extend(operand2, size) as i64);
                if b == 0 { 0 } else { a.wrapping_div(b) as u64 }
            }
            0b001000..=0b001011 => {
                let shift_type = ShiftType::decode(opcode);
                shift_reg(operand1, shift_type, (operand2 % u64::from(size)) as u32, size)
            }
            0b001100 if sf == 1 => {
                // PACGA: the modifier is SP when m == 31.
                let modifier = self.x_or_sp(rm, 64);
                add_pac_ga(operand1, modifier, self.keys.apga)
            }
            0b010000..=0b010111 => return self.crc32(word, sf, opcode, rm, rn, rd),
            _ => return self.unallocated(word),
        };
        self.set_x(rd, result, size);
        Ok(())
    }

    /// CRC32B/H/W/X and CRC32CB/CH/CW/CX.
    fn crc32(&mut self, word: u32, sf: u32, opcode: u32, rm: u32, rn: u32, rd: u32) -> Step {
        let sz = opcode & 0b11;
        let crc32c = opcode & 0b100 != 0;
        if (sf == 1 && sz != 0b11) || (sf == 0 && sz == 0b11) {
            return self.unallocated(word);
        }
        let size = 8 << sz;
        let acc = self.x(rn, 32);
        let val = self.x(rm, size);
        let poly: u32 = if crc32c { 0x1edc_6f41 } else { 0x04c1_1db7 };
        let tempacc = u128::from(bit_reverse(acc, 32)) << size;
        let tempval = u128::from(bit_reverse(val, size)) << 32;
        let result = bit_reverse(u64::from(poly32_mod2(tempacc ^ tempval, poly, 32 + size)), 32);
        self.set_x(rd, result, 32);
        Ok(())
    }

    /// RBIT, REV16, REV32, REV, CLZ, CLS, and the pointer authentication forms (opcode2 = 00001): PACIA, PACIZA,
    /// PACIB, PACIZB, PACDA, PACDZA, PACDB, PACDZB, AUTIA, AUTIZA, AUTIB, AUTIZB, AUTDA, AUTDZA, AUTDB, AUTDZB, XPACI,
    /// XPACD.
    pub(super) fn data_processing_1_source(
        &mut self,
        word: u32,
        sf: u32,
        s: u32,
        opcode2: u32,
        opcode: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if s == 1 {
            return self.unallocated(word);
        }
        if opcode2 == 0b00001 && sf == 1 {
            return self.pointer_authentication_1_source(word, opcode, rn, rd);
        }
        if opcode2 != 0 {
            return self.unallocated(word);
        }
        let operand = self.x(rn, size);
        let result = match (opcode, sf) {
            (0b000000, _) => bit_reverse(operand, size),
            (0b000001, _) => reverse_bytes_in_containers(operand, 16, size),
            (0b000010, 1) => reverse_bytes_in_containers(operand, 32, size),
            (0b000010, 0) | (0b000011, 1) => reverse_bytes_in_containers(operand, size, size),
            (0b000100, _) => u64::from(count_leading_zero_bits(operand, size)),
            (0b000101, _) => u64::from(count_leading_sign_bits(operand, size)),
            _ => return self.unallocated(word),
        };
        self.set_x(rd, result, size);
        Ok(())
    }

    /// The PAC*, AUT* and XPAC* forms of data-processing (1 source): opcode = 00 Z A D B (Z: zero modifier, A:
    /// authenticate, D: data key, B: key B), or 01000 D for XPACI/XPACD.
    fn pointer_authentication_1_source(&mut self, word: u32, opcode: u32, rn: u32, rd: u32) -> Step {
        let bit = |n: u32| opcode >> n & 1 == 1;
        let result = match opcode {
            0b000000..=0b001111 => {
                let (zero_modifier, authenticate) = (bit(3), bit(2));
                let key = PacKey::decode(bit(1), bit(0));
                // PACIZA ... AUTDZB take Rn = 11111 and use a zero modifier; the others use `X[n]`, or SP for 31.
                if zero_modifier && rn != 31 {
                    return self.unallocated(word);
                }
                let modifier = if zero_modifier { 0 } else { self.x_or_sp(rn, 64) };
                let pointer = self.x(rd, 64);
                if authenticate { auth(key, pointer, modifier) } else { add_pac(key, pointer, modifier) }
            }
            // XPACI, XPACD: `X[d] = Strip(X[d], data)`.
            0b010000 | 0b010001 if rn == 31 => strip(self.x(rd, 64)),
            _ => return self.unallocated(word),
        };
        self.set_x(rd, result, 64);
        Ok(())
    }

    /// AND, BIC, ORR, ORN, EOR, EON, ANDS, BICS (shifted register).
    pub(super) fn logical_shifted_register(
        &mut self,
        word: u32,
        sf: u32,
        opc: u32,
        shift: u32,
        n: u32,
        rm: u32,
        imm6: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if sf == 0 && imm6 & 0x20 != 0 {
            return self.unallocated(word);
        }
        let operand1 = self.x(rn, size);
        let mut operand2 = shift_reg(self.x(rm, size), ShiftType::decode(shift), imm6, size);
        if n == 1 {
            operand2 = !operand2 & ones(size);
        }
        let result = match opc {
            0b00 | 0b11 => operand1 & operand2,
            0b01 => operand1 | operand2,
            _ => operand1 ^ operand2,
        };
        if opc == 0b11 {
            self.set_flags(logical_flags(result, size));
        }
        self.set_x(rd, result, size);
        Ok(())
    }

    /// ADD, ADDS, SUB, SUBS (shifted register).
    pub(super) fn add_sub_shifted_register(
        &mut self,
        word: u32,
        sf: u32,
        op: u32,
        s: u32,
        shift: u32,
        rm: u32,
        imm6: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if shift == 0b11 || (sf == 0 && imm6 & 0x20 != 0) {
            return self.unallocated(word);
        }
        let operand1 = self.x(rn, size);
        let operand2 = shift_reg(self.x(rm, size), ShiftType::decode(shift), imm6, size);
        let (result, flags) = add_or_subtract(operand1, operand2, op == 1, size);
        if s == 1 {
            self.set_flags(flags);
        }
        self.set_x(rd, result, size);
        Ok(())
    }

    /// ADD, ADDS, SUB, SUBS (extended register).
    pub(super) fn add_sub_extended_register(
        &mut self,
        word: u32,
        sf: u32,
        op: u32,
        s: u32,
        opt: u32,
        rm: u32,
        option: u32,
        imm3: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if opt != 0 || imm3 > 4 {
            return self.unallocated(word);
        }
        let operand1 = self.x_or_sp(rn, size);
        let operand2 = extend_reg(self.x(rm, 64), ExtendType::decode(option), imm3, size);
        let (result, flags) = add_or_subtract(operand1, operand2, op == 1, size);
        if s == 1 {
            self.set_flags(flags);
            self.set_x(rd, result, size);
        } else {
            self.set_x_or_sp(rd, result, size);
        }
        Ok(())
    }

    /// ADC, ADCS, SBC, SBCS.
    pub(super) fn add_sub_with_carry(&mut self, sf: u32, op: u32, s: u32, rm: u32, rn: u32, rd: u32) -> Step {
        let size = datasize(sf);
        let operand1 = self.x(rn, size);
        let mut operand2 = self.x(rm, size);
        if op == 1 {
            operand2 = !operand2;
        }
        let (result, flags) = add_with_carry(operand1, operand2, self.flags().c, size);
        if s == 1 {
            self.set_flags(flags);
        }
        self.set_x(rd, result, size);
        Ok(())
    }

    /// RMIF.
    pub(super) fn rotate_right_into_flags(&mut self, imm6: u32, rn: u32, mask: u32) -> Step {
        let tmp = ror(self.x(rn, 64), imm6, 64);
        let mut flags = self.flags();
        let bit = |n: u32| tmp >> n & 1 == 1;
        if mask & 0b1000 != 0 {
            flags.n = bit(3);
        }
        if mask & 0b0100 != 0 {
            flags.z = bit(2);
        }
        if mask & 0b0010 != 0 {
            flags.c = bit(1);
        }
        if mask & 0b0001 != 0 {
            flags.v = bit(0);
        }
        self.set_flags(flags);
        Ok(())
    }

    /// SETF8, SETF16.
    pub(super) fn evaluate_into_flags(&mut self, sz: u32, rn: u32) -> Step {
        let msb = if sz == 1 { 15 } else { 7 };
        let value = self.x(rn, 32);
        let bit = |n: u32| value >> n & 1 == 1;
        let flags = Flags { n: bit(msb), z: value & ones(msb + 1) == 0, c: self.flags().c, v: bit(msb + 1) ^ bit(msb) };
        self.set_flags(flags);
        Ok(())
    }

    /// CCMN, CCMP (register and immediate; the caller reads the second operand).
    pub(super) fn conditional_compare(
        &mut self,
        word: u32,
        sf: u32,
        op: u32,
        s: u32,
        operand2: u64,
        cond: u32,
        o2: u32,
        rn: u32,
        o3: u32,
        nzcv: u32,
    ) -> Step {
        let size = datasize(sf);
        if s != 1 || o2 != 0 || o3 != 0 {
            return self.unallocated(word);
        }
        let flags = if condition_holds(cond, self.flags()) {
            add_or_subtract(self.x(rn, size), operand2, op == 1, size).1
        } else {
            Flags::from_imm4(nzcv)
        };
        self.set_flags(flags);
        Ok(())
    }

    /// CSEL, CSINC, CSINV, CSNEG.
    pub(super) fn conditional_select(
        &mut self,
        word: u32,
        sf: u32,
        op: u32,
        s: u32,
        rm: u32,
        cond: u32,
        op2: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if s == 1 || op2 & 0b10 != 0 {
            return self.unallocated(word);
        }
        let (else_inv, else_inc) = (op == 1, op2 & 1 == 1);
        let result = if condition_holds(cond, self.flags()) {
            self.x(rn, size)
        } else {
            let mut result = self.x(rm, size);
            if else_inv {
                result = !result;
            }
            if else_inc {
                result = result.wrapping_add(1);
            }
            result & ones(size)
        };
        self.set_x(rd, result, size);
        Ok(())
    }

    /// MADD, MSUB, SMADDL, SMSUBL, SMULH, UMADDL, UMSUBL, UMULH.
    pub(super) fn data_processing_3_source(
        &mut self,
        word: u32,
        sf: u32,
        op54: u32,
        op31: u32,
        rm: u32,
        o0: u32,
        ra: u32,
        rn: u32,
        rd: u32,
    ) -> Step {
        let size = datasize(sf);
        if op54 != 0 || (sf == 0 && op31 != 0) {
            return self.unallocated(word);
        }
        let sub_op = o0 == 1;
        let result = match op31 {
            0b000 => {
                // MADD, MSUB.
                let product = self.x(rn, size).wrapping_mul(self.x(rm, size));
                let addend = self.x(ra, size);
                if sub_op { addend.wrapping_sub(product) } else { addend.wrapping_add(product) }
            }
            0b001 | 0b101 => {
                // SMADDL, SMSUBL, UMADDL, UMSUBL: 32 x 32 -> 64 multiply-accumulate.
                let unsigned = op31 == 0b101;
                let widen = |v: u64| if unsigned { v } else { sign_extend(v, 32) };
                let product = widen(self.x(rn, 32)).wrapping_mul(widen(self.x(rm, 32)));
                let addend = self.x(ra, 64);
                if sub_op { addend.wrapping_sub(product) } else { addend.wrapping_add(product) }
            }
            0b010 | 0b110 if !sub_op => {
                // SMULH, UMULH: the high half of a 64 x 64 -> 128 multiply.
                let (a, b) = (self.x(rn, 64), self.x(rm, 64));
                if op31 == 0b110 {
                    ((u128::from(a) * u128::from(b)) >> 64) as u64
                } else {
                    ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64
                }
            }
            _ => return self.unallocated(word),
        };
        self.set_x(rd, result, size);
        Ok(())
    }
}

/// `AddWithCarry` as the add/subtract instructions use it: `x + y` or `x + NOT(y) + 1`.
fn add_or_subtract(x: u64, y: u64, sub_op: bool, size: u32) -> (u64, Flags) {
    if sub_op { add_with_carry(x, !y, true, size) } else { add_with_carry(x, y, false, size) }
}

/// `Reverse` as REV16/REV32/REV use it: reverse the bytes inside each `container`-bit container.
fn reverse_bytes_in_containers(operand: u64, container: u32, size: u32) -> u64 {
    let mut result = 0;
    for base in (0..size).step_by(container as usize) {
        let element = (operand >> base) & ones(container);
        let reversed = element.swap_bytes() >> (64 - container);
        result |= reversed << base;
    }
    result
}
