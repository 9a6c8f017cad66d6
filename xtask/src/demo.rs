//! `cargo xtask demo`: set up, build Tandem optimised and run its embedded demo on the reference path.

use crate::setup::{Scope, install};
use crate::util::{cargo, run as run_command};

pub const USAGE: &str =
    "demo                  install what the build needs, build tandem (release) and run its embedded demo";

pub fn run(args: &[String]) -> anyhow::Result<()> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask {USAGE}");
    }
    install(Scope::Build)?;
    run_command(cargo().args(["run", "--release", "--package", "tandem", "--", "run"]))
}
