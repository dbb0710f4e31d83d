//! `cargo xtask bench faults`: the fault campaign. agent-cli (release, `--verify`) and the
//! open-loop baseline (xdotool plus a fixed sleep) run the same scenarios on one headless
//! desktop in one run, on every port of the fixture app (GTK 3, GTK 4, Qt 5, Qt 6, the web
//! page in Chromium and Firefox): every fault of the fixture app, then a mixed random run
//! (fixed seed, at least 200 actions). Every action is judged by the app's ground-truth
//! log (`deft_harness::campaign`), and every app must be alive and answering after its
//! scenario. The tables go to stdout and to `target/faults-report.md`.
//!
//! `DEFT_FAULTS_TOOLKITS=gtk3,qt5` runs only those ports (default: all);
//! `DEFT_FAULTS_ACTIONS=60` shortens the mixed run (default 200);
//! `DEFT_FAULTS_BINARY=path/to/agent-cli` runs that binary instead of building one;
//! `DEFT_FAULTS_TRACE=DIR` has every agent-cli action record its trace and frames in DIR.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::campaign::{self, Driver, Report, Scenario};
use deft_harness::fixture::Toolkit;

use crate::{root, run_step};

/// The mixed run's seed and default size.
const SEED: u64 = 42;
const MIN_ACTIONS: usize = 200;
/// The open-loop baseline's fixed sleep after each action.
const OPEN_LOOP_SLEEP: Duration = Duration::from_millis(500);

/// One toolkit's two reports per part, for the summary.
struct ToolkitRun {
    toolkit: Toolkit,
    agent: Vec<Report>,
    open_loop: Vec<Report>,
}

/// `DEFT_FAULTS_BINARY`, or agent-cli built for release now.
pub fn agent_cli_binary() -> anyhow::Result<std::path::PathBuf> {
    match std::env::var_os("DEFT_FAULTS_BINARY") {
        Some(path) => Ok(std::path::PathBuf::from(path)),
        None => {
            run_step("cargo", &["build", "--release", "--locked", "-p", "deft-desktop"])?;
            Ok(root().join("target/release/agent-cli"))
        }
    }
}

fn toolkits() -> anyhow::Result<Vec<Toolkit>> {
    match std::env::var("DEFT_FAULTS_TOOLKITS") {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(|l| {
                Toolkit::from_label(l.trim()).ok_or_else(|| {
                    let known: Vec<&str> = Toolkit::ALL.iter().map(|t| t.label()).collect();
                    anyhow::anyhow!("unknown toolkit `{l}` in DEFT_FAULTS_TOOLKITS; known: {}", known.join(", "))
                })
            })
            .collect(),
        _ => Ok(Toolkit::ALL.to_vec()),
    }
}

pub fn run() -> anyhow::Result<()> {
    let toolkits = toolkits()?;
    let min_actions = match std::env::var("DEFT_FAULTS_ACTIONS") {
        Ok(n) => n.parse().map_err(|e| anyhow::anyhow!("DEFT_FAULTS_ACTIONS={n}: {e}"))?,
        Err(_) => MIN_ACTIONS,
    };
    let binary = agent_cli_binary()?;
    let desktop = Desktop::start()?;
    let drivers = [Driver::AgentCli { binary, verify: true }, Driver::OpenLoop { sleep: OPEN_LOOP_SLEEP }];
    let mixed = campaign::mixed_scenarios(SEED, min_actions);
    let n_mixed: usize = mixed.iter().map(|s| s.steps.len()).sum();
    let parts: [(String, Vec<Scenario>); 2] = [
        ("every fault once".into(), campaign::fault_scenarios()),
        (format!("mixed random run (seed {SEED}, {n_mixed} actions in {} app launches)", mixed.len()), mixed),
    ];
    let mut doc = String::from("# Fault campaign\n");
    let mut runs = Vec::new();
    for &toolkit in &toolkits {
        if let Some(why) = toolkit.missing() {
            anyhow::bail!("{why}");
        }
        let mut run = ToolkitRun { toolkit, agent: Vec::new(), open_loop: Vec::new() };
        for (title, scenarios) in &parts {
            let scenarios = campaign::on_toolkit(scenarios.clone(), toolkit);
            doc.push_str(&format!("\n## {}: {title}\n", toolkit.label()));
            for driver in &drivers {
                println!("\n==> faults: {}: {title}: {}", toolkit.label(), driver.label());
                let t = Instant::now();
                let report = campaign::run(&desktop, &scenarios, driver)?;
                let section = format!(
                    "\n{}\nran in {:.0?}\n\nactions that did not end as they should, apps that crashed or froze:\n{}",
                    report.markdown(),
                    t.elapsed(),
                    match report.failures_markdown() {
                        s if s.is_empty() => "- none\n".to_string(),
                        s => s,
                    }
                );
                println!("{section}");
                doc.push_str(&section);
                match driver {
                    Driver::AgentCli { .. } => run.agent.push(report),
                    Driver::OpenLoop { .. } => run.open_loop.push(report),
                    Driver::Peer { .. } => {}
                }
            }
        }
        runs.push(run);
        // Written after each toolkit, so a long run leaves what it has.
        std::fs::write(root().join("target/faults-report.md"), format!("{}\n{doc}", summary(&runs)))?;
    }
    let out = root().join("target/faults-report.md");
    println!("\n{}\n==> faults: report written to {}", summary(&runs), out.display());
    let silent: usize = runs.iter().flat_map(|r| &r.agent).map(Report::silent_failures).sum();
    let double: usize = runs.iter().flat_map(|r| &r.agent).map(Report::double_effects).sum();
    anyhow::ensure!(silent == 0 && double == 0, "agent-cli had silent failures or double effects (see above)");
    Ok(())
}

/// One row per toolkit and driver, both parts together.
fn summary(runs: &[ToolkitRun]) -> String {
    let mut out = String::from(
        "## Summary per toolkit (both parts)\n\n\
         | toolkit | driver | actions | silent failures | double effects | stray effects | recovered | \
         failed clearly | unreported effects | apps crashed or frozen | median / p95 ms |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for run in runs {
        for (label, reports) in [("agent-cli --verify", &run.agent), ("open loop", &run.open_loop)] {
            let records: Vec<_> = reports.iter().flat_map(|r| r.records.clone()).collect();
            let all = Report {
                driver: label.into(),
                toolkit: run.toolkit,
                records,
                apps: reports.iter().flat_map(|r| r.apps.clone()).collect(),
            };
            let (rec, hit) = all.recovery();
            let _ = writeln!(
                out,
                "| {} | {label} | {} | {} | {} | {} | {rec}/{hit} | {} | {} | {}/{} | {:.0} / {:.0} |",
                run.toolkit.label(),
                all.records.len(),
                all.silent_failures(),
                all.double_effects(),
                all.stray_effects(),
                all.count(campaign::Verdict::FailedClearly),
                all.count(campaign::Verdict::UnreportedEffect),
                all.crashed_or_frozen().len(),
                all.apps.len(),
                all.median_ms(),
                all.p95_ms()
            );
        }
    }
    out
}
