//! `cargo xtask demo [--wayland sway]`: the main job on a fresh machine. A headless desktop
//! (X11, or sway with the app as a native Wayland client), the fixture app
//! with faults on (the first click on "Submit order" is swallowed, the Name field ignores
//! key events, Save takes 1.5 s), and a multi-step task through `agent-cli --verify`: fill
//! the form, submit the order once, save, wait for "Save complete". Each step prints what
//! was expected, what was observed and what was retried; the summary checks the app's
//! ground-truth log (one order, the name typed, saved) and says where the trace went.
//!
//! Then the agent: `agent-cli run` pursues the same task, stated in words, on a fresh app
//! with the same faults, showing per step the model's thought, the confidence, the action
//! and its verified outcome. The model is the test model (a deterministic stand-in behind
//! the OpenAI-compatible wire format on loopback, never an LLM) unless a real one is
//! configured with `DEFT_MODEL_PROVIDER`, `DEFT_MODEL` and `DEFT_MODEL_BASE_URL` (and the
//! provider's key variable); the summary says which model ran, and judges by the log.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
use deft_harness::wayland::{in_session, socket_in};
use serde_json::Value;

use crate::{root, run_step};

/// One step of the task: what it is, and agent-cli's arguments.
struct Step {
    what: &'static str,
    args: &'static [&'static str],
}

const STEPS: &[Step] = &[
    Step { what: "type \"Ada Lovelace\" into Name", args: &["type", "--target", "Name", "--text", "Ada Lovelace"] },
    Step { what: "tick Subscribe", args: &["click", "--name", "Subscribe"] },
    Step { what: "submit the order (once)", args: &["click", "--name", "Submit order"] },
    Step { what: "save", args: &["click", "--name", "Save"] },
    Step { what: "wait for \"Save complete\"", args: &["wait", "--text", "Save complete", "--timeout", "10000"] },
];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let wayland = match args {
        [] => false,
        [flag, sway] if flag == "--wayland" && sway == "sway" => true,
        _ => anyhow::bail!("`cargo xtask demo` takes no arguments, or `--wayland sway` (the demo on a headless sway)"),
    };
    crate::setup::ensure_packages()?;
    println!("==> demo: building agent-cli");
    run_step("cargo", &["build", "--locked", "-p", "deft-desktop"])?;
    let binary = root().join("target/debug/agent-cli");
    let traces = root().join("target/demo-traces");
    // The report at the end is of this run only.
    let _ = std::fs::remove_dir_all(&traces);
    std::fs::create_dir_all(&traces)?;
    let home = root().join("target/demo-home");
    std::fs::create_dir_all(&home)?;

    println!("==> demo: starting a headless desktop and the fixture app with faults on");
    let desktop = Desktop::start()?;
    let sway = if wayland { Some(desktop.start_sway()?) } else { None };
    let session = sway.as_ref().map(|s| s.client_env()).unwrap_or_default();
    let opts = FixtureOptions {
        drop_clicks: 1,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(1500)),
        env: session.clone(),
        ..FixtureOptions::default()
    };
    println!("    faults: the first click on \"Submit order\" is dropped; Name ignores key events; Save takes 1.5 s");
    let app = FixtureApp::launch(&desktop, &opts)?;
    let on = match &sway {
        Some(s) => format!("sway at {} (a native Wayland client, no X display)", s.socket().display()),
        None => format!("display {}", desktop.display()),
    };
    println!("    app ready on {on} (ground-truth log {})\n", app.log_path().display());

    let before = trace_files(&traces);
    let started = Instant::now();
    let mut failed = 0;
    let mut retries = 0;
    for (i, step) in STEPS.iter().enumerate() {
        let mut cmd = desktop.command(&binary);
        for (k, _) in std::env::vars() {
            if k.starts_with("DEFT_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("XDG_CONFIG_HOME", &home);
        cmd.args(step.args).args(["--app", "Deft Fixture", "--verify", "--json", "--trace"]).arg(&traces);
        if step.args[0] == "wait" {
            // `wait` verifies by nature and takes no --app or --verify.
            cmd = desktop.command(&binary);
            cmd.env("XDG_CONFIG_HOME", &home).args(step.args).args(["--json", "--trace"]).arg(&traces);
        }
        in_session(&mut cmd, &session);
        let out = cmd.output()?;
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let ok = out.status.success() && v["ok"].as_bool() == Some(true);
        let mark = if ok { "✓" } else { "✗" };
        println!("{mark} step {}: {} (exit {}, {} ms)", i + 1, step.what, code(&out.status), v["elapsed_ms"]);
        println!("    expected: {}", text(&v["expected"]));
        let observed = match (&v["observed"], &v["last_observed"]) {
            (Value::Null, Value::Null) => text(&v["error"]["message"]),
            (Value::Null, last) => text(last),
            (o, _) => text(o),
        };
        println!("    observed: {observed}");
        if v["retried"].as_bool() == Some(true) {
            retries += 1;
            println!("    retried:  yes — {}", text(&v["retry_reason"]));
        } else {
            println!("    retried:  no");
        }
        for a in v["attempts"].as_array().into_iter().flatten() {
            println!("      attempt {}: {} ({} ms)", text(&a["method"]), text(&a["result"]), a["elapsed_ms"]);
        }
        if v.is_null() {
            println!("    agent-cli printed no JSON; stderr: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        if !ok {
            failed += 1;
        }
    }

    // Ground truth: the app's own log, never agent-cli's report.
    std::thread::sleep(Duration::from_millis(500));
    let events = app.events();
    let orders = events.iter().filter(|e| e.kind == "order_submitted").count();
    let name = events.iter().rev().find(|e| e.is("text_changed", Some("name"))).and_then(|e| e.str("value"));
    let toggles = events.iter().filter(|e| e.is("checkbox_toggled", Some("subscribe"))).count();
    let saved = events.iter().filter(|e| e.kind == "save_complete").count();
    let mut faults: Vec<(String, usize)> = Vec::new();
    for kind in events.iter().filter(|e| e.kind == "fault").filter_map(|e| e.str("kind")) {
        match faults.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += 1,
            None => faults.push((kind.to_string(), 1)),
        }
    }
    let faults: Vec<String> = faults.iter().map(|(k, n)| format!("{k} x{n}")).collect();
    let truth_ok = orders == 1 && name == Some("Ada Lovelace") && toggles == 1 && saved == 1;
    drop(app);

    println!("\n==> demo summary ({:.1} s)", started.elapsed().as_secs_f64());
    println!("    steps verified: {}/{}, retried: {retries}", STEPS.len() - failed, STEPS.len());
    println!("    faults the app injected: {}", if faults.is_empty() { "none".into() } else { faults.join(", ") });
    println!(
        "    ground truth (the app's log): orders submitted {orders} (want 1), Name = {:?}, \
         Subscribe toggled {toggles}x, save complete {saved}x — {}",
        name.unwrap_or(""),
        if truth_ok { "agrees" } else { "DISAGREES" }
    );
    let new: Vec<PathBuf> = trace_files(&traces).into_iter().filter(|f| !before.contains(f)).collect();
    println!("    traces (one JSON line per executor event, a file per step): {}", traces.display());
    for f in &new {
        println!("      {}", f.display());
    }
    anyhow::ensure!(failed == 0, "{failed} step(s) failed");
    anyhow::ensure!(truth_ok, "the app's ground-truth log disagrees with the task");
    agent(&desktop, &binary, &home, &traces, &opts)?;
    drop(sway);
    report(&binary, &traces)
}

/// The task in words, as the agent gets it.
const GOAL: &str = "Fill in the form: type \"Ada Lovelace\" into Name and tick Subscribe. Then submit the order once, save, and wait for \"Save complete\".";

/// `agent-cli run GOAL` on a fresh app with the same faults, judged by its log.
fn agent(desktop: &Desktop, binary: &Path, home: &Path, traces: &Path, opts: &FixtureOptions) -> anyhow::Result<()> {
    println!("\n==> demo: the agent pursues the same task from the goal in words: agent-cli run");
    // The same faults, and a popup over "Submit order" on its first activation: the
    // model must see it reported as blocking and dismiss it. Not on Wayland: a client
    // cannot place its dialog over the target there (the compositor places windows).
    let wayland = socket_in(&opts.env).is_some();
    let opts = FixtureOptions { popup: !wayland, ..opts.clone() };
    if wayland {
        println!("    faults: as above");
    } else {
        println!(
            "    faults: as above, and the first activation of \"Submit order\" opens a \"New Event!\" popup instead"
        );
    }
    let app = FixtureApp::launch(desktop, &opts)?;
    let real = std::env::var("DEFT_MODEL_PROVIDER").is_ok_and(|p| !p.trim().is_empty());
    let test_model = if real { None } else { Some(TestModel::start(Wire::OpenAi, Persona::Honest)?) };
    match &test_model {
        Some(m) => println!(
            "    model: the test model ({MODEL_NAME}, a deterministic stand-in behind the OpenAI-compatible wire at {}; \
             set DEFT_MODEL_PROVIDER, DEFT_MODEL, DEFT_MODEL_BASE_URL to use a real one)",
            m.base_url()
        ),
        None => println!(
            "    model: {} / {} (from DEFT_MODEL_PROVIDER and DEFT_MODEL)",
            std::env::var("DEFT_MODEL_PROVIDER").unwrap_or_default(),
            std::env::var("DEFT_MODEL").unwrap_or_default()
        ),
    }
    println!("    goal: {GOAL}\n");
    let mut cmd = desktop.command(binary);
    for (k, _) in std::env::vars() {
        if k.starts_with("DEFT_") && !k.starts_with("DEFT_MODEL") {
            cmd.env_remove(k);
        }
    }
    cmd.env("XDG_CONFIG_HOME", home).env("DEFT_RUNS_DIR", home.join("runs"));
    in_session(&mut cmd, &opts.env);
    if let Some(m) = &test_model {
        cmd.env("DEFT_MODEL_PROVIDER", m.provider())
            .env("DEFT_MODEL", MODEL_NAME)
            .env("DEFT_MODEL_BASE_URL", m.base_url());
    }
    cmd.args(["run", GOAL, "--app", "Deft Fixture", "--json", "--ask", "defer", "--trace"]).arg(traces);
    cmd.stderr(std::process::Stdio::inherit());
    let started = Instant::now();
    let out = cmd.output()?;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    std::thread::sleep(Duration::from_millis(500));
    let events = app.events();
    let orders = events.iter().filter(|e| e.kind == "order_submitted").count();
    let name = events.iter().rev().find(|e| e.is("text_changed", Some("name"))).and_then(|e| e.str("value"));
    let toggles = events.iter().filter(|e| e.is("checkbox_toggled", Some("subscribe"))).count();
    let saved = events.iter().filter(|e| e.kind == "save_complete").count();
    let truth_ok = orders == 1 && name == Some("Ada Lovelace") && toggles == 1 && saved == 1;
    let stats = v["stats"].as_array().cloned().unwrap_or_default();
    let mut overhead: Vec<u64> = stats.iter().filter_map(|s| s["overhead_ms"].as_u64()).collect();
    overhead.sort_unstable();
    println!("\n==> agent summary ({:.1} s)", started.elapsed().as_secs_f64());
    println!(
        "    status {} (exit {}), {} steps, {} model calls, {} questions; model: {}{}",
        text(&v["status"]),
        code(&out.status),
        v["steps"],
        v["model_calls"],
        v["questions"],
        text(&v["model"]),
        if test_model.is_some() { " (test model)" } else { "" }
    );
    println!(
        "    agent's own time per step (model and tools excluded): median {} ms",
        overhead.get(overhead.len() / 2).copied().unwrap_or(0)
    );
    println!(
        "    ground truth (the app's log): orders submitted {orders} (want 1), Name = {:?}, Subscribe toggled {toggles}x, \
         save complete {saved}x — {}",
        name.unwrap_or(""),
        if truth_ok { "agrees" } else { "DISAGREES" }
    );
    println!("    traces: {}", traces.display());
    drop(app);
    anyhow::ensure!(truth_ok, "the agent's run disagrees with the app's ground-truth log");
    Ok(())
}

fn code(status: &std::process::ExitStatus) -> String {
    status.code().map_or_else(|| "signal".to_string(), |c| c.to_string())
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The files in the trace directory, sorted.
fn trace_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).into_iter().flatten().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    files
}

/// The last step: `agent-cli report` of the whole demo (every CLI step and the agent's run,
/// with their frames) as one HTML file, and the size of what the traces took.
fn report(binary: &Path, traces: &Path) -> anyhow::Result<()> {
    let page = traces.join("report.html");
    let out = std::process::Command::new(binary)
        .args(["report"])
        .arg(traces)
        .arg("-o")
        .arg(&page)
        .env("NO_COLOR", "1")
        .output()?;
    anyhow::ensure!(out.status.success(), "agent-cli report failed: {}", String::from_utf8_lossy(&out.stderr));
    let size = |dir: &Path, ext: &str| -> u64 {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == ext))
            .filter_map(|e| e.metadata().ok().map(|m| m.len()))
            .sum()
    };
    let (lines, frames) = (size(traces, "jsonl"), size(&traces.join("frames"), "png"));
    println!("\n==> demo report: {}", page.display());
    println!(
        "    traces {:.2} MB (JSON lines {:.2} MB, frames {:.2} MB); open the report from the file, it needs no network",
        (lines + frames) as f64 / 1e6,
        lines as f64 / 1e6,
        frames as f64 / 1e6
    );
    Ok(())
}
