//! The condition of `wait_for`: the condition syntax, or an element with gone, state,
//! value or title. Exactly one way.

use deft_a11y::selector::{looks_like_condition, parse_condition};
use deft_types::{Condition, Selector, State, Target};

use super::Planner;
use crate::error::ToolError;
use crate::params::{TargetParams, WaitParams};

impl Planner<'_> {
    /// The condition of `wait_for`: `condition`, or the element fields with gone, state,
    /// value or title. Exactly one way.
    pub(crate) fn wait_condition(&mut self, w: &WaitParams) -> Result<Condition, ToolError> {
        let t = &w.target;
        let flags = !t.is_empty() || w.gone.is_some() || w.state.is_some() || w.value.is_some() || w.title.is_some();
        // A condition given as `target` (the CLI's positional argument) reads as one.
        let condition =
            w.condition.as_deref().or(t.target.as_deref().filter(|s| !t.literal && looks_like_condition(s)));
        if w.condition.is_none()
            && !t.literal
            && let Some(kind) = t.target.as_deref().and_then(deft_a11y::selector::unknown_condition_kind)
        {
            let given = t.target.as_deref().unwrap_or_default();
            return Err(ToolError::usage(format!(
                "`{given}` reads like a condition, but `{kind}` is no kind of one (the kinds are {}); to wait for \
                 this text as it is, write text:{}",
                deft_a11y::selector::CONDITION_KINDS.join(", "),
                deft_a11y::selector::quote(given)
            )));
        }
        if let Some(c) = condition {
            let from_target = w.condition.is_none();
            let others = if from_target {
                TargetParams { target: None, ..t.clone() }.is_empty()
                    && w.gone.is_none()
                    && w.state.is_none()
                    && w.value.is_none()
                    && w.title.is_none()
            } else {
                !flags
            };
            if !others {
                // Name what was given beside it, so the caller knows what to drop.
                let given = self.given_fields(w, !from_target, true);
                return Err(ToolError::usage(format!(
                    "`{c}` is a whole condition, so it takes none of {}: drop {}, or leave out the condition \
                     and give the element with {}, {} or {} (a condition's own selector can name the app: \
                     exists:app=NAME name=\"OK\")",
                    given.join(", "),
                    if given.len() == 1 { "it" } else { "them" },
                    self.f("gone"),
                    self.f("state"),
                    self.f("value")
                )));
            }
            return parse_condition(c)
                .map_err(|e| ToolError::usage(format!("{}: {e}\n{}", self.f("condition"), e.pointer())));
        }
        if let Some(title) = &w.title {
            if !t.is_empty() || w.gone.is_some() || w.state.is_some() || w.value.is_some() {
                let given = self.given_fields(w, true, false);
                return Err(ToolError::usage(format!(
                    "{} waits for a window of any application by its title, and takes nothing else: drop {} (the \
                     title alone names the window)",
                    self.f("title"),
                    given.join(", ")
                )));
            }
            if title.trim().is_empty() {
                return Err(ToolError::usage(format!("{} is empty; give a window title", self.f("title"))));
            }
            return Ok(Condition::WindowTitle(self.text_match(title, t.matching.unwrap_or_default(), "title")?));
        }
        let gone = w.gone.unwrap_or(false);
        let given = [gone, w.state.is_some(), w.value.is_some()].iter().filter(|g| **g).count();
        if given > 1 {
            return Err(ToolError::usage(format!(
                "{}, {} and {} are different conditions; give one",
                self.f("gone"),
                self.f("state"),
                self.f("value")
            )));
        }
        let target = self.target(t)?.ok_or_else(|| {
            ToolError::usage(format!(
                "`{}` needs a condition: {} such as text:\"Saved\" or gone:name=Loading, or an element \
                 with {} or {}",
                self.sp.tool("wait_for"),
                self.f("condition"),
                self.f("gone"),
                self.f("state")
            ))
        })?;
        let sel = match target {
            Target::Text(m) if w.state.is_none() && w.value.is_none() => {
                return Ok(if gone { Condition::TextGone(m) } else { Condition::TextAppears(m) });
            }
            Target::Text(m) => Selector { text: Some(m), ..Selector::default() },
            Target::Selector(s) => s,
            Target::Point(_) | Target::Focused => {
                return Err(ToolError::usage(format!(
                    "`{}` needs an element or text, not a point",
                    self.sp.tool("wait_for")
                )));
            }
        };
        if let Some(state) = &w.state {
            let (present, name) = match state.trim().strip_prefix('!') {
                Some(n) => (false, n.trim()),
                None => (true, state.trim()),
            };
            let state: State = name.parse().map_err(|e| ToolError::usage(format!("{}: {e}", self.f("state"))))?;
            return Ok(Condition::ElementState { selector: sel, state, present });
        }
        if let Some(v) = &w.value {
            return Ok(Condition::Value {
                selector: sel,
                value: self.text_match(v, t.matching.unwrap_or_default(), "value")?,
            });
        }
        Ok(if gone { Condition::ElementGone(sel) } else { Condition::ElementExists(sel) })
    }
}

impl Planner<'_> {
    /// The fields of a wait given beside a condition or a title, as the caller spells them:
    /// `target` among them when it is not the condition itself, `title` when it is not the
    /// title asked for.
    fn given_fields(&self, w: &WaitParams, with_target: bool, with_title: bool) -> Vec<String> {
        let t = &w.target;
        [
            ("target", with_target && t.target.is_some()),
            ("name", t.name.is_some()),
            ("role", t.role.is_some()),
            ("id", t.id.is_some()),
            ("app", t.app.is_some()),
            ("window", t.window.is_some()),
            ("index", t.index.is_some()),
            ("at", t.at.is_some()),
            ("gone", w.gone.is_some()),
            ("state", w.state.is_some()),
            ("value", w.value.is_some()),
            ("title", with_title && w.title.is_some()),
        ]
        .iter()
        .filter(|(_, g)| *g)
        .map(|(f, _)| self.f(f))
        .collect()
    }
}
