//! The `--expect` condition syntax (also the condition argument of `wait`).
//!
//! A condition is `KIND` followed by its argument. Text arguments take the selector
//! grammar's operators (`=` exact, `~=` contains ignoring case, `/=` regular expression) or
//! a plain `:`, which means contains (text a person sees is often part of a longer line).
//! Element arguments are selectors in the text syntax of deft-a11y.

use deft_a11y::selector;
use deft_types::{Condition, Role, Selector, State, TextMatch};
use serde::Deserialize;
use serde::de::IntoDeserializer;

/// The syntax, printed by `--help` (the examples are checked by the tests below).
pub const EXPECT_HELP: &str = r#"Conditions (--expect, and the condition argument of `wait`):
  text:TEXT                  TEXT appears (accessibility tree, else OCR of the screen)
  text-gone:TEXT             TEXT is no longer shown
  title:TEXT                 a window with this title exists
  exists:SELECTOR            an element matching SELECTOR exists
  gone:SELECTOR              no element matches SELECTOR
  state:SELECTOR:STATE       the element has STATE (!STATE: lacks it)
  value:SELECTOR=VALUE       the element's value or text is VALUE
  role:ROLE                  a window or dialog of this role appeared
TEXT and VALUE are bare words or "quoted strings". After text/text-gone/title, ':' means
contains (ignoring case); write '=' for exact, '~=' for contains, '/=' for a regex; the
same three operators follow the SELECTOR of value:. STATE is one of: enabled, showing,
visible, focused, focusable, selected, checked, pressed, expanded, expandable, busy,
editable, single_line, modal, active.
Examples:
  --expect 'text:"Save complete"'        --expect 'gone:name=Loading'
  --expect 'exists:role=dialog'          --expect 'state:name=Subscribe:checked'
  --expect 'value:name=Name=John'        --expect 'title="Deft Fixture"'
  --expect 'text/="Order [0-9]+ submitted"'"#;

/// The kinds, for error messages.
const KINDS: &str = "text, text-gone, title, exists, gone, state, value, role";

/// Every state name, as `state:` accepts it.
pub const STATE_NAMES: [&str; 15] = [
    "enabled",
    "showing",
    "visible",
    "focused",
    "focusable",
    "selected",
    "checked",
    "pressed",
    "expanded",
    "expandable",
    "busy",
    "editable",
    "single_line",
    "modal",
    "active",
];

/// Whether `s` looks like a condition (`kind:` or `kind=`...), as opposed to a selector:
/// selector keys are never condition kinds except `text`, and `text` followed by `:` is
/// not selector syntax.
pub fn looks_like_condition(s: &str) -> bool {
    let s = s.trim_start();
    let kind: String = s.chars().take_while(|c| c.is_ascii_alphabetic() || *c == '-').collect();
    let rest = &s[kind.len()..];
    match kind.as_str() {
        "exists" | "gone" | "state" | "value" | "role" | "text-gone" | "title" => {
            rest.starts_with(':') || (kind == "title" && text_op(rest).is_some())
        }
        "text" => rest.starts_with(':'),
        _ => false,
    }
}

/// Parse a condition; the error says what is wrong and shows the syntax.
pub fn parse(input: &str) -> Result<Condition, String> {
    let fail = |why: String| Err(format!("bad condition `{input}`: {why}"));
    let s = input.trim();
    let kind: String = s.chars().take_while(|c| c.is_ascii_alphabetic() || *c == '-' || *c == '_').collect();
    let rest = &s[kind.len()..];
    if kind.is_empty() {
        return fail(format!("it must start with a kind ({KINDS}), e.g. 'text:\"Saved\"'"));
    }
    let element = |rest: &'_ str| -> Result<String, String> {
        rest.strip_prefix(':')
            .map(str::to_string)
            .ok_or_else(|| format!("expected ':' after '{kind}', e.g. '{kind}:name=Loading'"))
    };
    let result = match kind.as_str() {
        "text" | "text-gone" | "title" => {
            let tm = text_arg(rest).map_err(|e| format!("{e} after '{kind}', e.g. '{kind}:\"Saved\"'"));
            match tm {
                Ok(tm) => Ok(match kind.as_str() {
                    "text" => Condition::TextAppears(tm),
                    "text-gone" => Condition::TextGone(tm),
                    _ => Condition::WindowTitle(tm),
                }),
                Err(e) => Err(e),
            }
        }
        "exists" => element(rest).and_then(|r| selector_arg(&r)).map(Condition::ElementExists),
        "gone" => element(rest).and_then(|r| selector_arg(&r)).map(Condition::ElementGone),
        "role" => element(rest).and_then(|r| {
            let r = unquote(r.trim())?;
            if r.is_empty() {
                return Err("expected a role after 'role:', e.g. 'role:dialog'".into());
            }
            Ok(Condition::RoleAppears(Role::new(&r)))
        }),
        "state" => element(rest).and_then(|r| state_arg(&r)),
        "value" => element(rest).and_then(|r| value_arg(&r)),
        other => Err(format!("unknown kind '{other}'; the kinds are {KINDS}")),
    };
    result.or_else(fail)
}

/// A condition in plain words: `text containing "Saved" appears`.
pub fn describe(c: &Condition) -> String {
    match c {
        Condition::TextAppears(t) => format!("{} appears", describe_text(t)),
        Condition::TextGone(t) => format!("{} is gone", describe_text(t)),
        Condition::ElementExists(s) => format!("an element `{}` exists", selector::format(s)),
        Condition::ElementGone(s) => format!("no element matches `{}`", selector::format(s)),
        Condition::ElementState { selector: s, state, present } => format!(
            "`{}` is {}{}",
            selector::format(s),
            if *present { "" } else { "not " },
            crate::output::snake(state)
        ),
        Condition::Value { selector: s, value } => {
            format!("the value of `{}` is {}", selector::format(s), describe_text(value))
        }
        Condition::WindowTitle(t) => match t {
            TextMatch::Exact(s) => format!("a window titled {s:?} exists"),
            TextMatch::Contains(s) => format!("a window whose title contains {s:?} exists"),
            TextMatch::Regex(s) => format!("a window whose title matches /{s}/ exists"),
        },
        Condition::RoleAppears(r) => format!("a {r} appears"),
    }
}

fn describe_text(t: &TextMatch) -> String {
    match t {
        TextMatch::Exact(s) => format!("text {s:?}"),
        TextMatch::Contains(s) => format!("text containing {s:?}"),
        TextMatch::Regex(s) => format!("text matching /{s}/"),
    }
}

/// Makes a [`TextMatch`] of one kind from its text.
type MakeMatch = fn(String) -> TextMatch;

/// `:V` (contains), `=V`, `~=V`, `/=V`.
fn text_op(rest: &str) -> Option<(MakeMatch, &str)> {
    if let Some(v) = rest.strip_prefix("~=") {
        Some((TextMatch::Contains, v))
    } else if let Some(v) = rest.strip_prefix("/=") {
        Some((TextMatch::Regex, v))
    } else if let Some(v) = rest.strip_prefix('=') {
        Some((TextMatch::Exact, v))
    } else {
        rest.strip_prefix(':').map(|v| (TextMatch::Contains as MakeMatch, v))
    }
}

fn text_arg(rest: &str) -> Result<TextMatch, String> {
    let (make, v) = text_op(rest).ok_or("expected ':', '=', '~=' or '/='")?;
    let v = unquote(v)?;
    if v.is_empty() {
        return Err("expected a text".into());
    }
    if let TextMatch::Regex(_) = make(String::new()) {
        regex_check(&v)?;
    }
    Ok(make(v))
}

fn regex_check(re: &str) -> Result<(), String> {
    // Parse it the way deft-a11y will, so a bad pattern fails here with its position.
    let sel = Selector { name: Some(TextMatch::Regex(re.to_string())), ..Selector::default() };
    deft_a11y::selector::Matcher::new(&sel).map(|_| ()).map_err(|e| e.message)
}

fn selector_arg(s: &str) -> Result<Selector, String> {
    if s.trim().is_empty() {
        return Err("expected a selector, e.g. 'name=Loading' or 'role=dialog'".into());
    }
    selector::parse(s).map_err(|e| format!("in its selector `{s}`: {e}"))
}

fn state_arg(s: &str) -> Result<Condition, String> {
    let at = last_unquoted(s, |c| c == ':')
        .ok_or("expected SELECTOR:STATE, e.g. 'state:name=Subscribe:checked' or ':!checked'")?;
    let (sel, state) = (&s[..at], s[at + 1..].trim());
    let (present, name) = match state.strip_prefix('!') {
        Some(n) => (false, n.trim()),
        None => (true, state),
    };
    let state = parse_state(name)?;
    Ok(Condition::ElementState { selector: selector_arg(sel)?, state, present })
}

fn value_arg(s: &str) -> Result<Condition, String> {
    let at = last_unquoted(s, |c| c == '=').ok_or("expected SELECTOR=VALUE, e.g. 'value:name=Name=John'")?;
    let (make, sel_end): (MakeMatch, usize) = match s[..at].chars().last() {
        Some('~') => (TextMatch::Contains, at - 1),
        Some('/') => (TextMatch::Regex, at - 1),
        _ => (TextMatch::Exact, at),
    };
    let value = unquote(&s[at + 1..])?;
    if let TextMatch::Regex(_) = make(String::new()) {
        regex_check(&value)?;
    }
    let selector = selector_arg(&s[..sel_end])?;
    Ok(Condition::Value { selector, value: make(value) })
}

/// A state by name, in any spelling of its words.
pub fn parse_state(name: &str) -> Result<State, String> {
    let norm = Role::new(name).0;
    let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> = norm.as_str().into_deserializer();
    State::deserialize(de).map_err(|_| format!("unknown state '{name}'; the states are {}", STATE_NAMES.join(", ")))
}

/// Byte offset of the last character matching `pred` outside double quotes.
fn last_unquoted(s: &str, pred: impl Fn(char) -> bool) -> Option<usize> {
    let mut in_quotes = false;
    let mut escaped = false;
    let mut last = None;
    for (i, c) in s.char_indices() {
        if in_quotes {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_quotes = false,
                _ => {}
            }
        } else if c == '"' {
            in_quotes = true;
        } else if pred(c) {
            last = Some(i);
        }
    }
    last
}

/// A bare word or a quoted string with `\"` and `\\` escapes, as in selectors.
fn unquote(v: &str) -> Result<String, String> {
    let v = v.trim();
    let Some(body) = v.strip_prefix('"') else {
        return Ok(v.to_string());
    };
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => out.push(e),
                Some(e) => return Err(format!("unknown escape '\\{e}' in a quoted string (only \\\" and \\\\)")),
                None => return Err("a quoted string ends with '\\'".into()),
            },
            '"' => {
                let after = chars.as_str();
                if !after.trim().is_empty() {
                    return Err(format!("unexpected '{}' after the closing quote", after.trim()));
                }
                return Ok(out);
            }
            c => out.push(c),
        }
    }
    Err("a quoted string is not closed (missing '\"')".into())
}

#[cfg(test)]
mod tests {
    use deft_types::ElementId;

    use super::*;

    fn sel(s: &str) -> Selector {
        selector::parse(s).unwrap()
    }

    fn check(input: &str, expected: Condition) {
        assert_eq!(parse(input), Ok(expected), "{input}");
    }

    fn check_err(input: &str, needle: &str) {
        let e = parse(input).unwrap_err();
        assert!(e.contains(needle), "{input}: {e:?} lacks {needle:?}");
        assert!(e.starts_with(&format!("bad condition `{input}`")), "{e}");
    }

    #[test]
    fn text_conditions() {
        check(r#"text:"Save complete""#, Condition::TextAppears(TextMatch::Contains("Save complete".into())));
        check("text:Saved", Condition::TextAppears(TextMatch::Contains("Saved".into())));
        check(r#"text="Save complete""#, Condition::TextAppears(TextMatch::Exact("Save complete".into())));
        check("text~=saved", Condition::TextAppears(TextMatch::Contains("saved".into())));
        check(r#"text/="Order [0-9]+""#, Condition::TextAppears(TextMatch::Regex("Order [0-9]+".into())));
        check("text-gone:Loading...", Condition::TextGone(TextMatch::Contains("Loading...".into())));
        check(r#"title:"Deft Fixture""#, Condition::WindowTitle(TextMatch::Contains("Deft Fixture".into())));
        check(r#"title="Deft Fixture""#, Condition::WindowTitle(TextMatch::Exact("Deft Fixture".into())));
        check(r#"text:"say \"hi\"""#, Condition::TextAppears(TextMatch::Contains("say \"hi\"".into())));
    }

    #[test]
    fn element_conditions() {
        check("gone:name=Loading", Condition::ElementGone(sel("name=Loading")));
        check("exists:role=dialog", Condition::ElementExists(sel("role=dialog")));
        check(
            r#"exists:role=dialog name="Save complete""#,
            Condition::ElementExists(sel(r#"role=dialog name="Save complete""#)),
        );
        check(
            "state:name=Subscribe:checked",
            Condition::ElementState { selector: sel("name=Subscribe"), state: State::Checked, present: true },
        );
        check(
            "state:name=Subscribe:!checked",
            Condition::ElementState { selector: sel("name=Subscribe"), state: State::Checked, present: false },
        );
        check(
            r#"state:name="a:b":single-line"#,
            Condition::ElementState { selector: sel(r#"name="a:b""#), state: State::SingleLine, present: true },
        );
        check(
            "value:name=Name=John",
            Condition::Value { selector: sel("name=Name"), value: TextMatch::Exact("John".into()) },
        );
        check(
            r#"value:name="x=y"~="jo hn""#,
            Condition::Value { selector: sel(r#"name="x=y""#), value: TextMatch::Contains("jo hn".into()) },
        );
        check(
            "value:id=abc/=^J",
            Condition::Value {
                selector: Selector { id: Some(ElementId("abc".into())), ..Selector::default() },
                value: TextMatch::Regex("^J".into()),
            },
        );
        check("role:dialog", Condition::RoleAppears(Role::new("dialog")));
        check(r#"role:"Push Button""#, Condition::RoleAppears(Role::new("push_button")));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        check_err("", "must start with a kind");
        check_err("bogus:x", "unknown kind 'bogus'; the kinds are text");
        check_err("text", "expected ':', '=', '~=' or '/=' after 'text'");
        check_err("text:", "expected a text after 'text'");
        check_err(r#"text:"open"#, "not closed");
        check_err(r#"text:"a" b"#, "unexpected 'b' after the closing quote");
        check_err("text/=(", "invalid regular expression");
        check_err("gone", "expected ':' after 'gone'");
        check_err("gone:", "expected a selector");
        check_err("gone:nam=x", "selector error at column 1");
        check_err("state:name=Subscribe", "expected SELECTOR:STATE");
        check_err("state:name=Subscribe:cheked", "unknown state 'cheked'; the states are enabled");
        check_err("state:checked", "expected SELECTOR:STATE");
        check_err("value:Name", "expected SELECTOR=VALUE");
        check_err("role:", "expected a role");
    }

    #[test]
    fn descriptions() {
        let d = |s: &str| describe(&parse(s).unwrap());
        assert_eq!(d("text:Saved"), "text containing \"Saved\" appears");
        assert_eq!(d("state:name=Subscribe:!checked"), "`name=Subscribe` is not checked");
        assert_eq!(d("title=A"), "a window titled \"A\" exists");
        assert_eq!(d("gone:name=Loading"), "no element matches `name=Loading`");
    }

    #[test]
    fn every_state_name_parses() {
        for name in STATE_NAMES {
            assert!(parse_state(name).is_ok(), "{name}");
        }
        assert_eq!(parse_state("Single Line"), Ok(State::SingleLine));
    }

    #[test]
    fn help_examples_parse() {
        let examples = EXPECT_HELP.split("Examples:").nth(1).unwrap();
        let mut n = 0;
        for part in examples.split("--expect '").skip(1) {
            let cond = &part[..part.rfind('\'').unwrap()];
            assert!(parse(cond).is_ok(), "help example {cond:?}: {:?}", parse(cond));
            n += 1;
        }
        assert_eq!(n, 7);
    }

    #[test]
    fn conditions_and_selectors_are_told_apart() {
        for c in ["text:Saved", "gone:name=x", "exists:role=dialog", "title=\"A\"", "state:name=a:checked"] {
            assert!(looks_like_condition(c), "{c}");
        }
        for s in ["text=Saved", "name=x", "role=dialog", "app=deft window=\"a:b\"", "title"] {
            assert!(!looks_like_condition(s), "{s}");
        }
    }
}
