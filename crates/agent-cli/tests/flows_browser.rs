//! A task recorded from a person's input (xdotool: real X events) in Firefox on the corpus
//! page, and replayed by Deft on a fresh Firefox: judged by the page as an independent
//! accessibility client (pyatspi) reads it, never by Deft's report.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::apps::CorpusApp;

use super::desktop::cli;
use super::flows::{Recording, centre_of, press_at, write, xdotool};
use super::real_apps::{dump, start};
use super::scratch;

/// What the task leaves on the page: the name typed, the box ticked, the link followed.
fn page_state(desktop: &Desktop, app: &str) -> (Option<String>, bool, bool) {
    let seen = dump(desktop, app);
    let field = seen.iter().find(|e| e["role"] == "entry" && e["name"] == "Full name");
    let subscribe = seen.iter().find(|e| e["role"] == "check box" && e["name"] == "Subscribe");
    let checked = subscribe.and_then(|e| e["states"].as_array()).is_some_and(|s| s.iter().any(|x| x == "checked"));
    let followed = seen.iter().any(|e| e["text"] == "Link followed");
    (field.and_then(|e| e["text"].as_str()).map(String::from), checked, followed)
}

#[test]
fn a_firefox_task_recorded_from_a_person_replays_on_a_fresh_firefox_with_the_same_page() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let Some(firefox) = start(&desktop, CorpusApp::Firefox) else { return };
    let name = CorpusApp::Firefox.accessible_name();
    let file = scratch("flows-firefox").join("form.yaml");
    let _ = std::fs::remove_file(&file);
    // The page loaded (the browser joins the bus before its page is there).
    let loaded = ["wait", "--role", "entry", "--name", "Full name", "--app", name, "--timeout", "30000"];
    cli(&desktop, &loaded).expect_code(0);
    let at = |args: &[&str]| centre_of(&desktop, &[args, &["--app", name]].concat());
    let (field, subscribe, link) = (
        at(&["--role", "entry", "--name", "Full name"]),
        at(&["--role", "check_box", "--name", "Subscribe"]),
        at(&["--role", "link", "--name", "More details"]),
    );
    let recorder = Recording::start(&desktop, &file, name);
    // The person: into the name field, types, ticks the box, follows the link; a moment
    // between each, as a person's.
    let pause = |ms| std::thread::sleep(Duration::from_millis(ms));
    press_at(&desktop, field);
    pause(1200);
    xdotool(&desktop, &["type", "--delay", "60", "Ada Lovelace"]);
    pause(1200);
    press_at(&desktop, subscribe);
    pause(1500);
    press_at(&desktop, link);
    pause(2500);
    recorder.stop();
    let done = page_state(&desktop, name);
    assert_eq!(done, (Some("Ada Lovelace".into()), true, true), "what the person did, as the page reads");
    let text = std::fs::read_to_string(&file).expect("the flow was written");
    assert!(text.contains("text: Ada Lovelace"), "the typed text: {text}");
    assert!(text.contains("name: Subscribe") && text.contains("name: More details"), "{text}");
    // Following the link scrolls its paragraph out of view: nothing a person sees changed
    // to check it by, so the step has no `expect` (its replay is verified by the scroll).
    drop(firefox);

    // A fresh Firefox on the same page: the flow, replayed by Deft, leaves it the same.
    let Some(mut again) = start(&desktop, CorpusApp::Firefox) else { return };
    cli(&desktop, &loaded).expect_code(0);
    let flow = write("firefox.yaml", &text);
    let r = cli(&desktop, &["flow", "run", flow.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{text}\n{r:#?}");
    assert_eq!(page_state(&desktop, name), done, "the replay left the page as the person did: {text}");
    again.check_responsive(&desktop, Duration::from_secs(10)).expect("Firefox still answers");
}
