//! Toggles: a toggle's state says whether a click took, unless the state it reports does
//! not follow what it draws (a model button in a popover).

use deft_a11y::{Tree, TreeBuilder, element};
use deft_types::{Rect, State};

use super::{click, fixture, placed, screen};

/// A window with a check box "Night Mode" at (10, 50, 80, 30), in a popover (a panel that
/// says modal) when `popover`, else in the window itself.
fn menu(popover: bool) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "viewer"));
    let mut main = placed("main", "frame", "Viewer", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let holder = if popover {
        let mut pop = placed("pop", "panel", "", (0, 40, 200, 150), &[]);
        pop.states.insert(State::Modal);
        b.child(main, pop)
    } else {
        main
    };
    b.child(holder, placed("night", "check_box", "Night Mode", (10, 50, 80, 30), &["click"]));
    b.build()
}

#[tokio::test]
async fn a_toggle_in_a_popover_that_draws_its_change_but_reports_none_is_received_once() {
    // evince's Night Mode (a model button in a GTK 3 popover): its check mark is drawn, its
    // reported state never follows. Read as "unchanged", it was toggled three times.
    let f = fixture(menu(true), |c| c);
    f.ui.on_click_paint.lock().unwrap().push((Rect::new(10, 50, 80, 30), screen(Some((14, 54, 20, 20)))));
    let outcome = f.exec.perform(&click("Night Mode")).await;
    assert!(outcome.ok && outcome.verified == Some(false), "received, not verified: {outcome:#?}");
    assert_eq!(f.clicks().len(), 1, "{outcome:#?}");
    assert!(f.actions().is_empty(), "no fallback: {outcome:#?}");
    assert!(outcome.observed.contains("state it reports"), "{outcome:#?}");
}

#[tokio::test]
async fn a_toggle_in_a_page_whose_look_changes_but_state_does_not_goes_on_down_the_chain() {
    // Firefox draws a check box pressed whether or not its page took the press: that look
    // passed for receipt, and a dropped press was "received" (silent). In a page the state
    // says it: unchanged, the chain goes on.
    let f = fixture(menu(false), |c| c);
    f.ui.on_click_paint.lock().unwrap().push((Rect::new(10, 50, 80, 30), screen(Some((14, 54, 20, 20)))));
    let outcome = f.exec.perform(&click("Night Mode")).await;
    assert!(!f.actions().is_empty() || f.clicks().len() > 1, "the chain went on: {outcome:#?}");
    assert!(!outcome.observed.contains("state it reports"), "{outcome:#?}");
}

/// A tree of application `app` with its active window `title` at (0, 0, 400, 300), and that
/// window, to add to.
fn active_window(app: &str, title: &str) -> (TreeBuilder, deft_a11y::BuildId) {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", app));
    let mut main = placed("main", "frame", title, (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    (b, main)
}

/// A settings page: a switch "Use system defaults" at (10, 50, 80, 30), on when `on`, and a
/// layout list it greys out while on (enabled when `list_enabled`).
fn defaults_page(on: bool, list_enabled: bool) -> Tree {
    let (mut b, main) = active_window("settings", "Keyboard");
    let mut switch = placed("defaults", "toggle_button", "Use system defaults", (10, 50, 80, 30), &["click"]);
    if on {
        switch.states.insert(State::Checked);
    }
    b.child(main, switch);
    let mut list = placed("layouts", "table", "Layout", (10, 100, 300, 150), &[]);
    if !list_enabled {
        list.states.remove(&State::Enabled);
    }
    b.child(main, list);
    b.build()
}

#[tokio::test]
async fn a_switch_whose_state_lags_behind_what_it_switches_is_pressed_once() {
    // xfce4-keyboard-settings: the click turned "Use system defaults" off (the layout list
    // came on) while the switch read on for 0.6 s; the accessibility press sent after it
    // turned it back on. What it switches moving says the input landed.
    let f = fixture(defaults_page(true, false), |c| c);
    f.on_click(super::CHECK, defaults_page(true, true));
    let outcome = f.exec.perform(&click("Use system defaults")).await;
    assert_eq!(f.clicks().len(), 1, "one input: {outcome:#?}");
    assert!(f.actions().is_empty(), "no accessibility press after it: {outcome:#?}");
    assert!(outcome.ok && outcome.verified == Some(false), "received, not claimed: {outcome:#?}");
    assert!(outcome.observed.contains("what it switches moved"), "{outcome:#?}");
}

#[tokio::test]
async fn a_switch_whose_state_catches_up_with_what_it_switches_is_verified_by_it() {
    let f = fixture(defaults_page(true, false), |c| c);
    f.on_click(super::CHECK, defaults_page(true, true));
    let (fake, rec) = (f.ui.clone(), f.rec.clone());
    let late = tokio::spawn(async move {
        while !rec.lock().unwrap().calls.iter().any(|c| matches!(c, super::Recorded::Button(..))) {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        // Later than the check's first look, within its window (250 ms here).
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        fake.fake.set_tree(defaults_page(false, true));
    });
    let outcome = f.exec.perform(&click("Use system defaults")).await;
    late.await.expect("late state");
    assert_eq!(f.clicks().len(), 1, "one input: {outcome:#?}");
    assert!(f.actions().is_empty(), "{outcome:#?}");
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
}

#[tokio::test]
async fn a_tab_whose_page_is_shown_already_gets_no_click() {
    // gnumeric's sheet tab, selected: three inputs over 7.4 s, then "no effect".
    let (mut b, main) = active_window("sheets", "Book1");
    let mut tab = placed("sheet1", "page_tab", "Sheet1", (10, 50, 80, 30), &["click"]);
    tab.states.insert(State::Selected);
    b.child(main, tab);
    let f = fixture(b.build(), |c| c);
    let outcome = f.exec.perform(&click("Sheet1")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert!(f.clicks().is_empty() && f.actions().is_empty(), "nothing sent: {outcome:#?}");
    assert!(outcome.observed.contains("selected already"), "{outcome:#?}");
}
