//! Slow and absent subscribers: the publisher never waits, and every missed event is counted.

use std::time::{Duration, Instant};

use deft_bus::{Bus, BusConfig, Received};

use crate::{Ev, drain, seqs};

#[test]
fn capacity_is_rounded_up_to_a_power_of_two() {
    assert_eq!(Bus::<Ev>::new(BusConfig { capacity: 5 }).capacity(), 8);
    assert_eq!(Bus::<Ev>::new(BusConfig { capacity: 0 }).capacity(), 1);
    assert_eq!(Bus::<Ev>::default().capacity(), 1024);
}

#[test]
fn a_subscriber_that_never_reads_lags_by_exactly_the_overflow() {
    const K: u64 = 5;
    let bus = Bus::<Ev>::new(BusConfig { capacity: 8 });
    let cap = bus.capacity() as u64;
    let mut idle = bus.subscribe("idle");
    for i in 1..=cap + K {
        assert_eq!(bus.publish("test", Ev::Tick(i)), i, "publish is unchanged by the lag");
    }
    let stats = bus.stats();
    assert_eq!(stats.published, cap + K);
    assert_eq!(stats.total_lagged, K);
    let s = &stats.subscribers[0];
    assert_eq!((s.name.as_str(), s.received, s.lagged, s.pending), ("idle", 0, K, cap));

    // Its first read reports the loss, then it sees the newest `cap` events.
    let got = drain(&mut idle);
    assert_eq!(got[0], Received::Lagged { missed: K });
    assert_eq!(seqs(&got), (K + 1..=cap + K).collect::<Vec<_>>());
    let stats = bus.stats();
    assert_eq!(stats.total_lagged, K, "reading the report does not count it twice");
    let s = &stats.subscribers[0];
    assert_eq!((s.received, s.lagged, s.pending), (cap, K, 0));
}

#[test]
fn a_stalled_subscriber_does_not_block_a_million_publishes() {
    const N: u64 = 1_000_000;
    let bus = Bus::<u64>::new(BusConfig { capacity: 64 });
    let _stalled = bus.subscribe("stalled");
    let started = Instant::now();
    for i in 0..N {
        bus.publish("test", i);
    }
    // Generous bound for a shared 2-core machine; blocking would hang, not be slow.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(bus.stats().total_lagged, N - 64);
}

#[test]
fn a_slow_subscriber_does_not_change_what_a_fast_one_gets() {
    let bus = Bus::<Ev>::new(BusConfig { capacity: 4 });
    let _slow = bus.subscribe("slow");
    let mut fast = bus.subscribe("fast");
    let mut got = Vec::new();
    for i in 1..=100 {
        bus.publish("test", Ev::Tick(i));
        got.extend(drain(&mut fast));
    }
    assert_eq!(seqs(&got), (1..=100).collect::<Vec<_>>());
    let stats = bus.stats();
    assert_eq!(stats.subscribers[0].lagged, 96);
    assert_eq!(stats.subscribers[1].lagged, 0);
}

#[test]
fn lag_of_a_dropped_subscriber_stays_in_the_total() {
    let bus = Bus::<Ev>::new(BusConfig { capacity: 4 });
    let mut reported = bus.subscribe("reads");
    let unreported = bus.subscribe("never reads");
    for i in 1..=10 {
        bus.publish("test", Ev::Tick(i));
    }
    assert_eq!(drain(&mut reported)[0], Received::Lagged { missed: 6 });
    drop(reported);
    drop(unreported);
    let stats = bus.stats();
    assert!(stats.subscribers.is_empty());
    assert_eq!(stats.total_lagged, 12);
}

#[test]
fn stats_display_names_every_subscriber() {
    let bus = Bus::<Ev>::new(BusConfig { capacity: 1 });
    let _sub = bus.subscribe("trace");
    bus.publish("test", Ev::Tick(1));
    bus.publish("test", Ev::Tick(2));
    let text = bus.stats().to_string();
    assert_eq!(text, "published 2, lagged 1 in total, 1 subscriber(s); trace#0: received 0, lagged 1, pending 1");
}
