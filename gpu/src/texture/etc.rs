//! ETC2 and EAC block decoders (Khronos Data Format Specification 1.3, "ETC2 Compressed Texture Image Formats"),
//! the formats Maxwell's texture headers call ETC2_RGB, ETC2_RGB_PTA, ETC2_RGBA, EAC and EACX2. A block is
//! 4 x 4 texels, its 64-bit halves big-endian; texel (x, y) is the block's pixel x * 4 + y (columns first).
//!
//! An ETC2 colour block is in one of five modes: individual and differential (ETC1's two sub-blocks of a base
//! colour and an intensity table), and the T, H and planar modes that a differential block whose red, green or
//! blue sum leaves 0..31 selects. The punch-through variant (RGB8A1) reads the differential bit as "opaque": when
//! it is clear, pixel index 2 is transparent black and the differential mode's tables lose their small entries.
//! An EAC block is one channel: a base, a multiplier and a table of eight modifiers, 8 bits for ETC2_RGBA's alpha
//! and 11 bits for R11 and RG11 (signed or not).

use super::bc::Texels;

/// ETC1's intensity modifiers, a row a table: pixel index 0 adds the first, 1 the second, 2 and 3 subtract them.
const INTENSITY: [[i32; 2]; 8] = [[2, 8], [5, 17], [9, 29], [13, 42], [18, 60], [24, 80], [33, 106], [47, 183]];

/// The T and H modes' distances.
const DISTANCE: [i32; 8] = [3, 6, 11, 16, 23, 32, 41, 64];

/// EAC's modifier tables, a row a table, for the eight 3-bit pixel indices.
const EAC_MODIFIERS: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// The ETC2 and EAC formats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Etc {
    /// ETC2 RGB8: 8 bytes.
    Rgb,
    /// ETC2 RGB8A1 (punch-through alpha): 8 bytes.
    RgbPunchThrough,
    /// ETC2 RGBA8: an EAC alpha block, then an ETC2 colour block; 16 bytes.
    Rgba,
    /// EAC R11, UNORM or SNORM: 8 bytes.
    R11 { signed: bool },
    /// EAC RG11: two R11 blocks, red then green; 16 bytes.
    Rg11 { signed: bool },
}

impl Etc {
    pub fn block_bytes(self) -> usize {
        match self {
            Etc::Rgb | Etc::RgbPunchThrough | Etc::R11 { .. } => 8,
            Etc::Rgba | Etc::Rg11 { .. } => 16,
        }
    }
}

/// Bits `high..=low` of `word`.
fn bits(word: u64, high: u32, low: u32) -> i32 {
    (word >> low & ((1 << (high - low + 1)) - 1)) as i32
}

/// A 4-, 5-, 6- or 7-bit colour component widened to 8 bits by replicating its top bits.
fn widen(value: i32, width: u32) -> i32 {
    value << (8 - width) | value >> (2 * width - 8)
}

/// The 2-bit index of pixel `i` (x * 4 + y): its high bit at 16 + i, its low bit at i.
fn pixel_index(word: u64, i: usize) -> usize {
    ((word >> (16 + i) & 1) << 1 | word >> i & 1) as usize
}

/// An ETC2 colour block (8 bytes): each texel's RGB (0..255) and whether it is opaque. `punch_through` reads bit 33
/// as the opaque bit of RGB8A1.
fn colour_block(block: &[u8], punch_through: bool) -> [([i32; 3], bool); 16] {
    let word = u64::from_be_bytes(block[..8].try_into().expect("eight bytes"));
    let flag = word >> 33 & 1 == 1;
    let (differential, opaque) = if punch_through { (true, flag) } else { (flag, true) };
    let mut texels = [([0; 3], true); 16];
    if !differential {
        // Individual: two 4-bit base colours.
        let first = [bits(word, 63, 60), bits(word, 55, 52), bits(word, 47, 44)].map(|c| widen(c, 4));
        let second = [bits(word, 59, 56), bits(word, 51, 48), bits(word, 43, 40)].map(|c| widen(c, 4));
        return sub_blocks(word, [first, second], true);
    }
    // Differential: a 5-bit base and a signed 3-bit difference; a sum outside 0..31 selects another mode.
    let base = [bits(word, 63, 59), bits(word, 55, 51), bits(word, 47, 43)];
    let delta = [bits(word, 58, 56), bits(word, 50, 48), bits(word, 42, 40)].map(|d| (d << 29) >> 29);
    let sum: [i32; 3] = std::array::from_fn(|c| base[c] + delta[c]);
    let outside = |c: usize| !(0..32).contains(&sum[c]);
    let paint = if outside(0) {
        // T: colour 1 from R 60:59 and 57:56, G 55:52, B 51:48; colour 2 from 47:36; distance 35:34 and 32.
        let first = [bits(word, 60, 59) << 2 | bits(word, 57, 56), bits(word, 55, 52), bits(word, 51, 48)];
        let second = [bits(word, 47, 44), bits(word, 43, 40), bits(word, 39, 36)];
        let (first, second) = (first.map(|c| widen(c, 4)), second.map(|c| widen(c, 4)));
        let d = DISTANCE[(bits(word, 35, 34) << 1 | bits(word, 32, 32)) as usize];
        [first, offset(second, d), second, offset(second, -d)]
    } else if outside(1) {
        // H: colour 1 from R 62:59, G 58:56 and 52, B 51 and 49:47; colour 2 from 46:35; distance 34, 32, and
        // whether colour 1 is at least colour 2.
        let first = [
            bits(word, 62, 59),
            bits(word, 58, 56) << 1 | bits(word, 52, 52),
            bits(word, 51, 51) << 3 | bits(word, 49, 47),
        ];
        let second = [bits(word, 46, 43), bits(word, 42, 39), bits(word, 38, 35)];
        let value = |c: [i32; 3]| c[0] << 8 | c[1] << 4 | c[2];
        let order = i32::from(value(first) >= value(second));
        let d = DISTANCE[(bits(word, 34, 34) << 2 | bits(word, 32, 32) << 1 | order) as usize];
        let (first, second) = (first.map(|c| widen(c, 4)), second.map(|c| widen(c, 4)));
        [offset(first, d), offset(first, -d), offset(second, d), offset(second, -d)]
    } else if outside(2) {
        return planar(word);
    } else {
        let first = base.map(|c| widen(c, 5));
        let second = sum.map(|c| widen(c, 5));
        let mut texels = sub_blocks(word, [first, second], opaque);
        if !opaque {
            for (i, texel) in texels.iter_mut().enumerate() {
                if pixel_index(word, i) == 2 {
                    *texel = ([0; 3], false);
                }
            }
        }
        return texels;
    };
    for (i, texel) in texels.iter_mut().enumerate() {
        let index = pixel_index(word, i);
        *texel = if !opaque && index == 2 { ([0; 3], false) } else { (paint[index], true) };
    }
    texels
}

/// `colour` plus `d` in each component, clamped to 0..255.
fn offset(colour: [i32; 3], d: i32) -> [i32; 3] {
    colour.map(|c| (c + d).clamp(0, 255))
}

/// The individual and differential modes: two sub-blocks (side by side, or with the flip bit 32 one above the
/// other), each a base colour and the intensity table of bits 39:37 or 36:34. Without `full_tables` (an RGB8A1
/// block that is not opaque) the tables' first entries are 0.
fn sub_blocks(word: u64, colours: [[i32; 3]; 2], full_tables: bool) -> [([i32; 3], bool); 16] {
    let flip = word >> 32 & 1 == 1;
    let tables = [bits(word, 39, 37), bits(word, 36, 34)];
    std::array::from_fn(|i| {
        let (x, y) = (i / 4, i % 4);
        let sub = usize::from(if flip { y >= 2 } else { x >= 2 });
        let [small, large] = INTENSITY[tables[sub] as usize];
        let small = if full_tables { small } else { 0 };
        let modifier = [small, large, -small, -large][pixel_index(word, i)];
        (offset(colours[sub], modifier), true)
    })
}

/// The planar mode: colours at the block's origin (O), its right (H) and its bottom (V) edges, interpolated.
fn planar(word: u64) -> [([i32; 3], bool); 16] {
    let origin = [
        widen(bits(word, 62, 57), 6),
        widen(bits(word, 56, 56) << 6 | bits(word, 54, 49), 7),
        widen(bits(word, 48, 48) << 5 | bits(word, 44, 43) << 3 | bits(word, 41, 39), 6),
    ];
    let horizontal = [
        widen(bits(word, 38, 34) << 1 | bits(word, 32, 32), 6),
        widen(bits(word, 31, 25), 7),
        widen(bits(word, 24, 19), 6),
    ];
    let vertical = [widen(bits(word, 18, 13), 6), widen(bits(word, 12, 6), 7), widen(bits(word, 5, 0), 6)];
    std::array::from_fn(|i| {
        let (x, y) = ((i / 4) as i32, (i % 4) as i32);
        let colour = std::array::from_fn(|c| {
            let o = origin[c];
            ((x * (horizontal[c] - o) + y * (vertical[c] - o) + 4 * o + 2) >> 2).clamp(0, 255)
        });
        (colour, true)
    })
}

/// An EAC block (8 bytes): each pixel's modifier index (3 bits, pixel i at 47 - 3i), with the base (63:56),
/// multiplier (55:52) and table (51:48), through `value`.
fn eac_block(block: &[u8], value: impl Fn(i32, i32, i32) -> i32) -> [i32; 16] {
    let word = u64::from_be_bytes(block[..8].try_into().expect("eight bytes"));
    let (base, multiplier, table) = (bits(word, 63, 56), bits(word, 55, 52), bits(word, 51, 48) as usize);
    std::array::from_fn(|i| {
        let index = bits(word, 47 - 3 * i as u32, 45 - 3 * i as u32) as usize;
        value(base, multiplier, EAC_MODIFIERS[table][index])
    })
}

/// An R11 channel as a normalised float: unsigned, base x 8 + 4 plus the modifier x multiplier x 8 (or the
/// modifier alone when the multiplier is 0) in 0..2047, over 2047; signed, the base a signed byte (-128 as -127),
/// base x 8 plus the same in -1023..1023, over 1023.
fn r11_block(block: &[u8], signed: bool) -> [f32; 16] {
    let values = eac_block(block, |base, multiplier, modifier| {
        let step = if multiplier == 0 { modifier } else { modifier * multiplier * 8 };
        if signed {
            let base = i32::from(base as u8 as i8).max(-127);
            (base * 8 + step).clamp(-1023, 1023)
        } else {
            (base * 8 + 4 + step).clamp(0, 2047)
        }
    });
    values.map(|v| if signed { v as f32 / 1023.0 } else { v as f32 / 2047.0 })
}

/// Decodes one block of `format` (`format.block_bytes()` bytes) into RGBA floats, texel (x, y) at 4 y + x:
/// colours as normalised 8-bit values; R11 and RG11 with green or blue 0 and alpha 1.
pub fn decode_block(format: Etc, block: &[u8]) -> Texels {
    let mut texels = [[0.0, 0.0, 0.0, 1.0]; 16];
    // Pixel i (x * 4 + y) of a block is texel 4 y + x.
    let texel = |i: usize| (i % 4) * 4 + i / 4;
    let colour = |texels: &mut Texels, colours: [([i32; 3], bool); 16]| {
        for (i, (rgb, opaque)) in colours.into_iter().enumerate() {
            let t = &mut texels[texel(i)];
            for c in 0..3 {
                t[c] = rgb[c] as f32 / 255.0;
            }
            t[3] = if opaque { 1.0 } else { 0.0 };
        }
    };
    match format {
        Etc::Rgb => colour(&mut texels, colour_block(block, false)),
        Etc::RgbPunchThrough => colour(&mut texels, colour_block(block, true)),
        Etc::Rgba => {
            colour(&mut texels, colour_block(&block[8..], false));
            let alpha = eac_block(block, |base, multiplier, modifier| (base + modifier * multiplier).clamp(0, 255));
            for (i, a) in alpha.into_iter().enumerate() {
                texels[texel(i)][3] = a as f32 / 255.0;
            }
        }
        Etc::R11 { signed } | Etc::Rg11 { signed } => {
            let channels = format.block_bytes() / 8;
            for channel in 0..channels {
                let values = r11_block(&block[8 * channel..], signed);
                for (i, v) in values.into_iter().enumerate() {
                    texels[texel(i)][channel] = v;
                }
            }
        }
    }
    texels
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An EAC block: base byte, multiplier, table, and one modifier index for every pixel but pixel 5's.
    fn eac(base: u8, multiplier: u8, table: u8, index: u64, pixel5: u64) -> [u8; 8] {
        let indices = (0..16u64).fold(0, |word, i| word | if i == 5 { pixel5 } else { index } << (45 - 3 * i));
        (u64::from(base) << 56 | u64::from(multiplier) << 52 | u64::from(table) << 48 | indices).to_be_bytes()
    }

    /// The specification's R11 formulas, worked by hand: unsigned base x 8 + 4 + modifier x multiplier x 8 over
    /// 2047, signed base x 8 + modifier x multiplier x 8 over 1023, the modifier alone when the multiplier is 0,
    /// clamped; a signed base of -128 is -127. Pixel 5 (x 1, y 1) is texel 5.
    #[test]
    fn r11_values_follow_the_specification() {
        let r = |signed, block: [u8; 8]| decode_block(Etc::R11 { signed }, &block).map(|texel| texel[0]);
        // Table 13 is (-1, -2, -3, -10, 0, 1, 2, 9): index 3 is -10, index 7 is 9.
        assert_eq!(r(false, eac(100, 0, 13, 3, 7))[0], (800.0 + 4.0 - 10.0) / 2047.0);
        assert_eq!(r(false, eac(100, 0, 13, 3, 7))[5], (800.0 + 4.0 + 9.0) / 2047.0);
        assert_eq!(r(false, eac(250, 15, 13, 7, 3))[0], 1.0, "2004 + 9 x 15 x 8 clamps at 2047");
        // Table 0 is (-3, -6, -9, -15, 2, 5, 8, 14).
        assert_eq!(r(true, eac(0x80, 2, 0, 3, 7))[0], -1.0, "-127 x 8 - 15 x 2 x 8 clamps at -1023");
        assert_eq!(r(true, eac(0x80, 0, 0, 7, 7))[0], (-1016.0 + 14.0) / 1023.0, "-128 reads as -127");
        assert_eq!(r(true, eac(50, 3, 0, 7, 0))[0], (400.0 + 14.0 * 3.0 * 8.0) / 1023.0);
        assert_eq!(r(true, eac(50, 3, 0, 7, 0))[5], (400.0 - 3.0 * 3.0 * 8.0) / 1023.0);
        assert_eq!(r(true, eac(0xfb, 0, 2, 0, 0))[3], (-40.0 - 2.0) / 1023.0);
        // RG11: green from the second block.
        let mut rg = [0u8; 16];
        rg[..8].copy_from_slice(&eac(10, 1, 0, 4, 4));
        rg[8..].copy_from_slice(&eac(20, 1, 0, 4, 4));
        assert_eq!(
            decode_block(Etc::Rg11 { signed: false }, &rg)[0],
            [(84.0 + 16.0) / 2047.0, (164.0 + 16.0) / 2047.0, 0.0, 1.0]
        );
    }
}
