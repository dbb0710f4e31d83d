//! Pixel diff between frames: changed regions, change ratio, stability, noise masks.
//!
//! Not built yet (issue #3). It will be pure (no I/O) and property-tested.
