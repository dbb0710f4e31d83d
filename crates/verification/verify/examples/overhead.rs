//! Verification overhead and wait reaction on the fixture app, on a fresh headless desktop:
//! the median time of a plain click, of a verified click (verify delay 0 and 100 ms), and
//! of a wait's reaction to a change (from the app's log time of the effect to the wait's
//! return). Also prints the bus events of one verified click, to see where time goes.
//!
//! `cargo run --release -p deft-verify --example overhead`
#![allow(clippy::print_stdout)] // an example reports on stdout

use std::time::{Duration, Instant};

use deft_a11y::{AtSpi, AtSpiConfig, selector};
use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_types::{Action, Condition, MouseButton, Target, TextMatch};
use deft_verify::{Executor, ExecutorConfig};

/// CLOCK_MONOTONIC in ms, the clock of the fixture app's log. `Instant` is that clock on
/// Linux, and its Debug form shows it (`Instant { tv_sec: 12, tv_nsec: 34 }`); good enough
/// for an example, without unsafe code or another dependency.
fn mono_ms() -> f64 {
    let s = format!("{:?}", Instant::now());
    let num = |key: &str| -> f64 {
        let i = s.find(key).unwrap() + key.len();
        s[i..].trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    num("tv_sec:") * 1e3 + num("tv_nsec:") / 1e6
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Runs the measurements.
fn main() {
    let desktop = Desktop::start().unwrap();
    let app = FixtureApp::launch(
        &desktop,
        &FixtureOptions { loading: Some(Duration::from_millis(10)), ..FixtureOptions::default() },
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let a11y = || AtSpiConfig { session_bus: Some(desktop.bus_address().to_string()), ..AtSpiConfig::default() };
    let cfg = |verify: bool, delay: u64| ExecutorConfig {
        verify,
        verify_delay_ms: Some(delay),
        display: Some(desktop.display().to_string()),
        ..ExecutorConfig::default()
    };
    let submit = Action::Click {
        target: Target::Selector(selector::parse("role=push_button name=\"Submit order\"").unwrap()),
        button: MouseButton::Left,
        count: 1,
    };
    let n = 15;
    {
        let bus = deft_bus::Bus::<deft_verify::VerifyEvent>::new(deft_bus::BusConfig { capacity: 256 });
        let mut sub = bus.subscribe("probe");
        let exec: Executor<AtSpi> =
            rt.block_on(Executor::connect(ExecutorConfig { bus: Some(bus.clone()), ..cfg(true, 0) }, a11y())).unwrap();
        rt.block_on(exec.perform(&submit));
        while sub.try_recv().is_ok() {}
        std::thread::sleep(Duration::from_millis(200));
        rt.block_on(exec.perform(&submit));
        let mut t0 = None;
        while let Ok(deft_bus::Received::Event(env)) = sub.try_recv() {
            let t = *t0.get_or_insert(env.at_us);
            let s = format!("{:?}", env.event);
            println!("{:>8.1} ms  {}", (env.at_us - t) as f64 / 1e3, &s[..s.len().min(140)]);
        }
    }
    for (label, verify, delay) in [("plain", false, 100), ("verify delay=0", true, 0), ("verify delay=100", true, 100)]
    {
        let exec: Executor<AtSpi> = rt.block_on(Executor::connect(cfg(verify, delay), a11y())).unwrap();
        rt.block_on(exec.perform(&submit)); // warm up
        let mut times = Vec::new();
        for _ in 0..n {
            std::thread::sleep(Duration::from_millis(150));
            let t = Instant::now();
            let o = rt.block_on(exec.perform(&submit));
            times.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(o.ok, "{o:#?}");
        }
        println!(
            "{label}: median {:.1} ms, min {:.1}",
            median(times.clone()),
            times.iter().cloned().fold(f64::MAX, f64::min)
        );
    }
    // Wait reaction: a wait for the next order text, triggered by a plain click from another executor.
    let waiter: Executor<AtSpi> = rt.block_on(Executor::connect(cfg(false, 0), a11y())).unwrap();
    let clicker: Executor<AtSpi> = rt.block_on(Executor::connect(cfg(false, 0), a11y())).unwrap();
    let mut reactions = Vec::new();
    for _ in 0..n {
        let orders = app.count("order_submitted", None);
        let want = format!("Order {} submitted", orders + 1);
        let cond = Condition::TextAppears(TextMatch::Exact(want.clone()));
        let (w, _) = rt.block_on(async {
            let wait = waiter.wait(&cond, Duration::from_secs(5));
            let click = async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                clicker.perform(&submit).await
            };
            tokio::join!(wait, click)
        });
        let end = mono_ms();
        assert!(w.met, "{w:#?}");
        let e = app
            .wait_for(|e| e.kind == "order_submitted" && e.raw["count"] == orders as u64 + 1, Duration::from_secs(5))
            .unwrap();
        reactions.push(end - e.t);
    }
    println!(
        "wait reaction: median {:.1} ms, all {:?}",
        median(reactions.clone()),
        reactions.iter().map(|r| r.round()).collect::<Vec<_>>()
    );
}
