//! Resolving a selector against a live backend, reading only the apps and windows it names.

use deft_types::{Element, ElementId, Role, Selector};
use futures_util::future::join_all;

use crate::Accessibility;
use crate::backend::{AppInfo, Scope, SnapshotOptions};
use crate::error::A11yError;
use crate::selector::{self, Candidate, Matcher, ResolveError, SelectorText};
use crate::tree::Tree;

/// A resolved selector: the snapshot it was resolved in and the element's node.
#[derive(Clone, Debug)]
pub struct Found {
    /// The snapshot (only the apps or windows the selector names).
    pub tree: Tree,
    /// The element's index in `tree`.
    pub index: usize,
}

impl Found {
    /// The element.
    pub fn element(&self) -> &Element {
        &self.tree.nodes[self.index].element
    }
}

/// Resolve `sel` to exactly one element, reading as little as the selector allows: with
/// `id`, that element's subtree; with `window`, the matching windows; with `app`, the
/// matching apps; otherwise every app. Errors are those of [`selector::resolve`], plus
/// backend errors; an `app` or `window` that matches nothing lists the closest apps or
/// windows as candidates.
pub async fn find<A: Accessibility>(
    backend: &A,
    sel: &Selector,
    options: &SnapshotOptions,
) -> Result<Found, A11yError> {
    let matcher = Matcher::new(sel)?;
    let tree = if let Some(id) = &sel.id {
        backend.snapshot(&Scope::Subtree(id.clone()), options).await?
    } else if sel.app.is_none() && sel.window.is_none() {
        backend.snapshot(&Scope::All, options).await?
    } else {
        let apps = backend.applications().await?;
        let scopes = scopes_for(&apps, sel, &matcher)?;
        let trees = join_all(scopes.iter().map(|s| backend.snapshot(s, options))).await;
        let mut ok = Vec::new();
        for t in trees {
            match t {
                Ok(t) => ok.push(t),
                // An app that exited between listing and reading is not an error of the rest.
                Err(A11yError::AppGone { .. } | A11yError::Stale { .. }) if scopes.len() > 1 => {}
                Err(e) => return Err(e),
            }
        }
        Tree::merge(ok)
    };
    let index = selector::resolve(&tree, sel)?;
    Ok(Found { tree, index })
}

/// The snapshot scopes a selector's `app` and `window` terms name.
fn scopes_for(apps: &[AppInfo], sel: &Selector, m: &Matcher) -> Result<Vec<Scope>, A11yError> {
    let not_found = |mut candidates: Vec<Candidate>| -> A11yError {
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
        candidates.truncate(selector::MAX_CANDIDATES);
        ResolveError::NotFound { selector: SelectorText(sel).to_string(), candidates }.into()
    };
    let chosen: Vec<&AppInfo> = apps.iter().filter(|a| m.matches_app(&a.name)).collect();
    if chosen.is_empty() {
        let app_role = Role::new("application");
        return Err(not_found(
            apps.iter()
                .map(|a| candidate(&a.id, &app_role, &a.name, &a.name, None, m.app_similarity(&a.name)))
                .collect(),
        ));
    }
    if sel.window.is_none() {
        return Ok(chosen.iter().map(|a| Scope::App(a.id.clone())).collect());
    }
    let mut scopes = Vec::new();
    let mut near = Vec::new();
    for a in &chosen {
        for w in &a.windows {
            if m.matches_window(&w.title) {
                scopes.push(Scope::Subtree(w.id.clone()));
            } else {
                near.push(candidate(&w.id, &w.role, &w.title, &a.name, Some(&w.title), m.window_similarity(&w.title)));
            }
        }
    }
    if scopes.is_empty() {
        return Err(not_found(near));
    }
    Ok(scopes)
}

fn candidate(id: &ElementId, role: &Role, name: &str, app: &str, window: Option<&str>, score: f64) -> Candidate {
    Candidate {
        id: id.clone(),
        role: role.clone(),
        name: name.to_string(),
        app: app.to_string(),
        window: window.map(str::to_string),
        path: Vec::new(),
        score,
    }
}
