//! An acting call, from proposal to observation: resolve its target to one element in the
//! live tree, enforce the policy on that element's app and window, rewrite the call to aim
//! at exactly that element (so the executor cannot land elsewhere), then the confirmation
//! list, the executive function's score, and only then the verified executor.

use deft_toolbelt::{FindParams, FindReport, MatchMode, ReadParams, TargetParams, ToolCall, ToolOutput, TreeNode};
use deft_types::State;
use serde_json::Value;

use crate::confidence::Reversibility;
use crate::desktop::Desktop;
use crate::observe::Rendered;
use crate::policy::{Place, Policy};

/// The element an acting call resolved to.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// Its ref (the call is rewritten to it).
    pub reference: String,
    /// Its role.
    pub role: String,
    /// Its name.
    pub name: String,
    /// It holds a secret (a password field, or a field the policy names).
    pub secret: bool,
    /// Where it lives.
    pub place: Place,
    /// Its path in its window.
    pub path: Vec<u32>,
}

impl Resolved {
    /// `[e5] push_button "Submit order"`.
    pub fn words(&self) -> String {
        format!("[{}] {} {:?}", self.reference, self.role, self.name)
    }
}

/// Where an acting call aims, as far as the policy is concerned.
#[derive(Clone, Debug, PartialEq)]
pub enum Aim {
    /// One element, and the call now names it by ref.
    Element(Resolved, Box<ToolCall>),
    /// The focused element (typing without a target, a key): where the focus is, if known.
    Focus(Option<Resolved>),
    /// A raw point or text only OCR found: no element to check.
    Unchecked(&'static str),
}

/// The call in a few words, without any typed text (it may be a password).
pub fn call_words(c: &deft_llm::ToolCall) -> String {
    let Some(Value::Object(args)) = c.arguments.json() else {
        return format!("{} (arguments not JSON)", c.name);
    };
    let mut parts = Vec::new();
    for (k, v) in args {
        let shown = match (k.as_str(), v) {
            ("text" | "value", Value::String(s)) => format!("{} chars", s.chars().count()),
            (_, Value::String(s)) if s.chars().count() > 40 => format!("{:?}…", s.chars().take(40).collect::<String>()),
            (_, v) => v.to_string(),
        };
        parts.push(format!("{k}: {shown}"));
    }
    format!("{}({})", c.name, parts.join(", "))
}

/// The target parameters of an acting call; `None` for calls aimed at the focus.
pub(crate) fn target_params(tc: &ToolCall) -> Option<&TargetParams> {
    match tc {
        ToolCall::Click(p) => Some(&p.target),
        ToolCall::Type(p) if !p.target.is_empty() => Some(&p.target),
        ToolCall::SetValue(p) => Some(&p.target),
        ToolCall::Fill(p) => Some(&p.target),
        ToolCall::Action(p) => Some(&p.target),
        ToolCall::Scroll(p) => Some(&p.target),
        _ => None,
    }
}

const TARGET_KEYS: [&str; 9] = ["target", "name", "role", "id", "app", "window", "index", "at", "match"];

/// Why resolving stopped before acting: an observation for the model (nothing was done).
pub type Stop = Rendered;

/// Resolve `tc` (whose JSON arguments are `args`) to what it will touch.
pub async fn aim(
    desktop: &dyn Desktop,
    policy: &Policy,
    tc: &ToolCall,
    args: &Value,
    words: &str,
) -> Result<Aim, Stop> {
    let Some(tp) = target_params(tc) else {
        return Ok(Aim::Focus(focused(desktop).await));
    };
    if tp.at.is_some() {
        return Ok(Aim::Unchecked("a raw screen point"));
    }
    let query = TargetParams { index: None, ..tp.clone() };
    let report = match desktop.call(&ToolCall::Find(FindParams { target: query, hidden: None })).await {
        Ok(ToolOutput::Find(f)) => f,
        Ok(_) => return Err(crate::observe::note(words, "error", "the target could not be resolved")),
        Err(e) => return Err(crate::observe::error(words, &e)),
    };
    let chosen = match (tp.index, report.matches.len()) {
        (Some(i), n) if (i as usize) < n => &report.matches[i as usize],
        (Some(i), n) => {
            return Err(listing(words, &report, &format!("index {i} is out of range: {n} element(s) match")));
        }
        (None, 1) => &report.matches[0],
        (None, 0) if !report.ocr_matches.is_empty() => {
            let _ = policy;
            return Ok(Aim::Unchecked("text found on screen by OCR only"));
        }
        (None, 0) => {
            return Err(crate::observe::note(
                words,
                "error (not_found)",
                "nothing matches the target now, so nothing was done; read the window for refs, or wait_for the element first",
            ));
        }
        (None, n) => {
            return Err(listing(
                words,
                &report,
                &format!("{n} elements match: aim at one by its ref; nothing was done"),
            ));
        }
    };
    let resolved = Resolved {
        reference: chosen.reference.clone(),
        role: chosen.element.role.as_str().to_string(),
        name: chosen.element.name.clone(),
        secret: chosen.element.is_secret(),
        place: Place { app: chosen.app.clone(), window: chosen.window.clone() },
        path: chosen.path.clone(),
    };
    let mut args = args.clone();
    if let Some(o) = args.as_object_mut() {
        for k in TARGET_KEYS {
            o.remove(k);
        }
        o.insert("target".into(), Value::String(resolved.reference.clone()));
    }
    let rewritten = ToolCall::parse(tc.name().as_str(), args).map_err(|e| crate::observe::error(words, &e))?;
    Ok(Aim::Element(resolved, Box::new(rewritten)))
}

fn listing(words: &str, f: &FindReport, why: &str) -> Stop {
    let r = crate::observe::find(words, f);
    crate::observe::note(words, "error (ambiguous)", &format!("{why}\n{}", r.full.trim_start_matches(|c| c != '<')))
}

/// The element with the keyboard focus, from one read of the desktop.
async fn focused(desktop: &dyn Desktop) -> Option<Resolved> {
    let Ok(ToolOutput::Read(r)) = desktop.call(&ToolCall::Read(ReadParams::default())).await else { return None };
    fn walk(n: &TreeNode) -> Option<&TreeNode> {
        if n.element.has(State::Focused) && n.element.role.as_str() != "application" {
            return Some(n);
        }
        n.children.iter().find_map(walk)
    }
    let n = r.roots.iter().find_map(walk)?;
    Some(Resolved {
        reference: String::new(),
        role: n.element.role.as_str().to_string(),
        name: n.element.name.clone(),
        secret: n.element.is_secret(),
        place: Place { app: n.app.clone(), window: n.window.clone() },
        path: n.path.clone(),
    })
}

/// The policy's verdict on an aim: `Err` with why when it may not run.
pub fn check_policy(policy: &Policy, tc: &ToolCall, aim: &Aim) -> Result<(), String> {
    if let ToolCall::Key(k) = tc
        && let Some(why) = policy.check_key(&k.keys)
    {
        return Err(why);
    }
    match aim {
        Aim::Element(r, _) => policy.check_place(&r.place).map_or(Ok(()), Err),
        Aim::Focus(Some(r)) => policy.check_place(&r.place).map_or(Ok(()), Err),
        Aim::Focus(None) if policy.restricts_places() => Err(
            "the policy limits where the agent acts, and no element has the keyboard focus to check: click a field first"
                .into(),
        ),
        Aim::Unchecked(what) if policy.restricts_places() => Err(format!(
            "the policy limits where the agent acts, and {what} cannot be checked against it: aim at an element by its ref"
        )),
        _ => Ok(()),
    }
}

/// Whether the action can be undone, from the tool and the element.
pub fn reversibility(policy: &Policy, tc: &ToolCall, target: Option<&Resolved>) -> Reversibility {
    if let Some(r) = target
        && matches!(tc, ToolCall::Click(_) | ToolCall::Action(_))
        && policy.confirm_word(&r.name).is_some()
    {
        return Reversibility::Irreversible;
    }
    match tc {
        ToolCall::Type(_) | ToolCall::Fill(_) | ToolCall::SetValue(_) | ToolCall::Scroll(_) => {
            Reversibility::Reversible
        }
        ToolCall::Click(_) | ToolCall::Action(_) => match target.map(|r| r.role.as_str()) {
            Some(
                "check_box" | "radio_button" | "toggle_button" | "combo_box" | "list_item" | "page_tab" | "text"
                | "entry" | "spin_button" | "slider",
            ) => Reversibility::Reversible,
            _ => Reversibility::Unknown,
        },
        _ => Reversibility::Unknown,
    }
}

/// A candidate target of the confidence check.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Its ref.
    pub reference: String,
    /// Its role.
    pub role: String,
    /// Its name.
    pub name: String,
    /// The nearest named container, when there is one (`panel "Billing"`).
    pub context: Option<String>,
    /// Its window.
    pub window: Option<String>,
}

impl Candidate {
    /// `[e7] push_button "Submit" in panel "Billing" (window "Deft Fixture")`.
    pub fn words(&self) -> String {
        let mut s = format!("[{}] {} {:?}", self.reference, self.role, self.name);
        if let Some(c) = &self.context {
            s.push_str(&format!(" in {c}"));
        }
        if let Some(w) = &self.window {
            s.push_str(&format!(" (window {w:?})"));
        }
        s
    }
}

/// The elements the target could be confused with (same role and name), itself first,
/// each with its nearest named container.
pub async fn candidates(desktop: &dyn Desktop, r: &Resolved) -> Vec<Candidate> {
    let me = Candidate {
        reference: r.reference.clone(),
        role: r.role.clone(),
        name: r.name.clone(),
        context: None,
        window: r.place.window.clone(),
    };
    if r.name.trim().is_empty() {
        return vec![me];
    }
    let query = TargetParams {
        name: Some(r.name.clone()),
        role: Some(r.role.clone()),
        matching: Some(MatchMode::Exact),
        ..TargetParams::default()
    };
    let Ok(ToolOutput::Find(f)) = desktop.call(&ToolCall::Find(FindParams { target: query, hidden: None })).await
    else {
        return vec![me];
    };
    if f.matches.len() <= 1 {
        return vec![me];
    }
    let mut out: Vec<Candidate> = Vec::new();
    let mut windows: Vec<(Option<String>, String, Vec<TreeNode>)> = Vec::new();
    for m in &f.matches {
        if !windows.iter().any(|(w, a, _)| *w == m.window && *a == m.app) {
            let read = ToolCall::Read(ReadParams {
                target: TargetParams { app: Some(m.app.clone()), window: m.window.clone(), ..TargetParams::default() },
                ..ReadParams::default()
            });
            let roots = match desktop.call(&read).await {
                Ok(ToolOutput::Read(rr)) => rr.roots,
                _ => Vec::new(),
            };
            windows.push((m.window.clone(), m.app.clone(), roots));
        }
        let roots = windows.iter().find(|(w, a, _)| *w == m.window && *a == m.app).map(|(_, _, r)| r.as_slice());
        let c = Candidate {
            reference: m.reference.clone(),
            role: m.element.role.as_str().to_string(),
            name: m.element.name.clone(),
            context: roots.and_then(|roots| context(roots, &m.path)),
            window: m.window.clone(),
        };
        if c.reference == r.reference {
            out.insert(0, c);
        } else {
            out.push(c);
        }
    }
    if !out.iter().any(|c| c.reference == r.reference) {
        out.insert(0, me);
    }
    out
}

/// The nearest named container above `path` in a window read (the window itself excluded).
fn context(roots: &[TreeNode], path: &[u32]) -> Option<String> {
    let window = roots.iter().find(|n| n.window.is_some() && n.path.is_empty()).or(roots.first())?;
    let mut node = window;
    let mut best: Option<String> = None;
    for &i in path.iter().take(path.len().saturating_sub(1)) {
        node = node.children.get(i as usize)?;
        if !node.element.name.trim().is_empty() {
            best = Some(format!("{} {:?}", node.element.role, node.element.name));
        }
    }
    best
}

/// Arguments with typed text replaced, for events and traces (any text typed into a
/// secret field, and any typed text when the target is unknown). `secret_target`: whether
/// the target holds a secret, when the target is known.
pub fn redact(args: &Value, secret_target: Option<bool>) -> Value {
    let mut v = args.clone();
    if secret_target.is_none_or(|secret| secret)
        && let Some(o) = v.as_object_mut()
    {
        for k in ["text", "value"] {
            if let Some(Value::String(s)) = o.get(k) {
                let n = s.chars().count();
                o.insert(k.into(), Value::String(format!("[redacted: {n} chars]")));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_never_show_typed_text() {
        let c = deft_llm::ToolCall {
            id: "1".into(),
            name: "type".into(),
            arguments: deft_llm::Arguments::Json(serde_json::json!({"target": "e4", "text": "hunter2"})),
            signature: None,
        };
        let w = call_words(&c);
        assert!(!w.contains("hunter2") && w.contains("7 chars"), "{w}");
        let r = redact(&serde_json::json!({"text": "hunter2"}), Some(true));
        assert_eq!(r["text"], "[redacted: 7 chars]");
        assert_eq!(redact(&serde_json::json!({"text": "Ada"}), Some(false))["text"], "Ada");
    }
}
