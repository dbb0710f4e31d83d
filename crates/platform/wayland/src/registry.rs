//! The compositor's registry, read once over the Wayland wire protocol.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One global the compositor offers: an interface and the highest version it speaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    /// The compositor's name for it, which a client binds it by.
    pub name: u32,
    /// The interface's name (`wl_seat`, `zwlr_virtual_pointer_manager_v1`).
    pub interface: String,
    /// The highest version of it the compositor speaks.
    pub version: u32,
}

/// Which compositor family a session runs, told by the globals only it offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compositor {
    /// wlroots (sway, Hyprland's older releases, labwc, river, Wayfire): `zwlr_*` globals.
    Wlroots,
    /// GNOME's mutter: `gtk_shell1` without any `zwlr_*` or `org_kde_*` global.
    Mutter,
    /// KDE's KWin: `org_kde_*` globals.
    KWin,
    /// None of the above.
    Other,
}

impl Compositor {
    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Compositor::Wlroots => "a wlroots compositor (sway, labwc, river, ...)",
            Compositor::Mutter => "GNOME's mutter",
            Compositor::KWin => "KDE's KWin",
            Compositor::Other => "an unrecognised compositor",
        }
    }
}

/// What a compositor's registry listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registry {
    /// The socket it was read from.
    pub socket: PathBuf,
    /// Every global, in the order the compositor announced them.
    pub globals: Vec<Global>,
    /// The compositor's process, as the socket's peer credentials tell it (Linux).
    pub compositor_pid: Option<u32>,
}

impl Registry {
    /// Whether the compositor offers `interface` (at any version).
    pub fn offers(&self, interface: &str) -> bool {
        self.globals.iter().any(|g| g.interface == interface)
    }

    /// The compositor family, from the globals only it offers. Families borrow each
    /// other's protocols (sway offers KDE's `org_kde_kwin_idle` and server decorations,
    /// KWin offers wlroots' layer shell and data control), so each is told by protocols
    /// that are its own: KWin's fake input and Plasma's shell, wlroots' virtual pointer
    /// and screencopy, mutter's `gtk_shell1` (checked last: phoc, a wlroots compositor,
    /// offers it too).
    pub fn compositor(&self) -> Compositor {
        let any = |names: &[&str]| names.iter().any(|n| self.offers(n));
        if any(&[
            "org_kde_kwin_fake_input",
            "org_kde_plasma_shell",
            "kde_output_device_v2",
            "org_kde_plasma_window_management",
        ]) {
            Compositor::KWin
        } else if any(&[
            "zwlr_virtual_pointer_manager_v1",
            "zwlr_screencopy_manager_v1",
            "zwlr_export_dmabuf_manager_v1",
        ]) {
            Compositor::Wlroots
        } else if self.offers("gtk_shell1") {
            Compositor::Mutter
        } else {
            Compositor::Other
        }
    }
}

/// Why a compositor could not be read.
#[derive(Debug)]
pub enum ProbeError {
    /// No socket there, or it refused the connection.
    Connect {
        /// The socket tried.
        socket: PathBuf,
        /// What connecting said.
        error: std::io::Error,
    },
    /// It connected but did not answer within the probe's time, or broke the protocol.
    Protocol {
        /// The socket read.
        socket: PathBuf,
        /// What went wrong, in words.
        detail: String,
    },
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::Connect { socket, error } => {
                write!(f, "cannot connect to the Wayland compositor at {}: {error}", socket.display())
            }
            ProbeError::Protocol { socket, detail } => {
                write!(f, "the Wayland compositor at {} did not list its globals: {detail}", socket.display())
            }
        }
    }
}

impl std::error::Error for ProbeError {}

/// The socket a Wayland client of this session connects to: `display` (or
/// `WAYLAND_DISPLAY`) as an absolute path, or under `XDG_RUNTIME_DIR`; `None` when neither
/// names one.
pub fn socket_path(display: Option<&str>) -> Option<PathBuf> {
    let name = display.map(str::to_string).or_else(|| std::env::var("WAYLAND_DISPLAY").ok())?;
    if name.is_empty() {
        return None;
    }
    let path = Path::new(&name);
    if path.is_absolute() {
        return Some(path.to_path_buf());
    }
    let dir = std::env::var_os("XDG_RUNTIME_DIR")?;
    Some(Path::new(&dir).join(path))
}

/// How long a compositor may take to list its globals: it answers from memory, so a
/// compositor that takes longer is stopped or is not one.
const PROBE_TIME: Duration = Duration::from_secs(2);

/// Reads the registry of the compositor at `socket`.
#[cfg(unix)]
pub fn probe(socket: &Path) -> Result<Registry, ProbeError> {
    use std::os::unix::net::UnixStream;
    let mut stream =
        UnixStream::connect(socket).map_err(|error| ProbeError::Connect { socket: socket.to_path_buf(), error })?;
    let protocol = |detail: String| ProbeError::Protocol { socket: socket.to_path_buf(), detail };
    stream.set_read_timeout(Some(PROBE_TIME)).map_err(|e| protocol(e.to_string()))?;
    stream.set_write_timeout(Some(PROBE_TIME)).map_err(|e| protocol(e.to_string()))?;
    let globals = list_globals(&mut stream).map_err(protocol)?;
    #[cfg(target_os = "linux")]
    let compositor_pid = rustix::net::sockopt::socket_peercred(&stream)
        .ok()
        .and_then(|cred| u32::try_from(cred.pid.as_raw_nonzero().get()).ok());
    #[cfg(not(target_os = "linux"))]
    let compositor_pid = None;
    Ok(Registry { socket: socket.to_path_buf(), globals, compositor_pid })
}

/// Wayland sockets are Unix sockets: elsewhere there is no compositor to read.
#[cfg(not(unix))]
pub fn probe(socket: &Path) -> Result<Registry, ProbeError> {
    let error = std::io::Error::new(std::io::ErrorKind::Unsupported, "Wayland runs on Unix systems only");
    Err(ProbeError::Connect { socket: socket.to_path_buf(), error })
}

/// Object ids this client allocates: the display is 1 by the protocol.
pub(crate) const DISPLAY: u32 = 1;
const REGISTRY: u32 = 2;
const CALLBACK: u32 = 3;
/// The first id free once the registry has been listed.
pub(crate) const FIRST_FREE_ID: u32 = CALLBACK + 1;

/// Asks for the registry and a sync callback, then reads events until the callback is done.
/// Generic over the stream so the tests can play a compositor.
pub(crate) fn list_globals(stream: &mut (impl Read + Write)) -> Result<Vec<Global>, String> {
    // wl_display.get_registry (opcode 1, new_id) then wl_display.sync (opcode 0, new_id):
    // the compositor sends every global before the callback's done.
    let mut out = request(DISPLAY, 1, &REGISTRY.to_ne_bytes());
    out.extend(request(DISPLAY, 0, &CALLBACK.to_ne_bytes()));
    stream.write_all(&out).map_err(|e| format!("sending the request: {e}"))?;
    let mut globals = Vec::new();
    loop {
        let (object, opcode, body) = read_message(stream)?;
        match (object, opcode) {
            // wl_registry.global(name: uint, interface: string, version: uint)
            (REGISTRY, 0) => globals.push(parse_global(&body)?),
            // wl_callback.done: everything before it has been sent.
            (CALLBACK, 0) => return Ok(globals),
            (DISPLAY, 0) => return Err(display_error(&body)),
            // wl_display.delete_id, wl_registry.global_remove: nothing to keep.
            _ => {}
        }
    }
}

pub(crate) fn request(object: u32, opcode: u16, args: &[u8]) -> Vec<u8> {
    let size = (8 + args.len()) as u32;
    let mut msg = Vec::with_capacity(size as usize);
    msg.extend_from_slice(&object.to_ne_bytes());
    msg.extend_from_slice(&((size << 16) | u32::from(opcode)).to_ne_bytes());
    msg.extend_from_slice(args);
    msg
}

/// The longest message a compositor may send (the protocol's own limit is 4096 bytes).
const MAX_MESSAGE: usize = 4096;

pub(crate) fn read_message(stream: &mut impl Read) -> Result<(u32, u16, Vec<u8>), String> {
    let mut header = [0u8; 8];
    stream.read_exact(&mut header).map_err(|e| format!("reading an event: {e}"))?;
    let (object, opcode, mut body) = parse_header(&header)?;
    stream.read_exact(&mut body).map_err(|e| format!("reading an event: {e}"))?;
    Ok((object, opcode, body))
}

/// An event's header: its object, its opcode, and a zeroed body of the size it announces.
pub(crate) fn parse_header(header: &[u8; 8]) -> Result<(u32, u16, Vec<u8>), String> {
    let object = u32::from_ne_bytes([header[0], header[1], header[2], header[3]]);
    let word = u32::from_ne_bytes([header[4], header[5], header[6], header[7]]);
    let (size, opcode) = ((word >> 16) as usize, (word & 0xffff) as u16);
    if !(8..=MAX_MESSAGE).contains(&size) || size % 4 != 0 {
        return Err(format!("an event of {size} bytes is not a Wayland message"));
    }
    Ok((object, opcode, vec![0u8; size - 8]))
}

fn parse_global(body: &[u8]) -> Result<Global, String> {
    let (name, interface, version) = parse_named_global(body)?;
    Ok(Global { name, interface, version })
}

/// A `wl_registry.global` event's arguments: the global's name (to bind it by), its
/// interface and version.
pub(crate) fn parse_named_global(body: &[u8]) -> Result<(u32, String, u32), String> {
    let word = |b: &[u8]| -> Result<u32, String> {
        b.get(..4).map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]])).ok_or_else(|| "a short global".to_string())
    };
    let name = word(body)?;
    let (interface, used) = read_string(body.get(4..).ok_or("a short global")?)?;
    let version = word(body.get(4 + used..).ok_or("a short global")?)?;
    Ok((name, interface, version))
}

/// A `wl_display.error` event (object, code, message) in words.
pub(crate) fn display_error(body: &[u8]) -> String {
    let message = body.get(8..).and_then(|b| read_string(b).ok()).map(|(s, _)| s).unwrap_or_default();
    format!("the compositor refused a request: {message}")
}

/// A string argument: its length with the NUL, the bytes, the NUL, padding to 4.
pub(crate) fn string_arg(s: &str) -> Vec<u8> {
    let with_nul = s.len() + 1;
    let mut out = (with_nul as u32).to_ne_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out.resize(4 + with_nul.div_ceil(4) * 4, 0);
    out
}

/// A protocol string: its length with the NUL, the bytes, padding to 4. Returns the string
/// and the bytes it took.
pub(crate) fn read_string(b: &[u8]) -> Result<(String, usize), String> {
    let len = b.get(..4).map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]) as usize).ok_or("a short string")?;
    let padded = len.div_ceil(4) * 4;
    let bytes = b.get(4..4 + len).ok_or("a string past its message")?;
    let text = bytes.strip_suffix(&[0]).ok_or("a string without its NUL")?;
    let text = String::from_utf8(text.to_vec()).map_err(|_| "a string that is not UTF-8")?;
    Ok((text, 4 + padded))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    /// A compositor's side of the conversation, written out: `globals`, then the done.
    fn answers(globals: &[(&str, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, (interface, version)) in globals.iter().enumerate() {
            let mut args = (i as u32 + 1).to_ne_bytes().to_vec();
            let with_nul = interface.len() + 1;
            args.extend_from_slice(&(with_nul as u32).to_ne_bytes());
            args.extend_from_slice(interface.as_bytes());
            args.resize(args.len() + (with_nul.div_ceil(4) * 4 - interface.len()), 0);
            args.extend_from_slice(&version.to_ne_bytes());
            out.extend(request(REGISTRY, 0, &args));
        }
        out.extend(request(DISPLAY, 1, &3u32.to_ne_bytes())); // a delete_id on the way
        out.extend(request(CALLBACK, 0, &7u32.to_ne_bytes()));
        out
    }

    /// Reads what was answered, and keeps what the client wrote.
    struct Played {
        answers: Cursor<Vec<u8>>,
        written: Vec<u8>,
    }

    impl Read for Played {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.answers.read(buf)
        }
    }

    impl Write for Played {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.written.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn registry(globals: &[(&str, u32)]) -> Registry {
        let mut played = Played { answers: Cursor::new(answers(globals)), written: Vec::new() };
        let globals = list_globals(&mut played).unwrap();
        // get_registry(new_id 2) and sync(new_id 3) on the display, 12 bytes each.
        assert_eq!(
            played.written,
            [request(DISPLAY, 1, &2u32.to_ne_bytes()), request(DISPLAY, 0, &3u32.to_ne_bytes())].concat()
        );
        Registry { socket: PathBuf::from("/run/test"), globals, compositor_pid: None }
    }

    #[test]
    fn globals_are_read_until_the_sync_is_done_and_name_the_compositor() {
        let sway = registry(&[("wl_compositor", 6), ("zwlr_virtual_pointer_manager_v1", 2), ("xdg_wm_base", 5)]);
        assert_eq!(sway.globals.len(), 3);
        assert_eq!(
            sway.globals[1],
            Global { name: 2, interface: "zwlr_virtual_pointer_manager_v1".into(), version: 2 }
        );
        assert_eq!(sway.compositor(), Compositor::Wlroots);
        assert!(sway.offers("xdg_wm_base"));
        assert!(!sway.offers("gtk_shell1"));
        assert_eq!(registry(&[("wl_compositor", 6), ("gtk_shell1", 5)]).compositor(), Compositor::Mutter);
        assert_eq!(
            registry(&[("org_kde_kwin_fake_input", 4), ("zwlr_layer_shell_v1", 4)]).compositor(),
            Compositor::KWin
        );
        assert_eq!(registry(&[("wl_compositor", 6)]).compositor(), Compositor::Other);
    }

    /// Every global sway 1.7 (Debian 12) listed on a headless output: it borrows KDE's
    /// idle and server-decoration protocols, and is still wlroots.
    #[test]
    fn sway_is_wlroots_though_it_offers_kde_protocols() {
        let listed = "wl_shm wl_compositor wl_subcompositor wl_data_device_manager zwlr_gamma_control_manager_v1 \
            zxdg_output_manager_v1 org_kde_kwin_idle zwp_idle_inhibit_manager_v1 zwlr_layer_shell_v1 xdg_wm_base \
            zwp_tablet_manager_v2 org_kde_kwin_server_decoration_manager zxdg_decoration_manager_v1 \
            zwp_relative_pointer_manager_v1 zwp_pointer_constraints_v1 wp_presentation zwlr_output_manager_v1 \
            zwlr_output_power_manager_v1 zwp_input_method_manager_v2 zwp_text_input_manager_v3 \
            zwlr_foreign_toplevel_manager_v1 zwlr_export_dmabuf_manager_v1 zwlr_screencopy_manager_v1 \
            zwlr_data_control_manager_v1 zwp_primary_selection_device_manager_v1 wp_viewporter zxdg_exporter_v1 \
            zxdg_importer_v1 zxdg_exporter_v2 zxdg_importer_v2 xdg_activation_v1 zwp_virtual_keyboard_manager_v1 \
            zwlr_virtual_pointer_manager_v1 zwlr_input_inhibit_manager_v1 zwp_keyboard_shortcuts_inhibit_manager_v1 \
            wl_seat zwp_pointer_gestures_v1 wl_output";
        let globals: Vec<(&str, u32)> = listed.split_whitespace().map(|g| (g, 1)).collect();
        assert_eq!(registry(&globals).compositor(), Compositor::Wlroots);
    }

    #[test]
    fn a_stream_that_is_not_a_compositor_is_an_error_not_a_hang() {
        let mut played = Played { answers: Cursor::new(b"HTTP/1.1 400 Bad Request\r\n".to_vec()), written: Vec::new() };
        let err = list_globals(&mut played).unwrap_err();
        assert!(err.contains("is not a Wayland message"), "{err}");
        let mut closed = Played { answers: Cursor::new(Vec::new()), written: Vec::new() };
        assert!(list_globals(&mut closed).unwrap_err().contains("reading an event"));
    }

    #[test]
    fn the_socket_is_found_as_clients_find_it() {
        assert_eq!(socket_path(Some("/tmp/w/wayland-9")), Some(PathBuf::from("/tmp/w/wayland-9")));
        assert_eq!(socket_path(Some("")), None);
    }

    #[test]
    fn no_socket_is_a_connect_error_naming_it() {
        let err = probe(Path::new("/nonexistent/deft-wayland-0")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/deft-wayland-0"), "{err}");
    }
}
