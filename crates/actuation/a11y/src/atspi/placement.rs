//! Where a window lies on screen, for toolkits whose extents are window-relative.
//!
//! GTK 4 answers `Component.GetExtents` in its window's own coordinates whatever coordinate
//! type is asked, and takes `GetAccessibleAtPoint` in them too: the toolkit does not know
//! where its window is (Wayland never says). A window that is not at the screen's corner
//! then gives bounds that are off by its position, and a click aimed at them misses (found
//! on gtk4-widget-factory moved to (200, 80)). On X11 the window's place is known: deft-x11
//! lists the top-level windows with their owner, title and frame, and the window the
//! toolkit means is the one of the same process with the same title (and, among several,
//! the size that fits). Its origin is added to every bound read in it, and taken off a
//! point asked about it.
//!
//! On a Wayland session, every toolkit answers in its window's coordinates (no client knows
//! where its window is), and the windows come from the compositor's own list instead
//! (sway's IPC, Deft's GNOME Shell extension): each window's pid, title and where its
//! client's coordinates start on the output layout.
//!
//! Without a display server's window list, when no window matches, or when more than one
//! could be the one meant (two windows of the process with the same title and size at
//! different places), the window is unplaced: its elements' bounds are dropped, and the
//! read says why in its problems. A bound off by a window's position would send the
//! pointer onto whatever lies there; with no bounds, pointer input is refused and an
//! accessibility action (which needs no place) is used where the element has one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use deft_x11::X11Window;
use tokio::sync::OnceCell;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::Window;
use x11rb::rust_connection::RustConnection;
use zbus::Connection;
use zbus::zvariant::OwnedObjectPath;

use super::Inner;
use super::call::{self, Fail, NULL_PATH, ROOT_PATH, iface};
use super::convert;

/// A screen offset to add to a window-relative position.
pub(crate) type Offset = (i32, i32);

/// Why a window's place on screen could not be found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unplaced {
    /// No display server's window list to look in.
    NoList,
    /// No window of the list matches.
    NotFound,
    /// This many windows match equally well, at different places.
    Ambiguous(usize),
    /// The compositor's own UI lies over every window (GNOME Shell's overview).
    Covered,
}

/// The X display the windows are looked up on, connected once (`DISPLAY`).
struct Display {
    conn: RustConnection,
    root: Window,
    atoms: deft_x11::Atoms,
}

/// What placing window-relative extents keeps between calls.
pub(crate) struct Placement {
    /// The display's name; `None` for `DISPLAY`.
    name: Option<String>,
    /// A Wayland compositor's window list, where it offers one: the windows come from there.
    views: Option<deft_wayland::ViewSource>,
    /// A Wayland session (with or without sway's list).
    wayland: bool,
    display: OnceCell<Option<Arc<Display>>>,
    /// Per application bus name and element path: the path of the window it is in (an
    /// element does not move between windows; the walk up to one costs a call per level).
    window_of: Mutex<HashMap<(String, String), String>>,
}

impl Placement {
    pub fn new(display: Option<String>, views: Option<deft_wayland::ViewSource>, wayland: bool) -> Placement {
        let wayland = wayland || views.is_some();
        Placement { name: display, views, wayland, display: OnceCell::new(), window_of: Mutex::new(HashMap::new()) }
    }

    /// Whether the windows are a Wayland compositor's: every toolkit's extents are then
    /// relative to its window.
    pub fn on_wayland(&self) -> bool {
        self.wayland
    }

    async fn display(&self) -> Option<Arc<Display>> {
        self.display
            .get_or_init(|| async {
                let name = self.name.clone();
                tokio::task::spawn_blocking(move || {
                    let (conn, screen) = x11rb::connect(name.as_deref()).ok()?;
                    let root = conn.setup().roots.get(screen)?.root;
                    let atoms = deft_x11::Atoms::intern(&conn).ok()?;
                    Some(Arc::new(Display { conn, root, atoms }))
                })
                .await
                .ok()
                .flatten()
            })
            .await
            .clone()
    }

    /// The offset of the window titled `title` that its toolkit says is `width` × `height`,
    /// of the process `pid` (when known), or why it cannot be told.
    pub async fn offset(&self, pid: Option<u32>, title: &str, width: u32, height: u32) -> Result<Offset, Unplaced> {
        let windows = self.windows().await?;
        choose(&windows, pid, title, width, height).map(|w| w.contents_origin(width, height))
    }

    /// The display's top-level windows (the compositor's list on Wayland), or why there
    /// are none to place a window by.
    async fn windows(&self) -> Result<Vec<X11Window>, Unplaced> {
        if let Some(views) = self.views.clone() {
            return tokio::task::spawn_blocking(move || shown_views(&views)).await.unwrap_or(Err(Unplaced::NoList));
        }
        if self.wayland {
            return Err(Unplaced::NoList);
        }
        let display = self.display().await.ok_or(Unplaced::NoList)?;
        tokio::task::spawn_blocking(move || deft_x11::windows(&display.conn, display.root, &display.atoms).ok())
            .await
            .ok()
            .flatten()
            .ok_or(Unplaced::NoList)
    }

    /// The title bar's title of the window of process `pid` that lies at `bounds`, when it
    /// differs from `name`: `None` without an X display, a matching window or a
    /// difference. A toolkit may count the window manager's frame in (GTK 3 does): the
    /// contents then sit inside `bounds` with the title bar above them.
    /// The X windows that contain `point`, top first: the popups (override-redirect, above
    /// every managed window), then the window manager's clients in its stacking order.
    /// `None` without an X display. AT-SPI does not say which window is above which; this
    /// does, whatever a toolkit says of its window's `active` state.
    pub async fn stack_at(&self, point: deft_types::Point<deft_types::Logical>) -> Option<Vec<X11Window>> {
        let at = deft_types::Point::new(point.x, point.y);
        if self.views.is_some() {
            // Listed bottom to top (sway: floating views after tiled ones): the later, the higher.
            let views = self.windows().await.ok()?;
            return Some(views.into_iter().rev().filter(|w| w.bounds.contains(at)).collect());
        }
        if self.wayland {
            return None;
        }
        let display = self.display().await?;
        let (clients, popups) = tokio::task::spawn_blocking(move || {
            let clients = deft_x11::windows(&display.conn, display.root, &display.atoms).ok()?;
            let popups = deft_x11::popups(&display.conn, display.root, &display.atoms).unwrap_or_default();
            Some((clients, popups))
        })
        .await
        .ok()
        .flatten()?;
        let mut stack: Vec<X11Window> =
            popups.into_iter().rev().chain(clients.into_iter().rev()).filter(|w| w.bounds.contains(at)).collect();
        stack.dedup_by_key(|w| w.id);
        Some(stack)
    }

    pub async fn display_title(
        &self,
        pid: Option<u32>,
        bounds: deft_types::Rect<deft_types::Logical>,
        name: &str,
    ) -> Option<String> {
        let pid = pid?;
        let windows = self.windows().await.ok()?;
        let near = |a: i64, b: i64| (a - b).abs() <= 8;
        let (left, top) = (i64::from(bounds.x), i64::from(bounds.y));
        let (right, bottom) = (left + i64::from(bounds.w), top + i64::from(bounds.h));
        windows
            .into_iter()
            .filter(|w| w.pid == Some(pid))
            .find(|w| {
                let b = w.bounds;
                let (x, y) = (i64::from(b.x), i64::from(b.y));
                near(x, left)
                    && near(x + i64::from(b.w), right)
                    && near(y + i64::from(b.h), bottom)
                    && (top - 8..=top + 48).contains(&y)
            })
            .map(|w| w.title)
            .filter(|t| !t.trim().is_empty() && t.trim() != name.trim())
    }

    /// The window `path` of application `bus` was last found in.
    pub fn known_window(&self, bus: &str, path: &str) -> Option<String> {
        let known = self.window_of.lock().unwrap_or_else(|p| p.into_inner());
        known.get(&(bus.to_string(), path.to_string())).cloned()
    }

    /// Remember that `path` of application `bus` is in window `window`.
    pub fn remember_window(&self, bus: &str, path: &str, window: &str) {
        let mut known = self.window_of.lock().unwrap_or_else(|p| p.into_inner());
        // Bounded: a long session reads many short-lived elements.
        if known.len() >= 4096 {
            known.clear();
        }
        known.insert((bus.to_string(), path.to_string()), window.to_string());
    }
}

/// The offset of window `window` (a child of application `bus`'s root) whose name and
/// extents are not known yet: both read, then its X window found.
pub(crate) async fn window_offset(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    window: &str,
    pid: Option<u32>,
) -> Result<Result<Offset, Unplaced>, Fail> {
    let t = inner.timeout();
    let name = call::property::<String>(conn, t, bus, window, iface::ACCESSIBLE, "Name");
    let extents =
        call::call_as::<_, (i32, i32, i32, i32)>(conn, t, bus, window, iface::COMPONENT, "GetExtents", &(0u32,));
    let (name, extents) = tokio::join!(name, extents);
    let Some(size) = convert::bounds(extents?) else { return Ok(Err(Unplaced::NotFound)) };
    Ok(inner.placement.offset(pid, &name?, size.w, size.h).await)
}

/// The window `path` of application `bus` is in: its ancestor just below the application's
/// root (itself if it is a window; `None` for the root). Walked up one `Parent` at a time,
/// then remembered.
pub(crate) async fn window_of(inner: &Inner, conn: &Connection, bus: &str, path: &str) -> Result<Option<String>, Fail> {
    if path == ROOT_PATH {
        return Ok(None);
    }
    if let Some(w) = inner.placement.known_window(bus, path) {
        return Ok(Some(w));
    }
    let mut at = path.to_string();
    for _ in 0..64 {
        let (b, p): (String, OwnedObjectPath) =
            call::property(conn, inner.timeout(), bus, &at, iface::ACCESSIBLE, "Parent").await?;
        if p.as_str() == ROOT_PATH {
            inner.placement.remember_window(bus, path, &at);
            return Ok(Some(at));
        }
        if p.as_str() == NULL_PATH || !(b.is_empty() || b == bus) {
            return Ok(None);
        }
        at = p.as_str().to_string();
    }
    Ok(None)
}

/// `extents` moved by `offset`, when they are extents of something on screen.
pub(crate) fn shifted(extents: (i32, i32, i32, i32), (dx, dy): Offset) -> (i32, i32, i32, i32) {
    match convert::bounds(extents) {
        Some(_) => (extents.0.saturating_add(dx), extents.1.saturating_add(dy), extents.2, extents.3),
        None => extents,
    }
}

/// What a read says when a window's place could not be found.
pub(crate) fn unplaced(title: &str, why: Unplaced) -> String {
    let because = match why {
        Unplaced::NoList => "the display server gives no window list to find it in".to_string(),
        Unplaced::NotFound => "it was not found in the display server's window list".to_string(),
        Unplaced::Covered => "the desktop's own UI (GNOME Shell's overview) lies over every window".to_string(),
        Unplaced::Ambiguous(n) => format!(
            "{n} windows of its process have that title and size at different places, and which one it is \
             cannot be told"
        ),
    };
    format!(
        "the toolkit gives positions relative to window {title:?}, and {because}: its elements are given no \
         bounds, so no pointer input is aimed at them (accessibility actions still work); close or rename the \
         other windows, or act through an accessibility action"
    )
}

/// A compositor's shown windows as windows: where each client's coordinates start on the
/// output layout, no frame margins (sway draws its borders outside the content it reports;
/// GNOME reports the client's whole surface, shadow and all, which is where a toolkit that
/// draws its own shadow counts from).
fn shown_views(source: &deft_wayland::ViewSource) -> Result<Vec<X11Window>, Unplaced> {
    let views = source.views().map_err(|_| Unplaced::NoList)?;
    if views.iter().any(|v| v.covered) {
        return Err(Unplaced::Covered);
    }
    Ok(views
        .into_iter()
        .filter(|v| v.visible)
        .map(|v| {
            let (x, y, w, h) = v.content;
            X11Window {
                id: v.id,
                pid: v.pid,
                title: v.title,
                bounds: deft_types::Rect::new(x, y, w, h),
                frame_extents: None,
            }
        })
        .collect())
}

/// The X window a toolkit's window is: of process `pid` when it is known, titled `title`,
/// and among several the one whose size fits `width` × `height` most closely. A process
/// with one window needs no title (some toolkits name the accessible window differently).
/// Windows that fit equally well at different places are [`Unplaced::Ambiguous`]: no
/// stacking order says which one the toolkit meant.
fn choose<'a>(
    windows: &'a [X11Window],
    pid: Option<u32>,
    title: &str,
    width: u32,
    height: u32,
) -> Result<&'a X11Window, Unplaced> {
    let owned: Vec<&X11Window> = windows.iter().filter(|w| pid.is_none() || w.pid == pid).collect();
    let titled: Vec<&X11Window> = owned.iter().copied().filter(|w| w.title == title).collect();
    let pool = match (titled.is_empty(), pid) {
        (false, _) => titled,
        (true, Some(_)) if owned.len() == 1 => owned,
        _ => return Err(Unplaced::NotFound),
    };
    let fits = |w: &&X11Window| w.bounds.w >= width && w.bounds.h >= height;
    let misfit = |w: &X11Window| w.bounds.w.abs_diff(width) + w.bounds.h.abs_diff(height);
    let fitting: Vec<&X11Window> = pool.iter().copied().filter(fits).collect();
    let best = if fitting.is_empty() { &pool } else { &fitting };
    let least = best.iter().map(|w| misfit(w)).min().ok_or(Unplaced::NotFound)?;
    let closest: Vec<&X11Window> = best.iter().copied().filter(|w| misfit(w) == least).collect();
    let origin = |w: &X11Window| w.contents_origin(width, height);
    let first = closest[0];
    let places = closest.iter().filter(|w| origin(w) != origin(first)).count() + 1;
    match places {
        1 => Ok(first),
        _ => Err(Unplaced::Ambiguous(closest.len())),
    }
}

#[cfg(test)]
mod tests {
    use deft_types::Rect;

    use super::*;

    fn window(id: u64, pid: u32, title: &str, x: i32, w: u32) -> X11Window {
        X11Window { id, pid: Some(pid), title: title.into(), bounds: Rect::new(x, 80, w, 800), frame_extents: None }
    }

    #[test]
    fn the_window_of_the_same_process_and_title() {
        let windows = [
            window(1, 7, "Editor", 0, 1342),
            window(2, 8, "GTK Widget Factory", 10, 1342),
            window(3, 7, "GTK Widget Factory", 200, 1342),
        ];
        assert_eq!(choose(&windows, Some(7), "GTK Widget Factory", 1332, 790).map(|w| w.id), Ok(3));
        assert_eq!(windows[2].contents_origin(1332, 790), (205, 85));
    }

    #[test]
    fn one_window_of_the_process_needs_no_title_and_none_is_no_guess() {
        let windows = [window(1, 7, "Untitled", 0, 1342), window(2, 8, "Other", 0, 600)];
        assert_eq!(choose(&windows, Some(7), "Document 1", 1332, 790).map(|w| w.id), Ok(1));
        assert_eq!(choose(&windows, Some(9), "Document 1", 1332, 790).map(|w| w.id), Err(Unplaced::NotFound));
        assert_eq!(choose(&windows, None, "Document 1", 1332, 790).map(|w| w.id), Err(Unplaced::NotFound));
    }

    #[test]
    fn among_same_titles_the_size_that_fits() {
        let windows = [window(1, 7, "Preferences", 0, 1342), window(2, 7, "Preferences", 300, 410)];
        assert_eq!(choose(&windows, Some(7), "Preferences", 400, 790).map(|w| w.id), Ok(2));
        assert_eq!(choose(&windows, Some(7), "Preferences", 1332, 790).map(|w| w.id), Ok(1));
    }

    #[test]
    fn two_equal_windows_at_different_places_are_no_guess() {
        // An editor's two "Untitled" windows of one size: either could be the one meant,
        // and a click placed by the wrong one lands on whatever lies there.
        let windows = [window(1, 7, "Untitled", 0, 600), window(2, 7, "Untitled", 700, 600)];
        assert_eq!(choose(&windows, Some(7), "Untitled", 590, 790).map(|w| w.id), Err(Unplaced::Ambiguous(2)));
        // The same two stacked at one place give one offset, whichever is meant.
        let stacked = [window(1, 7, "Untitled", 0, 600), window(2, 7, "Untitled", 0, 600)];
        assert_eq!(choose(&stacked, Some(7), "Untitled", 590, 790).map(|w| w.id), Ok(1));
        // A third of another size does not make the closest fit ambiguous.
        let sized = [window(1, 7, "Untitled", 0, 600), window(2, 7, "Untitled", 700, 900)];
        assert_eq!(choose(&sized, Some(7), "Untitled", 590, 790).map(|w| w.id), Ok(1));
    }
}
