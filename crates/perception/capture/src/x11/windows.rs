//! Finding a window on X11 by id or title, and where its contents lie on the root window.

use deft_types::{Physical, Rect};
use x11rb::connection::Connection;
use x11rb::errors::{ReplyError, ReplyOrIdError};
use x11rb::protocol::ErrorKind;
use x11rb::protocol::xproto::{self, ConnectionExt as _, MapState};

use crate::error::CaptureError;
use crate::target::{self, WindowRef};

/// The window `which` names and the screen rectangle of its contents (decoration
/// excluded); it must be viewable.
pub(super) fn locate(
    conn: &impl Connection,
    root: xproto::Window,
    atoms: &deft_x11::Atoms,
    which: &WindowRef,
    fail: &dyn Fn(ReplyOrIdError) -> CaptureError,
) -> Result<(xproto::Window, Rect<Physical>), CaptureError> {
    let not_found = |why: &str| CaptureError::WindowNotFound { window: which.to_string(), why: why.to_string() };
    let window = match which {
        WindowRef::Id(id) => xproto::Window::try_from(*id).map_err(|_| not_found("X11 window ids have 32 bits"))?,
        WindowRef::Title(title) => {
            // The one window finder (deft-x11), as input reads it: both name the same window.
            let candidates: Vec<(u64, String)> = deft_x11::windows(conn, root, atoms)
                .map_err(fail)?
                .into_iter()
                .filter(|w| !w.title.is_empty())
                .map(|w| (w.id, w.title))
                .collect();
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
    Ok((window, Rect::new(position.dst_x.into(), position.dst_y.into(), geometry.width.into(), geometry.height.into())))
}

/// The titles of the windows stacked above `window` that overlap it (untitled ones by id):
/// a capture of its rectangle would show their pixels there.
pub(super) fn covering(
    conn: &impl Connection,
    root: xproto::Window,
    atoms: &deft_x11::Atoms,
    window: xproto::Window,
    fail: &dyn Fn(ReplyOrIdError) -> CaptureError,
) -> Result<Vec<String>, CaptureError> {
    let list = deft_x11::windows(conn, root, atoms).map_err(fail)?;
    Ok(deft_x11::covering(&list, window.into())
        .into_iter()
        .map(|w| if w.title.is_empty() { format!("{:#x}", w.id) } else { format!("{:?}", w.title) })
        .collect())
}
