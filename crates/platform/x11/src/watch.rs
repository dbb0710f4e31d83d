//! A person's input as the X server sees it: every button press and key press on the
//! display, whoever's window receives it, for recording a task as it is done.
//!
//! XInput 2's raw events (`XI_RawButtonPress`, `XI_RawKeyPress`, `XI_RawKeyRelease`,
//! selected on the root for the master devices) are delivered to any client that asks,
//! beside the normal delivery to the window under the pointer or with the focus: watching
//! takes nothing from the applications and changes nothing they see (unlike a grab), and
//! synthetic input (XTEST: xdotool, Deft's own) arrives the same way as a person's. A raw
//! event carries no position, so a press is placed by asking where the pointer is as it
//! arrives (a person's press lasts tens of milliseconds; the pointer is still there).
//! Keys are translated with the server's keyboard mapping and the modifiers held, which
//! are followed from the raw presses and releases of the modifier keys themselves.

use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xinput::{self, ConnectionExt as _, XIEventMask};
use x11rb::protocol::xproto::{ConnectionExt as _, Keycode, Window};
use x11rb::rust_connection::RustConnection;

/// What a person did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Watched {
    /// A pointer button went down at this point of the screen (root coordinates).
    Press {
        /// 1 left, 2 middle, 3 right (4-7 are the wheel).
        button: u8,
        /// Where the pointer was.
        at: (i32, i32),
    },
    /// A key went down (modifier keys themselves are not reported: they are in `held`).
    Key {
        /// Its keysym at the level the held Shift selects (X's keysym numbering).
        keysym: u32,
        /// The modifiers held while it went down.
        held: Held,
    },
}

/// Modifiers held while a key goes down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// Either Shift.
    pub shift: bool,
    /// Either Control.
    pub ctrl: bool,
    /// Either Alt (or Meta).
    pub alt: bool,
    /// Either Super.
    pub super_key: bool,
}

/// Why watching failed.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// No display server.
    #[error("could not connect to the X server to watch input: {0}")]
    Connect(#[from] x11rb::errors::ConnectError),
    /// The server has no XInput 2 (raw events need 2.1 or later).
    #[error("the X server has no XInput 2.1 (its raw events are how input is watched): {0}")]
    NoXInput(String),
    /// The connection failed.
    #[error("the X server stopped answering while input was watched: {0}")]
    Server(String),
}

fn server<E: std::fmt::Display>(e: E) -> WatchError {
    WatchError::Server(e.to_string())
}

/// Input on one display, watched over a connection of its own.
pub struct InputWatch {
    conn: RustConnection,
    root: Window,
    min_keycode: Keycode,
    per_keycode: usize,
    keysyms: Vec<u32>,
    held: Held,
}

impl InputWatch {
    /// Starts watching the display `display` (`None`: `DISPLAY`).
    pub fn connect(display: Option<&str>) -> Result<InputWatch, WatchError> {
        let (conn, screen) = x11rb::connect(display)?;
        let root = conn.setup().roots[screen].root;
        let version = conn.xinput_xi_query_version(2, 2).map_err(server)?.reply().map_err(server)?;
        if (version.major_version, version.minor_version) < (2, 1) {
            let got = format!("version {}.{}", version.major_version, version.minor_version);
            return Err(WatchError::NoXInput(got));
        }
        let mask = XIEventMask::RAW_BUTTON_PRESS | XIEventMask::RAW_KEY_PRESS | XIEventMask::RAW_KEY_RELEASE;
        let all_masters = xinput::Device::ALL_MASTER.into();
        conn.xinput_xi_select_events(root, &[xinput::EventMask { deviceid: all_masters, mask: vec![mask] }])
            .map_err(server)?
            .check()
            .map_err(server)?;
        let (min, max) = (conn.setup().min_keycode, conn.setup().max_keycode);
        let map = conn.get_keyboard_mapping(min, max - min + 1).map_err(server)?.reply().map_err(server)?;
        Ok(InputWatch {
            root,
            min_keycode: min,
            per_keycode: usize::from(map.keysyms_per_keycode),
            keysyms: map.keysyms,
            held: Held::default(),
            conn,
        })
    }

    /// The next press or key, waiting at most `wait` (`None` when nothing came).
    pub fn next(&mut self, wait: Duration) -> Result<Option<Watched>, WatchError> {
        let deadline = Instant::now() + wait;
        loop {
            let Some(event) = self.next_event(deadline)? else { return Ok(None) };
            match event {
                Event::XinputRawButtonPress(e) => {
                    let Ok(button) = u8::try_from(e.detail) else { continue };
                    let p = self.conn.query_pointer(self.root).map_err(server)?.reply().map_err(server)?;
                    return Ok(Some(Watched::Press { button, at: (i32::from(p.root_x), i32::from(p.root_y)) }));
                }
                Event::XinputRawKeyPress(e) => {
                    let Some(sym) = self.keysym(e.detail, false) else { continue };
                    if self.modifier(sym, true) {
                        continue;
                    }
                    let keysym = if self.held.shift { self.keysym(e.detail, true).unwrap_or(sym) } else { sym };
                    return Ok(Some(Watched::Key { keysym, held: self.held }));
                }
                Event::XinputRawKeyRelease(e) => {
                    if let Some(sym) = self.keysym(e.detail, false) {
                        self.modifier(sym, false);
                    }
                }
                _ => {}
            }
        }
    }

    /// The keysym of `keycode` at the unshifted or shifted level (a letter's shifted level
    /// is often left empty: then its upper case).
    fn keysym(&self, keycode: u32, shifted: bool) -> Option<u32> {
        let index = usize::try_from(keycode).ok()?.checked_sub(usize::from(self.min_keycode))?;
        let row = self.keysyms.get(index * self.per_keycode..(index + 1) * self.per_keycode)?;
        let base = *row.first().filter(|s| **s != 0)?;
        if !shifted {
            return Some(base);
        }
        match row.get(1).copied().filter(|s| *s != 0) {
            Some(s) => Some(s),
            None if (u32::from(b'a')..=u32::from(b'z')).contains(&base) => Some(base - 0x20),
            None => Some(base),
        }
    }

    /// Follows a modifier key going down or up; false when `sym` is no modifier.
    fn modifier(&mut self, sym: u32, down: bool) -> bool {
        let slot = match sym {
            0xffe1 | 0xffe2 => &mut self.held.shift,
            0xffe3 | 0xffe4 => &mut self.held.ctrl,
            // Meta_L/R and Alt_L/R.
            0xffe7..=0xffea => &mut self.held.alt,
            0xffeb | 0xffec => &mut self.held.super_key,
            // Caps Lock, Num Lock, AltGr: held, but no chord of Deft's names them.
            0xffe5 | 0xff7f | 0xfe03 => return true,
            _ => return false,
        };
        *slot = down;
        true
    }

    fn next_event(&self, deadline: Instant) -> Result<Option<Event>, WatchError> {
        crate::wait::next_event(&self.conn, deadline).map_err(server)
    }
}
