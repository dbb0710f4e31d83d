//! The one X11 window finder of Deft: the top-level windows of a display, bottom to top,
//! each with its owner (`_NET_WM_PID`), its title and where its contents lie on the screen.
//!
//! # The key decision: the window manager's list, read over the caller's connection
//!
//! Input (to learn a window's scale, to raise a covered one) and capture (to take a window
//! by title) both need "which windows are there, and where": one reading, so that both
//! agree on what a title names. The window manager's `_NET_CLIENT_LIST_STACKING` gives the
//! client windows in stacking order; without a window manager, the root's children are the
//! clients (nothing reparents them). The functions take any x11rb [`Connection`], so the
//! capture backend reads over its own (shared-memory) connection and input over its own.
//!
//! Beside it, [`selection`]: text offered as the primary selection for a middle-click
//! paste; [`ping`]: the window manager's ping, a round trip through an application's
//! own event queue that says it has handled the input sent before it;
//! [`input_method`]: whether an input method stands between keys and applications; and
//! [`watch`]: a person's presses and keys as the server sees them, to record a task.

pub mod input_method;
pub mod ping;
// It waits on the connection's socket, which needs a Unix file descriptor.
#[cfg(unix)]
pub mod selection;
// It waits on the connection's socket too.
#[cfg(unix)]
mod wait;
#[cfg(unix)]
pub mod watch;

use deft_types::{Physical, Rect};
use x11rb::connection::Connection;
use x11rb::errors::ReplyOrIdError;
use x11rb::protocol::xproto::{Atom, AtomEnum, ConnectionExt as _, MapState, Window};

/// The atoms the finder reads, interned once per connection.
#[derive(Clone, Copy, Debug)]
pub struct Atoms {
    client_list: Atom,
    wm_pid: Atom,
    net_wm_name: Atom,
    utf8: Atom,
    frame_extents: Atom,
    wm_state: Atom,
    /// `_NET_ACTIVE_WINDOW`, for [`activate`].
    pub active_window: Atom,
}

impl Atoms {
    /// Intern the atoms (every request in one round trip).
    pub fn intern(conn: &impl Connection) -> Result<Atoms, ReplyOrIdError> {
        let cookies = [
            conn.intern_atom(false, b"_NET_CLIENT_LIST_STACKING")?,
            conn.intern_atom(false, b"_NET_WM_PID")?,
            conn.intern_atom(false, b"_NET_WM_NAME")?,
            conn.intern_atom(false, b"UTF8_STRING")?,
            conn.intern_atom(false, b"_NET_ACTIVE_WINDOW")?,
            conn.intern_atom(false, b"_GTK_FRAME_EXTENTS")?,
            conn.intern_atom(false, b"WM_STATE")?,
        ];
        let mut atoms = [0; 7];
        for (slot, cookie) in atoms.iter_mut().zip(cookies) {
            *slot = cookie.reply()?.atom;
        }
        Ok(Atoms {
            client_list: atoms[0],
            wm_pid: atoms[1],
            net_wm_name: atoms[2],
            utf8: atoms[3],
            active_window: atoms[4],
            frame_extents: atoms[5],
            wm_state: atoms[6],
        })
    }
}

/// A viewable top-level window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct X11Window {
    /// Its X window id.
    pub id: u64,
    /// The owning process, when the window says (`_NET_WM_PID`).
    pub pid: Option<u32>,
    /// Its title (`_NET_WM_NAME`, else the Latin-1 `WM_NAME`).
    pub title: String,
    /// Its contents (decorations excluded) in physical screen pixels.
    pub bounds: Rect<Physical>,
    /// The invisible margins a client-side decorated window draws its shadow in
    /// (`_GTK_FRAME_EXTENTS`: left, right, top, bottom), when it says: the window's own
    /// coordinates start inside them.
    pub frame_extents: Option<[u32; 4]>,
}

impl X11Window {
    /// Where the origin of a toolkit's own window coordinates lies on screen, for a window
    /// the toolkit says is `width` × `height`: inside the client-side shadow margins when
    /// the window names them (`_GTK_FRAME_EXTENTS`). Else the window's frame is what the
    /// toolkit drew around its contents itself: a border of one width on the sides and at
    /// the bottom, and whatever more there is at the top, a title bar (Qt on GNOME draws
    /// its own: its 700 × 500 contents sit 3 px in and 30 px down in a 706 × 533 window;
    /// GTK 4 without a compositor draws an equal border only: its 1332 × 790 window is a
    /// 1342 × 800 X window). A size larger than the window leaves the corner.
    pub fn contents_origin(&self, width: u32, height: u32) -> (i32, i32) {
        let (left, top) = match self.frame_extents {
            Some([left, _, top, _]) => (left, top),
            None => {
                let side = self.bounds.w.saturating_sub(width) / 2;
                let spare = self.bounds.h.saturating_sub(height);
                // Less spare height than a bottom border: no title bar, split evenly.
                (side, if spare >= side { spare - side } else { spare / 2 })
            }
        };
        let at = |origin: i32, margin: u32| origin.saturating_add(i32::try_from(margin).unwrap_or(0));
        (at(self.bounds.x, left), at(self.bounds.y, top))
    }
}

/// The windows of `windows` (bottom to top, as [`windows`] lists them) stacked above the
/// window `id` whose bounds overlap its own: what the screen shows instead of it there.
/// Empty when nothing covers it, or when `id` is not in the list.
pub fn covering(windows: &[X11Window], id: u64) -> Vec<&X11Window> {
    let Some(at) = windows.iter().position(|w| w.id == id) else { return Vec::new() };
    let bounds = windows[at].bounds;
    windows[at + 1..].iter().filter(|w| w.bounds.intersection(&bounds).is_some()).collect()
}

/// The client windows, bottom to top: the window manager's stacking list, or without one
/// the root's children.
pub fn top_levels(conn: &impl Connection, root: Window, atoms: &Atoms) -> Result<Vec<Window>, ReplyOrIdError> {
    let reply = conn.get_property(false, root, atoms.client_list, AtomEnum::WINDOW, 0, 4096)?.reply()?;
    if let Some(list) = reply.value32().map(Iterator::collect::<Vec<_>>).filter(|l| !l.is_empty()) {
        return Ok(list);
    }
    Ok(conn.query_tree(root)?.reply()?.children)
}

/// Every viewable top-level window, bottom to top. Each window's requests go out together
/// (one round trip for the whole list); a window that vanishes meanwhile is left out.
pub fn windows(conn: &impl Connection, root: Window, atoms: &Atoms) -> Result<Vec<X11Window>, ReplyOrIdError> {
    shown_as(conn, root, atoms, Shown::Viewable)
}

/// The top-level windows the window manager holds minimised (ICCCM `WM_STATE` Iconic),
/// bottom to top: a person would restore one from the taskbar before using it. Their
/// bounds are where they were last shown.
pub fn minimized(conn: &impl Connection, root: Window, atoms: &Atoms) -> Result<Vec<X11Window>, ReplyOrIdError> {
    shown_as(conn, root, atoms, Shown::Iconic)
}

/// The top-level windows shown as `how`, bottom to top.
fn shown_as(conn: &impl Connection, root: Window, atoms: &Atoms, how: Shown) -> Result<Vec<X11Window>, ReplyOrIdError> {
    let tops = top_levels(conn, root, atoms)?;
    Ok(read_windows(conn, root, atoms, &tops)?.into_iter().filter(|(_, shown)| *shown == how).map(|(w, _)| w).collect())
}

/// The popups on screen, bottom to top: the viewable override-redirect children of the
/// root (menus, popovers, drop-down lists, tooltips), which no window manager holds and
/// no client list names. Where a toolkit says its popup is and where the display server
/// shows it can differ (GTK 4 places a popover's contents at its parent's origin); this
/// is the display server's side.
pub fn popups(conn: &impl Connection, root: Window, atoms: &Atoms) -> Result<Vec<X11Window>, ReplyOrIdError> {
    let children = conn.query_tree(root)?.reply()?.children;
    let cookies = children.iter().map(|&w| conn.get_window_attributes(w)).collect::<Result<Vec<_>, _>>()?;
    let mut popups = Vec::new();
    for (&w, cookie) in children.iter().zip(cookies) {
        if cookie.reply().is_ok_and(|a| a.override_redirect && a.map_state == MapState::VIEWABLE) {
            popups.push(w);
        }
    }
    Ok(read_windows(conn, root, atoms, &popups)?.into_iter().map(|(w, _)| w).collect())
}

/// How a top-level window is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shown {
    /// Mapped, with every ancestor mapped.
    Viewable,
    /// Minimised by the window manager (unmapped, `WM_STATE` Iconic).
    Iconic,
    /// Withdrawn or hidden some other way.
    Other,
}

/// `WM_STATE`'s `IconicState` (ICCCM 4.1.3.1).
const ICONIC_STATE: u32 = 3;

/// The windows `tops`, each with how it is shown, in the same order.
fn read_windows(
    conn: &impl Connection,
    root: Window,
    atoms: &Atoms,
    tops: &[Window],
) -> Result<Vec<(X11Window, Shown)>, ReplyOrIdError> {
    let mut pending = Vec::with_capacity(tops.len());
    for &w in tops {
        pending.push((
            w,
            conn.get_window_attributes(w)?,
            conn.get_property(false, w, atoms.wm_pid, AtomEnum::CARDINAL, 0, 1)?,
            conn.get_property(false, w, atoms.net_wm_name, atoms.utf8, 0, 1024)?,
            conn.get_property(false, w, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 1024)?,
            conn.get_geometry(w)?,
            conn.translate_coordinates(w, root, 0, 0)?,
            conn.get_property(false, w, atoms.frame_extents, AtomEnum::CARDINAL, 0, 4)?,
            conn.get_property(false, w, atoms.wm_state, atoms.wm_state, 0, 1)?,
        ));
    }
    let mut found = Vec::new();
    for (w, attributes, pid, net_name, name, geometry, origin, frame, wm_state) in pending {
        let viewable = attributes.reply().is_ok_and(|a| a.map_state == MapState::VIEWABLE);
        let (Ok(geometry), Ok(origin)) = (geometry.reply(), origin.reply()) else { continue };
        let iconic = wm_state.reply().ok().and_then(|p| p.value32().and_then(|mut v| v.next())) == Some(ICONIC_STATE);
        let shown = match (viewable, iconic) {
            (true, _) => Shown::Viewable,
            (false, true) => Shown::Iconic,
            (false, false) => Shown::Other,
        };
        let pid = pid.reply().ok().and_then(|p| p.value32().and_then(|mut v| v.next()));
        let net_name = net_name.reply().map(|p| p.value).unwrap_or_default();
        let title = if net_name.is_empty() {
            latin1(&name.reply().map(|p| p.value).unwrap_or_default())
        } else {
            String::from_utf8_lossy(&net_name).into_owned()
        };
        let bounds = Rect::new(origin.dst_x.into(), origin.dst_y.into(), geometry.width.into(), geometry.height.into());
        let frame_extents = frame.reply().ok().and_then(|p| {
            let v: Vec<u32> = p.value32()?.collect();
            <[u32; 4]>::try_from(v).ok()
        });
        found.push((X11Window { id: w.into(), pid, title, bounds, frame_extents }, shown));
    }
    Ok(found)
}

/// The top-level window holding the keyboard focus, if any (toolkits focus a child of
/// their top-level, so the focus is walked up to one).
pub fn focused(conn: &impl Connection, root: Window, atoms: &Atoms) -> Result<Option<u64>, ReplyOrIdError> {
    let tops = top_levels(conn, root, atoms)?;
    let mut window = conn.get_input_focus()?.reply()?.focus;
    // 0 is None and 1 is PointerRoot, neither a window.
    while window > 1 && window != root {
        if tops.contains(&window) {
            return Ok(Some(window.into()));
        }
        window = conn.query_tree(window)?.reply()?.parent;
    }
    Ok(None)
}

/// Ask the window manager to raise and activate `id` (EWMH `_NET_ACTIVE_WINDOW`, sent as
/// a pager would: source 2, a direct user request, honoured without focus-stealing
/// prevention). The window manager decides; callers check the result.
pub fn activate(conn: &impl Connection, root: Window, atoms: &Atoms, id: u64) -> Result<(), ReplyOrIdError> {
    use x11rb::protocol::xproto::{ClientMessageEvent, EventMask};
    let window = Window::try_from(id).unwrap_or(0);
    let event = ClientMessageEvent::new(32, window, atoms.active_window, [2u32, 0, 0, 0, 0]);
    let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
    conn.send_event(false, root, mask, event)?;
    conn.flush()?;
    Ok(())
}

/// `WM_NAME` is Latin-1 (ICCCM `STRING`), whose bytes are the first 256 code points.
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(frame_extents: Option<[u32; 4]>) -> X11Window {
        let bounds = Rect::new(200, 80, 1342, 800);
        X11Window { id: 1, pid: Some(7), title: "GTK Widget Factory".into(), bounds, frame_extents }
    }

    #[test]
    fn contents_origin_inside_the_border_or_the_named_margins() {
        // Measured on gtk4-widget-factory under Xvfb: no compositor, so no shadow margins.
        assert_eq!(window(None).contents_origin(1332, 790), (205, 85));
        assert_eq!(window(Some([23, 23, 15, 31])).contents_origin(1296, 754), (223, 95));
        assert_eq!(window(None).contents_origin(2000, 2000), (200, 80));
        // A title bar the toolkit drew itself (Qt on GNOME, measured on FeatherPad): the
        // 706 × 533 window at (286, 110) holds its 700 × 500 contents at (289, 140).
        let qt = X11Window { bounds: Rect::new(286, 110, 706, 533), ..window(None) };
        assert_eq!(qt.contents_origin(700, 500), (289, 140));
        // Less spare height than a side's border: split evenly.
        assert_eq!(window(None).contents_origin(1300, 796), (221, 82));
    }

    #[test]
    fn covering_windows_are_those_above_that_overlap() {
        let at = |id: u64, x: i32| X11Window {
            id,
            pid: None,
            title: format!("w{id}"),
            bounds: Rect::new(x, 0, 100, 100),
            frame_extents: None,
        };
        let list = [at(1, 0), at(2, 50), at(3, 500), at(4, 90)];
        let ids = |v: Vec<&X11Window>| v.into_iter().map(|w| w.id).collect::<Vec<_>>();
        assert_eq!(ids(covering(&list, 1)), [2, 4]);
        assert_eq!(ids(covering(&list, 2)), [4]);
        assert!(covering(&list, 4).is_empty() && covering(&list, 9).is_empty());
    }

    #[test]
    fn latin1_titles() {
        assert_eq!(latin1(b"caf\xe9"), "café");
    }
}
