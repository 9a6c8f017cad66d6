//! The differential suite as CI runs it: every encoding family, 2,000 random cases each, the reference
//! interpreter against Unicorn. Any difference the ledger does not explain fails the test and prints the cases.

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
    use tandem_diff::ledger::never_generated;
    use tandem_reference::decode::ENCODINGS;

    let mut harness = Harness::new().expect("the harness starts");
    let encodings: Vec<_> = ENCODINGS.iter().filter(|e| !never_generated(e)).collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut mismatches = Vec::new();
    for _ in 0..3000 {
        let length = rng.gen_range(2..=8);
        let code: Vec<u32> =
            (0..length).map(|_| random_word(encodings[rng.gen_range(0..encodings.len())], &mut rng)).collect();
        let state = random_state(harness.layout(), &mut rng);
        if let Verdict::Mismatch(description) = harness.check(&code, &state).expect("the oracle runs") {
            mismatches.push(description);
        }
    }
    assert!(mismatches.is_empty(), "{} blocks differ:\n{}", mismatches.len(), mismatches.join("\n"));
}
