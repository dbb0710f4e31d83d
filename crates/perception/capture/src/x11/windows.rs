//! Finding a window on X11 by id or title, and where its contents lie on the root window.

use deft_types::{Physical, Rect};
use x11rb::connection::Connection;
use x11rb::errors::{ReplyError, ReplyOrIdError};
use x11rb::protocol::ErrorKind;
use x11rb::protocol::xproto::{self, AtomEnum, ConnectionExt as _, MapState};

use crate::error::CaptureError;
use crate::target::{self, WindowRef};

/// How deep below the root titled windows are looked for: root → window manager frame →
/// client window, with one level to spare.
const SEARCH_DEPTH: usize = 4;
/// At most this many windows are examined in a title search.
const SEARCH_LIMIT: usize = 4096;

/// The atoms a title search reads.
#[derive(Clone, Copy, Debug)]
pub(super) struct TitleAtoms {
    net_wm_name: xproto::Atom,
    utf8_string: xproto::Atom,
}

impl TitleAtoms {
    /// Intern the atoms (both requests in one round trip).
    pub(super) fn intern(conn: &impl Connection) -> Result<TitleAtoms, ReplyOrIdError> {
        let name = conn.intern_atom(false, b"_NET_WM_NAME")?;
        let utf8 = conn.intern_atom(false, b"UTF8_STRING")?;
        Ok(TitleAtoms { net_wm_name: name.reply()?.atom, utf8_string: utf8.reply()?.atom })
    }
}

/// The screen rectangle of the contents of the window `which` (decoration excluded),
/// which must be viewable.
pub(super) fn locate(
    conn: &impl Connection,
    root: xproto::Window,
    atoms: TitleAtoms,
    which: &WindowRef,
    fail: &dyn Fn(ReplyOrIdError) -> CaptureError,
) -> Result<Rect<Physical>, CaptureError> {
    let not_found = |why: &str| CaptureError::WindowNotFound { window: which.to_string(), why: why.to_string() };
    let window = match which {
        WindowRef::Id(id) => xproto::Window::try_from(*id).map_err(|_| not_found("X11 window ids have 32 bits"))?,
        WindowRef::Title(title) => {
            let candidates = titled_windows(conn, root, atoms).map_err(fail)?;
            let id = target::pick_by_title(title, &candidates)?;
            xproto::Window::try_from(id).map_err(|_| not_found("X11 window ids have 32 bits"))?
        }
    };
    let gone = |e: ReplyError| match e {
        ReplyError::X11Error(ref x) if x.error_kind == ErrorKind::Window || x.error_kind == ErrorKind::Drawable => {
            not_found("there is no such window (it may have been closed)")
        }
        e => fail(e.into()),
    };
    // Three requests, one round trip.
    let attributes = conn.get_window_attributes(window).map_err(|e| fail(e.into()))?;
    let geometry = conn.get_geometry(window).map_err(|e| fail(e.into()))?;
    let position = conn.translate_coordinates(window, root, 0, 0).map_err(|e| fail(e.into()))?;
    let attributes = attributes.reply().map_err(gone)?;
    let geometry = geometry.reply().map_err(gone)?;
    let position = position.reply().map_err(gone)?;
    match attributes.map_state {
        MapState::VIEWABLE => {}
        MapState::UNVIEWABLE => {
            return Err(CaptureError::WindowNotVisible {
                window: which.to_string(),
                why: "it is mapped but an ancestor is not (minimized or hidden)".into(),
            });
        }
        _ => {
            return Err(CaptureError::WindowNotVisible { window: which.to_string(), why: "it is not mapped".into() });
        }
    }
    Ok(Rect::new(position.dst_x.into(), position.dst_y.into(), geometry.width.into(), geometry.height.into()))
}

/// Every viewable window with a title, with its title (`_NET_WM_NAME`, else `WM_NAME`).
///
/// A breadth-first walk from the root rather than the window manager's client list, so it
/// also works without a window manager; each level's requests go out together, so the
/// walk costs one round trip per level.
fn titled_windows(
    conn: &impl Connection,
    root: xproto::Window,
    atoms: TitleAtoms,
) -> Result<Vec<(u64, String)>, ReplyOrIdError> {
    let mut found = Vec::new();
    let mut level = conn.query_tree(root)?.reply()?.children;
    let mut seen = 0;
    for _ in 0..SEARCH_DEPTH {
        if level.is_empty() || seen >= SEARCH_LIMIT {
            break;
        }
        level.truncate(SEARCH_LIMIT - seen);
        seen += level.len();
        let mut pending = Vec::with_capacity(level.len());
        for &w in &level {
            pending.push((
                w,
                conn.get_window_attributes(w)?,
                conn.get_property(false, w, atoms.net_wm_name, atoms.utf8_string, 0, 256)?,
                conn.get_property(false, w, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 256)?,
                conn.query_tree(w)?,
            ));
        }
        let mut next = Vec::new();
        for (w, attributes, net_name, name, tree) in pending {
            // A window may vanish between the listing and these replies: skip it.
            let viewable = attributes.reply().is_ok_and(|a| a.map_state == MapState::VIEWABLE);
            let net_name = net_name.reply().map(|p| p.value).unwrap_or_default();
            let name = name.reply().map(|p| p.value).unwrap_or_default();
            let children = tree.reply().map(|t| t.children).unwrap_or_default();
            if !viewable {
                continue; // nor are its children
            }
            let title =
                if net_name.is_empty() { latin1(&name) } else { String::from_utf8_lossy(&net_name).into_owned() };
            if !title.is_empty() {
                found.push((u64::from(w), title));
            }
            next.extend(children);
        }
        level = next;
    }
    Ok(found)
}

/// `WM_NAME` is Latin-1 (ICCCM `STRING`), whose bytes are the first 256 code points.
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}
