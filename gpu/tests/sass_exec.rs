//! The SASS interpreter against a real GPU: every kernel of `tests/sass/runs.txt`, compiled by ptxas for sm_86,
//! runs in the interpreter on the same inputs the CUDA runner gave the kernel's PTX on an NVIDIA GPU
//! (`tests/sass/cuda/`), and must leave every buffer as the GPU left it, bit for bit, except the words the
//! manifest marks as hardware approximations (compared within a tolerance) or as varying between runs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tandem_gpu::sass::cubin::{Cubin, KernelImage};
use tandem_gpu::sass::exec::{ConstantBuffers, GlobalMemory, Kernel, Launch, driver_constants, run_compute};

const BUFFER_BYTES: usize = 64 * 1024;
/// Where the interpreter maps the `out`, `in` and `gen` buffers.
const BUFFER_ADDRESSES: [u64; 3] = [0x1_0000_0000, 0x2_0000_0000, 0x3_0000_0000];
/// Local memory per thread: enough for the kernels' stacks.
const LOCAL_BYTES: u32 = 4096;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sass")
}

/// One line of `runs.txt`.
#[derive(Debug)]
struct Run {
    file: String,
    entry: String,
    params: Vec<String>,
    block: [u32; 3],
    grid: [u32; 3],
    /// What `out` holds before the launch: zeros, or a copy of the input.
    out_starts_as_input: bool,
    stride: usize,
    approx: BTreeSet<usize>,
    varies: BTreeSet<usize>,
}

fn parse_manifest(text: &str) -> Vec<Run> {
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

fn parse_number(text: &str) -> u64 {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap(),
        None => text.parse().unwrap_or_else(|_| panic!("runs.txt: bad number {text}")),
    }
}

/// The kernel's parameter block: buffer addresses (8-byte aligned) and 32-bit values, in order.
fn parameters(run: &Run) -> Vec<u8> {
    let mut block = Vec::new();
    for param in &run.params {
        let (buffer, offset) = param.split_once('+').unwrap_or((param, "0"));
        let address = match buffer {
            "out" => Some(BUFFER_ADDRESSES[0]),
            "in" => Some(BUFFER_ADDRESSES[1]),
            "gen" => Some(BUFFER_ADDRESSES[2]),
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

/// Runs one manifest entry on the interpreter; the three buffers afterwards, or the interpreter's error.
fn interpret(run: &Run, kernel: &KernelImage, input: &[u8]) -> Result<Vec<u8>, String> {
    let mut memory = GlobalMemory::new();
    memory.map(BUFFER_ADDRESSES[0], if run.out_starts_as_input { input.to_vec() } else { vec![0; BUFFER_BYTES] });
    memory.map(BUFFER_ADDRESSES[1], input.to_vec());
    memory.map(BUFFER_ADDRESSES[2], vec![0; BUFFER_BYTES]);
    let launch =
        Launch { block: run.block, grid: run.grid, shared_bytes: kernel.shared_bytes, local_bytes: LOCAL_BYTES };
    let mut cbufs = ConstantBuffers::new();
    cbufs.set(0, driver_constants(kernel.isa, &launch, &parameters(run)).map_err(|error| error.to_string())?);
    for (bank, bytes) in &kernel.constants {
        cbufs.set(*bank as usize, bytes.clone());
    }
    run_compute(Kernel { isa: kernel.isa, code: &kernel.code, entry: 0 }, &launch, &cbufs, &mut memory)
        .map_err(|error| error.to_string())?;
    Ok(BUFFER_ADDRESSES.iter().flat_map(|&address| memory.buffer(address).unwrap().to_vec()).collect())
}

/// Whether two FP32 approximations agree within the special function unit's error: 2e-6 relative, or absolute
/// below 1 (SIN and COS are specified by their absolute error), or are both NaN.
fn close_enough(got: u32, expected: u32) -> bool {
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
fn close_enough64(got: &[u8], expected: &[u8], at: usize) -> bool {
    let start = at & !7;
    let value = |bytes: &[u8]| f64::from_le_bytes(bytes[start..start + 8].try_into().unwrap());
    let (g, e) = (value(got), value(expected));
    (g.is_nan() && e.is_nan()) || g == e || (g - e).abs() <= e.abs() * 1e-6
}

/// Differences between the interpreter's buffers and the GPU's, as readable lines.
fn compare(run: &Run, got: &[u8], expected: &[u8]) -> Vec<String> {
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
        let (thread, field) = if run.stride > 0 { (within / run.stride, within % run.stride) } else { (0, within) };
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

/// Kernels the interpreter does not yet reproduce, and why. The test fails when one of them starts to match
/// (take it off this list) as surely as when any other kernel stops matching.
const NOT_YET: &[(&str, &str)] =
    &[("ampere", "IDP, the tensor-core MMA instructions, LDGSTS and LDSM are not implemented")];

#[test]
fn sm86_kernels_compute_what_the_gpu_computes() {
    let data = data();
    let manifest = std::fs::read_to_string(data.join("runs.txt")).expect("tests/sass/runs.txt");
    let input = std::fs::read(data.join("cuda/input.bin")).expect("tests/sass/cuda/input.bin");
    let mut failures = Vec::new();
    let mut not_yet_matching = Vec::new();
    let runs = parse_manifest(&manifest);
    assert!(!runs.is_empty(), "runs.txt lists no kernels");
    for run in &runs {
        let cubin = std::fs::read(data.join(format!("sm86/{}.cubin", run.file))).unwrap();
        let kernel = Cubin::parse(&cubin).and_then(|cubin| cubin.kernel(Some(&run.entry))).unwrap();
        let expected = std::fs::read(data.join(format!("cuda/results/{}.out", run.entry))).unwrap();
        let failure = match interpret(run, &kernel, &input) {
            Ok(got) => {
                let differences = compare(run, &got, &expected);
                let shown = differences.iter().take(8).cloned().collect::<Vec<_>>().join("\n    ");
                (!differences.is_empty())
                    .then(|| format!("{}: {} words differ:\n    {shown}", run.entry, differences.len()))
            }
            Err(error) => Some(format!("{}: {error}", run.entry)),
        };
        let excused = NOT_YET.iter().find(|(entry, _)| *entry == run.entry);
        match (failure, excused) {
            (Some(failure), None) => failures.push(failure),
            (Some(failure), Some((_, why))) => not_yet_matching.push(format!("{failure}\n    (known: {why})")),
            (None, Some(_)) => failures.push(format!("{}: now matches the GPU: take it off NOT_YET", run.entry)),
            (None, None) => {}
        }
    }
    eprintln!("kernels the interpreter does not reproduce yet:\n{}", not_yet_matching.join("\n"));
    assert!(
        failures.is_empty(),
        "{} of {} kernels differ from the GPU:\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n")
    );
}
