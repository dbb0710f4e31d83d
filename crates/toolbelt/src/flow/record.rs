//! Recording a flow: a person does the task, and each press, typed text and chord becomes
//! a call of the same tools a flow replays.
//!
//! - A press is a `click` on the element under the pointer (accessibility's hit test, as
//!   the press arrives: a person's press lasts long enough for the answer), aimed by what a
//!   person reads (`aim.rs`): its name when it has one, role and application, the window's
//!   title and then `index` only when needed. Two presses at one place within
//!   [`DOUBLE_CLICK`] are one double click. Nothing accessible there: the point itself.
//! - Characters typed with no Control, Alt or Super are one `type`: into the field the
//!   last press went to when it takes text, else the field that has the focus (a press on
//!   a container that put the caret in the field inside it); a press that changed nothing
//!   to check and only put the caret there becomes that `type`. BackSpace takes back
//!   a character not yet written. Text typed into a secret field (a password) is never
//!   written: the step types `{{secret}}`, a variable the replay must be given.
//! - Any other key or chord is a `key`.
//! - A step's `expect` is what its press or key changed that a person would check: a new
//!   window (`title:`), else the longest text that appeared once in the application's
//!   windows (`text:`), as the application showed it when the person went on. What it
//!   changes by itself while nothing is done, and texts of digits alone (a clock, a
//!   counter), are never taken. Typed text has none:
//!   the `type` tool checks the text itself.

use std::collections::BTreeSet;
use std::future::Future;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use deft_a11y::Accessibility as _;
use deft_input::Watched;
use deft_types::{Element, Logical, Point, State};
use serde_json::{Map, Value, json};

use crate::belt::Toolbelt;
use crate::error::{ToolError, ToolErrorKind};
use crate::output::{ToolOutput, TreeNode};
use crate::params::{ReadParams, TargetParams};
use crate::plan::ToolCall;
use crate::spelling::AsParams;

/// Two presses of one button at one place within this are a double click.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);
/// How often what a step changed is read after it, until the person acts again or
/// [`SETTLE_MAX`] has passed: the last read is what the person saw before going on, so a
/// "Saving..." that becomes a dialog is not taken for what the step brings about.
const SETTLE: Duration = Duration::from_millis(500);
const SETTLE_MAX: Duration = Duration::from_secs(5);
/// How often, while the person does nothing, what the application shows is read again: a
/// change it makes by itself (a page that finishes loading) is then part of what the next
/// step starts from, never taken for that step's effect.
pub(super) const IDLE_READ: Duration = Duration::from_millis(800);
/// How often the recording looks whether it should stop.
const POLL: Duration = Duration::from_millis(100);
/// The variable a secret field's text is written as.
pub const SECRET_VAR: &str = "secret";

/// One recorded step: the tool and its parameters (as a flow file writes them), and its
/// expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedStep {
    /// The tool.
    pub tool: &'static str,
    /// Its parameters.
    pub params: Map<String, Value>,
    /// A condition its effect makes true, when one was seen.
    pub expect: Option<String>,
}

/// What the recording saw of an application's windows: their titles and the texts shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Seen {
    titles: BTreeSet<String>,
    texts: Vec<String>,
}

/// Where typed characters are gathered until something else happens.
pub(super) struct Typing {
    pub(super) target: Map<String, Value>,
    pub(super) secret: bool,
    pub(super) text: String,
}

/// A press, remembered for a double click and for where typed text goes.
struct LastPress {
    button: u8,
    at: Point<deft_types::Physical>,
    when: Instant,
    /// The parameters aiming at the field it went to, when that takes text, and whether
    /// the field is a secret one.
    field: Option<(Map<String, Value>, bool)>,
}

/// A step whose effect is still settling.
pub(super) struct Unsettled {
    index: usize,
    taken: Instant,
    pub(super) next_read: Instant,
    last: Option<Seen>,
}

/// The recording's state between events.
pub(super) struct Recorder<'a> {
    pub(super) belt: &'a Toolbelt,
    pub(super) steps: Vec<RecordedStep>,
    pub(super) typing: Option<Typing>,
    /// The last press.
    last_press: Option<LastPress>,
    /// The application the last press went to.
    app: Option<String>,
    /// What its windows showed after the last step settled.
    seen: Option<Seen>,
    /// The step whose effect is still to be read: its index, when it was taken, when to
    /// read next, and the last read since.
    pub(super) unsettled: Option<Unsettled>,
    /// What a recording that infers its steps (Wayland) keeps between events.
    pub(super) inference: super::infer::Inference,
}

/// What a recording wrote down.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    /// The steps, in order.
    pub steps: Vec<RecordedStep>,
    /// Whether they were inferred from what the applications reported (a Wayland session)
    /// rather than from the person's input.
    pub inferred: bool,
    /// Changes no step explains (an inferred recording): steps to add by hand, in words.
    pub unseen: Vec<String>,
}

impl Toolbelt {
    /// Records a flow from what a person does on this desktop, until `stop` completes (or
    /// the person presses `until`, a chord that is not recorded), calling `ready` once input
    /// is watched (with what the person must know when the steps are inferred: Wayland) and
    /// `each` with each step as it is written down (the last may still gain its `expect`).
    /// `app`: the application the first keys go to, when they come before any press.
    pub async fn record_flow(
        &self,
        app: Option<String>,
        until: Option<&str>,
        stop: impl Future<Output = ()>,
        ready: impl FnOnce(Option<&str>),
        mut each: impl FnMut(&RecordedStep) -> ControlFlow<()>,
    ) -> Result<Recording, ToolError> {
        let until = match until {
            Some(c) => Some(
                deft_input::Chord::parse(c)
                    .map_err(|e| ToolError::usage(format!("the chord that ends the recording: {e}")))?,
            ),
            None => None,
        };
        let mut r = Recorder::new(self, app.clone());
        if matches!(deft_verify::Session::probe(self.desktop()), deft_verify::Session::Wayland(_)) {
            if until.is_some() {
                return Err(ToolError::usage(
                    "on a Wayland session no key is seen, so a chord cannot end the recording: end it with Ctrl+C",
                ));
            }
            let events = super::infer::events(&r).await?;
            if let Some(a) = &app {
                r.seen = r.read_seen(a).await;
            }
            ready(Some(super::infer::INFERRED));
            r.infer_until(events, stop, &mut each).await?;
            r.end_typing().await;
            r.read_effect(true).await;
            return Ok(Recording { steps: r.steps, inferred: true, unseen: r.inference.unseen });
        }
        let mut watch = deft_verify::Desktop::watch_input(self.desktop())
            .map_err(|e| ToolError::new(ToolErrorKind::Unavailable, format!("cannot record: {e}")))?;
        ready(None);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let halt = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let halted = std::sync::Arc::clone(&halt);
        // The watch blocks on the display's socket: on a thread of its own.
        let watcher = tokio::task::spawn_blocking(move || {
            while !halted.load(std::sync::atomic::Ordering::Relaxed) {
                match watch.next(POLL) {
                    Ok(None) => {}
                    Ok(Some(w)) => {
                        if tx.send(Ok(w)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        break;
                    }
                }
            }
        });
        if let Some(a) = &app {
            r.seen = r.read_seen(a).await;
        }
        tokio::pin!(stop);
        let result = loop {
            let settle_in = r.unsettled.as_ref().map(|u| u.next_read.saturating_duration_since(Instant::now()));
            let next = tokio::select! {
                w = rx.recv() => w,
                () = &mut stop => break Ok(()),
                () = tokio::time::sleep(settle_in.unwrap_or(IDLE_READ)) => {
                    match settle_in {
                        Some(_) => r.read_effect(false).await,
                        None => r.refresh().await,
                    }
                    continue;
                }
            };
            let watched = match next {
                Some(Ok(w)) => w,
                Some(Err(e)) => {
                    break Err(ToolError::new(ToolErrorKind::Unavailable, format!("recording stopped: {e}")));
                }
                None => break Ok(()),
            };
            if let (Some(u), Watched::Key(chord)) = (&until, &watched)
                && u == chord
            {
                break Ok(());
            }
            let before = r.steps.len();
            r.read_effect(true).await;
            r.take(watched).await;
            if r.steps.len() > before
                && let Some(step) = r.steps.last()
                && each(step).is_break()
            {
                break Ok(());
            }
        };
        halt.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = watcher.await;
        result?;
        r.flush_typing();
        r.read_effect(true).await;
        Ok(Recording { steps: r.steps, inferred: false, unseen: Vec::new() })
    }
}

impl<'a> Recorder<'a> {
    /// A recording on `belt`, the first keys going to `app`.
    pub(super) fn new(belt: &'a Toolbelt, app: Option<String>) -> Recorder<'a> {
        Recorder {
            belt,
            steps: Vec::new(),
            typing: None,
            last_press: None,
            app,
            seen: None,
            unsettled: None,
            inference: super::infer::Inference::default(),
        }
    }
}

impl Recorder<'_> {
    /// One thing the person did.
    async fn take(&mut self, watched: Watched) {
        if let Some(c) = watched.typed_char() {
            self.type_char(c).await;
            return;
        }
        match watched {
            Watched::Key(chord)
                if chord.to_string() == "BackSpace" && self.typing.as_ref().is_some_and(|t| !t.text.is_empty()) =>
            {
                if let Some(t) = &mut self.typing {
                    t.text.pop();
                }
            }
            Watched::Key(chord) => {
                self.flush_typing();
                self.push(RecordedStep { tool: "key", params: obj(json!({"keys": chord.to_string()})), expect: None });
                // The keys may have moved the focus: what a press pointed at no longer says
                // where text goes.
                self.last_press = None;
            }
            Watched::Press { button, at } => self.press(button, at).await,
        }
    }

    async fn press(&mut self, button: u8, at: Point<deft_types::Physical>) {
        self.flush_typing();
        if let Some(last) = &self.last_press
            && last.button == button
            && last.at == at
            && last.when.elapsed() < DOUBLE_CLICK
            && let Some(last) = self.steps.last_mut()
            && last.tool == "click"
        {
            last.params.insert("double".into(), Value::Bool(true));
            self.last_press = None;
            return;
        }
        // Root coordinates are the logical ones at scale 1, which the hit test takes.
        let point = Point::<Logical>::new(at.x, at.y);
        let hit = self.belt.executor().a11y().hit_test(point).await.ok().flatten();
        let mut params = match &hit {
            Some(h) => self.aim(&h.element).await,
            None => None,
        }
        .unwrap_or_else(|| obj(json!({"at": [at.x, at.y]})));
        let field = hit.as_ref().map(|h| &h.element).filter(|e| takes_text(e)).map(|e| (params.clone(), e.is_secret()));
        match button {
            2 => drop(params.insert("button".into(), json!("middle"))),
            3 => drop(params.insert("button".into(), json!("right"))),
            _ => {}
        }
        self.push(RecordedStep { tool: "click", params, expect: None });
        self.last_press = Some(LastPress { button, at, when: Instant::now(), field });
    }

    /// A typed character. The first of a text decides where it goes: the field the last
    /// press went to, else the field that has the focus now (a press on a container that put
    /// the caret in the field inside it). A press that changed nothing a person could check
    /// and only put the caret there is then the `type` itself: its step goes (a replayed
    /// `type` focuses its field, and a press with no effect to verify would stop the flow).
    async fn type_char(&mut self, c: char) {
        if self.typing.is_none() {
            let pressed = self.last_press.as_ref().and_then(|p| p.field.clone());
            let field = match pressed {
                Some(f) => Some(f),
                None => self.focused_field().await,
            };
            let caret_only = field.is_some()
                && self.last_press.is_some()
                && self.steps.last().is_some_and(|s| s.tool == "click" && s.expect.is_none());
            if caret_only {
                self.steps.pop();
                self.unsettled = None;
            }
            let (target, secret) = field.unwrap_or_default();
            self.typing = Some(Typing { target, secret, text: String::new() });
        }
        if let Some(t) = &mut self.typing {
            t.text.push(c);
        }
    }

    /// The field that has the keyboard focus in the application, aimed by name, and whether
    /// it is a secret one.
    async fn focused_field(&mut self) -> Option<(Map<String, Value>, bool)> {
        let app = self.app.clone()?;
        let target = TargetParams { app: Some(app), ..TargetParams::default() };
        let call = ToolCall::Read(ReadParams { target, ..ReadParams::default() });
        let Ok(ToolOutput::Read(r)) = self.belt.call(&call, &AsParams).await else { return None };
        fn focused(n: &TreeNode) -> Option<&Element> {
            if n.element.has(State::Focused) && takes_text(&n.element) {
                return Some(&n.element);
            }
            n.children.iter().find_map(focused)
        }
        let e = r.roots.iter().find_map(focused)?.clone();
        let (params, _) = super::aim::aim(self.belt, &e.id.0).await?;
        Some((params, e.is_secret()))
    }

    /// The gathered text as one `type` step.
    fn flush_typing(&mut self) {
        let Some(t) = self.typing.take().filter(|t| !t.text.is_empty()) else { return };
        let mut params = t.target;
        params.retain(|k, _| k != "double" && k != "button");
        let text = if t.secret { format!("{{{{{SECRET_VAR}}}}}") } else { t.text };
        params.insert("text".into(), Value::String(text));
        self.steps.push(RecordedStep { tool: "type", params, expect: None });
    }

    pub(super) fn push(&mut self, step: RecordedStep) {
        self.steps.push(step);
        let now = Instant::now();
        self.unsettled =
            Some(Unsettled { index: self.steps.len() - 1, taken: now, next_read: now + SETTLE, last: None });
    }

    /// Reads what the last step changed; when `now` (the person acts again, or the recording
    /// ends) or [`SETTLE_MAX`] has passed, keeps the last read's change as the step's
    /// `expect`. Taken when the person acts again, the last read stands: the read would
    /// race the new input.
    pub(super) async fn read_effect(&mut self, now: bool) {
        let Some(mut u) = self.unsettled.take() else { return };
        let Some(app) = self.app.clone() else { return };
        let reading = match (&u.last, now) {
            (Some(last), true) => Some(last.clone()),
            _ => self.read_seen(&app).await,
        };
        let Some(after) = reading else { return };
        let settled = now || u.taken.elapsed() >= SETTLE_MAX;
        if !settled {
            u.last = Some(after);
            u.next_read = Instant::now() + SETTLE;
            self.unsettled = Some(u);
            return;
        }
        if let (Some(before), Some(step)) = (&self.seen, self.steps.get_mut(u.index))
            && step.tool != "type"
        {
            step.expect = expectation(before, &after);
        }
        self.seen = Some(after);
    }

    /// What the application shows now, as the start of the next step (nothing is settling;
    /// text being typed has no expectation to spoil).
    pub(super) async fn refresh(&mut self) {
        if let Some(app) = self.app.clone()
            && let Some(now) = self.read_seen(&app).await
        {
            self.seen = Some(now);
        }
    }

    /// The parameters that aim at `element` (`aim.rs`); its application becomes the one
    /// whose windows are read.
    pub(super) async fn aim(&mut self, element: &Element) -> Option<Map<String, Value>> {
        let (params, app) = super::aim::aim(self.belt, &element.id.0).await?;
        if self.app.as_deref() != Some(app.as_str()) {
            self.seen = self.read_seen(&app).await;
            self.app = Some(app);
        }
        Some(params)
    }

    /// The titles and texts `app`'s windows show.
    async fn read_seen(&self, app: &str) -> Option<Seen> {
        let target = TargetParams { app: Some(app.to_string()), ..TargetParams::default() };
        let call = ToolCall::Read(ReadParams { target, ..ReadParams::default() });
        let Ok(ToolOutput::Read(r)) = self.belt.call(&call, &AsParams).await else { return None };
        let mut seen = Seen::default();
        // The roots are applications; their children, the windows.
        for window in r.roots.iter().flat_map(|app| &app.children) {
            if window.element.has(State::Showing) && !window.element.name.is_empty() {
                seen.titles.insert(window.element.name.clone());
            }
            gather(window, &mut seen.texts);
        }
        Some(seen)
    }
}

/// The texts shown in a tree: labels' and status lines' words, as a person reads them.
fn gather(node: &TreeNode, out: &mut Vec<String>) {
    let e = &node.element;
    if !e.has(State::Showing) {
        return;
    }
    // A page's paragraph is read as a label is (a status line written into a `<p>`).
    if matches!(e.role.as_str(), "label" | "status_bar" | "heading" | "static" | "alert" | "notification" | "paragraph")
    {
        let text = e.text.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&e.name).trim();
        if !text.is_empty() && !e.is_secret() {
            out.push(text.to_string());
        }
    }
    for c in &node.children {
        gather(c, out);
    }
}

/// The condition a step's effect made true: a window that opened, else a text that
/// appeared and is shown once, the longest such (never one of digits alone, which change by
/// themselves).
fn expectation(before: &Seen, after: &Seen) -> Option<String> {
    if let Some(title) = after.titles.difference(&before.titles).next() {
        return Some(format!("title:{}", deft_a11y::selector::quote(title)));
    }
    // The longest: a sentence says more than a counter beside it.
    let new = after
        .texts
        .iter()
        .filter(|t| {
            !before.texts.contains(t)
                && after.texts.iter().filter(|x| x == t).count() == 1
                && t.chars().any(char::is_alphabetic)
        })
        .max_by_key(|t| t.chars().count())?;
    Some(format!("text:{}", deft_a11y::selector::quote(new)))
}

/// Whether typed characters land in `e` itself.
pub(super) fn takes_text(e: &Element) -> bool {
    e.has(State::Editable) || matches!(e.role.as_str(), "text" | "entry" | "password_text")
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{Seen, expectation};

    fn seen(titles: &[&str], texts: &[&str]) -> Seen {
        Seen {
            titles: titles.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
            texts: texts.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_step_expects_the_window_it_opened_else_a_text_it_showed_once() {
        let before = seen(&["Main"], &["Ready", "12:00"]);
        assert_eq!(
            expectation(&before, &seen(&["Main", "Save complete"], &["Ready"])).as_deref(),
            Some("title:\"Save complete\"")
        );
        assert_eq!(
            expectation(&before, &seen(&["Main"], &["Orders: 1", "Order 1 submitted", "12:01"])).as_deref(),
            Some("text:\"Order 1 submitted\""),
            "a clock's tick is never the effect"
        );
        assert_eq!(expectation(&before, &seen(&["Main"], &["Ready", "12:01"])), None);
        assert_eq!(expectation(&before, &seen(&["Main"], &["Done", "Done"])), None, "shown twice: not specific");
    }
}
