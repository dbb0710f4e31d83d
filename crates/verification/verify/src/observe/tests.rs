//! The relevance rules of observe.rs on small trees: which changes are the effect of an input.

use deft_a11y::{TreeBuilder, element};
use deft_types::{Logical, Rect};

use super::*;

struct Form {
    name: &'static str,
    email: &'static str,
    loading: bool,
    submit_id: &'static str,
    status: &'static str,
    /// A second "Submit" button beside the first, with this id (a page re-creating it).
    twin: Option<&'static str>,
    /// The field that holds the keyboard focus.
    focused: Option<&'static str>,
}

const FORM: Form =
    Form { name: "", email: "", loading: false, submit_id: "submit", status: "Ready", twin: None, focused: None };

fn reading(f: &Form) -> Reading {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let w = b.child(app, element("w", "frame", "Form"));
    let field = |id: &str, name: &str, text: &str| {
        let mut e = element(id, "text", name);
        e.states.insert(State::Editable);
        e.text = Some(text.into());
        if f.focused == Some(id) {
            e.states.insert(State::Focused);
        }
        e
    };
    b.child(w, field("name", "Name", f.name));
    b.child(w, field("email", "Email", f.email));
    let mut submit = element(f.submit_id, "push_button", "Submit");
    submit.bounds = Some(Rect::<Logical>::new(10, if f.submit_id == "submit" { 10 } else { 70 }, 80, 30));
    b.child(w, submit);
    if let Some(twin) = f.twin {
        let mut fresh = element(twin, "push_button", "Submit");
        fresh.bounds = Some(Rect::<Logical>::new(10, 10, 80, 30));
        b.child(w, fresh);
    }
    b.child(w, element("status", "label", f.status));
    let panel = b.child(w, element("panel", "filler", "Content"));
    let mut spinner = element("spin", "animation", "Loading");
    if !f.loading {
        spinner.states.remove(&State::Showing);
    }
    b.child(panel, spinner);
    b.child(panel, element("msg", "label", if f.loading { "Loading..." } else { "Content ready" }));
    Reading::new(b.build())
}

fn id(s: &str) -> ElementId {
    ElementId(s.into())
}

/// What `observe` sees of the input aimed at `target`, read by id before and after, under
/// the rules after an input.
fn see(pre: &Reading, post: &Reading, target: &str, goal: &Goal, toggle: ToggleMode) -> Seen {
    observe(pre, post, Some(&id(target)), None, goal, toggle, &RelevanceConfig::after_input(), false)
}

#[test]
fn typed_text_in_the_wrong_field_is_named_and_not_verified() {
    let pre = reading(&FORM);
    // The focus moved to Email while typing: the rest of the keys went there.
    let post = reading(&Form { name: "hel", email: "lo world", focused: Some("email"), ..FORM });
    let goal = Goal::Typed { typed: "hello world".into(), before: None };
    let seen = see(&pre, &post, "name", &goal, ToggleMode::None);
    assert_eq!(seen.verified, None);
    assert!(seen.feedback, "text landed in the target: the keys were received");
    let note = seen.note.unwrap();
    assert!(note.contains("text \"Email\" got \"lo world\"") && note.contains("shows \"hel\""), "{note}");

    let done = reading(&Form { name: "hello world", ..FORM });
    let seen = see(&pre, &done, "name", &goal, ToggleMode::None);
    assert_eq!(seen.verified.as_deref(), Some("text \"Name\" now shows \"hello world\""));
}

#[test]
fn typed_text_the_app_shows_its_own_way_went_in_and_is_not_written_again() {
    // gnome-calculator shows "*" as "×": the target's own text changed, not to the text
    // typed, and no key went elsewhere.
    let pre = reading(&FORM);
    let post = reading(&Form { name: "3×3", ..FORM });
    let goal = Goal::Typed { typed: "3*3".into(), before: None };
    let seen = see(&pre, &post, "name", &goal, ToggleMode::None);
    assert_eq!(seen.verified, None);
    assert!(seen.feedback, "{seen:?}");
    let done = seen.done_as_asked.expect("what went in, for the engine to stop the chain");
    assert!(done.contains("now shows \"3×3\", not its text with \"3*3\" inserted"), "{done}");
    // Keys that went elsewhere too are strays, not this (the chain may go on).
    let strayed = reading(&Form { name: "3", email: "*3", focused: Some("email"), ..FORM });
    let seen = see(&pre, &strayed, "name", &goal, ToggleMode::None);
    assert_eq!(seen.done_as_asked, None, "{seen:?}");
}

#[test]
fn loading_that_began_before_the_input_is_no_effect() {
    let pre = reading(&Form { loading: true, ..FORM });
    let post = reading(&FORM);
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None, "{seen:?}");
    assert!(seen.note.unwrap().contains("filler \"Content\""));
    let still = see(&pre, &pre, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(still.loading, "the engine hears it is still loading");
    let both = reading(&Form { status: "Order 1 submitted", ..FORM });
    let seen = see(&pre, &both, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.unwrap().contains("Order 1 submitted"));
}

#[test]
fn a_recreated_target_is_no_effect() {
    let pre = reading(&FORM);
    let post = reading(&Form { submit_id: "submit2", ..FORM });
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None, "{seen:?}");
    assert!(seen.note.unwrap().starts_with("the target push_button \"Submit\" was re-created and moved"));
}

#[test]
fn a_target_rebuilt_where_it_stood_is_receipt_and_one_rebuilt_elsewhere_is_not() {
    // A page reloading to itself: the same button, a new object, at the same place. The
    // input reached it (whichever of the two), so a second one could double its effect.
    let pre = reading(&FORM);
    let mut tree = pre.tree.clone();
    let i = tree.find_id(&id("submit")).unwrap();
    tree.nodes[i].element.id = id("submit_reloaded");
    let in_place = Reading::new(tree);
    let seen = see(&pre, &in_place, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None, "no effect shows: {seen:?}");
    assert!(seen.rebuilt_in_place.as_ref().is_some_and(|w| w.contains("rebuilt where it was")), "{seen:?}");
    // Re-created 60 px lower (a stale element): the input at its old place found nothing.
    let moved = reading(&Form { submit_id: "submit2", ..FORM });
    let seen = see(&pre, &moved, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.rebuilt_in_place, None, "{seen:?}");
    // Still there (not re-created): nothing to say.
    let seen = see(&pre, &reading(&FORM), "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.rebuilt_in_place, None, "{seen:?}");
}

#[test]
fn an_equal_of_the_target_appearing_beside_it_is_held_like_things_gone() {
    // Chromium re-creating the button on the press, read before the old one left the
    // tree: held (confirmed like things gone), then paired as re-created once it has left.
    let pre = reading(&FORM);
    let both = reading(&Form { twin: Some("submit2"), ..FORM });
    let seen = see(&pre, &both, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && seen.gone_only && seen.twin_beside, "held for confirmation: {seen:?}");
    let left = reading(&Form { submit_id: "submit2", ..FORM });
    let seen = see(&pre, &left, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None, "{seen:?}");
    // Another button appearing is an effect at once.
    let other = reading(&Form { twin: Some("submit2"), ..FORM });
    let seen = see(&pre, &other, "status", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && !seen.gone_only && !seen.twin_beside, "{seen:?}");
}

#[test]
fn focus_moving_is_feedback_not_an_effect() {
    let pre = reading(&FORM);
    let mut post = reading(&FORM);
    let mut tree = post.tree.clone();
    let i = tree.find_id(&id("submit")).unwrap();
    tree.nodes[i].element.states.insert(State::Focused);
    post = Reading::new(tree);
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None);
    assert!(seen.feedback);
    assert!(!seen.feedback_unknown);
}

#[test]
fn a_toggle_whose_state_did_not_change_is_verified_only_by_what_the_app_says() {
    // The target a toggle button; `focused` when it took the focus at the press.
    let as_toggle_button = |r: Reading, focused: bool| {
        let mut tree = r.tree.clone();
        let i = tree.find_id(&id("submit")).unwrap();
        tree.nodes[i].element.role = deft_types::Role::new("toggle_button");
        if focused {
            tree.nodes[i].element.states.insert(State::Focused);
        }
        Reading::new(tree)
    };
    let pre = as_toggle_button(reading(&FORM), false);
    // The status line says something else, the button took the press (its focus) and reads
    // the same: it springs back (a calculator's key); its effect, held as any change of what
    // elements say is, never pressed again.
    let post = as_toggle_button(reading(&Form { status: "Something else", ..FORM }), true);
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::State);
    assert_eq!(seen.toggle, Toggle::Unchanged);
    assert!(seen.verified.as_deref().is_some_and(|v| v.contains("springs back")), "{seen:?}");
    assert!(!seen.said_only.is_empty(), "held as what elements say: {seen:?}");
    // The button showed nothing of the press: the text elsewhere may be the app's own.
    let unfelt = as_toggle_button(reading(&Form { status: "Something else", ..FORM }), false);
    let seen = see(&pre, &unfelt, "submit", &Goal::AnyChange, ToggleMode::State);
    assert_eq!(seen.verified, None, "{seen:?}");
    // A check box (any toggle but a toggle button) keeps its state: never verified so.
    let (pre, post) = (reading(&FORM), reading(&Form { status: "Something else", focused: Some("submit"), ..FORM }));
    assert_eq!(see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::State).verified, None);
    // Something changed that says nothing (a state elsewhere): no sign the press landed.
    let mut tree = pre.tree.clone();
    let i = tree.find_id(&id("status")).unwrap();
    tree.nodes[i].element.states.remove(&State::Enabled);
    let moved = Reading::new(tree);
    let seen = see(&pre, &moved, "submit", &Goal::AnyChange, ToggleMode::State);
    assert_eq!(seen.verified, None, "{seen:?}");
    assert!(seen.note.as_deref().is_some_and(|n| n.contains("its own state did not change")), "{seen:?}");
    // The status change for a non-toggle is its effect.
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some(), "{seen:?}");
}

/// A window holding `content` (a section with the target in it) or not, and a dialog
/// over the target's place when `dialog`.
fn page(target_role: &str, content: bool, dialog: bool) -> Reading {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "browser"));
    let w = b.child(app, element("w", "frame", "Page"));
    if content {
        let section = b.child(w, element("section", "section", ""));
        let mut target = element("submit", target_role, "Submit order");
        target.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
        b.child(section, target);
    }
    if dialog {
        let mut d = element("dlg", "dialog", "New Event!");
        d.bounds = Some(Rect::<Logical>::new(0, 0, 300, 200));
        let d = b.child(w, d);
        b.child(d, element("msg", "label", "Something happened"));
    }
    Reading::new(b.build())
}

#[test]
fn a_dialog_over_the_target_that_hid_the_page_took_the_input() {
    // A web page's modal dialog drops the rest of the page, target included, from the tree:
    // the target going is no sign that it took the input (Chromium, Firefox).
    let (pre, post) = (page("push_button", true, false), page("push_button", false, true));
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None, "{seen:?}");
    assert_eq!(seen.blocking.map(|b| b.name), Some("New Event!".to_string()));
}

#[test]
fn a_menu_item_gone_under_its_dialog_opened_it() {
    // A menu item closes its menu when chosen, then its dialog opens where the menu was.
    let (pre, post) = (page("menu_item", true, false), page("menu_item", false, true));
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && seen.blocking.is_none(), "{seen:?}");
}

#[test]
fn an_option_off_screen_losing_its_actions_is_part_of_the_page_emptied() {
    // Firefox under load: the closed select's option "Red" (never on screen) loses its
    // actions with the rest of the page; that must not make the emptying count at once
    // (a click the modal swallowed was taken as verified).
    let tree = |content_shown: bool| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "browser"));
        let w = b.child(app, element("w", "frame", "Page"));
        let section = b.child(w, element("section", "section", ""));
        let mut target = element("submit", "push_button", "Submit order");
        let mut option = element("red", "menu_item", "Red");
        option.bounds = None;
        option.states.remove(&State::Showing);
        if content_shown {
            target.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
            target.actions = vec!["click".into()];
            option.actions = vec!["click".into()];
        }
        b.child(section, target);
        b.child(section, option);
        Reading::new(b.build())
    };
    let seen = see(&tree(true), &tree(false), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && seen.gone_only && seen.emptied_in_place, "held for confirmation: {seen:?}");
}

#[test]
fn a_page_emptied_in_place_is_confirmed_like_things_gone() {
    // Firefox, a modal <dialog> opening: the page's elements stay in the tree but lose their
    // bounds, text and actions a read or two before the dialog is exposed. Like things gone,
    // that is held for confirmation, so the dialog's arrival can still say it took the input.
    let pre = page("push_button", true, false);
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "browser"));
    let w = b.child(app, element("w", "frame", "Page"));
    let section = b.child(w, element("section", "section", ""));
    let mut emptied = element("submit", "push_button", "Submit order");
    emptied.bounds = None;
    emptied.actions.clear();
    b.child(section, emptied);
    let post = Reading::new(b.build());
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && seen.gone_only && seen.emptied_in_place, "held for confirmation: {seen:?}");
    // A real change beside it is not held.
    let mut renamed = element("submit", "push_button", "Submitted");
    renamed.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "browser"));
    let w = b.child(app, element("w", "frame", "Page"));
    let section = b.child(w, element("section", "section", ""));
    b.child(section, renamed);
    let seen = see(&pre, &Reading::new(b.build()), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && !seen.gone_only, "{seen:?}");
}

#[test]
fn a_page_laid_out_after_the_read_before_is_not_the_effect() {
    // Firefox: the read before the click caught the page not laid out (the target itself
    // without bounds or actions, though the click was aimed at its bounds); the read after
    // shows it laid out again, nothing else changed. A dropped click looked "verified" so.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "browser"));
    let w = b.child(app, element("w", "frame", "Page"));
    let section = b.child(w, element("section", "section", ""));
    let mut blank = element("submit", "push_button", "Submit order");
    blank.bounds = None;
    blank.actions.clear();
    b.child(section, blank);
    let pre = Reading::new(b.build());
    let post = page("push_button", true, false);
    let seen = see(&pre, &post, "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_none(), "{seen:?}");
    assert!(seen.note.as_deref().is_some_and(|n| n.contains("not laid out")), "{seen:?}");
    // A real change that came with it still counts.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "browser"));
    let w = b.child(app, element("w", "frame", "Page"));
    let section = b.child(w, element("section", "section", ""));
    let mut target = element("submit", "push_button", "Submit order");
    target.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
    b.child(section, target);
    b.child(w, element("status", "label", "Order 1 submitted"));
    let seen = see(&pre, &Reading::new(b.build()), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.as_deref().is_some_and(|v| v.contains("Order 1 submitted")), "{seen:?}");
    // The target on screen before: an element shown since is the effect (a panel revealed).
    let with_details = |shown: bool| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "browser"));
        let w = b.child(app, element("w", "frame", "Page"));
        let mut target = element("submit", "push_button", "Submit order");
        target.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
        b.child(w, target);
        let mut details = element("details", "label", "Details");
        details.bounds = shown.then(|| Rect::<Logical>::new(20, 60, 100, 20));
        if !shown {
            details.states.remove(&State::Showing);
        }
        b.child(w, details);
        Reading::new(b.build())
    };
    let revealed = see(&with_details(false), &with_details(true), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(revealed.verified.is_some(), "a panel revealed by the click is its effect: {revealed:?}");
}

/// A sheet whose cell C3 gets an editor drawn over it when keys come (LibreOffice Calc): the
/// cell shows nothing until the editor commits, and `text` is what the editor shows.
fn sheet(text: Option<&str>, over: Rect<Logical>, focused: bool) -> Reading {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "soffice"));
    let w = b.child(app, element("w", "frame", "Untitled 1"));
    let table = b.child(w, element("sheet", "table", "Sheet1"));
    let mut cell = element("c3", "table_cell", "C3");
    cell.bounds = Some(Rect::new(205, 191, 82, 17));
    b.child(table, cell);
    if let Some(text) = text {
        let mut editor = element("editor", "paragraph", "");
        editor.states.insert(State::Editable);
        if focused {
            editor.states.insert(State::Focused);
        }
        editor.text = Some(text.into());
        editor.bounds = Some(over);
        b.child(w, editor);
    }
    Reading::new(b.build())
}

#[test]
fn keys_in_an_editor_drawn_over_the_target_verify_the_typing() {
    let over_c3 = Rect::new(206, 191, 33, 16);
    let goal = Goal::Typed { typed: "hello".into(), before: None };
    let cfg = RelevanceConfig::after_input();
    let pre = sheet(None, over_c3, true);
    let post = sheet(Some("hello"), over_c3, true);
    let seen = see(&pre, &post, "c3", &goal, ToggleMode::None);
    let verified = seen.verified.expect("verified");
    assert!(verified.contains("drawn over table_cell \"C3\" now shows \"hello\""), "{verified}");
    // Calc re-creates its cells as the keys begin: the target as resolved stands in for
    // the read before, which no longer holds it.
    let cell = pre.element(&id("c3")).cloned().expect("C3");
    let seen = observe(&post, &post, Some(&id("gone")), Some(&cell), &goal, ToggleMode::None, &cfg, false);
    assert!(seen.verified.is_none(), "the editor showed the text before: {seen:?}");
    let seen = observe(&pre, &post, Some(&id("gone")), Some(&cell), &goal, ToggleMode::None, &cfg, false);
    assert!(seen.verified.is_some(), "{seen:?}");
    // Elsewhere (the formula bar), not focused, or without the typed text: not the target's.
    let elsewhere = Rect::new(267, 133, 60, 16);
    for post in
        [sheet(Some("hello"), elsewhere, true), sheet(Some("hello"), over_c3, false), sheet(Some("hel"), over_c3, true)]
    {
        let seen = see(&pre, &post, "c3", &goal, ToggleMode::None);
        assert_eq!(seen.verified, None, "{seen:?}");
    }
}

#[test]
fn only_a_field_that_holds_the_focus_took_stray_keys() {
    // The formula bar (elsewhere, not focused) shows what the cell editor holds: it did
    // not take the keys, and setting it back cleared the cell being typed into. A field
    // that holds the focus did take them (the focus moved while typing).
    let goal = Goal::Typed { typed: "hello".into(), before: None };
    let pre = sheet(Some(""), Rect::new(267, 133, 60, 16), false);
    let mirror = sheet(Some("hello"), Rect::new(267, 133, 60, 16), false);
    assert!(see(&pre, &mirror, "c3", &goal, ToggleMode::None).strays.is_empty());
    let focused = sheet(Some("hello"), Rect::new(267, 133, 60, 16), true);
    let strays = see(&pre, &focused, "c3", &goal, ToggleMode::None).strays;
    assert_eq!(strays.len(), 1, "{strays:?}");
}

#[test]
fn text_blanked_where_it_stands_is_held_like_things_gone() {
    // Firefox under load, a modal <dialog> opening over the target: "Orders: 0" blanked in
    // place and "Ready" blanked and off screen, a read before the dialog is exposed. Taken
    // at once, the click the dialog swallowed passed as its effect.
    let tree = |orders: &str, ready: Option<&str>| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "browser"));
        let w = b.child(app, element("w", "frame", "Page"));
        let section = b.child(w, element("section", "section", ""));
        let mut target = element("submit", "push_button", "Submit order");
        target.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
        b.child(section, target);
        let mut count = element("orders", "section", "");
        count.text = Some(orders.into());
        count.bounds = Some(Rect::<Logical>::new(20, 60, 100, 20));
        b.child(section, count);
        let mut status = element("ready", "section", "");
        status.text = Some(ready.unwrap_or("").into());
        status.bounds = ready.map(|_| Rect::<Logical>::new(20, 90, 100, 20));
        b.child(section, status);
        Reading::new(b.build())
    };
    let pre = tree("Orders: 0", Some("Ready"));
    let seen = see(&pre, &tree("", None), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && seen.gone_only && seen.emptied_in_place, "held for confirmation: {seen:?}");
    // A field cleared where it stands (a Clear button) is held only as briefly as things gone.
    let seen = see(&pre, &tree("", Some("Ready")), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && seen.gone_only && !seen.emptied_in_place, "{seen:?}");
    // Text that changes to other text is an effect at once.
    let seen = see(&pre, &tree("Orders: 1", Some("Ready")), "submit", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some() && !seen.gone_only, "{seen:?}");
}

#[test]
fn an_element_off_screen_that_only_gets_its_actions_back_is_no_effect() {
    // Firefox under load, after a modal dialog closed: a closed select's option (never on
    // screen) got its click back during the next click's watch, and a dropped click passed
    // as verified by it.
    let tree = |actions: bool| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "browser"));
        let w = b.child(app, element("w", "frame", "Page"));
        let mut target = element("submit", "push_button", "Submit order");
        target.bounds = Some(Rect::<Logical>::new(20, 20, 100, 30));
        b.child(w, target);
        let mut option = element("red", "menu_item", "Red");
        option.bounds = None;
        option.states.remove(&State::Showing);
        if actions {
            option.actions = vec!["click".into()];
        }
        b.child(w, option);
        Reading::new(b.build())
    };
    let seen = see(&tree(false), &tree(true), "submit", &Goal::AnyChange, ToggleMode::None);
    assert_eq!(seen.verified, None, "{seen:?}");
}

#[test]
fn a_text_leaf_replaced_under_an_unchanged_element_is_what_that_element_says() {
    // Chromium replaces a section's text node when the page sets its text; a read may catch
    // the node replaced before the section's own text. A counter ticking there must be
    // watched like any text that may move by itself, not taken at once for the effect.
    let page = |leaves: &[(&str, &str)]| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "demo"));
        let w = b.child(app, element("w", "frame", "Page"));
        let mut hello = element("hello", "push_button", "Hello");
        hello.bounds = Some(Rect::<Logical>::new(10, 10, 80, 30));
        b.child(w, hello);
        let mut sec = element("sec", "section", "");
        sec.text = Some("Frames: 1".into());
        let sec = b.child(w, sec);
        for (id, text) in leaves {
            b.child(sec, element(id, "static", text));
        }
        Reading::new(b.build())
    };
    let pre = page(&[("t1", "Frames: 1")]);
    let seen = see(&pre, &page(&[("t3", "Frames: 3")]), "hello", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.verified.is_some(), "{seen:?}");
    assert_eq!(seen.said_only, vec![id("sec")], "{seen:?}");
    // A leaf that only came (a new message) is no text replaced.
    let came = page(&[("t1", "Frames: 1"), ("t9", "Order placed")]);
    let seen = see(&pre, &came, "hello", &Goal::AnyChange, ToggleMode::None);
    assert!(seen.said_only.is_empty(), "{seen:?}");
}

/// A window with a menu title and a bar far below it, the bar at `bar`.
fn window_with_bar(bar: (i32, i32, u32, u32)) -> Reading {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "editor"));
    let w = b.child(app, element("w", "frame", "Editor"));
    let mut edit = element("edit", "menu", "Edit");
    edit.bounds = Some(Rect::<Logical>::new(330, 140, 32, 20));
    b.child(w, edit);
    let mut label = element("bar", "label", "Root Instance");
    label.bounds = Some(Rect::<Logical>::new(bar.0, bar.1, bar.2, bar.3));
    b.child(w, label);
    Reading::new(b.build())
}

#[test]
fn a_press_is_not_verified_by_elements_elsewhere_that_only_moved() {
    // FeatherPad's "Edit" pressed on its title bar (placed 14 px high): the window's bottom
    // bar resized, the menu never opened.
    let pre = window_with_bar((294, 549, 690, 17));
    let post = window_with_bar((294, 558, 690, 8));
    let cfg = RelevanceConfig::after_input();
    let seen = observe(&pre, &post, Some(&id("edit")), None, &Goal::AnyChange, ToggleMode::None, &cfg, true);
    assert_eq!(seen.verified, None, "{seen:?}");
    assert!(seen.note.as_deref().is_some_and(|n| n.contains("Root Instance") && n.contains("away from the target")));
    // Keys (no press) may well move things: a zoom, a pane toggled.
    let seen = observe(&pre, &post, Some(&id("edit")), None, &Goal::AnyChange, ToggleMode::None, &cfg, false);
    assert!(seen.verified.is_some(), "{seen:?}");
}

#[test]
fn typed_text_that_landed_under_an_expectation_not_met_is_done_as_asked() {
    // A field that held "Ada" given "Ada" again, expected to hold "Ada": the keys landed
    // (a fallback would only type it once more); the expectation is what is wrong.
    let pre = reading(&Form { name: "Ada", loading: true, ..FORM });
    let post = reading(&Form { name: "AdaAda", loading: true, ..FORM });
    let c = deft_a11y::selector::parse_condition("value:name=Name=\"Ada\"").unwrap();
    let own = Goal::Typed { typed: "Ada".into(), before: Some("Ada".into()) };
    let goal = Goal::Expect(Box::new(c.clone()), Some(Box::new(own)));
    let seen = see(&pre, &post, "name", &goal, ToggleMode::None);
    assert_eq!(seen.verified, None, "{seen:?}");
    assert!(seen.feedback);
    let done = seen.done_as_asked.unwrap();
    assert!(done.contains("\"AdaAda\"") && done.contains("inserted into what it held"), "{done}");
    // Nothing typed in: no claim.
    let seen = see(&pre, &pre, "name", &goal, ToggleMode::None);
    assert_eq!(seen.done_as_asked, None);
    // Half of it: no claim either (a fallback may complete it).
    let half = reading(&Form { name: "AdaA", loading: true, ..FORM });
    assert_eq!(see(&pre, &half, "name", &goal, ToggleMode::None).done_as_asked, None);
    // A value set that was there before says nothing of the input.
    let set = Goal::Expect(Box::new(c), Some(Box::new(Goal::Set { value: "AdaAda".into() })));
    assert_eq!(see(&post, &post, "name", &set, ToggleMode::None).done_as_asked, None);
    assert!(see(&pre, &post, "name", &set, ToggleMode::None).done_as_asked.is_some());
}

#[test]
fn a_secret_typed_in_under_an_expectation_not_met_is_said_by_its_length_only() {
    let field = |text: &str| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "demo"));
        let w = b.child(app, element("w", "frame", "Sign in"));
        let mut e = element("pw", "password_text", "Password");
        e.text = Some(text.into());
        b.child(w, e);
        Reading::new(b.build())
    };
    let (pre, post) = (field("•••"), field("•••••••••"));
    let c = deft_a11y::selector::parse_condition("title:\"Welcome\"").unwrap();
    let own = Goal::Typed { typed: "hunter".into(), before: Some("•••".into()) };
    let seen = see(&pre, &post, "pw", &Goal::Expect(Box::new(c), Some(Box::new(own))), ToggleMode::None);
    let done = seen.done_as_asked.unwrap();
    assert!(done.contains("6 characters inserted") && !done.contains("hunter"), "{done}");
}
