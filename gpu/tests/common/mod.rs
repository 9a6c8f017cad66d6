//! What the GPU tests share: the manifest of runnable kernels (`tests/sass/runs.txt`), the buffers and
//! parameters every run gets, and the comparison with what the GPU computed.

#![allow(dead_code)] // Each test file uses its own part.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub const BUFFER_BYTES: usize = 64 * 1024;
/// Where the interpreter maps the `out`, `in` and `gen` buffers.
pub const BUFFER_ADDRESSES: [u64; 3] = [0x1_0000_0000, 0x2_0000_0000, 0x3_0000_0000];
/// Local memory per thread: enough for the kernels' stacks.
pub const LOCAL_BYTES: u32 = 4096;

pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sass")
}

/// One line of `runs.txt`.
#[derive(Debug)]
pub struct Run {
    pub file: String,
    pub entry: String,
    pub params: Vec<String>,
    pub block: [u32; 3],
    pub grid: [u32; 3],
    /// What `out` holds before the launch: zeros, or a copy of the input.
    pub out_starts_as_input: bool,
    pub stride: usize,
    pub approx: BTreeSet<usize>,
    pub varies: BTreeSet<usize>,
}

pub fn parse_manifest(text: &str) -> Vec<Run> {
    let mut runs = Vec::new();
    for line in text.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#')) {
        let mut words = line.split_whitespace();
        let (file, entry) = (words.next().unwrap().to_string(), words.next().unwrap().to_string());
        let mut run = Run {
            file,
            entry,
            params: Vec::new(),
            block: [1; 3],
            grid: [1; 3],
            out_starts_as_input: false,
            stride: 0,
            approx: BTreeSet::new(),
            varies: BTreeSet::new(),
        };
        for word in words {
            let (key, value) = word.split_once('=').unwrap_or_else(|| panic!("runs.txt: {word} in {line}"));
            let list = || value.split(',').filter(|item| !item.is_empty());
            let numbers = || list().map(parse_number).collect::<Vec<_>>();
            // OFFSET:BYTES ranges, as the set of byte offsets they cover.
            let ranges = || {
                list()
                    .flat_map(|item| {
                        let (offset, bytes) = item.split_once(':').unwrap_or((item, "4"));
                        let offset = parse_number(offset) as usize;
                        offset..offset + parse_number(bytes) as usize
                    })
                    .collect::<BTreeSet<_>>()
            };
            match key {
                "params" => run.params = list().map(str::to_string).collect(),
                "block" => run.block = numbers().iter().map(|&n| n as u32).collect::<Vec<_>>().try_into().unwrap(),
                "grid" => run.grid = numbers().iter().map(|&n| n as u32).collect::<Vec<_>>().try_into().unwrap(),
                "stride" => run.stride = parse_number(value) as usize,
                "init" => run.out_starts_as_input = value == "in",
                "approx" => run.approx = ranges(),
                "varies" => run.varies = ranges(),
                _ => {}
            }
        }
        runs.push(run);
    }
    runs
}

pub fn parse_number(text: &str) -> u64 {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap(),
        None => text.parse().unwrap_or_else(|_| panic!("runs.txt: bad number {text}")),
    }
}

/// The kernel's parameter block: buffer addresses (8-byte aligned) and 32-bit values, in order.
pub fn parameters(run: &Run, addresses: [u64; 3]) -> Vec<u8> {
    let mut block = Vec::new();
    for param in &run.params {
        let (buffer, offset) = param.split_once('+').unwrap_or((param, "0"));
        let address = match buffer {
            "out" => Some(addresses[0]),
            "in" => Some(addresses[1]),
            "gen" => Some(addresses[2]),
            _ => None,
        };
        match (address, param.strip_prefix("n=")) {
            (Some(address), _) => {
                block.resize(block.len().next_multiple_of(8), 0);
                block.extend_from_slice(&(address + parse_number(offset)).to_le_bytes());
            }
            (None, Some(n)) => block.extend_from_slice(&(parse_number(n) as u32).to_le_bytes()),
            _ => panic!("runs.txt: unknown parameter {param}"),
        }
    }
    block
}

/// Whether two FP32 approximations agree within the special function unit's error: 2e-6 relative, or absolute
/// below 1 (SIN and COS are specified by their absolute error), or are both NaN.
pub fn close_enough(got: u32, expected: u32) -> bool {
    let (g, e) = (f32::from_bits(got), f32::from_bits(expected));
    if g.is_nan() || e.is_nan() {
        return g.is_nan() && e.is_nan();
    }
    if g == e {
        return true;
    }
    (g - e).abs() <= 2e-6 * e.abs().max(1.0)
}

/// Whether the FP64 values of the 8-byte-aligned words around `at` agree to about 20 bits (MUFU.RCP64H seeds
/// that are refined to less than full precision).
pub fn close_enough64(got: &[u8], expected: &[u8], at: usize) -> bool {
    let start = at & !7;
    let value = |bytes: &[u8]| f64::from_le_bytes(bytes[start..start + 8].try_into().unwrap());
    let (g, e) = (value(got), value(expected));
    (g.is_nan() && e.is_nan()) || g == e || (g - e).abs() <= e.abs() * 1e-6
}

/// Differences between the interpreter's buffers and the GPU's, as readable lines.
pub fn compare(run: &Run, got: &[u8], expected: &[u8]) -> Vec<String> {
    let mut differences = Vec::new();
    for word in 0..expected.len() / 4 {
        let at = word * 4;
        let (g, e) = (
            u32::from_le_bytes(got[at..at + 4].try_into().unwrap()),
            u32::from_le_bytes(expected[at..at + 4].try_into().unwrap()),
        );
        if g == e {
            continue;
        }
        let buffer = at / BUFFER_BYTES;
        let within = at % BUFFER_BYTES;
        let (thread, field) = match within.checked_div(run.stride) {
            Some(thread) => (thread, within % run.stride),
            None => (0, within),
        };
        if buffer == 0 && (field..field + 4).any(|byte| run.varies.contains(&byte)) {
            continue;
        }
        if buffer == 0
            && (field..field + 4).any(|byte| run.approx.contains(&byte))
            && (close_enough(g, e) || close_enough64(got, expected, at))
        {
            continue;
        }
        let name = ["out", "in", "gen"][buffer.min(2)];
        differences
            .push(format!("{name}+{within:#x} (thread {thread}, offset {field:#x}): got {g:#010x}, GPU {e:#010x}"));
    }
    differences
}
