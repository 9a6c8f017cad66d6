//! `cargo xtask sass [--check] [--install-tools]`: regenerates the SASS oracle data that `tandem-gpu`'s tests
//! compare its decoders and disassemblers against, from the kernels in `gpu/tests/sass/kernels` and NVIDIA's own
//! tools.
//!
//! For each kernel (`NAME.ptx`, or `NAME.cu` compiled to PTX by clang with no CUDA SDK) and each target it builds
//! for (sm_53, the Switch's Maxwell, and sm_86, the Switch 2's Ampere; PTX that targets sm_86 builds for sm_86
//! only):
//! 1. `ptxas` (CUDA 12) assembles it into a cubin;
//! 2. the cubin is kept as `gpu/tests/sass/smXX/NAME.cubin` (what running a kernel needs: each kernel's code,
//!    its compiler constant banks, its shared memory size) and its code sections are concatenated into
//!    `gpu/tests/sass/smXX/NAME.bin`;
//! 3. `nvdisasm -b SMXX -hex` disassembles that raw code into `NAME.sass`: CUDA 11.8's nvdisasm for SM53 (newer
//!    ones dropped Maxwell), CUDA 13's for SM86.
//!
//! The tests need none of the tools: they read the committed `.bin` and `.sass` files. `--check` regenerates into
//! a scratch folder and fails if anything differs from what is committed; `--install-tools` fetches the tools
//! into `target/cuda-tools` (PyPI wheels through pip, Debian's non-free `nvidia-cuda-toolkit` through apt-get
//! download; nothing is installed system-wide). `PTXAS`, `NVDISASM_SM5X` and `NVDISASM_SM86` override where the
//! tools are found.
//!
//! It also writes what running the kernels on a real GPU needs (`gpu/tests/sass/cuda/`, see `runs.txt` there and
//! `cuda/run-on-device.sh`), which `--check` covers too:
//! - `cuda/ptx/NAME.ptx`: the PTX clang makes of each `.cu` kernel for sm_53 (the `.ptx` kernels run as they are);
//! - `cuda/input.bin`: the `in` buffer of every run, 64 KiB from a fixed-seed generator ([`input`]). The first
//!   48 KiB are 8-byte slots: a quarter hold one 64-bit value (random, small signed integer, zero, ordinary or
//!   special double), the rest two 32-bit words, each a random word, a small signed integer (-40..=40), zero, an
//!   ordinary float (random sign and fraction, exponent 2^-20..2^20), a float special (see [`Format::special`])
//!   or a pair of halves (ordinary or special). Zeros and small integers are common enough that division by zero,
//!   shifts by small amounts and equal comparisons all occur among 128 threads. The last 16 KiB are ordinary
//!   floats within 2^-4..2^4 only, for the whole programs (sums, matrix products) to compute numbers, not NaNs.

use crate::util::{self, project_root, recreate_dir, target_dir};
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "sass [--check] [--install-tools]  regenerate gpu/tests/sass (SASS cubins disassembled by \
                         nvdisasm, the GPU runs' PTX and input) from its kernels; --check: compare a fresh build \
                         with what is committed";

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

/// Builds every kernel for every target it supports into `out/smXX/NAME.{bin,sass}`, and `out/tools.txt`; writes
/// `out/cuda/ptx/NAME.ptx` (each `.cu` kernel's PTX for sm_53) and `out/cuda/input.bin`.
fn generate(tools: &Tools, kernels: &Path, out: &Path) -> anyhow::Result<()> {
    let scratch = target_dir().join("sass-build");
    recreate_dir(&scratch)?;
    for target in TARGETS {
        recreate_dir(&out.join(target.replace('_', "")))?;
    }
    recreate_dir(&out.join("cuda/ptx"))?;
    std::fs::write(out.join("cuda/input.bin"), input())?;
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
                    if *target == "sm_53" {
                        std::fs::copy(&ptx, out.join("cuda/ptx").join(format!("{name}.ptx")))?;
                    }
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
            // The cubin itself: each kernel's own code, its compiler constant banks and shared memory size, which
            // running a kernel needs.
            std::fs::copy(&cubin, folder.join(format!("{name}.cubin")))?;
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
    hand_built_words(tools, kernels, out)?;
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

/// The scheduling word of every hand-built SM53 bundle: one ptxas writes (nvdisasm refuses control instructions
/// after an all-zero one).
const HAND_BUILT_SCHEDULING: u64 = 0x001f_8000_fc00_07e0;

/// `kernels/NAME.sm53.words` and `kernels/NAME.sm86.words` (instructions no ptxas output holds, `#` comments)
/// into `smXX/NAME.bin` and nvdisasm's `smXX/NAME.sass` of it. SM53: one hex word a line, three to a bundle
/// after `HAND_BUILT_SCHEDULING`; SM86: a line's two hex words, the instruction's low and high 64 bits (its
/// scheduling bits included).
fn hand_built_words(tools: &Tools, kernels: &Path, out: &Path) -> anyhow::Result<()> {
    let mut sources: Vec<PathBuf> =
        std::fs::read_dir(kernels)?.map(|entry| entry.map(|e| e.path())).collect::<Result<_, _>>()?;
    sources.retain(|p| p.to_string_lossy().ends_with(".words"));
    sources.sort();
    for source in &sources {
        let file_name = source.file_name().and_then(|n| n.to_str()).context("words file name")?;
        let (name, sm86) = match (file_name.strip_suffix(".sm53.words"), file_name.strip_suffix(".sm86.words")) {
            (Some(name), _) => (name, false),
            (_, Some(name)) => (name, true),
            _ => bail!("{}: a words file is NAME.sm53.words or NAME.sm86.words", source.display()),
        };
        let text = std::fs::read_to_string(source)?;
        let lines: Vec<Vec<u64>> = text
            .lines()
            .map(|line| line.split('#').next().unwrap_or("").split_whitespace())
            .map(|words| words.map(|word| u64::from_str_radix(word.trim_start_matches("0x"), 16)).collect())
            .collect::<Result<Vec<Vec<u64>>, _>>()
            .with_context(|| format!("reading {}", source.display()))?;
        let lines: Vec<Vec<u64>> = lines.into_iter().filter(|words| !words.is_empty()).collect();
        let per_line = if sm86 { 2 } else { 1 };
        if let Some(line) = lines.iter().find(|words| words.len() != per_line) {
            bail!("{}: {line:x?} is not {per_line} word(s)", source.display());
        }
        let words: Vec<u64> = lines.concat();
        let mut code = Vec::new();
        if sm86 {
            for word in &words {
                code.extend_from_slice(&word.to_le_bytes());
            }
        } else {
            if words.len() % 3 != 0 {
                bail!("{}: {} words do not fill bundles of three", source.display(), words.len());
            }
            for bundle in words.chunks(3) {
                code.extend_from_slice(&HAND_BUILT_SCHEDULING.to_le_bytes());
                for word in bundle {
                    code.extend_from_slice(&word.to_le_bytes());
                }
            }
        }
        let (folder, nvdisasm, arch) = if sm86 {
            (out.join("sm86"), &tools.nvdisasm_sm86, "SM86")
        } else {
            (out.join("sm53"), &tools.nvdisasm_sm5x, "SM53")
        };
        std::fs::write(folder.join(format!("{name}.bin")), code)?;
        let listing = util::output(
            Command::new(nvdisasm).current_dir(&folder).args(["-b", arch, "-hex"]).arg(format!("{name}.bin")),
        )?;
        std::fs::write(folder.join(format!("{name}.sass")), listing)?;
    }
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
    let mut names = vec![PathBuf::from("tools.txt"), PathBuf::from("cuda/input.bin")];
    for folder in TARGETS.iter().map(|target| target.replace('_', "")).chain(["cuda/ptx".to_string()]) {
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

/// The size of every buffer a run gets (`out`, `in`, `gen`).
const BUFFER_SIZE: usize = 64 * 1024;

/// Where the ordinary floats at the end of `cuda/input.bin` start.
const ORDINARY_FLOATS: usize = 48 * 1024;

/// The contents of `cuda/input.bin` (see the module comment): the same bytes on every machine.
fn input() -> Vec<u8> {
    let mut rng = Rng(0x5a55_0da7_a5ee_d001);
    let mut bytes = Vec::with_capacity(BUFFER_SIZE);
    while bytes.len() < ORDINARY_FLOATS {
        if rng.below(4) == 0 {
            bytes.extend_from_slice(&word64(&mut rng).to_le_bytes());
        } else {
            bytes.extend_from_slice(&word32(&mut rng).to_le_bytes());
            bytes.extend_from_slice(&word32(&mut rng).to_le_bytes());
        }
    }
    while bytes.len() < BUFFER_SIZE {
        bytes.extend_from_slice(&(F32.ordinary(&mut rng, 4) as u32).to_le_bytes());
    }
    bytes
}

/// One 32-bit word of the input.
fn word32(rng: &mut Rng) -> u32 {
    let half = |rng: &mut Rng| if rng.below(3) == 0 { F16.special(rng) } else { F16.ordinary(rng, 14) };
    match rng.below(20) {
        0..=3 => rng.next() as u32,
        4..=6 => rng.range(-40, 40) as u32,
        7 => 0,
        8..=12 => F32.ordinary(rng, 20) as u32,
        13..=15 => F32.special(rng) as u32,
        _ => (half(rng) | half(rng) << 16) as u32,
    }
}

/// One 64-bit value of the input (8-byte aligned).
fn word64(rng: &mut Rng) -> u64 {
    match rng.below(8) {
        0 | 1 => rng.next(),
        2 => rng.range(-40, 40) as u64,
        3 => 0,
        4 | 5 => F64.ordinary(rng, 20),
        _ => F64.special(rng),
    }
}

/// An IEEE binary interchange format: the widths of its exponent and fraction fields.
#[derive(Clone, Copy)]
struct Format {
    exponent: u32,
    fraction: u32,
}

const F16: Format = Format { exponent: 5, fraction: 10 };
const F32: Format = Format { exponent: 8, fraction: 23 };
const F64: Format = Format { exponent: 11, fraction: 52 };

impl Format {
    fn pack(self, sign: u64, exponent: u64, fraction: u64) -> u64 {
        sign << (self.exponent + self.fraction) | exponent << self.fraction | fraction
    }

    fn bias(self) -> u64 {
        (1 << (self.exponent - 1)) - 1
    }

    /// A normal number: random sign and fraction, exponent within 2^-range..2^range.
    fn ordinary(self, rng: &mut Rng, range: i64) -> u64 {
        let exponent = (self.bias() as i64 + rng.range(-range, range)) as u64;
        self.pack(rng.bit(), exponent, rng.bits(self.fraction))
    }

    /// A value at an edge: a zero, an infinity, the default quiet NaN, a quiet NaN with a payload, a signalling NaN,
    /// a denormal, ±1.0, 0.5, the largest finite magnitude, the smallest normal one, or a number with only three
    /// fraction bits (small integers, halves and quarters: exact conversions and rounding ties); random signs.
    fn special(self, rng: &mut Rng) -> u64 {
        let (sign, fraction, quiet) = (rng.bit(), rng.bits(self.fraction), 1 << (self.fraction - 1));
        let (infinite, one) = ((1 << self.exponent) - 1, self.bias());
        match rng.below(11) {
            0 => self.pack(sign, 0, 0),
            1 => self.pack(sign, infinite, 0),
            2 => self.pack(sign, infinite, quiet),
            3 => self.pack(sign, infinite, quiet | fraction),
            4 => self.pack(sign, infinite, (fraction & (quiet - 1)).max(1)),
            5 => self.pack(sign, 0, fraction.max(1)),
            6 => self.pack(sign, one, 0),
            7 => self.pack(0, one - 1, 0),
            8 => self.pack(sign, infinite - 1, (1 << self.fraction) - 1),
            9 => self.pack(sign, 1, 0),
            _ => self.pack(sign, one + rng.below(8), rng.bits(3) << (self.fraction - 3)),
        }
    }
}

/// SplitMix64: a small, fixed generator, so that the input never depends on a crate's version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bit(&mut self) -> u64 {
        self.next() >> 63
    }

    /// `n` random bits (1 <= n <= 64).
    fn bits(&mut self, n: u32) -> u64 {
        self.next() >> (64 - n)
    }

    fn range(&mut self, low: i64, high: i64) -> i64 {
        low + self.below((high - low + 1) as u64) as i64
    }
}
