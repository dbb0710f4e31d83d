//! Typed accessibility events, and the glue that publishes them onto a [`deft_bus::Bus`].

use std::pin::Pin;

use deft_bus::Bus;
use deft_types::{ElementId, State};
use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};

use crate::error::A11yError;

/// A stream of accessibility events; it ends when the backend's connection does.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<A11yEvent, A11yError>> + Send>>;

/// Something changed in an application's UI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum A11yEvent {
    /// A state was set or cleared (`checked`, `focused`, `showing`, ...).
    StateChanged {
        /// The element.
        element: ElementId,
        /// The state: Deft's name ([`state_name`]) when Deft knows it, else the
        /// platform's, in snake case.
        state: String,
        /// Whether it is now set.
        on: bool,
    },
    /// Text was inserted or deleted.
    TextChanged {
        /// The element.
        element: ElementId,
        /// Inserted or deleted.
        change: TextChange,
        /// Character offset of the change.
        position: i32,
        /// Number of characters.
        length: i32,
        /// The inserted or deleted text, when the platform sends it.
        text: String,
    },
    /// A child was added or removed.
    ChildrenChanged {
        /// The parent.
        element: ElementId,
        /// Added or removed.
        change: ChildChange,
        /// The child's index.
        index: i32,
        /// The child, when the platform sends it.
        child: Option<ElementId>,
    },
    /// A property changed (`accessible-name`, `accessible-value`, ...).
    PropertyChanged {
        /// The element.
        element: ElementId,
        /// The property's platform name.
        property: String,
    },
    /// A top-level window was created, activated, deactivated or closed.
    Window {
        /// The window.
        element: ElementId,
        /// What happened.
        change: WindowChange,
        /// Its title, when the platform sends it.
        title: String,
    },
}

impl A11yEvent {
    /// The element the event is about.
    pub fn element(&self) -> &ElementId {
        match self {
            A11yEvent::StateChanged { element, .. }
            | A11yEvent::TextChanged { element, .. }
            | A11yEvent::ChildrenChanged { element, .. }
            | A11yEvent::PropertyChanged { element, .. }
            | A11yEvent::Window { element, .. } => element,
        }
    }

    /// The event's kind.
    pub fn kind(&self) -> EventKind {
        match self {
            A11yEvent::StateChanged { .. } => EventKind::StateChanged,
            A11yEvent::TextChanged { .. } => EventKind::TextChanged,
            A11yEvent::ChildrenChanged { .. } => EventKind::ChildrenChanged,
            A11yEvent::PropertyChanged { .. } => EventKind::PropertyChanged,
            A11yEvent::Window { .. } => EventKind::Window,
        }
    }

    /// For a state change, the Deft state it concerns, when Deft knows it.
    pub fn deft_state(&self) -> Option<State> {
        match self {
            A11yEvent::StateChanged { state, .. } => state.parse().ok(),
            _ => None,
        }
    }
}

/// The name a state-change event gives a Deft state: its one name, [`State::as_str`]
/// (`single_line`, `checked`, ...).
pub fn state_name(state: State) -> &'static str {
    state.as_str()
}

/// Text inserted or deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextChange {
    /// Inserted.
    Insert,
    /// Deleted.
    Delete,
}

/// A child added or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChildChange {
    /// Added.
    Add,
    /// Removed.
    Remove,
}

/// What happened to a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowChange {
    /// Created (mapped).
    Create,
    /// Became the active window.
    Activate,
    /// Stopped being the active window.
    Deactivate,
    /// Closed.
    Destroy,
}

/// The kinds of event, for filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// [`A11yEvent::StateChanged`].
    StateChanged,
    /// [`A11yEvent::TextChanged`].
    TextChanged,
    /// [`A11yEvent::ChildrenChanged`].
    ChildrenChanged,
    /// [`A11yEvent::PropertyChanged`].
    PropertyChanged,
    /// [`A11yEvent::Window`].
    Window,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 5] = [
        EventKind::StateChanged,
        EventKind::TextChanged,
        EventKind::ChildrenChanged,
        EventKind::PropertyChanged,
        EventKind::Window,
    ];
}

/// Which events a stream delivers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFilter {
    /// The kinds wanted.
    pub kinds: Vec<EventKind>,
}

impl Default for EventFilter {
    /// Every kind.
    fn default() -> Self {
        EventFilter { kinds: EventKind::ALL.to_vec() }
    }
}

impl EventFilter {
    /// Only these kinds.
    pub fn only(kinds: &[EventKind]) -> Self {
        EventFilter { kinds: kinds.to_vec() }
    }

    /// Whether `kind` is wanted.
    pub fn wants(&self, kind: EventKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// Publish every event of `stream` on `bus` as `source`, until the stream ends (the
/// connection closed: `Ok`) or fails (`Err`). Publishing never waits on subscribers.
/// Spawn it: `tokio::spawn(forward_to_bus(stream, bus.clone(), "a11y"))`.
pub async fn forward_to_bus(
    mut stream: EventStream,
    bus: Bus<A11yEvent>,
    source: &'static str,
) -> Result<(), A11yError> {
    while let Some(event) = stream.next().await {
        bus.publish(source, event?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use deft_bus::{BusConfig, Received};

    use super::*;

    #[tokio::test]
    async fn forwards_until_the_stream_ends() {
        let bus = Bus::<A11yEvent>::new(BusConfig { capacity: 8 });
        let mut sub = bus.subscribe("test");
        let event = A11yEvent::StateChanged { element: ElementId("x".into()), state: "checked".into(), on: true };
        let stream: EventStream = Box::pin(futures_util::stream::iter([Ok(event.clone())]));
        forward_to_bus(stream, bus.clone(), "a11y").await.unwrap();
        let Ok(Received::Event(env)) = sub.try_recv() else { panic!("no event") };
        assert_eq!(env.event, event);
        assert_eq!(event.deft_state(), Some(State::Checked));
        assert_eq!(event.kind(), EventKind::StateChanged);
        for state in State::ALL {
            assert_eq!(serde_json::to_value(state).unwrap(), state_name(state), "event names are the serde names");
        }
    }
}
