//! OpenAI-compatible chat completions against a loopback server (OpenAI, Ollama-style).

use std::sync::Mutex;

use deft_llm::{Arguments, Call, Delta, ErrorClass, LlmError, Model, OpenAi, Price, ProviderKind, StopReason};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{KEY, assert_json, bodies, config, conversation, fixture, fixture_text};

fn openai(server: &MockServer) -> OpenAi {
    OpenAi::new(&config(ProviderKind::Openai, "gpt-4o", &format!("{}/v1", server.uri()))).unwrap()
}

/// A local server the way Ollama runs: no key, `max_tokens`, a price of zero.
fn local(server: &MockServer) -> OpenAi {
    let mut c = config(ProviderKind::OpenaiCompatible, "llama3.2", &format!("{}/v1", server.uri()));
    c.api_key = None;
    c.key_source = None;
    OpenAi::new(&c).unwrap()
}

fn error_body(message: &str, kind: &str, code: serde_json::Value) -> serde_json::Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

#[tokio::test]
async fn request_and_response_follow_the_documented_shapes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(fixture("openai/response_logprobs.json")))
        .mount(&server)
        .await;
    let mut req = conversation(["call_01", "call_02"]);
    req.asks.samples = 2;
    req.asks.logprobs = Some(2);
    let resp = openai(&server).complete(&req, &Call::default()).await.unwrap();

    let received = server.received_requests().await.unwrap();
    assert_eq!(received[0].headers.get("authorization").unwrap(), &format!("Bearer {KEY}"));
    assert_json(&fixture("openai/request.json"), &bodies(&server).await[0]);

    // Choices come back in `index` order whatever the server's order.
    assert_eq!(resp.text(), "Yes, clicking it.");
    assert_eq!(resp.choice.stop.reason, StopReason::ToolUse);
    let calls: Vec<_> = resp.tool_calls().collect();
    assert_eq!(calls[0].arguments, Arguments::Json(json!({"name": "Submit"})));
    assert!(
        matches!(&calls[1].arguments, Arguments::Malformed { raw, .. } if raw == "{\"name\": \"Sub"),
        "malformed arguments are a value: {:?}",
        calls[1].arguments
    );
    let lp = resp.choice.logprobs.as_ref().unwrap();
    assert_eq!((lp[0].token.as_str(), lp[0].logprob), ("Yes", -0.31725305));
    assert_eq!(lp[0].top.iter().map(|t| t.token.as_str()).collect::<Vec<_>>(), ["Yes", "No"]);
    assert_eq!(resp.samples.len(), 1);
    assert_eq!(resp.samples[0].text(), "No.");
    assert_eq!(resp.samples[0].logprobs.as_ref().unwrap().len(), 2);
    assert_eq!(resp.samples[0].stop.reason, StopReason::EndTurn);
    // Cached tokens move out of the prompt count.
    let u = resp.usage;
    assert_eq!((u.input_tokens, u.cache_read_tokens, u.output_tokens), (176, 1024, 40));
    assert!((resp.cost_usd.unwrap() - 0.002_12).abs() < 1e-9, "{:?}", resp.cost_usd);
}

#[tokio::test]
async fn a_local_server_gets_no_key_and_max_tokens() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.2",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        })))
        .mount(&server)
        .await;
    let resp = local(&server).complete(&deft_llm::Request::new("", "hi"), &Call::default()).await.unwrap();
    let received = server.received_requests().await.unwrap();
    assert!(received[0].headers.get("authorization").is_none());
    let body = &bodies(&server).await[0];
    assert_eq!(body["max_tokens"], 4096);
    assert!(body.get("max_completion_tokens").is_none());
    assert_eq!(resp.text(), "hello");
    assert_eq!(resp.cost_usd, None, "a local model's price is unknown unless configured");

    let mut c = config(ProviderKind::OpenaiCompatible, "llama3.2", &format!("{}/v1", server.uri()));
    c.price = Some(Price { input: 0.0, output: 0.0, cache_read: 0.0, cache_write: 0.0 });
    let resp = OpenAi::new(&c).unwrap().complete(&deft_llm::Request::new("", "hi"), &Call::default()).await.unwrap();
    assert_eq!(resp.cost_usd, Some(0.0));
}

#[tokio::test]
async fn streams_text_and_tool_calls_with_usage() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(fixture_text("openai/stream.sse"), "text/event-stream"))
        .mount(&server)
        .await;
    let seen = Mutex::new(String::new());
    let sink = |d: Delta<'_>| {
        if let Delta::Text(t) = d {
            seen.lock().unwrap().push_str(&format!("[{t}]"));
        }
    };
    let resp = local(&server).complete(&conversation(["a", "b"]), &Call::streaming(&sink)).await.unwrap();
    let body = &bodies(&server).await[0];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(*seen.lock().unwrap(), "[I will ][click.]");
    assert_eq!(resp.text(), "I will click.");
    let call = resp.tool_calls().next().unwrap();
    assert_eq!((call.id.as_str(), call.name.as_str()), ("call_abc", "click"));
    assert_eq!(call.arguments, Arguments::Json(json!({"name": "OK"})));
    assert_eq!(resp.choice.stop.raw, "tool_calls");
    assert_eq!((resp.usage.input_tokens, resp.usage.output_tokens), (50, 12));
    assert_eq!(resp.model, "llama3.2");
}

async fn failing(model: fn(&MockServer) -> OpenAi, status: u16, body: serde_json::Value) -> (LlmError, usize) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(status).set_body_json(body)).mount(&server).await;
    let err = model(&server).complete(&conversation(["a", "b"]), &Call::default()).await.unwrap_err();
    (err, server.received_requests().await.unwrap().len())
}

#[tokio::test]
async fn context_too_long_says_by_how_much_for_each_server() {
    // OpenAI and vLLM.
    let (err, _) = failing(
        openai,
        400,
        error_body(
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130500 tokens. \
             Please reduce the length of the messages.",
            "invalid_request_error",
            json!("context_length_exceeded"),
        ),
    )
    .await;
    assert_eq!(
        err.to_string(),
        "the prompt is 2,500 tokens over the model's context limit of 128,000 (130,500 tokens): shorten the conversation"
    );
    // llama.cpp's server puts the numbers beside the message.
    let (err, n) = failing(
        local,
        400,
        json!({"error": {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096,
                         "message": "the request exceeds the available context size, try increasing it"}}),
    )
    .await;
    assert!(err.to_string().starts_with("the prompt is 904 tokens over the model's context limit of 4,096"), "{err}");
    assert_eq!(n, 1);
}

#[tokio::test]
async fn keys_models_and_quota() {
    let (err, n) = failing(
        openai,
        401,
        error_body("Incorrect API key provided: sk-abc.", "invalid_request_error", json!("invalid_api_key")),
    )
    .await;
    assert_eq!(err.class(), ErrorClass::Auth);
    assert!(err.to_string().contains("set a valid key in OPENAI_API_KEY"), "{err}");
    assert_eq!(n, 1);

    let (err, _) = failing(local, 401, json!({"error": "Unauthorized"})).await;
    let text = err.to_string();
    assert!(text.contains("wants a key: set api_key, or api_key_env"), "{text}");

    let (err, n) = failing(
        openai,
        404,
        error_body(
            "The model `gpt-5x` does not exist or you do not have access to it.",
            "invalid_request_error",
            json!("model_not_found"),
        ),
    )
    .await;
    let text = err.to_string();
    assert!(text.starts_with("model 'gpt-4o' not found at http://127.0.0.1:"), "{text}");
    assert!(text.contains("/v1/models -H \"Authorization: Bearer $OPENAI_API_KEY\"`"), "{text}");
    assert_eq!(n, 1);

    // Ollama's answer for a model it has not pulled.
    let (err, _) = failing(
        local,
        404,
        json!({"error": {"message": "model \"llama3.2\" not found, try pulling it first", "type": "api_error"}}),
    )
    .await;
    assert!(err.to_string().contains("list the models the server offers with `curl http://127.0.0.1:"), "{err}");

    let (err, n) = failing(
        openai,
        429,
        error_body("You exceeded your current quota.", "insufficient_quota", json!("insufficient_quota")),
    )
    .await;
    assert_eq!(err.class(), ErrorClass::Rejected, "no credit is not a rate limit: {err}");
    assert!(err.to_string().contains("check its plan and billing"));
    assert_eq!(n, 1, "never retried");

    let (err, _) = failing(
        openai,
        400,
        error_body(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "invalid_request_error",
            json!("unsupported_parameter"),
        ),
    )
    .await;
    assert!(err.to_string().contains("max_tokens_field = \"max_completion_tokens\""), "{err}");
}
