//! A target that is not shown: said with what would show it.

use deft_a11y::{Tree, TreeBuilder, element};
use deft_types::State;

use super::{click, fixture, placed};

/// Preferences in tabs: "General" selected; "Show hints" on the page of "Interface", not
/// shown (GTK's notebooks hold a page's contents under its tab).
fn preferences() -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "prefs"));
    let mut main = placed("main", "frame", "Preferences", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let tabs = b.child(main, placed("tabs", "page_tab_list", "", (0, 0, 400, 300), &[]));
    let mut general = placed("general", "page_tab", "General", (10, 5, 60, 30), &[]);
    general.states.insert(State::Selected);
    let general = b.child(tabs, general);
    b.child(general, placed("stuff", "label", "General stuff", (10, 40, 200, 30), &[]));
    let interface = b.child(tabs, placed("interface", "page_tab", "Interface", (80, 5, 70, 30), &[]));
    let mut hints = element("hints", "check_box", "Show hints");
    hints.states.remove(&State::Showing);
    hints.actions = vec!["click".into()];
    b.child(interface, hints);
    b.build()
}

#[tokio::test]
async fn a_target_on_a_tab_page_not_shown_names_the_page_to_select() {
    // GIMP's Preferences: "not shown" after 10 s, and nothing said of the page it is on.
    let config = |c| crate::ExecutorConfig { timeout_ms: Some(300), ..c };
    let f = fixture(preferences(), config);
    let outcome = f.exec.perform(&click("Show hints")).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert!(f.clicks().is_empty(), "{outcome:#?}");
    assert!(outcome.observed.contains("select that page first (click page_tab \"Interface\")"), "{outcome:#?}");
}

#[tokio::test]
async fn an_entry_of_a_closed_menu_names_the_menu_to_open() {
    // Geany: "Show Line Numbers" while View is closed: "not shown" after 10 s, nothing more.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "editor"));
    let mut main = placed("main", "frame", "Editor", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let bar = b.child(main, placed("bar", "menu_bar", "", (0, 0, 400, 25), &[]));
    let view = b.child(bar, placed("view", "menu", "View", (60, 0, 50, 25), &["click"]));
    let mut entry = element("numbers", "check_menu_item", "Show Line Numbers");
    entry.states.remove(&State::Showing);
    entry.actions = vec!["click".into()];
    b.child(view, entry);
    let config = |c| crate::ExecutorConfig { timeout_ms: Some(300), ..c };
    let f = fixture(b.build(), config);
    let outcome = f.exec.perform(&click("Show Line Numbers")).await;
    assert!(!outcome.ok && f.clicks().is_empty(), "{outcome:#?}");
    assert!(outcome.observed.contains("open it first (click menu \"View\")"), "{outcome:#?}");
}

#[tokio::test]
async fn a_key_goes_to_the_focus_even_when_the_focused_element_says_it_is_not_shown() {
    // qmmp after a new playlist: the focus stays on a list item of a closed dock, which
    // says it is not shown. The key waited 10 s for it to show and was never sent.
    let mut tree = preferences();
    let hints = tree.find_id(&deft_types::ElementId("hints".into())).expect("the check box");
    tree.nodes[hints].element.states.insert(State::Focused);
    let config = |c| crate::ExecutorConfig { timeout_ms: Some(3000), ..c };
    let f = fixture(tree, config);
    let chord = deft_types::KeyChord { modifiers: Vec::new(), key: "j".into() };
    let key = deft_types::Action::Key { chord, target: deft_types::Target::Focused };
    let outcome = f.exec.perform(&key).await;
    let chords = f.rec.lock().unwrap().calls.iter().filter(|c| matches!(c, deft_input::Recorded::Chord(_))).count();
    assert_eq!(chords, 1, "the key went out once: {outcome:#?}");
    assert!(outcome.ok, "{outcome:#?}");
}
