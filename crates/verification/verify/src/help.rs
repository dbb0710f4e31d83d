//! What the executor does for a target that is not actionable yet, as a careful person
//! would: restore its window from minimised, scroll it into view (accessibility first,
//! the wheel second), raise the window another application covers it with, and stop waiting for a disabled control that
//! nothing around it is working to enable.

use std::time::{Duration, Instant};

use deft_a11y::Accessibility;
use deft_input::{WindowGeometry, WindowQuery};
use deft_types::{Element, Logical, Point, Rect};

use crate::executor::{Executor, lock};
use crate::in_view::{InView, SCROLLERS, in_view, way_to};
use crate::ready::Waiting;
use crate::resolve::Resolved;
use crate::run::Run;

/// How long a restored window gets to say it is active again.
const RESTORE_WAIT: Duration = Duration::from_millis(1000);
/// How often the restored window is read meanwhile.
const RESTORE_POLL: Duration = Duration::from_millis(20);

/// How long a disabled target is watched before asking whether anything could enable it
/// (a form that validates as you type enables its button within a frame or two).
const DISABLED_PATIENCE: Duration = Duration::from_millis(400);

/// Wheel notches per turn when accessibility could not scroll a target into view, and the
/// most turns (a long page is scrolled a screen or so at a time, and never forever).
const WHEEL_NOTCHES: i32 = 5;
const MAX_WHEEL_TURNS: u32 = 10;

/// Roles a wheel turned over would change rather than scroll: the wheel is never sent there.
const WHEEL_SENSITIVE: [&str; 6] = ["slider", "spin_button", "combo_box", "scroll_bar", "dial", "menu"];

/// What was already tried for this target.
#[derive(Default)]
pub(crate) struct Helped {
    scrolled: bool,
    wheel_turns: u32,
    /// The last turn: notches, signed (down is positive).
    wheel_last: i32,
    raised: bool,
    restored: bool,
    disabled_since: Option<Instant>,
}

impl Helped {
    /// Whether every way of scrolling a target into view was tried: accessibility's, and
    /// the wheel as far as it could turn.
    pub(crate) fn scrolling_spent(&self) -> bool {
        self.scrolled && self.wheel_turns >= MAX_WHEEL_TURNS
    }
}

/// What came of trying.
pub(crate) enum Help {
    /// Something was done (say so, then check again at once).
    Done(String),
    /// Waiting will not help: the reason.
    Fail(String),
    /// Nothing to do: keep waiting.
    Nothing,
}

impl Executor {
    /// One step of help for a target that is not actionable for reason `why`.
    pub(crate) async fn help(&self, run: &Run<'_>, why: &Waiting, helped: &mut Helped) -> Help {
        let Some(target) = run.target.as_ref() else { return Help::Nothing };
        let Some(element) = target.element.as_ref() else { return Help::Nothing };
        if *why != Waiting::Disabled {
            helped.disabled_since = None;
        }
        match why {
            Waiting::Minimized if !helped.restored => {
                helped.restored = true;
                match self.restore_minimized(target, element) {
                    Some(done) => {
                        self.until_active(target).await;
                        Help::Done(done)
                    }
                    None => Help::Nothing,
                }
            }
            Waiting::Hidden | Waiting::OffScreen | Waiting::ScrolledOut if !helped.scrolled => {
                helped.scrolled = true;
                // Accessibility first: the toolkit scrolls its own container, and no wheel
                // lands on a slider or a spin button by mistake.
                match self.a11y.scroll_into_view(&element.id).await {
                    Ok(()) => Help::Done(format!("scrolled {} into view (accessibility)", element.describe())),
                    Err(_) => Help::Nothing,
                }
            }
            // Accessibility did not bring it into view: the wheel, over its scrolling
            // container, toward where it lies.
            Waiting::Hidden | Waiting::OffScreen | Waiting::ScrolledOut if helped.wheel_turns < MAX_WHEEL_TURNS => {
                helped.wheel_turns += 1;
                // Boxed: it reads the window, and this future nests deep in the action's.
                match Box::pin(self.wheel_toward(run, element, helped.wheel_last)).await {
                    Some((done, turned)) => {
                        helped.wheel_last = turned;
                        Help::Done(done)
                    }
                    None => {
                        helped.wheel_turns = MAX_WHEEL_TURNS;
                        Help::Nothing
                    }
                }
            }
            Waiting::CoveredByOtherApp if !helped.raised => {
                helped.raised = true;
                let Some(locator) = self.windows.as_ref() else { return Help::Nothing };
                let query =
                    WindowQuery { pid: target.pid, title: target.window_title.clone().filter(|t| !t.is_empty()) };
                let raised = {
                    let locator = lock(locator);
                    locator.window(&query).and_then(|w| locator.activate(w.id))
                };
                match raised {
                    Ok(()) => Help::Done(format!(
                        "raised window {:?}: another application's window covered {}",
                        target.window_title.as_deref().unwrap_or(""),
                        element.describe()
                    )),
                    Err(_) => Help::Nothing,
                }
            }
            Waiting::Disabled => {
                let since = *helped.disabled_since.get_or_insert_with(Instant::now);
                if since.elapsed() < DISABLED_PATIENCE {
                    return Help::Nothing;
                }
                // Something that says it is at work (a busy state on it or around it, a
                // "Loading..." or "Please wait" text in its window) may still enable it:
                // keep waiting. Decorative spinners and progress bars say nothing about it.
                let Ok(reading) = self.read(&run.scope()).await else { return Help::Nothing };
                let snap = &reading.snap;
                let busy_around = std::iter::once(&element.id)
                    .chain(snap.ancestors(&element.id).map(|n| n.id()))
                    .any(|id| snap.get(id).is_some_and(|e| e.has(deft_types::State::Busy)));
                let window = target.window.as_ref();
                let says_loading = snap.nodes().any(|n| {
                    let e = n.element();
                    let in_window = window.is_none_or(|w| snap.ancestors(&e.id).any(|a| a.id() == w));
                    in_window
                        && e.has(deft_types::State::Showing)
                        && deft_snapshot::says_loading(e.visible_text(), &run.relevance)
                });
                let at_work = busy_around || says_loading;
                if at_work {
                    return Help::Nothing;
                }
                Help::Fail(format!(
                    "{} is disabled, and nothing in its application is working that could enable it",
                    element.describe()
                ))
            }
            _ => Help::Nothing,
        }
    }

    /// The target's top-level window when the window manager holds it minimised: known by
    /// its owner and title, or by its owner alone only when that owner has one minimised
    /// window, so that no other window is taken for it on a guess. `None`: not minimised,
    /// or it cannot be told (no window list on this platform).
    pub(crate) fn minimized_window(&self, target: &Resolved) -> Option<WindowGeometry> {
        let title = target.window_title.clone().filter(|t| !t.is_empty());
        let by_title = title.is_some();
        let query = WindowQuery { pid: target.pid, title };
        if query.pid.is_none() && !by_title {
            return None;
        }
        let mut minimized = lock(self.windows.as_ref()?).minimized(&query).ok()?;
        match minimized.len() {
            1 => minimized.pop(),
            n if n > 1 && by_title => minimized.pop(),
            _ => None,
        }
    }

    /// Ask the window manager to restore the target's minimised window, as a taskbar does
    /// (`_NET_ACTIVE_WINDOW`); what was done, for the outcome.
    fn restore_minimized(&self, target: &Resolved, element: &Element) -> Option<String> {
        let window = self.minimized_window(target)?;
        lock(self.windows.as_ref()?).activate(window.id).ok()?;
        Some(format!(
            "restored window {:?}, which was not shown (minimised or covered), to reach {}",
            window.title,
            element.describe()
        ))
    }

    /// Waits (bounded) until the application says the target's window is active again
    /// after it was restored: its focus comes back with it, and the state an input's effect
    /// is judged against must not be read before (a key's "effect" would be the focus
    /// returning to the field it left).
    async fn until_active(&self, target: &Resolved) {
        let Some(window) = target.window.as_ref() else { return };
        let until = Instant::now() + RESTORE_WAIT;
        while Instant::now() < until {
            if self.a11y.element(window).await.is_ok_and(|w| w.has(deft_types::State::Active)) {
                return;
            }
            tokio::time::sleep(RESTORE_POLL).await;
        }
    }

    /// One turn of the wheel over `element`'s nearest scrolling container, toward it. Only
    /// where it is known which way it lies (its bounds past the container's edge), and only
    /// at a point where the wheel scrolls (the container itself or plain content beneath the
    /// pointer, never a slider or a spin button that a wheel would change). `None`: no
    /// such turn can be made.
    async fn wheel_toward(&self, run: &Run<'_>, element: &Element, last: i32) -> Option<(String, i32)> {
        let target = run.target.as_ref()?;
        let reading = self.read(&run.scope()).await.ok()?;
        let snap = &reading.snap;
        // Its place now (the turns before moved it), else where it was resolved.
        let at = snap.get(&element.id).and_then(|e| e.bounds).or(element.bounds).filter(|b| !b.is_empty());
        // The container that leaves it out of view (whatever its role: Qt calls its scroll
        // area `filler`), else the innermost that says it scrolls.
        let clipping = match at.map(|b| in_view(snap, &element.id, b)) {
            Some(InView::Out(c)) => Some(c),
            _ => None,
        };
        let container = clipping.or_else(|| {
            snap.ancestors(&element.id)
                .map(|n| n.element())
                .find(|e| SCROLLERS.contains(&e.role.as_str()) && e.bounds.is_some_and(|b| !b.is_empty()))
                .cloned()
        })?;
        let view = container.bounds?;
        let way = match at {
            Some(at) if at.center().y >= view.y + view.h as i32 => 1,
            Some(at) if at.center().y < view.y => -1,
            Some(_) => return None,
            None => way_to(snap, &element.id)?,
        };
        let dy = way * notches_after(last, way);
        for p in wheel_points(view) {
            let Ok(hit) = self.a11y.hit_test(p).await else { continue };
            // A hit test that stops above the container (GTK 3's notebook answers for the
            // whole page it shows) says nothing of what is under the point: the read does.
            let stopped_above =
                |h: &deft_a11y::Hit| snap.ancestors(&container.id).any(|n| n.element().id == h.element.id);
            let sensitive_under = || {
                snap.nodes()
                    .map(|n| n.element())
                    .any(|e| WHEEL_SENSITIVE.contains(&e.role.as_str()) && e.bounds.is_some_and(|b| b.contains(p)))
            };
            let safe = hit.as_ref().is_some_and(|h| {
                !WHEEL_SENSITIVE.contains(&h.element.role.as_str())
                    && (h.chain.contains(&container.id) || (stopped_above(h) && !sensitive_under()))
            });
            if !safe {
                continue;
            }
            let point = target.scale.to_physical(p);
            let sent = {
                let mut input = lock(&self.input);
                input.move_to(point).and_then(|()| input.scroll(0, dy))
            };
            self.input_sent(Some(element.id.clone()));
            return sent.ok().map(|()| {
                let done = format!(
                    "scrolled {} with the wheel over {} (accessibility could not scroll it into view)",
                    if dy > 0 { "down" } else { "up" },
                    container.describe()
                );
                (done, dy)
            });
        }
        None
    }
}

/// How many notches the next turn of the wheel takes `way` (1 down, -1 up) after a turn of
/// `last`: as many as the last while it goes on the same way, half as many once it turns
/// back (the last went past the target: a short view in content that moves far per notch,
/// as Qt's scroll area with 60 px a notch, would swing around it forever).
pub(crate) fn notches_after(last: i32, way: i32) -> i32 {
    match last {
        0 => WHEEL_NOTCHES,
        l if l.signum() == way => l.abs(),
        l => (l.abs() / 2).max(1),
    }
}

/// Where a wheel may go over a scrolling container: near its right edge, where content
/// rarely has controls, then its centre, then near its left edge, all at mid height.
fn wheel_points(view: Rect<Logical>) -> [Point<Logical>; 3] {
    let y = view.y + view.h as i32 / 2;
    let inset = (view.w as i32 / 10).clamp(1, 24);
    [
        Point::new(view.x + view.w as i32 - inset, y),
        Point::new(view.x + view.w as i32 / 2, y),
        Point::new(view.x + inset, y),
    ]
}
