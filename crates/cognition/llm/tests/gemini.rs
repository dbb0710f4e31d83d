//! Gemini generateContent against a loopback server: shapes, signatures, streaming, errors.

use std::sync::Mutex;
use std::time::Duration;

use deft_llm::{Call, Delta, ErrorClass, Gemini, LlmError, Model, Opaque, Part, ProviderKind, StopReason};
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{KEY, assert_json, bodies, config, conversation, fixture, fixture_text};

const SIG: &str = "CiQBcsjafNnJHnB2EDRvPyr3gDqgDwM3ONmS6AlpLLWhUsRFvrk=";

fn client(server: &MockServer) -> Gemini {
    Gemini::new(&config(ProviderKind::Gemini, "gemini-2.5-flash", &format!("{}/v1beta", server.uri()))).unwrap()
}

fn request() -> deft_llm::Request {
    let mut r = conversation(["call_01", "call_02"]);
    if let Part::ToolCall(c) = &mut r.messages[1].parts[1] {
        c.signature = Some(SIG.into());
    }
    r.asks.samples = 2;
    r.asks.logprobs = Some(2);
    r
}

fn error_body(code: u16, status: &str, message: &str, details: serde_json::Value) -> serde_json::Value {
    json!({"error": {"code": code, "message": message, "status": status, "details": details}})
}

#[tokio::test]
async fn request_and_response_follow_the_documented_shapes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.5-flash:generateContent"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("gemini/response.json")))
        .mount(&server)
        .await;
    let model = client(&server);
    let mut req = request();
    let resp = model.complete(&req, &Call::default()).await.unwrap();
    let received = server.received_requests().await.unwrap();
    assert_eq!(received[0].headers.get("x-goog-api-key").unwrap(), KEY);
    assert!(received[0].url.query().is_none(), "the key travels in a header, never in the URL");
    assert_json(&fixture("gemini/request.json"), &bodies(&server).await[0]);

    assert_eq!(resp.model, "gemini-2.5-flash");
    assert_eq!(resp.text(), "Looking again.");
    assert_eq!(resp.choice.stop.reason, StopReason::ToolUse);
    assert!(
        matches!(&resp.choice.parts[0], Part::Opaque(o) if o.thinking_text() == Some("I should check the screen again."))
    );
    let call = resp.tool_calls().next().unwrap().clone();
    assert_eq!(call.id, "call_1", "no id from the model: one is made");
    assert_eq!(call.signature.as_deref(), Some("CiQBcsjafAb8yMtMZ0lYcnyLC1VWoRBSktz4fmUhWhZPm2xBbNM="));
    let lp = resp.choice.logprobs.as_ref().unwrap();
    assert_eq!((lp[0].token.as_str(), lp[0].logprob, lp[0].top.len()), ("Looking", -0.05, 2));
    assert_eq!(resp.samples[0].text(), "Done.");
    let u = resp.usage;
    assert_eq!((u.input_tokens, u.cache_read_tokens, u.output_tokens), (1000, 4000, 130));

    // The next turn sends the thought and the signature back on their parts.
    req.messages.push(resp.choice.to_message());
    req.messages.push(deft_llm::Message::user("go on"));
    model.complete(&req, &Call::default()).await.unwrap();
    let sent = &bodies(&server).await[1]["contents"][5];
    assert_eq!(sent["role"], "model");
    assert_eq!(sent["parts"][0], json!({"text": "I should check the screen again.", "thought": true}));
    assert_eq!(sent["parts"][2]["thoughtSignature"], "CiQBcsjafAb8yMtMZ0lYcnyLC1VWoRBSktz4fmUhWhZPm2xBbNM=");
    assert_eq!(sent["parts"][2]["functionCall"], json!({"id": "call_1", "name": "look", "args": {}}));
}

#[tokio::test]
async fn streams_thoughts_and_text() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.5-flash:streamGenerateContent"))
        .and(query_param("alt", "sse"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(fixture_text("gemini/stream.sse"), "text/event-stream"))
        .mount(&server)
        .await;
    let seen = Mutex::new(Vec::new());
    let sink = |d: Delta<'_>| seen.lock().unwrap().push(format!("{d:?}"));
    let resp = client(&server).complete(&deft_llm::Request::new("", "hi"), &Call::streaming(&sink)).await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        ["Thinking(\"Pondering the \")", "Thinking(\"layout.\")", "Text(\"The button \")", "Text(\"is gone.\")"]
    );
    assert_eq!(
        resp.choice.parts,
        [
            Part::Opaque(Opaque {
                provider: "gemini".into(),
                block: json!({"text": "Pondering the layout.", "thought": true})
            }),
            Part::Text("The button is gone.".into()),
            Part::Opaque(Opaque { provider: "gemini".into(), block: json!({"thoughtSignature": "c2lnbmF0dXJl"}) }),
        ]
    );
    assert_eq!(resp.choice.stop.reason, StopReason::EndTurn);
    assert_eq!((resp.usage.input_tokens, resp.usage.output_tokens), (40, 6));
}

async fn failing(status: u16, body: serde_json::Value) -> (LlmError, usize) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(status).set_body_json(body)).mount(&server).await;
    let err = client(&server).complete(&request(), &Call::default()).await.unwrap_err();
    (err, server.received_requests().await.unwrap().len())
}

#[tokio::test]
async fn common_failures_read_clearly() {
    let (err, n) = failing(
        400,
        error_body(
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            json!([{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]),
        ),
    )
    .await;
    assert_eq!(err.class(), ErrorClass::Auth);
    assert!(err.to_string().contains("set a valid key in GEMINI_API_KEY (or GOOGLE_API_KEY)"), "{err}");
    assert_eq!(n, 1);

    let (err, _) = failing(
        404,
        error_body(
            404,
            "NOT_FOUND",
            "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.",
            json!([]),
        ),
    )
    .await;
    let text = err.to_string();
    assert!(text.starts_with("model 'gemini-2.5-flash' not found at http://127.0.0.1:"), "{text}");
    assert!(text.contains("/v1beta/models -H \"x-goog-api-key: $GEMINI_API_KEY\"`"), "{text}");

    let (err, _) = failing(
        400,
        error_body(
            400,
            "INVALID_ARGUMENT",
            "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
            json!([]),
        ),
    )
    .await;
    assert!(
        err.to_string().starts_with("the prompt is 185,991 tokens over the model's context limit of 1,048,576"),
        "{err}"
    );
}

fn quota(delay: &str) -> serde_json::Value {
    error_body(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota.",
        json!([{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}]),
    )
}

#[tokio::test]
async fn the_wait_in_the_error_body_is_honoured() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(quota("0.01s")))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("gemini/response.json")))
        .mount(&server)
        .await;
    assert_eq!(client(&server).complete(&request(), &Call::default()).await.unwrap().attempts, 2);

    // An hour is longer than max_delay: no retry, and the error says what was asked.
    let (err, n) = failing(429, quota("3600s")).await;
    assert!(
        matches!(err, LlmError::RateLimited { attempts: 1, retry_after: Some(d), .. } if d == Duration::from_secs(3600)),
        "{err:?}"
    );
    assert!(err.to_string().contains("asks to retry after 3600.0s"), "{err}");
    assert_eq!(n, 1);
}
