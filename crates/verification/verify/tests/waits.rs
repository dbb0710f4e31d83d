//! Waits: met through accessibility with evidence, or timed out with what was last seen.

use std::time::Duration;

use deft_harness::fixture::FixtureOptions;
use deft_types::{Channel, Condition, TextMatch};

use crate::support::*;

#[test]
fn wait_for_the_save_dialog_after_clicking_save() {
    let w = start(FixtureOptions::default());
    let outcome = w.perform(&click("role=push_button name=Save"));
    assert!(outcome.ok, "{outcome:#?}");
    let wait = w.rt.block_on(
        w.exec.wait(&Condition::TextAppears(TextMatch::Exact("Save complete".into())), Duration::from_secs(5)),
    );
    eprintln!("{wait:#?}");
    assert!(wait.met, "{wait:#?}");
    assert_eq!(wait.channel, Some(Channel::Accessibility));
    assert!(wait.evidence.iter().any(|e| e.what.contains("Save complete")), "{wait:#?}");
    let opened = w.app.wait_for(|e| e.kind == "dialog_opened" && e.str("title") == Some("Save complete"), WAIT);
    let opened = opened.expect("the dialog opened");
    let saved = w.app.events().into_iter().find(|e| e.kind == "save_complete").expect("saved");
    assert!(opened.t >= saved.t, "{:#?}", w.log());
    assert_eq!(w.app.count("button_activated", Some("save")), 1, "{:#?}", w.log());
}

#[test]
fn a_wait_that_times_out_says_what_it_saw_last() {
    let w = start(FixtureOptions::default());
    let started = std::time::Instant::now();
    let wait = w.rt.block_on(
        w.exec.wait(&Condition::TextAppears(TextMatch::Exact("Never shown".into())), Duration::from_millis(800)),
    );
    eprintln!("{wait:#?}");
    assert!(!wait.met);
    assert_eq!(wait.channel, None);
    assert!(wait.last_observed.contains("not met within 800 ms"), "{wait:#?}");
    assert!(wait.elapsed_ms >= 800 && started.elapsed() < Duration::from_secs(3), "{wait:#?}");
}
