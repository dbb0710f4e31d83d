//! Per-call latency over one `agent-cli mcp` session against one `agent-cli` process per
//! call, on the same fresh headless desktop with the fixture app, in one run.
//!
//! `cargo bench -p deft-desktop --bench mcp` (or `cargo xtask bench mcp`). Cases, each a
//! warm-up then `DEFT_BENCH_SAMPLES` (default 21) samples, 300 ms of pacing between calls
//! (not timed):
//!
//! - `read` of the fixture's window: `agent-cli read --window "Deft Fixture" --json` as a
//!   new process each time, against `tools/call read` in one MCP session;
//! - a verified click on the "Subscribe" check box (each click toggles it, so each has an
//!   effect to verify): `agent-cli click --name Subscribe --verify --json` against
//!   `tools/call click` (MCP verifies by default, and reads what changed in the window);
//! - `ocr` of the fixture's window: the OCR engine is loaded on first use, so a process per
//!   call loads it every time, a session once.
//!
//! The Python API's side (`deft.Desktop`, python/deft, over its own `agent-cli mcp`
//! session with the same binary) runs in one Python process (python/bench/driver.py),
//! timed from the request line to its answer (a pipe round trip more than a user pays).
//!
//! The MCP side is driven by a minimal JSON-RPC client over the server's stdin and stdout
//! (initialize, then calls one at a time); the protocol's conformance is the tests' job
//! (tests/mcp/client.py with the official SDK), this only times round trips. The first MCP
//! call, which connects the executor and the accessibility bus, is reported on its own.
//! Prints a markdown table; it reports, it does not judge.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_agent-cli");
const SAMPLES: usize = 21;
const PAUSE: Duration = Duration::from_millis(300);

/// An MCP session over a child's stdio, one request at a time.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(desktop: &Desktop, home: &std::path::Path) -> Session {
        let mut cmd = desktop.command(BIN);
        cmd.arg("mcp").env("XDG_CONFIG_HOME", home);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().expect("agent-cli mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session { child, stdin, stdout, next_id: 1 };
        let init = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "deft-bench", "version": "0"}
        });
        let r = s.request("initialize", init);
        assert!(r.get("result").is_some(), "initialize: {r}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).and_then(|()| self.stdin.flush()).expect("write to the server");
    }

    /// Send a request and read until its response (skipping notifications).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read from the server");
            assert!(n > 0, "the server closed stdout");
            let v: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// One tool call; whether its result was an error.
    fn call(&mut self, tool: &str, args: Value) -> bool {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        r["result"]["isError"].as_bool().unwrap_or(true)
    }
}

/// python/bench/driver.py: the same calls through `deft.Desktop`.
struct Python {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Python {
    fn start(desktop: &Desktop, home: &std::path::Path) -> Python {
        let root = deft_harness::workspace_root();
        let mut cmd = desktop.command(deft_harness::python());
        cmd.arg(root.join("python/bench/driver.py"))
            .arg(BIN)
            .env("PYTHONPATH", root.join("python"))
            .env("XDG_CONFIG_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("python/bench/driver.py");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the driver's first line");
        assert_eq!(line.trim(), "ready", "the Python driver did not start");
        Python { child, stdin, stdout }
    }

    fn call(&mut self, tool: &str, args: &Value) -> bool {
        let mut line = json!([tool, args]).to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).and_then(|()| self.stdin.flush()).expect("write to the driver");
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).expect("read from the driver");
        answer.trim() == "ok"
    }
}

impl Drop for Python {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Row {
    case: String,
    times: Vec<f64>,
    failed: usize,
}

fn median(times: &[f64]) -> f64 {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    t.get(t.len() / 2).copied().unwrap_or(f64::NAN)
}

fn time(mut f: impl FnMut() -> bool) -> (f64, bool) {
    let start = Instant::now();
    let ok = f();
    (start.elapsed().as_secs_f64() * 1e3, ok)
}

fn sample(case: &str, samples: usize, mut f: impl FnMut() -> bool) -> Row {
    let _ = f();
    std::thread::sleep(PAUSE);
    let mut row = Row { case: case.to_string(), times: Vec::new(), failed: 0 };
    for _ in 0..samples {
        let (ms, ok) = time(&mut f);
        row.times.push(ms);
        row.failed += usize::from(!ok);
        std::thread::sleep(PAUSE);
    }
    row
}

fn cli(desktop: &Desktop, home: &std::path::Path, args: &[&str]) -> bool {
    let mut cmd = desktop.command(BIN);
    cmd.args(args).env("XDG_CONFIG_HOME", home).stdout(Stdio::null()).stderr(Stdio::null());
    cmd.status().is_ok_and(|s| s.success())
}

fn main() {
    let samples = std::env::var("DEFT_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(SAMPLES);
    let desktop = Desktop::start().expect("a desktop");
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("the fixture app");
    let home = desktop.scratch_dir().join("bench-home");
    std::fs::create_dir_all(&home).unwrap();

    let read_cli = ["read", "--window", "Deft Fixture", "--json"];
    let click_cli = ["click", "--name", "Subscribe", "--verify", "--json"];
    let ocr_cli = ["ocr", "--window", "Deft Fixture", "--json"];
    let read_mcp = json!({"window": "Deft Fixture"});
    let ocr_mcp = json!({"window": "Deft Fixture"});
    let click_mcp = json!({"name": "Subscribe"});

    let mut session = Session::start(&desktop, &home);
    let (first, first_ok) = time(|| !session.call("read", read_mcp.clone()));
    let mut py = Python::start(&desktop, &home);
    let rows = [
        sample("read: one process per call", samples, || cli(&desktop, &home, &read_cli)),
        sample("read: one MCP session", samples, || !session.call("read", read_mcp.clone())),
        sample("read: the Python API", samples, || py.call("read", &read_mcp)),
        sample("verified click: one process per call", samples, || cli(&desktop, &home, &click_cli)),
        sample("verified click: one MCP session", samples, || !session.call("click", click_mcp.clone())),
        sample("verified click: the Python API", samples, || py.call("click", &click_mcp)),
        sample("ocr: one process per call", samples, || cli(&desktop, &home, &ocr_cli)),
        sample("ocr: one MCP session", samples, || !session.call("ocr", ocr_mcp.clone())),
        sample("ocr: the Python API", samples, || py.call("ocr", &ocr_mcp)),
    ];
    drop(session);
    drop(py);
    let toggles = app.count("checkbox_toggled", None);

    println!("| case | median ms | min ms | max ms | failed |");
    println!("|---|---:|---:|---:|---:|");
    for r in &rows {
        let min = r.times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = r.times.iter().copied().fold(0.0, f64::max);
        println!("| {} | {:.1} | {:.1} | {:.1} | {} |", r.case, median(&r.times), min, max, r.failed);
    }
    println!();
    println!("first MCP call (connects the executor and the accessibility bus): {first:.1} ms (ok: {first_ok})");
    for (what, cli, mcp, py) in [
        ("read", &rows[0], &rows[1], &rows[2]),
        ("verified click", &rows[3], &rows[4], &rows[5]),
        ("ocr", &rows[6], &rows[7], &rows[8]),
    ] {
        println!(
            "{what}: a process per call takes {:.1}x the time of a call in one session; the Python API {:.2}x (+{:.1} ms)",
            median(&cli.times) / median(&mcp.times),
            median(&py.times) / median(&mcp.times),
            median(&py.times) - median(&mcp.times),
        );
    }
    println!("samples per case: {samples} (+1 warm-up); check box toggles logged by the app: {toggles}");
}
