//! Applications and windows, one-element reads, operations and the hit test on AT-SPI.

use deft_types::{ElementId, Logical, Point, State};
use futures_util::future::join_all;
use zbus::Connection;
use zbus::zvariant::{OwnedObjectPath, Value};

use super::Inner;
use super::call::{self, Fail, NULL_PATH, ROOT_PATH, iface};
use super::convert::{self, Bits, Ifaces, st};
use super::snapshot;
use crate::backend::{AppInfo, Hit, Operation, WindowInfo};
use crate::error::A11yError;

/// The applications registered on the bus, each read in parallel.
pub(crate) async fn applications(inner: &Inner) -> Result<Vec<AppInfo>, A11yError> {
    let apps: Vec<(String, OwnedObjectPath)> =
        call::call_as(&inner.bus, inner.timeout(), call::REGISTRY, ROOT_PATH, iface::ACCESSIBLE, "GetChildren", &())
            .await
            .map_err(|f| A11yError::BusUnavailable { detail: format!("the AT-SPI registry does not answer: {f:?}") })?;
    Ok(join_all(apps.iter().map(|(bus, path)| app_info(inner, bus, path.as_str()))).await)
}

async fn app_info(inner: &Inner, bus: &str, path: &str) -> AppInfo {
    let id = call::element_id(bus, path);
    let conn = inner.conn_for(bus).await;
    let t = inner.timeout();
    let name = call::property::<String>(&conn, t, bus, path, iface::ACCESSIBLE, "Name");
    let kids =
        call::call_as::<_, Vec<(String, OwnedObjectPath)>>(&conn, t, bus, path, iface::ACCESSIBLE, "GetChildren", &());
    let pid_arg = (bus,);
    let pid = call::call_as::<_, u32>(
        &inner.bus,
        t,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetConnectionUnixProcessID",
        &pid_arg,
    );
    let (name, kids, pid) = tokio::join!(name, kids, pid);
    let mut info = AppInfo { id, name: String::new(), pid: pid.ok(), windows: Vec::new(), problem: None };
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
            .map(|(b, p)| window_info(&conn, t, if b.is_empty() { bus } else { b }, p.as_str())),
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

async fn window_info(conn: &Connection, t: std::time::Duration, bus: &str, path: &str) -> Result<WindowInfo, Fail> {
    let title = call::property::<String>(conn, t, bus, path, iface::ACCESSIBLE, "Name");
    let role = call::call_as::<_, u32>(conn, t, bus, path, iface::ACCESSIBLE, "GetRole", &());
    let states = call::call_as::<_, Vec<u32>>(conn, t, bus, path, iface::ACCESSIBLE, "GetState", &());
    let extents =
        call::call_as::<_, (i32, i32, i32, i32)>(conn, t, bus, path, iface::COMPONENT, "GetExtents", &(0u32,));
    let (title, role, states, extents) = tokio::join!(title, role, states, extents);
    let states = Bits::from_words(&states?);
    Ok(WindowInfo {
        id: call::element_id(bus, path),
        title: title?,
        role: convert::role(role?),
        bounds: extents.ok().filter(|_| states.has(st::SHOWING)).and_then(convert::bounds),
        states: states.states(),
    })
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
pub(crate) async fn perform(inner: &Inner, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
    let (bus, path) = call::split_id(id)?;
    let conn = inner.conn_for(bus).await;
    let t = inner.timeout();
    let what = op.describe();
    let done: Result<bool, Fail> = match op {
        Operation::Action(name) => {
            let index = match action_index(inner, &conn, bus, path, name).await {
                Ok(Ok(i)) => i,
                Ok(Err(available)) => {
                    return Err(A11yError::NoSuchAction { id: id.clone(), action: name.clone(), available });
                }
                Err(Fail::NoMethod) => {
                    return Err(A11yError::NoSuchAction {
                        id: id.clone(),
                        action: name.clone(),
                        available: Vec::new(),
                    });
                }
                Err(f) => return Err(inner.error(f, &what, Some(id), bus).await),
            };
            call::call_as(&conn, t, bus, path, iface::ACTION, "DoAction", &(index,)).await
        }
        Operation::SetText(text) => {
            call::call_as(&conn, t, bus, path, iface::EDITABLE_TEXT, "SetTextContents", &(text.as_str(),)).await
        }
        Operation::SetValue(v) => {
            // Setting a property of an interface the object lacks is silently accepted:
            // ask first.
            let ifaces: Result<Vec<String>, Fail> =
                call::call_as(&conn, t, bus, path, iface::ACCESSIBLE, "GetInterfaces", &()).await;
            match ifaces {
                Ok(names) if Ifaces::from_names(names.iter().map(String::as_str)).has(Ifaces::VALUE) => {
                    let body = (iface::VALUE, "CurrentValue", Value::F64(*v));
                    call::call(&conn, t, bus, path, iface::PROPERTIES, "Set", &body).await.map(|_| true)
                }
                Ok(_) => Err(Fail::NoMethod),
                Err(f) => Err(f),
            }
        }
        Operation::Focus => call::call_as(&conn, t, bus, path, iface::COMPONENT, "GrabFocus", &()).await,
        // 6 = ATSPI_SCROLL_ANYWHERE: the least movement that makes it visible.
        Operation::ScrollIntoView => call::call_as(&conn, t, bus, path, iface::COMPONENT, "ScrollTo", &(6u32,)).await,
    };
    let what = match op {
        Operation::SetText(_) => "setting text (EditableText)".to_string(),
        Operation::SetValue(_) => "setting a value (Value)".to_string(),
        Operation::ScrollIntoView => "scrolling into view (Component.ScrollTo)".to_string(),
        _ => what,
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

/// The index of the action called `name`, or the names there are. Matched on the action's
/// name (`click`), never on its localized description; case-insensitively.
async fn action_index(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    name: &str,
) -> Result<Result<i32, Vec<String>>, Fail> {
    let english = inner.english(conn, bus).await;
    let names = snapshot::action_names(inner, conn, bus, path, english).await?;
    let want = name.to_lowercase();
    if let Some(i) = names.iter().position(|n| n.to_lowercase() == want) {
        return Ok(Ok(i as i32));
    }
    if english {
        // The localized names may differ from the names even in English: ask each.
        let t = inner.timeout();
        let exact = join_all((0..names.len() as i32).map(|i| async move {
            call::call_as::<_, String>(conn, t, bus, path, iface::ACTION, "GetName", &(i,)).await
        }))
        .await;
        let exact: Vec<String> = exact.into_iter().collect::<Result<_, _>>()?;
        if let Some(i) = exact.iter().position(|n| n.to_lowercase() == want) {
            return Ok(Ok(i as i32));
        }
        return Ok(Err(exact));
    }
    Ok(Err(names))
}

async fn defunct(inner: &Inner, conn: &Connection, bus: &str, path: &str) -> bool {
    match call::call_as::<_, Vec<u32>>(conn, inner.timeout(), bus, path, iface::ACCESSIBLE, "GetState", &()).await {
        Ok(words) => Bits::from_words(&words).has(st::DEFUNCT),
        Err(f) => f == Fail::NoObject,
    }
}

/// The element drawn at `point`: the windows containing it are tried active first, then
/// modal, then the others (AT-SPI does not tell the stacking order); in each, the element
/// at the point is asked for level by level down to the deepest.
pub(crate) async fn hit_test(inner: &Inner, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
    let apps = applications(inner).await?;
    let mut windows: Vec<(usize, &WindowInfo)> = apps
        .iter()
        .flat_map(|a| a.windows.iter())
        .filter(|w| w.bounds.is_some_and(|b| b.contains(point)))
        .enumerate()
        .collect();
    windows
        .sort_by_key(|(i, w)| (!w.states.contains(&State::Active), !w.states.contains(&State::Modal), usize::MAX - i));
    let Some((_, w)) = windows.into_iter().next() else { return Ok(None) };
    let (bus, mut path) = {
        let (b, p) = call::split_id(&w.id)?;
        (b.to_string(), p.to_string())
    };
    let conn = inner.conn_for(&bus).await;
    let mut chain = vec![w.id.clone()];
    for _ in 0..64 {
        let at: Result<(String, OwnedObjectPath), Fail> = call::call_as(
            &conn,
            inner.timeout(),
            &bus,
            &path,
            iface::COMPONENT,
            "GetAccessibleAtPoint",
            &(point.x, point.y, 0u32),
        )
        .await;
        match at {
            Ok((b, p)) if p.as_str() != NULL_PATH && p.as_str() != path => {
                if !b.is_empty() && b != bus {
                    break; // another application's plug: stop at the socket
                }
                path = p.as_str().to_string();
                chain.push(call::element_id(&bus, &path));
            }
            Ok(_) | Err(Fail::NoMethod) => break,
            Err(f) => return Err(inner.error(f, "hit testing", chain.last(), &bus).await),
        }
    }
    let id = chain.last().cloned().unwrap_or_else(|| w.id.clone());
    let element = snapshot::read_one(inner, &id).await?;
    Ok(Some(Hit { element, chain }))
}
