//! The page: one self-contained HTML file. The report's data goes in as a JSON island
//! (`<script type="application/json">`, every `<`, `>` and `&` escaped as `\u00XX`, so no
//! text in it can close the element), read by a small embedded viewer that builds the
//! page with `createElement` and `textContent` only. A Content-Security-Policy allows
//! nothing from the network, images only as `data:` URLs, and only the viewer's own
//! script and style (by their SHA-256): markup injected by any other route could not run
//! a script either.

use base64::Engine;
use sha2::{Digest, Sha256};

/// The viewer's script and styles, embedded in every page.
const VIEWER_JS: &str = include_str!("viewer.js");
const VIEWER_CSS: &str = include_str!("viewer.css");

/// The page for `data` (the report, serialized).
pub fn page(data: &serde_json::Value) -> String {
    let island = escape_island(&data.to_string());
    let csp = format!(
        "default-src 'none'; img-src data:; style-src '{}'; script-src '{}'; base-uri 'none'; form-action 'none'",
        hash(VIEWER_CSS),
        hash(VIEWER_JS)
    );
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Deft trace report</title>\n<style>{VIEWER_CSS}</style>\n</head>\n<body>\n\
         <noscript>This report is drawn by its embedded script; the trace is in the JSON block below.</noscript>\n\
         <main id=\"app\"></main>\n\
         <script type=\"application/json\" id=\"deft-trace\">{island}</script>\n\
         <script>{VIEWER_JS}</script>\n</body>\n</html>\n"
    )
}

/// `'sha256-<base64>'` of a script's or style's text, as CSP names it.
fn hash(text: &str) -> String {
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes())))
}

/// JSON made safe inside a `<script>` element: `<`, `>`, `&` and the two JavaScript line
/// separators become `\u` escapes. They can only occur inside JSON strings, where the
/// escape means the same character, so the data is unchanged once parsed.
pub fn escape_island(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVIL: &str = "</script><script>alert(1)</script>\"><img src=x onerror=alert(2)>&amp;\u{2028}";

    #[test]
    fn the_island_cannot_be_closed_and_reads_back_the_same() {
        let data = serde_json::json!({ "observed": EVIL });
        let island = escape_island(&data.to_string());
        assert!(!island.contains('<') && !island.contains('>') && !island.contains('&'), "{island}");
        let back: serde_json::Value = serde_json::from_str(&island).unwrap();
        assert_eq!(back["observed"], EVIL);
        let html = page(&data);
        assert_eq!(html.matches("</script>").count(), 2, "only the island's and the viewer's own ends");
        assert!(!html.contains("<img"), "{html}");
    }

    #[test]
    fn the_viewer_never_builds_html_from_strings() {
        for banned in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "Function(",
            "setAttribute(\"on",
        ] {
            assert!(!VIEWER_JS.contains(banned), "the viewer uses {banned}");
        }
        assert!(!VIEWER_JS.contains("</script"), "the viewer's text would close its element");
    }

    #[test]
    fn nothing_loads_from_the_network() {
        let html = page(&serde_json::json!({}));
        assert!(html.contains("default-src 'none'"));
        for remote in ["http:", "https:", "//cdn", "src=\"", "href=\""] {
            assert!(!html.contains(remote), "{remote} in the page");
        }
    }
}
