//! At GDK_SCALE=2 a click lands only when the logical bounds go through the derived scale.

use deft_input::{Input, click_point};
use deft_types::{MouseButton, Physical, Point};

use crate::support::{QUIET, ScaledApp, WAIT, desktop, input, logical, scale_of};

#[test]
fn at_scale_2_the_mapped_click_activates_and_the_unconverted_one_does_not() {
    // 800x600 logical points are 1600x1200 pixels: the screen must hold them.
    let desktop = desktop(2000, 1400);
    let app = ScaledApp::launch(&desktop, &[("GDK_SCALE", "2")]);
    let window = app.bounds("window");
    let hello = logical(app.bounds("hello"));

    let (scale, x_bounds) = scale_of(&desktop, app.pid(), window);
    assert_eq!(scale.get(), 2.0, "logical window {window:?}, X window {x_bounds:?}");
    // GTK reports screen coordinates divided by the scale, origin included.
    assert!(
        (x_bounds.x - window.x * 2).abs() <= 1 && (x_bounds.y - window.y * 2).abs() <= 1,
        "{window:?} {x_bounds:?}"
    );

    let mut input = input(&desktop);
    // The mistake this crate exists to prevent: logical numbers used as pixels. The type
    // system refuses it, so it has to be spelled out.
    let unconverted: Point<Physical> = Point::new(hello.center().x, hello.center().y);
    let mapped = click_point(hello, scale).unwrap();
    assert!(!scale.rect_to_physical(hello).contains(unconverted), "the test needs the two points apart");

    input.click_at(unconverted, MouseButton::Left, 1).unwrap();
    std::thread::sleep(QUIET);
    input.click_at(mapped, MouseButton::Left, 1).unwrap();
    app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT);
    std::thread::sleep(QUIET);
    // X delivers events in order, so the unconverted click was handled before the mapped
    // one: had it activated anything, the log would show it by now.
    let activations: Vec<_> = app.events().into_iter().filter(|e| e.kind == "button_activated").collect();
    assert_eq!(activations.len(), 1, "{activations:?}");
}
