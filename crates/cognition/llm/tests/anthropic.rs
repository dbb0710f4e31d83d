//! Anthropic Messages against a loopback server: documented shapes, streaming, errors.

use std::sync::Mutex;

use deft_llm::{
    Anthropic, Arguments, Cache, Call, Delta, ErrorClass, LlmError, Message, Model, Opaque, Part, ProviderKind,
    Request, ResultPart, Role, StopReason, ToolResult,
};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{KEY, assert_json, bodies, config, conversation, fixture, fixture_text};

const MODEL: &str = "claude-sonnet-4-5";

fn client(server: &MockServer) -> Anthropic {
    Anthropic::new(&config(ProviderKind::Anthropic, MODEL, &server.uri())).unwrap()
}

/// The fixture's conversation: a thinking block in the first assistant turn, extended
/// thinking on, breakpoints after the prefix and the newest message.
fn request() -> Request {
    let mut r = conversation(["toolu_01", "toolu_02"]);
    r.messages[1].parts.insert(
        0,
        Part::Opaque(Opaque {
            provider: "anthropic".into(),
            block: json!({"type": "thinking", "thinking": "I should look before clicking.",
                          "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}),
        }),
    );
    r.limits.max_tokens = 4096;
    r.limits.temperature = None;
    r.asks.thinking_budget = Some(2048);
    r.cache = Cache::through_newest(r.messages.len());
    r
}

fn error_body(kind: &str, message: &str) -> serde_json::Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

#[tokio::test]
async fn request_and_response_follow_the_documented_shapes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("anthropic/response_tool_use.json")))
        .mount(&server)
        .await;
    let resp = client(&server).complete(&request(), &Call::default()).await.unwrap();

    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    let headers = &received[0].headers;
    assert_eq!(headers.get("x-api-key").unwrap(), KEY);
    assert_eq!(headers.get("anthropic-version").unwrap(), "2023-06-01");
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    assert_json(&fixture("anthropic/request.json"), &bodies(&server).await[0]);

    assert_eq!(resp.model, "claude-sonnet-4-5-20250929");
    assert_eq!(resp.attempts, 1);
    assert_eq!(resp.choice.stop.reason, StopReason::ToolUse);
    assert_eq!(resp.choice.stop.raw, "tool_use");
    assert_eq!(resp.text(), "I'll take another look.");
    let calls: Vec<_> = resp.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("toolu_03", "look"));
    assert_eq!(calls[0].arguments, Arguments::Json(json!({})));
    let u = resp.usage;
    assert_eq!((u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens), (120, 85, 30_000, 2_000));
    // Sonnet 4.5 at $3 / $15 / $0.30 read / $3.75 write per million.
    assert!((resp.cost_usd.unwrap() - 0.018_135).abs() < 1e-9, "{:?}", resp.cost_usd);
    assert!(resp.choice.logprobs.is_none(), "Anthropic gives no log-probabilities");
}

#[tokio::test]
async fn thinking_blocks_go_back_unchanged_in_the_next_turn() {
    let server = MockServer::start().await;
    let answer = fixture("anthropic/response_tool_use.json");
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(&answer)).mount(&server).await;
    let model = client(&server);
    let mut req = request();
    let first = model.complete(&req, &Call::default()).await.unwrap();
    req.messages.push(first.choice.to_message());
    req.messages.push(Message {
        role: Role::User,
        parts: vec![Part::ToolResult(ToolResult {
            call_id: "toolu_03".into(),
            name: "look".into(),
            parts: vec![ResultPart::Text("same window".into())],
            is_error: false,
        })],
    });
    req.cache = Cache::through_newest(req.messages.len());
    model.complete(&req, &Call::default()).await.unwrap();
    let sent = &bodies(&server).await[1];
    // The whole assistant turn, thinking and redacted thinking with their signatures, as received.
    assert_eq!(sent["messages"][5]["content"], answer["content"]);
}

#[tokio::test]
async fn streams_thinking_text_and_tool_input() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(fixture_text("anthropic/stream.sse"), "text/event-stream"),
        )
        .mount(&server)
        .await;
    let seen = Mutex::new(Vec::new());
    let sink = |d: Delta<'_>| seen.lock().unwrap().push(format!("{d:?}"));
    let resp = client(&server).complete(&request(), &Call::streaming(&sink)).await.unwrap();
    assert_eq!(bodies(&server).await[0]["stream"], true);
    assert_eq!(
        *seen.lock().unwrap(),
        ["Thinking(\"Find the \")", "Thinking(\"button.\")", "Text(\"Clicking \")", "Text(\"Submit.\")"]
    );
    assert_eq!(resp.choice.parts.len(), 3);
    assert_eq!(
        resp.choice.parts[0],
        Part::Opaque(Opaque {
            provider: "anthropic".into(),
            block: json!({"type": "thinking", "thinking": "Find the button.",
                          "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}),
        })
    );
    assert_eq!(resp.text(), "Clicking Submit.");
    let call = resp.tool_calls().next().unwrap();
    assert_eq!((call.id.as_str(), call.arguments.json()), ("toolu_04", Some(&json!({"name": "Submit"}))));
    assert_eq!(resp.choice.stop.reason, StopReason::ToolUse);
    assert_eq!((resp.usage.input_tokens, resp.usage.cache_read_tokens, resp.usage.output_tokens), (25, 1000, 89));
}

#[tokio::test]
async fn an_overloaded_stream_is_retried_before_any_text() {
    let server = MockServer::start().await;
    let overloaded = "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(overloaded, "text/event-stream"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(fixture_text("anthropic/stream.sse"), "text/event-stream"),
        )
        .mount(&server)
        .await;
    let sink = |_: Delta<'_>| {};
    let resp = client(&server).complete(&request(), &Call::streaming(&sink)).await.unwrap();
    assert_eq!(resp.attempts, 2);
    assert_eq!(resp.text(), "Clicking Submit.");

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(overloaded, "text/event-stream"))
        .mount(&server)
        .await;
    let err = client(&server).complete(&request(), &Call::streaming(&sink)).await.unwrap_err();
    assert!(matches!(err, LlmError::Server { status: 529, attempts: 3, .. }), "{err:?}");
}

#[tokio::test]
async fn overloaded_529_is_retried_then_reported() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(error_body("overloaded_error", "Overloaded")))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("anthropic/response_tool_use.json")))
        .mount(&server)
        .await;
    let resp = client(&server).complete(&request(), &Call::default()).await.unwrap();
    assert_eq!(resp.attempts, 3);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(error_body("overloaded_error", "Overloaded")))
        .mount(&server)
        .await;
    let err = client(&server).complete(&request(), &Call::default()).await.unwrap_err();
    assert!(matches!(err, LlmError::Server { status: 529, attempts: 3, .. }), "{err:?}");
    assert!(err.retryable());
    assert_eq!(err.to_string(), "anthropic failed with HTTP 529 after 3 attempt(s): Overloaded");
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

async fn failing(status: u16, body: serde_json::Value) -> (LlmError, usize) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(status).set_body_json(body)).mount(&server).await;
    let err = client(&server).complete(&request(), &Call::default()).await.unwrap_err();
    (err, server.received_requests().await.unwrap().len())
}

#[tokio::test]
async fn common_failures_read_clearly_and_are_not_retried() {
    let (err, n) = failing(401, error_body("authentication_error", "invalid x-api-key")).await;
    assert_eq!(err.class(), ErrorClass::Auth);
    assert_eq!(
        err.to_string(),
        "anthropic rejected the API key (HTTP 401: invalid x-api-key): set a valid key in ANTHROPIC_API_KEY \
         or api_key in the [model] section of the config (the rejected key came from api_key in the config)"
    );
    assert_eq!(n, 1);

    let (err, n) = failing(404, error_body("not_found_error", "model: claude-nope")).await;
    assert_eq!(err.class(), ErrorClass::NotFound);
    let text = err.to_string();
    assert!(text.starts_with("model 'claude-sonnet-4-5' not found at http://127.0.0.1:"), "{text}");
    assert!(text.contains("list the models your key can use with `curl http://127.0.0.1:"), "{text}");
    assert!(text.contains("/v1/models -H \"x-api-key: $ANTHROPIC_API_KEY\""), "{text}");
    assert_eq!(n, 1);

    let (err, n) =
        failing(400, error_body("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")).await;
    assert_eq!(
        err.to_string(),
        "the prompt is 8,310 tokens over the model's context limit of 200,000 (208,310 tokens): shorten the conversation"
    );
    assert_eq!(n, 1);

    let (err, n) = failing(400, error_body("invalid_request_error", "messages.0.content: Field required")).await;
    assert_eq!(err.to_string(), "anthropic rejected the request (HTTP 400): messages.0.content: Field required");
    assert_eq!(n, 1);
}

#[tokio::test]
async fn malformed_json_is_a_clear_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("{\"id\": \"msg_1\", \"content\": [", "application/json"))
        .mount(&server)
        .await;
    let err = client(&server).complete(&request(), &Call::default()).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::BadResponse);
    let text = err.to_string();
    assert!(text.starts_with(&format!("the response from {}/v1/messages could not be read", server.uri())), "{text}");
    assert!(text.contains("the body begins: {\"id\": \"msg_1\""), "{text}");
}

#[tokio::test]
async fn several_samples_are_several_calls() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("anthropic/response_tool_use.json")))
        .mount(&server)
        .await;
    let mut req = request();
    req.asks.samples = 3;
    let resp = client(&server).complete(&req, &Call::default()).await.unwrap();
    assert_eq!(resp.samples.len(), 2);
    assert_eq!(resp.usage.output_tokens, 3 * 85);
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}
