//! A person's input watched, for recording a task as it is done: each button press with
//! where it happened, and each key as a chord in the names [`Chord`] parses, so what is
//! watched can be written back as calls of the same tools.

use std::time::Duration;

use deft_types::{Physical, Point};

use crate::InputError;
use crate::keys::{Chord, Key, Modifier, NamedKey};

/// What a person did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Watched {
    /// A pointer button went down.
    Press {
        /// 1 left, 2 middle, 3 right.
        button: u8,
        /// Where the pointer was.
        at: Point<Physical>,
    },
    /// A key went down, with the modifiers held. A shifted character is that character
    /// (`A`, `!`) with Shift left out of the modifiers; Shift stays only on a named key
    /// (`shift+Tab`).
    Key(Chord),
}

impl Watched {
    /// The character this key types into a text field, when it is a plain key (no
    /// Control, Alt or Super) that types one.
    pub fn typed_char(&self) -> Option<char> {
        match self {
            Watched::Key(Chord { modifiers, key: Key::Char(c) }) if modifiers.is_empty() => Some(*c),
            Watched::Key(Chord { modifiers, key: Key::Named(NamedKey::Space) }) if modifiers.is_empty() => Some(' '),
            _ => None,
        }
    }
}

/// Input watched on a desktop: the next press or key within `wait`.
pub trait InputWatch: Send {
    /// The next thing a person did, waiting at most `wait` (`None` when nothing came).
    fn next(&mut self, wait: Duration) -> Result<Option<Watched>, InputError>;
}

/// The key of an X keysym, or `None` for keys no chord of Deft's names.
pub fn key_of_keysym(sym: u32) -> Option<Key> {
    let named = |k| Some(Key::Named(k));
    match sym {
        0x20 => named(NamedKey::Space),
        0x21..=0x7e | 0xa0..=0xff => char::from_u32(sym).map(Key::Char),
        // Unicode keysyms.
        0x0100_0000..=0x0110_ffff => char::from_u32(sym - 0x0100_0000).map(Key::Char),
        0xff0d | 0xff8d => named(NamedKey::Return),
        0xff09 | 0xfe20 => named(NamedKey::Tab),
        0xff1b => named(NamedKey::Escape),
        0xff08 => named(NamedKey::BackSpace),
        0xffff | 0xff9f => named(NamedKey::Delete),
        0xff52 => named(NamedKey::Up),
        0xff54 => named(NamedKey::Down),
        0xff51 => named(NamedKey::Left),
        0xff53 => named(NamedKey::Right),
        0xff50 => named(NamedKey::Home),
        0xff57 => named(NamedKey::End),
        0xff55 => named(NamedKey::PageUp),
        0xff56 => named(NamedKey::PageDown),
        0xffbe..=0xffd1 => u8::try_from(sym - 0xffbe + 1).ok().map(|n| Key::Named(NamedKey::F(n))),
        _ => None,
    }
}

/// A watched key as a chord: the modifiers held, Shift folded into a character it shifted.
pub fn chord_of(key: Key, ctrl: bool, alt: bool, shift: bool, super_key: bool) -> Chord {
    let mut modifiers = Vec::new();
    if ctrl {
        modifiers.push(Modifier::Ctrl);
    }
    if alt {
        modifiers.push(Modifier::Alt);
    }
    if super_key {
        modifiers.push(Modifier::Super);
    }
    let key = match key {
        // In a chord a letter is lower case and Shift is said (`ctrl+shift+s`).
        Key::Char(c) if !modifiers.is_empty() && c.is_uppercase() => {
            modifiers.push(Modifier::Shift);
            Key::Char(c.to_lowercase().next().unwrap_or(c))
        }
        Key::Named(n) if shift => {
            modifiers.push(Modifier::Shift);
            Key::Named(n)
        }
        other => other,
    };
    Chord { modifiers, key }
}

/// Input watched on an X display (XInput 2's raw events: deft-x11's `watch`).
#[cfg(all(feature = "x11", unix))]
pub struct X11InputWatch(deft_x11::watch::InputWatch);

#[cfg(all(feature = "x11", unix))]
impl X11InputWatch {
    /// Starts watching `display` (`None`: `DISPLAY`).
    pub fn connect(display: Option<&str>) -> Result<X11InputWatch, InputError> {
        deft_x11::watch::InputWatch::connect(display)
            .map(X11InputWatch)
            .map_err(|e| InputError::Unavailable(e.to_string()))
    }
}

#[cfg(all(feature = "x11", unix))]
impl InputWatch for X11InputWatch {
    fn next(&mut self, wait: Duration) -> Result<Option<Watched>, InputError> {
        use deft_x11::watch::Watched as X;
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let seen = self.0.next(left).map_err(|e| InputError::Unavailable(e.to_string()))?;
            return Ok(match seen {
                None => None,
                // The wheel (4-7) is scrolling, not a press.
                Some(X::Press { button, .. }) if button > 3 => continue,
                Some(X::Press { button, at }) => Some(Watched::Press { button, at: Point::new(at.0, at.1) }),
                Some(X::Key { keysym, held }) => match key_of_keysym(keysym) {
                    Some(key) => Some(Watched::Key(chord_of(key, held.ctrl, held.alt, held.shift, held.super_key))),
                    None => continue,
                },
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(sym: u32, ctrl: bool, shift: bool) -> String {
        chord_of(key_of_keysym(sym).unwrap(), ctrl, false, shift, false).to_string()
    }

    #[test]
    fn watched_keys_are_written_as_chords_parse_them() {
        assert_eq!(chord(u32::from('a'), false, false), "a");
        assert_eq!(chord(u32::from('A'), false, true), "A", "a shifted letter is the letter");
        assert_eq!(chord(u32::from('S'), true, true), "ctrl+shift+s");
        assert_eq!(chord(0xff09, false, true), "shift+Tab");
        assert_eq!(chord(0xff0d, false, false), "Return");
        assert_eq!(chord(0xffc2, false, false), "F5");
        assert_eq!(chord(0x0100_00e9, false, false), "é");
        for written in ["ctrl+shift+s", "shift+Tab", "Return", "F5"] {
            assert_eq!(Chord::parse(written).unwrap().to_string(), written, "round trip");
        }
        assert_eq!(Watched::Key(Chord::parse("ctrl+a").unwrap()).typed_char(), None);
        assert_eq!(Watched::Key(chord_of(Key::Char('A'), false, false, true, false)).typed_char(), Some('A'));
        assert_eq!(Watched::Key(Chord::key(Key::Named(NamedKey::Space))).typed_char(), Some(' '));
        assert_eq!(key_of_keysym(0xffe1), None, "a modifier alone is no key");
    }
}
