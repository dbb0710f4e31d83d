//! A virtual pointer on a wlroots compositor (`zwlr_virtual_pointer_v1`): absolute motion
//! over the output layout, buttons and the wheel, each followed by a round trip
//! (`wl_display.sync`) so that a call returns once the compositor has handled the input.
//!
//! The requests need no file descriptor, so the wire protocol is spoken directly, as
//! [`crate::probe`] does.

use std::path::Path;

use crate::client::Client;
use crate::registry::request;

/// The manager's interface, and the highest version of it used here.
const MANAGER: &str = "zwlr_virtual_pointer_manager_v1";
const MANAGER_VERSION: u32 = 2;

/// Linux input event codes of the buttons (`BTN_LEFT`, `BTN_RIGHT`, `BTN_MIDDLE`).
pub const BTN_LEFT: u32 = 0x110;
/// `BTN_RIGHT`.
pub const BTN_RIGHT: u32 = 0x111;
/// `BTN_MIDDLE`.
pub const BTN_MIDDLE: u32 = 0x112;

/// A virtual pointer, connected for its lifetime.
pub struct VirtualPointer {
    client: Client,
    /// The output layout's size: absolute positions are given as fractions of it.
    extent: (u32, u32),
    /// The virtual pointer's object id.
    pointer: u32,
}

impl std::fmt::Debug for VirtualPointer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VirtualPointer({}, {}x{})", self.client.socket().display(), self.extent.0, self.extent.1)
    }
}

impl VirtualPointer {
    /// A virtual pointer on the compositor at `socket`, whose output layout is `extent`
    /// (width, height) pixels from its origin. Fails when the compositor does not offer
    /// `zwlr_virtual_pointer_manager_v1`.
    pub fn connect(socket: &Path, extent: (u32, u32)) -> Result<VirtualPointer, String> {
        let mut client = Client::connect(socket)?;
        let (manager, mut out) = client.bind(MANAGER, MANAGER_VERSION)?;
        // create_virtual_pointer(seat: null for the default seat, new_id)
        let pointer = client.take_id();
        let mut create = 0u32.to_ne_bytes().to_vec();
        create.extend_from_slice(&pointer.to_ne_bytes());
        out.extend(request(manager, 0, &create));
        client.round_trip(out)?;
        Ok(VirtualPointer { client, extent, pointer })
    }

    /// Moves the pointer to `(x, y)` on the output layout.
    pub fn move_to(&mut self, x: u32, y: u32) -> Result<(), String> {
        let (w, h) = self.extent;
        if x >= w || y >= h {
            return Err(format!("({x}, {y}) is outside the {w}x{h} output layout"));
        }
        let mut args = self.client.time().to_ne_bytes().to_vec();
        for v in [x, y, w, h] {
            args.extend_from_slice(&v.to_ne_bytes());
        }
        let mut out = request(self.pointer, 1, &args);
        out.extend(request(self.pointer, 4, &[]));
        self.client.round_trip(out)
    }

    /// Presses (`true`) or releases a button (`BTN_LEFT`, ...).
    pub fn button(&mut self, button: u32, pressed: bool) -> Result<(), String> {
        let mut args = self.client.time().to_ne_bytes().to_vec();
        args.extend_from_slice(&button.to_ne_bytes());
        args.extend_from_slice(&u32::from(pressed).to_ne_bytes());
        let mut out = request(self.pointer, 2, &args);
        out.extend(request(self.pointer, 4, &[]));
        self.client.round_trip(out)
    }

    /// Turns the wheel by `clicks` notches (positive: down or right) on `axis` (0 vertical,
    /// 1 horizontal).
    pub fn wheel(&mut self, axis: u32, clicks: i32) -> Result<(), String> {
        let time = self.client.time();
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
        self.client.round_trip(out)
    }
}

impl Drop for VirtualPointer {
    fn drop(&mut self) {
        // destroy: the compositor removes the device; nothing to wait for.
        self.client.send_now(&request(self.pointer, 8, &[]));
    }
}
