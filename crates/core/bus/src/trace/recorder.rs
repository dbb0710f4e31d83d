//! Records a bus to a trace file from a dedicated thread, so file I/O never touches a publisher.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;

use serde::Serialize;
use tokio::sync::oneshot;

use super::TraceError;
use super::writer::{TraceWriter, WrittenLine};
use crate::bus::Bus;
use crate::stats::BusCounters;
use crate::subscription::{Received, Subscription, TryRecvError};

/// What a recorder wrote, returned by [`TraceRecorder::finish`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceSummary {
    /// The trace file.
    pub path: PathBuf,
    /// Event lines written.
    pub events: u64,
    /// Events the recorder missed because it fell behind (written as `lagged` lines).
    pub lagged: u64,
    /// Events written as `unserializable` lines.
    pub unserializable: u64,
}

/// Live counters, readable while the recorder runs.
#[derive(Debug, Default)]
struct Progress {
    events: AtomicU64,
    lagged: AtomicU64,
    unserializable: AtomicU64,
}

/// A bus subscriber that appends every event to a trace file, on its own thread.
///
/// It is an ordinary (bounded) subscriber: if the disk is slower than the publishers it
/// lags, and the lag is written into the trace as `{"lagged": n}` lines.
#[derive(Debug)]
pub struct TraceRecorder {
    stop: Option<oneshot::Sender<u64>>,
    bus: Arc<BusCounters>,
    thread: Option<JoinHandle<Result<(), TraceError>>>,
    progress: Arc<Progress>,
    path: PathBuf,
}

impl TraceRecorder {
    /// Opens `path` for appending, writes a `bus_started_unix_ms` line, subscribes to `bus`
    /// as "trace" and starts recording on a thread named `deft-trace`. Events published
    /// after this returns are recorded.
    pub fn start<E>(bus: &Bus<E>, path: impl AsRef<Path>) -> Result<Self, TraceError>
    where
        E: Serialize + Send + Sync + 'static,
    {
        let mut writer = TraceWriter::open(path)?;
        writer.write_started(bus.started())?;
        let path = writer.path().to_path_buf();
        let subscription = bus.subscribe("trace");
        let progress = Arc::new(Progress::default());
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("deft-trace".into())
            .spawn({
                let progress = Arc::clone(&progress);
                move || record(subscription, writer, &progress, stopped)
            })
            .map_err(TraceError::Spawn)?;
        Ok(Self { stop: Some(stop), bus: bus.counters(), thread: Some(thread), progress, path })
    }

    /// Event lines written so far. Once this reaches `n`, the first `n` recorded events
    /// are in the file and survive the process being killed.
    pub fn written(&self) -> u64 {
        self.progress.events.load(Ordering::Acquire)
    }

    /// Events the recorder has missed so far (each gap is a `lagged` line in the trace).
    pub fn lagged(&self) -> u64 {
        self.progress.lagged.load(Ordering::Acquire)
    }

    /// Records every event published before this call that the recorder has not missed,
    /// then stops and reports what it wrote. Fails if a write failed (recording stopped
    /// at that point).
    pub fn finish(mut self) -> Result<TraceSummary, TraceError> {
        self.stop_and_join()?;
        Ok(TraceSummary {
            path: self.path.clone(),
            events: self.progress.events.load(Ordering::Acquire),
            lagged: self.progress.lagged.load(Ordering::Acquire),
            unserializable: self.progress.unserializable.load(Ordering::Acquire),
        })
    }

    fn stop_and_join(&mut self) -> Result<(), TraceError> {
        if let Some(stop) = self.stop.take() {
            // Err: the thread already ended (bus dropped or a write failed).
            let _ = stop.send(self.bus.published.load(Ordering::Acquire));
        }
        match self.thread.take() {
            Some(thread) => thread.join().map_err(|_| TraceError::Panicked)?,
            None => Ok(()),
        }
    }
}

impl Drop for TraceRecorder {
    /// Drains and stops like `finish`, so a dropped recorder leaves a complete trace.
    fn drop(&mut self) {
        // The error cannot be reported from drop; `finish` is the way to see it.
        let _ = self.stop_and_join();
    }
}

fn record<E: Serialize + Send + Sync + 'static>(
    mut subscription: Subscription<E>,
    mut writer: TraceWriter,
    progress: &Progress,
    mut stopped: oneshot::Receiver<u64>,
) -> Result<(), TraceError> {
    let mut write = |received: Received<E>| -> Result<(), TraceError> {
        match received {
            Received::Event(env) => {
                let counter = match writer.write_event(&env)? {
                    WrittenLine::Event => &progress.events,
                    WrittenLine::Unserializable => &progress.unserializable,
                };
                counter.fetch_add(1, Ordering::AcqRel);
            }
            Received::Lagged { missed } => {
                writer.write_lagged(missed)?;
                progress.lagged.fetch_add(missed, Ordering::AcqRel);
            }
        }
        Ok(())
    };
    // A current-thread runtime only to wait on "next event or stop" at once; it has no
    // timers or I/O and lives on this thread only.
    let runtime = tokio::runtime::Builder::new_current_thread().build().map_err(TraceError::Spawn)?;
    runtime.block_on(async {
        let last = loop {
            tokio::select! {
                biased;
                // A dropped sender (no `finish`/drop ran) cannot happen; treat it as "stop now".
                last = &mut stopped => break last.unwrap_or(0),
                received = subscription.recv() => match received {
                    Some(r) => write(r)?,
                    None => return Ok(()),
                },
            }
        };
        // Drain what was published before the stop (buffered, or counted as lag), and no
        // further: a busy publisher must not keep `finish` waiting.
        loop {
            match subscription.try_recv() {
                Ok(Received::Event(env)) if env.seq >= last => return write(Received::Event(env)),
                Ok(r) => write(r)?,
                Err(TryRecvError::Empty | TryRecvError::Closed) => return Ok(()),
            }
        }
    })
}
