//! `FakeAccessibility`: an in-memory backend over a [`Tree`], for unit tests of the layers
//! above. It is a test double, not an implementation of any platform.

use std::sync::Mutex;

use deft_types::{Element, ElementId, Logical, Point, State};
use tokio::sync::broadcast;

use crate::backend::{AppInfo, Hit, Operation, Scope, SnapshotOptions, WindowInfo};
use crate::error::A11yError;
use crate::events::EventStream;
use crate::events::{A11yEvent, EventFilter};
use crate::tree::{RootContext, Tree, TreeBuilder};
use crate::{Accessibility, tree};

/// An in-memory [`Accessibility`] backend: snapshots come from a [`Tree`] the test sets,
/// operations are recorded (and `SetText` and `InsertText` update the element's text), events are what
/// the test emits.
pub struct FakeAccessibility {
    tree: Mutex<Tree>,
    performed: Mutex<Vec<(ElementId, Operation)>>,
    events: broadcast::Sender<A11yEvent>,
}

impl FakeAccessibility {
    /// A fake showing `tree`.
    pub fn new(tree: Tree) -> Self {
        FakeAccessibility {
            tree: Mutex::new(tree),
            performed: Mutex::new(Vec::new()),
            events: broadcast::channel(256).0,
        }
    }

    /// Replace the tree (the UI changed).
    pub fn set_tree(&self, tree: Tree) {
        *self.tree.lock().unwrap_or_else(|p| p.into_inner()) = tree;
    }

    /// The tree shown now.
    pub fn tree(&self) -> Tree {
        self.with_tree(|t| t.clone())
    }

    /// Every operation performed so far, in order.
    pub fn performed(&self) -> Vec<(ElementId, Operation)> {
        self.performed.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Deliver `event` to every event stream.
    pub fn emit(&self, event: A11yEvent) {
        let _ = self.events.send(event);
    }

    fn with_tree<R>(&self, f: impl FnOnce(&mut Tree) -> R) -> R {
        f(&mut self.tree.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

fn stale(id: &ElementId) -> A11yError {
    A11yError::Stale { id: id.clone() }
}

/// The subtree of `tree` rooted at `root`, as a tree of its own.
fn subtree(tree: &Tree, root: usize) -> Tree {
    let mut b = TreeBuilder::new();
    let n = &tree.nodes[root];
    let ctx = RootContext { app: n.app.clone(), window: n.window.clone(), path: n.path.clone() };
    let top = if n.window.is_none() { b.app(n.element.clone()) } else { b.root(n.element.clone(), ctx) };
    b.relations(top, n.relations.clone());
    let mut stack = vec![(root, top)];
    while let Some((i, at)) = stack.pop() {
        for &c in &tree.nodes[i].children {
            let id = b.child(at, tree.nodes[c].element.clone());
            b.relations(id, tree.nodes[c].relations.clone());
            stack.push((c, id));
        }
    }
    b.build()
}

impl Accessibility for FakeAccessibility {
    async fn applications(&self) -> Result<Vec<AppInfo>, A11yError> {
        Ok(self.with_tree(|t| {
            t.roots()
                .map(|r| AppInfo {
                    id: t.nodes[r].element.id.clone(),
                    name: t.nodes[r].element.name.clone(),
                    pid: None,
                    windows: t.nodes[r]
                        .children
                        .iter()
                        .map(|&w| {
                            let e = &t.nodes[w].element;
                            WindowInfo {
                                id: e.id.clone(),
                                title: e.name.clone(),
                                role: e.role.clone(),
                                states: e.states.clone(),
                                bounds: e.bounds,
                                display_title: None,
                            }
                        })
                        .collect(),
                    problem: None,
                })
                .collect()
        }))
    }

    async fn snapshot(&self, scope: &Scope, _options: &SnapshotOptions) -> Result<Tree, A11yError> {
        self.with_tree(|t| match scope {
            Scope::All => Ok(t.clone()),
            Scope::App(id) | Scope::Subtree(id) => t.find_id(id).map(|i| subtree(t, i)).ok_or_else(|| stale(id)),
        })
    }

    async fn element(&self, id: &ElementId) -> Result<Element, A11yError> {
        self.with_tree(|t| t.find_id(id).map(|i| t.nodes[i].element.clone()).ok_or_else(|| stale(id)))
    }

    async fn perform(&self, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
        self.with_tree(|t| {
            let i = t.find_id(id).ok_or_else(|| stale(id))?;
            let e = &mut t.nodes[i].element;
            match op {
                Operation::Action(name) if !e.actions.iter().any(|a| a == name) => {
                    return Err(A11yError::NoSuchAction {
                        id: id.clone(),
                        action: name.clone(),
                        available: e.actions.clone(),
                    });
                }
                Operation::SetText(text) if e.has(State::Editable) => e.text = Some(text.clone()),
                Operation::SetText(_) => {
                    return Err(A11yError::NotSupported { id: id.clone(), what: "setting text".into() });
                }
                Operation::InsertText { at, text } if e.has(State::Editable) => {
                    let mut chars: Vec<char> = e.text.clone().unwrap_or_default().chars().collect();
                    let at = (*at).min(chars.len());
                    chars.splice(at..at, text.chars());
                    e.text = Some(chars.into_iter().collect());
                }
                Operation::InsertText { .. } => {
                    return Err(A11yError::NotSupported { id: id.clone(), what: "inserting text".into() });
                }
                Operation::SetValue(v) => e.value = Some(v.to_string()),
                _ => {}
            }
            Ok(())
        })?;
        self.performed.lock().unwrap_or_else(|p| p.into_inner()).push((id.clone(), op.clone()));
        Ok(())
    }

    async fn hit_test(&self, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
        Ok(self.with_tree(|t| {
            t.hit_test(point).map(|i| {
                let mut chain = Vec::new();
                let mut at = Some(i);
                while let Some(n) = at.filter(|&n| t.nodes[n].window.is_some()) {
                    chain.push(t.nodes[n].element.id.clone());
                    at = t.nodes[n].parent;
                }
                chain.reverse();
                Hit { element: t.nodes[i].element.clone(), chain }
            })
        }))
    }

    async fn events(&self, filter: &EventFilter) -> Result<EventStream, A11yError> {
        let filter = filter.clone();
        let rx = self.events.subscribe();
        let stream = futures_util::stream::unfold(rx, move |mut rx| {
            let filter = filter.clone();
            async move {
                loop {
                    match rx.recv().await {
                        Ok(e) if filter.wants(e.kind()) => return Some((Ok(e), rx)),
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => return None,
                    }
                }
            }
        });
        Ok(Box::pin(stream))
    }
}

/// A small two-window demo tree for tests of the layers above: an app `demo` with a
/// window "Main" (buttons OK and Cancel, an editable text "Name") and a dialog "Confirm".
pub fn demo_tree() -> Tree {
    use deft_types::Rect;
    let mut b = TreeBuilder::new();
    let with = |mut e: Element, r: (i32, i32, u32, u32), actions: &[&str]| {
        e.bounds = Some(Rect::new(r.0, r.1, r.2, r.3));
        e.actions = actions.iter().map(|a| a.to_string()).collect();
        e
    };
    let app = b.app(tree::element("demo|root", "application", "demo"));
    let main = b.child(app, with(tree::element("demo|1", "frame", "Main"), (0, 0, 400, 300), &[]));
    b.child(main, with(tree::element("demo|2", "push_button", "OK"), (10, 10, 80, 30), &["click"]));
    b.child(main, with(tree::element("demo|3", "push_button", "Cancel"), (100, 10, 80, 30), &["click"]));
    let mut name = with(tree::element("demo|4", "text", "Name"), (10, 60, 200, 30), &["activate"]);
    name.states.insert(State::Editable);
    name.text = Some(String::new());
    b.child(main, name);
    let dialog = b.child(app, with(tree::element("demo|5", "dialog", "Confirm"), (500, 0, 200, 100), &[]));
    b.child(dialog, with(tree::element("demo|6", "push_button", "OK"), (510, 50, 80, 30), &["click"]));
    b.build()
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;
    use crate::events::EventKind;
    use crate::{find, selector};

    #[tokio::test]
    async fn fake_supports_the_whole_seam() {
        let fake = FakeAccessibility::new(demo_tree());
        let apps = fake.applications().await.unwrap();
        assert_eq!(apps[0].windows.iter().map(|w| w.title.as_str()).collect::<Vec<_>>(), ["Main", "Confirm"]);

        let sel = selector::parse(r#"window=Main name=OK"#).unwrap();
        let found = find(&fake, &sel, &SnapshotOptions::default()).await.unwrap();
        assert_eq!(found.element().id.0, "demo|2");
        let err = find(&fake, &selector::parse("name=OK").unwrap(), &SnapshotOptions::default()).await.unwrap_err();
        assert!(err.to_string().contains("matches 2 elements"), "{err}");

        let name = ElementId("demo|4".into());
        fake.set_text(&name, "Ada").await.unwrap();
        assert_eq!(fake.element(&name).await.unwrap().text.as_deref(), Some("Ada"));
        let err = fake.do_action(&name, "click").await.unwrap_err();
        assert!(matches!(err, A11yError::NoSuchAction { .. }), "{err}");
        assert!(matches!(fake.focus(&ElementId("gone".into())).await, Err(A11yError::Stale { .. })));
        assert_eq!(fake.performed().len(), 1);

        let hit = fake.hit_test(Point::new(110, 20)).await.unwrap().unwrap();
        assert_eq!(hit.element.name, "Cancel");
        assert!(hit.is_within(&ElementId("demo|1".into())));

        let window =
            fake.snapshot(&Scope::Subtree(ElementId("demo|5".into())), &SnapshotOptions::default()).await.unwrap();
        assert_eq!(window.len(), 2);
        assert_eq!(window.nodes[1].window.as_deref(), Some("Confirm"));

        let mut events = fake.events(&EventFilter::only(&[EventKind::TextChanged])).await.unwrap();
        fake.emit(A11yEvent::PropertyChanged { element: name.clone(), property: "accessible-name".into() });
        let text = A11yEvent::TextChanged {
            element: name,
            change: crate::events::TextChange::Insert,
            position: 0,
            length: 3,
            text: "Ada".into(),
        };
        fake.emit(text.clone());
        assert_eq!(events.next().await.unwrap().unwrap(), text);
    }
}
