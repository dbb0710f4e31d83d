//! The frame seam on fake backends: what the sink is handed, and that a password field
//! never reaches it unpainted.

use std::sync::{Arc, Mutex};

use deft_a11y::{AnyAccessibility, FakeAccessibility, TreeBuilder, element};
use deft_capture::FakeCapture;
use deft_input::RecordingInput;
use deft_types::{Action, Element, MouseButton, Point, Rect, Selector, Target};

use super::{FramePhase, FrameShot, FrameSink};
use crate::{Backends, Executor, ExecutorConfig};

#[derive(Debug, Default)]
struct Collect(Mutex<Vec<FrameShot>>);

impl FrameSink for Collect {
    fn shot(&self, shot: FrameShot) {
        self.0.lock().unwrap().push(shot);
    }
}

fn placed(id: &str, role: &str, name: &str, r: (i32, i32, u32, u32)) -> Element {
    let mut e = element(id, role, name);
    e.bounds = Some(Rect::new(r.0, r.1, r.2, r.3));
    e.actions = vec!["click".into()];
    e
}

/// An executor over a fake desktop, the fake's accessibility (to change its tree) and its screen.
fn executor(sink: Option<Arc<Collect>>) -> (Executor, Arc<FakeAccessibility>, Arc<Mutex<FakeCapture>>) {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let main = b.child(app, placed("main", "frame", "Main", (0, 0, 400, 300)));
    b.child(main, placed("go", "push_button", "Go", (10, 10, 80, 30)));
    b.child(main, placed("pw", "password_text", "Password", (100, 60, 120, 24)));
    let white = deft_types::Frame::new(400, 300, vec![255; 400 * 300 * 4], Point::new(0, 0)).unwrap();
    let capture = Arc::new(Mutex::new(FakeCapture::new(white)));
    struct Shared(Arc<Mutex<FakeCapture>>);
    impl deft_capture::Capture for Shared {
        fn capture(
            &mut self,
            t: &deft_capture::CaptureTarget,
        ) -> Result<deft_types::Frame, deft_capture::CaptureError> {
            self.0.lock().unwrap().capture(t)
        }
        fn monitors(&mut self) -> Result<Vec<deft_capture::Monitor>, deft_capture::CaptureError> {
            self.0.lock().unwrap().monitors()
        }
        fn backend_name(&self) -> &'static str {
            "fake"
        }
    }
    let a11y = Arc::new(FakeAccessibility::new(b.build()));
    let backends = Backends {
        a11y: AnyAccessibility::shared(Arc::clone(&a11y)),
        input: Box::new(RecordingInput::new(400, 300)),
        windows: None,
        capture: Some(Box::new(Shared(capture.clone()))),
        ocr: None,
    };
    let config = ExecutorConfig { frames: sink.map(|s| s as Arc<dyn FrameSink>), ..ExecutorConfig::default() };
    (Executor::new(backends, config).unwrap(), a11y, capture)
}

fn click_go() -> Action {
    let sel = Selector { name: Some(deft_types::TextMatch::Exact("Go".into())), ..Selector::default() };
    Action::Click { target: Target::Selector(sel), button: MouseButton::Left, count: 1 }
}

#[tokio::test]
async fn before_and_after_with_the_click_point_and_the_password_painted_over() {
    let sink = Arc::new(Collect::default());
    let (exec, _, _) = executor(Some(sink.clone()));
    let outcome = exec.perform(&click_go()).await;
    assert!(outcome.ok, "{outcome:#?}");
    let shots = sink.0.lock().unwrap();
    let phases: Vec<FramePhase> = shots.iter().map(|s| s.phase).collect();
    assert_eq!(phases, [FramePhase::Before, FramePhase::After]);
    let before = &shots[0];
    assert_eq!((before.op, before.attempt), (1, 1));
    assert_eq!(before.point, Some(Point::new(50, 25)), "the click lands at the centre of Go");
    assert_eq!(before.target, Some(Rect::new(10, 10, 80, 30)));
    for s in shots.iter() {
        assert_eq!(s.masked, vec![Rect::new(100, 60, 120, 24)], "{:?}", s.phase);
        assert_eq!(s.frame.pixel(110, 70), Some(deft_trace::redact::MASK_RGBA), "the field is painted over");
        assert_eq!(s.frame.pixel(5, 5), Some([255; 4]), "the rest is as captured");
    }
}

#[tokio::test]
async fn without_a_sink_nothing_is_captured() {
    let (exec, _, capture) = executor(None);
    assert!(exec.perform(&click_go()).await.ok);
    assert_eq!(capture.lock().unwrap().captures(), 0);
}

#[tokio::test]
async fn the_after_frame_of_a_seen_effect_waits_for_the_repaint() {
    // Accessibility reports the effect before the toolkit repaints: an after frame taken at
    // once would show the old screen beside "verified".
    let sink = Arc::new(Collect::default());
    let (exec, a11y, capture) = executor(Some(sink.clone()));
    let exec = Arc::new(exec);
    // The app: once it gets the action, its tree says so at once, its pixels 150 ms later.
    let app = {
        tokio::spawn(async move {
            while a11y.performed().is_empty() {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            let mut b = TreeBuilder::new();
            let app = b.app(element("app", "application", "demo"));
            let main = b.child(app, placed("main", "frame", "Main", (0, 0, 400, 300)));
            b.child(main, placed("go", "push_button", "Gone", (10, 10, 80, 30)));
            b.child(main, placed("pw", "password_text", "Password", (100, 60, 120, 24)));
            a11y.set_tree(b.build());
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            let grey = deft_types::Frame::new(400, 300, vec![128; 400 * 300 * 4], Point::new(0, 0)).unwrap();
            capture.lock().unwrap().set_screen(grey);
        })
    };
    let go = Selector { name: Some(deft_types::TextMatch::Exact("Go".into())), ..Selector::default() };
    let action = Action::Invoke { target: Target::Selector(go), name: "click".into() };
    let options = crate::ActionOptions { verify: Some(true), ..crate::ActionOptions::default() };
    let outcome = exec.perform_with(&action, &options).await;
    app.await.unwrap();
    assert_eq!(outcome.verified, Some(true), "{outcome:#?}");
    let shots = sink.0.lock().unwrap();
    let after = shots.iter().find(|s| s.phase == FramePhase::After).expect("an after frame");
    assert_eq!(after.frame.pixel(5, 5), Some([128; 4]), "the frame shows the repaint");
    assert_eq!(after.note, None);
}
