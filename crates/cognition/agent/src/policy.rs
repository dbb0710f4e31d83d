//! The action policy: which apps and windows the agent may touch, which keys and tools it
//! may never use, and which actions always need the person's confirmation. Enforced in
//! code on the resolved target, below the model: a model persuaded by text on the screen
//! still cannot act outside it.

use deft_toolbelt::{AsParams, Plan, Request, ToolCall};
use deft_types::Action;
use serde::{Deserialize, Serialize};

/// The policy, as the `[agent.policy]` section of agent-cli's config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Applications the agent may act in, by name (empty: any). `*` at either end is a wildcard.
    pub apps: Vec<String>,
    /// Top-level windows the agent may act in, by title (empty: any); dialogs are windows too.
    pub windows: Vec<String>,
    /// Key chords never sent (`ctrl+alt+Delete`), compared after normalising.
    pub deny_keys: Vec<String>,
    /// Tools never run (`key`, `type`, ...).
    pub deny_tools: Vec<String>,
    /// Words that make a click or action irreversible (`send`, `delete`, `pay`, ...): when
    /// the target's name holds one, the person confirms first, whatever the confidence.
    pub confirm: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect();
        Policy {
            apps: Vec::new(),
            windows: Vec::new(),
            // Session-level chords: log out, lock, kill the X server, open a terminal.
            deny_keys: s(&["ctrl+alt+Delete", "ctrl+alt+BackSpace", "super+l", "ctrl+alt+t"]),
            deny_tools: Vec::new(),
            confirm: s(&[
                "send",
                "delete",
                "pay",
                "purchase",
                "buy",
                "remove",
                "erase",
                "transfer",
                "uninstall",
                "format",
                "wipe",
                "reset",
                "discard",
            ]),
        }
    }
}

/// Where a resolved target lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Its application.
    pub app: String,
    /// Its top-level window, when it has one.
    pub window: Option<String>,
}

fn matches(pattern: &str, value: &str) -> bool {
    let (p, v) = (pattern.trim().to_lowercase(), value.trim().to_lowercase());
    match (p.strip_prefix('*'), p.strip_suffix('*')) {
        _ if p == "*" => true,
        (Some(rest), _) if rest.ends_with('*') => v.contains(rest.trim_end_matches('*')),
        (Some(rest), _) => v.ends_with(rest),
        (None, Some(rest)) => v.starts_with(rest),
        (None, None) => v == p,
    }
}

/// The normalised form of a key chord (`Ctrl+S` and `ctrl+s` are one chord), or `None`
/// when it does not parse.
pub fn normalise_chord(keys: &str) -> Option<String> {
    let call = ToolCall::parse("key", serde_json::json!({ "keys": keys })).ok()?;
    match call.plan(&AsParams, None, false).ok()? {
        Plan { request: Request::Act { action: Action::Key { chord }, .. }, .. } => Some(chord.to_string()),
        _ => None,
    }
}

impl Policy {
    /// Why `tool` may not run at all, if it may not.
    pub fn check_tool(&self, tool: &str) -> Option<String> {
        self.deny_tools
            .iter()
            .any(|t| t.trim().eq_ignore_ascii_case(tool))
            .then(|| format!("the policy forbids the tool `{tool}`"))
    }

    /// Why this chord may not be sent, if it may not.
    pub fn check_key(&self, keys: &str) -> Option<String> {
        let chord = normalise_chord(keys)?;
        self.deny_keys.iter().find(|k| normalise_chord(k).is_some_and(|d| d.eq_ignore_ascii_case(&chord))).map(|k| {
            format!("the policy never sends the key chord {k} (session-level keys are outside what the agent may do)")
        })
    }

    /// Whether a place restriction is in force.
    pub fn restricts_places(&self) -> bool {
        !self.apps.is_empty() || !self.windows.is_empty()
    }

    /// Why acting in `place` is not allowed, if it is not.
    pub fn check_place(&self, place: &Place) -> Option<String> {
        if !self.apps.is_empty() && !self.apps.iter().any(|a| matches(a, &place.app)) {
            return Some(format!(
                "the policy allows acting only in the applications {}; this target is in {:?}",
                list(&self.apps),
                place.app
            ));
        }
        if !self.windows.is_empty() {
            let ok = place.window.as_deref().is_some_and(|w| self.windows.iter().any(|p| matches(p, w)));
            if !ok {
                return Some(format!(
                    "the policy allows acting only in the windows {}; this target is in {}",
                    list(&self.windows),
                    place.window.as_deref().map_or("no window".to_string(), |w| format!("{w:?}"))
                ));
            }
        }
        None
    }

    /// The confirmation word `name` holds, when a click or action on it needs the
    /// person's confirmation.
    pub fn confirm_word(&self, name: &str) -> Option<&str> {
        let words: Vec<String> =
            name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        self.confirm.iter().map(String::as_str).find(|c| {
            let c = c.trim().to_lowercase();
            // A phrase ("place order") matches consecutive words; a word matches a word.
            let parts: Vec<&str> = c.split_whitespace().collect();
            !parts.is_empty() && words.windows(parts.len()).any(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
        })
    }
}

fn list(v: &[String]) -> String {
    v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places() {
        let p = Policy { apps: vec!["Deft Fixture".into()], windows: vec!["Deft*".into()], ..Policy::default() };
        let at = |app: &str, w: Option<&str>| Place { app: app.into(), window: w.map(Into::into) };
        assert_eq!(p.check_place(&at("deft fixture", Some("Deft Fixture"))), None);
        assert!(p.check_place(&at("Terminal", Some("Deft Fixture"))).unwrap().contains("\"Terminal\""));
        assert!(p.check_place(&at("Deft Fixture", Some("Admin"))).unwrap().contains("\"Admin\""));
        assert!(p.check_place(&at("Deft Fixture", None)).is_some());
        assert_eq!(Policy::default().check_place(&at("x", None)), None);
    }

    #[test]
    fn keys_compare_normalised() {
        let p = Policy::default();
        assert!(p.check_key("Ctrl+Alt+delete").is_some());
        assert!(p.check_key("ctrl+s").is_none());
        assert_eq!(normalise_chord("Ctrl+S"), normalise_chord("ctrl+s"));
        let p = Policy { deny_tools: vec!["key".into()], ..Policy::default() };
        assert!(p.check_tool("key").is_some() && p.check_tool("click").is_none());
    }

    #[test]
    fn confirmation_words_match_whole_words() {
        let p = Policy { confirm: vec!["delete".into(), "place order".into()], ..Policy::default() };
        assert_eq!(p.confirm_word("Delete all data"), Some("delete"));
        assert_eq!(p.confirm_word("Undelete"), None);
        assert_eq!(p.confirm_word("Place  order now"), Some("place order"));
        assert_eq!(p.confirm_word("Place"), None);
    }
}
