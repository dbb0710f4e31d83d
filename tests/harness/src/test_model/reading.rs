//! How the test model reads what the agent sent: the goal (a small fixed grammar of
//! English task phrases), the elements in every outline it was shown (refs, roles, names,
//! states and their named container), its own earlier steps and their results, and the
//! person's answers. Everything comes from the request; nothing from the test.

use std::collections::HashMap;

use serde_json::Value;

use super::wire::{From, Seen};

/// One task of the goal.
#[derive(Clone, Debug, PartialEq)]
pub enum Task {
    /// Type `text` into the field labelled `field`.
    Type {
        /// The text.
        text: String,
        /// The field's label.
        field: String,
    },
    /// Tick the check box labelled `label`.
    Check {
        /// Its label.
        label: String,
    },
    /// Press the button whose name holds these words.
    Press {
        /// Words of its name.
        words: Vec<String>,
    },
    /// Wait for this text.
    Wait {
        /// The text.
        text: String,
    },
}

impl Task {
    /// The task in words, for thoughts.
    pub fn words(&self) -> String {
        match self {
            Task::Type { text, field } => format!("type {text:?} into {field}"),
            Task::Check { label } => format!("tick {label}"),
            Task::Press { words } => format!("press {}", words.join(" ")),
            Task::Wait { text } => format!("wait for {text:?}"),
        }
    }
}

fn quoted(s: &str) -> Option<(String, String)> {
    let a = s.find('"')?;
    let b = s[a + 1..].find('"')? + a + 1;
    Some((s[a + 1..b].to_string(), format!("{} {}", &s[..a], &s[b + 1..])))
}

/// A flow step's repair, read as a model would read it: the steps said done are not
/// repeated; a press whose button is gone goes to the closest element the failure names
/// (what a model concludes from "closest: push_button \"Place order\"" beside a step that
/// pressed "Submit order"); a press that was blocked is the step's own press again. `None`
/// for any other goal.
fn repair(goal: &str) -> Option<Vec<Task>> {
    if !goal.starts_with("Repair one step of the recorded flow") {
        return None;
    }
    let step = goal.split("was: ").nth(1)?;
    if !(step.starts_with("click ") || step.starts_with("action ")) {
        return Some(Vec::new());
    }
    // The element the failure names closest (it was renamed), else the step's own (a
    // dialog blocked it: dismissing that is the ordinary reaction to a blocked press).
    let name = match goal.split("closest: ").nth(1) {
        Some(closest) => quoted(closest)?.0,
        None => quoted(step.split("name=").nth(1)?)?.0,
    };
    let words =
        name.to_lowercase().split_whitespace().filter(|w| !STOP.contains(w)).map(String::from).collect::<Vec<_>>();
    Some(vec![Task::Press { words }])
}

const STOP: [&str; 10] = ["the", "a", "an", "once", "button", "please", "it", "then", "and", "now"];

/// The tasks of a goal, in order. Clauses are split at sentence ends, semicolons, commas
/// and "and"/"then"; a clause no phrase matches is skipped ("Fill in the form"). A repair of
/// a flow's step (deft-agent's `repair_goal`) is read as that step alone: see [`repair`].
pub fn tasks(goal: &str) -> Vec<Task> {
    if let Some(t) = repair(goal) {
        return t;
    }
    let mut clauses: Vec<String> = vec![goal.to_string()];
    for sep in [". ", ";", ":", ", then ", ", and ", ", ", " and then ", " and ", " then "] {
        clauses = clauses
            .iter()
            .flat_map(|c| {
                // Never split inside quotes.
                let mut parts = Vec::new();
                let mut cur = String::new();
                let mut inside = false;
                let mut rest = c.as_str();
                while !rest.is_empty() {
                    if rest.starts_with('"') {
                        inside = !inside;
                    }
                    if !inside && rest.starts_with(sep) {
                        parts.push(std::mem::take(&mut cur));
                        rest = &rest[sep.len()..];
                        continue;
                    }
                    let ch = rest.chars().next().unwrap_or(' ');
                    cur.push(ch);
                    rest = &rest[ch.len_utf8()..];
                }
                parts.push(cur);
                parts
            })
            .collect();
    }
    let mut out = Vec::new();
    for c in clauses {
        let c = c.trim().trim_end_matches('.').trim();
        let c = ["then ", "Then ", "and ", "And "].iter().find_map(|p| c.strip_prefix(p)).unwrap_or(c).trim();
        let lower = c.to_lowercase();
        let first = lower.split_whitespace().next().unwrap_or_default().to_string();
        match first.as_str() {
            "type" | "enter" | "write" => {
                if let Some((text, rest)) = quoted(c) {
                    let rest = rest.trim();
                    let field = rest
                        .split_whitespace()
                        .skip_while(|w| !matches!(w.to_lowercase().as_str(), "into" | "in"))
                        .skip(1)
                        .filter(|w| !STOP.contains(&w.to_lowercase().as_str()) && w.to_lowercase() != "field")
                        .collect::<Vec<_>>()
                        .join(" ");
                    out.push(Task::Type { text, field });
                }
            }
            "tick" | "check" => {
                let label = c.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
                out.push(Task::Check { label });
            }
            "click" | "press" | "push" | "hit" | "submit" | "save" => {
                let skip = usize::from(matches!(first.as_str(), "click" | "press" | "push" | "hit"));
                let words: Vec<String> = lower
                    .split_whitespace()
                    .skip(skip)
                    .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
                    .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
                    .collect();
                if !words.is_empty() {
                    out.push(Task::Press { words });
                }
            }
            "wait" => {
                if let Some((text, _)) = quoted(c) {
                    out.push(Task::Wait { text });
                }
            }
            _ => {}
        }
    }
    out
}

/// An element as an outline showed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Elem {
    /// Its ref (`e12`).
    pub reference: String,
    /// Its role.
    pub role: String,
    /// Its name.
    pub name: String,
    /// `text=` when shown.
    pub text: Option<String>,
    /// State words (`checked`, `focused`, ...).
    pub flags: Vec<String>,
    /// Its nearest named container (`panel "Billing"`).
    pub context: Option<String>,
    /// The order it was last seen in (later is newer).
    pub seen: usize,
}

/// Parse a Rust-debug quoted string at the start of `s`: (the string, the rest).
fn debug_str(s: &str) -> Option<(String, &str)> {
    let s = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, x)) => out.push(x),
                None => return None,
            },
            '"' => return Some((out, &s[i + 1..])),
            c => out.push(c),
        }
    }
    None
}

/// One outline line: (indent, elem) where the line ends in `[eN]`.
fn outline_line(line: &str, seen: usize) -> Option<(usize, Elem)> {
    let indent = line.len() - line.trim_start().len();
    let l = line.trim();
    let open = l.rfind(" [e")?;
    let reference = l[open + 2..].strip_suffix(']')?.to_string();
    if !reference[1..].chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let body = &l[..open];
    let (role, rest) = body.split_once(' ').unwrap_or((body, ""));
    if !role.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        return None;
    }
    let (name, mut rest) = debug_str(rest.trim_start()).unwrap_or((String::new(), rest));
    let mut text = None;
    let mut flags = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if let Some(r) = rest.strip_prefix("text=") {
            let (t, r2) = debug_str(r)?;
            text = Some(t);
            rest = r2;
        } else if let Some(r) = rest.strip_prefix("value=") {
            let (_, r2) = debug_str(r)?;
            rest = r2;
        } else {
            let (w, r2) = rest.split_once(' ').unwrap_or((rest, ""));
            flags.extend(w.split(',').map(str::to_string));
            rest = r2;
        }
    }
    Some((indent, Elem { reference, role: role.into(), name, text, flags, context: None, seen }))
}

/// `[e12] push_button "Submit" in window "X"`: a line of a find result.
fn find_line(line: &str, seen: usize) -> Option<Elem> {
    let l = line.trim().strip_prefix('[')?;
    let (reference, rest) = l.split_once("] ")?;
    let (role, rest) = rest.split_once(' ')?;
    let (name, _) = debug_str(rest)?;
    Some(Elem { reference: reference.into(), role: role.into(), name, text: None, flags: vec![], context: None, seen })
}

/// Every element shown so far, the newest sighting of each ref winning, and the person's answers.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// By ref.
    pub elems: HashMap<String, Elem>,
    /// The person's answers, in order.
    pub answers: Vec<String>,
}

impl Memory {
    /// Read every text of the request.
    pub fn read(seen: &Seen) -> Memory {
        let mut m = Memory::default();
        let mut n = 0;
        let mut texts: Vec<String> = Vec::new();
        for msg in seen.messages.iter().filter(|m| m.from == From::User) {
            texts.push(msg.text.clone());
            texts.extend(msg.results.iter().map(|r| r.text.clone()));
        }
        for t in texts {
            let mut stack: Vec<(usize, Elem)> = Vec::new();
            for line in t.lines() {
                n += 1;
                if let Some((indent, mut e)) = outline_line(line, n) {
                    while stack.last().is_some_and(|(i, _)| *i >= indent) {
                        stack.pop();
                    }
                    e.context = stack
                        .iter()
                        .rev()
                        .find(|(_, p)| {
                            !p.name.is_empty() && !matches!(p.role.as_str(), "frame" | "application" | "dialog")
                        })
                        .map(|(_, p)| format!("{} {:?}", p.role, p.name));
                    stack.push((indent, e.clone()));
                    m.elems.insert(e.reference.clone(), e);
                } else if let Some(e) = find_line(line, n) {
                    let prior = m.elems.get(&e.reference).and_then(|p| p.context.clone());
                    m.elems.insert(e.reference.clone(), Elem { context: prior, ..e });
                }
                if let Some(i) = line.find("The person answered")
                    && let Some((a, _)) = line[i..].split_once(": ").and_then(|(_, r)| debug_str(r.trim()))
                {
                    m.answers.push(a);
                }
            }
        }
        m
    }

    /// Elements of these roles whose name holds `words` best (all ties), newest first.
    pub fn best(&self, roles: &[&str], words: &[String]) -> Vec<Elem> {
        let mut scored: Vec<(usize, bool, &Elem)> = self
            .elems
            .values()
            .filter(|e| roles.contains(&e.role.as_str()))
            .filter_map(|e| {
                let name = e.name.to_lowercase();
                let name_words: Vec<&str> = name.split(|c: char| !c.is_alphanumeric()).collect();
                let hits = words.iter().filter(|w| name_words.contains(&w.as_str())).count();
                let exact = name_words.iter().filter(|w| !w.is_empty()).count() == words.len() && hits == words.len();
                (hits > 0).then_some((hits, exact, e))
            })
            .collect();
        let top = scored.iter().map(|(h, x, _)| (*h, *x)).max();
        scored.retain(|(h, x, _)| Some((*h, *x)) == top);
        let mut v: Vec<Elem> = scored.into_iter().map(|(_, _, e)| e.clone()).collect();
        v.sort_by_key(|e| e.reference[1..].parse::<u32>().unwrap_or(0));
        v
    }

    /// The field labelled `label` (entries), newest sighting.
    pub fn field(&self, label: &str) -> Option<Elem> {
        let mut v: Vec<&Elem> = self
            .elems
            .values()
            .filter(|e| {
                matches!(e.role.as_str(), "text" | "entry" | "password_text") && e.name.eq_ignore_ascii_case(label)
            })
            .collect();
        v.sort_by_key(|e| e.seen);
        v.last().map(|e| (*e).clone())
    }
}

/// One earlier step of the test model: the task its thought named, the call, the result.
#[derive(Clone, Debug)]
pub struct Past {
    /// `Task k` of the thought (0-based), when it named one.
    pub task: Option<usize>,
    /// The thought.
    pub thought: String,
    /// The tool.
    pub tool: String,
    /// Its arguments.
    pub args: Value,
    /// The result text.
    pub result: String,
}

impl Past {
    /// The result's status: the `status:` line of a whole observation, or what follows
    /// the arrow of one shrunk to a line (`click [e5] … → ok, verified; observed …`).
    pub fn status(&self) -> &str {
        let first = self.result.lines().next().unwrap_or_default().trim_start_matches("[error] ");
        // An outcome as MCP's tool results word it (`✓ type text "Email" verified: ...`),
        // for agents that call Deft over MCP or its Python API rather than Deft's own loop.
        if first.starts_with("✓ ") {
            return "ok (✓)";
        }
        if first.starts_with("✗ ") {
            return "failed (✗)";
        }
        match first.strip_prefix("status: ") {
            Some(s) => s,
            None => first.split_once(" → ").map_or(first, |(_, s)| s),
        }
    }

    /// Whether the call did what it was for.
    pub fn worked(&self) -> bool {
        let s = self.status();
        s.starts_with("ok") || s.starts_with("met") || s.starts_with("answered")
    }
}

/// The test model's own earlier steps, oldest first.
pub fn history(seen: &Seen) -> Vec<Past> {
    let mut out = Vec::new();
    for (i, m) in seen.messages.iter().enumerate() {
        if m.from != From::Assistant {
            continue;
        }
        // "Task 2 of 5 (...): ...", one per call when a reply carries a sequence.
        let tasks: Vec<usize> = m
            .text
            .match_indices("Task ")
            .filter(|(i, _)| *i == 0 || m.text[..*i].ends_with("; "))
            .filter_map(|(i, _)| m.text[i + 5..].split(|c: char| !c.is_ascii_digit()).next()?.parse::<usize>().ok())
            .map(|k| k.saturating_sub(1))
            .collect();
        for (j, c) in m.calls.iter().enumerate() {
            let task = tasks.get(j).or(tasks.first()).copied();
            let result = seen
                .messages
                .get(i + 1)
                .and_then(|n| n.results.iter().find(|r| r.call_id == c.id))
                .map(|r| r.text.clone())
                .unwrap_or_default();
            out.push(Past { task, thought: m.text.clone(), tool: c.name.clone(), args: c.args.clone(), result });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_become_tasks() {
        let t = tasks(
            "Fill in the form: type \"Ada Lovelace\" into Name and tick Subscribe. Then submit the order once, save, and wait for \"Save complete\".",
        );
        assert_eq!(
            t,
            vec![
                Task::Type { text: "Ada Lovelace".into(), field: "Name".into() },
                Task::Check { label: "Subscribe".into() },
                Task::Press { words: vec!["submit".into(), "order".into()] },
                Task::Press { words: vec!["save".into()] },
                Task::Wait { text: "Save complete".into() },
            ]
        );
        assert_eq!(
            tasks("Type \"Ada, Lady\" into the Name field, then press Submit."),
            vec![
                Task::Type { text: "Ada, Lady".into(), field: "Name".into() },
                Task::Press { words: vec!["submit".into()] },
            ]
        );
    }

    #[test]
    fn outline_lines_and_their_containers() {
        let (_, e) = outline_line("    push_button \"Submit order\" focused,checked [e12]", 1).unwrap();
        assert_eq!((e.reference.as_str(), e.role.as_str(), e.name.as_str()), ("e12", "push_button", "Submit order"));
        assert_eq!(e.flags, ["focused", "checked"]);
        let (_, e) = outline_line("text \"Name\" text=\"A \\\"b\\\"\" [e3]", 1).unwrap();
        assert_eq!(e.text.as_deref(), Some("A \"b\""));
        assert!(outline_line("status: ok [e3]", 1).is_none());
    }
}
