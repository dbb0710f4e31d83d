//! The serialized form of a snapshot: nodes in tree order, each naming its parent by position.
//!
//! Naming the parent by its position (a small varint in bincode) rather than by id keeps
//! ids, which are long on AT-SPI (`:1.42/org/a11y/atspi/accessible/1234`), written once.
//! Tree order keeps sibling order through a round trip, and decoding re-validates.

use deft_types::Element;
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::snapshot::{RegionDigest, Snapshot, SnapshotError, WindowState};

#[derive(Serialize)]
struct WireRef<'a> {
    nodes: Vec<NodeRef<'a>>,
    windows: &'a [WindowState],
    regions: &'a [RegionDigest],
}

#[derive(Serialize)]
struct NodeRef<'a> {
    parent: Option<u32>,
    element: &'a Element,
}

#[derive(Deserialize)]
struct Wire {
    nodes: Vec<WireNode>,
    windows: Vec<WindowState>,
    regions: Vec<RegionDigest>,
}

#[derive(Deserialize)]
struct WireNode {
    parent: Option<u32>,
    element: Element,
}

impl Serialize for Snapshot {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut nodes = Vec::with_capacity(self.len());
        // Depth first with each entry carrying its parent's position, so no id lookup.
        let mut stack: Vec<_> = self.roots().iter().rev().map(|id| (id, None)).collect();
        while let Some((id, parent)) = stack.pop() {
            let Some(node) = self.node(id) else { continue };
            let index = u32::try_from(nodes.len()).map_err(S::Error::custom)?;
            nodes.push(NodeRef { parent, element: node.element() });
            stack.extend(node.children().iter().rev().map(|c| (c, Some(index))));
        }
        WireRef { nodes, windows: self.windows(), regions: self.regions() }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Snapshot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Snapshot, D::Error> {
        let wire = Wire::deserialize(d)?;
        let mut elements: Vec<(Element, _)> = Vec::with_capacity(wire.nodes.len());
        for (index, node) in wire.nodes.into_iter().enumerate() {
            // Only earlier nodes are in `elements` yet, so a parent must precede its child.
            let parent = match node.parent {
                None => None,
                Some(p) => match elements.get(p as usize) {
                    Some((parent, _)) => Some(parent.id.clone()),
                    None => return Err(D::Error::custom(SnapshotError::BadParentIndex { index, parent: p })),
                },
            };
            elements.push((node.element, parent));
        }
        Snapshot::from_parts(elements, wire.windows, wire.regions).map_err(D::Error::custom)
    }
}
