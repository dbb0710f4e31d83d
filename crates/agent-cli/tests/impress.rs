//! LibreOffice Impress (VCL on GTK 3), as a new user drives it, each step its own agent-cli
//! process: its template dialog at start (a check box, Close), a title typed into the
//! slide's placeholder (a shape that keeps its text in a paragraph inside it), a new slide
//! from the menu bar, the Character dialog opened and cancelled, Save As by its key (the
//! dialog the key opens is its effect), the file named in GTK's file chooser, and Quit by
//! its key (the app leaving is its effect). Judged by the presentation Impress wrote (its
//! `content.xml`, read by Python's zipfile), an independent AT-SPI client (pyatspi) for
//! the dialogs, and the process's exit.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::apps::CorpusApp;

use super::real_apps::{cli, count_in, judged_by, save_in_chooser, start};
use super::scratch;

#[test]
fn impress_closes_its_template_dialog_types_a_title_adds_a_slide_saves_and_quits() {
    let desktop = Desktop::start().expect("desktop");
    let Some(mut impress) = start(&desktop, CorpusApp::LibreOfficeImpress) else { return };
    let file = scratch("impress-save").join("deck.odp");
    let _ = std::fs::remove_file(&file);
    let name = CorpusApp::LibreOfficeImpress.accessible_name();
    let app = ["--app", name];
    let act = |args: &[&str]| cli(&desktop, &[args, &app[..], &["--verify"]].concat());
    let templates = "Select a Template";
    act(&["click", "--window", templates, "--role", "check_box", "--name", "Show this dialog at startup"])
        .expect_code(0);
    act(&["click", "--window", templates, "--role", "push_button", "--name", "Close"]).expect_code(0);
    assert_eq!(count_in(&desktop, name, "dialog", templates), 0, "the template dialog closed");
    // Before: the shape was focused through accessibility (which only selects it) and the
    // keys opened its text as they arrived: "H Impressello", then "Click to add Title" was
    // written into the title as its text.
    act(&["type", "--name", "PresentationTitle", "--text", "Hello Impress"]).expect_code(0);
    cli(&desktop, &["key", "Escape", "--verify"]).expect_code(0);
    act(&["click", "--role", "menu", "--name", "Slide"]).expect_code(0);
    act(&["click", "--role", "menu_item", "--name", "New Slide"]).expect_code(0);
    act(&["click", "--role", "menu", "--name", "Format"]).expect_code(0);
    act(&["click", "--role", "menu_item", "--name", "Character..."]).expect_code(0);
    assert_eq!(count_in(&desktop, name, "dialog", "Character"), 1, "the Character dialog opened once");
    act(&["click", "--window", "Character", "--role", "push_button", "--name", "Cancel"]).expect_code(0);
    assert_eq!(count_in(&desktop, name, "dialog", "Character"), 0, "the Character dialog closed");
    // Save As by its key: the dialog it opens is its effect, not something blocking it.
    let save_as = cli(&desktop, &["key", "ctrl+shift+s", "--verify"]);
    save_as.expect_code(0);
    save_in_chooser(&act, &file, "Impress");
    // Each slide's text, as Impress wrote it.
    let judge = r#"
import json, re, sys, zipfile
xml = zipfile.ZipFile(sys.argv[1]).read("content.xml").decode()
pages = re.findall(r'<draw:page\b.*?</draw:page>', xml, re.S)
print(json.dumps([re.findall(r'<text:p[^>]*>([^<]*)</text:p>', p) for p in pages]))
"#;
    let slides = judged_by(&desktop, judge, &file);
    assert_eq!(slides, serde_json::json!([["Hello Impress"], []]), "the slides Impress saved");
    impress.check_responsive(&desktop, Duration::from_secs(5)).expect("Impress still answers");
    // Quit by its key: the app leaving is what was asked for.
    let quit = cli(&desktop, &["key", "ctrl+q", "--verify"]);
    quit.expect_code(0);
    let status = impress.exited_within(Duration::from_secs(20));
    assert!(
        status.is_some_and(|s| s.success()),
        "Impress quit when told, cleanly: {status:?}; its output:\n{}",
        impress.output()
    );
}
