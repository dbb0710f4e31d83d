//! Actions, set text, set value, focus, scrolling and the hit test, judged by the app's log.

use std::time::Duration;

use deft_a11y::{A11yError, Accessibility, Scope, SnapshotOptions};
use deft_harness::fixture::Event;
use deft_types::{Point, State};

use crate::support::{desktop, runtime, session, wait_for_app};

const EFFECT: Duration = Duration::from_secs(5);

#[test]
fn click_submit_order_logs_exactly_one_order() {
    let s = session();
    let submit = s.id("push_button", "Submit order");
    s.block(s.a11y().do_action(&submit, "click")).expect("click");
    let order = s.app.wait_for(|e: &Event| e.kind == "order_submitted", EFFECT).expect("the app logged the order");
    assert_eq!(order.raw["count"], 1);
    // No double effect: still one a moment later.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.app.count("order_submitted", None), 1);
    // Matching is on the action's name, whatever its case.
    s.block(s.a11y().do_action(&submit, "Click")).expect("click again");
    s.app.wait_for_count(2, |e| e.kind == "order_submitted", EFFECT).expect("second order");
}

#[test]
fn set_text_on_name_logs_the_value() {
    let s = session();
    let name = s.id("text", "Name");
    s.block(s.a11y().set_text(&name, "Ada Lovelace")).expect("set text");
    let changed = s
        .app
        .wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("Ada Lovelace"), EFFECT)
        .expect("the app logged the text");
    assert_eq!(changed.str("value"), Some("Ada Lovelace"));
    let read = s.block(s.a11y().element(&name)).unwrap();
    assert_eq!(read.text.as_deref(), Some("Ada Lovelace"));
}

#[test]
fn wrong_operations_say_what_the_element_offers() {
    let s = session();
    let submit = s.id("push_button", "Submit order");
    let err = s.block(s.a11y().do_action(&submit, "press")).unwrap_err();
    assert!(matches!(&err, A11yError::NoSuchAction { available, .. } if available == &["click"]), "{err}");
    assert!(err.to_string().contains("it has: click"), "{err}");
    let err = s.block(s.a11y().set_text(&submit, "x")).unwrap_err();
    assert!(matches!(err, A11yError::NotSupported { .. }), "{err}");
    assert!(err.to_string().contains("EditableText"), "{err}");
    let err = s.block(s.a11y().set_value(&submit, 1.0)).unwrap_err();
    assert!(matches!(err, A11yError::NotSupported { .. }), "{err}");
    assert_eq!(s.app.count("order_submitted", None), 0, "a failed operation has no effect");
}

#[test]
fn focus_moves_the_keyboard_focus() {
    let s = session();
    let email = s.id("text", "Email");
    s.block(s.a11y().focus(&email)).expect("focus");
    // GTK reports `focused` once its window is active, which the window manager decides:
    // poll (bounded) rather than assume it already is.
    let start = std::time::Instant::now();
    loop {
        let read = s.block(s.a11y().element(&email)).unwrap();
        if read.has(State::Focused) {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "never focused: {:?}", read.states);
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn hit_test_at_a_widget_centre_returns_it() {
    let s = session();
    let ready = s.app.ready();
    let (x, y) = ready.widget("submit").center();
    let hit = s.block(s.a11y().hit_test(Point::new(x, y))).unwrap().expect("something is there");
    assert_eq!((hit.element.role.as_str(), hit.element.name.as_str()), ("push_button", "Submit order"));
    let window = s.app_info().windows[0].id.clone();
    assert!(hit.is_within(&window) && hit.is_within(&hit.element.id), "{:?}", hit.chain);
    // Inside a list row: the row's label, within the row.
    let (x, y) = ready.widget("item_2").center();
    let hit = s.block(s.a11y().hit_test(Point::new(x, y))).unwrap().expect("a row");
    assert_eq!(hit.element.name, "Item 2");
    let row = s.id("list_item", "Item 2");
    assert!(hit.is_within(&row), "{:?} not within the row {row}", hit.chain);
    // Off every window: nothing.
    let w = s.app_info().windows[0].bounds.unwrap();
    let outside = Point::new(w.x + w.w as i32 + 50, w.y + 10);
    assert_eq!(s.block(s.a11y().hit_test(outside)).unwrap(), None);
}

#[test]
fn scroll_into_view_works_or_says_unsupported() {
    let s = session();
    let row = s.id("list_item", "Item 5");
    match s.block(s.a11y().scroll_into_view(&row)) {
        Ok(()) => {}
        Err(A11yError::NotSupported { .. } | A11yError::Refused { .. }) => {}
        Err(e) => panic!("unexpected {e}"),
    }
}

/// The fixture has no Value widget; gtk3-widget-factory's spin buttons and scales do.
#[test]
fn set_value_on_gtk3_widget_factory() {
    let d = desktop();
    let mut child = d.command("gtk3-widget-factory").spawn().expect("gtk3-widget-factory (package gtk-3-examples)");
    let rt = runtime();
    let a11y = rt.block_on(deft_a11y::AtSpi::connect(crate::support::config(&d))).unwrap();
    let app = wait_for_app(&rt, &a11y, "gtk3-widget-factory");
    let tree = rt.block_on(a11y.snapshot(&Scope::App(app.id), &SnapshotOptions::default())).unwrap();
    let spin = tree
        .nodes
        .iter()
        .find(|n| {
            n.element.role.as_str() == "spin_button" && n.element.has(State::Showing) && n.element.value.is_some()
        })
        .expect("a showing spin button with a value");
    let id = spin.element.id.clone();
    rt.block_on(a11y.set_value(&id, 42.0)).expect("set value");
    let read = rt.block_on(a11y.element(&id)).unwrap();
    assert_eq!(read.value.as_deref(), Some("42"), "{read:?}");
    let _inside = rt.enter();
    drop(a11y);
    let _ = child.kill();
    let _ = child.wait();
}

/// Where a field's text ends (a paste past it appends): inside the field, and right of where
/// it was before more text was added, on GTK 3 and Qt. GTK 4.8 answers "not supported": no
/// end (not an error), so no paste appends there; its fields take a text set through
/// accessibility instead.
#[test]
fn the_end_of_a_fields_text_is_placed_inside_it() {
    use deft_harness::fixture::{FixtureOptions, Toolkit};
    for toolkit in [Toolkit::Gtk3, Toolkit::Qt5, Toolkit::Gtk4] {
        let s = crate::support::session_with(&FixtureOptions { toolkit, ..FixtureOptions::default() });
        let tree = s.tree();
        let field = tree
            .nodes
            .iter()
            .map(|n| &n.element)
            .find(|e| e.name == "Name" && e.has(State::Editable))
            .unwrap_or_else(|| panic!("{toolkit:?}: the Name field"))
            .clone();
        let bounds = field.bounds.expect("the field is on screen");
        assert_eq!(s.block(s.a11y().text_end(&field.id)).unwrap(), None, "{toolkit:?}: an empty field has no end");
        let mut ends = Vec::new();
        for text in ["Ada", "Ada Lovelace"] {
            s.block(s.a11y().set_text(&field.id, text)).expect("set text");
            s.app.wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some(text), EFFECT).unwrap();
            let end = s.block(s.a11y().text_end(&field.id)).unwrap_or_else(|e| panic!("{toolkit:?}: {e}"));
            if toolkit == Toolkit::Gtk4 {
                assert_eq!(end, None, "GTK 4.8 gives no character extents");
                continue;
            }
            let end = end.unwrap_or_else(|| panic!("{toolkit:?}: an end"));
            assert!(bounds.contains(end.center()), "{toolkit:?}: {end:?} inside {bounds:?}");
            ends.push(end.x);
        }
        assert!(toolkit == Toolkit::Gtk4 || ends[1] > ends[0], "{toolkit:?}: the end moves right: {ends:?}");
    }
}

/// Text inserted into a field goes in at the place asked, whole (an umlaut and a symbol
/// too: each toolkit reads the length in its own unit), and what the field held stays; the
/// caret is read on each toolkit. Judged by the app's log.
#[test]
fn inserted_text_goes_in_at_its_place_whole_and_keeps_the_rest() {
    use deft_harness::fixture::{FixtureOptions, Toolkit};
    for toolkit in [Toolkit::Gtk3, Toolkit::Qt5, Toolkit::Qt6, Toolkit::Gtk4] {
        let s = crate::support::session_with(&FixtureOptions { toolkit, ..FixtureOptions::default() });
        let name = s.id("text", "Name");
        s.block(s.a11y().set_text(&name, "Ada Lovelace")).expect("set text");
        s.app
            .wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("Ada Lovelace"), EFFECT)
            .unwrap_or_else(|e| panic!("{toolkit:?}: {e}"));
        s.block(s.a11y().insert_text(&name, 4, "Grüße ✓ ")).unwrap_or_else(|e| panic!("{toolkit:?}: {e}"));
        let want = "Ada Grüße ✓ Lovelace";
        s.app
            .wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some(want), EFFECT)
            .unwrap_or_else(|e| panic!("{toolkit:?}: the app never held {want:?}: {e}"));
        let read = s.block(s.a11y().element(&name)).unwrap();
        assert_eq!(read.text.as_deref(), Some(want), "{toolkit:?}");
        let caret = s.block(s.a11y().caret(&name)).unwrap_or_else(|e| panic!("{toolkit:?}: {e}"));
        eprintln!("{toolkit:?}: caret after the insert: {caret:?}");
        let caret = caret.unwrap_or_else(|| panic!("{toolkit:?}: a text field has a caret"));
        assert!(caret.at <= want.chars().count(), "{toolkit:?}: {caret:?}");
        s.app.check_alive(&s.desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{toolkit:?}: {e}"));
    }
}
