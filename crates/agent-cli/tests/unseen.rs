//! The standing check for generalization (`cargo xtask bench unseen` runs it on every
//! corpus app, beside the open loop), here on the apps that joined the corpus with it:
//! GTK 2 (gtk-demo's menus, which never say their entries are shown), KDE Frameworks
//! (KCalc, whose display is a frame named by its number) and GTK 4 with libadwaita (GNOME
//! Calculator), and gtk3-widget-factory (its popover menu). Each app's scripted verbs through agent-cli `--verify`, each judged by an
//! independent accessibility client (pyatspi) reading the app before and after it; the
//! app must still answer afterwards.

use std::path::PathBuf;

use deft_harness::Desktop;
use deft_harness::apps::CorpusApp;
use deft_harness::campaign::{Driver, Verdict};
use deft_harness::unseen;

use super::BIN;

fn every_verb_ends_right(app: CorpusApp) {
    if let Some(why) = app.missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let script = unseen::script(app).expect("the app has a script");
    let driver = Driver::AgentCli { binary: PathBuf::from(BIN), verify: true };
    let run = unseen::run(&desktop, &script, &driver).unwrap_or_else(|e| panic!("{}: {e}", app.label()));
    let table = unseen::markdown(std::slice::from_ref(&run));
    println!("{table}");
    assert!(run.harm.is_none(), "the app was harmed:\n{table}");
    assert!(run.broken().is_empty(), "silent, double or stray:\n{table}");
    assert_eq!(run.records.len(), script.steps.len(), "{table}");
    assert_eq!(run.count(Verdict::Correct), run.records.len(), "every action ends right:\n{table}");
}

#[test]
fn gtk2_demo_types_and_chooses_menu_entries_its_toolkit_never_calls_shown() {
    every_verb_ends_right(CorpusApp::Gtk2Demo);
}

#[test]
fn kcalc_presses_buttons_its_display_shows_once() {
    every_verb_ends_right(CorpusApp::KCalc);
}

#[test]
fn gnome_calculator_presses_types_and_keys_once() {
    every_verb_ends_right(CorpusApp::GnomeCalculator);
}

/// GTK 3: the header bar's menu is a popover its hit test cannot see (it answered with the
/// notebook beneath, as evince's did with its document), and the dialog its About button
/// opens is that button's effect; then the first page's widgets.
#[test]
fn gtk3_widget_factory_chooses_from_its_popover_menu_once() {
    every_verb_ends_right(CorpusApp::Gtk3WidgetFactory);
}

/// Qt with custom widgets, while its position ticks by itself.
#[test]
fn qmmp_pauses_plays_and_opens_its_jump_dialog_once_while_it_plays() {
    every_verb_ends_right(CorpusApp::Qmmp);
}
