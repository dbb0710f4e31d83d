//! Wording helpers: which local server a URL points at, numbers inside provider texts.

/// A hint naming the local server a URL's port belongs to, for "not answering" errors.
pub(crate) fn local_server_hint(url: &str) -> String {
    let authority = url.split("://").nth(1).unwrap_or(url).split('/').next().unwrap_or("");
    let port = authority.rsplit_once(':').map(|(_, p)| p).unwrap_or("");
    let host = authority.rsplit_once(':').map(|(h, _)| h).unwrap_or(authority);
    let local = matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "0.0.0.0") || host.ends_with(".local");
    let hint = match port {
        "11434" => "is Ollama running? start it with `ollama serve`",
        "8000" => "is vLLM running? start it with `vllm serve <model>`",
        "8080" => "is llama.cpp's server running? start it with `llama-server -m <model.gguf>`",
        "1234" => "is LM Studio's server running? start it in LM Studio's Developer tab or with `lms server start`",
        _ if local => "is the local model server running, and on this port?",
        _ => "check the network and base_url",
    };
    format!(": {hint}")
}

/// The number right after `marker` in `text` (digits and thousands commas).
pub(crate) fn number_after(text: &str, marker: &str) -> Option<u64> {
    let start = text.find(marker)? + marker.len();
    let digits: String = text[start..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_by_port() {
        assert_eq!(
            local_server_hint("http://127.0.0.1:11434/v1/chat/completions"),
            ": is Ollama running? start it with `ollama serve`"
        );
        assert!(local_server_hint("http://localhost:1234/v1").contains("LM Studio"));
        assert!(local_server_hint("http://localhost:8000/v1").contains("vLLM"));
        assert!(local_server_hint("http://localhost:8080/v1").contains("llama-server"));
        assert!(local_server_hint("http://localhost:9999/v1").contains("local model server"));
        assert!(local_server_hint("https://api.example.com/v1").contains("network"));
    }

    #[test]
    fn numbers_in_texts() {
        assert_eq!(number_after("prompt is too long: 208310 tokens > 200000 maximum", "too long:"), Some(208_310));
        assert_eq!(number_after("208310 tokens > 200000 maximum", ">"), Some(200_000));
        assert_eq!(number_after("limit is 1,048,576 tokens", "limit is"), Some(1_048_576));
        assert_eq!(number_after("nothing here", "limit is"), None);
    }
}
