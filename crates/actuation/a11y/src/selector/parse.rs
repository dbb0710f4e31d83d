//! The selector text syntax: parsing with positioned errors, and printing back.

use std::fmt;

use deft_types::{ElementId, Role, Selector, TextMatch};

use super::lex::{Grammar, Op, Parser, SyntaxError, one_line, quote};

/// The keys a selector term may use, in the order [`format()`] prints them.
pub const KEYS: [&str; 8] = ["app", "window", "role", "name", "text", "path", "id", "index"];

/// Parse the selector text syntax (see the crate documentation for the grammar).
pub fn parse(input: &str) -> Result<Selector, SyntaxError> {
    parse_in(&mut Parser::new(Grammar::Selector, input))
}

/// Parse the selector in `p`'s window of its input (all of it, or a part of a condition).
pub(crate) fn parse_in(p: &mut Parser<'_>) -> Result<Selector, SyntaxError> {
    let mut sel = Selector::default();
    let mut seen: Vec<&str> = Vec::new();
    p.skip_ws();
    if p.at_end() {
        return Err(p.err(p.pos, "empty selector; expected a term such as role=push_button or name=\"Submit\""));
    }
    while !p.at_end() {
        let key_start = p.pos;
        let key = p.key()?;
        if seen.contains(&key) {
            return Err(p.err(key_start, format!("'{key}' is given twice")));
        }
        seen.push(key);
        let op = p.op(key)?;
        let value_start = p.pos;
        let value = p.value(key, op)?;
        p.set(&mut sel, key, op, value_start, value)?;
        if !p.at_end() && !p.peek().is_some_and(char::is_whitespace) {
            return Err(p.err(p.pos, "expected a space before the next term"));
        }
        p.skip_ws();
    }
    Ok(sel)
}

/// The selector's own terms, on the shared cursor.
trait Terms {
    fn key(&mut self) -> Result<&'static str, SyntaxError>;
    fn op(&mut self, key: &str) -> Result<Op, SyntaxError>;
    fn set(&self, sel: &mut Selector, key: &str, op: Op, at: usize, value: String) -> Result<(), SyntaxError>;
}

impl Terms for Parser<'_> {
    fn key(&mut self) -> Result<&'static str, SyntaxError> {
        let start = self.pos;
        let word: String = self.rest().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if word.is_empty() {
            let found = self.peek().map(|c| format!("'{c}'")).unwrap_or_else(|| "the end".into());
            return Err(self.err(start, format!("expected a key ({}), found {found}", KEYS.join(", "))));
        }
        match KEYS.iter().find(|k| **k == word) {
            Some(k) => {
                self.pos += word.len();
                Ok(k)
            }
            None => {
                let hint = KEYS
                    .iter()
                    .map(|k| (strsim::jaro_winkler(k, &word.to_lowercase()), k))
                    .filter(|(s, _)| *s > 0.7)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, k)| format!(" (did you mean '{k}'?)"))
                    .unwrap_or_default();
                Err(self.err(start, format!("unknown key '{word}'; expected one of {}{hint}", KEYS.join(", "))))
            }
        }
    }

    fn op(&mut self, key: &str) -> Result<Op, SyntaxError> {
        let start = self.pos;
        let Some(op) = self.try_op() else {
            return Err(self.err(start, format!("expected '=', '~=' or '/=' after '{key}'")));
        };
        if op != Op::Exact && !matches!(key, "app" | "window" | "name" | "text") {
            return Err(
                self.err(start, format!("'{key}' takes only '=' ('~=' and '/=' are for app, window, name and text)"))
            );
        }
        Ok(op)
    }

    fn set(&self, sel: &mut Selector, key: &str, op: Op, at: usize, value: String) -> Result<(), SyntaxError> {
        let text = |value: String| -> Result<TextMatch, SyntaxError> {
            Ok(match op {
                Op::Exact => TextMatch::Exact(value),
                Op::Contains => TextMatch::Contains(value),
                Op::Regex => {
                    regex::Regex::new(&value).map_err(|e| {
                        self.err(at, format!("invalid regular expression: {}", one_line(&e.to_string())))
                    })?;
                    TextMatch::Regex(value)
                }
            })
        };
        match key {
            "app" => sel.app = Some(text(value)?),
            "window" => sel.window = Some(text(value)?),
            "name" => sel.name = Some(text(value)?),
            "text" => sel.text = Some(text(value)?),
            "role" => {
                let role = Role::new(&value);
                if role.as_str().is_empty() {
                    return Err(self.err(at, "expected a role name after 'role=', e.g. push_button"));
                }
                if let Some(why) = crate::roles::unknown(&role) {
                    return Err(self.err(at, why));
                }
                sel.role = Some(role);
            }
            "id" => {
                if value.is_empty() {
                    return Err(self.err(at, "expected an element id after 'id='"));
                }
                sel.id = Some(ElementId(value));
            }
            "index" => {
                sel.index = Some(value.parse::<u32>().map_err(|_| {
                    self.err(at, format!("expected a non-negative whole number after 'index=', found '{value}'"))
                })?);
            }
            "path" => sel.path = Some(parse_path(&value).map_err(|(off, msg)| self.err(at + off, msg))?),
            _ => unreachable!("keys come from KEYS"),
        }
        Ok(())
    }
}

/// `0/2/1` → `[0, 2, 1]`; `/` → `[]` (the window itself). Errors carry an offset into `s`.
fn parse_path(s: &str) -> Result<Vec<u32>, (usize, String)> {
    if s == "/" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut offset = 0;
    for part in s.split('/') {
        match part.parse::<u32>() {
            Ok(n) if !part.starts_with('+') => out.push(n),
            _ => {
                return Err((
                    offset,
                    format!(
                        "expected child indices separated by '/' after 'path=' (e.g. 0/2/1, or / for the window), found '{part}'"
                    ),
                ));
            }
        }
        offset += part.len() + 1;
    }
    Ok(out)
}

/// The selector in the text syntax; [`parse`] reads it back to an equal selector (for
/// roles already in snake case, which [`Role::new`] produces).
pub fn format(sel: &Selector) -> String {
    SelectorText(sel).to_string()
}

/// Displays a selector in the text syntax.
pub struct SelectorText<'a>(pub &'a Selector);

impl fmt::Display for SelectorText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sel = self.0;
        let mut terms: Vec<String> = Vec::new();
        let text = |key: &str, m: &TextMatch| {
            let (op, v) = match m {
                TextMatch::Exact(v) => ("=", v),
                TextMatch::Contains(v) => ("~=", v),
                TextMatch::Regex(v) => ("/=", v),
            };
            format!("{key}{op}{}", quote(v))
        };
        if let Some(m) = &sel.app {
            terms.push(text("app", m));
        }
        if let Some(m) = &sel.window {
            terms.push(text("window", m));
        }
        if let Some(r) = &sel.role {
            terms.push(format!("role={}", quote(r.as_str())));
        }
        if let Some(m) = &sel.name {
            terms.push(text("name", m));
        }
        if let Some(m) = &sel.text {
            terms.push(text("text", m));
        }
        if let Some(p) = &sel.path {
            terms.push(format!("path={}", format_path(p)));
        }
        if let Some(id) = &sel.id {
            terms.push(format!("id={}", quote(&id.0)));
        }
        if let Some(i) = sel.index {
            terms.push(format!("index={i}"));
        }
        f.write_str(&terms.join(" "))
    }
}

/// A path as written in selectors: `0/2/1`, or `/` for the window itself.
pub fn format_path(path: &[u32]) -> String {
    if path.is_empty() { "/".to_string() } else { path.iter().map(u32::to_string).collect::<Vec<_>>().join("/") }
}
