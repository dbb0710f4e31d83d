//! Pixel diff between frames: changed regions, change ratio, "stable for N ms", noise masks,
//! and fast equality digests. Pure: no I/O; frames come from `deft-capture`.
//!
//! The key design decision is that **regions are defined by the changed pixels alone, not
//! by how the scan finds them**. A region is the tight bounding box of a group of changed
//! pixels, and groups are joined while any two are at most `merge_gap` pixels apart: a
//! unique fixed point, so [`diff`] is symmetric (`diff(a, b)` and `diff(b, a)` report the
//! same regions), independent of tile sizes, and checked in the tests against a naive
//! pixel-by-pixel reference. Speed comes from shortcuts that provably reach the same
//! result: an unchanged row costs one `memcmp`; a changed row is compared 16 pixels at a
//! time in vectorisable code that yields a bit mask; pixels are first joined within tiles
//! small enough that any two of their pixels are within `merge_gap` anyway, then tiles with
//! their neighbours, and only the few resulting boxes are merged to the fixed point.
//!
//! Coordinates: frames carry their screen origin, and everything this crate takes or
//! returns (regions, masks, digest regions) is in **screen** coordinates, physical pixels.
//!
//! - [`diff`] with [`DiffOptions`] gives a [`FrameDiff`]: regions, changed pixels, ratio.
//! - [`NoiseMask`] hides known noise (a caret, a spinner, a clock) from diffs and digests.
//! - [`BlinkDetector`] learns small regions that flip back and forth and suggests a mask.
//! - [`StabilityTracker`] says how long a stream of frames has been unchanged.
//! - [`digest`], [`digest_region`] and [`digest_region_masked`] are exact 64-bit hashes for
//!   quick equality (OCR reuse of unchanged tiles, snapshot region digests).

mod blink;
mod diff;
mod digest;
mod error;
mod mask;
mod regions;
mod scan;
mod stability;
#[cfg(test)]
mod test_art;

pub use blink::{BlinkDetector, BlinkOptions};
pub use diff::{DiffOptions, FrameDiff, Region, diff};
pub use digest::{digest, digest_region, digest_region_masked};
pub use error::DiffError;
pub use mask::NoiseMask;
pub use stability::{ChangeSummary, Stability, StabilityTracker};
