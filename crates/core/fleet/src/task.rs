//! What is asked of a fleet: a task, what it needs of a desktop, and what a desktop offers.

use serde::{Deserialize, Serialize};

/// One piece of work for one desktop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Unique in the fleet; a second submit of the same id is refused.
    pub id: String,
    /// The pool whose workers take it (a pool is one queue).
    pub pool: String,
    /// What the desktop that runs it must offer.
    #[serde(default)]
    pub needs: Needs,
    /// The work itself, as the workers' runner reads it (the fleet never looks inside).
    pub body: serde_json::Value,
    /// How many times it may be started before it is reported failed for good (a worker
    /// that dies mid-task is one start).
    pub max_attempts: u32,
    /// When it was submitted, ms since the Unix epoch.
    pub submitted_ms: u64,
}

/// What a task needs of a desktop. Empty needs are met by any desktop.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Needs {
    /// The session kind (`x11`, `wayland`) when it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Applications that must be running there, by the name they give the accessibility bus.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apps: Vec<String>,
    /// A model for the agent (a goal task: the worker's own model thinks it through).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub agent: bool,
}

/// What a desktop offers, as its worker advertises it (the way a grid node advertises its
/// stereotype).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    /// Which desktop this is (host and display), stable across worker restarts: a task
    /// resumed on the same desktop finds the earlier attempt's effects there.
    #[serde(default)]
    pub desktop: String,
    /// The session kind and compositor (`x11`, `wayland/sway`, ...).
    pub session: String,
    /// Applications running there, by accessible name.
    #[serde(default)]
    pub apps: Vec<String>,
    /// Screen size in pixels, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<(u32, u32)>,
    /// The desktop's locale (`LANG`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub locale: String,
    /// The model its worker's agent thinks with, when one is configured there (its key
    /// stays on that machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Offer {
    /// The needs this offer does not meet, in words (empty when it meets them all).
    pub fn unmet(&self, needs: &Needs) -> Vec<String> {
        let mut unmet = Vec::new();
        if let Some(session) = &needs.session {
            let kind = self.session.split('/').next().unwrap_or_default();
            if !self.session.eq_ignore_ascii_case(session) && !kind.eq_ignore_ascii_case(session) {
                unmet.push(format!("a {session} session (it runs {})", self.session));
            }
        }
        let runs = match self.apps.is_empty() {
            true => "no application on its accessibility bus".to_string(),
            false => self.apps.join(", "),
        };
        for app in &needs.apps {
            if !self.apps.iter().any(|a| a.eq_ignore_ascii_case(app)) {
                unmet.push(format!("{app} running (it runs {runs})"));
            }
        }
        if needs.agent && self.model.is_none() {
            unmet.push("a model for the agent (none is configured where it runs: DEFT_MODEL_PROVIDER)".to_string());
        }
        unmet
    }
}

/// A pool, worker or task name: it becomes part of a queue subject and a store key, so it
/// is letters, digits, `-` and `_` only.
pub fn check_name(what: &str, name: &str) -> Result<(), crate::queue::FleetError> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(crate::queue::FleetError::Invalid(format!(
            "{what} {name:?}: use letters, digits, '-' and '_' only (it names a queue subject)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(session: &str, apps: &[&str]) -> Offer {
        Offer { session: session.into(), apps: apps.iter().map(|a| a.to_string()).collect(), ..Offer::default() }
    }

    #[test]
    fn an_offer_meets_what_it_has_and_names_what_it_lacks() {
        let needs =
            Needs { session: Some("wayland".into()), apps: vec!["gedit".into(), "Deft Fixture".into()], agent: false };
        assert!(offer("wayland/sway", &["deft fixture", "gedit"]).unmet(&needs).is_empty());
        assert_eq!(
            offer("x11", &["gedit"]).unmet(&needs),
            ["a wayland session (it runs x11)", "Deft Fixture running (it runs gedit)"]
        );
        assert!(offer("x11", &[]).unmet(&Needs::default()).is_empty());
        let goal = Needs { agent: true, ..Needs::default() };
        assert_eq!(
            offer("x11", &[]).unmet(&goal),
            ["a model for the agent (none is configured where it runs: DEFT_MODEL_PROVIDER)"]
        );
        assert!(Offer { model: Some("m".into()), ..offer("x11", &[]) }.unmet(&goal).is_empty());
    }
}
