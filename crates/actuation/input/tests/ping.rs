//! The window manager's ping, sent by Deft, comes back only once the app has read the input
//! sent before it: judged by the fixture app's log, with the app stopped (SIGSTOP)
//! while the click waits in its queue, as a busy app leaves it.

use std::time::{Duration, Instant};

use deft_input::{Handled, Input, WindowLocator, WindowQuery, X11Windows, click_point};
use deft_types::MouseButton;

use deft_harness::fixture::{FixtureApp, FixtureOptions, Toolkit};

use crate::support::{QUIET, WAIT, desktop, desktop_with_app, input, logical, scale_of};

/// Signals the process `pid` (`STOP`, `CONT`) with kill(1): no libc binding in these tests.
fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill").args([&format!("-{sig}"), &pid.to_string()]).status().unwrap();
    assert!(ok.success(), "kill -{sig} {pid}");
}

fn answered_within(ping: &dyn Handled, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if ping.handled().unwrap() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn a_ping_comes_back_only_after_the_click_before_it_was_handled() {
    // The toolkits whose window belongs to the process that handles the click (not a
    // browser's: see deft-x11's ping).
    for toolkit in [Toolkit::Gtk3, Toolkit::Gtk4, Toolkit::Qt5, Toolkit::Qt6] {
        the_click_is_handled_before_the_answer(toolkit);
    }
}

fn the_click_is_handled_before_the_answer(toolkit: Toolkit) {
    let desktop = desktop(1280, 800);
    let app = FixtureApp::launch(&desktop, &FixtureOptions { toolkit, ..FixtureOptions::default() })
        .unwrap_or_else(|e| panic!("{toolkit:?} fixture did not start: {e}"));
    let ready = app.ready();
    let (scale, _) = scale_of(&desktop, app.pid(), ready.window);
    let windows = X11Windows::connect(Some(desktop.display())).unwrap();
    let window = windows.window(&WindowQuery::pid(app.pid())).unwrap();
    let mut input = input(&desktop);
    let at = click_point(logical(ready.widget("hello")), scale).unwrap();

    // A responsive app answers at once, and takes part (GTK lists _NET_WM_PING).
    let ping = windows.ping(window.id).unwrap().unwrap_or_else(|| panic!("{toolkit:?} takes part in pings"));
    assert!(answered_within(ping.as_ref(), WAIT), "{toolkit:?}: a responsive app answers a ping");
    assert!(ping.handled().unwrap(), "{toolkit:?}: answered stays answered");

    // Stopped, the app reads nothing: the click waits in its queue, and so does the ping.
    signal(app.pid(), "STOP");
    input.click_at(at, MouseButton::Left, 1).unwrap();
    let ping = windows.ping(window.id).unwrap().unwrap_or_else(|| panic!("{toolkit:?} takes part in pings"));
    let early = answered_within(ping.as_ref(), Duration::from_millis(300));
    signal(app.pid(), "CONT");
    assert!(!early, "{toolkit:?}: a stopped app cannot have answered");
    assert!(answered_within(ping.as_ref(), WAIT), "{toolkit:?}: the app answers once it runs again");
    // Answered: the app has read the click from its queue; it handles it within a pass or
    // two of its loop (under load, GTK once logged it just after the answer).
    app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("the click, once the app answered");
    std::thread::sleep(QUIET);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{toolkit:?}: {:?}", app.events());
    app.check_alive(&desktop, WAIT).unwrap_or_else(|e| panic!("{toolkit:?} still answers: {e}"));
}

#[test]
fn a_window_without_the_ping_protocol_is_not_pinged() {
    let (desktop, _app) = desktop_with_app();
    let windows = X11Windows::connect(Some(desktop.display())).unwrap();
    // The root window lists no WM_PROTOCOLS.
    let root = {
        use x11rb::connection::Connection as _;
        let (conn, screen) = x11rb::connect(Some(desktop.display())).unwrap();
        u64::from(conn.setup().roots[screen].root)
    };
    assert!(windows.ping(root).unwrap().is_none());
}

#[test]
fn an_input_method_registered_on_the_display_is_known() {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, PropMode};
    use x11rb::wrapper::ConnectionExt as _;
    let (desktop, _app) = desktop_with_app();
    let windows = X11Windows::connect(Some(desktop.display())).unwrap();
    let from_xim = |w: &X11Windows| w.input_method().is_some_and(|m| m.starts_with("XIM_SERVERS"));
    assert!(!from_xim(&windows), "a bare X server has no input method: {:?}", windows.input_method());
    // What IBus started with --xim (as GNOME starts it) writes on the root window.
    let (conn, screen) = x11rb::connect(Some(desktop.display())).unwrap();
    let root = conn.setup().roots[screen].root;
    let servers = conn.intern_atom(false, b"XIM_SERVERS").unwrap().reply().unwrap().atom;
    let ibus = conn.intern_atom(false, b"@server=ibus").unwrap().reply().unwrap().atom;
    conn.change_property32(PropMode::REPLACE, root, servers, AtomEnum::ATOM, &[ibus]).unwrap();
    conn.sync().unwrap();
    assert_eq!(windows.input_method().as_deref(), Some("XIM_SERVERS: @server=ibus"));
    conn.delete_property(root, servers).unwrap();
    conn.sync().unwrap();
    assert!(!from_xim(&windows), "{:?}", windows.input_method());
}
