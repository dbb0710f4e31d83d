//! Listing applications and windows; snapshots of an app and of one window.

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_types::State;

use crate::support::{APP, WINDOW, named, rect, session};

#[test]
fn lists_the_app_and_its_window() {
    let s = session();
    let info = s.app_info();
    assert_eq!(info.name, APP);
    assert_eq!(info.pid, Some(s.app.pid()), "the pid comes from the bus");
    assert_eq!(info.problem, None);
    let titles: Vec<&str> = info.windows.iter().map(|w| w.title.as_str()).collect();
    assert_eq!(titles, [WINDOW]);
    let w = &info.windows[0];
    assert_eq!(w.role.as_str(), "frame");
    assert!(w.states.contains(&State::Showing));
    // Client area from the app's own ground truth; the frame's extents include it.
    let client = rect(s.app.ready().window);
    let bounds = w.bounds.expect("a showing window has bounds");
    assert!(bounds.intersection(&client) == Some(client), "window {bounds:?} does not contain client {client:?}");
}

#[test]
fn snapshot_finds_the_widgets_with_roles_states_and_bounds() {
    let s = session();
    let tree = s.tree();
    assert!(tree.problems.is_empty(), "{:?}", tree.problems);
    let ready = s.app.ready();
    for (role, name, widget) in [
        ("push_button", "Hello", "hello"),
        ("push_button", "Submit order", "submit"),
        ("push_button", "Save", "save"),
        ("check_box", "Subscribe", "subscribe"),
        ("text", "Name", "name"),
        ("password_text", "Password", "password"),
        ("text", "Email", "email"),
        ("combo_box", "Color", "color"),
        ("list_box", "Items", "items"),
    ] {
        let n = named(&tree, role, name);
        let e = &n.element;
        assert!(e.has(State::Enabled) && e.has(State::Showing), "{role} {name}: {:?}", e.states);
        assert_eq!(e.bounds, Some(rect(ready.widget(widget))), "{role} {name} bounds vs the app's own");
        assert_eq!((n.app.as_str(), n.window.as_deref()), (APP, Some(WINDOW)));
    }
    let submit = &named(&tree, "push_button", "Submit order").element;
    assert_eq!(submit.actions, ["click"]);
    let name = &named(&tree, "text", "Name").element;
    assert!(name.has(State::Editable) && name.has(State::SingleLine), "{:?}", name.states);
    assert_eq!(name.text.as_deref(), Some(""));
    assert_eq!(named(&tree, "combo_box", "Color").element.value.as_deref(), Some("Red"));
    assert_eq!(named(&tree, "label", "Orders: 0").element.text.as_deref(), Some("Orders: 0"));

    // The list's rows are not in GTK's cache (the list manages its descendants): read anyway.
    let items = named(&tree, "list_box", "Items");
    let rows: Vec<&str> = items.children.iter().map(|&i| tree.nodes[i].element.name.as_str()).collect();
    assert_eq!(rows, ["Item 1", "Item 2", "Item 3", "Item 4", "Item 5"]);
    let row3 = named(&tree, "list_item", "Item 3");
    assert_eq!(row3.element.bounds, Some(rect(ready.widget("item_3"))));
    assert_eq!(row3.path, [items.path.clone(), vec![2]].concat());

    // A hidden widget has no bounds (GTK reports it at i32::MIN).
    let spinner = named(&tree, "animation", "Loading");
    if !spinner.element.has(State::Showing) {
        assert_eq!(spinner.element.bounds, None);
    }
}

#[test]
fn one_window_snapshot_keeps_context_and_ids_are_stable() {
    let s = session();
    let whole = s.tree();
    let window = s.app_info().windows[0].id.clone();
    let part = s.block(s.a11y().snapshot(&Scope::Subtree(window.clone()), &SnapshotOptions::default())).unwrap();
    assert_eq!(part.nodes[0].element.id, window);
    assert_eq!(part.len(), whole.len() - 1, "everything but the application node");
    for n in &part.nodes {
        let same = &whole.nodes[whole.find_id(&n.element.id).expect("same ids across reads")];
        assert_eq!((&n.path, &n.window, &n.app), (&same.path, &same.window, &same.app));
        assert_eq!(n.element, same.element);
    }
    // A subtree deep inside keeps its path from the window.
    let row = named(&whole, "list_item", "Item 2");
    let sub = s.block(s.a11y().snapshot(&Scope::Subtree(row.element.id.clone()), &SnapshotOptions::default())).unwrap();
    assert_eq!((sub.nodes[0].path.clone(), sub.len()), (row.path.clone(), 2));
    assert_eq!(sub.nodes[1].element.name, "Item 2");

    // Relations, when asked: GTK links nothing here, but the call must work.
    let with = SnapshotOptions { relations: true, hidden_details: true, ..SnapshotOptions::default() };
    let full = s.block(s.a11y().snapshot(&Scope::Subtree(window), &with)).unwrap();
    assert_eq!(full.len(), part.len());
    // With hidden details, the closed combo menu's items have their actions.
    let red = named(&full, "menu_item", "Red");
    assert!(!red.element.has(State::Showing) && !red.element.actions.is_empty(), "{:?}", red.element);
}

#[test]
fn element_reads_one_afresh() {
    let s = session();
    let tree = s.tree();
    let hello = &named(&tree, "push_button", "Hello").element;
    let again = s.block(s.a11y().element(&hello.id)).unwrap();
    assert_eq!(&again, hello);
}

#[test]
fn the_toolkit_is_named_by_the_application() {
    let s = session();
    let tree = s.tree();
    let hello = &named(&tree, "push_button", "Hello").element;
    let toolkit = s.block(s.a11y().toolkit(&hello.id)).unwrap();
    let name = toolkit.expect("GTK names itself");
    assert!(name.to_lowercase().starts_with("gtk"), "{name:?}");
}
