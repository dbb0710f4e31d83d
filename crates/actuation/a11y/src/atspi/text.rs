//! Where an element's text ends on screen (the box of its last character), and where its
//! caret is.

use deft_types::{ElementId, Logical, Rect};

use super::call::{self, Fail, iface};
use super::convert::{self, Ifaces};
use super::{Inner, skeleton, snapshot};
use crate::backend::Caret;
use crate::error::A11yError;

/// AT-SPI's `ATSPI_COORD_TYPE_SCREEN`.
const SCREEN: u32 = 0;

/// The box of the last character of `id`'s text on screen, when it has text (`None` when
/// it lists no Text interface, holds no text, or the toolkit gives no extents: GTK 4.8). Called as
/// libatspi's `atspi_text_get_character_extents` calls it, only on an object that lists
/// the interface.
pub(crate) async fn text_end(inner: &Inner, id: &ElementId) -> Result<Option<Rect<Logical>>, A11yError> {
    let (bus, path) = call::split_id(id)?;
    let conn = inner.conn_for(bus).await;
    let t = inner.timeout();
    let read = async {
        let (node, facts) = tokio::join!(skeleton::basics(inner, &conn, bus, path), inner.facts(&conn, bus));
        let node = node?;
        if !node.ifaces.has(Ifaces::TEXT) {
            return Ok(None);
        }
        let count: i32 = call::property(&conn, t, bus, path, iface::TEXT, "CharacterCount").await?;
        if count <= 0 {
            return Ok(None);
        }
        let args = (count - 1, SCREEN);
        let mut extents: (i32, i32, i32, i32) =
            call::call_as(&conn, t, bus, path, iface::TEXT, "GetCharacterExtents", &args).await?;
        // GTK 4 answers relative to the window, whatever coordinate type is asked.
        if facts.window_relative {
            match snapshot::offset_of_one(inner, &conn, bus, path, &node, extents, facts.pid).await {
                Some(offset) => extents = super::placement::shifted(extents, offset),
                None => return Ok(None),
            }
        }
        Ok::<_, Fail>(convert::bounds(extents))
    };
    match read.await {
        Ok(r) => Ok(r),
        // GTK 4.8 lists Text but answers GetCharacterExtents with "not supported".
        Err(Fail::NoMethod) => Ok(None),
        Err(f) => Err(inner.error(f, "reading where the text ends", Some(id), bus).await),
    }
}

/// Where `id`'s caret is and whether any of its text is selected; `None` when it lists no
/// Text interface or gives no caret (a negative offset). A toolkit that cannot count its
/// selections is taken to have one: nothing then types over text it could not see.
pub(crate) async fn caret(inner: &Inner, id: &ElementId) -> Result<Option<Caret>, A11yError> {
    let (bus, path) = call::split_id(id)?;
    let conn = inner.conn_for(bus).await;
    let t = inner.timeout();
    let read = async {
        let node = skeleton::basics(inner, &conn, bus, path).await?;
        if !node.ifaces.has(Ifaces::TEXT) {
            return Ok(None);
        }
        let offset: i32 = call::property(&conn, t, bus, path, iface::TEXT, "CaretOffset").await?;
        let Ok(at) = usize::try_from(offset) else { return Ok(None) };
        let selections: Result<i32, Fail> =
            call::call_as(&conn, t, bus, path, iface::TEXT, "GetNSelections", &()).await;
        let selected = match selections {
            Ok(n) => n > 0,
            Err(Fail::NoMethod) => true,
            Err(f) => return Err(f),
        };
        Ok::<_, Fail>(Some(Caret { at, selected }))
    };
    match read.await {
        Ok(r) => Ok(r),
        Err(Fail::NoMethod) => Ok(None),
        Err(f) => Err(inner.error(f, "reading where the caret is", Some(id), bus).await),
    }
}
