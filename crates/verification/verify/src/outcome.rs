//! The outcome of an action: the engine's verdict plus what only the executor knows.

use deft_retry::Verdict;
use deft_types::{ActionKind, Attempt, AttemptResult, ErrorClass, Failure, FailureKind, Outcome};

use crate::executor::Executor;
use crate::observe::{Goal, is_secret};
use crate::resolve::{How, Miss, Resolved};
use crate::run::Run;

/// Why an action failed, decided once from the engine's verdict and what resolution saw:
/// the category every face reports (the CLI's exit codes, an agent's next move).
fn failure_of(v: &Verdict, resolved: bool, miss: Option<&Miss>) -> Option<Failure> {
    if v.ok {
        return None;
    }
    let kind = |kind| Some(Failure { kind, candidates: Vec::new() });
    if v.blocking.is_some() || v.class == Some(ErrorClass::Blocked) {
        return kind(FailureKind::Blocked);
    }
    match (resolved, miss) {
        (false, Some(m)) => return Some(m.failure()),
        (false, None) if v.class == Some(ErrorClass::Permanent) => return kind(FailureKind::NotFound),
        _ => {}
    }
    match v.class {
        Some(ErrorClass::Permanent) => kind(FailureKind::NotActionable),
        Some(ErrorClass::Transient) => kind(FailureKind::Unavailable),
        Some(ErrorClass::Stale) => kind(FailureKind::NotFound),
        _ => kind(FailureKind::NoEffect),
    }
}

impl Executor {
    /// The outcome of a finished action: the engine's verdict plus what only the executor knows.
    pub(crate) fn outcome(&self, run: Run<'_>, kind: ActionKind, v: Verdict) -> Outcome {
        let target_name = run.target.as_ref().map_or_else(
            || match &run.how {
                Some(How::Selector(s)) => format!("`{}`", deft_a11y::selector::format(s)),
                Some(How::Text(t)) => deft_a11y::selector::describe_text(t),
                Some(How::Point(p)) => format!("point ({}, {})", p.x, p.y),
                Some(How::Focused) => "the focused element".into(),
                Some(How::FocusedIn(sel)) => format!("the focus in {}", deft_a11y::selector::format(sel)),
                None => "the application".into(),
            },
            Resolved::describe,
        );
        let expected = if run.verify {
            // A target not found may be a password field all the same: its text is said by
            // its length too (a bad id for KeePassXC's field wrote the password out here).
            let secret = run.target.as_ref().and_then(|t| t.element.as_ref()).is_none_or(is_secret);
            describe_goal(&run.goal, &target_name, secret)
        } else {
            format!("{} sent to {target_name} (not verified)", kind.verb())
        };
        let attempts: Vec<Attempt> = v
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut a = a.clone();
                if let Some(Some(note)) = run.notes.get(i)
                    && a.result != AttemptResult::Verified
                {
                    a.observed = Some(match a.observed.take() {
                        Some(o) => format!("{o}; {note}"),
                        None => note.clone(),
                    });
                }
                a
            })
            .collect();
        let verified_observed =
            attempts.iter().rev().find(|a| a.result == AttemptResult::Verified).and_then(|a| a.observed.clone());
        let observed = match (v.ok, verified_observed) {
            (true, Some(o)) => o,
            // Sent or received, not verified: what was seen meanwhile is part of the answer
            // (the keys reached a text inside the target that shows something else).
            (true, None) => match run.notes.last().cloned().flatten() {
                Some(note) if !v.summary.contains(&note) => format!("{}; {note}", v.summary),
                _ => v.summary.clone(),
            },
            (false, _) => match (&run.miss, &run.last_seen) {
                (Some(m), _) if run.target.is_none() && !v.summary.contains(&m.message()) => {
                    format!("{}: {}", v.summary, m.message())
                }
                (_, Some(seen)) if !v.summary.contains(seen.as_str()) => format!("{}; last seen: {seen}", v.summary),
                _ => v.summary.clone(),
            },
        };
        let observed = match run.put_back.is_empty() {
            true => observed,
            false => format!("{observed}; {}", run.put_back.join("; ")),
        };
        let suggested_action = v.suggested_action.or_else(|| {
            // A text that neither accessibility nor OCR finds is a job for a vision model.
            let text_target = matches!(run.how, Some(How::Text(_)));
            (text_target && run.target.is_none() && v.class == Some(ErrorClass::Permanent))
                .then_some(deft_types::SuggestedAction::UseVision)
        });
        let failure = failure_of(&v, run.target.is_some(), run.miss.as_ref());
        Outcome {
            ok: v.ok,
            action: kind,
            verified: v.verified,
            retried: v.retried(),
            retry_reason: v.retry_reason.clone(),
            target: run.target.as_ref().map(Resolved::info),
            expected,
            observed,
            attempts,
            blocking: v.blocking.clone(),
            suggested_action,
            failure,
            evidence: run.evidence,
            elapsed_ms: run.clock.ms(),
            seen: deft_types::Seen::default(),
            seen_by: None,
        }
    }

    /// The outcome of an action whose per-action settings contradict its policy: nothing
    /// was sent.
    pub(crate) fn invalid_settings(&self, run: Run<'_>, kind: ActionKind, why: String) -> Outcome {
        let expected = format!("{} with valid settings", kind.verb());
        self.refused(run, kind, &expected, format!("nothing was sent: the settings for this action are invalid: {why}"))
    }

    /// An action refused before any input: `observed` says why.
    pub(crate) fn refused(&self, run: Run<'_>, kind: ActionKind, expected: &str, observed: String) -> Outcome {
        Outcome {
            ok: false,
            action: kind,
            verified: None,
            retried: false,
            retry_reason: None,
            target: run.target.as_ref().map(Resolved::info),
            expected: expected.to_string(),
            observed,
            attempts: Vec::new(),
            blocking: None,
            suggested_action: None,
            failure: Some(Failure { kind: FailureKind::NotActionable, candidates: Vec::new() }),
            evidence: Vec::new(),
            elapsed_ms: run.clock.ms(),
            seen: deft_types::Seen::default(),
            seen_by: None,
        }
    }
}

impl Executor {
    /// An action whose expectation already holds, and whose input could only undo it: no
    /// input is sent, and the outcome says the state is as expected (seen in the tree).
    pub(crate) fn already(&self, run: Run<'_>, kind: ActionKind, expected: String, observed: String) -> Outcome {
        let evidence = deft_types::Evidence {
            channel: deft_types::Channel::Accessibility,
            what: observed.clone(),
            region: run.target.as_ref().and_then(|t| t.element.as_ref()?.bounds.map(|b| t.scale.rect_to_physical(b))),
            after_ms: 0,
        };
        Outcome {
            verified: Some(true),
            failure: None,
            evidence: vec![evidence],
            seen: deft_types::Seen::Verified,
            seen_by: Some(deft_types::Channel::Accessibility),
            ok: true,
            ..self.refused(run, kind, &expected, observed)
        }
    }
}

/// The goal in words, for the outcome's `expected` line. The text of a secret field
/// (a password) is never written out, only its length.
fn describe_goal(goal: &Goal, target: &str, secret: bool) -> String {
    match goal {
        Goal::AnyChange => format!("any UI change on or around {target}"),
        Goal::Typed { typed, .. } if secret => format!("{target} gains {} typed characters", typed.chars().count()),
        Goal::Typed { typed, .. } => format!("{target} shows its text with {typed:?} inserted"),
        Goal::Set { value } if secret => format!("{target} holds the {} characters set", value.chars().count()),
        Goal::Set { value } => format!("{target} has value {value:?}"),
        Goal::Expect(c, _) => deft_a11y::selector::describe_condition(c),
    }
}
