//! Window geometry on sway (and the wlroots compositors that speak its IPC): the Wayland
//! protocol tells a client nothing of other windows, nor where its own is, so the geometry
//! comes from the compositor's IPC (deft-wayland's `sway`).

use std::path::{Path, PathBuf};

use deft_types::{Physical, Rect};
use deft_wayland::sway::{self, SwayWindow};

use crate::error::InputError;
use crate::windows::{WindowGeometry, WindowLocator, WindowQuery};

/// The windows sway shows, read over its IPC socket at each call.
#[derive(Clone, Debug)]
pub struct SwayWindows {
    ipc: PathBuf,
}

impl SwayWindows {
    /// The windows of the sway whose IPC socket is `ipc`; checked by reading them once.
    pub fn connect(ipc: &Path) -> Result<SwayWindows, InputError> {
        sway::windows(ipc).map_err(|e| InputError::Unavailable(e.to_string()))?;
        Ok(SwayWindows { ipc: ipc.to_path_buf() })
    }

    fn read(&self) -> Result<Vec<SwayWindow>, InputError> {
        sway::windows(&self.ipc).map_err(|e| InputError::Backend { what: "window list", detail: e.to_string() })
    }
}

fn geometry(w: &SwayWindow) -> WindowGeometry {
    let (x, y, width, height) = w.content;
    WindowGeometry { id: w.id, pid: w.pid, title: w.title.clone(), bounds: Rect::<Physical>::new(x, y, width, height) }
}

impl WindowLocator for SwayWindows {
    /// The shown windows matching `query`, tiled ones first, then floating ones (which sway
    /// draws above the tiled).
    fn windows(&self, query: &WindowQuery) -> Result<Vec<WindowGeometry>, InputError> {
        Ok(self.read()?.iter().filter(|w| w.visible && query.matches(w.pid, &w.title)).map(geometry).collect())
    }

    fn focused(&self) -> Result<Option<u64>, InputError> {
        Ok(self.read()?.iter().find(|w| w.focused).map(|w| w.id))
    }

    fn activate(&self, id: u64) -> Result<(), InputError> {
        sway::focus(&self.ipc, id).map_err(|e| InputError::Backend { what: "window focus", detail: e.to_string() })
    }
}
