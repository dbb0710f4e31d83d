//! A round trip through an application's own event queue: the window manager's ping
//! (EWMH `_NET_WM_PING`), sent by Deft.
//!
//! An X server delivers the events of one client connection in order, and a toolkit
//! answers a ping when it comes to it in that queue, after the events before it: so a ping
//! sent after an input, once answered, says the application has read that input and is not
//! merely stuck behind a busy moment; it handles it within a pass or two of its loop (GTK
//! dispatches it before or just after the answer, Qt hands it to its own queue). A press
//! still showing no sign a read after the answer was taken and dropped. Without the answer,
//! "no sign yet" cannot tell the two apart (a GTK app under load answered three
//! accessibility reads before a press still queued behind the pointer's motion, and the
//! press taken for dropped was sent a second time). A browser's window belongs to its
//! browser process, which hands input on to the page's process: its answer says the
//! browser read the input, not that the page handled it.
//!
//! The ping is what window managers send every few seconds to find hung windows, and only
//! to windows that list `_NET_WM_PING` in their `WM_PROTOCOLS`: the same here.

use x11rb::connection::Connection;
use x11rb::errors::ReplyOrIdError;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, PropMode,
    Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;

/// A ping on its way to a window, over a connection of its own (closed with it), which
/// listens on the root window for the answer.
pub struct Ping {
    conn: RustConnection,
    window: Window,
    stamp: u32,
    protocols: u32,
    ping: u32,
    /// The answer came (kept: it is read off the connection once).
    answered: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Ping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ping").field("window", &self.window).field("stamp", &self.stamp).finish_non_exhaustive()
    }
}

/// Why a ping could not be sent or its answer read.
#[derive(Debug, thiserror::Error)]
#[error("pinging window {window:#x}: {detail}")]
pub struct PingError {
    window: u64,
    detail: String,
}

impl Ping {
    /// Pings top-level client window `window` of `display` (`None`: `DISPLAY`). `Ok(None)`
    /// when the window does not take part in pings (no `_NET_WM_PING` in its
    /// `WM_PROTOCOLS`).
    pub fn send(display: Option<&str>, window: u64) -> Result<Option<Ping>, PingError> {
        let fail = |detail: String| PingError { window, detail };
        let id = Window::try_from(window).map_err(|_| fail("not an X window id".into()))?;
        let (conn, screen) = x11rb::connect(display).map_err(|e| fail(e.to_string()))?;
        let root = conn.setup().roots[screen].root;
        Ping::start(conn, root, id).map_err(|e| fail(e.to_string()))
    }

    fn start(conn: RustConnection, root: Window, window: Window) -> Result<Option<Ping>, ReplyOrIdError> {
        let protocols = conn.intern_atom(false, b"WM_PROTOCOLS")?;
        let ping = conn.intern_atom(false, b"_NET_WM_PING")?;
        let (protocols, ping) = (protocols.reply()?.atom, ping.reply()?.atom);
        let listed = conn.get_property(false, window, protocols, AtomEnum::ATOM, 0, 64)?.reply()?;
        if !listed.value32().is_some_and(|mut atoms| atoms.any(|a| a == ping)) {
            return Ok(None);
        }
        let stamp = server_time(&conn, root)?;
        // The answer goes to the root window, to whoever listens for its children's changes
        // (GTK sends it so) or for its own (Qt does): both, or Qt's answer never arrives.
        let listen =
            ChangeWindowAttributesAux::new().event_mask(EventMask::SUBSTRUCTURE_NOTIFY | EventMask::STRUCTURE_NOTIFY);
        conn.change_window_attributes(root, &listen)?.check()?;
        let event = ClientMessageEvent::new(32, window, protocols, [ping, stamp, window, 0, 0]);
        conn.send_event(false, window, EventMask::NO_EVENT, event)?;
        conn.flush()?;
        Ok(Some(Ping { conn, window, stamp, protocols, ping, answered: false.into() }))
    }

    /// Whether the application has answered (never waits). Once it has, always.
    pub fn answered(&self) -> Result<bool, PingError> {
        use std::sync::atomic::Ordering;
        if self.answered.load(Ordering::Relaxed) {
            return Ok(true);
        }
        let fail = |e: &dyn std::fmt::Display| PingError { window: self.window.into(), detail: e.to_string() };
        while let Some(event) = self.conn.poll_for_event().map_err(|e| fail(&e))? {
            if let Event::ClientMessage(m) = event
                && m.type_ == self.protocols
                && m.format == 32
            {
                let [what, stamp, window, ..] = m.data.as_data32();
                if what == self.ping && stamp == self.stamp && window == self.window {
                    self.answered.store(true, Ordering::Relaxed);
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}

/// The server's time now, which a ping carries (ICCCM's way: an empty append to a
/// property of a window of one's own, whose change event holds the time).
fn server_time(conn: &RustConnection, root: Window) -> Result<u32, ReplyOrIdError> {
    let own = conn.generate_id()?;
    let aux = CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE);
    conn.create_window(0, own, root, -1, -1, 1, 1, 0, WindowClass::INPUT_ONLY, 0, &aux)?;
    conn.change_property(PropMode::APPEND, own, AtomEnum::WM_NAME, AtomEnum::STRING, 8, 0, &[])?;
    conn.flush()?;
    loop {
        if let Event::PropertyNotify(p) = conn.wait_for_event()?
            && p.window == own
        {
            conn.destroy_window(own)?;
            return Ok(p.time);
        }
    }
}
