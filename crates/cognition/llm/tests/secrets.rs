//! Keys never show: not in errors, not in Debug output, not in recordings.

use deft_llm::{AnyModel, Call, Image, Message, Model, Part, ProviderKind, Record, Request, ResultPart, ToolResult};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{KEY, config, png};

/// What must never appear: the key, or the distinctive middle of it.
fn assert_clean(text: &str) {
    assert!(!text.contains(KEY) && !text.contains("SECRETKEY"), "the key leaked: {text}");
}

#[tokio::test]
async fn provider_texts_that_echo_the_key_are_scrubbed() {
    let masked = format!("{}***cdef", &KEY[..12]);
    for (kind, status) in [
        (ProviderKind::Openai, 401),
        (ProviderKind::Anthropic, 401),
        (ProviderKind::Gemini, 400),
        (ProviderKind::Openai, 500),
        (ProviderKind::Openai, 404),
    ] {
        let server = MockServer::start().await;
        let message = format!("Incorrect API key provided: {KEY}. Also {masked}. API key not valid.");
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(status).set_body_json(json!({"error": {"message": message, "type": "x"}})),
            )
            .mount(&server)
            .await;
        let model = config(kind, "m", &server.uri()).build().unwrap();
        let err = model.complete(&Request::new("", "hi"), &Call::default()).await.unwrap_err();
        assert_clean(&err.to_string());
        assert_clean(&format!("{err:?}"));
        assert!(err.to_string().contains("Incorrect API key provided: [redacted]"), "{err}");
    }
}

#[tokio::test]
async fn clients_and_configs_print_no_key() {
    for kind in [ProviderKind::Anthropic, ProviderKind::Openai, ProviderKind::OpenaiCompatible, ProviderKind::Gemini] {
        let c = config(kind, "m", "http://127.0.0.1:9");
        assert_clean(&format!("{c:?}"));
        assert_clean(&serde_json::to_string(&c).unwrap());
        assert_clean(&toml::to_string(&c).unwrap());
        let model: AnyModel = c.build().unwrap();
        assert_clean(&format!("{model:?}"));
    }
    assert_clean(&format!(
        "{:?}",
        deft_llm::Anthropic::new(&config(ProviderKind::Anthropic, "m", "http://x")).unwrap()
    ));
    assert_clean(&format!("{:?}", deft_llm::OpenAi::new(&config(ProviderKind::Openai, "m", "http://x")).unwrap()));
    assert_clean(&format!("{:?}", deft_llm::Gemini::new(&config(ProviderKind::Gemini, "m", "http://x")).unwrap()));
}

#[tokio::test]
async fn a_recording_holds_neither_keys_nor_image_bytes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "I see it"}, "finish_reason": "stop"}]
        })))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"error": {"message": format!("bad key {KEY}")}})))
        .mount(&server)
        .await;
    let dir = std::env::temp_dir().join(format!("deft-llm-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("session.jsonl");
    let _ = std::fs::remove_file(&file);
    let inner = deft_llm::OpenAi::new(&config(ProviderKind::Openai, "gpt-4o", &server.uri())).unwrap();
    let model = Record::create(inner, &file).unwrap();
    let big = Image::png((0..=255u8).cycle().take(4096).collect());
    let mut req = Request::new("", "look");
    req.messages.push(Message::assistant("ok"));
    req.messages.push(Message {
        role: deft_llm::Role::User,
        parts: vec![
            Part::ToolResult(ToolResult {
                call_id: "c".into(),
                name: "look".into(),
                parts: vec![ResultPart::Image(big.clone())],
                is_error: false,
            }),
            Part::Image(png()),
        ],
    });
    model.complete(&req, &Call::default()).await.unwrap();
    model.complete(&req, &Call::default()).await.unwrap_err();
    let text = std::fs::read_to_string(&file).unwrap();
    assert_clean(&text);
    assert!(text.contains(&big.sha256()) && text.contains(&png().sha256()), "images are referenced by digest");
    assert!(!text.contains("iVBORw0KGgo") && !text.contains("AAECAwQFBgcICQ"), "image bytes were written");
    assert_eq!(text.lines().count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
