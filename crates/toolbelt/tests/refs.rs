//! Refs fail closed, and what changed after an action is capped out loud. A ref acted on
//! after its element changed name, role or went away is a
//! `stale_ref` error and no input is sent; an unchanged one acts. On fake backends (the
//! layer below the toolbelt is the seam).

use std::sync::Arc;

use deft_a11y::{AnyAccessibility, FakeAccessibility, Operation, Tree, TreeBuilder, element};
use deft_input::RecordingInput;
use deft_toolbelt::{AsParams, BeltSettings, LazyOcr, ToolCall, ToolErrorKind, ToolOutput, Toolbelt};
use deft_types::{Element, Rect};
use deft_verify::{Backends, Executor, ExecutorConfig};

fn placed(id: &str, role: &str, name: &str, r: (i32, i32, u32, u32)) -> Element {
    let mut e = element(id, role, name);
    e.bounds = Some(Rect::new(r.0, r.1, r.2, r.3));
    e.actions = vec!["click".into()];
    e
}

fn window(button: Element) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let main = b.child(app, placed("main", "frame", "Main", (0, 0, 400, 300)));
    b.child(main, button);
    b.build()
}

/// A toolbelt over a fake desktop, and the fake's accessibility (to change its tree).
struct Fake {
    belt: Toolbelt,
    ui: Arc<FakeAccessibility>,
}

impl std::ops::Deref for Fake {
    type Target = Toolbelt;
    fn deref(&self) -> &Toolbelt {
        &self.belt
    }
}

fn belt(tree: Tree) -> Fake {
    belt_with(tree, BeltSettings { verify_by_default: false, ..BeltSettings::for_models() })
}

fn belt_with(tree: Tree, settings: BeltSettings) -> Fake {
    let ui = Arc::new(FakeAccessibility::new(tree));
    let backends = Backends {
        a11y: AnyAccessibility::shared(Arc::clone(&ui)),
        input: Box::new(RecordingInput::new(400, 300)),
        windows: None,
        capture: None,
        ocr: None,
    };
    let executor = Executor::new(backends, ExecutorConfig::default()).unwrap();
    Fake { belt: Toolbelt::new(executor, Arc::new(LazyOcr::default()), settings), ui }
}

fn action_on(r: &str) -> ToolCall {
    ToolCall::parse("action", serde_json::json!({ "target": r, "action": "click" })).unwrap()
}

/// The ref the outline gives the button.
async fn ref_of_button(belt: &Toolbelt) -> String {
    let read = ToolCall::parse("read", serde_json::json!({})).unwrap();
    let Ok(ToolOutput::Read(report)) = belt.call(&read, &AsParams).await else { panic!("read failed") };
    let outline = report.outline.clone();
    let line = outline.lines().find(|l| l.contains("push_button")).unwrap_or_else(|| panic!("{outline}"));
    let at = line.find("[e").unwrap_or_else(|| panic!("no ref in {line:?}"));
    line[at + 1..].split(']').next().unwrap().to_string()
}

fn clicks(belt: &Fake) -> usize {
    belt.ui.performed().iter().filter(|(_, op)| matches!(op, Operation::Action(_))).count()
}

#[tokio::test]
async fn a_ref_acts_only_on_the_element_as_it_was_shown() {
    let save = placed("app|7", "push_button", "Save", (10, 10, 80, 30));
    let belt = belt(window(save.clone()));
    let r = ref_of_button(&belt).await;
    // Unchanged: it acts.
    let out = belt.call(&action_on(&r), &AsParams).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(clicks(&belt), 1, "{out:#?}");

    // The same id, now another button (an id reused): stale, nothing sent.
    let delete = placed("app|7", "push_button", "Delete everything", (10, 10, 80, 30));
    belt.ui.set_tree(window(delete));
    let e = belt.call(&action_on(&r), &AsParams).await.unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::StaleRef, "{e}");
    assert!(e.message.contains("\"Save\"") && e.message.contains("Delete everything"), "{e}");
    assert!(e.message.contains("read again"), "{e}");
    assert_eq!(clicks(&belt), 1, "nothing was sent");

    // Shown again, the ref is bound to what it is now.
    assert_eq!(ref_of_button(&belt).await, r, "one ref per element");
    belt.call(&action_on(&r), &AsParams).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(clicks(&belt), 2);

    // Gone: stale.
    belt.ui.set_tree(window(placed("app|8", "push_button", "Other", (10, 10, 80, 30))));
    let e = belt.call(&action_on(&r), &AsParams).await.unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::StaleRef, "{e}");
    assert!(e.message.contains("no longer exists"), "{e}");
    assert_eq!(clicks(&belt), 2);
}

/// What changed after an action is capped, and the cap is never silent: the lines past it
/// are counted in a "truncated ... call read" line.
#[tokio::test]
async fn the_changes_after_an_action_are_capped_with_an_explicit_line() {
    let buttons = |label: &str| {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "demo"));
        let main = b.child(app, placed("main", "frame", "Main", (0, 0, 400, 300)));
        for i in 0..30 {
            let name = if i < 12 { format!("{label} {i}") } else { format!("Fixed {i}") };
            b.child(main, placed(&format!("app|{}", 100 + i), "push_button", &name, (10, 10 * i, 80, 9)));
        }
        b.build()
    };
    let settings =
        BeltSettings { verify_by_default: false, changes_after_action: Some(5), ..BeltSettings::for_models() };
    let belt = belt_with(buttons("Row"), settings);
    let act = |id: &str| ToolCall::parse("action", serde_json::json!({ "id": id, "action": "click" })).unwrap();
    let changes = |out: ToolOutput| match out {
        ToolOutput::Action(a) => a.changes.clone().unwrap_or_else(|| format!("{a:#?}")),
        other => panic!("not an action's output: {other:?}"),
    };
    // The first look: the window, capped at 5 lines, the rest counted.
    let first = changes(belt.call(&act("app|129"), &AsParams).await.unwrap());
    // The frame and its 30 buttons: 5 lines shown, 26 counted.
    assert_eq!(first.lines().filter(|l| l.contains(" [e")).count(), 5, "{first}");
    assert!(first.contains("truncated: 26 more changed; call read"), "{first}");
    // Nothing changed since.
    let same = changes(belt.call(&act("app|129"), &AsParams).await.unwrap());
    assert_eq!(same, "no element of the window changed");
    // Twelve buttons renamed: five shown, seven counted.
    belt.ui.set_tree(buttons("Renamed"));
    let renamed = changes(belt.call(&act("app|129"), &AsParams).await.unwrap());
    assert!(renamed.starts_with("new or changed:"), "{renamed}");
    assert_eq!(renamed.lines().filter(|l| l.contains("Renamed")).count(), 5, "{renamed}");
    assert!(renamed.contains("truncated: 7 more changed; call read"), "{renamed}");
}
