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

/// The display server's windows: `(id, title)`, the keyboard focus on `focused`.
struct Focus {
    windows: Vec<(u64, &'static str)>,
    focused: u64,
}

impl deft_input::WindowLocator for Focus {
    fn windows(&self, _: &deft_input::WindowQuery) -> Result<Vec<deft_input::WindowGeometry>, deft_input::InputError> {
        let at = |&(id, title): &(u64, &str)| deft_input::WindowGeometry {
            id,
            pid: None,
            title: title.into(),
            bounds: deft_types::Rect::new(0, 0, 400, 300),
        };
        Ok(self.windows.iter().map(at).collect())
    }
    fn focused(&self) -> Result<Option<u64>, deft_input::InputError> {
        Ok(Some(self.focused))
    }
}

#[tokio::test]
async fn keys_for_an_app_whose_windows_say_none_is_active_go_to_the_one_with_the_focus() {
    // ghex (GTK 4) with its file chooser open: neither window says it is active, and
    // `key --app ghex Escape` was refused as ambiguous (exit 4). The display server tells
    // which has the keyboard focus.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "ghex"));
    let main = b.child(app, placed("main", "frame", "ghex", (0, 0, 400, 300), &[]));
    b.child(main, placed("doc", "panel", "", (0, 0, 400, 300), &[]));
    let chooser = b.child(app, placed("chooser", "window", "Select a file to open", (50, 50, 300, 200), &[]));
    let mut cancel = placed("cancel", "push_button", "Cancel", (60, 60, 60, 20), &["click"]);
    cancel.states.insert(State::Focused);
    b.child(chooser, cancel);
    let config = |c| crate::ExecutorConfig { timeout_ms: Some(1000), ..c };
    let focus = Focus { windows: vec![(1, "ghex"), (2, "Select a file to open")], focused: 2 };
    let f = super::fixture_with(b.build(), config, Some(Box::new(focus)));
    let chord = deft_types::KeyChord { modifiers: Vec::new(), key: "Escape".into() };
    let sel = deft_a11y::selector::parse("app=ghex").expect("a selector");
    let key = deft_types::Action::Key { chord, target: deft_types::Target::Selector(sel) };
    let outcome = f.exec.perform(&key).await;
    let chords = f.rec.lock().unwrap().calls.iter().filter(|c| matches!(c, deft_input::Recorded::Chord(_))).count();
    assert_eq!(chords, 1, "the key went out once: {outcome:#?}");
    assert_eq!(
        outcome.target.as_ref().and_then(|t| t.window.as_deref()),
        Some("Select a file to open"),
        "{outcome:#?}"
    );
}
