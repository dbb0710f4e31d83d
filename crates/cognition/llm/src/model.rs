//! The seam: `Model`, and `AnyModel` for a model chosen at runtime.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::call::Call;
use crate::error::LlmError;
use crate::request::Request;
use crate::response::Response;

/// A language model the agent can ask.
///
/// Two methods: [`Model::describe`] (which model answers, for reports) and
/// [`Model::complete`]. Dropping the future returned by `complete` cancels the call and
/// closes its connection; [`Call::cancel`] does the same from elsewhere.
pub trait Model: Send + Sync {
    /// Which provider and model this is.
    fn describe(&self) -> ModelInfo;

    /// Answers `request`. Rate limits, overloads and dropped connections are retried
    /// inside, within the call's timeout; what is returned as an error is final.
    fn complete(&self, request: &Request, call: &Call<'_>) -> impl Future<Output = Result<Response, LlmError>> + Send;

    /// The conversation this model serves goes on in a new process after `calls` calls
    /// made by an earlier one (a paused run resumed). A model that answers from the
    /// conversation (every provider) has nothing to do; a scripted one skips the turns
    /// those calls used, so one script covers a run paused and resumed.
    fn resumed_after(&self, calls: u32) {
        let _ = calls;
    }
}

/// Which model answered: provider and model name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// `anthropic`, `openai`, `openai-compatible`, `gemini`, `scripted`.
    pub provider: String,
    /// The configured model name.
    pub model: String,
}

impl std::fmt::Display for ModelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.provider, self.model)
    }
}

/// A boxed future, for [`DynModel`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Model`] in a form usable as a trait object (`async fn` in traits is not). Every
/// `Model` is a `DynModel` through the blanket impl, so a backend cannot make the two
/// differ.
pub trait DynModel: Send + Sync {
    /// See [`Model::describe`].
    fn describe_dyn(&self) -> ModelInfo;
    /// See [`Model::complete`].
    fn complete_dyn<'a>(
        &'a self,
        request: &'a Request,
        call: &'a Call<'a>,
    ) -> BoxFuture<'a, Result<Response, LlmError>>;
    /// See [`Model::resumed_after`].
    fn resumed_after_dyn(&self, calls: u32);
}

impl<M: Model> DynModel for M {
    fn describe_dyn(&self) -> ModelInfo {
        self.describe()
    }

    fn complete_dyn<'a>(
        &'a self,
        request: &'a Request,
        call: &'a Call<'a>,
    ) -> BoxFuture<'a, Result<Response, LlmError>> {
        Box::pin(self.complete(request, call))
    }

    fn resumed_after_dyn(&self, calls: u32) {
        self.resumed_after(calls);
    }
}

/// Any model, chosen at runtime (from a [`crate::ProviderConfig`]); cheap to clone and
/// share between tasks.
#[derive(Clone)]
pub struct AnyModel(Arc<dyn DynModel>);

impl AnyModel {
    /// Wraps a model.
    pub fn new(model: impl Model + 'static) -> Self {
        Self(Arc::new(model))
    }
}

impl std::fmt::Debug for AnyModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AnyModel({})", self.0.describe_dyn())
    }
}

impl Model for AnyModel {
    fn describe(&self) -> ModelInfo {
        self.0.describe_dyn()
    }

    async fn complete(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        self.0.complete_dyn(request, call).await
    }

    fn resumed_after(&self, calls: u32) {
        self.0.resumed_after_dyn(calls);
    }
}
