//! What can go wrong talking to an accessibility backend, classed for retry decisions.

use std::time::Duration;

use deft_types::{ElementId, ErrorClass};

use crate::selector::{ResolveError, SyntaxError};

/// An accessibility error. [`A11yError::class`] tells a caller whether to retry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum A11yError {
    /// The accessibility bus (or the session bus that announces it) cannot be reached.
    #[error(
        "the accessibility bus is not reachable: {detail}. Is the AT-SPI bus running? Deft needs a desktop \
         session with accessibility on: DBUS_SESSION_BUS_ADDRESS set, and at-spi-bus-launcher (package \
         at-spi2-core) started by the session"
    )]
    BusUnavailable {
        /// What failed, in plain words.
        detail: String,
    },
    /// The application exited or crashed (its bus name has no owner any more).
    #[error("the application {app} is gone (it exited or crashed): {detail}; start it again and re-read")]
    AppGone {
        /// The application's bus name (and name, when known).
        app: String,
        /// What the backend said.
        detail: String,
    },
    /// The element no longer exists (or is defunct): read the tree again and re-resolve.
    #[error("element {id} is stale: it no longer exists in its application; re-read the tree and resolve it again")]
    Stale {
        /// The element's id.
        id: ElementId,
    },
    /// A call or a whole read did not answer in time (the application may be busy or hung).
    #[error("{what} did not answer within {after:?}; the application may be busy or hung")]
    Timeout {
        /// What was being done.
        what: String,
        /// How long was waited.
        after: Duration,
    },
    /// The element does not support what was asked (no such interface).
    #[error("element {id} does not support {what}")]
    NotSupported {
        /// The element.
        id: ElementId,
        /// What it lacks, e.g. "setting text (EditableText)".
        what: String,
    },
    /// The element has no action of that name.
    #[error("element {id} has no action {action:?}; it has: {}", list(available))]
    NoSuchAction {
        /// The element.
        id: ElementId,
        /// The action asked for.
        action: String,
        /// The actions it offers.
        available: Vec<String>,
    },
    /// The application refused the request (the call returned false).
    #[error("element {id} refused {what}")]
    Refused {
        /// The element.
        id: ElementId,
        /// What was asked.
        what: String,
    },
    /// An element id that this backend did not produce.
    #[error("{id:?} is not an element id of this backend ({why})")]
    InvalidId {
        /// The id.
        id: ElementId,
        /// Why it is not valid.
        why: String,
    },
    /// A selector or condition text does not parse.
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// The selector matched nothing, or more than one element.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// Any other backend failure, with what was being done.
    #[error("{what} failed: {detail}")]
    Backend {
        /// What was being done.
        what: String,
        /// What the backend said.
        detail: String,
    },
}

fn list(items: &[String]) -> String {
    if items.is_empty() { "none".to_string() } else { items.join(", ") }
}

impl A11yError {
    /// How a caller should react: re-resolve ([`ErrorClass::Stale`]), retry with backoff
    /// ([`ErrorClass::Transient`]) or give up ([`ErrorClass::Permanent`]).
    pub fn class(&self) -> ErrorClass {
        match self {
            A11yError::Stale { .. } => ErrorClass::Stale,
            A11yError::Timeout { .. } | A11yError::Backend { .. } => ErrorClass::Transient,
            A11yError::BusUnavailable { .. }
            | A11yError::AppGone { .. }
            | A11yError::NotSupported { .. }
            | A11yError::NoSuchAction { .. }
            | A11yError::Refused { .. }
            | A11yError::InvalidId { .. }
            | A11yError::Syntax(_)
            | A11yError::Resolve(_) => ErrorClass::Permanent,
        }
    }

    /// Whether retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        self.class() == ErrorClass::Transient
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_messages() {
        let stale = A11yError::Stale { id: ElementId(":1.2|/a/1".into()) };
        assert_eq!(stale.class(), ErrorClass::Stale);
        assert!(stale.to_string().contains("re-read"));
        let t = A11yError::Timeout { what: "GetItems".into(), after: Duration::from_secs(1) };
        assert!(t.is_retryable());
        let bus = A11yError::BusUnavailable { detail: "no socket".into() };
        assert_eq!(bus.class(), ErrorClass::Permanent);
        assert!(bus.to_string().contains("at-spi2-core") && !bus.to_string().contains("xtask"), "{bus}");
        let none = A11yError::NoSuchAction {
            id: ElementId("x".into()),
            action: "press".into(),
            available: vec!["click".into()],
        };
        assert!(none.to_string().ends_with("it has: click"), "{none}");
    }
}
