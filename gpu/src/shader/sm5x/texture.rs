//! Maxwell's texture and surface instructions: TEX, TLD, TLD4, TXD, TXQ, the scalar TEXS, TLDS, TLD4S, SULD,
//! SUST and SURED as `sass::texture::sm5x` and `sass::surface::sm5x` read them, carried out by
//! `shader/texture.rs` and `shader/surface.rs`; TMML, which the interpreter does not have, here.

use super::{Maxwell, Result};
use crate::sass::text::View;
use crate::sass::texture::HandleSource;
use crate::shader::lower::Lower;
use crate::shader::texture::LodQuery;

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

    /// TMML (always .LOD) of the texture TEX names or, for TMML.B, whose handle is rb (`Lower::lod_query`).
    pub(super) fn texture_lod_query(&mut self, v: &View) -> Result {
        let Some((dim, array)) = crate::sass::texture::SM5X_TARGETS[v.get("target") as usize & 7] else {
            return self.unimplemented(v, format!("{} (a 3D array target, which does not exist)", Self::text(v)));
        };
        let bindless = v.encoding.form() == "B";
        let source =
            if bindless { HandleSource::Register(v.get("rb")) } else { HandleSource::Slot(4 * v.get("tex") as u32) };
        let rd = v.get("rd");
        let query = LodQuery { source, dim, array, first: v.get("ra"), mask: v.get("mask") as u8 };
        match self.l.lod_query(query, &[rd, rd + 1, rd + 2, rd + 3]) {
            Ok(()) => Ok(()),
            Err(why) => self.unimplemented(v, format!("{} ({why})", Self::text(v))),
        }
    }
}
