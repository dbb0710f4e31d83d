//! Noise masks: screen rectangles whose pixel changes are ignored (caret, spinners, clocks).

use deft_types::{Physical, Point, Rect};
use serde::{Deserialize, Serialize};

use crate::error::DiffError;

/// Rectangles to ignore, **in screen coordinates** (physical pixels), like the regions a
/// diff reports and the bounds accessibility gives after scaling.
///
/// A diff treats every pixel inside a mask rectangle as unchanged; a masked digest hashes
/// them as zeros. Parts of a rectangle outside the frame are ignored, so one mask can serve
/// frames of different windows.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct NoiseMask {
    rects: Vec<Rect<Physical>>,
}

impl NoiseMask {
    /// Pixels added on each side of a caret horizontally, and above and below it: carets are
    /// drawn 1-3 px wide, often reported with zero width, and anti-aliased into their
    /// neighbours.
    pub const CARET_PAD: (u32, u32) = (2, 1);

    /// An empty mask: nothing is ignored.
    pub fn new() -> Self {
        NoiseMask::default()
    }

    /// A mask of the given rectangles; fails on the first empty one.
    pub fn from_rects(rects: impl IntoIterator<Item = Rect<Physical>>) -> Result<Self, DiffError> {
        let mut mask = NoiseMask::new();
        for r in rects {
            mask.add(r)?;
        }
        Ok(mask)
    }

    /// Ignore a rectangle: a spinner, a clock, an animation, a video. An empty rectangle is
    /// an error, because it hides nothing and usually means the caller's bounds are wrong.
    pub fn add(&mut self, rect: Rect<Physical>) -> Result<&mut Self, DiffError> {
        if rect.is_empty() {
            return Err(DiffError::EmptyRegion { rect });
        }
        self.rects.push(rect);
        Ok(self)
    }

    /// Ignore a text caret, given its extents as accessibility reports them (the width may
    /// be zero; the height must not). The rectangle is grown by [`NoiseMask::CARET_PAD`].
    pub fn add_caret(&mut self, caret: Rect<Physical>) -> Result<&mut Self, DiffError> {
        if caret.h == 0 {
            return Err(DiffError::EmptyRegion { rect: caret });
        }
        let (px, py) = NoiseMask::CARET_PAD;
        self.add(grow(caret, px, py))
    }

    /// Add every rectangle of another mask.
    pub fn extend(&mut self, other: &NoiseMask) {
        self.rects.extend_from_slice(&other.rects);
    }

    /// The rectangles, in the order added.
    pub fn rects(&self) -> &[Rect<Physical>] {
        &self.rects
    }

    /// `true` when nothing is masked.
    pub fn is_empty(&self) -> bool {
        self.rects.is_empty()
    }

    /// Whether a screen point is masked.
    pub fn contains(&self, p: Point<Physical>) -> bool {
        self.rects.iter().any(|r| r.contains(p))
    }

    /// The rectangles clipped to a frame at `origin` of `w` x `h`, in frame coordinates,
    /// as `(x0, y0, x1, y1)` with exclusive ends. Rectangles off the frame are dropped.
    pub(crate) fn in_frame(&self, origin: Point<Physical>, w: u32, h: u32) -> Vec<FrameRect> {
        let frame = Rect::<Physical>::new(origin.x, origin.y, w, h);
        self.rects
            .iter()
            .filter_map(|r| r.intersection(&frame))
            .map(|r| {
                // Inside the frame, so the offsets are in 0..=w and 0..=h.
                let x0 = (i64::from(r.x) - i64::from(origin.x)) as u32;
                let y0 = (i64::from(r.y) - i64::from(origin.y)) as u32;
                FrameRect { x0, y0, x1: x0 + r.w, y1: y0 + r.h }
            })
            .collect()
    }
}

/// A rectangle in frame coordinates with exclusive ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct FrameRect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

/// Horizontal `[x0, x1)` spans of the mask that cover row `y`, written into `out`.
pub(crate) fn row_spans(mask: &[FrameRect], y: u32, out: &mut Vec<(u32, u32)>) {
    out.clear();
    out.extend(mask.iter().filter(|r| r.y0 <= y && y < r.y1).map(|r| (r.x0, r.x1)));
}

/// `r` grown by `dx` on the left and right and `dy` above and below, saturating.
pub(crate) fn grow(r: Rect<Physical>, dx: u32, dy: u32) -> Rect<Physical> {
    let x = r.x.saturating_sub_unsigned(dx);
    let y = r.y.saturating_sub_unsigned(dy);
    let w = u32::try_from(r.right() + i64::from(dx) - i64::from(x)).unwrap_or(u32::MAX);
    let h = u32::try_from(r.bottom() + i64::from(dy) - i64::from(y)).unwrap_or(u32::MAX);
    Rect::new(x, y, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_rects_are_refused() {
        let e = NoiseMask::new().add(Rect::new(5, 5, 0, 10)).unwrap_err();
        assert!(e.to_string().contains("has no pixels"), "{e}");
        assert!(NoiseMask::from_rects([Rect::new(0, 0, 1, 1), Rect::new(0, 0, 3, 0)]).is_err());
    }

    #[test]
    fn a_zero_width_caret_is_widened() {
        let mut m = NoiseMask::new();
        m.add_caret(Rect::new(100, 50, 0, 16)).unwrap();
        assert_eq!(m.rects(), &[Rect::new(98, 49, 4, 18)]);
        assert!(m.contains(Point::new(100, 50)) && m.contains(Point::new(98, 66)));
        assert!(!m.contains(Point::new(102, 50)));
        assert!(m.add_caret(Rect::new(1, 1, 2, 0)).is_err());
    }

    #[test]
    fn clipped_to_the_frame_in_frame_coordinates() {
        let m = NoiseMask::from_rects([Rect::new(-5, 12, 10, 3), Rect::new(500, 500, 4, 4)]).unwrap();
        assert_eq!(m.in_frame(Point::new(0, 10), 100, 100), vec![FrameRect { x0: 0, y0: 2, x1: 5, y1: 5 }]);
        let mut spans = Vec::new();
        row_spans(&m.in_frame(Point::new(0, 10), 100, 100), 4, &mut spans);
        assert_eq!(spans, vec![(0, 5)]);
        row_spans(&m.in_frame(Point::new(0, 10), 100, 100), 5, &mut spans);
        assert!(spans.is_empty());
    }

    #[test]
    fn grow_saturates() {
        let r = grow(Rect::new(i32::MIN, 0, 1, 1), 3, 0);
        assert_eq!((r.x, r.w), (i32::MIN, 4));
    }
}
