//! Round trips of every public type through JSON and bincode.

use deft_types::*;
use proptest::prelude::*;

fn roundtrip<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(value).unwrap();
    assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value, "json: {json}");
    let bytes = bincode::serde::encode_to_vec(value, bincode::config::standard()).unwrap();
    let (back, used): (T, usize) = bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(&back, value);
}

fn sample_outcome() -> Outcome {
    Outcome {
        ok: true,
        action: ActionKind::Click,
        verified: Some(true),
        retried: true,
        retry_reason: Some("click produced no UI change; retried with accessibility press".into()),
        target: Some(TargetInfo {
            id: Some(ElementId(":1.42/org/a11y/atspi/accessible/17".into())),
            role: Some(Role::new("push button")),
            name: "Submit".into(),
            bounds: Some(Rect::new(10, 20, 80, 30)),
            app: Some("deft-fixture".into()),
            window: Some("Deft Fixture".into()),
        }),
        expected: "any UI change on or around the target".into(),
        observed: "dialog 'Saved' appeared; target gone".into(),
        attempts: vec![
            Attempt {
                method: Method::CoordinateClick,
                result: AttemptResult::NoChange,
                elapsed_ms: 412,
                observed: None,
            },
            Attempt {
                method: Method::A11yAction,
                result: AttemptResult::Verified,
                elapsed_ms: 96,
                observed: Some("dialog 'Saved' appeared".into()),
            },
        ],
        blocking: None,
        suggested_action: None,
        failure: None,
        evidence: vec![Evidence {
            channel: Channel::Accessibility,
            what: "dialog 'Saved' appeared".into(),
            region: Some(Rect::new(0, 0, 10, 10)),
            after_ms: 90,
        }],
        elapsed_ms: 520,
        seen: deft_types::Seen::default(),
        seen_by: None,
    }
}

#[test]
fn outcome_roundtrips_and_reads_like_the_contract() {
    let o = sample_outcome();
    roundtrip(&o);
    let v = serde_json::to_value(&o).unwrap();
    assert_eq!(v["action"], "click");
    assert_eq!(v["attempts"][0]["method"], "coordinate_click");
    assert_eq!(v["attempts"][0]["result"], "no_change");
    assert_eq!(v["target"]["bounds"], serde_json::json!([10, 20, 80, 30]));
    assert_eq!(v["blocking"], serde_json::Value::Null);
    assert_eq!(v["failure"], serde_json::Value::Null);
}

#[test]
fn failures_name_their_kind_and_candidates() {
    let mut o = sample_outcome();
    o.ok = false;
    o.failure = Some(Failure {
        kind: FailureKind::Ambiguous,
        candidates: vec![Candidate {
            id: ElementId(":1.2|/a/7".into()),
            role: Role::new("push_button"),
            name: "Submit".into(),
            app: "deft-fixture".into(),
            window: Some("Deft Fixture".into()),
            path: vec![0, 2],
            selector: "app=deft-fixture window=\"Deft Fixture\" path=0/2".into(),
            similarity: 100,
        }],
    });
    roundtrip(&o);
    let v = serde_json::to_value(&o).unwrap();
    assert_eq!(v["failure"]["kind"], "ambiguous");
    assert_eq!(v["failure"]["candidates"][0]["similarity"], 100);
    for k in [FailureKind::NotFound, FailureKind::NotActionable, FailureKind::TimedOut] {
        assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
    }
    for m in Method::ALL {
        assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
    }
    assert_eq!(serde_json::to_value(ActionKind::SetValue).unwrap(), ActionKind::SetValue.as_str());
}

#[test]
fn actions_roundtrip() {
    let sel = Selector {
        role: Some(Role::new("push_button")),
        name: Some(TextMatch::Exact("Submit".into())),
        index: Some(1),
        ..Selector::default()
    };
    let actions = [
        Action::Click { target: Target::Selector(sel.clone()), button: MouseButton::Left, count: 1 },
        Action::Type { target: Target::Focused, text: "héllo ✓".into() },
        Action::SetValue { target: Target::Text(TextMatch::Contains("name".into())), value: "x".into() },
        Action::Invoke { target: Target::Point(Point::new(3, 4)), name: "click".into() },
        Action::Key { chord: KeyChord { modifiers: vec!["ctrl".into()], key: "s".into() }, target: Target::Focused },
        Action::Scroll { target: Target::Focused, dx: 0, dy: -3 },
        Action::Wait { condition: Condition::ElementState { selector: sel, state: State::Enabled, present: true } },
    ];
    for a in &actions {
        roundtrip(a);
    }
    assert_eq!(actions[0].kind().verb(), "click");
}

proptest! {
    #[test]
    fn rects_roundtrip(x in any::<i32>(), y in any::<i32>(), w in any::<u32>(), h in any::<u32>()) {
        roundtrip(&Rect::<Physical>::new(x, y, w, h));
    }

    #[test]
    fn scale_roundtrip_is_exact_for_whole_factors(
        x in -100_000i32..100_000, y in -100_000i32..100_000,
        w in 0u32..10_000, h in 0u32..10_000, k in 1u32..4,
    ) {
        let s = ScaleFactor::new(f64::from(k)).unwrap();
        let r: Rect<Logical> = Rect::new(x, y, w, h);
        prop_assert_eq!(s.rect_to_logical(s.rect_to_physical(r)), r);
    }

    #[test]
    fn physical_rect_covers_the_logical_one(
        x in -10_000i32..10_000, y in -10_000i32..10_000,
        w in 1u32..5_000, h in 1u32..5_000, k in 0.5f64..4.0,
    ) {
        let s = ScaleFactor::new(k).unwrap();
        let r: Rect<Logical> = Rect::new(x, y, w, h);
        let p = s.rect_to_physical(r);
        // Every logical corner maps inside the physical rectangle (rounding outward).
        prop_assert!(p.x as f64 <= x as f64 * k + 1e-9);
        prop_assert!(p.right() as f64 >= r.right() as f64 * k - 1e-9);
        prop_assert!(p.contains(s.to_physical(r.center())) || p.w <= 1 || p.h <= 1);
    }
}

#[test]
fn a_key_written_before_keys_had_a_target_goes_to_the_focus() {
    // Traces and policies written before: a key chord with no target.
    let old = r#"{"key":{"chord":{"modifiers":["ctrl"],"key":"s"}}}"#;
    let a: Action = serde_json::from_str(old).expect("an old key action reads");
    assert!(matches!(&a, Action::Key { target: Target::Focused, .. }), "{a:?}");
    assert_eq!(a.target(), None, "sent to whatever has the focus");
    let scoped = Action::Key {
        chord: KeyChord { modifiers: Vec::new(), key: "j".into() },
        target: Target::Selector(Selector { app: Some(TextMatch::Exact("qmmp".into())), ..Selector::default() }),
    };
    assert!(scoped.target().is_some(), "a key for an application acts on it");
}
