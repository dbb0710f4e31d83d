//! Applications and windows, one-element reads, operations and the hit test on AT-SPI.

use deft_types::{ElementId, Logical, Point, Rect};
use futures_util::future::join_all;
use zbus::Connection;
use zbus::zvariant::{OwnedObjectPath, Value};

use super::call::{self, Fail, NULL_PATH, ROOT_PATH, iface};
use super::convert::{self, Bits, Ifaces, st};
use super::snapshot;
use super::{AppFacts, Inner};
use crate::backend::{AppInfo, Hit, Operation, WindowInfo};
use crate::error::A11yError;

/// The applications registered on the bus, each read in parallel.
pub(crate) async fn applications(inner: &Inner) -> Result<Vec<AppInfo>, A11yError> {
    let apps: Vec<(String, OwnedObjectPath)> =
        call::call_as(&inner.bus, inner.timeout(), call::REGISTRY, ROOT_PATH, iface::ACCESSIBLE, "GetChildren", &())
            .await
            .map_err(|f| A11yError::BusUnavailable { detail: format!("the AT-SPI registry does not answer: {f}") })?;
    Ok(join_all(apps.iter().map(|(bus, path)| app_info(inner, bus, path.as_str()))).await)
}

async fn app_info(inner: &Inner, bus: &str, path: &str) -> AppInfo {
    let id = call::element_id(bus, path);
    let conn = inner.conn_for(bus).await;
    let t = inner.timeout();
    let name = call::property::<String>(&conn, t, bus, path, iface::ACCESSIBLE, "Name");
    let kids =
        call::call_as::<_, Vec<(String, OwnedObjectPath)>>(&conn, t, bus, path, iface::ACCESSIBLE, "GetChildren", &());
    let (name, kids, facts) = tokio::join!(name, kids, inner.facts(&conn, bus));
    let mut info = AppInfo { id, name: String::new(), pid: facts.pid, windows: Vec::new(), problem: None };
    let (name, kids) = match (name, kids) {
        (Ok(n), Ok(k)) => (n, k),
        (Err(f), _) | (_, Err(f)) => {
            info.problem = Some(inner.error(f, "reading the application", None, bus).await.to_string());
            return info;
        }
    };
    info.name = name;
    let windows = join_all(
        kids.iter()
            .filter(|(_, p)| p.as_str() != NULL_PATH)
            .map(|(b, p)| window_info(inner, &conn, if b.is_empty() { bus } else { b }, p.as_str(), facts)),
    )
    .await;
    for w in windows {
        match w {
            Ok(w) => info.windows.push(w),
            Err(Fail::NoObject) => {} // closed while being listed
            Err(f) => {
                info.problem = Some(inner.error(f, "reading the application's windows", None, bus).await.to_string());
            }
        }
    }
    info
}

async fn window_info(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    facts: AppFacts,
) -> Result<WindowInfo, Fail> {
    let (t, toolkit) = (inner.timeout(), facts.toolkit);
    let title = call::property::<String>(conn, t, bus, path, iface::ACCESSIBLE, "Name");
    let role = call::call_as::<_, u32>(conn, t, bus, path, iface::ACCESSIBLE, "GetRole", &());
    let states = call::call_as::<_, Vec<u32>>(conn, t, bus, path, iface::ACCESSIBLE, "GetState", &());
    let ifaces = interfaces(conn, t, bus, path);
    let (title, role, states, ifaces) = tokio::join!(title, role, states, ifaces);
    let (states, ifaces) = (Bits::from_words(&states?), ifaces?);
    let has_component = ifaces.has(Ifaces::COMPONENT);
    let title = toolkit.name(&title?).to_string();
    // A window is never a menu's entry (the one role GTK 2 leaves to its place).
    let mut bounds = if has_component && toolkit.may_show(states, "window") {
        call::call_as::<_, (i32, i32, i32, i32)>(conn, t, bus, path, iface::COMPONENT, "GetExtents", &(0u32,))
            .await
            .ok()
            .and_then(convert::bounds)
    } else {
        None
    };
    // Whether it is shown depends on its being drawn, not on where.
    let shown = toolkit.states(states, bounds, has_component);
    if let (true, Some(b)) = (facts.window_relative, bounds) {
        // A window whose place is unknown is at no place input could be aimed at.
        bounds = inner
            .placement
            .offset(facts.pid, &title, b.w, b.h)
            .await
            .ok()
            .map(|(dx, dy)| Rect::new(b.x.saturating_add(dx), b.y.saturating_add(dy), b.w, b.h));
    }
    // A window is never a menu item, the one role that needs its children counted.
    let role = toolkit.role(convert::role(role?), &title, -1);
    // Only dialogs: a toolkit names a main window by its title, and the display server's
    // list costs a round trip per window.
    let display_title = match bounds {
        Some(b) if role.is_dialog_like() => inner.placement.display_title(facts.pid, b, &title).await,
        _ => None,
    };
    Ok(WindowInfo { id: call::element_id(bus, path), title, role, bounds, states: shown, display_title })
}

/// The interfaces an object lists, the only ones whose methods Deft calls on it.
async fn interfaces(conn: &Connection, t: std::time::Duration, bus: &str, path: &str) -> Result<Ifaces, Fail> {
    let names: Vec<String> = call::call_as(conn, t, bus, path, iface::ACCESSIBLE, "GetInterfaces", &()).await?;
    Ok(Ifaces::from_names(names.iter().map(String::as_str)))
}

/// One element, read afresh.
pub(crate) async fn element(inner: &Inner, id: &ElementId) -> Result<deft_types::Element, A11yError> {
    snapshot::read_one(inner, id).await
}

/// The `Application.ToolkitName` of the application that owns `id` (its root object).
pub(crate) async fn toolkit(inner: &Inner, id: &ElementId) -> Result<Option<String>, A11yError> {
    let (bus, _) = call::split_id(id)?;
    let conn = inner.conn_for(bus).await;
    let name: Result<String, Fail> =
        call::property(&conn, inner.timeout(), bus, call::ROOT_PATH, iface::APPLICATION, "ToolkitName").await;
    match name {
        Ok(n) if !n.trim().is_empty() => Ok(Some(n.trim().to_string())),
        Ok(_) | Err(Fail::NoMethod) => Ok(None),
        Err(f) => Err(inner.error(f, "reading the toolkit name", Some(id), bus).await),
    }
}

/// Do `op` to element `id`.
///
/// Only with a method of an interface the element lists (libatspi's rule: atk-bridge answers
/// a call of an interface the object lacks with a failed assertion, which Chromium treats as
/// fatal: `SetTextContents` on a Chromium text field crashed the browser). An element that
/// lacks the interface gives [`A11yError::NotSupported`] (or `NoSuchAction`) without any
/// call of it, so the caller can fall back to input.
pub(crate) async fn perform(inner: &Inner, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
    let (bus, path) = call::split_id(id)?;
    let conn = inner.conn_for(bus).await;
    let t = inner.timeout();
    let what = match op {
        Operation::SetText(_) => "setting text (EditableText)".to_string(),
        Operation::InsertText { .. } => "inserting text (EditableText)".to_string(),
        Operation::SetValue(_) => "setting a value (Value)".to_string(),
        Operation::ScrollIntoView => "scrolling into view (Component.ScrollTo)".to_string(),
        Operation::Focus => "taking the focus (Component.GrabFocus)".to_string(),
        Operation::CaretToEnd => "putting the caret after its text (Text.SetCaretOffset)".to_string(),
        Operation::Action(_) => op.describe(),
    };
    let (facts, ifaces) = tokio::join!(inner.facts(&conn, bus), interfaces(&conn, t, bus, path));
    let ifaces = match ifaces {
        Ok(i) => i,
        Err(f) => return Err(inner.error(f, &what, Some(id), bus).await),
    };
    let needed = match op {
        Operation::Action(_) => Ifaces::ACTION,
        Operation::SetText(_) | Operation::InsertText { .. } => Ifaces::EDITABLE_TEXT,
        Operation::SetValue(_) => Ifaces::VALUE,
        Operation::Focus | Operation::ScrollIntoView => Ifaces::COMPONENT,
        Operation::CaretToEnd => Ifaces::TEXT,
    };
    let ignored = matches!(op, Operation::SetText(_) | Operation::InsertText { .. }) && !facts.toolkit.sets_text();
    if ignored {
        let what = format!("{what}: this application accepts it and changes nothing");
        return Err(A11yError::NotSupported { id: id.clone(), what });
    }
    if !ifaces.has(needed) {
        return Err(match op {
            Operation::Action(name) => {
                A11yError::NoSuchAction { id: id.clone(), action: name.clone(), available: Vec::new() }
            }
            _ => A11yError::NotSupported { id: id.clone(), what },
        });
    }
    let index = match op {
        Operation::Action(name) => match action_index(inner, &conn, bus, path, name, facts).await {
            Ok(Ok(i)) => Some(i),
            Ok(Err(available)) => {
                return Err(A11yError::NoSuchAction { id: id.clone(), action: name.clone(), available });
            }
            Err(Fail::NoMethod) => {
                return Err(A11yError::NoSuchAction { id: id.clone(), action: name.clone(), available: Vec::new() });
            }
            Err(f) => return Err(inner.error(f, &what, Some(id), bus).await),
        },
        _ => None,
    };
    // The call that changes something goes on a connection of its own where the toolkit
    // runs it inside the dispatch (see `Inner::operation_conn`).
    let op_conn = inner.operation_conn(bus, facts.toolkit).await;
    let done: Result<bool, Fail> = match op {
        Operation::Action(_) => {
            call::call_as(&op_conn, t, bus, path, iface::ACTION, "DoAction", &(index.unwrap_or(0),)).await
        }
        Operation::SetText(text) => {
            call::call_as(&op_conn, t, bus, path, iface::EDITABLE_TEXT, "SetTextContents", &(text.as_str(),)).await
        }
        Operation::InsertText { at, text } => {
            let at = i32::try_from(*at).unwrap_or(i32::MAX);
            let length = facts.toolkit.insert_length(text);
            let args = (at, text.as_str(), length);
            call::call_as(&op_conn, t, bus, path, iface::EDITABLE_TEXT, "InsertText", &args).await
        }
        Operation::SetValue(v) => {
            let body = (iface::VALUE, "CurrentValue", Value::F64(*v));
            call::call(&op_conn, t, bus, path, iface::PROPERTIES, "Set", &body).await.map(|_| true)
        }
        Operation::Focus => call::call_as(&op_conn, t, bus, path, iface::COMPONENT, "GrabFocus", &()).await,
        // 6 = ATSPI_SCROLL_ANYWHERE: the least movement that makes it visible.
        Operation::ScrollIntoView => {
            call::call_as(&op_conn, t, bus, path, iface::COMPONENT, "ScrollTo", &(6u32,)).await
        }
        Operation::CaretToEnd => {
            match call::property::<i32>(&conn, t, bus, path, iface::TEXT, "CharacterCount").await {
                Ok(count) => call::call_as(&op_conn, t, bus, path, iface::TEXT, "SetCaretOffset", &(count,)).await,
                Err(f) => Err(f),
            }
        }
    };
    match done {
        Ok(true) => Ok(()),
        // A refusal from a destroyed widget is staleness, not a refusal.
        Ok(false) => match defunct(inner, &conn, bus, path).await {
            true => Err(A11yError::Stale { id: id.clone() }),
            false => Err(A11yError::Refused { id: id.clone(), what }),
        },
        Err(f) => Err(inner.error(f, &what, Some(id), bus).await),
    }
}

/// The index of the action Deft calls `name` ([`Toolkit::action_index`]: the toolkit's
/// name, or `click` for its default action), or the names there are. Matched on names,
/// never on localized descriptions; case-insensitively.
async fn action_index(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    name: &str,
    facts: AppFacts,
) -> Result<Result<i32, Vec<String>>, Fail> {
    let tk = facts.toolkit;
    let names = snapshot::action_names(inner, conn, bus, path, facts.english).await?;
    if let Some(i) = tk.action_index(&names, name) {
        return Ok(Ok(i));
    }
    // The localized names may differ from the names even in English: ask each.
    let exact = snapshot::real_action_names(inner, conn, bus, path, names).await?;
    match tk.action_index(&exact, name) {
        Some(i) => Ok(Ok(i)),
        None => Ok(Err(tk.actions(&exact).into_iter().map(|(n, _)| n).collect())),
    }
}

/// The path of an object's parent in the same application, if it has one.
async fn parent_of(conn: &Connection, t: std::time::Duration, bus: &str, path: &str) -> Result<Option<String>, Fail> {
    let parent: (String, OwnedObjectPath) = call::property(conn, t, bus, path, iface::ACCESSIBLE, "Parent").await?;
    let (b, p) = parent;
    Ok((p.as_str() != NULL_PATH && (b.is_empty() || b == bus)).then(|| p.as_str().to_string()))
}

/// The ancestors from just below `top` down to `from` (included), top first, read one
/// `Parent` at a time; stops at `window` or after 32 levels (a toolkit whose parents do not
/// lead back keeps the partial chain).
async fn ancestors_between(
    conn: &Connection,
    t: std::time::Duration,
    bus: &str,
    from: &str,
    top: &str,
    window: &str,
) -> Result<Vec<String>, Fail> {
    let mut up = vec![from.to_string()];
    for _ in 0..32 {
        let last = up.last().map(String::as_str).unwrap_or(from);
        match parent_of(conn, t, bus, last).await? {
            Some(p) if p == top || p == window => break,
            Some(p) => up.push(p),
            None => break,
        }
    }
    up.reverse();
    Ok(up)
}

async fn defunct(inner: &Inner, conn: &Connection, bus: &str, path: &str) -> bool {
    match call::call_as::<_, Vec<u32>>(conn, inner.timeout(), bus, path, iface::ACCESSIBLE, "GetState", &()).await {
        Ok(words) => Bits::from_words(&words).has(st::DEFUNCT),
        Err(f) => f == Fail::NoObject,
    }
}

/// The element drawn at `point`: of the windows containing it, the one the display server
/// shows on top there (AT-SPI does not tell the stacking order; `stacking.rs`), else the
/// active one, then a modal one, then the others; in it, the element at the point is asked
/// for level by level down to the deepest.
pub(crate) async fn hit_test(inner: &Inner, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
    let (apps, stack) = tokio::join!(applications(inner), inner.placement.stack_at(point));
    let apps = apps?;
    let windows: Vec<(Option<u32>, &WindowInfo)> = apps
        .iter()
        .flat_map(|a| a.windows.iter().map(move |w| (a.pid, w)))
        .filter(|(_, w)| w.bounds.is_some_and(|b| b.contains(point)))
        .collect();
    let order = super::stacking::stacking_order(&windows, stack.as_deref());
    let Some(w) = order.first().map(|&i| windows[i].1) else { return Ok(None) };
    let (bus, mut path) = {
        let (b, p) = call::split_id(&w.id)?;
        (b.to_string(), p.to_string())
    };
    let conn = inner.conn_for(&bus).await;
    let t = inner.timeout();
    // A toolkit with window-relative extents takes the point in the window's coordinates.
    let facts = inner.facts(&conn, &bus).await;
    let asked = match (facts.window_relative, w.bounds) {
        (true, Some(b)) => match inner.placement.offset(facts.pid, &w.title, b.w, b.h).await {
            Ok((dx, dy)) => Point::new(point.x - dx, point.y - dy),
            // Its bounds were placed a moment ago; the window list changed since.
            Err(_) => return Ok(None),
        },
        _ => point,
    };
    let window = path.clone();
    let mut chain = vec![w.id.clone()];
    for depth in 0..64 {
        // The window lists Component (it has bounds); below it, ask before each call, and
        // ask for the parent too: GTK 4 answers with the deepest element at once, and the
        // chain must still hold its ancestors (a click on a button's label is on the button).
        if depth > 0 {
            let (ifaces, parent) = tokio::join!(interfaces(&conn, t, &bus, &path), parent_of(&conn, t, &bus, &path));
            // `path` is the chain's last element; the one before it is where it was found.
            let above = chain.len() - 2;
            let found_in = call::split_id(&chain[above])?.1.to_string();
            match parent {
                Ok(Some(p)) if p != found_in => {
                    let missing = match ancestors_between(&conn, t, &bus, &p, &found_in, &window).await {
                        Ok(m) => m,
                        Err(f) => return Err(inner.error(f, "hit testing", chain.last(), &bus).await),
                    };
                    for (i, a) in missing.into_iter().enumerate() {
                        chain.insert(above + 1 + i, call::element_id(&bus, &a));
                    }
                }
                Ok(_) | Err(Fail::NoMethod) => {}
                Err(f) => return Err(inner.error(f, "hit testing", chain.last(), &bus).await),
            }
            match ifaces {
                Ok(i) if i.has(Ifaces::COMPONENT) => {}
                Ok(_) => break,
                Err(f) => return Err(inner.error(f, "hit testing", chain.last(), &bus).await),
            }
        }
        let at: Result<(String, OwnedObjectPath), Fail> =
            call::call_as(&conn, t, &bus, &path, iface::COMPONENT, "GetAccessibleAtPoint", &(asked.x, asked.y, 0u32))
                .await;
        match at {
            Ok((b, p)) if p.as_str() != NULL_PATH && p.as_str() != path => {
                if !b.is_empty() && b != bus {
                    break; // another application's plug: stop at the socket
                }
                path = p.as_str().to_string();
                chain.push(call::element_id(&bus, &path));
            }
            Ok(_) | Err(Fail::NoMethod) if facts.toolkit.hit_test_stops_early() => {
                match child_at(inner, &conn, &bus, &path, asked, 0).await {
                    Ok(Some(child)) => {
                        path = child;
                        chain.push(call::element_id(&bus, &path));
                    }
                    Ok(None) => break,
                    Err(f) => return Err(inner.error(f, "hit testing", chain.last(), &bus).await),
                }
            }
            Ok(_) | Err(Fail::NoMethod) => break,
            Err(f) => return Err(inner.error(f, "hit testing", chain.last(), &bus).await),
        }
    }
    let id = chain.last().cloned().unwrap_or_else(|| w.id.clone());
    let element = snapshot::read_one(inner, &id).await?;
    Ok(Some(Hit { element, chain }))
}

/// The child of `path` drawn at `point`, by the children's extents, for a toolkit whose
/// `GetAccessibleAtPoint` stops above it: among the showing children with the Component
/// interface whose extents hold the point, the last (drawn over the earlier ones). A child
/// without extents may still hold what is drawn (Firefox's page body reads
/// `(-1, -1, -1, -1)` and not showing, its sections showing inside it): it is looked
/// through, at most [`LOOK_THROUGH`] levels down.
fn child_at<'a>(
    inner: &'a Inner,
    conn: &'a Connection,
    bus: &'a str,
    path: &'a str,
    point: Point<Logical>,
    depth: usize,
) -> futures_util::future::BoxFuture<'a, Result<Option<String>, Fail>> {
    Box::pin(async move {
        let t = inner.timeout();
        let kids = match super::children::list(inner, conn, bus, path, -1).await {
            Ok(l) => l.kids,
            Err(Fail::NoObject) => return Ok(None),
            Err(f) => return Err(f),
        };
        // Per child: its bounds when it has some and shows them; `None` when it has none.
        let probes = join_all(kids.iter().map(|k| async move {
            let (ifaces, states) = tokio::join!(
                interfaces(conn, t, bus, k),
                call::call_as::<_, Vec<u32>>(conn, t, bus, k, iface::ACCESSIBLE, "GetState", &())
            );
            let showing = states.map(|w| Bits::from_words(&w).has(st::SHOWING)).unwrap_or(false);
            if !ifaces.is_ok_and(|i| i.has(Ifaces::COMPONENT)) {
                return (k, None, showing);
            }
            let extents =
                call::call_as::<_, (i32, i32, i32, i32)>(conn, t, bus, k, iface::COMPONENT, "GetExtents", &(0u32,))
                    .await;
            (k, extents.ok().and_then(convert::bounds), showing)
        }))
        .await;
        let drawn_at = probes.iter().rev().find(|(_, b, showing)| *showing && b.is_some_and(|b| b.contains(point)));
        if let Some((k, ..)) = drawn_at {
            return Ok(Some((*k).clone()));
        }
        if depth >= LOOK_THROUGH {
            return Ok(None);
        }
        for (k, ..) in probes.iter().rev().filter(|(_, b, _)| b.is_none()) {
            if let Some(hit) = child_at(inner, conn, bus, k, point, depth + 1).await? {
                return Ok(Some(hit));
            }
        }
        Ok(None)
    })
}

/// How many levels of elements without extents the hit test looks through.
const LOOK_THROUGH: usize = 3;
