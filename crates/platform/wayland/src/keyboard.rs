//! A virtual keyboard on a wlroots compositor (`zwp_virtual_keyboard_v1`): keys by their
//! Linux input code, with the modifiers sent explicitly (the compositor hands the client
//! the modifier state this keyboard declares), each input followed by a round trip.
//!
//! The protocol wants an XKB keymap, passed as a file descriptor (`SCM_RIGHTS`): the one
//! here is the US layout as an X server compiles it (`xkbcomp -xkb` of Xvfb's default
//! "evdev+aliases(qwerty)", "pc+us+inet(evdev)"; xkeyboard-config data, MIT licence).

use std::io::Write;
use std::os::fd::AsFd;
use std::path::Path;

use crate::client::Client;
use crate::registry::request;

/// The US keymap handed to the compositor.
const KEYMAP: &str = include_str!("keymap_us.xkb");

const MANAGER: &str = "zwp_virtual_keyboard_manager_v1";
/// `wl_keyboard.keymap_format.xkb_v1`.
const XKB_V1: u32 = 1;

/// The modifier masks of the keymap's real modifiers.
pub const SHIFT: u32 = 1;
/// Control.
pub const CONTROL: u32 = 4;
/// Mod1: Alt.
pub const ALT: u32 = 8;
/// Mod4: Super.
pub const SUPER: u32 = 64;

/// A virtual keyboard, connected for its lifetime.
pub struct VirtualKeyboard {
    client: Client,
    keyboard: u32,
}

impl std::fmt::Debug for VirtualKeyboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VirtualKeyboard({})", self.client.socket().display())
    }
}

impl VirtualKeyboard {
    /// A virtual keyboard with the US keymap on the compositor at `socket`. Fails when it
    /// does not offer `zwp_virtual_keyboard_manager_v1` or a seat.
    pub fn connect(socket: &Path) -> Result<VirtualKeyboard, String> {
        let mut client = Client::connect(socket)?;
        let (seat, mut out) = client.bind("wl_seat", 1)?;
        let (manager, bound) = client.bind(MANAGER, 1)?;
        out.extend(bound);
        // create_virtual_keyboard(seat, new_id)
        let keyboard = client.take_id();
        let mut create = seat.to_ne_bytes().to_vec();
        create.extend_from_slice(&keyboard.to_ne_bytes());
        out.extend(request(manager, 0, &create));
        client.send(&out)?;
        let mut kb = VirtualKeyboard { client, keyboard };
        kb.send_keymap()?;
        kb.client.round_trip(Vec::new())?;
        Ok(kb)
    }

    /// `keymap(format, fd, size)`: the keymap in a sealed memory file, its descriptor passed
    /// beside the message (the body holds only the format and the size).
    fn send_keymap(&mut self) -> Result<(), String> {
        use rustix::fs::{MemfdFlags, memfd_create};
        let text = format!("{KEYMAP}\0");
        let memfd = memfd_create("deft-keymap", MemfdFlags::CLOEXEC).map_err(|e| format!("memfd_create: {e}"))?;
        let mut file = std::fs::File::from(memfd);
        file.write_all(text.as_bytes()).map_err(|e| format!("writing the keymap: {e}"))?;
        let mut args = XKB_V1.to_ne_bytes().to_vec();
        args.extend_from_slice(&(text.len() as u32).to_ne_bytes());
        self.client.send_with_fd(&request(self.keyboard, 0, &args), file.as_fd())
    }

    /// Declares the modifiers held (`SHIFT | CONTROL`, ...).
    pub fn modifiers(&mut self, depressed: u32) -> Result<(), String> {
        let mut args = depressed.to_ne_bytes().to_vec();
        for v in [0u32, 0, 0] {
            args.extend_from_slice(&v.to_ne_bytes());
        }
        self.client.round_trip(request(self.keyboard, 2, &args))
    }

    /// Presses (`true`) or releases the key of Linux input code `code`.
    pub fn key(&mut self, code: u32, pressed: bool) -> Result<(), String> {
        let mut args = self.client.time().to_ne_bytes().to_vec();
        args.extend_from_slice(&code.to_ne_bytes());
        args.extend_from_slice(&u32::from(pressed).to_ne_bytes());
        self.client.round_trip(request(self.keyboard, 1, &args))
    }
}

impl Drop for VirtualKeyboard {
    fn drop(&mut self) {
        self.client.send_now(&request(self.keyboard, 3, &[]));
    }
}

/// The Linux input code of a character on the US layout, and whether it needs Shift.
/// `None` for a character the layout has no key for (the caller sets such text otherwise).
pub fn us_key(c: char) -> Option<(u32, bool)> {
    const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
    const LETTERS: [u32; 26] =
        [30, 48, 46, 32, 18, 33, 34, 35, 23, 36, 37, 38, 50, 49, 24, 25, 16, 19, 31, 20, 22, 47, 17, 45, 21, 44];
    if let Some(i) = LOWER.find(c) {
        return Some((LETTERS[i], false));
    }
    if let Some(i) = LOWER.find(c.to_ascii_lowercase()).filter(|_| c.is_ascii_uppercase()) {
        return Some((LETTERS[i], true));
    }
    const PLAIN: &str = "1234567890-=[];'`\\,./ \n\t";
    const SHIFTED: &str = "!@#$%^&*()_+{}:\"~|<>?";
    const PLAIN_CODES: [u32; 24] =
        [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 26, 27, 39, 40, 41, 43, 51, 52, 53, 57, 28, 15];
    const SHIFTED_CODES: [u32; 21] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 26, 27, 39, 40, 41, 43, 51, 52, 53];
    if let Some(i) = PLAIN.chars().position(|p| p == c) {
        return Some((PLAIN_CODES[i], false));
    }
    SHIFTED.chars().position(|p| p == c).map(|i| (SHIFTED_CODES[i], true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn us_keys_for_letters_digits_and_punctuation() {
        assert_eq!(us_key('a'), Some((30, false)));
        assert_eq!(us_key('A'), Some((30, true)));
        assert_eq!(us_key('z'), Some((44, false)));
        assert_eq!(us_key('0'), Some((11, false)));
        assert_eq!(us_key(')'), Some((11, true)));
        assert_eq!(us_key('?'), Some((53, true)));
        assert_eq!(us_key(' '), Some((57, false)));
        assert_eq!(us_key('\n'), Some((28, false)));
        assert_eq!(us_key('é'), None);
        assert!(KEYMAP.starts_with("xkb_keymap {") && KEYMAP.contains("pc+us+inet(evdev)"));
    }
}
