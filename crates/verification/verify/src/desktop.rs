//! The desktop, wired in one place: which session this is, and the accessibility, input,
//! window-geometry and capture backends for it.
//!
//! Everything above (the executor, the toolbelt, the faces) gets its backends from here and
//! names none of them, so a platform is one more arm of [`Session`], not a change in six
//! places. Today's arms: X11 (AT-SPI, enigo over XTest, X11 window geometry, X11 capture),
//! and Wayland: AT-SPI everywhere; on wlroots compositors with sway's IPC the virtual
//! pointer and keyboard, sway's window geometry and screencopy capture; on GNOME (mutter)
//! its RemoteDesktop input, its screen cast through PipeWire, and window geometry from
//! Deft's GNOME Shell extension where it is installed. Where a compositor offers no input
//! protocol Deft speaks, the desktop portal's remote desktop when the session has one
//! (`desktop_input.rs`), else its input refuses every call with what the compositor offers
//! ([`RefusingInput`]), so reading works and nothing is ever sent somewhere else.

use deft_a11y::{A11yError, AnyAccessibility, AtSpi, AtSpiConfig};
use deft_capture::{Capture, CaptureError};
use deft_input::{Input, InputError, InputWatch, RefusingInput, WaylandWindows, WindowLocator, X11Windows};
use deft_wayland::{Compositor, Registry, ViewSource};

use crate::backends::{Backends, ScreenText};
use crate::config::ExecutorConfig;
use crate::error::VerifyError;
use crate::executor::Executor;

/// Which desktop to connect to. The defaults are the session's own (`DISPLAY`,
/// `WAYLAND_DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DesktopConfig {
    /// The X display (`:7`); `None` for `DISPLAY`.
    pub display: Option<String>,
    /// The Wayland compositor's socket (a name under `XDG_RUNTIME_DIR`, or a path); `None`
    /// for `WAYLAND_DISPLAY`. Asked only when no X display is named.
    pub wayland_display: Option<String>,
    /// The session bus that announces the accessibility bus; `None` for the session's own.
    pub session_bus: Option<String>,
    /// Accessible names of fields whose text is a secret like a password's: masked in
    /// every read (deft-a11y reads them as one mask character per character).
    pub secret_fields: Vec<String>,
}

/// What kind of session a [`DesktopConfig`] names, told by asking it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Session {
    /// An X server (`DISPLAY`, or the display the config names).
    X11 {
        /// The display named; `None` for `DISPLAY`.
        display: Option<String>,
    },
    /// A Wayland compositor and no X display: its registry, read from its socket.
    Wayland(Registry),
    /// A Wayland socket named that no compositor answers on, and no X display.
    Unreachable {
        /// What connecting to it said.
        why: String,
    },
}

impl Session {
    /// The session in one word a fleet's worker advertises and a task's needs name:
    /// `x11`, `wayland/wlroots`, `wayland/mutter`, `wayland/kwin`, `wayland/other`, or
    /// `none` when no display answers.
    pub fn kind(&self) -> String {
        match self {
            Session::X11 { .. } => "x11".into(),
            Session::Wayland(registry) => format!(
                "wayland/{}",
                match registry.compositor() {
                    Compositor::Wlroots => "wlroots",
                    Compositor::Mutter => "mutter",
                    Compositor::KWin => "kwin",
                    Compositor::Other => "other",
                }
            ),
            Session::Unreachable { .. } => "none".into(),
        }
    }

    /// Which session `config` names: X11 when an X display is named (in the config or
    /// `DISPLAY`; an X server under a Wayland session, XWayland, reaches its X clients),
    /// else the Wayland compositor `WAYLAND_DISPLAY` names, asked for its globals; else
    /// X11 with no display, whose connection says what to do.
    pub fn probe(config: &DesktopConfig) -> Session {
        let x_named = config.display.is_some() || std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty());
        let wayland = deft_wayland::socket_path(config.wayland_display.as_deref());
        Session::detect(x_named, config.display.clone(), wayland)
    }

    /// [`Session::probe`] once the environment is read: whether an X display is named (and
    /// which, when the config names it), and the Wayland socket, if any.
    fn detect(x_named: bool, display: Option<String>, wayland: Option<std::path::PathBuf>) -> Session {
        if x_named {
            return Session::X11 { display };
        }
        let Some(socket) = wayland else {
            return Session::X11 { display: None };
        };
        match deft_wayland::probe(&socket) {
            Ok(registry) => Session::Wayland(registry),
            Err(e) => Session::Unreachable { why: e.to_string() },
        }
    }

    /// Why the screen cannot be captured in this session, or `None` when it may be.
    pub fn no_capture(&self) -> Option<String> {
        match self {
            Session::X11 { .. } => None,
            Session::Wayland(registry)
                if registry.offers(SCREENCOPY) || registry.compositor() == Compositor::Mutter =>
            {
                None
            }
            Session::Wayland(registry) => Some(format!(
                "this is a Wayland session ({}) with no X display, and Deft captures Wayland screens \
                 through wlroots' screencopy and GNOME's screen cast only so far: screenshots and OCR do not work here, and \
                 actions are verified through accessibility alone. For screenshots, {UNDER_X11}",
                wayland_words(registry)
            )),
            Session::Unreachable { why } => Some(no_display(why)),
        }
    }
}

/// The screen capture protocol of wlroots compositors.
const SCREENCOPY: &str = "zwlr_screencopy_manager_v1";

/// No X display, and the Wayland socket named does not answer.
pub(crate) fn no_display(why: &str) -> String {
    format!(
        "no display to act on: DISPLAY is not set, and {why}. Start a headless X server \
         (`Xvfb :99 &`, then `export DISPLAY=:99`) or run inside the desktop session"
    )
}

/// A Wayland session in a few words: the compositor, its socket, the protocols Deft's
/// backends would use.
pub(crate) fn wayland_words(registry: &Registry) -> String {
    let wanted = [
        "zwlr_virtual_pointer_manager_v1",
        "zwp_virtual_keyboard_manager_v1",
        "zwlr_screencopy_manager_v1",
        "org_kde_kwin_fake_input",
    ];
    let offered: Vec<&str> = wanted.iter().copied().filter(|w| registry.offers(w)).collect();
    let offers = if offered.is_empty() {
        "none of the input or capture protocols Deft knows".to_string()
    } else {
        offered.join(", ")
    };
    format!("{}, at {}; it offers {offers}", registry.compositor().name(), registry.socket.display())
}

/// What to do on a Wayland session until Deft acts there.
pub(crate) const UNDER_X11: &str = "run the application under X11 (an Xvfb display, or XWayland: set \
    DISPLAY and start the app with GDK_BACKEND=x11 or QT_QPA_PLATFORM=xcb)";

/// What a Wayland session offers and why Deft cannot act there, in a user's words.
pub(crate) fn wayland_refusal(registry: &Registry, why: &str) -> String {
    format!(
        "this is a Wayland session ({}) with no X display, and Deft sends input on Wayland only \
         through the virtual pointer of wlroots compositors with sway's IPC, GNOME's RemoteDesktop \
         API and the desktop portal's remote desktop so far ({why}): reading and finding elements work here, \
         actions do not. To act, {UNDER_X11}",
        wayland_words(registry)
    )
}

/// Where the windows of `session` are listed, when it is a Wayland session whose
/// compositor offers a list: sway's IPC; on GNOME, Deft's Shell extension when it answers.
pub(crate) fn views_in(session: &Session, config: &DesktopConfig) -> Option<ViewSource> {
    let Session::Wayland(registry) = session else { return None };
    if let Some(ipc) = deft_wayland::sway::ipc_socket(&registry.socket) {
        return Some(ViewSource::Sway(ipc));
    }
    #[cfg(unix)]
    if registry.compositor() == Compositor::Mutter {
        let source = ViewSource::Gnome(config.session_bus.clone());
        return source.views().is_ok().then_some(source);
    }
    let _ = config;
    None
}

/// The backends of one desktop, connected.
pub struct Desktop {
    session: Session,
    /// Why this session takes no input, when it does not.
    no_input: Option<String>,
    a11y: AnyAccessibility,
    input: Box<dyn Input + Send>,
    windows: Option<Box<dyn WindowLocator + Send>>,
    capture: Option<Box<dyn Capture + Send>>,
}

impl Desktop {
    /// Connects every backend of the session `config` names. Accessibility is required;
    /// input is required where the session has an input backend (where it has none, the
    /// desktop's input refuses every call with the reason: [`Desktop::no_input`]); window
    /// geometry and capture are signals the executor works without (scale 1, no pixel
    /// signal) when they cannot be connected.
    pub async fn connect(config: &DesktopConfig) -> Result<Desktop, VerifyError> {
        Desktop::connect_in(Session::probe(config), config).await
    }

    /// [`Desktop::connect`] in a session already probed.
    async fn connect_in(session: Session, config: &DesktopConfig) -> Result<Desktop, VerifyError> {
        let a11y = Desktop::accessibility_in(&session, config)
            .await
            .map_err(|e| VerifyError::Backend { backend: "accessibility", detail: e.to_string() })?;
        let windows = Desktop::windows_in(&session, config).ok();
        let capture = Desktop::capture_in(&session, config).ok();
        match Desktop::input_in(&session, config) {
            Ok((input, _)) => Ok(Desktop { session, no_input: None, a11y, input, windows, capture }),
            Err(why) if matches!(session, Session::X11 { .. }) => {
                Err(VerifyError::Backend { backend: "input", detail: why })
            }
            Err(why) => {
                let input = Box::new(RefusingInput::new(why.clone()));
                Ok(Desktop { session, no_input: Some(why), a11y, input, windows, capture })
            }
        }
    }

    /// The accessibility backend alone (reading and finding need nothing else, and work on
    /// every session).
    pub async fn accessibility(config: &DesktopConfig) -> Result<AnyAccessibility, A11yError> {
        Desktop::accessibility_in(&Session::probe(config), config).await
    }

    /// The accessibility backend of `session` (probed once by the caller: on Wayland each
    /// probe is a round trip to the compositor).
    pub(crate) async fn accessibility_in(
        session: &Session,
        config: &DesktopConfig,
    ) -> Result<AnyAccessibility, A11yError> {
        // On Wayland, every toolkit's extents are window-relative: the compositor's list
        // places the windows, where it offers one.
        let a11y = AtSpiConfig {
            session_bus: config.session_bus.clone(),
            // GTK 4's windows are placed on the display the input goes to.
            display: config.display.clone(),
            views: views_in(session, config),
            compositor_pid: match session {
                Session::Wayland(registry) => registry.compositor_pid,
                _ => None,
            },
            wayland: matches!(session, Session::Wayland(_)),
            secret_fields: config.secret_fields.clone(),
            ..AtSpiConfig::default()
        };
        Ok(AnyAccessibility::new(AtSpi::connect(a11y).await?))
    }

    /// The screen capture backend alone (a screenshot).
    pub fn capture(config: &DesktopConfig) -> Result<Box<dyn Capture + Send>, CaptureError> {
        Desktop::capture_in(&Session::probe(config), config)
    }

    /// The screen capture backend of `session`.
    pub(crate) fn capture_in(
        session: &Session,
        config: &DesktopConfig,
    ) -> Result<Box<dyn Capture + Send>, CaptureError> {
        if let Some(why) = session.no_capture() {
            return Err(CaptureError::NoDisplay { display: "an X display".into(), why });
        }
        match session {
            #[cfg(target_os = "linux")]
            Session::Wayland(registry) if registry.compositor() == Compositor::Mutter => {
                Ok(Box::new(deft_capture::MutterCapture::connect(config.session_bus.as_deref())?))
            }
            #[cfg(target_os = "linux")]
            Session::Wayland(registry) => {
                let ipc = deft_wayland::sway::ipc_socket(&registry.socket);
                Ok(Box::new(deft_capture::WlrCapture::connect(&registry.socket, ipc)?))
            }
            _ => deft_capture::open_default(config.display.as_deref()),
        }
    }

    /// The window-geometry backend alone (to raise a covered window before a screenshot).
    pub fn windows(config: &DesktopConfig) -> Result<Box<dyn WindowLocator + Send>, InputError> {
        Desktop::windows_in(&Session::probe(config), config)
    }

    /// The window-geometry backend of `session`: the X server's window list on X11; on
    /// Wayland, sway's IPC (the protocol tells a client nothing of windows), where there is
    /// one.
    pub(crate) fn windows_in(
        session: &Session,
        config: &DesktopConfig,
    ) -> Result<Box<dyn WindowLocator + Send>, InputError> {
        match session {
            Session::Wayland(registry) => match views_in(session, config) {
                Some(source) => Ok(Box::new(WaylandWindows::connect(source)?)),
                None if registry.compositor() == Compositor::Mutter => Err(InputError::Unavailable(format!(
                    "GNOME keeps its window list to itself, so Deft cannot place windows there (pointer input \
                     aimed at an element is refused; accessibility actions and keys still work): to fix, {}",
                    deft_wayland::GNOME_EXTENSION_INSTALL
                ))),
                None => Err(InputError::Unavailable(format!(
                    "{} keeps its window list to itself: Deft reads window geometry on Wayland \
                     through sway's IPC and its GNOME Shell extension only so far (no sway-ipc socket beside {}, \
                     and SWAYSOCK is not set)",
                    registry.compositor().name(),
                    registry.socket.display()
                ))),
            },
            Session::X11 { .. } | Session::Unreachable { .. } => {
                Ok(Box::new(X11Windows::connect(config.display.as_deref())?))
            }
        }
    }

    /// A person's input on this desktop, watched (to record a task as it is done): the X
    /// server's raw events on X11. Wayland lets no client watch another's input, so there
    /// the answer says so.
    pub fn watch_input(config: &DesktopConfig) -> Result<Box<dyn InputWatch>, InputError> {
        match Session::probe(config) {
            #[cfg(unix)]
            Session::X11 { .. } => Ok(Box::new(deft_input::X11InputWatch::connect(config.display.as_deref())?)),
            Session::Wayland(registry) => Err(InputError::Unavailable(format!(
                "this is a Wayland session ({}): a Wayland compositor lets no application watch another's input, \
                 so presses and keys cannot be recorded here; record on an X11 session (or write the flow by hand: \
                 `agent-cli flow --help`)",
                wayland_words(&registry)
            ))),
            #[cfg(not(unix))]
            Session::X11 { .. } => Err(InputError::Unavailable("watching input needs a Unix X11 display".into())),
            Session::Unreachable { why } => Err(InputError::Unavailable(no_display(&why))),
        }
    }

    /// Why this session takes no input (what it lacks and what to do), or `None` when it
    /// does.
    pub fn no_input(&self) -> Option<&str> {
        self.no_input.as_deref()
    }

    /// The session the backends were picked for.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The backends, for an executor (with `ocr` for text that is on screen only).
    pub fn into_backends(self, ocr: Option<Box<dyn ScreenText>>) -> Backends {
        Backends { a11y: self.a11y, input: self.input, windows: self.windows, capture: self.capture, ocr }
    }
}

impl Executor {
    /// An executor on the desktop `desktop` names.
    pub async fn connect(config: ExecutorConfig, desktop: &DesktopConfig) -> Result<Executor, VerifyError> {
        Executor::connect_with(config, desktop, None).await
    }

    /// [`Executor::connect`], with a recogniser for text that is on screen but not in the
    /// accessibility tree.
    pub async fn connect_with(
        config: ExecutorConfig,
        desktop: &DesktopConfig,
        ocr: Option<Box<dyn ScreenText>>,
    ) -> Result<Executor, VerifyError> {
        let backends = Desktop::connect(desktop).await?.into_backends(ocr);
        Executor::new(backends, config)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixListener;

    use super::*;

    /// A compositor's socket that lists `globals` to one client (the registry's wire
    /// format, played: the tests above the seam need a session, not a compositor).
    fn compositor(globals: &'static [&'static str]) -> (tempdir::Dir, std::thread::JoinHandle<()>) {
        let dir = tempdir::Dir::new();
        let listener = UnixListener::bind(dir.path().join("wayland-test")).unwrap();
        let serve = std::thread::spawn(move || {
            let (mut client, _) = listener.accept().unwrap();
            let mut asked = [0u8; 24];
            client.read_exact(&mut asked).unwrap();
            let message = |object: u32, opcode: u32, args: &[u8]| {
                let mut m = object.to_ne_bytes().to_vec();
                m.extend_from_slice(&(((8 + args.len() as u32) << 16) | opcode).to_ne_bytes());
                m.extend_from_slice(args);
                m
            };
            let mut out = Vec::new();
            for (i, g) in globals.iter().enumerate() {
                let mut args = (i as u32 + 1).to_ne_bytes().to_vec();
                args.extend_from_slice(&(g.len() as u32 + 1).to_ne_bytes());
                args.extend_from_slice(g.as_bytes());
                args.resize(args.len() + ((g.len() + 1).div_ceil(4) * 4 - g.len()), 0);
                args.extend_from_slice(&1u32.to_ne_bytes());
                out.extend(message(2, 0, &args));
            }
            out.extend(message(3, 0, &0u32.to_ne_bytes()));
            client.write_all(&out).unwrap();
        });
        (dir, serve)
    }

    mod tempdir {
        /// A directory removed when dropped.
        pub struct Dir(std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
                let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let path = std::env::temp_dir().join(format!("deft-desktop-{}-{n}", std::process::id()));
                std::fs::create_dir_all(&path).unwrap();
                Dir(path)
            }
            pub fn path(&self) -> &std::path::Path {
                &self.0
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn a_wayland_session_without_an_input_backend_refuses_naming_what_it_offers() {
        let (dir, serve) = compositor(&["wl_compositor", "zwlr_virtual_pointer_manager_v1", "zwlr_layer_shell_v1"]);
        let session = Session::detect(false, None, Some(dir.path().join("wayland-test")));
        serve.join().unwrap();
        let Session::Wayland(registry) = &session else { panic!("{session:?}") };
        assert!(registry.offers("zwlr_virtual_pointer_manager_v1"));
        let why = Desktop::input_in(&session, &DesktopConfig::default()).err().expect("no input without sway's IPC");
        assert!(why.contains("Wayland session (a wlroots compositor"), "{why}");
        assert!(why.contains("it offers zwlr_virtual_pointer_manager_v1)"), "{why}");
        assert!(why.contains("no sway IPC socket") && why.contains("actions do not"), "{why}");
        assert!(why.contains("GDK_BACKEND=x11"), "{why}");
    }

    #[test]
    fn an_x_display_wins_and_a_dead_wayland_socket_says_why() {
        let x = Session::detect(true, Some(":7".into()), Some("/nonexistent/wayland-0".into()));
        assert_eq!(x, Session::X11 { display: Some(":7".into()) });
        assert_eq!(x.no_capture(), None);
        let dead = Session::detect(false, None, Some("/nonexistent/wayland-0".into()));
        let why = dead.no_capture().expect("nothing to act on");
        assert!(why.contains("/nonexistent/wayland-0") && why.contains("Xvfb"), "{why}");
        // Neither: X11 with no display, whose connection says what to do.
        assert_eq!(Session::detect(false, None, None), Session::X11 { display: None });
    }
}
