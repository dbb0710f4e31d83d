//! Scenarios from docs/VERIFICATION.md, each a transcript of steps and observations.

use deft_retry::{ActionContext, ActionPolicy, Overrides, PolicySet, Step};
use deft_types::{ActionKind, ErrorClass, Method, SuggestedAction};

use crate::dsl::{check, check_with, ctx, dialog};

fn verdict(step: Step) -> deft_retry::Verdict {
    step.verdict().cloned().expect("the transcript ends with done")
}

fn click_policy() -> deft_retry::ActionPolicy {
    PolicySet::defaults().get(ActionKind::Click).clone()
}

#[test]
fn dropped_click_falls_back_to_a11y_action_after_the_window() {
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 10 sent
        -> verify 110ms..3010ms
        <- 110 no_change feedback=none
        -> verify 210ms..3010ms
        <- 3010 no_change feedback=none
        -> act a11y_action #2 at 3010ms
        <- 3020 sent
        -> verify 3120ms..6020ms
        <- 3150 verified dialog "Saved" appeared
        -> done ok verified [coordinate_click: no_change, a11y_action: verified]
        "#,
    ));
    assert_eq!(
        v.retry_reason.as_deref(),
        Some("coordinate_click produced no UI change within 3000ms; retried with a11y_action")
    );
    assert_eq!(v.attempts[0].elapsed_ms, 3000);
    assert_eq!(v.attempts[1].observed.as_deref(), Some("dialog Saved appeared"));
    assert_eq!((v.budget.attempts, v.budget.elapsed_ms), (2, 3150));
}

#[test]
fn dropped_click_on_idempotent_target_falls_back_early() {
    let ctx = ActionContext { idempotent: true, ..ctx(ActionKind::Click) };
    let v = verdict(check(
        ctx,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..400ms
        <- 100 no_change feedback=none
        -> verify 200ms..400ms
        <- 400 no_change feedback=none
        -> act a11y_action #2 at 400ms
        <- 400 sent
        -> verify 500ms..3400ms
        <- 700 verified
        -> done ok verified [coordinate_click: no_change, a11y_action: verified]
        "#,
    ));
    assert_eq!(
        v.retry_reason.as_deref(),
        Some("coordinate_click showed no sign of being received within 400ms; retried with a11y_action")
    );
}

#[test]
fn delayed_effect_is_verified_without_a_second_click() {
    // Immediate feedback says the click arrived: even on an idempotent target the engine
    // waits the whole window rather than fall back at 400 ms.
    let ctx = ActionContext { idempotent: true, ..ctx(ActionKind::Click) };
    check(
        ctx,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..400ms
        <- 100 no_change feedback=seen
        -> verify 200ms..3000ms
        <- 2500 verified
        -> done ok verified [coordinate_click: verified]
        "#,
    );
}

#[test]
fn unknown_feedback_never_falls_back_early() {
    let ctx = ActionContext { idempotent: true, ..ctx(ActionKind::Click) };
    check(
        ctx,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..400ms
        <- 400 no_change
        -> verify 500ms..3000ms
        <- 3000 no_change
        -> act a11y_action #2 at 3000ms
        "#,
    );
}

#[test]
fn loading_extends_the_window_and_never_clicks_again() {
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen loading
        -> verify 3100ms..4000ms
        <- 4000 no_change loading
        -> verify 4100ms..5000ms
        <- 4600 verified
        -> done ok verified [coordinate_click: verified]
        "#,
    );
}

#[test]
fn endless_loading_ends_with_wait_longer() {
    let mut p = click_policy();
    p.loading.max_extra_ms = 1000;
    let v = verdict(check_with(
        &p,
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change loading
        -> verify 3100ms..4000ms
        <- 4000 no_change loading
        -> done failed loading suggest=wait_longer [coordinate_click: loading]
        "#,
    ));
    assert_eq!(v.budget.loading_extra_ms, 1000);
}

#[test]
fn popup_before_the_click_is_reported_with_a_suggestion() {
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 5 refused blocked="New Event!"
        -> done failed blocked suggest=dismiss_popup_then_retry [coordinate_click: blocked]
        "#,
    ));
    assert_eq!(v.blocking, Some(dialog("New Event!")));
    assert_eq!(v.suggested_action, Some(SuggestedAction::DismissPopupThenRetry));
}

#[test]
fn popup_is_dismissed_only_by_explicit_rule() {
    let mut p = click_policy();
    p.blocked.auto_dismiss = true;
    check_with(
        &p,
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 5 refused blocked="New Event!"
        -> dismiss dialog "New Event!" at 5ms
        <- 50 dismissed
        -> act coordinate_click #2 at 50ms
        <- 55 sent
        -> verify 155ms..3055ms
        <- 200 verified
        -> done ok verified [coordinate_click: blocked, coordinate_click: verified]
        "#,
    );
}

#[test]
fn popup_after_the_click_is_never_dismissed_automatically() {
    // The dialog may be the click's own effect ("Delete? Yes/No"): dismissing it and
    // clicking again would loop, or worse.
    let mut p = click_policy();
    p.blocked.auto_dismiss = true;
    let v = verdict(check_with(
        &p,
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 300 no_change feedback=seen dialog="Confirm delete"
        -> done failed blocked suggest=dismiss_popup_then_retry [coordinate_click: blocked]
        "#,
    ));
    assert_eq!(v.blocking, Some(dialog("Confirm delete")));
}

#[test]
fn stale_target_is_re_resolved_and_retried() {
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 20 refused moved
        -> re-resolve at 20ms
        <- 40 resolved
        -> act coordinate_click #2 at 40ms
        <- 45 sent
        -> verify 145ms..3045ms
        <- 145 verified
        -> done ok verified [coordinate_click: stale, coordinate_click: verified]
        "#,
    ));
    assert_eq!(
        v.retry_reason.as_deref(),
        Some(
            "the target went stale before coordinate_click (target moved); re-resolved it; retried with coordinate_click"
        )
    );
}

#[test]
fn stale_retries_are_bounded() {
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 10 refused moved
        -> re-resolve at 10ms
        <- 20 refused moved
        -> re-resolve at 20ms
        <- 30 refused moved
        -> done failed stale suggest=refine_selector [coordinate_click: stale]
        "#,
    );
}

#[test]
fn target_gone_after_re_resolve_is_permanent() {
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 10 refused vanished
        -> re-resolve at 10ms
        <- 2010 refused not_found
        -> done failed permanent suggest=refine_selector [coordinate_click: stale]
        "#,
    );
}

#[test]
fn keys_whose_last_keys_went_to_another_field_fall_back_at_once() {
    // The focus was taken while typing: the target shows the first keys (feedback), the
    // rest showed up in the field that took the focus. Every key was handled, so nothing
    // more can come: the next method goes at once (the executor puts the other field back).
    check(
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 90 sent
        -> verify 190ms..3090ms
        <- 120 no_change feedback=seen keys_astray
        -> act a11y_set #2 at 120ms
        <- 140 sent
        -> verify 240ms..3140ms
        <- 150 verified
        -> done ok verified [keystrokes: no_change, a11y_set: verified]
        "#,
    );
    // Without it, the target's feedback holds the chain for the whole window.
    check(
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 90 sent
        -> verify 190ms..3090ms
        <- 190 no_change feedback=seen
        -> verify 290ms..3090ms
        <- 3090 no_change feedback=seen
        -> act a11y_set #2 at 3090ms
        "#,
    );
    // Said of an input that is not keys, it counts for nothing.
    check(
        ctx(ActionKind::SetValue),
        r#"
        -> act a11y_set #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=seen keys_astray
        -> verify 200ms..3000ms
        <- 3000 no_change feedback=seen
        -> act focus_select_all_keystrokes #2 at 3000ms
        "#,
    );
}

#[test]
fn keys_whose_first_key_was_handled_without_effect_fall_back_at_once() {
    // The executor typed only the first key, saw the app read it and answer after it with
    // the field's text unchanged, and typed nothing more: the next method goes at once,
    // before the verify delay (the watch was the wait for an effect).
    check(
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 40 sent
        -> verify 140ms..3040ms
        <- 41 no_change feedback=none keys_unseen
        -> act a11y_set #2 at 41ms
        <- 60 sent
        -> verify 160ms..3060ms
        <- 75 verified
        -> done ok verified [keystrokes: no_change, a11y_set: verified]
        "#,
    );
    // The policy can still forbid it ("never" waits the whole window).
    let mut never = PolicySet::defaults().get(ActionKind::Type).clone();
    never.early_fallback = deft_retry::EarlyFallback::Never;
    check_with(
        &never,
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none keys_unseen
        -> verify 200ms..3000ms
        <- 3000 no_change feedback=none
        -> act a11y_set #2 at 3000ms
        "#,
    );
    // Said of any other input, it counts for nothing: keys are the only input it describes.
    check(
        ctx(ActionKind::SetValue),
        r#"
        -> act a11y_set #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none keys_unseen
        -> verify 200ms..3000ms
        <- 3000 no_change feedback=none
        -> act focus_select_all_keystrokes #2 at 3000ms
        "#,
    );
}

#[test]
fn ignored_keystrokes_fall_back_to_set_value() {
    // Keystrokes are never given up early without the executor's watch of the first key,
    // even when the policy would allow it for pointer inputs: their receipt does not show
    // as feedback.
    let mut p = PolicySet::defaults().get(ActionKind::Type).clone();
    p.early_fallback = deft_retry::EarlyFallback::NoFeedback;
    check_with(
        &p,
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 500 no_change feedback=none
        -> verify 600ms..3000ms
        <- 3000 no_change feedback=none
        -> act a11y_set #2 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 3100 verified
        -> done ok verified [keystrokes: no_change, a11y_set: verified]
        "#,
    );
}

#[test]
fn set_value_falls_back_to_focus_select_all_keystrokes() {
    check(
        ctx(ActionKind::SetValue),
        r#"
        -> act a11y_set #1 at 0ms
        <- 0 refused none
        -> act focus_select_all_keystrokes #2 at 0ms
        <- 10 sent
        -> verify 110ms..3010ms
        <- 110 verified
        -> done ok verified [a11y_set: no_effect, focus_select_all_keystrokes: verified]
        "#,
    );
}

#[test]
fn a_toggle_that_was_on_and_stayed_on_after_a_received_press_is_not_pressed_again() {
    // dconf-editor's False, chosen already: the press landed (the focus came), the app kept
    // it on. Its accessibility action turned it off, and the app turned True on.
    let toggle = ActionContext { is_toggle: true, toggle_on: true, ..ctx(ActionKind::Click) };
    check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen toggle=same
        -> done ok received [coordinate_click: received]
        "#,
    );
    // Off before: a press that left it off did not take; the next method goes.
    let off = ActionContext { is_toggle: true, ..ctx(ActionKind::Click) };
    check(
        off,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen toggle=same
        -> act a11y_action #2 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 3200 verified
        -> done ok verified [coordinate_click: no_change, a11y_action: verified]
        "#,
    );
}

#[test]
fn an_expectation_that_held_before_the_input_sends_no_second_one() {
    // zim: `key ctrl+s --expect text:"Replaced line B"` with the line shown all along (the
    // file was saved): a failure before. And a click whose expectation held before: no
    // second click for an effect that shows nowhere the expectation looks.
    let expect = |kind| ActionContext { expectation: true, is_toggle: true, ..ctx(kind) };
    for kind in [ActionKind::Key, ActionKind::Click] {
        let first = if kind == ActionKind::Key { "key_chord" } else { "coordinate_click" };
        check(
            expect(kind),
            &format!(
                r#"
        -> act {first} #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none toggle=same held_before
        -> done ok received [{first}: sent]
        "#
            ),
        );
    }
}

#[test]
fn a_check_box_without_an_action_gets_the_pointer_in_its_turn() {
    // GTK 4.8's check box offers no accessibility action: the refused method's turn goes to
    // the chain's first method once the chain is done, so two dropped presses are recovered.
    let toggle = ActionContext { is_toggle: true, ..ctx(ActionKind::Click) };
    let v = verdict(check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none toggle=same
        -> act a11y_action #2 at 3000ms
        <- 3000 refused unavailable
        -> act offset_click #3 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 6000 no_change feedback=none toggle=same
        -> act coordinate_click #4 at 6000ms
        <- 6000 sent
        -> verify 6100ms..9000ms
        <- 6200 verified
        -> done ok verified [coordinate_click: no_change, a11y_action: no_effect, offset_click: no_change, coordinate_click: verified]
        "#,
    ));
    let reason = v.retry_reason.unwrap_or_default();
    assert!(reason.ends_with("a11y_action could not be used on this target, so coordinate_click had its turn; retried with coordinate_click"), "{reason}");
}

#[test]
fn the_turn_of_a_refused_method_is_given_once() {
    // Budget for more attempts than the chain and its one stand-in use: the guard ends it.
    let roomy = ActionPolicy { max_retries: 6, ..click_policy() };
    check_with(
        &roomy,
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> act a11y_action #2 at 3000ms
        <- 3000 refused unavailable
        -> act offset_click #3 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 6000 no_change feedback=none
        -> act coordinate_click #4 at 6000ms
        <- 6000 sent
        -> verify 6100ms..9000ms
        <- 9000 no_change feedback=none
        -> done failed no_effect [coordinate_click: no_change, a11y_action: no_effect, offset_click: no_change, coordinate_click: no_change]
        "#,
    );
}

#[test]
fn a_stand_in_waits_out_its_own_window() {
    // An early fallback (a press never seen) to an action the target lacks: the click that
    // stands in is not sent again inside the first click's verification window.
    let p = ActionPolicy { chain: vec![Method::CoordinateClick, Method::A11yAction], ..click_policy() };
    let v = verdict(check_with(
        &p,
        ActionContext { idempotent: true, ..ctx(ActionKind::Click) },
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..400ms
        <- 400 no_change feedback=none press_unseen
        -> act a11y_action #2 at 400ms
        <- 400 refused unavailable
        -> act coordinate_click #3 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 3200 verified
        -> done ok verified [coordinate_click: no_change, a11y_action: no_effect, coordinate_click: verified]
        "#,
    ));
    assert!(v.ok);
}

#[test]
fn a_method_refused_for_another_reason_gives_no_turn() {
    // A raw point is no element: the accessibility action cannot apply, but nothing says the
    // target lacks it, and a point gives no receipt a third press could be held back by.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> act a11y_action #2 at 3000ms
        <- 3000 refused none
        -> act offset_click #3 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 6000 no_change feedback=none
        -> done failed no_effect [coordinate_click: no_change, a11y_action: no_effect, offset_click: no_change]
        "#,
    );
}

#[test]
fn keys_a_field_ignores_end_in_a_paste() {
    check(
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> act a11y_set #2 at 3000ms
        <- 3000 refused none
        -> act focus_select_all_keystrokes #3 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 6000 no_change feedback=none
        -> act middle_click_paste #4 at 6000ms
        <- 6000 sent
        -> verify 6100ms..9000ms
        <- 6150 verified
        -> done ok verified [keystrokes: no_change, a11y_set: no_effect, focus_select_all_keystrokes: no_change, middle_click_paste: verified]
        "#,
    );
}

#[test]
fn toggle_that_changed_is_not_clicked_again() {
    let toggle = ActionContext { is_toggle: true, ..ctx(ActionKind::Click) };
    let v = verdict(check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=seen toggle=changed
        -> verify 200ms..3000ms
        <- 3000 no_change toggle=changed
        -> done failed no_effect [coordinate_click: no_change]
        "#,
    ));
    assert!(v.summary.contains("another input would undo it"), "{}", v.summary);
}

#[test]
fn toggle_with_unchanged_state_is_retried() {
    let toggle = ActionContext { is_toggle: true, idempotent: true, ..ctx(ActionKind::Click) };
    // No early fallback on a toggle, even an idempotent one: a slow first click would be undone.
    check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none toggle=same
        -> act a11y_action #2 at 3000ms
        "#,
    );
}

#[test]
fn toggle_with_unknown_state_is_not_retried() {
    let toggle = ActionContext { is_toggle: true, ..ctx(ActionKind::Click) };
    check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> done failed no_effect [coordinate_click: no_change]
        "#,
    );
}

#[test]
fn transient_errors_back_off_exponentially_within_budget() {
    let v = verdict(check(
        ctx(ActionKind::Action),
        r#"
        -> act a11y_action #1 at 0ms
        <- 0 refused error
        -> act a11y_action #2 at 100ms
        <- 100 refused timeout
        -> act a11y_action #3 at 300ms
        <- 300 refused error
        -> act a11y_action #4 at 700ms
        <- 700 refused error
        -> done failed transient [a11y_action: transient, a11y_action: transient, a11y_action: transient, a11y_action: transient]
        "#,
    ));
    assert_eq!(v.budget.transient_retries, 3);
    assert_eq!(v.class, Some(ErrorClass::Transient));
}

#[test]
fn uncertain_send_is_verified_over_the_window_before_a_retry() {
    check(
        ctx(ActionKind::Action),
        r#"
        -> act a11y_action #1 at 0ms
        <- 0 uncertain "dbus timeout"
        -> verify 100ms..3000ms
        <- 3000 no_change
        -> act a11y_action #2 at 3100ms
        <- 3100 sent
        -> verify 3200ms..6100ms
        <- 3300 verified
        -> done ok verified [a11y_action: transient, a11y_action: verified]
        "#,
    );
}

#[test]
fn permanent_fails_at_once() {
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 2000 refused not_found
        -> done failed permanent suggest=refine_selector [coordinate_click: permanent]
        "#,
    ));
    assert_eq!(v.retry_reason, None);
}

#[test]
fn chain_ends_with_no_effect_after_every_method() {
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> act a11y_action #2 at 3000ms
        <- 3000 sent
        -> verify 3100ms..6000ms
        <- 6000 no_change
        -> act offset_click #3 at 6000ms
        <- 6000 sent
        -> verify 6100ms..9000ms
        <- 9000 no_change
        -> done failed no_effect [coordinate_click: no_change, a11y_action: no_change, offset_click: no_change]
        "#,
    );
}

#[test]
fn max_retries_bounds_the_chain() {
    let p = click_policy()
        .with_overrides(ActionKind::Click, Overrides { max_retries: Some(0), ..Overrides::default() })
        .unwrap();
    let v = verdict(check_with(
        &p,
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change
        -> done failed no_effect [coordinate_click: no_change]
        "#,
    ));
    assert!(v.summary.ends_with("all 1 attempts spent"), "{}", v.summary);
}

#[test]
fn time_budget_cuts_the_window_short() {
    let mut p = click_policy();
    p.max_total_ms = 4000;
    check_with(
        &p,
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change
        -> act a11y_action #2 at 3000ms
        <- 3000 sent
        -> verify 3100ms..4000ms
        <- 4000 no_change
        -> done failed no_effect suggest=wait_longer [coordinate_click: no_change, a11y_action: no_change]
        "#,
    );
}

#[test]
fn wait_times_out_with_the_suggestion_to_wait_longer() {
    check(
        ctx(ActionKind::Wait),
        r#"
        -> act wait #1 at 0ms
        <- 0 sent
        -> verify 0ms..10000ms
        <- 10000 no_change
        -> done failed no_effect suggest=wait_longer [wait: no_change]
        "#,
    );
}

#[test]
fn without_verify_one_input_is_sent() {
    let unverified = ActionContext { verify: false, ..ctx(ActionKind::Click) };
    check(
        unverified,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 5 sent
        -> done ok unverified [coordinate_click: sent]
        "#,
    );
}

#[test]
fn unreadable_ui_is_retried_then_never_answered_with_an_input() {
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 unreadable "a11y bus timeout"
        -> verify 200ms..3000ms
        <- 3000 unreadable "a11y bus timeout"
        -> done failed transient [coordinate_click: transient]
        "#,
    );
}

#[test]
fn protocol_errors_stop_the_action() {
    // A negative reply earlier than the step allowed, and a reply that does not fit the step.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 50 no_change feedback=none
        -> done failed [coordinate_click: no_change]
        <- 60 verified
        -> done failed [coordinate_click: no_change]
        "#,
    );
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 resolved
        -> done failed [coordinate_click: no_change]
        "#,
    ));
    assert_eq!(v.class, None);
    assert!(v.summary.contains("`resolved` is not a reply to act"), "{}", v.summary);
}

#[test]
fn a_received_click_with_no_visible_effect_is_not_repeated() {
    // "Hello" pressed when the status already says "Clicked Hello": the app showed it got
    // the click (a pressed look), nothing else changed. A fallback would press it again.
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen
        -> done ok received [coordinate_click: received]
        "#,
    ));
    assert_eq!(v.verified, Some(false));
    assert!(v.summary.contains("was received"), "{}", v.summary);
    // With an expectation it fails, still without a second input.
    let expecting = ActionContext { expectation: true, ..ctx(ActionKind::Click) };
    check(
        expecting,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen
        -> done failed no_effect [coordinate_click: received]
        "#,
    );
}

#[test]
fn a_received_click_under_an_unmet_expectation_is_never_pressed_again() {
    // `click "Hello" --expect 'text:"Never shown"'`: the executor watches any effect at all
    // (it says so as the toggle signal), the app showed it got the press, nothing changed.
    // "Unchanged" here is not a toggle's state read back: it only says the expected text did
    // not show, and a second press could double an effect that does not show.
    let expecting = ActionContext { is_toggle: true, expectation: true, ..ctx(ActionKind::Click) };
    let v = verdict(check(
        expecting,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen toggle=same
        -> done failed no_effect [coordinate_click: received]
        "#,
    ));
    assert!(v.summary.contains("expectation was not met"), "{}", v.summary);
    // A press that never showed under an expectation still falls back: nothing arrived.
    check(
        expecting,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none toggle=same
        -> act a11y_action #2 at 3000ms
        "#,
    );
}

#[test]
fn text_that_went_in_under_an_unmet_expectation_is_never_typed_again() {
    // `type Name --text Ada --expect 'value:name=Name="Ada"'` into a field that held "Ada":
    // the keys went in ("AdaAda", read back), the expectation does not hold. Selecting all
    // and typing, or setting the text, would only write the same again: the action fails
    // saying what was done, once the window (lengthened while the app loads) has passed.
    let expecting = ActionContext { expectation: true, ..ctx(ActionKind::Type) };
    let v = verdict(check(
        expecting,
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 200 no_change feedback=seen done="Name now shows AdaAda"
        -> verify 300ms..3000ms
        <- 3000 no_change feedback=seen loading done="Name now shows AdaAda"
        -> verify 3100ms..4000ms
        <- 4000 no_change feedback=seen
        -> done failed no_effect [keystrokes: no_change]
        "#,
    ));
    assert!(v.summary.contains("did what it does (Name now shows AdaAda)"), "{}", v.summary);
    // Without it (the keys did not all go in), the chain goes on as before.
    check(
        expecting,
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen
        -> act a11y_set #2 at 3000ms
        "#,
    );
}

#[test]
fn text_that_went_in_shown_the_app_s_own_way_is_never_typed_again() {
    // `type --text 3*3` into gnome-calculator: the keys went in and it shows "3×3". No
    // expectation, and the text is not the one typed: another method would write it a
    // second time. The action fails saying what went in.
    let v = verdict(check(
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 200 no_change feedback=seen done="text now shows 3×3"
        -> verify 300ms..3000ms
        <- 3000 no_change feedback=seen done="text now shows 3×3"
        -> done failed no_effect [keystrokes: no_change]
        "#,
    ));
    assert!(v.summary.contains("went in (text now shows 3×3); not typed again"), "{}", v.summary);
}

#[test]
fn received_input_still_falls_back_where_that_is_safe() {
    // A toggle's state said it did not change: a fallback cannot undo anything.
    let toggle = ActionContext { is_toggle: true, ..ctx(ActionKind::Click) };
    check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen toggle=same
        -> act a11y_action #2 at 3000ms
        "#,
    );
    // Typing has a value to check and set: keystrokes that landed in part are completed.
    check(
        ctx(ActionKind::Type),
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=seen
        -> act a11y_set #2 at 3000ms
        "#,
    );
    // The policy may turn it off.
    let mut p = deft_retry::PolicySet::defaults().get(ActionKind::Click).clone();
    p.no_effect.stop_when_received = false;
    let mut engine = deft_retry::Engine::new(&p, ctx(ActionKind::Click));
    engine.start();
    engine.observe(deft_retry::Observation::new(0, deft_retry::Report::Sent));
    let signals = deft_retry::Signals { feedback: deft_retry::Feedback::Seen, ..Default::default() };
    let next = engine.observe(deft_retry::Observation::new(3000, deft_retry::Report::NoChange(signals)));
    assert!(matches!(next, deft_retry::Step::Act { method: deft_types::Method::A11yAction, .. }), "{next}");
}

#[test]
fn an_effect_seen_before_the_verify_delay_is_taken_at_once() {
    // The delay guards "no change" only: an effect seen at 12 ms ends the action at 12 ms.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 12 verified "Orders: 2"
        -> done ok verified [coordinate_click: verified]
        "#,
    );
}

#[test]
fn a_press_that_never_showed_falls_back_early_on_any_button() {
    // Not marked idempotent, but the executor watched the press and the button never
    // looked pressed: it did not arrive, so nothing can be doubled.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none press_unseen
        -> verify 200ms..400ms
        <- 400 no_change feedback=none
        -> act a11y_action #2 at 400ms
        "#,
    );
    // A busy app holds it back, though: its answer to the ping came when its toolkit read
    // the events, and the press may still be queued behind the work (GTK 3 drawing a
    // spinner under load submitted an order twice). It waits the window out.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none loading press_unseen
        -> verify 200ms..3000ms
        <- 400 no_change feedback=none loading
        -> verify 500ms..3000ms
        "#,
    );
    // A toggle too, when its state reads unchanged: nothing arrived to flip it.
    let toggle = ActionContext { is_toggle: true, ..ctx(ActionKind::Click) };
    check(
        toggle,
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none press_unseen toggle=same
        -> verify 200ms..400ms
        <- 400 no_change feedback=none toggle=same
        -> act a11y_action #2 at 400ms
        "#,
    );
    // Without that evidence the same button waits the whole window.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none
        -> verify 200ms..3000ms
        "#,
    );
}

#[test]
fn a_key_without_an_expectation_that_shows_nothing_is_sent_not_failed() {
    // ctrl+z with nothing to undo, a caret moved, a command run in a terminal: the key's
    // effect may show nowhere. Sent, said so, not repeated; with an expectation it fails.
    let v = verdict(check(
        ctx(ActionKind::Key),
        r#"
        -> act key_chord #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> done ok received [key_chord: sent]
        "#,
    ));
    assert_eq!((v.ok, v.verified), (true, Some(false)));
    assert!(v.summary.contains("a key's effect may not show"), "{}", v.summary);
    check(
        ActionContext { expectation: true, ..ctx(ActionKind::Key) },
        r#"
        -> act key_chord #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> done failed no_effect [key_chord: no_change]
        "#,
    );
}

#[test]
fn a_target_whose_text_cannot_be_read_gets_one_input_and_an_honest_verdict() {
    // jEdit's editor, an xterm: the typed text cannot be read back, so "no change" says
    // nothing. Falling back retyped a shell command and wiped a document with select-all.
    let blind = ActionContext { blind: true, ..ctx(ActionKind::Type) };
    let v = verdict(check(
        blind,
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> done ok received [keystrokes: sent]
        "#,
    ));
    assert_eq!((v.ok, v.verified), (true, Some(false)));
    assert!(v.summary.contains("cannot be verified"), "{}", v.summary);
    // Once it showed it received the keys (its pixels changed), the rest of the window
    // could tell nothing more: it ends there, with the same verdict.
    let v = verdict(check(
        blind,
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 140 no_change feedback=seen
        -> done ok received [keystrokes: received]
        "#,
    ));
    assert!(v.summary.contains("cannot be verified"), "{}", v.summary);
    // A terminal's screen changed, not as typed (a long line wrapped, the prompt redrawn):
    // the keys' receipt, ok and never typed again, not a failure that invites a retry.
    let v = verdict(check(
        blind,
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 140 no_change feedback=seen done="Terminal now shows $ echo aa"
        -> done ok received [keystrokes: received]
        "#,
    ));
    assert!(v.summary.contains("cannot be read back as typed"), "{}", v.summary);
    // With an expectation, the window is its to meet.
    check(
        ActionContext { expectation: true, ..blind },
        r#"
        -> act keystrokes #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 140 no_change feedback=seen
        -> verify 240ms..3000ms
        "#,
    );
    // A first method that could not be used sent nothing: the next one may go.
    check(
        ActionContext { blind: true, ..ctx(ActionKind::SetValue) },
        r#"
        -> act a11y_set #1 at 0ms
        <- 0 refused unavailable
        -> act focus_select_all_keystrokes #2 at 0ms
        "#,
    );
}

#[test]
fn a_click_on_a_target_known_only_by_its_pixels_is_never_sent_twice() {
    // xcalc has no accessibility: "sin" is found on screen and clicked; sin of 0 shows 0,
    // so nothing changes and the pixels cannot tell that from a lost click. Falling back
    // pressed it twice.
    let v = verdict(check(
        ActionContext { blind: true, ..ctx(ActionKind::Click) },
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> done ok received [coordinate_click: sent]
        "#,
    ));
    assert_eq!((v.ok, v.verified), (true, Some(false)));
    assert!(v.summary.contains("known only by where it shows on screen"), "{}", v.summary);
}

#[test]
fn a_click_whose_first_input_may_have_landed_unseen_is_never_sent_twice() {
    // xcalc, `click --at "5" --expect text:"Five"`: the pixels cannot tell, the expectation
    // was not met, and a fallback pressed 5 again (55). evince: Night Mode clicked at its
    // place in an open menu, accessibility finding the page beneath it: "no change" of the
    // page, three presses, three toggles.
    let blind_expecting = ActionContext { blind: true, expectation: true, ..ctx(ActionKind::Click) };
    let at_a_point = ActionContext { single_input: true, ..ctx(ActionKind::Click) };
    for (context, says) in [(blind_expecting, "not repeated"), (at_a_point, "at a point")] {
        let v = verdict(check(
            context,
            r#"
            -> act coordinate_click #1 at 0ms
            <- 0 sent
            -> verify 100ms..3000ms
            <- 3000 no_change feedback=none
            -> done failed no_effect [coordinate_click: no_change]
            "#,
        ));
        assert!(v.summary.contains(says), "{}", v.summary);
    }
}

#[test]
fn a_change_in_what_changes_by_itself_never_brings_a_second_input() {
    // A counter that ticked before the click ticked after it too, and nothing else changed:
    // the click may have been lost, or its effect may be the counter's change.
    check(
        ActionContext { idempotent: true, ..ctx(ActionKind::Click) },
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..400ms
        <- 400 no_change feedback=none own_motion="Uptime"
        -> verify 500ms..3000ms
        <- 3000 no_change feedback=none
        -> done failed no_effect [coordinate_click: no_change]
        "#,
    );
    // Without it, the same reads fall back early.
    check(
        ActionContext { idempotent: true, ..ctx(ActionKind::Click) },
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..400ms
        <- 400 no_change feedback=none
        -> act a11y_action #2 at 400ms
        "#,
    );
    // A press watched that never showed did not arrive: there is nothing to double.
    check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none press_unseen own_motion="Uptime"
        -> verify 200ms..400ms
        <- 400 no_change feedback=none
        -> act a11y_action #2 at 400ms
        "#,
    );
}

#[test]
fn a_received_input_with_no_effect_elsewhere_ends_ok_unverified_and_is_never_repeated() {
    // A menu entry chosen (its menu closed) whose effect shows nowhere: Copy.
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 1000 received "the menu closed"
        -> done ok received [coordinate_click: received]
        "#,
    ));
    assert!(v.summary.contains("not repeated"), "{v:?}");
}

#[test]
fn a_press_nothing_could_watch_is_never_followed_by_a_second_input() {
    // Neither the toolkit nor the screen could show the press arrive, and nothing changed:
    // a press whose effect does not show and a lost one look the same.
    let v = verdict(check(
        ctx(ActionKind::Click),
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 100 no_change feedback=none press_unwatched
        -> verify 200ms..3000ms
        <- 3000 no_change feedback=none
        -> done failed no_effect [coordinate_click: no_change]
        "#,
    ));
    assert!(v.summary.contains("whether the press arrived cannot be told"), "{}", v.summary);
    // A toggle whose state reads unchanged tells: the chain goes on.
    check(
        ActionContext { is_toggle: true, ..ctx(ActionKind::Click) },
        r#"
        -> act coordinate_click #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none press_unwatched toggle=same
        -> act a11y_action #2 at 3000ms
        "#,
    );
}

#[test]
fn a_chain_that_ends_in_methods_that_could_not_be_used_leads_with_what_the_input_showed() {
    // A Qt combo box: the set went out and showed nothing; select-all keys and the paste
    // cannot be used on it. The outcome says first that the set showed no change.
    let v = verdict(check(
        ctx(ActionKind::SetValue),
        r#"
        -> act a11y_set #1 at 0ms
        <- 0 sent
        -> verify 100ms..3000ms
        <- 3000 no_change feedback=none
        -> act focus_select_all_keystrokes #2 at 3000ms
        <- 3000 refused none
        -> act middle_click_paste #3 at 3000ms
        <- 3000 refused none
        -> done failed no_effect [a11y_set: no_change, focus_select_all_keystrokes: no_effect, middle_click_paste: no_effect]
        "#,
    ));
    assert!(v.summary.starts_with("a11y_set: no change within 3000ms; then"), "{}", v.summary);
}
