//! "Stable for N ms" over a stream of frames, with time taken from the frames themselves.

use std::time::Duration;

use deft_types::{Frame, Physical, Rect};
use serde::{Deserialize, Serialize};

use crate::diff::{DiffOptions, FrameDiff, diff};
use crate::error::{DiffError, check_frame};
use crate::mask::NoiseMask;

/// The last change a [`StabilityTracker`] saw.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct ChangeSummary {
    /// Timestamp of the first frame that showed it, in microseconds.
    pub at_us: u64,
    /// How many regions changed.
    pub regions: usize,
    /// The box holding every changed region, in screen coordinates.
    pub bounds: Rect<Physical>,
    /// Changed pixels.
    pub changed_pixels: u64,
    /// Changed pixels over the frame's pixels.
    pub ratio: f64,
    /// The frame changed size or position: everything counts as changed.
    pub resized: bool,
}

impl ChangeSummary {
    fn of(d: &FrameDiff, at_us: u64) -> Option<ChangeSummary> {
        Some(ChangeSummary {
            at_us,
            regions: d.regions.len(),
            bounds: d.bounds()?,
            changed_pixels: d.changed_pixels,
            ratio: d.ratio,
            resized: false,
        })
    }
}

/// Where a stream stands after one more frame.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Stability {
    /// Time since the first frame of the current unchanged run, in milliseconds.
    pub stable_for_ms: u64,
    /// `stable_for` reached the tracker's window.
    pub stable: bool,
    /// Frames in the current unchanged run, the frame just pushed included.
    pub frames: u32,
    /// The last change seen; `None` until the screen changes once.
    pub last_change: Option<ChangeSummary>,
}

/// Tells when the screen has stopped changing: "stable for N ms" means the frames pushed
/// over at least N ms show no unmasked change.
///
/// Each frame is compared with the **first frame of the current run** (the anchor), not
/// with the frame before it, so a slow fade whose steps are each under the threshold still
/// counts as change once it adds up. A frame of another size or position is a change (a
/// resized or moved window), not an error. Pure: time comes from `Frame::timestamp_us`.
#[derive(Clone, Debug)]
pub struct StabilityTracker {
    window_us: u64,
    opts: DiffOptions,
    anchor: Option<Frame>,
    last_us: u64,
    frames: u32,
    last_change: Option<ChangeSummary>,
}

impl StabilityTracker {
    /// A tracker that calls the stream stable once it is unchanged for `window`.
    pub fn new(window: Duration, opts: DiffOptions) -> Self {
        let window_us = u64::try_from(window.as_micros()).unwrap_or(u64::MAX);
        StabilityTracker { window_us, opts, anchor: None, last_us: 0, frames: 0, last_change: None }
    }

    /// Replace the noise mask, e.g. with one learned by a [`BlinkDetector`](crate::BlinkDetector).
    pub fn set_mask(&mut self, mask: NoiseMask) {
        self.opts.mask = mask;
    }

    /// Forget the stream: the next frame starts a new one.
    pub fn reset(&mut self) {
        self.anchor = None;
        self.frames = 0;
        self.last_change = None;
    }

    /// The first frame of the current unchanged run.
    pub fn anchor(&self) -> Option<&Frame> {
        self.anchor.as_ref()
    }

    /// Add the next frame of the stream. Frames must come in capture order; a bad frame
    /// (empty, too large, broken) or an older timestamp is an error and leaves the tracker
    /// as it was.
    pub fn push(&mut self, frame: Frame) -> Result<Stability, DiffError> {
        check_frame(&frame, self.opts.max_pixels)?;
        let now = frame.timestamp_us;
        let change = match &self.anchor {
            None => None,
            Some(_) if now < self.last_us => {
                return Err(DiffError::TimeWentBack { previous_us: self.last_us, got_us: now });
            }
            Some(a) if a.screen_rect() != frame.screen_rect() => Some(ChangeSummary {
                at_us: now,
                regions: 1,
                bounds: frame.screen_rect(),
                changed_pixels: u64::from(frame.width()) * u64::from(frame.height()),
                ratio: 1.0,
                resized: true,
            }),
            Some(a) => ChangeSummary::of(&diff(a, &frame, &self.opts)?, now),
        };
        self.last_us = now;
        if self.anchor.is_none() || change.is_some() {
            self.anchor = Some(frame);
            self.frames = 1;
            if change.is_some() {
                self.last_change = change;
            }
        } else {
            self.frames = self.frames.saturating_add(1);
        }
        let since = self.anchor.as_ref().map_or(now, |a| a.timestamp_us);
        let stable_for_us = now - since;
        Ok(Stability {
            stable_for_ms: stable_for_us / 1000,
            stable: stable_for_us >= self.window_us,
            frames: self.frames,
            last_change: self.last_change.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_art::art;

    fn at(text: &str, ms: u64) -> Frame {
        let mut f = art(text);
        f.timestamp_us = ms * 1000;
        f
    }

    #[test]
    fn stable_once_unchanged_for_the_window() {
        let mut t = StabilityTracker::new(Duration::from_millis(100), DiffOptions::default());
        let s = t.push(at("....", 0)).unwrap();
        assert_eq!((s.stable_for_ms, s.stable, s.frames, s.last_change), (0, false, 1, None));
        let s = t.push(at("..x.", 40)).unwrap();
        assert_eq!((s.stable_for_ms, s.stable, s.frames), (0, false, 1));
        let c = s.last_change.unwrap();
        assert_eq!((c.at_us, c.regions, c.changed_pixels, c.resized), (40_000, 1, 1, false));
        assert_eq!(t.push(at("..x.", 100)).unwrap().stable_for_ms, 60);
        let s = t.push(at("..x.", 140)).unwrap();
        assert_eq!((s.stable_for_ms, s.stable, s.frames), (100, true, 3));
        assert_eq!(s.last_change.unwrap().at_us, 40_000, "the last change is remembered");
    }

    #[test]
    fn small_steps_add_up_against_the_anchor() {
        // Each step is 5 in red (under the threshold of 8); two steps are 10.
        let step = |r: u8| {
            let mut f = Frame::new(1, 1, vec![r, 0, 0, 255], deft_types::Point::new(0, 0)).unwrap();
            f.timestamp_us = u64::from(r) * 1000;
            f
        };
        let mut t = StabilityTracker::new(Duration::from_millis(1), DiffOptions::default());
        t.push(step(0)).unwrap();
        assert!(t.push(step(5)).unwrap().last_change.is_none());
        assert!(t.push(step(10)).unwrap().last_change.is_some());
    }

    #[test]
    fn masked_changes_do_not_break_stability() {
        let mut opts = DiffOptions::default();
        opts.mask.add_caret(Rect::new(101, 200, 0, 1)).unwrap();
        let mut t = StabilityTracker::new(Duration::from_millis(50), opts);
        t.push(at(".x.......", 0)).unwrap();
        t.push(at(".........", 30)).unwrap();
        let s = t.push(at(".x.......", 60)).unwrap();
        assert!(s.stable && s.last_change.is_none(), "{s:?}");
    }

    #[test]
    fn a_resize_is_a_change_and_time_must_not_go_back() {
        let mut t = StabilityTracker::new(Duration::ZERO, DiffOptions::default());
        assert!(t.push(at("...", 10)).unwrap().stable, "a zero window is stable at once");
        let s = t.push(at("....", 20)).unwrap();
        assert!(s.last_change.unwrap().resized);
        let e = t.push(at("....", 15)).unwrap_err();
        assert_eq!(e, DiffError::TimeWentBack { previous_us: 20_000, got_us: 15_000 });
        assert_eq!(t.push(at("....", 30)).unwrap().stable_for_ms, 10, "the error changed nothing");
        let empty = Frame::new(0, 0, vec![], deft_types::Point::new(0, 0)).unwrap();
        assert!(matches!(t.push(empty), Err(DiffError::EmptyFrame { .. })));
    }
}
