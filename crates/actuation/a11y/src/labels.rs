//! A label and the field it names. A person reads "Name:" beside a field and means the
//! field; toolkits say so with a relation (the label's `label_for`, the field's
//! `labelled_by`: GTK's mnemonic widget, Qt's buddy, HTML's `<label for>`), and a field
//! that takes its name from elsewhere (or none: GTK 2's entries) is found only this way.
//! A text verb aimed at a label goes to the field the label names; nothing else does (a
//! click on a label is a click on the label).

use deft_types::{Element, ElementId, Selector};

use crate::Accessibility;
use crate::backend::{Scope, SnapshotOptions};
use crate::error::A11yError;
use crate::find::{Found, find_with};
use crate::selector::{Pick, shows_text_only};
use crate::tree::Node;

/// The one field `label` names, read with its relations: the label's `label_for` target,
/// else the one element of `window` (the label's window, when known) `labelled_by` it, else
/// the field beside it there ([`field_beside`]).
/// `None` when `label` is no label (it takes input itself), names no field, or names
/// several.
pub async fn labelled_field<A: Accessibility>(
    backend: &A,
    label: &Element,
    window: Option<&ElementId>,
) -> Result<Option<Found>, A11yError> {
    if !shows_text_only(label) {
        return Ok(None);
    }
    let with_relations = SnapshotOptions { relations: true, max_nodes: 5_000, ..SnapshotOptions::default() };
    let own = backend.snapshot(&Scope::Subtree(label.id.clone()), &with_relations).await?;
    let mut fields: Vec<ElementId> = own.nodes.first().map(|n| related(n, "label_for")).unwrap_or_default();
    if fields.is_empty()
        && let Some(window) = window
    {
        let tree = backend.snapshot(&Scope::Subtree(window.clone()), &with_relations).await?;
        fields = tree
            .nodes
            .iter()
            .filter(|n| related(n, "labelled_by").contains(&label.id))
            .map(|n| n.element.id.clone())
            .collect();
        // No relation says: the field a person reads it as naming, by where it is. Only for
        // a label: a text that takes no text through accessibility may take typed keys
        // itself (a canvas editor, a terminal: the fixture's Notes), and is the target.
        if fields.is_empty() && matches!(label.role.as_str(), "label" | "static" | "caption") {
            fields.extend(field_beside(&tree, label));
        }
    }
    fields.retain(|f| f != &label.id);
    fields.dedup();
    let [field] = &fields[..] else { return Ok(None) };
    let sel = Selector { id: Some(field.clone()), ..Selector::default() };
    match find_with(backend, &sel, &SnapshotOptions::default(), Pick::Exact).await {
        Ok(found) if !shows_text_only(found.element()) => Ok(Some(found)),
        Ok(_) => Ok(None),
        // The relation names an element that is gone: no field to go to.
        Err(A11yError::Resolve(_) | A11yError::Stale { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The field a person reads `label` as naming when no relation says (zenity's forms: a
/// label and its entry side by side, unrelated): the nearest field on its right on the same
/// line (its middle within the label's height), else the nearest just below it, overlapping
/// it across. Only fields that take text and are shown.
fn field_beside(tree: &crate::Tree, label: &Element) -> Option<ElementId> {
    let l = label.bounds?;
    let (l_right, l_bottom) = (l.x + l.w as i32, l.y + l.h as i32);
    let takes_text = |e: &Element| {
        e.has(deft_types::State::Showing)
            && (e.has(deft_types::State::Editable) || matches!(e.role.as_str(), "text" | "password_text" | "entry"))
            && !shows_text_only(e)
    };
    let fields = || tree.nodes.iter().map(|n| &n.element).filter(|e| e.id != label.id && takes_text(e));
    let beside = fields()
        .filter_map(|e| {
            let b = e.bounds?;
            let middle = b.y + b.h as i32 / 2;
            let gap = b.x - l_right;
            ((-2..=RIGHT_OF).contains(&gap) && (l.y..=l_bottom).contains(&middle)).then_some((gap, e))
        })
        .min_by_key(|(gap, _)| *gap);
    let below = || {
        fields()
            .filter_map(|e| {
                let b = e.bounds?;
                let gap = b.y - l_bottom;
                let across = b.x < l_right && l.x < b.x + b.w as i32;
                ((-2..=BELOW).contains(&gap) && across).then_some((gap, e))
            })
            .min_by_key(|(gap, _)| *gap)
    };
    beside.or_else(below).map(|(_, e)| e.id.clone())
}

/// How far right of a label, and how far below it, the field it names may start (px).
const RIGHT_OF: i32 = 300;
const BELOW: i32 = 40;

/// The elements `node`'s relation `kind` points at.
fn related(node: &Node, kind: &str) -> Vec<ElementId> {
    node.relations.iter().filter(|r| r.kind == kind).flat_map(|r| r.targets.iter().cloned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FakeAccessibility, Relation, TreeBuilder, element};

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    /// A window with a label "Reference:" and a nameless entry; `how` says which relation
    /// ties them (none, the label's `label_for`, the entry's `labelled_by`).
    fn form(how: &str) -> FakeAccessibility {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "demo"));
        let win = b.child(app, element("win", "frame", "Form"));
        let label = b.child(win, element("label", "label", "Reference:"));
        let mut field = element("entry", "text", "");
        field.states.insert(deft_types::State::Editable);
        let entry = b.child(win, field);
        b.child(win, element("other", "text", "Notes"));
        let to = |kind: &str, id: &str| vec![Relation { kind: kind.into(), targets: vec![ElementId(id.into())] }];
        match how {
            "label_for" => b.relations(label, to("label_for", "entry")),
            "labelled_by" => b.relations(entry, to("labelled_by", "label")),
            _ => {}
        }
        FakeAccessibility::new(b.build())
    }

    fn field_of(fake: &FakeAccessibility, id: &str) -> Option<String> {
        let label = run(fake.element(&ElementId(id.into()))).unwrap();
        let found = run(labelled_field(fake, &label, Some(&ElementId("win".into())))).unwrap();
        found.map(|f| f.element().id.0.clone())
    }

    #[test]
    fn a_label_names_the_field_it_is_for_by_either_relation() {
        assert_eq!(field_of(&form("label_for"), "label").as_deref(), Some("entry"));
        assert_eq!(field_of(&form("labelled_by"), "label").as_deref(), Some("entry"));
    }

    #[test]
    fn a_label_with_no_relation_names_the_field_beside_it() {
        // zenity's forms: "Name" and "Pass" labels, their entries on their right, unrelated.
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "zenity"));
        let win = b.child(app, element("win", "frame", "Forms"));
        let placed = |id: &str, role: &str, name: &str, (x, y): (i32, i32)| {
            let mut e = element(id, role, name);
            e.bounds = Some(deft_types::Rect::new(x, y, if role == "label" { 60 } else { 200 }, 30));
            if role != "label" {
                e.states.insert(deft_types::State::Editable);
            }
            e
        };
        b.child(win, placed("name", "label", "Name", (10, 10)));
        b.child(win, placed("pass", "label", "Pass", (10, 50)));
        b.child(win, placed("name_entry", "text", "", (80, 10)));
        b.child(win, placed("pass_entry", "password_text", "", (80, 50)));
        b.child(win, placed("notes", "label", "Notes", (10, 200)));
        let fake = FakeAccessibility::new(b.build());
        assert_eq!(field_of(&fake, "name").as_deref(), Some("name_entry"));
        assert_eq!(field_of(&fake, "pass").as_deref(), Some("pass_entry"));
        // Nothing beside it, nothing just below: no field.
        assert_eq!(field_of(&fake, "notes"), None);
        // A text that is no label (a canvas editor with no Text interface) is the target
        // itself, whatever field lies beside it.
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "editor"));
        let win = b.child(app, element("win", "frame", "Forms"));
        let mut canvas = placed("canvas", "text", "Notes", (10, 10));
        canvas.states.remove(&deft_types::State::Editable);
        b.child(win, canvas);
        b.child(win, placed("entry", "text", "", (220, 10)));
        assert_eq!(field_of(&FakeAccessibility::new(b.build()), "canvas"), None);
    }

    #[test]
    fn a_label_with_no_relation_or_a_field_itself_names_nothing() {
        assert_eq!(field_of(&form("none"), "label"), None);
        // The entry is no label: it is the target itself.
        assert_eq!(field_of(&form("label_for"), "entry"), None);
    }
}
