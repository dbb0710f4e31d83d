//! The diff of two frames: options, checks, and the merged regions it reports.

use deft_types::{Frame, Physical, Rect};
use serde::{Deserialize, Serialize};

use crate::error::{DiffError, check_frame};
use crate::mask::NoiseMask;
use crate::regions::merge_close;
use crate::scan::scan;

/// How to compare two frames.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct DiffOptions {
    /// A pixel changed when any channel (R, G, B or A) differs by **more** than this.
    /// 0 compares exactly. The default, 8, absorbs dithering and colour-management noise
    /// of compositors and scaled captures; the effect of an action (a pressed button, new
    /// text, a dialog) changes pixels by far more.
    pub threshold: u8,
    /// Rectangles whose changes are ignored, in screen coordinates.
    pub mask: NoiseMask,
    /// Changed pixels at most this many pixels apart (horizontally and vertically) end up
    /// in one region. 0 joins only touching pixels (diagonals included). Default 8: the
    /// letters of one line of text form one region, two buttons side by side do not.
    pub merge_gap: u32,
    /// Regions with fewer changed pixels than this are dropped and counted as ignored.
    /// Default 1 (nothing is dropped); 0 means 1.
    pub min_region_pixels: u64,
    /// Frames with more pixels than this are refused. Default 2^26 (67 M pixels, an 8K
    /// screen twice over); it bounds the time and memory of one diff.
    pub max_pixels: u64,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions { threshold: 8, mask: NoiseMask::new(), merge_gap: 8, min_region_pixels: 1, max_pixels: 1 << 26 }
    }
}

impl DiffOptions {
    /// Exact comparison: threshold 0, nothing else changed.
    pub fn exact() -> Self {
        DiffOptions { threshold: 0, ..DiffOptions::default() }
    }
}

/// One region of change: the bounding box of a group of changed pixels.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Region {
    /// The tight bounding box of the group's changed pixels, in screen coordinates.
    pub rect: Rect<Physical>,
    /// How many changed pixels it holds (at most `rect.w * rect.h`).
    pub changed_pixels: u64,
}

/// What changed between two frames.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct FrameDiff {
    /// The compared area: the frames' screen rectangle.
    pub frame: Rect<Physical>,
    /// Merged regions, pairwise more than `merge_gap` apart, sorted top to bottom, then
    /// left to right (by top edge, left edge, bottom edge, right edge).
    pub regions: Vec<Region>,
    /// Changed pixels inside the reported regions (masked pixels never count).
    pub changed_pixels: u64,
    /// Changed pixels in regions dropped for being smaller than `min_region_pixels`.
    pub ignored_pixels: u64,
    /// `changed_pixels` over all the frame's pixels, in `[0, 1]`.
    pub ratio: f64,
}

impl FrameDiff {
    /// `true` when no region changed.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// The regions' rectangles.
    pub fn rects(&self) -> impl Iterator<Item = Rect<Physical>> + '_ {
        self.regions.iter().map(|r| r.rect)
    }

    /// The smallest rectangle holding every region, or `None` when nothing changed.
    pub fn bounds(&self) -> Option<Rect<Physical>> {
        self.rects().reduce(|a, b| a.union(&b))
    }
}

/// The regions that changed from `a` to `b`.
///
/// Both frames must be non-empty, of one size, at one screen position, and within
/// `opts.max_pixels`. The result does not depend on the order of `a` and `b`.
pub fn diff(a: &Frame, b: &Frame, opts: &DiffOptions) -> Result<FrameDiff, DiffError> {
    check_frame(a, opts.max_pixels)?;
    check_frame(b, opts.max_pixels)?;
    if (a.width(), a.height()) != (b.width(), b.height()) {
        return Err(DiffError::SizeMismatch { a: (a.width(), a.height()), b: (b.width(), b.height()) });
    }
    if a.origin != b.origin {
        return Err(DiffError::OriginMismatch { a: a.origin, b: b.origin });
    }
    let (w, h) = (a.width(), a.height());
    // Beyond any frame side, so edge arithmetic in u32 cannot overflow.
    let gap = opts.merge_gap.min(1 << 16);
    let mask = opts.mask.in_frame(a.origin, w, h);
    let clusters = scan(a.pixels(), b.pixels(), w, h, opts.threshold, gap, &mask);
    let mut clusters = merge_close(clusters, gap);
    clusters.sort_unstable_by_key(|c| (c.y0, c.x0, c.y1, c.x1));

    let min = opts.min_region_pixels.max(1);
    let (mut changed, mut ignored) = (0, 0);
    let mut regions = Vec::with_capacity(clusters.len());
    for c in clusters {
        if c.count < min {
            ignored += c.count;
            continue;
        }
        changed += c.count;
        // check_frame made sure origin + offset stays within i32.
        let rect = Rect::new(a.origin.x + c.x0 as i32, a.origin.y + c.y0 as i32, c.x1 - c.x0, c.y1 - c.y0);
        regions.push(Region { rect, changed_pixels: c.count });
    }
    let ratio = changed as f64 / (f64::from(w) * f64::from(h));
    Ok(FrameDiff { frame: a.screen_rect(), regions, changed_pixels: changed, ignored_pixels: ignored, ratio })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_art::{art, check, check_with};
    use deft_types::Point;

    #[test]
    fn identical_frames_have_no_regions() {
        check(
            "
            ab..
            .cd.
            ",
            "
            ab..
            .cd.
            ",
            &[],
        );
    }

    #[test]
    fn one_changed_pixel() {
        check(
            "
            ....
            ....
            ",
            "
            ....
            ..x.
            ",
            &[(2, 1, 1, 1)],
        );
    }

    #[test]
    fn a_changed_word_is_one_tight_region() {
        check(
            "
            ......................
            ......................
            ......................
            ",
            "
            ......................
            ...x.x..x...x.........
            ....x.x...............
            ",
            &[(3, 1, 10, 2)],
        );
    }

    #[test]
    fn far_apart_changes_stay_apart() {
        check(
            "
            ..............................
            ..............................
            ..............................
            ",
            "
            x.............................
            ..............................
            .......................xx.....
            ",
            &[(0, 0, 1, 1), (23, 2, 2, 1)],
        );
    }

    #[test]
    fn gap_is_the_number_of_pixels_between() {
        let before = "
            ...........
            ";
        let after = "
            x........x.
            ";
        let gap = |g| DiffOptions { merge_gap: g, ..DiffOptions::default() };
        check_with(before, after, &gap(8), &[(0, 0, 10, 1)]);
        check_with(before, after, &gap(7), &[(0, 0, 1, 1), (9, 0, 1, 1)]);
        check_with("...", ".xx", &gap(0), &[(1, 0, 2, 1)]);
        check_with("..\n..", "x.\n.x", &gap(0), &[(0, 0, 2, 2)]);
        check_with("...", "x.x", &gap(0), &[(0, 0, 1, 1), (2, 0, 1, 1)]);
    }

    #[test]
    fn an_l_shape_pulls_in_a_neighbour_of_its_box() {
        // The vertical bar and the bottom bar join; their box then reaches the dot on the
        // right, which is 10 px from either bar alone.
        check_with(
            "
            ..................
            ..................
            ..................
            ..................
            ",
            "
            x................x
            x.................
            x.................
            xxxxxxxx..........
            ",
            &DiffOptions { merge_gap: 9, ..DiffOptions::default() },
            &[(0, 0, 18, 4)],
        );
    }

    #[test]
    fn small_colour_noise_is_under_the_threshold() {
        // `n` differs from `.` by 8 in red, `x` by much more.
        check("....", "n.x.", &[(2, 0, 1, 1)]);
        check_with("....", "n.x.", &DiffOptions::exact(), &[(0, 0, 3, 1)]);
    }

    #[test]
    fn masked_changes_are_ignored_and_others_kept() {
        let mut mask = NoiseMask::new();
        // Screen coordinates: the art is placed at (100, 200).
        mask.add(Rect::new(100, 200, 1, 2)).unwrap();
        check_with(
            "
            ................
            ................
            ",
            "
            x.........x.....
            x...............
            ",
            &DiffOptions { mask, ..DiffOptions::default() },
            &[(10, 0, 1, 1)],
        );
    }

    #[test]
    fn tiny_regions_can_be_dropped() {
        let (a, b) = (art("......................"), art("x.........xxxxx......."));
        let opts = DiffOptions { min_region_pixels: 2, ..DiffOptions::default() };
        let d = diff(&a, &b, &opts).unwrap();
        assert_eq!(d.rects().collect::<Vec<_>>(), vec![Rect::new(110, 200, 5, 1)]);
        assert_eq!((d.changed_pixels, d.ignored_pixels), (5, 1));
        assert!((d.ratio - 5.0 / 22.0).abs() < 1e-12);
    }

    #[test]
    fn wide_frames_cross_chunks_and_tails() {
        let mut before = String::new();
        let mut after = String::new();
        for y in 0..20 {
            for x in 0..53 {
                before.push('.');
                after.push(if (x == 15 || x == 16 || x == 52) && y == 7 { 'x' } else { '.' });
            }
            before.push('\n');
            after.push('\n');
        }
        check(&before, &after, &[(15, 7, 2, 1), (52, 7, 1, 1)]);
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let a = art("....");
        let b = art("...\n...");
        let e = diff(&a, &b, &DiffOptions::default()).unwrap_err();
        assert!(e.to_string().contains("cannot diff a 4x1 frame with a 3x2 frame"), "{e}");

        let mut moved = a.clone();
        moved.origin = Point::new(0, 0);
        let e = diff(&a, &moved, &DiffOptions::default()).unwrap_err();
        assert!(matches!(e, DiffError::OriginMismatch { .. }), "{e}");

        let empty = Frame::new(0, 5, vec![], Point::new(0, 0)).unwrap();
        let e = diff(&empty, &empty, &DiffOptions::default()).unwrap_err();
        assert_eq!(e, DiffError::EmptyFrame { w: 0, h: 5 });

        let e = diff(&a, &a, &DiffOptions { max_pixels: 3, ..DiffOptions::default() }).unwrap_err();
        assert!(e.to_string().contains("more than the limit of 3"), "{e}");

        let mut far = a.clone();
        far.origin = Point::new(i32::MAX - 2, 0);
        let e = diff(&far, &far, &DiffOptions::default()).unwrap_err();
        assert!(matches!(e, DiffError::OffScreen { .. }), "{e}");
    }

    #[test]
    fn huge_gap_does_not_overflow() {
        check_with(
            "x.......x",
            "........x",
            &DiffOptions { merge_gap: u32::MAX, ..DiffOptions::default() },
            &[(0, 0, 1, 1)],
        );
        check_with(
            "x.......",
            ".......x",
            &DiffOptions { merge_gap: u32::MAX, ..DiffOptions::default() },
            &[(0, 0, 8, 1)],
        );
    }
}
