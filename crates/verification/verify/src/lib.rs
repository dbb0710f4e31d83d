//! The verified executor: actionability, act, verify, classify, fall back; waits.
//!
//! Not built yet (issue #6). It will carry out the steps ordered by `deft-retry` and judge
//! effects with `deft-snapshot`; see /docs/ARCHITECTURE.md.
