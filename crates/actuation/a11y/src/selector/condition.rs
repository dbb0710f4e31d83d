//! The condition syntax (`text:"Saved"`, `gone:name=Loading`, `state:name=Subscribe:checked`):
//! what `wait` waits for and what an action may be expected to bring about. It sits beside
//! the selector syntax and shares its lexer, so every error points at a column.
//!
//! ```text
//! condition = text-kind text-arg | element-kind ":" selector
//!           | "state:" selector ":" ["!"] state | "value:" selector op value | "role:" role
//! text-kind = "text" | "text-gone" | "title"
//! text-arg  = ":" value          contains, ignoring case (text a person sees is often part of a line)
//!           | op value           "=" exact, "~=" contains, "/=" regular expression
//! element-kind = "exists" | "gone"
//! ```
//!
//! Values are bare words or quoted strings, as in selectors. In `state:` and `value:` the
//! selector ends at the last `:` (or operator) outside quotes: quote a value that holds one.

use deft_types::{Condition, Role, Selector, State, TextMatch};

use super::lex::{Grammar, Op, Parser, SyntaxError, quote};
use super::parse::{SelectorText, parse_in};

/// The kinds, in the order the help lists them.
pub const CONDITION_KINDS: [&str; 8] = ["text", "text-gone", "title", "exists", "gone", "state", "value", "role"];

/// The syntax in a few lines, for help texts and tool descriptions (every example is
/// parsed by a test).
pub const CONDITION_HELP: &str = r#"Conditions:
  text:TEXT                  TEXT is shown (accessibility tree, else OCR of the screen)
  text-gone:TEXT             TEXT is no longer shown
  title:TEXT                 a window with this title is shown
  exists:SELECTOR            an element matching SELECTOR is shown
  gone:SELECTOR              no element matching SELECTOR is shown
  state:SELECTOR:STATE       the element has STATE (!STATE: lacks it)
  value:SELECTOR=VALUE       the element's value or text is VALUE
  role:ROLE                  a window or dialog of this role is shown
TEXT and VALUE are bare words or "quoted strings". After text/text-gone/title, ':' means
contains (ignoring case); write '=' for exact, '~=' for contains, '/=' for a regex; the
same three operators follow the SELECTOR of value:.
Examples:
  'text:"Save complete"'     'gone:name=Loading'          'exists:role=dialog'
  'state:name=Subscribe:checked'     'value:name=Name=John'     'title="Deft Fixture"'
  'text/="Order [0-9]+ submitted"'"#;

/// Whether `s` reads as a condition rather than a selector: it starts with a condition
/// kind followed by `:` (or, for `title`, an operator). Selector keys are never condition
/// kinds except `text`, and `text:` is not selector syntax.
pub fn looks_like_condition(s: &str) -> bool {
    let s = s.trim_start();
    let kind: String = s.chars().take_while(|c| c.is_ascii_alphabetic() || *c == '-').collect();
    let rest = &s[kind.len()..];
    match kind.as_str() {
        "title" => rest.starts_with(':') || rest.starts_with('=') || rest.starts_with("~=") || rest.starts_with("/="),
        k if CONDITION_KINDS.contains(&k) => rest.starts_with(':'),
        _ => false,
    }
}

/// The kind `s` names when it reads as a condition of a kind there is none of: a lowercase
/// word, `:` and more, with no space (`badcond:x`, `txt:Saved`). Text a person sees rarely
/// reads so; a user who meant a condition is told the kinds, not left waiting for text.
pub fn unknown_condition_kind(s: &str) -> Option<&str> {
    let s = s.trim();
    let (kind, rest) = s.split_once(':')?;
    let word = kind.len() >= 2 && kind.chars().all(|c| c.is_ascii_lowercase() || c == '-' || c == '_');
    let one_piece = !rest.is_empty() && !s.contains(char::is_whitespace) && !rest.starts_with('/');
    (word && one_piece && !CONDITION_KINDS.contains(&kind)).then_some(kind)
}

/// Parse a condition (see the module documentation for the grammar).
pub fn parse_condition(input: &str) -> Result<Condition, SyntaxError> {
    let mut p = Parser::new(Grammar::Condition, input);
    p.skip_ws();
    let start = p.pos;
    let kind: String = p.rest().chars().take_while(|c| c.is_ascii_alphabetic() || *c == '-' || *c == '_').collect();
    if kind.is_empty() {
        return Err(p.err(start, format!("expected a kind ({}), e.g. 'text:\"Saved\"'", CONDITION_KINDS.join(", "))));
    }
    let Some(kind) = CONDITION_KINDS.iter().copied().find(|k| *k == kind) else {
        return Err(p.err(start, format!("unknown kind '{kind}'; the kinds are {}", CONDITION_KINDS.join(", "))));
    };
    p.pos += kind.len();
    match kind {
        "text" | "text-gone" | "title" => {
            let t = text_arg(&mut p, kind)?;
            end(&p)?;
            Ok(match kind {
                "text" => Condition::TextAppears(t),
                "text-gone" => Condition::TextGone(t),
                _ => Condition::WindowTitle(t),
            })
        }
        "exists" | "gone" => {
            colon(&mut p, kind, "name=Loading")?;
            let until = p.end;
            let sel = selector_until(&mut p, until, kind)?;
            Ok(if kind == "exists" { Condition::ElementExists(sel) } else { Condition::ElementGone(sel) })
        }
        "role" => {
            colon(&mut p, kind, "dialog")?;
            p.skip_ws();
            if p.at_end() {
                return Err(p.err(p.pos, "expected a role after 'role:', e.g. 'role:dialog'"));
            }
            let at = p.pos;
            let role = Role::new(&p.value("role", Op::Exact)?);
            if let Some(why) = crate::roles::unknown(&role) {
                return Err(p.err(at, why));
            }
            end(&p)?;
            Ok(Condition::RoleAppears(role))
        }
        "state" => state_arg(&mut p),
        _ => value_arg(&mut p),
    }
}

/// A condition printed back in the syntax [`parse_condition`] reads.
pub fn format_condition(c: &Condition) -> String {
    let text = |kind: &str, t: &TextMatch| {
        let (op, v) = match t {
            TextMatch::Exact(v) => ("=", v),
            TextMatch::Contains(v) => ("~=", v),
            TextMatch::Regex(v) => ("/=", v),
        };
        format!("{kind}{op}{}", quote(v))
    };
    match c {
        Condition::TextAppears(t) => text("text", t),
        Condition::TextGone(t) => text("text-gone", t),
        Condition::WindowTitle(t) => text("title", t),
        Condition::ElementExists(s) => format!("exists:{}", SelectorText(s)),
        Condition::ElementGone(s) => format!("gone:{}", SelectorText(s)),
        Condition::ElementState { selector, state, present } => {
            format!("state:{}:{}{state}", SelectorText(selector), if *present { "" } else { "!" })
        }
        Condition::Value { selector, value } => format!("value:{}", text(&SelectorText(selector).to_string(), value)),
        Condition::RoleAppears(r) => format!("role:{}", quote(r.as_str())),
    }
}

/// A condition in plain words, the one wording of every face: `text "Saved" is shown`.
pub fn describe_condition(c: &Condition) -> String {
    let sel = |s: &Selector| SelectorText(s).to_string();
    match c {
        Condition::TextAppears(t) => format!("text {} is shown", describe_text(t)),
        Condition::TextGone(t) => format!("text {} is no longer shown", describe_text(t)),
        Condition::ElementExists(s) => format!("an element `{}` is shown", sel(s)),
        Condition::ElementGone(s) => format!("no element `{}` is shown", sel(s)),
        Condition::ElementState { selector, state, present } => {
            format!("`{}` is {}{state}", sel(selector), if *present { "" } else { "not " })
        }
        Condition::Value { selector, value } => format!("`{}` has value {}", sel(selector), describe_text(value)),
        Condition::WindowTitle(t) => match t {
            TextMatch::Exact(s) => format!("a window titled {s:?} is shown"),
            TextMatch::Contains(s) => format!("a window whose title contains {s:?} is shown"),
            TextMatch::Regex(r) => format!("a window whose title matches /{r}/ is shown"),
        },
        Condition::RoleAppears(r) => format!("a {r} is shown"),
    }
}

/// A text criterion in words: `"Save"`, `containing "save"`, `matching /Sav.+/`.
pub fn describe_text(t: &TextMatch) -> String {
    match t {
        TextMatch::Exact(s) => format!("{s:?}"),
        TextMatch::Contains(s) => format!("containing {s:?}"),
        TextMatch::Regex(r) => format!("matching /{r}/"),
    }
}

fn end(p: &Parser<'_>) -> Result<(), SyntaxError> {
    let mut q = Parser { grammar: p.grammar, input: p.input, pos: p.pos, end: p.end };
    q.skip_ws();
    match q.at_end() {
        true => Ok(()),
        false => Err(q.err(q.pos, format!("unexpected '{}' after the condition", q.rest().trim_end()))),
    }
}

fn colon(p: &mut Parser<'_>, kind: &str, example: &str) -> Result<(), SyntaxError> {
    if p.peek() == Some(':') {
        p.pos += 1;
        return Ok(());
    }
    Err(p.err(p.pos, format!("expected ':' after '{kind}', e.g. '{kind}:{example}'")))
}

/// `:V` (contains), `=V`, `~=V`, `/=V`.
fn text_arg(p: &mut Parser<'_>, kind: &str) -> Result<TextMatch, SyntaxError> {
    let at = p.pos;
    let op = if p.peek() == Some(':') {
        p.pos += 1;
        Op::Contains
    } else {
        p.try_op().ok_or_else(|| p.err(at, format!("expected ':', '=', '~=' or '/=' after '{kind}'")))?
    };
    let value_at = p.pos;
    if p.at_end() || p.peek().is_some_and(char::is_whitespace) {
        return Err(p.err(value_at, format!("expected a text after '{kind}', e.g. '{kind}:\"Saved\"'")));
    }
    let v = p.value(kind, op)?;
    if v.is_empty() {
        return Err(p.err(value_at, format!("expected a text after '{kind}', e.g. '{kind}:\"Saved\"'")));
    }
    text_match(p, op, v, value_at)
}

fn text_match(p: &Parser<'_>, op: Op, v: String, at: usize) -> Result<TextMatch, SyntaxError> {
    Ok(match op {
        Op::Exact => TextMatch::Exact(v),
        Op::Contains => TextMatch::Contains(v),
        Op::Regex => {
            regex::Regex::new(&v).map_err(|e| {
                p.err(at, format!("invalid regular expression: {}", super::lex::one_line(&e.to_string())))
            })?;
            TextMatch::Regex(v)
        }
    })
}

/// The selector in `p.pos..until`, then the cursor at `until`.
fn selector_until(p: &mut Parser<'_>, until: usize, kind: &str) -> Result<Selector, SyntaxError> {
    let mut q = Parser { grammar: p.grammar, input: p.input, pos: p.pos, end: until };
    q.skip_ws();
    if q.at_end() {
        return Err(q.err(q.pos, format!("expected a selector after '{kind}:', e.g. 'name=Loading' or 'role=dialog'")));
    }
    let sel = parse_in(&mut q)?;
    p.pos = until;
    Ok(sel)
}

/// `state:SELECTOR:[!]STATE`.
fn state_arg(p: &mut Parser<'_>) -> Result<Condition, SyntaxError> {
    colon(p, "state", "name=Subscribe:checked")?;
    let Some(at) = last_unquoted(p.rest(), |c| c == ':').map(|i| p.pos + i) else {
        return Err(p.err(p.end, "expected SELECTOR:STATE, e.g. 'state:name=Subscribe:checked' or ':!checked'"));
    };
    let selector = selector_until(p, at, "state")?;
    p.pos = at + 1;
    p.skip_ws();
    let present = match p.peek() {
        Some('!') => {
            p.pos += 1;
            false
        }
        _ => true,
    };
    let name_at = p.pos;
    let name = p.rest().trim_end();
    if name.is_empty() {
        return Err(p.err(name_at, format!("expected a state after ':', one of: {}", State::names())));
    }
    let state: State = name.parse().map_err(|e: deft_types::UnknownState| p.err(name_at, e.to_string()))?;
    Ok(Condition::ElementState { selector, state, present })
}

/// `value:SELECTOR(=|~=|/=)VALUE`.
fn value_arg(p: &mut Parser<'_>) -> Result<Condition, SyntaxError> {
    colon(p, "value", "name=Name=John")?;
    let Some(eq) = last_unquoted(p.rest(), |c| c == '=').map(|i| p.pos + i) else {
        return Err(p.err(p.end, "expected SELECTOR=VALUE, e.g. 'value:name=Name=John'"));
    };
    let (op, sel_end) = match p.input[..eq].chars().last() {
        Some('~') if eq - 1 > p.pos => (Op::Contains, eq - 1),
        Some('/') if eq - 1 > p.pos => (Op::Regex, eq - 1),
        _ => (Op::Exact, eq),
    };
    let selector = selector_until(p, sel_end, "value")?;
    p.pos = eq + 1;
    let value_at = p.pos;
    let v = if p.at_end() { String::new() } else { p.value("value", op)? };
    end(p)?;
    let value = text_match(p, op, v, value_at)?;
    Ok(Condition::Value { selector, value })
}

/// Byte offset of the last character matching `pred` outside double quotes.
fn last_unquoted(s: &str, pred: impl Fn(char) -> bool) -> Option<usize> {
    let (mut in_quotes, mut escaped, mut last) = (false, false, None);
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

#[cfg(test)]
mod tests {
    use deft_types::ElementId;
    use proptest::prelude::*;

    use super::*;
    use crate::selector::parse;

    fn sel(s: &str) -> Selector {
        parse(s).unwrap()
    }

    fn check(input: &str, expected: Condition) {
        assert_eq!(parse_condition(input), Ok(expected.clone()), "{input}");
        // Printing back gives the same condition.
        assert_eq!(parse_condition(&format_condition(&expected)), Ok(expected), "{input}");
    }

    fn check_err(input: &str, column: usize, needle: &str) {
        let e = parse_condition(input).unwrap_err();
        assert!(e.message.contains(needle), "{input}: {e} lacks {needle:?}");
        assert_eq!((e.grammar, e.column), (Grammar::Condition, column), "{input}: {e}");
        assert!(e.to_string().starts_with(&format!("condition error at column {column}: ")), "{e}");
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
            "state:role=push_button:armed",
            Condition::ElementState { selector: sel("role=push_button"), state: State::Armed, present: true },
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
    fn errors_point_at_the_problem() {
        check_err("", 1, "expected a kind");
        check_err("bogus:x", 1, "unknown kind 'bogus'; the kinds are text");
        check_err("text", 5, "expected ':', '=', '~=' or '/=' after 'text'");
        check_err("text:", 6, "expected a text after 'text'");
        check_err(r#"text:"open"#, 6, "unterminated");
        check_err(r#"text:"a" b"#, 10, "unexpected 'b' after the condition");
        check_err("text/=(", 7, "invalid regular expression");
        check_err("gone", 5, "expected ':' after 'gone'");
        check_err("gone:", 6, "expected a selector");
        // The selector's own error, at its column in the condition.
        check_err("gone:nam=x", 6, "unknown key 'nam'");
        check_err("exists:role=dialog name=", 25, "expected a value after 'name='");
        check_err("state:name=Subscribe", 21, "expected SELECTOR:STATE");
        check_err("state:name=Subscribe:cheked", 22, "unknown state 'cheked'; the states are: enabled");
        check_err("state:checked", 14, "expected SELECTOR:STATE");
        check_err("value:Name", 11, "expected SELECTOR=VALUE");
        check_err("role:", 6, "expected a role");
    }

    #[test]
    fn descriptions() {
        let d = |s: &str| describe_condition(&parse_condition(s).unwrap());
        assert_eq!(d("text:Saved"), "text containing \"Saved\" is shown");
        assert_eq!(d("state:name=Subscribe:!checked"), "`name=Subscribe` is not checked");
        assert_eq!(d("title=A"), "a window titled \"A\" is shown");
        assert_eq!(d("gone:name=Loading"), "no element `name=Loading` is shown");
    }

    #[test]
    fn every_state_parses_in_a_condition() {
        for st in State::ALL {
            let c = format!("state:role=check_box:{st}");
            assert!(matches!(parse_condition(&c), Ok(Condition::ElementState { state, .. }) if state == st), "{c}");
        }
    }

    #[test]
    fn help_examples_parse() {
        let examples = CONDITION_HELP.split("Examples:").nth(1).unwrap();
        let found: Vec<&str> = examples.split('\'').skip(1).step_by(2).collect();
        assert_eq!(found.len(), 7, "{found:?}");
        for cond in found {
            assert!(parse_condition(cond).is_ok(), "help example {cond:?}: {:?}", parse_condition(cond));
        }
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

    #[test]
    fn a_word_a_colon_and_more_is_a_condition_of_an_unknown_kind_unless_it_reads_as_text() {
        assert_eq!(super::unknown_condition_kind("badcond:x"), Some("badcond"));
        assert_eq!(super::unknown_condition_kind("txt:Saved"), Some("txt"));
        for text in ["text:Saved", "Status:Ready", "Time: 12:30", "http://x", "a:b", "Saved", "note:", "x y:z"] {
            assert_eq!(super::unknown_condition_kind(text), None, "{text}");
        }
    }

    fn text_match() -> impl Strategy<Value = TextMatch> {
        let word = "[a-zA-Z0-9 :=\"!~/]{1,12}";
        prop_oneof![
            word.prop_map(TextMatch::Exact),
            word.prop_map(TextMatch::Contains),
            "[a-z]{1,6}".prop_map(TextMatch::Regex),
        ]
    }

    proptest! {
        #[test]
        fn any_condition_prints_and_parses_back(t in text_match(), name in "[a-zA-Z :=\"]{1,10}", k in 0usize..5) {
            let selector = Selector { name: Some(TextMatch::Exact(name)), ..Selector::default() };
            let c = match k {
                0 => Condition::TextAppears(t),
                1 => Condition::WindowTitle(t),
                2 => Condition::Value { selector, value: t },
                3 => Condition::ElementState { selector, state: State::Checked, present: false },
                _ => Condition::ElementGone(selector),
            };
            prop_assert_eq!(parse_condition(&format_condition(&c)), Ok(c));
        }
    }
}
