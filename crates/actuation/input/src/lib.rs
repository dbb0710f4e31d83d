//! Mouse and keyboard input, with explicit coordinate mapping.
//!
//! Not built yet (issue #4). The plan: enigo 0.6 (x11rb backend, no C libraries) behind a
//! narrow trait that takes `deft_types::Point<Physical>` only, so a logical point from
//! accessibility must go through a per-window `deft_types::ScaleFactor` first.
