//! The windows a Wayland compositor shows, from whichever source it offers: sway's IPC, or
//! Deft's GNOME Shell extension (`gnome`). The Wayland protocol itself tells a client
//! nothing of other windows, nor where its own is; a toolkit's accessibility gives places
//! relative to its window, and one of these says where the window is.

use std::path::PathBuf;

/// What to do when Deft's GNOME Shell extension is not there.
pub const GNOME_EXTENSION_INSTALL: &str = "install Deft's GNOME Shell extension: copy the folder \
    crates/platform/wayland/gnome-extension/deft-windows@deft of Deft's source to \
    ~/.local/share/gnome-shell/extensions/, run `gnome-extensions enable deft-windows@deft`, then log out \
    and in (GNOME on Wayland loads new extensions at login)";

/// One window a compositor shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The compositor's id for it, stable while the window lives.
    pub id: u64,
    /// The client's process, when the compositor knows it.
    pub pid: Option<u32>,
    /// The Wayland app id (`deft-fixture`), or the X11 class under XWayland.
    pub app_id: Option<String>,
    /// The title.
    pub title: String,
    /// Where the client's own coordinates start on the output layout, and how far they
    /// reach: x, y, width, height. On sway, the content inside its borders; on GNOME, the
    /// client's whole surface (a toolkit that draws its own shadow counts it in).
    pub content: (i32, i32, u32, u32),
    /// Whether it has the keyboard focus.
    pub focused: bool,
    /// Whether it is shown (on a visible workspace, not minimized or behind a tab, not
    /// covered).
    pub visible: bool,
    /// Whether the compositor's own UI lies over every window (GNOME Shell's overview): a
    /// press aimed at the window's place would land on that UI instead.
    pub covered: bool,
    /// Not shown now, and shown where it was once activated (as a taskbar or a click in
    /// the overview does): minimised, or under GNOME Shell's overview.
    pub restorable: bool,
}

/// Where a session's windows come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewSource {
    /// sway's IPC socket.
    Sway(PathBuf),
    /// Deft's GNOME Shell extension on the session bus at this address (`None`: the
    /// session's own bus).
    Gnome(Option<String>),
}

impl ViewSource {
    /// Every window shown, bottom to top where the source tells the stacking (sway: tiled
    /// ones, then floating ones, drawn above them).
    pub fn views(&self) -> Result<Vec<View>, String> {
        match self {
            ViewSource::Sway(ipc) => crate::sway::windows(ipc).map_err(|e| e.to_string()),
            #[cfg(unix)]
            ViewSource::Gnome(bus) => crate::gnome::windows(bus.as_deref()),
            #[cfg(not(unix))]
            ViewSource::Gnome(_) => Err("GNOME runs on Unix systems only".into()),
        }
    }

    /// Raises window `id` and gives it the keyboard focus.
    pub fn focus(&self, id: u64) -> Result<(), String> {
        match self {
            ViewSource::Sway(ipc) => crate::sway::focus(ipc, id).map_err(|e| e.to_string()),
            #[cfg(unix)]
            ViewSource::Gnome(bus) => crate::gnome::activate(bus.as_deref(), id),
            #[cfg(not(unix))]
            ViewSource::Gnome(_) => Err("GNOME runs on Unix systems only".into()),
        }
    }

    /// Where the list comes from, in a few words.
    pub fn name(&self) -> &'static str {
        match self {
            ViewSource::Sway(_) => "sway's IPC",
            ViewSource::Gnome(_) => "Deft's GNOME Shell extension (org.deft.Windows)",
        }
    }
}
