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
    assert_eq!(report.stray_effects(), 0, "{table}");
    assert!(report.unrecovered().is_empty(), "every action must end as it should:\n{table}");
    // Focus theft: the keys that went to Email were taken back.
    let theft = report.records.iter().find(|r| matches!(r.fault, Fault::FocusTheft(_)));
    assert!(theft.is_some_and(|r| r.stray_undone), "{table}");
    // Hello twice: the second click is reported ok, with one activation.
    let hello: Vec<_> = report.records.iter().filter(|r| r.scenario.contains("Hello twice")).collect();
    assert!(hello.len() == 2 && hello.iter().all(|r| r.reported_ok && r.logged_effects == 1), "{table}");
    // The popup is not recoverable: blocked, said clearly, nothing done.
    let popup: Vec<_> = report.records.iter().filter(|r| !r.recoverable).collect();
    let blocked = popup.iter().all(|r| r.verdict == Verdict::FailedClearly && r.exit_code == Some(5));
    assert!(!popup.is_empty() && blocked, "{table}");
}
