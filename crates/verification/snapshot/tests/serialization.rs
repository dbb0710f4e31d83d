//! Round trips through bincode and JSON.

use deft_snapshot::{Judgement, RelevanceConfig, Snapshot, SnapshotDiff, decode, diff, encode};
use proptest::prelude::*;

use crate::strategies::{pair, snapshot};

fn tree_order(s: &Snapshot) -> Vec<String> {
    s.preorder().map(|n| n.id().0.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn snapshot_round_trips_with_sibling_order(m in snapshot(3000)) {
        let s = m.snapshot();
        let back: Snapshot = decode(&encode(&s).unwrap()).unwrap();
        prop_assert_eq!(tree_order(&back), tree_order(&s));
        prop_assert_eq!(&back, &s);
        let json: Snapshot = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        prop_assert_eq!(&json, &s);
    }

    #[test]
    fn diff_and_judgement_round_trip((ma, mb) in pair(1000, 30)) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        let d = diff(&a, &b);
        let back: SnapshotDiff = decode(&encode(&d).unwrap()).unwrap();
        prop_assert_eq!(&back, &d);
        let j = Judgement::between(&a, &b, &RelevanceConfig::default());
        let back: Judgement = decode(&encode(&j).unwrap()).unwrap();
        prop_assert_eq!(back, j);
    }
}

#[test]
fn config_loads_from_json_with_defaults() {
    let c: RelevanceConfig = serde_json::from_str(r#"{"target": "b", "jitter_px": 5}"#).unwrap();
    assert_eq!(c.jitter_px, 5);
    assert_eq!(c.activity_roles, RelevanceConfig::default().activity_roles);
}

#[test]
fn snapshot_encoding_is_compact() {
    // Ids are written once, parents are positions and integers are varints: a third of JSON.
    let s: Snapshot = serde_json::from_str(
        r#"{"nodes": [
            {"parent": null, "element": {"id": "a", "role": "frame", "name": "Main"}},
            {"parent": 0, "element": {"id": "b", "role": "panel", "name": ""}},
            {"parent": 1, "element": {"id": "c", "role": "push_button", "name": "OK"}}
        ], "windows": [], "regions": []}"#,
    )
    .unwrap();
    assert_eq!(s.ancestors(&deft_types::ElementId("c".into())).count(), 2);
    let (bin, json) = (encode(&s).unwrap().len(), serde_json::to_string(&s).unwrap().len());
    assert!(bin * 3 < json, "{bin} bytes vs {json} in JSON");
}
