//! One D-Bus call under a timeout, its failures sorted into what they mean for Deft.

use std::time::Duration;

use deft_types::ElementId;
use serde::Serialize;
use zbus::zvariant::DynamicType;
use zbus::{Connection, Message};

use crate::error::A11yError;

/// AT-SPI interface names.
pub(crate) mod iface {
    pub const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
    pub const ACTION: &str = "org.a11y.atspi.Action";
    pub const APPLICATION: &str = "org.a11y.atspi.Application";
    pub const CACHE: &str = "org.a11y.atspi.Cache";
    pub const COMPONENT: &str = "org.a11y.atspi.Component";
    pub const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
    pub const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
    pub const REGISTRY: &str = "org.a11y.atspi.Registry";
    pub const SELECTION: &str = "org.a11y.atspi.Selection";
    pub const TABLE: &str = "org.a11y.atspi.Table";
    pub const TEXT: &str = "org.a11y.atspi.Text";
    pub const VALUE: &str = "org.a11y.atspi.Value";
}

/// Where an application's root accessible lives.
pub(crate) const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
/// Where the cache of an application lives.
pub(crate) const CACHE_PATH: &str = "/org/a11y/atspi/cache";
/// The path of the null object reference.
pub(crate) const NULL_PATH: &str = "/org/a11y/atspi/null";
/// The registry daemon's bus name.
pub(crate) const REGISTRY: &str = "org.a11y.atspi.Registry";

/// Why a call failed, before it is given its context.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fail {
    /// No answer within the timeout.
    Timeout(Duration),
    /// The object does not exist (any more).
    NoObject,
    /// The object does not implement the method (or its interface).
    NoMethod,
    /// The peer is gone: its name has no owner, or its direct connection closed.
    Gone(String),
    /// Anything else.
    Other(String),
}

/// In words, for messages a person reads (never the variant's Rust name).
impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::Timeout(after) => write!(f, "no answer within {} ms", after.as_millis()),
            Fail::NoObject => f.write_str("the object does not exist (any more)"),
            Fail::NoMethod => f.write_str("the object does not implement the call"),
            Fail::Gone(detail) => write!(f, "the application is gone ({detail})"),
            Fail::Other(detail) => f.write_str(detail),
        }
    }
}

impl Fail {
    /// The error for a call about element `id` of app `app` doing `what`.
    pub fn into_error(self, what: &str, id: Option<&ElementId>, app: &str) -> A11yError {
        match (self, id) {
            (Fail::Timeout(after), _) => A11yError::Timeout { what: what.to_string(), after },
            (Fail::NoObject, Some(id)) => A11yError::Stale { id: id.clone() },
            (Fail::NoObject, None) => {
                A11yError::AppGone { app: app.to_string(), detail: "its root object is gone".into() }
            }
            (Fail::NoMethod, Some(id)) => A11yError::NotSupported { id: id.clone(), what: what.to_string() },
            (Fail::NoMethod, None) => {
                A11yError::Backend { what: what.to_string(), detail: "the application does not implement it".into() }
            }
            (Fail::Gone(detail), _) => A11yError::AppGone { app: app.to_string(), detail },
            (Fail::Other(detail), _) => A11yError::Backend { what: what.to_string(), detail },
        }
    }
}

/// How many calls may wait on one application's answer at once. A read sends every call
/// of a tree together, and an application answers them one by one: with thousands in its
/// queue (LibreOffice Calc: 2,369 elements, five calls each with relations), the last
/// waited longer than the per-call timeout under load, and a busy app was taken for a hung
/// one. Past this many, calls wait their turn here, where no timeout runs; the app's own
/// answer is what the timeout measures.
const IN_FLIGHT_PER_APP: usize = 32;

/// The turnstile of calls to `dest` (one per application bus name).
fn turnstile(dest: &str) -> std::sync::Arc<tokio::sync::Semaphore> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    static ALL: OnceLock<Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>> = OnceLock::new();
    let mut all = ALL.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if all.len() > 1024 {
        // Bus names are not reused; applications that left keep no turnstile forever.
        all.retain(|_, s| Arc::strong_count(s) > 1);
    }
    Arc::clone(all.entry(dest.to_string()).or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT_PER_APP))))
}

/// Call `iface.method(body)` on `dest` at `path`, waiting at most `timeout` for its answer
/// (after its turn: see [`IN_FLIGHT_PER_APP`]).
pub(crate) async fn call<B>(
    conn: &Connection,
    timeout: Duration,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<Message, Fail>
where
    B: Serialize + DynamicType,
{
    let turnstile = turnstile(dest);
    let _turn = turnstile.acquire().await.map_err(|e| Fail::Other(e.to_string()))?;
    let reply = tokio::time::timeout(timeout, conn.call_method(Some(dest), path, Some(iface), method, body)).await;
    match reply {
        Err(_) => Err(Fail::Timeout(timeout)),
        Ok(Ok(msg)) => Ok(msg),
        Ok(Err(e)) => Err(classify(e)),
    }
}

/// Like [`call`], then deserialize the reply body.
pub(crate) async fn call_as<B, R>(
    conn: &Connection,
    timeout: Duration,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<R, Fail>
where
    B: Serialize + DynamicType,
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
{
    let msg = call(conn, timeout, dest, path, iface, method, body).await?;
    msg.body().deserialize::<R>().map_err(|e| Fail::Other(format!("unexpected reply to {iface}.{method}: {e}")))
}

/// Read one property.
pub(crate) async fn property<R>(
    conn: &Connection,
    timeout: Duration,
    dest: &str,
    path: &str,
    interface: &str,
    name: &str,
) -> Result<R, Fail>
where
    R: TryFrom<zbus::zvariant::OwnedValue>,
    R::Error: std::fmt::Display,
{
    let v: zbus::zvariant::OwnedValue =
        call_as(conn, timeout, dest, path, iface::PROPERTIES, "Get", &(interface, name)).await?;
    R::try_from(v).map_err(|e| Fail::Other(format!("unexpected type of property {interface}.{name}: {e}")))
}

fn classify(e: zbus::Error) -> Fail {
    match &e {
        zbus::Error::MethodError(name, detail, _) => {
            let detail = detail.clone().unwrap_or_default();
            match name.as_str() {
                "org.freedesktop.DBus.Error.UnknownObject" => Fail::NoObject,
                "org.freedesktop.DBus.Error.UnknownMethod"
                | "org.freedesktop.DBus.Error.UnknownInterface"
                | "org.freedesktop.DBus.Error.UnknownProperty"
                | "org.freedesktop.DBus.Error.NotSupported" => Fail::NoMethod,
                "org.freedesktop.DBus.Error.ServiceUnknown"
                | "org.freedesktop.DBus.Error.NameHasNoOwner"
                | "org.freedesktop.DBus.Error.NoReply"
                | "org.freedesktop.DBus.Error.Disconnected" => Fail::Gone(format!("{name}: {detail}")),
                _ => Fail::Other(format!("{name}: {detail}")),
            }
        }
        zbus::Error::FDO(fdo) => match fdo.as_ref() {
            zbus::fdo::Error::UnknownObject(_) => Fail::NoObject,
            zbus::fdo::Error::UnknownMethod(_)
            | zbus::fdo::Error::UnknownInterface(_)
            | zbus::fdo::Error::UnknownProperty(_)
            | zbus::fdo::Error::NotSupported(_) => Fail::NoMethod,
            zbus::fdo::Error::ServiceUnknown(_)
            | zbus::fdo::Error::NameHasNoOwner(_)
            | zbus::fdo::Error::NoReply(_)
            | zbus::fdo::Error::Disconnected(_) => Fail::Gone(e.to_string()),
            _ => Fail::Other(e.to_string()),
        },
        zbus::Error::InputOutput(_) => Fail::Gone(format!("its connection closed ({e})")),
        _ => Fail::Other(e.to_string()),
    }
}

/// An element id for object `path` of the application on bus name `bus`.
pub(crate) fn element_id(bus: &str, path: &str) -> ElementId {
    ElementId(format!("{bus}|{path}"))
}

/// The bus name and object path of an id made by [`element_id`].
pub(crate) fn split_id(id: &ElementId) -> Result<(&str, &str), A11yError> {
    let invalid = |why: &str| A11yError::InvalidId { id: id.clone(), why: why.to_string() };
    let (bus, path) = id.0.split_once('|').ok_or_else(|| invalid("expected `bus_name|/object/path`"))?;
    if bus.is_empty() || !path.starts_with('/') {
        return Err(invalid("expected `bus_name|/object/path`"));
    }
    // A D-Bus object path: `/`, or elements of letters, digits and `_` after each `/`.
    // Checked here so a pasted id with a space or a second id in it is said to be wrong
    // at once, not retried as a failing call.
    let element_ok = |e: &str| !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let bus_ok = !bus.contains(char::is_whitespace) && bus.len() <= 255;
    if !bus_ok || (path != "/" && !path[1..].split('/').all(element_ok)) {
        return Err(invalid("not an id as `find` prints it (bus_name|/object/path, letters, digits and _ only)"));
    }
    Ok((bus, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_bad_ids_are_named() {
        let id = element_id(":1.7", "/org/a11y/atspi/accessible/12");
        assert_eq!(split_id(&id).unwrap(), (":1.7", "/org/a11y/atspi/accessible/12"));
        for bad in ["", "no-bar", "|/x", ":1.2|relative", ":1.0|/a/2 :1.0|/a/3", ":1.0|/a//b", ":1.0|/a/"] {
            let err = split_id(&ElementId(bad.into())).unwrap_err();
            assert!(matches!(err, A11yError::InvalidId { .. }), "{bad}: {err}");
        }
        let stale = Fail::NoObject.into_error("reading", Some(&id), ":1.7");
        assert!(matches!(stale, A11yError::Stale { .. }));
    }
}
