//! [`AnyAccessibility`]: an accessibility backend chosen at runtime.
//!
//! [`Accessibility`] has async methods, so it is not object safe; the layers above hold one
//! backend picked when the desktop is connected (AT-SPI on Linux today, another platform's
//! tomorrow, a fake in tests) without being generic over it. `DynAccessibility` is the
//! object-safe mirror (boxed futures), implemented for every backend; `AnyAccessibility`
//! implements [`Accessibility`] by forwarding **every** method, the defaulted ones too: a
//! forwarder that left one to its default would silently answer for the backend (a toolkit
//! that reports its held press would be taken for one that does not).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use deft_types::{Element, ElementId, Logical, Point, Rect};

use crate::backend::{Accessibility, AppInfo, Caret, Hit, Operation, Scope, SnapshotOptions};
use crate::error::A11yError;
use crate::events::{EventFilter, EventStream};
use crate::tree::Tree;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The object-safe form of [`Accessibility`], one method per method (each returning a
/// boxed future). Implemented for every [`Accessibility`]; used through
/// [`AnyAccessibility`].
trait DynAccessibility: Send + Sync {
    fn applications_dyn(&self) -> Boxed<'_, Result<Vec<AppInfo>, A11yError>>;
    fn snapshot_dyn<'a>(&'a self, scope: &'a Scope, options: &'a SnapshotOptions)
    -> Boxed<'a, Result<Tree, A11yError>>;
    fn element_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Element, A11yError>>;
    fn perform_dyn<'a>(&'a self, id: &'a ElementId, op: &'a Operation) -> Boxed<'a, Result<(), A11yError>>;
    fn hit_test_dyn(&self, point: Point<Logical>) -> Boxed<'_, Result<Option<Hit>, A11yError>>;
    fn events_dyn<'a>(&'a self, filter: &'a EventFilter) -> Boxed<'a, Result<EventStream, A11yError>>;
    fn text_end_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Option<Rect<Logical>>, A11yError>>;
    fn caret_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Option<Caret>, A11yError>>;
    fn toolkit_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Option<String>, A11yError>>;
    fn actions_hold_the_call_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, bool>;
    fn survives_client_leaving_after_input_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, bool>;
    fn reports_held_press_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, bool>;
    fn do_action_dyn<'a>(&'a self, id: &'a ElementId, action: &'a str) -> Boxed<'a, Result<(), A11yError>>;
    fn set_text_dyn<'a>(&'a self, id: &'a ElementId, text: &'a str) -> Boxed<'a, Result<(), A11yError>>;
    fn insert_text_dyn<'a>(&'a self, id: &'a ElementId, at: usize, text: &'a str) -> Boxed<'a, Result<(), A11yError>>;
    fn set_value_dyn<'a>(&'a self, id: &'a ElementId, value: f64) -> Boxed<'a, Result<(), A11yError>>;
    fn focus_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<(), A11yError>>;
    fn scroll_into_view_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<(), A11yError>>;
}

impl<T: Accessibility> DynAccessibility for T {
    fn applications_dyn(&self) -> Boxed<'_, Result<Vec<AppInfo>, A11yError>> {
        Box::pin(self.applications())
    }
    fn snapshot_dyn<'a>(
        &'a self,
        scope: &'a Scope,
        options: &'a SnapshotOptions,
    ) -> Boxed<'a, Result<Tree, A11yError>> {
        Box::pin(self.snapshot(scope, options))
    }
    fn element_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Element, A11yError>> {
        Box::pin(self.element(id))
    }
    fn perform_dyn<'a>(&'a self, id: &'a ElementId, op: &'a Operation) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.perform(id, op))
    }
    fn hit_test_dyn(&self, point: Point<Logical>) -> Boxed<'_, Result<Option<Hit>, A11yError>> {
        Box::pin(self.hit_test(point))
    }
    fn events_dyn<'a>(&'a self, filter: &'a EventFilter) -> Boxed<'a, Result<EventStream, A11yError>> {
        Box::pin(self.events(filter))
    }
    fn text_end_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Option<Rect<Logical>>, A11yError>> {
        Box::pin(self.text_end(id))
    }
    fn caret_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Option<Caret>, A11yError>> {
        Box::pin(self.caret(id))
    }
    fn toolkit_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<Option<String>, A11yError>> {
        Box::pin(self.toolkit(id))
    }
    fn actions_hold_the_call_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, bool> {
        Box::pin(self.actions_hold_the_call(id))
    }
    fn survives_client_leaving_after_input_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, bool> {
        Box::pin(self.survives_client_leaving_after_input(id))
    }
    fn reports_held_press_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, bool> {
        Box::pin(self.reports_held_press(id))
    }
    fn do_action_dyn<'a>(&'a self, id: &'a ElementId, action: &'a str) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.do_action(id, action))
    }
    fn set_text_dyn<'a>(&'a self, id: &'a ElementId, text: &'a str) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.set_text(id, text))
    }
    fn insert_text_dyn<'a>(&'a self, id: &'a ElementId, at: usize, text: &'a str) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.insert_text(id, at, text))
    }
    fn set_value_dyn<'a>(&'a self, id: &'a ElementId, value: f64) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.set_value(id, value))
    }
    fn focus_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.focus(id))
    }
    fn scroll_into_view_dyn<'a>(&'a self, id: &'a ElementId) -> Boxed<'a, Result<(), A11yError>> {
        Box::pin(self.scroll_into_view(id))
    }
}

/// Any accessibility backend, chosen at runtime; cheap to clone and share between tasks
/// (clones share one backend and its connections).
#[derive(Clone)]
pub struct AnyAccessibility(Arc<dyn DynAccessibility>);

impl AnyAccessibility {
    /// Wraps a backend.
    pub fn new(backend: impl Accessibility + 'static) -> AnyAccessibility {
        AnyAccessibility(Arc::new(backend))
    }

    /// Wraps a backend the caller keeps a handle on too (a test that changes a fake's
    /// tree while an executor reads it).
    pub fn shared<T: Accessibility + 'static>(backend: Arc<T>) -> AnyAccessibility {
        AnyAccessibility(backend)
    }
}

impl std::fmt::Debug for AnyAccessibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AnyAccessibility")
    }
}

impl Accessibility for AnyAccessibility {
    async fn applications(&self) -> Result<Vec<AppInfo>, A11yError> {
        self.0.applications_dyn().await
    }
    async fn snapshot(&self, scope: &Scope, options: &SnapshotOptions) -> Result<Tree, A11yError> {
        self.0.snapshot_dyn(scope, options).await
    }
    async fn element(&self, id: &ElementId) -> Result<Element, A11yError> {
        self.0.element_dyn(id).await
    }
    async fn perform(&self, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
        self.0.perform_dyn(id, op).await
    }
    async fn hit_test(&self, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
        self.0.hit_test_dyn(point).await
    }
    async fn events(&self, filter: &EventFilter) -> Result<EventStream, A11yError> {
        self.0.events_dyn(filter).await
    }
    async fn text_end(&self, id: &ElementId) -> Result<Option<Rect<Logical>>, A11yError> {
        self.0.text_end_dyn(id).await
    }
    async fn caret(&self, id: &ElementId) -> Result<Option<Caret>, A11yError> {
        self.0.caret_dyn(id).await
    }
    async fn toolkit(&self, id: &ElementId) -> Result<Option<String>, A11yError> {
        self.0.toolkit_dyn(id).await
    }
    async fn actions_hold_the_call(&self, id: &ElementId) -> bool {
        self.0.actions_hold_the_call_dyn(id).await
    }
    async fn survives_client_leaving_after_input(&self, id: &ElementId) -> bool {
        self.0.survives_client_leaving_after_input_dyn(id).await
    }
    async fn reports_held_press(&self, id: &ElementId) -> bool {
        self.0.reports_held_press_dyn(id).await
    }
    async fn do_action(&self, id: &ElementId, action: &str) -> Result<(), A11yError> {
        self.0.do_action_dyn(id, action).await
    }
    async fn set_text(&self, id: &ElementId, text: &str) -> Result<(), A11yError> {
        self.0.set_text_dyn(id, text).await
    }
    async fn insert_text(&self, id: &ElementId, at: usize, text: &str) -> Result<(), A11yError> {
        self.0.insert_text_dyn(id, at, text).await
    }
    async fn set_value(&self, id: &ElementId, value: f64) -> Result<(), A11yError> {
        self.0.set_value_dyn(id, value).await
    }
    async fn focus(&self, id: &ElementId) -> Result<(), A11yError> {
        self.0.focus_dyn(id).await
    }
    async fn scroll_into_view(&self, id: &ElementId) -> Result<(), A11yError> {
        self.0.scroll_into_view_dyn(id).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::fake::{FakeAccessibility, demo_tree};

    /// A backend that answers every defaulted method otherwise than the default, and
    /// records the operations that would otherwise go through `perform`.
    struct Marked {
        inner: FakeAccessibility,
        calls: Mutex<Vec<String>>,
    }

    impl Marked {
        fn note(&self, what: &str) {
            self.calls.lock().unwrap().push(what.to_string());
        }
    }

    impl Accessibility for Marked {
        async fn applications(&self) -> Result<Vec<AppInfo>, A11yError> {
            self.inner.applications().await
        }
        async fn snapshot(&self, scope: &Scope, options: &SnapshotOptions) -> Result<Tree, A11yError> {
            self.inner.snapshot(scope, options).await
        }
        async fn element(&self, id: &ElementId) -> Result<Element, A11yError> {
            self.inner.element(id).await
        }
        async fn perform(&self, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
            self.inner.perform(id, op).await
        }
        async fn hit_test(&self, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
            self.inner.hit_test(point).await
        }
        async fn events(&self, filter: &EventFilter) -> Result<EventStream, A11yError> {
            self.inner.events(filter).await
        }
        async fn text_end(&self, _id: &ElementId) -> Result<Option<Rect<Logical>>, A11yError> {
            Ok(Some(Rect::new(1, 2, 3, 4)))
        }
        async fn caret(&self, _id: &ElementId) -> Result<Option<Caret>, A11yError> {
            Ok(Some(Caret { at: 3, selected: true }))
        }
        async fn toolkit(&self, _id: &ElementId) -> Result<Option<String>, A11yError> {
            Ok(Some("Marked".into()))
        }
        async fn actions_hold_the_call(&self, _id: &ElementId) -> bool {
            true
        }
        async fn survives_client_leaving_after_input(&self, _id: &ElementId) -> bool {
            true
        }
        async fn reports_held_press(&self, _id: &ElementId) -> bool {
            true
        }
        async fn do_action(&self, _id: &ElementId, action: &str) -> Result<(), A11yError> {
            self.note(&format!("do_action {action}"));
            Ok(())
        }
        async fn set_text(&self, _id: &ElementId, text: &str) -> Result<(), A11yError> {
            self.note(&format!("set_text {text}"));
            Ok(())
        }
        async fn insert_text(&self, _id: &ElementId, at: usize, text: &str) -> Result<(), A11yError> {
            self.note(&format!("insert_text {at} {text}"));
            Ok(())
        }
        async fn set_value(&self, _id: &ElementId, value: f64) -> Result<(), A11yError> {
            self.note(&format!("set_value {value}"));
            Ok(())
        }
        async fn focus(&self, _id: &ElementId) -> Result<(), A11yError> {
            self.note("focus");
            Ok(())
        }
        async fn scroll_into_view(&self, _id: &ElementId) -> Result<(), A11yError> {
            self.note("scroll_into_view");
            Ok(())
        }
    }

    #[tokio::test]
    async fn every_method_reaches_the_backend_the_defaulted_ones_too() {
        let marked = Arc::new(Marked { inner: FakeAccessibility::new(demo_tree()), calls: Mutex::new(Vec::new()) });
        let any = AnyAccessibility::shared(Arc::clone(&marked));
        let id = ElementId("x".into());
        assert_eq!(any.text_end(&id).await.unwrap(), Some(Rect::new(1, 2, 3, 4)));
        assert_eq!(any.caret(&id).await.unwrap(), Some(Caret { at: 3, selected: true }));
        assert_eq!(any.toolkit(&id).await.unwrap().as_deref(), Some("Marked"));
        assert!(any.actions_hold_the_call(&id).await);
        assert!(any.survives_client_leaving_after_input(&id).await);
        assert!(any.reports_held_press(&id).await);
        any.do_action(&id, "click").await.unwrap();
        any.set_text(&id, "abc").await.unwrap();
        any.insert_text(&id, 1, "de").await.unwrap();
        any.set_value(&id, 2.5).await.unwrap();
        any.focus(&id).await.unwrap();
        any.scroll_into_view(&id).await.unwrap();
        assert_eq!(
            *marked.calls.lock().unwrap(),
            ["do_action click", "set_text abc", "insert_text 1 de", "set_value 2.5", "focus", "scroll_into_view"]
        );
        assert!(marked.inner.performed().is_empty(), "nothing went through perform's default path");
        // The required ones answer as the backend does.
        let apps = any.applications().await.unwrap();
        assert_eq!(apps, marked.inner.applications().await.unwrap());
        let tree = any.snapshot(&Scope::All, &SnapshotOptions::default()).await.unwrap();
        assert_eq!(tree.len(), marked.inner.snapshot(&Scope::All, &SnapshotOptions::default()).await.unwrap().len());
    }
}
