//! Text handed to an application as the primary selection (what a middle click pastes on
//! X11), for fields that ignore key events.
//!
//! A middle click over a text field makes its application ask the owner of `PRIMARY` for
//! the text (ICCCM 2.2) and insert it where the pointer is: no key event is involved, so a
//! page that swallows every `keydown` still gets the text, as it would from a person
//! pasting. [`paste_primary`] owns `PRIMARY` from a window of its own for as long as the
//! paste takes, hands the text only to the application under the pointer (a clipboard
//! manager that asks because the owner changed is refused, so the text stays out of its
//! history), then gives the selection up (X11 cannot hand it back to a previous owner: the
//! primary selection is left empty, as after a deselection; the clipboard, `CLIPBOARD`, is
//! never touched). The caller's closure sends the click, so this module knows nothing of
//! input.

use std::time::{Duration, Instant};

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask, PropMode,
    SelectionNotifyEvent, SelectionRequestEvent, Timestamp, Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{COPY_DEPTH_FROM_PARENT, CURRENT_TIME, NONE};

/// How long the paste may go quiet after the application under the pointer got the text
/// before the selection is given up: it may ask again (for another format) right after.
const QUIET_AFTER: Duration = Duration::from_millis(60);

/// How long the display server may take to answer while the selection is taken.
const SERVER_ANSWERS: Duration = Duration::from_secs(2);

/// The selection a middle click pastes.
const PRIMARY: Atom = 1; // AtomEnum::PRIMARY, predefined by the core protocol

/// What happened to the offered text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pasted {
    /// How many times the text was handed to the application under the pointer (0: it did
    /// not ask within the limit, so the click pasted nothing).
    pub handed_over: u32,
    /// How many requests from other applications were refused (clipboard managers that
    /// watch the selection).
    pub refused_others: u32,
}

/// Why the text could not be offered. Nothing was pasted, and the click was not sent.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// No display server to offer the text on.
    #[error("could not connect to the X server to offer the text for pasting: {0}")]
    Connect(#[from] x11rb::errors::ConnectError),
    /// The display server refused or lost a request.
    #[error("the X server did not let Deft offer the text for pasting ({what}): {source}")]
    Server {
        /// What was being done.
        what: &'static str,
        /// The server's or the connection's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Another client took the selection in the instant it was taken.
    #[error("another application took the primary selection just as Deft offered the text, so nothing was pasted")]
    Lost,
    /// The text is too large to hand over in one property change.
    #[error("the text is {len} bytes, more than the {max} bytes one paste can carry on this X server")]
    TooLarge {
        /// The text's length in bytes.
        len: usize,
        /// The most one request can carry on this server.
        max: usize,
    },
}

/// Why a paste failed: before the click (nothing was sent), or the caller's click itself.
#[derive(Debug)]
pub enum PasteError<E> {
    /// The text could not be offered; the click was not sent.
    Offer(SelectionError),
    /// The caller's closure failed, as it returned.
    Click(E),
}

fn server<T: std::error::Error + Send + Sync + 'static>(what: &'static str) -> impl FnOnce(T) -> SelectionError {
    move |e| SelectionError::Server { what, source: Box::new(e) }
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
        let names: [&[u8]; 5] = [b"TARGETS", b"UTF8_STRING", b"TEXT", b"text/plain;charset=utf-8", b"TIMESTAMP"];
        let mut cookies = Vec::with_capacity(names.len());
        for name in names {
            cookies.push(conn.intern_atom(false, name).map_err(server("naming the formats"))?);
        }
        let mut atoms = [0; 5];
        for (slot, cookie) in atoms.iter_mut().zip(cookies) {
            *slot = cookie.reply().map_err(server("naming the formats"))?.atom;
        }
        let [targets, utf8, text, plain_utf8, timestamp] = atoms;
        Ok(Names { targets, utf8, text, plain_utf8, timestamp })
    }
}

/// Offers `text` as the primary selection on `display` (`None`: `DISPLAY`), calls `paste`
/// (which should make the application under the pointer ask for it: a middle click over a
/// text field), and hands the text to that application (the X client that owns the window
/// the pointer is over) until it has it and its requests went quiet, or until `limit`
/// passed; then gives the selection up.
pub fn paste_primary<E>(
    display: Option<&str>,
    text: &str,
    limit: Duration,
    paste: impl FnOnce() -> Result<(), E>,
) -> Result<Pasted, PasteError<E>> {
    let offer = |e| PasteError::Offer(e);
    let (conn, screen) = x11rb::connect(display).map_err(|e| offer(e.into()))?;
    // A property change carries at most the request length, less its header.
    let max = conn.maximum_request_bytes().saturating_sub(64);
    if text.len() > max {
        return Err(offer(SelectionError::TooLarge { len: text.len(), max }));
    }
    let root = conn.setup().roots.get(screen).map(|s| s.root).unwrap_or(NONE);
    let names = Names::intern(&conn).map_err(offer)?;
    let window = conn.generate_id().map_err(|e| offer(server("making a window")(e)))?;
    let aux = CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE);
    conn.create_window(COPY_DEPTH_FROM_PARENT, window, root, -1, -1, 1, 1, 0, WindowClass::INPUT_ONLY, 0, &aux)
        .map_err(|e| offer(server("making a window")(e)))?;
    let result = match own(&conn, window, &names) {
        Err(e) => Err(offer(e)),
        Ok(since) => match paste() {
            Err(e) => Err(PasteError::Click(e)),
            Ok(()) => {
                let pasting = client_under_pointer(&conn, root);
                let text = Offered { bytes: text.as_bytes(), since, names: &names };
                Ok(serve(&conn, window, &text, pasting, limit))
            }
        },
    };
    give_up(&conn, window);
    result
}

/// Gives the selection up by destroying its window: the server resets a selection whose
/// owner window is destroyed, and one another client took since is not ours to clear.
/// Waits for the server to have done it, so that the selection is free once the paste
/// returns.
fn give_up(conn: &RustConnection, window: Window) {
    let _ = conn.destroy_window(window);
    if let Ok(cookie) = conn.get_input_focus() {
        let _ = cookie.reply();
    }
}

/// Takes `PRIMARY` for `window` with a real timestamp (ICCCM 2.1: never `CurrentTime`),
/// read from the server's answer to an empty property change. Returns that time.
fn own(conn: &RustConnection, window: Window, names: &Names) -> Result<Timestamp, SelectionError> {
    let taking = "taking the primary selection";
    conn.change_property8(PropMode::APPEND, window, names.timestamp, AtomEnum::INTEGER, &[]).map_err(server(taking))?;
    let deadline = Instant::now() + SERVER_ANSWERS;
    let time = loop {
        match next_event(conn, deadline)? {
            Some(Event::PropertyNotify(e)) if e.window == window => break e.time,
            Some(_) => {}
            None => return Err(server(taking)(TimedOut)),
        }
    };
    conn.change_window_attributes(window, &ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT))
        .map_err(server(taking))?;
    conn.set_selection_owner(window, PRIMARY, time).map_err(server(taking))?;
    let owner = conn.get_selection_owner(PRIMARY).map_err(server(taking))?.reply().map_err(server(taking))?.owner;
    if owner != window {
        return Err(SelectionError::Lost);
    }
    Ok(time)
}

/// The display server did not answer in time.
#[derive(Debug, thiserror::Error)]
#[error("no answer within {} s", SERVER_ANSWERS.as_secs())]
struct TimedOut;

/// The X client that owns the deepest window under the pointer, as the part of a resource
/// id that names its connection (every id a client makes shares it: the server hands each
/// connection a base and a mask). `None` when nothing but the root is there.
fn client_under_pointer(conn: &RustConnection, root: Window) -> Option<u32> {
    let mut window = root;
    // A window tree is shallow; the bound only guards against a tree changing meanwhile.
    for _ in 0..64 {
        let child = conn.query_pointer(window).ok()?.reply().ok()?.child;
        if child == NONE {
            break;
        }
        window = child;
    }
    (window != root).then(|| client_of(conn, window))
}

fn client_of(conn: &RustConnection, id: u32) -> u32 {
    id & !conn.setup().resource_id_mask
}

/// The text on offer, with what answering needs.
struct Offered<'a> {
    bytes: &'a [u8],
    /// When the selection was taken.
    since: Timestamp,
    names: &'a Names,
}

/// Answers requests for the selection until the application under the pointer (`pasting`,
/// any when unknown) got the text and asked nothing more for [`QUIET_AFTER`], or `limit`
/// passed, or another client took the selection. Other applications are refused.
fn serve(conn: &RustConnection, window: Window, text: &Offered, pasting: Option<u32>, limit: Duration) -> Pasted {
    let end = Instant::now() + limit;
    let mut pasted = Pasted { handed_over: 0, refused_others: 0 };
    loop {
        let deadline = if pasted.handed_over > 0 { (Instant::now() + QUIET_AFTER).min(end) } else { end };
        match next_event(conn, deadline) {
            Ok(Some(Event::SelectionRequest(r))) if r.owner == window => {
                let theirs = pasting.is_none_or(|c| client_of(conn, r.requestor) == c);
                if !theirs {
                    pasted.refused_others += 1;
                    notify(conn, &r, NONE);
                } else if answer(conn, &r, text) {
                    pasted.handed_over += 1;
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
fn answer(conn: &RustConnection, r: &SelectionRequestEvent, text: &Offered) -> bool {
    let names = text.names;
    // Obsolete clients name no property: the target's name is the property (ICCCM 2.2).
    let property = if r.property == NONE { r.target } else { r.property };
    // A request timed before the selection was ours asks for someone else's selection
    // (server time wraps around after 49 days: compared as a difference).
    let too_early = r.time != CURRENT_TIME && (r.time.wrapping_sub(text.since) as i32) < 0;
    // STRING is Latin-1; ASCII is the same bytes in both. Other text is offered as UTF-8 only.
    let as_string = text.bytes.is_ascii();
    let string: Atom = AtomEnum::STRING.into();
    let stored = |sent: Result<_, _>| sent.is_ok();
    let (stored, text_given) = if too_early {
        (false, false)
    } else if r.target == names.targets {
        let mut offered = vec![names.targets, names.timestamp, names.utf8, names.plain_utf8, names.text];
        if as_string {
            offered.push(string);
        }
        (stored(conn.change_property32(PropMode::REPLACE, r.requestor, property, AtomEnum::ATOM, &offered)), false)
    } else if [names.utf8, names.plain_utf8, names.text].contains(&r.target) || (r.target == string && as_string) {
        let kind = if r.target == names.plain_utf8 || r.target == string { r.target } else { names.utf8 };
        let ok = stored(conn.change_property8(PropMode::REPLACE, r.requestor, property, kind, text.bytes));
        (ok, ok)
    } else if r.target == names.timestamp {
        let since = [text.since];
        (stored(conn.change_property32(PropMode::REPLACE, r.requestor, property, AtomEnum::INTEGER, &since)), false)
    } else {
        (false, false)
    };
    let sent = notify(conn, r, if stored { property } else { NONE });
    sent && text_given
}

/// Tells the requestor where its answer is (`NONE`: refused). Whether that was sent.
fn notify(conn: &RustConnection, r: &SelectionRequestEvent, property: Atom) -> bool {
    let event = SelectionNotifyEvent {
        response_type: x11rb::protocol::xproto::SELECTION_NOTIFY_EVENT,
        sequence: 0,
        time: r.time,
        requestor: r.requestor,
        selection: r.selection,
        target: r.target,
        property,
    };
    conn.send_event(false, r.requestor, EventMask::NO_EVENT, event).is_ok() && conn.flush().is_ok()
}

/// The next event, waiting for it until `deadline` (`None` then).
fn next_event(conn: &RustConnection, deadline: Instant) -> Result<Option<Event>, SelectionError> {
    let reading = "reading the server's events";
    conn.flush().map_err(server(reading))?;
    crate::wait::next_event(conn, deadline).map_err(server(reading))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primary_is_the_predefined_atom() {
        assert_eq!(PRIMARY, Atom::from(AtomEnum::PRIMARY));
    }

    #[test]
    fn an_absent_display_is_an_error_before_any_click() {
        let mut clicked = false;
        let got = paste_primary::<()>(Some(":59124"), "x", Duration::from_millis(10), || {
            clicked = true;
            Ok(())
        });
        assert!(matches!(got, Err(PasteError::Offer(SelectionError::Connect(_)))), "{got:?}");
        assert!(!clicked);
        let Err(PasteError::Offer(e)) = got else { unreachable!() };
        assert!(e.to_string().starts_with("could not connect to the X server"), "{e}");
    }
}
