//! `Scripted`: a model that answers from a file of turns, for deterministic tests and demos.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::call::{Call, Delta};
use crate::error::LlmError;
use crate::model::{Model, ModelInfo};
use crate::request::Request;
use crate::response::Response;
use crate::script::{self, Turn};

/// Answers each call with the next turn of a script (format: [`crate::script`] docs in
/// the README). Shares its position between clones of an `AnyModel` holding it: the
/// turns are used once each, in call order.
#[derive(Debug)]
pub struct Scripted {
    path: PathBuf,
    turns: Vec<Turn>,
    next: AtomicUsize,
}

impl Scripted {
    /// Reads the script at `path`.
    pub fn from_file(path: &Path) -> Result<Self, LlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Script {
            path: path.to_path_buf(),
            line: None,
            detail: format!("cannot read it: {e}"),
        })?;
        Self::from_text(path, &text)
    }

    /// A script from text; `path` names it in messages.
    pub fn from_text(path: &Path, text: &str) -> Result<Self, LlmError> {
        Ok(Self::from_turns(path, script::parse(path, text)?))
    }

    /// A script from turns.
    pub fn from_turns(path: &Path, turns: Vec<Turn>) -> Self {
        Self { path: path.to_path_buf(), turns, next: AtomicUsize::new(0) }
    }

    /// Turns not yet used.
    pub fn remaining(&self) -> usize {
        self.turns.len().saturating_sub(self.next.load(Ordering::SeqCst))
    }
}

impl Model for Scripted {
    fn describe(&self) -> ModelInfo {
        ModelInfo { provider: "scripted".into(), model: self.path.display().to_string() }
    }

    /// The turns the earlier process used are skipped: turn `calls + 1` answers next.
    fn resumed_after(&self, calls: u32) {
        self.next.fetch_max(calls as usize, Ordering::SeqCst);
    }

    async fn complete(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        if call.cancel.is_some_and(|c| c.is_cancelled()) {
            return Err(LlmError::Cancelled);
        }
        request.check().map_err(LlmError::InvalidRequest)?;
        let index = self.next.fetch_add(1, Ordering::SeqCst);
        let turn = self
            .turns
            .get(index)
            .ok_or_else(|| LlmError::ScriptEnded { path: self.path.clone(), turns: self.turns.len() })?;
        if !turn.expect.is_empty() {
            let newest = request.messages.last().map(script::searchable).unwrap_or_default();
            if let Some(missing) = turn.expect.iter().find(|e| !newest.contains(e.as_str())) {
                let found: String = newest.chars().take(300).collect();
                return Err(LlmError::ScriptMismatch {
                    path: self.path.clone(),
                    turn: index + 1,
                    expected: missing.clone(),
                    found,
                });
            }
        }
        let response = turn.answer(index + 1)?;
        // Not a streaming provider: the text arrives once, whole.
        let text = response.text();
        if !text.is_empty() {
            call.emit(Delta::Text(&text));
        }
        Ok(response)
    }
}
