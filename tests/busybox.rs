//! The Linux personality on other people's code: Debian's busybox-static for arm64 (fetched by `cargo xtask setup`,
//! never committed) runs a few dozen applets on inputs generated here; stdout, stderr and the exit status must equal
//! what qemu-aarch64 gives for the same command, on both CPU paths. The dynamically linked busybox runs too, with libc6:arm64 as its
//! sysroot.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A file of what `cargo xtask setup` fetches: `arm64/bin/busybox`, `dynamic/bin/busybox`, `sysroot`...
fn fetched(relative: &str) -> PathBuf {
    let dir = std::env::var_os("TANDEM_BUSYBOX_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/tandem/busybox"));
    let path = dir.join(relative);
    assert!(path.exists(), "{} is missing: run `cargo xtask setup`, which downloads Debian's busybox", path.display());
    path
}

fn busybox() -> PathBuf {
    fetched("arm64/bin/busybox")
}

/// A folder of inputs for the test `name` (tests run in parallel, each in its own folder): numbers, text, random
/// bytes, a small tree.
fn inputs(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tandem-busybox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tree/sub")).unwrap();
    let numbers: String = (1..=3000).map(|n| format!("{}\n", n * 7919 % 10007)).collect();
    std::fs::write(dir.join("numbers.txt"), numbers).unwrap();
    std::fs::write(dir.join("fruit.txt"), "banana\napple\ncherry\napple\nDate\n").unwrap();
    // Deterministic pseudo-random bytes (xorshift), so that the test does not depend on the host's randomness.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..300_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    std::fs::write(dir.join("random.bin"), bytes).unwrap();
    std::fs::write(dir.join("tree/a.txt"), "alpha\n").unwrap();
    std::fs::write(dir.join("tree/sub/b.txt"), "beta\n").unwrap();
    std::fs::write(dir.join("script.sh"), "x=1\nfor i in 1 2 3 4 5; do x=$((x * i)); done\necho \"5! = $x\"\nexit 3\n")
        .unwrap();
    dir
}

/// Who runs the guest: qemu-aarch64 (the oracle) or Tandem on one of its CPU paths.
#[derive(Clone, Copy, Debug)]
enum Runner {
    Qemu,
    Tandem(&'static str),
}

/// Tandem's two CPU paths, both held to qemu's output.
const CPU_PATHS: [Runner; 2] = [Runner::Tandem("reference"), Runner::Tandem("fast")];

fn run(runner: Runner, dir: &Path, args: &[&str]) -> Output {
    let mut command = match runner {
        Runner::Qemu => Command::new("qemu-aarch64"),
        Runner::Tandem(cpu) => {
            let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
            command.args(["linux", "--cpu", cpu]);
            command
        }
    };
    let stdin = std::fs::File::open(dir.join("fruit.txt")).unwrap();
    command.arg(busybox()).args(args).current_dir(dir).env_clear().env("PATH", "/bin").env("LC_ALL", "C");
    command.stdin(stdin).output().expect("the runner starts")
}

#[test]
fn busybox_applets_behave_as_under_qemu() {
    let dir = inputs("busybox_applets_behave_as_under_qemu");
    let cases: &[&[&str]] = &[
        &["echo", "hello", "world"],
        &["sort", "fruit.txt"],
        &["sort", "-n", "-r", "numbers.txt"],
        &["uniq", "-c", "fruit.txt"],
        &["md5sum", "random.bin"],
        &["sha1sum", "random.bin"],
        &["sha256sum", "random.bin"],
        &["sha512sum", "random.bin"],
        &["cksum", "numbers.txt"],
        &["wc", "numbers.txt", "fruit.txt"],
        &["head", "-n", "5", "numbers.txt"],
        &["tail", "-n", "3", "numbers.txt"],
        &["cut", "-c", "2-4", "fruit.txt"],
        &["tr", "a-z", "A-Z"],
        &["sed", "-e", "s/an/AN/g", "-e", "/cherry/d", "fruit.txt"],
        &["grep", "-n", "-i", "date", "fruit.txt"],
        &["grep", "-c", "99", "numbers.txt"],
        &["awk", "{ s += $1; if ($1 > m) m = $1 } END { print s, m, NR }", "numbers.txt"],
        &["awk", "BEGIN { for (i = 0; i < 20000; i++) x = (x * 31 + i) % 65521; print x }"],
        &["od", "-A", "x", "-t", "x1z", "fruit.txt"],
        &["hexdump", "-C", "fruit.txt"],
        &["dc", "-e", "2 200 ^ p"],
        &["expr", "6", "*", "7"],
        &["factor", "600851475143"],
        &["seq", "-s", ",", "1", "3", "30"],
        &["printf", "%05d|%x|%s\n", "42", "255", "text"],
        &["sh", "script.sh"],
        &["sh", "-c", "i=0; while [ $i -lt 50 ]; do i=$((i+1)); done; echo $i; test -f fruit.txt && echo yes"],
        &["gzip", "-c", "-9", "numbers.txt"],
        &["bzip2", "-c", "fruit.txt"],
        &["tar", "-cf", "-", "--owner=0", "--group=0", "--mtime=@0", "tree"],
        &["ls", "-1", "-R", "tree"],
        &["rev", "fruit.txt"],
        &["nl", "fruit.txt"],
        &["basename", "/a/b/c.txt", ".txt"],
        &["cp", "-p", "fruit.txt", "copy.txt"],
        &["chmod", "640", "copy.txt"],
        &["ln", "-sf", "fruit.txt", "soft.txt"],
        &["ln", "-f", "fruit.txt", "hard.txt"],
        &["readlink", "soft.txt"],
        &["stat", "-c", "%n %a %h %F %s", "fruit.txt", "hard.txt", "soft.txt", "copy.txt"],
        &["stat", "-f", "-c", "%T %s %l", "."],
        &["id", "-G"],
        &["sh", "-c", "read first < fruit.txt; echo $first"],
        // fork, wait4 and execve: pipelines, subshells, command substitution, vfork and exec (of busybox itself
        // through /proc/self/exe on Tandem, of the host's coreutils under qemu-aarch64, which prints the same).
        &["sh", "-c", "ls tree | wc -l; x=$(echo sub); echo $x; (echo in; exit 3); echo $?"],
        &["sh", "-c", "seq 5 | sort -r | head -2; echo a b c | xargs -n 1 echo"],
        &["sh", "-c", "tar -czf - tree | tar -tzf -"],
        &["sh", "-c", "exec wc -l fruit.txt"],
        // Signals: `wait` sleeps in rt_sigsuspend until SIGCHLD's handler runs; a trap is a handler.
        &["sh", "-c", "(exit 7) & wait $!; echo $?; true & true & wait; echo done"],
        &["sh", "-c", "trap 'echo caught' USR1; kill -USR1 $$; echo after"],
        // SIGPIPE's default action ends yes; nohup's ignored SIGHUP survives the exec of sh.
        &["sh", "-c", "yes | head -2"],
        &["nohup", "sh", "-c", "kill -HUP $$; echo alive"],
        &["cat", "missing-file"],
        &["false"],
    ];
    let mut failures = Vec::new();
    for args in cases {
        let expected = run(Runner::Qemu, &dir, args);
        for runner in CPU_PATHS {
            let actual = run(runner, &dir, args);
            if (&actual.stdout, &actual.stderr, actual.status.code())
                != (&expected.stdout, &expected.stderr, expected.status.code())
            {
                failures.push(format!(
                    "busybox {args:?} on {runner:?}: status {:?} vs qemu {:?}\n  stderr: {}",
                    actual.status.code(),
                    expected.status.code(),
                    String::from_utf8_lossy(&actual.stderr).lines().take(3).collect::<Vec<_>>().join("\n  ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs differ from qemu-aarch64:\n{}",
        failures.len(),
        cases.len() * CPU_PATHS.len(),
        failures.join("\n")
    );
}

#[test]
fn gzip_round_trips_through_the_guest() {
    let dir = inputs("gzip_round_trips_through_the_guest");
    let packed = run(Runner::Tandem("fast"), &dir, &["gzip", "-c", "random.bin"]);
    assert!(packed.status.success());
    std::fs::write(dir.join("random.bin.gz"), &packed.stdout).unwrap();
    let unpacked = run(Runner::Tandem("reference"), &dir, &["gunzip", "-c", "random.bin.gz"]);
    assert!(unpacked.status.success(), "{}", String::from_utf8_lossy(&unpacked.stderr));
    assert_eq!(unpacked.stdout, std::fs::read(dir.join("random.bin")).unwrap());
}

#[test]
fn dynamically_linked_busybox_runs_with_a_sysroot() {
    let dir = inputs("dynamically_linked_busybox_runs_with_a_sysroot");
    let (program, sysroot) = (fetched("dynamic/bin/busybox"), fetched("sysroot"));
    let cases = [&["echo", "dynamic"][..], &["sha256sum", "random.bin"], &["sort", "fruit.txt"]];
    for (args, cpu) in cases.into_iter().flat_map(|args| [(args, "reference"), (args, "fast")]) {
        let expected = Command::new("qemu-aarch64")
            .arg("-L")
            .arg(&sysroot)
            .arg(&program)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let actual = Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(["linux", "--cpu", cpu])
            .arg("--sysroot")
            .arg(&sysroot)
            .arg(&program)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(
            (&actual.stdout, actual.status.code()),
            (&expected.stdout, expected.status.code()),
            "{args:?} on the {cpu} path: {}",
            String::from_utf8_lossy(&actual.stderr)
        );
    }
}

#[test]
fn busybox_runs_in_lockstep_on_both_cpu_paths() {
    let dir = inputs("busybox_runs_in_lockstep_on_both_cpu_paths");
    let busybox = busybox();
    let mut spanning = 0;
    for args in
        [&["sort", "fruit.txt"][..], &["sha256sum", "random.bin"], &["sh", "script.sh"], &["gzip", "-c", "fruit.txt"]]
    {
        let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(["diff", "lockstep", "--linux"])
            .arg(&busybox)
            .args(args)
            .current_dir(&dir)
            .env_clear()
            .env("PATH", "/bin")
            .env("LC_ALL", "C")
            .output()
            .expect("tandem runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let summary = stdout.lines().last().unwrap_or_default();
        assert!(summary.ends_with("divergences: 0"), "busybox {args:?}: {stdout}");
        spanning += summary
            .split_once(" regions compiled (")
            .and_then(|(_, rest)| rest.split_once(' '))
            .and_then(|(count, _)| count.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no region count in {summary:?}"));
    }
    // Regions that took in code from other pages (hot calls far away) were among those checked.
    assert!(spanning > 0, "no region spanning pages was checked");
}

/// `tandem bench linux --cpu fast` times the fast path warm and cold, qemu-aarch64 and native busybox on each
/// workload (it stops if their outputs differ), prints each ratio as its columns make it, and ends with the
/// cold-start geomeans, then the contract line `geomean: tandem/native X, tandem/qemu Y`.
#[test]
fn bench_linux_compares_every_runner_and_ends_with_the_geomeans() {
    let busybox = busybox();
    let dir = busybox.ancestors().nth(3).expect("DIR/arm64/bin/busybox");
    let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["bench", "linux", "--cpu", "fast", "--repeat", "1", "--megabytes", "1", "--awk-iterations", "2000"])
        .arg("--busybox-dir")
        .arg(dir)
        .output()
        .expect("tandem runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let numbers = |line: &str| -> Vec<f64> { line.split_whitespace().filter_map(|word| word.parse().ok()).collect() };
    for workload in ["sha256sum", "gzip", "awk loop"] {
        let row = lines.iter().find(|line| line.starts_with(workload)).unwrap_or_else(|| panic!("no {workload} row"));
        let [tandem, cold, qemu, native, against_native, against_qemu] = numbers(row)[..] else {
            panic!("{workload}: not the six columns of tandem, cold, qemu, native and the two ratios: {row}")
        };
        assert!([tandem, cold, qemu, native].iter().all(|&seconds| seconds >= 0.0), "{row}");
        // The ratio of the unrounded times, which the printed ones (three decimals) bound: a native run of about
        // a millisecond leaves its ratio known only within a factor of three.
        let close = |ratio: f64, over: f64, under: f64| {
            const HALF: f64 = 0.0005;
            let lowest = (over - HALF).max(0.0) / (under + HALF);
            under <= HALF || (lowest - 0.01..=(over + HALF) / (under - HALF) + 0.01).contains(&ratio)
        };
        assert!(close(against_native, tandem, native) && close(against_qemu, tandem, qemu), "{row}");
    }
    let [.., cold_line, last] = lines[..] else { panic!("too few lines: {stdout}") };
    assert!(cold_line.starts_with("cold start (no code cache): geomean tandem/native "), "{cold_line}");
    assert!(last.starts_with("geomean: tandem/native ") && last.contains(", tandem/qemu "), "{last}");
    assert_eq!(numbers(&last.replace(',', " ")).len(), 2, "{last}");
}

/// timeout(1) across three processes: the program execs its command and a grandchild watches it, sleeping in
/// real time, and ends it with SIGTERM once the time is up (qemu-aarch64 cannot run busybox timeout: its vfork
/// child's exec of /proc/self/exe fails there, so this is the command's own contract).
#[test]
fn busybox_timeout_ends_a_long_sleep_and_lets_a_quick_command_finish() {
    use std::os::unix::process::ExitStatusExt;
    let dir = inputs("busybox_timeout_ends_a_long_sleep_and_lets_a_quick_command_finish");
    for cpu in CPU_PATHS {
        let started = std::time::Instant::now();
        let slept = run(cpu, &dir, &["timeout", "1", "sleep", "30"]);
        assert_eq!(
            slept.status.signal(),
            Some(15),
            "{cpu:?}: {:?} {}",
            slept.status,
            String::from_utf8_lossy(&slept.stderr)
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{cpu:?}: the sleep was not cut short");
        let quick = run(cpu, &dir, &["timeout", "2", "echo", "quick"]);
        assert_eq!((quick.stdout.as_slice(), quick.status.code()), (&b"quick\n"[..], Some(0)), "{cpu:?}");
    }
}

/// execve of a dynamically linked program: with the sysroot its interpreter is loaded in the new Tandem process;
/// without one the interpreter is missing, which execve(2) reports as ENOENT to the caller (ash: "not found",
/// status 127) before anything is replaced.
#[test]
fn an_exec_finds_or_misses_the_programs_interpreter() {
    let dir = inputs("an_exec_finds_or_misses_the_programs_interpreter");
    let (dynamic, sysroot) = (fetched("dynamic/bin/busybox"), fetched("sysroot"));
    let script = format!("exec {} echo through-the-interpreter", dynamic.display());
    for cpu in ["reference", "fast"] {
        for with_sysroot in [true, false] {
            let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
            command.args(["linux", "--cpu", cpu]);
            if with_sysroot {
                command.arg("--sysroot").arg(&sysroot);
            }
            let output = command.arg(busybox()).args(["sh", "-c", &script]).current_dir(&dir).output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            if with_sysroot {
                assert_eq!(output.stdout, b"through-the-interpreter\n", "{cpu}: {stderr}");
                assert_eq!(output.status.code(), Some(0), "{cpu}: {stderr}");
            } else {
                assert_eq!(output.status.code(), Some(127), "{cpu}: {stderr}");
                assert!(stderr.contains("not found"), "{cpu}: {stderr}");
            }
        }
    }
}
