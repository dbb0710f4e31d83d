//! Tiny frames drawn as text, for the unit tests: one character per pixel.

use deft_types::{Frame, Point};

use crate::diff::{DiffOptions, diff};

/// Where art frames are placed on screen, so tests see frame offsets become screen
/// coordinates.
pub(crate) const ORIGIN: (i32, i32) = (100, 200);

/// The colour of a character: `.` is the background, `n` is the background plus 8 in red
/// (noise under the default threshold), every other character a colour far from both.
pub(crate) fn colour(c: char) -> [u8; 4] {
    match c {
        '.' => [200, 200, 200, 255],
        'n' => [208, 200, 200, 255],
        c => [(c as u8).wrapping_mul(7), (c as u8).wrapping_mul(13), 0, 255],
    }
}

/// A frame from rows of characters; blank lines and indentation are ignored.
pub(crate) fn art(text: &str) -> Frame {
    let rows: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let w = rows.first().map_or(0, |r| r.chars().count());
    assert!(rows.iter().all(|r| r.chars().count() == w), "ragged art:\n{text}");
    let pixels = rows.iter().flat_map(|r| r.chars()).flat_map(colour).collect();
    Frame::new(w as u32, rows.len() as u32, pixels, Point::new(ORIGIN.0, ORIGIN.1)).unwrap()
}

/// Diff `before` and `after` with default options; `expected` rectangles are in art
/// coordinates (`(x, y, w, h)` from the art's top-left corner).
pub(crate) fn check(before: &str, after: &str, expected: &[(i32, i32, u32, u32)]) {
    check_with(before, after, &DiffOptions::default(), expected);
}

/// [`check`] with options; also checks that swapping the frames changes nothing.
pub(crate) fn check_with(before: &str, after: &str, opts: &DiffOptions, expected: &[(i32, i32, u32, u32)]) {
    let (a, b) = (art(before), art(after));
    let d = diff(&a, &b, opts).unwrap();
    let got: Vec<(i32, i32, u32, u32)> = d.rects().map(|r| (r.x - ORIGIN.0, r.y - ORIGIN.1, r.w, r.h)).collect();
    assert_eq!(got, expected, "\nbefore:{before}\nafter:{after}");
    assert_eq!(diff(&b, &a, opts).unwrap(), d, "diff is not symmetric");
    let inside: u64 = d.regions.iter().map(|r| r.changed_pixels).sum();
    assert_eq!(inside, d.changed_pixels);
    assert!(d.regions.iter().all(|r| r.changed_pixels <= u64::from(r.rect.w) * u64::from(r.rect.h)));
    let frame = a.screen_rect();
    assert!(d.rects().all(|r| frame.contains_rect(&r)));
}
