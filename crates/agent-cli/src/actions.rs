//! From a verb's arguments to a `deft_types::Action` (or the condition of `wait`), with
//! every semantic check a usage error before anything touches the desktop.

use deft_input::Chord;
use deft_types::{Action, Condition, MouseButton, Selector, Target, TextMatch};

use crate::cli::{ActionArgs, Button, ClickArgs, KeyArgs, ScrollArgs, SetValueArgs, TargetArgs, TypeArgs, WaitArgs};
use crate::exit::CliError;
use crate::expect;
use crate::selector::{self, TargetSpec};

/// An action ready for the executor, and its target as the user named it.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// The action.
    pub action: Action,
    /// The target in words, for messages when none was resolved.
    pub asked: String,
}

fn spec<'a>(t: &'a TargetArgs, text: Option<(&'a str, &'static str)>) -> TargetSpec<'a> {
    TargetSpec {
        selector: t.selector.as_deref(),
        name: t.name.as_deref(),
        role: t.role.as_deref(),
        id: t.id.as_deref(),
        app: t.app.as_deref(),
        window: t.window.as_deref(),
        index: t.index,
        text,
        at: None,
        matching: t.matching,
    }
}

/// The target of a verb that needs one.
fn required(spec: &TargetSpec<'_>, verb: &str, example: &str) -> Result<Target, CliError> {
    let target = selector::build(spec).map_err(CliError::usage)?.ok_or_else(|| {
        CliError::usage(format!(
            "`{verb}` needs a target: a selector argument, or --name, --role, --id or --text \
             (e.g. agent-cli {verb} {example})"
        ))
    })?;
    selector::require_element(&target).map_err(CliError::usage)?;
    Ok(target)
}

/// `click`.
pub fn click(a: &ClickArgs) -> Result<Planned, CliError> {
    let spec = TargetSpec { at: a.at, ..spec(&a.target, a.text.as_deref().map(|t| (t, "--text"))) };
    let target = required(&spec, "click", "--text \"Submit\"")?;
    let button = match a.button {
        Button::Left => MouseButton::Left,
        Button::Middle => MouseButton::Middle,
        Button::Right => MouseButton::Right,
    };
    let asked = selector::describe(&target);
    Ok(Planned { action: Action::Click { target, button, count: if a.double { 2 } else { 1 } }, asked })
}

/// `type`.
pub fn type_text(a: &TypeArgs) -> Result<Planned, CliError> {
    if a.text.is_empty() {
        return Err(CliError::usage("--text is empty: there is nothing to type (give the text, e.g. --text John)"));
    }
    let spec = spec(&a.target, a.target_text.as_deref().map(|t| (t, "--target")));
    let target = selector::build(&spec).map_err(CliError::usage)?.unwrap_or(Target::Focused);
    selector::require_element(&target).map_err(CliError::usage)?;
    let asked = selector::describe(&target);
    Ok(Planned { action: Action::Type { target, text: a.text.clone() }, asked })
}

/// `set-value`.
pub fn set_value(a: &SetValueArgs) -> Result<Planned, CliError> {
    let spec = spec(&a.target, a.text.as_deref().map(|t| (t, "--text")));
    let target = required(&spec, "set-value", "--name Name --value John")?;
    let asked = selector::describe(&target);
    Ok(Planned { action: Action::SetValue { target, value: a.value.clone() }, asked })
}

/// `action`.
pub fn invoke(a: &ActionArgs) -> Result<Planned, CliError> {
    if a.action.trim().is_empty() {
        return Err(CliError::usage("--action is empty; give an action name such as click, press or activate"));
    }
    let spec = spec(&a.target, a.text.as_deref().map(|t| (t, "--text")));
    let target = required(&spec, "action", "--text \"Submit\"")?;
    let asked = selector::describe(&target);
    Ok(Planned { action: Action::Invoke { target, name: a.action.trim().to_string() }, asked })
}

/// `key`.
pub fn key(a: &KeyArgs) -> Result<Planned, CliError> {
    if a.chord.trim().is_empty() {
        return Err(CliError::usage("the key is empty; give one such as Return or ctrl+s"));
    }
    let chord = Chord::parse(&a.chord).map_err(|e| CliError::usage(e.to_string()))?;
    let chord = chord.to_key_chord();
    Ok(Planned { asked: chord.to_string(), action: Action::Key { chord } })
}

/// `scroll`.
pub fn scroll(a: &ScrollArgs) -> Result<Planned, CliError> {
    let steps = |v: Option<u16>| v.map(i32::from);
    let dy = steps(a.down).or(steps(a.up).map(|n| -n)).unwrap_or(0);
    let dx = steps(a.right).or(steps(a.left).map(|n| -n)).unwrap_or(0);
    if dx == 0 && dy == 0 {
        return Err(CliError::usage(
            "`scroll` needs a direction and a number of steps: --down N, --up N, --left N or --right N",
        ));
    }
    let spec = TargetSpec { at: a.at, ..spec(&a.target, a.text.as_deref().map(|t| (t, "--text"))) };
    let target = required(&spec, "scroll", "--name Items --down 3")?;
    let asked = selector::describe(&target);
    Ok(Planned { action: Action::Scroll { target, dx, dy }, asked })
}

/// The condition of `wait`: a condition argument, or flags. Exactly one way.
pub fn wait_condition(a: &WaitArgs) -> Result<Condition, CliError> {
    let usage = |m: String| CliError::usage(m);
    let positional_condition = a.target.selector.as_deref().filter(|s| expect::looks_like_condition(s));
    if let Some(c) = positional_condition {
        let t = &a.target;
        let flags = t.name.is_some()
            || t.role.is_some()
            || t.id.is_some()
            || t.app.is_some()
            || t.window.is_some()
            || t.index.is_some()
            || a.text.is_some()
            || a.gone
            || a.state.is_some()
            || a.value.is_some()
            || a.title.is_some();
        if flags {
            return Err(usage(format!(
                "`wait {c}` already names the condition; the flags --name, --role, --text, --gone, --state, \
                 --value and --title are another way to say it: use one or the other"
            )));
        }
        return expect::parse(c).map_err(usage);
    }
    if let Some(title) = &a.title {
        if a.text.is_some() || a.gone || a.state.is_some() || a.value.is_some() || a.target.selector.is_some() {
            return Err(usage("--title waits for a window; it cannot be combined with other conditions".into()));
        }
        if title.trim().is_empty() {
            return Err(usage("--title is empty; give a window title".into()));
        }
        return Ok(Condition::WindowTitle(a.target.matching_text(title)));
    }
    let spec = spec(&a.target, a.text.as_deref().map(|t| (t, "--text")));
    let target = selector::build(&spec).map_err(usage)?.ok_or_else(|| {
        usage(
            "`wait` needs a condition: e.g. agent-cli wait 'text:\"Saved\"', wait --gone --name Loading, \
             wait --role dialog (see --help for the condition syntax)"
                .into(),
        )
    })?;
    let sel = match target {
        Target::Text(t) if a.state.is_none() && a.value.is_none() => {
            return Ok(if a.gone { Condition::TextGone(t) } else { Condition::TextAppears(t) });
        }
        Target::Text(t) => Selector { text: Some(t), ..Selector::default() },
        Target::Selector(s) => s,
        Target::Point(_) | Target::Focused => return Err(usage("`wait` needs an element or text, not a point".into())),
    };
    if let Some(state) = &a.state {
        let (present, name) = match state.trim().strip_prefix('!') {
            Some(n) => (false, n),
            None => (true, state.trim()),
        };
        let state = expect::parse_state(name).map_err(|e| usage(format!("--state: {e}")))?;
        return Ok(Condition::ElementState { selector: sel, state, present });
    }
    if let Some(v) = &a.value {
        return Ok(Condition::Value { selector: sel, value: a.target.matching_text(v) });
    }
    Ok(if a.gone { Condition::ElementGone(sel) } else { Condition::ElementExists(sel) })
}

impl TargetArgs {
    /// A text compared as `--match` says.
    pub fn matching_text(&self, s: &str) -> TextMatch {
        match self.matching {
            selector::MatchMode::Exact => TextMatch::Exact(s.to_string()),
            selector::MatchMode::Contains => TextMatch::Contains(s.to_string()),
            selector::MatchMode::Regex => TextMatch::Regex(s.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use deft_types::{KeyChord, Role, State};

    use super::*;
    use crate::cli::{Cli, Verb};

    /// Parse `argv` (without the program name) and plan its action, or say why not.
    fn plan(argv: &str) -> Result<Planned, String> {
        let args = std::iter::once("agent-cli".to_string()).chain(shell_words(argv));
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        let r = match &cli.verb {
            Verb::Click(a) => click(a),
            Verb::Type(a) => type_text(a),
            Verb::SetValue(a) => set_value(a),
            Verb::Action(a) => invoke(a),
            Verb::Key(a) => key(a),
            Verb::Scroll(a) => scroll(a),
            Verb::Wait(a) => {
                wait_condition(a).map(|c| Planned { action: Action::Wait { condition: c }, asked: String::new() })
            }
            other => panic!("not an action: {other:?}"),
        };
        r.map_err(|e| e.message)
    }

    /// Split on spaces, keeping '...' together (enough for these tests).
    fn shell_words(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let (mut quoted, mut started) = (false, false);
        for c in s.chars() {
            match c {
                '\'' => (quoted, started) = (!quoted, true),
                ' ' if !quoted => {
                    if started {
                        out.push(std::mem::take(&mut cur));
                        started = false;
                    }
                }
                c => (cur, started) = (cur + &c.to_string(), true),
            }
        }
        if started {
            out.push(cur);
        }
        out
    }

    fn check(argv: &str, action: Action) {
        assert_eq!(plan(argv).map(|p| p.action), Ok(action), "{argv}");
    }

    fn check_err(argv: &str, needle: &str) {
        let e = plan(argv).unwrap_err();
        assert!(e.contains(needle), "{argv}: {e:?} lacks {needle:?}");
    }

    fn exact(s: &str) -> Option<TextMatch> {
        Some(TextMatch::Exact(s.into()))
    }

    fn text(s: &str) -> Target {
        Target::Text(TextMatch::Exact(s.into()))
    }

    #[test]
    fn action_verbs() {
        check("click --text Submit", Action::Click { target: text("Submit"), button: MouseButton::Left, count: 1 });
        check(
            "click --target Submit --double --button right",
            Action::Click { target: text("Submit"), button: MouseButton::Right, count: 2 },
        );
        check(
            "click --at 10,20",
            Action::Click {
                target: Target::Point(deft_types::Point::new(10, 20)),
                button: MouseButton::Left,
                count: 1,
            },
        );
        check("type --target Name --text John", Action::Type { target: text("Name"), text: "John".into() });
        check("type --text John", Action::Type { target: Target::Focused, text: "John".into() });
        check(
            "set-value --id 42 --value hello",
            Action::SetValue {
                target: Target::Selector(Selector {
                    id: Some(deft_types::ElementId("42".into())),
                    ..Selector::default()
                }),
                value: "hello".into(),
            },
        );
        check("action --text Submit", Action::Invoke { target: text("Submit"), name: "click".into() });
        check(
            "action --name Subscribe --action toggle",
            Action::Invoke {
                target: Target::Selector(Selector { name: exact("Subscribe"), ..Selector::default() }),
                name: "toggle".into(),
            },
        );
        check("key ctrl+S", Action::Key { chord: KeyChord { modifiers: vec!["ctrl".into()], key: "s".into() } });
        check(
            "scroll --name Items --up 2",
            Action::Scroll {
                target: Target::Selector(Selector { name: exact("Items"), ..Selector::default() }),
                dx: 0,
                dy: -2,
            },
        );
    }

    #[test]
    fn missing_and_bad_arguments() {
        check_err("click", "`click` needs a target");
        check_err("click --app deft-fixture", "names only an application");
        check_err("type --target Name", "--text <TEXT>");
        check_err("type --text ''", "nothing to type");
        check_err("set-value --value x", "`set-value` needs a target");
        check_err("set-value --name Name", "--value <VALUE>");
        check_err("key ctrl+nosuchkey", "nosuchkey");
        check_err("scroll --name Items", "needs a direction");
        check_err("scroll --name Items --up 1 --down 1", "cannot be used with");
        check_err("click --name A --at 1,2", "cannot be combined");
        check_err("click --at 1", "X,Y");
        check_err("action --text Submit --action ' '", "--action is empty");
    }

    fn check_wait(argv: &str, condition: Condition) {
        check(argv, Action::Wait { condition });
    }

    #[test]
    fn wait_conditions() {
        check_wait(
            "wait 'text:\"Save complete\"'",
            Condition::TextAppears(TextMatch::Contains("Save complete".into())),
        );
        check_wait("wait --text 'Save complete'", Condition::TextAppears(TextMatch::Exact("Save complete".into())));
        check_wait("wait --gone --text Loading...", Condition::TextGone(TextMatch::Exact("Loading...".into())));
        check_wait(
            "wait --gone --name Loading",
            Condition::ElementGone(Selector { name: exact("Loading"), ..Selector::default() }),
        );
        check_wait(
            "wait --role dialog",
            Condition::ElementExists(Selector { role: Some(Role::new("dialog")), ..Selector::default() }),
        );
        check_wait(
            "wait role=dialog",
            Condition::ElementExists(Selector { role: Some(Role::new("dialog")), ..Selector::default() }),
        );
        check_wait(
            "wait --name Subscribe --state '!checked'",
            Condition::ElementState {
                selector: Selector { name: exact("Subscribe"), ..Selector::default() },
                state: State::Checked,
                present: false,
            },
        );
        check_wait(
            "wait --name Name --value John",
            Condition::Value {
                selector: Selector { name: exact("Name"), ..Selector::default() },
                value: TextMatch::Exact("John".into()),
            },
        );
        check_wait("wait --title 'Save complete'", Condition::WindowTitle(TextMatch::Exact("Save complete".into())));
    }

    #[test]
    fn wait_mistakes() {
        check_err("wait", "`wait` needs a condition");
        check_err("wait gone:name=x --name y", "use one or the other");
        check_err("wait 'text:'", "expected a text");
        check_err("wait --name x --state bogus", "--state: unknown state 'bogus'");
        check_err("wait --title A --gone", "cannot be combined");
        check_err("wait --gone --state checked --name x", "cannot be used with");
    }
}
