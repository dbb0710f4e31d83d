//! Errors of building an executor. An action never fails with an error: its failures are
//! [`deft_types::Outcome`]s that say what was expected and what was observed.

use deft_types::ActionKind;

/// Why an executor could not be built.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The policies, with the CLI's overrides applied, are inconsistent.
    #[error("the {verb} policy is invalid: {source}", verb = kind.verb())]
    Policy {
        /// Which action's policy.
        kind: ActionKind,
        /// What is wrong with it.
        #[source]
        source: deft_retry::PolicyError,
    },
    /// A backend could not be connected.
    #[error("cannot connect the {backend} backend: {detail}")]
    Backend {
        /// Which backend (`accessibility`, `input`, `capture`, `windows`).
        backend: &'static str,
        /// What it said.
        detail: String,
    },
}
