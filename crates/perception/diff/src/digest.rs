//! Fast equality digests of a frame or a region (XXH3, 64 bits), masks optional.

use deft_types::{Frame, Physical, Rect};
use xxhash_rust::xxh3::{Xxh3, xxh3_64_with_seed};

use crate::error::{DiffError, check_frame, check_region};
use crate::mask::{NoiseMask, row_spans};

/// The size goes in as the seed, so a 2x1 and a 1x2 image of the same bytes differ.
fn seed(w: u32, h: u32) -> u64 {
    (u64::from(w) << 32) | u64::from(h)
}

/// A digest of a frame's size and pixels (not its origin, time or scale): equal pixels give
/// equal digests, and different pixels differ except with probability about 2^-64.
///
/// Exact: unlike [`diff`](crate::diff()), no threshold applies. Equal to
/// [`digest_region`] of the frame's whole `screen_rect()`.
pub fn digest(frame: &Frame) -> u64 {
    xxh3_64_with_seed(frame.pixels(), seed(frame.width(), frame.height()))
}

/// A digest of one region of a frame, given in screen coordinates; the region must be
/// non-empty and inside the frame. Equal to [`digest`] of a frame holding just the region.
pub fn digest_region(frame: &Frame, rect: Rect<Physical>) -> Result<u64, DiffError> {
    digest_region_masked(frame, rect, &NoiseMask::new())
}

/// [`digest_region`] with the pixels under `mask` (screen coordinates) hashed as zeros, so
/// a blinking caret or a spinner inside the region does not change the digest.
pub fn digest_region_masked(frame: &Frame, rect: Rect<Physical>, mask: &NoiseMask) -> Result<u64, DiffError> {
    check_frame(frame, u64::MAX)?;
    check_region(frame, rect)?;
    // Inside the frame (checked), so these are offsets into it.
    let x0 = (i64::from(rect.x) - i64::from(frame.origin.x)) as usize;
    let y0 = (i64::from(rect.y) - i64::from(frame.origin.y)) as u32;
    let stride = frame.width() as usize * 4;
    let (start, len) = (x0 * 4, rect.w as usize * 4);
    let mask = mask.in_frame(frame.origin, frame.width(), frame.height());
    let mut hasher = Xxh3::with_seed(seed(rect.w, rect.h));
    let mut spans = Vec::new();
    let mut scratch = Vec::new();
    for y in y0..y0 + rect.h {
        let at = y as usize * stride + start;
        let row = &frame.pixels()[at..at + len];
        row_spans(&mask, y, &mut spans);
        if spans.is_empty() {
            hasher.update(row);
            continue;
        }
        scratch.clear();
        scratch.extend_from_slice(row);
        for &(s, e) in &spans {
            let (s, e) = ((s as usize).max(x0), (e as usize).min(x0 + rect.w as usize));
            if s < e {
                scratch[(s - x0) * 4..(e - x0) * 4].fill(0);
            }
        }
        hasher.update(&scratch);
    }
    Ok(hasher.digest())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_art::{ORIGIN, art};

    #[test]
    fn whole_region_equals_whole_frame() {
        let f = art("ab.\n.cd\nx.x");
        assert_eq!(digest_region(&f, f.screen_rect()).unwrap(), digest(&f));
    }

    #[test]
    fn a_region_digests_like_a_frame_of_it() {
        let big = art("....\n.ab.\n.cd.\n....");
        let small = art("ab\ncd");
        let r = Rect::new(ORIGIN.0 + 1, ORIGIN.1 + 1, 2, 2);
        assert_eq!(digest_region(&big, r).unwrap(), digest(&small));
    }

    #[test]
    fn shape_matters() {
        assert_ne!(digest(&art("ab")), digest(&art("a\nb")));
    }

    #[test]
    fn masked_pixels_do_not_count() {
        let (a, b) = (art("a.b.c"), art("a.x.c"));
        let r = a.screen_rect();
        assert_ne!(digest_region(&a, r).unwrap(), digest_region(&b, r).unwrap());
        let mask = NoiseMask::from_rects([Rect::new(ORIGIN.0 + 2, ORIGIN.1, 1, 1)]).unwrap();
        assert_eq!(digest_region_masked(&a, r, &mask).unwrap(), digest_region_masked(&b, r, &mask).unwrap());
        let elsewhere = NoiseMask::from_rects([Rect::new(ORIGIN.0, ORIGIN.1, 2, 1)]).unwrap();
        assert_ne!(digest_region_masked(&a, r, &elsewhere).unwrap(), digest_region_masked(&b, r, &elsewhere).unwrap());
    }

    #[test]
    fn bad_regions_are_errors() {
        let f = art("....\n....");
        let e = digest_region(&f, Rect::new(ORIGIN.0, ORIGIN.1, 0, 1)).unwrap_err();
        assert!(matches!(e, DiffError::EmptyRegion { .. }), "{e}");
        let e = digest_region(&f, Rect::new(ORIGIN.0 + 3, ORIGIN.1, 2, 1)).unwrap_err();
        assert!(e.to_string().contains("is not inside the frame"), "{e}");
        let e = digest_region(&f, Rect::new(ORIGIN.0 - 1, ORIGIN.1, 1, 1)).unwrap_err();
        assert!(matches!(e, DiffError::RegionOutside { .. }), "{e}");
    }
}
