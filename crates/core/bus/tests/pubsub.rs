//! Publish/subscribe: ordering, fan-out, zero subscribers, threads, filters, closing.

use std::collections::HashMap;

use deft_bus::{Bus, BusConfig, Received, TryRecvError};

use crate::{Ev, drain, seqs};

#[test]
fn zero_subscribers_publish_is_counted_and_needs_no_runtime() {
    let bus = Bus::<Ev>::default();
    assert!(!bus.has_subscribers());
    for i in 1..=1000 {
        assert_eq!(bus.publish("test", Ev::Tick(i)), i);
    }
    let stats = bus.stats();
    assert_eq!(stats.published, 1000);
    assert_eq!(stats.total_lagged, 0);
    assert!(stats.subscribers.is_empty());
}

#[test]
fn every_subscriber_gets_every_event_in_order() {
    let bus = Bus::<Ev>::new(BusConfig { capacity: 256 });
    let mut subs: Vec<_> = (0..3).map(|i| bus.subscribe(format!("s{i}"))).collect();
    for i in 1..=200 {
        bus.publish("test", Ev::Tick(i));
    }
    for sub in &mut subs {
        let got = drain(sub);
        assert_eq!(seqs(&got), (1..=200).collect::<Vec<_>>());
        for r in &got {
            let Received::Event(env) = r else { panic!("unexpected lag: {r:?}") };
            assert_eq!(env.event, Ev::Tick(env.seq));
            assert_eq!(env.source, "test");
        }
        assert_eq!(sub.try_recv(), Err(TryRecvError::Empty));
    }
    let stats = bus.stats();
    assert_eq!(stats.total_lagged, 0);
    for s in &stats.subscribers {
        assert_eq!((s.received, s.lagged, s.pending), (200, 0, 0), "{s:?}");
    }
}

#[test]
fn subscription_starts_at_the_next_publish() {
    let bus = Bus::<Ev>::default();
    bus.publish("test", Ev::Tick(1));
    let mut sub = bus.subscribe("late");
    bus.publish("test", Ev::Tick(2));
    assert_eq!(seqs(&drain(&mut sub)), [2]);
    assert_eq!(bus.stats().subscribers[0].received, 1);
}

#[test]
fn at_us_never_decreases_along_seq() {
    let bus = Bus::<Ev>::default();
    let mut sub = bus.subscribe("t");
    for i in 0..500 {
        bus.publish("test", Ev::Tick(i));
    }
    let mut last = 0;
    for r in drain(&mut sub) {
        let Received::Event(env) = r else { panic!("lag") };
        assert!(env.at_us >= last);
        last = env.at_us;
    }
}

/// Two buses of two kinds of event on one clock: what was published first on either has
/// the smaller time, and both say the same origin (their traces merge into one timeline).
#[test]
fn a_bus_on_another_s_clock_orders_with_it_to_the_microsecond() {
    let first = Bus::<Ev>::default();
    std::thread::sleep(std::time::Duration::from_millis(3));
    let second = Bus::<String>::on_the_clock_of(&first, BusConfig::default());
    assert_eq!(second.started(), first.started());
    let (mut a, mut b) = (first.subscribe("a"), second.subscribe("b"));
    fn at<E>(r: Received<E>) -> u64 {
        match r {
            Received::Event(env) => env.at_us,
            Received::Lagged { .. } => panic!("lag"),
        }
    }
    for i in 0..200 {
        first.publish("test", Ev::Tick(i));
        second.publish("test", i.to_string());
    }
    let a: Vec<u64> = drain(&mut a).into_iter().map(at).collect();
    let b: Vec<u64> = drain(&mut b).into_iter().map(at).collect();
    assert!(b[0] >= 3000, "the second bus counts from the first's start: {}", b[0]);
    for i in 0..200 {
        assert!(a[i] <= b[i], "event {i}: the first bus's came first");
        if i + 1 < 200 {
            assert!(b[i] <= a[i + 1], "event {i}: the second bus's came before the next");
        }
    }
}

#[test]
fn publishers_on_many_threads_get_one_strictly_increasing_order() {
    let bus = Bus::<(usize, u64)>::new(BusConfig { capacity: 8192 });
    let mut sub = bus.subscribe("t");
    std::thread::scope(|s| {
        for t in 0..4 {
            let bus = bus.clone();
            s.spawn(move || {
                for i in 0..1000 {
                    bus.publish("thread", (t, i));
                }
            });
        }
    });
    let got = drain(&mut sub);
    assert_eq!(seqs(&got), (1..=4000).collect::<Vec<_>>());
    // Each thread's own events arrive in the order it published them.
    let mut next: HashMap<usize, u64> = HashMap::new();
    for r in got {
        let Received::Event(env) = r else { panic!("lag") };
        let (t, i) = env.event;
        let expected = next.entry(t).or_default();
        assert_eq!(i, *expected);
        *expected += 1;
    }
}

#[tokio::test]
async fn async_reader_with_a_publisher_thread_accounts_for_every_event() {
    const N: u64 = 20_000;
    let bus = Bus::<Ev>::new(BusConfig { capacity: 64 });
    let mut sub = bus.subscribe("async");
    let publisher = {
        let bus = bus.clone();
        std::thread::spawn(move || {
            for i in 1..=N {
                bus.publish("thread", Ev::Tick(i));
            }
        })
    };
    drop(bus);
    let (mut received, mut lagged, mut last) = (0, 0, 0);
    while let Some(r) = sub.recv().await {
        match r {
            Received::Event(env) => {
                // `last` already skips the missed events of a lag report: any other gap
                // would be a silent loss.
                assert_eq!(env.seq, last + 1, "silent gap");
                last = env.seq;
                received += 1;
            }
            Received::Lagged { missed } => {
                lagged += missed;
                last += missed;
            }
        }
    }
    publisher.join().unwrap();
    assert_eq!(received + lagged, N);
}

#[test]
fn filtered_subscription_yields_only_matches_and_counts_the_rest() {
    let bus = Bus::<Ev>::default();
    let mut evens = bus.subscribe_filtered("evens", |env| env.seq % 2 == 0);
    for i in 1..=10 {
        bus.publish("test", Ev::Tick(i));
    }
    assert_eq!(seqs(&drain(&mut evens)), [2, 4, 6, 8, 10]);
    let s = &bus.stats().subscribers[0];
    assert_eq!((s.received, s.lagged, s.pending), (10, 0, 0));
}

#[tokio::test]
async fn dropping_the_bus_ends_subscriptions_after_draining() {
    let bus = Bus::<Ev>::default();
    let mut sub = bus.subscribe("t");
    let clone = bus.clone();
    bus.publish("test", Ev::Note("last words".into()));
    drop(bus);
    clone.publish("test", Ev::Tick(2));
    drop(clone);
    assert!(matches!(sub.recv().await, Some(Received::Event(e)) if e.seq == 1));
    assert!(matches!(sub.recv().await, Some(Received::Event(e)) if e.seq == 2));
    assert!(sub.recv().await.is_none());
    assert_eq!(sub.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn blocking_recv_on_a_plain_thread() {
    let bus = Bus::<Ev>::default();
    let mut sub = bus.subscribe("thread");
    let reader = std::thread::spawn(move || {
        let mut n = 0;
        while let Some(r) = sub.blocking_recv() {
            assert!(matches!(r, Received::Event(_)));
            n += 1;
        }
        n
    });
    for i in 0..100 {
        bus.publish("test", Ev::Tick(i));
    }
    drop(bus);
    assert_eq!(reader.join().unwrap(), 100);
}
