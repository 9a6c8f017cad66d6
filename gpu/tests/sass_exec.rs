//! The SASS interpreter against a real GPU: every kernel of `tests/sass/runs.txt`, compiled by ptxas for sm_86,
//! runs in the interpreter on the same inputs the CUDA runner gave the kernel's PTX on an NVIDIA GPU
//! (`tests/sass/cuda/`), and must leave every buffer as the GPU left it, bit for bit, except the words the
//! manifest marks as hardware approximations (compared within a tolerance) or as varying between runs.

mod common;

use common::{BUFFER_ADDRESSES, BUFFER_BYTES, LOCAL_BYTES, Run, compare, data, parameters, parse_manifest};
use tandem_gpu::sass::cubin::{Cubin, KernelImage};
use tandem_gpu::sass::exec::{ConstantBuffers, GlobalMemory, Kernel, Launch, driver_constants, run_compute};

/// Runs one manifest entry on the interpreter; the three buffers afterwards, or the interpreter's error.
fn interpret(run: &Run, kernel: &KernelImage, input: &[u8]) -> Result<Vec<u8>, String> {
    let mut memory = GlobalMemory::new();
    memory.map(BUFFER_ADDRESSES[0], if run.out_starts_as_input { input.to_vec() } else { vec![0; BUFFER_BYTES] });
    memory.map(BUFFER_ADDRESSES[1], input.to_vec());
    memory.map(BUFFER_ADDRESSES[2], vec![0; BUFFER_BYTES]);
    let launch =
        Launch { block: run.block, grid: run.grid, shared_bytes: kernel.shared_bytes, local_bytes: LOCAL_BYTES };
    let mut cbufs = ConstantBuffers::new();
    cbufs.set(
        0,
        driver_constants(kernel.isa, &launch, &parameters(run, BUFFER_ADDRESSES)).map_err(|error| error.to_string())?,
    );
    for (bank, bytes) in &kernel.constants {
        cbufs.set(*bank as usize, bytes.clone());
    }
    run_compute(Kernel { isa: kernel.isa, code: &kernel.code, entry: 0 }, &launch, &cbufs, &mut memory)
        .map_err(|error| error.to_string())?;
    Ok(BUFFER_ADDRESSES.iter().flat_map(|&address| memory.buffer(address).unwrap().to_vec()).collect())
}

/// Kernels the interpreter does not yet reproduce, and why. The test fails when one of them starts to match
/// (take it off this list) as surely as when any other kernel stops matching.
const NOT_YET: &[(&str, &str)] =
    &[("ampere", "IDP, the tensor-core MMA instructions, LDGSTS and LDSM are not implemented")];

/// Maxwell kernels the interpreter does not yet reproduce, and why (the same rule as `NOT_YET`).
const NOT_YET_SM53: &[(&str, &str)] = &[
    ("convert", "NaN payloads: sm_53 code converts FP16<->FP64 in two steps through FP32, the H200 ran the PTX in one"),
    ("memory", "generic addressing (LD/ST) and shared atomics are not implemented for SM5x"),
];

#[test]
fn sm53_kernels_compute_what_the_gpu_computes() {
    check_kernels("sm53", NOT_YET_SM53);
}

#[test]
fn sm86_kernels_compute_what_the_gpu_computes() {
    check_kernels("sm86", NOT_YET);
}

/// Runs every kernel of the manifest, compiled for `target`, and compares with the GPU's results.
fn check_kernels(target: &str, not_yet: &[(&str, &str)]) {
    let data = data();
    let manifest = std::fs::read_to_string(data.join("runs.txt")).expect("tests/sass/runs.txt");
    let input = std::fs::read(data.join("cuda/input.bin")).expect("tests/sass/cuda/input.bin");
    let mut failures = Vec::new();
    let mut not_yet_matching = Vec::new();
    let runs = parse_manifest(&manifest);
    assert!(!runs.is_empty(), "runs.txt lists no kernels");
    for run in &runs {
        let Ok(cubin) = std::fs::read(data.join(format!("{target}/{}.cubin", run.file))) else {
            continue; // PTX that targets sm_86 only (ampere) has no sm_53 build.
        };
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
        let excused = not_yet.iter().find(|(entry, _)| *entry == run.entry);
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
