//! Bracketed tags in text that stand for fields a wire format lacks (OpenAI, Gemini).
//!
//! A tag is plain text the model reads as well as the parser: `[tool call call_1 returned
//! 1 image(s), attached below]` tells the model whose screenshot follows, which it needs
//! to know anyway when the format cannot put the image inside the tool result.

/// Begins the text of a tool result whose tool failed (OpenAI has no error flag).
pub(crate) const ERROR_TAG: &str = "[error]";

/// The text that introduces a tool result's images placed after it.
pub(crate) fn images_tag(call_id: &str, n: usize) -> String {
    format!("[tool call {call_id} returned {n} image(s), attached below]")
}

/// The call id and image count of an [`images_tag`] text.
#[cfg(test)]
pub(crate) fn parse_images_tag(text: &str) -> Option<(&str, usize)> {
    let rest = text.strip_prefix("[tool call ")?.strip_suffix(" image(s), attached below]")?;
    let (id, n) = rest.rsplit_once(" returned ")?;
    Some((id, n.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_round_trips() {
        assert_eq!(parse_images_tag(&images_tag("call 7 returned x", 2)), Some(("call 7 returned x", 2)));
        assert_eq!(parse_images_tag("[tool call a returned many image(s), attached below]"), None);
        assert_eq!(parse_images_tag("hello"), None);
    }
}
