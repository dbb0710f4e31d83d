//! Selectors resolved against the live fixture app, and their errors.

use deft_a11y::selector::{self, ResolveError};
use deft_a11y::{A11yError, SnapshotOptions, find};
use deft_types::ErrorClass;

use crate::support::session;

#[test]
fn selectors_resolve_and_fail_clearly() {
    let s = session();
    let a = s.a11y();
    let opts = SnapshotOptions::default();
    let find = |text: &str| s.block(find(a, &selector::parse(text).unwrap(), &opts));

    let found = find(r#"app=deft-fixture role=push_button name="Submit order""#).unwrap();
    assert_eq!(found.element().name, "Submit order");
    let by_window = find(r#"window="Deft Fixture" role=check_box"#).unwrap();
    assert_eq!(by_window.element().name, "Subscribe");
    let by_id = find(&format!("id={}", quote(&found.element().id.0))).unwrap();
    assert_eq!(by_id.element().id, found.element().id);
    let by_path =
        find(&format!(r#"window="Deft Fixture" path={}"#, selector::format_path(&found.tree.nodes[found.index].path)))
            .unwrap();
    assert_eq!(by_path.element().id, found.element().id);
    assert_eq!(find(r#"name/="^Item [45]$" role=list_item index=1"#).unwrap().element().name, "Item 5");

    // More than one match: all of them, never the first silently.
    let Err(A11yError::Resolve(ResolveError::Ambiguous { matches, .. })) = find("name~=sub") else {
        panic!("expected an ambiguity")
    };
    let names: Vec<&str> = matches.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Submit order", "Subscribe"]);

    // No match: the closest first.
    let err = find(r#"role=push_button name="Sumbit ordr""#).unwrap_err();
    let A11yError::Resolve(ResolveError::NotFound { candidates, .. }) = &err else { panic!("{err}") };
    assert_eq!(candidates[0].name, "Submit order", "{err}");
    assert_eq!(err.class(), ErrorClass::Permanent);
    assert!(err.to_string().starts_with("no element matches"), "{err}");

    // An app or window that is not there lists the ones that are, a near name first.
    let err = find("app=deft-fixtur name=Hello").unwrap_err();
    let A11yError::Resolve(ResolveError::NoApp { running, .. }) = &err else { panic!("{err}") };
    assert_eq!(running[0].name, "deft-fixture", "{err}");
    assert!(err.to_string().contains(r#"did you mean "deft-fixture"?"#), "{err}");
    let err = find(r#"window="Deft Fixtures" name=Hello"#).unwrap_err();
    assert!(err.to_string().contains(r#"frame "Deft Fixture""#), "{err}");

    // Syntax errors say where.
    let err = selector::parse(r#"role=push_button name="Submit"#).unwrap_err();
    assert_eq!(err.column, 23);
    assert!(err.to_string().contains("unterminated quoted value"), "{err}");
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
