//! "Stable for N ms" over synthetic streams, against a simple reference: the time since the
//! first frame of the trailing run of identical frames.

use std::time::Duration;

use deft_diff::{BlinkDetector, BlinkOptions, DiffOptions, StabilityTracker};
use deft_types::{Frame, Rect};
use proptest::prelude::*;

use crate::frames::{Edit, base, edited};

/// Three distinct pictures of one screen rectangle.
fn pictures() -> [Frame; 3] {
    let a = base(64, 48, 7, (10, 20));
    let b = edited(&a, &[Edit { x: 30, y: 10, w: 12, h: 4, delta: [90, 0, 0, 0] }]);
    let c = edited(&a, &[Edit { x: 0, y: 47, w: 64, h: 1, delta: [0, 0, 200, 0] }]);
    [a, b, c]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn stable_for_is_the_age_of_the_trailing_run(
        steps in prop::collection::vec((0..3usize, 0..120_000u64), 1..40),
        window_ms in 0..300u64,
    ) {
        let pics = pictures();
        let mut t = StabilityTracker::new(Duration::from_millis(window_ms), DiffOptions::exact());
        let (mut now, mut run_start, mut last_change, mut prev) = (5_000u64, 0u64, None, None);
        for (i, (pic, dt)) in steps.iter().enumerate() {
            now += dt;
            if prev != Some(*pic) {
                run_start = now;
                if i > 0 {
                    last_change = Some(now);
                }
            }
            prev = Some(*pic);
            let mut f = pics[*pic].clone();
            f.timestamp_us = now;
            let s = t.push(f).unwrap();
            prop_assert_eq!(s.stable_for_ms, (now - run_start) / 1000);
            prop_assert_eq!(s.stable, now - run_start >= window_ms * 1000);
            prop_assert_eq!(s.last_change.map(|c| c.at_us), last_change);
        }
    }

    #[test]
    fn a_learned_caret_mask_keeps_a_blinking_screen_stable(blinks in 4..12usize, period_ms in 300..700u64) {
        let pics = pictures();
        let on = edited(&pics[0], &[Edit { x: 20, y: 5, w: 2, h: 14, delta: [0, 128, 0, 0] }]);
        let stream: Vec<Frame> = (0..blinks)
            .map(|i| {
                let mut f = if i % 2 == 0 { on.clone() } else { pics[0].clone() };
                f.timestamp_us = i as u64 * period_ms * 1000;
                f
            })
            .collect();
        let mut detector = BlinkDetector::new(BlinkOptions::default());
        for f in &stream {
            detector.push(f.clone()).unwrap();
        }
        prop_assert_eq!(detector.blinkers(), vec![Rect::new(30, 25, 2, 14)]);

        let mut plain = StabilityTracker::new(Duration::from_millis(period_ms), DiffOptions::default());
        let mut masked = StabilityTracker::new(Duration::from_millis(period_ms), DiffOptions::default());
        masked.set_mask(detector.suggested_mask());
        for f in &stream {
            let s = plain.push(f.clone()).unwrap();
            prop_assert!(!s.stable || s.frames == 1 && period_ms == 0);
            masked.push(f.clone()).unwrap();
        }
        let last = stream.last().unwrap().timestamp_us;
        let s = masked.push({ let mut f = stream[0].clone(); f.timestamp_us = last + 1000; f }).unwrap();
        prop_assert!(s.stable && s.last_change.is_none(), "{:?}", s);
        prop_assert_eq!(s.stable_for_ms, last / 1000 + 1);
    }
}
