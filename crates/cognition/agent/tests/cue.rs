//! `wait_for_visual_cue`'s vision channel: only what no condition can say goes to the
//! model, only when the pixels changed since its last look, a bounded number of times.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deft_agent::cue;
use deft_toolbelt::{Shot, ToolCall, ToolError, ToolOutput};
use deft_types::{Physical, Rect};

use super::{FnModel, Reply};

/// A screen whose pixels change on the `change_at`-th screenshot (and stay the same otherwise).
fn screen(change_at: usize) -> (deft_agent::FakeDesktop, Arc<AtomicUsize>) {
    let shots = Arc::new(AtomicUsize::new(0));
    let n = Arc::clone(&shots);
    let d = deft_agent::FakeDesktop::new(move |call| match call {
        ToolCall::Screenshot(_) => {
            let i = n.fetch_add(1, Ordering::SeqCst);
            let png = if i + 1 >= change_at { vec![2, 2, 2] } else { vec![1, 1, 1] };
            Ok(ToolOutput::Screenshot(Shot {
                png,
                path: None,
                width: 3,
                height: 1,
                bounds: Rect::<Physical>::new(0, 0, 3, 1),
                backend: "fake",
                note: None,
                masked: Vec::new(),
            }))
        }
        other => Err(ToolError::usage(format!("unexpected {:?}", other.name()))),
    });
    (d, shots)
}

#[test]
fn the_vision_model_looks_only_when_the_pixels_changed() {
    // The model says yes only for the changed screen (its image's first byte is 2).
    let looks = Arc::new(Mutex::new(0));
    let l = Arc::clone(&looks);
    let model = FnModel::new(move |r| {
        *l.lock().unwrap() += 1;
        let changed = r.messages[0].parts.iter().any(|p| matches!(p, deft_llm::Part::Image(i) if i.data[0] == 2));
        Reply::Say(if changed { "yes" } else { "no" }, vec![])
    });
    let (d, shots) = screen(4);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let out = rt.block_on(cue::wait_for(&d, Some(&model), "the progress bar turns green", Duration::from_secs(5), 4));
    assert!(out.met, "{out:?}");
    assert_eq!(out.channel.as_deref(), Some("vision"));
    assert_eq!(out.vision_calls, 2, "one look at the first screen, one at the changed one: {out:?}");
    assert_eq!(*looks.lock().unwrap(), 2);
    assert!(shots.load(Ordering::SeqCst) >= 4, "the unchanged screens were not sent");
}

#[test]
fn without_a_vision_model_an_undecidable_cue_says_so_at_once() {
    let (d, _) = screen(1);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let out =
        rt.block_on(cue::wait_for::<_, FnModel>(&d, None, "the progress bar turns green", Duration::from_secs(5), 4));
    assert!(!out.met && out.vision_calls == 0 && out.elapsed_ms < 1000, "{out:?}");
    assert!(out.detail.contains("no vision model"), "{out:?}");
}
