//! `Record`: wraps any model and appends each exchange to a script that `Scripted` replays.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::call::Call;
use crate::error::LlmError;
use crate::model::{Model, ModelInfo};
use crate::request::Request;
use crate::response::Response;
use crate::script::{ScriptedError, Turn, summary};

/// Passes calls to `inner` and appends each exchange as a turn: a summary of the request
/// (its newest message, images as SHA-256 references, never their bytes) and the response
/// or the error. Keys cannot appear: requests and responses hold none, and errors never
/// quote one. Replaying the file with [`crate::Scripted`] answers the same calls offline.
#[derive(Debug)]
pub struct Record<M> {
    inner: M,
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl<M: Model> Record<M> {
    /// Records `inner`'s exchanges at the end of `path` (created if missing).
    pub fn create(inner: M, path: &Path) -> Result<Self, LlmError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| LlmError::Record { path: path.to_path_buf(), source })?;
        Ok(Self { inner, path: path.to_path_buf(), file: Mutex::new(file) })
    }

    fn append(&self, turn: &Turn) -> Result<(), LlmError> {
        let mut line = serde_json::to_string(turn)
            .map_err(|e| LlmError::Record { path: self.path.clone(), source: std::io::Error::other(e) })?;
        line.push('\n');
        // One short write per model call (which itself takes seconds): not worth a thread.
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(line.as_bytes()).map_err(|source| LlmError::Record { path: self.path.clone(), source })
    }
}

impl<M: Model> Model for Record<M> {
    fn describe(&self) -> ModelInfo {
        self.inner.describe()
    }

    fn resumed_after(&self, calls: u32) {
        self.inner.resumed_after(calls);
    }

    async fn complete(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        let result = self.inner.complete(request, call).await;
        let mut turn = Turn {
            expect: Vec::new(),
            request: Some(serde_json::json!({
                "model": self.inner.describe().to_string(),
                "messages": request.messages.len(),
                "newest": request.messages.last().map(summary),
            })),
            reply: None,
            response: None,
            error: None,
        };
        match &result {
            Ok(r) => turn.response = Some(r.clone()),
            // A cancelled call is the caller's doing, not the model's answer.
            Err(LlmError::Cancelled) => return result,
            Err(e) => turn.error = Some(ScriptedError { class: e.class(), message: e.to_string() }),
        }
        self.append(&turn)?;
        result
    }
}
