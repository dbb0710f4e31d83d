//! Bad input gives clear errors, never a panic: sizes, positions, empty and huge frames,
//! broken buffers, regions outside.

use deft_diff::{DiffError, DiffOptions, NoiseMask, StabilityTracker, diff, digest, digest_region};
use deft_types::{Frame, Point, Rect};
use proptest::prelude::*;

fn frame(w: u32, h: u32, x: i32, y: i32) -> Frame {
    Frame::new(w, h, vec![7; w as usize * h as usize * 4], Point::new(x, y)).unwrap()
}

/// A frame whose buffer is too short, as a bad trace could hold it.
fn broken() -> Frame {
    let mut v = serde_json::to_value(frame(4, 4, 0, 0)).unwrap();
    v["pixels"] = serde_json::json!([1, 2, 3]);
    serde_json::from_value(v).unwrap()
}

#[test]
fn a_broken_buffer_is_reported_not_read() {
    let f = broken();
    let e = diff(&f, &f, &DiffOptions::default()).unwrap_err();
    assert_eq!(e, DiffError::BadBuffer { w: 4, h: 4, len: 3 });
    assert!(e.to_string().contains("holds 3 bytes instead of 64"), "{e}");
    assert!(digest_region(&f, Rect::new(0, 0, 1, 1)).is_err());
    let _ = digest(&f);
    let mut t = StabilityTracker::new(std::time::Duration::ZERO, DiffOptions::default());
    assert!(t.push(f).is_err());
}

#[test]
fn errors_say_what_to_do() {
    let cases: Vec<(DiffError, &str)> = vec![
        (
            diff(&frame(3, 3, 0, 0), &frame(3, 4, 0, 0), &DiffOptions::default()).unwrap_err(),
            "capture the same screen rectangle",
        ),
        (
            diff(&frame(3, 3, 0, 0), &frame(3, 3, 1, 0), &DiffOptions::default()).unwrap_err(),
            "set one frame's `origin`",
        ),
        (diff(&frame(0, 3, 0, 0), &frame(0, 3, 0, 0), &DiffOptions::default()).unwrap_err(), "at least 1x1"),
        (
            diff(
                &frame(30, 30, 0, 0),
                &frame(30, 30, 0, 0),
                &DiffOptions { max_pixels: 800, ..DiffOptions::default() },
            )
            .unwrap_err(),
            "raise `DiffOptions::max_pixels`",
        ),
        (digest_region(&frame(3, 3, 0, 0), Rect::new(1, 1, 0, 2)).unwrap_err(), "give a region at least 1x1"),
        (digest_region(&frame(3, 3, 0, 0), Rect::new(2, 2, 2, 2)).unwrap_err(), "intersect it with the frame"),
        (NoiseMask::new().add(Rect::new(0, 0, 0, 0)).unwrap_err(), "has no pixels"),
    ];
    for (e, hint) in cases {
        assert!(e.to_string().contains(hint), "`{e}` lacks `{hint}`");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_pair_of_frames_diffs_or_says_why(
        (aw, ah, bw, bh) in (0..12u32, 0..12u32, 0..12u32, 0..12u32),
        (ax, ay, bx, by) in (any::<i32>(), any::<i32>(), -2..2i32, -2..2i32),
        same_origin in any::<bool>(),
    ) {
        let a = frame(aw, ah, if same_origin { bx } else { ax }, if same_origin { by } else { ay });
        let b = frame(bw, bh, bx, by);
        match diff(&a, &b, &DiffOptions::default()) {
            Ok(d) => {
                prop_assert!((aw, ah) == (bw, bh) && a.origin == b.origin && aw * ah > 0);
                prop_assert!(d.is_empty());
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn any_region_digests_or_says_why(
        (w, h) in (0..10u32, 0..10u32),
        (x, y, rw, rh) in (-12..12i32, -12..12i32, 0..14u32, 0..14u32),
    ) {
        let f = frame(w, h, 0, 0);
        let r = Rect::new(x, y, rw, rh);
        let inside = rw > 0 && rh > 0 && x >= 0 && y >= 0 && x as u32 + rw <= w && y as u32 + rh <= h;
        prop_assert_eq!(digest_region(&f, r).is_ok(), inside);
    }
}
