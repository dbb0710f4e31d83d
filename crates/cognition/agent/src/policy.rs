//! The action policy: which apps and windows the agent may touch, which keys and tools it
//! may never use, and which actions always need the person's confirmation. Enforced in
//! code on the resolved target, below the model: a model persuaded by text on the screen
//! still cannot act outside it.

use deft_toolbelt::{AsParams, Plan, Request, ToolCall};
use deft_types::Action;
use serde::{Deserialize, Serialize};

/// Key chords the agent never sends unless the person lifts one by name (`allow_keys`):
/// session-level chords that log out, lock, kill the X server or open a terminal.
pub const BUILTIN_DENY_KEYS: &[&str] = &["ctrl+alt+Delete", "ctrl+alt+BackSpace", "super+l", "ctrl+alt+t"];

/// Words that make a click or action irreversible, so the person confirms it first, unless
/// the person lifts one by name (`no_confirm`).
pub const BUILTIN_CONFIRM: &[&str] = &[
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
];

/// The policy, as the `[agent.policy]` section of agent-cli's config.
///
/// The built-in denials ([`BUILTIN_DENY_KEYS`], [`BUILTIN_CONFIRM`]) always hold: the
/// lists here add to them, and only `allow_keys` and `no_confirm` lift one, by name. A
/// config file that writes `deny_keys = ["ctrl+q"]` denies ctrl+q as well, never instead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Applications the agent may act in, by name or by the title of one of their windows
    /// (as `--app` names them; empty: any). `*` at either end is a wildcard.
    pub apps: Vec<String>,
    /// Top-level windows the agent may act in, by title (empty: any); dialogs are windows too.
    pub windows: Vec<String>,
    /// Key chords never sent (`ctrl+q`), besides the built-in ones; compared after normalising.
    pub deny_keys: Vec<String>,
    /// Built-in key denials lifted, by name (`ctrl+alt+t` to let the agent open a terminal).
    pub allow_keys: Vec<String>,
    /// Tools never run (`key`, `type`, ...).
    pub deny_tools: Vec<String>,
    /// Words that make a click or action irreversible (`send`, `delete`, `pay`, ...) besides
    /// the built-in ones: when the target's name holds one, the person confirms first,
    /// whatever the confidence.
    pub confirm: Vec<String>,
    /// Built-in confirmation words lifted, by name.
    pub no_confirm: Vec<String>,
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
        Plan { request: Request::Act { action: Action::Key { chord, .. }, .. }, .. } => Some(chord.to_string()),
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
        let same = |k: &str| normalise_chord(k).is_some_and(|d| d.eq_ignore_ascii_case(&chord));
        if let Some(k) = self.deny_keys.iter().find(|k| same(k)) {
            return Some(format!("the policy never sends the key chord {k}"));
        }
        let lifted = self.allow_keys.iter().any(|k| same(k));
        BUILTIN_DENY_KEYS.iter().find(|k| same(k) && !lifted).map(|k| {
            format!(
                "the policy never sends the key chord {k} (session-level keys are outside what the agent may do; \
                 `allow_keys` in [agent.policy] lifts it by name)"
            )
        })
    }

    /// The confirmation words in force: the built-in ones not lifted, then the person's.
    pub fn confirm_words(&self) -> Vec<String> {
        let lifted = |w: &str| self.no_confirm.iter().any(|l| l.trim().eq_ignore_ascii_case(w));
        let mut words: Vec<String> = BUILTIN_CONFIRM.iter().filter(|w| !lifted(w)).map(|w| (*w).to_string()).collect();
        words.extend(self.confirm.iter().cloned());
        words
    }

    /// Whether every lift names a built-in denial: a lift of something that is not one
    /// would do nothing, and is most likely a typo that leaves a denial in force unnoticed
    /// (or a belief that it lifts a denial of the person's own, which it never does).
    pub fn check_lifts(&self) -> Result<(), String> {
        for k in &self.allow_keys {
            let Some(chord) = normalise_chord(k) else {
                return Err(format!("allow_keys: {k:?} is not a key chord"));
            };
            if !BUILTIN_DENY_KEYS.iter().any(|b| normalise_chord(b).is_some_and(|d| d.eq_ignore_ascii_case(&chord))) {
                return Err(format!(
                    "allow_keys: {k:?} is not a built-in denial (those are {}); it lifts nothing",
                    BUILTIN_DENY_KEYS.join(", ")
                ));
            }
        }
        for w in &self.no_confirm {
            if !BUILTIN_CONFIRM.iter().any(|b| b.eq_ignore_ascii_case(w.trim())) {
                return Err(format!(
                    "no_confirm: {w:?} is not a built-in confirmation word (those are {}); it lifts nothing",
                    BUILTIN_CONFIRM.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Whether a place restriction is in force.
    pub fn restricts_places(&self) -> bool {
        !self.apps.is_empty() || !self.windows.is_empty()
    }

    /// Why acting in `place` is not allowed, if it is not.
    pub fn check_place(&self, place: &Place) -> Option<String> {
        // An app is named as `--app` names it: by its name or the title of its window.
        let app_allowed = |a: &String| matches(a, &place.app) || place.window.as_deref().is_some_and(|w| matches(a, w));
        if !self.apps.is_empty() && !self.apps.iter().any(app_allowed) {
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
    pub fn confirm_word(&self, name: &str) -> Option<String> {
        let words: Vec<String> =
            name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        self.confirm_words().into_iter().find(|c| {
            let c = c.trim().to_lowercase();
            // A phrase ("place order") matches consecutive words; a word matches a word.
            let parts: Vec<&str> = c.split_whitespace().collect();
            !parts.is_empty() && words.windows(parts.len()).any(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
        })
    }
}

impl Policy {
    /// The verdict on a call as it is written, with no desktop to resolve it against and no
    /// person to ask: a flow's step in a fleet task, checked when it is submitted and again
    /// by the worker before it runs. The same rules as the agent's, each as far as the text
    /// tells it: the tool, the key chord, a confirmation word in the target it names (there
    /// is nobody to confirm, so it is refused), and, when the policy limits where to act,
    /// the application or window the call names (one that names neither is refused: it
    /// could act anywhere). `Err` says why it may not run.
    pub fn check_written(&self, call: &ToolCall) -> Result<(), String> {
        let tool = call.name();
        if let Some(why) = self.check_tool(tool.as_str()) {
            return Err(why);
        }
        if let ToolCall::Key(k) = call
            && let Some(why) = self.check_key(&k.keys)
        {
            return Err(why);
        }
        let target = crate::act::target_params(call);
        if matches!(call, ToolCall::Click(_) | ToolCall::Action(_))
            && let Some(t) = target
        {
            for text in [t.target.as_deref(), t.name.as_deref()].into_iter().flatten() {
                if let Some(word) = self.confirm_word(text) {
                    return Err(format!(
                        "{text:?} holds {word:?}, which needs a person's confirmation, and no person is there to give \
                         it (lift the word by name: no_confirm in the policy, `submit --no-confirm {word}`; or do \
                         it with `agent-cli run`, which asks)"
                    ));
                }
            }
        }
        if tool.acts() && self.restricts_places() {
            let (app, window) = match (call, target) {
                (ToolCall::Key(k), _) => (k.app.clone(), k.window.clone()),
                (_, Some(t)) => (t.app.clone(), t.window.clone()),
                _ => (None, None),
            };
            if app.is_none() && window.is_none() {
                return Err(format!(
                    "the policy allows acting only in {}, and this {} step names no app or window: add `app:` to it",
                    list(&[self.apps.clone(), self.windows.clone()].concat()),
                    tool.as_str()
                ));
            }
            if let Some(why) = self.check_place(&Place { app: app.unwrap_or_default(), window }) {
                return Err(why);
            }
        }
        Ok(())
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
        assert!(p.check_place(&at("Terminal", Some("Deft Terminal"))).unwrap().contains("\"Terminal\""));
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
        let p = Policy { confirm: vec!["place order".into()], ..Policy::default() };
        assert_eq!(p.confirm_word("Delete all data").as_deref(), Some("delete"));
        assert_eq!(p.confirm_word("Undelete"), None);
        assert_eq!(p.confirm_word("Place  order now").as_deref(), Some("place order"));
        assert_eq!(p.confirm_word("Place"), None);
    }

    #[test]
    fn a_policy_from_a_file_adds_to_the_built_in_denials_and_lifts_only_by_name() {
        // `[agent.policy] deny_keys = ["ctrl+q"]` once replaced the built-in list, and let
        // super+l through.
        let p: Policy = serde_json::from_str(r#"{"deny_keys": ["ctrl+q"], "confirm": ["archive"]}"#).unwrap();
        assert!(p.check_key("ctrl+q").is_some());
        assert!(p.check_key("super+l").is_some(), "a built-in denial holds");
        assert!(p.confirm_word("Archive").is_some() && p.confirm_word("Delete").is_some());
        let lifted: Policy =
            serde_json::from_str(r#"{"allow_keys": ["Ctrl+Alt+T"], "no_confirm": ["reset"]}"#).unwrap();
        assert_eq!(lifted.check_lifts(), Ok(()));
        assert!(lifted.check_key("ctrl+alt+t").is_none(), "lifted by name");
        assert!(lifted.check_key("super+l").is_some(), "the others hold");
        assert_eq!(lifted.confirm_word("Reset view"), None);
        assert!(lifted.confirm_word("Delete").is_some());
        // A lift of what is not built in lifts nothing, and says so.
        let wrong = Policy { allow_keys: vec!["ctrl+q".into()], ..Policy::default() };
        assert!(wrong.check_lifts().unwrap_err().contains("not a built-in denial"));
        let wrong = Policy { no_confirm: vec!["archive".into()], ..Policy::default() };
        assert!(wrong.check_lifts().unwrap_err().contains("not a built-in confirmation word"));
    }

    #[test]
    fn a_written_call_is_judged_by_what_its_text_tells() {
        let call = |tool: &str, args: serde_json::Value| ToolCall::parse(tool, args).unwrap();
        let p = Policy { apps: vec!["Deft Fixture".into()], deny_keys: vec!["ctrl+q".into()], ..Policy::default() };
        let ok = call("click", serde_json::json!({ "target": "Submit order", "app": "Deft Fixture" }));
        assert_eq!(p.check_written(&ok), Ok(()));
        let elsewhere = call("click", serde_json::json!({ "target": "OK", "app": "Terminal" }));
        assert!(p.check_written(&elsewhere).unwrap_err().contains("only in the applications"));
        let anywhere = call("type", serde_json::json!({ "target": "Name", "text": "x" }));
        assert!(p.check_written(&anywhere).unwrap_err().contains("names no app or window"));
        let key = call("key", serde_json::json!({ "keys": "Ctrl+Q" }));
        assert!(p.check_written(&key).unwrap_err().contains("ctrl+q"));
        let key_there = call("key", serde_json::json!({ "keys": "Return", "app": "Deft Fixture" }));
        assert_eq!(p.check_written(&key_there), Ok(()), "a key names its app beside its chord");
        let send = call("click", serde_json::json!({ "target": "Send now", "app": "Deft Fixture" }));
        assert!(p.check_written(&send).unwrap_err().contains("no person is there"));
        let read = call("read", serde_json::json!({}));
        assert_eq!(p.check_written(&read), Ok(()), "an observation acts nowhere");
        let lifted = Policy { no_confirm: vec!["send".into()], ..Policy::default() };
        assert_eq!(lifted.check_written(&call("click", serde_json::json!({ "target": "Send" }))), Ok(()));
    }

    #[test]
    fn an_allowed_app_may_be_named_by_its_window_title() {
        let p = Policy { apps: vec!["Deft Fixture".into()], ..Policy::default() };
        let at = |app: &str, w: Option<&str>| Place { app: app.into(), window: w.map(Into::into) };
        assert_eq!(p.check_place(&at("fixture_app.py", Some("Deft Fixture"))), None);
        assert!(p.check_place(&at("fixture_app.py", Some("Deft Admin"))).is_some());
    }
}
