//! BC6H (BPTC float) blocks decoded on the CPU, as the Khronos Data Format Specification's BC6H section defines
//! them: 14 modes of one or two subsets (BC7's two-subset partitions and anchors), end points stored whole or as
//! deltas from the first, unquantised to 16 bits, interpolated with BC7's weights and finished into FP16 bit
//! patterns. Reserved modes decode as (0, 0, 0, 1). Bit exact by the specification: `tests/texture_decode.rs`
//! holds it to the Vulkan device's decoding.

use super::bc7::{ANCHOR_2, Bits, PARTITIONS_2_PACKED, weight};

/// A mode: its number, whether its end points are deltas, its subsets, end point bits and delta bits (R, G, B),
/// and where its fields lie, as the specification's block descriptions list them from bit 0 up: each `name.a..b`
/// (or `name.a`) takes the next bits into bits b to a of the field, the first into bit b.
struct Mode {
    number: u32,
    transformed: bool,
    subsets: usize,
    endpoint_bits: u32,
    delta_bits: [u32; 3],
    layout: &'static str,
}

const MODES: [Mode; 14] = [
    Mode {
        number: 0,
        transformed: true,
        subsets: 2,
        endpoint_bits: 10,
        delta_bits: [5, 5, 5],
        layout: "m.1..0 g2.4 b2.4 b3.4 r0.9..0 g0.9..0 b0.9..0 r1.4..0 g3.4 g2.3..0 g1.4..0 b3.0 g3.3..0 b1.4..0 b3.1 b2.3..0 r2.4..0 b3.2 r3.4..0 b3.3 pb.4..0",
    },
    Mode {
        number: 1,
        transformed: true,
        subsets: 2,
        endpoint_bits: 7,
        delta_bits: [6, 6, 6],
        layout: "m.1..0 g2.5 g3.4 g3.5 r0.6..0 b3.0 b3.1 b2.4 g0.6..0 b2.5 b3.2 g2.4 b0.6..0 b3.3 b3.5 b3.4 r1.5..0 g2.3..0 g1.5..0 g3.3..0 b1.5..0 b2.3..0 r2.5..0 r3.5..0 pb.4..0",
    },
    Mode {
        number: 2,
        transformed: true,
        subsets: 2,
        endpoint_bits: 11,
        delta_bits: [5, 4, 4],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.4..0 r0.10 g2.3..0 g1.3..0 g0.10 b3.0 g3.3..0 b1.3..0 b0.10 b3.1 b2.3..0 r2.4..0 b3.2 r3.4..0 b3.3 pb.4..0",
    },
    Mode {
        number: 6,
        transformed: true,
        subsets: 2,
        endpoint_bits: 11,
        delta_bits: [4, 5, 4],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.3..0 r0.10 g3.4 g2.3..0 g1.4..0 g0.10 g3.3..0 b1.3..0 b0.10 b3.1 b2.3..0 r2.3..0 b3.0 b3.2 r3.3..0 g2.4 b3.3 pb.4..0",
    },
    Mode {
        number: 10,
        transformed: true,
        subsets: 2,
        endpoint_bits: 11,
        delta_bits: [4, 4, 5],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.3..0 r0.10 b2.4 g2.3..0 g1.3..0 g0.10 b3.0 g3.3..0 b1.4..0 b0.10 b2.3..0 r2.3..0 b3.1 b3.2 r3.3..0 b3.4 b3.3 pb.4..0",
    },
    Mode {
        number: 14,
        transformed: true,
        subsets: 2,
        endpoint_bits: 9,
        delta_bits: [5, 5, 5],
        layout: "m.4..0 r0.8..0 b2.4 g0.8..0 g2.4 b0.8..0 b3.4 r1.4..0 g3.4 g2.3..0 g1.4..0 b3.0 g3.3..0 b1.4..0 b3.1 b2.3..0 r2.4..0 b3.2 r3.4..0 b3.3 pb.4..0",
    },
    Mode {
        number: 18,
        transformed: true,
        subsets: 2,
        endpoint_bits: 8,
        delta_bits: [6, 5, 5],
        layout: "m.4..0 r0.7..0 g3.4 b2.4 g0.7..0 b3.2 g2.4 b0.7..0 b3.3 b3.4 r1.5..0 g2.3..0 g1.4..0 b3.0 g3.3..0 b1.4..0 b3.1 b2.3..0 r2.5..0 r3.5..0 pb.4..0",
    },
    Mode {
        number: 22,
        transformed: true,
        subsets: 2,
        endpoint_bits: 8,
        delta_bits: [5, 6, 5],
        layout: "m.4..0 r0.7..0 b3.0 b2.4 g0.7..0 g2.5 g2.4 b0.7..0 g3.5 b3.4 r1.4..0 g3.4 g2.3..0 g1.5..0 g3.3..0 b1.4..0 b3.1 b2.3..0 r2.4..0 b3.2 r3.4..0 b3.3 pb.4..0",
    },
    Mode {
        number: 26,
        transformed: true,
        subsets: 2,
        endpoint_bits: 8,
        delta_bits: [5, 5, 6],
        layout: "m.4..0 r0.7..0 b3.1 b2.4 g0.7..0 b2.5 g2.4 b0.7..0 b3.5 b3.4 r1.4..0 g3.4 g2.3..0 g1.4..0 b3.0 g3.3..0 b1.5..0 b2.3..0 r2.4..0 b3.2 r3.4..0 b3.3 pb.4..0",
    },
    Mode {
        number: 30,
        transformed: false,
        subsets: 2,
        endpoint_bits: 6,
        delta_bits: [6, 6, 6],
        layout: "m.4..0 r0.5..0 g3.4 b3.0 b3.1 b2.4 g0.5..0 g2.5 b2.5 b3.2 g2.4 b0.5..0 g3.5 b3.3 b3.5 b3.4 r1.5..0 g2.3..0 g1.5..0 g3.3..0 b1.5..0 b2.3..0 r2.5..0 r3.5..0 pb.4..0",
    },
    Mode {
        number: 3,
        transformed: false,
        subsets: 1,
        endpoint_bits: 10,
        delta_bits: [10, 10, 10],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.9..0 g1.9..0 b1.9..0",
    },
    Mode {
        number: 7,
        transformed: true,
        subsets: 1,
        endpoint_bits: 11,
        delta_bits: [9, 9, 9],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.8..0 r0.10 g1.8..0 g0.10 b1.8..0 b0.10",
    },
    Mode {
        number: 11,
        transformed: true,
        subsets: 1,
        endpoint_bits: 12,
        delta_bits: [8, 8, 8],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.7..0 r0.10..11 g1.7..0 g0.10..11 b1.7..0 b0.10..11",
    },
    Mode {
        number: 15,
        transformed: true,
        subsets: 1,
        endpoint_bits: 16,
        delta_bits: [4, 4, 4],
        layout: "m.4..0 r0.9..0 g0.9..0 b0.9..0 r1.3..0 r0.10..15 g1.3..0 g0.10..15 b1.3..0 b0.10..15",
    },
];

/// The end points (R, G, B of E0 to E3) and the partition number of a block, read by `mode.layout`.
fn fields(block: u128, mode: &Mode) -> ([[i32; 3]; 4], usize) {
    let mut endpoints = [[0i32; 3]; 4];
    let mut partition = 0usize;
    let mut bits = Bits { value: block, at: 0 };
    for item in mode.layout.split(' ') {
        let (name, range) = item.split_once('.').expect("name.range");
        let (a, b) = match range.split_once("..") {
            Some((a, b)) => (a.parse::<i32>().expect("a bit"), b.parse::<i32>().expect("a bit")),
            None => {
                let bit = range.parse::<i32>().expect("a bit");
                (bit, bit)
            }
        };
        let step = if a >= b { 1 } else { -1 };
        let mut target = b;
        loop {
            let bit = bits.take(1) as i32;
            match name.as_bytes() {
                [b'm'] => {}
                [b'p', b'b'] => partition |= (bit as usize) << target,
                [channel, endpoint] => {
                    let channel = match channel {
                        b'r' => 0,
                        b'g' => 1,
                        _ => 2,
                    };
                    endpoints[usize::from(endpoint - b'0')][channel] |= bit << target;
                }
                _ => unreachable!("the layouts name m, pb and r0 to b3"),
            }
            if target == a {
                break;
            }
            target += step;
        }
    }
    (endpoints, partition)
}

fn sign_extend(value: i32, bits: u32) -> i32 {
    (value << (32 - bits)) >> (32 - bits)
}

/// An end point component unquantised to 16 bits (the specification's two pseudocode listings).
fn unquantise(x: i32, bits: u32, signed: bool) -> i32 {
    if !signed {
        return if bits >= 15 {
            x
        } else if x == 0 {
            0
        } else if x == (1 << bits) - 1 {
            0xffff
        } else {
            ((x << 15) + 0x4000) >> (bits - 1)
        };
    }
    if bits >= 16 {
        return x;
    }
    let magnitude = x.abs();
    let unquantised = if magnitude == 0 {
        0
    } else if magnitude >= (1 << (bits - 1)) - 1 {
        0x7fff
    } else {
        ((magnitude << 15) + 0x4000) >> (bits - 1)
    };
    if x < 0 { -unquantised } else { unquantised }
}

/// The FP16 bit pattern of an interpolated value (the final unquantisation).
fn finish(value: i32, signed: bool) -> u16 {
    if !signed {
        ((value * 31) >> 6) as u16
    } else if value < 0 {
        ((((-value) * 31) >> 5) | 0x8000) as u16
    } else {
        ((value * 31) >> 5) as u16
    }
}

/// Decodes a 16-byte BC6H block (`signed`: BC6H_SF16): the FP16 bit patterns of R, G, B and alpha (1.0) of texel
/// x + 4 y.
pub fn decode_block(block: &[u8; 16], signed: bool) -> [[u16; 4]; 16] {
    let value = u128::from_le_bytes(*block);
    let number = if value & 3 < 2 { (value & 3) as u32 } else { (value & 0x1f) as u32 };
    let one = 0x3c00;
    let Some(mode) = MODES.iter().find(|mode| mode.number == number) else { return [[0, 0, 0, one]; 16] };
    let (mut endpoints, partition) = fields(value, mode);
    let epb = mode.endpoint_bits;
    let count = 2 * mode.subsets;
    for c in 0..3 {
        if signed {
            endpoints[0][c] = sign_extend(endpoints[0][c], epb);
        }
        let base = endpoints[0][c];
        for endpoint in endpoints.iter_mut().take(count).skip(1) {
            let stored = if mode.transformed { mode.delta_bits[c] } else { epb };
            if signed || mode.transformed {
                endpoint[c] = sign_extend(endpoint[c], stored);
            }
            if mode.transformed {
                endpoint[c] = (base + endpoint[c]) & ((1 << epb) - 1);
                if signed {
                    endpoint[c] = sign_extend(endpoint[c], epb);
                }
            }
        }
    }
    let unquantised: Vec<[i32; 3]> =
        endpoints.iter().take(count).map(|e| e.map(|x| unquantise(x, epb, signed))).collect();
    let index_bits = if mode.subsets == 1 { 4 } else { 3 };
    let subset_of = |texel: usize| {
        if mode.subsets == 1 { 0 } else { (PARTITIONS_2_PACKED[partition] >> (2 * texel) & 3) as usize }
    };
    let is_anchor = |texel: usize| texel == 0 || (mode.subsets == 2 && usize::from(ANCHOR_2[partition]) == texel);
    let mut bits = Bits { value, at: if mode.subsets == 1 { 65 } else { 82 } };
    let indices: [u32; 16] = std::array::from_fn(|texel| bits.take(index_bits - u32::from(is_anchor(texel))));
    std::array::from_fn(|texel| {
        let subset = subset_of(texel);
        let (e0, e1) = (unquantised[2 * subset], unquantised[2 * subset + 1]);
        let w = i32::from(weight(index_bits, indices[texel]));
        let channel = |c: usize| finish(((64 - w) * e0[c] + w * e1[c] + 32) >> 6, signed);
        [channel(0), channel(1), channel(2), one]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout fills the bits before the indices exactly: 82 with two subsets, 65 with one.
    #[test]
    fn layouts_end_where_the_indices_begin() {
        for mode in &MODES {
            let bits: i32 = mode
                .layout
                .split(' ')
                .map(|item| {
                    let range = item.split_once('.').expect("name.range").1;
                    match range.split_once("..") {
                        Some((a, b)) => (a.parse::<i32>().unwrap() - b.parse::<i32>().unwrap()).abs() + 1,
                        None => 1,
                    }
                })
                .sum();
            assert_eq!(bits, if mode.subsets == 1 { 65 } else { 82 }, "mode {}", mode.number);
        }
    }
}
