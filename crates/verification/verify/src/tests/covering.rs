//! What covers a target: never one of its own containers (a toolkit's hit test that stops
//! at a container answers with what holds the target), unless a popup lies between them
//! (then the point is outside the popup the target is in).

use deft_a11y::{Tree, TreeBuilder, element};
use deft_types::{ElementId, State};

use super::{click, fixture, placed};

/// A window whose panel "pane" holds a button "Go" at (10, 10, 80, 30) and a status line;
/// with `popover`, "Go" sits in a popover inside the panel instead (GTK 4's role for one
/// is `dialog`).
fn window(status: &str, popover: bool) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let mut main = placed("main", "frame", "Main", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let pane = b.child(main, placed("pane", "panel", "", (0, 0, 400, 300), &[]));
    let holder = match popover {
        true => b.child(pane, placed("pop", "dialog", "", (5, 5, 200, 100), &[])),
        false => pane,
    };
    b.child(holder, placed("go", "push_button", "Go", (10, 10, 80, 30), &["click"]));
    b.child(pane, placed("status", "label", status, (10, 200, 200, 30), &[]));
    b.build()
}

#[tokio::test]
async fn a_hit_test_that_stops_at_the_target_s_own_container_does_not_cover_it() {
    // Swing's root pane, GIMP's and LibreOffice's panels: refused as "covered" after the
    // whole actionability wait, with advice to dismiss what the user works in.
    let f = fixture(window("Ready", false), |c| c);
    *f.ui.hit_stops_at.lock().unwrap() = Some(ElementId("pane".into()));
    f.on_click((10, 10, 80, 30), window("Clicked Go", false));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(f.clicks().len(), 1);
}

#[tokio::test]
async fn a_container_outside_the_popup_the_target_is_in_still_covers_it() {
    // GTK 4 misplaces a popover's items: the point is outside the popover, where a click
    // would close it. The hit test answering with the panel beneath says so.
    let f = fixture(window("Ready", true), |c| c);
    *f.ui.hit_stops_at.lock().unwrap() = Some(ElementId("pane".into()));
    f.on_click((10, 10, 80, 30), window("Clicked Go", true));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert!(f.clicks().is_empty(), "never clicked where the popup is not: {outcome:#?}");
}

#[tokio::test]
async fn a_container_that_clips_the_target_away_from_the_point_still_covers_it() {
    // Qt's scroll areas: the target is scrolled out of the viewport, and the hit test at
    // its point answers with the window around the viewport. Clicking there hits nothing of
    // the target.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let mut main = placed("main", "frame", "Main", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let pane = b.child(main, placed("pane", "scroll_pane", "", (0, 0, 400, 100), &[]));
    b.child(pane, placed("go", "push_button", "Go", (10, 150, 80, 30), &["click"]));
    let f = fixture(b.build(), |c| c);
    *f.ui.hit_stops_at.lock().unwrap() = Some(ElementId("main".into()));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert!(f.clicks().iter().all(|p| p.y < 100), "never clicked where the pane clips it: {:?}", f.clicks());
}
