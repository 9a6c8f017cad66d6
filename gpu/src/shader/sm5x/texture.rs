//! Maxwell's texture and surface instructions: TEX, TLD, TLD4, TXD, TXQ, the scalar TEXS, TLDS, TLD4S, SULD,
//! SUST and SURED as `sass::texture::sm5x` and `sass::surface::sm5x` read them, carried out by
//! `shader/texture.rs` and `shader/surface.rs`; TMML, which the interpreter does not have, here.

use super::{Maxwell, Result};
use crate::sass::text::View;
use crate::sass::texture::HandleSource;
use crate::shader::ir::{Op, Value};
use crate::shader::lower::Lower;
use crate::shader::texture::binding;

impl<'k> Maxwell<'_, 'k, '_> {
    /// An instruction of a unit's (textures, surfaces): `read` gives its meaning, `lower` carries it out; what
    /// either refuses names the instruction and why.
    pub(super) fn through_unit<T>(
        &mut self,
        v: &View,
        read: fn(&View) -> std::result::Result<T, String>,
        lower: fn(&mut Lower<'k>, &T) -> std::result::Result<(), String>,
    ) -> Result {
        match read(v).and_then(|instruction| lower(self.l, &instruction)) {
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
        let handle = self.l.texture_handle(source);
        let first = v.get("ra") + u64::from(array);
        let coordinates: Vec<Value> = (0..dim.coordinates() as u64).map(|k| self.reg(first + k)).collect();
        let texture = self.bind_texture(binding(handle, dim, array), handle);
        let lod = self.op(Op::TextureLodQuery { texture, coordinates });
        let rd = v.get("rd");
        self.write_components(lod, mask, &[rd, rd + 1, rd + 2, rd + 3]);
        Ok(())
    }
}
