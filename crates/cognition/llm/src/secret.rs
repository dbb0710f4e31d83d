//! `Secret`: an API key that never prints, never serializes and never reaches an error.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The text every formatting of a [`Secret`] shows instead of the key.
pub const REDACTED: &str = "[redacted]";

/// An API key. `Debug`, `Display` and `Serialize` all print [`REDACTED`], so a key cannot
/// end up in a log, a trace, a recorded session or a config dump by accident; only
/// [`Secret::expose`] gives the key, and only the HTTP layer calls it.
///
/// It deserializes from a plain string, so a config file can hold `api_key = "..."`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself: for an HTTP header, nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the key is empty (an empty variable counts as no key).
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// `text` with every trace of this key removed: the key itself, and any word that
    /// starts with its first 8 characters (providers echo keys masked, `sk-abc12***xyz`).
    pub fn scrub(&self, text: &str) -> String {
        let key = self.0.trim();
        if key.len() < 8 {
            // Too short to tell apart from ordinary words; still remove exact copies.
            return if key.is_empty() { text.to_string() } else { text.replace(key, REDACTED) };
        }
        let text = text.replace(key, REDACTED);
        let prefix = &key[..8];
        if !text.contains(prefix) {
            return text;
        }
        text.split_inclusive(char::is_whitespace)
            .map(|word| {
                if word.contains(prefix) {
                    let tail: String = word.chars().rev().take_while(|c| c.is_whitespace()).collect();
                    format!("{REDACTED}{tail}")
                } else {
                    word.to_string()
                }
            })
            .collect()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(REDACTED)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints() {
        let s = Secret::new("sk-live-abcdef123456");
        assert_eq!(format!("{s} {s:?} {}", serde_json::to_string(&s).unwrap()), "[redacted] [redacted] \"[redacted]\"");
        assert_eq!(s.expose(), "sk-live-abcdef123456");
    }

    #[test]
    fn scrub_removes_exact_and_masked_copies() {
        let s = Secret::new("sk-live-abcdef123456");
        let text = "Incorrect API key provided: sk-live-ab***3456. Also sk-live-abcdef123456!";
        let out = s.scrub(text);
        assert!(!out.contains("sk-live-ab"), "{out}");
        assert!(out.starts_with("Incorrect API key provided: [redacted] Also"), "{out}");
    }
}
