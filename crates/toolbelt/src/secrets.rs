//! Password fields are painted over in every image the toolbelt gives out and in every
//! frame it reads text from: a screenshot may be saved, shown in a report or sent to a
//! vision model, and a field whose text is revealed (an "eye" toggle) would show it.
//!
//! Where they are comes from one accessibility read of the desktop just before the
//! capture; which elements are secret is `Element::is_secret`, the rule the executor's frames use.
//!
//! Passwords themselves travel as references (`{{secret:NAME}}`, [`SecretValues`]) filled
//! in at the last step, so that no model, prompt, trace or report ever holds them.

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_types::{Action, Element, Frame, Physical, Rect};
use deft_verify::ActionOptions;

use crate::error::ToolError;

/// Where password fields are on screen, or why that is not known.
#[derive(Clone, Debug)]
pub enum Secrets {
    /// The screen areas of the password fields shown (none when there are none).
    Areas(Vec<Rect<Physical>>),
    /// The desktop could not be read: nothing is masked, and the result says so.
    Unknown(String),
    /// A password field is shown but cannot be placed: everything is masked, and the
    /// result says why.
    Unplaced(String),
}

impl Secrets {
    /// Read where the password fields are, over `a11y`. Bounds are taken as screen pixels
    /// (a window scaled for HiDPI would need its scale: not handled here yet).
    pub async fn read<A: Accessibility>(a11y: &A) -> Secrets {
        // Boxed: a whole-desktop read is a large future, and callers nest this one deep.
        match Box::pin(a11y.snapshot(&Scope::All, &SnapshotOptions::default())).await {
            Ok(tree) => {
                let secret: Vec<&Element> = tree.nodes.iter().map(|n| &n.element).filter(|e| e.is_secret()).collect();
                // A password field shown where it cannot be placed (its window's place on
                // screen is unknown: Wayland without a window list) could be anywhere in the
                // image: the whole image is its area.
                if let Some(e) = secret.iter().find(|e| e.is_unplaced_secret()) {
                    return Secrets::Unplaced(format!(
                        "{} is shown where Deft cannot place it on screen (its window's place is unknown), so \
                         the whole image is painted over",
                        e.describe()
                    ));
                }
                Secrets::Areas(secret.iter().filter_map(|e| e.bounds).map(|b| Rect::new(b.x, b.y, b.w, b.h)).collect())
            }
            Err(e) => Secrets::unknown(e),
        }
    }

    /// Where the password fields are is unknown, because of `why` (the desktop could not
    /// be read or connected to).
    pub fn unknown(why: impl std::fmt::Display) -> Secrets {
        Secrets::Unknown(format!("password fields could not be located ({why}), so nothing was masked"))
    }

    /// `frame` with the password fields painted over, the areas painted, and a note when
    /// where they are is unknown.
    pub(crate) fn mask(&self, frame: Frame) -> (Frame, Vec<Rect<Physical>>, Option<String>) {
        match self {
            Secrets::Areas(areas) => {
                let (frame, masked) = deft_trace::redact::mask(frame, areas);
                (frame, masked, None)
            }
            Secrets::Unknown(why) => (frame, Vec::new(), Some(why.clone())),
            Secrets::Unplaced(why) => {
                let all = frame.screen_rect();
                let (frame, masked) = deft_trace::redact::mask(frame, &[all]);
                (frame, masked, Some(why.clone()))
            }
        }
    }
}

/// Named secret values a face was given, written `{{secret:NAME}}` in the text of a `type`
/// or `set_value` call. The reference is what travels through models, prompts, traces and
/// reports; the value is filled in here, below every face and model, and the executor
/// sends it only into a password field. Debug output shows the names only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SecretValues(std::collections::HashMap<String, String>);

impl std::fmt::Debug for SecretValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// How a reference to secret `NAME` is written.
pub const SECRET_REFERENCE: &str = "{{secret:NAME}}";

impl SecretValues {
    /// The secrets `(name, value)`.
    pub fn new(values: impl IntoIterator<Item = (String, String)>) -> SecretValues {
        SecretValues(values.into_iter().collect())
    }

    /// Their names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.0.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// `text` with every `{{secret:NAME}}` replaced by its value; `None` when it holds no
    /// reference. A name not given is an error that says how to give it.
    pub fn fill(&self, text: &str) -> Result<Option<String>, ToolError> {
        const OPEN: &str = "{{secret:";
        if !text.contains(OPEN) {
            return Ok(None);
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find(OPEN) {
            out.push_str(&rest[..at]);
            let after = &rest[at + OPEN.len()..];
            let Some(end) = after.find("}}") else {
                return Err(ToolError::usage(format!(
                    "a secret reference is not closed: write it {SECRET_REFERENCE}, e.g. {{{{secret:MAIL_PASSWORD}}}}"
                )));
            };
            let name = after[..end].trim();
            let value = self.0.get(name).ok_or_else(|| {
                let known = if self.0.is_empty() { "none".to_string() } else { self.names().join(", ") };
                ToolError::usage(format!(
                    "no secret named {name:?} was given (given: {known}); set DEFT_SECRET_{name} in the \
                     environment of the process that runs Deft"
                ))
            })?;
            out.push_str(value);
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(Some(out))
    }

    /// `action` with its secret references filled in, and `options` marked secret when it
    /// held any (so the executor sends it only into a password field).
    pub(crate) fn fill_action(
        &self,
        action: Action,
        mut options: ActionOptions,
    ) -> Result<(Action, ActionOptions), ToolError> {
        let action = match action {
            Action::Type { target, text } => match self.fill(&text)? {
                Some(text) => {
                    options.secret = true;
                    Action::Type { target, text }
                }
                None => Action::Type { target, text },
            },
            Action::SetValue { target, value } => match self.fill(&value)? {
                Some(value) => {
                    options.secret = true;
                    Action::SetValue { target, value }
                }
                None => Action::SetValue { target, value },
            },
            other => other,
        };
        Ok((action, options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_filled_and_unknown_names_say_how_to_give_them() {
        let s = SecretValues::new([("PW".to_string(), "hunter2".to_string())]);
        assert_eq!(s.fill("plain").unwrap(), None);
        assert_eq!(s.fill("{{secret:PW}}").unwrap().as_deref(), Some("hunter2"));
        assert_eq!(s.fill("a{{secret: PW }}b").unwrap().as_deref(), Some("ahunter2b"));
        let e = s.fill("{{secret:MAIL}}").unwrap_err().to_string();
        assert!(e.contains("\"MAIL\"") && e.contains("DEFT_SECRET_MAIL") && e.contains("PW"), "{e}");
        assert!(s.fill("{{secret:PW").unwrap_err().to_string().contains("not closed"));
        assert_eq!(format!("{s:?}"), "{\"PW\"}");
    }
}
