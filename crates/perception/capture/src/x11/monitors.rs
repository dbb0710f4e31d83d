//! Monitors on X11, from RandR 1.5; the whole screen as one monitor when it has none.

use deft_types::{Physical, Rect, ScaleFactor, Size};
use x11rb::connection::RequestConnection;
use x11rb::errors::ReplyOrIdError;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{self, ConnectionExt as _};

use crate::target::Monitor;

/// The name of the single monitor reported when RandR has none to offer.
pub(super) const WHOLE_SCREEN: &str = "screen";

/// The monitors of the screen; never empty.
pub(super) fn query(conn: &impl RequestConnection, root: xproto::Window, screen: Size<Physical>) -> Vec<Monitor> {
    match randr_monitors(conn, root) {
        Ok(Some(monitors)) if !monitors.is_empty() => monitors,
        _ => vec![Monitor {
            name: WHOLE_SCREEN.into(),
            rect: Rect::new(0, 0, screen.w, screen.h),
            primary: true,
            scale: ScaleFactor::ONE,
        }],
    }
}

/// RandR's monitors, or `None` when the server lacks RandR 1.5.
fn randr_monitors(conn: &impl RequestConnection, root: xproto::Window) -> Result<Option<Vec<Monitor>>, ReplyOrIdError> {
    if conn.extension_information(randr::X11_EXTENSION_NAME)?.is_none() {
        return Ok(None);
    }
    let version = conn.randr_query_version(1, 5)?.reply()?;
    if (version.major_version, version.minor_version) < (1, 5) {
        return Ok(None);
    }
    let infos = conn.randr_get_monitors(root, true)?.reply()?.monitors;
    let names: Vec<_> = infos.iter().map(|m| conn.get_atom_name(m.name)).collect::<Result<_, _>>()?;
    let mut monitors = Vec::with_capacity(infos.len());
    for (info, name) in infos.iter().zip(names) {
        let name = String::from_utf8_lossy(&name.reply()?.name).into_owned();
        monitors.push(Monitor {
            name,
            rect: Rect::new(info.x.into(), info.y.into(), info.width.into(), info.height.into()),
            primary: info.primary,
            scale: ScaleFactor::ONE,
        });
    }
    Ok(Some(monitors))
}
