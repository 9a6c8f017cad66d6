//! `cargo xtask sass [--check] [--install-tools]`: regenerates the SASS oracle data that `tandem-gpu`'s tests
//! compare its decoders and disassemblers against, from the kernels in `gpu/tests/sass/kernels` and NVIDIA's own
//! tools.
//!
//! For each kernel (`NAME.ptx`, or `NAME.cu` compiled to PTX by clang with no CUDA SDK) and each target it builds
//! for (sm_53, the Switch's Maxwell, and sm_86, the Switch 2's Ampere; PTX that targets sm_86 builds for sm_86
//! only):
//! 1. `ptxas` (CUDA 12) assembles it into a cubin;
//! 2. the cubin's code sections are concatenated into `gpu/tests/sass/smXX/NAME.bin`;
//! 3. `nvdisasm -b SMXX -hex` disassembles that raw code into `NAME.sass`: CUDA 11.8's nvdisasm for SM53 (newer
//!    ones dropped Maxwell), CUDA 13's for SM86.
//!
//! The tests need none of the tools: they read the committed `.bin` and `.sass` files. `--check` regenerates into
//! a scratch folder and fails if anything differs from what is committed; `--install-tools` fetches the tools
//! into `target/cuda-tools` (PyPI wheels through pip, Debian's non-free `nvidia-cuda-toolkit` through apt-get
//! download; nothing is installed system-wide). `PTXAS`, `NVDISASM_SM5X` and `NVDISASM_SM86` override where the
//! tools are found.

use crate::util::{self, project_root, recreate_dir, target_dir};
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "sass [--check] [--install-tools]  regenerate gpu/tests/sass (SASS cubins disassembled by \
                         nvdisasm) from its kernels; --check: compare a fresh build with what is committed";

/// The targets: ptxas's architecture name and the folder the data goes to.
const TARGETS: &[&str] = &["sm_53", "sm_86"];

/// Pinned tool packages, so that regenerated data is byte-for-byte the committed data.
const PIP_PACKAGES: &[&str] = &["nvidia-cuda-nvcc-cu12==12.9.86", "nvidia-cuda-nvdisasm==13.5.37"];
const DEBIAN_PACKAGE: &str = "nvidia-cuda-toolkit=11.8.89~11.8.0-5~deb12u1";

struct Tools {
    ptxas: PathBuf,
    nvdisasm_sm5x: PathBuf,
    nvdisasm_sm86: PathBuf,
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            "--install-tools" => install_tools()?,
            _ => bail!("usage: cargo xtask {USAGE}"),
        }
    }
    let tools = find_tools()?;
    let data = project_root().join("gpu/tests/sass");
    if check {
        let scratch = target_dir().join("sass-check");
        generate(&tools, &data.join("kernels"), &scratch)?;
        compare(&data, &scratch)?;
        eprintln!("xtask sass: the committed oracle data matches a fresh build");
    } else {
        generate(&tools, &data.join("kernels"), &data)?;
        eprintln!("xtask sass: regenerated {}", data.display());
    }
    Ok(())
}

fn tools_dir() -> PathBuf {
    target_dir().join("cuda-tools")
}

fn tool(variable: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(variable).map_or(default, PathBuf::from)
}

fn find_tools() -> anyhow::Result<Tools> {
    let dir = tools_dir();
    let tools = Tools {
        ptxas: tool("PTXAS", dir.join("pip/nvidia/cuda_nvcc/bin/ptxas")),
        nvdisasm_sm5x: tool("NVDISASM_SM5X", dir.join("deb/usr/bin/nvdisasm")),
        nvdisasm_sm86: tool("NVDISASM_SM86", dir.join("pip/nvidia/cu13/bin/nvdisasm")),
    };
    for path in [&tools.ptxas, &tools.nvdisasm_sm5x, &tools.nvdisasm_sm86] {
        if !path.is_file() {
            bail!(
                "{} is missing; run `cargo xtask sass --install-tools` (or set PTXAS/NVDISASM_SM5X/NVDISASM_SM86)",
                path.display()
            );
        }
    }
    util::require_tool("clang", "install clang (the CUDA kernels are compiled to PTX by clang)")?;
    Ok(tools)
}

fn install_tools() -> anyhow::Result<()> {
    let dir = tools_dir();
    let (pip, deb) = (dir.join("pip"), dir.join("deb"));
    recreate_dir(&dir)?;
    std::fs::create_dir_all(&pip)?;
    std::fs::create_dir_all(&deb)?;
    util::run(
        Command::new("python3").args(["-m", "pip", "download", "--no-deps", "--dest"]).arg(&pip).args(PIP_PACKAGES),
    )?;
    for wheel in std::fs::read_dir(&pip)? {
        let wheel = wheel?.path();
        if wheel.extension().is_some_and(|e| e == "whl") {
            util::run(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&pip))?;
        }
    }
    // nvidia-cuda-toolkit is in Debian's non-free component: its Components line must list `contrib non-free`.
    util::run(Command::new("apt-get").current_dir(&dir).args(["download", DEBIAN_PACKAGE])).context(
        "apt-get download failed: add `contrib non-free` to the Components of the apt sources and run apt-get update",
    )?;
    for entry in std::fs::read_dir(&dir)? {
        let package = entry?.path();
        if package.extension().is_some_and(|e| e == "deb") {
            util::run(Command::new("dpkg").arg("-x").arg(&package).arg(&deb))?;
        }
    }
    for binary in ["pip/nvidia/cuda_nvcc/bin/ptxas", "pip/nvidia/cu13/bin/nvdisasm"] {
        util::run(Command::new("chmod").arg("+x").arg(dir.join(binary)))?;
    }
    Ok(())
}

/// Builds every kernel for every target it supports into `out/smXX/NAME.{bin,sass}`, and `out/tools.txt`.
fn generate(tools: &Tools, kernels: &Path, out: &Path) -> anyhow::Result<()> {
    let scratch = target_dir().join("sass-build");
    recreate_dir(&scratch)?;
    for target in TARGETS {
        recreate_dir(&out.join(target.replace('_', "")))?;
    }
    let mut sources: Vec<PathBuf> =
        std::fs::read_dir(kernels)?.map(|entry| entry.map(|e| e.path())).collect::<Result<_, _>>()?;
    sources.retain(|p| p.extension().is_some_and(|e| e == "ptx" || e == "cu"));
    sources.sort();
    for source in &sources {
        let name = source.file_stem().and_then(|s| s.to_str()).context("kernel file name")?;
        for target in TARGETS {
            let ptx = match source.extension().and_then(|e| e.to_str()) {
                Some("cu") => {
                    let ptx = scratch.join(format!("{name}.{target}.ptx"));
                    util::run(
                        Command::new("clang")
                            .args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "-O2", "-S"])
                            .arg(format!("--cuda-gpu-arch={target}"))
                            .args(["-Xclang", "-target-feature", "-Xclang", "+ptx71"])
                            .arg(source)
                            .arg("-o")
                            .arg(&ptx),
                    )?;
                    ptx
                }
                _ => source.clone(),
            };
            let text = std::fs::read_to_string(&ptx).with_context(|| format!("reading {}", ptx.display()))?;
            if text.lines().any(|line| line.trim() == ".target sm_86") && *target != "sm_86" {
                continue;
            }
            let cubin = scratch.join(format!("{name}.{target}.cubin"));
            util::run(Command::new(&tools.ptxas).arg(format!("-arch={target}")).arg(&ptx).arg("-o").arg(&cubin))?;
            let code =
                code_sections(&std::fs::read(&cubin)?).with_context(|| format!("reading {}", cubin.display()))?;
            let folder = out.join(target.replace('_', ""));
            let bin = folder.join(format!("{name}.bin"));
            std::fs::write(&bin, code)?;
            let (nvdisasm, sm) = match *target {
                "sm_53" => (&tools.nvdisasm_sm5x, "SM53"),
                _ => (&tools.nvdisasm_sm86, "SM86"),
            };
            // Run from the folder with a relative name so that nothing machine-specific reaches the listing.
            let listing = util::output(
                Command::new(nvdisasm).current_dir(&folder).args(["-b", sm, "-hex"]).arg(format!("{name}.bin")),
            )?;
            std::fs::write(folder.join(format!("{name}.sass")), listing)?;
        }
    }
    let mut versions = String::new();
    let clang = PathBuf::from("clang");
    for (label, program) in [
        ("ptxas", &tools.ptxas),
        ("nvdisasm (SM53)", &tools.nvdisasm_sm5x),
        ("nvdisasm (SM86)", &tools.nvdisasm_sm86),
        ("clang", &clang),
    ] {
        let output = util::output(Command::new(program).arg("--version"))?;
        let version = output.lines().find(|line| line.contains("release") || line.contains("version")).unwrap_or("");
        versions.push_str(&format!("{label}: {}\n", version.trim()));
    }
    std::fs::write(out.join("tools.txt"), versions)?;
    Ok(())
}

/// The code sections (executable `PROGBITS`) of an ELF64 cubin, concatenated in section-header order.
fn code_sections(elf: &[u8]) -> anyhow::Result<Vec<u8>> {
    const SHF_EXECINSTR: u64 = 4;
    let u16_at = |at: usize| -> anyhow::Result<u64> {
        Ok(u64::from(u16::from_le_bytes(elf.get(at..at + 2).context("truncated ELF")?.try_into()?)))
    };
    let u64_at = |at: usize| -> anyhow::Result<u64> {
        Ok(u64::from_le_bytes(elf.get(at..at + 8).context("truncated ELF")?.try_into()?))
    };
    if elf.get(..5) != Some(b"\x7fELF\x02".as_slice()) {
        bail!("not an ELF64 file");
    }
    let (table, entry_size, count) = (u64_at(0x28)? as usize, u16_at(0x3a)? as usize, u16_at(0x3c)? as usize);
    let mut code = Vec::new();
    for index in 0..count {
        let header = table + index * entry_size;
        if u64_at(header + 8)? & SHF_EXECINSTR != 0 {
            let (offset, size) = (u64_at(header + 0x18)? as usize, u64_at(header + 0x20)? as usize);
            code.extend_from_slice(elf.get(offset..offset + size).context("section past the end of the ELF")?);
        }
    }
    Ok(code)
}

/// Fails naming every file that differs between the committed data and a fresh build.
fn compare(committed: &Path, fresh: &Path) -> anyhow::Result<()> {
    let mut differences = Vec::new();
    let mut names = vec![PathBuf::from("tools.txt")];
    for target in TARGETS {
        let folder = target.replace('_', "");
        for dir in [committed.join(&folder), fresh.join(&folder)] {
            for entry in std::fs::read_dir(&dir)? {
                names.push(Path::new(&folder).join(entry?.file_name()));
            }
        }
    }
    names.sort();
    names.dedup();
    for name in names {
        if std::fs::read(committed.join(&name)).ok() != std::fs::read(fresh.join(&name)).ok() {
            differences.push(name.display().to_string());
        }
    }
    if !differences.is_empty() {
        bail!("the committed oracle data differs from a fresh build in: {}", differences.join(", "));
    }
    Ok(())
}
