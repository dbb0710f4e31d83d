//! [`RefusingInput`]: the input of a session Deft cannot send input on (a Wayland session
//! with no input backend yet). Every call refuses with the reason and sends nothing, so the
//! layers above can still read the desktop (accessibility works on every session) without
//! any input ever going somewhere else.

use deft_types::{MouseButton, Physical, Point};

use crate::error::InputError;
use crate::input::{ButtonAction, Input};
use crate::keys::Chord;

/// Refuses every input with `why`.
#[derive(Clone, Debug)]
pub struct RefusingInput {
    why: String,
}

impl RefusingInput {
    /// An input that refuses with `why` (what the session lacks and what to do).
    pub fn new(why: impl Into<String>) -> RefusingInput {
        RefusingInput { why: why.into() }
    }

    /// Why it refuses.
    pub fn why(&self) -> &str {
        &self.why
    }

    fn refuse<T>(&self) -> Result<T, InputError> {
        Err(InputError::Unavailable(self.why.clone()))
    }
}

impl Input for RefusingInput {
    fn move_to(&mut self, _to: Point<Physical>) -> Result<(), InputError> {
        self.refuse()
    }
    fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
        self.refuse()
    }
    fn button(&mut self, _button: MouseButton, _action: ButtonAction) -> Result<(), InputError> {
        self.refuse()
    }
    fn scroll(&mut self, _dx: i32, _dy: i32) -> Result<(), InputError> {
        self.refuse()
    }
    fn text(&mut self, _text: &str) -> Result<(), InputError> {
        self.refuse()
    }
    fn can_type(&self, _text: &str) -> Result<(), InputError> {
        self.refuse()
    }
    fn chord(&mut self, _chord: &Chord) -> Result<(), InputError> {
        self.refuse()
    }
    fn paste_at(&mut self, _at: Point<Physical>, _text: &str) -> Result<bool, InputError> {
        self.refuse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_is_refused_with_the_reason() {
        let mut input = RefusingInput::new("a Wayland session with no input backend");
        let at = Point::new(10, 10);
        let errors = [
            input.move_to(at).unwrap_err(),
            input.position().unwrap_err(),
            input.button(MouseButton::Left, ButtonAction::Click { count: 1 }).unwrap_err(),
            input.scroll(0, 1).unwrap_err(),
            input.text("x").unwrap_err(),
            input.can_type("x").unwrap_err(),
            input.chord(&Chord::parse("ctrl+s").unwrap()).unwrap_err(),
            input.paste_at(at, "x").unwrap_err(),
            input.click_at(at, MouseButton::Left, 1).unwrap_err(),
        ];
        for e in errors {
            assert_eq!(e.to_string(), "a Wayland session with no input backend");
            assert!(!e.is_retryable());
        }
    }
}
