//! First, do no harm: each real application of the corpus (`deft_harness::apps`), read many
//! times every way deft-a11y reads (whole desktop, the app, its windows, hidden details and
//! relations, single elements, hit tests, the application list, events), is still alive and
//! answering afterwards, as judged without Deft (process state, a `GetRole` through the bus
//! daemon, its X window). Each app gets its own desktop; an app whose package is absent is
//! skipped with the reason printed (`cargo xtask setup` installs them all).

use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, AtSpi, EventFilter, Scope, SnapshotOptions, Tree};
use deft_harness::Desktop;
use deft_harness::apps::{CorpusApp, RunningApp};
use deft_types::{Point, State};
use futures_util::StreamExt;

use crate::support::{config, desktop, runtime, wait_for_app};

/// Reads of each kind per app: enough to hit any call that harms on some toolkit (the Qt
/// crash came on the first read), few enough to keep a test to seconds.
const ROUNDS: usize = 8;

/// The apps started on one desktop, and a backend connected to it.
pub struct Corpus {
    pub rt: tokio::runtime::Runtime,
    a11y: Option<AtSpi>,
    pub apps: Vec<RunningApp>,
    pub desktop: Desktop,
}

impl Drop for Corpus {
    fn drop(&mut self) {
        let _inside = self.rt.enter();
        drop(self.a11y.take());
    }
}

impl Corpus {
    /// Start `apps` on a fresh desktop and wait until each is on the bus; `None` (with the
    /// reason printed) when one is not installed.
    pub fn start(apps: &[CorpusApp]) -> Option<Corpus> {
        if let Some(why) = apps.iter().find_map(|a| a.missing()) {
            eprintln!("skipped: {why}");
            return None;
        }
        let desktop = desktop();
        let mut running = Vec::new();
        for &app in apps {
            let mut r = RunningApp::launch(&desktop, app).unwrap_or_else(|e| panic!("{app:?} did not start: {e}"));
            r.wait_registered(&desktop, Duration::from_secs(90))
                .unwrap_or_else(|e| panic!("{app:?} did not register: {e}"));
            running.push(r);
        }
        let rt = runtime();
        let a11y = rt.block_on(AtSpi::connect(config(&desktop))).unwrap_or_else(|e| panic!("connect: {e}"));
        for &app in apps {
            wait_for_app(&rt, &a11y, app.accessible_name());
        }
        Some(Corpus { rt, a11y: Some(a11y), apps: running, desktop })
    }

    pub fn a11y(&self) -> &AtSpi {
        self.a11y.as_ref().expect("connected until dropped")
    }

    /// A snapshot of the app named `name`.
    pub fn tree(&self, name: &str, options: &SnapshotOptions) -> Tree {
        let info = wait_for_app(&self.rt, self.a11y(), name);
        self.rt.block_on(self.a11y().snapshot(&Scope::App(info.id), options)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// A snapshot of the app named `name` once it has an element with this role and name
    /// (a browser builds its page's tree after its window's); waits up to 30 s.
    pub fn tree_with(&self, name: &str, role: &str, element: &str) -> Tree {
        for _ in 0..300 {
            let tree = self.tree(name, &SnapshotOptions::default());
            if tree.nodes.iter().any(|n| n.element.role.as_str() == role && n.element.name == element) {
                return tree;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{name} never showed a {role} {element:?}");
    }

    /// Panic unless every app is alive and answering.
    pub fn assert_all_responsive(&mut self, after: &str) {
        for app in &mut self.apps {
            if let Err(e) = app.check_responsive(&self.desktop, Duration::from_secs(5)) {
                panic!("after {after}: {e}");
            }
        }
    }
}

/// Start `apps`, read everything every way, `ROUNDS` times, then check the apps.
fn read_everything(apps: &[CorpusApp]) {
    let Some(mut c) = Corpus::start(apps) else { return };
    read_all(&mut c, apps);
}

/// Read everything every way on `c`, `ROUNDS` times, then check the apps.
fn read_all(c: &mut Corpus, apps: &[CorpusApp]) {
    let started = Instant::now();
    let a11y = c.a11y().clone();
    let full = SnapshotOptions { relations: true, hidden_details: true, ..SnapshotOptions::default() };
    let mut counts = Vec::new();
    c.rt.block_on(async {
        // Events on for the whole run, as the executor has them while it verifies.
        let filter = EventFilter::default();
        let mut events = a11y.events(&filter).await.expect("subscribe");
        for round in 0..ROUNDS {
            let all = a11y.snapshot(&Scope::All, &SnapshotOptions::default()).await.expect("read the desktop");
            let listed = a11y.applications().await.expect("list applications");
            for &app in apps {
                let info = listed
                    .iter()
                    .find(|a| a.name == app.accessible_name())
                    .unwrap_or_else(|| panic!("round {round}: {app:?} is no longer listed"));
                assert_eq!(info.problem, None, "{app:?}");
                let tree = a11y.snapshot(&Scope::App(info.id.clone()), &full).await.expect("read the app fully");
                if round == 0 {
                    counts.push((app, tree.len(), all.len()));
                    assert!(tree.len() > 10, "{app:?}: only {} elements read", tree.len());
                    // A cut tree is said, not a fault: past the node limit, or a container
                    // with more children than can be listed (Calc's sheet).
                    let problems: Vec<&String> = tree
                        .problems
                        .iter()
                        .filter(|p| !p.contains("stopped past") && !p.contains("too many to list"))
                        .collect();
                    assert!(problems.is_empty(), "{app:?}: {problems:?}");
                }
                for w in &info.windows {
                    a11y.snapshot(&Scope::Subtree(w.id.clone()), &SnapshotOptions::default())
                        .await
                        .unwrap_or_else(|e| panic!("{app:?}: window {:?}: {e}", w.title));
                    // Hit tests across the window, and single-element reads of what they hit.
                    if let Some(b) = w.bounds {
                        for (fx, fy) in [(1, 2), (1, 1), (3, 2), (2, 3), (3, 3)] {
                            let at = Point::new(b.x + b.w as i32 * fx / 4, b.y + b.h as i32 * fy / 4);
                            if let Some(hit) = a11y.hit_test(at).await.expect("hit test") {
                                a11y.element(&hit.element.id).await.ok();
                            }
                        }
                    }
                }
                for n in tree.nodes.iter().filter(|n| n.element.has(State::Showing)).step_by(7).take(12) {
                    // Stale is fine (menus come and go); anything else is a failure.
                    match a11y.element(&n.element.id).await {
                        Ok(_) | Err(deft_a11y::A11yError::Stale { .. }) => {}
                        Err(e) => panic!("{app:?}: reading {}: {e}", n.element.describe()),
                    }
                }
            }
            // Drain what the reads caused, without waiting.
            while let Ok(Some(_)) = tokio::time::timeout(Duration::from_millis(1), events.next()).await {}
        }
    });
    for (app, n, all) in &counts {
        eprintln!("{app:?}: {n} elements (desktop {all}), {ROUNDS} rounds in {:?}", started.elapsed());
    }
    c.assert_all_responsive(&format!("{ROUNDS} rounds of every read"));
}

#[test]
fn gtk3_widget_factory_survives_every_read() {
    read_everything(&[CorpusApp::Gtk3WidgetFactory]);
}

#[test]
fn gtk4_widget_factory_survives_every_read() {
    read_everything(&[CorpusApp::Gtk4WidgetFactory]);
}

#[test]
fn qt5_and_qt6_survive_every_read_of_the_whole_desktop() {
    // Reading the desktop with no app named killed every Qt app on it.
    read_everything(&[CorpusApp::FeatherPad, CorpusApp::QtDesigner]);
}

#[test]
fn mousepad_survives_every_read() {
    read_everything(&[CorpusApp::Mousepad]);
}

#[test]
fn chromium_survives_every_read() {
    read_everything(&[CorpusApp::Chromium]);
}

#[test]
fn firefox_survives_every_read() {
    read_everything(&[CorpusApp::Firefox]);
}

#[test]
fn gtk2_demo_survives_every_read() {
    read_everything(&[CorpusApp::Gtk2Demo]);
}

#[test]
fn kcalc_and_gnome_calculator_survive_every_read() {
    read_everything(&[CorpusApp::KCalc, CorpusApp::GnomeCalculator]);
}

/// While it plays: its position slider and clock change under the reads.
#[test]
fn qmmp_survives_every_read_while_it_plays() {
    read_everything(&[CorpusApp::Qmmp]);
}

#[test]
fn libreoffice_writer_survives_every_read() {
    read_everything(&[CorpusApp::LibreOfficeWriter]);
}

/// Calc's sheet says it has 2,147,483,647 cells. Listing them (`GetChildren`) froze Calc for
/// good: it stopped answering anyone, pyatspi included, while its memory grew. Now only the
/// cells on screen are read, and the read says so.
#[test]
fn libreoffice_calc_survives_every_read_and_shows_the_cells_on_screen() {
    let Some(mut c) = Corpus::start(&[CorpusApp::LibreOfficeCalc]) else { return };
    read_all(&mut c, &[CorpusApp::LibreOfficeCalc]);
    let tree = c.tree_with("soffice", "table_cell", "B3");
    let cells: Vec<_> = tree.nodes.iter().filter(|n| n.element.role.as_str() == "table_cell").collect();
    assert!((20..=2_000).contains(&cells.len()), "{} cells read", cells.len());
    assert!(
        tree.problems.iter().any(|p| p.contains("2147483647 children, too many to list")),
        "the read says the sheet was cut: {:?}",
        tree.problems
    );
    // A cell's path ends with its index in the sheet as Calc counts (row 2 of 16,384
    // columns, column 1), not with its place among the cells read.
    let b3 = cells.iter().find(|n| n.element.name == "B3").expect("B3 read");
    assert_eq!(b3.path.last(), Some(&(2 * 16_384 + 1)), "{:?}", b3.path);
}
