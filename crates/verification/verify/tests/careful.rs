//! What the executor does for a target that is not actionable yet, on real applications:
//! a disabled control with nothing at work fails at once, a window another application
//! covers is raised first, a minimised one restored first. Judged by the apps' own logs and an independent hit test.

use std::time::Duration;

use deft_a11y::{Accessibility, SnapshotOptions};
use deft_harness::apps::{CorpusApp, RunningApp};
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_types::{Action, Channel, FailureKind, MouseButton, Selector, State, Target};

use crate::support::*;

/// gtk3-widget-factory on `desktop`, registered on the accessibility bus; `None` (with the
/// reason printed) only when its package is absent.
fn widget_factory(desktop: &deft_harness::Desktop) -> Option<RunningApp> {
    if let Some(why) = CorpusApp::Gtk3WidgetFactory.missing() {
        eprintln!("skipped: {why}");
        return None;
    }
    let mut app = RunningApp::launch(desktop, CorpusApp::Gtk3WidgetFactory).expect("gtk3-widget-factory starts");
    app.wait_registered(desktop, Duration::from_secs(30)).expect("gtk3-widget-factory registers");
    Some(app)
}

#[test]
fn a_disabled_control_with_nothing_at_work_fails_at_once() {
    on_big_stack(a_disabled_control_fails_at_once);
}

fn a_disabled_control_fails_at_once() {
    let desktop = desktop();
    let Some(mut factory) = widget_factory(&desktop) else { return };
    let rt = runtime();
    let cfg = deft_verify::ExecutorConfig { actionability_timeout_ms: 30_000, ..config_for(&desktop) };
    let exec = connect(&rt, &desktop, cfg);
    // The first disabled check box the factory shows (it has a row of them, greyed out).
    let boxes = Selector {
        app: Some(deft_types::TextMatch::Exact("gtk3-widget-factory".into())),
        role: Some(deft_types::Role::new("check_box")),
        ..Selector::default()
    };
    let (scoped, found) = rt.block_on(deft_a11y::find_all(exec.a11y(), &boxes, &SnapshotOptions::default())).unwrap();
    let disabled = found
        .iter()
        .map(|&i| &scoped.tree.nodes[i].element)
        .find(|e| e.has(State::Showing) && !e.has(State::Enabled))
        .expect("a disabled check box is shown")
        .clone();
    let target = Target::Selector(Selector { id: Some(disabled.id.clone()), ..Selector::default() });
    let outcome = rt.block_on(exec.perform(&Action::Click { target, button: MouseButton::Left, count: 1 }));
    assert!(!outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.failure.as_ref().map(|f| f.kind), Some(FailureKind::NotActionable), "{outcome:#?}");
    assert!(outcome.observed.contains("nothing in its application is working"), "{outcome:#?}");
    // It gave up on its own, long before the 30 s it was allowed to wait.
    assert!(outcome.elapsed_ms < 30_000, "{outcome:#?}");
    // Nothing was clicked: the box is as it was (an independent read), the app alive.
    let after = rt.block_on(exec.a11y().element(&disabled.id)).unwrap();
    assert_eq!(after.has(State::Checked), disabled.has(State::Checked));
    factory.check_responsive(&desktop, Duration::from_secs(5)).expect("gtk3-widget-factory still answers");
}

#[test]
fn a_window_another_application_covers_is_raised_then_clicked_once() {
    let desktop = desktop();
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    // Started after the fixture, the (larger) widget factory opens on top of it.
    let Some(mut factory) = widget_factory(&desktop) else { return };
    let rt = runtime();
    let exec = connect(&rt, &desktop, config_for(&desktop));
    let outcome = rt.block_on(exec.perform(&click("app=deft-fixture name=Hello")));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert!(
        outcome.evidence.iter().any(|e| e.channel == Channel::Input && e.what.starts_with("raised window")),
        "the outcome says the window was raised: {outcome:#?}"
    );
    app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello clicked");
    std::thread::sleep(QUIET);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{:?}", app.events());
    factory.check_responsive(&desktop, Duration::from_secs(5)).expect("gtk3-widget-factory still answers");
}

#[test]
fn a_minimised_window_is_restored_then_clicked_once() {
    let desktop = desktop();
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    // Minimised as a person would from its title bar (the window manager iconifies it).
    let pid = app.pid().to_string();
    let out = desktop
        .command("xdotool")
        .args(["search", "--sync", "--onlyvisible", "--pid", &pid, "--name", ".", "windowminimize", "--sync"])
        .output()
        .expect("xdotool");
    assert!(out.status.success(), "minimise: {}", String::from_utf8_lossy(&out.stderr));
    let rt = runtime();
    let exec = connect(&rt, &desktop, config_for(&desktop));
    let outcome = rt.block_on(exec.perform(&click("app=deft-fixture name=Hello")));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert!(
        outcome.evidence.iter().any(|e| e.channel == Channel::Input && e.what.starts_with("restored window")),
        "the outcome says the window was restored: {outcome:#?}"
    );
    app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello clicked");
    std::thread::sleep(QUIET);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{:?}", app.events());
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the fixture still answers");
}

#[test]
fn keys_for_a_window_without_the_keyboard_focus_go_there_once_it_has_it() {
    on_big_stack(|| keys_wait_for_the_window(deft_harness::fixture::Toolkit::Gtk3));
}

#[test]
fn keys_for_a_firefox_window_without_the_keyboard_focus_go_there_once_it_has_it() {
    on_big_stack(|| keys_wait_for_the_window(deft_harness::fixture::Toolkit::Firefox));
}

fn keys_wait_for_the_window(toolkit: deft_harness::fixture::Toolkit) {
    if let Some(why) = toolkit.missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let desktop = desktop();
    let app =
        FixtureApp::launch(&desktop, &FixtureOptions { toolkit, ..FixtureOptions::default() }).expect("fixture app");
    // Started after the fixture, the widget factory opens on top and takes the keyboard
    // focus; the fixture's Name field still reads focused through accessibility.
    let Some(mut factory) = widget_factory(&desktop) else { return };
    let focus_owner = || {
        let out = desktop.command("xdotool").args(["getwindowfocus", "getwindowpid"]).output().expect("xdotool");
        String::from_utf8_lossy(&out.stdout).trim().parse::<u32>().ok()
    };
    let deadline = std::time::Instant::now() + WAIT;
    while focus_owner() != Some(factory.pid()) {
        assert!(std::time::Instant::now() < deadline, "the widget factory never took the keyboard focus");
        std::thread::sleep(Duration::from_millis(50));
    }
    let rt = runtime();
    let exec = connect(&rt, &desktop, config_for(&desktop));
    let app_name = toolkit.accessible_app();
    let target = Target::Selector(sel(&format!("app={app_name:?} name=Name")));
    let outcome = rt.block_on(exec.perform(&Action::Type { target, text: "hello".into() }));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    // The keys themselves reached the field (no fallback to setting its text), after the
    // window manager gave its window the focus, and the outcome says so.
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    assert_eq!(outcome.attempts[0].method, deft_types::Method::Keystrokes, "{outcome:#?}");
    assert!(
        outcome.evidence.iter().any(|e| e.what.contains("activated window")),
        "the outcome says the window was activated: {outcome:#?}"
    );
    app.wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("hello"), WAIT)
        .expect("the fixture got the keys");
    assert_ne!(focus_owner(), Some(factory.pid()), "the fixture's window has the keyboard focus");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the fixture still answers");
    factory.check_responsive(&desktop, Duration::from_secs(5)).expect("gtk3-widget-factory still answers");
}

#[test]
fn a_spin_button_gets_its_value_committed_not_only_its_text() {
    let desktop = desktop();
    let Some(mut factory) = widget_factory(&desktop) else { return };
    let rt = runtime();
    let exec = connect(&rt, &desktop, config_for(&desktop));
    let spins = Selector {
        app: Some(deft_types::TextMatch::Exact("gtk3-widget-factory".into())),
        role: Some(deft_types::Role::new("spin_button")),
        ..Selector::default()
    };
    let (scoped, found) = rt.block_on(deft_a11y::find_all(exec.a11y(), &spins, &SnapshotOptions::default())).unwrap();
    let spin = found
        .iter()
        .map(|&i| &scoped.tree.nodes[i].element)
        .find(|e| e.has(State::Showing) && e.has(State::Enabled))
        .expect("an enabled spin button is shown")
        .clone();
    let target = Target::Selector(Selector { id: Some(spin.id.clone()), ..Selector::default() });
    let outcome = rt.block_on(exec.perform(&Action::SetValue { target, value: "73".into() }));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    // An independent read of the Value interface: committed, not only typed.
    let after = rt.block_on(exec.a11y().element(&spin.id)).unwrap();
    assert_eq!(after.value.as_deref().map(|v| v.trim_end_matches(".0")), Some("73"), "{after:#?}");
    factory.check_responsive(&desktop, Duration::from_secs(5)).expect("gtk3-widget-factory still answers");
}
