//! Scripts: replay, expectations, failures, and a recorded session replayed offline.

use std::path::{Path, PathBuf};

use deft_llm::{
    AnyModel, Call, Delta, ErrorClass, LlmError, Message, Model, Part, ProviderConfig, ProviderKind, Record, Request,
    ResultPart, Role, Scripted, ToolResult, UsageTotals,
};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{config, fixture, png};

const SCRIPT: &str = r#"
# A demo: look, then click.
{"expect": ["Submit"], "reply": {"text": "Let me look.", "tool_calls": [{"name": "look"}]}}
{"expect": ["Submit button"], "reply": {"text": "Clicking.", "tool_calls": [{"id": "c2", "name": "click", "arguments": {"name": "Submit"}}]}}
{"error": {"class": "rate_limited", "message": "simulated 429"}}
{"reply": {"text": "Done."}}
"#;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deft-llm-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tool_result(call_id: &str, text: &str) -> Message {
    Message {
        role: Role::User,
        parts: vec![Part::ToolResult(ToolResult {
            call_id: call_id.into(),
            name: "look".into(),
            parts: vec![ResultPart::Text(text.into()), ResultPart::Image(png())],
            is_error: false,
        })],
    }
}

#[tokio::test]
async fn a_script_answers_in_order_and_checks_what_it_is_asked() {
    let model = Scripted::from_text(Path::new("demo.jsonl"), SCRIPT).unwrap();
    let mut req = Request::new("You operate a desktop.", "Click Submit.");
    let shown = std::sync::Mutex::new(String::new());
    let sink = |d: Delta<'_>| shown.lock().unwrap().push_str(&format!("{d:?}"));

    let first = model.complete(&req, &Call::streaming(&sink)).await.unwrap();
    assert_eq!(*shown.lock().unwrap(), "Text(\"Let me look.\")", "no streaming: the text comes once");
    let call = first.tool_calls().next().unwrap().clone();
    assert_eq!((call.id.as_str(), call.name.as_str()), ("call_1_1", "look"));
    req.messages.push(first.choice.to_message());
    req.messages.push(tool_result(&call.id, "a window with a Submit button"));

    let second = model.complete(&req, &Call::default()).await.unwrap();
    assert_eq!(second.tool_calls().next().unwrap().arguments.json(), Some(&json!({"name": "Submit"})));

    let err = model.complete(&req, &Call::default()).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::RateLimited);
    assert!(err.retryable());
    assert_eq!(err.to_string(), "simulated 429 (scripted)");

    assert_eq!(model.complete(&req, &Call::default()).await.unwrap().text(), "Done.");
    let err = model.complete(&req, &Call::default()).await.unwrap_err();
    assert_eq!(err.to_string(), "the script demo.jsonl has no turn 5: all 4 turns were used");
}

#[tokio::test]
async fn a_resumed_run_goes_on_from_the_turn_its_earlier_process_stopped_at() {
    // `run --resume` is a new process with a new model: the two calls made before the pause
    // are skipped, so one script covers the whole run.
    let model = AnyModel::new(Scripted::from_text(Path::new("demo.jsonl"), SCRIPT).unwrap());
    model.resumed_after(3);
    let req = Request::new("You operate a desktop.", "Click Submit.");
    assert_eq!(model.complete(&req, &Call::default()).await.unwrap().text(), "Done.");
}

#[tokio::test]
async fn a_script_out_of_sync_fails_loudly() {
    let model = Scripted::from_text(Path::new("demo.jsonl"), SCRIPT).unwrap();
    let err = model.complete(&Request::new("", "Open the settings."), &Call::default()).await.unwrap_err();
    assert!(matches!(err, LlmError::ScriptMismatch { turn: 1, .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the script demo.jsonl is out of sync at turn 1: it expects the newest message to contain \"Submit\", \
         which reads: Open the settings."
    );
}

#[test]
fn script_errors_name_the_line() {
    let err =
        Scripted::from_text(Path::new("s.jsonl"), "# c\n{\"reply\": {\"text\": \"a\"}}\n{\"reply\": {\"txt\": 1}}\n")
            .unwrap_err();
    assert!(err.to_string().starts_with("script s.jsonl, line 3: unknown field `txt`"), "{err}");
    let err = Scripted::from_text(Path::new("s.jsonl"), "{\"expect\": [\"x\"]}\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "script s.jsonl, line 1: a turn needs exactly one of \"reply\", \"response\" or \"error\""
    );
    let err = Scripted::from_file(Path::new("/nonexistent/deft.jsonl")).unwrap_err();
    assert!(err.to_string().starts_with("script /nonexistent/deft.jsonl: cannot read it"), "{err}");
}

#[tokio::test]
async fn a_recorded_session_replays_offline() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("openai/response_logprobs.json")))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "Invalid image", "type": "invalid_request_error"}})),
        )
        .mount(&server)
        .await;
    let dir = scratch("record");
    let file = dir.join("session.jsonl");
    let _ = std::fs::remove_file(&file);

    // Record through the config, as agent-cli would.
    let mut cfg = config(ProviderKind::Openai, "gpt-4o", &server.uri());
    cfg.record = Some(file.clone());
    let live: AnyModel = cfg.build().unwrap();
    let mut req = Request::new("sys", "Click Submit.");
    let mut totals = UsageTotals::default();
    let first = live.complete(&req, &Call::default()).await.unwrap();
    totals.add(&first);
    req.messages.push(first.choice.to_message());
    req.messages.push(tool_result("call_03", "clicked"));
    let failure = live.complete(&req, &Call::default()).await.unwrap_err();
    assert_eq!(failure.class(), ErrorClass::Rejected);

    // Replay with nothing listening.
    drop(server);
    let mut replay_cfg = ProviderConfig::new(ProviderKind::Scripted, "replay");
    replay_cfg.script = Some(file.clone());
    let replay = replay_cfg.build().unwrap();
    let mut req = Request::new("sys", "Click Submit.");
    let again = replay.complete(&req, &Call::default()).await.unwrap();
    assert_eq!(again, first, "the same response, logprobs and samples included");
    req.messages.push(again.choice.to_message());
    req.messages.push(tool_result("call_03", "clicked"));
    let err = replay.complete(&req, &Call::default()).await.unwrap_err();
    assert_eq!(err.class(), failure.class());
    assert_eq!(err.to_string(), format!("{failure} (scripted)"));

    totals.add(&again);
    assert_eq!(totals.calls, 2);
    assert_eq!(totals.usage.output_tokens, 80);
    assert!((totals.cost_usd().unwrap() - 2.0 * 0.002_12).abs() < 1e-9);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn recording_wraps_any_model() {
    let dir = scratch("wrap");
    let file = dir.join("again.jsonl");
    let _ = std::fs::remove_file(&file);
    let inner = Scripted::from_text(Path::new("inner"), "{\"reply\": {\"text\": \"hi\"}}\n").unwrap();
    let model = Record::create(inner, &file).unwrap();
    assert_eq!(model.describe().to_string(), "scripted/inner");
    model.complete(&Request::new("", "hello"), &Call::default()).await.unwrap();
    let line: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&file).unwrap().trim()).unwrap();
    assert_eq!(line["request"]["newest"], json!({"role": "user", "parts": [{"text": "hello"}]}));
    assert_eq!(line["request"]["model"], "scripted/inner");
    assert_eq!(line["response"]["choice"]["parts"], json!([{"text": "hi"}]));
    std::fs::remove_dir_all(&dir).unwrap();
}
