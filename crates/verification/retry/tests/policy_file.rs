//! Policy files: the defaults reproduce docs/VERIFICATION.md, and bad files say where and why.

use deft_retry::{ALL_KINDS, EarlyFallback, Overrides, PolicyError, PolicySet, table_name};
use deft_types::{ActionKind, Method};

fn error(src: &str) -> PolicyError {
    PolicySet::from_toml_str(src).expect_err("the file should be rejected")
}

#[test]
fn defaults_reproduce_the_fallback_chains_of_verification_md() {
    use Method::*;
    // The "fallback chain (in order)" column of the verbs table in docs/VERIFICATION.md.
    let expected: [(ActionKind, &[Method]); 7] = [
        (ActionKind::Click, &[CoordinateClick, A11yAction, OffsetClick]),
        (ActionKind::Type, &[Keystrokes, A11ySet, FocusSelectAllKeystrokes, MiddleClickPaste]),
        (ActionKind::SetValue, &[A11ySet, FocusSelectAllKeystrokes, MiddleClickPaste]),
        (ActionKind::Action, &[A11yAction]),
        (ActionKind::Key, &[KeyChord]),
        (ActionKind::Scroll, &[Wheel, A11yScroll]),
        (ActionKind::Wait, &[Wait]),
    ];
    let set = PolicySet::defaults();
    for (kind, chain) in expected {
        assert_eq!(set.get(kind).chain, chain, "{kind:?}");
    }
}

#[test]
fn defaults_match_the_cli_flags() {
    let set = PolicySet::defaults();
    for kind in ALL_KINDS.into_iter().filter(|k| *k != ActionKind::Wait) {
        let p = set.get(kind);
        assert_eq!(p.verify_delay_ms, 100, "--verify-delay default, {kind:?}");
        assert_eq!(p.max_retries, 3, "--max-retries default, {kind:?}");
        assert_eq!(p.window_ms, 3000, "{kind:?}");
        assert!(!p.blocked.auto_dismiss, "auto-dismiss only by explicit rule");
    }
    let click = set.get(ActionKind::Click);
    assert_eq!((click.early_fallback, click.early_fallback_ms), (EarlyFallback::Idempotent, 400));
    // Keys go early only when the executor saw the first one handled without effect.
    assert_eq!(set.get(ActionKind::Type).early_fallback, EarlyFallback::Idempotent);
    assert_eq!(set.get(ActionKind::SetValue).early_fallback, EarlyFallback::Never);
}

#[test]
fn every_key_of_defaults_toml_is_documented() {
    // Each key must appear at least once right under a comment line.
    let text = PolicySet::defaults_toml();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut keys = std::collections::BTreeMap::<&str, bool>::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with('#') || line.starts_with('[') || line.is_empty() {
            continue;
        }
        let key = line.split('=').next().unwrap().trim();
        let commented = i > 0 && lines[i - 1].starts_with('#');
        *keys.entry(key).or_default() |= commented;
    }
    let undocumented: Vec<_> = keys.iter().filter(|(_, d)| !**d).map(|(k, _)| *k).collect();
    assert!(undocumented.is_empty(), "undocumented keys: {undocumented:?}");
    // 18 distinct names (`max_retries` serves both the action and [transient]).
    assert_eq!(keys.len(), 18, "{keys:?}");
}

#[test]
fn a_file_may_set_a_single_key() {
    let set = PolicySet::from_toml_str("[click.blocked]\nauto_dismiss = true\n").unwrap();
    let defaults = PolicySet::defaults();
    let mut expected = defaults.get(ActionKind::Click).clone();
    expected.blocked.auto_dismiss = true;
    assert_eq!(set.get(ActionKind::Click), &expected);
    for kind in ALL_KINDS.into_iter().filter(|k| *k != ActionKind::Click) {
        assert_eq!(set.get(kind), defaults.get(kind), "{kind:?}");
    }
}

#[test]
fn an_empty_file_is_the_defaults() {
    assert_eq!(PolicySet::from_toml_str("# nothing\n").unwrap(), PolicySet::defaults());
}

#[test]
fn set_value_may_be_spelled_like_the_verb() {
    let set = PolicySet::from_toml_str("[set-value]\nchain = [\"focus_select_all_keystrokes\"]\n").unwrap();
    assert_eq!(set.get(ActionKind::SetValue).chain, [Method::FocusSelectAllKeystrokes]);
}

#[test]
fn syntax_error_names_the_line() {
    let e = error("[click]\nwindow_ms = 100\nmax_retries = \n");
    assert!(matches!(e, PolicyError::Parse { line: Some(3), .. }), "{e:?}");
    assert!(e.to_string().starts_with("policy file, line 3, column"), "{e}");
}

#[test]
fn wrong_type_names_the_line() {
    let e = error("\n[defaults]\nwindow_ms = \"fast\"\n");
    assert!(matches!(e, PolicyError::Parse { line: Some(3), .. }), "{e:?}");
}

#[test]
fn negative_time_is_rejected() {
    let e = error("[click]\nwindow_ms = -5\n");
    assert!(matches!(e, PolicyError::Parse { line: Some(2), .. }), "{e:?}");
}

#[test]
fn unknown_key_is_named() {
    let e = error("[click]\nwindo_ms = 5\n");
    let text = e.to_string();
    assert!(text.contains("line 2") && text.contains("windo_ms"), "{text}");
}

#[test]
fn unknown_table_is_named() {
    let e = error("[clik]\nwindow_ms = 5\n");
    assert!(e.to_string().contains("clik"), "{e}");
}

#[test]
fn unknown_method_is_rejected_with_its_name() {
    let e = error("[click]\n\nchain = [\"coordinate_click\", \"triple_click\"]\n");
    let text = e.to_string();
    assert!(text.contains("line 3") && text.contains("triple_click"), "{text}");
}

#[test]
fn method_that_cannot_do_the_action_is_rejected() {
    let e = error("[type]\nchain = [\"wheel\"]\n");
    assert_eq!(
        e,
        PolicyError::Invalid {
            key: "type.chain".into(),
            line: Some(2),
            reason: "holds `wheel`, which cannot carry out `type` (allowed: keystrokes, a11y_set, focus_select_all_keystrokes, middle_click_paste)".into(),
        }
    );
}

#[test]
fn empty_chain_is_rejected() {
    let e = error("[scroll]\nchain = []\n");
    assert_eq!(e.to_string(), "policy file, line 2: `scroll.chain` is empty: a chain needs at least one method");
}

#[test]
fn zero_window_is_rejected_with_its_key_and_line() {
    let e = error("[defaults]\nwindow_ms = 0\n");
    assert_eq!(e.to_string(), "policy file, line 2: `defaults.window_ms` must be more than 0");
}

#[test]
fn a_chain_in_defaults_is_rejected() {
    let e = error("[defaults]\nchain = [\"wait\"]\n");
    assert!(matches!(&e, PolicyError::Invalid { key, line: Some(2), .. } if key == "defaults.chain"), "{e:?}");
}

#[test]
fn inconsistent_values_point_at_the_users_key() {
    // The user set window_ms; verify_delay_ms (100) is the built-in one.
    let e = error("[click]\nwindow_ms = 50\n");
    assert_eq!(
        e.to_string(),
        "policy file, line 2: `click.window_ms` is inconsistent: verify_delay_ms (100) must be less than window_ms (50)"
    );
    let e = error("[transient]\n");
    assert!(e.to_string().contains("transient"), "{e}");
    let e = error("[defaults.transient]\nbackoff_factor = 0\n");
    assert_eq!(e.to_string(), "policy file, line 2: `defaults.transient.backoff_factor` must be at least 1");
}

#[test]
fn table_names_round_trip() {
    for kind in ALL_KINDS {
        let src = format!("[{}]\nmax_retries = 7\n", table_name(kind));
        assert_eq!(PolicySet::from_toml_str(&src).unwrap().get(kind).max_retries, 7);
    }
}

#[test]
fn cli_overrides_apply_and_keep_the_budget_sane() {
    let click = PolicySet::defaults().get(ActionKind::Click).clone();
    let o = Overrides { verify_delay_ms: Some(250), max_retries: Some(1), timeout_ms: Some(60_000) };
    let p = click.with_overrides(ActionKind::Click, o).unwrap();
    assert_eq!((p.verify_delay_ms, p.max_attempts(), p.window_ms), (250, 2, 60_000));
    assert_eq!(p.max_total_ms, 60_250, "one input can still be verified over its whole window");
    let zero = Overrides { timeout_ms: Some(0), ..Overrides::default() };
    let e = click.with_overrides(ActionKind::Click, zero).unwrap_err();
    assert_eq!(e.to_string(), "policy: `--timeout (click.window_ms)` must be more than 0");
    // Seconds meant, milliseconds read: the flag and what to write instead.
    let seconds = Overrides { timeout_ms: Some(20), ..Overrides::default() };
    let e = click.with_overrides(ActionKind::Click, seconds).unwrap_err().to_string();
    assert!(e.starts_with("policy: `--timeout (click.window_ms)` is inconsistent"), "{e}");
    assert!(e.contains("`--timeout 20s` or `--timeout 20000` is 20 seconds"), "{e}");
}
