//! deft-fleet's tests: one contract, run against the in-process queue and against a real
//! `nats-server` with JetStream on loopback.

mod contract;
