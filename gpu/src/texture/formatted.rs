//! Formatted surface accesses (SULD.P, SUST.P): a texel's components as a formatted load reads them from the
//! texture header's format and data types, and the inverse, each component as a formatted store writes it.
//!
//! Loads are `texel::convert`'s conversions, with no swizzle and no sRGB decoding (a storage image has neither in
//! Vulkan, and Maxwell's formatted loads are what NVK implements Vulkan's typed storage image reads with); the
//! components a format lacks read 0, alpha 1 (of the texel's kind), as Vulkan's storage image reads do. Stores
//! follow Vulkan's "Texel Output Format Conversion": normalised values are clamped to their range and rounded to
//! the nearest step (ties to even); floats are rounded to nearest even, FP16 past its range to infinity, the
//! unsigned 11- and 10-bit floats as Vulkan's "Unsigned 11-Bit/10-Bit Floating-Point Numbers" say (negatives and
//! -inf 0, finite values past the largest the largest, NaN a NaN); integers keep their low bits (Vulkan leaves an
//! out-of-range integer undefined). Sources and what is inferred: `gpu/research/formatted-surfaces.md`.

use super::descriptor::DataType;
use super::format::texel_bits;
use super::texel::{Numeric, Storage, TexelError, TextureFormat, component_value, numeric};

/// What a formatted access can reach: a plain format's components and their data types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormattedTexels {
    pub format: TextureFormat,
    pub bytes: u32,
    components: [(u32, u32); 4],
    data_types: [DataType; 4],
}

impl FormattedTexels {
    /// `None` for formats whose texels are not a component per field (compressed, shared-exponent).
    pub fn new(format: TextureFormat, data_types: [DataType; 4]) -> Option<FormattedTexels> {
        match format.storage {
            Storage::Plain { bytes, components } => Some(FormattedTexels { format, bytes, components, data_types }),
            _ => None,
        }
    }

    /// The four values a formatted load of `texel` (the format's bytes) gives: FP32 bits, or the integer for SINT
    /// and UINT components.
    pub fn load(&self, texel: &[u8]) -> Result<[u32; 4], TexelError> {
        let packed = texel_bits(texel);
        let one = if self.data_types[0].is_integer() { 1 } else { 1f32.to_bits() };
        let mut values = [0, 0, 0, one];
        for (c, &(low, width)) in self.components.iter().enumerate() {
            if width != 0 {
                let raw = (packed >> low & ((1u128 << width) - 1)) as u32;
                values[c] = component_value(raw, width, self.data_types[c])
                    .ok_or(TexelError::FloatWidth { name: self.format.name, width })?;
            }
        }
        Ok(values)
    }

    /// Writes `values` (as `load` gives them) into the components of `texel` that `written` names; the bits of
    /// other components, and bits no component holds, stay as they are.
    pub fn store(&self, values: [u32; 4], written: [bool; 4], texel: &mut [u8]) -> Result<(), TexelError> {
        let mut packed = texel_bits(texel);
        for (c, &(low, width)) in self.components.iter().enumerate() {
            if width == 0 || !written[c] {
                continue;
            }
            let raw = encode(values[c], width, numeric(self.data_types[c]))
                .ok_or(TexelError::FloatWidth { name: self.format.name, width })?;
            let mask = ((1u128 << width) - 1) << low;
            packed = packed & !mask | u128::from(raw) << low & mask;
        }
        super::format::set_texel_bits(texel, packed);
        Ok(())
    }
}

/// `value` (FP32 bits, or the integer for SINT and UINT) as a component of `width` bits read as `numeric`;
/// `None` for a float width other than 32, 16, 11 and 10.
pub fn encode(value: u32, width: u32, numeric: Numeric) -> Option<u32> {
    let low_bits = if width == 32 { u32::MAX } else { (1 << width) - 1 };
    let float = f64::from(f32::from_bits(value));
    // NaN converts to 0 for the normalised formats.
    let clamped = |low: f64| if float.is_nan() { 0.0 } else { float.clamp(low, 1.0) };
    Some(match numeric {
        Numeric::Unorm => (clamped(0.0) * f64::from(low_bits)).round_ties_even() as u32,
        Numeric::Snorm => {
            let steps = f64::from((1u32 << (width - 1)) - 1);
            (clamped(-1.0) * steps).round_ties_even() as i32 as u32 & low_bits
        }
        Numeric::Sint | Numeric::Uint => value & low_bits,
        Numeric::Uscaled | Numeric::Sscaled => unreachable!("no texture data type is scaled"),
        Numeric::Float => match width {
            32 => value,
            16 => small_float(f32::from_bits(value), 10, true),
            11 | 10 => small_float(f32::from_bits(value), width - 5, false),
            _ => return None,
        },
    })
}

/// `value` rounded to nearest even as a float of a 5-bit exponent (bias 15) and `mantissa_bits`, with a sign bit
/// above them when `signed`: past the largest finite value infinity when signed, that value when not; an unsigned
/// float takes negatives and -inf as 0.
fn small_float(value: f32, mantissa_bits: u32, signed: bool) -> u32 {
    let infinity = 0x1f << mantissa_bits;
    let sign = if signed && value.is_sign_negative() { 1 << (mantissa_bits + 5) } else { 0 };
    if value.is_nan() {
        return sign | infinity | 1 << (mantissa_bits - 1);
    }
    if !signed && (value.is_sign_negative() || value == 0.0) {
        return 0;
    }
    if value.is_infinite() {
        return sign | infinity;
    }
    let magnitude = f64::from(value.abs());
    // The step between neighbouring values at this magnitude: 2^(e - m), denormals' at e = -14.
    let exponent = (f64_exponent(magnitude)).max(-14);
    let step = 2f64.powi(exponent - mantissa_bits as i32);
    let rounded = (magnitude / step).round_ties_even() * step;
    let largest = (2.0 - 2f64.powi(-(mantissa_bits as i32))) * 2f64.powi(15);
    if rounded > largest {
        return if signed { sign | infinity } else { infinity - 1 };
    }
    if rounded < 2f64.powi(-14) {
        // Zero or a denormal: the mantissa counts steps of 2^(-14 - m).
        return sign | (rounded / 2f64.powi(-14 - mantissa_bits as i32)) as u32;
    }
    let exponent = f64_exponent(rounded);
    let mantissa = (rounded / 2f64.powi(exponent - mantissa_bits as i32)) as u32 - (1 << mantissa_bits);
    sign | ((exponent + 15) as u32) << mantissa_bits | mantissa
}

/// The binary exponent of a positive, normal f64: floor(log2(x)), exactly.
fn f64_exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::texel::{half_to_f32, small_float_to_f32};

    fn texels(code: u32, data_type: DataType) -> FormattedTexels {
        FormattedTexels::new(TextureFormat::from_code(code).unwrap(), [data_type; 4]).unwrap()
    }

    /// Loads convert each component by its data type with no swizzle; absent components read 0, alpha 1.
    #[test]
    fn loads_read_components_by_their_data_types() {
        let f = |x: f32| x.to_bits();
        assert_eq!(
            texels(0x08, DataType::Unorm).load(&[0, 51, 255, 128]).unwrap(),
            [0, f(0.2), f(1.0), f(128.0 / 255.0)]
        );
        assert_eq!(texels(0x1d, DataType::Uint).load(&[200]).unwrap(), [200, 0, 0, 1]);
        assert_eq!(texels(0x1d, DataType::Unorm).load(&[0]).unwrap(), [0, 0, 0, f(1.0)]);
        assert_eq!(texels(0x0c, DataType::Sint).load(&[0xfe, 0xff, 7, 0]).unwrap(), [-2i32 as u32, 7, 0, 1]);
    }

    /// Every half and every 11- and 10-bit float stores as itself once loaded (NaNs as a NaN), and FP32 values
    /// between two halves go to the nearer, ties to the even one.
    #[test]
    fn small_floats_store_as_ieee_rounding_gives_them() {
        for bits in 0..=0xffffu32 {
            let value = half_to_f32(bits);
            let stored = encode(value, 16, Numeric::Float).unwrap();
            if f32::from_bits(value).is_nan() {
                assert!(f32::from_bits(half_to_f32(stored)).is_nan(), "{bits:#x}");
            } else {
                assert_eq!(stored, bits, "{bits:#x}");
            }
        }
        for width in [11, 10] {
            for bits in 0..(1u32 << width) {
                let value = small_float_to_f32(bits, width);
                let stored = encode(value, width, Numeric::Float).unwrap();
                if f32::from_bits(value).is_nan() {
                    assert!(f32::from_bits(small_float_to_f32(stored, width)).is_nan(), "{width} {bits:#x}");
                } else {
                    assert_eq!(stored, bits, "{width} {bits:#x}");
                }
            }
        }
        let half = |x: f32| encode(x.to_bits(), 16, Numeric::Float).unwrap();
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even 1; 1 + 3 * 2^-11 to 1 + 2^-9.
        assert_eq!(half(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(half(65520.0), 0x7c00, "past the largest half rounds to infinity");
        assert_eq!(half(-65504.0), 0xfbff);
        assert_eq!(half(2f32.powi(-25)), 0, "half the smallest denormal ties to zero");
        assert_eq!(half(-0.0), 0x8000);
        let eleven = |x: f32| encode(x.to_bits(), 11, Numeric::Float).unwrap();
        assert_eq!(eleven(-3.0), 0);
        assert_eq!(eleven(f32::NEG_INFINITY), 0);
        assert_eq!(eleven(1e9), 0x7bf, "the largest finite 11-bit float");
        assert_eq!(eleven(f32::INFINITY), 0x7c0);
    }

    const ALL: [bool; 4] = [true; 4];

    /// Normalised stores clamp and round to the nearest step; integers keep their low bits; bits of no component,
    /// and components not written, stay as they were.
    #[test]
    fn stores_convert_to_each_component() {
        let f = |x: f32| x.to_bits();
        let mut texel = [0u8; 4];
        texels(0x08, DataType::Unorm).store([f(0.25), f(-1.0), f(2.0), f(f32::NAN)], ALL, &mut texel).unwrap();
        assert_eq!(texel, [64, 0, 255, 0], "63.75 rounds to 64");
        texels(0x08, DataType::Snorm).store([f(-1.0), f(0.5), f(-2.0), f(1.0)], ALL, &mut texel).unwrap();
        assert_eq!(texel, [0x81, 64, 0x81, 127], "0.5 x 127 = 63.5 ties to 64");
        let mut x8 = [9, 9, 9, 0xab];
        texels(0x07, DataType::Uint).store([0x1ff, 2, 3, 4], ALL, &mut x8).unwrap();
        assert_eq!(x8, [0xff, 2, 3, 0xab], "low bits; X8 keeps its byte");
        let mut packed = [0u8; 4];
        let rgb10a2 = texels(0x09, DataType::Unorm);
        rgb10a2.store([f(1.0), f(0.5), f(0.0), f(1.0 / 3.0)], ALL, &mut packed).unwrap();
        assert_eq!(u32::from_le_bytes(packed), 1023 | 512 << 10 | 1 << 30, "511.5 ties to 512; alpha 1/3 x 3 = 1");
        assert_eq!(rgb10a2.load(&packed).unwrap(), [f(1.0), f(512.0 / 1023.0), 0, f(1.0 / 3.0)]);
        // SNORM's -128 reads as -1.0, which stores as -127: an unwritten component keeps its -128.
        let mut snorm = [0x80, 0x80, 0x80, 0x80];
        texels(0x08, DataType::Snorm)
            .store([f(0.0), f(-1.0), f(0.0), f(-1.0)], [true, true, false, false], &mut snorm)
            .unwrap();
        assert_eq!(snorm, [0, 0x81, 0x80, 0x80]);
    }
}
