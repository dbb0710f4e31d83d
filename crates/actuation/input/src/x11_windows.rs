//! [`WindowLocator`] for X11: deft-x11's window list over a connection of this backend's own.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::Window;
use x11rb::rust_connection::RustConnection;

use crate::InputError;
use crate::error::check_display_number;
use crate::windows::{Handled, WindowGeometry, WindowLocator, WindowQuery};

/// Top-level windows of one X display, read by deft-x11 (the one window finder, shared
/// with capture) over a connection of its own.
pub struct X11Windows {
    /// The display it was opened on (`None`: `DISPLAY`), for the connections pings take.
    display: Option<String>,
    conn: RustConnection,
    root: Window,
    atoms: deft_x11::Atoms,
}

impl std::fmt::Debug for X11Windows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Windows").field("root", &self.root).finish_non_exhaustive()
    }
}

impl X11Windows {
    /// Connect to `display` (`:7`); `None` means the `DISPLAY` environment variable, as
    /// read by x11rb.
    pub fn connect(display: Option<&str>) -> Result<X11Windows, InputError> {
        let no_display = |e: &dyn std::fmt::Display| InputError::NoDisplay {
            display: display.map(str::to_string),
            detail: e.to_string(),
        };
        check_display_number(display)?;
        let (conn, screen) = x11rb::connect(display).map_err(|e| no_display(&e))?;
        let root = conn.setup().roots[screen].root;
        let atoms = deft_x11::Atoms::intern(&conn).map_err(|e| no_display(&e))?;
        Ok(X11Windows { display: display.map(str::to_string), conn, root, atoms })
    }

    /// The top-level window that holds the keyboard focus, if any. Keystrokes go there:
    /// after a click that focuses a window (the window manager does that asynchronously),
    /// wait for this before typing, or the first keys go to the window focused before.
    pub fn focused(&self) -> Result<Option<u64>, InputError> {
        deft_x11::focused(&self.conn, self.root, &self.atoms)
            .map_err(|e| InputError::Backend { what: "focus query", detail: e.to_string() })
    }
}

impl WindowLocator for X11Windows {
    fn windows(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError> {
        let all = deft_x11::windows(&self.conn, self.root, &self.atoms)
            .map_err(|e| InputError::Backend { what: "window query", detail: e.to_string() })?;
        Ok(matching(all, query))
    }

    fn minimized(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError> {
        let all = deft_x11::minimized(&self.conn, self.root, &self.atoms)
            .map_err(|e| InputError::Backend { what: "window query", detail: e.to_string() })?;
        Ok(matching(all, query))
    }

    fn popups(&self) -> Result<Vec<WindowGeometry>, InputError> {
        let all = deft_x11::popups(&self.conn, self.root, &self.atoms)
            .map_err(|e| InputError::Backend { what: "popup query", detail: e.to_string() })?;
        Ok(matching(all, &WindowQuery::default()))
    }

    fn focused(&self) -> Result<Option<u64>, InputError> {
        X11Windows::focused(self)
    }

    fn ping(&self, id: u64) -> Result<Option<Box<dyn Handled + Send + Sync>>, InputError> {
        let sent = deft_x11::ping::Ping::send(self.display.as_deref(), id).map_err(ping_failed)?;
        Ok(sent.map(|p| Box::new(p) as Box<dyn Handled + Send + Sync>))
    }

    fn input_method(&self) -> Option<String> {
        // An error reading the root counts as one: the caller then assumes the slow, safe case.
        match deft_x11::input_method::xim_servers(&self.conn, self.root) {
            Ok(servers) if !servers.is_empty() => Some(format!("XIM_SERVERS: {}", servers.join(", "))),
            Ok(_) => deft_x11::input_method::input_method_in_env(|name| std::env::var(name).ok()),
            Err(e) => Some(format!("unknown (XIM_SERVERS could not be read: {e})")),
        }
    }

    fn activate(&self, id: u64) -> Result<(), InputError> {
        deft_x11::activate(&self.conn, self.root, &self.atoms, id)
            .map_err(|e| InputError::Backend { what: "window activation", detail: e.to_string() })
    }
}

/// The windows of `all` that `query` matches, as the locator reports them.
fn matching(all: Vec<deft_x11::X11Window>, query: &WindowQuery) -> Vec<WindowGeometry> {
    all.into_iter()
        .filter(|w| query.matches(w.pid, &w.title))
        .map(|w| WindowGeometry { id: w.id, pid: w.pid, title: w.title, bounds: w.bounds })
        .collect()
}

impl Handled for deft_x11::ping::Ping {
    fn handled(&self) -> Result<bool, InputError> {
        self.answered().map_err(ping_failed)
    }
}

fn ping_failed(e: deft_x11::ping::PingError) -> InputError {
    InputError::Backend { what: "window ping", detail: e.to_string() }
}
