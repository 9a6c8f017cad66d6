//! Vertex fetch for the 3D engine's draws. It is guest semantics, so it is done here, on the CPU, for every back
//! end: each vertex of a launch becomes a record of the 32 generic attributes as the vertex shader reads them
//! (four 32-bit words each: floats as their bits, integers as raw bits — Maxwell behaviour 3.9), then the vertex
//! and instance ids (`draw::VERTEX_RECORD_WORDS`); primitive restart cuts a launch into runs of records.

use super::draw::{
    Launch, SET_ATTRIBUTE_DEFAULT, SET_DA_OUTPUT, SET_DA_PRIMITIVE_RESTART, SET_DA_PRIMITIVE_RESTART_INDEX,
    SET_DA_PRIMITIVE_RESTART_TOPOLOGY_CHANGE, SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY, SET_GLOBAL_BASE_INSTANCE_INDEX,
    SET_GLOBAL_BASE_VERTEX_INDEX, SET_INDEX_BUFFER_A, SET_INDEX_BUFFER_SIZE_A, SET_VERTEX_ATTRIBUTE_A,
    SET_VERTEX_ID_BASE, SET_VERTEX_STREAM_A_FORMAT, SET_VERTEX_STREAM_INSTANCE_A, SET_VERTEX_STREAM_LIMIT_A_A,
    SET_VERTEX_STREAM_SIZE_A, Topology, VERTEX_RECORD_WORDS, address,
};
use super::maxwell_3d::Maxwell3D;
use super::{Context, EngineError, Method};
use crate::shader::sph::{ProgramHeader, attribute};
use crate::texture::format::texel_bits;
use crate::texture::texel::{self, Numeric};

/// The most vertices one launch may fetch (a bad count should not exhaust the host's memory).
const MAX_VERTICES: u32 = 1 << 20;

/// A vertex attribute's component widths (SET_VERTEX_ATTRIBUTE's COMPONENT_BIT_WIDTHS), R first from bit 0.
fn component_widths(code: u32) -> Option<&'static [u32]> {
    Some(match code {
        0x01 => &[32, 32, 32, 32],
        0x02 => &[32, 32, 32],
        0x03 => &[16, 16, 16, 16],
        0x04 => &[32, 32],
        0x05 => &[16, 16, 16],
        0x0a | 0x2f | 0x33 => &[8, 8, 8, 8],
        0x0f => &[16, 16],
        0x12 => &[32],
        0x13 => &[8, 8, 8],
        0x18 | 0x32 => &[8, 8],
        0x1b => &[16],
        0x1d | 0x34 => &[8],
        0x30 => &[10, 10, 10, 2],
        0x31 => &[11, 11, 10],
        _ => return None,
    })
}

/// Component values of one attribute element, as the shader reads them (SET_VERTEX_ATTRIBUTE's NUMERICAL_TYPE:
/// 1 SNORM, 2 UNORM, 3 SINT, 4 UINT, 5 USCALED, 6 SSCALED, 7 FLOAT); components the format lacks read 0 and W 1.
fn convert_attribute(bytes: &[u8], widths: &[u32], kind: u32) -> Result<[u32; 4], &'static str> {
    let packed = texel_bits(bytes);
    let integer = matches!(kind, 3 | 4);
    let mut out = [0, 0, 0, if integer { 1 } else { 0x3f80_0000 }];
    let numeric = [
        Numeric::Snorm,
        Numeric::Unorm,
        Numeric::Sint,
        Numeric::Uint,
        Numeric::Uscaled,
        Numeric::Sscaled,
        Numeric::Float,
    ]
    .get((kind as usize).wrapping_sub(1))
    .copied()
    .ok_or("an attribute type that is not one of the seven")?;
    let mut low = 0;
    for (component, &width) in widths.iter().enumerate() {
        let raw = (packed >> low & ((1u128 << width) - 1)) as u32;
        low += width;
        out[component] = texel::convert(raw, width, numeric).ok_or("a float attribute of this width")?;
    }
    Ok(out)
}

impl Maxwell3D {
    /// The vertex records of a launch, in the order its primitives take them: one run of them, or, where
    /// primitive restart cuts the launch (SET_DA_PRIMITIVE_RESTART: an index equal to SET_DA_PRIMITIVE_RESTART_INDEX,
    /// compared as read, whatever its size; with SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY also a non-indexed
    /// launch's vertex number), the runs between the cuts.
    pub(super) fn fetch_vertices(
        &self,
        at: Method,
        launch: Launch,
        topology: Topology,
        header: &ProgramHeader,
        context: &Context,
    ) -> Result<Vec<Vec<u32>>, EngineError> {
        let (first, count, indexed) = match launch {
            Launch::Array { first, count } => (first, count, false),
            Launch::Indexed { first, count } => (first, count, true),
            Launch::Inline { count } => (0, count, true),
        };
        if count > MAX_VERTICES {
            return Err(at.bad_argument(count, "more vertices in one launch than Tandem fetches (1 Mi)"));
        }
        let restart = self.register(SET_DA_PRIMITIVE_RESTART) & 1 == 1
            && (indexed || self.register(SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY) & 1 == 1);
        if restart && topology.is_list() && self.register(SET_DA_PRIMITIVE_RESTART_TOPOLOGY_CHANGE) & 1 == 0 {
            return Err(at.unimplemented(format!(
                "primitive restart in a {topology:?} launch without SET_DA_PRIMITIVE_RESTART_TOPOLOGY_CHANGE (what \
                 the hardware does with the restart index there is not known)"
            )));
        }
        let restart_index = self.register(SET_DA_PRIMITIVE_RESTART_INDEX);
        let generics: Vec<u32> =
            (0..32).filter(|&g| (0..4).any(|c| header.reads(attribute::GENERIC + 16 * g + 4 * c))).collect();
        let index_size = match self.register(SET_INDEX_BUFFER_A + 16) & 3 {
            0 => 1u64,
            1 => 2,
            _ => 4,
        };
        let index_base = address(self.register(SET_INDEX_BUFFER_A), self.register(SET_INDEX_BUFFER_A + 4));
        // Maxwell gives the last byte's address, Ampere the size.
        let index_limit = if self.ampere() {
            let size = address(self.register(SET_INDEX_BUFFER_SIZE_A), self.register(SET_INDEX_BUFFER_SIZE_A + 4));
            (index_base + size).wrapping_sub(1)
        } else {
            address(self.register(SET_INDEX_BUFFER_A + 8), self.register(SET_INDEX_BUFFER_A + 12))
        };
        // Grown as vertices are fetched: a count the memory cannot back fails before it costs its records.
        let mut runs = vec![Vec::new()];
        for k in 0..count {
            let (raw, element, vertex_id) = if indexed {
                let index = match launch {
                    Launch::Inline { .. } => self.draw.inline_indices[k as usize],
                    _ => {
                        let at_index = index_base + (u64::from(first) + u64::from(k)) * index_size;
                        if at_index + index_size - 1 > index_limit {
                            return Err(
                                at.unimplemented(format!("an index at {at_index:#x}, past the index buffer's limit"))
                            );
                        }
                        let mut bytes = [0u8; 4];
                        context.read(at_index, &mut bytes[..index_size as usize]).map_err(|e| at.memory(e))?;
                        u32::from_le_bytes(bytes)
                    }
                };
                (
                    index,
                    index.wrapping_add(self.global_base(SET_GLOBAL_BASE_VERTEX_INDEX)),
                    index.wrapping_add(self.register(SET_VERTEX_ID_BASE)),
                )
            } else {
                let uses_start = self.register(SET_DA_OUTPUT) >> 12 & 1 == 1;
                let element = first.wrapping_add(k);
                (element, element, if uses_start { element } else { k })
            };
            if restart && raw == restart_index {
                runs.push(Vec::new());
                continue;
            }
            let mut record = [0u32; VERTEX_RECORD_WORDS];
            for &g in &generics {
                let value = self.fetch_attribute(at, g, element, context)?;
                record[4 * g as usize..4 * g as usize + 4].copy_from_slice(&value);
            }
            record[128] = vertex_id;
            record[129] = self.draw.instance;
            runs.last_mut().expect("one at least").extend_from_slice(&record);
        }
        Ok(runs)
    }

    /// Generic attribute `generic` of vertex `element` (instance attributes: of the instance).
    fn fetch_attribute(
        &self,
        at: Method,
        generic: u32,
        element: u32,
        context: &Context,
    ) -> Result<[u32; 4], EngineError> {
        let register = self.register(SET_VERTEX_ATTRIBUTE_A + 4 * generic);
        // Inactive attributes read SET_ATTRIBUTE_DEFAULT's vector: (0, 0, 0, 0) or (0, 0, 0, 1).
        if register >> 6 & 1 == 1 {
            let w = if self.register(SET_ATTRIBUTE_DEFAULT) >> 2 & 1 == 1 { 0x3f80_0000 } else { 0 };
            return Ok([0, 0, 0, w]);
        }
        let stream = register & 0x1f;
        let widths = component_widths(register >> 21 & 0x3f).ok_or_else(|| {
            at.unimplemented(format!("vertex attribute {generic}: component widths {:#x}", register >> 21 & 0x3f))
        })?;
        let format = self.register(SET_VERTEX_STREAM_A_FORMAT + 16 * stream);
        if format >> 12 & 1 == 0 {
            return Err(
                at.unimplemented(format!("vertex attribute {generic} reads vertex stream {stream}, which is disabled"))
            );
        }
        let stride = u64::from(format & 0xfff);
        let element = if self.register(SET_VERTEX_STREAM_INSTANCE_A + 4 * stream) & 1 == 1 {
            let divisor = self.register(SET_VERTEX_STREAM_A_FORMAT + 12 + 16 * stream).max(1);
            self.global_base(SET_GLOBAL_BASE_INSTANCE_INDEX).wrapping_add(self.draw.instance / divisor)
        } else {
            element
        };
        let location = address(
            self.register(SET_VERTEX_STREAM_A_FORMAT + 4 + 16 * stream),
            self.register(SET_VERTEX_STREAM_A_FORMAT + 8 + 16 * stream),
        );
        let limit = if self.ampere() {
            let size = address(
                self.register(SET_VERTEX_STREAM_SIZE_A + 8 * stream),
                self.register(SET_VERTEX_STREAM_SIZE_A + 4 + 8 * stream),
            );
            (location + size).wrapping_sub(1)
        } else {
            address(
                self.register(SET_VERTEX_STREAM_LIMIT_A_A + 8 * stream),
                self.register(SET_VERTEX_STREAM_LIMIT_A_A + 4 + 8 * stream),
            )
        };
        let bytes = widths.iter().sum::<u32>().div_ceil(8) as usize;
        let start = location + u64::from(element) * stride + u64::from(register >> 7 & 0x3fff);
        let mut data = [0u8; 16];
        // Past the stream's limit the fetch reads the substitute address, which drivers point at zeros.
        if start + bytes as u64 - 1 <= limit {
            context.read(start, &mut data[..bytes]).map_err(|e| at.memory(e))?;
        }
        let mut value = convert_attribute(&data[..bytes], widths, register >> 27 & 7)
            .map_err(|what| at.unimplemented(format!("vertex attribute {generic}: {what}")))?;
        if register >> 31 == 1 {
            value.swap(0, 2);
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Conversions by the formats' definitions (Vulkan's "Fixed-Point Data Conversions", IEEE 754 halves, the
    /// 11- and 10-bit floats of B10G11R11): UNORM c / (2^n - 1), SNORM max(c / (2^(n-1) - 1), -1), integers as
    /// raw bits, missing components (0, 0, 0, 1).
    #[test]
    fn attributes_convert_as_their_formats_define() {
        let f = |x: f32| x.to_bits();
        assert_eq!(
            convert_attribute(&[0, 255, 51, 128], &[8, 8, 8, 8], 2),
            Ok([f(0.0), f(1.0), f(0.2), f(128.0 / 255.0)])
        );
        assert_eq!(convert_attribute(&[0x81, 0x7f], &[8, 8], 1), Ok([f(-1.0), f(1.0), 0, f(1.0)]));
        assert_eq!(convert_attribute(&[0xfe, 0xff], &[16], 3), Ok([0xffff_fffe, 0, 0, 1]));
        assert_eq!(convert_attribute(&[0xfe, 0xff], &[16], 4), Ok([0xfffe, 0, 0, 1]));
        assert_eq!(convert_attribute(&[0xfe, 0xff], &[16], 6), Ok([f(-2.0), 0, 0, f(1.0)]));
        // Halves: 1.0, -2.5, the smallest denormal, infinity.
        let halves = [0x3c00u16, 0xc100, 0x0001, 0x7c00].iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<_>>();
        assert_eq!(
            convert_attribute(&halves, &[16, 16, 16, 16], 7),
            Ok([f(1.0), f(-2.5), f(2f32.powi(-24)), f32::INFINITY.to_bits()])
        );
        // B10G11R11: R 11 bits = 1.0 (exponent 15, mantissa 0), G 11 bits = 0.5, B 10 bits = 2.0.
        let packed: u32 = 15 << 6 | (14 << 6) << 11 | (16 << 5) << 22;
        assert_eq!(convert_attribute(&packed.to_le_bytes(), &[11, 11, 10], 7), Ok([f(1.0), f(0.5), f(2.0), f(1.0)]));
        // A2B10G10R10 UNORM: R 1023 = 1.0, A 1 of 3.
        let packed: u32 = 1023 | 1 << 30;
        assert_eq!(convert_attribute(&packed.to_le_bytes(), &[10, 10, 10, 2], 2), Ok([f(1.0), 0, 0, f(1.0 / 3.0)]));
        // A2B10G10R10 SNORM: R 511 = 1.0, G -512 clamps to -1.0, B -1 = -1/511, A 2-bit -1 = -1.0.
        let packed: u32 = 511 | 512 << 10 | 1023 << 20 | 3 << 30;
        assert_eq!(
            convert_attribute(&packed.to_le_bytes(), &[10, 10, 10, 2], 1),
            Ok([f(1.0), f(-1.0), f(-1.0 / 511.0), f(-1.0)])
        );
        // A2B10G10R10 USCALED and SSCALED: the integers as floats.
        let packed: u32 = 1023 | 7 << 10 | 3 << 30;
        assert_eq!(convert_attribute(&packed.to_le_bytes(), &[10, 10, 10, 2], 5), Ok([f(1023.0), f(7.0), 0, f(3.0)]));
        assert_eq!(convert_attribute(&packed.to_le_bytes(), &[10, 10, 10, 2], 6), Ok([f(-1.0), f(7.0), 0, f(-1.0)]));
        // 32-bit SSCALED: -3, and 2^24 + 1, which rounds to the nearest float (2^24).
        let words = [(-3i32) as u32, (1 << 24) + 1].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>();
        assert_eq!(convert_attribute(&words, &[32, 32], 6), Ok([f(-3.0), f(16_777_216.0), 0, f(1.0)]));
        // Three 8-bit UNORM components: w is 1.0.
        assert_eq!(convert_attribute(&[255, 0, 51], &[8, 8, 8], 2), Ok([f(1.0), 0, f(0.2), f(1.0)]));
    }
}
