//! Input on a wlroots compositor (sway, labwc, river, ...): the pointer through its virtual
//! pointer protocol (deft-wayland's `VirtualPointer`), absolute over the output layout,
//! each call returning once the compositor handled it. Keys are not sent yet (the virtual
//! keyboard needs a keymap passed as a file descriptor): every key call is refused with
//! why, before anything is sent, so a fallback chain moves on to accessibility.

use deft_types::{MouseButton, Physical, Point};
use deft_wayland::{BTN_LEFT, BTN_MIDDLE, BTN_RIGHT, VirtualPointer};

use crate::error::InputError;
use crate::input::{ButtonAction, Input, check_action};
use crate::keys::Chord;

/// Why keys are refused on a wlroots session, in a user's words.
const NO_KEYS: &str = "keys cannot be sent on this Wayland session yet (Deft's virtual keyboard is \
    not built): text is set through accessibility instead, and key chords fail";

/// The pointer of a wlroots session.
#[derive(Debug)]
pub struct WlrInput {
    pointer: VirtualPointer,
    at: Option<Point<Physical>>,
}

impl WlrInput {
    /// A virtual pointer on the compositor at `socket` whose output layout is `extent`
    /// pixels (width, height) from its origin.
    pub fn connect(socket: &std::path::Path, extent: (u32, u32)) -> Result<WlrInput, InputError> {
        let pointer = VirtualPointer::connect(socket, extent).map_err(InputError::Unavailable)?;
        Ok(WlrInput { pointer, at: None })
    }
}

fn sent(what: &'static str) -> impl Fn(String) -> InputError {
    move |detail| InputError::Backend { what, detail }
}

fn code(button: MouseButton) -> u32 {
    match button {
        MouseButton::Left => BTN_LEFT,
        MouseButton::Middle => BTN_MIDDLE,
        MouseButton::Right => BTN_RIGHT,
    }
}

impl Input for WlrInput {
    fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError> {
        let (Ok(x), Ok(y)) = (u32::try_from(to.x), u32::try_from(to.y)) else {
            return Err(InputError::Invalid(format!("({}, {}) is outside the output layout", to.x, to.y)));
        };
        self.pointer.move_to(x, y).map_err(InputError::Invalid)?;
        self.at = Some(to);
        Ok(())
    }

    fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
        // Wayland tells a client nothing of the pointer: only where this one put it.
        Ok(self.at)
    }

    fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError> {
        check_action(action)?;
        let code = code(button);
        match action {
            ButtonAction::Press => self.pointer.button(code, true).map_err(sent("button press")),
            ButtonAction::Release => self.pointer.button(code, false).map_err(sent("button release")),
            ButtonAction::Click { count } => {
                for _ in 0..count {
                    self.pointer.button(code, true).map_err(sent("button press"))?;
                    self.pointer.button(code, false).map_err(sent("button release"))?;
                }
                Ok(())
            }
        }
    }

    fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError> {
        if dy != 0 {
            self.pointer.wheel(0, dy).map_err(sent("wheel"))?;
        }
        if dx != 0 {
            self.pointer.wheel(1, dx).map_err(sent("wheel"))?;
        }
        Ok(())
    }

    fn text(&mut self, _text: &str) -> Result<(), InputError> {
        Err(InputError::Unavailable(NO_KEYS.into()))
    }

    fn chord(&mut self, _chord: &Chord) -> Result<(), InputError> {
        Err(InputError::Unavailable(NO_KEYS.into()))
    }
}
