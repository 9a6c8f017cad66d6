//! The `tandem` command line end to end, on the committed guest test programs. Expected output comes from the
//! programs' Linux twins run under qemu-aarch64, never from Tandem itself.

use sha2::Digest;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs tandem; a run that opens a window gets SDL's offscreen video driver (no display is needed, and no window
/// appears on a developer's screen).
fn tandem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(args)
        .env("SDL_VIDEO_DRIVER", "offscreen")
        .output()
        .expect("tandem runs")
}

fn program(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/bin").join(name).display().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What the program's Linux twin prints under qemu-aarch64.
fn qemu_stdout(name: &str) -> String {
    let output = Command::new("qemu-aarch64")
        .arg(program(&format!("{name}.linux")))
        .output()
        .expect("qemu-aarch64 runs (install the qemu-user package: `cargo xtask setup`)");
    assert!(output.status.success(), "{name}.linux failed under qemu-aarch64: {}", text(&output.stderr));
    text(&output.stdout)
}

#[test]
fn programs_print_what_qemu_prints() {
    for name in ["hello", "isa", "demo"] {
        let output = tandem(&["run", &program(&format!("{name}.nro"))]);
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), qemu_stdout(name), "{name}");
    }
}

/// The SIMD benchmarks on the fast path, which computes their lanes with host vector operations: the vector FP one's
/// CRC of every final position's bits, the integer one's CRC of its image, as under qemu-aarch64.
#[test]
fn simd_benchmarks_on_the_fast_path_print_what_qemu_prints() {
    for name in ["neonloop", "pixelloop"] {
        let output = tandem(&["run", &program(&format!("{name}.nro")), "--cpu", "fast"]);
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), qemu_stdout(name), "{name}");
    }
}

#[test]
fn the_embedded_demo_runs_without_arguments() {
    let output = tandem(&["run"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), qemu_stdout("demo"));
}

#[test]
fn the_kernel_answers_the_svc_test_program() {
    let output = tandem(&["run", &program("svc.nro")]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(stdout.ends_with("svc: 0 failures\n"), "{stdout}");
}

/// The kernel test programs check themselves against Horizon's rules (orders implied by priorities, result codes,
/// memory states) and print their failures; two runs must print the same bytes, `state-hash:` line included.
#[test]
fn kernel_programs_pass_their_checks_and_repeat_exactly() {
    for name in [
        "threads",
        "sync",
        "memory",
        "ipc",
        "shmem",
        "server",
        "nvdrv",
        "gpu-fifo",
        "gpu-clear",
        "gpu-present",
        "gpu-copy",
        "gpu-compute",
        "gpu-draw",
        "gpu-blit",
        "hid",
        "pad",
    ] {
        let run = || tandem(&["run", &program(&format!("{name}.nro")), "--state-hash"]);
        let first = run();
        let stdout = text(&first.stdout);
        assert!(first.status.success(), "{name}: {stdout}{}", text(&first.stderr));
        assert!(stdout.contains(&format!("\n{name}: 0 failures\n")), "{name}: {stdout}");
        let hash = stdout.lines().last().unwrap_or_default();
        assert!(hash.starts_with("state-hash: "), "{name}: {stdout}");
        let second = text(&run().stdout);
        assert_eq!(second.lines().last(), Some(hash), "{name}: the second run ends in another state");
        assert_eq!(second, stdout, "{name}: the second run printed something else");
    }
}

/// The GPU test programs use Vulkan as its specification allows: under the Khronos validation layer they pass and
/// the layer reports nothing but performance advice.
#[test]
fn gpu_programs_run_clean_under_the_vulkan_validation_layer() {
    for name in ["gpu-fifo", "gpu-clear", "gpu-present", "gpu-copy", "gpu-compute", "gpu-draw", "gpu-blit"] {
        let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(["run", &program(&format!("{name}.nro")), "--headless"])
            .env("TANDEM_VULKAN_VALIDATION", "1")
            .output()
            .expect("tandem runs");
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{name}: {stdout}{stderr}");
        assert!(stdout.contains(&format!("{name}: 0 failures\n")), "{name}: {stdout}");
        assert!(!stderr.contains("running without"), "{name}: the validation layer must be installed: {stderr}");
        let reports: Vec<&str> = stderr
            .lines()
            .filter(|line| line.contains("tandem_gpu::vulkan::validation") && !line.contains("Performance Warning"))
            .collect();
        assert!(reports.is_empty(), "{name}: the validation layer reports:\n{}", reports.join("\n"));
    }
}

/// Services answer as switchbrew documents them (the program checks every result code itself), and `lm` turns the
/// guest's log packets into tracing events.
#[test]
fn services_answer_the_ipc_test_program() {
    let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["run", &program("ipc.nro")])
        .env("RUST_LOG", "guest::lm=info")
        .output()
        .expect("tandem runs");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}{stderr}");
    let languages = "ja en-US fr de it es zh-CN ko nl pt ru zh-TW en-GB fr-CA es-419 zh-Hans zh-Hant pt-BR";
    assert!(stdout.contains(&format!("languages: {languages}\n")), "{stdout}");
    assert!(stdout.ends_with("ipc: 0 failures\n"), "{stdout}");
    assert!(stderr.contains("guest::lm") && stderr.contains("hello from the guest through lm"), "{stderr}");
}

/// fsp-srv serves the NRO's RomFS (the files of `tests/programs/romfs/fs`) and keeps save data in `--save-dir`:
/// a second run finds what the first committed and not what it wrote after its commit, on either CPU path.
#[test]
fn the_file_system_service_serves_the_romfs_and_keeps_committed_saves() {
    let sd = scratch_dir("sdmc");
    let run = |saves: &Path, cpu: &str| {
        let (saves, sd) = (saves.display().to_string(), sd.display().to_string());
        let output = tandem(&["run", &program("fs.nro"), "--cpu", cpu, "--save-dir", &saves, "--sd-dir", &sd]);
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
        assert!(stdout.ends_with("fs: 0 failures\n"), "{stdout}");
        stdout
    };
    let romfs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/romfs/fs");
    let hello = std::fs::read_to_string(romfs.join("hello.txt")).unwrap().replace('\n', "|");
    let digits = std::fs::read_to_string(romfs.join("data/digits.txt")).unwrap();
    let (saves, fresh) = (scratch_dir("saves"), scratch_dir("saves-fresh"));
    let first = run(&saves, "reference");
    assert!(first.contains(&format!("romfs file: hello.txt = \"{hello}\"\n")), "{first}");
    assert!(first.contains(&format!("romfs file: digits.txt = \"{digits}\"\n")), "{first}");
    assert!(first.contains("save: none yet\n") && first.contains("progress: none\n"), "{first}");
    // The SD card is the host folder: what the program wrote is there, and the next run reads it back.
    assert!(first.contains("sd: note written\n"), "{first}");
    assert_eq!(std::fs::read_to_string(sd.join("tandem/note.txt")).unwrap(), "written by fs.nro");
    std::fs::remove_dir_all(&sd).unwrap();
    assert_eq!(run(&fresh, "fast"), first, "the fast path on a fresh save folder and card");
    let second = run(&saves, "fast");
    assert!(second.contains("save: found\n") && second.contains("progress: runs=1\n"), "{second}");
    assert!(second.contains("sd: note = \"written by fs.nro\"\n"), "{second}");
    assert!(second.contains("GetEntryType(/uncommitted): 0x202\n"), "an uncommitted file survived: {second}");
    let third = run(&saves, "reference");
    assert!(third.contains("progress: runs=2\n"), "{third}");
}

/// The time services: clocks from `--clock-epoch` plus guest time, and every UTC conversion the program prints
/// equal to GNU date's for the same instant.
#[test]
fn the_time_services_convert_as_gnu_date_does() {
    let output = tandem(&["run", &program("time.nro"), "--clock-epoch", "1767225600"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(stdout.ends_with("time: 0 failures\n"), "{stdout}");
    assert!(stdout.contains("epoch: 1767225600\n") && stdout.contains("location: UTC\n"), "{stdout}");
    let mut compared = 0;
    for line in stdout.lines().filter_map(|line| line.strip_prefix("calendar ")) {
        let (instant, calendar) = line.split_once(": ").unwrap();
        let date = Command::new("date")
            .args(["-u", "-d", &format!("@{instant}"), "+%Y-%m-%d %H:%M:%S wday %w yday %-j zone UTC"])
            .output()
            .expect("GNU date runs");
        assert_eq!(calendar, text(&date.stdout).trim_end(), "instant {instant}");
        compared += 1;
    }
    assert_eq!(compared, 8, "{stdout}");
    assert!(stdout.contains("now: 2026-01-01 00:00:0"), "{stdout}");
}

/// A crash during Commit: strace kills Tandem with SIGKILL at the commit's rename (the second rename of fs.nro's
/// first run; the first makes the save). The next run must find the save as it was before: made, empty.
#[test]
fn a_kill_during_save_commit_leaves_the_old_save() {
    let saves = scratch_dir("killed-saves");
    let killed = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2"])
        .args(["-e", "inject=rename,renameat,renameat2:signal=SIGKILL:when=2"])
        .arg(env!("CARGO_BIN_EXE_tandem"))
        .args(["run", &program("fs.nro"), "--save-dir", &saves.display().to_string()])
        .output()
        .expect("strace runs (install the strace package: `cargo xtask setup`)");
    let stdout = text(&killed.stdout);
    // strace ends itself with the signal that ended Tandem.
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(killed.status.signal(), Some(9), "Tandem was not killed: {stdout}");
    assert!(stdout.contains("Write(/progress): 0x0\n") && !stdout.contains("Commit: 0x0"), "{stdout}");
    let after = tandem(&["run", &program("fs.nro"), "--save-dir", &saves.display().to_string()]);
    let stdout = text(&after.stdout);
    assert!(stdout.contains("save: found\n") && stdout.contains("progress: none\n"), "{stdout}");
    assert!(stdout.ends_with("fs: 0 failures\n"), "{stdout}");
}

/// appletOE as an application starts (the program checks Horizon's answers itself), the same on both CPU paths;
/// EnsureSaveData makes the user's save folder.
#[test]
fn the_applet_manager_starts_an_application() {
    let saves = scratch_dir("applet-saves");
    let run = |cpu: &str| {
        let output = tandem(&["run", &program("applet.nro"), "--cpu", cpu, "--save-dir", &saves.display().to_string()]);
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
        stdout
    };
    let reference = run("reference");
    assert!(reference.ends_with("applet: 0 failures\n"), "{reference}");
    assert!(reference.contains("message: 15\n") && reference.contains("desired language: en-US\n"), "{reference}");
    assert!(reference.contains("preselected user: magic 0xc79497ca, selected 1, user 0x1\n"), "{reference}");
    assert_eq!(run("fast"), reference);
    let save = saves.join("0000000000000000/account/00000000000000010000000000000000");
    assert!(save.join("current").is_file(), "EnsureSaveData made no save at {}", save.display());
}

/// A run that reads the host's clock repeats exactly from its input log, state hash included; a log is refused
/// for another program.
#[test]
fn a_recorded_run_replays_exactly() {
    let dir = scratch_dir("input-log");
    let log = dir.join("time.log").display().to_string();
    let recorded =
        tandem(&["run", &program("time.nro"), "--clock-epoch", "1234567890", "--record", &log, "--state-hash"]);
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    let replayed = tandem(&["run", &program("time.nro"), "--replay", &log, "--state-hash"]);
    assert!(replayed.status.success(), "{}", text(&replayed.stderr));
    assert_eq!(text(&replayed.stdout), text(&recorded.stdout));
    assert!(text(&replayed.stdout).contains("epoch: 1234567890\n"), "{}", text(&replayed.stdout));
    let other = tandem(&["run", &program("applet.nro"), "--replay", &log]);
    assert!(!other.status.success() && text(&other.stderr).contains("recorded with another program"));
}

#[test]
fn crashing_programs_stop_with_a_report() {
    let cases = [
        ("crash_udf.nro", vec!["undefined instruction", "udf #4660", "crash_udf.nro+0x"]),
        ("crash_fault.nro", vec!["memory fault: Write of 0x10", "nothing is mapped there", "str"]),
        ("crash_break.nro", vec!["the program called Break (reason 0x3", "svc #0x26"]),
        (
            "crash_deadlock.nro",
            vec![
                "deadlock: every thread waits and no timer can wake one",
                "thread 1 (priority 44",
                "waits for the mutex at 0x",
                ", held by thread 2",
                ", held by thread 1",
                "svc #0x1a",
            ],
        ),
        ("crash_svc.nro", vec!["SVC 0x7f (CallSecureMonitor) is not implemented", "svc #0x7f"]),
        (
            "crash_service.nro",
            vec!["service `sm:` command 1 is not implemented", "GetServiceHandle(\"audout:u\")", "svc #0x21"],
        ),
    ];
    for (name, expected) in cases {
        let output = tandem(&["run", &program(name)]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        for fragment in expected {
            assert!(stderr.contains(fragment), "{name}: {fragment:?} missing from\n{stderr}");
        }
        assert!(stderr.contains("registers:") && stderr.contains("next:"), "{stderr}");
    }
}

#[test]
fn state_hashes_repeat_and_tell_programs_apart() {
    let hash = |name: &str| {
        let output = tandem(&["run", &program(name), "--state-hash"]);
        let stdout = text(&output.stdout);
        let last = stdout.lines().last().unwrap_or_default().to_string();
        assert!(last.starts_with("state-hash: ") && last.len() == "state-hash: ".len() + 64, "{stdout}");
        last
    };
    assert_eq!(hash("hello.nro"), hash("hello.nro"));
    assert_ne!(hash("hello.nro"), hash("isa.nro"));
    // A stopped program has a final state too.
    assert_eq!(hash("crash_fault.nro"), hash("crash_fault.nro"));
}

/// `--state-pages` lists what the state hash covers: the threads, then every mapped page with the SHA-256 of its
/// bytes (the NRO's first page is its file's first 4 KiB, text starting at offset 0), the same on both CPU paths.
#[test]
fn the_state_listing_names_each_page_by_the_digest_of_its_bytes() {
    let listing = |name: &str, cpu: &str| {
        let file = scratch_dir("state-pages").join(format!("{name}-{cpu}.txt"));
        let file_arg = file.display().to_string();
        let output = tandem(&["run", &program(name), "--cpu", cpu, "--state-pages", &file_arg]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        std::fs::read_to_string(&file).unwrap()
    };
    let hello = listing("hello.nro", "reference");
    assert!(hello.lines().next().unwrap().starts_with("thread 1 pc 0x"), "{hello}");
    let nro = std::fs::read(program("hello.nro")).unwrap();
    let first_page: String = sha2::Sha256::digest(&nro[..4096]).iter().map(|b| format!("{b:02x}")).collect();
    assert!(hello.lines().any(|line| line == format!("page 0x0008000000 r-x {first_page}")), "{hello}");
    let pages = hello.lines().filter(|line| line.starts_with("page 0x")).count();
    assert!(pages > 16, "{hello}");
    assert_eq!(listing("hello.nro", "fast"), hello);
    assert_ne!(listing("isa.nro", "reference"), hello);
}

#[test]
fn an_exefs_folder_runs_from_its_main_nso() {
    let folder = scratch_dir("exefs");
    let nso = folder.join("main.nso");
    let packed = tandem(&["pack", &program("hello.nro"), "-o", &nso.display().to_string()]);
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    std::fs::rename(&nso, folder.join("main")).unwrap();
    let folder_arg = folder.display().to_string();

    // The title's control data beside it: the name in language entry 0 (0x0), the publisher (0x200) and the
    // display version (0x3060), at switchbrew's NACP offsets.
    let mut nacp = vec![0u8; 0x4000];
    nacp[..5].copy_from_slice(b"Hello");
    nacp[0x200..0x206].copy_from_slice(b"Tandem");
    nacp[0x3060..0x3065].copy_from_slice(b"9.8.7");
    std::fs::write(folder.join("control.nacp"), nacp).unwrap();

    let info = text(&tandem(&["info", &folder_arg]).stdout);
    assert!(info.contains(": ExeFS") && info.contains("module main (Nso)"), "{info}");
    assert!(info.contains("sha-256 verified") && info.contains("R-X"), "{info}");
    assert!(info.contains("nacp: \"Hello\" by \"Tandem\", version \"9.8.7\""), "{info}");

    let run = tandem(&["run", &folder_arg]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(text(&run.stdout), qemu_stdout("hello"));
}

#[test]
fn info_describes_an_nro() {
    let info = text(&tandem(&["info", &program("hello.nro")]).stdout);
    for fragment in ["homebrew NRO", "module ", "build id ", "R-X", "R--", "RW-", "MOD0 header at +"] {
        assert!(info.contains(fragment), "{fragment:?} missing from\n{info}");
    }
}

#[test]
fn disasm_starts_at_the_entry_point() {
    let output = text(&tandem(&["disasm", &program("hello.nro"), "--count", "2"]).stdout);
    let first = output.lines().next().unwrap_or_default();
    // The first word of every module is a branch over the NRO header to the real entry.
    assert!(first.starts_with("0x0008000000: ") && first.contains(" b\t0x8"), "{output}");
}

/// With --linux the program is placed as `tandem linux` places it: the listing starts at the ELF header's entry
/// point with the word the program headers put there (ELF-64's layout: e_entry at 24, e_phoff at 32, e_phnum at
/// 56; each PT_LOAD's p_offset at 8, p_vaddr at 16, p_filesz at 32).
#[test]
fn disasm_places_a_linux_program_as_linux_does() {
    let path = program("hello.linux");
    let elf = std::fs::read(&path).unwrap();
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap());
    let entry = u64_at(24);
    let (phoff, phnum) = (u64_at(32) as usize, u16::from_le_bytes([elf[56], elf[57]]) as usize);
    let offset = (0..phnum)
        .map(|i| phoff + 56 * i)
        .filter(|&ph| u32::from_le_bytes(elf[ph..ph + 4].try_into().unwrap()) == 1)
        .find_map(|ph| {
            (u64_at(ph + 16)..u64_at(ph + 16) + u64_at(ph + 32))
                .contains(&entry)
                .then(|| u64_at(ph + 8) + entry - u64_at(ph + 16))
        })
        .expect("a PT_LOAD holds the entry point") as usize;
    let word = u32::from_le_bytes(elf[offset..offset + 4].try_into().unwrap());

    let output = text(&tandem(&["disasm", "--linux", &path, "--count", "1"]).stdout);
    assert!(output.starts_with(&format!("{entry:#012x}: {word:08x}  ")), "{output}");
    let horizon = tandem(&["disasm", &path]);
    assert!(!horizon.status.success() && text(&horizon.stderr).contains("needs --linux"), "{}", text(&horizon.stderr));
}

#[test]
fn bad_input_is_a_clear_error() {
    let folder = scratch_dir("bad-input");
    let garbage = folder.join("garbage.bin");
    std::fs::write(&garbage, b"this is not a program").unwrap();
    let output = tandem(&["run", &garbage.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("not an NRO, NSO, ELF or ExeFS folder"), "{}", text(&output.stderr));

    let truncated = folder.join("truncated.nro");
    let bytes = std::fs::read(program("hello.nro")).unwrap();
    std::fs::write(&truncated, &bytes[..0x30]).unwrap();
    let stderr = text(&tandem(&["info", &truncated.display().to_string()]).stderr);
    assert!(stderr.contains("NRO header") && stderr.contains("truncated"), "{stderr}");
}

#[test]
fn limits_are_loud() {
    for cpu in ["reference", "fast"] {
        let limited = tandem(&["run", &program("demo.nro"), "--cpu", cpu, "--max-instructions", "1000"]);
        assert_eq!(limited.status.code(), Some(1));
        assert!(text(&limited.stderr).contains("instruction limit (1000)"), "{}", text(&limited.stderr));
    }
}

/// The programs small enough to run on both paths in lockstep in CI (intloop's 100 M instructions are the
/// benchmark's).
const KERNEL_PROGRAMS: [&str; 28] = [
    "hello",
    "exclusive",
    "time",
    "demo",
    "isa",
    "threads",
    "sync",
    "memory",
    "svc",
    "ipc",
    "shmem",
    "server",
    "nvdrv",
    "gpu-fifo",
    "gpu-clear",
    "gpu-present",
    "gpu-copy",
    "gpu-compute",
    "gpu-draw",
    "gpu-blit",
    "hid",
    "pad",
    "crash_service",
    "crash_break",
    "crash_deadlock",
    "crash_fault",
    "crash_svc",
    "crash_udf",
];

/// Each program runs on the reference with its input (the host's clock, controllers) recorded, then on the fast
/// path from that log: the output and the final state hash must be the same.
#[test]
fn both_cpu_paths_print_the_same_and_end_in_the_same_state() {
    let dir = scratch_dir("cross-path-logs");
    for name in KERNEL_PROGRAMS {
        let path = program(&format!("{name}.nro"));
        let log = dir.join(format!("{name}.log")).display().to_string();
        let reference = tandem(&["run", &path, "--cpu", "reference", "--state-hash", "--record", &log]);
        let fast = tandem(&["run", &path, "--cpu", "fast", "--state-hash", "--replay", &log]);
        assert!(text(&reference.stdout).contains("state-hash: "), "{name}");
        assert_eq!(text(&fast.stdout), text(&reference.stdout), "{name}: output or final state differ");
        assert_eq!(fast.status.code(), reference.status.code(), "{name}");
    }
}

#[test]
fn lockstep_finds_the_cpu_paths_agreeing_on_every_test_program() {
    let runs = KERNEL_PROGRAMS.iter().map(|name| vec![program(&format!("{name}.nro"))]).chain(
        ["hello", "isa", "linux_syscalls", "linux_threads"]
            .iter()
            .map(|name| vec!["--linux".into(), program(&format!("{name}.linux"))]),
    );
    for args in runs {
        let mut command = vec!["diff", "lockstep"];
        command.extend(args.iter().map(String::as_str));
        let output = tandem(&command);
        let stdout = text(&output.stdout);
        let summary = stdout.lines().last().unwrap_or_default();
        assert!(output.status.success(), "{args:?}: {stdout}");
        assert!(summary.starts_with("lockstep: ") && summary.ends_with("divergences: 0"), "{args:?}: {summary}");
        assert!(!summary.starts_with("lockstep: 0 instructions"), "{args:?}: nothing ran: {summary}");
    }
}

/// Comparing every two instructions changes nothing the program sees: the kernel still sees one run a quantum,
/// so an ldxr/stxr pair that a comparison falls between keeps its exclusive monitor (the Horizon kernel clears it
/// when a run ends) and succeeds at once, and the run retires what it retires without lockstep.
#[test]
fn lockstep_comparing_every_few_instructions_leaves_the_program_alone() {
    let path = program("exclusive.nro");
    let summaries: Vec<String> = ["100000", "2"]
        .iter()
        .map(|every| {
            let output = tandem(&["diff", "lockstep", &path, "--every", every]);
            let stdout = text(&output.stdout);
            assert!(output.status.success(), "--every {every}: {stdout}");
            assert!(stdout.starts_with("counter: 3, retries: 0\n"), "--every {every}: {stdout}");
            let summary = stdout.lines().last().unwrap_or_default();
            summary.split(" in ").next().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(summaries[0], summaries[1], "instructions retired");
}

/// A frame that cannot be written (here a folder stands where its file goes) does not stop the run, but the exit
/// status and the error say the frames folder is incomplete.
#[test]
fn frames_that_cannot_be_written_fail_the_command() {
    let dir = scratch_dir("unwritable-frames");
    std::fs::create_dir_all(dir.join("frame-00000.png")).unwrap();
    let output = tandem(&["run", &program("gpu-present.nro"), "--headless", "--frames", dir.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not every frame was written") && stderr.contains("frame-00000.png"), "{stderr}");
    assert!(dir.join("frame-00001.png").is_file(), "the run went on");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Ctrl-C ends a run as closing the window does, between rounds of the cores: the state hash is printed and the
/// command trace written whole (it replays), and the exit status is 130.
#[test]
fn ctrl_c_ends_the_run_and_keeps_what_it_recorded() {
    let dir = scratch_dir("ctrl-c");
    let trace = dir.join("run.trace");
    let child = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["run", &program("intloop.nro"), "--cpu", "reference", "--headless", "--state-hash", "--record-trace"])
        .arg(&trace)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tandem starts");
    // intloop's 100 M instructions take the reference seconds; the signal comes well before their end.
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(130), "{stdout}{stderr}");
    assert!(stderr.contains("interrupted (Ctrl-C): the run ended after"), "{stderr}");
    assert!(stdout.contains("state-hash: "), "{stdout}");
    let replayed = tandem(&["gpu", "replay", trace.to_str().unwrap()]);
    assert!(replayed.status.success(), "{}", text(&replayed.stderr));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A fresh folder of this test's alone (mode 0700, whatever the umask: some are code caches, which must be).
fn scratch_dir(name: &str) -> PathBuf {
    use std::os::unix::fs::DirBuilderExt;
    let dir = std::env::temp_dir().join(format!("tandem-cli-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).unwrap();
    dir
}

/// Runs a Linux twin under qemu-aarch64 or Tandem in `dir`, with arguments and an extra environment variable.
fn linux_run(runner: &str, dir: &Path, name: &str, args: &[&str]) -> Output {
    let binary = program(&format!("{name}.linux"));
    let mut command = if runner == "qemu" {
        Command::new("qemu-aarch64")
    } else {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
        command.arg("linux");
        command
    };
    command.arg(&binary).args(args).current_dir(dir).env("TANDEM_TEST", "yes").output().expect("the runner starts")
}

#[test]
fn linux_programs_behave_as_under_qemu() {
    let cases: &[(&str, &[&str])] = &[
        ("hello", &[]),
        ("isa", &[]),
        ("demo", &[]),
        ("linux_syscalls", &["one", "two words"]),
        ("linux_threads", &[]),
    ];
    for &(name, args) in cases {
        let (qemu_dir, tandem_dir) = (scratch_dir(&format!("{name}-qemu")), scratch_dir(&format!("{name}-tandem")));
        let expected = linux_run("qemu", &qemu_dir, name, args);
        let actual = linux_run("tandem", &tandem_dir, name, args);
        assert_eq!(text(&actual.stdout), text(&expected.stdout), "{name}: {}", text(&actual.stderr));
        assert_eq!(actual.status.code(), expected.status.code(), "{name}: {}", text(&actual.stderr));
        assert!(!name.starts_with("linux_") || text(&actual.stdout).contains(&format!("{name}: 0 failures")));
    }
    // Threads made by clone3, which qemu-aarch64 7.2 lacks, behave as those made by clone under qemu.
    let (qemu_dir, tandem_dir) = (scratch_dir("clone3-qemu"), scratch_dir("clone3-tandem"));
    let expected = linux_run("qemu", &qemu_dir, "linux_threads", &[]);
    let actual = linux_run("tandem", &tandem_dir, "linux_threads", &["clone3"]);
    assert_eq!(text(&actual.stdout), text(&expected.stdout), "clone3: {}", text(&actual.stderr));
}

#[test]
fn linux_exit_codes_and_stops() {
    let dir = scratch_dir("linux-stops");
    let exit = linux_run("tandem", &dir, "linux_syscalls", &["exit", "7"]);
    assert_eq!(exit.status.code(), Some(7));

    let fault = linux_run("tandem", &dir, "linux_syscalls", &["fault"]);
    assert_eq!(fault.status.code(), Some(128 + 11), "{}", text(&fault.stderr));
    assert!(text(&fault.stderr).contains("memory fault: Write of 0x10"), "{}", text(&fault.stderr));

    let unknown = linux_run("tandem", &dir, "linux_syscalls", &["unknown"]);
    assert_eq!(unknown.status.code(), Some(125));
    assert!(
        text(&unknown.stderr).contains("Linux system call 116 (syslog) is not implemented"),
        "{}",
        text(&unknown.stderr)
    );

    let binary = program("linux_syscalls.linux");
    let enosys =
        Command::new(env!("CARGO_BIN_EXE_tandem")).args(["linux", "--enosys", &binary, "unknown"]).output().unwrap();
    assert_eq!(enosys.status.code(), Some(0));
    assert_eq!(text(&enosys.stdout), "syslog: -1\n");

    // When threads exit one by one, the process's status is its first thread's (the thread group leader's exit
    // code, which wait4 reports: kernel/exit.c); qemu-aarch64 gives the last thread's.
    let leader = linux_run("tandem", &dir, "linux_threads", &["leader"]);
    assert_eq!(leader.status.code(), Some(3), "{}", text(&leader.stderr));

    // Threads that all wait on futexes nothing will wake: Linux would hang; Tandem stops, naming it.
    let deadlock = linux_run("tandem", &dir, "linux_threads", &["deadlock"]);
    assert_eq!(deadlock.status.code(), Some(125), "{}", text(&deadlock.stderr));
    let stderr = text(&deadlock.stderr);
    assert!(stderr.contains("deadlock: every thread waits on a futex or a signal that nothing can bring"), "{stderr}");
    assert!(stderr.contains("svc #0"), "{stderr}");

    // vfork(2): the child shares its parent's memory until it execs or exits (posix_spawn reads its error so).
    // qemu-aarch64 makes vfork a fork, so this is the man page's word, not compared with qemu.
    for cpu in ["reference", "fast"] {
        let vfork = Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(["linux", "--cpu", cpu, &binary, "vfork"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(text(&vfork.stdout), "vfork child's write seen: 1\n", "{cpu}: {}", text(&vfork.stderr));
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_code_cache_fills_ahead_of_time_and_survives_damage() {
    let cache = scratch_dir("code-cache");
    let demo = program("demo.nro");
    let with_cache = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tandem")).args(args).env("TANDEM_CODE_CACHE", &cache).output().unwrap()
    };
    let expected = text(&tandem(&["run", &demo, "--cpu", "reference", "--state-hash"]).stdout);

    // `aot: N blocks (C compiled, ...; L already cached) in DIR`: N, C and L.
    let aot = |expected_blocks: Option<u64>| {
        let output = with_cache(&["aot", &demo]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let line = text(&output.stdout);
        let counts = line.split(") in ").next().unwrap_or_default();
        let numbers: Vec<u64> = counts
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .filter(|word| !word.is_empty() && !word.contains('.'))
            .filter_map(|word| word.parse().ok())
            .collect();
        let [blocks, compiled, _, .., cached] = numbers[..] else { panic!("not aot's line: {line}") };
        assert!(line.starts_with(&format!("aot: {blocks} blocks ({compiled} compiled, ")), "{line}");
        assert_eq!(blocks, compiled + cached, "{line}");
        if let Some(expected) = expected_blocks {
            assert_eq!((blocks, compiled, cached), (expected, 0, expected), "{line}");
        }
        blocks
    };
    let blocks = aot(None);
    // The block files, not the stamp of the cache's last prune or the index of the keys stored.
    let files: Vec<PathBuf> =
        files_under(&cache).into_iter().filter(|file| !file.ends_with("pruned") && !file.ends_with("index")).collect();
    assert!(files.len() > 100, "aot stored {} blocks", files.len());
    assert_eq!(files.len() as u64, blocks, "a block file for every block aot compiled");
    // Again: every block is found in the cache, none compiled (each was compiled and stored the first time).
    aot(Some(blocks));
    assert_eq!(text(&with_cache(&["run", &demo, "--cpu", "fast", "--state-hash"]).stdout), expected);

    // Damage every stored block: each must be noticed, compiled again and stored again, the run unchanged.
    for file in &files {
        let mut bytes = std::fs::read(file).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        std::fs::write(file, bytes).unwrap();
    }
    let damaged = with_cache(&["run", &demo, "--cpu", "fast", "--state-hash"]);
    assert_eq!(text(&damaged.stdout), expected);
    assert!(text(&damaged.stderr).contains("checksum does not match"), "{}", text(&damaged.stderr));
    let repaired = with_cache(&["run", &demo, "--cpu", "fast", "--state-hash"]);
    assert_eq!(text(&repaired.stdout), expected);
    assert!(!text(&repaired.stderr).contains("code cache"), "{}", text(&repaired.stderr));
}

/// A run prunes the code cache to TANDEM_CODE_CACHE_MAX_MB, least recently used files first, and leaves what is
/// not the cache's alone; a limit that is no number stops the run naming the variable.
#[test]
fn the_code_cache_keeps_to_its_size_limit() {
    let cache = scratch_dir("code-cache-limit");
    let demo = program("demo.nro");
    let stale = cache.join("0f").join("e".repeat(62));
    let foreign = cache.join("0f").join("notes.txt");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, [0u8; 64]).unwrap();
    std::fs::write(&foreign, "mine").unwrap();
    let run = |limit: &str| {
        Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(["run", &demo, "--cpu", "fast", "--state-hash"])
            .env("TANDEM_CODE_CACHE", &cache)
            .env("TANDEM_CODE_CACHE_MAX_MB", limit)
            .output()
            .unwrap()
    };
    let refused = run("lots");
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("TANDEM_CODE_CACHE_MAX_MB is \"lots\""), "{}", text(&refused.stderr));
    let pruned = run("0");
    assert!(pruned.status.success(), "{}", text(&pruned.stderr));
    assert!(!stale.exists(), "the stale block file outlived a limit of 0");
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "mine");
    assert!(cache.join("pruned").exists());
}

/// `tandem shader run` on a kernel's cubin leaves the output buffer as an NVIDIA GPU left it
/// (gpu/tests/sass/cuda/results), and `tandem shader disasm` lists the same kernel.
#[test]
fn shader_run_computes_what_the_gpu_computed() {
    let sass = Path::new(env!("CARGO_MANIFEST_DIR")).join("gpu/tests/sass");
    let cubin = sass.join("sm86/int_arith.cubin");
    let dump = std::env::temp_dir().join(format!("tandem-shader-run-{}", std::process::id()));
    let input = format!("file:{}", sass.join("cuda/input.bin").display());
    let output = tandem(&[
        "shader",
        "run",
        cubin.to_str().unwrap(),
        "--block",
        "128",
        "--param",
        "zero:65536",
        "--param",
        &input,
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).starts_with("run: int_arith (sm86)"), "{}", text(&output.stdout));
    let got = std::fs::read(dump.join("param0.bin")).unwrap();
    let gpu = std::fs::read(sass.join("cuda/results/int_arith.out")).unwrap();
    assert!(got == gpu[..got.len()], "the output buffer differs from the GPU's");
    std::fs::remove_dir_all(&dump).unwrap();

    let listing = tandem(&["shader", "disasm", cubin.to_str().unwrap()]);
    assert!(listing.status.success());
    assert!(text(&listing.stdout).contains("IMAD.WIDE.U32 R2, R28, R3, c[0x0][0x168] ;"), "{}", text(&listing.stdout));
    let raw = tandem(&["shader", "disasm", sass.join("sm86/int_arith.bin").to_str().unwrap()]);
    assert!(!raw.status.success() && text(&raw.stderr).contains("--isa"), "raw code without --isa is refused");
}

/// `tandem shader translate` writes SPIR-V that spirv-val accepts for Vulkan, and names what it cannot
/// translate, with the kernel and the offset.
#[test]
fn shader_translate_writes_valid_spirv_or_names_what_it_cannot_translate() {
    let sass = Path::new(env!("CARGO_MANIFEST_DIR")).join("gpu/tests/sass");
    let output = std::env::temp_dir().join(format!("tandem-shader-translate-{}.spv", std::process::id()));
    let cubin = sass.join("sm86/fp32.cubin");
    let run =
        tandem(&["shader", "translate", cubin.to_str().unwrap(), "--block", "128", "-o", output.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(text(&run.stdout).starts_with("translate: fp32 (sm86)"), "{}", text(&run.stdout));
    let validation = Command::new("spirv-val").args(["--target-env", "vulkan1.2"]).arg(&output).output().unwrap();
    assert!(validation.status.success(), "{}", text(&validation.stderr));
    std::fs::remove_file(&output).unwrap();

    // The control flow as constructs (--structure), or the dispatcher loop and why: the loops kernel's two loops;
    // the control kernel's jump table and recursion.
    let layout = |file: &str, extra: &[&str]| {
        let cubin = sass.join(file);
        let args = ["shader", "translate", cubin.to_str().unwrap(), "--block", "128", "-o", output.to_str().unwrap()];
        let run = tandem(&[&args[..], extra].concat());
        assert!(run.status.success(), "{}", text(&run.stderr));
        std::fs::remove_file(&output).unwrap();
        text(&run.stdout)
    };
    let loops = layout("sm53/loops.cubin", &["--structure"]);
    assert!(loops.contains("\ncontrol flow: structured\n") && loops.matches("loop 0x").count() >= 2, "{loops}");
    let control = layout("sm86/control.cubin", &[]);
    assert!(control.ends_with("control flow: a dispatcher loop (an indirect jump (a return or a jump table))\n"));

    let programs = sass.join("sm86/programs.cubin");
    let several = tandem(&["shader", "translate", programs.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    assert!(!several.status.success() && text(&several.stderr).contains("choose one with --entry"));
    // Handles loaded at run time (the bindless sampling kernel's, from memory) index the pools, each two bindings.
    let bindless = sass.join("sm86/bindless_sampling.cubin");
    let pools = ["--pools", "16,4", "-o", output.to_str().unwrap()];
    let run = tandem(&[&["shader", "translate", bindless.to_str().unwrap()][..], &pools[..]].concat());
    assert!(run.status.success(), "{}", text(&run.stderr));
    let listing = text(&run.stdout);
    assert!(
        listing.contains("texture pool (D2) images at binding 1, texture pool (D2) samplers at binding 2"),
        "{listing}"
    );
    let validation = Command::new("spirv-val").args(["--target-env", "vulkan1.2"]).arg(&output).output().unwrap();
    assert!(validation.status.success(), "{}", text(&validation.stderr));
    std::fs::remove_file(&output).unwrap();
    // What cannot be translated is named with the instruction, the kernel and the offset: among the hand-built
    // TMML words, one that writes components 2 and 3, which no source describes.
    let tmml = sass.join("sm86/tmml.bin");
    let args = ["shader", "translate", tmml.to_str().unwrap(), "--isa", "sm86", "-o", output.to_str().unwrap()];
    let unsupported = tandem(&args);
    let error = text(&unsupported.stderr);
    assert!(
        !unsupported.status.success() && error.contains("TMML.LOD") && error.contains("(kernel tmml, offset 0x"),
        "{error}"
    );

    // A pixel program (its header, then its code) translates with its texture bound after the banks; a vertex
    // program is not a pixel one.
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/shaders");
    let translate = |file: &str, isa: &str, stage: &str, extra: &[&str]| {
        let program = shaders.join(file);
        let args = ["shader", "translate", program.to_str().unwrap(), "--isa", isa, "--stage", stage, "-o"];
        tandem(&[&args[..], &[output.to_str().unwrap()], extra].concat())
    };
    let valid_and_removed = || {
        let validation = Command::new("spirv-val").args(["--target-env", "vulkan1.3"]).arg(&output).output().unwrap();
        assert!(validation.status.success(), "{}", text(&validation.stderr));
        std::fs::remove_file(&output).unwrap();
    };
    let run = translate("texture.ps.bin", "sm5x", "pixel", &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).ends_with("set 1: texture c[bindless][0x0] (D2) at binding 0\ncontrol flow: structured\n"),
        "{}",
        text(&run.stdout)
    );
    valid_and_removed();
    let wrong = translate("pass.vs.bin", "sm5x", "pixel", &[]);
    assert!(!wrong.status.success() && text(&wrong.stderr).contains("a Vertex program's, not a Pixel program's"));

    // An SM86 pixel program (a version 4 header, 0x80 bytes) translates; Maxwell's version 3 header is not one.
    let run = translate("perspective86.ps.bin", "sm86", "pixel", &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    valid_and_removed();
    let wrong = translate("perspective.ps.bin", "sm86", "pixel", &[]);
    assert!(!wrong.status.success() && text(&wrong.stderr).contains("header is version 4, this one version 3"));

    // A geometry program binds its resources in set 2, and is not a vertex program.
    let run = translate("copies86.gs.bin", "sm86", "geometry", &[]);
    let expected = "set 2: no bindings\ncontrol flow: structured\n";
    assert!(run.status.success() && text(&run.stdout).ends_with(expected), "{}", text(&run.stdout));
    valid_and_removed();
    let wrong = translate("copies.gs.bin", "sm5x", "vertex", &[]);
    assert!(!wrong.status.success() && text(&wrong.stderr).contains("a Geometry program's, not a Vertex program's"));
    // Tessellation programs bind sets 3 and 4; an evaluation program reads the per-patch words the control
    // program hands on (patch.tcs: four past the levels), which --patch-words gives, and is refused by name without.
    for (file, isa, stage, extra, set) in [
        ("patch.tcs.bin", "sm5x", "tess-control", &[][..], 3),
        ("patch86.tes.bin", "sm86", "tess-eval", &["--patch-words", "4"][..], 4),
    ] {
        let run = translate(file, isa, stage, extra);
        let expected = format!("set {set}: no bindings\ncontrol flow: structured\n");
        assert!(run.status.success() && text(&run.stdout).ends_with(&expected), "{}", text(&run.stderr));
        valid_and_removed();
    }
    let wrong = translate("patch86.tes.bin", "sm86", "tess-eval", &[]);
    assert!(
        !wrong.status.success() && text(&wrong.stderr).contains("PerPatchAttributeCount"),
        "{}",
        text(&wrong.stderr)
    );
}

/// `tandem shader coverage` ends with one summary line per instruction set whose counts add up, and says which
/// kernels verify an opcode: fp32's FFMA is verified on both (its translation matches the H200 on lavapipe), the
/// graphics-only opcodes by the graphics test programs it runs; with `--no-gpu` nothing is verified and the
/// translator column shows what translates.
#[test]
fn shader_coverage_ends_with_a_summary_line_per_isa() {
    let summary = |line: &str| -> (String, [usize; 4]) {
        let (name, counts) = line.split_once(": ").unwrap();
        let numbers: Vec<usize> =
            counts.split(", ").map(|part| part.rsplit(' ').next().unwrap().parse().unwrap()).collect();
        let words: Vec<&str> = counts.split(", ").map(|part| part.rsplit_once(' ').unwrap().0).collect();
        assert_eq!(words, ["opcodes", "verified", "implemented-only", "missing"], "{line}");
        (name.to_string(), numbers.try_into().unwrap())
    };
    let run = tandem(&["shader", "coverage", "--differential-cases", "2"]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let last = &lines[lines.len() - 2..];
    for (line, isa) in last.iter().zip(["sm50", "sm86"]) {
        let (name, [total, verified, only, missing]) = summary(line);
        assert_eq!(name, isa);
        assert_eq!(verified + only + missing, total, "{line}");
        assert!(verified > 0, "{line}");
    }
    let ffma = lines.iter().filter(|line| line.split_whitespace().nth(1) == Some("FFMA")).collect::<Vec<_>>();
    assert_eq!(ffma.len(), 2, "{stdout}");
    assert!(ffma.iter().all(|line| line.contains(" verified ") && line.contains("fp32")), "{ffma:?}");
    // The graphics-only opcodes are verified by the graphics test programs that pass on the device: IPA in both
    // instruction sets' pixel programs, KIL (SM5x) and KILL (SM86) in gpu-draw's killed triangles, AL2P in both
    // instruction sets' vertex programs that reach attributes at physical addresses, TMML in both level of detail
    // queries, PIXLD in both per-sample shadings.
    for opcode in ["IPA", "KIL", "KILL", "AL2P", "TMML", "PIXLD"] {
        let rows: Vec<&&str> = lines.iter().filter(|line| line.split_whitespace().nth(1) == Some(opcode)).collect();
        assert!(!rows.is_empty(), "{opcode}: {stdout}");
        for row in rows {
            assert!(row.contains(" rendered ") && row.contains(" verified ") && row.contains("gpu-draw"), "{row}");
        }
    }

    let run = tandem(&["shader", "coverage", "--isa", "sm86", "--no-gpu"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let (name, [total, verified, only, _]) = summary(text(&run.stdout).lines().last().unwrap());
    assert_eq!((name.as_str(), verified), ("sm86", 0));
    assert!(only > 0 && only < total);
}

/// A PNG frame's pixels: (width, height, RGBA bytes).
fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// gpu-present.c draws two frames (a background and scissor 0's rectangle, x 100..220, y 40..140, in swapped
/// colours) and queues them on a layer; `--headless --frames DIR` writes them, every pixel the colour drawn there
/// (0.2, 0.6, 0.8 as UNORM8: 51, 153, 204), and a second run writes the same bytes.
#[test]
fn shown_frames_are_written_as_png_files() {
    let run = |name: &str| {
        let dir = std::env::temp_dir().join(format!("tandem-frames-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let output = tandem(&["run", &program("gpu-present.nro"), "--headless", "--frames", dir.to_str().unwrap()]);
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
        assert!(stdout.ends_with("gpu-present: 0 failures\n"), "{stdout}");
        dir
    };
    let dir = run("first");
    let blue = [51, 153, 204, 255];
    let red = [255, 0, 0, 255];
    for (frame, (background, rectangle)) in [(blue, red), (red, blue)].into_iter().enumerate() {
        let (width, height, pixels) = read_png(&dir.join(format!("frame-{frame:05}.png")));
        assert_eq!((width, height), (320, 180));
        for y in 0..height {
            for x in 0..width {
                let inside = (100..220).contains(&x) && (40..140).contains(&y);
                let at = 4 * (y * width + x) as usize;
                let expected = if inside { rectangle } else { background };
                assert_eq!(pixels[at..at + 4], expected, "frame {frame}, pixel ({x}, {y})");
            }
        }
    }
    assert!(!dir.join("frame-00002.png").exists(), "two frames shown");
    let again = run("second");
    for frame in ["frame-00000.png", "frame-00001.png"] {
        assert_eq!(std::fs::read(dir.join(frame)).unwrap(), std::fs::read(again.join(frame)).unwrap(), "{frame}");
    }
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(again).unwrap();
}

/// `--record-trace` then `tandem gpu replay`: with no CPU, the trace gives the frames the run showed, byte for byte;
/// a cut trace is refused, naming the event.
#[test]
fn gpu_traces_replay_to_the_same_frames() {
    let dir = scratch_dir("trace");
    let present = program("gpu-present.nro");
    // gpu-present's clears and copies; the embedded demo's textured draw (shaders, a texture and its descriptors
    // read from memory).
    for (name, program, replayed) in [
        ("present", Some(present.as_str()), "replayed: 2 submissions, 2 frames\n"),
        ("demo", None, "replayed: 2 submissions, 1 frames\n"),
    ] {
        let trace = dir.join(format!("{name}.trace"));
        let (run_frames, replay_frames) = (dir.join(format!("{name}-run")), dir.join(format!("{name}-replay")));
        let mut arguments = vec!["run"];
        arguments.extend(program);
        arguments.extend([
            "--headless",
            "--frames",
            run_frames.to_str().unwrap(),
            "--record-trace",
            trace.to_str().unwrap(),
        ]);
        let output = tandem(&arguments);
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        let output = tandem(&[
            "gpu",
            "replay",
            trace.to_str().unwrap(),
            "--backend",
            "reference",
            "--frames",
            replay_frames.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), replayed, "{name}");
        let frames: Vec<_> = std::fs::read_dir(&run_frames).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert!(!frames.is_empty(), "{name}");
        for frame in frames {
            assert_eq!(
                std::fs::read(run_frames.join(&frame)).unwrap(),
                std::fs::read(replay_frames.join(&frame)).unwrap(),
                "{name}: {frame:?}"
            );
        }
    }
    // A trace cut inside its last event (a run killed while recording) replays the events before the cut, with
    // the frames they show, and fails naming the cut.
    let bytes = std::fs::read(dir.join("present.trace")).unwrap();
    let (cut, cut_frames) = (dir.join("cut.trace"), dir.join("cut-replay"));
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let output = tandem(&["gpu", "replay", cut.to_str().unwrap(), "--frames", cut_frames.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("the trace is cut short in event"), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "replayed: 2 submissions, 2 frames\n");
    for frame in ["frame-00000.png", "frame-00001.png"] {
        let run = std::fs::read(dir.join("present-run").join(frame)).unwrap();
        assert_eq!(std::fs::read(cut_frames.join(frame)).unwrap(), run, "{frame}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The embedded demo shows its Mandelbrot set through the GPU (a texel a character cell, put in a texture by
/// inline-to-memory, drawn magnified by a textured quad into a block-linear frame over a clear, then vi): every pixel is the colour of its character cell's band, computed here again from the same
/// fixed-point iteration, and the 8 columns right of the picture keep the clear's black.
#[test]
fn the_embedded_demo_shows_its_picture_through_the_gpu() {
    const ONE: i64 = 1 << 24;
    let escape_time = |cr: i64, ci: i64| {
        let (mut zr, mut zi) = (0i64, 0i64);
        for n in 0..160 {
            let (zr2, zi2) = ((zr * zr) >> 24, (zi * zi) >> 24);
            if zr2 + zi2 > 4 * ONE {
                return n;
            }
            zi = ((zr * zi) >> 23) + ci;
            zr = zr2 - zi2 + cr;
        }
        160
    };
    let band_ends = [2, 3, 4, 5, 6, 8, 11, 15, 22, 32, 48, 80, 160];
    let colours: [u32; 14] = [
        0xFF200800, 0xFF3F0F00, 0xFF5F1F08, 0xFF7F2F10, 0xFF9F3F18, 0xFFBF4F20, 0xFFCF6F30, 0xFFDF8F40, 0xFFEFAF60,
        0xFFFFCF80, 0xFFFFDFA0, 0xFFFFEFC0, 0xFFFFFFE0, 0xFF000000,
    ];
    let dir = scratch_dir("demo-frames");
    let output = tandem(&["run", "--headless", "--frames", dir.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let (width, height, pixels) = read_png(&dir.join("frame-00000.png"));
    assert_eq!((width, height), (320, 128));
    let (left, span_r, top, span_i) = (-22 * ONE / 10, 30 * ONE / 10, 12 * ONE / 10, 24 * ONE / 10);
    for y in 0..128u32 {
        for x in 0..320u32 {
            let expected = if x >= 312 {
                0xFF00_0000
            } else {
                let (row, column) = (i64::from(y / 4), i64::from(x / 4));
                let n = escape_time(left + span_r * column / 77, top - span_i * row / 31);
                let band = if n == 160 { 13 } else { band_ends.iter().position(|&end| end > n).unwrap() };
                colours[band]
            };
            let at = 4 * (y * width + x) as usize;
            assert_eq!(pixels[at..at + 4], expected.to_le_bytes(), "pixel ({x}, {y})");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Without --headless, the first frame opens a window (SDL's offscreen driver here) and every frame goes to it;
/// the run prints and ends as a headless one does. Where no video driver works at all, the run goes on without a
/// window and says so.
#[test]
fn frames_go_to_a_window_unless_headless() {
    let headless = tandem(&["run", &program("gpu-present.nro"), "--headless"]);
    let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["run", &program("gpu-present.nro")])
        .env("SDL_VIDEO_DRIVER", "offscreen")
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{}{stderr}", text(&output.stdout));
    assert!(stderr.contains("window open") && stderr.contains("offscreen"), "{stderr}");
    assert!(stderr.contains("frames=2"), "two frames shown: {stderr}");
    assert_eq!(output.stdout, headless.stdout);
    let no_display = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["run", &program("gpu-present.nro")])
        .env("SDL_VIDEO_DRIVER", "no-such-driver")
        .output()
        .unwrap();
    assert!(no_display.status.success(), "{}", text(&no_display.stderr));
    assert!(text(&no_display.stderr).contains("no window could open"), "{}", text(&no_display.stderr));
    assert_eq!(no_display.stdout, headless.stdout);
}

/// Controller input comes from the input log: a replayed log's changes reach the program at the hid samples of
/// the vertical blanks they name (sample n at counter tick 320000 n), stick pseudo-buttons included, the same on
/// both CPU paths; a replay recorded again keeps them. A live headless run has no input and records none.
#[test]
fn pad_input_replays_from_the_input_log() {
    let dir = std::env::temp_dir().join(format!("tandem-pad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let recorded = dir.join("recorded.log");
    let live = tandem(&["run", &program("pad.nro"), "--headless", "--record", recorded.to_str().unwrap()]);
    assert!(live.status.success(), "{}", text(&live.stderr));
    assert_eq!(text(&live.stdout), "sample 1: buttons 0x0, left stick 0 0, right stick 0 0\npad: 0 failures\n");
    let log = std::fs::read_to_string(&recorded).unwrap();
    assert!(!log.contains("\npad "), "{log}");
    // A pressed from vertical blank 3; plus, the left stick left and the right stick up from 5; nothing from 8.
    let replayed = dir.join("replayed.log");
    // A finger down at 100, 200 from vertical blank 4, moved to 1279, 719 at 5, lifted at 6: the touch screen
    // shows it from those samples, its first with the start attribute, and the one after it left with the end
    // attribute at the last place it was.
    let input = "pad 960000 1 0 0 0 0\ntouch 1280000 100 200\npad 1600000 400 -32767 0 0 32767\n\
                 touch 1600000 1279 719\ntouch 1920000 up\npad 2560000 0 0 0 0 0\n";
    std::fs::write(&replayed, format!("{log}{input}")).unwrap();
    let expected = "sample 1: buttons 0x0, left stick 0 0, right stick 0 0\n\
                    sample 3: buttons 0x1, left stick 0 0, right stick 0 0\n\
                    sample 4: touch 100 200 start\n\
                    sample 5: buttons 0x210400, left stick -32767 0, right stick 0 32767\n\
                    sample 5: touch 1279 719\n\
                    sample 6: touch 1279 719 end\n\
                    sample 7: no touch\n\
                    sample 8: buttons 0x0, left stick 0 0, right stick 0 0\n\
                    pad: 0 failures\n";
    let again = dir.join("again.log");
    let mut hashes = Vec::new();
    for cpu in ["reference", "fast"] {
        let run = tandem(&[
            "run",
            &program("pad.nro"),
            "--headless",
            "--cpu",
            cpu,
            "--state-hash",
            "--replay",
            replayed.to_str().unwrap(),
            "--record",
            again.to_str().unwrap(),
        ]);
        let stdout = text(&run.stdout);
        assert!(run.status.success(), "{cpu}: {stdout}{}", text(&run.stderr));
        let (output, hash) = stdout.rsplit_once("state-hash: ").unwrap();
        assert_eq!(output, expected, "{cpu}");
        hashes.push(hash.to_string());
        assert_eq!(std::fs::read_to_string(&again).unwrap(), format!("{log}{input}"), "{cpu}: the log kept");
    }
    assert_eq!(hashes[0], hashes[1], "both CPU paths end in the same state");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tandem bench shaders` runs the corpus's structured kernels three ways and ends with the geometric means.
#[test]
fn shader_bench_compares_the_layouts_and_the_interpreter() {
    let output = tandem(&["bench", "shaders", "--repeat", "1"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    for kernel in ["loops              sm5x", "loops              sm86"] {
        assert!(stdout.contains(kernel), "{kernel}: {stdout}");
    }
    let last = stdout.lines().last().unwrap_or_default();
    let ratios: Vec<f64> = last
        .strip_prefix("geomean: dispatcher/structured ")
        .and_then(|rest| rest.split_once(", interpreter/structured "))
        .map(|(a, b)| [a, b].iter().filter_map(|r| r.parse().ok()).collect())
        .unwrap_or_default();
    assert!(ratios.len() == 2 && ratios.iter().all(|r| *r > 0.0), "{stdout}");
}

/// Lockstep with the fast path as `tandem run` configures it (`--as-run`): regions compiled on background
/// threads and stored in the code cache, and loaded from it on a second run. The paths agree both times, and
/// regions came from the cache.
#[test]
fn lockstep_checks_the_fast_path_as_run_from_a_warm_code_cache() {
    let cache = scratch_dir("lockstep-as-run");
    let lockstep = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(["diff", "lockstep", "--as-run"])
            .args(args)
            .env("TANDEM_CODE_CACHE", &cache)
            .output()
            .unwrap();
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{args:?}: {stdout}{}", text(&output.stderr));
        let summary = stdout.lines().last().unwrap_or_default().to_string();
        assert!(summary.starts_with("lockstep: ") && summary.ends_with("divergences: 0"), "{args:?}: {summary}");
        // `... C regions compiled (S spanning pages, L from the code cache), ...`: C and L.
        let count = |before: &str| -> u64 {
            let words: Vec<&str> = summary.split(before).next().unwrap().split(' ').collect();
            words[words.len() - 1].trim_start_matches('(').parse().unwrap()
        };
        (count(" regions compiled"), count(" from the code cache"))
    };
    for args in [vec![program("isa.nro")], vec!["--linux".into(), program("isa.linux")]] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (regions, loaded) = lockstep(&args);
        assert!(regions > 0, "{args:?}: no region compiled");
        let (again, warm) = lockstep(&args);
        assert!(warm > 0 && warm <= again, "{args:?}: {loaded} then {warm} of {again} regions loaded");
    }
}
