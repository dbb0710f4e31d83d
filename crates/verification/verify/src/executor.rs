//! The executor: its backends, its configuration, and the services its steps share.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use deft_a11y::{A11yError, Accessibility, AnyAccessibility, Scope, SnapshotOptions};
use deft_capture::Capture;
use deft_input::{Input, WindowLocator};
use deft_retry::ActionPolicy;
use deft_types::{Action, ActionKind};

use crate::backends::{Backends, ScreenText};
use crate::config::{ActionOptions, ExecutorConfig};
use crate::error::VerifyError;
use crate::event::VerifyEvent;
use crate::pump::{Pump, Waker};
use crate::read::Reading;

/// The verified executor. Every method takes `&self`; the input, window and capture
/// backends sit behind locks held only while they are called (never across an await).
///
/// Needs a tokio runtime: the first action or wait subscribes to accessibility events on a
/// background task, which is aborted when the executor is dropped.
pub struct Executor {
    pub(crate) a11y: AnyAccessibility,
    pub(crate) input: Mutex<Box<dyn Input + Send>>,
    pub(crate) windows: Option<Mutex<Box<dyn WindowLocator + Send>>>,
    pub(crate) capture: Option<Mutex<Box<dyn Capture + Send>>>,
    /// Shared so that a read can run on a thread of its own and be given up at a deadline.
    pub(crate) ocr: Option<std::sync::Arc<dyn ScreenText>>,
    pub(crate) config: ExecutorConfig,
    /// One policy per action kind, with the CLI's overrides and dismiss rules applied.
    policies: Vec<(ActionKind, ActionPolicy)>,
    pump: tokio::sync::OnceCell<Option<Pump>>,
    next_op: AtomicU64,
    /// Where and when the last held click was released (see `press.rs`): its release
    /// animation must be over before the same target's look is taken again.
    pub(crate) last_press: std::sync::Mutex<Option<(deft_types::Rect<deft_types::Physical>, std::time::Instant)>>,
    /// The inputs sent within the last [`INPUT_GRACE`], each with the element it went to
    /// when known (see [`Executor::settle`]).
    recent_inputs: std::sync::Mutex<Vec<(std::time::Instant, Option<deft_types::ElementId>)>>,
    /// When this executor last sent an input, to learn what changes by itself only from
    /// the time its effects are over (see [`Executor::changed_by_itself`]).
    last_input: std::sync::Mutex<Option<std::time::Instant>>,
}

/// How long before an input the app's own changes are looked at (at most what the pump
/// remembers).
const OWN_MOTION_LOOKBACK: std::time::Duration = std::time::Duration::from_secs(3);
/// How long after an input of this executor changes may still be that input's effects,
/// and so are not taken for the app changing by itself.
const OWN_EFFECTS: std::time::Duration = std::time::Duration::from_secs(1);

/// How long after its last input an executor keeps its connections before it may be
/// dropped. Chromium 156 crashed (SIGSEGV, 3 of 3) when the process that had just typed
/// into one of its fields closed its accessibility connection within a millisecond of the
/// keys; 50 ms later it never did (`agent-cli type` without `--verify`, measured by hand:
/// docs/real-apps.md, 3). Three times that, for a loaded machine.
const INPUT_GRACE: std::time::Duration = std::time::Duration::from_millis(150);

/// A poisoned lock only means a backend call panicked on another thread; the backend is
/// still the best there is, and an action must not panic because of it.
pub(crate) fn lock<T: ?Sized>(m: &Mutex<Box<T>>) -> MutexGuard<'_, Box<T>> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Executor {
    /// An executor over `backends`. Fails when a policy, with the overrides of `config`
    /// applied, is inconsistent (e.g. `--verify-delay` not shorter than `--timeout`).
    ///
    /// A popup that blocks the target *before* an input is dismissed automatically only
    /// when a [`crate::DismissRule`] names it; giving rules turns the policies'
    /// `blocked.auto_dismiss` on, and the rule then decides which popups and how.
    pub fn new(backends: Backends, config: ExecutorConfig) -> Result<Executor, VerifyError> {
        let mut policies = Vec::new();
        for kind in deft_retry::ALL_KINDS {
            let mut p = config
                .policies
                .get(kind)
                .with_overrides(kind, config.overrides())
                .map_err(|source| VerifyError::Policy { kind, source })?;
            if !config.dismiss_rules.is_empty() {
                p.blocked.auto_dismiss = true;
            }
            policies.push((kind, p));
        }
        Ok(Executor {
            a11y: backends.a11y,
            input: Mutex::new(backends.input),
            windows: backends.windows.map(Mutex::new),
            capture: backends.capture.map(Mutex::new),
            ocr: backends.ocr.map(std::sync::Arc::from),
            config,
            policies,
            pump: tokio::sync::OnceCell::new(),
            next_op: AtomicU64::new(1),
            last_press: std::sync::Mutex::new(None),
            recent_inputs: std::sync::Mutex::new(Vec::new()),
            last_input: std::sync::Mutex::new(None),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &ExecutorConfig {
        &self.config
    }

    /// The accessibility backend.
    pub fn a11y(&self) -> &AnyAccessibility {
        &self.a11y
    }

    /// The policy in force for `kind` (the configured one with the CLI's overrides).
    pub fn policy(&self, kind: ActionKind) -> ActionPolicy {
        self.policies
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or_else(|| self.config.policies.get(kind).clone(), |(_, p)| p.clone())
    }

    /// Carry out `action` with the executor's configuration.
    pub async fn perform(&self, action: &Action) -> deft_types::Outcome {
        self.perform_with(action, &ActionOptions::default()).await
    }

    pub(crate) fn op_id(&self) -> u64 {
        self.next_op.fetch_add(1, Ordering::Relaxed)
    }

    /// Waits, before the executor may be dropped, until its last input is at least
    /// [`INPUT_GRACE`] old: an application still handling keys when its accessibility
    /// client goes away can crash (Chromium). Inputs to an application whose toolkit is
    /// known to survive that (the backend says) need no wait. Returns at once when no
    /// input is that recent. Faces call it before they end a session.
    pub async fn settle(&self) {
        let recent = self.recent_inputs.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let mut until = None;
        for (at, to) in recent {
            let safe = match &to {
                Some(id) => self.a11y.survives_client_leaving_after_input(id).await,
                None => false,
            };
            if !safe {
                until = until.max(Some(at + INPUT_GRACE));
            }
        }
        if let Some(until) = until {
            tokio::time::sleep_until(until.into()).await;
        }
    }

    /// Notes an input sent now, to the element `to` when it is known.
    pub(crate) fn input_sent(&self, to: Option<deft_types::ElementId>) {
        let now = std::time::Instant::now();
        let mut recent = self.recent_inputs.lock().unwrap_or_else(PoisonError::into_inner);
        recent.retain(|(at, _)| now.duration_since(*at) < INPUT_GRACE);
        recent.push((now, to));
        *self.last_input.lock().unwrap_or_else(PoisonError::into_inner) = Some(now);
    }

    /// What changed by itself before `until` (the moment an input went out): what the app
    /// said changed while no input of this executor could have caused it (none within
    /// [`OWN_EFFECTS`] before). A clock, a counter, a playback position. Nothing when this
    /// executor does not listen to events.
    pub(crate) fn changed_by_itself(&self, until: std::time::Instant) -> crate::pump::SaidBefore {
        let Some(pump) = self.pump.get().and_then(|p| p.as_ref()) else { return Default::default() };
        let mut from = until.checked_sub(OWN_MOTION_LOOKBACK).unwrap_or(until);
        if let Some(last) = *self.last_input.lock().unwrap_or_else(PoisonError::into_inner) {
            from = from.max(last + OWN_EFFECTS);
        }
        if from >= until {
            return Default::default();
        }
        pump.said_between(from, until)
    }

    pub(crate) fn publish(&self, event: VerifyEvent) {
        if let Some(bus) = &self.config.bus {
            bus.publish("deft-verify", event);
        }
    }

    /// A waker for one watch: woken by accessibility events, polling otherwise.
    pub(crate) async fn waker(&self) -> Waker {
        let pump = self.pump.get_or_init(|| Pump::start(&self.a11y)).await;
        Waker::new(pump.as_ref().map(Pump::subscribe), self.config.poll_max_ms)
    }

    /// A waker woken by events only if this executor already listens to them, polling
    /// otherwise: a plain action (without verification) registers no event listener.
    /// Chromium 156 crashed when a process that had registered listeners exited right
    /// after sending it keys (`agent-cli type --target .. --text ..` without `--verify`,
    /// 3 of 3; alive without the listener: `docs/real-apps.md`, 3).
    pub(crate) fn waker_if_listening(&self) -> Waker {
        let rx = self.pump.get().and_then(|p| p.as_ref()).map(Pump::subscribe);
        Waker::new(rx, self.config.poll_max_ms)
    }

    /// The elements whose content the app said changed since `since` (nothing when this
    /// executor does not listen to events).
    pub(crate) fn changed_since(&self, since: std::time::Instant) -> Vec<deft_types::ElementId> {
        self.pump.get().and_then(|p| p.as_ref()).map(|p| p.changed_since(since)).unwrap_or_default()
    }

    /// When the app first said one of `ids` changed what it says, from `since` on (`None`
    /// when it said nothing of them, or this executor does not listen to events).
    pub(crate) fn first_said(
        &self,
        ids: &[deft_types::ElementId],
        since: std::time::Instant,
    ) -> Option<std::time::Instant> {
        self.pump.get().and_then(|p| p.as_ref()).and_then(|p| p.first_said(ids, since))
    }

    /// One read of the UI in `scope`.
    pub(crate) async fn read(&self, scope: &Scope) -> Result<Reading, A11yError> {
        let tree = self.a11y.snapshot(scope, &SnapshotOptions::default()).await?;
        Ok(Reading::new(tree))
    }
}
