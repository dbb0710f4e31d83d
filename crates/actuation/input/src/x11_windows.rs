//! [`WindowLocator`] for X11 over x11rb: the window manager's client list, or the root's children.

use deft_types::{Physical, Rect};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{Atom, AtomEnum, ConnectionExt, MapState, Window};
use x11rb::rust_connection::RustConnection;

use crate::InputError;
use crate::error::check_display_number;
use crate::windows::{WindowInfo, WindowLocator, WindowQuery};

/// Top-level windows of one X display.
pub struct X11Windows {
    conn: RustConnection,
    root: Window,
    atoms: Atoms,
}

impl std::fmt::Debug for X11Windows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Windows").field("root", &self.root).finish_non_exhaustive()
    }
}

#[derive(Clone, Copy)]
struct Atoms {
    client_list: Atom,
    wm_pid: Atom,
    wm_name: Atom,
    utf8: Atom,
}

type Failed = Box<dyn std::error::Error>;

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
        let atoms = intern(&conn).map_err(|e| no_display(&e))?;
        Ok(X11Windows { conn, root, atoms })
    }

    /// The top-level window that holds the keyboard focus, if any. Keystrokes go there:
    /// after a click that focuses a window (the window manager does that asynchronously),
    /// wait for this before typing, or the first keys go to the window focused before.
    pub fn focused(&self) -> Result<Option<u64>, InputError> {
        self.focused_top_level().map_err(|e| InputError::Backend { what: "focus query", detail: e.to_string() })
    }

    fn focused_top_level(&self) -> Result<Option<u64>, Failed> {
        let top_levels = self.top_levels()?;
        let mut window = self.conn.get_input_focus()?.reply()?.focus;
        // Toolkits focus a child of their top-level (GTK's focus proxy): walk up. 0 is
        // None and 1 is PointerRoot, neither a window.
        while window > 1 && window != self.root {
            if top_levels.contains(&window) {
                return Ok(Some(window.into()));
            }
            window = self.conn.query_tree(window)?.reply()?.parent;
        }
        Ok(None)
    }

    fn list(&self, query: &WindowQuery) -> Result<Vec<WindowInfo>, Failed> {
        let mut found = Vec::new();
        for window in self.top_levels()? {
            // A window may vanish between listing and asking: skip it rather than fail.
            let Ok(attrs) = self.conn.get_window_attributes(window)?.reply() else { continue };
            if attrs.map_state != MapState::VIEWABLE {
                continue;
            }
            let pid = self.cardinal(window, self.atoms.wm_pid)?;
            let title = self.title(window)?;
            if !query.matches(pid, &title) {
                continue;
            }
            let Ok(geometry) = self.conn.get_geometry(window)?.reply() else { continue };
            let Ok(origin) = self.conn.translate_coordinates(window, self.root, 0, 0)?.reply() else { continue };
            let bounds = Rect::<Physical>::new(
                origin.dst_x.into(),
                origin.dst_y.into(),
                geometry.width.into(),
                geometry.height.into(),
            );
            found.push(WindowInfo { id: window.into(), pid, title, bounds });
        }
        Ok(found)
    }

    /// The window manager's client windows (`_NET_CLIENT_LIST_STACKING`, bottom to top),
    /// or, without a window manager, the root's children (also bottom to top; nothing
    /// reparents them then).
    fn top_levels(&self) -> Result<Vec<Window>, Failed> {
        let reply =
            self.conn.get_property(false, self.root, self.atoms.client_list, AtomEnum::WINDOW, 0, 4096)?.reply()?;
        if let Some(list) = reply.value32().map(Iterator::collect::<Vec<_>>).filter(|l| !l.is_empty()) {
            return Ok(list);
        }
        Ok(self.conn.query_tree(self.root)?.reply()?.children)
    }

    fn cardinal(&self, window: Window, property: Atom) -> Result<Option<u32>, Failed> {
        let reply = self.conn.get_property(false, window, property, AtomEnum::CARDINAL, 0, 1)?.reply()?;
        Ok(reply.value32().and_then(|mut v| v.next()))
    }

    fn title(&self, window: Window) -> Result<String, Failed> {
        let utf8 = self.conn.get_property(false, window, self.atoms.wm_name, self.atoms.utf8, 0, 1024)?.reply()?;
        if !utf8.value.is_empty() {
            return Ok(String::from_utf8_lossy(&utf8.value).into_owned());
        }
        // Old-style WM_NAME is Latin-1.
        let legacy = self.conn.get_property(false, window, AtomEnum::WM_NAME, AtomEnum::STRING, 0, 1024)?.reply()?;
        Ok(legacy.value.iter().map(|&b| char::from(b)).collect())
    }
}

fn intern(conn: &RustConnection) -> Result<Atoms, Failed> {
    let atom = |name: &str| -> Result<Atom, Failed> { Ok(conn.intern_atom(false, name.as_bytes())?.reply()?.atom) };
    Ok(Atoms {
        client_list: atom("_NET_CLIENT_LIST_STACKING")?,
        wm_pid: atom("_NET_WM_PID")?,
        wm_name: atom("_NET_WM_NAME")?,
        utf8: atom("UTF8_STRING")?,
    })
}

impl WindowLocator for X11Windows {
    fn windows(&self, query: &WindowQuery) -> Result<Vec<WindowInfo>, InputError> {
        self.list(query).map_err(|e| InputError::Backend { what: "window query", detail: e.to_string() })
    }
}
