//! Trace recording: read back, torn lines, lag lines, and a writer killed with SIGKILL.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deft_bus::{
    Bus, BusConfig, Envelope, Trace, TraceError, TraceProblem, TraceRecord, TraceRecorder, TraceWriter, read_trace,
};
use serde::{Serialize, Serializer};

use crate::{Ev, temp_path};

/// Checks that the events of `trace` and its lag lines account for `1..=last` exactly once,
/// in order, and returns `last`.
fn check_contiguous(trace: &Trace<Ev>) -> u64 {
    let mut next = 1;
    for record in &trace.records {
        match record {
            TraceRecord::Event(env) => {
                assert_eq!(env.seq, next, "gap or reorder at seq {}", env.seq);
                assert_eq!(env.event, Ev::Tick(env.seq));
                next += 1;
            }
            TraceRecord::Lagged { missed } => next += missed,
            TraceRecord::Started { .. } | TraceRecord::Unserializable { .. } => {}
        }
    }
    next - 1
}

#[test]
fn recorded_events_read_back() {
    const N: u64 = 500;
    let path = temp_path("read-back");
    let bus = Bus::<Ev>::new(BusConfig { capacity: 1024 });
    let recorder = TraceRecorder::start(&bus, &path).unwrap();
    for i in 1..=N {
        bus.publish("test", Ev::Tick(i));
    }
    let summary = recorder.finish().unwrap();
    assert_eq!((summary.events, summary.lagged, summary.unserializable), (N, 0, 0));

    let trace = read_trace::<Ev>(&path).unwrap();
    assert!(trace.diagnostics.is_empty(), "{:?}", trace.diagnostics);
    assert!(matches!(trace.records[0], TraceRecord::Started { bus_started_unix_ms } if bus_started_unix_ms > 0));
    assert_eq!(check_contiguous(&trace), N);
    assert_eq!(trace.events().count() as u64, N);
    assert_eq!(trace.events().next().unwrap().source, "test");
    assert!(bus.stats().subscribers.is_empty(), "the recorder unsubscribed");
}

#[test]
fn a_truncated_last_line_loses_only_that_event_and_is_reported() {
    const N: u64 = 20;
    let path = temp_path("truncated");
    let bus = Bus::<Ev>::default();
    let recorder = TraceRecorder::start(&bus, &path).unwrap();
    for i in 1..=N {
        bus.publish("test", Ev::Tick(i));
    }
    recorder.finish().unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len - 7).unwrap();

    let trace = read_trace::<Ev>(&path).unwrap();
    assert_eq!(check_contiguous(&trace), N - 1);
    assert_eq!(trace.diagnostics.len(), 1);
    let diagnostic = &trace.diagnostics[0];
    assert_eq!(diagnostic.line as u64, N + 1, "header line + N events");
    assert!(matches!(diagnostic.problem, TraceProblem::TruncatedLastLine { .. }));
    assert!(diagnostic.to_string().contains("truncated"), "{diagnostic}");

    // A new run appends cleanly after the torn line; the torn line stays reported.
    let bus = Bus::<Ev>::default();
    let recorder = TraceRecorder::start(&bus, &path).unwrap();
    bus.publish("second run", Ev::Tick(1));
    recorder.finish().unwrap();
    let trace = read_trace::<Ev>(&path).unwrap();
    let runs = trace.records.iter().filter(|r| matches!(r, TraceRecord::Started { .. })).count();
    assert_eq!(runs, 2);
    assert_eq!(trace.events().count() as u64, N);
    assert_eq!(trace.events().last().unwrap().source, "second run");
    assert_eq!(trace.diagnostics.len(), 1);
    assert!(matches!(trace.diagnostics[0].problem, TraceProblem::Malformed { .. }));
}

#[test]
fn a_recorder_that_falls_behind_writes_its_lag_into_the_trace() {
    const N: u64 = 20_000;
    let path = temp_path("lagging");
    // A buffer of 1 makes the recorder lag whenever the publisher outpaces one write.
    let bus = Bus::<Ev>::new(BusConfig { capacity: 1 });
    let recorder = TraceRecorder::start(&bus, &path).unwrap();
    for i in 1..=N {
        bus.publish("test", Ev::Tick(i));
    }
    let summary = recorder.finish().unwrap();
    assert_eq!(summary.events + summary.lagged, N, "{summary:?}");

    let trace = read_trace::<Ev>(&path).unwrap();
    assert_eq!(check_contiguous(&trace), N);
    assert_eq!(trace.lagged(), summary.lagged);
    assert_eq!(trace.events().count() as u64, summary.events);
}

/// An event whose `Serialize` always fails.
#[derive(Debug, Clone)]
struct Unserializable;

impl Serialize for Unserializable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("refuses to serialize"))
    }
}

#[test]
fn an_unserializable_event_leaves_a_visible_line() {
    let path = temp_path("unserializable");
    let bus = Bus::<Unserializable>::default();
    let recorder = TraceRecorder::start(&bus, &path).unwrap();
    bus.publish("test", Unserializable);
    let summary = recorder.finish().unwrap();
    assert_eq!((summary.events, summary.unserializable), (0, 1));
    let trace = read_trace::<serde_json::Value>(&path).unwrap();
    assert!(matches!(
        &trace.records[1],
        TraceRecord::Unserializable { seq: 1, error } if error.contains("refuses")
    ));
}

#[test]
fn the_writer_can_be_used_without_a_bus() {
    let path = temp_path("writer");
    let mut writer = TraceWriter::open(&path).unwrap();
    let env = Envelope { seq: 7, at_us: 3, source: "direct".into(), event: Ev::Note("hi".into()) };
    writer.write_event(&env).unwrap();
    writer.write_lagged(2).unwrap();
    let trace = read_trace::<Ev>(&path).unwrap();
    assert_eq!(trace.records, [TraceRecord::Event(env), TraceRecord::Lagged { missed: 2 }]);
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().nth(1), Some(r#"{"lagged":2}"#));
}

#[test]
fn io_errors_name_the_path_and_the_remedy() {
    let missing = temp_path("no-such-dir").join("trace.jsonl");
    let err = TraceWriter::open(&missing).unwrap_err();
    assert!(matches!(err, TraceError::Open { .. }));
    assert!(err.to_string().contains("no-such-dir") && err.to_string().contains("writable"));
    let err = read_trace::<Ev>(&missing).unwrap_err();
    assert!(matches!(err, TraceError::Read { .. }), "{err}");
}

const WRITER_CHILD: &str = "DEFT_BUS_TRACE_WRITER_CHILD";

/// Not a test on its own: the body of the child process of
/// `a_trace_survives_its_writer_being_killed`, selected by an environment variable.
#[test]
fn killed_writer_child() {
    let Ok(path) = std::env::var(WRITER_CHILD) else {
        return;
    };
    let bus = Bus::<Ev>::default();
    let recorder = TraceRecorder::start(&bus, &path).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut stdout = std::io::stdout();
    for i in 1.. {
        bus.publish("child", Ev::Tick(i));
        // Report in batches, only once the recorder has written them, and keep publishing:
        // the kill then lands while the recorder is busy writing.
        if i % 100 == 0 {
            while recorder.written() < i {
                std::thread::yield_now();
            }
            writeln!(stdout, "written {i}").unwrap();
            stdout.flush().unwrap();
        }
        assert!(Instant::now() < deadline, "the parent test never killed this child");
    }
}

#[test]
fn a_trace_survives_its_writer_being_killed() {
    const KILL_AFTER: u64 = 2000;
    let path = temp_path("killed");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "trace::killed_writer_child", "--nocapture", "--test-threads=1"])
        .env(WRITER_CHILD, path.as_os_str())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kept open until after the kill: closing the pipe would make the child fail on its
    // own instead of being killed.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut confirmed = 0;
    for line in lines.by_ref() {
        if let Some(n) = line.unwrap().strip_prefix("written ") {
            confirmed = n.parse().unwrap();
            if confirmed >= KILL_AFTER {
                break;
            }
        }
    }
    // Let the child run on a little, so the kill lands while the recorder is writing.
    std::thread::sleep(Duration::from_millis(5));
    child.kill().unwrap(); // SIGKILL on Unix: no destructor, no flush, no drain
    let status = child.wait().unwrap();
    drop(lines);
    assert!(confirmed >= KILL_AFTER, "the child stopped early, after {confirmed} events");
    assert_eq!(status.code(), None, "the child must die by the signal, not exit: {status}");

    let trace = read_trace::<Ev>(&path).unwrap();
    let last = check_contiguous(&trace);
    assert!(last >= confirmed, "events {confirmed} were confirmed written, trace ends at {last}");
    // At most the line being written at the kill is torn, and only at the end.
    for d in &trace.diagnostics {
        assert!(matches!(d.problem, TraceProblem::TruncatedLastLine { .. }), "{d}");
    }
    assert!(trace.diagnostics.len() <= 1);
}
