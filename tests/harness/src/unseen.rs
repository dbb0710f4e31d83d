//! The standing check for generalization (`cargo xtask bench unseen`): every app of the
//! corpus driven with the same kinds of scripted verbs (click, type, set a value, press a
//! key), each action judged by an independent accessibility client (pyatspi) reading the
//! app before and after it, never by what the driver reported. Per app and driver it counts
//! right, silent failures, double effects, clear and unclear failures, failures whose
//! effect happened anyway (wrong errors), and harm (the app gone, frozen or without its
//! window afterwards). The open-loop baseline (xdotool at the element's centre, a fixed
//! sleep) runs the same scripts on fresh instances of the same apps.

mod judge;
mod scripts;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

pub use judge::Effect;
pub use scripts::script;

use crate::apps::{CorpusApp, RunningApp};
use crate::campaign::{Driver, Reported, Verdict, agent_cli, nearest_rank, xdotool};
use crate::{Desktop, HarnessError};

/// How long after the driver returns the app is read again: an effect that comes late (a
/// second press landing) is still counted.
const SETTLE: Duration = Duration::from_millis(500);
/// How long the app has to answer when it is checked for harm.
const ALIVE_LIMIT: Duration = Duration::from_secs(20);

/// One element, as both drivers and the judge find it: role (agent-cli's spelling), name
/// (empty: any name, as for a display whose name is what it shows), and which of several
/// matches in tree order.
#[derive(Clone, Debug)]
pub struct Sel {
    /// The role, `push_button` style.
    pub role: &'static str,
    /// The accessible name.
    pub name: String,
    /// Which match, 0-based.
    pub index: usize,
    /// Only in the top-level window of this name.
    pub window: Option<&'static str>,
}

/// The element `role`/`name`, the first of its kind.
pub fn sel(role: &'static str, name: &str) -> Sel {
    Sel { role, name: name.to_string(), index: 0, window: None }
}

impl Sel {
    /// The `index`th match instead of the first.
    pub fn nth(mut self, index: usize) -> Sel {
        self.index = index;
        self
    }

    /// Only in the top-level window named `window`.
    pub fn within(mut self, window: &'static str) -> Sel {
        self.window = Some(window);
        self
    }

    fn describe(&self) -> String {
        let nth = if self.index > 0 { format!(" #{}", self.index) } else { String::new() };
        format!("{} \"{}\"{nth}", self.role, self.name)
    }
}

/// What a step does.
#[derive(Clone, Debug)]
pub enum Verb {
    /// Click the element.
    Click(Sel),
    /// Type the text into the element.
    Type(Sel, String),
    /// Set the element's value (or text).
    SetValue(Sel, String),
    /// Press a key or chord (to the focused window).
    Key(String),
}

impl Verb {
    fn describe(&self) -> String {
        match self {
            Verb::Click(s) => format!("click {}", s.describe()),
            Verb::Type(s, t) => format!("type \"{t}\" into {}", s.describe()),
            Verb::SetValue(s, v) => format!("set {} to {v}", s.describe()),
            Verb::Key(k) => format!("key {k}"),
        }
    }
}

/// How the independent client tells that a step had its effect, once.
#[derive(Clone, Debug)]
pub enum Truth {
    /// The element's text (or name, where it has no text) gains this text.
    Gains(Sel, String),
    /// The element's text (or name) reads exactly this afterwards.
    Says(Sel, String),
    /// The element has this state afterwards and had not before.
    Gets(Sel, &'static str),
    /// The element had this state before and has not afterwards.
    Loses(Sel, &'static str),
    /// The element has a place on the screen afterwards and had none before: a menu's
    /// entry once its menu opened (GTK 2 never says `showing` for one).
    Placed(Sel),
    /// The element's value is this afterwards.
    Value(Sel, f64),
    /// One more element of this role (pyatspi's spelling) and name: a dialog opened.
    Opens(&'static str, String),
    /// No element of this role and name any more: a dialog closed.
    Closes(&'static str, String),
    /// An element reads this afterwards and none did before: a page saying what was done
    /// (it cannot tell twice from once).
    Shows(String),
}

/// One scripted action and how it is judged.
#[derive(Clone, Debug)]
pub struct Step {
    /// What to do.
    pub verb: Verb,
    /// How its effect shows.
    pub truth: Truth,
}

/// An app's script.
#[derive(Clone, Debug)]
pub struct Script {
    /// The app.
    pub app: CorpusApp,
    /// Before the steps, whatever the driver: the harness double-clicks each element (with
    /// xdotool) and waits for the window of this name to show (a demo list's entries).
    pub setup: Vec<(Sel, &'static str)>,
    /// The steps, in order, each on what the ones before left.
    pub steps: Vec<Step>,
}

/// One judged action.
#[derive(Clone, Debug)]
pub struct Record {
    /// What was done.
    pub action: String,
    /// How it ended.
    pub verdict: Verdict,
    /// What the independent client saw of the effect.
    pub effect: Effect,
    /// What agent-cli said it saw (`verified`, `received`, ...), empty for the open loop.
    pub seen: String,
    /// The driver's wall time.
    pub elapsed: Duration,
    /// What the driver said it observed (failures).
    pub observed: String,
}

/// One app's script with one driver.
#[derive(Clone, Debug)]
pub struct AppRun {
    /// The app.
    pub app: CorpusApp,
    /// The driver's label.
    pub driver: String,
    /// The actions, in order (a script stops at an app that is gone).
    pub records: Vec<Record>,
    /// What was wrong with the app afterwards (gone, frozen, no window), or `None`.
    pub harm: Option<String>,
}

impl AppRun {
    /// How many actions got `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.records.iter().filter(|r| r.verdict == verdict).count()
    }

    /// The actions that broke the promise: silent, double or stray.
    pub fn broken(&self) -> Vec<&Record> {
        let bad = [Verdict::SilentFailure, Verdict::DoubleEffect, Verdict::StrayEffect];
        self.records.iter().filter(|r| bad.contains(&r.verdict)).collect()
    }
}

/// Run `script` with `driver` on a fresh instance of its app on `desktop`.
pub fn run(desktop: &Desktop, script: &Script, driver: &Driver) -> Result<AppRun, HarnessError> {
    let home = desktop.scratch_dir().join("unseen-home");
    std::fs::create_dir_all(&home)
        .map_err(|source| HarnessError::Io { context: format!("creating {}", home.display()), source })?;
    let mut app = RunningApp::launch(desktop, script.app)?;
    app.wait_registered(desktop, Duration::from_secs(60))?;
    let name = script.app.accessible_name();
    settled(desktop, name);
    for (element, opens) in &script.setup {
        set_up(desktop, script.app, app.pid(), element, opens)?;
    }
    let mut records = Vec::new();
    let mut harm = None;
    for step in &script.steps {
        let before = dump(desktop, name);
        let started = Instant::now();
        let reported = perform(desktop, driver, (script.app, app.pid()), step, &before, &home);
        let elapsed = started.elapsed();
        std::thread::sleep(SETTLE);
        let after = dump(desktop, name);
        let effect = judge::effect(&step.truth, &before, &after);
        records.push(Record {
            action: step.verb.describe(),
            verdict: judge::verdict(&effect, &reported),
            effect,
            seen: reported.seen,
            elapsed,
            observed: reported.observed,
        });
        if let Err(why) = app.check_responsive(desktop, ALIVE_LIMIT) {
            harm = Some(why);
            break;
        }
    }
    if harm.is_none() {
        harm = app.check_responsive(desktop, ALIVE_LIMIT).err();
    }
    Ok(AppRun { app: script.app, driver: driver.label(), records, harm })
}

/// Double-click `element` and wait for the window `opens` to show (10 s).
fn set_up(desktop: &Desktop, corpus: CorpusApp, pid: u32, element: &Sel, opens: &str) -> Result<(), HarnessError> {
    let app = corpus.accessible_name();
    let before = dump(desktop, app);
    let offset = window_offset(desktop, corpus, pid, &before);
    let Some((x, y)) = judge::find(&before, element).and_then(judge::centre) else {
        return Err(HarnessError::Other(format!("setup: {} not found on the screen", element.describe())));
    };
    let (x, y) = ((x + offset.0).to_string(), (y + offset.1).to_string());
    xdotool(desktop, &["mousemove", "--sync", &x, &y, "click", "--repeat", "2", "--delay", "80", "1"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if dump(desktop, app).iter().any(|e| e["depth"] == 1 && e["name"] == opens) {
            settled(desktop, app);
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(HarnessError::Other(format!("setup: double-clicking {} opened no window {opens:?}", element.describe())))
}

/// Until two reads of `app` a moment apart place its elements alike (5 s at most): an app
/// still laying itself out moves under the open loop's pointer.
fn settled(desktop: &Desktop, app: &str) {
    let places = || dump(desktop, app).iter().map(|e| e["extents"].clone()).collect::<Vec<_>>();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut last = places();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        let now = places();
        if now == last && !now.is_empty() {
            return;
        }
        last = now;
    }
}

/// What pyatspi reads in `app`: one JSON object per element (role, name, states, extents,
/// text, value).
pub fn dump(desktop: &Desktop, app: &str) -> Vec<Value> {
    let out = desktop
        .command("timeout")
        .arg("60")
        .arg(crate::python())
        .arg(crate::fixture::a11y_driver_script())
        .args(["--app", app, "dump"])
        .output();
    let Ok(out) = out else { return Vec::new() };
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn perform(
    desktop: &Desktop,
    driver: &Driver,
    (corpus, pid): (CorpusApp, u32),
    step: &Step,
    before: &[Value],
    home: &Path,
) -> Reported {
    match driver {
        Driver::AgentCli { binary, verify } => {
            let app = corpus.accessible_name();
            let mut cmd = agent_cli(desktop, binary, home);
            let target = |cmd: &mut std::process::Command, s: &Sel| {
                cmd.args(["--role", s.role, "--index", &s.index.to_string(), "--app", app]);
                if !s.name.is_empty() {
                    cmd.args(["--name", &s.name]);
                }
                if let Some(window) = s.window {
                    cmd.args(["--window", window]);
                }
            };
            match &step.verb {
                Verb::Click(s) => {
                    cmd.arg("click");
                    target(&mut cmd, s);
                }
                Verb::Type(s, text) => {
                    cmd.arg("type");
                    target(&mut cmd, s);
                    cmd.args(["--text", text]);
                }
                Verb::SetValue(s, value) => {
                    cmd.arg("set-value");
                    target(&mut cmd, s);
                    cmd.args(["--value", value]);
                }
                Verb::Key(k) => {
                    cmd.args(["key", k]);
                }
            }
            cmd.arg("--json");
            if *verify {
                cmd.arg("--verify");
            }
            Reported::from_cli(cmd)
        }
        Driver::OpenLoop { sleep } => {
            let ok = open_loop(desktop, step, before, window_offset(desktop, corpus, pid, before));
            std::thread::sleep(*sleep);
            Reported { ok, exit: Some(if ok { 0 } else { 1 }), ..Reported::default() }
        }
        Driver::Peer { tool, .. } => {
            Reported { observed: format!("{tool} is not a driver of the unseen-apps run"), ..Reported::default() }
        }
    }
}

/// Where the app's window is on the screen, when its accessibility says (0, 0) for it and
/// the window manager says otherwise: GTK 4 gives positions relative to its window. A
/// script that clicks by coordinates learns this once; the baseline is given it. Other
/// toolkits give screen positions even for a window at (0, 0) (LibreOffice's maximised
/// one: moved by its title bar, every open-loop click landed a bar too low).
fn window_offset(desktop: &Desktop, app: CorpusApp, pid: u32, before: &[Value]) -> (i64, i64) {
    if !app.places_relative_to_window() {
        return (0, 0);
    }
    let frame = before.iter().find(|e| e["role"] == "frame").and_then(|e| e["extents"].as_array().cloned());
    if frame.is_none_or(|x| x.first().and_then(Value::as_i64) != Some(0) || x.get(1).and_then(Value::as_i64) != Some(0))
    {
        return (0, 0);
    }
    let pid = pid.to_string();
    let Ok(found) = desktop.command("xdotool").args(["search", "--onlyvisible", "--pid", &pid]).output() else {
        return (0, 0);
    };
    let found = String::from_utf8_lossy(&found.stdout);
    let Some(window) = found.lines().next() else { return (0, 0) };
    let Ok(out) = desktop.command("xdotool").args(["getwindowgeometry", "--shell", window]).output() else {
        return (0, 0);
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.trim().parse().ok());
    (field("X=").unwrap_or(0), field("Y=").unwrap_or(0))
}

/// The open loop: xdotool at the centre of the element's extents as pyatspi read them
/// just before, moved by `offset` (see [`window_offset`]).
fn open_loop(desktop: &Desktop, step: &Step, before: &[Value], offset: (i64, i64)) -> bool {
    let click = |s: &Sel| {
        let Some((x, y)) = judge::find(before, s).and_then(judge::centre) else { return false };
        let (x, y) = (x + offset.0, y + offset.1);
        let (x, y) = (x.to_string(), y.to_string());
        // Away first: `mousemove --sync` to where the pointer already is waits forever.
        xdotool(desktop, &["mousemove", "0", "0", "mousemove", "--sync", &x, &y, "click", "1"])
    };
    match &step.verb {
        Verb::Click(s) => click(s),
        Verb::Type(s, text) => click(s) && xdotool(desktop, &["type", "--delay", "20", text]),
        Verb::SetValue(s, value) => {
            click(s) && xdotool(desktop, &["key", "ctrl+a"]) && xdotool(desktop, &["type", "--delay", "20", value])
        }
        Verb::Key(k) => xdotool(desktop, &["key", k]),
    }
}

/// The verdicts counted per row, in table order.
const COLUMNS: [Verdict; 6] = [
    Verdict::Correct,
    Verdict::SilentFailure,
    Verdict::DoubleEffect,
    Verdict::FailedClearly,
    Verdict::FailedUnclear,
    Verdict::UnreportedEffect,
];

/// The table of `runs` (one row per app and driver) and the broken or failed actions.
pub fn markdown(runs: &[AppRun]) -> String {
    let mut out = String::from(
        "| app | driver | actions | right | silent | double | failed clearly | failed unclear | wrong error | harm | median ms | p95 ms |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in runs {
        let ms: Vec<f64> = r.records.iter().map(|x| x.elapsed.as_secs_f64() * 1000.0).collect();
        let counts: Vec<String> = COLUMNS.iter().map(|v| r.count(*v).to_string()).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.0} | {:.0} |",
            r.app.label(),
            r.driver,
            r.records.len(),
            counts.join(" | "),
            if r.harm.is_some() { "yes" } else { "0" },
            nearest_rank(&ms, 0.5),
            nearest_rank(&ms, 0.95)
        );
    }
    let mut notes = String::new();
    for r in runs {
        for rec in r.records.iter().filter(|x| x.verdict != Verdict::Correct) {
            let _ = writeln!(
                notes,
                "- {} ({}): {}: **{}**; seen by the independent client: {}{}",
                r.app.label(),
                r.driver,
                rec.action,
                rec.verdict.label(),
                rec.effect.describe(),
                if rec.observed.is_empty() { String::new() } else { format!("; the driver said: {}", rec.observed) }
            );
        }
        if let Some(h) = &r.harm {
            let _ = writeln!(notes, "- {} ({}): **harm**: {h}", r.app.label(), r.driver);
        }
    }
    if !notes.is_empty() {
        out.push_str("\nEvery action that did not end right:\n\n");
        out.push_str(&notes);
    }
    out
}
