//! One action from start to outcome: resolve, then carry out the engine's steps.

use deft_a11y::Scope;
use deft_retry::{ActionContext, Engine, Observation, Report, Step};
use deft_types::{Action, ActionKind, Channel, Evidence, Outcome, Physical, Rect, Role, Target};

use deft_snapshot::RelevanceConfig;

use crate::clock::Clock;
use crate::config::ActionOptions;
use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::observe::{Goal, Stray, ToggleMode};
use crate::pixels::PixelWatch;
use crate::press::{Hover, PressLook};
use crate::pump::Waker;
use crate::read::Reading;
use crate::resolve::{How, Miss, Resolved};

/// Roles whose activation selects or shows something that a second activation leaves as
/// it is (a tab, a list row, a link): pressing twice is harmless, so a click on one that
/// showed no feedback may fall back early. Anything else is idempotent only when the
/// caller says so.
pub(crate) fn idempotent_role(role: &Role) -> bool {
    matches!(role.as_str(), "page_tab" | "list_item" | "tree_item" | "link")
}

/// Whether text set into `target` cannot be read back: accessibility knows no element
/// there (text found only on screen, a point), the element gives neither text nor a value
/// (a canvas editor, a terminal without a Text interface), or its text is not an editable
/// text's (Firefox gives a canvas a Text interface that reads "" whatever is typed and
/// drawn there). Verifying such typing by "its text changed" cannot work, so an input is
/// never sent again after it (deft-retry, `ActionContext::blind`): keys selected-all and
/// typed again doubled what the first ones drew.
pub(crate) fn text_unreadable(target: &Resolved) -> bool {
    target.element.as_ref().is_none_or(|e| unreadable_element(e) && !shows_its_choice(e))
}

/// Whether `e` is a combo box that says what it shows by its name: Qt names a combo box
/// by its current item, and has no other way to tell it (a set there that Qt took for a
/// selection in the closed list, never committed, was reported sent: the name says
/// otherwise). GTK gives the choice as its value.
pub(crate) fn shows_its_choice(e: &deft_types::Element) -> bool {
    e.role.as_str() == "combo_box" && !e.name.trim().is_empty()
}

/// Whether `e` is known to take no text: a control whose keys mean something else (a
/// calendar moves its day, a button presses) or text that only labels, with no text or value
/// of its own to set and not editable. Typing there (zenity's calendar: "received", and the
/// date never set) is refused before anything is sent. Roles that may take typed text
/// without saying so (a canvas editor, a terminal, a list's type-ahead) are not among them.
pub(crate) fn takes_no_text(e: &deft_types::Element) -> bool {
    let no_text_role = matches!(
        e.role.as_str(),
        "calendar"
            | "push_button"
            | "toggle_button"
            | "check_box"
            | "radio_button"
            | "menu"
            | "menu_bar"
            | "menu_item"
            | "check_menu_item"
            | "radio_menu_item"
            | "page_tab"
            | "page_tab_list"
            | "label"
            | "static"
            | "caption"
            | "heading"
            | "image"
            | "icon"
            | "separator"
            | "progress_bar"
            | "scroll_bar"
            | "tool_bar"
            | "status_bar"
    );
    no_text_role && e.value.is_none() && !e.has(deft_types::State::Editable)
}

/// Why the whole text of `e` cannot be replaced, when it cannot: it has no value to set, is
/// no combo box (whose items are chosen), and does not say it is editable. GTK 3 accepts a
/// set on a read-only text and changes nothing (galculator's display: "sent", nothing set);
/// and keys cannot stand in, since selecting all is a text field's convention: a terminal
/// takes ctrl+a as the caret to the line's start, so "select all, type" inserted the new
/// command before the old one and ran both (lxterminal), and a canvas editor selects its
/// whole document. Every field of the corpus that takes text says it is editable.
pub(crate) fn whole_text_unreplaceable(e: &deft_types::Element) -> Option<&'static str> {
    if e.value.is_some() || e.role.as_str() == "combo_box" || e.has(deft_types::State::Editable) {
        return None;
    }
    Some(match e.text.is_some() && matches!(e.role.as_str(), "text" | "entry" | "password_text") {
        true => "is read-only (it shows text but does not say it is editable)",
        false => "does not say it is editable",
    })
}

fn unreadable_element(e: &deft_types::Element) -> bool {
    e.value.is_none() && (e.text.is_none() || !e.has(deft_types::State::Editable))
}

#[cfg(test)]
mod tests {
    use deft_types::State;

    #[test]
    fn only_an_editable_text_or_a_value_reads_typed_text_back() {
        let mut canvas = deft_a11y::element("notes", "canvas", "Notes");
        canvas.text = Some(String::new());
        assert!(super::unreadable_element(&canvas), "Firefox's canvas: a Text interface, not editable");
        canvas.text = None;
        assert!(super::unreadable_element(&canvas), "no Text interface at all");
        let mut entry = deft_a11y::element("name", "text", "Name");
        entry.text = Some(String::new());
        entry.states.insert(State::Editable);
        assert!(!super::unreadable_element(&entry));
        let mut slider = deft_a11y::element("volume", "slider", "Volume");
        slider.value = Some("50".into());
        assert!(!super::unreadable_element(&slider), "a value reads back");
    }

    #[test]
    fn a_whole_text_is_replaced_only_where_the_field_says_it_is_editable() {
        use super::whole_text_unreplaceable as unreplaceable;
        // galculator's and KCalc's displays: a Text interface, not editable.
        let mut display = deft_a11y::element("display", "text", "");
        display.text = Some("0\n DEC HEX".into());
        assert!(unreplaceable(&display).is_some_and(|w| w.contains("read-only")));
        display.states.insert(State::Editable);
        assert_eq!(unreplaceable(&display), None, "an editable field takes it");
        // A terminal (ctrl+a is the line's start there) and a canvas editor (its whole
        // document) say nothing of being editable.
        let mut terminal = deft_a11y::element("t", "terminal", "");
        terminal.text = Some("$ echo OLD".into());
        assert!(unreplaceable(&terminal).is_some());
        assert!(unreplaceable(&deft_a11y::element("notes", "canvas", "Notes")).is_some());
        // A value is set; a combo box's item is chosen.
        let mut spin = deft_a11y::element("n", "spin_button", "");
        spin.value = Some("5".into());
        assert_eq!(unreplaceable(&spin), None);
        assert_eq!(unreplaceable(&deft_a11y::element("mode", "combo_box", "Mode")), None);
    }

    #[test]
    fn text_goes_only_where_something_may_take_it() {
        // zenity's calendar: keys typed there move its day; "received", the date never set.
        let calendar = deft_a11y::element("date", "calendar", "");
        assert!(super::takes_no_text(&calendar));
        assert!(super::takes_no_text(&deft_a11y::element("name", "label", "Name")));
        // What may take typed text without saying so: a canvas editor, a terminal, a text
        // with no Text interface (the Notes canvas), a list's type-ahead.
        for role in ["text", "canvas", "terminal", "list", "table_cell", "unknown", "panel"] {
            assert!(!super::takes_no_text(&deft_a11y::element("x", role, "")), "{role}");
        }
        let mut editable = deft_a11y::element("cell", "label", "");
        editable.states.insert(State::Editable);
        assert!(!super::takes_no_text(&editable), "an editable label takes text");
    }
}

/// Roles whose activation flips a state that a second activation flips back.
pub(crate) fn is_toggle_role(role: &Role) -> bool {
    matches!(
        role.as_str(),
        "check_box" | "toggle_button" | "radio_button" | "check_menu_item" | "radio_menu_item" | "switch"
    )
}

/// What one attempt keeps about its input, from the read before it to its receipt; a new
/// attempt starts from `Pending::default()`.
#[derive(Default)]
pub(crate) struct Pending {
    /// The most of the typed text seen in the target so far, and when it last grew (see
    /// `typed::typed_so_far`).
    pub(crate) typed_so_far: Option<(usize, std::time::Instant)>,
    /// The read just before the pending input.
    pub(crate) pre: Option<Reading>,
    /// The screen just before the pending input, for a target accessibility does not know.
    pub(crate) pixels: Option<PixelWatch>,
    /// The screen just before the pending input, for an expected text that accessibility
    /// may not show (read by OCR in the regions that changed).
    pub(crate) ocr_watch: Option<PixelWatch>,
    /// When the pending input was sent.
    pub(crate) sent_ms: u64,
    /// The pending input set a control a person drags (a slider) through accessibility:
    /// its value reading back says the control took it, not that the application acted on
    /// it (see `set_from_outside.rs`).
    pub(crate) set_from_outside: bool,
    /// The pointer already on the target and a first look at it, for a click that needs
    /// its pressed look (see `press.rs`): taken before the actionability checks.
    pub(crate) hover: Option<(Hover, Rect<Physical>)>,
    /// The pending click's pressed look, when one was watched for.
    pub(crate) press: Option<PressLook>,
    /// The app accepted the pending accessibility action (AT-SPI `DoAction` said so).
    pub(crate) acked: bool,
    /// Receipt of the pending input was reported as evidence already.
    pub(crate) receipt_told: bool,
    /// The target was seen rebuilt where it stood (receipt), and said so as evidence.
    pub(crate) rebuilt_told: bool,
    /// Since when the target has stood rebuilt in place with nothing else that verifies.
    pub(crate) rebuilt_since: Option<std::time::Instant>,
    /// Since when a toggle's look has changed at its place while its state read unchanged.
    pub(crate) toggle_drawn_since: Option<std::time::Instant>,
    /// The engine was told that the pending press never showed.
    pub(crate) press_unseen_told: bool,
    /// The press (or first key) never showed, and that was not told because something that
    /// verifies was in sight, held to be told from the app's own motion (`watch.rs`).
    pub(crate) unseen_deferred: bool,
    /// The pending keys' first key was seen handled without effect, and no more were typed
    /// (`first_key.rs`).
    pub(crate) keys_unseen: bool,
    /// The engine was told so.
    pub(crate) keys_unseen_told: bool,
    /// The pending input is a pointer press on an element (`observe.rs`: elements far from
    /// it that only moved do not say it landed).
    pub(crate) pressed: bool,
    /// The pending input is the whole text typed as key events (not stopped after the
    /// first key): if its last keys show up in another field, none is left for the target.
    pub(crate) typed_as_keys: bool,
    /// The engine was told that they went astray (`Signals::keys_astray`).
    pub(crate) keys_astray_told: bool,
    /// Since when the reads after the pending input have shown only things gone (or
    /// emptied in place): such a change counts once it has lasted (`watch.rs`).
    pub(crate) gone_since: Option<std::time::Instant>,
    /// Other fields that this attempt's typed text showed up in (see `Run::strays`).
    pub(crate) strays: Vec<Stray>,
    /// Since when the reads after the pending input have shown as its effect only changes
    /// of elements that changed by themselves once before it, and what they showed then.
    pub(crate) moving: Option<(std::time::Instant, Vec<(deft_types::ElementId, String)>)>,
    /// Since when the reads after the pending input have shown only the target's menu
    /// closing (see `Seen::menu_closed_only`).
    pub(crate) menu_closed_since: Option<std::time::Instant>,
    /// Since when a dialog has been over the target, a menu's entry whose menu is still
    /// open (see `Executor::watch`: held for the menu to close).
    pub(crate) dialog_over_open_menu_since: Option<std::time::Instant>,
    /// The target, a menu title, opened as the pointer came to it: no click is sent.
    pub(crate) opened_on_approach: bool,
    /// The target's pixels before text typed where it cannot be read back: their change is
    /// the keys' receipt (see `Executor::pixels_received`).
    pub(crate) receipt_pixels: Option<PixelWatch>,
    /// They changed (told once as evidence).
    pub(crate) pixels_changed: bool,
    /// The engine was told so.
    pub(crate) drawn_told: bool,
}

/// Everything one action keeps between the engine's steps.
pub(crate) struct Run<'a> {
    pub(crate) op: u64,
    pub(crate) clock: Clock,
    pub(crate) action: &'a Action,
    pub(crate) verify: bool,
    pub(crate) how: Option<How>,
    pub(crate) target: Option<Resolved>,
    pub(crate) miss: Option<Miss>,
    pub(crate) goal: Goal,
    pub(crate) toggle: ToggleMode,
    /// The target's text before the first input (`type` appends to it).
    pub(crate) before_text: Option<String>,
    /// Per attempt: what the executor saw besides the engine's words (wrong field, re-created target).
    pub(crate) notes: Vec<Option<String>>,
    pub(crate) evidence: Vec<Evidence>,
    /// What belongs to the input of the current attempt, reset as one.
    pub(crate) pending: Pending,
    /// Other fields that typed text landed in, to set back once the action is over: those
    /// of attempts that did not verify. Keys land in one place, so when an attempt's text
    /// is verified in the target, the same text elsewhere is a field mirroring it
    /// (LibreOffice's input line, for the cell being edited) and setting that back cleared
    /// the cell.
    pub(crate) strays: Vec<Stray>,
    /// What was done about them, for the outcome.
    pub(crate) put_back: Vec<String>,
    /// What counts as this action's effect and what as noise.
    pub(crate) relevance: RelevanceConfig,
    /// The last relevant changes or notes seen, for a failure report.
    pub(crate) last_seen: Option<String>,
    pub(crate) waker: Waker,
    /// The last `before` frame handed to the frame sink (only while frames are recorded),
    /// to tell an `after` frame taken before the window repainted.
    pub(crate) last_before: Option<deft_types::Frame>,
    /// How long to wait for the target to appear, and then to be actionable: the
    /// executor's actionability timeout, or less when the caller's timeout is shorter
    /// (a timeout is a bound on every wait of the action, not only the effect's).
    pub(crate) ready_wait_ms: u64,
    /// What the app changed by itself before the first input, learned once that input
    /// went (its `kept_changing` is `relevance.self_changing`). A change of texts alone is
    /// watched a moment before it counts when its elements changed once then, or when the
    /// app was listened to only briefly (see `watch.rs`).
    pub(crate) said_before: Option<crate::pump::SaidBefore>,
}

impl Run<'_> {
    /// Keeps the fields the pending attempt's keys strayed into, to be set back at the end.
    pub(crate) fn keep_strays(&mut self) {
        let pending = std::mem::take(&mut self.pending.strays);
        crate::strays::merge(&mut self.strays, &pending);
    }

    pub(crate) fn note(&mut self, note: Option<String>) {
        if let (Some(n), Some(slot)) = (note, self.notes.last_mut()) {
            *slot = Some(n);
        }
    }

    pub(crate) fn scope(&self) -> Scope {
        match &self.target {
            Some(t) if t.element.is_some() || t.app.is_some() => t.scope(),
            _ => Scope::All,
        }
    }

    pub(crate) fn evidence(&mut self, channel: Channel, what: String) -> Evidence {
        let region = self
            .target
            .as_ref()
            .and_then(|t| t.element.as_ref().and_then(|e| e.bounds).map(|b| t.scale.rect_to_physical(b)));
        let e = Evidence { channel, what, region, after_ms: self.clock.ms().saturating_sub(self.pending.sent_ms) };
        self.evidence.push(e.clone());
        e
    }
}

impl Executor {
    /// Carry out `action` with per-action options (an expectation, idempotence).
    pub async fn perform_with(&self, action: &Action, options: &ActionOptions) -> Outcome {
        let op = self.op_id();
        let clock = Clock::start();
        let verify = options.verify.unwrap_or(self.config.verify);
        let redacted = deft_trace::redact::action(action);
        self.publish(VerifyEvent::ActionStarted { op, action: redacted, verify, expect: options.expect.clone() });
        let outcome = match action {
            Action::Wait { condition } => self.wait_as_action(op, clock, condition, verify).await,
            _ => self.run_action(op, clock, action, options, verify).await,
        }
        .with_seen();
        self.publish(VerifyEvent::ActionFinished { op, outcome: outcome.clone() });
        outcome
    }

    async fn run_action(
        &self,
        op: u64,
        clock: Clock,
        action: &Action,
        options: &ActionOptions,
        verify: bool,
    ) -> Outcome {
        let kind = action.kind();
        // A key chord aims at whatever has the focus: verifying it watches that
        // application, and there the focus moving is the effect (Tab), not incidental.
        let key = kind == ActionKind::Key;
        let mut relevance = self.config.relevance.clone();
        if key {
            relevance.incidental_states.retain(|s| *s != deft_types::State::Focused);
        }
        let own = match action {
            Action::Type { text, .. } => Some(Goal::Typed { typed: text.clone(), before: None }),
            Action::SetValue { value, .. } => Some(Goal::Set { value: value.clone() }),
            _ => None,
        };
        let goal = match (&options.expect, own) {
            (Some(c), own) => Goal::Expect(Box::new(c.clone()), own.map(Box::new)),
            (None, Some(own)) => own,
            (None, None) => Goal::AnyChange,
        };
        let mut run = Run {
            op,
            clock,
            action,
            verify,
            how: match action {
                // Keys for an application or window: its focus, found even unverified (its
                // window is activated before the keys).
                Action::Key { target: Target::Selector(sel), .. } => Some(How::FocusedIn(sel.clone())),
                _ => action.target().map(How::of).or((key && verify).then_some(How::Focused)),
            },
            target: None,
            miss: None,
            goal,
            toggle: ToggleMode::None,
            before_text: None,
            notes: Vec::new(),
            evidence: Vec::new(),
            pending: Pending::default(),
            strays: Vec::new(),
            put_back: Vec::new(),
            last_seen: None,
            relevance,
            // Without verification nothing is watched, so nothing registers for the app's
            // events: a registration made and dropped around an input is traffic the app
            // handles while it processes that input, for nothing.
            waker: if verify { self.waker().await } else { Waker::new(None, self.config.poll_max_ms) },
            last_before: None,
            ready_wait_ms: options
                .overrides
                .timeout_ms
                .map_or(self.config.actionability_timeout_ms, |t| t.min(self.config.actionability_timeout_ms)),
            said_before: None,
        };
        if run.how.is_some() {
            Box::pin(self.resolve_waiting(&mut run)).await;
        }
        if options.secret && run.miss.is_none() {
            let field = run.target.as_ref().and_then(|t| t.element.as_ref());
            if !field.is_some_and(deft_types::Element::is_secret) {
                let what = field
                    .map_or_else(|| "not an element accessibility knows".to_string(), deft_types::Element::describe);
                let why = format!(
                    "nothing was sent: a secret goes only into a password field (or a field named as secret), \
                     and the target is {what}"
                );
                return self.refused(run, kind, "the secret in a password field", why);
            }
        }
        if matches!(kind, ActionKind::Type | ActionKind::SetValue)
            && run.miss.is_none()
            && let Some(e) = run.target.as_ref().and_then(|t| t.element.as_ref()).filter(|e| takes_no_text(e))
        {
            let why = if deft_a11y::selector::shows_text_only(e) {
                format!(
                    "nothing was sent: {} only shows text, and no field says it is the one it names; name the field \
                     itself (its role, as `role=text`, and the window it is in)",
                    e.describe()
                )
            } else {
                format!(
                    "nothing was sent: {} takes no text (it has no text or value to set, and keys typed into it \
                     would do what its keys do: move a calendar's day, press a button); use what it offers (click \
                     it, or the keys it answers to)",
                    e.describe()
                )
            };
            return self.refused(run, kind, "text in a field", why);
        }
        if let Action::Type { text, .. } | Action::SetValue { value: text, .. } = action
            && text.contains('\n')
            && run.miss.is_none()
            && let Some(e) =
                run.target.as_ref().and_then(|t| t.element.as_ref()).filter(|e| e.has(deft_types::State::SingleLine))
        {
            // A line break is typed as the Return key, which in a field of one line submits
            // its form or presses its window's default button.
            let why = format!(
                "nothing was sent: {} holds a single line, and the text has a line break (typed, it would be the \
                 Return key, which activates the form or the window's default button there); give the text \
                 without it, then `key Return` if that is what you want",
                e.describe()
            );
            return self.refused(run, kind, "text in a field of one line", why);
        }
        if kind == ActionKind::SetValue
            && run.miss.is_none()
            // Shown: one not shown says nothing of its value yet (a slider on a tab not
            // selected has none), and the readiness check says where it is.
            && let Some(e) = run.target.as_ref().and_then(|t| t.element.as_ref()).filter(|e| e.has(deft_types::State::Showing))
            && let Some(what) = whole_text_unreplaceable(e)
        {
            let why = format!(
                "nothing was sent: {} {what}, so its whole text cannot be replaced (select-all keys mean other \
                 things outside a text field: a terminal moves its caret to the line's start); to add text, click \
                 into it and use `type`; to send keys the application takes there (a calculator's display), use \
                 `type` or `key`",
                e.describe()
            );
            return self.refused(run, kind, "its whole text replaced", why);
        }
        if let Action::SetValue { value, .. } = action
            && run.miss.is_none()
            && let Some(e) =
                run.target.as_ref().and_then(|t| t.element.as_ref()).filter(|e| crate::asked::numeric_control(e))
            && value.trim().parse::<f64>().is_err()
        {
            let why = format!(
                "nothing was sent: {} takes a number (it shows {}), and {value:?} is not one; give a number, such as \
                 {}",
                e.describe(),
                e.value.as_deref().unwrap_or_default(),
                e.value.as_deref().unwrap_or("10")
            );
            return self.refused(run, kind, "a number set", why);
        }
        let element = run.target.as_ref().and_then(|t| t.element.clone());
        let toggle = element.as_ref().filter(|e| is_toggle_role(&e.role));
        let role_toggle = toggle.is_some();
        // Not a radio: a click on one that is on leaves it on (and closes its menu, which
        // keys sent next would otherwise go to).
        let undone_by_a_click = toggle.filter(|e| !matches!(e.role.as_str(), "radio_button" | "radio_menu_item"));
        if kind == ActionKind::Click
            && let Some(e) = undone_by_a_click
            && let Some((state, present)) = options.expect.as_ref().and_then(|c| crate::asked::own_toggle_state(c, e))
            && e.has(state) == present
        {
            // "Make sure it is checked" of a check box that is: a click would only undo it
            // (xfce4-terminal's "Scroll on keystroke" turned off, then the failure said).
            let word = if present { state.as_str().to_string() } else { format!("not {}", state.as_str()) };
            let expected = format!("{} {word}", e.describe());
            let observed = format!(
                "{} is {word} already, as expected: nothing was sent, since a click would undo it",
                e.describe()
            );
            return self.already(run, kind, expected, observed);
        }
        if let Some((expected, observed)) =
            element.as_ref().and_then(|e| crate::asked::tab_shown_already(run.action, e, options.expect.as_ref()))
        {
            return self.already(run, kind, expected, observed);
        }
        let sets = matches!(kind, ActionKind::Type | ActionKind::SetValue);
        // A pointer input on a target accessibility does not know (text found on screen,
        // bare coordinates) is watched through the pixels only: a click whose effect does
        // not show (xcalc's "sin" of 0) looks like one that was lost, so it is never sent
        // twice.
        let pointer = matches!(kind, ActionKind::Click | ActionKind::Scroll);
        run.toggle = match (&options.expect, role_toggle) {
            (Some(_), _) if !sets => ToggleMode::AnyEffect,
            (_, true) if !sets => ToggleMode::State,
            _ => ToggleMode::None,
        };
        let role_idempotent = element.as_ref().is_some_and(|e| idempotent_role(&e.role));
        let toggle_on = toggle.is_some_and(|e| e.has(deft_types::State::Checked) || e.has(deft_types::State::Pressed));
        let ctx = ActionContext {
            kind,
            is_toggle: run.toggle != ToggleMode::None,
            toggle_on: toggle_on && run.toggle == ToggleMode::State,
            idempotent: options.idempotent || (kind == ActionKind::Click && role_idempotent),
            verify,
            expectation: options.expect.is_some(),
            blind: (sets && run.target.as_ref().is_some_and(text_unreadable))
                || (pointer && run.target.as_ref().is_some_and(|t| t.element.is_none())),
            single_input: pointer && run.target.as_ref().is_some_and(|t| matches!(t.how, How::Point(_))),
        };
        let policy = match self.policy(kind).with_overrides(kind, options.overrides) {
            Ok(p) => p,
            // Faces check the settings before asking; this only guards a caller that did not.
            Err(e) => return self.invalid_settings(run, kind, e.to_string()),
        };
        let mut engine = Engine::new(&policy, ctx);
        let mut step = engine.start();
        let verdict = loop {
            self.publish(VerifyEvent::Step { op, step: step.clone() });
            let report = match &step {
                Step::Done(v) => break v.clone(),
                // Each step's future is boxed: together they are far larger than a thread's
                // stack in a debug build, where a poll copies what it awaits.
                Step::Act { method, not_before_ms, .. } => {
                    clock.until(*not_before_ms).await;
                    Box::pin(self.on_act(&mut run, *method)).await
                }
                // Watched from at once: an effect is taken when it shows, the verify delay
                // only holds back "no change" (the engine accepts that order).
                Step::Verify { not_before_ms, deadline_ms } => {
                    let report = Box::pin(self.on_verify(&mut run, *not_before_ms, *deadline_ms)).await;
                    if matches!(report, Report::Verified { .. }) {
                        // This attempt's keys are in the target: other fields mirror them.
                        run.pending.strays.clear();
                    }
                    report
                }
                Step::ReResolve { not_before_ms } => {
                    clock.until(*not_before_ms).await;
                    Box::pin(self.on_reresolve(&mut run)).await
                }
                Step::DismissBlocking { blocking, not_before_ms } => {
                    clock.until(*not_before_ms).await;
                    Box::pin(self.on_dismiss(blocking.as_ref())).await
                }
            };
            let at = match report.answers_before_delay() {
                true => clock.ms(),
                false => clock.ms().max(step.not_before_ms().unwrap_or(0)),
            };
            let observation = Observation::new(at, report);
            self.publish(VerifyEvent::Observed { op, observation: observation.clone() });
            step = engine.observe(observation);
        };
        run.keep_strays();
        if !run.strays.is_empty() {
            run.put_back = self.put_back(&run.strays).await;
            for line in run.put_back.clone() {
                let e = run.evidence(Channel::Accessibility, line);
                self.publish(VerifyEvent::Evidence { op, evidence: e });
            }
        }
        let effect_seen = verdict.verified == Some(true);
        self.frame(&mut run, crate::frames::FramePhase::After, None, effect_seen).await;
        self.outcome(run, kind, verdict)
    }
}
