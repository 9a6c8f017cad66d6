//! The differential suite as CI runs it: every encoding family, 2,000 random cases each, the reference
//! interpreter against Unicorn and the fast path against the reference. Any difference the ledger does not explain
//! (and any difference at all between the fast path and the reference) fails the test and prints the cases.

use tandem_diff::a64::{SuiteConfig, run_suite};

#[test]
fn every_family_agrees_with_unicorn() {
    let config = SuiteConfig { examples_per_family: 5, ..SuiteConfig::default() };
    let report = run_suite(&config, |_| {}).expect("the harness starts");
    let rendered = report.render();
    assert!(report.families.iter().all(|family| family.cases >= 2000), "{rendered}");
    assert_eq!(report.mismatches(), 0, "{rendered}");
}

#[test]
fn blocks_of_instructions_agree_with_unicorn() {
    use rand::{Rng, SeedableRng};
    use tandem_diff::a64::{Harness, Verdict};
    use tandem_diff::generate::{random_state, random_word};
    use tandem_reference::decode::ENCODINGS;

    let mut harness = Harness::new().expect("the harness starts");
    let encodings: Vec<_> = ENCODINGS.iter().collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut mismatches = Vec::new();
    for _ in 0..3000 {
        let length = rng.gen_range(2..=8);
        let code: Vec<u32> =
            (0..length).map(|_| random_word(encodings[rng.gen_range(0..encodings.len())], &mut rng)).collect();
        let state = random_state(harness.layout(), &mut rng);
        if let Verdict::Mismatch(description) | Verdict::FastMismatch(description) =
            harness.check(&code, &state).expect("the oracle runs")
        {
            mismatches.push(description);
        }
    }
    assert!(mismatches.is_empty(), "{} blocks differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

/// Load-exclusive / store-exclusive sequences on one address (random words almost never pair them up): the
/// monitor passes, fails on another address or size, and clears, on all three engines.
#[test]
fn exclusive_sequences_agree_with_unicorn() {
    use rand::{Rng, SeedableRng};
    use tandem_diff::a64::{Harness, Verdict};
    use tandem_diff::generate::random_state;

    let mut harness = Harness::new().expect("the harness starts");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x085f_7c00);
    let mut mismatches = Vec::new();
    for _ in 0..2000 {
        let mut state = random_state(harness.layout(), &mut rng);
        let (rn, rt, rs) = (rng.gen_range(0..8u32), rng.gen_range(8..16u32), rng.gen_range(16..24u32));
        let layout = harness.layout();
        state.x[rn as usize] = (layout.data_start + rng.gen_range(0..0x100u64) * 8).min(layout.data_end - 16);
        let (load_size, store_size) =
            (rng.gen_range(0..4u32), if rng.gen_bool(0.8) { 3 } else { rng.gen_range(0..4u32) });
        let acquire = rng.gen_range(0..2u32) << 15;
        let load = 0x085f_7c00 | load_size << 30 | acquire | rn << 5 | rt;
        let add = 0x9100_0400 | rt << 5 | rt; // add xt, xt, #1
        let store_base = if rng.gen_bool(0.8) { rn } else { (rn + 1) % 8 };
        let store = 0x0800_7c00 | store_size << 30 | acquire | rs << 16 | store_base << 5 | rt;
        let code = if rng.gen_bool(0.9) { vec![load, add, store] } else { vec![store] };
        if let Verdict::Mismatch(description) | Verdict::FastMismatch(description) =
            harness.check(&code, &state).expect("the oracle runs")
        {
            mismatches.push(description);
        }
    }
    assert!(mismatches.is_empty(), "{} sequences differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

/// The pointer authentication instructions the suite's random words rarely reach (a random word of the branch
/// register class is almost always unallocated): BRAA ... RETAB, PAC*/AUT*/XPAC* (1 source) and the PAC hints, with
/// random registers, from random states. With the keys disabled they must act as BR, BLR, RET and NOPs, XPAC* as
/// Strip (ledgered: QEMU 5.0 leaves the pointer). PACGA is checked by `unicorn::tests`, LDRAA/LDRAB by the suite.
#[test]
fn pointer_authentication_agrees_with_unicorn() {
    use rand::{Rng, SeedableRng};
    use tandem_diff::a64::{Harness, Verdict};
    use tandem_diff::generate::random_state;

    let mut harness = Harness::new().expect("the harness starts");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xd71f_0800);
    let mut mismatches = Vec::new();
    let register = |rng: &mut rand_chacha::ChaCha8Rng| if rng.gen_bool(0.25) { 31 } else { rng.gen_range(0..31) };
    for _ in 0..4000 {
        let (rn, rm) = (register(&mut rng), register(&mut rng));
        let key_b = rng.gen_range(0..2u32);
        let word = match rng.gen_range(0..5) {
            // BRAA, BRAB, BLRAA, BLRAB: opc = 100x, op3 = 00001M, Rn, Rm.
            0 => 0xd71f_0800 | rng.gen_range(0..2u32) << 21 | key_b << 10 | rn << 5 | rm,
            // BRAAZ, BRABZ, BLRAAZ, BLRABZ: opc = 000x, Rm = 11111.
            1 => 0xd61f_081f | rng.gen_range(0..2u32) << 21 | key_b << 10 | rn << 5,
            // RETAA, RETAB.
            2 => 0xd65f_0bff | key_b << 10,
            // PAC*, AUT*, XPACI, XPACD: opcode 000000 to 010001.
            3 => 0xdac1_0000 | rng.gen_range(0..0b10010u32) << 10 | rn << 5 | rm,
            // XPACLRI, the 1716 forms, the Z and SP forms.
            _ if rng.gen_bool(0.4) => {
                [0xd503_20ff, 0xd503_211f, 0xd503_215f, 0xd503_219f, 0xd503_21df][rng.gen_range(0..5)]
            }
            // PACIAZ, PACIASP, PACIBZ, PACIBSP, AUTIAZ, AUTIASP, AUTIBZ, AUTIBSP.
            _ => 0xd503_231f | rng.gen_range(0..8u32) << 5,
        };
        let state = random_state(harness.layout(), &mut rng);
        if let Verdict::Mismatch(description) | Verdict::FastMismatch(description) =
            harness.check(&[word], &state).expect("the oracle runs")
        {
            mismatches.push(description);
        }
    }
    assert!(mismatches.is_empty(), "{} cases differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

/// `tandem diff coverage` calls a family verified only on Unicorn's word: cases of it compared and agreed, none
/// differed. A family whose sampled cases all differ, or were all explained by the ledger, is implemented only;
/// one with instructions not implemented is partial or missing whatever was compared.
#[test]
fn coverage_calls_verified_only_what_unicorn_agreed_on() {
    use tandem_diff::a64::FamilyReport;
    use tandem_diff::coverage::{Status, render, status_of};

    let report = |cases, mismatches, ledgered, both_undefined| FamilyReport {
        cases,
        mismatches,
        ledgered: [("some-entry", ledgered)].into_iter().collect(),
        both_undefined,
        ..FamilyReport::default()
    };
    assert_eq!(status_of(300, 0, &report(200, 0, 50, 30)), Status::Verified { ran: 120, undefined: 30 });
    assert_eq!(status_of(300, 0, &report(200, 2, 0, 0)), Status::ImplementedOnly { mismatches: 2 });
    // Instructions to run, but every sampled case ledgered or refused by both: nothing shows them right.
    assert_eq!(status_of(300, 0, &report(200, 0, 150, 50)), Status::ImplementedOnly { mismatches: 0 });
    // A family all undefined at EL0 (no probe executed) is right when both engines refuse it.
    assert_eq!(status_of(0, 0, &report(200, 0, 0, 200)), Status::Verified { ran: 0, undefined: 200 });
    assert_eq!(status_of(300, 30, &report(200, 0, 0, 0)), Status::Partial { not_implemented_percent: 10 });
    assert_eq!(status_of(300, 300, &report(200, 0, 0, 0)), Status::Missing);

    // The real table: everything is implemented, nothing differs, and every family's line says how much of it
    // Unicorn saw run.
    let rendered = render(100).expect("the harness starts");
    let families = tandem_reference::decode::FAMILIES.len();
    assert!(
        rendered.ends_with(&format!("families: {families}, verified: {families}, implemented-only: 0, missing: 0\n"))
    );
    let ran = |name: &str| {
        let line = rendered.lines().find(|line| line.starts_with(&format!("{name} "))).expect("a line per family");
        line.split("Unicorn: ").nth(1).and_then(|rest| rest.split(' ').next()).map(|n| n.parse::<u64>().unwrap())
    };
    assert_eq!(ran("add_sub_imm"), Some(100), "{rendered}");
    assert_eq!(ran("reserved"), Some(0), "{rendered}");
}
