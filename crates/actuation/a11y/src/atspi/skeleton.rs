//! The skeleton of an application's tree: one `Cache.GetItems`, plus what the cache lacks.
//!
//! `GetItems` returns every cached object of the app with parent, index, child count,
//! interfaces, name, role, description and states, in one call (2-3 ms for 250 objects).
//! Objects the toolkit does not cache (children of `manages-descendants` containers such
//! as GTK list boxes, or every object of an app without a cache) are read with [`basics`]
//! and listed (`children.rs`) while the tree is walked.

use std::collections::HashMap;

use zbus::Connection;
use zbus::zvariant::{ObjectPath, OwnedObjectPath, OwnedValue};

use super::Inner;
use super::call::{self, CACHE_PATH, Fail, NULL_PATH, ROOT_PATH, iface};
use super::children;
use super::convert::{Bits, Ifaces};
use crate::error::A11yError;
use crate::tree::RootContext;

/// One object as the skeleton knows it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Skel {
    pub role: u32,
    pub name: String,
    pub description: String,
    pub states: Bits,
    pub ifaces: Ifaces,
    pub parent: Option<String>,
    /// Index in the parent, -1 when the toolkit does not say.
    pub index: i32,
    /// Child count as reported, -1 when unknown.
    pub child_count: i32,
    /// Children in order, once known for sure.
    pub children: Option<Vec<String>>,
}

/// An object reference on the wire: `(so)`.
type WireRef<'a> = (&'a str, ObjectPath<'a>);
/// A `GetItems` item: `((so)(so)(so)iiassusau)`.
type WireItem<'a> = (WireRef<'a>, WireRef<'a>, WireRef<'a>, i32, i32, Vec<&'a str>, &'a str, u32, &'a str, Vec<u32>);

/// A `GetItems` item of the older layout (Qt 5, old registries), with the children listed
/// instead of an index and a count: `((so)(so)(so)a(so)assusau)`.
type LegacyItem<'a> =
    (WireRef<'a>, WireRef<'a>, WireRef<'a>, Vec<WireRef<'a>>, Vec<&'a str>, &'a str, u32, &'a str, Vec<u32>);

/// The objects of one application, by path.
pub(crate) struct Skeleton {
    pub bus: String,
    pub nodes: HashMap<String, Skel>,
    pub problems: Vec<String>,
}

impl Skeleton {
    /// The app's cache, or an empty skeleton when it has none (discovery then walks it).
    pub async fn load(inner: &Inner, conn: &Connection, bus: &str) -> Result<Skeleton, A11yError> {
        let mut sk = Skeleton { bus: bus.to_string(), nodes: HashMap::new(), problems: Vec::new() };
        match call::call(conn, inner.timeout(), bus, CACHE_PATH, iface::CACHE, "GetItems", &()).await {
            Ok(msg) => {
                let body = msg.body();
                if let Ok(items) = body.deserialize::<Vec<WireItem<'_>>>() {
                    sk.add_items(items);
                } else if let Ok(items) = body.deserialize::<Vec<LegacyItem<'_>>>() {
                    sk.add_legacy_items(items);
                }
                // Any other layout: the walk reads every object instead.
            }
            Err(Fail::NoMethod | Fail::NoObject) => {}
            Err(f) => return Err(inner.error(f, "reading the application's cache", None, bus).await),
        }
        Ok(sk)
    }

    fn add_items(&mut self, items: Vec<WireItem<'_>>) {
        let mut by_parent: HashMap<String, Vec<(i32, String)>> = HashMap::new();
        for ((_, path), _app, (pbus, ppath), index, children, ifaces, name, role, description, states) in items {
            let path = path.as_str().to_string();
            let parent = (ppath.as_str() != NULL_PATH && (pbus.is_empty() || pbus == self.bus))
                .then(|| ppath.as_str().to_string());
            if let Some(p) = &parent {
                by_parent.entry(p.clone()).or_default().push((index, path.clone()));
            }
            self.nodes.insert(
                path,
                Skel {
                    role,
                    name: name.to_string(),
                    description: description.to_string(),
                    states: Bits::from_words(&states),
                    ifaces: Ifaces::from_names(ifaces),
                    parent,
                    index,
                    child_count: children,
                    children: None,
                },
            );
        }
        // A parent's children are known for sure when the cache holds all of them, each
        // with its index; a childless object when nothing in the cache names it as parent.
        for node in self.nodes.values_mut() {
            if node.child_count == 0 {
                node.children = Some(Vec::new());
            }
        }
        for (parent, mut kids) in by_parent {
            let Some(node) = self.nodes.get_mut(&parent) else { continue };
            kids.sort();
            let complete = node.child_count >= 0
                && kids.len() == node.child_count as usize
                && kids.iter().enumerate().all(|(i, (idx, _))| *idx == i as i32);
            node.children = complete.then(|| kids.into_iter().map(|(_, p)| p).collect());
        }
    }

    fn add_legacy_items(&mut self, items: Vec<LegacyItem<'_>>) {
        for ((_, path), _app, (pbus, ppath), kids, ifaces, name, role, description, states) in items {
            let parent = (ppath.as_str() != NULL_PATH && (pbus.is_empty() || pbus == self.bus))
                .then(|| ppath.as_str().to_string());
            let kids: Vec<String> = kids
                .into_iter()
                .filter(|(b, p)| p.as_str() != NULL_PATH && (b.is_empty() || *b == self.bus))
                .map(|(_, p)| p.as_str().to_string())
                .collect();
            self.nodes.insert(
                path.as_str().to_string(),
                Skel {
                    role,
                    name: name.to_string(),
                    description: description.to_string(),
                    states: Bits::from_words(&states),
                    ifaces: Ifaces::from_names(ifaces),
                    parent,
                    index: -1,
                    child_count: kids.len() as i32,
                    children: Some(kids),
                },
            );
        }
    }

    /// Make sure `path` and its ancestors up to the app root are known, so that its
    /// window and path can be told.
    pub async fn ancestors(&mut self, inner: &Inner, conn: &Connection, path: &str) -> Result<(), A11yError> {
        let mut at = path.to_string();
        for _ in 0..64 {
            if !self.nodes.contains_key(&at) {
                match basics(inner, conn, &self.bus, &at).await {
                    Ok(s) => {
                        self.nodes.insert(at.clone(), s);
                    }
                    Err(Fail::NoObject) => {
                        return Err(A11yError::Stale { id: call::element_id(&self.bus, &at) });
                    }
                    Err(f) => return Err(inner.error(f, "reading an element", None, &self.bus).await),
                }
            }
            match self.nodes[&at].parent.clone() {
                Some(p) if at != ROOT_PATH => {
                    // The parent's child list gives the index when the cache did not.
                    if self.nodes.get(&p).is_none_or(|n| n.children.is_none()) {
                        self.discover_children_of(inner, conn, &p, &at).await?;
                    }
                    at = p;
                }
                _ => return Ok(()),
            }
        }
        Ok(())
    }

    /// List `parent`'s children, so that a child's index can be told. A container too big
    /// to list (`children.rs`) keeps its children unknown; the child `child` then says its
    /// own index.
    async fn discover_children_of(
        &mut self,
        inner: &Inner,
        conn: &Connection,
        parent: &str,
        child: &str,
    ) -> Result<(), A11yError> {
        if !self.nodes.contains_key(parent) {
            match basics(inner, conn, &self.bus, parent).await {
                Ok(s) => {
                    self.nodes.insert(parent.to_string(), s);
                }
                Err(f) => return Err(inner.error(f, "reading an element", None, &self.bus).await),
            }
        }
        let known = self.nodes[parent].child_count;
        match children::list(inner, conn, &self.bus, parent, known).await {
            Ok(listing) if listing.shown_of.is_none() => {
                if let Some(n) = self.nodes.get_mut(parent) {
                    n.child_count = listing.kids.len() as i32;
                    n.children = Some(listing.kids);
                }
                Ok(())
            }
            Ok(_) => {
                let t = inner.timeout();
                match call::call_as::<_, i32>(conn, t, &self.bus, child, iface::ACCESSIBLE, "GetIndexInParent", &())
                    .await
                {
                    Ok(i) => {
                        if let Some(n) = self.nodes.get_mut(child) {
                            n.index = i;
                        }
                        Ok(())
                    }
                    Err(f) => Err(inner.error(f, "reading an element", None, &self.bus).await),
                }
            }
            Err(f) => Err(inner.error(f, "listing children", None, &self.bus).await),
        }
    }

    /// The app name, window title and path of `path`, from its ancestors.
    pub fn context(&self, path: &str) -> RootContext {
        let mut chain = vec![path.to_string()];
        while let Some(p) = self.nodes.get(chain.last().map_or("", String::as_str)).and_then(|n| n.parent.clone()) {
            if chain.contains(&p) || chain.len() > 64 {
                break;
            }
            chain.push(p);
        }
        chain.reverse(); // app root first
        let app = self.nodes.get(ROOT_PATH).map(|n| n.name.clone()).unwrap_or_default();
        if chain.first().map(String::as_str) != Some(ROOT_PATH) || chain.len() < 2 {
            return RootContext { app, window: None, path: Vec::new() };
        }
        let window = self.nodes.get(&chain[1]).map(|n| n.name.clone());
        let mut indices = Vec::new();
        for pair in chain[1..].windows(2) {
            let kids = self.nodes.get(&pair[0]).and_then(|n| n.children.as_ref());
            let i = kids.and_then(|k| k.iter().position(|c| *c == pair[1]));
            indices.push(i.map_or_else(|| self.nodes[&pair[1]].index.max(0) as u32, |i| i as u32));
        }
        RootContext { app, window, path: indices }
    }
}

/// Role, name, description, states, interfaces, parent and child count of one object.
///
/// Every call is one libatspi makes for the same value, all in flight at once: the
/// `Accessible` properties one `Properties.Get` each, never `Properties.GetAll`. Qt's bridge
/// (5.15, and 6.4 by chance) indexes a second argument that `GetAll` does not have and
/// crashes (`docs/real-apps.md`).
pub(crate) async fn basics(inner: &Inner, conn: &Connection, bus: &str, path: &str) -> Result<Skel, Fail> {
    let t = inner.timeout();
    let get = |name: &'static str| async move {
        call::call_as::<_, OwnedValue>(conn, t, bus, path, iface::PROPERTIES, "Get", &(iface::ACCESSIBLE, name)).await
    };
    let role = call::call_as::<_, u32>(conn, t, bus, path, iface::ACCESSIBLE, "GetRole", &());
    let states = call::call_as::<_, Vec<u32>>(conn, t, bus, path, iface::ACCESSIBLE, "GetState", &());
    let ifaces = call::call_as::<_, Vec<String>>(conn, t, bus, path, iface::ACCESSIBLE, "GetInterfaces", &());
    let (name, description, parent, child_count, role, states, ifaces) =
        tokio::join!(get("Name"), get("Description"), get("Parent"), get("ChildCount"), role, states, ifaces);
    let text = |v: Result<OwnedValue, Fail>| -> Result<String, Fail> {
        Ok(v.map(|v| Some(String::try_from(v).unwrap_or_default())).or_else(optional)?.unwrap_or_default())
    };
    let parent = parent
        .map(|v| <(String, OwnedObjectPath)>::try_from(v).ok())
        .or_else(optional)?
        .filter(|(b, p)| p.as_str() != NULL_PATH && (b.is_empty() || b == bus))
        .map(|(_, p)| p.as_str().to_string());
    let child_count = child_count.map(|v| Some(i32::try_from(v).unwrap_or(-1))).or_else(optional)?.unwrap_or(-1);
    // Every accessible object has `Accessible.GetRole`: GDBus (GTK 4) answers a path whose
    // object was destroyed with "no such interface", which means it is gone.
    let role = role.map_err(|f| if f == Fail::NoMethod { Fail::NoObject } else { f })?;
    Ok(Skel {
        role,
        name: text(name)?,
        description: text(description)?,
        states: Bits::from_words(&states?),
        ifaces: Ifaces::from_names(ifaces?.iter().map(String::as_str)),
        parent,
        index: -1,
        child_count,
        children: (child_count == 0).then(Vec::new),
    })
}

/// A property the object does not have is absent; any other failure is one.
fn optional<T>(f: Fail) -> Result<Option<T>, Fail> {
    match f {
        Fail::NoMethod => Ok(None),
        f => Err(f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(path: &'a str, parent: &'a str, index: i32, children: i32) -> WireItem<'a> {
        let r = |p: &'a str| (":1.5", ObjectPath::try_from(p).unwrap());
        (r(path), r(ROOT_PATH), r(parent), index, children, vec!["org.a11y.atspi.Component"], "n", 43, "", vec![0, 0])
    }

    #[test]
    fn cached_children_are_trusted_only_when_complete() {
        let mut sk = Skeleton { bus: ":1.5".into(), nodes: HashMap::new(), problems: Vec::new() };
        sk.add_items(vec![
            item(ROOT_PATH, NULL_PATH, -1, 1),
            item("/w", ROOT_PATH, 0, 2),
            item("/b", "/w", 1, 0),
            item("/a", "/w", 0, 0),
            // A menu whose items carry no index, and a list that manages its descendants.
            item("/menu", "/a", 0, -1),
            item("/m1", "/menu", -1, 0),
            item("/list", "/b", 0, -1),
        ]);
        assert_eq!(sk.nodes["/w"].children.as_deref(), Some(&["/a".to_string(), "/b".to_string()][..]));
        assert_eq!(sk.nodes[ROOT_PATH].children.as_deref(), Some(&["/w".to_string()][..]));
        assert_eq!(sk.nodes["/menu"].children, None, "items without an index: ask");
        assert_eq!(sk.nodes["/list"].children, None, "unknown count: ask");
        assert_eq!(sk.nodes["/m1"].children, Some(Vec::new()));
        assert_eq!(sk.nodes["/a"].children, None, "a count of 0 that the cache contradicts: ask");
        let ctx = sk.context("/b");
        assert_eq!((ctx.app.as_str(), ctx.window.as_deref(), &ctx.path[..]), ("n", Some("n"), &[1][..]));
    }
}
