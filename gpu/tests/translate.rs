//! The shader translator against a real GPU: every kernel of `tests/sass/runs.txt` that translates (sm_86
//! code) must give SPIR-V that `spirv-val` accepts for Vulkan 1.2 and that, run as a Vulkan compute shader
//! (lavapipe here and in CI, or the device `TANDEM_VULKAN_DEVICE` names), leaves every buffer as the NVIDIA
//! GPU left it (`tests/sass/cuda/results`), except the words the manifest marks as approximations (within a
//! tolerance) or as varying.

mod common;

use tandem_gpu::sass::Isa;
use tandem_gpu::sass::corpus::{BUFFER_BYTES, Corpus, CorpusError, Placement, compare, dispatch};
use tandem_gpu::sass::cubin::Cubin;
use tandem_gpu::shader::TranslateError;
use tandem_gpu::vulkan::ComputeDevice;

/// Kernels that must translate (the rest report what stops them), the same for sm_86 and sm_53 code.
const MUST_TRANSLATE: &[&str] = &[
    "int_arith",
    "special_regs",
    "reduce_sum",
    "barrier_warp",
    "fp32",
    "fp16",
    "fp64",
    "convert",
    "compare_logic",
    "control",
    "matmul",
    "grade",
    "hash64",
    "sampling",
    "surfaces",
    "pack",
    "half_set",
    "movmatrix",
    "ldmatrix",
    "ampere",
    "memory",
    "video",
    "bindless_sampling",
];

/// Kernels launched the way a guest launches them: their addresses are GPU virtual addresses, which the
/// translation maps into the windows the back end mirrors (out and in adjacent, gen far above). They must leave
/// what the NVIDIA GPU left, and reach nothing outside the windows; with `in` left out of the windows the
/// kernel's reads of it are caught.
#[test]
fn kernels_reach_guest_gpu_addresses_through_windows() {
    let corpus = Corpus::open(&Corpus::source_tree()).unwrap();
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let windows = [Some(0x5_0000_0000), Some(0x5_0000_0000 + BUFFER_BYTES as u64), Some(0x7_2000_0000)];
    for (isa, entry) in [(Isa::Sm5x, "matmul"), (Isa::Sm5x, "compare_logic"), (Isa::Sm86, "hash64")] {
        let run = corpus.runs.iter().find(|run| run.entry == entry).unwrap();
        let kernel = corpus.kernel(isa, run).unwrap().unwrap();
        let expected = corpus.expected(run).unwrap();
        let outcome = dispatch(&device, run, &kernel, &corpus.input, Placement::Guest(windows)).unwrap();
        let differences = compare(run, isa, &outcome.buffers, &expected);
        assert!(differences.is_empty(), "{isa} {entry}: {}", differences.join("\n"));
        assert!(!outcome.faulted, "{isa} {entry}: an access fell outside the windows");
        let without_in = Placement::Guest([windows[0], None, windows[2]]);
        let outcome = dispatch(&device, run, &kernel, &corpus.input, without_in).unwrap();
        assert!(outcome.faulted, "{isa} {entry}: reads of `in` outside every window went unnoticed");
    }
}

#[test]
fn sm86_kernels_translate_to_valid_spirv_that_computes_what_the_gpu_computes() {
    check_translations(Isa::Sm86, MUST_TRANSLATE);
}

#[test]
fn sm53_kernels_translate_to_valid_spirv_that_computes_what_the_gpu_computes() {
    check_translations(Isa::Sm5x, MUST_TRANSLATE);
}

/// Translates every kernel of the manifest compiled for `isa`, validates, runs and compares it.
fn check_translations(isa: Isa, must_translate: &[&str]) {
    let corpus = Corpus::open(&Corpus::source_tree()).unwrap();
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let (mut failures, mut untranslated, mut matched) = (Vec::new(), Vec::new(), Vec::new());
    for run in &corpus.runs {
        // PTX that targets sm_86 only has no sm_53 build.
        let Some(kernel) = corpus.kernel(isa, run).unwrap() else { continue };
        let outcome = match dispatch(&device, run, &kernel, &corpus.input, Placement::Device) {
            Ok(outcome) => outcome,
            Err(CorpusError::Translate {
                source: error @ (TranslateError::Unimplemented { .. } | TranslateError::UnknownOpcode { .. }),
                ..
            }) => {
                if must_translate.contains(&run.entry.as_str()) {
                    failures.push(format!("{}: {error}", run.entry));
                }
                untranslated.push(format!("{}: {error}", run.entry));
                continue;
            }
            Err(error) => {
                failures.push(error.to_string());
                continue;
            }
        };
        if let Err(error) = common::spirv_val(&run.entry, &outcome.spirv) {
            failures.push(error);
            continue;
        }
        let differences = compare(run, kernel.isa, &outcome.buffers, &corpus.expected(run).unwrap());
        if differences.is_empty() {
            matched.push(run.entry.clone());
        } else {
            let shown = differences.iter().take(8).cloned().collect::<Vec<_>>().join("\n    ");
            failures.push(format!("{}: {} words differ from the GPU:\n    {shown}", run.entry, differences.len()));
        }
    }
    eprintln!(
        "{isa} on {}: {} match the GPU ({}); not translated yet:\n{}",
        device.name(),
        matched.len(),
        matched.join(", "),
        untranslated.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A raw shader's length found from its code alone (as a GPU program region or an Ampere QMD gives it) covers all
/// of ptxas's code for each sm_53 and sm_86 kernel: past it lie only ptxas's padding, the branch-to-itself loop
/// and `NOP`s.
#[test]
fn raw_programs_end_where_ptxas_padding_starts() {
    use tandem_gpu::sass::{program_length, sm5x, sm86};
    for (isa, folder) in [(Isa::Sm5x, "sm53"), (Isa::Sm86, "sm86")] {
        let folder = Corpus::source_tree().join(folder);
        let mut names: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|entry| entry.unwrap().path()).collect();
        names.retain(|path| path.extension().is_some_and(|e| e == "cubin"));
        names.sort();
        for path in names {
            let cubin = std::fs::read(&path).unwrap();
            let cubin = Cubin::parse(&cubin).unwrap();
            for name in cubin.kernel_names() {
                let code = cubin.kernel(Some(&name)).unwrap().code;
                let read = |offset: usize, buffer: &mut [u8]| {
                    code.get(offset..offset + buffer.len()).map(|bytes| buffer.copy_from_slice(bytes)).is_some()
                };
                let length = program_length(isa, read, 0, code.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
                // Each instruction after the end: its opcode, its text and its offset in the code.
                let rest: Vec<(&str, String, usize)> = match isa {
                    Isa::Sm5x => sm5x::decode_program(&code[length..])
                        .unwrap()
                        .iter()
                        .map(|i| (i.inst.encoding().opcode, sm5x::text(i), length + i.offset))
                        .collect(),
                    Isa::Sm86 => sm86::decode_program(&code[length..])
                        .unwrap()
                        .iter()
                        .map(|i| (i.inst.encoding().opcode, sm86::text(i), length + i.offset))
                        .collect(),
                };
                for (opcode, text, offset) in rest {
                    // The loop: `BRA` to its own offset (on SM5x a bundle's start stands for its first
                    // instruction; the text's target is relative to the decoded slice's start).
                    let own = |at: usize| format!("BRA {:#x}", at - length);
                    let bundle = offset / sm5x::BUNDLE_BYTES * sm5x::BUNDLE_BYTES;
                    let is_loop = opcode == "BRA" && (text.ends_with(&own(offset)) || text.ends_with(&own(bundle)));
                    assert!(opcode == "NOP" || is_loop, "{name} ({isa}): {text} after the end");
                }
                eprintln!("{name} ({isa}): {length} of {} bytes", code.len());
            }
        }
    }
}
