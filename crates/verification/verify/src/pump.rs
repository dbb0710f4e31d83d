//! Event-driven waking: accessibility events wake a pending check at once; without them a
//! short capped backoff polls, so a change that sends no event is still seen.
//!
//! Waiting here is never a fixed sleep: a watch ends at the first read that shows what it
//! waits for, and the read is triggered by an event as soon as one arrives. The poll
//! interval starts at [`FIRST_POLL`] and doubles up to the configured cap (50 ms by
//! default), and an event resets it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deft_a11y::{A11yEvent, Accessibility, EventFilter};
use deft_types::{ElementId, State};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// First poll interval after a read (or an event).
const FIRST_POLL: Duration = Duration::from_millis(10);
/// Least time between two reads woken by events: a burst of events (a dialog building
/// itself) is read once, not once per event.
const MIN_GAP: Duration = Duration::from_millis(8);

/// A background task that counts accessibility events, and remembers which elements'
/// content changed lately (see [`Pump::changed_since`]). Aborted on drop.
pub(crate) struct Pump {
    rx: watch::Receiver<u64>,
    recent: Arc<Mutex<VecDeque<Change>>>,
    task: JoinHandle<()>,
    /// When it began to listen: nothing before is known.
    started: Instant,
}

/// One remembered content change: when it arrived, of which element, and whether what the
/// element says (its text, name, value or description) changed, not only its children or
/// whether it shows.
#[derive(Clone, Debug)]
struct Change {
    at: Instant,
    id: ElementId,
    says: bool,
}

impl Drop for Pump {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// How long a content change is remembered.
const REMEMBERED: Duration = Duration::from_secs(3);
/// At most this many remembered changes (a page that churns keeps only its latest).
const REMEMBERED_MAX: usize = 512;

impl Pump {
    /// Subscribes to every event of `a11y`; `None` when the backend offers none (waking then
    /// relies on polling alone).
    pub async fn start<A: Accessibility>(a11y: &A) -> Option<Pump> {
        let mut stream = a11y.events(&EventFilter::default()).await.ok()?;
        let (tx, rx) = watch::channel(0u64);
        let recent = Arc::new(Mutex::new(VecDeque::new()));
        let log = Arc::clone(&recent);
        let task = tokio::spawn(async move {
            let mut n = 0u64;
            while let Some(event) = stream.next().await {
                let Ok(event) = event else { continue };
                if changes_content(&event) {
                    remember(&log, event.element().clone(), changes_what_it_says(&event));
                }
                n += 1;
                if tx.send(n).is_err() {
                    break;
                }
            }
        });
        Some(Pump { rx, recent, task, started: Instant::now() })
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.rx.clone()
    }

    /// The elements whose content (text, name, value, shown or not, children) the app said
    /// changed since `since`, each once.
    pub fn changed_since(&self, since: Instant) -> Vec<ElementId> {
        let log = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut ids: Vec<ElementId> = log.iter().filter(|c| c.at >= since).map(|c| c.id.clone()).collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// When the app first said one of `ids` changed its text, name, value or description,
    /// from `since` on: the moment the change happened as near as the bus tells it (a read
    /// that shows it can come much later, on a loaded machine a second later).
    pub fn first_said(&self, ids: &[ElementId], since: Instant) -> Option<Instant> {
        let log = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        log.iter().filter(|c| c.says && c.at >= since && ids.contains(&c.id)).map(|c| c.at).min()
    }

    /// The elements whose text, name, value or description the app said changed from
    /// `from` to `to`: those that changed more than once, at moments at least [`SEPARATE`]
    /// apart (what keeps changing: a clock, a counter), and those that changed once (a
    /// status line set by work that just ended, which the input's effect may set again; or
    /// a slow clock seen once).
    pub fn said_between(&self, from: Instant, to: Instant) -> SaidBefore {
        let from = from.max(self.started);
        let log = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut spans: std::collections::BTreeMap<&ElementId, (Instant, Instant)> = std::collections::BTreeMap::new();
        for c in log.iter().filter(|c| c.says && c.at >= from && c.at <= to) {
            let span = spans.entry(&c.id).or_insert((c.at, c.at));
            span.0 = span.0.min(c.at);
            span.1 = span.1.max(c.at);
        }
        let mut said =
            SaidBefore { watched: to.saturating_duration_since(from), to: Some(to), ..SaidBefore::default() };
        for (id, (first, last)) in spans {
            if last - first >= SEPARATE {
                said.kept_changing.push(id.clone());
            } else {
                said.changed_once.push(id.clone());
            }
        }
        said
    }
}

/// What the app said changed before an input, by itself (see [`Pump::said_between`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct SaidBefore {
    pub kept_changing: Vec<ElementId>,
    pub changed_once: Vec<ElementId>,
    /// How long the app was listened to for this (a one-shot command has listened only
    /// since it began).
    pub watched: Duration,
    /// Up to when: the moment before the input.
    pub to: Option<Instant>,
}

/// How far apart two changes of one element must be to be two changes, not one change
/// told in several events (GTK says a label's new text as a name change and a text change).
const SEPARATE: Duration = Duration::from_millis(50);

/// Whether a content change (see [`changes_content`]) is one of what the element says: its
/// text, name, value or description, or the children that say it (Chromium replaces a
/// section's text node when a page sets its text, and may tell only that); not its being
/// shown or hidden.
fn changes_what_it_says(event: &A11yEvent) -> bool {
    !matches!(event, A11yEvent::StateChanged { .. })
}

/// Whether an event says that what an element shows changed (so the layout around it may
/// follow a frame later); focus, activation and the like move nothing.
fn changes_content(event: &A11yEvent) -> bool {
    match event {
        A11yEvent::TextChanged { .. } | A11yEvent::ChildrenChanged { .. } => true,
        A11yEvent::PropertyChanged { property, .. } => {
            matches!(property.as_str(), "accessible-name" | "accessible-description" | "accessible-value")
        }
        A11yEvent::StateChanged { .. } => matches!(event.deft_state(), Some(State::Showing | State::Visible)),
        A11yEvent::Window { .. } => false,
    }
}

fn remember(log: &Mutex<VecDeque<Change>>, id: ElementId, says: bool) {
    let now = Instant::now();
    let mut log = log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    while log.front().is_some_and(|c| now.duration_since(c.at) > REMEMBERED) || log.len() >= REMEMBERED_MAX {
        log.pop_front();
    }
    log.push_back(Change { at: now, id, says });
}

/// Wakes a watcher at the next event or poll tick, whichever comes first.
pub(crate) struct Waker {
    rx: Option<watch::Receiver<u64>>,
    poll: Duration,
    cap: Duration,
    last_wake: Instant,
}

impl Waker {
    pub fn new(rx: Option<watch::Receiver<u64>>, cap_ms: u64) -> Waker {
        let cap = Duration::from_millis(cap_ms.max(1));
        let mut rx = rx;
        if let Some(rx) = &mut rx {
            rx.borrow_and_update();
        }
        Waker { rx, poll: FIRST_POLL.min(cap), cap, last_wake: Instant::now() }
    }

    /// Returns at the next event, at the next poll tick, or at `until`, whichever is first.
    pub async fn next(&mut self, until: Instant) {
        let now = Instant::now();
        if now >= until {
            return;
        }
        let tick = self.poll.min(until - now);
        enum Woke {
            Event,
            Tick,
            Closed,
        }
        let woke = match &mut self.rx {
            Some(rx) => match tokio::time::timeout(tick, rx.changed()).await {
                Ok(Ok(())) => Woke::Event,
                Ok(Err(_)) => Woke::Closed,
                Err(_) => Woke::Tick,
            },
            None => {
                tokio::time::sleep(tick).await;
                Woke::Tick
            }
        };
        if let Woke::Closed = woke {
            // The event stream ended: poll from now on.
            self.rx = None;
            tokio::time::sleep(tick).await;
        }
        let woke_by_event = matches!(woke, Woke::Event);
        if woke_by_event {
            if let Some(rx) = &mut self.rx {
                rx.borrow_and_update();
            }
            self.poll = FIRST_POLL.min(self.cap);
            let gap = self.last_wake + MIN_GAP;
            if gap > Instant::now() && gap < until {
                tokio::time::sleep_until(gap.into()).await;
            }
        } else {
            self.poll = (self.poll * 2).min(self.cap);
        }
        self.last_wake = Instant::now();
    }
}
