//! How fast a target that cannot become actionable fails, on a fresh headless desktop.
//!
//! `cargo bench -p deft-verify --bench failfast` (or `cargo xtask bench failfast`). In one
//! process, side by side, each case on one executor with the default 10 s actionability
//! timeout, one warm-up then `DEFT_BENCH_SAMPLES` (default 11) samples:
//!
//! - a disabled check box of gtk3-widget-factory, with nothing in the app working that
//!   could enable it;
//! - a selector whose `index` is past its matches (`name=Hello index=5` on the fixture,
//!   which shows one Hello);
//! - an application that is not running (`app=NoSuchApp`);
//! - and, for contrast, the one case that must wait: an element of a running application
//!   that is not there yet (`name=Nowhere`), which may still appear until the timeout (3
//!   samples: each takes the whole timeout).
//!
//! The peer is the waiting rule of the best-known actionability checks (Playwright's: an
//! action waits for its element to be enabled and attached until its timeout): what that
//! rule costs is the timeout itself, shown in the last column. Prints a markdown table
//! (median and p90 in ms, the failure category and its message). It reports, it does not
//! judge: it exits 0 whatever the numbers.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::time::{Duration, Instant};

use deft_a11y::{SnapshotOptions, selector};
use deft_harness::apps::{CorpusApp, RunningApp};
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_types::{Action, MouseButton, Outcome, Selector, State, Target};
use deft_verify::{DesktopConfig, Executor, ExecutorConfig};
use tokio::runtime::Runtime;

/// Samples per fail-fast case unless `DEFT_BENCH_SAMPLES` says otherwise.
const SAMPLES: usize = 11;
/// Samples of the case that waits the whole timeout.
const WAITING_SAMPLES: usize = 3;
/// Pause between two actions (pacing only).
const PAUSE: Duration = Duration::from_millis(300);

struct Row {
    case: &'static str,
    times: Vec<f64>,
    /// The failure category and message of the last sample (`ok` if it succeeded).
    ended: String,
}

impl Row {
    fn quantile(&self, q: f64) -> f64 {
        deft_harness::campaign::nearest_rank(&self.times, q)
    }
}

fn click(target: Target) -> Action {
    Action::Click { target, button: MouseButton::Left, count: 1 }
}

fn by_selector(text: &str) -> Target {
    Target::Selector(selector::parse(text).expect("a valid selector"))
}

/// How an outcome ended, in one line.
fn ended(o: &Outcome) -> String {
    match &o.failure {
        None => "ok".into(),
        Some(f) => {
            let text = o.observed.replace('|', "/");
            let short: String = text.chars().take(110).collect();
            format!("{:?}: {short}", f.kind)
        }
    }
}

fn time(rt: &Runtime, exec: &Executor, case: &'static str, action: &Action, samples: usize) -> Row {
    rt.block_on(exec.perform(action)); // warm up
    let mut row = Row { case, times: Vec::new(), ended: String::new() };
    for _ in 0..samples {
        std::thread::sleep(PAUSE);
        let t = Instant::now();
        let o = rt.block_on(exec.perform(action));
        row.times.push(t.elapsed().as_secs_f64() * 1e3);
        row.ended = ended(&o);
    }
    row
}

/// The first disabled check box gtk3-widget-factory shows, as a target by id.
fn disabled_check_box(rt: &Runtime, exec: &Executor) -> Option<Target> {
    let boxes = Selector {
        app: Some(deft_types::TextMatch::Exact("gtk3-widget-factory".into())),
        role: Some(deft_types::Role::new("check_box")),
        ..Selector::default()
    };
    let (scoped, found) = rt.block_on(deft_a11y::find_all(exec.a11y(), &boxes, &SnapshotOptions::default())).ok()?;
    let disabled = found
        .iter()
        .map(|&i| &scoped.tree.nodes[i].element)
        .find(|e| e.has(State::Showing) && !e.has(State::Enabled))?;
    Some(Target::Selector(Selector { id: Some(disabled.id.clone()), ..Selector::default() }))
}

fn main() {
    let samples: usize = std::env::var("DEFT_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(SAMPLES);
    let desktop = deft_harness::Desktop::start().expect("desktop");
    let _app = FixtureApp::launch(
        &desktop,
        &FixtureOptions { loading: Some(Duration::from_millis(10)), ..FixtureOptions::default() },
    )
    .expect("fixture app");
    let factory = match CorpusApp::Gtk3WidgetFactory.missing() {
        Some(why) => {
            println!("gtk3-widget-factory case skipped: {why}");
            None
        }
        None => {
            let mut app = RunningApp::launch(&desktop, CorpusApp::Gtk3WidgetFactory).expect("gtk3-widget-factory");
            app.wait_registered(&desktop, Duration::from_secs(30)).expect("gtk3-widget-factory registers");
            Some(app)
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(16 * 1024 * 1024)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let a11y = DesktopConfig {
        display: Some(desktop.display().to_string()),
        session_bus: Some(desktop.bus_address().to_string()),
        ..DesktopConfig::default()
    };
    let config = ExecutorConfig { verify: true, ..ExecutorConfig::default() };
    let timeout_ms = config.actionability_timeout_ms;
    let exec: Executor = rt.block_on(Executor::connect(config, &a11y)).expect("executor connects");

    let mut rows = Vec::new();
    if factory.is_some() {
        match disabled_check_box(&rt, &exec) {
            Some(target) => rows.push(time(
                &rt,
                &exec,
                "disabled check box, nothing at work (gtk3-widget-factory)",
                &click(target),
                samples,
            )),
            None => println!("no disabled check box found in gtk3-widget-factory: case skipped"),
        }
    }
    rows.push(time(
        &rt,
        &exec,
        "index past the matches (name=Hello index=5)",
        &click(by_selector("role=push_button name=Hello index=5")),
        samples,
    ));
    rows.push(time(
        &rt,
        &exec,
        "application not running (app=NoSuchApp)",
        &click(by_selector("app=NoSuchApp name=Hello")),
        samples,
    ));
    rows.push(time(
        &rt,
        &exec,
        "contrast: not there yet in a running app (name=Nowhere), may still appear",
        &click(by_selector("app=\"Deft Fixture\" name=Nowhere")),
        WAITING_SAMPLES,
    ));

    println!("\nfail fast on targets that cannot become actionable (samples after one warm-up; default timeout)\n");
    println!("| case | median ms | p90 ms | waiting to the timeout (peer rule) ms | ended |");
    println!("| --- | --- | --- | --- | --- |");
    for row in &rows {
        println!(
            "| {} | {:.1} | {:.1} | {timeout_ms} | {} |",
            row.case,
            row.quantile(0.5),
            row.quantile(0.9),
            row.ended
        );
    }
    drop(factory);
}
