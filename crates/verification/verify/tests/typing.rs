//! Typing and setting values: ignored keystrokes, focus theft, judged by the log.

use deft_harness::fixture::{Event, FixtureOptions};
use deft_types::{Action, Method, Target};

use crate::support::*;

fn type_into(selector: &str, text: &str) -> Action {
    Action::Type { target: Target::Selector(sel(selector)), text: text.to_string() }
}

fn last_text(w: &World, widget: &str) -> Option<String> {
    w.app
        .events()
        .iter()
        .rev()
        .find(|e| e.is("text_changed", Some(widget)))
        .and_then(|e| e.str("value").map(str::to_string))
}

fn is_text_change(e: &Event) -> bool {
    e.kind == "text_changed"
}

#[test]
fn typing_without_fault_is_verified_by_the_field_text() {
    let w = start(FixtureOptions::default());
    let outcome = w.perform(&type_into("role=text name=Name", "hello"));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    assert_eq!(outcome.attempts[0].method, Method::Keystrokes);
    w.app.wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("hello"), WAIT).expect("typed");
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "name").as_deref(), Some("hello"), "{:#?}", w.log());
}

#[test]
fn ignored_keystrokes_fall_back_to_setting_the_text() {
    let w = start(FixtureOptions { ignore_keys: true, ..FixtureOptions::default() });
    let outcome = w.perform(&type_into("role=text name=Name", "hello"));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::Keystrokes, Method::A11ySet], "{outcome:#?}");
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "name").as_deref(), Some("hello"), "{:#?}", w.log());
    // The first key went alone, and the app handled it without effect: nothing more was
    // typed into a field that ignores keys (the fixture logs each key it ignores).
    assert_eq!(w.app.count("fault", None), 1, "only the first key: {:#?}", w.log());
}

/// Registers an input method server on the display's root window, as IBus started with
/// `--xim` does (GNOME's X11 sessions start it so).
fn register_input_method(w: &World) {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, PropMode};
    use x11rb::wrapper::ConnectionExt as _;
    let (conn, screen) = x11rb::connect(Some(w._desktop.display())).unwrap();
    let root = conn.setup().roots[screen].root;
    let servers = conn.intern_atom(false, b"XIM_SERVERS").unwrap().reply().unwrap().atom;
    let ibus = conn.intern_atom(false, b"@server=ibus").unwrap().reply().unwrap().atom;
    conn.change_property32(PropMode::REPLACE, root, servers, AtomEnum::ATOM, &[ibus]).unwrap();
    conn.sync().unwrap();
}

#[test]
fn with_an_input_method_the_first_key_is_not_taken_for_an_answer() {
    // An input method hands each key to the field after a round trip of its own, which the
    // window's answer to a ping does not wait for: the keys are typed whole, and the window
    // decides, as before the first key was watched.
    let w = start(FixtureOptions { ignore_keys: true, ..FixtureOptions::default() });
    register_input_method(&w);
    let outcome = w.perform(&type_into("role=text name=Name", "hello"));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::Keystrokes, Method::A11ySet], "{outcome:#?}");
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "name").as_deref(), Some("hello"), "{:#?}", w.log());
    assert_eq!(w.app.count("fault", None), 5, "every key typed: {:#?}", w.log());
}

/// Only keystrokes, then the paste: the chain a field without an accessible text setter
/// (Chromium's, Firefox's) has once its keys are ignored.
fn keys_then_paste(c: deft_verify::ExecutorConfig) -> deft_verify::ExecutorConfig {
    let chain = "[type]\nchain = [\"keystrokes\", \"middle_click_paste\"]\n";
    deft_verify::ExecutorConfig { policies: deft_retry::PolicySet::from_toml_str(chain).unwrap(), ..c }
}

#[test]
fn ignored_keystrokes_are_pasted_where_nothing_sets_the_text() {
    let opts = FixtureOptions { ignore_keys: true, ..FixtureOptions::default() };
    let w = start_with(opts, keys_then_paste);
    let outcome = w.perform(&type_into("role=text name=Name", "Ada"));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::Keystrokes, Method::MiddleClickPaste], "{outcome:#?}");
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "name").as_deref(), Some("Ada"), "{:#?}", w.log());
    // Typing appends: pasted past the end of the text already there.
    let outcome = w.perform(&type_into("role=text name=Name", " Lovelace"));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "name").as_deref(), Some("Ada Lovelace"), "{:#?}", w.log());
    w.app.check_alive(&w._desktop, WAIT).expect("the fixture still answers");
}

#[test]
fn a_password_is_never_pasted() {
    // The primary selection can be read by any application while it is offered.
    let opts = FixtureOptions { ignore_keys: true, fault_target: Some("password".into()), ..FixtureOptions::default() };
    let w = start_with(opts, keys_then_paste);
    let outcome = w.perform(&type_into("role=password_text name=Password", "hunter2"));
    assert!(!outcome.ok, "{outcome:#?}");
    let paste = outcome.attempts.iter().find(|a| a.method == Method::MiddleClickPaste).expect("the paste's turn");
    let said = format!("{paste:?}");
    assert!(said.contains("holds a secret"), "{said}");
    assert!(!serde_json::to_string(&outcome).unwrap_or_default().contains("hunter2"), "{outcome:#?}");
    assert!(w.app.events().iter().all(|e| !e.is("text_changed", Some("password"))), "{:#?}", w.log());
}

#[test]
fn focus_theft_is_detected_and_recovered() {
    let w = start(FixtureOptions { focus_theft: Some(3), ..FixtureOptions::default() });
    let outcome = w.perform(&type_into("role=text name=Name", "hello world"));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert!(outcome.retried, "{outcome:#?}");
    let first = outcome.attempts[0].observed.clone().unwrap_or_default();
    assert!(
        first.contains("another field") && first.contains("Email"),
        "the report says where the text went: {outcome:#?}"
    );
    assert!(w.app.count("fault", None) >= 1, "focus was stolen: {:#?}", w.log());
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "name").as_deref(), Some("hello world"), "{:#?}", w.log());
    // The keys that went to Email were taken back: it shows what it showed before.
    assert!(w.app.count("text_changed", Some("email")) >= 2, "stray keys, then put back: {:#?}", w.log());
    assert_eq!(last_text(&w, "email").as_deref(), Some(""), "{:#?}", w.log());
    assert!(outcome.observed.contains("taken back"), "{outcome:#?}");
}

#[test]
fn set_value_sets_the_text_through_accessibility() {
    let w = start(FixtureOptions::default());
    let action = Action::SetValue { target: Target::Selector(sel("role=text name=Email")), value: "a@b.c".into() };
    let outcome = w.perform(&action);
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.attempts[0].method, Method::A11ySet);
    w.quiet("text change", is_text_change);
    assert_eq!(last_text(&w, "email").as_deref(), Some("a@b.c"), "{:#?}", w.log());
}

#[test]
fn typing_a_password_is_verified_by_its_length() {
    let w = start(FixtureOptions::default());
    let outcome = w.perform(&type_into("role=password_text name=Password", "secret"));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    let report = serde_json::to_string(&outcome).unwrap_or_default();
    assert!(!report.contains("secret"), "the password is never reported: {outcome:#?}");
    w.quiet("text change", is_text_change);
    let last = w.app.events().into_iter().rev().find(|e| e.is("text_changed", Some("password"))).expect("typed");
    assert_eq!(last.raw["length"], 6, "{:#?}", w.log());
}

#[test]
fn a_verified_key_watches_the_focused_application() {
    let w = start(FixtureOptions::default());
    let typed = w.perform(&type_into("role=text name=Name", "xy"));
    assert!(typed.ok, "{typed:#?}");
    w.app.wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("xy"), WAIT).expect("typed");
    let chord = deft_types::KeyChord { modifiers: Vec::new(), key: "BackSpace".into() };
    let outcome = w.perform(&Action::Key { chord, target: deft_types::Target::Focused });
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert!(outcome.observed.contains("\"xy\" -> \"x\""), "{outcome:#?}");
    // The app's own log: one key, one character gone.
    w.app.wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("x"), WAIT).expect("erased");
    w.quiet("text change", is_text_change);
    // A key the focused field does nothing with is sent, said so, and sent once: with no
    // expectation nothing says it was lost (a key's effect may show nowhere).
    let chord = deft_types::KeyChord { modifiers: Vec::new(), key: "F9".into() };
    let outcome = w.perform(&Action::Key { chord, target: deft_types::Target::Focused });
    assert!(outcome.ok && outcome.verified == Some(false), "{outcome:#?}");
    assert!(outcome.observed.contains("no change was seen"), "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    assert_eq!(last_text(&w, "name").as_deref(), Some("x"), "{:#?}", w.log());
}

/// Qt's combo box: its items offer only a toggle of their selection, which Qt never
/// commits (before: "sent, cannot be verified", nothing chosen); its list is opened and the
/// item clicked where the display server shows it, once, and no list is left open.
#[test]
fn a_qt_combo_box_value_is_chosen_once_by_opening_its_list() {
    for toolkit in [deft_harness::fixture::Toolkit::Qt5, deft_harness::fixture::Toolkit::Qt6] {
        if let Some(why) = toolkit.missing() {
            eprintln!("skipped: {why}");
            continue;
        }
        let w = start(FixtureOptions { toolkit, ..FixtureOptions::default() });
        let target = Target::Selector(sel("role=combo_box"));
        let outcome = w.perform(&Action::SetValue { target, value: "Blue".into() });
        assert!(outcome.ok && outcome.verified == Some(true), "{toolkit:?}: {outcome:#?}");
        w.app
            .wait_for(|e| e.is("selection_changed", Some("color")) && e.str("value") == Some("Blue"), WAIT)
            .expect("chosen");
        let next = w.perform(&click("role=push_button name=Hello"));
        assert!(next.ok && next.verified == Some(true), "{toolkit:?}: {next:#?}");
        w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("clicked");
        let chosen = w.app.events().iter().filter(|e| e.is("selection_changed", Some("color"))).count();
        assert_eq!(chosen, 1, "{toolkit:?}: {:#?}", w.log());
    }
}

#[test]
fn a_combo_box_value_is_chosen_and_the_next_click_is_not_blocked() {
    let w = start(FixtureOptions::default());
    let target = Target::Selector(sel("role=combo_box name=Color"));
    let outcome = w.perform(&Action::SetValue { target, value: "Blue".into() });
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    w.app
        .wait_for(|e| e.is("selection_changed", Some("color")) && e.str("value") == Some("Blue"), WAIT)
        .expect("chosen");
    // No popup left open over the window: the next click lands.
    let next = w.perform(&click("role=push_button name=Hello"));
    assert!(next.ok && next.verified == Some(true), "{next:#?}");
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("clicked");
    let chosen = w.app.events().iter().filter(|e| e.is("selection_changed", Some("color"))).count();
    assert_eq!(chosen, 1, "{:#?}", w.log());
}
