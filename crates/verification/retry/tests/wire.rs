//! Steps, observations and verdicts survive JSON and bincode, so executors can trace them.

use deft_retry::{ActionContext, Engine, Feedback, Observation, PolicySet, Report, Signals, Step, Symptoms, Toggle};
use deft_types::ActionKind;

use crate::dsl::dialog;

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

#[test]
fn protocol_round_trips() {
    let observations = [
        Observation::new(5, Report::Sent),
        Observation::new(6, Report::SendUncertain { message: "timeout".into() }),
        Observation::new(
            7,
            Report::Refused(Symptoms { target_moved: true, blocking: Some(dialog("X")), ..Symptoms::new("moved") }),
        ),
        Observation::new(
            8,
            Report::NoChange(Signals {
                feedback: Feedback::NotSeen,
                loading: true,
                toggle: Toggle::Changed,
                blocking: None,
                press_unseen: true,
                press_unwatched: true,
                keys_unseen: true,
                keys_astray: true,
                own_motion: Some("Uptime 12 s".into()),
                done_as_asked: Some("Name now shows \"AdaAda\"".into()),
                held_before: true,
            }),
        ),
        Observation::new(9, Report::Verified { observed: "dialog Saved appeared".into() }),
        Observation::new(9, Report::Received { observed: "the menu closed".into() }),
        Observation::new(10, Report::Unreadable { message: "bus".into() }),
        Observation::new(11, Report::Resolved),
        Observation::new(12, Report::Dismissed),
    ];
    for o in &observations {
        roundtrip(o);
    }
    let policy = PolicySet::defaults().get(ActionKind::Click).clone();
    roundtrip(&policy);
    let mut engine = Engine::new(&policy, ActionContext::new(ActionKind::Click));
    let first = engine.start();
    roundtrip(&first);
    let verify = engine.observe(Observation::new(0, Report::Sent));
    roundtrip(&verify);
    roundtrip(&Step::DismissBlocking { blocking: Some(dialog("New Event!")), not_before_ms: 3 });
    let done = engine.observe(Observation::new(200, Report::Verified { observed: "changed".into() }));
    assert!(done.verdict().is_some_and(|v| v.ok));
    roundtrip(&done);
}
