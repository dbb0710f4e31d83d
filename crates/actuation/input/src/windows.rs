//! Finding top-level windows and their physical bounds: the display server's half of a scale.

use std::fmt;

use deft_types::{Physical, Rect};

use crate::InputError;

/// Which windows to look for. Every filter that is set must match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowQuery {
    /// The owning process (on X11, the `_NET_WM_PID` property).
    pub pid: Option<u32>,
    /// A substring of the title.
    pub title: Option<String>,
}

impl WindowQuery {
    /// Windows of process `pid`.
    pub fn pid(pid: u32) -> WindowQuery {
        WindowQuery { pid: Some(pid), title: None }
    }

    /// Windows whose title contains `title`.
    pub fn title(title: impl Into<String>) -> WindowQuery {
        WindowQuery { pid: None, title: Some(title.into()) }
    }

    /// Whether a window with this owner and title matches.
    pub fn matches(&self, pid: Option<u32>, title: &str) -> bool {
        self.pid.is_none_or(|want| pid == Some(want)) && self.title.as_deref().is_none_or(|t| title.contains(t))
    }
}

impl fmt::Display for WindowQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.pid, &self.title) {
            (None, None) => f.write_str("any window"),
            (Some(pid), None) => write!(f, "pid {pid}"),
            (None, Some(t)) => write!(f, "title {t:?}"),
            (Some(pid), Some(t)) => write!(f, "pid {pid} and title {t:?}"),
        }
    }
}

/// A visible top-level window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowGeometry {
    /// The platform's window id (an X window id).
    pub id: u64,
    /// The owning process, when the window says.
    pub pid: Option<u32>,
    /// The title.
    pub title: String,
    /// The client area (without decorations) in physical screen pixels.
    pub bounds: Rect<Physical>,
}

/// Lists visible top-level windows with their physical bounds.
pub trait WindowLocator {
    /// Every visible top-level window matching `query`, in stacking order from the bottom
    /// when the platform knows it.
    fn windows(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError>;

    /// The one window matching `query` (the topmost when several do).
    fn window(&self, query: &WindowQuery) -> Result<WindowGeometry, InputError> {
        self.windows(query)?.pop().ok_or_else(|| InputError::WindowNotFound(query.to_string()))
    }

    /// Every minimised top-level window matching `query` (bottom to top): not visible, so
    /// [`windows`](Self::windows) leaves them out, yet [`activate`](Self::activate)
    /// restores them. Not every backend can tell: the default finds none.
    fn minimized(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError> {
        let _ = query;
        Ok(Vec::new())
    }

    /// The popups the display server shows (menus, popovers, drop-down lists, tooltips),
    /// bottom to top, of every application: what the screen shows there, whatever the
    /// toolkit says of their place. Not every backend can tell: the default says so.
    fn popups(&self) -> Result<Vec<WindowGeometry>, InputError> {
        Err(InputError::Backend { what: "popup query", detail: "not supported by this backend".into() })
    }

    /// The top-level window the display server sends key events to (`None`: none has the
    /// keyboard focus). Not every backend can tell: the default says so.
    fn focused(&self) -> Result<Option<u64>, InputError> {
        Err(InputError::Backend { what: "focus query", detail: "not supported by this backend".into() })
    }

    /// Ask the window manager to raise and activate window `id`, the way a taskbar does
    /// (on X11, a `_NET_ACTIVE_WINDOW` request). The window manager decides; callers check
    /// the result. Not every backend can: the default says so.
    fn activate(&self, id: u64) -> Result<(), InputError> {
        let _ = id;
        Err(InputError::Backend { what: "window activation", detail: "not supported by this backend".into() })
    }

    /// Starts a round trip through the event queue of the application that owns window
    /// `id` (on X11, the window manager's ping): once [`Handled::handled`] says so, the app
    /// has read every input sent before this call (and handles it within a pass or two of its loop). `Ok(None)` when the window does not
    /// answer such round trips, or the backend cannot send one (the default).
    fn ping(&self, id: u64) -> Result<Option<Box<dyn Handled + Send + Sync>>, InputError> {
        let _ = id;
        Ok(None)
    }

    /// The input method that stands between the keyboard and the applications, in words
    /// (`XIM_SERVERS: @server=ibus`, `GTK_IM_MODULE=ibus`), when one is known to: it hands
    /// keys to the application's field later, over a connection of its own, so a
    /// [`WindowLocator::ping`] says nothing about where a key is. `None`: none known (the
    /// default).
    fn input_method(&self) -> Option<String> {
        None
    }
}

/// A round trip through an application's event queue, started by [`WindowLocator::ping`].
pub trait Handled {
    /// Whether the application has answered: it has read every input sent before the
    /// round trip began. Never waits; once true, always true.
    fn handled(&self) -> Result<bool, InputError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_match_every_filter_that_is_set() {
        assert!(WindowQuery::default().matches(None, ""));
        assert!(WindowQuery::pid(7).matches(Some(7), "x"));
        assert!(!WindowQuery::pid(7).matches(None, "x"));
        assert!(WindowQuery::title("Fixture").matches(None, "Deft Fixture"));
        let both = WindowQuery { pid: Some(7), title: Some("Deft".into()) };
        assert!(!both.matches(Some(7), "Other"));
        assert_eq!(both.to_string(), "pid 7 and title \"Deft\"");
    }
}
