//! `tandem diff`: the differential suites.

use clap::Subcommand;
use std::io::IsTerminal;
use std::process::ExitCode;
use tandem_diff::a64::{SuiteConfig, run_suite};

#[derive(Subcommand)]
pub enum DiffCommand {
    /// Every encoding family of the decode table: verified against Unicorn, implemented only, or missing.
    Coverage,
    /// Every A64 encoding family, reference interpreter against Unicorn, from random states.
    A64 {
        /// Cases per family.
        #[arg(long, default_value_t = 2000)]
        cases: u64,
        /// Seed of the case generator (the same seed gives the same cases).
        #[arg(long, default_value_t = SuiteConfig::default().seed)]
        seed: u64,
        /// Only these families (repeatable).
        #[arg(long = "family")]
        families: Vec<String>,
        /// Mismatching cases described per family.
        #[arg(long, default_value_t = 3)]
        examples: usize,
    },
}

pub fn run(command: DiffCommand) -> anyhow::Result<ExitCode> {
    match command {
        DiffCommand::Coverage => {
            print!("{}", tandem_diff::coverage::render()?);
            Ok(ExitCode::SUCCESS)
        }
        DiffCommand::A64 { cases, seed, families, examples } => {
            let config = SuiteConfig { cases_per_family: cases, seed, families, examples_per_family: examples };
            // Long runs show progress on a terminal; pipes and CI logs get only the table.
            let show_progress = std::io::stderr().is_terminal();
            let report = run_suite(&config, |family| {
                tracing::info!(
                    family = family.family,
                    cases = family.cases,
                    mismatches = family.mismatches,
                    "family done"
                );
                if show_progress {
                    eprint!("\r\x1b[K{}: {} cases, {} mismatches", family.family, family.cases, family.mismatches);
                }
            })?;
            if show_progress {
                eprint!("\r\x1b[K");
            }
            print!("{}", report.render());
            Ok(if report.mismatches() == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}
