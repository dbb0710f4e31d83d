//! Deft's end-to-end tests; the library is empty and the tests live in `tests/tests.rs`.
//!
//! Every test starts its own headless desktop (`deft-harness`) and judges the outcome by the
//! fixture app's ground-truth log, never by what the code under test reports.
