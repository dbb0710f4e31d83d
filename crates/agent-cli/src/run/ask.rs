//! Where `run`'s questions go: a dialog with a text box on the person's desktop (zenity,
//! on the same display), a prompt on the terminal, or deferral to whoever runs agent-cli
//! (a `needs_input` result, exit 8, then `--resume`). None of them can hang the run: the
//! dialog and the prompt give up after `--ask-timeout`, a closed stdin or a cancelled
//! dialog is "could not ask".

use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use deft_agent::{Answer, Asker, BoxFuture, Question};

use crate::cli::AskArg;

/// The channel in use.
#[derive(Clone, Debug)]
pub enum Channel {
    /// stderr + stdin.
    Terminal {
        /// How long to wait for a line.
        timeout: Duration,
    },
    /// zenity on `display`.
    Dialog {
        /// The X display (`:7`); `None`: the inherited `DISPLAY`.
        display: Option<String>,
        /// How long the dialog stays.
        timeout: Duration,
    },
    /// Pause the run.
    Defer,
}

impl Channel {
    /// The channel `arg` names; `auto` picks a terminal when stdin is one (and the output
    /// is not for a program), else a dialog when the display is a person's desktop session
    /// and zenity is there, else defers. A display alone says nobody is watching it (a
    /// headless Xvfb under a script has one): a dialog there would wait unseen for the
    /// whole `--ask-timeout`, so the run pauses as `needs_input` instead.
    pub fn choose(arg: AskArg, json: bool, display: Option<String>, timeout: Duration) -> Channel {
        let dialog = Channel::Dialog { display: display.clone(), timeout };
        match arg {
            AskArg::Terminal => Channel::Terminal { timeout },
            AskArg::Dialog => dialog,
            AskArg::Defer => Channel::Defer,
            AskArg::Auto if !json && std::io::stdin().is_terminal() => Channel::Terminal { timeout },
            AskArg::Auto if !json && display.is_some() && desktop_session() && zenity().is_some() => dialog,
            AskArg::Auto => Channel::Defer,
        }
    }

    /// The `--ask` choice that gives back the channel called `name` (as [`Channel::name`]
    /// says it), to ask a resumed run's questions where its earlier ones went.
    pub fn arg_named(name: &str) -> Option<AskArg> {
        match name {
            "terminal" => Some(AskArg::Terminal),
            "dialog" => Some(AskArg::Dialog),
            "needs_input" => Some(AskArg::Defer),
            _ => None,
        }
    }

    /// Its name, for the display and the JSON result.
    pub fn name(&self) -> &'static str {
        match self {
            Channel::Terminal { .. } => "terminal",
            Channel::Dialog { .. } => "dialog",
            Channel::Defer => "needs_input",
        }
    }
}

/// Whether this process runs in a person's graphical login session: a display manager or
/// session manager sets `XDG_SESSION_TYPE` (x11, wayland) or `XDG_CURRENT_DESKTOP`; a
/// display started by a script (Xvfb in a container or CI) sets neither.
fn desktop_session() -> bool {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.trim().is_empty());
    std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| matches!(t.trim(), "x11" | "wayland")) || set("XDG_CURRENT_DESKTOP")
}

/// The zenity binary, when installed (`cargo xtask setup` installs it).
pub fn zenity() -> Option<&'static str> {
    ["/usr/bin/zenity", "/usr/local/bin/zenity"].into_iter().find(|p| std::path::Path::new(p).exists())
}

/// The title of the dialog (tests find the window by it).
pub const DIALOG_TITLE: &str = "Deft asks";

impl Asker for Channel {
    fn ask<'a>(&'a self, q: &'a Question) -> BoxFuture<'a, Answer> {
        let me = self.clone();
        let q = q.clone();
        Box::pin(async move {
            match me {
                Channel::Defer => Answer::Later,
                Channel::Terminal { timeout } => {
                    // A plain thread, not the runtime's blocking pool: a prompt nobody answers
                    // must not hold the process at exit.
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    std::thread::spawn(move || {
                        let _ = tx.send(terminal(&q));
                    });
                    match tokio::time::timeout(timeout, rx).await {
                        Ok(Ok(a)) => a,
                        Ok(Err(_)) => Answer::Unavailable("the prompt failed".into()),
                        Err(_) => {
                            Answer::Unavailable(format!("no answer on the terminal within {} s", timeout.as_secs()))
                        }
                    }
                }
                Channel::Dialog { display, timeout } => {
                    tokio::task::spawn_blocking(move || dialog(&q, display.as_deref(), timeout))
                        .await
                        .unwrap_or_else(|e| Answer::Unavailable(format!("the dialog failed: {e}")))
                }
            }
        })
    }
}

fn terminal(q: &Question) -> Answer {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "\n? {}", q.text);
    if !q.options.is_empty() {
        let _ = writeln!(err, "  ({})", q.options.join(" / "));
    }
    let _ = write!(err, "> ");
    let _ = err.flush();
    drop(err);
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) => Answer::Unavailable("stdin is closed: no one can answer on the terminal".into()),
        Ok(_) if line.trim().is_empty() => Answer::Unavailable("the answer was empty".into()),
        Ok(_) => Answer::Text(line.trim().to_string()),
        Err(e) => Answer::Unavailable(format!("cannot read stdin: {e}")),
    }
}

fn dialog(q: &Question, display: Option<&str>, timeout: Duration) -> Answer {
    let Some(zenity) = zenity() else {
        return Answer::Unavailable("zenity is not installed (cargo xtask setup installs it)".into());
    };
    let mut cmd = Command::new(zenity);
    cmd.args(["--entry", "--title", DIALOG_TITLE, "--width", "520", "--text", &q.text])
        .arg(format!("--timeout={}", timeout.as_secs().max(1)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(d) = display {
        cmd.env("DISPLAY", d);
    }
    match cmd.output() {
        Ok(o) if o.status.success() => {
            let a = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if a.is_empty() {
                Answer::Unavailable("the dialog was answered with nothing".into())
            } else {
                Answer::Text(a)
            }
        }
        Ok(o) if o.status.code() == Some(5) => {
            Answer::Unavailable(format!("no answer in the dialog within {} s", timeout.as_secs()))
        }
        Ok(_) => Answer::Unavailable("the person closed the dialog without answering".into()),
        Err(e) => Answer::Unavailable(format!("cannot start {zenity}: {e}")),
    }
}
