//! Deft's Wayland platform code.
//!
//! Today: [`probe`], which connects to a Wayland compositor's socket, asks its registry for
//! every global it offers (one `wl_display.get_registry`, then a `wl_display.sync` to know
//! the list is complete) and names the compositor from what it offers, never from
//! environment variables alone (a `WAYLAND_DISPLAY` left over from another session names a
//! socket, not a compositor). The wire protocol is a few fixed messages, so this speaks it
//! directly over the Unix socket instead of linking libwayland.
//!
//! [`sway`]: sway's windows over its IPC (pid, app id, title, where the content is on the
//! output layout), which the Wayland protocol never tells a client, and focusing one.
//!
//! [`VirtualPointer`] and [`VirtualKeyboard`]: input on wlroots compositors;
//! [`Screencopy`]: their outputs' pixels; [`selection`]: text pasted with a middle click
//! through the primary selection, set with their data-control protocol.
//!
//! **Architecture invariant:** knows nothing of accessibility, of Deft's capture or input traits, or of
//! verification; it says what a session offers and speaks its protocols, and the desktop wiring above picks backends from that.

#[cfg(unix)]
mod client;
#[cfg(unix)]
pub mod gnome;
#[cfg(unix)]
mod keyboard;
#[cfg(unix)]
pub mod mutter;
#[cfg(unix)]
mod pointer;
#[cfg(unix)]
pub mod portal;
mod registry;
#[cfg(unix)]
mod screencopy;
#[cfg(unix)]
pub mod selection;
pub mod sway;
mod views;

#[cfg(unix)]
pub use keyboard::{ALT, CONTROL, SHIFT, SUPER, VirtualKeyboard, us_key};
#[cfg(unix)]
pub use pointer::{BTN_LEFT, BTN_MIDDLE, BTN_RIGHT, VirtualPointer};
pub use registry::{Compositor, Global, ProbeError, Registry, probe, socket_path};
#[cfg(unix)]
pub use screencopy::{Image, Output, Screencopy};
pub use views::{GNOME_EXTENSION_INSTALL, View, ViewSource};
