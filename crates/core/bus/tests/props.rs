//! Property tests: any interleaving of publishes and reads loses nothing silently.

use std::collections::VecDeque;

use deft_bus::{Bus, BusConfig, Received, TryRecvError};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    /// Publish this many events.
    Publish(u8),
    /// Subscriber `n % subscribers` reads up to this many times.
    Read(usize, u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![(1u8..20).prop_map(Op::Publish), (0usize..3, 1u8..20).prop_map(|(s, n)| Op::Read(s, n))]
}

/// What one subscriber should see: an exact model of a bounded ring per subscriber.
#[derive(Default)]
struct Model {
    buffered: VecDeque<u64>,
    missed: u64,
    received: u64,
    lagged: u64,
}

proptest! {
    #[test]
    fn every_event_is_received_or_reported_missed(
        capacity in 1usize..10,
        subscribers in 1usize..4,
        ops in proptest::collection::vec(op(), 0..60),
    ) {
        let bus = Bus::<u64>::new(BusConfig { capacity });
        let cap = bus.capacity();
        let mut subs: Vec<_> = (0..subscribers).map(|i| bus.subscribe(format!("s{i}"))).collect();
        let mut models: Vec<Model> = (0..subscribers).map(|_| Model::default()).collect();
        let mut published = 0;

        let read = |i: usize, sub: &mut deft_bus::Subscription<u64>, model: &mut Model| {
            let got = sub.try_recv();
            if model.missed > 0 {
                prop_assert_eq!(got, Ok(Received::Lagged { missed: model.missed }));
                model.lagged += model.missed;
                model.missed = 0;
            } else if let Some(seq) = model.buffered.pop_front() {
                let Ok(Received::Event(env)) = got else {
                    return Err(TestCaseError::fail(format!("sub {i}: expected seq {seq}, got {got:?}")));
                };
                prop_assert_eq!(env.seq, seq);
                prop_assert_eq!(env.event, seq * 3);
                model.received += 1;
            } else {
                prop_assert_eq!(got, Err(TryRecvError::Empty));
            }
            Ok(())
        };

        for op in ops {
            match op {
                Op::Publish(n) => {
                    for _ in 0..n {
                        published += 1;
                        prop_assert_eq!(bus.publish("prop", published * 3), published);
                        for m in &mut models {
                            m.buffered.push_back(published);
                            if m.buffered.len() > cap {
                                m.buffered.pop_front();
                                m.missed += 1;
                            }
                        }
                    }
                }
                Op::Read(s, n) => {
                    let i = s % subscribers;
                    for _ in 0..n {
                        read(i, &mut subs[i], &mut models[i])?;
                    }
                }
            }
            // The bus's own accounting agrees with the model after every step.
            let stats = bus.stats();
            prop_assert_eq!(stats.published, published);
            let mut total = 0;
            for (s, m) in stats.subscribers.iter().zip(&models) {
                prop_assert_eq!(s.received, m.received);
                prop_assert_eq!(s.lagged, m.lagged + m.missed);
                prop_assert_eq!(s.pending, m.buffered.len() as u64);
                prop_assert_eq!(s.received + s.lagged + s.pending, published);
                total += s.lagged;
            }
            prop_assert_eq!(stats.total_lagged, total);
        }

        // Drained, every subscriber has accounted for every event.
        for (i, (sub, m)) in subs.iter_mut().zip(&mut models).enumerate() {
            while m.missed > 0 || !m.buffered.is_empty() {
                read(i, sub, m)?;
            }
            prop_assert_eq!(m.received + m.lagged, published);
        }
    }
}
