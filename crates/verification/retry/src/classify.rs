//! From evidence to an error class: the table of docs/VERIFICATION.md as a function.

use deft_types::{Blocking, ErrorClass};
use serde::{Deserialize, Serialize};

/// What the executor saw when something did not work: one flag per kind of evidence.
///
/// Several flags may be set at once; [`classify`] decides which one explains the rest.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Symptoms {
    /// The target or its window reports a busy state, or a progress bar is showing.
    pub busy: bool,
    /// "Loading..." (or the like) is shown.
    pub loading_text: bool,
    /// The window's pixels are still changing (noise such as carets masked).
    pub pixels_changing: bool,
    /// A dialog, alert or modal appeared.
    pub dialog_appeared: bool,
    /// The hit test at the input point returns another element.
    pub hit_other_element: bool,
    /// What intercepts the input, when known.
    pub blocking: Option<Blocking>,
    /// The target vanished before the act.
    pub target_vanished: bool,
    /// The target moved before the act.
    pub target_moved: bool,
    /// The input or accessibility backend returned an error.
    pub backend_error: bool,
    /// The input or accessibility backend timed out.
    pub backend_timeout: bool,
    /// The target was not found, even after waiting.
    pub not_found: bool,
    /// The target is not enabled, even after waiting.
    pub not_enabled: bool,
    /// The target cannot take this method at all (an accessibility action on an element
    /// that offers none): nothing was sent, and nothing about the app was learnt.
    #[serde(default)]
    pub method_unavailable: bool,
    /// What happened, in plain words, for the report.
    pub message: String,
}

impl Symptoms {
    /// No flag set yet, with a message for the report.
    pub fn new(message: impl Into<String>) -> Symptoms {
        Symptoms { message: message.into(), ..Symptoms::default() }
    }

    /// The symptoms in plain words: the message, or else the flags that are set.
    pub fn describe(&self) -> String {
        if !self.message.is_empty() {
            return self.message.clone();
        }
        let flags = [
            (self.busy, "busy"),
            (self.loading_text, "loading text shown"),
            (self.pixels_changing, "pixels still changing"),
            (self.dialog_appeared, "a dialog appeared"),
            (self.hit_other_element, "another element at the point"),
            (self.target_vanished, "target vanished"),
            (self.target_moved, "target moved"),
            (self.backend_error, "backend error"),
            (self.backend_timeout, "backend timeout"),
            (self.not_found, "target not found"),
            (self.not_enabled, "target not enabled"),
            (self.method_unavailable, "the target cannot take this method"),
        ];
        let mut words: Vec<String> = flags.iter().filter(|(set, _)| *set).map(|(_, w)| (*w).to_string()).collect();
        if let Some(b) = &self.blocking {
            words.push(format!("{} {:?}", b.role, b.name));
        }
        if words.is_empty() { "no reason given".into() } else { words.join(", ") }
    }

    /// Whether anything says the app is still working.
    pub fn is_loading(&self) -> bool {
        self.busy || self.loading_text || self.pixels_changing
    }

    /// Whether anything says the input is or would be intercepted.
    pub fn is_blocked(&self) -> bool {
        self.dialog_appeared || self.hit_other_element || self.blocking.is_some()
    }
}

/// The class of a failure, from its evidence.
///
/// When several kinds of evidence are present, the one that explains the others wins:
/// 1. **blocked**: a modal makes everything behind it look disabled, busy or unchanged;
/// 2. **loading**: a busy app times out calls and greys out buttons, and it will recover;
/// 3. **stale**: a target that moved is found again before "not found" is concluded;
/// 4. **transient**: a backend hiccup is retried before the target is given up on;
/// 5. **permanent**: not found or not enabled, with nothing above to explain it;
/// 6. **no_effect**: no evidence of anything: the input simply changed nothing.
pub fn classify(s: &Symptoms) -> ErrorClass {
    if s.is_blocked() {
        ErrorClass::Blocked
    } else if s.is_loading() {
        ErrorClass::Loading
    } else if s.target_vanished || s.target_moved {
        ErrorClass::Stale
    } else if s.backend_error || s.backend_timeout {
        ErrorClass::Transient
    } else if s.not_found || s.not_enabled {
        ErrorClass::Permanent
    } else {
        ErrorClass::NoEffect
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_alone_gives_its_class() {
        let base = Symptoms::default;
        let cases = [
            (Symptoms { busy: true, ..base() }, ErrorClass::Loading),
            (Symptoms { loading_text: true, ..base() }, ErrorClass::Loading),
            (Symptoms { pixels_changing: true, ..base() }, ErrorClass::Loading),
            (Symptoms { dialog_appeared: true, ..base() }, ErrorClass::Blocked),
            (Symptoms { hit_other_element: true, ..base() }, ErrorClass::Blocked),
            (Symptoms { target_vanished: true, ..base() }, ErrorClass::Stale),
            (Symptoms { target_moved: true, ..base() }, ErrorClass::Stale),
            (Symptoms { backend_error: true, ..base() }, ErrorClass::Transient),
            (Symptoms { backend_timeout: true, ..base() }, ErrorClass::Transient),
            (Symptoms { not_found: true, ..base() }, ErrorClass::Permanent),
            (Symptoms { not_enabled: true, ..base() }, ErrorClass::Permanent),
            (base(), ErrorClass::NoEffect),
        ];
        for (s, class) in cases {
            assert_eq!(classify(&s), class, "{s:?}");
        }
    }

    #[test]
    fn the_explaining_evidence_wins() {
        let modal_greys_out = Symptoms { dialog_appeared: true, not_enabled: true, busy: true, ..Default::default() };
        assert_eq!(classify(&modal_greys_out), ErrorClass::Blocked);
        let busy_times_out = Symptoms { busy: true, backend_timeout: true, ..Default::default() };
        assert_eq!(classify(&busy_times_out), ErrorClass::Loading);
        let moved_not_found = Symptoms { target_moved: true, not_found: true, ..Default::default() };
        assert_eq!(classify(&moved_not_found), ErrorClass::Stale);
    }
}
