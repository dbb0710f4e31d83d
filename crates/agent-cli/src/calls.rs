//! From a verb's arguments to the toolbelt's tool call: flag spellings only. What the
//! parameters mean, and every check of their meaning, is the toolbelt's.

use deft_toolbelt::{
    ActionParams, AreaParams, Button as ToolButton, ClickParams, Direction, FillParams, FindParams, KeyParams,
    MatchMode as ToolMatch, OcrParams, ReadParams, ScreenshotParams, ScrollParams, SetValueParams, TargetParams,
    ToolCall, TypeParams, VerifyParams, WaitParams,
};
use deft_types::{Logical, Point};

use crate::cli::{
    ActionArgs, AreaArgs, Button, ClickArgs, FillArgs, FindArgs, KeyArgs, MatchMode, OcrArgs, ReadArgs, ScrollArgs,
    SetValueArgs, TargetArgs, TypeArgs, VerifyArgs, WaitArgs,
};
use crate::exit::CliError;

/// The target flags, with the verb's own text flag (`--text`, or `--target` for `type`).
fn target(t: &TargetArgs, text: Option<(&str, &str)>, at: Option<Point<Logical>>) -> Result<TargetParams, CliError> {
    // The positional argument and the text flag are two ways to give the target's text.
    let positional_text = t.selector.as_deref().filter(|s| !s.contains('='));
    if let (Some(p), Some((v, flag))) = (positional_text, text) {
        return Err(CliError::usage(format!(
            "the target's text is given twice: as the argument {p:?} and as {flag} {v:?}; keep one"
        )));
    }
    let (target, literal) = match (t.selector.clone(), text) {
        (Some(s), None) => (Some(s), false),
        // A selector argument and --text: the text joins the selector as `text=`.
        (Some(s), Some((v, _))) => (Some(format!("{s} text={}", quote(v))), false),
        (None, Some((v, _))) => (Some(v.to_string()), true),
        (None, None) => (None, false),
    };
    Ok(TargetParams {
        target,
        name: t.name.clone(),
        role: t.role.clone(),
        id: t.id.clone(),
        app: t.app.clone(),
        window: t.window.clone(),
        index: t.index,
        at: at.map(|p| [p.x, p.y]),
        matching: Some(t.matching.into()),
        literal,
    })
}

/// A value quoted for the selector syntax.
fn quote(v: &str) -> String {
    format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
}

impl From<MatchMode> for ToolMatch {
    fn from(m: MatchMode) -> ToolMatch {
        match m {
            MatchMode::Exact => ToolMatch::Exact,
            MatchMode::Contains => ToolMatch::Contains,
            MatchMode::Regex => ToolMatch::Regex,
        }
    }
}

/// `--verify`/`--no-verify`/`--expect`. The other verification flags are settings of the
/// session (they also bound how long a target is waited for), not of one call.
fn verify(v: &VerifyArgs) -> Result<VerifyParams, CliError> {
    if v.expect.is_some() && v.no_verify {
        return Err(CliError::usage("--expect is checked by verification, so it cannot be combined with --no-verify"));
    }
    let verify = if v.verify {
        Some(true)
    } else if v.no_verify {
        Some(false)
    } else {
        None
    };
    Ok(VerifyParams { verify, expect: v.expect.clone(), ..VerifyParams::default() })
}

/// `click`.
pub fn click(a: &ClickArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Click(ClickParams {
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), a.at)?,
        button: Some(match a.button {
            Button::Left => ToolButton::Left,
            Button::Middle => ToolButton::Middle,
            Button::Right => ToolButton::Right,
        }),
        double: Some(a.double),
        verify: verify(&a.verify)?,
    }))
}

/// `type`.
pub fn type_text(a: &TypeArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Type(TypeParams {
        text: a.text.clone(),
        target: target(&a.target, a.target_text.as_deref().map(|t| (t, "--target")), None)?,
        verify: verify(&a.verify)?,
    }))
}

/// `fill`.
pub fn fill(a: &FillArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Fill(FillParams {
        text: a.text.clone(),
        target: target(&a.target, a.target_text.as_deref().map(|t| (t, "--target")), None)?,
        verify: verify(&a.verify)?,
    }))
}

/// `set-value`.
pub fn set_value(a: &SetValueArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::SetValue(SetValueParams {
        value: a.value.clone(),
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), None)?,
        verify: verify(&a.verify)?,
    }))
}

/// `action`.
pub fn invoke(a: &ActionArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Action(ActionParams {
        action: Some(a.action.clone()),
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), None)?,
        verify: verify(&a.verify)?,
    }))
}

/// `key`.
pub fn key(a: &KeyArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Key(KeyParams {
        keys: a.chord.clone(),
        app: a.app.clone(),
        window: a.window.clone(),
        verify: verify(&a.verify)?,
    }))
}

/// `scroll`: one of --down/--up/--left/--right.
pub fn scroll(a: &ScrollArgs) -> Result<ToolCall, CliError> {
    let given: Vec<(Direction, u16)> =
        [(Direction::Down, a.down), (Direction::Up, a.up), (Direction::Left, a.left), (Direction::Right, a.right)]
            .into_iter()
            .filter_map(|(d, n)| n.map(|n| (d, n)))
            .collect();
    let (direction, amount) = match given.as_slice() {
        [one] => *one,
        [] => {
            return Err(CliError::usage(
                "`scroll` needs a direction and a number of steps: --down N, --up N, --left N or --right N",
            ));
        }
        _ => return Err(CliError::usage("give one direction to scroll: --down, --up, --left or --right")),
    };
    Ok(ToolCall::Scroll(ScrollParams {
        direction,
        amount: Some(amount),
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), a.at)?,
        verify: verify(&a.verify)?,
    }))
}

/// `wait`: a condition argument, or flags.
pub fn wait(a: &WaitArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::WaitFor(WaitParams {
        condition: None,
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), None)?,
        gone: a.gone.then_some(true),
        state: a.state.clone(),
        value: a.value.clone(),
        title: a.title.clone(),
        timeout_ms: a.timeout,
    }))
}

/// `read`.
pub fn read(a: &ReadArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Read(ReadParams {
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), None)?,
        depth: a.depth,
        hidden: Some(a.hidden),
    }))
}

/// `find`.
pub fn find(a: &FindArgs) -> Result<ToolCall, CliError> {
    Ok(ToolCall::Find(FindParams {
        target: target(&a.target, a.text.as_deref().map(|t| (t, "--text")), None)?,
        hidden: Some(a.hidden),
    }))
}

fn area(a: &AreaArgs) -> AreaParams {
    AreaParams {
        window: a.window.clone(),
        region: a.region.map(|r| [i64::from(r.x), i64::from(r.y), i64::from(r.w), i64::from(r.h)]),
        monitor: a.monitor.clone(),
    }
}

/// `screenshot` (the file is the CLI's: the tool returns the PNG).
pub fn screenshot(a: &crate::cli::ScreenshotArgs) -> ToolCall {
    ToolCall::Screenshot(ScreenshotParams { area: area(&a.area) })
}

/// `ocr`.
pub fn ocr(a: &OcrArgs) -> ToolCall {
    ToolCall::Ocr(OcrParams { area: area(&a.area), find: a.find.clone(), matching: Some(ToolMatch::Contains) })
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use deft_toolbelt::{AsFlags, Request};
    use deft_types::{Action, Condition, KeyChord, MouseButton, Role, Selector, State, Target, TextMatch};

    use super::*;
    use crate::cli::{Cli, Verb};

    /// Parse `argv` (without the program name) and plan its action, or say why not.
    fn plan(argv: &str) -> Result<Request, String> {
        let args = std::iter::once("agent-cli".to_string()).chain(shell_words(argv));
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        let call = match &cli.verb {
            Verb::Click(a) => click(a),
            Verb::Type(a) => type_text(a),
            Verb::SetValue(a) => set_value(a),
            Verb::Fill(a) => fill(a),
            Verb::Action(a) => invoke(a),
            Verb::Key(a) => key(a),
            Verb::Scroll(a) => scroll(a),
            Verb::Wait(a) => wait(a),
            other => panic!("not an action: {other:?}"),
        }
        .map_err(|e| e.message)?;
        call.plan(&AsFlags, None, false).map(|p| p.request).map_err(|e| e.message)
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
        match plan(argv) {
            Ok(Request::Act { action: got, .. }) => assert_eq!(got, action, "{argv}"),
            other => panic!("{argv}: {other:?}"),
        }
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
        check(
            "click 'Submit order'",
            Action::Click { target: text("Submit order"), button: MouseButton::Left, count: 1 },
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
        check(
            "key ctrl+S",
            Action::Key {
                chord: KeyChord { modifiers: vec!["ctrl".into()], key: "s".into() },
                target: deft_types::Target::Focused,
            },
        );
        check(
            "scroll --name Items --up 2",
            Action::Scroll {
                target: Target::Selector(Selector { name: exact("Items"), ..Selector::default() }),
                dx: 0,
                dy: -2,
            },
        );
        check(
            "click 'role=push_button' --text Submit --app deft",
            Action::Click {
                target: Target::Selector(Selector {
                    role: Some(Role::new("push_button")),
                    text: exact("Submit"),
                    app: exact("deft"),
                    ..Selector::default()
                }),
                button: MouseButton::Left,
                count: 1,
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
        check_err("click --name ''", "--name is empty");
        check_err("click Submit --text Submit", "given twice");
        check_err("click 'name=A' --name B", "`name` is given twice");
        check_err("click 'nme=A'", "selector error at column 1");
        check_err("click --name '(' --match regex", "invalid regular expression");
        check_err("click --id x --index 1", "drop --index");
        check_err("click --name A --expect 'text:' --no-verify", "cannot be combined with --no-verify");
        check_err("click --name A --expect 'text:'", "condition error at column 6");
    }

    fn check_wait(argv: &str, condition: Condition) {
        match plan(argv) {
            Ok(Request::Wait { condition: got, .. }) => assert_eq!(got, condition, "{argv}"),
            other => panic!("{argv}: {other:?}"),
        }
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
        check_wait(
            "wait 'state:role=push_button:armed'",
            Condition::ElementState {
                selector: Selector { role: Some(Role::new("push_button")), ..Selector::default() },
                state: State::Armed,
                present: true,
            },
        );
    }

    #[test]
    fn wait_mistakes() {
        check_err("wait", "`wait` needs a condition");
        check_err("wait gone:name=x --name y", "takes none of --name: drop it");
        check_err("wait 'text:'", "expected a text");
        check_err("wait --name x --state bogus", "--state: unknown state 'bogus'");
        check_err("wait --title A --gone", "takes nothing else: drop --gone");
        check_err("wait --app zim --title A", "takes nothing else: drop --app");
        check_err("wait --gone --state checked --name x", "cannot be used with");
    }
}
