//! The coverage report: every encoding family of the decode table and how far Tandem trusts it.
//!
//! A family's status comes from probing the reference itself: random words of each of its encodings are executed
//! from random states, and any that stops as "not implemented" makes the family incomplete. Families the
//! differential suite compares with Unicorn, and that are complete, are verified.

use crate::generate::{random_state, random_word};
use crate::layout::Layout;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use tandem_reference::Interpreter;
use tandem_reference::decode::{ENCODINGS, FAMILIES};
use tandem_reference::engine::{Engine, Exit, GuestClock, UndefinedReason};
use tandem_reference::memory::{GuestMemory, MapError};

/// Words probed per encoding (random fields, so many are unallocated and do not count).
const PROBES: usize = 300;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Implemented, and the differential suite compares it with Unicorn.
    Verified,
    /// Implemented but not compared with an oracle.
    ImplementedOnly,
    /// Some of its instructions (`Partial`) or all of them stop as "not implemented".
    Partial {
        not_implemented_percent: u32,
    },
    Missing,
}

/// The status of every family, in table order.
pub fn statuses() -> Result<Vec<Status>, MapError> {
    let layout = Layout::standard();
    let mut memory = GuestMemory::new()?;
    layout.map_into(&mut memory)?;
    let mut interpreter = Interpreter::default();
    let mut rng = ChaCha8Rng::seed_from_u64(0xc0de);
    let statuses = (0..FAMILIES.len())
        .map(|family| {
            // Probes that reached an instruction (not refused as unallocated), and those that stopped as not
            // implemented.
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
            match not_implemented {
                0 => Status::Verified,
                n if n == executed => Status::Missing,
                n => Status::Partial { not_implemented_percent: (n * 100).div_ceil(executed) },
            }
        })
        .collect();
    Ok(statuses)
}

/// One line per family, then `families: T, verified: V, implemented-only: I, missing: X` (families with any
/// instruction not implemented count as missing; the lines say which are partly done).
pub fn render() -> Result<String, MapError> {
    let mut out = String::new();
    let (mut verified, mut implemented_only, mut missing) = (0, 0, 0);
    for (family, status) in FAMILIES.iter().zip(statuses()?) {
        let label = match status {
            Status::Verified => {
                verified += 1;
                "verified (Unicorn)".to_string()
            }
            Status::ImplementedOnly => {
                implemented_only += 1;
                "implemented only".to_string()
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
        writeln!(out, "{:<32} {:<26} {}", family.name, label, family.title).unwrap();
    }
    writeln!(
        out,
        "families: {}, verified: {verified}, implemented-only: {implemented_only}, missing: {missing}",
        FAMILIES.len()
    )
    .unwrap();
    Ok(out)
}
