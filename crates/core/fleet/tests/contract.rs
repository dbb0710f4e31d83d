//! The queue's contract, the same test body against both implementations: routing by what
//! a desktop offers, leases that refuse a lost worker's late writes, redelivery that
//! resumes from the record, a task started too often reported, names checked.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use deft_fleet::{
    Cancel, Claim, FleetError, Lease, LeaseError, MemoryQueue, NatsOptions, NatsQueue, Needs, Offer, Queue,
    QueueConfig, RunEnd, Runner, Served, SubmitError, Task, TaskRecord, TaskState, Worker, lease, submit,
};

use deft_harness::nats::NatsServer;

/// A short ack wait, so a worker that stops answering is replaced within the test.
fn config() -> QueueConfig {
    QueueConfig {
        ack_wait: Duration::from_secs(1),
        max_deliver: 20,
        worker_ttl: Duration::from_secs(2),
        ..QueueConfig::default()
    }
}

/// Runs `$body(queue)` once on each implementation.
macro_rules! both {
    ($name:ident, $body:ident) => {
        mod $name {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn in_process() {
                $body(&MemoryQueue::new(config())).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn on_nats_jetstream() {
                let server = NatsServer::start();
                let mut options = NatsOptions::new(&server.url);
                options.config = config();
                let queue = NatsQueue::connect(&options).await.expect("connects to nats-server");
                $body(&queue).await;
                drop(server);
            }
        }
    };
}

both!(a_task_no_live_worker_can_run_is_refused_at_submit, no_matching_worker);
both!(a_task_runs_once_and_its_record_says_how, runs_once);
both!(a_dead_workers_task_resumes_elsewhere_and_its_late_writes_are_refused, redelivery);
both!(a_task_started_too_often_is_reported_failed, exhausted);
both!(a_desktop_that_cannot_run_a_task_hands_it_to_one_that_can, routing);
both!(ids_and_pools_are_checked_and_never_taken_twice, names);
both!(a_task_whose_only_able_desktop_left_fails_with_why_at_its_next_delivery, able_one_left);
both!(a_cancelled_task_never_runs_or_stops_after_its_step_in_hand, cancelled);
both!(a_run_s_trace_larger_than_a_message_is_kept_with_its_record, traces);

fn worker(name: &str, apps: &[&str]) -> Worker {
    let offer = Offer { session: "x11".into(), apps: apps.iter().map(|a| a.to_string()).collect(), ..Offer::default() };
    Worker { name: name.into(), pool: "desk".into(), offer }
}

fn task(id: &str, steps: usize, apps: &[&str], max_attempts: u32) -> Task {
    Task {
        id: id.into(),
        pool: "desk".into(),
        needs: Needs { apps: apps.iter().map(|a| a.to_string()).collect(), ..Needs::default() },
        body: serde_json::json!({ "steps": steps }),
        max_attempts,
        submitted_ms: lease::now_ms(),
    }
}

/// Stands in for a desktop: each step's effect is a line in an app's log, and a step in
/// flight when a worker died is looked for in the log before it is done again.
#[derive(Clone, Default)]
struct LogRunner {
    app_log: Arc<Mutex<Vec<String>>>,
    /// After this step, say so and give a canceller a moment.
    cancel_after: Option<(usize, Arc<tokio::sync::Notify>)>,
}

fn ended(e: LeaseError) -> RunEnd {
    match e {
        LeaseError::Lost { .. } => RunEnd::Lost,
        LeaseError::Cancelled { why, .. } => RunEnd::Cancelled { summary: why },
        LeaseError::Fleet(e) => panic!("{e}"),
    }
}

#[async_trait]
impl Runner for LogRunner {
    async fn run(&self, task: &Task, resume: &TaskRecord, lease: &Lease<'_>) -> RunEnd {
        let steps = task.body["steps"].as_u64().unwrap_or(0) as usize;
        for step in 0..steps {
            if resume.done.iter().any(|d| d.step == step) {
                continue;
            }
            let effect = format!("{} step {step}", task.id);
            let already = resume.in_flight == Some(step) && self.app_log.lock().unwrap().contains(&effect);
            if let Err(e) = lease.started(step).await {
                return ended(e);
            }
            if !already {
                self.app_log.lock().unwrap().push(effect);
            }
            let outcome = serde_json::json!({ "step": step, "already": already });
            if let Err(e) = lease.done(step, outcome).await {
                return ended(e);
            }
            if let Some(cancel) = self.cancel_after.as_ref().filter(|(at, _)| *at == step) {
                cancel.1.notify_one();
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
        RunEnd::Done { summary: format!("{steps} steps done"), output: serde_json::Value::Null }
    }
}

async fn no_matching_worker(q: &dyn Queue) {
    let err = submit(q, task("t1", 1, &[], 3)).await.unwrap_err();
    assert!(
        matches!(&err, SubmitError::NoMatchingWorker { .. }) && err.to_string().contains("has no live worker"),
        "{err}"
    );
    q.advertise(&worker("w1", &["gedit"]).info(None)).await.unwrap();
    let err = submit(q, task("t1", 1, &["Deft Fixture"], 3)).await.unwrap_err();
    assert_eq!(err.to_string(), "no matching worker in pool \"desk\": w1 lacks Deft Fixture running (it runs gedit)");
    // Nothing was queued by the refused submits; and asking an empty pool waits for a task
    // (an idle worker must not ask hundreds of times a second).
    let asked = std::time::Instant::now();
    assert!(q.next("desk", Duration::from_millis(500)).await.unwrap().is_none());
    assert!(asked.elapsed() >= Duration::from_millis(400), "answered at once: {:?}", asked.elapsed());
}

async fn runs_once(q: &dyn Queue) {
    let w = worker("w1", &["Deft Fixture"]);
    let runner = LogRunner::default();
    q.advertise(&w.info(None)).await.unwrap();
    submit(q, task("t1", 3, &["Deft Fixture"], 3)).await.unwrap();
    let served = w.serve_one(q, &runner, Duration::from_secs(5)).await.unwrap();
    assert!(matches!(&served, Served::Ran(id, RunEnd::Done { .. }) if id == "t1"), "{served:?}");
    assert_eq!(*runner.app_log.lock().unwrap(), ["t1 step 0", "t1 step 1", "t1 step 2"]);
    let record = lease::record(q, "t1").await.unwrap().unwrap();
    assert_eq!(record.state, TaskState::Done);
    assert_eq!(record.attempts.len(), 1);
    assert_eq!(record.done.len(), 3);
    let result = record.result.unwrap();
    assert!(result.ok && result.worker == "w1" && result.summary == "3 steps done", "{result:?}");
    // Acked: never delivered again, even after the ack wait.
    assert!(q.next("desk", Duration::from_millis(1500)).await.unwrap().is_none());
    assert_eq!(lease::records(q).await.unwrap().len(), 1);
}

async fn redelivery(q: &dyn Queue) {
    let (a, b) = (worker("a", &[]), worker("b", &[]));
    q.advertise(&a.info(None)).await.unwrap();
    submit(q, task("t1", 3, &[], 3)).await.unwrap();
    let runner = LogRunner::default();

    // Worker a does step 0, starts step 1 (its effect lands), then stops answering.
    let delivery = q.next("desk", Duration::from_secs(5)).await.unwrap().expect("delivered");
    assert_eq!(delivery.delivered(), 1);
    let Claim::Held(held) = lease::claim(q, delivery.as_ref(), "a", &a.offer).await.unwrap() else {
        panic!("a holds the task")
    };
    held.started(0).await.unwrap();
    runner.app_log.lock().unwrap().push("t1 step 0".into());
    held.done(0, serde_json::json!({})).await.unwrap();
    held.started(1).await.unwrap();
    runner.app_log.lock().unwrap().push("t1 step 1".into());

    // No heartbeat: after the ack wait the task goes to b, which resumes from the record.
    let served = b.serve_one(q, &runner, Duration::from_secs(10)).await.unwrap();
    assert!(matches!(&served, Served::Ran(_, RunEnd::Done { .. })), "{served:?}");
    assert_eq!(*runner.app_log.lock().unwrap(), ["t1 step 0", "t1 step 1", "t1 step 2"], "every effect exactly once");
    let record = lease::record(q, "t1").await.unwrap().unwrap();
    assert_eq!(record.state, TaskState::Done);
    assert_eq!(record.attempts.iter().map(|a| a.worker.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    assert!(record.attempts[0].ended.as_deref().unwrap().contains("stopped answering"), "{:?}", record.attempts);
    let step1 = record.done.iter().find(|d| d.step == 1).unwrap();
    assert_eq!((step1.attempt, &step1.outcome["already"]), (2, &serde_json::json!(true)));

    // a comes back late: its writes are refused, the record stays b's.
    let err = held.done(1, serde_json::json!({})).await.unwrap_err();
    assert!(err.to_string().contains("lost its lease"), "{err}");
    assert!(matches!(held.finish(false, "late".into(), serde_json::Value::Null).await, Err(LeaseError::Lost { .. })));
    assert_eq!(lease::record(q, "t1").await.unwrap().unwrap(), record);
}

async fn exhausted(q: &dyn Queue) {
    let w = worker("a", &[]);
    q.advertise(&w.info(None)).await.unwrap();
    submit(q, task("t1", 2, &[], 1)).await.unwrap();
    let delivery = q.next("desk", Duration::from_secs(5)).await.unwrap().unwrap();
    let Claim::Held(held) = lease::claim(q, delivery.as_ref(), "a", &w.offer).await.unwrap() else { panic!() };
    held.started(0).await.unwrap();
    drop(delivery);
    let served = w.serve_one(q, &LogRunner::default(), Duration::from_secs(10)).await.unwrap();
    assert_eq!(served, Served::Exhausted("t1".into()));
    let record = lease::record(q, "t1").await.unwrap().unwrap();
    assert_eq!(record.state, TaskState::Failed);
    let summary = record.result.unwrap().summary;
    assert_eq!(
        summary,
        "started 1 time(s), the last by a at step 1, and never finished: no more attempts (max_attempts 1)"
    );
    assert!(q.next("desk", Duration::from_millis(1500)).await.unwrap().is_none(), "given up: not delivered again");
}

async fn routing(q: &dyn Queue) {
    let (plain, fixture) = (worker("plain", &["gedit"]), worker("fixture", &["Deft Fixture"]));
    q.advertise(&plain.info(None)).await.unwrap();
    q.advertise(&fixture.info(None)).await.unwrap();
    submit(q, task("t1", 1, &["Deft Fixture"], 3)).await.unwrap();
    let runner = LogRunner::default();
    assert_eq!(plain.serve_one(q, &runner, Duration::from_secs(5)).await.unwrap(), Served::Refused("t1".into()));
    let served = fixture.serve_one(q, &runner, Duration::from_secs(5)).await.unwrap();
    assert!(matches!(&served, Served::Ran(_, RunEnd::Done { .. })), "{served:?}");
    let record = lease::record(q, "t1").await.unwrap().unwrap();
    assert_eq!((record.refusals, record.attempts.len(), record.state), (1, 1, TaskState::Done));
}

async fn names(q: &dyn Queue) {
    q.advertise(&worker("w", &[]).info(None)).await.unwrap();
    submit(q, task("t1", 1, &[], 3)).await.unwrap();
    let err = submit(q, task("t1", 1, &[], 3)).await.unwrap_err();
    assert_eq!(err.to_string(), "a task with id \"t1\" exists already");
    let err = submit(q, task("t3", 1, &[], 20)).await.unwrap_err();
    assert_eq!(err.to_string(), "max_attempts 20: give 1 to 19 (the queue delivers a task at most 20 times)");
    let err = submit(q, task("t.2", 1, &[], 3)).await.unwrap_err();
    assert!(err.to_string().contains("use letters, digits"), "{err}");
    assert!(matches!(q.next("desk.*", Duration::ZERO).await, Err(FleetError::Invalid(_))));
    // The registry forgets a worker that stops saying it is alive.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert!(q.workers().await.unwrap().is_empty(), "{:?}", q.workers().await.unwrap());
}

async fn able_one_left(q: &dyn Queue) {
    let (plain, fixture) = (worker("plain", &["gedit"]), worker("fixture", &["Deft Fixture"]));
    q.advertise(&fixture.info(None)).await.unwrap();
    submit(q, task("t1", 1, &["Deft Fixture"], 3)).await.unwrap();
    // The fixture's desktop stops saying it is alive; only one that cannot run it is left.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let served = plain.serve_one(q, &LogRunner::default(), Duration::from_secs(5)).await.unwrap();
    assert_eq!(served, Served::Exhausted("t1".into()));
    let record = lease::record(q, "t1").await.unwrap().unwrap();
    assert_eq!(record.state, TaskState::Failed);
    let summary = record.result.unwrap().summary;
    assert_eq!(summary, "no live worker can run it any more: plain lacks Deft Fixture running (it runs gedit)");
    assert!(q.next("desk", Duration::from_millis(1500)).await.unwrap().is_none(), "not delivered again");
}

async fn cancelled(q: &dyn Queue) {
    let w = worker("w", &[]);
    q.advertise(&w.info(None)).await.unwrap();
    // Queued: never run, and its delivery is acked.
    submit(q, task("t1", 2, &[], 3)).await.unwrap();
    let Cancel::Cancelled(record) = lease::cancel(q, "t1", "ops", "wrong customer").await.unwrap() else { panic!() };
    assert_eq!(record.result.unwrap().summary, "cancelled by ops: wrong customer");
    let runner = LogRunner::default();
    assert_eq!(w.serve_one(q, &runner, Duration::from_secs(5)).await.unwrap(), Served::Ended("t1".into()));
    assert!(runner.app_log.lock().unwrap().is_empty());
    assert!(q.next("desk", Duration::from_millis(1500)).await.unwrap().is_none(), "acked: not delivered again");
    // Ended: left as it was.
    assert!(
        matches!(lease::cancel(q, "t1", "ops", "").await.unwrap(), Cancel::Ended(r) if r.state == TaskState::Cancelled)
    );
    assert_eq!(lease::cancel(q, "nope", "ops", "").await.unwrap(), Cancel::Unknown);

    // Running: the worker stops after the step in hand, and acks.
    submit(q, task("t2", 3, &[], 3)).await.unwrap();
    let after_first = Arc::new(tokio::sync::Notify::new());
    let runner = LogRunner { cancel_after: Some((0, Arc::clone(&after_first))), ..LogRunner::default() };
    let cancelling = async {
        after_first.notified().await;
        lease::cancel(q, "t2", "ops", "").await.unwrap()
    };
    let (served, cancel) = tokio::join!(w.serve_one(q, &runner, Duration::from_secs(5)), cancelling);
    assert!(matches!(cancel, Cancel::Cancelled(_)), "{cancel:?}");
    let served = served.unwrap();
    assert!(
        matches!(&served, Served::Ran(_, RunEnd::Cancelled { summary }) if summary == "cancelled by ops"),
        "{served:?}"
    );
    assert_eq!(*runner.app_log.lock().unwrap(), ["t2 step 0"], "nothing after the step in hand");
    let record = lease::record(q, "t2").await.unwrap().unwrap();
    assert_eq!((record.state, record.done.len()), (TaskState::Cancelled, 1));
    assert_eq!(record.attempts[0].ended.as_deref(), Some("cancelled by ops"));
    assert!(q.next("desk", Duration::from_millis(1500)).await.unwrap().is_none(), "acked: not delivered again");
}

/// Clients that connect at once to a fresh server (a worker starting while `agent-cli
/// fleet` looks) all find the stream and buckets missing and all create them: each one
/// connects, whichever made them. (Seen once from two processes as "subjects overlap with
/// an existing stream"; not reproduced in-process, 8 clients x 15 servers: this guards the
/// fallback, it does not prove the race.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_connecting_at_once_to_a_fresh_server_all_connect() {
    for _ in 0..3 {
        let server = NatsServer::start();
        let mut options = NatsOptions::new(&server.url);
        options.config = config();
        let connects: Vec<_> = (0..4).map(|_| NatsQueue::connect(&options)).collect();
        let queues = futures_util::future::join_all(connects).await;
        for q in &queues {
            let q = q.as_ref().unwrap_or_else(|e| panic!("{e}"));
            // And each takes from the same pool's consumer, made once.
            assert!(q.next("desk", Duration::from_millis(50)).await.unwrap().is_none());
        }
    }
}

async fn traces(q: &dyn Queue) {
    let w = worker("w", &[]);
    q.advertise(&w.info(None)).await.unwrap();
    submit(q, task("t1", 1, &[], 3)).await.unwrap();
    let delivery = q.next("desk", Duration::from_secs(5)).await.unwrap().unwrap();
    let Claim::Held(held) = lease::claim(q, delivery.as_ref(), "w", &w.offer).await.unwrap() else { panic!() };
    // 3 MB: beyond a NATS message's 1 MB, so it goes in chunks.
    let trace: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let frame = ("frames/00112233aabbccdd.png".to_string(), vec![137, 80, 78, 71]);
    held.attach_trace(trace.clone(), vec![frame.clone()]).await.unwrap();
    held.finish(true, "done".into(), serde_json::Value::Null).await.unwrap();
    delivery.ack().await.unwrap();
    let record = lease::record(q, "t1").await.unwrap().unwrap();
    let kept = &record.traces;
    assert_eq!((kept.len(), kept[0].attempt, kept[0].bytes), (1, 1, 3_000_000), "{kept:?}");
    assert_eq!(lease::trace(q, &kept[0].key).await.unwrap().as_deref(), Some(trace.as_slice()));
    assert_eq!(lease::trace(q, "trace.nope.1").await.unwrap(), None);
    assert_eq!(kept[0].frames, std::slice::from_ref(&frame.0));
    assert!(deft_fleet::TraceRef::is_frame_path(&frame.0));
    for bad in ["frames/../../etc/passwd", "frames/00112233aabbccdd.png/..", "/tmp/x.png", "frames/xyz.png"] {
        assert!(!deft_fleet::TraceRef::is_frame_path(bad), "{bad}");
    }
    let png = lease::trace(q, &deft_fleet::TraceRef::frame_key(&frame.0)).await.unwrap();
    assert_eq!(png, Some(frame.1));
    // Ended: the lease no longer holds it, and nothing more is kept.
    assert!(matches!(held.attach_trace(vec![1], Vec::new()).await, Err(LeaseError::Lost { .. })));
    assert_eq!(lease::record(q, "t1").await.unwrap().unwrap().traces.len(), 1);
}

/// Only signed-in clients reach a fleet whose server wants them to: without credentials,
/// or with wrong ones, the client is refused saying what to give (and a password in the
/// address is never shown); with a password or an nkey, it connects and works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_wants_credentials_refuses_a_client_without_them() {
    let user = nkeys::KeyPair::new_user();
    let auth = format!(
        "authorization {{ users = [ {{ user: deft, password: s3cret }}, {{ nkey: {} }} ] }}",
        user.public_key()
    );
    let server = NatsServer::start_with(Some(&auth));
    let err = NatsQueue::connect(&NatsOptions::new(&server.url)).await.err().expect("refused").to_string();
    assert!(err.contains("refused this client") && err.contains("DEFT_FLEET_NKEY"), "{err}");
    let wrong = server.url.replace("nats://", "nats://deft:nope@");
    let err = NatsQueue::connect(&NatsOptions::new(&wrong)).await.err().expect("refused").to_string();
    assert!(err.contains("refused this client") && !err.contains("nope"), "{err}");

    let password = server.url.replace("nats://", "nats://deft:s3cret@");
    let mut nkey = NatsOptions::new(&server.url);
    nkey.nkey = Some(user.seed().unwrap());
    for (how, mut options) in [("a password", NatsOptions::new(&password)), ("an nkey", nkey)] {
        options.config = config();
        let q = NatsQueue::connect(&options).await.unwrap_or_else(|e| panic!("with {how}: {e}"));
        q.advertise(&worker("w", &[]).info(None)).await.unwrap();
        assert_eq!(q.workers().await.unwrap().len(), 1);
    }
}

/// The registry and the records are listed while workers keep writing them (each refreshes
/// its entry after every task): every listing answers. The client's own key listing once
/// waited for minutes there (a `submit` hung beside three busy workers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_answer_while_workers_write() {
    let server = NatsServer::start();
    let mut options = NatsOptions::new(&server.url);
    options.config = config();
    let q = Arc::new(NatsQueue::connect(&options).await.unwrap());
    let writing = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let writers: Vec<_> = (0..3)
        .map(|i| {
            let (q, writing) = (Arc::clone(&q), Arc::clone(&writing));
            tokio::spawn(async move {
                while writing.load(std::sync::atomic::Ordering::SeqCst) {
                    q.advertise(&worker(&format!("w{i}"), &[]).info(None)).await.unwrap();
                }
            })
        })
        .collect();
    for n in 0..40 {
        let listed = tokio::time::timeout(Duration::from_secs(10), q.workers()).await;
        let workers = listed.unwrap_or_else(|_| panic!("listing {n} did not answer in 10 s")).unwrap();
        assert!(workers.len() <= 3, "{workers:?}");
        let keys = tokio::time::timeout(Duration::from_secs(10), q.keys()).await;
        keys.unwrap_or_else(|_| panic!("record listing {n} did not answer in 10 s")).unwrap();
    }
    writing.store(false, std::sync::atomic::Ordering::SeqCst);
    for w in writers {
        w.await.unwrap();
    }
}
