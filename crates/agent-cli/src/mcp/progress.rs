//! Progress notifications for a call whose request carried a progress token: the
//! executor's events for that call (found the target, waiting for it, input sent, what
//! was seen), and a tick every second of a wait, with its timeout as the total.
//!
//! The executor publishes every operation on one bus, and calls run concurrently, so a
//! call's events are told apart by their operation number: an action adopts the first
//! `ActionStarted` after it took the action lock (only one action runs at a time), a wait
//! the first `WaitStarted` of its condition.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use deft_bus::{Bus, Received};
use deft_retry::Step;
use deft_toolbelt::VerifyEvent;
use deft_types::Condition;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext, RoleServer};

/// How often a wait says it is still waiting.
const TICK: Duration = Duration::from_secs(1);

/// Where one call's progress goes.
pub struct Progress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    start: Instant,
    /// The last progress value sent: each must be larger than the one before.
    last: AtomicU64,
}

/// Which of the bus's operations belong to the call.
#[derive(Clone, Debug)]
pub enum Follow {
    /// The action that starts next.
    Action,
    /// The wait for this condition, which times out after this long.
    Wait {
        /// The condition.
        condition: Box<Condition>,
        /// Its timeout, the total of the progress.
        timeout_ms: u64,
    },
    /// Nothing on the bus (observations): no notifications.
    Nothing,
}

impl Progress {
    /// The progress of the request `context`, when its client asked for it.
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Arc<Progress>> {
        let token = context.meta.get_progress_token()?;
        Some(Arc::new(Progress { peer: context.peer.clone(), token, start: Instant::now(), last: AtomicU64::new(0) }))
    }

    /// Send one notification (failures are ignored: a client that went away is noticed by
    /// the session itself).
    async fn send(&self, message: String, total: Option<u64>) {
        let elapsed = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let value = {
            let mut prev = self.last.load(Ordering::Relaxed);
            loop {
                let next = elapsed.max(prev + 1);
                match self.last.compare_exchange(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => break next,
                    Err(p) => prev = p,
                }
            }
        };
        let mut p = ProgressNotificationParam::new(self.token.clone(), value as f64);
        p.total = total.map(|t| t.max(value) as f64);
        p.message = Some(message);
        let _ = self.peer.notify_progress(p).await;
    }

    /// Send one message (progress of a run: steps, not time).
    pub async fn say(&self, message: String) {
        self.send(message, None).await;
    }

    /// Forward the events of the call `follow` names until the returned guard is dropped.
    /// Subscribes before returning, so nothing the call publishes after this is missed.
    pub fn forward(self: &Arc<Self>, bus: &Bus<VerifyEvent>, follow: Follow) -> Forwarding {
        if matches!(follow, Follow::Nothing) {
            return Forwarding(None);
        }
        let mut sub = bus.subscribe("mcp-progress");
        let me = Arc::clone(self);
        let task = tokio::spawn(async move {
            let total = match &follow {
                Follow::Wait { timeout_ms, .. } => Some(*timeout_ms),
                _ => None,
            };
            let mut op: Option<u64> = None;
            let mut waiting: Option<String> = None;
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + TICK, TICK);
            loop {
                tokio::select! {
                    r = sub.recv() => {
                        let Some(Received::Event(env)) = r else {
                            if r.is_none() { break } else { continue }
                        };
                        let e = &env.event;
                        if op.is_none() {
                            op = adopt(&follow, e);
                        }
                        if op != Some(e.op()) {
                            continue;
                        }
                        if let VerifyEvent::WaitStarted { condition, .. } = e {
                            waiting = Some(deft_a11y::selector::describe_condition(condition));
                        }
                        if let Some(m) = message(e) {
                            me.send(m, total).await;
                        }
                    }
                    _ = tick.tick(), if waiting.is_some() => {
                        let secs = me.start.elapsed().as_secs_f32();
                        let until = waiting.as_deref().unwrap_or_default();
                        me.send(format!("still waiting until {until} ({secs:.0} s)"), total).await;
                    }
                }
            }
        });
        Forwarding(Some(task))
    }
}

/// Stops forwarding when dropped.
pub struct Forwarding(Option<tokio::task::JoinHandle<()>>);

impl Drop for Forwarding {
    fn drop(&mut self) {
        if let Some(t) = &self.0 {
            t.abort();
        }
    }
}

/// The operation `e` starts, when it is the one `follow` waits for.
fn adopt(follow: &Follow, e: &VerifyEvent) -> Option<u64> {
    match (follow, e) {
        (Follow::Action, VerifyEvent::ActionStarted { op, .. }) => Some(*op),
        (Follow::Wait { condition, .. }, VerifyEvent::WaitStarted { op, condition: c, .. }) if c == &**condition => {
            Some(*op)
        }
        _ => None,
    }
}

/// What a client shows for an event (`None`: not worth a notification).
fn message(e: &VerifyEvent) -> Option<String> {
    match e {
        VerifyEvent::Resolved { target, .. } => Some(match &target.role {
            Some(role) => format!("found {role} {:?}", target.name),
            None => format!("found {}", target.name),
        }),
        VerifyEvent::NotActionable { reason, .. } => Some(format!("waiting for the target: {reason}")),
        VerifyEvent::Step { step: Step::Act { method, attempt, .. }, .. } if *attempt > 1 => {
            Some(format!("attempt {attempt}: {method}"))
        }
        VerifyEvent::InputSent { what, .. } => Some(format!("sent {what}; verifying")),
        VerifyEvent::Evidence { evidence, .. } => Some(format!("seen: {}", evidence.what)),
        VerifyEvent::Held { for_ms, why, .. } => Some(format!("holding up to {for_ms} ms: {why}")),
        VerifyEvent::WaitStarted { condition, timeout_ms, .. } => Some(format!(
            "waiting until {} (at most {timeout_ms} ms)",
            deft_a11y::selector::describe_condition(condition)
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_adopts_only_its_own_operation() {
        let cond = Condition::TextAppears(deft_types::TextMatch::Exact("Saved".into()));
        let other = Condition::TextAppears(deft_types::TextMatch::Exact("Other".into()));
        let wait = Follow::Wait { condition: Box::new(cond.clone()), timeout_ms: 5000 };
        let started = |op, condition| VerifyEvent::WaitStarted { op, condition, timeout_ms: 5000 };
        assert_eq!(adopt(&wait, &started(3, other)), None);
        assert_eq!(adopt(&wait, &started(4, cond)), Some(4));
        let input = VerifyEvent::InputSent { op: 9, at_ms: 1, what: "click at (1, 2)".into() };
        assert_eq!(adopt(&Follow::Action, &input), None, "an action is adopted at its start only");
        assert_eq!(message(&input).as_deref(), Some("sent click at (1, 2); verifying"));
    }
}
