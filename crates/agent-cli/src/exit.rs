//! Exit codes (documented in `--help` and the crate README) and the CLI's error type.

use std::fmt;
use std::process::ExitCode;

use deft_toolbelt::{ToolError, ToolErrorKind};
use deft_types::{Candidate, FailureKind, Outcome};
use serde::Serialize;

/// What the process exit status means. The numbers are a contract: scripts and other
/// agents branch on them, so they never change meaning.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// The action worked (verified when verification was asked for), or the observation
    /// was made.
    Ok = 0,
    /// The action failed or could not be verified.
    Failed = 1,
    /// The command line, the config file or the environment variables are wrong.
    Usage = 2,
    /// No element (or text) matches the target.
    NotFound = 3,
    /// More than one element matches the target.
    Ambiguous = 4,
    /// Something (a dialog, a popup, an overlay) blocks the target.
    Blocked = 5,
    /// `wait` (or the verification window) ran out of time.
    TimedOut = 6,
    /// No display, no accessibility bus, or a capability this build lacks.
    Environment = 7,
    /// `run` paused on a question nobody could answer now: the result carries the
    /// question and the run id; continue with `run --resume RUN --answer TEXT`.
    NeedsInput = 8,
}

/// The table printed in `--help` and kept in the README.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  ok: the action worked (with --verify: verified, or received with no visible change), or the observation was made
  1  the action failed, or verification ran and did not see the expected effect
  2  usage error: bad arguments, config file or DEFT_* environment variable
  3  target not found (the closest candidates are listed)
  4  ambiguous target: several elements match (all are listed; add --index N)
  5  blocked: a dialog or popup covers the target (it is described)
  6  timed out: the condition of `wait` did not hold in time
  7  environment: no display, no accessibility bus, or not available in this build
  8  needs input: `run` asks a question (in the JSON result); continue with --resume RUN --answer TEXT";

impl Exit {
    /// The numeric status.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The name used in JSON/YAML error objects.
    pub fn name(self) -> &'static str {
        match self {
            Exit::Ok => "ok",
            Exit::Failed => "failed",
            Exit::Usage => "usage",
            Exit::NotFound => "not_found",
            Exit::Ambiguous => "ambiguous",
            Exit::Blocked => "blocked",
            Exit::TimedOut => "timed_out",
            Exit::Environment => "environment",
            Exit::NeedsInput => "needs_input",
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}

/// The exit code of an action's outcome: the executor's own failure category.
pub fn of_outcome(o: &Outcome) -> Exit {
    if o.ok {
        return Exit::Ok;
    }
    match o.failure.as_ref().map(|f| f.kind) {
        Some(FailureKind::NotFound) => Exit::NotFound,
        Some(FailureKind::Ambiguous) => Exit::Ambiguous,
        Some(FailureKind::Blocked) => Exit::Blocked,
        Some(FailureKind::TimedOut) => Exit::TimedOut,
        Some(FailureKind::Unavailable) => Exit::Environment,
        Some(FailureKind::NotActionable | FailureKind::NoEffect) | None => Exit::Failed,
    }
}

/// A candidate on one line: `push_button "OK" in "demo" window "Main" (--id 2)`. `among`:
/// the candidates listed with it, so that a short id two of them share (one per
/// application: each numbers its own) is given whole instead.
pub fn candidate_line(c: &Candidate, among: &[Candidate]) -> String {
    let mut s = format!("{} {:?} in {:?}", c.role, c.name, c.app);
    if let Some(w) = &c.window {
        s.push_str(&format!(" window {w:?}"));
    }
    // The short form `--id` accepts (the numeric end of an AT-SPI path), else the whole id.
    let short = deft_a11y::short_id(&c.id);
    let shared = among.iter().any(|o| o.id != c.id && deft_a11y::short_id(&o.id) == short);
    if short != c.id.0 && !shared {
        s.push_str(&format!(" (--id {short})"));
    } else {
        s.push_str(&format!(" (--id '{}')", c.id));
    }
    s
}

/// Every failure the CLI reports, with its exit code. `message` says what was wrong and
/// what to do about it.
#[derive(Clone, PartialEq, Debug)]
pub struct CliError {
    /// The exit status.
    pub exit: Exit,
    /// What went wrong and what to do, in plain words.
    pub message: String,
    /// Elements a not-found or ambiguous target could have meant.
    pub candidates: Vec<Candidate>,
}

impl CliError {
    /// An error with this exit code.
    pub fn new(exit: Exit, message: impl Into<String>) -> CliError {
        CliError { exit, message: message.into(), candidates: Vec::new() }
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::new(Exit::Usage, message)
    }

    /// An environment error (exit 7).
    pub fn environment(message: impl Into<String>) -> CliError {
        CliError::new(Exit::Environment, message)
    }
}

impl From<ToolError> for CliError {
    fn from(e: ToolError) -> CliError {
        let exit = match e.kind {
            ToolErrorKind::Usage => Exit::Usage,
            ToolErrorKind::NotFound | ToolErrorKind::StaleRef => Exit::NotFound,
            ToolErrorKind::Ambiguous => Exit::Ambiguous,
            ToolErrorKind::Unavailable => Exit::Environment,
            ToolErrorKind::Failed => Exit::Failed,
        };
        CliError { exit, message: e.message, candidates: e.candidates }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_ones() {
        let all = [
            Exit::Ok,
            Exit::Failed,
            Exit::Usage,
            Exit::NotFound,
            Exit::Ambiguous,
            Exit::Blocked,
            Exit::TimedOut,
            Exit::Environment,
            Exit::NeedsInput,
        ];
        for (i, e) in all.iter().enumerate() {
            assert_eq!(usize::from(e.code()), i);
            assert!(EXIT_CODES_HELP.contains(&format!("  {i}  ")), "{e:?} missing from the help table");
        }
        let readme = include_str!("../README.md");
        for line in EXIT_CODES_HELP.lines().skip(1) {
            let (code, _) = line.trim().split_once("  ").unwrap();
            assert!(readme.contains(&format!("| {code} |")), "README lacks exit code {code}");
        }
    }
}
