//! The belief state: what the agent believes (the app and window it is in, what it is
//! doing, whether its last action worked and whether that was verified or only received)
//! beside what was observed. Where they part (it expected "Orders: 1", the window did not
//! change) the divergence is told to the model as such, and recorded.

use serde::{Deserialize, Serialize};

use crate::observe::untrusted_inline;

/// How the last action is known to have gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Known {
    /// Its effect was seen.
    Verified,
    /// The app took the input; no visible effect.
    Received,
    /// Sent without verification.
    Sent,
    /// It failed.
    Failed,
    /// It was not run (policy, confidence, the person).
    NotRun,
}

/// The last action as the agent believes it went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LastAction {
    /// The call in words (`click [e5] push_button "Submit order"`).
    pub what: String,
    /// How it went.
    pub known: Known,
    /// What the model said it expected to see, if it said.
    pub expected: Option<String>,
    /// Whether that expectation was seen (`None`: nothing was expected, or not checked).
    pub expectation_met: Option<bool>,
}

/// A belief the observation contradicts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    /// What was believed.
    pub believed: String,
    /// What was observed.
    pub observed: String,
}

/// What the agent believes now.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Belief {
    /// The application it is working in.
    pub app: Option<String>,
    /// The window.
    pub window: Option<String>,
    /// What it is doing (the newest thought, first sentence).
    pub doing: Option<String>,
    /// Its last action.
    pub last: Option<LastAction>,
}

/// The first sentence of a thought, short.
pub fn first_sentence(thought: &str) -> String {
    let t = thought.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = t.find(". ").map_or(t.len(), |i| i + 1);
    let s = &t[..end];
    if s.chars().count() > 160 { format!("{}…", s.chars().take(160).collect::<String>()) } else { s.to_string() }
}

impl Belief {
    /// After an action: where it happened, how it went, and what diverged from the belief
    /// that it would work (and show what the model expected).
    pub fn after_action(
        &mut self,
        what: String,
        place: Option<(String, Option<String>)>,
        known: Known,
        observed: &str,
        expected: Option<String>,
        expectation_met: Option<bool>,
    ) -> Option<Divergence> {
        if let Some((app, window)) = place {
            self.app = Some(app);
            if window.is_some() {
                self.window = window;
            }
        }
        let divergence = match (known, &expected, expectation_met) {
            (_, Some(e), Some(false)) => Some(Divergence {
                believed: format!("after {what}: {e}"),
                observed: format!("that was not seen; observed {observed}"),
            }),
            (Known::Failed, _, _) => Some(Divergence {
                believed: format!("{what} would take effect"),
                observed: format!("it failed: {observed}"),
            }),
            (Known::Received, Some(e), None) => Some(Divergence {
                believed: format!("after {what}: {e}"),
                observed: "the app only received the input: no visible effect was verified".into(),
            }),
            _ => None,
        };
        self.last = Some(LastAction { what, known, expected, expectation_met });
        divergence
    }

    /// The belief as a line or two for the model (screen names delimited as untrusted).
    pub fn render(&self) -> String {
        let mut s = String::from("belief:");
        if let Some(a) = &self.app {
            s.push_str(&format!(" in app {}", untrusted_inline(a)));
        }
        if let Some(w) = &self.window {
            s.push_str(&format!(", window {}", untrusted_inline(w)));
        }
        if let Some(l) = &self.last {
            let how = match l.known {
                Known::Verified => "worked (verified: its effect was seen)",
                Known::Received => "was received but its effect was not verified",
                Known::Sent => "was sent, not verified",
                Known::Failed => "failed",
                Known::NotRun => "was not run",
            };
            s.push_str(&format!("; last action {} {how}", l.what));
            match (&l.expected, l.expectation_met) {
                (Some(e), Some(true)) => s.push_str(&format!("; expected {e:?}: seen")),
                (Some(e), Some(false)) => s.push_str(&format!("; expected {e:?}: NOT seen")),
                _ => {}
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unmet_expectation_is_a_divergence() {
        let mut b = Belief::default();
        let d = b.after_action(
            "click [e5] \"Submit order\"".into(),
            Some(("Deft Fixture".into(), Some("Deft Fixture".into()))),
            Known::Received,
            "no element of the window changed",
            Some("\"Orders: 1\" is shown".into()),
            Some(false),
        );
        let d = d.expect("a divergence");
        assert!(d.believed.contains("Orders: 1") && d.observed.contains("not seen"), "{d:?}");
        assert!(b.render().contains("NOT seen"), "{}", b.render());
        assert!(b.after_action("x".into(), None, Known::Verified, "ok", None, None).is_none());
        assert_eq!(first_sentence("I see two buttons. I will press the first."), "I see two buttons.");
    }
}
