//! Tool outputs and errors as MCP tool results: a short text for models that read text
//! only, the structured result for programs, a PNG for screenshots. A failed action, a
//! wait that timed out and a call that could not be carried out are results with
//! `isError` (never protocol errors), so the calling model reads why and what to do.

use base64::Engine as _;
use deft_toolbelt::{
    ActionReport, FindReport, OcrReport, OutlineStyle, ReadReport, Shot, ToolError, ToolOutput, WaitReport,
};
use deft_types::{AttemptResult, Candidate, Outcome, SuggestedAction};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

/// The result of a call that was carried out.
pub fn of_output(out: &ToolOutput) -> CallToolResult {
    match out {
        ToolOutput::Action(r) => action(r),
        ToolOutput::Wait(w) => wait(w),
        ToolOutput::Read(r) => structured(read_text(r), r, false),
        ToolOutput::Find(f) => structured(find_text(f), f, false),
        ToolOutput::Screenshot(s) => screenshot(s),
        ToolOutput::Ocr(o) => structured(ocr_text(o), o, false),
        ToolOutput::Doctor(d) => structured(d.text(), d, false),
    }
}

/// A call that could not be carried out: bad parameters, a stale ref, nothing found to
/// observe, no desktop. Text only: the actions' output schema describes outcomes, and
/// an error is not one.
pub fn of_error(e: &ToolError) -> CallToolResult {
    let mut text = format!("error ({}): {}\n", e.kind.as_str(), e.message);
    text.push_str(&candidates_text(&e.candidates));
    text_only(text, true)
}

/// A call cancelled by the client before it acted (its result is not read).
pub fn cancelled() -> CallToolResult {
    text_only("cancelled by the client; nothing was sent".into(), true)
}

/// A failure of the server itself while carrying out a call.
pub fn internal(what: &str) -> CallToolResult {
    text_only(format!("error (failed): the server failed while carrying out the call: {what}"), true)
}

fn text_only(text: String, is_error: bool) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.is_error = Some(is_error);
    r
}

fn structured<T: Serialize>(text: String, value: &T, is_error: bool) -> CallToolResult {
    let mut r = text_only(text, is_error);
    match serde_json::to_value(value) {
        Ok(v) => r.structured_content = Some(v),
        Err(e) => return internal(&format!("cannot encode the result: {e}")),
    }
    r
}

fn action(r: &ActionReport) -> CallToolResult {
    let o = &r.outcome;
    let mut text = outcome_text(o);
    if let Some(f) = &o.failure {
        text.push_str(&candidates_text(&f.candidates));
    }
    if let Some(changes) = &r.changes {
        text.push_str("changes in the window:\n");
        text.push_str(changes);
    }
    structured(text, r, !o.ok)
}

/// `✓ click push_button "Submit" verified (retried: a11y_action): dialog "Saved" appeared
/// [520 ms]`, then for a failure or a retry one line per attempt, what blocked it and what
/// to do next.
pub fn outcome_text(o: &Outcome) -> String {
    let target = match &o.target {
        Some(t) => match &t.role {
            Some(role) => format!(" {role} {:?}", t.name),
            None if t.name.is_empty() => String::new(),
            None => format!(" {}", t.name),
        },
        None => String::new(),
    };
    let status = match (o.ok, o.verified) {
        (true, Some(true)) => "verified",
        (true, Some(false)) => "received (no visible change)",
        (true, None) => "done (not verified)",
        (false, Some(false)) => "not verified",
        (false, _) => "failed",
    };
    let retried = match (o.retried, o.attempts.last()) {
        (true, Some(last)) => format!(" (retried: {})", last.method),
        _ => String::new(),
    };
    let mut out = format!("{} {}{target} {status}{retried}", if o.ok { "✓" } else { "✗" }, o.action.as_str());
    if o.ok {
        if !o.observed.is_empty() {
            out.push_str(&format!(": {}", o.observed));
        }
    } else {
        if !o.expected.is_empty() {
            out.push_str(&format!(": expected {}", o.expected));
        }
        if !o.observed.is_empty() {
            out.push_str(&format!("; observed {}", o.observed));
        }
    }
    out.push_str(&format!(" [{} ms]\n", o.elapsed_ms));
    if let Some(reason) = &o.retry_reason {
        out.push_str(&format!("  retried because: {reason}\n"));
    }
    if !o.ok || o.retried {
        for (i, a) in o.attempts.iter().enumerate() {
            let result = match &a.result {
                AttemptResult::Verified => "verified".to_string(),
                AttemptResult::Sent => "sent".to_string(),
                AttemptResult::Received => "received, no visible change".to_string(),
                AttemptResult::NoChange => "no change".to_string(),
                AttemptResult::Failed { class, message } => format!("failed ({}): {message}", class.as_str()),
            };
            let observed = a.observed.as_deref().map(|s| format!(": {s}")).unwrap_or_default();
            out.push_str(&format!("  {}. {} {result}{observed} ({} ms)\n", i + 1, a.method, a.elapsed_ms));
        }
    }
    if let Some(b) = &o.blocking {
        let texts = if b.texts.is_empty() { String::new() } else { format!(" showing {}", b.texts.join(" | ")) };
        out.push_str(&format!("  blocking: {} {:?}{texts}\n", b.role, b.name));
    }
    if let Some(s) = o.suggested_action {
        out.push_str(&format!("  suggested_action: {} ({})\n", suggestion_name(s), suggestion(s)));
    }
    out
}

fn suggestion_name(s: SuggestedAction) -> &'static str {
    match s {
        SuggestedAction::DismissPopupThenRetry => "dismiss_popup_then_retry",
        SuggestedAction::UseVision => "use_vision",
        SuggestedAction::WaitLonger => "wait_longer",
        SuggestedAction::RefineSelector => "refine_selector",
    }
}

/// What to do, in the words of tool calls (parameters as this face names them).
fn suggestion(s: SuggestedAction) -> &'static str {
    match s {
        SuggestedAction::DismissPopupThenRetry => "dismiss the popup (click its button), then call again",
        SuggestedAction::UseVision => "the target is neither in the tree nor on screen as text; take a screenshot",
        SuggestedAction::WaitLonger => "the app is still busy; call again with a larger timeout_ms",
        SuggestedAction::RefineSelector => "refine the target: pick one of the candidates",
    }
}

/// The elements a miss could have meant, each with a `target` that picks it.
fn candidates_text(candidates: &[Candidate]) -> String {
    if candidates.is_empty() {
        return String::new();
    }
    let mut out = String::from("candidates (give one's selector as `target`):\n");
    for (i, c) in candidates.iter().enumerate() {
        let window = c.window.as_ref().map(|w| format!(" window {w:?}")).unwrap_or_default();
        out.push_str(&format!(
            "  {i}. {} {:?} in {:?}{window} ({}%): {}\n",
            c.role, c.name, c.app, c.similarity, c.selector
        ));
    }
    out
}

fn wait(w: &WaitReport) -> CallToolResult {
    let o = &w.outcome;
    let mut text = if o.met {
        let channel = o.channel.map(|c| format!(" (seen through {})", snake(&c))).unwrap_or_default();
        format!("✓ {}{channel} [{} ms]\n", w.expected, o.elapsed_ms)
    } else {
        format!(
            "✗ timed out after {} ms waiting until {}: last observed {}\n",
            w.timeout_ms, w.expected, o.last_observed
        )
    };
    for e in &o.evidence {
        text.push_str(&format!("  {}: {} (+{} ms)\n", snake(&e.channel), e.what, e.after_ms));
    }
    structured(text, w, !w.ok)
}

fn read_text(r: &ReadReport) -> String {
    let mut out = r.outline.clone();
    if r.roots.is_empty() {
        out.push_str("(no elements)\n");
    }
    for p in &r.problems {
        out.push_str(&format!("problem: {p}\n"));
    }
    out
}

fn find_text(f: &FindReport) -> String {
    if !f.ocr_matches.is_empty() {
        let mut out = String::from("no element has the text; found on screen by OCR:\n");
        for l in &f.ocr_matches {
            let b = l.bounds;
            out.push_str(&format!("  {:?} at [{},{} {}x{}]\n", l.text, b.x, b.y, b.w, b.h));
        }
        return out;
    }
    let mut out = format!("{} match `{}`\n", plural(f.count, "element"), f.query);
    for m in &f.matches {
        let line = deft_toolbelt::element_line(&m.element, &OutlineStyle::COMPACT, &m.reference);
        out.push_str(&format!("  index={} {line}\n", m.index));
    }
    for p in &f.problems {
        out.push_str(&format!("problem: {p}\n"));
    }
    out
}

fn ocr_text(o: &OcrReport) -> String {
    let mut out = o.note.as_ref().map(|r| format!("({r})\n")).unwrap_or_default();
    for l in &o.lines {
        let b = l.bounds;
        let score = l.score.map(|s| format!(" ({s:.2})")).unwrap_or_default();
        out.push_str(&format!("[{},{} {}x{}] {}{score}\n", b.x, b.y, b.w, b.h, l.text));
    }
    if o.lines.is_empty() {
        out.push_str("(no text found)\n");
    }
    out
}

fn screenshot(s: &Shot) -> CallToolResult {
    let data = base64::engine::general_purpose::STANDARD.encode(&s.png);
    let mut text = format!("screenshot {}x{} at {},{} ({})", s.width, s.height, s.bounds.x, s.bounds.y, s.backend);
    if let Some(r) = &s.note {
        text.push_str(&format!("; {r}"));
    }
    let mut r = CallToolResult::success(vec![ContentBlock::image(data, "image/png"), ContentBlock::text(text)]);
    r.is_error = Some(false);
    match serde_json::to_value(s) {
        Ok(v) => r.structured_content = Some(v),
        Err(e) => return internal(&format!("cannot encode the result: {e}")),
    }
    r
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A value's snake_case name, as serde writes it.
fn snake<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use deft_types::{ActionKind, Attempt, Blocking, ErrorClass, Failure, FailureKind, Method, Role, TargetInfo};
    use expect_test::expect;

    use super::*;

    fn blocked() -> Outcome {
        Outcome {
            ok: false,
            action: ActionKind::Click,
            verified: Some(false),
            retried: false,
            retry_reason: None,
            target: Some(TargetInfo {
                id: None,
                role: Some(Role::new("push_button")),
                name: "Submit order".into(),
                bounds: None,
                app: None,
                window: None,
            }),
            expected: "any UI change on or around the target".into(),
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
            failure: Some(Failure { kind: FailureKind::Blocked, candidates: vec![] }),
            evidence: vec![],
            elapsed_ms: 35,
            seen: deft_types::Seen::default(),
            seen_by: None,
        }
    }

    #[test]
    fn a_failed_action_is_an_error_result_with_its_outcome() {
        let r = action(&ActionReport { outcome: blocked(), changes: Some("dialog \"New Event!\" e7\n".into()) });
        assert_eq!(r.is_error, Some(true));
        let v = r.structured_content.as_ref().unwrap();
        assert_eq!(v["blocking"]["name"], "New Event!");
        assert_eq!(v["suggested_action"], "dismiss_popup_then_retry");
        assert_eq!(v["changes"], "dialog \"New Event!\" e7\n");
        let text = r.content[0].as_text().unwrap().text.clone();
        expect![[r#"
            ✗ click push_button "Submit order" not verified: expected any UI change on or around the target; observed a dialog covers the target [35 ms]
              1. coordinate_click failed (blocked): dialog "New Event!" covers the target (30 ms)
              blocking: dialog "New Event!" showing You have a new event | OK
              suggested_action: dismiss_popup_then_retry (dismiss the popup (click its button), then call again)
            changes in the window:
            dialog "New Event!" e7
        "#]]
        .assert_eq(&text);
    }

    #[test]
    fn tool_errors_are_error_results_that_list_candidates() {
        let e = ToolError::new(deft_toolbelt::ToolErrorKind::NotFound, "no element matches `name=Sumbit`")
            .with_candidates(vec![Candidate {
                id: deft_types::ElementId(":1.1|/1".into()),
                role: Role::new("push_button"),
                name: "Submit order".into(),
                app: "fixture_app.py".into(),
                window: Some("Deft Fixture".into()),
                path: vec![0, 1],
                selector: "window=\"Deft Fixture\" name=\"Submit order\"".into(),
                similarity: 83,
            }]);
        let r = of_error(&e);
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        expect![[r#"
            error (not_found): no element matches `name=Sumbit`
            candidates (give one's selector as `target`):
              0. push_button "Submit order" in "fixture_app.py" window "Deft Fixture" (83%): window="Deft Fixture" name="Submit order"
        "#]]
        .assert_eq(&r.content[0].as_text().unwrap().text);
    }
}
