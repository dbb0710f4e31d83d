//! Tasks per minute on 1, 2 and 3 real desktops behind one real `nats-server`, each desktop
//! with the fixture app and its own `agent-cli worker`, judged by the fixture apps' own logs.
//!
//! `cargo bench -p deft-desktop --bench fleet_desktops` (or `cargo xtask bench fleet`). Per
//! case, `DEFT_BENCH_TASKS` tasks (default 6 per desktop) are submitted at once, each a
//! small flow (fill Name, press "Submit order", expect the order's line): the time is from
//! the first submit to the last result; the orders the apps logged must equal the tasks (no
//! task lost, none done twice). Prints a markdown table; it reports, it does not judge.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

/// One case: `n` desktops, `tasks` tasks. Returns (tasks done by the logs, seconds).
fn case(n: usize, tasks: usize) -> (usize, usize, f64) {
    let nats = NatsServer::start();
    let desktops: Vec<Desktop> = (0..n).map(|_| Desktop::start().expect("desktop")).collect();
    let apps: Vec<FixtureApp> =
        desktops.iter().map(|d| FixtureApp::launch(d, &FixtureOptions::default()).expect("fixture app")).collect();
    let home = desktops[0].scratch_dir().join("bench-fleet");
    std::fs::create_dir_all(&home).expect("scratch");
    let flow = home.join("order.yaml");
    std::fs::write(&flow, FLOW).expect("the flow");
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
    let start = Instant::now();
    for t in 0..tasks {
        let id = format!("b{n}-{t}");
        let v = cli(
            &desktops[0],
            &home,
            &["submit", flow.to_str().unwrap(), "--pool", "bench", "--id", &id, "--fleet", &nats.url, "--json"],
        );
        assert_eq!(v["queued"], true, "{v}");
    }
    let ended = |v: &Value| {
        v["tasks"].as_array().is_some_and(|t| t.iter().all(|t| t["state"] != "queued" && t["state"] != "running"))
    };
    let mut last = Value::Null;
    while start.elapsed() < Duration::from_secs(600) {
        last = cli(&desktops[0], &home, &["fleet", "--fleet", &nats.url, "--json"]);
        if ended(&last) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let took = start.elapsed().as_secs_f64();
    eprintln!("bench fleet: {n} desktop(s): workers' logs in {}", home.display());
    let done = last["tasks"].as_array().map_or(0, |t| t.iter().filter(|t| t["state"] == "done").count());
    // A task that waited for a start (or started twice) is worth seeing whole.
    for t in last["tasks"].as_array().into_iter().flatten() {
        let submitted = t["task"]["submitted_ms"].as_u64().unwrap_or(0);
        let waited = t["attempts"][0]["started_ms"].as_u64().unwrap_or(0).saturating_sub(submitted);
        if waited > 3000 || t["attempts"].as_array().is_some_and(|a| a.len() > 1) {
            eprintln!("bench fleet: task {} waited {waited} ms for a worker: {:#}", t["task"]["id"], t["attempts"]);
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
    let per: usize = std::env::var("DEFT_BENCH_TASKS").ok().and_then(|v| v.parse().ok()).unwrap_or(6);
    println!("\n| desktops | tasks | done (record) | orders (apps' logs) | wall | tasks/min |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let only: Option<usize> = std::env::var("DEFT_BENCH_DESKTOPS").ok().and_then(|v| v.parse().ok());
    for n in (1..=3).filter(|n| only.is_none_or(|o| o == *n)) {
        let tasks = per * n;
        let (done, logged, secs) = case(n, tasks);
        println!("| {n} | {tasks} | {done} | {logged} | {secs:.1} s | {:.1} |", done as f64 * 60.0 / secs);
    }
}
