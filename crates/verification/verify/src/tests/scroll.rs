//! A target below the fold: scrolled into view through accessibility, or, where the
//! toolkit cannot, with the wheel over its scrolling container, never over a control a
//! wheel would change.

use deft_a11y::{Tree, TreeBuilder, element};
use deft_input::Recorded;
use deft_types::{Point, State};

use super::{fixture, placed};

/// A window with a scroll pane (0, 0, 400, 300) holding a slider near its right edge and a
/// "Far" button at `far`, shown or not.
fn pane(far: (i32, i32, u32, u32), shown: bool) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let mut main = placed("main", "frame", "Main", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let pane = b.child(main, placed("pane", "scroll_pane", "", (0, 0, 400, 300), &[]));
    b.child(pane, placed("volume", "slider", "Volume", (300, 140, 100, 20), &[]));
    let mut button = placed("far", "push_button", "Far", far, &["click"]);
    if !shown {
        button.states.remove(&State::Showing);
    }
    b.child(pane, button);
    b.build()
}

/// The points the wheel turned at, and which way.
fn wheel_turns(rec: &deft_input::RecordingInput) -> Vec<(Point<deft_types::Physical>, i32)> {
    let mut at = Point::new(0, 0);
    let mut turns = Vec::new();
    for call in &rec.calls {
        match call {
            Recorded::Move(p) => at = *p,
            Recorded::Scroll { dy, .. } => turns.push((at, *dy)),
            _ => {}
        }
    }
    turns
}

#[tokio::test]
async fn a_target_below_the_fold_is_wheeled_into_view_where_accessibility_cannot() {
    let f = fixture(pane((10, 900, 80, 30), false), |c| c);
    f.ui.scroll_refused.store(true, std::sync::atomic::Ordering::Relaxed);
    // One turn of the wheel brings it into view.
    *f.ui.on_wheel.lock().unwrap() = Some(pane((10, 200, 80, 30), true));
    f.on_click((10, 200, 80, 30), pane((10, 200, 80, 30), true));
    let outcome = f.exec.perform(&super::click("Far")).await;
    let turns = wheel_turns(&f.rec.lock().unwrap());
    assert_eq!(turns.len(), 1, "{turns:?}");
    let (at, dy) = turns[0];
    assert!(dy > 0, "down, toward the button: {turns:?}");
    // Not over the slider at the pane's right edge: at its centre.
    assert_eq!(at, Point::new(200, 150), "{turns:?}");
    assert_eq!(f.clicks(), [Point::new(50, 215)], "{outcome:#?}");
}

#[tokio::test]
async fn the_wheel_is_not_turned_where_accessibility_scrolled_or_the_way_is_unknown() {
    // Accessibility scrolls it (the fake answers yes but nothing moves): no wheel until
    // accessibility has had its turn, and none at all where no bounds say which way.
    let f = fixture(pane((10, 100, 80, 30), false), |c| c);
    f.exec.perform(&super::click("Far")).await;
    let rec = f.rec.lock().unwrap();
    assert!(wheel_turns(&rec).is_empty(), "a hidden target inside the view is not scrolled for: {:?}", rec.calls);
    assert!(f.actions().contains(&deft_a11y::Operation::ScrollIntoView));
}
