//! GNOME Shell's windows, through Deft's extension (`gnome-extension/deft-windows@deft`
//! beside this crate): `org.deft.Windows1.List` at `/org/deft/Windows` on the session bus
//! gives every window with its process, title and where its surface is; `Activate` raises
//! one. GNOME offers no other way: Wayland tells a client nothing of windows, and the
//! Shell's own introspection gives sizes without places, to allow-listed callers only.
//!
//! Each call is one short D-Bus exchange on a connection of its own, made on a thread of
//! its own (the callers are blocking, some inside an async runtime).

use std::time::Duration;

use serde::Deserialize;

use crate::views::{GNOME_EXTENSION_INSTALL, View};

/// The extension's bus name.
pub const NAME: &str = "org.deft.Windows";
const PATH: &str = "/org/deft/Windows";
const IFACE: &str = "org.deft.Windows1";
/// How long one call may take.
const LIMIT: Duration = Duration::from_secs(3);

#[derive(Deserialize)]
struct Listed {
    id: u64,
    pid: i64,
    title: String,
    app_id: String,
    buffer: [i64; 4],
    focused: bool,
    minimized: bool,
    workspace_shown: bool,
    /// Absent from an extension older than the field: nothing said covered.
    #[serde(default)]
    covered: bool,
}

/// Runs `call` on the session bus at `address` on a thread of its own.
fn on_bus<T: Send + 'static>(
    address: Option<&str>,
    call: impl AsyncFnOnce(zbus::Connection) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let address = address.map(str::to_string);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime: {e}"))?;
        runtime.block_on(async move {
            let connect = async {
                match address {
                    Some(a) => zbus::connection::Builder::address(a.as_str())?.build().await,
                    None => zbus::Connection::session().await,
                }
            };
            let work = async {
                let connection = connect.await.map_err(|e| format!("cannot connect to the session bus: {e}"))?;
                call(connection).await
            };
            tokio::time::timeout(LIMIT, work).await.unwrap_or_else(|_| Err(format!("no answer within {LIMIT:?}")))
        })
    })
    .join()
    .map_err(|_| "the D-Bus thread panicked".to_string())?
}

async fn proxy(connection: &zbus::Connection) -> Result<zbus::Proxy<'static>, String> {
    zbus::Proxy::new(connection, NAME, PATH, IFACE).await.map_err(|e| e.to_string())
}

/// Every window GNOME Shell shows, bottom to top.
pub fn windows(address: Option<&str>) -> Result<Vec<View>, String> {
    let json: String = on_bus(address, async |c| {
        proxy(&c)
            .await?
            .call("List", &())
            .await
            .map_err(|e| format!("GNOME Shell's window list ({NAME}): {e}; {GNOME_EXTENSION_INSTALL}"))
    })?;
    parse(&json)
}

/// Raises window `id` and gives it the keyboard focus.
pub fn activate(address: Option<&str>, id: u64) -> Result<(), String> {
    let done: bool = on_bus(address, async move |c| {
        proxy(&c).await?.call("Activate", &(id,)).await.map_err(|e| format!("activating window {id}: {e}"))
    })?;
    if done { Ok(()) } else { Err(format!("GNOME Shell shows no window {id}")) }
}

/// The extension's list as views.
fn parse(json: &str) -> Result<Vec<View>, String> {
    let listed: Vec<Listed> =
        serde_json::from_str(json).map_err(|e| format!("an unreadable window list from {NAME}: {e}"))?;
    Ok(listed
        .into_iter()
        .map(|w| {
            let [x, y, width, height] = w.buffer;
            let clamp = |v: i64| i32::try_from(v).unwrap_or(0);
            let size = |v: i64| u32::try_from(v).unwrap_or(0);
            View {
                id: w.id,
                pid: u32::try_from(w.pid).ok().filter(|p| *p > 0),
                app_id: (!w.app_id.is_empty()).then_some(w.app_id),
                title: w.title,
                content: (clamp(x), clamp(y), size(width), size(height)),
                focused: w.focused,
                visible: !w.minimized && w.workspace_shown && !w.covered,
                covered: w.covered,
                restorable: w.workspace_shown && (w.minimized || w.covered),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extensions_list_gives_each_surface_where_it_lies() {
        // As the extension answered for the GTK 3 fixture on a headless GNOME Shell 43.
        let json = r#"[{"id":1632994555,"pid":31201,"title":"Deft Fixture","app_id":"deft-fixture",
            "frame":[239,75,800,637],"buffer":[213,52,852,689],"focused":false,"minimized":false,
            "workspace_shown":true},
            {"id":7,"pid":0,"title":"","app_id":"","frame":[0,0,1,1],"buffer":[0,0,1,1],
            "focused":true,"minimized":true,"workspace_shown":true}]"#;
        let views = parse(json).unwrap();
        assert_eq!(views[0].content, (213, 52, 852, 689), "the surface, shadow and all: GTK's own origin");
        assert_eq!(
            (views[0].pid, views[0].visible, views[0].app_id.as_deref()),
            (Some(31201), true, Some("deft-fixture"))
        );
        assert_eq!((views[1].pid, views[1].visible, views[1].app_id.as_deref()), (None, false, None));
        assert!(parse("{").unwrap_err().contains("unreadable"));
        // The overview open: every window listed, none shown.
        let overview = json.replace(r#""workspace_shown":true}"#, r#""workspace_shown":true,"covered":true}"#);
        assert!(parse(&overview).unwrap().iter().all(|v| v.covered && !v.visible && v.restorable));
        assert!(views.iter().all(|v| !v.covered) && !views[0].restorable && views[1].restorable);
    }
}
