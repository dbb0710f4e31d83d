//! The fault campaign: drive a desktop agent against the fixture app, one fault at a time
//! and in a mixed random run, and judge every action by the app's ground-truth log only.
//!
//! Two drivers are compared under the same conditions: agent-cli (with `--verify`), and the
//! open-loop baseline many agents use today (xdotool at the widget's centre, then a fixed
//! sleep, no verification). A driver's own report decides nothing but `reported_ok`; the
//! verdict comes from what the app logged after the action, once the fault's delay plus a
//! margin has passed, so a late second effect cannot hide.
//!
//! The same scenarios run on every port of the fixture app ([`Toolkit`], chosen in each
//! scenario's [`FixtureOptions`]); after each scenario the app must still be alive and
//! answering ([`FixtureApp::check_alive`]), or the report counts it crashed or frozen.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fixture::{Event, FixtureApp, FixtureOptions, Ready, Toolkit};
use crate::{Desktop, HarnessError};

/// How long after an action returns (on top of a fault's delay) late effects are awaited.
const SETTLE: Duration = Duration::from_millis(400);
/// The same for a web page, whose log lines travel over HTTP one after the other (a line
/// arriving after the judge read the log once made a typed name look like a silent failure).
const SETTLE_WEB: Duration = Duration::from_millis(1200);
/// How long an app has to answer the after-scenario accessibility read.
const ALIVE_LIMIT: Duration = Duration::from_secs(20);

/// A fault of FIXTURE-APP.md, as one run of the app has it.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// No fault.
    None,
    /// The first N pointer presses on the target are swallowed.
    DroppedClick(u32),
    /// The target's effect arrives this much later.
    Delayed(Duration),
    /// A modal popup covers the target on its first activation (not recoverable: the
    /// right answer is "blocked", with no effect).
    Popup,
    /// The target is recreated 60 px lower when first approached.
    Stale,
    /// The target entry ignores key events.
    IgnoredKeys,
    /// Focus jumps to `email` after the Nth key press on the target entry.
    FocusTheft(u32),
    /// The window appears this long after launch; the action is issued right at launch.
    SlowStart(Duration),
    /// A label beside the target counts up by itself every [`TICK`] (a clock, a playback
    /// position), and the first N pointer presses on the target are swallowed: the count's
    /// change after the input must never pass for its effect.
    ChangesByItself(u32),
    /// No fault in the app: the action tells it to quit (its effect is its exit).
    QuitsWhenTold,
    /// No fault in the app: the action is a key that opens a modal dialog (its effect is
    /// the dialog, never a blocker: VLC's ctrl+t, GIMP's shift+ctrl+e).
    DialogByKey,
    /// The target is a canvas that takes typed text and draws it, with no text for
    /// accessibility to read back (a terminal, jEdit's editor): typed once, never again.
    Unreadable,
    /// Each activation of the target rebuilds every control exactly as it was, the
    /// effect nowhere to be seen but in the log (a page that reloads to an identical
    /// page): new objects where the old ones were are the input's doing, never a sign that
    /// it did not land.
    Reloads,
    /// The target button is reported this many pixels to the right of where it is drawn,
    /// so that its reported centre lies on its neighbour (jEdit's menus reported a row off):
    /// the neighbour must never be clicked. Made by the GTK 3 app only.
    GeometryOff(i32),
}

/// How often the `ChangesByItself` label counts.
pub const TICK: Duration = Duration::from_millis(100);

impl Fault {
    /// A short name for tables.
    pub fn label(&self) -> &'static str {
        match self {
            Fault::None => "no fault",
            Fault::DroppedClick(_) => "dropped click",
            Fault::Delayed(_) => "delayed effect",
            Fault::Popup => "popup",
            Fault::Stale => "stale element",
            Fault::IgnoredKeys => "ignored keys",
            Fault::FocusTheft(_) => "focus theft",
            Fault::SlowStart(_) => "slow start",
            Fault::ChangesByItself(_) => "changes by itself",
            Fault::QuitsWhenTold => "quits when told",
            Fault::DialogByKey => "a dialog a key opens",
            Fault::Unreadable => "text that cannot be read back",
            Fault::Reloads => "reloads to an identical view",
            Fault::GeometryOff(_) => "geometry off by some pixels",
        }
    }

    /// Whether a correct agent should still achieve the effect.
    pub fn recoverable(&self) -> bool {
        *self != Fault::Popup
    }

    /// Whether `verdict` is how an action under this fault should end. A dropped press
    /// beside something that changes by itself is recovered only where the press could be
    /// watched and was seen not to arrive; elsewhere the input may have had its effect in
    /// what changes by itself, so the right end is a clear failure with no second input.
    pub fn ends_right(&self, verdict: Verdict) -> bool {
        match self {
            Fault::ChangesByItself(n) if *n > 0 => {
                matches!(verdict, Verdict::Recovered | Verdict::Correct | Verdict::FailedClearly)
            }
            f if f.recoverable() => matches!(verdict, Verdict::Correct | Verdict::Recovered),
            _ => verdict == Verdict::FailedClearly,
        }
    }

    /// The app's options for this fault on `target`.
    pub fn options(&self, target: &str, seed: u64) -> FixtureOptions {
        let mut o = FixtureOptions { seed, fault_target: Some(target.to_string()), ..FixtureOptions::default() };
        match self {
            Fault::None | Fault::QuitsWhenTold | Fault::DialogByKey => o.fault_target = None,
            Fault::DroppedClick(n) => o.drop_clicks = *n,
            Fault::Delayed(d) => o.delay = Some(*d),
            Fault::Popup => o.popup = true,
            Fault::Stale => o.stale = true,
            Fault::IgnoredKeys => o.ignore_keys = true,
            Fault::FocusTheft(n) => o.focus_theft = Some(*n),
            Fault::SlowStart(d) => o.slow_start = Some(*d),
            Fault::ChangesByItself(n) => {
                o.ticker = Some(TICK);
                o.drop_clicks = *n;
            }
            Fault::Unreadable => {
                o.fault_target = None;
                o.notes = true;
            }
            Fault::Reloads => o.reload = true,
            Fault::GeometryOff(px) => o.geometry_off = Some(*px),
        }
        o
    }

    /// Whether `toolkit`'s port of the fixture app can make this fault.
    pub fn made_by(&self, toolkit: Toolkit) -> bool {
        match self {
            Fault::GeometryOff(_) => toolkit == Toolkit::Gtk3,
            _ => true,
        }
    }

    fn delay(&self) -> Duration {
        match self {
            Fault::Delayed(d) => *d,
            _ => Duration::ZERO,
        }
    }
}

/// One action of the campaign. What the log must show follows from it:
/// a click on `hello` logs one `button_activated hello`, on `submit` one `order_submitted`,
/// on `subscribe` one `checkbox_toggled subscribe`; typing logs the text into the field once
/// and into no other field.
#[derive(Clone, Debug, PartialEq)]
pub enum CampaignAction {
    /// Click a widget by id: `hello`, `submit` or `subscribe`.
    Click {
        /// The widget id.
        widget: &'static str,
    },
    /// Type `text` into an entry by id: `name` or `email`.
    Type {
        /// The entry's id.
        field: &'static str,
        /// What to type.
        text: String,
    },
    /// Tell the app to quit: alt+F4 to its focused window (the window manager closes it,
    /// and the app exits). Its effect is the app's `exit` line; that the app is gone
    /// afterwards is no harm.
    Quit,
    /// F2, which every port answers with a modal dialog titled [`KEY_DIALOG`]. Its effect
    /// is one `dialog_opened` of that title.
    KeyOpensDialog,
}

/// The title of the dialog F2 opens in every port of the fixture app.
pub const KEY_DIALOG: &str = "Details";

impl CampaignAction {
    /// The agent-cli verb the action exercises.
    pub fn verb(&self) -> &'static str {
        match self {
            CampaignAction::Click { .. } => "click",
            CampaignAction::Type { .. } => "type",
            CampaignAction::Quit | CampaignAction::KeyOpensDialog => "key",
        }
    }

    /// The widget id the action is about.
    pub fn widget(&self) -> &'static str {
        match self {
            CampaignAction::Click { widget } => widget,
            CampaignAction::Type { field, .. } => field,
            CampaignAction::Quit | CampaignAction::KeyOpensDialog => "window",
        }
    }

    fn describe(&self) -> String {
        match self {
            CampaignAction::Click { widget } => format!("click {widget}"),
            CampaignAction::Type { field, text } => format!("type {text:?} into {field}"),
            CampaignAction::Quit => "alt+F4 (quit)".into(),
            CampaignAction::KeyOpensDialog => format!("F2 (opens {KEY_DIALOG:?})"),
        }
    }
}

/// The accessible name of a widget id.
pub fn accessible_name(widget: &str) -> &'static str {
    match widget {
        "hello" => "Hello",
        "submit" => "Submit order",
        "subscribe" => "Subscribe",
        "save" => "Save",
        "name" => "Name",
        "email" => "Email",
        "password" => "Password",
        "notes" => "Notes",
        other => panic!("the campaign has no accessible name for widget {other:?}"),
    }
}

/// One fresh app with a fault, and the actions run against it (the first one hits the fault).
#[derive(Clone, Debug)]
pub struct Scenario {
    /// A name for tables.
    pub name: String,
    /// The fault.
    pub fault: Fault,
    /// How the app is started.
    pub fixture: FixtureOptions,
    /// The actions, in order.
    pub steps: Vec<CampaignAction>,
}

impl Scenario {
    /// A scenario of one action with `fault` on the action's widget.
    pub fn single(name: &str, fault: Fault, step: CampaignAction) -> Scenario {
        let fixture = fault.options(step.widget(), 0);
        Scenario { name: name.to_string(), fault, fixture, steps: vec![step] }
    }

    /// The same scenario on another port of the fixture app.
    pub fn on(mut self, toolkit: Toolkit) -> Scenario {
        self.fixture.toolkit = toolkit;
        self
    }
}

/// `scenarios`, each on `toolkit`'s port. With `DEFT_CAMPAIGN_ONLY=TEXT` in the
/// environment, only those whose name contains TEXT (to work on one fault).
pub fn on_toolkit(scenarios: Vec<Scenario>, toolkit: Toolkit) -> Vec<Scenario> {
    let only = std::env::var("DEFT_CAMPAIGN_ONLY").unwrap_or_default();
    scenarios
        .into_iter()
        .filter(|s| s.name.contains(&only) && s.fault.made_by(toolkit))
        .map(|s| s.on(toolkit))
        .collect()
}

/// `scenarios` with their apps started as clients of a Wayland compositor (`env`:
/// `Sway::client_env`); agent-cli then acts in that session too. The popup fault is left
/// out: it covers the target by placing its dialog there, and a Wayland client cannot
/// place a window (the compositor does: sway centres it), so its dialog opens away from the
/// target like any dialog a button opens, which is the button's own effect by the rule
/// (docs/VERIFICATION.md).
pub fn on_wayland(scenarios: Vec<Scenario>, env: &[(String, String)]) -> Vec<Scenario> {
    scenarios
        .into_iter()
        .filter(|s| s.fault != Fault::Popup)
        .map(|mut s| {
            s.fixture.env.extend(env.iter().cloned());
            s
        })
        .collect()
}

/// Every fault of FIXTURE-APP.md, on clicks and on typing.
pub fn fault_scenarios() -> Vec<Scenario> {
    let click = |widget| CampaignAction::Click { widget };
    let typ = |field, text: &str| CampaignAction::Type { field, text: text.to_string() };
    let ms = Duration::from_millis;
    vec![
        Scenario::single("no fault: click Submit order", Fault::None, click("submit")),
        Scenario::single("no fault: type Name", Fault::None, typ("name", "Ada Lovelace")),
        Scenario::single("dropped click (1) on Submit order", Fault::DroppedClick(1), click("submit")),
        Scenario::single("dropped clicks (2) on Subscribe", Fault::DroppedClick(2), click("subscribe")),
        Scenario::single("delayed effect (1000 ms) on Submit order", Fault::Delayed(ms(1000)), click("submit")),
        Scenario::single("delayed effect (600 ms) on Subscribe", Fault::Delayed(ms(600)), click("subscribe")),
        Scenario::single("popup over Submit order", Fault::Popup, click("submit")),
        Scenario::single("stale Submit order", Fault::Stale, click("submit")),
        Scenario::single("stale Hello", Fault::Stale, click("hello")),
        Scenario::single("ignored keys in Name", Fault::IgnoredKeys, typ("name", "Ada Lovelace")),
        Scenario::single("focus theft after 2 keys in Name", Fault::FocusTheft(2), typ("name", "Ada Lovelace")),
        Scenario::single("slow start (2000 ms), click Submit order", Fault::SlowStart(ms(2000)), click("submit")),
        Scenario::single("a counter ticking beside Submit order", Fault::ChangesByItself(0), click("submit")),
        Scenario::single("told to quit (alt+F4)", Fault::QuitsWhenTold, CampaignAction::Quit),
        Scenario::single("a dialog F2 opens", Fault::DialogByKey, CampaignAction::KeyOpensDialog),
        Scenario::single("type into Notes, which cannot be read back", Fault::Unreadable, typ("notes", "ls -l")),
        Scenario::single("Hello reloads to an identical view", Fault::Reloads, click("hello")),
        // Hello reported 140 px right: exactly where "Submit order" is drawn.
        Scenario::single("Hello reported on Submit order's place", Fault::GeometryOff(140), click("hello")),
        Scenario::single(
            "a counter ticking beside Hello, its first press dropped",
            Fault::ChangesByItself(1),
            click("hello"),
        ),
        // The second click changes nothing that shows ("Clicked Hello" already): it must
        // land once, and no fallback may press again. With the third press dropped, the
        // fallback must make it good exactly once.
        Scenario {
            name: "no fault: Hello twice (no visible change the second time)".into(),
            fault: Fault::None,
            fixture: FixtureOptions::default(),
            steps: vec![click("hello"), click("hello")],
        },
    ]
}

/// A tiny deterministic random generator (xorshift64*), so the mixed run is reproducible.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// Seeded; a zero seed is replaced (xorshift has no zero state).
    pub fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The mixed random run: batches of one fault (drawn with `seed`) on a fresh app, the
/// first action hitting the fault and up to 7 more random actions on the same app, until
/// at least `min_actions` actions. The same seed gives the same run.
pub fn mixed_scenarios(seed: u64, min_actions: usize) -> Vec<Scenario> {
    let mut rng = XorShift::new(seed);
    let mut out = Vec::new();
    let mut total = 0;
    let mut word = 0;
    let mut text = |rng: &mut XorShift| {
        word += 1;
        let stems = ["alpha", "bravo", "delta", "kilo", "oscar", "tango"];
        format!("{}{word}", stems[rng.below(stems.len() as u64) as usize])
    };
    let random_click =
        |rng: &mut XorShift| CampaignAction::Click { widget: ["hello", "submit", "subscribe"][rng.below(3) as usize] };
    while total < min_actions {
        let batch = out.len();
        let fault = match rng.below(10) {
            0..=2 => Fault::None,
            3 => Fault::DroppedClick(1 + rng.below(2) as u32),
            4 => Fault::Delayed(Duration::from_millis(200 + 100 * rng.below(9))),
            5 => Fault::Popup,
            6 => Fault::Stale,
            7 => Fault::IgnoredKeys,
            8 => Fault::FocusTheft(1 + rng.below(3) as u32),
            _ => Fault::SlowStart(Duration::from_millis(500 + 250 * rng.below(7))),
        };
        let key_fault = matches!(fault, Fault::IgnoredKeys | Fault::FocusTheft(_));
        let first = if key_fault || (fault == Fault::None && rng.below(3) == 0) {
            CampaignAction::Type { field: ["name", "email"][rng.below(2) as usize], text: text(&mut rng) }
        } else {
            random_click(&mut rng)
        };
        let mut steps = vec![first];
        // A popup stays up (agent-cli reports it, it does not dismiss it): one action only.
        let more = if fault == Fault::Popup { 0 } else { 2 + rng.below(6) as usize };
        for _ in 0..more {
            let step = if rng.below(3) == 0 {
                CampaignAction::Type { field: ["name", "email"][rng.below(2) as usize], text: text(&mut rng) }
            } else {
                random_click(&mut rng)
            };
            steps.push(step);
        }
        total += steps.len();
        let fixture = fault.options(steps[0].widget(), batch as u64);
        out.push(Scenario { name: format!("mixed batch {batch}: {}", fault.label()), fault, fixture, steps });
    }
    out
}

/// Who performs the actions.
#[derive(Clone, Debug)]
pub enum Driver {
    /// agent-cli, by path; `verify` adds `--verify`.
    AgentCli {
        /// The binary.
        binary: PathBuf,
        /// Whether to pass `--verify`.
        verify: bool,
    },
    /// xdotool at the widget's centre (from the app's `ready` bounds), typing after a click
    /// on the field, then a fixed sleep; no verification. On a slow start it waits the same
    /// fixed sleep after launch and clicks where the widget was on an earlier launch.
    OpenLoop {
        /// The fixed sleep after each action.
        sleep: Duration,
    },
    /// Another tool, through its MCP server (`cargo xtask bench peers`); needs the app's
    /// pid, so it meets no slow start.
    Peer {
        /// What `tests/peers/peer_call.py` calls it: `deft`, `cua-driver`, `computer-use-linux`.
        tool: &'static str,
        /// Its binary.
        server: PathBuf,
    },
}

impl Driver {
    /// A name for tables.
    pub fn label(&self) -> String {
        match self {
            Driver::AgentCli { verify: true, .. } => "agent-cli --verify".into(),
            Driver::AgentCli { verify: false, .. } => "agent-cli".into(),
            Driver::OpenLoop { sleep } => format!("open loop (xdotool + {} ms sleep)", sleep.as_millis()),
            Driver::Peer { tool, .. } => format!("{tool} (MCP)"),
        }
    }

    /// Performs `action`; `wait` is how long agent-cli may wait for its target to appear;
    /// `app_env` is the environment the app was started with: agent-cli acts in the
    /// session the app runs in (a Wayland compositor's, when it names one).
    fn perform(
        &self,
        desktop: &Desktop,
        action: &CampaignAction,
        layout: &Ready,
        home: &std::path::Path,
        wait: Option<Duration>,
        app_env: &[(String, String)],
    ) -> Reported {
        match self {
            Driver::Peer { tool, server } => crate::peer::perform(desktop, (tool, server), action, layout.pid, home),
            Driver::AgentCli { binary, verify } => {
                let mut cmd = agent_cli(desktop, binary, home);
                crate::wayland::in_session(&mut cmd, app_env);
                match action {
                    CampaignAction::Click { widget } => {
                        cmd.args(["click", "--name", accessible_name(widget)]);
                    }
                    CampaignAction::Type { field, text } => {
                        cmd.args(["type", "--target", accessible_name(field), "--text", text]);
                    }
                    CampaignAction::Quit => {
                        cmd.args(["key", "alt+F4"]);
                    }
                    CampaignAction::KeyOpensDialog => {
                        cmd.args(["key", "F2"]);
                    }
                }
                // No `--app`: the fixture is the only app on the desktop.
                cmd.arg("--json");
                if *verify {
                    cmd.arg("--verify");
                }
                if let Some(wait) = wait {
                    cmd.args(["--timeout", &wait.as_millis().to_string()]);
                }
                Reported::from_cli(cmd)
            }
            Driver::OpenLoop { sleep } if matches!(action, CampaignAction::Quit | CampaignAction::KeyOpensDialog) => {
                let key = if *action == CampaignAction::Quit { "alt+F4" } else { "F2" };
                let ok = xdotool(desktop, &["key", key]);
                std::thread::sleep(*sleep);
                Reported { ok, exit: Some(if ok { 0 } else { 1 }), ..Reported::default() }
            }
            Driver::OpenLoop { sleep } => {
                let (x, y) = layout.widget(action.widget()).center();
                // Away first: `mousemove --sync` to where the pointer already is waits forever.
                let (x, y) = (x.to_string(), y.to_string());
                let mut ok = xdotool(desktop, &["mousemove", "0", "0", "mousemove", "--sync", &x, &y, "click", "1"]);
                if let CampaignAction::Type { text, .. } = action {
                    ok = ok && xdotool(desktop, &["type", "--delay", "20", text]);
                }
                std::thread::sleep(*sleep);
                Reported {
                    ok,
                    exit: Some(if ok { 0 } else { 1 }),
                    clear: false,
                    expected: String::new(),
                    observed: String::new(),
                    retried: false,
                    seen: String::new(),
                    call_time: None,
                }
            }
        }
    }
}

/// agent-cli on `desktop` with its settings in `home` and none of the caller's `DEFT_`
/// variables (but `DEFT_FAULTS_TRACE=DIR`: every action records its trace and frames there,
/// what the trace-size benchmark measures).
pub(crate) fn agent_cli(desktop: &Desktop, binary: &std::path::Path, home: &std::path::Path) -> Command {
    let mut cmd = desktop.command(binary);
    for (k, _) in std::env::vars() {
        if k.starts_with("DEFT_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("XDG_CONFIG_HOME", home);
    if let Some(dir) = std::env::var_os("DEFT_FAULTS_TRACE") {
        cmd.env("DEFT_TRACE", dir);
    }
    cmd
}

pub(crate) fn xdotool(desktop: &Desktop, args: &[&str]) -> bool {
    desktop.command("timeout").arg("30").arg("xdotool").args(args).output().is_ok_and(|o| o.status.success())
}

/// What the driver said about one action.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reported {
    pub(crate) ok: bool,
    pub(crate) exit: Option<i32>,
    /// A failure that says what was expected and what was observed (or what blocks).
    pub(crate) clear: bool,
    pub(crate) expected: String,
    pub(crate) observed: String,
    pub(crate) retried: bool,
    /// What agent-cli said it saw (`verified`, `received`, `unverifiable`, ...); a peer's
    /// claim (`verified`, `sent`, `failed`).
    pub(crate) seen: String,
    /// The tool's own time for the call, where the driver measures it (a peer's MCP call).
    pub(crate) call_time: Option<Duration>,
}

impl Reported {
    pub(crate) fn from_cli(mut cmd: Command) -> Reported {
        let out = match cmd.output() {
            Ok(out) => out,
            Err(e) => return Reported { observed: format!("could not run agent-cli: {e}"), ..Reported::default() },
        };
        let code = out.status.code();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let text = |v: &Value| match v {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut expected = text(&v["expected"]);
        let mut observed = text(&v["observed"]);
        if !v["blocking"].is_null() && observed.is_empty() {
            observed = format!("blocked by {}", text(&v["blocking"]));
        }
        if let Some(msg) = v["error"]["message"].as_str() {
            if expected.is_empty() {
                expected = "the action to run".into();
            }
            observed = msg.to_string();
        }
        let ok = code == Some(0) && v["ok"].as_bool() == Some(true);
        let clear = !ok && !expected.is_empty() && !observed.is_empty();
        if v.is_null() {
            observed = format!("no JSON on stdout; stderr: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        let seen = text(&v["seen"]);
        let retried = v["retried"].as_bool().unwrap_or(false);
        Reported { ok, exit: code, clear, expected, observed, retried, seen, call_time: None }
    }
}

/// How one action ended, judged by the app's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Reported ok, the effect logged once, no fault fired.
    Correct,
    /// Reported ok, the effect logged once, although a fault fired.
    Recovered,
    /// Reported ok, no effect logged (or the wrong one).
    SilentFailure,
    /// The intended effect logged more than once (two orders for one click).
    DoubleEffect,
    /// Reported ok, the intended effect logged once, but something also landed elsewhere
    /// (text in another field).
    StrayEffect,
    /// Reported a failure saying what was expected and what was observed; no effect.
    FailedClearly,
    /// Reported a failure without expected and observed; no effect.
    FailedUnclear,
    /// Reported a failure, but the effect was logged once.
    UnreportedEffect,
}

impl Verdict {
    /// All, in table order.
    pub const ALL: [Verdict; 8] = [
        Verdict::Correct,
        Verdict::Recovered,
        Verdict::SilentFailure,
        Verdict::DoubleEffect,
        Verdict::StrayEffect,
        Verdict::FailedClearly,
        Verdict::FailedUnclear,
        Verdict::UnreportedEffect,
    ];

    /// A short name for tables.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Recovered => "recovered",
            Verdict::SilentFailure => "silent failure",
            Verdict::DoubleEffect => "double effect",
            Verdict::StrayEffect => "stray effect",
            Verdict::FailedClearly => "failed clearly",
            Verdict::FailedUnclear => "failed unclear",
            Verdict::UnreportedEffect => "unreported effect",
        }
    }
}

/// One judged action.
#[derive(Clone, Debug)]
pub struct ActionRecord {
    /// The scenario's name.
    pub scenario: String,
    /// The scenario's fault.
    pub fault: Fault,
    /// What was done.
    pub action: String,
    /// The verb it exercises: `click`, `type` or `key` (the tool it is a call of).
    pub verb: &'static str,
    /// Whether the fault lets a correct agent achieve the effect.
    pub recoverable: bool,
    /// What the driver reported.
    pub reported_ok: bool,
    /// The driver's exit code.
    pub exit_code: Option<i32>,
    /// Whether the driver said it retried.
    pub retried: bool,
    /// How many intended effects the log shows for this action.
    pub logged_effects: usize,
    /// Whether an effect landed somewhere else (another field) and stayed.
    pub stray_effect: bool,
    /// Whether keys reached another field but it ended showing what it showed before.
    pub stray_undone: bool,
    /// Whether the log shows an injected fault during the action.
    pub fault_fired: bool,
    /// The verdict.
    pub verdict: Verdict,
    /// Wall time of the action (the driver's, settling excluded); for a peer, its own call.
    pub elapsed: Duration,
    /// What the driver said it saw: agent-cli's `seen`, a peer's `verified`/`sent`/`failed`.
    pub claim: String,
    /// What the driver said it expected (failures).
    pub expected: String,
    /// What the driver said it observed (failures).
    pub observed: String,
}

/// Every judged action of one driver.
#[derive(Clone, Debug)]
pub struct Report {
    /// The driver's label.
    pub driver: String,
    /// The port the scenarios ran on (the first scenario's).
    pub toolkit: Toolkit,
    /// The actions, in order.
    pub records: Vec<ActionRecord>,
    /// Every app launched, by scenario: `None` when it was alive and answering after the
    /// scenario, else what was wrong.
    pub apps: Vec<(String, Option<String>)>,
}

/// Run `scenarios` with `driver`, each on a fresh fixture app on `desktop`.
pub fn run(desktop: &Desktop, scenarios: &[Scenario], driver: &Driver) -> Result<Report, HarnessError> {
    let home = desktop.scratch_dir().join("campaign-home");
    std::fs::create_dir_all(&home)
        .map_err(|source| HarnessError::Io { context: format!("creating {}", home.display()), source })?;
    let mut layout: Option<(Toolkit, Ready)> = None;
    let mut records = Vec::new();
    let mut apps = Vec::new();
    for sc in scenarios {
        let toolkit = sc.fixture.toolkit;
        let (app, first) = if let Fault::SlowStart(_) = sc.fault {
            let known = match &layout {
                Some((t, l)) if *t == toolkit => l.clone(),
                _ => {
                    let probe = FixtureApp::launch(desktop, &FixtureOptions { toolkit, ..FixtureOptions::default() })?;
                    probe.ready().clone()
                }
            };
            // The action starts with the launch: the app is not there yet.
            let started = Instant::now();
            let (step, home) = (&sc.steps[0], &home);
            std::thread::scope(|s| -> Result<_, HarnessError> {
                let worker = s.spawn(move || {
                    if let Driver::OpenLoop { sleep } = driver {
                        std::thread::sleep(*sleep);
                    }
                    // The app may take as long to come as the harness gives it (a browser's
                    // cold start while other tests load both cores took more than the
                    // default 10 s wait for a target in CI): a user launching a slow app
                    // gives the first action as long.
                    let r =
                        driver.perform(desktop, step, &known, home, Some(sc.fixture.ready_limit()), &sc.fixture.env);
                    (r, started.elapsed())
                });
                let app = FixtureApp::launch(desktop, &sc.fixture);
                let (reported, elapsed) = worker.join().expect("driver thread panicked");
                Ok((app?, Some((reported, elapsed))))
            })?
        } else {
            (FixtureApp::launch(desktop, &sc.fixture)?, None)
        };
        if layout.as_ref().is_none_or(|(t, _)| *t != toolkit) {
            layout = Some((toolkit, app.ready().clone()));
        }
        let mut first = first;
        for (i, step) in sc.steps.iter().enumerate() {
            let before = if i == 0 && first.is_some() { 0 } else { app.events().len() };
            let (reported, elapsed) = match first.take() {
                Some(done) => done,
                None => {
                    let started = Instant::now();
                    let r = driver.perform(desktop, step, app.ready(), &home, None, &sc.fixture.env);
                    (r, started.elapsed())
                }
            };
            let settle = if toolkit.is_web() { SETTLE_WEB } else { SETTLE };
            std::thread::sleep(sc.fault.delay() + settle);
            // An app told to quit may take its time to be gone (a browser under load: its
            // page emptied at once, the process gone seconds later); its exit is logged once,
            // so waiting for it hides nothing doubled.
            let quitting = *step == CampaignAction::Quit;
            let until = Instant::now() + ALIVE_LIMIT;
            while quitting && !app.events()[before..].iter().any(|e| e.kind == "exit") && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(100));
            }
            let events = app.events();
            // A slow start is met by the first action only: it is issued with the launch.
            let slow_start = i == 0 && matches!(sc.fault, Fault::SlowStart(_));
            records.push(judge(sc, step, &events[..before], &events[before..], reported, elapsed, slow_start));
        }
        // An app told to quit is not harmed by being gone: it must have exited.
        let told_to_quit = sc.steps.contains(&CampaignAction::Quit);
        let state = if told_to_quit {
            app.check_exited(ALIVE_LIMIT).err()
        } else {
            app.check_alive(desktop, ALIVE_LIMIT).err()
        };
        apps.push((sc.name.clone(), state));
        drop(app);
    }
    let toolkit = scenarios.first().map(|s| s.fixture.toolkit).unwrap_or_default();
    Ok(Report { driver: driver.label(), toolkit, records, apps })
}

fn judge(
    sc: &Scenario,
    step: &CampaignAction,
    before: &[Event],
    during: &[Event],
    reported: Reported,
    elapsed: Duration,
    slow_start: bool,
) -> ActionRecord {
    let fault_fired = slow_start || during.iter().any(|e| e.kind == "fault");
    let mut touched = false;
    let (effects, stray) = match step {
        CampaignAction::Click { widget } => {
            let n = match *widget {
                "submit" => during.iter().filter(|e| e.kind == "order_submitted").count(),
                "subscribe" => during.iter().filter(|e| e.is("checkbox_toggled", Some("subscribe"))).count(),
                w => during.iter().filter(|e| e.is("button_activated", Some(w))).count(),
            };
            // Another control activated: the click landed on a neighbour.
            let other = |e: &Event| {
                matches!(e.kind.as_str(), "button_activated" | "checkbox_toggled")
                    && e.widget.as_deref() != Some(*widget)
            };
            (n, during.iter().any(other))
        }
        CampaignAction::Quit => (during.iter().filter(|e| e.kind == "exit").count(), false),
        CampaignAction::KeyOpensDialog => {
            let opened = |e: &&Event| e.kind == "dialog_opened" && e.str("title") == Some(KEY_DIALOG);
            (during.iter().filter(opened).count(), false)
        }
        CampaignAction::Type { field, text } => {
            let value = |evs: &[Event], f: &str| {
                evs.iter()
                    .rev()
                    .find(|e| e.is("text_changed", Some(f)))
                    .and_then(|e| e.str("value"))
                    .map(str::to_string)
            };
            let old = value(before, field).unwrap_or_default();
            let new = value(during, field).unwrap_or_else(|| old.clone());
            let n = new.matches(text.as_str()).count().saturating_sub(old.matches(text.as_str()).count());
            // Another field the keys reached: a stray effect when it ends the action
            // showing something else than before it (keys taken back do not count, but
            // are counted apart).
            let mut others: Vec<&str> = during
                .iter()
                .filter(|e| e.kind == "text_changed" && e.widget.as_deref() != Some(field))
                .filter_map(|e| e.widget.as_deref())
                .collect();
            others.sort_unstable();
            others.dedup();
            let left = |w: &str| value(during, w) != Some(value(before, w).unwrap_or_default());
            touched = !others.is_empty();
            (n, others.iter().any(|w| left(w)))
        }
    };
    let verdict = match (reported.ok, effects) {
        (_, n) if n > 1 => Verdict::DoubleEffect,
        (true, 0) => Verdict::SilentFailure,
        (true, _) if stray => Verdict::StrayEffect,
        (true, _) if fault_fired => Verdict::Recovered,
        (true, _) => Verdict::Correct,
        (false, 0) if reported.clear && !stray => Verdict::FailedClearly,
        (false, 0) => Verdict::FailedUnclear,
        (false, _) => Verdict::UnreportedEffect,
    };
    // A failure that left text in another field is not "clear": the effect it reports is
    // not the whole story.
    let verdict = match verdict {
        Verdict::FailedUnclear if reported.clear && stray => Verdict::UnreportedEffect,
        v => v,
    };
    ActionRecord {
        scenario: sc.name.clone(),
        fault: sc.fault.clone(),
        action: step.describe(),
        verb: step.verb(),
        recoverable: sc.fault.recoverable(),
        reported_ok: reported.ok,
        exit_code: reported.exit,
        retried: reported.retried,
        logged_effects: effects,
        stray_effect: stray,
        stray_undone: touched && !stray,
        fault_fired,
        verdict,
        elapsed: reported.call_time.unwrap_or(elapsed),
        claim: reported.seen,
        expected: reported.expected,
        observed: reported.observed,
    }
}

/// The `q` quantile (nearest rank) of durations, in ms.
fn quantile(v: Vec<Duration>, q: f64) -> f64 {
    let ms: Vec<f64> = v.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    nearest_rank(&ms, q)
}

/// The `q` quantile (nearest rank) of `samples`, 0 when there are none: the one rule the
/// benchmarks quote medians and p95s by.
pub fn nearest_rank(samples: &[f64], q: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

impl Report {
    /// How many actions got `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.records.iter().filter(|r| r.verdict == verdict).count()
    }

    /// Silent failures.
    pub fn silent_failures(&self) -> usize {
        self.count(Verdict::SilentFailure)
    }

    /// Double effects.
    pub fn double_effects(&self) -> usize {
        self.count(Verdict::DoubleEffect)
    }

    /// Stray effects (ok, but text also landed in another field).
    pub fn stray_effects(&self) -> usize {
        self.count(Verdict::StrayEffect)
    }

    /// Of the actions where a recoverable fault fired: (recovered, all).
    pub fn recovery(&self) -> (usize, usize) {
        let hit: Vec<_> = self.records.iter().filter(|r| r.recoverable && r.fault_fired).collect();
        (hit.iter().filter(|r| r.verdict == Verdict::Recovered).count(), hit.len())
    }

    /// Actions that did not end as they should ([`Fault::ends_right`]): recoverable ones
    /// not ok, non-recoverable ones not failed clearly.
    pub fn unrecovered(&self) -> Vec<&ActionRecord> {
        self.records.iter().filter(|r| !r.fault.ends_right(r.verdict)).collect()
    }

    /// Apps that were not alive and answering after their scenario: (scenario, what).
    pub fn crashed_or_frozen(&self) -> Vec<(&str, &str)> {
        self.apps.iter().filter_map(|(sc, err)| Some((sc.as_str(), err.as_deref()?))).collect()
    }

    /// Median time per action, ms.
    pub fn median_ms(&self) -> f64 {
        quantile(self.records.iter().map(|r| r.elapsed).collect(), 0.5)
    }

    /// 95th percentile time per action, ms.
    pub fn p95_ms(&self) -> f64 {
        quantile(self.records.iter().map(|r| r.elapsed).collect(), 0.95)
    }

    /// A Markdown table, one row per fault kind and a total row.
    pub fn markdown(&self) -> String {
        let mut out = format!("**{}**\n\n", self.driver);
        out.push_str("| fault | actions |");
        for v in Verdict::ALL {
            let _ = write!(out, " {} |", v.label());
        }
        out.push_str(" median ms | p95 ms |\n|---|---:|");
        for _ in Verdict::ALL {
            out.push_str("---:|");
        }
        out.push_str("---:|---:|\n");
        let mut labels: Vec<&'static str> = Vec::new();
        for r in &self.records {
            if !labels.contains(&r.fault.label()) {
                labels.push(r.fault.label());
            }
        }
        let row = |out: &mut String, name: &str, rs: Vec<&ActionRecord>| {
            let _ = write!(out, "| {name} | {} |", rs.len());
            for v in Verdict::ALL {
                let _ = write!(out, " {} |", rs.iter().filter(|r| r.verdict == v).count());
            }
            let times: Vec<Duration> = rs.iter().map(|r| r.elapsed).collect();
            let _ = writeln!(out, " {:.0} | {:.0} |", quantile(times.clone(), 0.5), quantile(times, 0.95));
        };
        for label in labels {
            row(&mut out, label, self.records.iter().filter(|r| r.fault.label() == label).collect());
        }
        row(&mut out, "**all**", self.records.iter().collect());
        let (rec, hit) = self.recovery();
        let _ = writeln!(
            out,
            "\nsilent failures: {}, double effects: {}, stray effects: {} (and {} taken back before the action returned), \
             recoverable faults recovered: {rec}/{hit}, apps crashed or frozen: {}/{}",
            self.silent_failures(),
            self.double_effects(),
            self.stray_effects(),
            self.records.iter().filter(|r| r.stray_undone).count(),
            self.crashed_or_frozen().len(),
            self.apps.len()
        );
        out
    }

    /// Every action that did not end as it should, with expected vs observed, and every
    /// app that crashed or froze.
    pub fn failures_markdown(&self) -> String {
        let mut out = String::new();
        for (scenario, what) in self.crashed_or_frozen() {
            let _ = writeln!(out, "- {scenario}: the app crashed or froze: {what}");
        }
        for r in self.unrecovered() {
            let _ = writeln!(
                out,
                "- {} — {}: {} (exit {:?}, effects logged {}); expected: {}; observed: {}",
                r.scenario,
                r.action,
                r.verdict.label(),
                r.exit_code,
                r.logged_effects,
                if r.expected.is_empty() { "-" } else { &r.expected },
                if r.observed.is_empty() { "-" } else { &r.observed },
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_run_is_deterministic_and_long_enough() {
        let a = mixed_scenarios(42, 200);
        let b = mixed_scenarios(42, 200);
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(&b).all(|(x, y)| x.steps == y.steps && x.fault == y.fault));
        assert!(a.iter().map(|s| s.steps.len()).sum::<usize>() >= 200);
        assert!(a.iter().filter(|s| s.fault == Fault::Popup).all(|s| s.steps.len() == 1));
    }

    #[test]
    fn quantiles() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(quantile(v.clone(), 0.5), 50.0);
        assert_eq!(quantile(v, 0.95), 95.0);
        assert_eq!(quantile(Vec::new(), 0.5), 0.0);
    }
}
