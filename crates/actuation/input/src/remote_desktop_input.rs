//! Input through a remote desktop session (deft-wayland's `RemoteDesktop`): GNOME's own
//! (mutter's RemoteDesktop D-Bus API), or the desktop portal's on any desktop whose portal
//! implements it (the same events). The pointer absolute over the session's monitor, keys
//! as keysyms that the compositor maps to its own layout, Shift sent as a key of its own
//! (`keystroke_of`). Each call returns once mutter handled the event. Text
//! with a character that not every Latin layout has a key for is refused whole, before any
//! key is sent, so a fallback chain moves on to accessibility (mutter drops a keysym it
//! has no key for without a word: that text would be typed with holes).

use deft_types::{MouseButton, Physical, Point};
use deft_wayland::mutter::{Event, RemoteDesktop, keystroke_of, keysym_of, keysyms};
use deft_wayland::{BTN_LEFT, BTN_MIDDLE, BTN_RIGHT};

use crate::error::InputError;
use crate::input::{ButtonAction, Input, check_action};
use crate::keys::{Chord, Key, Modifier, NamedKey};

/// How long a modifier is held before and after the key it modifies, and how long the key
/// before it is given to arrive first. GNOME Shell hands
/// every key to the input method (IBus) and passes it on to the application when IBus
/// answers, while a modifier's state reaches the application at once: a Shift released
/// right after its key is gone before the key arrives ("H" typed as "h", "!" as "1",
/// measured on GNOME Shell 43 headless). A person holds a modifier far longer.
const MODIFIER_HOLD: std::time::Duration = std::time::Duration::from_millis(40);

/// How long after a session started its first button, wheel or key event waits. The
/// session's virtual pointer and keyboard are new (deft-wayland makes them when the
/// session starts): on a seat with no other, each application takes them up when it next
/// runs, and a press it has not taken up yet is lost. Deft's reads before an input take
/// about this long anyway; an input at once (`click --at`) waits the rest.
const DEVICES_TAKE_UP: std::time::Duration = std::time::Duration::from_millis(150);

/// How a session not started yet is started (the portal's: at the first input).
type Opener = Box<dyn FnOnce() -> Result<RemoteDesktop, String> + Send>;

/// The pointer and keyboard of a remote desktop session (GNOME's, or the desktop portal's).
pub struct RemoteDesktopInput {
    /// The session once started (or why it could not be).
    session: std::sync::OnceLock<Result<RemoteDesktop, String>>,
    /// How to start it, until it is.
    open: std::sync::Mutex<Option<Opener>>,
    /// Where Deft last put the pointer (Wayland tells a client nothing of it).
    at: Option<Point<Physical>>,
}

impl std::fmt::Debug for RemoteDesktopInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.session.get() {
            Some(Ok(s)) => format!("started with {}", s.who()),
            Some(Err(e)) => format!("failed: {e}"),
            None => "not started yet".into(),
        };
        f.debug_struct("RemoteDesktopInput").field("session", &state).field("at", &self.at).finish()
    }
}

impl RemoteDesktopInput {
    /// A remote desktop session of the mutter on the session bus at `address` (`None`: the
    /// session's own).
    pub fn connect(address: Option<&str>) -> Result<RemoteDesktopInput, InputError> {
        let session = RemoteDesktop::connect(address).map_err(InputError::Unavailable)?;
        Ok(RemoteDesktopInput { session: std::sync::OnceLock::from(Ok(session)), open: Default::default(), at: None })
    }

    /// A remote desktop session of the desktop portal on the session bus at `address`
    /// (`None`: the session's own), started at the first input, not before: starting one
    /// shows the person the portal's consent dialog, which a command that only reads must
    /// never do. `restore` (the token an earlier session gave) spares the person the
    /// dialog; `keep` is handed the token the new session gives, for the next run.
    pub fn through_portal(
        address: Option<&str>,
        restore: Option<String>,
        keep: impl FnOnce(&str) + Send + 'static,
    ) -> RemoteDesktopInput {
        let address = address.map(str::to_string);
        let open: Opener = Box::new(move || {
            let session = RemoteDesktop::through_portal(address.as_deref(), restore.as_deref())?;
            if let Some(token) = session.restore_token() {
                keep(token);
            }
            Ok(session)
        });
        RemoteDesktopInput { session: std::sync::OnceLock::new(), open: std::sync::Mutex::new(Some(open)), at: None }
    }

    /// The session, started now if it was not.
    fn session(&self) -> Result<&RemoteDesktop, InputError> {
        let started = self.session.get_or_init(|| {
            let open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            match open {
                Some(open) => open(),
                None => Err("the remote desktop session was never set up".into()),
            }
        });
        started.as_ref().map_err(|e| InputError::Unavailable(e.clone()))
    }

    /// The monitor the pointer moves over, in a few words (for a session not started yet:
    /// that it is not).
    pub fn monitor_words(&self) -> String {
        match self.session.get() {
            Some(Ok(s)) => {
                let m = s.monitor();
                format!("{} ({}x{} at {},{})", m.name, m.size.0, m.size.1, m.origin.0, m.origin.1)
            }
            _ => "the monitor the session will record (it starts at the first input)".into(),
        }
    }

    /// Waits until the applications have had [`DEVICES_TAKE_UP`] to take the session's
    /// pointer and keyboard up.
    fn devices_taken_up(&self) {
        // Started here if it was not (the portal's, at its first input): its devices are new.
        if let Ok(s) = self.session()
            && let Some(rest) = DEVICES_TAKE_UP.checked_sub(s.age())
        {
            std::thread::sleep(rest);
        }
    }

    fn send(&self, what: &'static str, event: Event) -> Result<(), InputError> {
        self.session()?.send(event).map_err(|detail| InputError::Backend { what, detail })
    }

    /// Presses and releases `sym` with `mods` held around it; every key pressed is released,
    /// even when a send fails part-way. With modifiers, a moment passes before they are
    /// pressed and on each side of the key ([`MODIFIER_HOLD`]), as a person's fingers take.
    fn tap(&self, mods: &[u32], sym: u32) -> Result<(), InputError> {
        let hold = || {
            if !mods.is_empty() {
                std::thread::sleep(MODIFIER_HOLD);
            }
        };
        self.devices_taken_up();
        // The key before may still be with the input method: a modifier pressed now
        // would reach the application first, and change that key.
        hold();
        let mut held = Vec::new();
        let mut sent = Ok(());
        for &m in mods {
            sent = self.send("key press", Event::Keysym(m, true));
            if sent.is_err() {
                break;
            }
            held.push(m);
        }
        if sent.is_ok() {
            hold();
            sent = self.send("key press", Event::Keysym(sym, true));
            if sent.is_ok() {
                sent = self.send("key release", Event::Keysym(sym, false));
                hold();
            }
        }
        for &k in held.iter().rev() {
            let released = self.send("key release", Event::Keysym(k, false));
            sent = sent.and(released);
        }
        sent
    }
}

/// The keysym of a named key.
fn named(key: NamedKey) -> Option<u32> {
    Some(match key {
        NamedKey::Return => keysyms::RETURN,
        NamedKey::Tab => keysyms::TAB,
        NamedKey::Escape => keysyms::ESCAPE,
        NamedKey::BackSpace => keysyms::BACKSPACE,
        NamedKey::Delete => keysyms::DELETE,
        NamedKey::Space => keysyms::SPACE,
        NamedKey::Up => keysyms::UP,
        NamedKey::Down => keysyms::DOWN,
        NamedKey::Left => keysyms::LEFT,
        NamedKey::Right => keysyms::RIGHT,
        NamedKey::Home => keysyms::HOME,
        NamedKey::End => keysyms::END,
        NamedKey::PageUp => keysyms::PAGE_UP,
        NamedKey::PageDown => keysyms::PAGE_DOWN,
        NamedKey::F(n @ 1..=35) => keysyms::F1 + u32::from(n - 1),
        NamedKey::F(_) => return None,
    })
}

fn modifier(m: Modifier) -> u32 {
    match m {
        Modifier::Ctrl => keysyms::CONTROL_L,
        Modifier::Shift => keysyms::SHIFT_L,
        Modifier::Alt => keysyms::ALT_L,
        Modifier::Super => keysyms::SUPER_L,
    }
}

fn code(button: MouseButton) -> u32 {
    match button {
        MouseButton::Left => BTN_LEFT,
        MouseButton::Middle => BTN_MIDDLE,
        MouseButton::Right => BTN_RIGHT,
    }
}

impl Input for RemoteDesktopInput {
    fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError> {
        let m = self.session()?.monitor().clone();
        let (x, y) = (to.x - m.origin.0, to.y - m.origin.1);
        let inside = x >= 0 && y >= 0 && (x as u32) < m.size.0 && (y as u32) < m.size.1;
        if !inside {
            return Err(InputError::Invalid(format!(
                "({}, {}) is outside the monitor the remote desktop session records, {}, the only one Deft moves \
                 the pointer over so far",
                to.x,
                to.y,
                self.monitor_words()
            )));
        }
        self.send("pointer motion", Event::Motion(f64::from(x), f64::from(y)))?;
        self.at = Some(to);
        Ok(())
    }

    fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
        Ok(self.at)
    }

    fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError> {
        check_action(action)?;
        self.devices_taken_up();
        let code = code(button);
        match action {
            ButtonAction::Press => self.send("button press", Event::Button(code, true)),
            ButtonAction::Release => self.send("button release", Event::Button(code, false)),
            ButtonAction::Click { count } => {
                for _ in 0..count {
                    self.send("button press", Event::Button(code, true))?;
                    self.send("button release", Event::Button(code, false))?;
                }
                Ok(())
            }
        }
    }

    fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError> {
        self.devices_taken_up();
        if dy != 0 {
            self.send("wheel", Event::Axis(0, dy))?;
        }
        if dx != 0 {
            self.send("wheel", Event::Axis(1, dx))?;
        }
        Ok(())
    }

    fn can_type(&self, text: &str) -> Result<(), InputError> {
        match text.chars().find(|c| keysym_of(*c).is_none()) {
            None => Ok(()),
            Some(c) => Err(InputError::Unavailable(format!(
                "{c:?} is not a key on every keyboard layout, and GNOME drops a key its layout lacks \
                 without a word: the text is set through accessibility instead"
            ))),
        }
    }

    fn text(&mut self, text: &str) -> Result<(), InputError> {
        // Every character is checked before the first key goes: never half a text.
        self.can_type(text)?;
        for (sym, shift) in text.chars().filter_map(keystroke_of) {
            let mods: &[u32] = if shift { &[keysyms::SHIFT_L] } else { &[] };
            self.tap(mods, sym)?;
        }
        Ok(())
    }

    fn chord(&mut self, chord: &Chord) -> Result<(), InputError> {
        let mods: Vec<u32> = chord.modifiers.iter().copied().map(modifier).collect();
        let mut mods = mods;
        let sym = match chord.key {
            Key::Named(k) => named(k),
            Key::Char(c) => keystroke_of(c).map(|(sym, shift)| {
                if shift && !mods.contains(&keysyms::SHIFT_L) {
                    mods.push(keysyms::SHIFT_L);
                }
                sym
            }),
        };
        let sym =
            sym.ok_or_else(|| InputError::Unavailable(format!("{chord:?} is not a key Deft can press on GNOME")))?;
        self.tap(&mods, sym)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_key_has_a_keysym_up_to_f35() {
        assert_eq!(named(NamedKey::F(1)), Some(0xffbe));
        assert_eq!(named(NamedKey::F(12)), Some(0xffc9));
        assert_eq!(named(NamedKey::F(35)), Some(0xffe0));
        assert_eq!(named(NamedKey::F(36)), None);
        assert_eq!(named(NamedKey::Return), Some(0xff0d));
    }
}
