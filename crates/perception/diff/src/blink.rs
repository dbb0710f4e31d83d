//! Learns small regions that flip back and forth (a caret, a spinner) and suggests a mask.

use deft_types::{Frame, Physical, Rect};
use serde::{Deserialize, Serialize};

use crate::diff::{DiffOptions, diff};
use crate::digest::digest_region;
use crate::error::{DiffError, check_frame};
use crate::mask::{NoiseMask, grow};

/// How a [`BlinkDetector`] tells noise from an effect.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct BlinkOptions {
    /// Regions wider or taller than this are never noise (default 32 px: a caret, a
    /// spinner icon; a dialog or a list is not).
    pub max_side: u32,
    /// Times a region must come back to a state it showed before (default 2: A, B, A, B).
    /// One return is not enough: a checkbox ticked and unticked shows A, B, A.
    pub min_returns: u32,
    /// States a region may cycle through (default 8: a caret has 2, a small spinner a few).
    /// A region that shows more is content changing, never noise.
    pub max_states: usize,
    /// Pixels added around a blinker in the suggested mask (default 1).
    pub pad: u32,
    /// Regions followed at once (default 32); the oldest unflagged one makes room.
    pub max_candidates: usize,
    /// How consecutive frames are compared to find the regions to follow.
    pub diff: DiffOptions,
}

impl Default for BlinkOptions {
    fn default() -> Self {
        BlinkOptions {
            max_side: 32,
            min_returns: 2,
            max_states: 8,
            pad: 1,
            max_candidates: 32,
            diff: DiffOptions::exact(),
        }
    }
}

/// A small region being followed: the digests of the states it has shown.
#[derive(Clone, Debug)]
struct Candidate {
    rect: Rect<Physical>,
    states: Vec<u64>,
    last: u64,
    returns: u32,
    /// Showed more than `max_states` states: content, not noise.
    wild: bool,
}

impl Candidate {
    fn new(rect: Rect<Physical>, before: &Frame, after: &Frame) -> Result<Candidate, DiffError> {
        let (a, b) = (digest_region(before, rect)?, digest_region(after, rect)?);
        Ok(Candidate { rect, states: vec![a, b], last: b, returns: 0, wild: false })
    }

    fn blinks(&self, opts: &BlinkOptions) -> bool {
        !self.wild && self.returns >= opts.min_returns
    }
}

/// Watches a short stream of frames (a second or two before acting is enough for a caret
/// blinking at ~500 ms) and flags small regions that keep returning to states they showed
/// before: a text caret blinking (A, B, A, B) or a spinner cycling through a few frames.
///
/// It sees only pixels: a spinner whose captured states never repeat exactly, or a clock,
/// is not found here; those come from accessibility (busy state, roles) as mask rectangles.
#[derive(Clone, Debug, Default)]
pub struct BlinkDetector {
    opts: BlinkOptions,
    prev: Option<Frame>,
    candidates: Vec<Candidate>,
}

impl BlinkDetector {
    /// A detector with these options.
    pub fn new(opts: BlinkOptions) -> Self {
        BlinkDetector { opts, prev: None, candidates: Vec::new() }
    }

    /// Add the next frame. A frame of another size or position starts over (it shows
    /// another picture); a bad frame (empty, too large, broken) is an error and changes
    /// nothing.
    pub fn push(&mut self, frame: Frame) -> Result<(), DiffError> {
        check_frame(&frame, self.opts.diff.max_pixels)?;
        let Some(prev) = self.prev.take_if(|p| p.screen_rect() == frame.screen_rect()) else {
            self.candidates.clear();
            self.prev = Some(frame);
            return Ok(());
        };
        // Both frames are checked and cover one screen rectangle, so the digests and the
        // diff below cannot fail; `?` only keeps that from being a panic if it ever did.
        let learned = self.learn(&prev, &frame);
        self.prev = Some(frame);
        learned
    }

    fn learn(&mut self, prev: &Frame, frame: &Frame) -> Result<(), DiffError> {
        for c in &mut self.candidates {
            let d = digest_region(frame, c.rect)?;
            if d == c.last {
                continue;
            }
            if c.states.contains(&d) {
                c.returns += 1;
            } else if c.states.len() < self.opts.max_states {
                c.states.push(d);
            } else {
                c.wild = true;
            }
            c.last = d;
        }
        let changes = diff(prev, frame, &self.opts.diff)?;
        let max = self.opts.max_side;
        for r in changes.rects().filter(|r| r.w <= max && r.h <= max) {
            if !self.candidates.iter().any(|c| c.rect.contains_rect(&r)) {
                self.follow(r, prev, frame)?;
            }
        }
        Ok(())
    }

    /// Start following a region that changed, or widen the candidate it overlaps.
    fn follow(&mut self, r: Rect<Physical>, prev: &Frame, frame: &Frame) -> Result<(), DiffError> {
        if let Some(i) = self.candidates.iter().position(|c| c.rect.intersection(&r).is_some()) {
            // A spinner's changed pixels differ from frame to frame: follow their union,
            // from scratch, since the old states were of a smaller rectangle.
            let u = self.candidates[i].rect.union(&r);
            if u.w <= self.opts.max_side && u.h <= self.opts.max_side {
                self.candidates[i] = Candidate::new(u, prev, frame)?;
            }
            return Ok(());
        }
        if self.candidates.len() >= self.opts.max_candidates {
            let Some(old) = self.candidates.iter().position(|c| !c.blinks(&self.opts)) else {
                return Ok(());
            };
            self.candidates.remove(old);
        }
        self.candidates.push(Candidate::new(r, prev, frame)?);
        Ok(())
    }

    /// The regions found blinking, in screen coordinates, unpadded.
    pub fn blinkers(&self) -> Vec<Rect<Physical>> {
        self.candidates.iter().filter(|c| c.blinks(&self.opts)).map(|c| c.rect).collect()
    }

    /// A mask of the blinkers, each grown by `pad`: give it to a diff or a tracker.
    pub fn suggested_mask(&self) -> NoiseMask {
        let pad = self.opts.pad;
        // Blinker rectangles come from diff regions, which are never empty.
        NoiseMask::from_rects(self.blinkers().into_iter().map(|r| grow(r, pad, pad))).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_art::{ORIGIN, art};

    fn learn(frames: &[&str]) -> BlinkDetector {
        let mut d = BlinkDetector::new(BlinkOptions::default());
        for f in frames {
            d.push(art(f)).unwrap();
        }
        d
    }

    fn at(x: i32, y: i32, w: u32, h: u32) -> Rect<Physical> {
        Rect::new(ORIGIN.0 + x, ORIGIN.1 + y, w, h)
    }

    const ON: &str = "
        ab.|...
        cd.|...
        ";
    const OFF: &str = "
        ab.....
        cd.....
        ";

    #[test]
    fn a_blinking_caret_is_found_and_masked() {
        let d = learn(&[ON, OFF, ON]);
        assert!(d.blinkers().is_empty(), "A, B, A may be a toggle undone");
        let d = learn(&[ON, OFF, ON, OFF]);
        assert_eq!(d.blinkers(), vec![at(3, 0, 1, 2)]);
        assert_eq!(d.suggested_mask().rects(), &[at(2, -1, 3, 4)]);
        let diff_opts = DiffOptions { mask: d.suggested_mask(), ..DiffOptions::default() };
        assert!(diff(&art(ON), &art(OFF), &diff_opts).unwrap().is_empty());
    }

    #[test]
    fn typing_is_not_blinking() {
        let d = learn(&["a....", "ab...", "abc..", "abcd.", "abcde"]);
        assert!(d.blinkers().is_empty());
    }

    #[test]
    fn a_spinner_cycling_three_states_is_found() {
        let (s1, s2, s3) = ("..x.\n....", "....\n..x.", "....\n.x..");
        // The changed pixels of the first two steps do not cover the spinner yet; from the
        // third frame on the detector follows their union, which then comes around twice.
        assert!(learn(&[s1, s2, s3, s1, s2]).blinkers().is_empty());
        let d = learn(&[s1, s2, s3, s1, s2, s3]);
        assert_eq!(d.blinkers(), vec![at(1, 0, 2, 2)]);
    }

    #[test]
    fn large_regions_are_never_noise() {
        let opts = BlinkOptions { max_side: 2, ..BlinkOptions::default() };
        let mut d = BlinkDetector::new(opts);
        for f in ["xxx\n...", "...\n...", "xxx\n...", "...\n..."] {
            d.push(art(f)).unwrap();
        }
        assert!(d.blinkers().is_empty());
    }

    #[test]
    fn too_many_states_is_content() {
        let opts = BlinkOptions { max_states: 3, ..BlinkOptions::default() };
        let mut d = BlinkDetector::new(opts);
        for f in ["a", "b", "c", "d", "a", "b", "a", "b"] {
            d.push(art(f)).unwrap();
        }
        assert!(d.blinkers().is_empty());
    }

    #[test]
    fn another_picture_starts_over() {
        let mut d = learn(&[ON, OFF, ON, OFF]);
        d.push(art("....")).unwrap();
        assert!(d.blinkers().is_empty());
        let empty = Frame::new(0, 0, vec![], deft_types::Point::new(0, 0)).unwrap();
        assert!(d.push(empty).is_err());
    }
}
