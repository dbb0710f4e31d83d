//! HTTP behaviour shared by every provider: retries, retry-after, drops, timeouts, cancel.

use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Duration;

use deft_llm::{Call, Cancel, Delta, ErrorClass, LlmError, Model, OpenAi, ProviderKind, Request};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{closed_port_url, config, raw_server};

fn ok_body() -> serde_json::Value {
    json!({"id": "c", "object": "chat.completion", "model": "m",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
}

fn client(base: &str) -> OpenAi {
    OpenAi::new(&config(ProviderKind::OpenaiCompatible, "m", base)).unwrap()
}

async fn ask(model: &OpenAi) -> Result<deft_llm::Response, LlmError> {
    model.complete(&Request::new("", "hi"), &Call::default()).await
}

/// A server answering `first` once, then 200.
async fn once_then_ok(first: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(first).up_to_n_times(1).mount(&server).await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(ok_body())).mount(&server).await;
    server
}

#[tokio::test]
async fn retry_after_headers_are_read() {
    // The precise header wins: were `retry-after: 3600` used instead, it would exceed
    // max_delay and end the call with an error.
    let server = once_then_ok(
        ResponseTemplate::new(429).insert_header("retry-after", "3600").insert_header("retry-after-ms", "5"),
    )
    .await;
    assert_eq!(ask(&client(&server.uri())).await.unwrap().attempts, 2);

    // An HTTP date already past: retry at once.
    let server =
        once_then_ok(ResponseTemplate::new(503).insert_header("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")).await;
    assert_eq!(ask(&client(&server.uri())).await.unwrap().attempts, 2);

    // Longer than max_delay: no retry; the error carries what the server asked for.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "3600"))
        .mount(&server)
        .await;
    let err = ask(&client(&server.uri())).await.unwrap_err();
    assert!(
        matches!(err, LlmError::RateLimited { attempts: 1, retry_after: Some(d), .. } if d == Duration::from_secs(3600)),
        "{err:?}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn server_errors_are_retried_a_bounded_number_of_times() {
    for status in [500, 502, 503, 504, 529] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status).set_body_json(json!({"error": {"message": "busy"}})))
            .mount(&server)
            .await;
        let err = ask(&client(&server.uri())).await.unwrap_err();
        assert!(matches!(err, LlmError::Server { attempts: 3, .. }), "{status}: {err:?}");
        assert_eq!(server.received_requests().await.unwrap().len(), 3, "{status}: max_attempts is 3");
    }
    let server = once_then_ok(ResponseTemplate::new(502)).await;
    assert_eq!(ask(&client(&server.uri())).await.unwrap().attempts, 2);
}

#[tokio::test]
async fn other_client_errors_are_never_retried() {
    for status in [400, 403, 404, 408, 409, 413, 422] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status).set_body_json(json!({"error": {"message": "no"}})))
            .mount(&server)
            .await;
        let err = ask(&client(&server.uri())).await.unwrap_err();
        assert!(!err.retryable(), "{status}: {err:?}");
        assert_eq!(server.received_requests().await.unwrap().len(), 1, "{status} was retried");
    }
}

#[tokio::test]
async fn a_connection_dropped_mid_body_is_retried_then_reported() {
    let (url, count) = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n",
        "{\"id\": \"chatcmpl-1\", \"choices\": [{\"index\": 0, \"mess",
    )
    .await;
    let err = ask(&client(&url)).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Interrupted, "{err:?}");
    assert!(matches!(err, LlmError::Interrupted { attempts: 3, .. }), "{err:?}");
    assert!(err.to_string().starts_with(&format!("the connection to {url}/chat/completions dropped")), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_stream_cut_after_text_is_not_retried() {
    let (url, count) = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 4000\r\n\r\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
    )
    .await;
    let seen = Mutex::new(String::new());
    let sink = |d: Delta<'_>| {
        if let Delta::Text(t) = d {
            seen.lock().unwrap().push_str(t);
        }
    };
    let err = client(&url).complete(&Request::new("", "hi"), &Call::streaming(&sink)).await.unwrap_err();
    assert!(matches!(err, LlmError::Interrupted { attempts: 1, .. }), "{err:?}");
    assert_eq!(*seen.lock().unwrap(), "Hel", "the text already shown is not shown twice");
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_stream_that_ends_without_its_end_marker_is_interrupted() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n",
            "text/event-stream",
        ))
        .mount(&server)
        .await;
    let sink = |_: Delta<'_>| {};
    let err = client(&server.uri()).complete(&Request::new("", "hi"), &Call::streaming(&sink)).await.unwrap_err();
    assert!(
        matches!(&err, LlmError::Interrupted { attempts: 3, detail, .. } if detail.contains("end marker")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_server_that_ignores_stream_still_delivers_the_text_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(ok_body())).mount(&server).await;
    let seen = Mutex::new(Vec::new());
    let sink = |d: Delta<'_>| seen.lock().unwrap().push(format!("{d:?}"));
    let resp = client(&server.uri()).complete(&Request::new("", "hi"), &Call::streaming(&sink)).await.unwrap();
    assert_eq!(resp.text(), "ok");
    assert_eq!(*seen.lock().unwrap(), ["Text(\"ok\")"]);
}

#[tokio::test]
async fn nothing_listening_names_the_url_at_once() {
    let base = format!("{}/v1", closed_port_url().await);
    let err = ask(&client(&base)).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Unreachable, "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&format!("the server at {base}/chat/completions is not answering (")), "{text}");
    assert!(text.contains("is the local model server running"), "{text}");
}

#[tokio::test]
async fn the_call_timeout_covers_everything() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body()).set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let call = Call { timeout: Some(Duration::from_millis(300)), ..Call::default() };
    let err = client(&server.uri()).complete(&Request::new("", "hi"), &call).await.unwrap_err();
    assert!(matches!(err, LlmError::Timeout { after, .. } if after == Duration::from_millis(300)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("no complete response from {}/chat/completions within 0.3s (the call's timeout)", server.uri())
    );
}

#[tokio::test]
async fn a_cancel_handle_ends_the_call() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body()).set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let cancel = Cancel::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        canceller.cancel();
    });
    let call = Call { cancel: Some(&cancel), ..Call::default() };
    let err = client(&server.uri()).complete(&Request::new("", "hi"), &call).await.unwrap_err();
    assert!(matches!(err, LlmError::Cancelled), "{err:?}");
    assert!(!err.retryable());
}
