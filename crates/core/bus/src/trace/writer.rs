//! Writes trace lines to a file opened for append, one `write` call per line.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::TraceError;
use crate::envelope::Envelope;

/// Appends trace lines to a file. Use it directly to trace without a bus subscription, or
/// let a [`TraceRecorder`](super::TraceRecorder) drive it from its own thread.
#[derive(Debug)]
pub struct TraceWriter {
    // Deliberately unbuffered: a userspace buffer would hold lines a killed process loses.
    file: File,
    path: PathBuf,
    line: Vec<u8>,
}

/// What [`TraceWriter::write_event`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrittenLine {
    /// The envelope, as a JSON line.
    Event,
    /// An `unserializable` line, because the event's `Serialize` failed.
    Unserializable,
}

impl TraceWriter {
    /// Opens (or creates) `path` for appending. If a previous writer was killed mid-line,
    /// the torn line is terminated first so it cannot swallow the next one.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        let path = path.as_ref().to_path_buf();
        let opened = OpenOptions::new().read(true).append(true).create(true).open(&path);
        let file = match opened {
            Ok(file) => file,
            Err(source) => return Err(TraceError::Open { path, source }),
        };
        let mut writer = Self { file, path, line: Vec::with_capacity(256) };
        writer.end_torn_line().map_err(|source| TraceError::Open { path: writer.path.clone(), source })?;
        Ok(writer)
    }

    /// Terminates a torn last line left by a killed writer, so it cannot swallow the next.
    fn end_torn_line(&mut self) -> std::io::Result<()> {
        let len = self.file.metadata()?.len();
        if len == 0 {
            return Ok(());
        }
        let mut last = [0u8];
        self.file.seek(SeekFrom::Start(len - 1))?;
        self.file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            // Append mode: the write goes to the end whatever the read position.
            self.file.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the run header: the wall-clock time of the bus's `at_us` zero.
    pub fn write_started(&mut self, bus_started: SystemTime) -> Result<(), TraceError> {
        let ms = bus_started.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
        self.write_json(&serde_json::json!({ "bus_started_unix_ms": ms }))
    }

    /// Writes one envelope as a line. An event whose `Serialize` fails is written as an
    /// `unserializable` line instead, so the gap is visible in the trace.
    pub fn write_event<E: Serialize>(&mut self, env: &Envelope<E>) -> Result<WrittenLine, TraceError> {
        self.line.clear();
        match serde_json::to_writer(&mut self.line, env) {
            Ok(()) => {
                self.line.push(b'\n');
                self.flush_line()?;
                Ok(WrittenLine::Event)
            }
            Err(e) => {
                let line = serde_json::json!({ "unserializable": env.seq, "error": e.to_string() });
                self.write_json(&line)?;
                Ok(WrittenLine::Unserializable)
            }
        }
    }

    /// Writes a `{"lagged": missed}` line: the recorder missed that many events.
    pub fn write_lagged(&mut self, missed: u64) -> Result<(), TraceError> {
        self.write_json(&serde_json::json!({ "lagged": missed }))
    }

    fn write_json(&mut self, value: &serde_json::Value) -> Result<(), TraceError> {
        self.line.clear();
        // Serializing a `Value` into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.line, value);
        self.line.push(b'\n');
        self.flush_line()
    }

    /// One `write_all` of the whole line: a single `write` syscall for any regular file.
    fn flush_line(&mut self) -> Result<(), TraceError> {
        let result = self.file.write_all(&self.line);
        self.line.clear();
        result.map_err(|source| TraceError::Write { path: self.path.clone(), source })
    }
}
