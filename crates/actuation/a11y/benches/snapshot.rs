//! Tree snapshot speed: deft-a11y vs pyatspi vs dogtail, side by side in one run.
//!
//! `cargo bench -p deft-a11y --bench snapshot` starts a headless desktop, launches
//! gtk3-widget-factory (package gtk-3-examples) and the fixture app, and times on each app:
//! a deft-a11y full snapshot (default options: bounds, text, value and actions) over the
//! application's own socket and over the bus daemon, a one-window snapshot, and the same
//! read done by `peers/pyatspi_snapshot.py` and `peers/dogtail_snapshot.py`. deft's runs
//! are split in two halves around the peers', so that a change of machine load during the
//! run weighs on every tool. Prints a Markdown table with medians and ratios, and whether
//! the targets (full snapshot at most 15 ms median, at least 10x faster than pyatspi) hold.
//!
//! Then the rest of the corpus of real applications (GTK 4, Qt 5 and 6, Mousepad, Chromium,
//! Firefox, LibreOffice Writer, each started as the harness starts it): one full read each, deft-a11y against
//! pyatspi, and a check that the app still answers afterwards.
//!
//! Options: `--runs N` (deft runs per half, default 20), `--peer-runs N` (default 20).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, AppInfo, AtSpi, AtSpiConfig, Scope, SnapshotOptions};
use deft_harness::Desktop;
use deft_harness::apps::{CorpusApp, RunningApp};
use deft_harness::fixture::{FixtureApp, FixtureOptions};

const TARGET_MS: f64 = 15.0;
const TARGET_RATIO: f64 = 10.0;

struct Row {
    app: String,
    tool: String,
    nodes: usize,
    median_ms: f64,
    min_ms: f64,
    /// CPU time the application itself spent per read (its idle work included).
    app_cpu_ms: f64,
}

/// CPU time (user + system) process `pid` has used so far, in ms.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, r)| r).split_whitespace().collect();
    let ticks: f64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<f64>().ok()).sum();
    ticks * 10.0 // USER_HZ is 100 on Linux
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn peer(desktop: &Desktop, script: &str, app: &str, window: Option<&str>, runs: usize, pid: u32) -> Row {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/peers").join(script);
    let mut cmd = desktop.command(deft_harness::python());
    cmd.arg(&path).args(["--app", app, "--runs", &runs.to_string()]);
    if let Some(w) = window {
        cmd.args(["--window", w]);
    }
    let cpu = cpu_ms(pid);
    let out = cmd.stderr(Stdio::inherit()).output().unwrap_or_else(|e| panic!("running {script}: {e}"));
    let app_cpu_ms = (cpu_ms(pid) - cpu) / runs as f64;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_else(|| panic!("{script} printed nothing ({})", out.status));
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{script} printed {line:?}: {e}"));
    Row {
        app: app.to_string(),
        tool: format!("{}{}", v["tool"].as_str().unwrap_or(script), if window.is_some() { " (window)" } else { "" }),
        nodes: v["nodes"].as_u64().unwrap_or(0) as usize,
        median_ms: v["median_ms"].as_f64().unwrap_or(f64::NAN),
        min_ms: v["min_ms"].as_f64().unwrap_or(f64::NAN),
        app_cpu_ms,
    }
}

/// Time `runs` snapshots of `scope`, after one warm-up read.
fn time_deft(rt: &tokio::runtime::Runtime, a11y: &AtSpi, scope: &Scope, runs: usize) -> (Vec<f64>, usize) {
    let opts = SnapshotOptions::default();
    let warm = rt.block_on(a11y.snapshot(scope, &opts)).expect("snapshot");
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let tree = rt.block_on(a11y.snapshot(scope, &opts)).expect("snapshot");
        times.push(start.elapsed().as_secs_f64() * 1e3);
        // A tree cut to what is on screen (Calc's sheet) may gain or lose a partly shown row
        // of cells between reads; any other change means the app was not settled.
        let cut = tree.problems.iter().any(|p| p.contains("too many to list"));
        assert!(
            tree.len() == warm.len() || (cut && tree.len().abs_diff(warm.len()) <= 50),
            "{scope:?}: the tree changed size during the benchmark ({} elements, then {}; {:?})",
            warm.len(),
            tree.len(),
            tree.problems
        );
    }
    (times, warm.len())
}

fn deft_row(app: &str, tool: &str, mut times: Vec<f64>, nodes: usize, app_cpu_ms: f64) -> Row {
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    let (tool, median_ms) = (tool.to_string(), median(&mut times));
    Row { app: app.to_string(), tool, nodes, median_ms, min_ms: min, app_cpu_ms }
}

/// Wait until `name` is registered with a showing window and its tree has stopped growing.
fn settle(rt: &tokio::runtime::Runtime, a11y: &AtSpi, name: &str) -> AppInfo {
    let start = Instant::now();
    let mut last = 0;
    let mut same = 0;
    loop {
        assert!(start.elapsed() < Duration::from_secs(30), "{name} did not settle on the AT-SPI bus");
        let apps = rt.block_on(a11y.applications()).expect("applications");
        if let Some(app) = apps.into_iter().find(|a| a.name == name && a.windows.iter().any(|w| w.bounds.is_some())) {
            let n = rt
                .block_on(a11y.snapshot(&Scope::App(app.id.clone()), &SnapshotOptions::default()))
                .map_or(0, |t| t.len());
            same = if n == last { same + 1 } else { 0 };
            last = n;
            if same >= 3 {
                return app;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("snapshot: benchmark");
        return;
    }
    let runs = arg("--runs", 20);
    let peer_runs = arg("--peer-runs", 20);
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mut factory = desktop
        .command("gtk3-widget-factory")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("gtk3-widget-factory (install gtk-3-examples: `cargo xtask setup`)");
    let fixture = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let _inside = rt.enter();
    let config = AtSpiConfig {
        session_bus: Some(desktop.bus_address().to_string()),
        display: Some(desktop.display().to_string()),
        ..AtSpiConfig::default()
    };
    let direct = rt.block_on(AtSpi::connect(config.clone())).expect("connect");
    let via_bus = rt.block_on(AtSpi::connect(AtSpiConfig { peer_to_peer: false, ..config })).expect("connect");

    let mut rows = Vec::new();
    let mut verdicts = Vec::new();
    for name in ["gtk3-widget-factory", "deft-fixture"] {
        let app = settle(&rt, &direct, name);
        let window = app.windows.iter().find(|w| w.bounds.is_some()).expect("a showing window");
        let app_scope = Scope::App(app.id.clone());
        let window_scope = Scope::Subtree(window.id.clone());

        let pid = app.pid.expect("the bus tells the app's pid");
        let mut cpu = [0.0; 3];
        let mut timed = |i: usize, a11y: &AtSpi, scope: &Scope| {
            let before = cpu_ms(pid);
            let r = time_deft(&rt, a11y, scope, runs);
            cpu[i] += cpu_ms(pid) - before;
            r
        };
        let (mut full, nodes) = timed(0, &direct, &app_scope);
        let (mut bus, _) = timed(1, &via_bus, &app_scope);
        let (mut win, win_nodes) = timed(2, &direct, &window_scope);
        let py = peer(&desktop, "pyatspi_snapshot.py", name, None, peer_runs, pid);
        let dog = peer(&desktop, "dogtail_snapshot.py", name, None, peer_runs, pid);
        let py_win = peer(&desktop, "pyatspi_snapshot.py", name, Some(&window.title), peer_runs, pid);
        full.extend(timed(0, &direct, &app_scope).0);
        bus.extend(timed(1, &via_bus, &app_scope).0);
        win.extend(timed(2, &direct, &window_scope).0);
        // Each timed batch is `runs` reads plus one warm-up.
        let per_read = |c: f64| c / (2 * (runs + 1)) as f64;

        let full = deft_row(name, "deft-a11y", full, nodes, per_read(cpu[0]));
        let ratio = py.median_ms / full.median_ms;
        verdicts.push(format!(
            "{name}: full snapshot {:.1} ms median (target <= {TARGET_MS} ms: {}), {:.1}x pyatspi (target >= {TARGET_RATIO}x: {})",
            full.median_ms,
            if full.median_ms <= TARGET_MS { "met" } else { "MISSED" },
            ratio,
            if ratio >= TARGET_RATIO { "met" } else { "MISSED" },
        ));
        rows.push(full);
        rows.push(deft_row(name, "deft-a11y via bus daemon", bus, nodes, per_read(cpu[1])));
        rows.push(deft_row(name, "deft-a11y (window)", win, win_nodes, per_read(cpu[2])));
        rows.push(py);
        rows.push(dog);
        rows.push(py_win);
    }
    // The rest of the corpus of real applications: a full read each, deft-a11y against
    // pyatspi in the same run (issue: `read` time per corpus app).
    for app in [
        CorpusApp::Gtk4WidgetFactory,
        CorpusApp::FeatherPad,
        CorpusApp::QtDesigner,
        CorpusApp::Mousepad,
        CorpusApp::Chromium,
        CorpusApp::Firefox,
        CorpusApp::LibreOfficeWriter,
        CorpusApp::LibreOfficeCalc,
    ] {
        if let Some(why) = app.missing() {
            eprintln!("skipping {}: {why}", app.accessible_name());
            continue;
        }
        let mut running = RunningApp::launch(&desktop, app).expect("corpus app starts");
        running.wait_registered(&desktop, Duration::from_secs(60)).expect("corpus app registers");
        let name = app.accessible_name();
        // Writer and Calc are both "soffice" on the bus.
        let label = match app {
            CorpusApp::LibreOfficeWriter => "soffice (Writer)",
            CorpusApp::LibreOfficeCalc => "soffice (Calc)",
            _ => name,
        };
        let found = settle(&rt, &direct, name);
        let pid = running.pid();
        let before = cpu_ms(pid);
        let (full, nodes) = time_deft(&rt, &direct, &Scope::App(found.id.clone()), runs);
        let per_read = (cpu_ms(pid) - before) / (runs + 1) as f64;
        let full = deft_row(label, "deft-a11y", full, nodes, per_read);
        if app == CorpusApp::LibreOfficeCalc {
            // pyatspi's walk lists every child, and Calc's sheet says it has 2^31 - 1: the
            // peer would freeze Calc (docs/real-apps.md, 17), so it is not run on it.
            verdicts.push(format!(
                "{label}: full snapshot {:.1} ms median for {nodes} elements (the cells on screen); pyatspi not run: its walk would list all 2^31 - 1 cells and freeze Calc",
                full.median_ms
            ));
            rows.push(full);
        } else {
            let mut py = peer(&desktop, "pyatspi_snapshot.py", name, None, peer_runs, pid);
            py.app = label.to_string();
            verdicts.push(format!(
                "{label}: full snapshot {:.1} ms median for {nodes} elements, {:.1}x pyatspi",
                full.median_ms,
                py.median_ms / full.median_ms
            ));
            rows.push(full);
            rows.push(py);
        }
        running.check_responsive(&desktop, Duration::from_secs(5)).expect("the app still answers after the reads");
    }
    let _ = fixture.shutdown();
    let _ = factory.kill();
    let _ = factory.wait();

    println!("| app | tool | nodes | median ms | min ms | vs deft-a11y | app CPU ms/read |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for r in &rows {
        let deft = rows.iter().find(|d| d.app == r.app && d.tool == "deft-a11y").map_or(f64::NAN, |d| d.median_ms);
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.1}x | {:.1} |",
            r.app,
            r.tool,
            r.nodes,
            r.median_ms,
            r.min_ms,
            r.median_ms / deft,
            r.app_cpu_ms
        );
    }
    println!();
    for v in verdicts {
        println!("{v}");
    }
}
