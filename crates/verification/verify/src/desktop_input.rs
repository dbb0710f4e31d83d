//! Which input a desktop gets, decided once (for connecting, and for the doctor, which must
//! not start a portal session: that would show the person its consent dialog), and each
//! Wayland input backend connected with a few words on it. Part of the desktop's wiring
//! (`desktop.rs`).

use deft_input::{EnigoConfig, EnigoInput, Input};
use deft_wayland::{Compositor, Registry};

use crate::desktop::{Desktop, DesktopConfig, Session, no_display, wayland_refusal};

impl Desktop {
    /// The input backend of `session` and a few words on it, or why it has none.
    pub(crate) fn input_in(
        session: &Session,
        config: &DesktopConfig,
    ) -> Result<(Box<dyn Input + Send>, String), String> {
        match input_path(session)? {
            InputPath::X11 => {
                let input =
                    EnigoInput::connect(&EnigoConfig { display: config.display.clone(), ..EnigoConfig::default() })
                        .map_err(|e| e.to_string())?;
                Ok((Box::new(input), "XTest through enigo".to_string()))
            }
            InputPath::Mutter(refuse) => mutter_input(config).map_err(|e| refuse.say(&e)),
            InputPath::Portal(refuse) => portal_input(config).map_err(|e| refuse.say(&e)),
            InputPath::Wlr { socket, refuse } => {
                let ipc = deft_wayland::sway::ipc_socket(&socket)
                    .ok_or_else(|| refuse.say("no sway IPC socket to place windows and size the layout"))?;
                let extent = deft_wayland::sway::layout(&ipc).map_err(|e| refuse.say(&e.to_string()))?;
                wlr_input(&socket, extent).map_err(|e| refuse.say(&e))
            }
        }
    }

    /// What input `session` has, in words, for the doctor: as [`Desktop::input_in`]
    /// connects it, except the desktop portal, which is only asked what it offers (starting
    /// a session would show the person its consent dialog).
    pub(crate) fn input_words_in(session: &Session, config: &DesktopConfig) -> Result<String, String> {
        match input_path(session)? {
            #[cfg(unix)]
            InputPath::Portal(refuse) => {
                deft_wayland::portal::describe(config.session_bus.as_deref()).map_err(|e| refuse.say(&e))
            }
            _ => Desktop::input_in(session, config).map(|(_, words)| words),
        }
    }
}

/// Which input a session gets, decided once for connecting and for the doctor.
enum InputPath {
    X11,
    /// GNOME's RemoteDesktop API.
    Mutter(Refusal),
    /// The desktop portal's remote desktop: chosen, or the only way on this compositor.
    Portal(Refusal),
    /// wlroots' virtual pointer and keyboard, with sway's IPC for the layout.
    Wlr {
        socket: std::path::PathBuf,
        refuse: Refusal,
    },
}

/// What a Wayland session's refusal says around why its input could not be connected.
struct Refusal {
    registry: Registry,
    /// Said before the reason (`DEFT_INPUT=portal: `, the compositor's lack).
    before: String,
}

impl Refusal {
    fn say(&self, why: &str) -> String {
        wayland_refusal(&self.registry, &format!("{}{why}", self.before))
    }
}

/// The input `session` gets (`DEFT_INPUT=portal` chooses the portal on any Wayland
/// compositor), or why it gets none.
fn input_path(session: &Session) -> Result<InputPath, String> {
    let Session::Wayland(registry) = session else {
        return match session {
            Session::Unreachable { why } => Err(no_display(why)),
            _ => Ok(InputPath::X11),
        };
    };
    let refusal = |before: &str| Refusal { registry: registry.clone(), before: before.to_string() };
    if portal_chosen() {
        return Ok(InputPath::Portal(refusal("DEFT_INPUT=portal: ")));
    }
    if registry.compositor() == Compositor::Mutter {
        return Ok(InputPath::Mutter(refusal("")));
    }
    if !registry.offers("zwlr_virtual_pointer_manager_v1") {
        // No protocol Deft speaks: the desktop portal, where it has a remote desktop.
        return Ok(InputPath::Portal(refusal("this compositor offers no virtual pointer, and the desktop portal: ")));
    }
    Ok(InputPath::Wlr { socket: registry.socket.clone(), refuse: refusal("") })
}

/// The virtual pointer and keyboard of the wlroots compositor at `socket`, and a few words
/// on them.
#[cfg(unix)]
fn wlr_input(socket: &std::path::Path, extent: (u32, u32)) -> Result<(Box<dyn Input + Send>, String), String> {
    let input = deft_input::WlrInput::connect(socket, extent).map_err(|e| e.to_string())?;
    let words = match input.keys() {
        Ok(()) => "the pointer and the keys (US layout) through zwlr_virtual_pointer_v1 and zwp_virtual_keyboard_v1"
            .to_string(),
        Err(why) => format!("the pointer through zwlr_virtual_pointer_v1; {why}"),
    };
    Ok((Box::new(input), words))
}

/// GNOME's RemoteDesktop session on the session bus `config` names, and a few words on it.
#[cfg(unix)]
fn mutter_input(config: &DesktopConfig) -> Result<(Box<dyn Input + Send>, String), String> {
    let input = deft_input::RemoteDesktopInput::connect(config.session_bus.as_deref()).map_err(|e| e.to_string())?;
    let words = format!(
        "the pointer (over {}) and the keys (as keysyms, in the session's own layout) through GNOME's \
         RemoteDesktop API (org.gnome.Mutter.RemoteDesktop)",
        input.monitor_words()
    );
    Ok((Box::new(input), words))
}

#[cfg(not(unix))]
fn mutter_input(_config: &DesktopConfig) -> Result<(Box<dyn Input + Send>, String), String> {
    Err("Wayland runs on Unix systems only".into())
}

/// `DEFT_INPUT=portal`: input through the desktop portal even where the compositor has a
/// protocol Deft speaks (a compositor that restricts it, or a person who wants the
/// portal's consent to stand for Deft's input).
fn portal_chosen() -> bool {
    std::env::var("DEFT_INPUT").is_ok_and(|v| v.trim().eq_ignore_ascii_case("portal"))
}

/// Where the portal's restore token is kept between runs (a later session starts without
/// the consent dialog): `$XDG_STATE_HOME/deft/portal-restore-token`, else under
/// `~/.local/state`.
#[cfg(unix)]
fn portal_token_file() -> Option<std::path::PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".local/state")))?;
    Some(state.join("deft").join("portal-restore-token"))
}

/// The desktop portal's remote desktop on the session bus `config` names, and a few words
/// on it; its restore token kept for the next run (readable by this user alone).
#[cfg(unix)]
fn portal_input(config: &DesktopConfig) -> Result<(Box<dyn Input + Send>, String), String> {
    // Asked what it offers now (no dialog); the session itself starts at the first input.
    let offers = deft_wayland::portal::describe(config.session_bus.as_deref())?;
    let file = portal_token_file();
    let restore = file.as_ref().and_then(|f| std::fs::read_to_string(f).ok()).map(|t| t.trim().to_string());
    let keep_in = file.clone();
    let input = deft_input::RemoteDesktopInput::through_portal(config.session_bus.as_deref(), restore, move |token| {
        if let Some(f) = &keep_in
            && let Err(e) = keep_token(f, token)
        {
            eprintln!(
                "deft: could not keep the desktop portal's permission in {}: {e} (the next run asks again)",
                f.display()
            );
        }
    });
    let words = format!(
        "the pointer and the keys (as keysyms) through {offers} (org.freedesktop.portal.RemoteDesktop; the \
         session starts at the first input)"
    );
    Ok((Box::new(input), words))
}

/// Writes the token readable by this user alone, whole or not at all (a temporary file
/// made 0600, then renamed over the old one, whatever its mode was).
#[cfg(unix)]
fn keep_token(file: &std::path::Path, token: &str) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension("partial");
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    std::io::Write::write_all(&mut f, token.as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}

#[cfg(not(unix))]
fn portal_input(_config: &DesktopConfig) -> Result<(Box<dyn Input + Send>, String), String> {
    Err("the desktop portal runs on Unix systems only".into())
}

#[cfg(not(unix))]
fn wlr_input(_socket: &std::path::Path, _extent: (u32, u32)) -> Result<(Box<dyn Input + Send>, String), String> {
    Err("Wayland runs on Unix systems only".into())
}
