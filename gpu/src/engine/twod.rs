//! The 2D engine, `FERMI_TWOD_A` (902D, open-gpu-doc `classes/twod/cl902d.h`): PIXELS_FROM_MEMORY blits from one
//! pitch or block-linear surface to another, scaled by 32.32 fixed-point steps and converted between colour
//! formats (the 3D class's render target codes). It is guest semantics, done here on the CPU for every back end,
//! as the copy engine is.
//!
//! Sampling. Destination pixel (x, y) of the rectangle reads the source at u = SRC_X0 + (x - DST_X0) * DU_DX,
//! v = SRC_Y0 + (y - DST_Y0) * DV_DY, texel i covering [i, i + 1): this is what every driver programs against (NVN,
//! deko3d and NVK add half a step to SRC_X0 themselves, in the CORNER origin mode). The CENTER origin adds half a
//! source texel: no document says so, but it is the one rule that fits every driver's use of it (Mesa's exact 1:1
//! copies, deko3d's CENTER resolves). POINT reads texel floor(u); BILINEAR weighs the texels around u - 0.5,
//! clamped to the surface's edges. A pitch source read past its width goes on into the next row (the plain address
//! arithmetic NVIDIA's OpenGL driver relies on); a block-linear one read outside is an error.
//!
//! Conversion. The same format on both sides copies the texels' bits; otherwise channels decode to numbers
//! (UNORM, SNORM, FP32) and encode again, rounded to nearest; a single-channel source fills every channel, as
//! the drivers' comments say the hardware does. Operations: SRCCOPY, SRCCOPY_AND (only where the source's alpha
//! is not 0) and SRCCOPY_PREMULT (times BETA4); the others, colour keys and 3D surfaces stop the channel naming
//! themselves.

use super::{Class, Context, EngineError, Method};
use crate::texture::format::{ColorFormat, Kind, set_texel_bits, texel_bits};
use crate::texture::surface::{Layout, Surface};

pub const SET_DST_FORMAT: u32 = 0x200;
pub const SET_SRC_FORMAT: u32 = 0x230;
pub const SET_CLIP_X0: u32 = 0x280;
pub const SET_CLIP_ENABLE: u32 = 0x290;
pub const SET_COLOR_KEY_ENABLE: u32 = 0x29c;
pub const SET_BETA4: u32 = 0x2a8;
pub const SET_OPERATION: u32 = 0x2ac;
pub const SET_RENDER_ENABLE_C: u32 = 0x26c;
pub const SET_RENDER_ENABLE_OVERRIDE: u32 = 0x2dc;
pub const SET_PIXELS_FROM_MEMORY_SAMPLE_MODE: u32 = 0x88c;
pub const SET_PIXELS_FROM_MEMORY_DST_X0: u32 = 0x8b0;
pub const PIXELS_FROM_MEMORY_SRC_Y0_INT: u32 = 0x8dc;

/// Offsets of a surface's registers from its SET_*_FORMAT.
const MEMORY_LAYOUT: u32 = 0x04;
const BLOCK_SIZE: u32 = 0x08;
const DEPTH: u32 = 0x0c;
const DST_LAYER: u32 = 0x10;
const PITCH: u32 = 0x14;
const WIDTH: u32 = 0x18;
const HEIGHT: u32 = 0x1c;
const OFFSET_UPPER: u32 = 0x20;

/// SET_OPERATION's values.
const SRCCOPY_AND: u32 = 0;
const SRCCOPY: u32 = 3;
const SRCCOPY_PREMULT: u32 = 5;

/// Formats with one channel, which fills all four.
const SINGLE_CHANNEL: [u32; 7] = [0xe5, 0xee, 0xef, 0xf2, 0xf3, 0xf4, 0xf7];

/// The engine's registers, its method space up to the blit's trigger.
pub struct TwoD {
    registers: Vec<u32>,
}

impl Default for TwoD {
    fn default() -> TwoD {
        TwoD { registers: vec![0; PIXELS_FROM_MEMORY_SRC_Y0_INT as usize / 4 + 1] }
    }
}

/// A side of a blit: its surface and format.
struct Side {
    surface: Surface,
    format: ColorFormat,
}

/// A 32.32 fixed-point register pair (FRAC, then INT) as a signed value.
fn fixed(frac: u32, int: u32) -> i128 {
    (i128::from(int as i32) << 32) | i128::from(frac)
}

/// The most bytes a blit reads of a surface, and the most pixels it writes (bad sizes should not exhaust the
/// host's memory or time).
const MAX_SPAN: u64 = 1 << 28;
const MAX_PIXELS: u64 = 1 << 28;

impl TwoD {
    fn register(&self, offset: u32) -> u32 {
        self.registers.get(offset as usize / 4).copied().unwrap_or(0)
    }

    pub fn call(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = Method { class: Class::TwoD, offset };
        match self.registers.get_mut(offset as usize / 4) {
            Some(register) => *register = argument,
            None => return Err(method.unimplemented("")),
        }
        if offset == PIXELS_FROM_MEMORY_SRC_Y0_INT { self.blit(method, context) } else { Ok(()) }
    }

    /// The surface whose registers start at `format_register` (SET_DST_FORMAT or SET_SRC_FORMAT).
    fn side(&self, method: Method, format_register: u32) -> Result<Side, EngineError> {
        let register = |offset: u32| self.register(format_register + offset);
        let code = register(0) & 0xff;
        let format = ColorFormat::from_code(code)
            .ok_or_else(|| method.unimplemented(format!("2D blits of colour format {code:#x}")))?;
        if register(DEPTH) > 1 || (format_register == SET_DST_FORMAT && register(DST_LAYER) != 0) {
            return Err(method.unimplemented("2D blits of 3D surfaces' slices or array layers"));
        }
        let (width, height) = (register(WIDTH), register(HEIGHT));
        let layout = if register(MEMORY_LAYOUT) & 1 == 1 {
            Layout::Pitch { pitch: register(PITCH) }
        } else {
            let block = register(BLOCK_SIZE);
            Layout::BlockLinear { block_height: block >> 4 & 7, block_depth: block >> 8 & 7 }
        };
        let address = u64::from(register(OFFSET_UPPER) & 0xff) << 32 | u64::from(register(OFFSET_UPPER + 4));
        let surface = Surface::single_layer(address, width, height, format.bytes, layout);
        Ok(Side { surface, format })
    }

    fn blit(&mut self, method: Method, context: &mut Context) -> Result<(), EngineError> {
        let operation = self.register(SET_OPERATION) & 7;
        if ![SRCCOPY, SRCCOPY_AND, SRCCOPY_PREMULT].contains(&operation) {
            return Err(method.unimplemented(format!("2D operation {operation} (ROP and blends)")));
        }
        if self.register(SET_COLOR_KEY_ENABLE) & 1 == 1 {
            return Err(method.unimplemented("2D blits with a colour key"));
        }
        match (self.register(SET_RENDER_ENABLE_OVERRIDE) & 3, self.register(SET_RENDER_ENABLE_C) & 7) {
            (2, _) => return Ok(()),
            (1, _) | (0, 0 | 1) => {}
            (_, mode) => return Err(method.unimplemented(format!("conditional 2D blits (render enable mode {mode})"))),
        }
        let (destination, source) = (self.side(method, SET_DST_FORMAT)?, self.side(method, SET_SRC_FORMAT)?);
        let rect = |at: u32| self.register(SET_PIXELS_FROM_MEMORY_DST_X0 + at);
        let (x0, y0, width, height) = (rect(0) as i32, rect(4) as i32, rect(8), rect(12));
        let step = |at: u32| {
            fixed(
                self.register(SET_PIXELS_FROM_MEMORY_DST_X0 + at),
                self.register(SET_PIXELS_FROM_MEMORY_DST_X0 + at + 4),
            )
        };
        let (du_dx, dv_dy, src_x0, src_y0) = (step(0x10), step(0x18), step(0x20), step(0x28));
        let mode = self.register(SET_PIXELS_FROM_MEMORY_SAMPLE_MODE);
        let (corner, bilinear) = (mode & 1 == 1, mode >> 4 & 1 == 1);
        // The destination pixels: the rectangle within the surface and the clip.
        let mut columns =
            (i64::from(x0).max(0), (i64::from(x0) + i64::from(width)).min(i64::from(destination.surface.width)));
        let mut rows =
            (i64::from(y0).max(0), (i64::from(y0) + i64::from(height)).min(i64::from(destination.surface.height)));
        if self.register(SET_CLIP_ENABLE) & 1 == 1 {
            let clip = |at: u32| i64::from(self.register(SET_CLIP_X0 + at));
            columns = (columns.0.max(clip(0)), columns.1.min(clip(0) + clip(8)));
            rows = (rows.0.max(clip(4)), rows.1.min(clip(4) + clip(12)));
        }
        if columns.0 >= columns.1 || rows.0 >= rows.1 {
            return Ok(());
        }
        // Bytes bound the surfaces, not the pixels: a pitch of 0 makes every row one.
        let pixels = (columns.1 - columns.0) as u64 * (rows.1 - rows.0) as u64;
        if pixels > MAX_PIXELS {
            return Err(method.bad_argument(height, "a blit of more pixels than Tandem blits (2^28)"));
        }
        // The source's texels and the destination's bytes, read once.
        let read_span = |side: &Side| -> Result<Vec<u8>, EngineError> {
            let span = side.surface.layer_bytes().filter(|&span| span <= MAX_SPAN).ok_or_else(|| {
                method.bad_argument(side.surface.width, "a surface larger than Tandem blits (256 MiB)")
            })?;
            let mut bytes = vec![0u8; span as usize];
            context.read(side.surface.address, &mut bytes).map_err(|e| method.memory(e))?;
            Ok(bytes)
        };
        let source_bytes = read_span(&source)?;
        let mut destination_bytes = read_span(&destination)?;
        let beta4 = self.register(SET_BETA4).to_le_bytes();
        // B 7:0, G 15:8, R 23:16, A 31:24, each as a fraction of 255.
        let beta = [beta4[2], beta4[1], beta4[0], beta4[3]].map(|b| f64::from(b) / 255.0);
        let same_format = source.format.code == destination.format.code;
        let half = if corner { 0 } else { 1i128 << 31 };
        let texel = |x: i128, y: i128| -> Result<&[u8], EngineError> {
            let offset = source_texel_offset(&source.surface, x, y)
                .filter(|&at| at + u64::from(source.format.bytes) <= source_bytes.len() as u64)
                .ok_or_else(|| {
                    method.unimplemented(format!("a 2D blit reading texel ({x}, {y}), outside its source"))
                })?;
            Ok(&source_bytes[offset as usize..][..source.format.bytes as usize])
        };
        for y in rows.0..rows.1 {
            let v = src_y0 + i128::from(y - i64::from(y0)) * dv_dy + half;
            for x in columns.0..columns.1 {
                let u = src_x0 + i128::from(x - i64::from(x0)) * du_dx + half;
                let Some(at) = destination.surface.texel_offset(x as u32, y as u32) else { continue };
                let out = destination_bytes
                    .get_mut(at as usize..)
                    .and_then(|rest| rest.get_mut(..destination.format.bytes as usize))
                    .ok_or_else(|| method.bad_argument(destination.surface.width, "a pixel past the destination"))?;
                if !bilinear && same_format && operation == SRCCOPY {
                    out.copy_from_slice(texel(u >> 32, v >> 32)?);
                    destination.format.fill_unused_bytes(out);
                    continue;
                }
                let value = if bilinear {
                    // The four texels around (u - 0.5, v - 0.5), clamped to the edges, by their fractions.
                    let (u, v) = (u - (1 << 31), v - (1 << 31));
                    let (fu, fv) = ((u & 0xffff_ffff) as f64 / 2f64.powi(32), (v & 0xffff_ffff) as f64 / 2f64.powi(32));
                    let clamp = |n: i128, size: u32| n.clamp(0, i128::from(size.max(1)) - 1);
                    let (w, h) = (source.surface.width, source.surface.height);
                    let (left, top) = (clamp(u >> 32, w), clamp(v >> 32, h));
                    let (right, bottom) = (clamp((u >> 32) + 1, w), clamp((v >> 32) + 1, h));
                    let read = |x, y| {
                        decode(&source.format, texel(x, y)?)
                            .ok_or_else(|| conversion(method, &source.format, &destination.format))
                    };
                    let (a, b) = (read(left, top)?, read(right, top)?);
                    let (c, d) = (read(left, bottom)?, read(right, bottom)?);
                    std::array::from_fn(|k| {
                        let upper = a[k] * (1.0 - fu) + b[k] * fu;
                        let lower = c[k] * (1.0 - fu) + d[k] * fu;
                        upper * (1.0 - fv) + lower * fv
                    })
                } else {
                    decode(&source.format, texel(u >> 32, v >> 32)?)
                        .ok_or_else(|| conversion(method, &source.format, &destination.format))?
                };
                let value = match operation {
                    SRCCOPY_PREMULT => std::array::from_fn(|k| value[k] * beta[k]),
                    SRCCOPY_AND if value[3] == 0.0 => continue,
                    _ => value,
                };
                encode(&destination.format, value, out)
                    .ok_or_else(|| conversion(method, &source.format, &destination.format))?;
            }
        }
        context.write(destination.surface.address, &destination_bytes).map_err(|e| method.memory(e))
    }
}

fn conversion(method: Method, from: &ColorFormat, to: &ColorFormat) -> EngineError {
    method.unimplemented(format!("2D blits converting {} to {} (or filtering it)", from.name, to.name))
}

/// Where source texel (x, y) lies from the surface's start: pitch rows go on past the width into the next row.
fn source_texel_offset(surface: &Surface, x: i128, y: i128) -> Option<u64> {
    match surface.layout {
        Layout::Pitch { pitch } => {
            let offset =
                y.checked_mul(i128::from(pitch))?.checked_add(x.checked_mul(i128::from(surface.bytes_per_texel))?)?;
            u64::try_from(offset).ok()
        }
        Layout::BlockLinear { .. } => surface.texel_offset(u32::try_from(x).ok()?, u32::try_from(y).ok()?),
    }
}

/// A texel's R, G, B, A as numbers (`None` for a kind this engine does not convert); a single-channel format
/// fills all four, a missing alpha reads 1.
fn decode(format: &ColorFormat, texel: &[u8]) -> Option<[f64; 4]> {
    let bits = texel_bits(texel);
    let channel = |(low, width): (u32, u32)| -> Option<f64> {
        let raw = (bits >> low & ((1u128 << width) - 1)) as u32;
        Some(match (format.kind, width) {
            (Kind::Unorm, _) => f64::from(raw) / ((1u64 << width) - 1) as f64,
            (Kind::Snorm, _) => {
                let signed = ((raw << (32 - width)) as i32 >> (32 - width)) as f64;
                (signed / f64::from((1u32 << (width - 1)) - 1)).max(-1.0)
            }
            (Kind::Float, 32) => f64::from(f32::from_bits(raw)),
            _ => return None,
        })
    };
    if SINGLE_CHANNEL.contains(&format.code) {
        let present = format.channels.iter().find(|&&(_, width)| width > 0)?;
        return Some([channel(*present)?; 4]);
    }
    let mut value = [0.0, 0.0, 0.0, 1.0];
    for (k, &(low, width)) in format.channels.iter().enumerate() {
        if width > 0 {
            value[k] = channel((low, width))?;
        }
    }
    Some(value)
}

/// `value` into the channels of a texel of `format`, rounded to nearest; `None` for a kind not converted.
fn encode(format: &ColorFormat, value: [f64; 4], texel: &mut [u8]) -> Option<()> {
    let mut bits = texel_bits(texel);
    for (k, &(low, width)) in format.channels.iter().enumerate() {
        if width == 0 {
            continue;
        }
        let raw = match (format.kind, width) {
            (Kind::Unorm, _) => (value[k].clamp(0.0, 1.0) * ((1u64 << width) - 1) as f64).round_ties_even() as u32,
            (Kind::Snorm, _) => {
                let max = f64::from((1u32 << (width - 1)) - 1);
                ((value[k].clamp(-1.0, 1.0) * max).round_ties_even() as i32 as u32) & ((1u64 << width) - 1) as u32
            }
            (Kind::Float, 32) => (value[k] as f32).to_bits(),
            _ => return None,
        };
        let mask = ((1u128 << width) - 1) << low;
        bits = (bits & !mask) | (u128::from(raw) << low & mask);
    }
    set_texel_bits(texel, format.fill_unused(bits));
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UNORM and SNORM channels round-trip through numbers; R5G6B5's R is its high bits; a single-channel format
    /// fills all four channels.
    #[test]
    fn channels_decode_and_encode_by_their_kinds() {
        let rgba8 = ColorFormat::from_code(0xd5).unwrap();
        assert_eq!(decode(&rgba8, &[0, 51, 255, 128]), Some([0.0, 0.2, 1.0, 128.0 / 255.0]));
        let r5g6b5 = ColorFormat::from_code(0xe8).unwrap();
        let mut texel = [0u8; 2];
        encode(&r5g6b5, [1.0, 0.0, 1.0 / 31.0, 1.0], &mut texel).unwrap();
        assert_eq!(u16::from_le_bytes(texel), 31 << 11 | 1);
        let y8 = ColorFormat::from_code(0xf3).unwrap();
        assert_eq!(decode(&y8, &[51]), Some([0.2; 4]));
        let snorm = ColorFormat::from_code(0xd7).unwrap();
        let mut texel = [0u8; 4];
        encode(&snorm, [-1.0, 1.0, 0.0, -0.5], &mut texel).unwrap();
        assert_eq!(texel, [0x81, 0x7f, 0, 0xc0]);
        assert_eq!(decode(&snorm, &texel).map(|v| v[0]), Some(-1.0));
    }

    /// 32.32 pairs are signed: INT 0xffffffff, FRAC 0xc0000000 is -0.25.
    #[test]
    fn fixed_point_pairs_are_signed() {
        assert_eq!(fixed(0xc000_0000, 0xffff_ffff), -(1i128 << 30));
        assert_eq!(fixed(0x8000_0000, 2), 5 << 31);
    }
}
