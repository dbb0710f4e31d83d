//! Window geometry on Wayland: the protocol tells a client nothing of other windows, nor
//! where its own is, so the geometry comes from what the compositor offers (deft-wayland's
//! `ViewSource`): sway's IPC (and the wlroots compositors that speak it), or Deft's GNOME
//! Shell extension.

use deft_types::{Physical, Rect};
use deft_wayland::{View, ViewSource};

use crate::error::InputError;
use crate::windows::{WindowGeometry, WindowLocator, WindowQuery};

/// The windows a Wayland compositor shows, read from its source at each call.
#[derive(Clone, Debug)]
pub struct WaylandWindows {
    source: ViewSource,
}

impl WaylandWindows {
    /// The windows `source` lists; checked by reading them once.
    pub fn connect(source: ViewSource) -> Result<WaylandWindows, InputError> {
        source.views().map_err(InputError::Unavailable)?;
        Ok(WaylandWindows { source })
    }

    /// Where the list comes from, in a few words.
    pub fn source_name(&self) -> &'static str {
        self.source.name()
    }

    fn read(&self) -> Result<Vec<View>, InputError> {
        self.source.views().map_err(|detail| InputError::Backend { what: "window list", detail })
    }
}

fn geometry(w: &View) -> WindowGeometry {
    let (x, y, width, height) = w.content;
    WindowGeometry { id: w.id, pid: w.pid, title: w.title.clone(), bounds: Rect::<Physical>::new(x, y, width, height) }
}

impl WindowLocator for WaylandWindows {
    /// The shown windows matching `query`, bottom to top (on sway: tiled ones first, then
    /// floating ones, which it draws above the tiled).
    fn windows(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError> {
        Ok(self.read()?.iter().filter(|w| w.visible && query.matches(w.pid, &w.title)).map(geometry).collect())
    }

    /// The windows matching `query` that are hidden where activating them shows them again:
    /// minimised, or under GNOME Shell's overview.
    fn minimized(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError> {
        Ok(self.read()?.iter().filter(|w| w.restorable && query.matches(w.pid, &w.title)).map(geometry).collect())
    }

    /// The window keys go to; none while the compositor's own UI lies over every window
    /// (GNOME Shell's overview takes the keys into its search, whichever window it keeps
    /// as focused).
    fn focused(&self) -> Result<Option<u64>, InputError> {
        let views = self.read()?;
        if views.iter().any(|w| w.covered) {
            return Ok(None);
        }
        Ok(views.iter().find(|w| w.focused).map(|w| w.id))
    }

    fn activate(&self, id: u64) -> Result<(), InputError> {
        self.source.focus(id).map_err(|detail| InputError::Backend { what: "window focus", detail })
    }
}
