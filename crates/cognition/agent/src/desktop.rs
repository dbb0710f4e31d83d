//! The seam to the desktop: "carry out this toolbelt call". The real [`Toolbelt`]
//! implements it; [`FakeDesktop`] answers from a closure, for the loop's unit tests.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use deft_toolbelt::{AsParams, ToolCall, ToolError, ToolOutput, Toolbelt};
use deft_types::{ElementId, Role};
use serde::{Deserialize, Serialize};

/// A boxed future (the seam is used as a trait object by faces that pick a backend).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A ref the session has shown, saved with a paused run so that the same refs name the
/// same elements when it resumes in another process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRef {
    /// The ref's number (`e12` is 12).
    pub n: u32,
    /// The element's id.
    pub id: String,
    /// Its role when shown.
    pub role: String,
    /// Its name when shown.
    pub name: String,
}

/// Where the agent's actions and observations go.
pub trait Desktop: Send + Sync {
    /// Carry out one toolbelt call (parameters spelled as tool calls spell them).
    fn call<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;

    /// The refs shown so far, in order (empty where refs are not kept).
    fn saved_refs(&self) -> Vec<SavedRef> {
        Vec::new()
    }

    /// Give the refs of a paused run their elements again. Only on a fresh session: refs
    /// are minted in order, so `saved` must be `e1..eN` without gaps.
    fn restore_refs(&self, saved: &[SavedRef]) -> Result<(), String> {
        if saved.is_empty() { Ok(()) } else { Err("this desktop keeps no refs".into()) }
    }
}

impl Desktop for Toolbelt {
    fn call<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(Toolbelt::call(self, call, &AsParams))
    }

    fn saved_refs(&self) -> Vec<SavedRef> {
        let refs = self.refs();
        (1..=refs.len() as u32)
            .filter_map(|n| {
                refs.lookup(&format!("e{n}")).map(|(id, role, name)| SavedRef {
                    n,
                    id: id.0,
                    role: role.as_str().to_string(),
                    name,
                })
            })
            .collect()
    }

    fn restore_refs(&self, saved: &[SavedRef]) -> Result<(), String> {
        let refs = self.refs();
        if !refs.is_empty() {
            return Err(format!("the session already shows {} refs; restore refs first", refs.len()));
        }
        for (i, r) in saved.iter().enumerate() {
            if r.n as usize != i + 1 {
                return Err(format!("saved refs are not e1..e{} in order (found e{} at {})", saved.len(), r.n, i + 1));
            }
            let mut e = deft_a11y::element(&r.id, r.role.as_str(), &r.name);
            e.id = ElementId(r.id.clone());
            e.role = Role::new(&r.role);
            let minted = refs.mint(&e);
            if minted != format!("e{}", r.n) {
                return Err(format!("ref e{} came back as {minted}", r.n));
            }
        }
        Ok(())
    }
}

type Handler = dyn Fn(&ToolCall) -> Result<ToolOutput, ToolError> + Send + Sync;

/// A desktop that answers every call from a closure and records the calls, for tests of
/// the loop without a display.
#[derive(Clone)]
pub struct FakeDesktop {
    handler: Arc<Handler>,
    calls: Arc<Mutex<Vec<ToolCall>>>,
}

impl FakeDesktop {
    /// A desktop answering with `handler`.
    pub fn new(handler: impl Fn(&ToolCall) -> Result<ToolOutput, ToolError> + Send + Sync + 'static) -> FakeDesktop {
        FakeDesktop { handler: Arc::new(handler), calls: Arc::new(Mutex::new(Vec::new())) }
    }

    /// Every call received, in order.
    pub fn calls(&self) -> Vec<ToolCall> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl std::fmt::Debug for FakeDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FakeDesktop({} calls)", self.calls().len())
    }
}

impl Desktop for FakeDesktop {
    fn call<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner).push(call.clone());
        let out = (self.handler)(call);
        Box::pin(async move { out })
    }
}
