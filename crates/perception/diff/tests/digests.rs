//! Digests are equal exactly when the pixels are (for single-pixel mutations), per frame and
//! per region, with and without masks.

use deft_diff::{NoiseMask, digest, digest_region, digest_region_masked};
use deft_types::{Frame, Physical, Point, Rect};
use proptest::prelude::*;

use crate::frames::{Edit, base, edited};

/// A frame, one pixel in it, a non-zero change of one channel, and a region.
fn mutation() -> impl Strategy<Value = (Frame, (u32, u32), usize, u8, Rect<Physical>)> {
    (1..=120u32, 1..=90u32, any::<u64>(), -100..100i32, -100..100i32).prop_flat_map(|(w, h, seed, ox, oy)| {
        let f = base(w, h, seed, (ox, oy));
        let region = (0..w, 0..h).prop_flat_map(move |(x, y)| {
            (1..=w - x, 1..=h - y).prop_map(move |(rw, rh)| Rect::new(ox + x as i32, oy + y as i32, rw, rh))
        });
        (Just(f), (0..w, 0..h), 0..4usize, 1..=255u8, region)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn digest_is_equal_iff_pixels_are_equal((f, (x, y), channel, by, region) in mutation()) {
        let mut delta = [0; 4];
        delta[channel] = by;
        let g = edited(&f, &[Edit { x, y, w: 1, h: 1, delta }]);
        prop_assert_eq!(digest(&f), digest(&f.clone()));
        prop_assert_ne!(digest(&f), digest(&g));

        let p = Point::new(f.origin.x + x as i32, f.origin.y + y as i32);
        let (df, dg) = (digest_region(&f, region).unwrap(), digest_region(&g, region).unwrap());
        prop_assert_eq!(df == dg, !region.contains(p), "region {:?}, changed pixel {:?}", region, p);
        prop_assert_eq!(digest_region(&f, f.screen_rect()).unwrap(), digest(&f));

        // Masking the changed pixel hides it; masking elsewhere does not.
        let over = NoiseMask::from_rects([Rect::new(p.x, p.y, 1, 1)]).unwrap();
        prop_assert_eq!(digest_region_masked(&f, region, &over).unwrap(), digest_region_masked(&g, region, &over).unwrap());
        let beside = NoiseMask::from_rects([Rect::new(p.x + 1, p.y, 5, 5)]).unwrap();
        let (mf, mg) = (digest_region_masked(&f, region, &beside).unwrap(), digest_region_masked(&g, region, &beside).unwrap());
        prop_assert_eq!(mf == mg, !region.contains(p));
    }

    #[test]
    fn a_region_digests_like_a_cropped_frame((f, _, _, _, region) in mutation()) {
        let (x0, y0) = ((region.x - f.origin.x) as usize, (region.y - f.origin.y) as usize);
        let stride = f.width() as usize * 4;
        let mut px = Vec::new();
        for y in y0..y0 + region.h as usize {
            px.extend_from_slice(&f.pixels()[y * stride + x0 * 4..y * stride + (x0 + region.w as usize) * 4]);
        }
        let crop = Frame::new(region.w, region.h, px, region.origin()).unwrap();
        prop_assert_eq!(digest_region(&f, region).unwrap(), digest(&crop));
    }
}
