//! Per-toolkit normalisation on the real applications, each element compared with what an
//! independent AT-SPI client (pyatspi) reads for it: GTK 4 (sensitive and visible are
//! Enabled and Showing), Chromium (action names, default action as click, no EditableText),
//! and an action that opens a modal dialog in a GTK 3 app (Mousepad's Save As).

use std::process::Stdio;
use std::time::Duration;

use deft_a11y::{A11yError, Accessibility, EventFilter, Node, Scope, SnapshotOptions, Tree};
use deft_harness::Desktop;
use deft_harness::apps::CorpusApp;
use deft_types::{Rect, State};

use crate::corpus::Corpus;

/// What pyatspi reads for the first element with this role and name in app `app`:
/// `(extents, enabled, showing, action names)`.
fn pyatspi(
    desktop: &Desktop,
    app: &str,
    role: &str,
    name: &str,
) -> (Rect<deft_types::Logical>, bool, bool, Vec<String>) {
    const SCRIPT: &str = r#"
import sys, json, pyatspi
app_name, role, name = sys.argv[1:4]
app = [a for a in pyatspi.Registry.getDesktop(0) if a and a.name == app_name][0]
def walk(o):
    yield o
    for c in o:
        if c is not None:
            yield from walk(c)
o = next(o for o in walk(app) if o.getRole() == getattr(pyatspi, "ROLE_" + role.upper()) and o.name == name)
s = o.getState()
a = o.queryAction() if "Action" in o.get_interfaces() else None
print(json.dumps({
    "extents": list(o.queryComponent().getExtents(0)),
    "enabled": s.contains(pyatspi.STATE_ENABLED), "sensitive": s.contains(pyatspi.STATE_SENSITIVE),
    "showing": s.contains(pyatspi.STATE_SHOWING), "visible": s.contains(pyatspi.STATE_VISIBLE),
    "actions": [a.getName(i) for i in range(a.nActions)] if a else [],
}))
"#;
    let out = desktop
        .command(deft_harness::python())
        .args(["-c", SCRIPT, app, role, name])
        .stderr(Stdio::piped())
        .output()
        .expect("python3");
    assert!(out.status.success(), "pyatspi: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("pyatspi's JSON");
    let e: Vec<i64> = v["extents"].as_array().unwrap().iter().map(|n| n.as_i64().unwrap()).collect();
    let flag = |k: &str| v[k].as_bool().unwrap();
    let actions = v["actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_lowercase()).collect();
    (
        Rect::new(e[0] as i32, e[1] as i32, e[2] as u32, e[3] as u32),
        flag("enabled") || flag("sensitive"),
        flag("showing") || flag("visible"),
        actions,
    )
}

/// Move gtk4-widget-factory's window to (`x`, `y`) with xdotool; its X window's geometry
/// afterwards, as xdotool reads it.
fn gtk4_window_moved_to(desktop: &Desktop, x: i32, y: i32) -> Rect<deft_types::Physical> {
    let found = desktop.command("xdotool").args(["search", "--sync", "--name", "GTK Widget Factory"]).output();
    let found = found.expect("xdotool runs");
    let id = String::from_utf8_lossy(&found.stdout).lines().next().expect("its X window").to_string();
    xdotool(desktop, &["windowmove", "--sync", &id, &x.to_string(), &y.to_string()]);
    let shell = desktop.command("xdotool").args(["getwindowgeometry", "--shell", &id]).output().expect("xdotool");
    let shell = String::from_utf8_lossy(&shell.stdout).to_string();
    let value = |key: &str| -> i64 {
        let line = shell.lines().find_map(|l| l.strip_prefix(&format!("{key}="))).expect("a geometry value");
        line.trim().parse().expect("a number")
    };
    Rect::new(value("X") as i32, value("Y") as i32, value("WIDTH") as u32, value("HEIGHT") as u32)
}

/// The first node with this role and name.
fn first<'t>(tree: &'t Tree, role: &str, name: &str) -> &'t Node {
    tree.nodes.iter().find(|n| n.element.role.as_str() == role && n.element.name == name).unwrap_or_else(|| {
        panic!(
            "no {role} {name:?}; tree:\n{}",
            tree.nodes.iter().map(|n| n.element.describe()).collect::<Vec<_>>().join("\n")
        )
    })
}

#[test]
fn gtk4_buttons_read_enabled_showing_with_bounds_and_click() {
    let Some(mut c) = Corpus::start(&[CorpusApp::Gtk4WidgetFactory]) else { return };
    // Away from the screen's corner: GTK 4's extents are relative to its window.
    let window = gtk4_window_moved_to(&c.desktop, 150, 60);
    let tree = c.tree("gtk4-widget-factory", &SnapshotOptions::default());
    // Page 1's first toggle button is enabled, the second disabled (GTK 4.8 reports only
    // sensitive and visible for both, never enabled or showing).
    let buttons: Vec<&Node> = tree
        .nodes
        .iter()
        .filter(|n| n.element.role.as_str() == "push_button" && n.element.name == "togglebutton")
        .collect();
    assert!(buttons.len() >= 2, "{buttons:?}");
    let (on, off) = (&buttons[0].element, &buttons[1].element);
    assert!(on.has(State::Enabled) && on.has(State::Showing), "{}", on.describe());
    assert!(!off.has(State::Enabled) && off.has(State::Showing), "{}", off.describe());
    assert!(on.actions.iter().any(|a| a == "click"), "{}", on.describe());
    let (extents, enabled, showing, actions) =
        pyatspi(&c.desktop, "gtk4-widget-factory", "push_button", "togglebutton");
    // pyatspi gives GTK 4's window-relative extents as they come; deft places them on
    // screen by the X window (as xdotool reads it), inside the border GTK draws around
    // its window (the X window is larger than the accessible frame by it on every side).
    let (frame, ..) = pyatspi(&c.desktop, "gtk4-widget-factory", "frame", "GTK Widget Factory");
    let (dx, dy) = (window.x + (window.w - frame.w) as i32 / 2, window.y + (window.h - frame.h) as i32 / 2);
    let placed = Rect::new(extents.x + dx, extents.y + dy, extents.w, extents.h);
    assert_eq!(on.bounds, Some(placed), "deft's bounds vs pyatspi's extents placed in the X window {window:?}");
    assert!(enabled && showing);
    assert_eq!(on.actions, actions);
    // Entries read their text: GTK 4.8 answers GetText(0, -1) with "" (the text only to
    // GetText(0, CharacterCount)); the page's "comboboxentry" entry shows that text.
    let texts: Vec<&str> = tree.nodes.iter().filter_map(|n| n.element.text.as_deref()).collect();
    assert!(texts.contains(&"comboboxentry"), "entries' texts: {texts:?}");
    // A button on the hidden second page: in the tree, visible, but not drawn.
    let hidden = &first(&tree, "push_button", "New").element;
    assert!(!hidden.has(State::Showing) && hidden.bounds.is_none(), "{}", hidden.describe());
    // What the executor relies on: the hit test at the enabled button lands on it.
    let b = on.bounds.unwrap();
    let hit = c.rt.block_on(c.a11y().hit_test(b.center())).expect("hit test").expect("something is there");
    assert!(hit.is_within(&on.id), "hit {} in {:?}", hit.element.describe(), hit.chain);
    c.assert_all_responsive("reading GTK 4");
}

#[test]
fn chromium_actions_are_named_and_its_default_action_is_click() {
    let Some(mut c) = Corpus::start(&[CorpusApp::Chromium]) else { return };
    let tree = c.tree_with("Chromium", "push_button", "Submit");
    let submit = first(&tree, "push_button", "Submit").element.clone();
    assert!(submit.has(State::Enabled) && submit.has(State::Showing), "{}", submit.describe());
    assert_eq!(submit.actions, ["click", "press", "showcontextmenu"]);
    let (extents, _, _, actions) = pyatspi(&c.desktop, "Chromium", "push_button", "Submit");
    assert_eq!(submit.bounds, Some(extents));
    assert_eq!(actions, ["press", "showcontextmenu"], "pyatspi's real names, without Deft's click");
    let link = &first(&tree, "link", "More details").element;
    assert_eq!(link.actions, ["click", "jump", "showcontextmenu"]);

    // Chromium's text fields have no EditableText: setting text is refused without a call
    // of it (that call crashed the browser), so the executor types instead.
    let entry = first(&tree, "entry", "Full name").element.id.clone();
    let refused = c.rt.block_on(c.a11y().set_text(&entry, "abc"));
    assert!(matches!(refused, Err(A11yError::NotSupported { .. })), "{refused:?}");
    c.assert_all_responsive("setting text on a Chromium entry");

    // The default action under Deft's name: the form is submitted.
    c.rt.block_on(c.a11y().do_action(&submit.id, "click")).expect("click Submit");
    let submitted = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        let t = c.tree("Chromium", &SnapshotOptions::default());
        t.nodes.iter().any(|n| n.element.name.starts_with("Submitted:"))
    });
    assert!(submitted, "the page never said it was submitted");
    c.assert_all_responsive("Chromium actions");
}

#[test]
fn an_action_that_opens_a_modal_dialog_leaves_a_gtk3_app_readable_and_typing() {
    let Some(mut c) = Corpus::start(&[CorpusApp::Mousepad]) else { return };
    let a11y = c.a11y().clone();
    // Events registered, as while the executor verifies: atk-bridge only freezes then.
    let events =
        InRuntime(Some(c.rt.block_on(a11y.events(&EventFilter::default())).expect("subscribe")), c.rt.handle().clone());
    let tree = c.tree("mousepad", &SnapshotOptions::default());
    let file = first(&tree, "menu", "File").element.bounds.expect("the File menu is on screen");
    xdotool(&c.desktop, &["mousemove", &file.center().x.to_string(), &file.center().y.to_string(), "click", "1"]);
    let save_as = (0..50)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(100));
            let t = c.tree("mousepad", &SnapshotOptions::default());
            t.nodes
                .iter()
                .find(|n| {
                    n.element.role.as_str() == "menu_item"
                        && n.element.name.starts_with("Save As")
                        && n.element.has(State::Showing)
                })
                .map(|n| n.element.id.clone())
        })
        .expect("the File menu opened");
    // GTK 3 runs this inside the D-Bus dispatch and stays there while the dialog is open.
    c.rt.block_on(a11y.do_action(&save_as, "click")).expect("Save As");
    let dialog = (0..50).find_map(|_| {
        std::thread::sleep(Duration::from_millis(100));
        let apps = c.rt.block_on(a11y.applications()).expect("list applications");
        apps.into_iter().flat_map(|a| a.windows).find(|w| w.title == "Save As")
    });
    let dialog = dialog.expect("the Save As dialog is read while the action's dispatch is still running");
    xdotool(&c.desktop, &["type", "--delay", "30", "jkl"]);
    c.assert_all_responsive("typing into a dialog opened by an accessibility action");
    let typed = (0..30).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        let t =
            c.rt.block_on(a11y.snapshot(&Scope::Subtree(dialog.id.clone()), &SnapshotOptions::default()))
                .expect("read the dialog");
        t.nodes.iter().any(|n| n.element.text.as_deref() == Some("jkl"))
    });
    assert!(typed, "the keys did not reach the dialog's name field");
    c.assert_all_responsive("reading the dialog after typing");
    drop(events);
}

/// A value dropped inside a runtime (event streams deregister with a task on it), even
/// when a test fails.
struct InRuntime<T>(Option<T>, tokio::runtime::Handle);

impl<T> Drop for InRuntime<T> {
    fn drop(&mut self) {
        let _inside = self.1.enter();
        drop(self.0.take());
    }
}

fn xdotool(desktop: &Desktop, args: &[&str]) {
    let ok = desktop.command("xdotool").args(args).status().is_ok_and(|s| s.success());
    assert!(ok, "xdotool {args:?} failed");
}

/// Firefox's `GetAccessibleAtPoint` stops at the document for a point on one of its
/// buttons (the document answers with itself); the hit test goes on down by the children's
/// extents, so it lands on the button, the link and the field the point is on, as the
/// executor's "is anything covering it" check needs.
#[test]
fn firefox_hit_tests_land_on_the_page_element_not_the_document() {
    let Some(mut c) = Corpus::start(&[CorpusApp::Firefox]) else { return };
    let app = CorpusApp::Firefox.accessible_name();
    let wanted = [("push_button", "Submit"), ("link", "More details"), ("entry", "Full name")];
    // Firefox reads (-1, -1, -1, -1) for a moment after the page loads.
    let tree = (0..100)
        .find_map(|_| {
            let t = c.tree(app, &SnapshotOptions::default());
            let placed = wanted.iter().all(|(role, name)| {
                t.nodes
                    .iter()
                    .any(|n| n.element.role.as_str() == *role && n.element.name == *name && n.element.bounds.is_some())
            });
            if placed {
                Some(t)
            } else {
                std::thread::sleep(Duration::from_millis(100));
                None
            }
        })
        .expect("the page's elements get bounds");
    for (role, name) in wanted {
        let e = &first(&tree, role, name).element;
        let at = e.bounds.unwrap().center();
        let hit = c.rt.block_on(c.a11y().hit_test(at)).expect("hit test").expect("something is there");
        assert!(hit.is_within(&e.id), "{role} {name:?}: hit {} in {:?}", hit.element.describe(), hit.chain);
    }
    c.assert_all_responsive("hit testing Firefox");
}
