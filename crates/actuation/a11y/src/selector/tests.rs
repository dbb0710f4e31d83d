//! Data-driven checks of the selector parser, matcher and ranking, and their properties.

use deft_types::{ElementId, Role, Selector, State, TextMatch};
use proptest::prelude::*;

use super::*;
use crate::tree::{RootContext, Tree, TreeBuilder, element};

/// The fixture app's shape, enough to tell selectors apart.
fn fixture() -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "deft-fixture"));
    let win = b.child(app, element("win", "frame", "Deft Fixture"));
    let panel = b.child(win, element("panel", "panel", ""));
    b.child(panel, element("hello", "push button", "Hello"));
    b.child(panel, element("submit", "push button", "Submit order"));
    b.child(panel, element("subscribe", "check box", "Subscribe"));
    b.child(panel, element("save", "push button", "Save"));
    let mut name = element("name", "text", "Name");
    name.text = Some("Ada".into());
    b.child(panel, name);
    b.child(panel, element("password", "password text", "Password"));
    let list = b.child(panel, element("items", "list box", "Items"));
    for i in 1..=3 {
        let row = b.child(list, element(&format!("item{i}"), "list item", &format!("Item {i}")));
        b.child(row, element(&format!("item{i}l"), "label", &format!("Item {i}")));
    }
    let other = b.app(element("app2", "application", "gtk3-widget-factory"));
    let w2 = b.child(other, element("win2", "frame", "Widget Factory"));
    b.child(w2, element("ok2", "push button", "Submit"));
    b.build()
}

/// Resolve `selector` on the fixture tree and compare the outcome with `expected`: an
/// element id, or the start of the error message.
fn check(selector: &str, tree: &Tree, expected: &str) {
    let outcome = parse(selector)
        .map_err(|e| e.to_string())
        .and_then(|sel| resolve(tree, &sel).map(|i| tree.nodes[i].element.id.0.clone()).map_err(|e| e.to_string()));
    match outcome {
        Ok(id) => assert_eq!(id, expected, "selector {selector:?}"),
        Err(msg) => assert!(
            msg.starts_with(expected),
            "selector {selector:?}: got error\n  {msg}\nexpected it to start with\n  {expected}"
        ),
    }
}

#[test]
fn resolves_by_each_key() {
    let t = fixture();
    check(r#"role=push_button name="Submit order""#, &t, "submit");
    check("name~=SUBMIT app=deft-fixture", &t, "submit");
    // An app's name whatever its case (`featherpad` for "FeatherPad"); a name's is exact.
    check("name~=SUBMIT app=Deft-Fixture", &t, "submit");
    check(r#"name="submit order""#, &t, "no element matches");
    check("name/=^Sub.*r$", &t, "submit");
    check(r#"app="gtk3-widget-factory" name~=submit"#, &t, "ok2");
    check(r#"window="Deft Fixture" role=check_box"#, &t, "subscribe");
    check("role=Check-Box", &t, "subscribe");
    check("path=0/1", &t, "submit");
    check("path=/ app~=fixture", &t, "win");
    check("id=save", &t, "save");
    check("text=Ada", &t, "name");
    check(r#"name="Item 2" role=list_item"#, &t, "item2");
    check(r#"name="Item 2" index=1"#, &t, "item2l");
    check("role=password_text", &t, "password");
}

#[test]
fn ambiguity_is_an_error_listing_all_matches() {
    let t = fixture();
    check(
        "name~=submit",
        &t,
        "`name~=submit` matches 2 elements; add a term to tell them apart, or index=N to pick one: \
         index=0: push_button \"Submit order\"",
    );
    let Err(ResolveError::Ambiguous { matches, .. }) = resolve(&t, &parse("role=push_button").unwrap()) else {
        panic!("expected ambiguity")
    };
    let ids: Vec<&str> = matches.iter().map(|c| c.id.0.as_str()).collect();
    assert_eq!(ids, ["hello", "submit", "save", "ok2"]);
    check("role=push_button index=3", &t, "ok2");
    check("role=push_button index=4", &t, "`role=push_button index=4` has index=4 but only 4 element(s) match");
}

#[test]
fn not_found_ranks_the_closest_first() {
    let t = fixture();
    check(
        r#"name="Sumbit order""#,
        &t,
        "no element matches `name=\"Sumbit order\"`; closest: push_button \"Submit order\"",
    );
    let sel = parse("role=push_button name=Subscribe").unwrap();
    let Err(ResolveError::NotFound { candidates, .. }) = resolve(&t, &sel) else { panic!() };
    // Same name, wrong role beats right role, other name.
    assert_eq!(candidates[0].id.0, "subscribe", "{candidates:#?}");
    assert!(candidates.len() <= MAX_CANDIDATES);
    assert!(candidates.windows(2).all(|w| w[0].similarity >= w[1].similarity));
    check("app=nope name=Hello", &t, "no element matches `app=nope name=Hello`; closest: push_button \"Hello\"");
}

#[test]
fn parse_errors_point_at_the_problem() {
    let cases = [
        ("role=push_button name=", 23, "expected a value after 'name='"),
        (
            "nam=Submit",
            1,
            "unknown key 'nam'; expected one of app, window, role, name, text, path, id, index (did you mean 'name'?)",
        ),
        ("name Submit", 5, "expected '=', '~=' or '/=' after 'name'"),
        (r#"name="Submit"#, 6, "unterminated quoted value"),
        ("role~=button", 5, "'role' takes only '='"),
        ("index=-1", 7, "expected a non-negative whole number after 'index=', found '-1'"),
        ("path=0/x/1", 8, "expected child indices separated by '/'"),
        ("name/=(", 7, "invalid regular expression"),
        ("name=a name=b", 8, "'name' is given twice"),
        ("", 1, "empty selector"),
        (r#"name="a"b"#, 9, "expected a space before the next term"),
        (r#"name=a"b""#, 7, "a quote inside an unquoted value"),
        (r#"name="a\nb""#, 9, "unknown escape '\\n'"),
        ("é name=", 1, "expected a key"),
        ("role=push_button name=", 23, "expected a value after 'name='"),
        ("name=Hello role=push_buton", 17, "`push_buton` is not a role; did you mean push_button"),
    ];
    for (input, column, message) in cases {
        let err = parse(input).expect_err(input);
        assert_eq!(err.column, column, "{input:?}: {err}");
        assert!(err.message.starts_with(message), "{input:?}: {}", err.message);
        assert!(err.to_string().starts_with(&format!("selector error at column {column}: ")));
    }
    let err = parse("role=push_button name=").unwrap_err();
    assert_eq!(err.pointer(), "role=push_button name=\n                      ^");
}

#[test]
fn quoting_and_escapes() {
    let sel = parse(r#"name="say \"hi\" \\ now" text="" window=x\y"#).unwrap();
    assert_eq!(sel.name, Some(TextMatch::Exact(r#"say "hi" \ now"#.into())));
    assert_eq!(sel.text, Some(TextMatch::Exact(String::new())));
    assert_eq!(sel.window, Some(TextMatch::Exact(r"x\y".into())));
    assert_eq!(format(&sel), r#"window="x\\y" name="say \"hi\" \\ now" text="""#);
    assert_eq!(parse(&format(&sel)).unwrap(), sel);
    assert_eq!(parse("  role=label\t name~=ok  ").unwrap().role, Some(Role::new("label")));
}

#[test]
fn subtree_roots_keep_their_context() {
    let mut b = TreeBuilder::new();
    let ctx = RootContext { app: "demo".into(), window: Some("Main".into()), path: vec![2] };
    let root = b.root(element("r", "panel", "Tools"), ctx);
    b.child(root, element("c", "push_button", "Go"));
    let t = b.build();
    check("app=demo window=Main path=2/0", &t, "c");
}

fn text_match() -> impl Strategy<Value = TextMatch> {
    let text = "[ -~é\"\\\\]{0,12}";
    prop_oneof![
        text.prop_map(TextMatch::Exact),
        text.prop_map(TextMatch::Contains),
        "[a-z]{1,5}\\.?\\*?".prop_map(TextMatch::Regex),
    ]
}

fn selector() -> impl Strategy<Value = Selector> {
    (
        proptest::option::of(text_match()),
        proptest::option::of(text_match()),
        proptest::option::of(proptest::sample::select(&crate::roles::ATSPI_ROLES[..]).prop_map(Role::new)),
        proptest::option::of(text_match()),
        proptest::option::of(text_match()),
        proptest::option::of(proptest::collection::vec(0u32..40, 0..5)),
        proptest::option::of("[:.0-9a-z|/ ]{1,20}".prop_map(ElementId)),
        proptest::option::of(0u32..10),
    )
        .prop_map(|(app, window, role, name, text, path, id, index)| Selector {
            app,
            window,
            role,
            name,
            text,
            path,
            id,
            index,
        })
        .prop_filter("an empty selector has no text form", |s| !s.is_empty())
}

proptest! {
    #[test]
    fn print_then_parse_round_trips(sel in selector()) {
        let text = format(&sel);
        let back = parse(&text);
        prop_assert_eq!(back.as_ref().ok(), Some(&sel), "text {:?} gave {:?}", text, back);
    }

    #[test]
    fn parse_never_panics_and_errors_point_inside(input in "[ -~é]{0,30}") {
        if let Err(e) = parse(&input) {
            prop_assert!(e.offset <= input.len());
            prop_assert!(input.is_char_boundary(e.offset));
            prop_assert!(e.column <= input.chars().count() + 1);
        }
    }

    #[test]
    fn resolution_agrees_with_find_all(name in "(Hello|Submit|Item|Save|Sub|x)", role in "(push_button|label|list_item|text)", index in proptest::option::of(0u32..5)) {
        let t = fixture();
        let sel = Selector { name: Some(TextMatch::Contains(name)), role: Some(Role::new(&role)), index, ..Selector::default() };
        let all = find_all(&t, &sel).unwrap();
        match resolve(&t, &sel) {
            Ok(i) => {
                prop_assert!(all.contains(&i));
                prop_assert_eq!(i, all[index.unwrap_or(0) as usize]);
                prop_assert!(all.len() == 1 || index.is_some());
            }
            Err(ResolveError::NotFound { candidates, .. }) => {
                prop_assert!(all.is_empty());
                prop_assert!(candidates.iter().all(|c| c.similarity < 100 || !all.is_empty()));
            }
            Err(ResolveError::Ambiguous { matches, .. }) => {
                prop_assert!(index.is_none());
                prop_assert_eq!(matches.len(), all.len());
            }
            Err(ResolveError::IndexOutOfRange { matches, .. }) => prop_assert!(index.unwrap() as usize >= matches.len()),
            Err(e) => prop_assert!(false, "unexpected {}", e),
        }
    }

    #[test]
    fn every_match_meets_every_criterion(name in "[a-zA-Z ]{0,6}") {
        let t = fixture();
        let sel = Selector { name: Some(TextMatch::Contains(name.clone())), ..Selector::default() };
        for i in find_all(&t, &sel).unwrap() {
            prop_assert!(t.nodes[i].element.name.to_lowercase().contains(&name.to_lowercase()));
        }
    }
}

/// The one picking rule, [`Pick::Natural`], on the cases real apps produce.
#[test]
fn natural_picking() {
    let mut b = TreeBuilder::new();
    let app = b.app(element("a", "application", "demo"));
    let w = b.child(app, element("w", "frame", "Main"));
    // A list row and the label inside it show the same text: the row is meant.
    let row = b.child(w, element("r1", "list_item", "Item 1"));
    b.child(row, element("l1", "label", "Item 1"));
    // A destroyed widget lingering hidden beside its replacement: the shown one.
    let mut hidden = element("old", "push_button", "Submit");
    hidden.states.remove(&State::Showing);
    b.child(w, hidden);
    b.child(w, element("new", "push_button", "Submit"));
    // A check box and the separate label that names it (a web page): the control.
    b.child(w, element("cb", "check_box", "Subscribe"));
    b.child(w, element("cbl", "label", "Subscribe"));
    // A label around its check box, both named by its text (Firefox, Chromium): the box.
    let wrap = b.child(w, element("wl", "label", "Newsletter"));
    b.child(wrap, element("wcb", "check_box", "Newsletter"));
    // A bar a toolkit hid but left `showing` (Qt): no bounds, so not what is meant.
    let mut ghost = element("ghost", "text", "Find");
    ghost.bounds = None;
    b.child(w, ghost);
    let mut field = element("field", "text", "Find");
    field.bounds = Some(deft_types::Rect::new(10, 10, 100, 20));
    b.child(w, field);
    // A padded name, as menus have.
    b.child(w, element("saveas", "menu_item", "Save As...      "));
    // Two real buttons of the same name: ambiguous, whatever the rule.
    b.child(w, element("x1", "push_button", "Same"));
    b.child(w, element("x2", "push_button", "Same"));
    // A field and its label scrolled out of view together (a web form): still the field.
    for (id, role) in [("far-label", "static"), ("far-field", "entry")] {
        let mut e = element(id, role, "Full name");
        e.states.remove(&State::Showing);
        b.child(w, e);
    }
    // LibreOffice's menu bar listed twice (GTK's acts; its own does not, and says it is
    // shown over the toolbar): the one that acts. Two buttons that cannot act stay two.
    for (id, at, acts) in [("vcl-file", (0, 44, 35, 19), false), ("gtk-file", (0, 19, 39, 25), true)] {
        let mut e = element(id, "menu", "File");
        e.bounds = Some(deft_types::Rect::new(at.0, at.1, at.2, at.3));
        e.actions = if acts { vec!["click".into()] } else { Vec::new() };
        b.child(w, e);
    }
    for (id, x) in [("left", 0), ("right", 60)] {
        let mut e = element(id, "push_button", "Twin");
        e.bounds = Some(deft_types::Rect::new(x, 100, 50, 20));
        b.child(w, e);
    }
    // Nested containers of different names are not one element.
    let outer = b.child(w, element("p1", "panel", "Box"));
    b.child(outer, element("p2", "panel", "Box inner"));
    let t = b.build();
    let id = |s: &str| -> Result<String, String> {
        let sel = parse(s).unwrap();
        pick(&t, &sel, Pick::Natural).map(|i| t.nodes[i].element.id.0.clone()).map_err(|e| e.to_string())
    };
    assert_eq!(id("text=\"Item 1\"").as_deref(), Ok("r1"));
    assert_eq!(id("name=\"Item 1\"").as_deref(), Ok("r1"));
    assert_eq!(id("name=Submit").as_deref(), Ok("new"));
    assert_eq!(id("name=Subscribe").as_deref(), Ok("cb"));
    assert_eq!(id("name=Newsletter").as_deref(), Ok("wcb"));
    assert_eq!(id("role=label name=Newsletter").as_deref(), Ok("wl"));
    assert_eq!(id("role=text name=Find").as_deref(), Ok("field"));
    assert_eq!(id("name=\"Save As...\"").as_deref(), Ok("saveas"));
    assert_eq!(id("name=\"Full name\"").as_deref(), Ok("far-field"));
    assert_eq!(id("name=File").as_deref(), Ok("gtk-file"));
    assert_eq!(id("name=File index=0").as_deref(), Ok("vcl-file"), "index counts every match");
    assert!(id("name=Twin").unwrap_err().contains("matches 2 elements"));
    let e = id("name=Same").unwrap_err();
    assert!(e.contains("matches 2 elements") && e.contains("index=1"), "{e}");
    assert_eq!(id("name=Same index=1").as_deref(), Ok("x2"));
    assert!(id("name=Same index=2").unwrap_err().contains("has index=2 but only 2"));
    assert!(id("role=panel name~=box").unwrap_err().contains("matches 2 elements"));
    // Exact keeps the old strictness: the row and its label are two matches.
    let strict = pick(&t, &parse("text=\"Item 1\"").unwrap(), Pick::Exact);
    assert!(matches!(strict, Err(ResolveError::Ambiguous { .. })), "{strict:?}");
    // An element listed twice (two reads merged) counts once.
    let twice = Tree::merge([t.clone(), t.clone()]);
    assert_eq!(natural_matches(&twice, &parse("name=Subscribe role=check_box").unwrap()).unwrap().len(), 1);
}

#[test]
fn text_no_element_shows_is_looked_for_in_descriptions() {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "player"));
    let w = b.child(app, element("w", "frame", "Player"));
    let mut pause = element("pause", "push_button", "");
    pause.description = "Pause the playback".into();
    pause.states.insert(State::Showing);
    b.child(w, pause);
    let mut label = element("l", "label", "Paused at 0:42");
    label.states.insert(State::Showing);
    b.child(w, label);
    let tree = b.build();
    let by = |t: &str| Selector { text: Some(TextMatch::Contains(t.into())), ..Selector::default() };
    let found = pick(&tree, &by("pause the playback"), Pick::Natural).unwrap();
    assert_eq!(tree.nodes[found].element.id.0, "pause");
    // Text an element shows wins: the description is only a fallback.
    let found = pick(&tree, &by("Paused"), Pick::Natural).unwrap();
    assert_eq!(tree.nodes[found].element.id.0, "l");
}

#[test]
fn role_dialog_finds_any_dialog_and_a_narrower_role_only_itself() {
    // LibreOffice's and Geany's Save dialogs are file choosers: `role=dialog` found none. A
    // notice inside a window (a web page's `alert`) is no dialog: a window is.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "soffice"));
    let main = b.child(app, element("main", "frame", "Untitled 1 - LibreOffice Impress"));
    b.child(main, element("notice", "alert", "Saved"));
    b.child(app, element("save", "file chooser", "Save"));
    let t = b.build();
    check("role=dialog", &t, "save");
    check("role=file_chooser", &t, "save");
    check("role=alert", &t, "notice");
}
