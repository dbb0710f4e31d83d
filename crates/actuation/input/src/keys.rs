//! Key chords: parsing `ctrl+shift+s`, `Return`, `F5` into platform-neutral keys.
//!
//! The names are the same on every platform; each backend maps [`Key`] and [`Modifier`]
//! to its own codes. Only keys every desktop platform has are named here, so a chord
//! that parses on Linux also works on Windows and macOS.

use std::fmt;
use std::str::FromStr;

use deft_types::KeyChord;

use crate::InputError;

/// A modifier key, held while the chord's key is pressed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Modifier {
    /// Control.
    Ctrl,
    /// Shift.
    Shift,
    /// Alt (Option on macOS).
    Alt,
    /// Super: the Windows key, Command on macOS.
    Super,
}

/// A key with a name rather than a character.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[allow(missing_docs)] // the variant names are the documentation
pub enum NamedKey {
    Return,
    Tab,
    Escape,
    BackSpace,
    Delete,
    Space,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    /// A function key, `F1` to `F20`.
    F(u8),
}

/// The non-modifier key of a chord.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Key {
    /// The key that types this character in the current layout (`a`, `5`, `/`). Letters
    /// are lower case: `ctrl+A` is `ctrl+a`; write `ctrl+shift+a` for the shifted chord.
    Char(char),
    /// A named key.
    Named(NamedKey),
}

/// A checked key chord: modifiers held in order, one key pressed and released.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Chord {
    /// Modifiers, pressed in this order and released in reverse. No duplicates.
    pub modifiers: Vec<Modifier>,
    /// The key.
    pub key: Key,
}

/// Names accepted for named keys, case-insensitively (X keysym names and common aliases).
const NAMED: &[(&str, NamedKey)] = &[
    ("return", NamedKey::Return),
    ("enter", NamedKey::Return),
    ("tab", NamedKey::Tab),
    ("escape", NamedKey::Escape),
    ("esc", NamedKey::Escape),
    ("backspace", NamedKey::BackSpace),
    ("delete", NamedKey::Delete),
    ("del", NamedKey::Delete),
    ("space", NamedKey::Space),
    ("up", NamedKey::Up),
    ("down", NamedKey::Down),
    ("left", NamedKey::Left),
    ("right", NamedKey::Right),
    ("home", NamedKey::Home),
    ("end", NamedKey::End),
    ("pageup", NamedKey::PageUp),
    ("page_up", NamedKey::PageUp),
    ("prior", NamedKey::PageUp),
    ("pagedown", NamedKey::PageDown),
    ("page_down", NamedKey::PageDown),
    ("next", NamedKey::PageDown),
];

/// Names that stand for a character, so chords can name keys that are awkward to write.
const CHAR_NAMES: &[(&str, char)] = &[("plus", '+'), ("minus", '-'), ("comma", ','), ("period", '.')];

const MODIFIERS: &[(&str, Modifier)] = &[
    ("ctrl", Modifier::Ctrl),
    ("control", Modifier::Ctrl),
    ("shift", Modifier::Shift),
    ("alt", Modifier::Alt),
    ("option", Modifier::Alt),
    ("super", Modifier::Super),
    ("meta", Modifier::Super),
    ("win", Modifier::Super),
    ("cmd", Modifier::Super),
];

impl Modifier {
    /// The canonical name, as written back into a [`KeyChord`].
    pub fn name(self) -> &'static str {
        match self {
            Modifier::Ctrl => "ctrl",
            Modifier::Shift => "shift",
            Modifier::Alt => "alt",
            Modifier::Super => "super",
        }
    }

    fn parse(name: &str) -> Option<Modifier> {
        MODIFIERS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, m)| *m)
    }
}

impl Key {
    /// Parse one key name: a single character, a named key, or `F1`..`F20`.
    fn parse(name: &str) -> Option<Key> {
        let mut chars = name.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return (!c.is_control() && c != ' ').then(|| Key::Char(lower(c)));
        }
        if let Some((_, k)) = NAMED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Some(Key::Named(*k));
        }
        if let Some((_, c)) = CHAR_NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Some(Key::Char(*c));
        }
        let digits = name.strip_prefix(['f', 'F'])?;
        let n: u8 = digits.parse().ok().filter(|n| (1..=20).contains(n))?;
        // "F05" is not a key name: the digits must round-trip.
        (n.to_string() == digits).then_some(Key::Named(NamedKey::F(n)))
    }
}

/// Lower-case a letter whose lower case is one character; leave anything else alone.
fn lower(c: char) -> char {
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Char(c) => write!(f, "{c}"),
            Key::Named(NamedKey::F(n)) => write!(f, "F{n}"),
            Key::Named(k) => write!(f, "{k:?}"),
        }
    }
}

impl Chord {
    /// A chord of `key` alone.
    pub fn key(key: Key) -> Chord {
        Chord { modifiers: Vec::new(), key }
    }

    /// Parse `ctrl+shift+s`, `Return`, `alt+F4`, `ctrl++` (the key `+`): modifiers first,
    /// joined with `+`, then the key. Names are case-insensitive.
    pub fn parse(text: &str) -> Result<Chord, InputError> {
        let unknown = |name: &str| InputError::UnknownKey { name: name.to_string(), chord: text.to_string() };
        let trimmed = text.trim();
        // A trailing "++" means the key is "+" itself.
        let (mods, key) = if trimmed == "+" {
            ("", "+")
        } else if let Some(rest) = trimmed.strip_suffix("++") {
            (rest, "+")
        } else {
            trimmed.rsplit_once('+').unwrap_or(("", trimmed))
        };
        let modifiers: Vec<&str> = if mods.is_empty() { Vec::new() } else { mods.split('+').collect() };
        Chord::from_names(&modifiers, key.trim()).map_err(|name| unknown(&name))
    }

    /// Check a [`KeyChord`] (as carried by `deft_types::Action::Key`).
    pub fn from_key_chord(chord: &KeyChord) -> Result<Chord, InputError> {
        let names: Vec<&str> = chord.modifiers.iter().map(String::as_str).collect();
        Chord::from_names(&names, &chord.key).map_err(|name| InputError::UnknownKey { name, chord: chord.to_string() })
    }

    /// The chord as a [`KeyChord`] with canonical names.
    pub fn to_key_chord(&self) -> KeyChord {
        KeyChord { modifiers: self.modifiers.iter().map(|m| m.name().to_string()).collect(), key: self.key.to_string() }
    }

    /// Build from names; on failure, the name that is not known.
    fn from_names(modifiers: &[&str], key: &str) -> Result<Chord, String> {
        let mut mods = Vec::new();
        for name in modifiers {
            let m = Modifier::parse(name.trim()).ok_or_else(|| name.trim().to_string())?;
            if !mods.contains(&m) {
                mods.push(m);
            }
        }
        let key = Key::parse(key).ok_or_else(|| key.to_string())?;
        Ok(Chord { modifiers: mods, key })
    }
}

impl FromStr for Chord {
    type Err = InputError;
    fn from_str(s: &str) -> Result<Chord, InputError> {
        Chord::parse(s)
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_key_chord().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `expected` is the canonical rendering, or `Err(name)` for the unknown name.
    fn check(input: &str, expected: Result<&str, &str>) {
        let got = Chord::parse(input);
        match (got, expected) {
            (Ok(chord), Ok(want)) => assert_eq!(chord.to_string(), want, "parsing {input:?}"),
            (Err(InputError::UnknownKey { name, chord }), Err(want)) => {
                assert_eq!(name, want, "parsing {input:?}");
                assert_eq!(chord, input);
            }
            (got, want) => panic!("parsing {input:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn chords() {
        check("ctrl+shift+s", Ok("ctrl+shift+s"));
        check("Control+S", Ok("ctrl+s"));
        check("Return", Ok("Return"));
        check("enter", Ok("Return"));
        check("F5", Ok("F5"));
        check("alt+f4", Ok("alt+F4"));
        check("ctrl++", Ok("ctrl++"));
        check("+", Ok("+"));
        check("ctrl+plus", Ok("ctrl++"));
        check("ctrl+ctrl+a", Ok("ctrl+a"));
        check(" ctrl + a ", Ok("ctrl+a"));
        check("ctrl+Ö", Ok("ctrl+ö"));
        check("super+Page_Down", Ok("super+PageDown"));
        check("BackSpace", Ok("BackSpace"));
    }

    #[test]
    fn unknown_names() {
        check("ctrl+shift+foo", Err("foo"));
        check("hyper+a", Err("hyper"));
        check("F21", Err("F21"));
        check("F0", Err("F0"));
        check("F05", Err("F05"));
        check("", Err(""));
        check("ctrl+", Err(""));
    }

    #[test]
    fn unknown_key_message_lists_valid_names() {
        let msg = Chord::parse("ctrl+foo").unwrap_err().to_string();
        assert!(msg.contains("unknown key \"foo\" in \"ctrl+foo\""), "{msg}");
        assert!(msg.contains("Return") && msg.contains("F1..F20") && msg.contains("ctrl+shift+s"), "{msg}");
    }

    #[test]
    fn key_chord_round_trip() {
        let chord = Chord::parse("ctrl+shift+Tab").unwrap();
        let kc = chord.to_key_chord();
        assert_eq!(kc.modifiers, ["ctrl", "shift"]);
        assert_eq!(kc.key, "Tab");
        assert_eq!(Chord::from_key_chord(&kc).unwrap(), chord);
        let bad = KeyChord { modifiers: vec!["ctrl".into()], key: "Nope".into() };
        assert!(matches!(Chord::from_key_chord(&bad), Err(InputError::UnknownKey { name, .. }) if name == "Nope"));
    }
}
