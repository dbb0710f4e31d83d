//! What this desktop lets Deft do, part by part, and what to do about each gap: the
//! session, input, capture, window geometry, the accessibility bus, and every application
//! (on the bus with its toolkit, or showing a window while absent from the bus).
//!
//! Connects each part the way [`Desktop::connect`] does, so what the diagnosis says is what
//! an action would meet; sends no input.

use deft_a11y::Accessibility;
use deft_input::{WindowQuery, X11Windows};
use serde::Serialize;

use crate::desktop::{Desktop, DesktopConfig, Session};
use crate::distro::{Distro, Need};

/// One part of the desktop: whether Deft can use it, what it found, and the fix when not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PartCheck {
    /// `session`, `input`, `capture`, `window geometry`, `accessibility bus`.
    pub part: String,
    /// Whether Deft can use it.
    pub ok: bool,
    /// What was found (the backend, the compositor, the error).
    pub detail: String,
    /// What to do when it is not usable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// One application Deft could drive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct AppCheck {
    /// Its name on the accessibility bus, or its window's title when it is not on the bus.
    pub name: String,
    /// Its process, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Its toolkit as it names itself (`GTK`, `Qt`, `Gecko`, `Chromium`), when on the bus.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toolkit: Option<String>,
    /// Whether its elements can be read (on the bus and answering).
    pub readable: bool,
    /// What is wrong, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// The whole diagnosis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Diagnosis {
    /// Every part, in the order an action needs them.
    pub parts: Vec<PartCheck>,
    /// The applications: those on the accessibility bus, then windows of processes absent
    /// from it.
    pub applications: Vec<AppCheck>,
}

impl Diagnosis {
    /// Whether every part is usable (applications aside).
    pub fn all_ok(&self) -> bool {
        self.parts.iter().all(|p| p.ok)
    }

    /// The diagnosis in lines a person (or a model) reads: each part, then each
    /// application, every gap followed by its fix.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.parts {
            out.push_str(&format!("{:<18} {}  {}\n", p.part, if p.ok { "ok  " } else { "FAIL" }, p.detail));
            if let Some(fix) = &p.fix {
                out.push_str(&format!("{:<18}       fix: {fix}\n", ""));
            }
        }
        if !self.applications.is_empty() {
            out.push_str("applications\n");
        }
        for a in &self.applications {
            let mut about: Vec<String> = a.pid.iter().map(|p| format!("pid {p}")).collect();
            about.extend(a.toolkit.clone());
            let about = if about.is_empty() { String::new() } else { format!(" ({})", about.join(", ")) };
            let state = if a.readable { "readable".to_string() } else { a.problem.clone().unwrap_or_default() };
            out.push_str(&format!("  {}{about}: {state}\n", a.name));
            if let Some(fix) = &a.fix {
                out.push_str(&format!("    fix: {fix}\n"));
            }
        }
        out
    }
}

/// How to start an X server when there is none, in one place for every part that needs one.
/// Start a headless X server, with how to install it on this distribution.
fn start_x() -> String {
    format!(
        "start a headless X server (`Xvfb :99 -screen 0 1280x800x24 &`, then `export DISPLAY=:99`; \
         Xvfb on {}: {}), or run inside the desktop session",
        Distro::here().name,
        Distro::here().install(Need::Xvfb)
    )
}

/// A part's check from what connecting it gave: its detail, or what went wrong and the
/// fix (none when another line's fix covers it).
fn part(part: &str, result: Result<String, (String, String)>) -> PartCheck {
    match result {
        Ok(detail) => PartCheck { part: part.into(), ok: true, detail, fix: None },
        Err((detail, fix)) => {
            let fix = (!fix.is_empty()).then_some(fix);
            PartCheck { part: part.into(), ok: false, detail, fix }
        }
    }
}

impl Desktop {
    /// What `config`'s desktop lets Deft do, part by part. Never fails: a part that cannot
    /// be connected is a finding.
    pub async fn diagnose(config: &DesktopConfig) -> Diagnosis {
        let session = Session::probe(config);
        let mut parts = vec![part("session", session_words(&session))];
        // Input, capture and geometry need a session Deft acts on; without one, the
        // session's line says why once.
        let acting = match parts[0].ok {
            true => Ok(()),
            false => Err(("not on this session (see the session's line)".to_string(), String::new())),
        };
        // What to do about a part the session lacks: on Wayland, run the app under X11.
        let fix = match &session {
            Session::Wayland(_) => crate::desktop::UNDER_X11.to_string(),
            _ => start_x(),
        };
        let input =
            acting.clone().and_then(|()| Desktop::input_words_in(&session, config).map_err(|e| (e, fix.to_string())));
        parts.push(part("input", input));
        let capture = acting.clone().and_then(|()| {
            Desktop::capture_in(&session, config)
                .map(|c| c.backend_name().to_string())
                .map_err(|e| (e.to_string(), fix.clone()))
        });
        parts.push(part("capture", capture));
        let windows =
            acting.and_then(|()| Desktop::windows_in(&session, config).map_err(|e| (e.to_string(), fix.clone())));
        let listed = windows.as_ref().ok().and_then(|w| w.windows(&WindowQuery::default()).ok());
        let source = match crate::desktop::views_in(&session, config) {
            Some(views) => views.name(),
            None => "the X server",
        };
        let geometry = match (&windows, &listed) {
            (Ok(_), Some(l)) => Ok(format!("{} top-level windows ({source})", l.len())),
            (Ok(_), None) => Err(("the window list could not be read".into(), start_x())),
            (Err(e), _) => Err(e.clone()),
        };
        parts.push(part("window geometry", geometry));
        let mut applications = Vec::new();
        match Desktop::accessibility_in(&session, config).await {
            Ok(a11y) => match a11y.applications().await {
                Ok(apps) => {
                    parts.push(part("accessibility bus", Ok(format!("{} applications on it", apps.len()))));
                    for app in &apps {
                        applications.push(app_check(&a11y, app).await);
                    }
                }
                Err(e) => parts.push(part("accessibility bus", Err((e.to_string(), bus_fix())))),
            },
            Err(e) => parts.push(part("accessibility bus", Err((e.to_string(), bus_fix())))),
        }
        applications.extend(absent_from_the_bus(&applications, listed.as_deref().unwrap_or_default()));
        Diagnosis { parts, applications }
    }
}

/// Start the accessibility bus, with how to install it on this distribution.
fn bus_fix() -> String {
    format!(
        "run inside a D-Bus session with the accessibility bus: `dbus-run-session -- sh`, then \
         `at-spi-bus-launcher --launch-immediately &` (in /usr/libexec, /usr/lib/at-spi2-core or /usr/lib; on {}: {}); \
         set DBUS_SESSION_BUS_ADDRESS if the session bus is elsewhere",
        Distro::here().name,
        Distro::here().install(Need::AccessibilityBus)
    )
}

fn session_words(session: &Session) -> Result<String, (String, String)> {
    match session {
        Session::X11 { display } => match display.clone().or_else(|| std::env::var("DISPLAY").ok()) {
            Some(d) if !d.is_empty() => match X11Windows::connect(Some(&d)) {
                Ok(_) => Ok(format!("X11, display {d}")),
                Err(e) => Err((format!("X11, display {d}, which does not answer: {e}"), start_x())),
            },
            _ => Err(("no display: DISPLAY is not set and no Wayland compositor is named".into(), start_x())),
        },
        Session::Wayland(registry) => {
            Ok(format!("Wayland with no X display: {}", crate::desktop::wayland_words(registry)))
        }
        Session::Unreachable { why } => Err((why.clone(), start_x())),
    }
}

async fn app_check(a11y: &impl Accessibility, app: &deft_a11y::AppInfo) -> AppCheck {
    let toolkit = a11y.toolkit(&app.id).await.ok().flatten();
    let (readable, problem, fix) = match &app.problem {
        None => (true, None, None),
        Some(p) => (
            false,
            Some(p.clone()),
            Some("the application did not answer its accessibility calls: it may be busy or hung; try again, or restart it".into()),
        ),
    };
    AppCheck { name: app.name.clone(), pid: app.pid, toolkit, readable, problem, fix }
}

/// A window whose process has no application on the bus: Deft sees its pixels only.
fn absent_from_the_bus(on_bus: &[AppCheck], windows: &[deft_input::WindowGeometry]) -> Vec<AppCheck> {
    let mut absent: Vec<AppCheck> = Vec::new();
    for w in windows {
        let Some(pid) = w.pid else { continue };
        if on_bus.iter().any(|a| a.pid == Some(pid)) || absent.iter().any(|a| a.pid == Some(pid)) {
            continue;
        }
        absent.push(AppCheck {
            name: w.title.clone(),
            pid: Some(pid),
            toolkit: None,
            readable: false,
            problem: Some("shows a window but is not on the accessibility bus: only its pixels can be read".into()),
            fix: Some(ACCESSIBILITY_ON.into()),
        });
    }
    absent
}

/// How each toolkit is asked to join the accessibility bus, in one place.
const ACCESSIBILITY_ON: &str = "start it with accessibility on: Qt `QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1`; \
    Chromium and Electron `--force-renderer-accessibility`; Firefox `GNOME_ACCESSIBILITY=1`; \
    Java `-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper` \
    (package libatk-wrapper-java); GTK 2 `GTK_MODULES=gail:atk-bridge` (packages libgail-common and \
    libatk-adaptor); GTK 3 and 4 need nothing but the accessibility bus running when they start";
