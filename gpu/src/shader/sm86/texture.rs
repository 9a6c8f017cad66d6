//! SM86's texture instructions (TEX, TLD, TLD4, TXD, TXQ): their fields, their handle (the word at c[bank][tex]:
//! sm_86 has no texture constant buffer of Maxwell's kind) and the registers that hold their operands and take
//! their results; what they compute is `shader/texture.rs`, shared with Maxwell.
//!
//! Registers, as ptxas fills them (`gpu/research/sm86-texture.md`, from kernels with one texture instruction
//! each and their operands loaded from distinct addresses): the operands in Maxwell's order; without .SCR the
//! layer and coordinates from ra on and the rest from rb on, as on Maxwell; with .SCR the whole sequence in two
//! pairs: the first operand (the first two, when there are more than two) from ra, ra+1, the rest from rb,
//! rb+1. The results go to rd, rd+1, then rd2 (71:64), rd2+1 (Mesa's NAK splits them so too), the components of
//! the write mask (75:72) in order, or with .F16 as FP16 pairs to rd and rd2.

use super::super::TranslateError;
use super::super::ir::{HandlePart, TextureDim, TextureHandle, Value};
use super::super::lower::Lower;
use super::super::texture::{Level, TextureGather, TextureRead};
use crate::sass::text::View;

type Result<T = ()> = std::result::Result<T, TranslateError>;

/// The TARGET field (63:61): the dimension, and whether it is an array (6 is invalid).
fn texture_target(code: u64) -> Option<(TextureDim, bool)> {
    use TextureDim::*;
    Some(match code {
        0 => (D1, false),
        1 => (D2, false),
        2 => (D3, false),
        3 => (Cube, false),
        4 => (D1, true),
        5 => (D2, true),
        7 => (Cube, true),
        _ => return None,
    })
}

impl Lower<'_> {
    /// TEX, TLD, TLD4, TXD and TXQ.
    pub(super) fn texture(&mut self, v: &View) -> Result {
        let opcode = v.encoding.opcode;
        if v.has("pd") && v.get("pd") != 7 {
            return self.texture_unimplemented(v, "a residency predicate (sparse textures)");
        }
        if (v.has("scr") && v.get("scr") & 1 != 0) || v.flag("bindless") {
            return self.texture_unimplemented(v, "a bindless form (.B)");
        }
        let handle = TextureHandle::Traced([
            Some(HandlePart { bank: v.get("bank") as u8, offset: 4 * v.get("tex") as u32, mask: u32::MAX, shift: 0 }),
            None,
        ]);
        let (rd, rd2, mask) =
            (v.get("rd"), if opcode == "TXQ" { v.get("rc") } else { v.get("rd2") }, v.get("mask") as u8);
        let destinations = [rd, rd + 1, rd2, rd2 + 1];
        if opcode == "TXQ" {
            if v.get("query") != 0 {
                return self.texture_unimplemented(v, "queries other than TEX_HEADER_DIMENSION");
            }
            let level = self.reg(v.get("ra"));
            let size = self.texture_size(handle, level);
            self.write_components(size, mask, &destinations);
            return Ok(());
        }
        let Some((dim, array)) = texture_target(v.get("target")) else {
            return self.texture_unimplemented(v, "the invalid target 6");
        };
        let half = match v.get("f16") {
            0 => false,
            1 => true,
            _ => return self.texture_unimplemented(v, "FP16 results rounded other than to nearest"),
        };
        let texel = match opcode {
            "TEX" | "TLD" => self.texture_read_sm86(v, handle, dim, array),
            "TLD4" => {
                let offset_registers = match v.get("offsets") {
                    code @ 0..=2 => code as usize,
                    _ => return self.texture_unimplemented(v, "offset mode 3, which nvdisasm calls invalid"),
                };
                let component = v.get("component") as u8;
                let gather = TextureGather { handle, dim, array, component, offset_registers, compare: v.flag("dc") };
                let (in_a, in_b) = gather.operand_counts();
                let values = self
                    .texture_sources(v, in_a, in_b)
                    .and_then(|sources| self.texture_gather(&gather, &sources, mask));
                match values {
                    Ok(values) if half => self.write_halves(values, rd, rd2),
                    Ok(values) => self.write_in_order(values, &destinations),
                    Err(why) => return self.texture_unimplemented(v, &why),
                }
                return Ok(());
            }
            "TXD" if v.flag("aoffi") => Err("offsets".into()),
            "TXD" => self.texture_gradients(handle, (dim, array), v.get("ra"), v.get("rb")),
            _ => unreachable!("texture() is called for texture opcodes"),
        };
        let texel = match texel {
            Ok(texel) => texel,
            Err(why) => return self.texture_unimplemented(v, &why),
        };
        if half {
            self.write_half_components(texel, mask, rd, rd2);
        } else {
            self.write_components(texel, mask, &destinations);
        }
        Ok(())
    }

    /// TEX and TLD: the level (TEX: 0 implicit, 1 LZ, 2 LB, 3 LL; TLD: 1 LZ, 3 LL), AOFFI (76), then DC (78) or
    /// TLD's MS (78).
    fn texture_read_sm86(
        &mut self,
        v: &View,
        handle: TextureHandle,
        dim: TextureDim,
        array: bool,
    ) -> std::result::Result<Value, String> {
        let fetch = v.encoding.opcode == "TLD";
        let level = match (fetch, v.get("lod")) {
            (false, 0) => Level::Implicit,
            (_, 1) => Level::Zero,
            (false, 2) => Level::Bias,
            (_, 3) => Level::Explicit,
            _ => return Err("level clamps (.LC) and invalid level modes".into()),
        };
        let last = if fetch { v.flag("ms") } else { v.flag("dc") };
        let clamp_level = fetch && v.flag("cl");
        let read = TextureRead { handle, dim, array, fetch, level, offsets: v.flag("aoffi"), last, clamp_level };
        let (in_a, in_b) = read.operand_counts();
        let sources = self.texture_sources(v, in_a, in_b)?;
        self.texture_read(&read, &sources)
    }

    /// The registers of an instruction's operands, `in_a` of them where Maxwell takes them from ra and `in_b`
    /// from rb: see the module's comment.
    fn texture_sources(&self, v: &View, in_a: usize, in_b: usize) -> std::result::Result<Vec<u64>, String> {
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        if v.get("scr") & 2 == 0 {
            return Ok((ra..ra + in_a as u64).chain(rb..rb + in_b as u64).collect());
        }
        let count = in_a + in_b;
        if count > 4 {
            return Err("more than four operands with .SCR".into());
        }
        let in_ra = if count <= 2 { 1 } else { 2 };
        Ok((ra..ra + in_ra as u64).chain(rb..rb + (count - in_ra) as u64).collect())
    }

    fn texture_unimplemented<T>(&self, v: &View, why: &str) -> Result<T> {
        let inst = crate::sass::sm86::decode(v.word).expect("the view was decoded");
        let text = crate::sass::sm86::text(&crate::sass::Instruction { offset: v.offset, inst, control: v.control });
        self.unimplemented(v, format!("{text} ({why})"))
    }
}
