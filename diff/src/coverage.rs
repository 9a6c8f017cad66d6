//! The coverage report: every encoding family of the decode table and how far Tandem trusts it.

use crate::ledger;
use std::fmt::Write as _;
use tandem_reference::decode::{ENCODINGS, FAMILIES};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Implemented, and the differential suite compares it with Unicorn.
    Verified,
    /// Implemented but not compared with an oracle.
    ImplementedOnly,
    /// Not implemented yet: the interpreter stops with "not implemented".
    Missing,
}

pub fn status(family: usize) -> Status {
    let encodings = ENCODINGS.iter().filter(|e| e.family == family);
    if encodings.clone().all(ledger::never_generated) { Status::Missing } else { Status::Verified }
}

/// One line per family, then `families: T, verified: V, implemented-only: I, missing: X`.
pub fn render() -> String {
    let mut out = String::new();
    let mut counts = [0usize; 3];
    for (index, family) in FAMILIES.iter().enumerate() {
        let status = status(index);
        counts[status as usize] += 1;
        let label = match status {
            Status::Verified => "verified (Unicorn)",
            Status::ImplementedOnly => "implemented only",
            Status::Missing => "missing",
        };
        writeln!(out, "{:<22} {:<20} {}", family.name, label, family.title).unwrap();
    }
    let [verified, implemented_only, missing] = counts;
    writeln!(
        out,
        "families: {}, verified: {verified}, implemented-only: {implemented_only}, missing: {missing}",
        FAMILIES.len()
    )
    .unwrap();
    out
}
