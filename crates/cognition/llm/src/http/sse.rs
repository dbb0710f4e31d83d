//! An incremental server-sent-events parser (the part of the WHATWG rules the providers use).

/// One event: its `event:` name (empty when none) and its `data:` lines joined by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Feed it bytes as they arrive, in any split; it returns whole events.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes of the current, unfinished line (kept as bytes: a chunk may end inside a
    /// UTF-8 sequence).
    line: Vec<u8>,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    pub(crate) fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        for &b in bytes {
            if b == b'\n' {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.line_done(&String::from_utf8_lossy(&line), out);
            } else {
                self.line.push(b);
            }
        }
    }

    /// The stream ended: a last line without its newline still counts, and a last event
    /// without its blank line is delivered (some servers omit it; the providers' own end
    /// markers tell whether the stream was complete).
    pub(crate) fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_done(&String::from_utf8_lossy(&line), out);
        }
        self.dispatch(out);
    }

    fn line_done(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return; // a comment, used as keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = value.to_string(),
            _ => {} // id, retry: not used by model providers
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.has_data {
            out.push(SseEvent { event: std::mem::take(&mut self.event), data: std::mem::take(&mut self.data) });
        }
        self.event.clear();
        self.has_data = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out);
        }
        p.finish(&mut out);
        out
    }

    #[test]
    fn documented_shapes() {
        let text = "event: message_start\ndata: {\"a\":1}\n\n: keep-alive\n\nevent: ping\r\ndata: {}\r\n\r\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n";
        let got = parse_all(&[text.as_bytes()]);
        let ev = |e: &str, d: &str| SseEvent { event: e.into(), data: d.into() };
        assert_eq!(
            got,
            vec![ev("message_start", "{\"a\":1}"), ev("ping", "{}"), ev("", "line1\nline2"), ev("", "[DONE]")]
        );
    }

    #[test]
    fn utf8_split_inside_a_character() {
        let text = "data: héllo ✓\n\n".as_bytes();
        let got = parse_all(&[&text[..8], &text[8..15], &text[15..]]);
        assert_eq!(got, vec![SseEvent { event: String::new(), data: "héllo ✓".into() }]);
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_events(
            events in proptest::collection::vec(("[a-z_]{0,8}", "[ -~é✓]{0,20}"), 0..6),
            cuts in proptest::collection::vec(0usize..400, 0..8),
            crlf: bool,
        ) {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut text = String::new();
            for (e, d) in &events {
                if !e.is_empty() { text += &format!("event: {e}{nl}"); }
                text += &format!("data: {d}{nl}{nl}");
            }
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort();
            let mut chunks = Vec::new();
            let mut start = 0;
            for c in cuts { chunks.push(&bytes[start..c]); start = c; }
            chunks.push(&bytes[start..]);
            let got = parse_all(&chunks);
            let want: Vec<SseEvent> = events.iter().map(|(e, d)| SseEvent {
                event: e.clone(),
                // A leading space after "data:" is part of the syntax, not the value.
                data: d.clone(),
            }).collect();
            prop_assert_eq!(got, want);
        }
    }
}
