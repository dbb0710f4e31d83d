//! The fleet's queue, in-process and on a real `nats-server` (JetStream, loopback), in one
//! run: its own overhead per task (submit to the runner starting; the runner's end to the
//! result readable), the time from a worker stopping (no heartbeat, no ack) to its task
//! running again, and tasks per minute with 1, 2 and 3 workers whose tasks take a fixed
//! 200 ms (a stand-in for a desktop's work: this measures the queue's scaling, not a
//! desktop's speed).
//!
//! `cargo bench -p deft-fleet --bench fleet` (or `cargo xtask bench fleet`);
//! `DEFT_BENCH_RUNS` tasks per case (default 100). Prints a markdown table.
#![allow(clippy::print_stdout)] // a benchmark reports on stdout
#![allow(missing_docs)]

use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use deft_fleet::{
    Claim, Lease, MemoryQueue, NatsOptions, NatsQueue, Offer, Queue, QueueConfig, RunEnd, Runner, Task, TaskRecord,
    Worker, lease, submit,
};
use deft_harness::nats::NatsServer;

/// Records when it started and ended; sleeps `work` in between.
struct Timed {
    work: Duration,
    started: Mutex<Option<Instant>>,
    ended: Mutex<Option<Instant>>,
}

#[async_trait]
impl Runner for Timed {
    async fn run(&self, _task: &Task, _resume: &TaskRecord, _lease: &Lease<'_>) -> RunEnd {
        *self.started.lock().unwrap() = Some(Instant::now());
        tokio::time::sleep(self.work).await;
        *self.ended.lock().unwrap() = Some(Instant::now());
        RunEnd::Done { summary: "done".into(), output: serde_json::Value::Null }
    }
}

fn timed(work: Duration) -> Timed {
    Timed { work, started: Mutex::new(None), ended: Mutex::new(None) }
}

fn worker(name: &str) -> Worker {
    Worker { name: name.into(), pool: "bench".into(), offer: Offer { session: "x11".into(), ..Offer::default() } }
}

fn task(id: String) -> Task {
    Task {
        id,
        pool: "bench".into(),
        needs: Default::default(),
        body: serde_json::json!({ "kind": "flow", "flow": "steps:\n  - click: Hello\n" }),
        max_attempts: 3,
        submitted_ms: lease::now_ms(),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn p95(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get((v.len() * 95 / 100).min(v.len().saturating_sub(1))).copied().unwrap_or(f64::NAN)
}

/// Submit to start, and the runner's end to the result readable, in ms.
async fn overhead(q: &dyn Queue, runs: usize, tag: &str) -> (Vec<f64>, Vec<f64>) {
    let w = worker("w");
    q.advertise(&w.info(None)).await.unwrap();
    let (mut start, mut end) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let runner = timed(Duration::ZERO);
        let t0 = Instant::now();
        submit(q, task(format!("{tag}-o{i}"))).await.unwrap();
        w.serve_one(q, &runner, Duration::from_secs(5)).await.unwrap();
        let record = lease::record(q, &format!("{tag}-o{i}")).await.unwrap().unwrap();
        let t_result = Instant::now();
        assert!(record.state.ended());
        let started = runner.started.lock().unwrap().unwrap();
        let ended = runner.ended.lock().unwrap().unwrap();
        start.push((started - t0).as_secs_f64() * 1e3);
        end.push((t_result - ended).as_secs_f64() * 1e3);
    }
    (start, end)
}

/// From a worker's last word (its claim) to the task running on another, in ms.
async fn takeover(q: &dyn Queue, runs: usize, tag: &str) -> Vec<f64> {
    let (a, b) = (worker("a"), worker("b"));
    q.advertise(&a.info(None)).await.unwrap();
    let mut out = Vec::new();
    for i in 0..runs {
        submit(q, task(format!("{tag}-t{i}"))).await.unwrap();
        let delivery = q.next("bench", Duration::from_secs(5)).await.unwrap().unwrap();
        let Claim::Held(_) = lease::claim(q, delivery.as_ref(), "a", &a.offer).await.unwrap() else { panic!() };
        let died = Instant::now();
        drop(delivery);
        let runner = timed(Duration::ZERO);
        b.serve_one(q, &runner, Duration::from_secs(30)).await.unwrap();
        out.push((runner.started.lock().unwrap().unwrap() - died).as_secs_f64() * 1e3);
    }
    out
}

/// Tasks per minute with `n` workers serving at once, each task `work` long.
async fn throughput(q: &(dyn Queue + 'static), n: usize, tasks: usize, work: Duration, tag: &str) -> f64 {
    let workers: Vec<Worker> = (0..n).map(|i| worker(&format!("w{i}"))).collect();
    for w in &workers {
        q.advertise(&w.info(None)).await.unwrap();
    }
    for i in 0..tasks {
        submit(q, task(format!("{tag}-n{n}-{i}"))).await.unwrap();
    }
    let t0 = Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let serve = |w: &Worker| {
        let done = &done;
        let w = w.clone();
        async move {
            while done.load(std::sync::atomic::Ordering::SeqCst) < tasks {
                let runner = timed(work);
                if let deft_fleet::Served::Ran(..) = w.serve_one(q, &runner, Duration::from_millis(200)).await.unwrap()
                {
                    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
    };
    futures_util::future::join_all(workers.iter().map(serve)).await;
    tasks as f64 / t0.elapsed().as_secs_f64() * 60.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let runs: usize = std::env::var("DEFT_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(100);
    let config = QueueConfig { ack_wait: Duration::from_secs(1), ..QueueConfig::default() };
    let server = NatsServer::start();
    let mut options = NatsOptions::new(&server.url);
    options.config = config.clone();
    let nats: &'static NatsQueue = Box::leak(Box::new(NatsQueue::connect(&options).await.expect("nats-server")));
    let memory: &'static MemoryQueue = Box::leak(Box::new(MemoryQueue::new(config)));
    let queues: [(&str, &'static (dyn Queue + 'static)); 2] = [("in-process", memory), ("NATS JetStream", nats)];
    println!(
        "| queue | submit → start, median / p95 ms | end → result, median / p95 ms | worker stops → task runs again, median ms (ack wait 1 s) | tasks/min, 1 / 2 / 3 workers (200 ms tasks) |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (name, q) in queues {
        let tag = name.split(' ').next().unwrap_or(name).to_lowercase().replace('-', "");
        let (mut start, mut end) = overhead(q, runs, &tag).await;
        let mut take = takeover(q, (runs / 10).max(3), &tag).await;
        let work = Duration::from_millis(200);
        let mut per_min = Vec::new();
        for n in 1..=3 {
            per_min.push(throughput(q, n, 30, work, &tag).await);
        }
        println!(
            "| {name} | {:.2} / {:.2} | {:.2} / {:.2} | {:.0} | {:.0} / {:.0} / {:.0} |",
            median(&mut start),
            p95(&mut start),
            median(&mut end),
            p95(&mut end),
            median(&mut take),
            per_min[0],
            per_min[1],
            per_min[2]
        );
    }
    drop(server);
}
