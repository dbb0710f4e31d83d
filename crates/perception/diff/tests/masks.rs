//! Masks hide the changes inside them, and only those.

use deft_diff::{DiffOptions, NoiseMask, diff};
use deft_types::{Physical, Rect};
use proptest::prelude::*;

use crate::frames::{Case, case};
use crate::properties::check_diff;
use crate::reference;

fn mask_in(c: &Case) -> impl Strategy<Value = Vec<Rect<Physical>>> + use<> {
    let (ox, oy) = (c.a.origin.x, c.a.origin.y);
    let (w, h) = (c.a.width() as i32, c.a.height() as i32);
    // Partly outside the frame too: the outside part is ignored.
    let rect = (-10..w + 10, -10..h + 10, 1..60u32, 1..40u32)
        .prop_map(move |(x, y, rw, rh)| Rect::new(ox + x, oy + y, rw, rh));
    prop::collection::vec(rect, 0..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn masked_changes_are_hidden_and_others_kept((c, rects) in case(160, 100, 12).prop_flat_map(|c| (Just(c.clone()), mask_in(&c)))) {
        let mask = NoiseMask::from_rects(rects.iter().copied()).unwrap();
        let opts = DiffOptions { threshold: c.threshold, merge_gap: c.gap, mask: mask.clone(), ..DiffOptions::default() };
        let d = diff(&c.a, &c.b, &opts).unwrap();
        let changed = reference::changed_pixels(&c.a, &c.b, c.threshold, |p| mask.contains(p));
        check_diff(&d, &c.a, &changed, c.gap)?;
        prop_assert_eq!(&diff(&c.b, &c.a, &opts).unwrap(), &d);
        if c.a.width() <= 60 && c.a.height() <= 40 {
            let expected = reference::regions(&changed, c.gap);
            let got: Vec<_> = d.regions.iter().map(|r| (r.rect, r.changed_pixels)).collect();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_mask_over_the_whole_frame_hides_everything(c in case(100, 80, 8)) {
        let mask = NoiseMask::from_rects([c.a.screen_rect()]).unwrap();
        let opts = DiffOptions { threshold: c.threshold, mask, ..DiffOptions::default() };
        prop_assert!(diff(&c.a, &c.b, &opts).unwrap().is_empty());
    }
}
