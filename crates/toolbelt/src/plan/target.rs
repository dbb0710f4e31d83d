//! The target a call's parameters name: a ref, a selector, or visible text, merged with
//! the separate fields, every conflict a usage error.

use deft_a11y::selector;
use deft_types::{ElementId, Logical, Point, Role, Selector, Target, TextMatch};

use super::{Planner, RefUse};
use crate::error::{ToolError, ToolErrorKind};
use crate::params::{MatchMode, TargetParams};
use crate::refs::parse_ref;

impl Planner<'_> {
    /// The target the parameters name, or `None` when none does.
    pub(crate) fn target(&mut self, t: &TargetParams) -> Result<Option<Target>, ToolError> {
        let nonempty = |field: &str, v: &Option<String>, example: &str| -> Result<(), ToolError> {
            match v {
                Some(s) if s.trim().is_empty() => {
                    Err(ToolError::usage(format!("{} is empty; give a value, e.g. {example}", self.f(field))))
                }
                _ => Ok(()),
            }
        };
        // An empty name given as a flag is taken for a slip (a shell variable unset): an element
        // with no name is named so in a selector, where it is written out.
        nonempty("name", &t.name, "\"Submit order\"; for an element with no name, the selector 'name=\"\"'")?;
        nonempty("role", &t.role, "push_button")?;
        nonempty("id", &t.id, "42")?;
        nonempty("app", &t.app, "\"Deft Fixture\"")?;
        nonempty("window", &t.window, "\"Deft Fixture\"")?;
        if t.literal {
            nonempty("target", &t.target, "\"Submit order\"")?;
        }
        let mode = t.matching.unwrap_or_default();
        let make = |s: &str| match mode {
            MatchMode::Exact => TextMatch::Exact(s.to_string()),
            MatchMode::Contains => TextMatch::Contains(s.to_string()),
            MatchMode::Regex => TextMatch::Regex(s.to_string()),
        };

        // `target`: a ref, a selector (it has an operator), or the text a person sees.
        let (mut sel, text) = match t.target.as_deref() {
            None => (Selector::default(), None),
            Some(s) if s.trim().is_empty() => {
                return Err(ToolError::usage(format!(
                    "{} is empty; give a ref (e12), a selector such as 'role=push_button name=\"Submit\"', or \
                     the text on the element",
                    self.f("target")
                )));
            }
            Some(s) if t.literal => (Selector::default(), Some(s)),
            Some(s) if parse_ref(s).is_some() => (self.by_ref(s.trim())?, None),
            // A selector when it reads as one (a key, then an operator); other text with an
            // `=` in it ("1+1=2", "Total = 5") is text a person sees.
            Some(s) if s.contains('=') && looks_like_selector(s) => {
                let sel = selector::parse(s).map_err(|e| {
                    ToolError::usage(format!("in the selector {}: {e}\n{}", self.f("target"), e.pointer()))
                })?;
                (sel, None)
            }
            Some(s) => (Selector::default(), Some(s)),
        };

        let twice = |key: &str| {
            ToolError::usage(format!(
                "`{key}` is given twice: in {} and as {}; keep one",
                self.f("target"),
                self.f(key)
            ))
        };
        macro_rules! set {
            ($field:ident, $value:expr, $name:literal) => {
                if let Some(v) = $value {
                    if sel.$field.is_some() {
                        return Err(twice($name));
                    }
                    sel.$field = Some(v);
                }
            };
        }
        set!(name, t.name.as_deref().map(make), "name");
        set!(role, t.role.as_deref().map(Role::new), "role");
        set!(id, t.id.as_deref().map(|i| ElementId(i.trim().to_string())), "id");
        set!(app, t.app.as_deref().map(make), "app");
        set!(window, t.window.as_deref().map(make), "window");
        set!(index, t.index, "index");

        if let Some([x, y]) = t.at {
            if !sel.is_empty() || text.is_some() {
                return Err(ToolError::usage(format!(
                    "{} clicks raw screen coordinates and cannot be combined with a selector or text; drop one",
                    self.f("at")
                )));
            }
            return Ok(Some(Target::Point(Point::<Logical>::new(x, y))));
        }
        if sel.is_empty() {
            // Text alone: accessible name, text or value first, OCR of the screen otherwise.
            return Ok(text.map(|s| Target::Text(make(s))));
        }
        if let Some(s) = text {
            if sel.text.is_some() {
                return Err(twice("text"));
            }
            sel.text = Some(make(s));
        }
        if sel.index.is_some() && sel.id.is_some() {
            return Err(ToolError::usage(format!(
                "{} picks one of several matches, but an id already names exactly one element; drop {}",
                self.f("index"),
                self.f("index")
            )));
        }
        // Compile regular expressions now, so a bad one is a usage error with its place.
        selector::Matcher::new(&sel).map_err(|e| ToolError::usage(format!("{e}\n{}", e.pointer())))?;
        Ok(Some(Target::Selector(sel)))
    }

    /// The selector a ref stands for (its element id), remembered to be checked live.
    fn by_ref(&mut self, r: &str) -> Result<Selector, ToolError> {
        let Some(refs) = self.refs else {
            return Err(ToolError::usage(format!(
                "{r} looks like a ref, but refs belong to a session (the agent or the MCP server) and this face has \
                 none; give the element's id as read prints it, or a selector"
            )));
        };
        let Some((id, role, name)) = refs.lookup(r) else {
            return Err(ToolError::new(
                ToolErrorKind::StaleRef,
                format!("{r} is not a ref this session has shown; read (or find) again and use a ref from it"),
            ));
        };
        self.used.push(RefUse { reference: r.to_string(), id: id.clone(), role, name });
        Ok(Selector { id: Some(id), ..Selector::default() })
    }
}

/// Whether `s` begins as a selector does: a word of letters (a key, or a misspelt one),
/// then at once `=`, `~=` or `/=`. "1+1=2" and "Total = 5" are text; "nme=A" is a
/// selector whose key the parser names as misspelt.
fn looks_like_selector(s: &str) -> bool {
    let s = s.trim_start();
    let word = s.find(|c: char| !(c.is_ascii_alphabetic() || c == '_')).unwrap_or(s.len());
    let rest = &s[word..];
    word > 0 && (rest.starts_with('=') || rest.starts_with("~=") || rest.starts_with("/="))
}
