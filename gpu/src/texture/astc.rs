//! ASTC 2D blocks decoded on the CPU (the reference back end's path for NVN's ASTC textures), as the Khronos Data
//! Format Specification's ASTC chapter defines the LDR profile: block modes, integer sequence encoding,
//! unquantisation, the colour endpoint modes, partition selection and weight infill, to the UNORM16 value of each
//! texel's channels. HDR endpoint modes and HDR void-extent blocks are errors in the LDR profile, as every illegal
//! encoding is: those texels read the error colour, magenta. `tests/astc.rs` holds this to ARM's astcenc.

/// A decoded texel: R, G, B, A as UNORM16 (the interpolation's 16-bit result), or `None` for the error colour.
pub type Texel = Option<[u16; 4]>;

/// The footprints (block width, height) ASTC 2D defines.
pub const FOOTPRINTS: [(u32, u32); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

fn bits(block: u128, low: u32, count: u32) -> u32 {
    if count == 0 { 0 } else { (block >> low) as u32 & (u32::MAX >> (32 - count)) }
}

/// An integer sequence's encoding: `trits` or `quints` (at most one), and `bits` plain bits a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Encoding {
    trits: bool,
    quints: bool,
    bits: u32,
}

impl Encoding {
    /// Bits a sequence of `count` values takes.
    fn size(self, count: u32) -> u32 {
        let trits = if self.trits { (8 * count).div_ceil(5) } else { 0 };
        let quints = if self.quints { (7 * count).div_ceil(3) } else { 0 };
        trits + quints + self.bits * count
    }

    /// The values' range: 0 to this - 1.
    fn levels(self) -> u32 {
        (if self.trits {
            3
        } else if self.quints {
            5
        } else {
            1
        }) << self.bits
    }
}

const fn plain(bits: u32) -> Encoding {
    Encoding { trits: false, quints: false, bits }
}
const fn trit(bits: u32) -> Encoding {
    Encoding { trits: true, quints: false, bits }
}
const fn quint(bits: u32) -> Encoding {
    Encoding { trits: false, quints: true, bits }
}

/// The weight ranges by the block mode's (ρ - 2) + 6 P: 0..1 to 0..31.
const WEIGHT_RANGES: [Encoding; 12] = [
    plain(1),
    trit(0),
    plain(2),
    quint(0),
    trit(1),
    plain(3),
    quint(1),
    trit(2),
    plain(4),
    quint(2),
    trit(3),
    plain(5),
];

/// The colour ranges, smallest first: 0..1 to 0..255.
const COLOUR_RANGES: [Encoding; 21] = [
    plain(1),
    trit(0),
    plain(2),
    quint(0),
    trit(1),
    plain(3),
    quint(1),
    trit(2),
    plain(4),
    quint(2),
    trit(3),
    plain(5),
    quint(3),
    trit(4),
    plain(6),
    quint(4),
    trit(5),
    plain(7),
    quint(5),
    trit(6),
    plain(8),
];

/// The five trits packed in 8 bits (the specification's unpacking, "Integer Sequence Encoding").
fn unpack_trits(t: u32) -> [u32; 5] {
    let bit = |value: u32, n: u32| value >> n & 1;
    let (c, t4, t3);
    if t >> 2 & 7 == 7 {
        c = (t >> 5 & 7) << 2 | (t & 3);
        t4 = 2;
        t3 = 2;
    } else {
        c = t & 0x1f;
        if t >> 5 & 3 == 3 {
            t4 = 2;
            t3 = bit(t, 7);
        } else {
            t4 = bit(t, 7);
            t3 = t >> 5 & 3;
        }
    }
    let (t2, t1, t0);
    if c & 3 == 3 {
        t2 = 2;
        t1 = bit(c, 4);
        t0 = bit(c, 3) << 1 | (bit(c, 2) & !bit(c, 3) & 1);
    } else if c >> 2 & 3 == 3 {
        t2 = 2;
        t1 = 2;
        t0 = c & 3;
    } else {
        t2 = bit(c, 4);
        t1 = c >> 2 & 3;
        t0 = bit(c, 1) << 1 | (bit(c, 0) & !bit(c, 1) & 1);
    }
    [t0, t1, t2, t3, t4]
}

/// The three quints packed in 7 bits.
fn unpack_quints(q: u32) -> [u32; 3] {
    let bit = |value: u32, n: u32| value >> n & 1;
    if q >> 1 & 3 == 3 && q >> 5 & 3 == 0 {
        let q2 = bit(q, 0) << 2 | (bit(q, 4) & !bit(q, 0) & 1) << 1 | (bit(q, 3) & !bit(q, 0) & 1);
        return [4, 4, q2];
    }
    let (q2, c);
    if q >> 1 & 3 == 3 {
        q2 = 4;
        c = (q >> 3 & 3) << 3 | (!(q >> 5) & 3) << 1 | bit(q, 0);
    } else {
        q2 = q >> 5 & 3;
        c = q & 0x1f;
    }
    let (q1, q0) = if c & 7 == 5 { (4, c >> 3 & 3) } else { (c >> 3 & 3, c & 7) };
    [q0, q1, q2]
}

/// `count` values of `encoding` from bit `start` of `stream` upward: each the trit or quint times 2^bits plus its
/// bits.
fn decode_sequence(stream: u128, start: u32, count: u32, encoding: Encoding) -> Vec<u32> {
    let n = encoding.bits;
    let mut values = Vec::with_capacity(count as usize);
    let mut at = start;
    let mut take = |width: u32| {
        let value = if at >= 128 { 0 } else { bits(stream, at, width.min(128 - at)) };
        at += width;
        value
    };
    if encoding.trits || encoding.quints {
        // A group's values, each its n bits followed by its share of the packed trits or quints.
        let (group, shares): (u32, &[u32]) = if encoding.trits { (5, &[2, 2, 1, 2, 1]) } else { (3, &[3, 2, 2]) };
        while (values.len() as u32) < count {
            let in_group = (count - values.len() as u32).min(group);
            let mut low = Vec::new();
            let mut packed = 0u32;
            let mut shift = 0;
            for (k, &share) in shares.iter().enumerate() {
                if (k as u32) < in_group {
                    low.push(take(n));
                    packed |= take(share) << shift;
                }
                shift += share;
            }
            let high: Vec<u32> =
                if encoding.trits { unpack_trits(packed).to_vec() } else { unpack_quints(packed).to_vec() };
            values.extend(low.iter().zip(&high).map(|(&m, &h)| h << n | m));
        }
    } else {
        values.extend((0..count).map(|_| take(n)));
    }
    values
}

/// The bits of `m` a row of the unquantisation tables names, most significant first: '0', or 'b' to 'f' for bits
/// 1 to 5 of `m`.
fn pattern(row: &str, m: u32) -> u32 {
    row.bytes().fold(0, |value, c| value << 1 | if c == b'0' { 0 } else { m >> (c - b'a') & 1 })
}

/// Bit replication of an n-bit `value` to `width` bits, its top bits first.
fn replicate(value: u32, n: u32, width: u32) -> u32 {
    let mut out = 0u32;
    let mut filled = 0;
    while filled < width {
        out = out << n | value;
        filled += n;
    }
    out >> (filled - width)
}

/// A colour value of `encoding` unquantised to 0..255 ("Color Endpoint Unquantization"): bits replicated, or
/// D * C + B with the table's B and C, its low bit A flipping all, halved with A's top bit.
fn unquantise_colour(value: u32, encoding: Encoding) -> u32 {
    let n = encoding.bits;
    if !encoding.trits && !encoding.quints {
        return replicate(value, n, 8);
    }
    let (m, d) = (value & ((1 << n) - 1), value >> n);
    let a = if m & 1 == 1 { 0x1ff } else { 0 };
    let (row, c) = match (encoding.trits, n) {
        (true, 1) => ("000000000", 204),
        (false, 1) => ("000000000", 113),
        (true, 2) => ("b000b0bb0", 93),
        (false, 2) => ("b0000bb00", 54),
        (true, 3) => ("cb000cbcb", 44),
        (false, 3) => ("cb0000cbc", 26),
        (true, 4) => ("dcb000dcb", 22),
        (false, 4) => ("dcb0000dc", 13),
        (true, 5) => ("edcb000ed", 11),
        (false, 5) => ("edcb0000e", 6),
        (true, 6) => ("fedcb000f", 5),
        // Colour ranges with no low bits, or more than the tables have, never reach here (illegal).
        _ => return 0,
    };
    let unquantised = (d * c + pattern(row, m)) ^ a;
    (a & 0x80) | (unquantised >> 2)
}

/// A weight of `encoding` unquantised to 0..64 ("Weight Unquantization"): bits replicated to six, the trit and
/// quint forms by their tables, then values above 32 moved up by one.
fn unquantise_weight(value: u32, encoding: Encoding) -> u32 {
    let n = encoding.bits;
    let unquantised = if !encoding.trits && !encoding.quints {
        replicate(value, n, 6)
    } else if n == 0 {
        if encoding.trits { [0, 32, 63][value as usize % 3] } else { [0, 16, 32, 47, 63][value as usize % 5] }
    } else {
        let (m, d) = (value & ((1 << n) - 1), value >> n);
        let a = if m & 1 == 1 { 0x7f } else { 0 };
        let (row, c) = match (encoding.trits, n) {
            (true, 1) => ("0000000", 50),
            (false, 1) => ("0000000", 28),
            (true, 2) => ("b000b0b", 23),
            (false, 2) => ("b0000b0", 13),
            _ => ("cb000cb", 11),
        };
        let unquantised = (d * c + pattern(row, m)) ^ a;
        (a & 0x20) | (unquantised >> 2)
    };
    if unquantised > 32 { unquantised + 1 } else { unquantised }
}

/// A block mode's weight grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Grid {
    width: u32,
    height: u32,
    range: Encoding,
    dual_plane: bool,
}

/// The weight grid of block mode bits 10:0, or `None` for a reserved mode ("Block Mode").
fn block_mode(mode: u32) -> Option<Grid> {
    let bit = |n: u32| mode >> n & 1;
    let a = mode >> 5 & 3;
    let b = mode >> 7 & 3;
    let (rho, width, height, precision, dual) = if mode & 3 != 0 {
        let rho = bit(4) | (mode & 3) << 1;
        let (width, height) = match mode >> 2 & 3 {
            0 => (b + 4, a + 2),
            1 => (b + 8, a + 2),
            2 => (a + 2, b + 8),
            _ if bit(8) == 0 => (a + 2, bit(7) + 6),
            _ => (bit(7) + 2, a + 2),
        };
        (rho, width, height, bit(9), bit(10))
    } else {
        if mode & 0xf == 0 {
            return None;
        }
        let rho = bit(4) | (mode >> 2 & 3) << 1;
        match b {
            0 => (rho, 12, a + 2, bit(9), bit(10)),
            1 => (rho, a + 2, 12, bit(9), bit(10)),
            2 => (rho, a + 6, (mode >> 9 & 3) + 6, 0, 0),
            _ => match a {
                0 => (rho, 6, 10, bit(9), bit(10)),
                1 => (rho, 10, 6, bit(9), bit(10)),
                _ => return None,
            },
        }
    };
    if rho < 2 {
        return None;
    }
    Some(Grid { width, height, range: WEIGHT_RANGES[(rho - 2 + 6 * precision) as usize], dual_plane: dual == 1 })
}

/// `(a, b)` by the specification's bit_transfer_signed: b takes a's top bit, a becomes -32..31.
fn bit_transfer_signed(a: i32, b: i32) -> (i32, i32) {
    let b = (b >> 1) | (a & 0x80);
    let a = (a >> 1) & 0x3f;
    (if a & 0x20 != 0 { a - 0x40 } else { a }, b)
}

fn blue_contract([r, g, b, a]: [i32; 4]) -> [i32; 4] {
    [(r + b) >> 1, (g + b) >> 1, b, a]
}

fn clamp_unorm8(value: [i32; 4]) -> [i32; 4] {
    value.map(|c| c.clamp(0, 255))
}

/// The two RGBA endpoints (0..255) of an LDR colour endpoint mode from its unquantised values, or `None` for an
/// HDR mode (an error in the LDR profile).
fn endpoints(mode: u32, v: &[u32]) -> Option<[[i32; 4]; 2]> {
    let v: Vec<i32> = v.iter().map(|&x| x as i32).collect();
    Some(match mode {
        0 => [[v[0], v[0], v[0], 255], [v[1], v[1], v[1], 255]],
        1 => {
            let l0 = (v[0] >> 2) | (v[1] & 0xc0);
            let l1 = (l0 + (v[1] & 0x3f)).min(255);
            [[l0, l0, l0, 255], [l1, l1, l1, 255]]
        }
        4 => [[v[0], v[0], v[0], v[2]], [v[1], v[1], v[1], v[3]]],
        5 => {
            let (d0, l0) = bit_transfer_signed(v[1], v[0]);
            let (d1, a0) = bit_transfer_signed(v[3], v[2]);
            [clamp_unorm8([l0, l0, l0, a0]), clamp_unorm8([l0 + d0, l0 + d0, l0 + d0, a0 + d1])]
        }
        6 | 10 => {
            let (a0, a1) = if mode == 10 { (v[4], v[5]) } else { (255, 255) };
            [[(v[0] * v[3]) >> 8, (v[1] * v[3]) >> 8, (v[2] * v[3]) >> 8, a0], [v[0], v[1], v[2], a1]]
        }
        8 | 12 => {
            let (a0, a1) = if mode == 12 { (v[6], v[7]) } else { (255, 255) };
            if v[1] + v[3] + v[5] >= v[0] + v[2] + v[4] {
                [[v[0], v[2], v[4], a0], [v[1], v[3], v[5], a1]]
            } else {
                [blue_contract([v[1], v[3], v[5], a1]), blue_contract([v[0], v[2], v[4], a0])]
            }
        }
        9 | 13 => {
            let (d0, b0) = bit_transfer_signed(v[1], v[0]);
            let (d1, b1) = bit_transfer_signed(v[3], v[2]);
            let (d2, b2) = bit_transfer_signed(v[5], v[4]);
            let (d3, b3) = if mode == 13 { bit_transfer_signed(v[7], v[6]) } else { (0, 255) };
            let base = [b0, b1, b2, b3];
            let sum = [b0 + d0, b1 + d1, b2 + d2, b3 + d3];
            if d0 + d1 + d2 >= 0 {
                [clamp_unorm8(base), clamp_unorm8(sum)]
            } else {
                [clamp_unorm8(blue_contract(sum)), clamp_unorm8(blue_contract(base))]
            }
        }
        _ => return None,
    })
}

/// The specification's hash of a partition seed.
fn hash52(mut p: u32) -> u32 {
    p ^= p >> 15;
    p = p.wrapping_sub(p << 17);
    p = p.wrapping_add(p << 7);
    p = p.wrapping_add(p << 4);
    p ^= p >> 5;
    p = p.wrapping_add(p << 16);
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    p
}

/// The partition of texel (x, y) ("Partition Pattern Generation", 2D).
fn select_partition(seed: u32, x: u32, y: u32, partitions: u32, small_block: bool) -> usize {
    let (x, y) = if small_block { (x << 1, y << 1) } else { (x, y) };
    let seed = seed + (partitions - 1) * 1024;
    let rnum = hash52(seed);
    let nibble = |shift: u32| {
        let s = (rnum >> shift) & 0xf;
        s * s
    };
    let mut s = [
        nibble(0),
        nibble(4),
        nibble(8),
        nibble(12),
        nibble(16),
        nibble(20),
        nibble(24),
        nibble(28),
        nibble(18),
        nibble(22),
        nibble(26),
        (((rnum >> 30) | (rnum << 2)) & 0xf).pow(2),
    ];
    let (sh1, sh2) = if seed & 1 == 1 {
        (if seed & 2 != 0 { 4 } else { 5 }, if partitions == 3 { 6 } else { 5 })
    } else {
        (if partitions == 3 { 6 } else { 5 }, if seed & 2 != 0 { 4 } else { 5 })
    };
    let sh3 = if seed & 0x10 != 0 { sh1 } else { sh2 };
    for (k, value) in s.iter_mut().enumerate() {
        *value >>= match k {
            0..=7 if k % 2 == 0 => sh1,
            0..=7 => sh2,
            _ => sh3,
        };
    }
    let a = (s[0] * x + s[1] * y + (rnum >> 14)) & 0x3f;
    let b = (s[2] * x + s[3] * y + (rnum >> 10)) & 0x3f;
    let c = if partitions < 3 { 0 } else { (s[4] * x + s[5] * y + (rnum >> 6)) & 0x3f };
    let d = if partitions < 4 { 0 } else { (s[6] * x + s[7] * y + (rnum >> 2)) & 0x3f };
    if a >= b && a >= c && a >= d {
        0
    } else if b >= c && b >= d {
        1
    } else if c >= d {
        2
    } else {
        3
    }
}

/// The weight of texel (s, t) of a `block_width` x `block_height` block from its `grid` of weights (0..64) of
/// one plane ("Weight Infill": bilinear in fixed point, four fraction bits).
fn infill(
    weights: &[u32],
    grid_width: u32,
    grid_height: u32,
    block_width: u32,
    block_height: u32,
    s: u32,
    t: u32,
) -> u32 {
    let ds = (1024 + block_width / 2) / (block_width - 1);
    let dt = (1024 + block_height / 2) / (block_height - 1);
    let gs = (ds * s * (grid_width - 1) + 32) >> 6;
    let gt = (dt * t * (grid_height - 1) + 32) >> 6;
    let (js, fs, jt, ft) = (gs >> 4, gs & 0xf, gt >> 4, gt & 0xf);
    let w11 = (fs * ft + 8) >> 4;
    let (w10, w01) = (ft - w11, fs - w11);
    let w00 = 16 + w11 - fs - ft;
    // Taps past the last column or row weigh nothing: clamp them into the grid.
    let at = |x: u32, y: u32| weights[(y.min(grid_height - 1) * grid_width + x.min(grid_width - 1)) as usize];
    let sum = at(js, jt) * w00 + at(js + 1, jt) * w01 + at(js, jt + 1) * w10 + at(js + 1, jt + 1) * w11;
    (sum + 8) >> 4
}

/// The texels of one block of a `width` x `height` footprint, row by row; every texel `None` for an illegal
/// block (and the texels of an HDR partition, the LDR profile's errors). `srgb`: the endpoints expand for sRGB
/// (`(e << 8) | 0x80`) instead of by replication.
pub fn decode_block(block: &[u8; 16], width: u32, height: u32, srgb: bool) -> Vec<Texel> {
    let texels = (width * height) as usize;
    decode(u128::from_le_bytes(*block), width, height, srgb).unwrap_or_else(|| vec![None; texels])
}

fn decode(block: u128, width: u32, height: u32, srgb: bool) -> Option<Vec<Texel>> {
    let texels = (width * height) as usize;
    if bits(block, 0, 9) == 0x1fc {
        // A void-extent block: one UNORM16 colour; HDR (bit 9) is an error in the LDR profile.
        let coordinates = [bits(block, 12, 13), bits(block, 25, 13), bits(block, 38, 13), bits(block, 51, 13)];
        let all_ones = coordinates.iter().all(|&c| c == 0x1fff);
        let legal_extent = coordinates[0] < coordinates[1] && coordinates[2] < coordinates[3];
        if bits(block, 9, 1) == 1 || bits(block, 10, 2) != 3 || !(all_ones || legal_extent) {
            return None;
        }
        let colour = [0, 1, 2, 3].map(|k| bits(block, 64 + 16 * k, 16) as u16);
        let colour = if srgb { colour.map(|c| (c >> 8) * 257) } else { colour };
        return Some(vec![Some(colour); texels]);
    }
    let grid = block_mode(bits(block, 0, 11))?;
    let planes = if grid.dual_plane { 2 } else { 1 };
    let weight_count = grid.width * grid.height * planes;
    let weight_bits = grid.range.size(weight_count);
    if weight_count > 64 || !(24..=96).contains(&weight_bits) || grid.width > width || grid.height > height {
        return None;
    }
    let partitions = bits(block, 11, 2) + 1;
    if grid.dual_plane && partitions == 4 {
        return None;
    }
    // The colour endpoint modes, and the bits below the weights they and the component selector take.
    let (modes, extra_bits, colour_start) = if partitions == 1 {
        (vec![bits(block, 13, 4)], 0, 17)
    } else {
        let cem = bits(block, 23, 6);
        let selector = cem & 3;
        if selector == 0 {
            (vec![cem >> 2 & 0xf; partitions as usize], 0, 29)
        } else {
            let extra = 3 * partitions - 4;
            let encoded = cem | bits(block, 128 - weight_bits - extra, extra) << 6;
            let base = selector - 1;
            let modes = (0..partitions)
                .map(|i| {
                    let class = base + (encoded >> (2 + i) & 1);
                    let m = encoded >> (2 + partitions + 2 * i) & 3;
                    class << 2 | m
                })
                .collect();
            (modes, extra, 29)
        }
    };
    let component = grid.dual_plane.then(|| bits(block, 128 - weight_bits - extra_bits - 2, 2) as usize);
    let values: u32 = modes.iter().map(|mode| 2 * ((mode >> 2) + 1)).sum();
    if values > 18 {
        return None;
    }
    let config_bits = colour_start
        + if partitions > 1 && extra_bits > 0 { extra_bits } else { 0 }
        + if grid.dual_plane { 2 } else { 0 };
    let remaining = 128i64 - i64::from(config_bits) - i64::from(weight_bits);
    let range = COLOUR_RANGES.iter().rev().find(|range| i64::from(range.size(values)) <= remaining).copied()?;
    if range.levels() < 6 {
        return None;
    }
    let colour_values: Vec<u32> =
        decode_sequence(block, colour_start, values, range).iter().map(|&v| unquantise_colour(v, range)).collect();
    let weights: Vec<u32> = decode_sequence(block.reverse_bits(), 0, weight_count, grid.range)
        .iter()
        .map(|&w| unquantise_weight(w, grid.range))
        .collect();
    let plane = |p: usize| -> Vec<u32> { weights.iter().skip(p).step_by(planes as usize).copied().collect() };
    let plane_weights: Vec<Vec<u32>> = (0..planes as usize).map(plane).collect();
    // Each partition's endpoints as UNORM16, or `None` where its mode is HDR.
    let mut offset = 0;
    let partition_endpoints: Vec<Option<[[u32; 4]; 2]>> = modes
        .iter()
        .map(|&mode| {
            let count = (2 * ((mode >> 2) + 1)) as usize;
            let pair = endpoints(mode, &colour_values[offset..offset + count]);
            offset += count;
            let expand = |e: i32| if srgb { (e as u32) << 8 | 0x80 } else { e as u32 * 257 };
            pair.map(|pair| pair.map(|e| e.map(expand)))
        })
        .collect();
    let small_block = width * height < 31;
    let seed = bits(block, 13, 10);
    let mut out = Vec::with_capacity(texels);
    for t in 0..height {
        for s in 0..width {
            let partition = if partitions == 1 { 0 } else { select_partition(seed, s, t, partitions, small_block) };
            let Some([e0, e1]) = partition_endpoints[partition] else {
                out.push(None);
                continue;
            };
            let weight = |p: usize| infill(&plane_weights[p], grid.width, grid.height, width, height, s, t);
            let (w0, w1) = (weight(0), if grid.dual_plane { weight(1) } else { 0 });
            let texel = std::array::from_fn(|k| {
                let w = if component == Some(k) { w1 } else { w0 };
                let c = (e0[k] * (64 - w) + e1[k] * w + 32) >> 6;
                if srgb { ((c >> 8) * 257) as u16 } else { c as u16 }
            });
            out.push(Some(texel));
        }
    }
    Some(out)
}

/// A UNORM16 value as the decoder's FP16 output gives it (1.0 for 0xFFFF, else value / 65536 rounded toward
/// zero to FP16: the specification's decode_float16), as FP32 bits.
pub fn unorm16_to_f32(value: u16) -> u32 {
    if value == 0xffff {
        return 1f32.to_bits();
    }
    // value / 65536 keeps its top 11 significant bits.
    let top = 15u32.saturating_sub(value.leading_zeros());
    let kept = if top > 10 { u32::from(value) >> (top - 10) << (top - 10) } else { u32::from(value) };
    (kept as f32 / 65536.0).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trit and quint unpacking is a bijection onto the values it can give (3^5 and 5^3 of them), as the
    /// specification's tables are.
    #[test]
    fn packed_trits_and_quints_cover_every_value() {
        let trits: std::collections::HashSet<[u32; 5]> = (0..256).map(unpack_trits).collect();
        assert_eq!(trits.len(), 243);
        assert!(trits.iter().all(|t| t.iter().all(|&v| v < 3)));
        let quints: std::collections::HashSet<[u32; 3]> = (0..128).map(unpack_quints).collect();
        assert_eq!(quints.len(), 125);
        assert!(quints.iter().all(|q| q.iter().all(|&v| v < 5)));
    }

    /// Unquantisation ends at the range's ends and keeps order (colour 0..255, weights 0..64).
    #[test]
    fn unquantised_ranges_span_their_ends_in_order() {
        for range in &COLOUR_RANGES[4..] {
            let values: Vec<u32> = (0..range.levels()).map(|v| unquantise_colour(v, *range)).collect();
            let mut sorted = values.clone();
            sorted.sort_unstable();
            assert_eq!((sorted[0], sorted[sorted.len() - 1]), (0, 255), "{range:?}");
        }
        for range in &WEIGHT_RANGES {
            let values: Vec<u32> = (0..range.levels()).map(|v| unquantise_weight(v, *range)).collect();
            let mut sorted = values.clone();
            sorted.sort_unstable();
            assert_eq!((sorted[0], sorted[sorted.len() - 1]), (0, 64), "{range:?}");
        }
    }

    /// The FP16 output rounds toward zero: 0x00FF keeps its 8 bits; 0x8001 loses its lowest.
    #[test]
    fn unorm16_values_round_toward_zero_to_halves() {
        assert_eq!(f32::from_bits(unorm16_to_f32(0xffff)), 1.0);
        assert_eq!(f32::from_bits(unorm16_to_f32(0x00ff)), 255.0 / 65536.0);
        assert_eq!(f32::from_bits(unorm16_to_f32(0x8001)), 0.5);
        assert_eq!(f32::from_bits(unorm16_to_f32(0x8020)), 0x8020 as f32 / 65536.0);
    }
}
