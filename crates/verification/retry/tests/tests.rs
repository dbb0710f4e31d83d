//! Integration tests of deft-retry: one binary, one module per topic.

mod dsl;
mod policy_file;
mod properties;
mod scenarios;
mod wire;
