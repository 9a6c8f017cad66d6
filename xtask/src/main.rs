//! `cargo xtask`: the project's chores, one module per subcommand (matklad's cargo-xtask pattern).
//!
//! This file only dispatches. To add a subcommand, write a module with `pub fn run(args: &[String]) ->
//! anyhow::Result<()>` and a `USAGE` line, and add one entry to [`COMMANDS`].

mod demo;
mod programs;
mod sass;
mod setup;
mod test;
mod util;

use std::process::ExitCode;

/// A subcommand: its name, a one-line usage for `cargo xtask help`, and its entry point (given the arguments after
/// the name).
struct Subcommand {
    name: &'static str,
    usage: &'static str,
    run: fn(&[String]) -> anyhow::Result<()>,
}

const COMMANDS: &[Subcommand] = &[
    Subcommand { name: "setup", usage: setup::USAGE, run: setup::run },
    Subcommand { name: "demo", usage: demo::USAGE, run: demo::run },
    Subcommand { name: "test", usage: test::USAGE, run: test::run },
    Subcommand { name: "programs", usage: programs::USAGE, run: programs::run },
    Subcommand { name: "sass", usage: sass::USAGE, run: sass::run },
];

fn print_help() {
    eprintln!("usage: cargo xtask <command> [arguments]\n\ncommands:");
    for command in COMMANDS {
        eprintln!("  {}", command.usage);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, rest)) = args.split_first() else {
        print_help();
        return ExitCode::FAILURE;
    };
    if matches!(name.as_str(), "help" | "-h" | "--help") {
        print_help();
        return ExitCode::SUCCESS;
    }
    let Some(command) = COMMANDS.iter().find(|c| c.name == name) else {
        eprintln!("error: unknown command {name:?}\n");
        print_help();
        return ExitCode::FAILURE;
    };
    match (command.run)(rest) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
