//! Sending the input of one method of the fallback chain.

use std::time::{Duration, Instant};

use deft_a11y::{A11yError, Accessibility, Scope, SnapshotOptions};
use deft_input::{Chord, InputError, Key, Modifier, NamedKey, mapping};
use deft_retry::{Report, Symptoms};
use deft_types::{Action, ElementId, ErrorClass, Method, MouseButton, Physical, Point, State};

use crate::executor::{Executor, lock};
use crate::ready::aim;
use crate::resolve::Resolved;

/// How long to wait for the keyboard focus to arrive on the target before typing.
const FOCUS_WAIT: Duration = Duration::from_millis(400);

/// What was sent, in plain words, or the report when nothing could be.
pub(crate) type Sent = Result<String, Report>;

pub(crate) fn refused(message: impl Into<String>) -> Report {
    Report::Refused(Symptoms::new(message))
}

/// An accessibility call that failed, as the engine's report: a vanished element is
/// stale; a timeout or backend error may or may not have reached the app (uncertain); an
/// element that cannot do it is refused, so the chain moves on.
pub(crate) fn a11y_failed(e: A11yError) -> Report {
    match e.class() {
        ErrorClass::Stale => Report::Refused(Symptoms { target_vanished: true, ..Symptoms::new(e.to_string()) }),
        ErrorClass::Transient => Report::SendUncertain { message: e.to_string() },
        _ => refused(e.to_string()),
    }
}

/// An input call that failed before anything was sent.
pub(crate) fn input_refused(e: InputError) -> Report {
    let mut s = Symptoms::new(e.to_string());
    s.backend_error = e.class() == ErrorClass::Transient;
    Report::Refused(s)
}

fn chord(key: NamedKey) -> Chord {
    Chord::key(Key::Named(key))
}

/// The action names a click may use, most specific first.
pub(crate) const CLICK_ACTIONS: [&str; 3] = ["click", "press", "activate"];

/// How the words of an input begin when an accessibility action was invoked and the app
/// accepted it (its receipt: `act.rs` reads it so), as opposed to a pointer click sent in
/// its stead, which proves nothing until the app shows it.
pub(crate) const ACTION_ACCEPTED: &str = "accessibility action ";

/// How the words begin when the space bar went to the target once it had the keyboard
/// focus (the toolkit said so): receipt as good as an accepted action, whose reply GTK 3's
/// atk-bridge sends before it runs the action anyway.
pub(crate) const KEY_ON_FOCUS: &str = "pressed Space with the keyboard focus on it";

/// Roles a person activates with the space bar once they have the keyboard focus.
const SPACE_ACTIVATES: [&str; 4] = ["push_button", "toggle_button", "check_box", "radio_button"];

impl Executor {
    /// An activation (`click`, `activate`, `press`) of a shown control of an application
    /// whose accessibility actions run inside the call (GTK 3): sent as a pointer click
    /// instead, the way a person activates it. A modal dialog the action opens would
    /// otherwise hold the call, and the application freezes when Deft exits
    /// (`docs/real-apps.md`, mousepad's Save As). `None`: the accessibility action is safe.
    async fn activate_by_pointer(&self, target: Option<&Resolved>, name: &str) -> Option<Result<String, Report>> {
        let t = target?;
        let e = t.element.as_ref()?;
        let activation = ["click", "activate", "press"].iter().any(|a| a.eq_ignore_ascii_case(name.trim()));
        let shown = e.has(State::Showing) && e.bounds.is_some_and(|b| !b.is_empty());
        if !activation || !shown || !self.a11y.actions_hold_the_call(&e.id).await {
            return None;
        }
        let at = match self.pointer_point(target, Method::CoordinateClick) {
            Ok(at) => at,
            Err(r) => return Some(Err(r)),
        };
        Some(self.click(at, MouseButton::Left, 1).map(|sent| {
            format!(
                "{sent} (a pointer click rather than the accessibility action {name:?}: this toolkit runs actions \
                 inside the accessibility call, where a dialog they open would freeze it once Deft exits)"
            )
        }))
    }

    /// The click chain's non-pointer step on a button of an application whose accessibility
    /// actions run inside the call (GTK 3): the focus given through accessibility, then the
    /// space bar, as a person activates it from the keyboard. The action itself would hold
    /// its call while a dialog it opens is up, and freeze the app once Deft exits
    /// (`docs/real-apps.md`). `None`: not such a target (the accessibility action is used);
    /// the focus not taking is a refusal, with nothing typed.
    async fn activate_by_keyboard(&self, target: Option<&Resolved>) -> Option<Result<String, Report>> {
        let e = target?.element.as_ref()?;
        if !SPACE_ACTIVATES.contains(&e.role.as_str()) || !self.a11y.actions_hold_the_call(&e.id).await {
            return None;
        }
        let first = match self.keys_reach(target?).await {
            Ok(note) => note.map(|w| format!("; {w}")).unwrap_or_default(),
            Err(refusal) => return Some(Err(refusal)),
        };
        if !e.has(State::Focused) && !self.focus_quietly(&e.id).await {
            return Some(Err(refused(format!(
                "{} did not take the keyboard focus, so it was not activated from the keyboard (its toolkit runs \
                 accessibility actions inside the call, where a dialog they open would freeze it once Deft exits)",
                e.describe()
            ))));
        }
        let pressed = lock(&self.input).chord(&chord(NamedKey::Space));
        Some(pressed.map_err(|err| Report::SendUncertain { message: err.to_string() }).map(|()| {
            format!(
                "{KEY_ON_FOCUS} (rather than its accessibility action: this toolkit runs actions inside the \
                 accessibility call, where a dialog they open would freeze it once Deft exits){first}"
            )
        }))
    }

    /// A combo box's value is chosen, not typed: the item of that name among its (hidden)
    /// items is activated through accessibility, which selects it without opening the
    /// popup (typing into a closed combo box opens it and leaves it open).
    async fn choose_item(
        &self,
        target: Option<&Resolved>,
        combo: &deft_types::ElementId,
        value: &str,
    ) -> Result<String, Report> {
        let options = deft_a11y::SnapshotOptions { hidden_details: true, ..deft_a11y::SnapshotOptions::default() };
        let tree =
            self.a11y.snapshot(&deft_a11y::Scope::Subtree(combo.clone()), &options).await.map_err(a11y_failed)?;
        let items: Vec<&deft_types::Element> = tree
            .nodes
            .iter()
            .map(|n| &n.element)
            .filter(|e| matches!(e.role.as_str(), "menu_item" | "list_item" | "option"))
            .collect();
        let Some(item) = items.iter().find(|e| e.name.trim() == value.trim()) else {
            let names: Vec<String> = items.iter().map(|e| format!("{:?}", e.name.trim())).collect();
            return Err(Report::Refused(Symptoms::new(format!(
                "the combo box has no item {value:?}; its items are: {}",
                if names.is_empty() { "none that accessibility shows".to_string() } else { names.join(", ") }
            ))));
        };
        // An item whose only action toggles its selection in the list (Qt's "Toggle") is not
        // chosen by it: Qt selects it in the closed list and never commits it. A person opens
        // the drop-down and clicks the item; so does this, where the display server shows it.
        // (Deft also names an element's first action `click`.)
        let toggles_only = item.actions.iter().any(|a| a.eq_ignore_ascii_case("toggle"))
            && item.actions.iter().all(|a| a.eq_ignore_ascii_case("toggle") || a.eq_ignore_ascii_case("click"));
        if toggles_only
            && let (Some(t), Some(combo_e)) = (target, tree.nodes.first().map(|n| &n.element))
            && let Some(done) = self.choose_by_pointer(t, combo_e, &item.id).await
        {
            return done.map(|at| format!("opened its list and clicked the item {:?} {at}", item.name.trim()));
        }
        let action = item.actions.first().cloned().unwrap_or_else(|| "click".to_string());
        self.a11y.do_action(&item.id, &action).await.map_err(a11y_failed)?;
        Ok(format!("chose the item {:?} through accessibility ({action})", item.name.trim()))
    }

    /// Opens `combo`'s drop-down with its own action and clicks `item` where the display
    /// server shows it (see [`Executor::point_in_popup`]). `None` when it could not be opened
    /// or the item was not seen in a shown popup within a second: nothing was clicked (the
    /// caller chooses through accessibility then); a drop-down left open closes with the
    /// next click anywhere, as a person's does.
    async fn choose_by_pointer(
        &self,
        t: &Resolved,
        combo: &deft_types::Element,
        item: &deft_types::ElementId,
    ) -> Option<Sent> {
        let open =
            combo.actions.iter().find(|a| a.eq_ignore_ascii_case("showmenu") || a.eq_ignore_ascii_case("press"))?;
        self.a11y.do_action(&combo.id, open).await.ok()?;
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until {
            if let Ok(e) = self.a11y.element(item).await
                && e.has(State::Showing)
                && let Some(at) = self.point_in_popup(t, &e)
            {
                return Some(self.click(at, MouseButton::Left, 1));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        None
    }

    /// Sends `method`'s input for `action` to `target`. `before_text` is the target's text
    /// before the action's first input (what `type` appends to).
    pub(crate) async fn send(
        &self,
        action: &Action,
        target: Option<&Resolved>,
        method: Method,
        before_text: &str,
    ) -> Sent {
        match (method, action) {
            (Method::CoordinateClick | Method::OffsetClick, Action::Click { button, count, .. }) => {
                let at = self.pointer_point(target, method)?;
                self.click(at, *button, (*count).max(1))
            }
            (Method::A11yAction, Action::Click { .. }) => {
                // No press of its own: the control it lies in (`around.rs`).
                let around = match target {
                    Some(t) if !t.element.as_ref().is_some_and(crate::around::pressable) => {
                        self.control_around(t).await
                    }
                    _ => None,
                };
                let of = around.as_ref().and_then(|c| c.element.as_ref());
                let of = of.map(|c| format!(" of {}, which holds the target", c.describe())).unwrap_or_default();
                let target = around.as_ref().or(target);
                let (id, actions) = element_of(target)?;
                if let Some(done) = self.activate_by_keyboard(target).await {
                    return done.map(|words| format!("{words}{of}"));
                }
                let name = CLICK_ACTIONS
                    .iter()
                    .find_map(|want| actions.iter().find(|a| a.eq_ignore_ascii_case(want)))
                    .cloned()
                    .ok_or_else(|| {
                        let has = if actions.is_empty() { "none".to_string() } else { actions.join(", ") };
                        let message = format!("the target offers no click, press or activate action (it has: {has})");
                        Report::Refused(Symptoms { method_unavailable: true, ..Symptoms::new(message) })
                    })?;
                self.a11y.do_action(&id, &name).await.map_err(a11y_failed)?;
                Ok(format!("{ACTION_ACCEPTED}{name:?}{of}"))
            }
            (Method::A11yAction, Action::Invoke { name, .. }) => {
                // An element without the named action, inside a control with it: the
                // control (a label's text named a button's press; `around.rs`).
                let offers = |t: &Resolved| {
                    t.element.as_ref().is_some_and(|e| e.actions.iter().any(|a| a.eq_ignore_ascii_case(name)))
                };
                let around = match target {
                    Some(t) if !offers(t) => self.control_around(t).await.filter(|c| offers(c)),
                    _ => None,
                };
                let of = around.as_ref().and_then(|c| c.element.as_ref());
                let of = of.map(|c| format!(" of {}, which holds the target", c.describe())).unwrap_or_default();
                let target = around.as_ref().or(target);
                let (id, _) = element_of(target)?;
                if let Some(done) = self.activate_by_pointer(target, name).await {
                    return done.map(|words| format!("{words}{of}"));
                }
                self.a11y.do_action(&id, name).await.map_err(a11y_failed)?;
                Ok(format!("{ACTION_ACCEPTED}{name:?}{of}"))
            }
            (Method::Keystrokes, Action::Type { text, .. }) => self.type_keys(target, text, None).await.0,
            (Method::FocusSelectAllKeystrokes | Method::A11ySet, Action::Type { .. })
                if unreadable_text(target, before_text) =>
            {
                Err(refused(
                    "the field holds a secret whose text cannot be read back, so it cannot be set again with the \
                     typed text appended; clear it first (set_value to \"\") or set its whole value",
                ))
            }
            // The text of a target that keeps it inside it is not its own: "all" of it could
            // not be typed back, and selecting all would replace the text already there.
            (Method::FocusSelectAllKeystrokes | Method::A11ySet, Action::Type { .. })
                if target.and_then(|t| t.element.as_ref()).is_some_and(crate::editor_inside::holds_text_inside) =>
            {
                Err(refused(
                    "the target keeps its text in an element inside it, which it does not give as its own, so \
                     setting its whole text could replace the text already there",
                ))
            }
            // Text read on the screen gives a point, no element: nothing tells which field
            // holds the keyboard focus, and selecting all there could replace the text of
            // another field than the one meant.
            (Method::FocusSelectAllKeystrokes, _)
                if target.is_some_and(|t| t.element.is_none() && t.channel == deft_types::Channel::Ocr) =>
            {
                Err(refused(
                    "the target was found only as text on the screen, with no element to focus, so selecting all \
                     could replace another field's text; name the field the way accessibility sees it (--role, \
                     --name) or click it first",
                ))
            }
            // Selecting all to type over it is a text field's convention: elsewhere the keys
            // mean other things (a terminal's ctrl+a is the line's start, a list's typed
            // letters choose an item), and a pasted selection lands where the pointer is.
            (Method::FocusSelectAllKeystrokes | Method::MiddleClickPaste, _)
                if target.and_then(|t| t.element.as_ref()).is_some_and(|e| !e.has(State::Editable)) =>
            {
                let e = target.and_then(|t| t.element.as_ref()).map(deft_types::Element::describe).unwrap_or_default();
                Err(refused(format!(
                    "{e} does not say it is editable, so selecting all of its text to write over it could do \
                     something else"
                )))
            }
            (Method::FocusSelectAllKeystrokes, Action::SetValue { .. } | Action::Type { .. }) => {
                let at = self.insertion_point(target).await;
                let text = whole_text(action, before_text, at);
                let first = self.focus_for_keys(target).await?;
                self.replace_focused_text(&text)?;
                Ok(format!("selected all and typed {} characters as key events{first}", text.chars().count()))
            }
            (Method::MiddleClickPaste, Action::SetValue { .. } | Action::Type { .. }) => {
                self.paste(action, target, before_text).await
            }
            (Method::A11ySet, Action::Type { text, .. }) => self.insert_typed(target, before_text, text).await,
            (Method::A11ySet, Action::SetValue { value, .. })
                if target.and_then(|t| t.element.as_ref()).is_some_and(|e| e.role.as_str() == "combo_box") =>
            {
                let (id, _) = element_of(target)?;
                self.choose_item(target, &id, value).await
            }
            (Method::A11ySet, Action::SetValue { value, .. }) => {
                let (id, _) = element_of(target)?;
                let element = target.and_then(|t| t.element.as_ref());
                let textual = element.is_some_and(|e| e.has(State::Editable) || e.text.is_some());
                // A spin button shows its number as editable text too, but text set there is
                // never committed (GTK keeps the old value until Enter or focus-out): its
                // Value is what a person changes.
                let numeric_control = element.is_some_and(crate::asked::numeric_control);
                match value.trim().parse::<f64>() {
                    Ok(v) if !textual || numeric_control => {
                        self.a11y.set_value(&id, v).await.map_err(a11y_failed)?;
                        Ok(format!("set its value to {v} through accessibility"))
                    }
                    _ => self.set_whole_text(&id, element, value).await,
                }
            }
            (Method::Wheel, Action::Scroll { dx, dy, .. }) => {
                let aimed =
                    target.is_some_and(|t| t.point.is_some() || t.element.as_ref().is_some_and(|e| e.bounds.is_some()));
                let at = if aimed { Some(self.pointer_point(target, Method::CoordinateClick)?) } else { None };
                let mut input = lock(&self.input);
                if let Some(at) = at {
                    input.move_to(at).map_err(input_refused)?;
                }
                input.scroll(*dx, *dy).map_err(|e| Report::SendUncertain { message: e.to_string() })?;
                Ok(match at {
                    Some(at) => format!("scrolled ({dx}, {dy}) with the wheel at ({}, {})", at.x, at.y),
                    None => format!("scrolled ({dx}, {dy}) with the wheel where the pointer is"),
                })
            }
            (Method::A11yScroll, Action::Scroll { dy, .. }) => self.a11y_scroll(target, *dy).await,
            (Method::KeyChord, Action::Key { chord, .. }) => {
                let c = Chord::from_key_chord(chord).map_err(input_refused)?;
                // Keys for an application or window go only once its window holds the
                // keyboard focus; never to whatever else has it. Keys for the focused element
                // go where the focus is, unless no window holds it (`keyfocus.rs`).
                let reached = match target
                    .filter(|t| matches!(t.how, crate::resolve::How::FocusedIn(_) | crate::resolve::How::Focused))
                {
                    Some(t) => self.keys_reach(t).await?.map(|w| format!("; {w}")).unwrap_or_default(),
                    None => String::new(),
                };
                // A chord the backend refused before sending (no keys on this session, a key it
                // does not know) is refused; one that failed midway may have pressed part of it.
                lock(&self.input).chord(&c).map_err(|e| match e.class() {
                    ErrorClass::Permanent => input_refused(e),
                    _ => Report::SendUncertain { message: e.to_string() },
                })?;
                Ok(format!("pressed {chord}{reached}"))
            }
            (m, a) => Err(refused(format!("{} cannot carry out `{}`", m.as_str(), a.kind().verb()))),
        }
    }

    /// Types `text` as key events where `type` inserts (`insertion.rs`: at the caret of a
    /// field that had the focus, else after its text), focused for it first.
    /// With `watched` (a verified action; `Some(in_page)`: whether the target lies in a web
    /// page), the first key goes alone and is watched where that can tell anything
    /// (`first_key.rs`); the second value says it was seen ignored, nothing more typed.
    pub(crate) async fn type_keys(&self, target: Option<&Resolved>, text: &str, watched: Option<bool>) -> (Sent, bool) {
        // A backend that cannot type all of it says so before anything is sent (focus
        // included): the chain moves on, and no half text is ever left in the field.
        if let Err(e) = lock(&self.input).can_type(text) {
            return (Err(input_refused(e)), false);
        }
        let at_caret = self.insertion_point(target).await.is_some();
        let first = match self.focus_for_keys(target).await {
            Ok(first) => first,
            Err(e) => return (Err(e), false),
        };
        let has_text =
            target.and_then(|t| t.element.as_ref()).and_then(|e| e.text.as_deref()).is_some_and(|t| !t.is_empty());
        if has_text
            && !at_caret
            && let Some(t) = target
            && let Err(e) = self.caret_after_text(t).await
        {
            return (Err(e), false);
        }
        let id = target.and_then(|t| t.element.as_ref()).map(|e| e.id.clone());
        let field = match (watched, id) {
            (Some(in_page), Some(id)) if self.keys_go_straight() => {
                self.a11y.element(&id).await.ok().filter(|f| crate::first_key::first_key_tells(f, text, in_page))
            }
            _ => None,
        };
        let all = format!("typed {} characters as key events{first}", text.chars().count());
        match field {
            Some(field) => {
                let (sent, ignored) = self.type_watching_first_key(&field, text).await;
                (sent.map(|what| if ignored { format!("{what}{first}") } else { all }), ignored)
            }
            None => (self.type_text(text).map(|()| all), false),
        }
    }

    /// The physical point a pointer method aims at: the explicit point of a raw-coordinate
    /// or OCR target, else the element's centre (or a point off centre for an offset click)
    /// mapped with its window's scale.
    pub(crate) fn pointer_point(&self, target: Option<&Resolved>, method: Method) -> Result<Point<Physical>, Report> {
        let t = target.ok_or_else(|| refused("there is no target to point at"))?;
        if let Some(p) = t.point {
            return Ok(match method {
                Method::OffsetClick => p.offset(3, 0),
                _ => p,
            });
        }
        let bounds = t.element.as_ref().and_then(|e| e.bounds).ok_or_else(|| {
            Report::Refused(Symptoms { not_found: true, ..Symptoms::new(format!("{} has no bounds", t.describe())) })
        })?;
        match method {
            Method::OffsetClick => Ok(t.scale.to_physical(aim(bounds, method))),
            _ => mapping::click_point(bounds, t.scale).map_err(input_refused),
        }
    }

    pub(crate) fn click(&self, at: Point<Physical>, button: MouseButton, count: u8) -> Sent {
        let mut input = lock(&self.input);
        input.move_to(at).map_err(input_refused)?;
        input
            .button(button, deft_input::ButtonAction::Click { count })
            .map_err(|e| Report::SendUncertain { message: e.to_string() })?;
        let times = if count > 1 { format!(" {count} times") } else { String::new() };
        Ok(format!("clicked{times} at ({}, {})", at.x, at.y))
    }

    /// Gives the target the keyboard focus: its window first (see `keyfocus.rs`), then the
    /// element, through accessibility first (no pointer input), by clicking it when that
    /// did not take. Keys go to whatever has the focus, so typing into an element that
    /// does not have it would be a silent failure. What had to be done first, as words to
    /// end the input's description with (empty when nothing).
    async fn focus_for_keys(&self, target: Option<&Resolved>) -> Result<String, Report> {
        let Some(t) = target else { return Ok(String::new()) };
        let note = self.keys_reach(t).await?.map(|w| format!("; {w}")).unwrap_or_default();
        let Some(e) = &t.element else {
            return match t.point.filter(|_| t.channel == deft_types::Channel::Ocr) {
                Some(at) => Ok(format!("{}{note}", self.click_into_text_on_screen(t, at).await?)),
                None => Ok(note),
            };
        };
        // Before "it has the focus": a shape selected has it while its text is not open.
        if let Some(opened) = self.open_editor_inside(t, e).await {
            return opened.map(|words| format!("{words}{note}"));
        }
        if t.how == crate::resolve::How::Focused || e.has(State::Focused) {
            return Ok(note);
        }
        let id = e.id.clone();
        if self.a11y.focus(&id).await.is_ok() && self.focused_within(&id, FOCUS_WAIT).await? {
            return Ok(note);
        }
        // Its place now: the read that resolved it may predate its layout (Firefox gives a
        // field of a window without the focus no extents at first).
        let at = match self.a11y.element(&id).await.ok().and_then(|e| e.bounds) {
            Some(b) => mapping::click_point(b, t.scale).map_err(input_refused)?,
            None if t.point.is_some() => self.pointer_point(target, Method::CoordinateClick)?,
            // Nowhere to click it into focus (its window's place is not known: Wayland
            // without a window list): keys are not the way to this field, another method
            // is (setting the text through accessibility).
            None => {
                let message = format!(
                    "{} did not take the keyboard focus through accessibility, and its place on screen is not \
                     known to click it: no key was sent",
                    t.describe()
                );
                return Err(Report::Refused(Symptoms { method_unavailable: true, ..Symptoms::new(message) }));
            }
        };
        self.click(at, MouseButton::Left, 1)?;
        if self.focused_within(&id, FOCUS_WAIT).await? {
            return Ok(note);
        }
        Err(refused(format!("{} did not take the keyboard focus", t.describe())))
    }

    /// Keys for text found only on the screen (OCR): nothing but the pixels says a field is
    /// there, so, as a person does, the point is clicked first to put the keyboard focus
    /// in it (keys would otherwise go wherever the focus was: into another field). When
    /// accessibility knows what is at that point and it is no text field but something a
    /// click acts on or a label (the text beside a field, a check box's own text), nothing
    /// is clicked or typed. What was done, as words that begin the input's description.
    async fn click_into_text_on_screen(&self, t: &Resolved, at: Point<Physical>) -> Result<String, Report> {
        let hit = self.a11y.hit_test(t.scale.to_logical(at)).await.ok().flatten();
        if let Some(hit) = hit.filter(|h| !h.element.has(State::Editable)) {
            let e = &hit.element;
            let labels = matches!(e.role.as_str(), "label" | "static" | "heading" | "caption");
            if labels || !e.actions.is_empty() {
                return Err(refused(format!(
                    "the text was found on the screen at ({}, {}), where accessibility shows {}, not a text field: \
                     nothing was clicked or typed; name the field itself (--role text, --name ...)",
                    at.x,
                    at.y,
                    e.describe()
                )));
            }
        }
        self.click(at, MouseButton::Left, 1)?;
        Ok(format!(", after a click at ({}, {}) to put the keyboard focus where the text was found", at.x, at.y))
    }

    /// Replaces the text of the field that has the keyboard focus with `text`, as key
    /// events: select all, then the text (a delete when it is empty).
    pub(crate) fn replace_focused_text(&self, text: &str) -> Result<(), Report> {
        let mut input = lock(&self.input);
        // Nothing is selected or sent when the backend cannot type all of it.
        input.can_type(text).map_err(input_refused)?;
        let select_all = Chord { modifiers: vec![Modifier::Ctrl], key: Key::Char('a') };
        input.chord(&select_all).map_err(input_refused)?;
        let typed = if text.is_empty() { input.chord(&chord(NamedKey::BackSpace)) } else { input.text(text) };
        typed.map_err(|e| Report::SendUncertain { message: e.to_string() })
    }

    /// Gives `id` the keyboard focus through accessibility only (no pointer input), and
    /// says whether it took it.
    pub(crate) async fn focus_quietly(&self, id: &ElementId) -> bool {
        self.a11y.focus(id).await.is_ok() && self.focused_within(id, FOCUS_WAIT).await.unwrap_or(false)
    }

    async fn focused_within(&self, id: &ElementId, limit: Duration) -> Result<bool, Report> {
        let until = Instant::now() + limit;
        let mut waker = self.waker_if_listening();
        loop {
            match self.a11y.element(id).await {
                Ok(e) if e.has(State::Focused) => return Ok(true),
                Ok(_) => {}
                Err(e) if e.class() == ErrorClass::Stale => return Err(a11y_failed(e)),
                Err(_) => {}
            }
            if Instant::now() >= until {
                return Ok(false);
            }
            waker.next(until).await;
        }
    }

    /// Scrolls a container through accessibility: brings the first hidden child past the
    /// shown ones (down) or before them (up) into view.
    async fn a11y_scroll(&self, target: Option<&Resolved>, dy: i32) -> Sent {
        let (id, _) = element_of(target)?;
        let tree = self.a11y.snapshot(&Scope::Subtree(id), &SnapshotOptions::default()).await.map_err(a11y_failed)?;
        let items: Vec<usize> = (1..tree.len()).filter(|&i| tree.nodes[i].parent == Some(0)).collect();
        let shown = |i: &usize| tree.nodes[*i].element.has(State::Showing);
        let next = if dy >= 0 {
            let last = items.iter().rposition(shown);
            items.iter().skip(last.map_or(0, |l| l + 1)).find(|i| !shown(i))
        } else {
            let first = items.iter().position(shown).unwrap_or(items.len());
            items[..first].iter().rev().find(|i| !shown(i))
        };
        let Some(&i) = next else {
            return Err(refused("nothing further to scroll into view through accessibility"));
        };
        let child = tree.nodes[i].element.clone();
        self.a11y.scroll_into_view(&child.id).await.map_err(a11y_failed)?;
        Ok(format!("scrolled {} into view through accessibility", child.describe()))
    }
}

/// The whole text a method that replaces a field's text sets: the text from before the
/// action with what `type` inserts put in at `at` (characters; `None`: after it), or the
/// value set.
fn whole_text(action: &Action, before_text: &str, at: Option<usize>) -> String {
    match action {
        Action::Type { text, .. } => crate::insertion::spliced(before_text, at, text),
        Action::SetValue { value, .. } => value.clone(),
        _ => String::new(),
    }
}

/// A secret field (its text read as mask characters) that already holds text: what `type`
/// would append to is not known, so no method may rewrite the whole text.
fn unreadable_text(target: Option<&Resolved>, before_text: &str) -> bool {
    !before_text.is_empty() && target.and_then(|t| t.element.as_ref()).is_some_and(deft_types::Element::is_secret)
}

pub(crate) fn element_of(target: Option<&Resolved>) -> Result<(ElementId, Vec<String>), Report> {
    match target.and_then(|t| t.element.as_ref()) {
        Some(e) => Ok((e.id.clone(), e.actions.clone())),
        None => Err(refused("the target is not an accessible element, so accessibility cannot act on it")),
    }
}
