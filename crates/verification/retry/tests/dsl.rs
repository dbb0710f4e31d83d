//! The `check(context, transcript)` helper: a transcript both drives and checks the engine.
//!
//! Lines starting with `<-` are observations fed to the engine, in the form
//! `<- AT_MS REPORT ARGS`; lines starting with `->` are the steps the engine must answer
//! with, as `Step`'s `Display` prints them. On a mismatch the actual transcript is printed
//! whole, ready to be read (and, once judged right, pasted).
//!
//! Reports: `sent`, `uncertain MESSAGE`, `refused FLAG,FLAG [blocked="NAME"]`,
//! `verified [WHAT]`, `received [WHAT]`, `no_change [feedback=seen|none|unknown] [loading] [press_unseen] [press_unwatched] [keys_unseen] [keys_astray] [toggle=same|changed]
//! [dialog="NAME"] [own_motion="WHAT"] [done="WHAT"] [held_before]`, `unreadable [MESSAGE]`, `resolved`, `dismissed`.

use deft_retry::{
    ActionContext, ActionPolicy, Engine, Feedback, Observation, PolicySet, Report, Signals, Step, Symptoms, Toggle,
};
use deft_types::{ActionKind, Blocking, Role};

/// Runs `transcript` under the default policy for `ctx.kind`; returns the last step.
pub fn check(ctx: ActionContext, transcript: &str) -> Step {
    check_with(PolicySet::defaults().get(ctx.kind), ctx, transcript)
}

/// Runs `transcript` under `policy`; returns the last step.
pub fn check_with(policy: &ActionPolicy, ctx: ActionContext, transcript: &str) -> Step {
    let expected: Vec<&str> = transcript.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut engine = Engine::new(policy, ctx);
    let mut step = engine.start();
    let mut actual = vec![format!("-> {step}")];
    for line in &expected {
        if let Some(obs) = line.strip_prefix("<-") {
            actual.push(line.to_string());
            step = engine.observe(parse_observation(obs));
            actual.push(format!("-> {step}"));
        }
    }
    let actual = actual.join("\n");
    assert_eq!(actual, expected.join("\n"), "\n--- actual transcript ---\n{actual}\n---");
    step
}

/// A verified action of `kind` on a plain target.
pub fn ctx(kind: ActionKind) -> ActionContext {
    ActionContext::new(kind)
}

pub fn dialog(name: &str) -> Blocking {
    Blocking { role: Role::new("dialog"), name: name.to_string(), texts: Vec::new() }
}

fn parse_observation(text: &str) -> Observation {
    let words = split_words(text);
    let at_ms = words[0].parse().unwrap_or_else(|_| panic!("bad time in `{text}`"));
    let rest = words[2..].join(" ");
    let report = match words[1].as_str() {
        "sent" => Report::Sent,
        "uncertain" => Report::SendUncertain { message: rest },
        "refused" => Report::Refused(symptoms(&words[2..])),
        "verified" => Report::Verified { observed: rest },
        "received" => Report::Received { observed: rest },
        "no_change" => Report::NoChange(signals(&words[2..])),
        "unreadable" => Report::Unreadable { message: rest },
        "resolved" => Report::Resolved,
        "dismissed" => Report::Dismissed,
        other => panic!("unknown report `{other}` in `{text}`"),
    };
    Observation::new(at_ms, report)
}

fn symptoms(words: &[String]) -> Symptoms {
    let mut s = Symptoms::default();
    for w in words {
        if let Some(name) = w.strip_prefix("blocked=") {
            s.hit_other_element = true;
            s.blocking = Some(dialog(name));
            continue;
        }
        for flag in w.split(',') {
            match flag {
                "busy" => s.busy = true,
                "loading_text" => s.loading_text = true,
                "pixels" => s.pixels_changing = true,
                "dialog" => s.dialog_appeared = true,
                "hit_other" => s.hit_other_element = true,
                "vanished" => s.target_vanished = true,
                "moved" => s.target_moved = true,
                "error" => s.backend_error = true,
                "timeout" => s.backend_timeout = true,
                "not_found" => s.not_found = true,
                "unavailable" => s.method_unavailable = true,
                "not_enabled" => s.not_enabled = true,
                "none" => {}
                other => panic!("unknown symptom `{other}`"),
            }
        }
    }
    s
}

fn signals(words: &[String]) -> Signals {
    let mut s = Signals::default();
    for w in words {
        match w.split_once('=') {
            Some(("feedback", v)) => {
                s.feedback = match v {
                    "seen" => Feedback::Seen,
                    "none" => Feedback::NotSeen,
                    "unknown" => Feedback::Unknown,
                    _ => panic!("bad feedback `{v}`"),
                }
            }
            Some(("toggle", v)) => {
                s.toggle = match v {
                    "same" => Toggle::Unchanged,
                    "changed" => Toggle::Changed,
                    "unknown" => Toggle::Unknown,
                    _ => panic!("bad toggle `{v}`"),
                }
            }
            Some(("dialog", name)) => s.blocking = Some(dialog(name)),
            Some(("own_motion", what)) => s.own_motion = Some(what.into()),
            Some(("done", what)) => s.done_as_asked = Some(what.into()),
            None if w == "loading" => s.loading = true,
            None if w == "press_unseen" => s.press_unseen = true,
            None if w == "held_before" => s.held_before = true,
            None if w == "press_unwatched" => s.press_unwatched = true,
            None if w == "keys_unseen" => s.keys_unseen = true,
            None if w == "keys_astray" => s.keys_astray = true,
            _ => panic!("unknown signal `{w}`"),
        }
    }
    s
}

/// Whitespace-separated words; `"..."` keeps spaces and loses its quotes.
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.trim().chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}
