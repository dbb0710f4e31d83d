//! A fake [`Input`] that records what it was asked to do, for tests of the layers above.

use deft_types::{MouseButton, Physical, Point};

use crate::input::{check_action, check_on_screen};
use crate::{ButtonAction, Chord, Input, InputError};

/// One call made on a [`RecordingInput`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Recorded {
    /// `move_to`.
    Move(Point<Physical>),
    /// `button`.
    Button(MouseButton, ButtonAction),
    /// `scroll`.
    Scroll {
        /// Horizontal steps.
        dx: i32,
        /// Vertical steps.
        dy: i32,
    },
    /// `text`.
    Text(String),
    /// `chord`.
    Chord(Chord),
    /// `paste_at`.
    Paste(Point<Physical>, String),
}

/// Records every call and sends nothing. It checks what a real backend would check
/// (click counts, points inside the screen), so a test that passes here does not pass
/// on requests the real one refuses.
#[derive(Clone, Debug)]
pub struct RecordingInput {
    /// The calls so far, in order.
    pub calls: Vec<Recorded>,
    /// The screen, in physical pixels: points outside it are refused.
    pub screen: (u32, u32),
    /// Where the pointer is.
    pub pointer: Point<Physical>,
    /// When set, every call fails with a transient backend error (after recording nothing).
    pub fail: bool,
}

impl RecordingInput {
    /// A recorder for a screen of `width` x `height` physical pixels.
    pub fn new(width: u32, height: u32) -> RecordingInput {
        RecordingInput { calls: Vec::new(), screen: (width, height), pointer: Point::new(0, 0), fail: false }
    }

    fn record(&mut self, call: Recorded) -> Result<(), InputError> {
        if self.fail {
            return Err(InputError::Backend { what: "recorded call", detail: "failing on request".into() });
        }
        self.calls.push(call);
        Ok(())
    }
}

impl Input for RecordingInput {
    fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
        Ok(Some(self.pointer))
    }

    fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError> {
        check_on_screen(to, self.screen)?;
        self.record(Recorded::Move(to))?;
        self.pointer = to;
        Ok(())
    }

    fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError> {
        check_action(action)?;
        self.record(Recorded::Button(button, action))
    }

    fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError> {
        self.record(Recorded::Scroll { dx, dy })
    }

    fn text(&mut self, text: &str) -> Result<(), InputError> {
        self.record(Recorded::Text(text.to_string()))
    }

    fn chord(&mut self, chord: &Chord) -> Result<(), InputError> {
        self.record(Recorded::Chord(chord.clone()))
    }

    /// Records the paste and says an application took the text.
    fn paste_at(&mut self, at: Point<Physical>, text: &str) -> Result<bool, InputError> {
        check_on_screen(at, self.screen)?;
        self.record(Recorded::Paste(at, text.to_string()))?;
        self.pointer = at;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use deft_types::KeyChord;

    use super::*;
    use crate::DragConfig;

    #[test]
    fn helpers_are_built_from_the_narrow_calls() {
        let mut input = RecordingInput::new(100, 100);
        input.click_at(Point::new(10, 20), MouseButton::Left, 2).unwrap();
        input.key_chord(&KeyChord { modifiers: vec!["Control".into()], key: "A".into() }).unwrap();
        assert_eq!(
            input.calls,
            [
                Recorded::Move(Point::new(10, 20)),
                Recorded::Button(MouseButton::Left, ButtonAction::Click { count: 2 }),
                Recorded::Chord(Chord::parse("ctrl+a").unwrap()),
            ]
        );
    }

    #[test]
    fn drag_presses_moves_and_releases() {
        let mut input = RecordingInput::new(100, 100);
        input.drag(Point::new(0, 0), Point::new(30, 0), MouseButton::Left, DragConfig { steps: 2 }).unwrap();
        use ButtonAction::{Press, Release};
        assert_eq!(
            input.calls,
            [
                Recorded::Move(Point::new(0, 0)),
                Recorded::Button(MouseButton::Left, Press),
                Recorded::Move(Point::new(10, 0)),
                Recorded::Move(Point::new(20, 0)),
                Recorded::Move(Point::new(30, 0)),
                Recorded::Button(MouseButton::Left, Release),
            ]
        );
    }

    #[test]
    fn drag_off_screen_still_releases() {
        let mut input = RecordingInput::new(100, 100);
        let err = input.drag(Point::new(50, 50), Point::new(150, 50), MouseButton::Left, DragConfig::default());
        assert!(matches!(err, Err(InputError::Invalid(_))), "{err:?}");
        assert_eq!(input.calls.last(), Some(&Recorded::Button(MouseButton::Left, ButtonAction::Release)));
    }

    #[test]
    fn refuses_what_a_real_backend_refuses() {
        let mut input = RecordingInput::new(100, 100);
        let off = input.move_to(Point::new(100, 5)).unwrap_err().to_string();
        assert!(off.contains("outside the 100x100 screen"), "{off}");
        assert!(input.move_to(Point::new(-1, 5)).is_err());
        assert!(input.button(MouseButton::Left, ButtonAction::Click { count: 0 }).is_err());
        assert!(input.calls.is_empty());
    }
}
