//! The diff's properties on random frames: empty with itself, symmetric, inside the frame,
//! covering every changed pixel with tight, well separated regions, and equal to the naive
//! reference.

use deft_diff::{DiffOptions, FrameDiff, diff};
use deft_types::{Frame, Physical, Point, Rect};
use proptest::prelude::*;

use crate::frames::{Case, case};
use crate::reference;

fn opts(c: &Case) -> DiffOptions {
    DiffOptions { threshold: c.threshold, merge_gap: c.gap, ..DiffOptions::default() }
}

/// Checks everything that holds for any diff, against the changed pixels it was given.
pub fn check_diff(d: &FrameDiff, frame: &Frame, changed: &[Point<Physical>], gap: u32) -> Result<(), TestCaseError> {
    let screen = frame.screen_rect();
    prop_assert_eq!(d.frame, screen);
    for r in d.rects() {
        prop_assert!(!r.is_empty());
        prop_assert!(screen.contains_rect(&r), "{:?} is not inside {:?}", r, screen);
    }
    for p in changed {
        prop_assert!(d.rects().any(|r| r.contains(*p)), "changed pixel {:?} is in no region", p);
    }
    // Tight: each edge of a region has a changed pixel on it, and counts add up.
    for reg in &d.regions {
        let r = reg.rect;
        let inside: Vec<&Point<Physical>> = changed.iter().filter(|p| r.contains(**p)).collect();
        prop_assert_eq!(inside.len() as u64, reg.changed_pixels);
        prop_assert!(inside.iter().any(|p| p.x == r.x) && inside.iter().any(|p| i64::from(p.x) == r.right() - 1));
        prop_assert!(inside.iter().any(|p| p.y == r.y) && inside.iter().any(|p| i64::from(p.y) == r.bottom() - 1));
    }
    prop_assert_eq!(d.changed_pixels, changed.len() as u64);
    prop_assert_eq!(d.ignored_pixels, 0);
    prop_assert!(
        (d.ratio - changed.len() as f64 / (f64::from(frame.width()) * f64::from(frame.height()))).abs() < 1e-12
    );
    // Separated: no two regions are within `gap` of each other (so none overlap).
    let g = i64::from(gap);
    for (i, a) in d.rects().enumerate() {
        for b in d.rects().skip(i + 1) {
            let gx = (i64::from(a.x.max(b.x)) - a.right().min(b.right())).max(0);
            let gy = (i64::from(a.y.max(b.y)) - a.bottom().min(b.bottom())).max(0);
            prop_assert!(gx > g || gy > g, "{:?} and {:?} are within {}", a, b, gap);
        }
    }
    // Sorted top to bottom, then left to right.
    let keys: Vec<_> = d.rects().map(|r| (r.y, r.x, r.bottom(), r.right())).collect();
    prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn diff_with_itself_is_empty(c in case(200, 150, 0)) {
        let d = diff(&c.a, &c.a.clone(), &opts(&c)).unwrap();
        prop_assert!(d.is_empty());
        prop_assert_eq!((d.changed_pixels, d.ratio), (0, 0.0));
        prop_assert_eq!(d.bounds(), None);
    }

    #[test]
    fn big_frames_regions_cover_every_change_and_are_symmetric(c in case(200, 150, 12)) {
        let d = diff(&c.a, &c.b, &opts(&c)).unwrap();
        prop_assert_eq!(&diff(&c.b, &c.a, &opts(&c)).unwrap(), &d, "diff(a, b) != diff(b, a)");
        let changed = reference::changed_pixels(&c.a, &c.b, c.threshold, |_| false);
        check_diff(&d, &c.a, &changed, c.gap)?;
        let bounds = d.bounds();
        prop_assert_eq!(bounds.is_none(), changed.is_empty());
    }

    #[test]
    fn small_frames_match_the_naive_reference(c in case(48, 32, 10)) {
        let d = diff(&c.a, &c.b, &opts(&c)).unwrap();
        let changed = reference::changed_pixels(&c.a, &c.b, c.threshold, |_| false);
        let expected = reference::regions(&changed, c.gap);
        let got: Vec<(Rect<Physical>, u64)> = d.regions.iter().map(|r| (r.rect, r.changed_pixels)).collect();
        prop_assert_eq!(got, expected);
        check_diff(&d, &c.a, &changed, c.gap)?;
    }

    #[test]
    fn small_regions_are_dropped_and_counted(c in case(120, 80, 10), min in 1..50u64) {
        let all = diff(&c.a, &c.b, &opts(&c)).unwrap();
        let some = diff(&c.a, &c.b, &DiffOptions { min_region_pixels: min, ..opts(&c) }).unwrap();
        let kept: Vec<_> = all.regions.iter().filter(|r| r.changed_pixels >= min).cloned().collect();
        prop_assert_eq!(&some.regions, &kept);
        prop_assert_eq!(some.changed_pixels + some.ignored_pixels, all.changed_pixels);
    }
}
