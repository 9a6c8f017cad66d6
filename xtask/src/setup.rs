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
    Requirement {
        probe: "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
        package: "libvulkan1",
        why: "the Vulkan loader (the GPU draws through Vulkan)",
    },
    Requirement {
        probe: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
        package: "mesa-vulkan-drivers",
        why: "lavapipe, the CPU Vulkan driver the demo and the GPU tests run on where there is no GPU",
    },
    Requirement {
        probe: "/usr/bin/glslc",
        package: "glslc",
        why: "compiles the Vulkan back end's and the GPU tests' GLSL shaders",
    },
    // SDL3 is built from its sources; its X11 video driver needs these headers (it loads the libraries at run time).
    Requirement { probe: "/usr/include/X11/Xlib.h", package: "libx11-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/extensions/Xext.h", package: "libxext-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/Xcursor/Xcursor.h", package: "libxcursor-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/extensions/XInput2.h", package: "libxi-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/extensions/Xrandr.h", package: "libxrandr-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/extensions/scrnsaver.h", package: "libxss-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/extensions/XTest.h", package: "libxtst-dev", why: SDL_X11 },
    Requirement { probe: "/usr/include/X11/extensions/Xfixes.h", package: "libxfixes-dev", why: SDL_X11 },
];

const SDL_X11: &str = "SDL3's window on X11";

const TESTS: &[Requirement] = &[
    Requirement { probe: "/usr/bin/ld.lld", package: "lld", why: "links the guest test programs" },
    Requirement { probe: "/usr/bin/llvm-mc", package: "llvm", why: "the disassembler's oracle" },
    Requirement { probe: "/usr/bin/qemu-aarch64", package: "qemu-user", why: "the test programs' oracle" },
    Requirement { probe: "/usr/bin/spirv-val", package: "spirv-tools", why: "validates the translated shaders" },
    Requirement {
        probe: "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json",
        package: "vulkan-validationlayers",
        why: "the Vulkan validation layer the GPU test programs run under",
    },
    Requirement { probe: "/usr/bin/strace", package: "strace", why: "kills a run mid-commit in the save data test" },
    Requirement { probe: "/usr/bin/astcenc", package: "astcenc", why: "ARM's ASTC codec, the ASTC decoder's oracle" },
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
    if scope == Scope::Tests {
        fetch_busybox()?;
    }
    if scope == Scope::Tests && !cargo_tool_installed("cargo-fuzz") {
        eprintln!("setup: installing cargo-fuzz (runs the fuzz targets)");
        run_command(cargo().args(["install", "cargo-fuzz", "--locked"]))?;
    }
    Ok(())
}

/// Where `fetch_busybox` unpacks Debian's busybox-static for an architecture (`arm64`, `amd64`); the Linux corpus
/// test and `tandem bench linux` look there (or in `$TANDEM_BUSYBOX_DIR`).
pub fn busybox_dir() -> std::path::PathBuf {
    match std::env::var_os("TANDEM_BUSYBOX_DIR") {
        Some(dir) => dir.into(),
        None => std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into()))
            .join(".cache/tandem/busybox"),
    }
}

/// Debian's busybox-static for arm64 (the programs Tandem runs) and amd64 (the same version, native, for
/// `tandem bench linux`), and the dynamically linked busybox for arm64 with libc6:arm64 as its sysroot, downloaded
/// with apt-get and unpacked, never committed: folder -> (package, file that shows it is there).
const BUSYBOX_PACKAGES: [(&str, &str, &str); 4] = [
    ("arm64", "busybox-static:arm64", "bin/busybox"),
    ("amd64", "busybox-static:amd64", "bin/busybox"),
    ("dynamic", "busybox:arm64", "bin/busybox"),
    ("sysroot", "libc6:arm64", "lib/ld-linux-aarch64.so.1"),
];

fn fetch_busybox() -> anyhow::Result<()> {
    let dir = busybox_dir();
    let missing: Vec<(&str, &str)> = BUSYBOX_PACKAGES
        .iter()
        .filter(|(folder, _, probe)| !dir.join(folder).join(probe).exists())
        .map(|&(folder, package, _)| (folder, package))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = missing.iter().map(|(_, package)| *package).collect();
    eprintln!("setup: fetching {} (the Linux corpus and benchmark)", names.join(", "));
    let as_root = |program: &str| {
        if is_root() {
            Command::new(program)
        } else {
            let mut command = Command::new("sudo");
            command.arg(program);
            command
        }
    };
    let foreign = Command::new("dpkg").arg("--print-foreign-architectures").output()?;
    if !String::from_utf8_lossy(&foreign.stdout).lines().any(|arch| arch == "arm64") {
        run_command(as_root("dpkg").args(["--add-architecture", "arm64"]))?;
        run_command(as_root("apt-get").args(["update", "-q"]))?;
    }
    for (folder, package) in missing {
        let download = dir.join(format!("{folder}.download"));
        std::fs::create_dir_all(&download)?;
        run_command(Command::new("apt-get").args(["download", package]).current_dir(&download))?;
        let deb = std::fs::read_dir(&download)?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .find(|path| path.extension().is_some_and(|e| e == "deb"))
            .ok_or_else(|| anyhow::anyhow!("apt-get download {package} left no .deb"))?;
        run_command(Command::new("dpkg").arg("-x").arg(&deb).arg(dir.join(folder)))?;
        std::fs::remove_dir_all(&download)?;
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
