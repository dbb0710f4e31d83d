//! What the executor does for a target that is not actionable yet, as a careful person
//! would: scroll it into view, raise the window another application covers it with, and
//! stop waiting for a disabled control that nothing around it is working to enable.

use std::time::{Duration, Instant};

use deft_a11y::Accessibility;
use deft_input::WindowQuery;

use crate::executor::{Executor, lock};
use crate::ready::Waiting;
use crate::run::Run;

/// How long a disabled target is watched before asking whether anything could enable it
/// (a form that validates as you type enables its button within a frame or two).
const DISABLED_PATIENCE: Duration = Duration::from_millis(400);

/// What was already tried for this target.
#[derive(Default)]
pub(crate) struct Helped {
    scrolled: bool,
    raised: bool,
    disabled_since: Option<Instant>,
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

impl<A: Accessibility> Executor<A> {
    /// One step of help for a target that is not actionable for reason `why`.
    pub(crate) async fn help(&self, run: &Run<'_>, why: &Waiting, helped: &mut Helped) -> Help {
        let Some(target) = run.target.as_ref() else { return Help::Nothing };
        let Some(element) = target.element.as_ref() else { return Help::Nothing };
        if *why != Waiting::Disabled {
            helped.disabled_since = None;
        }
        match why {
            Waiting::Hidden | Waiting::OffScreen if !helped.scrolled => {
                helped.scrolled = true;
                // Accessibility first: the toolkit scrolls its own container, and no wheel
                // lands on a slider or a spin button by mistake.
                match self.a11y.scroll_into_view(&element.id).await {
                    Ok(()) => Help::Done(format!("scrolled {} into view (accessibility)", element.describe())),
                    Err(_) => Help::Nothing,
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
}
