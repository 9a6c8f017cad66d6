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
use tandem_gpu::shader::{
    FAULT_BYTES, FaultWord, GlobalMemory, GuestWindows, TranslateError, Window, translate_compute,
};
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

/// Where the kernel finds the out, in and gen buffers.
#[derive(Clone, Copy)]
enum Placement {
    /// At their device addresses, as CUDA gives them.
    Device,
    /// At these guest GPU addresses, the windows the back end would mirror; `None` leaves a buffer out of them.
    Guest([Option<u64>; 3]),
}

/// What a dispatch left: the out, in and gen buffers, and whether an access fell outside every window.
struct Outcome {
    buffers: Vec<u8>,
    faulted: bool,
}

/// Translates the kernel for `placement` and runs it on the Vulkan device.
fn dispatch(
    device: &ComputeDevice,
    run: &Run,
    kernel: &KernelImage,
    input: &[u8],
    placement: Placement,
) -> Result<Outcome, String> {
    let error = |e: tandem_gpu::vulkan::VulkanError| e.to_string();
    let buffers = (0..3).map(|_| device.buffer(BUFFER_BYTES as u64)).collect::<Result<Vec<_>, _>>().map_err(error)?;
    device.write(&buffers[1], 0, input).map_err(error)?;
    if run.out_starts_as_input {
        device.write(&buffers[0], 0, input).map_err(error)?;
    }
    let fault = device.buffer(FAULT_BYTES).map_err(error)?;
    let (addresses, global) = match placement {
        Placement::Device => ([buffers[0].address(), buffers[1].address(), buffers[2].address()], GlobalMemory::Device),
        Placement::Guest(gpu) => {
            let windows = (0..3)
                .filter_map(|i| {
                    let at = gpu[i]?;
                    Some(Window { gpu: at, size: BUFFER_BYTES as u64, device: buffers[i].address() })
                })
                .collect();
            // A buffer left out gets a GPU address no window covers.
            let address = |i: usize| gpu[i].unwrap_or(0x7f_0000_0000 + i as u64 * 0x10_0000);
            (
                [address(0), address(1), address(2)],
                GlobalMemory::Guest(GuestWindows { windows, fault: fault.address() }),
            )
        }
    };
    let translation = translate_compute(kernel, run.block, LOCAL_BYTES, &global).map_err(|e| e.to_string())?;
    spirv_val(&run.entry, &translation.spirv)?;
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
    let flag = FaultWord::Flag as usize * 4;
    let faulted = device.read(&fault).map_err(error)?[flag..flag + 4] != [0; 4];
    Ok(Outcome { buffers: result, faulted })
}

/// Kernels launched the way a guest launches them: their addresses are GPU virtual addresses, which the
/// translation maps into the windows the back end mirrors (out and in adjacent, gen far above). They must leave
/// what the NVIDIA GPU left, and reach nothing outside the windows; with `in` left out of the windows the
/// kernel's reads of it are caught.
#[test]
fn kernels_reach_guest_gpu_addresses_through_windows() {
    let data = data();
    let runs = parse_manifest(&std::fs::read_to_string(data.join("runs.txt")).unwrap());
    let input = std::fs::read(data.join("cuda/input.bin")).unwrap();
    let device = ComputeDevice::new().expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
    let windows = [Some(0x5_0000_0000), Some(0x5_0000_0000 + BUFFER_BYTES as u64), Some(0x7_2000_0000)];
    for (target, entry) in [("sm53", "matmul"), ("sm53", "compare_logic"), ("sm86", "hash64")] {
        let run = runs.iter().find(|run| run.entry == entry).unwrap();
        let cubin = std::fs::read(data.join(format!("{target}/{}.cubin", run.file))).unwrap();
        let kernel = Cubin::parse(&cubin).and_then(|cubin| cubin.kernel(Some(entry))).unwrap();
        let expected = std::fs::read(data.join(format!("cuda/results/{entry}.out"))).unwrap();
        let outcome = dispatch(&device, run, &kernel, &input, Placement::Guest(windows)).unwrap();
        let differences = compare(run, &outcome.buffers, &expected);
        assert!(differences.is_empty(), "{target} {entry}: {}", differences.join("\n"));
        assert!(!outcome.faulted, "{target} {entry}: an access fell outside the windows");
        let without_in = Placement::Guest([windows[0], None, windows[2]]);
        let outcome = dispatch(&device, run, &kernel, &input, without_in).unwrap();
        assert!(outcome.faulted, "{target} {entry}: reads of `in` outside every window went unnoticed");
    }
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
        match translate_compute(&kernel, run.block, LOCAL_BYTES, &GlobalMemory::Device) {
            Ok(_) => {}
            Err(error @ TranslateError::Unimplemented { .. }) => {
                if must_translate.contains(&run.entry.as_str()) {
                    failures.push(format!("{}: {error}", run.entry));
                }
                untranslated.push(format!("{}: {error}", run.entry));
                continue;
            }
            Err(error) => panic!("{}: {error}", run.entry),
        }
        let expected = std::fs::read(data.join(format!("cuda/results/{}.out", run.entry))).unwrap();
        match dispatch(&device, run, &kernel, &input, Placement::Device) {
            Ok(outcome) => {
                let differences = compare(run, &outcome.buffers, &expected);
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

/// A raw shader's length found from its code alone (as a GPU program region gives it) covers all of ptxas's
/// code for each sm_53 kernel: past it lie only ptxas's padding, the branch-to-itself loop and `NOP`s.
#[test]
fn raw_sm53_programs_end_where_ptxas_padding_starts() {
    use tandem_gpu::sass::sm5x::{BUNDLE_BYTES, decode_program, program_length};
    let folder = data().join("sm53");
    let mut names: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|entry| entry.unwrap().path()).collect();
    names.retain(|path| path.extension().is_some_and(|e| e == "cubin"));
    names.sort();
    for path in names {
        let cubin = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&cubin).unwrap();
        for name in cubin.kernel_names() {
            let code = cubin.kernel(Some(&name)).unwrap().code;
            let bundle = |offset: usize| code.get(offset..offset + BUNDLE_BYTES).map(|b| b.try_into().unwrap());
            let length = program_length(bundle, code.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let rest = decode_program(&code[length..]).unwrap();
            for instruction in rest {
                let opcode = instruction.inst.encoding().opcode;
                let text = tandem_gpu::sass::sm5x::text(&instruction);
                // The loop: `BRA` to its own offset (a bundle's start stands for its first instruction).
                let own = format!("BRA {:#x}", instruction.offset / BUNDLE_BYTES * BUNDLE_BYTES);
                let own_slot = format!("BRA {:#x}", instruction.offset);
                let is_loop = opcode == "BRA" && (text.ends_with(&own) || text.ends_with(&own_slot));
                assert!(opcode == "NOP" || is_loop, "{name}: {text} after the end");
            }
            eprintln!("{name}: {length} of {} bytes", code.len());
        }
    }
}
