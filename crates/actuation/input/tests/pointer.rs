//! Clicks and scrolls land on the intended fixture widget at scale 1.

use deft_input::{Input, click_point};
use deft_types::{MouseButton, ScaleFactor};

use crate::support::{QUIET, WAIT, desktop_with_app, input, logical, scale_of};

#[test]
fn a_click_at_the_mapped_centre_activates_hello_exactly_once() {
    let (desktop, app) = desktop_with_app();
    let ready = app.ready();
    let (scale, _) = scale_of(&desktop, app.pid(), ready.window);
    assert_eq!(scale, ScaleFactor::ONE);
    let mut input = input(&desktop);
    assert_eq!(input.screen(), Some((1280, 800)));

    let at = click_point(logical(ready.widget("hello")), scale).unwrap();
    input.click_at(at, MouseButton::Left, 1).unwrap();
    app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).unwrap();
    std::thread::sleep(QUIET);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{:?}", app.events());
    assert_eq!(app.count("button_activated", None), 1, "{:?}", app.events());

    // A double click is two activations of a button.
    input.click_at(at, MouseButton::Left, 2).unwrap();
    app.wait_for_count(3, |e| e.is("button_activated", Some("hello")), WAIT).unwrap();
    std::thread::sleep(QUIET);
    assert_eq!(app.count("button_activated", Some("hello")), 3, "{:?}", app.events());
}

#[test]
fn scrolling_over_the_combo_box_changes_its_selection() {
    let (desktop, app) = desktop_with_app();
    let mut input = input(&desktop);
    let at = click_point(logical(app.ready().widget("color")), ScaleFactor::ONE).unwrap();

    // GTK3 combo boxes step through their items on the wheel: Red -> Green.
    input.scroll_at(at, 0, 1).unwrap();
    let changed = app.wait_for(|e| e.is("selection_changed", Some("color")), WAIT).unwrap();
    assert_eq!(changed.str("value"), Some("Green"), "{:?}", app.events());
}
