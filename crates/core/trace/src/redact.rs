//! Redaction of secrets: the text typed or set into a field becomes its length, and the
//! pixels of secret areas are painted over. One set of functions every writer uses.

use deft_types::{Action, Frame, Physical, Rect};

/// The colour secret areas are painted with (opaque dark grey: visibly a mask, not a widget).
pub const MASK_RGBA: [u8; 4] = [48, 48, 48, 255];

/// A secret as its length only: `[secret: 7 characters]`.
pub fn length_only(secret: &str) -> String {
    let n = secret.chars().count();
    format!("[secret: {n} character{}]", if n == 1 { "" } else { "s" })
}

/// `action` with any text it types or value it sets replaced by its length. The executor
/// publishes actions before it has resolved their target, so it cannot yet know whether
/// the field is a password: the text never travels in an event at all, and the outcome
/// (which knows the target) says what was typed where that is not a secret.
pub fn action(action: &Action) -> Action {
    let length = |s: &str| {
        let n = s.chars().count();
        format!("[{n} character{}]", if n == 1 { "" } else { "s" })
    };
    match action {
        Action::Type { target, text } => Action::Type { target: target.clone(), text: length(text) },
        Action::SetValue { target, value } => Action::SetValue { target: target.clone(), value: length(value) },
        other => other.clone(),
    }
}

/// Paints `areas` (screen pixels) over in `frame`, clipped to it; returns the areas that
/// overlapped it, in screen pixels, for the record of what was masked.
pub fn mask(frame: Frame, areas: &[Rect<Physical>]) -> (Frame, Vec<Rect<Physical>>) {
    let screen = frame.screen_rect();
    let hits: Vec<Rect<Physical>> = areas.iter().filter_map(|a| a.intersection(&screen)).collect();
    if hits.is_empty() {
        return (frame, hits);
    }
    let (w, h, origin) = (frame.width(), frame.height(), frame.origin);
    let (timestamp_us, monitor, scale) = (frame.timestamp_us, frame.monitor.clone(), frame.scale);
    let mut pixels = frame.into_pixels();
    for r in &hits {
        let x0 = (r.x - origin.x) as usize;
        let y0 = (r.y - origin.y) as usize;
        for y in y0..y0 + r.h as usize {
            let row = y * w as usize * 4;
            for x in x0..x0 + r.w as usize {
                pixels[row + x * 4..row + x * 4 + 4].copy_from_slice(&MASK_RGBA);
            }
        }
    }
    // The size is unchanged, so rebuilding cannot fail.
    let mut masked = Frame::new(w, h, pixels, origin).unwrap_or_else(|_| unreachable_frame(w, h, origin));
    masked.timestamp_us = timestamp_us;
    masked.monitor = monitor;
    masked.scale = scale;
    (masked, hits)
}

/// A blank frame of the same size: only reachable if `Frame::new` rejected a buffer of
/// the size it had just given out; blank is the safe answer (it shows no secret).
fn unreachable_frame(w: u32, h: u32, origin: deft_types::Point<Physical>) -> Frame {
    Frame::new(w, h, vec![0; w as usize * h as usize * 4], origin).unwrap_or_else(|_| panic!("a {w}x{h} frame"))
}

#[cfg(test)]
mod tests {
    use deft_types::{Point, Selector, Target};

    use super::*;

    #[test]
    fn typed_text_becomes_its_length() {
        let target = Target::Selector(Selector::default());
        let a = action(&Action::Type { target: target.clone(), text: "hunter2".into() });
        assert_eq!(a, Action::Type { target: target.clone(), text: "[7 characters]".into() });
        let a = action(&Action::SetValue { target, value: "x".into() });
        assert!(matches!(a, Action::SetValue { value, .. } if value == "[1 character]"));
        assert_eq!(length_only("hunter2"), "[secret: 7 characters]");
    }

    #[test]
    fn mask_paints_only_the_overlap() {
        let f = Frame::new(4, 3, vec![255; 4 * 3 * 4], Point::new(10, 20)).unwrap();
        // One area half outside the frame, one entirely outside.
        let (m, hits) = mask(f, &[Rect::new(12, 21, 5, 1), Rect::new(0, 0, 3, 3)]);
        assert_eq!(hits, vec![Rect::new(12, 21, 2, 1)]);
        assert_eq!(m.pixel(2, 1), Some(MASK_RGBA));
        assert_eq!(m.pixel(3, 1), Some(MASK_RGBA));
        assert_eq!(m.pixel(1, 1), Some([255; 4]));
        assert_eq!(m.pixel(2, 0), Some([255; 4]));
    }
}
