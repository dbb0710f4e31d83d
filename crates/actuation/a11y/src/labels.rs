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
/// else the one element of `window` (the label's window, when known) `labelled_by` it.
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
    fn a_label_with_no_relation_or_a_field_itself_names_nothing() {
        assert_eq!(field_of(&form("none"), "label"), None);
        // The entry is no label: it is the target itself.
        assert_eq!(field_of(&form("label_for"), "entry"), None);
    }
}
