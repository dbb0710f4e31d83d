//! A paste with a middle click: text reaches a field that ignores every key event, another
//! client asking for it meanwhile (a clipboard manager) gets nothing, and the primary
//! selection is given up afterwards.

use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_input::{Input, click_point};
use deft_types::ScaleFactor;
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, CreateWindowAux, WindowClass};

use crate::support::{WAIT, desktop, input, logical};

/// Who owns the primary selection on the desktop's display (0: nobody).
fn primary_owner(display: &str) -> u32 {
    let (conn, _) = x11rb::connect(Some(display)).unwrap();
    let owner = conn.get_selection_owner(AtomEnum::PRIMARY.into()).unwrap().reply().unwrap().owner;
    conn.flush().unwrap();
    owner
}

/// A clipboard manager's part: as soon as someone owns the primary selection, ask for its
/// text once. Whether it got any (`None`: nobody owned it within the time).
fn watch_primary(display: String) -> std::thread::JoinHandle<Option<bool>> {
    std::thread::spawn(move || {
        let (conn, screen) = x11rb::connect(Some(&display)).unwrap();
        let root = conn.setup().roots[screen].root;
        let window = conn.generate_id().unwrap();
        conn.create_window(0, window, root, 0, 0, 1, 1, 0, WindowClass::INPUT_ONLY, 0, &CreateWindowAux::new())
            .unwrap();
        let utf8 = conn.intern_atom(false, b"UTF8_STRING").unwrap().reply().unwrap().atom;
        let prop = conn.intern_atom(false, b"DEFT_WATCHER").unwrap().reply().unwrap().atom;
        let start = Instant::now();
        while conn.get_selection_owner(AtomEnum::PRIMARY.into()).unwrap().reply().unwrap().owner == 0 {
            if start.elapsed() > Duration::from_secs(10) {
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        conn.convert_selection(window, AtomEnum::PRIMARY.into(), utf8, prop, x11rb::CURRENT_TIME).unwrap();
        conn.flush().unwrap();
        loop {
            if let Event::SelectionNotify(n) = conn.wait_for_event().unwrap() {
                return Some(n.property != 0);
            }
        }
    })
}

#[test]
fn a_paste_reaches_a_field_that_ignores_keys_and_leaves_no_selection() {
    let desktop = desktop(1280, 800);
    let opts = FixtureOptions { ignore_keys: true, ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let mut input = input(&desktop);
    let name = click_point(logical(app.ready().widget("name")), ScaleFactor::ONE).unwrap();

    // The keys are ignored (the fault), the paste is not.
    input.click_at(name, deft_types::MouseButton::Left, 1).unwrap();
    input.text("typed").unwrap();
    app.wait_for(|e| e.kind == "fault" && e.str("kind") == Some("ignored_key"), WAIT).expect("keys ignored");
    let watcher = watch_primary(desktop.display().to_string());
    assert!(input.paste_at(name, "Ada Lovelace ✓").unwrap(), "the app asked for the text");
    assert_eq!(watcher.join().unwrap(), Some(false), "another client asking for the text is refused");
    app.wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("Ada Lovelace ✓"), WAIT)
        .unwrap_or_else(|e| panic!("pasted text not logged: {e}; {:?}", app.events()));
    assert_eq!(primary_owner(desktop.display()), 0, "the selection was given up");

    // Over a button nothing asks for the text: said so, nothing pasted anywhere.
    let hello = click_point(logical(app.ready().widget("hello")), ScaleFactor::ONE).unwrap();
    assert!(!input.paste_at(hello, "nowhere").unwrap(), "a button does not paste");
    assert!(app.events().iter().all(|e| e.str("value") != Some("nowhere")), "{:?}", app.events());
    assert_eq!(primary_owner(desktop.display()), 0);
    app.check_alive(&desktop, WAIT).expect("the fixture still answers");
}
