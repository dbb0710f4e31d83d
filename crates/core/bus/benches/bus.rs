//! Benchmarks: publish throughput (0, 1, 8 subscribers), delivered throughput and latency.
//!
//! Subscribers are plain threads in `blocking_recv`, the way the trace recorder runs.
//! Throughput subscribers drain concurrently and may lag; the lag is printed, not hidden.
//! Run with `cargo bench -p deft-bus`; results are kept in docs/BENCHMARKS.md.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use deft_bus::{Bus, BusConfig, Received};
use divan::Bencher;
use divan::counter::ItemsCount;

/// Subscriber accounting per benchmark, printed after divan's table so it stays readable.
static REPORT: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn main() {
    divan::main();
    println!("\nsubscriber accounting (lag is part of the result):");
    for line in REPORT.lock().unwrap().iter() {
        println!("  {line}");
    }
}

/// Subscriber threads that count what they receive; they end when the bus drops.
struct Subscribers {
    threads: Vec<JoinHandle<()>>,
    received: Arc<AtomicU64>,
}

impl Subscribers {
    fn spawn(bus: &Bus<u64>, n: usize) -> Self {
        let received = Arc::new(AtomicU64::new(0));
        let threads = (0..n)
            .map(|i| {
                let mut sub = bus.subscribe(format!("bench{i}"));
                let received = Arc::clone(&received);
                std::thread::spawn(move || {
                    while let Some(r) = sub.blocking_recv() {
                        if let Received::Event(env) = r {
                            divan::black_box(env.event);
                            received.fetch_add(1, Ordering::Release);
                        }
                    }
                })
            })
            .collect();
        Self { threads, received }
    }

    /// Waits until the subscribers together have received `expected` events.
    fn wait_for(&self, expected: u64) {
        let mut spins = 0u32;
        while self.received.load(Ordering::Acquire) < expected {
            // Spin briefly, then give the core away: 2 shared cores, up to 8 subscribers.
            spins += 1;
            if spins < 64 {
                spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    fn join(self, bus: Bus<u64>, label: &str) {
        let stats = bus.stats();
        drop(bus);
        for t in self.threads {
            t.join().unwrap();
        }
        let lagged_pct = if stats.published == 0 || stats.subscribers.is_empty() {
            0.0
        } else {
            let delivered = stats.published * stats.subscribers.len() as u64;
            100.0 * stats.total_lagged as f64 / delivered as f64
        };
        let line = format!("{label}: {stats}; lagged {lagged_pct:.1}% of deliveries");
        REPORT.lock().unwrap().push(line);
    }
}

/// Publish cost seen by the publisher while `subscribers` threads drain concurrently.
#[divan::bench(args = [0, 1, 8], sample_count = 1000, sample_size = 100)]
fn publish(bencher: Bencher, subscribers: usize) {
    let bus = Bus::<u64>::new(BusConfig::default());
    let subs = Subscribers::spawn(&bus, subscribers);
    bencher.counter(ItemsCount::new(1u32)).bench_local(|| bus.publish("bench", divan::black_box(7)));
    subs.join(bus, &format!("publish/{subscribers}"));
}

/// Sustained throughput that every subscriber receives: publish a batch that fits the
/// buffer, then wait until all subscribers have it (the bench waits; the bus never does).
#[divan::bench(args = [1, 8], sample_count = 200, sample_size = 1)]
fn delivered(bencher: Bencher, subscribers: usize) {
    const BATCH: u64 = 1000;
    let bus = Bus::<u64>::new(BusConfig { capacity: 1024 });
    let subs = Subscribers::spawn(&bus, subscribers);
    let mut expected = 0;
    bencher.counter(ItemsCount::new(BATCH)).bench_local(|| {
        for _ in 0..BATCH {
            bus.publish("bench", divan::black_box(7));
        }
        expected += BATCH * subscribers as u64;
        subs.wait_for(expected);
    });
    subs.join(bus, &format!("delivered/{subscribers}"));
}

/// Time from `publish` until every one of `subscribers` threads has received the event.
#[divan::bench(args = [1, 8], sample_count = 1000, sample_size = 1)]
fn publish_to_receive(bencher: Bencher, subscribers: usize) {
    let bus = Bus::<u64>::new(BusConfig::default());
    let subs = Subscribers::spawn(&bus, subscribers);
    let expected_per_publish = subscribers as u64;
    let mut expected = 0;
    bencher.bench_local(|| {
        bus.publish("bench", divan::black_box(7));
        expected += expected_per_publish;
        subs.wait_for(expected);
    });
    subs.join(bus, &format!("publish_to_receive/{subscribers}"));
}
