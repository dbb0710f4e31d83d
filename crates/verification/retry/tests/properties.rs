//! Property tests: for any policy and any observations, the engine ends within its budgets,
//! never orders an input the hazard rules forbid, and reports exactly the inputs it ordered.

use deft_retry::{
    ALL_KINDS, ActionContext, ActionPolicy, EarlyFallback, Engine, Feedback, Observation, PolicySet, Report, Signals,
    Step, Symptoms, Toggle, methods_for,
};
use deft_types::{ActionKind, AttemptResult, Method};
use proptest::prelude::*;

use crate::dsl::dialog;

/// A random but valid policy and context.
fn setup() -> impl Strategy<Value = (ActionPolicy, ActionContext)> {
    // Click comes up half the time: its pointer methods are where the early rule lives.
    let kind = (prop_oneof![Just(0), 0..ALL_KINDS.len()], proptest::collection::vec(0..3usize, 1..5));
    let times = (1..6000u64, 0..6000u64, 1..600u64, 0..20_000u64, 0..4000u64);
    let classes = (1..3000u64, 0..6000u64, any::<bool>(), 0..3u32, 0..4u32, 0..5u32);
    let backoff = (0..600u64, 1..5u32, 0..4000u64, prop::bool::weighted(0.85));
    let flags = (prop::bool::weighted(0.25), any::<bool>(), prop::bool::weighted(0.9), any::<bool>(), any::<bool>());
    let rest = (0..6u32, 0..3u8, flags, (prop::bool::weighted(0.2), prop::bool::weighted(0.2)));
    (kind, times, classes, backoff, rest).prop_map(
        |(
            (k, chain),
            (window, delay, poll, extra_total, early_ms),
            (extend, max_extra, auto_dismiss, dismissals, reresolves, transient),
            (initial, factor, backoff_extra, fallback),
            (max_retries, early, (toggle, idempotent, verify, expectation, stop_when_received), (blind, single_input)),
        )| {
            let kind = ALL_KINDS[k];
            let methods = methods_for(kind);
            let mut p = PolicySet::defaults().get(kind).clone();
            // Random chains, repeats included: a repeat must never be ordered early.
            p.chain = chain.iter().map(|i| methods[i % methods.len()]).collect();
            p.window_ms = window;
            p.verify_delay_ms = delay % window;
            p.poll_ms = poll;
            p.max_total_ms = p.verify_delay_ms + window + extra_total;
            p.early_fallback_ms = early_ms;
            p.early_fallback =
                [EarlyFallback::Never, EarlyFallback::Idempotent, EarlyFallback::NoFeedback][usize::from(early)];
            p.max_retries = max_retries;
            p.loading.extend_ms = extend;
            p.loading.max_extra_ms = max_extra;
            p.blocked.auto_dismiss = auto_dismiss;
            p.blocked.max_dismissals = dismissals;
            p.stale.max_reresolves = reresolves;
            p.transient.max_retries = transient;
            p.transient.backoff_initial_ms = initial;
            p.transient.backoff_factor = factor;
            p.transient.backoff_max_ms = initial + backoff_extra;
            p.no_effect.fallback = fallback;
            p.no_effect.stop_when_received = stop_when_received;
            p.validate(kind).expect("the strategy builds valid policies");
            let toggle_on = toggle && idempotent;
            let ctx = ActionContext {
                kind,
                is_toggle: toggle,
                toggle_on,
                idempotent,
                verify,
                expectation,
                blind,
                single_input,
            };
            (p, ctx)
        },
    )
}

/// The randomness behind one observation.
#[derive(Clone, Debug)]
struct Choice {
    pick: u8,
    delay: u64,
    to_deadline: bool,
    feedback: u8,
    loading: bool,
    toggle: u8,
    flags: u16,
}

fn choice() -> impl Strategy<Value = Choice> {
    let delay = prop_oneof![0..30u64, 0..4000u64];
    // Feedback is mostly "not seen" and loading rare, or early fallbacks would never happen.
    (any::<u8>(), delay, any::<bool>(), 0..5u8, prop::bool::weighted(0.15), 0..3u8, any::<u16>()).prop_map(
        |(pick, delay, to_deadline, feedback, loading, toggle, flags)| Choice {
            pick,
            delay,
            to_deadline,
            feedback,
            loading,
            toggle,
            flags,
        },
    )
}

fn symptoms(flags: u16) -> Symptoms {
    let bit = |n: u16| flags & (1 << n) != 0;
    Symptoms {
        // Rarer evidence sits on two bits, so that every class comes up often.
        busy: bit(0) && bit(1),
        loading_text: bit(2) && bit(3),
        pixels_changing: false,
        dialog_appeared: bit(4) && bit(5) && bit(6),
        hit_other_element: false,
        blocking: (bit(4) && bit(5) && bit(6) && bit(7)).then(|| dialog("Popup")),
        target_vanished: bit(8) && bit(9),
        target_moved: bit(10),
        backend_error: bit(11),
        backend_timeout: bit(12) && bit(13),
        not_found: bit(14) && bit(15) && bit(0),
        not_enabled: bit(14) && bit(15) && bit(1),
        // A refusal the target's own lack explains gives its turn to another method.
        method_unavailable: bit(7) && !bit(4),
        message: String::new(),
    }
}

fn feedback(n: u8) -> Feedback {
    match n {
        0..=2 => Feedback::NotSeen,
        3 => Feedback::Seen,
        _ => Feedback::Unknown,
    }
}

/// An observation that fits `step`, as a well-behaved executor would make it.
fn fitting(step: &Step, now: u64, c: &Choice) -> Observation {
    let start = step.not_before_ms().unwrap_or(now).max(now);
    let mut at = start + c.delay;
    let report = match step {
        Step::Act { .. } => match c.pick % 10 {
            0..=5 => Report::Sent,
            6 => Report::SendUncertain { message: "timeout".into() },
            // The target lacks the method, and nothing else is wrong.
            7 => Report::Refused(Symptoms { method_unavailable: true, ..Symptoms::new("no such action") }),
            _ => Report::Refused(symptoms(c.flags)),
        },
        Step::Verify { deadline_ms, .. } => {
            if c.to_deadline {
                at = (*deadline_ms).max(start);
            }
            match c.pick % 24 {
                0 => {
                    // An effect may be seen before the verify delay is over.
                    at = now + c.delay % (start - now + 1);
                    Report::Verified { observed: "changed".into() }
                }
                1 => Report::Unreadable { message: "read failed".into() },
                3 => Report::Received { observed: "the menu closed".into() },
                2 => Report::NoChange(Signals { blocking: Some(dialog("Late")), ..Signals::default() }),
                _ => Report::NoChange(Signals {
                    feedback: feedback(c.feedback),
                    loading: c.loading,
                    toggle: [Toggle::Unchanged, Toggle::Changed, Toggle::Unknown][usize::from(c.toggle % 3)],
                    blocking: None,
                    press_unseen: c.flags.is_multiple_of(5),
                    press_unwatched: c.flags.is_multiple_of(17),
                    keys_unseen: c.flags.is_multiple_of(11),
                    keys_astray: c.flags.is_multiple_of(13),
                    own_motion: c.flags.is_multiple_of(7).then(|| "Uptime".into()),
                    done_as_asked: c.flags.is_multiple_of(19).then(|| "Name now shows AdaAda".into()),
                    held_before: c.flags.is_multiple_of(23),
                }),
            }
        }
        Step::ReResolve { .. } => match c.pick % 3 {
            2 => Report::Refused(symptoms(c.flags)),
            _ => Report::Resolved,
        },
        Step::DismissBlocking { .. } => match c.pick % 3 {
            2 => Report::Refused(symptoms(c.flags)),
            _ => Report::Dismissed,
        },
        Step::Done(_) => Report::Sent,
    };
    Observation::new(at, report)
}

/// Any observation at all: wrong replies, times going back.
fn chaotic(now: u64, c: &Choice) -> Observation {
    let at = if c.pick.is_multiple_of(7) { now.saturating_sub(c.delay) } else { now + c.delay };
    let report = match c.pick % 8 {
        0 => Report::Sent,
        1 => Report::SendUncertain { message: "x".into() },
        2 => Report::Refused(symptoms(c.flags)),
        3 => Report::Verified { observed: "x".into() },
        4 => Report::Unreadable { message: "x".into() },
        5 => Report::Resolved,
        6 => Report::Dismissed,
        7 if c.flags.is_multiple_of(3) => Report::Received { observed: "x".into() },
        _ => Report::NoChange(Signals {
            feedback: feedback(c.feedback),
            loading: c.loading,
            toggle: [Toggle::Unchanged, Toggle::Changed, Toggle::Unknown][usize::from(c.toggle % 3)],
            blocking: None,
            press_unseen: c.flags.is_multiple_of(5),
            press_unwatched: c.flags.is_multiple_of(17),
            keys_unseen: c.flags.is_multiple_of(11),
            keys_astray: c.flags.is_multiple_of(13),
            own_motion: c.flags.is_multiple_of(7).then(|| "Uptime".into()),
            done_as_asked: c.flags.is_multiple_of(19).then(|| "x".into()),
            held_before: c.flags.is_multiple_of(23),
        }),
    };
    Observation::new(at, report)
}

/// An upper bound on the steps of one action: each reply moves time on by a poll, reaches
/// a checkpoint, or spends a bounded counter.
fn step_bound(p: &ActionPolicy) -> u64 {
    let attempts = u64::from(p.max_attempts());
    let extensions = p.loading.max_extra_ms / p.loading.extend_ms + 1;
    5 * attempts
        + p.max_total_ms / p.poll_ms
        + 2 * extensions
        + u64::from(p.stale.max_reresolves)
        + u64::from(p.blocked.max_dismissals)
        + 2 * u64::from(p.transient.max_retries)
        + 5
}

/// Steps and the observations between them: `(None, first step)`, then `(Some(obs), step)`.
type Run = Vec<(Option<Observation>, Step)>;

fn drive(p: &ActionPolicy, ctx: ActionContext, choices: &[Choice], chaos: bool) -> Run {
    let mut engine = Engine::new(p, ctx);
    let mut run = vec![(None, engine.start())];
    let mut now = 0;
    let mut i = 0;
    while run.last().unwrap().1.verdict().is_none() && (run.len() as u64) <= step_bound(p) + 1 {
        let c = &choices[i % choices.len()];
        i += 1;
        let step = &run.last().unwrap().1;
        let obs = if chaos { chaotic(now, c) } else { fitting(step, now, c) };
        now = now.max(obs.at_ms);
        let next = engine.observe(obs.clone());
        run.push((Some(obs), next));
    }
    run
}

/// The input in flight, as an outside observer of the run tracks it.
struct InFlight {
    method: Method,
    sent_ms: u64,
    uncertain: bool,
    reads: Vec<Signals>,
}

/// Checks every property on one run, from the transcript alone.
fn check_run(p: &ActionPolicy, ctx: &ActionContext, run: &Run, fitting: bool) -> Result<(), TestCaseError> {
    prop_assert!(run.len() as u64 <= step_bound(p) + 1, "too many steps: {}", run.len());
    let last = &run.last().unwrap().1;
    prop_assert!(last.verdict().is_some(), "the engine did not end: {last}");
    let mut acts: Vec<Method> = Vec::new();
    let mut in_flight: Option<InFlight> = None;
    // When each method's input was last sent: no method is sent again inside its window.
    let mut last_sent: Vec<(Method, u64)> = Vec::new();
    let mut toggle_changed = false;
    // The action's own promise read back under an expectation: its input landed.
    let mut done_as_asked = false;
    for (i, (obs, step)) in run.iter().enumerate() {
        if let Some(o) = obs {
            match &o.report {
                Report::Sent | Report::SendUncertain { .. } if matches!(run[i - 1].1, Step::Act { .. }) => {
                    let method = *acts.last().unwrap();
                    last_sent.retain(|(m, _)| *m != method);
                    last_sent.push((method, o.at_ms));
                    in_flight = Some(InFlight {
                        method,
                        sent_ms: o.at_ms,
                        uncertain: matches!(o.report, Report::SendUncertain { .. }),
                        reads: Vec::new(),
                    });
                }
                Report::NoChange(s) if matches!(run[i - 1].1, Step::Verify { .. }) => {
                    toggle_changed |= s.toggle == Toggle::Changed;
                    done_as_asked |= s.done_as_asked.is_some();
                    if let Some(f) = &mut in_flight {
                        f.reads.push(s.clone());
                    }
                }
                _ => {}
            }
            // Past the time budget, only the end may come.
            if o.at_ms >= p.max_total_ms {
                prop_assert!(step.verdict().is_some(), "{step} after the budget's end");
            }
        }
        if let Some(nb) = step.not_before_ms() {
            prop_assert!(nb < p.max_total_ms, "{step} starts past the budget");
        }
        match step {
            Step::Verify { not_before_ms, deadline_ms } => {
                prop_assert!(not_before_ms <= deadline_ms && *deadline_ms <= p.max_total_ms, "{step}");
            }
            Step::ReResolve { .. } | Step::DismissBlocking { .. } => {
                prop_assert!(in_flight.is_none(), "{step} while an input is in flight");
                let refused = obs.as_ref().is_some_and(|o| matches!(o.report, Report::Refused(_)));
                prop_assert!(refused, "{step} not after a refusal");
                if matches!(step, Step::DismissBlocking { .. }) {
                    prop_assert!(p.blocked.auto_dismiss, "dismissal without the rule");
                }
            }
            Step::Act { method, attempt, not_before_ms } => {
                if let Some((_, sent)) = last_sent.iter().find(|(m, _)| m == method) {
                    prop_assert!(
                        *not_before_ms >= sent + p.window_ms,
                        "{method:?} again at {not_before_ms}ms, inside its window from {sent}ms"
                    );
                }
                acts.push(*method);
                prop_assert_eq!(*attempt as usize, acts.len());
                prop_assert!(acts.len() as u32 <= p.max_attempts(), "attempt budget exceeded");
                if ctx.is_toggle {
                    prop_assert!(!toggle_changed, "input after the toggle changed");
                }
                if ctx.expectation {
                    prop_assert!(!done_as_asked, "input after the last one did what it does");
                }
                if let Some(f) = in_flight.take() {
                    check_repeat(p, ctx, &f, *method, obs.as_ref().unwrap())?;
                }
            }
            Step::Done(v) => {
                prop_assert_eq!(i, run.len() - 1);
                let ordered: Vec<Method> = v.attempts.iter().map(|a| a.method).collect();
                prop_assert_eq!(&ordered, &acts, "the verdict's attempts are the inputs ordered");
                prop_assert_eq!(v.budget.attempts as usize, acts.len());
                prop_assert!(v.budget.max_attempts == p.max_attempts());
                let reply = obs.as_ref().map(|o| &o.report);
                let verified = matches!(reply, Some(Report::Verified { .. }));
                let sent_unverified = !ctx.verify && matches!(reply, Some(Report::Sent));
                let received = v.attempts.last().is_some_and(|a| a.result == AttemptResult::Received);
                // Told by the executor that the input arrived and nothing else showed.
                let told_received = matches!(reply, Some(Report::Received { .. }));
                // (Only where it answered a verification: out of turn it is a protocol error.)
                let told_received = told_received && in_flight.is_some() && received;
                if told_received {
                    prop_assert!(v.ok && v.verified == Some(false), "received as told: {v}");
                }
                if received && !told_received {
                    let f = in_flight.as_ref().expect("received names the input in flight");
                    let blind = ctx.blind && !ctx.expectation;
                    prop_assert!(stops_when_received(p, ctx, f) || blind, "received without its conditions: {v}");
                    prop_assert!(matches!(reply, Some(Report::NoChange(_))), "received not after a read: {v}");
                    // Early only where nothing could verify it and it showed it arrived.
                    let early_ok = blind && f.reads.iter().any(|s| s.feedback == Feedback::Seen);
                    prop_assert!(
                        obs.as_ref().unwrap().at_ms >= f.sent_ms + p.window_ms || early_ok,
                        "received early: {v}"
                    );
                    prop_assert_eq!(v.verified, Some(false));
                    prop_assert_eq!(v.ok, !ctx.expectation);
                }
                let received_ok = received && !ctx.expectation;
                // A key without an expectation whose window passed with nothing seen: sent.
                let key_sent = ctx.kind == ActionKind::Key
                    && !ctx.expectation
                    && v.attempts.last().is_some_and(|a| a.result == AttemptResult::Sent)
                    && matches!(reply, Some(Report::NoChange(_)));
                // A blind target: the input went out and nothing could show it.
                let blind_sent = ctx.blind
                    && !ctx.expectation
                    && matches!(reply, Some(Report::NoChange(_)))
                    && v.attempts
                        .last()
                        .is_some_and(|a| matches!(a.result, AttemptResult::Sent | AttemptResult::Received));
                // An expectation that held before the input: it cannot tell, and the input went out.
                let held_sent = ctx.expectation
                    && matches!(reply, Some(Report::NoChange(s)) if s.held_before)
                    && v.attempts.last().is_some_and(|a| a.result == AttemptResult::Sent);
                let received_ok = received_ok || key_sent || blind_sent || told_received || held_sent;
                if v.ok {
                    prop_assert!(verified || sent_unverified || received_ok, "ok without evidence: {v}");
                    prop_assert_eq!(v.class, None);
                }
                if fitting {
                    prop_assert_eq!(v.ok, verified || sent_unverified || received_ok, "{}", v);
                    prop_assert!(v.ok || v.class.is_some(), "a failure without a class: {v}");
                }
            }
        }
    }
    Ok(())
}

/// Whether an input in flight was received (feedback seen in a read) where the policy
/// stops on that: then no other input may follow it.
fn stops_when_received(p: &ActionPolicy, ctx: &ActionContext, f: &InFlight) -> bool {
    p.no_effect.stop_when_received
        && matches!(ctx.kind, ActionKind::Click | ActionKind::Action)
        && (!ctx.is_toggle || ctx.expectation || ctx.toggle_on)
        && !f.uncertain
        && f.reads.iter().any(|s| s.feedback == Feedback::Seen)
}

/// An input after a sent one: only once its window passed with no change, or by an early
/// fallback whose every condition held.
fn check_repeat(
    p: &ActionPolicy,
    ctx: &ActionContext,
    f: &InFlight,
    method: Method,
    decision: &Observation,
) -> Result<(), TestCaseError> {
    let Report::NoChange(last) = &decision.report else {
        return Err(TestCaseError::fail(format!("input after {:?}, not after a no-change read", decision.report)));
    };
    // Loading holds inputs back, except an early fallback after keys watched handled
    // without effect, or gone astray (a press that never showed does not lift it).
    let early = decision.at_ms < f.sent_ms + p.window_ms;
    // The first key watched handled without effect counts only for keys.
    let keys_unseen = f.method == Method::Keystrokes && f.reads.iter().any(|s| s.keys_unseen);
    let unseen = f.reads.iter().any(|s| s.press_unseen) || keys_unseen;
    // The last keys seen in another field that took the focus: every key was handled.
    let astray = f.method == Method::Keystrokes && f.reads.iter().any(|s| s.keys_astray);
    prop_assert!(!last.loading || (early && (keys_unseen || astray)), "input while loading");
    prop_assert!(!stops_when_received(p, ctx, f), "input after one that was received");
    prop_assert!(!ctx.blind, "a second input to a target whose effect cannot be read");
    prop_assert!(!ctx.single_input, "a second input where one input at most may go (a point)");
    prop_assert!(last.blocking.is_none(), "input while blocked");
    prop_assert!(
        f.reads.iter().all(|s| s.own_motion.is_none()) || unseen || astray,
        "a second input after something that changes by itself changed: the first one's effect may be there"
    );
    if ctx.is_toggle {
        prop_assert_eq!(last.toggle, Toggle::Unchanged, "toggle retried without its state unchanged");
    }
    if decision.at_ms >= f.sent_ms + p.window_ms {
        return Ok(());
    }
    let policy_allows = match p.early_fallback {
        EarlyFallback::Never => false,
        EarlyFallback::Idempotent => ctx.idempotent || unseen || astray,
        EarlyFallback::NoFeedback => true,
    };
    prop_assert!(policy_allows, "early input the policy does not allow");
    prop_assert!(f.method.is_pointer() || keys_unseen || astray, "early fallback after {:?}", f.method);
    prop_assert!(!ctx.is_toggle || (unseen && last.toggle == Toggle::Unchanged), "early input on a toggle");
    prop_assert!(!f.uncertain);
    prop_assert!(!f.reads.is_empty());
    prop_assert!(
        f.reads.iter().all(|s| s.feedback == Feedback::NotSeen || (astray && s.feedback == Feedback::Seen))
            && (f.reads.iter().all(|s| !s.loading) || keys_unseen || astray),
        "early fallback despite feedback or loading"
    );
    prop_assert!(decision.at_ms >= f.sent_ms + p.early_fallback_ms || keys_unseen || astray);
    prop_assert_ne!(method, f.method, "the same method repeated inside the window");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn well_behaved_executor((p, ctx) in setup(), choices in proptest::collection::vec(choice(), 1..64)) {
        let run = drive(&p, ctx, &choices, false);
        check_run(&p, &ctx, &run, true)?;
    }

    #[test]
    fn chaotic_executor((p, ctx) in setup(), choices in proptest::collection::vec(choice(), 1..64)) {
        let run = drive(&p, ctx, &choices, true);
        check_run(&p, &ctx, &run, false)?;
    }

    #[test]
    fn done_is_final((p, ctx) in setup(), choices in proptest::collection::vec(choice(), 1..64)) {
        let mut engine = Engine::new(&p, ctx);
        let run = drive(&p, ctx, &choices, false);
        let mut step = engine.start();
        for (obs, _) in run.iter().skip(1) {
            step = engine.observe(obs.clone().unwrap());
        }
        let again = engine.observe(Observation::new(u64::MAX, Report::Sent));
        prop_assert_eq!(&again, &step);
        prop_assert_eq!(engine.start(), step);
    }
}

/// The generators reach every rule, so the properties above are not passing vacuously.
#[test]
fn generators_reach_every_rule() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    let mut runner = TestRunner::deterministic();
    let mut seen = BTreeSet::new();
    for _ in 0..1024 {
        let (p, ctx) = setup().new_tree(&mut runner).unwrap().current();
        let choices = proptest::collection::vec(choice(), 1..64).new_tree(&mut runner).unwrap().current();
        let run = drive(&p, ctx, &choices, false);
        let v = run.last().unwrap().1.verdict().unwrap().clone();
        seen.insert(v.class.map_or("ok", |c| c.as_str()));
        let reasons = v.retry_reason.unwrap_or_default();
        for (needle, what) in [
            ("showed no sign of being received", "early fallback"),
            ("produced no UI change", "fallback after the window"),
            ("re-resolved", "re-resolve"),
            ("dismissed it", "dismissal"),
            ("busy before", "loading before the act"),
            ("failed (", "transient retry"),
            ("had its turn", "stand-in"),
        ] {
            if reasons.contains(needle) {
                seen.insert(what);
            }
        }
        if v.budget.loading_extra_ms > 0 {
            seen.insert("loading extension");
        }
        if v.budget.read_retries > 0 {
            seen.insert("read retry");
        }
        if v.summary.contains("would undo it") || v.summary.contains("could undo it") {
            seen.insert("toggle kept");
        }
        if v.attempts.last().is_some_and(|a| a.result == deft_types::AttemptResult::Received) {
            seen.insert("received");
        }
        let early_positive = run.windows(2).any(|w| match (&w[0].1, &w[1].0) {
            (Step::Verify { not_before_ms, .. }, Some(o)) => {
                matches!(o.report, Report::Verified { .. }) && o.at_ms < *not_before_ms
            }
            _ => false,
        });
        if early_positive {
            seen.insert("positive before the delay");
        }
    }
    let all = [
        "ok",
        "loading",
        "blocked",
        "stale",
        "transient",
        "no_effect",
        "permanent",
        "early fallback",
        "fallback after the window",
        "re-resolve",
        "dismissal",
        "loading before the act",
        "received",
        "positive before the delay",
        "transient retry",
        "loading extension",
        "read retry",
        "toggle kept",
        "stand-in",
    ];
    let missing: Vec<_> = all.iter().filter(|w| !seen.contains(*w)).collect();
    assert!(missing.is_empty(), "never reached: {missing:?}");
}
