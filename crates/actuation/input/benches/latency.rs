//! Input latency: from sending a click until the fixture app logs `button_activated`.
//!
//! `cargo bench -p deft-input --bench latency` (or `cargo xtask bench actuation`). One
//! headless desktop, one fixture app; each method clicks Hello and Submit in turn (so no
//! two clicks make a double click). The latency is the app's log timestamp (Python's
//! `time.monotonic()`, CLOCK_MONOTONIC) minus CLOCK_MONOTONIC read just before sending, so
//! the polling of the log adds nothing. `DEFT_BENCH_SAMPLES` sets the samples per method.

use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};
use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_input::{EnigoConfig, EnigoInput, Input, click_point};
use deft_types::{Logical, MouseButton, Physical, Point, Rect, ScaleFactor};

/// Unmeasured clicks before each method's samples (connections, caches, the first mapping).
const WARMUP: usize = 3;
/// Pause between clicks so the app is idle when the next one is sent.
const PAUSE: Duration = Duration::from_millis(120);

fn main() {
    let samples: usize = std::env::var("DEFT_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let desktop = Desktop::start().expect("desktop");
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    let targets: Vec<Point<Physical>> = ["hello", "submit"]
        .iter()
        .map(|id| {
            let r = app.ready().widget(id);
            let bounds: Rect<Logical> = Rect::new(r.x, r.y, r.w as u32, r.h as u32);
            click_point(bounds, ScaleFactor::ONE).expect("click point")
        })
        .collect();

    let display = Some(desktop.display().to_string());
    let mut fast = EnigoInput::connect(&EnigoConfig { display: display.clone(), ..EnigoConfig::default() }).unwrap();
    let mut delayed = EnigoInput::connect(&EnigoConfig {
        display,
        button_delay: Duration::from_millis(12),
        ..EnigoConfig::default()
    })
    .unwrap();
    let mut persistent = PersistentXdotool::start(&desktop);

    type Sender<'a> = Box<dyn FnMut(Point<Physical>) + 'a>;
    let methods: Vec<(&str, Sender)> = vec![
        (
            "deft-input (enigo 0.6, x11rb/XTest), button delay 0",
            Box::new(|p| fast.click_at(p, MouseButton::Left, 1).unwrap()),
        ),
        (
            "deft-input, enigo's default 12 ms button delay",
            Box::new(|p| delayed.click_at(p, MouseButton::Left, 1).unwrap()),
        ),
        (
            "`xdotool mousemove X Y click 1`, one process per click (spawn included)",
            Box::new(|p| xdotool_once(&desktop, p)),
        ),
        ("`xdotool -`, one persistent process fed on stdin", Box::new(|p| persistent.click(p))),
    ];

    println!("input latency: click sent -> fixture app logs button_activated ({samples} samples per method)\n");
    println!("| method | median ms | p95 ms | min ms | max ms |");
    println!("| --- | --- | --- | --- | --- |");
    let mut sent = 0usize;
    for (name, mut send) in methods {
        let mut latencies = Vec::new();
        for i in 0..WARMUP + samples {
            let target = targets[sent % targets.len()];
            sent += 1;
            let before = app.count("button_activated", None);
            let t0 = monotonic_ms();
            send(target);
            let logged = app
                .wait_for_count(before + 1, |e| e.kind == "button_activated", Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("{name}: the click was not logged: {e}"));
            if i >= WARMUP {
                latencies.push(logged[before].t - t0);
            }
            std::thread::sleep(PAUSE);
        }
        latencies.sort_by(f64::total_cmp);
        let q = |f: f64| latencies[((latencies.len() - 1) as f64 * f).round() as usize];
        println!(
            "| {name} | {:.2} | {:.2} | {:.2} | {:.2} |",
            q(0.5),
            q(0.95),
            latencies[0],
            latencies[latencies.len() - 1]
        );
    }
}

/// CLOCK_MONOTONIC in milliseconds: the clock the fixture app stamps its log with.
fn monotonic_ms() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as f64 * 1000.0 + t.tv_nsec as f64 / 1e6
}

fn xdotool_once(desktop: &Desktop, p: Point<Physical>) {
    let status = desktop
        .command("xdotool")
        .args(["mousemove", &p.x.to_string(), &p.y.to_string(), "click", "1"])
        .status()
        .expect("xdotool runs");
    assert!(status.success(), "xdotool failed: {status}");
}

/// `xdotool -` reads and runs commands line by line from stdin.
struct PersistentXdotool {
    child: Child,
    stdin: ChildStdin,
}

impl PersistentXdotool {
    fn start(desktop: &Desktop) -> PersistentXdotool {
        let mut child = desktop.command("xdotool").arg("-").stdin(Stdio::piped()).spawn().expect("xdotool -");
        let stdin = child.stdin.take().expect("stdin was piped");
        PersistentXdotool { child, stdin }
    }

    fn click(&mut self, p: Point<Physical>) {
        writeln!(self.stdin, "mousemove {} {} click 1", p.x, p.y).expect("xdotool - takes commands");
        self.stdin.flush().expect("flush");
    }
}

impl Drop for PersistentXdotool {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
