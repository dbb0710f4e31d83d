//! AT-SPI signals as a stream of typed [`A11yEvent`]s.
//!
//! Applications emit an event only when some client registered for it with the registry
//! (`RegisterEvent`); the registry tells them asynchronously, so the first events after
//! subscribing may be missed by an application that has not heard yet.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use atspi::events::event_body::{EventBodyOwned, EventBodyQtOwned};
use futures_util::stream::select_all;
use futures_util::{Stream, StreamExt};
use zbus::message::Type as MessageType;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};
use zbus::{MatchRule, Message, MessageStream};

use super::Inner;
use super::call::{self, iface};
use super::convert;
use crate::error::A11yError;
use crate::events::EventStream;
use crate::events::{A11yEvent, ChildChange, EventFilter, EventKind, TextChange, WindowChange, state_name};

const OBJECT: &str = "org.a11y.atspi.Event.Object";
const WINDOW: &str = "org.a11y.atspi.Event.Window";

/// The registry event names and the signals (interface, member) of an event kind.
fn signals(kind: EventKind) -> &'static [(&'static str, &'static str, &'static str)] {
    match kind {
        EventKind::StateChanged => &[("object:state-changed", OBJECT, "StateChanged")],
        EventKind::TextChanged => &[("object:text-changed", OBJECT, "TextChanged")],
        EventKind::ChildrenChanged => &[("object:children-changed", OBJECT, "ChildrenChanged")],
        EventKind::PropertyChanged => &[("object:property-change", OBJECT, "PropertyChange")],
        EventKind::Window => &[
            ("window:create", WINDOW, "Create"),
            ("window:activate", WINDOW, "Activate"),
            ("window:deactivate", WINDOW, "Deactivate"),
            ("window:destroy", WINDOW, "Destroy"),
        ],
    }
}

/// Register for the filter's events and return their stream. Registrations are counted
/// per event name on the connection: the registry is told of the first stream that wants
/// an event and of the last one that stops (when its stream is dropped).
pub(crate) async fn subscribe(inner: Arc<Inner>, filter: &EventFilter) -> Result<EventStream, A11yError> {
    let fail = |what: &str, e: String| A11yError::Backend { what: what.to_string(), detail: e };
    let mut kinds: Vec<EventKind> = Vec::new();
    for k in &filter.kinds {
        if !kinds.contains(k) {
            kinds.push(*k);
        }
    }
    let events_bus = inner.events_bus().await?;
    let mut streams = Vec::new();
    // Dropped (deregistering what it registered) if a later step fails.
    let mut held = Registrations { inner: inner.clone(), events: Vec::new() };
    // In the filter's order: applications hear of registrations in the order they are made.
    for kind in kinds {
        for (event, interface, member) in signals(kind) {
            let rule = MatchRule::builder()
                .msg_type(MessageType::Signal)
                .interface(*interface)
                .and_then(|b| b.member(*member))
                .map_err(|e| fail("building a match rule", e.to_string()))?
                .build();
            let stream = MessageStream::for_match_rule(rule, &events_bus, Some(1024))
                .await
                .map_err(|e| fail("subscribing to accessibility signals", e.to_string()))?;
            streams.push(stream);
            if inner.register(event) {
                let empty: Vec<String> = Vec::new();
                let registered = call::call(
                    &inner.bus,
                    inner.timeout(),
                    call::REGISTRY,
                    REGISTRY_PATH,
                    iface::REGISTRY,
                    "RegisterEvent",
                    &(*event, empty, ""),
                )
                .await;
                if let Err(f) = registered {
                    inner.unregister(event);
                    return Err(fail("registering for accessibility events", f.to_string()));
                }
            }
            held.events.push(event);
        }
    }
    let events = select_all(streams).filter_map(|m| async move {
        match m {
            Ok(msg) => parse(&msg).map(Ok),
            Err(e) => {
                Some(Err(A11yError::Backend { what: "receiving accessibility events".into(), detail: e.to_string() }))
            }
        }
    });
    Ok(Box::pin(Registered { events: Box::pin(events), _registrations: held }))
}

const REGISTRY_PATH: &str = "/org/a11y/atspi/registry";

/// The events a stream registered for; dropping it deregisters those no other stream wants.
struct Registrations {
    inner: Arc<Inner>,
    events: Vec<&'static str>,
}

impl Drop for Registrations {
    fn drop(&mut self) {
        let last: Vec<&'static str> = self.events.iter().copied().filter(|e| self.inner.unregister(e)).collect();
        if last.is_empty() {
            return;
        }
        // Deregistering needs the runtime; without one (dropped outside it) the registry
        // forgets the registrations when the connection closes.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let inner = self.inner.clone();
            rt.spawn(async move {
                for event in last {
                    let _ = call::call(
                        &inner.bus,
                        inner.timeout(),
                        call::REGISTRY,
                        REGISTRY_PATH,
                        iface::REGISTRY,
                        "DeregisterEvent",
                        &(event,),
                    )
                    .await;
                }
            });
        }
    }
}

/// A stream of events that keeps its registrations alive.
struct Registered<S> {
    events: Pin<Box<S>>,
    _registrations: Registrations,
}

impl<S: Stream> Stream for Registered<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.events.as_mut().poll_next(cx)
    }
}

/// The generic AT-SPI event body: kind, two details and any data.
fn body(msg: &Message) -> Option<(String, i32, i32, OwnedValue)> {
    let b = msg.body();
    if let Ok(e) = b.deserialize::<EventBodyOwned>() {
        return Some((e.kind, e.detail1, e.detail2, e.any_data));
    }
    let e = b.deserialize::<EventBodyQtOwned>().ok()?;
    Some((e.kind, e.detail1, e.detail2, e.any_data))
}

/// A signal to an event, or `None` for one Deft does not know.
fn parse(msg: &Message) -> Option<A11yEvent> {
    let header = msg.header();
    let sender = header.sender()?.to_string();
    let element = call::element_id(&sender, header.path()?.as_str());
    let member = header.member()?.to_string();
    let (kind, detail1, detail2, any) = body(msg)?;
    // Kinds may carry a suffix (`insert:system`, `add:system`).
    let head = kind.split(':').next().unwrap_or("").to_string();
    let text = || String::try_from(any.clone()).unwrap_or_default();
    Some(match member.as_str() {
        "StateChanged" => A11yEvent::StateChanged {
            element,
            // Deft's name for the states Deft knows (`sensitive` is `enabled`), else AT-SPI's.
            state: convert::state_by_name(&head).map_or_else(|| head.replace('-', "_"), |s| state_name(s).to_string()),
            on: detail1 != 0,
        },
        "TextChanged" => A11yEvent::TextChanged {
            element,
            change: if head == "delete" { TextChange::Delete } else { TextChange::Insert },
            position: detail1,
            length: detail2,
            text: text(),
        },
        "ChildrenChanged" => A11yEvent::ChildrenChanged {
            change: if head == "remove" { ChildChange::Remove } else { ChildChange::Add },
            index: detail1,
            child: <(String, OwnedObjectPath)>::try_from(any.clone())
                .ok()
                .map(|(b, p)| call::element_id(if b.is_empty() { &sender } else { &b }, p.as_str())),
            element,
        },
        "PropertyChange" => A11yEvent::PropertyChanged { element, property: head },
        "Create" | "Activate" | "Deactivate" | "Destroy" => A11yEvent::Window {
            element,
            change: match member.as_str() {
                "Create" => WindowChange::Create,
                "Activate" => WindowChange::Activate,
                "Deactivate" => WindowChange::Deactivate,
                _ => WindowChange::Destroy,
            },
            title: text(),
        },
        _ => return None,
    })
}
