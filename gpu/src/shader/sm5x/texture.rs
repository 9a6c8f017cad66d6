//! Maxwell's texture instructions: TEX, TLD, TLD4, TXD, TXQ and the scalar TEXS, TLDS, TLD4S as
//! `sass::texture::sm5x` reads them, carried out by `shader/texture.rs`; TMML, which the interpreter does not
//! have, here.

use super::{Maxwell, Result};
use crate::sass::text::View;
use crate::sass::texture::HandleSource;
use crate::shader::ir::{Op, Value};
use crate::shader::texture::binding;

impl Maxwell<'_, '_, '_> {
    /// TEX, TLD, TLD4, TXD, TXQ, TEXS, TLDS and TLD4S.
    pub(super) fn texture(&mut self, v: &View) -> Result {
        match crate::sass::texture::sm5x(v).and_then(|texture| self.l.texture_instruction(&texture)) {
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
        let Some((dim, array)) = crate::sass::texture::SM5X_TARGETS[v.get("target") as usize & 7] else {
            return self.unimplemented(v, format!("{} (a 3D array target, which does not exist)", Self::text(v)));
        };
        let bindless = v.encoding.form() == "B";
        let source =
            if bindless { HandleSource::Register(v.get("rb")) } else { HandleSource::Slot(4 * v.get("tex") as u32) };
        let handle = match self.l.texture_handle(source) {
            Ok(handle) => handle,
            Err(why) => return self.unimplemented(v, format!("{} ({why})", Self::text(v))),
        };
        let first = v.get("ra") + u64::from(array);
        let coordinates: Vec<Value> = (0..dim.coordinates() as u64).map(|k| self.reg(first + k)).collect();
        let texture = self.bind_texture(binding(handle, dim, array));
        let lod = self.op(Op::TextureLodQuery { texture, coordinates });
        let rd = v.get("rd");
        self.write_components(lod, mask, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
    }
}
