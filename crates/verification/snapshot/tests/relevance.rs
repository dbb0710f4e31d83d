//! Properties of judgements and renderings on random diffs.

use deft_snapshot::{RelevanceConfig, RenderConfig, diff, immediate_feedback, judge, render_diff};
use deft_types::ElementId;
use proptest::prelude::*;

use crate::strategies::pair;

/// Rules that call nothing noise.
fn no_rules(target: Option<ElementId>) -> RelevanceConfig {
    RelevanceConfig {
        target,
        settling: Vec::new(),
        self_changing: Vec::new(),
        jitter_px: 0,
        activity_roles: Vec::new(),
        clock_text: false,
        caret_max_px: 0,
        masks: Vec::new(),
        ignore: Vec::new(),
        incidental_states: Vec::new(),
        button_press_noise: false,
        hidden_noise: false,
        child_count_noise: false,
        window_activation_noise: false,
        recreated_noise: false,
        preloading_noise: false,
        loading_texts: Vec::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn without_rules_every_change_is_an_effect((ma, mb) in pair(200, 15), pick in any::<prop::sample::Index>()) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        let d = diff(&a, &b);
        let target = (!ma.elements.is_empty()).then(|| ma.elements[pick.index(ma.elements.len())].0.id.clone());
        let j = judge(&d, &a, &b, &no_rules(target));
        prop_assert!(j.noise.is_empty());
        prop_assert_eq!(j.has_effect(), !d.is_empty());
    }

    #[test]
    fn noise_and_effects_account_for_every_field((ma, mb) in pair(200, 15)) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        let d = diff(&a, &b);
        let j = judge(&d, &a, &b, &RelevanceConfig::default());
        let fields: usize = d.changed.iter().map(|c| c.changes.len()).sum();
        let effect_fields: usize = j.effects.iter().map(|e| match &e.kind {
            deft_snapshot::EffectKind::Changed { changes, .. } => changes.len(),
            _ => 0,
        }).sum();
        let noise_fields = j.noise.iter().filter(|n| matches!(n.source, deft_snapshot::NoiseSource::Field { .. })).count();
        prop_assert_eq!(effect_fields + noise_fields, fields);
    }

    #[test]
    fn renderings_are_short_and_say_no_change_only_when_empty((ma, mb) in pair(500, 30), max_items in 1usize..8) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        let d = diff(&a, &b);
        let cfg = RenderConfig { max_items, max_text: 20 };
        let text = render_diff(&d, &cfg);
        prop_assert_eq!(text == "no change", d.is_empty());
        prop_assert!(text.split("; ").count() <= max_items + 1, "{}", text);
        let j = judge(&d, &a, &b, &RelevanceConfig::default());
        let observed = deft_snapshot::render_observed(&j, &cfg);
        prop_assert_eq!(observed.starts_with("no change"), !j.has_effect());
        prop_assert!(observed.split("; ").count() <= max_items + 1, "{}", observed);
    }

    #[test]
    fn feedback_never_comes_from_an_identical_snapshot((ma, _) in pair(200, 0)) {
        let a = ma.snapshot();
        let target = ElementId("e0".into());
        prop_assert_eq!(immediate_feedback(&diff(&a, &a), &target), None);
    }
}

#[test]
fn the_issue_example_reads_like_an_observed_line() {
    use deft_snapshot::{Judgement, Snapshot, WindowState};
    use deft_types::{Element, Role, State};

    let el = |id: &str, role: &str, name: &str| Element {
        id: ElementId(id.into()),
        role: Role::new(role),
        name: name.into(),
        description: String::new(),
        states: Default::default(),
        bounds: None,
        text: None,
        value: None,
        actions: vec!["click".into()],
        child_count: 0,
    };
    let w = ElementId("w".into());
    let mut name = el("name", "text", "Name");
    name.text = Some(String::new());
    let before = Snapshot::builder()
        .root(el("w", "frame", "Order"))
        .child(&w, name.clone())
        .child(&w, el("sub", "check_box", "Subscribe"))
        .child(&w, el("ok", "push_button", "Submit"))
        .window(WindowState::new("w", "Order", "frame"))
        .build()
        .unwrap();
    name.text = Some("John".into());
    let mut sub = el("sub", "check_box", "Subscribe");
    sub.states.insert(State::Checked);
    let after = Snapshot::builder()
        .root(el("w", "frame", "Order"))
        .child(&w, name)
        .child(&w, sub)
        .window(WindowState::new("w", "Order", "frame"))
        .window(WindowState { modal: true, ..WindowState::new("d", "Saved", "dialog") })
        .build()
        .unwrap();
    let j = Judgement::between(&before, &after, &RelevanceConfig::for_target(ElementId("ok".into())));
    assert!(j.target_gone());
    assert_eq!(
        j.to_string(),
        r#"dialog "Saved" appeared; "Submit" gone; "Name" text "" -> "John"; "Subscribe" checked"#
    );
}
