//! The sink that keeps frames beside a trace: a thread that diffs each `after` frame
//! against its operation's last `before` frame, stores it (deft-trace's `FrameStore`:
//! downscaled, by digest, within the run's budget) and then publishes its record on the
//! bus, so a record in the trace always names a file that is whole on disk.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use deft_bus::Bus;
use deft_diff::DiffOptions;
use deft_trace::{FrameStore, Stored};
use deft_types::{Frame, Physical, Rect};

use super::{FramePhase, FrameRecord, FrameShot, FrameSink};
use crate::event::VerifyEvent;

/// Frames queued for the writer at most; past it a frame is skipped (and the trace says
/// so) rather than the executor waiting or memory growing (a window frame is ~2 MB).
const QUEUE: usize = 8;
/// Changed regions at most this thin are a caret, not an effect (as in `pixels.rs`).
const CARET_PX: u32 = 3;
/// Changed regions recorded per frame at most (the rest are merged into the last).
const MAX_CHANGED: usize = 24;
/// `before` frames kept for diffing, one per operation in flight.
const MAX_OPEN_OPS: usize = 16;

/// What a [`FrameRecorder`] kept, returned by [`FrameRecorder::finish`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FramesSummary {
    /// Frames recorded with a file (new or already stored).
    pub saved: u64,
    /// New files written.
    pub new_files: u64,
    /// Bytes of the new files.
    pub bytes: u64,
    /// Frames not saved (budget spent, writer behind, an error), each recorded as such.
    pub skipped: u64,
}

/// A [`FrameSink`] that stores frames beside a trace and records each on the bus.
pub struct FrameRecorder {
    tx: Mutex<Option<SyncSender<FrameShot>>>,
    thread: Mutex<Option<JoinHandle<FramesSummary>>>,
    bus: Bus<VerifyEvent>,
    behind: AtomicU64,
}

impl fmt::Debug for FrameRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameRecorder").field("behind", &self.behind.load(Ordering::Relaxed)).finish_non_exhaustive()
    }
}

impl FrameRecorder {
    /// Starts the writer thread (`deft-frames`); its records are published on `bus`.
    pub fn start(store: FrameStore, bus: Bus<VerifyEvent>) -> std::io::Result<Arc<FrameRecorder>> {
        let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE);
        let thread = std::thread::Builder::new().name("deft-frames".into()).spawn({
            let bus = bus.clone();
            move || write(rx, store, &bus)
        })?;
        Ok(Arc::new(FrameRecorder {
            tx: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
            bus,
            behind: AtomicU64::new(0),
        }))
    }

    /// Writes what is queued, stops, and says what was kept. Later frames are recorded as
    /// skipped. Call it before finishing the trace recorder, so the last records are in it.
    pub fn finish(&self) -> FramesSummary {
        drop(self.tx.lock().unwrap_or_else(PoisonError::into_inner).take());
        let thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take();
        let mut summary = thread.and_then(|t| t.join().ok()).unwrap_or_default();
        summary.skipped += self.behind.load(Ordering::Acquire);
        summary
    }

    fn skip(&self, shot: &FrameShot, why: &str) {
        self.behind.fetch_add(1, Ordering::AcqRel);
        let record = record(shot, None, why.to_string(), Vec::new());
        self.bus.publish("deft-verify", VerifyEvent::Frame(record));
    }
}

impl FrameSink for FrameRecorder {
    fn shot(&self, shot: FrameShot) {
        let tx = self.tx.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let Some(tx) = tx else { return self.skip(&shot, "frames were no longer being recorded") };
        match tx.try_send(shot) {
            Ok(()) => {}
            Err(TrySendError::Full(shot)) => self.skip(&shot, "the frame writer fell behind: this frame was dropped"),
            Err(TrySendError::Disconnected(shot)) => self.skip(&shot, "the frame writer stopped"),
        }
    }
}

fn record(shot: &FrameShot, stored: Option<&Stored>, skipped: String, changed: Vec<Rect<Physical>>) -> FrameRecord {
    let (file, factor, bytes, skipped) = match stored {
        Some(Stored::Saved { file, factor, bytes, .. }) => (Some(file.clone()), *factor, *bytes, None),
        Some(Stored::Skipped { reason }) => (None, 1, 0, Some(reason.clone())),
        None => (None, 1, 0, Some(skipped)),
    };
    FrameRecord {
        op: shot.op,
        attempt: shot.attempt,
        phase: shot.phase,
        at_ms: shot.at_ms,
        file,
        skipped,
        region: shot.frame.screen_rect(),
        factor,
        bytes,
        target: shot.target,
        point: shot.point,
        changed,
        masked: shot.masked.clone(),
        note: shot.note.clone(),
    }
}

fn write(rx: Receiver<FrameShot>, mut store: FrameStore, bus: &Bus<VerifyEvent>) -> FramesSummary {
    let mut summary = FramesSummary::default();
    let mut before: HashMap<u64, Frame> = HashMap::new();
    for shot in rx {
        let changed = match shot.phase {
            FramePhase::After => before.remove(&shot.op).map(|b| changed(&b, &shot.frame)).unwrap_or_default(),
            FramePhase::Before => {
                if before.len() >= MAX_OPEN_OPS
                    && let Some(oldest) = before.keys().min().copied()
                {
                    before.remove(&oldest);
                }
                before.insert(shot.op, shot.frame.clone());
                Vec::new()
            }
        };
        let r = match store.save(&shot.frame) {
            Ok(stored) => {
                match &stored {
                    Stored::Saved { new, bytes, .. } => {
                        summary.saved += 1;
                        if *new {
                            summary.new_files += 1;
                            summary.bytes += bytes;
                        }
                    }
                    Stored::Skipped { .. } => summary.skipped += 1,
                }
                record(&shot, Some(&stored), String::new(), changed)
            }
            Err(e) => {
                summary.skipped += 1;
                record(&shot, None, e.to_string(), changed)
            }
        };
        bus.publish("deft-verify", VerifyEvent::Frame(r));
    }
    summary
}

/// Where `after` differs from `before` (the same screen area), caret-thin regions left out.
fn changed(before: &Frame, after: &Frame) -> Vec<Rect<Physical>> {
    if before.screen_rect() != after.screen_rect() {
        return Vec::new();
    }
    let Ok(d) = deft_diff::diff(before, after, &DiffOptions::default()) else { return Vec::new() };
    let mut rects: Vec<Rect<Physical>> = d.rects().filter(|r| r.w.min(r.h) > CARET_PX).collect();
    if rects.len() > MAX_CHANGED {
        let rest = rects.split_off(MAX_CHANGED - 1);
        rects.extend(rest.into_iter().reduce(|a, b| a.union(&b)));
    }
    rects
}

#[cfg(test)]
mod tests {
    use deft_bus::{BusConfig, Received};
    use deft_trace::FrameBudget;
    use deft_types::Point;

    use super::*;

    fn frame(dark: Option<Rect<Physical>>) -> Frame {
        let (w, h) = (60u32, 40u32);
        let mut px = vec![255u8; (w * h * 4) as usize];
        if let Some(r) = dark {
            for y in r.y..r.y + r.h as i32 {
                for x in r.x..r.x + r.w as i32 {
                    let i = ((y as u32 * w + x as u32) * 4) as usize;
                    px[i..i + 3].copy_from_slice(&[0, 0, 0]);
                }
            }
        }
        Frame::new(w, h, px, Point::new(0, 0)).unwrap()
    }

    fn shot(op: u64, phase: FramePhase, frame: Frame) -> FrameShot {
        FrameShot {
            op,
            attempt: 1,
            phase,
            at_ms: 5,
            frame,
            target: None,
            point: Some(Point::new(3, 4)),
            masked: vec![],
            note: None,
        }
    }

    #[test]
    fn records_follow_whole_files_and_name_the_change() {
        let dir = std::env::temp_dir().join(format!("deft-verify-frames-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let bus = Bus::new(BusConfig::default());
        let mut sub = bus.subscribe("test");
        let rec = FrameRecorder::start(FrameStore::open(&dir, FrameBudget::default()).unwrap(), bus.clone()).unwrap();
        rec.shot(shot(1, FramePhase::Before, frame(None)));
        rec.shot(shot(1, FramePhase::After, frame(Some(Rect::new(10, 10, 20, 8)))));
        let summary = rec.finish();
        assert_eq!((summary.saved, summary.new_files, summary.skipped), (2, 2, 0), "{summary:?}");
        let mut records = Vec::new();
        while let Ok(Received::Event(e)) = sub.try_recv() {
            if let VerifyEvent::Frame(r) = &e.event {
                records.push(r.clone());
            }
        }
        assert_eq!(records.len(), 2);
        for r in &records {
            let file = dir.join(r.file.as_deref().expect("saved"));
            assert!(std::fs::metadata(&file).unwrap().len() == r.bytes, "{r:?}");
        }
        assert_eq!(records[1].changed, vec![Rect::new(10, 10, 20, 8)]);
        assert_eq!(records[0].point, Some(Point::new(3, 4)));
        // After `finish`, a frame is recorded as skipped, never lost silently.
        rec.shot(shot(2, FramePhase::Before, frame(None)));
        let Ok(Received::Event(e)) = sub.try_recv() else { panic!("a skipped record") };
        assert!(matches!(&e.event, VerifyEvent::Frame(r) if r.file.is_none() && r.skipped.is_some()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
