//! What came of a wait: its own module, so that the events that carry it depend on no
//! part of the executor.

use deft_types::{Channel, Evidence};
use serde::{Deserialize, Serialize};

/// What came of a wait.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WaitOutcome {
    /// The condition was met within the timeout.
    pub met: bool,
    /// What was seen, where and when: the evidence that it was met, or of what was last
    /// observed when it was not.
    pub evidence: Vec<Evidence>,
    /// The channel through which the condition was seen met (`None` when it was not).
    pub channel: Option<Channel>,
    /// What was last observed, in plain words (for a wait that timed out: why not met).
    pub last_observed: String,
    /// Time from the start of the wait to its end.
    pub elapsed_ms: u64,
}
