//! Deft's agent: a ReAct loop that thinks, acts through verified tools, knows when it is
//! unsure, and asks.
//!
//! # The key decision: what the model may do is decided below the model
//!
//! The model proposes; code disposes. Each step the model gets the goal, the tools (the
//! toolbelt's specs, one definition, plus `ask_user`, `done` and `wait_for_visual_cue`)
//! and the world model, and answers with a thought and a tool call. Before an acting call
//! touches the desktop, the agent resolves its target to one element of the live tree,
//! checks that element's application and window against the [`Policy`], rewrites the call
//! to aim at exactly that element (so the executor cannot land anywhere else), asks the
//! person to confirm anything the policy names irreversible, and scores its confidence
//! ([`confidence`]): below the threshold the action is not run and the person is asked.
//! Text read from the screen reaches the model only inside a delimited block labelled
//! untrusted data. So a model persuaded by text on the screen still cannot act outside the
//! policy, and a model that guesses between two "Submit" buttons asks instead.
//!
//! What runs is the toolbelt's verified executor: a failed action comes back as an
//! enriched observation (expected, observed, what blocks, suggested action), and transient
//! failures were already retried below, with no model round trip.
//!
//! Seams: [`Desktop`] (one method, "carry out this toolbelt call"; the real `Toolbelt`
//! implements it, [`FakeDesktop`] answers from a closure), [`Asker`] (where questions go:
//! the faces implement a desktop dialog, a terminal prompt, or a `needs_input` result),
//! and deft-llm's `Model`. The only crate that builds prompts ([`prompt`]).

mod act;
mod ask;
mod belief;
pub mod calibrate;
pub mod confidence;
mod config;
pub mod cue;
mod desktop;
mod events;
mod exec;
mod handle;
pub mod observe;
mod pending;
mod policy;
pub mod prompt;
mod repair;
mod run;
mod state;
mod tools;
mod world;

pub use act::{Candidate, Resolved, call_words};
pub use ask::{Answer, AskReason, Asker, FixedAnswer, Question, is_yes};
pub use belief::{Belief, Divergence, Known, LastAction};
pub use config::{AgentConfig, Budget, ConfidenceConfig, ConfidenceMode, Tighten};
pub use desktop::{BoxFuture, Desktop, FakeDesktop, SavedRef};
pub use events::AgentEvent;
pub use policy::{BUILTIN_CONFIRM, BUILTIN_DENY_KEYS, Place, Policy, normalise_chord};
pub use repair::{FailedStep, repair_goal};
pub use run::{Agent, AgentError, RunReport, RunStatus, Sink};
pub use state::{Pending, PendingKind, RunState, STATE_VERSION, StepStats};
pub use tools::{AgentTool, AskUserParams, CueParams, DoneParams, EXPECTED_OUTCOME, all_names, tool_defs};
pub use world::{Obs, Turn, World};
