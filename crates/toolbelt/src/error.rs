//! What a tool call can fail with before (or instead of) an action's outcome.
//!
//! An action that was carried out and failed is not an error: it is an
//! [`deft_types::Outcome`] with its `failure`. A [`ToolError`] is a call that could not
//! be carried out: bad parameters, an observation whose target names nothing, a stale
//! ref, no desktop to talk to.

use deft_a11y::A11yError;
use deft_a11y::selector::ResolveError;
use deft_types::{Candidate, FailureKind};

/// Why a tool call could not be carried out.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorKind {
    /// The parameters are wrong: the message says which and how to fix them.
    Usage,
    /// Nothing matches the target or scope; the closest are listed.
    NotFound,
    /// Several elements match; all are listed.
    Ambiguous,
    /// A ref whose element is gone (or is another element now): read again.
    StaleRef,
    /// No display, no accessibility bus, or a capability this build lacks.
    Unavailable,
    /// Anything else that went wrong while observing.
    Failed,
}

impl ToolErrorKind {
    /// The kind's name (its serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolErrorKind::Usage => "usage",
            ToolErrorKind::NotFound => "not_found",
            ToolErrorKind::Ambiguous => "ambiguous",
            ToolErrorKind::StaleRef => "stale_ref",
            ToolErrorKind::Unavailable => "unavailable",
            ToolErrorKind::Failed => "failed",
        }
    }
}

/// A tool call that could not be carried out, with what to do about it.
#[derive(Clone, PartialEq, Debug, thiserror::Error, serde::Serialize)]
#[error("{message}")]
pub struct ToolError {
    /// The category.
    pub kind: ToolErrorKind,
    /// What was wrong, in words a user outside this project understands.
    pub message: String,
    /// Elements that could be meant instead (not found: the closest; ambiguous: all).
    pub candidates: Vec<Candidate>,
}

impl ToolError {
    /// An error of `kind`.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> ToolError {
        ToolError { kind, message: message.into(), candidates: Vec::new() }
    }

    /// Bad parameters.
    pub fn usage(message: impl Into<String>) -> ToolError {
        ToolError::new(ToolErrorKind::Usage, message)
    }

    /// With the elements that could be meant.
    pub fn with_candidates(mut self, candidates: Vec<Candidate>) -> ToolError {
        self.candidates = candidates;
        self
    }

    /// The failure category an action's outcome would carry for the same problem.
    pub fn failure_kind(&self) -> Option<FailureKind> {
        match self.kind {
            ToolErrorKind::Usage => None,
            ToolErrorKind::NotFound | ToolErrorKind::StaleRef => Some(FailureKind::NotFound),
            ToolErrorKind::Ambiguous => Some(FailureKind::Ambiguous),
            ToolErrorKind::Unavailable => Some(FailureKind::Unavailable),
            ToolErrorKind::Failed => Some(FailureKind::NoEffect),
        }
    }
}

impl From<A11yError> for ToolError {
    fn from(e: A11yError) -> ToolError {
        match e {
            A11yError::BusUnavailable { .. } => ToolError::new(ToolErrorKind::Unavailable, e.to_string()),
            A11yError::Syntax(s) => ToolError::usage(format!("{s}\n{}", s.pointer())),
            A11yError::Resolve(r) => r.into(),
            other => ToolError::new(ToolErrorKind::Failed, other.to_string()),
        }
    }
}

impl From<ResolveError> for ToolError {
    /// Not found or ambiguous, with the candidates; the message is short, since faces list
    /// the candidates themselves.
    fn from(r: ResolveError) -> ToolError {
        match r {
            ResolveError::NotFound { selector, candidates } => ToolError::new(
                ToolErrorKind::NotFound,
                if candidates.is_empty() {
                    format!("no element matches `{selector}`, and nothing comes close")
                } else {
                    format!("no element matches `{selector}`; the closest are listed")
                },
            )
            .with_candidates(candidates),
            ResolveError::Ambiguous { selector, matches } => ToolError::new(
                ToolErrorKind::Ambiguous,
                format!(
                    "`{selector}` matches {} elements; name the app, window or role to tell them apart, or give \
                     index=N to pick one (N as listed)",
                    matches.len()
                ),
            )
            .with_candidates(matches),
            ResolveError::IndexOutOfRange { selector, index, matches } => ToolError::new(
                ToolErrorKind::NotFound,
                format!("`{selector}` has index={index} but only {} element(s) match (listed)", matches.len()),
            )
            .with_candidates(matches),
            ResolveError::NoApp { app, running } => {
                let message = ResolveError::NoApp { app, running: running.clone() }.to_string();
                ToolError::new(ToolErrorKind::NotFound, message).with_candidates(running)
            }
            ResolveError::Invalid(s) => ToolError::usage(format!("{s}\n{}", s.pointer())),
        }
    }
}
