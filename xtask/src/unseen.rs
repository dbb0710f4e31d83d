//! `cargo xtask bench unseen`: the standing check for generalization. agent-cli (release,
//! `--verify`) and the open-loop baseline (xdotool at the element's centre plus a fixed
//! sleep) run the same scripted verbs on every corpus app that has a script, each on a
//! fresh instance, in one run on one headless desktop. Every action is judged by an
//! independent accessibility client (pyatspi) reading the app before and after it
//! (`deft_harness::unseen`), and every app must be alive and answering afterwards. The table
//! goes to stdout and to `target/unseen-report.md`.
//!
//! `DEFT_UNSEEN_APPS=kcalc,gtk-demo,impress` runs only the apps whose accessible name (or
//! a word of whose label) is listed;
//! `DEFT_FAULTS_BINARY=path/to/agent-cli` runs that binary instead of building one.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::apps::CorpusApp;
use deft_harness::campaign::Driver;
use deft_harness::unseen;

use crate::root;

/// The open-loop baseline's fixed sleep after each action (as in the fault campaign).
const OPEN_LOOP_SLEEP: Duration = Duration::from_millis(500);

fn apps() -> anyhow::Result<Vec<CorpusApp>> {
    let with_script: Vec<CorpusApp> = CorpusApp::ALL.into_iter().filter(|a| unseen::script(*a).is_some()).collect();
    let Ok(list) = std::env::var("DEFT_UNSEEN_APPS") else { return Ok(with_script) };
    list.split(',')
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // By accessible name, or by a word of the label (LibreOffice's modules share one name).
            let named = |a: &CorpusApp| {
                a.accessible_name().eq_ignore_ascii_case(l.trim())
                    || a.label().to_lowercase().split([' ', '(', ')']).any(|w| w == l.trim().to_lowercase())
            };
            with_script.iter().copied().find(named).ok_or_else(|| {
                let known: Vec<&str> = with_script.iter().map(|a| a.accessible_name()).collect();
                anyhow::anyhow!("no script for `{l}` in DEFT_UNSEEN_APPS; known: {}", known.join(", "))
            })
        })
        .collect()
}

pub fn run() -> anyhow::Result<()> {
    let apps = apps()?;
    let binary = crate::faults::agent_cli_binary()?;
    let desktop = Desktop::start()?;
    let drivers = [Driver::AgentCli { binary, verify: true }, Driver::OpenLoop { sleep: OPEN_LOOP_SLEEP }];
    let mut runs = Vec::new();
    let out = root().join("target/unseen-report.md");
    for app in apps {
        if let Some(why) = app.missing() {
            anyhow::bail!("{why}");
        }
        let script = unseen::script(app).expect("apps() keeps only apps with a script");
        for driver in &drivers {
            println!("\n==> unseen: {}: {}", app.label(), driver.label());
            let run = unseen::run(&desktop, &script, driver)?;
            for r in &run.records {
                println!("  {}: {} [{} ms]", r.action, r.verdict.label(), r.elapsed.as_millis());
            }
            runs.push(run);
            // Written after each app, so a long run leaves what it has.
            std::fs::write(&out, unseen::markdown(&runs))?;
        }
    }
    println!("\n{}\n==> unseen: report written to {}", unseen::markdown(&runs), out.display());
    let agent: Vec<_> = runs.iter().filter(|r| r.driver.starts_with("agent-cli")).collect();
    let broken: usize = agent.iter().map(|r| r.broken().len()).sum();
    let harmed = agent.iter().filter(|r| r.harm.is_some()).count();
    anyhow::ensure!(broken == 0 && harmed == 0, "agent-cli broke the promise {broken} times and harmed {harmed} apps");
    Ok(())
}
