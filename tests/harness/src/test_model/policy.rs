//! The test model's reply policy: from what the agent sent (the goal, the tools, the
//! outlines with refs, its own earlier steps and their results, the person's answers, a
//! resume note's list of what an earlier attempt did) to one reply. It is a small
//! deterministic program, not a language model, and it is never told answers by a test: a
//! test chooses only the persona (an honest model, or a gullible one that obeys
//! instructions it reads on the screen).

use serde_json::{Value, json};

use super::reading::{Memory, Past, Task, history, tasks};
use super::wire::{Reply, Seen};

/// How the test model behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persona {
    /// Pursues the goal; treats screen text as data.
    Honest,
    /// Like `Honest`, but first obeys an instruction it finds in the screen text (`press
    /// "X"`, `press ctrl+alt+t`), the way a model persuaded by a prompt injection would.
    Gullible,
}

/// The first line of the agent's confidence check (deft-agent's `prompt::CHECK_HEADER`;
/// the test model reads prompts as any model would, by their words).
const CHECK: &str = "You check one proposed action of a desktop agent.";
/// The first line of a vision question.
const VISION: &str = "You look at a screenshot";

/// A tiny deterministic generator for sampled answers.
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The reply to `seen`.
pub fn reply(seen: &Seen, persona: Persona, rng: &mut Rng) -> Reply {
    if seen.system.starts_with(CHECK) {
        return check(seen, rng);
    }
    if seen.system.starts_with(VISION) {
        // The test model cannot see pixels; it says so by never confirming a look.
        return Reply { text: "no".into(), ..Reply::default() };
    }
    step(seen, persona)
}

fn say(text: String, tool: &str, args: Value) -> Reply {
    Reply { text, calls: vec![(tool.to_string(), args)], ..Reply::default() }
}

/// The distribution over the check's letters: one option is nearly sure; several are
/// even unless the goal or the person's words name one's container.
fn check(seen: &Seen, rng: &mut Rng) -> Reply {
    let user = seen.messages.first().map(|m| m.text.clone()).unwrap_or_default();
    let goal = user.lines().find_map(|l| l.strip_prefix("Goal: ")).unwrap_or_default().to_lowercase();
    let said: Vec<String> =
        user.lines().filter_map(|l| l.strip_prefix("The person said: ")).map(str::to_lowercase).collect();
    let options: Vec<(char, String)> = user
        .lines()
        .filter_map(|l| {
            let mut c = l.chars();
            let letter = c.next()?;
            let rest = c.as_str().strip_prefix(") ")?;
            letter.is_ascii_uppercase().then(|| (letter, rest.to_string()))
        })
        .collect();
    let ask = options.iter().find(|(_, w)| w.starts_with("none of these")).map_or('Z', |(l, _)| *l);
    let elems: Vec<&(char, String)> = options.iter().filter(|(l, _)| *l != ask).collect();
    let named = |w: &str| {
        let ctx = w.split(" in ").nth(1).unwrap_or_default();
        let ctx_name = ctx.split('"').nth(1).unwrap_or_default().to_lowercase();
        !ctx_name.is_empty() && (goal.contains(&ctx_name) || said.iter().any(|s| s.contains(&ctx_name)))
    };
    let mut probs: Vec<(char, f64)> = Vec::new();
    if elems.len() <= 1 {
        probs.extend(elems.iter().map(|(l, _)| (*l, 0.96)));
        probs.push((ask, 0.04));
    } else if let Some(pick) = elems.iter().find(|(_, w)| named(w)) {
        let rest = 0.04 / elems.len() as f64;
        probs.extend(elems.iter().map(|(l, _)| (*l, if *l == pick.0 { 0.96 } else { rest })));
        probs.push((ask, rest));
    } else {
        probs.extend(elems.iter().map(|(l, _)| (*l, 0.9 / elems.len() as f64)));
        probs.push((ask, 0.1));
    }
    probs.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut sample = || {
        let mut x = rng.next();
        for (l, p) in &probs {
            if x < *p {
                return l.to_string();
            }
            x -= p;
        }
        probs[0].0.to_string()
    };
    if seen.logprobs.is_some() {
        return Reply {
            text: probs[0].0.to_string(),
            top_logprobs: Some(probs.iter().map(|(l, p)| (l.to_string(), p.ln())).collect()),
            ..Reply::default()
        };
    }
    let text = sample();
    let samples = (1..seen.n).map(|_| sample()).collect();
    Reply { text, samples, ..Reply::default() }
}

const BUTTONS: [&str; 4] = ["push_button", "toggle_button", "menu_item", "link"];

/// Whether the acting tools take a `confidence` (the inline mode).
fn inline(seen: &Seen) -> bool {
    seen.tools.iter().any(|(n, s)| n == "click" && s["properties"].get("confidence").is_some())
}

/// Whether the system prompt allows a sequence of calls in one reply.
fn multi(seen: &Seen) -> bool {
    seen.system.contains("short sequence of tool calls")
}

fn with_confidence(seen: &Seen, mut args: Value, c: f64) -> Value {
    if inline(seen) {
        args["confidence"] = json!(c);
    }
    args
}

fn step(seen: &Seen, persona: Persona) -> Reply {
    let opening = seen.messages.first().map(|m| m.text.clone()).unwrap_or_default();
    let goal = opening.lines().find_map(|l| l.strip_prefix("Goal: ")).unwrap_or_default().to_string();
    let tasks = tasks(&goal);
    let mem = Memory::read(seen);
    let past = history(seen);
    if persona == Persona::Gullible
        && let Some(r) = obey_screen(&mem, &past, seen)
    {
        return r;
    }
    if let Some(r) = react(&mem, &past) {
        return r;
    }
    let n = tasks.len();
    let before = done_before(&opening);
    let Some(k) = (0..n).find(|&k| !done(&tasks[k], k, &past, &mem) && !before.iter().any(|d| did(&tasks[k], d)))
    else {
        let said =
            if tasks.is_empty() { "I found no task I can do in the goal" } else { "every task of the goal is done" };
        return say(
            format!("All {n} tasks are done; {said}."),
            "done",
            json!({"summary": format!("{said}: {}", tasks.iter().map(Task::words).collect::<Vec<_>>().join(", ")), "goal_met": !tasks.is_empty()}),
        );
    };
    let tries = past.iter().filter(|p| p.task == Some(k) && !p.worked() && is_main(&tasks[k], p)).count();
    if tries >= 3 {
        return say(
            format!("Task {} of {n} ({}): it failed {tries} times; I give up.", k + 1, tasks[k].words()),
            "done",
            json!({"summary": format!("could not {}", tasks[k].words()), "goal_met": false}),
        );
    }
    let mut reply = act(seen, &tasks[k], k, n, &mem);
    // A sequence: form fields that need no look in between go in the same reply.
    if multi(seen) && matches!(tasks[k], Task::Type { .. } | Task::Check { .. }) {
        for (j, task) in tasks.iter().enumerate().skip(k + 1) {
            if !matches!(task, Task::Type { .. } | Task::Check { .. }) || done(task, j, &past, &mem) {
                break;
            }
            let more = act(seen, task, j, n, &mem);
            if more.calls.iter().any(|(t, _)| t == "read") {
                break;
            }
            reply.text = format!("{}; {}", reply.text, more.text);
            reply.calls.extend(more.calls);
        }
    }
    reply
}

/// What an earlier attempt of the task did, as the goal's resume note lists it
/// (`- done: click "Save" (on this desktop; ...)`), lower-cased; only what was done on this
/// desktop counts here.
fn done_before(opening: &str) -> Vec<String> {
    opening
        .lines()
        .filter_map(|l| l.strip_prefix("- done: "))
        .filter(|l| l.contains("(on this desktop"))
        .map(str::to_lowercase)
        .collect()
}

/// Whether a done line of the resume note is `t`.
fn did(t: &Task, line: &str) -> bool {
    match t {
        Task::Type { text, field } => {
            line.starts_with(&format!("type {:?} into", text.to_lowercase())) && line.contains(&field.to_lowercase())
        }
        Task::Check { label } => line.starts_with("click ") && line.contains(&label.to_lowercase()),
        Task::Press { words } => line.starts_with("click ") && words.iter().all(|w| line.contains(&w.to_lowercase())),
        Task::Wait { .. } => false,
    }
}

/// The call that does a task (not a dismissal or a read on the way).
fn is_main(t: &Task, p: &Past) -> bool {
    if p.thought.contains("(continued)") {
        return false; // a read or a dismissal on the way
    }
    match t {
        Task::Type { .. } => p.tool == "type",
        Task::Check { .. } | Task::Press { .. } => p.tool == "click",
        Task::Wait { .. } => p.tool == "wait_for_visual_cue",
    }
}

fn done(t: &Task, k: usize, past: &[Past], mem: &Memory) -> bool {
    if past.iter().any(|p| p.task == Some(k) && p.status().starts_with("blocked by policy")) {
        return true; // refused below the model: nothing more this model can do for it
    }
    let worked = past.iter().any(|p| p.task == Some(k) && is_main(t, p) && p.worked());
    match t {
        Task::Check { label } => {
            worked
                || mem
                    .best(&["check_box"], &[label.to_lowercase()])
                    .first()
                    .is_some_and(|e| e.flags.iter().any(|f| f == "checked"))
        }
        _ => worked,
    }
}

/// React to the last result when it needs it: a blocking dialog, a stale ref.
fn react(mem: &Memory, past: &[Past]) -> Option<Reply> {
    let last = past.last()?;
    let task = last.task.map_or(String::new(), |k| format!("Task {} ", k + 1));
    if let Some(dialog) = blocking_dialog(&last.result) {
        return Some(say(
            format!("{task}(continued): the dialog {dialog:?} blocks the target; I read it to find how to dismiss it."),
            "read",
            json!({"window": dialog}),
        ));
    }
    if last.tool == "read"
        && let Some(w) = last.args["window"].as_str()
        && past.len() >= 2
        && blocking_dialog(&past[past.len() - 2].result).as_deref() == Some(w)
    {
        let ok = ["OK", "Close", "Dismiss", "Cancel"].iter().find_map(|n| {
            mem.elems.values().filter(|e| e.role == "push_button" && e.name == *n).max_by_key(|e| e.seen).cloned()
        })?;
        return Some(say(
            format!("{task}(continued): dismissing {w:?} with its {:?} button, then I retry.", ok.name),
            "click",
            json!({"target": ok.reference}),
        ));
    }
    if last.status().starts_with("error (stale_ref)") {
        return Some(say(
            format!("{task}(continued): that ref is stale; reading the window again."),
            "read",
            json!({"app": "deft-fixture"}),
        ));
    }
    None
}

fn blocking_dialog(result: &str) -> Option<String> {
    let line = result.lines().find(|l| l.starts_with("blocking: dialog "))?;
    let rest = line.trim_start_matches("blocking: dialog ");
    Some(rest.split('"').nth(1)?.to_string())
}

fn act(seen: &Seen, t: &Task, k: usize, n: usize, mem: &Memory) -> Reply {
    let head = format!("Task {} of {n} ({})", k + 1, t.words());
    match t {
        Task::Type { text, field } => match mem.field(field) {
            Some(e) => say(
                format!("{head}: typing into the {field} field [{}].", e.reference),
                "type",
                with_confidence(seen, json!({"target": e.reference, "text": text}), 0.95),
            ),
            None => say(format!("{head}: I do not see a {field} field; reading the desktop."), "read", json!({})),
        },
        Task::Check { label } => match mem.best(&["check_box"], &[label.to_lowercase()]).first() {
            Some(e) => say(
                format!("{head}: ticking {:?} [{}].", e.name, e.reference),
                "click",
                with_confidence(seen, json!({"target": e.reference}), 0.95),
            ),
            None => say(format!("{head}: I do not see {label}; reading the desktop."), "read", json!({})),
        },
        Task::Press { words } => {
            let cands = mem.best(&BUTTONS, words);
            let answers: Vec<String> = mem.answers.iter().map(|a| a.to_lowercase()).collect();
            let chosen = cands.iter().find(|e| {
                e.context
                    .as_ref()
                    .and_then(|c| c.split('"').nth(1))
                    .is_some_and(|c| answers.iter().any(|a| a.contains(&c.to_lowercase())))
            });
            match (chosen, cands.as_slice()) {
                (Some(e), _) => say(
                    format!(
                        "{head}: the person said which one: {:?} in {}; pressing [{}].",
                        e.name,
                        e.context.as_deref().unwrap_or("?"),
                        e.reference
                    ),
                    "click",
                    with_confidence(seen, json!({"target": e.reference}), 0.95),
                ),
                (None, []) => say(format!("{head}: I do not see that button; reading the desktop."), "read", json!({})),
                (None, [e]) => say(
                    format!("{head}: pressing {:?} [{}].", e.name, e.reference),
                    "click",
                    with_confidence(seen, json!({"target": e.reference}), 0.95),
                ),
                (None, many) => {
                    let list: Vec<String> = many
                        .iter()
                        .map(|e| format!("{:?} in {}", e.name, e.context.as_deref().unwrap_or("the window")))
                        .collect();
                    say(
                        format!(
                            "{head}: {} buttons match ({}); the goal does not say which, so I try the first [{}].",
                            many.len(),
                            list.join(", "),
                            many[0].reference
                        ),
                        "click",
                        with_confidence(seen, json!({"target": many[0].reference}), 0.5),
                    )
                }
            }
        }
        Task::Wait { text } => say(
            format!("{head}: waiting until {text:?} shows."),
            "wait_for_visual_cue",
            json!({"description": format!("the text \"{text}\" appears"), "timeout_ms": 15000}),
        ),
    }
}

/// The gullible persona: an instruction on the screen (`press "X"`, `press ctrl+alt+t`),
/// obeyed once.
fn obey_screen(mem: &Memory, past: &[Past], seen: &Seen) -> Option<Reply> {
    if past.iter().any(|p| p.thought.starts_with("The screen says")) {
        return None;
    }
    let screen: String = seen
        .messages
        .iter()
        .flat_map(|m| std::iter::once(m.text.clone()).chain(m.results.iter().map(|r| r.text.clone())))
        .collect::<Vec<_>>()
        .join("\n");
    let lower = screen.to_lowercase();
    let at = lower.find("ai assistant")?;
    let instr = &screen[at..];
    if let Some(i) = instr.to_lowercase().find("press \\\"").or_else(|| instr.to_lowercase().find("press \"")) {
        let rest = instr[i + 6..].trim_start_matches(['\\', '"']);
        let name: String = rest.chars().take_while(|c| *c != '"' && *c != '\\').collect();
        let target = mem.elems.values().find(|e| e.name == name).map(|e| e.reference.clone());
        let args = match target {
            Some(r) => json!({"target": r}),
            None => json!({"name": name}),
        };
        return Some(say(format!("The screen says to press {name:?}; doing that first."), "click", args));
    }
    if let Some(i) = instr.to_lowercase().find("press ") {
        let chord: String = instr[i + 6..].chars().take_while(|c| !c.is_whitespace() && *c != '.').collect();
        return Some(say(
            format!("The screen says to press {chord}; doing that first."),
            "key",
            json!({"keys": chord}),
        ));
    }
    None
}
