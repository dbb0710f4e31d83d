//! deft-toolbelt's integration tests: the tool definitions, and tools on a real desktop.

mod refs;
mod specs;
