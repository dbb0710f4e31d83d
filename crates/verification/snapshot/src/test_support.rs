//! Fixtures shared by the unit tests.

use deft_types::{Element, ElementId, Logical, Rect, Role};

use crate::snapshot::{Snapshot, WindowState};

/// An element with only an id, a role and a name.
pub(crate) fn el(id: &str, role: &str, name: &str) -> Element {
    Element {
        id: ElementId(id.into()),
        role: Role::new(role),
        name: name.into(),
        description: String::new(),
        states: Default::default(),
        bounds: None,
        text: None,
        value: None,
        actions: Vec::new(),
        child_count: 0,
    }
}

/// An id.
pub(crate) fn id(s: &str) -> ElementId {
    ElementId(s.into())
}

/// A snapshot from an outline, one item a line; indentation nests elements:
///
/// ```text
/// w frame "Main"
///   ok push_button "OK" focused @10,10,80,24
///   f text "Name" text="" value="3" desc="..." children=2 actions=click,press
/// window d "Saved" dialog modal active @0,0,200,100
/// region 0,0,100,20 #7
/// ```
pub(crate) fn snap(outline: &str) -> Snapshot {
    let mut b = Snapshot::builder();
    let mut stack: Vec<(usize, ElementId)> = Vec::new();
    for line in outline.lines().filter(|l| !l.trim().is_empty()) {
        let indent = line.len() - line.trim_start().len();
        let toks = tokens(line.trim());
        match toks[0].as_str() {
            "window" => {
                let mut w = WindowState::new(toks[1].clone(), unquote(&toks[2]), &toks[3]);
                for t in &toks[4..] {
                    match t.as_str() {
                        "modal" => w.modal = true,
                        "active" => w.active = true,
                        t => w.bounds = Some(rect(t.strip_prefix('@').expect("@x,y,w,h"))),
                    }
                }
                b = b.window(w);
            }
            "region" => {
                let digest = toks[2].strip_prefix('#').expect("#digest").parse().expect("digest");
                let r = rect(&toks[1]);
                b = b.region(Rect::new(r.x, r.y, r.w, r.h), digest);
            }
            _ => {
                let mut e = el(&toks[0], &toks[1], "");
                let mut rest = &toks[2..];
                if let Some(name) = rest.first().filter(|t| t.starts_with('"')) {
                    e.name = unquote(name);
                    rest = &rest[1..];
                }
                for t in rest {
                    match t.split_once('=') {
                        Some(("text", v)) => e.text = Some(unquote(v)),
                        Some(("value", v)) => e.value = Some(unquote(v)),
                        Some(("desc", v)) => e.description = unquote(v),
                        Some(("children", v)) => e.child_count = v.parse().expect("children=N"),
                        Some(("actions", v)) => e.actions = v.split(',').map(String::from).collect(),
                        Some((k, _)) => panic!("unknown key {k}"),
                        None if t.starts_with('@') => e.bounds = Some(rect(&t[1..])),
                        None => {
                            let state = serde_json::from_str(&format!("{t:?}")).expect("a state name");
                            e.states.insert(state);
                        }
                    }
                }
                while stack.last().is_some_and(|(i, _)| *i >= indent) {
                    stack.pop();
                }
                let parent = stack.last().map(|(_, p)| p.clone());
                stack.push((indent, e.id.clone()));
                b = b.element(e, parent);
            }
        }
    }
    b.build().expect("a valid outline")
}

fn tokens(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                out.last_mut().expect("one token").push(c);
            }
            ' ' if !quoted => {
                if !out.last().expect("one token").is_empty() {
                    out.push(String::new());
                }
            }
            c => out.last_mut().expect("one token").push(c),
        }
    }
    out.retain(|t| !t.is_empty());
    out
}

fn unquote(t: &str) -> String {
    t.trim_matches('"').to_owned()
}

fn rect(t: &str) -> Rect<Logical> {
    let n: Vec<i64> = t.split(',').map(|v| v.parse().expect("a number")).collect();
    Rect::new(n[0] as i32, n[1] as i32, n[2] as u32, n[3] as u32)
}
