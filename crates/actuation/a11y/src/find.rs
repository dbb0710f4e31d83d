//! Resolution: from a selector to the one element it means, against a live backend. The
//! only place that scopes a read by a selector's `app` and `window` and picks among matches;
//! the executor, the CLI and every other face resolve through it.
//!
//! Two conveniences are part of resolution, so every face gets them:
//!
//! - `app` also accepts the title of one of the app's windows: people know "Deft Fixture",
//!   not the program name `deft-fixture`. When no application's name matches but a
//!   window's title does, the term is read as `window`.
//! - `window` also accepts a dialog's title as its title bar shows it, when the toolkit
//!   names the dialog otherwise (GTK's message dialogs: "Question").
//! - `id` also accepts the short numeric id (the last segment of an AT-SPI object path, as
//!   `read` prints it): `id=42` names the element of the scope whose id ends in `/42`.

use deft_types::{Candidate, Element, ElementId, Role, Selector, TextMatch};
use futures_util::future::join_all;

use crate::Accessibility;
use crate::backend::{AppInfo, Scope, SnapshotOptions, WindowInfo};
use crate::error::A11yError;
use crate::selector::{self, Matcher, Pick, ResolveError, SelectorText};
use crate::tree::Tree;

/// A resolved selector: the snapshot it was resolved in and the element's node.
#[derive(Clone, Debug)]
pub struct Found {
    /// The snapshot (only the apps or windows the selector names).
    pub tree: Tree,
    /// The element's index in `tree`.
    pub index: usize,
    /// The selector as resolved: with the conveniences applied (`app` read as `window`,
    /// a short `id` expanded).
    pub selector: Selector,
    /// The application list read on the way, when one was needed.
    pub apps: Option<Vec<AppInfo>>,
}

impl Found {
    /// The element.
    pub fn element(&self) -> &Element {
        &self.tree.nodes[self.index].element
    }
}

/// What a selector's `app`, `window` and `id` terms scope a read to, read.
#[derive(Clone, Debug)]
pub struct Scoped {
    /// The snapshot of what the terms name (everything when none is set).
    pub tree: Tree,
    /// The selector with the conveniences applied.
    pub selector: Selector,
    /// The application list, when one was read.
    pub apps: Option<Vec<AppInfo>>,
}

/// Resolve `sel` to one element by [`Pick::Natural`]; see [`find_with`].
pub async fn find<A: Accessibility>(
    backend: &A,
    sel: &Selector,
    options: &SnapshotOptions,
) -> Result<Found, A11yError> {
    find_with(backend, sel, options, Pick::Natural).await
}

/// Resolve `sel` to exactly one element under `rule`, reading as little as the selector
/// allows (see [`read_scope`]). Errors: [`ResolveError`] (not found, with the closest
/// candidates; ambiguous, with every match; index out of range), or a backend error.
pub async fn find_with<A: Accessibility>(
    backend: &A,
    sel: &Selector,
    options: &SnapshotOptions,
    rule: Pick,
) -> Result<Found, A11yError> {
    // Boxed: a read's future is large (every snapshot call in flight), and callers nest it
    // deep inside their own (the executor's action future lives on the caller's stack).
    let scoped = Box::pin(read_scope(backend, sel, options)).await?;
    let index = selector::pick(&scoped.tree, &scoped.selector, rule)?;
    Ok(Found { tree: scoped.tree, index, selector: scoped.selector, apps: scoped.apps })
}

/// Every element `sel` matches (its `index` ignored), counted as [`Pick::Natural`] counts
/// them, so that the numbers `find` shows are the ones `index=` takes. No match is
/// [`ResolveError::NotFound`] with the closest candidates.
pub async fn find_all<A: Accessibility>(
    backend: &A,
    sel: &Selector,
    options: &SnapshotOptions,
) -> Result<(Scoped, Vec<usize>), A11yError> {
    let scoped = Box::pin(read_scope(backend, sel, options)).await?;
    let query = Selector { index: None, ..scoped.selector.clone() };
    let found = selector::natural_matches(&scoped.tree, &query)?;
    if found.is_empty() {
        let m = Matcher::new(&query)?;
        let candidates = selector::closest_candidates(&scoped.tree, &m);
        return Err(ResolveError::NotFound { selector: SelectorText(&query).to_string(), candidates }.into());
    }
    Ok((scoped, found))
}

/// Read what `sel`'s scope terms name: with a full `id`, that element's subtree; with
/// `window`, the matching windows; with `app`, the matching apps; otherwise every app. An
/// `app` that matches no application on the bus is [`ResolveError::NoApp`] (listing those
/// that are, and saying what to do about an app without accessibility); a `window` that
/// matches nothing is [`ResolveError::NotFound`] listing the closest windows. Apps that
/// exit while being read are left out when others remain.
pub async fn read_scope<A: Accessibility>(
    backend: &A,
    sel: &Selector,
    options: &SnapshotOptions,
) -> Result<Scoped, A11yError> {
    Matcher::new(sel)?;
    if let Some(id) = sel.id.as_ref().filter(|id| !is_short_id(&id.0)) {
        let tree = backend.snapshot(&Scope::Subtree(id.clone()), options).await.map_err(|e| match e {
            A11yError::Stale { .. } | A11yError::InvalidId { .. } => gone_id(sel),
            e => e,
        })?;
        return Ok(Scoped { tree, selector: sel.clone(), apps: None });
    }
    let needs_apps = sel.app.is_some() || sel.window.is_some();
    let apps = if needs_apps { Some(backend.applications().await?) } else { None };
    let sel = match &apps {
        Some(apps) => window_by_display_title(apps, app_as_window(apps, sel.clone())),
        None => sel.clone(),
    };
    let tree = match &apps {
        None => backend.snapshot(&Scope::All, options).await?,
        Some(apps) => {
            let m = Matcher::new(&sel)?;
            let scopes = scopes_for(apps, &sel, &m)?;
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
        }
    };
    let sel = expand_short_id(&tree, sel)?;
    Ok(Scoped { tree, selector: sel, apps })
}

/// An element id that names nothing (any more): not found, with nothing to suggest.
fn gone_id(sel: &Selector) -> A11yError {
    ResolveError::NotFound { selector: SelectorText(sel).to_string(), candidates: Vec::new() }.into()
}

/// Ids written without the bus name: the last segment of an object path (`42`).
pub fn is_short_id(id: &str) -> bool {
    !id.contains('|') && !id.contains('/')
}

/// The short form of an id that [`is_short_id`] accepts: the numeric last segment of an
/// AT-SPI id (`42` of `:1.5|/org/a11y/atspi/accessible/42`), the whole id otherwise.
pub fn short_id(id: &ElementId) -> &str {
    match id.0.rsplit_once('/') {
        Some((_, last)) if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) => last,
        _ => &id.0,
    }
}

/// A short `id` made whole from the elements of `tree`: the one whose id ends in `/N`.
fn expand_short_id(tree: &Tree, mut sel: Selector) -> Result<Selector, ResolveError> {
    let Some(short) = sel.id.clone().filter(|id| is_short_id(&id.0)) else { return Ok(sel) };
    let ends = |id: &str| id.strip_suffix(short.0.as_str()).is_some_and(|head| head.ends_with(['/', '|']));
    let found: Vec<usize> = (0..tree.len()).filter(|&i| ends(&tree.nodes[i].element.id.0)).collect();
    let text = SelectorText(&sel).to_string();
    match found.as_slice() {
        [one] => {
            sel.id = Some(tree.nodes[*one].element.id.clone());
            Ok(sel)
        }
        // Nothing has it: the selector then matches nothing, with the closest listed.
        [] => Ok(sel),
        many => Err(ResolveError::Ambiguous {
            selector: text,
            matches: many.iter().map(|&i| selector::candidate_of(&tree.nodes[i], 1.0)).collect(),
        }),
    }
}

/// When `app` matches no application's name but does match one of the windows' titles,
/// read it as `window` (unless a window is named too).
pub fn app_as_window(apps: &[AppInfo], sel: Selector) -> Selector {
    let names = apps.iter().map(|a| a.name.as_str());
    let titles = apps.iter().flat_map(|a| &a.windows).map(|w| w.title.as_str());
    app_as_window_among(names, titles, sel)
}

/// When `window` matches no window's accessible name but does match one's title as the
/// display server shows it ([`WindowInfo::display_title`]: GTK's message dialog is
/// "Question" to accessibility and "Confirm order" in its title bar), read it as that
/// window's accessible name: a person names a window by what its title bar says.
pub fn window_by_display_title(apps: &[AppInfo], mut sel: Selector) -> Selector {
    let Some(window) = sel.window.clone() else { return sel };
    let Ok(m) = Matcher::new(&Selector { window: Some(window), ..Selector::default() }) else { return sel };
    let windows = || apps.iter().flat_map(|a| &a.windows);
    if windows().any(|w| m.matches_window(&w.title)) {
        return sel;
    }
    if let Some(w) = windows().find(|w| w.display_title.as_deref().is_some_and(|t| m.matches_window(t))) {
        sel.window = Some(TextMatch::Exact(w.title.clone()));
    }
    sel
}

/// The conveniences of resolution applied to a selector against a tree already read (the
/// whole desktop a wait reads): `app` read as a window's title when no application has
/// that name, a short `id` made whole. What `read_scope` does while it reads, for
/// callers that check a selector against a read of their own (conditions).
pub fn conveniences_in(tree: &Tree, sel: Selector) -> Result<Selector, ResolveError> {
    let names = tree.nodes.iter().map(|n| n.app.as_str());
    let titles = tree.nodes.iter().filter_map(|n| n.window.as_deref());
    let sel = app_as_window_among(names, titles, sel);
    expand_short_id(tree, sel)
}

/// [`app_as_window`] over the application names and window titles a caller has.
fn app_as_window_among<'a>(
    mut names: impl Iterator<Item = &'a str>,
    mut titles: impl Iterator<Item = &'a str>,
    mut sel: Selector,
) -> Selector {
    let Some(app) = sel.app.clone() else { return sel };
    let Ok(m) = Matcher::new(&Selector { app: Some(app.clone()), ..Selector::default() }) else { return sel };
    if names.any(|name| m.matches_app(name)) || sel.window.is_some() {
        return sel;
    }
    let Ok(as_window) = Matcher::new(&Selector { window: Some(app.clone()), ..Selector::default() }) else {
        return sel;
    };
    if titles.any(|title| as_window.matches_window(title)) {
        sel.app = None;
        sel.window = Some(app);
    }
    sel
}

/// The top-level windows `sel`'s `app` and `window` terms name, each with its application,
/// under the same conveniences and errors as a read of that scope ([`read_scope`]): an
/// `app` read as a window's title, a window named by its title bar, an unknown app
/// [`ResolveError::NoApp`], no such window [`ResolveError::NotFound`] with the closest.
pub fn windows_for<'a>(apps: &'a [AppInfo], sel: &Selector) -> Result<Vec<(&'a AppInfo, &'a WindowInfo)>, A11yError> {
    let sel = window_by_display_title(apps, app_as_window(apps, sel.clone()));
    let m = Matcher::new(&sel)?;
    let scopes = scopes_for(apps, &sel, &m)?;
    let named = |a: &AppInfo, w: &WindowInfo| {
        scopes
            .iter()
            .any(|s| matches!(s, Scope::App(id) if *id == a.id) || matches!(s, Scope::Subtree(id) if *id == w.id))
    };
    Ok(apps.iter().flat_map(|a| a.windows.iter().map(move |w| (a, w))).filter(|(a, w)| named(a, w)).collect())
}

/// A window as a candidate, with the selector that names it.
pub fn window_candidate(app: &AppInfo, w: &WindowInfo) -> Candidate {
    Candidate { similarity: 100, ..scope_candidate(&w.id, &w.role, &w.title, &app.name, Some(&w.title)) }
}

/// The snapshot scopes a selector's `app` and `window` terms name.
fn scopes_for(apps: &[AppInfo], sel: &Selector, m: &Matcher) -> Result<Vec<Scope>, A11yError> {
    let not_found = |scored: Vec<(f64, Candidate)>| -> A11yError {
        let scope = Selector { app: sel.app.clone(), window: sel.window.clone(), ..Selector::default() };
        ResolveError::NotFound { selector: SelectorText(&scope).to_string(), candidates: ranked(scored) }.into()
    };
    let chosen: Vec<&AppInfo> = apps.iter().filter(|a| m.matches_app(&a.name)).collect();
    if chosen.is_empty() {
        let app_role = Role::new("application");
        let scored: Vec<(f64, Candidate)> = apps
            .iter()
            .map(|a| (m.app_similarity(&a.name), scope_candidate(&a.id, &app_role, &a.name, &a.name, None)))
            .collect();
        let Some(app) = &sel.app else { return Err(not_found(scored)) };
        let app = SelectorText(&Selector { app: Some(app.clone()), ..Selector::default() }).to_string();
        return Err(ResolveError::NoApp { app: format!("`{app}`"), running: ranked(scored) }.into());
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
                let c = scope_candidate(&w.id, &w.role, &w.title, &a.name, Some(&w.title));
                near.push((m.window_similarity(&w.title), c));
            }
        }
    }
    if scopes.is_empty() {
        return Err(not_found(near));
    }
    Ok(scopes)
}

/// Scored candidates, most similar first, at most [`selector::MAX_CANDIDATES`], each with
/// its similarity.
fn ranked(mut scored: Vec<(f64, Candidate)>) -> Vec<Candidate> {
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let take = scored.into_iter().take(selector::MAX_CANDIDATES);
    take.map(|(score, c)| Candidate { similarity: selector::similarity_percent(score), ..c }).collect()
}

/// An application or window named as a candidate for a scope that matched nothing.
fn scope_candidate(id: &ElementId, role: &Role, name: &str, app: &str, window: Option<&str>) -> Candidate {
    let exact = |s: &str| Some(TextMatch::Exact(s.to_string()));
    let sel = match window {
        Some(w) => Selector { app: exact(app), window: exact(w), ..Selector::default() },
        None => Selector { app: exact(app), ..Selector::default() },
    };
    Candidate {
        id: id.clone(),
        role: role.clone(),
        name: name.to_string(),
        app: app.to_string(),
        window: window.map(str::to_string),
        path: Vec::new(),
        selector: SelectorText(&sel).to_string(),
        similarity: 0,
    }
}

#[cfg(test)]
mod tests {
    use deft_types::{Role, States};

    use super::*;
    use crate::{FakeAccessibility, WindowInfo, demo_tree};

    fn apps() -> Vec<AppInfo> {
        let window = |title: &str| WindowInfo {
            id: ElementId(format!(":1.1|/{title}")),
            title: title.to_string(),
            role: Role::new("frame"),
            states: States::new(),
            bounds: None,
            display_title: None,
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

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    }

    #[test]
    fn app_may_name_a_window_title() {
        let sel = Selector { app: exact("Deft Fixture"), name: exact("Hello"), ..Selector::default() };
        let got = app_as_window(&apps(), sel);
        assert_eq!(got, Selector { window: exact("Deft Fixture"), name: exact("Hello"), ..Selector::default() });
        // A real app name stays an app name; an unknown one is left for resolution to report.
        for app in ["deft-fixture", "nothing"] {
            let sel = Selector { app: exact(app), ..Selector::default() };
            assert_eq!(app_as_window(&apps(), sel.clone()), sel);
        }
    }

    #[test]
    fn the_windows_a_scope_names_come_with_the_same_conveniences_and_errors_as_a_read() {
        let titles = |sel: Selector| -> Vec<String> {
            windows_for(&apps(), &sel).unwrap().iter().map(|(_, w)| w.title.clone()).collect()
        };
        assert_eq!(titles(Selector { app: exact("deft-fixture"), ..Selector::default() }), ["Deft Fixture"]);
        assert_eq!(titles(Selector { app: exact("Deft Fixture"), ..Selector::default() }), ["Deft Fixture"]);
        let apps = apps();
        let unknown = windows_for(&apps, &Selector { app: exact("nothing"), ..Selector::default() });
        assert!(matches!(unknown, Err(A11yError::Resolve(ResolveError::NoApp { .. }))), "{unknown:?}");
        let c = window_candidate(&apps[0], &apps[0].windows[0]);
        assert_eq!(c.selector, "app=deft-fixture window=\"Deft Fixture\"");
    }

    #[test]
    fn a_window_may_be_named_by_its_title_bar() {
        let mut apps = apps();
        apps[0].windows.push(WindowInfo {
            id: ElementId(":1.1|/q".into()),
            title: "Question".into(),
            role: Role::new("alert"),
            states: States::new(),
            bounds: None,
            display_title: Some("Confirm order".into()),
        });
        let sel = Selector { window: exact("Confirm order"), name: exact("OK"), ..Selector::default() };
        assert_eq!(window_by_display_title(&apps, sel).window, exact("Question"));
        // The accessible name still works, and wins when both could match.
        let sel = Selector { window: exact("Question"), ..Selector::default() };
        assert_eq!(window_by_display_title(&apps, sel.clone()), sel);
    }

    #[test]
    fn an_app_not_on_the_bus_says_so_and_what_to_do_instead() {
        // xcalc runs, but gives no accessibility: "no element matches", then nothing to go on.
        let sel = Selector { app: exact("xcalc"), name: exact("7"), ..Selector::default() };
        let m = Matcher::new(&sel).unwrap();
        let err = scopes_for(&apps(), &sel, &m).unwrap_err();
        let A11yError::Resolve(ResolveError::NoApp { running, .. }) = &err else { panic!("{err:?}") };
        assert_eq!(running.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["deft-fixture"]);
        let said = err.to_string();
        assert!(said.contains("`app=xcalc` is on the accessibility bus"), "{said}");
        // In words every face shares (no command-line flags: MCP and Python callers read it too).
        assert!(said.contains("by the text it shows") && said.contains("screen point"), "what to do instead: {said}");
        assert!(!said.contains("--"), "{said}");
        // A window that matches nothing is still "not found", with its near windows.
        let sel = Selector { app: exact("deft-fixture"), window: exact("Nothing"), ..Selector::default() };
        let m = Matcher::new(&sel).unwrap();
        let err = scopes_for(&apps(), &sel, &m).unwrap_err();
        assert!(matches!(err, A11yError::Resolve(ResolveError::NotFound { .. })), "{err:?}");
    }

    #[test]
    fn short_ids() {
        assert!(is_short_id("42"));
        assert!(!is_short_id(":1.2|/org/a11y/atspi/accessible/42"));
        assert_eq!(short_id(&ElementId(":1.5|/org/a11y/atspi/accessible/42".into())), "42");
        assert_eq!(short_id(&ElementId(":1.5|/a/root".into())), ":1.5|/a/root");
    }

    #[test]
    fn resolution_on_the_fake_desktop() {
        let fake = FakeAccessibility::new(demo_tree());
        let opts = SnapshotOptions::default();
        // By the window title given as `app`.
        let cancel = Selector { app: exact("Main"), name: exact("Cancel"), ..Selector::default() };
        let found = run(find(&fake, &cancel, &opts)).unwrap();
        assert_eq!(found.element().name, "Cancel");
        assert_eq!(found.selector.window, exact("Main"));
        // By short id, expanded.
        let short = Selector { id: Some(ElementId("3".into())), ..Selector::default() };
        let found = run(find(&fake, &short, &opts)).unwrap();
        assert_eq!(found.element().id.0, "demo|3");
        // Two OK buttons: ambiguous, every match listed with the selector that picks it.
        let ok = Selector { name: exact("OK"), ..Selector::default() };
        let Err(A11yError::Resolve(ResolveError::Ambiguous { matches, .. })) = run(find(&fake, &ok, &opts)) else {
            panic!("ambiguous expected");
        };
        assert_eq!(matches.len(), 2);
        assert_eq!(matches[1].selector, "app=demo window=Confirm path=0");
        // A window that is not there: the windows that are, as candidates.
        let none = Selector { window: exact("Mian"), ..Selector::default() };
        let Err(A11yError::Resolve(ResolveError::NotFound { candidates, .. })) = run(find(&fake, &none, &opts)) else {
            panic!("not found expected");
        };
        assert_eq!(candidates[0].name, "Main");
        let (scoped, all) = run(find_all(&fake, &ok, &opts)).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(scoped.tree.nodes[all[0]].element.name, "OK");
    }
}
