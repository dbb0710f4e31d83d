//! Text handed to an application as the primary selection (what a middle click pastes on
//! X11), for fields that ignore key events.
//!
//! A middle click over a text field makes its application ask the owner of `PRIMARY` for
//! the text (ICCCM 2.2) and insert it where the pointer is: no key event is involved, so a
//! page that swallows every `keydown` still gets the text, as it would from a person
//! pasting. [`paste_primary`] owns `PRIMARY` from a window of its own for as long as the
//! paste takes, answers the requests, then gives the selection up (X11 cannot hand it back
//! to a previous owner: the primary selection is left empty, as after a deselection; the
//! clipboard, `CLIPBOARD`, is never touched). The caller's closure sends the click, so
//! this module knows nothing of input.

use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask, PropMode,
    SelectionNotifyEvent, SelectionRequestEvent, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{COPY_DEPTH_FROM_PARENT, CURRENT_TIME, NONE};

/// How long the paste may go quiet after the text was handed over before the selection is
/// given up: an application may ask again (for another format) right after its first
/// request.
const QUIET_AFTER: Duration = Duration::from_millis(60);

/// The selection a middle click pastes.
const PRIMARY: Atom = 1; // AtomEnum::PRIMARY, predefined by the core protocol

/// What happened to the offered text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pasted {
    /// How many times the text itself was handed to an application (0: nobody asked for it
    /// within the limit, so the click pasted nothing).
    pub handed_over: u32,
    /// Which applications' windows asked, by X window id (one per request for the text).
    pub requestors: Vec<u64>,
}

/// Why the text could not be offered.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// The display server could not be reached or refused a request.
    #[error("the display server refused the primary selection: {0}")]
    Server(String),
    /// Another client took the selection in the instant it was taken.
    #[error("another application took the primary selection before the paste; try again")]
    Lost,
    /// The text is too large to hand over in one property change.
    #[error("the text is {len} bytes, more than the {max} bytes one paste can carry")]
    TooLarge {
        /// The text's length in bytes.
        len: usize,
        /// The most one request can carry on this server.
        max: usize,
    },
}

fn server(e: impl std::fmt::Display) -> SelectionError {
    SelectionError::Server(e.to_string())
}

/// The atoms a paste speaks.
struct Names {
    targets: Atom,
    utf8: Atom,
    text: Atom,
    plain_utf8: Atom,
    timestamp: Atom,
}

impl Names {
    fn intern(conn: &RustConnection) -> Result<Names, SelectionError> {
        let cookies = [
            conn.intern_atom(false, b"TARGETS").map_err(server)?,
            conn.intern_atom(false, b"UTF8_STRING").map_err(server)?,
            conn.intern_atom(false, b"TEXT").map_err(server)?,
            conn.intern_atom(false, b"text/plain;charset=utf-8").map_err(server)?,
            conn.intern_atom(false, b"TIMESTAMP").map_err(server)?,
        ];
        let mut atoms = [0; 5];
        for (slot, cookie) in atoms.iter_mut().zip(cookies) {
            *slot = cookie.reply().map_err(server)?.atom;
        }
        let [targets, utf8, text, plain_utf8, timestamp] = atoms;
        Ok(Names { targets, utf8, text, plain_utf8, timestamp })
    }
}

/// Offers `text` as the primary selection on `display` (`None`: `DISPLAY`), calls `paste`
/// (which should make an application ask for it: a middle click over a text field), and
/// answers every request until the text was handed over and the requests went quiet, or
/// until `limit` passed; then gives the selection up. `paste`'s error is returned as it is,
/// with nothing pasted.
pub fn paste_primary<E: From<SelectionError>>(
    display: Option<&str>,
    text: &str,
    limit: Duration,
    paste: impl FnOnce() -> Result<(), E>,
) -> Result<Pasted, E> {
    let (conn, screen) = x11rb::connect(display).map_err(server)?;
    // A property change carries at most the request length, less its header.
    let max = conn.maximum_request_bytes().saturating_sub(64);
    if text.len() > max {
        return Err(SelectionError::TooLarge { len: text.len(), max }.into());
    }
    let root = conn.setup().roots.get(screen).map(|s| s.root).ok_or_else(|| server("no screen"))?;
    let names = Names::intern(&conn)?;
    let window = conn.generate_id().map_err(server)?;
    let aux = CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE);
    conn.create_window(COPY_DEPTH_FROM_PARENT, window, root, -1, -1, 1, 1, 0, WindowClass::INPUT_ONLY, 0, &aux)
        .map_err(server)?;
    let owned = own(&conn, window, &names);
    let result = owned.map_err(E::from).and_then(|since| {
        paste()?;
        Ok(serve(&conn, window, since, &names, text.as_bytes(), limit))
    });
    // Give the selection up (only if still ours: another client may have taken it since)
    // and the window with it; a broken connection drops both anyway.
    if conn.get_selection_owner(PRIMARY).ok().and_then(|c| c.reply().ok()).map(|r| r.owner) == Some(window) {
        let _ = conn.set_selection_owner(NONE, PRIMARY, CURRENT_TIME);
    }
    let _ = conn.destroy_window(window);
    let _ = conn.flush();
    result
}

/// Takes `PRIMARY` for `window` with a real timestamp (ICCCM 2.1: never `CurrentTime`),
/// read from the server's answer to an empty property change. Returns that time.
fn own(conn: &RustConnection, window: u32, names: &Names) -> Result<u32, SelectionError> {
    conn.change_property8(PropMode::APPEND, window, names.timestamp, AtomEnum::INTEGER, &[]).map_err(server)?;
    conn.flush().map_err(server)?;
    let deadline = Instant::now() + Duration::from_secs(2);
    let time = loop {
        match next_event(conn, deadline)? {
            Some(Event::PropertyNotify(e)) if e.window == window => break e.time,
            Some(_) => {}
            None => return Err(server("no answer to a property change within 2 s")),
        }
    };
    conn.change_window_attributes(window, &ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT))
        .map_err(server)?;
    conn.set_selection_owner(window, PRIMARY, time).map_err(server)?;
    let owner = conn.get_selection_owner(PRIMARY).map_err(server)?.reply().map_err(server)?.owner;
    if owner != window {
        return Err(SelectionError::Lost);
    }
    Ok(time)
}

/// Answers requests for the selection until the text was handed over and no request came
/// for [`QUIET_AFTER`], or `limit` passed, or another client took the selection.
fn serve(conn: &RustConnection, window: u32, since: u32, names: &Names, text: &[u8], limit: Duration) -> Pasted {
    let end = Instant::now() + limit;
    let mut pasted = Pasted { handed_over: 0, requestors: Vec::new() };
    loop {
        let deadline = if pasted.handed_over > 0 { (Instant::now() + QUIET_AFTER).min(end) } else { end };
        match next_event(conn, deadline) {
            Ok(Some(Event::SelectionRequest(r))) if r.owner == window => {
                if answer(conn, &r, since, names, text) {
                    pasted.handed_over += 1;
                    pasted.requestors.push(r.requestor.into());
                }
            }
            Ok(Some(Event::SelectionClear(c))) if c.owner == window => return pasted,
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return pasted,
        }
    }
}

/// Answers one request (ICCCM 2.2): the text in the format asked for, or a refusal.
/// Whether the text itself was handed over.
fn answer(conn: &RustConnection, r: &SelectionRequestEvent, since: u32, names: &Names, text: &[u8]) -> bool {
    // Obsolete clients name no property: the target's name is the property (ICCCM 2.2).
    let property = if r.property == NONE { r.target } else { r.property };
    // A request from before the selection was ours asks for someone else's selection.
    let too_early = r.time != CURRENT_TIME && r.time < since;
    let (stored, text_given) = if too_early {
        (false, false)
    } else if r.target == names.targets {
        let offered = [names.targets, names.utf8, names.plain_utf8, names.text, AtomEnum::STRING.into()];
        (conn.change_property32(PropMode::REPLACE, r.requestor, property, AtomEnum::ATOM, &offered).is_ok(), false)
    } else if [names.utf8, names.plain_utf8, names.text].contains(&r.target) {
        let kind = if r.target == names.plain_utf8 { names.plain_utf8 } else { names.utf8 };
        let ok = conn.change_property8(PropMode::REPLACE, r.requestor, property, kind, text).is_ok();
        (ok, ok)
    } else if r.target == Atom::from(AtomEnum::STRING) && text.is_ascii() {
        // STRING is Latin-1; ASCII is the same bytes in both. Other text is offered as UTF-8 only.
        let ok = conn.change_property8(PropMode::REPLACE, r.requestor, property, AtomEnum::STRING, text).is_ok();
        (ok, ok)
    } else if r.target == names.timestamp {
        (conn.change_property32(PropMode::REPLACE, r.requestor, property, AtomEnum::INTEGER, &[since]).is_ok(), false)
    } else {
        (false, false)
    };
    let notify = SelectionNotifyEvent {
        response_type: x11rb::protocol::xproto::SELECTION_NOTIFY_EVENT,
        sequence: 0,
        time: r.time,
        requestor: r.requestor,
        selection: r.selection,
        target: r.target,
        property: if stored { property } else { NONE },
    };
    let sent = conn.send_event(false, r.requestor, EventMask::NO_EVENT, notify).is_ok() && conn.flush().is_ok();
    sent && text_given
}

/// The next event, waiting for it until `deadline` (`None` then).
fn next_event(conn: &RustConnection, deadline: Instant) -> Result<Option<Event>, SelectionError> {
    conn.flush().map_err(server)?;
    loop {
        if let Some(event) = conn.poll_for_event().map_err(server)? {
            return Ok(Some(event));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        // x11rb has read everything the socket held into its queue (empty now), so the
        // socket becoming readable is the only way a new event can arrive.
        let fd = conn.stream().as_fd();
        let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
        // Under the deadline, so far below what a Timespec holds.
        let timeout =
            rustix::event::Timespec::try_from(left).unwrap_or(rustix::event::Timespec { tv_sec: 1, tv_nsec: 0 });
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(server(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primary_is_the_predefined_atom() {
        assert_eq!(PRIMARY, Atom::from(AtomEnum::PRIMARY));
    }

    #[test]
    fn an_absent_display_is_an_error_not_a_panic() {
        let got = paste_primary::<SelectionError>(Some(":59124"), "x", Duration::from_millis(10), || Ok(()));
        assert!(matches!(got, Err(SelectionError::Server(_))), "{got:?}");
    }
}
