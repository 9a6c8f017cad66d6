//! Helpers shared by the subcommands: where things are, and running tools with clear errors.

use anyhow::{Context, bail};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the folder above xtask/). Read at run time from what `cargo run` sets: checkouts that
/// share one target folder share one xtask binary, and the path compiled into it may be another checkout's.
pub fn project_root() -> PathBuf {
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), PathBuf::from);
    manifest_dir.parent().expect("xtask lives inside the workspace").to_path_buf()
}

/// Cargo's target folder: `CARGO_TARGET_DIR` when set, else `target/` in the workspace.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => project_root().join(dir),
        None => project_root().join("target"),
    }
}

/// The `cargo` that runs us, so nested builds use the same toolchain.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs `command`, failing with the command line when it cannot start or exits unsuccessfully. Its output goes to
/// ours.
pub fn run(command: &mut Command) -> anyhow::Result<()> {
    let line = command_line(command);
    let status = command.status().with_context(|| format!("cannot run `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed ({status})");
    }
    Ok(())
}

/// Runs `command` and returns its standard output, failing as [`run`] does (its standard error goes to ours).
pub fn output(command: &mut Command) -> anyhow::Result<String> {
    let line = command_line(command);
    let output =
        command.stderr(std::process::Stdio::inherit()).output().with_context(|| format!("cannot run `{line}`"))?;
    if !output.status.success() {
        bail!("`{line}` failed ({})", output.status);
    }
    String::from_utf8(output.stdout).with_context(|| format!("`{line}` printed something that is not UTF-8"))
}

/// Fails with an installation hint when `tool` is not on the PATH.
pub fn require_tool(tool: &str, hint: &str) -> anyhow::Result<()> {
    let found =
        std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()));
    if !found {
        bail!("`{tool}` is not on the PATH; {hint}");
    }
    Ok(())
}

/// The program and its arguments, for messages.
pub fn command_line(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(OsStr::to_string_lossy)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Makes `dir` an empty folder.
pub fn recreate_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}
