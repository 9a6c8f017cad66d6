//! The SASS interpreter against a real GPU: every kernel of `tests/sass/runs.txt`, compiled by ptxas for sm_86,
//! runs in the interpreter on the same inputs the CUDA runner gave the kernel's PTX on an NVIDIA GPU
//! (`tests/sass/cuda/`), and must leave every buffer as the GPU left it, bit for bit, except the words the
//! manifest marks as hardware approximations (compared within a tolerance) or as varying between runs.

use tandem_gpu::sass::Isa;
use tandem_gpu::sass::corpus::{Corpus, compare, interpret};

/// Kernels the interpreter does not yet reproduce, and why. The test fails when one of them starts to match
/// (take it off this list) as surely as when any other kernel stops matching.
const NOT_YET: &[(&str, &str)] = &[];

/// Maxwell kernels the interpreter does not yet reproduce, and why (the same rule as `NOT_YET`).
const NOT_YET_SM53: &[(&str, &str)] = &[];

#[test]
fn sm53_kernels_compute_what_the_gpu_computes() {
    check_kernels(Isa::Sm5x, NOT_YET_SM53);
}

#[test]
fn sm86_kernels_compute_what_the_gpu_computes() {
    check_kernels(Isa::Sm86, NOT_YET);
}

/// Runs every kernel of the manifest, compiled for `isa`, and compares with the GPU's results.
fn check_kernels(isa: Isa, not_yet: &[(&str, &str)]) {
    let corpus = Corpus::open(&Corpus::source_tree()).unwrap();
    let mut failures = Vec::new();
    let mut not_yet_matching = Vec::new();
    assert!(!corpus.runs.is_empty(), "runs.txt lists no kernels");
    for run in &corpus.runs {
        // PTX that targets sm_86 only (ampere) has no sm_53 build.
        let Some(kernel) = corpus.kernel(isa, run).unwrap() else { continue };
        let expected = corpus.expected(run).unwrap();
        let failure = match interpret(run, &kernel, &corpus.input) {
            Ok(got) => {
                let differences = compare(run, isa, &got, &expected);
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
        corpus.runs.len(),
        failures.join("\n")
    );
}
