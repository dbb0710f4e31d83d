//! Dead apps, hung apps, stale ids, a missing bus: clear errors, in bounded time.

use std::time::{Duration, Instant};

use deft_a11y::{A11yError, Accessibility, AtSpi, AtSpiConfig, Scope, SnapshotOptions, find, selector};
use deft_harness::fixture::FixtureOptions;
use deft_harness::{Desktop, DesktopConfig};

use deft_types::{ElementId, ErrorClass};

use crate::support::{config, runtime, session, session_with, signal};

#[test]
fn killing_the_app_gives_app_gone_not_a_hang() {
    let s = session();
    let app = s.app_info();
    let submit = s.id("push_button", "Submit order");
    signal(s.app.pid(), "KILL");
    let start = Instant::now();
    let err = s.block(s.a11y().snapshot(&Scope::App(app.id.clone()), &SnapshotOptions::default())).unwrap_err();
    assert!(matches!(err, A11yError::AppGone { .. }), "{err}");
    assert!(err.to_string().contains("exited or crashed"), "{err}");
    let err = s.block(s.a11y().do_action(&submit, "click")).unwrap_err();
    assert!(matches!(err, A11yError::AppGone { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_secs(6), "took {:?}", start.elapsed());
    // The list no longer has it (the registry forgets it), or lists it with a problem.
    let apps = s.block(s.a11y().applications()).unwrap();
    assert!(apps.iter().all(|a| a.id != app.id || a.problem.is_some()), "{apps:?}");
}

#[test]
fn the_app_dying_mid_read_gives_app_gone() {
    let s = session();
    let app = s.app_info();
    let pid = s.app.pid();
    // Stopped, the app leaves the read's calls pending; then it dies under them.
    signal(pid, "STOP");
    let start = Instant::now();
    let err = s.block(async {
        let (scope, opts) = (Scope::App(app.id.clone()), SnapshotOptions::default());
        let read = s.a11y().snapshot(&scope, &opts);
        let kill = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            signal(pid, "KILL");
        };
        tokio::join!(read, kill).0
    });
    let err = err.unwrap_err();
    assert!(matches!(err, A11yError::AppGone { .. }), "{err}");
    let limit = s.a11y().config().call_timeout;
    assert!(start.elapsed() < limit + Duration::from_secs(2), "took {:?}", start.elapsed());
}

#[test]
fn a_hung_app_times_out() {
    let s = session();
    let app = s.app_info();
    signal(s.app.pid(), "STOP");
    let start = Instant::now();
    let err = s.block(s.a11y().snapshot(&Scope::App(app.id.clone()), &SnapshotOptions::default())).unwrap_err();
    let took = start.elapsed();
    signal(s.app.pid(), "CONT");
    assert!(matches!(err, A11yError::Timeout { .. }), "{err}");
    assert_eq!(err.class(), ErrorClass::Transient);
    let limit = s.a11y().config().call_timeout;
    assert!(took >= limit && took < limit * 3, "took {took:?} with a {limit:?} call timeout");
    // It answers again once it runs again.
    assert!(s.block(s.a11y().snapshot(&Scope::App(app.id), &SnapshotOptions::default())).is_ok());
}

#[test]
fn a_recreated_widget_gives_stale_and_the_selector_finds_its_successor() {
    let opts = FixtureOptions { stale: true, fault_target: Some("submit".into()), ..FixtureOptions::default() };
    let s = session_with(&opts);
    let sel = selector::parse(r#"role=push_button name="Submit order""#).unwrap();
    let old = s.block(find(s.a11y(), &sel, &SnapshotOptions::default())).unwrap();
    let old_id = old.element().id.clone();
    // The app recreates the button (60 px lower) instead of acting.
    s.block(s.a11y().do_action(&old_id, "click")).expect("the action itself is accepted");
    s.app
        .wait_for(|e| e.is("fault", Some("submit")) && e.str("kind") == Some("stale"), Duration::from_secs(5))
        .unwrap();
    let start = Instant::now();
    let stale = loop {
        match s.block(s.a11y().element(&old_id)) {
            Err(e @ A11yError::Stale { .. }) => break e,
            other => assert!(start.elapsed() < Duration::from_secs(5), "old id still reads: {other:?}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(stale.class(), ErrorClass::Stale);
    assert!(stale.to_string().contains("re-read the tree"), "{stale}");
    let err = s.block(s.a11y().do_action(&old_id, "click")).unwrap_err();
    assert!(matches!(err, A11yError::Stale { .. }), "{err}");
    // Once the app has placed the new button, the same selector finds it where the app says.
    let placed = s.app.wait_for(|e| e.is("geometry", Some("submit")), Duration::from_secs(5)).unwrap();
    let new = s.block(find(s.a11y(), &sel, &SnapshotOptions::default())).unwrap();
    assert_ne!(new.element().id, old_id);
    let logged = deft_harness::fixture::Rect::from_json(&placed.raw["bounds"]).unwrap();
    assert_eq!(new.element().bounds, Some(crate::support::rect(logged)));
    let (was, now) = (old.element().bounds.unwrap(), new.element().bounds.unwrap());
    assert_eq!(now.y - was.y, 60, "{was:?} -> {now:?}");
    assert_eq!(s.app.count("order_submitted", None), 0);
}

#[test]
fn ids_that_are_not_ours_or_are_gone() {
    let s = session();
    let err = s.block(s.a11y().element(&ElementId("not-an-id".into()))).unwrap_err();
    assert!(matches!(err, A11yError::InvalidId { .. }), "{err}");
    let app = s.app_info();
    let bus = app.id.0.split('|').next().unwrap().to_string();
    let gone = ElementId(format!("{bus}|/org/a11y/atspi/accessible/99999"));
    let err = s.block(s.a11y().element(&gone)).unwrap_err();
    assert!(matches!(err, A11yError::Stale { .. }), "{err}");
    let err = s.block(s.a11y().snapshot(&Scope::Subtree(gone), &SnapshotOptions::default())).unwrap_err();
    assert!(matches!(err, A11yError::Stale { .. }), "{err}");
}

#[test]
fn a_missing_bus_is_a_clear_error() {
    let rt = runtime();
    let nowhere = AtSpiConfig {
        session_bus: Some("unix:path=/nonexistent/deft-bus".into()),
        connect_timeout: Duration::from_secs(3),
        ..AtSpiConfig::default()
    };
    let err = rt.block_on(AtSpi::connect(nowhere)).err().expect("no bus, no connection");
    assert!(matches!(err, A11yError::BusUnavailable { .. }), "{err}");
    assert!(err.to_string().contains("Is the AT-SPI bus running?"), "{err}");

    // An accessibility bus address where nothing listens.
    let dead = AtSpiConfig { a11y_bus: Some("unix:path=/nonexistent/deft-a11y-bus".into()), ..AtSpiConfig::default() };
    let err = rt.block_on(AtSpi::connect(dead)).err().expect("no bus, no connection");
    assert!(matches!(err, A11yError::BusUnavailable { .. }), "{err}");
}

#[test]
fn the_bus_dying_mid_session_is_a_clear_error() {
    let d = Desktop::start_with(&DesktopConfig { window_manager: false, ..DesktopConfig::default() })
        .unwrap_or_else(|e| panic!("desktop: {e}"));
    let rt = runtime();
    let _inside = rt.enter();
    let a11y = rt.block_on(AtSpi::connect(config(&d))).expect("connect");
    rt.block_on(a11y.applications()).expect("the registry answers");
    let registry = ElementId("org.a11y.atspi.Registry|/org/a11y/atspi/accessible/root".into());
    drop(d); // tears down the session bus, the accessibility bus and the registry
    let start = Instant::now();
    let err = rt.block_on(a11y.applications()).unwrap_err();
    assert!(matches!(err, A11yError::BusUnavailable { .. }), "{err}");
    let err = rt.block_on(a11y.snapshot(&Scope::All, &SnapshotOptions::default())).unwrap_err();
    assert!(matches!(err, A11yError::BusUnavailable { .. }), "{err}");
    let err = rt.block_on(a11y.element(&registry)).unwrap_err();
    assert!(matches!(err, A11yError::BusUnavailable { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}
