//! `cargo xtask demo`: set up, build Tandem optimised and run its embedded demo on the reference path, writing the
//! frame it shows to `target/demo-frames`.

use crate::setup::{Scope, install};
use crate::util::{cargo, run as run_command};

pub const USAGE: &str =
    "demo                  install what the build needs, build tandem (release) and run its embedded demo";

pub fn run(args: &[String]) -> anyhow::Result<()> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask {USAGE}");
    }
    install(Scope::Build)?;
    // The demo's picture goes through the GPU to the display; Tandem has no window yet, so it is written out.
    let frames = crate::util::project_root().join("target/demo-frames");
    let frames = frames.to_str().ok_or_else(|| anyhow::anyhow!("the project path is not UTF-8"))?;
    run_command(cargo().args([
        "run",
        "--release",
        "--package",
        "tandem",
        "--",
        "run",
        "--headless",
        "--frames",
        frames,
    ]))?;
    println!("The demo's picture, as the display showed it: {frames}/frame-00000.png");
    Ok(())
}
