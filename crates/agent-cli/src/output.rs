//! Output: JSON and YAML documents for programs, a short (colored on a terminal) summary
//! for people. Results go to stdout; human errors go to stderr, machine errors to stdout
//! as a document, so a caller parsing stdout always gets one.

use std::io::{IsTerminal, Write};

use deft_types::{AttemptResult, Outcome, SuggestedAction};
use serde::Serialize;

use crate::config::{ColorChoice, Format};
use deft_types::Candidate;

use crate::exit::{CliError, candidate_line};

/// How to print.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Out {
    /// The format.
    pub format: Format,
    /// Color escapes in human output.
    pub color: bool,
}

impl Out {
    /// From the settings, deciding `auto` color by whether stdout is a terminal.
    pub fn new(format: Format, color: ColorChoice) -> Out {
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => std::io::stdout().is_terminal(),
        };
        Out { format, color }
    }

    /// Print `value` as the format says; `human` renders it for people.
    pub fn print<T: Serialize>(&self, value: &T, human: impl FnOnce(&Style) -> String) -> Result<(), CliError> {
        let text = match self.format {
            Format::Json => to_json(value)?,
            Format::Yaml => to_yaml(value)?,
            Format::Human => human(&Style { color: self.color }),
        };
        write_stdout(&text)
    }

    /// Report an error: a document on stdout for JSON/YAML, `error: ...` on stderr for people.
    pub fn error(&self, e: &CliError) {
        match self.format {
            Format::Json | Format::Yaml => {
                let doc = ErrorDoc {
                    ok: false,
                    error: ErrorBody {
                        kind: e.exit.name(),
                        exit_code: e.exit.code(),
                        message: &e.message,
                        candidates: &e.candidates,
                    },
                };
                let text = if self.format == Format::Json { to_json(&doc) } else { to_yaml(&doc) };
                if let Ok(text) = text {
                    // Nothing more can be done if stdout is gone; the exit code still tells.
                    let _ = write_stdout(&text);
                }
                eprintln!("error: {}", e.message);
            }
            Format::Human => {
                let color = std::io::stderr().is_terminal() && self.color;
                eprint!("{}", error_human(e, &Style { color }));
            }
        }
    }
}

fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let r =
        out.write_all(text.as_bytes()).and_then(|()| if text.ends_with('\n') { Ok(()) } else { out.write_all(b"\n") });
    match r.and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::new(crate::exit::Exit::Failed, format!("cannot write to stdout: {e}"))),
    }
}

/// JSON, pretty-printed.
pub fn to_json<T: Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(value)
        .map_err(|e| CliError::new(crate::exit::Exit::Failed, format!("cannot encode the result as JSON: {e}")))
}

/// YAML, plain: an enum with data is a map from its name to its data, as in the JSON
/// output, never a custom tag (`!failed`) that `yaml.safe_load` and other plain loaders
/// refuse. Fields keep their order.
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String, CliError> {
    let fail = |e: serde_norway::Error| {
        CliError::new(crate::exit::Exit::Failed, format!("cannot encode the result as YAML: {e}"))
    };
    let tagged = serde_norway::to_value(value).map_err(fail)?;
    serde_norway::to_string(&untagged(tagged)).map_err(fail)
}

/// `!tag value` as `{tag: value}`, all the way down.
fn untagged(v: serde_norway::Value) -> serde_norway::Value {
    use serde_norway::Value;
    match v {
        Value::Tagged(t) => {
            let name = t.tag.to_string();
            let mut m = serde_norway::Mapping::new();
            m.insert(Value::String(name.trim_start_matches('!').to_string()), untagged(t.value));
            Value::Mapping(m)
        }
        Value::Sequence(items) => Value::Sequence(items.into_iter().map(untagged).collect()),
        Value::Mapping(m) => Value::Mapping(m.into_iter().map(|(k, v)| (untagged(k), untagged(v))).collect()),
        other => other,
    }
}

#[derive(Serialize)]
struct ErrorDoc<'a> {
    ok: bool,
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    kind: &'static str,
    exit_code: u8,
    message: &'a str,
    candidates: &'a [Candidate],
}

/// ANSI styling, or none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Whether to emit escapes.
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_string() }
    }
    /// Success.
    pub fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }
    /// Failure.
    pub fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }
    /// Warnings and blocking elements.
    pub fn yellow(&self, s: &str) -> String {
        self.paint("33", s)
    }
    /// Secondary detail.
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    /// Emphasis.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
}

/// A value's snake_case name, as serde writes it (`coordinate_click`).
pub fn snake<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// `✓ click push_button "Submit" verified (retried: a11y_action) — dialog "Saved" appeared`,
/// then, when it failed or was retried, one line per attempt and what blocked it.
/// `asked` describes the target as given, for outcomes that did not resolve one.
pub fn outcome_human(o: &Outcome, asked: &str, st: &Style) -> String {
    let verb = o.action.verb();
    let target = match &o.target {
        Some(t) => match &t.role {
            Some(role) => format!("{role} {:?}", t.name),
            // No element (a point, OCR text): the executor already describes it in words.
            None => t.name.clone(),
        },
        None => asked.to_string(),
    };
    let target = if target.is_empty() { String::new() } else { format!(" {target}") };
    // From the verdict's own fields (one definition, deft-types), so an outcome made by
    // hand reads the same as one from the executor.
    let status = match (deft_types::Seen::of(o.ok, o.verified, &o.attempts, &o.evidence).0, o.verified) {
        (deft_types::Seen::Verified, _) => "verified",
        (deft_types::Seen::Received, _) => "received (no visible change)",
        (deft_types::Seen::Unverifiable, _) => "sent (its effect cannot be verified)",
        (deft_types::Seen::Unchecked, _) => "done (not verified)",
        (deft_types::Seen::Failed, Some(false)) => "not verified",
        (deft_types::Seen::Failed, _) => "failed",
    }
    .to_string();
    let retried = match (o.retried, o.attempts.last()) {
        (true, Some(last)) => format!(" (retried: {})", snake(&last.method)),
        _ => String::new(),
    };
    let elapsed = st.dim(&format!("[{} ms]", o.elapsed_ms));
    let mut out = if o.ok {
        let observed = if o.observed.is_empty() { String::new() } else { format!(" — {}", o.observed) };
        format!("{} {verb}{target} {}{retried}{observed} {elapsed}\n", st.green("✓"), st.bold(&status))
    } else {
        let mut why = String::new();
        if !o.expected.is_empty() {
            why.push_str(&format!(": expected {}", o.expected));
        }
        if !o.observed.is_empty() {
            why.push_str(&format!("{} observed {}", if why.is_empty() { ":" } else { "," }, o.observed));
        }
        format!("{} {verb}{target} {}{retried}{why} {elapsed}\n", st.red("✗"), st.bold(&status))
    };
    if let Some(reason) = &o.retry_reason {
        out.push_str(&format!("  {} {reason}\n", st.dim("retried because:")));
    }
    if !o.ok || o.retried {
        for (i, a) in o.attempts.iter().enumerate() {
            let result = match &a.result {
                AttemptResult::Verified => st.green("verified"),
                AttemptResult::Sent => "sent".to_string(),
                AttemptResult::Received => st.yellow("received, no visible change"),
                AttemptResult::NoChange => st.yellow("no change"),
                AttemptResult::Failed { class, message } => st.red(&format!("failed ({}): {message}", class.as_str())),
            };
            let observed = a.observed.as_deref().map(|s| format!(" — {s}")).unwrap_or_default();
            out.push_str(&format!(
                "  {}. {:<28} {result}{observed} {}\n",
                i + 1,
                snake(&a.method),
                st.dim(&format!("{} ms", a.elapsed_ms))
            ));
        }
    }
    if let Some(b) = &o.blocking {
        let texts = if b.texts.is_empty() { String::new() } else { format!(": {}", b.texts.join(" | ")) };
        out.push_str(&format!("  {} {} {:?}{texts}\n", st.yellow("blocked by"), b.role, b.name));
    }
    if let Some(s) = o.suggested_action {
        out.push_str(&format!("  {} {}\n", st.dim("next:"), suggestion(s)));
    }
    out
}

fn suggestion(s: SuggestedAction) -> &'static str {
    match s {
        SuggestedAction::DismissPopupThenRetry => "dismiss the popup, then retry (dismiss_popup_then_retry)",
        SuggestedAction::UseVision => {
            "the target is not in the tree nor on screen as text; look with vision (use_vision)"
        }
        SuggestedAction::WaitLonger => "the app is still busy; wait longer, e.g. a larger --timeout (wait_longer)",
        SuggestedAction::RefineSelector => "refine the target: see the candidates (refine_selector)",
    }
}

/// `error: ...` and the candidates, one per line.
pub fn error_human(e: &CliError, st: &Style) -> String {
    format!("{} {}\n{}", st.red("error:"), e.message, candidates_human(&e.candidates, st))
}

/// The candidates of a miss, one per line, each with the selector that picks it.
pub fn candidates_human(candidates: &[Candidate], st: &Style) -> String {
    let mut out = String::new();
    for (i, c) in candidates.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {}\n     {} {}\n",
            i,
            candidate_line(c, candidates),
            st.dim("select with:"),
            c.selector
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use deft_types::{ActionKind, Attempt, Blocking, ElementId, ErrorClass, Method, Rect, Role, TargetInfo};
    use expect_test::expect;

    use super::*;

    fn retried_click() -> Outcome {
        Outcome {
            ok: true,
            action: ActionKind::Click,
            verified: Some(true),
            retried: true,
            retry_reason: Some("click produced no UI change; retried with accessibility press".into()),
            target: Some(TargetInfo {
                id: Some(ElementId(":1.5|/a/12".into())),
                role: Some(Role::new("push_button")),
                name: "Submit".into(),
                bounds: Some(Rect::new(10, 20, 80, 30)),
                app: None,
                window: None,
            }),
            expected: "any UI change on or around the target".into(),
            observed: "dialog \"Saved\" appeared".into(),
            attempts: vec![
                Attempt {
                    method: Method::CoordinateClick,
                    result: AttemptResult::NoChange,
                    elapsed_ms: 412,
                    observed: None,
                },
                Attempt { method: Method::A11yAction, result: AttemptResult::Verified, elapsed_ms: 96, observed: None },
            ],
            blocking: None,
            suggested_action: None,
            failure: None,
            evidence: vec![],
            elapsed_ms: 520,
            seen: deft_types::Seen::default(),
            seen_by: None,
        }
        .with_seen()
    }

    fn blocked_click() -> Outcome {
        Outcome {
            ok: false,
            verified: Some(false),
            retried: false,
            retry_reason: None,
            observed: "a dialog covers the target".into(),
            attempts: vec![Attempt {
                method: Method::CoordinateClick,
                result: AttemptResult::Failed {
                    class: ErrorClass::Blocked,
                    message: "dialog \"New Event!\" covers the target".into(),
                },
                elapsed_ms: 30,
                observed: None,
            }],
            blocking: Some(Blocking {
                role: Role::new("dialog"),
                name: "New Event!".into(),
                texts: vec!["You have a new event".into(), "OK".into()],
            }),
            suggested_action: Some(SuggestedAction::DismissPopupThenRetry),
            failure: None,
            elapsed_ms: 35,
            ..retried_click()
        }
    }

    #[test]
    fn human_success_is_one_line_unless_retried() {
        let plain = Outcome { retried: false, retry_reason: None, attempts: vec![], ..retried_click() };
        expect![[r#"
            ✓ click push_button "Submit" verified — dialog "Saved" appeared [520 ms]
        "#]]
        .assert_eq(&outcome_human(&plain, "name=Submit", &Style::default()));
        expect![[r#"
            ✓ click push_button "Submit" verified (retried: a11y_action) — dialog "Saved" appeared [520 ms]
              retried because: click produced no UI change; retried with accessibility press
              1. coordinate_click             no change 412 ms
              2. a11y_action                  verified 96 ms
        "#]]
        .assert_eq(&outcome_human(&retried_click(), "name=Submit", &Style::default()));
    }

    #[test]
    fn human_failure_says_expected_observed_and_blocking() {
        expect![[r#"
            ✗ click push_button "Submit" not verified: expected any UI change on or around the target, observed a dialog covers the target [35 ms]
              1. coordinate_click             failed (blocked): dialog "New Event!" covers the target 30 ms
              blocked by dialog "New Event!": You have a new event | OK
              next: dismiss the popup, then retry (dismiss_popup_then_retry)
        "#]]
        .assert_eq(&outcome_human(&blocked_click(), "name=Submit", &Style::default()));
    }

    #[test]
    fn json_and_yaml_carry_the_contract_fields() {
        let json = to_json(&blocked_click()).unwrap();
        for key in [
            "\"ok\": false",
            "\"action\": \"click\"",
            "\"verified\": false",
            "\"retried\": false",
            "\"retry_reason\": null",
            "\"bounds\": [\n      10,",
            "\"method\": \"coordinate_click\"",
            "\"elapsed_ms\": 30",
            "\"suggested_action\": \"dismiss_popup_then_retry\"",
            "\"blocking\": {",
        ] {
            assert!(json.contains(key), "{key} not in {json}");
        }
        expect![[r#"
            ok: true
            action: click
            verified: true
            retried: true
            retry_reason: click produced no UI change; retried with accessibility press
            target:
              id: :1.5|/a/12
              role: push_button
              name: Submit
              bounds:
              - 10
              - 20
              - 80
              - 30
              app: null
              window: null
            expected: any UI change on or around the target
            observed: dialog "Saved" appeared
            attempts:
            - method: coordinate_click
              result: no_change
              elapsed_ms: 412
              observed: null
            - method: a11y_action
              result: verified
              elapsed_ms: 96
              observed: null
            blocking: null
            suggested_action: null
            failure: null
            evidence: []
            elapsed_ms: 520
            seen: verified
            seen_by: null
        "#]]
        .assert_eq(&to_yaml(&retried_click()).unwrap());
    }

    #[test]
    fn yaml_has_no_tags() {
        let yaml = to_yaml(&blocked_click()).unwrap();
        assert!(!yaml.contains(": !") && !yaml.contains("- !"), "{yaml}");
        assert!(yaml.contains("  result:\n    failed:\n      class: blocked"), "{yaml}");
        assert!(yaml.starts_with("ok: false\n"), "the contract's order: {yaml}");
    }

    #[test]
    fn errors_list_candidates() {
        let e = CliError {
            candidates: vec![Candidate {
                id: ElementId(":1.1|/1".into()),
                role: Role::new("push_button"),
                name: "Hello".into(),
                app: "deft-fixture".into(),
                window: Some("Deft Fixture".into()),
                path: vec![0, 0],
                selector: "window=\"Deft Fixture\" path=0/0".into(),
                similarity: 100,
            }],
            ..CliError::new(crate::exit::Exit::Ambiguous, "`role=push_button` matches 2 elements")
        };
        expect![[r#"
            error: `role=push_button` matches 2 elements
              0. push_button "Hello" in "deft-fixture" window "Deft Fixture" (--id 1)
                 select with: window="Deft Fixture" path=0/0
        "#]]
        .assert_eq(&error_human(&e, &Style::default()));
    }

    #[test]
    fn a_short_id_two_candidates_share_is_given_whole() {
        // Two zenity dialogs, one application each: both number their OK button 8, and
        // "(--id 8)" twice sent the user round in a circle.
        let ok = |bus: &str, title: &str| Candidate {
            id: ElementId(format!("{bus}|/org/a11y/atspi/accessible/8")),
            role: Role::new("push_button"),
            name: "OK".into(),
            app: "zenity".into(),
            window: Some(title.into()),
            path: vec![0, 2],
            selector: format!("window={title:?} path=0/2"),
            similarity: 100,
        };
        let listed = candidates_human(&[ok(":1.0", "First"), ok(":1.1", "Second")], &Style::default());
        assert!(listed.contains("(--id ':1.0|/org/a11y/atspi/accessible/8')"), "{listed}");
        assert!(listed.contains("(--id ':1.1|/org/a11y/atspi/accessible/8')"), "{listed}");
        let one = candidates_human(&[ok(":1.0", "First")], &Style::default());
        assert!(one.contains("(--id 8)"), "{one}");
    }
}
