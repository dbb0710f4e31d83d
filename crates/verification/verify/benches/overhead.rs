//! Verification overhead and wait reaction on the fixture app, on a fresh headless desktop.
//!
//! `cargo bench -p deft-verify --bench overhead` (or `cargo xtask bench verify`). In one
//! process, side by side, each case on a fresh executor, one warm-up then
//! `DEFT_BENCH_SAMPLES` (default 21) samples, 500 ms of pacing between actions (not timed):
//!
//! - plain click on "Submit order" (`verify: false`): the same action unverified;
//! - verified click, default delay, alternating "Hello" and "Submit order", so the clicked
//!   button never has the focus before the click (only the click is timed): the keyboard
//!   focus arriving shows that the click was received;
//! - verified click on "Submit order", the policy's default verify delay (100 ms), always
//!   on the same button, which keeps the keyboard focus between clicks: the click is a
//!   press held until the button reports itself armed, see `press.rs`;
//! - verified click on "Submit order" with verify delay 0;
//! - the same-button case 150 ms apart: the button's release animation from the click
//!   before is still running, so only the app's `armed` state watches the press;
//! - wait reaction: the app logs a change at time T (a click from another executor), a
//!   concurrent `wait` for its text returns at T + x; x is the sample;
//! - the plain and the alternating verified click again with frames recorded (a
//!   `FrameRecorder` writing into a temporary folder, as `--trace` does): what a person's
//!   before/after frames cost the action;
//! - the alternating and the same-button verified clicks 2.5 s apart: the app heard long
//!   enough between actions that no change is held as maybe moving by itself (at 500 ms a
//!   text's change is held 300 ms, a count's 1.2 s: see docs/VERIFICATION.md).
//!
//! Prints a markdown table (median and p90 in ms, overhead vs the plain click). It reports,
//! it does not judge: it exits 0 whatever the numbers, failed actions included (counted in
//! the notes). `DEFT_BENCH_TRACE=1` also prints the bus events of one verified click.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::time::{Duration, Instant};

use deft_a11y::selector;
use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_types::{Action, Condition, MouseButton, Target, TextMatch};
use deft_verify::{DesktopConfig, Executor, ExecutorConfig};
use tokio::runtime::Runtime;

/// Samples per case unless `DEFT_BENCH_SAMPLES` says otherwise.
const SAMPLES: usize = 21;
/// Pause between two actions so the app is idle when the next one is sent (pacing only):
/// longer than a GTK button's release animation (~225 ms), so that a click on a button
/// that has the focus watches its press with both witnesses (see `press.rs`).
const PAUSE: Duration = Duration::from_millis(500);
/// The short pacing of the one case where the animation is still running.
const SHORT_PAUSE: Duration = Duration::from_millis(150);
/// Pacing long enough for the app to be heard by itself between actions (more than 1 s of
/// the input's own effects plus a slow clock's 1.2 s tick): nothing that changed is held
/// as maybe moving by itself, as in an agent's session where a model thinks between
/// actions. At the 500 ms pacing, a text's change is held 300 ms and a count's 1.2 s.
const SETTLED_PAUSE: Duration = Duration::from_millis(2500);

/// CLOCK_MONOTONIC in ms: the clock the fixture app stamps its log with.
fn monotonic_ms() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

/// One row of the table: a case's samples (ms) and what went wrong while taking them.
struct Row {
    case: &'static str,
    times: Vec<f64>,
    /// Actions (or waits) that did not succeed; their times are still counted.
    failed: usize,
    /// Actions that needed more than one attempt.
    retried: usize,
}

impl Row {
    /// The `q` quantile (nearest rank) of the samples.
    fn quantile(&self, q: f64) -> f64 {
        deft_harness::campaign::nearest_rank(&self.times, q)
    }
}

/// A left click on the button with accessible name `name`.
fn click(name: &str) -> Action {
    Action::Click {
        target: Target::Selector(selector::parse(&format!("role=push_button name=\"{name}\"")).unwrap()),
        button: MouseButton::Left,
        count: 1,
    }
}

/// Connects a fresh executor, performs `actions[0]` once unmeasured, then times
/// `samples` actions taken from `actions` in turn (starting after the warm-up's).
fn clicks(
    rt: &Runtime,
    a11y: DesktopConfig,
    config: ExecutorConfig,
    case: &'static str,
    actions: &[Action],
    samples: usize,
    pause: Duration,
) -> Row {
    let exec: Executor = rt.block_on(Executor::connect(config, &a11y)).expect("executor connects");
    rt.block_on(exec.perform(&actions[0])); // warm up
    let mut row = Row { case, times: Vec::new(), failed: 0, retried: 0 };
    for i in 1..=samples {
        std::thread::sleep(pause);
        let action = &actions[i % actions.len()];
        let t = Instant::now();
        let o = rt.block_on(exec.perform(action));
        row.times.push(t.elapsed().as_secs_f64() * 1e3);
        row.failed += usize::from(!o.ok);
        row.retried += usize::from(o.retried);
    }
    row
}

/// Wait reaction: a wait for the next order's status text, triggered by a plain click on
/// Submit from another executor 300 ms later; the sample is the wait's return minus the
/// app's log time of the order. One unmeasured round first.
fn wait_reaction(
    rt: &Runtime,
    app: &FixtureApp,
    a11y: &dyn Fn() -> DesktopConfig,
    config: &dyn Fn() -> ExecutorConfig,
    samples: usize,
) -> Row {
    let waiter: Executor = rt.block_on(Executor::connect(config(), &a11y())).expect("executor connects");
    let clicker: Executor = rt.block_on(Executor::connect(config(), &a11y())).expect("executor connects");
    let submit = click("Submit order");
    let mut row =
        Row { case: "wait reaction (app logs the change -> wait returns)", times: Vec::new(), failed: 0, retried: 0 };
    for i in 0..=samples {
        std::thread::sleep(PAUSE);
        let orders = app.count("order_submitted", None);
        let cond = Condition::TextAppears(TextMatch::Exact(format!("Order {} submitted", orders + 1)));
        let (w, _) = rt.block_on(async {
            let wait = waiter.wait(&cond, Duration::from_secs(5));
            let click = async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                clicker.perform(&submit).await
            };
            tokio::join!(wait, click)
        });
        let end = monotonic_ms();
        let logged = app
            .wait_for(|e| e.kind == "order_submitted" && e.raw["count"] == orders as u64 + 1, Duration::from_secs(5));
        if i == 0 {
            continue; // warm up
        }
        match logged {
            Ok(e) if w.met => row.times.push(end - e.t),
            _ => row.failed += 1,
        }
    }
    row
}

/// Prints the bus events of one verified click (default delay) on Submit, relative to the first.
fn trace(rt: &Runtime, a11y: DesktopConfig, config: ExecutorConfig) {
    let bus = deft_bus::Bus::<deft_verify::VerifyEvent>::new(deft_bus::BusConfig { capacity: 256 });
    let mut sub = bus.subscribe("trace");
    let exec: Executor =
        rt.block_on(Executor::connect(ExecutorConfig { bus: Some(bus.clone()), ..config }, &a11y)).unwrap();
    let submit = click("Submit order");
    rt.block_on(exec.perform(&submit));
    while sub.try_recv().is_ok() {}
    std::thread::sleep(PAUSE);
    rt.block_on(exec.perform(&submit));
    println!("\nbus events of one verified click on Submit (default verify delay):\n");
    let mut t0 = None;
    while let Ok(deft_bus::Received::Event(env)) = sub.try_recv() {
        let t = *t0.get_or_insert(env.at_us);
        let s = format!("{:?}", env.event);
        println!("    {:>8.1} ms  {}", (env.at_us - t) as f64 / 1e3, &s[..s.len().min(140)]);
    }
}

/// Runs the cases and prints the table.
fn main() {
    let samples: usize = std::env::var("DEFT_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(SAMPLES);
    let desktop = Desktop::start().expect("desktop");
    let app = FixtureApp::launch(
        &desktop,
        &FixtureOptions { loading: Some(Duration::from_millis(10)), ..FixtureOptions::default() },
    )
    .expect("fixture app");
    std::thread::sleep(Duration::from_millis(500));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let a11y = || DesktopConfig {
        display: Some(desktop.display().to_string()),
        session_bus: Some(desktop.bus_address().to_string()),
        ..DesktopConfig::default()
    };
    let config = |verify: bool, verify_delay_ms: Option<u64>| ExecutorConfig {
        verify,
        verify_delay_ms,
        ..ExecutorConfig::default()
    };
    let frames_dir = std::env::temp_dir().join(format!("deft-bench-frames-{}", std::process::id()));
    let framed = |verify: bool| {
        let bus = deft_bus::Bus::new(deft_bus::BusConfig::default());
        let store = deft_trace::FrameStore::open(&frames_dir, deft_trace::FrameBudget::default()).expect("frames dir");
        let recorder = deft_verify::FrameRecorder::start(store, bus.clone()).expect("frame writer");
        ExecutorConfig { frames: Some(recorder), bus: Some(bus), ..config(verify, None) }
    };
    let submit = [click("Submit order")];
    let alternating = [click("Hello"), click("Submit order")];

    let rows = [
        clicks(&rt, a11y(), config(false, None), "plain click on Submit (verify off)", &submit, samples, PAUSE),
        clicks(
            &rt,
            a11y(),
            config(true, None),
            "verified click, default delay, alternating Hello / Submit (no focus before)",
            &alternating,
            samples,
            PAUSE,
        ),
        clicks(
            &rt,
            a11y(),
            config(true, None),
            "verified click on Submit, default delay, same button (has the focus: its press is watched)",
            &submit,
            samples,
            PAUSE,
        ),
        clicks(&rt, a11y(), config(true, Some(0)), "verified click on Submit, verify delay 0", &submit, samples, PAUSE),
        clicks(
            &rt,
            a11y(),
            config(true, None),
            "verified click on Submit, same button, 150 ms after the last (press watched through accessibility only)",
            &submit,
            samples,
            SHORT_PAUSE,
        ),
        wait_reaction(&rt, &app, &a11y, &|| config(false, Some(0)), samples),
        clicks(&rt, a11y(), framed(false), "plain click on Submit, frames recorded", &submit, samples, PAUSE),
        clicks(
            &rt,
            a11y(),
            framed(true),
            "verified click, alternating Hello / Submit, frames recorded",
            &alternating,
            samples,
            PAUSE,
        ),
        clicks(
            &rt,
            a11y(),
            config(true, None),
            "verified click, alternating Hello / Submit, 2.5 s apart (the app heard long enough: nothing held)",
            &alternating,
            samples,
            SETTLED_PAUSE,
        ),
        clicks(
            &rt,
            a11y(),
            config(true, None),
            "verified click on Submit, same button, 2.5 s apart (nothing held)",
            &submit,
            samples,
            SETTLED_PAUSE,
        ),
    ];
    let _ = std::fs::remove_dir_all(&frames_dir);

    println!(
        "\nverification overhead on the fixture app ({samples} samples per case after one warm-up, \
         {} ms pacing between actions unless the case says otherwise, untimed)\n",
        PAUSE.as_millis()
    );
    println!("| case | median ms | p90 ms | overhead vs plain (median) | notes |");
    println!("| --- | --- | --- | --- | --- |");
    let plain = rows[0].quantile(0.5);
    for (i, row) in rows.iter().enumerate() {
        let (median, p90) =
            if row.times.is_empty() { (f64::NAN, f64::NAN) } else { (row.quantile(0.5), row.quantile(0.9)) };
        let overhead = match i {
            0 => "baseline".to_string(),
            5 => "n/a".to_string(),
            _ => format!("{:+.1} ms (x{:.2})", median - plain, median / plain),
        };
        let notes = if i == 5 {
            format!("{} ok, {} failed", row.times.len(), row.failed)
        } else {
            format!("{} ok, {} failed, {} retried", row.times.len() - row.failed, row.failed, row.retried)
        };
        println!("| {} | {median:.1} | {p90:.1} | {overhead} | {notes} |", row.case);
    }

    if std::env::var("DEFT_BENCH_TRACE").is_ok_and(|v| v == "1") {
        trace(&rt, a11y(), config(true, None));
    }
}
