//! What to capture, and the backend-independent rules that turn it into screen pixels.

use deft_types::{Physical, Point, Rect, ScaleFactor, Size};

use crate::error::{CaptureError, show_rect};

/// What to capture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CaptureTarget {
    /// The whole screen: on X11 the root window, which spans every monitor.
    Screen,
    /// One monitor, by the name [`crate::Capture::monitors`] reports.
    Monitor(String),
    /// One window's contents, without the window manager's decoration: what is on screen
    /// there, so a window on top of it shows in the frame, as the user would see it. Clipped
    /// to the screen like a region; an unmapped or entirely off-screen window is
    /// [`CaptureError::WindowNotVisible`].
    Window(WindowRef),
    /// A rectangle of the screen in physical pixels. A region that sticks out of the screen
    /// is clipped to it (the frame's `origin` and size tell what was taken); an empty one,
    /// or one entirely off the screen, is [`CaptureError::BadRegion`].
    Region(Rect<Physical>),
}

/// A window, by id or by title.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WindowRef {
    /// The native id: an X11 window (XID), or the id the xcap backend reports.
    Id(u64),
    /// A title: a window whose title equals it wins, otherwise exactly one visible window's
    /// title must contain it (case-sensitive); several matches are an error that lists them.
    Title(String),
}

impl std::fmt::Display for WindowRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WindowRef::Id(id) => write!(f, "0x{id:x}"),
            WindowRef::Title(t) => write!(f, "titled {t:?}"),
        }
    }
}

/// A monitor: a part of the screen, in the screen's physical pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Monitor {
    /// Its name (RandR's output name on X11, e.g. `DP-1`; `screen` when the server has none).
    pub name: String,
    /// Where it lies on the screen.
    pub rect: Rect<Physical>,
    /// Whether it is the primary monitor.
    pub primary: bool,
    /// Its scale factor. X11 has none per monitor (toolkits scale per application), so the
    /// X11 backend reports 1; xcap reports the platform's.
    pub scale: ScaleFactor,
}

/// Clip `region` to a screen of `screen` size with its origin at (0, 0).
pub(crate) fn clip_region(region: Rect<Physical>, screen: Size<Physical>) -> Result<Rect<Physical>, CaptureError> {
    clip_to(region, Rect::new(0, 0, screen.w, screen.h), screen)
}

/// Clip `region` to `bounds` (the screen's rectangle, which need not start at (0, 0) with
/// xcap's monitors); `screen` is the size named in errors.
pub(crate) fn clip_to(
    region: Rect<Physical>,
    bounds: Rect<Physical>,
    screen: Size<Physical>,
) -> Result<Rect<Physical>, CaptureError> {
    let bad = |why: String| CaptureError::BadRegion { region, screen, why };
    if region.is_empty() {
        return Err(bad("it is empty (zero width or height)".into()));
    }
    region.intersection(&bounds).ok_or_else(|| {
        bad(if (bounds.x, bounds.y) == (0, 0) {
            "it lies entirely outside the screen".to_string()
        } else {
            format!("it lies entirely outside the screen, which spans {}", show_rect(&bounds))
        })
    })
}

/// The monitor named `name`.
pub(crate) fn find_monitor<'m>(monitors: &'m [Monitor], name: &str) -> Result<&'m Monitor, CaptureError> {
    monitors.iter().find(|m| m.name == name).ok_or_else(|| CaptureError::MonitorNotFound {
        name: name.to_string(),
        available: monitors.iter().map(|m| m.name.clone()).collect(),
    })
}

/// The monitor that holds `rect`'s centre, for a frame's `monitor` field.
pub(crate) fn monitor_at<'m>(monitors: &'m [Monitor], rect: &Rect<Physical>) -> Option<&'m Monitor> {
    let c: Point<Physical> = rect.center();
    monitors.iter().find(|m| m.rect.contains(c))
}

/// Pick the one window whose title matches `query` from `(id, title)` candidates, by the
/// rule documented on [`WindowRef::Title`].
pub(crate) fn pick_by_title(query: &str, candidates: &[(u64, String)]) -> Result<u64, CaptureError> {
    let not_found = |why: String| CaptureError::WindowNotFound { window: format!("titled {query:?}"), why };
    let exact: Vec<&(u64, String)> = candidates.iter().filter(|(_, t)| t == query).collect();
    let matches = if exact.is_empty() { candidates.iter().filter(|(_, t)| t.contains(query)).collect() } else { exact };
    match matches.as_slice() {
        [(id, _)] => Ok(*id),
        [] => {
            let mut titles: Vec<&str> = candidates.iter().map(|(_, t)| t.as_str()).filter(|t| !t.is_empty()).collect();
            titles.sort_unstable();
            titles.dedup();
            titles.truncate(12);
            Err(not_found(format!("no visible window's title contains it; visible titles: {titles:?}")))
        }
        many => {
            let list: Vec<String> = many.iter().map(|(id, t)| format!("0x{id:x} {t:?}")).collect();
            Err(not_found(format!("{} windows match; name one by id: {}", many.len(), list.join(", "))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Size<Physical> = Size::new(1280, 800);

    /// Clip `(x, y, w, h)` and compare with the expected rectangle, or with a fragment of
    /// the error message.
    fn check(region: (i32, i32, u32, u32), expected: Result<(i32, i32, u32, u32), &str>) {
        let got = clip_region(Rect::new(region.0, region.1, region.2, region.3), SCREEN);
        match (got, expected) {
            (Ok(r), Ok(e)) => assert_eq!((r.x, r.y, r.w, r.h), e, "clipping {region:?}"),
            (Err(err), Err(fragment)) => {
                let text = err.to_string();
                assert!(text.contains(fragment), "clipping {region:?}: {text:?} lacks {fragment:?}");
                assert!(text.contains("1280x800"), "the message names the screen: {text}");
            }
            (got, expected) => panic!("clipping {region:?}: got {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn regions_are_clipped_to_the_screen() {
        check((0, 0, 1280, 800), Ok((0, 0, 1280, 800)));
        check((10, 20, 30, 40), Ok((10, 20, 30, 40)));
        check((-10, -10, 30, 30), Ok((0, 0, 20, 20)));
        check((1270, 790, 100, 100), Ok((1270, 790, 10, 10)));
        check((-5, 100, 5000, 1), Ok((0, 100, 1280, 1)));
        check((i32::MIN, i32::MIN, u32::MAX, u32::MAX), Ok((0, 0, 1280, 800)));
    }

    #[test]
    fn empty_and_off_screen_regions_are_errors() {
        check((10, 10, 0, 5), Err("region 10,10 0x5 of the 1280x800 screen: it is empty"));
        check((10, 10, 5, 0), Err("it is empty"));
        check((1280, 0, 10, 10), Err("entirely outside"));
        check((0, 800, 10, 10), Err("entirely outside"));
        check((-10, -10, 10, 10), Err("entirely outside"));
        check((i32::MAX, i32::MAX, u32::MAX, u32::MAX), Err("entirely outside"));
    }

    #[test]
    fn titles_match_exactly_first_then_by_substring() {
        let windows = vec![(1, "Editor".to_string()), (2, "Editor - notes.txt".to_string()), (3, "Terminal".into())];
        assert_eq!(pick_by_title("Editor", &windows).unwrap(), 1);
        assert_eq!(pick_by_title("notes", &windows).unwrap(), 2);
        assert_eq!(pick_by_title("Term", &windows).unwrap(), 3);
        let e = pick_by_title("r", &windows).unwrap_err().to_string();
        assert!(e.contains("3 windows match") && e.contains("0x2 \"Editor - notes.txt\""), "{e}");
        let e = pick_by_title("Browser", &windows).unwrap_err().to_string();
        assert!(e.contains("no visible window") && e.contains("\"Terminal\""), "{e}");
    }

    #[test]
    fn monitors_are_found_by_name_and_by_position() {
        let m = |name: &str, x| Monitor {
            name: name.into(),
            rect: Rect::new(x, 0, 100, 100),
            primary: false,
            scale: ScaleFactor::ONE,
        };
        let monitors = [m("A", 0), m("B", 100)];
        assert_eq!(find_monitor(&monitors, "B").unwrap().rect.x, 100);
        let e = find_monitor(&monitors, "C").unwrap_err().to_string();
        assert_eq!(e, "no monitor named 'C'; the monitors are: A, B");
        assert_eq!(monitor_at(&monitors, &Rect::new(90, 0, 30, 10)).map(|m| m.name.as_str()), Some("B"));
        assert_eq!(monitor_at(&monitors, &Rect::new(300, 0, 30, 10)), None);
    }
}
