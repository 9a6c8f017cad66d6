//! The shader translator against a real GPU: every kernel of `tests/sass/runs.txt` that translates (sm_86
//! code) must give SPIR-V that `spirv-val` accepts for Vulkan 1.2 and that, run as a Vulkan compute shader
//! (lavapipe here and in CI, or the device `TANDEM_VULKAN_DEVICE` names), leaves every buffer as the NVIDIA
//! GPU left it (`tests/sass/cuda/results`), except the words the manifest marks as approximations (within a
//! tolerance) or as varying.

mod common;

use common::{BUFFER_BYTES, LOCAL_BYTES, Run, compare, data, parameters, parse_manifest};
use std::process::Command;
use tandem_gpu::sass::cubin::{Cubin, KernelImage};
use tandem_gpu::sass::exec::{Launch, driver_constants};
use tandem_gpu::shader::{TranslateError, Translation, translate_compute};
use tandem_gpu::vulkan::ComputeDevice;

/// Kernels that must translate (the rest report what stops them), for sm_86 and sm_53 code.
const MUST_TRANSLATE: &[&str] = &["int_arith", "fp32", "fp16", "compare_logic", "control", "matmul", "grade", "hash64"];
const MUST_TRANSLATE_SM53: &[&str] = &["fp32", "fp16", "compare_logic", "control", "matmul", "grade", "hash64"];

fn spirv_val(entry: &str, spirv: &[u32]) -> Result<(), String> {
    let path =
        std::env::temp_dir().join(format!("tandem-translate-{}-{entry}-{}.spv", std::process::id(), spirv.len()));
    let bytes: Vec<u8> = spirv.iter().flat_map(|word| word.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let output = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.2"])
        .arg(&path)
        .output()
        .expect("spirv-val (Debian spirv-tools) must be installed");
    if output.status.success() {
        std::fs::remove_file(&path).unwrap();
        Ok(())
    } else {
        Err(format!("spirv-val rejects {}: {}", path.display(), String::from_utf8_lossy(&output.stderr)))
    }
}

/// Runs the translated kernel on the Vulkan device; the out, in and gen buffers afterwards.
fn dispatch(
    device: &ComputeDevice,
    run: &Run,
    kernel: &KernelImage,
    translation: &Translation,
    input: &[u8],
) -> Result<Vec<u8>, String> {
    let error = |e: tandem_gpu::vulkan::VulkanError| e.to_string();
    let buffers = (0..3).map(|_| device.buffer(BUFFER_BYTES as u64)).collect::<Result<Vec<_>, _>>().map_err(error)?;
    device.write(&buffers[1], 0, input).map_err(error)?;
    if run.out_starts_as_input {
        device.write(&buffers[0], 0, input).map_err(error)?;
    }
    let addresses = [buffers[0].address(), buffers[1].address(), buffers[2].address()];
    let launch =
        Launch { block: run.block, grid: run.grid, shared_bytes: kernel.shared_bytes, local_bytes: LOCAL_BYTES };
    let bank0 = driver_constants(kernel.isa, &launch, &parameters(run, addresses)).map_err(|e| e.to_string())?;
    let mut banks = Vec::new();
    for &bank in &translation.constant_banks {
        let bytes = match bank {
            0 => bank0.clone(),
            _ => kernel.constants.iter().find(|(b, _)| *b == u32::from(bank)).map_or_else(Vec::new, |(_, b)| b.clone()),
        };
        let buffer = device.buffer(bytes.len().max(4).next_multiple_of(4) as u64).map_err(error)?;
        device.write(&buffer, 0, &bytes).map_err(error)?;
        banks.push(buffer);
    }
    let bindings: Vec<_> = banks.iter().collect();
    device.dispatch(&translation.spirv, "main", &bindings, run.grid).map_err(error)?;
    let mut result = Vec::new();
    for buffer in &buffers {
        result.extend(device.read(buffer).map_err(error)?);
    }
    Ok(result)
}

#[test]
fn sm86_kernels_translate_to_valid_spirv_that_computes_what_the_gpu_computes() {
    check_translations("sm86", MUST_TRANSLATE);
}

#[test]
fn sm53_kernels_translate_to_valid_spirv_that_computes_what_the_gpu_computes() {
    check_translations("sm53", MUST_TRANSLATE_SM53);
}

/// Translates every kernel of the manifest compiled for `target`, validates, runs and compares it.
fn check_translations(target: &str, must_translate: &[&str]) {
    let data = data();
    let runs = parse_manifest(&std::fs::read_to_string(data.join("runs.txt")).unwrap());
    let input = std::fs::read(data.join("cuda/input.bin")).unwrap();
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let (mut failures, mut untranslated, mut matched) = (Vec::new(), Vec::new(), Vec::new());
    for run in &runs {
        let Ok(cubin) = std::fs::read(data.join(format!("{target}/{}.cubin", run.file))) else {
            continue; // PTX that targets sm_86 only has no sm_53 build.
        };
        let kernel = Cubin::parse(&cubin).and_then(|cubin| cubin.kernel(Some(&run.entry))).unwrap();
        let translation = match translate_compute(&kernel, run.block, LOCAL_BYTES) {
            Ok(translation) => translation,
            Err(error @ TranslateError::Unimplemented { .. }) => {
                if must_translate.contains(&run.entry.as_str()) {
                    failures.push(format!("{}: {error}", run.entry));
                }
                untranslated.push(format!("{}: {error}", run.entry));
                continue;
            }
            Err(error) => panic!("{}: {error}", run.entry),
        };
        if let Err(error) = spirv_val(&run.entry, &translation.spirv) {
            failures.push(format!("{}: {error}", run.entry));
            continue;
        }
        let expected = std::fs::read(data.join(format!("cuda/results/{}.out", run.entry))).unwrap();
        match dispatch(&device, run, &kernel, &translation, &input) {
            Ok(got) => {
                let differences = compare(run, &got, &expected);
                if differences.is_empty() {
                    matched.push(run.entry.clone());
                } else {
                    let shown = differences.iter().take(8).cloned().collect::<Vec<_>>().join("\n    ");
                    failures.push(format!(
                        "{}: {} words differ from the GPU:\n    {shown}",
                        run.entry,
                        differences.len()
                    ));
                }
            }
            Err(error) => failures.push(format!("{}: {error}", run.entry)),
        }
    }
    eprintln!(
        "{target} on {}: {} match the GPU ({}); not translated yet:\n{}",
        device.name(),
        matched.len(),
        matched.join(", "),
        untranslated.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
