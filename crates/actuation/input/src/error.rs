//! What can go wrong when sending input or reading window geometry, with a retry class.

use deft_types::ErrorClass;

/// An input or window-geometry failure. [`InputError::class`] tells a caller whether a
/// retry can help; the message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// No display server to talk to: nothing will work until the environment is fixed.
    #[error(
        "{} does not answer ({detail}); run Deft inside a desktop session: set DISPLAY to a running X server (e.g. DISPLAY=:0), or start a headless one with Xvfb (e.g. `Xvfb :99 &` then DISPLAY=:99)",
        display_name(display)
    )]
    NoDisplay {
        /// The display asked for; `None` means the platform default (`$DISPLAY` on X11).
        display: Option<String>,
        /// What the connection attempt said.
        detail: String,
    },
    /// The display server refused or lost an event or a request: worth a retry.
    #[error("the display server did not take the {what}: {detail}; retrying may help")]
    Backend {
        /// What was being sent (`pointer motion`, `key press`, ...).
        what: &'static str,
        /// What the backend said.
        detail: String,
    },
    /// A key name that no backend knows.
    #[error(
        "unknown key {name:?} in {chord:?}; use one character (`a`, `5`, `/`) or a name such \
         as Return, Tab, Escape, BackSpace, Delete, Space, Up, Down, Left, Right, Home, End, \
         PageUp, PageDown, F1..F20, with modifiers ctrl, shift, alt, super (e.g. `ctrl+shift+s`)"
    )]
    UnknownKey {
        /// The offending name.
        name: String,
        /// The whole chord as given.
        chord: String,
    },
    /// The request itself cannot be carried out (a point off screen, a zero click count).
    #[error("{0}")]
    Invalid(String),
    /// No window matched; it may not have appeared yet, or it has closed.
    #[error("no window matches {0}; it may not be mapped yet, or it has closed")]
    WindowNotFound(String),
    /// This session has no input backend: the message says why and what to do.
    #[error("{0}")]
    Unavailable(String),
}

fn display_name(display: &Option<String>) -> String {
    match display {
        Some(d) => format!("the X server at {d}"),
        None => "DISPLAY is not set or the X server it names".to_string(),
    }
}

/// Refuse an X display number whose TCP port (6000 + N) does not fit in 16 bits: x11rb
/// 0.13 computes that port without checking and panics on overflow in debug builds.
#[cfg_attr(not(any(feature = "enigo", feature = "x11")), allow(dead_code))] // used by the backends only
pub(crate) fn check_display_number(display: Option<&str>) -> Result<(), InputError> {
    let Some(name) = display else { return Ok(()) };
    let number = name.rsplit_once(':').map(|(_, n)| n.split('.').next().unwrap_or(n));
    match number.and_then(|n| n.parse::<u32>().ok()) {
        Some(n) if n > u32::from(u16::MAX) - 6000 => Err(InputError::NoDisplay {
            display: Some(name.to_string()),
            detail: format!("display number {n} is out of range (at most {})", u16::MAX - 6000),
        }),
        _ => Ok(()),
    }
}

impl InputError {
    /// How a caller should treat this error: `Transient` (retry with backoff), `Stale`
    /// (the window went away: resolve again) or `Permanent` (fix the request or the
    /// environment first).
    pub fn class(&self) -> ErrorClass {
        match self {
            InputError::Backend { .. } => ErrorClass::Transient,
            InputError::WindowNotFound(_) => ErrorClass::Stale,
            InputError::NoDisplay { .. }
            | InputError::UnknownKey { .. }
            | InputError::Invalid(_)
            | InputError::Unavailable(_) => ErrorClass::Permanent,
        }
    }

    /// Whether retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        self.class() != ErrorClass::Permanent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_display_says_what_to_do() {
        let e = InputError::NoDisplay { display: Some(":7".into()), detail: "connection refused".into() };
        let msg = e.to_string();
        assert!(msg.contains("the X server at :7 does not answer"), "{msg}");
        assert!(msg.contains("Xvfb") && !msg.contains("xtask"), "{msg}");
        assert_eq!(e.class(), ErrorClass::Permanent);
        let unset = InputError::NoDisplay { display: None, detail: "no DISPLAY".into() };
        assert!(unset.to_string().starts_with("DISPLAY is not set"), "{unset}");
    }

    #[test]
    fn display_numbers_past_the_tcp_port_range_are_refused() {
        assert!(check_display_number(Some(":7")).is_ok());
        assert!(check_display_number(Some("host:59535.0")).is_ok());
        assert!(check_display_number(None).is_ok());
        let err = check_display_number(Some(":65000")).unwrap_err();
        assert!(err.to_string().contains("display number 65000 is out of range"), "{err}");
    }

    #[test]
    fn classes() {
        assert!(InputError::Backend { what: "key press", detail: "broken pipe".into() }.is_retryable());
        assert_eq!(InputError::WindowNotFound("pid 1".into()).class(), ErrorClass::Stale);
        assert!(!InputError::Invalid("count 0".into()).is_retryable());
    }
}
