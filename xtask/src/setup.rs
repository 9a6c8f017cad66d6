//! `cargo xtask setup`: installs what a fresh machine of this kind lacks (Debian packages, cargo-fuzz).

use crate::util::{cargo, run as run_command};
use std::path::Path;
use std::process::Command;

pub const USAGE: &str =
    "setup                 install the Debian packages and cargo tools Tandem's build and tests need";

/// A tool the build or the tests need, and the Debian package that brings it.
struct Requirement {
    /// A file whose presence means the package is installed.
    probe: &'static str,
    package: &'static str,
    why: &'static str,
}

const BUILD: &[Requirement] = &[
    Requirement { probe: "/usr/bin/cmake", package: "cmake", why: "builds Unicorn (the oracle)" },
    Requirement { probe: "/usr/bin/clang", package: "clang", why: "Unicorn's bindings and the guest test programs" },
    Requirement { probe: "/usr/lib/llvm-14/lib/libclang.so", package: "libclang-dev", why: "bindgen for Unicorn" },
];

const TESTS: &[Requirement] = &[
    Requirement { probe: "/usr/bin/ld.lld", package: "lld", why: "links the guest test programs" },
    Requirement { probe: "/usr/bin/llvm-mc", package: "llvm", why: "the disassembler's oracle" },
    Requirement { probe: "/usr/bin/qemu-aarch64", package: "qemu-user", why: "the test programs' oracle" },
];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask {USAGE}");
    }
    install(Scope::Tests)
}

/// How much to install: enough to build Tandem, or everything the test suite needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Build,
    Tests,
}

pub fn install(scope: Scope) -> anyhow::Result<()> {
    let wanted = BUILD.iter().chain(if scope == Scope::Tests { TESTS } else { &[] });
    let missing: Vec<&Requirement> = wanted.filter(|r| !Path::new(r.probe).exists()).collect();
    if !missing.is_empty() {
        for requirement in &missing {
            eprintln!("setup: installing {} ({})", requirement.package, requirement.why);
        }
        let packages: Vec<&str> = missing.iter().map(|r| r.package).collect();
        let as_root = |program: &str| {
            if is_root() {
                Command::new(program)
            } else {
                let mut command = Command::new("sudo");
                command.arg(program);
                command
            }
        };
        run_command(as_root("apt-get").arg("update").arg("-q"))?;
        run_command(
            as_root("apt-get")
                .args(["install", "-y", "-q", "--no-install-recommends"])
                .args(&packages)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )?;
    }
    if scope == Scope::Tests && !cargo_tool_installed("cargo-fuzz") {
        eprintln!("setup: installing cargo-fuzz (runs the fuzz targets)");
        run_command(cargo().args(["install", "cargo-fuzz", "--locked"]))?;
    }
    Ok(())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn cargo_tool_installed(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
        || cargo().args([tool.trim_start_matches("cargo-"), "--version"]).output().is_ok_and(|o| o.status.success())
}
