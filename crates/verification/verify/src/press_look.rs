//! A press in pixels: whether a target's look while the pointer button is held shows the
//! press (strongly, or faintly, as a browser draws it), and whether it went back after the
//! release; always against a still look taken before the press (see `press.rs`).

use deft_types::Frame;

/// Largest difference of one colour channel between a look and the one before the press
/// that still counts as "back". The end of an eased animation moves pixels by a level or two.
const BACK_WITHIN: u8 = 8;
/// A pressed look: at least this share of the target's colour channels changed by more
/// than [`PRESSED_BY`] levels. Measured on GTK 3 (Adwaita): a press changes about 70% of a
/// button's channels by 30 levels within a frame; the tail of a hover highlight changes a
/// few levels. (Chromium on Wayland, its hover look already shown while the pointer rests,
/// changes 2.2%, its border: taking that as pressed, at 1%, let a dropped press on a page
/// pass for received there, so it stays unseen; see docs/BENCHMARKS.md, Wayland.)
const PRESSED_SHARE: f64 = 0.05;
const PRESSED_BY: u8 = 16;
/// A faint pressed look: at least this share of the target's channels changed by more than
/// [`BACK_WITHIN`] levels. Chromium on Wayland, its hover look shown, darkens the whole
/// button by 9-16 levels while held (47% of channels; 2.2% past [`PRESSED_BY`]): too little
/// to call pressed, far too much to call unchanged. The browser draws it whatever the page
/// does with the press (a page that swallows it looks the same), so it proves the press
/// reached the browser, not the page: enough never to send a second input, never enough to
/// verify anything. Only used on toolkits that do not say which button is held (GTK and Qt
/// do; their word is taken, and a hover highlight's tail cannot pass for a press), and on
/// targets that already have the focus (or cannot take it): elsewhere the focus moving to
/// the target is the page's own receipt, and its absence says the page did not take it.
const FAINT_SHARE: f64 = 0.2;

/// Whether two looks are exactly the same.
pub(crate) fn same(a: &Frame, b: &Frame) -> bool {
    a.width() == b.width() && a.height() == b.height() && a.pixels() == b.pixels()
}

/// Whether `now` is back to `before`, up to [`BACK_WITHIN`] per channel.
pub(crate) fn back_to(before: &Frame, now: &Frame) -> bool {
    before.width() == now.width()
        && before.height() == now.height()
        && before.pixels().iter().zip(now.pixels()).all(|(x, y)| x.abs_diff(*y) <= BACK_WITHIN)
}

/// Whether `now` shows a pressed look against `before`: a strong change of a good part.
pub(crate) fn looks_pressed(before: &Frame, now: &Frame) -> bool {
    changed_share(before, now, PRESSED_BY) >= PRESSED_SHARE
}

/// Whether `now` shows a faintly pressed look against `before` ([`FAINT_SHARE`]).
pub(crate) fn looks_faintly_pressed(before: &Frame, now: &Frame) -> bool {
    changed_share(before, now, BACK_WITHIN) >= FAINT_SHARE
}

/// The share of colour channels that differ by more than `by` levels (all of them when
/// the sizes differ).
fn changed_share(before: &Frame, now: &Frame, by: u8) -> f64 {
    if before.width() != now.width() || before.height() != now.height() || before.pixels().is_empty() {
        return 1.0;
    }
    let changed = before.pixels().iter().zip(now.pixels()).filter(|(x, y)| x.abs_diff(**y) > by).count();
    changed as f64 / before.pixels().len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_types::Point;

    fn frame(level: u8) -> Frame {
        Frame::new(10, 4, vec![level; 10 * 4 * 4], Point::new(0, 0)).unwrap()
    }

    #[test]
    fn a_faint_press_is_neither_pressed_nor_unchanged() {
        let hover = frame(200);
        // Chromium's held button on Wayland: the whole face a dozen levels darker.
        let held = frame(188);
        assert!(!looks_pressed(&hover, &held));
        assert!(looks_faintly_pressed(&hover, &held));
        // GTK 3's: most of the face 30 levels darker.
        assert!(looks_pressed(&hover, &frame(170)));
        // The eased end of an animation: a level or two is no press.
        assert!(!looks_faintly_pressed(&hover, &frame(198)));
        assert!(back_to(&hover, &frame(198)));
    }
}
