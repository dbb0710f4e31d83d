//! Trace recording: one JSON line per event, appended and written through per event.
//!
//! Each line goes to the file in one `write` call on an unbuffered `File`, so once the
//! call returns the line is in the kernel: a process killed at any moment leaves every
//! line written before it intact (at most a torn last line, which [`read_trace`] reports).
//! No `fsync` per event: the trace survives the process dying, not the machine losing
//! power, which would cost milliseconds per event.
//!
//! Line formats (one JSON object per line):
//! - `{"bus_started_unix_ms": N}`: a recorder started (several runs may share a file)
//! - `{"seq": .., "at_us": .., "source": "..", "event": ..}`: an [`Envelope`](crate::Envelope)
//! - `{"lagged": N}`: the recorder fell behind and missed N events
//! - `{"unserializable": seq, "error": ".."}`: an event whose `Serialize` failed

mod read;
mod recorder;
mod writer;

use std::io;
use std::path::PathBuf;

pub use read::{Trace, TraceDiagnostic, TraceProblem, TraceRecord, read_trace};
pub use recorder::{TraceRecorder, TraceSummary};
pub use writer::{TraceWriter, WrittenLine};

/// What went wrong with a trace file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The trace file could not be opened or created.
    #[error("cannot open trace file {path}: {source}; check that the directory exists and is writable")]
    Open {
        /// The trace file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A line could not be written; recording stopped at the last complete line.
    #[error("cannot write to trace file {path}: {source}; recording stopped (is the disk full?)")]
    Write {
        /// The trace file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The trace file could not be read.
    #[error("cannot read trace file {path}: {source}; check the path")]
    Read {
        /// The trace file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The recorder thread could not start.
    #[error("cannot start the trace recorder thread: {0}; the system may be out of threads or memory")]
    Spawn(io::Error),
    /// The recorder thread panicked; lines written before the panic are intact.
    #[error("the trace recorder thread panicked; the trace is complete up to its last line")]
    Panicked,
}
