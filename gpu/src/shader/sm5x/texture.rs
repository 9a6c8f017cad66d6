//! The texture instructions (TEXS, TLDS, TEX, TLD, TXD, TLD4, TLD4S, TXQ): which registers hold the coordinates, layer,
//! level, offsets and depth-compare reference of each form, as Mesa's `handleTEX`/`handleTXD`/`getTEXSTarget`,
//! yuzu and Ryujinx read them (where they disagree, the comment says so), and where the texels go.

use super::{Maxwell, Result};
use crate::sass::text::View;
use crate::shader::ir::{BinOp, Lod, Op, Round, TextureBinding, TextureDim, TextureHandle, Value};

/// A bindless form (.B): the texture's handle is in a register instead of the TEX field.
fn is_bindless(v: &View) -> bool {
    v.encoding.form() == "B"
}

/// AOFFI's texel offsets of TEX and TLD: signed 4-bit x, y and z in bits 3:0, 7:4 and 11:8 (ptxas packs them
/// with `BFI ..., 0x404, ...`; TLD4's are 6-bit, in bytes).
fn texel_offsets(packed: u32) -> [i8; 3] {
    [0, 1, 2].map(|k| ((packed << (28 - 4 * k)) as i32 >> 28) as i8)
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
        let texture =
            self.bind_texture(TextureBinding { depth_compare: compares, ..Self::binding(handle, dim, array) });
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

    /// FP16 results (TEXS and TLDS with F32 clear, TLD4S.F16): the components of `texel` that `mask` chooses,
    /// converted to FP16 and packed in pairs, the first in the low half: the first pair to rd, the second to rd2
    /// (a missing high half 0); rd+1 and rd2+1 are not written. yuzu and Ryujinx agree, nxgpucatch's hardware
    /// tests and ptxas's code around TEXS.F16 confirm the registers (`gpu/research/texture-f16.md`). The rounding
    /// (to nearest even, as ptxas converts with F2F.F16.F32) and the zero halves are unverified on hardware.
    fn write_half_components(&mut self, texel: Value, mask: u8, rd: u64, rd2: u64) {
        let halves: Vec<Value> = (0..4)
            .filter(|c| mask >> c & 1 == 1)
            .map(|c| {
                let value = self.op(Op::Component(texel, c));
                self.op(Op::F32ToHalf(Round::NearestEven, value))
            })
            .collect();
        let zero = self.const32(0);
        let words: Vec<Value> =
            halves.chunks(2).map(|pair| self.pack_halves(pair[0], pair.get(1).copied().unwrap_or(zero))).collect();
        self.write_in_order(words, &[rd, rd2, 255, 255]);
    }

    /// TEX and TLD: the coordinates (after the layer, for arrays) from ra; from rb, in order, the level (TEX's
    /// LB, LL; TLD's LL), AOFFI's packed offsets, then TEX's depth-compare reference or TLD.MS's sample index:
    /// the order ptxas fills them in (`gpu/tests/sass/sm53/texture.sass`) and Mesa's `handleTEX` reads them. The
    /// components of the write mask (34:31) go to rd, rd+1, ... in order.
    pub(super) fn texture_vector(&mut self, v: &View) -> Result {
        let fetch = v.encoding.opcode == "TLD";
        if fetch && v.flag("cl") {
            return self.unimplemented(v, format!("{} (level clamps)", Self::text(v)));
        }
        let Some((dim, array)) = texture_target(v.get("target")) else {
            return self.unimplemented(v, format!("{} (a 3D array target, which does not exist)", Self::text(v)));
        };
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        let mut next = rb;
        let mut take = |present: bool| {
            let register = next;
            next += u64::from(present);
            present.then_some(register)
        };
        // A bindless form's handle comes first.
        let handle = match take(is_bindless(v)) {
            Some(register) => self.texture_handle(v, register)?,
            None => self.texture_handle(v, rb)?,
        };
        let level_register = take(if fetch { v.get("lod") == 1 } else { matches!(v.get("lod"), 2 | 3) });
        let offsets_register = take(v.flag("aoffi"));
        let last_register = take(if fetch { v.flag("ms") } else { v.flag("dc") });
        let first = ra + u64::from(array);
        let layer = array.then(|| self.reg(ra));
        let coordinates: Vec<Value> = (0..dim.coordinates() as u64).map(|k| self.reg(first + k)).collect();
        let texel = if fetch {
            // Offsets move a fetch's integer coordinates, whether or not they are known when translating.
            let coordinates = match offsets_register {
                Some(register) => {
                    let packed = self.reg(register);
                    self.offset_coordinates(coordinates, packed)
                }
                None => coordinates,
            };
            if let Some(sample) = last_register {
                if (dim, array) != (TextureDim::D2, false) {
                    return self.unimplemented(v, format!("{} (multisample fetches other than 2D)", Self::text(v)));
                }
                let sample = self.reg(sample);
                self.fetch_sample(handle, coordinates, sample)
            } else {
                let texture = self.bind_texture(Self::binding(handle, dim, array));
                let level = match level_register {
                    Some(register) => self.reg(register),
                    None => self.const32(0),
                };
                self.op(Op::TextureFetch { texture, coordinates, layer, level })
            }
        } else {
            let offset = match offsets_register {
                Some(_) if dim == TextureDim::Cube => {
                    return self.unimplemented(v, format!("{} (offsets on a cube)", Self::text(v)));
                }
                Some(register) => {
                    let packed = self.reg(register);
                    match self.known_constant(packed) {
                        Some(bits) => Some(texel_offsets(bits)),
                        None => {
                            let why = "offsets computed at run time: Vulkan takes a sample's offsets only as constants";
                            return self.unimplemented(v, format!("{} ({why})", Self::text(v)));
                        }
                    }
                }
                None => None,
            };
            let lod = match (v.get("lod"), level_register) {
                (0, _) => Lod::Implicit,
                (1, _) => Lod::Zero,
                (2, Some(register)) => Lod::Bias(self.reg(register)),
                (3, Some(register)) => Lod::Level(self.reg(register)),
                _ => return self.unimplemented(v, format!("{} (LBA and LLA levels)", Self::text(v))),
            };
            let reference = last_register.map(|register| self.reg(register));
            let binding = TextureBinding { depth_compare: reference.is_some(), ..Self::binding(handle, dim, array) };
            let texture = self.bind_texture(binding);
            self.op(Op::TextureSample { texture, coordinates, layer, lod, reference, offset })
        };
        let rd = v.get("rd");
        self.write_components(texel, v.get("mask") as u8, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
    }

    /// `coordinates` (integers) moved by the texel offsets AOFFI packs into `packed` (see [`texel_offsets`]).
    fn offset_coordinates(&mut self, coordinates: Vec<Value>, packed: Value) -> Vec<Value> {
        let down = self.const32(28);
        (0..coordinates.len() as u32)
            .zip(coordinates)
            .map(|(k, coordinate)| {
                let up = self.const32(28 - 4 * k);
                let field = self.bin(BinOp::Shl, packed, up);
                let offset = self.bin(BinOp::ShrS, field, down);
                self.bin(BinOp::Add, coordinate, offset)
            })
            .collect()
    }

    /// TXD: a sample at the level the explicit derivatives give. The coordinates from ra (for arrays, then a word
    /// with the layer in bits 15:0), the derivatives from rb per coordinate: d/dx then d/dy of u, then of v (Mesa's
    /// `handleTXD` and yuzu agree; Ryujinx reads all of d/dx first; Maxwell behaviour 2.13). 1D and 2D only, as
    /// Mesa emits it (3D and cubes it computes by hand).
    pub(super) fn texture_gradients(&mut self, v: &View) -> Result {
        if v.flag("aoffi") {
            return self.unimplemented(v, format!("{} (offsets)", Self::text(v)));
        }
        let (dim, array) = match texture_target(v.get("target")) {
            Some((dim @ (TextureDim::D1 | TextureDim::D2), array)) => (dim, array),
            _ => return self.unimplemented(v, format!("{} (3D and cube targets)", Self::text(v))),
        };
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        // A bindless form's handle comes before the coordinates.
        let handle = self.texture_handle(v, ra)?;
        let first = ra + u64::from(is_bindless(v));
        let count = dim.coordinates() as u64;
        let coordinates: Vec<Value> = (0..count).map(|k| self.reg(first + k)).collect();
        let layer = array.then(|| self.reg(first + count));
        let derivative = |e: &mut Self, coordinate: u64, y: u64| e.reg(rb + 2 * coordinate.min(count - 1) + y);
        let x = [derivative(self, 0, 0), derivative(self, 1, 0)];
        let y = [derivative(self, 0, 1), derivative(self, 1, 1)];
        let texture = self.bind_texture(Self::binding(handle, dim, array));
        let lod = Lod::Gradients { x, y };
        let texel = self.op(Op::TextureSample { texture, coordinates, layer, lod, reference: None, offset: None });
        let rd = v.get("rd");
        self.write_components(texel, v.get("mask") as u8, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
    }

    /// TLD4S: a 2D gather of component `component` (53:52), or with DC of the comparisons with the reference:
    /// x and y from ra and rb, or from ra and ra+1 when rb holds more: AOFFI's packed offsets, then DC's
    /// reference (Mesa, yuzu and Ryujinx agree); the four texels to rd, rd+1, rd2, rd2+1 (rd2 RZ: the first two
    /// only), or with F16 as FP16 pairs to rd and rd2.
    pub(super) fn texture_gather_scalar(&mut self, v: &View) -> Result {
        let (ra, rb) = (v.get("ra"), v.get("rb"));
        let (compares, offset) = (v.flag("dc"), v.flag("aoffi"));
        let y = if compares || offset { ra + 1 } else { rb };
        let coordinates = vec![self.reg(ra), self.reg(y)];
        let offsets = offset.then(|| self.reg(rb));
        let reference = compares.then(|| self.reg(rb + u64::from(offset)));
        let binding = Self::binding(self.texture_handle(v, rb)?, TextureDim::D2, false);
        let texture = self.bind_texture(TextureBinding { depth_compare: compares, gather_offsets: offset, ..binding });
        let component = v.get("component") as u8;
        let texels = self.op(Op::TextureGather { texture, coordinates, layer: None, component, reference, offsets });
        let (rd, rd2) = (v.get("rd"), v.get("rd2"));
        if v.flag("f16") {
            self.write_half_components(texels, 0b1111, rd, rd2);
            return Ok(());
        }
        let mask = if rd2 == 255 { 0b0011 } else { 0b1111 };
        self.write_components(texels, mask, &[rd, rd + 1, rd2, rd2 + 1]);
        Ok(())
    }

    /// TLD4: a gather of component `component` (57:56), or with DC of the comparisons with the reference, from
    /// a 2D, 2D array, cube or cube array texture. The layer and the coordinates come from ra's registers; rb's
    /// hold the offsets (AOFFI: one register; PTP: two), then DC's reference (yuzu, Ryujinx and Mesa agree;
    /// `gpu/research/tld4.md`). The components of the write mask (34:31) go to rd, rd+1, ... in order.
    pub(super) fn texture_gather(&mut self, v: &View) -> Result {
        let (dim, array) = match texture_target(v.get("target")) {
            Some((dim @ (TextureDim::D2 | TextureDim::Cube), array)) => (dim, array),
            _ => return self.unimplemented(v, format!("{} (1D and 3D gathers, which SPIR-V lacks)", Self::text(v))),
        };
        let (offset_registers, per_texel) = match v.get("offsets") {
            0 => (0, false),
            1 => (1, false),
            2 => (2, true),
            _ => {
                return self
                    .unimplemented(v, format!("{} (offset mode 3, which nvdisasm calls invalid)", Self::text(v)));
            }
        };
        if offset_registers > 0 && dim == TextureDim::Cube {
            return self.unimplemented(v, format!("{} (offsets on a cube, which SPIR-V forbids)", Self::text(v)));
        }
        let (ra, handle_register) = (v.get("ra"), v.get("rb"));
        let handle = self.texture_handle(v, handle_register)?;
        // A bindless form's handle comes first in rb's registers.
        let rb = handle_register + u64::from(is_bindless(v));
        let layer = array.then(|| self.reg(ra));
        let first = ra + u64::from(array);
        let coordinates: Vec<Value> = (0..dim.coordinates() as u64).map(|k| self.reg(first + k)).collect();
        let reference = v.flag("dc").then(|| self.reg(rb + offset_registers));
        let binding = TextureBinding {
            depth_compare: reference.is_some(),
            gather_offsets: offset_registers > 0,
            ..Self::binding(handle, dim, array)
        };
        let texture = self.bind_texture(binding);
        let component = v.get("component") as u8;
        let mask = v.get("mask") as u8;
        let rd = v.get("rd");
        let destinations = [rd, rd + 1, rd + 2, rd + 3];
        if !per_texel {
            let offsets = (offset_registers == 1).then(|| self.reg(rb));
            let gather = Op::TextureGather { texture, coordinates, layer, component, reference, offsets };
            let texels = self.op(gather);
            self.write_components(texels, mask, &destinations);
            return Ok(());
        }
        // PTP: result component k is the (i0, j0) texel (component 3) of the footprint moved by offset pair k,
        // as GLSL's textureGatherOffsets defines it. Pair k is a byte pair of register rb + k / 2, the low half
        // for even k, in AOFFI's layout (x in bits 5:0, y in 13:8): one gather with AOFFI offsets per component.
        let words = [self.reg(rb), self.reg(rb + 1)];
        let sixteen = self.const32(16);
        let values: Vec<Value> = (0..4u8)
            .filter(|k| mask >> k & 1 == 1)
            .map(|k| {
                let word = words[usize::from(k / 2)];
                let pair = if k % 2 == 1 { self.bin(BinOp::ShrU, word, sixteen) } else { word };
                let coordinates = coordinates.clone();
                let gather =
                    Op::TextureGather { texture, coordinates, layer, component, reference, offsets: Some(pair) };
                let texels = self.op(gather);
                self.op(Op::Component(texels, 3))
            })
            .collect();
        self.write_in_order(values, &destinations);
        Ok(())
    }

    /// TXQ TEX_HEADER_DIMENSION: the size of level `ra` (TXQ.B: the handle in ra, the level in ra+1) of the
    /// texture as its header shapes it, the components of the write mask (34:31) to rd, rd+1, ... in order
    /// (nxgpucatch's hardware tests: `Op::TextureQuery`). The other queries stop naming themselves.
    pub(super) fn texture_query(&mut self, v: &View) -> Result {
        if v.get("query") != 1 {
            return self.unimplemented(v, format!("{} (queries other than TEX_HEADER_DIMENSION)", Self::text(v)));
        }
        let ra = v.get("ra");
        let handle = self.texture_handle(v, ra)?;
        let level = self.reg(ra + u64::from(is_bindless(v)));
        let binding = TextureBinding { query: true, ..Self::binding(handle, TextureDim::D2, false) };
        let texture = self.bind_texture(binding);
        let size = self.op(Op::TextureQuery { texture, level });
        let rd = v.get("rd");
        self.write_components(size, v.get("mask") as u8, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
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
        let texture = self.bind_texture(Self::binding(handle, dim, array));
        let lod = self.op(Op::TextureLodQuery { texture, coordinates });
        let rd = v.get("rd");
        self.write_components(lod, mask, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
    }

    /// The handle of the texture `v` reads: word TEX (48:36) of the stage's texture constant buffer for the
    /// bound forms; for the bindless ones (.B), register `bindless_register`, traced back to the constant-buffer
    /// words it was made of in its block (`Lower::traced_handle`). A handle traced nowhere stops the translation
    /// naming the instruction: it would need the whole pools as descriptor arrays.
    fn texture_handle(&mut self, v: &View, bindless_register: u64) -> Result<TextureHandle> {
        if !is_bindless(v) {
            return Ok(TextureHandle::Bound(4 * v.get("tex") as u32));
        }
        let handle = self.reg(bindless_register);
        match self.traced_handle(handle) {
            Some(parts) => Ok(TextureHandle::Traced(parts)),
            None => self.unimplemented(
                v,
                format!("{} (a bindless handle not traced to constant-buffer words in its block)", Self::text(v)),
            ),
        }
    }

    /// The binding of a texture of `dim` (`array`) whose handle is `handle`, read plainly (no compare, offsets
    /// or samples).
    fn binding(handle: TextureHandle, dim: TextureDim, array: bool) -> TextureBinding {
        TextureBinding {
            handle,
            dim,
            array,
            depth_compare: false,
            gather_offsets: false,
            multisample: false,
            query: false,
        }
    }

    fn bind_texture(&mut self, binding: TextureBinding) -> u16 {
        self.l.program.texture(binding)
    }

    /// A fetch of sample `sample` of texel `coordinates` of a multisampled 2D texture: layer `sample` of the
    /// array the host holds it as (`TextureBinding::multisample`).
    fn fetch_sample(&mut self, handle: TextureHandle, coordinates: Vec<Value>, sample: Value) -> Value {
        let binding = TextureBinding { multisample: true, ..Self::binding(handle, TextureDim::D2, true) };
        let texture = self.bind_texture(binding);
        let level = self.const32(0);
        self.op(Op::TextureFetch { texture, coordinates, layer: Some(sample), level })
    }

    /// The components of `texel` that `mask` (bit i: component i) chooses, in order, into `destinations`.
    fn write_components(&mut self, texel: Value, mask: u8, destinations: &[u64; 4]) {
        let chosen: Vec<u8> = (0..4).filter(|c| mask >> c & 1 == 1).collect();
        let values: Vec<Value> = chosen.iter().map(|&c| self.op(Op::Component(texel, c))).collect();
        self.write_in_order(values, destinations);
    }

    /// `values` into the first of `destinations`, in order. Every value is read before this (a destination may
    /// be a source).
    fn write_in_order(&mut self, values: Vec<Value>, destinations: &[u64; 4]) {
        for (value, &register) in values.into_iter().zip(destinations) {
            self.set_reg(register, value);
        }
    }
}
