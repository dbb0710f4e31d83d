//! Reaching the desktop's accessibility tree, and turning its errors into exit codes.
//!
//! Two conveniences live here because they are about what a person types, not about
//! resolution itself: `--app` also accepts the title of one of the app's windows (people
//! know "Deft Fixture", not the program name `deft-fixture`), and `--id 42` may be the
//! short numeric id (the last segment of the object path) that desktop-cli users know.

use std::time::{Duration, Instant};

use deft_a11y::selector::{self, Matcher, ResolveError};
use deft_a11y::{A11yError, Accessibility, AppInfo, AtSpi, AtSpiConfig, Scope, SnapshotOptions, Tree};
use deft_types::{ElementId, Selector, TextMatch};

use crate::exit::{Candidate, CliError, Exit};

/// Connect to the accessibility bus, or fail with exit 7.
pub async fn connect() -> Result<AtSpi, CliError> {
    AtSpi::connect(AtSpiConfig::default()).await.map_err(a11y_error)
}

/// An accessibility error as the CLI reports it.
pub fn a11y_error(e: A11yError) -> CliError {
    match e {
        A11yError::BusUnavailable { .. } => CliError::environment(e.to_string()),
        A11yError::Selector(s) => CliError::usage(format!("{s}\n{}", s.pointer())),
        A11yError::Resolve(r) => resolve_error(r),
        other => CliError::new(Exit::Failed, other.to_string()),
    }
}

/// Not found (3) or ambiguous (4), with the candidates.
/// The message is short; the candidates are listed by the output, one per line.
pub fn resolve_error(r: ResolveError) -> CliError {
    match r {
        ResolveError::NotFound { selector, candidates } => CliError::new(
            Exit::NotFound,
            if candidates.is_empty() {
                format!("no element matches `{selector}`, and nothing comes close")
            } else {
                format!("no element matches `{selector}`; the closest are listed below")
            },
        )
        .with_candidates(candidates.iter().map(candidate).collect()),
        ResolveError::Ambiguous { selector, matches } => CliError::new(
            Exit::Ambiguous,
            format!(
                "`{selector}` matches {} elements; add --app, --window or --role to tell them apart, or --index N \
                 to pick one (N as listed below)",
                matches.len()
            ),
        )
        .with_candidates(matches.iter().map(candidate).collect()),
        // Nothing at that index: not found, with what is there.
        ResolveError::IndexOutOfRange { selector, index, matches } => CliError::new(
            Exit::NotFound,
            format!("`{selector}` has index={index} but only {} element(s) match (listed below)", matches.len()),
        )
        .with_candidates(matches.iter().map(candidate).collect()),
        ResolveError::Invalid(s) => CliError::usage(format!("{s}\n{}", s.pointer())),
    }
}

/// A deft-a11y candidate as the CLI lists it.
pub fn candidate(c: &selector::Candidate) -> Candidate {
    Candidate {
        id: c.id.0.clone(),
        role: c.role.to_string(),
        name: c.name.clone(),
        app: c.app.clone(),
        window: c.window.clone(),
        selector: picking_selector(&c.app, c.window.as_deref(), &c.path, &c.id),
    }
}

/// A selector that names exactly this element and survives the app restarting: window and
/// path when it is in a window, its id otherwise.
pub fn picking_selector(app: &str, window: Option<&str>, path: &[u32], id: &ElementId) -> String {
    let sel = match window {
        Some(w) => Selector {
            app: Some(TextMatch::Exact(app.to_string())),
            window: Some(TextMatch::Exact(w.to_string())),
            path: Some(path.to_vec()),
            ..Selector::default()
        },
        None => Selector { id: Some(id.clone()), ..Selector::default() },
    };
    selector::format(&sel)
}

/// Apply the conveniences: `app` naming a window title, and short numeric ids.
pub async fn normalise<A: Accessibility>(backend: &A, mut sel: Selector) -> Result<Selector, CliError> {
    if sel.app.is_some() || sel.window.is_some() {
        let apps = backend.applications().await.map_err(a11y_error)?;
        sel = app_as_window(&apps, sel)?;
    }
    if let Some(id) = sel.id.clone()
        && is_short_id(&id.0)
    {
        sel.id = Some(expand_short_id(backend, &sel, &id.0).await?);
    }
    Ok(sel)
}

/// Like [`normalise`], but when `--app` names nothing on the desktop yet, keep looking for
/// up to `patience`: whether it is an application's name or a window's title can only be
/// told once an app that is still starting has shown its window. Without this, `click
/// --app "Deft Fixture"` issued at launch would wait for an application of that name, which
/// never comes.
pub async fn normalise_patiently<A: Accessibility>(
    backend: &A,
    sel: Selector,
    patience: Duration,
) -> Result<Selector, CliError> {
    if let (Some(app), None) = (sel.app.clone(), &sel.window) {
        let as_app = Matcher::new(&Selector { app: Some(app.clone()), ..Selector::default() })
            .map_err(|e| CliError::usage(e.to_string()))?;
        let as_window = Matcher::new(&Selector { window: Some(app), ..Selector::default() })
            .map_err(|e| CliError::usage(e.to_string()))?;
        let start = Instant::now();
        loop {
            let apps = backend.applications().await.map_err(a11y_error)?;
            let known = apps
                .iter()
                .any(|a| as_app.matches_app(&a.name) || a.windows.iter().any(|w| as_window.matches_window(&w.title)));
            if known || start.elapsed() >= patience {
                break;
            }
            // A bounded poll while the app starts; the executor's own wait takes over after.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    normalise(backend, sel).await
}

/// When `--app` matches no application's name but does match one of the windows' titles,
/// read it as `--window` (unless a window is named too).
pub fn app_as_window(apps: &[AppInfo], mut sel: Selector) -> Result<Selector, CliError> {
    let Some(app) = sel.app.clone() else { return Ok(sel) };
    let m = Matcher::new(&Selector { app: Some(app.clone()), ..Selector::default() })
        .map_err(|e| CliError::usage(e.to_string()))?;
    if apps.iter().any(|a| m.matches_app(&a.name)) || sel.window.is_some() {
        return Ok(sel);
    }
    let as_window = Matcher::new(&Selector { window: Some(app.clone()), ..Selector::default() })
        .map_err(|e| CliError::usage(e.to_string()))?;
    if apps.iter().flat_map(|a| &a.windows).any(|w| as_window.matches_window(&w.title)) {
        sel.app = None;
        sel.window = Some(app);
    }
    Ok(sel)
}

/// Ids written without the bus name: the last segment of an object path (`42`).
pub fn is_short_id(id: &str) -> bool {
    !id.contains('|') && !id.contains('/')
}

async fn expand_short_id<A: Accessibility>(backend: &A, sel: &Selector, short: &str) -> Result<ElementId, CliError> {
    let scope_sel = Selector { app: sel.app.clone(), window: sel.window.clone(), ..Selector::default() };
    let tree = snapshot_scope(backend, &scope_sel, &SnapshotOptions::default()).await?;
    let suffix = format!("/{short}");
    let found: Vec<usize> = (0..tree.len()).filter(|&i| tree.nodes[i].element.id.0.ends_with(&suffix)).collect();
    let listed = |found: &[usize]| {
        found
            .iter()
            .map(|&i| {
                let n = &tree.nodes[i];
                candidate(&selector::Candidate {
                    id: n.element.id.clone(),
                    role: n.element.role.clone(),
                    name: n.element.name.clone(),
                    app: n.app.clone(),
                    window: n.window.clone(),
                    path: n.path.clone(),
                    score: 1.0,
                })
            })
            .collect::<Vec<_>>()
    };
    match found.as_slice() {
        [one] => Ok(tree.nodes[*one].element.id.clone()),
        [] => Err(CliError::new(
            Exit::NotFound,
            format!(
                "no element has the id {short:?}{}; ids come from `agent-cli read` or `find` and change when the \
                 app restarts",
                scope_words(&scope_sel)
            ),
        )),
        many => Err(CliError::new(
            Exit::Ambiguous,
            format!(
                "the short id {short:?} is used by {} elements in different applications; give the full id or \
                 add --app",
                many.len()
            ),
        )
        .with_candidates(listed(many))),
    }
}

fn scope_words(sel: &Selector) -> String {
    if sel.is_empty() { String::new() } else { format!(" in `{}`", selector::format(sel)) }
}

/// A snapshot of what a selector's `app` and `window` terms name (everything when neither
/// is set). An app or window that matches nothing is [`Exit::NotFound`] with the closest.
pub async fn snapshot_scope<A: Accessibility>(
    backend: &A,
    sel: &Selector,
    options: &SnapshotOptions,
) -> Result<Tree, CliError> {
    if sel.app.is_none() && sel.window.is_none() {
        return backend.snapshot(&Scope::All, options).await.map_err(a11y_error);
    }
    let apps = backend.applications().await.map_err(a11y_error)?;
    let m = Matcher::new(sel).map_err(|e| CliError::usage(e.to_string()))?;
    let mut scopes = Vec::new();
    let mut near: Vec<(f64, String)> = Vec::new();
    for a in &apps {
        if !m.matches_app(&a.name) {
            near.push((m.app_similarity(&a.name), format!("app {:?}", a.name)));
            continue;
        }
        if sel.window.is_none() {
            scopes.push(Scope::App(a.id.clone()));
            continue;
        }
        for w in &a.windows {
            if m.matches_window(&w.title) {
                scopes.push(Scope::Subtree(w.id.clone()));
            } else {
                near.push((m.window_similarity(&w.title), format!("window {:?} of app {:?}", w.title, a.name)));
            }
        }
    }
    if scopes.is_empty() {
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        let list: Vec<String> = near.into_iter().take(selector::MAX_CANDIDATES).map(|(_, s)| s).collect();
        let what =
            selector::format(&Selector { app: sel.app.clone(), window: sel.window.clone(), ..Selector::default() });
        return Err(CliError::new(
            Exit::NotFound,
            if list.is_empty() {
                format!("nothing matches `{what}`: no application is on the accessibility bus")
            } else {
                format!("nothing matches `{what}`; there are: {}", list.join(", "))
            },
        ));
    }
    let mut trees = Vec::new();
    for s in &scopes {
        match backend.snapshot(s, options).await {
            Ok(t) => trees.push(t),
            Err(A11yError::AppGone { .. } | A11yError::Stale { .. }) if scopes.len() > 1 => {}
            Err(e) => return Err(a11y_error(e)),
        }
    }
    Ok(Tree::merge(trees))
}

#[cfg(test)]
mod tests {
    use deft_types::{Role, States};

    use super::*;

    fn apps() -> Vec<AppInfo> {
        let window = |title: &str| deft_a11y::WindowInfo {
            id: ElementId(format!(":1.1|/{title}")),
            title: title.to_string(),
            role: Role::new("frame"),
            states: States::new(),
            bounds: None,
        };
        vec![AppInfo {
            id: ElementId(":1.1|/root".into()),
            name: "deft-fixture".into(),
            pid: None,
            windows: vec![window("Deft Fixture")],
            problem: None,
        }]
    }

    fn exact(s: &str) -> Option<TextMatch> {
        Some(TextMatch::Exact(s.into()))
    }

    #[test]
    fn app_may_name_a_window_title() {
        let sel = Selector { app: exact("Deft Fixture"), name: exact("Hello"), ..Selector::default() };
        let got = app_as_window(&apps(), sel).unwrap();
        assert_eq!(got, Selector { window: exact("Deft Fixture"), name: exact("Hello"), ..Selector::default() });
        // A real app name stays an app name; an unknown one is left for resolution to report.
        for app in ["deft-fixture", "nothing"] {
            let sel = Selector { app: exact(app), ..Selector::default() };
            assert_eq!(app_as_window(&apps(), sel.clone()).unwrap(), sel);
        }
    }

    #[test]
    fn short_ids() {
        assert!(is_short_id("42"));
        assert!(!is_short_id(":1.2|/org/a11y/atspi/accessible/42"));
    }

    #[test]
    fn resolution_errors_have_exit_codes_and_candidates() {
        let c = selector::Candidate {
            id: ElementId(":1.1|/7".into()),
            role: Role::new("push_button"),
            name: "Submit order".into(),
            app: "deft-fixture".into(),
            window: Some("Deft Fixture".into()),
            path: vec![0, 2],
            score: 0.8,
        };
        let e = resolve_error(ResolveError::NotFound { selector: "name=Sumbit".into(), candidates: vec![c.clone()] });
        assert_eq!(e.exit, Exit::NotFound);
        assert_eq!(e.candidates[0].selector, "app=deft-fixture window=\"Deft Fixture\" path=0/2");
        let e =
            resolve_error(ResolveError::Ambiguous { selector: "role=push_button".into(), matches: vec![c.clone(), c] });
        assert_eq!(e.exit, Exit::Ambiguous);
        assert_eq!(e.candidates.len(), 2);
        let bus = a11y_error(A11yError::BusUnavailable { detail: "x".into() });
        assert_eq!(bus.exit, Exit::Environment);
    }
}
