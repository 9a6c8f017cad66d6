//! BC7 (BPTC UNORM) block decoding (Khronos Data Format Specification 1.4, "BPTC Compressed Texture Image
//! Formats"; the partition and anchor tables are the specification's, which the ARB_texture_compression_bptc
//! extension and Microsoft's BC7 documentation give alike). Exact: a texel's 8-bit channels are
//! `((64 - w) * e0 + w * e1 + 32) >> 6` of 8-bit end points, so every conforming decoder gives the same bytes.

/// A mode's layout: subsets, partition bits, rotation bits, index-selection bit, colour and alpha bits per end
/// point, a P-bit per end point or per subset, primary and secondary index bits.
struct Mode {
    subsets: usize,
    partition_bits: u32,
    rotation_bits: u32,
    selection_bits: u32,
    colour_bits: u32,
    alpha_bits: u32,
    endpoint_p: bool,
    shared_p: bool,
    index_bits: u32,
    secondary_index_bits: u32,
}

const fn mode(
    subsets: usize,
    partition_bits: u32,
    rotation_bits: u32,
    selection_bits: u32,
    colour_bits: u32,
    alpha_bits: u32,
    endpoint_p: bool,
    shared_p: bool,
    index_bits: u32,
    secondary_index_bits: u32,
) -> Mode {
    Mode {
        subsets,
        partition_bits,
        rotation_bits,
        selection_bits,
        colour_bits,
        alpha_bits,
        endpoint_p,
        shared_p,
        index_bits,
        secondary_index_bits,
    }
}

const MODES: [Mode; 8] = [
    mode(3, 4, 0, 0, 4, 0, true, false, 3, 0),
    mode(2, 6, 0, 0, 6, 0, false, true, 3, 0),
    mode(3, 6, 0, 0, 5, 0, false, false, 2, 0),
    mode(2, 6, 0, 0, 7, 0, true, false, 2, 0),
    mode(1, 0, 2, 1, 5, 6, false, false, 2, 3),
    mode(1, 0, 2, 0, 7, 8, false, false, 2, 2),
    mode(1, 0, 0, 0, 7, 7, true, false, 4, 0),
    mode(2, 6, 0, 0, 5, 5, true, false, 2, 0),
];

/// Interpolation weights (of 64) for 2-, 3- and 4-bit indices.
const WEIGHTS_2: [u16; 4] = [0, 21, 43, 64];
const WEIGHTS_3: [u16; 8] = [0, 9, 18, 27, 37, 46, 55, 64];
const WEIGHTS_4: [u16; 16] = [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64];

pub(super) fn weight(bits: u32, index: u32) -> u16 {
    match bits {
        2 => WEIGHTS_2[index as usize],
        3 => WEIGHTS_3[index as usize],
        _ => WEIGHTS_4[index as usize],
    }
}

/// Two-subset partitions, 2 bits a texel: the subset of texel t (x + 4 y) is `(word >> 2t) & 3`.
pub(super) const PARTITIONS_2_PACKED: [u32; 64] = [
    0x50505050, 0x40404040, 0x54545454, 0x54505040, // 0..3
    0x50404000, 0x55545450, 0x55545040, 0x54504000, // 4..7
    0x50400000, 0x55555450, 0x55544000, 0x54400000, // 8..11
    0x55555440, 0x55550000, 0x55555500, 0x55000000, // 12..15
    0x55150100, 0x00004054, 0x15010000, 0x00405054, // 16..19
    0x00004050, 0x15050100, 0x05010000, 0x40505054, // 20..23
    0x00404050, 0x05010100, 0x14141414, 0x05141450, // 24..27
    0x01155440, 0x00555500, 0x15014054, 0x05414150, // 28..31
    0x44444444, 0x55005500, 0x11441144, 0x05055050, // 32..35
    0x05500550, 0x11114444, 0x41144114, 0x44111144, // 36..39
    0x15055054, 0x01055040, 0x05041050, 0x05455150, // 40..43
    0x14414114, 0x50050550, 0x41411414, 0x00141400, // 44..47
    0x00041504, 0x00105410, 0x10541000, 0x04150400, // 48..51
    0x50410514, 0x41051450, 0x05415014, 0x14054150, // 52..55
    0x41050514, 0x41505014, 0x40011554, 0x54150140, // 56..59
    0x50505500, 0x00555050, 0x15151010, 0x54540404, // 60..63
];

/// Three-subset partitions, packed the same way.
const PARTITIONS_3_PACKED: [u32; 64] = [
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, // 0..3
    0xa5a50000, 0xa0a05050, 0x5555a0a0, 0x5a5a5050, // 4..7
    0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090, // 8..11
    0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250, // 12..15
    0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0, // 16..19
    0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500, // 20..23
    0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, // 24..27
    0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200, // 28..31
    0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424, // 32..35
    0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50, // 36..39
    0x500aa550, 0xaaaa4444, 0x66660000, 0xa5a0a5a0, // 40..43
    0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600, // 44..47
    0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, // 48..51
    0xa85454a8, 0x80959580, 0xaa141414, 0x96960000, // 52..55
    0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000, // 56..59
    0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254, // 60..63
];

/// The anchor texel of subset 1 of a two-subset partition (subset 0's is texel 0).
pub(super) const ANCHOR_2: [u8; 64] = [
    15, 15, 15, 15, 15, 15, 15, 15, // 0..7
    15, 15, 15, 15, 15, 15, 15, 15, // 8..15
    15, 2, 8, 2, 2, 8, 8, 15, // 16..23
    2, 8, 2, 2, 8, 8, 2, 2, // 24..31
    15, 15, 6, 8, 2, 8, 15, 15, // 32..39
    2, 8, 2, 2, 2, 15, 15, 6, // 40..47
    6, 2, 6, 8, 15, 15, 2, 2, // 48..55
    15, 15, 15, 15, 15, 2, 2, 15, // 56..63
];

/// The anchor texels of subsets 1 and 2 of a three-subset partition.
const ANCHOR_3_SECOND: [u8; 64] = [
    3, 3, 15, 15, 8, 3, 15, 15, // 0..7
    8, 8, 6, 6, 6, 5, 3, 3, // 8..15
    3, 3, 8, 15, 3, 3, 6, 10, // 16..23
    5, 8, 8, 6, 8, 5, 15, 15, // 24..31
    8, 15, 3, 5, 6, 10, 8, 15, // 32..39
    15, 3, 15, 5, 15, 15, 15, 15, // 40..47
    3, 15, 5, 5, 5, 8, 5, 10, // 48..55
    5, 10, 8, 13, 15, 12, 3, 3, // 56..63
];

const ANCHOR_3_THIRD: [u8; 64] = [
    15, 8, 8, 3, 15, 15, 3, 8, // 0..7
    15, 15, 15, 15, 15, 15, 15, 8, // 8..15
    15, 8, 15, 3, 15, 8, 15, 8, // 16..23
    3, 15, 6, 10, 15, 15, 10, 8, // 24..31
    15, 3, 15, 10, 10, 8, 9, 10, // 32..39
    6, 15, 8, 15, 3, 6, 6, 8, // 40..47
    15, 3, 15, 15, 15, 15, 15, 15, // 48..55
    15, 15, 15, 15, 3, 15, 15, 8, // 56..63
];

/// Reads a block's fields from its low bit up.
pub(super) struct Bits {
    pub value: u128,
    pub at: u32,
}

impl Bits {
    pub fn take(&mut self, count: u32) -> u32 {
        let field = (self.value >> self.at) as u32 & ((1u64 << count) - 1) as u32;
        self.at += count;
        field
    }
}

/// Widens an `n`-bit value to 8 bits by replicating its high bits.
fn widen(value: u32, n: u32) -> u8 {
    let shifted = value << (8 - n);
    (shifted | shifted >> n) as u8
}

/// Decodes a 16-byte BC7 block: RGBA bytes of texel x + 4 y. A block whose first byte is 0 (no mode) is
/// transparent black.
pub fn decode_block(block: &[u8; 16]) -> [[u8; 4]; 16] {
    let mode_number = block[0].trailing_zeros();
    let Some(mode) = MODES.get(mode_number as usize) else { return [[0; 4]; 16] };
    let mut bits = Bits { value: u128::from_le_bytes(*block), at: mode_number + 1 };
    let partition = bits.take(mode.partition_bits) as usize;
    let rotation = bits.take(mode.rotation_bits);
    let selection = bits.take(mode.selection_bits);
    let endpoints = 2 * mode.subsets;
    // [endpoint][channel], raw, then with P-bits, then widened.
    let mut raw = [[0u32; 4]; 6];
    for channel in 0..3 {
        for endpoint in raw.iter_mut().take(endpoints) {
            endpoint[channel] = bits.take(mode.colour_bits);
        }
    }
    for endpoint in raw.iter_mut().take(endpoints) {
        endpoint[3] = bits.take(mode.alpha_bits);
    }
    let has_p = mode.endpoint_p || mode.shared_p;
    let mut p = [0u32; 6];
    if mode.endpoint_p {
        for bit in p.iter_mut().take(endpoints) {
            *bit = bits.take(1);
        }
    } else if mode.shared_p {
        for subset in 0..mode.subsets {
            let bit = bits.take(1);
            p[2 * subset] = bit;
            p[2 * subset + 1] = bit;
        }
    }
    let mut colours = [[0u8; 4]; 6];
    for (endpoint, colour) in colours.iter_mut().enumerate().take(endpoints) {
        for channel in 0..4 {
            let width = if channel == 3 { mode.alpha_bits } else { mode.colour_bits };
            colour[channel] = match (width, has_p) {
                (0, _) => 255,
                (_, true) => widen(raw[endpoint][channel] << 1 | p[endpoint], width + 1),
                (_, false) => widen(raw[endpoint][channel], width),
            };
        }
    }
    let subset_of = |texel: usize| match mode.subsets {
        1 => 0,
        2 => (PARTITIONS_2_PACKED[partition] >> (2 * texel) & 3) as usize,
        _ => (PARTITIONS_3_PACKED[partition] >> (2 * texel) & 3) as usize,
    };
    let is_anchor = |texel: usize| {
        texel == 0
            || match mode.subsets {
                2 => usize::from(ANCHOR_2[partition]) == texel,
                3 => {
                    usize::from(ANCHOR_3_SECOND[partition]) == texel || usize::from(ANCHOR_3_THIRD[partition]) == texel
                }
                _ => false,
            }
    };
    let mut primary = [0u32; 16];
    for (texel, index) in primary.iter_mut().enumerate() {
        *index = bits.take(mode.index_bits - u32::from(is_anchor(texel)));
    }
    let mut secondary = [0u32; 16];
    if mode.secondary_index_bits > 0 {
        for (texel, index) in secondary.iter_mut().enumerate() {
            *index = bits.take(mode.secondary_index_bits - u32::from(texel == 0));
        }
    }
    std::array::from_fn(|texel| {
        let subset = subset_of(texel);
        let (e0, e1) = (colours[2 * subset], colours[2 * subset + 1]);
        // Mode 4's selection bit gives colour the secondary (3-bit) indices and alpha the primary ones.
        let (colour_index, colour_bits, alpha_index, alpha_bits) = match (mode.secondary_index_bits, selection) {
            (0, _) => (primary[texel], mode.index_bits, primary[texel], mode.index_bits),
            (_, 0) => (primary[texel], mode.index_bits, secondary[texel], mode.secondary_index_bits),
            _ => (secondary[texel], mode.secondary_index_bits, primary[texel], mode.index_bits),
        };
        let mut texel_value: [u8; 4] = std::array::from_fn(|channel| {
            let w = if channel == 3 { weight(alpha_bits, alpha_index) } else { weight(colour_bits, colour_index) };
            (((64 - w) * u16::from(e0[channel]) + w * u16::from(e1[channel]) + 32) >> 6) as u8
        });
        if rotation != 0 {
            texel_value.swap(rotation as usize - 1, 3);
        }
        texel_value
    })
}
