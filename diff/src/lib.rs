//! Tandem's differential harness: the Unicorn oracle, random cases drawn from the decode table, the ledger of
//! explained differences, and the reports `tandem diff` prints.
//!
//! Architecture invariant: the harness judges engines only by what they return through `Engine::run` and guest
//! memory; it never looks inside an engine.

pub mod a64;
pub mod coverage;
pub mod generate;
pub mod layout;
pub mod ledger;
pub mod lockstep;
pub mod unicorn;
pub mod unicorn_engine;
