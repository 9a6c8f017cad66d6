//! Maxwell's texture instructions (TEXS, TLDS, TEX, TLD, TXD, TLD4, TLD4S, TXQ, TMML): which registers hold the
//! coordinates, layer, level, offsets and depth-compare reference of each form, as Mesa's
//! `handleTEX`/`handleTXD`/`getTEXSTarget`, yuzu and Ryujinx read them (where they disagree, the comment says so),
//! and where the texels go. What the forms both ISAs have mean is `shader/texture.rs`.

use super::{Maxwell, Result};
use crate::sass::text::View;
use crate::sass::texture::{HandleSource, Level, Operation, TextureInstruction};
use crate::shader::ir::{Lod, Op, TextureBinding, TextureDim, TextureHandle, Value};
use crate::shader::texture::binding;

/// A bindless form (.B): the texture's handle is in a register instead of the TEX field.
fn is_bindless(v: &View) -> bool {
    v.encoding.form() == "B"
}

/// TEX's, TLD's and TXD's TARGET field (30:28): the dimension, and whether it is an array (5, a 3D array, does
/// not exist).
fn texture_target(code: u64) -> Option<(TextureDim, bool)> {
    use TextureDim::*;
    Some(match code {
        0 => (D1, false),
        1 => (D1, true),
        2 => (D2, false),
        3 => (D2, true),
        4 => (D3, false),
        6 => (Cube, false),
        7 => (Cube, true),
        _ => return None,
    })
}

impl Maxwell<'_, '_, '_> {
    /// TEXS and TLDS: a sample or a fetch whose operands and results the mode field (56:53) and the component
    /// code (52:50) place, as Mesa's `getTEXSTarget`/`getTLDSTarget`/`getTEXSMask` and envydis' tables agree:
    /// two source pairs (ra, ra+1 and rb, rb+1), the chosen components to rd, rd+1, rd2, rd2+1 (or, for FP16
    /// results, packed into rd and rd2).
    pub(super) fn texture_scalar(&mut self, v: &View) -> Result {
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        let handle = self.texture_handle(v, rb)?;
        let fetch = v.encoding.opcode == "TLDS";
        // (dim, array, lod, the source registers in the order the op takes them: coordinates, layer, level, and
        // a depth compare's reference last).
        enum Level {
            Zero,
            Implicit,
            Register,
        }
        use TextureDim::*;
        let mode = v.get("mode");
        let compares = !fetch && matches!(mode, 4 | 5 | 6 | 9);
        let (dim, array, level, sources): (TextureDim, bool, Level, Vec<u64>) = match (fetch, mode) {
            (false, 0) => (D1, false, Level::Zero, vec![ra]),
            (false, 1) => (D2, false, Level::Implicit, vec![ra, rb]),
            (false, 2) => (D2, false, Level::Zero, vec![ra, rb]),
            (false, 3) => (D2, false, Level::Register, vec![ra, ra + 1, rb]),
            (false, 4) => (D2, false, Level::Implicit, vec![ra, ra + 1, rb]),
            // The level, then the reference, as Mesa's getTEXSTarget and yuzu read it (Ryujinx swaps them).
            (false, 5) => (D2, false, Level::Register, vec![ra, ra + 1, rb, rb + 1]),
            (false, 6) => (D2, false, Level::Zero, vec![ra, ra + 1, rb]),
            (false, 7) => (D2, true, Level::Implicit, vec![ra + 1, rb, ra]),
            (false, 8) => (D2, true, Level::Zero, vec![ra + 1, rb, ra]),
            (false, 9) => (D2, true, Level::Zero, vec![ra + 1, rb, ra, rb + 1]),
            (false, 10) => (D3, false, Level::Implicit, vec![ra, ra + 1, rb]),
            (false, 11) => (D3, false, Level::Zero, vec![ra, ra + 1, rb]),
            (false, 12) => (Cube, false, Level::Implicit, vec![ra, ra + 1, rb]),
            (false, 13) => (Cube, false, Level::Register, vec![ra, ra + 1, rb, rb + 1]),
            (true, 0) => (D1, false, Level::Zero, vec![ra]),
            (true, 1) => (D1, false, Level::Register, vec![ra, rb]),
            (true, 2) => (D2, false, Level::Zero, vec![ra, rb]),
            // 2D with AOFFI's offsets after the level: LZ (4) and LL (12), as ptxas fills TLDS.LZ.AOFFI's rb.
            (true, 4) => (D2, false, Level::Zero, vec![ra, ra + 1, rb]),
            (true, 5) => (D2, false, Level::Register, vec![ra, ra + 1, rb]),
            (true, 12) => (D2, false, Level::Register, vec![ra, ra + 1, rb, rb + 1]),
            (true, 6) => {
                // 2D, multisampled: x and y from ra and ra+1, the sample index from rb (yuzu's
                // texture_load_swizzled; Mesa's getTLDSTarget calls it TEX_TARGET_2D_MS).
                let coordinates = vec![self.reg(ra), self.reg(ra + 1)];
                let sample = self.reg(rb);
                let texel = self.fetch_sample(handle, coordinates, sample);
                return self.write_scalar_components(v, texel);
            }
            (true, 7) => (D3, false, Level::Zero, vec![ra, ra + 1, rb]),
            (true, 8) => (D2, true, Level::Zero, vec![rb, rb + 1, ra]),
            _ => {
                return self.unimplemented(v, format!("{} (an undefined mode)", Self::text(v)));
            }
        };
        let count = dim.coordinates();
        let coordinates: Vec<Value> = sources[..count].iter().map(|&r| self.reg(r)).collect();
        let layer = array.then(|| self.reg(sources[count]));
        let after_layer = count + usize::from(array);
        let lod_register = matches!(level, Level::Register).then(|| self.reg(sources[after_layer]));
        let reference = compares.then(|| self.reg(*sources.last().expect("a source")));
        let texture = self.bind_texture(TextureBinding { depth_compare: compares, ..binding(handle, dim, array) });
        let texel = if fetch {
            let level = lod_register.unwrap_or_else(|| self.const32(0));
            let coordinates = if matches!(mode, 4 | 12) {
                let packed = self.reg(*sources.last().expect("a source"));
                self.offset_coordinates(coordinates, packed)
            } else {
                coordinates
            };
            self.op(Op::TextureFetch { texture, coordinates, layer, level })
        } else {
            let lod = match (level, lod_register) {
                (Level::Zero, _) => Lod::Zero,
                (_, Some(lod)) => Lod::Level(lod),
                _ => Lod::Implicit,
            };
            self.op(Op::TextureSample { texture, coordinates, layer, lod, reference, offset: None })
        };
        self.write_scalar_components(v, texel)
    }

    /// TEXS's and TLDS's results: the components the component code (52:50) chooses to rd, rd+1, rd2, rd2+1, or
    /// with F32 (59) clear as FP16 pairs to rd and rd2.
    fn write_scalar_components(&mut self, v: &View, texel: Value) -> Result {
        let rd2 = v.get("rd2");
        const R: u8 = 1;
        const G: u8 = 2;
        const B: u8 = 4;
        const A: u8 = 8;
        let mask = if rd2 == 255 {
            [R, G, B, A, R | G, R | A, G | A, B | A][v.get("swizzle") as usize]
        } else {
            match v.get("swizzle") {
                code @ 0..=4 => [R | G | B, R | G | A, R | B | A, G | B | A, R | G | B | A][code as usize],
                _ => return self.unimplemented(v, format!("{} (an undefined component code)", Self::text(v))),
            }
        };
        if !v.flag("f32") {
            self.write_half_components(texel, mask, v.get("rd"), rd2);
            return Ok(());
        }
        let destinations = [v.get("rd"), v.get("rd") + 1, rd2, rd2 + 1];
        self.write_components(texel, mask, &destinations);
        Ok(())
    }

    /// TEX and TLD: the layer and coordinates from ra; from rb, in order, the handle (bindless forms), the level
    /// (TEX's LB, LL; TLD's LL), AOFFI's packed offsets, then TEX's depth-compare reference or TLD.MS's sample
    /// index: the order ptxas fills them in (`gpu/tests/sass/sm53/texture.sass`) and Mesa's `handleTEX` reads
    /// them. The components of the write mask (34:31) go to rd, rd+1, ... in order.
    pub(super) fn texture_vector(&mut self, v: &View) -> Result {
        let fetch = v.encoding.opcode == "TLD";
        let level = match (fetch, v.get("lod")) {
            (true, 0) => Level::Zero,
            (true, _) => Level::Explicit,
            (false, 0) => Level::Implicit,
            (false, 1) => Level::Zero,
            (false, 2) => Level::Bias,
            (false, 3) => Level::Explicit,
            _ => return self.unimplemented(v, format!("{} (LBA and LLA levels)", Self::text(v))),
        };
        let last = if fetch { v.flag("ms") } else { v.flag("dc") };
        let clamp_level = fetch && v.flag("cl");
        let operation = Operation::Read { fetch, level, offsets: v.flag("aoffi"), last, clamp_level };
        self.texture_instruction_sm5x(v, operation, v.get("rb"))
    }

    /// TXD: the handle of a bindless form, then the coordinates and layer in ra's registers; the derivatives
    /// from rb.
    pub(super) fn texture_gradients(&mut self, v: &View) -> Result {
        if v.flag("aoffi") {
            return self.unimplemented(v, format!("{} (offsets)", Self::text(v)));
        }
        self.texture_instruction_sm5x(v, Operation::Gradients, v.get("ra"))
    }

    /// TLD4S: a 2D gather of component `component` (53:52), or with DC of the comparisons with the reference:
    /// x and y from ra and rb, or from ra and ra+1 when rb holds more: AOFFI's packed offsets, then DC's
    /// reference (Mesa, yuzu and Ryujinx agree); the four texels to rd, rd+1, rd2, rd2+1 (rd2 RZ: the first two
    /// only), or with F16 as FP16 pairs to rd and rd2.
    pub(super) fn texture_gather_scalar(&mut self, v: &View) -> Result {
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        let (compare, offset) = (v.flag("dc"), v.flag("aoffi"));
        let y = if compare || offset { ra + 1 } else { rb };
        let (rd, rd2, half) = (v.get("rd"), v.get("rd2"), v.flag("f16"));
        let texture = TextureInstruction {
            operation: Operation::Gather {
                component: v.get("component") as u8,
                offset_registers: usize::from(offset),
                compare,
            },
            handle: self.handle_source(v, rb),
            dim: TextureDim::D2,
            array: false,
            sources: vec![ra, y, rb, rb + u64::from(offset)],
            destinations: [rd, rd + 1, rd2, rd2 + 1],
            mask: if half || rd2 != 255 { 0b1111 } else { 0b0011 },
            half,
        };
        match self.l.texture_instruction(&texture) {
            Ok(()) => Ok(()),
            Err(why) => self.unimplemented(v, format!("{} ({why})", Self::text(v))),
        }
    }

    /// TLD4: a gather of component `component` (57:56), or with DC of the comparisons with the reference, from
    /// a 2D, 2D array, cube or cube array texture. The layer and the coordinates come from ra's registers; rb's
    /// hold the handle (bindless forms), the offsets (AOFFI: one register; PTP: two), then DC's reference (yuzu,
    /// Ryujinx and Mesa agree; `gpu/research/tld4.md`). The components of the write mask (34:31) go to rd,
    /// rd+1, ... in order.
    pub(super) fn texture_gather(&mut self, v: &View) -> Result {
        let offset_registers = match v.get("offsets") {
            code @ 0..=2 => code as usize,
            _ => {
                return self
                    .unimplemented(v, format!("{} (offset mode 3, which nvdisasm calls invalid)", Self::text(v)));
            }
        };
        let operation =
            Operation::Gather { component: v.get("component") as u8, offset_registers, compare: v.flag("dc") };
        self.texture_instruction_sm5x(v, operation, v.get("rb"))
    }

    /// TXQ TEX_HEADER_DIMENSION: the size of level `ra` (TXQ.B: the handle in ra, the level in ra+1), the
    /// components of the write mask (34:31) to rd, rd+1, ... in order. The other queries stop naming themselves.
    pub(super) fn texture_query(&mut self, v: &View) -> Result {
        if v.get("query") != 1 {
            return self.unimplemented(v, format!("{} (queries other than TEX_HEADER_DIMENSION)", Self::text(v)));
        }
        self.texture_instruction_sm5x(v, Operation::Size, v.get("ra"))
    }

    /// TEX, TLD, TLD4, TXD and TXQ: the operands of `operation` from ra's registers and rb's (or for TXD and TXQ
    /// from ra's alone), after the handle of a bindless form in `handle_register`, the first of them; the
    /// results to rd, rd+1, ... in order.
    fn texture_instruction_sm5x(&mut self, v: &View, operation: Operation, handle_register: u64) -> Result {
        let (dim, array) = if operation == Operation::Size {
            (TextureDim::D2, false)
        } else {
            match texture_target(v.get("target")) {
                Some(target) => target,
                None => {
                    let why = "a 3D array target, which does not exist";
                    return self.unimplemented(v, format!("{} ({why})", Self::text(v)));
                }
            }
        };
        let bindless = is_bindless(v);
        let handle = self.handle_source(v, handle_register);
        let (in_a, in_b) = operation.operand_counts(dim, array);
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        let after_handle = |register: u64| register + u64::from(bindless);
        let sources: Vec<u64> = match operation {
            // TXD: the handle, the coordinates and the layer from ra on; TXQ: the handle, then the level.
            Operation::Gradients => {
                (after_handle(ra)..after_handle(ra) + in_a as u64).chain(rb..rb + in_b as u64).collect()
            }
            Operation::Size => vec![after_handle(ra)],
            _ => (ra..ra + in_a as u64).chain(after_handle(rb)..after_handle(rb) + in_b as u64).collect(),
        };
        let rd = v.get("rd");
        let texture = TextureInstruction {
            operation,
            handle,
            dim,
            array,
            sources,
            destinations: [rd, rd + 1, rd + 2, rd + 3],
            mask: v.get("mask") as u8,
            half: false,
        };
        match self.l.texture_instruction(&texture) {
            Ok(()) => Ok(()),
            Err(why) => self.unimplemented(v, format!("{} ({why})", Self::text(v))),
        }
    }

    /// TMML (always .LOD): the level of detail a sample at the coordinates in ra's registers (after the layer,
    /// for arrays, which the query ignores) would take, of the texture TEX names or, for TMML.B, whose handle is
    /// rb: components 0 and 1 as `Op::TextureLodQuery` gives them, by the write mask to rd, rd+1. Components 2
    /// and 3, which no source describes, stop naming themselves.
    pub(super) fn texture_lod_query(&mut self, v: &View) -> Result {
        let mask = v.get("mask") as u8;
        if mask & 0b1100 != 0 {
            return self.unimplemented(v, format!("{} (components 2 and 3, which no source describes)", Self::text(v)));
        }
        let Some((dim, array)) = texture_target(v.get("target")) else {
            return self.unimplemented(v, format!("{} (a 3D array target, which does not exist)", Self::text(v)));
        };
        let handle = self.texture_handle(v, v.get("rb"))?;
        let first = v.get("ra") + u64::from(array);
        let coordinates: Vec<Value> = (0..dim.coordinates() as u64).map(|k| self.reg(first + k)).collect();
        let texture = self.bind_texture(binding(handle, dim, array));
        let lod = self.op(Op::TextureLodQuery { texture, coordinates });
        let rd = v.get("rd");
        self.write_components(lod, mask, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
    }

    /// Where the texture `v` reads has its handle: word TEX (48:36) of the stage's texture constant buffer for
    /// the bound forms, register `bindless_register` for the bindless ones (.B).
    fn handle_source(&self, v: &View, bindless_register: u64) -> HandleSource {
        if is_bindless(v) {
            HandleSource::Register(bindless_register)
        } else {
            HandleSource::Slot(4 * v.get("tex") as u32)
        }
    }

    /// The handle of the texture `v` reads (`handle_source`), a bindless one traced back to the constant-buffer
    /// words it was made of in its block (`Lower::traced_handle`). A handle traced nowhere stops the translation
    /// naming the instruction: it would need the whole pools as descriptor arrays.
    fn texture_handle(&mut self, v: &View, bindless_register: u64) -> Result<TextureHandle> {
        let source = self.handle_source(v, bindless_register);
        match self.l.texture_handle(source) {
            Ok(handle) => Ok(handle),
            Err(why) => self.unimplemented(v, format!("{} ({why})", Self::text(v))),
        }
    }
}
