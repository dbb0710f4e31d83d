//! Reads a trace back, tolerating a torn last line (reported, not fatal).

use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::TraceError;
use crate::envelope::Envelope;

/// One line of a trace.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceRecord<E> {
    /// A recorder started; `at_us` of the events after it counts from this wall-clock time.
    Started {
        /// Milliseconds since the Unix epoch at the bus's `at_us` zero.
        bus_started_unix_ms: u64,
    },
    /// A published event.
    Event(Envelope<E>),
    /// The recorder fell behind and missed this many events.
    Lagged {
        /// Events missing from the trace at this point.
        missed: u64,
    },
    /// The event with this `seq` could not be serialized.
    Unserializable {
        /// The event's `seq`.
        seq: u64,
        /// The serializer's message.
        error: String,
    },
}

/// A trace read back: the records that parsed, and what was wrong with the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace<E> {
    /// Every readable line, in file order.
    pub records: Vec<TraceRecord<E>>,
    /// Lines that could not be read; empty for a trace written by a clean shutdown.
    pub diagnostics: Vec<TraceDiagnostic>,
}

impl<E> Trace<E> {
    /// The events, in file order.
    pub fn events(&self) -> impl Iterator<Item = &Envelope<E>> {
        self.records.iter().filter_map(|r| match r {
            TraceRecord::Event(e) => Some(e),
            _ => None,
        })
    }

    /// Total events the recorder reported missing.
    pub fn lagged(&self) -> u64 {
        self.records
            .iter()
            .map(|r| match r {
                TraceRecord::Lagged { missed } => *missed,
                _ => 0,
            })
            .sum()
    }
}

/// A line of a trace that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceDiagnostic {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong with it.
    pub problem: TraceProblem,
}

/// What was wrong with a trace line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceProblem {
    /// The file ends inside this line: the writer was killed while writing it.
    TruncatedLastLine {
        /// Bytes of the torn line.
        bytes: usize,
    },
    /// A complete line that is not a trace record (e.g. the torn end of an earlier run,
    /// or an event of another type).
    Malformed {
        /// The parser's message.
        error: String,
    },
}

impl fmt::Display for TraceDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            TraceProblem::TruncatedLastLine { bytes } => {
                write!(f, "line {}: truncated after {bytes} bytes (the writer stopped mid-line); skipped", self.line)
            }
            TraceProblem::Malformed { error } => {
                write!(f, "line {}: not a trace record ({error}); skipped", self.line)
            }
        }
    }
}

/// Reads the trace at `path`. Unreadable lines become [`TraceDiagnostic`]s rather than
/// errors; only failing to read the file at all is an `Err`.
pub fn read_trace<E: DeserializeOwned>(path: impl AsRef<Path>) -> Result<Trace<E>, TraceError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| TraceError::Read { path: path.into(), source })?;
    Ok(parse_trace(&bytes))
}

/// Parses trace text (what [`read_trace`] does after reading the file).
pub(crate) fn parse_trace<E: DeserializeOwned>(bytes: &[u8]) -> Trace<E> {
    let mut trace = Trace { records: Vec::new(), diagnostics: Vec::new() };
    let complete = bytes.last() == Some(&b'\n');
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    // `split` yields an empty piece after a final newline; an unterminated last piece is
    // the one a killed writer may have torn.
    let (body, tail) = match lines.split_last() {
        Some((last, body)) if !complete => (body, Some(*last)),
        Some((_, body)) => (body, None),
        None => (&[][..], None),
    };
    for (i, line) in body.iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(line) {
            Ok(record) => trace.records.push(record),
            Err(error) => {
                trace.diagnostics.push(TraceDiagnostic { line: i + 1, problem: TraceProblem::Malformed { error } })
            }
        }
    }
    if let Some(tail) = tail.filter(|t| !t.is_empty()) {
        match parse_line(tail) {
            // Only the newline is missing: the record is whole.
            Ok(record) => trace.records.push(record),
            Err(_) => trace.diagnostics.push(TraceDiagnostic {
                line: body.len() + 1,
                problem: TraceProblem::TruncatedLastLine { bytes: tail.len() },
            }),
        }
    }
    trace
}

fn parse_line<E: DeserializeOwned>(line: &[u8]) -> Result<TraceRecord<E>, String> {
    let value: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    let field = |name: &str| value.get(name).and_then(Value::as_u64);
    if let Some(ms) = field("bus_started_unix_ms") {
        return Ok(TraceRecord::Started { bus_started_unix_ms: ms });
    }
    if let Some(missed) = field("lagged") {
        return Ok(TraceRecord::Lagged { missed });
    }
    if let Some(seq) = field("unserializable") {
        let error = value.get("error").and_then(Value::as_str).unwrap_or_default().to_owned();
        return Ok(TraceRecord::Unserializable { seq, error });
    }
    serde_json::from_value(value).map(TraceRecord::Event).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, events: &[u64], diagnostics: &[TraceProblem]) {
        let trace: Trace<u32> = parse_trace(text.as_bytes());
        let seqs: Vec<u64> = trace.events().map(|e| e.seq).collect();
        assert_eq!(seqs, events, "events of {text:?}");
        let problems: Vec<_> = trace.diagnostics.into_iter().map(|d| d.problem).collect();
        assert_eq!(problems, diagnostics, "diagnostics of {text:?}");
    }

    const E1: &str = r#"{"seq":1,"at_us":5,"source":"t","event":7}"#;
    const E2: &str = r#"{"seq":2,"at_us":6,"source":"t","event":8}"#;

    #[test]
    fn empty_file_is_an_empty_trace() {
        check("", &[], &[]);
    }

    #[test]
    fn complete_lines() {
        check(&format!("{E1}\n{E2}\n"), &[1, 2], &[]);
    }

    #[test]
    fn torn_last_line_is_reported() {
        check(&format!("{E1}\n{}", &E2[..10]), &[1], &[TraceProblem::TruncatedLastLine { bytes: 10 }]);
    }

    #[test]
    fn whole_last_line_without_newline_is_kept() {
        check(&format!("{E1}\n{E2}"), &[1, 2], &[]);
    }

    #[test]
    fn torn_line_of_an_earlier_run_is_malformed_not_fatal() {
        let problems = parse_trace::<u32>(format!("{}\n{E2}\n", &E1[..9]).as_bytes()).diagnostics;
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, 1);
        assert!(matches!(problems[0].problem, TraceProblem::Malformed { .. }));
        check(&format!("{}\n{E2}\n", &E1[..9]), &[2], &[problems[0].problem.clone()]);
    }

    #[test]
    fn markers_are_records() {
        let text = format!(
            "{{\"bus_started_unix_ms\":12}}\n{E1}\n{{\"lagged\":3}}\n{{\"unserializable\":5,\"error\":\"x\"}}\n"
        );
        let trace: Trace<u32> = parse_trace(text.as_bytes());
        assert_eq!(trace.records.len(), 4);
        assert_eq!(trace.records[0], TraceRecord::Started { bus_started_unix_ms: 12 });
        assert_eq!(trace.lagged(), 3);
        assert_eq!(trace.records[3], TraceRecord::Unserializable { seq: 5, error: "x".into() });
    }
}
