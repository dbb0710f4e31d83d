//! A virtual pointer on a wlroots compositor (`zwlr_virtual_pointer_v1`): absolute motion
//! over the output layout, buttons and the wheel, each followed by a round trip
//! (`wl_display.sync`) so that a call returns once the compositor has handled the input.
//!
//! The requests need no file descriptor, so the wire protocol is spoken directly, as
//! [`crate::probe`] does.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::registry::{DISPLAY, read_message, request};

/// The manager's interface, and the highest version of it used here.
const MANAGER: &str = "zwlr_virtual_pointer_manager_v1";
const MANAGER_VERSION: u32 = 2;

/// The registry's id: the first a client allocates (the display is 1).
const REGISTRY: u32 = 2;

/// Linux input event codes of the buttons (`BTN_LEFT`, `BTN_RIGHT`, `BTN_MIDDLE`).
pub const BTN_LEFT: u32 = 0x110;
/// `BTN_RIGHT`.
pub const BTN_RIGHT: u32 = 0x111;
/// `BTN_MIDDLE`.
pub const BTN_MIDDLE: u32 = 0x112;

/// How long the compositor may take to handle one input.
const ROUND_TRIP: Duration = Duration::from_secs(2);

/// A virtual pointer, connected for its lifetime.
pub struct VirtualPointer {
    socket: PathBuf,
    stream: std::os::unix::net::UnixStream,
    /// The output layout's size: absolute positions are given as fractions of it.
    extent: (u32, u32),
    /// The virtual pointer's object id.
    pointer: u32,
    /// The next object id to allocate: the compositor takes a client's new ids only in
    /// order, with no gap (it refuses any other as "invalid arguments").
    next_id: u32,
    started: Instant,
}

impl std::fmt::Debug for VirtualPointer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VirtualPointer({}, {}x{})", self.socket.display(), self.extent.0, self.extent.1)
    }
}

impl VirtualPointer {
    /// A virtual pointer on the compositor at `socket`, whose output layout is `extent`
    /// (width, height) pixels from its origin. Fails when the compositor does not offer
    /// `zwlr_virtual_pointer_manager_v1`.
    pub fn connect(socket: &Path, extent: (u32, u32)) -> Result<VirtualPointer, String> {
        let fail = |what: &str, e: std::io::Error| format!("{what} {}: {e}", socket.display());
        let stream = std::os::unix::net::UnixStream::connect(socket).map_err(|e| fail("cannot connect to", e))?;
        stream.set_read_timeout(Some(ROUND_TRIP)).map_err(|e| fail("cannot set a timeout on", e))?;
        let mut pointer = VirtualPointer {
            socket: socket.to_path_buf(),
            stream,
            extent,
            pointer: 0,
            next_id: REGISTRY + 1,
            started: Instant::now(),
        };
        // The registry, read to its end (a sync), to find the manager's global name.
        let mut out = request(DISPLAY, 1, &REGISTRY.to_ne_bytes());
        let callback = pointer.take_id();
        out.extend(request(DISPLAY, 0, &callback.to_ne_bytes()));
        pointer.stream.write_all(&out).map_err(|e| fail("cannot write to", e))?;
        let mut manager = None;
        loop {
            let (object, opcode, body) = read_message(&mut pointer.stream)?;
            match (object, opcode) {
                (REGISTRY, 0) => {
                    let (name, interface, version) = crate::registry::parse_named_global(&body)?;
                    if interface == MANAGER {
                        manager = Some((name, version.min(MANAGER_VERSION)));
                    }
                }
                (DISPLAY, 0) => return Err(crate::registry::display_error(&body)),
                (id, 0) if id == callback => break,
                _ => {}
            }
        }
        let (name, version) =
            manager.ok_or_else(|| format!("the compositor at {} offers no {MANAGER}", socket.display()))?;
        // wl_registry.bind(name, interface, version, new_id), then
        // create_virtual_pointer(seat: null for the default seat, new_id).
        let manager_id = pointer.take_id();
        let mut bind = name.to_ne_bytes().to_vec();
        bind.extend(crate::registry::string_arg(MANAGER));
        bind.extend_from_slice(&version.to_ne_bytes());
        bind.extend_from_slice(&manager_id.to_ne_bytes());
        let mut out = request(REGISTRY, 0, &bind);
        pointer.pointer = pointer.take_id();
        let mut create = 0u32.to_ne_bytes().to_vec();
        create.extend_from_slice(&pointer.pointer.to_ne_bytes());
        out.extend(request(manager_id, 0, &create));
        pointer.send(out)?;
        Ok(pointer)
    }

    fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Milliseconds since the pointer was made: the protocol's event times.
    fn time(&self) -> u32 {
        u32::try_from(self.started.elapsed().as_millis()).unwrap_or(u32::MAX)
    }

    /// Sends `requests`, then a round trip: returns once the compositor has handled them,
    /// or with its protocol error.
    fn send(&mut self, mut requests: Vec<u8>) -> Result<(), String> {
        let callback = self.take_id();
        requests.extend(request(DISPLAY, 0, &callback.to_ne_bytes()));
        self.stream.write_all(&requests).map_err(|e| format!("cannot write to {}: {e}", self.socket.display()))?;
        loop {
            let (object, opcode, body) = read_message(&mut self.stream)?;
            match (object, opcode) {
                (DISPLAY, 0) => return Err(crate::registry::display_error(&body)),
                (id, 0) if id == callback => return Ok(()),
                _ => {}
            }
        }
    }

    /// Moves the pointer to `(x, y)` on the output layout.
    pub fn move_to(&mut self, x: u32, y: u32) -> Result<(), String> {
        let (w, h) = self.extent;
        if x >= w || y >= h {
            return Err(format!("({x}, {y}) is outside the {w}x{h} output layout"));
        }
        let mut args = self.time().to_ne_bytes().to_vec();
        for v in [x, y, w, h] {
            args.extend_from_slice(&v.to_ne_bytes());
        }
        let mut out = request(self.pointer, 1, &args);
        out.extend(request(self.pointer, 4, &[]));
        self.send(out)
    }

    /// Presses (`true`) or releases a button (`BTN_LEFT`, ...).
    pub fn button(&mut self, button: u32, pressed: bool) -> Result<(), String> {
        let mut args = self.time().to_ne_bytes().to_vec();
        args.extend_from_slice(&button.to_ne_bytes());
        args.extend_from_slice(&u32::from(pressed).to_ne_bytes());
        let mut out = request(self.pointer, 2, &args);
        out.extend(request(self.pointer, 4, &[]));
        self.send(out)
    }

    /// Turns the wheel by `clicks` notches (positive: down or right) on `axis` (0 vertical,
    /// 1 horizontal).
    pub fn wheel(&mut self, axis: u32, clicks: i32) -> Result<(), String> {
        let time = self.time();
        // A notch is 15 units of motion (libinput's convention), in 24.8 fixed point.
        let value = clicks.saturating_mul(15 * 256);
        let mut out = Vec::new();
        // axis_source(wheel = 0), axis_discrete(time, axis, value, discrete), frame.
        out.extend(request(self.pointer, 5, &0u32.to_ne_bytes()));
        let mut args = time.to_ne_bytes().to_vec();
        args.extend_from_slice(&axis.to_ne_bytes());
        args.extend_from_slice(&value.to_ne_bytes());
        args.extend_from_slice(&clicks.to_ne_bytes());
        out.extend(request(self.pointer, 7, &args));
        out.extend(request(self.pointer, 4, &[]));
        self.send(out)
    }
}

impl Drop for VirtualPointer {
    fn drop(&mut self) {
        // destroy: the compositor removes the device; nothing to wait for.
        let _ = self.stream.write_all(&request(self.pointer, 8, &[]));
    }
}
