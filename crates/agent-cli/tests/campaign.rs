//! The reduced fault campaign (`cargo xtask bench faults` runs the full one): every fault
//! of the fixture app once, agent-cli with `--verify`, judged by the app's ground-truth log.

use std::path::PathBuf;

use deft_harness::Desktop;
use deft_harness::campaign::{self, Driver, Fault, Verdict};

use super::BIN;

#[test]
fn every_fault_once_no_silent_failure_no_double_effect() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let driver = Driver::AgentCli { binary: PathBuf::from(BIN), verify: true };
    let report = campaign::run(&desktop, &campaign::fault_scenarios(), &driver)
        .unwrap_or_else(|e| panic!("the campaign could not run: {e}"));
    let table = format!("{}\n{}", report.markdown(), report.failures_markdown());
    println!("{table}");
    assert_eq!(report.silent_failures(), 0, "{table}");
    assert_eq!(report.double_effects(), 0, "{table}");
    for r in report.unrecovered() {
        // Known gap: after focus theft agent-cli sets the right field, but the stolen
        // keystrokes stay in Email (docs/BENCHMARKS.md, "Fault campaign").
        let known = matches!(r.fault, Fault::FocusTheft(_)) && r.verdict == Verdict::StrayEffect;
        assert!(known, "every action must end as it should ({r:?}):\n{table}");
    }
    // The popup is not recoverable: blocked, said clearly, nothing done.
    let popup: Vec<_> = report.records.iter().filter(|r| !r.recoverable).collect();
    let blocked = popup.iter().all(|r| r.verdict == Verdict::FailedClearly && r.exit_code == Some(5));
    assert!(!popup.is_empty() && blocked, "{table}");
}
