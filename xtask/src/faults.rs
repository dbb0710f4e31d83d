//! `cargo xtask bench faults`: the fault campaign. agent-cli (release, `--verify`) and the
//! open-loop baseline (xdotool plus a fixed sleep) run the same scenarios on one headless
//! desktop in one run: every fault of the fixture app, then a mixed random run (fixed seed,
//! at least 200 actions). Every action is judged by the app's ground-truth log
//! (`deft_harness::campaign`). The tables go to stdout and to `target/faults-report.md`.

use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::campaign::{self, Driver, Report, Scenario};

use crate::{root, run_step};

/// The mixed run's seed and size.
const SEED: u64 = 42;
const MIN_ACTIONS: usize = 200;
/// The open-loop baseline's fixed sleep after each action.
const OPEN_LOOP_SLEEP: Duration = Duration::from_millis(500);

pub fn run() -> anyhow::Result<()> {
    run_step("cargo", &["build", "--release", "--locked", "-p", "agent-cli"])?;
    let binary = root().join("target/release/agent-cli");
    let desktop = Desktop::start()?;
    let drivers = [Driver::AgentCli { binary, verify: true }, Driver::OpenLoop { sleep: OPEN_LOOP_SLEEP }];
    let mixed = campaign::mixed_scenarios(SEED, MIN_ACTIONS);
    let n_mixed: usize = mixed.iter().map(|s| s.steps.len()).sum();
    let parts: [(&str, Vec<Scenario>); 2] = [
        ("every fault once", campaign::fault_scenarios()),
        (&format!("mixed random run (seed {SEED}, {n_mixed} actions in {} app launches)", mixed.len()), mixed),
    ];
    let mut doc = String::from("# Fault campaign\n");
    let mut agent_reports: Vec<Report> = Vec::new();
    for (title, scenarios) in &parts {
        doc.push_str(&format!("\n## {title}\n"));
        for driver in &drivers {
            println!("\n==> faults: {title}: {}", driver.label());
            let t = Instant::now();
            let report = campaign::run(&desktop, scenarios, driver)?;
            let section = format!(
                "\n{}\nran in {:.0?}\n\nactions that did not end as they should:\n{}",
                report.markdown(),
                t.elapsed(),
                match report.failures_markdown() {
                    s if s.is_empty() => "- none\n".to_string(),
                    s => s,
                }
            );
            println!("{section}");
            doc.push_str(&section);
            if matches!(driver, Driver::AgentCli { .. }) {
                agent_reports.push(report);
            }
        }
    }
    let out = root().join("target/faults-report.md");
    std::fs::write(&out, &doc)?;
    println!("\n==> faults: report written to {}", out.display());
    let silent: usize = agent_reports.iter().map(Report::silent_failures).sum();
    let double: usize = agent_reports.iter().map(Report::double_effects).sum();
    let (rec, hit) = agent_reports.iter().map(Report::recovery).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!(
        "agent-cli --verify: {silent} silent failures, {double} double effects, {rec}/{hit} recoverable faults recovered"
    );
    anyhow::ensure!(silent == 0 && double == 0, "agent-cli had silent failures or double effects (see above)");
    Ok(())
}
