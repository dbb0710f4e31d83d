//! The real backend: enigo 0.6 (on Linux its x11rb backend, XTest over a pure-Rust connection).

use std::time::{Duration, Instant};

use deft_types::{MouseButton, Physical, Point};
use enigo::{Axis, Button, Coordinate, Direction, Enigo, Keyboard, Mouse, Settings};

use crate::error::check_display_number;
use crate::input::{check_action, check_on_screen};
use crate::keys::{Key, Modifier, NamedKey};
use crate::{ButtonAction, Chord, Input, InputError};

/// How to connect the enigo backend.
#[derive(Clone, Debug)]
pub struct EnigoConfig {
    /// The X display to connect to (`:7`); `None` means the platform default (on X11,
    /// the `DISPLAY` environment variable, read by x11rb). Name it explicitly wherever
    /// several displays are in play: the environment is process-wide, the connection is not.
    pub display: Option<String>,
    /// On X11, the server holds each button event back this long (XTest's delay). enigo's
    /// default is 12 ms; applications do not need it for clicks, so Deft uses none.
    pub button_delay: Duration,
    /// The least time between a button event and the next key event. GTK 3 drops a key
    /// that arrives within a millisecond or two of the click that focused its entry
    /// (measured on the fixture app: with no gap most first keys were lost; with 20 ms,
    /// none of 40; xdotool rarely meets it because its clicks take 12 ms). Only the
    /// remainder is waited: a caller that already took longer waits nothing.
    pub key_after_button: Duration,
}

impl Default for EnigoConfig {
    fn default() -> Self {
        EnigoConfig { display: None, button_delay: Duration::ZERO, key_after_button: Duration::from_millis(20) }
    }
}

/// [`Input`] through enigo. On X11 every call waits for the server to have processed its
/// events (a round trip), so events from consecutive calls never reorder.
pub struct EnigoInput {
    enigo: Enigo,
    key_after_button: Duration,
    /// When the last button event was sent, until a key event has waited for it.
    last_button: Option<Instant>,
    /// The screen in physical pixels, when the backend could tell.
    screen: Option<(u32, u32)>,
    /// The display asked for, for the connection a paste offers its text on.
    #[cfg_attr(
        not(all(feature = "x11", unix, not(target_os = "macos"))),
        allow(dead_code, reason = "only a paste over X11 reads it")
    )]
    display: Option<String>,
}

impl std::fmt::Debug for EnigoInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnigoInput").field("screen", &self.screen).finish_non_exhaustive()
    }
}

impl EnigoInput {
    /// Connect to the display server.
    pub fn connect(config: &EnigoConfig) -> Result<EnigoInput, InputError> {
        check_display_number(config.display.as_deref())?;
        let settings = Settings {
            x11_display: config.display.clone(),
            linux_delay: u32::try_from(config.button_delay.as_millis()).unwrap_or(u32::MAX),
            // Never leave a key held when the backend goes away mid-chord.
            release_keys_when_dropped: true,
            ..Settings::default()
        };
        let enigo = Enigo::new(&settings).map_err(|e| no_display(config.display.as_deref(), &e.to_string()))?;
        let screen = root_size(config.display.as_deref());
        let display = config.display.clone();
        Ok(EnigoInput { enigo, screen, key_after_button: config.key_after_button, last_button: None, display })
    }

    /// The screen size in physical pixels, when the backend could tell; pointer positions
    /// outside it are refused rather than silently clamped to its edge.
    pub fn screen(&self) -> Option<(u32, u32)> {
        self.screen
    }

    /// Where the pointer is.
    pub fn pointer(&self) -> Result<Point<Physical>, InputError> {
        let (x, y) = self.enigo.location().map_err(|e| backend("pointer query", e))?;
        Ok(Point::new(x, y))
    }

    /// Hold key events back until `key_after_button` has passed since the last button.
    fn pace_keys(&mut self) {
        if let Some(at) = self.last_button.take() {
            std::thread::sleep(self.key_after_button.saturating_sub(at.elapsed()));
        }
    }

    fn key(&mut self, key: enigo::Key, direction: Direction, what: &'static str) -> Result<(), InputError> {
        self.enigo.key(key, direction).map_err(|e| backend(what, e))
    }
}

/// How long a paste waits for the application to ask for the text after the middle click:
/// a busy application answers its input late, and nothing else is sent meanwhile.
#[cfg(all(feature = "x11", unix, not(target_os = "macos")))]
const PASTE_LIMIT: Duration = Duration::from_secs(2);

/// The whole X screen (all monitors), which bounds every pointer position. Not enigo's
/// `main_display`: that is one monitor's first mode, and would refuse points on the others.
#[cfg(all(feature = "x11", unix, not(target_os = "macos")))]
fn root_size(display: Option<&str>) -> Option<(u32, u32)> {
    use x11rb::connection::Connection;
    let (conn, screen) = x11rb::connect(display).ok()?;
    let root = conn.setup().roots.get(screen)?;
    Some((root.width_in_pixels.into(), root.height_in_pixels.into()))
}

/// Elsewhere the virtual screen may start at negative coordinates: no check.
#[cfg(not(all(feature = "x11", unix, not(target_os = "macos"))))]
fn root_size(_display: Option<&str>) -> Option<(u32, u32)> {
    None
}

/// Explain a failed connection. enigo only says "no connection"; connecting with x11rb
/// directly tells an unset `DISPLAY` from a server that does not answer.
fn no_display(display: Option<&str>, enigo_says: &str) -> InputError {
    #[cfg(all(feature = "x11", unix, not(target_os = "macos")))]
    let detail = match x11rb::connect(display) {
        Err(e) => e.to_string(),
        Ok(_) => format!("the X server answers, but enigo could not use it: {enigo_says}"),
    };
    #[cfg(not(all(feature = "x11", unix, not(target_os = "macos"))))]
    let detail = enigo_says.to_string();
    InputError::NoDisplay { display: display.map(str::to_string), detail }
}

fn backend(what: &'static str, e: enigo::InputError) -> InputError {
    match e {
        enigo::InputError::InvalidInput(why) => InputError::Invalid(format!("the {what} cannot be sent: {why}")),
        other => InputError::Backend { what, detail: other.to_string() },
    }
}

fn enigo_button(button: MouseButton) -> Button {
    match button {
        MouseButton::Left => Button::Left,
        MouseButton::Middle => Button::Middle,
        MouseButton::Right => Button::Right,
    }
}

fn enigo_modifier(m: Modifier) -> enigo::Key {
    match m {
        Modifier::Ctrl => enigo::Key::Control,
        Modifier::Shift => enigo::Key::Shift,
        Modifier::Alt => enigo::Key::Alt,
        Modifier::Super => enigo::Key::Meta,
    }
}

fn enigo_key(key: Key) -> Result<enigo::Key, InputError> {
    use enigo::Key as E;
    Ok(match key {
        Key::Char(c) => E::Unicode(c),
        Key::Named(named) => match named {
            NamedKey::Return => E::Return,
            NamedKey::Tab => E::Tab,
            NamedKey::Escape => E::Escape,
            NamedKey::BackSpace => E::Backspace,
            NamedKey::Delete => E::Delete,
            NamedKey::Space => E::Space,
            NamedKey::Up => E::UpArrow,
            NamedKey::Down => E::DownArrow,
            NamedKey::Left => E::LeftArrow,
            NamedKey::Right => E::RightArrow,
            NamedKey::Home => E::Home,
            NamedKey::End => E::End,
            NamedKey::PageUp => E::PageUp,
            NamedKey::PageDown => E::PageDown,
            NamedKey::F(n) => function_key(n)?,
        },
    })
}

fn function_key(n: u8) -> Result<enigo::Key, InputError> {
    use enigo::Key as E;
    const KEYS: [enigo::Key; 20] = [
        E::F1,
        E::F2,
        E::F3,
        E::F4,
        E::F5,
        E::F6,
        E::F7,
        E::F8,
        E::F9,
        E::F10,
        E::F11,
        E::F12,
        E::F13,
        E::F14,
        E::F15,
        E::F16,
        E::F17,
        E::F18,
        E::F19,
        E::F20,
    ];
    usize::from(n)
        .checked_sub(1)
        .and_then(|i| KEYS.get(i).copied())
        .ok_or_else(|| InputError::UnknownKey { name: format!("F{n}"), chord: format!("F{n}") })
}

impl Input for EnigoInput {
    fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
        let (x, y) = self.enigo.location().map_err(|e| backend("pointer position", e))?;
        Ok(Some(Point::new(x, y)))
    }

    fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError> {
        if let Some(screen) = self.screen {
            check_on_screen(to, screen)?;
        }
        self.enigo.move_mouse(to.x, to.y, Coordinate::Abs).map_err(|e| backend("pointer motion", e))
    }

    fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError> {
        check_action(action)?;
        let b = enigo_button(button);
        let sent = match action {
            ButtonAction::Press => self.enigo.button(b, Direction::Press),
            ButtonAction::Release => self.enigo.button(b, Direction::Release),
            ButtonAction::Click { count } => (0..count).try_for_each(|_| self.enigo.button(b, Direction::Click)),
        };
        self.last_button = Some(Instant::now());
        sent.map_err(|e| backend("button event", e))
    }

    fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError> {
        if dx != 0 {
            self.enigo.scroll(dx, Axis::Horizontal).map_err(|e| backend("scroll", e))?;
        }
        if dy != 0 {
            self.enigo.scroll(dy, Axis::Vertical).map_err(|e| backend("scroll", e))?;
        }
        Ok(())
    }

    fn text(&mut self, text: &str) -> Result<(), InputError> {
        if text.contains('\0') {
            return Err(InputError::Invalid("text to type cannot contain NUL characters".into()));
        }
        self.pace_keys();
        // A line break is the Return key, as a person types it: enigo sends '\n' as a
        // character of its own, which GTK's text views ignore (meld's pane ran three typed
        // lines into one), while a terminal's tty reads Return as a line's end all the same.
        for (n, line) in text.split('\n').enumerate() {
            if n > 0 {
                self.key(enigo::Key::Return, Direction::Click, "a typed line break")?;
            }
            if !line.is_empty() {
                self.enigo.text(line).map_err(|e| backend("typed text", e))?;
            }
        }
        Ok(())
    }

    fn chord(&mut self, chord: &Chord) -> Result<(), InputError> {
        let key = enigo_key(chord.key)?;
        self.pace_keys();
        let mut held = Vec::new();
        let mut result = Ok(());
        for m in &chord.modifiers {
            let k = enigo_modifier(*m);
            result = self.key(k, Direction::Press, "modifier press");
            if result.is_err() {
                break;
            }
            held.push(k);
        }
        if result.is_ok() {
            result = self.key(key, Direction::Click, "key press");
        }
        // Release whatever was pressed, even after a failure: a stuck Ctrl turns every
        // later keystroke into a shortcut.
        for k in held.into_iter().rev() {
            let released = self.key(k, Direction::Release, "modifier release");
            result = result.and(released);
        }
        result
    }

    #[cfg(all(feature = "x11", unix, not(target_os = "macos")))]
    fn paste_at(&mut self, at: Point<Physical>, text: &str) -> Result<bool, InputError> {
        use deft_x11::selection::{PasteError, SelectionError, paste_primary};
        if let Some(screen) = self.screen {
            // Checked before the selection is taken, not only by the move inside.
            check_on_screen(at, screen)?;
        }
        let display = self.display.clone();
        let pasted = paste_primary(display.as_deref(), text, PASTE_LIMIT, || {
            self.move_to(at)?;
            self.button(MouseButton::Middle, ButtonAction::Click { count: 1 })
        });
        match pasted {
            Ok(p) => Ok(p.handed_over > 0),
            // The click's own error, as a click reports it.
            Err(PasteError::Click(e)) => Err(e),
            // Nothing was sent: never an error a caller would take for a maybe-sent input.
            Err(PasteError::Offer(SelectionError::Connect(e))) => {
                Err(InputError::NoDisplay { display, detail: e.to_string() })
            }
            Err(PasteError::Offer(e)) => Err(InputError::Invalid(format!("{e}; nothing was sent"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parsable_key_has_an_enigo_key() {
        for n in 1..=20 {
            assert!(enigo_key(Key::Named(NamedKey::F(n))).is_ok(), "F{n}");
        }
        assert!(function_key(0).is_err() && function_key(21).is_err());
        assert_eq!(enigo_key(Key::Char('a')).unwrap(), enigo::Key::Unicode('a'));
    }

    #[test]
    fn the_backend_can_move_between_threads() {
        fn send<T: Send>() {}
        send::<EnigoInput>();
    }

    #[test]
    fn an_absent_display_is_permanent_and_says_what_to_do() {
        // A display number nobody uses: the connection is refused at once.
        let err =
            EnigoInput::connect(&EnigoConfig { display: Some(":59123".into()), ..EnigoConfig::default() }).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("the X server at :59123 does not answer"), "{msg}");
        assert!(msg.contains("Xvfb") && !msg.contains("xtask"), "{msg}");
        assert_eq!(err.class(), deft_types::ErrorClass::Permanent);
    }
}
