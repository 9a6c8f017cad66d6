//! `cargo xtask test`: everything CI checks, in one command: set-up, the whole test suite (unit, integration,
//! differential against Unicorn, programs against qemu-aarch64, disassembler against llvm-mc), the committed test
//! programs rebuilt and compared, and each fuzz target for a while.

use crate::setup::{Scope, install};
use crate::util::{cargo, project_root, run as run_command};

pub const USAGE: &str = "test [--fuzz-seconds N]  set up, run every test, check tests/programs/bin, fuzz each target N s (default 30; 0 skips)";

/// The cargo-fuzz targets in fuzz/, and whether LeakSanitizer judges them. The targets that can reach the GPU open
/// a Vulkan device (lavapipe) for the inputs that give it work, and lavapipe loses 128 bytes on the way (from its
/// JIT-compiled code, "<unknown module>" to LeakSanitizer: found by gpu_commands, and there since the target was
/// written); their leaks are not judged, their crashes and hangs are.
const FUZZ_TARGETS: &[(&str, bool)] = &[
    ("decode", true),
    ("interpreter_vs_unicorn", true),
    ("loaders", true),
    ("ipc_messages", false),
    ("svc_sequences", true),
    ("linux_syscalls", true),
    ("gpu_commands", false),
    ("vi_parcels", false),
    ("shader_translate", true),
];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let fuzz_seconds: u64 = match args {
        [] => 30,
        [flag, seconds] if flag == "--fuzz-seconds" => seconds.parse()?,
        _ => anyhow::bail!("usage: cargo xtask {USAGE}"),
    };
    install(Scope::Tests)?;
    step("the test suite");
    run_command(cargo().args(["test", "--workspace", "--no-fail-fast"]))?;
    step("the committed test programs against a fresh build");
    crate::programs::run(&["--check".to_string()])?;
    if fuzz_seconds > 0 {
        for &(target, judge_leaks) in FUZZ_TARGETS {
            step(&format!("fuzz target {target} for {fuzz_seconds} s"));
            let leaks = format!("detect_leaks={}", u8::from(judge_leaks));
            run_command(
                cargo()
                    .current_dir(project_root().join("fuzz"))
                    // cargo-fuzz needs nightly flags; the stable toolchain accepts them with this.
                    .env("RUSTC_BOOTSTRAP", "1")
                    // libFuzzer judges each input's leaks, AddressSanitizer the process's at its exit.
                    .env("ASAN_OPTIONS", &leaks)
                    .args([
                        "fuzz",
                        "run",
                        target,
                        "--",
                        &format!("-max_total_time={fuzz_seconds}"),
                        &format!("-{leaks}"),
                    ]),
            )?;
        }
    }
    eprintln!("xtask test: all passed");
    Ok(())
}

fn step(what: &str) {
    eprintln!("\n== {what}");
}
