//! Recording where a person's input cannot be watched (a Wayland session: no client may
//! see another's input): the steps are inferred from what the applications report over
//! accessibility, and the recording says so.
//!
//! - A toggle whose `checked` state changed was pressed: a `click` on it.
//! - A pressable element (a button, a menu item) that took the focus, followed within
//!   [`PRESS_EFFECT`] by a change in the application (a label's text, a name, a new
//!   window), was pressed: a `click` on it. A button focused by Tab and left is no step;
//!   a second press on a button that still has the focus shows no new focus and is not
//!   seen.
//! - Text inserted into the focused field is typing: a `type` of it when it went in at the
//!   end, one character after another (Backspace over it taken back); any other edit, a
//!   `fill` with the field's text when the person left it. A secret field's text is never
//!   read: the step types `{{secret}}`.
//! - A change with no press or typing seen before it (a key such as Return or a shortcut,
//!   a menu, a press on something that reports nothing) is no step: it is kept as a note,
//!   for the person to add that step by hand.
//!
//! Each step's `expect` comes as on X11: what its application showed after it settled.

use std::time::{Duration, Instant};

use deft_a11y::events::{TextChange, WindowChange};
use deft_a11y::{A11yEvent, Accessibility as _, EventFilter, EventKind};
use deft_types::{Element, ElementId, State};
use futures_util::StreamExt;
use serde_json::Value;

use super::record::{IDLE_READ, Recorder, SECRET_VAR, Typing, takes_text};
use crate::error::{ToolError, ToolErrorKind};

/// How long after a pressable element took the focus a change in its application still
/// counts as that press's effect.
const PRESS_EFFECT: Duration = Duration::from_secs(3);
/// A toggle's state change this soon after a click inferred on it is that click's.
const SAME_PRESS: Duration = Duration::from_millis(500);

/// What a Wayland recording tells the person first.
pub const INFERRED: &str = "this is a Wayland session, where no application may watch another's input: the steps are \
                            inferred from what the applications report. Presses on buttons, toggles and menu items, \
                            and typed text, are seen; keys that type no text (Return, shortcuts) and a second press \
                            on a button that still has the focus are not, and are listed at the end to add by hand";

/// What inference keeps between events.
#[derive(Default)]
pub(super) struct Inference {
    /// The element that has the focus, since when, and whether a press on it was taken.
    focus: Option<(Element, Instant, bool)>,
    /// The last click inferred: its element and when.
    last_click: Option<(ElementId, Instant)>,
    /// Typing in the focused field: where its text began and where it ends now, or `None`
    /// once an edit other than typing at the end was seen.
    typed_span: Option<(i32, i32)>,
    /// Changes no step explains, in words, and when the last was noted.
    pub(super) unseen: Vec<String>,
    last_note: Option<Instant>,
    started: Option<Instant>,
}

/// The events inference reads.
pub(super) fn filter() -> EventFilter {
    EventFilter::only(&[EventKind::StateChanged, EventKind::TextChanged, EventKind::PropertyChanged, EventKind::Window])
}

/// Opens the accessibility event stream a Wayland recording reads.
pub(super) async fn events(r: &Recorder<'_>) -> Result<deft_a11y::EventStream, ToolError> {
    r.belt.executor().a11y().events(&filter()).await.map_err(|e| {
        ToolError::new(ToolErrorKind::Unavailable, format!("cannot record: the accessibility events: {e}"))
    })
}

impl Recorder<'_> {
    /// One accessibility event, read for what the person did.
    pub(super) async fn infer(&mut self, event: A11yEvent) {
        let now = Instant::now();
        self.inference.started.get_or_insert(now);
        match event {
            A11yEvent::StateChanged { element, state, on: true } if state == "focused" => {
                self.focus_moved(&element, now).await;
            }
            A11yEvent::StateChanged { element, state, .. } if state == "checked" && self.is_focus(&element) => {
                // The toggle pressed is the one that has the focus (a press gives it): its
                // own state change is that press, once.
                let again = self
                    .inference
                    .last_click
                    .as_ref()
                    .is_some_and(|(id, at)| *id == element && at.elapsed() < SAME_PRESS);
                if !again {
                    self.click_on(&element, now).await;
                } else if let Some((_, _, taken)) = &mut self.inference.focus {
                    *taken = true;
                }
            }
            // Another toggle changing (the radio button the pressed one unchecked, the boxes
            // a "select all" ticked) is the press's effect, not a press.
            A11yEvent::StateChanged { element, state, .. } if state == "checked" => {
                self.app_changed(&element, false, now).await;
            }
            A11yEvent::TextChanged { element, change, position, length, text } if self.is_focus(&element) => {
                self.typed(change, position, length, &text).await;
            }
            A11yEvent::TextChanged { element, .. } => self.app_changed(&element, false, now).await,
            // What a person reads changed (not a parent or a description being rebuilt).
            A11yEvent::PropertyChanged { element, property }
                if !self.is_focus(&element) && matches!(property.as_str(), "accessible-name" | "accessible-value") =>
            {
                self.app_changed(&element, false, now).await;
            }
            A11yEvent::Window { element, change: WindowChange::Create | WindowChange::Destroy, .. } => {
                self.app_changed(&element, true, now).await;
            }
            _ => {}
        }
    }

    fn is_focus(&self, id: &ElementId) -> bool {
        self.inference.focus.as_ref().is_some_and(|(e, _, _)| e.id == *id)
    }

    async fn focus_moved(&mut self, id: &ElementId, now: Instant) {
        if self.is_focus(id) {
            return;
        }
        let Ok(element) = self.belt.executor().a11y().element(id).await else { return };
        self.end_typing().await;
        self.inference.focus = Some((element, now, false));
    }

    /// Something changed in an application (`window`: a window opened or closed): the
    /// effect of a press on the pressable element that took the focus just before, else a
    /// change no step explains. Typing changes what is shown (a count, a check) but opens
    /// and closes no window: a window while the focus is in a field is a key's doing. Only
    /// the focused element's own application counts: another's changes (a clock, the
    /// terminal this recording prints to) are no effect of anything the person did there.
    async fn app_changed(&mut self, id: &ElementId, window: bool, now: Instant) {
        let same_app = self.inference.focus.as_ref().is_some_and(|(e, _, _)| app_of(&e.id) == app_of(id));
        if !same_app {
            return;
        }
        let pressed = match &self.inference.focus {
            Some((e, since, false)) if pressable(e) && now.duration_since(*since) < PRESS_EFFECT => Some(e.id.clone()),
            // The press was taken already, or typing goes on: this is part of its effect.
            Some((e, _, true)) if pressable(e) => return,
            Some((e, _, _)) if takes_text(e) && !window => return,
            _ => None,
        };
        if let Some(p) = pressed {
            self.click_on(&p, now).await;
            return;
        }
        let what = match self.belt.executor().a11y().element(id).await {
            Ok(e) if e.name.trim().is_empty() => e.role.as_str().to_string(),
            Ok(e) => format!("{} {:?}", e.role.as_str(), e.name),
            Err(_) => "an element".into(),
        };
        let at = self.inference.started.map_or(0.0, |s| now.duration_since(s).as_secs_f64());
        let note = format!(
            "at {at:.1} s, after step {}: {what} changed with no press or typing seen (a key, or a press on something \
             that reports nothing?)",
            self.steps.len()
        );
        // One note per burst of changes (a label's text and its name change together); a
        // window is always worth its own.
        let burst = self.inference.last_note.is_some_and(|t| now.duration_since(t) < SAME_PRESS);
        if window || !burst {
            self.inference.unseen.push(note);
        }
        self.inference.last_note = Some(now);
    }

    async fn click_on(&mut self, id: &ElementId, now: Instant) {
        // As it was when it took the focus: a press may rename what it pressed ("Save"
        // becomes "Saving..."), and the replay finds it as it was before the press.
        let focused = self.inference.focus.as_ref().filter(|(e, _, _)| e.id == *id).map(|(e, _, _)| e.clone());
        let element = match focused {
            Some(e) => e,
            None => match self.belt.executor().a11y().element(id).await {
                Ok(e) => e,
                Err(_) => return,
            },
        };
        self.end_typing().await;
        // The step before it has settled: its effect is what was read before this one.
        self.read_effect(true).await;
        let mut params = self.aim(&element).await.unwrap_or_default();
        if params.is_empty() {
            return;
        }
        if !element.name.trim().is_empty()
            && params.get("name").and_then(Value::as_str).is_some_and(|n| n != element.name)
        {
            params.insert("name".into(), Value::String(element.name.clone()));
            params.remove("index");
        }
        self.push(super::RecordedStep { tool: "click", params, expect: None });
        self.inference.last_click = Some((id.clone(), now));
        if let Some((_, _, taken)) = self.inference.focus.as_mut().filter(|(e, _, _)| e.id == *id) {
            *taken = true;
        }
    }

    /// Text inserted into or deleted from the focused field.
    async fn typed(&mut self, change: TextChange, position: i32, length: i32, text: &str) {
        let Some((field, _, _)) = self.inference.focus.clone() else { return };
        if !takes_text(&field) {
            return;
        }
        if self.typing.is_none() {
            self.read_effect(true).await;
            let target = self.aim(&field).await.unwrap_or_default();
            self.typing = Some(Typing { target, secret: field.is_secret(), text: String::new() });
            // Typing at the end of what the field held: what it holds now, less this
            // insert, ends where the insert went. An edit inside the text (or keys that
            // came faster than this read) is written as the field's whole text instead.
            let held = match self.belt.executor().a11y().element(&field.id).await {
                Ok(now) => now.text.unwrap_or_default().chars().count(),
                Err(_) => 0,
            };
            let at_end =
                change == TextChange::Insert && usize::try_from(position + length).is_ok_and(|end| end == held);
            self.inference.typed_span = at_end.then_some((position, position));
        }
        // Once not typing at the end, the step is the field's whole text when it is left.
        let (Some(t), Some((start, end))) = (&mut self.typing, self.inference.typed_span) else { return };
        match change {
            TextChange::Insert if position == end => {
                // A secret's characters stay here, never written: the step types `{{secret}}`
                // (and toolkits send them masked anyway).
                t.text.push_str(text);
                self.inference.typed_span = Some((start, end + length));
            }
            TextChange::Delete if position + length == end && position >= start => {
                let keep = usize::try_from(position - start).unwrap_or(0);
                t.text = t.text.chars().take(keep).collect();
                self.inference.typed_span = Some((start, position));
            }
            _ => self.inference.typed_span = None,
        }
    }

    /// The person left the field: what they typed becomes a step (`type`, or `fill` with the
    /// field's text after edits other than typing at the end).
    pub(super) async fn end_typing(&mut self) {
        let Some(t) = self.typing.take() else { return };
        let whole = self.inference.typed_span.take().is_none();
        let typed_something = !t.text.is_empty();
        let text = match (t.secret, whole) {
            (true, _) => format!("{{{{{SECRET_VAR}}}}}"),
            (false, false) => t.text,
            (false, true) => match self.inference.focus.as_ref() {
                Some((e, _, _)) => match self.belt.executor().a11y().element(&e.id).await {
                    Ok(now) => now.text.unwrap_or_default(),
                    Err(_) => return,
                },
                None => return,
            },
        };
        if (!typed_something && !whole) || text.is_empty() || t.target.is_empty() {
            return;
        }
        let mut params = t.target;
        params.insert("text".into(), Value::String(text));
        let tool = if whole && !t.secret { "fill" } else { "type" };
        self.steps.push(super::RecordedStep { tool, params, expect: None });
    }

    /// The recording loop over accessibility events, until `stop`.
    pub(super) async fn infer_until(
        &mut self,
        mut events: deft_a11y::EventStream,
        stop: impl std::future::Future<Output = ()>,
        each: &mut impl FnMut(&super::RecordedStep) -> std::ops::ControlFlow<()>,
    ) -> Result<(), ToolError> {
        tokio::pin!(stop);
        loop {
            let settle_in = self.unsettled.as_ref().map(|u| u.next_read.saturating_duration_since(Instant::now()));
            let next = tokio::select! {
                e = events.next() => e,
                () = &mut stop => return Ok(()),
                () = tokio::time::sleep(settle_in.unwrap_or(IDLE_READ)) => {
                    match settle_in {
                        Some(_) => self.read_effect(false).await,
                        None => self.refresh().await,
                    }
                    continue;
                }
            };
            let event = match next {
                Some(Ok(e)) => e,
                Some(Err(e)) => {
                    return Err(ToolError::new(ToolErrorKind::Unavailable, format!("recording stopped: {e}")));
                }
                None => return Ok(()),
            };
            let before = self.steps.len();
            self.infer(event).await;
            // A focus change can write two (the typing it ended, then a press).
            if self.steps[before.min(self.steps.len())..].iter().any(|step| each(step).is_break()) {
                return Ok(());
            }
        }
    }
}

/// The application an element belongs to, as its id names it (the bus name before `|`).
fn app_of(id: &ElementId) -> &str {
    id.0.split('|').next().unwrap_or(&id.0)
}

/// Whether a press is what `e` is for.
fn pressable(e: &Element) -> bool {
    matches!(
        e.role.as_str(),
        "push_button" | "button" | "toggle_button" | "menu_item" | "link" | "radio_button" | "check_box" | "tab"
    ) && !e.has(State::Editable)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use deft_a11y::events::{TextChange, WindowChange};
    use deft_a11y::{A11yEvent, AnyAccessibility, FakeAccessibility, Tree, TreeBuilder, element};
    use deft_types::{ElementId, State};
    use deft_verify::{Backends, Executor, ExecutorConfig};

    use super::super::record::Recorder;
    use crate::{BeltSettings, LazyOcr, Toolbelt};

    fn tree(save: &str, name_text: &str) -> Tree {
        let mut b = TreeBuilder::new();
        let app = b.app(element("a1|app", "application", "demo"));
        let main = b.child(app, element("a1|main", "frame", "Main"));
        b.child(main, element("a1|save", "push_button", save));
        b.child(main, element("a1|hello", "push_button", "Hello"));
        b.child(main, element("a1|sub", "check_box", "Subscribe"));
        b.child(main, element("a1|red", "radio_button", "Red"));
        b.child(main, element("a1|blue", "radio_button", "Blue"));
        let mut name = element("a1|name", "text", "Name");
        name.states.insert(State::Editable);
        name.text = Some(name_text.into());
        b.child(main, name);
        b.child(main, element("a1|status", "label", "Ready"));
        b.build()
    }

    fn belt(ui: &Arc<FakeAccessibility>) -> Toolbelt {
        let backends = Backends {
            a11y: AnyAccessibility::shared(Arc::clone(ui)),
            input: Box::new(deft_input::RecordingInput::new(400, 300)),
            windows: None,
            capture: None,
            ocr: None,
        };
        let executor = Executor::new(backends, ExecutorConfig::default()).unwrap();
        Toolbelt::new(executor, Arc::new(LazyOcr::default()), BeltSettings::for_models())
    }

    /// The id of element `s` of the app (`a1`), as AT-SPI ids name their app first.
    fn id(s: &str) -> ElementId {
        if s.contains('|') { ElementId(s.into()) } else { ElementId(format!("a1|{s}")) }
    }
    fn focus(e: &str) -> A11yEvent {
        A11yEvent::StateChanged { element: id(e), state: "focused".into(), on: true }
    }
    fn text(e: &str, change: TextChange, position: i32, text: &str) -> A11yEvent {
        let length = i32::try_from(text.chars().count()).unwrap();
        A11yEvent::TextChanged { element: id(e), change, position, length, text: text.into() }
    }
    fn status_changed() -> A11yEvent {
        A11yEvent::PropertyChanged { element: id("status"), property: "accessible-name".into() }
    }

    /// The steps inferred from `events` (on a desktop showing `tree`), and the notes.
    async fn inferred(ui: &Arc<FakeAccessibility>, events: Vec<A11yEvent>) -> (Vec<String>, Vec<String>) {
        let belt = belt(ui);
        let mut r = Recorder::new(&belt, None);
        for e in events {
            r.infer(e).await;
        }
        r.end_typing().await;
        let steps =
            r.steps.iter().map(|s| format!("{} {}", s.tool, serde_json::Value::Object(s.params.clone()))).collect();
        (steps, r.inference.unseen.clone())
    }

    #[tokio::test]
    async fn a_button_that_took_the_focus_and_then_changed_the_app_was_pressed() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "")));
        let (steps, unseen) = inferred(&ui, vec![focus("save"), status_changed(), status_changed()]).await;
        assert_eq!(steps, [r#"click {"app":"demo","name":"Save","role":"push_button"}"#], "one press, not two");
        assert!(unseen.is_empty(), "{unseen:?}");
        // Tabbed to and left: no step.
        let (steps, _) = inferred(&ui, vec![focus("hello"), focus("save")]).await;
        assert!(steps.is_empty(), "{steps:?}");
    }

    #[tokio::test]
    async fn a_press_that_renames_its_button_is_written_with_the_name_it_had() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "")));
        let belt = belt(&ui);
        let mut r = Recorder::new(&belt, None);
        r.infer(focus("save")).await;
        ui.set_tree(tree("Saving...", ""));
        r.infer(status_changed()).await;
        assert_eq!(r.steps.len(), 1);
        assert_eq!(r.steps[0].params["name"], "Save", "{:?}", r.steps[0]);
    }

    #[tokio::test]
    async fn a_toggle_is_one_click_and_typing_at_the_end_is_one_type() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "")));
        let checked = A11yEvent::StateChanged { element: id("sub"), state: "checked".into(), on: true };
        let belt = belt(&ui);
        let mut r = Recorder::new(&belt, None);
        for e in [focus("sub"), status_changed(), checked, focus("name")] {
            r.infer(e).await;
        }
        // The field holds what was typed when each event is read.
        ui.set_tree(tree("Save", "A"));
        r.infer(text("name", TextChange::Insert, 0, "A")).await;
        for e in [
            text("name", TextChange::Insert, 1, "dx"),
            text("name", TextChange::Delete, 2, "x"),
            text("name", TextChange::Insert, 2, "a"),
            status_changed(),
        ] {
            r.infer(e).await;
        }
        r.end_typing().await;
        let steps: Vec<String> =
            r.steps.iter().map(|s| format!("{} {}", s.tool, serde_json::Value::Object(s.params.clone()))).collect();
        let unseen = r.inference.unseen.clone();
        assert_eq!(
            steps,
            [
                r#"click {"app":"demo","name":"Subscribe","role":"check_box"}"#,
                r#"type {"app":"demo","name":"Name","role":"text","text":"Ada"}"#
            ]
        );
        assert!(unseen.is_empty(), "a change while typing is typing's: {unseen:?}");
    }

    #[tokio::test]
    async fn a_radio_picked_is_one_click_and_the_one_it_unchecked_is_its_effect() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "")));
        let checked = |e: &str, on: bool| A11yEvent::StateChanged { element: id(e), state: "checked".into(), on };
        let events = vec![focus("blue"), checked("red", false), checked("blue", true), status_changed()];
        let (steps, unseen) = inferred(&ui, events).await;
        assert_eq!(steps, [r#"click {"app":"demo","name":"Blue","role":"radio_button"}"#], "one press");
        assert!(unseen.is_empty(), "{unseen:?}");
    }

    #[tokio::test]
    async fn another_application_s_changes_are_no_press() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "")));
        let elsewhere = A11yEvent::TextChanged {
            element: id("a2|terminal"),
            change: TextChange::Insert,
            position: 0,
            length: 9,
            text: "recorded:".into(),
        };
        let (steps, unseen) = inferred(&ui, vec![focus("save"), elsewhere]).await;
        assert!(steps.is_empty() && unseen.is_empty(), "{steps:?} {unseen:?}");
    }

    #[tokio::test]
    async fn an_edit_inside_the_text_is_a_fill_with_what_the_field_holds() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "Grace Hopper")));
        let events = vec![focus("name"), text("name", TextChange::Insert, 5, "X"), focus("save")];
        let (steps, _) = inferred(&ui, events).await;
        assert_eq!(steps, [r#"fill {"app":"demo","name":"Name","role":"text","text":"Grace Hopper"}"#]);
    }

    #[tokio::test]
    async fn a_change_nothing_explains_is_a_note_not_a_step() {
        let ui = Arc::new(FakeAccessibility::new(tree("Save", "")));
        let opened = A11yEvent::Window { element: id("main"), change: WindowChange::Create, title: "Main".into() };
        // A change while a window (nothing pressable) has the focus; then, while typing, a
        // window opening. (With no focus seen at all, nothing tells whose app changed.)
        let events =
            vec![focus("main"), status_changed(), focus("name"), text("name", TextChange::Insert, 0, "A"), opened];
        ui.set_tree(tree("Save", "A"));
        let (steps, unseen) = inferred(&ui, events).await;
        assert_eq!(steps, [r#"type {"app":"demo","name":"Name","role":"text","text":"A"}"#]);
        assert_eq!(unseen.len(), 2, "{unseen:?}");
        assert!(unseen[0].contains("after step 0: label \"Ready\" changed with no press or typing seen"), "{unseen:?}");
        assert!(unseen[1].contains("frame \"Main\" changed"), "a window while typing is a key's: {unseen:?}");
    }
}
