//! The one integration test binary of deft-bus; topics are modules beside this file.

mod lag;
mod props;
mod pubsub;
mod request;
mod trace;

use std::path::{Path, PathBuf};

use deft_bus::{Received, Subscription, TryRecvError};
use serde::{Deserialize, Serialize};

/// The event type the tests publish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {
    /// A numbered event; tests publish `Tick(seq)` to check payloads follow their seq.
    Tick(u64),
    /// An event with an owned payload.
    Note(String),
}

/// A fresh file path under cargo's per-target temp dir, unique per test and process;
/// the file is removed when this drops.
pub struct TempPath(PathBuf);

impl std::ops::Deref for TempPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// See [`TempPath`].
pub fn temp_path(name: &str) -> TempPath {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("deft-bus");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    TempPath(path)
}

/// Reads everything waiting without blocking: `(seq, event)` pairs and lag reports.
pub fn drain<E: Clone + Send + Sync + 'static>(sub: &mut Subscription<E>) -> Vec<Received<E>> {
    let mut out = Vec::new();
    loop {
        match sub.try_recv() {
            Ok(r) => out.push(r),
            Err(TryRecvError::Empty | TryRecvError::Closed) => return out,
        }
    }
}

/// The seqs of the events in `received` (lag reports skipped).
pub fn seqs<E>(received: &[Received<E>]) -> Vec<u64> {
    received
        .iter()
        .filter_map(|r| match r {
            Received::Event(env) => Some(env.seq),
            Received::Lagged { .. } => None,
        })
        .collect()
}
