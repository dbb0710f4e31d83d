//! Tasks per minute on 1, 2 and 3 real desktops behind one real `nats-server`, each desktop
//! with the fixture app and its own `agent-cli worker`, judged by the fixture apps' own logs.
//!
//! `cargo bench -p deft-desktop --bench fleet_desktops` (or `cargo xtask bench fleet`). Per
//! case, `DEFT_BENCH_TASKS` tasks per desktop (default 10) are submitted at once (through
//! the library: a process per submit would be what is measured), each a small flow (fill
//! Name, press "Submit order", expect the order's line), once the workers are in the
//! registry: the time is from the first submit to the last result; the orders the apps
//! logged must equal the tasks (no task lost, none done twice). `DEFT_BENCH_DESKTOPS=N`
//! runs one case. Prints a markdown table; it reports, it does not judge.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use deft_fleet::{NatsOptions, NatsQueue, Needs, Task, TaskState, lease};
use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::nats::NatsServer;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agent-cli");
const FLOW: &str = r#"flow: One order
steps:
  - fill: {target: Name, text: Ada Lovelace}
  - click: Submit order
    expect: text:"submitted"
"#;

fn worker(desktop: &Desktop, url: &str, name: &str, home: &std::path::Path) -> Child {
    let mut cmd: Command = desktop.command(BIN);
    cmd.env("XDG_CONFIG_HOME", home)
        .args(["worker", "--pool", "bench", "--name", name, "--fleet", url])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(home.join(format!("{name}.stderr.txt"))).expect("a log file"));
    cmd.spawn().expect("a worker starts")
}

fn cli(desktop: &Desktop, home: &std::path::Path, args: &[&str]) -> Value {
    let out = desktop.command(BIN).env("XDG_CONFIG_HOME", home).args(args).output().expect("agent-cli runs");
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// One case: `n` desktops, `tasks` tasks. Returns (tasks done by their records, orders in
/// the apps' logs, seconds).
fn case(n: usize, tasks: usize) -> (usize, usize, f64) {
    let nats = NatsServer::start();
    let desktops: Vec<Desktop> = (0..n).map(|_| Desktop::start().expect("desktop")).collect();
    let apps: Vec<FixtureApp> =
        desktops.iter().map(|d| FixtureApp::launch(d, &FixtureOptions::default()).expect("fixture app")).collect();
    let home = desktops[0].scratch_dir().join("bench-fleet");
    std::fs::create_dir_all(&home).expect("scratch");
    let mut workers: Vec<Child> =
        desktops.iter().enumerate().map(|(i, d)| worker(d, &nats.url, &format!("w{i}"), &home)).collect();
    let ready = Instant::now();
    while cli(&desktops[0], &home, &["fleet", "--fleet", &nats.url, "--json"])["workers"]
        .as_array()
        .is_none_or(|w| w.len() < n)
    {
        assert!(ready.elapsed() < Duration::from_secs(60), "workers did not join");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Submitted through the library (a few ms each), so the time is the fleet's, not that of
    // starting a process per submit.
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let queue = rt.block_on(NatsQueue::connect(&NatsOptions::new(&nats.url))).expect("the fleet");
    let body = serde_json::json!({ "kind": "flow", "flow": FLOW, "vars": {} });
    let start = Instant::now();
    for t in 0..tasks {
        let task = Task {
            id: format!("b{n}-{t}"),
            pool: "bench".into(),
            needs: Needs::default(),
            body: body.clone(),
            max_attempts: 3,
            submitted_ms: lease::now_ms(),
        };
        rt.block_on(deft_fleet::submit(&queue, task)).expect("submitted");
    }
    let mut records = Vec::new();
    while start.elapsed() < Duration::from_secs(600) {
        records = rt.block_on(lease::records(&queue)).expect("the records");
        if records.iter().all(|r| r.state.ended()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = start.elapsed().as_secs_f64();
    eprintln!("bench fleet: {n} desktop(s): workers' logs in {}", home.display());
    let done = records.iter().filter(|r| r.state == TaskState::Done).count();
    // A task that waited long for a start (or started twice) is worth seeing whole.
    for r in &records {
        let waited = r.attempts.first().map_or(0, |a| a.started_ms.saturating_sub(r.task.submitted_ms));
        if waited > 3000 || r.attempts.len() > 1 {
            eprintln!("bench fleet: task {} waited {waited} ms for a worker: {:?}", r.task.id, r.attempts);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let logged: usize = apps.iter().map(|a| a.count("order_submitted", None)).sum();
    for w in &mut workers {
        let _ = w.kill();
        let _ = w.wait();
    }
    (done, logged, took)
}

fn main() {
    let per: usize = std::env::var("DEFT_BENCH_TASKS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    println!("\n| desktops | tasks | done (record) | orders (apps' logs) | wall | tasks/min |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let only: Option<usize> = std::env::var("DEFT_BENCH_DESKTOPS").ok().and_then(|v| v.parse().ok());
    for n in (1..=3).filter(|n| only.is_none_or(|o| o == *n)) {
        let tasks = per * n;
        let (done, logged, secs) = case(n, tasks);
        println!("| {n} | {tasks} | {done} | {logged} | {secs:.1} s | {:.1} |", done as f64 * 60.0 / secs);
    }
}
