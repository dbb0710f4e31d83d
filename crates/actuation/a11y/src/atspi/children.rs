//! Listing an object's children without making the application build millions of them.
//!
//! `Accessible.GetChildren` makes the toolkit create an accessible object for every child
//! before it answers. LibreOffice Calc's sheet says it has 2,147,483,647 children (every
//! cell of the sheet, `manages-descendants`): asked for them, Calc stops answering anyone
//! and its memory grows until it is killed, with the user's spreadsheet in it
//! (`docs/real-apps.md`). So a container with more than [`LIST_LIMIT`] children, or one
//! whose count is not known, is counted first (`ChildCount`), and a big one gives only the
//! children drawn on screen: found at its corners by `Component.GetAccessibleAtPoint`, then
//! read one by one (`Table.GetAccessibleAt` by row and column for a table, whose children
//! run row by row across the whole sheet; `GetChildAtIndex` for anything else). Every call
//! here is one libatspi makes.

use zbus::Connection;
use zbus::zvariant::OwnedObjectPath;

use super::Inner;
use super::call::{self, Fail, NULL_PATH, iface};
use super::convert::{self, Ifaces};

/// A container with more children than this is never listed whole: nobody reads so many
/// (a snapshot holds at most 20,000 elements in all), and the toolkit would create each.
pub(crate) const LIST_LIMIT: i32 = 5_000;

/// An object reference as AT-SPI sends it: the application's bus name and the path.
type ObjectRef = (String, OwnedObjectPath);

/// At most this many on-screen children of a big container are read.
const SHOWN_LIMIT: i64 = 2_000;

/// An object's children as listed.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// The children's paths, in order (children in other applications left out).
    pub kids: Vec<String>,
    /// `Some(count)` when the object has `count` children, too many to list, and `kids`
    /// holds only those on screen.
    pub shown_of: Option<i32>,
    /// With `shown_of`: each of `kids`' index in the object, as the application counts.
    pub indices: Vec<i32>,
}

/// The children of `path`, whose child count is said to be `known`: trusted from 1 to
/// [`LIST_LIMIT`]; anything else is asked again (a cache may say 0 for an object it lists
/// children of, as GTK 4.8's does for its root, or -1 for a `manages-descendants` one).
/// The children are listed unless the count says none, or more than the limit (a count
/// that cannot be read lists them).
pub(crate) async fn list(inner: &Inner, conn: &Connection, bus: &str, path: &str, known: i32) -> Result<Listing, Fail> {
    let t = inner.timeout();
    let count = if (1..=LIST_LIMIT).contains(&known) {
        known
    } else {
        match call::property::<i32>(conn, t, bus, path, iface::ACCESSIBLE, "ChildCount").await {
            Ok(n) => n,
            Err(Fail::NoMethod) => -1,
            Err(f) => return Err(f),
        }
    };
    // Asked and told none (LibreOffice's combo boxes' menus say -1 in its cache, 0 when
    // asked): nothing to list.
    if count == 0 {
        return Ok(Listing::default());
    }
    if count <= LIST_LIMIT {
        let kids: Vec<(String, OwnedObjectPath)> =
            call::call_as(conn, t, bus, path, iface::ACCESSIBLE, "GetChildren", &()).await?;
        return Ok(Listing { kids: kids.iter().filter_map(|k| own(bus, k)).collect(), ..Listing::default() });
    }
    let (kids, indices) = shown(inner, conn, bus, path, count).await?.into_iter().unzip();
    Ok(Listing { kids, shown_of: Some(count), indices })
}

/// The children of a big container that are drawn inside its extents, with their indices.
async fn shown(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    count: i32,
) -> Result<Vec<(String, i32)>, Fail> {
    let t = inner.timeout();
    let ifaces: Vec<String> = call::call_as(conn, t, bus, path, iface::ACCESSIBLE, "GetInterfaces", &()).await?;
    let ifaces = Ifaces::from_names(ifaces.iter().map(String::as_str));
    if !ifaces.has(Ifaces::COMPONENT) {
        return Ok(Vec::new());
    }
    // Screen coordinates for both calls (GTK 4 answers both relative to the window: the
    // same frame either way).
    let extents =
        call::call_as::<_, (i32, i32, i32, i32)>(conn, t, bus, path, iface::COMPONENT, "GetExtents", &(0u32,));
    let Some(area) = convert::bounds(extents.await?) else { return Ok(Vec::new()) };
    let (x0, y0) = (area.x + 1, area.y + 1);
    let (x1, y1) = (area.x.saturating_add(area.w as i32 - 2), area.y.saturating_add(area.h as i32 - 2));
    let corner = |x: i32, y: i32| async move {
        let at: (String, OwnedObjectPath) =
            call::call_as(conn, t, bus, path, iface::COMPONENT, "GetAccessibleAtPoint", &(x, y, 0u32)).await?;
        let Some(child) = own(bus, &at).filter(|c| c != path) else { return Ok::<_, Fail>(None) };
        let index: i32 = call::call_as(conn, t, bus, &child, iface::ACCESSIBLE, "GetIndexInParent", &()).await?;
        Ok((0..count).contains(&index).then_some(index))
    };
    let (first, last) = tokio::join!(corner(x0, y0), corner(x1, y1));
    let (Some(first), Some(last)) = (first?, last?) else { return Ok(Vec::new()) };
    let refs: Vec<Result<(ObjectRef, i32), Fail>> = if ifaces.has(Ifaces::TABLE) {
        let cell = |index: i32| async move {
            let arg = (index,);
            let row = call::call_as::<_, i32>(conn, t, bus, path, iface::TABLE, "GetRowAtIndex", &arg);
            let column = call::call_as::<_, i32>(conn, t, bus, path, iface::TABLE, "GetColumnAtIndex", &arg);
            let (row, column) = tokio::join!(row, column);
            Ok::<_, Fail>((row?, column?))
        };
        let (a, b) = tokio::join!(cell(first), cell(last));
        let ((r0, c0), (r1, c1)) = (a?, b?);
        let (rows, columns) = (r0.min(r1)..=r0.max(r1), c0.min(c1)..=c0.max(c1));
        let wide = i64::from(*columns.end() - *columns.start() + 1);
        let rows = *rows.start()..=(*rows.end()).min(*rows.start() + (SHOWN_LIMIT / wide.max(1)) as i32 - 1);
        let cells: Vec<(i32, i32)> = rows.flat_map(|r| columns.clone().map(move |c| (r, c))).collect();
        futures_util::future::join_all(cells.into_iter().map(|rc| async move {
            let cell = call::call_as(conn, t, bus, path, iface::TABLE, "GetAccessibleAt", &rc);
            let index = call::call_as::<_, i32>(conn, t, bus, path, iface::TABLE, "GetIndexAt", &rc);
            let (cell, index) = tokio::join!(cell, index);
            Ok((cell?, index?))
        }))
        .await
    } else {
        let (a, b) = (first.min(last), first.max(last));
        let b = b.min(a.saturating_add(SHOWN_LIMIT as i32 - 1));
        futures_util::future::join_all((a..=b).map(|i| async move {
            Ok((call::call_as(conn, t, bus, path, iface::ACCESSIBLE, "GetChildAtIndex", &(i,)).await?, i))
        }))
        .await
    };
    let mut kids = Vec::with_capacity(refs.len());
    for r in refs {
        match r {
            Ok((k, index)) => kids.extend(own(bus, &k).map(|k| (k, index))),
            Err(Fail::NoObject) => {} // scrolled away while being read
            Err(f) => return Err(f),
        }
    }
    Ok(kids)
}

/// The path of a reference that names an object of `bus` (an empty bus name means the
/// same one); `None` for a null reference or another application's object.
fn own(bus: &str, (b, p): &ObjectRef) -> Option<String> {
    (p.as_str() != NULL_PATH && (b.is_empty() || b == bus)).then(|| p.as_str().to_string())
}
