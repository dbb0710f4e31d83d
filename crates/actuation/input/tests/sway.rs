//! Window geometry on sway, over its IPC: the GTK 3 fixture as a native Wayland client is
//! listed with its pid, title and content size, has the focus, and can be given it again.
//! Judged against the fixture's own `ready` event (its window's size) and its pid.

use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_input::{WaylandWindows, WindowLocator, WindowQuery};

#[test]
fn sway_lists_the_fixture_s_window_and_focuses_it() {
    let desktop = super::support::desktop(1280, 800);
    let sway = desktop.start_sway().unwrap_or_else(|e| panic!("sway did not start: {e}"));
    let opts = FixtureOptions { env: sway.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let windows = WaylandWindows::connect(deft_wayland::ViewSource::Sway(sway.ipc())).unwrap_or_else(|e| panic!("{e}"));
    let listed = windows.windows(&WindowQuery::pid(app.pid())).unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let w = &listed[0];
    assert_eq!(w.title, "Deft Fixture");
    let (want_w, want_h) = (app.ready().window.w, app.ready().window.h);
    assert_eq!(
        (w.bounds.w as i32, w.bounds.h as i32),
        (want_w, want_h),
        "sway's content size is the app's window size"
    );
    assert!(w.bounds.x >= 0 && w.bounds.y >= 0 && w.bounds.x + w.bounds.w as i32 <= 1280, "{w:?}");
    assert_eq!(windows.focused().unwrap(), Some(w.id));
    windows.activate(w.id).unwrap_or_else(|e| panic!("{e}"));
    assert!(windows.activate(999_999).is_err(), "no such window");
    app.check_alive(&desktop, std::time::Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}
