//! `cargo xtask programs [--check]`: builds the guest test programs in `tests/programs` (C plus a tiny runtime of our
//! own) with clang and ld.lld, for two flavours from the same sources:
//!
//! - Horizon: a position-independent ELF with three page-aligned segments (kept in `target/programs/elf/`), turned
//!   into `tests/programs/bin/NAME.nro` by `tandem pack`;
//! - Linux: a static ELF, `tests/programs/bin/NAME.linux`, that qemu-aarch64 runs as the oracle.
//!
//! The build is deterministic (relative source paths, `-ffile-prefix-map`, `-fno-ident`, a content-derived build
//! id, no timestamps), so `--check` rebuilds into a scratch folder and fails when anything differs from the
//! committed `tests/programs/bin/`. Every binary but the FP benchmarks (`FP_PROGRAMS`) is built with
//! `-mgeneral-regs-only` and scanned for FP/SIMD registers, which hand-written assembly could slip past the flag: the
//! runtime and the tests of the integer machine use none, so that what each exercises is what it says.

use crate::util::{self, project_root, target_dir};
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "programs [--check]   build tests/programs into tests/programs/bin (--check: rebuild into \
                         a scratch folder and fail if anything differs from what is committed)";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavours {
    /// A Horizon NRO and its Linux twin, which must print the same bytes.
    Both,
    /// Tests of Tandem's kernel or of how it stops; nothing to compare against.
    HorizonOnly,
    /// Tests of Tandem's Linux personality, compared with qemu-aarch64.
    LinuxOnly,
}

/// The programs, each `tests/programs/NAME.c`.
const PROGRAMS: &[(&str, Flavours)] = &[
    ("hello", Flavours::Both),
    ("demo", Flavours::Both),
    ("intloop", Flavours::Both),
    ("neonloop", Flavours::Both),
    ("pixelloop", Flavours::Both),
    ("isa", Flavours::Both),
    ("svc", Flavours::HorizonOnly),
    ("crash_udf", Flavours::HorizonOnly),
    ("crash_fault", Flavours::HorizonOnly),
    ("crash_break", Flavours::HorizonOnly),
    ("crash_deadlock", Flavours::HorizonOnly),
    ("crash_svc", Flavours::HorizonOnly),
    ("threads", Flavours::HorizonOnly),
    ("sync", Flavours::HorizonOnly),
    ("memory", Flavours::HorizonOnly),
    ("ipc", Flavours::HorizonOnly),
    ("fs", Flavours::HorizonOnly),
    ("time", Flavours::HorizonOnly),
    ("hid", Flavours::HorizonOnly),
    ("pad", Flavours::HorizonOnly),
    ("applet", Flavours::HorizonOnly),
    ("shmem", Flavours::HorizonOnly),
    ("server", Flavours::HorizonOnly),
    ("nvdrv", Flavours::HorizonOnly),
    ("gpu-fifo", Flavours::HorizonOnly),
    ("gpu-clear", Flavours::HorizonOnly),
    ("gpu-present", Flavours::HorizonOnly),
    ("gpu-copy", Flavours::HorizonOnly),
    ("gpu-compute", Flavours::HorizonOnly),
    ("gpu-draw", Flavours::HorizonOnly),
    ("gpu-blit", Flavours::HorizonOnly),
    ("crash_service", Flavours::HorizonOnly),
    ("exclusive", Flavours::HorizonOnly),
    ("linux_syscalls", Flavours::LinuxOnly),
    ("linux_threads", Flavours::LinuxOnly),
];

/// Programs that compute with FP/SIMD registers on purpose (the fast path's vector FP and integer SIMD benchmarks):
/// their own source is built without `-mgeneral-regs-only` and their binaries are not scanned.
const FP_PROGRAMS: &[&str] = &["neonloop", "pixelloop"];

/// Programs whose NRO carries a RomFS: the folder (under `tests/programs`) it is built from.
const ROMFS: &[(&str, &str)] = &[("fs", "romfs/fs")];

/// Programs whose NRO carries a NACP: its title, publisher and display version (`tandem pack --title`).
const NACP: &[(&str, [&str; 3])] = &[("applet", ["Tandem applet test", "Tandem", "1.2.3"])];

/// The program `tandem` embeds (`include_bytes!`), so it must exist before `tandem` can be built.
const EMBEDDED: &str = "demo.nro";

/// Flags for every C and assembly file of both flavours (paths relative to `tests/programs`).
const COMMON_FLAGS: &[&str] = &[
    "-ffreestanding",
    "-nostdlib",
    "-fPIE",
    "-O2",
    "-march=armv8.2-a+lse+rcpc+crc",
    "-mno-outline-atomics",
    "-fno-asynchronous-unwind-tables",
    "-fno-unwind-tables",
    "-fno-stack-protector",
    "-fno-ident",
    "-fvisibility=hidden",
    "-std=gnu11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Iruntime",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Horizon,
    Linux,
}

impl Flavour {
    fn name(self) -> &'static str {
        match self {
            Flavour::Horizon => "horizon",
            Flavour::Linux => "linux",
        }
    }

    fn target(self) -> &'static str {
        match self {
            Flavour::Horizon => "--target=aarch64-none-elf",
            Flavour::Linux => "--target=aarch64-linux-gnu",
        }
    }

    fn include_dir(self) -> &'static str {
        match self {
            Flavour::Horizon => "-Iruntime/horizon",
            Flavour::Linux => "-Iruntime/linux",
        }
    }

    /// The runtime's sources, crt0 first.
    fn runtime(self) -> &'static [&'static str] {
        match self {
            Flavour::Horizon => &[
                "runtime/horizon/crt0.S",
                "runtime/horizon/svc.S",
                "runtime/horizon/platform.c",
                "runtime/horizon/sync.c",
                "runtime/horizon/ipc.c",
                "runtime/horizon/nv.c",
                "runtime/horizon/vi.c",
                "runtime/horizon/picture.c",
                "runtime/horizon/pad.c",
                "runtime/runtime.c",
            ],
            Flavour::Linux => &["runtime/linux/crt0.S", "runtime/linux/platform.c", "runtime/runtime.c"],
        }
    }

    /// ld.lld's arguments before the output and the objects.
    fn link_flags(self) -> &'static [&'static str] {
        match self {
            // Position independent, no interpreter; the script makes the three segments.
            Flavour::Horizon => &[
                "-pie",
                "--no-dynamic-linker",
                "-T",
                "runtime/horizon/link.ld",
                "-z",
                "max-page-size=0x1000",
                "--build-id=sha1",
            ],
            Flavour::Linux => &["-static", "-z", "max-page-size=0x1000", "--build-id=none"],
        }
    }
}

/// Folders of one build.
struct Build {
    /// `tests/programs`, where the tools run (so every path they see is relative).
    sources: PathBuf,
    /// Objects and Horizon ELFs.
    work: PathBuf,
    /// Where the finished `.nro` and `.linux` files go.
    out: PathBuf,
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => bail!("usage: cargo xtask {USAGE}"),
    };
    for tool in ["clang", "ld.lld", "llvm-objdump"] {
        util::require_tool(tool, "install Debian's `clang lld llvm` (clang 14 makes the committed binaries)")?;
    }
    let sources = project_root().join("tests/programs");
    let committed = sources.join("bin");
    let scratch = target_dir().join("programs");
    let out = scratch.join(if check { "check" } else { "out" });
    util::recreate_dir(&out)?;
    let build = Build { sources, work: scratch.join("work"), out };

    let tandem = build_tandem(&committed, check)?;
    build_all(&build, &tandem)?;
    if check { compare(&committed, &build.out) } else { install(&build.out, &committed) }
}

fn build_all(build: &Build, tandem: &Path) -> anyhow::Result<()> {
    for flavour in [Flavour::Horizon, Flavour::Linux] {
        let objects = build.work.join(flavour.name());
        util::recreate_dir(&objects)?;
        std::fs::create_dir_all(objects.join("runtime"))?;
        let runtime: Vec<PathBuf> = flavour
            .runtime()
            .iter()
            .map(|source| compile(build, flavour, source, &objects.join("runtime"), false))
            .collect::<anyhow::Result<_>>()?;
        for &(name, flavours) in PROGRAMS {
            let wanted = match flavours {
                Flavours::Both => true,
                Flavours::HorizonOnly => flavour == Flavour::Horizon,
                Flavours::LinuxOnly => flavour == Flavour::Linux,
            };
            if !wanted {
                continue;
            }
            let uses_fp = FP_PROGRAMS.contains(&name);
            let object = compile(build, flavour, &format!("{name}.c"), &objects, uses_fp)?;
            let mut inputs = runtime.clone();
            inputs.push(object);
            match flavour {
                Flavour::Horizon => {
                    let elf = objects.join(format!("{name}.elf"));
                    link(build, flavour, &inputs, &elf)?;
                    if !uses_fp {
                        check_no_fp(&elf)?;
                    }
                    let nro = build.out.join(format!("{name}.nro"));
                    let mut pack = Command::new(tandem);
                    pack.arg("pack").arg(&elf).arg("-o").arg(&nro);
                    if let Some((_, folder)) = ROMFS.iter().find(|(program, _)| *program == name) {
                        pack.arg("--romfs").arg(build.sources.join(folder));
                    }
                    if let Some((_, [title, author, version])) = NACP.iter().find(|(program, _)| *program == name) {
                        pack.args(["--title", title, "--author", author, "--version", version]);
                    }
                    util::run(&mut pack)?;
                }
                Flavour::Linux => {
                    let binary = build.out.join(format!("{name}.linux"));
                    link(build, flavour, &inputs, &binary)?;
                    if !uses_fp {
                        check_no_fp(&binary)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Compiles (or assembles) `source`, a path relative to `tests/programs`, into `dir`, with FP/SIMD registers only
/// where `uses_fp`; returns the object.
fn compile(build: &Build, flavour: Flavour, source: &str, dir: &Path, uses_fp: bool) -> anyhow::Result<PathBuf> {
    let stem = Path::new(source).file_stem().and_then(|s| s.to_str()).context("source names are UTF-8")?;
    let object = dir.join(format!("{stem}.o"));
    let prefix_map = format!("-ffile-prefix-map={}=.", build.sources.display());
    util::run(
        Command::new("clang")
            .current_dir(&build.sources)
            .arg(flavour.target())
            .args(COMMON_FLAGS)
            .args((!uses_fp).then_some("-mgeneral-regs-only"))
            .arg(flavour.include_dir())
            .arg(prefix_map)
            .arg("-c")
            .arg(source)
            .arg("-o")
            .arg(&object),
    )?;
    Ok(object)
}

fn link(build: &Build, flavour: Flavour, objects: &[PathBuf], output: &Path) -> anyhow::Result<()> {
    util::run(
        Command::new("ld.lld")
            .current_dir(&build.sources)
            .args(flavour.link_flags())
            .arg("-o")
            .arg(output)
            .args(objects),
    )
}

/// Fails when the disassembly of `binary` names an FP/SIMD register (b0-b31, h, s, d, q, v).
fn check_no_fp(binary: &Path) -> anyhow::Result<()> {
    let listing = util::output(
        Command::new("llvm-objdump").args(["-d", "--no-show-raw-insn", "--mattr=+v8.2a,+lse,+rcpc,+crc"]).arg(binary),
    )?;
    let offending: Vec<&str> = listing.lines().filter(|line| names_fp_register(line)).collect();
    if !offending.is_empty() {
        bail!(
            "{}: FP/SIMD instructions in a program built without them (add it to FP_PROGRAMS if it means to use them):\n{}",
            binary.display(),
            offending.join("\n")
        );
    }
    Ok(())
}

/// Whether an instruction line of `llvm-objdump -d` has an operand such as `d0`, `q31` or `v2.16b`.
fn names_fp_register(line: &str) -> bool {
    // "    1234:\tmnemonic\toperands" (with --no-show-raw-insn); labels and headers have no tab-separated operands.
    let Some(operands) = line.split('\t').nth(2) else {
        return false;
    };
    // Drop the comment and symbol names such as `<d0>` before looking at tokens.
    let operands = operands.split("//").next().unwrap_or("");
    let mut in_symbol = false;
    let operands: String = operands
        .chars()
        .filter(|&c| {
            let keep = !in_symbol && c != '<';
            in_symbol = (in_symbol || c == '<') && c != '>';
            keep
        })
        .collect();
    operands.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').any(|token| {
        let mut chars = token.chars();
        matches!(chars.next(), Some('b' | 'h' | 's' | 'd' | 'q' | 'v'))
            && chars.as_str().parse::<u8>().is_ok_and(|n| n < 32)
    })
}

/// The `tandem` that packs the NROs: `$XTASK_TANDEM` when set (a prebuilt binary), else `tandem` built here with
/// the dev profile (as everyone's checkout has it).
///
/// `tandem` embeds `bin/demo.nro`, so on a tree that lacks it a placeholder lets `tandem` build once; the real demo
/// replaces it when the build installs its outputs.
fn build_tandem(committed: &Path, check: bool) -> anyhow::Result<PathBuf> {
    if let Some(prebuilt) = std::env::var_os("XTASK_TANDEM") {
        return Ok(PathBuf::from(prebuilt));
    }
    let embedded = committed.join(EMBEDDED);
    if !embedded.exists() {
        if check {
            bail!("{} is missing: run `cargo xtask programs` and commit tests/programs/bin", embedded.display());
        }
        eprintln!(
            "note: {} is missing; an empty placeholder lets `tandem` build to pack the programs",
            embedded.display()
        );
        std::fs::create_dir_all(committed)?;
        std::fs::write(&embedded, b"").with_context(|| format!("writing {}", embedded.display()))?;
    }
    util::run(util::cargo().current_dir(project_root()).args(["build", "--quiet", "--package", "tandem"]))?;
    let tandem = target_dir().join("debug").join(format!("tandem{}", std::env::consts::EXE_SUFFIX));
    if !tandem.is_file() {
        bail!("`cargo build --package tandem` succeeded but {} does not exist", tandem.display());
    }
    Ok(tandem)
}

/// The names of the files directly in `dir` (none when it does not exist).
fn file_names(dir: &Path) -> anyhow::Result<Vec<String>> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            names.push(entry.file_name().into_string().map_err(|name| anyhow::anyhow!("odd file name {name:?}"))?);
        }
    }
    names.sort();
    Ok(names)
}

/// Copies the fresh outputs into `bin`, writing only files whose bytes changed (so `tandem`, which embeds the demo,
/// does not rebuild for nothing), and removes outputs of programs that no longer exist.
fn install(fresh: &Path, bin: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(bin)?;
    let produced = file_names(fresh)?;
    let mut changed = Vec::new();
    for name in &produced {
        let bytes = std::fs::read(fresh.join(name))?;
        let target = bin.join(name);
        if std::fs::read(&target).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::write(&target, &bytes).with_context(|| format!("writing {}", target.display()))?;
            changed.push(name.as_str());
        }
        if name.ends_with(".linux") && !is_executable(&target)? {
            make_executable(&target)?;
            changed.push(name.as_str());
        }
    }
    for name in file_names(bin)? {
        let ours = name.ends_with(".nro") || name.ends_with(".linux");
        if ours && !produced.contains(&name) {
            std::fs::remove_file(bin.join(&name))?;
            changed.push("(removed stale files)");
        }
    }
    if changed.is_empty() {
        eprintln!("tests/programs/bin: {} files, all unchanged", produced.len());
    } else {
        eprintln!("tests/programs/bin: {} files, updated: {}", produced.len(), changed.join(", "));
    }
    Ok(())
}

/// Whether `path` has an execute bit (always true off Unix). qemu-aarch64 runs only executable files.
fn is_executable(path: &Path) -> anyhow::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?.permissions().mode();
        Ok(mode & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(true)
    }
}

fn make_executable(path: &Path) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("making {} executable", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Fails, listing the files, when `fresh` and `committed` do not hold the same files with the same bytes.
fn compare(committed: &Path, fresh: &Path) -> anyhow::Result<()> {
    let (old, new) = (file_names(committed)?, file_names(fresh)?);
    let mut problems = Vec::new();
    for name in &new {
        if !old.contains(name) {
            problems.push(format!("{name}: built but not committed"));
        } else if std::fs::read(committed.join(name))? != std::fs::read(fresh.join(name))? {
            problems.push(format!("{name}: differs from a fresh build"));
        }
    }
    for name in new.iter().filter(|name| name.ends_with(".linux") && old.contains(name)) {
        if !is_executable(&committed.join(name))? {
            problems.push(format!("{name}: not executable (qemu-aarch64 refuses to run it)"));
        }
    }
    for name in old.iter().filter(|name| !new.contains(name)) {
        problems.push(format!("{name}: committed but no longer built"));
    }
    if !problems.is_empty() {
        bail!(
            "tests/programs/bin is out of date (fresh build in {}):\n  {}\nrun `cargo xtask programs` and commit \
             tests/programs/bin",
            fresh.display(),
            problems.join("\n  ")
        );
    }
    eprintln!("tests/programs/bin matches a fresh build ({} files)", new.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::names_fp_register;

    #[test]
    fn finds_fp_registers_in_objdump_lines() {
        assert!(names_fp_register("      10:\tfmov\td0, x1"));
        assert!(names_fp_register("      10:\tstp\tq0, q1, [sp, #-32]!"));
        assert!(names_fp_register("      10:\tmovi\tv0.2d, #0000000000000000"));
        assert!(names_fp_register("      10:\tldr\tb31, [x0]"));
        assert!(!names_fp_register("      10:\tadd\tx0, x1, w2, sxtb #2"));
        assert!(!names_fp_register("      10:\tb.ne\t0x40 <main+0x10>"));
        assert!(!names_fp_register("      10:\tmrs\tx0, S3_3_C4_C2_0"));
        assert!(!names_fp_register("      10:\tbl\t0x100 <d0>"));
        assert!(!names_fp_register("0000000000000000 <main>:"));
    }
}
