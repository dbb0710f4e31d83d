//! The desktop portal's remote desktop (`org.freedesktop.portal.RemoteDesktop` with
//! `org.freedesktop.portal.ScreenCast`): input on any Wayland desktop whose portal backend
//! implements it (KDE's, GNOME's, wlroots' where built with it), at the price of a consent
//! dialog the person answers once. Its `restore_token` (portal version 2) lets a later
//! session start without asking again: the caller keeps it and hands it back.
//!
//! Every portal call that needs the person answers through a `Request` object whose
//! `Response` signal comes later; its path is known before the call (the sender's name and
//! a token of ours), so the signal is subscribed to first and never missed. Absolute
//! pointer motion is relative to a screen-cast stream: the session selects one monitor,
//! whose place and size the answer gives.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

use futures_util::StreamExt;
use zbus::zvariant::{ObjectPath, OwnedObjectPath, OwnedValue, Value};

use crate::mutter::{Event, Monitor, said, session_bus};

const DEST: &str = "org.freedesktop.portal.Desktop";
const PATH: &str = "/org/freedesktop/portal/desktop";
const RD: &str = "org.freedesktop.portal.RemoteDesktop";
const SC: &str = "org.freedesktop.portal.ScreenCast";
const REQUEST: &str = "org.freedesktop.portal.Request";
const SESSION: &str = "org.freedesktop.portal.Session";

/// How long the person has to answer the consent dialog.
const CONSENT_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// Device types: keyboard and pointer.
const KEYBOARD_AND_POINTER: u32 = 1 | 2;
/// Persist the permission until revoked (portal version 2).
const PERSIST_UNTIL_REVOKED: u32 = 2;

/// A started portal session.
pub(crate) struct Session {
    rd: zbus::Proxy<'static>,
    handle: OwnedObjectPath,
    stream: u32,
    pub(crate) monitor: Monitor,
    /// The token that starts the next session without a dialog, when the portal gave one.
    pub(crate) restore_token: Option<String>,
    connection: zbus::Connection,
}

/// Tokens unique within this process.
fn token(what: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("deft_{what}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

impl Session {
    /// Starts a remote desktop session with the portal on the bus at `address` (`None`: the
    /// session bus), keyboard and pointer, one monitor for absolute motion, handing
    /// `restore` (a token an earlier session gave) so the portal need not ask again.
    pub(crate) async fn start(address: Option<&str>, restore: Option<&str>) -> Result<Session, String> {
        let connection = session_bus(address).await?;
        let proxy = |iface: &'static str| {
            let connection = connection.clone();
            async move {
                zbus::Proxy::new(&connection, DEST, PATH, iface).await.map_err(said("cannot reach the desktop portal"))
            }
        };
        let rd = proxy(RD).await?;
        let sc = proxy(SC).await?;
        let version: u32 = rd.get_property("version").await.map_err(|e| {
            format!("the session bus has no desktop portal with a remote desktop (org.freedesktop.portal.RemoteDesktop): {e}")
        })?;
        let devices: u32 = rd.get_property("AvailableDeviceTypes").await.unwrap_or(0);
        if devices & KEYBOARD_AND_POINTER != KEYBOARD_AND_POINTER {
            return Err(format!(
                "the desktop portal's remote desktop offers device types {devices:#b}, not both a keyboard and a pointer"
            ));
        }
        let mut s = Asking { connection: &connection };
        let created = s
            .ask(&rd, "CreateSession", |t| {
                Ok((HashMap::from([("handle_token", v(t)), ("session_handle_token", v(&token("session")))]),))
            })
            .await?;
        let handle = created
            .get("session_handle")
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
            .and_then(|s| OwnedObjectPath::try_from(s).ok())
            .ok_or("the portal created a session without saying its handle")?;
        let h = handle.clone();
        s.ask(&rd, "SelectDevices", move |t| {
            let mut options = HashMap::from([("handle_token", v(t)), ("types", Value::from(KEYBOARD_AND_POINTER))]);
            if version >= 2 {
                options.insert("persist_mode", Value::from(PERSIST_UNTIL_REVOKED));
                if let Some(r) = restore {
                    options.insert("restore_token", v(r));
                }
            }
            Ok((h.clone(), options))
        })
        .await?;
        // One monitor, no cursor drawn in its frames: absolute motion is over it.
        let h = handle.clone();
        s.ask(&sc, "SelectSources", move |t| {
            let options = HashMap::from([
                ("handle_token", v(t)),
                ("types", Value::from(1u32)),
                ("multiple", Value::from(false)),
                ("cursor_mode", Value::from(1u32)),
            ]);
            Ok((h.clone(), options))
        })
        .await?;
        let h = handle.clone();
        let started =
            s.ask(&rd, "Start", move |t| Ok((h.clone(), "", HashMap::from([("handle_token", v(t))])))).await?;
        let (stream, monitor) = stream_of(&started)?;
        let restore_token = started.get("restore_token").and_then(|v| String::try_from(v.try_clone().ok()?).ok());
        Ok(Session { rd, handle, stream, monitor, restore_token, connection })
    }

    pub(crate) async fn send(&self, event: Event) -> Result<(), String> {
        let h = self.handle.as_ref();
        let none: HashMap<&str, Value> = HashMap::new();
        let sent = match event {
            Event::Motion(x, y) => {
                self.rd.call::<_, _, ()>("NotifyPointerMotionAbsolute", &(h, none, self.stream, x, y)).await
            }
            Event::Button(code, pressed) => {
                let button = i32::try_from(code).map_err(|e| e.to_string())?;
                self.rd.call::<_, _, ()>("NotifyPointerButton", &(h, none, button, u32::from(pressed))).await
            }
            Event::Axis(axis, steps) => {
                self.rd.call::<_, _, ()>("NotifyPointerAxisDiscrete", &(h, none, axis, steps)).await
            }
            Event::Keysym(sym, pressed) => {
                let sym = i32::try_from(sym).map_err(|e| e.to_string())?;
                self.rd.call::<_, _, ()>("NotifyKeyboardKeysym", &(h, none, sym, u32::from(pressed))).await
            }
        };
        sent.map_err(|e| format!("the desktop portal refused the event: {e}"))
    }

    pub(crate) async fn stop(self) {
        if let Ok(session) = zbus::Proxy::new(&self.connection, DEST, self.handle.clone(), SESSION).await {
            let _ =
                tokio::time::timeout(std::time::Duration::from_secs(5), session.call::<_, _, ()>("Close", &())).await;
        }
    }
}

/// What the desktop portal on the bus at `address` offers for remote desktop, asked
/// without starting a session (so no consent dialog): its version and whether it has a
/// keyboard and a pointer. In words, or why it offers nothing.
pub fn describe(address: Option<&str>) -> Result<String, String> {
    let address = address.map(str::to_string);
    let asked = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime: {e}"))?;
        runtime.block_on(async move {
            let limit = std::time::Duration::from_secs(5);
            tokio::time::timeout(limit, properties(address.as_deref()))
                .await
                .map_err(|_| format!("the desktop portal did not answer within {limit:?}"))?
        })
    })
    .join()
    .map_err(|_| "the thread asking the desktop portal failed".to_string())??;
    let (version, devices) = asked;
    if devices & KEYBOARD_AND_POINTER != KEYBOARD_AND_POINTER {
        return Err(format!(
            "the desktop portal's remote desktop (version {version}) offers device types {devices:#b}, not both a \
             keyboard and a pointer"
        ));
    }
    let consent = if version >= 2 {
        "the person is asked once, then the permission kept is used"
    } else {
        "a consent dialog every session: this portal cannot keep the permission (version 1)"
    };
    Ok(format!("the desktop portal's remote desktop (version {version}): {consent}"))
}

async fn properties(address: Option<&str>) -> Result<(u32, u32), String> {
    let connection = session_bus(address).await?;
    let rd = zbus::Proxy::new(&connection, DEST, PATH, RD).await.map_err(said("cannot reach the desktop portal"))?;
    let version: u32 = rd.get_property("version").await.map_err(|e| {
        format!(
            "the session bus has no desktop portal with a remote desktop (org.freedesktop.portal.RemoteDesktop): {e}"
        )
    })?;
    let devices: u32 = rd.get_property("AvailableDeviceTypes").await.unwrap_or(0);
    Ok((version, devices))
}

fn v(s: &str) -> Value<'static> {
    Value::from(s.to_string())
}

/// Calls whose answer comes as a `Response` signal on a request object.
struct Asking<'a> {
    connection: &'a zbus::Connection,
}

impl Asking<'_> {
    /// Calls `method` on `proxy` with the arguments `args` makes from the request's token,
    /// and waits for the portal's answer: its results, or why it refused.
    async fn ask<A>(
        &mut self,
        proxy: &zbus::Proxy<'_>,
        method: &str,
        args: impl FnOnce(&str) -> Result<A, String>,
    ) -> Result<HashMap<String, OwnedValue>, String>
    where
        A: serde::Serialize + zbus::zvariant::DynamicType,
    {
        let t = token("request");
        let sender = self.connection.unique_name().ok_or("the bus connection has no name")?;
        let sender = sender.as_str().trim_start_matches(':').replace('.', "_");
        let path = format!("{PATH}/request/{sender}/{t}");
        let path = ObjectPath::try_from(path.as_str()).map_err(|e| e.to_string())?;
        let request = zbus::Proxy::new(self.connection, DEST, path, REQUEST)
            .await
            .map_err(said("cannot watch the portal's answer"))?;
        let mut answers = request.receive_signal("Response").await.map_err(said("cannot watch the portal's answer"))?;
        let _: OwnedObjectPath =
            proxy.call(method, &args(&t)?).await.map_err(|e| format!("the desktop portal refused {method}: {e}"))?;
        let answer = tokio::time::timeout(CONSENT_LIMIT, answers.next())
            .await
            .map_err(|_| {
                format!("the desktop portal did not answer {method} within {CONSENT_LIMIT:?} (its dialog unanswered?)")
            })?
            .ok_or_else(|| format!("the desktop portal's answer to {method} never came"))?;
        let (code, results): (u32, HashMap<String, OwnedValue>) =
            answer.body().deserialize().map_err(|e| format!("the portal's answer to {method} is unreadable: {e}"))?;
        match code {
            0 => Ok(results),
            1 => Err(format!("the person declined the desktop portal's request ({method})")),
            _ => Err(format!("the desktop portal ended {method} without granting it (answer {code})")),
        }
    }
}

/// The stream a started session records and the monitor it shows.
fn stream_of(started: &HashMap<String, OwnedValue>) -> Result<(u32, Monitor), String> {
    let streams = started.get("streams").ok_or("the portal started the session with no screen-cast stream")?;
    let streams: Vec<(u32, HashMap<String, OwnedValue>)> =
        Vec::try_from(streams.try_clone().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let (node, props) = streams.into_iter().next().ok_or("the portal started the session with no stream")?;
    let pair = |key: &str| -> Option<(i32, i32)> { <(i32, i32)>::try_from(props.get(key)?.try_clone().ok()?).ok() };
    let origin = pair("position").unwrap_or((0, 0));
    let (w, h) = pair("size").ok_or("the portal's stream does not say its size")?;
    let size = (u32::try_from(w).map_err(|e| e.to_string())?, u32::try_from(h).map_err(|e| e.to_string())?);
    Ok((node, Monitor { name: format!("the portal's stream {node}"), origin, size }))
}
