//! Build a [`Target`] from the target flags (`--name`, `--role`, `--id`, `--text`, `--app`,
//! `--window`, `--index`, `--at`) and an optional selector in deft-a11y's text syntax.

use clap::ValueEnum;
use deft_a11y::selector;
use deft_types::{ElementId, Logical, Point, Role, Selector, Target, TextMatch};

/// How `--name`, `--text`, `--app` and `--window` compare.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, ValueEnum)]
pub enum MatchMode {
    /// Equal to the whole text.
    #[default]
    Exact,
    /// Contains the text, ignoring case.
    Contains,
    /// Matches the regular expression.
    Regex,
}

impl MatchMode {
    fn make(self, s: &str) -> TextMatch {
        match self {
            MatchMode::Exact => TextMatch::Exact(s.to_string()),
            MatchMode::Contains => TextMatch::Contains(s.to_string()),
            MatchMode::Regex => TextMatch::Regex(s.to_string()),
        }
    }
}

/// What the user said about the target, before it is checked.
#[derive(Clone, Debug, Default)]
pub struct TargetSpec<'a> {
    /// The positional selector: the text syntax, or plain visible text when it has no `=`.
    pub selector: Option<&'a str>,
    /// `--name`.
    pub name: Option<&'a str>,
    /// `--role`.
    pub role: Option<&'a str>,
    /// `--id`.
    pub id: Option<&'a str>,
    /// `--app`.
    pub app: Option<&'a str>,
    /// `--window`.
    pub window: Option<&'a str>,
    /// `--index`.
    pub index: Option<u32>,
    /// `--text` (or `--target`): text a person sees on the target, and the flag's spelling.
    pub text: Option<(&'a str, &'static str)>,
    /// `--at X,Y`.
    pub at: Option<Point<Logical>>,
    /// `--match`.
    pub matching: MatchMode,
}

/// The target, or `None` when nothing names one.
pub fn build(spec: &TargetSpec<'_>) -> Result<Option<Target>, String> {
    let nonempty = |flag: &str, v: Option<&str>, example: &str| -> Result<(), String> {
        match v {
            Some(s) if s.trim().is_empty() => Err(format!("{flag} is empty; give a value, e.g. {flag} {example}")),
            _ => Ok(()),
        }
    };
    nonempty("--name", spec.name, "\"Submit order\"")?;
    nonempty("--role", spec.role, "push_button")?;
    nonempty("--id", spec.id, "':1.12|/org/a11y/atspi/accessible/42'")?;
    nonempty("--app", spec.app, "\"Deft Fixture\"")?;
    nonempty("--window", spec.window, "\"Deft Fixture\"")?;
    if let Some((t, flag)) = spec.text {
        nonempty(flag, Some(t), "\"Submit order\"")?;
    }

    // A positional argument without any operator is the text a person sees.
    let (mut sel, positional_text) = match spec.selector {
        Some(s) if s.trim().is_empty() => {
            return Err("the selector is empty; give one such as 'role=push_button name=\"Submit\"', \
                        or a flag such as --name"
                .into());
        }
        Some(s) if !s.contains('=') => (Selector::default(), Some(s)),
        Some(s) => {
            let sel = selector::parse(s).map_err(|e| format!("in the selector: {e}\n{}", e.pointer()))?;
            (sel, None)
        }
        None => (Selector::default(), None),
    };
    let text = match (positional_text, spec.text) {
        (Some(p), Some((t, flag))) => {
            return Err(format!(
                "the target's text is given twice: as the argument {p:?} and as {flag} {t:?}; keep one"
            ));
        }
        (Some(p), None) => Some(p),
        (None, Some((t, _))) => Some(t),
        (None, None) => None,
    };

    let twice =
        |key: &str, flag: &str| format!("`{key}` is given twice: in the selector argument and as {flag}; keep one");
    let m = spec.matching;
    macro_rules! set {
        ($field:ident, $value:expr, $flag:literal) => {
            if let Some(v) = $value {
                if sel.$field.is_some() {
                    return Err(twice(stringify!($field), $flag));
                }
                sel.$field = Some(v);
            }
        };
    }
    set!(name, spec.name.map(|n| m.make(n)), "--name");
    set!(role, spec.role.map(Role::new), "--role");
    set!(id, spec.id.map(|i| ElementId(i.to_string())), "--id");
    set!(app, spec.app.map(|a| m.make(a)), "--app");
    set!(window, spec.window.map(|w| m.make(w)), "--window");
    set!(index, spec.index, "--index");

    if let Some(at) = spec.at {
        if !sel.is_empty() || text.is_some() {
            return Err("--at X,Y clicks raw screen coordinates and cannot be combined with a selector \
                        or text; drop --at, or drop the other target flags"
                .into());
        }
        return Ok(Some(Target::Point(at)));
    }
    if sel.is_empty() {
        // Text alone: accessible name, text or value first, OCR of the screen otherwise.
        return Ok(text.map(|t| Target::Text(m.make(t))));
    }
    if let Some(t) = text {
        if sel.text.is_some() {
            return Err(twice("text", "--text"));
        }
        sel.text = Some(m.make(t));
    }
    if sel.index.is_some() && sel.id.is_some() {
        return Err(
            "--index picks one of several matches, but --id already names exactly one element; drop --index".into()
        );
    }
    // Compile regular expressions now, so a bad one is a usage error with its place.
    selector::Matcher::new(&sel).map_err(|e| format!("{e}\n{}", e.pointer()))?;
    Ok(Some(Target::Selector(sel)))
}

/// For verbs that act on one element: a selector naming only an app or window is not enough.
pub fn require_element(target: &Target) -> Result<(), String> {
    match target {
        Target::Selector(sel) if only_scope(sel) => Err(format!(
            "`{}` names only an application or window, not an element in it; add --name, --role, --text, \
             --id or a selector (`agent-cli read {}` lists what is there)",
            selector::format(sel),
            scope_flags(sel)
        )),
        _ => Ok(()),
    }
}

/// Whether the selector names only an app and/or window (fine for `read`, not for actions).
pub fn only_scope(sel: &Selector) -> bool {
    let Selector { app: _, window: _, role, name, text, path, id, index: _ } = sel;
    role.is_none() && name.is_none() && text.is_none() && path.is_none() && id.is_none()
}

fn scope_flags(sel: &Selector) -> String {
    let text = |m: &TextMatch| match m {
        TextMatch::Exact(s) | TextMatch::Contains(s) | TextMatch::Regex(s) => format!("{s:?}"),
    };
    let mut out = Vec::new();
    if let Some(a) = &sel.app {
        out.push(format!("--app {}", text(a)));
    }
    if let Some(w) = &sel.window {
        out.push(format!("--window {}", text(w)));
    }
    out.join(" ")
}

/// A target in words, for messages and the human output.
pub fn describe(target: &Target) -> String {
    match target {
        Target::Selector(s) => selector::format(s),
        Target::Text(m) => match m {
            TextMatch::Exact(s) => format!("text {s:?}"),
            TextMatch::Contains(s) => format!("text containing {s:?}"),
            TextMatch::Regex(s) => format!("text matching /{s}/"),
        },
        Target::Point(p) => format!("point ({}, {})", p.x, p.y),
        Target::Focused => "the focused element".into(),
    }
}

/// Parse `X,Y` (logical screen coordinates).
pub fn parse_point(s: &str) -> Result<Point<Logical>, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [x, y] => match (x.parse::<i32>(), y.parse::<i32>()) {
            (Ok(x), Ok(y)) => Ok(Point::new(x, y)),
            _ => Err(format!("`{s}` is not X,Y in whole pixels, e.g. 640,400")),
        },
        _ => Err(format!("`{s}` is not X,Y, e.g. 640,400")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: TargetSpec<'_>, expected: Option<Target>) {
        assert_eq!(build(&spec), Ok(expected), "{spec:?}");
    }

    fn check_err(spec: TargetSpec<'_>, needle: &str) {
        let e = build(&spec).unwrap_err();
        assert!(e.contains(needle), "{spec:?}: {e:?} lacks {needle:?}");
    }

    fn exact(s: &str) -> Option<TextMatch> {
        Some(TextMatch::Exact(s.into()))
    }

    #[test]
    fn flags_make_a_selector() {
        check(
            TargetSpec { name: Some("Submit order"), role: Some("Push Button"), ..Default::default() },
            Some(Target::Selector(Selector {
                name: exact("Submit order"),
                role: Some(Role::new("push_button")),
                ..Selector::default()
            })),
        );
        check(
            TargetSpec { name: Some("sub"), app: Some("deft"), matching: MatchMode::Contains, ..Default::default() },
            Some(Target::Selector(Selector {
                name: Some(TextMatch::Contains("sub".into())),
                app: Some(TextMatch::Contains("deft".into())),
                ..Selector::default()
            })),
        );
        check(
            TargetSpec { id: Some(":1.2|/a/42"), ..Default::default() },
            Some(Target::Selector(Selector { id: Some(ElementId(":1.2|/a/42".into())), ..Selector::default() })),
        );
    }

    #[test]
    fn text_alone_is_a_text_target_and_with_a_scope_a_selector_term() {
        check(
            TargetSpec { text: Some(("Submit", "--text")), ..Default::default() },
            Some(Target::Text(TextMatch::Exact("Submit".into()))),
        );
        check(
            TargetSpec { selector: Some("Submit order"), ..Default::default() },
            Some(Target::Text(TextMatch::Exact("Submit order".into()))),
        );
        check(
            TargetSpec { text: Some(("Submit", "--text")), app: Some("deft-fixture"), ..Default::default() },
            Some(Target::Selector(Selector {
                text: exact("Submit"),
                app: exact("deft-fixture"),
                ..Selector::default()
            })),
        );
    }

    #[test]
    fn selector_syntax_merges_with_flags() {
        check(
            TargetSpec { selector: Some("role=push_button name~=submit"), app: Some("x"), ..Default::default() },
            Some(Target::Selector(Selector {
                role: Some(Role::new("push_button")),
                name: Some(TextMatch::Contains("submit".into())),
                app: exact("x"),
                ..Selector::default()
            })),
        );
    }

    #[test]
    fn points_and_nothing() {
        check(
            TargetSpec { at: Some(Point::new(10, 20)), ..Default::default() },
            Some(Target::Point(Point::new(10, 20))),
        );
        check(TargetSpec::default(), None);
        assert_eq!(parse_point(" 10, -5"), Ok(Point::new(10, -5)));
        assert!(parse_point("10").unwrap_err().contains("not X,Y"));
        assert!(parse_point("a,b").unwrap_err().contains("whole pixels"));
    }

    #[test]
    fn conflicts_and_empties_are_clear() {
        check_err(TargetSpec { name: Some(""), ..Default::default() }, "--name is empty");
        check_err(TargetSpec { text: Some((" ", "--target")), ..Default::default() }, "--target is empty");
        check_err(TargetSpec { selector: Some(""), ..Default::default() }, "the selector is empty");
        check_err(
            TargetSpec { selector: Some("name=A"), name: Some("B"), ..Default::default() },
            "`name` is given twice",
        );
        check_err(
            TargetSpec { selector: Some("Submit"), text: Some(("Submit", "--text")), ..Default::default() },
            "given twice",
        );
        check_err(
            TargetSpec { at: Some(Point::new(1, 1)), name: Some("A"), ..Default::default() },
            "cannot be combined",
        );
        check_err(TargetSpec { selector: Some("nme=A"), ..Default::default() }, "selector error at column 1");
        check_err(
            TargetSpec { name: Some("("), matching: MatchMode::Regex, ..Default::default() },
            "invalid regular expression",
        );
        let scope_only = build(&TargetSpec { app: Some("deft"), ..Default::default() }).unwrap().unwrap();
        assert!(require_element(&scope_only).unwrap_err().contains("names only an application"));
        check_err(TargetSpec { id: Some("x"), index: Some(1), ..Default::default() }, "drop --index");
    }

    #[test]
    fn descriptions() {
        assert_eq!(describe(&Target::Text(TextMatch::Exact("A".into()))), "text \"A\"");
        assert_eq!(describe(&Target::Focused), "the focused element");
        let sel = Selector { name: exact("Submit order"), ..Selector::default() };
        assert_eq!(describe(&Target::Selector(sel)), "name=\"Submit order\"");
    }
}
