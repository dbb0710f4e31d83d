//! Events from the live app as a typed stream, and onto the bus.

use std::time::Duration;

use deft_a11y::events::{TextChange, WindowChange, forward_to_bus};
use deft_a11y::{A11yEvent, Accessibility, EventFilter, EventKind, EventStream};
use deft_bus::{Bus, BusConfig, Received};
use deft_harness::fixture::FixtureOptions;
use deft_types::ElementId;
use futures_util::StreamExt;

use crate::support::{Session, session, session_with};

/// Applications learn of a new listener asynchronously: repeat a harmless change until its
/// event arrives (bounded), then check it.
#[test]
fn stream_sees_text_and_state_changes() {
    let s = session();
    let name = s.id("text", "Name");
    let subscribe = s.id("check_box", "Subscribe");
    s.block(async {
        let mut events = s.a11y().events(&EventFilter::default()).await.expect("subscribe");
        let mut seen_text = None;
        for attempt in 0..20 {
            let text = format!("try {attempt}");
            s.a11y().set_text(&name, &text).await.expect("set text");
            let until = tokio::time::Instant::now() + Duration::from_millis(250);
            while let Ok(Some(e)) = tokio::time::timeout_at(until, events.next()).await {
                if let A11yEvent::TextChanged { element, change: TextChange::Insert, text: t, .. } = e.expect("event")
                    && element == name
                    && t == text
                {
                    seen_text = Some(t);
                }
            }
            if seen_text.is_some() {
                break;
            }
        }
        assert!(seen_text.is_some(), "no text-changed event for the Name entry");

        s.a11y().do_action(&subscribe, "click").await.expect("toggle");
        let checked = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(e) = events.next().await {
                if let A11yEvent::StateChanged { element, state, on } = e.expect("event")
                    && element == subscribe
                    && state == "checked"
                {
                    return on;
                }
            }
            false
        })
        .await
        .expect("a checked state change within 5 s");
        assert!(checked);
    });
    assert_eq!(s.app.count("checkbox_toggled", Some("subscribe")), 1);
}

#[test]
fn events_are_published_on_the_bus() {
    let s = session();
    let name = s.id("text", "Name");
    s.block(async {
        let bus = Bus::<A11yEvent>::new(BusConfig { capacity: 256 });
        let mut sub = bus.subscribe("test");
        let stream = s.a11y().events(&EventFilter::only(&[EventKind::TextChanged])).await.unwrap();
        let forward = tokio::spawn(forward_to_bus(stream, bus.clone(), "a11y"));
        let mut found = false;
        for attempt in 0..20 {
            s.a11y().set_text(&name, &format!("bus {attempt}")).await.unwrap();
            let until = tokio::time::Instant::now() + Duration::from_millis(250);
            while let Ok(Some(Received::Event(env))) = tokio::time::timeout_at(until, sub.recv()).await {
                assert_eq!(env.source, "a11y");
                assert_eq!(env.event.kind(), EventKind::TextChanged, "the filter keeps other kinds out");
                found |= env.event.element() == &name;
            }
            if found {
                break;
            }
        }
        forward.abort();
        assert!(found, "no text-changed event reached the bus");
    });
}

/// Change the Name entry until its text-changed event arrives: then the app has heard of
/// every registration made before the text-changed one (the registry tells it in order).
async fn until_registered(s: &Session, events: &mut EventStream, name: &ElementId) {
    for attempt in 0..20 {
        s.a11y().set_text(name, &format!("probe {attempt}")).await.expect("set text");
        let until = tokio::time::Instant::now() + Duration::from_millis(250);
        while let Ok(Some(e)) = tokio::time::timeout_at(until, events.next()).await {
            if matches!(e.expect("event"), A11yEvent::TextChanged { element, .. } if &element == name) {
                return;
            }
        }
    }
    panic!("the app never sent a text-changed event");
}

#[test]
fn a_dialog_opening_is_a_window_event() {
    let s = session_with(&FixtureOptions { save_delay: Some(Duration::from_millis(100)), ..FixtureOptions::default() });
    let name = s.id("text", "Name");
    let save = s.id("push_button", "Save");
    s.block(async {
        // Window kinds first, so that they are registered before the probe's text changes.
        let mut events =
            s.a11y().events(&EventFilter::only(&[EventKind::Window, EventKind::TextChanged])).await.unwrap();
        until_registered(&s, &mut events, &name).await;
        s.a11y().do_action(&save, "click").await.expect("save");
        let dialog = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(e) = events.next().await {
                if let A11yEvent::Window { element, change: WindowChange::Create | WindowChange::Activate, .. } =
                    e.unwrap()
                {
                    let window = s.a11y().element(&element).await.expect("the new window reads");
                    if window.name == "Save complete" {
                        return window;
                    }
                }
            }
            panic!("the event stream ended")
        })
        .await
        .expect("a window event for the dialog within 5 s");
        assert_eq!(dialog.role.as_str(), "dialog");
    });
    s.app.wait_for(|e| e.kind == "dialog_opened", Duration::from_secs(1)).expect("the app logged the dialog");
}
