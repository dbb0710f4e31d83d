//! Each corpus app's script: the verbs a user needs on it (click, type, set a value, a
//! key), on elements it shows at start, each with how an independent client tells that it
//! happened once.

use super::{Script, Sel, Step, Truth, Verb, sel};
use crate::apps::CorpusApp;

fn step(verb: Verb, truth: Truth) -> Step {
    Step { verb, truth }
}

/// `app`'s script, or `None` for an app that has none yet.
pub fn script(app: CorpusApp) -> Option<Script> {
    let steps = match app {
        CorpusApp::Gtk3WidgetFactory => gtk3_widget_factory(),
        CorpusApp::Gtk4WidgetFactory => gtk4_widget_factory(),
        CorpusApp::FeatherPad => featherpad(),
        CorpusApp::Mousepad => mousepad(),
        CorpusApp::Chromium | CorpusApp::Firefox => web_page(),
        CorpusApp::QtDesigner => qt_designer(),
        CorpusApp::LibreOfficeWriter => writer(),
        CorpusApp::LibreOfficeImpress => impress(),
        CorpusApp::GnomeCalculator => gnome_calculator(),
        CorpusApp::KCalc => kcalc(),
        CorpusApp::Qmmp => qmmp(),
        CorpusApp::Gtk2Demo => return Some(gtk2_demo()),
        _ => return None,
    };
    Some(Script { app, setup: Vec::new(), steps })
}

/// GTK 3's header bar menu (a popover) and the dialog one of its buttons opens, then the
/// widgets on the factory's first page (the plain entry is the third text: the first two
/// are combo boxes' own), then its second page's dialog, opened and closed.
fn gtk3_widget_factory() -> Vec<Step> {
    let spin = sel("spin_button", "");
    // The fifth of each (tree order, bottom up on the screen): clear and sensitive; the
    // ones below it are insensitive on purpose.
    let check = sel("check_box", "checkbutton").nth(4);
    let radio = sel("radio_button", "radiobutton").nth(4);
    let toggle = sel("toggle_button", "togglebutton");
    let entry = sel("text", "").nth(2);
    let page = sel("radio_button", "Page 2");
    let menu = sel("toggle_button", "Menu");
    vec![
        // The header bar's menu is a popover (a panel that says modal) listed after the
        // notebook it is drawn over: the hit test answers with the notebook beneath.
        step(Verb::Click(menu.clone()), Truth::Gets(menu, "checked")),
        step(
            Verb::Click(sel("push_button", "About Widget Factory")),
            Truth::Opens("dialog", "About GTK Widget Factory".into()),
        ),
        step(Verb::Key("Escape".into()), Truth::Closes("dialog", "About GTK Widget Factory".into())),
        step(Verb::SetValue(spin.clone(), "73".into()), Truth::Value(spin, 73.0)),
        step(Verb::Click(check.clone()), Truth::Gets(check, "checked")),
        step(Verb::Click(radio.clone()), Truth::Gets(radio, "checked")),
        step(Verb::Click(toggle.clone()), Truth::Gets(toggle, "checked")),
        step(Verb::Type(entry.clone(), "hello gtk3".into()), Truth::Gains(entry, "hello gtk3".into())),
        step(Verb::Click(page.clone()), Truth::Gets(page, "checked")),
        step(Verb::Click(sel("push_button", "Inform")), Truth::Opens("alert", "Information".into())),
        step(Verb::Key("Escape".into()), Truth::Closes("alert", "Information".into())),
    ]
}

/// FeatherPad (Qt 5): type into the document, undo and redo it from the toolbar.
fn featherpad() -> Vec<Step> {
    let doc = sel("text", "");
    vec![
        step(Verb::Type(doc.clone(), "hello".into()), Truth::Gains(doc.clone(), "hello".into())),
        step(Verb::Click(sel("push_button", "Undo")), Truth::Says(doc.clone(), String::new())),
        step(Verb::Click(sel("push_button", "Redo")), Truth::Says(doc, "hello".into())),
    ]
}

/// Mousepad (GTK 3): type into the document, undo it by its key.
fn mousepad() -> Vec<Step> {
    let doc = sel("text", "");
    vec![
        step(Verb::Type(doc.clone(), "hello".into()), Truth::Gains(doc.clone(), "hello".into())),
        step(Verb::Key("ctrl+z".into()), Truth::Says(doc, String::new())),
    ]
}

/// The corpus web page in a browser: a field, a check box, an ARIA tab, a modal dialog
/// opened and closed by Escape, a button below the fold.
fn web_page() -> Vec<Step> {
    let name = sel("entry", "Full name");
    let subscribe = sel("check_box", "Subscribe");
    let tab = sel("page_tab", "Advanced");
    vec![
        step(Verb::Type(name.clone(), "Ada Lovelace".into()), Truth::Gains(name, "Ada Lovelace".into())),
        step(Verb::Click(subscribe.clone()), Truth::Gets(subscribe, "checked")),
        step(Verb::Click(tab.clone()), Truth::Gets(tab, "selected")),
        step(Verb::Click(sel("push_button", "Open dialog")), Truth::Opens("dialog", String::new())),
        step(Verb::Key("Escape".into()), Truth::Shows("Dialog closed: cancel".into())),
        step(Verb::Click(sel("push_button", "Far button")), Truth::Shows("Far button pressed".into())),
    ]
}

/// Qt Designer (Qt 6): its start dialog's Create; ctrl+s opens its own Save dialog,
/// Escape closes it.
fn qt_designer() -> Vec<Step> {
    let save = "Save Form As";
    vec![
        step(Verb::Click(sel("push_button", "Create")), Truth::Closes("dialog", "New Form".into())),
        step(Verb::Key("ctrl+s".into()), Truth::Opens("dialog", save.into())),
        step(Verb::Key("Escape".into()), Truth::Closes("dialog", save.into())),
    ]
}

/// LibreOffice Writer (VCL on GTK 3): type into the document's first paragraph, Bold from
/// the toolbar, then the File menu opened.
fn writer() -> Vec<Step> {
    let paragraph = sel("paragraph", "");
    let bold = sel("toggle_button", "Bold");
    vec![
        step(Verb::Type(paragraph.clone(), "Hello Writer".into()), Truth::Gains(paragraph, "Hello Writer".into())),
        step(Verb::Click(bold.clone()), Truth::Gets(bold, "checked")),
        step(Verb::Click(sel("menu", "File")), Truth::Placed(sel("menu_item", "Save As..."))),
    ]
}

/// LibreOffice Impress (VCL on GTK 3): its template dialog's check box and Close, a title
/// typed into the slide's placeholder (a shape whose text is a paragraph inside it, named
/// with a trailing space as Impress names it), the Character dialog from the Format menu
/// and Escape, Save As by its key and Escape.
fn impress() -> Vec<Step> {
    let templates = "Select a Template";
    let show = sel("check_box", "Show this dialog at startup").within(templates);
    let title = sel("panel", "PresentationTitle ");
    let paragraph = sel("paragraph", "");
    vec![
        step(Verb::Click(show.clone()), Truth::Loses(show, "checked")),
        step(Verb::Click(sel("push_button", "Close").within(templates)), Truth::Closes("dialog", templates.into())),
        step(Verb::Type(title, "Hello Impress".into()), Truth::Gains(paragraph, "Hello Impress".into())),
        step(Verb::Click(sel("menu", "Format")), Truth::Placed(sel("menu_item", "Character..."))),
        step(Verb::Click(sel("menu_item", "Character...")), Truth::Opens("dialog", "Character".into())),
        step(Verb::Key("Escape".into()), Truth::Closes("dialog", "Character".into())),
        step(Verb::Key("ctrl+shift+s".into()), Truth::Opens("file chooser", "Save".into())),
        step(Verb::Key("Escape".into()), Truth::Closes("file chooser", "Save".into())),
    ]
}

/// GTK 4's widgets on the factory's first page (the plain entry is the third "GtkEntry":
/// the first two are combo boxes' own).
fn gtk4_widget_factory() -> Vec<Step> {
    let entry = sel("text", "GtkEntry").nth(2);
    let spin = sel("spin_button", "GtkSpinButton");
    let scale = sel("slider", "GtkScale");
    let radio = sel("check_box", "radiobutton").nth(1);
    let check = sel("check_box", "checkbutton").nth(1);
    let tab = sel("page_tab", "Tab").nth(1);
    vec![
        step(Verb::Type(entry.clone(), "hello gtk4".into()), Truth::Gains(entry, "hello gtk4".into())),
        step(Verb::SetValue(spin.clone(), "73".into()), Truth::Value(spin, 73.0)),
        step(Verb::SetValue(scale.clone(), "80".into()), Truth::Value(scale, 80.0)),
        step(Verb::Click(radio.clone()), Truth::Gets(radio, "checked")),
        step(Verb::Click(check.clone()), Truth::Gets(check, "checked")),
        step(Verb::Click(tab.clone()), Truth::Gets(tab, "selected")),
    ]
}

/// GNOME Calculator (GTK 4 + libadwaita): digits and an operator by its buttons, a digit
/// typed into its entry, Return; the entry (a source view) shows each.
fn gnome_calculator() -> Vec<Step> {
    let entry = sel("text", "GtkSourceView");
    let button = |label: &str| sel("push_button", &format!("{label} {label}"));
    let says = |text: &str| Truth::Says(entry.clone(), text.into());
    vec![
        step(Verb::Click(button("1")), says("1")),
        step(Verb::Click(button("2")), says("12")),
        step(Verb::Click(button("+")), says("12+")),
        step(Verb::Type(entry.clone(), "3".into()), says("12+3")),
        step(Verb::Key("Return".into()), says("15")),
    ]
}

/// KCalc (Qt 5 + KDE Frameworks): its display is a frame whose name is the number shown
/// (the second frame of the window).
fn kcalc() -> Vec<Step> {
    let display = sel("frame", "").nth(1);
    let says = |text: &str| Truth::Says(display.clone(), text.into());
    vec![
        step(Verb::Click(sel("push_button", "1")), says("1")),
        step(Verb::Click(sel("push_button", "2")), says("12")),
        step(Verb::Click(sel("push_button", "+/−")), says("-12")),
        step(Verb::Click(sel("push_button", "AC")), says("0")),
    ]
}

/// qmmp (Qt 5, custom widgets) while it plays, its position ticking by itself: Pause and
/// Play (its status label says which), its Jump To Track dialog by its key, a filter typed
/// there, Escape.
fn qmmp() -> Vec<Step> {
    const JUMP: &str = "Jump To Track";
    let filter = sel("text", "").within(JUMP);
    vec![
        step(Verb::Click(sel("push_button", "Pause")), Truth::Shows("Paused".into())),
        step(Verb::Click(sel("push_button", "Play")), Truth::Shows("Playing".into())),
        step(Verb::Key("j".into()), Truth::Opens("dialog", JUMP.into())),
        step(Verb::Type(filter.clone(), "one".into()), Truth::Gains(filter, "one".into())),
        step(Verb::Key("Escape".into()), Truth::Closes("dialog", JUMP.into())),
    ]
}

/// gtk-demo (GTK 2): its "Application main window" demo (double-clicked in the list
/// first): type into its text view; File, then New (a message dialog); Escape;
/// Preferences, then Bold (a check menu item, checked at start); Help, then About.
fn gtk2_demo() -> Script {
    const WINDOW: &str = "Application Window";
    let text = sel("text", "").within(WINDOW);
    let item = |name: &str| sel("menu_item", name).within(WINDOW);
    let bold = sel("check_menu_item", "Bold").within(WINDOW);
    let open = |menu: &str, shows: Sel| step(Verb::Click(sel("menu", menu).within(WINDOW)), Truth::Placed(shows));
    let steps = vec![
        step(Verb::Type(text.clone(), "hello gtk2".into()), Truth::Gains(text, "hello gtk2".into())),
        open("File", item("New")),
        step(Verb::Click(item("New")), Truth::Opens("alert", String::new())),
        step(Verb::Key("Escape".into()), Truth::Closes("alert", String::new())),
        open("Preferences", bold.clone()),
        step(Verb::Click(bold.clone()), Truth::Loses(bold, "checked")),
        open("Help", item("About")),
        step(Verb::Click(item("About")), Truth::Opens("dialog", String::new())),
    ];
    Script { app: CorpusApp::Gtk2Demo, setup: vec![(sel("table_cell", "Application main window"), WINDOW)], steps }
}
