//! `--trace DIR`: record every bus event to `DIR/trace-<UTC time>-<pid>.jsonl`, the
//! executor's frames to `DIR/frames/<digest>.png` (deft-trace's store, within the run's
//! budget), and say where on stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use deft_bus::{Bus, TraceRecorder};
use deft_toolbelt::{FrameRecorder, FrameSink, VerifyEvent};
use deft_trace::{FrameBudget, FrameStore};
use serde::Serialize;

use crate::exit::CliError;

/// A trace being recorded.
pub struct Trace {
    recorder: TraceRecorder,
    path: PathBuf,
    frames: Option<Arc<FrameRecorder>>,
}

impl Trace {
    /// Create `dir` if needed and start recording `bus` into a new file there.
    pub fn start<E: Serialize + Send + Sync + 'static>(bus: &Bus<E>, dir: &Path) -> Result<Trace, CliError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::usage(format!("cannot create the trace directory {}: {e}", dir.display())))?;
        let path = dir.join(file_name(SystemTime::now(), std::process::id()));
        let recorder = TraceRecorder::start(bus, &path).map_err(|e| CliError::usage(e.to_string()))?;
        eprintln!("trace: recording the bus to {}", path.display());
        Ok(Trace { recorder, path, frames: None })
    }

    /// [`Trace::start`] on an executor's bus, with its frames stored beside the trace:
    /// give [`Trace::frame_sink`] to the executor's configuration.
    pub fn start_with_frames(bus: &Bus<VerifyEvent>, dir: &Path) -> Result<Trace, CliError> {
        let mut trace = Trace::start(bus, dir)?;
        trace.frames = Some(frame_recorder(bus, dir)?);
        Ok(trace)
    }

    /// The file the events go to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the executor hands its frames, when they are recorded.
    pub fn frame_sink(&self) -> Option<Arc<dyn FrameSink>> {
        self.frames.clone().map(|f| f as Arc<dyn FrameSink>)
    }

    /// Stop, flush, and say how many events were written.
    pub fn finish(self) {
        // Frames first: their records are published on the bus the trace records.
        if let Some(f) = &self.frames {
            say_frames(&f.finish());
        }
        match self.recorder.finish() {
            Ok(s) => {
                let lag = if s.lagged > 0 {
                    format!(" ({} missed: the recorder fell behind)", s.lagged)
                } else {
                    String::new()
                };
                eprintln!("trace: {} events written to {}{lag}", s.events, s.path.display());
            }
            Err(e) => eprintln!("trace: recording to {} failed: {e}", self.path.display()),
        }
    }
}

/// A frame recorder writing into `dir/frames/` within the default budget, its records
/// published on `bus` (for faces that record their executor's bus themselves).
pub fn frame_recorder(bus: &Bus<VerifyEvent>, dir: &Path) -> Result<Arc<FrameRecorder>, CliError> {
    let store = FrameStore::open(dir, FrameBudget::default()).map_err(|e| CliError::usage(e.to_string()))?;
    FrameRecorder::start(store, bus.clone())
        .map_err(|e| CliError::usage(format!("cannot start the frame writer thread: {e}")))
}

/// One line on stderr about the frames a run kept.
pub fn say_frames(s: &deft_toolbelt::FramesSummary) {
    let skipped = if s.skipped > 0 { format!(", {} not saved (see the trace)", s.skipped) } else { String::new() };
    eprintln!("trace: {} frames ({} new files, {:.2} MB){skipped}", s.saved, s.new_files, s.bytes as f64 / 1e6);
}

/// `trace-20260122T053351.123Z-4242.jsonl`: sorts by time, unique per process.
pub fn file_name(now: SystemTime, pid: u32) -> String {
    format!("trace-{}-{pid}.jsonl", utc_stamp(now))
}

/// Compact ISO 8601 UTC time with milliseconds.
pub fn utc_stamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!("{y:04}{m:02}{day:02}T{:02}{:02}{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, d.subsec_millis())
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn stamps() {
        assert_eq!(utc_stamp(UNIX_EPOCH), "19700101T000000.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789); // 2024-02-29 12:34:56.789
        assert_eq!(utc_stamp(t), "20240229T123456.789Z");
        assert_eq!(file_name(t, 7), "trace-20240229T123456.789Z-7.jsonl");
    }

    #[test]
    fn records_a_bus() {
        let dir = std::env::temp_dir().join(format!("agent-cli-trace-{}", std::process::id()));
        let bus = Bus::<String>::new(deft_bus::BusConfig::default());
        let trace = Trace::start(&bus, &dir).unwrap();
        bus.publish("test", "hello".to_string());
        let path = trace.path.clone();
        trace.finish();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"hello\""), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
