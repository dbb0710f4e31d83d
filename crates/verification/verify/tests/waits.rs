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

#[test]
fn a_wait_on_an_application_that_exits_ends_when_it_does() {
    let w = start(FixtureOptions::default());
    let app = deft_types::Selector {
        app: Some(TextMatch::Exact("deft-fixture".into())),
        name: Some(TextMatch::Exact("Never shown".into())),
        ..deft_types::Selector::default()
    };
    let pid = w.app.pid();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(800));
        let _ = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status();
    });
    let wait = w.rt.block_on(w.exec.wait(&Condition::ElementExists(app), Duration::from_secs(30)));
    killer.join().unwrap();
    eprintln!("{wait:#?}");
    assert!(!wait.met, "{wait:#?}");
    assert!(wait.last_observed.contains("exited while waiting"), "{wait:#?}");
    // It ended with the app, not at the end of the 30 s it was allowed.
    assert!(wait.elapsed_ms < 30_000, "{wait:#?}");
}

#[test]
fn a_window_title_accessibility_does_not_give_is_seen_in_the_display_servers_list() {
    let w = start(FixtureOptions::default());
    // xmessage (X toolkit) is not on the accessibility bus at all: only X knows its title.
    let mut cmd = w._desktop.command("xmessage");
    cmd.args(["-title", "Only X Knows", "hello"]);
    let mut child = cmd.spawn().expect("xmessage (package x11-utils) starts");
    let wait = w.rt.block_on(
        w.exec.wait(&Condition::WindowTitle(TextMatch::Exact("Only X Knows".into())), Duration::from_secs(10)),
    );
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("{wait:#?}");
    assert!(wait.met, "{wait:#?}");
    assert_eq!(wait.channel, Some(Channel::Display), "{wait:#?}");
}
