//! The coverage report: every encoding family of the decode table and how far Tandem trusts it.
//!
//! A family's status comes from two runs. Probing the reference: random words of each of its encodings are
//! executed from random states, and any that stops as "not implemented" makes the family incomplete. Then the
//! differential suite (`a64`) on a sample of the family's cases: a complete family is verified when nothing
//! mismatched and Unicorn agreed on cases it was asked (not the ones the ledger explains, where Unicorn is known to
//! be wrong or is not asked: `status_of` says which agreements count); otherwise it is implemented only.

use crate::a64::{FamilyReport, SuiteConfig, SuiteError, run_suite};
use crate::generate::{random_state, random_word};
use crate::layout::Layout;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use tandem_reference::Interpreter;
use tandem_reference::decode::{ENCODINGS, FAMILIES};
use tandem_reference::engine::{Engine, Exit, GuestClock, UndefinedReason};
use tandem_reference::memory::GuestMemory;

/// Words probed per encoding (random fields, so many are unallocated and do not count).
const PROBES: usize = 300;

/// Differential cases per family that `tandem diff coverage` runs unless told otherwise.
pub const DEFAULT_CASES: u64 = 200;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Implemented, and Unicorn agreed on the sampled cases it was asked: `ran` executed an instruction,
    /// `undefined` were refused by both (none mismatched).
    Verified {
        ran: u64,
        undefined: u64,
    },
    /// Implemented, but not shown right by Unicorn: `mismatches` cases differed (none was compared when it is 0).
    ImplementedOnly {
        mismatches: u64,
    },
    /// Some of its instructions (`Partial`) or all of them stop as "not implemented".
    Partial {
        not_implemented_percent: u32,
    },
    Missing,
}

/// What decides a family's status: its probes (`executed` reached an instruction, `not_implemented` of them
/// stopped as not implemented) and its differential report. Agreeing that words are undefined shows a family
/// right only where the probes found nothing to execute (UDF, or system instructions that EL0 may not use); a
/// family with instructions to run needs Unicorn's agreement on some that ran.
pub fn status_of(executed: u32, not_implemented: u32, report: &FamilyReport) -> Status {
    let ledgered: u64 = report.ledgered.values().sum();
    let ran = report.cases.saturating_sub(report.mismatches + ledgered + report.both_undefined);
    let undefined = report.both_undefined;
    match not_implemented {
        0 if report.mismatches == 0 && (ran > 0 || (executed == 0 && undefined > 0)) => {
            Status::Verified { ran, undefined }
        }
        0 => Status::ImplementedOnly { mismatches: report.mismatches },
        n if n == executed => Status::Missing,
        n => Status::Partial { not_implemented_percent: (n * 100).div_ceil(executed) },
    }
}

/// The status of every family, in table order, from `cases` differential cases each.
pub fn statuses(cases: u64) -> Result<Vec<Status>, SuiteError> {
    let probes = probe_families()?;
    let config = SuiteConfig { cases_per_family: cases, examples_per_family: 0, ..SuiteConfig::default() };
    let suite = run_suite(&config, |_| {})?;
    Ok(probes
        .iter()
        .zip(&suite.families)
        .map(|(&(executed, not_implemented), report)| status_of(executed, not_implemented, report))
        .collect())
}

/// For each family, the probes that reached an instruction (not refused as unallocated) and those of them that
/// stopped as not implemented.
fn probe_families() -> Result<Vec<(u32, u32)>, SuiteError> {
    let layout = Layout::standard();
    let mut memory = GuestMemory::new()?;
    layout.map_into(&mut memory)?;
    let mut interpreter = Interpreter::default();
    let mut rng = ChaCha8Rng::seed_from_u64(0xc0de);
    let probes = (0..FAMILIES.len())
        .map(|family| {
            let (mut executed, mut not_implemented) = (0u32, 0u32);
            for encoding in ENCODINGS.iter().filter(|e| e.family == family) {
                for _ in 0..PROBES {
                    let word = random_word(encoding, &mut rng);
                    let mut state = random_state(&layout, &mut rng);
                    // Probes may store anywhere in the layout; nothing reads the contents back.
                    let _ = memory.write_privileged(layout.code, &word.to_le_bytes());
                    let run = interpreter.run(&mut state, &memory, 1, GuestClock::default());
                    match run.exit {
                        Exit::Undefined {
                            reason: UndefinedReason::Unallocated | UndefinedReason::NotAtEl0, ..
                        } => {}
                        Exit::Undefined { reason: UndefinedReason::NotImplemented(_), .. } => {
                            executed += 1;
                            not_implemented += 1;
                        }
                        _ => executed += 1,
                    }
                }
            }
            (executed, not_implemented)
        })
        .collect();
    Ok(probes)
}

/// One line per family, then `families: T, verified: V, implemented-only: I, missing: X` (families with any
/// instruction not implemented count as missing; the lines say which are partly done), from `cases`
/// differential cases a family.
pub fn render(cases: u64) -> Result<String, SuiteError> {
    let mut out = String::new();
    let (mut verified, mut implemented_only, mut missing) = (0, 0, 0);
    for (family, status) in FAMILIES.iter().zip(statuses(cases)?) {
        let label = match status {
            Status::Verified { ran, undefined } => {
                verified += 1;
                format!("verified (Unicorn: {ran} ran, {undefined} UNDEF)")
            }
            Status::ImplementedOnly { mismatches: 0 } => {
                implemented_only += 1;
                "implemented (none compared)".to_string()
            }
            Status::ImplementedOnly { mismatches } => {
                implemented_only += 1;
                format!("implemented ({mismatches} differ)")
            }
            Status::Partial { not_implemented_percent } => {
                missing += 1;
                format!("partial ({not_implemented_percent}% not impl.)")
            }
            Status::Missing => {
                missing += 1;
                "missing".to_string()
            }
        };
        writeln!(out, "{:<32} {:<38} {}", family.name, label, family.title).unwrap();
    }
    writeln!(
        out,
        "families: {}, verified: {verified}, implemented-only: {implemented_only}, missing: {missing}",
        FAMILIES.len()
    )
    .unwrap();
    Ok(out)
}
