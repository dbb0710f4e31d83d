//! Refs: short names (`e12`) for the elements a session has shown, so that the next call
//! can aim at one in a few tokens.
//!
//! A ref names an element as it was last shown: minted once per element id, given again
//! whenever that element is shown again, and bound to the role and name it was shown with
//! then. Before a ref is acted on, the toolbelt checks that its element still exists with
//! that role and name; one that is gone, whose id now belongs to something else (toolkits
//! that reuse ids, such as Qt's object addresses), or that changed its name since the
//! session last showed it fails closed with "stale, read again" rather than hitting
//! whatever now sits there.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use deft_types::{Element, ElementId, Role};

/// The refs of one session (an MCP server's lifetime, an agent's run).
#[derive(Debug, Default)]
pub struct Refs {
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    next: u32,
    by_id: HashMap<ElementId, u32>,
    by_ref: HashMap<u32, (ElementId, Role, String)>,
}

impl Refs {
    /// An empty table.
    pub fn new() -> Refs {
        Refs::default()
    }

    /// The ref of `e`, minted the first time it is shown; shown again, the ref is bound to
    /// the role and name it has now.
    pub fn mint(&self, e: &Element) -> String {
        let mut t = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&n) = t.by_id.get(&e.id) {
            t.by_ref.insert(n, (e.id.clone(), e.role.clone(), e.name.clone()));
            return format!("e{n}");
        }
        t.next += 1;
        let n = t.next;
        t.by_id.insert(e.id.clone(), n);
        t.by_ref.insert(n, (e.id.clone(), e.role.clone(), e.name.clone()));
        format!("e{n}")
    }

    /// The element id, role and name (when shown) of a ref; `None` for a ref this session
    /// never showed.
    pub fn lookup(&self, r: &str) -> Option<(ElementId, Role, String)> {
        let n = parse_ref(r)?;
        self.table.lock().unwrap_or_else(PoisonError::into_inner).by_ref.get(&n).cloned()
    }

    /// How many refs were minted.
    pub fn len(&self) -> usize {
        self.table.lock().unwrap_or_else(PoisonError::into_inner).by_ref.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `e12` → 12; anything else is not a ref.
pub(crate) fn parse_ref(s: &str) -> Option<u32> {
    let digits = s.trim().strip_prefix('e')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_name_identities() {
        let refs = Refs::new();
        let a = deft_a11y::element(":1.2|/a/1", "push_button", "OK");
        let b = deft_a11y::element(":1.2|/a/2", "push_button", "Cancel");
        assert_eq!(refs.mint(&a), "e1");
        assert_eq!(refs.mint(&b), "e2");
        assert_eq!(refs.mint(&a), "e1", "the same element keeps its ref");
        let mut renamed = a.clone();
        renamed.name = "Saving...".into();
        assert_eq!(refs.mint(&renamed), "e1");
        assert_eq!(refs.lookup("e1").map(|(_, _, n)| n), Some("Saving...".into()), "bound to the name last shown");
        refs.mint(&a);
        assert_eq!(refs.lookup("e2").map(|(id, _, n)| (id.0, n)), Some((":1.2|/a/2".into(), "Cancel".into())));
        assert_eq!(refs.lookup("e3"), None);
        for not_a_ref in ["e", "e01", "x1", "e1a", "12", "Submit"] {
            assert_eq!(parse_ref(not_a_ref), None, "{not_a_ref}");
        }
    }
}
