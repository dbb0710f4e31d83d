//! Input on a wlroots compositor (sway, labwc, river, ...): the pointer through its virtual
//! pointer protocol (deft-wayland's `VirtualPointer`), absolute over the output layout, and
//! the keys through its virtual keyboard (US layout), each call returning once the
//! compositor handled it. Text with a character the US layout has no key for is refused
//! whole, before any key is sent, so a fallback chain moves on to accessibility; so is
//! every key when the compositor offers no virtual keyboard. Text for a field that
//! ignores keys is pasted with a middle click, the primary selection set through the
//! compositor's data-control protocol.

use deft_types::{MouseButton, Physical, Point};
use deft_wayland::{
    ALT, BTN_LEFT, BTN_MIDDLE, BTN_RIGHT, CONTROL, SHIFT, SUPER, VirtualKeyboard, VirtualPointer, us_key,
};

use crate::error::InputError;
use crate::input::{ButtonAction, Input, check_action};
use crate::keys::{Chord, Key, Modifier, NamedKey};

/// The pointer of a wlroots session.
#[derive(Debug)]
pub struct WlrInput {
    pointer: VirtualPointer,
    /// The keyboard, or why there is none.
    keyboard: Result<VirtualKeyboard, String>,
    at: Option<Point<Physical>>,
    /// Where Deft records the last place it put the pointer on this compositor.
    record: std::path::PathBuf,
    /// The compositor's socket, for a paste's own connection.
    socket: std::path::PathBuf,
}

/// How long a paste may take to be asked for and handed over.
const PASTE_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

impl Drop for WlrInput {
    fn drop(&mut self) {
        // Written once, as the connection ends: the next one reads it. Only a watch relies
        // on it, so a record that cannot be written costs nothing else.
        if let Some(at) = self.at {
            let _ = std::fs::write(&self.record, format!("{} {}", at.x, at.y));
        }
    }
}

/// The file beside the compositor's socket where Deft records where it last put the
/// pointer. Wayland tells no client where the pointer is, and the compositor keeps it where
/// the last virtual pointer left it, so a new connection (the next `agent-cli` command)
/// learns from the record whether the pointer already rests on its target: as on X11, a
/// press is then watched from a still look at once, instead of waiting out a hover
/// highlight that never comes. The record is Deft's own: after a person moves the mouse
/// it is stale, which costs only that watch (a look that moves is never used).
fn record_of(socket: &std::path::Path) -> std::path::PathBuf {
    let name = socket.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    socket.with_file_name(format!("{name}.deft-pointer"))
}

fn read_record(path: &std::path::Path) -> Option<Point<Physical>> {
    let text = std::fs::read_to_string(path).ok()?;
    let (x, y) = text.trim().split_once(' ')?;
    Some(Point::new(x.parse().ok()?, y.parse().ok()?))
}

impl WlrInput {
    /// A virtual pointer on the compositor at `socket` whose output layout is `extent`
    /// pixels (width, height) from its origin.
    pub fn connect(socket: &std::path::Path, extent: (u32, u32)) -> Result<WlrInput, InputError> {
        let pointer = VirtualPointer::connect(socket, extent).map_err(InputError::Unavailable)?;
        let keyboard = VirtualKeyboard::connect(socket).map_err(|e| {
            format!("keys cannot be sent on this Wayland session ({e}): text is set through accessibility instead")
        });
        let record = record_of(socket);
        Ok(WlrInput { pointer, keyboard, at: read_record(&record), record, socket: socket.to_path_buf() })
    }

    /// Whether keys can be sent, or why not.
    pub fn keys(&self) -> Result<(), String> {
        self.keyboard.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    fn keyboard(&mut self) -> Result<&mut VirtualKeyboard, InputError> {
        self.keyboard.as_mut().map_err(|why| InputError::Unavailable(why.clone()))
    }

    /// Presses and releases `code` with `mods` declared held.
    fn tap(&mut self, code: u32, mods: u32) -> Result<(), InputError> {
        let kb = self.keyboard()?;
        let sent = |e: String| InputError::Backend { what: "key press", detail: e };
        if mods != 0 {
            kb.modifiers(mods).map_err(sent)?;
        }
        kb.key(code, true).map_err(sent)?;
        let released = kb.key(code, false).map_err(sent);
        if mods != 0 {
            kb.modifiers(0).map_err(sent)?;
        }
        released
    }
}

/// The Linux input code of a named key.
fn named(key: NamedKey) -> Option<u32> {
    Some(match key {
        NamedKey::Return => 28,
        NamedKey::Tab => 15,
        NamedKey::Escape => 1,
        NamedKey::BackSpace => 14,
        NamedKey::Delete => 111,
        NamedKey::Space => 57,
        NamedKey::Up => 103,
        NamedKey::Down => 108,
        NamedKey::Left => 105,
        NamedKey::Right => 106,
        NamedKey::Home => 102,
        NamedKey::End => 107,
        NamedKey::PageUp => 104,
        NamedKey::PageDown => 109,
        NamedKey::F(n @ 1..=10) => 58 + u32::from(n),
        NamedKey::F(11) => 87,
        NamedKey::F(12) => 88,
        NamedKey::F(n @ 13..=24) => 183 + u32::from(n - 13),
        NamedKey::F(_) => return None,
    })
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
        // Wayland tells a client nothing of the pointer: only where Deft last put it.
        Ok(self.at)
    }

    fn paste_at(&mut self, at: Point<Physical>, text: &str) -> Result<bool, InputError> {
        use deft_wayland::selection::{PasteError, paste_primary};
        let socket = self.socket.clone();
        let pasted = paste_primary(&socket, text, PASTE_LIMIT, || {
            self.move_to(at)?;
            self.button(MouseButton::Middle, ButtonAction::Click { count: 1 })
        });
        match pasted {
            Ok(handed) => Ok(handed > 0),
            Err(PasteError::Click(e)) => Err(e),
            // Nothing was sent: never an error a caller would take for a maybe-sent input.
            Err(PasteError::Offer(why)) => Err(InputError::Unavailable(format!("{why}; nothing was sent"))),
        }
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

    fn can_type(&self, text: &str) -> Result<(), InputError> {
        self.keyboard.as_ref().map_err(|why| InputError::Unavailable(why.clone()))?;
        match text.chars().find(|c| us_key(*c).is_none()) {
            None => Ok(()),
            Some(c) => Err(InputError::Unavailable(format!(
                "{c:?} has no key on the US keyboard layout Deft types with on Wayland: the text is set through accessibility instead"
            ))),
        }
    }

    fn text(&mut self, text: &str) -> Result<(), InputError> {
        // Every character is checked before the first key goes: never half a text.
        self.can_type(text)?;
        let keys: Vec<(u32, bool)> = text.chars().filter_map(us_key).collect();
        for (code, shift) in keys {
            self.tap(code, if shift { SHIFT } else { 0 })?;
        }
        Ok(())
    }

    fn chord(&mut self, chord: &Chord) -> Result<(), InputError> {
        self.keyboard()?;
        let mut mods = chord.modifiers.iter().fold(0, |m, modifier| {
            m | match modifier {
                Modifier::Ctrl => CONTROL,
                Modifier::Shift => SHIFT,
                Modifier::Alt => ALT,
                Modifier::Super => SUPER,
            }
        });
        let code = match chord.key {
            Key::Named(k) => named(k),
            Key::Char(c) => us_key(c).map(|(code, shift)| {
                if shift {
                    mods |= SHIFT;
                }
                code
            }),
        };
        let code = code.ok_or_else(|| {
            InputError::Unavailable(format!(
                "{chord:?} has no key on the US keyboard layout Deft types with on Wayland"
            ))
        })?;
        self.tap(code, mods)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pointer_record_lies_beside_the_socket_and_reads_back_what_was_written() {
        let dir = std::env::temp_dir().join(format!("deft-wlr-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let record = record_of(&dir.join("wayland-1"));
        assert_eq!(record, dir.join("wayland-1.deft-pointer"));
        assert_eq!(read_record(&record), None, "no record yet");
        std::fs::write(&record, "320 138").unwrap();
        assert_eq!(read_record(&record), Some(Point::new(320, 138)));
        std::fs::write(&record, "garbage").unwrap();
        assert_eq!(read_record(&record), None, "a record that does not parse is no position");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
