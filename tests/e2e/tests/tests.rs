//! Deft's end-to-end tests: one integration test binary, one module per topic.

mod drivers;
mod fixture_faults;
mod ports;
