//! A task done by the agent against the same task replayed as a flow, and a flow's step
//! repaired, in one run on one headless desktop, each judged by the fixture app's own log.
//!
//! `cargo bench -p deft-desktop --bench flows` (or `cargo xtask bench flows`). Per round
//! (`DEFT_BENCH_RUNS`, default 3), each on a fresh fixture app with a dropped first press on
//! "Submit order", a Name field that ignores keys and a 1.5 s save:
//!
//! 1. **agent**: `agent-cli run` on the demo task with the **test model** (a deterministic
//!    stand-in behind the OpenAI-compatible wire on loopback: its latency is not a real
//!    model's, its token counts are what the agent really sent), `--save-flow`;
//! 2. **flow**: `agent-cli flow run` of the flow that run saved: no model;
//! 3. **repair**: the same flow on an app whose "Submit order" is now "Place order", with
//!    `--repair`: the agent (the test model) for that step alone.
//!
//! Reported per case: how often the log shows the task done exactly once, median wall time,
//! model calls and tokens per task, and the cost of those tokens at one published price
//! (Claude Sonnet 4.5: $3 per million input tokens, $15 per million output tokens; cache
//! discounts left out). Prints a markdown table; it reports, it does not judge.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::process::Command;
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agent-cli");
const TASK: &str = "Fill in the form: type \"Ada Lovelace\" into Name and tick Subscribe. Then submit the order once, save, and wait for \"Save complete\".";
const INPUT_USD_PER_MTOK: f64 = 3.0;
const OUTPUT_USD_PER_MTOK: f64 = 15.0;

#[derive(Default)]
struct Case {
    right: usize,
    runs: usize,
    wall_ms: Vec<f64>,
    calls: Vec<f64>,
    input: Vec<f64>,
    output: Vec<f64>,
}

impl Case {
    fn add(&mut self, right: bool, wall: Duration, calls: u64, input: u64, output: u64) {
        self.runs += 1;
        self.right += usize::from(right);
        self.wall_ms.push(wall.as_secs_f64() * 1e3);
        self.calls.push(calls as f64);
        self.input.push(input as f64);
        self.output.push(output as f64);
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn faulty(desktop: &Desktop, renamed: bool) -> FixtureApp {
    let opts = FixtureOptions {
        drop_clicks: 1,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(1500)),
        extra_args: if renamed { vec!["--renamed".into()] } else { Vec::new() },
        ..FixtureOptions::default()
    };
    FixtureApp::launch(desktop, &opts).expect("fixture app")
}

/// The task done exactly once, by the app's log.
fn done_once(app: &FixtureApp) -> bool {
    std::thread::sleep(Duration::from_millis(500));
    let events = app.events();
    let count = |k: &str| events.iter().filter(|e| e.kind == k).count();
    let name = events.iter().rev().find(|e| e.is("text_changed", Some("name"))).and_then(|e| e.str("value"));
    let ticks = events.iter().filter(|e| e.is("checkbox_toggled", Some("subscribe"))).count();
    count("order_submitted") == 1 && count("save_complete") == 1 && name == Some("Ada Lovelace") && ticks == 1
}

fn cli(desktop: &Desktop, model: &TestModel, home: &std::path::Path, args: &[&str]) -> (Value, Duration) {
    let mut cmd: Command = desktop.command(BIN);
    cmd.env("XDG_CONFIG_HOME", home)
        .env("DEFT_MODEL_PROVIDER", model.provider())
        .env("DEFT_MODEL", MODEL_NAME)
        .env("DEFT_MODEL_BASE_URL", model.base_url())
        .env("DEFT_RUNS_DIR", home.join("runs"))
        .args(args);
    let t = Instant::now();
    let out = cmd.output().expect("agent-cli runs");
    let took = t.elapsed();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (v, took)
}

fn main() {
    let runs: usize = std::env::var("DEFT_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let desktop = Desktop::start().expect("desktop");
    let home = desktop.scratch_dir().join("bench-flows");
    std::fs::create_dir_all(&home).expect("scratch");
    let (mut agent, mut flow, mut repair) = (Case::default(), Case::default(), Case::default());
    for round in 0..runs {
        let model = TestModel::start(Wire::OpenAi, Persona::Honest).expect("test model");
        let file = home.join(format!("demo-{round}.yaml"));
        let _ = std::fs::remove_file(&file);

        let app = faulty(&desktop, false);
        let args = [TASK, "--app", "Deft Fixture", "--json", "--ask", "defer", "--save-flow"];
        let (v, took) =
            cli(&desktop, &model, &home, &[&["run"], &args[..], &[file.to_str().unwrap_or_default()]].concat());
        let u = &v["usage"]["usage"];
        let tokens = |k: &str| u[k].as_u64().unwrap_or(0);
        let input = tokens("input_tokens") + tokens("cache_read_tokens") + tokens("cache_write_tokens");
        agent.add(done_once(&app), took, v["model_calls"].as_u64().unwrap_or(0), input, tokens("output_tokens"));
        let _ = app.shutdown();

        let app = faulty(&desktop, false);
        let calls = model.received().len();
        let (_, took) = cli(&desktop, &model, &home, &["flow", "run", file.to_str().unwrap_or_default(), "--json"]);
        flow.add(done_once(&app), took, (model.received().len() - calls) as u64, 0, 0);
        let _ = app.shutdown();

        let app = faulty(&desktop, true);
        let args = ["flow", "run", file.to_str().unwrap_or_default(), "--json", "--repair", "--timeout", "1500"];
        let (v, took) = cli(&desktop, &model, &home, &args);
        let fixed: Vec<&Value> =
            v["steps"].as_array().into_iter().flatten().filter_map(|s| s.get("repaired")).collect();
        let sum = |k: &str| fixed.iter().filter_map(|r| r[k].as_u64()).sum::<u64>();
        repair.add(done_once(&app), took, sum("model_calls"), sum("input_tokens"), sum("output_tokens"));
        let _ = app.shutdown();
    }
    println!("\n| case | done once (log) | median wall | model calls | input tokens | output tokens | est. cost |");
    println!("|---|---|---|---|---|---|---|");
    for (name, c) in [
        ("agent-cli run (test model), the whole task", &agent),
        ("agent-cli flow run, the flow that run saved", &flow),
        ("flow run --repair, one step renamed in the app", &repair),
    ] {
        let (i, o) = (median(&c.input), median(&c.output));
        let cost = i * INPUT_USD_PER_MTOK / 1e6 + o * OUTPUT_USD_PER_MTOK / 1e6;
        println!(
            "| {name} | {}/{} | {:.0} ms | {:.0} | {:.0} | {:.0} | ${cost:.4} |",
            c.right,
            c.runs,
            median(&c.wall_ms),
            median(&c.calls),
            i,
            o
        );
    }
}
