//! The reduced fault campaign (`cargo xtask bench faults` runs the full one): every fault
//! of the fixture app once, agent-cli with `--verify`, judged by the app's ground-truth log,
//! on the GTK3 app and on each of its ports (GTK 4, Qt 5, Qt 6, Chromium, Firefox).

use std::path::PathBuf;

use deft_harness::Desktop;
use deft_harness::campaign::{self, Driver, Fault, Report, Verdict};
use deft_harness::fixture::Toolkit;

use super::BIN;

fn run_on(toolkit: Toolkit) -> (Report, String) {
    let _alone = super::beside_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let driver = Driver::AgentCli { binary: PathBuf::from(BIN), verify: true };
    let scenarios = campaign::on_toolkit(campaign::fault_scenarios(), toolkit);
    let report = campaign::run(&desktop, &scenarios, &driver)
        .unwrap_or_else(|e| panic!("the campaign could not run on {toolkit:?}: {e}"));
    let table = format!("{}\n{}", report.markdown(), report.failures_markdown());
    println!("{}:\n{table}", toolkit.label());
    deft_harness::evidence::record(&report, "X11").unwrap_or_else(|e| panic!("recording the evidence: {e}"));
    (report, table)
}

#[test]
fn every_fault_once_no_silent_failure_no_double_effect() {
    let (report, table) = run_on(Toolkit::Gtk3);
    assert_eq!(report.silent_failures(), 0, "{table}");
    assert_eq!(report.double_effects(), 0, "{table}");
    assert_eq!(report.stray_effects(), 0, "{table}");
    assert!(report.unrecovered().is_empty(), "every action must end as it should:\n{table}");
    assert!(report.crashed_or_frozen().is_empty(), "{table}");
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

/// A port of the fixture app: every action ends as it should (each recoverable fault
/// recovered, the popup failed clearly), with no silent failure, double or stray effect,
/// and no app crashed or frozen. The causes of what once failed here, per toolkit, are in
/// docs/BENCHMARKS.md ("Fault campaign per toolkit").
fn port(toolkit: Toolkit) {
    let (report, table) = run_on(toolkit);
    ends_right(&report, &table, &format!("{toolkit:?}"));
}

/// Every action of `report` ended as it should, with no silent failure, double or stray
/// effect, and no app crashed or frozen (`what` names the run in messages).
pub(super) fn ends_right(report: &Report, table: &str, what: &str) {
    assert!(report.crashed_or_frozen().is_empty(), "{what}: apps crashed or froze:\n{table}");
    assert_eq!(report.silent_failures(), 0, "{what}:\n{table}");
    assert_eq!(report.double_effects(), 0, "{what}:\n{table}");
    assert_eq!(report.stray_effects(), 0, "{what}:\n{table}");
    let unrecovered: Vec<String> =
        report.unrecovered().iter().map(|r| format!("{} ({})", r.scenario, r.verdict.label())).collect();
    assert!(unrecovered.is_empty(), "{what}: actions that did not end as they should: {unrecovered:?}\n{table}");
}

#[test]
fn every_fault_once_on_gtk4() {
    port(Toolkit::Gtk4);
}

#[test]
fn every_fault_once_on_qt5() {
    port(Toolkit::Qt5);
}

#[test]
fn every_fault_once_on_qt6() {
    port(Toolkit::Qt6);
}

#[test]
fn every_fault_once_on_chromium() {
    port(Toolkit::Chromium);
}

#[test]
fn every_fault_once_on_firefox() {
    port(Toolkit::Firefox);
}
