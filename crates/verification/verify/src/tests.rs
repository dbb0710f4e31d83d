//! The executor's stepping logic on fake backends: an in-memory accessibility tree that
//! the fake input changes when a click lands on a given rectangle.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use deft_a11y::{
    A11yError, Accessibility, AnyAccessibility, AppInfo, EventFilter, EventStream, FakeAccessibility, Hit, Operation,
    Scope, SnapshotOptions, Tree, TreeBuilder, element,
};
use deft_bus::{Bus, BusConfig, Received};
use deft_capture::{Capture, CaptureError, CaptureTarget, FakeCapture, Monitor};
use deft_input::{ButtonAction, Chord, Input, InputError, Recorded, RecordingInput};
use deft_retry::Step;
use deft_types::{
    Action, AttemptResult, Channel, Condition, Element, ElementId, ErrorClass, Frame, Logical, Method, MouseButton,
    Physical, Point, Rect, Selector, State, SuggestedAction, Target, TextMatch,
};

use crate::{Backends, DismissRule, Executor, ExecutorConfig, VerifyEvent};

mod around;
mod caret_end;
mod covering;
mod dragged;
mod editor_inside;
mod hidden;
mod own_motion;
mod partial_keys;
mod paste;
mod screen_text;
mod scroll;
mod settling;
mod toggles;

/// The fake UI: a tree, what changes it, and a count of reads.
struct Ui {
    fake: FakeAccessibility,
    /// Trees shown after a click lands inside a rectangle (first match wins, used once).
    on_click: Mutex<Vec<(Rect<Physical>, Tree)>>,
    /// Trees shown after an accessibility action on an element.
    on_action: Mutex<Vec<(ElementId, Tree)>>,
    /// Screens shown after a click lands inside a rectangle.
    on_click_paint: Mutex<Vec<(Rect<Physical>, Frame)>>,
    screen: Mutex<Option<Screen>>,
    /// Accessibility cannot scroll anything into view (a toolkit without ScrollTo).
    scroll_refused: std::sync::atomic::AtomicBool,
    /// The tree shown after the first wheel turn.
    on_wheel: Mutex<Option<Tree>>,
    /// Trees shown after text is typed while an element has the focus (first match wins,
    /// used once); keys typed while none of them has it change nothing.
    on_text: Mutex<Vec<(ElementId, Tree)>>,
    snapshots: AtomicUsize,
    hit_tests: AtomicUsize,
    /// The hit test stops at this container instead of going down to what lies inside it
    /// (Swing's root pane, GIMP's panels).
    hit_stops_at: Mutex<Option<ElementId>>,
    /// A character the keyboard has no key for (a backend with one layout): a text holding
    /// it is refused whole by `can_type`.
    no_key_for: Mutex<Option<char>>,
}

#[derive(Clone)]
struct Shared(Arc<Ui>);

impl Accessibility for Shared {
    async fn applications(&self) -> Result<Vec<AppInfo>, A11yError> {
        self.0.fake.applications().await
    }
    async fn snapshot(&self, scope: &Scope, options: &SnapshotOptions) -> Result<Tree, A11yError> {
        self.0.snapshots.fetch_add(1, Ordering::Relaxed);
        self.0.fake.snapshot(scope, options).await
    }
    async fn element(&self, id: &ElementId) -> Result<Element, A11yError> {
        self.0.fake.element(id).await
    }
    async fn perform(&self, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
        if *op == Operation::ScrollIntoView && self.0.scroll_refused.load(Ordering::Relaxed) {
            return Err(A11yError::NotSupported { id: id.clone(), what: "scrolling into view".into() });
        }
        self.0.fake.perform(id, op).await?;
        if matches!(op, Operation::Action(_))
            && let Some(tree) = take(&self.0.on_action, |e| e == id)
        {
            self.0.fake.set_tree(tree);
        }
        Ok(())
    }
    async fn hit_test(&self, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
        self.0.hit_tests.fetch_add(1, Ordering::Relaxed);
        let hit = self.0.fake.hit_test(point).await?;
        let stop = self.0.hit_stops_at.lock().unwrap().clone();
        match (hit, stop) {
            (Some(mut hit), Some(stop)) if hit.chain.contains(&stop) => {
                hit.chain.truncate(hit.chain.iter().position(|id| *id == stop).unwrap_or(0) + 1);
                hit.element = self.0.fake.element(&stop).await?;
                Ok(Some(hit))
            }
            (hit, _) => Ok(hit),
        }
    }
    async fn events(&self, filter: &EventFilter) -> Result<EventStream, A11yError> {
        self.0.fake.events(filter).await
    }
}

/// The first of `rules` that `hit` picks, taken out: each rule is used once.
fn take<K, V>(rules: &Mutex<Vec<(K, V)>>, hit: impl Fn(&K) -> bool) -> Option<V> {
    let mut rules = rules.lock().unwrap();
    rules.iter().position(|(k, _)| hit(k)).map(|i| rules.remove(i).1)
}

/// Records input and applies the UI's click rules.
struct ClickInput {
    rec: Arc<Mutex<RecordingInput>>,
    ui: Arc<Ui>,
}

/// A shared fake screen, so a click can change what the executor captures.
#[derive(Clone)]
struct Screen(Arc<Mutex<FakeCapture>>);

impl Capture for Screen {
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError> {
        self.0.lock().unwrap().capture(what)
    }
    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        self.0.lock().unwrap().monitors()
    }
    fn backend_name(&self) -> &'static str {
        "fake"
    }
}

/// Text "read" on screen by a fake recogniser: found in any frame covering its rectangle.
#[derive(Clone, Default)]
struct Text(Arc<Mutex<Vec<Shown>>>);

/// A text and where it is shown.
type Shown = (String, Rect<Physical>);

impl crate::ScreenText for Text {
    fn find(&self, frame: &Frame, text: &TextMatch) -> Result<Vec<crate::TextHit>, String> {
        let shown = self.0.lock().unwrap();
        Ok(shown
            .iter()
            .filter(|(t, r)| crate::condition::text_matches(text, t) && frame.screen_rect().contains_rect(r))
            .map(|(t, r)| crate::TextHit { text: t.clone(), bounds: *r, score: 1.0 })
            .collect())
    }
}

/// A grey screen of 1000 x 1000 with a white square at `square`.
fn screen(square: Option<(i32, i32, u32, u32)>) -> Frame {
    let (w, h) = (1000u32, 1000u32);
    let mut px = vec![90u8; (w * h * 4) as usize];
    if let Some((x, y, sw, sh)) = square {
        for yy in y..y + sh as i32 {
            for xx in x..x + sw as i32 {
                let i = ((yy as u32 * w + xx as u32) * 4) as usize;
                px[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
    }
    Frame::new(w, h, px, Point::new(0, 0)).unwrap()
}

impl Input for ClickInput {
    fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError> {
        self.rec.lock().unwrap().move_to(to)
    }
    fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError> {
        let mut rec = self.rec.lock().unwrap();
        rec.button(button, action)?;
        let at = rec.pointer;
        if let Some(tree) = take(&self.ui.on_click, |r| r.contains(at)) {
            self.ui.fake.set_tree(tree);
        }
        let paint = take(&self.ui.on_click_paint, |r| r.contains(at));
        if let (Some(frame), Some(screen)) = (paint, self.ui.screen.lock().unwrap().as_ref()) {
            screen.0.lock().unwrap().set_screen(frame);
        }
        Ok(())
    }
    fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError> {
        self.rec.lock().unwrap().scroll(dx, dy)?;
        if let Some(tree) = self.ui.on_wheel.lock().unwrap().take() {
            self.ui.fake.set_tree(tree);
        }
        Ok(())
    }
    fn text(&mut self, text: &str) -> Result<(), InputError> {
        self.rec.lock().unwrap().text(text)?;
        let shown = self.ui.fake.tree();
        let focused = |id: &ElementId| shown.nodes.iter().any(|n| n.element.id == *id && n.element.has(State::Focused));
        if let Some(tree) = take(&self.ui.on_text, focused) {
            self.ui.fake.set_tree(tree);
        }
        Ok(())
    }
    fn chord(&mut self, chord: &Chord) -> Result<(), InputError> {
        self.rec.lock().unwrap().chord(chord)
    }
    fn can_type(&self, text: &str) -> Result<(), InputError> {
        match *self.ui.no_key_for.lock().unwrap() {
            Some(c) if text.contains(c) => Err(InputError::Unavailable(format!("no key for {c:?}"))),
            _ => Ok(()),
        }
    }
}

struct Fixture {
    text: Text,
    exec: Executor,
    ui: Arc<Ui>,
    rec: Arc<Mutex<RecordingInput>>,
}

fn placed(id: &str, role: &str, name: &str, r: (i32, i32, u32, u32), actions: &[&str]) -> Element {
    let mut e = element(id, role, name);
    e.bounds = Some(Rect::new(r.0, r.1, r.2, r.3));
    e.actions = actions.iter().map(|a| a.to_string()).collect();
    e
}

/// An app window with a button "Go" at (10, 10, 80, 30), a check box, a status label
/// showing `status`, and optionally a modal dialog.
fn ui(status: &str, checked: bool, dialog: Option<&str>) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let mut main = placed("main", "frame", "Main", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    b.child(main, placed("go", "push_button", "Go", (10, 10, 80, 30), &["click"]));
    let mut check = placed("check", "check_box", "Subscribe", (10, 50, 80, 30), &["click"]);
    if checked {
        check.states.insert(State::Checked);
    }
    b.child(main, check);
    b.child(main, placed("status", "label", status, (10, 100, 200, 30), &[]));
    if let Some(title) = dialog {
        let mut d = placed("popup", "dialog", title, (0, 0, 200, 100), &[]);
        d.states.insert(State::Modal);
        let d = b.child(app, d);
        b.child(d, placed("msg", "label", "Something happened", (10, 10, 150, 20), &[]));
        b.child(d, placed("ok", "push_button", "OK", (10, 50, 60, 30), &["click"]));
    }
    b.build()
}

fn fixture(tree: Tree, tweak: impl FnOnce(ExecutorConfig) -> ExecutorConfig) -> Fixture {
    fixture_with(tree, tweak, None)
}

/// [`fixture`] with a display server's window list.
fn fixture_with(
    tree: Tree,
    tweak: impl FnOnce(ExecutorConfig) -> ExecutorConfig,
    windows: Option<Box<dyn deft_input::WindowLocator + Send>>,
) -> Fixture {
    let ui = Arc::new(Ui {
        fake: FakeAccessibility::new(tree),
        on_click: Mutex::new(Vec::new()),
        on_action: Mutex::new(Vec::new()),
        on_click_paint: Mutex::new(Vec::new()),
        screen: Mutex::new(None),
        scroll_refused: std::sync::atomic::AtomicBool::new(false),
        on_wheel: Mutex::new(None),
        on_text: Mutex::new(Vec::new()),
        snapshots: AtomicUsize::new(0),
        hit_tests: AtomicUsize::new(0),
        hit_stops_at: Mutex::new(None),
        no_key_for: Mutex::new(None),
    });
    let rec = Arc::new(Mutex::new(RecordingInput::new(1000, 1000)));
    let shown = Screen(Arc::new(Mutex::new(FakeCapture::new(screen(None)))));
    let text = Text::default();
    *ui.screen.lock().unwrap() = Some(shown.clone());
    let backends = Backends {
        a11y: AnyAccessibility::new(Shared(ui.clone())),
        input: Box::new(ClickInput { rec: rec.clone(), ui: ui.clone() }),
        windows,
        capture: Some(Box::new(shown)),
        ocr: Some(Box::new(text.clone())),
    };
    // Short windows keep the tests fast; the logic is the same at any length.
    let config = ExecutorConfig {
        verify: true,
        verify_delay_ms: Some(10),
        timeout_ms: Some(250),
        actionability_timeout_ms: 300,
        ..ExecutorConfig::default()
    };
    let exec = Executor::new(backends, tweak(config)).expect("valid config");
    Fixture { text, exec, ui, rec }
}

impl Fixture {
    fn clicks(&self) -> Vec<Point<Physical>> {
        let rec = self.rec.lock().unwrap();
        let mut at = Point::new(0, 0);
        let mut clicks = Vec::new();
        for call in &rec.calls {
            match call {
                Recorded::Move(p) => at = *p,
                // A click whose pressed look is watched for is a press and a release.
                Recorded::Button(_, ButtonAction::Click { .. } | ButtonAction::Press) => clicks.push(at),
                _ => {}
            }
        }
        clicks
    }

    fn actions(&self) -> Vec<Operation> {
        self.ui.fake.performed().into_iter().map(|(_, op)| op).collect()
    }

    fn on_click(&self, r: (i32, i32, u32, u32), tree: Tree) {
        self.ui.on_click.lock().unwrap().push((Rect::new(r.0, r.1, r.2, r.3), tree));
    }
}

fn click(name: &str) -> Action {
    let sel = Selector { name: Some(TextMatch::Exact(name.into())), ..Selector::default() };
    Action::Click { target: Target::Selector(sel), button: MouseButton::Left, count: 1 }
}

const GO: (i32, i32, u32, u32) = (10, 10, 80, 30);
const CHECK: (i32, i32, u32, u32) = (10, 50, 80, 30);

#[tokio::test]
async fn a_click_with_an_effect_is_verified_and_every_step_is_published() {
    let bus = Bus::<VerifyEvent>::new(BusConfig { capacity: 256 });
    let mut sub = bus.subscribe("test");
    let f = fixture(ui("Ready", false, None), |c| ExecutorConfig { bus: Some(bus.clone()), ..c });
    f.on_click(GO, ui("Clicked Go", false, None));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(outcome.attempts[0].method, Method::CoordinateClick);
    assert!(outcome.observed.contains("Clicked Go"), "{outcome:#?}");
    assert_eq!(f.clicks(), [Point::new(50, 25)]);
    assert_eq!(outcome.target.as_ref().map(|t| t.name.as_str()), Some("Go"));

    let mut kinds = Vec::new();
    while let Ok(Received::Event(env)) = sub.try_recv() {
        kinds.push(match &env.event {
            VerifyEvent::ActionStarted { .. } => "started".to_string(),
            VerifyEvent::Resolved { .. } => "resolved".into(),
            VerifyEvent::NotActionable { .. } => "not_actionable".into(),
            VerifyEvent::Step { step, .. } => format!("step:{}", step_name(step)),
            VerifyEvent::Observed { observation, .. } => format!("observed:{}", observation.report.name()),
            VerifyEvent::InputSent { .. } => "sent".into(),
            VerifyEvent::Evidence { .. } => "evidence".into(),
            VerifyEvent::ActionFinished { .. } => "finished".into(),
            VerifyEvent::WaitStarted { .. } | VerifyEvent::WaitFinished { .. } => "wait".into(),
            VerifyEvent::Held { .. } => "held".into(),
            VerifyEvent::Frame(_) => "frame".into(),
        });
    }
    kinds.retain(|k| k != "not_actionable");
    assert_eq!(
        kinds,
        [
            "started",
            "resolved",
            "step:act",
            "sent",
            "observed:sent",
            "step:verify",
            // A text changed by an app heard a moment only: held, and said why.
            "held",
            "evidence",
            "observed:verified",
            "step:done",
            "finished"
        ]
    );
}

fn step_name(s: &Step) -> &'static str {
    match s {
        Step::Act { .. } => "act",
        Step::Verify { .. } => "verify",
        Step::ReResolve { .. } => "reresolve",
        Step::DismissBlocking { .. } => "dismiss",
        Step::Done(_) => "done",
    }
}

#[tokio::test]
async fn a_dropped_click_falls_back_to_the_accessibility_action_once() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.ui.on_action.lock().unwrap().push((ElementId("go".into()), ui("Clicked Go", false, None)));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok, "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction]);
    assert_eq!(outcome.attempts[0].result, AttemptResult::NoChange);
    assert!(outcome.retry_reason.as_deref().unwrap_or("").contains("no UI change"), "{outcome:#?}");
    assert_eq!(f.clicks().len(), 1);
    assert_eq!(f.actions(), [Operation::Action("click".into())]);
}

#[tokio::test]
async fn a_popup_as_the_only_change_blocks_and_is_not_dismissed() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.on_click(GO, ui("Ready", false, Some("New Event!")));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(false));
    let b = outcome.blocking.clone().expect("blocking");
    assert_eq!((b.role.as_str(), b.name.as_str()), ("dialog", "New Event!"));
    assert_eq!(b.texts, ["Something happened", "OK"]);
    assert_eq!(outcome.suggested_action, Some(SuggestedAction::DismissPopupThenRetry));
    assert_eq!(f.clicks().len(), 1, "never clicked again");
    assert!(f.actions().is_empty(), "never dismissed");
}

#[tokio::test]
async fn an_open_modal_blocks_before_any_input_unless_a_rule_dismisses_it() {
    let f = fixture(ui("Ready", false, Some("New Event!")), |c| c);
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.blocking.as_ref().map(|b| b.name.as_str()), Some("New Event!"));
    assert_eq!(outcome.suggested_action, Some(SuggestedAction::DismissPopupThenRetry));
    assert!(f.clicks().is_empty(), "nothing was clicked through the popup");
    assert!(matches!(outcome.attempts[0].result, AttemptResult::Failed { class: ErrorClass::Blocked, .. }));

    let rule = DismissRule { title: TextMatch::Exact("New Event!".into()), role: None, button: Some("OK".into()) };
    let f = fixture(ui("Ready", false, Some("New Event!")), |c| ExecutorConfig { dismiss_rules: vec![rule], ..c });
    f.ui.on_action.lock().unwrap().push((ElementId("ok".into()), ui("Ready", false, None)));
    f.on_click(GO, ui("Clicked Go", false, None));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(f.actions(), [Operation::Action("click".into())], "OK pressed once");
    assert_eq!(f.clicks().len(), 1);
    assert!(outcome.retry_reason.unwrap_or_default().contains("dismissed"));
}

#[tokio::test]
async fn a_toggle_is_verified_by_its_state_and_never_pressed_twice() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.on_click(CHECK, ui("Ready", true, None));
    let outcome = f.exec.perform(&click("Subscribe")).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert!(outcome.observed.contains("checked"), "{outcome:#?}");
    assert_eq!(f.clicks().len(), 1);

    // Unchanged after the window: retrying cannot undo anything, so the chain goes on.
    let f = fixture(ui("Ready", false, None), |c| c);
    f.ui.on_action.lock().unwrap().push((ElementId("check".into()), ui("Ready", true, None)));
    let outcome = f.exec.perform(&click("Subscribe")).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 2);
}

#[tokio::test]
async fn an_expectation_not_met_after_some_effect_is_not_retried() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.on_click(GO, ui("Something else", false, None));
    let options = crate::ActionOptions {
        expect: Some(Condition::TextAppears(TextMatch::Exact("Clicked Go".into()))),
        ..crate::ActionOptions::default()
    };
    let outcome = f.exec.perform_with(&click("Go"), &options).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert_eq!(f.clicks().len(), 1, "the input had an effect: never sent again");
    assert!(f.actions().is_empty());
    assert!(outcome.expected.contains("Clicked Go"), "{outcome:#?}");
}

#[tokio::test]
async fn an_unknown_target_fails_at_once_with_candidates() {
    let f = fixture(ui("Ready", false, None), |c| c);
    let started = std::time::Instant::now();
    let outcome = f.exec.perform(&click("Og")).await;
    assert!(!outcome.ok);
    assert_eq!(outcome.suggested_action, Some(SuggestedAction::RefineSelector));
    assert!(outcome.observed.contains("closest") && outcome.observed.contains("Go"), "{outcome:#?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(f.clicks().is_empty());
}

#[tokio::test]
async fn without_verify_one_input_and_no_extra_reads() {
    let f = fixture(ui("Ready", false, None), |c| ExecutorConfig { verify: false, ..c });
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok);
    assert_eq!(outcome.verified, None);
    assert_eq!(outcome.attempts[0].result, AttemptResult::Sent);
    assert_eq!(f.clicks(), [Point::new(50, 25)]);
    assert_eq!(f.ui.snapshots.load(Ordering::Relaxed), 1, "only the read that finds the target");
    assert_eq!(f.ui.hit_tests.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn waits_report_evidence_or_what_was_last_seen() {
    let f = fixture(ui("Ready", false, None), |c| c);
    let met = f
        .exec
        .wait(&Condition::TextAppears(TextMatch::Exact("Ready".into())), std::time::Duration::from_millis(200))
        .await;
    assert!(met.met);
    assert_eq!(met.channel, Some(deft_types::Channel::Accessibility));
    assert_eq!(met.evidence[0].what, "label \"Ready\" shows \"Ready\"");
    let gone = Condition::ElementGone(Selector { name: Some(TextMatch::Exact("Go".into())), ..Selector::default() });
    let not = f.exec.wait(&gone, std::time::Duration::from_millis(120)).await;
    assert!(!not.met);
    assert!(not.last_observed.contains("push_button \"Go\" is shown"), "{not:#?}");
    assert!(not.elapsed_ms >= 120);
}

fn click_at(x: i32, y: i32) -> Action {
    Action::Click { target: Target::Point(Point::new(x, y)), button: MouseButton::Left, count: 1 }
}

#[tokio::test]
async fn an_inaccessible_point_is_verified_by_its_pixels() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.ui.on_click_paint.lock().unwrap().push((Rect::new(600, 600, 20, 20), screen(Some((590, 650, 40, 30)))));
    let outcome = f.exec.perform(&click_at(610, 610)).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.evidence[0].channel, Channel::Pixels);
    assert_eq!(outcome.evidence[0].region, Some(Rect::new(590, 650, 40, 30)));
    assert_eq!(f.clicks(), [Point::new(610, 610)]);
    // The pointer went there first, so its hover look is in the "before" frames.
    assert_eq!(f.rec.lock().unwrap().calls[0], Recorded::Move(Point::new(610, 610)));

    // Nothing changes: an effect that does not show (xcalc's "sin" of 0) and a lost click
    // look the same in the pixels, so the click is sent once and said to be unverifiable
    // (falling back pressed xcalc's button twice).
    let f = fixture(ui("Ready", false, None), |c| c);
    let outcome = f.exec.perform(&click_at(610, 610)).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(false));
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick]);
    assert_eq!(outcome.attempts[0].result, AttemptResult::Sent, "{outcome:#?}");
    assert!(outcome.observed.contains("cannot be verified"), "{outcome:#?}");
    assert_eq!(f.clicks().len(), 1);
}

#[tokio::test]
async fn an_expected_text_only_on_screen_is_read_by_ocr_in_the_changed_region() {
    let f = fixture(ui("Ready", false, None), |c| c);
    let saved = Rect::new(590, 650, 40, 30);
    f.ui.on_click_paint.lock().unwrap().push((Rect::new(10, 10, 80, 30), screen(Some((590, 650, 40, 30)))));
    f.text.0.lock().unwrap().push(("Saved".into(), saved));
    let options = crate::ActionOptions {
        expect: Some(Condition::TextAppears(TextMatch::Exact("Saved".into()))),
        ..crate::ActionOptions::default()
    };
    let outcome = f.exec.perform_with(&click("Go"), &options).await;
    assert!(outcome.ok, "{outcome:#?}");
    let e = outcome.evidence.iter().find(|e| e.channel == Channel::Ocr).expect("OCR evidence");
    assert_eq!(e.region, Some(saved));

    // Shown before the input and unchanged: the changed regions hold nothing to read.
    let f = fixture(ui("Ready", false, None), |c| c);
    f.text.0.lock().unwrap().push(("Saved".into(), saved));
    let outcome = f.exec.perform_with(&click("Go"), &options).await;
    assert!(!outcome.ok, "{outcome:#?}");
}

#[tokio::test]
async fn a_wait_falls_back_to_ocr_and_says_so() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.text.0.lock().unwrap().push(("Canvas text".into(), Rect::new(100, 100, 80, 20)));
    let cond = Condition::TextAppears(TextMatch::Contains("canvas".into()));
    let w = f.exec.wait(&cond, std::time::Duration::from_millis(300)).await;
    assert!(w.met, "{w:#?}");
    assert_eq!(w.channel, Some(Channel::Ocr));
    assert!(w.last_observed.contains("(OCR)"));
}

#[test]
fn executor_and_its_futures_can_move_between_threads() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let f = fixture(ui("Ready", false, None), |c| c);
    send_sync(&f.exec);
    let action = click("Go");
    send(&f.exec.perform(&action));
    let cond = Condition::TextAppears(TextMatch::Exact("Ready".into()));
    send(&f.exec.wait(&cond, std::time::Duration::from_millis(1)));
}
