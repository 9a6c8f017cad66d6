//! The A64 differential suite: every encoding family of the decode table, random cases, reference vs Unicorn,
//! and the fast path vs the reference (which must agree exactly, ledger or not).

use crate::generate::{random_state, random_word};
use crate::layout::{Layout, PAGE};
use crate::ledger::{self, CaseRecord, LedgerEntry};
use crate::unicorn::{OracleError, OracleStop, UnicornOracle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tandem_fast::{FastEngine, FastError};
use tandem_reference::Interpreter;
use tandem_reference::decode::{ENCODINGS, Encoding, FAMILIES, decode};
use tandem_reference::disasm::disassemble;
use tandem_reference::engine::{Engine, Exit, GuestClock, UndefinedReason};
use tandem_reference::memory::{FaultReason, GuestMemory, MapError};
use tandem_reference::state::CpuState;

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error(transparent)]
    Oracle(#[from] OracleError),
    #[error("setting up guest memory: {0}")]
    Memory(#[from] MapError),
    #[error("no encoding family is called {0:?} (see `tandem diff coverage`)")]
    UnknownFamily(String),
    #[error("starting the fast path: {0}")]
    Fast(#[from] FastError),
}

/// What to run.
#[derive(Clone, Debug)]
pub struct SuiteConfig {
    pub cases_per_family: u64,
    pub seed: u64,
    /// Only these families (all when empty).
    pub families: Vec<String>,
    /// At most this many mismatches are described per family.
    pub examples_per_family: usize,
}

impl Default for SuiteConfig {
    fn default() -> Self {
        SuiteConfig { cases_per_family: 2000, seed: 0x7a4d_e11a, families: Vec::new(), examples_per_family: 3 }
    }
}

/// The outcome of one family.
#[derive(Clone, Debug, Default)]
pub struct FamilyReport {
    pub family: &'static str,
    pub cases: u64,
    pub mismatches: u64,
    /// Cases that differ for a reason the ledger records, by ledger entry.
    pub ledgered: BTreeMap<&'static str, u64>,
    /// Cases both engines refused as undefined (still compared; counted to show how much was executed).
    pub both_undefined: u64,
    /// Cases where the fast path's result differs from the reference's in anything (counted in `mismatches`).
    pub fast_mismatches: u64,
    pub examples: Vec<String>,
}

#[derive(Clone, Debug, Default)]
pub struct SuiteReport {
    pub families: Vec<FamilyReport>,
}

impl SuiteReport {
    pub fn cases(&self) -> u64 {
        self.families.iter().map(|f| f.cases).sum()
    }

    pub fn mismatches(&self) -> u64 {
        self.families.iter().map(|f| f.mismatches).sum()
    }

    pub fn ledgered(&self) -> u64 {
        self.families.iter().flat_map(|f| f.ledgered.values()).sum()
    }

    /// The table and the closing line `families: F, cases: C, mismatches: M`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        writeln!(
            out,
            "{:<22} {:>8} {:>10} {:>9} {:>10} {:>9}",
            "family", "cases", "mismatches", "ledgered", "undefined", "fast!=ref"
        )
        .unwrap();
        for family in &self.families {
            let ledgered: u64 = family.ledgered.values().sum();
            writeln!(
                out,
                "{:<22} {:>8} {:>10} {:>9} {:>10} {:>9}",
                family.family, family.cases, family.mismatches, ledgered, family.both_undefined, family.fast_mismatches
            )
            .unwrap();
        }
        for family in &self.families {
            for (entry, count) in &family.ledgered {
                writeln!(out, "ledger: {} {entry}: {count} cases ({})", family.family, ledger::reason(entry)).unwrap();
            }
            for example in &family.examples {
                writeln!(out, "mismatch: {}: {example}", family.family).unwrap();
            }
        }
        writeln!(out, "families: {}, cases: {}, mismatches: {}", self.families.len(), self.cases(), self.mismatches())
            .unwrap();
        out
    }
}

/// Runs the differential suite; `progress` hears after each family.
pub fn run_suite(config: &SuiteConfig, mut progress: impl FnMut(&FamilyReport)) -> Result<SuiteReport, SuiteError> {
    for name in &config.families {
        if !FAMILIES.iter().any(|f| f.name == name) {
            return Err(SuiteError::UnknownFamily(name.clone()));
        }
    }
    let mut harness = Harness::new()?;
    let mut report = SuiteReport::default();
    for (index, family) in FAMILIES.iter().enumerate() {
        if !config.families.is_empty() && !config.families.iter().any(|f| f == family.name) {
            continue;
        }
        let encodings: Vec<&Encoding> = ENCODINGS.iter().filter(|e| e.family == index).collect();
        let family_report = harness.run_family(family.name, &encodings, config)?;
        progress(&family_report);
        report.families.push(family_report);
    }
    Ok(report)
}

/// The three engines over the same layout, reset to the same memory image before every case. The fast path has
/// memory of its own, so that it starts from the image while the reference's result is still being read.
pub struct Harness {
    layout: Layout,
    memory: GuestMemory,
    interpreter: Interpreter,
    oracle: UnicornOracle,
    fast_memory: GuestMemory,
    fast: FastEngine,
    /// The initial contents of every page of the layout, in `layout.pages()` order.
    image: Vec<(u64, Vec<u8>)>,
}

/// `BRK #0x7a`, filling the code page outside a case's instructions.
const BRK_OUTSIDE_THE_CASE: u32 = 0xd420_0f40;

/// The judgement of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Agree {
        both_undefined: bool,
    },
    /// The engines differ for the reason of this ledger entry.
    Ledgered(&'static str),
    /// The engines differ and nothing explains it: a bug in one of them. The text describes the case.
    Mismatch(String),
    /// The fast path differs from the reference (never ledgered: the reference is its specification).
    FastMismatch(String),
}

/// How an engine's run ended, in terms both engines can express.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stop {
    Completed,
    Svc,
    Brk,
    Undefined,
    /// An alignment fault (Unicorn cannot say the address).
    Alignment,
    Fault {
        access: tandem_reference::Access,
        address: u64,
    },
    Other(u32),
}

impl Stop {
    fn from_reference(exit: Exit) -> Stop {
        match exit {
            Exit::BudgetSpent => Stop::Completed,
            Exit::EngineStopped => Stop::Other(u32::MAX),
            Exit::Svc(_) => Stop::Svc,
            Exit::Brk(_) => Stop::Brk,
            Exit::Undefined { .. } => Stop::Undefined,
            Exit::MemoryFault(fault) if fault.reason == FaultReason::Alignment => Stop::Alignment,
            Exit::MemoryFault(fault) => Stop::Fault { access: fault.access, address: fault.address },
        }
    }

    fn from_oracle(stop: OracleStop) -> Stop {
        match stop {
            OracleStop::Completed => Stop::Completed,
            OracleStop::Svc => Stop::Svc,
            OracleStop::Brk => Stop::Brk,
            OracleStop::Undefined => Stop::Undefined,
            OracleStop::DataAbort => Stop::Alignment,
            OracleStop::Fault { access, address } => Stop::Fault { access, address },
            OracleStop::Other(code) => Stop::Other(code),
        }
    }
}

/// One engine's result for a case.
#[derive(Clone, Debug)]
pub struct EngineResult {
    pub stop: Stop,
    /// Why the reference refused an instruction (the oracle does not say).
    pub undefined_reason: Option<UndefinedReason>,
    /// The exact exit, for our own engines (the oracle's is only as precise as `stop`).
    pub exit: Option<Exit>,
    pub state: CpuState,
    /// (page address, contents) of every page that differs from the image.
    pub changed_pages: Vec<(u64, Vec<u8>)>,
}

impl EngineResult {
    fn from_run(exit: Exit, state: CpuState, changed_pages: Vec<(u64, Vec<u8>)>) -> EngineResult {
        let undefined_reason = match exit {
            Exit::Undefined { reason, .. } => Some(reason),
            _ => None,
        };
        EngineResult { stop: Stop::from_reference(exit), undefined_reason, exit: Some(exit), state, changed_pages }
    }
}

impl Harness {
    pub fn new() -> Result<Harness, SuiteError> {
        let layout = Layout::standard();
        let mut memory = GuestMemory::new()?;
        layout.map_into(&mut memory)?;
        let mut fast_memory = GuestMemory::new()?;
        layout.map_into(&mut fast_memory)?;
        let oracle = UnicornOracle::new(&layout)?;
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_1a40);
        // Data pages hold random bytes. The code page holds BRK #0x7a around the case's instructions, so that a
        // branch out of a block stops both engines the same way instead of running whatever bytes lie there.
        let image = layout
            .pages()
            .map(|page| {
                let mut bytes = vec![0u8; PAGE as usize];
                if page == layout.code {
                    bytes.chunks_mut(4).for_each(|word| word.copy_from_slice(&BRK_OUTSIDE_THE_CASE.to_le_bytes()));
                } else {
                    rand::Rng::fill(&mut rng, &mut bytes[..]);
                }
                (page, bytes)
            })
            .collect();
        let fast = FastEngine::with_defaults()?.compiling_at_first_use();
        let mut harness =
            Harness { layout, memory, interpreter: Interpreter::default(), oracle, fast_memory, fast, image };
        harness.reset_pages(None)?;
        Ok(harness)
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Restores pages from the image in both engines: the listed ones, or all.
    fn reset_pages(&mut self, pages: Option<&[u64]>) -> Result<(), SuiteError> {
        for (address, bytes) in &self.image {
            if pages.is_some_and(|pages| !pages.contains(address)) {
                continue;
            }
            self.memory.write_privileged(*address, bytes).expect("layout pages are mapped");
            self.fast_memory.write_privileged(*address, bytes).expect("layout pages are mapped");
            self.oracle.write_memory(*address, bytes)?;
        }
        Ok(())
    }

    /// Runs `code` from `state` for `count` instructions on the fast path (its memory restored afterwards).
    pub fn run_fast(&mut self, code: &[u32], state: &CpuState, count: u64) -> EngineResult {
        self.fast.invalidate(self.layout.code, PAGE);
        run_alone(&mut self.fast, &self.fast_memory, &self.image, self.layout.code, code, state, count)
    }

    /// Runs `code` from `state` for `count` instructions on both engines and returns both results. Memory is
    /// restored to the image afterwards.
    pub fn run_both(
        &mut self,
        code: &[u32],
        state: &CpuState,
        count: u64,
    ) -> Result<(EngineResult, EngineResult), SuiteError> {
        let code_bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.memory.write_privileged(self.layout.code, &code_bytes).expect("the code page is mapped");
        self.oracle.write_memory(self.layout.code, &code_bytes)?;

        let mut reference_state = state.clone();
        let run = self.interpreter.run(&mut reference_state, &self.memory, count, GuestClock::default());
        let mut oracle_state = state.clone();
        let (oracle_stop, oracle_written) = self.oracle.run(&mut oracle_state, count as usize)?;

        let code_page = self.layout.code;
        let mut reference_changed = Vec::new();
        let mut oracle_changed = Vec::new();
        let mut dirty = Vec::new();
        let mut page = vec![0u8; PAGE as usize];
        for (address, initial) in &self.image {
            let address = *address;
            let expected = if address == code_page { patched(initial, &code_bytes) } else { initial.clone() };
            self.memory.read_privileged(address, &mut page).expect("layout pages are mapped");
            let reference_dirty = page != expected;
            if reference_dirty {
                reference_changed.push((address, page.clone()));
            }
            let oracle_wrote = oracle_written.contains(&address);
            if oracle_wrote {
                self.oracle.read_memory(address, &mut page)?;
                if page != expected {
                    oracle_changed.push((address, page.clone()));
                }
            }
            if reference_dirty || oracle_wrote || address == code_page {
                dirty.push(address);
            }
        }
        self.reset_pages(Some(&dirty))?;
        Ok((
            EngineResult::from_run(run.exit, reference_state, reference_changed),
            EngineResult {
                stop: Stop::from_oracle(oracle_stop),
                undefined_reason: None,
                exit: None,
                state: oracle_state,
                changed_pages: oracle_changed,
            },
        ))
    }

    fn run_family(
        &mut self,
        family: &'static str,
        encodings: &[&Encoding],
        config: &SuiteConfig,
    ) -> Result<FamilyReport, SuiteError> {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ fnv1a(family));
        let mut report = FamilyReport { family, ..FamilyReport::default() };
        for _ in 0..config.cases_per_family {
            let encoding = encodings[rand::Rng::gen_range(&mut rng, 0..encodings.len())];
            let state = random_state(&self.layout, &mut rng);
            let word = self.pick_word(encoding, &state, &mut rng);
            report.cases += 1;
            match self.check(&[word], &state)? {
                Verdict::Agree { both_undefined } => report.both_undefined += u64::from(both_undefined),
                Verdict::Ledgered(id) => *report.ledgered.entry(id).or_default() += 1,
                Verdict::Mismatch(description) => {
                    report.mismatches += 1;
                    if report.examples.len() < config.examples_per_family {
                        report.examples.push(description);
                    }
                }
                Verdict::FastMismatch(description) => {
                    report.mismatches += 1;
                    report.fast_mismatches += 1;
                    if report.examples.len() < config.examples_per_family {
                        report.examples.push(format!("fast path vs reference: {description}"));
                    }
                }
            }
        }
        Ok(report)
    }

    /// Runs `code` (at most `code.len()` instructions) from `state` on both engines and judges the outcome. When
    /// a block differs, it finds the first instruction after which the engines disagree and judges that one.
    pub fn check(&mut self, code: &[u32], state: &CpuState) -> Result<Verdict, SuiteError> {
        if let Some(description) = self.check_fast(code, state) {
            return Ok(Verdict::FastMismatch(description));
        }
        if code.iter().any(|&word| ledger::oracle_must_not_run(word, || self.reference_refuses(word, state))) {
            return Ok(Verdict::Ledgered(ledger::ORACLE_NOT_ASKED));
        }
        let count = code.len() as u64;
        let (reference, oracle) = self.run_both(code, state, count)?;
        if differences(&reference, &oracle, Compared::WhatTheOracleHolds).is_empty() {
            let both_undefined = reference.stop == Stop::Undefined && oracle.stop == Stop::Undefined;
            return Ok(Verdict::Agree { both_undefined });
        }
        // The first prefix that differs; the state both agree on before it.
        let mut before = state.clone();
        for length in 1..=count {
            let (reference, oracle) = self.run_both(code, state, length)?;
            let differences = differences(&reference, &oracle, Compared::WhatTheOracleHolds);
            if differences.is_empty() {
                before = reference.state;
                continue;
            }
            let offset = before.pc.wrapping_sub(self.layout.code);
            let word = code.get((offset / 4) as usize).copied().filter(|_| offset.is_multiple_of(4));
            let Some(word) = word else {
                return Ok(Verdict::Mismatch(format!(
                    "after leaving the block at {:#x}: {}",
                    before.pc,
                    differences.join("; ")
                )));
            };
            let unpredictable =
                self.interpreter.last_unpredictable.filter(|(pc, _)| *pc == before.pc).map(|(_, case)| case);
            let record = CaseRecord { word, state: &before, reference: &reference, oracle: &oracle, unpredictable };
            return Ok(match ledger::classify(&record) {
                Some(LedgerEntry { id, .. }) => Verdict::Ledgered(id),
                None if code.len() == 1 => Verdict::Mismatch(describe(word, &before, &differences)),
                None => Verdict::Mismatch(format!(
                    "instruction {} of the block {}:\n{}",
                    length,
                    code.iter().map(|w| format!("{w:#010x}")).collect::<Vec<_>>().join(" "),
                    describe(word, &before, &differences)
                )),
            });
        }
        Ok(Verdict::Mismatch(format!(
            "the whole block differs but no prefix does: {}",
            differences(&reference, &oracle, Compared::WhatTheOracleHolds).join("; ")
        )))
    }

    /// Runs `code` on the fast path and on the reference; when they differ in anything (exit, state, memory),
    /// describes the first instruction after which they do.
    pub fn check_fast(&mut self, code: &[u32], state: &CpuState) -> Option<String> {
        let count = code.len() as u64;
        let mut before = state.clone();
        for length in 1..=count {
            let reference = self.run_reference(code, state, length);
            let fast = self.run_fast(code, state, length);
            let mut differences = differences(&reference, &fast, Compared::Everything);
            if reference.exit != fast.exit {
                differences.push(format!("exit: {:?} vs {:?}", reference.exit, fast.exit));
            }
            if differences.is_empty() {
                before = reference.state;
                if reference.stop != Stop::Completed {
                    break;
                }
                continue;
            }
            let offset = before.pc.wrapping_sub(self.layout.code);
            let word = code.get((offset / 4) as usize).copied().unwrap_or(BRK_OUTSIDE_THE_CASE);
            let listing = self.fast_listing(code, before.pc);
            return Some(format!(
                "instruction {length} of the block {} (reference vs fast):\n{}\n{listing}",
                code.iter().map(|w| format!("{w:#010x}")).collect::<Vec<_>>().join(" "),
                describe(word, &before, &differences)
            ));
        }
        None
    }

    /// The fast path's listing (Cranelift IR and host code) of the block at `pc` of `code`.
    fn fast_listing(&mut self, code: &[u32], pc: u64) -> String {
        let code_bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.fast_memory.write_privileged(self.layout.code, &code_bytes).expect("the code page is mapped");
        let listing = self.fast.listing(&self.fast_memory, pc).unwrap_or_else(|| "(not lifted)".into());
        let (_, initial) = self.image.iter().find(|(page, _)| *page == self.layout.code).expect("the code page");
        self.fast_memory.write_privileged(self.layout.code, initial).expect("the code page is mapped");
        listing
    }

    /// Runs `code` on the reference alone (its memory restored afterwards).
    fn run_reference(&mut self, code: &[u32], state: &CpuState, count: u64) -> EngineResult {
        run_alone(&mut self.interpreter, &self.memory, &self.image, self.layout.code, code, state, count)
    }

    /// A word of `encoding`; three times in four, one the reference does not refuse as unallocated (so that most
    /// cases execute something), the fourth left as drawn (so that undefined encodings are compared too).
    fn pick_word(&mut self, encoding: &Encoding, state: &CpuState, rng: &mut ChaCha8Rng) -> u32 {
        let mut word = random_word(encoding, rng);
        if rand::Rng::gen_bool(rng, 0.25) {
            return word;
        }
        // Some encodings are sparse (FCMP has 4 allocated op/opcode2 values in 128): draw long enough to find one.
        for _ in 0..64 {
            if !self.reference_refuses(word, state) {
                break;
            }
            word = random_word(encoding, rng);
        }
        word
    }

    fn reference_refuses(&mut self, word: u32, state: &CpuState) -> bool {
        if decode(word).is_none() {
            return true;
        }
        self.memory.write_privileged(self.layout.code, &word.to_le_bytes()).expect("the code page is mapped");
        let mut probe = state.clone();
        let run = self.interpreter.run(&mut probe, &self.memory, 1, GuestClock::default());
        let refused = matches!(
            run.exit,
            Exit::Undefined { reason: UndefinedReason::Unallocated | UndefinedReason::NotAtEl0, .. }
        );
        if !refused {
            // The probe may have stored; put the reference's pages back (the oracle did not run).
            for (address, bytes) in &self.image {
                self.memory.write_privileged(*address, bytes).expect("layout pages are mapped");
            }
        }
        refused
    }
}

/// Runs `code` (written at `code_page`) from `state` for `count` instructions on `engine` over `memory`, and puts
/// every page back to `image` afterwards.
fn run_alone(
    engine: &mut dyn Engine,
    memory: &GuestMemory,
    image: &[(u64, Vec<u8>)],
    code_page: u64,
    code: &[u32],
    state: &CpuState,
    count: u64,
) -> EngineResult {
    let code_bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write_privileged(code_page, &code_bytes).expect("the code page is mapped");
    let mut final_state = state.clone();
    let run = engine.run(&mut final_state, memory, count, GuestClock::default());
    let mut changed = Vec::new();
    let mut page = vec![0u8; PAGE as usize];
    for (address, initial) in image {
        let expected = if *address == code_page { patched(initial, &code_bytes) } else { initial.clone() };
        memory.read_privileged(*address, &mut page).expect("layout pages are mapped");
        if page != expected {
            changed.push((*address, page.clone()));
        }
        if page != *initial {
            memory.write_privileged(*address, initial).expect("layout pages are mapped");
        }
    }
    EngineResult::from_run(run.exit, final_state, changed)
}

fn patched(initial: &[u8], code: &[u8]) -> Vec<u8> {
    let mut page = initial.to_vec();
    page[..code.len()].copy_from_slice(code);
    page
}

/// Which parts of the CPU state a comparison covers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compared {
    /// What Unicorn holds and reports: everything but TPIDRRO_EL0 (the kernel's) and the exclusive monitor.
    WhatTheOracleHolds,
    /// Every field: two engines of ours (the fast path and the reference) must agree on all of it.
    Everything,
}

/// Field-by-field differences between two CPU states, as "what: first vs second".
pub fn cpu_differences(a: &CpuState, b: &CpuState, compared: Compared) -> Vec<String> {
    let mut out = Vec::new();
    for (n, (x, y)) in a.x.iter().zip(&b.x).enumerate() {
        if x != y {
            out.push(format!("x{n}: {x:#x} vs {y:#x}"));
        }
    }
    for (n, (x, y)) in a.v.iter().zip(&b.v).enumerate() {
        if x != y {
            out.push(format!("v{n}: {x:#034x} vs {y:#034x}"));
        }
    }
    let mut scalars = vec![
        ("sp", a.sp, b.sp),
        ("pc", a.pc, b.pc),
        ("nzcv", u64::from(a.nzcv), u64::from(b.nzcv)),
        ("ssbs", u64::from(a.ssbs), u64::from(b.ssbs)),
        ("fpcr", u64::from(a.fpcr), u64::from(b.fpcr)),
        ("fpsr", u64::from(a.fpsr), u64::from(b.fpsr)),
        ("tpidr_el0", a.tpidr_el0, b.tpidr_el0),
    ];
    if compared == Compared::Everything {
        scalars.extend([
            ("tpidrro_el0", a.tpidrro_el0, b.tpidrro_el0),
            ("exclusive.address", a.exclusive.address, b.exclusive.address),
            ("exclusive.size", a.exclusive.size, b.exclusive.size),
        ]);
    }
    for (name, x, y) in scalars {
        if x != y {
            out.push(format!("{name}: {x:#x} vs {y:#x}"));
        }
    }
    out
}

/// Differences between two engines' results (stop, CPU state, changed pages), as "what: first vs second".
pub fn differences(reference: &EngineResult, oracle: &EngineResult, compared: Compared) -> Vec<String> {
    let mut out = Vec::new();
    if reference.stop != oracle.stop {
        out.push(format!("stop: {:?} vs {:?}", reference.stop, oracle.stop));
    }
    out.extend(cpu_differences(&reference.state, &oracle.state, compared));
    // Page address -> (reference bytes, oracle bytes), for the pages either engine changed.
    type ChangedPages<'a> = BTreeMap<u64, (Option<&'a Vec<u8>>, Option<&'a Vec<u8>>)>;
    let pages: ChangedPages = {
        let mut pages = BTreeMap::new();
        for (address, bytes) in &reference.changed_pages {
            pages.entry(*address).or_insert((None, None)).0 = Some(bytes);
        }
        for (address, bytes) in &oracle.changed_pages {
            pages.entry(*address).or_insert((None, None)).1 = Some(bytes);
        }
        pages
    };
    for (address, (x, y)) in pages {
        match (x, y) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => {
                let at = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0);
                out.push(format!("memory {:#x}: {:#04x} vs {:#04x}", address + at as u64, x[at], y[at]));
            }
            (Some(_), None) => out.push(format!("memory page {address:#x}: written by the reference only")),
            (None, Some(_)) => out.push(format!("memory page {address:#x}: written by the oracle only")),
            (None, None) => {}
        }
    }
    out
}

fn describe(word: u32, state: &CpuState, differences: &[String]) -> String {
    let registers: Vec<String> = state.x.iter().enumerate().map(|(n, x)| format!("x{n}={x:#x}")).collect();
    format!(
        "{word:#010x} `{}` nzcv={:#x} sp={:#x} {}\n    {}",
        disassemble(word, state.pc),
        state.nzcv >> 28,
        state.sp,
        registers.join(" "),
        differences.join("\n    ")
    )
}

/// FNV-1a, to derive a stable per-family seed from its name.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3))
}
