//! The Vulkan compute runner on whatever device `ComputeDevice::new` picks (lavapipe on CI). Shaders are GLSL,
//! compiled by `glslc` when the test runs; both a Vulkan driver and glslc must be present (`cargo xtask setup`
//! installs them): these tests fail rather than skip without them.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use tandem_gpu::vulkan::{ADDRESS_ALIGNMENT, Buffer, ComputeDevice, DeviceOptions, DispatchOptions, VulkanError};

/// The device the tests share: many devices opened at once by parallel tests hung NVIDIA's driver (an H100,
/// 2026-12-07). Tests that open devices of their own (`own_device`) take turns.
fn device() -> ComputeDevice {
    static DEVICE: OnceLock<ComputeDevice> = OnceLock::new();
    DEVICE.get_or_init(own_device).clone()
}

/// A device of the test's own; hold `ONE_AT_A_TIME` while it is open.
fn own_device() -> ComputeDevice {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    ComputeDevice::new().unwrap_or_else(|error| panic!("{error} (cargo xtask setup installs lavapipe)"))
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// SPIR-V for a GLSL compute shader, by `glslc --target-env=vulkan1.2`.
fn glslc(source: &str) -> Vec<u32> {
    let mut child = Command::new("glslc")
        .args(["--target-env=vulkan1.2", "-fshader-stage=compute", "-o", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot run glslc ({error}): cargo xtask setup installs it (Debian: glslc)"));
    child.stdin.take().unwrap().write_all(source.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "glslc failed:\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.stdout.len() % 4, 0, "glslc wrote {} bytes, not whole words", output.stdout.len());
    output.stdout.chunks_exact(4).map(|word| u32::from_le_bytes(word.try_into().unwrap())).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|word| u32::from_le_bytes(word.try_into().unwrap())).collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}

/// What the translator will emit, in miniature: the parameters (addresses of the data) come in a storage buffer at
/// binding 0, the data is reached by address, workgroup-shared memory is exchanged across a barrier, and a second
/// binding receives one word per workgroup.
const EXCHANGE: &str = r#"
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint words[]; };

layout(set = 0, binding = 0, std430) readonly buffer Parameters {
    uint64_t input_address;
    uint64_t output_address;
    uint count;
};
layout(set = 0, binding = 1, std430) writeonly buffer Sums { uint sums[]; };

shared uint exchange[64];

void main() {
    uint local = gl_LocalInvocationIndex;
    uint i = gl_GlobalInvocationID.x;
    Words source = Words(input_address);
    Words target = Words(output_address);
    uint value = i < count ? source.words[i] * 3u + local : 0u;
    exchange[local] = value;
    barrier();
    if (i < count) {
        target.words[2u * i] = value;
        // Another invocation's value: only the barrier makes it safe to read.
        target.words[2u * i + 1u] = exchange[63u - local];
    }
    if (local == 0u) {
        uint sum = 0u;
        for (uint j = 0u; j < 64u; j++) {
            sum += exchange[j];
        }
        sums[gl_WorkGroupID.x] = sum;
    }
}
"#;

/// The same arithmetic in Rust: (output words, per-workgroup sums).
fn exchange_model(input: &[u32], groups: usize) -> (Vec<u32>, Vec<u32>) {
    let value = |i: usize| if i < input.len() { input[i].wrapping_mul(3).wrapping_add((i % 64) as u32) } else { 0 };
    let mut output = Vec::new();
    for i in 0..input.len() {
        let group = i / 64;
        output.push(value(i));
        output.push(value(group * 64 + 63 - i % 64));
    }
    let sums = (0..groups).map(|group| (0..64).map(|j| value(group * 64 + j)).fold(0u32, u32::wrapping_add)).collect();
    (output, sums)
}

fn pseudo_random(count: usize, mut seed: u32) -> Vec<u32> {
    (0..count)
        .map(|_| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed
        })
        .collect()
}

#[test]
fn buffer_reference_shader_with_shared_memory_matches_rust() {
    let device = device();
    let spirv = glslc(EXCHANGE);
    // 1000 words: the last of the 16 workgroups is partly outside the input.
    let (count, groups) = (1000usize, 16usize);
    let input = device.buffer(count as u64 * 4).unwrap();
    let output = device.buffer(count as u64 * 8).unwrap();
    let sums = device.buffer(groups as u64 * 4).unwrap();
    let parameters = device.buffer(24).unwrap();
    let mut parameter_bytes = Vec::new();
    parameter_bytes.extend(input.address().to_le_bytes());
    parameter_bytes.extend(output.address().to_le_bytes());
    parameter_bytes.extend((count as u32).to_le_bytes());
    device.write(&parameters, 0, &parameter_bytes).unwrap();

    // Twice, with different data in the same buffers: nothing carries over from one dispatch to the next.
    for seed in [1, 2] {
        let data = pseudo_random(count, seed);
        device.write(&input, 0, &bytes(&data)).unwrap();
        device.dispatch(&spirv, "main", &[&parameters, &sums], [groups as u32, 1, 1]).unwrap();
        let (expected_output, expected_sums) = exchange_model(&data, groups);
        let got = words(&device.read(&output).unwrap());
        if let Some(i) = (0..got.len()).find(|&i| got[i] != expected_output[i]) {
            panic!("seed {seed}: output word {i} is {:#x}, expected {:#x}", got[i], expected_output[i]);
        }
        assert_eq!(words(&device.read(&sums).unwrap()), expected_sums, "seed {seed}: per-workgroup sums");
    }
}

#[test]
fn buffers_are_zeroed_aligned_and_bounded() {
    let device = device();
    let buffers: Vec<Buffer> = [1, 100, 4096, 1 << 20].iter().map(|&size| device.buffer(size).unwrap()).collect();
    for buffer in &buffers {
        assert_ne!(buffer.address(), 0);
        assert_eq!(buffer.address() % ADDRESS_ALIGNMENT, 0, "{buffer:?}");
        assert!(device.read(buffer).unwrap().iter().all(|&byte| byte == 0), "{buffer:?} is not zeroed");
    }
    let buffer = &buffers[1];
    device.write(buffer, 96, &[1, 2, 3, 4]).unwrap();
    let content = device.read(buffer).unwrap();
    assert_eq!(content.len(), 100);
    assert_eq!(&content[94..], &[0, 0, 1, 2, 3, 4]);
    assert!(matches!(device.write(buffer, 97, &[1, 2, 3, 4]), Err(VulkanError::OutOfBounds { .. })));
    assert!(matches!(device.write(buffer, u64::MAX, &[1]), Err(VulkanError::OutOfBounds { .. })));
    assert!(matches!(device.buffer(0), Err(VulkanError::EmptyBuffer)));
    // Freed memory is handed out again zeroed.
    drop(buffers);
    let again = device.buffer(4096).unwrap();
    assert!(device.read(&again).unwrap().iter().all(|&byte| byte == 0));
}

#[test]
fn garbage_spirv_is_an_error_not_a_crash() {
    let device = device();
    let buffer = device.buffer(16).unwrap();
    let spirv = glslc(EXCHANGE);
    let expect_error =
        |module: &[u32], entry: &str, bindings: &[&Buffer]| match device.dispatch(module, entry, bindings, [1, 1, 1]) {
            Ok(()) => panic!("a broken dispatch ran"),
            Err(error) => error,
        };

    let garbage = pseudo_random(64, 7);
    let error = expect_error(&garbage, "main", &[&buffer]);
    assert!(matches!(error, VulkanError::InvalidSpirv { at: 0, .. }), "{error}");
    assert!(matches!(expect_error(&[], "main", &[]), VulkanError::InvalidSpirv { .. }));

    // A sound header followed by garbage.
    let mut module = spirv[..5].to_vec();
    module.extend(pseudo_random(64, 8));
    let error = expect_error(&module, "main", &[&buffer]);
    assert!(matches!(error, VulkanError::InvalidSpirv { .. }), "{error}");

    // A good module, asked for the wrong entry point or given too few buffers.
    let error = expect_error(&spirv, "kernel", &[&buffer, &buffer]);
    assert!(error.to_string().contains(r#"no compute entry point named "kernel" (it has: "main")"#), "{error}");
    let error = expect_error(&spirv, "main", &[&buffer]);
    assert!(matches!(error, VulkanError::UnboundResource { bound: 1, .. }), "{error}");

    // The device still works.
    device.dispatch(&glslc(ADD_ONE), "main", &[&buffer], [1, 1, 1]).unwrap();
    assert_eq!(words(&device.read(&buffer).unwrap()), [1, 1, 1, 1]);
}

const ADD_ONE: &str = r#"
#version 460
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
void main() { data[gl_LocalInvocationIndex] += 1u; }
"#;

#[test]
fn subgroup_size_32_runs_where_the_device_can_require_it() {
    let device = device();
    let spirv = glslc(
        r#"
#version 460
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Sizes { uint sizes[]; };
void main() { sizes[gl_LocalInvocationIndex] = gl_SubgroupSize; }
"#,
    );
    let sizes = device.buffer(64 * 4).unwrap();
    let options = DispatchOptions { subgroup_size: Some(32), full_subgroups: true, ..DispatchOptions::default() };
    let result = device.dispatch_with(&spirv, "main", &[&sizes], [1, 1, 1], &options);
    if device.features().can_require_subgroup_size(32) && device.features().compute_full_subgroups {
        result.unwrap();
        assert!(words(&device.read(&sizes).unwrap()).iter().all(|&size| size == 32));
    } else {
        let error = result.unwrap_err();
        assert!(matches!(error, VulkanError::SubgroupSize { size: 32, .. }), "{error}");
    }
    // Without a requirement, the device's own size.
    device.dispatch(&spirv, "main", &[&sizes], [1, 1, 1]).unwrap();
    let natural = device.features().subgroup_size;
    assert!(words(&device.read(&sizes).unwrap()).iter().all(|&size| size == natural));
}

#[test]
fn buffers_of_another_device_are_refused() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let (first, second) = (own_device(), own_device());
    let buffer = first.buffer(16).unwrap();
    assert!(matches!(second.write(&buffer, 0, &[0]), Err(VulkanError::ForeignBuffer)));
    assert!(matches!(second.dispatch(&glslc(ADD_ONE), "main", &[&buffer], [1, 1, 1]), Err(VulkanError::ForeignBuffer)));
    // A buffer may outlive its device.
    drop(first);
    drop(buffer);
}

#[test]
fn device_and_buffers_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<ComputeDevice>();
    shared::<Buffer>();
}

#[test]
fn features_are_plausible() {
    let device = device();
    let features = device.features();
    assert!(!device.name().is_empty());
    assert!(features.api_version >= (1, 2, 0));
    assert!(features.subgroup_size.is_power_of_two());
    let (min, max) = features.subgroup_size_range;
    assert!(min <= features.subgroup_size && features.subgroup_size <= max);
    assert!(features.max_workgroup_invocations >= 128 && features.max_shared_memory >= 16384);
}

#[test]
fn the_device_can_be_chosen_by_name() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let default = device();
    let part = default.name().split_whitespace().next().unwrap().to_uppercase();
    let options = DeviceOptions { device: Some(part), validation: false };
    assert_eq!(ComputeDevice::with_options(&options).unwrap().name(), default.name());
    let options = DeviceOptions { device: Some("no such device".into()), validation: false };
    let error = ComputeDevice::with_options(&options).unwrap_err();
    assert!(matches!(&error, VulkanError::NoMatchingDevice { available, .. } if available.contains(default.name())));
}
