//! Accessibility: tree reads, selectors, actions, set value, hit test, events.
//!
//! Not built yet (issue #4). The plan: AT-SPI2 through atspi 0.30 + zbus 5 (pure Rust),
//! every D-Bus call with a timeout and all calls of a tree read in flight at once.
