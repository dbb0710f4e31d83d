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

/// A list (0, 0, 400, 300) of ten rows, the first `placed` of them with a place (21 px
/// high), the rest with none at all, as GTK 3 gives rows scrolled out of a tree view.
fn rows(placed: usize) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "zenity"));
    let mut main = placed_el("main", "frame", "Select items from the list", (0, 0, 400, 300));
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let table = b.child(main, placed_el("table", "table", "", (0, 0, 400, 300)));
    for i in 0..10 {
        let mut row = element(&format!("row{i}"), "table_cell", &format!("item{i}"));
        row.actions = vec!["activate".into()];
        if i < placed {
            row.bounds = Some(deft_types::Rect::new(0, (i * 21) as i32, 400, 21));
        }
        b.child(table, row);
    }
    b.build()
}

fn placed_el(id: &str, role: &str, name: &str, r: (i32, i32, u32, u32)) -> deft_types::Element {
    placed(id, role, name, r, &[])
}

#[tokio::test]
async fn a_row_with_no_place_after_the_placed_ones_is_wheeled_down_toward() {
    // zenity's 40th row of 60: no extents at all, "showing", and accessibility cannot
    // scroll a GTK 3 cell into view. The rows before it have places: it lies below.
    wheeled_down_to_item8(None).await;
}

/// Clicks row "item8" of ten, the first four placed, accessibility refusing to scroll, the
/// hit test stopping at `stop` if given; checks the wheel turned down, then the click.
async fn wheeled_down_to_item8(stop: Option<&str>) {
    let f = fixture(rows(4), |c| c);
    f.ui.scroll_refused.store(true, std::sync::atomic::Ordering::Relaxed);
    *f.ui.hit_stops_at.lock().unwrap() = stop.map(|s| deft_types::ElementId(s.into()));
    *f.ui.on_wheel.lock().unwrap() = Some(rows(10));
    f.exec.perform(&super::click("item8")).await;
    let turns = wheel_turns(&f.rec.lock().unwrap());
    assert!(!turns.is_empty() && turns[0].1 > 0, "down, toward the row: {turns:?}");
    assert_eq!(f.clicks().first(), Some(&Point::new(200, 178)), "then clicked where it shows");
}

#[tokio::test]
async fn a_row_is_wheeled_toward_where_the_hit_test_stops_above_its_list() {
    // xfce4-keyboard-settings: GTK 3's notebook answers the hit test for its whole page, so
    // the point over the list was never known to be over it, and no wheel turned (10 s,
    // "no bounds on screen"). The read says what lies under the point: the list.
    wheeled_down_to_item8(Some("main")).await;
}

#[test]
fn the_way_to_a_row_with_no_place_comes_from_its_placed_siblings() {
    use crate::in_view::way_to as way_from_siblings;
    let snap = |t: Tree| crate::read::to_snapshot(&t);
    let id = |s: &str| deft_types::ElementId(s.into());
    assert_eq!(way_from_siblings(&snap(rows(4)), &id("row8")), Some(1));
    assert_eq!(way_from_siblings(&snap(rows(0)), &id("row8")), None, "nothing placed: no way known");
    assert_eq!(way_from_siblings(&snap(rows(10)), &id("row8")), None, "placed on both sides");
}

/// A window holding `outer` (role, bounds) holding `inner` (role, bounds) holding the target
/// "t" at `at`.
fn nested(outer: (&str, (i32, i32, u32, u32)), inner: (&str, (i32, i32, u32, u32)), at: (i32, i32, u32, u32)) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let main = b.child(app, placed("main", "frame", "Main", (0, 0, 1000, 1000), &[]));
    let outer = b.child(main, placed("outer", outer.0, "", outer.1, &[]));
    let inner = b.child(outer, placed("inner", inner.0, "", inner.1, &[]));
    b.child(inner, placed("t", "push_button", "T", at, &["click"]));
    b.build()
}

#[test]
fn what_a_container_leaves_out_of_its_bounds_is_out_of_view() {
    use crate::in_view::{InView, in_view};
    use deft_types::Rect;
    let view = |t: Tree, at: (i32, i32, u32, u32)| {
        let snap = crate::read::to_snapshot(&t);
        match in_view(&snap, &deft_types::ElementId("t".into()), Rect::new(at.0, at.1, at.2, at.3)) {
            InView::Out(c) => format!("out of {}", c.id.0),
            InView::Part(p) => format!("part {} {} {} {}", p.x, p.y, p.w, p.h),
            InView::Whole => "whole".into(),
        }
    };
    let pane = ("scroll_pane", (0, 0, 400, 300));
    let content = ("filler", (0, 0, 400, 2000));
    assert_eq!(view(nested(pane, content, (10, 900, 80, 30)), (10, 900, 80, 30)), "out of outer");
    assert_eq!(view(nested(pane, content, (10, 280, 80, 30)), (10, 280, 80, 30)), "part 10 280 80 20");
    assert_eq!(view(nested(pane, content, (10, 20, 80, 30)), (10, 20, 80, 30)), "whole");
    assert_eq!(view(nested(pane, content, (10, 290, 80, 30)), (10, 290, 80, 30)), "out of outer", "a sliver");
    // Qt: the scroll area and its viewport are `filler`s, as every panel.
    let qt = nested(("filler", (0, 0, 400, 300)), content, (10, 900, 80, 30));
    assert_eq!(view(qt, (10, 900, 80, 30)), "out of outer");
    // A web page's boxes let their content overflow, drawn where it is: only what scrolls clips.
    let page = nested(("document_web", (0, 0, 800, 600)), ("section", (0, 0, 800, 40)), (10, 100, 80, 30));
    assert_eq!(view(page, (10, 100, 80, 30)), "whole");
    // A tab's extents are its title, not the page it holds.
    let tab = nested(("page_tab", (0, 0, 80, 20)), ("filler", (0, 20, 400, 300)), (10, 100, 80, 30));
    assert_eq!(view(tab, (10, 100, 80, 30)), "whole");
}

#[test]
fn the_wheel_turns_back_by_half_as_much_once_it_went_past() {
    use crate::help::notches_after;
    assert_eq!(notches_after(0, 1), 5, "a first turn");
    assert_eq!(notches_after(5, 1), 5, "on the same way");
    assert_eq!(notches_after(5, -1), 2, "back, by half");
    assert_eq!(notches_after(-2, 1), 1);
    assert_eq!(notches_after(1, -1), 1, "never none");
}
